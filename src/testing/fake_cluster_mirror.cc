// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// FakeCluster's informer (fake_cluster_internal.h): a state::ClusterState
// (karpenter/state/cluster_state.h) that mirrors the fake's store, fed only
// what changed since the last Read(), so that Read() takes its snapshot from
// the mirror as a host takes it from its watch cache instead of rebuilding it
// from every object.
//
// The store marks every object it changes (the Touch* calls). SyncMirror then
// feeds the mirror, per kind, DELETED for the objects gone, MODIFIED for the
// changed ones and ADDED for the new ones, so that the mirror's order (the
// order of first addition) is the store's Export order:
//  - Pods are exported by insertion order (PodId): a new pod goes last, as
//    in the mirror; a pod removed and re-created under the same name is a
//    new PodId, fed as DELETED then ADDED, so it goes last in both.
//  - Nodes, NodeClaims and VolumeAttachments are exported by name, and the
//    mirror keeps them in name order (state::ClusterStateOptions), so a new
//    name is fed as ADDED wherever it sorts.
//  - NodePools are exported in the order of their first ApplyNodePool and
//    never removed: an upsert keeps that order.
//  - PDBs carry the status the disruption controller would compute now: it
//    is recomputed at a sync after any pod or controller changed (its only
//    inputs) and fed when it changed.
//  - Claims, PVs, StorageClasses, CSINodes and DaemonSets never change after
//    Create(): fed once.
// The fake keeps the metadata.resourceVersion its objects were given, and the
// mirror ignores an event that is not newer than what it holds, so an object
// with a resourceVersion is fed twice: without it (always applied), then as
// it is.

#include <cstddef>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/util/message_differencer.h"
#include "karpenter/state/cluster_state.h"
#include "testing/fake_cluster_internal.h"

