// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The snapshot's compact pod store: pods are split into a shared shape and
// their own wire bytes, and must come back exactly as given.

#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "../testing/kit_test_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "karpenter/scheduling/resources.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/testing/builders.h"
#include "karpenter/testing/synthetic_cluster.h"

namespace karpenter::snapshot {
namespace {

using ::google::protobuf::util::MessageDifferencer;

v1::Node MakeNode(const std::string& name) {
  return testing::MakeNode({.name = name});
}

// A replica of "web": everything a replica owns differs with `i`.
v1::Pod Replica(int i, const std::string& node) {
  const std::string n = std::to_string(i);
  v1::Pod pod =
      testing::MakePod({.name = "web-" + n,
                        .ns = "shop",
                        .uid = "uid-" + n,
                        .node = node,
                        .owner = "ReplicaSet",
                        .owner_name = "web-7f9",
                        .priority = 1000,
                        .annotations = {{"karpenter.sh/do-not-disrupt", "1h"}},
                        .created = absl::FromUnixSeconds(1000 + i),
                        .started = absl::FromUnixSeconds(2000 + i),
                        .cpu = "250m",
                        .ready = i % 2 == 0 ? "True" : "False",
                        .ready_since = absl::FromUnixSeconds(3000 + i)});
  pod.set_api_version("v1");
  pod.set_kind("Pod");
  pod.mutable_metadata()->set_resource_version(std::to_string(100 + i));
  return pod;
}

Snapshot BuildOrFail(ObjectSet objects) {
  return kit_test::MustBuildSnapshot(std::move(objects));
}

void CheckRoundTrip(const std::vector<v1::Pod>& pods, const Snapshot& s) {
  REQUIRE(s.pod_count() == pods.size());
  for (PodIndex p = 0; p < pods.size(); ++p) {
    INFO("pod " << p);
    const v1::Pod decoded = s.DecodePod(p);
    std::string diff;
    MessageDifferencer differencer;
    differencer.ReportDifferencesToString(&diff);
    CHECK(differencer.Compare(pods[p], decoded));
    CHECK(diff.empty());
    CHECK(s.PodName(p) == pods[p].metadata().name());
  }
}

TEST_CASE("pod store: replicas share one shape and decode exactly",
          "[snapshot]") {
  std::vector<v1::Pod> pods;
  for (int i = 0; i < 6; ++i) pods.push_back(Replica(i, i < 3 ? "n1" : "n2"));
  ObjectSet o;
  o.nodes = {MakeNode("n1"), MakeNode("n2")};
  o.pods = pods;
  const Snapshot s = BuildOrFail(std::move(o));
  CheckRoundTrip(pods, s);
  CHECK(s.pod_shape_count() == 1);
  for (PodIndex p = 0; p < 6; ++p) CHECK(s.PodShapeId(p) == 0);
  // The shape keeps what replicas share and drops what each owns.
  const v1::Pod& shape = s.PodShape(3);
  CHECK(shape.metadata().name().empty());
  CHECK(shape.metadata().uid().empty());
  CHECK(shape.metadata().resource_version().empty());
  CHECK_FALSE(shape.metadata().has_creation_timestamp());
  CHECK(shape.spec().node_name().empty());
  CHECK_FALSE(shape.status().has_start_time());
  CHECK(shape.status().conditions().empty());
  CHECK(shape.metadata().namespace_() == "shop");
  CHECK(shape.metadata().labels().at("app") == "web");
  CHECK(shape.metadata().owner_references(0).name() == "web-7f9");
  CHECK(shape.spec().priority() == 1000);
  CHECK(shape.status().phase() == "Running");
  CHECK(s.PodKey(4) == "shop/web-4");
}

TEST_CASE("pod store: a shared field that differs makes another shape",
          "[snapshot]") {
  std::vector<v1::Pod> pods = {Replica(0, "n1"), Replica(1, "n1"),
                               Replica(2, "n1"), Replica(3, "n1")};
  (*pods[1].mutable_metadata()->mutable_labels())["app"] = "api";
  pods[2].mutable_status()->set_phase("Succeeded");
  pods[3].mutable_metadata()->mutable_deletion_timestamp()->set_seconds(9);
  ObjectSet o;
  o.nodes = {MakeNode("n1")};
  o.pods = pods;
  const Snapshot s = BuildOrFail(std::move(o));
  CheckRoundTrip(pods, s);
  CHECK(s.pod_shape_count() == 4);
  CHECK(s.PodShape(2).status().phase() == "Succeeded");
  CHECK(s.PodShape(3).metadata().has_deletion_timestamp());
}

TEST_CASE("pod store: the shape keeps what a pod's requests read",
          "[snapshot][resize]") {
  // Container statuses (and the conditions of a pod whose resize is
  // Infeasible) make the requests, which are computed once per shape.
  const auto resized = [](int i, const std::string& cpu) {
    v1::Pod pod = Replica(i, "n1");
    v1::ContainerStatus& cs = *pod.mutable_status()->add_container_statuses();
    cs.set_name(pod.spec().containers(0).name());
    (*cs.mutable_resources()->mutable_requests())["cpu"] = cpu;
    (*cs.mutable_allocated_resources())["cpu"] = cpu;
    return pod;
  };
  std::vector<v1::Pod> pods = {resized(0, "1"), resized(1, "1"),
                               resized(2, "2"), resized(3, "2"),
                               resized(4, "2"), Replica(5, "n1")};
  // Pod 3's resize is Infeasible; pod 4's is Deferred, as good as none.
  for (const int i : {3, 4}) {
    v1::Condition& c = *pods[i].mutable_status()->add_conditions();
    c.set_type("PodResizePending");
    c.set_status("True");
    c.set_reason(i == 3 ? "Infeasible" : "Deferred");
  }
  pods[2].mutable_status()->add_init_container_statuses()->set_name("init");
  ObjectSet o;
  o.nodes = {MakeNode("n1")};
  o.pods = pods;
  const Snapshot s = BuildOrFail(std::move(o));
  CheckRoundTrip(pods, s);
  CHECK(s.PodShapeId(0) == s.PodShapeId(1));
  CHECK(s.PodShapeId(0) != s.PodShapeId(2));
  CHECK(s.PodShapeId(2) != s.PodShapeId(3));
  CHECK(s.PodShapeId(0) != s.PodShapeId(5));
  CHECK(s.pod_shape_count() == 5);
  for (PodIndex p = 0; p < pods.size(); ++p) {
    INFO("pod " << p);
    const auto from_shape = scheduling::PodRequests(s.PodShape(p));
    const auto from_pod = scheduling::PodRequests(pods[p]);
    REQUIRE(from_shape.ok());
    REQUIRE(from_pod.ok());
    CHECK(*from_shape == *from_pod);
  }
  // 250m in the spec; 1 or 2 in status, 2 also when Infeasible.
  CHECK(scheduling::PodRequests(s.PodShape(0))->at(0) ==
        std::pair<std::string, int64_t>("cpu", 1000));
  CHECK(scheduling::PodRequests(s.PodShape(3))->at(0) ==
        std::pair<std::string, int64_t>("cpu", 2000));
  CHECK(scheduling::PodRequests(s.PodShape(5))->at(0) ==
        std::pair<std::string, int64_t>("cpu", 250));
  CHECK(s.PodShape(0).status().container_statuses(0).allocated_resources().at(
            "cpu") == "1");
  CHECK(s.PodShape(2).status().init_container_statuses_size() == 1);
  // Conditions stay with the pod unless the resize is Infeasible.
  CHECK(s.PodShape(0).status().conditions().empty());
  CHECK(s.PodShape(4).status().conditions().empty());
  REQUIRE(s.PodShape(3).status().conditions_size() == 2);
  CHECK(s.PodShape(3).status().conditions(1).reason() == "Infeasible");
  CHECK(s.PodReadyCondition(3) == PodReady::kFalse);
  CHECK(s.PodReadyCondition(4) == PodReady::kTrue);
}

TEST_CASE("pod store: absent submessages stay absent after decoding",
          "[snapshot]") {
  v1::Pod bare;  // Name only: no spec, no status.
  bare.mutable_metadata()->set_name("bare");
  v1::Pod phase_only;
  phase_only.mutable_metadata()->set_name("phase-only");
  phase_only.mutable_status()->set_phase("Pending");
  v1::Pod no_phase;
  no_phase.mutable_metadata()->set_name("no-phase");
  no_phase.mutable_spec();  // Present, empty.
  no_phase.mutable_status()->set_reason("Evicted");
  v1::Pod empty_status;
  empty_status.mutable_metadata()->set_name("empty-status");
  empty_status.mutable_status();
  std::vector<v1::Pod> pods = {bare, phase_only, no_phase, empty_status};
  ObjectSet o;
  o.pods = pods;
  const Snapshot s = BuildOrFail(std::move(o));
  // Build places namespace-less pods in "default"; nothing else changes.
  for (v1::Pod& pod : pods) pod.mutable_metadata()->set_namespace_("default");
  CheckRoundTrip(pods, s);
  CHECK_FALSE(s.DecodePod(0).has_spec());
  CHECK_FALSE(s.DecodePod(0).has_status());
  CHECK(s.DecodePod(1).status().phase() == "Pending");
  CHECK(s.DecodePod(2).has_spec());
  CHECK(s.DecodePod(3).has_status());
}

TEST_CASE("pod store: Ready condition and binding are answered per pod",
          "[snapshot]") {
  std::vector<v1::Pod> pods = {Replica(0, "n1"), Replica(1, "n1"),
                               Replica(2, ""), Replica(3, "gone")};
  pods[2].mutable_status()->mutable_conditions(0)->set_status("Unknown");
  pods[3].mutable_status()->clear_conditions();
  v1::Condition& other = *pods[3].mutable_status()->add_conditions();
  other.set_type("PodScheduled");
  other.set_status("True");
  ObjectSet o;
  o.nodes = {MakeNode("n1")};
  o.pods = pods;
  const Snapshot s = BuildOrFail(std::move(o));
  CHECK(s.PodReadyCondition(0) == PodReady::kTrue);
  CHECK(s.PodReadyCondition(1) == PodReady::kFalse);
  CHECK(s.PodReadyCondition(2) == PodReady::kOther);
  CHECK(s.PodReadyCondition(3) == PodReady::kAbsent);
  CHECK_FALSE(s.PodIsUnbound(0));
  CHECK(s.PodIsUnbound(2));
  CHECK_FALSE(s.PodIsUnbound(3));  // Bound to a node not in the snapshot.
  CHECK_FALSE(s.NodeOfPod(3).has_value());
  CHECK(s.PodsOnUnknownNodes().size() == 1);
  CHECK(s.PodsOnNode(0).size() == 2);
}

TEST_CASE("pod store: the builder keeps input order and Build's checks",
          "[snapshot]") {
  SnapshotBuilder builder;
  builder.AddPod(Replica(0, "n1"));
  builder.AddPod(Replica(1, "n1"));
  CHECK(builder.pod_count() == 2);
  builder.objects().nodes = {MakeNode("n1")};
  builder.objects().pods = {Replica(2, "n1")};
  absl::StatusOr<Snapshot> s = std::move(builder).Build();
  REQUIRE(s.ok());
  REQUIRE(s->pod_count() == 3);
  CHECK(s->PodName(0) == "web-0");
  CHECK(s->PodName(2) == "web-2");
  CHECK(s->FindPod("shop", "web-2") == PodIndex{2});
  CHECK(s->PodsOnNode(0).size() == 3);

  SnapshotBuilder duplicate;
  duplicate.AddPod(Replica(0, "n1"));
  duplicate.AddPod(Replica(0, "n1"));
  const absl::StatusOr<Snapshot> bad = std::move(duplicate).Build();
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message() ==
        "duplicate Pod \"shop/web-0\": pods[0] and pods[1]");

