// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The value forms the API server accepts and the loaders must too: resource
// quantities written as JSON/YAML numbers, int-or-string fields in either
// form, and null for optional scalars, maps, lists and messages. JSON cases
// run through both decoders: the fast one, and protobuf's (forced by an
// annotation key written with an escape, which the fast decoder declines).

#include <catch2/catch.hpp>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "karpenter/quantity.h"
#include "karpenter/snapshot/load.h"

namespace karpenter::snapshot {
namespace {

// Reads one value of the loaded object back as text.
using Extract = std::function<std::string(const ObjectSet&)>;

// Makes the fast decoder decline the object, so protobuf's parser reads it.
constexpr absl::string_view kForceFallback =
    R"(, "annotations": {"\u0078": "y"})";

// `json` has "$M" where the metadata members after the name go and "$V"
// where the value goes; `yaml` has "$V".
struct FormCase {
  const char* what;
  const char* json;
  const char* yaml;
  Extract extract;
};

ObjectSet LoadOk(absl::string_view text, bool yaml) {
  ObjectSet set;
  const absl::Status s =
      yaml ? LoadYaml(text, "t", set) : LoadJson(text, "t", set);
  INFO(text);
  INFO(s.ToString());
  REQUIRE(s.ok());
  return set;
}

// Loads `c` with `value` in JSON (fast and protobuf decoder) and YAML, and
// checks that each reads `expected`.
void CheckForm(const FormCase& c, absl::string_view value,
               absl::string_view expected) {
  INFO(c.what << " with " << value);
  for (const absl::string_view meta : {absl::string_view(), kForceFallback}) {
    const std::string json =
        absl::StrReplaceAll(c.json, {{"$M", meta}, {"$V", value}});
    CHECK(c.extract(LoadOk(json, false)) == expected);
  }
  const std::string yaml = absl::StrReplaceAll(c.yaml, {{"$V", value}});
  CHECK(c.extract(LoadOk(yaml, true)) == expected);
}

std::string Get(const google::protobuf::Map<std::string, std::string>& map,
                const std::string& key) {
  const auto it = map.find(key);
  return it == map.end() ? "<absent>" : it->second;
}

// Every quantity field of every kind that has one.
std::vector<FormCase> QuantityCases() {
  return {
      {"Node status.capacity",
       R"({"kind": "Node", "metadata": {"name": "n"$M},
           "status": {"capacity": {"cpu": $V, "pods": "110"}}})",
       "kind: Node\nmetadata: {name: n}\nstatus:\n  capacity:\n    cpu: $V\n",
       [](const ObjectSet& s) {
         return Get(s.nodes.at(0).status().capacity(), "cpu");
       }},
      {"Node status.allocatable",
       R"({"kind": "Node", "metadata": {"name": "n"$M},
           "status": {"allocatable": {"memory": $V}}})",
       "kind: Node\nmetadata: {name: n}\nstatus:\n  allocatable:\n"
       "    memory: $V\n",
       [](const ObjectSet& s) {
         return Get(s.nodes.at(0).status().allocatable(), "memory");
       }},
      {"Pod container requests",
       R"({"kind": "Pod", "metadata": {"name": "p"$M},
           "spec": {"containers": [{"name": "c",
             "resources": {"requests": {"cpu": $V}}}]}})",
       "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
       "    resources:\n      requests:\n        cpu: $V\n",
       [](const ObjectSet& s) {
         return Get(s.pods.at(0).spec().containers(0).resources().requests(),
                    "cpu");
       }},
      {"Pod init container limits",
       R"({"kind": "Pod", "metadata": {"name": "p"$M},
           "spec": {"initContainers": [{"name": "c",
             "resources": {"limits": {"memory": $V}}}]}})",
       "kind: Pod\nmetadata: {name: p}\nspec:\n  initContainers:\n"
       "  - name: c\n    resources:\n      limits: {memory: $V}\n",
       [](const ObjectSet& s) {
         return Get(s.pods.at(0).spec().init_containers(0).resources().limits(),
                    "memory");
       }},
      {"Pod overhead",
       R"({"kind": "Pod", "metadata": {"name": "p"$M},
           "spec": {"overhead": {"cpu": $V}}})",
       "kind: Pod\nmetadata: {name: p}\nspec:\n  overhead:\n    cpu: $V\n",
       [](const ObjectSet& s) {
         return Get(s.pods.at(0).spec().overhead(), "cpu");
       }},
      {"Pod-level resources",
       R"({"kind": "Pod", "metadata": {"name": "p"$M},
           "spec": {"resources": {"requests": {"cpu": $V}}}})",
       "kind: Pod\nmetadata: {name: p}\nspec:\n  resources:\n    requests:\n"
       "      cpu: $V\n",
       [](const ObjectSet& s) {
         return Get(s.pods.at(0).spec().resources().requests(), "cpu");
       }},
      {"Pod container status allocatedResources",
       R"({"kind": "Pod", "metadata": {"name": "p"$M},
           "status": {"containerStatuses": [{"name": "c",
             "allocatedResources": {"cpu": $V}}]}})",
       "kind: Pod\nmetadata: {name: p}\nstatus:\n  containerStatuses:\n"
       "  - name: c\n    allocatedResources:\n      cpu: $V\n",
       [](const ObjectSet& s) {
         return Get(
             s.pods.at(0).status().container_statuses(0).allocated_resources(),
             "cpu");
       }},
      {"Pod init container status resources",
       R"({"kind": "Pod", "metadata": {"name": "p"$M},
           "status": {"initContainerStatuses": [{"name": "c",
             "resources": {"requests": {"memory": $V}}}]}})",
       "kind: Pod\nmetadata: {name: p}\nstatus:\n  initContainerStatuses:\n"
       "  - name: c\n    resources: {requests: {memory: $V}}\n",
       [](const ObjectSet& s) {
         return Get(s.pods.at(0)
                        .status()
                        .init_container_statuses(0)
                        .resources()
                        .requests(),
                    "memory");
       }},
      {"NodePool spec.limits",
       R"({"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
           "metadata": {"name": "default"$M}, "spec": {"limits": {"cpu": $V}}})",
       "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: "
       "default}\n"
       "spec:\n  limits:\n    cpu: $V\n",
       [](const ObjectSet& s) {
         return Get(s.node_pools.at(0).spec().limits(), "cpu");
       }},
      {"NodePool status.resources",
       R"({"kind": "NodePool", "metadata": {"name": "default"$M},
           "status": {"resources": {"cpu": $V}}})",
       "kind: NodePool\nmetadata: {name: default}\nstatus:\n  resources:\n"
       "    cpu: $V\n",
       [](const ObjectSet& s) {
         return Get(s.node_pools.at(0).status().resources(), "cpu");
       }},
      {"NodeClaim spec.resources.requests",
       R"({"kind": "NodeClaim", "metadata": {"name": "c"$M},
           "spec": {"resources": {"requests": {"cpu": $V}}}})",
       "kind: NodeClaim\nmetadata: {name: c}\nspec:\n  resources:\n"
       "    requests: {cpu: $V}\n",
       [](const ObjectSet& s) {
         return Get(s.node_claims.at(0).spec().resources().requests(), "cpu");
       }},
      {"NodeClaim status.capacity",
       R"({"kind": "NodeClaim", "metadata": {"name": "c"$M},
           "status": {"capacity": {"cpu": $V}, "allocatable": {"cpu": $V}}})",
       "kind: NodeClaim\nmetadata: {name: c}\nstatus:\n  capacity: {cpu: $V}\n"
       "  allocatable: {cpu: $V}\n",
       [](const ObjectSet& s) {
         const auto& st = s.node_claims.at(0).status();
         const std::string a = Get(st.capacity(), "cpu");
         return a == Get(st.allocatable(), "cpu") ? a : "<differ>";
       }},
      {"PersistentVolume spec.capacity",
       R"({"kind": "PersistentVolume", "metadata": {"name": "pv"$M},
           "spec": {"capacity": {"storage": $V}}})",
       "kind: PersistentVolume\nmetadata: {name: pv}\nspec:\n  capacity:\n"
       "    storage: $V\n",
       [](const ObjectSet& s) {
         return Get(s.persistent_volumes.at(0).spec().capacity(), "storage");
       }},
      {"DaemonSet template requests",
       R"({"kind": "DaemonSet", "metadata": {"name": "ds", "namespace": "k"$M},
           "spec": {"template": {"spec": {"containers": [{"name": "c",
             "resources": {"requests": {"cpu": $V}}}]}}}})",
       "kind: DaemonSet\nmetadata: {name: ds, namespace: k}\nspec:\n"
       "  template:\n    spec:\n      containers:\n      - name: c\n"
       "        resources: {requests: {cpu: $V}}\n",
       [](const ObjectSet& s) {
         return Get(s.daemon_sets.at(0)
                        .spec()
                        .template_()
                        .spec()
                        .containers(0)
                        .resources()
                        .requests(),
                    "cpu");
       }},
  };
}

