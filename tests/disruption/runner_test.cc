// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// disruption::Runner against FakeCluster, FakeCloudProvider and
// FakeNodeLifecycle (with termination::Executor finishing what the runner
// deletes): replacement before deletion, the 15 s validation wait, Drifted
// conditions, cleanup after a restart and write faults.

#include "karpenter/disruption/runner.h"

#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "karpenter/termination/executor.h"
#include "karpenter/testing/fake_clock.h"
#include "karpenter/testing/fake_cloud_provider.h"
#include "karpenter/testing/fake_cluster.h"
#include "karpenter/testing/fake_node_lifecycle.h"
#include "karpenter/testing/recorders.h"
#include "karpenter/well_known.h"
#include "runner_test_util.h"

namespace karpenter::disruption {
namespace {

using runner_test::kStart;
using runner_test::ProviderId;

struct PoolSpec {
  std::string consolidate_after = "Never";
  // Budgets as (nodes, reason or "" for all).
  std::vector<std::pair<std::string, std::string>> budgets = {{"100%", ""}};
};

v1::NodePool MakeNodePool(const PoolSpec& s) {
  std::vector<testing::DisruptionBudgetOptions> budgets;
  for (const auto& [nodes, reason] : s.budgets) {
    budgets.push_back({.nodes = nodes,
                       .reasons = reason.empty()
                                      ? std::vector<std::string>{}
                                      : std::vector<std::string>{reason}});
  }
  return runner_test::RunnerPool(s.consolidate_after, std::move(budgets));
}

struct NodeSpec {
  std::string name;
  // Pods of 800m / 3Gi each, owned by ReplicaSet "app".
  int pods = 0;
  // A leftover of an interrupted command: disrupted taint and
  // DisruptionReason condition.
  bool leftover_marks = false;
};

void AddNode(snapshot::ObjectSet& o, const NodeSpec& s,
             const v1::NodePool& pool) {
  testing::ManagedNode m = runner_test::RunnerNode(s.name, pool);
  if (s.leftover_marks) {
    *m.node.mutable_spec()->add_taints() = testing::DisruptedTaint();
    *m.node_claim.mutable_status()->add_conditions() =
        testing::MakeCondition({.type = "DisruptionReason",
                                .reason = "Drifted",
                                .since = kStart - absl::Hours(24)});
  }
  o.nodes.push_back(std::move(m.node));
  o.node_claims.push_back(std::move(m.node_claim));
  for (int i = 0; i < s.pods; ++i) {
    o.pods.push_back(runner_test::RunnerPod(absl::StrCat(s.name, "-pod-", i),
                                            "app", s.name));
  }
}

const v1::Condition* FindCondition(const v1::NodeClaim& claim,
                                   absl::string_view type) {
  for (const v1::Condition& c : claim.status().conditions()) {
    if (c.type() == type) return &c;
  }
  return nullptr;
}

bool HasDisruptedTaint(const v1::Node& node) {
  for (const v1::Taint& t : node.spec().taints()) {
    if (t.key() == well_known::kDisruptedTaintKey) return true;
  }
  return false;
}

struct World {
  World(const PoolSpec& pool_spec, const std::vector<NodeSpec>& nodes)
      : clock(kStart) {
    const v1::NodePool pool = MakeNodePool(pool_spec);
    snapshot::ObjectSet objects;
    objects.node_pools.push_back(pool);
    for (const NodeSpec& n : nodes) AddNode(objects, n, pool);
    testing::FakeClusterOptions cluster_options;
    cluster_options.placement =
        testing::FakeClusterOptions::Placement::kKubeScheduler;
    absl::StatusOr<std::unique_ptr<testing::FakeCluster>> c =
        testing::FakeCluster::Create(std::move(objects), clock,
                                     cluster_options);
    REQUIRE(c.ok());
    cluster = *std::move(c);
    testing::FakeCloudProviderOptions cloud_options;
    cloud_options.default_image_id = "image-1";
    absl::StatusOr<std::unique_ptr<testing::FakeCloudProvider>> p =
        testing::FakeCloudProvider::Create(clock, cloud_options);
    REQUIRE(p.ok());
    cloud = *std::move(p);
    for (const NodeSpec& n : nodes) {
      REQUIRE(cloud->AddInstance(runner_test::RunnerInstance(n.name)).ok());
    }
    absl::StatusOr<std::unique_ptr<testing::FakeNodeLifecycle>> l =
        testing::FakeNodeLifecycle::Create(*cluster, *cloud, clock);
    REQUIRE(l.ok());
    lifecycle = *std::move(l);
    absl::StatusOr<std::unique_ptr<termination::Executor>> e =
        termination::Executor::Create(*cluster, *cluster, *cloud, events,
                                      metrics, clock, {});
    REQUIRE(e.ok());
    executor = *std::move(e);
    runner = NewRunner();
  }

