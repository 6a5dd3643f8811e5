// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Fuzzes instance-type catalogue ingestion (karpenter/catalog.h):
// ParseInstanceTypeCatalog on arbitrary bytes (YAML or JSON), then
// CatalogForEveryNodePool over an empty snapshot. Nothing may crash or
// throw; every error must be InvalidArgument; a loaded type's capacity must
// hold valid quantities that are >= 0 (its overhead never exceeds it).

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "karpenter/catalog.h"
#include "karpenter/quantity.h"
#include "karpenter/snapshot/snapshot.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::vector<karpenter::InstanceType>> types =
      karpenter::ParseInstanceTypeCatalog(text, "fuzz");
  if (!types.ok()) {
    if (types.status().code() != absl::StatusCode::kInvalidArgument) {
      std::abort();
    }
    return 0;
  }
  if (types->empty()) std::abort();
  for (const karpenter::InstanceType& t : *types) {
    if (t.name.empty() || t.offerings.empty()) std::abort();
    for (const auto& [resource, value] : t.capacity) {
      absl::StatusOr<int64_t> q = karpenter::ParseQuantityMilli(value);
      if (!q.ok() || *q < 0) std::abort();
    }
  }
  absl::StatusOr<karpenter::snapshot::Snapshot> empty =
      karpenter::snapshot::Snapshot::Build({});
  if (empty.ok()) karpenter::CatalogForEveryNodePool(*empty, *types);
  return 0;
}
