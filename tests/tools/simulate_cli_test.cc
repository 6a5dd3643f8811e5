// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// `karpenter simulate` end to end on the bundled scenario
// (examples/scenarios/rollout.yaml), its JSON report parsed back, its SVG
// chart, and bad input; plus the chart renderer on its own.

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "cli_test_util.h"
#include "google/protobuf/util/json_util.h"
#include "karpenter/v1/simulation.pb.h"
#include "svg_chart.h"

namespace karpenter::cli {
namespace {

using test::Run;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The value column of summary row `label` ("  label   value").
std::string SummaryValue(const std::string& out, const std::string& label) {
  for (absl::string_view line : absl::StrSplit(out, '\n')) {
    if (!absl::StartsWith(line, "  " + label + " ")) continue;
    line.remove_prefix(label.size() + 2);
    while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    return std::string(line);
  }
  return "<missing>";
}

TEST_CASE("simulate cli: the bundled scenario ends clean, parsed back",
          "[cli][simulate][slow]") {
  const test::Result r = Run({"simulate", "-o", "json"});
  REQUIRE(r.status == kExitOk);
  CHECK(r.err.empty());
  v1::SimulationReport report;
  REQUIRE(google::protobuf::util::JsonStringToMessage(r.out, &report).ok());
  const v1::SimulationSummary& s = report.summary();
  // The image change drifts the 16 nodes of `general`; every one goes,
  // replaced or (when its pods fit elsewhere) deleted.
  CHECK(s.nodes_replaced() + s.nodes_deleted() == 16);
  CHECK(s.nodes_replaced() > 0);
  // A command may launch two NodeClaims for one node: the pods of a node
  // already draining go along (memory is what binds in `general`).
  CHECK(s.nodes_launched() >= s.nodes_replaced());
  CHECK(s.evictions() > 0);
  CHECK(s.evictions_429() > 0);  // The scenario injects 429s.
  CHECK(s.budget_exceeded() == 0);
  CHECK(s.pdb_violations() == 0);
  CHECK(s.leaked_instances().empty());
  CHECK(s.unfinished().empty());
  CHECK(s.budget_peaks_size() == 3);
  for (const v1::NodePoolPeak& p : s.budget_peaks()) {
    CAPTURE(p.node_pool());
    CHECK(p.peak_disrupting() <= p.allowed_at_peak());
  }
  REQUIRE(report.timeline_size() > 0);
  for (int i = 1; i < report.timeline_size(); ++i) {
    // RFC 3339 UTC strings of one format sort as the instants do.
    CHECK(report.timeline(i - 1).at() <= report.timeline(i).at());
  }
  CHECK(report.samples_size() > 0);
}

TEST_CASE("simulate cli: text timeline and summary, until shortens the run",
          "[cli][simulate][slow]") {
  const test::Result r = Run({"simulate", "--until", "30m"});
  REQUIRE(r.status == kExitOk);
  CHECK(absl::StartsWith(r.out, "TIME"));
  CHECK(absl::StrContains(r.out, "\nSummary\n"));
  CHECK(SummaryValue(r.out, "budget exceeded") == "0");
  CHECK(SummaryValue(r.out, "PDB violations") == "0");
  CHECK(SummaryValue(r.out, "leaked instances") == "0");
  const std::string simulated = SummaryValue(r.out, "simulated");
  CHECK(absl::StrContains(simulated,
                          "2024-01-08T09:30:00Z .. "
                          "2024-01-08T10:00:00Z"));
  CHECK(absl::StrContains(r.out, "ScenarioChange"));
}

TEST_CASE("simulate cli: svg chart of nodes by state",
          "[cli][simulate][slow]") {
  const std::string path = test::WriteTemp("simulate.svg", "");
  const test::Result r =
      Run({"simulate", "--until", "30m", "--svg", path, "-o", "json"});
  REQUIRE(r.status == kExitOk);
  const std::string svg = ReadAll(path);
  CHECK(absl::StartsWith(svg, "<?xml version=\"1.0\""));
  CHECK(absl::StrContains(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
  CHECK(absl::EndsWith(svg, "</svg>\n"));
  CHECK(absl::StrContains(svg, ">ready</text>"));
  CHECK(absl::StrContains(svg, "fill=\"#54a24b\"/>"));  // Ready nodes drawn.
}

TEST_CASE("simulate cli: bad usage and bad scenarios exit 2 with one line",
          "[cli][simulate]") {
  const std::string no_scenario =
      test::WriteTemp("sim_no_scenario.yaml",
                      "apiVersion: v1\nkind: Node\nmetadata:\n  "
                      "name: a\n");
  const std::string bad_change = test::WriteTemp(
      "sim_bad_change.yaml",
      "apiVersion: sim.karpenter-sdk.dev/v1\nkind: Scenario\nmetadata:\n"
      "  name: bad\nspec:\n  start: \"2024-01-08T08:00:00Z\"\n  changes:\n"
      "  - at: ten minutes\n    deleteNode: a\n");
  const test::UsageCase cases[] = {
      {{"simulate", "--until", "soon"},
       "karpenter: simulate: --until: \"soon\" is not a positive duration"},
      {{"simulate", "--until", "-1h"}, "\"-1h\" is not a positive duration"},
      {{"simulate", "-o", "yaml"},
       "karpenter: simulate: -o: \"yaml\" is not text or json\n"},
      {{"simulate", "--svg"}, "karpenter: simulate: --svg: missing value\n"},
      {{"simulate", "--bogus"},
       "karpenter: simulate: unknown option \"--bogus\"\n"},
      {{"simulate", "a.yaml", "b.yaml"},
       "karpenter: simulate: one SCENARIO expected, got \"a.yaml\" and "
       "\"b.yaml\"\n"},
      {{"simulate", "/nonexistent/scenario.yaml"},
       "karpenter: simulate: cannot open \"/nonexistent/scenario.yaml\"\n"},
      {{"simulate", no_scenario}, "no Scenario document"},
      {{"simulate", bad_change}, "spec.changes[0].at"},
  };
  for (const test::UsageCase& c : cases) test::CheckUsageError(c);
}

TEST_CASE("simulate cli: what-if on a dump, with a NodePool change",
          "[cli][simulate]") {
  const std::string dump =
      std::string(KARPENTER_EXAMPLES_DIR) + "/clusters/demo.yaml";
  const std::string catalog =
      std::string(KARPENTER_EXAMPLES_DIR) + "/catalogs/aws-us-west-2.yaml";
  const std::string change = std::string(KARPENTER_EXAMPLES_DIR) +
                             "/changes/default-nodepool-gen6.yaml";
  // Without the change nothing drifts: the dump's NodeClaims carry their
  // NodePools' hashes and its one image. The run starts at the dump's
  // latest timestamp.
  const test::Result before =
      Run({"simulate", "-f", dump, "--catalog", catalog, "--until", "30m"});
  REQUIRE(before.status == kExitOk);
  CHECK_FALSE(absl::StrContains(before.out, "Drift"));
  CHECK(SummaryValue(before.out, "scenario") == "what-if");
  CHECK(SummaryValue(before.out, "simulated") ==
        "2025-03-04T10:14:52Z .. 2025-03-04T10:44:52Z (73 steps)");
  // With it, the generation-5 node of `default` that no PDB pins drifts on
  // its requirements; the system pool is untouched.
  const test::Result after = Run({"simulate", "-f", dump, "--catalog", catalog,
                                  "--change", change, "--until", "30m"});
  REQUIRE(after.status == kExitOk);
  CHECK(absl::StrContains(after.out, "NodePool default replaced"));
  CHECK(absl::StrContains(after.out,
                          "delete drifted node "
                          "ip-10-0-3-67.us-west-2.compute.internal "
                          "(RequirementsDrifted)"));
  CHECK_FALSE(absl::StrContains(after.out, "AMIDrift"));
  CHECK_FALSE(absl::StrContains(after.out, "NodePoolDrifted"));
  // The same change as a Scenario changes list, and --at.
  const std::string listed = test::WriteTemp(
      "sim_change_list.yaml",
      "apiVersion: sim.karpenter-sdk.dev/v1\nkind: Scenario\nmetadata:\n"
      "  name: c\nspec:\n  changes:\n  - at: 5m\n    driftNodePool:\n"
      "      nodePool: system\n");
  const test::Result drift =
      Run({"simulate", "-f", dump, "--catalog", catalog, "--change", listed,
           "--at", "2025-03-05T12:00:00Z", "--until", "20m"});
  REQUIRE(drift.status == kExitOk);
  CHECK(absl::StrContains(drift.out, "12:05:00  -"));
  CHECK(absl::StrContains(drift.out, "NodePool system drifted"));

  const std::string pods =
      test::WriteTemp("sim_change_pods.yaml",
                      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n");
  const test::UsageCase cases[] = {
      {{"simulate", "-f", dump},
       "karpenter: simulate: " + dump +
           ": no Scenario document; a cluster dump needs the cloud's "
           "instance types: --catalog FILE (e.g. "
           "examples/catalogs/aws-us-west-2.yaml)\n"},
      {{"simulate", "-f", dump, "--catalog", catalog, "--change", pods},
       "karpenter: simulate: --change: " + pods +
           ": a change file holds NodePools and Scenario changes; got 1 "
           "Pod\n"},
      {{"simulate", "-f", dump, "--catalog", catalog, "--at", "noon"}, "--at"},
      {{"simulate", "-f", dump, "x.yaml"}, "one SCENARIO expected"},
  };
  for (const test::UsageCase& c : cases) test::CheckUsageError(c);
}

TEST_CASE("svg chart: stacked steps, ticks, escaping and bad input",
          "[cli][svg]") {
  const absl::Time t0 = absl::FromUnixSeconds(1704700800);  // 08:00Z
  const std::vector<ChartSeries> series = {{"a<b", "#111"}, {"c", "#222"}};
  const std::vector<ChartSample> samples = {{t0, {3, 1}},
                                            {t0 + absl::Minutes(30), {0, 4}}};
  const std::string svg =
      RenderStackedSteps("T&T", series, samples, t0, t0 + absl::Hours(1));
  CHECK(absl::StrContains(svg, ">T&amp;T</text>"));
  CHECK(absl::StrContains(svg, ">a&lt;b</text>"));
  // Series 0 has one box (3 high, in the first half; it is 0 in the
  // second), plus its legend swatch.
  size_t rects = 0;
  for (size_t p = svg.find("fill=\"#111\"/>"); p != std::string::npos;
       p = svg.find("fill=\"#111\"/>", p + 1)) {
    ++rects;
  }
  CHECK(rects == 2);
  CHECK(absl::StrContains(svg, ">08:00</text>"));
  CHECK(absl::StrContains(svg, ">09:00</text>"));
  CHECK(absl::StrContains(svg, ">4</text>"));  // The top tick: max total 4.
  CHECK(absl::StrContains(
      RenderStackedSteps("x", series, {{t0, {1}}}, t0, t0 + absl::Hours(1)),
      "no chart: a sample has the wrong number of series"));
  CHECK(absl::StrContains(RenderStackedSteps("x", series, {}, t0, t0),
                          "no chart: the time range is empty"));
}

}  // namespace
}  // namespace karpenter::cli
