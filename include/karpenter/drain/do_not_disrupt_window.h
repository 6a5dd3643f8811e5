// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Do-not-disrupt windows: an SDK extension (issue 26, answering
// kubernetes-sigs/karpenter#1719), not a Karpenter rule. A Pod or a Node
// carrying both
//   disruption.karpenter-sdk.dev/do-not-disrupt-schedule: "<cron>"
//   disruption.karpenter-sdk.dev/do-not-disrupt-duration: "<Go duration>"
// blocks voluntary disruption while its window is active, as
// `karpenter.sh/do-not-disrupt: "true"` does on the same object
// (docs/semantics.md §11.4). Without the annotations nothing changes: the
// SDK decides as Karpenter does.
//
// The schedule is the NodePool budget dialect (karpenter/cron.h: robfig/cron
// standard fields and descriptors) with the SDK's time-zone support always
// on: a `TZ=<zone> `/`CRON_TZ=<zone> ` prefix selects the zone, no prefix
// means UTC. The duration is any positive Go duration (karpenter/duration.h).
// The window is a budget window: activity is decided by budget::IsActive
// (Karpenter `Budget.IsActive`: active for now in [hit, hit + duration) at
// whole-second granularity) on an equivalent budget, and the instant it
// releases by budget::NextChange on that budget (so overlapping hits extend
// the window). No second window implementation exists here.
//
// Thread-safety: all functions are pure; a DoNotDisruptWindow is an
// immutable value after parsing and may be shared between threads.
#ifndef KARPENTER_DRAIN_DO_NOT_DISRUPT_WINDOW_H_
#define KARPENTER_DRAIN_DO_NOT_DISRUPT_WINDOW_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "google/protobuf/map.h"
#include "karpenter/budget/disruption_spec.h"

namespace karpenter::drain {

using AnnotationMap = google::protobuf::Map<std::string, std::string>;

// One problem of the window annotations of one object.
struct WindowProblem {
  // The annotation the problem is reported on (the schedule or the duration
  // key of well_known.h).
  absl::string_view key;
  // Its value as written.
  std::string value;
  // What is wrong, ending in "(SDK annotation)", e.g. `must be a positive
  // Go duration (SDK annotation)`.
  std::string problem;
};

// A valid window, as parsed from an object's annotations.
struct DoNotDisruptWindow {
  std::string schedule;                            // As written.
  std::string duration_text;                       // As written.
  absl::Duration duration = absl::ZeroDuration();  // Positive.
  budget::DisruptionSpec budget;  // One budget {nodes: 0, schedule, duration}.

  // `schedule "<schedule>", duration <duration as written>` for messages,
  // e.g. `schedule "0 9 * * 1-5", duration 8h`.
  std::string Describe() const;
};

// Every problem of the window annotations in `annotations`, schedule first:
//   - one annotation without the other (reported on the present one);
//   - a schedule CronSchedule::Parse rejects (its message is quoted);
//   - a duration ParseGoDuration rejects, or one that is not positive.
// Empty when both are absent or both are valid.
std::vector<WindowProblem> DoNotDisruptWindowProblems(
    const AnnotationMap& annotations);

// The window of `annotations`: nullopt when neither annotation is present.
// Errors: InvalidArgument for the first of DoNotDisruptWindowProblems, as
// `metadata.annotations["<key>"]: "<value>" <problem>`.
absl::StatusOr<std::optional<DoNotDisruptWindow>> ParseDoNotDisruptWindow(
    const AnnotationMap& annotations);

// The window at one instant.
struct WindowState {
  bool active = false;
  // While active: the first instant after `now` at which it is no longer
  // active (its hit + duration, later when further hits overlap). Unset
  // when no end is found: a schedule that never fires (always active, as a
  // budget is; `karpenter validate` does not flag it), more than
  // budget::kMaxCalendarSteps overlapping hits, or `now` infinite.
  std::optional<absl::Time> until;
};

// Evaluates `window` at `now` with budget::IsActive and budget::NextChange.
// At absl::InfinitePast() a window is reported active with no end: callers
// that precompute "may protect at some instant" (snapshot facts, the
// scheduler's shape flags) evaluate there, and re-evaluate at the pass's
// instant.
WindowState EvaluateWindow(const DoNotDisruptWindow& window, absl::Time now);

}  // namespace karpenter::drain

#endif  // KARPENTER_DRAIN_DO_NOT_DISRUPT_WINDOW_H_
