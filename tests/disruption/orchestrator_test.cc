// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/disruption/orchestrator.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "karpenter/termination/executor.h"
#include "karpenter/testing/builders.h"
#include "karpenter/testing/fake_clock.h"
#include "karpenter/testing/fake_cloud_provider.h"
#include "karpenter/testing/fake_cluster.h"
#include "karpenter/testing/fake_node_lifecycle.h"
#include "karpenter/testing/recorders.h"
#include "karpenter/time_util.h"

namespace karpenter::disruption {
namespace {

using testing::FakeClock;
using testing::FakeCloudProvider;
using testing::FakeCluster;
using testing::FakeMethod;
using testing::FakeNodeLifecycle;

// 2024-01-01T00:00:00Z.
constexpr absl::Time kT0 = testing::kTestEpoch;

std::string IdOf(const std::string& node) {
  return "fake:///test-zone-a/i-" + node;
}

// A Ready, initialised managed Node of `pool` and its NodeClaim
// `<node>-claim`, both with the termination finalizer: the kit's
// (karpenter/testing/builders.h) without instance-type, zone or
// capacity-type labels.
void AddManaged(snapshot::ObjectSet& o, const std::string& node,
                const std::string& pool) {
  testing::ManagedNode m = testing::MakeManagedNode(
      {.name = node,
       .provider_id = IdOf(node),
       .nodepool = pool,
       .finalizers = {"karpenter.sh/termination"}},
      {.nodepool = pool,
       .finalizers = {"karpenter.sh/termination"},
       .conditions = testing::LifecycleConditions(kT0 - absl::Hours(1))});
  o.nodes.push_back(std::move(m.node));
  o.node_claims.push_back(std::move(m.node_claim));
}

Candidate Cand(const std::string& node, const std::string& pool = "a") {
  Candidate c;
  c.node_name = node;
  c.node_claim_name = node + "-claim";
  c.node_pool_name = pool;
  c.provider_id = IdOf(node);
  c.capacity_type = "on-demand";
  c.reschedulable_pods = {0, 1};
  return c;
}

Replacement Repl(const std::string& name, const std::string& pool = "a") {
  Replacement r;
  r.node_pool = pool;
  r.instance_types = {"m5.large"};
  r.node_claim.mutable_metadata()->set_name(name);
  v1::NodeSelectorRequirement* req =
      r.node_claim.mutable_spec()->add_requirements();
  req->set_key("node.kubernetes.io/instance-type");
  req->set_operator_("In");
  req->add_values("m5.large");
  return r;
}

Command MakeCommand(Method method, std::vector<Candidate> candidates,
                    std::vector<Replacement> replacements = {}) {
  Command c;
  c.method = method;
  c.candidates = std::move(candidates);
  c.replacements = std::move(replacements);
  return c;
}

// n1, n2 in NodePool "a"; n3 in "b"; each with a Running instance.
struct Env {
  FakeClock clock{kT0};
  std::unique_ptr<FakeCluster> cluster;
  std::unique_ptr<FakeCloudProvider> cloud;
  std::unique_ptr<FakeNodeLifecycle> lifecycle;
  testing::RecordingEventRecorder events;
  testing::InMemoryMetrics metrics;
  std::unique_ptr<Orchestrator> orchestrator;
  OrchestratorOptions options;

