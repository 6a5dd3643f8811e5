// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// `karpenter plan` and `karpenter explain`, end to end on the bundled demo
// cluster and on malformed input.

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "cli_test_util.h"
#include "google/protobuf/util/json_util.h"
#include "karpenter/v1/plan.pb.h"

namespace karpenter::cli {
namespace {

using test::Run;

constexpr char kAt[] = "2025-03-05T12:00:00Z";
constexpr char kEmpty[] = "ip-10-0-1-89.us-west-2.compute.internal";
constexpr char kBusy[] = "ip-10-0-1-23.us-west-2.compute.internal";

// The table row of `node` in plan's text output.
std::string RowOf(const std::string& out, const std::string& node) {
  for (absl::string_view line : absl::StrSplit(out, '\n')) {
    if (absl::StartsWith(line, node + " ")) return std::string(line);
  }
  return "";
}

TEST_CASE("plan cli: text lists the command and a verdict per node",
          "[cli][plan]") {
  const test::Result r = Run({"plan", "--at", kAt});
  REQUIRE(r.status == kExitOk);
  CHECK(r.err.empty());
  CHECK(absl::StartsWith(r.out,
                         "Disruption pass at 2025-03-05T12:00:00Z: 1 command "
                         "(Emptiness acted)\n"));
  CHECK(absl::StrContains(r.out,
                          "1  Emptiness  Delete    " + std::string(kEmpty)));
  CHECK(absl::StrContains(RowOf(r.out, kEmpty), "Commanded"));
  CHECK(absl::StrContains(RowOf(r.out, kBusy), "PdbBlocked"));
  CHECK(absl::StrContains(RowOf(r.out, kBusy), "payments/api"));
  CHECK(absl::StrContains(
      RowOf(r.out, "ip-10-0-2-101.us-west-2.compute.internal"),
      "PodDoNotDisrupt"));
  CHECK(absl::StrContains(
      RowOf(r.out, "ip-10-0-1-140.us-west-2.compute.internal"),
      "ConsolidationDisabled"));
  CHECK(absl::StrContains(r.out, "\nNext pass: 2025-03-05T12:00:00Z\n"));
}

TEST_CASE("plan cli: without --at, now is taken to the second", "[cli][plan]") {
  const test::Result r = Run({"plan"});
  REQUIRE(r.status == kExitOk);
  // "Disruption pass at T: ..." and "Next pass: T": whole seconds both, as
  // the JSON's "now" (no fraction of the system clock's).
  const size_t at = r.out.find("Disruption pass at ");
  REQUIRE(at == 0);
  const std::string pass_time = r.out.substr(19, 20);
  const size_t next = r.out.find("\nNext pass: ");
  REQUIRE(next != std::string::npos);
  const std::string next_line =
      r.out.substr(next + 12, r.out.find('\n', next + 1) - next - 12);
  absl::Time pass, next_pass;
  std::string error;
  REQUIRE(absl::ParseTime("%Y-%m-%dT%H:%M:%SZ", pass_time, &pass, &error));
  INFO(next_line);
  REQUIRE(absl::ParseTime("%Y-%m-%dT%H:%M:%SZ", next_line, &next_pass, &error));
  CHECK(next_pass > pass);
  const test::Result j = Run({"plan", "-o", "json"});
  REQUIRE(j.status == kExitOk);
  const size_t now = j.out.find("\"now\": \"");
  REQUIRE(now != std::string::npos);
  CHECK(j.out.substr(now + 8 + 19, 2) == "Z\"");
}

TEST_CASE("plan cli: json parses back into a Plan", "[cli][plan]") {
  const test::Result r = Run({"plan", "--at", kAt, "-o", "json"});
  REQUIRE(r.status == kExitOk);
  v1::Plan plan;
  REQUIRE(google::protobuf::util::JsonStringToMessage(r.out, &plan).ok());
  CHECK(plan.now() == kAt);
  CHECK(plan.acted() == "Emptiness");
  REQUIRE(plan.commands_size() == 1);
  CHECK(plan.commands(0).candidates(0).node() == kEmpty);
  CHECK(plan.verdicts_size() == 8);
  CHECK(plan.budgets_size() == 9);
  // Emptiness is not consolidation: without consolidation it still acts.
  const test::Result quiet =
      Run({"plan", "--at", kAt, "-o", "json", "--no-consolidation"});
  REQUIRE(quiet.status == kExitOk);
  v1::Plan same;
  REQUIRE(google::protobuf::util::JsonStringToMessage(quiet.out, &same).ok());
  CHECK(same.acted() == "Emptiness");
  // Before consolidateAfter has elapsed nothing acts: the 10 s poll.
  const test::Result early =
      Run({"plan", "--at", "2025-03-04T07:46:00Z", "-o", "json"});
  REQUIRE(early.status == kExitOk);
  v1::Plan none;
  REQUIRE(google::protobuf::util::JsonStringToMessage(early.out, &none).ok());
  CHECK(none.commands_size() == 0);
  CHECK(none.acted().empty());
  CHECK(none.next_pass() == "2025-03-04T07:46:10Z");
}

TEST_CASE("plan cli: bad usage and malformed input exit 2 with one line",
          "[cli][plan]") {
  const std::string truncated = test::WriteTemp(
      "plan_truncated.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name");
  const std::string wrong_type = test::WriteTemp(
      "plan_wrong_type.json",
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},)"
      R"("spec":{"terminationGracePeriodSeconds":"abc"}})");
  const test::UsageCase cases[] = {
      {{"plan", "--at", "yesterday"},
       "karpenter: plan: --at: \"yesterday\" is not an RFC 3339 time"},
      {{"plan", "-o", "yaml"},
       "karpenter: plan: -o: \"yaml\" is not text or json\n"},
      {{"plan", "--bogus"}, "karpenter: plan: unknown option \"--bogus\"\n"},
      {{"plan", "-f"}, "karpenter: plan: -f: missing value\n"},
      {{"plan", "-f", "/nonexistent/cluster.yaml"},
       "karpenter: plan: cannot open \"/nonexistent/cluster.yaml\""},
      {{"plan", "-f", truncated}, "karpenter: plan: " + truncated},
      {{"plan", "-f", wrong_type}, "spec.terminationGracePeriodSeconds"},
      {{"explain"}, "karpenter: explain: missing NODE\n"},
      {{"explain", "a", "b"}, "karpenter: explain: one NODE expected, got 2\n"},
      {{"explain", "nope", "--at", kAt},
       "karpenter: explain: node \"nope\" not found\n"},
      {{"explain", kBusy, "--horizon", "forever"},
       "karpenter: explain: --horizon: \"forever\" is not a finite "
       "duration >= 0"},
      {{"explain", kBusy, "-o", "json"},
       "karpenter: explain: unknown option \"-o\"\n"},
  };
  for (const test::UsageCase& c : cases) test::CheckUsageError(c);
}

