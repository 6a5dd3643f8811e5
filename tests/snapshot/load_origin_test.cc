// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Errors name where the object is: the loaders record each object's origin
// (source, YAML document and line, list item) and Snapshot::Build cites it
// for empty and duplicate names, across files.

#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"

namespace karpenter::snapshot {
namespace {

// Loads each (source, text) into one set, then builds it; returns Build's
// error message ("" if it succeeded).
std::string BuildError(
    const std::vector<std::pair<std::string, std::string>>& files) {
  ObjectSet set;
  for (const auto& [source, text] : files) {
    const absl::Status s = LoadText(text, source, set);
    INFO(source << ": " << s.ToString());
    REQUIRE(s.ok());
  }
  absl::StatusOr<Snapshot> snapshot = Snapshot::Build(std::move(set));
  if (snapshot.ok()) return "";
  CHECK(snapshot.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(snapshot.status().message());
}

constexpr const char* kPoolJsonList = R"({"kind": "List", "items": [
  {"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
   "metadata": {"name": "default"}}]})";

constexpr const char* kPoolYaml =
    "kind: Node\nmetadata: {name: n1}\n"
    "---\n"
    "# the pool\n"
    "apiVersion: karpenter.sh/v1\n"
    "kind: NodePool\n"
    "metadata:\n"
    "  name: default\n";

TEST_CASE("load origins: duplicates across files name both places",
          "[load-origins]") {
  CHECK(BuildError({{"a.json", kPoolJsonList}, {"b.yaml", kPoolYaml}}) ==
        "duplicate NodePool \"default\": a.json: items[0] and b.yaml: "
        "document 2 (line 5)");
  CHECK(BuildError({{"b.yaml", kPoolYaml}, {"a.json", kPoolJsonList}}) ==
        "duplicate NodePool \"default\": b.yaml: document 2 (line 5) and "
        "a.json: items[0]");
  // A third file shifts nothing: each object keeps its own source.
  CHECK(BuildError({{"x.yaml", "kind: Node\nmetadata: {name: other}\n"},
                    {"a.json", kPoolJsonList},
                    {"b.yaml", kPoolYaml}}) ==
        "duplicate NodePool \"default\": a.json: items[0] and b.yaml: "
        "document 2 (line 5)");
  // Namespaced kinds, in one file: a top-level array and a typed list.
  CHECK(BuildError({{"p.json",
                     R"([{"kind": "Pod", "metadata": {"name": "p"}},
                         {"kind": "Pod", "metadata": {"name": "q"}},
                         {"kind": "Pod", "metadata": {"name": "p",
                                                      "namespace": "default"}}
                        ])"}}) ==
        "duplicate Pod \"default/p\": p.json: [0] and p.json: [2]");
  CHECK(BuildError({{"pdb.yaml",
                     "kind: PodDisruptionBudgetList\napiVersion: policy/v1\n"
                     "items:\n"
                     "- metadata: {name: b, namespace: x}\n"
                     "- metadata: {name: b, namespace: x}\n"}}) ==
        "duplicate PodDisruptionBudget \"x/b\": pdb.yaml: document 1: "
        "items[0] (line 4) and pdb.yaml: document 1: items[1] (line 5)");
  CHECK(
      BuildError(
          {{"c1.json",
            R"({"kind": "PersistentVolumeClaim", "metadata": {"name": "c"}})"},
           {"c2.json",
            R"({"kind": "PersistentVolumeClaimList", "items": [
                  {"metadata": {"name": "c", "namespace": "default"}}]})"}}) ==
      "duplicate PersistentVolumeClaim \"default/c\": c1.json and c2.json: "
      "items[0]");
  CHECK(
      BuildError({{"ds.yaml",
                   "kind: DaemonSet\nmetadata: {name: d, namespace: k}\n"
                   "---\n"
                   "kind: DaemonSet\nmetadata: {name: d, namespace: k}\n"}}) ==
      "duplicate DaemonSet \"k/d\": ds.yaml: document 1 (line 1) and "
      "ds.yaml: document 2 (line 4)");
}

TEST_CASE("load origins: an unnamed object is named by kind and place",
          "[load-origins]") {
  struct Case {
    const char* source;
    const char* text;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"np.yaml", "kind: Node\nmetadata: {name: n}\n---\nkind: NodePool\n",
       "np.yaml: document 2: unnamed NodePool: metadata.name is empty "
       "(line 4)"},
      {"np.json", R"({"kind": "NodePoolList", "items": [{}]})",
       "np.json: items[0] (unnamed NodePool): metadata.name is empty"},
      {"nc.json", R"({"kind": "NodeClaim", "metadata": {}})",
       "nc.json: unnamed NodeClaim: metadata.name is empty"},
      {"pods.json",
       R"({"kind": "List", "items": [
           {"kind": "Pod", "metadata": {"name": "a"}},
           {"kind": "PodList", "items": [{"metadata": {"namespace": "x"}}]}]})",
       "pods.json: items[1].items[0] (unnamed Pod): metadata.name is empty"},
      {"pdb.json", R"({"kind": "PodDisruptionBudget"})",
       "pdb.json: unnamed PodDisruptionBudget: metadata.name is empty"},
      {"va.yaml", "kind: VolumeAttachment\nspec: {nodeName: n}\n",
       "va.yaml: document 1: unnamed VolumeAttachment: metadata.name is "
       "empty (line 1)"},
      {"pvc.json", R"({"kind": "PersistentVolumeClaim"})",
       "pvc.json: unnamed PersistentVolumeClaim: metadata.name is empty"},
      {"pv.json", R"({"kind": "PersistentVolume"})",
       "pv.json: unnamed PersistentVolume: metadata.name is empty"},
      {"sc.json", R"({"kind": "StorageClass"})",
       "sc.json: unnamed StorageClass: metadata.name is empty"},
      {"csi.json", R"({"kind": "CSINode"})",
       "csi.json: unnamed CSINode: metadata.name is empty"},
      {"ds.json", R"({"kind": "DaemonSet"})",
       "ds.json: unnamed DaemonSet: metadata.name is empty"},
      {"n.json", R"({"kind": "Node", "metadata": {"name": ""}})",
       "n.json: unnamed Node: metadata.name is empty"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    CHECK(BuildError({{c.source, c.text}}) == c.message);
  }
}

