// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Builders for the candidate, cost and method tests: NodePools, managed
// Node + NodeClaim pairs, pods, PDBs, a catalogue and a fake scheduling
// simulator.

#ifndef KARPENTER_TESTS_DISRUPTION_CANDIDATES_TEST_UTIL_H_
#define KARPENTER_TESTS_DISRUPTION_CANDIDATES_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "karpenter/disruption/candidates.h"
#include "karpenter/disruption/types.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/core.pb.h"
#include "karpenter/v1/karpenter.pb.h"

namespace karpenter::disruption::test {

// 2024-01-01T00:00:00Z.
inline const absl::Time kT0 = absl::FromUnixSeconds(1704067200);

inline void SetTime(absl::Time t, google::protobuf::Timestamp* ts) {
  absl::Duration rem;
  const int64_t s =
      absl::IDivDuration(t - absl::UnixEpoch(), absl::Seconds(1), &rem);
  ts->set_seconds(s);
  ts->set_nanos(static_cast<int32_t>(absl::ToInt64Nanoseconds(rem)));
}

inline void AddCondition(google::protobuf::RepeatedPtrField<v1::Condition>* cs,
                         const std::string& type, const std::string& status,
                         absl::Time at, const std::string& reason = "") {
  v1::Condition* c = cs->Add();
  c->set_type(type);
  c->set_status(status);
  c->set_reason(reason);
  SetTime(at, c->mutable_last_transition_time());
}

struct PoolOpts {
  std::string name = "default";
  std::string policy = {};                            // "" = default.
  std::optional<std::string> consolidate_after = {};  // Absent = 0s.
  std::optional<int64_t> replicas = {};
  std::optional<std::string> node_limit = {};  // spec.limits.nodes
};

inline v1::NodePool MakePool(const PoolOpts& o) {
  v1::NodePool np;
  np.mutable_metadata()->set_name(o.name);
  np.mutable_spec()->mutable_disruption()->set_consolidation_policy(o.policy);
  if (o.consolidate_after.has_value()) {
    np.mutable_spec()->mutable_disruption()->set_consolidate_after(
        *o.consolidate_after);
  }
  if (o.replicas.has_value()) np.mutable_spec()->set_replicas(*o.replicas);
  if (o.node_limit.has_value()) {
    (*np.mutable_spec()->mutable_limits())["nodes"] = *o.node_limit;
  }
  (*np.mutable_spec()
        ->mutable_template_()
        ->mutable_metadata()
        ->mutable_labels())["team"] = "a";
  return np;
}

struct NodeOpts {
  std::string name = "node-a";
  std::string pool = "default";  // "" = no karpenter.sh/nodepool label.
  bool initialized = true;
  std::string instance_type = "m5.large";
  std::string zone = "us-west-2a";
  std::string capacity_type = "on-demand";
  std::map<std::string, std::string> annotations = {};
  bool disrupted_taint = false;
  std::optional<absl::Time> deleted = {};
};

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

inline v1::Node MakeNode(const NodeOpts& o) {
  v1::Node node;
  v1::ObjectMeta& m = *node.mutable_metadata();
  m.set_name(o.name);
  auto& labels = *m.mutable_labels();
  if (!o.pool.empty()) labels["karpenter.sh/nodepool"] = o.pool;
  if (o.initialized) labels["karpenter.sh/initialized"] = "true";
  if (!o.instance_type.empty()) {
    labels["node.kubernetes.io/instance-type"] = o.instance_type;
  }
  if (!o.zone.empty()) labels["topology.kubernetes.io/zone"] = o.zone;
  if (!o.capacity_type.empty()) {
    labels["karpenter.sh/capacity-type"] = o.capacity_type;
  }
  for (const auto& [k, v] : o.annotations) (*m.mutable_annotations())[k] = v;
  if (o.deleted.has_value())
    SetTime(*o.deleted, m.mutable_deletion_timestamp());
  node.mutable_spec()->set_provider_id("aws:///" + o.name);
  if (o.disrupted_taint) {
    v1::Taint* t = node.mutable_spec()->add_taints();
    t->set_key("karpenter.sh/disrupted");
    t->set_effect("NoSchedule");
  }
  AddCondition(node.mutable_status()->mutable_conditions(), "Ready", "True",
               kT0 - absl::Hours(1));
  return node;
}

inline v1::NodeClaim MakeClaim(const std::string& node_name,
                               const std::string& pool, const ClaimOpts& o) {
  v1::NodeClaim claim;
  v1::ObjectMeta& m = *claim.mutable_metadata();
  m.set_name(o.name.value_or(node_name + "-claim"));
  const std::string label = o.pool.empty() ? pool : o.pool;
  if (!label.empty()) (*m.mutable_labels())["karpenter.sh/nodepool"] = label;
  SetTime(o.created, m.mutable_creation_timestamp());
  if (o.deleted.has_value())
    SetTime(*o.deleted, m.mutable_deletion_timestamp());
  if (o.expire_after.has_value()) {
    claim.mutable_spec()->set_expire_after(*o.expire_after);
  }
  if (o.tgp.has_value()) {
    claim.mutable_spec()->set_termination_grace_period(*o.tgp);
  }
  claim.mutable_status()->set_node_name(node_name);
  claim.mutable_status()->set_provider_id("aws:///" + node_name);
  auto* cs = claim.mutable_status()->mutable_conditions();
  if (o.initialized_at.has_value()) {
    AddCondition(cs, "Initialized", "True", *o.initialized_at);
  }
  if (o.drifted_since.has_value()) {
    AddCondition(cs, "Drifted", "True", *o.drifted_since, o.drift_reason);
  }
  if (o.instance_terminating) {
    AddCondition(cs, "InstanceTerminating", "True", kT0);
  }
  if (o.disruption_reason) {
    AddCondition(cs, "DisruptionReason", "True", kT0, "Drifted");
  }
  if (o.last_pod_event.has_value()) {
    SetTime(*o.last_pod_event,
            claim.mutable_status()->mutable_last_pod_event_time());
  }
  return claim;
}

struct PodOpts {
  std::string name = "p";
  std::string ns = "default";
  std::string node = "node-a";
  std::string phase = "Running";
  std::string owner =
      {};  // "apps/v1/DaemonSet", "v1/Node", "apps/v1/StatefulSet"
  std::optional<int32_t> priority = {};
  std::optional<std::string> deletion_cost = {};
  std::map<std::string, std::string> annotations = {};
  std::map<std::string, std::string> labels = {{"app", "web"}};
  std::optional<absl::Time> deleted = {};
  std::optional<absl::Time> started = {};
  std::string ready = "True";
};

inline v1::Pod MakePod(const PodOpts& o) {
  v1::Pod pod;
  v1::ObjectMeta& m = *pod.mutable_metadata();
  m.set_name(o.name);
  m.set_namespace_(o.ns);
  for (const auto& [k, v] : o.annotations) (*m.mutable_annotations())[k] = v;
  for (const auto& [k, v] : o.labels) (*m.mutable_labels())[k] = v;
  if (o.deletion_cost.has_value()) {
    (*m.mutable_annotations())["controller.kubernetes.io/pod-deletion-cost"] =
        *o.deletion_cost;
  }
  if (!o.owner.empty()) {
    const size_t slash = o.owner.rfind('/');
    v1::OwnerReference* ref = m.add_owner_references();
    ref->set_api_version(o.owner.substr(0, slash));
    ref->set_kind(o.owner.substr(slash + 1));
    ref->set_name("owner");
  }
  if (o.deleted.has_value())
    SetTime(*o.deleted, m.mutable_deletion_timestamp());
  pod.mutable_spec()->set_node_name(o.node);
  if (o.priority.has_value()) pod.mutable_spec()->set_priority(*o.priority);
  pod.mutable_status()->set_phase(o.phase);
  if (o.started.has_value()) {
    SetTime(*o.started, pod.mutable_status()->mutable_start_time());
  }
  AddCondition(pod.mutable_status()->mutable_conditions(), "Ready", o.ready,
               kT0 - absl::Hours(1));
  return pod;
}

// A PDB with status (observedGeneration 1) selecting `app=<app>`.
inline v1::PodDisruptionBudget MakePdb(const std::string& name,
                                       const std::string& app, int32_t allowed,
                                       bool always_allow = false,
                                       const std::string& ns = "default") {
  v1::PodDisruptionBudget pdb;
  pdb.mutable_metadata()->set_name(name);
  pdb.mutable_metadata()->set_namespace_(ns);
  (*pdb.mutable_spec()->mutable_selector()->mutable_match_labels())["app"] =
      app;
  pdb.mutable_spec()->mutable_min_available()->set_number_value(1);
  if (always_allow) {
    pdb.mutable_spec()->set_unhealthy_pod_eviction_policy("AlwaysAllow");
  }
  pdb.mutable_status()->set_disruptions_allowed(allowed);
  pdb.mutable_status()->set_observed_generation(1);
  pdb.mutable_status()->set_expected_pods(2);
  return pdb;
}

// A cluster under construction.
struct Cluster {
  snapshot::ObjectSet objects;

