// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The janitor: thin appliers that carry out a LivenessReport
// (karpenter/termination/liveness.h) or a GarbageCollectionReport
// (karpenter/termination/garbage_collection.h) through the host interfaces,
// with Karpenter's metric and events (docs/design.md §1: the decision is pure,
// this only acts).
//
// What each applier does, as Karpenter's controllers do
// (pkg/controllers/nodeclaim/lifecycle/liveness.go,
// pkg/controllers/node/health/controller.go,
// pkg/controllers/nodeclaim/garbagecollection/controller.go, aws
// pkg/controllers/nodeclaim/garbagecollection/controller.go):
//   * ApplyLiveness: per kDeleteNodeClaim verdict, deletes the NodeClaim.
//     For "unhealthy" it first sets the annotation
//     `karpenter.sh/nodeclaim-termination-timestamp` to the verdict's
//     `termination_timestamp` (the report's `now`, RFC 3339 in UTC with a
//     Z, as Go's time.RFC3339; skipped when the verdict keeps an earlier
//     value), so the drain is forceful at once; if that fails the delete is
//     not attempted. Per kBlocked verdict it records a Warning
//     NodeRepairBlocked event on the Node with Karpenter's text
//     (kNodeRepairBlockedNodePoolMessage, or for a NodeClaim without a
//     NodePool kNodeRepairBlockedClusterMessage). Per kAnnotateNodeClaim
//     verdict (a deleting NodeClaim due for repair) it sets the annotation
//     only: no delete, metric or event.
//   * ApplyGarbageCollection: per leaked instance, CloudProvider::Delete,
//     then deletes the instance's Nodes (not attempted if Delete failed);
//     per collected NodeClaim, deletes it. Orphaned finalizers are never
//     acted on.
//   * Metric karpenter_nodeclaims_disrupted_total{reason, nodepool,
//     capacity_type} +1 per NodeClaim this call deleted (for a repair also
//     karpenter_nodeclaims_unhealthy_disrupted_total{condition, nodepool,
//     capacity_type, image_id}, condition as ConditionMetricLabel spells
//     it; a repair's nodepool and capacity_type are the Node's), and an
//     event (events::kGarbageCollected) on each deleted NodeClaim and Node.
//     An object already gone (NotFound) counts as done, but gets no metric
//     or event: someone else deleted it.
//   * A failing action does not stop the others; each is reported. There is
//     no retry here: the host runs the decision again on its next pass
//     (both decisions are idempotent against observed state).
//
// Thread-safety: the appliers call the interfaces from the calling thread
// only, one call at a time; they hold no state.

#ifndef KARPENTER_TERMINATION_JANITOR_H_
#define KARPENTER_TERMINATION_JANITOR_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "karpenter/cloud_provider.h"
#include "karpenter/cluster_view.h"
#include "karpenter/event_recorder.h"
#include "karpenter/metrics.h"
#include "karpenter/termination/garbage_collection.h"
#include "karpenter/termination/liveness.h"

namespace karpenter::termination {

// The messages of the NodeRepairBlocked event, as Karpenter writes them
// (pkg/controllers/node/health/controller.go; "then" is its spelling).
inline constexpr absl::string_view kNodeRepairBlockedNodePoolMessage =
    "more than 20% nodes are unhealthy in the nodepool";
inline constexpr absl::string_view kNodeRepairBlockedClusterMessage =
    "more then 20% nodes are unhealthy in the cluster";

// A Node condition type as the label `condition` of
// karpenter_nodeclaims_unhealthy_disrupted_total spells it: snake_case, as
// Karpenter's pretty.ToSnakeCase ("Ready" -> "ready",
// "AcceleratedHardwareReady" -> "accelerated_hardware_ready",
// "GPUReady" -> "gpu_ready").
std::string ConditionMetricLabel(absl::string_view condition_type);

enum class JanitorActionKind {
  kAnnotateNodeClaim,  // Set the termination-timestamp annotation.
  kDeleteNodeClaim,
  kDeleteInstance,
  kDeleteNode,
};

// "AnnotateNodeClaim", "DeleteNodeClaim", "DeleteInstance" or "DeleteNode".
absl::string_view JanitorActionKindName(JanitorActionKind kind);

// One action and how it went.
struct JanitorAction {
  JanitorActionKind kind = JanitorActionKind::kDeleteNodeClaim;
  // NodeClaim or Node name, or the instance's provider ID.
  std::string target;
  // The verdict's reason ("launch_timeout", "leaked", ...).
  std::string reason;
  // OK when done (including already gone). The interface's error otherwise;
  // FailedPrecondition `not attempted: ...` for an action skipped because
  // the one it depends on failed.
  absl::Status status;
  // The object or instance was already gone (NotFound).
  bool already_gone = false;
};

struct JanitorResult {
  // In the order attempted: the report's order.
  std::vector<JanitorAction> actions;

  // Number of actions whose status is not OK.
  int failures() const;
  bool ok() const { return failures() == 0; }
};

// Carries out `report`. Never fails as a whole; see JanitorResult.
JanitorResult ApplyLiveness(const LivenessReport& report, ClusterView& cluster,
                            EventRecorder& events, Metrics& metrics);

// Carries out `report`. Never fails as a whole; see JanitorResult.
JanitorResult ApplyGarbageCollection(const GarbageCollectionReport& report,
                                     ClusterView& cluster, CloudProvider& cloud,
                                     EventRecorder& events, Metrics& metrics);

}  // namespace karpenter::termination

#endif  // KARPENTER_TERMINATION_JANITOR_H_
