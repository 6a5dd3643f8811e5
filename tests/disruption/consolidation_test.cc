// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#include "karpenter/disruption/consolidation.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "consolidation_test_util.h"

namespace karpenter::disruption::consolidation_test {
namespace {

const absl::Time kNow = absl::FromUnixSeconds(1700000000);

// Pool "p" (and "q") offer small 0.1, medium 0.2, large 0.4, xlarge 0.8
// on-demand; spot at half price.
InstanceTypeCatalog Catalog() {
  std::vector<InstanceType> types = {
      MakeType("small", 0.1, 0.05), MakeType("medium", 0.2, 0.1),
      MakeType("large", 0.4, 0.2), MakeType("xlarge", 0.8, 0.4)};
  return InstanceTypeCatalog{{"p", types}, {"q", types}};
}

const std::vector<std::string> kAllTypes = {"xlarge", "large", "medium",
                                            "small"};

std::vector<std::string> RequirementValues(const Replacement& r,
                                           absl::string_view key) {
  for (const auto& req : r.node_claim.spec().requirements()) {
    if (req.key() == key) return {req.values().begin(), req.values().end()};
  }
  return {};
}

TEST_CASE("consolidation: each ineligibility code in Karpenter's order",
          "[consolidation]") {
  struct Row {
    const char* what;
    std::function<void(Candidate&)> edit;
    absl::string_view code;
    absl::string_view message_part;
  };
  const Row rows[] = {
      {"static", [](Candidate& c) { c.static_node_pool = true; },
       reasons::kStaticNodePool, "is static"},
      {"static first",
       [](Candidate& c) {
         c.static_node_pool = true;
         c.zone = "";
       },
       reasons::kStaticNodePool, "is static"},
      {"no instance type label", [](Candidate& c) { c.instance_type = ""; },
       reasons::kMissingLabel, "\"node.kubernetes.io/instance-type\""},
      {"unknown price", [](Candidate& c) { c.price = 0; },
       reasons::kInstanceTypeUnknown, "Instance Type \"large\" not found"},
      {"no capacity type", [](Candidate& c) { c.capacity_type = ""; },
       reasons::kMissingLabel, "\"karpenter.sh/capacity-type\""},
      {"no zone", [](Candidate& c) { c.zone = ""; }, reasons::kMissingLabel,
       "\"topology.kubernetes.io/zone\""},
      {"consolidateAfter Never",
       [](Candidate& c) { c.consolidation_disabled = true; },
       reasons::kConsolidationDisabled,
       "NodePool \"p\" has consolidation disabled"},
      {"empty", [](Candidate& c) { c.reschedule_disruption_cost = 1; },
       reasons::kNoDisruptionNeeded, "left to emptiness"},
      {"empty before WhenEmpty",
       [](Candidate& c) {
         c.reschedule_disruption_cost = 1;
         c.consolidation_policy = budget::ConsolidationPolicy::kWhenEmpty;
       },
       reasons::kNoDisruptionNeeded, "left to emptiness"},
      {"WhenEmpty",
       [](Candidate& c) {
         c.consolidation_policy = budget::ConsolidationPolicy::kWhenEmpty;
       },
       reasons::kWhenEmptyPolicy, "WhenEmpty, but node is not empty"},
      {"not consolidatable", [](Candidate& c) { c.consolidatable = false; },
       reasons::kNotConsolidatable, "not Consolidatable"},
  };
  for (const Row& row : rows) {
    CAPTURE(row.what);
    Candidate c = MakeCandidate("n1", "p", "large", 0.4);
    row.edit(c);
    auto verdict =
        ConsolidationIneligibility(c, Method::kSingleNodeConsolidation);
    REQUIRE(verdict.has_value());
    CHECK(verdict->code == row.code);
    CHECK(absl::StrContains(verdict->message, row.message_part));
    CHECK(verdict->method == Method::kSingleNodeConsolidation);
    CHECK(verdict->node == "n1");
    CHECK(verdict->node_claim == "n1-claim");
    CHECK(verdict->node_pool == "p");
  }
  Candidate ok = MakeCandidate("n1", "p", "large", 0.4);
  CHECK_FALSE(ConsolidationIneligibility(ok, Method::kMultiNodeConsolidation)
                  .has_value());
  ok.consolidation_policy = budget::ConsolidationPolicy::kBalanced;
  CHECK_FALSE(ConsolidationIneligibility(ok, Method::kMultiNodeConsolidation)
                  .has_value());
}

TEST_CASE("consolidation: single-node deletes a node whose pods fit elsewhere",
          "[consolidation]") {
  ScriptedSimulator sim([](const auto&) { return Fits(); });
  BudgetLedger ledger = Ledger({{"p", 1}});
  ConsolidationResult r = ComputeSingleNodeConsolidation(
      {MakeCandidate("n1", "p", "large", 0.4)}, ledger, sim, Catalog(), kNow);
  REQUIRE(r.commands.size() == 1);
  const Command& cmd = r.commands[0];
  CHECK(cmd.decision() == Decision::kDelete);
  CHECK(cmd.method == Method::kSingleNodeConsolidation);
  CHECK(NodeNames(cmd) == std::vector<std::string>{"n1"});
  CHECK(cmd.validate_at == kNow + absl::Seconds(15));
  CHECK(cmd.explanation.find("delete 1 node") != std::string::npos);
  CHECK(r.verdicts.empty());
  CHECK(ledger.Remaining("p") == 0);
}

TEST_CASE("consolidation: replacement keeps only cheaper types, cheapest first",
          "[consolidation]") {
  struct Row {
    const char* what;
    double candidate_price;
    std::vector<std::string> capacity_types;
    std::vector<std::string> want_types;
    double want_price;
    std::vector<std::string> want_capacity;
  };
  const Row rows[] = {
      {"on-demand only",
       0.4,
       {"on-demand"},
       {"small", "medium"},
       0.1,
       {"on-demand"}},
      {"both allowed: priced as spot, forced to spot",
       0.4,
       {},
       {"small", "medium", "large"},
       0.05,
       {"spot"}},
      {"both allowed explicitly",
       0.3,
       {"on-demand", "spot"},
       {"small", "medium", "large"},
       0.05,
       {"spot"}},
  };
  for (const Row& row : rows) {
    CAPTURE(row.what);
    ScriptedSimulator sim([&](const auto&) {
      return NeedsOne(MakeReplacement("p", kAllTypes, row.capacity_types));
    });
    BudgetLedger ledger = Ledger({{"p", 1}});
    ConsolidationResult r = ComputeSingleNodeConsolidation(
        {MakeCandidate("n1", "p", "xlarge", row.candidate_price)}, ledger, sim,
        Catalog(), kNow);
    REQUIRE(r.commands.size() == 1);
    const Command& cmd = r.commands[0];
    REQUIRE(cmd.decision() == Decision::kReplace);
    const Replacement& rep = cmd.replacements[0];
    CHECK(rep.instance_types == row.want_types);
    CHECK(rep.price == Approx(row.want_price));
    CHECK(RequirementValues(rep, "node.kubernetes.io/instance-type") ==
          row.want_types);
    CHECK(RequirementValues(rep, "karpenter.sh/capacity-type") ==
          row.want_capacity);
    CHECK(cmd.explanation.find("replace 1 node") != std::string::npos);
  }
}

TEST_CASE("consolidation: no cheaper replacement when options cost the sum",
          "[consolidation]") {
  // One candidate at 0.2: medium (0.2) is not strictly cheaper, small is
  // not offered by the simulation.
  ScriptedSimulator sim([](const auto&) {
    return NeedsOne(MakeReplacement("p", {"medium", "large"}, {"on-demand"}));
  });
  BudgetLedger ledger = Ledger({{"p", 5}});
  ConsolidationResult single = ComputeSingleNodeConsolidation(
      {MakeCandidate("n1", "p", "medium", 0.2)}, ledger, sim, Catalog(), kNow);
  CHECK(single.commands.empty());
  REQUIRE(single.verdicts.size() == 1);
  CHECK(single.verdicts[0].code == reasons::kNoCheaperReplacement);
  CHECK(single.verdicts[0].message.find("Can't replace with a cheaper node") !=
        std::string::npos);
  CHECK(ledger.Remaining("p") == 5);

  // The comparison is with the SUM: two small-priced nodes (0.15 + 0.15)
  // can become one medium (0.2), not a large (0.4).
  ConsolidationAttempt sum = EvaluateConsolidation(
      std::vector<Candidate>{MakeCandidate("a", "p", "x", 0.15),
                             MakeCandidate("b", "p", "x", 0.15)},
      Method::kMultiNodeConsolidation, sim, Catalog());
  REQUIRE(sum.command.has_value());
  CHECK(sum.command->replacements[0].instance_types ==
        std::vector<std::string>{"medium"});

  // A type the catalogue does not know, or with no admitted offering, is
  // never chosen.
  ScriptedSimulator unknown([](const auto&) {
    return NeedsOne(MakeReplacement("p", {"mystery"}, {"on-demand"}));
  });
  ConsolidationAttempt none = EvaluateConsolidation(
      std::vector<Candidate>{MakeCandidate("n1", "p", "xlarge", 0.8)},
      Method::kSingleNodeConsolidation, unknown, Catalog());
  CHECK_FALSE(none.command.has_value());
  CHECK(none.code == reasons::kNoCheaperReplacement);
}

TEST_CASE("consolidation: simulation refusals map to reason codes",
          "[consolidation]") {
  struct Row {
    const char* what;
    SimulationResult sim;
    absl::string_view code;
    absl::string_view message_part;
  };
  SimulationResult two = Fits();
  two.new_node_claims = {MakeReplacement("p", {"small"}),
                         MakeReplacement("q", {"small"})};
  SimulationResult unsupported = Fits();
  unsupported.unsupported = "default/web: required pod anti-affinity";
  const Row rows[] = {
      {"pods do not fit", DoesNotFit("default/web: no node fits"),
       reasons::kPodsDoNotFit, "default/web: no node fits"},
      {"two replacements", two, reasons::kMultipleReplacements,
       "Can't remove without creating 2 candidates"},
      {"unsupported", unsupported, reasons::kUnsupportedConstraint,
       "anti-affinity"},
  };
  for (const Row& row : rows) {
    CAPTURE(row.what);
    ScriptedSimulator sim([&](const auto&) { return row.sim; });
    BudgetLedger ledger = Ledger({{"p", 1}});
    ConsolidationResult r = ComputeSingleNodeConsolidation(
        {MakeCandidate("n1", "p", "xlarge", 0.8)}, ledger, sim, Catalog(),
        kNow);
    CHECK(r.commands.empty());
    REQUIRE(r.verdicts.size() == 1);
    CHECK(r.verdicts[0].code == row.code);
    CHECK(absl::StrContains(r.verdicts[0].message, row.message_part));
  }
}

// n1..n<count> in pool p, prices descending so the sort keeps name order.
std::vector<Candidate> Descending(int count, const std::string& pool = "p") {
  std::vector<Candidate> out;
  for (int i = 1; i <= count; ++i) {
    out.push_back(
        MakeCandidate(absl::StrCat("n", i), pool, "large", 1.0 - 0.05 * i));
  }
  return out;
}

TEST_CASE("consolidation: multi-node binary search takes the longest prefix",
          "[consolidation]") {
  for (size_t fit = 1; fit <= 7; ++fit) {
    CAPTURE(fit);
    // Pods fit while at most `fit` nodes go away.
    ScriptedSimulator sim([fit](const std::vector<std::string>& names) {
      return names.size() <= fit ? Fits() : DoesNotFit("ns/p: full");
    });
    BudgetLedger ledger = Ledger({{"p", 10}});
    std::vector<Candidate> input = Descending(7);
    std::reverse(input.begin(), input.end());  // Sorting restores n1..n7.
    ConsolidationResult r =
        ComputeMultiNodeConsolidation(input, ledger, sim, Catalog(), kNow);
    CHECK(ledger.Remaining("p") == 3);  // All 7 consumed by the pre-filter.
    if (fit == 1) {
      CHECK(r.commands.empty());
      REQUIRE(r.verdicts.size() == 7);
      CHECK(r.verdicts[0].code == reasons::kPodsDoNotFit);
      continue;
    }
    REQUIRE(r.commands.size() == 1);
    const Command& cmd = r.commands[0];
    CHECK(cmd.method == Method::kMultiNodeConsolidation);
    CHECK(cmd.candidates.size() == fit);
    CHECK(cmd.candidates.front().node_name == "n1");
    CHECK(cmd.candidates.back().node_name == absl::StrCat("n", fit));
    CHECK(cmd.validate_at == kNow + absl::Seconds(15));
    CHECK(r.verdicts.size() == 7 - fit);
    for (const NodeVerdict& v : r.verdicts)
      CHECK(v.code == reasons::kNotSelected);
    // Never a single node: every tried prefix has at least 2.
    for (const auto& call : sim.calls) CHECK(call.size() >= 2);
  }
}

TEST_CASE("consolidation: multi-node tries the prefixes of the binary search",
          "[consolidation]") {
  ScriptedSimulator sim([](const std::vector<std::string>& names) {
    return names.size() <= 4 ? Fits() : DoesNotFit("ns/p: full");
  });
  BudgetLedger ledger = Ledger({{"p", 10}});
  ConsolidationResult r = ComputeMultiNodeConsolidation(Descending(6), ledger,
                                                        sim, Catalog(), kNow);
  // lo=1, hi=5: mid 3 (4 nodes) ok; mid 4 (5 nodes) fails.
  std::vector<size_t> sizes;
  for (const auto& call : sim.calls) sizes.push_back(call.size());
  CHECK(sizes == std::vector<size_t>{4, 5});
  REQUIRE(r.commands.size() == 1);
  CHECK(r.commands[0].candidates.size() == 4);
}

TEST_CASE("consolidation: multi-node caps the batch and needs two candidates",
          "[consolidation]") {
  ScriptedSimulator sim([](const auto&) { return Fits(); });
  BudgetLedger ledger = Ledger({{"p", 10}});
  ConsolidationOptions options;
  options.max_multi_candidates = 3;
  ConsolidationResult capped = ComputeMultiNodeConsolidation(
      Descending(5), ledger, sim, Catalog(), kNow, options);
  REQUIRE(capped.commands.size() == 1);
  CHECK(NodeNames(capped.commands[0]) ==
        std::vector<std::string>{"n1", "n2", "n3"});
  for (const auto& call : sim.calls) CHECK(call.size() <= 3);

  // One eligible candidate: nothing to do, whatever the simulation says.
  std::vector<Candidate> input = Descending(2);
  input[1].consolidatable = false;
  ConsolidationResult one =
      ComputeMultiNodeConsolidation(input, ledger, sim, Catalog(), kNow);
  CHECK(one.commands.empty());
  REQUIRE(one.verdicts.size() == 2);
  CHECK(VerdictOf(one, "n2")->code == reasons::kNotConsolidatable);
  CHECK(VerdictOf(one, "n1")->code == reasons::kNotSelected);
  CHECK(VerdictOf(one, "n1")->message.find("at least 2") != std::string::npos);
}

TEST_CASE("consolidation: multi-node respects the budget per NodePool",
          "[consolidation]") {
  std::vector<Candidate> input = Descending(3, "p");
  for (Candidate c : Descending(2, "q")) {
    c.node_name = "q-" + c.node_name;
    c.node_claim_name = "q-" + c.node_claim_name;
    input.push_back(c);
  }
  ScriptedSimulator sim([](const auto&) { return Fits(); });
  BudgetLedger ledger = Ledger({{"p", 1}, {"q", 2}});
  ConsolidationResult r =
      ComputeMultiNodeConsolidation(input, ledger, sim, Catalog(), kNow);
  REQUIRE(r.commands.size() == 1);
  std::vector<std::string> names = NodeNames(r.commands[0]);
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"n1", "q-n1", "q-n2"});
  CHECK(ledger.Remaining("p") == 0);
  CHECK(ledger.Remaining("q") == 0);
  REQUIRE(r.verdicts.size() == 2);
  CHECK(VerdictOf(r, "n2")->code == reasons::kBudgetExhausted);
  CHECK(VerdictOf(r, "n3")->code == reasons::kBudgetExhausted);
  CHECK(r.commands[0].explanation.find("budget Underutilized") !=
        std::string::npos);
}