TEST_CASE(
    "plan cli: a zone spread turns a drifted node's deletion into a "
    "replacement",
    "[cli][plan]") {
  // demo-drifted.yaml: the demo without its empty node, with ip-10-0-3-67's
  // NodeClaim Drifted; demo-web-spread.yaml: the same with the web pods
  // spread across zones (maxSkew 1, DoNotSchedule), one per zone.
  constexpr char kDrifted[] = "ip-10-0-3-67.us-west-2.compute.internal";
  const test::Result plain = Run(
      {"plan", "-f", KARPENTER_TESTDATA_DIR "/demo-drifted.yaml", "--at", kAt});
  REQUIRE(plain.status == kExitOk);
  CHECK(absl::StartsWith(plain.out,
                         "Disruption pass at 2025-03-05T12:00:00Z: 1 command "
                         "(Drift acted)\n"));
  CHECK(absl::StrContains(plain.out,
                          "1  Drift   Delete    " + std::string(kDrifted)));
  CHECK(absl::StrContains(RowOf(plain.out, kDrifted), "Commanded"));
  // With the spread, the web pod on ip-10-0-3-67 (us-west-2c) may stay only
  // in us-west-2c, whose other node is NotReady: the pass replaces
  // ip-10-0-3-67 with one NodeClaim that may launch only in us-west-2c (its
  // requirements are not printed; the library test "topology: the demo
  // cluster's drifted node, with and without zone spread" checks them),
  // an m5.xlarge, the default NodePool's only type offered there.
  const test::Result spread =
      Run({"plan", "-f", KARPENTER_TESTDATA_DIR "/demo-web-spread.yaml", "--at",
           kAt});
  REQUIRE(spread.status == kExitOk);
  CHECK(absl::StartsWith(spread.out,
                         "Disruption pass at 2025-03-05T12:00:00Z: 1 command "
                         "(Drift acted)\n"));
  CHECK(absl::StrContains(spread.out, "1  Drift   Replace   " +
                                          std::string(kDrifted) +
                                          "  default/m5.xlarge  -\n"));
  CHECK(absl::StrContains(
      spread.out, "  1: replace drifted node " + std::string(kDrifted) +
                      " (RequirementsDrifted) with 1 new NodeClaim(s)\n"));
  const std::string row = RowOf(spread.out, kDrifted);
  CHECK(absl::StrContains(row, " Commanded "));
  CHECK(absl::StrContains(row, " Drift "));
  const test::Result json =
      Run({"plan", "-f", KARPENTER_TESTDATA_DIR "/demo-web-spread.yaml", "--at",
           kAt, "-o", "json"});
  REQUIRE(json.status == kExitOk);
  v1::Plan plan;
  REQUIRE(google::protobuf::util::JsonStringToMessage(json.out, &plan).ok());
  CHECK(plan.acted() == "Drift");
  REQUIRE(plan.commands_size() == 1);
  const v1::PlanCommand& command = plan.commands(0);
  CHECK(command.decision() == "Replace");
  REQUIRE(command.candidates_size() == 1);
  CHECK(command.candidates(0).node() == kDrifted);
  CHECK(command.candidates(0).zone() == "us-west-2c");
  REQUIRE(command.replacements_size() == 1);
  CHECK(command.replacements(0).node_pool() == "default");
  REQUIRE(command.replacements(0).instance_types_size() == 1);
  CHECK(command.replacements(0).instance_types(0) == "m5.xlarge");
}

