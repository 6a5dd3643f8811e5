// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Pods compacted ahead of a Snapshot (SDK-internal, not installed).
//
// Snapshot::Build stores each pod split in two (karpenter/snapshot/snapshot.h,
// file comment): its *shape*, shared by the replicas of a workload, and the
// *rest*, the fields each replica owns, as protobuf wire bytes. Splitting,
// serializing and interning are most of what Build costs per pod. A host
// that keeps a cluster up to date event by event (state/ClusterState, the
// informer caches of Karpenter's pkg/controllers/state/cluster.go) can pay
// that cost once per pod event instead: it keeps every pod as a CompactPod
// made by a PodCompactor, held by std::shared_ptr, and assembles each
// Snapshot with SnapshotBuilder::AddCompactPod, which keeps that record
// itself (the Snapshot's pod store is these records; AddPod makes one per
// pod) and maps shapes to ids by pointer.
//
// A Snapshot assembled from CompactPods is identical to one built from the
// original pods with AddPod: same pod_shape_count, PodShapeId of every pod
// (ids in first-use order), DecodePod bytes, names, Ready conditions and
// indexes. AddPod and AddCompactPod may be mixed in one builder, and pods
// from several PodCompactors may be mixed too: a shape object the builder
// has not seen yet is matched by its deterministic serialization, exactly
// as AddPod matches shapes.
//
// Thread-safety: a CompactPod is immutable and its shape is shared
// read-only, so copies may be read and destroyed on any threads. A
// PodCompactor is thread-compatible: const methods may run concurrently,
// anything else needs external synchronization.

#ifndef KARPENTER_SNAPSHOT_COMPACT_POD_H_
#define KARPENTER_SNAPSHOT_COMPACT_POD_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/core.pb.h"

namespace karpenter::snapshot::internal {

// A pod's shape (the pod without what its replicas own) and its
// deterministic wire serialization, which identifies it among shapes.
struct CompactShape {
  static constexpr uint32_t kNoId = 0xFFFFFFFF;
  v1::Pod pod;
  std::string key;
  // Small and dense among the live shapes of the PodCompactor that made it
  // (reused once a shape is gone), so a table indexed by it can stand for
  // a hash map (check the object too: other compactors number alike).
  uint32_t id = kNoId;
};

// One pod, compacted: a shared shape plus the pod's own fields as wire
// bytes, with the name, spec.nodeName and Ready condition that the
// Snapshot indexes read. Cheap to copy (one string copy and a reference
// count increment) and to move.
class CompactPod {
 public:
  // An unnamed pod in namespace "default" with nothing else set: what
  // compacting `v1::Pod()` gives. (Build rejects it for its empty name.)
  CompactPod();

  // The pod's shape, shared with every pod compacted by the same
  // PodCompactor that differs from it only in what replicas own (see
  // Snapshot::PodShape).
  const v1::Pod& shape() const { return shape_->pod; }
  // The shape object itself: pods with the same object have equal shapes.
  const std::shared_ptr<const CompactShape>& shared_shape() const {
    return shape_;
  }
  // metadata.namespace, "default" if the pod had none.
  absl::string_view namespace_() const {
    return shape_->pod.metadata().namespace_();
  }
  absl::string_view name() const {
    return absl::string_view(bytes_).substr(rest_size_, name_size_);
  }
  // spec.nodeName; empty for an unbound pod.
  absl::string_view node_name() const {
    return absl::string_view(bytes_).substr(rest_size_ + name_size_);
  }
  PodReady ready() const { return ready_; }
  // The fields the shape lacks, as protobuf wire bytes of a v1::Pod.
  absl::string_view rest() const {
    return absl::string_view(bytes_).substr(0, rest_size_);
  }
  // The whole pod again (namespace defaulted): the shape merged with the
  // rest. O(size of the pod).
  v1::Pod Decode() const;
  // Heap bytes this pod holds on its own, shape excluded (it is shared).
  size_t OwnBytes() const { return bytes_.capacity(); }

 private:
  friend class PodCompactor;

  std::shared_ptr<const CompactShape> shape_;
  // The rest's wire bytes, then the name, then spec.nodeName: one buffer,
  // one allocation per pod.
  std::string bytes_;
  uint32_t rest_size_ = 0;
  uint32_t name_size_ = 0;
  PodReady ready_ = PodReady::kAbsent;
};

// Compacts pods, interning their shapes so that equal shapes share one
// CompactShape object for as long as some CompactPod uses it.
//
// Memory: the compactor holds its shapes weakly (std::weak_ptr keyed by
// their serialization); a shape lives as long as the CompactPods (and
// Snapshots) that use it, then is destroyed. Its table entry is swept
// once the table has doubled since the last sweep (amortised O(1) per
// Compact), or at once by ReleaseUnusedShapes. Compacting a pod equal in
// shape to one whose shape was destroyed makes a new shape object.
class PodCompactor {
 public:
  PodCompactor() = default;
  PodCompactor(PodCompactor&&) noexcept = default;
  PodCompactor& operator=(PodCompactor&&) noexcept = default;
  PodCompactor(const PodCompactor&) = delete;
  PodCompactor& operator=(const PodCompactor&) = delete;

  // Compacts `pod`, defaulting an empty metadata.namespace to "default"
  // as Snapshot::Build does. Never fails: names are checked when a
  // Snapshot is built. O(size of the pod).
  CompactPod Compact(v1::Pod pod);

  // Shapes some CompactPod or Snapshot still uses.
  size_t live_shape_count() const;
  // Table entries, live or not yet swept.
  size_t table_size() const { return shapes_.size(); }
  // Drops the table entries of shapes no longer used.
  void ReleaseUnusedShapes();

 private:
  struct Entry {
    std::weak_ptr<const CompactShape> shape;
    uint32_t id = CompactShape::kNoId;
  };
  absl::flat_hash_map<std::string, Entry> shapes_;
  // Shape ids free for reuse, and the next never used.
  std::vector<uint32_t> free_ids_;
  uint32_t next_id_ = 0;
  // Deterministic serialization of the shape being interned.
  std::string scratch_;
  size_t sweep_at_ = 64;
};

// What Snapshot's pod store and the compactor share. Not for other callers.

// PodReady of `status`'s first condition of type "Ready".
PodReady ReadyOfStatus(const v1::PodStatus& status);

// Moves the fields that differ between replicas out of `pod` (leaving its
// shape, see Snapshot::PodShape) into the returned message. Submessages are
// created in the result only where `pod` has them, so merging it back restores
// `pod` exactly.
v1::Pod SplitInstanceFields(v1::Pod& pod);

// Sets `out` to the deterministic serialization of `shape`: equal shapes,
// equal keys.
void ShapeKey(const v1::Pod& shape, std::string& out);

}  // namespace karpenter::snapshot::internal

#endif  // KARPENTER_SNAPSHOT_COMPACT_POD_H_
