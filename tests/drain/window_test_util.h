// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Shared by the do-not-disrupt window tests (tests/drain and
// tests/disruption): the two annotations of a window, and instants written
// as RFC 3339.
#ifndef KARPENTER_TESTS_DRAIN_WINDOW_TEST_UTIL_H_
#define KARPENTER_TESTS_DRAIN_WINDOW_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <string>

#include "absl/time/time.h"
#include "karpenter/testing/builders.h"
#include "karpenter/well_known.h"

namespace karpenter::window_test {

inline const std::string kSchedule(
    well_known::kDoNotDisruptScheduleAnnotationKey);
inline const std::string kDuration(
    well_known::kDoNotDisruptDurationAnnotationKey);

// The schedule and duration annotations of one window.
inline testing::Labels Window(const std::string& schedule,
                              const std::string& duration) {
  return {{kSchedule, schedule}, {kDuration, duration}};
}

// `rfc3339` as an instant; fails the test when it does not parse.
inline absl::Time At(const std::string& rfc3339) {
  absl::Time t;
  std::string err;
  REQUIRE(absl::ParseTime(absl::RFC3339_full, rfc3339, &t, &err));
  return t;
}

}  // namespace karpenter::window_test

#endif  // KARPENTER_TESTS_DRAIN_WINDOW_TEST_UTIL_H_
