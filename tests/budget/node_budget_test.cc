// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/budget/node_budget.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../testing/kit_test_util.h"
#include "absl/strings/str_cat.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/testing/builders.h"

namespace karpenter::budget {
namespace {

using testing::Labels;

// A Node with exactly `labels` (no providerID). `state`: "ready",
// "notready", "unknown", "noready" (no Ready condition) or "deleting"
// (Ready=True with a deletionTimestamp).
v1::Node Node(const std::string& name, const Labels& labels,
              const std::string& state = "ready") {
  return testing::MakeNode(
      {.name = name,
       .provider_id = "",
       .nodepool = "",
       .initialized = false,
       .labels = labels,
       .deleted = state == "deleting" ? std::optional(absl::FromUnixSeconds(1))
                                      : std::nullopt,
       .ready = state == "noready"    ? ""
                : state == "notready" ? "False"
                : state == "unknown"  ? "Unknown"
                                      : "True"});
}

snapshot::Snapshot Build(std::vector<v1::Node> nodes) {
  snapshot::ObjectSet objects;
  objects.nodes = std::move(nodes);
  return kit_test::MustBuildSnapshot(std::move(objects));
}

std::optional<IntOrPercent> Amount(const std::string& text) {
  if (text.empty()) return std::nullopt;
  absl::StatusOr<IntOrPercent> v = IntOrPercent::Parse(text);
  REQUIRE(v.ok());
  return *v;
}

NodeDisruptionBudgetSpec Spec(const std::string& name, const Labels& labels,
                              const std::string& min_available,
                              const std::string& max_unavailable) {
  return {name, testing::MakeLabelSelector(labels), Amount(min_available),
          Amount(max_unavailable)};
}

NodeDisruptionBudget MustBudget(const NodeDisruptionBudgetSpec& spec) {
  absl::StatusOr<NodeDisruptionBudget> b = NodeDisruptionBudget::FromSpec(spec);
  INFO(b.status().ToString());
  REQUIRE(b.ok());
  return *std::move(b);
}

// `count` nodes labelled pool=web; the first `notready` are NotReady.
std::vector<v1::Node> Pool(int count, int notready) {
  std::vector<v1::Node> nodes;
  for (int i = 0; i < count; ++i) {
    nodes.push_back(Node(absl::StrCat("web-", i), {{"pool", "web"}},
                         i < notready ? "notready" : "ready"));
  }
  return nodes;
}

TEST_CASE("node budget: validation names the field", "[node_budget]") {
  struct Case {
    NodeDisruptionBudgetSpec spec;
    std::string error;  // Empty: valid.
  };
  const std::vector<Case> cases = {
      {Spec("b", {{"a", "b"}}, "1", ""), ""},
      {Spec("b", {{"a", "b"}}, "", "100%"), ""},
      {Spec("b", {{"a", "b"}}, "0%", ""), ""},
      {Spec("b", {{"a", "b"}}, "", ""),
       "node disruption budget \"b\": spec: exactly one of minAvailable and "
       "maxUnavailable must be set (neither is)"},
      {Spec("b", {{"a", "b"}}, "1", "1"),
       "node disruption budget \"b\": spec: exactly one of minAvailable and "
       "maxUnavailable must be set (both are)"},
      {Spec("b", {{"a", "b"}}, "-1", ""),
       "node disruption budget \"b\": spec.minAvailable: \"-1\": must be >= "
       "0"},
      {Spec("b", {{"a", "b"}}, "", "-5%"),
       "node disruption budget \"b\": spec.maxUnavailable: \"-5%\": must be "
       ">= 0"},
      {Spec("b", {{"a", "b"}}, "", "150%"),
       "node disruption budget \"b\": spec.maxUnavailable: \"150%\": must be "
       "between 0% and 100%"},
      {Spec("b", {{"a", "b"}}, "101%", ""),
       "node disruption budget \"b\": spec.minAvailable: \"101%\": must be "
       "between 0% and 100%"},
      {Spec("", {{"a", "b"}}, "1", ""),
       "node disruption budget \"\": name: must be non-empty"},
      {Spec("b", {{"bad key", "b"}}, "1", ""),
       "node disruption budget \"b\": spec.selector.matchLabels"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<NodeDisruptionBudget> b =
        NodeDisruptionBudget::FromSpec(c.spec);
    INFO(c.error << " got " << b.status().ToString());
    if (c.error.empty()) {
      CHECK(b.ok());
    } else {
      REQUIRE_FALSE(b.ok());
      CHECK(b.status().code() == absl::StatusCode::kInvalidArgument);
      CHECK(std::string(b.status().message()).rfind(c.error, 0) == 0);
    }
  }
}

TEST_CASE("node budget: null and empty selectors select no node",
          "[node_budget]") {
  snapshot::Snapshot s = Build(Pool(4, 0));
  NodeDisruptionBudgetSpec null_sel{"null", std::nullopt, Amount("4"), {}};
  NodeDisruptionBudgetSpec empty_sel{
      "empty", v1::LabelSelector(), Amount("4"), {}};
  NodeDisruptionBudgetSpec web = Spec("web", {{"pool", "web"}}, "4", "");
  std::vector<NodeDisruptionBudget> budgets = {
      MustBudget(null_sel), MustBudget(empty_sel), MustBudget(web)};
  CHECK(budgets[0].selector().MatchesNothing());
  CHECK(budgets[1].selector().MatchesNothing());
  auto eval = NodeBudgetEvaluation::Evaluate(s, budgets);
  REQUIRE(eval.ok());
  CHECK(eval->statuses()[0].selected == 0);
  CHECK(eval->statuses()[1].selected == 0);
  CHECK(eval->statuses()[2].selected == 4);
  // Only "web" (minAvailable 4 of 4) is involved, and it blocks.
  auto v = eval->CanDelete(std::vector<snapshot::NodeIndex>{0});
  REQUIRE(v.ok());
  CHECK_FALSE(v->allowed);
  REQUIRE(v->checks.size() == 1);
  CHECK(v->violated == std::vector<std::string>{"web"});
}

TEST_CASE("node budget: percentages round up in both forms", "[node_budget]") {
  struct Case {
    int nodes;
    int notready;
    std::string min_available;
    std::string max_unavailable;
    int64_t threshold;
    int64_t allowed;
  };
  const std::vector<Case> cases = {
      {10, 0, "75%", "", 8, 2},  // 7.5 -> 8 must stay available.
      {10, 0, "", "25%", 3, 3},  // 2.5 -> 3 may be unavailable.
      {10, 2, "75%", "", 8, 0},  // 8 available, 8 needed.
      {10, 2, "", "25%", 3, 1},  // 2 unavailable already.
      {10, 5, "", "25%", 3, 0},  // Over budget: floor 0.
      {3, 0, "50%", "", 2, 1},   // 1.5 -> 2.
      {3, 0, "", "50%", 2, 2},  {10, 0, "100%", "", 10, 0},
      {10, 0, "", "0%", 0, 0},  {10, 0, "0%", "", 0, 10},
      {3, 0, "5", "", 5, 0},  // Integers are not capped.
      {10, 1, "", "4", 4, 3},   {0, 0, "50%", "", 0, 0},
  };
  for (const Case& c : cases) {
    snapshot::Snapshot s = Build(Pool(c.nodes, c.notready));
    std::vector<NodeDisruptionBudget> budgets = {MustBudget(
        Spec("web", {{"pool", "web"}}, c.min_available, c.max_unavailable))};
    auto eval = NodeBudgetEvaluation::Evaluate(s, budgets);
    REQUIRE(eval.ok());
    const NodeBudgetStatus& st = eval->statuses()[0];
    INFO(c.nodes << " nodes, " << c.notready << " notready, min "
                 << c.min_available << " max " << c.max_unavailable);
    CHECK(st.selected == c.nodes);
    CHECK(st.available == c.nodes - c.notready);
    CHECK(st.unavailable == c.notready);
    CHECK(st.threshold == c.threshold);
    CHECK(st.allowed_deletions == c.allowed);
  }
}

TEST_CASE("node budget: NotReady, missing Ready and deleting are unavailable",
          "[node_budget]") {
  struct Case {
    std::string state;
    bool available;
  };
  const std::vector<Case> cases = {
      {"ready", true},    {"notready", false}, {"unknown", false},
      {"noready", false}, {"deleting", false},
  };
  for (const Case& c : cases) {
    INFO(c.state);
    v1::Node node = Node("n", {{"pool", "web"}}, c.state);
    CHECK(NodeIsAvailable(node) == c.available);
    snapshot::Snapshot s = Build({node, Node("m", {{"pool", "web"}})});
    std::vector<NodeDisruptionBudget> budgets = {
        MustBudget(Spec("web", {{"pool", "web"}}, "", "1"))};
    auto eval = NodeBudgetEvaluation::Evaluate(s, budgets);
    REQUIRE(eval.ok());
    CHECK(eval->statuses()[0].available == (c.available ? 2 : 1));
    CHECK(eval->statuses()[0].allowed_deletions == (c.available ? 1 : 0));
  }
}

TEST_CASE("node budget: deletion must keep every matching budget",
          "[node_budget]") {
  // web-0..web-3 (web-0 NotReady), zone=a on web-0..web-1, db-0 Ready.
  std::vector<v1::Node> nodes = Pool(4, 1);
  (*nodes[0].mutable_metadata()->mutable_labels())["zone"] = "a";
  (*nodes[1].mutable_metadata()->mutable_labels())["zone"] = "a";
  nodes.push_back(Node("db-0", {{"pool", "db"}}));
  snapshot::Snapshot s = Build(std::move(nodes));
  std::vector<NodeDisruptionBudget> budgets = {
      // 3 available, 2 required: allows 1.
      MustBudget(Spec("web", {{"pool", "web"}}, "2", "")),
      // zone a: 2 selected, 1 unavailable, maxUnavailable 1: allows 0.
      MustBudget(Spec("zone-a", {{"zone", "a"}}, "", "1")),
      // db: minAvailable 1 of 1: allows 0.
      MustBudget(Spec("db", {{"pool", "db"}}, "1", "")),
  };
  auto eval = NodeBudgetEvaluation::Evaluate(s, budgets);
  REQUIRE(eval.ok());
  struct Case {
    std::vector<std::string> deleting;
    bool allowed;
    std::vector<std::string> checked;
    std::vector<std::string> violated;
  };
  const std::vector<Case> cases = {
      {{}, true, {}, {}},
      // Already unavailable: costs nothing, even against zone-a's 0.
      {{"web-0"}, true, {"web", "zone-a"}, {}},
      {{"web-2"}, true, {"web"}, {}},
      {{"web-2", "web-2"}, true, {"web"}, {}},  // Duplicates count once.
      {{"web-0", "web-2"}, true, {"web", "zone-a"}, {}},
      {{"web-2", "web-3"}, false, {"web"}, {"web"}},
      // web allows it, zone-a does not.
      {{"web-1"}, false, {"web", "zone-a"}, {"zone-a"}},
      {{"db-0", "web-1", "web-2"},
       false,
       {"web", "zone-a", "db"},
       {"web", "zone-a", "db"}},
  };
  for (const Case& c : cases) {
    INFO(c.deleting.size() << " deleting, first "
                           << (c.deleting.empty() ? "-" : c.deleting[0]));
    auto v = eval->CanDelete(s, c.deleting);
    REQUIRE(v.ok());
    CHECK(v->allowed == c.allowed);
    std::vector<std::string> checked;
    for (const NodeBudgetCheck& k : v->checks) checked.push_back(k.name);
    CHECK(checked == c.checked);
    CHECK(v->violated == c.violated);
  }
}

TEST_CASE("node budget: verdict explains the numbers", "[node_budget]") {
  snapshot::Snapshot s = Build(Pool(10, 1));
  std::vector<NodeDisruptionBudget> budgets = {
      MustBudget(Spec("web", {{"pool", "web"}}, "75%", ""))};
  auto eval = NodeBudgetEvaluation::Evaluate(s, budgets);
  REQUIRE(eval.ok());
  auto v = eval->CanDelete(std::vector<snapshot::NodeIndex>{0, 1, 2});
  REQUIRE(v.ok());
  REQUIRE(v->checks.size() == 1);
  const NodeBudgetCheck& k = v->checks[0];
  CHECK(k.deleting_selected == 3);
  CHECK(k.deleting_available == 2);
  CHECK(k.allowed_deletions == 1);
  CHECK_FALSE(k.holds);
  CHECK(k.why ==
        "budget \"web\": minAvailable \"75%\" of 10 selected nodes = 8; 9 "
        "available; deleting 2 available nodes would leave 7 available");
}

TEST_CASE("node budget: bad deletion input is an error", "[node_budget]") {
  snapshot::Snapshot s = Build(Pool(2, 0));
  std::vector<NodeDisruptionBudget> budgets = {
      MustBudget(Spec("web", {{"pool", "web"}}, "1", ""))};
  auto eval = NodeBudgetEvaluation::Evaluate(s, budgets);
  REQUIRE(eval.ok());
  auto by_index = eval->CanDelete(std::vector<snapshot::NodeIndex>{0, 2});
  REQUIRE_FALSE(by_index.ok());
  CHECK(by_index.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(by_index.status().message() ==
        "node index \"2\": out of range (2 nodes)");
  auto by_name = eval->CanDelete(s, std::vector<std::string>{"web-9"});
  REQUIRE_FALSE(by_name.ok());
  CHECK(by_name.status().code() == absl::StatusCode::kNotFound);
  CHECK(by_name.status().message() == "node \"web-9\": not in the snapshot");
}

}  // namespace
}  // namespace karpenter::budget
