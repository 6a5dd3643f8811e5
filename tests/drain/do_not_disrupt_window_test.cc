// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Do-not-disrupt windows (SDK extension, issue 26) at the drain level:
// window activity (the budget window rule), invalid annotations, the
// precedence with karpenter.sh/do-not-disrupt and do-not-evict, and the
// drain's classification.

#include "karpenter/drain/do_not_disrupt_window.h"

#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "karpenter/drain/classify.h"
#include "karpenter/testing/builders.h"
#include "karpenter/time_util.h"
#include "karpenter/well_known.h"
#include "window_test_util.h"

// The tables use designated initializers and omit the fields they do not
// need; GCC 12 warns about every omitted member even though each has a
// default.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace karpenter::drain {
namespace {

using PodOpts = testing::PodOptions;
constexpr absl::Time kT0 = testing::kTestEpoch;  // 2024-01-01, a Monday.

using window_test::At;
using window_test::kDuration;
using window_test::kSchedule;
using window_test::Window;

TEST_CASE("do-not-disrupt window: activity is the budget window",
          "[disruption][dnd-window]") {
  struct Case {
    std::string schedule;
    std::string duration;
    std::string now;
    bool active;
    std::optional<std::string> until;
  };
  const std::vector<Case> cases = {
      // [09:00, 17:00) every day, UTC.
      {"0 9 * * *", "8h", "2024-01-01T08:59:59Z", false, std::nullopt},
      {"0 9 * * *", "8h", "2024-01-01T09:00:00Z", true, "2024-01-01T17:00:00Z"},
      {"0 9 * * *", "8h", "2024-01-01T12:30:00Z", true, "2024-01-01T17:00:00Z"},
      {"0 9 * * *", "8h", "2024-01-01T16:59:59Z", true, "2024-01-01T17:00:00Z"},
      // At exactly hit + duration the window is over.
      {"0 9 * * *", "8h", "2024-01-01T17:00:00Z", false, std::nullopt},
      // Whole-second granularity, as budgets: 16:59:59.5 is still inside.
      {"0 9 * * *", "8h", "2024-01-01T16:59:59.5Z", true,
       "2024-01-01T17:00:00Z"},
      // Weekdays only: Saturday 2024-01-06 is outside.
      {"0 9 * * 1-5", "8h", "2024-01-06T10:00:00Z", false, std::nullopt},
      {"0 9 * * 1-5", "8h", "2024-01-05T10:00:00Z", true,
       "2024-01-05T17:00:00Z"},
      // A time zone (EST in January, UTC-5): 09:00 New York is 14:00Z.
      {"CRON_TZ=America/New_York 0 9 * * *", "1h", "2024-01-01T09:30:00Z",
       false, std::nullopt},
      {"CRON_TZ=America/New_York 0 9 * * *", "1h", "2024-01-01T14:00:00Z", true,
       "2024-01-01T15:00:00Z"},
      {"TZ=Asia/Tokyo 0 0 * * *", "30m", "2023-12-31T15:10:00Z", true,
       "2023-12-31T15:30:00Z"},
      // Descriptors.
      {"@daily", "2h", "2024-01-01T00:00:00Z", true, "2024-01-01T02:00:00Z"},
      {"@daily", "2h", "2024-01-01T02:00:00Z", false, std::nullopt},
      {"@every 1h", "10m", "2024-01-01T00:05:00Z", false, std::nullopt},
      // Overlapping hits extend the window: 00:00 and 01:00 for 90m each.
      {"0 0,1 * * *", "90m", "2024-01-01T00:30:00Z", true,
       "2024-01-01T02:30:00Z"},
      // Any positive Go duration, not only hours and minutes.
      {"0 9 * * *", "90s", "2024-01-01T09:01:29Z", true,
       "2024-01-01T09:01:30Z"},
      // A schedule that never fires is always active, as such a budget is.
      {"0 0 31 2 *", "1h", "2024-01-01T12:00:00Z", true, std::nullopt},
  };
  for (const Case& c : cases) {
    INFO(c.schedule << " for " << c.duration << " at " << c.now);
    PodOpts o;
    o.annotations = Window(c.schedule, c.duration);
    const v1::Pod pod = testing::MakePod(o);
    absl::StatusOr<std::optional<DoNotDisruptWindow>> w =
        ParseDoNotDisruptWindow(pod.metadata().annotations());
    REQUIRE(w.ok());
    REQUIRE(w->has_value());
    const WindowState s = EvaluateWindow(**w, At(c.now));
    CHECK(s.active == c.active);
    CHECK(s.until.has_value() == c.until.has_value());
    if (c.until.has_value() && s.until.has_value()) {
      CHECK(FormatRfc3339(*s.until) == *c.until);
    }
    // The pod-level evaluation agrees and names the schedule annotation.
    const DoNotDisrupt dnd = EvaluateDoNotDisrupt(pod, At(c.now));
    CHECK(dnd.active() == c.active);
    CHECK(dnd.invalid.ok());
    CHECK(dnd.source == (c.active ? kSchedule : ""));
    CHECK(dnd.until == s.until);
    if (c.active) CHECK(dnd.window == (*w)->Describe());
    // The drain honours it as it honours karpenter.sh/do-not-disrupt.
    const PodClass cls = Classify(pod, At(c.now));
    CHECK(cls.waiting);
    CHECK(cls.evictable == !c.active);
    CHECK(cls.not_evictable_reason ==
          (c.active ? PodReason::kDoNotDisrupt : PodReason::kNone));
  }
}

TEST_CASE("do-not-disrupt window: the infinite past may be inside",
          "[disruption][dnd-window]") {
  PodOpts o;
  o.annotations = Window("0 9 * * *", "1h");
  const DoNotDisrupt dnd =
      EvaluateDoNotDisrupt(testing::MakePod(o), absl::InfinitePast());
  CHECK(dnd.active());
  CHECK_FALSE(dnd.until.has_value());
}

TEST_CASE("do-not-disrupt window: invalid annotations are named and ignored",
          "[disruption][dnd-window]") {
  struct Case {
    std::optional<std::string> schedule;
    std::optional<std::string> duration;
    // Problems in order: the key and a part of the problem.
    std::vector<std::pair<std::string, std::string>> problems;
  };
  const std::vector<Case> cases = {
      {std::nullopt, std::nullopt, {}},
      {"0 9 * * *",
       std::nullopt,
       {{kSchedule, "is set without \"" + kDuration + "\""}}},
      {std::nullopt,
       "8h",
       {{kDuration, "is set without \"" + kSchedule + "\""}}},
      {"61 9 * * *", "8h", {{kSchedule, "is not a cron schedule: minute: "}}},
      {"0 9 * *", "8h", {{kSchedule, "expected exactly 5 fields"}}},
      {"@DAILY", "8h", {{kSchedule, "unrecognized descriptor"}}},
      {"", "8h", {{kSchedule, "empty spec string"}}},
      {"CRON_TZ=Mars/Olympus 0 9 * * *",
       "8h",
       {{kSchedule, "provided bad location"}}},
      {"0 9 * * *", "8x", {{kDuration, "is not a Go duration: "}}},
      {"0 9 * * *", "1d", {{kDuration, "is not a Go duration: "}}},
      {"0 9 * * *", "0s", {{kDuration, "must be a positive Go duration"}}},
      {"0 9 * * *", "-1h", {{kDuration, "must be a positive Go duration"}}},
      {"bad",
       "bad",
       {{kSchedule, "is not a cron schedule"},
        {kDuration, "is not a Go duration"}}},
  };
  for (const Case& c : cases) {
    INFO(c.schedule.value_or("<absent>")
         << " / " << c.duration.value_or("<absent>"));
    PodOpts o;
    if (c.schedule) o.annotations[kSchedule] = *c.schedule;
    if (c.duration) o.annotations[kDuration] = *c.duration;
    const v1::Pod pod = testing::MakePod(o);
    const std::vector<WindowProblem> problems =
        DoNotDisruptWindowProblems(pod.metadata().annotations());
    REQUIRE(problems.size() == c.problems.size());
    for (size_t i = 0; i < problems.size(); ++i) {
      CHECK(std::string(problems[i].key) == c.problems[i].first);
      CHECK_THAT(problems[i].problem, Catch::Contains(c.problems[i].second) &&
                                          Catch::EndsWith("(SDK annotation)"));
    }
    // Treated as absent at any instant, the first problem reported.
    for (const absl::Time now :
         {At("2024-01-01T09:30:00Z"), At("2024-01-01T20:00:00Z")}) {
      const DoNotDisrupt dnd = EvaluateDoNotDisrupt(pod, now);
      CHECK(dnd.state == DoNotDisruptState::kAbsent);
      CHECK(dnd.invalid.ok() == c.problems.empty());
      CHECK(Classify(pod, now).evictable);
    }
    if (!c.problems.empty()) {
      const DoNotDisrupt dnd =
          EvaluateDoNotDisrupt(pod, At("2024-01-01T09:30:00Z"));
      const std::string& key = c.problems[0].first;
      const std::string value = key == kSchedule ? *c.schedule : *c.duration;
      CHECK_THAT(std::string(dnd.invalid.message()),
                 Catch::StartsWith(absl::StrCat("metadata.annotations[\"", key,
                                                "\"]: \"", value, "\" ")));
    }
  }
}

TEST_CASE("do-not-disrupt window: precedence with karpenter.sh annotations",
          "[disruption][dnd-window]") {
  struct Case {
    std::string name;
    testing::Labels extra;
    std::string now;
    std::string source;
    std::optional<std::string> until;
  };
  const std::string dnd(well_known::kDoNotDisruptAnnotationKey);
  const std::string dne(well_known::kDoNotEvictPodAnnotationKey);
  // The pod starts at 2024-01-01T09:00:00Z; its window is [09:00, 17:00).
  const std::vector<Case> cases = {
      {"true is indefinite and wins",
       {{dnd, "true"}},
       "2024-01-01T10:00:00Z",
       dnd,
       std::nullopt},
      {"do-not-evict true is indefinite and wins",
       {{dne, "true"}},
       "2024-01-01T10:00:00Z",
       dne,
       std::nullopt},
      {"a shorter duration gives way to the window",
       {{dnd, "2h"}},
       "2024-01-01T10:00:00Z",
       kSchedule,
       "2024-01-01T17:00:00Z"},
      {"a longer duration keeps the pod",
       {{dnd, "10h"}},
       "2024-01-01T10:00:00Z",
       dnd,
       "2024-01-01T19:00:00Z"},
      {"a lapsed duration gives way to the window",
       {{dnd, "30m"}},
       "2024-01-01T10:00:00Z",
       kSchedule,
       "2024-01-01T17:00:00Z"},
      {"outside the window the duration decides",
       {{dnd, "10h"}},
       "2024-01-01T18:00:00Z",
       dnd,
       "2024-01-01T19:00:00Z"},
      {"outside the window nothing protects",
       {},
       "2024-01-01T18:00:00Z",
       "",
       std::nullopt},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    PodOpts o;
    o.started = At("2024-01-01T09:00:00Z");
    o.annotations = Window("0 9 * * *", "8h");
    for (const auto& [k, v] : c.extra) o.annotations[k] = v;
    const DoNotDisrupt d = EvaluateDoNotDisrupt(testing::MakePod(o), At(c.now));
    CHECK(std::string(d.source) == c.source);
    CHECK(d.active() == !c.source.empty());
    REQUIRE(d.until.has_value() == c.until.has_value());
    if (c.until) CHECK(FormatRfc3339(*d.until) == *c.until);
    CHECK(d.invalid.ok());
  }
  // Both invalid: both reported, joined.
  PodOpts o;
  o.annotations = Window("0 9 * * *", "never");
  o.annotations[dnd] = "soon";
  const DoNotDisrupt d = EvaluateDoNotDisrupt(testing::MakePod(o), kT0);
  CHECK_THAT(std::string(d.invalid.message()),
             Catch::Contains("\"soon\"") && Catch::Contains("; ") &&
                 Catch::Contains("\"never\""));
}

}  // namespace
}  // namespace karpenter::drain
