// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Pod, NodeClaim and snapshot builders shared by the drain tests.

#ifndef KARPENTER_TESTS_DRAIN_DRAIN_TEST_UTIL_H_
#define KARPENTER_TESTS_DRAIN_DRAIN_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "karpenter/drain/tiers.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/core.pb.h"
#include "karpenter/v1/karpenter.pb.h"

namespace karpenter::drain::test {

// 2024-01-01T00:00:00Z, the reference instant of the tests.
inline const absl::Time kT0 = absl::FromUnixSeconds(1704067200);

inline void SetTime(absl::Time t, google::protobuf::Timestamp* ts) {
  const absl::Duration since_epoch = t - absl::UnixEpoch();
  absl::Duration rem;
  const int64_t seconds =
      absl::IDivDuration(since_epoch, absl::Seconds(1), &rem);
  ts->set_seconds(seconds);
  ts->set_nanos(static_cast<int32_t>(absl::ToInt64Nanoseconds(rem)));
}

// A toleration; "" fields stay empty.
inline v1::Toleration Tol(const std::string& key, const std::string& op,
                          const std::string& value = "",
                          const std::string& effect = "") {
  v1::Toleration t;
  t.set_key(key);
  t.set_operator_(op);
  t.set_value(value);
  t.set_effect(effect);
  return t;
}

// What a test pod looks like; every field has a neutral default.
struct PodOpts {
  std::string name = "p";
  std::string node = "node-a";
  std::string phase = "Running";
  // "": no owner; else "apiVersion/Kind" split at the last '/', e.g.
  // "apps/v1/DaemonSet" or "v1/Node".
  std::string owner;
  std::string priority_class;
  std::optional<int64_t> grace;       // terminationGracePeriodSeconds.
  std::optional<absl::Time> deleted;  // deletionTimestamp.
  std::optional<absl::Time> started;  // status.startTime.
  std::map<std::string, std::string> annotations;
  std::vector<v1::Toleration> tolerations;
};

inline v1::Pod MakePod(const PodOpts& o) {
  v1::Pod pod;
  v1::ObjectMeta& meta = *pod.mutable_metadata();
  meta.set_namespace_("default");
  meta.set_name(o.name);
  meta.set_uid("uid-" + o.name);
  for (const auto& [k, v] : o.annotations) (*meta.mutable_annotations())[k] = v;
  if (!o.owner.empty()) {
    const size_t slash = o.owner.rfind('/');
    v1::OwnerReference* ref = meta.add_owner_references();
    ref->set_api_version(o.owner.substr(0, slash));
    ref->set_kind(o.owner.substr(slash + 1));
    ref->set_name("owner");
  }
  if (o.deleted.has_value())
    SetTime(*o.deleted, meta.mutable_deletion_timestamp());
  pod.mutable_spec()->set_node_name(o.node);
  pod.mutable_spec()->set_priority_class_name(o.priority_class);
  if (o.grace.has_value()) {
    pod.mutable_spec()->set_termination_grace_period_seconds(*o.grace);
  }
  for (const v1::Toleration& t : o.tolerations) {
    *pod.mutable_spec()->add_tolerations() = t;
  }
  pod.mutable_status()->set_phase(o.phase);
  if (o.started.has_value()) {
    SetTime(*o.started, pod.mutable_status()->mutable_start_time());
  }
  return pod;
}

inline v1::Node MakeNode(const std::string& name,
                         const std::string& provider_id = "") {
  v1::Node node;
  node.mutable_metadata()->set_name(name);
  node.mutable_spec()->set_provider_id(provider_id);
  return node;
}

// A NodeClaim; unset options leave the field absent.
struct ClaimOpts {
  std::string name = "claim-a";
  std::string provider_id = "aws:///us-west-2a/i-a";
  std::optional<absl::Time> deleted;
  std::optional<std::string> grace_period;  // spec.terminationGracePeriod.
  std::optional<std::string> termination_timestamp;  // The annotation.
};

inline v1::NodeClaim MakeClaim(const ClaimOpts& o) {
  v1::NodeClaim claim;
  claim.mutable_metadata()->set_name(o.name);
  claim.mutable_status()->set_provider_id(o.provider_id);
  if (o.deleted.has_value()) {
    SetTime(*o.deleted, claim.mutable_metadata()->mutable_deletion_timestamp());
  }
  if (o.grace_period.has_value()) {
    claim.mutable_spec()->set_termination_grace_period(*o.grace_period);
  }
  if (o.termination_timestamp.has_value()) {
    (*claim.mutable_metadata()->mutable_annotations())
        ["karpenter.sh/nodeclaim-termination-timestamp"] =
            *o.termination_timestamp;
  }
  return claim;
}

// A snapshot with node "node-a" (providerID of the default ClaimOpts), the
// given pods (bound to it unless their `node` differs) and NodeClaims.
inline snapshot::Snapshot MakeSnapshot(std::vector<v1::Pod> pods,
                                       std::vector<v1::NodeClaim> claims = {}) {
  snapshot::ObjectSet objects;
  objects.nodes.push_back(MakeNode("node-a", "aws:///us-west-2a/i-a"));
  objects.pods = std::move(pods);
  objects.node_claims = std::move(claims);
  absl::StatusOr<snapshot::Snapshot> s =
      snapshot::Snapshot::Build(std::move(objects));
  REQUIRE(s.ok());
  return *std::move(s);
}

// The decision a pass made for the pod called `name` (fails the test if
// there is none).
inline const PodDecision& DecisionOf(const snapshot::Snapshot& s,
                                     const DrainPass& p,
                                     const std::string& name) {
  for (const PodDecision& d : p.pods) {
    if (s.DecodePod(d.pod).metadata().name() == name) return d;
  }
  FAIL("no decision for pod " << name);
  return p.pods.front();
}

}  // namespace karpenter::drain::test

#endif  // KARPENTER_TESTS_DRAIN_DRAIN_TEST_UTIL_H_
