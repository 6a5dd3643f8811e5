// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Internal: formatting shared by the budget extensions' explanations.
//
// Thread-safety: pure functions.
#ifndef KARPENTER_SRC_BUDGET_EXTENSIONS_INTERNAL_H_
#define KARPENTER_SRC_BUDGET_EXTENSIONS_INTERNAL_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "karpenter/budget/extensions.h"

namespace karpenter::budget::internal {

// RFC 3339 in UTC with a "Z" suffix and only the fractional digits needed
// ("2026-11-22T09:00:00Z"); "never" for InfiniteFuture.
std::string FormatInstant(absl::Time t);

// A capacity amount as a Kubernetes quantity: cpu millicores in cores with
// at most 3 decimals ("114", "11.4", "0.25"); memory bytes in the largest
// binary unit that divides them exactly ("64Gi", "1536Mi", "1000").
std::string FormatAmount(CapacityResource resource, int64_t v);

// A quantity ("8", "500m", "64Gi") as an absolute amount of `resource`:
// millicores for cpu, bytes for memory (a fraction of a byte rounds up, as
// Quantity.Value() does). Errors: ParseQuantityMilli's (InvalidArgument or
// OutOfRange), and InvalidArgument "must be >= 0" for a negative quantity.
absl::StatusOr<int64_t> AmountFromQuantity(CapacityResource resource,
                                           absl::string_view quantity);

}  // namespace karpenter::budget::internal

#endif  // KARPENTER_SRC_BUDGET_EXTENSIONS_INTERNAL_H_
