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
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: []
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
  const std::string path = WriteTemp("three.yaml", kThreeErrors);
  Result r = Run({"validate", "-f", path});
  CHECK(r.status == kExitInvalid);
  CHECK(r.err.empty());
  const std::vector<std::string> lines = Lines(r.out);
  REQUIRE(lines.size() == 3);
  // Each line names the file (and the YAML document) first.
  const std::string where = path + ": document 1: ";
  CHECK(absl::StartsWith(lines[0],
                         where + "karpenter.sh/v1 NodePool broken: "
                                 "spec.disruption.consolidationPolicy: "));
  CHECK(absl::StrContains(lines[0], "\"Sometimes\""));
  CHECK(absl::StartsWith(lines[1], where +
                                       "karpenter.sh/v1 NodePool broken: "
                                       "spec.disruption.budgets[0].nodes: "));
  CHECK(absl::StrContains(lines[1], "\"150%\""));
  CHECK(absl::StartsWith(lines[2],
                         where + "karpenter.sh/v1 NodePool broken: "
                                 "spec.disruption.budgets[1].duration: "));
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
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: []
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
  CHECK(absl::StartsWith(lines[0],
                         bad_cron + ": document 1: "
                                    "karpenter.sh/v1 NodePool nightly: "
                                    "spec.disruption.budgets[0].schedule: "));
  CHECK(absl::StartsWith(lines[1], bad_pdb + ": document 1: "));
  CHECK(absl::StrContains(lines[1], "shop/web"));
  CHECK(absl::StrContains(lines[1], "spec.minAvailable"));
}

TEST_CASE("budget cli: validate accepts the demo cluster", "[cli][validate]") {
  Result r = Run({"validate"});
  CHECK(r.status == kExitOk);
  CHECK(r.err.empty());
  CHECK(r.out ==
        "14 objects valid (3 NodePools, 8 NodeClaims, 3 "
        "PodDisruptionBudgets)\n");
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
           {"budgets", "--until", "2025-03-06T00:00:00Z", "--at",
            "2025-03-06T00:00:00Z"},
           {"budgets", "--until", "tomorrow"},
           {"budgets", "--until"},
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

// The timeline rows of `pool` and `reason`: FROM, UNTIL, ALLOWED, LIMITING.
std::vector<std::vector<std::string>> TimelineRows(const std::string& out,
                                                   const std::string& pool,
                                                   const std::string& reason) {
  std::vector<std::vector<std::string>> rows;
  bool in_timeline = false;
  for (const std::string& line : Lines(out)) {
    if (absl::StartsWith(line, "Timeline from ")) in_timeline = true;
    std::vector<std::string> cells =
        absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (in_timeline && cells.size() == 6 && cells[0] == pool &&
        cells[1] == reason) {
      rows.push_back({cells[2], cells[3], cells[4], cells[5]});
    }
  }
  return rows;
}

// Only a weekday 09:00-17:00 freeze: unlimited outside it.
constexpr char kFreeze[] = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: freeze
spec:
  disruption:
    budgets:
    - nodes: "0"
      schedule: "0 9 * * mon-fri"
      duration: 8h
)";

TEST_CASE("cli budgets: next change of a weekday window", "[cli][budgets]") {
  struct Case {
    std::string at;
    // ALLOWED, NEXT CHANGE, THEN.
    std::vector<std::string> want;
  };
  // 2025-03-04 is a Tuesday, 2025-03-07 a Friday.
  const std::vector<Case> cases = {
      {"2025-03-04T10:00:00Z", {"0", "2025-03-04T17:00:00Z", "unlimited"}},
      {"2025-03-04T09:00:00Z", {"0", "2025-03-04T17:00:00Z", "unlimited"}},
      {"2025-03-04T16:59:59Z", {"0", "2025-03-04T17:00:00Z", "unlimited"}},
      {"2025-03-04T17:00:00Z", {"unlimited", "2025-03-05T09:00:00Z", "0"}},
      {"2025-03-04T08:59:59Z", {"unlimited", "2025-03-04T09:00:00Z", "0"}},
      {"2025-03-07T18:00:00Z", {"unlimited", "2025-03-10T09:00:00Z", "0"}},
      {"2025-03-08T12:00:00Z", {"unlimited", "2025-03-10T09:00:00Z", "0"}},
  };
  const std::string file = WriteTemp("freeze.yaml", kFreeze);
  for (const Case& c : cases) {
    CAPTURE(c.at);
    Result r = Run({"budgets", "-f", file, "--at", c.at});
    REQUIRE(r.status == kExitOk);
    for (std::string reason : {"Underutilized", "Empty", "Drifted"}) {
      const std::vector<std::string> row = Row(r.out, "freeze", reason);
      REQUIRE(row.size() >= 9);
      CHECK(std::vector<std::string>{row[4], row[7], row[8]} == c.want);
    }
  }
}

