// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "budget/membership.h"

#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "karpenter/conditions.h"
#include "karpenter/well_known.h"

namespace karpenter::budget::internal {
namespace {

const std::string& InitializedLabel() {
  static const std::string* const kKey =
      new std::string(well_known::kNodeInitializedLabelKey);
  return *kKey;
}

std::optional<snapshot::NodeClaimIndex> ClaimOf(const snapshot::Snapshot& s,
                                                const v1::Node& node) {
  if (!node.spec().provider_id().empty()) {
    return s.FindNodeClaimByProviderId(node.spec().provider_id());
  }
  return s.FindNodeClaimByNodeName(node.metadata().name());
}

}  // namespace

const std::string& NodePoolLabel() {
  static const std::string* const kKey =
      new std::string(well_known::kNodePoolLabelKey);
  return *kKey;
}

absl::string_view Label(const v1::ObjectMeta& meta, const std::string& key) {
  auto it = meta.labels().find(key);
  return it == meta.labels().end() ? absl::string_view() : it->second;
}

std::optional<PoolMember> ClassifyNode(const snapshot::Snapshot& snapshot,
                                       const v1::Node& node) {
  const std::optional<snapshot::NodeClaimIndex> claim_index =
      ClaimOf(snapshot, node);
  if (!claim_index.has_value()) return std::nullopt;  // Unmanaged.
  if (Label(node.metadata(), InitializedLabel()) != "true") return std::nullopt;
  const v1::NodeClaim& claim = snapshot.node_claims()[*claim_index];
  if (IsConditionTrue(claim.status().conditions(),
                      well_known::kConditionTypeInstanceTerminating)) {
    return std::nullopt;
  }
  const std::optional<snapshot::NodePoolIndex> pool =
      snapshot.FindNodePool(Label(node.metadata(), NodePoolLabel()));
  if (!pool.has_value()) return std::nullopt;
  PoolMember member;
  member.pool = *pool;
  member.claim = *claim_index;
  const bool ready = IsConditionTrue(node.status().conditions(),
                                     well_known::kConditionTypeReady);
  member.disrupting = !ready || claim.metadata().has_deletion_timestamp();
  return member;
}

}  // namespace karpenter::budget::internal