TEST_CASE("consolidation: multi-node drops types no cheaper than a candidate",
          "[consolidation]") {
  // Two large nodes (0.4 each, sum 0.8). A replacement of type large is
  // cheaper than the sum but not than the existing large, so replacing
  // would just move pods: filterOutSameInstanceType drops every option
  // priced at or above 0.4.
  std::vector<Candidate> input = {MakeCandidate("n1", "p", "large", 0.4),
                                  MakeCandidate("n2", "p", "large", 0.4)};
  struct Row {
    const char* what;
    std::vector<std::string> options;
    std::vector<std::string> want;  // empty: no command
  };
  const Row rows[] = {
      {"only the same type", {"large"}, {}},
      {"same type and dearer", {"xlarge", "large"}, {}},
      {"a cheaper type survives", {"large", "medium"}, {"medium"}},
  };
  for (const Row& row : rows) {
    CAPTURE(row.what);
    ScriptedSimulator sim([&](const auto&) {
      return NeedsOne(MakeReplacement("p", row.options, {"on-demand"}));
    });
    BudgetLedger ledger = Ledger({{"p", 2}});
    ConsolidationResult r =
        ComputeMultiNodeConsolidation(input, ledger, sim, Catalog(), kNow);
    if (row.want.empty()) {
      CHECK(r.commands.empty());
      REQUIRE(r.verdicts.size() == 2);
      CHECK(r.verdicts[0].code == reasons::kNoCheaperReplacement);
    } else {
      REQUIRE(r.commands.size() == 1);
      CHECK(r.commands[0].replacements[0].instance_types == row.want);
      CHECK(RequirementValues(r.commands[0].replacements[0],
                              "node.kubernetes.io/instance-type") == row.want);
    }
  }
}

