// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// VolumeAttachments and PersistentVolumeClaims: loading (JSON, YAML, list
// forms, errors) and their Snapshot indexes.

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

Snapshot MustBuild(ObjectSet set) {
  return kit_test::MustBuildSnapshot(std::move(set));
}

// Positional shorthands for the kit's builders
// (karpenter/testing/builders.h).
v1::Node Node(const std::string& name) {
  return testing::MakeNode({.name = name});
}

v1::VolumeAttachment Va(const std::string& name, const std::string& node) {
  return testing::MakeVolumeAttachment(
      {.name = name, .node = node, .persistent_volume = "pv-" + name});
}

v1::PersistentVolumeClaim Pvc(const std::string& ns, const std::string& name) {
  return testing::MakePersistentVolumeClaim({.name = name, .ns = ns});
}

std::vector<std::string> VaNames(const Snapshot& s,
                                 absl::Span<const VolumeAttachmentIndex> vas) {
  std::vector<std::string> out;
  for (VolumeAttachmentIndex v : vas) {
    out.push_back(s.volume_attachments()[v].metadata().name());
  }
  return out;
}

TEST_CASE("snapshot volumes: kubectl VolumeAttachmentList JSON",
          "[snapshot][volumes]") {
  ObjectSet set;
  const absl::Status s = LoadFile(TestData("volumeattachments.json"), set);
  INFO(s.ToString());
  REQUIRE(s.ok());
  REQUIRE(set.volume_attachments.size() == 2);
  const v1::VolumeAttachment& a = set.volume_attachments[0];
  CHECK(a.kind() == "VolumeAttachment");
  CHECK(a.api_version() == "storage.k8s.io/v1");
  CHECK(a.spec().attacher() == "ebs.csi.aws.com");
  CHECK(a.spec().node_name() == "ip-10-0-1-17.us-west-2.compute.internal");
  REQUIRE(a.spec().source().has_persistent_volume_name());
  CHECK(a.spec().source().persistent_volume_name() ==
        "pvc-7b1e2d3c-4f5a-4b6c-8d7e-9f0a1b2c3d4e");
  CHECK(a.status().attached());
  // The item without kind takes the list's kind and apiVersion; an inline
  // volume has no PV name, and that absence is kept.
  const v1::VolumeAttachment& b = set.volume_attachments[1];
  CHECK(b.kind() == "VolumeAttachment");
  CHECK(b.api_version() == "storage.k8s.io/v1");
  CHECK_FALSE(b.spec().source().has_persistent_volume_name());
  CHECK_FALSE(b.status().attached());
  CHECK(set.skipped_kinds.empty());
}

TEST_CASE("snapshot volumes: PersistentVolumeClaimList YAML",
          "[snapshot][volumes]") {
  ObjectSet set;
  const absl::Status s = LoadFile(TestData("pvc-list.yaml"), set);
  INFO(s.ToString());
  REQUIRE(s.ok());
  REQUIRE(set.persistent_volume_claims.size() == 2);
  const v1::PersistentVolumeClaim& a = set.persistent_volume_claims[0];
  CHECK(a.kind() == "PersistentVolumeClaim");
  CHECK(a.api_version() == "v1");
  CHECK(a.metadata().namespace_() == "db");
  CHECK(a.spec().volume_name() == "pvc-7b1e2d3c-4f5a-4b6c-8d7e-9f0a1b2c3d4e");
  CHECK(a.spec().storage_class_name() == "gp3");
  CHECK(std::vector<std::string>(a.spec().access_modes().begin(),
                                 a.spec().access_modes().end()) ==
        std::vector<std::string>{"ReadWriteOnce"});
  CHECK(a.status().phase() == "Bound");
  // `storageClassName: ""` (no class) differs from an absent one (default).
  const v1::PersistentVolumeClaim& b = set.persistent_volume_claims[1];
  CHECK(b.spec().has_storage_class_name());
  CHECK(b.spec().storage_class_name().empty());
  CHECK(b.spec().volume_name().empty());
  CHECK_FALSE(a.spec().access_modes().empty());
  CHECK_FALSE(MustLoad("kind: PersistentVolumeClaim\nmetadata: {name: x}\n")
                  .persistent_volume_claims[0]
                  .spec()
                  .has_storage_class_name());
}

