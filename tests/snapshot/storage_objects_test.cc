// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// PersistentVolumes, StorageClasses, CSINodes and DaemonSets: loading (kubectl
// JSON and YAML, typed lists, versions), the API server's validation the
// loaders and Snapshot::Build apply, and their Snapshot indexes.

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../testing/kit_test_util.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/message_differencer.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/testing/builders.h"

namespace karpenter::snapshot {
namespace {

using google::protobuf::util::MessageDifferencer;

std::string TestData(absl::string_view name) {
  return absl::StrCat(KARPENTER_TESTDATA_DIR, "/", name);
}

ObjectSet MustLoad(absl::string_view text) {
  ObjectSet set;
  const absl::Status s = LoadText(text, "t", set);
  INFO(s.ToString());
  REQUIRE(s.ok());
  return set;
}

ObjectSet MustLoadFile(absl::string_view name) {
  ObjectSet set;
  const absl::Status s = LoadFile(TestData(name), set);
  INFO(s.ToString());
  REQUIRE(s.ok());
  return set;
}

std::vector<std::string> Strings(
    const google::protobuf::RepeatedPtrField<std::string>& values) {
  return {values.begin(), values.end()};
}

bool Empty(const ObjectSet& set) {
  return set.nodes.empty() && set.pods.empty() && set.pdbs.empty() &&
         set.persistent_volumes.empty() && set.storage_classes.empty() &&
         set.csi_nodes.empty() && set.daemon_sets.empty() &&
         set.skipped_kinds.empty();
}

TEST_CASE("snapshot storage: kubectl List JSON of PVs, classes and CSINodes",
          "[snapshot][storage]") {
  const ObjectSet set = MustLoadFile("storage-list.json");
  CHECK(set.skipped_kinds.empty());

  REQUIRE(set.persistent_volumes.size() == 1);
  const v1::PersistentVolume& pv = set.persistent_volumes[0];
  CHECK(pv.kind() == "PersistentVolume");
  CHECK(pv.api_version() == "v1");
  CHECK(pv.metadata().name() == "pvc-7b1e2d3c-4f5a-4b6c-8d7e-9f0a1b2c3d4e");
  CHECK(pv.metadata().namespace_().empty());
  CHECK(pv.spec().capacity().at("storage") == "20Gi");
  CHECK(Strings(pv.spec().access_modes()) ==
        std::vector<std::string>{"ReadWriteOnce"});
  CHECK(pv.spec().claim_ref().namespace_() == "db");
  CHECK(pv.spec().claim_ref().name() == "data-db-0");
  CHECK(pv.spec().claim_ref().uid() == "7b1e2d3c-4f5a-4b6c-8d7e-9f0a1b2c3d4e");
  CHECK(pv.spec().storage_class_name() == "gp3");
  CHECK(pv.spec().csi().driver() == "ebs.csi.aws.com");
  CHECK(pv.spec().csi().volume_handle() == "vol-0a1b2c3d4e5f60001");
  CHECK(pv.spec().persistent_volume_reclaim_policy() == "Delete");
  const auto& terms =
      pv.spec().node_affinity().required().node_selector_terms();
  REQUIRE(terms.size() == 1);
  REQUIRE(terms[0].match_expressions_size() == 1);
  CHECK(terms[0].match_expressions(0).key() == "topology.ebs.csi.aws.com/zone");
  CHECK(terms[0].match_expressions(0).operator_() == "In");
  CHECK(Strings(terms[0].match_expressions(0).values()) ==
        std::vector<std::string>{"us-west-2a"});
  CHECK(pv.status().phase() == "Bound");

  REQUIRE(set.storage_classes.size() == 2);
  const v1::StorageClass& gp3 = set.storage_classes[0];
  CHECK(gp3.kind() == "StorageClass");
  CHECK(gp3.api_version() == "storage.k8s.io/v1");
  CHECK(gp3.metadata().name() == "gp3");
  CHECK(gp3.metadata().annotations().at(
            "storageclass.kubernetes.io/is-default-class") == "true");
  CHECK(gp3.provisioner() == "ebs.csi.aws.com");
  CHECK(gp3.parameters().at("type") == "gp3");
  CHECK(gp3.reclaim_policy() == "Delete");
  REQUIRE(gp3.has_volume_binding_mode());
  CHECK(gp3.volume_binding_mode() == "WaitForFirstConsumer");
  CHECK(gp3.allowed_topologies().empty());
  const v1::StorageClass& io2 = set.storage_classes[1];
  CHECK(io2.volume_binding_mode() == "Immediate");
  CHECK(io2.reclaim_policy() == "Retain");
  REQUIRE(io2.allowed_topologies_size() == 1);
  REQUIRE(io2.allowed_topologies(0).match_label_expressions_size() == 1);
  const auto& zone = io2.allowed_topologies(0).match_label_expressions(0);
  CHECK(zone.key() == "topology.ebs.csi.aws.com/zone");
  CHECK(Strings(zone.values()) ==
        std::vector<std::string>{"us-west-2a", "us-west-2b"});

  REQUIRE(set.csi_nodes.size() == 1);
  const v1::CSINode& csi = set.csi_nodes[0];
  CHECK(csi.kind() == "CSINode");
  CHECK(csi.api_version() == "storage.k8s.io/v1");
  CHECK(csi.metadata().name() == "ip-10-0-1-17.us-west-2.compute.internal");
  REQUIRE(csi.spec().drivers_size() == 2);
  const v1::CSINodeDriver& ebs = csi.spec().drivers(0);
  CHECK(ebs.name() == "ebs.csi.aws.com");
  CHECK(ebs.node_id() == "i-0a1b2c3d4e5f60001");
  CHECK(Strings(ebs.topology_keys()) ==
        std::vector<std::string>{"kubernetes.io/os",
                                 "topology.ebs.csi.aws.com/zone",
                                 "topology.kubernetes.io/zone"});
  REQUIRE(ebs.allocatable().has_count());
  CHECK(ebs.allocatable().count() == 25);
  // No allocatable: no limit, told apart from a limit of 0.
  const v1::CSINodeDriver& efs = csi.spec().drivers(1);
  CHECK(efs.name() == "efs.csi.aws.com");
  CHECK_FALSE(efs.has_allocatable());
  CHECK_FALSE(efs.allocatable().has_count());
  CHECK(efs.topology_keys().empty());
}

TEST_CASE("snapshot storage: PersistentVolumeList YAML",
          "[snapshot][storage]") {
  const ObjectSet set = MustLoadFile("persistentvolumes.yaml");
  CHECK(set.skipped_kinds.empty());
  REQUIRE(set.persistent_volumes.size() == 2);
  // Items of a typed list take its kind and apiVersion.
  const v1::PersistentVolume& local = set.persistent_volumes[0];
  CHECK(local.kind() == "PersistentVolume");
  CHECK(local.api_version() == "v1");
  CHECK(local.metadata().name() == "local-pv-3f2a91c0");
  CHECK(local.spec().capacity().at("storage") == "1843Gi");
  CHECK(local.spec().claim_ref().name() == "cache-redis-0");
  CHECK(local.spec().storage_class_name() == "local-nvme");
  CHECK_FALSE(local.spec().has_csi());
  const auto& expr = local.spec()
                         .node_affinity()
                         .required()
                         .node_selector_terms(0)
                         .match_expressions(0);
  CHECK(expr.key() == "kubernetes.io/hostname");
  CHECK(Strings(expr.values()) ==
        std::vector<std::string>{"ip-10-0-3-120.us-west-2.compute.internal"});
  const v1::PersistentVolume& nfs = set.persistent_volumes[1];
  CHECK(nfs.kind() == "PersistentVolume");
  CHECK_FALSE(nfs.spec().has_claim_ref());
  CHECK_FALSE(nfs.spec().has_node_affinity());
  CHECK(nfs.spec().storage_class_name().empty());
  CHECK(nfs.status().phase() == "Available");
}

TEST_CASE("snapshot storage: kubectl DaemonSets YAML", "[snapshot][storage]") {
  const ObjectSet set = MustLoadFile("daemonsets.yaml");
  CHECK(set.skipped_kinds.empty());
  CHECK(set.pods.empty());
  REQUIRE(set.daemon_sets.size() == 2);
  const v1::DaemonSet& cni = set.daemon_sets[0];
  CHECK(cni.kind() == "DaemonSet");
  CHECK(cni.api_version() == "apps/v1");
  CHECK(cni.metadata().namespace_() == "kube-system");
  CHECK(cni.metadata().name() == "aws-node");
  CHECK(cni.spec().selector().match_labels().at("k8s-app") == "aws-node");
  const v1::PodTemplateSpec& t = cni.spec().template_();
  CHECK(t.metadata().labels().at("k8s-app") == "aws-node");
  CHECK_FALSE(t.metadata().has_creation_timestamp());  // `null`
  const v1::PodSpec& spec = t.spec();
  CHECK(spec.priority_class_name() == "system-node-critical");
  CHECK(spec.host_network());
  CHECK(spec.termination_grace_period_seconds() == 10);
  REQUIRE(spec.containers_size() == 1);
  CHECK(spec.containers(0).resources().requests().at("cpu") == "25m");
  REQUIRE(spec.containers(0).ports_size() == 1);
  CHECK(spec.containers(0).ports(0).host_port() == 61678);
  REQUIRE(spec.init_containers_size() == 1);
  CHECK(spec.init_containers(0).name() == "aws-vpc-cni-init");
  REQUIRE(spec.tolerations_size() == 1);
  CHECK(spec.tolerations(0).operator_() == "Exists");
  const auto& terms = spec.affinity()
                          .node_affinity()
                          .required_during_scheduling_ignored_during_execution()
                          .node_selector_terms();
  REQUIRE(terms.size() == 1);
  REQUIRE(terms[0].match_expressions_size() == 3);
  CHECK(terms[0].match_expressions(2).operator_() == "NotIn");
  REQUIRE(spec.volumes_size() == 1);
  CHECK(spec.volumes(0).name() == "cni-bin-dir");
  CHECK(cni.status().desired_number_scheduled() == 8);
  CHECK(cni.status().number_ready() == 8);
  const v1::DaemonSet& proxy = set.daemon_sets[1];
  CHECK(proxy.metadata().name() == "kube-proxy");
  CHECK(proxy.spec().template_().spec().containers(0).resources().requests().at(
            "cpu") == "100m");
  CHECK(proxy.status().number_ready() == 7);
}

TEST_CASE("snapshot storage: JSON and YAML forms decode identically",
          "[snapshot][storage]") {
  const ObjectSet json = MustLoad(R"({"kind": "List", "apiVersion": "v1",
    "items": [
      {"kind": "PersistentVolume", "apiVersion": "v1",
       "metadata": {"name": "pv-1"},
       "spec": {"capacity": {"storage": "8Gi"}, "storageClassName": "gp3",
                "claimRef": {"namespace": "db", "name": "data"},
                "nodeAffinity": {"required": {"nodeSelectorTerms": [
                  {"matchExpressions": [{"key": "zone", "operator": "In",
                                         "values": ["a", "b"]}],
                   "matchFields": [{"key": "metadata.name", "operator": "In",
                                    "values": ["n1"]}]}]}}},
       "status": {"phase": "Bound"}},
      {"kind": "StorageClass", "apiVersion": "storage.k8s.io/v1",
       "metadata": {"name": "sc"}, "provisioner": "p",
       "parameters": {"type": "gp3"}, "reclaimPolicy": "Retain",
       "allowedTopologies": [{"matchLabelExpressions": [
         {"key": "zone", "values": ["a"]}]}]},
      {"kind": "StorageClass", "metadata": {"name": "plain"},
       "volumeBindingMode": null},
      {"kind": "CSINode", "apiVersion": "storage.k8s.io/v1",
       "metadata": {"name": "n1"},
       "spec": {"drivers": [
         {"name": "d1", "nodeID": "i-1", "topologyKeys": ["zone"],
          "allocatable": {"count": 0}},
         {"name": "d2", "nodeID": "i-1", "allocatable": {}}]}},
      {"kind": "DaemonSet", "apiVersion": "apps/v1",
       "metadata": {"name": "agent", "namespace": "kube-system"},
       "spec": {"selector": {"matchLabels": {"app": "agent"}},
                "template": {"metadata": {"labels": {"app": "agent"}},
                             "spec": {"containers": [{"name": "c",
                               "resources": {"requests": {"cpu": "50m"}}}]}}},
       "status": {"numberReady": 3}}
    ]})");
  const ObjectSet yaml = MustLoad(R"(
kind: List
apiVersion: v1
items:
- kind: PersistentVolume
  apiVersion: v1
  metadata: {name: pv-1}
  spec:
    capacity: {storage: 8Gi}
    storageClassName: gp3
    claimRef: {namespace: db, name: data}
    nodeAffinity:
      required:
        nodeSelectorTerms:
        - matchExpressions:
          - {key: zone, operator: In, values: [a, b]}
          matchFields:
          - {key: metadata.name, operator: In, values: [n1]}
  status: {phase: Bound}
- kind: StorageClass
  apiVersion: storage.k8s.io/v1
  metadata: {name: sc}
  provisioner: p
  parameters: {type: gp3}
  reclaimPolicy: Retain
  allowedTopologies:
  - matchLabelExpressions:
    - key: zone
      values: [a]
- kind: StorageClass
  metadata: {name: plain}
  volumeBindingMode: ~
- kind: CSINode
  apiVersion: storage.k8s.io/v1
  metadata: {name: n1}
  spec:
    drivers:
    - name: d1
      nodeID: i-1
      topologyKeys: [zone]
      allocatable: {count: 0}
    - name: d2
      nodeID: i-1
      allocatable: {}
- kind: DaemonSet
  apiVersion: apps/v1
  metadata: {name: agent, namespace: kube-system}
  spec:
    selector:
      matchLabels: {app: agent}
    template:
      metadata:
        labels: {app: agent}
      spec:
        containers:
        - name: c
          resources:
            requests: {cpu: 50m}
  status: {numberReady: 3}
)");
  REQUIRE(json.persistent_volumes.size() == 1);
  REQUIRE(yaml.persistent_volumes.size() == 1);
  REQUIRE(json.storage_classes.size() == 2);
  REQUIRE(yaml.storage_classes.size() == 2);
  REQUIRE(json.csi_nodes.size() == 1);
  REQUIRE(yaml.csi_nodes.size() == 1);
  REQUIRE(json.daemon_sets.size() == 1);
  REQUIRE(yaml.daemon_sets.size() == 1);
  CHECK(MessageDifferencer::Equals(json.persistent_volumes[0],
                                   yaml.persistent_volumes[0]));
  for (size_t i = 0; i < 2; ++i) {
    CHECK(MessageDifferencer::Equals(json.storage_classes[i],
                                     yaml.storage_classes[i]));
  }
  CHECK(MessageDifferencer::Equals(json.csi_nodes[0], yaml.csi_nodes[0]));
  CHECK(MessageDifferencer::Equals(json.daemon_sets[0], yaml.daemon_sets[0]));
  // Presence: an absent volumeBindingMode (null, ~) is not the empty mode,
  // and a count of 0 is a limit while an empty allocatable is none.
  CHECK_FALSE(json.storage_classes[1].has_volume_binding_mode());
  CHECK(json.storage_classes[1].api_version().empty());
  const v1::CSINodeSpec& drivers = json.csi_nodes[0].spec();
  CHECK(drivers.drivers(0).allocatable().has_count());
  CHECK(drivers.drivers(0).allocatable().count() == 0);
  CHECK(drivers.drivers(1).has_allocatable());
  CHECK_FALSE(drivers.drivers(1).allocatable().has_count());
  CHECK(json.persistent_volumes[0]
            .spec()
            .node_affinity()
            .required()
            .node_selector_terms(0)
            .match_fields(0)
            .key() == "metadata.name");
  CHECK(json.daemon_sets[0].status().number_ready() == 3);
}

TEST_CASE("snapshot storage: typed lists, versions and skipped kinds",
          "[snapshot][storage]") {
  const ObjectSet set = MustLoad(R"([
    {"kind": "PersistentVolumeList", "apiVersion": "v1",
     "items": [{"metadata": {"name": "pv-a"}}, {"metadata": {"name": "pv-b"}}]},
    {"kind": "StorageClassList", "apiVersion": "storage.k8s.io/v1",
     "items": [{"metadata": {"name": "gp3"}, "provisioner": "ebs.csi.aws.com"}]},
    {"kind": "CSINodeList", "apiVersion": "storage.k8s.io/v1",
     "items": [{"metadata": {"name": "n1"}, "spec": {"drivers": []}}]},
    {"kind": "DaemonSetList", "apiVersion": "apps/v1",
     "items": [{"metadata": {"name": "ds", "namespace": "kube-system"}}]},
    {"kind": "CSINode", "apiVersion": "storage.k8s.io/v1beta1",
     "metadata": {"name": "old"}},
    {"kind": "StorageClass", "apiVersion": "storage.k8s.io/v1beta1",
     "metadata": {"name": "old"}},
    {"kind": "DaemonSet", "apiVersion": "extensions/v1beta1",
     "metadata": {"name": "old"}},
    {"kind": "PersistentVolume", "apiVersion": "example.com/v1",
     "metadata": {"name": "odd"}},
    {"kind": "CSIDriver", "apiVersion": "storage.k8s.io/v1",
     "metadata": {"name": "ebs.csi.aws.com"}}
  ])");
  REQUIRE(set.persistent_volumes.size() == 2);
  CHECK(set.persistent_volumes[1].metadata().name() == "pv-b");
  CHECK(set.persistent_volumes[1].kind() == "PersistentVolume");
  CHECK(set.persistent_volumes[1].api_version() == "v1");
  REQUIRE(set.storage_classes.size() == 1);
  CHECK(set.storage_classes[0].kind() == "StorageClass");
  CHECK(set.storage_classes[0].api_version() == "storage.k8s.io/v1");
  CHECK(set.storage_classes[0].provisioner() == "ebs.csi.aws.com");
  REQUIRE(set.csi_nodes.size() == 1);
  CHECK(set.csi_nodes[0].kind() == "CSINode");
  CHECK(set.csi_nodes[0].api_version() == "storage.k8s.io/v1");
  REQUIRE(set.daemon_sets.size() == 1);
  CHECK(set.daemon_sets[0].kind() == "DaemonSet");
  CHECK(set.daemon_sets[0].api_version() == "apps/v1");
  CHECK(set.daemon_sets[0].metadata().namespace_() == "kube-system");
  CHECK(set.skipped_kinds == std::map<std::string, int64_t>{
                                 {"CSIDriver", 1},
                                 {"CSINode (storage.k8s.io/v1beta1)", 1},
                                 {"DaemonSet (extensions/v1beta1)", 1},
                                 {"PersistentVolume (example.com/v1)", 1},
                                 {"StorageClass (storage.k8s.io/v1beta1)", 1}});
}

