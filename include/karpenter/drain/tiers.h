// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Drain tiers and the plan of one drain pass over one node
// (docs/semantics.md §4.3, HEAD). Ports Karpenter
// pkg/controllers/node/termination/terminator/terminator.go `Drain`: the pods
// the drain waits for (IsWaitingEviction) are split into those past their
// force-delete instant (needsForceDelete, all enqueued at once, crossing
// tiers) and the graceful rest, which is grouped in the four tiers of
// Kubernetes graceful node shutdown; only the first non-empty tier is
// enqueued. A later tier therefore starts only when every pod of the earlier
// ones is gone, terminal or stuck terminating, not merely terminating.
//
// The plan is pure: it enqueues and deletes nothing. It also explains every
// pod of the node that is not acted on.
//
// Thread-safety: all functions are pure and safe to call concurrently.

#ifndef KARPENTER_DRAIN_TIERS_H_
#define KARPENTER_DRAIN_TIERS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "karpenter/drain/classify.h"
#include "karpenter/snapshot/decoded_pods.h"
#include "karpenter/snapshot/snapshot.h"

namespace karpenter::drain {

// Drain tiers in eviction order. "Critical" is classify.h IsCritical.
enum class Tier {
  kNonCriticalNonDaemonSet = 0,
  kNonCriticalDaemonSet = 1,
  kCriticalNonDaemonSet = 2,
  kCriticalDaemonSet = 3,
};
inline constexpr int kTierCount = 4;

// Stable name, e.g. "CriticalDaemonSet"; "Unknown" if out of range.
absl::string_view TierName(Tier tier);

// The tier of a classified pod (from `critical` and `daemonset`).
Tier TierOf(const PodClass& pod_class);

// What one drain pass does with a pod.
enum class PodAction {
  // Nothing this pass; `PodDecision::reason` says why.
  kNone,
  // In the tier being drained: enqueue for eviction. The eviction queue
  // evicts it if it is evictable; `reason` is kTerminating or kDoNotDisrupt
  // when the queue will only wait (drop it once gone, retry until the
  // annotation lapses).
  kEnqueue,
  // Past its force-delete instant: delete it now with
  // `force_delete_grace_seconds`, bypassing PDBs and do-not-disrupt.
  kForceDelete,
};

// "None", "Enqueue", "ForceDelete"; "Unknown" if out of range.
absl::string_view PodActionName(PodAction action);

// Why a pod is not (or only passively) acted on in this pass.
enum class HoldReason {
  kNone = 0,
  // Not drained at all; `PodDecision::pod_class.not_waiting_reason` is one
  // of kMirror, kTerminal, kToleratesDisruptedTaint, kStuckTerminating.
  kNotDrained,
  // Terminating, not stuck: the drain waits for it to go.
  kTerminating,
  // do-not-disrupt active (until `PodDecision::until` if set).
  kDoNotDisrupt,
  // Its tier waits for an earlier tier (`PlanDrainPass::tier`) to finish.
  kEarlierTier,
};

// "None", "NotDrained", "Terminating", "DoNotDisrupt", "EarlierTier";
// "Unknown" if out of range.
absl::string_view HoldReasonName(HoldReason reason);

// The decision for one pod of the node.
struct PodDecision {
  snapshot::PodIndex pod = 0;
  PodClass pod_class;
  Tier tier = Tier::kNonCriticalNonDaemonSet;
  PodAction action = PodAction::kNone;
  // kNone for a pod enqueued for an eviction that can proceed now, and for a
  // force-delete; otherwise why it stays (see HoldReason). A terminating pod
  // outside the current tier reports kTerminating (it is already going), not
  // kEarlierTier.
  HoldReason reason = HoldReason::kNone;
  // kDoNotDisrupt: when the annotation lapses (unset: no end known).
  std::optional<absl::Time> until;
  // For a waiting pod that will need a force-delete later: the instant after
  // which it will (deadline.h ForceDeleteAt); for kForceDelete, the instant
  // it became due.
  std::optional<absl::Time> force_delete_at;
  // kForceDelete only: deadline.h ForceDeleteGraceSeconds(T, now).
  int64_t force_delete_grace_seconds = 0;
};

// One drain pass of one node.
struct DrainPass {
  // Pods to force-delete now, across tiers, in node pod order.
  std::vector<snapshot::PodIndex> force_delete;
  // The tier enqueued now (the first non-empty graceful tier), if any.
  std::optional<Tier> tier;
  // Every graceful pod of `tier`, in node pod order (Karpenter enqueues all
  // of them, terminating and do-not-disrupt pods included).
  std::vector<snapshot::PodIndex> enqueue;
  // N: pods the drain waits for (IsWaitingEviction), force-delete ones
  // included.
  int waiting = 0;
  // Nothing is waiting: the drain is complete.
  bool done = true;
  // Every pod on the node, in node pod order (Snapshot::PodsOnNode: input
  // order), with its decision.
  std::vector<PodDecision> pods;

  // "N pods are waiting to be evicted" (Karpenter's drain error and the
  // `FailedDraining` event text); empty when `done`.
  std::string Message() const;
};

// Plans one drain pass of node `n` of `snapshot` at `now` with node deadline
// `deadline` (deadline.h NodeDeadline; nullopt: no forced deletion):
//   1. waiting = pods with PodClass::waiting (DaemonSet, do-not-disrupt and
//      terminating-not-stuck pods included);
//   2. of those, NeedsForceDelete(pod, deadline, now) -> `force_delete`;
//   3. the rest by tier; the first non-empty tier -> `tier`, `enqueue`;
//   4. `waiting` = N, `done` = N == 0.
// Output order is the node's pod order in the snapshot (input order), so a
// given snapshot and time always give the same pass.
// Errors: kInvalidArgument if `n` is out of range (naming it).
absl::StatusOr<DrainPass> PlanDrainPass(const snapshot::Snapshot& snapshot,
                                        snapshot::NodeIndex n,
                                        std::optional<absl::Time> deadline,
                                        absl::Time now);

// The same, reading the pods through `pods` (over `pods.snapshot()`), for a
// caller that reads them again afterwards.
absl::StatusOr<DrainPass> PlanDrainPass(snapshot::DecodedPods& pods,
                                        snapshot::NodeIndex n,
                                        std::optional<absl::Time> deadline,
                                        absl::Time now);

}  // namespace karpenter::drain

#endif  // KARPENTER_DRAIN_TIERS_H_