TEST_CASE("explain cli: a blocked node names its PDB and its expiry",
          "[cli][explain]") {
  const test::Result r = Run({"explain", kBusy, "--at", kAt});
  REQUIRE(r.status == kExitOk);
  CHECK(absl::StartsWith(
      r.out,
      "Node ip-10-0-1-23.us-west-2.compute.internal (NodeClaim "
      "default-7xk2p), NodePool default, at 2025-03-05T12:00:00Z\n"));
  CHECK(absl::StrContains(r.out, "  verdict:       PdbBlocked (Emptiness)"));
  CHECK(absl::StrContains(
      r.out,
      "  blocking PDB:  payments/api: disruptionsAllowed 0 (healthy 2, "
      "desired 2, expected 2); pods payments/api-58b7c9f4d-gk2lx\n"));
  CHECK(absl::StrContains(r.out, "  expiry:        2025-04-02T08:10:01Z"));
  CHECK(absl::StrContains(r.out,
                          "  disrupted:     at 2025-04-02T08:10:01Z (in "
                          "668h10m1s), by Expiration\n"));
  const test::Result soon =
      Run({"explain", kBusy, "--at", kAt, "--horizon", "24h"});
  REQUIRE(soon.status == kExitOk);
  CHECK(absl::StrContains(soon.out,
                          "  disrupted:     not within 24h if nothing else "
                          "changes"));
}

TEST_CASE("explain cli: consolidateAfter remaining and the acting pass",
          "[cli][explain]") {
  const test::Result r =
      Run({"explain", kEmpty, "--at", "2025-03-04T07:46:00Z"});
  REQUIRE(r.status == kExitOk);
  CHECK(absl::StrContains(r.out,
                          "consolidateAfter elapses 2025-03-04T07:46:19Z "
                          "(in 19s)"));
  CHECK(absl::StrContains(r.out, "(empty)"));
  CHECK(
      absl::StrContains(r.out,
                        "  disrupted:     at 2025-03-04T07:46:19Z (in 19s), by "
                        "Emptiness\n"));
  const test::Result now = Run({"explain", kEmpty, "--at", kAt});
  REQUIRE(now.status == kExitOk);
  CHECK(absl::StrContains(now.out, "  verdict:       Commanded (Emptiness)"));
  CHECK(absl::StrContains(now.out,
                          "  disrupted:     by this pass, by Emptiness\n"));
}

TEST_CASE("explain cli: budgets with their next change and do-not-disrupt",
          "[cli][explain]") {
  const test::Result r =
      Run({"explain", "ip-10-0-2-101.us-west-2.compute.internal", "--at", kAt});
  REQUIRE(r.status == kExitOk);
  CHECK(absl::StrContains(
      r.out,
      "    Empty: allowed 0, remaining 0; budgets[1] nodes \"0\" of 2 nodes "
      "= 0; changes at 2025-03-05T17:00:00Z to 1\n"));
  CHECK(absl::StrContains(
      r.out,
      "  do-not-disrupt: analytics/nightly-report-28991520-x2k9d "
      "(karpenter.sh/do-not-disrupt: \"true\") indefinitely\n"));
}

