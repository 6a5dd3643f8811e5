// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/testing/fake_node_lifecycle.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "karpenter/testing/fake_clock.h"

namespace karpenter::testing {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1704067200);  // 2024-01-01Z

struct Env {
  FakeClock clock{kT0};
  std::unique_ptr<FakeCluster> cluster;
  std::unique_ptr<FakeCloudProvider> cloud;
  std::unique_ptr<FakeNodeLifecycle> lifecycle;

  explicit Env(snapshot::ObjectSet objects,
               FakeNodeLifecycleOptions options = {}) {
    auto c = FakeCluster::Create(std::move(objects), clock);
    REQUIRE(c.ok());
    cluster = *std::move(c);
    auto p = FakeCloudProvider::Create(clock);
    REQUIRE(p.ok());
    cloud = *std::move(p);
    auto l = FakeNodeLifecycle::Create(*cluster, *cloud, clock, options);
    REQUIRE(l.ok());
    lifecycle = *std::move(l);
  }
  snapshot::Snapshot Read() {
    auto s = cluster->Read();
    REQUIRE(s.ok());
    return *std::move(s);
  }
  LifecycleReport Reconcile() {
    auto r = lifecycle->Reconcile();
    REQUIRE(r.ok());
    return *std::move(r);
  }
  // Launches `name` in the cloud and creates its NodeClaim, as the
  // orchestrator does.
  std::string Launch(const std::string& name, const std::string& type = "") {
    v1::NodeClaim c;
    c.mutable_metadata()->set_name(name);
    (*c.mutable_metadata()->mutable_labels())["karpenter.sh/nodepool"] = "np";
    if (!type.empty()) {
      v1::NodeSelectorRequirement* r = c.mutable_spec()->add_requirements();
      r->set_key("node.kubernetes.io/instance-type");
      r->set_operator_("In");
      r->add_values(type);
    }
    auto instance = cloud->Create(c);
    REQUIRE(instance.ok());
    c.mutable_status()->set_provider_id(instance->provider_id);
    REQUIRE(cluster->CreateNodeClaim(c).ok());
    return instance->provider_id;
  }
};

bool IsTrue(const v1::NodeClaim& c, const std::string& type) {
  for (const v1::Condition& cond : c.status().conditions()) {
    if (cond.type() == type) return cond.status() == "True";
  }
  return false;
}

TEST_CASE("fake lifecycle: a launched NodeClaim registers once Running",
          "[fake-lifecycle]") {
  Env env({});
  const std::string id = env.Launch("r1", "m5.xlarge");
  LifecycleReport r = env.Reconcile();
  CHECK(r.launched == std::vector<std::string>{"r1"});
  CHECK(r.registered.empty());  // Pending for 30 s.
  CHECK_FALSE(env.Read().FindNode("r1").has_value());

  REQUIRE(env.clock.Advance(absl::Seconds(30)).ok());
  r = env.Reconcile();
  CHECK(r.launched.empty());
  CHECK(r.registered == std::vector<std::string>{"r1"});
  CHECK(r.initialized == std::vector<std::string>{"r1"});
  const snapshot::Snapshot s = env.Read();
  REQUIRE(s.FindNode("r1").has_value());
  const v1::Node& node = s.nodes()[*s.FindNode("r1")];
  CHECK(node.spec().provider_id() == id);
  const auto& labels = node.metadata().labels();
  CHECK(labels.at("karpenter.sh/nodepool") == "np");
  CHECK(labels.at("node.kubernetes.io/instance-type") == "m5.xlarge");
  CHECK(labels.at("topology.kubernetes.io/zone") == "test-zone-a");
  CHECK(labels.at("karpenter.sh/capacity-type") == "on-demand");
  CHECK(labels.at("karpenter.sh/initialized") == "true");
  CHECK(node.status().allocatable().at("cpu") == "4");  // From the catalogue.
  CHECK(node.status().conditions(0).status() == "True");
  const v1::NodeClaim& claim = s.node_claims()[*s.FindNodeClaim("r1")];
  CHECK(claim.status().node_name() == "r1");
  // Launch labelled the NodeClaim with the instance's placement.
  CHECK(claim.metadata().labels().at("node.kubernetes.io/instance-type") ==
        "m5.xlarge");
  CHECK(claim.metadata().labels().at("topology.kubernetes.io/zone") ==
        "test-zone-a");
  CHECK(claim.metadata().labels().at("karpenter.sh/capacity-type") ==
        "on-demand");
  for (const char* type : {"Launched", "Registered", "Initialized"}) {
    CAPTURE(type);
    CHECK(IsTrue(claim, type));
  }
  // Idempotent.
  r = env.Reconcile();
  CHECK(r.launched.empty());
  CHECK(r.registered.empty());
  CHECK(r.initialized.empty());
}