// Pool "s" with 20 spot types t00..t19 priced 0.01..0.20, and on-demand at
// 10x.
InstanceTypeCatalog SpotCatalog() {
  std::vector<InstanceType> types;
  for (int i = 0; i < 20; ++i) {
    types.push_back(
        MakeType(absl::StrFormat("t%02d", i), 0.1 * (i + 1), 0.01 * (i + 1)));
  }
  return InstanceTypeCatalog{{"s", types}};
}

std::vector<std::string> SpotTypes() {
  std::vector<std::string> out;
  for (int i = 19; i >= 0; --i) out.push_back(absl::StrFormat("t%02d", i));
  return out;
}

TEST_CASE("consolidation: spot-to-spot needs the gate and 15 cheaper options",
          "[consolidation]") {
  ScriptedSimulator sim([](const auto&) {
    return NeedsOne(MakeReplacement("s", SpotTypes(), {"spot"}));
  });
  struct Row {
    const char* what;
    bool gate;
    double price;  // of the spot candidate
    size_t want_types;
    absl::string_view message_part;
  };
  const Row rows[] = {
      {"gate off", false, 1.0, 0, "SpotToSpotConsolidation is disabled"},
      {"20 cheaper: truncated to 15", true, 1.0, 15, ""},
      {"exactly 15 cheaper", true, 0.155, 15, ""},
      {"14 cheaper", true, 0.145, 0,
       "requires 15 cheaper instance type "
       "options than the current candidate to "
       "consolidate, got 14"},
  };
  for (const Row& row : rows) {
    CAPTURE(row.what);
    ConsolidationOptions options;
    options.spot_to_spot = row.gate;
    BudgetLedger ledger = Ledger({{"s", 1}});
    ConsolidationResult r = ComputeSingleNodeConsolidation(
        {MakeCandidate("n1", "s", "big", row.price, "spot")}, ledger, sim,
        SpotCatalog(), kNow, options);
    if (row.want_types == 0) {
      CHECK(r.commands.empty());
      REQUIRE(r.verdicts.size() == 1);
      CHECK(r.verdicts[0].code == reasons::kNoCheaperReplacement);
      CHECK(absl::StrContains(r.verdicts[0].message, row.message_part));
      continue;
    }
    REQUIRE(r.commands.size() == 1);
    const Replacement& rep = r.commands[0].replacements[0];
    REQUIRE(rep.instance_types.size() == row.want_types);
    CHECK(rep.instance_types.front() == "t00");
    CHECK(rep.instance_types.back() == "t14");
    CHECK(rep.price == Approx(0.01));
    CHECK(RequirementValues(rep, "karpenter.sh/capacity-type") ==
          std::vector<std::string>{"spot"});
  }

  // Multi-node spot-to-spot has no 15-option rule.
  ConsolidationOptions on;
  on.spot_to_spot = true;
  ConsolidationAttempt multi = EvaluateConsolidation(
      std::vector<Candidate>{MakeCandidate("a", "s", "big", 0.02, "spot"),
                             MakeCandidate("b", "s", "big", 0.02, "spot")},
      Method::kMultiNodeConsolidation, sim, SpotCatalog(), on);
  REQUIRE(multi.command.has_value());
  CHECK(multi.command->replacements[0].instance_types ==
        std::vector<std::string>{"t00", "t01", "t02"});

  // A spot candidate whose replacement cannot be spot takes the normal
  // path, gate or not.
  ScriptedSimulator od([](const auto&) {
    return NeedsOne(MakeReplacement("s", {"t00", "t01"}, {"on-demand"}));
  });
  ConsolidationAttempt to_od = EvaluateConsolidation(
      std::vector<Candidate>{MakeCandidate("a", "s", "big", 0.15, "spot")},
      Method::kSingleNodeConsolidation, od, SpotCatalog());
  REQUIRE(to_od.command.has_value());
  CHECK(to_od.command->replacements[0].instance_types ==
        std::vector<std::string>{"t00"});
}

