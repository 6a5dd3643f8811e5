// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Internal: the API server's validation of the storage objects a Snapshot
// indexes, the part the SDK's readers rely on. The loaders run it on each
// object they decode (their errors add the source, document, item and
// object), and Snapshot::Build on every object again (its errors add the
// list position and object), so objects a host hands to SnapshotBuilder are
// held to the same rules.
//
// Ports, for the fields the protos declare:
//   - PersistentVolume: k8s.io/kubernetes pkg/apis/core/validation
//     `ValidatePersistentVolumeSpec` (a claimRef needs a name) and
//     `validateVolumeNodeAffinity` / `ValidateNodeSelector` /
//     `ValidateNodeSelectorRequirement` /
//     `ValidateNodeFieldSelectorRequirement` (required terms, their keys,
//     operators and value counts). Values are not checked as label values, nor
//     Gt/Lt values as integers: the API server lets objects created before
//     those checks keep invalid values
//     (AllowInvalidLabelValueInRequiredNodeAffinity), and the scheduler
//     reads an unparsable Gt/Lt value as matching no node.
//   - StorageClass: pkg/apis/storage/validation `validateVolumeBindingMode`
//     and `validateAllowedTopologies` / core `ValidateTopologySelectorTerm`.
//   - CSINode: pkg/apis/storage/validation `validateCSINodeDrivers` (names
//     present and unique, allocatable.count not negative).
// DaemonSets are not validated here.
//
// Each function returns OK or InvalidArgument "<field path>: <what>", for
// the first problem in field order, quoting the offending value, e.g.
//   volumeBindingMode: expected "Immediate" or "WaitForFirstConsumer", got
//   "Later"
//
// Not installed. Thread-safety: pure functions.

#ifndef KARPENTER_SRC_SNAPSHOT_VALIDATE_H_
#define KARPENTER_SRC_SNAPSHOT_VALIDATE_H_

#include "absl/status/status.h"
#include "karpenter/v1/storage.pb.h"

namespace karpenter::snapshot::internal {

absl::Status ValidatePersistentVolume(const v1::PersistentVolume& pv);
absl::Status ValidateStorageClass(const v1::StorageClass& sc);
absl::Status ValidateCSINode(const v1::CSINode& node);

}  // namespace karpenter::snapshot::internal

#endif  // KARPENTER_SRC_SNAPSHOT_VALIDATE_H_