struct ErrorCase {
  std::string source;
  std::string text;
  std::string message;
};

void CheckErrors(const std::vector<ErrorCase>& cases) {
  for (const ErrorCase& c : cases) {
    ObjectSet set;
    const absl::Status s = LoadText(c.text, c.source, set);
    INFO(c.text);
    CHECK(s.code() == absl::StatusCode::kInvalidArgument);
    CHECK(s.message() == c.message);
    CHECK(Empty(set));  // an error leaves the set unchanged
  }
}

TEST_CASE("snapshot storage: decode errors name the object and field",
          "[snapshot][storage]") {
  CheckErrors({
      {"csi.json",
       R"({"kind":"CSINode","metadata":{"name":"n1"},
           "spec":{"drivers":[{"name":"d","allocatable":{"count":"many"}}]}})",
       "csi.json: CSINode n1: spec.drivers[0].allocatable.count: expected a "
       "32-bit integer, got \"many\""},
      {"sc.yaml",
       "kind: StorageClassList\napiVersion: storage.k8s.io/v1\nitems:\n"
       "- metadata: {name: fast}\n  volumeBindingMode: [Immediate]\n",
       "sc.yaml: document 1: items[0] (StorageClass fast): volumeBindingMode: "
       "expected a string, got a list (line 5)"},
      {"ds.json",
       R"({"kind":"List","items":[{"kind":"DaemonSet","apiVersion":"apps/v1",
           "metadata":{"name":"agent","namespace":"kube-system"},
           "spec":{"template":{"spec":{"priority":"high"}}}}]})",
       "ds.json: items[0] (DaemonSet kube-system/agent): "
       "spec.template.spec.priority: expected a 32-bit integer, got \"high\""},
      {"pv.json",
       R"({"kind":"PersistentVolume","metadata":{"name":"pv-1"},
           "spec":{"claimRef":{"name":"data"}},"status":{"phase":7}})",
       "pv.json: PersistentVolume pv-1: status.phase: expected a string, got "
       "7"},
  });
}

