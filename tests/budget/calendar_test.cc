// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/budget/calendar.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "karpenter/budget/allowed.h"
#include "karpenter/budget/disruption_spec.h"
#include "karpenter/snapshot/load.h"

namespace karpenter::budget {
namespace {

constexpr DisruptionReason kEmpty = DisruptionReason::kEmpty;
constexpr DisruptionReason kDrifted = DisruptionReason::kDrifted;

absl::Time Utc(int y, int mo, int d, int h, int mi, int s = 0) {
  return absl::FromCivil(absl::CivilSecond(y, mo, d, h, mi, s),
                         absl::UTCTimeZone());
}

std::string Show(absl::Time t) {
  return absl::FormatTime(absl::RFC3339_full, t, absl::UTCTimeZone());
}

// A spec with `budgets` (flow YAML) under a v1 NodePool.
DisruptionSpec Spec(const std::string& budgets) {
  snapshot::ObjectSet set;
  const std::string yaml =
      "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\n"
      "spec:\n  disruption:\n    budgets: " +
      budgets + "\n";
  const absl::Status st = snapshot::LoadYaml(yaml, "test", set);
  INFO(st.ToString());
  REQUIRE(st.ok());
  REQUIRE(set.node_pools.size() == 1);
  absl::StatusOr<DisruptionSpec> spec = ParseDisruptionSpec(set.node_pools[0]);
  INFO(spec.status().ToString());
  REQUIRE(spec.ok());
  return *std::move(spec);
}

// 2024-01-01 is a Monday.
const std::string kWeekdays =
    "[{nodes: '0', schedule: '0 9 * * mon-fri', duration: 8h}]";

struct NextChangeCase {
  std::string name;
  std::string budgets;
  DisruptionReason reason;
  absl::Time now;
  absl::Time want;
};

TEST_CASE("budget calendar: NextChange", "[budget][calendar]") {
  const absl::Time never = absl::InfiniteFuture();
  const std::vector<NextChangeCase> cases = {
      {"before the window opens", kWeekdays, kEmpty, Utc(2024, 1, 1, 8, 0),
       Utc(2024, 1, 1, 9, 0)},
      {"half a second before it opens", kWeekdays, kEmpty,
       Utc(2024, 1, 1, 8, 59, 59) + absl::Milliseconds(500),
       Utc(2024, 1, 1, 9, 0)},
      {"exactly at the hit: it closes at H+d", kWeekdays, kEmpty,
       Utc(2024, 1, 1, 9, 0), Utc(2024, 1, 1, 17, 0)},
      {"inside the window", kWeekdays, kEmpty, Utc(2024, 1, 1, 10, 0),
       Utc(2024, 1, 1, 17, 0)},
      {"last second of the window", kWeekdays, kEmpty,
       Utc(2024, 1, 1, 16, 59, 59), Utc(2024, 1, 1, 17, 0)},
      {"exactly at the end: next opening", kWeekdays, kEmpty,
       Utc(2024, 1, 1, 17, 0), Utc(2024, 1, 2, 9, 0)},
      {"Friday evening: Monday morning", kWeekdays, kEmpty,
       Utc(2024, 1, 5, 18, 0), Utc(2024, 1, 8, 9, 0)},
      {"overlapping windows merge: no change at 13:00",
       "[{nodes: '0', schedule: '0 9 * * *', duration: 4h},"
       " {nodes: '0', schedule: '0 12 * * *', duration: 4h}]",
       kEmpty, Utc(2024, 1, 1, 10, 0), Utc(2024, 1, 1, 16, 0)},
      {"a higher inner window is no change",
       "[{nodes: '2', schedule: '0 9 * * *', duration: 8h},"
       " {nodes: '5', schedule: '0 12 * * *', duration: 2h}]",
       kEmpty, Utc(2024, 1, 1, 10, 0), Utc(2024, 1, 1, 17, 0)},
      {"a lower inner window is a change",
       "[{nodes: '5', schedule: '0 9 * * *', duration: 8h},"
       " {nodes: '2', schedule: '0 12 * * *', duration: 2h}]",
       kEmpty, Utc(2024, 1, 1, 10, 0), Utc(2024, 1, 1, 12, 0)},
      {"another reason's budget never changes the value",
       "[{nodes: '0', schedule: '0 9 * * *', duration: 8h,"
       " reasons: [Drifted]}]",
       kEmpty, Utc(2024, 1, 1, 8, 0), never},
      {"the matching reason sees it",
       "[{nodes: '0', schedule: '0 9 * * *', duration: 8h,"
       " reasons: [Drifted]}]",
       kDrifted, Utc(2024, 1, 1, 8, 0), Utc(2024, 1, 1, 9, 0)},
      {"a bad nodes value of another reason fails closed while active",
       "[{nodes: '99999999999999999999', schedule: '0 9 * * *',"
       " duration: 1h, reasons: [Drifted]}]",
       kEmpty, Utc(2024, 1, 1, 8, 0), Utc(2024, 1, 1, 9, 0)},
      {"bad cron: constant 0",
       "[{nodes: '5', schedule: '0 9 * * *', duration: 1h},"
       " {nodes: '5', schedule: '0 0 * * 7', duration: 1h}]",
       kEmpty, Utc(2024, 1, 1, 8, 0), never},
      {"0 0 31 2 *: always active",
       "[{nodes: '3', schedule: '0 0 31 2 *', duration: 1h}]", kEmpty,
       Utc(2024, 1, 1, 8, 0), never},
      {"no schedule", "[{nodes: '10%'}]", kEmpty, Utc(2024, 1, 1, 8, 0), never},
      {"zero duration is never active",
       "[{nodes: '0', schedule: '0 9 * * *', duration: 0m}]", kEmpty,
       Utc(2024, 1, 1, 8, 0), never},
      {"duration longer than the period: always active",
       "[{nodes: '0', schedule: '@daily', duration: 48h}]", kEmpty,
       Utc(2024, 1, 1, 8, 0), never},
  };
  for (const NextChangeCase& c : cases) {
    const DisruptionSpec spec = Spec(c.budgets);
    const absl::Time got = NextChange(spec, c.reason, 20, c.now);
    INFO(c.name << ": got " << Show(got) << ", want " << Show(c.want));
    CHECK(got == c.want);
    if (got != absl::InfiniteFuture()) {
      // The value really differs at `got` and not just before it.
      CHECK(AllowedDisruptions(spec, c.reason, 20, got) !=
            AllowedDisruptions(spec, c.reason, 20, c.now));
      CHECK(AllowedDisruptions(spec, c.reason, 20, got - absl::Seconds(1)) ==
            AllowedDisruptions(spec, c.reason, 20, c.now));
    }
  }
}

TEST_CASE("budget calendar: NextChange of a bad cron stays 0",
          "[budget][calendar]") {
  const DisruptionSpec spec =
      Spec("[{nodes: '5', schedule: '0 0 * * 7', duration: 1h}]");
  CHECK(AllowedDisruptions(spec, kEmpty, 20, Utc(2024, 1, 1, 8, 0)) == 0);
  CHECK(NextChange(spec, kEmpty, 20, Utc(2024, 1, 1, 8, 0)) ==
        absl::InfiniteFuture());
  CHECK(NextChange(Spec(kWeekdays), kEmpty, 20, absl::InfiniteFuture()) ==
        absl::InfiniteFuture());
}

TEST_CASE("budget calendar: a week of a weekday window", "[budget][calendar]") {
  const DisruptionSpec spec = Spec(
      "[{nodes: '10%'}, {nodes: '0', schedule: '0 9 * * mon-fri',"
      " duration: 8h}]");
  absl::StatusOr<std::vector<TimelineSegment>> got =
      Timeline(spec, kEmpty, 20, Utc(2024, 1, 1, 0, 0), Utc(2024, 1, 8, 0, 0));
  REQUIRE(got.ok());
  std::vector<TimelineSegment> want = {{Utc(2024, 1, 1, 0, 0), 2, 0}};
  for (int day = 1; day <= 5; ++day) {
    want.push_back({Utc(2024, 1, day, 9, 0), 0, 1});
    want.push_back({Utc(2024, 1, day, 17, 0), 2, 0});
  }
  REQUIRE(got->size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    INFO(i << ": " << Show((*got)[i].start));
    CHECK((*got)[i] == want[i]);
  }
}

TEST_CASE("budget calendar: timeline merging and edges", "[budget][calendar]") {
  const absl::Time mon = Utc(2024, 1, 1, 0, 0);
  SECTION("a limiting-budget change is a new segment at the same value") {
    const DisruptionSpec spec = Spec(
        "[{nodes: '2'}, {nodes: '2', schedule: '0 9 * * *', duration: 1h}]");
    absl::StatusOr<std::vector<TimelineSegment>> got =
        Timeline(spec, kEmpty, 20, mon, mon + absl::Hours(24));
    REQUIRE(got.ok());
    // Ties keep the first budget: nothing changes.
    CHECK(*got == std::vector<TimelineSegment>{{mon, 2, 0}});
  }
  SECTION("constant specs give one segment") {
    absl::StatusOr<std::vector<TimelineSegment>> got =
        Timeline(Spec("[{nodes: '5', schedule: '0 0 * * 7', duration: 1h}]"),
                 kEmpty, 20, mon, mon + absl::Hours(24 * 365));
    REQUIRE(got.ok());
    CHECK(*got == std::vector<TimelineSegment>{{mon, 0, 0}});
    got = Timeline(Spec("[]"), kEmpty, 20, mon, mon + absl::Hours(1));
    REQUIRE(got.ok());
    CHECK(*got == std::vector<TimelineSegment>{{mon, kUnlimited, {}}});
  }
  SECTION("an empty interval is an empty timeline") {
    absl::StatusOr<std::vector<TimelineSegment>> got =
        Timeline(Spec(kWeekdays), kEmpty, 20, mon, mon);
    REQUIRE(got.ok());
    CHECK(got->empty());
  }
  SECTION("a change exactly at until is not included") {
    absl::StatusOr<std::vector<TimelineSegment>> got =
        Timeline(Spec(kWeekdays), kEmpty, 20, mon, Utc(2024, 1, 1, 9, 0));
    REQUIRE(got.ok());
    CHECK(*got == std::vector<TimelineSegment>{{mon, kUnlimited, {}}});
  }
}

struct TimelineErrorCase {
  std::string name;
  std::string budgets;
  absl::Time from, until;
  size_t max_segments;
  std::string want;  // Substring of the message.
};

TEST_CASE("budget calendar: timeline limits", "[budget][calendar]") {
  const absl::Time mon = Utc(2024, 1, 1, 0, 0);
  const std::vector<TimelineErrorCase> cases = {
      {"until before from", kWeekdays, mon, mon - absl::Seconds(1), 10,
       "until: \"2023-12-31T23:59:59Z\" is before from"},
      {"infinite until", kWeekdays, mon, absl::InfiniteFuture(), 10,
       "until: \"infinite-future\" must be finite"},
      {"infinite from", kWeekdays, absl::InfinitePast(), mon, 10,
       "from: \"infinite-past\" must be finite"},
      {"too many segments", kWeekdays, mon, mon + absl::Hours(24 * 7), 10,
       "max_segments: more than 10 segments"},
      {"zero max_segments", kWeekdays, mon, mon + absl::Hours(1), 0,
       "max_segments: 0"},
      // Every minute a new window opens inside the last one: always active,
      // but each hit is a candidate.
      {"too many candidates without a change",
       "[{nodes: '0', schedule: '* * * * *', duration: 2h}]", mon,
       mon + absl::Hours(24 * 100), 10,
       "no change within 100000 candidate instants"},
  };
  for (const TimelineErrorCase& c : cases) {
    INFO(c.name);
    absl::StatusOr<std::vector<TimelineSegment>> got =
        Timeline(Spec(c.budgets), kEmpty, 20, c.from, c.until, c.max_segments);
    REQUIRE_FALSE(got.ok());
    INFO(got.status().ToString());
    CHECK(got.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(absl::StrContains(got.status().message(), c.want));
  }
  // Exactly at the bound is fine: a week of weekday windows is 11 segments.
  CHECK(
      Timeline(Spec(kWeekdays), kEmpty, 20, mon, mon + absl::Hours(24 * 7), 11)
          .ok());
}

}  // namespace
}  // namespace karpenter::budget
