// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Consolidation and drift passes (disruption::Controller over the real
// Scheduler) for pods with topology spread constraints and required pod
// anti-affinity: a move that would break a constraint is refused in the
// plugin's words, one that keeps it is allowed, and pods moved earlier in
// one simulation count for the pods moved after them.

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

// Without c1 zone c is c2 alone, with no web pod: web-c may go to c2 only
// (to a1 or b1 it makes a skew of 2). When c2 has no room, nothing keeps
// maxSkew 1.
constexpr char kSpreadRefused[] =
    "default/web-c: fits no remaining node (0/3 nodes are available: 1 "
    "Insufficient cpu, 2 node(s) didn't match pod topology spread "
    "constraints.) and a new NodeClaim for it would need narrowing for "
    "PodTopologySpread (topology spread constraints), which is not "
    "simulated";

TEST_CASE("topology: consolidation refuses a move that breaks zone spread",
          "[disruption][topology]") {
  World w = ZoneSpread(kZoneSpread, "1800m");
  CHECK(w.Decide().commands.empty());
  const NodeVerdict v = SingleNodeVerdict(w, "c1");
  CHECK(v.code == reasons::kPodsDoNotFit);
  CHECK_THAT(v.message, Catch::Contains(kSpreadRefused));
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
  SECTION("ScheduleAnyway does not hold it back") {
    World w = ZoneSpread(WithSpread(Spread(kZone, 1, kWeb, "ScheduleAnyway")),
                         "1800m");
    CHECK(CommandSummary(w.Decide()) ==
          std::vector<std::string>{"SingleNodeConsolidation:c1"});
  }
  SECTION("maxSkew 2 lets it go to zone a or b") {
    World w = ZoneSpread(WithSpread(Spread(kZone, 2, kWeb)), "1800m");
    CHECK(CommandSummary(w.Decide()) ==
          std::vector<std::string>{"SingleNodeConsolidation:c1"});
  }
}

