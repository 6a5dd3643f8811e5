// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Building the pod -> PDB index (budget::PdbIndex::Build) at 1k/5k/10k nodes
// (10k nodes = 300k pods, 5k PDBs over 100 namespaces, 50 PDBs each). The
// Snapshot is built outside the timed loop. BM_PdbMatchUnbucketed is the
// measurement behind the bucketing: the same pass testing every PDB of the
// pod's namespace (selectors pre-parsed, nothing else computed).

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "bench_cluster.h"
#include "karpenter/budget/pdb.h"
#include "karpenter/selector.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/testing/synthetic_cluster.h"

namespace karpenter {
namespace {

snapshot::Snapshot MakeSnapshot(int nodes) {
  return bench::BuildOrDie(bench::SyntheticObjects(nodes));
}

void BM_PdbIndexBuild(benchmark::State& state) {
  const snapshot::Snapshot s = MakeSnapshot(static_cast<int>(state.range(0)));
  int64_t matched = 0;
  for (auto _ : state) {
    budget::PdbIndex index = budget::PdbIndex::Build(s);
    matched = 0;
    for (snapshot::PodIndex p = 0; p < s.pod_count(); ++p) {
      matched += static_cast<int64_t>(index.PdbsOfPod(p).size());
    }
    benchmark::DoNotOptimize(index);
  }
  state.SetItemsProcessed(state.iterations() *
                          static_cast<int64_t>(s.pod_count()));
  state.counters["pods"] = static_cast<double>(s.pod_count());
  state.counters["pdbs"] = static_cast<double>(s.pdbs().size());
  state.counters["matched"] = static_cast<double>(matched);
}
BENCHMARK(BM_PdbIndexBuild)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_PdbMatchUnbucketed(benchmark::State& state) {
  const snapshot::Snapshot s = MakeSnapshot(static_cast<int>(state.range(0)));
  std::vector<LabelSelector> selectors;
  for (const v1::PodDisruptionBudget& pdb : s.pdbs()) {
    selectors.push_back(
        *LabelSelector::FromProto(&pdb.spec().selector(), "spec.selector"));
  }
  for (auto _ : state) {
    int64_t matched = 0;
    for (snapshot::PodIndex p = 0; p < s.pod_count(); ++p) {
      const auto& labels = s.PodShape(p).metadata().labels();
      for (snapshot::PdbIndex id : s.PdbsInNamespace(s.NamespaceOfPod(p))) {
        matched += selectors[id].Matches(labels) ? 1 : 0;
      }
    }
    benchmark::DoNotOptimize(matched);
  }
  state.SetItemsProcessed(state.iterations() *
                          static_cast<int64_t>(s.pod_count()));
}
BENCHMARK(BM_PdbMatchUnbucketed)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace karpenter
