// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// DecodedPods: the pods of one Snapshot decoded at most once each, for a
// caller that reads the same pods whole several times in one pass (the
// drainer plans a node's pods, enqueues them, checks each eviction and
// explains what is left: four or five reads of each pod a step).
//
// Snapshot::DecodePod reassembles a pod from its shape and its own bytes
// (about 2 us); DecodedPods keeps each pod it decoded for its own lifetime,
// so a pod read again costs a hash lookup. Nothing here is Kubernetes
// semantics: it is a cache, and a pod read through it is exactly
// Snapshot::DecodePod's.
//
// Thread-safety: not thread-safe (Get decodes on first use); one per pass.
// The Snapshot must outlive it.
#ifndef KARPENTER_SNAPSHOT_DECODED_PODS_H_
#define KARPENTER_SNAPSHOT_DECODED_PODS_H_

#include <memory>

#include "absl/container/flat_hash_map.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/core.pb.h"

namespace karpenter::snapshot {

class DecodedPods {
 public:
  explicit DecodedPods(const Snapshot& snapshot) : snapshot_(&snapshot) {}

  DecodedPods(const DecodedPods&) = delete;
  DecodedPods& operator=(const DecodedPods&) = delete;

  const Snapshot& snapshot() const { return *snapshot_; }

  // Pod `p`, as snapshot().DecodePod(p) returns it; the reference stays
  // valid for the lifetime of this object. `p` must be < pod_count().
  const v1::Pod& Get(PodIndex p) {
    std::unique_ptr<v1::Pod>& slot = pods_[p];
    if (slot == nullptr) {
      slot = std::make_unique<v1::Pod>(snapshot_->DecodePod(p));
    }
    return *slot;
  }

 private:
  const Snapshot* snapshot_;
  absl::flat_hash_map<PodIndex, std::unique_ptr<v1::Pod>> pods_;
};

}  // namespace karpenter::snapshot

#endif  // KARPENTER_SNAPSHOT_DECODED_PODS_H_
