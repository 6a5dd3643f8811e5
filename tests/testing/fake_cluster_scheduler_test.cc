// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// FakeClusterOptions::placement kKubeScheduler: pending pods are bound as
// kube-scheduler binds them (filters, then scores), wait Unschedulable with
// kube-scheduler's message when nothing fits, and are bound once a Node with
// room is added; kFirstNode keeps the first Node by name.

#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "karpenter/conditions.h"
#include "karpenter/testing/builders.h"
#include "karpenter/testing/fake_clock.h"
#include "karpenter/testing/fake_cluster.h"

namespace karpenter::testing {
namespace {

constexpr absl::Time kT0 = kTestEpoch;  // 2024-01-01Z

v1::Node CapNode(const std::string& name, const std::string& cpu,
                 const std::string& pool = "default") {
  return MakeNode(
      {.name = name,
       .nodepool = pool,
       .allocatable = {{"cpu", cpu}, {"memory", "8Gi"}, {"pods", "10"}}});
}

using Placement = FakeClusterOptions::Placement;

// A ReplicaSet pod of app "web" requesting `cpu`.
v1::Pod CpuPod(const std::string& name, const std::string& node,
               const std::string& cpu) {
  return MakePod(
      {.name = name, .node = node, .owner = "ReplicaSet", .cpu = cpu});
}

// n1 runs "moving" (1500m) and is cordoned, as a drain leaves it; n2 is
// nearly full (1800m of 2).
struct Env {
  FakeClock clock{kT0};
  std::unique_ptr<FakeCluster> cluster;

  explicit Env(Placement placement, bool spare_node) {
    snapshot::ObjectSet o;
    o.nodes = {CapNode("n1", "2"), CapNode("n2", "2")};
    o.nodes[0].mutable_spec()->set_unschedulable(true);
    if (spare_node) o.nodes.push_back(CapNode("n3", "2"));
    o.pods = {CpuPod("moving", "n1", "1500m"), CpuPod("filler", "n2", "1800m")};
    FakeClusterOptions options;
    options.placement = placement;
    absl::StatusOr<std::unique_ptr<FakeCluster>> c =
        FakeCluster::Create(std::move(o), clock, options);
    REQUIRE(c.ok());
    cluster = *std::move(c);
  }

  // Deletes "moving" at once and lets its replacement be created.
  void Replace() {
    REQUIRE(cluster
                ->DeletePod(PodRef{"default", "moving", "uid-moving"},
                            absl::ZeroDuration())
                .ok());
    REQUIRE(cluster->RunUntil(clock, kT0 + absl::Seconds(6)).ok());
  }

  // The replacement of "moving"; fails if there is none.
  v1::Pod Replacement() {
    absl::StatusOr<snapshot::Snapshot> s = cluster->Read();
    REQUIRE(s.ok());
    std::optional<v1::Pod> out;
    for (uint32_t p_index = 0; p_index < s->pod_count(); ++p_index) {
      v1::Pod p = s->DecodePod(p_index);
      if (p.metadata().name().rfind("moving-r", 0) == 0) {
        REQUIRE_FALSE(out.has_value());
        out = std::move(p);
      }
    }
    REQUIRE(out.has_value());
    return *out;
  }
  // The node of the replacement of "moving" ("" if unscheduled).
  std::string ReplacementNode() { return Replacement().spec().node_name(); }
};

TEST_CASE("fake cluster scheduler: a recreated pod skips a full node",
          "[fake-cluster]") {
  SECTION("kube-scheduler: the pod goes to the node with room") {
    Env env(Placement::kKubeScheduler, /*spare_node=*/true);
    env.Replace();
    CHECK(env.ReplacementNode() == "n3");
    CHECK(FindCondition(env.Replacement().status().conditions(), "PodScheduled")
              ->status() == "True");
  }
  SECTION("first node: capacity is not modelled, the first node by name") {
    Env env(Placement::kFirstNode, /*spare_node=*/true);
    env.Replace();
    CHECK(env.ReplacementNode() == "n2");
  }
}

TEST_CASE(
    "fake cluster scheduler: an unscheduled pod waits for a node with room",
    "[fake-cluster]") {
  Env env(Placement::kKubeScheduler, /*spare_node=*/false);
  env.Replace();
  CHECK(env.ReplacementNode().empty());
  // Pending, with kube-scheduler's reason and message.
  const v1::Pod pending = env.Replacement();
  CHECK(pending.status().phase() == "Pending");
  const v1::Condition* scheduled =
      FindCondition(pending.status().conditions(), "PodScheduled");
  REQUIRE(scheduled != nullptr);
  CHECK(scheduled->status() == "False");
  CHECK(scheduled->reason() == "Unschedulable");
  CHECK(scheduled->message() ==
        "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) were "
        "unschedulable.");
  // Time alone changes nothing.
  REQUIRE(env.cluster->RunUntil(env.clock, kT0 + absl::Minutes(5)).ok());
  CHECK(env.ReplacementNode().empty());

  // A node too small for it does not take it.
  REQUIRE(env.cluster->AddNode(CapNode("n3-small", "1")).ok());
  REQUIRE(env.cluster->RunUntil(env.clock, env.clock.Now() + absl::Seconds(1))
              .ok());
  CHECK(env.ReplacementNode().empty());

  // A node with room does, after kube-scheduler's 1 s backoff.
  REQUIRE(env.cluster->AddNode(CapNode("n4", "2")).ok());
  CHECK(env.ReplacementNode().empty());
  REQUIRE(env.cluster->RunUntil(env.clock, env.clock.Now() + absl::Seconds(1))
              .ok());
  CHECK(env.ReplacementNode() == "n4");
  // And it becomes Ready after ready_delay (10 s).
  REQUIRE(env.cluster->RunUntil(env.clock, env.clock.Now() + absl::Seconds(10))
              .ok());
  absl::StatusOr<snapshot::Snapshot> s = env.cluster->Read();
  REQUIRE(s.ok());
  bool ready = false;
  for (uint32_t p_index = 0; p_index < s->pod_count(); ++p_index) {
    const v1::Pod p = s->DecodePod(p_index);
    if (p.metadata().name().rfind("moving-r", 0) != 0) continue;
    CHECK(p.status().phase() == "Running");
    for (const v1::Condition& c : p.status().conditions()) {
      ready |= c.type() == "Ready" && c.status() == "True";
    }
  }
  CHECK(ready);
}

// Pending pods added through the API (no replacement involved).
struct PendingEnv {
  FakeClock clock{kT0};
  std::unique_ptr<FakeCluster> cluster;