TEST_CASE("consolidation: single-node goes round robin across NodePools",
          "[consolidation]") {
  // Pool "b" holds the two best candidates; pools are visited in name order,
  // one candidate each per round.
  std::vector<Candidate> input = {
      MakeCandidate("b1", "b", "large", 0.9),
      MakeCandidate("b2", "b", "large", 0.8),
      MakeCandidate("b3", "b", "large", 0.7),
      MakeCandidate("a1", "a", "large", 0.5),
      MakeCandidate("c1", "c", "large", 0.3),
      MakeCandidate("a2", "a", "large", 0.4),
  };
  ScriptedSimulator sim(
      [](const auto&) { return DoesNotFit("ns/p: nowhere to go"); });
  BudgetLedger ledger = Ledger({{"a", 1}, {"b", 1}, {"c", 1}});
  ConsolidationResult r =
      ComputeSingleNodeConsolidation(input, ledger, sim, Catalog(), kNow);
  CHECK(r.commands.empty());
  std::vector<std::string> order;
  for (const auto& call : sim.calls) order.push_back(call.at(0));
  CHECK(order == std::vector<std::string>{"a1", "b1", "c1", "a2", "b2", "b3"});
  REQUIRE(r.verdicts.size() == 6);
  for (const NodeVerdict& v : r.verdicts)
    CHECK(v.code == reasons::kPodsDoNotFit);
}

