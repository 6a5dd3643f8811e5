// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// `karpenter plan --watch` and `karpenter explain --watch` over kubectl
// watch streams fed in chunks (watch.h ChunkStreamReader): the stream
// pauses after every chunk, as a pipe from `kubectl get --watch` pauses
// between bursts. The cluster is examples/clusters/demo.yaml as
// `kubectl get ... --watch --output-watch-events -o json` prints it
// (tests/testdata/watch/demo-events.json: 52 ADDED events).

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "cli_test_util.h"
#include "google/protobuf/util/json_util.h"
#include "karpenter/v1/plan.pb.h"
#include "watch.h"

namespace karpenter::cli {
namespace {

constexpr char kAt[] = "2025-03-05T12:00:00Z";
constexpr char kEmpty[] = "ip-10-0-1-89.us-west-2.compute.internal";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string DemoEvents() {
  const std::string text =
      ReadFile(KARPENTER_TESTDATA_DIR "/watch/demo-events.json");
  REQUIRE(!text.empty());
  return text;
}

// The top-level values of a stream printed as kubectl prints them (each
// ends with a "}" line), newline included.
std::vector<std::string> Values(const std::string& stream) {
  std::vector<std::string> values;
  std::string current;
  for (absl::string_view line : absl::StrSplit(stream, '\n')) {
    if (line.empty() && current.empty()) continue;
    absl::StrAppend(&current, line, "\n");
    if (line == "}") {
      values.push_back(current);
      current.clear();
    }
  }
  return values;
}

// The one event of `stream` whose object is the `kind` named `name` (its
// own kind and metadata.name, at their indentation, not an owner
// reference's or a nodeClassRef's).
std::string EventOf(const std::string& stream, const std::string& kind,
                    const std::string& name) {
  const std::string kind_field =
      absl::StrCat("\n        \"kind\": \"", kind, "\"");
  const std::string name_field =
      absl::StrCat("\n            \"name\": \"", name, "\"");
  std::vector<std::string> found;
  for (const std::string& v : Values(stream)) {
    if (absl::StrContains(v, kind_field) && absl::StrContains(v, name_field)) {
      found.push_back(v);
    }
  }
  CAPTURE(kind, name);
  REQUIRE(found.size() == 1);
  return found[0];
}

// `text` with `from` replaced by `to`, which must occur.
std::string Replace(const std::string& text, const std::string& from,
                    const std::string& to) {
  REQUIRE(absl::StrContains(text, from));
  return absl::StrReplaceAll(text, {{from, to}});
}

// A web pod like web-6d4cf56db6-4xk2p, as an ADDED event, on the node that
// demo.yaml leaves empty.
std::string ExtraPodAdded(const std::string& demo) {
  std::string pod = EventOf(demo, "Pod", "web-6d4cf56db6-4xk2p");
  pod = Replace(pod, "web-6d4cf56db6-4xk2p", "web-6d4cf56db6-z8m4n");
  pod =
      Replace(pod, "\"nodeName\": \"ip-10-0-1-23.us-west-2.compute.internal\"",
              absl::StrCat("\"nodeName\": \"", kEmpty, "\""));
  return Replace(pod, "\"resourceVersion\": \"421510\"",
                 "\"resourceVersion\": \"570001\"");
}

std::string ExtraPodDeleted(const std::string& demo) {
  std::string pod = Replace(ExtraPodAdded(demo), "\"type\": \"ADDED\"",
                            "\"type\": \"DELETED\"");
  return Replace(pod, "\"resourceVersion\": \"570001\"",
                 "\"resourceVersion\": \"570002\"");
}

// A label added to a running pod: nothing the plan reads.
std::string LabelModified(const std::string& demo) {
  std::string pod = EventOf(demo, "Pod", "web-6d4cf56db6-9hz7q");
  pod = Replace(pod, "\"type\": \"ADDED\"", "\"type\": \"MODIFIED\"");
  pod =
      Replace(pod, "\"app\": \"web\",", "\"app\": \"web\",\n\"tier\": \"f\",");
  return Replace(pod, "\"resourceVersion\": \"492181\"",
                 "\"resourceVersion\": \"570003\"");
}

constexpr char kBookmark[] =
    "{\n    \"type\": \"BOOKMARK\",\n    \"object\": {\n        \"kind\": "
    "\"Pod\",\n        \"apiVersion\": \"v1\",\n        \"metadata\": {\n     "
    "       \"resourceVersion\": \"570004\"\n        }\n    }\n}\n";

// NodePool default's budget for every reason set to 0 nodes.
std::string BudgetZero(const std::string& demo) {
  std::string pool = EventOf(demo, "NodePool", "default");
  pool = Replace(pool, "\"type\": \"ADDED\"", "\"type\": \"MODIFIED\"");
  pool = Replace(pool, "\"nodes\": \"10%\"", "\"nodes\": \"0\"");
  return Replace(pool, "\"resourceVersion\": \"569206\"",
                 "\"resourceVersion\": \"570005\"");
}

test::Result RunPlan(const std::vector<std::string>& args,
                     std::vector<std::string> chunks) {
  ChunkStreamReader in(std::move(chunks));
  std::ostringstream out, err;
  const int status = RunPlanCommand(args, in, out, err);
  return {status, out.str(), err.str()};
}

test::Result RunExplain(const std::vector<std::string>& args,
                        std::vector<std::string> chunks) {
  ChunkStreamReader in(std::move(chunks));
  std::ostringstream out, err;
  const int status = RunExplainCommand(args, in, out, err);
  return {status, out.str(), err.str()};
}

// The plans of a text watch, split at the separators.
std::vector<std::string> Plans(const std::string& out,
                               std::vector<std::string>* separators) {
  std::vector<std::string> plans(1);
  for (absl::string_view line : absl::StrSplit(out, '\n')) {
    if (absl::StartsWith(line, "--- ")) {
      if (separators != nullptr) separators->emplace_back(line);
      plans.emplace_back();
      continue;
    }
    absl::StrAppend(&plans.back(), line, "\n");
  }
  return plans;
}

// The row of `node` in a plan's text.
std::string RowOf(const std::string& plan, const std::string& node) {
  for (absl::string_view line : absl::StrSplit(plan, '\n')) {
    if (absl::StartsWith(line, node + " ")) return std::string(line);
  }
  return "";
}

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + what.size())) {
    ++n;
  }
  return n;
}

