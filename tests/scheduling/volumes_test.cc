// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The volume predicates (karpenter/scheduling/volumes.h): VolumeIndex,
// ResolvePodVolumes and the VolumeZone, VolumeBinding and NodeVolumeLimits
// filters, as table tests over one small cluster written as text-format
// protos. Expected messages are kube-scheduler's (volume_zone.go,
// volume_binding.go + binder.go, nodevolumelimits/csi.go).

#include "karpenter/scheduling/volumes.h"

#include <catch2/catch.hpp>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "google/protobuf/text_format.h"
#include "karpenter/scheduling/filter_status.h"
#include "karpenter/testing/builders.h"
#include "karpenter/v1/core.pb.h"
#include "karpenter/v1/storage.pb.h"

namespace karpenter::scheduling {
namespace {

template <typename T>
T Parse(const std::string& text) {
  T out;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(text, &out));
  return out;
}

template <typename T>
std::vector<T> ParseAll(const std::vector<std::string>& texts) {
  std::vector<T> out;
  for (const std::string& t : texts) out.push_back(Parse<T>(t));
  return out;
}

constexpr char kEbs[] = "ebs.csi.aws.com";

// Kubernetes' reasons, spelled out here independently of volumes.cc.
constexpr char kZoneConflict[] = "node(s) had no available volume zone";
constexpr char kNodeConflict[] = "node(s) had volume node affinity conflict";
constexpr char kBindConflict[] =
    "node(s) didn't find available persistent volumes to bind";
constexpr char kPvNotExist[] =
    "node(s) unavailable due to one or more pvc(s) bound to non-existent "
    "pv(s)";
constexpr char kUnboundImmediate[] =
    "pod has unbound immediate PersistentVolumeClaims";
constexpr char kMaxVolumeCount[] = "node(s) exceed max volume count";

// The cluster every case reads. Members are filled before the index is
// built and never resized after: the index points into them.
struct Cluster {
  std::vector<v1::PersistentVolumeClaim> claims = ParseAll<
      v1::PersistentVolumeClaim>({
      // Bound claims.
      R"(metadata { name: "bound-zonal" namespace: "default" }
         spec { volume_name: "pv-zonal" storage_class_name: "immediate" })",
      R"(metadata { name: "bound-multi" namespace: "default" }
         spec { volume_name: "pv-multi" })",
      R"(metadata { name: "bound-beta" namespace: "default" }
         spec { volume_name: "pv-beta" })",
      R"(metadata { name: "bound-badzone" namespace: "default" }
         spec { volume_name: "pv-bad-zone" })",
      R"(metadata { name: "bound-affinity" namespace: "default" }
         spec { volume_name: "pv-affinity" })",
      R"(metadata { name: "bound-missing" namespace: "default" }
         spec { volume_name: "pv-gone" storage_class_name: "immediate" })",
      R"(metadata { name: "bound-plain" namespace: "default" }
         spec { volume_name: "pv-plain" })",
      R"(metadata { name: "bound-other" namespace: "default" }
         spec { volume_name: "pv-other" })",
      // Unbound claims.
      R"(metadata { name: "wffc-topo" namespace: "default" }
         spec { storage_class_name: "gp3-zonal" })",
      R"(metadata { name: "wffc-any" namespace: "default" }
         spec { storage_class_name: "gp3" })",
      R"(metadata { name: "wffc-local" namespace: "default" }
         spec { storage_class_name: "local" })",
      R"(metadata { name: "wffc-selected" namespace: "default"
                    annotations { key: "volume.kubernetes.io/selected-node"
                                  value: "node-b" } }
         spec { storage_class_name: "gp3" })",
      R"(metadata { name: "immediate-unbound" namespace: "default" }
         spec { storage_class_name: "immediate" })",
      R"(metadata { name: "no-class" namespace: "default" }
         spec { storage_class_name: "" })",
      R"(metadata { name: "missing-class" namespace: "default" }
         spec { storage_class_name: "gold" })",
      R"(metadata { name: "default-class" namespace: "default" })",
      R"(metadata { name: "beta-annotated" namespace: "default"
                    annotations { key: "volume.beta.kubernetes.io/storage-class"
                                  value: "gp3" } }
         spec { storage_class_name: "immediate" })",
      R"(metadata { name: "prebound" namespace: "default" uid: "uid-prebound" }
         spec { storage_class_name: "local" })",
      // Claims kube-scheduler refuses outright.
      R"(metadata { name: "lost" namespace: "default" }
         spec { volume_name: "pv-zonal" } status { phase: "Lost" })",
      R"(metadata { name: "deleting" namespace: "default"
                    deletion_timestamp { seconds: 1700000000 } }
         spec { volume_name: "pv-zonal" })",
      // Generic ephemeral volumes of pod web-0 (uid "uid-web-0").
      R"(metadata { name: "web-0-scratch" namespace: "default"
                    owner_references { kind: "Pod" name: "web-0"
                                       uid: "uid-web-0" controller: true } }
         spec { storage_class_name: "gp3" })",
      R"(metadata { name: "web-0-foreign" namespace: "default"
                    owner_references { kind: "Pod" name: "web-9"
                                       uid: "uid-web-9" controller: true } }
         spec { storage_class_name: "gp3" })",
      // Another namespace; an empty namespace reads as "default".
      R"(metadata { name: "only-other" namespace: "other" }
         spec { volume_name: "pv-zonal" })",
      R"(metadata { name: "no-namespace" }
         spec { volume_name: "pv-zonal" })",
  });

  std::vector<v1::PersistentVolume> volumes = ParseAll<v1::PersistentVolume>({
      R"(metadata { name: "pv-zonal"
                    labels { key: "topology.kubernetes.io/zone" value: "us-1a" }
                    labels { key: "topology.kubernetes.io/region"
                             value: "us-1" } }
         spec { csi { driver: "ebs.csi.aws.com" volume_handle: "vol-1" } })",
      R"(metadata { name: "pv-multi"
                    labels { key: "topology.kubernetes.io/zone"
                             value: "us-1b__ us-1a__us-1b" } }
         spec { csi { driver: "ebs.csi.aws.com" volume_handle: "vol-2" } })",
      R"(metadata { name: "pv-beta"
                    labels { key: "failure-domain.beta.kubernetes.io/zone"
                             value: "us-1c" } }
         spec { csi { driver: "ebs.csi.aws.com" volume_handle: "vol-3" } })",
      R"(metadata { name: "pv-bad-zone"
                    labels { key: "topology.kubernetes.io/zone"
                             value: "us-1a____us-1b" } })",
      R"(metadata { name: "pv-affinity" }
         spec { node_affinity { required { node_selector_terms {
                  match_expressions { key: "topology.kubernetes.io/zone"
                                      operator: "In" values: "us-1a" } } } }
                csi { driver: "ebs.csi.aws.com" volume_handle: "vol-4" } })",
      R"(metadata { name: "pv-plain" })",
      R"(metadata { name: "pv-other" }
         spec { csi { driver: "other.csi.example.com" volume_handle: "o-1" } })",
      // Volumes claiming "prebound": the first two are not candidates (uid,
      // class), the third is, the fourth comes too late.
      R"(metadata { name: "pv-prebound-uid" }
         spec { claim_ref { namespace: "default" name: "prebound" uid: "zzz" }
                storage_class_name: "local" })",
      R"(metadata { name: "pv-prebound-class" }
         spec { claim_ref { namespace: "default" name: "prebound" }
                storage_class_name: "gp3" })",
      R"(metadata { name: "pv-prebound" }
         spec { claim_ref { namespace: "default" name: "prebound"
                            uid: "uid-prebound" }
                storage_class_name: "local"
                node_affinity { required { node_selector_terms {
                  match_expressions { key: "kubernetes.io/hostname"
                                      operator: "In" values: "node-b" } } } } })",
      R"(metadata { name: "pv-prebound-late" }
         spec { claim_ref { name: "prebound" } storage_class_name: "local" })",
  });

  std::vector<v1::StorageClass> classes = ParseAll<v1::StorageClass>({
      R"(metadata { name: "gp3-zonal" } provisioner: "ebs.csi.aws.com"
         volume_binding_mode: "WaitForFirstConsumer"
         allowed_topologies { match_label_expressions {
           key: "topology.kubernetes.io/zone" values: "us-1a"
           values: "us-1b" } })",
      R"(metadata { name: "gp3" } provisioner: "ebs.csi.aws.com"
         volume_binding_mode: "WaitForFirstConsumer")",
      R"(metadata { name: "local" } provisioner: "kubernetes.io/no-provisioner"
         volume_binding_mode: "WaitForFirstConsumer")",
      R"(metadata { name: "immediate" } provisioner: "ebs.csi.aws.com"
         volume_binding_mode: "Immediate")",
      // Defaults: the newest annotated "true" wins; "false" is no default.
      R"(metadata { name: "old-default"
                    creation_timestamp { seconds: 1600000000 }
                    annotations {
                      key: "storageclass.kubernetes.io/is-default-class"
                      value: "true" } }
         provisioner: "ebs.csi.aws.com")",
      R"(metadata { name: "new-default"
                    creation_timestamp { seconds: 1650000000 }
                    annotations {
                      key: "storageclass.beta.kubernetes.io/is-default-class"
                      value: "true" } }
         provisioner: "ebs.csi.aws.com"
         volume_binding_mode: "WaitForFirstConsumer")",
      R"(metadata { name: "not-default"
                    creation_timestamp { seconds: 1690000000 }
                    annotations {
                      key: "storageclass.kubernetes.io/is-default-class"
                      value: "false" } }
         provisioner: "ebs.csi.aws.com")",
  });

  std::vector<v1::CSINode> csi_nodes = ParseAll<v1::CSINode>({
      R"(metadata { name: "node-a" }
         spec { drivers { name: "ebs.csi.aws.com" allocatable { count: 2 } }
                drivers { name: "other.csi.example.com" } })",
      R"(metadata { name: "node-zero" }
         spec { drivers { name: "ebs.csi.aws.com" allocatable { count: 0 } } })",
  });

  std::optional<VolumeIndex> index;

  void Build() {
    absl::StatusOr<VolumeIndex> built =
        VolumeIndex::Build(claims, volumes, classes, csi_nodes);
    REQUIRE(built.ok());
    index.emplace(*std::move(built));
  }
};

