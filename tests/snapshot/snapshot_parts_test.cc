// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// SnapshotParts: a builder given an earlier snapshot's parts makes the
// snapshot Build would make, and refuses objects of a kind it shares.

#include "snapshot/snapshot_parts.h"

#include <catch2/catch.hpp>
#include <utility>

#include "absl/status/statusor.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/testing/builders.h"
#include "karpenter/testing/snapshot_equal.h"
#include "karpenter/testing/synthetic_cluster.h"

namespace karpenter::snapshot {
namespace {

using internal::SnapshotParts;

ObjectSet Cluster() {
  absl::StatusOr<ObjectSet> objects =
      testing::MakeSyntheticCluster({.nodes = 40, .app_pods_per_node = 3});
  REQUIRE(objects.ok());
  return *std::move(objects);
}

TEST_CASE("snapshot parts: shared kinds give the snapshot of the objects",
          "[snapshot]") {
  absl::StatusOr<Snapshot> earlier = Snapshot::Build(Cluster());
  REQUIRE(earlier.ok());
  const Snapshot parts = SnapshotParts::Of(*earlier);
  CHECK(parts.pod_count() == 0);
  CHECK(parts.nodes().data() == earlier->nodes().data());

  // Every kind shared but pods; or only nodes and claims shared.
  for (const uint32_t kinds :
       {static_cast<uint32_t>(SnapshotParts::kAll),
        static_cast<uint32_t>(SnapshotParts::kNodes |
                              SnapshotParts::kNodeClaims)}) {
    ObjectSet objects = Cluster();
    SnapshotBuilder builder;
    SnapshotParts::Share(builder, parts, kinds);
    for (v1::Pod& pod : objects.pods) builder.AddPod(std::move(pod));
    objects.pods.clear();
    if (kinds & SnapshotParts::kNodes) objects.nodes.clear();
    if (kinds & SnapshotParts::kNodeClaims) objects.node_claims.clear();
    if (kinds == SnapshotParts::kAll) {
      objects = ObjectSet();
    }
    builder.objects() = std::move(objects);
    absl::StatusOr<Snapshot> shared = std::move(builder).Build();
    REQUIRE(shared.ok());
    CHECK(testing::SnapshotDiff(*shared, *earlier).empty());
    CHECK(shared->nodes().data() == earlier->nodes().data());
    CHECK(shared->node_claims().data() == earlier->node_claims().data());
    CHECK((shared->node_pools().data() == earlier->node_pools().data()) ==
          (kinds == SnapshotParts::kAll));
  }
}

TEST_CASE("snapshot parts: objects of a shared kind are refused",
          "[snapshot]") {
  absl::StatusOr<Snapshot> earlier = Snapshot::Build(Cluster());
  REQUIRE(earlier.ok());
  SnapshotBuilder builder;
  SnapshotParts::Share(builder, *earlier, SnapshotParts::kNodes);
  builder.objects().nodes.push_back(testing::MakeNode({.name = "extra"}));
  absl::StatusOr<Snapshot> s = std::move(builder).Build();
  REQUIRE_FALSE(s.ok());
  CHECK(s.status().message() ==
        "the builder shares nodes from an earlier snapshot but was given 1 "
        "more");
}

TEST_CASE("snapshot parts: an empty snapshot has empty parts", "[snapshot]") {
  const Snapshot empty;
  const Snapshot parts = SnapshotParts::Of(empty);
  CHECK(parts.nodes().empty());
  CHECK(parts.storage_classes().empty());
  CHECK_FALSE(parts.DefaultStorageClass().has_value());
  CHECK_FALSE(parts.FindNode("x").has_value());
  CHECK_FALSE(parts.FindNodeClaimByProviderId("aws:///x").has_value());
}

TEST_CASE("snapshot parts: a moved-from snapshot reads as an empty one",
          "[snapshot]") {
  absl::StatusOr<Snapshot> built = Snapshot::Build(Cluster());
  REQUIRE(built.ok());
  const Snapshot moved = *std::move(built);
  REQUIRE_FALSE(moved.nodes().empty());
  const Snapshot& from = *built;  // NOLINT: read after move on purpose.
  CHECK(from.nodes().empty());
  CHECK(from.node_claims().empty());
  CHECK(from.pod_count() == 0);
  CHECK_FALSE(from.FindNode(moved.nodes()[0].metadata().name()).has_value());
  CHECK_FALSE(from.FindPod("default", "x").has_value());
  CHECK_FALSE(from.DefaultStorageClass().has_value());
}

}  // namespace
}  // namespace karpenter::snapshot
