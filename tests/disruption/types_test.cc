// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#include "karpenter/disruption/types.h"

#include <catch2/catch.hpp>

namespace karpenter::disruption {
namespace {

TEST_CASE("disruption types: methods keep Karpenter's order, class and reason",
          "[disruption]") {
  struct Row {
    Method method;
    absl::string_view name;
    MethodClass cls;
    std::optional<budget::DisruptionReason> reason;
  };
  const Row rows[] = {
      {Method::kNodePoolDeleted, "NodePoolDeleted", MethodClass::kForceful,
       std::nullopt},
      {Method::kExpiration, "Expiration", MethodClass::kForceful, std::nullopt},
      {Method::kEmptiness, "Emptiness", MethodClass::kGraceful,
       budget::DisruptionReason::kEmpty},
      {Method::kStaticDrift, "StaticDrift", MethodClass::kEventual,
       budget::DisruptionReason::kDrifted},
      {Method::kDrift, "Drift", MethodClass::kEventual,
       budget::DisruptionReason::kDrifted},
      {Method::kMultiNodeConsolidation, "MultiNodeConsolidation",
       MethodClass::kGraceful, budget::DisruptionReason::kUnderutilized},
      {Method::kSingleNodeConsolidation, "SingleNodeConsolidation",
       MethodClass::kGraceful, budget::DisruptionReason::kUnderutilized},
  };
  REQUIRE(std::size(kAllMethods) == std::size(rows));
  for (size_t i = 0; i < std::size(rows); ++i) {
    CAPTURE(rows[i].name);
    CHECK(kAllMethods[i] == rows[i].method);
    CHECK(MethodName(rows[i].method) == rows[i].name);
    CHECK(ClassOf(rows[i].method) == rows[i].cls);
    CHECK(BudgetReasonOf(rows[i].method) == rows[i].reason);
  }
}

TEST_CASE("disruption types: a command's decision follows its replacements",
          "[disruption]") {
  Command command;
  CHECK(command.decision() == Decision::kNoOp);
  command.candidates.push_back(Candidate{.node_name = "n1"});
  CHECK(command.decision() == Decision::kDelete);
  command.replacements.push_back(Replacement{.node_pool = "default"});
  CHECK(command.decision() == Decision::kReplace);
  CHECK(DecisionName(command.decision()) == "Replace");
  CHECK(Candidate{.reschedule_disruption_cost = 1.0}.IsEmpty());
  CHECK_FALSE(Candidate{.reschedule_disruption_cost = 1.5}.IsEmpty());
  CHECK(Candidate{.price = 3.0, .reschedule_disruption_cost = 1.5}
            .SavingsRatio() == 2.0);
}

}  // namespace
}  // namespace karpenter::disruption

namespace karpenter::disruption {
namespace {

Candidate Make(absl::string_view name, double price, double reschedule_cost,
               double disruption_cost = 0, int64_t created_s = 0) {
  Candidate c;
  c.node_name = std::string(name);
  c.price = price;
  c.reschedule_disruption_cost = reschedule_cost;
  c.disruption_cost = disruption_cost;
  c.created = absl::FromUnixSeconds(created_s);
  return c;
}

std::vector<std::string> Names(const std::vector<Candidate>& cs) {
  std::vector<std::string> out;
  for (const Candidate& c : cs) out.push_back(c.node_name);
  return out;
}

TEST_CASE(
    "disruption types: consolidation sort is savings-descending with "
    "documented tie-breaks",
    "[disruption]") {
  std::vector<Candidate> cs = {
      Make("d", 1.0, 2.0),           // ratio 0.5
      Make("c", 1.0, 1.0, 3.0, 10),  // ratio 1, cost 3
      Make("b", 1.0, 1.0, 2.0, 20),  // ratio 1, cost 2, newer
      Make("a", 1.0, 1.0, 2.0, 10),  // ratio 1, cost 2, older
      Make("e", 1.0, 1.0, 2.0, 10),  // same as a but name e
      Make("f", 4.0, 2.0),           // ratio 2
  };
  SortForConsolidation(cs);
  CHECK(Names(cs) == std::vector<std::string>{"f", "a", "e", "b", "c", "d"});
}

TEST_CASE("disruption types: drift sort is oldest drift first, empty first",
          "[disruption]") {
  auto make = [](absl::string_view name, std::optional<int64_t> since,
                 bool empty) {
    Candidate c;
    c.node_name = std::string(name);
    if (since) c.drifted_since = absl::FromUnixSeconds(*since);
    if (!empty) c.reschedulable_pods = {7};
    return c;
  };
  std::vector<Candidate> cs = {
      make("full-old", 1, false),   make("empty-new", 50, true),
      make("full-new", 40, false),  make("empty-old", 5, true),
      make("empty-tie-b", 5, true), make("undrifted", std::nullopt, true)};
  SortForDrift(cs);
  CHECK(Names(cs) == std::vector<std::string>{"empty-old", "empty-tie-b",
                                              "empty-new", "undrifted",
                                              "full-old", "full-new"});
}

TEST_CASE(
    "disruption types: the budget ledger decrements and reads missing "
    "pools as zero",
    "[disruption]") {
  BudgetLedger ledger;
  ledger.Set("a", 2);
  ledger.Set("neg", -3);
  CHECK(ledger.Remaining("a") == 2);
  CHECK(ledger.Remaining("neg") == 0);
  CHECK(ledger.Remaining("missing") == 0);
  CHECK(ledger.TryTake("a"));
  CHECK(ledger.TryTake("a"));
  CHECK_FALSE(ledger.TryTake("a"));
  CHECK_FALSE(ledger.TryTake("missing"));
  CHECK(ledger.Remaining("a") == 0);
  CHECK(ledger.Describe("a") == "0 left in NodePool \"a\"");

  budget::BudgetMapping mapping;
  mapping.node_pools.emplace_back();
  mapping.node_pools.back().node_pool.assign(1, 'p');
  mapping.node_pools.back().remaining = {1, 2, 3};
  CHECK(BudgetLedger::FromMapping(mapping, budget::DisruptionReason::kDrifted)
            .Remaining("p") == 3);
  CHECK(BudgetLedger::FromMapping(mapping, budget::DisruptionReason::kEmpty)
            .Remaining("p") == 2);
}

}  // namespace
}  // namespace karpenter::disruption
