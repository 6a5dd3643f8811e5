// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Catch2 glue for the test kit (karpenter/testing/builders.h), shared by the
// suite: a Snapshot of objects the test built, failing the test case (with
// the error) if they do not build; a FakeCluster on a FakeClock.

#ifndef KARPENTER_TESTS_TESTING_KIT_TEST_UTIL_H_
#define KARPENTER_TESTS_TESTING_KIT_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <memory>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/testing/builders.h"
#include "karpenter/testing/fake_clock.h"
#include "karpenter/testing/fake_cluster.h"

namespace karpenter::kit_test {

// snapshot::Snapshot::Build(objects); REQUIREs that it succeeds.
inline snapshot::Snapshot MustBuildSnapshot(snapshot::ObjectSet objects) {
  absl::StatusOr<snapshot::Snapshot> s =
      snapshot::Snapshot::Build(std::move(objects));
  INFO(s.status().ToString());
  REQUIRE(s.ok());
  return *std::move(s);
}

// A FakeCluster of `objects` on a FakeClock at testing::kTestEpoch; the
// constructor REQUIREs that FakeCluster::Create succeeds. Test files extend
// it with their own helpers (struct Env : FakeClusterEnv { ... }).
struct FakeClusterEnv {
  testing::FakeClock clock{testing::kTestEpoch};
  std::unique_ptr<testing::FakeCluster> cluster;

  explicit FakeClusterEnv(snapshot::ObjectSet objects,
                          testing::FakeClusterOptions options = {}) {
    auto created =
        testing::FakeCluster::Create(std::move(objects), clock, options);
    INFO(created.status().ToString());
    REQUIRE(created.ok());
    cluster = *std::move(created);
  }
  // Runs the cluster until `since_epoch` after testing::kTestEpoch.
  void RunTo(absl::Duration since_epoch) {
    REQUIRE(cluster->RunUntil(clock, testing::kTestEpoch + since_epoch).ok());
  }
};

}  // namespace karpenter::kit_test

#endif  // KARPENTER_TESTS_TESTING_KIT_TEST_UTIL_H_
