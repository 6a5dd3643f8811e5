// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// `karpenter provision`, end to end on tests/testdata/provision-pending.yaml
// (one NodePool over three zones, an m5.large node in each, and pending
// pods: two that fit on the existing nodes, a zone-spread deployment of
// three 1500m pods that needs a NodeClaim per zone, one whose nodeSelector
// no NodePool satisfies), on dumps without pending pods, on the bundled
// demo cluster and on bad input.

#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "cli_test_util.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "karpenter/disruption/plan_proto.h"
#include "karpenter/scheduling/provision.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/scheduling.pb.h"

namespace karpenter::cli {
namespace {

using test::Run;

const std::string kPending =
    std::string(KARPENTER_TESTDATA_DIR) + "/provision-pending.yaml";
const std::set<std::string> kWorkers = {"default/worker-5d8f7b6c4-h2k9p",
                                        "default/worker-5d8f7b6c4-m4n7q"};
const std::set<std::string> kCrunch = {"analytics/crunch-7c9d8e6f5-b5t2x",
                                       "analytics/crunch-7c9d8e6f5-j8v4z",
                                       "analytics/crunch-7c9d8e6f5-p3w6r"};
constexpr char kTeamNone[] = "default/team-none-6f7a8b9c0-x4k2d";
const std::set<std::string> kNodes = {
    "ip-10-0-1-10.us-west-2.compute.internal",
    "ip-10-0-2-10.us-west-2.compute.internal",
    "ip-10-0-3-10.us-west-2.compute.internal"};
constexpr char kZone[] = "topology.kubernetes.io/zone";
constexpr char kInstanceType[] = "node.kubernetes.io/instance-type";

// The report `karpenter provision -f FILE... -o json` prints.
v1::ProvisionReport JsonReport(const std::vector<std::string>& files) {
  std::vector<std::string> args = {"provision", "-o", "json"};
  for (const std::string& file : files) {
    args.push_back("-f");
    args.push_back(file);
  }
  const test::Result r = Run(args);
  INFO(r.err);
  REQUIRE(r.status == kExitOk);
  CHECK(r.err.empty());
  v1::ProvisionReport report;
  REQUIRE(google::protobuf::util::JsonStringToMessage(r.out, &report).ok());
  return report;
}

// The library's report for `files` with the catalogue the command uses.
v1::ProvisionReport Expected(const std::vector<std::string>& files) {
  snapshot::ObjectSet objects;
  for (const std::string& file : files) {
    REQUIRE(snapshot::LoadFile(file, objects).ok());
  }
  absl::StatusOr<snapshot::Snapshot> snap =
      snapshot::Snapshot::Build(std::move(objects));
  REQUIRE(snap.ok());
  absl::StatusOr<v1::ProvisionReport> report = scheduling::Provision(
      *snap, disruption::ObservedInstanceTypes(*snap), {});
  REQUIRE(report.ok());
  return *report;
}

// The requirement of `claim` on `key`, or nullptr.
const v1::ProvisionRequirement* Requirement(const v1::ProvisionNodeClaim& claim,
                                            const std::string& key) {
  for (const v1::ProvisionRequirement& r : claim.requirements()) {
    if (r.key() == key) return &r;
  }
  return nullptr;
}

std::vector<std::string> Values(const v1::ProvisionRequirement& r) {
  return {r.values().begin(), r.values().end()};
}

// The quoted keys of a JSON text ("key": ...).
std::set<std::string> JsonKeys(const std::string& json) {
  std::set<std::string> keys;
  for (size_t q = json.find("\":"); q != std::string::npos;
       q = json.find("\":", q + 1)) {
    const size_t open = json.rfind('"', q - 1);
    keys.insert(json.substr(open + 1, q - open - 1));
  }
  return keys;
}

std::vector<std::string> Lines(const std::string& text) {
  return absl::StrSplit(text, '\n');
}

bool HasLine(const std::string& text, const std::string& line) {
  const std::vector<std::string> lines = Lines(text);
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

TEST_CASE(
    "provision cli: pending pods go to existing nodes first, then a "
    "NodeClaim per zone for a zone spread",
    "[cli][provision]") {
  const v1::ProvisionReport report = JsonReport({kPending});
  // (a) The two small pods fit on the existing nodes' free capacity.
  std::set<std::string> on_existing;
  for (const v1::ProvisionExisting& node : report.existing()) {
    CAPTURE(node.node());
    CHECK(kNodes.count(node.node()) == 1);
    CHECK_FALSE(node.pods().empty());
    on_existing.insert(node.pods().begin(), node.pods().end());
  }
  CHECK(on_existing == kWorkers);
  // Existing nodes by name.
  for (int i = 1; i < report.existing_size(); ++i) {
    CHECK(report.existing(i - 1).node() < report.existing(i).node());
  }
  // (b) No node has 1500m free: a NodeClaim per pod, each narrowed to a
  // zone of its own by the spread (maxSkew 1, DoNotSchedule).
  REQUIRE(report.node_claims_size() == 3);
  std::set<std::string> claimed;
  std::set<std::string> zones;
  for (const v1::ProvisionNodeClaim& claim : report.node_claims()) {
    CAPTURE(claim.DebugString());
    CHECK(claim.node_pool() == "default");
    REQUIRE(claim.pods_size() == 1);
    CHECK(kCrunch.count(claim.pods(0)) == 1);
    claimed.insert(claim.pods(0));
    CHECK(std::vector<std::string>(claim.instance_types().begin(),
                                   claim.instance_types().end()) ==
          std::vector<std::string>{"m5.large"});
    CHECK(claim.price() == 0);  // the dump's instance types have no price
    const v1::ProvisionRequirement* zone = Requirement(claim, kZone);
    REQUIRE(zone != nullptr);
    CHECK(zone->operator_() == "In");
    REQUIRE(zone->values_size() == 1);
    zones.insert(zone->values(0));
    const v1::ProvisionRequirement* capacity =
        Requirement(claim, "karpenter.sh/capacity-type");
    REQUIRE(capacity != nullptr);
    CHECK(capacity->operator_() == "In");
    CHECK(Values(*capacity) == std::vector<std::string>{"on-demand"});
    const v1::ProvisionRequirement* type = Requirement(claim, kInstanceType);
    REQUIRE(type != nullptr);
    CHECK(type->operator_() == "In");
    CHECK(Values(*type) == std::vector<std::string>{"m5.large"});
    // Sorted by key, the instance types last (scheduling.proto).
    REQUIRE(claim.requirements_size() > 0);
    CHECK(claim.requirements(claim.requirements_size() - 1).key() ==
          kInstanceType);
    for (int i = 1; i + 1 < claim.requirements_size(); ++i) {
      CHECK(claim.requirements(i - 1).key() < claim.requirements(i).key());
    }
  }
  CHECK(claimed == kCrunch);
  CHECK(zones ==
        std::set<std::string>{"us-west-2a", "us-west-2b", "us-west-2c"});
  // (c) No NodePool defines example.com/team: the pod schedules nowhere.
  REQUIRE(report.unschedulable_size() == 1);
  CHECK(report.unschedulable(0).pod() == kTeamNone);
  CHECK(
      absl::StrContains(report.unschedulable(0).reason(), "example.com/team"));
}

TEST_CASE("provision cli: the text shows each node, NodeClaim and pod",
          "[cli][provision]") {
  const test::Result r = Run({"provision", "-f", kPending});
  REQUIRE(r.status == kExitOk);
  CHECK(r.err.empty());
  CHECK(absl::StartsWith(r.out,
                         "6 pending pods: 2 on existing nodes, 3 on 3 new "
                         "NodeClaims, 1 unschedulable\n\n"));
  const v1::ProvisionReport report = JsonReport({kPending});
  for (const v1::ProvisionExisting& node : report.existing()) {
    CHECK(HasLine(
        r.out,
        absl::StrCat("Existing node ", node.node(), ": ", node.pods_size(),
                     node.pods_size() == 1 ? " pod" : " pods")));
    for (const std::string& pod : node.pods()) {
      CHECK(HasLine(r.out, "  " + pod));
    }
  }
  // Each claim's section, in the report's order.
  size_t at = 0;
  for (int i = 0; i < report.node_claims_size(); ++i) {
    const v1::ProvisionNodeClaim& claim = report.node_claims(i);
    const std::string header =
        absl::StrCat("\nNodeClaim ", i + 1,
                     ": NodePool default, 1 pod, price unknown\n"
                     "  instance types (1, cheapest first): m5.large\n"
                     "  requirements:\n");
    const size_t section = r.out.find(header, at);
    REQUIRE(section != std::string::npos);
    at = section + header.size();
    std::string body;
    for (const v1::ProvisionRequirement& req : claim.requirements()) {
      absl::StrAppend(&body, "    ", req.key(), " ", req.operator_());
      if (!req.values().empty()) {
        absl::StrAppend(&body, " [", absl::StrJoin(req.values(), ", "), "]");
      }
      absl::StrAppend(&body, "\n");
    }
    absl::StrAppend(&body, "  pods:\n    ", claim.pods(0), "\n");
    CHECK(r.out.substr(at, body.size()) == body);
    const v1::ProvisionRequirement* zone = Requirement(claim, kZone);
    REQUIRE(zone != nullptr);
    CHECK(absl::StrContains(
        body, absl::StrCat("    ", kZone, " In [", zone->values(0), "]\n")));
  }
  // The pod that schedules nowhere, with its reason.
  const size_t unschedulable = r.out.find("\nUnschedulable: 1 pod\nPOD  ");
  REQUIRE(unschedulable != std::string::npos);
  CHECK(unschedulable > at);
  REQUIRE(report.unschedulable_size() == 1);
  const std::vector<std::string> lines = Lines(r.out);
  const auto row = std::find_if(lines.begin(), lines.end(), [](auto& line) {
    return absl::StartsWith(line, std::string(kTeamNone) + "  ");
  });
  REQUIRE(row != lines.end());
  CHECK(absl::EndsWith(*row, "  " + report.unschedulable(0).reason()));
}

TEST_CASE(
    "provision cli: json is the ProvisionReport with camelCase field names",
    "[cli][provision]") {
  const test::Result r = Run({"provision", "-f", kPending, "-o", "json"});
  REQUIRE(r.status == kExitOk);
  CHECK(r.err.empty());
  v1::ProvisionReport report;
  REQUIRE(google::protobuf::util::JsonStringToMessage(r.out, &report).ok());
  CHECK(google::protobuf::util::MessageDifferencer::Equals(
      report, Expected({kPending})));
  CHECK(absl::StrContains(r.out, "\"nodeClaims\": ["));
  CHECK(absl::StrContains(r.out, "\"nodePool\": \"default\""));
  CHECK(absl::StrContains(r.out, "\"instanceTypes\": ["));
  // Every key is a proto field's JSON name: no snake_case.
  std::set<std::string> keys = JsonKeys(r.out);
  CHECK(keys.count("existing") == 1);
  CHECK(keys.count("unschedulable") == 1);
  CHECK(keys.count("reason") == 1);
  CHECK(keys.count("node_claims") == 0);
  CHECK(keys.count("node_pool") == 0);
  CHECK(keys.count("instance_types") == 0);
  const std::set<std::string> proto_keys = {
      "existing",      "node",          "pods",  "nodeClaims",
      "nodePool",      "requirements",  "key",   "operator",
      "values",        "instanceTypes", "price", "annotations",
      "unschedulable", "pod",           "reason"};
  for (const std::string& key : keys) {
    CAPTURE(key);
    CHECK(proto_keys.count(key) == 1);
  }
}

constexpr char kNoPendingYaml[] = R"(apiVersion: v1
kind: List
items:
- apiVersion: karpenter.sh/v1
  kind: NodePool
  metadata: {name: default}
  spec:
    template:
      spec:
        nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
        requirements:
        - {key: topology.kubernetes.io/zone, operator: In, values: [us-west-2a]}
  status:
    conditions:
    - {type: Ready, status: "True", reason: Ready, lastTransitionTime: "2025-05-01T09:00:01Z"}
- apiVersion: v1
  kind: Node
  metadata:
    name: ip-10-0-1-10.us-west-2.compute.internal
    labels:
      karpenter.sh/capacity-type: on-demand
      karpenter.sh/nodepool: default
      kubernetes.io/hostname: ip-10-0-1-10.us-west-2.compute.internal
      node.kubernetes.io/instance-type: m5.large
      topology.kubernetes.io/zone: us-west-2a
  status:
    allocatable: {cpu: 1930m, memory: 7220108Ki, pods: "29"}
    capacity: {cpu: "2", memory: 7910284Ki, pods: "29"}
    conditions:
    - {type: Ready, status: "True", reason: KubeletReady, lastTransitionTime: "2025-05-02T08:01:40Z"}
- apiVersion: v1
  kind: Pod
  metadata: {name: api-0, namespace: default}
  spec:
    nodeName: ip-10-0-1-10.us-west-2.compute.internal
    containers:
    - {name: api, image: api, resources: {requests: {cpu: 500m}}}
  status:
    phase: Running
    conditions:
    - {type: PodScheduled, status: "True", lastTransitionTime: "2025-05-02T09:00:00Z"}
# Pending, but kube-scheduler has not tried it yet: not Karpenter's to
# provision (no PodScheduled False/Unschedulable).
- apiVersion: v1
  kind: Pod
  metadata: {name: just-created, namespace: default}
  spec:
    containers:
    - {name: app, image: app, resources: {requests: {cpu: 100m}}}
  status: {phase: Pending}
)";

TEST_CASE("provision cli: a dump without pending pods says so",
          "[cli][provision]") {
  const std::string file =
      test::WriteTemp("provision_no_pending.yaml", kNoPendingYaml);
  const test::Result r = Run({"provision", "-f", file});
  REQUIRE(r.status == kExitOk);
  CHECK(r.err.empty());
  CHECK(r.out == "No pending pods in " + file +
                     " (none is unbound with condition PodScheduled False, "
                     "reason Unschedulable): nothing to provision.\n");
  const test::Result json = Run({"provision", "-f", file, "-o", "json"});
  REQUIRE(json.status == kExitOk);
  v1::ProvisionReport report;
  REQUIRE(google::protobuf::util::JsonStringToMessage(json.out, &report).ok());
  CHECK(report.existing().empty());
  CHECK(report.node_claims().empty());
  CHECK(report.unschedulable().empty());
  // Empty lists are printed, so a script can always index them.
  CHECK(JsonKeys(json.out) ==
        std::set<std::string>{"existing", "nodeClaims", "unschedulable"});
}

TEST_CASE("provision cli: a DaemonSet's unschedulable pod is not provisioned",
          "[cli][provision]") {
  // Karpenter's pod.IsProvisionable: DaemonSet pods are the nodes' overhead,
  // never a reason to launch one.
  const std::string file =
      test::WriteTemp("provision_daemonset.yaml",
                      absl::StrCat(kNoPendingYaml, R"(- apiVersion: v1
  kind: Pod
  metadata:
    name: agent-x7k2p
    namespace: kube-system
    ownerReferences:
    - {apiVersion: apps/v1, kind: DaemonSet, name: agent, controller: true, uid: 0e1f2a3b-4c5d-6e7f-8a9b-0c1d2e3f4a5b}
  spec:
    containers:
    - {name: agent, image: agent, resources: {requests: {cpu: 100m}}}
  status:
    phase: Pending
    conditions:
    - {type: PodScheduled, status: "False", reason: Unschedulable, lastTransitionTime: "2025-05-03T10:00:01Z"}
)"));
  const v1::ProvisionReport report = JsonReport({file});
  CHECK(report.existing().empty());
  CHECK(report.node_claims().empty());
  CHECK(report.unschedulable().empty());
}

TEST_CASE("provision cli: the text lists 10 instance types, json all",
          "[cli][provision]") {
  // Twelve full nodes of twelve instance types in one NodePool: a 1-cpu
  // pending pod fits none of them, and any of the twelve can launch for it.
  std::string yaml = R"(apiVersion: v1
kind: List
items:
- apiVersion: karpenter.sh/v1
  kind: NodePool
  metadata: {name: wide}
  spec:
    template:
      spec:
        nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
        requirements: []
  status:
    conditions:
    - {type: Ready, status: "True", reason: Ready, lastTransitionTime: "2025-05-01T09:00:01Z"}
- apiVersion: v1
  kind: Pod
  metadata: {name: wants-one-cpu, namespace: default}
  spec:
    containers:
    - {name: app, image: app, resources: {requests: {cpu: "1"}}}
  status:
    phase: Pending
    conditions:
    - {type: PodScheduled, status: "False", reason: Unschedulable, lastTransitionTime: "2025-05-03T10:00:01Z"}
)";
  for (int i = 1; i <= 12; ++i) {
    const std::string node = absl::StrCat("node-", i);
    absl::StrAppend(&yaml, R"(- apiVersion: v1
  kind: Node
  metadata:
    name: )",
                    node, R"(
    labels:
      karpenter.sh/capacity-type: on-demand
      karpenter.sh/nodepool: wide
      kubernetes.io/hostname: )",
                    node, R"(
      node.kubernetes.io/instance-type: type-)",
                    i, R"(
      topology.kubernetes.io/zone: us-west-2a
  status:
    allocatable: {cpu: "2", memory: 8Gi, pods: "29"}
    capacity: {cpu: "4", memory: 16Gi, pods: "29"}
    conditions:
    - {type: Ready, status: "True", reason: KubeletReady, lastTransitionTime: "2025-05-02T08:01:40Z"}
- apiVersion: v1
  kind: Pod
  metadata: {name: full-)",
                    i, R"(, namespace: default}
  spec:
    nodeName: )",
                    node, R"(
    containers:
    - {name: app, image: app, resources: {requests: {cpu: 1900m}}}
  status: {phase: Running}
)");
  }
  const std::string file = test::WriteTemp("provision_wide.yaml", yaml);
  const v1::ProvisionReport report = JsonReport({file});
  REQUIRE(report.node_claims_size() == 1);
  const v1::ProvisionNodeClaim& claim = report.node_claims(0);
  CHECK(claim.pods_size() == 1);
  REQUIRE(claim.instance_types_size() == 12);
  const std::vector<std::string> first_ten(claim.instance_types().begin(),
                                           claim.instance_types().begin() + 10);
  const test::Result r = Run({"provision", "-f", file});
  REQUIRE(r.status == kExitOk);
  CHECK(HasLine(
      r.out, absl::StrCat("  instance types (12, cheapest first): ",
                          absl::StrJoin(first_ten, ", "), ", ... and 2 more")));
}

