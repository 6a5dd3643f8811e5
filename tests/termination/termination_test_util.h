// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The termination tests' Nodes and NodeClaims, on the test kit
// (karpenter/testing/builders.h): managed Nodes with the finalizer, Ready
// condition and timestamps, and NodeClaims with the lifecycle fields the
// termination decisions read, each with the defaults of node-a / claim-a.

#ifndef KARPENTER_TESTS_TERMINATION_TERMINATION_TEST_UTIL_H_
#define KARPENTER_TESTS_TERMINATION_TERMINATION_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../drain/drain_test_util.h"
#include "../testing/kit_test_util.h"
#include "absl/time/time.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/testing/builders.h"
#include "karpenter/v1/core.pb.h"
#include "karpenter/v1/karpenter.pb.h"

namespace karpenter::termination::test {

using drain::test::kProviderId;
using drain::test::kT0;

inline constexpr char kFinalizer[] = "karpenter.sh/termination";

// Sets condition `type` of `conditions` (replacing one of the same type).
inline void SetCondition(
    google::protobuf::RepeatedPtrField<v1::Condition>* conditions,
    const std::string& type, const std::string& status,
    const std::string& reason = "", absl::Time since = kT0) {
  testing::SetCondition(
      conditions,
      {.type = type, .status = status, .reason = reason, .since = since});
}

// What a test Node looks like: by default a Ready, managed, not deleting
// Node with the termination finalizer, created an hour before kT0.
struct NodeOpts {
  std::string name = "node-a";
  std::string provider_id = kProviderId;
  std::string nodepool = "default";  // "": no karpenter.sh/nodepool label.
  std::string zone = "us-west-2a";   // "": no zone label.
  bool finalizer = true;
  std::optional<absl::Time> deleted = {};
  absl::Time created = kT0 - absl::Hours(1);
  std::optional<std::string> ready = "True";  // nullopt: no Ready condition.
  std::vector<v1::Taint> taints = {};
  std::map<std::string, std::string> labels = {};  // Extra labels.
};

// The kit's Node (karpenter/testing/builders.h) as NodeOpts describe it:
// Ready since its creation (reason KubeletReady), no instance-type or
// capacity-type label.
inline v1::Node MakeNode(const NodeOpts& o) {
  return testing::MakeNode({
      .name = o.name,
      .provider_id = o.provider_id,
      .nodepool = o.nodepool,
      .initialized = false,
      .zone = o.zone,
      .labels = o.labels,
      .taints = o.taints,
      .finalizers = o.finalizer ? std::vector<std::string>{kFinalizer}
                                : std::vector<std::string>{},
      .created = o.created,
      .deleted = o.deleted,
      .ready = o.ready.value_or(""),
      .ready_since = o.created,
      .ready_reason = "KubeletReady",
  });
}

using testing::MakeTaint;

// What a test NodeClaim looks like: by default launched as node-a,
// Registered=True, with the finalizer, labels for the metrics, not deleting.
struct ClaimOpts {
  std::string name = "claim-a";
  std::string provider_id = kProviderId;
  std::string node_name = "node-a";
  bool finalizer = true;
  bool registered = true;
  std::optional<absl::Time> deleted = {};
  std::optional<std::string> grace_period = {};  // terminationGracePeriod.
  std::optional<std::string> termination_timestamp = {};  // The annotation.
  std::map<std::string, std::string> labels = {
      {"karpenter.sh/nodepool", "default"},
      {"topology.kubernetes.io/zone", "us-west-2a"},
      {"karpenter.sh/capacity-type", "spot"},
  };
};

// The kit's NodeClaim as ClaimOpts describe it: created an hour before
// kT0, Registered since then (reason Registered), no other condition.
inline v1::NodeClaim MakeClaim(const ClaimOpts& o) {
  v1::NodeClaim claim = testing::MakeNodeClaim({
      .name = o.name,
      .node_name = o.node_name,
      .provider_id = o.provider_id,
      .nodepool = "",
      .labels = o.labels,
      .annotations =
          o.termination_timestamp.has_value()
              ? drain::test::TerminationTimestamp(*o.termination_timestamp)
              : testing::Labels{},
      .finalizers = o.finalizer ? std::vector<std::string>{kFinalizer}
                                : std::vector<std::string>{},
      .created = kT0 - absl::Hours(1),
      .deleted = o.deleted,
      .termination_grace_period = o.grace_period,
  });
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
  return kit_test::MustBuildSnapshot(std::move(objects));
}

}  // namespace karpenter::termination::test

#endif  // KARPENTER_TESTS_TERMINATION_TERMINATION_TEST_UTIL_H_
