// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Per-pod eviction (Karpenter today) vs. evictions serialised per PDB, with
// and without the PDB precheck: one simulated drain (testing::SimulateDrain
// over a FakeCluster) per iteration. The counters are the simulated costs
// (API calls by answer, simulated drain time); the benchmark time is the
// wall time of one simulation.
//
// Input: 10 nodes being drained with 100 pods each (1,000 pods), 50 PDBs
// with maxUnavailable: 1 selecting 20 pods each (2 on every drained node),
// every pod owned by its app's ReplicaSet, terminationGracePeriodSeconds 30,
// Ready; 10 spare nodes for the replacements (the fake places every
// replacement on the first spare; capacity is not modelled). FakeCluster
// defaults: a replacement appears 5 s after its predecessor starts
// terminating and is Ready 10 s later. No NodeClaims, so no deadline: the
// drain is purely graceful and nothing is force-deleted. The eviction queue
// has Karpenter's defaults (qps 100, burst 1000, backoff 100 ms to 10 s).

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/testing/builders.h"
#include "karpenter/testing/drain_simulation.h"
#include "karpenter/testing/fake_clock.h"
#include "karpenter/testing/fake_cluster.h"

namespace karpenter::bench {
namespace {

constexpr int kDrainedNodes = 10;
constexpr int kPodsPerNode = 100;
constexpr int kPdbs = 50;
constexpr int kSpareNodes = 10;
constexpr int64_t kGraceSeconds = 30;
constexpr absl::Time kStart = testing::kTestEpoch;

// Pod i: a ReplicaSet pod of app-<i % kPdbs> on drain-<i / kPodsPerNode>
// (karpenter/testing/builders.h).
v1::Pod MakePod(int i) {
  const std::string app = absl::StrCat("app-", i % kPdbs);
  return testing::MakePod({.name = absl::StrCat("pod-", i),
                           .uid = absl::StrCat("uid-", i),
                           .app = app,
                           .node = absl::StrCat("drain-", i / kPodsPerNode),
                           .owner = "ReplicaSet",
                           .owner_uid = "rs-" + app,
                           .grace = kGraceSeconds});
}

snapshot::ObjectSet MakeObjects() {
  testing::ClusterBuilder cluster;
  for (int n = 0; n < kDrainedNodes; ++n) {
    cluster.AddNode({.name = absl::StrCat("drain-", n)});
  }
  for (int n = 0; n < kSpareNodes; ++n) {
    cluster.AddNode({.name = absl::StrCat("spare-", n)});
  }
  for (int i = 0; i < kDrainedNodes * kPodsPerNode; ++i) {
    cluster.Add(MakePod(i));
  }
  for (int k = 0; k < kPdbs; ++k) {
    const std::string app = absl::StrCat("app-", k);
    cluster.AddPdb({.name = app,
                    .selector = testing::Labels{{"app", app}},
                    .max_unavailable = "1"});
  }
  return cluster.TakeObjects();
}

std::vector<std::string> DrainedNodes() {
  std::vector<std::string> out;
  for (int n = 0; n < kDrainedNodes; ++n) {
    out.push_back(absl::StrCat("drain-", n));
  }
  return out;
}

// state.range(0): 0 per pod, 1 keyed by PDB, 2 keyed by PDB + precheck.
drain::DrainerOptions OptionsFor(int64_t variant) {
  drain::DrainerOptions o;
  o.queue.mode = variant == 0 ? drain::EvictionQueueMode::kPerPod
                              : drain::EvictionQueueMode::kKeyedByPdb;
  o.precheck_pdbs = variant == 2;
  return o;
}

void BM_DrainSimulation(benchmark::State& state) {
  const snapshot::ObjectSet objects = MakeObjects();
  const std::vector<std::string> nodes = DrainedNodes();
  testing::FakeClusterOptions fake_options;
  fake_options.record_call_log = false;
  testing::DrainSimulationResult last;
  for (auto _ : state) {
    state.PauseTiming();
    testing::FakeClock clock(kStart);
    auto cluster = testing::FakeCluster::Create(objects, clock, fake_options);
    if (!cluster.ok()) std::abort();
    state.ResumeTiming();
    auto result = testing::SimulateDrain(
        **cluster, clock, nodes, OptionsFor(state.range(0)), absl::Hours(2));
    if (!result.ok() || !result->completed) std::abort();
    state.PauseTiming();
    last = *std::move(result);
    cluster->reset();
    state.ResumeTiming();
  }
  state.counters["evict_calls"] = static_cast<double>(last.evict_calls);
  state.counters["http_200"] = static_cast<double>(last.http_200);
  state.counters["http_429"] = static_cast<double>(last.http_429);
  state.counters["http_500"] = static_cast<double>(last.http_500);
  state.counters["force_deletes"] = static_cast<double>(last.force_deletes);
  state.counters["local_blocks"] = static_cast<double>(last.local_pdb_blocks);
  state.counters["events"] = static_cast<double>(last.events.size());
  state.counters["steps"] = static_cast<double>(last.steps);
  state.counters["drain_s"] = absl::ToDoubleSeconds(last.drain_time);
  state.counters["pdb_violations"] = static_cast<double>(last.pdb_violations);
}
BENCHMARK(BM_DrainSimulation)
    ->ArgName("variant")
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

}  // namespace
}  // namespace karpenter::bench