// The stream of the main scenario: the cluster with a pod on kEmpty; the
// pod deleted (cut in the middle: no pass on half a value); a label and a
// bookmark (no change); the NodePool's budget set to 0.
std::vector<std::string> Scenario() {
  const std::string demo = DemoEvents();
  const std::string deleted = ExtraPodDeleted(demo);
  const size_t half = deleted.size() / 2;
  return {demo + ExtraPodAdded(demo), deleted.substr(0, half),
          deleted.substr(half), LabelModified(demo) + kBookmark,
          BudgetZero(demo)};
}

TEST_CASE("plan watch: a plan per change of answer, separators say why",
          "[cli-watch]") {
  const test::Result r =
      RunPlan({"--watch", "-f", "-", "--at", kAt}, Scenario());
  REQUIRE(r.status == kExitOk);
  CHECK(r.err.empty());
  std::vector<std::string> separators;
  const std::vector<std::string> plans = Plans(r.out, &separators);
  // The label and the bookmark change nothing: three plans, not four.
  REQUIRE(plans.size() == 3);
  CHECK(separators == std::vector<std::string>{
                          "--- 2025-03-05T12:00:00Z: 1 event applied, plan "
                          "changed",
                          "--- 2025-03-05T12:00:00Z: 2 events applied, plan "
                          "changed"});
  for (const std::string& plan : plans) {
    CHECK(absl::StartsWith(plan, "Disruption pass at 2025-03-05T12:00:00Z: "));
  }
  // A pod on the node: nothing to do with it (no prices, no consolidation).
  CHECK(absl::StartsWith(plans[0],
                         "Disruption pass at 2025-03-05T12:00:00Z: "
                         "0 commands\n"));
  CHECK(absl::StrContains(RowOf(plans[0], kEmpty), "InstanceTypeUnknown"));
  // The pod deleted: the node is empty and deleted.
  CHECK(absl::StrContains(plans[1], "1 command (Emptiness acted)"));
  CHECK(absl::StrContains(RowOf(plans[1], kEmpty), "Commanded"));
  // The budget at 0: blocked.
  CHECK(absl::StrContains(plans[2], "0 commands"));
  CHECK(absl::StrContains(RowOf(plans[2], kEmpty), "BudgetExhausted"));
  CHECK(absl::StrContains(RowOf(plans[2], kEmpty), "NodePool \"default\""));
}

