// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// `karpenter fit`, end to end on tests/testdata/demo-web-spread.yaml (the
// demo cluster without its empty node, ip-10-0-3-67 drifted, the web pods
// spread across zones), on the bundled demo cluster and on bad input.

#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "cli_test_util.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "karpenter/scheduling/fit.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/scheduling.pb.h"

namespace karpenter::cli {
namespace {

using test::Run;

const std::string kSpread =
    std::string(KARPENTER_TESTDATA_DIR) + "/demo-web-spread.yaml";
const std::string kBatchPod =
    std::string(KARPENTER_TESTDATA_DIR) + "/pod-batch.yaml";
constexpr char kWeb[] = "default/web-6d4cf56db6-tq8mc";
constexpr char kPending[] = "analytics/adhoc-query-5c7d9f8b6-8sn2w";
// us-west-2a and us-west-2b.
const std::vector<std::string> kOtherZones = {
    "ip-10-0-1-140.us-west-2.compute.internal",
    "ip-10-0-1-23.us-west-2.compute.internal",
    "ip-10-0-2-101.us-west-2.compute.internal",
    "ip-10-0-2-160.us-west-2.compute.internal",
    "ip-10-0-2-45.us-west-2.compute.internal"};
constexpr char kOwnNode[] = "ip-10-0-3-67.us-west-2.compute.internal";
constexpr char kNotReady[] = "ip-10-0-3-120.us-west-2.compute.internal";
constexpr char kApiNode[] = "ip-10-0-1-23.us-west-2.compute.internal";
constexpr char kBatchNode[] = "ip-10-0-2-101.us-west-2.compute.internal";

using Row = std::vector<std::string>;

// The cells of a table line: columns are separated by two or more spaces,
// cells hold at most single spaces.
Row Cells(absl::string_view line) {
  Row cells;
  for (absl::string_view cell : absl::StrSplit(line, "  ")) {
    cell = absl::StripLeadingAsciiWhitespace(cell);
    if (!cell.empty()) cells.emplace_back(cell);
  }
  return cells;
}

// The table lines of `out`: from the NODE header to the end.
std::vector<std::string> TableLines(const std::string& out) {
  std::vector<std::string> lines;
  bool in_table = false;
  for (absl::string_view line : absl::StrSplit(out, '\n')) {
    if (absl::StartsWith(line, "NODE ")) in_table = true;
    if (in_table && !line.empty()) lines.emplace_back(line);
  }
  return lines;
}

// The rows of `node` in fit's text table, as cells.
std::vector<Row> RowsOf(const std::string& out, const std::string& node) {
  std::vector<Row> rows;
  for (const std::string& line : TableLines(out)) {
    if (absl::StartsWith(line, node + " ")) rows.push_back(Cells(line));
  }
  return rows;
}

// Every line of the table starts its FITS, PLUGIN and REASON cells at the
// header's columns.
void CheckAligned(const std::string& out) {
  const std::vector<std::string> lines = TableLines(out);
  REQUIRE(lines.size() > 1);
  const std::string& header = lines[0];
  const size_t fits = header.find("FITS");
  const size_t plugin = header.find("PLUGIN");
  const size_t reason = header.find("REASON");
  REQUIRE(fits != std::string::npos);
  REQUIRE(plugin != std::string::npos);
  REQUIRE(reason != std::string::npos);
  CHECK(header.substr(0, fits) ==
        absl::StrCat("NODE", std::string(fits - 4, ' ')));
  for (const std::string& line : lines) {
    CAPTURE(line);
    REQUIRE(line.size() > reason);
    for (size_t column : {fits, plugin, reason}) {
      CHECK(line[column - 1] == ' ');
      CHECK(line[column - 2] == ' ');
      CHECK(line[column] != ' ');
    }
  }
}

v1::FitReport Expected(const std::vector<std::string>& files,
                       absl::string_view ns, absl::string_view name) {
  snapshot::ObjectSet objects;
  for (const std::string& file : files) {
    REQUIRE(snapshot::LoadFile(file, objects).ok());
  }
  absl::StatusOr<snapshot::Snapshot> snap =
      snapshot::Snapshot::Build(std::move(objects));
  REQUIRE(snap.ok());
  absl::StatusOr<v1::FitReport> report = scheduling::FitPod(*snap, ns, name);
  REQUIRE(report.ok());
  return *report;
}

TEST_CASE("fit cli: a spread web pod fits only its own zone's ready node",
          "[cli][fit]") {
  const test::Result r = Run({"fit", kWeb, "-f", kSpread});
  REQUIRE(r.status == kExitOk);
  CHECK(r.err.empty());
  CHECK(absl::StartsWith(
      r.out,
      "Pod default/web-6d4cf56db6-tq8mc on "
      "ip-10-0-3-67.us-west-2.compute.internal (considered as if unbound): "
      "1/7 nodes are available.\n\nNODE  "));
  CheckAligned(r.out);
  CHECK(RowsOf(r.out, kOwnNode) ==
        std::vector<Row>{{kOwnNode, "yes", "-", "-"}});
  const std::vector<Row> not_ready = RowsOf(r.out, kNotReady);
  REQUIRE(!not_ready.empty());
  CHECK(not_ready[0] ==
        Row{kNotReady, "no", "NodeReadiness", "node(s) were not ready"});
  for (const Row& row : not_ready) CHECK(row[1] == "no");
  for (const std::string& node : kOtherZones) {
    CAPTURE(node);
    CHECK(RowsOf(r.out, node) ==
          std::vector<Row>{{node, "no", "PodTopologySpread",
                            "node(s) didn't match pod topology spread "
                            "constraints"}});
  }
  // Nodes by name: every node once, in order.
  std::vector<std::string> nodes;
  for (const std::string& line : TableLines(r.out)) {
    const std::string node = Cells(line)[0];
    if (node != "NODE" && (nodes.empty() || nodes.back() != node)) {
      nodes.push_back(node);
    }
  }
  CHECK(nodes == std::vector<std::string>{kOtherZones[0], kOtherZones[1],
                                          kOtherZones[2], kOtherZones[3],
                                          kOtherZones[4], kNotReady, kOwnNode});
}

TEST_CASE("fit cli: json is the FitReport with kube-scheduler's field names",
          "[cli][fit]") {
  const test::Result r = Run({"fit", kWeb, "-f", kSpread, "-o", "json"});
  REQUIRE(r.status == kExitOk);
  CHECK(r.err.empty());
  v1::FitReport report;
  REQUIRE(google::protobuf::util::JsonStringToMessage(r.out, &report).ok());
  CHECK(google::protobuf::util::MessageDifferencer::Equals(
      report, Expected({kSpread}, "default", "web-6d4cf56db6-tq8mc")));
  CHECK(report.pod() == kWeb);
  CHECK(report.summary() == "1/7 nodes are available.");
  REQUIRE(report.nodes_size() == 7);
  CHECK(report.nodes(6).name() == kOwnNode);
  CHECK(report.nodes(6).fits());
  CHECK(report.nodes(5).name() == kNotReady);
  CHECK_FALSE(report.nodes(5).fits());
  CHECK(report.nodes(5).reasons(0).plugin() == "NodeReadiness");
  CHECK(report.nodes(0).reasons(0).message() ==
        "node(s) didn't match pod topology spread constraints");
  // A false bool is printed, and the keys are exactly the proto's names.
  CHECK(absl::StrContains(r.out, "\"fits\": false"));
  std::set<std::string> keys;
  for (size_t q = r.out.find("\":"); q != std::string::npos;
       q = r.out.find("\":", q + 1)) {
    const size_t open = r.out.rfind('"', q - 1);
    keys.insert(r.out.substr(open + 1, q - open - 1));
  }
  CHECK(keys == std::set<std::string>{"pod", "nodes", "name", "fits", "reasons",
                                      "plugin", "message", "summary"});
  // The text shows the same report.
  const test::Result text = Run({"fit", kWeb, "-f", kSpread, "-o", "text"});
  REQUIRE(text.status == kExitOk);
  for (const v1::FitNode& node : report.nodes()) {
    const std::vector<Row> rows = RowsOf(text.out, node.name());
    REQUIRE(rows.size() ==
            static_cast<size_t>(std::max(1, node.reasons_size())));
    for (size_t i = 0; i < rows.size(); ++i) {
      CHECK(rows[i][1] == (node.fits() ? "yes" : "no"));
      if (!node.fits()) {
        CHECK(rows[i][2] == node.reasons(static_cast<int>(i)).plugin());
        CHECK(rows[i][3] == node.reasons(static_cast<int>(i)).message());
      }
    }
  }
}

TEST_CASE("fit cli: requests bigger than any node are Insufficient cpu",
          "[cli][fit]") {
  const std::string big = test::WriteTemp("fit_big.yaml", R"(apiVersion: v1
kind: Pod
metadata: {name: big, namespace: default}
spec:
  nodeName: ip-10-0-1-23.us-west-2.compute.internal
  containers:
  - {name: app, image: app, resources: {requests: {cpu: "16", memory: 1Gi}}}
status: {phase: Running}
)");
  const test::Result r = Run({"fit", "default/big", "-f", kSpread, "-f", big});
  REQUIRE(r.status == kExitOk);
  CHECK(absl::StartsWith(
      r.out,
      "Pod default/big on ip-10-0-1-23.us-west-2.compute.internal "
      "(considered as if unbound): 0/7 nodes are available: 1 node(s) were "
      "not ready, 6 Insufficient cpu.\n"));
  CheckAligned(r.out);
  for (const std::string& node :
       {kOtherZones[0], kOtherZones[1], kOtherZones[2], kOtherZones[3],
        kOtherZones[4], std::string(kOwnNode)}) {
    CAPTURE(node);
    CHECK(
        RowsOf(r.out, node) ==
        std::vector<Row>{{node, "no", "NodeResourcesFit", "Insufficient cpu"}});
  }
  const std::vector<Row> not_ready = RowsOf(r.out, kNotReady);
  CHECK(std::count(
            not_ready.begin(), not_ready.end(),
            Row{kNotReady, "no", "NodeResourcesFit", "Insufficient cpu"}) == 1);
}

TEST_CASE("fit cli: a bound pod's own requests do not count on its node",
          "[cli][fit]") {
  // ip-10-0-1-23 has 1930m allocatable and 875m requested by the demo's
  // pods: one more CPU fits only if this pod is not counted twice.
  const auto snug = [](const std::string& cpu) {
    return test::WriteTemp("fit_snug_" + cpu + ".yaml",
                           absl::StrCat(R"(apiVersion: v1
kind: Pod
metadata: {name: snug, namespace: default}
spec:
  nodeName: ip-10-0-1-23.us-west-2.compute.internal
  containers:
  - {name: app, image: app, resources: {requests: {cpu: ")",
                                        cpu, R"("}}}
status: {phase: Running}
)"));
  };
  const test::Result fits =
      Run({"fit", "default/snug", "-f", kSpread, "-f", snug("1")});
  REQUIRE(fits.status == kExitOk);
  CHECK(RowsOf(fits.out, kApiNode) ==
        std::vector<Row>{{kApiNode, "yes", "-", "-"}});
  const test::Result over =
      Run({"fit", "default/snug", "-f", kSpread, "-f", snug("1100m")});
  REQUIRE(over.status == kExitOk);
  CHECK(RowsOf(over.out, kApiNode) ==
        std::vector<Row>{
            {kApiNode, "no", "NodeResourcesFit", "Insufficient cpu"}});
}

TEST_CASE("fit cli: a pending pod, with kube-scheduler's summary",
          "[cli][fit]") {
  const test::Result r = Run({"fit", kPending, "-f", kSpread});
  REQUIRE(r.status == kExitOk);
  CHECK(absl::StartsWith(
      r.out,
      "Pod analytics/adhoc-query-5c7d9f8b6-8sn2w (unbound): 0/7 nodes are "
      "available: 1 Insufficient cpu, 1 Insufficient memory, 1 node(s) were "
      "not ready, 5 node(s) didn't match Pod's node affinity/selector.\n"));
  CheckAligned(r.out);
  // The batch node it selects is too small; two plugins on another node.
  CHECK(RowsOf(r.out, kBatchNode) ==
        std::vector<Row>{{kBatchNode, "no", "NodeResourcesFit",
                          "Insufficient cpu, Insufficient memory"}});
  CHECK(RowsOf(r.out, kOwnNode) ==
        std::vector<Row>{{kOwnNode, "no", "NodeAffinity",
                          "node(s) didn't match Pod's node affinity/selector"},
                         {kOwnNode, "no", "NodeResourcesFit",
                          "Insufficient cpu, Insufficient memory"}});
  const test::Result json = Run({"fit", kPending, "-f", kSpread, "-o", "json"});
  REQUIRE(json.status == kExitOk);
  v1::FitReport report;
  REQUIRE(google::protobuf::util::JsonStringToMessage(json.out, &report).ok());
  CHECK(google::protobuf::util::MessageDifferencer::Equals(
      report, Expected({kSpread}, "analytics", "adhoc-query-5c7d9f8b6-8sn2w")));
}

TEST_CASE("fit cli: without -f, the bundled demo cluster", "[cli][fit]") {
  const test::Result r = Run({"fit", kWeb});
  REQUIRE(r.status == kExitOk);
  CHECK(absl::StartsWith(
      r.out,
      "Pod default/web-6d4cf56db6-tq8mc on "
      "ip-10-0-3-67.us-west-2.compute.internal (considered as if unbound): "
      "7/8 nodes are available.\n"));
  CHECK(RowsOf(r.out, "ip-10-0-1-89.us-west-2.compute.internal") ==
        std::vector<Row>{
            {"ip-10-0-1-89.us-west-2.compute.internal", "yes", "-", "-"}});
}

TEST_CASE("fit cli: --help names the dump to feed it", "[cli][fit]") {
  const test::Result r = Run({"fit", "--help"});
  REQUIRE(r.status == kExitOk);
  CHECK(absl::StartsWith(r.out, "usage: karpenter fit NAMESPACE/POD"));
  CHECK(absl::StrContains(
      r.out,
      "kubectl get nodes,pods,pdb,nodepools,nodeclaims,pv,pvc,storageclasses,"
      "csinodes,daemonsets -A -o yaml > cluster.yaml\n"));
  const test::Result top = Run({"--help"});
  CHECK(absl::StrContains(top.out, "  fit NAMESPACE/POD [-f FILE]..."));
}

TEST_CASE("fit cli: bad usage, bad input and unknown pods exit 2",
          "[cli][fit]") {
  const std::string truncated = test::WriteTemp(
      "fit_truncated.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name");
  const test::UsageCase cases[] = {
      {{"fit"}, "karpenter: fit: missing NAMESPACE/POD\n"},
      {{"fit", "web-6d4cf56db6-tq8mc"},
       "karpenter: fit: \"web-6d4cf56db6-tq8mc\" is not NAMESPACE/POD"},
      {{"fit", "/web"}, "karpenter: fit: \"/web\" is not NAMESPACE/POD"},
      {{"fit", "default/"},
       "karpenter: fit: \"default/\" is not NAMESPACE/POD"},
      {{"fit", "a/b/c"}, "karpenter: fit: \"a/b/c\" is not NAMESPACE/POD"},
      {{"fit", "a/b", "c/d"},
       "karpenter: fit: one NAMESPACE/POD expected, got 2\n"},
      {{"fit", kWeb, "-o", "yaml"},
       "karpenter: fit: -o: \"yaml\" is not text or json\n"},
      {{"fit", kWeb, "-o"}, "karpenter: fit: -o: missing value\n"},
      {{"fit", kWeb, "--at", "now"},
       "karpenter: fit: unknown option \"--at\"\n"},
      {{"fit", kWeb, "-f"}, "karpenter: fit: -f: missing FILE\n"},
      {{"fit", kWeb, "-f", "/nonexistent/cluster.yaml"},
       "karpenter: fit: cannot open \"/nonexistent/cluster.yaml\""},
      {{"fit", kWeb, "-f", truncated}, "karpenter: fit: " + truncated},
      {{"fit", "default/nope", "-f", kSpread, "-f", kBatchPod},
       "karpenter: fit: pod \"default/nope\" not found in " + kSpread + ", " +
           kBatchPod + "\n"},
      {{"fit", "web/web-6d4cf56db6-tq8mc"},
       "karpenter: fit: pod \"web/web-6d4cf56db6-tq8mc\" not found in the "
       "bundled example cluster (examples/clusters/demo.yaml)\n"},
  };
  for (const test::UsageCase& c : cases) test::CheckUsageError(c);
}

}  // namespace
}  // namespace karpenter::cli
