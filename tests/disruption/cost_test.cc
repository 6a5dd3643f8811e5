// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#include "karpenter/disruption/cost.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <optional>
#include <string>

#include "candidates_test_util.h"

namespace karpenter::disruption {
namespace {

using test::kT0;

TEST_CASE("cost: eviction cost formula, clamps and bad annotations",
          "[disruption]") {
  struct Row {
    std::optional<std::string> deletion_cost;
    std::optional<int32_t> priority;
    double want;
  };
  const double k27 = 134217728.0;
  const double k25 = 33554432.0;
  const Row rows[] = {
      {std::nullopt, std::nullopt, 1.0},
      {"0", std::nullopt, 1.0},
      {"134217728", std::nullopt, 2.0},
      {"-134217728", std::nullopt, 0.0},
      {"67108864.5", std::nullopt, 1.0 + 67108864.5 / k27},
      {"+1e8", std::nullopt, 1.0 + 1e8 / k27},
      {std::nullopt, 33554432, 2.0},
      {std::nullopt, -33554432, 0.0},
      {std::nullopt, 1000000000, 10.0},        // 1 + 29.8 clamps to 10.
      {std::nullopt, -2147483647 - 1, -10.0},  // Clamps to -10.
      {"2147483647", 1000, std::min(10.0, 1.0 + 2147483647 / k27 + 1000 / k25)},
      {"-2147483648", std::nullopt, -10.0},  // 1 - 16 clamps.
      {"Inf", std::nullopt, 10.0},
      {"-infinity", std::nullopt, -10.0},
      // Unparsable values drop the term (Karpenter logs and ignores them).
      {"abc", 33554432, 2.0},
      {"", std::nullopt, 1.0},
      {" 5", std::nullopt, 1.0},
      {"5 ", std::nullopt, 1.0},
      {"NaN", std::nullopt, 1.0},
      {"1e400", std::nullopt, 1.0},
      {"0x10", std::nullopt, 1.0},
      {"1_000", std::nullopt, 1.0},
      {"1e", std::nullopt, 1.0},
  };
  for (const Row& row : rows) {
    CAPTURE(row.deletion_cost.value_or("<none>"), row.priority.value_or(0));
    testing::PodOptions o;
    if (row.deletion_cost.has_value()) {
      o.annotations = {
          {"controller.kubernetes.io/pod-deletion-cost", *row.deletion_cost}};
    }
    o.priority = row.priority;
    CHECK(EvictionCost(testing::MakePod(o)) == Approx(row.want).margin(1e-12));
  }
}

TEST_CASE("cost: pod-deletion-cost parse errors quote the value",
          "[disruption]") {
  CHECK(*ParsePodDeletionCost("-12.5") == -12.5);
  CHECK(*ParsePodDeletionCost(".5") == 0.5);
  CHECK(*ParsePodDeletionCost("5.") == 5.0);
  absl::StatusOr<double> bad = ParsePodDeletionCost("twelve");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(bad.status().message()),
             Catch::Contains("\"twelve\"") &&
                 Catch::Contains("controller.kubernetes.io/pod-deletion-cost"));
}

TEST_CASE("cost: lifetime remaining from the NodeClaim's expireAfter",
          "[disruption]") {
  struct Row {
    std::optional<std::string> expire_after;
    absl::Duration age;
    double want;
  };
  const Row rows[] = {
      {std::nullopt, absl::Hours(100), 1.0},
      {"Never", absl::Hours(100), 1.0},
      {"10h", absl::ZeroDuration(), 1.0},
      {"10h", absl::Hours(1), 0.9},
      {"10h", absl::Hours(5), 0.5},
      {"10h", absl::Hours(10), 0.0},
      {"10h", absl::Hours(30), 0.0},
      {"10h", -absl::Hours(1), 1.0},  // Clock skew: created in the future.
      {"0s", absl::ZeroDuration(), 0.0},
      {"bogus", absl::Hours(5), 1.0},  // Unparsable reads as Never.
  };
  for (const Row& row : rows) {
    CAPTURE(row.expire_after.value_or("<none>"), row.age);
    test::ClaimOpts o;
    o.created = kT0 - row.age;
    o.expire_after = row.expire_after;
    const v1::NodeClaim claim = test::MakeClaim("n", "default", o);
    CHECK(LifetimeRemaining(claim, kT0) == Approx(row.want).margin(1e-12));
  }
}

TEST_CASE("cost: ExpireAfterOf reports an unparsable expireAfter",
          "[disruption]") {
  test::ClaimOpts o;
  o.expire_after = "3d";
  absl::StatusOr<std::optional<absl::Duration>> got =
      ExpireAfterOf(test::MakeClaim("n", "default", o));
  REQUIRE_FALSE(got.ok());
  CHECK_THAT(std::string(got.status().message()),
             Catch::Contains("spec.expireAfter") && Catch::Contains("3d"));
  o.expire_after = "720h";
  got = ExpireAfterOf(test::MakeClaim("n", "default", o));
  REQUIRE(got.ok());
  CHECK(*got == absl::Hours(720));
  o.expire_after = "Never";
  got = ExpireAfterOf(test::MakeClaim("n", "default", o));
  REQUIRE(got.ok());
  CHECK(!got->has_value());
}

TEST_CASE("cost: a v1beta1 NodePool's expireAfter applies to bare claims",
          "[disruption][output-fixes]") {
  v1::NodePool pool;
  pool.set_api_version("karpenter.sh/v1beta1");
  pool.mutable_metadata()->set_name("legacy");
  pool.mutable_spec()->mutable_disruption()->set_expire_after("168h");
  test::ClaimOpts o;
  const v1::NodeClaim bare = test::MakeClaim("n", "legacy", o);
  REQUIRE_FALSE(bare.spec().has_expire_after());
  absl::StatusOr<std::optional<absl::Duration>> got =
      ExpireAfterOf(bare, &pool);
  REQUIRE(got.ok());
  CHECK(*got == absl::Hours(168));
  // Without the NodePool, or with the claim's own value, the claim decides.
  got = ExpireAfterOf(bare, nullptr);
  REQUIRE(got.ok());
  CHECK(!got->has_value());
  o.expire_after = "Never";
  got = ExpireAfterOf(test::MakeClaim("n", "legacy", o), &pool);
  REQUIRE(got.ok());
  CHECK(!got->has_value());
  // A v1 NodePool (no spec.disruption.expireAfter) adds nothing.
  v1::NodePool v1_pool;
  v1_pool.mutable_spec()->mutable_template_()->mutable_spec()->set_expire_after(
      "24h");
  got = ExpireAfterOf(bare, &v1_pool);
  REQUIRE(got.ok());
  CHECK(!got->has_value());
  // A bad NodePool value names the NodePool and its field.
  pool.mutable_spec()->mutable_disruption()->set_expire_after("2w");
  got = ExpireAfterOf(bare, &pool);
  REQUIRE_FALSE(got.ok());
  CHECK_THAT(
      std::string(got.status().message()),
      Catch::Contains("NodePool \"legacy\" spec.disruption.expireAfter") &&
          Catch::Contains("2w"));
}

}  // namespace
}  // namespace karpenter::disruption