TEST_CASE("plan watch: the plan of a file is the plan of the same dump",
          "[cli-watch]") {
  const std::string stream = test::WriteTemp("watch_demo.json", DemoEvents());
  const test::Result watched =
      RunPlan({"--watch", "-f", stream, "--at", kAt}, {"not read"});
  const test::Result plain = test::Run({"plan", "--at", kAt});
  REQUIRE(watched.status == kExitOk);
  REQUIRE(plain.status == kExitOk);
  // A regular file is read to its end, then planned once.
  CHECK(watched.out == plain.out);
  CHECK(watched.err == plain.err);
  // Through the CLI's entry point too (a file: standard input not read).
  const test::Result cli =
      test::Run({"plan", "-w", "--filename", stream, "--at", kAt});
  CHECK(cli.status == kExitOk);
  CHECK(cli.out == plain.out);
}

TEST_CASE("plan watch: json is a stream of plans without separators",
          "[cli-watch]") {
  const test::Result r =
      RunPlan({"--watch", "--at", kAt, "-o", "json"}, Scenario());
  REQUIRE(r.status == kExitOk);
  CHECK(r.err.empty());
  CHECK(!absl::StrContains(r.out, "---"));
  const std::vector<std::string> documents = Values(r.out);
  REQUIRE(documents.size() == 3);
  std::string joined;
  for (const std::string& d : documents) joined += d;
  CHECK(joined == r.out);  // Nothing between the documents.
  std::vector<v1::Plan> plans(3);
  for (size_t i = 0; i < 3; ++i) {
    CAPTURE(i);
    REQUIRE(google::protobuf::util::JsonStringToMessage(documents[i], &plans[i])
                .ok());
    CHECK(plans[i].now() == kAt);
  }
  const auto verdict = [](const v1::Plan& plan) {
    for (const v1::PlanVerdict& v : plan.verdicts()) {
      if (v.node() == kEmpty) return v.code();
    }
    return std::string("none");
  };
  CHECK(plans[0].commands_size() == 0);
  CHECK(verdict(plans[0]) == "InstanceTypeUnknown");
  CHECK(plans[1].acted() == "Emptiness");
  REQUIRE(plans[1].commands_size() == 1);
  CHECK(plans[1].commands(0).candidates(0).node() == kEmpty);
  CHECK(plans[2].commands_size() == 0);
  CHECK(verdict(plans[2]) == "BudgetExhausted");
}