// The bundled demo dump after the first pass's command has run (kEmpty,
// its NodeClaim and its two DaemonSet pods are gone), written to a temp
// file. Items start at "\n- " in the dump; the header comment is kept.
std::string DemoAfterEmptiness() {
  std::ifstream in(std::string(KARPENTER_EXAMPLES_DIR) + "/clusters/demo.yaml");
  std::stringstream text;
  text << in.rdbuf();
  const std::vector<std::string> items = absl::StrSplit(text.str(), "\n- ");
  REQUIRE(items.size() > 40);
  std::vector<std::string> kept = {items[0]};
  for (size_t i = 1; i < items.size(); ++i) {
    if (!absl::StrContains(items[i], kEmpty)) kept.push_back(items[i]);
  }
  REQUIRE(kept.size() == items.size() - 4);  // Node, NodeClaim, 2 pods
  return test::WriteTemp("demo_after_emptiness.yaml",
                         absl::StrJoin(kept, "\n- "));
}

std::string Catalog() {
  return std::string(KARPENTER_EXAMPLES_DIR) + "/catalogs/aws-us-west-2.yaml";
}

TEST_CASE("plan cli: --catalog consolidates the demo cluster offline",
          "[cli][plan][catalog]") {
  constexpr char kAt7[] = "2025-03-05T07:00:00Z";
  constexpr char kSpot[] = "ip-10-0-3-67.us-west-2.compute.internal";
  const std::string after = DemoAfterEmptiness();

  // Unpriced (the types the dump's nodes run): consolidation cannot price
  // the node.
  const test::Result unpriced = Run({"plan", "--at", kAt7, "-f", after});
  REQUIRE(unpriced.status == kExitOk);
  CHECK(absl::StartsWith(unpriced.out, absl::StrCat("Disruption pass at ", kAt7,
                                                    ": 0 commands\n")));
  CHECK(absl::StrContains(RowOf(unpriced.out, kSpot), "InstanceTypeUnknown"));
  CHECK(absl::StrContains(RowOf(unpriced.out, kSpot),
                          "Instance Type \"m5.xlarge\" not found"));

  // Priced by the example catalogue: single-node consolidation deletes it.
  const test::Result priced =
      Run({"plan", "--at", kAt7, "--catalog", Catalog(), "-f", after});
  REQUIRE(priced.status == kExitOk);
  CHECK(priced.err.empty());
  CHECK(absl::StartsWith(priced.out,
                         absl::StrCat("Disruption pass at ", kAt7,
                                      ": 1 command (SingleNodeConsolidation "
                                      "acted)\n")));
  CHECK(absl::StrContains(
      priced.out,
      absl::StrCat("1  SingleNodeConsolidation  Delete    ", kSpot)));
  CHECK(absl::StrContains(priced.out,
                          "1: single-node: delete 1 node (price 0.0692)"));
  CHECK(absl::StrContains(RowOf(priced.out, kSpot), "Commanded"));

  // JSON carries the same command.
  const test::Result json = Run({"plan", "--at", kAt7, "--catalog", Catalog(),
                                 "-o", "json", "-f", after});
  REQUIRE(json.status == kExitOk);
  v1::Plan plan;
  REQUIRE(google::protobuf::util::JsonStringToMessage(json.out, &plan).ok());
  CHECK(plan.acted() == "SingleNodeConsolidation");
  REQUIRE(plan.commands_size() == 1);
  CHECK(plan.commands(0).decision() == "Delete");
  REQUIRE(plan.commands(0).candidates_size() == 1);
  CHECK(plan.commands(0).candidates(0).node() == kSpot);

  // On the dump as shipped the catalogue changes nothing this pass:
  // Emptiness acts first.
  const test::Result shipped =
      Run({"plan", "--at", kAt7, "--catalog", Catalog()});
  REQUIRE(shipped.status == kExitOk);
  CHECK(absl::StrContains(shipped.out, "(Emptiness acted)"));
}