v1::Node MakeNode(const std::string& name,
                  const std::map<std::string, std::string>& labels) {
  return testing::MakeNode(
      {.name = name, .nodepool = "", .initialized = false, .labels = labels});
}

constexpr char kZone[] = "topology.kubernetes.io/zone";
constexpr char kRegion[] = "topology.kubernetes.io/region";
constexpr char kBetaZone[] = "failure-domain.beta.kubernetes.io/zone";
constexpr char kBetaRegion[] = "failure-domain.beta.kubernetes.io/region";

v1::Node NodeNamed(const std::string& name) {
  if (name == "node-a") {
    return MakeNode(name, {{kZone, "us-1a"},
                           {kRegion, "us-1"},
                           {"kubernetes.io/hostname", "node-a"}});
  }
  if (name == "node-b") {
    return MakeNode(name, {{kZone, "us-1b"},
                           {kRegion, "us-1"},
                           {"kubernetes.io/hostname", "node-b"}});
  }
  if (name == "node-c") return MakeNode(name, {{kZone, "us-1c"}});
  if (name == "node-c-beta") {
    return MakeNode(name, {{kBetaZone, "us-1c"}, {kBetaRegion, "us-1"}});
  }
  if (name == "node-a-beta") {
    return MakeNode(name, {{kBetaZone, "us-1a"}, {kBetaRegion, "us-1"}});
  }
  if (name == "node-a-r2") {
    return MakeNode(name, {{kZone, "us-1a"}, {kRegion, "us-2"}});
  }
  if (name == "region-only") return MakeNode(name, {{kRegion, "us-1"}});
  REQUIRE(name == "bare");
  return MakeNode(name, {{"kubernetes.io/hostname", "bare"}});
}