TEST_CASE("snapshot storage: the loaders apply the API server's validation",
          "[snapshot][storage]") {
  const std::string long_mode(100, 'x');
  CheckErrors({
      // StorageClass.
      {"sc.json",
       R"({"kind":"StorageClass","metadata":{"name":"fast"},
           "volumeBindingMode":"Later"})",
       "sc.json: StorageClass fast: volumeBindingMode: expected \"Immediate\" "
       "or \"WaitForFirstConsumer\", got \"Later\""},
      {"sc.json",
       R"({"kind":"StorageClass","metadata":{"name":"fast"},
           "volumeBindingMode":""})",
       "sc.json: StorageClass fast: volumeBindingMode: expected \"Immediate\" "
       "or \"WaitForFirstConsumer\", got \"\""},
      {"sc.json",
       absl::StrCat(R"({"kind":"StorageClass","metadata":{"name":"fast"},
           "volumeBindingMode":")",
                    long_mode, "\"}"),
       absl::StrCat("sc.json: StorageClass fast: volumeBindingMode: expected "
                    "\"Immediate\" or \"WaitForFirstConsumer\", got \"",
                    std::string(80, 'x'), "...\" (100 bytes)")},
      {"sc.yaml",
       "kind: StorageClass\nmetadata: {name: zonal}\nallowedTopologies:\n"
       "- matchLabelExpressions:\n  - {key: zone, values: [a]}\n"
       "- matchLabelExpressions:\n  - {key: 'bad key', values: [a]}\n",
       "sc.yaml: document 1: StorageClass zonal: "
       "allowedTopologies[1].matchLabelExpressions[0].key: \"bad key\": name "
       "part must consist of alphanumeric characters, '-', '_' or '.', and "
       "must start and end with an alphanumeric character (e.g. 'MyName', "
       "'my.name' or '123-abc') (object at line 1)"},
      {"sc.json",
       R"({"kind":"StorageClass","metadata":{"name":"zonal"},
           "allowedTopologies":[{"matchLabelExpressions":[
             {"key":"topology.kubernetes.io/zone","values":[]}]}]})",
       "sc.json: StorageClass zonal: "
       "allowedTopologies[0].matchLabelExpressions[0].values: expected at "
       "least one value for key \"topology.kubernetes.io/zone\", got 0"},
      {"sc.json",
       R"({"kind":"StorageClass","metadata":{"name":"zonal"},
           "allowedTopologies":[{"matchLabelExpressions":[
             {"key":"zone","values":["a","b","a"]}]}]})",
       "sc.json: StorageClass zonal: "
       "allowedTopologies[0].matchLabelExpressions[0].values[2]: duplicate "
       "value \"a\" (also values[0])"},
      {"sc.json",
       R"({"kind":"StorageClass","metadata":{"name":"zonal"},
           "allowedTopologies":[{"matchLabelExpressions":[
             {"key":"zone","values":["a"]},{"key":"rack","values":["r1"]},
             {"key":"zone","values":["b"]}]}]})",
       "sc.json: StorageClass zonal: "
       "allowedTopologies[0].matchLabelExpressions[2].key: duplicate key "
       "\"zone\" (also matchLabelExpressions[0])"},
      // PersistentVolume.
      {"pv.json",
       R"({"kind":"PersistentVolume","metadata":{"name":"pv-1"},
           "spec":{"claimRef":{"namespace":"db","uid":"u"}}})",
       "pv.json: PersistentVolume pv-1: spec.claimRef.name: expected the "
       "claim's name, got \"\""},
      {"pv.json",
       R"({"kind":"PersistentVolume","metadata":{"name":"pv-1"},
           "spec":{"nodeAffinity":{}}})",
       "pv.json: PersistentVolume pv-1: spec.nodeAffinity.required: expected "
       "a node selector, got none"},
      {"pv.yaml",
       "kind: PersistentVolume\nmetadata: {name: pv-1}\nspec:\n"
       "  nodeAffinity:\n    required:\n      nodeSelectorTerms: []\n",
       "pv.yaml: document 1: PersistentVolume pv-1: "
       "spec.nodeAffinity.required.nodeSelectorTerms: expected at least one "
       "term, got 0 (object at line 1)"},
      {"pv.json",
       R"({"kind":"PersistentVolume","metadata":{"name":"pv-1"},
           "spec":{"nodeAffinity":{"required":{"nodeSelectorTerms":[
             {"matchExpressions":[{"key":"zone","operator":"In",
                                   "values":["a"]}]},
             {"matchExpressions":[{"key":"zone","operator":"In",
                                   "values":["a"]},
                                  {"key":"size","operator":"Gte",
                                   "values":["3"]}]}]}}}})",
       "pv.json: PersistentVolume pv-1: "
       "spec.nodeAffinity.required.nodeSelectorTerms[1].matchExpressions[1]"
       ".operator: expected In, NotIn, Exists, DoesNotExist, Gt or Lt, got "
       "\"Gte\""},
      {"pv.json",
       R"({"kind":"PersistentVolume","metadata":{"name":"pv-1"},
           "spec":{"nodeAffinity":{"required":{"nodeSelectorTerms":[
             {"matchExpressions":[{"key":"-zone","operator":"In",
                                   "values":["a"]}]}]}}}})",
       "pv.json: PersistentVolume pv-1: "
       "spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0]"
       ".key: \"-zone\": name part must consist of alphanumeric characters, "
       "'-', '_' or '.', and must start and end with an alphanumeric "
       "character (e.g. 'MyName', 'my.name' or '123-abc')"},
      {"pv.json",
       R"({"kind":"PersistentVolume","metadata":{"name":"pv-1"},
           "spec":{"nodeAffinity":{"required":{"nodeSelectorTerms":[
             {"matchExpressions":[{"key":"zone","operator":"NotIn"}]}]}}}})",
       "pv.json: PersistentVolume pv-1: "
       "spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0]"
       ".values: expected at least one value for operator \"NotIn\", got 0"},
      {"pv.json",
       R"({"kind":"PersistentVolume","metadata":{"name":"pv-1"},
           "spec":{"nodeAffinity":{"required":{"nodeSelectorTerms":[
             {"matchExpressions":[{"key":"zone","operator":"Exists",
                                   "values":["a","b"]}]}]}}}})",
       "pv.json: PersistentVolume pv-1: "
       "spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0]"
       ".values: expected no values for operator \"Exists\", got 2"},
      {"pv.json",
       R"({"kind":"PersistentVolume","metadata":{"name":"pv-1"},
           "spec":{"nodeAffinity":{"required":{"nodeSelectorTerms":[
             {"matchExpressions":[{"key":"gpus","operator":"Gt",
                                   "values":["1","2"]}]}]}}}})",
       "pv.json: PersistentVolume pv-1: "
       "spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0]"
       ".values: expected exactly one value for operator \"Gt\", got 2"},
      {"pv.json",
       R"({"kind":"PersistentVolume","metadata":{"name":"pv-1"},
           "spec":{"nodeAffinity":{"required":{"nodeSelectorTerms":[
             {"matchFields":[{"key":"metadata.uid","operator":"In",
                              "values":["u"]}]}]}}}})",
       "pv.json: PersistentVolume pv-1: "
       "spec.nodeAffinity.required.nodeSelectorTerms[0].matchFields[0].key: "
       "expected \"metadata.name\", got \"metadata.uid\""},
      {"pv.json",
       R"({"kind":"PersistentVolume","metadata":{"name":"pv-1"},
           "spec":{"nodeAffinity":{"required":{"nodeSelectorTerms":[
             {"matchFields":[{"key":"metadata.name","operator":"Exists"}]}]}}}})",
       "pv.json: PersistentVolume pv-1: "
       "spec.nodeAffinity.required.nodeSelectorTerms[0].matchFields[0]"
       ".operator: expected In or NotIn, got \"Exists\""},
      {"pv.json",
       R"({"kind":"PersistentVolume","metadata":{"name":"pv-1"},
           "spec":{"nodeAffinity":{"required":{"nodeSelectorTerms":[
             {"matchFields":[{"key":"metadata.name","operator":"In",
                              "values":["n1","n2"]}]}]}}}})",
       "pv.json: PersistentVolume pv-1: "
       "spec.nodeAffinity.required.nodeSelectorTerms[0].matchFields[0]"
       ".values: expected exactly one value for operator \"In\", got 2"},
      // CSINode.
      {"csi.json",
       R"({"kind":"CSINode","metadata":{"name":"n1"},
           "spec":{"drivers":[{"name":"d","nodeID":"i-1"},
                              {"nodeID":"i-1"}]}})",
       "csi.json: CSINode n1: spec.drivers[1].name: expected a driver name, "
       "got \"\""},
      {"csi.json",
       R"({"kind":"CSINode","metadata":{"name":"n1"},
           "spec":{"drivers":[{"name":"ebs.csi.aws.com"},{"name":"efs"},
                              {"name":"ebs.csi.aws.com"}]}})",
       "csi.json: CSINode n1: spec.drivers[2].name: duplicate driver "
       "\"ebs.csi.aws.com\" (also spec.drivers[0])"},
      {"csi.yaml",
       "kind: CSINodeList\napiVersion: storage.k8s.io/v1\nitems:\n"
       "- metadata: {name: n1}\n  spec:\n    drivers:\n"
       "    - {name: ebs.csi.aws.com, allocatable: {count: -1}}\n",
       "csi.yaml: document 1: items[0] (CSINode n1): "
       "spec.drivers[0].allocatable.count: expected a non-negative integer, "
       "got -1 (object at line 4)"},
  });
}