TEST_CASE("load origins: objects added by hand are named by position",
          "[load-origins]") {
  ObjectSet set;
  REQUIRE(
      LoadText(R"({"kind": "Node", "metadata": {"name": "a"}})", "a.json", set)
          .ok());
  v1::Node node;
  node.mutable_metadata()->set_name("a");
  set.nodes.push_back(node);
  ObjectSet more;
  more.nodes.push_back(node);
  set.Append(std::move(more));
  // The loaded node keeps its origin; the hand-made ones have none.
  REQUIRE(set.origins.nodes.size() == 3);
  CHECK(set.DescribeOrigin(set.origins.nodes, 0) == "a.json");
  CHECK(set.DescribeOrigin(set.origins.nodes, 1).empty());
  CHECK(set.DescribeOrigin(set.origins.nodes, 2).empty());
  CHECK(set.DescribeOrigin(set.origins.nodes, 3).empty());
  absl::StatusOr<Snapshot> s = Snapshot::Build(std::move(set));
  REQUIRE_FALSE(s.ok());
  CHECK(s.status().message() == "duplicate Node \"a\": a.json and nodes[1]");
}

TEST_CASE("load origins: a failed load records nothing", "[load-origins]") {
  ObjectSet set;
  REQUIRE(LoadText("kind: Node\nmetadata: {name: a}\n", "a.yaml", set).ok());
  const absl::Status s = LoadText(
      R"({"kind": "List", "items": [{"kind": "Node", "metadata": {"name": "b"}},
          {"kind": "Node", "spec": {"unschedulable": 3}}]})",
      "b.json", set);
  CHECK(s.message() ==
        "b.json: items[1] (unnamed Node): spec.unschedulable: expected a "
        "boolean, got 3");
  CHECK(set.nodes.size() == 1);
  CHECK(set.origins.nodes.size() == 1);
  CHECK(set.sources == std::vector<std::string>{"a.yaml"});
}