TEST_CASE("value forms: a quantity written as a number keeps its text",
          "[value-forms]") {
  // {written, kept, MilliValue}: the text is kept as written, and the
  // quantity parser reads it as the number's value.
  struct Number {
    const char* written;
    int64_t milli;
  };
  const std::vector<Number> numbers = {
      {"500", 500000}, {"0", 0},         {"0.5", 500},       {"-1", -1000},
      {"-0.25", -250}, {"1e3", 1000000}, {"1.5E+2", 150000}, {"2e-3", 2},
  };
  for (const FormCase& c : QuantityCases()) {
    for (const Number& n : numbers) {
      CheckForm(c, n.written, n.written);
      const auto milli = ParseQuantityMilli(n.written);
      REQUIRE(milli.ok());
      CHECK(*milli == n.milli);
    }
    // The string form is unchanged.
    CheckForm(c, R"("250m")", "250m");
  }
}

TEST_CASE("value forms: a null quantity is zero in core kinds, pruned in CRDs",
          "[value-forms]") {
  // Go's resource.Quantity reads JSON null as zero; the API server prunes
  // a null from a Karpenter CRD's map (its schema does not make it
  // nullable), so the entry is gone there.
  const std::set<std::string> pruned = {"NodePool spec.limits",
                                        "NodePool status.resources",
                                        "NodeClaim status.capacity"};
  for (const FormCase& c : QuantityCases()) {
    CheckForm(c, "null", pruned.contains(c.what) ? "<absent>" : "0");
  }
}

