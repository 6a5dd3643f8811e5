// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Fuzzes scenario ingestion (testing/scenario.h): LoadChanges and
// LoadScenarioOrDump (with DumpTime) on arbitrary bytes, and LoadScenario
// (YAML or JSON; the cluster documents and the one Scenario document), then
// ValidateScenario, then ExpandGenerated on what validated. Nothing may
// crash, throw or allocate without bound (ValidateScenario caps the
// generated counts); every error must be InvalidArgument.

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "absl/strings/string_view.h"
#include "karpenter/testing/scenario.h"

namespace {

void RequireInvalidArgument(const absl::Status& status) {
  if (!status.ok() && status.code() != absl::StatusCode::kInvalidArgument) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  // The same bytes as a --change file, and as a dump without a Scenario.
  RequireInvalidArgument(
      karpenter::testing::LoadChanges(text, "fuzz").status());
  absl::StatusOr<karpenter::testing::LoadedScenario> dump =
      karpenter::testing::LoadScenarioOrDump(text, "fuzz");
  RequireInvalidArgument(dump.status());
  if (dump.ok()) (void)karpenter::testing::DumpTime(dump->cluster);
  absl::StatusOr<karpenter::testing::LoadedScenario> loaded =
      karpenter::testing::LoadScenario(text, "fuzz");
  RequireInvalidArgument(loaded.status());
  if (!loaded.ok()) return 0;
  const absl::Status valid =
      karpenter::testing::ValidateScenario(loaded->scenario);
  RequireInvalidArgument(valid);
  if (!valid.ok()) return 0;
  // Keep each input cheap: the caps allow 10k nodes per group, which is
  // fine for a scenario but slow for a fuzzer.
  int64_t generated = 0;
  for (const auto& g : loaded->scenario.spec().generate().nodes()) {
    generated += g.count();
  }
  for (const auto& w : loaded->scenario.spec().generate().workloads()) {
    generated += w.replicas();
  }
  if (generated > 2000) return 0;
  RequireInvalidArgument(
      karpenter::testing::ExpandGenerated(loaded->scenario, loaded->cluster));
  return 0;
}
