// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The SDK disruption controls (disruption/controls.h) through the CLI:
// the README's simulated comparisons (examples/scenarios with and without
// examples/changes), and how `budgets`, `plan` and `explain` show them.

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cli_test_util.h"
#include "google/protobuf/util/json_util.h"
#include "karpenter/v1/simulation.pb.h"

namespace karpenter::cli {
namespace {

using test::Run;

std::string Example(const std::string& path) {
  return absl::StrCat(KARPENTER_EXAMPLES_DIR, "/", path);
}

v1::SimulationReport Simulate(const std::string& scenario,
                              const std::string& change) {
  std::vector<std::string> args = {"simulate", Example(scenario), "-o",
                                   "json"};
  if (!change.empty()) {
    args.push_back("--change");
    args.push_back(Example(change));
  }
  const test::Result r = Run(args);
  REQUIRE(r.status == kExitOk);
  v1::SimulationReport report;
  REQUIRE(google::protobuf::util::JsonStringToMessage(r.out, &report).ok());
  CHECK(report.summary().budget_exceeded() == 0);
  CHECK(report.summary().pdb_violations() == 0);
  CHECK(report.summary().pending_pods().empty());
  return report;
}

const v1::NodePoolPeak& PeakOf(const v1::SimulationReport& report,
                               const std::string& pool) {
  for (const v1::NodePoolPeak& p : report.summary().budget_peaks()) {
    if (p.node_pool() == pool) return p;
  }
  FAIL("no peak for NodePool " << pool);
  return report.summary().budget_peaks(0);
}

// Events of `type` on nodes whose name starts with `prefix`, with their
// times ("HH:MM:SS" of the RFC 3339 time).
std::vector<std::string> EventTimes(const v1::SimulationReport& report,
                                    const std::string& type,
                                    const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& e : report.timeline()) {
    if (e.kind() == type && absl::StartsWith(e.node(), prefix)) {
      out.push_back(e.at().substr(11, 8));
    }
  }
  return out;
}

TEST_CASE("controls cli: max-disrupting-zones keeps a rollout to one zone",
          "[cli][simulate][controls]") {
  const v1::SimulationReport off =
      Simulate("scenarios/zonal-rollout.yaml", "");
  const v1::SimulationReport on =
      Simulate("scenarios/zonal-rollout.yaml", "changes/web-one-zone.yaml");
  CHECK(PeakOf(off, "web").zones() == 3);
  CHECK(PeakOf(off, "web").peak_zones() == 3);
  CHECK(PeakOf(on, "web").zones() == 3);
  CHECK(PeakOf(on, "web").peak_zones() == 1);
  // Every original node is still rolled.
  for (const v1::SimulationReport* r : {&off, &on}) {
    CHECK(r->summary().nodes_replaced() + r->summary().nodes_deleted() >= 6);
    CHECK(EventTimes(*r, "NodeDeleted", "web-").size() >= 6);
  }
}

TEST_CASE("controls cli: soft-expiration waits out a change freeze",
          "[cli][simulate][controls]") {
  const v1::SimulationReport off = Simulate("scenarios/expiration.yaml", "");
  const v1::SimulationReport on = Simulate(
      "scenarios/expiration.yaml", "changes/apps-soft-expiration.yaml");
  // The freeze lasts until 17:00; the six nodes expired before the start.
  const auto in_freeze = [](const std::vector<std::string>& times) {
    return std::count_if(times.begin(), times.end(),
                         [](const std::string& t) { return t < "17:00:00"; });
  };
  const std::vector<std::string> off_deleted =
      EventTimes(off, "NodeDeleted", "apps-0");
  const std::vector<std::string> on_deleted =
      EventTimes(on, "NodeDeleted", "apps-0");
  CHECK(off_deleted.size() == 6);
  CHECK(in_freeze(off_deleted) == 6);
  CHECK(on_deleted.size() == 6);
  CHECK(in_freeze(on_deleted) == 0);
  // After the freeze, one at a time (nodes "1").
  CHECK(PeakOf(on, "apps").peak_disrupting() == 1);
  CHECK(PeakOf(off, "apps").peak_disrupting() > 1);
}

TEST_CASE("controls cli: consolidation-min-savings keeps only the big move",
          "[cli][simulate][controls]") {
  const v1::SimulationReport off = Simulate("scenarios/consolidation.yaml", "");
  const v1::SimulationReport on = Simulate("scenarios/consolidation.yaml",
                                           "changes/apps-min-savings.yaml");
  CHECK(off.summary().nodes_replaced() == 10);
  CHECK(off.summary().nodes_deleted() == 2);
  CHECK(on.summary().nodes_replaced() == 0);
  CHECK(on.summary().nodes_deleted() == 2);
  CHECK(on.summary().nodes_launched() == 0);
  CHECK(on.summary().evictions() < off.summary().evictions());
}

TEST_CASE("controls cli: consolidation-max-replacements puts 3 nodes on 2",
          "[cli][simulate][controls]") {
  const v1::SimulationReport off = Simulate("scenarios/bin-packing.yaml", "");
  const v1::SimulationReport on =
      Simulate("scenarios/bin-packing.yaml",
               "changes/analytics-two-replacements.yaml");
  const auto commands = [](const v1::SimulationReport& r) {
    std::vector<std::string> out;
    for (const auto& e : r.timeline()) {
      if (e.kind() == "CommandStarted") out.push_back(e.message());
    }
    return out;
  };
  // Karpenter: two nodes into an m6a.3xlarge, then the third into an
  // m6a.2xlarge. With the control: all three in one command.
  const std::vector<std::string> karpenter = commands(off);
  const std::vector<std::string> two = commands(on);
  REQUIRE(karpenter.size() == 2);
  CHECK_THAT(karpenter[0], Catch::Contains("2 candidate(s)"));
  REQUIRE(two.size() == 1);
  CHECK_THAT(two[0], Catch::Contains("3 candidate(s)"));
  CHECK_THAT(two[0], Catch::Contains("2 replacement(s)"));
  CHECK_THAT(two[0], Catch::Contains("with 2 NodeClaims (price 0.8640)"));
  for (const v1::SimulationReport* r : {&off, &on}) {
    CHECK(r->summary().nodes_replaced() == 3);
    CHECK(r->summary().nodes_launched() == 2);
  }
}

TEST_CASE("controls cli: budgets and plan list a NodePool's controls",
          "[cli][controls]") {
  const std::string dump = test::WriteTemp("controls.yaml", R"(
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: web
  annotations:
    disruption.karpenter-sdk.dev/max-disrupting-zones: "1"
    disruption.karpenter-sdk.dev/soft-expiration: "budget=2,ceiling=24h"
    disruption.karpenter-sdk.dev/consolidation-min-savings: "5%"
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}
      requirements: []
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: broken
  annotations:
    disruption.karpenter-sdk.dev/consolidation-max-replacements: "3"
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}
      requirements: []
)");
  const test::Result budgets =
      Run({"budgets", "-f", dump, "--at", "2024-01-08T10:00:00Z"});
  REQUIRE(budgets.status == kExitOk);
  CHECK_THAT(budgets.out,
             Catch::Contains("SDK disruption controls (disruption.karpenter-"
                             "sdk.dev)"));
  for (const char* row :
       {"web       max-disrupting-zones", "no zone disrupting",
        "web       soft-expiration", "budget=2,ceiling=24h",
        "web       consolidation-min-savings", "5%",
        "broken    invalid", "fails closed: metadata.annotations["}) {
    CAPTURE(row);
    CHECK_THAT(budgets.out, Catch::Contains(row));
  }
  const test::Result json =
      Run({"budgets", "-f", dump, "--at", "2024-01-08T10:00:00Z", "-o",
           "json"});
  REQUIRE(json.status == kExitOk);
  CHECK_THAT(json.out, Catch::Contains("\"softExpiration\": \"budget=2,"
                                       "ceiling=24h\""));
  CHECK_THAT(json.out, Catch::Contains("\"maxDisruptingZones\": \"1\""));

  const test::Result plan =
      Run({"plan", "-f", dump, "--at", "2024-01-08T10:00:00Z"});
  REQUIRE(plan.status == kExitOk);
  CHECK_THAT(plan.out, Catch::Contains("SDK disruption controls"));
  CHECK_THAT(plan.out, Catch::Contains("broken    invalid"));

  const test::Result validate = Run({"validate", "-f", dump});
  CHECK(validate.status == 1);
  CHECK_THAT(validate.out,
             Catch::Contains("consolidation-max-replacements\"]: must be 1 "
                             "or 2 (SDK annotation), got \"3\""));
}

}  // namespace
}  // namespace karpenter::cli