TEST_CASE("cli budgets: next change on the demo cluster", "[cli][budgets]") {
  Result r = Run({"budgets", "--at", "2025-03-04T10:00:00Z"});
  REQUIRE(r.status == kExitOk);
  CHECK(absl::StrContains(Lines(r.out)[1], "  NEXT CHANGE  "));
  struct Case {
    std::string pool;
    std::string reason;
    // NEXT CHANGE, THEN.
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      // The 8h weekday window from Tue 09:00 ends at 17:00.
      {"batch", "Underutilized", {"2025-03-04T17:00:00Z", "1"}},
      {"batch", "Empty", {"2025-03-04T17:00:00Z", "1"}},
      // No scheduled budget matches Drifted: the 20% budget holds forever.
      {"batch", "Drifted", {"never", "-"}},
      {"default", "Drifted", {"2025-03-05T00:00:00Z", "0"}},
      {"default", "Underutilized", {"never", "-"}},
      // No schedule at all.
      {"system", "Empty", {"never", "-"}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.pool, c.reason);
    const std::vector<std::string> row = Row(r.out, c.pool, c.reason);
    REQUIRE(row.size() >= 9);
    CHECK(std::vector<std::string>{row[7], row[8]} == c.want);
  }
}

TEST_CASE("cli budgets: until prints the timeline of a weekday window",
          "[cli][budgets]") {
  // Friday noon to Tuesday midnight: the Friday window's end, the weekend,
  // Monday's window.
  Result r = Run({"budgets", "--at", "2025-03-07T12:00:00Z", "--until",
                  "2025-03-11T00:00:00Z"});
  REQUIRE(r.status == kExitOk);
  CHECK(r.err.empty());
  CHECK(absl::StrContains(
      r.out,
      "\nTimeline from 2025-03-07T12:00:00Z until 2025-03-11T00:00:00Z "));
  using Rows = std::vector<std::vector<std::string>>;
  const Rows window = {
      {"2025-03-07T12:00:00Z", "2025-03-07T17:00:00Z", "0", "budgets[1]"},
      {"2025-03-07T17:00:00Z", "2025-03-10T09:00:00Z", "1", "budgets[0]"},
      {"2025-03-10T09:00:00Z", "2025-03-10T17:00:00Z", "0", "budgets[1]"},
      {"2025-03-10T17:00:00Z", "2025-03-11T00:00:00Z", "1", "budgets[0]"},
  };
  CHECK(TimelineRows(r.out, "batch", "Underutilized") == window);
  CHECK(TimelineRows(r.out, "batch", "Empty") == window);
  CHECK(TimelineRows(r.out, "batch", "Drifted") ==
        Rows{{"2025-03-07T12:00:00Z", "2025-03-11T00:00:00Z", "1",
              "budgets[0]"}});
  CHECK(TimelineRows(r.out, "default", "Drifted").size() == 7);
  CHECK(TimelineRows(r.out, "system", "Empty").size() == 1);

  // Unlimited outside the window, no limiting budget.
  Result freeze =
      Run({"budgets", "-f", WriteTemp("freeze.yaml", kFreeze), "--at",
           "2025-03-04T08:00:00Z", "--until", "2025-03-05T00:00:00Z"});
  REQUIRE(freeze.status == kExitOk);
  CHECK(
      TimelineRows(freeze.out, "freeze", "Drifted") ==
      Rows{{"2025-03-04T08:00:00Z", "2025-03-04T09:00:00Z", "unlimited", "-"},
           {"2025-03-04T09:00:00Z", "2025-03-04T17:00:00Z", "0", "budgets[0]"},
           {"2025-03-04T17:00:00Z", "2025-03-05T00:00:00Z", "unlimited", "-"}});
}

