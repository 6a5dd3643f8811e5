// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// disruption::Scheduler::Bind: kube-scheduler's placement of pending pods on
// existing nodes (the Filter plugins, then the default profile's scores).
// The expected nodes follow from the score formulas of kube-scheduler's
// least_allocated.go, balanced_allocation.go, taint_toleration.go and
// node_affinity.go, worked out by hand in each case.

#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "karpenter/disruption/scheduler.h"
#include "karpenter/testing/builders.h"

// The builders take designated initializers that omit fields; GCC 12 warns
// about every omitted member even though each has a default.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace karpenter::disruption {
namespace {

using snapshot::NodeIndex;
using snapshot::PodIndex;

// A Ready node with `cpu` cores and `memory` of allocatable and room for
// 110 pods.
v1::Node Node(const std::string& name, const std::string& cpu,
              const std::string& memory = "8Gi",
              std::vector<v1::Taint> taints = {}) {
  return testing::MakeNode(
      {.name = name,
       .labels = {{"kubernetes.io/hostname", name}},
       .taints = std::move(taints),
       .allocatable = {{"cpu", cpu}, {"memory", memory}, {"pods", "110"}}});
}

v1::Pod Running(const std::string& name, const std::string& node,
                const std::string& cpu, const std::string& memory = "") {
  return testing::MakePod(
      {.name = name, .node = node, .cpu = cpu, .memory = memory});
}

v1::Pod Pending(const std::string& name, const std::string& cpu,
                const std::string& memory = "") {
  return testing::MakePod({.name = name,
                           .node = "",
                           .phase = "Pending",
                           .cpu = cpu,
                           .memory = memory,
                           .ready = ""});
}

struct Result {
  std::map<std::string, std::string> node_of;  // pod name -> node name
  std::map<std::string, std::string> why_not;  // pod name -> message
  std::vector<std::string> order;              // pods bound, in order
};

// Binds the pending pods named `pods`, in that order.
Result Bind(snapshot::ObjectSet objects, const std::vector<std::string>& pods,
            uint64_t seed = 0) {
  absl::StatusOr<snapshot::Snapshot> snap =
      snapshot::Snapshot::Build(std::move(objects));
  REQUIRE(snap.ok());
  SimulatorOptions options;
  options.include_pending_pods = true;
  const InstanceTypeCatalog catalog;
  absl::StatusOr<Scheduler> scheduler =
      Scheduler::Build(*snap, catalog, options);
  REQUIRE(scheduler.ok());
  std::vector<PodIndex> order;
  for (const std::string& name : pods) {
    const std::optional<PodIndex> p = snap->FindPod("default", name);
    REQUIRE(p.has_value());
    order.push_back(*p);
  }
  const Scheduler::Bound bound = scheduler->Bind(order, seed);
  Result r;
  for (const auto& [p, n] : bound.bound) {
    const std::string name(snap->PodName(p));
    r.node_of[name] = snap->nodes()[n].metadata().name();
    r.order.push_back(name);
  }
  for (const auto& [p, why] : bound.unschedulable) {
    r.why_not[std::string(snap->PodName(p))] = why;
  }
  return r;
}

TEST_CASE("bind: LeastAllocated sends a pod to the emptier node",
          "[scheduler][bind]") {
  snapshot::ObjectSet o;
  // a: 3 of 4 cpu used, b: 1 of 4.
  o.nodes = {Node("a", "4"), Node("b", "4")};
  o.pods = {Running("fa", "a", "3"), Running("fb", "b", "1"),
            Pending("new", "500m", "1Gi")};
  CHECK(Bind(o, {"new"}).node_of.at("new") == "b");
}

TEST_CASE("bind: each pod bound counts for the next", "[scheduler][bind]") {
  snapshot::ObjectSet o;
  o.nodes = {Node("a", "4"), Node("b", "4")};
  // Equal nodes: the first pod goes to either; the second, to the other,
  // which is then emptier; the third and fourth alternate again.
  o.pods = {Pending("p1", "1", "1Gi"), Pending("p2", "1", "1Gi"),
            Pending("p3", "1", "1Gi"), Pending("p4", "1", "1Gi")};
  const Result r = Bind(o, {"p1", "p2", "p3", "p4"});
  REQUIRE(r.node_of.size() == 4);
  CHECK(r.node_of.at("p1") != r.node_of.at("p2"));
  CHECK(r.node_of.at("p3") != r.node_of.at("p4"));
  std::map<std::string, int> per_node;
  for (const auto& [pod, node] : r.node_of) ++per_node[node];
  CHECK(per_node == std::map<std::string, int>{{"a", 2}, {"b", 2}});
}

TEST_CASE("bind: capacity is a filter, not a score", "[scheduler][bind]") {
  snapshot::ObjectSet o;
  o.nodes = {Node("a", "2"), Node("b", "2")};
  o.pods = {Running("fa", "a", "1500m"), Running("fb", "b", "1"),
            Pending("big", "900m"), Pending("huge", "3")};
  const Result r = Bind(o, {"big", "huge"});
  CHECK(r.node_of.at("big") == "b");
  CHECK(r.node_of.count("huge") == 0);
  CHECK(r.why_not.at("huge") == "0/2 nodes are available: 2 Insufficient cpu.");
}

TEST_CASE("bind: BalancedAllocation prefers the node left balanced",
          "[scheduler][bind]") {
  snapshot::ObjectSet o;
  o.nodes = {Node("a", "4"), Node("b", "4")};
  o.pods = {Running("fa", "a", "2", "2Gi"), Running("fb", "b", "1", "5Gi"),
            Pending("new", "1", "2Gi")};
  // With the pod (1 cpu, 2Gi), used fractions of cpu and memory:
  //   a: .75 and .5   -> least (25 + 50) / 2 = 37, balanced 87: 124;
  //   b: .5 and .875  -> least (50 + 12) / 2 = 31, balanced 81: 112.
  // b has more free cpu, but a ends fuller on neither and better balanced.
  CHECK(Bind(o, {"new"}).node_of.at("new") == "a");
}

TEST_CASE("bind: a PreferNoSchedule taint weighs 3 against the node",
          "[scheduler][bind]") {
  snapshot::ObjectSet o;
  // b is emptier (least allocated +50, balanced no worse) but tainted: the
  // taint costs 100 x 3 = 300.
  o.nodes = {Node("a", "4"),
             Node("b", "4", "8Gi",
                  {testing::MakeTaint("dedicated", "x", "PreferNoSchedule")})};
  o.pods = {Running("fa", "a", "3"), Pending("new", "500m")};
  CHECK(Bind(o, {"new"}).node_of.at("new") == "a");
  SECTION("tolerated, it weighs nothing") {
    v1::Toleration* t = o.pods[1].mutable_spec()->add_tolerations();
    t->set_key("dedicated");
    t->set_operator_("Equal");
    t->set_value("x");
    t->set_effect("PreferNoSchedule");
    CHECK(Bind(o, {"new"}).node_of.at("new") == "b");
  }
}

TEST_CASE("bind: preferred node affinity weighs 2, normalized",
          "[scheduler][bind]") {
  snapshot::ObjectSet o;
  o.nodes = {Node("a", "4"), Node("b", "4")};
  (*o.nodes[0].mutable_metadata()->mutable_labels())["disk"] = "ssd";
  // b is emptier by 1 cpu of 4 (least allocated +12); the preference is
  // worth 200.
  o.pods = {Running("fa", "a", "1"), Pending("new", "500m")};
  v1::PreferredSchedulingTerm* term =
      o.pods[1]
          .mutable_spec()
          ->mutable_affinity()
          ->mutable_node_affinity()
          ->add_preferred_during_scheduling_ignored_during_execution();
  term->set_weight(1);
  v1::NodeSelectorRequirement* req =
      term->mutable_preference()->add_match_expressions();
  req->set_key("disk");
  req->set_operator_("In");
  req->add_values("ssd");
  CHECK(Bind(o, {"new"}).node_of.at("new") == "a");
}

TEST_CASE("bind: preferred pod anti-affinity weighs 2, normalized",
          "[scheduler][bind]") {
  snapshot::ObjectSet o;
  o.nodes = {Node("a", "4"), Node("b", "4")};
  // a runs a web pod (1 cpu), b a db pod (2 cpu): a is emptier, by about
  // 12 (least allocated) + 13 (balanced). The api pod's preference against
  // web on its node makes a -1 and b 0: normalized 0 and 100, times 2.
  o.pods = {Running("web", "a", "1"), Running("db", "b", "2"),
            Pending("api", "500m")};
  (*o.pods[1].mutable_metadata()->mutable_labels())["app"] = "db";
  (*o.pods[2].mutable_metadata()->mutable_labels())["app"] = "api";
  CHECK(Bind(o, {"api"}).node_of.at("api") == "a");
  v1::WeightedPodAffinityTerm* term =
      o.pods[2]
          .mutable_spec()
          ->mutable_affinity()
          ->mutable_pod_anti_affinity()
          ->add_preferred_during_scheduling_ignored_during_execution();
  term->set_weight(1);
  term->mutable_pod_affinity_term()->set_topology_key("kubernetes.io/hostname");
  *term->mutable_pod_affinity_term()->mutable_label_selector() =
      testing::MakeLabelSelector({{"app", "web"}});
  CHECK(Bind(o, {"api"}).node_of.at("api") == "b");
}

TEST_CASE("bind: a ReplicaSet's pods are spread by the system defaults",
          "[scheduler][bind]") {
  snapshot::ObjectSet o;
  const auto zone = [](v1::Node n, const std::string& z) {
    (*n.mutable_metadata()->mutable_labels())["topology.kubernetes.io/zone"] =
        z;
    return n;
  };
  o.nodes = {zone(Node("a1", "4"), "a"), zone(Node("a2", "4"), "a"),
             zone(Node("b1", "4"), "b")};
  const auto replica = [](const std::string& name, const std::string& node) {
    return testing::MakePod({.name = name,
                             .node = node,
                             .phase = node.empty() ? "Pending" : "Running",
                             .owner = "ReplicaSet",
                             .owner_name = "web-1",
                             .cpu = node.empty() ? "500m" : "1",
                             .ready = node.empty() ? "" : "True"});
  };
  // web-1 has a replica on a1 and on a2; b1 is fuller (2 cpu of another
  // app). Without spreading the new replica goes to zone a (about 25
  // points emptier). Spreading (hostname maxSkew 3, zone maxSkew 5):
  //   a1, a2: round(1 * ln 5 + 2 + 2 * ln 4 + 4) = 10; b1: 2 + 4 = 6;
  //   normalized 100 * (16 - s) / 10: 60 and 100, times 2: b1 by 80.
  o.pods = {replica("web-1-a", "a1"), replica("web-1-b", "a2"),
            Running("other", "b1", "2"), replica("web-1-new", "")};
  (*o.pods[2].mutable_metadata()->mutable_labels())["app"] = "other";
  CHECK(Bind(o, {"web-1-new"}).node_of.at("web-1-new") == "b1");
  // The same pod without its controller is not spread.
  o.pods[3].mutable_metadata()->clear_owner_references();
  CHECK(Bind(o, {"web-1-new"}).node_of.at("web-1-new") != "b1");
}

TEST_CASE("bind: host ports filter the nodes a pod already uses",
          "[scheduler][bind]") {
  snapshot::ObjectSet o;
  o.nodes = {Node("a", "4"), Node("b", "4")};
  v1::Pod p1 = Pending("p1", "100m");
  v1::Pod p2 = Pending("p2", "100m");
  for (v1::Pod* p : {&p1, &p2}) {
    v1::ContainerPort* port =
        p->mutable_spec()->mutable_containers(0)->add_ports();
    port->set_container_port(9100);
    port->set_host_port(9100);
  }
  v1::Pod p3 = p2;
  p3.mutable_metadata()->set_name("p3");
  p3.mutable_metadata()->set_uid("uid-p3");
  o.pods = {p1, p2, p3};
  const Result r = Bind(o, {"p1", "p2", "p3"});
  CHECK(r.node_of.at("p1") != r.node_of.at("p2"));
  CHECK(r.why_not.at("p3") ==
        "0/2 nodes are available: 2 node(s) didn't have free ports for the "
        "requested pod ports.");
}

TEST_CASE("bind: nodes not Ready, cordoned or tainted NoSchedule are out",
          "[scheduler][bind]") {
  snapshot::ObjectSet o;
  o.nodes = {
      Node("a", "4"), Node("b", "4"),
      Node("c", "4", "8Gi",
           {testing::MakeTaint("karpenter.sh/disrupted", "", "NoSchedule")}),
      Node("d", "4")};
  o.nodes[0].mutable_spec()->set_unschedulable(true);
  o.nodes[1] = testing::MakeNode(
      {.name = "b", .ready = "False", .cpu = "4", .memory = "8Gi"});
  o.pods = {Pending("new", "100m"), Pending("too-big", "8")};
  const Result r = Bind(o, {"new", "too-big"});
  CHECK(r.node_of.at("new") == "d");
  CHECK(r.why_not.at("too-big").rfind("0/4 nodes are available: ", 0) == 0);
  CHECK(r.why_not.at("too-big").find("1 Insufficient cpu") !=
        std::string::npos);
}

TEST_CASE("bind: ties are broken by the seed, deterministically",
          "[scheduler][bind]") {
  snapshot::ObjectSet o;
  o.nodes = {Node("a", "4"), Node("b", "4"), Node("c", "4")};
  o.pods = {Pending("p", "100m")};
  std::set<std::string> chosen;
  for (uint64_t seed = 0; seed < 32; ++seed) {
    const std::string node = Bind(o, {"p"}, seed).node_of.at("p");
    CHECK(Bind(o, {"p"}, seed).node_of.at("p") == node);
    chosen.insert(node);
  }
  // Every equal node is picked by some seed.
  CHECK(chosen == std::set<std::string>{"a", "b", "c"});
}

TEST_CASE("bind: a pod that is not pending is refused", "[scheduler][bind]") {
  snapshot::ObjectSet o;
  o.nodes = {Node("a", "4")};
  o.pods = {Running("r", "a", "100m")};
  const Result r = Bind(o, {"r"});
  CHECK(r.node_of.empty());
  CHECK(r.why_not.at("r") == "is not pending (bound, terminal or terminating)");
}

}  // namespace
}  // namespace karpenter::disruption
