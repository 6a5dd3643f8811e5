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
#include "karpenter/disruption/controller.h"
#include "karpenter/snapshot/snapshot.h"

namespace karpenter {
namespace {

const absl::Time kCreated = absl::FromUnixSeconds(1704067200);
const absl::Time kNow = kCreated + absl::Hours(2);
constexpr int kDriftedEvery = 100;

snapshot::Snapshot MakeSnapshot(int nodes) {
  snapshot::ObjectSet objects = bench::SyntheticObjects(nodes);
  for (size_t i = 0; i < objects.node_claims.size(); i += kDriftedEvery) {
    v1::Condition* c =
        objects.node_claims[i].mutable_status()->add_conditions();
    c->set_type("Drifted");
    c->set_status("True");
    c->set_reason("AMIDrift");
    c->mutable_last_transition_time()->set_seconds(
        absl::ToUnixSeconds(kCreated + absl::Hours(1)));
  }
  return bench::BuildOrDie(std::move(objects));
}

// The synthetic cluster's four instance types, in its three zones, for
// every NodePool.
disruption::InstanceTypeCatalog MakeCatalog(const snapshot::Snapshot& s) {
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
  disruption::InstanceTypeCatalog catalog;
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

void BM_DisruptionPass(benchmark::State& state) {
  const snapshot::Snapshot s = MakeSnapshot(static_cast<int>(state.range(0)));
  disruption::PassInputs inputs;
  inputs.catalog = MakeCatalog(s);
  disruption::ControllerOptions options;
  options.disable_consolidation = true;
  const disruption::Controller controller(options);
  size_t commands = 0;
  for (auto _ : state) {
    absl::StatusOr<disruption::Plan> plan = controller.Decide(s, inputs, kNow);
    if (!plan.ok()) std::abort();
    commands = plan->commands.size();
    benchmark::DoNotOptimize(plan);
  }
  state.counters["pods"] = static_cast<double>(s.pods().size());
  state.counters["commands"] = static_cast<double>(commands);
  const int64_t peak = PeakRssKiB();
  state.counters["peak_rss_MiB"] = static_cast<double>(peak) / 1024;
  state.counters["peak_rss_per_pod_B"] =
      static_cast<double>(peak) * 1024 / static_cast<double>(s.pods().size());
}
BENCHMARK(BM_DisruptionPass)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace karpenter

BENCHMARK_MAIN();