TEST_CASE("snapshot storage: valid edge cases load", "[snapshot][storage]") {
  // What the API server accepts: NotIn-free empty terms, Gt/Lt with one
  // value of any text, DoesNotExist without values, topology terms without
  // expressions, a driver with allocatable count 0, a claimRef with only a
  // name.
  const ObjectSet set = MustLoad(R"({"kind": "List", "items": [
    {"kind": "PersistentVolume", "metadata": {"name": "pv"},
     "spec": {"claimRef": {"name": "c"},
              "nodeAffinity": {"required": {"nodeSelectorTerms": [
                {},
                {"matchExpressions": [
                   {"key": "a", "operator": "Gt", "values": ["-1"]},
                   {"key": "b", "operator": "Lt", "values": ["x"]},
                   {"key": "c", "operator": "DoesNotExist"},
                   {"key": "d", "operator": "NotIn", "values": [""]}],
                 "matchFields": [{"key": "metadata.name", "operator": "NotIn",
                                  "values": ["n"]}]}]}}}},
    {"kind": "StorageClass", "metadata": {"name": "sc"},
     "volumeBindingMode": "WaitForFirstConsumer",
     "allowedTopologies": [{}, {"matchLabelExpressions": []}]},
    {"kind": "CSINode", "metadata": {"name": "n"},
     "spec": {"drivers": [{"name": "d", "allocatable": {"count": 0}}]}},
    {"kind": "CSINode", "metadata": {"name": "empty"}}
  ]})");
  CHECK(set.persistent_volumes.size() == 1);
  CHECK(set.storage_classes.size() == 1);
  CHECK(set.csi_nodes.size() == 2);
}

