// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// FakeCluster's orchestration additions: CreateNodeClaim, RemoveTaint,
// RemoveNodeClaimCondition (ClusterView) and the AddNode /
// SetNodeClaimStatus test hooks.

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "karpenter/testing/builders.h"
#include "karpenter/testing/fake_clock.h"
#include "karpenter/testing/fake_cluster.h"

namespace karpenter::testing {
namespace {

constexpr absl::Time kT0 = kTestEpoch;  // 2024-01-01Z

// A NodeClaim with only a name, as a host creates one.
v1::NodeClaim Claim(const std::string& name) {
  v1::NodeClaim c;
  c.mutable_metadata()->set_name(name);
  return c;
}

struct Env {
  FakeClock clock{kT0};
  std::unique_ptr<FakeCluster> cluster;

  Env() {
    snapshot::ObjectSet o;
    o.nodes.push_back(MakeNode({.name = "n1"}));
    o.node_claims.push_back(Claim("c1"));
    auto created = FakeCluster::Create(std::move(o), clock);
    REQUIRE(created.ok());
    cluster = *std::move(created);
  }
  snapshot::Snapshot Read() {
    auto s = cluster->Read();
    REQUIRE(s.ok());
    return *std::move(s);
  }
  std::vector<std::string> Taints(const std::string& node) {
    const snapshot::Snapshot s = Read();
    std::vector<std::string> out;
    for (const v1::Taint& t : s.nodes()[*s.FindNode(node)].spec().taints()) {
      out.push_back(absl::StrCat(t.key(), "=", t.value(), ":", t.effect()));
    }
    return out;
  }
  std::vector<std::string> Conditions(const std::string& claim) {
    const snapshot::Snapshot s = Read();
    std::vector<std::string> out;
    for (const v1::Condition& c :
         s.node_claims()[*s.FindNodeClaim(claim)].status().conditions()) {
      out.push_back(c.type());
    }
    return out;
  }
};

TEST_CASE("fake cluster: CreateNodeClaim creates once and keeps the status",
          "[fake-cluster]") {
  Env env;
  v1::NodeClaim c = Claim("r1");
  c.mutable_metadata()->add_finalizers("karpenter.sh/termination");
  c.mutable_status()->set_provider_id("fake:///z/i-1");
  c.mutable_metadata()->mutable_deletion_timestamp()->set_seconds(1);
  REQUIRE(env.clock.Advance(absl::Seconds(7)).ok());
  REQUIRE(env.cluster->CreateNodeClaim(c).ok());
  const snapshot::Snapshot s = env.Read();
  REQUIRE(s.FindNodeClaim("r1").has_value());
  const v1::NodeClaim& got = s.node_claims()[*s.FindNodeClaim("r1")];
  CHECK(got.status().provider_id() == "fake:///z/i-1");
  CHECK(got.metadata().finalizers_size() == 1);
  CHECK_FALSE(got.metadata().has_deletion_timestamp());
  CHECK(got.metadata().creation_timestamp().seconds() ==
        absl::ToUnixSeconds(kT0) + 7);
  CHECK(s.FindNodeClaimByProviderId("fake:///z/i-1") == s.FindNodeClaim("r1"));

  const absl::Status again = env.cluster->CreateNodeClaim(c);
  CHECK(absl::IsAlreadyExists(again));
  CHECK(absl::StrContains(again.message(), "\"r1\" already exists"));
  CHECK(absl::IsInvalidArgument(env.cluster->CreateNodeClaim(Claim(""))));
  const std::vector<std::string> log = env.cluster->CallLog();
  CHECK(std::count(log.begin(), log.end(),
                   "2024-01-01T00:00:07Z CreateNodeClaim r1 "
                   "providerID=fake:///z/i-1 -> OK") == 1);
}

TEST_CASE("fake cluster: RemoveTaint matches key and effect only",
          "[fake-cluster]") {
  Env env;
  REQUIRE(env.cluster->TaintNode("n1", MakeTaint("a", "x", "NoExecute")).ok());
  REQUIRE(env.cluster
              ->TaintNode(
                  "n1", MakeTaint("karpenter.sh/disrupted", "v", "NoSchedule"))
              .ok());
  REQUIRE(env.cluster->TaintNode("n1", MakeTaint("b", "", "NoSchedule")).ok());
  // Another effect: nothing removed.
  REQUIRE(env.cluster->RemoveTaint("n1", "karpenter.sh/disrupted", "NoExecute")
              .ok());
  CHECK(env.Taints("n1").size() == 3);
  // The value is not compared; the others keep their order.
  REQUIRE(env.cluster->RemoveTaint("n1", "karpenter.sh/disrupted", "NoSchedule")
              .ok());
  CHECK(env.Taints("n1") ==
        std::vector<std::string>{"a=x:NoExecute", "b=:NoSchedule"});
  // Absent: a no-op.
  CHECK(env.cluster->RemoveTaint("n1", "karpenter.sh/disrupted", "NoSchedule")
            .ok());
  CHECK(absl::IsNotFound(env.cluster->RemoveTaint("n9", "a", "NoExecute")));
  CHECK(
      absl::IsInvalidArgument(env.cluster->RemoveTaint("", "a", "NoSchedule")));
  CHECK(absl::IsInvalidArgument(
      env.cluster->RemoveTaint("n1", "", "NoSchedule")));
  const absl::Status bad = env.cluster->RemoveTaint("n1", "a", "Never");
  CHECK(absl::IsInvalidArgument(bad));
  CHECK(absl::StrContains(bad.message(), "\"Never\""));
}

TEST_CASE("fake cluster: RemoveNodeClaimCondition clears one type",
          "[fake-cluster]") {
  Env env;
  for (const char* type : {"Initialized", "DisruptionReason", "Drifted"}) {
    v1::Condition c;
    c.set_type(type);
    c.set_status("True");
    REQUIRE(env.cluster->SetNodeClaimCondition("c1", c).ok());
  }
  REQUIRE(env.cluster->RemoveNodeClaimCondition("c1", "DisruptionReason").ok());
  CHECK(env.Conditions("c1") ==
        std::vector<std::string>{"Initialized", "Drifted"});
  CHECK(env.cluster->RemoveNodeClaimCondition("c1", "DisruptionReason").ok());
  CHECK(absl::IsNotFound(env.cluster->RemoveNodeClaimCondition("c9", "X")));
  CHECK(
      absl::IsInvalidArgument(env.cluster->RemoveNodeClaimCondition("", "X")));
  CHECK(
      absl::IsInvalidArgument(env.cluster->RemoveNodeClaimCondition("c1", "")));
}

TEST_CASE("fake cluster: the orchestration methods take scripted faults",
          "[fake-cluster]") {
  Env env;
  REQUIRE(env.cluster
              ->FailNext(FakeMethod::kCreateNodeClaim,
                         absl::UnavailableError("apiserver down"))
              .ok());
  CHECK(absl::IsUnavailable(env.cluster->CreateNodeClaim(Claim("r1"))));
  CHECK_FALSE(env.Read().FindNodeClaim("r1").has_value());
  // A lost reply: created, then AlreadyExists on the retry.
  REQUIRE(env.cluster
              ->FailNext(FakeMethod::kCreateNodeClaim,
                         absl::DeadlineExceededError("timeout"), 1,
                         FaultTiming::kAfterCall)
              .ok());
  CHECK(absl::IsDeadlineExceeded(env.cluster->CreateNodeClaim(Claim("r1"))));
  CHECK(absl::IsAlreadyExists(env.cluster->CreateNodeClaim(Claim("r1"))));

  REQUIRE(env.cluster->TaintNode("n1", MakeTaint("k", "", "NoSchedule")).ok());
  REQUIRE(
      env.cluster->FailNext(FakeMethod::kRemoveTaint, absl::AbortedError("409"))
          .ok());
  CHECK(absl::IsAborted(env.cluster->RemoveTaint("n1", "k", "NoSchedule")));
  CHECK(env.Taints("n1").size() == 1);
  CHECK(env.cluster->RemoveTaint("n1", "k", "NoSchedule").ok());
  CHECK(env.Taints("n1").empty());

  v1::Condition c;
  c.set_type("DisruptionReason");
  c.set_status("True");
  REQUIRE(env.cluster->SetNodeClaimCondition("c1", c).ok());
  REQUIRE(env.cluster
              ->FailNext(FakeMethod::kRemoveNodeClaimCondition,
                         absl::InternalError("boom"))
              .ok());
  CHECK(absl::IsInternal(
      env.cluster->RemoveNodeClaimCondition("c1", "DisruptionReason")));
  CHECK(env.Conditions("c1").size() == 1);
  CHECK(FakeMethodName(FakeMethod::kCreateNodeClaim) == "CreateNodeClaim");
  CHECK(FakeMethodName(FakeMethod::kRemoveTaint) == "RemoveTaint");
  CHECK(FakeMethodName(FakeMethod::kRemoveNodeClaimCondition) ==
        "RemoveNodeClaimCondition");
  const std::vector<std::string> log = env.cluster->CallLog();
  CHECK(std::count(log.begin(), log.end(),
                   "2024-01-01T00:00:00Z RemoveNodeClaimCondition c1 "
                   "DisruptionReason -> INTERNAL: boom (injected)") == 1);
}

TEST_CASE("fake cluster: AddNode and SetNodeClaimStatus hooks",
          "[fake-cluster]") {
  Env env;
  v1::Node n;
  n.mutable_metadata()->set_name("n2");
  REQUIRE(env.clock.Advance(absl::Seconds(3)).ok());
  REQUIRE(env.cluster->AddNode(n).ok());
  CHECK(absl::IsAlreadyExists(env.cluster->AddNode(n)));
  CHECK(absl::IsInvalidArgument(env.cluster->AddNode(v1::Node())));
  snapshot::Snapshot s = env.Read();
  REQUIRE(s.FindNode("n2").has_value());
  CHECK(
      s.nodes()[*s.FindNode("n2")].metadata().creation_timestamp().seconds() ==
      absl::ToUnixSeconds(kT0) + 3);

  v1::NodeClaimStatus status;
  status.set_node_name("n2");
  status.set_provider_id("fake:///z/i-2");
  v1::Condition* c = status.add_conditions();
  c->set_type("Initialized");
  c->set_status("True");
  REQUIRE(env.cluster->SetNodeClaimStatus("c1", status).ok());
  CHECK(absl::IsNotFound(env.cluster->SetNodeClaimStatus("c9", status)));
  CHECK(absl::IsInvalidArgument(env.cluster->SetNodeClaimStatus("", status)));
  s = env.Read();
  CHECK(s.FindNodeClaimByNodeName("n2") == s.FindNodeClaim("c1"));
  CHECK(env.Conditions("c1") == std::vector<std::string>{"Initialized"});
  const std::vector<std::string> log = env.cluster->CallLog();
  CHECK(std::count(log.begin(), log.end(),
                   "2024-01-01T00:00:03Z SetNodeClaimStatus c1 "
                   "Initialized=True -> OK") == 1);
}

}  // namespace
}  // namespace karpenter::testing