  SnapshotBuilder unnamed;
  v1::Pod pod = Replica(0, "n1");
  pod.mutable_metadata()->clear_name();
  unnamed.AddPod(std::move(pod));
  const absl::StatusOr<Snapshot> empty = std::move(unnamed).Build();
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.status().message() ==
        "pods[0] (unnamed Pod): metadata.name is empty");
}

TEST_CASE("pod store: a streamed synthetic cluster equals the built one",
          "[snapshot]") {
  testing::SyntheticClusterOptions options;
  options.nodes = 40;
  absl::StatusOr<ObjectSet> objects = testing::MakeSyntheticCluster(options);
  REQUIRE(objects.ok());
  const std::vector<v1::Pod> pods = objects->pods;
  const Snapshot built = BuildOrFail(*std::move(objects));
  SnapshotBuilder builder;
  REQUIRE(testing::AddSyntheticCluster(options, builder).ok());
  absl::StatusOr<Snapshot> streamed = std::move(builder).Build();
  REQUIRE(streamed.ok());
  CheckRoundTrip(pods, built);
  CheckRoundTrip(pods, *streamed);
  CHECK(streamed->nodes().size() == built.nodes().size());
  CHECK(streamed->pdbs().size() == built.pdbs().size());
  // One DaemonSet shape plus one per (namespace, app): far fewer than pods.
  CHECK(built.pod_shape_count() < pods.size() / 10);
  CHECK(streamed->pod_shape_count() == built.pod_shape_count());

  testing::SyntheticClusterOptions invalid;
  invalid.nodes = -1;
  SnapshotBuilder untouched;
  CHECK_FALSE(testing::AddSyntheticCluster(invalid, untouched).ok());
  CHECK(untouched.pod_count() == 0);
}

}  // namespace
}  // namespace karpenter::snapshot