TEST_CASE("snapshot storage: Append moves every new kind",
          "[snapshot][storage]") {
  ObjectSet a = MustLoad(R"({"kind": "List", "items": [
    {"kind": "PersistentVolume", "metadata": {"name": "pv-a"}},
    {"kind": "DaemonSet", "metadata": {"name": "ds-a"}}]})");
  ObjectSet b = MustLoad(R"({"kind": "List", "items": [
    {"kind": "PersistentVolume", "metadata": {"name": "pv-b"}},
    {"kind": "StorageClass", "metadata": {"name": "sc"}},
    {"kind": "CSINode", "metadata": {"name": "n"}},
    {"kind": "DaemonSet", "metadata": {"name": "ds-b"}}]})");
  a.Append(std::move(b));
  REQUIRE(a.persistent_volumes.size() == 2);
  CHECK(a.persistent_volumes[1].metadata().name() == "pv-b");
  CHECK(a.storage_classes.size() == 1);
  CHECK(a.csi_nodes.size() == 1);
  REQUIRE(a.daemon_sets.size() == 2);
  CHECK(a.daemon_sets[1].metadata().name() == "ds-b");
  CHECK(Empty(b));
}

// --- Snapshot.
// ----------------------------------------------------------------

using testing::MakeCSINode;
using testing::MakeDaemonSet;
using testing::MakePersistentVolume;
using testing::MakePersistentVolumeClaim;
using testing::MakeRequirement;
using testing::MakeStorageClass;