namespace karpenter::testing::internal {
namespace {

using state::EventType;

// Applies one event, which the mirror must take as `expected`.
template <typename T>
absl::Status ApplyOne(state::ClusterState& mirror, EventType type, T object,
                      state::Applied expected) {
  const std::string name = object.metadata().name();
  absl::StatusOr<state::Applied> applied =
      mirror.Apply(state::Event{type, std::move(object), ""});
  if (!applied.ok()) {
    return absl::InternalError(
        absl::StrCat("FakeCluster mirror: ", applied.status().message()));
  }
  if (*applied != expected) {
    return absl::InternalError(
        absl::StrCat("FakeCluster mirror: ", state::EventTypeName(type), " ",
                     name, ": not applied (", static_cast<int>(*applied), ")"));
  }
  return absl::OkStatus();
}

// Feeds `object` as ADDED or MODIFIED (both upserts in the mirror).
template <typename T>
absl::Status Store(state::ClusterState& mirror, EventType type,
                   const T& object) {
  if (!object.metadata().resource_version().empty()) {
    T bare = object;
    bare.mutable_metadata()->clear_resource_version();
    absl::Status s =
        ApplyOne(mirror, type, std::move(bare), state::Applied::kStored);
    if (!s.ok()) return s;
  }
  return ApplyOne(mirror, type, object, state::Applied::kStored);
}

// Feeds DELETED for the object of `name` (and `ns`, for namespaced kinds).
template <typename T>
absl::Status Remove(state::ClusterState& mirror, absl::string_view ns,
                    absl::string_view name) {
  T object;
  object.mutable_metadata()->set_name(std::string(name));
  object.mutable_metadata()->set_namespace_(std::string(ns));
  return ApplyOne(mirror, EventType::kDeleted, std::move(object),
                  state::Applied::kDeleted);
}

// Syncs one kind the store keeps in a name-ordered map, which the mirror
// keeps in name order too (see the file comment); `get` returns the object
// of a map value.
template <typename T, typename Map, typename Get>
absl::Status SyncByName(state::ClusterState& mirror, const Map& map, Get get,
                        std::set<std::string, std::less<>>& dirty,
                        std::set<std::string, std::less<>>& mirrored) {
  for (const std::string& name : dirty) {
    const auto it = map.find(name);
    absl::Status s;
    if (it == map.end()) {
      if (mirrored.erase(name) > 0) s = Remove<T>(mirror, "", name);
    } else if (mirrored.insert(name).second) {
      s = Store(mirror, EventType::kAdded, get(it->second));
    } else {
      s = Store(mirror, EventType::kModified, get(it->second));
    }
    if (!s.ok()) return s;
  }
  dirty.clear();
  return absl::OkStatus();
}

template <typename T>
absl::Status StoreAll(state::ClusterState& mirror, const std::vector<T>& list) {
  for (const T& object : list) {
    absl::Status s = Store(mirror, EventType::kAdded, object);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

// Compares two lists of one kind, object for object.
template <typename T>
absl::Status CompareList(absl::string_view list, const std::vector<T>& fake,
                         const std::vector<T>& mirror) {
  if (fake.size() != mirror.size()) {
    return absl::InternalError(
        absl::StrCat("FakeCluster mirror: ", list, ": ", mirror.size(),
                     " objects, the store has ", fake.size()));
  }
  for (size_t i = 0; i < fake.size(); ++i) {
    if (!google::protobuf::util::MessageDifferencer::Equals(fake[i],
                                                            mirror[i])) {
      return absl::InternalError(absl::StrCat(
          "FakeCluster mirror: ", list, "[", i, "]: \"",
          mirror[i].metadata().namespace_(),
          mirror[i].metadata().namespace_().empty() ? "" : "/",
          mirror[i].metadata().name(), "\" differs from the store's \"",
          fake[i].metadata().namespace_(),
          fake[i].metadata().namespace_().empty() ? "" : "/",
          fake[i].metadata().name(), "\""));
    }
  }
  return absl::OkStatus();
}

}  // namespace

void FakeClusterState::TouchPod(PodId id) {
  ++changes_;
  const PodRecord& r = pods_.at(id);
  DirtyPdbs(id, r);
  dirty_pods_.try_emplace(id, r.key);
  pdb_status_stale_ = true;
}

void FakeClusterState::TouchNode(absl::string_view name) {
  ++changes_;
  dirty_nodes_.emplace(name);
}

void FakeClusterState::TouchNodeClaim(absl::string_view name) {
  ++changes_;
  dirty_node_claims_.emplace(name);
}

void FakeClusterState::TouchVolume(absl::string_view name) {
  ++changes_;
  dirty_volumes_.emplace(name);
}

void FakeClusterState::TouchNodePool(absl::string_view name) {
  ++changes_;
  dirty_node_pools_.emplace(name);
}

absl::Status FakeClusterState::SyncMirror() {
  state::ClusterState& m = mirror_;
  absl::Status s = SyncByName<v1::Node>(
      m, nodes_, [](const v1::Node& n) -> const v1::Node& { return n; },
      dirty_nodes_, mirrored_nodes_);
  if (!s.ok()) return s;

  // Pods: removals first, so that a name re-created goes last.
  for (const auto& [id, key] : dirty_pods_) {
    if (pods_.contains(id)) continue;
    const size_t slash = key.find('/');
    s = Remove<v1::Pod>(m, absl::string_view(key).substr(0, slash),
                        absl::string_view(key).substr(slash + 1));
    if (!s.ok()) return s;
  }
  for (const auto& [id, key] : dirty_pods_) {
    const auto it = pods_.find(id);
    if (it == pods_.end()) continue;
    PodRecord& r = it->second;
    s = Store(m, r.mirrored ? EventType::kModified : EventType::kAdded, r.pod);
    if (!s.ok()) return s;
    r.mirrored = true;
  }
  dirty_pods_.clear();

  for (PdbRecord& r : pdbs_) {
    if (!pdb_status_stale_) break;
    const PdbCounts counts = Counts(r);
    if (r.mirrored.has_value() && *r.mirrored == counts) continue;
    s = Store(m, r.mirrored ? EventType::kModified : EventType::kAdded,
              PdbWithStatus(r, counts));
    if (!s.ok()) return s;
    r.mirrored = counts;
  }
  pdb_status_stale_ = false;

  if (!dirty_node_pools_.empty()) {
    for (const v1::NodePool& p : node_pools_) {
      if (!dirty_node_pools_.contains(p.metadata().name())) continue;
      s = Store(m, EventType::kAdded, p);
      if (!s.ok()) return s;
    }
    dirty_node_pools_.clear();
  }

  s = SyncByName<v1::NodeClaim>(
      m, node_claims_,
      [](const v1::NodeClaim& c) -> const v1::NodeClaim& { return c; },
      dirty_node_claims_, mirrored_node_claims_);
  if (!s.ok()) return s;
  s = SyncByName<v1::VolumeAttachment>(
      m, volumes_,
      [](const VolumeRecord& v) -> const v1::VolumeAttachment& {
        return v.object;
      },
      dirty_volumes_, mirrored_volumes_);
  if (!s.ok()) return s;

  if (!statics_mirrored_) {
    s = StoreAll(m, claims_);
    if (s.ok()) s = StoreAll(m, persistent_volumes_);
    if (s.ok()) s = StoreAll(m, storage_classes_);
    if (s.ok()) s = StoreAll(m, csi_nodes_);
    if (s.ok()) s = StoreAll(m, daemon_sets_);
    if (!s.ok()) return s;
    statics_mirrored_ = true;
  }
  return absl::OkStatus();
}

absl::Status FakeClusterState::CheckMirror() const {
  // Each PDB's counts, kept up to date by the changes, equal a recount.
  for (const PdbRecord& pdb : pdbs_) {
    const std::optional<PdbCounts> memo = Counts(pdb);
    const PdbCounts fresh = Recount(pdb);
    if (*memo != fresh) {
      return absl::InternalError(absl::StrCat(
          "pdb ", pdb.key, ": kept counts (healthy ", memo->current_healthy,
          ", expected ", memo->expected_pods,
          ") differ from a recount (healthy ", fresh.current_healthy,
          ", expected ", fresh.expected_pods, ")"));
    }
  }
  const snapshot::ObjectSet fake = Export();
  const snapshot::ObjectSet mirror = mirror_.Export();
  absl::Status s = CompareList("nodes", fake.nodes, mirror.nodes);
  if (s.ok()) s = CompareList("pods", fake.pods, mirror.pods);
  if (s.ok()) s = CompareList("pdbs", fake.pdbs, mirror.pdbs);
  if (s.ok()) {
    s = CompareList("node_pools", fake.node_pools, mirror.node_pools);
  }
  if (s.ok()) {
    s = CompareList("node_claims", fake.node_claims, mirror.node_claims);
  }
  if (s.ok()) {
    s = CompareList("volume_attachments", fake.volume_attachments,
                    mirror.volume_attachments);
  }
  if (s.ok()) {
    s = CompareList("persistent_volume_claims", fake.persistent_volume_claims,
                    mirror.persistent_volume_claims);
  }
  if (s.ok()) {
    s = CompareList("persistent_volumes", fake.persistent_volumes,
                    mirror.persistent_volumes);
  }
  if (s.ok()) {
    s = CompareList("storage_classes", fake.storage_classes,
                    mirror.storage_classes);
  }
  if (s.ok()) s = CompareList("csi_nodes", fake.csi_nodes, mirror.csi_nodes);
  if (s.ok()) {
    s = CompareList("daemon_sets", fake.daemon_sets, mirror.daemon_sets);
  }
  if (s.ok() && fake.skipped_kinds != mirror.skipped_kinds) {
    s = absl::InternalError("FakeCluster mirror: skipped_kinds differ");
  }
  return s;
}

}  // namespace karpenter::testing::internal