TEST_CASE("plan watch: at the end the last plan is printed once",
          "[cli-watch]") {
  // The whole scenario in one chunk: one pass at the end, on the last state.
  std::string all;
  for (const std::string& c : Scenario()) all += c;
  const test::Result one = RunPlan({"--watch", "--at", kAt}, {all});
  REQUIRE(one.status == kExitOk);
  REQUIRE(Plans(one.out, nullptr).size() == 1);
  CHECK(absl::StrContains(RowOf(one.out, kEmpty), "BudgetExhausted"));
  // An empty stream: the plan of an empty cluster.
  const test::Result empty = RunPlan({"--watch", "--at", kAt}, {});
  REQUIRE(empty.status == kExitOk);
  CHECK(absl::StartsWith(empty.out,
                         "Disruption pass at 2025-03-05T12:00:00Z: "
                         "0 commands\n"));
  CHECK(Count(empty.out, "Disruption pass") == 1);
}

TEST_CASE(
    "plan watch: without --at a pass is at its time, and unchanged "
    "decisions are not reprinted",
    "[cli-watch]") {
  const std::string demo = DemoEvents();
  const absl::Time before = absl::Now();
  const test::Result r = RunPlan(
      {"--watch"}, {demo, LabelModified(demo), kBookmark, BudgetZero(demo)});
  REQUIRE(r.status == kExitOk);
  const std::vector<std::string> plans = Plans(r.out, nullptr);
  REQUIRE(plans.size() == 2);
  const std::string header = "Disruption pass at ";
  REQUIRE(absl::StartsWith(plans[0], header));
  absl::Time at;
  std::string why;
  REQUIRE(absl::ParseTime(absl::RFC3339_full,
                          plans[0].substr(header.size(), 20), &at, &why));
  CHECK(at >= absl::FromUnixSeconds(absl::ToUnixSeconds(before)));
  CHECK(at <= absl::Now());
}

TEST_CASE("plan watch: a value that does not decode ends the watch",
          "[cli-watch]") {
  const std::string demo = DemoEvents();
  const test::Result r = RunPlan(
      {"--watch", "-f", "-", "--at", kAt},
      {demo, "{\n    \"type\": \"ADDED\",\n    \"object\": {\"kind\": ]\n}\n",
       BudgetZero(demo)});
  CHECK(r.status == kExitUsage);
  // The plan of the first chunk, then nothing.
  CHECK(Plans(r.out, nullptr).size() == 1);
  CHECK(absl::StrContains(RowOf(r.out, kEmpty), "Commanded"));
  CHECK(absl::StartsWith(r.err, "karpenter: plan: stdin: value 53 (line "));
  CHECK(Count(r.err, "\n") == 1);
  // A stream cut inside a value: the end names it.
  const test::Result cut =
      RunPlan({"--watch", "--at", kAt}, {demo.substr(0, demo.size() - 40)});
  CHECK(cut.status == kExitUsage);
  CHECK(cut.out.empty());
  CHECK(absl::StartsWith(cut.err, "karpenter: plan: stdin"));
  CHECK(absl::StrContains(cut.err, "line"));
}

TEST_CASE("plan watch: an event the cluster rejects is a warning",
          "[cli-watch]") {
  const std::string demo = DemoEvents();
  // Decodes (a Pod), but the cluster cannot hold an object without a name.
  const std::string unnamed =
      "{\"type\": \"ADDED\", \"object\": {\"apiVersion\": \"v1\", \"kind\": "
      "\"Pod\", \"metadata\": {\"namespace\": \"default\"}}}\n";
  const test::Result r =
      RunPlan({"--watch", "--at", kAt}, {demo, unnamed, ExtraPodAdded(demo)});
  REQUIRE(r.status == kExitOk);
  CHECK(r.err ==
        "warning: stdin: value 53: ADDED unnamed Pod: metadata.name is empty "
        "(event ignored)\n");
  // The watch went on: the pod after it made the node busy.
  std::vector<std::string> separators;
  const std::vector<std::string> plans = Plans(r.out, &separators);
  REQUIRE(plans.size() == 2);
  CHECK(absl::StrContains(RowOf(plans[1], kEmpty), "InstanceTypeUnknown"));
  // The rejected event is not counted.
  CHECK(separators == std::vector<std::string>{"--- 2025-03-05T12:00:00Z: 1 "
                                               "event applied, plan changed"});
}

