// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Benchmark inputs shared by bench/*_benchmark.cc: synthetic clusters at a
// given node count (karpenter/testing/synthetic_cluster.h) and their
// snapshots. Setup failures abort: a benchmark with broken input has nothing
// to measure.

#ifndef KARPENTER_BENCH_BENCH_CLUSTER_H_
#define KARPENTER_BENCH_BENCH_CLUSTER_H_

#include <cstdlib>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "karpenter/cloud_provider.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/testing/synthetic_cluster.h"

namespace karpenter::bench {

// The constraint mix of issue 20: half the Deployments carry a zone
// topology spread, a fifth a hostname pod anti-affinity and a tenth a
// hostPort (testing::SyntheticClusterOptions).
inline void AddConstraintMix(testing::SyntheticClusterOptions& options) {
  options.zone_spread_percent = 50;
  options.hostname_anti_affinity_percent = 20;
  options.host_port_percent = 10;
}

// The synthetic cluster of `nodes` nodes with the default ratios.
inline snapshot::ObjectSet SyntheticObjects(int nodes) {
  testing::SyntheticClusterOptions options;
  options.nodes = nodes;
  absl::StatusOr<snapshot::ObjectSet> objects =
      testing::MakeSyntheticCluster(options);
  if (!objects.ok()) std::abort();
  return *std::move(objects);
}

inline snapshot::Snapshot BuildOrDie(snapshot::ObjectSet objects) {
  absl::StatusOr<snapshot::Snapshot> snap =
      snapshot::Snapshot::Build(std::move(objects));
  if (!snap.ok()) std::abort();
  return *std::move(snap);
}

// The synthetic cluster as a disruption pass sees it: NodeClaims carry their
// Node's labels (requirements and instance-type drift read them; the
// generator only labels the NodePool), and every `drifted_every`-th
// NodeClaim has Drifted=True (reason AMIDrift) since `drifted_since`. With
// `constrained`, the Deployments carry the constraint mix above
// (AddConstraintMix); the objects are otherwise the same. `app_pods_per_node`
// as in SyntheticClusterOptions (38 fills a node: 3.9 of 3.92 cpu).
//
// The pods stream into a SnapshotBuilder, so this never holds them all as
// messages: the peak-memory counters measure the snapshot, not the generator.
inline snapshot::Snapshot DriftingSnapshot(int nodes, int drifted_every,
                                           absl::Time drifted_since,
                                           bool constrained = false,
                                           int app_pods_per_node = 29) {
  testing::SyntheticClusterOptions options;
  options.nodes = nodes;
  options.app_pods_per_node = app_pods_per_node;
  if (constrained) AddConstraintMix(options);
  snapshot::SnapshotBuilder builder;
  if (!testing::AddSyntheticCluster(options, builder).ok()) std::abort();
  snapshot::ObjectSet& objects = builder.objects();
  for (size_t i = 0; i < objects.node_claims.size(); ++i) {
    *objects.node_claims[i].mutable_metadata()->mutable_labels() =
        objects.nodes[i].metadata().labels();
  }
  for (size_t i = 0; i < objects.node_claims.size();
       i += static_cast<size_t>(drifted_every)) {
    v1::Condition* c =
        objects.node_claims[i].mutable_status()->add_conditions();
    c->set_type("Drifted");
    c->set_status("True");
    c->set_reason("AMIDrift");
    c->mutable_last_transition_time()->set_seconds(
        absl::ToUnixSeconds(drifted_since));
  }
  absl::StatusOr<snapshot::Snapshot> snap = std::move(builder).Build();
  if (!snap.ok()) std::abort();
  return *std::move(snap);
}

// The synthetic cluster's four instance types, in its three zones, for
// every NodePool of `s`.
inline InstanceTypeCatalog SyntheticCatalog(const snapshot::Snapshot& s) {
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

}  // namespace karpenter::bench

#endif  // KARPENTER_BENCH_BENCH_CLUSTER_H_
