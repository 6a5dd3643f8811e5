// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/budget/disruption_spec.h"

#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "karpenter/snapshot/load.h"

namespace karpenter::budget {
namespace {

v1::NodePool PoolFromYaml(const std::string& yaml) {
  snapshot::ObjectSet set;
  const absl::Status st = snapshot::LoadYaml(yaml, "test", set);
  INFO(st.ToString());
  REQUIRE(st.ok());
  REQUIRE(set.node_pools.size() == 1);
  return set.node_pools[0];
}

// A v1 NodePool with `disruption` (YAML, indented 4) under spec.
v1::NodePool Pool(const std::string& disruption) {
  return PoolFromYaml(
      absl::StrCat("apiVersion: karpenter.sh/v1\nkind: NodePool\n"
                   "metadata: {name: p}\nspec:\n  disruption:\n",
                   disruption));
}

// A v1 NodePool with a single budget given in flow style.
v1::NodePool OneBudget(const std::string& budget) {
  return Pool(absl::StrCat("    budgets: [", budget, "]\n"));
}

absl::Time Utc(int y, int mo, int d, int h, int mi, int s = 0) {
  return absl::FromCivil(absl::CivilSecond(y, mo, d, h, mi, s),
                         absl::UTCTimeZone());
}

TEST_CASE("budget spec: defaults when fields are absent", "[budget]") {
  const absl::StatusOr<DisruptionSpec> spec = ParseDisruptionSpec(
      Pool("    consolidationPolicy: WhenEmptyOrUnderutilized\n"));
  REQUIRE(spec.ok());
  CHECK(spec->consolidation_policy ==
        ConsolidationPolicy::kWhenEmptyOrUnderutilized);
  CHECK(spec->consolidate_after == absl::ZeroDuration());
  CHECK(spec->expire_after == absl::Hours(720));
  CHECK(spec->budgets_defaulted);
  REQUIRE(spec->budgets.size() == 1);
  CHECK(spec->budgets[0].nodes_text == "10%");
  CHECK(spec->budgets[0].nodes->is_percent());
  CHECK(spec->budgets[0].nodes->value() == 10);
  CHECK_FALSE(spec->budgets[0].reasons.has_value());
}

TEST_CASE("budget spec: explicit empty budgets stay empty", "[budget]") {
  const absl::StatusOr<DisruptionSpec> spec =
      ParseDisruptionSpec(Pool("    budgets: []\n"));
  REQUIRE(spec.ok());
  CHECK(spec->budgets.empty());
  CHECK_FALSE(spec->budgets_defaulted);
}

TEST_CASE("budget spec: policies, Never and expireAfter spellings",
          "[budget]") {
  SECTION("v1 expireAfter on the template") {
    const absl::StatusOr<DisruptionSpec> spec = ParseDisruptionSpec(
        PoolFromYaml("apiVersion: karpenter.sh/v1\nkind: NodePool\n"
                     "metadata: {name: p}\nspec:\n"
                     "  template: {spec: {expireAfter: Never}}\n"
                     "  disruption: {consolidationPolicy: WhenEmpty,"
                     " consolidateAfter: 1h30m}\n"));
    REQUIRE(spec.ok());
    CHECK(spec->consolidation_policy == ConsolidationPolicy::kWhenEmpty);
    CHECK(spec->consolidate_after == absl::Minutes(90));
    CHECK_FALSE(spec->expire_after.has_value());
  }
  SECTION("v1beta1 spellings") {
    const absl::StatusOr<DisruptionSpec> spec = ParseDisruptionSpec(
        PoolFromYaml("apiVersion: karpenter.sh/v1beta1\nkind: NodePool\n"
                     "metadata: {name: p}\nspec:\n"
                     "  disruption: {consolidationPolicy: WhenUnderutilized,"
                     " consolidateAfter: Never, expireAfter: 24h}\n"));
    REQUIRE(spec.ok());
    CHECK(spec->consolidation_policy ==
          ConsolidationPolicy::kWhenEmptyOrUnderutilized);
    CHECK_FALSE(spec->consolidate_after.has_value());
    CHECK(spec->expire_after == absl::Hours(24));
  }
  SECTION("Balanced is accepted") {
    const absl::StatusOr<DisruptionSpec> spec =
        ParseDisruptionSpec(Pool("    consolidationPolicy: Balanced\n"));
    REQUIRE(spec.ok());
    CHECK(spec->consolidation_policy == ConsolidationPolicy::kBalanced);
  }
}

TEST_CASE("budget spec: CRD patterns accept what Karpenter accepts",
          "[budget]") {
  const char* const budgets[] = {
      "{nodes: '0'}",
      "{nodes: '100000'}",
      "{nodes: '0%'}",
      "{nodes: '05%'}",
      "{nodes: '100%'}",
      "{nodes: '1', schedule: '@daily', duration: 1h}",
      "{nodes: '1', schedule: '@dailyX', duration: 30m}",
      "{nodes: '1', schedule: '0 9 * * mon-fri', duration: 2h20m}",
      "{nodes: '1', schedule: '* * * * * *', duration: 1h0m0s}",
      "{nodes: '1', schedule: 'CRON_TZ=UTC 0 9 * * *', duration: 20m0s}",
      "{nodes: '1', schedule: '0 9 * * *', duration: 0m}",
      "{nodes: '1', schedule: \"0\\t9\\n* * *\", duration: 1h}",
      "{nodes: '1', schedule: \"x\\n0 9 * * *\", duration: 1h}",
      "{nodes: '1', reasons: [Drifted, Empty, Underutilized]}",
  };
  for (const char* b : budgets) {
    INFO(b);
    const std::vector<std::string> errors = DisruptionSpecErrors(OneBudget(b));
    INFO((errors.empty() ? "" : errors[0]));
    CHECK(errors.empty());
  }
}

struct ErrorCase {
  std::string disruption;
  std::vector<std::string> errors;
};

TEST_CASE("budget spec: every error names its path and value", "[budget]") {
  const ErrorCase cases[] = {
      {"    budgets: [{nodes: '-10'}]\n",
       {"spec.disruption.budgets[0].nodes: \"-10\" must be a non-negative "
        "integer or a percentage from 0% to 100%"}},
      {"    budgets: [{nodes: '101%'}, {nodes: '1000%'}, {nodes: '1.5'}]\n",
       {"spec.disruption.budgets[0].nodes: \"101%\" must be a non-negative "
        "integer or a percentage from 0% to 100%",
        "spec.disruption.budgets[1].nodes: \"1000%\" must be a non-negative "
        "integer or a percentage from 0% to 100%",
        "spec.disruption.budgets[2].nodes: \"1.5\" must be a non-negative "
        "integer or a percentage from 0% to 100%"}},
      {"    budgets: [{nodes: '1', schedule: '@daily', duration: 1h},"
       " {nodes: '1'}, {nodes: '1', schedule: '@daily', duration: 30s}]\n",
       {"spec.disruption.budgets[2].duration: \"30s\" must be hours and "
        "minutes (e.g. 1h30m)"}},
      {"    budgets: [{nodes: '1', schedule: '@daily', duration: 1h30m15s},"
       " {nodes: '1', schedule: '@daily', duration: '-20m0s'},"
       " {nodes: '1', schedule: '@daily', duration: 1d}]\n",
       {"spec.disruption.budgets[0].duration: \"1h30m15s\" must be hours and "
        "minutes (e.g. 1h30m)",
        "spec.disruption.budgets[1].duration: \"-20m0s\" must be hours and "
        "minutes (e.g. 1h30m)",
        "spec.disruption.budgets[2].duration: \"1d\" must be hours and "
        "minutes (e.g. 1h30m)"}},
      {"    budgets: [{nodes: '1', schedule: '@daily'},"
       " {nodes: '1', duration: 1h}]\n",
       {"spec.disruption.budgets[0]: 'schedule' must be set with 'duration'",
        "spec.disruption.budgets[1]: 'schedule' must be set with "
        "'duration'"}},
      {"    budgets: [{nodes: '1', schedule: '*', duration: 1h},"
       " {nodes: '1', schedule: '* * * * ', duration: 1h},"
       " {nodes: '1', schedule: '@every 1h', duration: 1h},"
       " {nodes: '1', schedule: \"0 9 * *\\n\\n*\", duration: 1h}]\n",
       {"spec.disruption.budgets[0].schedule: \"*\" must be a 5-field cron "
        "expression or one of @yearly, @annually, @monthly, @weekly, @daily, "
        "@midnight, @hourly",
        "spec.disruption.budgets[1].schedule: \"* * * * \" must be a 5-field "
        "cron expression or one of @yearly, @annually, @monthly, @weekly, "
        "@daily, @midnight, @hourly",
        "spec.disruption.budgets[2].schedule: \"@every 1h\" must be a "
        "5-field cron expression or one of @yearly, @annually, @monthly, "
        "@weekly, @daily, @midnight, @hourly",
        "spec.disruption.budgets[3].schedule: \"0 9 * *\\n\\n*\" must be a "
        "5-field cron expression or one of @yearly, @annually, @monthly, "
        "@weekly, @daily, @midnight, @hourly"}},
      {"    budgets: [{nodes: '1', reasons: [expired, Empty, Empty]}]\n",
       {"spec.disruption.budgets[0].reasons[0]: \"expired\" must be one of "
        "Underutilized, Empty, Drifted",
        "spec.disruption.budgets[0].reasons[2]: duplicate value \"Empty\""}},
      {"    consolidationPolicy: WhenIdle\n"
       "    consolidateAfter: 1.5h\n"
       "    expireAfter: 1d\n",
       {"spec.disruption.consolidationPolicy: \"WhenIdle\" must be one of "
        "WhenEmpty, WhenEmptyOrUnderutilized, Balanced or (v1beta1) "
        "WhenUnderutilized",
        "spec.disruption.consolidateAfter: \"1.5h\" must be a duration in "
        "hours, minutes and seconds (e.g. 1h30m) or Never",
        "spec.disruption.expireAfter: \"1d\" must be a duration in hours, "
        "minutes and seconds (e.g. 1h30m) or Never"}},
  };
  for (const ErrorCase& c : cases) {
    INFO(c.disruption);
    const v1::NodePool np = Pool(c.disruption);
    CHECK(DisruptionSpecErrors(np) == c.errors);
    const absl::StatusOr<DisruptionSpec> spec = ParseDisruptionSpec(np);
    REQUIRE_FALSE(spec.ok());
    CHECK(spec.status().code() == absl::StatusCode::kInvalidArgument);
    for (const std::string& e : c.errors) {
      CHECK(spec.status().message().find(e) != absl::string_view::npos);
    }
  }
}

TEST_CASE("budget spec: more than 50 budgets is an error", "[budget]") {
  std::string list;
  for (int i = 0; i < 51; ++i) absl::StrAppend(&list, i ? ", " : "", "{}");
  const std::vector<std::string> errors =
      DisruptionSpecErrors(Pool(absl::StrCat("    budgets: [", list, "]\n")));
  REQUIRE_FALSE(errors.empty());
  CHECK(errors[0] ==
        "spec.disruption.budgets: must have at most 50 items, got 51");
}

TEST_CASE("budget spec: runtime cron errors are kept on the budget",
          "[budget]") {
  // Passes the CRD's loose schedule regex but not the cron parser.
  for (const char* sched :
       {"0 0 * * 7", "* * * * * *", "CRON_TZ=America/New_York 0 9 * * *",
        "@hourly foo"}) {
    INFO(sched);
    const absl::StatusOr<DisruptionSpec> spec = ParseDisruptionSpec(OneBudget(
        absl::StrCat("{nodes: '1', schedule: '", sched, "', duration: 1h}")));
    REQUIRE(spec.ok());
    CHECK_FALSE(spec->budgets[0].cron.ok());
    const absl::StatusOr<bool> active =
        IsActive(spec->budgets[0], Utc(2024, 1, 2, 10, 0));
    REQUIRE_FALSE(active.ok());
    CHECK(absl::StartsWith(active.status().message(), "schedule: "));
  }
}

struct ActiveCase {
  std::string schedule;
  std::string duration;
  absl::Time now;
  bool active;
};

TEST_CASE("budget spec: IsActive is true from a hit until hit plus duration",
          "[budget]") {
  // 2024-01-02 is a Tuesday.
  const ActiveCase cases[] = {
      {"0 9 * * mon-fri", "8h", Utc(2024, 1, 2, 10, 0), true},
      {"0 9 * * mon-fri", "8h", Utc(2024, 1, 2, 9, 0), true},
      {"0 9 * * mon-fri", "8h", Utc(2024, 1, 2, 8, 59, 59), false},
      {"0 9 * * mon-fri", "8h", Utc(2024, 1, 2, 16, 59, 59), true},
      {"0 9 * * mon-fri", "8h", Utc(2024, 1, 2, 17, 0), false},
      {"0 9 * * mon-fri", "8h", Utc(2024, 1, 6, 10, 0), false},  // Saturday
      {"@daily", "48h", Utc(2024, 1, 2, 10, 0), true},  // Longer than period.
      {"0 0 31 2 *", "1h", Utc(2024, 1, 2, 10, 0), true},  // Never fires.
      {"0 0 31 2 *", "0m", Utc(2024, 7, 2, 10, 0), true},
      {"0 9 * * *", "0m", Utc(2024, 1, 2, 9, 0), false},  // Zero duration.
      {"0 9 * * *", "0m", Utc(2024, 1, 2, 9, 0, 30), false},
      {"30 23 * * *", "1h", Utc(2024, 1, 3, 0, 15), true},  // Crosses day.
  };
  for (const ActiveCase& c : cases) {
    INFO(c.schedule << " / " << c.duration << " at " << c.now);
    const absl::StatusOr<DisruptionSpec> spec = ParseDisruptionSpec(
        OneBudget(absl::StrCat("{nodes: '1', schedule: '", c.schedule,
                               "', duration: ", c.duration, "}")));
    REQUIRE(spec.ok());
    const absl::StatusOr<bool> active = IsActive(spec->budgets[0], c.now);
    REQUIRE(active.ok());
    CHECK(*active == c.active);
  }
  const absl::StatusOr<DisruptionSpec> always =
      ParseDisruptionSpec(OneBudget("{nodes: '1'}"));
  REQUIRE(always.ok());
  CHECK(*IsActive(always->budgets[0], Utc(2024, 1, 2, 10, 0)));
}

TEST_CASE("budget spec: time zones only with allow_time_zones", "[budget]") {
  const v1::NodePool np = OneBudget(
      "{nodes: '1', schedule: 'CRON_TZ=America/New_York 0 9 * * *',"
      " duration: 1h}");
  const absl::StatusOr<DisruptionSpec> strict = ParseDisruptionSpec(np);
  REQUIRE(strict.ok());
  CHECK_FALSE(IsActive(strict->budgets[0], Utc(2024, 1, 2, 14, 30)).ok());

  const absl::StatusOr<DisruptionSpec> tz =
      ParseDisruptionSpec(np, BudgetOptions{.allow_time_zones = true});
  REQUIRE(tz.ok());
  // Winter (EST, UTC-5): 09:00 local is 14:00 UTC.
  CHECK(*IsActive(tz->budgets[0], Utc(2024, 1, 2, 14, 30)));
  CHECK_FALSE(*IsActive(tz->budgets[0], Utc(2024, 1, 2, 13, 30)));
  // Summer (EDT, UTC-4): 09:00 local is 13:00 UTC.
  CHECK(*IsActive(tz->budgets[0], Utc(2024, 7, 2, 13, 30)));
  CHECK_FALSE(*IsActive(tz->budgets[0], Utc(2024, 7, 2, 14, 0)));
  // The day after spring-forward (2024-03-10) already uses EDT.
  CHECK(*IsActive(tz->budgets[0], Utc(2024, 3, 11, 13, 0)));
  // Without a prefix the option still means UTC.
  const absl::StatusOr<DisruptionSpec> plain = ParseDisruptionSpec(
      OneBudget("{nodes: '1', schedule: '0 9 * * *', duration: 1h}"),
      BudgetOptions{.allow_time_zones = true});
  REQUIRE(plain.ok());
  CHECK(*IsActive(plain->budgets[0], Utc(2024, 7, 2, 9, 30)));
}

TEST_CASE("budget spec: time-zone windows across DST transitions", "[budget]") {
  const BudgetOptions tz{.allow_time_zones = true};
  // 2024-11-03 01:30 happens twice in New York (EDT 05:30Z, EST 06:30Z).
  const absl::StatusOr<DisruptionSpec> fall = ParseDisruptionSpec(
      OneBudget("{nodes: '1', schedule: 'TZ=America/New_York 30 1 * * *',"
                " duration: 30m}"),
      tz);
  REQUIRE(fall.ok());
  CHECK(*IsActive(fall->budgets[0], Utc(2024, 11, 3, 5, 45)));
  CHECK_FALSE(*IsActive(fall->budgets[0], Utc(2024, 11, 3, 6, 15)));
  CHECK(*IsActive(fall->budgets[0], Utc(2024, 11, 3, 6, 45)));
  // 2024-03-10 02:30 does not exist in New York: no window that day.
  const absl::StatusOr<DisruptionSpec> spring = ParseDisruptionSpec(
      OneBudget("{nodes: '1', schedule: 'CRON_TZ=America/New_York 30 2 * * *',"
                " duration: 1h}"),
      tz);
  REQUIRE(spring.ok());
  CHECK(*IsActive(spring->budgets[0], Utc(2024, 3, 9, 7, 45)));  // EST.
  CHECK_FALSE(*IsActive(spring->budgets[0], Utc(2024, 3, 10, 7, 45)));
  CHECK_FALSE(*IsActive(spring->budgets[0], Utc(2024, 3, 10, 6, 45)));
  CHECK(*IsActive(spring->budgets[0], Utc(2024, 3, 11, 6, 45)));  // EDT.
}

TEST_CASE("budget spec: reasons nil, listed and explicitly empty", "[budget]") {
  const absl::StatusOr<DisruptionSpec> spec =
      ParseDisruptionSpec(Pool("    budgets:\n"
                               "    - nodes: '1'\n"
                               "    - nodes: '2'\n      reasons: [Drifted]\n"
                               "    - nodes: '3'\n      reasons: []\n"));
  REQUIRE(spec.ok());
  REQUIRE(spec->budgets.size() == 3);
  for (DisruptionReason r : kAllDisruptionReasons) {
    INFO(DisruptionReasonName(r));
    CHECK(spec->budgets[0].Matches(r));
    CHECK(spec->budgets[1].Matches(r) == (r == DisruptionReason::kDrifted));
    CHECK_FALSE(spec->budgets[2].Matches(r));
  }
}

}  // namespace
}  // namespace karpenter::budget