  std::unique_ptr<Runner> NewRunner() {
    absl::StatusOr<std::unique_ptr<Runner>> r =
        Runner::Create(*cluster, *cloud, events, metrics, clock, {});
    REQUIRE(r.ok());
    return *std::move(r);
  }

  RunReport RunOnce() {
    absl::StatusOr<RunReport> r = runner->RunOnce();
    REQUIRE(r.ok());
    return *std::move(r);
  }

  // The runner, then the executor and the kubelet, then one second.
  void Step() {
    RunOnce();
    REQUIRE(executor->RunOnce().ok());
    REQUIRE(lifecycle->Reconcile().ok());
    REQUIRE(clock.Advance(absl::Seconds(1)).ok());
  }

  snapshot::Snapshot Read() {
    absl::StatusOr<snapshot::Snapshot> s = cluster->Read();
    REQUIRE(s.ok());
    return *std::move(s);
  }

  testing::FakeClock clock;
  std::unique_ptr<testing::FakeCluster> cluster;
  std::unique_ptr<testing::FakeCloudProvider> cloud;
  std::unique_ptr<testing::FakeNodeLifecycle> lifecycle;
  testing::RecordingEventRecorder events;
  testing::InMemoryMetrics metrics;
  std::unique_ptr<termination::Executor> executor;
  std::unique_ptr<Runner> runner;
};

// The NodeClaim "old-a" (replacements sort before it).
v1::NodeClaim OldClaim(World& w) {
  const snapshot::Snapshot s = w.Read();
  std::optional<snapshot::NodeClaimIndex> i = s.FindNodeClaim("old-a");
  REQUIRE(i.has_value());
  return s.node_claims()[*i];
}

// Replacement NodeClaims (not named old-*) whose Node is initialised.
int InitialisedReplacements(const snapshot::Snapshot& s) {
  int n = 0;
  for (const v1::NodeClaim& c : s.node_claims()) {
    if (c.metadata().name().rfind("old-", 0) == 0) continue;
    const v1::Condition* init = FindCondition(c, "Initialized");
    n += init != nullptr && init->status() == "True";
  }
  return n;
}

TEST_CASE("runner: a drifted node is replaced before it is deleted",
          "[runner]") {
  World w({}, {{.name = "old-a", .pods = 2}});
  w.cloud->SetImage("image-2");
  bool seen_replacement = false;
  bool seen_deletion = false;
  for (int i = 0; i < 600 && !seen_deletion; ++i) {
    const snapshot::Snapshot s = w.Read();
    std::optional<snapshot::NodeClaimIndex> old = s.FindNodeClaim("old-a");
    const bool deleting =
        !old.has_value() ||
        s.node_claims()[*old].metadata().has_deletion_timestamp();
    if (deleting) {
      // Replacement before deletion: it is already initialised.
      CHECK(InitialisedReplacements(s) == 1);
      seen_deletion = true;
      break;
    }
    seen_replacement |= s.node_claims().size() == 2;
    w.Step();
  }
  CHECK(seen_replacement);
  REQUIRE(seen_deletion);

  // The rollout finishes: the old node is gone and its pods run on the new.
  for (int i = 0; i < 600 && w.Read().FindNodeClaim("old-a").has_value(); ++i) {
    w.Step();
  }
  for (int i = 0; i < 60; ++i) w.Step();
  const snapshot::Snapshot s = w.Read();
  CHECK_FALSE(s.FindNodeClaim("old-a").has_value());
  REQUIRE(s.nodes().size() == 1);
  CHECK(s.pod_count() == 2);
  for (uint32_t p_index = 0; p_index < s.pod_count(); ++p_index) {
    const v1::Pod p = s.DecodePod(p_index);
    CHECK(p.spec().node_name() == s.nodes()[0].metadata().name());
  }
  CHECK(w.cluster->PdbViolations().empty());
}

TEST_CASE("runner: an emptiness command waits 15 s for its validation",
          "[runner]") {
  // Consolidation of the busy node is not under test: its budget is 0.
  World w({.consolidate_after = "0s",
           .budgets = {{"100%", ""}, {"0", "Underutilized"}}},
          {{.name = "old-busy", .pods = 1}, {.name = "old-empty"}});
  const RunReport first = w.RunOnce();
  REQUIRE(first.plan.commands.size() == 1);
  const Command& cmd = first.plan.commands[0];
  CHECK(cmd.method == Method::kEmptiness);
  CHECK(cmd.validate_at == kStart + absl::Seconds(15));
  CHECK(first.started == 0);
  CHECK(first.waiting_validation == 1);
  CHECK(first.next_wake <= kStart + absl::Seconds(15));

  REQUIRE(w.clock.Advance(absl::Seconds(14)).ok());
  const RunReport waiting = w.RunOnce();
  CHECK(waiting.started == 0);
  CHECK(waiting.waiting_validation == 1);
  // The waiting command's node is in flight for the new pass.
  CHECK(waiting.plan.commands.empty());
  CHECK(waiting.plan.VerdictOf("old-empty")->code == reasons::kInFlight);
  CHECK_FALSE(HasDisruptedTaint(w.Read().nodes()[1]));

  REQUIRE(w.clock.Advance(absl::Seconds(1)).ok());
  const RunReport due = w.RunOnce();
  CHECK(due.rejected.empty());
  CHECK(due.started == 1);
  CHECK(due.waiting_validation == 0);
  CHECK(w.runner->orchestrator().size() == 1);
  const snapshot::Snapshot s = w.Read();
  REQUIRE(s.nodes()[1].metadata().name() == "old-empty");
  CHECK(HasDisruptedTaint(s.nodes()[1]));
  CHECK_FALSE(HasDisruptedTaint(s.nodes()[0]));
}

TEST_CASE("runner: a waiting emptiness command is rejected when a pod lands",
          "[runner]") {
  World w({.consolidate_after = "0s",
           .budgets = {{"100%", ""}, {"0", "Underutilized"}}},
          {{.name = "old-busy", .pods = 1}, {.name = "old-empty"}});
  REQUIRE(w.RunOnce().waiting_validation == 1);
  v1::Pod pod;
  pod.mutable_metadata()->set_name("late");
  pod.mutable_metadata()->set_namespace_("default");
  v1::OwnerReference* ref = pod.mutable_metadata()->add_owner_references();
  ref->set_api_version("apps/v1");
  ref->set_kind("ReplicaSet");
  ref->set_name("late");
  ref->set_controller(true);
  pod.mutable_spec()->set_node_name("old-empty");
  pod.mutable_status()->set_phase("Running");
  REQUIRE(w.cluster->AddPod(pod).ok());
  REQUIRE(w.clock.Advance(absl::Seconds(15)).ok());
  const RunReport due = w.RunOnce();
  CHECK(due.started == 0);
  REQUIRE(due.rejected.size() == 1);
  CHECK_THAT(due.rejected[0], Catch::StartsWith("Emptiness: "));
  CHECK(w.runner->orchestrator().size() == 0);
  // validation.go counts the candidate that dropped out.
  CHECK(w.metrics.Value(metrics::kVoluntaryDisruptionFailedValidationsTotal,
                        {{"consolidation_type", "empty"}}) == 1);
}

TEST_CASE(
    "runner: a consolidation that fails validation is published as "
    "Karpenter publishes it",
    "[runner][balanced]") {
  World w({.consolidate_after = "0s"},
          {{.name = "old-a", .pods = 1}, {.name = "old-b", .pods = 1}});
  const RunReport first = w.RunOnce();
  REQUIRE(first.plan.commands.size() == 1);
  const Command& cmd = first.plan.commands[0];
  REQUIRE(cmd.method == Method::kSingleNodeConsolidation);
  REQUIRE(cmd.candidates.size() == 1);
  const std::string node = cmd.candidates[0].node_name;
  // The pass's metrics: both consolidation methods found 2 eligible nodes,
  // and the single-node move was counted (not scored: not Balanced).
  CHECK(w.metrics.Value(metrics::kVoluntaryDisruptionEligibleNodes,
                        {{"reason", "underutilized"}}) == 2);
  CHECK(w.metrics.Value(metrics::kConsolidationMovesTotal,
                        {{"decision", "approved"},
                         {"nodepool", "default"},
                         {"policy", "WhenEmptyOrUnderutilized"}}) == 1);
  CHECK(w.metrics
            .Observations(metrics::kConsolidationScore,
                          {{"decision", "approved"},
                           {"nodepool", "default"},
                           {"policy", "WhenEmptyOrUnderutilized"}})
            .empty());

  // The node turns do-not-disrupt before the command is validated.
  REQUIRE(w.cluster
              ->SetAnnotation(ObjectKind::kNode, node,
                              "karpenter.sh/do-not-disrupt", "true")
              .ok());
  w.events.Clear();
  REQUIRE(w.clock.Advance(absl::Seconds(15)).ok());
  const RunReport due = w.RunOnce();
  CHECK(due.started == 0);
  REQUIRE(due.rejected.size() == 1);
  CHECK(w.metrics.Value(metrics::kVoluntaryDisruptionFailedValidationsTotal,
                        {{"consolidation_type", "single"}}) == 1);
  std::vector<std::string> rejected;
  for (const Event& e : w.events.events()) {
    if (e.reason == events::kConsolidationRejected) {
      rejected.push_back(absl::StrCat(e.kind, "/", e.name, ": ", e.message));
    }
  }
  const std::string text =
      absl::StrCat("Consolidation rejected: delete: [", node,
                   "], reason: churn (savings: $0.10)");
  CHECK(rejected ==
        std::vector<std::string>{absl::StrCat("Node/", node, ": ", text),
                                 absl::StrCat("NodeClaim/", node, ": ", text)});
}

TEST_CASE("runner: the Drifted condition is written through the ClusterView",
          "[runner]") {
  World w({.budgets = {{"0", ""}}}, {{.name = "old-a", .pods = 1}});
  w.cloud->SetImage("image-2");
  const RunReport r = w.RunOnce();
  CHECK(r.errors.empty());
  REQUIRE(r.plan.drift_updates.size() == 1);
  CHECK(r.plan.commands.empty());  // The budget is 0.
  const v1::NodeClaim claim = OldClaim(w);
  const v1::Condition* drifted =
      FindCondition(claim, well_known::kConditionTypeDrifted);
  REQUIRE(drifted != nullptr);
  CHECK(drifted->status() == "True");
  CHECK(drifted->reason() == testing::kImageDrift);
  CHECK(drifted->last_transition_time().seconds() ==
        absl::ToUnixSeconds(kStart));

  // Written once: the next pass has nothing to change.
  REQUIRE(w.clock.Advance(absl::Seconds(10)).ok());
  CHECK(w.RunOnce().plan.drift_updates.empty());

  // The image goes back: the condition is removed.
  w.cloud->SetImage("image-1");
  const RunReport back = w.RunOnce();
  REQUIRE(back.plan.drift_updates.size() == 1);
  CHECK(back.plan.drift_updates[0].change ==
        drift::DriftConditionChange::kRemove);
  CHECK(FindCondition(OldClaim(w), well_known::kConditionTypeDrifted) ==
        nullptr);
}

TEST_CASE("runner: a new runner cleans up the marks of an interrupted command",
          "[runner]") {
  SECTION("a leftover from before the start") {
    World w({}, {{.name = "old-a", .pods = 1, .leftover_marks = true}});
    const RunReport r = w.RunOnce();
    CHECK(r.errors.empty());
    CHECK(r.plan.commands.empty());
    const snapshot::Snapshot s = w.Read();
    CHECK_FALSE(HasDisruptedTaint(s.nodes()[0]));
    CHECK(FindCondition(s.node_claims()[0],
                        well_known::kConditionTypeDisruptionReason) == nullptr);
  }
  SECTION("a command cut short by a restart") {
    World w({}, {{.name = "old-a", .pods = 1}});
    w.cloud->SetImage("image-2");
    const RunReport r = w.RunOnce();
    REQUIRE(r.started == 1);
    REQUIRE(HasDisruptedTaint(w.Read().nodes()[0]));
    // The restart forgets the queue; the drift went away meanwhile.
    w.cloud->SetImage("image-1");
    REQUIRE(w.cloud->SetDrifted(ProviderId("old-a"), std::nullopt).ok());
    w.runner = w.NewRunner();
    const RunReport after = w.RunOnce();
    CHECK(after.errors.empty());
    CHECK(after.plan.commands.empty());
    const snapshot::Snapshot s = w.Read();
    std::optional<snapshot::NodeIndex> old = s.FindNode("old-a");
    REQUIRE(old.has_value());
    CHECK_FALSE(HasDisruptedTaint(s.nodes()[*old]));
    CHECK(FindCondition(s.node_claims()[*s.FindNodeClaim("old-a")],
                        well_known::kConditionTypeDisruptionReason) == nullptr);
  }
}

TEST_CASE("runner: write faults are reported without failing the pass",
          "[runner]") {
  World w({}, {{.name = "old-a", .pods = 1}});
  w.cloud->SetImage("image-2");
  SECTION("the Drifted condition write fails, then is retried") {
    REQUIRE(w.cluster
                ->FailNext(testing::FakeMethod::kSetNodeClaimCondition,
                           absl::UnavailableError("etcd is down"))
                .ok());
    const RunReport r = w.RunOnce();
    REQUIRE(r.errors.size() == 1);
    CHECK_THAT(r.errors[0], Catch::Contains("Drifted condition of old-a") &&
                                Catch::Contains("etcd is down"));
    // The command was still started (the mark is a separate write).
    CHECK(r.started == 1);
    CHECK(FindCondition(OldClaim(w), well_known::kConditionTypeDrifted) ==
          nullptr);
    const RunReport retry = w.RunOnce();
    CHECK(retry.errors.empty());
    CHECK(FindCondition(OldClaim(w), well_known::kConditionTypeDrifted) !=
          nullptr);
  }
  SECTION("the start fails on the taint") {
    REQUIRE(w.cluster
                ->FailNext(testing::FakeMethod::kTaintNode,
                           absl::UnavailableError("etcd is down"))
                .ok());
    const RunReport r = w.RunOnce();
    REQUIRE(r.errors.size() == 1);
    CHECK_THAT(r.errors[0], Catch::StartsWith("start Drift: UNAVAILABLE") &&
                                Catch::Contains("etcd is down"));
    CHECK(r.started == 0);
    CHECK(w.runner->orchestrator().size() == 0);
    CHECK(w.Read().node_claims().size() == 1);  // Nothing launched.
  }
  SECTION("a failed read fails the pass and applies nothing") {
    REQUIRE(w.cluster
                ->FailNext(testing::FakeMethod::kRead,
                           absl::UnavailableError("etcd is down"))
                .ok());
    absl::StatusOr<RunReport> r = w.runner->RunOnce();
    CHECK(absl::IsUnavailable(r.status()));
    CHECK(w.runner->orchestrator().size() == 0);
  }
}

}  // namespace
}  // namespace karpenter::disruption
