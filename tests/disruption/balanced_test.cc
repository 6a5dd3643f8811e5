// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// consolidationPolicy Balanced: the score (balanced.h), the evaluator in
// single- and multi-node consolidation with its events and metrics
// (consolidation.h), the NodePool totals (CandidatePool::BalancedTotals)
// and whole passes of the Controller.

#include "karpenter/disruption/balanced.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "consolidation_test_util.h"
#include "controller_test_util.h"
#include "karpenter/disruption/consolidation.h"
#include "karpenter/disruption/controller.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace karpenter::disruption {
namespace {

using consolidation_test::DoesNotFit;
using consolidation_test::Fits;
using consolidation_test::Ledger;
using consolidation_test::MakeCandidate;
using consolidation_test::MakeReplacement;
using consolidation_test::MakeType;
using consolidation_test::NeedsOne;
using consolidation_test::ScriptedSimulator;
using consolidation_test::VerdictOf;
using controller_test::CodeOf;
using controller_test::World;
using test::kT0;
using NodeOpts = testing::NodeOptions;
using PodOpts = testing::PodOptions;
using PoolOpts = testing::NodePoolOptions;

const absl::Time kNow = absl::FromUnixSeconds(1700000000);

Candidate Balanced(Candidate c) {
  c.consolidation_policy = budget::ConsolidationPolicy::kBalanced;
  return c;
}

InstanceTypeCatalog Catalog() {
  std::vector<InstanceType> types = {
      MakeType("small", 0.1), MakeType("medium", 0.2), MakeType("large", 0.4)};
  return InstanceTypeCatalog{{"p", types}, {"q", types}};
}

// The samples of metric `name`, as "decision/nodepool/policy=value".
std::vector<std::string> Samples(const std::vector<MetricSample>& samples,
                                 absl::string_view name) {
  std::vector<std::string> out;
  for (const MetricSample& s : samples) {
    if (s.name != name) continue;
    auto label = [&](absl::string_view key) {
      auto it = s.labels.find(key);
      return it == s.labels.end() ? std::string("-") : it->second;
    };
    out.push_back(absl::StrCat(label("decision"), "/", label("nodepool"), "/",
                               label("policy"), "=", s.value));
  }
  return out;
}

std::vector<std::string> EventLines(const std::vector<Event>& events) {
  std::vector<std::string> out;
  for (const Event& e : events) {
    out.push_back(
        absl::StrCat(e.kind, "/", e.name, " ", e.reason, ": ", e.message));
  }
  return out;
}

// ---------------------------------------------------------------------------

TEST_CASE("balanced: score, threshold and the zero cases", "[balanced]") {
  const NodePoolTotals totals{.total_cost = 1.0, .total_disruption_cost = 20};
  SECTION("ten equal one-pod nodes: deleting one scores exactly 1") {
    // Each node costs 0.1 and disrupts 1 + 1 = 2 of 20.
    const BalancedScore s = ScoreMove(0.1, 2, totals);
    CHECK(s.savings_fraction == Approx(0.1));
    CHECK(s.disruption_fraction == Approx(0.1));
    CHECK(s.Score() == Approx(1.0));
    CHECK(s.Threshold() == 0.5);
    CHECK(s.Approved());
  }
  SECTION("exactly the threshold passes (>=)") {
    const BalancedScore s = ScoreMove(0.25, 10, totals);  // 0.25 / 0.5
    CHECK(s.Score() == 0.5);
    CHECK(s.Approved());
    CHECK_FALSE(ScoreMove(0.2499, 10, totals).Approved());
  }
  SECTION("no savings scores 0, whatever the disruption") {
    CHECK(ScoreMove(0, 0, totals).Score() == 0);
    CHECK(ScoreMove(-0.3, 2, totals).Score() == 0);
    CHECK_FALSE(ScoreMove(-0.3, 2, totals).Approved());
  }
  SECTION("no disruption with savings scores +Inf") {
    const BalancedScore s = ScoreMove(0.1, 0, totals);
    CHECK(std::isinf(s.Score()));
    CHECK(s.Approved());
  }
  SECTION("zero totals reject") {
    CHECK_FALSE(
        ScoreMove(0.1, 2, {.total_cost = 0, .total_disruption_cost = 20})
            .Approved());
    CHECK_FALSE(ScoreMove(0.1, 2, {.total_cost = 1, .total_disruption_cost = 0})
                    .Approved());
  }
  SECTION("Karpenter's event text") {
    CHECK(ApprovedMessage(ScoreMove(0.1, 2, totals)) ==
          "score 1.00 >= threshold 0.50 (k: 2, savings 10.0%, disruption "
          "10.0%)");
  }
}

TEST_CASE("balanced: moves across NodePools and policies", "[balanced]") {
  const NodePoolTotalsMap totals = {
      {"p", {.total_cost = 1.0, .total_disruption_cost = 10}},
      {"q", {.total_cost = 1.0, .total_disruption_cost = 10}}};
  Command cmd;
  cmd.candidates = {Balanced(MakeCandidate("a", "p", "large", 0.3)),
                    Balanced(MakeCandidate("b", "q", "medium", 0.1))};
  SECTION("delete: savings split by price; both pools must approve") {
    // p: 0.3 / 1 vs 2 / 10 -> 1.5; q: 0.1 / 1 vs 2 / 10 -> 0.5.
    BalancedEvaluation e = EvaluateBalancedMove(cmd, totals);
    REQUIRE(e.pools.size() == 2);
    CHECK(e.pools[0].node_pool == "p");
    CHECK(e.pools[0].savings == Approx(0.3));
    CHECK(e.pools[0].score.Score() == Approx(1.5));
    CHECK(e.pools[1].score.Score() == Approx(0.5));
    CHECK(e.approved);
    cmd.candidates[1].reschedule_disruption_cost = 3;  // q: 0.1 / 0.3
    e = EvaluateBalancedMove(cmd, totals);
    CHECK_FALSE(e.pools[1].score.Approved());
    CHECK_FALSE(e.approved);
  }
  SECTION("replace: the replacement's price comes off the savings") {
    cmd.replacements = {MakeReplacement("p", {"medium"})};
    cmd.replacements[0].price = 0.2;
    CHECK(SourceCost(cmd) == Approx(0.4));
    CHECK(EstimatedSavings(cmd) == Approx(0.2));
    BalancedEvaluation e = EvaluateBalancedMove(cmd, totals);
    CHECK(e.pools[0].savings == Approx(0.15));  // 0.2 x 0.3 / 0.4
    CHECK(e.pools[1].savings == Approx(0.05));
  }
  SECTION("a pool of another policy is neither scored nor in the way") {
    cmd.candidates[1].consolidation_policy =
        budget::ConsolidationPolicy::kWhenEmptyOrUnderutilized;
    cmd.candidates[1].reschedule_disruption_cost = 100;
    BalancedEvaluation e = EvaluateBalancedMove(cmd, totals);
    REQUIRE(e.pools.size() == 1);
    CHECK(e.pools[0].node_pool == "p");
    // The Balanced pool still gets only its price share of the savings.
    CHECK(e.pools[0].savings == Approx(0.3));
    CHECK(e.approved);
  }
  SECTION("a Balanced pool without totals rejects; no candidates rejects") {
    BalancedEvaluation e = EvaluateBalancedMove(cmd, {{"p", totals.at("p")}});
    CHECK_FALSE(e.approved);
    CHECK(EvaluateBalancedMove(Command{}, totals).approved == false);
  }
  SECTION("the best case of one candidate") {
    Candidate c = Balanced(MakeCandidate("c", "p", "small", 0.05));
    // 0.05 vs 2 / 10: 0.25.
    CHECK_FALSE(CanPassThreshold(c, totals));
    CHECK(absl::StrContains(DescribeScore(DeleteScore(c, totals)),
                            "Balanced score 0.25 < threshold 0.50 in "
                            "NodePool \"p\""));
    c.price = 0.1;
    CHECK(CanPassThreshold(c, totals));
    // No totals, or no cost: Karpenter lets the candidate through.
    CHECK(CanPassThreshold(c, {}));
    c.consolidation_policy = budget::ConsolidationPolicy::kWhenEmpty;
    c.price = 0.0001;
    CHECK(CanPassThreshold(c, totals));
  }
}

TEST_CASE("balanced: single-node refuses a churny move, takes the next",
          "[balanced]") {
  // Two Balanced nodes of pool p: "big" (price 0.4, 9 pods' cost) and
  // "small-a" (price 0.1). Totals: cost 1.0, disruption 20.
  Candidate big = Balanced(MakeCandidate("big", "p", "large", 0.4));
  big.reschedule_disruption_cost = 10;
  Candidate small = Balanced(MakeCandidate("small-a", "p", "small", 0.1));
  const NodePoolTotalsMap totals = {
      {"p", {.total_cost = 1.0, .total_disruption_cost = 20}}};
  // big is replaced by a medium (0.2): savings 0.2 of 1.0 (20%) for
  // disruption 10 of 20 (50%): 0.4 < 0.5. small-a is deleted: 10% for 10%.
  ScriptedSimulator sim([](const std::vector<std::string>& names) {
    if (names == std::vector<std::string>{"big"}) {
      Replacement r = MakeReplacement("p", {"medium"});
      return NeedsOne(r);
    }
    return Fits();
  });
  BudgetLedger ledger = Ledger({{"p", 5}});
  ConsolidationResult r = ComputeSingleNodeConsolidation(
      {big, small}, ledger, sim, Catalog(), kNow, {}, &totals);
  // small-a sorts first (0.1 / 2 = 0.05 > 0.4 / 10 = 0.04) and is taken.
  REQUIRE(r.commands.size() == 1);
  const Command& cmd = r.commands[0];
  CHECK(cmd.candidates[0].node_name == "small-a");
  REQUIRE(cmd.balanced_scores.size() == 1);
  CHECK(cmd.balanced_scores[0].score.Score() == Approx(1.0));
  CHECK(absl::StrContains(cmd.explanation,
                          "Balanced score 1.00 >= threshold 0.50"));
  CHECK(EventLines(r.events) ==
        std::vector<std::string>{
            "Node/small-a ConsolidationApproved: score 1.00 >= threshold "
            "0.50 (k: 2, savings 10.0%, disruption 10.0%)",
            "NodeClaim/small-a-claim ConsolidationApproved: score 1.00 >= "
            "threshold 0.50 (k: 2, savings 10.0%, disruption 10.0%)"});
  CHECK(Samples(r.metrics, metrics::kConsolidationMovesTotal) ==
        std::vector<std::string>{"approved/p/Balanced=1"});
  CHECK(Samples(r.metrics, metrics::kConsolidationScore) ==
        std::vector<std::string>{"approved/p/Balanced=1"});
  CHECK(VerdictOf(r, "big")->code == reasons::kNotSelected);

  SECTION("with small-a gone, big's replace is computed and refused") {
    BudgetLedger l2 = Ledger({{"p", 5}});
    ConsolidationResult r2 = ComputeSingleNodeConsolidation(
        {big}, l2, sim, Catalog(), kNow, {}, &totals);
    CHECK(r2.commands.empty());
    const NodeVerdict* v = VerdictOf(r2, "big");
    REQUIRE(v != nullptr);
    CHECK(v->code == reasons::kBalancedScoreTooLow);
    CHECK_THAT(v->message, Catch::Contains("Balanced score 0.40 < threshold "
                                           "0.50 in NodePool \"p\""));
    CHECK_THAT(v->message, Catch::Contains("(20.0%)"));
    CHECK_THAT(v->message, Catch::Contains("(50.0%)"));
    // A candidate event for the replace found, no event for the refusal,
    // and the refusal in the metrics.
    CHECK(EventLines(r2.events) ==
          std::vector<std::string>{
              "Node/big ConsolidationCandidate: Consolidation candidate: "
              "replace: [big] -> [1 replacement] (savings: $0.20)",
              "NodeClaim/big-claim ConsolidationCandidate: Consolidation "
              "candidate: replace: [big] -> [1 replacement] (savings: "
              "$0.20)"});
    CHECK(Samples(r2.metrics, metrics::kConsolidationMovesTotal) ==
          std::vector<std::string>{"rejected/p/Balanced=1"});
    CHECK(Samples(r2.metrics, metrics::kConsolidationScore) ==
          std::vector<std::string>{"rejected/p/Balanced=0.4"});
    CHECK(l2.Remaining("p") == 5);
  }
  SECTION("a candidate whose deletion cannot pass is not simulated") {
    Candidate hopeless = Balanced(MakeCandidate("hopeless", "p", "small", 0.1));
    hopeless.reschedule_disruption_cost = 8;  // 10% for 40%.
    ScriptedSimulator sim2([](const auto&) { return Fits(); });
    BudgetLedger l2 = Ledger({{"p", 5}});
    ConsolidationResult r2 = ComputeSingleNodeConsolidation(
        {hopeless}, l2, sim2, Catalog(), kNow, {}, &totals);
    CHECK(r2.commands.empty());
    CHECK(sim2.calls.empty());
    CHECK(VerdictOf(r2, "hopeless")->code == reasons::kBalancedScoreTooLow);
    CHECK_THAT(VerdictOf(r2, "hopeless")->message,
               Catch::StartsWith("even deleting the node: Balanced score "
                                 "0.25 < threshold 0.50"));
    CHECK(r2.metrics.empty());
  }
  SECTION("the same moves under WhenEmptyOrUnderutilized: counted, unscored") {
    Candidate b = big;
    b.consolidation_policy =
        budget::ConsolidationPolicy::kWhenEmptyOrUnderutilized;
    BudgetLedger l2 = Ledger({{"p", 5}});
    ConsolidationResult r2 = ComputeSingleNodeConsolidation(
        {b}, l2, sim, Catalog(), kNow, {}, &totals);
    REQUIRE(r2.commands.size() == 1);
    CHECK(r2.commands[0].balanced_scores.empty());
    CHECK(Samples(r2.metrics, metrics::kConsolidationMovesTotal) ==
          std::vector<std::string>{"approved/p/WhenEmptyOrUnderutilized=1"});
    CHECK(Samples(r2.metrics, metrics::kConsolidationScore).empty());
  }
}

TEST_CASE("balanced: multi-node search shrinks past a refused prefix",
          "[balanced]") {
  // Four Balanced nodes; deleting any prefix fits. Totals: cost 1.0,
  // disruption 10. a, b: 0.2 and cost 2 each; c: 0.05 and cost 2; d: 0.05
  // and cost 5 (so it sorts last).
  std::vector<Candidate> cs = {
      Balanced(MakeCandidate("a", "p", "medium", 0.2)),
      Balanced(MakeCandidate("b", "p", "medium", 0.2)),
      Balanced(MakeCandidate("c", "p", "small", 0.05)),
      Balanced(MakeCandidate("d", "p", "small", 0.05))};
  cs[3].reschedule_disruption_cost = 5;
  const NodePoolTotalsMap totals = {
      {"p", {.total_cost = 1.0, .total_disruption_cost = 10}}};
  ScriptedSimulator sim([](const auto&) { return Fits(); });
  BudgetLedger ledger = Ledger({{"p", 10}});
  // Prefixes: [a,b] 0.4 vs 0.4 -> 1; [a,b,c] 0.45 vs 0.6 -> 0.75;
  // [a,b,c,d] 0.5 vs 1.1 -> 0.45. The search tries [a,b,c] (approved),
  // then [a,b,c,d] (refused): the three go.
  ConsolidationResult r = ComputeMultiNodeConsolidation(
      cs, ledger, sim, Catalog(), kNow, {}, &totals);
  REQUIRE(r.commands.size() == 1);
  CHECK(consolidation_test::NodeNames(r.commands[0]) ==
        std::vector<std::string>{"a", "b", "c"});
  CHECK(r.commands[0].balanced_scores[0].score.Score() == Approx(0.75));
  CHECK(EventLines(r.events) ==
        std::vector<std::string>{
            "NodePool/p ConsolidationApproved: score 0.75 >= threshold 0.50 "
            "(k: 2, savings 45.0%, disruption 60.0%)"});
  CHECK(Samples(r.metrics, metrics::kConsolidationMovesTotal) ==
        std::vector<std::string>{"approved/p/Balanced=1"});

  SECTION("heavier pods: the three-node prefix is refused, two go") {
    // a, b: 2.5; c, d: 5. [a,b,c]: 0.45 vs 1.0 -> 0.45, refused; then
    // [a,b]: 0.4 vs 0.5 -> 0.8.
    for (Candidate& c : cs) c.reschedule_disruption_cost = 2.5;
    cs[2].reschedule_disruption_cost = 5;
    cs[3].reschedule_disruption_cost = 5;
    BudgetLedger l2 = Ledger({{"p", 10}});
    ConsolidationResult r2 = ComputeMultiNodeConsolidation(
        cs, l2, sim, Catalog(), kNow, {}, &totals);
    REQUIRE(r2.commands.size() == 1);
    CHECK(consolidation_test::NodeNames(r2.commands[0]) ==
          std::vector<std::string>{"a", "b"});
    // Only the outcome is published, not the refused step.
    CHECK(Samples(r2.metrics, metrics::kConsolidationMovesTotal) ==
          std::vector<std::string>{"approved/p/Balanced=1"});
    CHECK(Samples(r2.metrics, metrics::kConsolidationScore) ==
          std::vector<std::string>{"approved/p/Balanced=0.8"});
  }
  SECTION("every prefix refused: metrics of the last refusal, no event") {
    for (Candidate& c : cs) c.reschedule_disruption_cost = 6;
    BudgetLedger l2 = Ledger({{"p", 10}});
    ConsolidationResult r2 = ComputeMultiNodeConsolidation(
        cs, l2, sim, Catalog(), kNow, {}, &totals);
    CHECK(r2.commands.empty());
    CHECK(r2.events.empty());
    // The last step tried is the first two: 0.4 vs 1.2.
    CHECK(Samples(r2.metrics, metrics::kConsolidationMovesTotal) ==
          std::vector<std::string>{"rejected/p/Balanced=1"});
    REQUIRE(Samples(r2.metrics, metrics::kConsolidationScore).size() == 1);
    CHECK(VerdictOf(r2, "a")->code == reasons::kBalancedScoreTooLow);
    CHECK_THAT(VerdictOf(r2, "a")->message,
               Catch::Contains("Balanced score 0.33 < threshold 0.50"));
  }
}

TEST_CASE("balanced: rejected-validation events", "[balanced]") {
  Command cmd;
  cmd.method = Method::kMultiNodeConsolidation;
  cmd.candidates = {MakeCandidate("a", "p", "medium", 0.2),
                    MakeCandidate("b", "p", "medium", 0.2)};
  std::vector<Event> events = ConsolidationRejectedEvents(cmd, "budget");
  REQUIRE(events.size() == 4);
  CHECK(events[0].kind == "Node");
  CHECK(events[1].kind == "NodeClaim");
  CHECK(events[1].name == "a-claim");
  CHECK(events[0].message ==
        "Consolidation rejected: delete: [a] (part of 2-node consolidation), "
        "reason: budget (savings: $0.40)");
}

// --- Whole passes -----------------------------------------------------------

// Three m5.large nodes (0.096 each) of NodePool "default": "heavy" runs a
// pod of priority 1e9 (eviction cost 10, so it disrupts 11), the two others
// are empty and carry do-not-disrupt, so only "heavy" is a candidate.
World HeavyNodeWorld(const std::string& policy) {
  World w;
  w.Pool(
      PoolOpts{.consolidation_policy = policy, .budgets = {{.nodes = "100%"}}});
  w.Node({.name = "heavy"});
  w.Pod(PodOpts{.name = "important",
                .node = "heavy",
                .owner = "ReplicaSet",
                .priority = 1000000000});
  for (const char* n : {"quiet-1", "quiet-2"}) {
    w.Node(
        {.name = n, .annotations = {{"karpenter.sh/do-not-disrupt", "true"}}});
  }
  return w;
}

TEST_CASE(
    "balanced: the controller refuses what WhenEmptyOrUnderutilized "
    "does",
    "[balanced][controller]") {
  World eager = HeavyNodeWorld("WhenEmptyOrUnderutilized");
  const Plan yes = eager.Decide();
  REQUIRE(yes.commands.size() == 1);
  CHECK(yes.commands[0].candidates[0].node_name == "heavy");

  World balanced = HeavyNodeWorld("Balanced");
  balanced.Build();
  // Totals over the snapshot: 3 NodeClaims x 0.096, disruption 11 + 1 + 1.
  absl::StatusOr<CandidatePool> pool =
      CandidatePool::Build(CandidateContext{.snapshot = &*balanced.snapshot,
                                            .catalog = &balanced.inputs.catalog,
                                            .now = kT0});
  REQUIRE(pool.ok());
  CandidatePool::Selection sel = pool->For(Method::kSingleNodeConsolidation);
  const NodePoolTotalsMap totals = pool->BalancedTotals(sel.candidates);
  REQUIRE(totals.count("default") == 1);
  CHECK(totals.at("default").total_cost == Approx(3 * 0.096));
  CHECK(totals.at("default").total_disruption_cost == Approx(13));

  const Plan no = balanced.Decide();
  CHECK(no.commands.empty());
  CHECK(CodeOf(no, "heavy") == reasons::kBalancedScoreTooLow);
  CHECK_THAT(no.VerdictOf("heavy")->message,
             Catch::Contains("Balanced score 0.39 < threshold 0.50"));
  // Karpenter's gauge for both consolidation methods (one candidate).
  bool gauge = false;
  for (const MetricSample& m : no.metrics) {
    if (m.name == metrics::kVoluntaryDisruptionEligibleNodes &&
        m.labels.at("reason") == "underutilized") {
      gauge = true;
      CHECK(m.value == 1);
    }
  }
  CHECK(gauge);
}

TEST_CASE("balanced: totals count non-candidates as Karpenter's state does",
          "[balanced][controller]") {
  World w;
  w.Pool(PoolOpts{.consolidation_policy = "Balanced"});
  w.Node({.name = "cand"});
  w.Pod(PodOpts{.name = "web", .node = "cand", .owner = "ReplicaSet"});
  // Not a candidate: do-not-disrupt. Its pods: a DaemonSet pod (not
  // counted), a mirror pod of priority 2e9 (eviction cost 10, counted), a
  // finished Job pod (not counted) and one with a negative deletion cost
  // (not counted).
  w.Node({.name = "kept",
          .annotations = {{"karpenter.sh/do-not-disrupt", "true"}}});
  w.Pod(PodOpts{.name = "ds", .node = "kept", .owner = "DaemonSet"});
  w.Pod(PodOpts{.name = "static",
                .node = "kept",
                .owner = "Node",
                .priority = 2000000000});
  w.Pod(PodOpts{
      .name = "done", .node = "kept", .phase = "Succeeded", .owner = "Job"});
  w.Pod(PodOpts{.name = "cheap",
                .node = "kept",
                .owner = "ReplicaSet",
                .annotations = {{"controller.kubernetes.io/pod-deletion-cost",
                                 "-1000000000"}}});
  // Another NodePool's node does not count.
  w.Pool(PoolOpts{.name = "other"});
  w.Node({.name = "elsewhere", .nodepool = "other"});
  w.Build();
  absl::StatusOr<CandidatePool> pool = CandidatePool::Build(CandidateContext{
      .snapshot = &*w.snapshot, .catalog = &w.inputs.catalog, .now = kT0});
  REQUIRE(pool.ok());
  const NodePoolTotalsMap totals = pool->BalancedTotals(
      pool->For(Method::kSingleNodeConsolidation).candidates);
  // Totals exist for every NodePool with a candidate.
  REQUIRE(totals.size() == 2);
  CHECK(totals.at("other").total_disruption_cost == Approx(1));
  // cand: 1 + 1; kept: 1 + 10.
  CHECK(totals.at("default").total_disruption_cost == Approx(13));
  CHECK(totals.at("default").total_cost == Approx(2 * 0.096));
}

}  // namespace
}  // namespace karpenter::disruption
