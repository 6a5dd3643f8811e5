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
