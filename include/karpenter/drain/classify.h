// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Pod classification for the drain: which pods on a terminating node the
// drain waits for, which it may evict, and why not (docs/semantics.md
// §2.3, §2.4, §4.4). Ports the predicates of Karpenter
// pkg/utils/pod/scheduling.go (IsTerminal, IsTerminating, IsActive,
// IsOwnedByDaemonSet, IsOwnedByNode, IsStuckTerminating, IsDrainable,
// IsWaitingEviction, IsEvictable, IsDoNotDisruptActive,
// ToleratesDisruptedNoScheduleTaint) and the toleration match of Kubernetes
// `Toleration.ToleratesTaint` (k8s.io/api/core/v1/toleration.go), plus the
// "critical" test of pkg/controllers/node/termination/terminator/terminator.go.
//
// Every result carries a reason, so each pod the drain does not evict can be
// explained. Deliberate extension: the v1alpha5 annotation
// `karpenter.sh/do-not-evict: "true"` is honoured as well (Karpenter v1 no
// longer reads it); see EvaluateDoNotDisrupt for the precedence.
//
// Thread-safety: all functions are pure and safe to call concurrently.

#ifndef KARPENTER_DRAIN_CLASSIFY_H_
#define KARPENTER_DRAIN_CLASSIFY_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "karpenter/v1/core.pb.h"
#include "karpenter/v1/meta.pb.h"

namespace karpenter::drain {

// A terminating pod whose deletionTimestamp is more than this in the past is
// "stuck" and no longer waited for. Its deletionTimestamp already includes its
// grace period.
inline constexpr absl::Duration kStuckTerminatingAfter = absl::Minutes(1);

// Why a pod is not waited for by the drain, or not evictable. The order of
// the enumerators is the order in which Classify reports the first reason
// that applies.
enum class PodReason {
  kNone = 0,
  // Static/mirror pod (ownerRef apiVersion "v1", kind "Node"): the kubelet
  // owns it and the API server cannot delete it.
  kMirror,
  // Phase Succeeded or Failed.
  kTerminal,
  // Tolerates `karpenter.sh/disrupted:NoSchedule`: it would be scheduled back
  // onto the draining node, so it is left running.
  kToleratesDisruptedTaint,
  // Terminating for more than kStuckTerminatingAfter past its
  // deletionTimestamp.
  kStuckTerminating,
  // Terminating (deletionTimestamp set) but not stuck: already going.
  kTerminating,
  // `karpenter.sh/do-not-disrupt` (or `do-not-evict`) is active.
  kDoNotDisrupt,
};

// Stable CamelCase name, e.g. "StuckTerminating"; "Unknown" for an
// out-of-range value.
absl::string_view PodReasonName(PodReason reason);

// The state of a pod's do-not-disrupt protection.
enum class DoNotDisruptState {
  // No protecting annotation, or only a do-not-disrupt window
  // (do_not_disrupt_window.h) that is not active at the instant.
  kAbsent,
  kActive,  // Protected now (indefinitely if `until` is unset).
  kLapsed,  // A duration that has elapsed: no longer protected.
};

// The do-not-disrupt protection of one pod at one instant.
struct DoNotDisrupt {
  DoNotDisruptState state = DoNotDisruptState::kAbsent;
  // The annotation that decided `state` (kDoNotDisruptAnnotation,
  // kDoNotEvictAnnotation, or the SDK's kDoNotDisruptScheduleAnnotationKey
  // for an active window); empty when kAbsent.
  absl::string_view source;
  // When a duration protection lapses (startTime + duration); set for kLapsed
  // and for a kActive duration with a start time. Unset for "true" and for a
  // duration on a pod without `status.startTime` (active until it starts).
  // For an active window: when it releases (WindowState::until), unset when
  // no end is known.
  std::optional<absl::Time> until;
  // When `source` is the window's schedule key: DoNotDisruptWindow::Describe
  // (`schedule "0 9 * * *", duration 8h`); empty otherwise.
  std::string window;
  // When `karpenter.sh/do-not-disrupt` is present with a value that is not
  // "true" and not a positive Go duration ("false", "0s", "-5m", "invalid"),
  // the annotation is then treated as absent and this is InvalidArgument with
  // a message naming the annotation and quoting the value (for an
  // `InvalidDoNotDisruptAnnotation` warning event). Likewise for invalid
  // window annotations (ParseDoNotDisruptWindow's error; the window is then
  // treated as absent); when both are invalid the messages are joined with
  // "; ". OK otherwise.
  absl::Status invalid;

