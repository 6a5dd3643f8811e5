// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Fuzzes snapshot ingestion: LoadText (JSON or YAML, sniffed) on arbitrary
// bytes, then Snapshot::Build on whatever loaded, then the volume-detachment
// filter on the first nodes. Nothing may crash, throw, or exhaust memory;
// load and build errors must be InvalidArgument, and the filter must succeed
// for every node index in range.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <utility>

#include "absl/strings/string_view.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/termination/volumes.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  karpenter::snapshot::ObjectSet set;
  const absl::Status loaded = karpenter::snapshot::LoadText(text, "fuzz", set);
  if (!loaded.ok()) {
    if (loaded.code() != absl::StatusCode::kInvalidArgument) std::abort();
    return 0;
  }
  auto snapshot = karpenter::snapshot::Snapshot::Build(std::move(set));
  if (!snapshot.ok()) {
    if (snapshot.status().code() != absl::StatusCode::kInvalidArgument) {
      std::abort();
    }
    return 0;
  }
  constexpr uint32_t kMaxNodes = 16;
  const auto nodes = static_cast<uint32_t>(snapshot->nodes().size());
  for (uint32_t n = 0; n < nodes && n < kMaxNodes; ++n) {
    if (!karpenter::termination::PendingVolumeAttachments(*snapshot, n,
                                                          absl::UnixEpoch())
             .ok()) {
      std::abort();
    }
  }
  return 0;
}
