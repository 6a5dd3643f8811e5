// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// ExplainNode, PlanToProto and ObservedInstanceTypes over the bundled demo
// cluster (examples/clusters/demo.yaml, described at its top).

#include "karpenter/disruption/explain.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/str_cat.h"
#include "karpenter/catalog.h"
#include "karpenter/disruption/plan_proto.h"
#include "karpenter/drain/classify.h"
#include "karpenter/snapshot/load.h"

namespace karpenter::disruption {
namespace {

constexpr char kBusy[] = "ip-10-0-1-23.us-west-2.compute.internal";
constexpr char kEmpty[] = "ip-10-0-1-89.us-west-2.compute.internal";
constexpr char kBatch[] = "ip-10-0-2-101.us-west-2.compute.internal";
constexpr char kNotReady[] = "ip-10-0-3-120.us-west-2.compute.internal";

absl::Time At(const std::string& rfc3339) {
  absl::Time t;
  std::string err;
  REQUIRE(absl::ParseTime(absl::RFC3339_full, rfc3339, &t, &err));
  return t;
}

snapshot::Snapshot Demo() {
  snapshot::ObjectSet set;
  REQUIRE(snapshot::LoadFile(
              absl::StrCat(KARPENTER_EXAMPLES_DIR, "/clusters/demo.yaml"), set)
              .ok());
  absl::StatusOr<snapshot::Snapshot> snap =
      snapshot::Snapshot::Build(std::move(set));
  REQUIRE(snap.ok());
  return *std::move(snap);
}

PassInputs Inputs(const snapshot::Snapshot& snap) {
  PassInputs inputs;
  inputs.catalog = ObservedInstanceTypes(snap);
  return inputs;
}

NodeExplanation Explain(const snapshot::Snapshot& snap, const char* node,
                        absl::Time at, ExplainOptions options = {}) {
  absl::StatusOr<NodeExplanation> e =
      ExplainNode(Controller(), snap, Inputs(snap), node, at, options);
  REQUIRE(e.ok());
  return *std::move(e);
}

TEST_CASE("explain: an empty node waits for consolidateAfter, then empties",
          "[disruption][explain]") {
  const snapshot::Snapshot snap = Demo();
  // consolidateAfter (1m) elapses at 07:46:19 on that day.
  const NodeExplanation e = Explain(snap, kEmpty, At("2025-03-04T07:46:00Z"));
  CHECK(e.verdict.code != std::string(reasons::kCommanded));
  CHECK(e.empty);
  CHECK(e.reschedulable_pods == 0);
  REQUIRE(e.consolidatable_at.has_value());
  CHECK(*e.consolidatable_at == At("2025-03-04T07:46:19Z"));
  REQUIRE(e.disrupted_at.has_value());
  CHECK(*e.disrupted_at == *e.consolidatable_at);
  CHECK(e.disrupted_by == Method::kEmptiness);
  CHECK(e.tried.size() == 2);

  // Past that instant the first pass acts.
  const NodeExplanation now = Explain(snap, kEmpty, At("2025-03-05T12:00:00Z"));
  CHECK(now.verdict.code == std::string(reasons::kCommanded));
  REQUIRE(now.command.has_value());
  CHECK(now.command->method == Method::kEmptiness);
  CHECK(now.disrupted_at == At("2025-03-05T12:00:00Z"));
}

TEST_CASE("explain: a PDB at zero blocks until the node expires",
          "[disruption][explain]") {
  const snapshot::Snapshot snap = Demo();
  const NodeExplanation e = Explain(snap, kBusy, At("2025-03-05T12:00:00Z"));
  CHECK(e.verdict.code == std::string(reasons::kPdbBlocked));
  REQUIRE(e.blocking_pdbs.size() == 1);
  const BlockingPdb& pdb = e.blocking_pdbs[0];
  CHECK(pdb.pdb == "payments/api");
  CHECK(pdb.disruptions_allowed == 0);
  CHECK(pdb.current_healthy == 2);
  CHECK(pdb.desired_healthy == 2);
  CHECK(pdb.expected_pods == 2);
  CHECK(pdb.pods == std::vector<std::string>{"payments/api-58b7c9f4d-gk2lx"});
  // Expiration is forceful: PDBs do not stop it from starting.
  REQUIRE(e.expires_at.has_value());
  CHECK(e.disrupted_at == e.expires_at);
  CHECK(e.disrupted_by == Method::kExpiration);
  // A horizon short of the expiry finds nothing.
  ExplainOptions shorter;
  shorter.horizon = absl::Hours(24);
  const NodeExplanation s =
      Explain(snap, kBusy, At("2025-03-05T12:00:00Z"), shorter);
  CHECK_FALSE(s.disrupted_at.has_value());
}

TEST_CASE("explain: budgets, their next change and do-not-disrupt pods",
          "[disruption][explain]") {
  const snapshot::Snapshot snap = Demo();
  const NodeExplanation e = Explain(snap, kBatch, At("2025-03-05T12:00:00Z"));
  CHECK(e.verdict.code == std::string(reasons::kPodDoNotDisrupt));
  REQUIRE(e.do_not_disrupt.size() == 1);
  CHECK(e.do_not_disrupt[0].pod == "analytics/nightly-report-28991520-x2k9d");
  CHECK(e.do_not_disrupt[0].annotation ==
        "karpenter.sh/do-not-disrupt: \"true\"");
  CHECK_FALSE(e.do_not_disrupt[0].until.has_value());
  REQUIRE(e.budgets.size() == 3);
  // Weekdays 09:00-17:00 the batch pool allows no Empty disruption.
  const ReasonBudgetExplanation& empty = e.budgets[1];
  CHECK(empty.reason == budget::DisruptionReason::kEmpty);
  CHECK(empty.allowed == 0);
  CHECK(empty.next_change == At("2025-03-05T17:00:00Z"));
  CHECK(empty.next_allowed == 1);
  // The NotReady node counts as disrupting, so 20% of 2 leaves none.
  const ReasonBudgetExplanation& drifted = e.budgets[2];
  CHECK(drifted.allowed == 1);
  CHECK(drifted.remaining == 0);

  // The empty NotReady node: even after 17:00 the budget's 1 is taken by
  // itself, so only expiry disrupts it.
  const NodeExplanation nr =
      Explain(snap, kNotReady, At("2025-03-05T12:00:00Z"));
  CHECK(nr.empty);
  CHECK(nr.verdict.code == std::string(reasons::kBudgetExhausted));
  CHECK(nr.disrupted_by == Method::kExpiration);
  CHECK(std::find(nr.tried.begin(), nr.tried.end(),
                  At("2025-03-05T17:00:00Z")) != nr.tried.end());
}

snapshot::Snapshot Load(const std::string& path) {
  snapshot::ObjectSet set;
  REQUIRE(snapshot::LoadFile(path, set).ok());
  absl::StatusOr<snapshot::Snapshot> snap =
      snapshot::Snapshot::Build(std::move(set));
  REQUIRE(snap.ok());
  return *std::move(snap);
}

TEST_CASE("explain: v1beta1 expireAfter and consolidateAfter are honoured",
          "[disruption][explain][output-fixes]") {
  // tests/testdata/v1beta1-cluster.yaml: NodeClaims without spec.expireAfter
  // under a v1beta1 NodePool with spec.disruption.expireAfter 720h,
  // WhenEmpty after 30m.
  const snapshot::Snapshot snap =
      Load(absl::StrCat(KARPENTER_TESTDATA_DIR, "/v1beta1-cluster.yaml"));
  const absl::Time at = At("2025-03-05T12:00:00Z");
  const NodeExplanation busy = Explain(snap, "ip-10-0-9-1", at);
  REQUIRE(busy.expires_at.has_value());
  CHECK(*busy.expires_at == At("2025-03-31T00:00:00Z"));
  CHECK(busy.disrupted_at == busy.expires_at);
  CHECK(busy.disrupted_by == Method::kExpiration);
  // Past the expiry the pass expires it.
  const NodeExplanation late =
      Explain(snap, "ip-10-0-9-1", At("2025-03-31T00:00:00Z"));
  CHECK(late.verdict.code == std::string(reasons::kCommanded));
  CHECK(late.verdict.method == Method::kExpiration);

  // consolidateAfter counts from the Empty condition (11:50), not from
  // initialisation four days earlier.
  const NodeExplanation empty = Explain(snap, "ip-10-0-9-2", at);
  CHECK(empty.consolidation_policy == "WhenEmpty");
  REQUIRE(empty.consolidatable_at.has_value());
  CHECK(*empty.consolidatable_at == At("2025-03-05T12:20:00Z"));
  CHECK(empty.verdict.code != std::string(reasons::kCommanded));
  CHECK(empty.disrupted_at == At("2025-03-05T12:20:00Z"));
  CHECK(empty.disrupted_by == Method::kEmptiness);
}

// The demo cluster with ip-10-0-3-67's NodeClaim Drifted:
// tests/testdata/demo-drifted.yaml plus the demo's empty node, its
// NodeClaim and pods.
snapshot::Snapshot DemoWithEmptyAndDrifted() {
  snapshot::ObjectSet drifted;
  REQUIRE(
      snapshot::LoadFile(
          absl::StrCat(KARPENTER_TESTDATA_DIR, "/demo-drifted.yaml"), drifted)
          .ok());
  snapshot::ObjectSet demo;
  REQUIRE(snapshot::LoadFile(
              absl::StrCat(KARPENTER_EXAMPLES_DIR, "/clusters/demo.yaml"), demo)
              .ok());
  for (const v1::Node& n : demo.nodes) {
    if (n.metadata().name() == kEmpty) drifted.nodes.push_back(n);
  }
  for (const v1::NodeClaim& c : demo.node_claims) {
    if (c.status().node_name() == kEmpty) drifted.node_claims.push_back(c);
  }
  for (const v1::Pod& p : demo.pods) {
    if (p.spec().node_name() == kEmpty) drifted.pods.push_back(p);
  }
  absl::StatusOr<snapshot::Snapshot> snap =
      snapshot::Snapshot::Build(std::move(drifted));
  REQUIRE(snap.ok());
  return *std::move(snap);
}

TEST_CASE("explain: the projection removes what earlier passes commanded",
          "[disruption][explain][output-fixes]") {
  constexpr char kDrifted[] = "ip-10-0-3-67.us-west-2.compute.internal";
  const snapshot::Snapshot snap = DemoWithEmptyAndDrifted();
  const absl::Time at = At("2025-03-05T12:00:00Z");
  // The first pass deletes the empty node; emptiness ends the pass before
  // drift runs.
  const NodeExplanation empty = Explain(snap, kEmpty, at);
  CHECK(empty.verdict.code == std::string(reasons::kCommanded));
  const NodeExplanation e = Explain(snap, kDrifted, at);
  CHECK(e.verdict.code != std::string(reasons::kCommanded));
  REQUIRE(e.drifted_since.has_value());
  // Once the empty node is gone (its command validated 15 s later), the next
  // pass drifts the node, instead of the emptiness command repeating until
  // the node expires weeks later.
  REQUIRE(e.disrupted_at.has_value());
  CHECK(*e.disrupted_at == at + absl::Seconds(15));
  CHECK(e.disrupted_by == Method::kDrift);
  CHECK(e.tried == std::vector<absl::Time>{at, at + absl::Seconds(15)});
}

TEST_CASE("explain: ApplyCommands launches replacements and moves pods",
          "[disruption][explain][output-fixes]") {
  // demo-web-spread.yaml: the drifted ip-10-0-3-67's web pod may stay only in
  // us-west-2c, so the pass replaces the node with one launched there.
  constexpr char kDrifted[] = "ip-10-0-3-67.us-west-2.compute.internal";
  const snapshot::Snapshot snap =
      Load(absl::StrCat(KARPENTER_TESTDATA_DIR, "/demo-web-spread.yaml"));
  absl::StatusOr<std::vector<InstanceType>> types = LoadInstanceTypeCatalog(
      absl::StrCat(KARPENTER_EXAMPLES_DIR, "/catalogs/aws-us-west-2.yaml"));
  REQUIRE(types.ok());
  PassInputs inputs;
  inputs.catalog = CatalogForEveryNodePool(snap, *types);
  const absl::Time at = At("2025-03-05T12:00:00Z");
  absl::StatusOr<Plan> plan = Controller().Decide(snap, inputs, at);
  REQUIRE(plan.ok());
  REQUIRE(plan->commands.size() == 1);
  REQUIRE(plan->commands[0].decision() == Decision::kReplace);
  const std::string replacement =
      plan->commands[0].replacements[0].node_claim.metadata().name();
  size_t leaving = 0;  // DaemonSet pods of the drifted node.
  const std::optional<snapshot::NodeIndex> old_node = snap.FindNode(kDrifted);
  REQUIRE(old_node.has_value());
  for (snapshot::PodIndex p : snap.PodsOnNode(*old_node)) {
    if (drain::IsOwnedByDaemonSet(snap.DecodePod(p))) ++leaving;
  }
  REQUIRE(leaving > 0);

  absl::StatusOr<snapshot::Snapshot> after =
      ApplyCommands(snap, *plan, inputs, at);
  REQUIRE(after.ok());
  CHECK_FALSE(after->FindNode(kDrifted).has_value());
  CHECK_FALSE(after->FindNodeClaim("default-p8vtn").has_value());
  CHECK(after->nodes().size() == snap.nodes().size());
  CHECK(after->pod_count() == snap.pod_count() - leaving);
  const std::optional<snapshot::NodeIndex> n = after->FindNode(replacement);
  REQUIRE(n.has_value());
  const v1::Node& node = after->nodes()[*n];
  const auto& labels = node.metadata().labels();
  // The cheapest type the command lists, with the catalogue's capacity, in
  // the only zone the web pod may use.
  const Replacement& r = plan->commands[0].replacements[0];
  CHECK(labels.at("node.kubernetes.io/instance-type") == r.instance_types[0]);
  CHECK(labels.at("topology.kubernetes.io/zone") == "us-west-2c");
  CHECK(labels.at("karpenter.sh/nodepool") == r.node_pool);
  CHECK(labels.at("karpenter.sh/initialized") == "true");
  const std::vector<InstanceType>& offered = inputs.catalog.at(r.node_pool);
  const auto type = std::find_if(
      offered.begin(), offered.end(),
      [&](const InstanceType& t) { return t.name == r.instance_types[0]; });
  REQUIRE(type != offered.end());
  CHECK(node.status().allocatable().at("cpu") == type->capacity.at("cpu"));
  CHECK(node.spec().provider_id() ==
        after->node_claims()[*after->FindNodeClaim(replacement)]
            .status()
            .provider_id());
  const std::optional<snapshot::NodeClaimIndex> c =
      after->FindNodeClaim(replacement);
  REQUIRE(c.has_value());
  CHECK(after->node_claims()[*c].status().node_name() == replacement);
  // The web pod moved to the replacement; the DaemonSet pods went.
  const std::optional<snapshot::PodIndex> web =
      after->FindPod("default", "web-6d4cf56db6-tq8mc");
  REQUIRE(web.has_value());
  CHECK(after->NodeOfPod(*web) == n);
  CHECK(after->PodsOnUnknownNodes().empty());
  // The next pass sees the replacement as an initialised, managed node.
  absl::StatusOr<Plan> next =
      Controller().Decide(*after, inputs, at + absl::Seconds(10));
  REQUIRE(next.ok());
  const NodeVerdict* v = next->VerdictOf(replacement);
  REQUIRE(v != nullptr);
  CHECK(v->node_claim == replacement);
  CHECK(v->code != std::string(reasons::kNotInitialized));
  CHECK(v->code != std::string(reasons::kNotManaged));
}

TEST_CASE("explain: unknown nodes and bad options are errors",
          "[disruption][explain]") {
  const snapshot::Snapshot snap = Demo();
  absl::StatusOr<NodeExplanation> e = ExplainNode(
      Controller(), snap, Inputs(snap), "nope", At("2025-03-05T12:00:00Z"));
  CHECK(e.status().code() == absl::StatusCode::kNotFound);
  CHECK(e.status().message() == "node \"nope\" not found");
  ExplainOptions bad;
  bad.max_passes = 0;
  e = ExplainNode(Controller(), snap, Inputs(snap), kBusy,
                  At("2025-03-05T12:00:00Z"), bad);
  CHECK(e.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(e.status().message() == "ExplainOptions.max_passes: 0 must be >= 1");
  bad = ExplainOptions();
  bad.horizon = -absl::Seconds(1);
  e = ExplainNode(Controller(), snap, Inputs(snap), kBusy,
                  At("2025-03-05T12:00:00Z"), bad);
  CHECK(e.status().message() ==
        "ExplainOptions.horizon: \"-1s\" must be finite and >= 0");
}

TEST_CASE("plan proto: every field of a pass is carried",
          "[disruption][plan]") {
  const snapshot::Snapshot snap = Demo();
  absl::StatusOr<Plan> plan =
      Controller().Decide(snap, Inputs(snap), At("2025-03-05T12:00:00Z"));
  REQUIRE(plan.ok());
  const v1::Plan p = PlanToProto(*plan);
  CHECK(p.now() == "2025-03-05T12:00:00Z");
  CHECK(p.acted() == "Emptiness");
  REQUIRE(p.commands_size() == 1);
  const v1::PlanCommand& c = p.commands(0);
  CHECK(c.method() == "Emptiness");
  CHECK(c.decision() == "Delete");
  CHECK(c.validate_at() == "2025-03-05T12:00:15Z");
  REQUIRE(c.candidates_size() == 1);
  CHECK(c.candidates(0).node() == kEmpty);
  CHECK(c.candidates(0).node_claim() == "default-c2rwh");
  CHECK(c.candidates(0).instance_type() == "c5.xlarge");
  CHECK(c.candidates(0).pods() == 2);
  CHECK(c.candidates(0).reschedulable_pods() == 0);
  CHECK(c.candidates(0).drifted_since().empty());
  CHECK(p.verdicts_size() == 8);
  CHECK(p.verdicts_size() == static_cast<int>(plan->verdicts.size()));
  for (int i = 0; i < p.verdicts_size(); ++i) {
    CHECK(p.verdicts(i).node() == plan->verdicts[i].node);
    CHECK(p.verdicts(i).code() == plan->verdicts[i].code);
  }
  // Three NodePools, three reasons each, in snapshot order.
  REQUIRE(p.budgets_size() == 9);
  CHECK(p.budgets(0).reason() == "Underutilized");
  CHECK(p.budgets(2).reason() == "Drifted");
  // The pass acted, so Karpenter would requeue at once.
  CHECK(p.next_pass() == "2025-03-05T12:00:00Z");
}

TEST_CASE("plan proto: infinite instants are empty strings",
          "[disruption][plan]") {
  Plan plan;
  plan.now = At("2025-03-05T12:00:00Z");
  plan.next_pass = absl::InfiniteFuture();
  CHECK(PlanToProto(plan).next_pass().empty());
  CHECK(PlanToProto(plan).acted().empty());
  CHECK(FormatPlanTime(absl::InfinitePast()).empty());
  CHECK(FormatPlanTime(At("2025-03-05T12:00:15Z")) == "2025-03-05T12:00:15Z");
  CHECK(FormatPlanTime(At("2025-03-05T12:00:15Z") + absl::Milliseconds(500)) ==
        "2025-03-05T12:00:15.5Z");
}

TEST_CASE("observed instance types: per NodePool, from the nodes",
          "[disruption][plan]") {
  const snapshot::Snapshot snap = Demo();
  const InstanceTypeCatalog catalog = ObservedInstanceTypes(snap);
  REQUIRE(catalog.size() == 3);
  for (const auto& [pool, types] : catalog) {
    CAPTURE(pool);
    REQUIRE_FALSE(types.empty());
    for (const InstanceType& t : types) {
      CHECK(t.capacity.count("cpu") == 1);
      REQUIRE_FALSE(t.offerings.empty());
      for (const Offering& o : t.offerings) {
        CHECK(o.price == 0);
        CHECK_FALSE(o.zone.empty());
      }
    }
    for (size_t i = 1; i < types.size(); ++i) {
      CHECK(types[i - 1].name < types[i].name);
    }
  }
  // The batch pool is spot only.
  for (const InstanceType& t : catalog.at("batch")) {
    for (const Offering& o : t.offerings) CHECK(o.capacity_type == "spot");
  }
  CHECK(ObservedInstanceTypes(snapshot::Snapshot()).empty());
}

}  // namespace
}  // namespace karpenter::disruption