TEST_CASE("plan watch: dump checks over a stream, --strict ends it",
          "[cli-watch]") {
  const std::string demo = DemoEvents();
  // A NodeClaim without its creationTimestamp (a hand-written manifest).
  std::string claim = EventOf(demo, "NodeClaim", "default-c2rwh");
  const std::string stamp = "\"creationTimestamp\": ";
  const size_t at = claim.find(stamp);
  REQUIRE(at != std::string::npos);
  claim.erase(at, claim.find('\n', at) + 1 - at);
  claim = Replace(claim, "\"type\": \"ADDED\"", "\"type\": \"MODIFIED\"");
  claim = Replace(claim, "\"resourceVersion\": \"", "\"resourceVersion\": \"9");
  const std::vector<std::string> chunks = {demo, claim, LabelModified(demo),
                                           BudgetZero(demo)};
  const test::Result r = RunPlan({"--watch", "--at", kAt}, chunks);
  REQUIRE(r.status == kExitOk);
  // Warned once, though three passes saw it.
  CHECK(Count(r.err, "warning: ") == 1);
  CHECK(absl::StrContains(r.err,
                          "stdin: NodeClaim \"default-c2rwh\": "
                          "metadata.creationTimestamp is missing"));
  CHECK(absl::StrContains(r.err, "(--at)"));
  const test::Result strict =
      RunPlan({"--watch", "--at", kAt, "--strict"}, chunks);
  CHECK(strict.status == kExitUsage);
  CHECK(Plans(strict.out, nullptr).size() == 1);  // Before the claim.
  CHECK(strict.err ==
        "karpenter: plan: --strict: stdin: NodeClaim \"default-c2rwh\": "
        "metadata.creationTimestamp is missing\n");
}

TEST_CASE(
    "plan watch: --catalog, --no-consolidation and --complete apply "
    "to every pass",
    "[cli-watch]") {
  const std::string demo = DemoEvents();
  const std::string catalog =
      KARPENTER_EXAMPLES_DIR "/catalogs/aws-us-west-2.yaml";
  const std::vector<std::string> chunks = {demo + ExtraPodAdded(demo),
                                           BudgetZero(demo)};
  const test::Result priced =
      RunPlan({"--watch", "--at", kAt, "--catalog", catalog}, chunks);
  REQUIRE(priced.status == kExitOk);
  std::vector<std::string> plans = Plans(priced.out, nullptr);
  REQUIRE(plans.size() == 2);
  // Priced: the busy node's pods fit elsewhere, consolidation deletes it.
  CHECK(absl::StrContains(plans[0], "(SingleNodeConsolidation acted)"));
  CHECK(absl::StrContains(RowOf(plans[1], kEmpty), "BudgetExhausted"));
  const test::Result off = RunPlan(
      {"--watch", "--at", kAt, "--catalog", catalog, "--no-consolidation"},
      chunks);
  REQUIRE(off.status == kExitOk);
  plans = Plans(off.out, nullptr);
  CHECK(absl::StrContains(plans[0], "0 commands"));
  // The catalogue is read once, before the stream.
  const test::Result bad = RunPlan(
      {"--watch", "--at", kAt, "--catalog", "/nonexistent/c.yaml"}, chunks);
  CHECK(bad.status == kExitUsage);
  CHECK(bad.out.empty());
  CHECK(absl::StartsWith(bad.err, "karpenter: plan: --catalog: "));
  // --complete: a NodeClaim whose NodePool is deleted by the stream.
  std::string pool_gone =
      Replace(EventOf(demo, "NodePool", "batch"), "\"type\": \"ADDED\"",
              "\"type\": \"DELETED\"");
  const test::Result partial =
      RunPlan({"--watch", "--at", kAt}, {demo, pool_gone});
  const test::Result complete =
      RunPlan({"--watch", "--at", kAt, "--complete"}, {demo, pool_gone});
  REQUIRE(partial.status == kExitOk);
  REQUIRE(complete.status == kExitOk);
  CHECK(absl::StrContains(RowOf(Plans(partial.out, nullptr).back(),
                                "ip-10-0-3-120.us-west-2.compute.internal"),
                          "NodePoolNotFound"));
  CHECK(absl::StrContains(Plans(complete.out, nullptr).back(),
                          "NodePoolDeleted"));
}

