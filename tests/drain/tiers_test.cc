// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/drain/tiers.h"

#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "drain_test_util.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace karpenter::drain {
namespace {

using test::DecisionOf;
using test::kT0;
using test::MakePod;
using test::MakeSnapshot;
using test::MakeToleration;

// Names of the pods at `indexes`.
std::vector<std::string> Names(const snapshot::Snapshot& s,
                               const std::vector<snapshot::PodIndex>& idx) {
  std::vector<std::string> names;
  for (snapshot::PodIndex p : idx)
    names.push_back(s.DecodePod(p).metadata().name());
  return names;
}

DrainPass Plan(const snapshot::Snapshot& s,
               std::optional<absl::Time> deadline = std::nullopt,
               absl::Time now = kT0) {
  absl::StatusOr<DrainPass> pass = PlanDrainPass(s, 0, deadline, now);
  REQUIRE(pass.ok());
  return *std::move(pass);
}

// One pod per tier, listed in reverse tier order.
std::vector<v1::Pod> FourTiers() {
  return {
      MakePod({.name = "crit-ds",
               .owner = "apps/v1/DaemonSet",
               .priority_class = "system-node-critical"}),
      MakePod({.name = "crit", .priority_class = "system-cluster-critical"}),
      MakePod({.name = "ds", .owner = "apps/v1/DaemonSet"}),
      MakePod({.name = "app", .owner = "apps/v1/ReplicaSet"}),
  };
}

TEST_CASE("drain: tier of each pod kind", "[drain]") {
  const snapshot::Snapshot s = MakeSnapshot(FourTiers());
  const DrainPass p = Plan(s);
  CHECK(DecisionOf(s, p, "crit-ds").tier == Tier::kCriticalDaemonSet);
  CHECK(DecisionOf(s, p, "crit").tier == Tier::kCriticalNonDaemonSet);
  CHECK(DecisionOf(s, p, "ds").tier == Tier::kNonCriticalDaemonSet);
  CHECK(DecisionOf(s, p, "app").tier == Tier::kNonCriticalNonDaemonSet);
  CHECK(TierName(Tier::kNonCriticalNonDaemonSet) == "NonCriticalNonDaemonSet");
  CHECK(TierName(Tier::kCriticalDaemonSet) == "CriticalDaemonSet");
  CHECK(TierName(static_cast<Tier>(7)) == "Unknown");
}

TEST_CASE("drain: first non-empty tier is enqueued, later ones wait",
          "[drain]") {
  const snapshot::Snapshot s = MakeSnapshot(FourTiers());
  const DrainPass p = Plan(s);
  REQUIRE(p.tier.has_value());
  CHECK(*p.tier == Tier::kNonCriticalNonDaemonSet);
  CHECK(Names(s, p.enqueue) == std::vector<std::string>{"app"});
  CHECK(p.force_delete.empty());
  CHECK(p.waiting == 4);
  CHECK_FALSE(p.done);
  CHECK(p.Message() == "4 pods are waiting to be evicted");
  // Decisions follow the snapshot's pod order.
  REQUIRE(p.pods.size() == 4);
  CHECK(
      Names(s, {p.pods[0].pod, p.pods[1].pod, p.pods[2].pod, p.pods[3].pod}) ==
      std::vector<std::string>{"crit-ds", "crit", "ds", "app"});
  const PodDecision& app = DecisionOf(s, p, "app");
  CHECK(app.action == PodAction::kEnqueue);
  CHECK(app.reason == HoldReason::kNone);
  for (const char* name : {"crit-ds", "crit", "ds"}) {
    INFO(name);
    CHECK(DecisionOf(s, p, name).action == PodAction::kNone);
    CHECK(DecisionOf(s, p, name).reason == HoldReason::kEarlierTier);
  }
}

// Replaces the first tier's only pod by `app` and returns the tier drained.
std::optional<Tier> TierWith(const v1::Pod& app, absl::Time now,
                             HoldReason* app_reason) {
  std::vector<v1::Pod> pods = FourTiers();
  pods.back() = app;
  const snapshot::Snapshot s = MakeSnapshot(pods);
  const DrainPass p = Plan(s, std::nullopt, now);
  if (app.spec().node_name() == "node-a") {
    *app_reason = DecisionOf(s, p, "app").reason;
  }
  CHECK(p.pods.size() == (app.spec().node_name() == "node-a" ? 4u : 3u));
  return p.tier;
}

TEST_CASE("drain: next tier starts only when the previous one is gone",
          "[drain]") {
  struct Case {
    std::string name;
    v1::Pod app;
    absl::Time now;
    Tier tier;
    HoldReason app_reason;
  };
  const std::vector<Case> cases = {
      {"running", MakePod({.name = "app"}), kT0, Tier::kNonCriticalNonDaemonSet,
       HoldReason::kNone},
      // Merely terminating is not enough: its tier is still drained.
      {"terminating", MakePod({.name = "app", .deleted = kT0}),
       kT0 + absl::Seconds(30), Tier::kNonCriticalNonDaemonSet,
       HoldReason::kTerminating},
      {"terminating exactly 1m", MakePod({.name = "app", .deleted = kT0}),
       kT0 + absl::Minutes(1), Tier::kNonCriticalNonDaemonSet,
       HoldReason::kTerminating},
      {"stuck terminating", MakePod({.name = "app", .deleted = kT0}),
       kT0 + absl::Minutes(2), Tier::kNonCriticalDaemonSet,
       HoldReason::kNotDrained},
      {"succeeded", MakePod({.name = "app", .phase = "Succeeded"}), kT0,
       Tier::kNonCriticalDaemonSet, HoldReason::kNotDrained},
      {"failed", MakePod({.name = "app", .phase = "Failed"}), kT0,
       Tier::kNonCriticalDaemonSet, HoldReason::kNotDrained},
      {"moved to another node", MakePod({.name = "app", .node = "node-b"}), kT0,
       Tier::kNonCriticalDaemonSet, HoldReason::kNone},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    HoldReason reason = HoldReason::kNone;
    const std::optional<Tier> tier = TierWith(c.app, c.now, &reason);
    REQUIRE(tier.has_value());
    CHECK(*tier == c.tier);
    CHECK(reason == c.app_reason);
  }
}

TEST_CASE("drain: tiers advance through all four groups", "[drain]") {
  std::vector<v1::Pod> pods = FourTiers();
  const std::vector<Tier> expected = {
      Tier::kNonCriticalNonDaemonSet, Tier::kNonCriticalDaemonSet,
      Tier::kCriticalNonDaemonSet, Tier::kCriticalDaemonSet};
  for (const Tier want : expected) {
    const snapshot::Snapshot s = MakeSnapshot(pods);
    const DrainPass p = Plan(s);
    REQUIRE(p.tier.has_value());
    CHECK(*p.tier == want);
    CHECK(p.enqueue.size() == 1);
    CHECK(p.waiting == static_cast<int>(pods.size()));
    pods.pop_back();  // The drained pod is gone.
  }
  const DrainPass last = Plan(MakeSnapshot(pods));
  CHECK(last.done);
  CHECK_FALSE(last.tier.has_value());
  CHECK(last.waiting == 0);
  CHECK(last.Message().empty());
}

TEST_CASE("drain: pods not drained are explained and not counted", "[drain]") {
  const snapshot::Snapshot s = MakeSnapshot({
      MakePod({.name = "mirror", .owner = "v1/Node"}),
      MakePod({.name = "tolerant",
               .owner = "apps/v1/DaemonSet",
               .tolerations = {MakeToleration("", "Exists")}}),
      MakePod({.name = "done", .phase = "Succeeded"}),
      MakePod({.name = "stuck", .deleted = kT0 - absl::Minutes(5)}),
  });
  const DrainPass p = Plan(s);
  CHECK(p.done);
  CHECK(p.waiting == 0);
  CHECK(p.enqueue.empty());
  CHECK(p.force_delete.empty());
  CHECK_FALSE(p.tier.has_value());
  REQUIRE(p.pods.size() == 4);
  const std::vector<PodReason> why = {
      PodReason::kMirror, PodReason::kToleratesDisruptedTaint,
      PodReason::kTerminal, PodReason::kStuckTerminating};
  for (size_t i = 0; i < why.size(); ++i) {
    INFO(i);
    CHECK(p.pods[i].action == PodAction::kNone);
    CHECK(p.pods[i].reason == HoldReason::kNotDrained);
    CHECK(p.pods[i].pod_class.not_waiting_reason == why[i]);
  }
}

TEST_CASE("drain: do-not-disrupt pod blocks the drain", "[drain]") {
  const snapshot::Snapshot s = MakeSnapshot({
      MakePod({.name = "forever",
               .annotations = {{"karpenter.sh/do-not-disrupt", "true"}}}),
      MakePod({.name = "briefly",
               .annotations = {{"karpenter.sh/do-not-disrupt", "15m"}},
               .started = kT0}),
      MakePod({.name = "ds-dnd",
               .owner = "apps/v1/DaemonSet",
               .annotations = {{"karpenter.sh/do-not-disrupt", "true"}}}),
  });
  const DrainPass p = Plan(s, std::nullopt, kT0 + absl::Minutes(1));
  CHECK(p.waiting == 3);
  CHECK_FALSE(p.done);
  CHECK(p.Message() == "3 pods are waiting to be evicted");
  CHECK(Names(s, p.enqueue) == std::vector<std::string>{"forever", "briefly"});
  const PodDecision& forever = DecisionOf(s, p, "forever");
  CHECK(forever.action == PodAction::kEnqueue);
  CHECK(forever.reason == HoldReason::kDoNotDisrupt);
  CHECK_FALSE(forever.until.has_value());
  const PodDecision& briefly = DecisionOf(s, p, "briefly");
  CHECK(briefly.reason == HoldReason::kDoNotDisrupt);
  REQUIRE(briefly.until.has_value());
  CHECK(*briefly.until == kT0 + absl::Minutes(15));
  CHECK(DecisionOf(s, p, "ds-dnd").reason == HoldReason::kEarlierTier);
  // After the lapse the pod is a plain eviction.
  const DrainPass later = Plan(s, std::nullopt, kT0 + absl::Minutes(15));
  CHECK(DecisionOf(s, later, "briefly").reason == HoldReason::kNone);
}

TEST_CASE("drain: terminating pod in a later tier reports terminating",
          "[drain]") {
  const snapshot::Snapshot s = MakeSnapshot({
      MakePod({.name = "app"}),
      MakePod({.name = "ds", .owner = "apps/v1/DaemonSet", .deleted = kT0}),
  });
  const DrainPass p = Plan(s);
  CHECK(Names(s, p.enqueue) == std::vector<std::string>{"app"});
  const PodDecision& ds = DecisionOf(s, p, "ds");
  CHECK(ds.action == PodAction::kNone);
  CHECK(ds.reason == HoldReason::kTerminating);
  CHECK(p.waiting == 2);
}

TEST_CASE("drain: force-delete crosses tiers", "[drain]") {
  const absl::Time deadline = kT0 + absl::Seconds(300);
  const snapshot::Snapshot s = MakeSnapshot({
      MakePod({.name = "app", .grace = 30}),
      MakePod({.name = "crit-ds",
               .owner = "apps/v1/DaemonSet",
               .priority_class = "system-node-critical",
               .grace = 600}),
      MakePod({.name = "no-grace"}),  // Never force-deleted.
  });
  const DrainPass p = Plan(s, deadline, kT0 + absl::Seconds(10));
  CHECK(Names(s, p.force_delete) == std::vector<std::string>{"crit-ds"});
  REQUIRE(p.tier.has_value());
  CHECK(*p.tier == Tier::kNonCriticalNonDaemonSet);
  CHECK(Names(s, p.enqueue) == std::vector<std::string>{"app", "no-grace"});
  CHECK(p.waiting == 3);
  const PodDecision& crit = DecisionOf(s, p, "crit-ds");
  CHECK(crit.action == PodAction::kForceDelete);
  CHECK(crit.reason == HoldReason::kNone);
  CHECK(crit.force_delete_grace_seconds == 290);
  REQUIRE(crit.force_delete_at.has_value());
  CHECK(*crit.force_delete_at == deadline - absl::Seconds(600));
  const PodDecision& app = DecisionOf(s, p, "app");
  REQUIRE(app.force_delete_at.has_value());
  CHECK(*app.force_delete_at == deadline - absl::Seconds(30));
  CHECK_FALSE(DecisionOf(s, p, "no-grace").force_delete_at.has_value());

  // Only force-deletions left: the drain is still not done.
  const snapshot::Snapshot only =
      MakeSnapshot({MakePod({.name = "crit",
                             .priority_class = "system-node-critical",
                             .grace = 600})});
  const DrainPass q = Plan(only, deadline, kT0);
  CHECK(q.force_delete.size() == 1);
  CHECK_FALSE(q.tier.has_value());
  CHECK(q.enqueue.empty());
  CHECK_FALSE(q.done);
  CHECK(q.Message() == "1 pods are waiting to be evicted");
}

TEST_CASE("drain: plan rejects an unknown node index", "[drain]") {
  const snapshot::Snapshot s = MakeSnapshot({});
  const absl::StatusOr<DrainPass> p = PlanDrainPass(s, 1, std::nullopt, kT0);
  CHECK(p.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(p.status().message()) ==
        "node index 1 out of range (snapshot has 1 nodes)");
}

TEST_CASE("drain: action and hold reason names are stable", "[drain]") {
  CHECK(PodActionName(PodAction::kNone) == "None");
  CHECK(PodActionName(PodAction::kEnqueue) == "Enqueue");
  CHECK(PodActionName(PodAction::kForceDelete) == "ForceDelete");
  CHECK(HoldReasonName(HoldReason::kNotDrained) == "NotDrained");
  CHECK(HoldReasonName(HoldReason::kTerminating) == "Terminating");
  CHECK(HoldReasonName(HoldReason::kDoNotDisrupt) == "DoNotDisrupt");
  CHECK(HoldReasonName(HoldReason::kEarlierTier) == "EarlierTier");
  CHECK(HoldReasonName(static_cast<HoldReason>(42)) == "Unknown");
}

}  // namespace
}  // namespace karpenter::drain
