// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Snapshots assembled from pre-compacted pods (src/snapshot/compact_pod.h)
// must equal, accessor for accessor, the snapshots built from the original
// pods; and SnapshotDiff, which says so, must see every difference.

#include "snapshot/compact_pod.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/testing/builders.h"
#include "karpenter/testing/snapshot_equal.h"
#include "karpenter/testing/synthetic_cluster.h"

namespace karpenter::snapshot {
namespace {

using internal::CompactPod;
using internal::CompactShape;
using internal::PodCompactor;
using testing::SnapshotDiff;

ObjectSet Synthetic(testing::SyntheticClusterOptions options) {
  absl::StatusOr<ObjectSet> objects = testing::MakeSyntheticCluster(options);
  INFO(objects.status().ToString());
  REQUIRE(objects.ok());
  return *std::move(objects);
}

// Build of `objects` as given.
absl::StatusOr<Snapshot> FromPods(ObjectSet objects) {
  return Snapshot::Build(std::move(objects));
}

std::vector<CompactPod> CompactAll(const std::vector<v1::Pod>& pods,
                                   PodCompactor& compactor) {
  std::vector<CompactPod> out;
  for (const v1::Pod& pod : pods) out.push_back(compactor.Compact(pod));
  return out;
}

// The same objects with their pods compacted first and added through
// AddCompactPod.
absl::StatusOr<Snapshot> FromCompact(ObjectSet objects,
                                     const std::vector<CompactPod>& pods) {
  SnapshotBuilder builder;
  builder.ReservePods(pods.size());
  for (const CompactPod& pod : pods) builder.AddCompactPod(pod);
  objects.pods.clear();
  builder.objects() = std::move(objects);
  return std::move(builder).Build();
}

absl::StatusOr<Snapshot> FromCompact(ObjectSet objects) {
  PodCompactor compactor;
  const std::vector<CompactPod> pods = CompactAll(objects.pods, compactor);
  return FromCompact(std::move(objects), pods);
}

void RequireSame(const ObjectSet& objects) {
  absl::StatusOr<Snapshot> want = FromPods(objects);
  absl::StatusOr<Snapshot> got = FromCompact(objects);
  INFO(want.status().ToString());
  REQUIRE(want.ok());
  INFO(got.status().ToString());
  REQUIRE(got.ok());
  CHECK(SnapshotDiff(*want, *got).empty());
  INFO(SnapshotDiff(*want, *got));
  CHECK(got->pod_count() == objects.pods.size());
}

v1::Node Node(const std::string& name) {
  return testing::MakeNode({.name = name});
}

v1::Pod Pod(const std::string& name, const std::string& node) {
  return testing::MakePod({.name = name,
                           .ns = "shop",
                           .node = node,
                           .owner = "ReplicaSet",
                           .owner_name = "web-7f9",
                           .created = absl::FromUnixSeconds(1000),
                           .started = absl::FromUnixSeconds(2000),
                           .cpu = "250m",
                           .ready_since = absl::FromUnixSeconds(3000)});
}

// Pods that exercise every edge the pod store splits or indexes.
ObjectSet EdgeCases() {
  ObjectSet o;
  o.nodes = {Node("n1"), Node("n2")};
  o.pods.push_back(Pod("web-0", "n1"));
  o.pods.push_back(Pod("web-1", "n2"));  // Same shape as web-0.
  v1::Pod no_ns = Pod("bare", "n1");
  no_ns.mutable_metadata()->clear_namespace_();
  o.pods.push_back(no_ns);
  v1::Pod no_status = Pod("no-status", "n2");
  no_status.clear_status();
  o.pods.push_back(no_status);
  o.pods.push_back(Pod("pending", ""));
  o.pods.push_back(Pod("lost", "gone-node"));
  v1::Pod not_ready = testing::MakePod(
      {.name = "not-ready", .ns = "shop", .node = "n1", .ready = "False"});
  o.pods.push_back(not_ready);
  o.pods.push_back(testing::MakePod(
      {.name = "no-ready", .ns = "shop", .node = "n1", .ready = ""}));
  o.pods.push_back(testing::MakePod({.name = "unknown-ready",
                                     .ns = "shop",
                                     .node = "n2",
                                     .ready = "Unknown"}));
  o.pods.push_back(testing::MakePod({.name = "terminating",
                                     .ns = "shop",
                                     .node = "n2",
                                     .deleted = absl::FromUnixSeconds(5000),
                                     .finalizers = {"example.com/hold"}}));
  v1::Pod canary = Pod("web-canary", "n1");
  (*canary.mutable_metadata()->mutable_labels())["track"] = "canary";
  o.pods.push_back(canary);
  o.pods.push_back(Pod("web-2", "n1"));  // web-0's shape again, after others.
  v1::Pod other_ns = Pod("web-0", "n1");
  other_ns.mutable_metadata()->set_namespace_("blog");
  o.pods.push_back(other_ns);
  v1::Pod empty_phase = Pod("no-phase", "n2");
  empty_phase.mutable_status()->clear_phase();
  o.pods.push_back(empty_phase);
  o.pdbs.push_back(testing::MakePdb({.name = "web", .ns = "shop"}));
  return o;
}

TEST_CASE("compact pods: synthetic clusters assemble the snapshot of AddPod",
          "[compact-pod]") {
  testing::SyntheticClusterOptions options;
  options.nodes = 40;
  SECTION("default ratios") { RequireSame(Synthetic(options)); }
  SECTION("constraints and pending pods") {
    options.zone_spread_percent = 50;
    options.hostname_anti_affinity_percent = 20;
    options.host_port_percent = 10;
    options.pending_pods = 25;
    RequireSame(Synthetic(options));
  }
  SECTION("several namespaces and PDBs") {
    options.nodes = 250;
    options.app_pods_per_node = 3;
    options.namespaces = 7;
    RequireSame(Synthetic(options));
  }
}

TEST_CASE("compact pods: edge cases assemble the snapshot of AddPod",
          "[compact-pod]") {
  const ObjectSet o = EdgeCases();
  RequireSame(o);
  const Snapshot s = *FromCompact(o);
  // The edges are really there: shared and distinct shapes, every kind of
  // binding and Ready condition.
  CHECK(s.PodShapeId(0) == s.PodShapeId(1));
  CHECK(s.PodShapeId(0) == s.PodShapeId(11));
  CHECK(s.PodShapeId(10) != s.PodShapeId(0));  // One label apart.
  CHECK(s.PodShapeId(12) != s.PodShapeId(0));  // Another namespace.
  CHECK(s.PodKey(2) == "default/bare");
  CHECK(s.PodIsUnbound(4));
  CHECK(s.PodsOnUnknownNodes().size() == 1);
  CHECK(s.PodReadyCondition(6) == PodReady::kFalse);
  CHECK(s.PodReadyCondition(7) == PodReady::kAbsent);
  CHECK(s.PodReadyCondition(8) == PodReady::kOther);
  CHECK(s.PodReadyCondition(3) == PodReady::kAbsent);
  CHECK(s.DecodePod(9).metadata().has_deletion_timestamp());
  CHECK(s.PodShape(9).metadata().has_deletion_timestamp());
}

TEST_CASE("compact pods: the compacted pod reads as the original",
          "[compact-pod]") {
  PodCompactor compactor;
  v1::Pod pod = Pod("web-0", "n1");
  pod.mutable_metadata()->clear_namespace_();
  const CompactPod c = compactor.Compact(pod);
  CHECK(c.name() == "web-0");
  CHECK(c.node_name() == "n1");
  CHECK(c.namespace_() == "default");
  CHECK(c.ready() == PodReady::kTrue);
  CHECK(c.shape().metadata().name().empty());
  CHECK(c.shape().spec().node_name().empty());
  v1::Pod want = pod;
  want.mutable_metadata()->set_namespace_("default");
  CHECK(c.Decode().SerializeAsString() == want.SerializeAsString());
  // A copy shares the shape object and reads the same.
  const CompactPod copy = c;
  CHECK(copy.shared_shape() == c.shared_shape());
  CHECK(copy.name() == "web-0");
  CHECK(copy.rest() == c.rest());
  // A default CompactPod is the compacted empty pod.
  const CompactPod empty;
  const CompactPod empty_compacted = compactor.Compact(v1::Pod());
  CHECK(empty.name().empty());
  CHECK(empty.node_name().empty());
  CHECK(empty.namespace_() == "default");
  CHECK(empty.shared_shape()->key == empty_compacted.shared_shape()->key);
  CHECK(empty.Decode().SerializeAsString() ==
        empty_compacted.Decode().SerializeAsString());
}

TEST_CASE("compact pods: replicas share one shape object until released",
          "[compact-pod]") {
  PodCompactor compactor;
  std::vector<CompactPod> pods;
  pods.push_back(compactor.Compact(Pod("web-0", "n1")));
  pods.push_back(compactor.Compact(Pod("web-1", "n2")));
  v1::Pod canary = Pod("web-canary", "n1");
  (*canary.mutable_metadata()->mutable_labels())["track"] = "canary";
  pods.push_back(compactor.Compact(canary));
  CHECK(pods[0].shared_shape() == pods[1].shared_shape());
  CHECK(pods[0].shared_shape() != pods[2].shared_shape());
  CHECK(compactor.live_shape_count() == 2);

  const CompactShape* const web_shape = pods[0].shared_shape().get();
  const std::weak_ptr<const CompactShape> canary_shape = pods[2].shared_shape();
  pods.pop_back();
  CHECK(canary_shape.expired());  // Its only pod is gone.
  CHECK(compactor.live_shape_count() == 1);
  CHECK(compactor.table_size() == 2);
  compactor.ReleaseUnusedShapes();
  CHECK(compactor.table_size() == 1);
  // The web shape is still in use: a new replica gets it.
  CHECK(compactor.Compact(Pod("web-3", "n1")).shared_shape().get() ==
        web_shape);

  // A snapshot holds the shapes it uses: they outlive their pods.
  absl::StatusOr<Snapshot> s = [&] {
    ObjectSet o;
    o.nodes = {Node("n1"), Node("n2")};
    return FromCompact(std::move(o), pods);
  }();
  REQUIRE(s.ok());
  const std::weak_ptr<const CompactShape> web = pods[0].shared_shape();
  pods.clear();
  CHECK_FALSE(web.expired());
  CHECK(s->PodShape(1).spec().containers_size() == 1);
  *s = Snapshot();
  CHECK(web.expired());
  CHECK(compactor.live_shape_count() == 0);
}

TEST_CASE("compact pods: the table is swept as it grows", "[compact-pod]") {
  PodCompactor compactor;
  // Each pod a shape of its own, dropped at once: the table stays bounded.
  for (int i = 0; i < 1000; ++i) {
    v1::Pod pod = Pod("p", "n1");
    (*pod.mutable_metadata()->mutable_labels())["i"] = std::to_string(i);
    const CompactPod c = compactor.Compact(std::move(pod));
    CHECK(c.shape().metadata().labels().at("i") == std::to_string(i));
  }
  CHECK(compactor.table_size() <= 64);
  CHECK(compactor.live_shape_count() == 0);
}

TEST_CASE("compact pods: shape ids stay dense among live shapes",
          "[compact-pod]") {
  PodCompactor compactor;
  std::vector<CompactPod> pods;
  const auto with_label = [&](int i) {
    v1::Pod pod = Pod(absl::StrCat("p", i), "n1");
    (*pod.mutable_metadata()->mutable_labels())["i"] = std::to_string(i);
    return compactor.Compact(std::move(pod));
  };
  for (int i = 0; i < 3; ++i) pods.push_back(with_label(i));
  CHECK(pods[0].shared_shape()->id == 0);
  CHECK(pods[1].shared_shape()->id == 1);
  CHECK(pods[2].shared_shape()->id == 2);
  // Replicas have their shape's id.
  pods.push_back(compactor.Compact(Pod("p9", "n1")));
  pods.push_back(compactor.Compact(Pod("p8", "n1")));
  CHECK(pods[3].shared_shape()->id == 3);
  CHECK(pods[4].shared_shape()->id == 3);
  // Shape 1 gone and swept: its id goes to the next new shape.
  pods.erase(pods.begin() + 1);
  compactor.ReleaseUnusedShapes();
  const CompactPod fresh = with_label(7);
  CHECK(fresh.shared_shape()->id == 1);
  // Gone but not swept: the same shape again keeps its entry's id.
  const uint32_t third = pods[1].shared_shape()->id;
  pods.erase(pods.begin() + 1);
  CHECK(with_label(2).shared_shape()->id == third);
}

TEST_CASE("compact pods: mixing AddPod, AddCompactPod and compactors",
          "[compact-pod]") {
  const ObjectSet o = EdgeCases();
  absl::StatusOr<Snapshot> want = FromPods(o);
  REQUIRE(want.ok());
  // Odd pods through AddPod, even ones compacted by one of two compactors:
  // equal shapes from different sources still get one id.
  PodCompactor first;
  PodCompactor second;
  SnapshotBuilder builder;
  for (size_t i = 0; i < o.pods.size(); ++i) {
    if (i % 2 == 1) {
      builder.AddPod(o.pods[i]);
    } else {
      builder.AddCompactPod((i % 4 == 0 ? first : second).Compact(o.pods[i]));
    }
  }
  builder.objects() = o;
  builder.objects().pods.clear();
  absl::StatusOr<Snapshot> got = std::move(builder).Build();
  REQUIRE(got.ok());
  INFO(SnapshotDiff(*want, *got));
  CHECK(SnapshotDiff(*want, *got).empty());
}

TEST_CASE("compact pods: Build reports the errors AddPod's pods would",
          "[compact-pod]") {
  ObjectSet o;
  o.nodes = {Node("n1")};
  o.pods = {Pod("web-0", "n1"), Pod("web-1", "n1"), Pod("web-0", "n1")};
  SECTION("duplicate") {}
  SECTION("unnamed") { o.pods[1].mutable_metadata()->clear_name(); }
  absl::StatusOr<Snapshot> want = FromPods(o);
  absl::StatusOr<Snapshot> got = FromCompact(o);
  REQUIRE_FALSE(want.ok());
  CHECK(got.status() == want.status());
}

TEST_CASE("SnapshotDiff sees every kind of difference", "[compact-pod]") {
  const ObjectSet base = EdgeCases();
  const Snapshot a = *FromPods(base);
  CHECK(SnapshotDiff(a, *FromPods(base)).empty());

  ObjectSet changed = base;
  std::string expect;
  SECTION("a pod's own field") {
    changed.pods[1].mutable_metadata()->set_uid("other");
    expect = "DecodePod(1 \"shop/web-1\"): differ";
  }
  SECTION("a pod's shape") {
    (*changed.pods[11].mutable_metadata()->mutable_labels())["x"] = "y";
    expect = "PodShapeId(11 \"shop/web-2\"): 0 vs";
  }
  SECTION("pod order") {
    std::swap(changed.pods[0], changed.pods[1]);
    expect = "PodName(0 \"shop/web-0\"): \"web-0\" vs \"web-1\"";
  }
  SECTION("a pod's node") {
    changed.pods[0].mutable_spec()->set_node_name("n2");
    expect = "PodsOnNode(0 \"n1\"): [0, 2, 6, 7, 10, 11, 12] vs";
  }
  SECTION("a missing pod") {
    changed.pods.pop_back();
    expect = "pod_count(): 14 vs 13";
  }
  SECTION("Ready") {
    changed.pods[0] =
        testing::MakePod({.name = "web-0",
                          .ns = "shop",
                          .node = "n1",
                          .owner = "ReplicaSet",
                          .owner_name = "web-7f9",
                          .created = absl::FromUnixSeconds(1000),
                          .started = absl::FromUnixSeconds(2000),
                          .cpu = "250m",
                          .ready = "False",
                          .ready_since = absl::FromUnixSeconds(3000)});
    expect = "PodReadyCondition(0 \"shop/web-0\"): 1 vs 2";
  }
  SECTION("a node") {
    (*changed.nodes[1].mutable_metadata()->mutable_labels())["x"] = "y";
    expect = "nodes()[1] (\"n2\" vs \"n2\"): differ";
  }
  SECTION("a PDB's namespace") {
    changed.pdbs[0].mutable_metadata()->set_namespace_("blog");
    expect = "PdbsInNamespace(0): [0] vs []";
  }
  SECTION("a lookup") {
    changed.node_claims.push_back(testing::MakeNodeClaim({.name = "c"}));
    expect = "FindNodeClaim(\"c\"): none vs 0";
  }
  const Snapshot b = *FromPods(changed);
  const std::string diff = SnapshotDiff(a, b);
  INFO(diff);
  CHECK(diff.find(expect) != std::string::npos);
  CHECK(SnapshotDiff(b, a).size() > 0);
}

}  // namespace
}  // namespace karpenter::snapshot