TEST_CASE("fake lifecycle: initialisation waits for the delay",
          "[fake-lifecycle]") {
  Env env({}, {.initialization_delay = absl::Seconds(20)});
  env.Launch("r1", "c9.huge");  // Not in the catalogue.
  REQUIRE(env.clock.Advance(absl::Seconds(30)).ok());
  LifecycleReport r = env.Reconcile();
  CHECK(r.registered == std::vector<std::string>{"r1"});
  CHECK(r.initialized.empty());
  REQUIRE(r.next_wake.has_value());
  CHECK(*r.next_wake == kT0 + absl::Seconds(50));
  snapshot::Snapshot s = env.Read();
  const v1::Node& node = s.nodes()[*s.FindNode("r1")];
  CHECK_FALSE(node.metadata().labels().contains("karpenter.sh/initialized"));
  CHECK(node.status().allocatable().at("cpu") == "64");  // The default.
  REQUIRE(env.clock.Advance(absl::Seconds(19)).ok());
  CHECK(env.Reconcile().initialized.empty());
  REQUIRE(env.clock.Advance(absl::Seconds(1)).ok());
  CHECK(env.Reconcile().initialized == std::vector<std::string>{"r1"});
  s = env.Read();
  CHECK(IsTrue(s.node_claims()[*s.FindNodeClaim("r1")], "Initialized"));
  CHECK(absl::IsInvalidArgument(
      FakeNodeLifecycle::Create(*env.cluster, *env.cloud, env.clock,
                                {.initialization_delay = absl::Seconds(-1)})
          .status()));
}

TEST_CASE(
    "fake lifecycle: a NodeClaim without a live instance stays "
    "uninitialised",
    "[fake-lifecycle]") {
  Env env({});
  v1::NodeClaim failed;  // Create failed: no providerID.
  failed.mutable_metadata()->set_name("failed");
  REQUIRE(env.cluster->CreateNodeClaim(failed).ok());
  const std::string id = env.Launch("vanished");
  REQUIRE(env.cloud->Vanish(id).ok());
  REQUIRE(env.clock.Advance(absl::Minutes(5)).ok());
  const LifecycleReport r = env.Reconcile();
  CHECK(r.launched.empty());
  CHECK(r.registered.empty());
  const snapshot::Snapshot s = env.Read();
  CHECK(s.nodes().empty());
  for (const v1::NodeClaim& c : s.node_claims()) {
    CHECK(c.status().conditions().empty());
  }
}

TEST_CASE("fake lifecycle: recreated pods land on the new node",
          "[fake-lifecycle]") {
  snapshot::ObjectSet o;
  v1::Node old;
  old.mutable_metadata()->set_name("a-old");
  v1::Taint* t = old.mutable_spec()->add_taints();
  t->set_key("karpenter.sh/disrupted");
  t->set_effect("NoSchedule");
  o.nodes.push_back(old);
  v1::Pod pod;
  pod.mutable_metadata()->set_namespace_("default");
  pod.mutable_metadata()->set_name("web");
  v1::OwnerReference* ref = pod.mutable_metadata()->add_owner_references();
  ref->set_kind("ReplicaSet");
  ref->set_name("web");
  ref->set_controller(true);
  pod.mutable_spec()->set_node_name("a-old");
  pod.mutable_status()->set_phase("Running");
  o.pods.push_back(pod);
  Env env(std::move(o));
  env.Launch("r1");
  REQUIRE(env.clock.Advance(absl::Seconds(30)).ok());
  env.Reconcile();
  REQUIRE(env.cluster->Evict(PodRef{"default", "web", ""}).http_status == 200);
  REQUIRE(env.cluster->RunUntil(env.clock, kT0 + absl::Minutes(2)).ok());
  const snapshot::Snapshot s = env.Read();
  REQUIRE(s.pod_count() == 1);
  CHECK(s.DecodePod(0).spec().node_name() == "r1");
  CHECK(s.DecodePod(0).status().phase() == "Running");
}

TEST_CASE("fake lifecycle: cluster faults stop the pass and are reported",
          "[fake-lifecycle]") {
  Env env({});
  env.Launch("r1");
  REQUIRE(env.clock.Advance(absl::Seconds(30)).ok());
  REQUIRE(env.cluster
              ->FailNext(FakeMethod::kSetLabel, absl::UnavailableError("down"))
              .ok());
  const absl::StatusOr<LifecycleReport> r = env.lifecycle->Reconcile();
  REQUIRE(absl::IsUnavailable(r.status()));
  // The first label write is the launch's NodeClaim placement labels.
  CHECK(absl::StrContains(r.status().message(), "label NodeClaim \"r1\""));
  // The next pass resumes: the claim launches, registers and initialises.
  const LifecycleReport again = env.Reconcile();
  CHECK(again.launched == std::vector<std::string>{"r1"});
  CHECK(again.registered == std::vector<std::string>{"r1"});
  CHECK(again.initialized == std::vector<std::string>{"r1"});
}

}  // namespace
}  // namespace karpenter::testing