TEST_CASE("consolidation: single-node skips exhausted pools, first hit wins",
          "[consolidation]") {
  std::vector<Candidate> input = {
      MakeCandidate("a1", "a", "large", 0.9),
      MakeCandidate("b1", "b", "large", 0.5),
      MakeCandidate("b2", "b", "large", 0.4),
      MakeCandidate("c1", "c", "large", 0.3),
  };
  // b1's pods do not fit; b2 and c1 could be deleted.
  ScriptedSimulator sim([](const std::vector<std::string>& names) {
    return names[0] == "b1" ? DoesNotFit("ns/p: full") : Fits();
  });
  BudgetLedger ledger = Ledger({{"a", 0}, {"b", 2}, {"c", 1}});
  ConsolidationResult r =
      ComputeSingleNodeConsolidation(input, ledger, sim, Catalog(), kNow);
  REQUIRE(r.commands.size() == 1);
  // Order: a1 (skipped), b1 (fails), c1 (wins), b2 (not tried).
  CHECK(NodeNames(r.commands[0]) == std::vector<std::string>{"c1"});
  CHECK(sim.calls.size() == 2);
  CHECK(VerdictOf(r, "a1")->code == reasons::kBudgetExhausted);
  CHECK(VerdictOf(r, "b1")->code == reasons::kPodsDoNotFit);
  CHECK(VerdictOf(r, "b2")->code == reasons::kNotSelected);
  CHECK(VerdictOf(r, "c1") == nullptr);
  CHECK(ledger.Remaining("a") == 0);
  CHECK(ledger.Remaining("b") == 2);
  CHECK(ledger.Remaining("c") == 0);
}

