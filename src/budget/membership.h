// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Internal: which Nodes a NodePool budget counts, and which of them are
// already disrupting, as Karpenter's BuildDisruptionBudgetMapping
// (pkg/controllers/disruption/helpers.go) decides it. Shared by BudgetBook
// (allowed.cc) and the SDK extensions (extensions.cc) so that node-count,
// rate and capacity budgets agree on membership.
//
// Thread-safety: pure functions.
#ifndef KARPENTER_SRC_BUDGET_MEMBERSHIP_H_
#define KARPENTER_SRC_BUDGET_MEMBERSHIP_H_

#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/core.pb.h"
#include "karpenter/v1/meta.pb.h"

namespace karpenter::budget::internal {

// well_known::kNodePoolLabelKey as a std::string, so protobuf map lookups
// need no temporary.
const std::string& NodePoolLabel();

// The value of label `key` on `meta`, or "" when absent.
absl::string_view Label(const v1::ObjectMeta& meta, const std::string& key);

// A Node that a NodePool budget counts.
struct PoolMember {
  snapshot::NodePoolIndex pool = 0;
  snapshot::NodeClaimIndex claim = 0;
  // Ready is not exactly "True" (NotReady, Unknown, missing) or its
  // NodeClaim has a deletionTimestamp.
  bool disrupting = false;
};

// The NodePool that counts `node`, or nullopt when no budget counts it: no
// NodeClaim (matched by spec.providerID, or by NodeClaim status.nodeName
// when the Node has no providerID), not labelled
// karpenter.sh/initialized=true, NodeClaim InstanceTerminating=True, or a
// karpenter.sh/nodepool label naming no NodePool of `snapshot`.
std::optional<PoolMember> ClassifyNode(const snapshot::Snapshot& snapshot,
                                       const v1::Node& node);

}  // namespace karpenter::budget::internal

#endif  // KARPENTER_SRC_BUDGET_MEMBERSHIP_H_