TEST_CASE("plan cli: a NodeOverlay prices the dump's nodes behind its gate",
          "[cli][plan][node_overlay]") {
  constexpr char kAt7[] = "2025-03-05T07:00:00Z";
  constexpr char kSpot[] = "ip-10-0-3-67.us-west-2.compute.internal";
  const std::string after = DemoAfterEmptiness();
  // The dump's instance types have no prices; the overlay gives m5.xlarge
  // spot one (and a conflicting twin of equal weight is refused).
  const std::string overlays = test::WriteTemp("overlays.yaml", R"(
apiVersion: v1
kind: List
items:
- apiVersion: karpenter.sh/v1alpha1
  kind: NodeOverlay
  metadata: {name: spot-price}
  spec:
    weight: 5
    price: "0.0692"
    requirements:
    - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.xlarge]}
    - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
- apiVersion: karpenter.sh/v1alpha1
  kind: NodeOverlay
  metadata: {name: also-spot}
  spec:
    weight: 5
    priceAdjustment: "+1%"
    requirements:
    - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
)");
  const test::Result off =
      Run({"plan", "--at", kAt7, "-f", after, "-f", overlays});
  REQUIRE(off.status == kExitOk);
  CHECK(off.err.empty());
  CHECK(absl::StrContains(RowOf(off.out, kSpot), "InstanceTypeUnknown"));

  const test::Result on =
      Run({"plan", "--at", kAt7, "--feature-gates", "NodeOverlay=true", "-f",
           after, "-f", overlays});
  REQUIRE(on.status == kExitOk);
  CHECK(absl::StrContains(on.out,
                          "1: single-node: delete 1 node (price 0.0692)"));
  CHECK(absl::StrContains(RowOf(on.out, kSpot), "Commanded"));
  // "spot-price" is evaluated first (the later name), so "also-spot"
  // conflicts with it.
  CHECK(on.err ==
        "plan: warning: NodeOverlay \"also-spot\" not applied: Conflict: "
        "conflict with another overlay\n");

  test::CheckUsageError({{"plan", "--feature-gates", "NodeOverlay=yes"},
                         "--feature-gates: \"NodeOverlay=yes\""});
  test::CheckUsageError(
      {{"plan", "--feature-gates", "Drift=true"}, "unknown gate \"Drift\""});
}

TEST_CASE("explain cli: --catalog names the consolidation of a node",
          "[cli][explain][catalog]") {
  constexpr char kAt7[] = "2025-03-05T07:00:00Z";
  constexpr char kSpot[] = "ip-10-0-3-67.us-west-2.compute.internal";
  const std::string after = DemoAfterEmptiness();
  const test::Result priced = Run(
      {"explain", kSpot, "--at", kAt7, "--catalog", Catalog(), "-f", after});
  REQUIRE(priced.status == kExitOk);
  CHECK(absl::StrContains(
      priced.out,
      "  verdict:       Commanded (SingleNodeConsolidation): single-node: "
      "delete 1 node (price 0.0692)"));
  CHECK(absl::StrContains(
      priced.out,
      "  disrupted:     by this pass, by SingleNodeConsolidation\n"));

  const test::Result unpriced =
      Run({"explain", kSpot, "--at", kAt7, "-f", after});
  REQUIRE(unpriced.status == kExitOk);
  CHECK(absl::StrContains(unpriced.out,
                          "  verdict:       InstanceTypeUnknown "
                          "(MultiNodeConsolidation): Instance Type "
                          "\"m5.xlarge\" not found"));
  CHECK(absl::StrContains(unpriced.out, "by Expiration\n"));

  const test::Result bad = Run({"explain", kSpot, "--at", kAt7, "--catalog",
                                "/nonexistent/catalog.yaml", "-f", after});
  CHECK(bad.status == kExitUsage);
  CHECK(bad.out.empty());
  CHECK(absl::StrContains(bad.err, "/nonexistent/catalog.yaml"));
}

std::string V1Beta1() {
  return std::string(KARPENTER_TESTDATA_DIR) + "/v1beta1-cluster.yaml";
}

TEST_CASE("explain cli: an unlimited budget has unlimited remaining",
          "[cli][explain][output-fixes]") {
  // budgets: [] and a NotReady node disrupting: Karpenter's remaining is
  // MaxInt32 - 1, still no limit.
  const test::Result r =
      Run({"explain", "ip-10-0-9-1", "-f", V1Beta1(), "--at", kAt});
  REQUIRE(r.status == kExitOk);
  CHECK(absl::StrContains(
      r.out,
      "    Empty: allowed unlimited, remaining unlimited; no budgets "
      "(explicit empty list): unlimited\n"));
  CHECK_FALSE(absl::StrContains(r.out, "214748364"));
}