v1::PersistentVolume Pv(const std::string& name) {
  return MakePersistentVolume({.name = name});
}
v1::StorageClass Sc(const std::string& name) {
  return MakeStorageClass({.name = name});
}
v1::CSINode Csi(const std::string& name) { return MakeCSINode({.name = name}); }
v1::DaemonSet Ds(const std::string& ns, const std::string& name) {
  return MakeDaemonSet({.name = name, .ns = ns});
}

TEST_CASE("snapshot storage: lookups by name and namespace/name",
          "[snapshot][storage]") {
  ObjectSet set;
  set.persistent_volumes = {Pv("pv-a"), Pv("pv-b")};
  set.storage_classes = {Sc("gp3"), Sc("io2")};
  set.csi_nodes = {Csi("n1"), Csi("n0")};
  set.daemon_sets = {Ds("kube-system", "aws-node"), Ds("", "agent"),
                     Ds("monitoring", "agent")};
  // Cluster-scoped kinds ignore a namespace.
  set.persistent_volumes[1].mutable_metadata()->set_namespace_("x");
  const Snapshot s = kit_test::MustBuildSnapshot(std::move(set));
  REQUIRE(s.persistent_volumes().size() == 2);
  REQUIRE(s.storage_classes().size() == 2);
  REQUIRE(s.csi_nodes().size() == 2);
  REQUIRE(s.daemon_sets().size() == 3);
  CHECK(s.FindPersistentVolume("pv-b") ==
        std::optional<PersistentVolumeIndex>(1));
  CHECK_FALSE(s.FindPersistentVolume("pv-c").has_value());
  CHECK(s.FindStorageClass("io2") == std::optional<StorageClassIndex>(1));
  CHECK_FALSE(s.FindStorageClass("").has_value());
  CHECK(s.FindCSINode("n0") == std::optional<CSINodeIndex>(1));
  CHECK(s.csi_nodes()[*s.FindCSINode("n1")].metadata().name() == "n1");
  // An empty namespace is "default", as for claims.
  CHECK(s.daemon_sets()[1].metadata().namespace_() == "default");
  CHECK(s.FindDaemonSet("default", "agent") ==
        std::optional<DaemonSetIndex>(1));
  CHECK(s.FindDaemonSet("monitoring", "agent") ==
        std::optional<DaemonSetIndex>(2));
  CHECK(s.FindDaemonSet("kube-system", "aws-node") ==
        std::optional<DaemonSetIndex>(0));
  CHECK_FALSE(s.FindDaemonSet("", "agent").has_value());
  CHECK_FALSE(s.FindDaemonSet("kube-system", "agent").has_value());
  // DaemonSet namespaces are not Pod/PDB namespaces.
  CHECK(s.namespace_count() == 0);
  // No class is annotated default.
  CHECK_FALSE(s.DefaultStorageClass().has_value());
  // The empty snapshot answers every lookup.
  const Snapshot empty;
  CHECK(empty.persistent_volumes().empty());
  CHECK(empty.storage_classes().empty());
  CHECK(empty.csi_nodes().empty());
  CHECK(empty.daemon_sets().empty());
  CHECK_FALSE(empty.FindPersistentVolume("pv-a").has_value());
  CHECK_FALSE(empty.FindStorageClass("gp3").has_value());
  CHECK_FALSE(empty.FindCSINode("n1").has_value());
  CHECK_FALSE(empty.FindDaemonSet("default", "agent").has_value());
  CHECK_FALSE(empty.DefaultStorageClass().has_value());
}

TEST_CASE("snapshot storage: a loaded dump builds and indexes",
          "[snapshot][storage]") {
  ObjectSet set = MustLoadFile("storage-list.json");
  set.Append(MustLoadFile("persistentvolumes.yaml"));
  set.Append(MustLoadFile("daemonsets.yaml"));
  set.Append(MustLoadFile("pvc-list.yaml"));
  const Snapshot s = kit_test::MustBuildSnapshot(std::move(set));
  CHECK(s.persistent_volumes().size() == 3);
  CHECK(s.FindPersistentVolume("nfs-shared") ==
        std::optional<PersistentVolumeIndex>(2));
  CHECK(s.FindStorageClass("gp3") == std::optional<StorageClassIndex>(0));
  CHECK(s.DefaultStorageClass() == std::optional<StorageClassIndex>(0));
  CHECK(s.FindCSINode("ip-10-0-1-17.us-west-2.compute.internal") ==
        std::optional<CSINodeIndex>(0));
  CHECK(s.FindDaemonSet("kube-system", "kube-proxy") ==
        std::optional<DaemonSetIndex>(1));
  // The claim bound to the EBS volume names gp3; "scratch" asks for none.
  const auto data = s.FindPersistentVolumeClaim("db", "data-db-0");
  REQUIRE(data.has_value());
  CHECK(s.StorageClassOfClaim(*data) == std::optional<StorageClassIndex>(0));
  const auto pv = s.FindPersistentVolume(
      s.persistent_volume_claims()[*data].spec().volume_name());
  REQUIRE(pv.has_value());
  CHECK(s.persistent_volumes()[*pv].spec().claim_ref().name() == "data-db-0");
  const auto scratch = s.FindPersistentVolumeClaim("default", "scratch");
  REQUIRE(scratch.has_value());
  CHECK_FALSE(s.StorageClassOfClaim(*scratch).has_value());
}

TEST_CASE("snapshot storage: the default StorageClass is the newest default",
          "[snapshot][storage]") {
  const absl::Time t0 = testing::kTestEpoch;
  auto build = [](std::vector<v1::StorageClass> classes) {
    ObjectSet set;
    set.storage_classes = std::move(classes);
    return kit_test::MustBuildSnapshot(std::move(set));
  };
  auto name_of = [](const Snapshot& s) -> std::string {
    const auto d = s.DefaultStorageClass();
    return d ? s.storage_classes()[*d].metadata().name() : "none";
  };
  // Only "true", exactly, under either spelling, makes a default.
  v1::StorageClass beta = MakeStorageClass({.name = "beta"});
  (*beta.mutable_metadata()->mutable_annotations())
      ["storageclass.beta.kubernetes.io/is-default-class"] = "true";
  v1::StorageClass yes = MakeStorageClass({.name = "yes"});
  (*yes.mutable_metadata()->mutable_annotations())
      ["storageclass.kubernetes.io/is-default-class"] = "True";
  CHECK(name_of(build({Sc("a"), yes})) == "none");
  CHECK(name_of(build({Sc("a"), beta})) == "beta");
  // The newest wins, whatever the input order.
  for (const bool reversed : {false, true}) {
    std::vector<v1::StorageClass> classes = {
        MakeStorageClass({.name = "old", .is_default = true, .created = t0}),
        MakeStorageClass({.name = "plain", .created = t0 + absl::Hours(2)}),
        MakeStorageClass({.name = "new",
                          .is_default = true,
                          .created = t0 + absl::Hours(1)}),
        MakeStorageClass({.name = "undated", .is_default = true})};
    if (reversed) std::reverse(classes.begin(), classes.end());
    INFO(reversed);
    CHECK(name_of(build(std::move(classes))) == "new");
  }
  // Equal timestamps: the smaller name; nanoseconds count.
  CHECK(name_of(build(
            {MakeStorageClass({.name = "b", .is_default = true, .created = t0}),
             MakeStorageClass(
                 {.name = "a", .is_default = true, .created = t0})})) == "a");
  CHECK(name_of(build(
            {MakeStorageClass({.name = "a", .is_default = true, .created = t0}),
             MakeStorageClass({.name = "b",
                               .is_default = true,
                               .created = t0 + absl::Nanoseconds(1)})})) ==
        "b");
  // Without timestamps, by name.
  CHECK(name_of(build({MakeStorageClass({.name = "y", .is_default = true}),
                       MakeStorageClass({.name = "x", .is_default = true})})) ==
        "x");
}

