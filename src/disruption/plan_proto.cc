// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/disruption/plan_proto.h"

#include <map>
#include <set>
#include <string>
#include <utility>

#include "absl/time/time.h"
#include "karpenter/budget/disruption_spec.h"
#include "karpenter/time_util.h"
#include "karpenter/well_known.h"

namespace karpenter::disruption {
namespace {

void FillCandidate(const Candidate& c, v1::PlanCandidate& out) {
  if (c.has_node) out.set_node(c.node_name);
  out.set_node_claim(c.node_claim_name);
  out.set_node_pool(c.node_pool_name);
  out.set_provider_id(c.provider_id);
  out.set_instance_type(c.instance_type);
  out.set_zone(c.zone);
  out.set_capacity_type(c.capacity_type);
  out.set_price(c.price);
  out.set_pods(static_cast<int64_t>(c.pods.size()));
  out.set_reschedulable_pods(static_cast<int64_t>(c.reschedulable_pods.size()));
  out.set_disruption_cost(c.disruption_cost);
  if (c.drifted_since.has_value()) {
    out.set_drifted_since(FormatPlanTime(*c.drifted_since));
    out.set_drift_reason(c.drift_reason);
  }
}

void FillCommand(const Command& command, v1::PlanCommand& out) {
  out.set_method(std::string(MethodName(command.method)));
  out.set_decision(std::string(DecisionName(command.decision())));
  for (const Candidate& c : command.candidates) {
    FillCandidate(c, *out.add_candidates());
  }
  for (const Replacement& r : command.replacements) {
    v1::PlanReplacement& pr = *out.add_replacements();
    pr.set_node_pool(r.node_pool);
    for (const std::string& type : r.instance_types) {
      pr.add_instance_types(type);
    }
    pr.set_price(r.price);
    pr.set_node_claim(r.node_claim.metadata().name());
  }
  if (command.validate_at.has_value()) {
    out.set_validate_at(FormatPlanTime(*command.validate_at));
  }
  out.set_explanation(command.explanation);
  for (const PoolScore& score : command.balanced_scores) {
    v1::PlanBalancedScore* b = out.add_balanced_scores();
    b->set_node_pool(score.node_pool);
    b->set_savings(score.savings);
    b->set_disruption(score.disruption);
    b->set_total_cost(score.totals.total_cost);
    b->set_total_disruption_cost(score.totals.total_disruption_cost);
    b->set_score(score.score.Score());
    b->set_threshold(score.score.Threshold());
    b->set_k(score.score.k);
    b->set_approved(score.score.Approved());
  }
}

void FillBudgets(const budget::BudgetMapping& mapping, v1::Plan& out) {
  for (const budget::NodePoolBudget& pool : mapping.node_pools) {
    for (budget::DisruptionReason reason : budget::kAllDisruptionReasons) {
      const size_t r = static_cast<size_t>(reason);
      v1::PlanBudget& b = *out.add_budgets();
      b.set_node_pool(pool.node_pool);
      b.set_reason(std::string(budget::DisruptionReasonName(reason)));
      b.set_allowed(pool.by_reason[r].allowed);
      b.set_remaining(pool.remaining[r]);
      b.set_why(pool.by_reason[r].why);
      b.set_total_nodes(pool.total_nodes);
      b.set_disrupting_nodes(pool.disrupting_nodes);
    }
  }
}

}  // namespace

std::string FormatPlanTime(absl::Time t) {
  if (t == absl::InfiniteFuture() || t == absl::InfinitePast()) return "";
  return FormatRfc3339(t);
}

v1::NodePoolControlsReport ControlStateToProto(
    const NodePoolControlState& state) {
  v1::NodePoolControlsReport out;
  out.set_node_pool(state.node_pool);
  if (!state.error.empty()) {
    out.set_error(state.error);
    return out;
  }
  const NodePoolControls& c = state.controls;
  out.set_max_disrupting_zones(c.max_disrupting_zones.value_or(0));
  for (const std::string& z : state.disrupting_zones) {
    out.add_disrupting_zones(z);
  }
  if (c.soft_expiration.has_value()) {
    out.set_soft_expiration(FormatSoftExpiration(*c.soft_expiration));
    out.set_expiration_allowed(state.expiration.allowed);
    out.set_expiration_remaining(state.expiration_remaining);
    out.set_expiration_why(state.expiration.why);
  }
  if (c.min_savings.has_value()) {
    out.set_min_savings(FormatMinSavings(*c.min_savings));
  }
  out.set_max_replacements(c.max_replacements);
  return out;
}

v1::Plan PlanToProto(const Plan& plan) {
  v1::Plan out;
  out.set_now(FormatPlanTime(plan.now));
  for (const Command& command : plan.commands) {
    FillCommand(command, *out.add_commands());
  }
  if (plan.acted.has_value())
    out.set_acted(std::string(MethodName(*plan.acted)));
  for (const NodeVerdict& v : plan.verdicts) {
    v1::PlanVerdict& pv = *out.add_verdicts();
    pv.set_node(v.node);
    pv.set_node_claim(v.node_claim);
    pv.set_node_pool(v.node_pool);
    if (v.method.has_value()) pv.set_method(std::string(MethodName(*v.method)));
    pv.set_code(v.code);
    pv.set_message(v.message);
  }
  for (const DriftConditionUpdate& u : plan.drift_updates) {
    v1::PlanDriftUpdate& pu = *out.add_drift_updates();
    pu.set_node_claim(u.node_claim);
    pu.set_change(std::string(drift::DriftConditionChangeName(u.change)));
    if (u.change == drift::DriftConditionChange::kSet) {
      pu.set_reason(u.reason);
      pu.set_since(FormatPlanTime(u.since));
    }
  }
  for (const std::string& e : plan.drift_errors) out.add_drift_errors(e);
  for (const std::string& n : plan.cleanup) out.add_cleanup(n);
  FillBudgets(plan.budgets, out);
  for (const NodePoolControlState& state : plan.controls) {
    *out.add_controls() = ControlStateToProto(state);
  }
  out.set_next_pass(FormatPlanTime(plan.next_pass));
  return out;
}

namespace {

std::string LabelOf(const v1::Node& node, absl::string_view key) {
  auto it = node.metadata().labels().find(std::string(key));
  return it == node.metadata().labels().end() ? "" : it->second;
}

// What the nodes of one NodePool say about one instance type.
struct ObservedType {
  const v1::Node* first = nullptr;  // By name.
  std::set<std::pair<std::string, std::string>> offerings;
};

InstanceType ToInstanceType(const std::string& name, const ObservedType& seen) {
  InstanceType type;
  type.name = name;
  const auto& status = seen.first->status();
  const auto& resources =
      status.capacity().empty() ? status.allocatable() : status.capacity();
  for (const auto& [resource, quantity] : resources) {
    type.capacity[resource] = quantity;
  }
  for (const auto& [zone, capacity_type] : seen.offerings) {
    type.offerings.push_back(Offering{zone, capacity_type, 0, true});
  }
  for (absl::string_view key :
       {well_known::kLabelArchStable, well_known::kLabelOSStable}) {
    if (std::string value = LabelOf(*seen.first, key); !value.empty()) {
      type.labels[std::string(key)] = value;
    }
  }
  return type;
}

}  // namespace

InstanceTypeCatalog ObservedInstanceTypes(const snapshot::Snapshot& snapshot) {
  std::map<std::string, std::map<std::string, ObservedType>> seen;
  for (const v1::NodePool& pool : snapshot.node_pools()) {
    seen[pool.metadata().name()];
  }
  for (const v1::Node& node : snapshot.nodes()) {
    auto pool = seen.find(LabelOf(node, well_known::kNodePoolLabelKey));
    const std::string type_name =
        LabelOf(node, well_known::kLabelInstanceTypeStable);
    if (pool == seen.end() || type_name.empty()) continue;
    ObservedType& type = pool->second[type_name];
    if (type.first == nullptr ||
        node.metadata().name() < type.first->metadata().name()) {
      type.first = &node;
    }
    type.offerings.emplace(LabelOf(node, well_known::kLabelTopologyZone),
                           LabelOf(node, well_known::kCapacityTypeLabelKey));
  }
  InstanceTypeCatalog catalog;
  for (const auto& [pool, types] : seen) {
    std::vector<InstanceType>& list = catalog[pool];
    for (const auto& [name, observed] : types) {
      list.push_back(ToInstanceType(name, observed));
    }
  }
  return catalog;
}

}  // namespace karpenter::disruption
