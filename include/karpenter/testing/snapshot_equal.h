// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// SnapshotDiff: compares two Snapshots through every accessor, for tests
// that build one cluster two ways (from protos, from compacted pods, from a
// ClusterState fed event by event) and must get the same snapshot.
//
// Two snapshots are equal when a caller cannot tell them apart: the same
// objects of every kind in the same order (compared by deterministic wire
// serialization, so map fields in any order compare equal), the same pods
// (DecodePod, PodShape, PodShapeId, PodName, PodKey, PodReadyCondition,
// NamespaceOfPod, NodeOfPod, PodIsUnbound), the same shape count, the same
// per-node and per-namespace lists (PodsOnNode, VolumeAttachmentsOnNode,
// UnboundPods, PodsOnUnknownNodes, PdbsInNamespace), the same namespaces,
// the same answer from every Find* lookup for every object's key in either
// snapshot (and for a name neither holds), the same default StorageClass
// and class of each claim, and the same skipped kinds. It is not a Kubernetes
// rule; it ports nothing.
//
// Thread-safety: a pure function of two immutable snapshots.

#ifndef KARPENTER_TESTING_SNAPSHOT_EQUAL_H_
#define KARPENTER_TESTING_SNAPSHOT_EQUAL_H_

#include <string>

#include "karpenter/snapshot/snapshot.h"

namespace karpenter::testing {

// Empty if `a` and `b` are equal as above; otherwise one line per
// difference found (at most 20, then "... and more"), each naming the
// accessor and its arguments and quoting both values, e.g.
// `PodShapeId(3): 1 vs 2`, `PodsOnNode(0 "node-0"): [0, 1] vs [1, 0]`.
// Never fails; it reads nothing out of range even when the snapshots
// differ in size.
std::string SnapshotDiff(const snapshot::Snapshot& a,
                         const snapshot::Snapshot& b);

}  // namespace karpenter::testing

#endif  // KARPENTER_TESTING_SNAPSHOT_EQUAL_H_
