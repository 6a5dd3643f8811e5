// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/budget/calendar.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "karpenter/time_util.h"

namespace karpenter::budget {
namespace {

// The scheduled budgets whose activity can move the value for one reason.
class CandidateSource {
 public:
  CandidateSource(const DisruptionSpec& spec, DisruptionReason reason) {
    for (const Budget& b : spec.budgets) {
      if (!b.schedule.has_value() || !b.duration.has_value()) continue;
      if (!b.cron.ok()) {
        // IsActive fails at every instant: the NodePool is a constant 0.
        constant_ = true;
        continue;
      }
      if (*b.duration <= absl::ZeroDuration()) continue;  // Never active.
      // A budget for other reasons still matters when its nodes value is
      // bad: while active it fails the whole NodePool closed.
      if (!b.Matches(reason) && b.nodes.ok()) continue;
      budgets_.push_back(&b);
    }
  }

  // True when the value cannot change at all.
  bool constant() const { return constant_ || budgets_.empty(); }

  // The earliest instant > t at which some budget's activity may change:
  // one of its hits H > t, or the end H + d of the earliest hit H in
  // (t - d, t] (later hits in that range end later). InfiniteFuture if none.
  absl::Time Next(absl::Time t) const {
    absl::Time best = absl::InfiniteFuture();
    for (const Budget* b : budgets_) {
      best = std::min(best, b->cron->Next(t));
      const absl::Time h = b->cron->Next(t - *b->duration);
      if (h != absl::InfiniteFuture() && h <= t) {
        best = std::min(best, h + *b->duration);
      }
    }
    return best;
  }

 private:
  bool constant_ = false;
  std::vector<const Budget*> budgets_;
};

struct Change {
  absl::Time at;
  Allowance value;
};

// The first candidate in (t, until) whose allowance differs from `current`
// (in `allowed`, and in `limiting_budget` when `with_limiting`); nullopt if
// there is none. ResourceExhausted after kMaxCalendarSteps candidates.
absl::StatusOr<std::optional<Change>> FindChange(
    const DisruptionSpec& spec, DisruptionReason reason, int64_t num_nodes,
    const CandidateSource& source, absl::Time t, const Allowance& current,
    bool with_limiting, absl::Time until) {
  for (int64_t step = 0; step < kMaxCalendarSteps; ++step) {
    const absl::Time c = source.Next(t);
    if (c >= until) return std::nullopt;
    Allowance a = ExplainAllowedDisruptions(spec, reason, num_nodes, c);
    if (a.allowed != current.allowed ||
        (with_limiting && a.limiting_budget != current.limiting_budget)) {
      return Change{c, std::move(a)};
    }
    t = c;
  }
  return absl::ResourceExhaustedError(
      absl::StrCat("no change within ", kMaxCalendarSteps,
                   " candidate instants after ", FormatRfc3339(t)));
}

std::string Quote(absl::Time t) {
  return absl::StrCat("\"", FormatRfc3339(t), "\"");
}

}  // namespace

absl::Time NextChange(const DisruptionSpec& spec, DisruptionReason reason,
                      int64_t num_nodes, absl::Time now) {
  const CandidateSource source(spec, reason);
  if (source.constant() || now == absl::InfiniteFuture() ||
      now == absl::InfinitePast()) {
    return absl::InfiniteFuture();
  }
  const Allowance current =
      ExplainAllowedDisruptions(spec, reason, num_nodes, now);
  absl::StatusOr<std::optional<Change>> change =
      FindChange(spec, reason, num_nodes, source, now, current,
                 /*with_limiting=*/false, absl::InfiniteFuture());
  if (!change.ok() || !change->has_value()) return absl::InfiniteFuture();
  return (*change)->at;
}

absl::StatusOr<std::vector<TimelineSegment>> Timeline(
    const DisruptionSpec& spec, DisruptionReason reason, int64_t num_nodes,
    absl::Time from, absl::Time until, size_t max_segments) {
  if (from == absl::InfinitePast() || from == absl::InfiniteFuture()) {
    return absl::InvalidArgumentError(
        absl::StrCat("from: ", Quote(from), " must be finite"));
  }
  if (until == absl::InfinitePast() || until == absl::InfiniteFuture()) {
    return absl::InvalidArgumentError(
        absl::StrCat("until: ", Quote(until), " must be finite"));
  }
  if (until < from) {
    return absl::InvalidArgumentError(
        absl::StrCat("until: ", Quote(until), " is before from ", Quote(from)));
  }
  std::vector<TimelineSegment> out;
  if (from == until) return out;
  if (max_segments == 0) {
    return absl::InvalidArgumentError(
        "max_segments: 0 cannot hold a non-empty timeline");
  }
  const CandidateSource source(spec, reason);
  Allowance current = ExplainAllowedDisruptions(spec, reason, num_nodes, from);
  out.push_back({from, current.allowed, current.limiting_budget});
  if (source.constant()) return out;
  absl::Time t = from;
  while (true) {
    absl::StatusOr<std::optional<Change>> change =
        FindChange(spec, reason, num_nodes, source, t, current,
                   /*with_limiting=*/true, until);
    if (!change.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "until: ", Quote(until), ": ", change.status().message()));
    }
    if (!change->has_value()) return out;
    if (out.size() == max_segments) {
      return absl::InvalidArgumentError(
          absl::StrCat("max_segments: more than ", max_segments,
                       " segments in [", Quote(from), ", ", Quote(until), ")"));
    }
    t = (*change)->at;
    current = std::move((*change)->value);
    out.push_back({t, current.allowed, current.limiting_budget});
  }
}

}  // namespace karpenter::budget
