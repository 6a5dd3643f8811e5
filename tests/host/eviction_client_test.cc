// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/eviction_client.h"

#include <catch2/catch.hpp>
#include <string>

namespace karpenter {
namespace {

TEST_CASE("eviction client: status codes map to the queue's result classes",
          "[eviction-client]") {
  struct Row {
    int status;
    std::string message;
    EvictionResult want;
  };
  const std::string multi(kMultiplePdbMessage);
  const Row rows[] = {
      {200, "", EvictionResult::kEvicted},
      {201, "", EvictionResult::kEvicted},
      {404, "pods \"a\" not found", EvictionResult::kNotFound},
      {409, "Precondition failed: UID", EvictionResult::kConflict},
      {429, "Cannot evict pod as it would violate the pod's disruption budget.",
       EvictionResult::kBlockedByPdb},
      {500, multi, EvictionResult::kMisconfigured},
      // A 500 with any other text is a server fault, not a misconfiguration.
      {500, multi + " ", EvictionResult::kOtherError},
      {500, "etcdserver: request timed out", EvictionResult::kOtherError},
      {403, "forbidden", EvictionResult::kOtherError},
      {0, "connection refused", EvictionResult::kOtherError},
  };
  for (const Row& row : rows) {
    INFO(row.status << " " << row.message);
    CHECK(ClassifyEvictionStatus(row.status, row.message) == row.want);
  }
}

TEST_CASE("eviction client: result names are stable", "[eviction-client]") {
  CHECK(EvictionResultName(EvictionResult::kEvicted) == "Evicted");
  CHECK(EvictionResultName(EvictionResult::kNotFound) == "NotFound");
  CHECK(EvictionResultName(EvictionResult::kConflict) == "Conflict");
  CHECK(EvictionResultName(EvictionResult::kBlockedByPdb) == "BlockedByPdb");
  CHECK(EvictionResultName(EvictionResult::kMisconfigured) == "Misconfigured");
  CHECK(EvictionResultName(EvictionResult::kOtherError) == "OtherError");
}

}  // namespace
}  // namespace karpenter
