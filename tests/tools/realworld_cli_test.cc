// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Every CLI command that applies, on each file of the real-world corpus
// (tests/testdata/realworld/, described in its README.md): kubectl dumps of
// EKS, AKS and GKE clusters running Karpenter, single objects, partial dumps
// and hand-written manifests. Each file has a fixed --at, so the answers are
// deterministic; they follow Karpenter's semantics (docs/semantics.md).
//
// A case that asserts the correct behaviour where the CLI is known to be
// wrong is tagged [!mayfail], with the problem named in a comment above it;
// none is, at the moment.

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cli_test_util.h"
#include "google/protobuf/util/json_util.h"
#include "karpenter/v1/plan.pb.h"

namespace karpenter::cli {
namespace {

using test::Result;
using test::Run;

constexpr char kCatalog[] =
    KARPENTER_EXAMPLES_DIR "/catalogs/aws-us-west-2.yaml";

std::string Data(const std::string& file) {
  return absl::StrCat(KARPENTER_TESTDATA_DIR, "/realworld/", file);
}

// The whitespace-separated fields of the first line whose first field is
// `first` (a node's row in plan's verdict table or inspect's node table).
std::vector<std::string> Row(const std::string& out, const std::string& first) {
  for (absl::string_view line : absl::StrSplit(out, '\n')) {
    std::vector<std::string> fields =
        absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (!fields.empty() && fields[0] == first) return fields;
  }
  return {};
}

// budgets' row of `pool` and `reason`: NODEPOOL NODES DISRUPTING REASON
// ALLOWED REMAINING LIMITING NEXT-CHANGE THEN WHY...
std::vector<std::string> BudgetRow(const std::string& out,
                                   const std::string& pool,
                                   const std::string& reason) {
  for (absl::string_view line : absl::StrSplit(out, '\n')) {
    std::vector<std::string> fields =
        absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (fields.size() >= 9 && fields[0] == pool && fields[3] == reason) {
      return fields;
    }
  }
  return {};
}

// plan's verdict for `node` is `verdict`, found by `method`.
void CheckVerdict(const std::string& out, const std::string& node,
                  const std::string& verdict, const std::string& method) {
  CAPTURE(node);
  const std::vector<std::string> row = Row(out, node);
  REQUIRE(row.size() >= 4);
  CHECK(row[2] == verdict);
  CHECK(row[3] == method);
}

// Runs `plan -o json` with `args`; the run must succeed quietly.
v1::Plan PlanJson(std::vector<std::string> args) {
  args.insert(args.begin(), "plan");
  args.push_back("-o");
  args.push_back("json");
  const Result r = Run(args);
  CAPTURE(args, r.err);
  REQUIRE(r.status == kExitOk);
  CHECK(r.err.empty());
  v1::Plan plan;
  REQUIRE(google::protobuf::util::JsonStringToMessage(r.out, &plan).ok());
  return plan;
}

// Command `i` of `plan` is `method`/`decision` on exactly `nodes`.
void CheckCommand(const v1::Plan& plan, int i, const std::string& method,
                  const std::string& decision,
                  const std::vector<std::string>& nodes) {
  REQUIRE(plan.commands_size() > i);
  const v1::PlanCommand& c = plan.commands(i);
  CHECK(c.method() == method);
  CHECK(c.decision() == decision);
  std::vector<std::string> got;
  for (const v1::PlanCandidate& candidate : c.candidates()) {
    got.push_back(candidate.node());
  }
  CHECK(got == nodes);
}

// A command that must succeed with nothing on stderr.
Result Ok(const std::vector<std::string>& args) {
  Result r = Run(args);
  CAPTURE(args, r.err);
  CHECK(r.status == kExitOk);
  CHECK(r.err.empty());
  return r;
}

std::string Eks(const std::string& ip) {
  std::string dashed = ip;
  for (char& ch : dashed) {
    if (ch == '.') ch = '-';
  }
  return absl::StrCat("ip-", dashed, ".us-west-2.compute.internal");
}

// ------------------------------------------------------- every cluster

struct ClusterFile {
  std::string file;
  std::string at;
  std::string valid;     // validate's line
  std::string snapshot;  // inspect's first line, after "Snapshot: "
  int unbound;           // pods not on a node (the pending ones)
  int node_pools;
  int nodes;
};

// validate, inspect, plan, budgets on every whole-cluster dump: the counts
// are those of the objects each file holds (README.md).
TEST_CASE("realworld: every whole cluster validates, loads and plans",
          "[realworld]") {
  const ClusterFile files[] = {
      {"eks-prod-list.yaml", "2025-06-10T15:00:00Z",
       "10 objects valid (2 NodePools, 5 NodeClaims, 3 PodDisruptionBudgets)",
       "2 NodePools, 5 Nodes, 5 NodeClaims, 18 Pods, 3 PodDisruptionBudgets", 0,
       2, 5},
      {"eks-drift-rollout.json", "2025-06-11T09:30:00Z",
       "4 objects valid (1 NodePool, 3 NodeClaims)",
       "1 NodePools, 3 Nodes, 3 NodeClaims, 12 Pods, 0 PodDisruptionBudgets", 0,
       1, 3},
      {"eks-expired-claims.yaml", "2025-07-01T00:00:00Z",
       "3 objects valid (1 NodePool, 2 NodeClaims)",
       "1 NodePools, 2 Nodes, 2 NodeClaims, 6 Pods, 0 PodDisruptionBudgets", 0,
       1, 2},
      {"eks-jobs-do-not-disrupt.json", "2025-06-12T14:00:00Z",
       "3 objects valid (1 NodePool, 2 NodeClaims)",
       "1 NodePools, 2 Nodes, 2 NodeClaims, 6 Pods, 0 PodDisruptionBudgets", 0,
       1, 2},
      {"eks-pending-pods.yaml", "2025-06-13T10:00:00Z",
       "3 objects valid (1 NodePool, 2 NodeClaims)",
       "1 NodePools, 2 Nodes, 2 NodeClaims, 9 Pods, 0 PodDisruptionBudgets", 3,
       1, 2},
      {"eks-v1beta1-cluster.yaml", "2024-09-01T12:00:00Z",
       "4 objects valid (1 NodePool, 2 NodeClaims, 1 PodDisruptionBudget)",
       "1 NodePools, 2 Nodes, 2 NodeClaims, 6 Pods, 1 PodDisruptionBudgets", 0,
       1, 2},
      {"eks-static-drift.yaml", "2025-06-20T12:00:00Z",
       "3 objects valid (1 NodePool, 2 NodeClaims)",
       "1 NodePools, 2 Nodes, 2 NodeClaims, 6 Pods, 0 PodDisruptionBudgets", 0,
       1, 2},
      {"aks-cluster-list.yaml", "2025-05-20T08:00:00Z",
       "7 objects valid (2 NodePools, 4 NodeClaims, 1 PodDisruptionBudget)",
       "2 NodePools, 4 Nodes, 4 NodeClaims, 15 Pods, 1 PodDisruptionBudgets", 0,
       2, 4},
      {"aks-multidoc.yaml", "2025-05-21T03:00:00Z",
       "4 objects valid (1 NodePool, 3 NodeClaims)",
       "1 NodePools, 3 Nodes, 3 NodeClaims, 12 Pods, 0 PodDisruptionBudgets", 0,
       1, 3},
      {"aks-v1beta1.json", "2024-11-05T16:00:00Z",
       "3 objects valid (1 NodePool, 2 NodeClaims)",
       "1 NodePools, 2 Nodes, 2 NodeClaims, 8 Pods, 0 PodDisruptionBudgets", 0,
       1, 2},
      {"aks-pending.json", "2025-05-22T07:00:00Z",
       "2 objects valid (1 NodePool, 1 NodeClaim)",
       "1 NodePools, 1 Nodes, 1 NodeClaims, 7 Pods, 0 PodDisruptionBudgets", 3,
       1, 1},
      {"gke-cluster.yaml", "2025-04-02T10:00:00Z",
       "4 objects valid (1 NodePool, 3 NodeClaims)",
       "1 NodePools, 3 Nodes, 3 NodeClaims, 10 Pods, 0 PodDisruptionBudgets", 0,
       1, 3},
      {"gke-cluster.json", "2025-04-03T18:00:00Z",
       "4 objects valid (1 NodePool, 3 NodeClaims)",
       "1 NodePools, 3 Nodes, 3 NodeClaims, 11 Pods, 0 PodDisruptionBudgets", 0,
       1, 3},
      {"gke-pending.yaml", "2025-04-04T09:00:00Z",
       "3 objects valid (1 NodePool, 2 NodeClaims)",
       "1 NodePools, 2 Nodes, 2 NodeClaims, 10 Pods, 0 PodDisruptionBudgets", 2,
       1, 2},
  };
  for (const ClusterFile& c : files) {
    CAPTURE(c.file);
    const std::string f = Data(c.file);
    CHECK(Ok({"validate", "-f", f}).out == c.valid + "\n");
    const Result i = Ok({"inspect", "-f", f});
    CHECK(absl::StartsWith(i.out,
                           "Snapshot: " + c.snapshot + ", 0 DaemonSets\n"));
    CHECK(absl::StrContains(
        i.out, absl::StrCat("Pods not on a node: ", c.unbound,
                            " unbound, 0 on nodes missing from the snapshot")));
    // A verdict for every node, with no warning.
    const v1::Plan plan = PlanJson({"-f", f, "--at", c.at});
    CHECK(plan.now() == c.at);
    CHECK(plan.verdicts_size() == c.nodes);
    // Three reasons per NodePool.
    CHECK(plan.budgets_size() == 3 * c.node_pools);
    const Result b = Ok({"budgets", "-f", f, "--at", c.at});
    CHECK(absl::StartsWith(b.out, "Budgets at " + c.at + "\n"));
  }
}

// ------------------------------------------------------------------ EKS

TEST_CASE("realworld: eks-prod-list, the empty spot node goes by Emptiness",
          "[realworld]") {
  const std::string f = Data("eks-prod-list.yaml");
  const std::string at = "2025-06-10T15:00:00Z";
  const std::string empty = Eks("10.20.140.9");
  const std::string system = Eks("10.20.40.6");

  const Result v = Ok({"validate", "-f", f});
  CHECK(
      v.out ==
      "10 objects valid (2 NodePools, 5 NodeClaims, 3 PodDisruptionBudgets)\n");

  const Result i = Ok({"inspect", "-f", f});
  CHECK(absl::StartsWith(i.out,
                         "Snapshot: 2 NodePools, 5 Nodes, 5 NodeClaims, 18 "
                         "Pods, 3 PodDisruptionBudgets, 0 DaemonSets\n"));
  const std::vector<std::string> node = Row(i.out, empty);
  REQUIRE(node.size() >= 9);
  CHECK(node[1] == "general");
  CHECK(node[2] == "c6i.large");
  CHECK(node[3] == "us-west-2c");
  CHECK(node[4] == "spot");
  CHECK(node[6] == "2");  // aws-node and kube-proxy only
  CHECK(node[7] == "general-x5rjd");

  const Result p = Ok({"plan", "-f", f, "--at", at});
  CHECK(absl::StartsWith(
      p.out, "Disruption pass at " + at + ": 1 command (Emptiness acted)\n"));
  CheckVerdict(p.out, empty, "Commanded", "Emptiness");
  CheckVerdict(p.out, system, "ConsolidationDisabled", "Emptiness");
  CheckVerdict(p.out, Eks("10.20.33.14"), "NotExpired", "Expiration");
  const v1::Plan plan = PlanJson({"-f", f, "--at", at});
  CHECK(plan.acted() == "Emptiness");
  REQUIRE(plan.commands_size() == 1);
  CheckCommand(plan, 0, "Emptiness", "Delete", {empty});
  CHECK(plan.verdicts_size() == 5);

  // One budgeted method per pass: prices change nothing while a node is
  // empty.
  const v1::Plan priced =
      PlanJson({"-f", f, "--at", at, "--catalog", kCatalog});
  CHECK(priced.acted() == "Emptiness");
  REQUIRE(priced.commands_size() == 1);
  CheckCommand(priced, 0, "Emptiness", "Delete", {empty});

  const Result e = Ok({"explain", system, "-f", f, "--at", at});
  CHECK(absl::StrContains(e.out,
                          "  verdict:       ConsolidationDisabled (Emptiness): "
                          "NodePool \"system\" has consolidation disabled\n"));
  CHECK(absl::StrContains(
      e.out, "  consolidation: WhenEmpty, consolidateAfter Never\n"));
  CHECK(absl::StrContains(e.out, "  expiry:        never\n"));
  CHECK(absl::StrContains(e.out, "  disrupted:     not within 720h"));

  const Result b = Ok({"budgets", "-f", f, "--at", at});
  for (const char* reason : {"Underutilized", "Empty", "Drifted"}) {
    const std::vector<std::string> general =
        BudgetRow(b.out, "general", reason);
    REQUIRE(general.size() >= 9);
    CHECK(general[1] == "4");
    CHECK(general[4] == "1");  // 20% of 4 nodes, rounded up
    CHECK(general[7] == "never");
    const std::vector<std::string> sys = BudgetRow(b.out, "system", reason);
    REQUIRE(sys.size() >= 9);
    CHECK(sys[4] == "1");
  }

  const Result pr = Ok({"provision", "-f", f});
  CHECK(absl::StartsWith(pr.out, "No pending pods in "));
  CHECK(absl::StrContains(pr.out, "eks-prod-list.yaml"));
  CHECK(absl::StrContains(pr.out, ": nothing to provision.\n"));
}

TEST_CASE("realworld: eks-drift-rollout.json, one drifted node per pass",
          "[realworld]") {
  const std::string f = Data("eks-drift-rollout.json");
  const std::string at = "2025-06-11T09:30:00Z";
  const std::string first = Eks("10.30.12.5");    // 1 pod
  const std::string second = Eks("10.30.77.41");  // 3 pods

  CHECK(Ok({"validate", "-f", f}).out ==
        "4 objects valid (1 NodePool, 3 NodeClaims)\n");
  CHECK(absl::StartsWith(Ok({"inspect", "-f", f}).out,
                         "Snapshot: 1 NodePools, 3 Nodes, 3 NodeClaims, 12 "
                         "Pods, 0 PodDisruptionBudgets, 0 DaemonSets\n"));

  // Budget nodes "1": the cheaper of the two drifted nodes to disrupt (one
  // pod, which fits the m5.2xlarge) is deleted, the other waits.
  const Result p = Ok({"plan", "-f", f, "--at", at});
  CHECK(absl::StartsWith(
      p.out, "Disruption pass at " + at + ": 1 command (Drift acted)\n"));
  CHECK(absl::StrContains(
      p.out, "  1: delete drifted node " + first + " (AMIDrift)\n"));
  CheckVerdict(p.out, first, "Commanded", "Drift");
  CheckVerdict(p.out, second, "BudgetExhausted", "Drift");
  for (const std::string& catalog : {std::string(), std::string(kCatalog)}) {
    std::vector<std::string> args = {"-f", f, "--at", at};
    if (!catalog.empty()) args.insert(args.end(), {"--catalog", catalog});
    const v1::Plan plan = PlanJson(args);
    CHECK(plan.acted() == "Drift");
    REQUIRE(plan.commands_size() == 1);
    CheckCommand(plan, 0, "Drift", "Delete", {first});
    CHECK(plan.commands(0).candidates(0).drift_reason() == "AMIDrift");
  }

  const Result e = Ok({"explain", second, "-f", f, "--at", at});
  CHECK(absl::StrContains(
      e.out,
      "  verdict:       BudgetExhausted (Drift): no Drifted "
      "disruptions allowed: 0 left in NodePool \"default\"\n"));
  CHECK(absl::StrContains(
      e.out,
      "  drift:         drifted (AMIDrift) since 2025-06-11T08:05:12Z\n"));
  CHECK(absl::StrContains(e.out, "  expiry:        2025-07-02T13:20:04Z"));

  const std::vector<std::string> drifted =
      BudgetRow(Ok({"budgets", "-f", f, "--at", at}).out, "default", "Drifted");
  REQUIRE(drifted.size() >= 9);
  CHECK(drifted[4] == "1");
  CHECK(drifted[5] == "1");
}

TEST_CASE(
    "realworld: eks-expired-claims, expiry ignores budgets and "
    "do-not-disrupt",
    "[realworld]") {
  const std::string f = Data("eks-expired-claims.yaml");
  const std::string at = "2025-07-01T00:00:00Z";
  const std::string expired = Eks("10.40.5.17");
  const std::string young = Eks("10.40.90.3");

  CHECK(Ok({"validate", "-f", f}).out ==
        "3 objects valid (1 NodePool, 2 NodeClaims)\n");
  for (const std::string& catalog : {std::string(), std::string(kCatalog)}) {
    std::vector<std::string> args = {"-f", f, "--at", at};
    if (!catalog.empty()) args.insert(args.end(), {"--catalog", catalog});
    const v1::Plan plan = PlanJson(args);
    // Forceful and budget-free: no budgeted method acted.
    CHECK(plan.acted().empty());
    REQUIRE(plan.commands_size() == 1);
    CheckCommand(plan, 0, "Expiration", "Delete", {expired});
  }
  const Result p = Ok({"plan", "-f", f, "--at", at});
  CHECK(absl::StartsWith(p.out, "Disruption pass at " + at + ": 1 command\n"));
  CHECK(absl::StrContains(
      p.out, "  1: expired at 2025-06-27T06:00:00Z (expireAfter 168h0m0s)\n"));
  CheckVerdict(p.out, expired, "Commanded", "Expiration");
  CheckVerdict(p.out, young, "PodDoNotDisrupt", "Emptiness");

  const Result e = Ok({"explain", young, "-f", f, "--at", at});
  CHECK(absl::StrContains(e.out,
                          "  expiry:        2025-07-06T12:00:00Z (in "
                          "132h)\n"));
  CHECK(absl::StrContains(
      e.out,
      "  do-not-disrupt: etl/nightly-import-29140200-q8m3z "
      "(karpenter.sh/do-not-disrupt: \"true\") indefinitely\n"));
  CHECK(absl::StrContains(e.out,
                          "  disrupted:     at 2025-07-06T12:00:00Z (in 132h), "
                          "by Expiration\n"));

  const Result b = Ok({"budgets", "-f", f, "--at", at});
  for (const char* reason : {"Underutilized", "Empty", "Drifted"}) {
    const std::vector<std::string> row = BudgetRow(b.out, "batch", reason);
    REQUIRE(row.size() >= 9);
    CHECK(row[4] == "0");
    CHECK(row[7] == "never");
  }
}

TEST_CASE(
    "realworld: eks-jobs-do-not-disrupt.json, a business-hours budget "
    "holds the empty node",
    "[realworld]") {
  const std::string f = Data("eks-jobs-do-not-disrupt.json");
  const std::string at = "2025-06-12T14:00:00Z";  // a Thursday
  const std::string busy = Eks("10.50.8.21");
  const std::string empty = Eks("10.50.66.140");

  for (const std::string& catalog : {std::string(), std::string(kCatalog)}) {
    std::vector<std::string> args = {"plan", "-f", f, "--at", at};
    if (!catalog.empty()) args.insert(args.end(), {"--catalog", catalog});
    const Result p = Ok(args);
    CHECK(
        absl::StartsWith(p.out, "Disruption pass at " + at + ": 0 commands\n"));
    CheckVerdict(p.out, busy, "PodDoNotDisrupt", "Emptiness");
    CheckVerdict(p.out, empty, "BudgetExhausted", "Emptiness");
    CHECK(absl::StrContains(p.out, "\nNext pass: 2025-06-12T14:00:10Z\n"));
  }

  const Result b = Ok({"budgets", "-f", f, "--at", at});
  const std::vector<std::string> emptyb = BudgetRow(b.out, "jobs", "Empty");
  REQUIRE(emptyb.size() >= 9);
  CHECK(emptyb[4] == "0");
  CHECK(emptyb[6] == "budgets[1]");
  CHECK(emptyb[7] == "2025-06-12T17:00:00Z");
  CHECK(emptyb[8] == "2");
  const std::vector<std::string> drifted = BudgetRow(b.out, "jobs", "Drifted");
  REQUIRE(drifted.size() >= 9);
  CHECK(drifted[4] == "2");

  const Result e = Ok({"explain", empty, "-f", f, "--at", at});
  CHECK(absl::StrContains(e.out,
                          "  pods:          3 on the node, 0 to reschedule "
                          "(empty)\n"));
  CHECK(absl::StrContains(e.out,
                          "  disrupted:     at 2025-06-12T17:00:00Z (in 3h), "
                          "by Emptiness\n"));
  // At 17:00 the window closes and the empty node goes.
  const v1::Plan later = PlanJson({"-f", f, "--at", "2025-06-12T17:00:00Z"});
  CHECK(later.acted() == "Emptiness");
  REQUIRE(later.commands_size() == 1);
  CheckCommand(later, 0, "Emptiness", "Delete", {empty});

  const Result pr = Ok({"provision", "-f", f});
  CHECK(absl::StartsWith(pr.out, "No pending pods"));
}

TEST_CASE("realworld: eks-pending-pods, fit and provision", "[realworld]") {
  const std::string f = Data("eks-pending-pods.yaml");
  const std::string small = Eks("10.60.3.9");
  const std::string large = Eks("10.60.70.33");

  const Result renderer = Ok({"fit", "dev/renderer-8d9e7f6a5b-r4t5y", "-f", f});
  CHECK(absl::StartsWith(renderer.out,
                         "Pod dev/renderer-8d9e7f6a5b-r4t5y (unbound): 0/2 "
                         "nodes are available: 2 Insufficient cpu.\n"));
  const Result frontend = Ok({"fit", "dev/frontend-7c8d9e6f5a-q1w2e", "-f", f});
  CHECK(absl::StartsWith(frontend.out,
                         "Pod dev/frontend-7c8d9e6f5a-q1w2e (unbound): 2/2 "
                         "nodes are available.\n"));
  const Result cache = Ok({"fit", "dev/cache-9e8f7a6b5c-m7n8b", "-f", f});
  CHECK(absl::StrContains(cache.out,
                          "0/2 nodes are available: 2 node(s) didn't match "
                          "Pod's node affinity/selector.\n"));
  const std::vector<std::string> row = Row(cache.out, small);
  REQUIRE(row.size() >= 3);
  CHECK(row[1] == "no");
  CHECK(row[2] == "NodeAffinity");

  const Result pr = Ok({"provision", "-f", f});
  CHECK(absl::StartsWith(pr.out,
                         "3 pending pods: 1 on existing nodes, 1 on 1 new "
                         "NodeClaim, 1 unschedulable\n"));
  CHECK(absl::StrContains(pr.out, "Existing node " + small +
                                      ": 1 pod\n  "
                                      "dev/frontend-7c8d9e6f5a-q1w2e\n"));
  // Without a catalogue, the types the NodePool's nodes run: only the
  // m5.xlarge has room for 2500m next to the DaemonSets.
  CHECK(absl::StrContains(pr.out,
                          "  instance types (1, cheapest first): m5.xlarge\n"));
  CHECK(absl::StrContains(pr.out, "    dev/renderer-8d9e7f6a5b-r4t5y\n"));
  CHECK(absl::StrContains(pr.out, "Unschedulable: 1 pod\n"));
  CHECK(Row(pr.out, "dev/cache-9e8f7a6b5c-m7n8b").size() > 1);

  const Result priced = Ok({"provision", "-f", f, "--catalog", kCatalog});
  CHECK(absl::StrContains(priced.out,
                          "NodeClaim 1: NodePool default, 1 pod, price "
                          "0.0596/h\n"));
  CHECK(absl::StrContains(priced.out,
                          "  instance types (6, cheapest first): c6i.xlarge, "
                          "c5.xlarge, m5.xlarge,"));
  CHECK(Row(priced.out, "dev/cache-9e8f7a6b5c-m7n8b").size() > 1);

  // With prices, the m5.xlarge running one 3-CPU pod is replaced by a
  // cheaper c6i.xlarge.
  const std::string at = "2025-06-13T10:00:00Z";
  const v1::Plan plain = PlanJson({"-f", f, "--at", at});
  CHECK(plain.commands_size() == 0);
  const v1::Plan plan = PlanJson({"-f", f, "--at", at, "--catalog", kCatalog});
  CHECK(plan.acted() == "SingleNodeConsolidation");
  REQUIRE(plan.commands_size() == 1);
  CheckCommand(plan, 0, "SingleNodeConsolidation", "Replace", {large});
  REQUIRE(plan.commands(0).replacements_size() == 1);
  CHECK(plan.commands(0).replacements(0).instance_types(0) == "c6i.xlarge");
}

TEST_CASE("realworld: eks-v1beta1-cluster loads with v1beta1 spellings",
          "[realworld]") {
  const std::string f = Data("eks-v1beta1-cluster.yaml");
  const std::string at = "2024-09-01T12:00:00Z";
  CHECK(Ok({"validate", "-f", f}).out ==
        "4 objects valid (1 NodePool, 2 NodeClaims, 1 PodDisruptionBudget)\n");
  const Result i = Ok({"inspect", "-f", f});
  const std::vector<std::string> pool = Row(i.out, "default");
  REQUIRE(pool.size() >= 6);
  CHECK(pool[2] == "WhenUnderutilized");
  CHECK(pool[4] == "720h");
  const std::vector<std::string> b =
      BudgetRow(Ok({"budgets", "-f", f, "--at", at}).out, "default", "Empty");
  REQUIRE(b.size() >= 9);
  CHECK(b[4] == "1");  // 10% of 2, rounded up
}

// v1beta1 spec.disruption.expireAfter applies to the NodePool's NodeClaims.
TEST_CASE("realworld: eks-v1beta1-cluster expires by disruption.expireAfter",
          "[realworld]") {
  const std::string f = Data("eks-v1beta1-cluster.yaml");
  const std::string at = "2024-09-01T12:00:00Z";
  for (const std::string& catalog : {std::string(), std::string(kCatalog)}) {
    std::vector<std::string> args = {"-f", f, "--at", at};
    if (!catalog.empty()) args.insert(args.end(), {"--catalog", catalog});
    const v1::Plan plan = PlanJson(args);
    REQUIRE(plan.commands_size() >= 1);
    CheckCommand(plan, 0, "Expiration", "Delete", {Eks("10.70.11.4")});
  }
  const Result e = Ok({"explain", Eks("10.70.99.8"), "-f", f, "--at", at});
  CHECK(absl::StrContains(e.out, "  expiry:        2024-09-24T09:15:00Z"));
}

TEST_CASE(
    "realworld: eks-static-drift, a NodePool hash change drifts the old "
    "NodeClaim",
    "[realworld]") {
  const std::string f = Data("eks-static-drift.yaml");
  const std::string at = "2025-06-20T12:00:00Z";
  const std::string old_node = Eks("10.80.1.10");
  const Result p = Ok({"plan", "-f", f, "--at", at});
  CHECK(absl::StartsWith(
      p.out, "Disruption pass at " + at + ": 1 command (Drift acted)\n"));
  CheckVerdict(p.out, old_node, "Commanded", "Drift");
  CheckVerdict(p.out, Eks("10.80.2.20"), "NotExpired", "Expiration");
  CHECK(absl::StrContains(
      p.out, "\nDrifted condition: web-old7q Set (NodePoolDrifted)\n"));
  for (const std::string& catalog : {std::string(), std::string(kCatalog)}) {
    std::vector<std::string> args = {"-f", f, "--at", at};
    if (!catalog.empty()) args.insert(args.end(), {"--catalog", catalog});
    const v1::Plan plan = PlanJson(args);
    REQUIRE(plan.commands_size() == 1);
    CheckCommand(plan, 0, "Drift", "Delete", {old_node});
    CHECK(plan.commands(0).candidates(0).drift_reason() == "NodePoolDrifted");
  }
  const Result e = Ok({"explain", old_node, "-f", f, "--at", at});
  CHECK(absl::StrContains(e.out, "  verdict:       Commanded (Drift)"));
  const Result fresh = Ok({"explain", Eks("10.80.2.20"), "-f", f, "--at", at});
  CHECK(absl::StrContains(fresh.out, "  drift:         not drifted\n"));
}

TEST_CASE(
    "realworld: eks-nodes-only, managed node group nodes are not "
    "Karpenter's",
    "[realworld]") {
  const std::string f = Data("eks-nodes-only.yaml");
  const std::string at = "2025-06-21T08:00:00Z";
  CHECK(absl::StartsWith(Ok({"inspect", "-f", f}).out,
                         "Snapshot: 0 NodePools, 2 Nodes, 0 NodeClaims, 0 "
                         "Pods, 0 PodDisruptionBudgets, 0 DaemonSets\n"));
  const Result p = Ok({"plan", "-f", f, "--at", at});
  CHECK(absl::StartsWith(p.out, "Disruption pass at " + at + ": 0 commands\n"));
  CheckVerdict(p.out, Eks("10.90.1.5"), "NotManaged", "-");
  CheckVerdict(p.out, Eks("10.90.2.6"), "NotManaged", "-");
  const Result e = Ok({"explain", Eks("10.90.1.5"), "-f", f, "--at", at});
  CHECK(absl::StrContains(
      e.out, "  verdict:       NotManaged: node isn't managed by karpenter\n"));
}

// ------------------------------------------------------------------ AKS

TEST_CASE("realworld: aks-cluster-list, a PDB holds the drifted node",
          "[realworld]") {
  const std::string f = Data("aks-cluster-list.yaml");
  const std::string at = "2025-05-20T08:00:00Z";
  CHECK(Ok({"validate", "-f", f}).out ==
        "7 objects valid (2 NodePools, 4 NodeClaims, 1 PodDisruptionBudget)\n");
  const Result i = Ok({"inspect", "-f", f});
  const std::vector<std::string> node = Row(i.out, "aks-default-m3qzt");
  REQUIRE(node.size() >= 9);
  CHECK(node[2] == "Standard_D4s_v5");
  CHECK(node[3] == "eastus-2");

  const Result p = Ok({"plan", "-f", f, "--at", at});
  CHECK(absl::StartsWith(
      p.out, "Disruption pass at " + at + ": 1 command (Emptiness acted)\n"));
  CheckVerdict(p.out, "aks-default-b9vwd", "Commanded", "Emptiness");
  CheckVerdict(p.out, "aks-default-m3qzt", "PdbBlocked", "Emptiness");
  CheckVerdict(p.out, "aks-memory-optimized-h4j6k", "NotExpired", "Expiration");
  const v1::Plan plan = PlanJson({"-f", f, "--at", at});
  REQUIRE(plan.commands_size() == 1);
  CheckCommand(plan, 0, "Emptiness", "Delete", {"aks-default-b9vwd"});
  CHECK(plan.commands(0).candidates(0).provider_id() ==
        "azure:///subscriptions/5d7c2e9a-41b8-4f3e-9c06-8a1d2b3c4e5f/"
        "resourceGroups/mc_rg-payments-aks_payments-aks_eastus/providers/"
        "Microsoft.Compute/virtualMachines/aks-default-b9vwd");

  const Result e = Ok({"explain", "aks-default-m3qzt", "-f", f, "--at", at});
  CHECK(absl::StrContains(e.out, "  verdict:       PdbBlocked (Emptiness)"));
  CHECK(absl::StrContains(
      e.out,
      "  drift:         drifted (ImageDrift) since 2025-05-19T18:00:00Z\n"));
  CHECK(absl::StrContains(
      e.out,
      "  blocking PDB:  payments/ledger: disruptionsAllowed 0 (healthy "
      "1, desired 1, expected 1); pods "
      "payments/ledger-6f7e8d9c0b-n5m6k\n"));
  CHECK(absl::StrContains(e.out,
                          "  disrupted:     at 2025-05-31T12:30:00Z (in "
                          "268h30m), by Expiration\n"));

  const Result b = Ok({"budgets", "-f", f, "--at", at});
  const std::vector<std::string> drifted =
      BudgetRow(b.out, "default", "Drifted");
  REQUIRE(drifted.size() >= 9);
  CHECK(drifted[1] == "3");
  CHECK(drifted[4] == "1");
  const std::vector<std::string> mem =
      BudgetRow(b.out, "memory-optimized", "Empty");
  REQUIRE(mem.size() >= 9);
  CHECK(mem[4] == "1");
}

TEST_CASE("realworld: aks-multidoc, anti-affinity makes drift replace",
          "[realworld]") {
  const std::string f = Data("aks-multidoc.yaml");
  const std::string at = "2025-05-21T03:00:00Z";
  CHECK(absl::StartsWith(Ok({"inspect", "-f", f}).out,
                         "Snapshot: 1 NodePools, 3 Nodes, 3 NodeClaims, 12 "
                         "Pods, 0 PodDisruptionBudgets, 0 DaemonSets\n"));
  const Result p = Ok({"plan", "-f", f, "--at", at});
  CHECK(absl::StartsWith(
      p.out, "Disruption pass at " + at + ": 1 command (Drift acted)\n"));
  CHECK(absl::StrContains(p.out,
                          "  1: replace drifted node aks-default-r5t7y "
                          "(NodeClassDrift) with 1 new NodeClaim(s)\n"));
  CheckVerdict(p.out, "aks-default-r5t7y", "Commanded", "Drift");
  const v1::Plan plan = PlanJson({"-f", f, "--at", at});
  REQUIRE(plan.commands_size() == 1);
  CheckCommand(plan, 0, "Drift", "Replace", {"aks-default-r5t7y"});
  REQUIRE(plan.commands(0).replacements_size() == 1);
  CHECK(plan.commands(0).replacements(0).node_pool() == "default");
  REQUIRE(plan.commands(0).replacements(0).instance_types_size() == 1);
  CHECK(plan.commands(0).replacements(0).instance_types(0) ==
        "Standard_D4s_v5");
  const Result fit = Ok({"fit", "cache/memcached-1", "-f", f});
  CHECK(absl::StrContains(fit.out, "1/3 nodes are available"));
  const std::vector<std::string> other = Row(fit.out, "aks-default-q2w4e");
  REQUIRE(other.size() >= 3);
  CHECK(other[2] == "InterPodAffinity");
}

TEST_CASE("realworld: aks-v1beta1.json, Emptiness under a v1beta1 NodePool",
          "[realworld]") {
  const std::string f = Data("aks-v1beta1.json");
  const std::string at = "2024-11-05T16:00:00Z";
  CHECK(Ok({"validate", "-f", f}).out ==
        "3 objects valid (1 NodePool, 2 NodeClaims)\n");
  const Result p = Ok({"plan", "-f", f, "--at", at});
  CHECK(absl::StartsWith(
      p.out, "Disruption pass at " + at + ": 1 command (Emptiness acted)\n"));
  CheckVerdict(p.out, "aks-general-l8k7j", "Commanded", "Emptiness");
  CheckVerdict(p.out, "aks-general-p0o9i", "NotExpired", "Expiration");
  // consolidateAfter 5m from the last pod event at 14:40.
  const Result early = Ok({"explain", "aks-general-l8k7j", "-f", f, "--at",
                           "2024-11-05T14:42:00Z"});
  CHECK(absl::StrContains(early.out,
                          "  disrupted:     at 2024-11-05T14:45:00Z (in 3m), "
                          "by Emptiness\n"));
  const Result e = Ok({"explain", "aks-general-p0o9i", "-f", f, "--at", at});
  CHECK(absl::StrContains(e.out, "  expiry:        never\n"));
}

TEST_CASE("realworld: aks-pending.json, spot pods and a taint", "[realworld]") {
  const std::string f = Data("aks-pending.json");
  const Result pr = Ok({"provision", "-f", f});
  CHECK(absl::StartsWith(pr.out,
                         "3 pending pods: 0 on existing nodes, 2 on 2 new "
                         "NodeClaims, 1 unschedulable\n"));
  CHECK(absl::StrContains(
      pr.out,
      "NodeClaim 2: NodePool spot-compute, 1 pod, price unknown\n"
      "  instance types (1, cheapest first): Standard_F8s_v2\n"));
  const std::vector<std::string> preview =
      Row(pr.out, "render/preview-6c5b4-q1a2z");
  REQUIRE(preview.size() > 1);
  CHECK(absl::StrContains(pr.out,
                          "does not tolerate taint "
                          "kubernetes.azure.com/scalesetpriority=spot:"
                          "NoSchedule of NodePool spot-compute"));
  const Result fit = Ok({"fit", "render/preview-6c5b4-q1a2z", "-f", f});
  const std::vector<std::string> row = Row(fit.out, "aks-spot-compute-f9d8s");
  REQUIRE(row.size() >= 3);
  CHECK(row[1] == "no");
  CHECK(row[2] == "TaintToleration");
  const Result frames = Ok({"fit", "render/frames-1-a8s7d", "-f", f});
  CHECK(absl::StartsWith(frames.out,
                         "Pod render/frames-1-a8s7d (unbound): 0/1 nodes are "
                         "available: 1 Insufficient cpu, 1 Insufficient "
                         "memory.\n"));
  const Result p = Ok({"plan", "-f", f, "--at", "2025-05-22T07:00:00Z"});
  CHECK(absl::StartsWith(p.out,
                         "Disruption pass at 2025-05-22T07:00:00Z: 0 "
                         "commands\n"));
}

// ------------------------------------------------------------------ GKE

TEST_CASE("realworld: gke-cluster, consolidateAfter and an uninitialized node",
          "[realworld]") {
  const std::string f = Data("gke-cluster.yaml");
  const std::string at = "2025-04-02T10:00:00Z";
  const Result p = Ok({"plan", "-f", f, "--at", at});
  CHECK(absl::StartsWith(p.out, "Disruption pass at " + at + ": 0 commands\n"));
  CheckVerdict(p.out, "karpenter-default-9kl2m", "NotInitialized", "-");
  CHECK(absl::StrContains(p.out, "\nNext pass: 2025-04-02T10:00:10Z\n"));
  const Result e =
      Ok({"explain", "karpenter-default-z8x7c", "-f", f, "--at", at});
  CHECK(absl::StrContains(e.out,
                          "  consolidation: WhenEmptyOrUnderutilized, "
                          "consolidateAfter elapses 2025-04-02T10:03:00Z (in "
                          "3m)\n"));
  CHECK(absl::StrContains(e.out,
                          "  disrupted:     at 2025-04-02T10:03:00Z (in 3m), "
                          "by Emptiness\n"));
  const v1::Plan later = PlanJson({"-f", f, "--at", "2025-04-02T10:03:00Z"});
  CHECK(later.acted() == "Emptiness");
  REQUIRE(later.commands_size() == 1);
  CheckCommand(later, 0, "Emptiness", "Delete", {"karpenter-default-z8x7c"});
  CHECK(later.commands(0).candidates(0).provider_id() ==
        "gce://acme-platform-prod/us-central1-c/karpenter-default-z8x7c");
  const Result i = Ok({"inspect", "-f", f});
  const std::vector<std::string> node = Row(i.out, "karpenter-default-z8x7c");
  REQUIRE(node.size() >= 5);
  CHECK(node[2] == "n2-standard-4");
  CHECK(node[3] == "us-central1-c");
}

TEST_CASE(
    "realworld: gke-cluster.json, a short expireAfter and a deleting "
    "node",
    "[realworld]") {
  const std::string f = Data("gke-cluster.json");
  const std::string at = "2025-04-03T18:00:00Z";
  CHECK(Ok({"validate", "-f", f}).out ==
        "4 objects valid (1 NodePool, 3 NodeClaims)\n");
  const Result i = Ok({"inspect", "-f", f});
  const std::vector<std::string> deleting =
      Row(i.out, "karpenter-spot-batch-ee33f");
  REQUIRE(deleting.size() >= 9);
  CHECK(deleting.back() == "yes");
  const Result p = Ok({"plan", "-f", f, "--at", at});
  CHECK(absl::StartsWith(p.out, "Disruption pass at " + at + ": 1 command\n"));
  CheckVerdict(p.out, "karpenter-spot-batch-aa11b", "Commanded", "Expiration");
  CheckVerdict(p.out, "karpenter-spot-batch-ee33f", "Deleting", "-");
  const Result e =
      Ok({"explain", "karpenter-spot-batch-cc22d", "-f", f, "--at", at});
  CHECK(absl::StrContains(e.out,
                          "  expiry:        2025-04-04T10:00:00Z (in "
                          "16h)\n"));
  const std::vector<std::string> b = BudgetRow(
      Ok({"budgets", "-f", f, "--at", at}).out, "spot-batch", "Empty");
  REQUIRE(b.size() >= 9);
  // The deleting node's instance is already terminating
  // (InstanceTerminating=True): Karpenter neither counts it nor has it
  // consume budget. 50% of 2 nodes = 1.
  CHECK(b[1] == "2");
  CHECK(b[2] == "0");
  CHECK(b[4] == "1");
  CHECK(b[5] == "1");
}

TEST_CASE("realworld: gke-pending, a machine-family selector and a GPU pod",
          "[realworld]") {
  const std::string f = Data("gke-pending.yaml");
  const Result pr = Ok({"provision", "-f", f});
  CHECK(absl::StartsWith(pr.out,
                         "2 pending pods: 0 on existing nodes, 1 on 1 new "
                         "NodeClaim, 1 unschedulable\n"));
  CHECK(absl::StrContains(
      pr.out, "  instance types (1, cheapest first): n2-standard-4\n"));
  CHECK(absl::StrContains(pr.out,
                          "    cloud.google.com/machine-family In "
                          "[n2]\n"));
  CHECK(absl::StrContains(pr.out, "    ml/trainer-1c2d3e4f5a-m5n6b\n"));
  const std::vector<std::string> gpu =
      Row(pr.out, "ml/gpu-infer-0e1f2a3b4c-k7j8h");
  REQUIRE(gpu.size() > 1);
  CHECK(absl::StrContains(pr.out, "nvidia.com/gpu: 1"));
  const Result fit = Ok({"fit", "ml/trainer-1c2d3e4f5a-m5n6b", "-f", f});
  CHECK(absl::StartsWith(fit.out,
                         "Pod ml/trainer-1c2d3e4f5a-m5n6b (unbound): 0/2 nodes "
                         "are available: 1 Insufficient cpu, 1 node(s) didn't "
                         "match Pod's node affinity/selector.\n"));
}

// ------------------------------------------- single objects, partial dumps

TEST_CASE("realworld: hand-written NodePools and node classes", "[realworld]") {
  const Result v1 = Ok({"validate", "-f", Data("nodepool-v1-docs.yaml")});
  CHECK(v1.out ==
        "not checked: EC2NodeClass (provider-specific), 1 object\n"
        "1 object valid (1 NodePool)\n");
  const Result i1 = Ok({"inspect", "-f", Data("nodepool-v1-docs.yaml")});
  CHECK(absl::StrContains(i1.out, "Skipped: EC2NodeClass 1\n"));
  CHECK(absl::StrContains(
      i1.out, "20%; 0 at \"0 9 * * mon-fri\" for 8h [Underutilized]\n"));
  const Result b1 = Ok({"budgets", "-f", Data("nodepool-v1-docs.yaml"), "--at",
                        "2025-06-12T14:00:00Z"});
  const std::vector<std::string> row = BudgetRow(b1.out, "default", "Empty");
  REQUIRE(row.size() >= 9);
  CHECK(row[1] == "0");
  CHECK(row[4] == "0");

  const Result v2 = Ok({"validate", "-f", Data("nodepool-v1beta1-docs.yaml")});
  CHECK(v2.out ==
        "not checked: EC2NodeClass (provider-specific), 1 object\n"
        "1 object valid (1 NodePool)\n");
  const Result i2 = Ok({"inspect", "-f", Data("nodepool-v1beta1-docs.yaml")});
  const std::vector<std::string> pool = Row(i2.out, "general-purpose");
  REQUIRE(pool.size() >= 6);
  CHECK(pool[2] == "WhenUnderutilized");
  CHECK(pool[3] == "-");
  CHECK(pool[4] == "168h");

  for (const char* kind : {"EC2NodeClass", "AKSNodeClass"}) {
    const std::string file =
        Data(absl::AsciiStrToLower(kind) + std::string(".yaml"));
    const Result i = Ok({"inspect", "-f", file});
    CHECK(absl::StartsWith(i.out, "Snapshot: 0 NodePools, 0 Nodes"));
    CHECK(absl::StrContains(i.out, absl::StrCat("Skipped: ", kind, " 1\n")));
    // A node class alone: validate checks nothing, says so and fails.
    const Result v = Run({"validate", "-f", file});
    CHECK(v.status == kExitInvalid);
    CHECK(v.out == absl::StrCat("not checked: ", kind,
                                " (provider-specific), 1 object\n"
                                "nothing to validate (no NodePool, NodeClaim "
                                "or PodDisruptionBudget)\n"));
  }
}

// validate rejects v1beta1-only values in a v1 NodePool (fixed by the
// validation library).
TEST_CASE("realworld: validate rejects WhenUnderutilized in a v1 NodePool",
          "[realworld]") {
  const Result r =
      Run({"validate", "-f", Data("nodepool-v1-with-v1beta1-values.yaml")});
  CHECK(r.status == kExitInvalid);
  CHECK(absl::StrContains(r.out, "NodePool migrated"));
  CHECK(absl::StrContains(r.out, "spec.disruption.consolidationPolicy"));
  CHECK(absl::StrContains(r.out, "WhenUnderutilized"));
}

TEST_CASE("realworld: a v1alpha5 Provisioner is skipped by inspect",
          "[realworld]") {
  const Result i = Ok({"inspect", "-f", Data("provisioner-v1alpha5.yaml")});
  CHECK(absl::StrContains(i.out, "Skipped: Provisioner 1\n"));
  CHECK(absl::StartsWith(i.out, "Snapshot: 0 NodePools"));
}

// validate fails a file holding only a Provisioner: nothing was checked.
TEST_CASE("realworld: validate does not pass a Provisioner-only file",
          "[realworld]") {
  const Result r = Run({"validate", "-f", Data("provisioner-v1alpha5.yaml")});
  CHECK(r.status != kExitOk);
  CHECK(absl::StrContains(r.out + r.err, "Provisioner"));
}

TEST_CASE("realworld: single objects and partial dumps load", "[realworld]") {
  const Result claim = Ok({"inspect", "-f", Data("nodeclaim-single.yaml")});
  CHECK(absl::StartsWith(claim.out,
                         "Snapshot: 0 NodePools, 0 Nodes, 1 NodeClaims, 0 "
                         "Pods"));
  const Result node = Ok({"inspect", "-f", Data("node-single.json")});
  CHECK(absl::StartsWith(node.out,
                         "Snapshot: 0 NodePools, 1 Nodes, 0 NodeClaims, 0 "
                         "Pods"));
  const std::vector<std::string> row = Row(node.out, Eks("10.20.33.14"));
  REQUIRE(row.size() >= 9);
  CHECK(row[2] == "m5.xlarge");
  CHECK(row[7] == "-");  // no NodeClaim in the file
  // A Node without its NodeClaim is not a candidate, and the dump is
  // partial: plan says which objects to add.
  const Result plan = Run(
      {"plan", "-f", Data("node-single.json"), "--at", "2025-06-15T12:00:00Z"});
  CHECK(plan.status == kExitOk);
  CHECK(plan.err ==
        "warning: the dump has 1 Node labelled karpenter.sh/nodepool but no "
        "NodeClaims, so no node is managed by Karpenter; add them with: "
        "kubectl get nodeclaims -o yaml\n");
  CheckVerdict(plan.out, Eks("10.20.33.14"), "NotManaged", "-");

  const Result partial =
      Ok({"inspect", "-f", Data("nodeclaims-without-nodepools.yaml")});
  CHECK(absl::StartsWith(partial.out,
                         "Snapshot: 0 NodePools, 2 Nodes, 2 NodeClaims, 6 "
                         "Pods"));
  // The same Node in two files (a single-object dump next to the whole
  // cluster's) is an input error naming it.
  const Result both = Run({"inspect", "-f", Data("node-single.json"), "-f",
                           Data("eks-prod-list.yaml")});
  CHECK(both.status == kExitUsage);
  CHECK(both.out.empty());
  CHECK(absl::StrContains(both.err, "duplicate Node \"" + Eks("10.20.33.14")));
}

// NodeClaims whose NodePool is not in the dump: a warning naming the
// NodePool, and no NodePoolDeleted command without --complete.
TEST_CASE("realworld: a dump without the NodePools warns", "[realworld]") {
  for (const char* file :
       {"nodeclaims-without-nodepools.yaml", "nodeclaim-single.yaml"}) {
    const Result r =
        Run({"plan", "-f", Data(file), "--at", "2025-06-15T12:00:00Z"});
    CAPTURE(file, r.out, r.err);
    CHECK(r.status == kExitOk);
    CHECK(absl::StrContains(r.err, "NodePool"));
    // The missing NodePool is named.
    CHECK(absl::StrContains(r.err, absl::StartsWith(file, "nodeclaim-single")
                                       ? "general"
                                       : "default"));
    CHECK_FALSE(absl::StrContains(r.out, "NodePoolDeleted"));
    const Result complete = Run({"plan", "-f", Data(file), "--at",
                                 "2025-06-15T12:00:00Z", "--complete"});
    CHECK(complete.status == kExitOk);
    CHECK(absl::StrContains(complete.out, "NodePoolDeleted"));
  }
}

// A JSON number in spec.limits ("cpu": 500), which Kubernetes accepts for a
// quantity, loads as the quantity "500".
TEST_CASE("realworld: JSON numbers as quantities in NodePool limits",
          "[realworld]") {
  const std::string f = Data("nodepool-limits-number.json");
  const Result v = Run({"validate", "-f", f});
  CHECK(v.status == kExitOk);
  CHECK(v.err.empty());
  CHECK(v.out == "1 object valid (1 NodePool)\n");
  const Result i = Run({"inspect", "-f", f});
  CHECK(i.status == kExitOk);
  CHECK(absl::StrContains(i.out, "Snapshot: 1 NodePools"));
}

// A missing creationTimestamp is taken as --at (with a warning), never as
// 1970, so a hand-written NodeClaim is not planned as expired.
TEST_CASE("realworld: a NodeClaim without creationTimestamp is not expired",
          "[realworld]") {
  const std::string f = Data("handwritten-no-timestamps.yaml");
  const std::string node = "ip-10-1-1-1.us-west-2.compute.internal";
  const Result p = Run({"plan", "-f", f, "--at", "2025-06-15T12:00:00Z"});
  CHECK(p.status == kExitOk);
  CHECK(p.err == "warning: " + f +
                     ": NodeClaim \"default-hand1\": "
                     "metadata.creationTimestamp, "
                     "status.conditions[Initialized].lastTransitionTime are "
                     "missing; taken as 2025-06-15T12:00:00Z (--at)\n");
  const Result strict =
      Run({"plan", "--strict", "-f", f, "--at", "2025-06-15T12:00:00Z"});
  CHECK(strict.status == kExitUsage);
  CHECK(strict.out.empty());
  CHECK(absl::StrContains(strict.err, "--strict: " + f));
  CHECK_FALSE(absl::StrContains(p.out, "Expiration  Delete"));
  CHECK_FALSE(absl::StrContains(p.out, "1970"));
  const std::vector<std::string> row = Row(p.out, node);
  REQUIRE(row.size() >= 3);
  CHECK(row[2] != "Commanded");
  const Result e =
      Run({"explain", node, "-f", f, "--at", "2025-06-15T12:00:00Z"});
  CHECK_FALSE(absl::StrContains(e.out, "1970"));
}

TEST_CASE("realworld: the hand-written fixture loads and validates",
          "[realworld]") {
  const std::string f = Data("handwritten-no-timestamps.yaml");
  CHECK(Ok({"validate", "-f", f}).out ==
        "2 objects valid (1 NodePool, 1 NodeClaim)\n");
  CHECK(absl::StartsWith(Ok({"inspect", "-f", f}).out,
                         "Snapshot: 1 NodePools, 1 Nodes, 1 NodeClaims, 1 "
                         "Pods"));
}

TEST_CASE(
    "realworld: budgets-schedules, windows, CRON_TZ and reason-only "
    "budgets",
    "[realworld]") {
  const std::string f = Data("budgets-schedules.yaml");
  const std::string at = "2025-06-13T15:00:00Z";  // Friday, 11:00 New York
  const Result b = Ok({"budgets", "-f", f, "--at", at});
  const std::vector<std::string> hours =
      BudgetRow(b.out, "business-hours", "Underutilized");
  REQUIRE(hours.size() >= 9);
  CHECK(hours[4] == "0");
  CHECK(hours[6] == "budgets[1]");
  CHECK(hours[7] == "2025-06-13T21:00:00Z");
  CHECK(hours[8] == "1");
  const std::vector<std::string> hours_drift =
      BudgetRow(b.out, "business-hours", "Drifted");
  REQUIRE(hours_drift.size() >= 9);
  CHECK(hours_drift[4] == "1");
  // Karpenter parses budget schedules with "TZ=UTC " in front: CRON_TZ=
  // cannot parse, and the budget fails closed.
  for (const char* reason : {"Underutilized", "Empty", "Drifted"}) {
    const std::vector<std::string> ny = BudgetRow(b.out, "new-york", reason);
    REQUIRE(ny.size() >= 10);
    CHECK(ny[4] == "0");
    CHECK(ny[9] == "fail");
  }
  // The weekend 50% cannot raise the always-active Drifted "0": the minimum
  // of the active budgets wins. Empty has no budget at all.
  const std::vector<std::string> drift =
      BudgetRow(b.out, "weekend-drift", "Drifted");
  REQUIRE(drift.size() >= 9);
  CHECK(drift[4] == "0");
  CHECK(drift[7] == "never");
  const std::vector<std::string> empty =
      BudgetRow(b.out, "weekend-drift", "Empty");
  REQUIRE(empty.size() >= 9);
  CHECK(empty[4] == "unlimited");
  const Result saturday =
      Ok({"budgets", "-f", f, "--at", "2025-06-14T12:00:00Z"});
  const std::vector<std::string> sat =
      BudgetRow(saturday.out, "weekend-drift", "Drifted");
  REQUIRE(sat.size() >= 9);
  CHECK(sat[4] == "0");

  const Result v = Run({"validate", "-f", f});
  CHECK(v.status == kExitInvalid);
  CHECK(absl::StrContains(
      v.out, "NodePool new-york: spec.disruption.budgets[1].schedule:"));
  CHECK(absl::StrContains(v.out, "CRON_TZ=America/New_York 0 9 * * 1-5"));
  CHECK_FALSE(absl::StrContains(v.out, "business-hours"));

  const std::string drifted = Eks("10.12.4.10");
  const Result p = Ok({"plan", "-f", f, "--at", at});
  CHECK(absl::StartsWith(p.out, "Disruption pass at " + at + ": 0 commands\n"));
  CheckVerdict(p.out, drifted, "BudgetExhausted", "Drift");
  const Result e = Ok({"explain", drifted, "-f", f, "--at", at});
  CHECK(absl::StrContains(e.out,
                          "  drift:         drifted (NodeClassDrift) since "
                          "2025-06-13T08:00:00Z\n"));
  CHECK(absl::StrContains(e.out, "    Empty: allowed unlimited"));
  CHECK(absl::StrContains(e.out,
                          "  disrupted:     at 2025-07-12T10:00:00Z (in 691h), "
                          "by Expiration\n"));

  // With prices, the two weekend-drift nodes (Underutilized unlimited) are
  // consolidated into one cheaper NodeClaim, which Karpenter may launch from
  // any NodePool: business-hours sorts first.
  const v1::Plan plan = PlanJson({"-f", f, "--at", at, "--catalog", kCatalog});
  CHECK(plan.acted() == "MultiNodeConsolidation");
  REQUIRE(plan.commands_size() == 1);
  CheckCommand(plan, 0, "MultiNodeConsolidation", "Replace",
               {drifted, Eks("10.12.5.11")});
}

// A reason no budget limits reads "unlimited" in explain and plan, never
// MaxInt32 or MaxInt32 less the candidates.
TEST_CASE("realworld: unlimited budgets never print as 2147483647",
          "[realworld]") {
  const std::string f = Data("budgets-schedules.yaml");
  const std::string at = "2025-06-13T15:00:00Z";
  const Result e = Run({"explain", Eks("10.12.4.10"), "-f", f, "--at", at});
  CHECK(e.status == kExitOk);
  CHECK_FALSE(absl::StrContains(e.out, "2147483647"));
  const Result p = Run({"plan", "-f", f, "--at", at, "--catalog", kCatalog});
  CHECK(p.status == kExitOk);
  CHECK_FALSE(absl::StrContains(p.out, "214748364"));
}

TEST_CASE("realworld: PDBs from kubectl create --dry-run", "[realworld]") {
  const std::string f = Data("pdb-dry-run.yaml");
  const Result v = Run({"validate", "-f", f});
  CHECK(v.status == kExitInvalid);
  CHECK(v.err.empty());
  CHECK(v.out ==
        f + ": document 3: " +
            "policy/v1 PodDisruptionBudget default/search: spec: minAvailable "
            "and maxUnavailable cannot be both set "
            "(ValidatePodDisruptionBudgetSpec), got \"minAvailable: 2, "
            "maxUnavailable: 1\"\n");
  const Result i = Ok({"inspect", "-f", f});
  // creationTimestamp: null and the all-zero status load; inspect shows
  // what the dump says (disruptionsAllowed 0, as the API server has not
  // computed it).
  CHECK(absl::StartsWith(i.out,
                         "Snapshot: 0 NodePools, 0 Nodes, 0 NodeClaims, 0 "
                         "Pods, 3 PodDisruptionBudgets"));
  CHECK(absl::StrContains(i.out, "search"));
}

TEST_CASE("realworld: pending pods and nothing else", "[realworld]") {
  const std::string f = Data("pods-pending-only.yaml");
  const Result pr = Ok({"provision", "-f", f});
  CHECK(absl::StartsWith(pr.out,
                         "2 pending pods: 0 on existing nodes, 0 on 0 new "
                         "NodeClaims, 2 unschedulable\n"));
  CHECK(absl::StrContains(pr.out, "there is no NodePool that is Ready"));
  const Result fit = Ok({"fit", "web/storefront-7f6e5d4c3b-b7n6m", "-f", f});
  CHECK(absl::StartsWith(fit.out,
                         "Pod web/storefront-7f6e5d4c3b-b7n6m (unbound): 0/0 "
                         "nodes are available.\n"));
}

TEST_CASE(
    "realworld: nodepools-list.json, a budget schedule without "
    "duration",
    "[realworld]") {
  const std::string f = Data("nodepools-list.json");
  const Result v = Run({"validate", "-f", f});
  CHECK(v.status == kExitInvalid);
  CHECK(v.out ==
        f + ": items[2]: " +
            "karpenter.sh/v1 NodePool bad-budget: "
            "spec.disruption.budgets[0].duration: 'schedule' must be set with "
            "'duration' (CEL rule), got \"0 9 * * mon-fri\"\n");
  const Result i = Ok({"inspect", "-f", f});
  CHECK(absl::StartsWith(i.out, "Snapshot: 3 NodePools, 0 Nodes"));
  const std::vector<std::string> gpu = Row(i.out, "gpu");
  REQUIRE(gpu.size() >= 6);
  CHECK(gpu[2] == "WhenEmpty");
  CHECK(gpu[3] == "15m");
  CHECK(gpu[4] == "Never");
}

}  // namespace
}  // namespace karpenter::cli
