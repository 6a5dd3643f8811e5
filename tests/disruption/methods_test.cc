// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#include "karpenter/disruption/methods.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "candidates_test_util.h"
#include "karpenter/budget/allowed.h"

namespace karpenter::disruption {
namespace {

using test::ClaimOpts;
using test::kT0;
using NodeOpts = testing::NodeOptions;
using PodOpts = testing::PodOptions;

std::map<std::string, std::string> Codes(
    const std::vector<NodeVerdict>& verdicts, Method method) {
  std::map<std::string, std::string> out;
  for (const NodeVerdict& v : verdicts) {
    CHECK(v.method == method);
    CHECK(out.count(v.node) == 0);
    out[v.node] = v.code;
  }
  return out;
}

std::vector<std::vector<std::string>> CommandNodes(
    const std::vector<Command>& commands) {
  std::vector<std::vector<std::string>> out;
  for (const Command& c : commands) out.push_back(test::Names(c.candidates));
  return out;
}

BudgetLedger Ledger(const std::map<std::string, int64_t>& remaining) {
  BudgetLedger ledger;
  for (const auto& [pool, n] : remaining) ledger.Set(pool, n);
  return ledger;
}

TEST_CASE(
    "methods: emptiness takes empty consolidatable nodes by savings "
    "within the budget",
    "[disruption]") {
  test::Cluster cl;
  cl.Pool({.name = "default"});
  cl.Pool({.name = "never", .consolidate_after = "Never"});
  cl.Pool({.name = "fixed", .replicas = 1});
  cl.Pool({.name = "slow", .consolidate_after = "2h"});
  cl.Node({.name = "cheap", .instance_type = "small"});
  cl.Node({.name = "pricey", .instance_type = "large"});
  cl.Node({.name = "mid", .instance_type = "medium"});
  cl.Node({.name = "busy", .instance_type = "large"});
  cl.Node({.name = "off", .nodepool = "never"});
  cl.Node({.name = "static", .nodepool = "fixed"});
  cl.Node({.name = "young", .nodepool = "slow"});
  cl.Node({.name = "blocked"});
  cl.Pod({.name = "w", .node = "busy"});
  cl.Pod({.name = "ds", .node = "cheap", .owner = "apps/v1/DaemonSet"});
  cl.Pod({.name = "pin",
          .node = "blocked",
          .phase = "Running",
          .owner = "apps/v1/DaemonSet",
          .annotations = {{"karpenter.sh/do-not-disrupt", "true"}}});
  const snapshot::Snapshot s = cl.Build();
  InstanceTypeCatalog catalog = test::Catalog(
      "default", {{"small", 0.1}, {"medium", 0.2}, {"large", 0.4}});
  for (const char* p : {"never", "fixed", "slow"}) {
    catalog[p] = catalog["default"];
  }
  CandidateContext ctx = test::Ctx(s);
  ctx.catalog = &catalog;
  const CandidatePool pool = test::MustBuild(ctx);
  BudgetLedger ledger =
      Ledger({{"default", 2}, {"never", 5}, {"fixed", 5}, {"slow", 5}});
  const MethodResult r = ComputeEmptiness(pool, ledger, kT0, {});
  REQUIRE(r.commands.size() == 1);
  const Command& cmd = r.commands[0];
  CHECK(cmd.method == Method::kEmptiness);
  CHECK(test::Names(cmd.candidates) ==
        std::vector<std::string>{"pricey", "mid"});
  CHECK(cmd.decision() == Decision::kDelete);
  CHECK(cmd.validate_at == kT0 + absl::Seconds(15));
  CHECK(ledger.Remaining("default") == 0);
  const std::map<std::string, std::string> want = {
      {"cheap", "BudgetExhausted"},     {"busy", "NotEmpty"},
      {"off", "ConsolidationDisabled"}, {"static", "StaticNodePool"},
      {"young", "NotConsolidatable"},   {"blocked", "PodDoNotDisrupt"},
  };
  CHECK(Codes(r.verdicts, Method::kEmptiness) == want);
  std::vector<std::string> order;
  for (const NodeVerdict& v : r.verdicts) order.push_back(v.node);
  CHECK(std::is_sorted(order.begin(), order.end()));
  for (const NodeVerdict& v : r.verdicts) {
    if (v.node == "young") {
      CHECK(v.message ==
            "consolidateAfter has not elapsed (consolidatable at "
            "2024-01-01T01:00:00Z)");
    }
    if (v.node == "cheap") CHECK_THAT(v.message, Catch::Contains("Empty"));
  }

  MethodOptions slow;
  slow.validation_delay = absl::Minutes(1);
  BudgetLedger big = Ledger({{"default", 10}});
  const MethodResult all = ComputeEmptiness(pool, big, kT0, slow);
  REQUIRE(all.commands.size() == 1);
  CHECK(test::Names(all.commands[0].candidates) ==
        std::vector<std::string>{"pricey", "mid", "cheap"});
  CHECK(all.commands[0].validate_at == kT0 + absl::Minutes(1));
}

TEST_CASE(
    "methods: emptiness counts nodes with only negative-cost pods as "
    "empty and breaks price ties deterministically",
    "[disruption]") {
  test::Cluster cl;
  cl.Pool();
  // Same price (no catalogue): ties by disruption cost, then age, then name.
  cl.Node({.name = "d"}, {.created = kT0 - absl::Hours(5)});
  cl.Node({.name = "c"}, {.created = kT0 - absl::Hours(5)});
  cl.Node({.name = "b"}, {.created = kT0 - absl::Hours(9)});
  cl.Node({.name = "a"}, {.created = kT0 - absl::Hours(5)});
  cl.Pod({.name = "low", .node = "a", .priority = -100000000});  // Cost < 0.
  cl.Pod({.name = "ds", .node = "d", .owner = "apps/v1/DaemonSet"});
  const snapshot::Snapshot s = cl.Build();
  const CandidatePool pool = test::MustBuild(test::Ctx(s));
  BudgetLedger ledger = Ledger({{"default", 10}});
  const MethodResult r = ComputeEmptiness(pool, ledger, kT0, {});
  REQUIRE(r.commands.size() == 1);
  // a: cost (1 - 2.98) < 0; b and c: 0, b older; d: 1 (DaemonSet pod).
  CHECK(test::Names(r.commands[0].candidates) ==
        std::vector<std::string>{"a", "b", "c", "d"});
  CHECK(r.verdicts.empty());
}

TEST_CASE("methods: budgets are per reason", "[disruption]") {
  // One empty, drifted node; budgets Empty 0 and Drifted 2.
  test::Cluster cl;
  cl.Pool();
  auto* budgets = cl.objects.node_pools[0].mutable_spec()->mutable_disruption();
  v1::Budget* empty = budgets->add_budgets();
  empty->set_nodes("0");
  empty->add_reasons("Empty");
  v1::Budget* drifted = budgets->add_budgets();
  drifted->set_nodes("2");
  drifted->add_reasons("Drifted");
  cl.Node({.name = "a"}, {.drifted_since = kT0 - absl::Hours(1)});
  const snapshot::Snapshot s = cl.Build();
  const budget::BudgetMapping mapping = budget::BuildBudgetMapping(s, kT0);
  const CandidatePool pool = test::MustBuild(test::Ctx(s));

  BudgetLedger empty_ledger =
      BudgetLedger::FromMapping(mapping, budget::DisruptionReason::kEmpty);
  const MethodResult e = ComputeEmptiness(pool, empty_ledger, kT0, {});
  CHECK(e.commands.empty());
  CHECK(Codes(e.verdicts, Method::kEmptiness) ==
        std::map<std::string, std::string>{{"a", "BudgetExhausted"}});

  BudgetLedger drift_ledger =
      BudgetLedger::FromMapping(mapping, budget::DisruptionReason::kDrifted);
  test::FakeSimulator sim;
  const MethodResult d = ComputeDrift(pool, drift_ledger, sim, {});
  CHECK(CommandNodes(d.commands) ==
        std::vector<std::vector<std::string>>{{"a"}});
  CHECK(drift_ledger.Remaining("default") == 1);
}

TEST_CASE("methods: a ledger describes an unlimited reason as unlimited",
          "[disruption]") {
  // Budgets: Drifted "0" only, so Empty has no limit (MaxInt32 allowed).
  test::Cluster cl;
  cl.Pool();
  v1::Budget* drifted = cl.objects.node_pools[0]
                            .mutable_spec()
                            ->mutable_disruption()
                            ->add_budgets();
  drifted->set_nodes("0");
  drifted->add_reasons("Drifted");
  cl.Node({.name = "a"});
  const snapshot::Snapshot s = cl.Build();
  const budget::BudgetMapping mapping = budget::BuildBudgetMapping(s, kT0);

  BudgetLedger empty =
      BudgetLedger::FromMapping(mapping, budget::DisruptionReason::kEmpty);
  CHECK(empty.Describe("default") == "unlimited in NodePool \"default\"");
  REQUIRE(empty.TryTake("default"));
  CHECK(empty.Describe("default") == "unlimited in NodePool \"default\"");
  CHECK(empty.Remaining("default") == budget::kUnlimited - 1);
  // A count set later (a NodePool in backoff) is a limit again.
  empty.Set("default", 0);
  CHECK(empty.Describe("default") == "0 left in NodePool \"default\"");

  BudgetLedger drift =
      BudgetLedger::FromMapping(mapping, budget::DisruptionReason::kDrifted);
  CHECK(drift.Describe("default") == "0 left in NodePool \"default\"");
  CHECK(drift.Describe("other") == "NodePool \"other\" has no budget entry");
}

TEST_CASE("methods: drift orders, gates, simulates and commands",
          "[disruption]") {
  test::Cluster cl;
  cl.Pool({.name = "default"}).Pool({.name = "zero"});
  cl.Pool({.name = "fixed", .replicas = 3});
  cl.Node({.name = "old-busy"}, {.drifted_since = kT0 - absl::Hours(9)});
  cl.Node({.name = "new-empty"}, {.drifted_since = kT0 - absl::Hours(1)});
  cl.Node({.name = "mid-busy"}, {.drifted_since = kT0 - absl::Hours(5)});
  cl.Node({.name = "nofit"}, {.drifted_since = kT0 - absl::Hours(8)});
  cl.Node({.name = "affinity"}, {.drifted_since = kT0 - absl::Hours(7)});
  cl.Node({.name = "clean"});
  cl.Node({.name = "frozen", .nodepool = "zero"},
          {.drifted_since = kT0 - absl::Hours(20)});
  cl.Node({.name = "static", .nodepool = "fixed"},
          {.drifted_since = kT0 - absl::Hours(20)});
  cl.Node({.name = "pinned"}, {.drifted_since = kT0 - absl::Hours(20)});
  cl.Node({.name = "pinned-tgp"},
          {.tgp = "30m", .drifted_since = kT0 - absl::Hours(30)});
  for (const char* n : {"old-busy", "mid-busy", "nofit", "affinity"}) {
    cl.Pod({.name = std::string("w-") + n, .node = n});
  }
  for (const char* n : {"pinned", "pinned-tgp"}) {
    cl.Pod({.name = std::string("w-") + n,
            .node = n,
            .annotations = {{"karpenter.sh/do-not-disrupt", "true"}}});
  }
  const snapshot::Snapshot s = cl.Build();
  const CandidatePool pool = test::MustBuild(test::Ctx(s));

  test::FakeSimulator sim;
  SimulationResult nofit;
  nofit.unschedulable = {"default/w-nofit: no capacity"};
  sim.answers["nofit"] = nofit;
  SimulationResult affinity;
  affinity.unsupported = "pod default/w-affinity: required pod anti-affinity";
  sim.answers["affinity"] = affinity;
  SimulationResult replace;
  replace.all_pods_scheduled = true;
  Replacement rep;
  rep.node_pool = "default";
  rep.instance_types = {"m5.large"};
  replace.new_node_claims = {rep, rep};
  sim.answers["old-busy"] = replace;

  SECTION("every budget-permitted command in one pass (default)") {
    BudgetLedger ledger = Ledger({{"default", 3}, {"zero", 0}, {"fixed", 5}});
    const MethodResult r = ComputeDrift(pool, ledger, sim, {});
    // Empty first, then by drift age; pinned-tgp ignores its pod block.
    CHECK(CommandNodes(r.commands) ==
          std::vector<std::vector<std::string>>{
              {"new-empty"}, {"pinned-tgp"}, {"old-busy"}});
    CHECK(sim.calls == std::vector<std::vector<std::string>>{
                           {"new-empty"}, {"pinned-tgp"}, {"old-busy"}});
    CHECK(r.commands[0].decision() == Decision::kDelete);
    CHECK(r.commands[2].decision() == Decision::kReplace);
    CHECK(r.commands[2].replacements.size() == 2);
    CHECK_FALSE(r.commands[0].validate_at.has_value());
    CHECK(ledger.Remaining("default") == 0);
    const std::map<std::string, std::string> want = {
        {"nofit", "BudgetExhausted"},    {"affinity", "BudgetExhausted"},
        {"mid-busy", "BudgetExhausted"}, {"clean", "NotDrifted"},
        {"frozen", "BudgetExhausted"},   {"static", "StaticNodePool"},
        {"pinned", "PodDoNotDisrupt"},
    };
    CHECK(Codes(r.verdicts, Method::kDrift) == want);
  }
  SECTION("simulation failures are explained") {
    BudgetLedger ledger = Ledger({{"default", 10}});
    const MethodResult r = ComputeDrift(pool, ledger, sim, {});
    CHECK(CommandNodes(r.commands).size() == 4);
    const auto codes = Codes(r.verdicts, Method::kDrift);
    CHECK(codes.at("nofit") == "PodsDoNotFit");
    CHECK(codes.at("affinity") == "UnsupportedConstraint");
    for (const NodeVerdict& v : r.verdicts) {
      if (v.node == "nofit") {
        CHECK(v.message ==
              "pods cannot be rescheduled: default/w-nofit: no capacity");
      }
      if (v.node == "affinity") CHECK_THAT(v.message, Catch::Contains("anti"));
    }
    CHECK(ledger.Remaining("default") == 6);
  }
  SECTION("one drift command per pass (Karpenter)") {
    BudgetLedger ledger = Ledger({{"default", 3}});
    MethodOptions one;
    one.one_drift_command_per_pass = true;
    const MethodResult r = ComputeDrift(pool, ledger, sim, one);
    CHECK(CommandNodes(r.commands) ==
          std::vector<std::vector<std::string>>{{"new-empty"}});
    CHECK(sim.calls.size() == 1);
    CHECK(ledger.Remaining("default") == 2);
    const auto codes = Codes(r.verdicts, Method::kDrift);
    CHECK(codes.at("old-busy") == "NotSelected");
    CHECK(codes.at("pinned-tgp") == "NotSelected");
  }
}

TEST_CASE(
    "methods: static drift replaces from the template within budget "
    "and limits",
    "[disruption]") {
  struct Row {
    std::string name;
    int64_t replicas;
    std::optional<std::string> limit;
    int64_t budget;
    size_t want_commands;
    std::string held_code;
  };
  const Row rows[] = {
      {"budget bounds the commands", 3, std::nullopt, 2, 2, "BudgetExhausted"},
      {"budget 0", 3, std::nullopt, 0, 0, "BudgetExhausted"},
      {"all within budget", 3, std::nullopt, 5, 3, ""},
      {"scaling down", 2, std::nullopt, 5, 0, "NotSelected"},
      {"at the node limit", 3, "3", 5, 0, "NotSelected"},
      {"room for one under the limit", 3, "4", 5, 1, "NotSelected"},
  };
  for (const Row& row : rows) {
    CAPTURE(row.name);
    test::Cluster cl;
    cl.Pool({.name = "fixed",
             .limits = row.limit.has_value()
                           ? testing::Labels{{"nodes", *row.limit}}
                           : testing::Labels{},
             .replicas = row.replicas});
    cl.Pool({.name = "default"});
    cl.Node({.name = "s1", .nodepool = "fixed"},
            {.drifted_since = kT0 - absl::Hours(3)});
    cl.Node({.name = "s2", .nodepool = "fixed"},
            {.drifted_since = kT0 - absl::Hours(1)});
    cl.Node({.name = "s3", .nodepool = "fixed"},
            {.drifted_since = kT0 - absl::Hours(2)});
    cl.Node({.name = "dyn"}, {.drifted_since = kT0 - absl::Hours(2)});
    const snapshot::Snapshot s = cl.Build();
    const InstanceTypeCatalog catalog =
        test::Catalog("fixed", {{"b-type", 0.2}, {"a-type", 0.3}});
    CandidateContext ctx = test::Ctx(s);
    InstanceTypeCatalog full = catalog;
    full["default"] = catalog.at("fixed");
    ctx.catalog = &full;
    const CandidatePool pool = test::MustBuild(ctx);
    BudgetLedger ledger = Ledger({{"fixed", row.budget}});
    test::FakeSimulator sim;
    const MethodResult r = ComputeStaticDrift(pool, ledger, sim, {});
    CHECK(sim.calls.empty());
    REQUIRE(r.commands.size() == row.want_commands);
    const std::vector<std::string> order = {"s1", "s3", "s2"};
    for (size_t i = 0; i < r.commands.size(); ++i) {
      const Command& cmd = r.commands[i];
      CHECK(cmd.method == Method::kStaticDrift);
      CHECK(test::Names(cmd.candidates) == std::vector<std::string>{order[i]});
      REQUIRE(cmd.replacements.size() == 1);
      const Replacement& rep = cmd.replacements[0];
      CHECK(rep.node_pool == "fixed");
      // Spot offerings are a third of on-demand: b-type 0.0667 first.
      CHECK(rep.instance_types == std::vector<std::string>{"b-type", "a-type"});
      CHECK(rep.price == Approx(0.2 / 3));
      CHECK(rep.node_claim.metadata().name() ==
            order[i] + "-claim-replacement");
      CHECK(rep.node_claim.metadata().labels().at("karpenter.sh/nodepool") ==
            "fixed");
      CHECK(rep.node_claim.metadata().labels().at("team") == "a");
    }
    // "dyn" is not a static NodePool's: no verdict from this method.
    const auto codes = Codes(r.verdicts, Method::kStaticDrift);
    CHECK(codes.count("dyn") == 0);
    CHECK(codes.size() == 3 - row.want_commands);
    for (const auto& [node, code] : codes) CHECK(code == row.held_code);
  }
}

TEST_CASE("methods: expiration is forceful and budget-free", "[disruption]") {
  test::Cluster cl;
  cl.Pool();
  cl.Node({.name = "expired"},
          {.created = kT0 - absl::Hours(10), .expire_after = "10h"});
  cl.Node({.name = "young"},
          {.created = kT0 - absl::Hours(1), .expire_after = "10h"});
  cl.Node({.name = "forever"}, {.expire_after = "Never"});
  cl.Node({.name = "unset"});
  cl.Node({.name = "bad"}, {.expire_after = "10d"});
  cl.Node({.name = "pinned", .initialized = false},
          {.created = kT0 - absl::Hours(11), .expire_after = "10h"});
  cl.Node({.name = "going"}, {.created = kT0 - absl::Hours(11),
                              .expire_after = "10h",
                              .deleted = kT0});
  cl.Node({.name = "queued"},
          {.created = kT0 - absl::Hours(11), .expire_after = "10h"});
  cl.Claim("launching", "default",
           {.created = kT0 - absl::Hours(11), .expire_after = "10h"});
  cl.Pod({.name = "dnd",
          .node = "pinned",
          .annotations = {{"karpenter.sh/do-not-disrupt", "true"}}});
  const snapshot::Snapshot s = cl.Build();
  CandidateContext ctx = test::Ctx(s);
  ctx.in_flight = {"aws:///queued"};
  const CandidatePool pool = test::MustBuild(ctx);
  const MethodResult r = ComputeExpiration(pool);
  CHECK(CommandNodes(r.commands) ==
        std::vector<std::vector<std::string>>{{"expired"}, {""}, {"pinned"}});
  REQUIRE(r.commands.size() == 3);
  CHECK(r.commands[1].candidates[0].node_claim_name == "launching");
  CHECK_FALSE(r.commands[1].candidates[0].has_node);
  CHECK(r.commands[0].explanation ==
        "expired at 2024-01-01T00:00:00Z (expireAfter 10h0m0s)");
  const std::map<std::string, std::string> want = {
      {"young", "NotExpired"}, {"forever", "NotExpired"},
      {"unset", "NotExpired"}, {"bad", "NotExpired"},
      {"going", "Deleting"},   {"queued", "InFlight"},
  };
  CHECK(Codes(r.verdicts, Method::kExpiration) == want);
  for (const NodeVerdict& v : r.verdicts) {
    if (v.node == "young") {
      CHECK(v.message == "expires at 2024-01-01T09:00:00Z");
    }
    if (v.node == "bad") CHECK_THAT(v.message, Catch::Contains("\"10d\""));
  }
}

TEST_CASE("methods: NodePool deletion deletes its NodeClaims", "[disruption]") {
  test::Cluster cl;
  cl.Pool();
  cl.Node({.name = "kept"});
  cl.Node({.name = "orphan", .nodepool = "gone", .initialized = false});
  cl.Node({.name = "orphan-deleting", .nodepool = "gone"}, {.deleted = kT0});
  cl.Claim("orphan-launching", "gone");
  const snapshot::Snapshot s = cl.Build();
  const CandidatePool pool = test::MustBuild(test::Ctx(s));
  const MethodResult r = ComputeNodePoolDeleted(pool);
  REQUIRE(r.commands.size() == 2);
  CHECK(r.commands[0].candidates[0].node_name == "orphan");
  CHECK(r.commands[0].explanation ==
        "NodePool \"gone\" no longer exists: delete NodeClaim "
        "\"orphan-claim\"");
  CHECK(r.commands[1].candidates[0].node_claim_name == "orphan-launching");
  CHECK(r.commands[1].decision() == Decision::kDelete);
  CHECK(Codes(r.verdicts, Method::kNodePoolDeleted) ==
        std::map<std::string, std::string>{{"orphan-deleting", "Deleting"}});
}

TEST_CASE("methods: emptiness validation keeps the surviving subset",
          "[disruption]") {
  auto build = [](bool later) {
    test::Cluster cl;
    cl.Pool();
    for (const char* n : {"a", "b", "c", "d"}) cl.Node({.name = n});
    if (later) {
      cl.Pod({.name = "arrived", .node = "b"});
    }
    return cl.Build();
  };
  const snapshot::Snapshot before = build(false);
  const CandidatePool pool = test::MustBuild(test::Ctx(before));
  BudgetLedger ledger = Ledger({{"default", 4}});
  const MethodResult r = ComputeEmptiness(pool, ledger, kT0, {});
  REQUIRE(r.commands.size() == 1);
  const Command& cmd = r.commands[0];
  REQUIRE(cmd.candidates.size() == 4);

  const snapshot::Snapshot after = build(true);
  CandidateContext ctx = test::Ctx(after, kT0 + absl::Seconds(15));
  ctx.nominated = {"c"};
  const CandidatePool fresh = test::MustBuild(ctx);

  SECTION("subset within the fresh budget") {
    BudgetLedger fresh_ledger = Ledger({{"default", 1}});
    absl::StatusOr<Command> v = ValidateEmptiness(cmd, fresh, fresh_ledger);
    REQUIRE(v.ok());
    CHECK(test::Names(v->candidates) == std::vector<std::string>{"a"});
    CHECK_FALSE(v->validate_at.has_value());
    CHECK_THAT(v->explanation, Catch::Contains("b: NotEmpty") &&
                                   Catch::Contains("c: Nominated") &&
                                   Catch::Contains("d: BudgetExhausted"));
  }
  SECTION("none survive") {
    BudgetLedger none = Ledger({{"default", 0}});
    absl::StatusOr<Command> v = ValidateEmptiness(cmd, fresh, none);
    REQUIRE_FALSE(v.ok());
    CHECK(v.status().code() == absl::StatusCode::kFailedPrecondition);
    CHECK_THAT(std::string(v.status().message()),
               Catch::Contains("a: BudgetExhausted"));
  }
  SECTION("only emptiness commands") {
    Command other = cmd;
    other.method = Method::kDrift;
    BudgetLedger l = Ledger({{"default", 4}});
    CHECK(ValidateEmptiness(other, fresh, l).status().code() ==
          absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace karpenter::disruption
