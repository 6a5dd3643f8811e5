// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Consolidation and drift passes (disruption::Controller over the real
// Scheduler) for pods with topology spread constraints and required pod
// anti-affinity: an existing node that would break a constraint is refused
// in the plugin's words, a new NodeClaim is narrowed to the domains that
// keep it (Karpenter's provisioning Topology), and pods moved earlier in
// one simulation count for the pods moved after them. Also which new
// NodeClaims a drift launches: several, from which NodePool, within its
// limits.

#include <catch2/catch.hpp>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "../scheduling/topology_test_util.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "controller_test_util.h"
#include "karpenter/disruption/consolidation.h"
#include "karpenter/disruption/plan_proto.h"
#include "karpenter/disruption/scheduler.h"
#include "karpenter/snapshot/load.h"

// The builders take designated initializers that omit fields; GCC 12 warns
// about every omitted member even though each has a default.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace karpenter::disruption {
namespace {

using controller_test::ClaimOpts;
using controller_test::CodeOf;
using controller_test::CommandSummary;
using controller_test::kT0;
using controller_test::NodeOpts;
using controller_test::PodOpts;
using controller_test::World;
using testing::Labels;
using topology_test::PodEdit;
using topology_test::Spread;
using topology_test::Term;
using topology_test::WithAntiAffinity;
using topology_test::WithSpread;

constexpr char kZone[] = "topology.kubernetes.io/zone";
constexpr char kHost[] = "kubernetes.io/hostname";
constexpr char kA[] = "us-west-2a";
constexpr char kB[] = "us-west-2b";
constexpr char kC[] = "us-west-2c";

const Labels kWeb = {{"app", "web"}};

// A node of NodePool "default" in `zone`, with its hostname label; `hold`
// puts karpenter.sh/do-not-disrupt on it, so that it is a destination only.
NodeOpts ZoneNode(const std::string& name, const std::string& zone, bool hold) {
  return {.name = name,
          .zone = zone,
          .labels = {{kHost, name}},
          .annotations = hold ? Labels{{"karpenter.sh/do-not-disrupt", "true"}}
                              : Labels{}};
}

// A ReplicaSet pod of `app` on `node` requesting `cpu` (nodes have 2).
PodOpts Replica(const std::string& name, const std::string& app,
                const std::string& node, const std::string& cpu) {
  return {.name = name,
          .app = app,
          .node = node,
          .owner = "apps/v1/ReplicaSet",
          .cpu = cpu};
}

const PodEdit kNoEdit = [](v1::Pod&) {};

ControllerOptions DriftOnly() {
  ControllerOptions o;
  o.disable_consolidation = true;
  return o;
}

std::string Message(const Plan& plan, const std::string& node) {
  const NodeVerdict* v = plan.VerdictOf(node);
  REQUIRE(v != nullptr);
  return v->message;
}

// Single-node consolidation alone over w's cluster, with the real
// Scheduler: its verdict for `node`. (In a Controller pass the verdict a
// node keeps is multi-node consolidation's, which needs two candidates.)
NodeVerdict SingleNodeVerdict(World& w, const std::string& node) {
  if (!w.snapshot.has_value()) w.Build();
  CandidateContext ctx = test::Ctx(*w.snapshot);
  ctx.catalog = &w.inputs.catalog;
  const CandidatePool pool = test::MustBuild(ctx);
  absl::StatusOr<Scheduler> scheduler =
      Scheduler::Build(*w.snapshot, w.inputs.catalog);
  REQUIRE(scheduler.ok());
  BudgetLedger ledger;
  ledger.Set("default", 10);
  const ConsolidationResult r = ComputeSingleNodeConsolidation(
      pool.For(Method::kSingleNodeConsolidation).candidates, ledger, *scheduler,
      w.inputs.catalog, kT0);
  CHECK(r.commands.empty());
  for (const NodeVerdict& v : r.verdicts) {
    if (v.node == node) return v;
  }
  FAIL("no single-node consolidation verdict for " << node);
  return {};
}

// "key Operator v1,v2" per requirement of the NodeClaim `r` would create,
// in order.
std::vector<std::string> RequirementsOf(const Replacement& r) {
  std::vector<std::string> out;
  for (const v1::NodeSelectorRequirement& req :
       r.node_claim.spec().requirements()) {
    out.push_back(absl::StrCat(req.key(), " ", req.operator_(), " ",
                               absl::StrJoin(req.values(), ",")));
  }
  return out;
}

// The real Scheduler over w's snapshot, simulating `nodes` going away.
SimulationResult SimulateAway(World& w, const std::vector<std::string>& nodes) {
  if (!w.snapshot.has_value()) w.Build();
  const snapshot::Snapshot& snap = *w.snapshot;
  absl::StatusOr<Scheduler> scheduler =
      Scheduler::Build(snap, w.inputs.catalog);
  REQUIRE(scheduler.ok());
  std::vector<Candidate> candidates;
  for (const std::string& name : nodes) {
    Candidate c;
    c.node = *snap.FindNode(name);
    c.node_name = name;
    c.node_pool_name = "default";
    for (snapshot::PodIndex p : snap.PodsOnNode(c.node)) {
      c.reschedulable_pods.push_back(p);
    }
    candidates.push_back(std::move(c));
  }
  return scheduler->Simulate(candidates);
}

// --- Zone spread. ------------------------------------------------------------

// web pods one per zone (a1, b1, c1), each with `web_edit`; c1 is the only
// node that may be disrupted (drifted when `drifted`); c2, also in zone c,
// holds a filler of `c2_fill` cpu.
World ZoneSpread(const PodEdit& web_edit, const std::string& c2_fill,
                 bool drifted = false) {
  World w;
  w.Zones({kA, kB, kC});
  w.Pool().Budget("100%");
  w.Node(ZoneNode("a1", kA, true))
      .Pod(Replica("web-a", "web", "a1", "500m"), web_edit)
      .Node(ZoneNode("b1", kB, true))
      .Pod(Replica("web-b", "web", "b1", "500m"), web_edit)
      .Node(ZoneNode("c1", kC, false),
            drifted ? ClaimOpts{.drifted_since = kT0 - absl::Hours(1)}
                    : ClaimOpts{})
      .Pod(Replica("web-c", "web", "c1", "500m"), web_edit)
      .Node(ZoneNode("c2", kC, true))
      .Pod(Replica("fill-c", "fill", "c2", c2_fill));
  return w;
}

const PodEdit kZoneSpread = WithSpread(Spread(kZone, 1, kWeb));

// The requirements of a NodeClaim of NodePool "default" (template label
// team=a) for an m5.large in `zone`.
std::vector<std::string> M5LargeIn(const std::string& zone) {
  return {"karpenter.sh/nodepool In default", "team In a",
          "topology.kubernetes.io/zone In " + zone,
          "node.kubernetes.io/instance-type In m5.large"};
}

// Without c1 zone c is c2 alone, with no web pod: web-c may go to c2 only
// (to a1 or b1 it makes a skew of 2). When c2 has no room, a new node in
// zone c keeps maxSkew 1 (Karpenter's topology narrows the NodeClaim to
// the domain with the fewest web pods, us-west-2c).

TEST_CASE(
    "topology: consolidation of a zone-spread pod's node needs a "
    "replacement in the pod's zone",
    "[disruption][topology]") {
  SECTION("only the node's own type is offered: no cheaper replacement") {
    World w = ZoneSpread(kZoneSpread, "1800m");
    const SimulationResult sim = SimulateAway(w, {"c1"});
    CHECK(sim.all_pods_scheduled);
    CHECK(sim.unschedulable.empty());
    REQUIRE(sim.new_node_claims.size() == 1);
    CHECK(RequirementsOf(sim.new_node_claims[0]) == M5LargeIn(kC));
    // An m5.large in zone c replacing an m5.large saves nothing.
    CHECK(w.Decide().commands.empty());
    const NodeVerdict v = SingleNodeVerdict(w, "c1");
    CHECK(v.code == reasons::kNoCheaperReplacement);
    CHECK(v.message ==
          "Can't replace with a cheaper node (no instance type below 0.0960)");
  }
  SECTION("a cheaper type offered outside zone c does not help") {
    World w = ZoneSpread(kZoneSpread, "1800m");
    w.Build();
    w.inputs.catalog["default"].push_back(
        testing::MakeInstanceType({.name = "t3.small",
                                   .memory = "2Gi",
                                   .zones = {kA, kB},
                                   .on_demand_price = 0.02}));
    const SimulationResult sim = SimulateAway(w, {"c1"});
    REQUIRE(sim.new_node_claims.size() == 1);
    CHECK(sim.new_node_claims[0].instance_types ==
          std::vector<std::string>{"m5.large"});
    CHECK(w.Decide().commands.empty());
    CHECK(SingleNodeVerdict(w, "c1").code == reasons::kNoCheaperReplacement);
  }
  SECTION("a cheaper type offered in zone c replaces the node") {
    World w = ZoneSpread(kZoneSpread, "1800m");
    w.Build();
    w.inputs.catalog["default"].push_back(
        testing::MakeInstanceType({.name = "t3.small",
                                   .memory = "2Gi",
                                   .zones = {kA, kB, kC},
                                   .on_demand_price = 0.02,
                                   .spot_price = 0.01}));
    const Plan plan = w.Decide();
    CHECK(CommandSummary(plan) ==
          std::vector<std::string>{"SingleNodeConsolidation:c1"});
    REQUIRE(plan.commands.size() == 1);
    CHECK(plan.commands[0].decision() == Decision::kReplace);
    REQUIRE(plan.commands[0].replacements.size() == 1);
    const Replacement& r = plan.commands[0].replacements[0];
    CHECK(r.instance_types == std::vector<std::string>{"t3.small"});
    CHECK(r.price == Approx(0.01));
    // Consolidation priced the spot offering, so it insists on spot
    // (appended after the simulation's requirements).
    CHECK(RequirementsOf(r) ==
          std::vector<std::string>{
              "karpenter.sh/nodepool In default", "team In a",
              "topology.kubernetes.io/zone In " + std::string(kC),
              "node.kubernetes.io/instance-type In t3.small",
              "karpenter.sh/capacity-type In spot"});
  }
}

TEST_CASE("topology: consolidation takes a move that keeps zone spread",
          "[disruption][topology]") {
  SECTION("c2 has room: web-c stays in zone c") {
    World w = ZoneSpread(kZoneSpread, "500m");
    const Plan plan = w.Decide();
    CHECK(CommandSummary(plan) ==
          std::vector<std::string>{"SingleNodeConsolidation:c1"});
    REQUIRE(plan.commands.size() == 1);
    CHECK(plan.commands[0].decision() == Decision::kDelete);
  }
  SECTION("without the constraint web-c may go to zone a or b") {
    World w = ZoneSpread(kNoEdit, "1800m");
    CHECK(CommandSummary(w.Decide()) ==
          std::vector<std::string>{"SingleNodeConsolidation:c1"});
  }
  SECTION("ScheduleAnyway is tried as required: a new node in zone c wins") {
    // Karpenter relaxes a preference only when the pod fits nowhere, and a
    // new NodeClaim in zone c takes it with the spread kept; that claim is
    // no cheaper, so the node stays (preferences.go).
    World w = ZoneSpread(WithSpread(Spread(kZone, 1, kWeb, "ScheduleAnyway")),
                         "1800m");
    const Plan plan = w.Decide();
    CHECK(plan.commands.empty());
    INFO(Message(plan, "c1"));
    CHECK(CodeOf(plan, "c1") == reasons::kNoCheaperReplacement);
  }
  SECTION("maxSkew 2 lets it go to zone a or b") {
    World w = ZoneSpread(WithSpread(Spread(kZone, 2, kWeb)), "1800m");
    CHECK(CommandSummary(w.Decide()) ==
          std::vector<std::string>{"SingleNodeConsolidation:c1"});
  }
}

TEST_CASE(
    "topology: drift of a zone-spread pod's node replaces it in the pod's "
    "zone, or deletes it when the zone has room",
    "[disruption][topology]") {
  {
    // c2 is full: web-c needs a new node, which may launch only in zone c.
    World w = ZoneSpread(kZoneSpread, "1800m", /*drifted=*/true);
    const Plan plan = w.Decide(DriftOnly());
    CHECK(CommandSummary(plan) == std::vector<std::string>{"Drift:c1"});
    REQUIRE(plan.commands.size() == 1);
    CHECK(plan.commands[0].decision() == Decision::kReplace);
    REQUIRE(plan.commands[0].replacements.size() == 1);
    CHECK(RequirementsOf(plan.commands[0].replacements[0]) == M5LargeIn(kC));
    CHECK(CodeOf(plan, "c1") == reasons::kCommanded);
    CHECK(plan.VerdictOf("c1")->method == Method::kDrift);
    CHECK(Message(plan, "c1") ==
          "replace drifted node c1 (NodePoolDrifted) with 1 new NodeClaim(s)");
  }
  {
    World w = ZoneSpread(kZoneSpread, "500m", /*drifted=*/true);
    const Plan plan = w.Decide(DriftOnly());
    CHECK(CommandSummary(plan) == std::vector<std::string>{"Drift:c1"});
    REQUIRE(plan.commands.size() == 1);
    CHECK(plan.commands[0].decision() == Decision::kDelete);
  }
}

// --- Hostname anti-affinity. -------------------------------------------------

// Replicas r-0 (n1) and r-1 (n2) that may not share a node; n2 is the only
// node that may be disrupted; n3 holds a filler of `n3_fill` cpu.
World Replicas(const std::string& n3_fill, bool drifted = false) {
  const PodEdit apart = WithAntiAffinity(Term(kHost, Labels{{"app", "r"}}));
  World w;
  w.Pool().Budget("100%");
  w.Node(ZoneNode("n1", kA, true))
      .Pod(Replica("r-0", "r", "n1", "500m"), apart)
      .Node(ZoneNode("n2", kA, false),
            drifted ? ClaimOpts{.drifted_since = kT0 - absl::Hours(1)}
                    : ClaimOpts{})
      .Pod(Replica("r-1", "r", "n2", "500m"), apart)
      .Node(ZoneNode("n3", kA, true))
      .Pod(Replica("fill", "fill", "n3", n3_fill));
  return w;
}

// Without n2, r-1 cannot join r-0 on n1; when n3 has no room it needs a
// new node (a new hostname), an m5.large like n2.
std::vector<std::string> AnyM5Large() {
  return {"karpenter.sh/nodepool In default", "team In a",
          "node.kubernetes.io/instance-type In m5.large"};
}

TEST_CASE("topology: replicas with hostname anti-affinity never share a node",
          "[disruption][topology]") {
  SECTION("consolidation: the only room is next to the sibling") {
    World w = Replicas("1800m");
    const SimulationResult sim = SimulateAway(w, {"n2"});
    CHECK(sim.all_pods_scheduled);
    REQUIRE(sim.new_node_claims.size() == 1);
    CHECK(RequirementsOf(sim.new_node_claims[0]) == AnyM5Large());
    CHECK(sim.new_node_claims[0].node_claim.spec().resources().requests().at(
              "cpu") == "500m");
    // A new m5.large for r-1 costs what n2 costs.
    CHECK(w.Decide().commands.empty());
    const NodeVerdict v = SingleNodeVerdict(w, "n2");
    CHECK(v.code == reasons::kNoCheaperReplacement);
    CHECK(v.message ==
          "Can't replace with a cheaper node (no instance type below 0.0960)");
  }
  SECTION("consolidation: a free node takes the replica") {
    World w = Replicas("500m");
    const Plan plan = w.Decide();
    CHECK(CommandSummary(plan) ==
          std::vector<std::string>{"SingleNodeConsolidation:n2"});
  }
  SECTION("drift: the only room is next to the sibling: a new node") {
    World w = Replicas("1800m", /*drifted=*/true);
    const Plan plan = w.Decide(DriftOnly());
    CHECK(CommandSummary(plan) == std::vector<std::string>{"Drift:n2"});
    REQUIRE(plan.commands.size() == 1);
    CHECK(plan.commands[0].decision() == Decision::kReplace);
    REQUIRE(plan.commands[0].replacements.size() == 1);
    CHECK(RequirementsOf(plan.commands[0].replacements[0]) == AnyM5Large());
    CHECK(Message(plan, "n2") ==
          "replace drifted node n2 (NodePoolDrifted) with 1 new NodeClaim(s)");
  }
  SECTION("drift: a free node takes the replica") {
    World w = Replicas("500m", /*drifted=*/true);
    const Plan plan = w.Decide(DriftOnly());
    CHECK(CommandSummary(plan) == std::vector<std::string>{"Drift:n2"});
    REQUIRE(plan.commands.size() == 1);
    CHECK(plan.commands[0].decision() == Decision::kDelete);
  }
}

// --- An existing pod's anti-affinity against a pod without constraints. ----

// h on n1 keeps web pods off its node (`term`, nullopt: h has no
// anti-affinity); web-0, without constraints of its own, is on n2, the only
// node that may be disrupted; n3 holds a filler of `n3_fill` cpu. n1 and n3
// tie on free cpu, so n1 is tried first.
World Holder(std::optional<v1::PodAffinityTerm> term,
             const std::string& n3_fill, bool drifted = false) {
  World w;
  w.Pool().Budget("100%");
  w.Node(ZoneNode("n1", kA, true))
      .Pod(Replica("h", "h", "n1", "500m"),
           term.has_value() ? WithAntiAffinity(*term) : kNoEdit)
      .Node(ZoneNode("n2", kA, false),
            drifted ? ClaimOpts{.drifted_since = kT0 - absl::Hours(1)}
                    : ClaimOpts{})
      .Pod(Replica("web-0", "web", "n2", "500m"))
      .Node(ZoneNode("n3", kA, true))
      .Pod(Replica("fill", "fill", "n3", n3_fill));
  return w;
}

TEST_CASE(
    "topology: an existing pod's anti-affinity keeps a moving pod "
    "without constraints away",
    "[disruption][topology]") {
  const v1::PodAffinityTerm by_host = Term(kHost, kWeb);
  SECTION("consolidation: the room next to the holder is not room") {
    // web-0 cannot join h: it needs a new node, which costs as much as n2.
    World w = Holder(by_host, "1800m");
    CHECK(w.Decide().commands.empty());
    CHECK(SingleNodeVerdict(w, "n2").code == reasons::kNoCheaperReplacement);
  }
  SECTION("consolidation: without the term web-0 joins h") {
    World w = Holder(std::nullopt, "1800m");
    CHECK(CommandSummary(w.Decide()) ==
          std::vector<std::string>{"SingleNodeConsolidation:n2"});
  }
  SECTION("consolidation: another free node takes web-0") {
    World w = Holder(by_host, "500m");
    CHECK(CommandSummary(w.Decide()) ==
          std::vector<std::string>{"SingleNodeConsolidation:n2"});
  }
  SECTION("drift: a new node is needed (a fresh hostname)") {
    World w = Holder(by_host, "1800m", /*drifted=*/true);
    const Plan plan = w.Decide(DriftOnly());
    CHECK(CommandSummary(plan) == std::vector<std::string>{"Drift:n2"});
    REQUIRE(plan.commands.size() == 1);
    CHECK(plan.commands[0].decision() == Decision::kReplace);
  }
  SECTION(
      "drift: a namespaceSelector the SDK cannot read selects every "
      "namespace") {
    // Whether namespace "default" carries team=a is not in the snapshot:
    // h may keep web-0 away, so the simulation keeps it away.
    World w = Holder(Term(kHost, kWeb, {}, Labels{{"team", "a"}}), "1800m",
                     /*drifted=*/true);
    const Plan plan = w.Decide(DriftOnly());
    REQUIRE(plan.commands.size() == 1);
    CHECK(plan.commands[0].decision() == Decision::kReplace);
  }
  SECTION("drift: without the term no new node is needed") {
    World w = Holder(std::nullopt, "1800m", /*drifted=*/true);
    const Plan plan = w.Decide(DriftOnly());
    REQUIRE(plan.commands.size() == 1);
    CHECK(plan.commands[0].decision() == Decision::kDelete);
  }
}

TEST_CASE(
    "topology: a new node is narrowed away from an existing pod's zone "
    "anti-affinity",
    "[disruption][topology]") {
  SECTION("the only zone offered is the holder's: drift is refused") {
    // h keeps web pods out of its zone, us-west-2a, the only zone the
    // NodePool offers (and the only zone of any node): a replacement would
    // be in us-west-2a too, where web-0 may not go. No NodeClaim is planned
    // onto a node web-0 cannot use.
    World w = Holder(Term(kZone, kWeb), "1800m", /*drifted=*/true);
    const Plan plan = w.Decide(DriftOnly());
    CHECK(plan.commands.empty());
    CHECK(CodeOf(plan, "n2") == reasons::kPodsDoNotFit);
    CHECK(Message(plan, "n2") ==
          "pods cannot be rescheduled: default/web-0: fits no remaining node "
          "(0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't "
          "satisfy existing pods anti-affinity rules.) and a new NodeClaim of "
          "NodePool default cannot keep its topology: no domain of "
          "topology.kubernetes.io/zone is left for existing pods' "
          "anti-affinity");
  }
  SECTION("another zone is offered: the replacement launches there") {
    World w = Holder(Term(kZone, kWeb), "1800m", /*drifted=*/true);
    w.Zones({kA, kB});
    const Plan plan = w.Decide(DriftOnly());
    CHECK(CommandSummary(plan) == std::vector<std::string>{"Drift:n2"});
    REQUIRE(plan.commands.size() == 1);
    CHECK(plan.commands[0].decision() == Decision::kReplace);
    REQUIRE(plan.commands[0].replacements.size() == 1);
    CHECK(RequirementsOf(plan.commands[0].replacements[0]) == M5LargeIn(kB));
  }
}

// --- Pods moved earlier count for later ones. --------------------------------

// Candidates x and y (zone c, nothing else there) each run one web replica
// with `web_edit`; a1 (zone a) has room for both, b1 (zone b) holds a
// filler of `b1_fill` cpu. Neither a1 nor b1 runs a web pod.
World TwoMovers(const PodEdit& web_edit, const std::string& b1_fill) {
  World w;
  w.Zones({kA, kB, kC});
  w.Pool().Budget("100%");
  w.Node(ZoneNode("a1", kA, true))
      .Pod(Replica("fill-a", "fill", "a1", "500m"))
      .Node(ZoneNode("b1", kB, true))
      .Pod(Replica("fill-b", "fill", "b1", b1_fill))
      .Node(ZoneNode("x", kC, false))
      .Pod(Replica("web-x", "web", "x", "500m"), web_edit)
      .Node(ZoneNode("y", kC, false))
      .Pod(Replica("web-y", "web", "y", "500m"), web_edit);
  return w;
}

TEST_CASE(
    "topology: in one multi-node simulation the pods moved first count "
    "for the ones after",
    "[disruption][topology]") {
  SECTION("zone spread: the second replica cannot follow the first") {
    // Alone, either replica may go to a1 (zone c keeps the other). Both:
    // the first goes to a1 (b1 is full), and the second would make zone a
    // 2 against zone b's 0: it needs a new node in zone b or c (no web pod
    // in either; ties go to the first by name).
    World w = TwoMovers(WithSpread(Spread(kZone, 1, kWeb)), "1800m");
    const SimulationResult x = SimulateAway(w, {"x"});
    CHECK(x.all_pods_scheduled);
    CHECK(x.new_node_claims.empty());
    CHECK(SimulateAway(w, {"y"}).new_node_claims.empty());
    const SimulationResult both = SimulateAway(w, {"x", "y"});
    CHECK(both.all_pods_scheduled);
    CHECK(both.unschedulable.empty());
    REQUIRE(both.new_node_claims.size() == 1);
    CHECK(RequirementsOf(both.new_node_claims[0]) == M5LargeIn(kB));
    // Multi-node consolidation would replace two m5.large with an m5.large
    // (no other type: Karpenter's filterOutSameInstanceType leaves none);
    // single-node takes x.
    CHECK(CommandSummary(w.Decide()) ==
          std::vector<std::string>{"SingleNodeConsolidation:x"});
  }
  SECTION("zone spread: room in zone b takes the second replica") {
    World w = TwoMovers(WithSpread(Spread(kZone, 1, kWeb)), "1200m");
    w.Build();
    CHECK(SimulateAway(w, {"x", "y"}).all_pods_scheduled);
    CHECK(CommandSummary(w.Decide()) ==
          std::vector<std::string>{"MultiNodeConsolidation:x,y"});
  }
  SECTION("without the constraint both go to a1") {
    World w = TwoMovers(kNoEdit, "1800m");
    w.Build();
    CHECK(CommandSummary(w.Decide()) ==
          std::vector<std::string>{"MultiNodeConsolidation:x,y"});
  }
  SECTION("hostname anti-affinity: the second replica cannot join the first") {
    World w = TwoMovers(WithAntiAffinity(Term(kHost, kWeb)), "1800m");
    const SimulationResult x = SimulateAway(w, {"x"});
    CHECK(x.all_pods_scheduled);
    CHECK(x.new_node_claims.empty());
    // web-x takes a1; web-y may not join it and b1 is full: a new node.
    const SimulationResult both = SimulateAway(w, {"x", "y"});
    CHECK(both.all_pods_scheduled);
    CHECK(both.unschedulable.empty());
    REQUIRE(both.new_node_claims.size() == 1);
    CHECK(RequirementsOf(both.new_node_claims[0]) == AnyM5Large());
    CHECK(CommandSummary(w.Decide()) ==
          std::vector<std::string>{"SingleNodeConsolidation:x"});
  }
}

// --- The demo cluster. -------------------------------------------------------

constexpr char kDemoEmpty[] = "ip-10-0-1-89.us-west-2.compute.internal";
constexpr char kDemoDrifted[] = "ip-10-0-3-67.us-west-2.compute.internal";

// examples/clusters/demo.yaml without its empty node (so that emptiness
// does not act first), NodeClaim default-p8vtn (node kDemoDrifted, zone c,
// one web replica) Drifted, and, with `spread`, every web pod spread over
// zones (maxSkew 1, DoNotSchedule, app=web).
snapshot::Snapshot DemoDrift(bool spread) {
  snapshot::ObjectSet all;
  REQUIRE(snapshot::LoadFile(
              absl::StrCat(KARPENTER_EXAMPLES_DIR, "/clusters/demo.yaml"), all)
              .ok());
  snapshot::ObjectSet o;
  for (v1::Node& n : all.nodes) {
    if (n.metadata().name() != kDemoEmpty) o.nodes.push_back(std::move(n));
  }
  for (v1::NodeClaim& c : all.node_claims) {
    if (c.status().node_name() == kDemoEmpty) continue;
    if (c.metadata().name() == "default-p8vtn") {
      auto* conditions = c.mutable_status()->mutable_conditions();
      for (int i = conditions->size() - 1; i >= 0; --i) {
        if ((*conditions)[i].type() == "Drifted")
          conditions->DeleteSubrange(i, 1);
      }
      testing::SetCondition(
          conditions,
          {.type = "Drifted",
           .reason = "RequirementsDrifted",
           .since = absl::FromUnixSeconds(1740787200)});  // 2025-03-01
    }
    o.node_claims.push_back(std::move(c));
  }
  for (v1::Pod& p : all.pods) {
    if (p.spec().node_name() == kDemoEmpty) continue;
    const auto app = p.metadata().labels().find("app");
    if (spread && app != p.metadata().labels().end() && app->second == "web") {
      WithSpread(Spread(kZone, 1, kWeb))(p);
    }
    o.pods.push_back(std::move(p));
  }
  o.pdbs = std::move(all.pdbs);
  o.node_pools = std::move(all.node_pools);
  absl::StatusOr<snapshot::Snapshot> snap =
      snapshot::Snapshot::Build(std::move(o));
  REQUIRE(snap.ok());
  return *std::move(snap);
}

TEST_CASE(
    "topology: the demo cluster's drifted node, with and without zone "
    "spread",
    "[disruption][topology]") {
  absl::Time at;
  std::string err;
  REQUIRE(
      absl::ParseTime(absl::RFC3339_full, "2025-03-05T12:00:00Z", &at, &err));
  {
    // Its web and cache pods fit on the other nodes: the drift deletes it.
    const snapshot::Snapshot snap = DemoDrift(/*spread=*/false);
    PassInputs inputs;
    inputs.catalog = ObservedInstanceTypes(snap);
    absl::StatusOr<Plan> plan = Controller().Decide(snap, inputs, at);
    REQUIRE(plan.ok());
    CHECK(CommandSummary(*plan) ==
          std::vector<std::string>{absl::StrCat("Drift:", kDemoDrifted)});
    REQUIRE(plan->commands.size() == 1);
    CHECK(plan->commands[0].decision() == Decision::kDelete);
  }
  {
    // Zone c keeps one node, ip-10-0-3-120 (NotReady, tainted: a domain all
    // the same under nodeTaintsPolicy Ignore) and no web pod: a web pod
    // moved to zone a or b makes a skew of 2. The pass replaces
    // ip-10-0-3-67 with one NodeClaim that may launch only in us-west-2c.
    const snapshot::Snapshot snap = DemoDrift(/*spread=*/true);
    PassInputs inputs;
    inputs.catalog = ObservedInstanceTypes(snap);
    absl::StatusOr<Plan> plan = Controller().Decide(snap, inputs, at);
    REQUIRE(plan.ok());
    CHECK(CommandSummary(*plan) ==
          std::vector<std::string>{absl::StrCat("Drift:", kDemoDrifted)});
    REQUIRE(plan->commands.size() == 1);
    const Command& command = plan->commands[0];
    CHECK(command.decision() == Decision::kReplace);
    REQUIRE(command.replacements.size() == 1);
    const Replacement& r = command.replacements[0];
    CHECK(r.node_pool == "default");
    CHECK(r.instance_types == std::vector<std::string>{"m5.xlarge"});
    std::vector<std::string> zones;
    for (const v1::NodeSelectorRequirement& req :
         r.node_claim.spec().requirements()) {
      if (req.key() == kZone) {
        zones.push_back(absl::StrCat(req.operator_(), " ",
                                     absl::StrJoin(req.values(), ",")));
      }
    }
    CHECK(zones == std::vector<std::string>{"In us-west-2c"});
    const NodeVerdict* v = plan->VerdictOf(kDemoDrifted);
    REQUIRE(v != nullptr);
    CHECK(v->code == reasons::kCommanded);
    CHECK(v->method == Method::kDrift);
    CHECK(v->message == absl::StrCat("replace drifted node ", kDemoDrifted,
                                     " (RequirementsDrifted) with 1 new "
                                     "NodeClaim(s)"));
  }
}

// --- New NodeClaims: several, which NodePool, which zone, limits. ---------

// NodePool "default" (`pool`, with budget 100%) and node d, drifted (or
// not), in zone a, running `pods` ReplicaSet pods of app "r" of `cpu` each
// (r-0, r-1, ...), each edited by `edit`; d is the only node.
World DriftedWith(const controller_test::PoolOpts& pool, int pods,
                  const std::string& cpu, const PodEdit& edit,
                  bool drifted = true) {
  World w;
  w.Pool(pool).Budget("100%");
  w.Node(
      ZoneNode("d", kA, false),
      drifted ? ClaimOpts{.drifted_since = kT0 - absl::Hours(1)} : ClaimOpts{});
  for (int i = 0; i < pods; ++i) {
    w.Pod(Replica(absl::StrCat("r-", i), "r", "d", cpu), edit);
  }
  return w;
}

// Per replacement of `command`: its NodePool, instance types and cpu
// request, e.g. "default [m5.large] cpu 500m".
std::vector<std::string> ReplacementSummary(const Command& command) {
  std::vector<std::string> out;
  for (const Replacement& r : command.replacements) {
    const auto& requests = r.node_claim.spec().resources().requests();
    const auto cpu = requests.find("cpu");
    out.push_back(absl::StrCat(r.node_pool, " [",
                               absl::StrJoin(r.instance_types, ","), "] cpu ",
                               cpu == requests.end() ? "-" : cpu->second));
  }
  return out;
}

TEST_CASE(
    "topology: drift of a node whose pods need two new nodes launches two "
    "replacements",
    "[disruption][topology]") {
  // The NodePool now allows only m6g.medium (1 cpu), so d (an m5.large)
  // has drifted from its requirements, and its two 800m pods need one
  // m6g.medium each.
  const controller_test::PoolOpts pool{
      .requirements = {testing::MakeRequirement(
          "node.kubernetes.io/instance-type", "In", {"m6g.medium"})}};
  const auto with_medium = [](World& w) {
    w.Build();
    w.inputs.catalog["default"].push_back(
        testing::MakeInstanceType({.name = "m6g.medium",
                                   .cpu = "1",
                                   .memory = "4Gi",
                                   .on_demand_price = 0.0385}));
  };
  SECTION("drift launches both") {
    World w = DriftedWith(pool, 2, "800m", kNoEdit);
    with_medium(w);
    const Plan plan = w.Decide(DriftOnly());
    CHECK(CommandSummary(plan) == std::vector<std::string>{"Drift:d"});
    REQUIRE(plan.commands.size() == 1);
    CHECK(plan.commands[0].decision() == Decision::kReplace);
    CHECK(ReplacementSummary(plan.commands[0]) ==
          std::vector<std::string>{"default [m6g.medium] cpu 800m",
                                   "default [m6g.medium] cpu 800m"});
    CHECK(plan.commands[0].replacements[0].node_claim.metadata().name() !=
          plan.commands[0].replacements[1].node_claim.metadata().name());
    CHECK(Message(plan, "d") ==
          "replace drifted node d (RequirementsDrifted) with 2 new "
          "NodeClaim(s)");
  }
  SECTION("consolidation still replaces one node with one at most") {
    World w = DriftedWith(pool, 2, "800m", kNoEdit, /*drifted=*/false);
    with_medium(w);
    const SimulationResult sim = SimulateAway(w, {"d"});
    CHECK(sim.all_pods_scheduled);
    CHECK(sim.new_node_claims.size() == 2);
    const NodeVerdict v = SingleNodeVerdict(w, "d");
    CHECK(v.code == reasons::kMultipleReplacements);
    CHECK(v.message == "Can't remove without creating 2 candidates");
  }
}

TEST_CASE(
    "topology: a hostname anti-affinity group of three pods leaving one "
    "drifted node gets three NodeClaims",
    "[disruption][topology]") {
  // r-0, r-1 and r-2 keep apart by hostname (they were bound to d by
  // spec.nodeName, past kube-scheduler): one per new node.
  World w = DriftedWith({}, 3, "500m",
                        WithAntiAffinity(Term(kHost, Labels{{"app", "r"}})));
  const SimulationResult sim = SimulateAway(w, {"d"});
  CHECK(sim.all_pods_scheduled);
  CHECK(sim.new_node_claims.size() == 3);
  const Plan plan = w.Decide(DriftOnly());
  CHECK(CommandSummary(plan) == std::vector<std::string>{"Drift:d"});
  REQUIRE(plan.commands.size() == 1);
  CHECK(plan.commands[0].decision() == Decision::kReplace);
  CHECK(ReplacementSummary(plan.commands[0]) ==
        std::vector<std::string>{"default [m5.large] cpu 500m",
                                 "default [m5.large] cpu 500m",
                                 "default [m5.large] cpu 500m"});
  for (const Replacement& r : plan.commands[0].replacements) {
    CHECK(RequirementsOf(r) == AnyM5Large());
  }
  CHECK(Message(plan, "d") ==
        "replace drifted node d (NodePoolDrifted) with 3 new NodeClaim(s)");
  // Without the anti-affinity one m5.large holds all three.
  World together = DriftedWith({}, 3, "500m", kNoEdit);
  const Plan one = together.Decide(DriftOnly());
  REQUIRE(one.commands.size() == 1);
  CHECK(ReplacementSummary(one.commands[0]) ==
        std::vector<std::string>{"default [m5.large] cpu 1500m"});
}

// a1 (zone a, with a filler of `a1_fill` cpu) and b1 (zone b, full) run a
// web pod each; d (zone a, drifted) runs web-d. No node is in zone c, but
// m5.large is offered there: without d the zones hold 1, 1 and 0 web pods.
World ZoneWithoutNode(const std::string& a1_fill) {
  World w;
  w.Zones({kA, kB, kC});
  w.Pool().Budget("100%");
  w.Node(ZoneNode("a1", kA, true))
      .Pod(Replica("web-a", "web", "a1", "500m"), kZoneSpread)
      .Pod(Replica("fill-a", "fill", "a1", a1_fill))
      .Node(ZoneNode("b1", kB, true))
      .Pod(Replica("web-b", "web", "b1", "500m"), kZoneSpread)
      .Pod(Replica("fill-b", "fill", "b1", "1500m"))
      .Node(ZoneNode("d", kA, false),
            ClaimOpts{.drifted_since = kT0 - absl::Hours(1)})
      .Pod(Replica("web-d", "web", "d", "500m"), kZoneSpread);
  return w;
}

TEST_CASE(
    "topology: a zone-spread pod's new NodeClaim goes to the least "
    "populated zone, even one without a node",
    "[disruption][topology]") {
  // a1 and b1 are full: web-d's replacement may launch only in us-west-2c.
  World w = ZoneWithoutNode("1500m");
  const SimulationResult sim = SimulateAway(w, {"d"});
  CHECK(sim.all_pods_scheduled);
  REQUIRE(sim.new_node_claims.size() == 1);
  CHECK(RequirementsOf(sim.new_node_claims[0]) == M5LargeIn(kC));
  const Plan plan = w.Decide(DriftOnly());
  CHECK(CommandSummary(plan) == std::vector<std::string>{"Drift:d"});
  REQUIRE(plan.commands.size() == 1);
  REQUIRE(plan.commands[0].replacements.size() == 1);
  CHECK(RequirementsOf(plan.commands[0].replacements[0]) == M5LargeIn(kC));
}

TEST_CASE(
    "topology: an existing node is refused a zone-spread pod when a zone "
    "only the NodePool offers holds fewer",
    "[disruption][topology]") {
  // As above, but a1 has room for web-d. kube-scheduler, which knows zones
  // a and b only, would take it there (2 - 1 <= maxSkew). Karpenter's
  // simulation does not: ExistingNode.CanAdd narrows through the same
  // Topology as a new NodeClaim, whose domains include every zone the
  // NodePools offer (zone c, 0 web pods), so a1 makes a skew of 2 and
  // web-d gets a replacement in us-west-2c.
  World w = ZoneWithoutNode("500m");
  const SimulationResult sim = SimulateAway(w, {"d"});
  CHECK(sim.all_pods_scheduled);
  REQUIRE(sim.new_node_claims.size() == 1);
  CHECK(RequirementsOf(sim.new_node_claims[0]) == M5LargeIn(kC));
  const Plan plan = w.Decide(DriftOnly());
  CHECK(CommandSummary(plan) == std::vector<std::string>{"Drift:d"});
  REQUIRE(plan.commands.size() == 1);
  CHECK(plan.commands[0].decision() == Decision::kReplace);
}

TEST_CASE(
    "topology: the replacement comes from the heaviest NodePool that is "
    "Ready",
    "[disruption][topology]") {
  // d (NodePool default, weight 0) is drifted; NodePool preferred has
  // weight 10 and no node. Both offer m5.large.
  const auto world = [](bool preferred_ready) {
    World w = DriftedWith({}, 1, "500m", kNoEdit);
    w.Pool({.name = "preferred", .weight = 10});
    if (!preferred_ready) {
      w.EditPool([](v1::NodePool& p) {
        v1::Condition* c = p.mutable_status()->add_conditions();
        c->set_type("Ready");
        c->set_status("False");
      });
    }
    return w;
  };
  SECTION("weight 10 is preferred over weight 0") {
    World w = world(/*preferred_ready=*/true);
    const Plan plan = w.Decide(DriftOnly());
    CHECK(CommandSummary(plan) == std::vector<std::string>{"Drift:d"});
    REQUIRE(plan.commands.size() == 1);
    CHECK(ReplacementSummary(plan.commands[0]) ==
          std::vector<std::string>{"preferred [m5.large] cpu 500m"});
    CHECK(RequirementsOf(plan.commands[0].replacements[0]) ==
          std::vector<std::string>{
              "karpenter.sh/nodepool In preferred", "team In a",
              "node.kubernetes.io/instance-type In m5.large"});
  }
  SECTION("a NodePool that is not Ready is skipped") {
    World w = world(/*preferred_ready=*/false);
    const Plan plan = w.Decide(DriftOnly());
    CHECK(CommandSummary(plan) == std::vector<std::string>{"Drift:d"});
    REQUIRE(plan.commands.size() == 1);
    CHECK(ReplacementSummary(plan.commands[0]) ==
          std::vector<std::string>{"default [m5.large] cpu 500m"});
  }
}

TEST_CASE(
    "topology: a NodePool whose limits its nodes already use makes no "
    "replacement",
    "[disruption][topology]") {
  // NodePool default has spec.limits.cpu `limit`; n1 and n3 (2 cpu of
  // capacity each, full) use 4 of it; d, drifted, does not count (it is
  // the candidate). Its pod needs a new m5.large (2 cpu).
  const auto world = [](const std::string& limit) {
    World w;
    w.Pool({.limits = {{"cpu", limit}}}).Budget("100%");
    NodeOpts n1 = ZoneNode("n1", kA, true);
    NodeOpts n3 = ZoneNode("n3", kA, true);
    NodeOpts d = ZoneNode("d", kA, false);
    n1.cpu = n3.cpu = d.cpu = "2";
    w.Node(n1)
        .Pod(Replica("fill-1", "fill", "n1", "1800m"))
        .Node(d, ClaimOpts{.drifted_since = kT0 - absl::Hours(1)})
        .Pod(Replica("web-0", "web", "d", "500m"))
        .Node(n3)
        .Pod(Replica("fill-3", "fill", "n3", "1800m"));
    return w;
  };
  SECTION("limit 4: no room left, the drift is refused") {
    World w = world("4");
    const Plan plan = w.Decide(DriftOnly());
    CHECK(plan.commands.empty());
    CHECK(CodeOf(plan, "d") == reasons::kPodsDoNotFit);
    CHECK(Message(plan, "d") ==
          "pods cannot be rescheduled: default/web-0: fits no remaining node "
          "(0/2 nodes are available: 2 Insufficient cpu.) and all available "
          "instance types exceed the limits of NodePool default");
  }
  SECTION("limit 6: room for one m5.large") {
    World w = world("6");
    const Plan plan = w.Decide(DriftOnly());
    CHECK(CommandSummary(plan) == std::vector<std::string>{"Drift:d"});
    REQUIRE(plan.commands.size() == 1);
    CHECK(ReplacementSummary(plan.commands[0]) ==
          std::vector<std::string>{"default [m5.large] cpu 500m"});
  }
}

}  // namespace
}  // namespace karpenter::disruption