TEST_CASE("snapshot volumes: JSON and YAML forms decode identically",
          "[snapshot][volumes]") {
  const ObjectSet json = MustLoad(R"({"kind": "List", "apiVersion": "v1",
    "items": [
      {"kind": "VolumeAttachment", "apiVersion": "storage.k8s.io/v1",
       "metadata": {"name": "va-1"},
       "spec": {"attacher": "d", "nodeName": "n1",
                "source": {"persistentVolumeName": "pv-1"}},
       "status": {"attached": true}},
      {"kind": "VolumeAttachment", "metadata": {"name": "va-2"},
       "spec": {"nodeName": "n1", "source": {"persistentVolumeName": null}}},
      {"kind": "PersistentVolumeClaim", "apiVersion": "v1",
       "metadata": {"name": "c", "namespace": "ns"},
       "spec": {"volumeName": "pv-1", "accessModes": ["ReadWriteOnce"]},
       "status": {"phase": "Bound"}}
    ]})");
  const ObjectSet yaml = MustLoad(R"(
kind: List
apiVersion: v1
items:
- kind: VolumeAttachment
  apiVersion: storage.k8s.io/v1
  metadata: {name: va-1}
  spec:
    attacher: d
    nodeName: n1
    source: {persistentVolumeName: pv-1}
  status: {attached: true}
- kind: VolumeAttachment
  metadata: {name: va-2}
  spec:
    nodeName: n1
    source: {persistentVolumeName: ~}
- kind: PersistentVolumeClaim
  apiVersion: v1
  metadata: {name: c, namespace: ns}
  spec:
    volumeName: pv-1
    accessModes: [ReadWriteOnce]
  status: {phase: Bound}
)");
  using google::protobuf::util::MessageDifferencer;
  REQUIRE(json.volume_attachments.size() == 2);
  REQUIRE(yaml.volume_attachments.size() == 2);
  REQUIRE(json.persistent_volume_claims.size() == 1);
  REQUIRE(yaml.persistent_volume_claims.size() == 1);
  for (size_t i = 0; i < 2; ++i) {
    CHECK(MessageDifferencer::Equals(json.volume_attachments[i],
                                     yaml.volume_attachments[i]));
  }
  CHECK(MessageDifferencer::Equals(json.persistent_volume_claims[0],
                                   yaml.persistent_volume_claims[0]));
  // null / ~ read as absent, as Kubernetes reads them.
  CHECK_FALSE(
      json.volume_attachments[1].spec().source().has_persistent_volume_name());
  CHECK(json.volume_attachments[1].api_version().empty());
}

TEST_CASE("snapshot volumes: pod volumes keep claim and ephemeral sources",
          "[snapshot][volumes]") {
  const ObjectSet json = MustLoad(R"({"kind": "Pod", "metadata": {"name": "p"},
    "spec": {"volumes": [
      {"name": "data", "persistentVolumeClaim": {"claimName": "data-0"}},
      {"name": "scratch", "ephemeral": {"volumeClaimTemplate":
        {"spec": {"accessModes": ["ReadWriteOnce"]}}}},
      {"name": "cfg", "configMap": {"name": "cfg"}}]}})");
  const ObjectSet yaml = MustLoad(R"(
kind: Pod
metadata: {name: p}
spec:
  volumes:
  - name: data
    persistentVolumeClaim: {claimName: data-0}
  - name: scratch
    ephemeral:
      volumeClaimTemplate:
        spec: {accessModes: [ReadWriteOnce]}
  - name: cfg
    configMap: {name: cfg}
)");
  for (const ObjectSet* set : {&json, &yaml}) {
    REQUIRE(set->pods.size() == 1);
    const auto& volumes = set->pods[0].spec().volumes();
    REQUIRE(volumes.size() == 3);
    CHECK(volumes[0].persistent_volume_claim().claim_name() == "data-0");
    CHECK_FALSE(volumes[0].has_ephemeral());
    CHECK(volumes[1].has_ephemeral());
    CHECK_FALSE(volumes[1].has_persistent_volume_claim());
    CHECK_FALSE(volumes[2].has_ephemeral());
    CHECK_FALSE(volumes[2].has_persistent_volume_claim());
  }
}

