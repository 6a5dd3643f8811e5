// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#include "karpenter/disruption/scheduler.h"

#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "karpenter/drain/classify.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/testing/builders.h"

namespace karpenter::disruption {
namespace {

// A node of NodePool `pool` with the given allocatable and extra YAML under
// metadata.labels (`labels`) and spec (`spec`).
std::string NodeYaml(const std::string& name, const std::string& cpu,
                     const std::string& memory = "16Gi",
                     const std::string& spec = "",
                     const std::string& pool = "default",
                     const std::string& labels = "",
                     const std::string& extra_alloc = "",
                     const std::string& ready = "True") {
  return absl::StrCat(
      "---\napiVersion: v1\nkind: Node\nmetadata: {name: ", name,
      ", labels: {karpenter.sh/nodepool: ", pool,
      ", kubernetes.io/hostname: ", name, labels, "}}\nspec: {", spec,
      "}\nstatus: {allocatable: {cpu: \"", cpu, "\", memory: ", memory,
      ", ephemeral-storage: 100Gi, pods: \"110\"", extra_alloc,
      "}, conditions: [{type: Ready, status: \"", ready, "\"}]}\n");
}

// A running pod on `node` requesting cpu and memory, with extra YAML under
// spec and metadata.
std::string PodYaml(const std::string& name, const std::string& node,
                    const std::string& cpu, const std::string& memory = "1Gi",
                    const std::string& spec = "",
                    const std::string& meta = "") {
  return absl::StrCat(
      "---\napiVersion: v1\nkind: Pod\nmetadata: {name: ", name,
      ", namespace: default", meta, "}\nspec: {nodeName: \"", node,
      "\", containers: [{name: c, resources: {requests: {cpu: \"", cpu,
      "\", memory: ", memory, "}}}]", spec, "}\nstatus: {phase: Running}\n");
}

std::string PoolYaml(const std::string& name, const std::string& spec = "") {
  return absl::StrCat(
      "---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: ",
      name,
      ", annotations: {karpenter.sh/nodepool-hash: \"123\"}}\nspec: "
      "{template: {metadata: {labels: {team: a}}, spec: {nodeClassRef: "
      "{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}, "
      "expireAfter: 720h",
      spec, "}}}\n");
}

InstanceType Type(const std::string& name, const std::string& cpu,
                  const std::string& memory, double price,
                  std::vector<Offering> offerings = {},
                  std::map<std::string, std::string> labels = {}) {
  // Offered in zone-a on demand at `price` and as spot at half, unless
  // `offerings` are given.
  const bool priced = offerings.empty();
  return testing::MakeInstanceType(
      {.name = name,
       .cpu = cpu,
       .memory = memory,
       .pods = "110",
       .capacity = {{"ephemeral-storage", "100Gi"}},
       .zones = priced ? std::vector<std::string>{"zone-a"}
                       : std::vector<std::string>{},
       .on_demand_price = price,
       .spot_price = price / 2,
       .offerings = std::move(offerings),
       .labels = labels.empty()
                     ? testing::Labels{{"kubernetes.io/arch", "amd64"}}
                     : std::move(labels)});
}

InstanceTypeCatalog DefaultCatalog() {
  return {{"default",
           {Type("small", "2", "8Gi", 0.1), Type("medium", "4", "16Gi", 0.2),
            Type("large", "8", "32Gi", 0.4)}}};
}

snapshot::Snapshot Snap(const std::string& yaml) {
  snapshot::ObjectSet set;
  const absl::Status s = snapshot::LoadText(yaml, "test.yaml", set);
  INFO(s.ToString());
  REQUIRE(s.ok());
  absl::StatusOr<snapshot::Snapshot> snap =
      snapshot::Snapshot::Build(std::move(set));
  REQUIRE(snap.ok());
  return *std::move(snap);
}

// A candidate for node `name`: every non-DaemonSet, non-terminal pod is
// reschedulable (what the candidate builder computes).
Candidate Cand(const snapshot::Snapshot& snap, const std::string& name) {
  Candidate c;
  const std::optional<snapshot::NodeIndex> n = snap.FindNode(name);
  REQUIRE(n.has_value());
  c.node = *n;
  c.node_name = name;
  c.node_pool_name =
      snap.nodes()[*n].metadata().labels().at("karpenter.sh/nodepool");
  for (snapshot::PodIndex p : snap.PodsOnNode(*n)) {
    c.pods.push_back(p);
    const v1::Pod& pod = snap.DecodePod(p);
    if (!drain::IsOwnedByDaemonSet(pod) && !drain::IsTerminal(pod)) {
      c.reschedulable_pods.push_back(p);
    }
  }
  return c;
}

struct Run {
  SimulationResult result;
  std::string Summary() const {
    std::string out = result.all_pods_scheduled ? "ok" : "fail";
    if (result.unsupported) absl::StrAppend(&out, " unsupported");
    for (const Replacement& r : result.new_node_claims) {
      absl::StrAppend(&out, " new ", r.node_pool, "[",
                      absl::StrJoin(r.instance_types, ","), "]");
    }
    return out;
  }
};

Run Simulate(const std::string& yaml, const std::vector<std::string>& nodes,
             const InstanceTypeCatalog& catalog = DefaultCatalog(),
             SimulatorOptions options = {}) {
  const snapshot::Snapshot snap = Snap(yaml);
  absl::StatusOr<Scheduler> scheduler =
      Scheduler::Build(snap, catalog, options);
  INFO(scheduler.status().ToString());
  REQUIRE(scheduler.ok());
  std::vector<Candidate> candidates;
  for (const std::string& n : nodes) candidates.push_back(Cand(snap, n));
  Run run{scheduler->Simulate(candidates)};
  INFO(absl::StrJoin(run.result.unschedulable, "\n"));
  return run;
}

TEST_CASE("simulation: pods fit on an existing node or need a new NodeClaim",
          "[simulation]") {
  struct Row {
    std::string target_cpu;  // allocatable of the other node
    std::string want;
  };
  const std::vector<Row> rows = {
      {"4", "ok"},  // 3 cpu free after its 1-cpu pod
      {"3", "ok"},  // exactly 2 free: fits
      {"2.5", "ok new default[small,medium,large]"},
      {"1", "ok new default[small,medium,large]"},
  };
  for (const Row& row : rows) {
    CAPTURE(row.target_cpu);
    const std::string yaml = PoolYaml("default") + NodeYaml("cand", "4") +
                             NodeYaml("other", row.target_cpu) +
                             PodYaml("moving", "cand", "2") +
                             PodYaml("resident", "other", "1");
    const Run run = Simulate(yaml, {"cand"});
    CHECK(run.Summary() == row.want);
    CHECK(run.result.unschedulable.empty());
  }
}

TEST_CASE("simulation: every resource dimension and the pod count limit a fit",
          "[simulation]") {
  struct Row {
    std::string name;
    std::string node_extra;  // appended to the target node's allocatable
    std::string pod_spec;    // replaces the moving pod's containers
    bool fits_existing;
  };
  const std::string one = "1";
  const std::vector<Row> rows = {
      {"cpu fits", "", "cpu: \"1\", memory: 1Gi", true},
      {"cpu exactly fits", "", "cpu: \"3500m\", memory: 1Gi", true},
      {"cpu too big", "", "cpu: \"3600m\", memory: 1Gi", false},
      {"memory fits", "", "cpu: \"1\", memory: 6Gi", true},
      {"memory exactly fits", "", "cpu: \"1\", memory: 7Gi", true},
      {"memory too big", "", "cpu: \"1\", memory: 8Gi", false},
      {"ephemeral too big", "", "cpu: \"1\", ephemeral-storage: 101Gi", false},
      {"gpu missing on node", "", "cpu: \"1\", nvidia.com/gpu: \"1\"", false},
      {"gpu present", ", nvidia.com/gpu: \"1\"",
       "cpu: \"1\", nvidia.com/gpu: \"1\"", true},
  };
  for (const Row& row : rows) {
    CAPTURE(row.name);
    const std::string yaml =
        PoolYaml("default") + NodeYaml("cand", "8", "32Gi") +
        NodeYaml("other", "4", "8Gi", "", "default", "", row.node_extra) +
        PodYaml("resident", "other", "500m", "1Gi") +
        "---\napiVersion: v1\nkind: Pod\nmetadata: {name: moving, namespace: "
        "default}\nspec: {nodeName: cand, containers: [{name: c, resources: "
        "{requests: {" +
        row.pod_spec + "}}}]}\n";
    InstanceTypeCatalog catalog = DefaultCatalog();
    const Run run = Simulate(yaml, {"cand"}, catalog);
    CHECK((run.Summary() == "ok") == row.fits_existing);
  }
  // The pod count: a node with pods: 2 and two pods already is full.
  std::string yaml = PoolYaml("default") + NodeYaml("cand", "8") +
                     PodYaml("moving", "cand", "100m");
  yaml +=
      "---\napiVersion: v1\nkind: Node\nmetadata: {name: tiny, labels: "
      "{karpenter.sh/nodepool: default}}\nstatus: {allocatable: {cpu: "
      "\"8\", memory: 32Gi, pods: \"2\"}, conditions: [{type: Ready, "
      "status: \"True\"}]}\n";
  CHECK(Simulate(yaml + PodYaml("a", "tiny", "100m"), {"cand"}).Summary() ==
        "ok");
  CHECK(Simulate(
            yaml + PodYaml("a", "tiny", "100m") + PodYaml("b", "tiny", "100m"),
            {"cand"})
            .Summary() == "ok new default[small,medium,large]");
}

TEST_CASE("simulation: nodeSelector and required node affinity",
          "[simulation]") {
  const std::string term_prefix =
      ", affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuring"
      "Execution: {nodeSelectorTerms: [";
  struct Row {
    std::string name;
    std::string pod_spec;
    bool fits_existing;
  };
  const std::vector<Row> rows = {
      {"no constraint", "", true},
      {"selector match", ", nodeSelector: {disk: ssd}", true},
      {"selector mismatch", ", nodeSelector: {disk: hdd}", false},
      {"selector missing label", ", nodeSelector: {gpu: \"yes\"}", false},
      {"In match",
       term_prefix + "{matchExpressions: [{key: disk, operator: In, values: "
                     "[hdd, ssd]}]}]}}}",
       true},
      {"In mismatch",
       term_prefix +
           "{matchExpressions: [{key: disk, operator: In, values: [hdd]}]}]}}}",
       false},
      {"NotIn excludes",
       term_prefix + "{matchExpressions: [{key: disk, operator: NotIn, "
                     "values: [ssd]}]}]}}}",
       false},
      {"NotIn absent label",
       term_prefix + "{matchExpressions: [{key: gpu, operator: NotIn, "
                     "values: [a]}]}]}}}",
       true},
      {"Exists",
       term_prefix + "{matchExpressions: [{key: disk, operator: Exists}]}]}}}",
       true},
      {"DoesNotExist",
       term_prefix +
           "{matchExpressions: [{key: disk, operator: DoesNotExist}]}]}}}",
       false},
      {"Gt",
       term_prefix + "{matchExpressions: [{key: gen, operator: Gt, "
                     "values: [\"4\"]}]}]}}}",
       true},
      {"Lt",
       term_prefix + "{matchExpressions: [{key: gen, operator: Lt, "
                     "values: [\"4\"]}]}]}}}",
       false},
      {"terms are ORed",
       term_prefix + "{matchExpressions: [{key: disk, operator: In, values: "
                     "[hdd]}]}, {matchExpressions: [{key: disk, operator: "
                     "In, values: [ssd]}]}]}}}",
       true},
      {"expressions are ANDed",
       term_prefix + "{matchExpressions: [{key: disk, operator: In, values: "
                     "[ssd]}, {key: gen, operator: In, values: [\"4\"]}]}]}}}",
       false},
      {"matchFields name",
       term_prefix + "{matchFields: [{key: metadata.name, operator: In, "
                     "values: [other]}]}]}}}",
       true},
  };
  for (const Row& row : rows) {
    CAPTURE(row.name);
    const std::string yaml =
        PoolYaml("default") + NodeYaml("cand", "4") +
        NodeYaml("other", "4", "16Gi", "", "default",
                 ", disk: ssd, gen: \"5\"") +
        PodYaml("moving", "cand", "1", "1Gi", row.pod_spec);
    const Run run = Simulate(yaml, {"cand"});
    CHECK((run.Summary() == "ok") == row.fits_existing);
  }
}

TEST_CASE("simulation: taints need tolerations, PreferNoSchedule does not",
          "[simulation]") {
  struct Row {
    std::string taint;
    std::string tolerations;
    bool fits_existing;
  };
  const std::vector<Row> rows = {
      {"{key: dedicated, value: db, effect: NoSchedule}", "", false},
      {"{key: dedicated, value: db, effect: NoExecute}", "", false},
      {"{key: dedicated, value: db, effect: PreferNoSchedule}", "", true},
      {"{key: dedicated, value: db, effect: NoSchedule}",
       ", tolerations: [{key: dedicated, operator: Equal, value: db}]", true},
      {"{key: dedicated, value: db, effect: NoSchedule}",
       ", tolerations: [{key: dedicated, operator: Equal, value: web}]", false},
      {"{key: dedicated, value: db, effect: NoSchedule}",
       ", tolerations: [{operator: Exists}]", true},
  };
  for (const Row& row : rows) {
    CAPTURE(row.taint, row.tolerations);
    const std::string yaml =
        PoolYaml("default") + NodeYaml("cand", "4") +
        NodeYaml("other", "4", "16Gi", "taints: [" + row.taint + "]") +
        PodYaml("moving", "cand", "1", "1Gi", row.tolerations);
    CHECK(Simulate(yaml, {"cand"}).result.new_node_claims.empty() ==
          row.fits_existing);
  }
  // Template taints must be tolerated for the new NodeClaim.
  const std::string yaml =
      PoolYaml("default",
               ", taints: [{key: pool, value: x, effect: NoSchedule}]") +
      NodeYaml("cand", "4") + PodYaml("moving", "cand", "1");
  const Run run = Simulate(yaml, {"cand"});
  CHECK(run.Summary() == "fail");
  REQUIRE(run.result.unschedulable.size() == 1);
  CHECK(run.result.unschedulable[0] ==
        "default/moving: fits no remaining node (0/0 nodes are available.) and "
        "does not tolerate taint "
        "pool=x:NoSchedule of NodePool default");
}

TEST_CASE(
    "simulation: candidates, deleting, cordoned and unready nodes are "
    "not targets",
    "[simulation]") {
  struct Row {
    std::string name;
    std::string spec;
    std::string meta_extra;  // after the labels of the target node
    std::string ready;
    bool fits_existing;
  };
  const std::vector<Row> rows = {
      {"plain", "", "", "True", true},
      {"unschedulable", "unschedulable: true", "", "True", false},
      {"disrupted taint",
       "taints: [{key: karpenter.sh/disrupted, effect: NoSchedule}]", "",
       "True", false},
      {"not ready", "", "", "False", false},
  };
  for (const Row& row : rows) {
    CAPTURE(row.name);
    const std::string yaml =
        PoolYaml("default") + NodeYaml("cand", "4") +
        NodeYaml("other", "4", "16Gi", row.spec, "default", "", "", row.ready) +
        PodYaml("moving", "cand", "1", "1Gi",
                ", tolerations: [{key: karpenter.sh/disrupted, operator: "
                "Exists}]");
    CHECK(Simulate(yaml, {"cand"}).result.new_node_claims.empty() ==
          row.fits_existing);
  }
  // Another candidate is not a target either.
  const std::string yaml = PoolYaml("default") + NodeYaml("a", "4") +
                           NodeYaml("b", "4") + PodYaml("pa", "a", "1") +
                           PodYaml("pb", "b", "1");
  CHECK(Simulate(yaml, {"a"}).Summary() == "ok");
  CHECK(Simulate(yaml, {"a", "b"}).Summary() ==
        "ok new default[small,medium,large]");
}

TEST_CASE("simulation: pods of deleting nodes must move too", "[simulation]") {
  const std::string base =
      PoolYaml("default") + NodeYaml("cand", "4") + NodeYaml("other", "4") +
      PodYaml("moving", "cand", "2") +
      "---\napiVersion: v1\nkind: Node\nmetadata: {name: going, "
      "deletionTimestamp: \"2024-01-01T00:00:00Z\", labels: "
      "{karpenter.sh/nodepool: default}}\nstatus: {allocatable: {cpu: \"4\", "
      "memory: 16Gi, pods: \"110\"}, conditions: [{type: Ready, status: "
      "\"True\"}]}\n";
  // "other" has 4 cpu: the 2-cpu pod of the candidate and 1 cpu from the
  // deleting node fit; a 3-cpu one does not, so a new NodeClaim is needed.
  CHECK(Simulate(base + PodYaml("orphan", "going", "1"), {"cand"}).Summary() ==
        "ok");
  const Run run = Simulate(base + PodYaml("orphan", "going", "3"), {"cand"});
  CHECK(run.Summary() == "ok new default[small,medium,large]");
  // With no room anywhere the orphan is reported.
  const Run none = Simulate(base + PodYaml("orphan", "going", "30"), {"cand"});
  CHECK(none.Summary() == "fail");
  REQUIRE(none.result.unschedulable.size() == 1);
  CHECK(none.result.unschedulable[0] ==
        "default/orphan: fits no remaining node (0/2 nodes are available: 1 "
        "Insufficient cpu, 1 node(s) were marked for deletion.) and no "
        "instance type of NodePool default satisfied resources {cpu: 30, "
        "memory: 1Gi, pods: 1}");
}

TEST_CASE("simulation: only currently reschedulable pods need room",
          "[simulation]") {
  const std::string base =
      PoolYaml("default") + NodeYaml("cand", "8") + NodeYaml("other", "4");
  // A 6-cpu pod fits nowhere existing; exempt it in several ways.
  struct Row {
    std::string name;
    std::string yaml;
    std::string want;
  };
  const std::vector<Row> rows = {
      {"plain", PodYaml("big", "cand", "6"), "ok new default[large]"},
      {"do-not-disrupt",
       PodYaml("big", "cand", "6", "1Gi", "",
               ", annotations: {karpenter.sh/do-not-disrupt: \"true\"}"),
       "ok"},
      {"fully blocking PDB",
       PodYaml("big", "cand", "6", "1Gi", "", ", labels: {app: big}") +
           "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: "
           "{name: p, namespace: default}\nspec: {maxUnavailable: 0, "
           "selector: {matchLabels: {app: big}}}\n",
       "ok"},
      {"DaemonSet",
       PodYaml("big", "cand", "6", "1Gi", "",
               ", ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, "
               "name: ds}]"),
       "ok"},
  };
  for (const Row& row : rows) {
    CAPTURE(row.name);
    CHECK(Simulate(base + row.yaml, {"cand"}).Summary() == row.want);
  }
}

TEST_CASE("simulation: the cheapest fitting type wins, ties by name",
          "[simulation]") {
  const std::string yaml = PoolYaml("default") + NodeYaml("cand", "4") +
                           PodYaml("moving", "cand", "3");
  struct Row {
    std::string name;
    std::vector<InstanceType> types;
    std::string want;
    double price;
  };
  const std::vector<Row> rows = {
      {"price order",
       {Type("c", "8", "32Gi", 0.4), Type("b", "4", "16Gi", 0.3),
        Type("a", "2", "8Gi", 0.1)},
       "ok new default[b,c]",
       0.15},
      {"ties by name",
       {Type("z", "4", "16Gi", 0.3), Type("y", "4", "16Gi", 0.3)},
       "ok new default[y,z]",
       0.15},
      {"unavailable offering ignored",
       {Type("cheap", "4", "16Gi", 0.1, {{"zone-a", "on-demand", 0.1, false}}),
        Type("dear", "4", "16Gi", 0.5)},
       "ok new default[dear]",
       0.25},
      {"nothing fits", {Type("a", "2", "8Gi", 0.1)}, "fail", 0},
  };
  for (const Row& row : rows) {
    CAPTURE(row.name);
    const Run run = Simulate(yaml, {"cand"}, {{"default", row.types}});
    CHECK(run.Summary() == row.want);
    if (!run.result.new_node_claims.empty()) {
      CHECK(run.result.new_node_claims[0].price == Approx(row.price));
    } else {
      REQUIRE(run.result.unschedulable.size() == 1);
      CHECK(run.result.unschedulable[0] ==
            "default/moving: fits no remaining node (0/0 nodes are available.) "
            "and no instance type of NodePool default satisfied resources "
            "{cpu: 3, memory: 1Gi, pods: 1}");
    }
  }
}

TEST_CASE("simulation: DaemonSet overhead changes the chosen type",
          "[simulation]") {
  const std::string ds_owner =
      ", ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: "
      "logs}]";
  const std::string base = PoolYaml("default") + NodeYaml("cand", "8") +
                           PodYaml("moving", "cand", "1500m");
  CHECK(Simulate(base, {"cand"}).Summary() ==
        "ok new default[small,medium,large]");
  // Two pods of one DaemonSet count once, at their larger request.
  const std::string with_ds =
      base + PodYaml("logs-1", "cand", "500m", "1Gi", "", ds_owner) +
      NodeYaml("full", "1") +
      PodYaml("logs-2", "full", "600m", "1Gi", "", ds_owner);
  const Run run = Simulate(with_ds, {"cand"});
  CHECK(run.Summary() == "ok new default[medium,large]");
  REQUIRE(run.result.new_node_claims.size() == 1);
  CHECK(
      run.result.new_node_claims[0].node_claim.spec().resources().requests().at(
          "cpu") == "2100m");
}

TEST_CASE("simulation: requirements restrict instance types and offerings",
          "[simulation]") {
  const InstanceTypeCatalog catalog = {
      {"default",
       {Type("arm", "4", "16Gi", 0.1, {}, {{"kubernetes.io/arch", "arm64"}}),
        Type("x86", "4", "16Gi", 0.2),
        Type("spotonly", "4", "16Gi", 0.05, {{"zone-a", "spot", 0.05, true}}),
        Type("zoneb", "4", "16Gi", 0.01, {{"zone-b", "on-demand", 0.01, true}},
             {{"kubernetes.io/arch", "amd64"}})}}};
  struct Row {
    std::string name;
    std::string pool_spec;
    std::string pod_spec;
    std::string want;
  };
  const std::string arch_req =
      ", requirements: [{key: kubernetes.io/arch, operator: In, values: "
      "[amd64]}]";
  const std::vector<Row> rows = {
      {"unrestricted", "", "", "ok new default[zoneb,arm,spotonly,x86]"},
      {"template arch", arch_req, "", "ok new default[zoneb,spotonly,x86]"},
      {"template on-demand",
       ", requirements: [{key: karpenter.sh/capacity-type, operator: In, "
       "values: [on-demand]}]",
       "", "ok new default[zoneb,arm,x86]"},
      {"template zone",
       ", requirements: [{key: topology.kubernetes.io/zone, operator: In, "
       "values: [zone-a]}]",
       "", "ok new default[arm,spotonly,x86]"},
      {"pod arch", "", ", nodeSelector: {kubernetes.io/arch: arm64}",
       "ok new default[arm]"},
      {"pod vs template arch", arch_req,
       ", nodeSelector: {kubernetes.io/arch: arm64}", "fail"},
      {"pod needs undefined custom label", "", ", nodeSelector: {disk: ssd}",
       "fail"},
      {"pod label from template", "", ", nodeSelector: {team: a}",
       "ok new default[zoneb,arm,spotonly,x86]"},
  };
  for (const Row& row : rows) {
    CAPTURE(row.name);
    const std::string yaml =
        PoolYaml("default", row.pool_spec) + NodeYaml("cand", "4") +
        PodYaml("moving", "cand", "2", "1Gi", row.pod_spec);
    CHECK(Simulate(yaml, {"cand"}, catalog).Summary() == row.want);
  }
}

TEST_CASE("simulation: pod topology constraints are simulated, not guessed",
          "[simulation]") {
  struct Row {
    std::string spec;
    std::string unsupported;  // empty: supported
    std::string want;         // Run::Summary()
    // When not scheduled and supported: the pod's whole reason.
    std::string reason = "";
  };
  const std::vector<Row> rows = {
      // Nobody else matches: nothing blocks "other".
      {", affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuring"
       "Execution: [{topologyKey: kubernetes.io/hostname, labelSelector: "
       "{}}]}}",
       "", "ok"},
      // A nil selector selects no pod, not even the pod itself: no first-pod
      // exception, on "other" or on a new NodeClaim (Karpenter's
      // nextDomainAffinity finds no domain with a matching pod).
      {", affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuring"
       "Execution: [{topologyKey: kubernetes.io/hostname}]}}",
       "", "fail",
       "default/moving: fits no remaining node (0/1 nodes are available: 1 "
       "node(s) didn't match pod affinity rules.) and a new NodeClaim of "
       "NodePool default cannot keep its topology: pod affinity on "
       "kubernetes.io/hostname: no pod it selects is on this NodeClaim"},
      // The first pod of a self-affine group may go anywhere with the key.
      {", affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuring"
       "Execution: [{topologyKey: kubernetes.io/hostname, labelSelector: "
       "{}}]}}",
       "", "ok"},
      // "other" has no "zone" label: not a domain, and rejected. Neither
      // the NodePool nor its instance types define "zone" either: a new
      // NodeClaim has no domain to be narrowed to.
      {", topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, "
       "whenUnsatisfiable: DoNotSchedule}]",
       "", "fail",
       "default/moving: fits no remaining node (0/1 nodes are available: 1 "
       "node(s) didn't match pod topology spread constraints (missing "
       "required label).) and a new NodeClaim of NodePool default cannot "
       "keep its topology: no domain of zone keeps the topology spread "
       "within maxSkew 1 (counts )"},
      // "other" has no zone label either, but the instance types are
      // offered in zone-a: a new NodeClaim narrowed to zone-a takes it.
      {", topologySpreadConstraints: [{maxSkew: 1, topologyKey: "
       "topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule}]",
       "", "ok new default[small,medium,large]"},
      {", topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, "
       "whenUnsatisfiable: ScheduleAnyway}]",
       "", "ok"},
      {", affinity: {podAntiAffinity: {preferredDuringSchedulingIgnored"
       "DuringExecution: [{weight: 1, podAffinityTerm: {topologyKey: "
       "kubernetes.io/hostname}}]}}",
       "", "ok"},
      // Namespace objects are not read.
      {", affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuring"
       "Execution: [{topologyKey: kubernetes.io/hostname, labelSelector: {}, "
       "namespaceSelector: {matchLabels: {team: a}}}]}}",
       "default/moving: spec.affinity.podAntiAffinity."
       "requiredDuringSchedulingIgnoredDuringExecution[0].namespaceSelector: "
       "selects namespaces by label \"team\"; Namespace objects are not "
       "read, only kubernetes.io/metadata.name can be evaluated",
       "fail unsupported"},
  };
  for (const Row& row : rows) {
    CAPTURE(row.spec);
    const std::string yaml = PoolYaml("default") + NodeYaml("cand", "4") +
                             NodeYaml("other", "4") +
                             PodYaml("moving", "cand", "1", "1Gi", row.spec);
    const Run run = Simulate(yaml, {"cand"});
    CHECK(run.result.unsupported.value_or("") == row.unsupported);
    CHECK(run.Summary() == row.want);
    if (row.reason.empty()) {
      CHECK(run.result.unschedulable.empty());
    } else {
      CHECK(run.result.unschedulable == std::vector<std::string>{row.reason});
    }
  }
  // The new NodeClaim of the zone-spread row is narrowed to zone-a.
  const Run zonal = Simulate(
      PoolYaml("default") + NodeYaml("cand", "4") + NodeYaml("other", "4") +
          PodYaml("moving", "cand", "1", "1Gi",
                  ", topologySpreadConstraints: [{maxSkew: 1, topologyKey: "
                  "topology.kubernetes.io/zone, whenUnsatisfiable: "
                  "DoNotSchedule}]"),
      {"cand"});
  REQUIRE(zonal.result.new_node_claims.size() == 1);
  std::vector<std::string> reqs;
  for (const auto& req :
       zonal.result.new_node_claims[0].node_claim.spec().requirements()) {
    reqs.push_back(absl::StrCat(req.key(), " ", req.operator_(), " ",
                                absl::StrJoin(req.values(), ",")));
  }
  CHECK(reqs == std::vector<std::string>{
                    "karpenter.sh/nodepool In default", "team In a",
                    "topology.kubernetes.io/zone In zone-a",
                    "node.kubernetes.io/instance-type In small,medium,large"});
}

TEST_CASE("simulation: pod requests take the init-container maximum",
          "[simulation]") {
  struct Row {
    std::string spec;
    std::vector<std::pair<std::string, int64_t>> want;
  };
  const std::vector<Row> rows = {
      {"containers: [{name: a, resources: {requests: {cpu: 100m}}}, {name: b, "
       "resources: {requests: {cpu: 200m, memory: 1Ki}}}]",
       {{"cpu", 300}, {"memory", 1024000}, {"pods", 1000}}},
      {"containers: [{name: a, resources: {requests: {cpu: 100m}}}], "
       "initContainers: [{name: i, resources: {requests: {cpu: \"1\"}}}, "
       "{name: j, resources: {requests: {cpu: 500m, memory: \"1\"}}}]",
       {{"cpu", 1000}, {"memory", 1000}, {"pods", 1000}}},
      {"containers: [{name: a, resources: {requests: {cpu: 100m}}}], "
       "overhead: {cpu: 50m}",
       {{"cpu", 150}, {"pods", 1000}}},
      {"containers: [{name: a, resources: {limits: {cpu: \"2\"}, requests: "
       "{memory: \"1\"}}}]",
       {{"cpu", 2000}, {"memory", 1000}, {"pods", 1000}}},
  };
  for (const Row& row : rows) {
    CAPTURE(row.spec);
    snapshot::ObjectSet set;
    REQUIRE(snapshot::LoadText("kind: Pod\nspec: {" + row.spec + "}", "t", set)
                .ok());
    const auto got = PodRequests(set.pods[0]);
    REQUIRE(got.ok());
    CHECK(*got == row.want);
  }
}

// A running pod on `node` whose one container "c" requests `cpu` in its
// spec, with `status` (flow-style YAML members) after the phase.
std::string ResizedPodYaml(const std::string& name, const std::string& node,
                           const std::string& cpu, const std::string& status) {
  return absl::StrCat(
      "---\napiVersion: v1\nkind: Pod\nmetadata: {name: ", name,
      ", namespace: default}\nspec: {nodeName: \"", node,
      "\", containers: [{name: c, resources: {requests: {cpu: \"", cpu,
      "\", memory: 1Gi}}}]}\nstatus: {phase: Running", status, "}\n");
}

// Container "c"'s status after an in-place resize to `cpu`.
std::string ResizedTo(const std::string& cpu) {
  return absl::StrCat(
      ", containerStatuses: [{name: c, resources: {requests: "
      "{cpu: \"",
      cpu, "\"}}, allocatedResources: {cpu: \"", cpu, "\"}}]");
}

TEST_CASE("simulation: in-place resized pods request what their status says",
          "[simulation][resize]") {
  struct Row {
    std::string name;
    std::string residents;  // pods on "other" (4 cpu)
    std::string moving_status;
    std::string want;
  };
  const std::string infeasible =
      ", conditions: [{type: PodResizePending, status: \"True\", reason: "
      "Infeasible}]";
  const std::vector<Row> rows = {
      {"no resize: 3 cpu free", ResizedPodYaml("r", "other", "1", ""), "",
       "ok"},
      {"resident resized up to 3: 1 cpu free",
       ResizedPodYaml("r", "other", "1", ResizedTo("3")), "",
       "ok new default[small,medium,large]"},
      {"resident resized down to 500m: the spec still counts",
       ResizedPodYaml("r", "other", "2500m", ResizedTo("500m")), "",
       "ok new default[small,medium,large]"},
      {"resident allocated 3 without status resources: the spec",
       ResizedPodYaml("r", "other", "1",
                      ", containerStatuses: [{name: c, allocatedResources: "
                      "{cpu: \"3\"}}]"),
       "", "ok"},
      {"resident with an Infeasible resize: status only",
       ResizedPodYaml("r", "other", "3", infeasible + ResizedTo("1")), "",
       "ok"},
      // Two residents equal but for their status: each counts its own.
      {"replicas resized apart",
       ResizedPodYaml("r1", "other", "1", "") +
           ResizedPodYaml("r2", "other", "1", ResizedTo("2")),
       "", "ok new default[small,medium,large]"},
      {"replicas not resized",
       ResizedPodYaml("r1", "other", "1", "") +
           ResizedPodYaml("r2", "other", "1", ""),
       "", "ok"},
      {"the moving pod resized up to 3 no longer fits in 2.5 free",
       ResizedPodYaml("r", "other", "1500m", ""), ResizedTo("3"),
       "ok new default[medium,large]"},
      {"the moving pod resized up to 3 cpu fits on an empty node", "",
       ResizedTo("3"), "ok"},
  };
  for (const Row& row : rows) {
    CAPTURE(row.name);
    const std::string yaml =
        PoolYaml("default") + NodeYaml("cand", "8") + NodeYaml("other", "4") +
        row.residents +
        ResizedPodYaml("moving", "cand", "2", row.moving_status);
    const Run run = Simulate(yaml, {"cand"});
    CHECK(run.Summary() == row.want);
  }
}

TEST_CASE("simulation: bad quantities fail Build naming object and field",
          "[simulation]") {
  struct Row {
    std::string yaml;
    InstanceTypeCatalog catalog;
    std::string message_prefix;
  };
  const std::vector<Row> rows = {
      {PoolYaml("default") + NodeYaml("n", "4") + PodYaml("p", "n", "abc"),
       {},
       "pods/default/p: spec.containers[0].resources.requests.cpu: invalid "
       "quantity \"abc\""},
      {PoolYaml("default") + NodeYaml("n", "4") + PodYaml("p", "n", "-1"),
       {},
       "pods/default/p: spec.containers[0].resources.requests.cpu: quantity "
       "\"-1\" must not be negative"},
      {PoolYaml("default") + NodeYaml("n", "4x"),
       {},
       "nodes/n: status.allocatable.cpu: invalid quantity \"4x\""},
      {PoolYaml("default") + NodeYaml("n", "4") +
           ResizedPodYaml("p", "n", "1",
                          ", containerStatuses: [{name: c, resources: {}, "
                          "allocatedResources: {cpu: 2x}}]"),
       {},
       "pods/default/p: status.containerStatuses[0].allocatedResources.cpu: "
       "invalid quantity \"2x\""},
      {PoolYaml("default") + NodeYaml("n", "4"),
       {{"default", {Type("bad", "lots", "1Gi", 1)}}},
       "instance type \"bad\" of NodePool \"default\": capacity.cpu: invalid "
       "quantity \"lots\""},
      {PoolYaml("default",
                ", requirements: [{key: a, operator: Bogus, values: [x]}]") +
           NodeYaml("n", "4"),
       {},
       "nodepools/default: spec.template.spec.requirements[0].operator"},
  };
  for (const Row& row : rows) {
    CAPTURE(row.yaml);
    const snapshot::Snapshot snap = Snap(row.yaml);
    const absl::StatusOr<Scheduler> s = Scheduler::Build(snap, row.catalog);
    REQUIRE_FALSE(s.ok());
    CHECK(s.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(std::string(s.status().message()).rfind(row.message_prefix, 0) == 0);
  }
}

TEST_CASE("simulation: the replacement NodeClaim carries the template",
          "[simulation]") {
  const std::string yaml =
      PoolYaml(
          "default",
          ", requirements: [{key: karpenter.sh/capacity-type, operator: "
          "In, values: [on-demand]}, {key: node.kubernetes.io/instance-type, "
          "operator: In, values: [small, medium, large]}], "
          "terminationGracePeriod: 1h, startupTaints: [{key: s, effect: "
          "NoSchedule}]") +
      NodeYaml("cand", "4") + NodeYaml("cand2", "4") +
      PodYaml("moving", "cand", "3", "1Gi",
              ", nodeSelector: {topology.kubernetes.io/zone: zone-a}");
  const Run run = Simulate(yaml, {"cand", "cand2"});
  REQUIRE(run.result.new_node_claims.size() == 1);
  const Replacement& r = run.result.new_node_claims[0];
  CHECK(r.instance_types == std::vector<std::string>{"medium", "large"});
  CHECK(r.price == Approx(0.2));
  const v1::NodeClaim& nc = r.node_claim;
  CHECK(nc.metadata().name().rfind("default-replacement-", 0) == 0);
  CHECK(nc.metadata().name().size() ==
        std::string("default-replacement-").size() + 16);
  CHECK(nc.metadata().labels().at("karpenter.sh/nodepool") == "default");
  CHECK(nc.metadata().labels().at("team") == "a");
  CHECK(nc.metadata().annotations().at("karpenter.sh/nodepool-hash") == "123");
  CHECK(nc.spec().node_class_ref().name() == "default");
  CHECK(nc.spec().expire_after() == "720h");
  CHECK(nc.spec().termination_grace_period() == "1h");
  CHECK(nc.spec().startup_taints_size() == 1);
  std::vector<std::string> reqs;
  for (const auto& req : nc.spec().requirements()) {
    reqs.push_back(absl::StrCat(req.key(), " ", req.operator_(), " ",
                                absl::StrJoin(req.values(), ",")));
  }
  // Every requirement of the claim, sorted by key (the template's, its
  // labels as In, the NodePool label, the pod's), then the instance types.
  CHECK(reqs == std::vector<std::string>{
                    "karpenter.sh/capacity-type In on-demand",
                    "karpenter.sh/nodepool In default", "team In a",
                    "topology.kubernetes.io/zone In zone-a",
                    "node.kubernetes.io/instance-type In medium,large"});
  // The name depends on the candidates, not on their order.
  const Run again = Simulate(yaml, {"cand2", "cand"});
  CHECK(again.result.new_node_claims[0].node_claim.metadata().name() ==
        nc.metadata().name());
  CHECK(Simulate(yaml, {"cand"})
            .result.new_node_claims[0]
            .node_claim.metadata()
            .name() != nc.metadata().name());
}

TEST_CASE("simulation: the replacement NodeClaim keeps the template's bounds",
          "[simulation]") {
  // Karpenter writes a bounded requirement back with its bound
  // (requirement.go NodeSelectorRequirement: Gt N is kept as Gte N+1, Lt N
  // as Lte N-1), not as a bare Exists that admits every generation.
  const InstanceTypeCatalog catalog = {
      {"default",
       {Type("small", "2", "8Gi", 0.1, {},
             {{"kubernetes.io/arch", "amd64"}, {"gen", "5"}}),
        Type("old", "2", "8Gi", 0.05, {},
             {{"kubernetes.io/arch", "amd64"}, {"gen", "2"}})}}};
  const std::string yaml =
      PoolYaml("default",
               ", requirements: [{key: gen, operator: Gt, values: [\"2\"]}, "
               "{key: size, operator: Lt, values: [\"8\"]}]") +
      NodeYaml("cand", "4") + PodYaml("moving", "cand", "1");
  const Run run = Simulate(yaml, {"cand"}, catalog);
  CHECK(run.Summary() == "ok new default[small]");
  REQUIRE(run.result.new_node_claims.size() == 1);
  std::vector<std::string> reqs;
  for (const auto& req :
       run.result.new_node_claims[0].node_claim.spec().requirements()) {
    reqs.push_back(absl::StrCat(req.key(), " ", req.operator_(), " ",
                                absl::StrJoin(req.values(), ",")));
  }
  CHECK(reqs == std::vector<std::string>{
                    "gen Gte 3", "karpenter.sh/nodepool In default",
                    "size Lte 7", "team In a",
                    "node.kubernetes.io/instance-type In small"});
}

TEST_CASE("simulation: pods that one new NodeClaim cannot hold open another",
          "[simulation]") {
  // Three 3-cpu pods: the largest type (8 cpu) holds two; the third opens
  // a second NodeClaim of the same NodePool, as Karpenter's provisioner
  // does (consolidation, not the simulation, refuses more than one).
  const std::string yaml = PoolYaml("default") + NodeYaml("cand", "16") +
                           PodYaml("p1", "cand", "3") +
                           PodYaml("p2", "cand", "3") +
                           PodYaml("p3", "cand", "3");
  const Run run = Simulate(yaml, {"cand"});
  CHECK(run.Summary() == "ok new default[large] new default[medium,large]");
  CHECK(run.result.unschedulable.empty());
  REQUIRE(run.result.new_node_claims.size() == 2);
  const v1::NodeClaim& first = run.result.new_node_claims[0].node_claim;
  const v1::NodeClaim& second = run.result.new_node_claims[1].node_claim;
  // p1 and p2 on the first, p3 on the second.
  CHECK(first.spec().resources().requests().at("cpu") == "6");
  CHECK(second.spec().resources().requests().at("cpu") == "3");
  // The cheapest offerings: spot, at half the on-demand price.
  CHECK(run.result.new_node_claims[0].price == Approx(0.2));
  CHECK(run.result.new_node_claims[1].price == Approx(0.1));
  // Two names, both deterministic.
  CHECK(first.metadata().name() != second.metadata().name());
  const Run again = Simulate(yaml, {"cand"});
  REQUIRE(again.result.new_node_claims.size() == 2);
  CHECK(again.result.new_node_claims[1].node_claim.metadata().name() ==
        second.metadata().name());
}

TEST_CASE("simulation: first-fit-decreasing placement is deterministic",
          "[simulation]") {
  // Two targets: tight (1.5 cpu free) and roomy (3 cpu free). Pods 2, 1.5
  // and 1 cpu: the 2 goes to roomy (tight too small), 1.5 to tight (least
  // free first), 1 to roomy.
  const std::string yaml =
      PoolYaml("default") + NodeYaml("cand", "8") + NodeYaml("tight", "2") +
      NodeYaml("roomy", "4") + PodYaml("t", "tight", "500m") +
      PodYaml("r", "roomy", "1") + PodYaml("a", "cand", "1") +
      PodYaml("b", "cand", "1500m") + PodYaml("c", "cand", "2");
  const snapshot::Snapshot snap = Snap(yaml);
  absl::StatusOr<Scheduler> s = Scheduler::Build(snap, DefaultCatalog());
  REQUIRE(s.ok());
  const std::vector<Candidate> cands = {Cand(snap, "cand")};
  const SimulationResult first = s->Simulate(cands);
  CHECK(first.all_pods_scheduled);
  CHECK(first.new_node_claims.empty());
  for (int i = 0; i < 3; ++i) {
    const SimulationResult again = s->Simulate(cands);
    CHECK(again.all_pods_scheduled == first.all_pods_scheduled);
    CHECK(again.unschedulable == first.unschedulable);
  }
  // With a 2.5-cpu pod too: 2.5 takes roomy (3 free), 2 fits nowhere, 1.5
  // takes tight, and 1 fits nowhere: 2 + 1 cpu on one new NodeClaim.
  const Run run = Simulate(yaml + PodYaml("d", "cand", "2500m"), {"cand"});
  CHECK(run.Summary() == "ok new default[medium,large]");
}

TEST_CASE("simulation: pending pods take existing room when asked",
          "[simulation]") {
  const std::string yaml =
      PoolYaml("default") + NodeYaml("cand", "4") + NodeYaml("other", "4") +
      PodYaml("moving", "cand", "2") + PodYaml("pending", "", "3");
  SimulatorOptions with;
  with.include_pending_pods = true;
  CHECK(Simulate(yaml, {"cand"}).Summary() == "ok");
  CHECK(Simulate(yaml, {"cand"}, DefaultCatalog(), with).Summary() ==
        "ok new default[small,medium,large]");
}

// `pod_yaml` with status.startTime 2024-01-01T00:00:00Z.
std::string StartedAtMidnight(const std::string& pod_yaml) {
  return absl::StrReplaceAll(pod_yaml, {{"status: {phase: Running}",
                                         "status: {phase: Running, startTime: "
                                         "\"2024-01-01T00:00:00Z\"}"}});
}

TEST_CASE(
    "simulation: a Scheduler over SnapshotFacts answers as one over "
    "the snapshot",
    "[simulation]") {
  // Not copied by a Scheduler over facts: it must outlive the Scheduler.
  const InstanceTypeCatalog catalog = DefaultCatalog();
  const std::string base =
      PoolYaml("default") + NodeYaml("cand", "8") + NodeYaml("other", "4");
  const std::string dnd_for_1h =
      ", annotations: {karpenter.sh/do-not-disrupt: "
      "\"1h\"}";
  const std::vector<std::string> rows = {
      PodYaml("big", "cand", "6"),
      PodYaml("small", "cand", "1") + PodYaml("pending", "", "3"),
      // Started at 00:00: do-not-disrupt until 01:00.
      StartedAtMidnight(PodYaml("big", "cand", "6", "1Gi", "", dnd_for_1h)),
      PodYaml("big", "cand", "6", "1Gi", "", ", labels: {app: big}") +
          "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: "
          "{name: p, namespace: default}\nspec: {maxUnavailable: 0, "
          "selector: {matchLabels: {app: big}}}\n",
  };
  const absl::Time midnight = absl::FromUnixSeconds(1704067200);
  for (const std::string& yaml : rows) {
    for (bool pending : {false, true}) {
      for (absl::Duration at : {absl::Minutes(30), absl::Hours(2)}) {
        CAPTURE(yaml, pending, at);
        SimulatorOptions options;
        options.include_pending_pods = pending;
        options.now = midnight + at;
        const snapshot::Snapshot snap = Snap(base + yaml);
        const SnapshotFacts facts = SnapshotFacts::Build(snap);
        REQUIRE(facts.simulation_status().ok());
        absl::StatusOr<Scheduler> direct =
            Scheduler::Build(snap, DefaultCatalog(), options);
        absl::StatusOr<Scheduler> over_facts =
            Scheduler::Build(facts, catalog, options);
        REQUIRE(direct.ok());
        REQUIRE(over_facts.ok());
        const std::vector<Candidate> cand = {Cand(snap, "cand")};
        const Run a{direct->Simulate(cand)};
        const Run b{over_facts->Simulate(cand)};
        CHECK(a.Summary() == b.Summary());
        CHECK(a.result.unschedulable == b.result.unschedulable);
      }
    }
  }
  // The do-not-disrupt row: held at 00:30, movable at 02:00, from the same
  // facts.
  const snapshot::Snapshot snap =
      Snap(base + StartedAtMidnight(
                      PodYaml("big", "cand", "6", "1Gi", "", dnd_for_1h)));
  const SnapshotFacts facts = SnapshotFacts::Build(snap);
  std::vector<std::string> summaries;
  for (absl::Duration at : {absl::Minutes(30), absl::Hours(2)}) {
    SimulatorOptions options;
    options.now = midnight + at;
    absl::StatusOr<Scheduler> s = Scheduler::Build(facts, catalog, options);
    REQUIRE(s.ok());
    summaries.push_back(Run{s->Simulate({Cand(snap, "cand")})}.Summary());
  }
  CHECK(summaries == std::vector<std::string>{"ok", "ok new default[large]"});
}

TEST_CASE(
    "simulation: SnapshotFacts keep a bad quantity for the passes that "
    "simulate",
    "[simulation]") {
  const InstanceTypeCatalog catalog = DefaultCatalog();
  const snapshot::Snapshot bad =
      Snap(PoolYaml("default") + NodeYaml("cand", "8") +
           PodYaml("broken", "cand", "lots"));
  const SnapshotFacts facts = SnapshotFacts::Build(bad);
  CHECK(facts.simulation_status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(facts.simulation_status().message()),
             Catch::Contains("pods/default/broken") &&
                 Catch::Contains("spec.containers[0].resources.requests.cpu"));
  const absl::StatusOr<Scheduler> s = Scheduler::Build(facts, catalog, {});
  CHECK(s.status() == facts.simulation_status());
  CHECK(Scheduler::Build(bad, DefaultCatalog(), {}).status() ==
        facts.simulation_status());

  // A bad pending pod only matters with include_pending_pods.
  const snapshot::Snapshot pending =
      Snap(PoolYaml("default") + NodeYaml("cand", "8") +
           PodYaml("broken", "", "lots"));
  const SnapshotFacts pending_facts = SnapshotFacts::Build(pending);
  CHECK(pending_facts.simulation_status().ok());
  SimulatorOptions with;
  with.include_pending_pods = true;
  CHECK(Scheduler::Build(pending_facts, catalog, {}).ok());
  const absl::Status refused =
      Scheduler::Build(pending_facts, catalog, with).status();
  CHECK(refused.code() == absl::StatusCode::kInvalidArgument);
  CHECK(refused == Scheduler::Build(pending, DefaultCatalog(), with).status());
}

TEST_CASE("simulation: pods of a deleting node move only when disruptable",
          "[simulation]") {
  // "other" has 4 cpu free. A movable 3-cpu pod of the deleting node "gone"
  // is placed first (larger) and leaves no room for the candidate's 2-cpu
  // pod; a held one stays where it is.
  const std::string base =
      PoolYaml("default") + NodeYaml("cand", "8") + NodeYaml("other", "4") +
      NodeYaml("gone", "8", "16Gi",
               "taints: [{key: karpenter.sh/disrupted, effect: NoSchedule}]") +
      PodYaml("small", "cand", "2");
  const std::string pdb =
      "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: "
      "{name: p, namespace: default}\nspec: {maxUnavailable: 0, "
      "selector: {matchLabels: {app: stuck}}}\n";
  struct Row {
    std::string name;
    std::string yaml;
    std::string want;
  };
  const std::vector<Row> rows = {
      {"movable", PodYaml("stuck", "gone", "3"),
       "ok new default[small,medium,large]"},
      {"fully blocking PDB",
       PodYaml("stuck", "gone", "3", "1Gi", "", ", labels: {app: stuck}") + pdb,
       "ok"},
      {"do-not-disrupt",
       PodYaml("stuck", "gone", "3", "1Gi", "",
               ", annotations: {karpenter.sh/do-not-disrupt: \"true\"}"),
       "ok"},
  };
  const InstanceTypeCatalog catalog = DefaultCatalog();
  for (const Row& row : rows) {
    CAPTURE(row.name);
    CHECK(Simulate(base + row.yaml, {"cand"}).Summary() == row.want);
    const snapshot::Snapshot snap = Snap(base + row.yaml);
    const SnapshotFacts facts = SnapshotFacts::Build(snap);
    absl::StatusOr<Scheduler> s = Scheduler::Build(facts, catalog, {});
    REQUIRE(s.ok());
    CHECK(Run{s->Simulate({Cand(snap, "cand")})}.Summary() == row.want);
  }
}

}  // namespace
}  // namespace karpenter::disruption