TEST_CASE(
    "topology: drift of a node is refused when its pod would break "
    "zone spread, and taken when it keeps it",
    "[disruption][topology]") {
  {
    World w = ZoneSpread(kZoneSpread, "1800m", /*drifted=*/true);
    const Plan plan = w.Decide(DriftOnly());
    CHECK(plan.commands.empty());
    CHECK(CodeOf(plan, "c1") == reasons::kPodsDoNotFit);
    CHECK(plan.VerdictOf("c1")->method == Method::kDrift);
    CHECK_THAT(Message(plan, "c1"), Catch::Contains(kSpreadRefused));
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

constexpr char kApartRefused[] =
    "default/r-1: fits no remaining node (0/2 nodes are available: 1 "
    "Insufficient cpu, 1 node(s) didn't match pod anti-affinity rules.) and "
    "a new NodeClaim for it would need narrowing for InterPodAffinity (pod "
    "anti-affinity), which is not simulated";

TEST_CASE("topology: replicas with hostname anti-affinity never share a node",
          "[disruption][topology]") {
  SECTION("consolidation: the only room is next to the sibling") {
    World w = Replicas("1800m");
    CHECK(w.Decide().commands.empty());
    const NodeVerdict v = SingleNodeVerdict(w, "n2");
    CHECK(v.code == reasons::kPodsDoNotFit);
    CHECK_THAT(v.message, Catch::Contains(kApartRefused));
  }
  SECTION("consolidation: a free node takes the replica") {
    World w = Replicas("500m");
    const Plan plan = w.Decide();
    CHECK(CommandSummary(plan) ==
          std::vector<std::string>{"SingleNodeConsolidation:n2"});
  }
  SECTION("drift: the only room is next to the sibling") {
    World w = Replicas("1800m", /*drifted=*/true);
    const Plan plan = w.Decide(DriftOnly());
    CHECK(plan.commands.empty());
    CHECK(CodeOf(plan, "n2") == reasons::kPodsDoNotFit);
    CHECK_THAT(Message(plan, "n2"), Catch::Contains(kApartRefused));
  }
  SECTION("drift: a free node takes the replica") {
    World w = Replicas("500m", /*drifted=*/true);
    CHECK(CommandSummary(w.Decide(DriftOnly())) ==
          std::vector<std::string>{"Drift:n2"});
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
    "topology: a new node cannot escape an existing pod's zone "
    "anti-affinity",
    "[disruption][topology]") {
  // h keeps web pods out of its zone, us-west-2a, the only zone the
  // NodePool offers: a replacement would be in us-west-2a too, where
  // kube-scheduler would not place web-0. Narrowing the replacement away
  // from h's zone is not simulated: the drift is refused, not planned onto
  // a node web-0 cannot use.
  World w = Holder(Term(kZone, kWeb), "1800m", /*drifted=*/true);
  const Plan plan = w.Decide(DriftOnly());
  CHECK(plan.commands.empty());
  CHECK(CodeOf(plan, "n2") == reasons::kPodsDoNotFit);
  CHECK_THAT(
      Message(plan, "n2"),
      Catch::Contains(
          "default/web-0: fits no remaining node (0/2 nodes are available: 1 "
          "Insufficient cpu, 1 node(s) didn't satisfy existing pods "
          "anti-affinity rules.) and a new NodeClaim for it would need "
          "narrowing for InterPodAffinity (existing pods' anti-affinity on "
          "topology.kubernetes.io/zone), which is not simulated"));
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

// The real Scheduler over w's snapshot, simulating `nodes` going away.
SimulationResult SimulateAway(World& w, const std::vector<std::string>& nodes) {
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

TEST_CASE(
    "topology: in one multi-node simulation the pods moved first count "
    "for the ones after",
    "[disruption][topology]") {
  SECTION("zone spread: the second replica cannot follow the first") {
    // Alone, either replica may go to a1 (zone c keeps the other). Both:
    // zone c is gone, the first goes to a1 (b1 is full), and the second
    // would make zone a 2 against zone b's 0.
    World w = TwoMovers(WithSpread(Spread(kZone, 1, kWeb)), "1800m");
    w.Build();
    CHECK(SimulateAway(w, {"x"}).all_pods_scheduled);
    CHECK(SimulateAway(w, {"y"}).all_pods_scheduled);
    const SimulationResult both = SimulateAway(w, {"x", "y"});
    CHECK_FALSE(both.all_pods_scheduled);
    CHECK(both.unschedulable ==
          std::vector<std::string>{
              "default/web-y: fits no remaining node (0/2 nodes are "
              "available: 1 Insufficient cpu, 1 node(s) didn't match pod "
              "topology spread constraints.) and a new NodeClaim for it "
              "would need narrowing for PodTopologySpread (topology spread "
              "constraints), which is not simulated"});
    // Multi-node consolidation finds nothing; single-node takes x.
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
    w.Build();
    CHECK(SimulateAway(w, {"x"}).all_pods_scheduled);
    const SimulationResult both = SimulateAway(w, {"x", "y"});
    CHECK(both.unschedulable ==
          std::vector<std::string>{
              "default/web-y: fits no remaining node (0/2 nodes are "
              "available: 1 Insufficient cpu, 1 node(s) didn't match pod "
              "anti-affinity rules.) and a new NodeClaim for it would need "
              "narrowing for InterPodAffinity (pod anti-affinity), which is "
              "not simulated"});
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
    // moved to zone a or b makes a skew of 2. Karpenter would launch a
    // replacement in zone c; the SDK does not narrow NodeClaims to a
    // domain and refuses.
    const snapshot::Snapshot snap = DemoDrift(/*spread=*/true);
    PassInputs inputs;
    inputs.catalog = ObservedInstanceTypes(snap);
    absl::StatusOr<Plan> plan = Controller().Decide(snap, inputs, at);
    REQUIRE(plan.ok());
    CHECK(plan->commands.empty());
    const NodeVerdict* v = plan->VerdictOf(kDemoDrifted);
    REQUIRE(v != nullptr);
    CHECK(v->code == reasons::kPodsDoNotFit);
    CHECK(v->method == Method::kDrift);
    CHECK(v->message ==
          "pods cannot be rescheduled: default/web-6d4cf56db6-tq8mc: fits "
          "no remaining node (0/6 nodes are available: 1 node(s) were not "
          "ready, 5 node(s) didn't match pod topology spread constraints.) "
          "and a new NodeClaim for it would need narrowing for "
          "PodTopologySpread (topology spread constraints), which is not "
          "simulated");
  }
}

}  // namespace
}  // namespace karpenter::disruption