TEST_CASE("plan watch: bad usage", "[cli-watch]") {
  for (const test::UsageCase& c : std::vector<test::UsageCase>{
           {{"plan", "--watch", "-f", "a.json", "-f", "b.json"},
            "plan: --watch reads one stream, got 2 files (-f)"},
           {{"plan", "--watch", "-f", "/nonexistent/w.json"},
            "plan: -f: cannot open \"/nonexistent/w.json\": "},
           {{"explain", "n", "--watch", "-f", "/nonexistent/w.json"},
            "explain: -f: cannot open \"/nonexistent/w.json\": "},
           {{"plan", "--watch", "--every", "-1s"},
            "plan: --every: \"-1s\" is not a finite duration >= 0 (e.g. "
            "10s)"},
           {{"explain", "n", "--watch", "--every", "often"},
            "explain: --every: \"often\" is not a finite duration >= 0 "
            "(e.g. 10s)"},
       }) {
    test::CheckUsageError(c);
  }
}

// The demo cluster, then a quiet minute, then a bookmark, replayed from
// 2025-03-04T07:46:00Z: kEmpty's consolidateAfter elapses at 07:46:19Z, in
// the middle of the quiet minute.
ChunkStreamReader QuietMinute() {
  absl::Time start;
  std::string error;
  REQUIRE(absl::ParseTime(absl::RFC3339_full, "2025-03-04T07:46:00Z", &start,
                          &error));
  return ChunkStreamReader({DemoEvents(), kBookmark}, start,
                           {absl::Seconds(60)});
}

TEST_CASE("plan watch: a quiet stream is planned again as time passes",
          "[cli-watch]") {
  ChunkStreamReader in = QuietMinute();
  std::ostringstream out, err;
  REQUIRE(RunPlanCommand({"--watch", "--every", "10s"}, in, out, err) ==
          kExitOk);
  CHECK(err.str().empty());
  std::vector<std::string> separators;
  const std::vector<std::string> plans = Plans(out.str(), &separators);
  // Passes at :00, :10 (the same plan), :20 (consolidateAfter has
  // elapsed: the empty node goes), :30 ... and at the end (the same).
  REQUIRE(plans.size() == 2);
  CHECK(separators == std::vector<std::string>{
                          "--- 2025-03-04T07:46:20Z: 0 events applied, plan "
                          "changed"});
  CHECK(absl::StartsWith(plans[0],
                         "Disruption pass at 2025-03-04T07:46:00Z: "
                         "0 commands\n"));
  CHECK(absl::StartsWith(plans[1],
                         "Disruption pass at 2025-03-04T07:46:20Z: "
                         "1 command (Emptiness acted)\n"));
}

TEST_CASE("plan watch: --every 0 and --at plan only on events", "[cli-watch]") {
  {
    // No timed pass: the stream is read on at once, still at 07:46:00Z.
    ChunkStreamReader in = QuietMinute();
    std::ostringstream out, err;
    REQUIRE(RunPlanCommand({"--watch", "--every", "0"}, in, out, err) ==
            kExitOk);
    const std::vector<std::string> plans = Plans(out.str(), nullptr);
    REQUIRE(plans.size() == 1);
    CHECK(absl::StrContains(plans[0], "0 commands"));
  }
  {
    // --at: time does not move, so nothing is planned again for it.
    ChunkStreamReader in = QuietMinute();
    std::ostringstream out, err;
    REQUIRE(RunPlanCommand({"--watch", "--at", "2025-03-04T07:46:00Z"}, in, out,
                           err) == kExitOk);
    CHECK(Plans(out.str(), nullptr).size() == 1);
    CHECK(absl::StrContains(out.str(), "0 commands"));
  }
}

