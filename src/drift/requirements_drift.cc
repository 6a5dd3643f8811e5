// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/drift/requirements_drift.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "drift/pool_facts.h"
#include "karpenter/requirements.h"
#include "karpenter/well_known.h"

namespace karpenter::drift {
namespace internal {

absl::StatusOr<Requirements> PoolRequirements(const v1::NodePool& pool) {
  return Requirements::FromProto(pool.spec().template_().spec().requirements(),
                                 "spec.template.spec.requirements");
}

std::optional<std::string> RequirementsDriftedAgainst(
    const Requirements& pool_reqs, const v1::NodeClaim& claim,
    std::string* why) {
  const Requirements claim_reqs =
      Requirements::FromLabels(claim.metadata().labels());
  // Karpenter passes no options: well-known labels are not allowed to be
  // undefined here, unlike in scheduling.
  std::string problems;
  if (claim_reqs.Compatible(pool_reqs, CompatibilityOptions{}, &problems)) {
    return std::nullopt;
  }
  if (why != nullptr) *why = std::move(problems);
  return std::string(well_known::kRequirementsDrifted);
}

}  // namespace internal

absl::StatusOr<std::optional<std::string>> RequirementsDrifted(
    const v1::NodePool& pool, const v1::NodeClaim& claim) {
  return RequirementsDrifted(pool, claim, nullptr);
}

absl::StatusOr<std::optional<std::string>> RequirementsDrifted(
    const v1::NodePool& pool, const v1::NodeClaim& claim, std::string* why) {
  absl::StatusOr<Requirements> pool_reqs = internal::PoolRequirements(pool);
  if (!pool_reqs.ok()) return pool_reqs.status();
  return internal::RequirementsDriftedAgainst(*pool_reqs, claim, why);
}

}  // namespace karpenter::drift