  bool active() const { return state == DoNotDisruptState::kActive; }
};

// Evaluates the do-not-disrupt annotations of `pod` at `now` (Karpenter
// `IsDoNotDisruptActive`):
//   - `karpenter.sh/do-not-disrupt: "true"`: active, no end;
//   - a positive Go duration D (karpenter/duration.h): active iff
//     `status.startTime` is unset (fail safe) or `now - startTime < D`; at
//     exactly startTime + D it has lapsed;
//   - any other value: treated as absent and reported in `invalid`.
// Precedence with the v1alpha5 `karpenter.sh/do-not-evict: "true"` (other
// values of it are ignored, as v1alpha5 did): the stronger protection wins.
// do-not-evict "true" protects indefinitely, so it decides whenever
// do-not-disrupt is not itself active with no end; `source` names the
// annotation that decided. An invalid do-not-disrupt value is reported even
// when do-not-evict protects the pod.
// SDK extension (issue 26, off unless the annotations are set): a
// do-not-disrupt window (do_not_disrupt_window.h) is a third source. While
// active it protects the pod as "true" does; it decides only when it is
// stronger than what the two annotations above give: they do not protect
// now, or they protect with an end before the window's, or the window has
// no known end while theirs is known. `until` is then the window's end and
// `window` describes it. Evaluated at absl::InfinitePast(), a valid window
// is active (the "may protect" answer precomputations rely on).
// Never fails; bad values are reported in the result.
DoNotDisrupt EvaluateDoNotDisrupt(const v1::Pod& pod, absl::Time now);

// Kubernetes `Toleration.ToleratesTaint`: the effect must be empty or equal;
// the key must be empty (matches every key) or equal; operator "" or "Equal"
// compares values, "Exists" matches any value, any other operator matches
// nothing. (An empty key with operator Equal is rejected by API validation
// but, as in Kubernetes, matches a taint whose value equals its value.)
bool ToleratesTaint(const v1::Toleration& toleration, const v1::Taint& taint);

// Whether some toleration of `pod` tolerates `karpenter.sh/disrupted:
// NoSchedule` with an empty value: key+Exists, key+Equal+"", or the universal
// `operator: Exists` without key, each with effect "" or "NoSchedule". A pod
// tolerating only `node.kubernetes.io/unschedulable` does not qualify.
bool ToleratesDisruptedNoScheduleTaint(const v1::Pod& pod);

// Phase Succeeded or Failed.
bool IsTerminal(const v1::Pod& pod);
// `metadata.deletionTimestamp` is set.
bool IsTerminating(const v1::Pod& pod);
// Terminating and `now - deletionTimestamp > kStuckTerminatingAfter` (strictly:
// at exactly one minute it is not yet stuck).
bool IsStuckTerminating(const v1::Pod& pod, absl::Time now);
// An ownerRef with apiVersion exactly "apps/v1" and kind "DaemonSet".
bool IsOwnedByDaemonSet(const v1::Pod& pod);
// An ownerRef with apiVersion exactly "v1" and kind "Node" (static pod's
// mirror).
bool IsOwnedByNode(const v1::Pod& pod);
// `spec.priorityClassName` is exactly "system-cluster-critical" or
// "system-node-critical"; the numeric priority is not consulted.
bool IsCritical(const v1::Pod& pod);

// Everything the drain needs to know about one pod at one instant.
struct PodClass {
  bool terminal = false;
  bool terminating = false;
  bool stuck_terminating = false;
  bool mirror = false;
  bool daemonset = false;
  bool critical = false;
  bool tolerates_disrupted_taint = false;
  DoNotDisrupt do_not_disrupt;

  // Karpenter IsDrainable: !tolerates && !stuck && !mirror. Terminal,
  // DaemonSet and do-not-disrupt pods can be drainable.
  bool drainable = false;
  // Karpenter IsWaitingEviction: !terminal && drainable. The drain is not
  // complete while such a pod exists (a do-not-disrupt pod blocks it).
  bool waiting = false;
  // Karpenter IsEvictable: active (neither terminal nor terminating) &&
  // !tolerates && !mirror && do-not-disrupt not active.
  bool evictable = false;

  // kNone iff `waiting`; else the first of kMirror, kTerminal,
  // kToleratesDisruptedTaint, kStuckTerminating that applies.
  PodReason not_waiting_reason = PodReason::kNone;
  // kNone iff `evictable`; else the first of kMirror, kTerminal,
  // kTerminating (stuck or not), kToleratesDisruptedTaint, kDoNotDisrupt that
  // applies.
  PodReason not_evictable_reason = PodReason::kNone;
};

// Classifies `pod` at `now` with the predicates above. Never fails: an
// invalid do-not-disrupt value is reported in `do_not_disrupt.invalid`.
PodClass Classify(const v1::Pod& pod, absl::Time now);

}  // namespace karpenter::drain

#endif  // KARPENTER_DRAIN_CLASSIFY_H_