// Pod web-0 (uid "uid-web-0") in "default" with a persistentVolumeClaim
// volume per claim and an ephemeral volume per name.
v1::Pod WebPod(const std::vector<std::string>& claims,
               const std::vector<std::string>& ephemerals = {}) {
  return testing::MakePod({.name = "web-0",
                           .ns = "default",
                           .uid = "uid-web-0",
                           .app = "web",
                           .node = "",
                           .pvcs = claims,
                           .ephemeral_volumes = ephemerals});
}

PodVolumes Resolve(const Cluster& c, const v1::Pod& pod) {
  absl::StatusOr<PodVolumes> out = ResolvePodVolumes(pod, *c.index);
  REQUIRE(out.ok());
  return *std::move(out);
}

// --- VolumeIndex. ------------------------------------------------------------

TEST_CASE("VolumeIndex::Build rejects empty and duplicate names",
          "[scheduling][volumes]") {
  using Claims = std::vector<v1::PersistentVolumeClaim>;
  using Pvs = std::vector<v1::PersistentVolume>;
  using Classes = std::vector<v1::StorageClass>;
  using CsiNodes = std::vector<v1::CSINode>;
  struct Row {
    const char* what;
    Claims claims;
    Pvs pvs;
    Classes classes;
    CsiNodes csi_nodes;
    const char* want;
  };
  const Row rows[] = {
      {"claim without a name",
       ParseAll<v1::PersistentVolumeClaim>(
           {R"(metadata { name: "a" })", R"(metadata { namespace: "x" })"}),
       {},
       {},
       {},
       "persistentVolumeClaims[1]: metadata.name is empty"},
      {"claims equal once the empty namespace reads as default",
       ParseAll<v1::PersistentVolumeClaim>(
           {R"(metadata { name: "a" namespace: "default" })",
            R"(metadata { name: "b" namespace: "default" })",
            R"(metadata { name: "a" })"}),
       {},
       {},
       {},
       "persistentVolumeClaims[2]: metadata.name: duplicate \"default/a\" "
       "(first at persistentVolumeClaims[0])"},
      {"duplicate volume",
       {},
       ParseAll<v1::PersistentVolume>(
           {R"(metadata { name: "pv" })", R"(metadata { name: "pv" })"}),
       {},
       {},
       "persistentVolumes[1]: metadata.name: duplicate \"pv\" (first at "
       "persistentVolumes[0])"},
      {"class without a name",
       {},
       {},
       ParseAll<v1::StorageClass>({R"(provisioner: "x")"}),
       {},
       "storageClasses[0]: metadata.name is empty"},
      {"duplicate CSINode",
       {},
       {},
       {},
       ParseAll<v1::CSINode>({R"(metadata { name: "n" })",
                              R"(metadata { name: "m" })",
                              R"(metadata { name: "n" })"}),
       "csiNodes[2]: metadata.name: duplicate \"n\" (first at csiNodes[0])"},
  };
  for (const Row& row : rows) {
    INFO(row.what);
    const absl::StatusOr<VolumeIndex> index =
        VolumeIndex::Build(row.claims, row.pvs, row.classes, row.csi_nodes);
    REQUIRE_FALSE(index.ok());
    CHECK(index.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(index.status().message() == row.want);
  }
  // The same claim name in two namespaces is no duplicate.
  const Claims two = ParseAll<v1::PersistentVolumeClaim>(
      {R"(metadata { name: "a" namespace: "x" })",
       R"(metadata { name: "a" namespace: "y" })"});
  CHECK(VolumeIndex::Build(two, {}, {}, {}).ok());
}

TEST_CASE("VolumeIndex: lookups and the default StorageClass",
          "[scheduling][volumes]") {
  Cluster c;
  c.Build();
  const VolumeIndex& index = *c.index;
  CHECK(index.FindClaim("default", "bound-zonal") == &c.claims[0]);
  CHECK(index.FindClaim("", "bound-zonal") == &c.claims[0]);
  CHECK(index.FindClaim("default", "no-namespace") != nullptr);
  CHECK(index.FindClaim("default", "only-other") == nullptr);
  CHECK(index.FindClaim("other", "only-other") != nullptr);
  CHECK(index.FindVolume("pv-beta") == &c.volumes[2]);
  CHECK(index.FindVolume("pv-gone") == nullptr);
  CHECK(index.FindStorageClass("gp3") == &c.classes[1]);
  CHECK(index.FindCSINode("node-zero") == &c.csi_nodes[1]);
  CHECK(index.FindCSINode("node-b") == nullptr);
  // Newest of the "true" ones (beta annotation counts), not "false".
  REQUIRE(index.default_storage_class() != nullptr);
  CHECK(index.default_storage_class()->metadata().name() == "new-default");

  SECTION("equal creation times: the first name wins") {
    const auto classes = ParseAll<v1::StorageClass>({
        R"(metadata { name: "zeta" creation_timestamp { seconds: 5 }
             annotations { key: "storageclass.kubernetes.io/is-default-class"
                           value: "true" } })",
        R"(metadata { name: "alpha" creation_timestamp { seconds: 5 }
             annotations { key: "storageclass.kubernetes.io/is-default-class"
                           value: "true" } })",
    });
    const absl::StatusOr<VolumeIndex> tie =
        VolumeIndex::Build({}, {}, classes, {});
    REQUIRE(tie.ok());
    REQUIRE(tie->default_storage_class() != nullptr);
    CHECK(tie->default_storage_class()->metadata().name() == "alpha");
  }
  SECTION("no class annotated true: no default") {
    const absl::StatusOr<VolumeIndex> none =
        VolumeIndex::Build({}, {}, {c.classes[6], c.classes[1]}, {});
    REQUIRE(none.ok());
    CHECK(none->default_storage_class() == nullptr);
  }
  SECTION("VolumesClaiming: name, namespace, and uid when set") {
    const v1::PersistentVolumeClaim* claim =
        index.FindClaim("default", "prebound");
    REQUIRE(claim != nullptr);
    std::vector<std::string> names;
    for (const v1::PersistentVolume* pv : index.VolumesClaiming(*claim)) {
      names.push_back(pv->metadata().name());
    }
    CHECK(names == std::vector<std::string>{"pv-prebound-class", "pv-prebound",
                                            "pv-prebound-late"});
  }
}