  Cluster& Pool(const PoolOpts& o = {}) {
    objects.node_pools.push_back(MakePool(o));
    return *this;
  }
  Cluster& Node(const NodeOpts& n = {}, const ClaimOpts& c = {}) {
    objects.nodes.push_back(MakeNode(n));
    objects.node_claims.push_back(MakeClaim(n.name, n.pool, c));
    return *this;
  }
  Cluster& BareNode(const NodeOpts& n) {
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
  Cluster& Pod(const PodOpts& p) {
    objects.pods.push_back(MakePod(p));
    return *this;
  }
  Cluster& Pdb(v1::PodDisruptionBudget pdb) {
    objects.pdbs.push_back(std::move(pdb));
    return *this;
  }
  snapshot::Snapshot Build() {
    absl::StatusOr<snapshot::Snapshot> s =
        snapshot::Snapshot::Build(std::move(objects));
    REQUIRE(s.ok());
    return std::move(*s);
  }
};

// A catalogue with one instance type per (name, price) for `pool`, offered
// on demand in us-west-2a.
inline InstanceTypeCatalog Catalog(
    const std::string& pool,
    const std::vector<std::pair<std::string, double>>& types) {
  InstanceTypeCatalog catalog;
  for (const auto& [name, price] : types) {
    InstanceType t;
    t.name = name;
    t.offerings.push_back({"us-west-2a", "on-demand", price, true});
    t.offerings.push_back({"us-west-2a", "spot", price / 3, true});
    catalog[pool].push_back(std::move(t));
  }
  return catalog;
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