  explicit Env(OrchestratorOptions o = {},
               testing::FakeCloudProviderOptions cloud_options = {})
      : options(o) {
    snapshot::ObjectSet objects;
    AddManaged(objects, "n1", "a");
    AddManaged(objects, "n2", "a");
    AddManaged(objects, "n3", "b");
    auto c = FakeCluster::Create(std::move(objects), clock);
    REQUIRE(c.ok());
    cluster = *std::move(c);
    auto p = FakeCloudProvider::Create(clock, cloud_options);
    REQUIRE(p.ok());
    cloud = *std::move(p);
    for (const char* node : {"n1", "n2", "n3"}) {
      Instance i;
      i.provider_id = IdOf(node);
      i.created = kT0 - absl::Hours(1);
      REQUIRE(cloud->AddInstance(i).ok());
    }
    auto l = FakeNodeLifecycle::Create(*cluster, *cloud, clock);
    REQUIRE(l.ok());
    lifecycle = *std::move(l);
    Restart();
  }
  // A new orchestrator: the queue and backoffs are lost.
  void Restart() {
    auto made =
        Orchestrator::Create(*cluster, *cloud, events, metrics, clock, options);
    REQUIRE(made.ok());
    orchestrator = *std::move(made);
  }
  snapshot::Snapshot Read() {
    auto s = cluster->Read();
    REQUIRE(s.ok());
    return *std::move(s);
  }
  Orchestrator::Report Reconcile() {
    auto r = orchestrator->Reconcile(Read());
    REQUIRE(r.ok());
    return *std::move(r);
  }
  void Advance(absl::Duration d) { REQUIRE(clock.Advance(d).ok()); }
  void RunLifecycle() { REQUIRE(lifecycle->Reconcile().ok()); }
  const v1::Node* Node(const std::string& name) {
    snapshot_ = Read();
    auto n = snapshot_.FindNode(name);
    return n ? &snapshot_.nodes()[*n] : nullptr;
  }
  const v1::NodeClaim* Claim(const std::string& name) {
    snapshot_ = Read();
    auto c = snapshot_.FindNodeClaim(name);
    return c ? &snapshot_.node_claims()[*c] : nullptr;
  }
  bool Tainted(const std::string& node) {
    for (const v1::Taint& t : Node(node)->spec().taints()) {
      if (t.key() == "karpenter.sh/disrupted") return true;
    }
    return false;
  }
  // The DisruptionReason condition's reason, or "" if absent.
  std::string Reason(const std::string& claim) {
    for (const v1::Condition& c : Claim(claim)->status().conditions()) {
      if (c.type() == "DisruptionReason") return c.reason();
    }
    return "";
  }
  bool Deleting(const std::string& claim) {
    const v1::NodeClaim* c = Claim(claim);
    return c == nullptr || c->metadata().has_deletion_timestamp();
  }
  // Index of the first call-log line containing `text`, or -1.
  int LogIndex(const std::string& text) {
    const std::vector<std::string> log = cluster->CallLog();
    for (size_t i = 0; i < log.size(); ++i) {
      if (absl::StrContains(log[i], text)) return static_cast<int>(i);
    }
    return -1;
  }

