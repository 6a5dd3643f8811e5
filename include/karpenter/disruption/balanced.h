// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Balanced consolidation: the score that decides whether a consolidation
// move of a `consolidationPolicy: Balanced` NodePool is worth its
// disruption, and the text Karpenter publishes about it.
//
// Ports karpenter pkg/controllers/disruption/balanced.go (v1.14.1:
// `computeNodePoolTotals`, `ScoreMove`, `EvaluateBalancedMove`,
// `CanPassThreshold`), the `ScoreResult` and `Command.EstimatedSavings` of
// types.go, `BalancedK` of pkg/apis/v1/nodepool.go and the event texts of
// disruption/events/events.go (docs/semantics.md §2.15):
//
//   savings fraction    = savings / NodePool total cost
//   disruption fraction = move disruption / NodePool total disruption
//   score               = savings fraction / disruption fraction
//   approved            = score >= 1/k,  k = 2
//
// where a move's disruption in a NodePool is the sum of its candidates'
// `reschedule_disruption_cost` there (1 per node plus its pods' positive
// eviction costs), the NodePool's total cost is the price of every NodeClaim
// labelled with it (falling back to its candidates' prices when that is 0),
// and its total disruption is the same per-node cost summed over every Node
// labelled with it, candidate or not. A score is 0 when the savings are not
// positive and +Inf when the disruption fraction is 0; zero totals reject.
// A move spanning several NodePools attributes the savings to each in
// proportion to its candidates' prices and is approved only when every
// Balanced NodePool in it approves; NodePools of other policies are not
// scored.
//
// Thread-safety: pure functions over plain values.
#ifndef KARPENTER_DISRUPTION_BALANCED_H_
#define KARPENTER_DISRUPTION_BALANCED_H_

#include <map>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "karpenter/budget/disruption_spec.h"

namespace karpenter::disruption {

// types.h, which includes this header for Command::balanced_scores.
struct Candidate;
struct Command;

// Karpenter's `v1.BalancedK`: a constant, not a NodePool field.
inline constexpr int kBalancedK = 2;

// The denominators of one NodePool's scores, computed once per method run
// (Karpenter's `NodePoolTotals`).
struct NodePoolTotals {
  // Sum of the offering prices of the NodePool's NodeClaims.
  double total_cost = 0;
  // Sum over the NodePool's Nodes of 1 + their pods' positive eviction costs.
  double total_disruption_cost = 0;

  friend bool operator==(const NodePoolTotals&,
                         const NodePoolTotals&) = default;
};
// NodePool name -> totals.
using NodePoolTotalsMap = std::map<std::string, NodePoolTotals, std::less<>>;

// The fractions of one scored move in one NodePool (`ScoreResult`).
struct BalancedScore {
  double savings_fraction = 0;
  double disruption_fraction = 0;
  int k = kBalancedK;

  // 0 when savings_fraction <= 0; +Inf when disruption_fraction is 0;
  // else savings_fraction / disruption_fraction.
  double Score() const;
  // 1 / k.
  double Threshold() const;
  // Score() >= Threshold().
  bool Approved() const;
};

// Karpenter's `ScoreMove`: zero fractions (score 0, rejected) when either
// total is <= 0.
BalancedScore ScoreMove(double savings, double disruption,
                        const NodePoolTotals& totals, int k = kBalancedK);

// The score of one Balanced NodePool of a move, with its inputs, for plans,
// explanations, events and metrics.
struct PoolScore {
  std::string node_pool = "";
  // The savings attributed to the NodePool and the move's disruption in it.
  double savings = 0;
  double disruption = 0;
  NodePoolTotals totals = {};
  BalancedScore score = {};
  // The move's candidates in this NodePool, by node name, in move order.
  std::vector<std::string> candidates = {};
};

// A move's score: one entry per Balanced NodePool among its candidates (in
// NodePool name order); `approved` is true when every one approves (and
// when there is none). An empty move is not approved.
struct BalancedEvaluation {
  bool approved = false;
  std::vector<PoolScore> pools = {};
};

// Karpenter's `Command.SourceCost`: the sum of the candidates' prices.
double SourceCost(const Command& command);

// Karpenter's `Command.EstimatedSavings`: the source cost, less each
// replacement's price (its cheapest instance type at its cheapest admitted
// available offering, `Replacement::price`). May be zero or negative.
double EstimatedSavings(const Command& command);

// Karpenter's `EvaluateBalancedMove` over `command` (its candidates carry
// their NodePool's policy). A Balanced NodePool missing from `totals` is
// scored against zero totals, and so rejects.
BalancedEvaluation EvaluateBalancedMove(const Command& command,
                                        const NodePoolTotalsMap& totals);

// Karpenter's `CanPassThreshold`: whether deleting `candidate` outright,
// the best any move of it can score, would be approved. True for
// candidates of other policies and for NodePools without totals or with a
// total cost <= 0.
bool CanPassThreshold(const Candidate& candidate,
                      const NodePoolTotalsMap& totals);

// The same best case, scored: for explanations of a skipped candidate.
PoolScore DeleteScore(const Candidate& candidate,
                      const NodePoolTotalsMap& totals);

// Karpenter's ConsolidationApproved message:
// "score 1.00 >= threshold 0.50 (k: 2, savings 10.0%, disruption 10.0%)".
std::string ApprovedMessage(const BalancedScore& score);

// The SDK's explanation of a refused (or approved) score, e.g.
// `Balanced score 0.25 < threshold 0.50 in NodePool "default" (k: 2,
// savings 0.0400 of 0.4000 (10.0%), disruption 4.00 of 10.00 (40.0%))`.
std::string DescribeScore(const PoolScore& score);

// "Balanced", "WhenEmpty" or "WhenEmptyOrUnderutilized": the `policy`
// label of Karpenter's consolidation metrics (the NodePool's spelling).
absl::string_view ConsolidationPolicyName(budget::ConsolidationPolicy policy);

}  // namespace karpenter::disruption

#endif  // KARPENTER_DISRUPTION_BALANCED_H_