// --- ResolvePodVolumes. ------------------------------------------------------

TEST_CASE("ResolvePodVolumes: claims, classes, volumes, topology, CSI ids",
          "[scheduling][volumes]") {
  Cluster c;
  c.Build();
  v1::Pod pod =
      WebPod({"bound-zonal", "bound-multi", "bound-beta", "bound-badzone",
              "default-class", "beta-annotated", "no-class", "prebound",
              "bound-missing", "bound-plain", "wffc-any", "bound-zonal"},
             {"scratch", "foreign", "ghost"});
  // A volume without a claim is left out.
  pod.mutable_spec()->add_volumes()->set_name("config");
  const PodVolumes pv = Resolve(c, pod);
  CHECK(pv.pod_namespace == "default");
  CHECK(pv.pod_name == "web-0");
  REQUIRE(pv.volumes.size() == 15);
  const auto at = [&](size_t i) -> const PodVolume& { return pv.volumes[i]; };

  SECTION("a bound zonal CSI volume") {
    const PodVolume& v = at(0);
    CHECK(v.name == "vol-bound-zonal");
    CHECK_FALSE(v.ephemeral);
    CHECK(v.claim_name == "bound-zonal");
    CHECK(v.claim == &c.claims[0]);
    CHECK(v.class_name == "immediate");
    CHECK(v.volume == &c.volumes[0]);
    CHECK(v.prebound_volume == nullptr);
    CHECK(v.topology ==
          std::vector<VolumeTopology>{{kZone, {"us-1a"}}, {kRegion, {"us-1"}}});
    REQUIRE(v.csi.has_value());
    CHECK(*v.csi == CsiVolumeId{kEbs, "vol-1", false});
  }
  SECTION("zone sets: \"__\"-separated, trimmed, unique; empty parts void") {
    CHECK(at(1).topology ==
          std::vector<VolumeTopology>{{kZone, {"us-1a", "us-1b"}}});
    CHECK(at(2).topology ==
          std::vector<VolumeTopology>{{kBetaZone, {"us-1c"}}});
    CHECK(at(3).topology.empty());
  }
  SECTION("classes: default, beta annotation first, explicit empty") {
    CHECK(at(4).class_name == "new-default");
    CHECK(at(4).storage_class == &c.classes[5]);
    CHECK(at(4).wait_for_first_consumer);
    CHECK(at(5).class_name == "gp3");
    CHECK(at(5).wait_for_first_consumer);
    CHECK(at(6).class_name.empty());
    CHECK(at(6).storage_class == nullptr);
    CHECK_FALSE(at(6).wait_for_first_consumer);
    CHECK_FALSE(at(6).csi.has_value());
  }
  SECTION("a pre-bound volume: uid and class must match; first one wins") {
    REQUIRE(at(7).prebound_volume != nullptr);
    CHECK(at(7).prebound_volume->metadata().name() == "pv-prebound");
    CHECK(at(7).volume == nullptr);
  }
  SECTION("CSI ids: missing volume falls back to the class; non-CSI none") {
    CHECK(at(8).volume == nullptr);
    REQUIRE(at(8).csi.has_value());
    CHECK(*at(8).csi == CsiVolumeId{kEbs, "default/bound-missing", true});
    CHECK(at(9).volume == &c.volumes[5]);
    CHECK_FALSE(at(9).csi.has_value());
    REQUIRE(at(10).csi.has_value());
    CHECK(*at(10).csi == CsiVolumeId{kEbs, "default/wffc-any", true});
    // Distinct, in first-use order: the second bound-zonal is not repeated.
    // A class's provisioner counts even when it provisions nothing.
    CHECK(pv.csi_volumes ==
          std::vector<CsiVolumeId>{
              {kEbs, "vol-1", false},
              {kEbs, "vol-2", false},
              {kEbs, "vol-3", false},
              {kEbs, "default/default-class", true},
              {kEbs, "default/beta-annotated", true},
              {"kubernetes.io/no-provisioner", "default/prebound", true},
              {kEbs, "default/bound-missing", true},
              {kEbs, "default/wffc-any", true},
              {kEbs, "default/web-0-scratch", true}});
  }
  SECTION("generic ephemeral volumes: <pod>-<volume>, owned by the pod") {
    const PodVolume& scratch = at(12);
    CHECK(scratch.name == "scratch");
    CHECK(scratch.ephemeral);
    CHECK(scratch.claim_name == "web-0-scratch");
    CHECK(scratch.claim != nullptr);
    CHECK(scratch.claim_owned);
    CHECK(scratch.csi.has_value());
    const PodVolume& foreign = at(13);
    CHECK(foreign.claim != nullptr);
    CHECK_FALSE(foreign.claim_owned);
    CHECK_FALSE(foreign.csi.has_value());
    const PodVolume& ghost = at(14);
    CHECK(ghost.claim_name == "web-0-ghost");
    CHECK(ghost.claim == nullptr);
    CHECK_FALSE(ghost.csi.has_value());
  }
}

