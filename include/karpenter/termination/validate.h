// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// ValidateDeletion: the decision of the seed design's Node deletion webhook,
// "may this Node be deleted now without breaking a node disruption budget?"
// It has no Karpenter counterpart (Karpenter lets any Node deletion through
// and drains it); the budget arithmetic is that of
// karpenter/budget/node_budget.h, which ports Kubernetes' PodDisruptionBudget
// rules (pkg/controller/disruption/disruption.go) to nodes, and the answer
// has the shape of an admission review: allowed or denied, with a reason.
//
// Rules, in order: a Node that is already deleting is allowed (the request
// changes nothing: idempotent); a Node no budget selects is allowed; else
// the deletion is allowed iff every budget selecting the Node keeps
// `allowed_deletions >= 1` for it (NodeBudgetEvaluation::CanDelete).
// Deleting an unavailable (NotReady) Node costs no budget.
//
// Thread-safety: pure functions of their arguments.

#ifndef KARPENTER_TERMINATION_VALIDATE_H_
#define KARPENTER_TERMINATION_VALIDATE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "karpenter/budget/node_budget.h"
#include "karpenter/snapshot/snapshot.h"

namespace karpenter::termination {

struct DeletionDecision {
  std::string node;
  bool allowed = true;
  // "already_deleting", "no_budget", "within_budget" (allowed) or
  // "budget_violated" (denied).
  std::string reason;
  // For a webhook's response message. Within or against budgets: the
  // budgets' own explanations (NodeBudgetCheck::why) joined by "; ", the
  // violated ones only when denied.
  std::string why;
  // Budgets selecting the Node, and those that would break, in budget
  // order.
  std::vector<std::string> budgets;
  std::vector<std::string> violated;
  // The `now` the decision was taken at (budgets have no schedule yet; a
  // webhook logs it with the answer).
  absl::Time decided_at;
};

// Decides the deletion of Node `node` of `snapshot` under `ndbs`.
// Errors: NotFound `node "<name>" not found` if the snapshot lacks it;
// OutOfRange from NodeBudgetEvaluation::Evaluate.
absl::StatusOr<DeletionDecision> ValidateDeletion(
    absl::string_view node, const snapshot::Snapshot& snapshot,
    absl::Span<const budget::NodeDisruptionBudget> ndbs, absl::Time now);

// Decides several deletions as if the requests arrived in the given order
// and each allowed one took effect before the next was decided: a Node is
// allowed iff the budgets hold with it and every earlier allowed Node
// deleted. One decision per name, in input order; a name given twice gets
// the same answer twice (the second request changes nothing).
// Errors: NotFound naming the first name the snapshot lacks (no decision is
// returned then); OutOfRange as above.
absl::StatusOr<std::vector<DeletionDecision>> ValidateDeletions(
    absl::Span<const std::string> nodes, const snapshot::Snapshot& snapshot,
    absl::Span<const budget::NodeDisruptionBudget> ndbs, absl::Time now);

}  // namespace karpenter::termination

#endif  // KARPENTER_TERMINATION_VALIDATE_H_
