// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/cluster_view.h"

#include "absl/strings/str_cat.h"
#include "host/cluster_view_checks.h"
#include "karpenter/well_known.h"

namespace karpenter {

absl::string_view ObjectKindName(ObjectKind kind) {
  switch (kind) {
    case ObjectKind::kNode:
      return "Node";
    case ObjectKind::kNodeClaim:
      return "NodeClaim";
  }
  return "Node";
}

namespace internal {

absl::Status CheckNotEmpty(absl::string_view field, absl::string_view value) {
  if (!value.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(field, ": must not be empty"));
}

absl::Status CheckTaint(const v1::Taint& taint) {
  if (taint.key().empty()) {
    return absl::InvalidArgumentError("taint.key: must not be empty");
  }
  const std::string& effect = taint.effect();
  if (effect == well_known::kTaintEffectNoSchedule ||
      effect == well_known::kTaintEffectPreferNoSchedule ||
      effect == well_known::kTaintEffectNoExecute) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("taint.effect: \"", effect, "\": must be one of \"",
                   well_known::kTaintEffectNoSchedule, "\", \"",
                   well_known::kTaintEffectPreferNoSchedule, "\", \"",
                   well_known::kTaintEffectNoExecute, "\""));
}

absl::Status CheckCondition(const v1::Condition& condition) {
  if (condition.type().empty()) {
    return absl::InvalidArgumentError("condition.type: must not be empty");
  }
  const std::string& status = condition.status();
  if (status == well_known::kConditionTrue ||
      status == well_known::kConditionFalse ||
      status == well_known::kConditionUnknown) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "condition.status: \"", status, "\": must be one of \"",
      well_known::kConditionTrue, "\", \"", well_known::kConditionFalse,
      "\", \"", well_known::kConditionUnknown, "\""));
}

absl::Status CheckPodRef(const PodRef& pod) {
  if (pod.namespace_name.empty()) {
    return absl::InvalidArgumentError("pod.namespace: must not be empty");
  }
  return CheckNotEmpty("pod.name", pod.name);
}

absl::StatusOr<int64_t> GraceSeconds(absl::Duration grace) {
  if (grace < absl::ZeroDuration() || grace == absl::InfiniteDuration() ||
      absl::Trunc(grace, absl::Seconds(1)) != grace) {
    return absl::InvalidArgumentError(
        absl::StrCat("grace: \"", absl::FormatDuration(grace),
                     "\": must be a non-negative whole number of seconds"));
  }
  return absl::ToInt64Seconds(grace);
}

}  // namespace internal
}  // namespace karpenter