TEST_CASE("ResolvePodVolumes: namespaces and a volume with two sources",
          "[scheduling][volumes]") {
  Cluster c;
  c.Build();
  v1::Pod pod = WebPod({"no-namespace"});
  pod.mutable_metadata()->clear_namespace_();
  const PodVolumes pv = Resolve(c, pod);
  CHECK(pv.pod_namespace == "default");
  REQUIRE(pv.volumes.size() == 1);
  CHECK(pv.volumes[0].claim != nullptr);
  // Claims of other namespaces are not visible.
  CHECK(Resolve(c, WebPod({"only-other"})).volumes[0].claim == nullptr);

  v1::Pod both = WebPod({"bound-zonal", "bound-beta"});
  both.mutable_spec()->mutable_volumes(1)->mutable_ephemeral();
  const absl::StatusOr<PodVolumes> bad = ResolvePodVolumes(both, *c.index);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(bad.status().message() ==
        "pod \"default/web-0\": spec.volumes[1] (\"vol-bound-beta\"): sets "
        "both persistentVolumeClaim and ephemeral");
}

// --- VolumeZone. -------------------------------------------------------------

struct ZoneRow {
  const char* what;
  std::vector<std::string> claims;
  std::vector<std::string> ephemerals;
  const char* node;
  const char* want;  // "" for no failure.
};

