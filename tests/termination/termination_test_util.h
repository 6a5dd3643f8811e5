// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Node, NodeClaim and snapshot builders for the termination tests: managed
// Nodes with labels, finalizer, Ready condition and timestamps, and
// NodeClaims with the lifecycle fields the termination decisions read.

#ifndef KARPENTER_TESTS_TERMINATION_TERMINATION_TEST_UTIL_H_
#define KARPENTER_TESTS_TERMINATION_TERMINATION_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../drain/drain_test_util.h"
#include "absl/time/time.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/core.pb.h"
#include "karpenter/v1/karpenter.pb.h"

namespace karpenter::termination::test {

using drain::test::kT0;
using drain::test::SetTime;

inline constexpr char kProviderId[] = "aws:///us-west-2a/i-a";
inline constexpr char kFinalizer[] = "karpenter.sh/termination";

// Sets condition `type` of `conditions` (replacing one of the same type).
inline void SetCondition(
    google::protobuf::RepeatedPtrField<v1::Condition>* conditions,
    const std::string& type, const std::string& status,
    const std::string& reason = "", absl::Time since = kT0) {
  v1::Condition* c = nullptr;
  for (v1::Condition& existing : *conditions) {
    if (existing.type() == type) c = &existing;
  }
  if (c == nullptr) c = conditions->Add();
  c->set_type(type);
  c->set_status(status);
  c->set_reason(reason);
  SetTime(since, c->mutable_last_transition_time());
}

// What a test Node looks like: by default a Ready, managed, not deleting
// Node with the termination finalizer, created an hour before kT0.
struct NodeOpts {
  std::string name = "node-a";
  std::string provider_id = kProviderId;
  std::string nodepool = "default";  // "": no karpenter.sh/nodepool label.
  std::string zone = "us-west-2a";   // "": no zone label.
  bool finalizer = true;
  std::optional<absl::Time> deleted;
  absl::Time created = kT0 - absl::Hours(1);
  std::optional<std::string> ready = "True";  // nullopt: no Ready condition.
  std::vector<v1::Taint> taints;
  std::map<std::string, std::string> labels;  // Extra labels.
};

inline v1::Node MakeNode(const NodeOpts& o) {
  v1::Node node;
  v1::ObjectMeta& meta = *node.mutable_metadata();
  meta.set_name(o.name);
  SetTime(o.created, meta.mutable_creation_timestamp());
  if (!o.nodepool.empty()) {
    (*meta.mutable_labels())["karpenter.sh/nodepool"] = o.nodepool;
  }
  if (!o.zone.empty()) {
    (*meta.mutable_labels())["topology.kubernetes.io/zone"] = o.zone;
  }
  for (const auto& [k, v] : o.labels) (*meta.mutable_labels())[k] = v;
  if (o.finalizer) meta.add_finalizers(kFinalizer);
  if (o.deleted.has_value())
    SetTime(*o.deleted, meta.mutable_deletion_timestamp());
  node.mutable_spec()->set_provider_id(o.provider_id);
  for (const v1::Taint& t : o.taints) *node.mutable_spec()->add_taints() = t;
  if (o.ready.has_value()) {
    SetCondition(node.mutable_status()->mutable_conditions(), "Ready", *o.ready,
                 "KubeletReady", o.created);
  }
  return node;
}

inline v1::Taint Taint(const std::string& key, const std::string& value,
                       const std::string& effect) {
  v1::Taint t;
  t.set_key(key);
  t.set_value(value);
  t.set_effect(effect);
  return t;
}

// What a test NodeClaim looks like: by default launched as node-a,
// Registered=True, with the finalizer, labels for the metrics, not deleting.
struct ClaimOpts {
  std::string name = "claim-a";
  std::string provider_id = kProviderId;
  std::string node_name = "node-a";
  bool finalizer = true;
  bool registered = true;
  std::optional<absl::Time> deleted;
  std::optional<std::string> grace_period;  // spec.terminationGracePeriod.
  std::optional<std::string> termination_timestamp;  // The annotation.
  std::map<std::string, std::string> labels = {
      {"karpenter.sh/nodepool", "default"},
      {"topology.kubernetes.io/zone", "us-west-2a"},
      {"karpenter.sh/capacity-type", "spot"},
  };
};

inline v1::NodeClaim MakeClaim(const ClaimOpts& o) {
  v1::NodeClaim claim = drain::test::MakeClaim(
      {.name = o.name,
       .provider_id = o.provider_id,
       .deleted = o.deleted,
       .grace_period = o.grace_period,
       .termination_timestamp = o.termination_timestamp});
  v1::ObjectMeta& meta = *claim.mutable_metadata();
  SetTime(kT0 - absl::Hours(1), meta.mutable_creation_timestamp());
  for (const auto& [k, v] : o.labels) (*meta.mutable_labels())[k] = v;
  if (o.finalizer) meta.add_finalizers(kFinalizer);
  claim.mutable_status()->set_node_name(o.node_name);
  if (o.registered) {
    SetCondition(claim.mutable_status()->mutable_conditions(), "Registered",
                 "True", "Registered", kT0 - absl::Hours(1));
  }
  return claim;
}

inline snapshot::Snapshot Snap(std::vector<v1::Node> nodes,
                               std::vector<v1::NodeClaim> claims = {},
                               std::vector<v1::Pod> pods = {}) {
  snapshot::ObjectSet objects;
  objects.nodes = std::move(nodes);
  objects.node_claims = std::move(claims);
  objects.pods = std::move(pods);
  absl::StatusOr<snapshot::Snapshot> s =
      snapshot::Snapshot::Build(std::move(objects));
  REQUIRE(s.ok());
  return *std::move(s);
}

}  // namespace karpenter::termination::test

#endif  // KARPENTER_TESTS_TERMINATION_TERMINATION_TEST_UTIL_H_
