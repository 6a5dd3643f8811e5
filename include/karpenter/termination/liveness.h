// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Liveness: which NodeClaims to delete because their instance never launched,
// their Node never registered, or their Node stayed unhealthy too long by
// one of the provider's repair policies (node repair), decided from a
// snapshot and a time, with a verdict for every NodeClaim (docs/design.md
// §1, "decide, then act"). ApplyLiveness (karpenter/termination/janitor.h)
// carries the deletions out.
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
//   3. Node repair (pkg/controllers/node/health/controller.go, v1.14.1),
//      for a registered NodeClaim whose Node is known: among
//      `repair_policies` (the host's CloudProvider::RepairPolicies()), those
//      whose condition type is on the Node with the policy's status match;
//      each is due at the condition's lastTransitionTime + toleration, and
//      the earliest wins (the first listed on a tie). Before it is due,
//      nothing. Once due, the NodeClaim is deleted (reason `unhealthy`,
//      with the annotation karpenter.sh/nodeclaim-termination-timestamp set
//      to now unless it already holds an earlier time), unless the guard
//      blocks it: more than ceil(max_unhealthy_fraction x N) of the N Nodes
//      labelled with the NodeClaim's NodePool (every Node of the snapshot,
//      for a NodeClaim without the label) match some policy, toleration
//      not counted. A blocked repair gets an event NodeRepairBlocked on the
//      Node and is looked at again in 5 min. A NodeClaim already being
//      deleted is not deleted again, but a due repair still sets the
//      annotation (kAnnotateNodeClaim), forcing its drain, as Karpenter's
//      controller annotates before it checks the deletionTimestamp.
//
// Differences from Karpenter, on purpose (docs/semantics.md §10.6):
//   * An absent `Launched` / `Registered` condition counts from the
//     NodeClaim's creationTimestamp (Karpenter requeues and waits for the
//     condition to appear), so a NodeClaim whose status was never written
//     is still collected.
//   * An absent Node `Ready` condition matches a policy `Ready=Unknown`,
//     since the Node's creationTimestamp: the Node lifecycle controller
//     would write Ready=Unknown for a kubelet that never posted status, and
//     the SDK's repair before policies counted it so. Other absent
//     conditions match nothing, as in Karpenter. A matching condition
//     without a lastTransitionTime counts from the Node's creation too.
//   * The default policies are the SDK's (DefaultRepairPolicies(): Ready
//     False or Unknown for 15 min) and repair is on by default
//     (`node_repair_enabled`); Karpenter's NodeRepair gate is off by
//     default and its core has no policies of its own (AWS publishes seven,
//     Ready for 30 min among them).
//   * The guard's fraction is an option (Karpenter: 20%, fixed).
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
#include "karpenter/cloud_provider.h"
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
  // Node repair: the conditions under which a Node is repaired. A host sets
  // them from its provider, `options.repair_policies =
  // cloud.RepairPolicies();`. Each needs a non-empty condition_type, a
  // condition_status of "True", "False" or "Unknown" and a toleration >= 0
  // (absl::InfiniteDuration(): never repaired, but still counted by the
  // guard). Empty: no repair.
  std::vector<RepairPolicy> repair_policies = DefaultRepairPolicies();
  // False disables node repair whatever the policies (Karpenter's NodeRepair
  // feature gate, whose default is false).
  bool node_repair_enabled = true;
  // Repair is blocked while more than ceil(fraction x pool nodes) Nodes of
  // the pool are unhealthy. In [0, 1]; applied with a resolution of 1e-6,
  // so 0.56 x 25 is exactly 14 (in binary floating point it is
  // 14.000000000000002, whose ceiling would be 15).
  double max_unhealthy_fraction = 0.2;

  // OK, or InvalidArgument naming the field and its value, e.g.
  // `launch_timeout: "-1s": must be >= 0`,
  // `repair_policies[2].condition_status: "Maybe": must be "True", "False"
  // or "Unknown"` or
  // `max_unhealthy_fraction: "1.5": must be between 0 and 1`.
  absl::Status Validate() const;
};

enum class LivenessAction {
  kNone,             // Nothing to do (see `reason`, `due`).
  kDeleteNodeClaim,  // Delete the NodeClaim (`reason` is the metric reason).
  kBlocked,          // Repair due but blocked by the unhealthy threshold.
  // Repair due on a NodeClaim already being deleted: only set the
  // termination-timestamp annotation (`termination_timestamp`), which makes
  // its drain forceful; `reason` is "unhealthy".
  kAnnotateNodeClaim,
};

// "None", "DeleteNodeClaim", "Blocked" or "AnnotateNodeClaim".
absl::string_view LivenessActionName(LivenessAction action);

// The verdict for one NodeClaim.
struct LivenessVerdict {
  std::string node_claim;
  // The NodeClaim's Node (status.nodeName, else the Node with its
  // providerID); "" if none is known.
  std::string node;
  // The NodeClaim's labels karpenter.sh/nodepool and
  // karpenter.sh/capacity-type ("" if absent), for metrics and (node_pool)
  // the repair guard; for a repair (reason "unhealthy") the Node's, which
  // Karpenter's health controller puts on its metrics.
  std::string node_pool;
  std::string capacity_type;
  // status.imageID, for karpenter_nodeclaims_unhealthy_disrupted_total.
  std::string image_id;
  // Node repair: the condition type of the policy that is due first (e.g.
  // "AcceleratedHardwareReady"), when one matches; "" otherwise.
  std::string condition;
  // For a repair (kDeleteNodeClaim or kAnnotateNodeClaim, "unhealthy"): the
  // value to write to the
  // annotation karpenter.sh/nodeclaim-termination-timestamp, `now` in RFC
  // 3339 to the second; "" when the NodeClaim already holds a parseable
  // time before `now`, which is kept (Karpenter's
  // annotateTerminationGracePeriod).
  std::string termination_timestamp;
  LivenessAction action = LivenessAction::kNone;
  // A stable code. For kDeleteNodeClaim the metric reason
  // (kReasonLaunchTimeout, ...); for kAnnotateNodeClaim "unhealthy"; for
  // kBlocked "repair_blocked"; for kNone
  // one of "deleting", "launching", "registering", "node_missing",
  // "node_deleting", "repair_disabled" (node_repair_enabled is false or no
  // policies), "node_healthy" (no policy matches), "tolerated" (a policy
  // matches, not yet due).
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
// with a deletionTimestamp gets kNone "deleting", unless its Node is due for
// repair: kAnnotateNodeClaim "unhealthy" (kNone "deleting" once it holds an
// earlier annotation), or kBlocked.
// Errors: InvalidArgument from `options.Validate()`.
absl::StatusOr<LivenessReport> EvaluateLiveness(
    const snapshot::Snapshot& snapshot, absl::Time now,
    const LivenessOptions& options);

}  // namespace karpenter::termination

#endif  // KARPENTER_TERMINATION_LIVENESS_H_
