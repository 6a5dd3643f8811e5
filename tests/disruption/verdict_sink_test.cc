// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The verdict plumbing shared by the methods and the controller.

#include "disruption/verdict_sink.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace karpenter::disruption::internal {
namespace {

TEST_CASE(
    "verdict sink: ranks order not-applicable, stopped, excluded, "
    "commanded",
    "[disruption]") {
  CHECK(VerdictRank(reasons::kNotExpired) == VerdictRank(reasons::kNotEmpty));
  CHECK(VerdictRank(reasons::kNotEmpty) <
        VerdictRank(reasons::kConsolidationDisabled));
  CHECK(VerdictRank(reasons::kConsolidationDisabled) <
        VerdictRank(reasons::kBudgetExhausted));
  CHECK(VerdictRank(reasons::kBudgetExhausted) ==
        VerdictRank(reasons::kPodDoNotDisrupt));
  CHECK(VerdictRank(reasons::kPodDoNotDisrupt) <
        VerdictRank(reasons::kCommanded));
}

TEST_CASE(
    "verdict sink: the collecting sink keeps every verdict, stably "
    "sorted by name",
    "[disruption]") {
  Candidate b;
  b.node_name = "b";
  b.node_claim_name = "b-claim";
  Candidate claim_only;
  claim_only.has_node = false;
  claim_only.node_claim_name = "a-claim";
  CollectingSink sink;
  int messages = 0;
  Emit(sink, b, Method::kDrift, reasons::kNotDrifted, [&] {
    ++messages;
    return std::string("first");
  });
  Emit(sink, b, Method::kEmptiness, reasons::kNotEmpty, [&] {
    ++messages;
    return std::string("second");
  });
  Emit(sink, claim_only, Method::kExpiration, reasons::kNotExpired, [&] {
    ++messages;
    return std::string("third");
  });
  CHECK(messages == 3);
  const std::vector<NodeVerdict> v = std::move(sink).Take();
  REQUIRE(v.size() == 3);
  CHECK(v[0].node == "a-claim");
  CHECK(v[0].node_claim == "a-claim");
  CHECK(v[1].message == "first");
  CHECK(v[2].message == "second");
  CHECK(v[2].method == Method::kEmptiness);
}

}  // namespace
}  // namespace karpenter::disruption::internal