TEST_CASE("snapshot volumes: typed lists, versions and skipped kinds",
          "[snapshot][volumes]") {
  const ObjectSet set = MustLoad(R"([
    {"kind": "VolumeAttachmentList", "apiVersion": "storage.k8s.io/v1",
     "items": [{"metadata": {"name": "a"}}, {"metadata": {"name": "b"}}]},
    {"kind": "PersistentVolumeClaimList", "apiVersion": "v1",
     "items": [{"metadata": {"name": "c"}}]},
    {"kind": "VolumeAttachment", "apiVersion": "storage.k8s.io/v1beta1",
     "metadata": {"name": "old"}},
    {"kind": "PersistentVolumeClaim", "apiVersion": "example.com/v1",
     "metadata": {"name": "odd"}},
    {"kind": "CSIDriver", "apiVersion": "storage.k8s.io/v1",
     "metadata": {"name": "ebs.csi.aws.com"}}
  ])");
  REQUIRE(set.volume_attachments.size() == 2);
  CHECK(set.volume_attachments[1].metadata().name() == "b");
  CHECK(set.volume_attachments[1].api_version() == "storage.k8s.io/v1");
  REQUIRE(set.persistent_volume_claims.size() == 1);
  CHECK(set.persistent_volume_claims[0].kind() == "PersistentVolumeClaim");
  CHECK(set.persistent_volume_claims[0].api_version() == "v1");
  CHECK(set.skipped_kinds ==
        std::map<std::string, int64_t>{
            {"CSIDriver", 1},
            {"PersistentVolumeClaim (example.com/v1)", 1},
            {"VolumeAttachment (storage.k8s.io/v1beta1)", 1}});
}

TEST_CASE("snapshot volumes: decode errors name the object and field",
          "[snapshot][volumes]") {
  struct Case {
    std::string source;
    std::string text;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"va.json",
       R"({"kind":"VolumeAttachment","metadata":{"name":"csi-1"},
           "status":{"attached":3}})",
       "va.json: VolumeAttachment csi-1: status.attached: expected a "
       "boolean, got 3"},
      {"va.yaml",
       "kind: VolumeAttachmentList\napiVersion: storage.k8s.io/v1\nitems:\n"
       "- metadata: {name: csi-2}\n  spec:\n    source:\n"
       "      persistentVolumeName: [a, b]\n",
       "va.yaml: document 1: items[0] (VolumeAttachment csi-2): "
       "spec.source.persistentVolumeName: expected a string, got a list "
       "(line 7)"},
      {"pvc.json",
       R"({"kind":"List","items":[{"kind":"PersistentVolumeClaim",
           "metadata":{"name":"data","namespace":"db"},
           "spec":{"volumeName":7}}]})",
       "pvc.json: items[0] (PersistentVolumeClaim db/data): "
       "spec.volumeName: expected a string, got 7"},
  };
  for (const Case& c : cases) {
    ObjectSet set;
    const absl::Status s = LoadText(c.text, c.source, set);
    INFO(c.text);
    CHECK(s.code() == absl::StatusCode::kInvalidArgument);
    CHECK(s.message() == c.message);
    CHECK(set.volume_attachments.empty());
    CHECK(set.persistent_volume_claims.empty());
  }
}

TEST_CASE("snapshot volumes: attachments by node and claims by key",
          "[snapshot][volumes]") {
  ObjectSet set;
  set.nodes = {Node("n0"), Node("n1"), Node("n2")};
  set.volume_attachments = {Va("a", "n1"), Va("b", "gone"), Va("c", "n0"),
                            Va("d", "n1"), Va("e", ""),     Va("f", "n1")};
  set.persistent_volume_claims = {Pvc("db", "data"), Pvc("", "data"),
                                  Pvc("web", "cache")};
  const Snapshot s = MustBuild(std::move(set));
  CHECK(VaNames(s, s.VolumeAttachmentsOnNode(0)) ==
        std::vector<std::string>{"c"});
  CHECK(VaNames(s, s.VolumeAttachmentsOnNode(1)) ==
        std::vector<std::string>{"a", "d", "f"});
  CHECK(s.VolumeAttachmentsOnNode(2).empty());
  CHECK(s.volume_attachments().size() == 6);
  CHECK(s.FindVolumeAttachment("b") == std::optional<VolumeAttachmentIndex>(1));
  CHECK_FALSE(s.FindVolumeAttachment("z").has_value());
  // An empty claim namespace is "default", as for pods.
  CHECK(s.persistent_volume_claims()[1].metadata().namespace_() == "default");
  CHECK(s.FindPersistentVolumeClaim("default", "data") ==
        std::optional<PersistentVolumeClaimIndex>(1));
  CHECK(s.FindPersistentVolumeClaim("db", "data") ==
        std::optional<PersistentVolumeClaimIndex>(0));
  CHECK(s.FindPersistentVolumeClaim("web", "cache") ==
        std::optional<PersistentVolumeClaimIndex>(2));
  CHECK_FALSE(s.FindPersistentVolumeClaim("web", "data").has_value());
  CHECK_FALSE(s.FindPersistentVolumeClaim("", "data").has_value());
  // Claim namespaces are not Pod/PDB namespaces.
  CHECK(s.namespace_count() == 0);
  // A snapshot without nodes has no attachment lists to ask for, and an
  // empty snapshot answers lookups.
  const Snapshot empty;
  CHECK(empty.volume_attachments().empty());
  CHECK_FALSE(empty.FindPersistentVolumeClaim("default", "data").has_value());
}

