// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Test helpers for consolidation: candidate and catalogue builders (the
// instance types and requirements from karpenter/testing/builders.h) and a
// scripted SchedulingSimulator whose answer depends on the candidate set.
#ifndef KARPENTER_TESTS_DISRUPTION_CONSOLIDATION_TEST_UTIL_H_
#define KARPENTER_TESTS_DISRUPTION_CONSOLIDATION_TEST_UTIL_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "karpenter/disruption/consolidation.h"
#include "karpenter/disruption/types.h"
#include "karpenter/testing/builders.h"

namespace karpenter::disruption::consolidation_test {

// A consolidatable, non-empty on-demand candidate in zone-a. Its
// reschedule cost is 2, so SavingsRatio = price / 2.
inline Candidate MakeCandidate(const std::string& name, const std::string& pool,
                               const std::string& type, double price,
                               const std::string& capacity_type = "on-demand") {
  Candidate c;
  c.node_name = name;
  c.node_claim_name = name + "-claim";
  c.provider_id = "fake:///zone-a/" + name;
  c.node_pool_name = pool;
  c.instance_type = type;
  c.zone = "zone-a";
  c.capacity_type = capacity_type;
  c.price = price;
  c.reschedulable_pods = {1};
  c.reschedule_disruption_cost = 2;
  c.disruption_cost = 1;
  c.consolidatable = true;
  return c;
}

// An instance type offered in zone-a as on-demand at `on_demand` and, when
// `spot` > 0, as spot at `spot`.
inline InstanceType MakeType(const std::string& name, double on_demand,
                             double spot = 0) {
  return testing::MakeInstanceType(
      {.name = name,
       .cpu = "",
       .memory = "",
       .pods = "",
       .zones = {"zone-a"},
       .on_demand_price = on_demand,
       .spot_price = spot > 0 ? std::optional(spot) : std::nullopt});
}

// A replacement from `pool` that may launch as any of `types`, restricted to
// `capacity_types` when non-empty.
inline Replacement MakeReplacement(
    const std::string& pool, std::vector<std::string> types,
    const std::vector<std::string>& capacity_types = {}) {
  Replacement r;
  r.node_pool = pool;
  r.instance_types = std::move(types);
  r.node_claim.mutable_metadata()->set_name(pool + "-replacement");
  *r.node_claim.mutable_spec()->add_requirements() = testing::MakeRequirement(
      "node.kubernetes.io/instance-type", "In", r.instance_types);
  if (!capacity_types.empty()) {
    *r.node_claim.mutable_spec()->add_requirements() = testing::MakeRequirement(
        "karpenter.sh/capacity-type", "In", capacity_types);
  }
  return r;
}

inline SimulationResult Fits() {
  return SimulationResult{.all_pods_scheduled = true};
}
inline SimulationResult NeedsOne(Replacement r) {
  SimulationResult s{.all_pods_scheduled = true};
  s.new_node_claims.push_back(std::move(r));
  return s;
}
inline SimulationResult DoesNotFit(const std::string& why) {
  return SimulationResult{.all_pods_scheduled = false, .unschedulable = {why}};
}

// Answers with `answer(node names of the set, in the order given)` and
// records every call.
class ScriptedSimulator : public SchedulingSimulator {
 public:
  using Answer =
      std::function<SimulationResult(const std::vector<std::string>&)>;
  explicit ScriptedSimulator(Answer answer) : answer_(std::move(answer)) {}

  SimulationResult Simulate(
      absl::Span<const Candidate> candidates) const override {
    std::vector<std::string> names;
    for (const Candidate& c : candidates) names.push_back(c.node_name);
    calls.push_back(names);
    return answer_(names);
  }

  mutable std::vector<std::vector<std::string>> calls;

 private:
  Answer answer_;
};

// A ledger with `pools`' remaining counts set.
inline BudgetLedger Ledger(const std::map<std::string, int64_t>& pools) {
  BudgetLedger ledger;
  for (const auto& [pool, n] : pools) ledger.Set(pool, n);
  return ledger;
}

// The verdict of `node` in `r`, or null.
inline const NodeVerdict* VerdictOf(const ConsolidationResult& r,
                                    absl::string_view node) {
  for (const NodeVerdict& v : r.verdicts) {
    if (v.node == node) return &v;
  }
  return nullptr;
}

inline std::vector<std::string> NodeNames(const Command& command) {
  std::vector<std::string> out;
  for (const Candidate& c : command.candidates) out.push_back(c.node_name);
  return out;
}

}  // namespace karpenter::disruption::consolidation_test

#endif  // KARPENTER_TESTS_DISRUPTION_CONSOLIDATION_TEST_UTIL_H_
