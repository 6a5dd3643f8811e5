// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// One disruption pass's candidate work at 1k/5k/10k nodes (10k nodes = 300k
// pods): CandidatePool::Build (the one walk over nodes and pods; the
// PdbIndex is built outside the timed loop, as a host builds it once per
// snapshot), CandidatePool::For (the per-method copy) and a whole emptiness
// + drift pass (Build, both methods, a trivial simulator). Every NodeClaim
// of the synthetic cluster is treated as initialised and consolidatable.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>

#include "bench_cluster.h"
#include "karpenter/budget/pdb.h"
#include "karpenter/disruption/candidates.h"
#include "karpenter/disruption/methods.h"
#include "karpenter/disruption/snapshot_facts.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/testing/synthetic_cluster.h"

namespace karpenter {
namespace {

using disruption::CandidateContext;
using disruption::CandidatePool;

const absl::Time kNow = absl::FromUnixSeconds(1704067200) + absl::Hours(2);

// The synthetic cluster with every Node labelled initialised.
snapshot::Snapshot MakeSnapshot(int nodes) {
  snapshot::ObjectSet objects = bench::SyntheticObjects(nodes);
  for (v1::Node& node : objects.nodes) {
    (*node.mutable_metadata()->mutable_labels())["karpenter.sh/initialized"] =
        "true";
  }
  return bench::BuildOrDie(std::move(objects));
}

CandidatePool BuildOrDie(const CandidateContext& ctx) {
  absl::StatusOr<CandidatePool> pool = CandidatePool::Build(ctx);
  if (!pool.ok()) std::abort();
  return *std::move(pool);
}

class AllFit : public disruption::SchedulingSimulator {
 public:
  disruption::SimulationResult Simulate(
      absl::Span<const disruption::Candidate>) const override {
    disruption::SimulationResult r;
    r.all_pods_scheduled = true;
    return r;
  }
};

// CandidatePool::Build computing everything it needs (`over_facts` false)
// or over prebuilt SnapshotFacts, as a pass does.
void RunBuild(benchmark::State& state, bool over_facts) {
  const snapshot::Snapshot s = MakeSnapshot(static_cast<int>(state.range(0)));
  const budget::PdbIndex pdbs = budget::PdbIndex::Build(s);
  const disruption::SnapshotFacts facts = disruption::SnapshotFacts::Build(s);
  CandidateContext ctx;
  ctx.snapshot = &s;
  if (over_facts) {
    ctx.facts = &facts;
  } else {
    ctx.pdbs = &pdbs;
  }
  ctx.now = kNow;
  size_t excluded = 0;
  for (auto _ : state) {
    CandidatePool pool = BuildOrDie(ctx);
    excluded = pool.exclusions().size();
    benchmark::DoNotOptimize(pool);
  }
  state.counters["pods"] = static_cast<double>(s.pod_count());
  state.counters["excluded"] = static_cast<double>(excluded);
}

void BM_CandidatePoolBuild(benchmark::State& state) { RunBuild(state, false); }
BENCHMARK(BM_CandidatePoolBuild)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_CandidatePoolBuildOverFacts(benchmark::State& state) {
  RunBuild(state, true);
}
BENCHMARK(BM_CandidatePoolBuildOverFacts)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_CandidatePoolFor(benchmark::State& state) {
  const snapshot::Snapshot s = MakeSnapshot(static_cast<int>(state.range(0)));
  const budget::PdbIndex pdbs = budget::PdbIndex::Build(s);
  CandidateContext ctx;
  ctx.snapshot = &s;
  ctx.pdbs = &pdbs;
  ctx.now = kNow;
  const CandidatePool pool = BuildOrDie(ctx);
  size_t candidates = 0;
  for (auto _ : state) {
    CandidatePool::Selection sel = pool.For(disruption::Method::kEmptiness);
    candidates = sel.candidates.size();
    benchmark::DoNotOptimize(sel);
  }
  state.counters["candidates"] = static_cast<double>(candidates);
}
BENCHMARK(BM_CandidatePoolFor)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_EmptinessAndDriftPass(benchmark::State& state) {
  const snapshot::Snapshot s = MakeSnapshot(static_cast<int>(state.range(0)));
  const budget::PdbIndex pdbs = budget::PdbIndex::Build(s);
  CandidateContext ctx;
  ctx.snapshot = &s;
  ctx.pdbs = &pdbs;
  ctx.now = kNow;
  const AllFit simulator;
  for (auto _ : state) {
    CandidatePool pool = BuildOrDie(ctx);
    disruption::BudgetLedger empty;
    disruption::BudgetLedger drifted;
    for (const v1::NodePool& np : s.node_pools()) {
      empty.Set(np.metadata().name(), 10);
      drifted.Set(np.metadata().name(), 10);
    }
    disruption::MethodResult e =
        disruption::ComputeEmptiness(pool, empty, kNow, {});
    disruption::MethodResult d =
        disruption::ComputeDrift(pool, drifted, simulator, {});
    benchmark::DoNotOptimize(e);
    benchmark::DoNotOptimize(d);
  }
}
BENCHMARK(BM_EmptinessAndDriftPass)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace karpenter