TEST_CASE("snapshot volumes: duplicate and empty names are rejected",
          "[snapshot][volumes]") {
  struct Case {
    const char* name;
    ObjectSet set;
    std::string message;
  };
  std::vector<Case> cases;
  {
    ObjectSet set;
    set.volume_attachments = {Va("a", "n"), Va("b", "n"), Va("a", "m")};
    cases.push_back({"attachments", std::move(set),
                     "duplicate VolumeAttachment \"a\": volume_attachments[0] "
                     "and volume_attachments[2]"});
  }
  {
    ObjectSet set;
    set.volume_attachments = {Va("", "n")};
    cases.push_back({"unnamed attachment", std::move(set),
                     "volume_attachments[0] (unnamed VolumeAttachment): "
                     "metadata.name is empty"});
  }
  {
    ObjectSet set;
    // Cluster-scoped: a namespace does not make the names distinct.
    set.volume_attachments = {Va("a", "n"), Va("a", "n")};
    set.volume_attachments[0].mutable_metadata()->set_namespace_("x");
    cases.push_back({"namespaced attachments", std::move(set),
                     "duplicate VolumeAttachment \"a\": volume_attachments[0] "
                     "and volume_attachments[1]"});
  }
  {
    ObjectSet set;
    set.persistent_volume_claims = {Pvc("x", "c"), Pvc("y", "c"),
                                    Pvc("y", "c")};
    cases.push_back({"claims", std::move(set),
                     "duplicate PersistentVolumeClaim \"y/c\": "
                     "persistent_volume_claims[1] and "
                     "persistent_volume_claims[2]"});
  }
  {
    ObjectSet set;
    set.persistent_volume_claims = {Pvc("default", "c"), Pvc("", "c")};
    cases.push_back({"defaulted claims", std::move(set),
                     "duplicate PersistentVolumeClaim \"default/c\": "
                     "persistent_volume_claims[0] and "
                     "persistent_volume_claims[1]"});
  }
  {
    ObjectSet set;
    set.persistent_volume_claims = {Pvc("x", "")};
    cases.push_back({"unnamed claim", std::move(set),
                     "persistent_volume_claims[0] (unnamed "
                     "PersistentVolumeClaim): metadata.name is empty"});
  }
  for (Case& c : cases) {
    INFO(c.name);
    const absl::StatusOr<Snapshot> s = Snapshot::Build(std::move(c.set));
    CHECK(s.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(s.status().message() == c.message);
  }
}

TEST_CASE("snapshot volumes: Append moves attachments and claims",
          "[snapshot][volumes]") {
  ObjectSet a;
  a.volume_attachments = {Va("x", "n")};
  ObjectSet b;
  b.volume_attachments = {Va("y", "n")};
  b.persistent_volume_claims = {Pvc("ns", "c")};
  a.Append(std::move(b));
  REQUIRE(a.volume_attachments.size() == 2);
  CHECK(a.volume_attachments[1].metadata().name() == "y");
  CHECK(a.persistent_volume_claims.size() == 1);
  CHECK(b.volume_attachments.empty());
  CHECK(b.persistent_volume_claims.empty());
}

}  // namespace
}  // namespace karpenter::snapshot
