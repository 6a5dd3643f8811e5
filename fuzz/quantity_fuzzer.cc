// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Fuzzes ParseQuantityMilli. Besides crashes and sanitizer reports it checks
// one algebraic property: for a non-negative result, appending "e0" (a
// no-op exponent) must not change the value when the input has no suffix.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "absl/strings/string_view.h"
#include "karpenter/quantity.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view input(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<int64_t> milli = karpenter::ParseQuantityMilli(input, "q");
  if (!milli.ok() || *milli < 0 || input.empty()) return 0;
  const char last = input.back();
  if (last < '0' || last > '9' ||
      input.find_first_of("eEinumkKMGTP") != absl::string_view::npos) {
    return 0;
  }
  absl::StatusOr<int64_t> with_exponent =
      karpenter::ParseQuantityMilli(std::string(input) + "e0", "q");
  if (!with_exponent.ok() || *with_exponent != *milli) std::abort();
  return 0;
}