// A replace command for n1 (xlarge at 0.8) with small/medium/large.
Command ReplaceCommand() {
  ScriptedSimulator sim([](const auto&) {
    return NeedsOne(MakeReplacement("p", kAllTypes, {"on-demand"}));
  });
  BudgetLedger ledger = Ledger({{"p", 1}});
  ConsolidationResult r = ComputeSingleNodeConsolidation(
      {MakeCandidate("n1", "p", "xlarge", 0.8)}, ledger, sim, Catalog(), kNow);
  REQUIRE(r.commands.size() == 1);
  return r.commands[0];
}

TEST_CASE("consolidation: validation passes and refreshes the candidates",
          "[consolidation]") {
  const Command cmd = ReplaceCommand();
  REQUIRE(cmd.replacements[0].instance_types ==
          std::vector<std::string>{"small", "medium", "large"});
  Candidate fresh = MakeCandidate("n1", "p", "xlarge", 0.75);
  std::vector<Candidate> fresh_list = {MakeCandidate("n9", "p", "small", 0.1),
                                       fresh};
  ScriptedSimulator sim([](const auto&) {
    return NeedsOne(MakeReplacement("p", kAllTypes, {"on-demand"}));
  });
  BudgetLedger ledger = Ledger({{"p", 1}});
  absl::StatusOr<Command> valid =
      ValidateConsolidation(cmd, fresh_list, ledger, sim, *cmd.validate_at);
  REQUIRE(valid.ok());
  CHECK(valid->candidates.size() == 1);
  CHECK(valid->candidates[0].price == 0.75);
  CHECK_FALSE(valid->validate_at.has_value());
  CHECK(valid->replacements[0].instance_types ==
        cmd.replacements[0].instance_types);
  CHECK(ledger.Remaining("p") == 0);
}