TEST_CASE("VolumeZoneFilter: zone and region labels of bound volumes",
          "[scheduling][volumes]") {
  Cluster c;
  c.Build();
  const ZoneRow rows[] = {
      {"no claims", {}, {}, "node-a", ""},
      {"zone and region match", {"bound-zonal"}, {}, "node-a", ""},
      {"zone differs", {"bound-zonal"}, {}, "node-b", kZoneConflict},
      {"region differs", {"bound-zonal"}, {}, "node-a-r2", kZoneConflict},
      {"node without zone/region labels accepts every volume",
       {"bound-zonal", "bound-beta"},
       {},
       "bare",
       ""},
      {"a node with only a region label is constrained",
       {"bound-zonal"},
       {},
       "region-only",
       kZoneConflict},
      {"\"__\" set holds the node's zone", {"bound-multi"}, {}, "node-b", ""},
      {"\"__\" set lacks the node's zone",
       {"bound-multi"},
       {},
       "node-c",
       kZoneConflict},
      {"beta PV label, beta node label", {"bound-beta"}, {}, "node-c-beta", ""},
      {"beta PV label matched against the node's GA label",
       {"bound-beta"},
       {},
       "node-c",
       ""},
      {"beta PV label, other zone",
       {"bound-beta"},
       {},
       "node-a",
       kZoneConflict},
      {"GA PV label is not looked up as beta on the node",
       {"bound-zonal"},
       {},
       "node-a-beta",
       kZoneConflict},
      {"a label with an empty part is ignored",
       {"bound-badzone"},
       {},
       "node-c",
       ""},
      {"a volume without zone labels", {"bound-plain"}, {}, "node-c", ""},
      {"unbound WaitForFirstConsumer claims are skipped",
       {"wffc-topo", "default-class"},
       {},
       "node-c",
       ""},
      {"unbound Immediate claim",
       {"immediate-unbound"},
       {},
       "bare",
       "PersistentVolume had no name"},
      {"unbound claim without class",
       {"no-class"},
       {},
       "bare",
       "PersistentVolumeClaim had no pv name and storageClass name"},
      {"unbound claim with a missing class",
       {"missing-class"},
       {},
       "bare",
       "storageclass.storage.k8s.io \"gold\" not found"},
      {"missing claim",
       {"nope"},
       {},
       "bare",
       "persistentvolumeclaim \"nope\" not found"},
      {"missing volume",
       {"bound-missing"},
       {},
       "bare",
       "persistentvolume \"pv-gone\" not found"},
      {"empty claim name",
       {""},
       {},
       "bare",
       "PersistentVolumeClaim had no name"},
      {"pod-level problems come before the node check",
       {"bound-zonal", "nope"},
       {},
       "node-b",
       "persistentvolumeclaim \"nope\" not found"},
      {"ephemeral volumes are not read", {}, {"ghost"}, "node-a", ""},
  };
  for (const ZoneRow& row : rows) {
    INFO(row.what);
    const PodVolumes pv = Resolve(c, WebPod(row.claims, row.ephemerals));
    const std::optional<FilterFailure> got =
        VolumeZoneFilter(pv, NodeNamed(row.node));
    if (std::string(row.want).empty()) {
      CHECK_FALSE(got.has_value());
    } else {
      REQUIRE(got.has_value());
      CHECK(got->plugin == kVolumeZone);
      CHECK(got->code == FilterCode::kUnschedulableAndUnresolvable);
      CHECK(got->message == row.want);
    }
  }
}

// --- VolumeBinding. ----------------------------------------------------------

struct BindingRow {
  const char* what;
  std::vector<std::string> claims;
  std::vector<std::string> ephemerals;
  const char* node;
  std::vector<std::string> want;
};

