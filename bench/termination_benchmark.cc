// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// One termination pass over a whole snapshot at 1k/5k/10k nodes (10k nodes =
// 300k pods): termination::DecideNode for every Node and DecideNodeClaim for
// every NodeClaim, as termination::Executor::RunOnce decides before acting.
// 10% of the nodes (and their NodeClaims) are being deleted, so those
// decisions plan a drain pass over their 30 pods; the rest only check the
// finalizer. The snapshot is built outside the timed loop.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>

#include "bench_cluster.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/termination/decide.h"
#include "karpenter/testing/synthetic_cluster.h"

namespace karpenter {
namespace {

constexpr int kDeletingEvery = 10;

snapshot::Snapshot MakeSnapshot(int nodes, absl::Time deleted) {
  snapshot::ObjectSet objects = bench::SyntheticObjects(nodes);
  google::protobuf::Timestamp ts;
  ts.set_seconds(absl::ToUnixSeconds(deleted));
  for (size_t i = 0; i < objects.nodes.size(); i += kDeletingEvery) {
    *objects.nodes[i].mutable_metadata()->mutable_deletion_timestamp() = ts;
  }
  for (size_t i = 0; i < objects.node_claims.size(); i += kDeletingEvery) {
    *objects.node_claims[i].mutable_metadata()->mutable_deletion_timestamp() =
        ts;
  }
  return bench::BuildOrDie(std::move(objects));
}

void BM_TerminationDecidePass(benchmark::State& state) {
  const absl::Time deleted = absl::FromUnixSeconds(1704067200 + 3600);
  const absl::Time now = deleted + absl::Seconds(30);
  const snapshot::Snapshot s =
      MakeSnapshot(static_cast<int>(state.range(0)), deleted);
  int64_t actions = 0;
  int64_t draining = 0;
  for (auto _ : state) {
    actions = 0;
    draining = 0;
    for (const v1::Node& node : s.nodes()) {
      absl::StatusOr<termination::Decision> d =
          termination::DecideNode(s, node.metadata().name(), now, {},
                                  termination::InstanceObservation::kExists);
      if (!d.ok()) std::abort();
      actions += static_cast<int64_t>(d->actions.size());
      draining += d->step == termination::Step::kDraining;
    }
    for (const v1::NodeClaim& claim : s.node_claims()) {
      absl::StatusOr<termination::Decision> d =
          termination::DecideNodeClaim(s, claim.metadata().name(), now);
      if (!d.ok()) std::abort();
      actions += static_cast<int64_t>(d->actions.size());
    }
    benchmark::DoNotOptimize(actions);
  }
  state.SetItemsProcessed(
      state.iterations() *
      static_cast<int64_t>(s.nodes().size() + s.node_claims().size()));
  state.counters["pods"] = static_cast<double>(s.pod_count());
  state.counters["draining"] = static_cast<double>(draining);
  state.counters["actions"] = static_cast<double>(actions);
}
BENCHMARK(BM_TerminationDecidePass)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace karpenter

BENCHMARK_MAIN();
