// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Catch2 glue for the test kit (karpenter/testing/builders.h), shared by the
// suite: a Snapshot of objects the test built, failing the test case (with
// the error) if they do not build.

#ifndef KARPENTER_TESTS_TESTING_KIT_TEST_UTIL_H_
#define KARPENTER_TESTS_TESTING_KIT_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <utility>

#include "absl/status/statusor.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"

namespace karpenter::kit_test {

// snapshot::Snapshot::Build(objects); REQUIREs that it succeeds.
inline snapshot::Snapshot MustBuildSnapshot(snapshot::ObjectSet objects) {
  absl::StatusOr<snapshot::Snapshot> s =
      snapshot::Snapshot::Build(std::move(objects));
  INFO(s.status().ToString());
  REQUIRE(s.ok());
  return *std::move(s);
}

}  // namespace karpenter::kit_test

#endif  // KARPENTER_TESTS_TESTING_KIT_TEST_UTIL_H_