TEST_CASE("explain watch: the explanation changes as time passes",
          "[cli-watch]") {
  ChunkStreamReader in = QuietMinute();
  std::ostringstream out, err;
  REQUIRE(RunExplainCommand({kEmpty, "--watch"}, in, out, err) == kExitOk);
  std::vector<std::string> separators;
  const std::vector<std::string> texts = Plans(out.str(), &separators);
  REQUIRE(texts.size() == 2);
  CHECK(separators ==
        std::vector<std::string>{"--- 2025-03-04T07:46:20Z: 0 events applied, "
                                 "explanation changed"});
  CHECK(absl::StrContains(texts[0], "disrupted:     at 2025-03-04T07:46:19Z"));
  CHECK(absl::StrContains(texts[1], "verdict:       Commanded (Emptiness)"));
  CHECK(absl::StrContains(texts[1], "disrupted:     by this pass"));
}

TEST_CASE("explain watch: the explanation when it changes", "[cli-watch]") {
  const std::vector<std::string> chunks = Scenario();
  const test::Result r =
      RunExplain({kEmpty, "--watch", "-f", "-", "--at", kAt}, chunks);
  REQUIRE(r.status == kExitOk);
  CHECK(r.err.empty());
  std::vector<std::string> separators;
  const std::vector<std::string> views = Plans(r.out, &separators);
  REQUIRE(views.size() == 3);
  CHECK(separators ==
        std::vector<std::string>{
            "--- 2025-03-05T12:00:00Z: 1 event applied, explanation changed",
            "--- 2025-03-05T12:00:00Z: 2 events applied, explanation "
            "changed"});
  for (const std::string& v : views) {
    CHECK(absl::StartsWith(v, absl::StrCat("Node ", kEmpty)));
  }
  CHECK(absl::StrContains(views[0], "verdict:       InstanceTypeUnknown"));
  CHECK(absl::StrContains(views[0], "pods:          3 on the node"));
  CHECK(absl::StrContains(views[1], "verdict:       Commanded"));
  CHECK(absl::StrContains(views[1], "(empty)"));
  CHECK(absl::StrContains(views[2], "verdict:       BudgetExhausted"));
  // Each view is what `explain` prints over the same cluster.
  std::string upto;
  for (size_t i = 0; i < 2; ++i) upto += chunks[i];
  const test::Result last =
      RunExplain({kEmpty, "--watch", "--at", kAt}, {upto + chunks[2]});
  CHECK(last.out == views[1]);
}

TEST_CASE("explain watch: a node not in the cluster", "[cli-watch]") {
  const std::string demo = DemoEvents();
  const std::string node = "ip-10-0-9-9.us-west-2.compute.internal";
  const test::Result r =
      RunExplain({node, "--watch", "--at", kAt}, {demo, BudgetZero(demo)});
  CHECK(r.status == kExitUsage);
  // Said once (the budget changes nothing about it), then the error.
  CHECK(r.out == absl::StrCat("Node ", node, ": not in the cluster (node \"",
                              node, "\" not found)\n"));
  CHECK(r.err == absl::StrCat("karpenter: explain: node \"", node,
                              "\" not found at the end of the stream\n"));
  // A node that appears: first absent, then explained.
  const std::string node_event = EventOf(demo, "Node", kEmpty);
  const std::string without = Replace(demo, node_event, "");
  const test::Result later =
      RunExplain({kEmpty, "--watch", "--at", kAt}, {without, node_event});
  REQUIRE(later.status == kExitOk);
  const std::vector<std::string> views = Plans(later.out, nullptr);
  REQUIRE(views.size() == 2);
  CHECK(absl::StrContains(views[0], "not in the cluster"));
  CHECK(absl::StrContains(views[1], "verdict:       Commanded"));
}

