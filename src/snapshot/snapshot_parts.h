// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Sharing the parts of a Snapshot between snapshots (SDK-internal, not
// installed).
//
// A Snapshot keeps each kind other than pods (Nodes, PDBs, NodePools,
// NodeClaims, VolumeAttachments, PersistentVolumeClaims, PersistentVolumes,
// StorageClasses, CSINodes, DaemonSets) in an immutable part with the
// indexes that depend on that kind alone. A state::ClusterState that takes
// one snapshot after another hands the parts of the kinds no event touched
// since the previous snapshot to the next one, so that only changed kinds
// are copied and indexed again. The result is the snapshot Build would make
// over the same objects: a part is exactly what Build makes of its kind.
//
// Thread-safety: parts are immutable; the functions are as thread-safe as
// reading `from` and writing `builder`.

#ifndef KARPENTER_SNAPSHOT_SNAPSHOT_PARTS_H_
#define KARPENTER_SNAPSHOT_SNAPSHOT_PARTS_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/types/span.h"
#include "karpenter/snapshot/snapshot.h"

namespace karpenter::snapshot::internal {

// Objects of each kind but pods, each held on its own (immutable, possibly
// shared with the caller and other snapshots), for a builder to take as
// they are: SnapshotParts::Held.
struct HeldObjects {
  std::vector<std::shared_ptr<const v1::Node>> nodes;
  std::vector<std::shared_ptr<const v1::PodDisruptionBudget>> pdbs;
  std::vector<std::shared_ptr<const v1::NodePool>> node_pools;
  std::vector<std::shared_ptr<const v1::NodeClaim>> node_claims;
  std::vector<std::shared_ptr<const v1::VolumeAttachment>> volume_attachments;
  std::vector<std::shared_ptr<const v1::PersistentVolumeClaim>>
      persistent_volume_claims;
  std::vector<std::shared_ptr<const v1::PersistentVolume>> persistent_volumes;
  std::vector<std::shared_ptr<const v1::StorageClass>> storage_classes;
  std::vector<std::shared_ptr<const v1::CSINode>> csi_nodes;
  std::vector<std::shared_ptr<const v1::DaemonSet>> daemon_sets;
};

struct SnapshotParts {
  // One bit per kind with a part.
  enum Kind : uint32_t {
    kNodes = 1u << 0,
    kPdbs = 1u << 1,
    kNodePools = 1u << 2,
    kNodeClaims = 1u << 3,
    kVolumeAttachments = 1u << 4,
    kPersistentVolumeClaims = 1u << 5,
    kPersistentVolumes = 1u << 6,
    kStorageClasses = 1u << 7,
    kCSINodes = 1u << 8,
    kDaemonSets = 1u << 9,
    kAll = (1u << 10) - 1,
  };

  // A snapshot holding `from`'s parts and nothing else (no pods, no
  // cross-kind indexes): what a holder of parts keeps between snapshots.
  static Snapshot Of(const Snapshot& from);

  // Replaces the parts of the kinds in `kinds` of `parts` (a holder made by
  // Of) with those of `from`; the others stay.
  static void Replace(Snapshot& parts, const Snapshot& from, uint32_t kinds);

  // True if `a` and `b` hold the same part (the same storage, not merely
  // equal objects) of every kind in `kinds`: then whatever depends on those
  // kinds alone is the same for both.
  static bool Same(const Snapshot& a, const Snapshot& b, uint32_t kinds);

  // Makes `builder` take the parts of the kinds in `kinds` from `from`
  // instead of building them: its Build then shares their objects and
  // indexes (nothing is copied or checked again) and fails with
  // InvalidArgument if objects() still holds objects of one of those kinds.
  static void Share(SnapshotBuilder& builder, const Snapshot& from,
                    uint32_t kinds);

  // The objects `builder` takes as they are, without a copy: its Build
  // places the objects of each kind listed here in a new part in this
  // order, sharing each object (so snapshots share the objects they have in
  // common, and destroying one frees none the others hold). A kind listed
  // here must have no objects in builder.objects() nor be shared (Share),
  // or Build fails with InvalidArgument. The objects must be as Build would
  // store them: namespaced kinds with a namespace ("default" when empty);
  // their names are checked by Build as usual.
  static HeldObjects& Held(SnapshotBuilder& builder);

  // Tells `builder` that no two of its pods share a namespace/name and that
  // none has an empty name (its caller's store is keyed by them and refuses
  // empty names): Build then skips both checks and leaves the index FindPod
  // reads to be built on the first FindPod.
  static void AssumeUniquePodKeys(SnapshotBuilder& builder);

  // No node hint (AddHeldPod).
  static constexpr uint32_t kNoNodeHint = Snapshot::kNoNodeHint;

  // Appends `pod` to `builder` without taking a share of it (the caller
  // keeps it alive for the snapshot: KeepPodsAlive), as AddCompactPod
  // would; `shape_id` and `ready` must be pod->shared_shape()->id and
  // pod->ready() (passed so that the record is read only for a shape not
  // seen yet). A builder given pods this
  // way must be given no pods any other way, and all from one
  // PodCompactor (whose live shapes are unique by key), so that a shape
  // id seen first is a shape seen first. `node_hint` is
  // the pod's node as PodNodes() of an earlier snapshot gave it for the
  // same record, or kNoNodeHint: Build takes the hint instead of looking
  // the node up by name. Hints are read against the Nodes part of the
  // snapshot named by HintsFrom, translated to the new snapshot's Nodes
  // by name when its Nodes changed (a lookup per Node, not per pod);
  // without HintsFrom, only if the builder shares the Nodes part (Share
  // with kNodes), as indexes of that part; otherwise every hint is
  // ignored. A caller must only hint a pod with the value a snapshot
  // holding that Nodes part computed for the same record.
  static void AddHeldPod(SnapshotBuilder& builder, const CompactPod* pod,
                         uint32_t shape_id, PodReady ready, uint32_t node_hint);
  // The snapshot whose PodNodes() gave the hints of AddHeldPod (only its
  // Nodes part is read, and kept until Build).
  static void HintsFrom(SnapshotBuilder& builder, const Snapshot& earlier);
  // Makes the snapshot `builder` builds hold `owner` (a share of whatever
  // keeps the pods given to AddHeldPod alive) as long as it lives.
  static void KeepPodsAlive(SnapshotBuilder& builder,
                            std::shared_ptr<const void> owner);

  // Per shape id of `now`, the id of the very same shape object in
  // `before` (which both hold), or CompactShape::kNoId: what depends on a
  // shape alone can be taken from before's facts. O(shapes).
  static std::vector<uint32_t> SameShapes(const Snapshot& before,
                                          const Snapshot& now);

  // Per pod of `snapshot`, in PodIndex order: its NodeIndex, or a value
  // above every NodeIndex for a pod that is unbound or names no Node of
  // the snapshot. For AddHeldPod.
  static absl::Span<const uint32_t> PodNodes(const Snapshot& snapshot);
};

}  // namespace karpenter::snapshot::internal

#endif  // KARPENTER_SNAPSHOT_SNAPSHOT_PARTS_H_
