// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#include "disruption/verdict_sink.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace karpenter::disruption::internal {

int VerdictRank(absl::string_view code) {
  if (code == reasons::kCommanded) return 6;
  // "Not selected" (another node was chosen, or multi-node consolidation
  // had too few candidates) gives way to any concrete reason a later
  // method finds for the same node.
  if (code == reasons::kNotSelected) return 3;
  if (code == reasons::kNotDrifted || code == reasons::kNotExpired ||
      code == reasons::kNotEmpty || code == reasons::kNoDisruptionNeeded) {
    return 1;
  }
  if (code == reasons::kConsolidationDisabled ||
      code == reasons::kNotConsolidatable ||
      code == reasons::kWhenEmptyPolicy || code == reasons::kStaticNodePool) {
    return 2;
  }
  // Every other code is a concrete reason, kPodDoNotDisrupt and the SDK's
  // kDoNotDisruptWindow among them (a pod's window stops a method as a
  // pod's do-not-disrupt does); a Node's kNodeDoNotDisrupt or
  // kDoNotDisruptWindow is a node-level exclusion, ranked 5 by the caller.
  return 4;
}

NodeVerdict MakeVerdict(const Candidate& c, Method method,
                        absl::string_view code, std::string message) {
  NodeVerdict v;
  v.node = DisplayName(c);
  v.node_claim = c.node_claim_name;
  v.node_pool = c.node_pool_name;
  v.method = method;
  v.code = std::string(code);
  v.message = std::move(message);
  return v;
}

std::vector<NodeVerdict> CollectingSink::Take() && {
  std::stable_sort(verdicts_.begin(), verdicts_.end(),
                   [](const NodeVerdict& a, const NodeVerdict& b) {
                     return a.node < b.node;
                   });
  return std::move(verdicts_);
}

}  // namespace karpenter::disruption::internal
