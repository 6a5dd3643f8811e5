// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Drain deadlines: the node deadline T after which pods are force-deleted,
// when each pod must be force-deleted to receive its full grace before T, the
// grace such a delete grants, an estimate of how long a drain takes, and the
// termination mode (docs/semantics.md §4.1, §4.2 step 3, §4.5).
//
// Ports:
//   - Karpenter pkg/controllers/nodeclaim/lifecycle/controller.go (the
//     `karpenter.sh/nodeclaim-termination-timestamp` annotation, set to
//     deletionTimestamp + spec.terminationGracePeriod) and
//     pkg/controllers/node/termination/controller.go (reading it back);
//   - pkg/controllers/node/termination/terminator/terminator.go and
//     eviction.go (`needsForceDelete`, the force-delete grace
//     `max(int64((T - now).Seconds()), 1)`);
//   - pkg/utils/nodeclaim/nodeclaim.go `DisruptionTerminationMode`.
// Extensions (not in Karpenter): an external deadline such as a spot
// interruption notice, combined with T as the earliest; and the drain-time
// estimate of the seed design (EstimateDrain), which Karpenter does not
// compute.
//
// Thread-safety: all functions are pure and safe to call concurrently.

#ifndef KARPENTER_DRAIN_DEADLINE_H_
#define KARPENTER_DRAIN_DEADLINE_H_

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/core.pb.h"
#include "karpenter/v1/karpenter.pb.h"

namespace karpenter::drain {

// Time between a spot interruption notice and the reclaim of the instance.
inline constexpr absl::Duration kSpotInterruptionNotice = absl::Minutes(2);
// What the API server defaults an unset `terminationGracePeriodSeconds` to.
inline constexpr absl::Duration kDefaultTerminationGracePeriod =
    absl::Seconds(30);

// Where a node deadline came from.
enum class DeadlineSource {
  kAnnotation,  // well_known::kNodeClaimTerminationTimestampAnnotationKey.
  kTerminationGracePeriod,  // NodeClaim deletionTimestamp + TGP.
  kExternal,  // The caller's external deadline (e.g. spot interruption).
};

// Stable name, e.g. "TerminationGracePeriod"; "Unknown" if out of range.
absl::string_view DeadlineSourceName(DeadlineSource source);

// A node deadline T and its origin.
struct Deadline {
  absl::Time at;
  DeadlineSource source = DeadlineSource::kAnnotation;

