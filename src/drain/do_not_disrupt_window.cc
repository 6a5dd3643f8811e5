// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/drain/do_not_disrupt_window.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "karpenter/budget/calendar.h"
#include "karpenter/cron.h"
#include "karpenter/duration.h"
#include "karpenter/intstr.h"
#include "karpenter/well_known.h"

namespace karpenter::drain {
namespace {

constexpr absl::string_view kSdk = " (SDK annotation)";

const std::string* Find(const AnnotationMap& annotations,
                        absl::string_view key) {
  auto it = annotations.find(std::string(key));
  return it == annotations.end() ? nullptr : &it->second;
}

// The parts of a window, each with its problem when invalid.
struct Parts {
  const std::string* schedule = nullptr;
  const std::string* duration = nullptr;
  absl::StatusOr<CronSchedule> cron = absl::FailedPreconditionError("unset");
  absl::StatusOr<absl::Duration> parsed =
      absl::FailedPreconditionError("unset");
  std::vector<WindowProblem> problems;
};

Parts Read(const AnnotationMap& annotations) {
  Parts p;
  p.schedule =
      Find(annotations, well_known::kDoNotDisruptScheduleAnnotationKey);
  p.duration =
      Find(annotations, well_known::kDoNotDisruptDurationAnnotationKey);
  if (p.schedule == nullptr && p.duration == nullptr) return p;
  if (p.schedule != nullptr) {
    if (p.duration == nullptr) {
      p.problems.push_back(WindowProblem{
          well_known::kDoNotDisruptScheduleAnnotationKey, *p.schedule,
          absl::StrCat("is set without \"",
                       well_known::kDoNotDisruptDurationAnnotationKey,
                       "\": both or neither", kSdk)});
    }
    p.cron = CronSchedule::Parse(*p.schedule);
    if (!p.cron.ok()) {
      p.problems.push_back(WindowProblem{
          well_known::kDoNotDisruptScheduleAnnotationKey, *p.schedule,
          absl::StrCat("is not a cron schedule: ", p.cron.status().message(),
                       kSdk)});
    }
  }
  if (p.duration != nullptr) {
    if (p.schedule == nullptr) {
      p.problems.push_back(WindowProblem{
          well_known::kDoNotDisruptDurationAnnotationKey, *p.duration,
          absl::StrCat("is set without \"",
                       well_known::kDoNotDisruptScheduleAnnotationKey,
                       "\": both or neither", kSdk)});
    }
    p.parsed = ParseGoDuration(*p.duration);
    if (!p.parsed.ok()) {
      p.problems.push_back(WindowProblem{
          well_known::kDoNotDisruptDurationAnnotationKey, *p.duration,
          absl::StrCat("is not a Go duration: ", p.parsed.status().message(),
                       kSdk)});
    } else if (*p.parsed <= absl::ZeroDuration()) {
      p.problems.push_back(WindowProblem{
          well_known::kDoNotDisruptDurationAnnotationKey, *p.duration,
          absl::StrCat("must be a positive Go duration", kSdk)});
    }
  }
  return p;
}

}  // namespace

std::string DoNotDisruptWindow::Describe() const {
  return absl::StrCat("schedule \"", schedule, "\", duration ", duration_text);
}

std::vector<WindowProblem> DoNotDisruptWindowProblems(
    const AnnotationMap& annotations) {
  return Read(annotations).problems;
}

absl::StatusOr<std::optional<DoNotDisruptWindow>> ParseDoNotDisruptWindow(
    const AnnotationMap& annotations) {
  Parts p = Read(annotations);
  if (!p.problems.empty()) {
    const WindowProblem& first = p.problems.front();
    return absl::InvalidArgumentError(
        absl::StrCat("metadata.annotations[\"", first.key, "\"]: \"",
                     first.value, "\" ", first.problem));
  }
  if (p.schedule == nullptr) return std::nullopt;
  DoNotDisruptWindow w;
  w.schedule = *p.schedule;
  w.duration = *p.parsed;
  w.duration_text = *p.duration;
  budget::Budget b;
  b.nodes_text = "0";
  b.nodes = IntOrPercent::FromInt(0);
  b.schedule = w.schedule;
  b.duration = w.duration;
  b.cron = std::move(p.cron);
  w.budget.budgets.push_back(std::move(b));
  return w;
}

WindowState EvaluateWindow(const DoNotDisruptWindow& window, absl::Time now) {
  WindowState state;
  if (now == absl::InfinitePast()) {
    state.active = true;  // May be active at some instant.
    return state;
  }
  // The budget's schedule parsed, so IsActive cannot fail; fail safe (active)
  // if it ever did.
  absl::StatusOr<bool> active = budget::IsActive(window.budget.budgets[0], now);
  state.active = !active.ok() || *active;
  if (!state.active || !active.ok()) return state;
  // Active, the budget allows 0; it next changes when the window releases.
  const absl::Time end = budget::NextChange(
      window.budget, budget::DisruptionReason::kDrifted, 1, now);
  if (end != absl::InfiniteFuture()) state.until = end;
  return state;
}

}  // namespace karpenter::drain
