// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// testing::RandomEventGenerator: the same seed gives the same events, the
// initial cluster is a valid one, and the stream holds the kinds of event
// its header promises.

#include "karpenter/testing/random_events.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/state/cluster_state.h"

namespace karpenter::testing {
namespace {

using state::Event;
using state::EventType;

const v1::ObjectMeta& Meta(const Event& e) {
  return std::visit(
      [](const auto& o) -> const v1::ObjectMeta& { return o.metadata(); },
      e.object);
}

std::string Describe(const Event& e) {
  return std::visit(
      [&e](const auto& o) {
        return absl::StrCat(static_cast<int>(e.type), " ", e.origin, " ",
                            o.ShortDebugString());
      },
      e.object);
}

std::vector<std::string> Stream(uint64_t seed, int events) {
  RandomEventGenerator generator(seed);
  std::vector<std::string> out;
  for (const Event& e : generator.InitialEvents()) out.push_back(Describe(e));
  for (int i = 0; i < events; ++i) out.push_back(Describe(generator.Next()));
  return out;
}

TEST_CASE("random events: the same seed gives the same stream",
          "[random-events]") {
  CHECK(Stream(7, 300) == Stream(7, 300));
  CHECK(Stream(7, 300) != Stream(8, 300));
}

TEST_CASE("random events: the initial cluster is valid and complete",
          "[random-events]") {
  RandomEventGenerator generator(3, {.node_pools = 2,
                                     .nodes = 5,
                                     .pods_per_node = 2,
                                     .pending_pods = 2,
                                     .terminating_pods = 1,
                                     .apps = 2,
                                     .namespaces = 2,
                                     .daemon_sets = 1,
                                     .persistent_volumes = 2});
  const std::vector<Event> initial = generator.InitialEvents();
  state::ClusterState cluster;
  std::set<std::string> origins;
  for (const Event& e : initial) {
    INFO(Describe(e));
    CHECK(e.type == EventType::kAdded);
    absl::StatusOr<state::Applied> applied = cluster.Apply(e);
    REQUIRE(applied.ok());
    CHECK(*applied == state::Applied::kStored);
    origins.insert(e.origin);
  }
  CHECK(origins.size() == initial.size());
  CHECK(generator.InitialEvents().empty());
  absl::StatusOr<snapshot::Snapshot> snap = cluster.TakeSnapshot();
  REQUIRE(snap.ok());
  CHECK(snap->nodes().size() == 5);
  CHECK(snap->node_claims().size() == 5);
  CHECK(snap->csi_nodes().size() == 5);
  CHECK(snap->node_pools().size() == 2);
  // 10 app pods, 2 pending, a DaemonSet pod per node, a pod per volume.
  CHECK(snap->pod_count() == 10 + 2 + 5 + 2);
  CHECK(snap->UnboundPods().size() == 2);
  CHECK(snap->pdbs().size() == 4);
  CHECK(snap->persistent_volumes().size() == 2);
  CHECK(snap->persistent_volume_claims().size() == 2);
  CHECK(snap->volume_attachments().size() == 2);
  CHECK(snap->daemon_sets().size() == 1);
  CHECK(snap->storage_classes().size() == 1);
  // The catalogue covers every NodePool.
  const InstanceTypeCatalog catalog = generator.Catalog();
  CHECK(catalog.size() == 2);
}

TEST_CASE("random events: the stream holds the awkward events",
          "[random-events]") {
  RandomEventGenerator generator(11);
  generator.InitialEvents();
  std::set<EventType> types;
  int replays = 0, non_numeric = 0, unnamed = 0, bad_class = 0,
      no_namespace = 0;
  std::string previous;
  for (int i = 0; i < 2000; ++i) {
    const Event e = generator.Next();
    types.insert(e.type);
    const v1::ObjectMeta& meta = Meta(e);
    uint64_t rv = 0;
    if (!absl::SimpleAtoi(meta.resource_version(), &rv)) ++non_numeric;
    if (meta.name().empty()) ++unnamed;
    if (const auto* sc = std::get_if<v1::StorageClass>(&e.object);
        sc != nullptr && sc->volume_binding_mode() == "Later") {
      ++bad_class;
    }
    if (std::holds_alternative<v1::Pod>(e.object) &&
        meta.namespace_().empty()) {
      ++no_namespace;
    }
    // A replay is the previous event again, but for its origin.
    const std::string now = std::visit(
        [&e](const auto& o) {
          return absl::StrCat(static_cast<int>(e.type), o.ShortDebugString());
        },
        e.object);
    if (now == previous) ++replays;
    previous = now;
  }
  CHECK(types.size() == 3);
  CHECK(replays > 0);
  CHECK(non_numeric > 0);
  CHECK(unnamed > 0);
  CHECK(bad_class > 0);
  CHECK(no_namespace > 0);
}

}  // namespace
}  // namespace karpenter::testing
