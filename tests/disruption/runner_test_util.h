// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The cluster of the Runner tests (runner_test.cc, drift_e2e_test.cc), on
// the test kit (karpenter/testing/builders.h): a NodePool "default" of
// on-demand EC2 nodes, m5.large Nodes as FakeNodeLifecycle registers them,
// their NodeClaims and instances, and ReplicaSet pods of 800m / 3Gi, so
// that two pods fill a node.

#ifndef KARPENTER_TESTS_DISRUPTION_RUNNER_TEST_UTIL_H_
#define KARPENTER_TESTS_DISRUPTION_RUNNER_TEST_UTIL_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "karpenter/cloud_provider.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/testing/builders.h"

namespace karpenter::disruption::runner_test {

inline constexpr absl::Time kStart = testing::kTestEpoch;

inline std::string ProviderId(const std::string& node) {
  return "fake:///test-zone-a/i-" + node;
}

// NodePool "default": EC2NodeClass "default", on-demand only, never
// expiring, WhenEmptyOrUnderutilized after `consolidate_after`, with
// `budgets`.
inline v1::NodePool RunnerPool(
    const std::string& consolidate_after,
    std::vector<testing::DisruptionBudgetOptions> budgets) {
  return testing::MakeNodePool(
      {.consolidation_policy = "WhenEmptyOrUnderutilized",
       .consolidate_after = consolidate_after,
       .budgets = std::move(budgets),
       .node_class = "default",
       .requirements = {testing::MakeRequirement("karpenter.sh/capacity-type",
                                                 "In", {"on-demand"})},
       .expire_after = "Never"});
}

// Node `name` of NodePool "default" (m5.large, on-demand, test-zone-a, 2
// cpu, 8Gi, 29 pods), Ready, initialised and registered since a day before
// kStart, with the termination finalizer; and its NodeClaim of the same
// name, with the Node's labels, `pool`'s template spec, image-1, Launched,
// Registered and Initialized since a day before kStart.
inline testing::ManagedNode RunnerNode(const std::string& name,
                                       const v1::NodePool& pool) {
  const absl::Time day_before = kStart - absl::Hours(24);
  testing::ManagedNode m = testing::MakeManagedNode(
      {.name = name,
       .provider_id = ProviderId(name),
       .instance_type = "m5.large",
       .zone = "test-zone-a",
       .capacity_type = "on-demand",
       .labels = {{"karpenter.sh/registered", "true"},
                  {"kubernetes.io/hostname", name}},
       .finalizers = {"karpenter.sh/termination"},
       .created = day_before,
       .ready_since = day_before,
       .cpu = "2",
       .memory = "8Gi",
       .pods = "29"},
      {.name = name,
       .finalizers = {"karpenter.sh/termination"},
       .created = day_before,
       .image_id = "image-1",
       .conditions = testing::LifecycleConditions(day_before)});
  *m.node_claim.mutable_metadata()->mutable_labels() =
      m.node.metadata().labels();
  *m.node_claim.mutable_spec() = pool.spec().template_().spec();
  return m;
}

// Pod `name` of ReplicaSet `app` (uid rs-<app>) on `node`, requesting 800m
// and 3Gi, grace 30 s, Running and Ready, started two hours before kStart.
inline v1::Pod RunnerPod(const std::string& name, const std::string& app,
                         const std::string& node) {
  return testing::MakePod({.name = name,
                           .app = app,
                           .node = node,
                           .owner = "ReplicaSet",
                           .owner_uid = "rs-" + app,
                           .grace = 30,
                           .started = kStart - absl::Hours(2),
                           .cpu = "800m",
                           .memory = "3Gi"});
}

// The running instance of RunnerNode(name), launched with it.
inline Instance RunnerInstance(const std::string& name) {
  Instance inst;
  inst.provider_id = ProviderId(name);
  inst.created = kStart - absl::Hours(24);
  inst.instance_type = "m5.large";
  inst.zone = "test-zone-a";
  inst.capacity_type = "on-demand";
  inst.image_id = "image-1";
  inst.tags["karpenter.sh/nodeclaim"] = name;
  return inst;
}

}  // namespace karpenter::disruption::runner_test

#endif  // KARPENTER_TESTS_DISRUPTION_RUNNER_TEST_UTIL_H_
