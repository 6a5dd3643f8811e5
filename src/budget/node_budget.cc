// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/budget/node_budget.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "karpenter/conditions.h"
#include "karpenter/well_known.h"

namespace karpenter::budget {
namespace {

// Checks one amount: integers >= 0, percentages 0..100.
absl::Status ValidateAmount(const IntOrPercent& amount,
                            absl::string_view field) {
  if (amount.value() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": \"", amount.ToString(), "\": must be >= 0"));
  }
  if (amount.is_percent() && amount.value() > 100) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": \"", amount.ToString(), "\": must be between 0% and 100%"));
  }
  return absl::OkStatus();
}

absl::Status ValidateSpec(const NodeDisruptionBudgetSpec& spec) {
  if (spec.name.empty()) {
    return absl::InvalidArgumentError("name: must be non-empty");
  }
  const bool has_min = spec.min_available.has_value();
  const bool has_max = spec.max_unavailable.has_value();
  if (has_min == has_max) {
    return absl::InvalidArgumentError(absl::StrCat(
        "spec: exactly one of minAvailable and maxUnavailable must be set (",
        has_min ? "both are" : "neither is", ")"));
  }
  if (has_min) {
    return ValidateAmount(*spec.min_available, "spec.minAvailable");
  }
  return ValidateAmount(*spec.max_unavailable, "spec.maxUnavailable");
}

}  // namespace

bool NodeIsAvailable(const v1::Node& node) {
  if (node.metadata().has_deletion_timestamp()) return false;
  return IsConditionTrue(node.status().conditions(),
                         well_known::kConditionTypeReady);
}

absl::StatusOr<NodeDisruptionBudget> NodeDisruptionBudget::FromSpec(
    const NodeDisruptionBudgetSpec& spec) {
  const std::string prefix =
      absl::StrCat("node disruption budget \"", spec.name, "\": ");
  absl::Status status = ValidateSpec(spec);
  absl::StatusOr<LabelSelector> selector = LabelSelector::Nothing();
  if (status.ok() && spec.selector.has_value()) {
    selector = LabelSelector::FromProto(&*spec.selector, "spec.selector");
    if (!selector.ok()) status = selector.status();
  }
  if (!status.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(prefix, status.message()));
  }
  NodeDisruptionBudget budget;
  budget.name_ = spec.name;
  // An empty selector would select every node (see the header): a node
  // budget must name its nodes, so `{}` selects none.
  budget.selector_ = selector->MatchesEverything() ? LabelSelector::Nothing()
                                                   : *std::move(selector);
  budget.is_min_available_ = spec.min_available.has_value();
  budget.amount_ =
      budget.is_min_available_ ? *spec.min_available : *spec.max_unavailable;
  return budget;
}

bool NodeDisruptionBudget::Selects(const v1::Node& node) const {
  return selector_.Matches(node.metadata().labels());
}

absl::StatusOr<NodeBudgetEvaluation> NodeBudgetEvaluation::Evaluate(
    const snapshot::Snapshot& snapshot,
    absl::Span<const NodeDisruptionBudget> budgets) {
  NodeBudgetEvaluation eval;
  eval.budgets_.assign(budgets.begin(), budgets.end());
  eval.statuses_.resize(budgets.size());
  const auto nodes = snapshot.nodes();
  eval.node_count_ = nodes.size();
  eval.node_available_.resize(nodes.size());
  eval.selects_.resize(nodes.size() * budgets.size());
  for (size_t n = 0; n < nodes.size(); ++n) {
    const bool available = NodeIsAvailable(nodes[n]);
    eval.node_available_[n] = available;
    for (size_t b = 0; b < budgets.size(); ++b) {
      if (!budgets[b].Selects(nodes[n])) continue;
      eval.selects_[n * budgets.size() + b] = true;
      ++eval.statuses_[b].selected;
      if (available) ++eval.statuses_[b].available;
    }
  }
  for (size_t b = 0; b < budgets.size(); ++b) {
    NodeBudgetStatus& s = eval.statuses_[b];
    s.name = budgets[b].name();
    s.unavailable = s.selected - s.available;
    // Both forms round up, as the disruption controller does for PDBs.
    KARPENTER_ASSIGN_OR_RETURN(
        s.threshold, budgets[b].amount().Scale(s.selected, /*round_up=*/true));
    s.allowed_deletions =
        budgets[b].is_min_available()
            ? std::max<int64_t>(s.available - s.threshold, 0)
            : std::max<int64_t>(s.threshold - s.unavailable, 0);
  }
  return eval;
}

std::string NodeBudgetEvaluation::Explain(size_t b,
                                          int64_t deleting_available) const {
  const NodeDisruptionBudget& budget = budgets_[b];
  const NodeBudgetStatus& s = statuses_[b];
  std::string why = absl::StrCat(
      "budget \"", s.name,
      "\": ", budget.is_min_available() ? "minAvailable" : "maxUnavailable",
      " \"", budget.amount().ToString(), "\" of ", s.selected,
      " selected nodes = ", s.threshold, "; ", s.available,
      " available; deleting ", deleting_available,
      " available nodes would leave ");
  if (budget.is_min_available()) {
    absl::StrAppend(&why, s.available - deleting_available, " available");
  } else {
    absl::StrAppend(&why, s.unavailable + deleting_available, " unavailable");
  }
  return why;
}

absl::StatusOr<NodeDeletionVerdict> NodeBudgetEvaluation::CanDelete(
    absl::Span<const snapshot::NodeIndex> nodes) const {
  std::vector<snapshot::NodeIndex> unique(nodes.begin(), nodes.end());
  std::sort(unique.begin(), unique.end());
  unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
  if (!unique.empty() && unique.back() >= node_count_) {
    return absl::InvalidArgumentError(
        absl::StrCat("node index \"", unique.back(), "\": out of range (",
                     node_count_, " nodes)"));
  }
  const size_t nb = budgets_.size();
  std::vector<int64_t> selected(nb, 0);
  std::vector<int64_t> available(nb, 0);
  for (snapshot::NodeIndex n : unique) {
    for (size_t b = 0; b < nb; ++b) {
      if (!selects_[n * nb + b]) continue;
      ++selected[b];
      if (node_available_[n]) ++available[b];
    }
  }
  NodeDeletionVerdict verdict;
  for (size_t b = 0; b < nb; ++b) {
    if (selected[b] == 0) continue;
    NodeBudgetCheck check;
    check.budget = b;
    check.name = statuses_[b].name;
    check.deleting_selected = selected[b];
    check.deleting_available = available[b];
    check.allowed_deletions = statuses_[b].allowed_deletions;
    check.holds = available[b] <= check.allowed_deletions;
    check.why = Explain(b, available[b]);
    if (!check.holds) {
      verdict.allowed = false;
      verdict.violated.push_back(check.name);
    }
    verdict.checks.push_back(std::move(check));
  }
  return verdict;
}

absl::StatusOr<NodeDeletionVerdict> NodeBudgetEvaluation::CanDelete(
    const snapshot::Snapshot& snapshot,
    absl::Span<const std::string> node_names) const {
  std::vector<snapshot::NodeIndex> indexes;
  indexes.reserve(node_names.size());
  for (const std::string& name : node_names) {
    std::optional<snapshot::NodeIndex> n = snapshot.FindNode(name);
    if (!n.has_value()) {
      return absl::NotFoundError(
          absl::StrCat("node \"", name, "\": not in the snapshot"));
    }
    indexes.push_back(*n);
  }
  return CanDelete(indexes);
}

}  // namespace karpenter::budget
