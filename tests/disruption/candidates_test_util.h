// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Helpers for the candidate, cost and method tests, on the test kit
// (karpenter/testing/builders.h): managed Node + NodeClaim pairs whose
// NodeClaims speak the disruption states (ClaimOpts), PDBs with status, a
// cluster under construction, a catalogue and a fake scheduling simulator.

#ifndef KARPENTER_TESTS_DISRUPTION_CANDIDATES_TEST_UTIL_H_
#define KARPENTER_TESTS_DISRUPTION_CANDIDATES_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../testing/kit_test_util.h"
#include "absl/time/time.h"
#include "karpenter/disruption/candidates.h"
#include "karpenter/disruption/types.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/testing/builders.h"
#include "karpenter/v1/core.pb.h"
#include "karpenter/v1/karpenter.pb.h"

namespace karpenter::disruption::test {

inline constexpr absl::Time kT0 = testing::kTestEpoch;

// The NodeClaim side of a managed node, in the terms of the candidate
// tests: its age, expiry, and the disruption states Karpenter marks with
// conditions.
struct ClaimOpts {
  std::optional<std::string> name = {};  // Default: "<node>-claim".
  absl::Time created = kT0 - absl::Hours(1);
  std::optional<std::string> expire_after = {};
  std::optional<std::string> tgp = {};
  // Initialized=True at `initialized_at` unless nullopt.
  std::optional<absl::Time> initialized_at = kT0 - absl::Hours(1);
  std::optional<absl::Time> last_pod_event = {};
  std::optional<absl::Time> drifted_since = {};
  std::string drift_reason = "NodePoolDrifted";
  std::optional<absl::Time> deleted = {};
  bool instance_terminating = false;
  bool disruption_reason = false;
  std::string pool = {};  // Claim label; "" = the node's pool.
};

// The NodeClaim of node `node_name` (of NodePool `pool`): labelled with its
// pool only, Initialized at `initialized_at`, the other conditions as `o`
// asks.
inline v1::NodeClaim MakeClaim(const std::string& node_name,
                               const std::string& pool, const ClaimOpts& o) {
  std::vector<testing::ConditionOptions> conditions;
  if (o.drifted_since.has_value()) {
    conditions.push_back({.type = "Drifted",
                          .reason = o.drift_reason,
                          .since = o.drifted_since});
  }
  if (o.instance_terminating) {
    conditions.push_back({.type = "InstanceTerminating", .since = kT0});
  }
  if (o.disruption_reason) {
    conditions.push_back(
        {.type = "DisruptionReason", .reason = "Drifted", .since = kT0});
  }
  return testing::MakeNodeClaim({
      .name = o.name.value_or(node_name + "-claim"),
      .node_name = node_name,
      .nodepool = o.pool.empty() ? pool : o.pool,
      .created = o.created,
      .deleted = o.deleted,
      .expire_after = o.expire_after,
      .termination_grace_period = o.tgp,
      .initialized = o.initialized_at.has_value() ? "True" : "",
      .initialized_since = o.initialized_at,
      .conditions = std::move(conditions),
      .last_pod_event = o.last_pod_event,
  });
}

// A PDB with status (observedGeneration 1) selecting `app=<app>`.
inline v1::PodDisruptionBudget MakePdb(const std::string& name,
                                       const std::string& app, int32_t allowed,
                                       bool always_allow = false,
                                       const std::string& ns = "default") {
  return testing::MakePdb(
      {.name = name,
       .ns = ns,
       .selector = testing::Labels{{"app", app}},
       .min_available = "1",
       .unhealthy_pod_eviction_policy = always_allow ? "AlwaysAllow" : "",
       .disruptions_allowed = allowed,
       .expected_pods = 2});
}

// A cluster under construction. Its NodePools carry the template label
// team=a unless they name template labels of their own; its Nodes are
// m5.large, on-demand, in us-west-2a unless they name others.
struct Cluster {
  snapshot::ObjectSet objects;

