// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Node repair with the provider's policies (termination/liveness.h rule 3,
// janitor.h): AWS's published policies as the fake carries them, the
// earliest due policy, the unhealthy guard, the termination-timestamp
// annotation, the events and the metrics (docs/semantics.md §2.10).

#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "janitor_test_util.h"
#include "karpenter/cloud_provider.h"
#include "karpenter/termination/janitor.h"
#include "karpenter/termination/liveness.h"
#include "karpenter/testing/fake_clock.h"
#include "karpenter/testing/fake_cluster.h"
#include "karpenter/well_known.h"

namespace karpenter::termination {
namespace {

using janitor_test::Build;
using janitor_test::ClaimOpts;
using janitor_test::kT0;
using janitor_test::MakeClaim;
using janitor_test::MakeNode;
using janitor_test::NodeOpts;

LivenessOptions Aws() {
  LivenessOptions o;
  o.repair_policies = testing::AwsRepairPolicies();
  return o;
}

LivenessReport Evaluate(const snapshot::Snapshot& s, absl::Time now,
                        const LivenessOptions& o) {
  absl::StatusOr<LivenessReport> r = EvaluateLiveness(s, now, o);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  return *std::move(r);
}

// The verdict of the NodeClaim `name`.
LivenessVerdict Of(const LivenessReport& r, const std::string& name) {
  for (const LivenessVerdict& v : r.verdicts) {
    if (v.node_claim == name) return v;
  }
  FAIL("no verdict for " << name);
  return {};
}

// A sick Node: `type` has `status` since `since` (Ready is True unless
// `type` is Ready).
NodeOpts Sick(const std::string& name, const std::string& type,
              const std::string& status, absl::Time since) {
  NodeOpts n;
  n.name = name;
  if (type == well_known::kConditionTypeReady) {
    n.ready = status;
    n.ready_since = since;
  } else {
    n.conditions.push_back({.type = type, .status = status, .since = since});
  }
  return n;
}

ClaimOpts ClaimOn(const std::string& node, const std::string& pool) {
  ClaimOpts c;
  c.name = node;
  c.node_name = node;
  c.nodepool = pool;
  return c;
}

// `sick` plus `healthy` Ready Nodes of pool "default", one NodeClaim on
// each sick Node.
snapshot::Snapshot Cluster(const std::vector<NodeOpts>& sick, int healthy) {
  std::vector<v1::Node> nodes;
  std::vector<v1::NodeClaim> claims;
  for (const NodeOpts& n : sick) {
    nodes.push_back(MakeNode(n));
    claims.push_back(MakeClaim(ClaimOn(n.name, n.nodepool)));
  }
  for (int i = 0; i < healthy; ++i) {
    NodeOpts n;
    n.name = absl::StrCat("ok", i);
    nodes.push_back(MakeNode(n));
  }
  return Build(std::move(nodes), std::move(claims));
}

TEST_CASE("repair: the fake carries AWS's seven policies, the SDK its two",
          "[termination][repair]") {
  const std::vector<RepairPolicy> aws = testing::AwsRepairPolicies();
  std::vector<std::string> got;
  for (const RepairPolicy& p : aws) {
    got.push_back(absl::StrCat(p.condition_type, "=", p.condition_status, " ",
                               absl::FormatDuration(p.toleration)));
  }
  CHECK(got == std::vector<std::string>{
                   "Ready=False 30m", "Ready=Unknown 30m",
                   "AcceleratedHardwareReady=False 10m",
                   "StorageReady=False 30m", "NetworkingReady=False 30m",
                   "KernelReady=False 30m", "ContainerRuntimeReady=False 30m"});
  testing::FakeClock clock(kT0);
  auto cloud = testing::FakeCloudProvider::Create(clock);
  REQUIRE(cloud.ok());
  CHECK((*cloud)->RepairPolicies() == aws);
  (*cloud)->SetRepairPolicies({});
  CHECK((*cloud)->RepairPolicies().empty());
  // The interface's default, which a provider without an override gets.
  CHECK((*cloud)->CloudProvider::RepairPolicies() ==
        std::vector<RepairPolicy>{{"Ready", "False", absl::Minutes(15)},
                                  {"Ready", "Unknown", absl::Minutes(15)}});
  CHECK(LivenessOptions{}.repair_policies == DefaultRepairPolicies());
}

TEST_CASE("repair: each AWS condition is repaired after its toleration",
          "[termination][repair]") {
  for (const RepairPolicy& p : testing::AwsRepairPolicies()) {
    INFO(p.condition_type << "=" << p.condition_status);
    const snapshot::Snapshot s =
        Cluster({Sick("sick", p.condition_type, p.condition_status, kT0)}, 9);
    const LivenessVerdict before =
        Of(Evaluate(s, kT0 + p.toleration - absl::Seconds(1), Aws()), "sick");
    CHECK(before.action == LivenessAction::kNone);
    CHECK(before.reason == "tolerated");
    CHECK(before.condition == p.condition_type);
    CHECK(before.due == kT0 + p.toleration);
    CHECK_THAT(before.why,
               Catch::Contains(absl::StrCat(
                   "condition ", p.condition_type, " is ", p.condition_status,
                   " since 2026-01-01T00:00:00Z; repair after ",
                   absl::FormatDuration(p.toleration))));
    const LivenessVerdict at =
        Of(Evaluate(s, kT0 + p.toleration, Aws()), "sick");
    CHECK(at.action == LivenessAction::kDeleteNodeClaim);
    CHECK(at.reason == "unhealthy");
    CHECK(at.condition == p.condition_type);
    CHECK(at.due == kT0 + p.toleration);
  }
}

TEST_CASE("repair: the policy due first wins, and other statuses do not match",
          "[termination][repair]") {
  // Ready=False since kT0 (due +30m) and AcceleratedHardwareReady=False
  // since kT0 + 15m (due +25m): the accelerator is due first.
  NodeOpts both = Sick("both", "Ready", "False", kT0);
  both.conditions.push_back({.type = "AcceleratedHardwareReady",
                             .status = "False",
                             .since = kT0 + absl::Minutes(15)});
  // The same, the accelerator failing later (due +35m): Ready wins.
  NodeOpts later = both;
  later.name = "later";
  later.conditions[0].since = kT0 + absl::Minutes(25);
  // AcceleratedHardwareReady=True and a condition no policy names.
  NodeOpts fine = Sick("fine", "AcceleratedHardwareReady", "True", kT0);
  fine.conditions.push_back(
      {.type = "MemoryPressure", .status = "False", .since = kT0});
  const snapshot::Snapshot s = Cluster({both, later, fine}, 12);
  const LivenessReport r = Evaluate(s, kT0, Aws());
  CHECK(Of(r, "both").condition == "AcceleratedHardwareReady");
  CHECK(Of(r, "both").due == kT0 + absl::Minutes(25));
  CHECK(Of(r, "later").condition == "Ready");
  CHECK(Of(r, "later").due == kT0 + absl::Minutes(30));
  CHECK(Of(r, "fine").reason == "node_healthy");
  CHECK(Of(r, "fine").condition.empty());
  CHECK_FALSE(Of(r, "fine").due.has_value());
  CHECK(r.next_wake == kT0 + absl::Minutes(25));
  const LivenessReport due = Evaluate(s, kT0 + absl::Minutes(25), Aws());
  CHECK(Of(due, "both").action == LivenessAction::kDeleteNodeClaim);
  CHECK(Of(due, "later").action == LivenessAction::kNone);
}

TEST_CASE("repair: no policies or the gate off, no repair",
          "[termination][repair]") {
  const snapshot::Snapshot s =
      Cluster({Sick("sick", "Ready", "False", kT0 - absl::Hours(5))}, 9);
  LivenessOptions none;
  none.repair_policies = {};
  const LivenessVerdict v = Of(Evaluate(s, kT0, none), "sick");
  CHECK(v.action == LivenessAction::kNone);
  CHECK(v.reason == "repair_disabled");
  CHECK_THAT(v.why, Catch::Contains("repair_policies is empty"));
  LivenessOptions off = Aws();
  off.node_repair_enabled = false;
  CHECK(Of(Evaluate(s, kT0, off), "sick").reason == "repair_disabled");
}

TEST_CASE("repair: an absent Ready counts as Unknown since creation",
          "[termination][repair]") {
  NodeOpts n = Sick("sick", "Ready", "", kT0);
  n.created = kT0;
  const snapshot::Snapshot s = Cluster({n}, 9);
  const LivenessVerdict v =
      Of(Evaluate(s, kT0 + absl::Minutes(30), Aws()), "sick");
  CHECK(v.action == LivenessAction::kDeleteNodeClaim);
  CHECK(v.condition == "Ready");
  CHECK_THAT(v.why, Catch::Contains("is absent (counted as Unknown)"));
  // Without a Ready=Unknown policy an absent Ready matches nothing.
  LivenessOptions only_false;
  only_false.repair_policies = {{"Ready", "False", absl::Minutes(1)}};
  CHECK(Of(Evaluate(s, kT0 + absl::Hours(1), only_false), "sick").reason ==
        "node_healthy");
}

TEST_CASE("repair: the guard counts matching Nodes, toleration not counted",
          "[termination][repair]") {
  const absl::Time now = kT0 + absl::Hours(1);
  struct Case {
    std::string name;
    int healthy;
    // Nodes besides "sick" (Ready=False since kT0): NetworkingReady=False
    // for one minute only, so within its toleration.
    int fresh;
    LivenessAction action;
  };
  // 5 Nodes: ceil(20% x 5) = 1 may be unhealthy. 3 Nodes: ceil(0.6) = 1.
  const std::vector<Case> cases = {
      {"5 nodes, 1 unhealthy", 4, 0, LivenessAction::kDeleteNodeClaim},
      {"5 nodes, 2 unhealthy", 3, 1, LivenessAction::kBlocked},
      {"3 nodes, 1 unhealthy", 2, 0, LivenessAction::kDeleteNodeClaim},
      {"3 nodes, 2 unhealthy", 1, 1, LivenessAction::kBlocked},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    std::vector<NodeOpts> sick = {Sick("sick", "Ready", "False", kT0)};
    for (int i = 0; i < c.fresh; ++i) {
      sick.push_back(Sick(absl::StrCat("fresh", i), "NetworkingReady", "False",
                          now - absl::Minutes(1)));
    }
    const LivenessReport r = Evaluate(Cluster(sick, c.healthy), now, Aws());
    const LivenessVerdict v = Of(r, "sick");
    CHECK(v.action == c.action);
    if (c.action == LivenessAction::kBlocked) {
      CHECK(v.reason == "repair_blocked");
      CHECK(v.due == now + kRepairBlockedRecheck);
      CHECK_THAT(v.why, Catch::Contains("2 of "));
      CHECK_THAT(v.why, Catch::Contains("at most 1 "));
    }
    for (int i = 0; i < c.fresh; ++i) {
      CHECK(Of(r, absl::StrCat("fresh", i)).reason == "tolerated");
    }
  }
}

TEST_CASE("repair: a NodeClaim without a pool is measured against all Nodes",
          "[termination][repair]") {
  // Pool "p": the sick pool-less NodeClaim's Node and one other unhealthy
  // Node; 3 Nodes without a pool label (unmanaged) and 5 of pool "q", all
  // Ready. Cluster: 2 of 10 unhealthy, threshold 2 -> repaired. With a
  // third unhealthy (unmanaged) Node: 3 of 10 -> blocked.
  const absl::Time now = kT0 + absl::Hours(1);
  for (const bool third : {false, true}) {
    INFO("third unhealthy node: " << third);
    std::vector<v1::Node> nodes;
    NodeOpts solo = Sick("solo", "Ready", "False", kT0);
    solo.nodepool = "p";
    NodeOpts other = Sick("other", "KernelReady", "False", kT0);
    other.nodepool = "p";
    nodes.push_back(MakeNode(solo));
    nodes.push_back(MakeNode(other));
    for (int i = 0; i < 3; ++i) {
      NodeOpts n;
      n.name = absl::StrCat("unmanaged", i);
      n.nodepool = "";
      if (third && i == 0) n.ready = "Unknown";
      nodes.push_back(MakeNode(n));
    }
    for (int i = 0; i < 5; ++i) {
      NodeOpts n;
      n.name = absl::StrCat("q", i);
      n.nodepool = "q";
      nodes.push_back(MakeNode(n));
    }
    const LivenessReport r = Evaluate(
        Build(std::move(nodes), {MakeClaim(ClaimOn("solo", ""))}), now, Aws());
    const LivenessVerdict v = Of(r, "solo");
    CHECK(v.action == (third ? LivenessAction::kBlocked
                             : LivenessAction::kDeleteNodeClaim));
    CHECK_THAT(v.why, Catch::Contains(absl::StrCat(
                          third ? 3 : 2, " of 10 nodes of the cluster")));
  }
}

TEST_CASE("repair: the termination timestamp is now unless earlier",
          "[termination][repair]") {
  const absl::Time now = kT0 + absl::Hours(1) + absl::Milliseconds(300);
  struct Case {
    std::optional<std::string> existing;
    std::string want;  // "" = kept.
  };
  const std::vector<Case> cases = {
      {std::nullopt, "2026-01-01T01:00:00Z"},
      {"2026-01-01T00:30:00Z", ""},                      // Earlier: kept.
      {"2026-01-01T00:59:59.5+00:00", ""},               // Earlier: kept.
      {"2026-01-01T02:00:00Z", "2026-01-01T01:00:00Z"},  // Later: replaced.
      {"yesterday", "2026-01-01T01:00:00Z"},  // Unparsable: replaced.
  };
  for (const Case& c : cases) {
    INFO(c.existing.value_or("(none)"));
    std::vector<v1::Node> nodes = {
        MakeNode(Sick("sick", "Ready", "False", kT0))};
    ClaimOpts claim = ClaimOn("sick", "default");
    if (c.existing.has_value()) {
      claim.annotations = {
          {std::string(well_known::kNodeClaimTerminationTimestampAnnotationKey),
           *c.existing}};
    }
    for (int i = 0; i < 9; ++i) {
      NodeOpts n;
      n.name = absl::StrCat("ok", i);
      nodes.push_back(MakeNode(n));
    }
    const LivenessVerdict v =
        Of(Evaluate(Build(std::move(nodes), {MakeClaim(claim)}), now, Aws()),
           "sick");
    REQUIRE(v.action == LivenessAction::kDeleteNodeClaim);
    CHECK(v.termination_timestamp == c.want);
  }
}

// Applies liveness to `objects` at `now` with AWS's policies.
struct Applied {
  JanitorResult result;
  testing::RecordingEventRecorder events;
  testing::InMemoryMetrics metrics;
  std::optional<snapshot::Snapshot> after;
};

std::unique_ptr<Applied> Apply(snapshot::ObjectSet objects, absl::Time now) {
  auto out = std::make_unique<Applied>();
  testing::FakeClock clock(now);
  auto cluster = testing::FakeCluster::Create(std::move(objects), clock);
  REQUIRE(cluster.ok());
  absl::StatusOr<snapshot::Snapshot> before = (*cluster)->Read();
  REQUIRE(before.ok());
  out->result = ApplyLiveness(Evaluate(*before, now, Aws()), **cluster,
                              out->events, out->metrics);
  absl::StatusOr<snapshot::Snapshot> after = (*cluster)->Read();
  REQUIRE(after.ok());
  out->after = *std::move(after);
  return out;
}

std::vector<std::string> Actions(const JanitorResult& r) {
  std::vector<std::string> out;
  for (const JanitorAction& a : r.actions) {
    out.push_back(absl::StrCat(JanitorActionKindName(a.kind), " ", a.target));
  }
  return out;
}

TEST_CASE("repair: apply annotates, deletes and counts with the Node's labels",
          "[termination][repair]") {
  const absl::Time now = kT0 + absl::Hours(1);
  // "gpu": AcceleratedHardwareReady=False, no annotation. "kept": Ready
  // Unknown, annotated earlier. Node labels: pool "default", spot; the
  // NodeClaims say on-demand.
  NodeOpts gpu = Sick("gpu", "AcceleratedHardwareReady", "False", kT0);
  gpu.capacity_type = "spot";
  NodeOpts kept = Sick("kept", "Ready", "Unknown", kT0);
  kept.capacity_type = "spot";
  std::vector<v1::Node> nodes = {MakeNode(gpu), MakeNode(kept)};
  for (int i = 0; i < 8; ++i) {
    NodeOpts n;
    n.name = absl::StrCat("ok", i);
    nodes.push_back(MakeNode(n));
  }
  ClaimOpts gpu_claim = ClaimOn("gpu", "default");
  gpu_claim.image_id = "ami-gpu";
  gpu_claim.finalizers = {"karpenter.sh/termination"};
  ClaimOpts kept_claim = ClaimOn("kept", "default");
  kept_claim.finalizers = {"karpenter.sh/termination"};
  kept_claim.annotations = {
      {std::string(well_known::kNodeClaimTerminationTimestampAnnotationKey),
       "2026-01-01T00:45:00Z"}};
  const std::unique_ptr<Applied> a = Apply(
      janitor_test::Objects(std::move(nodes),
                            {MakeClaim(gpu_claim), MakeClaim(kept_claim)}),
      now);
  CHECK(a->result.ok());
  CHECK(Actions(a->result) == std::vector<std::string>{"AnnotateNodeClaim gpu",
                                                       "DeleteNodeClaim gpu",
                                                       "DeleteNodeClaim kept"});
  const auto annotation = [&](const std::string& name) {
    const v1::NodeClaim& c =
        a->after->node_claims()[*a->after->FindNodeClaim(name)];
    CHECK(c.metadata().has_deletion_timestamp());
    return c.metadata().annotations().at(
        std::string(well_known::kNodeClaimTerminationTimestampAnnotationKey));
  };
  CHECK(annotation("gpu") == "2026-01-01T01:00:00Z");
  CHECK(annotation("kept") == "2026-01-01T00:45:00Z");
  CHECK(janitor_test::MetricValues(a->metrics) ==
        std::map<std::string, double>{
            {"karpenter_nodeclaims_disrupted_total{capacity_type=spot,"
             "nodepool=default,reason=unhealthy}",
             2},
            {"karpenter_nodeclaims_unhealthy_disrupted_total{capacity_type="
             "spot,condition=accelerated_hardware_ready,image_id=ami-gpu,"
             "nodepool=default}",
             1},
            {"karpenter_nodeclaims_unhealthy_disrupted_total{capacity_type="
             "spot,condition=ready,image_id=ami-1,nodepool=default}",
             1},
        });
}

TEST_CASE("repair: a blocked repair records NodeRepairBlocked on the Node",
          "[termination][repair]") {
  const absl::Time now = kT0 + absl::Hours(1);
  for (const std::string pool : {"default", ""}) {
    INFO("pool \"" << pool << "\"");
    // Two of three Nodes unhealthy: blocked in the pool and in the cluster.
    NodeOpts a = Sick("a", "StorageReady", "False", kT0);
    NodeOpts b = Sick("b", "Ready", "False", kT0);
    NodeOpts c;
    c.name = "c";
    const std::unique_ptr<Applied> applied =
        Apply(janitor_test::Objects({MakeNode(a), MakeNode(b), MakeNode(c)},
                                    {MakeClaim(ClaimOn("a", pool))}),
              now);
    CHECK(applied->result.actions.empty());
    const std::vector<Event> events = applied->events.events();
    REQUIRE(events.size() == 1);
    const Event& e = events[0];
    CHECK(e.kind == "Node");
    CHECK(e.name == "a");
    CHECK(e.type == EventType::kWarning);
    CHECK(e.reason == "NodeRepairBlocked");
    CHECK(e.message ==
          (pool.empty() ? "more then 20% nodes are unhealthy in the cluster"
                        : "more than 20% nodes are unhealthy in the nodepool"));
    CHECK(applied->metrics.Dump().empty());
  }
}

TEST_CASE("repair: a deleting NodeClaim due for repair is only annotated",
          "[termination][repair]") {
  // "draining" is being deleted (a graceful disruption) while its Node has
  // been NotReady past the toleration: Karpenter annotates it, forcing the
  // drain, and does not delete it again. "forced" already holds an earlier
  // deadline; "waiting" is within the toleration. 3 of 15 Nodes unhealthy:
  // not blocked.
  const absl::Time now = kT0 + absl::Hours(1);
  std::vector<v1::Node> nodes = {
      MakeNode(Sick("draining", "Ready", "False", kT0)),
      MakeNode(Sick("forced", "Ready", "False", kT0)),
      MakeNode(Sick("waiting", "Ready", "False", now - absl::Minutes(10)))};
  for (int i = 0; i < 12; ++i) {
    NodeOpts n;
    n.name = absl::StrCat("ok", i);
    nodes.push_back(MakeNode(n));
  }
  std::vector<v1::NodeClaim> claims;
  for (const std::string name : {"draining", "forced", "waiting"}) {
    ClaimOpts c = ClaimOn(name, "default");
    c.deleted = kT0 + absl::Minutes(50);
    c.finalizers = {"karpenter.sh/termination"};
    if (name == "forced") {
      c.annotations = {
          {std::string(well_known::kNodeClaimTerminationTimestampAnnotationKey),
           "2026-01-01T00:55:00Z"}};
    }
    claims.push_back(MakeClaim(c));
  }
  const LivenessReport r = Evaluate(Build(nodes, claims), now, Aws());
  const LivenessVerdict draining = Of(r, "draining");
  CHECK(draining.action == LivenessAction::kAnnotateNodeClaim);
  CHECK(draining.reason == "unhealthy");
  CHECK(draining.termination_timestamp == "2026-01-01T01:00:00Z");
  CHECK_THAT(draining.why, Catch::StartsWith("NodeClaim is being deleted"));
  CHECK(Of(r, "forced").action == LivenessAction::kNone);
  CHECK(Of(r, "forced").reason == "deleting");
  CHECK(Of(r, "waiting").reason == "deleting");
  CHECK(Of(r, "waiting").due == now + absl::Minutes(20));
  CHECK(r.next_wake == now + absl::Minutes(20));

  const std::unique_ptr<Applied> a =
      Apply(janitor_test::Objects(std::move(nodes), std::move(claims)), now);
  CHECK(a->result.ok());
  CHECK(Actions(a->result) ==
        std::vector<std::string>{"AnnotateNodeClaim draining"});
  CHECK(a->after->node_claims()[*a->after->FindNodeClaim("draining")]
            .metadata()
            .annotations()
            .at(std::string(
                well_known::kNodeClaimTerminationTimestampAnnotationKey)) ==
        "2026-01-01T01:00:00Z");
  CHECK(a->metrics.Dump().empty());
  CHECK(a->events.events().empty());
}

TEST_CASE("repair: condition metric label in snake_case",
          "[termination][repair]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"Ready", "ready"},
      {"AcceleratedHardwareReady", "accelerated_hardware_ready"},
      {"ContainerRuntimeReady", "container_runtime_ready"},
      {"GPUReady", "gpu_ready"},
      {"KernelReady2", "kernel_ready2"},
      {"Disk2Pressure", "disk2_pressure"},
      {"already_snake", "already_snake"},
      {"", ""},
  };
  for (const auto& [in, want] : cases) {
    CHECK(ConditionMetricLabel(in) == want);
  }
}

}  // namespace
}  // namespace karpenter::termination
