// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// PersistentVolumes, StorageClasses, CSINodes and DaemonSets: loading (kubectl
// JSON and YAML, typed lists, versions) and the API server's validation the
// loaders apply.

#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/message_differencer.h"
#include "karpenter/snapshot/load.h"

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
       "'my.name' or '123-abc')"},
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
       "term, got 0"},
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
       "got -1"},
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

}  // namespace
}  // namespace karpenter::snapshot
