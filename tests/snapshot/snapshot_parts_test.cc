// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// SnapshotParts: a builder given an earlier snapshot's parts makes the
// snapshot Build would make, and refuses objects of a kind it shares.

#include "snapshot/snapshot_parts.h"

#include <catch2/catch.hpp>
#include <memory>
#include <utility>
#include <vector>

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
  CHECK(SnapshotParts::Same(parts, *earlier, SnapshotParts::kAll));

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
    CHECK(SnapshotParts::Same(
        *shared, *earlier, SnapshotParts::kNodes | SnapshotParts::kNodeClaims));
    CHECK(SnapshotParts::Same(*shared, *earlier, SnapshotParts::kNodePools) ==
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

TEST_CASE("snapshot parts: held objects are shared, not copied", "[snapshot]") {
  absl::StatusOr<Snapshot> built = Snapshot::Build(Cluster());
  REQUIRE(built.ok());
  ObjectSet objects = Cluster();
  SnapshotBuilder builder;
  internal::HeldObjects& held = SnapshotParts::Held(builder);
  for (v1::Node& n : objects.nodes) {
    held.nodes.push_back(std::make_shared<const v1::Node>(std::move(n)));
  }
  objects.nodes.clear();
  for (v1::NodeClaim& c : objects.node_claims) {
    held.node_claims.push_back(
        std::make_shared<const v1::NodeClaim>(std::move(c)));
  }
  objects.node_claims.clear();
  const std::vector<std::shared_ptr<const v1::Node>> nodes = held.nodes;
  for (v1::Pod& pod : objects.pods) builder.AddPod(std::move(pod));
  objects.pods.clear();
  builder.objects() = std::move(objects);
  absl::StatusOr<Snapshot> s = std::move(builder).Build();
  REQUIRE(s.ok());
  CHECK(testing::SnapshotDiff(*s, *built).empty());
  REQUIRE(s->nodes().size() == nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    CHECK(&s->nodes()[i] == nodes[i].get());
    // The snapshot holds a share: the caller's and the snapshot's.
    CHECK(nodes[i].use_count() == 2);
  }
  CHECK(s->FindNode(nodes.back()->metadata().name()) == nodes.size() - 1);
  const std::optional<NodeClaimIndex> by_provider =
      s->FindNodeClaimByProviderId(s->node_claims()[0].status().provider_id());
  CHECK(by_provider == NodeClaimIndex{0});
  *std::move(s) = Snapshot();
  for (const auto& n : nodes) CHECK(n.use_count() == 1);
}

TEST_CASE("snapshot parts: held and given objects of one kind are refused",
          "[snapshot]") {
  SnapshotBuilder builder;
  SnapshotParts::Held(builder).nodes.push_back(
      std::make_shared<const v1::Node>(testing::MakeNode({.name = "held"})));
  builder.objects().nodes.push_back(testing::MakeNode({.name = "given"}));
  absl::StatusOr<Snapshot> s = std::move(builder).Build();
  REQUIRE_FALSE(s.ok());
  CHECK(s.status().message() ==
        "the builder was given nodes both as objects (1) and held (1)");

  absl::StatusOr<Snapshot> earlier = Snapshot::Build(Cluster());
  REQUIRE(earlier.ok());
  SnapshotBuilder sharing;
  SnapshotParts::Share(sharing, *earlier, SnapshotParts::kNodeClaims);
  SnapshotParts::Held(sharing).node_claims.push_back(
      std::make_shared<const v1::NodeClaim>(
          testing::MakeNodeClaim({.name = "c"})));
  s = std::move(sharing).Build();
  REQUIRE_FALSE(s.ok());
  CHECK(s.status().message() ==
        "the builder shares node_claims from an earlier snapshot but was "
        "given 1 more");
}

TEST_CASE("snapshot parts: held duplicates are refused as given ones are",
          "[snapshot]") {
  SnapshotBuilder builder;
  auto& pools = SnapshotParts::Held(builder).node_pools;
  pools.push_back(std::make_shared<const v1::NodePool>(
      testing::MakeNodePool({.name = "default"})));
  pools.push_back(pools.back());
  absl::StatusOr<Snapshot> s = std::move(builder).Build();
  REQUIRE_FALSE(s.ok());
  CHECK(s.status().message() ==
        "duplicate NodePool \"default\": node_pools[0] and node_pools[1]");
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