TEST_CASE("cli budgets: json carries next change and timeline",
          "[cli][budgets]") {
  Result r = Run({"budgets", "--at", "2025-03-04T10:00:00Z", "--until",
                  "2025-03-05T00:00:00Z", "-o", "json"});
  REQUIRE(r.status == kExitOk);
  v1::BudgetReport report;
  REQUIRE(google::protobuf::util::JsonStringToMessage(r.out, &report).ok());
  CHECK(report.at() == "2025-03-04T10:00:00Z");
  CHECK(report.until() == "2025-03-05T00:00:00Z");
  REQUIRE(report.node_pools_size() == 3);
  const v1::NodePoolBudgetReport& batch = report.node_pools(1);
  REQUIRE(batch.name() == "batch");
  REQUIRE(batch.reasons_size() == 3);
  const v1::ReasonBudget& under = batch.reasons(0);
  CHECK(under.reason() == "Underutilized");
  CHECK(under.has_next_change());
  CHECK(under.next_change() == "2025-03-04T17:00:00Z");
  CHECK(under.has_next_allowed());
  CHECK(under.next_allowed() == 1);
  CHECK(under.timeline_error().empty());
  REQUIRE(under.timeline_size() == 2);
  CHECK(under.timeline(0).start() == "2025-03-04T10:00:00Z");
  CHECK(under.timeline(0).end() == "2025-03-04T17:00:00Z");
  CHECK(under.timeline(0).allowed() == 0);
  CHECK(!under.timeline(0).unlimited());
  CHECK(under.timeline(0).limiting_budget() == 1);
  CHECK(under.timeline(1).start() == "2025-03-04T17:00:00Z");
  CHECK(under.timeline(1).end() == "2025-03-05T00:00:00Z");
  CHECK(under.timeline(1).allowed() == 1);
  CHECK(under.timeline(1).limiting_budget() == 0);
  // "never" is an absent field, not an empty string.
  const v1::ReasonBudget& drifted = batch.reasons(2);
  CHECK(!drifted.has_next_change());
  CHECK(!drifted.has_next_allowed());
  CHECK(drifted.timeline_size() == 1);
  CHECK(absl::StrContains(r.out, "\"nextChange\": \"2025-03-04T17:00:00Z\""));
  CHECK(absl::StrContains(r.out, "\"nextAllowed\": \"1\""));
  // Without --until: no timeline, empty until.
  Result plain = Run({"budgets", "--at", "2025-03-04T10:00:00Z", "-o", "json"});
  REQUIRE(plain.status == kExitOk);
  v1::BudgetReport at_only;
  REQUIRE(
      google::protobuf::util::JsonStringToMessage(plain.out, &at_only).ok());
  CHECK(at_only.until().empty());
  CHECK(at_only.node_pools(1).reasons(0).timeline_size() == 0);
  CHECK(at_only.node_pools(1).reasons(0).next_change() ==
        "2025-03-04T17:00:00Z");
}

