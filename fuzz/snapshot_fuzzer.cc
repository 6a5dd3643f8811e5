// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Fuzzes snapshot ingestion: LoadText (JSON or YAML, sniffed) on arbitrary
// bytes, then Snapshot::Build on whatever loaded. Neither may crash, throw,
// or exhaust memory; errors must be InvalidArgument.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <utility>

#include "absl/strings/string_view.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  karpenter::snapshot::ObjectSet set;
  const absl::Status loaded = karpenter::snapshot::LoadText(text, "fuzz", set);
  if (!loaded.ok()) {
    if (loaded.code() != absl::StatusCode::kInvalidArgument) std::abort();
    return 0;
  }
  auto snapshot = karpenter::snapshot::Snapshot::Build(std::move(set));
  if (!snapshot.ok() &&
      snapshot.status().code() != absl::StatusCode::kInvalidArgument) {
    std::abort();
  }
  return 0;
}