TEST_CASE("value forms: pruning a null limit keeps the other entries",
          "[value-forms]") {
  const FormCase limits = {
      "NodePool spec.limits with neighbours",
      R"({"kind": "NodePool", "metadata": {"name": "d"$M},
          "spec": {"limits": {"cpu": $V, "memory": 1000, "gpu": null,
                              "pods": "10"}}})",
      "kind: NodePool\nmetadata: {name: d}\nspec:\n  limits:\n"
      "    cpu: $V\n    memory: 1000\n    gpu: null\n    pods: \"10\"\n",
      [](const ObjectSet& s) {
        const auto& l = s.node_pools.at(0).spec().limits();
        return absl::StrCat(Get(l, "cpu"), " ", Get(l, "memory"), " ",
                            Get(l, "gpu"), " ", Get(l, "pods"), " ", l.size());
      }};
  CheckForm(limits, "null", "<absent> 1000 <absent> 10 2");
  CheckForm(limits, "2", "2 1000 <absent> 10 3");
  // A label map is no quantity map: null there is the empty string.
  const FormCase labels = {
      "Node metadata.labels",
      R"({"kind": "Node", "metadata": {"name": "n",
          "labels": {"a": $V, "b": "c"}$M}})",
      "kind: Node\nmetadata:\n  name: n\n  labels: {a: $V, b: c}\n",
      [](const ObjectSet& s) {
        const auto& l = s.nodes.at(0).metadata().labels();
        return absl::StrCat("[", Get(l, "a"), "] ", l.size());
      }};
  CheckForm(labels, "null", "[] 2");
}

TEST_CASE("value forms: strings stay strings where Kubernetes wants them",
          "[value-forms]") {
  // A label value, a node name and a StorageClass parameter are strings in
  // Kubernetes: a number is rejected in JSON (both decoders alike).
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"kind": "Node", "metadata": {"name": "n", "labels": {"a": 5}}})",
       "t: Node n: metadata.labels[\"a\"]: expected a string, got a number 5"},
      {R"({"kind": "Node", "metadata": {"name": "n", "labels": {"a": 5})"
       R"(, "annotations": {"\u0078": "y"}}})",
       "t: Node n: metadata.labels[\"a\"]: expected a string, got a number 5"},
      {R"({"kind": "Pod", "metadata": {"name": "p"},
           "spec": {"nodeName": 7}})",
       "t: Pod p: spec.nodeName: expected a string, got 7"},
      {R"({"kind": "NodePool", "metadata": {"name": "d"},
           "spec": {"limits": {"cpu": true}}})",
       "t: NodePool d: spec.limits[\"cpu\"]: expected a string, got a boolean "
       "true"},
  };
  for (const auto& [json, message] : cases) {
    ObjectSet set;
    const absl::Status s = LoadJson(json, "t", set);
    INFO(json);
    CHECK(s.code() == absl::StatusCode::kInvalidArgument);
    CHECK(s.message() == message);
  }
}

