// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The Controller with NodeClaims whose NodePool is not in the snapshot: one
// command per NodeClaim at most, and MethodOptions::node_pools_complete.

#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "controller_test_util.h"
#include "karpenter/disruption/methods.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace karpenter::disruption::controller_test {
namespace {

// Every NodeClaim named by the plan's commands, counted once per command.
std::vector<std::string> CommandedClaims(const Plan& plan) {
  std::vector<std::string> out;
  for (const Command& c : plan.commands) {
    for (const Candidate& cand : c.candidates) {
      out.push_back(cand.node_claim_name);
    }
  }
  return out;
}

// A snapshot as a dump without NodePools reads: the claims name NodePool
// "gone", one of them expired, one not, one without a Node.
World OrphanWorld() {
  World w;
  w.Pool()
      .BusyNode({.name = "a-expired", .nodepool = "gone"},
                {.created = kT0 - absl::Hours(2), .expire_after = "1h"})
      .BusyNode({.name = "b-young", .nodepool = "gone"},
                {.created = kT0 - absl::Hours(2), .expire_after = "720h"})
      .BusyNode({.name = "c-kept-expired"},
                {.created = kT0 - absl::Hours(2), .expire_after = "1h"});
  return w;
}

TEST_CASE(
    "controller: an orphaned NodeClaim that has also expired gets one "
    "command",
    "[controller][audit]") {
  World w = OrphanWorld();
  const Plan plan = w.Decide();
  const std::vector<std::string> claims = CommandedClaims(plan);
  CHECK(std::set<std::string>(claims.begin(), claims.end()).size() ==
        claims.size());
  // NodePoolDeleted runs first and keeps the claim; expiration still takes
  // the claim of an existing NodePool.
  CHECK(CommandSummary(plan) ==
        std::vector<std::string>{"NodePoolDeleted:a-expired",
                                 "NodePoolDeleted:b-young",
                                 "Expiration:c-kept-expired"});
  REQUIRE(plan.VerdictOf("a-expired") != nullptr);
  CHECK(plan.VerdictOf("a-expired")->method == Method::kNodePoolDeleted);
  CHECK(CodeOf(plan, "a-expired") == reasons::kCommanded);
}

TEST_CASE("controller: node_pools_complete false plans no NodePoolDeleted",
          "[controller][audit]") {
  World w = OrphanWorld();
  ControllerOptions options;
  options.methods.node_pools_complete = false;
  options.methods.missing_node_pool_hint = "say the snapshot is complete";
  const Plan plan = w.Decide(options);
  // Expiration is the NodeClaim's own rule and still applies.
  CHECK(CommandSummary(plan) ==
        std::vector<std::string>{"Expiration:a-expired",
                                 "Expiration:c-kept-expired"});
  REQUIRE(plan.VerdictOf("b-young") != nullptr);
  const NodeVerdict& v = *plan.VerdictOf("b-young");
  CHECK(v.code == reasons::kNodePoolNotFound);
  CHECK(v.node_pool == "gone");
  CHECK(absl::StrContains(v.message, "NodePool \"gone\" is not in the"));
  CHECK(absl::StrContains(v.message, "not deleted"));
  CHECK(absl::EndsWith(v.message, "; say the snapshot is complete"));
}

TEST_CASE("ComputeNodePoolDeleted honours node_pools_complete",
          "[controller][audit]") {
  World w = OrphanWorld();
  w.Build();
  CandidateContext ctx;
  ctx.snapshot = &*w.snapshot;
  ctx.now = kT0;
  absl::StatusOr<CandidatePool> pool = CandidatePool::Build(ctx);
  REQUIRE(pool.ok());
  const MethodResult all = ComputeNodePoolDeleted(*pool);
  CHECK(all.commands.size() == 2);
  MethodOptions partial;
  partial.node_pools_complete = false;
  const MethodResult none = ComputeNodePoolDeleted(*pool, partial);
  CHECK(none.commands.empty());
  REQUIRE(none.verdicts.size() == 2);
  for (const NodeVerdict& v : none.verdicts) {
    CHECK(v.code == reasons::kNodePoolNotFound);
    CHECK(v.message ==
          "NodePool \"gone\" is not in the snapshot, which may not hold the "
          "whole cluster: its NodeClaims are not deleted");
  }
}

}  // namespace
}  // namespace karpenter::disruption::controller_test

#pragma GCC diagnostic pop
