// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/termination/validate.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"

namespace karpenter::termination {
namespace {

// Decides node `n`, with `accepted` (earlier allowed Nodes) counted as
// deleted too; appends `n` to `accepted` when allowed.
absl::StatusOr<DeletionDecision> Decide(
    snapshot::NodeIndex n, const snapshot::Snapshot& snapshot,
    absl::Span<const budget::NodeDisruptionBudget> ndbs,
    const budget::NodeBudgetEvaluation& evaluation,
    std::vector<snapshot::NodeIndex>& accepted, absl::Time now) {
  const v1::Node& node = snapshot.nodes()[n];
  DeletionDecision d;
  d.node = node.metadata().name();
  d.decided_at = now;
  if (node.metadata().has_deletion_timestamp()) {
    d.reason = "already_deleting";
    d.why = absl::StrCat("node \"", d.node,
                         "\" is already being deleted; the request changes "
                         "nothing");
    return d;
  }
  for (const budget::NodeDisruptionBudget& b : ndbs) {
    if (b.Selects(node)) d.budgets.push_back(b.name());
  }
  if (d.budgets.empty()) {
    d.reason = "no_budget";
    d.why =
        absl::StrCat("no node disruption budget selects node \"", d.node, "\"");
    return d;
  }
  accepted.push_back(n);
  KARPENTER_ASSIGN_OR_RETURN(budget::NodeDeletionVerdict verdict,
                             evaluation.CanDelete(accepted));
  std::vector<std::string> whys;
  for (const budget::NodeBudgetCheck& check : verdict.checks) {
    if (!ndbs[check.budget].Selects(node)) continue;
    if (verdict.allowed || !check.holds) whys.push_back(check.why);
  }
  d.why = absl::StrJoin(whys, "; ");
  d.allowed = verdict.allowed;
  d.violated = std::move(verdict.violated);
  d.reason = d.allowed ? "within_budget" : "budget_violated";
  if (!d.allowed) accepted.pop_back();
  return d;
}

absl::StatusOr<snapshot::NodeIndex> Lookup(const snapshot::Snapshot& snapshot,
                                           absl::string_view name) {
  std::optional<snapshot::NodeIndex> n = snapshot.FindNode(name);
  if (!n.has_value()) {
    return absl::NotFoundError(absl::StrCat("node \"", name, "\" not found"));
  }
  return *n;
}

}  // namespace

absl::StatusOr<DeletionDecision> ValidateDeletion(
    absl::string_view node, const snapshot::Snapshot& snapshot,
    absl::Span<const budget::NodeDisruptionBudget> ndbs, absl::Time now) {
  KARPENTER_ASSIGN_OR_RETURN(snapshot::NodeIndex n, Lookup(snapshot, node));
  KARPENTER_ASSIGN_OR_RETURN(
      budget::NodeBudgetEvaluation evaluation,
      budget::NodeBudgetEvaluation::Evaluate(snapshot, ndbs));
  std::vector<snapshot::NodeIndex> accepted;
  return Decide(n, snapshot, ndbs, evaluation, accepted, now);
}

absl::StatusOr<std::vector<DeletionDecision>> ValidateDeletions(
    absl::Span<const std::string> nodes, const snapshot::Snapshot& snapshot,
    absl::Span<const budget::NodeDisruptionBudget> ndbs, absl::Time now) {
  std::vector<snapshot::NodeIndex> indexes;
  indexes.reserve(nodes.size());
  for (const std::string& name : nodes) {
    KARPENTER_ASSIGN_OR_RETURN(snapshot::NodeIndex n, Lookup(snapshot, name));
    indexes.push_back(n);
  }
  KARPENTER_ASSIGN_OR_RETURN(
      budget::NodeBudgetEvaluation evaluation,
      budget::NodeBudgetEvaluation::Evaluate(snapshot, ndbs));
  std::vector<snapshot::NodeIndex> accepted;
  // Node -> its first decision, so a repeated name repeats the answer.
  std::map<snapshot::NodeIndex, size_t> first;
  std::vector<DeletionDecision> out;
  out.reserve(nodes.size());
  for (snapshot::NodeIndex n : indexes) {
    if (auto it = first.find(n); it != first.end()) {
      out.push_back(out[it->second]);
      continue;
    }
    KARPENTER_ASSIGN_OR_RETURN(
        DeletionDecision d,
        Decide(n, snapshot, ndbs, evaluation, accepted, now));
    first.emplace(n, out.size());
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace karpenter::termination
