// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Fuzzes ParseGoDuration / ParseNillableDuration and checks that every
// accepted duration formats to text that parses back to the same value.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "karpenter/duration.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view input(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<absl::Duration> d = karpenter::ParseGoDuration(input);
  absl::StatusOr<std::optional<absl::Duration>> nillable =
      karpenter::ParseNillableDuration(input, "field");
  if (input != "Never" && nillable.ok() != d.ok()) std::abort();
  if (!d.ok()) return 0;
  const std::string text = karpenter::FormatGoDuration(*d);
  absl::StatusOr<absl::Duration> again = karpenter::ParseGoDuration(text);
  if (!again.ok() || *again != *d) std::abort();
  return 0;
}
