// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// A unit test a platform team keeps next to its NodePool manifests: "what
// would Karpenter do to the cluster if we merged this change?".
//
// It loads a cluster dump (here the bundled demo cluster), applies the
// change to the NodePool, and runs one disruption pass at a chosen instant.
// The pass is a pure function of the snapshot and the time, so the
// assertions are exact and the test is deterministic.

#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
#include <string>

#include "absl/time/time.h"
#include "karpenter/disruption/controller.h"
#include "karpenter/disruption/plan_proto.h"
#include "karpenter/drift/static_drift.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/well_known.h"

namespace {

using karpenter::disruption::Method;

// 2025-03-05 12:00 UTC, a Wednesday.
const absl::Time kNoon = absl::FromUnixSeconds(1741176000);

karpenter::snapshot::ObjectSet DemoCluster() {
  karpenter::snapshot::ObjectSet objects;
  REQUIRE(karpenter::snapshot::LoadFile(
              KARPENTER_EXAMPLES_DIR "/clusters/demo.yaml", objects)
              .ok());
  return objects;
}

// Adds label `key: value` to the template of NodePool `name`, as a pull
// request to the manifest would, and rewrites the NodePool's hash
// annotation as Karpenter's NodePool hash controller does on every change.
void AddTemplateLabel(karpenter::snapshot::ObjectSet& objects,
                      const std::string& name, const std::string& key,
                      const std::string& value) {
  for (auto& pool : objects.node_pools) {
    if (pool.metadata().name() != name) continue;
    (*pool.mutable_spec()
          ->mutable_template_()
          ->mutable_metadata()
          ->mutable_labels())[key] = value;
    auto hash = karpenter::drift::NodePoolTemplateHash(pool);
    REQUIRE(hash.ok());
    (*pool.mutable_metadata()->mutable_annotations())[std::string(
        karpenter::well_known::kNodePoolHashAnnotationKey)] = *hash;
    return;
  }
  FAIL("no NodePool " << name);
}

karpenter::disruption::Plan Pass(karpenter::snapshot::ObjectSet objects,
                                 absl::Time at) {
  auto snapshot = karpenter::snapshot::Snapshot::Build(std::move(objects));
  REQUIRE(snapshot.ok());
  karpenter::disruption::PassInputs inputs;
  inputs.catalog = karpenter::disruption::ObservedInstanceTypes(*snapshot);
  auto plan = karpenter::disruption::Controller().Decide(*snapshot, inputs, at);
  REQUIRE(plan.ok());
  return *std::move(plan);
}

int NodesDisruptedBy(const karpenter::disruption::Plan& plan, Method method) {
  int n = 0;
  for (const auto& command : plan.commands) {
    if (command.method == method) n += command.candidates.size();
  }
  return n;
}

// Removes node `name`, its NodeClaim and its pods, as once a command
// finished.
void RemoveNode(karpenter::snapshot::ObjectSet& objects,
                const std::string& name) {
  std::erase_if(objects.nodes,
                [&](const auto& n) { return n.metadata().name() == name; });
  std::erase_if(objects.node_claims,
                [&](const auto& c) { return c.status().node_name() == name; });
  std::erase_if(objects.pods,
                [&](const auto& p) { return p.spec().node_name() == name; });
}

TEST_CASE("a new template label drifts the default pool, one node at a time") {
  karpenter::snapshot::ObjectSet objects = DemoCluster();
  AddTemplateLabel(objects, "default", "team", "payments");

  karpenter::disruption::Plan plan = Pass(objects, kNoon);
  // Every default NodeClaim is now drifted (its NodePool hash changed) ...
  int drifted = 0;
  for (const auto& update : plan.drift_updates) {
    drifted += update.reason == "NodePoolDrifted";
  }
  CHECK(drifted == 4);
  // ... but Emptiness comes first in Karpenter's order, and the first
  // method that acts ends the pass.
  REQUIRE(plan.acted == Method::kEmptiness);
  REQUIRE(plan.commands.size() == 1);
  const std::string empty_node = plan.commands[0].candidates[0].node_name;

  // Once the empty node is gone, the 10% budget of 3 nodes lets one drifted
  // node go per pass.
  RemoveNode(objects, empty_node);
  plan = Pass(objects, kNoon + absl::Minutes(1));
  // Its pods fit on the other nodes, so it is deleted without a
  // replacement.
  CHECK(plan.acted == Method::kDrift);
  REQUIRE(plan.commands.size() == 1);
  CHECK(NodesDisruptedBy(plan, Method::kDrift) == 1);
  CHECK(plan.commands[0].replacements.empty());
}

TEST_CASE("the daily drift freeze holds the same change after midnight") {
  karpenter::snapshot::ObjectSet objects = DemoCluster();
  AddTemplateLabel(objects, "default", "team", "payments");
  RemoveNode(objects, "ip-10-0-1-89.us-west-2.compute.internal");
  // The default pool allows no Drifted disruption from 00:00 for 10m.
  const absl::Time midnight = kNoon + absl::Hours(12);
  karpenter::disruption::Plan plan = Pass(objects, midnight + absl::Minutes(5));
  CHECK(NodesDisruptedBy(plan, Method::kDrift) == 0);
  const auto* verdict =
      plan.VerdictOf("ip-10-0-3-67.us-west-2.compute.internal");
  REQUIRE(verdict != nullptr);
  CHECK(verdict->code == "BudgetExhausted");
  // At 00:10 the window has closed.
  plan = Pass(objects, midnight + absl::Minutes(10));
  CHECK(NodesDisruptedBy(plan, Method::kDrift) == 1);
}

}  // namespace