TEST_CASE("consolidation: validation rejects churn, budget and scheduling",
          "[consolidation]") {
  const Command cmd = ReplaceCommand();
  const absl::Time at = *cmd.validate_at;
  const Candidate same = MakeCandidate("n1", "p", "xlarge", 0.8);
  auto replace_with = [](std::vector<std::string> types) {
    return [types](const auto&) {
      return NeedsOne(MakeReplacement("p", types, {"on-demand"}));
    };
  };
  struct Row {
    const char* what;
    std::vector<Candidate> fresh;
    int64_t budget;
    ScriptedSimulator::Answer answer;
    absl::string_view want_prefix;
  };
  Candidate other_claim = same;
  other_claim.node_claim_name = "n1-claim-2";
  Candidate retyped = same;
  retyped.instance_type = "large";
  Candidate blocked = same;
  blocked.consolidatable = false;
  const Row rows[] = {
      {"vanished", {}, 1, replace_with(kAllTypes), "churn: "},
      {"replaced NodeClaim",
       {other_claim},
       1,
       replace_with(kAllTypes),
       "churn: "},
      {"changed instance type",
       {retyped},
       1,
       replace_with(kAllTypes),
       "churn: "},
      {"no longer consolidatable",
       {blocked},
       1,
       replace_with(kAllTypes),
       "churn: "},
      {"budget", {same}, 0, replace_with(kAllTypes), "budget: "},
      {"pods no longer fit",
       {same},
       1,
       [](const auto&) { return DoesNotFit("ns/p: full"); },
       "scheduling: "},
      {"now a delete",
       {same},
       1,
       [](const auto&) { return Fits(); },
       "scheduling: "},
      {"two replacements",
       {same},
       1,
       [](const auto&) {
         SimulationResult s = Fits();
         s.new_node_claims = {MakeReplacement("p", {"small"}),
                              MakeReplacement("p", {"small"})};
         return s;
       },
       "scheduling: "},
      {"types not a subset",
       {same},
       1,
       replace_with({"medium", "large"}),
       "scheduling: "},
  };
  for (const Row& row : rows) {
    CAPTURE(row.what);
    ScriptedSimulator sim(row.answer);
    BudgetLedger ledger = Ledger({{"p", row.budget}});
    absl::StatusOr<Command> got =
        ValidateConsolidation(cmd, row.fresh, ledger, sim, at);
    REQUIRE_FALSE(got.ok());
    CHECK(got.status().code() == absl::StatusCode::kFailedPrecondition);
    CHECK(absl::string_view(got.status().message())
              .substr(0, row.want_prefix.size()) == row.want_prefix);
  }

  // A delete that becomes a replace is rejected too.
  Command del = cmd;
  del.replacements.clear();
  ScriptedSimulator sim(replace_with(kAllTypes));
  BudgetLedger ledger = Ledger({{"p", 1}});
  auto got = ValidateConsolidation(del, {same}, ledger, sim, at);
  REQUIRE_FALSE(got.ok());
  CHECK(got.status().message().find("scheduling: ") == 0);
}