TEST_CASE("VolumeBindingFilter: node affinity, provisioning, unbound claims",
          "[scheduling][volumes]") {
  Cluster c;
  c.Build();
  const BindingRow rows[] = {
      {"no claims", {}, {}, "node-a", {}},
      {"bound without node affinity: zone labels are not its business",
       {"bound-zonal"},
       {},
       "node-b",
       {}},
      {"PV node affinity matches", {"bound-affinity"}, {}, "node-a", {}},
      {"PV node affinity conflicts",
       {"bound-affinity"},
       {},
       "node-b",
       {kNodeConflict}},
      {"bound to a missing volume",
       {"bound-missing"},
       {},
       "node-a",
       {kPvNotExist}},
      {"bound checks stop at the first conflict",
       {"bound-affinity", "bound-missing"},
       {},
       "node-b",
       {kNodeConflict}},
      {"bound checks stop at the first missing volume",
       {"bound-missing", "bound-affinity"},
       {},
       "node-b",
       {kPvNotExist}},
      {"WaitForFirstConsumer: allowedTopologies admit the node",
       {"wffc-topo"},
       {},
       "node-b",
       {}},
      {"WaitForFirstConsumer: allowedTopologies reject the node",
       {"wffc-topo"},
       {},
       "node-c",
       {kBindConflict}},
      {"WaitForFirstConsumer: no allowedTopologies admit every node",
       {"wffc-any"},
       {},
       "bare",
       {}},
      {"WaitForFirstConsumer without a provisioner",
       {"wffc-local"},
       {},
       "node-a",
       {kBindConflict}},
      {"selected-node names this node", {"wffc-selected"}, {}, "node-b", {}},
      {"selected-node names another node",
       {"wffc-selected"},
       {},
       "node-a",
       {kBindConflict}},
      {"pre-bound volume selects the node", {"prebound"}, {}, "node-b", {}},
      {"pre-bound volume elsewhere and no provisioner",
       {"prebound"},
       {},
       "node-a",
       {kBindConflict}},
      {"the default class makes an unset class WaitForFirstConsumer",
       {"default-class"},
       {},
       "bare",
       {}},
      {"the beta annotation overrides spec.storageClassName",
       {"beta-annotated"},
       {},
       "bare",
       {}},
      {"reasons in kube-scheduler's order",
       {"wffc-topo", "bound-affinity"},
       {},
       "node-c",
       {kNodeConflict, kBindConflict}},
      {"bind conflict before missing volume",
       {"bound-missing", "wffc-topo"},
       {},
       "node-c",
       {kBindConflict, kPvNotExist}},
      {"unbound Immediate claim",
       {"bound-zonal", "immediate-unbound"},
       {},
       "node-a",
       {kUnboundImmediate}},
      {"unbound claim without class is immediate",
       {"no-class"},
       {},
       "node-a",
       {kUnboundImmediate}},
      {"unbound claim with a missing class is immediate",
       {"missing-class"},
       {},
       "node-a",
       {kUnboundImmediate}},
      {"missing claim",
       {"nope"},
       {},
       "node-a",
       {"persistentvolumeclaim \"nope\" not found"}},
      {"missing claim reported before unbound immediate ones",
       {"immediate-unbound", "nope"},
       {},
       "node-a",
       {"persistentvolumeclaim \"nope\" not found"}},
      {"claim Lost",
       {"lost"},
       {},
       "node-a",
       {"persistentvolumeclaim \"lost\" bound to non-existent "
        "persistentvolume \"pv-zonal\""}},
      {"claim being deleted",
       {"deleting"},
       {},
       "node-a",
       {"persistentvolumeclaim \"deleting\" is being deleted"}},
      {"ephemeral volume: claim owned by the pod", {}, {"scratch"}, "bare", {}},
      {"ephemeral volume: claim not created yet",
       {},
       {"ghost"},
       "bare",
       {"waiting for ephemeral volume controller to create the "
        "persistentvolumeclaim \"web-0-ghost\""}},
      {"ephemeral volume: claim of another pod",
       {},
       {"foreign"},
       "bare",
       {"PVC default/web-0-foreign was not created for pod default/web-0 "
        "(pod is not owner)"}},
  };
  for (const BindingRow& row : rows) {
    INFO(row.what);
    const PodVolumes pv = Resolve(c, WebPod(row.claims, row.ephemerals));
    const std::vector<FilterFailure> got =
        VolumeBindingFilter(pv, NodeNamed(row.node));
    std::vector<std::string> messages;
    for (const FilterFailure& f : got) {
      CHECK(f.plugin == kVolumeBinding);
      CHECK(f.code == FilterCode::kUnschedulableAndUnresolvable);
      messages.push_back(f.message);
    }
    CHECK(messages == row.want);
  }
}

// --- NodeVolumeLimits. -------------------------------------------------------

struct LimitRow {
  const char* what;
  std::vector<std::vector<std::string>> on_node;  // Claims of pods there.
  std::vector<std::string> claims;                // Of the new pod.
  std::vector<std::string> ephemerals;
  const char* csi_node;  // "" for none.
  const char* want;      // "" for no failure.
  FilterCode code = FilterCode::kUnschedulable;
};