TEST_CASE("value forms: int-or-string fields take either form",
          "[value-forms]") {
  const FormCase min_available = {
      "PDB spec.minAvailable",
      R"({"kind": "PodDisruptionBudget", "metadata": {"name": "b"$M},
          "spec": {"minAvailable": $V}})",
      "kind: PodDisruptionBudget\nmetadata: {name: b}\nspec:\n"
      "  minAvailable: $V\n",
      [](const ObjectSet& s) {
        const auto& v = s.pdbs.at(0).spec().min_available();
        if (v.has_number_value()) return absl::StrCat("int ", v.number_value());
        if (v.has_string_value()) return absl::StrCat("str ", v.string_value());
        return std::string("<absent>");
      }};
  const FormCase max_unavailable = {
      "PDB spec.maxUnavailable",
      R"({"kind": "PodDisruptionBudget", "metadata": {"name": "b"$M},
          "spec": {"maxUnavailable": $V}})",
      "kind: PodDisruptionBudget\nmetadata: {name: b}\nspec:\n"
      "  maxUnavailable: $V\n",
      [](const ObjectSet& s) {
        const auto& v = s.pdbs.at(0).spec().max_unavailable();
        if (v.has_number_value()) return absl::StrCat("int ", v.number_value());
        if (v.has_string_value()) return absl::StrCat("str ", v.string_value());
        return std::string("<absent>");
      }};
  for (const FormCase& c : {min_available, max_unavailable}) {
    CheckForm(c, "2", "int 2");
    CheckForm(c, "0", "int 0");
    CheckForm(c, R"("2")", "str 2");
    CheckForm(c, R"("50%")", "str 50%");
    CheckForm(c, "null", "<absent>");
  }
  // NodePool budgets' nodes is a string in the CRD ("5" or "10%"); a
  // number is read as its text.
  const FormCase nodes = {
      "NodePool budget nodes",
      R"({"kind": "NodePool", "metadata": {"name": "d"$M},
          "spec": {"disruption": {"budgets": [{"nodes": $V}]}}})",
      "kind: NodePool\nmetadata: {name: d}\nspec:\n  disruption:\n"
      "    budgets:\n    - nodes: $V\n",
      [](const ObjectSet& s) {
        return s.node_pools.at(0).spec().disruption().budgets(0).nodes();
      }};
  CheckForm(nodes, "5", "5");
  CheckForm(nodes, "0", "0");
  CheckForm(nodes, R"("5")", "5");
  CheckForm(nodes, R"("10%")", "10%");
  CheckForm(nodes, "null", "");
}

