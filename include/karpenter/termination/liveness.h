// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Liveness: which NodeClaims to delete because their instance never launched,
// their Node never registered, or their Node stayed NotReady too long (node
// repair), decided from a snapshot and a time, with a verdict for every
// NodeClaim (docs/design.md §1, "decide, then act"). ApplyLiveness
// (karpenter/termination/janitor.h) carries the deletions out.
//
// Ports, in this order per NodeClaim (docs/semantics.md §0, §2.10,
// §4.6):
//   1. Karpenter's launch TTL (pkg/controllers/nodeclaim/lifecycle/
//      liveness.go): `Launched` not True at its lastTransitionTime +
//      launch_timeout (5 min) -> delete, metric reason `launch_timeout`.
//      While `Launched` is not True the registration rule is not evaluated,
//      as in liveness.go.
//   2. The registration TTL of the same file: `Registered` not True at its
//      lastTransitionTime + registration_timeout (15 min) -> delete, reason
//      `registration_timeout`.
//   3. Node repair (pkg/controllers/node/health/controller.go), reduced to
//      the seed design's single policy: the registered NodeClaim's Node has
//      Ready not True (False, Unknown or absent) since the condition's
//      lastTransitionTime for not_ready_timeout -> delete, reason
//      `unhealthy`, unless more than ceil(max_unhealthy_fraction x nodes) of
//      the NodePool's Nodes are unhealthy (Ready not True right now), which
//      blocks the repair (event NodeRepairBlocked, look again in 5 min).
//
// Differences from Karpenter, on purpose:
//   * An absent `Launched` / `Registered` condition counts from the
//     NodeClaim's creationTimestamp (Karpenter requeues and waits for the
//     condition to appear), so a NodeClaim whose status was never written
//     is still collected. An absent Node `Ready` condition counts from the
//     Node's creationTimestamp.
//   * Node repair uses one policy (Ready) with one toleration, 15 min by
//     default, instead of the provider's RepairPolicies (AWS: 30 min), and
//     is on by default (Karpenter's NodeRepair feature gate is off by
//     default); set `not_ready_enabled = false` for Karpenter's default.
//   * The unhealthy pool is the Nodes labelled `karpenter.sh/nodepool` with
//     the NodeClaim's pool; a NodeClaim without that label is measured
//     against every Node of the snapshot.
//
// Thread-safety: EvaluateLiveness is a pure function of its arguments; the
// returned report is a plain value.

#ifndef KARPENTER_TERMINATION_LIVENESS_H_
#define KARPENTER_TERMINATION_LIVENESS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "karpenter/snapshot/snapshot.h"

namespace karpenter::termination {

// Metric reasons (label `reason` of karpenter_nodeclaims_disrupted_total).
inline constexpr absl::string_view kReasonLaunchTimeout = "launch_timeout";
inline constexpr absl::string_view kReasonRegistrationTimeout =
    "registration_timeout";
inline constexpr absl::string_view kReasonUnhealthy = "unhealthy";

// How long a blocked repair waits before it is evaluated again (Karpenter's
// requeue in health/controller.go).
inline constexpr absl::Duration kRepairBlockedRecheck = absl::Minutes(5);

struct LivenessOptions {
  // `Launched` not True for this long -> delete. Must be >= 0;
  // absl::InfiniteDuration() disables the rule.
  absl::Duration launch_timeout = absl::Minutes(5);
  // `Registered` not True for this long -> delete. Must be >= 0.
  absl::Duration registration_timeout = absl::Minutes(15);
  // Node Ready not True for this long -> delete (node repair). Must be >= 0.
  absl::Duration not_ready_timeout = absl::Minutes(15);
  // False disables node repair (Karpenter's default feature gate).
  bool not_ready_enabled = true;
  // Repair is blocked while more than ceil(fraction x pool nodes) Nodes of
  // the pool are unhealthy. In [0, 1]; applied with a resolution of 1e-6,
  // so 0.56 x 25 is exactly 14 (in binary floating point it is
  // 14.000000000000002, whose ceiling would be 15).
  double max_unhealthy_fraction = 0.2;

  // OK, or InvalidArgument naming the field and its value, e.g.
  // `launch_timeout: "-1s": must be >= 0` or
  // `max_unhealthy_fraction: "1.5": must be between 0 and 1`.
  absl::Status Validate() const;
};

enum class LivenessAction {
  kNone,             // Nothing to do (see `reason`, `due`).
  kDeleteNodeClaim,  // Delete the NodeClaim (`reason` is the metric reason).
  kBlocked,          // Repair due but blocked by the unhealthy threshold.
};

// "None", "DeleteNodeClaim" or "Blocked".
absl::string_view LivenessActionName(LivenessAction action);

// The verdict for one NodeClaim.
struct LivenessVerdict {
  std::string node_claim;
  // The NodeClaim's Node (status.nodeName, else the Node with its
  // providerID); "" if none is known.
  std::string node;
  // Labels karpenter.sh/nodepool and karpenter.sh/capacity-type ("" if
  // absent), for metrics.
  std::string node_pool;
  std::string capacity_type;
  // status.imageID, for karpenter_nodeclaims_unhealthy_disrupted_total.
  std::string image_id;
  LivenessAction action = LivenessAction::kNone;
  // A stable code. For kDeleteNodeClaim the metric reason
  // (kReasonLaunchTimeout, ...); for kBlocked "repair_blocked"; for kNone
  // one of "deleting", "launching", "registering", "node_missing",
  // "node_deleting", "node_ready", "not_ready", "repair_disabled".
  std::string reason;
  // One human-readable sentence with the numbers behind the verdict.
  std::string why;
  // When the pending rule fires (kNone), fired (kDeleteNodeClaim), or is
  // looked at again (kBlocked: now + kRepairBlockedRecheck); nullopt if no
  // rule is pending.
  std::optional<absl::Time> due;
};

struct LivenessReport {
  absl::Time now;
  // One per NodeClaim, in snapshot order.
  std::vector<LivenessVerdict> verdicts;
  // The earliest `due` after `now`: when the host should evaluate again if
  // nothing else changes. nullopt if no rule is pending.
  std::optional<absl::Time> next_wake;
};

// Evaluates the three rules above for every NodeClaim of `snapshot` at
// `now`. Each rule fires when `now >= start + timeout` (a NodeClaim created
// at t with Launched=Unknown is deleted at exactly t + 5 min). A NodeClaim
// with a deletionTimestamp gets kNone "deleting".
// Errors: InvalidArgument from `options.Validate()`.
absl::StatusOr<LivenessReport> EvaluateLiveness(
    const snapshot::Snapshot& snapshot, absl::Time now,
    const LivenessOptions& options);

}  // namespace karpenter::termination

#endif  // KARPENTER_TERMINATION_LIVENESS_H_
