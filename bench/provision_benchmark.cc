// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Issue 21 (acceptance 7): Karpenter's provisioning scheduler at scale.
//   - BM_Provision: disruption::Scheduler::Provision over 10,000 pending
//     pods (100m / 128Mi each, the constraint mix of issue 20: half the
//     Deployments with a zone topology spread, a fifth with a hostname pod
//     anti-affinity, a tenth with a hostPort) against 2,000 existing nodes
//     that already run 37 application pods and their DaemonSet pod (3.8 of
//     3.92 cpu used, so one more pod fits each), plus new NodeClaims from
//     three NodePools of weights 100 (on-demand, cpu limit 1000), 50 (spot
//     or on-demand) and 10 (on-demand) over a generated 200-type catalogue
//     (2 to 96 cpu, 2 to 8 GiB per cpu, 29 to 234 pods, offerings in three
//     zones, on-demand and spot at 35%). The Scheduler is built outside the
//     timed loop. Karpenter's scheduling benchmark (PR #1938): 12.1 s for
//     10k pods / 2k nodes.
//   - BM_ProvisionBuild: Scheduler::Build over the same snapshot alone.
//   - BM_ProvisionTotal: scheduling::Provision (Build, Provision, report).

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench_cluster.h"
#include "karpenter/disruption/scheduler.h"
#include "karpenter/scheduling/provision.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/well_known.h"

namespace karpenter {
namespace {

using snapshot::PodIndex;

constexpr int kNodes = 2000;
constexpr int kPendingPods = 10000;

// The 200 generated instance types, the same for every NodePool.
std::vector<InstanceType> CatalogTypes() {
  constexpr int kCpus[] = {2, 4, 8, 16, 32, 48, 64, 96};
  constexpr int kGiBPerCpu[] = {2, 4, 8};
  constexpr int kPods[] = {29, 58, 110, 234};
  std::vector<InstanceType> types;
  for (int i = 0; i < 200; ++i) {
    const int cpu = kCpus[i % 8];
    const int ratio = kGiBPerCpu[(i / 8) % 3];
    InstanceType t;
    t.name = absl::StrFormat("type-%03d.%dx%d", i, cpu, ratio);
    t.capacity = {{"cpu", absl::StrFormat("%d", cpu)},
                  {"memory", absl::StrFormat("%dGi", cpu * ratio)},
                  {"pods", absl::StrFormat("%d", kPods[(i / 24) % 4])}};
    // A per-type spread so no two types tie on price.
    const double price =
        cpu * (0.03 + 0.008 * ratio) * (1.0 + 0.001 * static_cast<double>(i));
    for (const char* zone : {"us-west-2a", "us-west-2b", "us-west-2c"}) {
      t.offerings.push_back({zone, "on-demand", price, true});
      t.offerings.push_back({zone, "spot", price * 0.35, true});
    }
    types.push_back(std::move(t));
  }
  return types;
}

snapshot::Snapshot ProvisionSnapshot() {
  testing::SyntheticClusterOptions o;
  o.nodes = kNodes;
  o.app_pods_per_node = 37;  // With the DaemonSet pod: 3.8 of 3.92 cpu.
  o.node_pools = 3;
  o.pending_pods = kPendingPods;
  bench::AddConstraintMix(o);
  absl::StatusOr<snapshot::ObjectSet> objects =
      testing::MakeSyntheticCluster(o);
  if (!objects.ok() || objects->node_pools.size() != 3) std::abort();
  const int weights[] = {100, 50, 10};
  for (size_t i = 0; i < 3; ++i) {
    v1::NodePoolSpec& spec = *objects->node_pools[i].mutable_spec();
    spec.set_weight(weights[i]);
  }
  (*objects->node_pools[0].mutable_spec()->mutable_limits())["cpu"] = "1000";
  v1::NodeSelectorRequirement& req = *objects->node_pools[1]
                                          .mutable_spec()
                                          ->mutable_template_()
                                          ->mutable_spec()
                                          ->mutable_requirements(0);
  req.add_values(std::string(well_known::kCapacityTypeSpot));
  return bench::BuildOrDie(*std::move(objects));
}

const snapshot::Snapshot& Cluster() {
  static const snapshot::Snapshot* s =
      new snapshot::Snapshot(ProvisionSnapshot());
  return *s;
}

InstanceTypeCatalog Catalog(const snapshot::Snapshot& s) {
  const std::vector<InstanceType> types = CatalogTypes();
  InstanceTypeCatalog catalog;
  for (const v1::NodePool& pool : s.node_pools()) {
    catalog[pool.metadata().name()] = types;
  }
  return catalog;
}

disruption::SimulatorOptions Options() {
  disruption::SimulatorOptions options;
  options.include_pending_pods = true;
  return options;
}

void BM_Provision(benchmark::State& state) {
  const snapshot::Snapshot& s = Cluster();
  const InstanceTypeCatalog catalog = Catalog(s);
  absl::StatusOr<disruption::Scheduler> scheduler =
      disruption::Scheduler::Build(s, catalog, Options());
  if (!scheduler.ok()) std::abort();
  const std::vector<PodIndex> pods(s.UnboundPods().begin(),
                                   s.UnboundPods().end());
  disruption::Scheduler::Provisioned out;
  for (auto _ : state) {
    out = scheduler->Provision(pods);
    benchmark::DoNotOptimize(out);
  }
  size_t on_claims = 0;
  for (const auto& p : out.claim_pods) on_claims += p.size();
  state.counters["pending"] = static_cast<double>(pods.size());
  state.counters["on_existing"] = static_cast<double>(out.existing.size());
  state.counters["claims"] = static_cast<double>(out.node_claims.size());
  state.counters["on_claims"] = static_cast<double>(on_claims);
  state.counters["unschedulable"] =
      static_cast<double>(out.unschedulable.size());
  std::map<std::string, int> per_pool;  // Claims by NodePool.
  for (const disruption::Replacement& r : out.node_claims) {
    ++per_pool[r.node_pool];
  }
  for (const auto& [pool, count] : per_pool) {
    state.counters[absl::StrCat("claims_", pool)] = count;
  }
}
BENCHMARK(BM_Provision)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ProvisionBuild(benchmark::State& state) {
  const snapshot::Snapshot& s = Cluster();
  const InstanceTypeCatalog catalog = Catalog(s);
  for (auto _ : state) {
    absl::StatusOr<disruption::Scheduler> scheduler =
        disruption::Scheduler::Build(s, catalog, Options());
    if (!scheduler.ok()) std::abort();
    benchmark::DoNotOptimize(scheduler);
  }
}
BENCHMARK(BM_ProvisionBuild)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ProvisionTotal(benchmark::State& state) {
  const snapshot::Snapshot& s = Cluster();
  const InstanceTypeCatalog catalog = Catalog(s);
  for (auto _ : state) {
    absl::StatusOr<v1::ProvisionReport> report =
        scheduling::Provision(s, catalog);
    if (!report.ok()) std::abort();
    benchmark::DoNotOptimize(report);
  }
}
BENCHMARK(BM_ProvisionTotal)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace karpenter

BENCHMARK_MAIN();
