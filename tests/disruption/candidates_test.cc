// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#include "karpenter/disruption/candidates.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "candidates_test_util.h"

namespace karpenter::disruption {
namespace {

using test::ClaimOpts;
using test::kT0;
using NodeOpts = testing::NodeOptions;
using PodOpts = testing::PodOptions;

// code and message of each exclusion, by node.
std::map<std::string, std::pair<std::string, std::string>> ByNode(
    absl::Span<const NodeVerdict> verdicts) {
  std::map<std::string, std::pair<std::string, std::string>> out;
  for (const NodeVerdict& v : verdicts) {
    CHECK(out.count(v.node) == 0);
    out[v.node] = {v.code, v.message};
  }
  return out;
}

TEST_CASE("candidates: every node-level exclusion has its code and message",
          "[disruption]") {
  test::Cluster cl;
  cl.Pool({.name = "default"}).Pool({.name = "no-types"});
  cl.Node({.name = "ok"});
  cl.Node({.name = "queued"});
  cl.Node({.name = "marked", .taints = {testing::DisruptedTaint()}},
          {.disruption_reason = true});
  cl.Node({.name = "taint-only", .taints = {testing::DisruptedTaint()}});
  cl.BareNode({.name = "unmanaged"});
  cl.Claim("launching", "default");
  cl.Node({.name = "uninit", .initialized = false});
  cl.Node({.name = "claim-deleting"}, {.deleted = kT0});
  cl.Node({.name = "terminating"}, {.instance_terminating = true});
  cl.Node({.name = "node-deleting", .deleted = kT0});
  cl.Node({.name = "nominated"});
  cl.Node({.name = "dnd",
           .annotations = {{"karpenter.sh/do-not-disrupt", "true"}}});
  cl.Node({.name = "dnd-false",
           .annotations = {{"karpenter.sh/do-not-disrupt", "false"}}});
  cl.Node({.name = "dnd-duration",
           .annotations = {{"karpenter.sh/do-not-disrupt", "1h"}}});
  cl.Node({.name = "no-label", .nodepool = ""}, {.pool = "default"});
  cl.Node({.name = "gone-pool", .nodepool = "gone"});
  cl.Node({.name = "typeless", .nodepool = "no-types"});
  const snapshot::Snapshot s = cl.Build();
  const InstanceTypeCatalog catalog =
      test::Catalog("default", {{"m5.large", 0.1}});
  CandidateContext ctx = test::Ctx(s);
  ctx.catalog = &catalog;
  ctx.in_flight = {"aws:///queued"};
  ctx.nominated = {"nominated"};
  const CandidatePool pool = test::MustBuild(ctx);

  const auto got = ByNode(pool.exclusions());
  const std::map<std::string, std::pair<std::string, std::string>> want = {
      {"queued", {"InFlight", "candidate is already being disrupted"}},
      {"marked",
       {"InFlight",
        "candidate is already being disrupted (node has the "
        "karpenter.sh/disrupted:NoSchedule taint and its NodeClaim has "
        "condition DisruptionReason=True)"}},
      {"unmanaged", {"NotManaged", "node isn't managed by karpenter"}},
      {"launching", {"NoNode", "nodeclaim does not have an associated node"}},
      {"uninit", {"NotInitialized", "node isn't initialized"}},
      {"claim-deleting",
       {"Deleting", "node is deleting or marked for deletion"}},
      {"terminating", {"Deleting", "node is deleting or marked for deletion"}},
      {"node-deleting",
       {"Deleting", "node is deleting or marked for deletion"}},
      {"nominated", {"Nominated", "node is nominated for a pending pod"}},
      {"dnd",
       {"NodeDoNotDisrupt",
        "disruption is blocked through the \"karpenter.sh/do-not-disrupt\" "
        "annotation"}},
      {"no-label",
       {"NoNodePoolLabel",
        "node doesn't have required label (label=karpenter.sh/nodepool)"}},
      {"gone-pool", {"NodePoolNotFound", "NodePool not found (NodePool=gone)"}},
      {"typeless",
       {"InstanceTypeUnknown",
        "instance type \"m5.large\" (label node.kubernetes.io/instance-type) "
        "is not in the catalogue: the catalogue has no instance types for "
        "NodePool \"no-types\""}},
  };
  CHECK(got == want);
  // Sorted by name, with the NodeClaim named where there is one.
  std::vector<std::string> order;
  for (const NodeVerdict& v : pool.exclusions()) {
    order.push_back(v.node);
    CHECK(!v.method.has_value());
    if (v.node != "unmanaged") CHECK(!v.node_claim.empty());
  }
  CHECK(std::is_sorted(order.begin(), order.end()));
  // Node annotations other than exactly "true" do not block; a taint
  // without DisruptionReason is not in flight.
  CHECK(test::Names(pool.For(Method::kEmptiness).candidates) ==
        std::vector<std::string>{"dnd-duration", "dnd-false", "ok",
                                 "taint-only"});
}

TEST_CASE("candidates: a NodePool without instance types names what is missing",
          "[disruption][output-fixes]") {
  test::Cluster cl;
  cl.Pool({.name = "typed"}).Pool({.name = "untyped"});
  cl.Node({.name = "labelled", .nodepool = "untyped"});
  cl.Node({.name = "unlabelled", .nodepool = "untyped"});
  cl.Node({.name = "fine", .nodepool = "typed"});
  cl.objects.nodes[1].mutable_metadata()->mutable_labels()->erase(
      "node.kubernetes.io/instance-type");
  const snapshot::Snapshot s = cl.Build();
  const InstanceTypeCatalog catalog =
      test::Catalog("typed", {{"m5.large", 0.1}});
  CandidateContext ctx = test::Ctx(s);
  ctx.catalog = &catalog;
  const CandidatePool pool = test::MustBuild(ctx);
  const auto got = ByNode(pool.exclusions());
  const std::map<std::string, std::pair<std::string, std::string>> want = {
      {"labelled",
       {"InstanceTypeUnknown",
        "instance type \"m5.large\" (label node.kubernetes.io/instance-type) "
        "is not in the catalogue: the catalogue has no instance types for "
        "NodePool \"untyped\""}},
      {"unlabelled",
       {"MissingLabel",
        "node has no node.kubernetes.io/instance-type label and the catalogue "
        "has no instance types for NodePool \"untyped\""}},
  };
  CHECK(got == want);
  // Still excluded from every method, as Karpenter's "NodePool not found".
  CHECK(test::Names(pool.For(Method::kDrift).candidates) ==
        std::vector<std::string>{"fine"});
  CHECK(test::Names(pool.For(Method::kExpiration).candidates) ==
        std::vector<std::string>{"fine"});
}

TEST_CASE("candidates: a null catalogue skips the instance-type rule",
          "[disruption]") {
  test::Cluster cl;
  cl.Pool({.name = "no-types"}).Node({.name = "a", .nodepool = "no-types"});
  const snapshot::Snapshot s = cl.Build();
  const CandidatePool pool = test::MustBuild(test::Ctx(s));
  CHECK(pool.exclusions().empty());
  const auto sel = pool.For(Method::kDrift);
  REQUIRE(sel.candidates.size() == 1);
  CHECK(sel.candidates[0].price == 0);
}

TEST_CASE("candidates: the first failing rule decides", "[disruption]") {
  struct Row {
    NodeOpts node;
    ClaimOpts claim;
    bool queued;
    bool nominated;
    std::string want;
  };
  const std::map<std::string, std::string> dnd = {
      {"karpenter.sh/do-not-disrupt", "true"}};
  const Row rows[] = {
      {{.initialized = false, .deleted = kT0}, {}, true, true, "InFlight"},
      {{.initialized = false, .deleted = kT0},
       {},
       false,
       true,
       "NotInitialized"},
      {{.annotations = dnd}, {.deleted = kT0}, false, true, "Deleting"},
      {{.nodepool = "", .annotations = dnd}, {}, false, true, "Nominated"},
      {{.nodepool = "", .annotations = dnd},
       {},
       false,
       false,
       "NodeDoNotDisrupt"},
      {{.nodepool = ""}, {.pool = "gone"}, false, false, "NoNodePoolLabel"},
  };
  for (const Row& row : rows) {
    CAPTURE(row.want);
    test::Cluster cl;
    cl.Pool().Node(row.node, row.claim);
    const snapshot::Snapshot s = cl.Build();
    CandidateContext ctx = test::Ctx(s);
    if (row.queued) ctx.in_flight = {"aws:///node-a"};
    if (row.nominated) ctx.nominated = {"node-a"};
    const CandidatePool pool = test::MustBuild(ctx);
    REQUIRE(pool.exclusions().size() == 1);
    CHECK(pool.exclusions()[0].code == row.want);
  }
}

TEST_CASE("candidates: in-flight NodeClaim without a Node", "[disruption]") {
  test::Cluster cl;
  cl.Pool().Claim("launching", "default");
  const snapshot::Snapshot s = cl.Build();
  CandidateContext ctx = test::Ctx(s);
  ctx.in_flight = {"aws:///launching"};
  const CandidatePool pool = test::MustBuild(ctx);
  REQUIRE(pool.exclusions().size() == 1);
  CHECK(pool.exclusions()[0].code == "InFlight");
  CHECK(pool.exclusions()[0].node == "launching");
  CHECK(pool.exclusions()[0].node_claim == "launching");
}

TEST_CASE("candidates: Build rejects a bad context", "[disruption]") {
  CandidateContext ctx;
  CHECK(CandidatePool::Build(ctx).status().code() ==
        absl::StatusCode::kInvalidArgument);
  test::Cluster cl;
  cl.Pool().Node();
  const snapshot::Snapshot s = cl.Build();
  ctx = test::Ctx(s);
  ctx.drift_marks.resize(3);
  absl::StatusOr<CandidatePool> pool = CandidatePool::Build(ctx);
  REQUIRE_FALSE(pool.ok());
  CHECK_THAT(std::string(pool.status().message()),
             Catch::Contains("3 entries") && Catch::Contains("1 NodeClaims"));
}

// Which class of method a pod-blocked node is usable for.
struct Usable {
  bool graceful;
  bool eventual;
  bool forceful;
};

Usable UsableFor(const CandidatePool& pool, std::string* code = nullptr,
                 std::string* message = nullptr) {
  Usable u;
  const auto graceful = pool.For(Method::kEmptiness);
  u.graceful = graceful.candidates.size() == 1;
  if (!graceful.excluded.empty()) {
    CHECK(graceful.excluded[0].method == Method::kEmptiness);
    if (code != nullptr) *code = graceful.excluded[0].code;
    if (message != nullptr) *message = graceful.excluded[0].message;
  }
  u.eventual = pool.For(Method::kDrift).candidates.size() == 1;
  u.forceful = pool.For(Method::kExpiration).candidates.size() == 1;
  return u;
}

TEST_CASE(
    "candidates: pod blocks stop graceful methods, eventual with TGP "
    "and forceful ignore them",
    "[disruption]") {
  for (const bool tgp : {false, true}) {
    CAPTURE(tgp);
    test::Cluster cl;
    ClaimOpts claim;
    if (tgp) claim.tgp = "1h";
    cl.Pool().Node({}, claim);
    cl.Pod({.name = "pinned",
            .annotations = {{"karpenter.sh/do-not-disrupt", "true"}}});
    const snapshot::Snapshot s = cl.Build();
    const CandidatePool pool = test::MustBuild(test::Ctx(s));
    CHECK(pool.exclusions().empty());
    std::string code, message;
    const Usable u = UsableFor(pool, &code, &message);
    CHECK_FALSE(u.graceful);
    CHECK(u.eventual == tgp);
    CHECK(u.forceful);
    CHECK(code == "PodDoNotDisrupt");
    CHECK(message ==
          "pod \"default/pinned\" has \"karpenter.sh/do-not-disrupt\" "
          "annotation");
    const auto drift = pool.For(Method::kDrift);
    CHECK(drift.excluded.size() == (tgp ? 0u : 1u));
    if (!tgp) CHECK(drift.excluded[0].method == Method::kDrift);
  }
}

TEST_CASE("candidates: do-not-disrupt values on pods", "[disruption]") {
  struct Row {
    std::string value;
    std::optional<absl::Duration> started_ago;
    std::string phase;
    std::string owner;
    bool blocks;
  };
  const Row rows[] = {
      {"true", absl::Hours(5), "Running", "", true},
      {"5m", absl::Minutes(1), "Running", "", true},
      {"5m", absl::Minutes(5), "Running", "", false},  // Lapsed at exactly D.
      {"5m", absl::Minutes(10), "Running", "", false},
      {"5m", std::nullopt, "Running", "", true},  // No startTime: fail safe.
      {"1h30m", absl::Hours(1), "Running", "", true},
      {"false", absl::Hours(1), "Running", "", false},
      {"0s", absl::Hours(1), "Running", "", false},
      {"-5m", absl::Hours(1), "Running", "", false},
      {"invalid-format", absl::Hours(1), "Running", "", false},
      {"true", absl::Hours(1), "Succeeded", "", false},  // Terminal.
      {"true", absl::Hours(1), "Running", "apps/v1/DaemonSet", true},
      {"true", absl::Hours(1), "Running", "v1/Node", true},  // Mirror.
  };
  for (const Row& row : rows) {
    CAPTURE(row.value, row.phase, row.owner);
    test::Cluster cl;
    cl.Pool().Node();
    PodOpts p{.name = "p", .phase = row.phase, .owner = row.owner};
    p.annotations = {{"karpenter.sh/do-not-disrupt", row.value}};
    if (row.started_ago.has_value()) p.started = kT0 - *row.started_ago;
    cl.Pod(p);
    const snapshot::Snapshot s = cl.Build();
    const CandidatePool pool = test::MustBuild(test::Ctx(s));
    std::string code, message;
    CHECK(UsableFor(pool, &code, &message).graceful == !row.blocks);
    if (row.blocks) CHECK(code == "PodDoNotDisrupt");
    if (row.blocks && row.value == "5m" && row.started_ago.has_value()) {
      CHECK_THAT(message, Catch::Contains("active until 2024-01-01T00:04:00Z"));
    }
  }
}

TEST_CASE("candidates: terminating pods with do-not-disrupt do not block",
          "[disruption]") {
  test::Cluster cl;
  cl.Pool().Node();
  cl.Pod({.name = "going",
          .annotations = {{"karpenter.sh/do-not-disrupt", "true"}},
          .deleted = kT0 - absl::Seconds(5)});
  const snapshot::Snapshot s = cl.Build();
  CHECK(UsableFor(test::MustBuild(test::Ctx(s))).graceful);
}

TEST_CASE("candidates: PDB checks per pod", "[disruption]") {
  struct Row {
    std::string name;
    std::vector<v1::PodDisruptionBudget> pdbs;
    std::vector<PodOpts> pods;
    std::string want_code;  // "" = not blocked.
    std::string want_message;
  };
  const std::vector<Row> rows = {
      {"zero allowed blocks",
       {test::MakePdb("web", "web", 0)},
       {{.name = "a"}},
       "PdbBlocked",
       "pdb \"default/web\" prevents pod evictions (Pod=default/a)"},
      {"one allowed covering two pods does not block",
       {test::MakePdb("web", "web", 1)},
       {{.name = "a"}, {.name = "b"}},
       "",
       ""},
      {"two PDBs block even when both allow",
       {test::MakePdb("web", "web", 5), test::MakePdb("web2", "web", 5)},
       {{.name = "a"}},
       "MultiplePdbs",
       "eviction does not support multiple PDBs "
       "(PodDisruptionBudget(s)=[default/web default/web2], Pod=default/a)"},
      {"AlwaysAllow lets an unready pod go",
       {test::MakePdb("web", "web", 0, true)},
       {{.name = "a", .ready = "False"}},
       "",
       ""},
      {"AlwaysAllow does not help a ready pod",
       {test::MakePdb("web", "web", 0, true)},
       {{.name = "a"}},
       "PdbBlocked",
       "pdb \"default/web\" prevents pod evictions (Pod=default/a)"},
      {"IfHealthyBudget blocks an unready pod",
       {test::MakePdb("web", "web", 0)},
       {{.name = "a", .ready = "False"}},
       "PdbBlocked",
       "pdb \"default/web\" prevents pod evictions (Pod=default/a)"},
      {"terminal pods are not subject to PDBs",
       {test::MakePdb("web", "web", 0)},
       {{.name = "a", .phase = "Succeeded"}},
       "",
       ""},
      {"mirror pods are not subject to PDBs",
       {test::MakePdb("web", "web", 0)},
       {{.name = "a", .owner = "v1/Node"}},
       "",
       ""},
      {"DaemonSet pods are subject to PDBs",
       {test::MakePdb("web", "web", 0)},
       {{.name = "a", .owner = "apps/v1/DaemonSet"}},
       "PdbBlocked",
       "pdb \"default/web\" prevents pod evictions (Pod=default/a)"},
      {"another namespace's PDB does not apply",
       {test::MakePdb("web", "web", 0, false, "other")},
       {{.name = "a"}},
       "",
       ""},
      {"do-not-disrupt is reported before a PDB on an earlier pod",
       {test::MakePdb("web", "web", 0)},
       {{.name = "a"},
        {.name = "b",
         .app = "",
         .annotations = {{"karpenter.sh/do-not-disrupt", "true"}}}},
       "PodDoNotDisrupt",
       "pod \"default/b\" has \"karpenter.sh/do-not-disrupt\" annotation"},
  };
  for (const Row& row : rows) {
    CAPTURE(row.name);
    test::Cluster cl;
    cl.Pool().Node();
    for (const PodOpts& p : row.pods) cl.Pod(p);
    for (const auto& pdb : row.pdbs) cl.Pdb(pdb);
    const snapshot::Snapshot s = cl.Build();
    const CandidatePool pool = test::MustBuild(test::Ctx(s));
    const auto sel = pool.For(Method::kEmptiness);
    if (row.want_code.empty()) {
      CHECK(sel.candidates.size() == 1);
      CHECK(sel.excluded.empty());
    } else {
      REQUIRE(sel.excluded.size() == 1);
      CHECK(sel.excluded[0].code == row.want_code);
      CHECK(sel.excluded[0].message == row.want_message);
      CHECK(sel.excluded[0].node == "node-a");
      CHECK(sel.excluded[0].node_claim == "node-a-claim");
      CHECK(sel.excluded[0].node_pool == "default");
    }
  }
}

TEST_CASE("candidates: facts of a candidate", "[disruption]") {
  test::Cluster cl;
  cl.Pool({.name = "default", .consolidation_policy = "WhenEmpty"});
  cl.Pool({.name = "fixed", .replicas = 3});
  cl.Node({.name = "a"}, {.created = kT0 - absl::Hours(10),
                          .expire_after = "40h",
                          .tgp = "2h",
                          .drifted_since = kT0 - absl::Minutes(3),
                          .drift_reason = "RequirementsDrifted"});
  cl.Node({.name = "s", .nodepool = "fixed", .capacity_type = "spot"});
  cl.Pod({.name = "web", .node = "a", .priority = 33554432});
  cl.Pod({.name = "ds", .node = "a", .owner = "apps/v1/DaemonSet"});
  cl.Pod({.name = "mirror", .node = "a", .owner = "v1/Node"});
  cl.Pod({.name = "done", .node = "a", .phase = "Succeeded"});
  cl.Pod({.name = "going", .node = "a", .deleted = kT0});
  cl.Pod({.name = "sts",
          .node = "a",
          .owner = "apps/v1/StatefulSet",
          .deleted = kT0});
  cl.Pod({.name = "cheap",
          .node = "a",
          .annotations = {
              {"controller.kubernetes.io/pod-deletion-cost", "-1342177280"}}});
  const snapshot::Snapshot s = cl.Build();
  InstanceTypeCatalog catalog = test::Catalog("default", {{"m5.large", 0.096}});
  catalog["fixed"] = catalog["default"];
  CandidateContext ctx = test::Ctx(s);
  ctx.catalog = &catalog;
  const CandidatePool pool = test::MustBuild(ctx);
  const auto sel = pool.For(Method::kDrift);
  REQUIRE(sel.candidates.size() == 2);
  const Candidate& a = sel.candidates[0];
  CHECK(a.node_name == "a");
  CHECK(a.node_claim_name == "a-claim");
  CHECK(a.node_pool_name == "default");
  CHECK(s.node_pools()[a.node_pool].metadata().name() == "default");
  CHECK(s.nodes()[a.node].metadata().name() == "a");
  CHECK(s.node_claims()[a.node_claim].metadata().name() == "a-claim");
  CHECK(a.has_node);
  CHECK(a.provider_id == "aws:///a");
  CHECK(a.instance_type == "m5.large");
  CHECK(a.zone == "us-west-2a");
  CHECK(a.capacity_type == "on-demand");
  CHECK(a.price == Approx(0.096));
  CHECK(a.pods.size() == 7);
  std::vector<std::string> resched;
  for (snapshot::PodIndex p : a.reschedulable_pods) {
    resched.push_back(s.DecodePod(p).metadata().name());
  }
  CHECK(resched == std::vector<std::string>{"web", "sts", "cheap"});
  // Costs: web 2, cheap 1 - 10 = -9, every other pod 1.
  CHECK(a.lifetime_remaining == Approx(0.75));
  CHECK(a.disruption_cost == Approx((2 + 5 - 9) * 0.75));
  CHECK(a.reschedule_disruption_cost == Approx(1 + 2 + 1 + 0));
  CHECK(a.created == kT0 - absl::Hours(10));
  CHECK(a.expires_at == kT0 + absl::Hours(30));
  CHECK(a.has_termination_grace_period);
  CHECK_FALSE(a.static_node_pool);
  CHECK(a.drifted_since == kT0 - absl::Minutes(3));
  CHECK(a.drift_reason == "RequirementsDrifted");
  CHECK(a.consolidation_policy == budget::ConsolidationPolicy::kWhenEmpty);
  CHECK_FALSE(a.consolidation_disabled);
  CHECK(a.consolidatable);
  CHECK(a.consolidatable_at == kT0 - absl::Hours(1));

  const Candidate& st = sel.candidates[1];
  CHECK(st.static_node_pool);
  CHECK(st.price == Approx(0.032));  // The spot offering.
  CHECK_FALSE(st.consolidatable);    // Not set for static NodePools.
  CHECK_FALSE(st.drifted_since.has_value());
  CHECK(st.expires_at == std::nullopt);
  CHECK(st.lifetime_remaining == 1.0);
  CHECK(st.reschedule_disruption_cost == 1.0);
  CHECK(st.IsEmpty());
}

TEST_CASE("candidates: unknown instance type or offering prices 0",
          "[disruption]") {
  test::Cluster cl;
  cl.Pool();
  cl.Node({.name = "a", .instance_type = "x9.huge"});
  cl.Node({.name = "b", .zone = "eu-west-1a"});
  cl.Node({.name = "c"});  // No zone label: any zone matches.
  cl.objects.nodes.back().mutable_metadata()->mutable_labels()->erase(
      "topology.kubernetes.io/zone");
  const snapshot::Snapshot s = cl.Build();
  const InstanceTypeCatalog catalog =
      test::Catalog("default", {{"m5.large", 0.096}});
  CandidateContext ctx = test::Ctx(s);
  ctx.catalog = &catalog;
  const auto cs = test::MustBuild(ctx).For(Method::kDrift).candidates;
  REQUIRE(cs.size() == 3);
  CHECK(cs[0].price == 0);
  CHECK(cs[1].price == 0);
  CHECK(cs[2].price == Approx(0.096));
}

TEST_CASE("candidates: consolidatable at the pass time", "[disruption]") {
  struct Row {
    std::string name;
    std::optional<std::string> consolidate_after;
    std::optional<absl::Time> initialized_at;
    std::optional<absl::Time> last_pod_event;
    bool want;
    bool disabled;
  };
  const Row rows[] = {
      {"0s: as soon as initialised", "0s", kT0, std::nullopt, true, false},
      {"default is 0s", std::nullopt, kT0, std::nullopt, true, false},
      {"not initialised", "0s", std::nullopt, std::nullopt, false, false},
      {"Never", "Never", kT0 - absl::Hours(9), std::nullopt, false, true},
      {"not yet since Initialized", "10m", kT0 - absl::Minutes(9), std::nullopt,
       false, false},
      {"exactly consolidateAfter", "10m", kT0 - absl::Minutes(10), std::nullopt,
       true, false},
      {"a pod event resets the clock", "10m", kT0 - absl::Hours(1),
       kT0 - absl::Minutes(2), false, false},
      {"pod event long ago", "10m", kT0 - absl::Hours(1),
       kT0 - absl::Minutes(11), true, false},
  };
  for (const Row& row : rows) {
    CAPTURE(row.name);
    test::Cluster cl;
    cl.Pool({.consolidate_after = row.consolidate_after});
    cl.Node({}, {.initialized_at = row.initialized_at,
                 .last_pod_event = row.last_pod_event});
    const snapshot::Snapshot s = cl.Build();
    const auto cs =
        test::MustBuild(test::Ctx(s)).For(Method::kEmptiness).candidates;
    REQUIRE(cs.size() == 1);
    CHECK(cs[0].consolidatable == row.want);
    CHECK(cs[0].consolidation_disabled == row.disabled);
  }
}

TEST_CASE("candidates: drift marks replace the Drifted condition",
          "[disruption]") {
  test::Cluster cl;
  cl.Pool();
  cl.Node({.name = "a"}, {.drifted_since = kT0 - absl::Hours(1)});
  cl.Node({.name = "b"});
  const snapshot::Snapshot s = cl.Build();
  CandidateContext ctx = test::Ctx(s);
  ctx.drift_marks.resize(2);
  ctx.drift_marks[*s.FindNodeClaim("b-claim")] =
      DriftMark{"NodePoolDrifted", kT0};
  const auto cs = test::MustBuild(ctx).For(Method::kDrift).candidates;
  REQUIRE(cs.size() == 2);
  CHECK_FALSE(cs[0].drifted_since.has_value());  // Marks override.
  CHECK(cs[1].drifted_since == kT0);
  CHECK(cs[1].drift_reason == "NodePoolDrifted");
}

TEST_CASE("candidates: empty means no reschedulable pod with positive cost",
          "[disruption]") {
  struct Row {
    std::vector<PodOpts> pods;
    bool empty;
  };
  const std::vector<Row> rows = {
      {{}, true},
      {{{.name = "w"}}, false},
      {{{.name = "ds", .owner = "apps/v1/DaemonSet"}}, true},
      {{{.name = "low", .priority = -33554432}}, true},  // Cost exactly 0.
      {{{.name = "neg",
         .annotations = {{"controller.kubernetes.io/pod-deletion-cost",
                          "-268435456"}}}},
       true},  // Cost -1.
      {{{.name = "neg",
         .annotations = {{"controller.kubernetes.io/pod-deletion-cost",
                          "-268435456"}}},
        {.name = "w"}},
       false},
      {{{.name = "sts", .owner = "apps/v1/StatefulSet", .deleted = kT0}},
       false},
      {{{.name = "rs", .owner = "apps/v1/ReplicaSet", .deleted = kT0}}, true},
  };
  for (size_t i = 0; i < rows.size(); ++i) {
    CAPTURE(i);
    test::Cluster cl;
    cl.Pool().Node();
    for (const PodOpts& p : rows[i].pods) cl.Pod(p);
    const snapshot::Snapshot s = cl.Build();
    const auto cs =
        test::MustBuild(test::Ctx(s)).For(Method::kEmptiness).candidates;
    REQUIRE(cs.size() == 1);
    CHECK(cs[0].IsEmpty() == rows[i].empty);
  }
}

TEST_CASE("candidates: managed claims list every NodeClaim by name",
          "[disruption]") {
  test::Cluster cl;
  cl.Pool();
  cl.Node({.name = "z"}, {.expire_after = "bad"});
  cl.Claim("b-launching", "default", {.deleted = kT0});
  cl.Claim("a-orphan", "gone");
  const snapshot::Snapshot s = cl.Build();
  const CandidatePool pool = test::MustBuild(test::Ctx(s));
  const auto claims = pool.managed_claims();
  REQUIRE(claims.size() == 3);
  CHECK(claims[0].facts.node_claim_name == "a-orphan");
  CHECK_FALSE(claims[0].node_pool_exists);
  CHECK_FALSE(claims[0].facts.has_node);
  CHECK(claims[1].deleting);
  CHECK(claims[2].facts.node_name == "z");
  CHECK(claims[2].facts.has_node);
  CHECK(claims[2].node_pool_exists);
  CHECK_FALSE(claims[2].expire_after_error.ok());
}

TEST_CASE("candidates: SnapshotFacts of another snapshot are refused",
          "[candidates]") {
  test::Cluster one;
  one.Pool().Node({.name = "a"});
  const snapshot::Snapshot first = one.Build();
  test::Cluster two;
  two.Pool().Node({.name = "a"});
  const snapshot::Snapshot second = two.Build();
  const SnapshotFacts facts = SnapshotFacts::Build(first);

  CandidateContext ctx;
  ctx.snapshot = &second;
  ctx.facts = &facts;
  const absl::StatusOr<CandidatePool> refused = CandidatePool::Build(ctx);
  CHECK(refused.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(refused.status().message()),
             Catch::Contains("CandidateContext.facts"));
  ctx.snapshot = &first;
  const absl::StatusOr<CandidatePool> pool = CandidatePool::Build(ctx);
  REQUIRE(pool.ok());
  CHECK(pool->For(Method::kDrift).candidates.size() == 1);
}

}  // namespace
}  // namespace karpenter::disruption