TEST_CASE("provision cli: without -f, the bundled demo cluster",
          "[cli][provision]") {
  // Its one pending pod asks NodePool batch for 32 cpu, more than the
  // instance types its nodes run.
  const test::Result r = Run({"provision", "-o", "json"});
  REQUIRE(r.status == kExitOk);
  v1::ProvisionReport report;
  REQUIRE(google::protobuf::util::JsonStringToMessage(r.out, &report).ok());
  CHECK(report.existing().empty());
  CHECK(report.node_claims().empty());
  REQUIRE(report.unschedulable_size() == 1);
  CHECK(report.unschedulable(0).pod() ==
        "analytics/adhoc-query-5c7d9f8b6-8sn2w");
  CHECK_FALSE(report.unschedulable(0).reason().empty());
  const test::Result text = Run({"provision"});
  REQUIRE(text.status == kExitOk);
  CHECK(absl::StartsWith(text.out,
                         "1 pending pod: 0 on existing nodes, 0 on 0 new "
                         "NodeClaims, 1 unschedulable\n"));
}

TEST_CASE("provision cli: --help says where the instance types come from",
          "[cli][provision]") {
  const test::Result r = Run({"provision", "--help"});
  REQUIRE(r.status == kExitOk);
  CHECK(absl::StartsWith(r.out,
                         "usage: karpenter provision [-f FILE]... [--catalog "
                         "FILE] [-o text|json]\n"));
  std::string flat = r.out;
  std::replace(flat.begin(), flat.end(), '\n', ' ');
  CHECK(absl::StrContains(
      flat,
      "Without it the instance types are the ones the dump's nodes run, per "
      "NodePool and in the zones and capacity types those nodes are in, at "
      "unknown prices"));
  CHECK(absl::StrContains(r.out, "karpenter.v1.ProvisionReport"));
  const test::Result top = Run({"--help"});
  CHECK(absl::StrContains(top.out,
                          "  provision [-f FILE]... [--catalog FILE] "
                          "[-o text|json]\n"));
}