TEST_CASE("cli budgets: until must be a time after at", "[cli][budgets]") {
  struct Case {
    std::vector<std::string> args;
    std::string want;
  };
  const std::vector<Case> cases = {
      {{"--at", "2025-03-04T10:00:00Z", "--until", "2025-03-04T10:00:00Z"},
       "karpenter: budgets: --until: \"2025-03-04T10:00:00Z\" is not after "
       "--at \"2025-03-04T10:00:00Z\"\n"},
      // Order of the flags does not matter; the values are quoted as given.
      {{"--until", "2025-03-04T10:00:00Z", "--at", "2025-03-04T12:00:00+02:00"},
       "karpenter: budgets: --until: \"2025-03-04T10:00:00Z\" is not after "
       "--at \"2025-03-04T12:00:00+02:00\"\n"},
      {{"--at", "2025-03-04T10:00:00Z", "--until", "2025-03-03T10:00:00Z"},
       "karpenter: budgets: --until: \"2025-03-03T10:00:00Z\" is not after "
       "--at \"2025-03-04T10:00:00Z\"\n"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"budgets"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    CAPTURE(args);
    Result r = Run(args);
    CHECK(r.status == kExitUsage);
    CHECK(r.out.empty());
    CHECK(r.err == c.want);
  }
  Result bad = Run({"budgets", "--until", "next tuesday"});
  CHECK(bad.status == kExitUsage);
  CHECK(absl::StartsWith(
      bad.err, "karpenter: budgets: --until: \"next tuesday\" is not an RFC"));
  // One second after --at is enough.
  CHECK(Run({"budgets", "--at", "2025-03-04T10:00:00Z", "--until",
             "2025-03-04T10:00:01Z"})
            .status == kExitOk);
}

TEST_CASE("cli budgets: invalid NodePools never change", "[cli][budgets]") {
  const std::string cron =
      WriteTemp("badcron.yaml", R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: nightly
spec:
  disruption:
    budgets:
    - nodes: "5"
    - nodes: "0"
      schedule: "0 25 * * *"
      duration: 1h
)");
  Result r =
      Run({"budgets", "-f", WriteTemp("three.yaml", kThreeErrors), "-f", cron,
           "--at", "2025-03-04T10:00:00Z", "--until", "2025-03-05T10:00:00Z"});
  REQUIRE(r.status == kExitOk);
  // Spec errors: 0, no limiting budget, never changes, one segment.
  const std::vector<std::string> broken = Row(r.out, "broken", "Empty");
  REQUIRE(broken.size() >= 9);
  CHECK(std::vector<std::string>{broken[4], broken[6], broken[7], broken[8]} ==
        std::vector<std::string>{"0", "-", "never", "-"});
  CHECK(TimelineRows(r.out, "broken", "Empty") ==
        std::vector<std::vector<std::string>>{
            {"2025-03-04T10:00:00Z", "2025-03-05T10:00:00Z", "0", "-"}});
  CHECK(absl::StrContains(
      r.out, "\nNodePool broken: spec.disruption.consolidationPolicy: "));
  // A schedule the cron parser rejects fails closed at budgets[1] for good.
  const std::vector<std::string> nightly = Row(r.out, "nightly", "Drifted");
  REQUIRE(nightly.size() >= 9);
  CHECK(std::vector<std::string>{nightly[4], nightly[6], nightly[7],
                                 nightly[8]} ==
        std::vector<std::string>{"0", "budgets[1]", "never", "-"});
  CHECK(
      TimelineRows(r.out, "nightly", "Drifted") ==
      std::vector<std::vector<std::string>>{
          {"2025-03-04T10:00:00Z", "2025-03-05T10:00:00Z", "0", "budgets[1]"}});
}

TEST_CASE("cli budgets: a timeline over the cap is an error line",
          "[cli][budgets]") {
  // A 1m window every 2 minutes: 2 segments a 2 minutes, 1440 in a day.
  const std::string file =
      WriteTemp("flappy.yaml", R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: flappy
spec:
  disruption:
    budgets:
    - nodes: "0"
      schedule: "*/2 * * * *"
      duration: 1m
      reasons: [Empty]
)");
  const std::vector<std::string> args = {"budgets",
                                         "-f",
                                         file,
                                         "--at",
                                         "2025-03-04T00:00:00Z",
                                         "--until",
                                         "2025-03-05T00:00:00Z"};
  Result r = Run(args);
  REQUIRE(r.status == kExitOk);
  CHECK(r.err.empty());
  const std::vector<std::vector<std::string>> empty =
      TimelineRows(r.out, "flappy", "Empty");
  REQUIRE(empty.size() == 1);
  CHECK(empty[0] == std::vector<std::string>{"-", "-", "error", "-"});
  CHECK(absl::StrContains(
      r.out,
      "\nNodePool flappy: Empty timeline: max_segments: more than "
      "1000 segments"));
  // The other reasons are unaffected.
  CHECK(
      TimelineRows(r.out, "flappy", "Drifted") ==
      std::vector<std::vector<std::string>>{
          {"2025-03-04T00:00:00Z", "2025-03-05T00:00:00Z", "unlimited", "-"}});
  // Still a next change: the window ends a minute later.
  const std::vector<std::string> row = Row(r.out, "flappy", "Empty");
  REQUIRE(row.size() >= 9);
  CHECK(row[7] == "2025-03-04T00:01:00Z");

  std::vector<std::string> json_args = args;
  json_args.insert(json_args.end(), {"-o", "json"});
  Result json = Run(json_args);
  REQUIRE(json.status == kExitOk);
  v1::BudgetReport report;
  REQUIRE(google::protobuf::util::JsonStringToMessage(json.out, &report).ok());
  const v1::ReasonBudget& rb = report.node_pools(0).reasons(1);
  CHECK(rb.reason() == "Empty");
  CHECK(rb.timeline_size() == 0);
  CHECK(absl::StrContains(rb.timeline_error(), "more than 1000 segments"));
  CHECK(report.node_pools(0).reasons(2).timeline_size() == 1);
}

TEST_CASE("budget cli: remaining stays unlimited while nodes disrupt",
          "[cli][budgets][output-fixes]") {
  // budgets: [] with one of three nodes NotReady (disrupting).
  Result r =
      Run({"budgets", "-f", KARPENTER_TESTDATA_DIR "/v1beta1-cluster.yaml",
           "--at", "2025-03-05T12:00:00Z"});
  REQUIRE(r.status == kExitOk);
  const std::vector<std::string> row = Row(r.out, "legacy", "Empty");
  REQUIRE(row.size() >= 7);
  CHECK(row[1] == "3");
  CHECK(row[2] == "1");
  CHECK(row[4] == "unlimited");
  CHECK(row[5] == "unlimited");
  // JSON keeps the numbers.
  Result json =
      Run({"budgets", "-f", KARPENTER_TESTDATA_DIR "/v1beta1-cluster.yaml",
           "--at", "2025-03-05T12:00:00Z", "-o", "json"});
  REQUIRE(json.status == kExitOk);
  v1::BudgetReport report;
  REQUIRE(google::protobuf::util::JsonStringToMessage(json.out, &report).ok());
  REQUIRE(report.node_pools_size() == 1);
  REQUIRE(report.node_pools(0).reasons_size() == 3);
  CHECK(report.node_pools(0).reasons(1).reason() == "Empty");
  CHECK(report.node_pools(0).reasons(1).unlimited());
  CHECK(report.node_pools(0).reasons(1).remaining() == 2147483646);
}

}  // namespace
}  // namespace karpenter::cli