TEST_CASE("consolidation: validation rejects bad input", "[consolidation]") {
  const Command cmd = ReplaceCommand();
  const Candidate same = MakeCandidate("n1", "p", "xlarge", 0.8);
  ScriptedSimulator sim([](const auto&) { return Fits(); });
  BudgetLedger ledger = Ledger({{"p", 1}});
  auto early = ValidateConsolidation(cmd, {same}, ledger, sim,
                                     *cmd.validate_at - absl::Seconds(1));
  CHECK(early.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(early.status().message().find("validate_at") != std::string::npos);
  Command drift = cmd;
  drift.method = Method::kDrift;
  auto wrong = ValidateConsolidation(drift, {same}, ledger, sim, kNow);
  CHECK(wrong.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(wrong.status().message().find("\"Drift\"") != std::string::npos);
  Command empty = cmd;
  empty.candidates.clear();
  CHECK(
      ValidateConsolidation(empty, {same}, ledger, sim, kNow).status().code() ==
      absl::StatusCode::kInvalidArgument);
  CHECK(sim.calls.empty());
  CHECK(ledger.Remaining("p") == 1);
}

TEST_CASE("consolidation: same input gives the same commands",
          "[consolidation]") {
  // Equal SavingsRatio everywhere: the tie-breaks decide.
  std::vector<Candidate> input;
  for (const char* name : {"n4", "n2", "n5", "n1", "n3"}) {
    input.push_back(
        MakeCandidate(name, name[1] < '3' ? "p" : "q", "large", 0.4));
  }
  auto answer = [](const std::vector<std::string>& names) {
    return names.size() <= 3
               ? NeedsOne(MakeReplacement("p", kAllTypes, {"on-demand"}))
               : DoesNotFit("ns/p: full");
  };
  auto run = [&](std::vector<Candidate> in, bool multi) {
    ScriptedSimulator sim(answer);
    BudgetLedger ledger = Ledger({{"p", 5}, {"q", 5}});
    return multi
               ? ComputeMultiNodeConsolidation(in, ledger, sim, Catalog(), kNow)
               : ComputeSingleNodeConsolidation(in, ledger, sim, Catalog(),
                                                kNow);
  };
  for (bool multi : {true, false}) {
    CAPTURE(multi);
    ConsolidationResult first = run(input, multi);
    std::vector<Candidate> shuffled(input.rbegin(), input.rend());
    for (const auto& again : {run(input, multi), run(shuffled, multi)}) {
      REQUIRE(first.commands.size() == 1);
      REQUIRE(again.commands.size() == 1);
      CHECK(NodeNames(again.commands[0]) == NodeNames(first.commands[0]));
      CHECK(again.commands[0].explanation == first.commands[0].explanation);
      CHECK(again.commands[0].replacements[0].instance_types ==
            first.commands[0].replacements[0].instance_types);
      REQUIRE(again.verdicts.size() == first.verdicts.size());
      for (size_t i = 0; i < first.verdicts.size(); ++i) {
        CHECK(again.verdicts[i].node == first.verdicts[i].node);
        CHECK(again.verdicts[i].code == first.verdicts[i].code);
      }
    }
  }
  // Ties break by name: n1, n2, n3 for multi (3 fit).
  ConsolidationResult multi = run(input, true);
  CHECK(NodeNames(multi.commands[0]) ==
        std::vector<std::string>{"n1", "n2", "n3"});
}

}  // namespace
}  // namespace karpenter::disruption::consolidation_test
