// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// FakeClusterOptions::respect_capacity: recreated pods go only where their
// requests fit, wait unscheduled when nothing fits, and are bound once a
// Node with room is added.

#include <catch2/catch.hpp>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "karpenter/testing/builders.h"
#include "karpenter/testing/fake_clock.h"
#include "karpenter/testing/fake_cluster.h"

namespace karpenter::testing {
namespace {

constexpr absl::Time kT0 = kTestEpoch;  // 2024-01-01Z

v1::Node CapNode(const std::string& name, const std::string& cpu) {
  return MakeNode(
      {.name = name,
       .ready = "",
       .allocatable = {{"cpu", cpu}, {"memory", "8Gi"}, {"pods", "10"}}});
}

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

  explicit Env(bool respect_capacity, bool spare_node) {
    snapshot::ObjectSet o;
    o.nodes = {CapNode("n1", "2"), CapNode("n2", "2")};
    o.nodes[0].mutable_spec()->set_unschedulable(true);
    if (spare_node) o.nodes.push_back(CapNode("n3", "2"));
    o.pods = {CpuPod("moving", "n1", "1500m"), CpuPod("filler", "n2", "1800m")};
    FakeClusterOptions options;
    options.respect_capacity = respect_capacity;
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

  // The node of the replacement of "moving" ("" if unscheduled); fails if
  // there is none.
  std::string ReplacementNode() {
    absl::StatusOr<snapshot::Snapshot> s = cluster->Read();
    REQUIRE(s.ok());
    std::optional<std::string> node;
    for (uint32_t p_index = 0; p_index < s->pod_count(); ++p_index) {
      const v1::Pod p = s->DecodePod(p_index);
      if (p.metadata().name().rfind("moving-r", 0) == 0) {
        REQUIRE_FALSE(node.has_value());
        node = p.spec().node_name();
      }
    }
    REQUIRE(node.has_value());
    return *node;
  }
};

TEST_CASE("fake cluster capacity: a recreated pod skips a full node",
          "[fake-cluster]") {
  SECTION("on: the pod goes to the node with room") {
    Env env(/*respect_capacity=*/true, /*spare_node=*/true);
    env.Replace();
    CHECK(env.ReplacementNode() == "n3");
  }
  SECTION("off: capacity is not modelled, the first node by name wins") {
    Env env(/*respect_capacity=*/false, /*spare_node=*/true);
    env.Replace();
    CHECK(env.ReplacementNode() == "n2");
  }
}

TEST_CASE(
    "fake cluster capacity: an unscheduled pod waits for a node with room",
    "[fake-cluster]") {
  Env env(/*respect_capacity=*/true, /*spare_node=*/false);
  env.Replace();
  CHECK(env.ReplacementNode().empty());
  // Time alone changes nothing.
  REQUIRE(env.cluster->RunUntil(env.clock, kT0 + absl::Minutes(5)).ok());
  CHECK(env.ReplacementNode().empty());

  // A node too small for it does not take it.
  REQUIRE(env.cluster->AddNode(CapNode("n3-small", "1")).ok());
  CHECK(env.ReplacementNode().empty());

  // A node with room does, at the next call.
  REQUIRE(env.cluster->AddNode(CapNode("n4", "2")).ok());
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

}  // namespace
}  // namespace karpenter::testing
