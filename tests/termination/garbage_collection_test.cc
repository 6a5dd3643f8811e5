// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/termination/garbage_collection.h"

#include <catch2/catch.hpp>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "janitor_test_util.h"
#include "karpenter/termination/janitor.h"
#include "karpenter/testing/fake_clock.h"
#include "karpenter/testing/fake_cloud_provider.h"
#include "karpenter/testing/fake_cluster.h"

namespace karpenter::termination {
namespace {

using janitor_test::Build;
using janitor_test::ClaimOpts;
using janitor_test::kT0;
using janitor_test::MakeClaim;
using janitor_test::MakeNode;
using janitor_test::NodeOpts;

Instance MakeInstance(const std::string& provider_id, absl::Time created,
                      InstanceState state = InstanceState::kRunning) {
  Instance i;
  i.provider_id = provider_id;
  i.created = created;
  i.state = state;
  return i;
}

GarbageCollectionReport Collect(const snapshot::Snapshot& s,
                                const std::vector<Instance>& instances,
                                absl::Time now,
                                const GarbageCollectionOptions& o = {}) {
  absl::StatusOr<GarbageCollectionReport> r =
      CollectGarbage(s, instances, now, o);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  return *std::move(r);
}

TEST_CASE(
    "gc: leaked instance older than 30 seconds is collected, younger "
    "kept",
    "[termination][gc]") {
  NodeOpts leaked_node;
  leaked_node.name = "leaked-node";
  leaked_node.provider_id = "aws:///old";
  ClaimOpts owner;
  owner.name = "owner";
  owner.provider_id = "aws:///owned";
  const snapshot::Snapshot s =
      Build({MakeNode(leaked_node)}, {MakeClaim(owner)});
  // Given out of order: the report sorts by provider ID.
  const std::vector<Instance> instances = {
      MakeInstance("aws:///young", kT0 - absl::Seconds(29)),
      MakeInstance("aws:///old", kT0 - absl::Seconds(30)),
      MakeInstance("aws:///owned", kT0 - absl::Hours(1)),
      MakeInstance("aws:///dying", kT0 - absl::Hours(1),
                   InstanceState::kTerminating),
  };
  const GarbageCollectionReport r = Collect(s, instances, kT0);
  REQUIRE(r.instances.size() == 4);
  std::vector<std::string> got;
  for (const InstanceVerdict& v : r.instances) {
    got.push_back(absl::StrCat(v.provider_id, " ", v.reason, " ",
                               v.delete_instance ? "delete" : "keep"));
    CHECK_FALSE(v.why.empty());
  }
  CHECK(got == std::vector<std::string>{
                   "aws:///dying terminating keep",
                   "aws:///old leaked delete",
                   "aws:///owned owned keep",
                   "aws:///young within_grace keep",
               });
  CHECK(r.instances[1].nodes == std::vector<std::string>{"leaked-node"});
  CHECK(r.instances[1].due == kT0);
  CHECK(r.instances[3].due == kT0 + absl::Seconds(1));
  CHECK_THAT(r.instances[2].why, Catch::Contains("NodeClaim \"owner\""));
  CHECK(r.next_wake == kT0 + absl::Seconds(1));
}

TEST_CASE(
    "gc: NodeClaim whose instance is gone is removed only when its "
    "Node is missing or not Ready",
    "[termination][gc]") {
  struct Case {
    std::string name;
    std::string instance;  // "running", "terminating" or "none".
    std::string node;      // "ready", "notready" or "missing".
    std::string registered;
    bool deleting;
    std::string reason;
  };
  const std::vector<Case> cases = {
      {"a", "running", "notready", "True", false, "instance_exists"},
      {"b", "none", "ready", "True", false, "node_ready"},
      {"c", "none", "notready", "True", false, "garbage_collected"},
      {"d", "none", "missing", "True", false, "garbage_collected"},
      {"e", "terminating", "missing", "True", false, "garbage_collected"},
      {"f", "terminating", "ready", "True", false, "node_ready"},
      {"g", "none", "missing", "Unknown", false, "not_registered"},
      {"h", "none", "missing", "True", true, "deleting"},
  };
  std::vector<v1::Node> nodes;
  std::vector<v1::NodeClaim> claims;
  std::vector<Instance> instances;
  // Reverse order in: the report sorts by name.
  for (auto it = cases.rbegin(); it != cases.rend(); ++it) {
    const Case& c = *it;
    const std::string id = "aws:///" + c.name;
    if (c.node != "missing") {
      NodeOpts n;
      n.name = c.name;
      n.ready = c.node == "ready" ? "True" : "False";
      nodes.push_back(MakeNode(n));
    }
    ClaimOpts claim;
    claim.name = c.name;
    claim.provider_id = id;
    claim.registered = c.registered;
    if (c.deleting) claim.deleted = kT0 - absl::Minutes(1);
    claims.push_back(MakeClaim(claim));
    if (c.instance != "none") {
      instances.push_back(MakeInstance(id, kT0 - absl::Hours(1),
                                       c.instance == "running"
                                           ? InstanceState::kRunning
                                           : InstanceState::kTerminating));
    }
  }
  const GarbageCollectionReport r =
      Collect(Build(std::move(nodes), std::move(claims)), instances, kT0);
  REQUIRE(r.node_claims.size() == cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    INFO(cases[i].name);
    CHECK(r.node_claims[i].node_claim == cases[i].name);
    CHECK(r.node_claims[i].reason == cases[i].reason);
    CHECK(r.node_claims[i].delete_node_claim ==
          (cases[i].reason == "garbage_collected"));
    CHECK_FALSE(r.node_claims[i].why.empty());
  }
  CHECK_THAT(r.node_claims[1].why, Catch::Contains("Node \"b\" is Ready"));
  CHECK_THAT(r.node_claims[3].why, Catch::Contains("its Node is missing"));
  // Every instance is held by a NodeClaim: none leaked.
  for (const InstanceVerdict& v : r.instances) CHECK(!v.delete_instance);
}

TEST_CASE("gc: orphaned finalizer command text", "[termination][gc]") {
  NodeOpts stuck;
  stuck.name = "n1";
  stuck.deleted = kT0 - absl::Minutes(12);
  stuck.finalizers = {"karpenter.sh/termination"};
  NodeOpts second = stuck;
  second.name = "n2";
  second.finalizers = {"example.com/other", "karpenter.sh/termination"};
  NodeOpts recent = stuck;
  recent.name = "n3";
  recent.deleted = kT0 - absl::Minutes(4);
  NodeOpts foreign = stuck;
  foreign.name = "n4";
  foreign.finalizers = {"example.com/other"};
  ClaimOpts claim;
  claim.name = "nc1";
  claim.deleted = kT0 - absl::Minutes(10);  // Exactly at the limit.
  claim.finalizers = {"karpenter.sh/termination"};
  const GarbageCollectionReport r =
      Collect(Build({MakeNode(recent), MakeNode(foreign), MakeNode(second),
                     MakeNode(stuck)},
                    {MakeClaim(claim)}),
              {}, kT0);
  REQUIRE(r.finalizers.size() == 4);
  CHECK(r.finalizers[0].name == "n1");
  CHECK(r.finalizers[0].reason == "orphaned_finalizer");
  CHECK(r.finalizers[0].command ==
        "kubectl patch node n1 --type=json -p "
        "'[{\"op\":\"test\",\"path\":\"/metadata/finalizers/0\",\"value\":"
        "\"karpenter.sh/termination\"},{\"op\":\"remove\",\"path\":\"/"
        "metadata/finalizers/0\"}]'");
  CHECK_THAT(r.finalizers[0].why,
             Catch::Contains("termination controller absent for 12m (limit "
                             "10m)"));
  CHECK(r.finalizers[1].name == "n2");
  CHECK_THAT(r.finalizers[1].command,
             Catch::Contains("\"path\":\"/metadata/finalizers/1\""));
  CHECK(r.finalizers[2].name == "n3");
  CHECK(r.finalizers[2].reason == "terminating");
  CHECK(r.finalizers[2].command.empty());
  CHECK(r.finalizers[2].due == kT0 + absl::Minutes(6));
  CHECK(r.finalizers[3].kind == ObjectKind::kNodeClaim);
  CHECK(r.finalizers[3].reason == "orphaned_finalizer");
  CHECK(r.finalizers[3].command ==
        "kubectl patch nodeclaims.karpenter.sh nc1 --type=json -p "
        "'[{\"op\":\"test\",\"path\":\"/metadata/finalizers/0\",\"value\":"
        "\"karpenter.sh/termination\"},{\"op\":\"remove\",\"path\":\"/"
        "metadata/finalizers/0\"}]'");
  CHECK(r.next_wake == kT0 + absl::Minutes(6));

  // A name the shell would misread is quoted.
  CHECK(RemoveFinalizerCommand(ObjectKind::kNode, "it's", 2, "a\"b") ==
        "kubectl patch node 'it'\\''s' --type=json -p "
        "'[{\"op\":\"test\",\"path\":\"/metadata/finalizers/2\",\"value\":"
        "\"a\\\"b\"},{\"op\":\"remove\",\"path\":\"/metadata/finalizers/"
        "2\"}]'");
}

TEST_CASE("gc: bad input is rejected", "[termination][gc]") {
  const snapshot::Snapshot s = Build({}, {});
  struct Case {
    std::vector<Instance> instances;
    GarbageCollectionOptions options;
    std::string message;
  };
  GarbageCollectionOptions grace;
  grace.instance_grace = absl::Seconds(-30);
  GarbageCollectionOptions orphan;
  orphan.orphaned_finalizer_after = absl::Minutes(-1);
  const std::vector<Case> cases = {
      {{MakeInstance("a", kT0), MakeInstance("", kT0)},
       {},
       "instances[1].provider_id: must be non-empty"},
      {{MakeInstance("a", kT0), MakeInstance("b", kT0), MakeInstance("a", kT0)},
       {},
       "duplicate instance \"a\": instances[0] and instances[2]"},
      {{}, grace, "instance_grace: \"-30s\": must be >= 0"},
      {{}, orphan, "orphaned_finalizer_after: \"-1m\": must be >= 0"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<GarbageCollectionReport> r =
        CollectGarbage(s, c.instances, kT0, c.options);
    CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(r.status().message() == c.message);
  }
}

TEST_CASE(
    "gc: apply terminates leaked instances, deletes their Nodes and "
    "orphaned NodeClaims",
    "[termination][gc]") {
  NodeOpts leak1;
  leak1.name = "leak1";
  NodeOpts orphan_node;
  orphan_node.name = "orphan";
  orphan_node.ready = "False";
  orphan_node.finalizers = {"karpenter.sh/termination"};
  ClaimOpts orphan;
  orphan.name = "orphan";
  orphan.node_name = "orphan";
  orphan.nodepool = "p";
  orphan.capacity_type = "spot";
  testing::FakeClock clock(kT0);
  auto cluster = testing::FakeCluster::Create(
      janitor_test::Objects({MakeNode(leak1), MakeNode(orphan_node)},
                            {MakeClaim(orphan)}),
      clock);
  REQUIRE(cluster.ok());
  auto cloud = testing::FakeCloudProvider::Create(clock);
  REQUIRE(cloud.ok());
  for (const std::string id :
       {"aws:///leak1", "aws:///leak2", "aws:///leak3"}) {
    REQUIRE((*cloud)->AddInstance(MakeInstance(id, kT0 - absl::Hours(1))).ok());
  }
  absl::StatusOr<std::vector<Instance>> listed = (*cloud)->List();
  REQUIRE(listed.ok());
  absl::StatusOr<snapshot::Snapshot> s = (*cluster)->Read();
  REQUIRE(s.ok());
  const GarbageCollectionReport report = Collect(*s, *listed, kT0);

  // leak1 terminates; leak2 vanished meanwhile (NotFound: done); leak3's
  // termination is refused.
  REQUIRE((*cloud)->Vanish("aws:///leak2").ok());
  REQUIRE((*cloud)->SetTerminationProtection("aws:///leak3", true).ok());
  testing::RecordingEventRecorder events;
  testing::InMemoryMetrics metrics;
  const JanitorResult result =
      ApplyGarbageCollection(report, **cluster, **cloud, events, metrics);
  std::vector<std::string> got;
  for (const JanitorAction& a : result.actions) {
    got.push_back(absl::StrCat(JanitorActionKindName(a.kind), " ", a.target,
                               " ", a.status.ok() ? "ok" : "error",
                               a.already_gone ? " gone" : ""));
  }
  CHECK(got == std::vector<std::string>{
                   "DeleteInstance aws:///leak1 ok",
                   "DeleteNode leak1 ok",
                   "DeleteInstance aws:///leak2 ok gone",
                   "DeleteInstance aws:///leak3 error",
                   "DeleteNodeClaim orphan ok",
               });
  CHECK(result.failures() == 1);
  CHECK(result.actions[3].status.code() ==
        absl::StatusCode::kFailedPrecondition);
  CHECK(
      janitor_test::DeletedIds(**cloud) ==
      std::vector<std::string>{"aws:///leak1", "aws:///leak2", "aws:///leak3"});

  absl::StatusOr<snapshot::Snapshot> after = (*cluster)->Read();
  REQUIRE(after.ok());
  CHECK_FALSE(after->FindNode("leak1").has_value());  // No finalizer: gone.
  CHECK_FALSE(after->FindNodeClaim("orphan").has_value());
  CHECK(after->FindNode("orphan").has_value());  // Not GC's to delete.
  CHECK(janitor_test::MetricValues(metrics) ==
        std::map<std::string, double>{
            {"karpenter_nodeclaims_disrupted_total{capacity_type=spot,"
             "nodepool=p,reason=garbage_collected}",
             1}});
  CHECK(janitor_test::EventLines(events) ==
        std::vector<std::string>{"GarbageCollected Node/leak1",
                                 "GarbageCollected NodeClaim/orphan"});
}

TEST_CASE("gc: apply skips the Nodes of an instance it could not terminate",
          "[termination][gc]") {
  NodeOpts node;
  node.name = "leak";
  testing::FakeClock clock(kT0);
  auto cluster = testing::FakeCluster::Create(
      janitor_test::Objects({MakeNode(node)}, {}), clock);
  REQUIRE(cluster.ok());
  absl::StatusOr<snapshot::Snapshot> s = (*cluster)->Read();
  REQUIRE(s.ok());
  const GarbageCollectionReport report =
      Collect(*s, {MakeInstance("aws:///leak", kT0 - absl::Minutes(1))}, kT0);
  auto cloud = testing::FakeCloudProvider::Create(clock);
  REQUIRE(cloud.ok());
  REQUIRE((*cloud)
              ->FailNext(testing::CloudMethod::kDelete,
                         absl::UnavailableError("throttled"))
              .ok());
  testing::RecordingEventRecorder events;
  testing::InMemoryMetrics metrics;
  const JanitorResult result =
      ApplyGarbageCollection(report, **cluster, **cloud, events, metrics);
  REQUIRE(result.actions.size() == 2);
  CHECK(result.actions[0].status.code() == absl::StatusCode::kUnavailable);
  CHECK(result.actions[1].kind == JanitorActionKind::kDeleteNode);
  CHECK(result.actions[1].status.code() ==
        absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(std::string(result.actions[1].status.message()),
             Catch::StartsWith("not attempted: DeleteInstance"));
  absl::StatusOr<snapshot::Snapshot> after = (*cluster)->Read();
  REQUIRE(after.ok());
  CHECK(after->FindNode("leak").has_value());
  CHECK(events.events().empty());
}

}  // namespace
}  // namespace karpenter::termination
