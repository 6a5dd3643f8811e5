// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#include "karpenter/disruption/cost.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/charconv.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/timestamp.pb.h"
#include "karpenter/duration.h"
#include "karpenter/time_util.h"
#include "karpenter/well_known.h"

namespace karpenter::disruption {
namespace {

constexpr double kDeletionCostScale = 134217728.0;  // 2^27
constexpr double kPriorityScale = 33554432.0;       // 2^25

absl::Status BadCost(absl::string_view value) {
  return absl::InvalidArgumentError(
      absl::StrCat("annotation ", well_known::kPodDeletionCost, ": \"", value,
                   "\" is not a number"));
}

}  // namespace

absl::StatusOr<double> ParsePodDeletionCost(absl::string_view value) {
  absl::string_view digits = value;
  double sign = 1;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    sign = digits[0] == '-' ? -1 : 1;
    digits.remove_prefix(1);
  }
  // Go accepts "Inf" and "Infinity" in any case; from_chars would too, but
  // also "nan", which we refuse.
  if (absl::EqualsIgnoreCase(digits, "inf") ||
      absl::EqualsIgnoreCase(digits, "infinity")) {
    return sign * std::numeric_limits<double>::infinity();
  }
  // Only digits, '.', and an exponent: no whitespace, "nan", hex or '_'.
  if (digits.empty() || !(absl::ascii_isdigit(digits[0]) || digits[0] == '.')) {
    return BadCost(value);
  }
  double parsed = 0;
  const absl::from_chars_result r =
      absl::from_chars(digits.data(), digits.data() + digits.size(), parsed,
                       absl::chars_format::general);
  if (r.ec != std::errc() || r.ptr != digits.data() + digits.size()) {
    return BadCost(value);
  }
  return sign * parsed;
}

double EvictionCost(const v1::Pod& pod) {
  double cost = 1.0;
  const auto& annotations = pod.metadata().annotations();
  if (!annotations.empty()) {
    static const std::string* const kKey =
        new std::string(well_known::kPodDeletionCost);
    auto it = annotations.find(*kKey);
    if (it != annotations.end()) {
      absl::StatusOr<double> deletion_cost = ParsePodDeletionCost(it->second);
      if (deletion_cost.ok()) cost += *deletion_cost / kDeletionCostScale;
    }
  }
  if (pod.spec().has_priority()) {
    cost += static_cast<double>(pod.spec().priority()) / kPriorityScale;
  }
  return std::clamp(cost, -10.0, 10.0);
}

absl::StatusOr<std::optional<absl::Duration>> ExpireAfterOf(
    const v1::NodeClaim& claim) {
  if (!claim.spec().has_expire_after()) return std::nullopt;
  return ParseNillableDuration(claim.spec().expire_after(), "spec.expireAfter");
}

absl::StatusOr<std::optional<absl::Duration>> ExpireAfterOf(
    const v1::NodeClaim& claim, const v1::NodePool* pool) {
  if (claim.spec().has_expire_after() || pool == nullptr ||
      !pool->spec().disruption().has_expire_after()) {
    return ExpireAfterOf(claim);
  }
  return ParseNillableDuration(
      pool->spec().disruption().expire_after(),
      absl::StrCat("NodePool \"", pool->metadata().name(),
                   "\" spec.disruption.expireAfter"));
}

double LifetimeRemaining(const v1::NodeClaim& claim, absl::Time now) {
  absl::StatusOr<std::optional<absl::Duration>> expire = ExpireAfterOf(claim);
  return LifetimeRemaining(TimeFromProto(claim.metadata().creation_timestamp()),
                           expire.ok() ? *expire : std::nullopt, now);
}

double LifetimeRemaining(absl::Time created,
                         std::optional<absl::Duration> expire_after,
                         absl::Time now) {
  if (!expire_after.has_value()) return 1.0;
  if (*expire_after <= absl::ZeroDuration()) return 0.0;
  const double remaining =
      absl::FDivDuration(*expire_after - (now - created), *expire_after);
  return std::clamp(remaining, 0.0, 1.0);
}

}  // namespace karpenter::disruption
