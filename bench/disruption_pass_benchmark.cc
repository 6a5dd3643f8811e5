// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// One full disruption pass, disruption::Controller::Decide, at 1k/5k/10k
// nodes (10k nodes = 300k pods, 5k PDBs, 500 NodePools), without the two
// consolidation methods: PDB index, budgets, drift verdicts, candidates,
// NodePool deletion, expiration, emptiness, static drift and drift with its
// scheduling simulation. 1% of the NodeClaims are drifted (a Drifted
// condition), so drift simulates and commands under the default 10% budget.
// The snapshot is built outside the timed loop. The process's peak resident
// set after the 10k pass (snapshot included) is reported per pod.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>

#include "bench_cluster.h"
#include "karpenter/budget/allowed.h"
#include "karpenter/budget/pdb.h"
#include "karpenter/disruption/candidates.h"
#include "karpenter/disruption/consolidation.h"
#include "karpenter/disruption/controller.h"
#include "karpenter/disruption/scheduler.h"
#include "karpenter/disruption/snapshot_facts.h"
#include "karpenter/snapshot/snapshot.h"

namespace karpenter {
namespace {

const absl::Time kCreated = absl::FromUnixSeconds(1704067200);
const absl::Time kNow = kCreated + absl::Hours(2);
constexpr int kDriftedEvery = 100;

snapshot::Snapshot MakeSnapshot(int nodes) {
  return bench::DriftingSnapshot(nodes, kDriftedEvery,
                                 kCreated + absl::Hours(1));
}

// The synthetic cluster's four instance types, in its three zones, for
// every NodePool.
InstanceTypeCatalog MakeCatalog(const snapshot::Snapshot& s) {
  std::vector<InstanceType> types;
  const struct {
    const char* name;
    const char* cpu;
    const char* memory;
    double price;
  } kTypes[] = {{"c5.2xlarge", "8", "16Gi", 0.34},
                {"m5.large", "2", "8Gi", 0.096},
                {"m5.xlarge", "4", "16Gi", 0.192},
                {"r5.xlarge", "4", "32Gi", 0.252}};
  for (const auto& t : kTypes) {
    InstanceType type;
    type.name = t.name;
    type.capacity = {{"cpu", t.cpu}, {"memory", t.memory}, {"pods", "58"}};
    for (const char* zone : {"us-west-2a", "us-west-2b", "us-west-2c"}) {
      type.offerings.push_back({zone, "on-demand", t.price, true});
    }
    types.push_back(std::move(type));
  }
  InstanceTypeCatalog catalog;
  for (const v1::NodePool& pool : s.node_pools()) {
    catalog[pool.metadata().name()] = types;
  }
  return catalog;
}

int64_t PeakRssKiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::atoll(line.c_str() + 6);
  }
  return -1;
}

// One pass over prebuilt SnapshotFacts (the pass itself); with
// `with_facts`, Decide(snapshot) building the facts first, as a host that
// takes a new Snapshot for every pass pays.
void RunPass(benchmark::State& state, bool with_facts) {
  const snapshot::Snapshot s = MakeSnapshot(static_cast<int>(state.range(0)));
  disruption::PassInputs inputs;
  inputs.catalog = MakeCatalog(s);
  disruption::ControllerOptions options;
  options.disable_consolidation = true;
  const disruption::Controller controller(options);
  const disruption::SnapshotFacts facts = disruption::SnapshotFacts::Build(s);
  size_t commands = 0;
  int acted = -1;
  int first_method = -1;
  for (auto _ : state) {
    absl::StatusOr<disruption::Plan> plan =
        with_facts ? controller.Decide(s, inputs, kNow)
                   : controller.Decide(facts, inputs, kNow);
    if (!plan.ok()) std::abort();
    commands = plan->commands.size();
    acted = plan->acted.has_value() ? static_cast<int>(*plan->acted) : -1;
    first_method = plan->commands.empty()
                       ? -1
                       : static_cast<int>(plan->commands.front().method);
    benchmark::DoNotOptimize(plan);
  }
  state.counters["pods"] = static_cast<double>(s.pod_count());
  state.counters["commands"] = static_cast<double>(commands);
  state.counters["acted"] = acted;
  state.counters["first_method"] = first_method;
  const int64_t peak = PeakRssKiB();
  state.counters["peak_rss_MiB"] = static_cast<double>(peak) / 1024;
  state.counters["peak_rss_per_pod_B"] =
      static_cast<double>(peak) * 1024 / static_cast<double>(s.pod_count());
}
void BM_DisruptionPass(benchmark::State& state) { RunPass(state, false); }
BENCHMARK(BM_DisruptionPass)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_DisruptionPassBuildingFacts(benchmark::State& state) {
  RunPass(state, true);
}
BENCHMARK(BM_DisruptionPassBuildingFacts)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// SnapshotFacts::Build alone.
void BM_SnapshotFacts(benchmark::State& state) {
  const snapshot::Snapshot s = MakeSnapshot(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    disruption::SnapshotFacts facts = disruption::SnapshotFacts::Build(s);
    benchmark::DoNotOptimize(facts);
  }
  state.counters["pods"] = static_cast<double>(s.pod_count());
}
BENCHMARK(BM_SnapshotFacts)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Single- and multi-node consolidation at 1k nodes x 30 pods: the method
// alone over the prebuilt candidates and simulator (Karpenter's figure to
// beat: ~12 s for 10k pods / 2k nodes). Build costs are reported by
// BM_DisruptionPass (candidates) and simulation_benchmark (Scheduler).
void BM_Consolidation(benchmark::State& state) {
  const bool multi = state.range(1) == 1;
  const snapshot::Snapshot s = MakeSnapshot(static_cast<int>(state.range(0)));
  const InstanceTypeCatalog catalog = MakeCatalog(s);
  const budget::PdbIndex pdbs = budget::PdbIndex::Build(s);
  disruption::CandidateContext ctx;
  ctx.snapshot = &s;
  ctx.pdbs = &pdbs;
  ctx.catalog = &catalog;
  ctx.now = kNow;
  absl::StatusOr<disruption::CandidatePool> pool =
      disruption::CandidatePool::Build(ctx);
  absl::StatusOr<disruption::Scheduler> sim =
      disruption::Scheduler::Build(s, catalog);
  if (!pool.ok() || !sim.ok()) std::abort();
  const disruption::Method method =
      multi ? disruption::Method::kMultiNodeConsolidation
            : disruption::Method::kSingleNodeConsolidation;
  const std::vector<disruption::Candidate> candidates =
      pool->For(method).candidates;
  const budget::BudgetMapping budgets =
      budget::BudgetBook::Build(s).Evaluate(kNow);
  size_t commanded = 0;
  for (auto _ : state) {
    disruption::BudgetLedger ledger = disruption::BudgetLedger::FromMapping(
        budgets, budget::DisruptionReason::kUnderutilized);
    disruption::ConsolidationResult r =
        multi ? disruption::ComputeMultiNodeConsolidation(candidates, ledger,
                                                          *sim, catalog, kNow)
              : disruption::ComputeSingleNodeConsolidation(candidates, ledger,
                                                           *sim, catalog, kNow);
    commanded = r.commands.empty() ? 0 : r.commands.front().candidates.size();
    benchmark::DoNotOptimize(r);
  }
  state.counters["candidates"] = static_cast<double>(candidates.size());
  state.counters["commanded_nodes"] = static_cast<double>(commanded);
}
BENCHMARK(BM_Consolidation)
    ->ArgNames({"nodes", "multi"})
    ->Args({1000, 0})
    ->Args({1000, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace karpenter

BENCHMARK_MAIN();