TEST_CASE("watch reader: a pipe is ready while bytes or its end wait",
          "[cli-watch]") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  FdStreamReader reader(fds[0], "pipe");
  CHECK(!reader.Ready());  // Nothing written yet: a read would wait.
  // Waiting for input that does not come times out, after the timeout.
  const absl::Time before = absl::Now();
  CHECK(!reader.WaitReady(absl::Milliseconds(30)));
  CHECK(absl::Now() - before >= absl::Milliseconds(29));
  REQUIRE(::write(fds[1], "{\"a\": 1}\n", 9) == 9);
  CHECK(reader.Ready());
  CHECK(reader.WaitReady(absl::Seconds(5)));  // At once: bytes are there.
  std::string chunk;
  REQUIRE(reader.Read(chunk).ok());
  CHECK(chunk == "{\"a\": 1}\n");
  CHECK(!reader.Ready());  // The writer paused.
  ::close(fds[1]);
  CHECK(reader.Ready());  // The end is there.
  REQUIRE(reader.Read(chunk).ok());
  CHECK(chunk.empty());
  ::close(fds[0]);
  // A closed descriptor: the read fails, naming the stream.
  FdStreamReader closed(fds[0], "gone");
  const absl::Status s = closed.Read(chunk);
  CHECK(absl::IsUnavailable(s));
  CHECK(absl::StartsWith(s.message(), "gone: read failed: "));
}

TEST_CASE("plan watch: through a pipe, as from kubectl", "[cli-watch]") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const std::string demo = DemoEvents();
  // A child writes the cluster, waits until it is planned (the plan's
  // first line read back), then writes the change and closes.
  const std::string change = BudgetZero(demo);
  int back[2];
  REQUIRE(::pipe(back) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::close(fds[0]);
    ::close(back[1]);
    const auto write_all = [&](const std::string& text) {
      for (size_t done = 0; done < text.size();) {
        const ssize_t n =
            ::write(fds[1], text.data() + done, text.size() - done);
        if (n <= 0) ::_exit(1);
        done += static_cast<size_t>(n);
      }
    };
    write_all(demo);
    // At most 60 s: a watch that never plans fails the test, not hangs it.
    struct pollfd p = {};
    p.fd = back[0];
    p.events = POLLIN;
    if (::poll(&p, 1, 60 * 1000) != 1) ::_exit(2);
    write_all(change);
    ::_exit(0);
  }
  ::close(fds[1]);
  ::close(back[0]);
  FdStreamReader in(fds[0], "stdin");
  // An ostream that signals the child on the first plan.
  struct SignalBuf : std::stringbuf {
    int fd;
    bool sent = false;
    int sync() override {
      if (!sent && !str().empty()) {
        sent = ::write(fd, "x", 1) == 1;
      }
      return 0;
    }
  } buf;
  buf.fd = back[1];
  std::ostream out(&buf);
  std::ostringstream err;
  const int status = RunPlanCommand({"--watch", "--at", kAt}, in, out, err);
  ::close(back[1]);
  ::close(fds[0]);
  int child_status = 0;
  REQUIRE(::waitpid(child, &child_status, 0) == child);
  CHECK(WIFEXITED(child_status));
  CHECK(WEXITSTATUS(child_status) == 0);
  CHECK(status == kExitOk);
  CHECK(err.str().empty());
  const std::vector<std::string> plans = Plans(buf.str(), nullptr);
  REQUIRE(plans.size() == 2);
  CHECK(absl::StrContains(RowOf(plans[0], kEmpty), "Commanded"));
  CHECK(absl::StrContains(RowOf(plans[1], kEmpty), "BudgetExhausted"));
}

}  // namespace
}  // namespace karpenter::cli