TEST_CASE("snapshot storage: the class a claim uses", "[snapshot][storage]") {
  ObjectSet set;
  set.storage_classes = {Sc("io2"),
                         MakeStorageClass({.name = "gp3", .is_default = true})};
  set.persistent_volume_claims = {
      MakePersistentVolumeClaim({.name = "unset"}),
      MakePersistentVolumeClaim({.name = "none", .storage_class = ""}),
      MakePersistentVolumeClaim({.name = "io2", .storage_class = "io2"}),
      MakePersistentVolumeClaim({.name = "gone", .storage_class = "gp2"}),
      MakePersistentVolumeClaim({.name = "bound", .volume_name = "pv-1"}),
      MakePersistentVolumeClaim(
          {.name = "gp3", .volume_name = "pv-2", .storage_class = "gp3"})};
  const Snapshot s = kit_test::MustBuildSnapshot(std::move(set));
  CHECK(s.DefaultStorageClass() == std::optional<StorageClassIndex>(1));
  CHECK(s.StorageClassOfClaim(0) == std::optional<StorageClassIndex>(1));
  CHECK_FALSE(s.StorageClassOfClaim(1).has_value());
  CHECK(s.StorageClassOfClaim(2) == std::optional<StorageClassIndex>(0));
  CHECK_FALSE(s.StorageClassOfClaim(3).has_value());
  // A bound claim without a class keeps none; one with a class keeps it.
  CHECK_FALSE(s.StorageClassOfClaim(4).has_value());
  CHECK(s.StorageClassOfClaim(5) == std::optional<StorageClassIndex>(1));
  // Without a default class an unset name resolves to nothing.
  ObjectSet plain;
  plain.storage_classes = {Sc("gp3")};
  plain.persistent_volume_claims = {MakePersistentVolumeClaim()};
  const Snapshot p = kit_test::MustBuildSnapshot(std::move(plain));
  CHECK_FALSE(p.StorageClassOfClaim(0).has_value());
}

struct BuildCase {
  const char* name;
  ObjectSet set;
  std::string message;
};

