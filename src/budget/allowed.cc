// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/budget/allowed.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "budget/membership.h"

namespace karpenter::budget {
namespace {

// One budget evaluated as Karpenter's Budget.GetAllowedDisruptions.
struct BudgetValue {
  bool active = false;
  int64_t value = kUnlimited;
  absl::Status error;
};

BudgetValue EvaluateBudget(const Budget& b, int64_t num_nodes, absl::Time now) {
  BudgetValue out;
  absl::StatusOr<bool> active = IsActive(b, now);
  if (!active.ok()) {
    out.error = active.status();
    out.value = 0;
    return out;
  }
  out.active = *active;
  if (!out.active) return out;
  // The nodes value is only read while active, so a bad one in an inactive
  // budget is harmless, as in Karpenter.
  if (!b.nodes.ok()) {
    out.error = b.nodes.status();
    out.value = 0;
    return out;
  }
  absl::StatusOr<int64_t> scaled = b.nodes->Scale(num_nodes, true);
  if (!scaled.ok()) {
    out.error = scaled.status();
    out.value = 0;
    return out;
  }
  out.value = *scaled;
  return out;
}

std::string BudgetName(size_t i) { return absl::StrCat("budgets[", i, "]"); }

}  // namespace

Allowance ExplainAllowedDisruptions(const DisruptionSpec& spec,
                                    DisruptionReason reason, int64_t num_nodes,
                                    absl::Time now) {
  Allowance out;
  std::optional<size_t> first_error;
  std::string error_text;
  std::vector<std::string> inactive;
  for (size_t i = 0; i < spec.budgets.size(); ++i) {
    const Budget& b = spec.budgets[i];
    // Every budget is evaluated before the reason filter: an error in any
    // of them fails the whole NodePool closed.
    const BudgetValue v = EvaluateBudget(b, num_nodes, now);
    if (!v.error.ok() && !first_error.has_value()) {
      first_error = i;
      error_text = std::string(v.error.message());
    }
    if (!b.Matches(reason)) continue;
    if (!v.active) {
      inactive.push_back(BudgetName(i));
      continue;
    }
    if (!out.limiting_budget.has_value() || v.value < out.allowed) {
      out.allowed = v.value;
      out.limiting_budget = i;
      out.why = absl::StrCat(
          BudgetName(i), spec.budgets_defaulted ? " (default)" : "",
          " nodes \"", b.nodes_text, "\" of ", num_nodes, " nodes = ", v.value);
    }
  }
  if (first_error.has_value()) {
    out.allowed = 0;
    out.limiting_budget = first_error;
    out.why = absl::StrCat("fail closed: ", BudgetName(*first_error), ": ",
                           error_text);
  } else if (!out.limiting_budget.has_value()) {
    out.why = spec.budgets.empty()
                  ? "no budgets (explicit empty list): unlimited"
                  : absl::StrCat("no active budget matches ",
                                 DisruptionReasonName(reason));
    if (!inactive.empty()) {
      absl::StrAppend(&out.why, " (inactive: ", absl::StrJoin(inactive, ", "),
                      ")");
    }
  }
  return out;
}

int64_t AllowedDisruptions(const DisruptionSpec& spec, DisruptionReason reason,
                           int64_t num_nodes, absl::Time now) {
  return ExplainAllowedDisruptions(spec, reason, num_nodes, now).allowed;
}

namespace {

// Counts one node into `pools` as BuildDisruptionBudgetMapping does.
void CountNode(const snapshot::Snapshot& s, const v1::Node& node,
               std::vector<NodePoolBudget>* pools) {
  const std::optional<internal::PoolMember> member =
      internal::ClassifyNode(s, node);
  if (!member.has_value()) return;
  NodePoolBudget& p = (*pools)[member->pool];
  ++p.total_nodes;
  if (member->disrupting) ++p.disrupting_nodes;
}

void FillAllowances(const absl::StatusOr<DisruptionSpec>& spec, absl::Time now,
                    NodePoolBudget* out) {
  for (DisruptionReason r : kAllDisruptionReasons) {
    const size_t i = static_cast<size_t>(r);
    if (spec.ok()) {
      out->by_reason[i] =
          ExplainAllowedDisruptions(*spec, r, out->total_nodes, now);
    } else {
      out->by_reason[i].allowed = 0;
      out->by_reason[i].why =
          absl::StrCat("fail closed: invalid spec: ", spec.status().message());
    }
    out->remaining[i] =
        std::max<int64_t>(out->by_reason[i].allowed - out->disrupting_nodes, 0);
  }
}

}  // namespace

const NodePoolBudget* BudgetMapping::Find(absl::string_view node_pool) const {
  auto it = index_.find(node_pool);
  return it == index_.end() ? nullptr : &node_pools[it->second];
}

int64_t BudgetMapping::Remaining(absl::string_view node_pool,
                                 DisruptionReason reason) const {
  const NodePoolBudget* pool = Find(node_pool);
  if (pool == nullptr) return 0;
  return pool->remaining[static_cast<size_t>(reason)];
}

BudgetBook BudgetBook::Build(const snapshot::Snapshot& snapshot,
                             const BudgetOptions& options) {
  BudgetBook book;
  const size_t n = snapshot.node_pools().size();
  book.pools_.resize(n);
  book.specs_.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const v1::NodePool& np = snapshot.node_pools()[i];
    book.pools_[i].node_pool = np.metadata().name();
    book.index_.emplace(book.pools_[i].node_pool, i);
    book.specs_.push_back(ParseDisruptionSpec(np, options));
    if (!book.specs_.back().ok()) {
      book.pools_[i].spec_errors = DisruptionSpecErrors(np, options);
    }
  }
  for (const v1::Node& node : snapshot.nodes()) {
    CountNode(snapshot, node, &book.pools_);
  }
  return book;
}

BudgetMapping BudgetBook::Evaluate(absl::Time now) const {
  BudgetMapping mapping;
  mapping.node_pools = pools_;
  mapping.index_ = index_;
  for (size_t i = 0; i < mapping.node_pools.size(); ++i) {
    FillAllowances(specs_[i], now, &mapping.node_pools[i]);
  }
  return mapping;
}

BudgetMapping BuildBudgetMapping(const snapshot::Snapshot& snapshot,
                                 absl::Time now, const BudgetOptions& options) {
  return BudgetBook::Build(snapshot, options).Evaluate(now);
}

}  // namespace karpenter::budget
