// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// drift::EvaluateAllDrift at 1k/5k/10k nodes (10k nodes = 10k NodeClaims,
// 500 NodePools), as the disruption pass calls it: a catalogue of every
// NodePool's instance types and no provider answers. The NodeClaims carry
// their node's labels, as in disruption_pass_benchmark.cc, so requirements
// drift and InstanceTypeNotFound read real placement labels; 1% carry a
// Drifted condition. The snapshot and catalogue are built outside the timed
// loop.

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "bench_cluster.h"
#include "karpenter/disruption/types.h"
#include "karpenter/drift/verdict.h"
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

// The synthetic cluster's four instance types in its three zones, for every
// NodePool.
InstanceTypeCatalog MakeCatalog(const snapshot::Snapshot& s) {
  std::vector<InstanceType> types;
  for (const char* name :
       {"c5.2xlarge", "m5.large", "m5.xlarge", "r5.xlarge"}) {
    InstanceType type;
    type.name = name;
    type.capacity = {{"cpu", "4"}, {"memory", "16Gi"}, {"pods", "58"}};
    for (const char* zone : {"us-west-2a", "us-west-2b", "us-west-2c"}) {
      type.offerings.push_back({zone, "on-demand", 0.2, true});
    }
    types.push_back(std::move(type));
  }
  InstanceTypeCatalog catalog;
  for (const v1::NodePool& pool : s.node_pools()) {
    catalog[pool.metadata().name()] = types;
  }
  return catalog;
}

void BM_EvaluateAllDrift(benchmark::State& state) {
  const snapshot::Snapshot s = MakeSnapshot(static_cast<int>(state.range(0)));
  const InstanceTypeCatalog catalog = MakeCatalog(s);
  drift::DriftObservations obs;
  obs.catalog = &catalog;
  size_t changes = 0;
  for (auto _ : state) {
    std::vector<drift::DriftVerdict> verdicts =
        drift::EvaluateAllDrift(s, obs, kNow);
    changes = 0;
    for (const drift::DriftVerdict& v : verdicts) {
      if (v.change != drift::DriftConditionChange::kNone) ++changes;
    }
    benchmark::DoNotOptimize(verdicts);
  }
  state.counters["node_claims"] = static_cast<double>(s.node_claims().size());
  state.counters["changes"] = static_cast<double>(changes);
}
BENCHMARK(BM_EvaluateAllDrift)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace karpenter

BENCHMARK_MAIN();
