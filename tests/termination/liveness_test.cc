// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/termination/liveness.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "janitor_test_util.h"
#include "karpenter/termination/janitor.h"
#include "karpenter/testing/fake_clock.h"
#include "karpenter/testing/fake_cluster.h"

namespace karpenter::termination {
namespace {

using janitor_test::Build;
using janitor_test::ClaimOpts;
using janitor_test::kT0;
using janitor_test::MakeClaim;
using janitor_test::MakeNode;
using janitor_test::NodeOpts;

LivenessReport Evaluate(const snapshot::Snapshot& s, absl::Time now,
                        const LivenessOptions& o = {}) {
  absl::StatusOr<LivenessReport> r = EvaluateLiveness(s, now, o);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  return *std::move(r);
}

// The verdict of the only NodeClaim.
LivenessVerdict Only(const snapshot::Snapshot& s, absl::Time now,
                     const LivenessOptions& o = {}) {
  LivenessReport r = Evaluate(s, now, o);
  REQUIRE(r.verdicts.size() == 1);
  return r.verdicts[0];
}

TEST_CASE("liveness: launch timeout fires at exactly 5 minutes",
          "[termination][liveness]") {
  struct Case {
    std::string launched;  // "" = absent: counts from creation.
    absl::Duration elapsed;
    LivenessAction action;
    std::string reason;
  };
  const std::vector<Case> cases = {
      {"Unknown", absl::Minutes(5) - absl::Nanoseconds(1),
       LivenessAction::kNone, "launching"},
      {"Unknown", absl::Minutes(5), LivenessAction::kDeleteNodeClaim,
       "launch_timeout"},
      {"False", absl::Minutes(6), LivenessAction::kDeleteNodeClaim,
       "launch_timeout"},
      {"", absl::Minutes(4), LivenessAction::kNone, "launching"},
      {"", absl::Minutes(5), LivenessAction::kDeleteNodeClaim,
       "launch_timeout"},
  };
  for (const Case& c : cases) {
    ClaimOpts o;
    o.created = kT0;
    o.launched = c.launched;
    o.launched_since = kT0;
    o.registered = "Unknown";
    o.registered_since = kT0 - absl::Hours(1);  // Would fire; not evaluated.
    const snapshot::Snapshot s = Build({}, {MakeClaim(o)});
    INFO(c.launched << " after " << absl::FormatDuration(c.elapsed));
    const LivenessVerdict v = Only(s, kT0 + c.elapsed);
    CHECK(v.action == c.action);
    CHECK(v.reason == c.reason);
    REQUIRE(v.due.has_value());
    CHECK(*v.due == kT0 + absl::Minutes(5));
  }
}

TEST_CASE("liveness: registration timeout after 15 minutes, registered kept",
          "[termination][liveness]") {
  ClaimOpts pending;
  pending.name = "pending";
  pending.created = kT0;
  pending.launched_since = kT0 + absl::Minutes(1);
  pending.registered = "Unknown";
  pending.registered_since = kT0;
  ClaimOpts done = pending;
  done.name = "registered";
  done.node_name = "n1";
  done.registered = "True";
  NodeOpts node;
  node.name = "n1";
  const snapshot::Snapshot s =
      Build({MakeNode(node)}, {MakeClaim(pending), MakeClaim(done)});

  LivenessReport before = Evaluate(s, kT0 + absl::Minutes(14));
  CHECK(before.verdicts[0].action == LivenessAction::kNone);
  CHECK(before.verdicts[0].reason == "registering");
  CHECK(before.next_wake == kT0 + absl::Minutes(15));

  // Step 20 minutes: deleted; the registered NodeClaim with a Ready node
  // stays.
  LivenessReport after = Evaluate(s, kT0 + absl::Minutes(20));
  REQUIRE(after.verdicts.size() == 2);
  CHECK(after.verdicts[0].node_claim == "pending");
  CHECK(after.verdicts[0].action == LivenessAction::kDeleteNodeClaim);
  CHECK(after.verdicts[0].reason == "registration_timeout");
  CHECK(after.verdicts[0].due == kT0 + absl::Minutes(15));
  CHECK(after.verdicts[1].node_claim == "registered");
  CHECK(after.verdicts[1].action == LivenessAction::kNone);
  CHECK(after.verdicts[1].reason == "node_healthy");
  CHECK(after.verdicts[1].node == "n1");
  CHECK_FALSE(after.verdicts[1].due.has_value());
  CHECK_FALSE(after.next_wake.has_value());

  // Absent Registered counts from creation.
  ClaimOpts absent = pending;
  absent.registered = "";
  const snapshot::Snapshot s2 = Build({}, {MakeClaim(absent)});
  CHECK(Only(s2, kT0 + absl::Minutes(15)).reason == "registration_timeout");
  CHECK(Only(s2, kT0 + absl::Minutes(15) - absl::Seconds(1)).reason ==
        "registering");
}

// A pool of `healthy` Ready nodes plus the NodeClaim "bad" on node "bad"
// whose Ready is `ready` since kT0.
snapshot::Snapshot PoolWithOneBad(const std::string& ready, int healthy) {
  std::vector<v1::Node> nodes;
  for (int i = 0; i < healthy; ++i) {
    NodeOpts n;
    n.name = absl::StrCat("ok", i);
    nodes.push_back(MakeNode(n));
  }
  NodeOpts bad;
  bad.name = "bad";
  bad.ready = ready;
  bad.ready_since = kT0;
  bad.created = kT0;  // An absent Ready counts from here.
  nodes.push_back(MakeNode(bad));
  ClaimOpts c;
  c.name = "bad";
  c.node_name = "bad";
  return Build(std::move(nodes), {MakeClaim(c)});
}

TEST_CASE("liveness: not ready for 15 minutes is repaired, 14m59s is kept",
          "[termination][liveness]") {
  for (const std::string ready : {"False", "Unknown", ""}) {
    INFO("Ready " << (ready.empty() ? "absent" : ready));
    const snapshot::Snapshot s = PoolWithOneBad(ready, 9);
    const LivenessVerdict kept =
        Only(s, kT0 + absl::Minutes(14) + absl::Seconds(59));
    CHECK(kept.action == LivenessAction::kNone);
    CHECK(kept.reason == "tolerated");
    CHECK(kept.due == kT0 + absl::Minutes(15));

    const LivenessVerdict gone = Only(s, kT0 + absl::Minutes(15));
    CHECK(gone.action == LivenessAction::kDeleteNodeClaim);
    CHECK(gone.reason == "unhealthy");
    CHECK(gone.node == "bad");
    CHECK(gone.node_pool == "default");
    CHECK_THAT(gone.why, Catch::Contains("1 of 10 nodes of NodePool "
                                         "\"default\" are unhealthy"));
  }
  LivenessOptions off;
  off.node_repair_enabled = false;
  const LivenessVerdict disabled =
      Only(PoolWithOneBad("False", 9), kT0 + absl::Hours(1), off);
  CHECK(disabled.action == LivenessAction::kNone);
  CHECK(disabled.reason == "repair_disabled");
}

// `total` nodes of pool "p" of which the first `bad` are NotReady since kT0,
// each with its NodeClaim.
snapshot::Snapshot Pool(int total, int bad) {
  std::vector<v1::Node> nodes;
  std::vector<v1::NodeClaim> claims;
  for (int i = 0; i < total; ++i) {
    NodeOpts n;
    n.name = absl::StrCat("n", i);
    n.nodepool = "p";
    n.ready = i < bad ? "False" : "True";
    n.ready_since = kT0;
    nodes.push_back(MakeNode(n));
    ClaimOpts c;
    c.name = absl::StrCat("c", i);
    c.node_name = n.name;
    c.nodepool = "p";
    claims.push_back(MakeClaim(c));
  }
  return Build(std::move(nodes), std::move(claims));
}

TEST_CASE("liveness: repair blocked above 20 percent unhealthy",
          "[termination][liveness]") {
  struct Case {
    int total;
    int bad;
    LivenessAction action;
    double fraction = 0.2;
  };
  // ceil(20% of 10) = 2; ceil(20% of 15) = 3; ceil(20% of 3) = 1;
  // ceil(56% of 25) = 14 (not 15: 0.56 * 25 in binary is
  // 14.000000000000002); 0% blocks any second unhealthy node.
  const std::vector<Case> cases = {
      {10, 2, LivenessAction::kDeleteNodeClaim},
      {10, 3, LivenessAction::kBlocked},
      {15, 3, LivenessAction::kDeleteNodeClaim},
      {15, 4, LivenessAction::kBlocked},
      {3, 1, LivenessAction::kDeleteNodeClaim},
      {3, 2, LivenessAction::kBlocked},
      {1, 1, LivenessAction::kDeleteNodeClaim},
      {25, 14, LivenessAction::kDeleteNodeClaim, 0.56},
      {25, 15, LivenessAction::kBlocked, 0.56},
      {4, 1, LivenessAction::kBlocked, 0.0},
      {4, 4, LivenessAction::kDeleteNodeClaim, 1.0},
  };
  const absl::Time now = kT0 + absl::Minutes(20);
  for (const Case& c : cases) {
    INFO(c.bad << " of " << c.total << " unhealthy, fraction " << c.fraction);
    LivenessOptions o;
    o.max_unhealthy_fraction = c.fraction;
    const LivenessReport r = Evaluate(Pool(c.total, c.bad), now, o);
    for (int i = 0; i < c.total; ++i) {
      const LivenessVerdict& v = r.verdicts[i];
      if (i >= c.bad) {
        CHECK(v.reason == "node_healthy");
        continue;
      }
      CHECK(v.action == c.action);
      if (c.action == LivenessAction::kBlocked) {
        CHECK(v.reason == "repair_blocked");
        CHECK(v.due == now + absl::Minutes(5));
        CHECK_THAT(v.why, Catch::Contains("repair blocked"));
      }
    }
    if (c.action == LivenessAction::kBlocked) {
      CHECK(r.next_wake == now + absl::Minutes(5));
    }
  }
}

TEST_CASE(
    "liveness: a NodeClaim without a pool is measured against the "
    "cluster",
    "[termination][liveness]") {
  // Pool "p": 2 of 2 unhealthy; a pool-less NodeClaim on one of them sees 2
  // of 10 cluster nodes (ceil(2) allowed) and is repaired, while the pooled
  // ones are blocked.
  std::vector<v1::Node> nodes;
  std::vector<v1::NodeClaim> claims;
  for (int i = 0; i < 10; ++i) {
    NodeOpts n;
    n.name = absl::StrCat("n", i);
    n.nodepool = i < 2 ? "p" : "q";
    n.ready = i < 2 ? "False" : "True";
    n.ready_since = kT0;
    nodes.push_back(MakeNode(n));
  }
  ClaimOpts pooled;
  pooled.name = "pooled";
  pooled.node_name = "n0";
  pooled.nodepool = "p";
  ClaimOpts solo;
  solo.name = "solo";
  solo.node_name = "n1";
  solo.nodepool = "";
  const LivenessReport r =
      Evaluate(Build(std::move(nodes), {MakeClaim(pooled), MakeClaim(solo)}),
               kT0 + absl::Hours(1));
  CHECK(r.verdicts[0].action == LivenessAction::kBlocked);
  CHECK(r.verdicts[1].action == LivenessAction::kDeleteNodeClaim);
  CHECK_THAT(r.verdicts[1].why,
             Catch::Contains("2 of 10 nodes of the cluster"));
}

TEST_CASE(
    "liveness: every NodeClaim gets a verdict, next_wake is the "
    "earliest due",
    "[termination][liveness]") {
  ClaimOpts deleting;
  deleting.name = "deleting";
  deleting.launched = "Unknown";
  deleting.deleted = kT0 - absl::Minutes(1);
  ClaimOpts launching;
  launching.name = "launching";
  launching.launched = "Unknown";
  launching.launched_since = kT0 - absl::Minutes(2);  // Due at kT0 + 3m.
  ClaimOpts orphan;
  orphan.name = "orphan";
  orphan.node_name = "gone";
  NodeOpts slow;
  slow.name = "slow";
  slow.ready = "False";
  slow.ready_since = kT0 - absl::Minutes(10);  // Due at kT0 + 5m.
  ClaimOpts slow_claim;
  slow_claim.name = "slow";
  slow_claim.node_name = "slow";
  NodeOpts leaving = slow;
  leaving.name = "leaving";
  leaving.deleted = kT0;
  ClaimOpts leaving_claim;
  leaving_claim.name = "leaving";
  leaving_claim.node_name = "leaving";
  std::vector<v1::Node> nodes = {MakeNode(slow), MakeNode(leaving)};
  for (int i = 0; i < 8; ++i) {
    NodeOpts ok;
    ok.name = absl::StrCat("ok", i);
    nodes.push_back(MakeNode(ok));
  }
  const LivenessReport r = Evaluate(
      Build(std::move(nodes),
            {MakeClaim(deleting), MakeClaim(launching), MakeClaim(orphan),
             MakeClaim(slow_claim), MakeClaim(leaving_claim)}),
      kT0);
  std::vector<std::string> reasons;
  for (const LivenessVerdict& v : r.verdicts) {
    CHECK(v.action == LivenessAction::kNone);
    CHECK_FALSE(v.why.empty());
    reasons.push_back(v.node_claim + ":" + v.reason);
  }
  CHECK(reasons ==
        std::vector<std::string>{"deleting:deleting", "launching:launching",
                                 "orphan:node_missing", "slow:tolerated",
                                 "leaving:node_deleting"});
  CHECK(r.next_wake == kT0 + absl::Minutes(3));
}

TEST_CASE("liveness: options are validated", "[termination][liveness]") {
  struct Case {
    LivenessOptions options;
    std::string message;
  };
  LivenessOptions launch;
  launch.launch_timeout = absl::Seconds(-1);
  LivenessOptions reg;
  reg.registration_timeout = -absl::InfiniteDuration();
  LivenessOptions toleration;
  toleration.repair_policies = testing::AwsRepairPolicies();
  toleration.repair_policies[2].toleration = absl::Minutes(-15);
  LivenessOptions type;
  type.repair_policies = {{"", "False", absl::Minutes(1)}};
  LivenessOptions status;
  status.repair_policies = {{"Ready", "True", absl::Minutes(1)},
                            {"Ready", "false", absl::Minutes(1)}};
  LivenessOptions high;
  high.max_unhealthy_fraction = 1.5;
  LivenessOptions nan;
  nan.max_unhealthy_fraction = std::numeric_limits<double>::quiet_NaN();
  const std::vector<Case> cases = {
      {launch, "launch_timeout: \"-1s\": must be >= 0"},
      {reg, "registration_timeout: \"-inf\": must be >= 0"},
      {toleration, "repair_policies[2].toleration: \"-15m\": must be >= 0"},
      {type, "repair_policies[0].condition_type: \"\": must not be empty"},
      {status,
       "repair_policies[1].condition_status: \"false\": must be \"True\", "
       "\"False\" or \"Unknown\""},
      {high, "max_unhealthy_fraction: \"1.5\": must be between 0 and 1"},
      {nan, "max_unhealthy_fraction: \"nan\": must be between 0 and 1"},
  };
  const snapshot::Snapshot s = Build({}, {});
  for (const Case& c : cases) {
    absl::StatusOr<LivenessReport> r = EvaluateLiveness(s, kT0, c.options);
    CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(r.status().message() == c.message);
  }
  CHECK(LivenessOptions{}.Validate().ok());
  LivenessOptions never;
  never.launch_timeout = absl::InfiniteDuration();
  ClaimOpts c;
  c.launched = "Unknown";
  const LivenessVerdict v = Only(Build({}, {MakeClaim(c)}), kT0, never);
  CHECK(v.reason == "launching");
  CHECK_FALSE(v.due.has_value());
}

TEST_CASE("liveness: apply deletes, annotates repairs, counts and records",
          "[termination][liveness]") {
  // "late" never launched; "sick" has been NotReady for an hour; "fine" is
  // healthy. Every object carries the termination finalizer, so deleted
  // ones stay with a deletionTimestamp.
  ClaimOpts late;
  late.name = "late";
  late.launched = "Unknown";
  late.nodepool = "p";
  late.finalizers = {"karpenter.sh/termination"};
  ClaimOpts sick = late;
  sick.name = "sick";
  sick.launched = "True";
  sick.node_name = "sick";
  ClaimOpts fine = sick;
  fine.name = "fine";
  fine.node_name = "fine";
  NodeOpts sick_node;
  sick_node.name = "sick";
  sick_node.nodepool = "p";
  sick_node.ready = "False";
  // The repair metrics read the Node's labels, the others the NodeClaim's.
  sick_node.capacity_type = "spot";
  NodeOpts fine_node = sick_node;
  fine_node.name = "fine";
  fine_node.ready = "True";
  std::vector<v1::Node> nodes = {MakeNode(sick_node), MakeNode(fine_node)};
  for (int i = 0; i < 3; ++i) {
    NodeOpts n = fine_node;
    n.name = absl::StrCat("extra", i);
    nodes.push_back(MakeNode(n));
  }
  testing::FakeClock clock(kT0);
  auto cluster = testing::FakeCluster::Create(
      janitor_test::Objects(std::move(nodes), {MakeClaim(late), MakeClaim(sick),
                                               MakeClaim(fine)}),
      clock);
  REQUIRE(cluster.ok());
  absl::StatusOr<snapshot::Snapshot> before = (*cluster)->Read();
  REQUIRE(before.ok());
  const LivenessReport report = Evaluate(*before, kT0);

  testing::RecordingEventRecorder events;
  testing::InMemoryMetrics metrics;
  const JanitorResult result =
      ApplyLiveness(report, **cluster, events, metrics);
  CHECK(result.ok());
  std::vector<std::string> done;
  for (const JanitorAction& a : result.actions) {
    done.push_back(absl::StrCat(JanitorActionKindName(a.kind), " ", a.target));
  }
  // FakeCluster reads NodeClaims sorted by name: fine, late, sick.
  CHECK(done == std::vector<std::string>{"DeleteNodeClaim late",
                                         "AnnotateNodeClaim sick",
                                         "DeleteNodeClaim sick"});
  absl::StatusOr<snapshot::Snapshot> after = (*cluster)->Read();
  REQUIRE(after.ok());
  const auto claim = [&](const std::string& name) -> const v1::NodeClaim& {
    return after->node_claims()[*after->FindNodeClaim(name)];
  };
  CHECK(claim("late").metadata().has_deletion_timestamp());
  CHECK(claim("sick").metadata().has_deletion_timestamp());
  CHECK(claim("sick").metadata().annotations().at(
            "karpenter.sh/nodeclaim-termination-timestamp") ==
        "2026-01-01T00:00:00Z");
  CHECK_FALSE(claim("fine").metadata().has_deletion_timestamp());

  CHECK(janitor_test::MetricValues(metrics) ==
        std::map<std::string, double>{
            {"karpenter_nodeclaims_disrupted_total{"
             "capacity_type=on-demand,nodepool=p,reason="
             "launch_timeout}",
             1},
            {"karpenter_nodeclaims_disrupted_total{"
             "capacity_type=spot,nodepool=p,reason="
             "unhealthy}",
             1},
            {"karpenter_nodeclaims_unhealthy_disrupted_"
             "total{capacity_type=spot,condition="
             "ready,image_id=ami-1,nodepool=p}",
             1},
        });
  CHECK(janitor_test::EventLines(events) ==
        std::vector<std::string>{"GarbageCollected NodeClaim/late",
                                 "GarbageCollected NodeClaim/sick"});
  // Applying the same report again: deleting a deleting NodeClaim is OK and
  // changes nothing; the metric counts calls that deleted.
  CHECK(ApplyLiveness(report, **cluster, events, metrics).ok());
}

TEST_CASE("liveness: apply keeps going past failures, NotFound is done",
          "[termination][liveness]") {
  std::vector<v1::NodeClaim> claims;
  for (const std::string name : {"a", "b", "c"}) {
    ClaimOpts c;
    c.name = name;
    c.launched = "Unknown";
    claims.push_back(MakeClaim(c));
  }
  testing::FakeClock clock(kT0);
  auto cluster = testing::FakeCluster::Create(
      janitor_test::Objects({}, std::move(claims)), clock);
  REQUIRE(cluster.ok());
  absl::StatusOr<snapshot::Snapshot> s = (*cluster)->Read();
  REQUIRE(s.ok());
  const LivenessReport report = Evaluate(*s, kT0);
  REQUIRE((*cluster)
              ->FailNext(testing::FakeMethod::kDeleteNodeClaim,
                         absl::UnavailableError("apiserver down"))
              .ok());
  REQUIRE((*cluster)
              ->FailNext(testing::FakeMethod::kDeleteNodeClaim,
                         absl::NotFoundError("gone"))
              .ok());
  testing::RecordingEventRecorder events;
  testing::InMemoryMetrics metrics;
  const JanitorResult result =
      ApplyLiveness(report, **cluster, events, metrics);
  REQUIRE(result.actions.size() == 3);
  CHECK(result.failures() == 1);
  CHECK(result.actions[0].status.code() == absl::StatusCode::kUnavailable);
  CHECK(result.actions[1].status.ok());
  CHECK(result.actions[1].already_gone);
  CHECK(result.actions[2].status.ok());
  CHECK_FALSE(result.actions[2].already_gone);
  // Only "c" was deleted by this call.
  CHECK(janitor_test::EventLines(events) ==
        std::vector<std::string>{"GarbageCollected NodeClaim/c"});
  CHECK(janitor_test::MetricValues(metrics).size() == 1);
}

}  // namespace
}  // namespace karpenter::termination
