// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// A cluster for disruption::Controller tests over real snapshots and the
// real Scheduler (World), and how a Plan reads in a test (CodeOf,
// CommandSummary). Shared by controller_test.cc and
// topology_disruption_test.cc.
#ifndef KARPENTER_TESTS_DISRUPTION_CONTROLLER_TEST_UTIL_H_
#define KARPENTER_TESTS_DISRUPTION_CONTROLLER_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "candidates_test_util.h"
#include "karpenter/disruption/controller.h"

// The builders take designated initializers that omit fields; GCC 12 warns
// about every omitted member even though each has a default.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace karpenter::disruption::controller_test {

using test::ClaimOpts;
using test::kT0;
using NodeOpts = testing::NodeOptions;
using PodOpts = testing::PodOptions;
using PoolOpts = testing::NodePoolOptions;

// A cluster of m5.large nodes (2 cpu, 8Gi, 29 pods), every NodeClaim
// Launched, with a catalogue offering m5.large to every NodePool.
class World {
 public:
  World& Pool(const PoolOpts& o = {}) {
    cluster_.Pool(o);
    pools_.push_back(o.name);
    return *this;
  }
  // Adds a budget to the last NodePool.
  World& Budget(const std::string& nodes,
                const std::vector<std::string>& reasons = {}) {
    v1::Budget* b = cluster_.objects.node_pools.back()
                        .mutable_spec()
                        ->mutable_disruption()
                        ->add_budgets();
    b->set_nodes(nodes);
    for (const std::string& r : reasons) b->add_reasons(r);
    return *this;
  }
  // Lets `edit` change the last NodePool (e.g. its status conditions).
  World& EditPool(const std::function<void(v1::NodePool&)>& edit) {
    edit(cluster_.objects.node_pools.back());
    return *this;
  }
  World& Node(const NodeOpts& n, const ClaimOpts& c = {}) {
    cluster_.Node(n, c);
    return *this;
  }
  // A node with one ReplicaSet pod (so it is not empty).
  World& BusyNode(const NodeOpts& n, const ClaimOpts& c = {}) {
    cluster_.Node(n, c);
    cluster_.Pod(PodOpts{.name = n.name + "-pod",
                         .node = n.name,
                         .owner = "apps/v1/ReplicaSet"});
    return *this;
  }
  World& BareNode(const NodeOpts& n) {
    cluster_.BareNode(n);
    return *this;
  }
  World& Pod(const PodOpts& p) {
    cluster_.Pod(p);
    return *this;
  }
  // Adds a pod, then lets `edit` change it (constraints, affinity).
  World& Pod(const PodOpts& p, const std::function<void(v1::Pod&)>& edit) {
    cluster_.Pod(p);
    edit(cluster_.objects.pods.back());
    return *this;
  }
  // The zones the catalogue offers m5.large in; default us-west-2a.
  World& Zones(std::vector<std::string> zones) {
    zones_ = std::move(zones);
    return *this;
  }
  // The cloud provider reports the NodeClaim of `node` drifted (or, with
  // nullopt, answered "not drifted").
  World& ProviderDrift(const std::string& node,
                       std::optional<std::string> reason = "AMIDrift") {
    inputs.drift.provider[node + "-claim"].reason = std::move(reason);
    return *this;
  }

  // Builds the snapshot (kept in `snapshot`) and the catalogue.
  const snapshot::Snapshot& Build() {
    for (v1::Node& n : cluster_.objects.nodes) {
      auto& alloc = *n.mutable_status()->mutable_allocatable();
      alloc["cpu"] = "2";
      alloc["memory"] = "8Gi";
      alloc["pods"] = "29";
    }
    std::map<std::string, const v1::Node*> nodes;
    for (const v1::Node& n : cluster_.objects.nodes) {
      nodes[n.metadata().name()] = &n;
    }
    for (v1::NodeClaim& c : cluster_.objects.node_claims) {
      // The NodeClaim carries its Node's labels, so the InstanceTypeNotFound
      // check finds its m5.large offering.
      auto node = nodes.find(c.status().node_name());
      if (node != nodes.end()) {
        for (const auto& [k, v] : node->second->metadata().labels()) {
          (*c.mutable_metadata()->mutable_labels())[k] = v;
        }
      }
      *c.mutable_status()->add_conditions() = testing::MakeCondition(
          {.type = "Launched", .since = kT0 - absl::Hours(1)});
    }
    for (const std::string& pool : pools_) {
      // 2 cpu, 8Gi, 29 pods; on demand in zones_ at 0.096.
      inputs.catalog[pool].push_back(
          testing::MakeInstanceType({.zones = zones_}));
    }
    snapshot.emplace(cluster_.Build());
    return *snapshot;
  }

  Plan Decide(const ControllerOptions& options = {}, absl::Time now = kT0) {
    if (!snapshot.has_value()) Build();
    absl::StatusOr<Plan> plan =
        Controller(options).Decide(*snapshot, inputs, now);
    REQUIRE(plan.ok());
    return *std::move(plan);
  }

  PassInputs inputs;
  std::optional<snapshot::Snapshot> snapshot;

 private:
  test::Cluster cluster_;
  std::vector<std::string> pools_;
  std::vector<std::string> zones_ = {"us-west-2a"};
};

inline std::string CodeOf(const Plan& plan, const std::string& node) {
  const NodeVerdict* v = plan.VerdictOf(node);
  return v == nullptr ? "<none>" : v->code;
}

// "Method:node,node" per command, in order.
inline std::vector<std::string> CommandSummary(const Plan& plan) {
  std::vector<std::string> out;
  for (const Command& c : plan.commands) {
    std::string s(MethodName(c.method));
    const char* sep = ":";
    for (const Candidate& cand : c.candidates) {
      absl::StrAppend(&s, sep, cand.node_name);
      sep = ",";
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace karpenter::disruption::controller_test

#pragma GCC diagnostic pop

#endif  // KARPENTER_TESTS_DISRUPTION_CONTROLLER_TEST_UTIL_H_
