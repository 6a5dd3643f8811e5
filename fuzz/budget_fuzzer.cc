// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Fuzzes the budget parsers. The first byte picks the target:
//   'r': ParseRateBudget; an accepted spec must validate and round-trip
//        through FormatRateBudget;
//   'c': ParseCapacityBudget; likewise through FormatCapacityBudget;
//   'e', 's', 'z', 'm': the SDK disruption controls' parsers
//        (disruption/controls.h: soft-expiration, consolidation-min-savings,
//        max-disrupting-zones, consolidation-max-replacements); an
//        accepted value must round-trip through its Format function;
//   anything else: the rest is loaded as JSON/YAML objects and every
//        NodePool goes through ParseDisruptionSpec, ParseBudgetExtensions,
//        ParseNodePoolControls, AllowedDisruptions and (with soft
//        expiration) ExpirationAllowance at two instants.
// None may crash, throw or abort; parse failures must be InvalidArgument or
// OutOfRange.

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "karpenter/budget/allowed.h"
#include "karpenter/budget/disruption_spec.h"
#include "karpenter/budget/extensions.h"
#include "karpenter/disruption/controls.h"
#include "karpenter/snapshot/load.h"

namespace {

namespace budget = karpenter::budget;

void RequireParseCode(const absl::Status& status) {
  if (status.code() != absl::StatusCode::kInvalidArgument &&
      status.code() != absl::StatusCode::kOutOfRange) {
    std::abort();
  }
}

void FuzzRate(absl::string_view text) {
  absl::StatusOr<budget::RateBudgetSpec> spec = budget::ParseRateBudget(text);
  if (!spec.ok()) return RequireParseCode(spec.status());
  if (!budget::ValidateRateBudget(*spec).ok()) std::abort();
  absl::StatusOr<budget::RateBudgetSpec> again =
      budget::ParseRateBudget(budget::FormatRateBudget(*spec));
  if (!again.ok() || again->max_disruptions != spec->max_disruptions ||
      again->window != spec->window) {
    std::abort();
  }
}

void FuzzCapacity(absl::string_view text) {
  absl::StatusOr<budget::CapacityBudgetSpec> spec =
      budget::ParseCapacityBudget(text);
  if (!spec.ok()) return RequireParseCode(spec.status());
  if (!budget::ValidateCapacityBudget(*spec).ok()) std::abort();
  absl::StatusOr<budget::CapacityBudgetSpec> again =
      budget::ParseCapacityBudget(budget::FormatCapacityBudget(*spec));
  if (!again.ok() || again->resource != spec->resource ||
      again->amount != spec->amount) {
    std::abort();
  }
}

namespace disruption = karpenter::disruption;

void FuzzControl(char which, absl::string_view text) {
  switch (which) {
    case 'e': {
      absl::StatusOr<disruption::SoftExpirationSpec> spec =
          disruption::ParseSoftExpiration(text);
      if (!spec.ok()) return RequireParseCode(spec.status());
      absl::StatusOr<disruption::SoftExpirationSpec> again =
          disruption::ParseSoftExpiration(
              disruption::FormatSoftExpiration(*spec));
      if (!again.ok() || !(*again == *spec)) std::abort();
      return;
    }
    case 's': {
      absl::StatusOr<disruption::MinSavingsSpec> spec =
          disruption::ParseMinSavings(text);
      if (!spec.ok()) return RequireParseCode(spec.status());
      absl::StatusOr<disruption::MinSavingsSpec> again =
          disruption::ParseMinSavings(disruption::FormatMinSavings(*spec));
      if (!again.ok() || !(*again == *spec)) std::abort();
      return;
    }
    case 'z': {
      absl::StatusOr<int64_t> n = disruption::ParseMaxDisruptingZones(text);
      if (!n.ok()) return RequireParseCode(n.status());
      if (*n < 1 || *n > 1000) std::abort();
      return;
    }
    default: {
      absl::StatusOr<int64_t> n = disruption::ParseMaxReplacements(text);
      if (!n.ok()) return RequireParseCode(n.status());
      if (*n != 1 && *n != 2) std::abort();
    }
  }
}

void FuzzNodePools(absl::string_view text) {
  karpenter::snapshot::ObjectSet set;
  if (!karpenter::snapshot::LoadText(text, "fuzz", set).ok()) return;
  const absl::Time instants[] = {absl::FromUnixSeconds(0),
                                 absl::FromUnixSeconds(1741600800)};
  for (const auto& node_pool : set.node_pools) {
    absl::StatusOr<budget::DisruptionSpec> spec =
        budget::ParseDisruptionSpec(node_pool);
    absl::StatusOr<disruption::NodePoolControls> controls =
        disruption::ParseNodePoolControls(node_pool);
    if (!controls.ok()) RequireParseCode(controls.status());
    if (spec.ok()) {
      for (absl::Time now : instants) {
        for (budget::DisruptionReason reason : budget::kAllDisruptionReasons) {
          const int64_t allowed =
              budget::AllowedDisruptions(*spec, reason, 10, now);
          if (allowed < 0) std::abort();
        }
        if (controls.ok() && controls->soft_expiration.has_value() &&
            disruption::ExpirationAllowance(*controls->soft_expiration, *spec,
                                            10, now)
                    .allowed < 0) {
          std::abort();
        }
      }
    } else {
      RequireParseCode(spec.status());
    }
    absl::StatusOr<budget::BudgetExtensions> ext =
        budget::ParseBudgetExtensions(node_pool);
    if (!ext.ok()) RequireParseCode(ext.status());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const absl::string_view rest(reinterpret_cast<const char*>(data) + 1,
                               size - 1);
  switch (data[0]) {
    case 'r':
      FuzzRate(rest);
      break;
    case 'c':
      FuzzCapacity(rest);
      break;
    case 'e':
    case 's':
    case 'z':
    case 'm':
      FuzzControl(static_cast<char>(data[0]), rest);
      break;
    default:
      FuzzNodePools(rest);
      break;
  }
  return 0;
}