TEST_CASE("explain cli: a v1beta1 NodePool's expireAfter and consolidateAfter",
          "[cli][explain][output-fixes]") {
  const test::Result busy =
      Run({"explain", "ip-10-0-9-1", "-f", V1Beta1(), "--at", kAt});
  REQUIRE(busy.status == kExitOk);
  CHECK(absl::StrContains(busy.out,
                          "  expiry:        2025-03-31T00:00:00Z (in 612h)\n"));
  CHECK(absl::StrContains(busy.out,
                          "  disrupted:     at 2025-03-31T00:00:00Z (in "
                          "612h), by Expiration\n"));
  const test::Result empty =
      Run({"explain", "ip-10-0-9-2", "-f", V1Beta1(), "--at", kAt});
  REQUIRE(empty.status == kExitOk);
  CHECK(absl::StrContains(empty.out,
                          "  consolidation: WhenEmpty, consolidateAfter "
                          "elapses 2025-03-05T12:20:00Z (in 20m)\n"));
  CHECK(absl::StrContains(empty.out,
                          "  disrupted:     at 2025-03-05T12:20:00Z (in "
                          "20m), by Emptiness\n"));
}

TEST_CASE("plan cli: nodes without an instance type say so",
          "[cli][plan][output-fixes]") {
  std::ifstream in(V1Beta1());
  std::stringstream text;
  text << in.rdbuf();
  const std::string file = test::WriteTemp(
      "v1beta1_typeless.yaml",
      absl::StrReplaceAll(
          text.str(),
          {{"      node.kubernetes.io/instance-type: m5.large\n", ""}}));
  const test::Result r = Run({"plan", "-f", file, "--at", kAt});
  REQUIRE(r.status == kExitOk);
  const std::string row = RowOf(r.out, "ip-10-0-9-1");
  CHECK(absl::StrContains(
      row,
      "legacy    MissingLabel  -       node has no "
      "node.kubernetes.io/instance-type label and the catalogue has no "
      "instance types for NodePool \"legacy\""));
  CHECK_FALSE(absl::StrContains(r.out, "NodePoolNotFound"));
}

TEST_CASE("explain cli: the projection runs the earlier passes' commands",
          "[cli][explain][output-fixes]") {
  // demo-drifted.yaml plus the demo's empty node: the first pass deletes the
  // empty node, the next one (after its 15 s validation) drifts
  // ip-10-0-3-67.
  std::ifstream in(std::string(KARPENTER_EXAMPLES_DIR) + "/clusters/demo.yaml");
  std::stringstream text;
  text << in.rdbuf();
  const std::vector<std::string> items = absl::StrSplit(text.str(), "\n- ");
  std::vector<std::string> empty_items;
  for (size_t i = 1; i < items.size(); ++i) {
    if (absl::StrContains(items[i], kEmpty)) empty_items.push_back(items[i]);
  }
  REQUIRE(empty_items.size() == 4);
  const std::string extra = test::WriteTemp(
      "demo_empty_node.yaml", "apiVersion: v1\nkind: List\nitems:\n- " +
                                  absl::StrJoin(empty_items, "\n- "));
  const test::Result r = Run(
      {"explain", "ip-10-0-3-67.us-west-2.compute.internal", "-f",
       KARPENTER_TESTDATA_DIR "/demo-drifted.yaml", "-f", extra, "--at", kAt});
  REQUIRE(r.status == kExitOk);
  CHECK(absl::StrContains(r.out,
                          "  disrupted:     at 2025-03-05T12:00:15Z (in 15s), "
                          "by Drift\n"));
  // With the catalogue, the bundled demo's ip-10-0-3-67 is consolidated as
  // soon as the empty node the first pass deletes is gone.
  const test::Result priced =
      Run({"explain", "ip-10-0-3-67.us-west-2.compute.internal", "--at", kAt,
           "--catalog", Catalog()});
  REQUIRE(priced.status == kExitOk);
  CHECK(absl::StrContains(priced.out,
                          "  disrupted:     at 2025-03-05T12:00:15Z (in 15s), "
                          "by SingleNodeConsolidation\n"));
}

}  // namespace
}  // namespace karpenter::cli
