// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The consolidation scheduling simulation (disruption::Scheduler) on the
// synthetic cluster of 1k nodes x 30 pods (29 app pods of 100m, 1 DaemonSet
// pod; nodes 3920m allocatable, so about 9 more pods fit on each):
//   - BM_SimulationBuild: Scheduler::Build (indexing the snapshot, PDBs and
//     a 3-type catalogue per NodePool);
//   - BM_SimulateCandidates/N: one Simulate of the first N nodes as
//     candidates (N x 29 pods to move);
//   - BM_MultiNodeConsolidation: the ~10 Simulate calls of one multi-node
//     consolidation binary search over 100 candidates (prefix lengths 100,
//     50, 75, 88, 94, 97, 99, 100, 25, 12).
// The snapshot and the candidates are built outside the timed loop.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench_cluster.h"
#include "karpenter/disruption/scheduler.h"
#include "karpenter/drain/classify.h"
#include "karpenter/snapshot/snapshot.h"

namespace karpenter {
namespace {

using disruption::Candidate;
using disruption::Scheduler;

InstanceTypeCatalog Catalog(const snapshot::Snapshot& s) {
  InstanceTypeCatalog catalog;
  for (const v1::NodePool& pool : s.node_pools()) {
    std::vector<InstanceType>& types = catalog[pool.metadata().name()];
    int i = 0;
    for (const char* cpu : {"2", "4", "8"}) {
      InstanceType t;
      t.name = absl::StrCat("m.", cpu, "x");
      t.capacity = {{"cpu", cpu}, {"memory", "32Gi"}, {"pods", "110"}};
      t.offerings = {{"us-west-2a", "on-demand", 0.1 * (1 << i), true}};
      t.labels = {{"kubernetes.io/arch", "amd64"}};
      types.push_back(t);
      ++i;
    }
  }
  return catalog;
}

std::vector<Candidate> Candidates(const snapshot::Snapshot& s, int n) {
  std::vector<Candidate> out;
  for (snapshot::NodeIndex i = 0; i < static_cast<snapshot::NodeIndex>(n);
       ++i) {
    Candidate c;
    c.node = i;
    c.node_name = s.nodes()[i].metadata().name();
    c.node_pool_name =
        s.nodes()[i].metadata().labels().at("karpenter.sh/nodepool");
    for (snapshot::PodIndex p : s.PodsOnNode(i)) {
      c.pods.push_back(p);
      if (!drain::IsOwnedByDaemonSet(s.DecodePod(p))) {
        c.reschedulable_pods.push_back(p);
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

const snapshot::Snapshot& Cluster() {
  static const snapshot::Snapshot* s =
      new snapshot::Snapshot(bench::BuildOrDie(bench::SyntheticObjects(1000)));
  return *s;
}

Scheduler BuildOrDie(const snapshot::Snapshot& s,
                     const InstanceTypeCatalog& catalog) {
  absl::StatusOr<Scheduler> scheduler = Scheduler::Build(s, catalog);
  if (!scheduler.ok()) std::abort();
  return *std::move(scheduler);
}

void BM_SimulationBuild(benchmark::State& state) {
  const snapshot::Snapshot& s = Cluster();
  const InstanceTypeCatalog catalog = Catalog(s);
  for (auto _ : state) {
    Scheduler scheduler = BuildOrDie(s, catalog);
    benchmark::DoNotOptimize(scheduler);
  }
  state.counters["pods"] = static_cast<double>(s.pod_count());
}
BENCHMARK(BM_SimulationBuild)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_SimulateCandidates(benchmark::State& state) {
  const snapshot::Snapshot& s = Cluster();
  const Scheduler scheduler = BuildOrDie(s, Catalog(s));
  const std::vector<Candidate> candidates =
      Candidates(s, static_cast<int>(state.range(0)));
  bool scheduled = false;
  for (auto _ : state) {
    const disruption::SimulationResult r = scheduler.Simulate(candidates);
    scheduled = r.all_pods_scheduled;
    benchmark::DoNotOptimize(scheduled);
  }
  state.counters["scheduled"] = scheduled ? 1 : 0;
}
BENCHMARK(BM_SimulateCandidates)
    ->Arg(10)
    ->Arg(100)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_MultiNodeConsolidation(benchmark::State& state) {
  const snapshot::Snapshot& s = Cluster();
  const Scheduler scheduler = BuildOrDie(s, Catalog(s));
  const std::vector<Candidate> all = Candidates(s, 100);
  const int prefixes[] = {100, 50, 75, 88, 94, 97, 99, 100, 25, 12};
  int64_t scheduled = 0;
  for (auto _ : state) {
    scheduled = 0;
    for (int n : prefixes) {
      const disruption::SimulationResult r =
          scheduler.Simulate(absl::MakeConstSpan(all.data(), n));
      scheduled += r.all_pods_scheduled;
    }
    benchmark::DoNotOptimize(scheduled);
  }
  state.counters["scheduled_tries"] = static_cast<double>(scheduled);
}
BENCHMARK(BM_MultiNodeConsolidation)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace karpenter
