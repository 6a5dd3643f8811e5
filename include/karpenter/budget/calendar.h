// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Budget calendar: when the allowed disruptions of a NodePool change, and a
// timeline of the value over an interval, for maintenance-window planning.
//
// Karpenter has no such function; this is derived from `Budget.IsActive` and
// `NodePool.GetAllowedDisruptionsByReason` (karpenter pkg/apis/v1/
// nodepool.go, docs/semantics.md §1.3 and §1.5). A scheduled budget is
// active for now in [H, H + duration) for each cron hit H, at whole-second
// granularity, so its activity can only change at a hit H or at an end
// H + duration. The calendar walks those candidate instants in order over
// every scheduled budget and evaluates `ExplainAllowedDisruptions` at each:
// a boundary hidden by an overlapping window or by a lower budget is not a
// change.
//
// Limits (documented, not silent): the walk examines at most
// `kMaxCalendarSteps` candidate instants per call. A schedule whose
// `CronSchedule::Next` is InfiniteFuture (`0 0 31 2 *`) contributes no
// candidates: such a budget is always active, as in Karpenter.
//
// Thread-safety: all functions are pure.
#ifndef KARPENTER_BUDGET_CALENDAR_H_
#define KARPENTER_BUDGET_CALENDAR_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "karpenter/budget/allowed.h"
#include "karpenter/budget/disruption_spec.h"

namespace karpenter::budget {

// The most candidate instants (cron hits and window ends) one NextChange
// call examines, and Timeline examines per produced segment.
inline constexpr int64_t kMaxCalendarSteps = 100000;

// Default bound on the segments of a Timeline.
inline constexpr size_t kDefaultMaxTimelineSegments = 100000;

// Returns the first instant > `now` at which
// `AllowedDisruptions(spec, reason, num_nodes, t)` differs from its value at
// `now`. Returns absl::InfiniteFuture() when the value never changes: no
// scheduled budget, a budget with a schedule error (the NodePool fails
// closed to a constant 0), schedules that never fire, an infinite `now`, or
// no change found within kMaxCalendarSteps candidate instants (e.g. a
// minutely window masked by a `nodes: "0"` budget that is always active).
absl::Time NextChange(const DisruptionSpec& spec, DisruptionReason reason,
                      int64_t num_nodes, absl::Time now);

// One constant stretch of a Timeline, from `start` to the next segment's
// start (or the timeline's `until`).
struct TimelineSegment {
  absl::Time start;
  int64_t allowed = kUnlimited;
  // As Allowance::limiting_budget.
  std::optional<size_t> limiting_budget;

  friend bool operator==(const TimelineSegment&,
                         const TimelineSegment&) = default;
};

// The allowed disruptions for `reason` over [from, until) as consecutive
// segments: the first starts at `from`, each later one where the allowed
// value or the limiting budget changes (adjacent equal stretches are
// merged). Empty when from == until.
//
// Errors (kInvalidArgument):
//   * `from` or `until` infinite, or `until` before `from` (both quoted);
//   * more than `max_segments` segments would be produced;
//   * more than kMaxCalendarSteps candidate instants without a new segment.
absl::StatusOr<std::vector<TimelineSegment>> Timeline(
    const DisruptionSpec& spec, DisruptionReason reason, int64_t num_nodes,
    absl::Time from, absl::Time until,
    size_t max_segments = kDefaultMaxTimelineSegments);

}  // namespace karpenter::budget

#endif  // KARPENTER_BUDGET_CALENDAR_H_