  explicit PendingEnv(snapshot::ObjectSet o) {
    FakeClusterOptions options;
    options.placement = Placement::kKubeScheduler;
    absl::StatusOr<std::unique_ptr<FakeCluster>> c =
        FakeCluster::Create(std::move(o), clock, options);
    REQUIRE(c.ok());
    cluster = *std::move(c);
  }

  // Pod name -> node name ("" for unbound).
  std::map<std::string, std::string> Nodes() {
    absl::StatusOr<snapshot::Snapshot> s = cluster->Read();
    REQUIRE(s.ok());
    std::map<std::string, std::string> out;
    for (uint32_t p = 0; p < s->pod_count(); ++p) {
      const v1::Pod pod = s->DecodePod(p);
      out[pod.metadata().name()] = pod.spec().node_name();
    }
    return out;
  }
};

v1::Pod PendingPod(const std::string& name, const std::string& cpu) {
  return MakePod({.name = name,
                  .node = "",
                  .phase = "Pending",
                  .owner = "ReplicaSet",
                  .cpu = cpu,
                  .ready = ""});
}

TEST_CASE("fake cluster scheduler: pending pods are spread by score",
          "[fake-cluster]") {
  snapshot::ObjectSet o;
  o.nodes = {CapNode("n1", "4"), CapNode("n2", "4")};
  for (int i = 0; i < 6; ++i) {
    o.pods.push_back(PendingPod("p" + std::to_string(i), "500m"));
  }
  PendingEnv env(std::move(o));
  std::map<std::string, int> per_node;
  for (const auto& [pod, node] : env.Nodes()) ++per_node[node];
  // LeastAllocated: every pod goes to the emptier node, so 3 and 3.
  CHECK(per_node == std::map<std::string, int>{{"n1", 3}, {"n2", 3}});
}

TEST_CASE("fake cluster scheduler: nodeSelector and priority",
          "[fake-cluster]") {
  snapshot::ObjectSet o;
  // n1 is empty but in pool "a"; n2 in pool "b" has room for one pod.
  o.nodes = {CapNode("n1", "4", "a"), CapNode("n2", "1", "b")};
  v1::Pod low = PendingPod("low", "600m");
  v1::Pod high = PendingPod("high", "600m");
  high.mutable_spec()->set_priority(1000);
  for (v1::Pod* p : {&low, &high}) {
    (*p->mutable_spec()->mutable_node_selector())["karpenter.sh/nodepool"] =
        "b";
  }
  o.pods = {low, high};
  PendingEnv env(std::move(o));
  // "high" comes later in the store but first in the queue.
  const std::map<std::string, std::string> nodes = env.Nodes();
  CHECK(nodes.at("high") == "n2");
  CHECK(nodes.at("low").empty());
  // n1 does not match; n2 is full: both counted under their first failure.
  absl::StatusOr<snapshot::Snapshot> s = env.cluster->Read();
  REQUIRE(s.ok());
  const v1::Pod pod = s->DecodePod(*s->FindPod("default", "low"));
  CHECK(FindCondition(pod.status().conditions(), "PodScheduled")->message() ==
        "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match "
        "Pod's node affinity/selector.");
}

TEST_CASE("fake cluster scheduler: a DaemonSet gets a pod on each new node",
          "[fake-cluster]") {
  snapshot::ObjectSet o;
  o.nodes = {CapNode("n1", "4")};
  o.pods = {MakePod({.name = "exporter-abc",
                     .app = "exporter",
                     .node = "n1",
                     .owner = "DaemonSet",
                     .cpu = "50m"})};
  PendingEnv env(std::move(o));
  REQUIRE(env.cluster->AddNode(CapNode("n2", "4")).ok());
  v1::Node tainted = CapNode("n3", "4");
  *tainted.mutable_spec()->add_taints() =
      MakeTaint("dedicated", "gpu", "NoSchedule");
  REQUIRE(env.cluster->AddNode(tainted).ok());
  const std::map<std::string, std::string> nodes = env.Nodes();
  CHECK(nodes == std::map<std::string, std::string>{{"exporter-abc", "n1"},
                                                    {"exporter-n2", "n2"}});
}

TEST_CASE("fake cluster scheduler: a succeeded Job pod is not replaced",
          "[fake-cluster]") {
  snapshot::ObjectSet o;
  o.nodes = {CapNode("n1", "4")};
  o.pods = {
      MakePod({.name = "job-1", .app = "job", .node = "n1", .owner = "Job"})};
  PendingEnv env(std::move(o));
  REQUIRE(env.cluster->SucceedPod({"default", "job-1", ""}).ok());
  REQUIRE(env.cluster->RunUntil(env.clock, kT0 + absl::Minutes(1)).ok());
  absl::StatusOr<snapshot::Snapshot> s = env.cluster->Read();
  REQUIRE(s.ok());
  REQUIRE(s->pod_count() == 1);
  const v1::Pod pod = s->DecodePod(0);
  CHECK(pod.status().phase() == "Succeeded");
  CHECK(FindCondition(pod.status().conditions(), "Ready")->status() == "False");
  CHECK(absl::IsNotFound(env.cluster->SucceedPod({"default", "nope", ""})));
  CHECK(absl::IsFailedPrecondition(
      env.cluster->SucceedPod({"default", "job-1", "other-uid"})));
}

TEST_CASE("fake cluster scheduler: CheckPlacement finds what a filter forbids",
          "[fake-cluster]") {
  SECTION("first node: the replacement overcommits n2") {
    Env env(Placement::kFirstNode, /*spare_node=*/true);
    CHECK(env.cluster->CheckPlacement().overcommitted_nodes.empty());
    env.Replace();
    const PlacementCheck check = env.cluster->CheckPlacement();
    CHECK(check.overcommitted_nodes ==
          std::vector<std::string>{
              "n2: cpu requested 3300m of 2000m allocatable"});
    CHECK(check.misplaced_pods.empty());
    CHECK(check.pending_pods.empty());
  }
  SECTION("kube-scheduler: nothing fits, the replacement is pending") {
    Env env(Placement::kKubeScheduler, /*spare_node=*/false);
    env.Replace();
    const PlacementCheck check = env.cluster->CheckPlacement();
    CHECK(check.overcommitted_nodes.empty());
    CHECK(check.pending_pods ==
          std::vector<std::string>{"default/" +
                                   env.Replacement().metadata().name()});
  }
  SECTION("a pod added on a node its selector and ports forbid") {
    Env env(Placement::kFirstNode, /*spare_node=*/true);
    v1::Pod pinned = CpuPod("pinned", "n3", "100m");
    (*pinned.mutable_spec()->mutable_node_selector())["karpenter.sh/nodepool"] =
        "other";
    v1::ContainerPort* port =
        pinned.mutable_spec()->mutable_containers(0)->add_ports();
    port->set_host_port(8080);
    v1::Pod twin = CpuPod("twin", "n3", "100m");
    *twin.mutable_spec()->mutable_containers(0)->add_ports() = *port;
    REQUIRE(env.cluster->AddPod(pinned).ok());
    REQUIRE(env.cluster->AddPod(twin).ok());
    CHECK(env.cluster->CheckPlacement().misplaced_pods ==
          std::vector<std::string>{
              "default/pinned: node n3 does not match its nodeSelector",
              "default/twin: host port 8080/TCP also bound by default/pinned "
              "on node n3"});
  }
}

}  // namespace
}  // namespace karpenter::testing