  friend bool operator==(const Deadline&, const Deadline&) = default;
};

// The deadline of a spot instance whose interruption notice arrived at
// `notice`: notice + kSpotInterruptionNotice.
absl::Time SpotInterruptionDeadline(absl::Time notice);

// Parses an RFC 3339 timestamp as Go's `time.Parse(time.RFC3339, s)`:
// "2024-05-01T12:00:00Z", optional fractional seconds, "Z" or "+hh:mm";
// uppercase "T" and "Z" only, no surrounding white space. Deliberately
// stricter than Go 1.19 in two lax corners: a comma before the fraction and
// offsets such as "+99:99" (both accepted by Go) are rejected.
// Errors: kInvalidArgument "<field>: invalid RFC 3339 timestamp \"<s>\"".
absl::StatusOr<absl::Time> ParseRfc3339(absl::string_view s,
                                        absl::string_view field);

// The deadline T of a node whose NodeClaim is `claim`, combined with an
// optional `external` deadline (the earlier wins; on a tie the NodeClaim's
// source is reported):
//   1. the annotation karpenter.sh/nodeclaim-termination-timestamp if present
//   (even if
//      the NodeClaim is not deleting: node repair sets it to "now");
//   2. else `metadata.deletionTimestamp + spec.terminationGracePeriod` when
//      both are set (the annotation Karpenter is about to write);
//   3. else no NodeClaim deadline.
// Returns nullopt when neither the NodeClaim nor `external` gives one.
// Errors (kInvalidArgument): an annotation value that is not RFC 3339
// (`metadata.annotations["karpenter.sh/nodeclaim-termination-timestamp"]:
// invalid RFC 3339 timestamp "<value>"`), or, when used, a
// `spec.terminationGracePeriod` that is not a Go duration
// (`spec.terminationGracePeriod: time: invalid duration "<value>"`).
absl::StatusOr<std::optional<Deadline>> NodeDeadline(
    const v1::NodeClaim& claim,
    std::optional<absl::Time> external = std::nullopt);

// As NodeDeadline, for node `n` of `snapshot`: its NodeClaim is the one whose
// `status.providerID` equals the node's `spec.providerID` (zero or several
// matches mean none, as Karpenter's NodeClaimForNode). With no NodeClaim only
// `external` counts.
// Errors: kInvalidArgument if `n` is out of range (naming it), else those of
// NodeDeadline prefixed by "nodeclaim \"<name>\": ".
absl::StatusOr<std::optional<Deadline>> NodeDeadline(
    const snapshot::Snapshot& snapshot, snapshot::NodeIndex n,
    std::optional<absl::Time> external = std::nullopt);

// Karpenter `needsForceDelete(pod, T)` at `now`:
//   - no deadline: false;
//   - pod terminating: true iff its deletionTimestamp is after T (its own
//     grace would run past the node deadline);
//   - `spec.terminationGracePeriodSeconds` unset: false;
//   - else true iff now > T - terminationGracePeriodSeconds (strictly).
// The arithmetic is Karpenter's, unchecked: a negative grace puts the
// threshold after T. Never fails.
bool NeedsForceDelete(const v1::Pod& pod, std::optional<absl::Time> deadline,
                      absl::Time now);

// The instant from which NeedsForceDelete holds, or nullopt if it never
// will for this pod and deadline:
//   - no deadline, or grace unset on a pod not terminating: nullopt;
//   - terminating: `now` if its deletionTimestamp is after T (due at once),
//     else nullopt (it will be gone before T);
//   - else T - terminationGracePeriodSeconds (force-deleted strictly after
//     this instant).
// Never fails.
std::optional<absl::Time> ForceDeleteAt(const v1::Pod& pod,
                                        std::optional<absl::Time> deadline,
                                        absl::Time now);

// The gracePeriodSeconds of a force-delete at `now` for deadline `deadline`:
// max(trunc(seconds(deadline - now)), 1). Truncated toward zero; at least 1
// because 0 would remove the pod from etcd without waiting for the kubelet.
// A deadline already past yields 1. Never fails.
int64_t ForceDeleteGraceSeconds(absl::Time deadline, absl::Time now);

// How long pod `pod` may still take to terminate, at `now`:
//   - terminating: max(deletionTimestamp - now, 0) (the deletionTimestamp
//     already includes the grace the pod was given);
//   - else `spec.terminationGracePeriodSeconds`, or
//     kDefaultTerminationGracePeriod when unset.
// Errors: kInvalidArgument for a negative terminationGracePeriodSeconds
// (`spec.terminationGracePeriodSeconds: -5 is negative`).
absl::StatusOr<absl::Duration> RemainingGrace(const v1::Pod& pod,
                                              absl::Time now);

// A worst-case estimate of one node's drain (the seed drift design).
struct DrainEstimate {
  // Number of pods the drain waits for (classify.h `waiting`).
  int waiting = 0;
  // Sum of RemainingGrace over those pods: their terminations run one after
  // another. Time spent blocked by PDBs or do-not-disrupt is not included
  // (it is unbounded without a deadline).
  absl::Duration timeout = absl::ZeroDuration();
  // min(deadline T, now + timeout); now + timeout without T. The drain is
  // forced to end by T at the latest.
  absl::Time drain_deadline;
};

// Estimates the drain of node `n` of `snapshot` at `now` with node deadline
// `deadline` (e.g. NodeDeadline(...)->at). Pods are classified with
// Classify(pod, now).
// Errors (kInvalidArgument): `n` out of range; a waiting pod with a negative
// terminationGracePeriodSeconds (the message names the pod).
absl::StatusOr<DrainEstimate> EstimateDrain(const snapshot::Snapshot& snapshot,
                                            snapshot::NodeIndex n,
                                            std::optional<absl::Time> deadline,
                                            absl::Time now);

// Karpenter's DisruptionTerminationMode, the `termination_mode` metric label.
enum class TerminationMode {
  kGraceful,  // No terminationGracePeriod: the drain may wait forever.
  kForceful,  // terminationGracePeriod <= 0: force-delete at once.
  kEventual,  // A positive terminationGracePeriod.
};

// "graceful", "forceful" or "eventual"; "unknown" if out of range.
absl::string_view TerminationModeName(TerminationMode mode);

// The mode of `claim` from its `spec.terminationGracePeriod`.
// Errors: kInvalidArgument when it is not a Go duration
// (`spec.terminationGracePeriod: time: invalid duration "<value>"`).
absl::StatusOr<TerminationMode> TerminationModeOf(const v1::NodeClaim& claim);

}  // namespace karpenter::drain

#endif  // KARPENTER_DRAIN_DEADLINE_H_