  static v1::Node MakeNode(testing::NodeOptions n) {
    if (n.instance_type.empty()) n.instance_type = "m5.large";
    if (n.zone.empty()) n.zone = "us-west-2a";
    if (n.capacity_type.empty()) n.capacity_type = "on-demand";
    return testing::MakeNode(n);
  }

  Cluster& Pool(testing::NodePoolOptions o = {}) {
    if (o.template_labels.empty()) o.template_labels = {{"team", "a"}};
    objects.node_pools.push_back(testing::MakeNodePool(o));
    return *this;
  }
  Cluster& Node(const testing::NodeOptions& n = {}, const ClaimOpts& c = {}) {
    objects.nodes.push_back(MakeNode(n));
    objects.node_claims.push_back(MakeClaim(n.name, n.nodepool, c));
    return *this;
  }
  Cluster& BareNode(const testing::NodeOptions& n) {
    objects.nodes.push_back(MakeNode(n));
    return *this;
  }
  Cluster& Claim(const std::string& name, const std::string& pool,
                 const ClaimOpts& c = {}) {
    ClaimOpts o = c;
    o.name = name;
    v1::NodeClaim claim = MakeClaim("", pool, o);
    claim.mutable_status()->set_provider_id("aws:///" + name);
    objects.node_claims.push_back(std::move(claim));
    return *this;
  }
  Cluster& Pod(const testing::PodOptions& p) {
    objects.pods.push_back(testing::MakePod(p));
    return *this;
  }
  Cluster& Pdb(v1::PodDisruptionBudget pdb) {
    objects.pdbs.push_back(std::move(pdb));
    return *this;
  }
  snapshot::Snapshot Build() {
    return kit_test::MustBuildSnapshot(std::move(objects));
  }
};

// A catalogue with one instance type per (name, price) for `pool`, offered
// on demand in us-west-2a, and as spot at a third of the price.
inline InstanceTypeCatalog Catalog(
    const std::string& pool,
    const std::vector<std::pair<std::string, double>>& types) {
  std::vector<InstanceType> out;
  for (const auto& [name, price] : types) {
    out.push_back(testing::MakeInstanceType({.name = name,
                                             .cpu = "",
                                             .memory = "",
                                             .pods = "",
                                             .on_demand_price = price,
                                             .spot_price = price / 3}));
  }
  return testing::MakeCatalog({pool}, out);
}

inline CandidatePool MustBuild(const CandidateContext& ctx) {
  absl::StatusOr<CandidatePool> pool = CandidatePool::Build(ctx);
  REQUIRE(pool.ok());
  return std::move(*pool);
}

inline CandidateContext Ctx(const snapshot::Snapshot& s, absl::Time now = kT0) {
  CandidateContext ctx;
  ctx.snapshot = &s;
  ctx.now = now;
  return ctx;
}

// Node names of `candidates`, in order.
inline std::vector<std::string> Names(const std::vector<Candidate>& cs) {
  std::vector<std::string> out;
  for (const Candidate& c : cs) out.push_back(c.node_name);
  return out;
}

// A simulator answering per first candidate's node name; by default every
// pod fits and nothing new is needed. Records the node names it was asked.
class FakeSimulator : public SchedulingSimulator {
 public:
  std::map<std::string, SimulationResult> answers;
  mutable std::vector<std::vector<std::string>> calls;

  SimulationResult Simulate(
      absl::Span<const Candidate> candidates) const override {
    std::vector<std::string> names;
    for (const Candidate& c : candidates) names.push_back(c.node_name);
    calls.push_back(names);
    if (!candidates.empty()) {
      auto it = answers.find(candidates.front().node_name);
      if (it != answers.end()) return it->second;
    }
    SimulationResult ok;
    ok.all_pods_scheduled = true;
    return ok;
  }
};

}  // namespace karpenter::disruption::test

#endif  // KARPENTER_TESTS_DISRUPTION_CANDIDATES_TEST_UTIL_H_
