// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// FakeNodeLifecycle: turns launched NodeClaims into Nodes in a FakeCluster,
// playing the kubelet and Karpenter's NodeClaim lifecycle controller
// (pkg/controllers/nodeclaim/lifecycle/launch.go, registration.go,
// initialization.go; docs/semantics.md §4.6, §7.3) for tests of
// disruption orchestration, where a replacement must become a real node
// before the candidates it replaces are deleted.
//
// It is a separate object over FakeCluster& + FakeCloudProvider& + Clock&
// (rather than part of FakeCluster) so the two fakes stay independent: a
// test without replacements needs neither it nor a cloud. It holds no state
// of its own; every Reconcile() derives what to do from the cluster and the
// cloud, so it can be recreated at any time.
//
// One Reconcile() at clock.Now(), for every NodeClaim by name that is not
// being deleted and has a `status.providerID`:
//   - Launched: the instance exists in the cloud (any state) -> condition
//     Launched=True, and the NodeClaim is labelled with the instance's
//     node.kubernetes.io/instance-type, topology.kubernetes.io/zone and
//     karpenter.sh/capacity-type, as Karpenter's launch does. An instance that
//     is gone, or a NodeClaim without a providerID (its Create failed), gets
//     nothing and stays uninitialised.
//   - Registered: the instance is Running and no Node has the NodeClaim's
//     name (one with the instance's providerID, left by an interrupted
//     pass, is adopted) -> a Node named after the NodeClaim is added
//     (AddNode):
//     `spec.providerID`; labels = the NodeClaim's labels, plus
//     node.kubernetes.io/instance-type, topology.kubernetes.io/zone and
//     karpenter.sh/capacity-type from the instance, kubernetes.io/hostname
//     and karpenter.sh/registered=true; taints = the NodeClaim's
//     `spec.taints` (startup taints are not applied: no daemon would remove
//     them); the finalizer karpenter.sh/termination; capacity and
//     allocatable = the instance type's capacity from
//     CloudProvider::GetInstanceTypes when the type is listed there, else
//     `default_allocatable`; Ready=True. The NodeClaim gets status.nodeName,
//     status.imageID, capacity/allocatable and Registered=True.
//   - Initialized: once `initialization_delay` has passed since Registered
//     turned True -> the Node gets karpenter.sh/initialized=true and the
//     NodeClaim Initialized=True (with delay 0, in the same Reconcile as the
//     registration).
// Condition times are the instant of the Reconcile that set them. A Node
// deleted later is not re-created for a NodeClaim already Registered.
//
// Thread-safety: not thread-safe; one thread drives it. The fakes and the
// clock must outlive it.

#ifndef KARPENTER_TESTING_FAKE_NODE_LIFECYCLE_H_
#define KARPENTER_TESTING_FAKE_NODE_LIFECYCLE_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "karpenter/clock.h"
#include "karpenter/testing/fake_cloud_provider.h"
#include "karpenter/testing/fake_cluster.h"

namespace karpenter::testing {

struct FakeNodeLifecycleOptions {
  // From Registered=True to Initialized=True. Must be finite and >= 0.
  absl::Duration initialization_delay = absl::ZeroDuration();
  // Node capacity and allocatable when the instance type is not in the
  // cloud's catalogue: generous, so capacity never decides a test.
  std::map<std::string, std::string> default_allocatable = {
      {"cpu", "64"}, {"memory", "256Gi"}, {"pods", "110"}};
};

// What one Reconcile did, NodeClaim names in name order each.
struct LifecycleReport {
  std::vector<std::string> launched;
  std::vector<std::string> registered;
  std::vector<std::string> initialized;
  // When a registered NodeClaim becomes due for initialisation; nullopt if
  // none is waiting. Instances turning Running are the cloud's
  // NextEventTime().
  std::optional<absl::Time> next_wake;
};

class FakeNodeLifecycle {
 public:
  // Errors: InvalidArgument naming the option for a negative or infinite
  // initialization_delay.
  static absl::StatusOr<std::unique_ptr<FakeNodeLifecycle>> Create(
      FakeCluster& cluster, FakeCloudProvider& cloud, Clock& clock,
      FakeNodeLifecycleOptions options = {});

  FakeNodeLifecycle(const FakeNodeLifecycle&) = delete;
  FakeNodeLifecycle& operator=(const FakeNodeLifecycle&) = delete;

  // One pass as the file comment says. Errors: the first failing call of
  // the cluster or the cloud (a scripted fault), prefixed with what it was
  // doing; the pass stops there and the next one resumes.
  absl::StatusOr<LifecycleReport> Reconcile();

 private:
  FakeNodeLifecycle(FakeCluster& cluster, FakeCloudProvider& cloud,
                    Clock& clock, FakeNodeLifecycleOptions options)
      : cluster_(cluster),
        cloud_(cloud),
        clock_(clock),
        options_(std::move(options)) {}

  FakeCluster& cluster_;
  FakeCloudProvider& cloud_;
  Clock& clock_;
  FakeNodeLifecycleOptions options_;
};

}  // namespace karpenter::testing

#endif  // KARPENTER_TESTING_FAKE_NODE_LIFECYCLE_H_
