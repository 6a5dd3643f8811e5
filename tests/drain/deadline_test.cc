// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/drain/deadline.h"

#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "drain_test_util.h"
#include "karpenter/drain/tiers.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace karpenter::drain {
namespace {

using ClaimOpts = testing::NodeClaimOptions;
using test::DecisionOf;
using test::kT0;
using test::MakeClaim;
using test::MakePod;
using test::MakeSnapshot;

TEST_CASE("drain: node deadline from the termination-timestamp annotation",
          "[drain]") {
  struct Case {
    std::string value;
    std::optional<absl::Duration> at;  // Since kT0; nullopt: error.
  };
  const std::vector<Case> cases = {
      {"2024-01-01T00:05:00Z", absl::Minutes(5)},
      {"2024-01-01T00:05:00.5Z", absl::Minutes(5) + absl::Milliseconds(500)},
      {"2024-01-01T01:05:00+01:00", absl::Minutes(5)},
      {"2023-12-31T23:00:00-01:00", absl::ZeroDuration()},
      {"2023-12-31T23:59:00Z", -absl::Minutes(1)},  // Already past.
      {"2024-01-01 00:05:00Z", std::nullopt},
      {"2024-01-01t00:05:00z", std::nullopt},
      {" 2024-01-01T00:05:00Z", std::nullopt},
      {"2024-01-01T00:05:00Z ", std::nullopt},
      {"2024-01-01T00:05:00", std::nullopt},
      {"2024-1-01T00:05:00Z", std::nullopt},
      {"2024-02-30T00:00:00Z", std::nullopt},
      {"2024-01-01T24:00:00Z", std::nullopt},
      {"2024-01-01T00:00:60Z", std::nullopt},
      {"2024-01-01T00:00:00.Z", std::nullopt},
      {"2024-01-01T00:00:00+0100", std::nullopt},
      {"2024-01-01T00:00:00,5Z", std::nullopt},
      {"2024-01-01T00:00:00+99:99", std::nullopt},
      {"2024-01-01T00:00:00+23:59", -(absl::Hours(23) + absl::Minutes(59))},
      {"tomorrow", std::nullopt},
      {"", std::nullopt},
  };
  for (const Case& c : cases) {
    INFO("annotation \"" << c.value << "\"");
    // The annotation wins over deletionTimestamp + TGP.
    const v1::NodeClaim claim =
        MakeClaim({.annotations = test::TerminationTimestamp(c.value),
                   .deleted = kT0,
                   .termination_grace_period = "1h"});
    const absl::StatusOr<std::optional<Deadline>> d = NodeDeadline(claim);
    if (!c.at.has_value()) {
      CHECK(d.status().code() == absl::StatusCode::kInvalidArgument);
      CHECK(
          std::string(d.status().message()) ==
          "metadata.annotations[\"karpenter.sh/"
          "nodeclaim-termination-timestamp\"]: invalid RFC 3339 timestamp \"" +
              c.value + "\"");
      continue;
    }
    REQUIRE(d.ok());
    REQUIRE(d->has_value());
    CHECK((*d)->at == kT0 + *c.at);
    CHECK((*d)->source == DeadlineSource::kAnnotation);
  }
}

TEST_CASE("drain: node deadline from deletionTimestamp plus grace period",
          "[drain]") {
  struct Case {
    std::string name;
    ClaimOpts opts;
    std::optional<absl::Duration> at;  // Since kT0; nullopt: no deadline.
    DeadlineSource source;
  };
  const DeadlineSource kTgp = DeadlineSource::kTerminationGracePeriod;
  const std::vector<Case> cases = {
      {"deleting with TGP",
       {.deleted = kT0, .termination_grace_period = "300s"},
       absl::Seconds(300),
       kTgp},
      {"compound TGP",
       {.deleted = kT0, .termination_grace_period = "1h5m30s"},
       absl::Hours(1) + absl::Minutes(5) + absl::Seconds(30),
       kTgp},
      {"zero TGP",
       {.deleted = kT0, .termination_grace_period = "0s"},
       absl::ZeroDuration(),
       kTgp},
      {"not deleting",
       {.termination_grace_period = "300s"},
       std::nullopt,
       kTgp},
      {"no TGP", {.deleted = kT0}, std::nullopt, kTgp},
      // Node repair stamps the annotation with "now" without a TGP.
      {"annotation without deletion",
       {.annotations = test::TerminationTimestamp("2024-01-01T00:00:00Z")},
       absl::ZeroDuration(),
       DeadlineSource::kAnnotation},
      // An annotation is never recomputed from the TGP.
      {"annotation before TGP",
       {.annotations = test::TerminationTimestamp("2024-01-01T00:10:00Z"),
        .deleted = kT0,
        .termination_grace_period = "5m"},
       absl::Minutes(10),
       DeadlineSource::kAnnotation},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const absl::StatusOr<std::optional<Deadline>> d =
        NodeDeadline(MakeClaim(c.opts));
    REQUIRE(d.ok());
    REQUIRE(d->has_value() == c.at.has_value());
    if (!c.at.has_value()) continue;
    CHECK((*d)->at == kT0 + *c.at);
    CHECK((*d)->source == c.source);
  }
}

TEST_CASE("drain: bad terminationGracePeriod is an error", "[drain]") {
  const absl::StatusOr<std::optional<Deadline>> d = NodeDeadline(
      MakeClaim({.deleted = kT0, .termination_grace_period = "5d"}));
  CHECK(d.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(d.status().message()) ==
        "spec.terminationGracePeriod: time: unknown unit \"d\" in duration "
        "\"5d\"");
  // Not used (not deleting): no error.
  CHECK(NodeDeadline(MakeClaim({.termination_grace_period = "5d"})).ok());
}

TEST_CASE("drain: external deadline combines as the earliest", "[drain]") {
  struct Case {
    std::string name;
    ClaimOpts opts;
    std::optional<absl::Time> external;
    std::optional<absl::Time> at;
    DeadlineSource source;
  };
  const absl::Time spot_early = SpotInterruptionDeadline(kT0);
  const absl::Time spot_late = SpotInterruptionDeadline(kT0 + absl::Minutes(4));
  const ClaimOpts tgp5m = {.deleted = kT0, .termination_grace_period = "5m"};
  const DeadlineSource kTgp = DeadlineSource::kTerminationGracePeriod;
  const std::vector<Case> cases = {
      {"spot earlier", tgp5m, spot_early, kT0 + absl::Minutes(2),
       DeadlineSource::kExternal},
      {"spot later", tgp5m, spot_late, kT0 + absl::Minutes(5), kTgp},
      {"tie keeps the NodeClaim", tgp5m, kT0 + absl::Minutes(5),
       kT0 + absl::Minutes(5), kTgp},
      {"no NodeClaim deadline",
       {},
       spot_early,
       kT0 + absl::Minutes(2),
       DeadlineSource::kExternal},
      {"no external", tgp5m, std::nullopt, kT0 + absl::Minutes(5), kTgp},
      {"neither", {}, std::nullopt, std::nullopt, kTgp},
  };
  CHECK(kSpotInterruptionNotice == absl::Minutes(2));
  for (const Case& c : cases) {
    INFO(c.name);
    const absl::StatusOr<std::optional<Deadline>> d =
        NodeDeadline(MakeClaim(c.opts), c.external);
    REQUIRE(d.ok());
    REQUIRE(d->has_value() == c.at.has_value());
    if (!c.at.has_value()) continue;
    CHECK((*d)->at == *c.at);
    CHECK((*d)->source == c.source);
  }
}

TEST_CASE("drain: node deadline through the snapshot", "[drain]") {
  const snapshot::Snapshot with_claim = MakeSnapshot(
      {}, {MakeClaim({.deleted = kT0, .termination_grace_period = "10m"})});
  absl::StatusOr<std::optional<Deadline>> d = NodeDeadline(with_claim, 0);
  REQUIRE(d.ok());
  REQUIRE(d->has_value());
  CHECK((*d)->at == kT0 + absl::Minutes(10));

  const snapshot::Snapshot other_claim =
      MakeSnapshot({}, {MakeClaim({.node_name = "node-x",
                                   .provider_id = "aws:///x/i-other",
                                   .deleted = kT0,
                                   .termination_grace_period = "10m"})});
  d = NodeDeadline(other_claim, 0);
  REQUIRE(d.ok());
  CHECK_FALSE(d->has_value());
  d = NodeDeadline(other_claim, 0, kT0);
  REQUIRE(d.ok());
  REQUIRE(d->has_value());
  CHECK((*d)->source == DeadlineSource::kExternal);

  const snapshot::Snapshot bad = MakeSnapshot(
      {}, {MakeClaim({.annotations = test::TerminationTimestamp("soon")})});
  d = NodeDeadline(bad, 0);
  CHECK(d.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(d.status().message()),
             Catch::StartsWith("nodeclaim \"claim-a\": metadata.annotations") &&
                 Catch::EndsWith("\"soon\""));

  d = NodeDeadline(bad, 3);
  CHECK(d.status().code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("drain: NeedsForceDelete and ForceDeleteAt", "[drain]") {
  struct Case {
    std::string name;
    test::PodOpts pod;
    std::optional<absl::Time> deadline;
    absl::Time now;
    bool needs;
    std::optional<absl::Time> at;
  };
  const absl::Time t = kT0 + absl::Seconds(300);
  const absl::Duration s = absl::Seconds(1);
  const std::vector<Case> cases = {
      {"no deadline",
       {.grace = 30},
       std::nullopt,
       t + 1000 * s,
       false,
       std::nullopt},
      {"no grace", {}, t, t + 1000 * s, false, std::nullopt},
      {"before threshold", {.grace = 30}, t, t - 31 * s, false, t - 30 * s},
      {"at threshold", {.grace = 30}, t, t - 30 * s, false, t - 30 * s},
      {"just past threshold",
       {.grace = 30},
       t,
       t - 30 * s + absl::Nanoseconds(1),
       true,
       t - 30 * s},
      {"zero grace at T", {.grace = 0}, t, t, false, t},
      {"zero grace past T", {.grace = 0}, t, t + s, true, t},
      {"terminating past T",
       {.grace = 30, .deleted = t + s},
       t,
       kT0,
       true,
       kT0},
      {"terminating at T",
       {.grace = 30, .deleted = t},
       t,
       t,
       false,
       std::nullopt},
      {"terminating before T",
       {.deleted = t - s},
       t,
       t + 30 * s,
       false,
       std::nullopt},
      {"terminating without grace", {.deleted = t + s}, t, kT0, true, kT0},
      {"terminating no deadline",
       {.deleted = t + s},
       std::nullopt,
       kT0,
       false,
       std::nullopt},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const v1::Pod pod = MakePod(c.pod);
    CHECK(NeedsForceDelete(pod, c.deadline, c.now) == c.needs);
    CHECK(ForceDeleteAt(pod, c.deadline, c.now) == c.at);
  }
}

TEST_CASE("drain: force-delete grace truncates with a floor of one second",
          "[drain]") {
  struct Case {
    absl::Duration remaining;  // deadline - now.
    int64_t seconds;
  };
  const std::vector<Case> cases = {
      {absl::Seconds(210), 210},     {absl::Milliseconds(89300), 89},
      {absl::Milliseconds(1999), 1}, {absl::Milliseconds(1000), 1},
      {absl::Milliseconds(500), 1},  {absl::ZeroDuration(), 1},
      {-absl::Seconds(5), 1},        {absl::Hours(2), 7200},
  };
  for (const Case& c : cases) {
    INFO("remaining " << c.remaining);
    CHECK(ForceDeleteGraceSeconds(kT0 + c.remaining, kT0) == c.seconds);
  }
}

// docs/semantics.md §4.5 worked examples: TGP 300 s, NodeClaim deleted at
// t0, T = t0 + 300 s.
snapshot::Snapshot WorkedExample(std::vector<v1::Pod> pods) {
  return MakeSnapshot(
      std::move(pods),
      {MakeClaim({.deleted = kT0, .termination_grace_period = "300s"})});
}

absl::Time DeadlineOf(const snapshot::Snapshot& s) {
  absl::StatusOr<std::optional<Deadline>> d = NodeDeadline(s, 0);
  REQUIRE(d.ok());
  REQUIRE(d->has_value());
  CHECK((*d)->at == kT0 + absl::Seconds(300));
  return (*d)->at;
}

DrainPass PlanAt(const snapshot::Snapshot& s, absl::Duration since_t0) {
  absl::StatusOr<DrainPass> p =
      PlanDrainPass(s, 0, DeadlineOf(s), kT0 + since_t0);
  REQUIRE(p.ok());
  return *std::move(p);
}

TEST_CASE("drain: worked example, full-grace do-not-disrupt pod", "[drain]") {
  const snapshot::Snapshot s = WorkedExample(
      {MakePod({.name = "p",
                .grace = 300,
                .annotations = {{"karpenter.sh/do-not-disrupt", "true"}}})});
  const DrainPass p = PlanAt(s, absl::Seconds(10));
  REQUIRE(p.force_delete.size() == 1);
  const PodDecision& d = DecisionOf(s, p, "p");
  CHECK(d.action == PodAction::kForceDelete);
  CHECK(d.force_delete_at == kT0);
  CHECK(d.force_delete_grace_seconds == 290);
  CHECK(p.enqueue.empty());
}

TEST_CASE("drain: worked example, 60 s do-not-disrupt pod", "[drain]") {
  const snapshot::Snapshot s = WorkedExample(
      {MakePod({.name = "p",
                .grace = 60,
                .annotations = {{"karpenter.sh/do-not-disrupt", "true"}}})});
  const DrainPass early = PlanAt(s, absl::Seconds(90));
  CHECK(early.force_delete.empty());
  const PodDecision& waiting = DecisionOf(s, early, "p");
  CHECK(waiting.action == PodAction::kEnqueue);
  CHECK(waiting.reason == HoldReason::kDoNotDisrupt);
  CHECK(waiting.force_delete_at == kT0 + absl::Seconds(240));
  // Exactly at the threshold it still waits (strictly after).
  CHECK(PlanAt(s, absl::Seconds(240)).force_delete.empty());
  const DrainPass late = PlanAt(s, absl::Seconds(265));
  REQUIRE(late.force_delete.size() == 1);
  CHECK(DecisionOf(s, late, "p").force_delete_grace_seconds == 35);
}

TEST_CASE("drain: worked example, terminating pod with a long grace",
          "[drain]") {
  // Deleted at t0 + 10 s with 6000 s grace: deletionTimestamp t0 + 6010 s.
  const snapshot::Snapshot s = WorkedExample({MakePod(
      {.name = "p", .grace = 6000, .deleted = kT0 + absl::Seconds(6010)})});
  const DrainPass p = PlanAt(s, absl::Seconds(90));
  REQUIRE(p.force_delete.size() == 1);
  const PodDecision& d = DecisionOf(s, p, "p");
  CHECK(d.force_delete_grace_seconds == 210);
  CHECK(d.force_delete_at == kT0 + absl::Seconds(90));
}

TEST_CASE("drain: worked example, critical pod deleted before first tier",
          "[drain]") {
  const snapshot::Snapshot s = WorkedExample({
      MakePod({.name = "app", .grace = 30}),
      MakePod({.name = "crit",
               .priority_class = "system-node-critical",
               .grace = 600}),
  });
  const DrainPass p = PlanAt(s, absl::ZeroDuration());
  REQUIRE(p.force_delete.size() == 1);
  CHECK(DecisionOf(s, p, "crit").action == PodAction::kForceDelete);
  CHECK(DecisionOf(s, p, "crit").force_delete_grace_seconds == 300);
  REQUIRE(p.tier.has_value());
  CHECK(*p.tier == Tier::kNonCriticalNonDaemonSet);
  CHECK(DecisionOf(s, p, "app").action == PodAction::kEnqueue);
  CHECK(p.waiting == 2);
}

TEST_CASE("drain: spot interruption deadline with long grace pods", "[drain]") {
  const absl::Time notice = kT0;
  const snapshot::Snapshot s = MakeSnapshot({
      MakePod({.name = "long", .grace = 300}),
      MakePod({.name = "short", .grace = 30}),
  });
  const absl::StatusOr<std::optional<Deadline>> d =
      NodeDeadline(s, 0, SpotInterruptionDeadline(notice));
  REQUIRE(d.ok());
  REQUIRE(d->has_value());
  const absl::Time t = (*d)->at;
  CHECK(t == notice + absl::Minutes(2));
  struct Case {
    absl::Duration since_notice;
    bool long_deleted;
    int64_t long_grace;
    bool short_deleted;
    int64_t short_grace;
  };
  const std::vector<Case> cases = {
      {absl::ZeroDuration(), true, 120, false, 0},
      {absl::Milliseconds(30700), true, 89, false, 0},
      {absl::Seconds(90), true, 30, false, 0},  // short: at, not past, T-30.
      {absl::Milliseconds(90500), true, 29, true, 29},
      {absl::Milliseconds(119500), true, 1, true, 1},
      {absl::Seconds(125), true, 1, true, 1},  // Past T: floor of 1 s.
  };
  for (const Case& c : cases) {
    INFO("since notice " << c.since_notice);
    const absl::StatusOr<DrainPass> p =
        PlanDrainPass(s, 0, t, notice + c.since_notice);
    REQUIRE(p.ok());
    const PodDecision& lng = DecisionOf(s, *p, "long");
    const PodDecision& sht = DecisionOf(s, *p, "short");
    CHECK((lng.action == PodAction::kForceDelete) == c.long_deleted);
    CHECK(lng.force_delete_grace_seconds == c.long_grace);
    CHECK((sht.action == PodAction::kForceDelete) == c.short_deleted);
    CHECK(sht.force_delete_grace_seconds == c.short_grace);
  }
}

TEST_CASE("drain: remaining grace per pod", "[drain]") {
  struct Case {
    std::string name;
    test::PodOpts pod;
    std::optional<absl::Duration> grace;  // nullopt: error.
  };
  const absl::Duration s = absl::Seconds(1);
  const std::vector<Case> cases = {
      {"explicit", {.grace = 60}, 60 * s},
      {"zero", {.grace = 0}, absl::ZeroDuration()},
      {"default", {}, 30 * s},
      {"terminating", {.grace = 600, .deleted = kT0 + 20 * s}, 20 * s},
      {"terminating past", {.deleted = kT0 - 10 * s}, absl::ZeroDuration()},
      {"negative", {.grace = -5}, std::nullopt},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const absl::StatusOr<absl::Duration> g =
        RemainingGrace(MakePod(c.pod), kT0);
    if (!c.grace.has_value()) {
      CHECK(g.status().code() == absl::StatusCode::kInvalidArgument);
      CHECK(std::string(g.status().message()) ==
            "spec.terminationGracePeriodSeconds: -5 is negative");
      continue;
    }
    REQUIRE(g.ok());
    CHECK(*g == *c.grace);
  }
}

TEST_CASE("drain: drain timeout sums the waiting pods", "[drain]") {
  const absl::Duration s = absl::Seconds(1);
  const snapshot::Snapshot node = MakeSnapshot({
      MakePod({.name = "a", .grace = 60}),
      MakePod({.name = "b"}),  // Defaults to 30 s.
      MakePod({.name = "c", .grace = 600, .deleted = kT0 + 20 * s}),
      MakePod({.name = "d", .deleted = kT0 - 10 * s}),  // Not stuck: 0 s.
      MakePod({.name = "ds", .owner = "apps/v1/DaemonSet", .grace = 5}),
      MakePod({.name = "mirror", .owner = "v1/Node", .grace = 1000}),
      MakePod({.name = "done", .phase = "Succeeded", .grace = 1000}),
      MakePod({.name = "stuck", .grace = 1000, .deleted = kT0 - 5 * 60 * s}),
      MakePod({.name = "tolerant",
               .grace = 1000,
               .tolerations = {test::MakeToleration("", "Exists")}}),
  });
  absl::StatusOr<DrainEstimate> e = EstimateDrain(node, 0, std::nullopt, kT0);
  REQUIRE(e.ok());
  CHECK(e->waiting == 5);
  CHECK(e->timeout == 115 * s);
  CHECK(e->drain_deadline == kT0 + 115 * s);
  // A node deadline earlier than the sum caps it.
  e = EstimateDrain(node, 0, kT0 + 60 * s, kT0);
  REQUIRE(e.ok());
  CHECK(e->timeout == 115 * s);
  CHECK(e->drain_deadline == kT0 + 60 * s);
  e = EstimateDrain(node, 0, kT0 + 600 * s, kT0);
  REQUIRE(e.ok());
  CHECK(e->drain_deadline == kT0 + 115 * s);

  const snapshot::Snapshot empty = MakeSnapshot({});
  e = EstimateDrain(empty, 0, std::nullopt, kT0);
  REQUIRE(e.ok());
  CHECK(e->waiting == 0);
  CHECK(e->drain_deadline == kT0);

  const snapshot::Snapshot bad =
      MakeSnapshot({MakePod({.name = "neg", .grace = -1})});
  e = EstimateDrain(bad, 0, std::nullopt, kT0);
  CHECK(e.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(e.status().message()) ==
        "pod \"default/neg\": spec.terminationGracePeriodSeconds: -1 is "
        "negative");
  CHECK(EstimateDrain(empty, 1, std::nullopt, kT0).status().code() ==
        absl::StatusCode::kInvalidArgument);
}

TEST_CASE("drain: termination mode from terminationGracePeriod", "[drain]") {
  struct Case {
    std::optional<std::string> tgp;
    std::optional<TerminationMode> mode;  // nullopt: error.
    absl::string_view name;
  };
  const std::vector<Case> cases = {
      {std::nullopt, TerminationMode::kGraceful, "graceful"},
      {"0s", TerminationMode::kForceful, "forceful"},
      {"-1m", TerminationMode::kForceful, "forceful"},
      {"1ns", TerminationMode::kEventual, "eventual"},
      {"24h", TerminationMode::kEventual, "eventual"},
      {"1 day", std::nullopt, ""},
      {"", std::nullopt, ""},
  };
  for (const Case& c : cases) {
    INFO("tgp " << c.tgp.value_or("<absent>"));
    const absl::StatusOr<TerminationMode> m =
        TerminationModeOf(MakeClaim({.termination_grace_period = c.tgp}));
    if (!c.mode.has_value()) {
      CHECK(m.status().code() == absl::StatusCode::kInvalidArgument);
      CHECK_THAT(std::string(m.status().message()),
                 Catch::StartsWith("spec.terminationGracePeriod: "));
      continue;
    }
    REQUIRE(m.ok());
    CHECK(*m == *c.mode);
    CHECK(TerminationModeName(*m) == c.name);
  }
  CHECK(DeadlineSourceName(DeadlineSource::kExternal) == "External");
  CHECK(DeadlineSourceName(DeadlineSource::kTerminationGracePeriod) ==
        "TerminationGracePeriod");
}

}  // namespace
}  // namespace karpenter::drain