TEST_CASE("NodeVolumeLimitsFilter: CSINode attach limits",
          "[scheduling][volumes]") {
  Cluster c;
  c.Build();
  constexpr FilterCode kUnresolvable =
      FilterCode::kUnschedulableAndUnresolvable;
  const LimitRow rows[] = {
      {"below the count", {}, {"bound-zonal"}, {}, "node-a", ""},
      {"reaching the count",
       {{"bound-zonal"}},
       {"bound-beta"},
       {},
       "node-a",
       ""},
      {"over the count",
       {{"bound-zonal"}, {"bound-multi"}},
       {"bound-beta"},
       {},
       "node-a",
       kMaxVolumeCount},
      {"a volume already on the node counts once",
       {{"bound-zonal"}, {"bound-multi"}},
       {"bound-zonal"},
       {},
       "node-a",
       ""},
      {"the same volume twice in the new pod counts once",
       {{"bound-zonal"}},
       {"bound-beta", "bound-beta"},
       {},
       "node-a",
       ""},
      {"one pod's volumes may exceed the count by themselves",
       {},
       {"bound-zonal", "bound-multi", "bound-beta"},
       {},
       "node-a",
       kMaxVolumeCount},
      {"an unbound WaitForFirstConsumer claim counts for its provisioner",
       {{"bound-zonal"}, {"bound-multi"}},
       {"wffc-any"},
       {},
       "node-a",
       kMaxVolumeCount},
      {"an ephemeral claim counts too",
       {{"bound-zonal"}, {"bound-multi"}},
       {},
       {"scratch"},
       "node-a",
       kMaxVolumeCount},
      {"a driver without allocatable.count has no limit",
       {},
       {"bound-other"},
       {},
       "node-a",
       ""},
      {"count 0 refuses any volume of the driver",
       {},
       {"bound-zonal"},
       {},
       "node-zero",
       kMaxVolumeCount},
      {"a non-CSI volume is not counted",
       {},
       {"bound-plain"},
       {},
       "node-zero",
       ""},
      {"no CSINode: no limit",
       {{"bound-zonal"}, {"bound-multi"}},
       {"bound-beta"},
       {},
       "",
       ""},
      {"missing claim",
       {},
       {"nope"},
       {},
       "",
       "looking up PVC default/nope: persistentvolumeclaim \"nope\" not found",
       kUnresolvable},
      {"empty claim name",
       {},
       {""},
       {},
       "",
       "PersistentVolumeClaim had no name",
       kUnresolvable},
      {"ephemeral claim of another pod",
       {},
       {},
       {"foreign"},
       "",
       "PVC default/web-0-foreign was not created for pod default/web-0 (pod "
       "is not owner)",
       kUnresolvable},
  };
  for (const LimitRow& row : rows) {
    INFO(row.what);
    NodeVolumeUsage usage;
    for (const std::vector<std::string>& claims : row.on_node) {
      usage.Add(Resolve(c, WebPod(claims)));
    }
    const v1::CSINode* csi_node = std::string(row.csi_node).empty()
                                      ? nullptr
                                      : c.index->FindCSINode(row.csi_node);
    const std::optional<FilterFailure> got = NodeVolumeLimitsFilter(
        Resolve(c, WebPod(row.claims, row.ephemerals)), usage, csi_node);
    if (std::string(row.want).empty()) {
      CHECK_FALSE(got.has_value());
    } else {
      REQUIRE(got.has_value());
      CHECK(got->plugin == kNodeVolumeLimits);
      CHECK(got->code == row.code);
      CHECK(got->message == row.want);
    }
  }
}

TEST_CASE("NodeVolumeUsage: reference counts per (driver, handle)",
          "[scheduling][volumes]") {
  Cluster c;
  c.Build();
  const PodVolumes a = Resolve(c, WebPod({"bound-zonal", "bound-multi"}));
  const PodVolumes b = Resolve(c, WebPod({"bound-zonal", "wffc-any"}));
  const PodVolumes multi = Resolve(c, WebPod({"bound-multi"}));
  const PodVolumes beta = Resolve(c, WebPod({"bound-beta"}));
  const CsiVolumeId vol1{kEbs, "vol-1", false};
  const CsiVolumeId vol2{kEbs, "vol-2", false};
  const v1::CSINode* node_a = c.index->FindCSINode("node-a");

  NodeVolumeUsage usage;
  CHECK(usage.Count(kEbs) == 0);
  usage.Add(a);
  usage.Add(b);
  CHECK(usage.Count(kEbs) == 3);  // vol-1 once, vol-2, default/wffc-any.
  CHECK(usage.Contains(vol1));
  CHECK_FALSE(usage.Contains(CsiVolumeId{kEbs, "default/wffc-any", false}));
  CHECK(usage.Contains(CsiVolumeId{kEbs, "default/wffc-any", true}));
  // Over the count of 2 already; vol-2 is in use, vol-3 would be new.
  CHECK_FALSE(NodeVolumeLimitsFilter(multi, usage, node_a).has_value());
  CHECK(NodeVolumeLimitsFilter(beta, usage, node_a).has_value());

  // Removing a keeps vol-1 (b still uses it) and frees vol-2.
  REQUIRE(usage.Remove(a).ok());
  CHECK(usage.Contains(vol1));
  CHECK_FALSE(usage.Contains(vol2));
  CHECK(usage.Count(kEbs) == 2);
  CHECK(usage.Count("other.csi.example.com") == 0);
  CHECK(NodeVolumeLimitsFilter(multi, usage, node_a).has_value());

  // Removing a again fails, and changes nothing (vol-1 keeps its count).
  const absl::Status again = usage.Remove(a);
  CHECK(again.code() == absl::StatusCode::kInvalidArgument);
  CHECK(again.message() ==
        "pod \"default/web-0\": csi volume \"ebs.csi.aws.com\" \"vol-2\" is "
        "not in use on this node");
  CHECK(usage.Contains(vol1));
  CHECK(usage.Count(kEbs) == 2);

  REQUIRE(usage.Remove(b).ok());
  CHECK_FALSE(usage.Contains(vol1));
  CHECK(usage.Count(kEbs) == 0);
  CHECK_FALSE(NodeVolumeLimitsFilter(beta, usage, node_a).has_value());
}

}  // namespace
}  // namespace karpenter::scheduling
