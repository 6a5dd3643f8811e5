// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#include "karpenter/disruption/types.h"

namespace karpenter::disruption {

absl::string_view MethodName(Method method) {
  switch (method) {
    case Method::kNodePoolDeleted:
      return "NodePoolDeleted";
    case Method::kExpiration:
      return "Expiration";
    case Method::kEmptiness:
      return "Emptiness";
    case Method::kStaticDrift:
      return "StaticDrift";
    case Method::kDrift:
      return "Drift";
    case Method::kMultiNodeConsolidation:
      return "MultiNodeConsolidation";
    case Method::kSingleNodeConsolidation:
      return "SingleNodeConsolidation";
  }
  return "Unknown";
}

MethodClass ClassOf(Method method) {
  switch (method) {
    case Method::kNodePoolDeleted:
    case Method::kExpiration:
      return MethodClass::kForceful;
    case Method::kStaticDrift:
    case Method::kDrift:
      return MethodClass::kEventual;
    case Method::kEmptiness:
    case Method::kMultiNodeConsolidation:
    case Method::kSingleNodeConsolidation:
      return MethodClass::kGraceful;
  }
  return MethodClass::kGraceful;
}

std::optional<budget::DisruptionReason> BudgetReasonOf(Method method) {
  switch (method) {
    case Method::kNodePoolDeleted:
    case Method::kExpiration:
      return std::nullopt;
    case Method::kEmptiness:
      return budget::DisruptionReason::kEmpty;
    case Method::kStaticDrift:
    case Method::kDrift:
      return budget::DisruptionReason::kDrifted;
    case Method::kMultiNodeConsolidation:
    case Method::kSingleNodeConsolidation:
      return budget::DisruptionReason::kUnderutilized;
  }
  return std::nullopt;
}

absl::string_view DecisionName(Decision decision) {
  switch (decision) {
    case Decision::kNoOp:
      return "NoOp";
    case Decision::kDelete:
      return "Delete";
    case Decision::kReplace:
      return "Replace";
  }
  return "Unknown";
}

}  // namespace karpenter::disruption
