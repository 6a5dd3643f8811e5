// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/drift/requirements_drift.h"

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "karpenter/requirements.h"

namespace karpenter::drift {

absl::StatusOr<std::optional<std::string>> RequirementsDrifted(
    const v1::NodePool& pool, const v1::NodeClaim& claim) {
  return RequirementsDrifted(pool, claim, nullptr);
}

absl::StatusOr<std::optional<std::string>> RequirementsDrifted(
    const v1::NodePool& pool, const v1::NodeClaim& claim, std::string* why) {
  absl::StatusOr<Requirements> pool_reqs =
      Requirements::FromProto(pool.spec().template_().spec().requirements(),
                              "spec.template.spec.requirements");
  if (!pool_reqs.ok()) return pool_reqs.status();
  const Requirements claim_reqs =
      Requirements::FromLabels(claim.metadata().labels());
  // Karpenter passes no options: well-known labels are not allowed to be
  // undefined here, unlike in scheduling.
  std::string problems;
  if (claim_reqs.Compatible(*pool_reqs, CompatibilityOptions{}, &problems)) {
    return std::nullopt;
  }
  if (why != nullptr) *why = std::move(problems);
  return std::string(kRequirementsDrifted);
}

}  // namespace karpenter::drift
