// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/termination/validate.h"

#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "janitor_test_util.h"
#include "karpenter/budget/node_budget.h"

namespace karpenter::termination {
namespace {

using janitor_test::Build;
using janitor_test::kT0;
using janitor_test::MakeNode;
using janitor_test::NodeOpts;

// maxUnavailable `amount` over the nodes of pool "web".
budget::NodeDisruptionBudget WebBudget(const std::string& amount) {
  budget::NodeDisruptionBudgetSpec spec;
  spec.name = "web";
  v1::LabelSelector selector;
  (*selector.mutable_match_labels())["karpenter.sh/nodepool"] = "web";
  spec.selector = selector;
  absl::StatusOr<IntOrPercent> a = IntOrPercent::Parse(amount);
  REQUIRE(a.ok());
  spec.max_unavailable = *a;
  absl::StatusOr<budget::NodeDisruptionBudget> b =
      budget::NodeDisruptionBudget::FromSpec(spec);
  REQUIRE(b.ok());
  return *std::move(b);
}

// Pool "web" of w1..w3 (w3 in state `w3_ready`), "batch" node b1, and the
// deleting web node wd.
snapshot::Snapshot Cluster(const std::string& w3_ready) {
  std::vector<v1::Node> nodes;
  for (const std::string name : {"w1", "w2", "w3"}) {
    NodeOpts n;
    n.name = name;
    n.nodepool = "web";
    if (name == "w3") n.ready = w3_ready;
    nodes.push_back(MakeNode(n));
  }
  NodeOpts batch;
  batch.name = "b1";
  batch.nodepool = "batch";
  nodes.push_back(MakeNode(batch));
  return Build(std::move(nodes), {});
}

TEST_CASE("validate deletion: allow and deny with reasons",
          "[termination][validate]") {
  const std::vector<budget::NodeDisruptionBudget> ndbs = {WebBudget("1")};
  struct Case {
    std::string w3_ready;
    std::string node;
    bool allowed;
    std::string reason;
    std::string why;  // A fragment.
  };
  const std::vector<Case> cases = {
      {"True", "b1", true, "no_budget",
       "no node disruption budget selects node \"b1\""},
      {"True", "w1", true, "within_budget",
       "budget \"web\": maxUnavailable \"1\" of 3 selected nodes = 1; 3 "
       "available; deleting 1 available nodes would leave 1 unavailable"},
      {"False", "w1", false, "budget_violated",
       "budget \"web\": maxUnavailable \"1\" of 3 selected nodes = 1; 2 "
       "available; deleting 1 available nodes would leave 2 unavailable"},
      // The NotReady node itself costs nothing.
      {"False", "w3", true, "within_budget", "deleting 0 available nodes"},
  };
  for (const Case& c : cases) {
    INFO(c.node << " with w3 Ready=" << c.w3_ready);
    const snapshot::Snapshot s = Cluster(c.w3_ready);
    absl::StatusOr<DeletionDecision> d = ValidateDeletion(c.node, s, ndbs, kT0);
    REQUIRE(d.ok());
    CHECK(d->node == c.node);
    CHECK(d->allowed == c.allowed);
    CHECK(d->reason == c.reason);
    CHECK_THAT(d->why, Catch::Contains(c.why));
    CHECK(d->decided_at == kT0);
    if (!c.allowed) CHECK(d->violated == std::vector<std::string>{"web"});
  }

  // A deleting node is allowed even with the budget exhausted.
  NodeOpts down;
  down.name = "w1";
  down.nodepool = "web";
  down.ready = "False";
  NodeOpts leaving = down;
  leaving.name = "w2";
  leaving.ready = "True";
  leaving.deleted = kT0 - absl::Minutes(1);
  const snapshot::Snapshot s = Build({MakeNode(down), MakeNode(leaving)}, {});
  absl::StatusOr<DeletionDecision> d = ValidateDeletion("w2", s, ndbs, kT0);
  REQUIRE(d.ok());
  CHECK(d->allowed);
  CHECK(d->reason == "already_deleting");
}

TEST_CASE("validate deletion: an unknown node is NotFound",
          "[termination][validate]") {
  const snapshot::Snapshot s = Cluster("True");
  absl::StatusOr<DeletionDecision> d = ValidateDeletion("nope", s, {}, kT0);
  CHECK(d.status().code() == absl::StatusCode::kNotFound);
  CHECK(d.status().message() == "node \"nope\" not found");
  const std::vector<std::string> names = {"w1", "ghost"};
  CHECK(ValidateDeletions(names, s, {}, kT0).status().message() ==
        "node \"ghost\" not found");
}

TEST_CASE("validate deletion: a batch is decided in order",
          "[termination][validate]") {
  const std::vector<budget::NodeDisruptionBudget> ndbs = {WebBudget("1")};
  const snapshot::Snapshot s = Cluster("True");
  const std::vector<std::string> names = {"w1", "b1", "w2", "w1", "w3"};
  absl::StatusOr<std::vector<DeletionDecision>> d =
      ValidateDeletions(names, s, ndbs, kT0);
  REQUIRE(d.ok());
  std::vector<std::string> got;
  for (const DeletionDecision& x : *d) {
    got.push_back(absl::StrCat(x.node, " ", x.reason));
  }
  // w1 uses the one allowed disruption; w2 and w3 are then denied.
  CHECK(got == std::vector<std::string>{
                   "w1 within_budget", "b1 no_budget", "w2 budget_violated",
                   "w1 within_budget", "w3 budget_violated"});
  CHECK_THAT((*d)[2].why, Catch::Contains("deleting 2 available nodes"));
}

}  // namespace
}  // namespace karpenter::termination