 private:
  snapshot::Snapshot snapshot_;
};

MetricLabels Labels(const std::string& decision, const std::string& reason,
                    const std::string& type) {
  return {
      {"decision", decision}, {"reason", reason}, {"consolidation_type", type}};
}

TEST_CASE(
    "orchestrator: replacements initialise before any candidate is "
    "deleted",
    "[orchestrator]") {
  Env env;
  REQUIRE(env.orchestrator
              ->Start(MakeCommand(Method::kDrift, {Cand("n1")}, {Repl("r1")}))
              .ok());
  CHECK(env.orchestrator->size() == 1);
  CHECK(env.orchestrator->InFlightProviderIds().contains(IdOf("n1")));
  CHECK(env.Tainted("n1"));
  CHECK(env.Reason("n1-claim") == "Drifted");
  // Cloud first: the NodeClaim is created with the instance's providerID.
  const v1::NodeClaim* r1 = env.Claim("r1");
  REQUIRE(r1 != nullptr);
  CHECK(absl::StartsWith(r1->status().provider_id(), "fake:///"));
  CHECK(env.cloud->Exists(r1->status().provider_id()));
  CHECK(r1->metadata().labels().at("karpenter.sh/nodepool") == "a");
  CHECK(r1->metadata().finalizers(0) == "karpenter.sh/termination");

  // Pending instance: nothing registers, the command waits.
  env.RunLifecycle();
  Orchestrator::Report report = env.Reconcile();
  CHECK(report.waiting == 1);
  CHECK(report.completed == 0);
  REQUIRE(report.next_wake.has_value());
  CHECK(*report.next_wake == kT0 + absl::Minutes(10));
  CHECK_FALSE(env.Deleting("n1-claim"));
  CHECK(env.events.Count(events::kDisruptionLaunching) == 1);
  CHECK(env.events.Count(events::kDisruptionWaitingReadiness) == 1);
  env.Advance(absl::Seconds(10));
  CHECK(env.Reconcile().waiting == 1);
  CHECK(env.events.Count(events::kDisruptionWaitingReadiness) == 1);  // Once.

  env.Advance(absl::Seconds(20));  // Running: registered and initialised.
  env.RunLifecycle();
  report = env.Reconcile();
  CHECK(report.completed == 1);
  CHECK(report.waiting == 0);
  CHECK_FALSE(report.next_wake.has_value());
  CHECK(env.Deleting("n1-claim"));
  CHECK_FALSE(env.Deleting("n2-claim"));
  CHECK(env.orchestrator->size() == 0);
  CHECK(env.orchestrator->InFlightProviderIds().empty());

  const int initialised = env.LogIndex(
      "SetNodeClaimStatus r1 Launched=True "
      "Registered=True Initialized=True");
  const int deleted = env.LogIndex("DeleteNodeClaim n1-claim");
  REQUIRE(initialised >= 0);
  REQUIRE(deleted >= 0);
  CHECK(initialised < deleted);
  CHECK(env.LogIndex("DeleteNodeClaim r1") == -1);

  CHECK(env.events.Lines() ==
        std::vector<std::string>{
            "Normal DisruptionLaunching NodeClaim/r1: Launching NodeClaim: "
            "Drifted",
            "Normal DisruptionWaitingReadiness NodeClaim/r1: Waiting on "
            "readiness to continue disruption",
            "Normal DisruptionTerminating Node/n1: Disrupting Node: Drifted",
            "Normal DisruptionTerminating NodeClaim/n1-claim: Disrupting "
            "NodeClaim: Drifted"});
  CHECK(env.metrics.Value(metrics::kVoluntaryDisruptionDecisionsTotal,
                          Labels("replace", "drifted", "")) == 1);
  MetricLabels by_pool = Labels("replace", "drifted", "");
  by_pool["nodepool"] = "a";
  CHECK(env.metrics.Value(metrics::kVoluntaryDisruptionDecisionsByNodePoolTotal,
                          by_pool) == 1);
  const MetricLabels disrupted = {
      {"reason", "drifted"}, {"nodepool", "a"}, {"capacity_type", "on-demand"}};
  CHECK(env.metrics.Value(metrics::kNodeClaimsDisruptedTotal, disrupted) == 1);
  CHECK(env.metrics.Value(metrics::kPodsDisruptionInitiatedTotal, disrupted) ==
        2);
  CHECK(env.metrics.contract_violations() == 0);
}

TEST_CASE("orchestrator: delete-only and forceful commands", "[orchestrator]") {
  Env env;
  REQUIRE(env.orchestrator
              ->Start(MakeCommand(Method::kEmptiness, {Cand("n1"), Cand("n2")}))
              .ok());
  CHECK(env.Reason("n2-claim") == "Empty");
  CHECK(env.orchestrator->size() == 1);
  const Orchestrator::Report report = env.Reconcile();
  CHECK(report.completed == 1);
  CHECK(env.Deleting("n1-claim"));
  CHECK(env.Deleting("n2-claim"));
  CHECK(env.metrics.Value(metrics::kVoluntaryDisruptionDecisionsTotal,
                          Labels("delete", "empty", "empty")) == 1);
  CHECK(env.events.Count(events::kDisruptionLaunching) == 0);
  CHECK(env.events.Count(events::kDisruptionTerminating) == 4);

  // Forceful: deleted by Start, never queued, budget-free of backoff.
  REQUIRE(env.orchestrator
              ->Start(MakeCommand(Method::kExpiration, {Cand("n3", "b")}))
              .ok());
  CHECK(env.orchestrator->size() == 0);
  CHECK(env.Deleting("n3-claim"));
  CHECK(env.Reason("n3-claim") == "Expired");
  CHECK(env.metrics.Value(metrics::kNodeClaimsDisruptedTotal,
                          {{"reason", "expired"},
                           {"nodepool", "b"},
                           {"capacity_type", "on-demand"}}) == 1);
  const absl::Status with_replacement = env.orchestrator->Start(
      MakeCommand(Method::kExpiration, {Cand("n3", "b")}, {Repl("r1")}));
  CHECK(absl::IsInvalidArgument(with_replacement));
  CHECK(absl::StrContains(with_replacement.message(), "command.replacements"));
}

TEST_CASE("orchestrator: a failed mark aborts replacements, narrows deletes",
          "[orchestrator]") {
  Env env;
  // With replacements: abort, remove every mark, launch nothing.
  REQUIRE(env.cluster
              ->FailNext(FakeMethod::kSetNodeClaimCondition,
                         absl::AbortedError("conflict"))
              .ok());
  const absl::Status s = env.orchestrator->Start(
      MakeCommand(Method::kDrift, {Cand("n1"), Cand("n2")}, {Repl("r1")}));
  CHECK(absl::IsAborted(s));
  CHECK(absl::StrContains(s.message(), "mark candidate \"n1\""));
  CHECK_FALSE(env.Tainted("n1"));
  CHECK_FALSE(env.Tainted("n2"));
  CHECK(env.Reason("n2-claim").empty());
  CHECK(env.cloud->CallCount(testing::CloudMethod::kCreate) == 0);
  CHECK(env.orchestrator->size() == 0);

  // Delete-only: continue with the candidates marked.
  REQUIRE(env.cluster
              ->FailNext(FakeMethod::kTaintNode, absl::AbortedError("conflict"))
              .ok());
  REQUIRE(env.orchestrator
              ->Start(MakeCommand(Method::kEmptiness, {Cand("n1"), Cand("n2")}))
              .ok());
  CHECK_FALSE(env.Tainted("n1"));
  CHECK(env.Tainted("n2"));
  CHECK(env.orchestrator->InFlightProviderIds() ==
        std::set<std::string, std::less<>>{IdOf("n2")});
  env.Reconcile();
  CHECK_FALSE(env.Deleting("n1-claim"));
  CHECK(env.Deleting("n2-claim"));
}

TEST_CASE(
    "orchestrator: a queued candidate and malformed commands are "
    "refused",
    "[orchestrator]") {
  Env env;
  REQUIRE(env.orchestrator
              ->Start(MakeCommand(Method::kDrift, {Cand("n1")}, {Repl("r1")}))
              .ok());
  const absl::Status again = env.orchestrator->Start(
      MakeCommand(Method::kEmptiness, {Cand("n2"), Cand("n1")}));
  CHECK(absl::IsAlreadyExists(again));
  CHECK(absl::StrContains(again.message(), "\"n1\""));
  CHECK_FALSE(env.Tainted("n2"));  // Refused before marking anything.
  CHECK(env.orchestrator->size() == 1);

  Candidate no_id = Cand("n2");
  no_id.provider_id.clear();
  Replacement unnamed = Repl("");
  struct Case {
    const char* name;
    Command command;
    const char* field;
  };
  const std::vector<Case> cases = {
      {"no candidates", MakeCommand(Method::kDrift, {}), "command.candidates"},
      {"no provider ID", MakeCommand(Method::kEmptiness, {no_id}),
       "command.candidates[0].provider_id"},
      {"duplicate", MakeCommand(Method::kEmptiness, {Cand("n2"), Cand("n2")}),
       "command.candidates[1].provider_id"},
      {"unnamed replacement",
       MakeCommand(Method::kDrift, {Cand("n2")}, {unnamed}),
       "command.replacements[0].node_claim.metadata.name"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const absl::Status s = env.orchestrator->Start(c.command);
    CHECK(absl::IsInvalidArgument(s));
    CHECK(absl::StrContains(s.message(), c.field));
  }
  CHECK(env.orchestrator->size() == 1);
}

TEST_CASE("orchestrator: a timed-out command rolls back without leaking",
          "[orchestrator]") {
  testing::FakeCloudProviderOptions stuck;
  stuck.launch_latency = absl::InfiniteDuration();  // Never Running.
  Env env({}, stuck);
  CHECK(env.orchestrator->Timeout() == absl::Minutes(10));
  REQUIRE(env.orchestrator
              ->Start(MakeCommand(Method::kDrift, {Cand("n1")}, {Repl("r1")}))
              .ok());
  const std::string id = env.Claim("r1")->status().provider_id();
  env.Advance(absl::Minutes(10) - absl::Seconds(1));
  env.RunLifecycle();
  Orchestrator::Report report = env.Reconcile();
  CHECK(report.waiting == 1);
  CHECK(*report.next_wake == kT0 + absl::Minutes(10));
  CHECK(env.Tainted("n1"));

  env.Advance(absl::Seconds(1));
  report = env.Reconcile();
  CHECK(report.rolled_back == 1);
  CHECK(env.orchestrator->size() == 0);
  REQUIRE_FALSE(report.log.empty());
  CHECK(absl::StrContains(report.log.back(), "timed out after 10m"));
  CHECK(env.orchestrator->Backoffs() ==
        std::map<std::string, absl::Time>{
            {"a", kT0 + absl::Minutes(10) + absl::Seconds(10)}});
  // The replacement is deleted, NodeClaim and instance.
  CHECK(env.Deleting("r1"));
  env.Advance(absl::Seconds(10));  // termination_latency.
  CHECK_FALSE(env.cloud->Exists(id));
  // The candidate is unmarked and kept.
  CHECK_FALSE(env.Tainted("n1"));
  CHECK(env.Reason("n1-claim").empty());
  CHECK_FALSE(env.Deleting("n1-claim"));
  CHECK(env.metrics.Value(metrics::kVoluntaryDisruptionQueueFailuresTotal,
                          Labels("replace", "drifted", "")) == 1);
  CHECK(env.orchestrator->Backoffs().empty());  // Expired meanwhile.
  // Only the three original instances remain.
  CHECK(env.cloud->Instances().size() == 3);
}

TEST_CASE("orchestrator: the timeout is a clamp of the queue length",
          "[orchestrator]") {
  OrchestratorOptions o;
  o.rollout = Rollout::kBudget;
  o.per_command_timeout = absl::Minutes(4);
  Env env(o);
  CHECK(env.orchestrator->Timeout() == absl::Minutes(10));  // 0 -> min.
  const char* nodes[] = {"n1", "n2", "n3"};
  for (const char* n : nodes) {
    REQUIRE(
        env.orchestrator
            ->Start(MakeCommand(Method::kDrift,
                                {Cand(n, n == std::string("n3") ? "b" : "a")},
                                {Repl(absl::StrCat("r-", n))}))
            .ok());
  }
  CHECK(env.orchestrator->Timeout() == absl::Minutes(12));  // 3 x 4m.
  o.per_command_timeout = absl::Minutes(30);
  Env big(o);
  for (const char* n : nodes) {
    REQUIRE(
        big.orchestrator
            ->Start(MakeCommand(Method::kEmptiness,
                                {Cand(n, n == std::string("n3") ? "b" : "a")}))
            .ok());
  }
  CHECK(big.orchestrator->Timeout() == absl::Hours(1));  // 90m -> max.
}

TEST_CASE(
    "orchestrator: insufficient capacity rolls back and backs off one "
    "NodePool",
    "[orchestrator]") {
  Env env;
  auto fail_create = [&] {
    REQUIRE(env.cloud
                ->FailNext(testing::CloudMethod::kCreate,
                           absl::ResourceExhaustedError(
                               "InsufficientInstanceCapacity"))
                .ok());
  };
  fail_create();
  absl::Status s = env.orchestrator->Start(
      MakeCommand(Method::kDrift, {Cand("n1")}, {Repl("r1")}));
  CHECK(absl::IsResourceExhausted(s));
  CHECK(absl::StrContains(s.message(),
                          "launch replacement \"r1\" (NodePool \"a\"): "
                          "insufficient capacity: "
                          "InsufficientInstanceCapacity; rolled back"));
  CHECK_FALSE(env.Tainted("n1"));
  CHECK(env.Reason("n1-claim").empty());
  CHECK(env.Claim("r1") == nullptr);
  CHECK(env.cloud->Instances().size() == 3);
  CHECK(env.orchestrator->size() == 0);
  CHECK(env.orchestrator->Backoffs() ==
        std::map<std::string, absl::Time>{{"a", kT0 + absl::Seconds(10)}});

  // NodePool a is refused while backed off; b is unaffected.
  s = env.orchestrator->Start(
      MakeCommand(Method::kDrift, {Cand("n2")}, {Repl("r2")}));
  CHECK(absl::IsFailedPrecondition(s));
  CHECK(absl::StrContains(s.message(), "NodePool \"a\" is backed off"));
  REQUIRE(env.orchestrator
              ->Start(MakeCommand(Method::kDrift, {Cand("n3", "b")},
                                  {Repl("r3", "b")}))
              .ok());

  // Expired: a second failure doubles the backoff.
  env.Advance(absl::Seconds(10));
  CHECK(env.orchestrator->Backoffs().empty());
  fail_create();
  CHECK(absl::IsResourceExhausted(env.orchestrator->Start(
      MakeCommand(Method::kDrift, {Cand("n1")}, {Repl("r1")}))));
  CHECK(env.orchestrator->Backoffs() ==
        std::map<std::string, absl::Time>{{"a", kT0 + absl::Seconds(30)}});

  // A second replacement failing rolls back the first (NodeClaim and
  // instance): m5.xlarge has no available offering.
  env.Advance(absl::Seconds(20));
  std::vector<InstanceType> types = env.cloud->GetInstanceTypes({}).value();
  for (InstanceType& t : types) {
    if (t.name != "m5.xlarge") continue;
    for (Offering& o : t.offerings) o.available = false;
  }
  env.cloud->SetInstanceTypes(types);
  Replacement xlarge = Repl("r5");
  xlarge.node_claim.mutable_spec()->mutable_requirements(0)->set_values(
      0, "m5.xlarge");
  s = env.orchestrator->Start(
      MakeCommand(Method::kDrift, {Cand("n1")}, {Repl("r4"), xlarge}));
  CHECK(absl::IsResourceExhausted(s));
  CHECK(absl::StrContains(s.message(), "launch replacement \"r5\""));
  CHECK(env.Deleting("r4"));
  CHECK(env.Claim("r5") == nullptr);
  env.Advance(absl::Seconds(10));
  CHECK(env.cloud->Instances().size() == 4);  // n1..n3 and r3.
  CHECK(env.orchestrator->Backoffs() ==
        std::map<std::string, absl::Time>{{"a", kT0 + absl::Seconds(70)}});

  // A completed command of the NodePool resets its backoff.
  env.Advance(absl::Seconds(60));
  REQUIRE(env.orchestrator->Start(MakeCommand(Method::kEmptiness, {Cand("n2")}))
              .ok());
  CHECK(env.Reconcile().completed >= 1);
  fail_create();
  CHECK(absl::IsResourceExhausted(env.orchestrator->Start(
      MakeCommand(Method::kDrift, {Cand("n1")}, {Repl("r6")}))));
  CHECK(env.orchestrator->Backoffs() ==
        std::map<std::string, absl::Time>{
            {"a", kT0 + absl::Seconds(100) + absl::Seconds(10)}});
}

TEST_CASE("orchestrator: rollout slots", "[orchestrator]") {
  struct Case {
    Rollout rollout;
    int64_t managed;
    int64_t queued;
    int64_t want;
  };
  const Case cases[] = {
      {Rollout::kSerial, 100, 0, 1},
      {Rollout::kSerial, 100, 1, 0},
      {Rollout::kParallelBatch, 100, 0, 5},
      {Rollout::kParallelBatch, 10, 0, 1},
      {Rollout::kParallelBatch, 0, 0, 1},
      {Rollout::kParallelBatch, 101, 0, 6},
      {Rollout::kParallelBatch, 100, 2, 3},
      {Rollout::kParallelBatch, 10, 1, 0},
      {Rollout::kBudget, 3, 2, std::numeric_limits<int64_t>::max()},
  };
  for (const Case& c : cases) {
    CAPTURE(RolloutName(c.rollout), c.managed, c.queued);
    OrchestratorOptions o;
    o.rollout = c.rollout;
    Env env(o);
    const char* nodes[] = {"n1", "n2"};
    for (int64_t i = 0; i < c.queued; ++i) {
      REQUIRE(env.orchestrator
                  ->Start(MakeCommand(Method::kEmptiness, {Cand(nodes[i])}))
                  .ok());
    }
    CHECK(env.orchestrator->SlotsAvailable(c.managed) == c.want);
  }
}

TEST_CASE("orchestrator: Create rejects bad options", "[orchestrator]") {
  Env env;
  struct Case {
    const char* field;
    OrchestratorOptions options;
  };
  std::vector<Case> cases;
  auto add = [&](const char* field, auto mutate) {
    OrchestratorOptions o;
    mutate(o);
    cases.push_back({field, o});
  };
  add("batch_fraction", [](OrchestratorOptions& o) { o.batch_fraction = 0; });
  add("batch_fraction", [](OrchestratorOptions& o) { o.batch_fraction = 1.5; });
  add("min_timeout",
      [](OrchestratorOptions& o) { o.min_timeout = absl::ZeroDuration(); });
  add("max_timeout",
      [](OrchestratorOptions& o) { o.max_timeout = absl::Minutes(5); });
  add("per_command_timeout", [](OrchestratorOptions& o) {
    o.per_command_timeout = absl::Seconds(-1);
  });
  add("backoff_initial", [](OrchestratorOptions& o) {
    o.backoff_initial = absl::InfiniteDuration();
  });
  add("backoff_max",
      [](OrchestratorOptions& o) { o.backoff_max = absl::Seconds(1); });
  for (const Case& c : cases) {
    CAPTURE(c.field);
    const absl::Status s =
        Orchestrator::Create(*env.cluster, *env.cloud, env.events, env.metrics,
                             env.clock, c.options)
            .status();
    CHECK(absl::IsInvalidArgument(s));
    CHECK(absl::StrContains(s.message(),
                            absl::StrCat("OrchestratorOptions.", c.field)));
  }
}

TEST_CASE("orchestrator: a vanished replacement rolls back", "[orchestrator]") {
  testing::FakeCloudProviderOptions stuck;
  stuck.launch_latency = absl::InfiniteDuration();
  Env env({}, stuck);
  REQUIRE(env.orchestrator
              ->Start(MakeCommand(Method::kDrift, {Cand("n1")}, {Repl("r1")}))
              .ok());
  REQUIRE(env.cluster
              ->RemoveFinalizer(ObjectKind::kNodeClaim, "r1",
                                "karpenter.sh/termination")
              .ok());
  REQUIRE(env.cluster->DeleteNodeClaim("r1").ok());
  const Orchestrator::Report report = env.Reconcile();
  CHECK(report.rolled_back == 1);
  CHECK(absl::StrContains(report.log.back(),
                          "replacement NodeClaim \"r1\" was deleted"));
  CHECK_FALSE(env.Tainted("n1"));
  CHECK_FALSE(env.Deleting("n1-claim"));
  env.Advance(absl::Seconds(10));
  CHECK(env.cloud->Instances().size() == 3);  // Its instance is terminated.
}

TEST_CASE("orchestrator: a failed candidate delete is retried",
          "[orchestrator]") {
  Env env;
  REQUIRE(env.orchestrator
              ->Start(MakeCommand(Method::kEmptiness, {Cand("n1"), Cand("n2")}))
              .ok());
  REQUIRE(env.cluster
              ->FailNext(FakeMethod::kDeleteNodeClaim,
                         absl::UnavailableError("apiserver down"))
              .ok());
  Orchestrator::Report report = env.Reconcile();
  CHECK(report.waiting == 1);
  CHECK(*report.next_wake == kT0 + absl::Seconds(1));
  CHECK_FALSE(env.Deleting("n1-claim"));
  CHECK(env.Deleting("n2-claim"));
  report = env.Reconcile();  // Before the retry time: nothing.
  CHECK(report.waiting == 1);
  auto calls = [&](const std::string& claim) {
    const std::vector<std::string> log = env.cluster->CallLog();
    return std::count_if(log.begin(), log.end(), [&](const std::string& l) {
      return absl::StrContains(l, "DeleteNodeClaim " + claim);
    });
  };
  CHECK(calls("n1-claim") == 1);  // Not retried before its time.
  CHECK(calls("n2-claim") == 1);
  env.Advance(absl::Seconds(1));
  report = env.Reconcile();
  CHECK(report.completed == 1);
  CHECK(env.Deleting("n1-claim"));
  // n2 was deleted once: its metrics count once.
  CHECK(env.metrics.Value(metrics::kNodeClaimsDisruptedTotal,
                          {{"reason", "empty"},
                           {"nodepool", "a"},
                           {"capacity_type", "on-demand"}}) == 2);
}

TEST_CASE("orchestrator: NodesToCleanUp finds leftover marks",
          "[orchestrator]") {
  snapshot::ObjectSet o;
  for (const char* n :
       {"e-tainted", "d-inflight", "c-deleting-node", "b-deleting-claim",
        "a-condition", "f-clean", "g-noexecute"}) {
    AddManaged(o, n, "a");
  }
  auto taint = [&](size_t i, const char* effect) {
    v1::Taint* t = o.nodes[i].mutable_spec()->add_taints();
    t->set_key("karpenter.sh/disrupted");
    t->set_effect(effect);
  };
  for (size_t i = 0; i < 4; ++i) taint(i, "NoSchedule");
  taint(6, "NoExecute");
  *o.nodes[2].mutable_metadata()->mutable_deletion_timestamp() =
      TimeToProto(kT0);
  *o.node_claims[3].mutable_metadata()->mutable_deletion_timestamp() =
      TimeToProto(kT0);
  v1::Condition* reason = o.node_claims[4].mutable_status()->add_conditions();
  reason->set_type("DisruptionReason");
  reason->set_status("True");
  auto snap = snapshot::Snapshot::Build(std::move(o));
  REQUIRE(snap.ok());
  CHECK(NodesToCleanUp(*snap, {IdOf("d-inflight")}) ==
        std::vector<std::string>{"a-condition", "e-tainted"});
  CHECK(NodesToCleanUp(*snap, {}) ==
        std::vector<std::string>{"a-condition", "d-inflight", "e-tainted"});
}

TEST_CASE("orchestrator: after a restart cleanup unmarks and nothing leaks",
          "[orchestrator]") {
  Env env;
  REQUIRE(env.orchestrator
              ->Start(MakeCommand(Method::kDrift, {Cand("n1")}, {Repl("r1")}))
              .ok());
  // In flight: cleanup leaves the candidate alone.
  auto cleaned = env.orchestrator->CleanUp(env.Read());
  REQUIRE(cleaned.ok());
  CHECK(cleaned->empty());
  CHECK(env.Tainted("n1"));

  env.Restart();  // The queue is lost.
  CHECK(env.orchestrator->size() == 0);
  cleaned = env.orchestrator->CleanUp(env.Read());
  REQUIRE(cleaned.ok());
  CHECK(*cleaned == std::vector<std::string>{"n1"});
  CHECK_FALSE(env.Tainted("n1"));
  CHECK(env.Reason("n1-claim").empty());
  CHECK_FALSE(env.Deleting("n1-claim"));
  // The replacement becomes an ordinary node; every instance has a
  // NodeClaim.
  env.Advance(absl::Seconds(30));
  env.RunLifecycle();
  REQUIRE(env.Node("r1") != nullptr);
  CHECK(env.Node("r1")->metadata().labels().at("karpenter.sh/initialized") ==
        "true");
  const snapshot::Snapshot s = env.Read();
  for (const Instance& i : env.cloud->Instances()) {
    CAPTURE(i.provider_id);
    CHECK(s.FindNodeClaimByProviderId(i.provider_id).has_value());
  }
  // A second cleanup has nothing to do.
  cleaned = env.orchestrator->CleanUp(env.Read());
  REQUIRE(cleaned.ok());
  CHECK(cleaned->empty());
}

TEST_CASE("orchestrator: a drift replacement end to end with termination",
          "[orchestrator]") {
  Env env;
  for (const char* name : {"web-1", "web-2"}) {
    v1::Pod pod;
    pod.mutable_metadata()->set_namespace_("default");
    pod.mutable_metadata()->set_name(name);
    v1::OwnerReference* ref = pod.mutable_metadata()->add_owner_references();
    ref->set_kind("ReplicaSet");
    ref->set_name("web");
    ref->set_uid("rs-web");
    ref->set_controller(true);
    pod.mutable_spec()->set_node_name("n1");
    pod.mutable_status()->set_phase("Running");
    v1::Condition* ready = pod.mutable_status()->add_conditions();
    ready->set_type("Ready");
    ready->set_status("True");
    REQUIRE(env.cluster->AddPod(pod).ok());
  }
  auto executor =
      termination::Executor::Create(*env.cluster, *env.cluster, *env.cloud,
                                    env.events, env.metrics, env.clock);
  REQUIRE(executor.ok());
  // "a-r1" sorts before n2 and n3: the fake recreates pods on it.
  REQUIRE(env.orchestrator
              ->Start(MakeCommand(Method::kDrift, {Cand("n1")}, {Repl("a-r1")}))
              .ok());
  const absl::Time limit = kT0 + absl::Minutes(10);
  while (env.clock.Now() < limit &&
         (env.orchestrator->size() > 0 || env.Claim("n1-claim") != nullptr ||
          env.cloud->Exists(IdOf("n1")))) {
    env.RunLifecycle();
    REQUIRE(env.orchestrator->Reconcile(env.Read()).ok());
    REQUIRE((*executor)->RunOnce().ok());
    env.Advance(absl::Seconds(1));
  }
  REQUIRE(env.clock.Now() < limit);
  REQUIRE(env.cluster->RunUntil(env.clock, env.clock.Now() + absl::Minutes(1))
              .ok());
  const snapshot::Snapshot s = env.Read();
  CHECK_FALSE(s.FindNode("n1").has_value());
  REQUIRE(s.pod_count() == 2);
  for (uint32_t pod_index = 0; pod_index < s.pod_count(); ++pod_index) {
    const v1::Pod pod = s.DecodePod(pod_index);
    CAPTURE(pod.metadata().name());
    CHECK(pod.spec().node_name() == "a-r1");
    CHECK(pod.status().phase() == "Running");
  }
  CHECK(env.cluster->PdbViolations().empty());
  CHECK(env.metrics.contract_violations() == 0);
}

}  // namespace
}  // namespace karpenter::disruption
