// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/budget/allowed.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "karpenter/budget/disruption_spec.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/testing/builders.h"

namespace karpenter::budget {
namespace {

constexpr DisruptionReason kUnder = DisruptionReason::kUnderutilized;
constexpr DisruptionReason kEmpty = DisruptionReason::kEmpty;
constexpr DisruptionReason kDrifted = DisruptionReason::kDrifted;

absl::Time Utc(int y, int mo, int d, int h, int mi, int s = 0) {
  return absl::FromCivil(absl::CivilSecond(y, mo, d, h, mi, s),
                         absl::UTCTimeZone());
}

// 2024-01-02 10:00 UTC, a Tuesday.
const absl::Time kTue10 = Utc(2024, 1, 2, 10, 0);

v1::NodePool PoolWithBudgets(const std::string& name,
                             const std::string& budgets) {
  snapshot::ObjectSet set;
  std::string yaml = absl::StrCat(
      "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: ", name,
      "}\nspec:\n  disruption: {}\n");
  if (!budgets.empty()) {
    yaml =
        absl::StrCat("apiVersion: karpenter.sh/v1\nkind: NodePool\n",
                     "metadata: {name: ", name,
                     "}\nspec:\n  disruption:\n    budgets: ", budgets, "\n");
  }
  const absl::Status st = snapshot::LoadYaml(yaml, "test", set);
  INFO(st.ToString());
  REQUIRE(st.ok());
  REQUIRE(set.node_pools.size() == 1);
  return set.node_pools[0];
}

DisruptionSpec Spec(const std::string& budgets,
                    const BudgetOptions& options = {}) {
  absl::StatusOr<DisruptionSpec> spec =
      ParseDisruptionSpec(PoolWithBudgets("p", budgets), options);
  INFO(spec.status().ToString());
  REQUIRE(spec.ok());
  return *std::move(spec);
}

struct AllowedCase {
  std::string budgets;  // Flow YAML; "" = field absent.
  int64_t num_nodes;
  absl::Time now;
  int64_t under, empty, drifted;
};

TEST_CASE("budget allowed: per reason over budgets", "[budget]") {
  const int64_t max = kUnlimited;
  const AllowedCase cases[] = {
      {"[{nodes: '5%'}]", 10, kTue10, 1, 1, 1},
      {"[{nodes: '100%'}]", 10, kTue10, 10, 10, 10},
      {"[{nodes: '50%'}]", 3, kTue10, 2, 2, 2},  // Rounds up.
      {"[{nodes: '0%'}]", 10, kTue10, 0, 0, 0},
      {"[{nodes: '0'}]", 10, kTue10, 0, 0, 0},
      {"[{nodes: '25'}]", 10, kTue10, 25, 25, 25},  // Not capped.
      {"", 10, kTue10, 1, 1, 1},                    // Default 10%.
      {"", 0, kTue10, 0, 0, 0},
      {"[]", 10, kTue10, max, max, max},  // Explicit empty: unlimited.
      {"[{nodes: '3', reasons: [Drifted]}]", 10, kTue10, max, max, 3},
      {"[{nodes: '3', reasons: []}]", 10, kTue10, max, max, max},
      {"[{nodes: '5'}, {nodes: '2', reasons: [Empty]},"
       " {nodes: '10%', reasons: [Underutilized, Drifted]}]",
       40, kTue10, 4, 2, 4},
      // Business-hours budget: 0 while active, otherwise only the 10% one.
      {"[{nodes: '10%'}, {nodes: '0', schedule: '0 9 * * mon-fri',"
       " duration: 8h}]",
       10, kTue10, 0, 0, 0},
      {"[{nodes: '10%'}, {nodes: '0', schedule: '0 9 * * mon-fri',"
       " duration: 8h}]",
       10, Utc(2024, 1, 2, 17, 0), 1, 1, 1},
      {"[{nodes: '0', schedule: '0 9 * * mon-fri', duration: 8h}]", 10,
       Utc(2024, 1, 2, 17, 0), max, max, max},
      {"[{nodes: '0', schedule: '0 0 31 2 *', duration: 1h}]", 10, kTue10, 0, 0,
       0},  // Never fires: always active.
      {"[{nodes: '0', schedule: '0 10 * * *', duration: 0m}]", 10, kTue10, max,
       max, max},  // Zero duration: never active.
      // A bad cron restricted to Drifted blocks every reason.
      {"[{nodes: '5'}, {nodes: '5', schedule: '0 0 * * 7', duration: 1h,"
       " reasons: [Drifted]}]",
       10, kTue10, 0, 0, 0},
      {"[{nodes: '5'}, {nodes: '5', schedule: 'CRON_TZ=UTC 0 9 * * *',"
       " duration: 1h, reasons: []}]",
       10, kTue10, 0, 0, 0},
      // A bad nodes value only matters while its budget is active.
      {"[{nodes: '99999999999999999999'}]", 10, kTue10, 0, 0, 0},
      {"[{nodes: '99999999999999999999', schedule: '0 9 * * *',"
       " duration: 1h}]",
       10, Utc(2024, 1, 2, 12, 0), max, max, max},
  };
  for (const AllowedCase& c : cases) {
    INFO(c.budgets << " over " << c.num_nodes << " at " << c.now);
    const DisruptionSpec spec = Spec(c.budgets);
    CHECK(AllowedDisruptions(spec, kUnder, c.num_nodes, c.now) == c.under);
    CHECK(AllowedDisruptions(spec, kEmpty, c.num_nodes, c.now) == c.empty);
    CHECK(AllowedDisruptions(spec, kDrifted, c.num_nodes, c.now) == c.drifted);
  }
}

TEST_CASE("budget allowed: explanations name the limiting budget", "[budget]") {
  const DisruptionSpec spec = Spec(
      "[{nodes: '5'}, {nodes: '2', reasons: [Empty]},"
      " {nodes: '0', schedule: '0 9 * * *', duration: 1h,"
      " reasons: [Drifted]}]");
  const Allowance empty = ExplainAllowedDisruptions(spec, kEmpty, 10, kTue10);
  CHECK(empty.allowed == 2);
  CHECK(empty.limiting_budget == 1);
  CHECK(empty.why == "budgets[1] nodes \"2\" of 10 nodes = 2");

  const Allowance drifted =
      ExplainAllowedDisruptions(spec, kDrifted, 10, kTue10);
  CHECK(drifted.allowed == 5);
  CHECK(drifted.limiting_budget == 0);

  const DisruptionSpec only_sched =
      Spec("[{nodes: '0', schedule: '0 9 * * *', duration: 1h}]");
  const Allowance inactive =
      ExplainAllowedDisruptions(only_sched, kEmpty, 10, kTue10);
  CHECK(inactive.allowed == kUnlimited);
  CHECK_FALSE(inactive.limiting_budget.has_value());
  CHECK(inactive.why ==
        "no active budget matches Empty (inactive: budgets[0])");

  const Allowance defaulted =
      ExplainAllowedDisruptions(Spec(""), kEmpty, 10, kTue10);
  CHECK(defaulted.why == "budgets[0] (default) nodes \"10%\" of 10 nodes = 1");

  const Allowance none =
      ExplainAllowedDisruptions(Spec("[]"), kEmpty, 10, kTue10);
  CHECK(none.why == "no budgets (explicit empty list): unlimited");

  const DisruptionSpec bad = Spec(
      "[{nodes: '5'}, {nodes: '5', schedule: '0 0 * * 7', duration: 1h,"
      " reasons: [Drifted]}]");
  const Allowance closed = ExplainAllowedDisruptions(bad, kEmpty, 10, kTue10);
  CHECK(closed.allowed == 0);
  CHECK(closed.limiting_budget == 1);
  CHECK(absl::StartsWith(closed.why, "fail closed: budgets[1]: schedule: "));
}

// Node/NodeClaim builders for the mapping tests.
struct NodeFixture {
  std::string pool;
  std::string ready = "True";  // "" = no Ready condition.
  bool initialized = true;
  bool managed = true;
  bool claim_deleting = false;
  bool instance_terminating = false;
  bool node_deleting = false;
};

// Node n<i> of `s.pool` (providerID aws:///n<i>) and, when managed, its
// NodeClaim c-n<i>, from the kit (karpenter/testing/builders.h).
void AddNode(snapshot::ObjectSet* set, const NodeFixture& s) {
  const std::string name = absl::StrCat("n", set->nodes.size());
  const absl::Time deleted = absl::FromUnixSeconds(1);
  std::vector<testing::ConditionOptions> conditions;
  if (s.instance_terminating) {
    conditions.push_back({.type = "InstanceTerminating"});
  }
  testing::ManagedNode m = testing::MakeManagedNode(
      {.name = name,
       .nodepool = s.pool,
       .initialized = s.initialized,
       .deleted = s.node_deleting ? std::optional(deleted) : std::nullopt,
       .ready = s.ready},
      {.name = "c-" + name,
       .nodepool = "",
       .deleted = s.claim_deleting ? std::optional(deleted) : std::nullopt,
       .conditions = conditions});
  set->nodes.push_back(std::move(m.node));
  if (s.managed) set->node_claims.push_back(std::move(m.node_claim));
}

TEST_CASE("budget mapping: 10 nodes at 100% with 2 NotReady gives 8",
          "[budget]") {
  snapshot::ObjectSet set;
  set.node_pools.push_back(PoolWithBudgets("a", "[{nodes: '100%'}]"));
  for (int i = 0; i < 8; ++i) AddNode(&set, {.pool = "a"});
  AddNode(&set, {.pool = "a", .ready = "False"});
  AddNode(&set, {.pool = "a", .ready = "Unknown"});
  absl::StatusOr<snapshot::Snapshot> snap =
      snapshot::Snapshot::Build(std::move(set));
  REQUIRE(snap.ok());
  const BudgetMapping m = BuildBudgetMapping(*snap, kTue10);
  REQUIRE(m.node_pools.size() == 1);
  CHECK(m.node_pools[0].total_nodes == 10);
  CHECK(m.node_pools[0].disrupting_nodes == 2);
  for (DisruptionReason r : kAllDisruptionReasons) {
    CHECK(m.node_pools[0].by_reason[static_cast<size_t>(r)].allowed == 10);
    CHECK(m.Remaining("a", r) == 8);
  }
}

TEST_CASE("budget mapping: which nodes count and which disrupt", "[budget]") {
  snapshot::ObjectSet set;
  set.node_pools.push_back(PoolWithBudgets("b", "[{nodes: '3'}]"));
  set.node_pools.push_back(PoolWithBudgets("a", "[{nodes: '50%'}]"));
  set.node_pools.push_back(PoolWithBudgets(
      "bad", "[{nodes: '5', schedule: '@every 1h', duration: 1h}]"));
  // Pool a: counted 6, disrupting 3 (missing Ready, claim deleting, NotReady).
  AddNode(&set, {.pool = "a"});
  AddNode(&set, {.pool = "a"});
  AddNode(&set, {.pool = "a"});
  AddNode(&set, {.pool = "a", .ready = ""});
  AddNode(&set, {.pool = "a", .claim_deleting = true});
  AddNode(&set, {.pool = "a", .ready = "False"});
  // Not counted: uninitialized, unmanaged, InstanceTerminating, unknown pool.
  AddNode(&set, {.pool = "a", .initialized = false});
  AddNode(&set, {.pool = "a", .managed = false});
  AddNode(&set, {.pool = "a", .managed = false, .node_deleting = true});
  AddNode(&set, {.pool = "a", .instance_terminating = true});
  AddNode(&set, {.pool = "gone"});
  // Pool b: 2 nodes, both fine.
  AddNode(&set, {.pool = "b"});
  AddNode(&set, {.pool = "b"});
  AddNode(&set, {.pool = "bad"});
  absl::StatusOr<snapshot::Snapshot> snap =
      snapshot::Snapshot::Build(std::move(set));
  REQUIRE(snap.ok());
  const BudgetMapping m = BuildBudgetMapping(*snap, kTue10);
  REQUIRE(m.node_pools.size() == 3);
  CHECK(m.node_pools[0].node_pool == "b");  // Snapshot order.
  CHECK(m.node_pools[1].node_pool == "a");
  CHECK(m.node_pools[1].total_nodes == 6);
  CHECK(m.node_pools[1].disrupting_nodes == 3);
  CHECK(m.node_pools[1].by_reason[0].allowed == 3);
  CHECK(m.Remaining("a", kDrifted) == 0);
  CHECK(m.node_pools[0].total_nodes == 2);
  CHECK(m.Remaining("b", kEmpty) == 3);  // Integers are not capped.
  CHECK(m.Remaining("gone", kEmpty) == 0);
  // The spec error pool fails closed and lists its errors.
  CHECK(m.Remaining("bad", kEmpty) == 0);
  REQUIRE(m.node_pools[2].spec_errors.size() == 1);
  CHECK(absl::StartsWith(m.node_pools[2].spec_errors[0],
                         "spec.disruption.budgets[0].schedule: "));
}

TEST_CASE("budget mapping: a Node without providerID matches by nodeName",
          "[budget]") {
  snapshot::ObjectSet set;
  set.node_pools.push_back(PoolWithBudgets("a", "[{nodes: '100%'}]"));
  AddNode(&set, {.pool = "a"});
  AddNode(&set, {.pool = "a", .claim_deleting = true});
  set.nodes[0].mutable_spec()->clear_provider_id();
  set.nodes[1].mutable_spec()->clear_provider_id();
  set.node_claims[1].mutable_status()->clear_provider_id();
  absl::StatusOr<snapshot::Snapshot> snap =
      snapshot::Snapshot::Build(std::move(set));
  REQUIRE(snap.ok());
  const BudgetMapping m = BuildBudgetMapping(*snap, kTue10);
  CHECK(m.node_pools[0].total_nodes == 2);
  CHECK(m.node_pools[0].disrupting_nodes == 1);
  CHECK(m.Remaining("a", kEmpty) == 1);
}

TEST_CASE("budget mapping: subtraction floors at zero and reasons differ",
          "[budget]") {
  snapshot::ObjectSet set;
  set.node_pools.push_back(PoolWithBudgets(
      "a", "[{nodes: '1', reasons: [Empty]}, {nodes: '4', reasons: []}]"));
  AddNode(&set, {.pool = "a", .ready = "False"});
  AddNode(&set, {.pool = "a", .ready = "False"});
  AddNode(&set, {.pool = "a"});
  absl::StatusOr<snapshot::Snapshot> snap =
      snapshot::Snapshot::Build(std::move(set));
  REQUIRE(snap.ok());
  const BudgetMapping m = BuildBudgetMapping(*snap, kTue10);
  CHECK(m.Remaining("a", kEmpty) == 0);  // 1 - 2, floored.
  CHECK(m.node_pools[0].by_reason[static_cast<size_t>(kEmpty)].allowed == 1);
  CHECK(m.Remaining("a", kDrifted) == kUnlimited - 2);
}

TEST_CASE("budget mapping: a BudgetBook evaluates the same mapping at any time",
          "[budget]") {
  snapshot::ObjectSet set;
  set.node_pools.push_back(PoolWithBudgets(
      "a",
      "[{nodes: '50%'}, {nodes: '0', schedule: '0 9 * * mon-fri',"
      " duration: 8h}]"));
  set.node_pools.push_back(PoolWithBudgets("b", "[{nodes: 'x'}]"));
  for (int i = 0; i < 4; ++i) AddNode(&set, {.pool = "a"});
  AddNode(&set, {.pool = "a", .ready = "False"});
  AddNode(&set, {.pool = "b"});
  absl::StatusOr<snapshot::Snapshot> snap =
      snapshot::Snapshot::Build(std::move(set));
  REQUIRE(snap.ok());
  const BudgetBook book = BudgetBook::Build(*snap);
  struct Case {
    absl::Time now;
    int64_t a_remaining;
  };
  // 5 nodes at 50% = 3, minus 1 NotReady; 0 inside the weekday window.
  const std::vector<Case> cases = {{kTue10, 0},
                                   {Utc(2024, 1, 2, 17, 0), 2},
                                   {Utc(2024, 1, 6, 10, 0), 2},
                                   {Utc(2024, 1, 8, 9, 0), 0}};
  for (const Case& c : cases) {
    const BudgetMapping got = book.Evaluate(c.now);
    const BudgetMapping want = BuildBudgetMapping(*snap, c.now);
    REQUIRE(got.node_pools.size() == 2);
    for (DisruptionReason r : kAllDisruptionReasons) {
      CHECK(got.Remaining("a", r) == c.a_remaining);
      CHECK(got.Remaining("b", r) == 0);
      for (size_t i = 0; i < 2; ++i) {
        const size_t ri = static_cast<size_t>(r);
        CHECK(got.node_pools[i].remaining[ri] ==
              want.node_pools[i].remaining[ri]);
        CHECK(got.node_pools[i].by_reason[ri].why ==
              want.node_pools[i].by_reason[ri].why);
      }
    }
    CHECK(got.node_pools[0].total_nodes == 5);
    CHECK(got.node_pools[0].disrupting_nodes == 1);
    CHECK(got.node_pools[1].spec_errors == want.node_pools[1].spec_errors);
    CHECK_FALSE(got.node_pools[1].spec_errors.empty());
  }
}

}  // namespace
}  // namespace karpenter::budget
