// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Internal: the snapshot-wide check of the SDK's do-not-disrupt window
// annotations (issue 26) for ValidateSnapshot. Kept apart from the API
// server ports on purpose: it checks SDK annotations, not CRD rules.
//
// Thread-safety: a pure function of its arguments.
#ifndef KARPENTER_SRC_VALIDATION_DO_NOT_DISRUPT_WINDOW_H_
#define KARPENTER_SRC_VALIDATION_DO_NOT_DISRUPT_WINDOW_H_

#include "karpenter/snapshot/snapshot.h"
#include "karpenter/validation.h"

namespace karpenter::validation::internal {

// Appends DoNotDisruptWindowErrors of every Node and Pod of `snapshot` to
// `report.errors` (unsorted) and counts the Nodes and Pods carrying a
// window annotation in `report.checked["Node"]` / `["Pod"]` (set only when
// positive).
void CheckDoNotDisruptWindows(const snapshot::Snapshot& snapshot,
                              SnapshotReport& report);

}  // namespace karpenter::validation::internal

#endif  // KARPENTER_SRC_VALIDATION_DO_NOT_DISRUPT_WINDOW_H_