TEST_CASE("load origins: a load error names file, item, object and field",
          "[load-origins]") {
  ObjectSet set;
  absl::Status s = LoadText(
      R"({"kind": "List", "items": [
          {"kind": "Node", "metadata": {"name": "n"}},
          {"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
           "metadata": {"name": "default"},
           "spec": {"limits": {"cpu": true}}}]})",
      "cluster.json", set);
  CHECK(s.message() ==
        "cluster.json: items[1] (NodePool default): spec.limits[\"cpu\"]: "
        "expected a string, got a boolean true");
  s = LoadText(
      "kind: Node\nmetadata: {name: n}\n---\n"
      "kind: NodePool\nmetadata: {name: default}\nspec:\n  limits:\n"
      "    cpu: [1]\n",
      "cluster.yaml", set);
  CHECK(s.message() ==
        "cluster.yaml: document 2: NodePool default: spec.limits[\"cpu\"]: "
        "expected a string, got a list (line 8)");
  s = LoadText(
      "kind: Pod\nmetadata: {name: p}\nstatus:\n  containerStatuses:\n"
      "  - name: a\n    allocatedResources:\n      cpu: {x: 1}\n",
      "pod.yaml", set);
  CHECK(s.message() ==
        "pod.yaml: document 1: Pod p: "
        "status.containerStatuses[0].allocatedResources[\"cpu\"]: expected a "
        "string, got a mapping (line 7)");
}

TEST_CASE("load origins: a bad map value is named by its key",
          "[load-origins]") {
  struct Case {
    const char* json;
    const char* message;
  };
  const std::vector<Case> cases = {
      {R"({"kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [
          {"name": "a"}, {"name": "b", "resources": {"requests":
          {"cpu": "1", "memory": false}}}]}})",
       "p.json: Pod p: spec.containers[1].resources.requests[\"memory\"]: "
       "expected a string, got a boolean false"},
      {R"({"kind": "Pod", "metadata": {"name": "p"}, "status":
          {"containerStatuses": [{"name": "a"}, {"name": "b",
          "allocatedResources": {"cpu": true}}]}})",
       "p.json: Pod p: "
       "status.containerStatuses[1].allocatedResources[\"cpu\"]: "
       "expected a string, got a boolean true"},
      {R"({"kind": "Pod", "metadata": {"name": "p"}, "status":
          {"initContainerStatuses": [{"name": "s", "resources":
          {"requests": {"memory": [1]}}}]}})",
       "p.json: Pod p: status.initContainerStatuses[0].resources.requests"
       "[\"memory\"]: expected a string, got an array"},
      {R"({"kind": "NodePool", "metadata": {"name": "d"},
          "spec": {"limits": {"cpu": 1, "mem": {"v": 1}}}})",
       "p.json: NodePool d: spec.limits[\"mem\"]: expected a string, got an "
       "object"},
      {R"({"kind": "Node", "metadata": {"name": "n"},
          "status": {"capacity": {"pods": [110]}}})",
       "p.json: Node n: status.capacity[\"pods\"]: expected a string, got an "
       "array"},
      {R"({"kind": "StorageClass", "metadata": {"name": "sc"},
          "parameters": {"iops": 3000}})",
       "p.json: StorageClass sc: parameters[\"iops\"]: expected a string, got "
       "a number 3000"},
  };
  for (const Case& c : cases) {
    ObjectSet set;
    const absl::Status s = LoadText(c.json, "p.json", set);
    INFO(c.json);
    CHECK(s.message() == c.message);
  }
}

}  // namespace
}  // namespace karpenter::snapshot