TEST_CASE("provision cli: bad usage and bad input exit 2", "[cli][provision]") {
  const std::string truncated =
      test::WriteTemp("provision_truncated.yaml",
                      "apiVersion: v1\nkind: Node\nmetadata: {name");
  const test::UsageCase cases[] = {
      {{"provision", "-f", kPending, "-o", "yaml"},
       "karpenter: provision: -o: \"yaml\" is not text or json\n"},
      {{"provision", "--output", "wide"},
       "karpenter: provision: --output: \"wide\" is not text or json\n"},
      {{"provision", "-o"}, "karpenter: provision: -o: missing value\n"},
      {{"provision", "--at", "now"},
       "karpenter: provision: unknown option \"--at\"\n"},
      {{"provision", "-f"}, "karpenter: provision: -f: missing FILE\n"},
      {{"provision", "-f", "/nonexistent/cluster.yaml"},
       "karpenter: provision: cannot open \"/nonexistent/cluster.yaml\""},
      {{"provision", "-f", kPending, "-f", truncated},
       "karpenter: provision: " + truncated},
  };
  for (const test::UsageCase& c : cases) test::CheckUsageError(c);
}

}  // namespace
}  // namespace karpenter::cli

namespace karpenter::cli {
namespace {

TEST_CASE("provision cli: --catalog prices the NodeClaims",
          "[cli][provision]") {
  const std::string catalog =
      std::string(KARPENTER_EXAMPLES_DIR) + "/catalogs/aws-us-west-2.yaml";
  const test::Result r = test::Run(
      {"provision", "-o", "json", "--catalog", catalog, "-f", kPending});
  INFO(r.err);
  REQUIRE(r.status == kExitOk);
  v1::ProvisionReport report;
  REQUIRE(google::protobuf::util::JsonStringToMessage(r.out, &report).ok());
  REQUIRE(report.node_claims_size() == 3);
  for (const v1::ProvisionNodeClaim& claim : report.node_claims()) {
    CAPTURE(claim.DebugString());
    // Priced now, and more than the one type the dump's nodes run.
    CHECK(claim.price() > 0);
    CHECK(claim.instance_types_size() > 1);
  }
  const test::Result bad = test::Run(
      {"provision", "--catalog", "/nonexistent/catalog.yaml", "-f", kPending});
  CHECK(bad.status == kExitUsage);
  CHECK_THAT(bad.err, Catch::Contains("/nonexistent/catalog.yaml"));
}

}  // namespace
}  // namespace karpenter::cli
