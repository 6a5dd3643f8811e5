// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/testing/fake_clock.h"

#include <catch2/catch.hpp>

#include "karpenter/clock.h"

namespace karpenter::testing {
namespace {

TEST_CASE("FakeClock stands still until moved", "[clock]") {
  const absl::Time start = absl::FromUnixSeconds(1700000000);
  FakeClock clock(start);
  CHECK(clock.Now() == start);
  REQUIRE(clock.Advance(absl::Seconds(90)).ok());
  CHECK(clock.Now() == start + absl::Seconds(90));
  REQUIRE(clock.SetTime(start + absl::Hours(1)).ok());
  CHECK(clock.Now() == start + absl::Hours(1));
}

TEST_CASE("FakeClock refuses to run backwards", "[clock]") {
  const absl::Time start = absl::FromUnixSeconds(1700000000);
  FakeClock clock(start);
  absl::Status s = clock.SetTime(start - absl::Seconds(1));
  CHECK(absl::IsInvalidArgument(s));
  CHECK(s.message().find("before the current time") != absl::string_view::npos);
  CHECK(absl::IsInvalidArgument(clock.Advance(absl::Seconds(-1))));
  CHECK(absl::IsInvalidArgument(clock.Advance(absl::InfiniteDuration())));
  CHECK(clock.Now() == start);
}

TEST_CASE("RealClock tracks absl::Now", "[clock]") {
  const absl::Time before = absl::Now();
  const absl::Time t = RealClock().Now();
  CHECK(t >= before);
  CHECK(&RealClock() == &RealClock());
}

}  // namespace
}  // namespace karpenter::testing
