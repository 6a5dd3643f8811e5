// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/cloud_provider.h"

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "karpenter/well_known.h"

namespace karpenter {

absl::string_view InstanceStateName(InstanceState state) {
  switch (state) {
    case InstanceState::kPending:
      return "Pending";
    case InstanceState::kRunning:
      return "Running";
    case InstanceState::kTerminating:
      return "Terminating";
  }
  return "Unknown";
}

std::vector<RepairPolicy> DefaultRepairPolicies() {
  const std::string ready(well_known::kConditionTypeReady);
  return {
      {ready, std::string(well_known::kConditionFalse), absl::Minutes(15)},
      {ready, std::string(well_known::kConditionUnknown), absl::Minutes(15)},
  };
}

}  // namespace karpenter
