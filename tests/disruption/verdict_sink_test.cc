// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The verdict plumbing shared by the methods and the controller.

#include "disruption/verdict_sink.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/time/time.h"

namespace karpenter::disruption::internal {
namespace {

TEST_CASE("verdict sink: FormatUtc writes what absl::FormatTime writes",
          "[disruption]") {
  const absl::Time base = absl::FromUnixSeconds(1704067200);  // 2024-01-01
  const std::vector<absl::Time> times = {
      base,
      base + absl::Nanoseconds(1),
      base + absl::Milliseconds(120),
      base + absl::Seconds(59) + absl::Nanoseconds(999999999),
      base - absl::Hours(24 * 366),
      absl::FromUnixSeconds(0),
      absl::FromUnixSeconds(-62135596800 + 3600),  // year 1
      absl::FromUnixSeconds(253402300799),         // 9999-12-31T23:59:59
      absl::FromUnixSeconds(253402300800),         // year 10000
      absl::InfiniteFuture(),
      absl::InfinitePast(),
  };
  for (absl::Time t : times) {
    const std::string want =
        absl::FormatTime("%Y-%m-%d%ET%H:%M:%E*SZ", t, absl::UTCTimeZone());
    CAPTURE(want);
    CHECK(FormatUtc(t) == want);
  }
  CHECK(FormatUtc(base + absl::Milliseconds(120)) == "2024-01-01T00:00:00.12Z");
}

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
