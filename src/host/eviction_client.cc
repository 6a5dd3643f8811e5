// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/eviction_client.h"

namespace karpenter {

absl::string_view EvictionResultName(EvictionResult result) {
  switch (result) {
    case EvictionResult::kEvicted:
      return "Evicted";
    case EvictionResult::kNotFound:
      return "NotFound";
    case EvictionResult::kConflict:
      return "Conflict";
    case EvictionResult::kBlockedByPdb:
      return "BlockedByPdb";
    case EvictionResult::kMisconfigured:
      return "Misconfigured";
    case EvictionResult::kOtherError:
      return "OtherError";
  }
  return "OtherError";
}

EvictionResult ClassifyEvictionStatus(int http_status,
                                      absl::string_view message) {
  switch (http_status) {
    case 200:
    case 201:
      return EvictionResult::kEvicted;
    case 404:
      return EvictionResult::kNotFound;
    case 409:
      return EvictionResult::kConflict;
    case 429:
      return EvictionResult::kBlockedByPdb;
    case 500:
      // Only the eviction handler's multiple-PDB refusal is a
      // misconfiguration; any other 500 is a server fault to back off from.
      return message == kMultiplePdbMessage ? EvictionResult::kMisconfigured
                                            : EvictionResult::kOtherError;
    default:
      return EvictionResult::kOtherError;
  }
}

}  // namespace karpenter
