// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Fuzzes the whole `karpenter plan` path end to end: arbitrary bytes ->
// snapshot::LoadText -> Snapshot::Build -> one disruption pass
// (disruption::Controller::Decide with the catalogue of the instance types
// the dump's nodes run, ObservedInstanceTypes, as tools/karpenter/
// plan_command.cc builds it) at a fixed instant -> disruption::PlanToProto.
// Nothing may crash, throw or exhaust memory. Load and build errors must be
// InvalidArgument (snapshot/load.h, snapshot/snapshot.h), and the pass may
// only fail with InvalidArgument (controller.h: objects the simulation
// cannot read); anything else aborts. A second pass with every offering
// priced (plan's catalogue has no prices) reaches consolidation.
//
// Inputs are bounded so that one execution stays cheap: at most 64 KiB of
// text, 64 nodes plus NodeClaims and 512 pods.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "karpenter/cloud_provider.h"
#include "karpenter/disruption/controller.h"
#include "karpenter/disruption/plan_proto.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/plan.pb.h"

namespace {

constexpr size_t kMaxInputBytes = 64 * 1024;
constexpr size_t kMaxMachines = 64;
constexpr size_t kMaxPods = 512;

void RequireInvalidArgument(const absl::Status& status) {
  if (!status.ok() && status.code() != absl::StatusCode::kInvalidArgument) {
    std::abort();
  }
}

// One pass and its proto; false if the pass failed (with InvalidArgument).
bool PassAndProto(const karpenter::disruption::Controller& controller,
                  const karpenter::snapshot::Snapshot& snap,
                  const karpenter::disruption::PassInputs& inputs,
                  absl::Time now) {
  const absl::StatusOr<karpenter::disruption::Plan> plan =
      controller.Decide(snap, inputs, now);
  RequireInvalidArgument(plan.status());
  if (!plan.ok()) return false;
  const karpenter::v1::Plan message = karpenter::disruption::PlanToProto(*plan);
  // Every node, and every NodeClaim without a node, has one verdict.
  if (message.verdicts_size() != static_cast<int>(plan->verdicts.size())) {
    std::abort();
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > kMaxInputBytes) return 0;
  namespace snapshot = karpenter::snapshot;
  namespace disruption = karpenter::disruption;
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  snapshot::ObjectSet objects;
  const absl::Status loaded = snapshot::LoadText(text, "fuzz", objects);
  RequireInvalidArgument(loaded);
  if (!loaded.ok()) return 0;
  if (objects.nodes.size() + objects.node_claims.size() > kMaxMachines ||
      objects.pods.size() > kMaxPods) {
    return 0;
  }
  absl::StatusOr<snapshot::Snapshot> snap =
      snapshot::Snapshot::Build(std::move(objects));
  RequireInvalidArgument(snap.status());
  if (!snap.ok()) return 0;

  disruption::PassInputs inputs;
  inputs.catalog = disruption::ObservedInstanceTypes(*snap);
  // 2024-06-01T12:00:00Z: a fixed instant, so every run is reproducible.
  const absl::Time now = absl::FromUnixSeconds(1717243200);
  const disruption::Controller controller;
  if (!PassAndProto(controller, *snap, inputs, now)) return 0;
  // `karpenter plan`'s catalogue has no prices, which makes every node
  // ineligible for consolidation; a second pass with priced offerings
  // reaches the consolidation simulation too.
  for (auto& [pool, types] : inputs.catalog) {
    for (karpenter::InstanceType& type : types) {
      for (karpenter::Offering& offering : type.offerings) offering.price = 1;
    }
  }
  PassAndProto(controller, *snap, inputs, now);
  return 0;
}
