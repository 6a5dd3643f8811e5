// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// `karpenter validate` and `karpenter budgets` run in-process: every error
// listed with its path, the demo cluster's budget numbers at fixed instants,
// the JSON form round-tripping through its proto, and bad usage.

#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cli.h"
#include "cli_test_util.h"
#include "google/protobuf/util/json_util.h"
#include "karpenter/v1/budget.pb.h"

namespace karpenter::cli {
namespace {

using test::Result;
using test::Run;
using test::WriteTemp;

std::vector<std::string> Lines(const std::string& text) {
  return absl::StrSplit(text, '\n', absl::SkipEmpty());
}

// The text row of `pool` and `reason`, split on runs of spaces up to WHY.
std::vector<std::string> Row(const std::string& out, const std::string& pool,
                             const std::string& reason) {
  for (const std::string& line : Lines(out)) {
    std::vector<std::string> cells =
        absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (cells.size() >= 7 && cells[0] == pool && cells[3] == reason) {
      return cells;
    }
  }
  return {};
}

constexpr char kThreeErrors[] = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: broken
spec:
  disruption:
    consolidationPolicy: Sometimes
    budgets:
    - nodes: "150%"
    - nodes: "1"
      schedule: "@daily"
      duration: 30s
)";

TEST_CASE("budget cli: validate lists every error with its path",
          "[cli][validate]") {
  Result r = Run({"validate", "-f", WriteTemp("three.yaml", kThreeErrors)});
  CHECK(r.status == kExitInvalid);
  CHECK(r.err.empty());
  const std::vector<std::string> lines = Lines(r.out);
  REQUIRE(lines.size() == 3);
  CHECK(absl::StartsWith(
      lines[0], "NodePool broken: spec.disruption.consolidationPolicy: "));
  CHECK(absl::StrContains(lines[0], "\"Sometimes\""));
  CHECK(absl::StartsWith(
      lines[1], "NodePool broken: spec.disruption.budgets[0].nodes: "));
  CHECK(absl::StrContains(lines[1], "\"150%\""));
  CHECK(absl::StartsWith(
      lines[2], "NodePool broken: spec.disruption.budgets[1].duration: "));
  CHECK(absl::StrContains(lines[2], "\"30s\""));
}

TEST_CASE("budget cli: validate flags runtime and PDB errors too",
          "[cli][validate]") {
  const std::string bad_cron =
      WriteTemp("cron.yaml", R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: nightly
spec:
  disruption:
    budgets:
    - nodes: "0"
      schedule: "0 25 * * *"
      duration: 1h
)");
  const std::string bad_pdb = WriteTemp("pdb.yaml", R"(apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
  namespace: shop
spec:
  minAvailable: "lots"
  selector:
    matchLabels:
      app: web
)");
  Result r = Run({"validate", "-f", bad_cron, "--filename", bad_pdb});
  CHECK(r.status == kExitInvalid);
  const std::vector<std::string> lines = Lines(r.out);
  REQUIRE(lines.size() == 2);
  CHECK(absl::StartsWith(
      lines[0], "NodePool nightly: spec.disruption.budgets[0].schedule: "));
  CHECK(absl::StrContains(lines[1], "shop/web"));
  CHECK(absl::StrContains(lines[1], "spec.minAvailable"));
}

TEST_CASE("budget cli: validate accepts the demo cluster", "[cli][validate]") {
  Result r = Run({"validate"});
  CHECK(r.status == kExitOk);
  CHECK(r.err.empty());
  CHECK(r.out == "6 objects valid (3 NodePools, 3 PodDisruptionBudgets)\n");
}

TEST_CASE("budget cli: budgets on the demo cluster follow the schedules",
          "[cli][budgets]") {
  struct Case {
    std::string at;
    std::string pool;
    std::string reason;
    // NODES, DISRUPTING, ALLOWED, REMAINING, LIMITING.
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      // 10% of 4 rounds up to 1; the @daily 0-for-Drifted window is
      // [00:00, 00:10).
      {"2025-03-05T12:00:00Z",
       "default",
       "Underutilized",
       {"4", "0", "1", "1", "budgets[0]"}},
      {"2025-03-05T12:00:00Z",
       "default",
       "Drifted",
       {"4", "0", "1", "1", "budgets[0]"}},
      {"2025-03-05T00:05:00Z",
       "default",
       "Drifted",
       {"4", "0", "0", "0", "budgets[1]"}},
      {"2025-03-05T00:10:00Z",
       "default",
       "Drifted",
       {"4", "0", "1", "1", "budgets[0]"}},
      {"2025-03-05T00:05:00Z",
       "default",
       "Empty",
       {"4", "0", "1", "1", "budgets[0]"}},
      // batch: 20% of 2 = 1, one NotReady node disrupting; weekdays
      // 09:00-17:00 block Underutilized and Empty (Wed 2025-03-05).
      {"2025-03-05T12:00:00Z",
       "batch",
       "Empty",
       {"2", "1", "0", "0", "budgets[1]"}},
      {"2025-03-05T12:00:00Z",
       "batch",
       "Drifted",
       {"2", "1", "1", "0", "budgets[0]"}},
      {"2025-03-05T18:00:00Z",
       "batch",
       "Underutilized",
       {"2", "1", "1", "0", "budgets[0]"}},
      {"2025-03-05T12:00:00Z",
       "system",
       "Drifted",
       {"2", "0", "1", "1", "budgets[0]"}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.at, c.pool, c.reason);
    Result r = Run({"budgets", "--at", c.at});
    REQUIRE(r.status == kExitOk);
    CHECK(r.err.empty());
    CHECK(absl::StartsWith(r.out, "Budgets at " + c.at + "\n"));
    const std::vector<std::string> row = Row(r.out, c.pool, c.reason);
    REQUIRE(row.size() >= 7);
    CHECK(std::vector<std::string>{row[1], row[2], row[4], row[5], row[6]} ==
          c.want);
  }
}

TEST_CASE("budget cli: budgets prints unlimited for an empty budget list",
          "[cli][budgets]") {
  const std::string file = WriteTemp("open.yaml", R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: open
spec:
  disruption:
    budgets: []
)");
  Result r = Run({"budgets", "-f", file, "--at", "2025-03-05T12:00:00Z"});
  REQUIRE(r.status == kExitOk);
  const std::vector<std::string> row = Row(r.out, "open", "Drifted");
  REQUIRE(row.size() >= 7);
  CHECK(row[4] == "unlimited");
  CHECK(row[5] == "unlimited");
  CHECK(row[6] == "-");
}

TEST_CASE("budget cli: budgets -o json parses back into BudgetReport",
          "[cli][budgets]") {
  Result r =
      Run({"budgets", "--at", "2025-03-05T00:05:00+00:00", "-o", "json"});
  REQUIRE(r.status == kExitOk);
  CHECK(r.err.empty());
  v1::BudgetReport report;
  REQUIRE(google::protobuf::util::JsonStringToMessage(r.out, &report).ok());
  CHECK(report.at() == "2025-03-05T00:05:00Z");
  REQUIRE(report.node_pools_size() == 3);
  const v1::NodePoolBudgetReport& def = report.node_pools(0);
  CHECK(def.name() == "default");
  CHECK(def.total_nodes() == 4);
  REQUIRE(def.reasons_size() == 3);
  CHECK(def.reasons(0).reason() == "Underutilized");
  CHECK(def.reasons(0).allowed() == 1);
  CHECK(def.reasons(2).reason() == "Drifted");
  CHECK(def.reasons(2).allowed() == 0);
  CHECK(def.reasons(2).limiting_budget() == 1);
  CHECK(def.reasons(2).has_limiting_budget());
  CHECK(report.node_pools(1).disrupting_nodes() == 1);
  // Stable field names, zero values included.
  CHECK(absl::StrContains(r.out, "\"disruptingNodes\": \"0\""));
  CHECK(absl::StrContains(r.out, "\"unlimited\": false"));
  // Same input, same bytes.
  CHECK(Run({"budgets", "--at", "2025-03-05T00:05:00Z", "-o", "json"}).out ==
        r.out);
}

TEST_CASE("budget cli: bad usage exits 2 with one line", "[cli][budgets]") {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{
           {"budgets", "--at", "yesterday"},
           {"budgets", "--at"},
           {"budgets", "-o", "yaml"},
           {"budgets", "--until", "2025-03-06T00:00:00Z"},
           {"budgets", "-f", "/nonexistent/karpenter/cluster.yaml"},
           {"validate", "--strict"},
           {"validate", "-f"},
           {"validate", "-f", "/nonexistent/karpenter/cluster.yaml"},
       }) {
    CAPTURE(args);
    Result r = Run(args);
    CHECK(r.status == kExitUsage);
    CHECK(r.out.empty());
    CHECK(absl::StartsWith(r.err, "karpenter: "));
    CHECK(r.err.find('\n') == r.err.size() - 1);
  }
  for (std::string command : {"validate", "budgets"}) {
    Result help = Run({command, "--help"});
    CHECK(help.status == kExitOk);
    CHECK(absl::StartsWith(help.out, "usage: karpenter " + command));
  }
}

}  // namespace
}  // namespace karpenter::cli
