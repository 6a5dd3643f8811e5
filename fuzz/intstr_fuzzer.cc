// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Fuzzes IntOrPercent::Parse and Scale: accepted values must round-trip
// through ToString, and Scale must never crash for extreme totals.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>

#include "absl/strings/string_view.h"
#include "karpenter/intstr.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view input(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<karpenter::IntOrPercent> v =
      karpenter::IntOrPercent::Parse(input, "nodes");
  if (!v.ok()) return 0;
  absl::StatusOr<karpenter::IntOrPercent> again =
      karpenter::IntOrPercent::Parse(v->ToString(), "nodes");
  if (!again.ok() || *again != *v) std::abort();
  constexpr int64_t kTotals[] = {0,
                                 1,
                                 -1,
                                 3,
                                 100,
                                 std::numeric_limits<int32_t>::max(),
                                 std::numeric_limits<int64_t>::max(),
                                 std::numeric_limits<int64_t>::min()};
  for (int64_t total : kTotals) {
    absl::StatusOr<int64_t> up = v->Scale(total, true);
    absl::StatusOr<int64_t> down = v->Scale(total, false);
    if (up.ok() && down.ok() && *up < *down) std::abort();
    if (!v->is_percent() && (!up.ok() || *up != v->value())) std::abort();
  }
  return 0;
}