void CheckBuildErrors(std::vector<BuildCase>& cases) {
  for (BuildCase& c : cases) {
    INFO(c.name);
    const absl::StatusOr<Snapshot> s = Snapshot::Build(std::move(c.set));
    CHECK(s.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(s.status().message() == c.message);
  }
}

TEST_CASE("snapshot storage: duplicate and empty names are rejected",
          "[snapshot][storage]") {
  std::vector<BuildCase> cases;
  {
    ObjectSet set;
    set.persistent_volumes = {Pv("a"), Pv("b"), Pv("a")};
    set.persistent_volumes[2].mutable_metadata()->set_namespace_("x");
    cases.push_back({"volumes", std::move(set),
                     "duplicate PersistentVolume \"a\": persistent_volumes[0] "
                     "and persistent_volumes[2]"});
  }
  {
    ObjectSet set;
    set.persistent_volumes = {Pv("a"), Pv("")};
    cases.push_back({"unnamed volume", std::move(set),
                     "persistent_volumes[1] (unnamed PersistentVolume): "
                     "metadata.name is empty"});
  }
  {
    ObjectSet set;
    set.storage_classes = {Sc("gp3"), Sc("gp3")};
    cases.push_back({"classes", std::move(set),
                     "duplicate StorageClass \"gp3\": storage_classes[0] and "
                     "storage_classes[1]"});
  }
  {
    ObjectSet set;
    set.storage_classes = {Sc("")};
    cases.push_back(
        {"unnamed class", std::move(set),
         "storage_classes[0] (unnamed StorageClass): metadata.name is empty"});
  }
  {
    ObjectSet set;
    set.csi_nodes = {Csi("n0"), Csi("n1"), Csi("n2"), Csi("n1")};
    cases.push_back(
        {"CSINodes", std::move(set),
         "duplicate CSINode \"n1\": csi_nodes[1] and csi_nodes[3]"});
  }
  {
    ObjectSet set;
    set.csi_nodes = {Csi("n0"), Csi("n1"), Csi("")};
    cases.push_back({"unnamed CSINode", std::move(set),
                     "csi_nodes[2] (unnamed CSINode): metadata.name is empty"});
  }
  {
    ObjectSet set;
    set.daemon_sets = {Ds("a", "x"), Ds("b", "x"), Ds("b", "x")};
    cases.push_back({"DaemonSets", std::move(set),
                     "duplicate DaemonSet \"b/x\": daemon_sets[1] and "
                     "daemon_sets[2]"});
  }
  {
    ObjectSet set;
    set.daemon_sets = {Ds("", "x"), Ds("default", "x")};
    cases.push_back({"defaulted DaemonSets", std::move(set),
                     "duplicate DaemonSet \"default/x\": daemon_sets[0] and "
                     "daemon_sets[1]"});
  }
  {
    ObjectSet set;
    set.daemon_sets = {Ds("kube-system", "")};
    cases.push_back(
        {"unnamed DaemonSet", std::move(set),
         "daemon_sets[0] (unnamed DaemonSet): metadata.name is empty"});
  }
  CheckBuildErrors(cases);
}

TEST_CASE("snapshot storage: Build applies the API server's validation",
          "[snapshot][storage]") {
  std::vector<BuildCase> cases;
  {
    ObjectSet set;
    set.storage_classes = {
        Sc("gp3"),
        MakeStorageClass({.name = "fast", .volume_binding_mode = "Later"})};
    cases.push_back({"binding mode", std::move(set),
                     "storage_classes[1] (StorageClass fast): "
                     "volumeBindingMode: expected \"Immediate\" or "
                     "\"WaitForFirstConsumer\", got \"Later\""});
  }
  {
    ObjectSet set;
    set.storage_classes = {MakeStorageClass(
        {.name = "zonal",
         .allowed_topologies = {{"topology.kubernetes.io/zone", {}}}})};
    cases.push_back({"topology values", std::move(set),
                     "storage_classes[0] (StorageClass zonal): "
                     "allowedTopologies[0].matchLabelExpressions[0].values: "
                     "expected at least one value for key "
                     "\"topology.kubernetes.io/zone\", got 0"});
  }
  {
    ObjectSet set;
    set.storage_classes = {MakeStorageClass(
        {.name = "zonal", .allowed_topologies = {{"", {"a"}}}})};
    cases.push_back({"topology key", std::move(set),
                     "storage_classes[0] (StorageClass zonal): "
                     "allowedTopologies[0].matchLabelExpressions[0].key: \"\": "
                     "name part must be non-empty"});
  }
  {
    ObjectSet set;
    set.persistent_volumes = {
        Pv("ok"), MakePersistentVolume({.name = "pv-1", .claim = "c"})};
    set.persistent_volumes[1].mutable_spec()->mutable_claim_ref()->clear_name();
    cases.push_back(
        {"claimRef", std::move(set),
         "persistent_volumes[1] (PersistentVolume pv-1): "
         "spec.claimRef.name: expected the claim's name, got \"\""});
  }
  {
    ObjectSet set;
    set.persistent_volumes = {MakePersistentVolume(
        {.name = "pv-1",
         .node_affinity = {MakeRequirement("zone", "In", {"a"}),
                           MakeRequirement("size", "Lte", {"3"})}})};
    cases.push_back({"operator", std::move(set),
                     "persistent_volumes[0] (PersistentVolume pv-1): "
                     "spec.nodeAffinity.required.nodeSelectorTerms[0]"
                     ".matchExpressions[1].operator: expected In, NotIn, "
                     "Exists, DoesNotExist, Gt or Lt, got \"Lte\""});
  }
  {
    ObjectSet set;
    set.persistent_volumes = {MakePersistentVolume(
        {.name = "pv-1",
         .node_affinity = {MakeRequirement("zone", "DoesNotExist", {"a"})}})};
    cases.push_back({"values", std::move(set),
                     "persistent_volumes[0] (PersistentVolume pv-1): "
                     "spec.nodeAffinity.required.nodeSelectorTerms[0]"
                     ".matchExpressions[0].values: expected no values for "
                     "operator \"DoesNotExist\", got 1"});
  }
  {
    ObjectSet set;
    set.persistent_volumes = {Pv("pv-1")};
    set.persistent_volumes[0].mutable_spec()->mutable_node_affinity();
    cases.push_back({"no required", std::move(set),
                     "persistent_volumes[0] (PersistentVolume pv-1): "
                     "spec.nodeAffinity.required: expected a node selector, "
                     "got none"});
  }
  {
    ObjectSet set;
    set.csi_nodes = {MakeCSINode({.name = "n1", .allocatable = -3})};
    cases.push_back({"allocatable", std::move(set),
                     "csi_nodes[0] (CSINode n1): "
                     "spec.drivers[0].allocatable.count: expected a "
                     "non-negative integer, got -3"});
  }
  {
    ObjectSet set;
    set.csi_nodes = {Csi("n0"), Csi("n1")};
    *set.csi_nodes[1].mutable_spec()->add_drivers() =
        set.csi_nodes[1].spec().drivers(0);
    cases.push_back({"drivers", std::move(set),
                     "csi_nodes[1] (CSINode n1): spec.drivers[1].name: "
                     "duplicate driver \"ebs.csi.aws.com\" (also "
                     "spec.drivers[0])"});
  }
  {
    ObjectSet set;
    set.csi_nodes = {MakeCSINode({.name = "n1"})};
    set.csi_nodes[0].mutable_spec()->mutable_drivers(0)->clear_name();
    cases.push_back({"driver name", std::move(set),
                     "csi_nodes[0] (CSINode n1): spec.drivers[0].name: "
                     "expected a driver name, got \"\""});
  }
  CheckBuildErrors(cases);
}

TEST_CASE("snapshot storage: SnapshotBuilder moves the new kinds through",
          "[snapshot][storage]") {
  SnapshotBuilder builder;
  builder.AddPod(testing::MakePod({.name = "agent-x",
                                   .ns = "kube-system",
                                   .node = "n1",
                                   .owner = "DaemonSet",
                                   .owner_name = "agent"}));
  ObjectSet& objects = builder.objects();
  objects.nodes = {testing::MakeNode({.name = "n1"})};
  objects.persistent_volumes = {MakePersistentVolume(
      {.name = "pv-1",
       .claim = "data",
       .node_affinity = {MakeRequirement("topology.kubernetes.io/zone", "In",
                                         {"us-west-2a"})}})};
  objects.storage_classes = {MakeStorageClass({.is_default = true})};
  objects.csi_nodes = {MakeCSINode({.name = "n1", .allocatable = 39})};
  objects.daemon_sets = {MakeDaemonSet({.cpu = "50m"})};
  absl::StatusOr<Snapshot> built = std::move(builder).Build();
  INFO(built.status().ToString());
  REQUIRE(built.ok());
  const Snapshot& s = *built;
  CHECK(s.pod_count() == 1);
  REQUIRE(s.FindPersistentVolume("pv-1").has_value());
  CHECK(s.persistent_volumes()[0].spec().claim_ref().name() == "data");
  CHECK(s.DefaultStorageClass() == std::optional<StorageClassIndex>(0));
  REQUIRE(s.FindCSINode("n1").has_value());
  CHECK(s.csi_nodes()[*s.FindCSINode("n1")]
            .spec()
            .drivers(0)
            .allocatable()
            .count() == 39);
  const auto ds = s.FindDaemonSet("kube-system", "agent");
  REQUIRE(ds.has_value());
  CHECK(s.daemon_sets()[*ds]
            .spec()
            .template_()
            .spec()
            .containers(0)
            .resources()
            .requests()
            .at("cpu") == "50m");
  // The builder is left empty, and a second build is an empty snapshot.
  CHECK(builder.objects().persistent_volumes.empty());
  CHECK(builder.objects().daemon_sets.empty());
  absl::StatusOr<Snapshot> again = std::move(builder).Build();
  REQUIRE(again.ok());
  CHECK(again->storage_classes().empty());
  CHECK(again->csi_nodes().empty());
  CHECK_FALSE(again->DefaultStorageClass().has_value());

  // Build errors come through the builder too.
  SnapshotBuilder bad;
  bad.objects().storage_classes = {
      MakeStorageClass({.name = "x", .volume_binding_mode = "immediate"})};
  const absl::StatusOr<Snapshot> rejected = std::move(bad).Build();
  CHECK(rejected.status().message() ==
        "storage_classes[0] (StorageClass x): volumeBindingMode: expected "
        "\"Immediate\" or \"WaitForFirstConsumer\", got \"immediate\"");
}

}  // namespace
}  // namespace karpenter::snapshot