TEST_CASE("value forms: null is absent for scalars, maps, lists and messages",
          "[value-forms]") {
  const std::vector<FormCase> cases = {
      {"scalar Node spec.providerID",
       R"({"kind": "Node", "metadata": {"name": "n"$M},
           "spec": {"providerID": $V}})",
       "kind: Node\nmetadata: {name: n}\nspec:\n  providerID: $V\n",
       [](const ObjectSet& s) { return s.nodes.at(0).spec().provider_id(); }},
      {"optional scalar NodePool spec.weight",
       R"({"kind": "NodePool", "metadata": {"name": "d"$M},
           "spec": {"weight": $V}})",
       "kind: NodePool\nmetadata: {name: d}\nspec:\n  weight: $V\n",
       [](const ObjectSet& s) {
         const auto& spec = s.node_pools.at(0).spec();
         return spec.has_weight() ? absl::StrCat(spec.weight()) : "";
       }},
      {"optional scalar CSINode count",
       R"({"kind": "CSINode", "metadata": {"name": "n"$M},
           "spec": {"drivers": [{"name": "d", "allocatable": {"count": $V}}]}})",
       "kind: CSINode\nmetadata: {name: n}\nspec:\n  drivers:\n  - name: d\n"
       "    allocatable: {count: $V}\n",
       [](const ObjectSet& s) {
         const auto& a = s.csi_nodes.at(0).spec().drivers(0).allocatable();
         return a.has_count() ? absl::StrCat(a.count()) : "";
       }},
      {"optional scalar PVC storageClassName",
       R"({"kind": "PersistentVolumeClaim", "metadata": {"name": "c"$M},
           "spec": {"storageClassName": $V}})",
       "kind: PersistentVolumeClaim\nmetadata: {name: c}\nspec:\n"
       "  storageClassName: $V\n",
       [](const ObjectSet& s) {
         const auto& spec = s.persistent_volume_claims.at(0).spec();
         return spec.has_storage_class_name() ? "set" : "";
       }},
      {"map metadata.labels",
       R"({"kind": "Pod", "metadata": {"name": "p", "labels": $V$M}})",
       "kind: Pod\nmetadata:\n  name: p\n  labels: $V\n",
       [](const ObjectSet& s) {
         return absl::StrCat(s.pods.at(0).metadata().labels_size());
       }},
      {"map NodePool spec.limits",
       R"({"kind": "NodePool", "metadata": {"name": "d"$M},
           "spec": {"limits": $V}})",
       "kind: NodePool\nmetadata: {name: d}\nspec:\n  limits: $V\n",
       [](const ObjectSet& s) {
         return absl::StrCat(s.node_pools.at(0).spec().limits_size());
       }},
      {"map StorageClass parameters",
       R"({"kind": "StorageClass", "metadata": {"name": "sc"$M},
           "provisioner": "p", "parameters": $V})",
       "kind: StorageClass\nmetadata: {name: sc}\nprovisioner: p\n"
       "parameters: $V\n",
       [](const ObjectSet& s) {
         return absl::StrCat(s.storage_classes.at(0).parameters_size());
       }},
      {"list Node spec.taints",
       R"({"kind": "Node", "metadata": {"name": "n"$M},
           "spec": {"taints": $V}})",
       "kind: Node\nmetadata: {name: n}\nspec:\n  taints: $V\n",
       [](const ObjectSet& s) {
         return absl::StrCat(s.nodes.at(0).spec().taints_size());
       }},
      {"list Pod spec.containers",
       R"({"kind": "Pod", "metadata": {"name": "p"$M},
           "spec": {"containers": $V}})",
       "kind: Pod\nmetadata: {name: p}\nspec:\n  containers: $V\n",
       [](const ObjectSet& s) {
         return absl::StrCat(s.pods.at(0).spec().containers_size());
       }},
      {"list PVC spec.accessModes",
       R"({"kind": "PersistentVolumeClaim", "metadata": {"name": "c"$M},
           "spec": {"accessModes": $V}})",
       "kind: PersistentVolumeClaim\nmetadata: {name: c}\nspec:\n"
       "  accessModes: $V\n",
       [](const ObjectSet& s) {
         return absl::StrCat(
             s.persistent_volume_claims.at(0).spec().access_modes_size());
       }},
      {"message NodePool spec.disruption",
       R"({"kind": "NodePool", "metadata": {"name": "d"$M},
           "spec": {"disruption": $V}})",
       "kind: NodePool\nmetadata: {name: d}\nspec:\n  disruption: $V\n",
       [](const ObjectSet& s) {
         return s.node_pools.at(0).spec().has_disruption() ? "set" : "";
       }},
      {"message VolumeAttachment status",
       R"({"kind": "VolumeAttachment", "metadata": {"name": "va"$M},
           "spec": {"nodeName": "n"}, "status": $V})",
       "kind: VolumeAttachment\nmetadata: {name: va}\nspec: {nodeName: n}\n"
       "status: $V\n",
       [](const ObjectSet& s) {
         return s.volume_attachments.at(0).has_status() ? "set" : "";
       }},
      {"message Pod spec",
       R"({"kind": "Pod", "metadata": {"name": "p"$M}, "spec": $V})",
       "kind: Pod\nmetadata: {name: p}\nspec: $V\n",
       [](const ObjectSet& s) { return s.pods.at(0).has_spec() ? "set" : ""; }},
  };
  for (const FormCase& c : cases) {
    const bool counted = absl::string_view(c.what).substr(0, 4) == "map " ||
                         absl::string_view(c.what).substr(0, 5) == "list ";
    CheckForm(c, "null", counted ? "0" : "");
  }
}

}  // namespace
}  // namespace karpenter::snapshot
