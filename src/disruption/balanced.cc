// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#include "karpenter/disruption/balanced.h"

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/types/span.h"
#include "karpenter/disruption/types.h"

namespace karpenter::disruption {
namespace {

double SumPrices(absl::Span<const Candidate* const> candidates) {
  double total = 0;
  for (const Candidate* c : candidates) total += c->price;
  return total;
}

std::string Percent(double fraction) {
  return absl::StrFormat("%.1f%%", fraction * 100);
}

std::string ScoreText(double score) {
  return std::isinf(score) ? std::string("+Inf")
                           : absl::StrFormat("%.2f", score);
}

}  // namespace

double BalancedScore::Score() const {
  if (!(savings_fraction > 0)) return 0;
  if (disruption_fraction == 0) {
    return std::numeric_limits<double>::infinity();
  }
  return savings_fraction / disruption_fraction;
}

double BalancedScore::Threshold() const { return 1.0 / static_cast<double>(k); }

bool BalancedScore::Approved() const { return Score() >= Threshold(); }

BalancedScore ScoreMove(double savings, double disruption,
                        const NodePoolTotals& totals, int k) {
  BalancedScore out;
  out.k = k;
  if (totals.total_cost <= 0 || totals.total_disruption_cost <= 0) return out;
  out.savings_fraction = savings / totals.total_cost;
  out.disruption_fraction = disruption / totals.total_disruption_cost;
  return out;
}

double SourceCost(const Command& command) {
  double total = 0;
  for (const Candidate& c : command.candidates) total += c.price;
  return total;
}

double EstimatedSavings(const Command& command) {
  double savings = SourceCost(command);
  for (const Replacement& r : command.replacements) savings -= r.price;
  return savings;
}

BalancedEvaluation EvaluateBalancedMove(const Command& command,
                                        const NodePoolTotalsMap& totals) {
  BalancedEvaluation out;
  if (command.candidates.empty()) return out;
  std::map<std::string, std::vector<const Candidate*>, std::less<>> by_pool;
  for (const Candidate& c : command.candidates) {
    by_pool[c.node_pool_name].push_back(&c);
  }
  const double savings = EstimatedSavings(command);
  const double source_cost = SourceCost(command);
  out.approved = true;
  for (const auto& [pool, candidates] : by_pool) {
    if (candidates.front()->consolidation_policy !=
        budget::ConsolidationPolicy::kBalanced) {
      continue;
    }
    PoolScore ps;
    ps.node_pool = pool;
    ps.savings = savings;
    if (source_cost > 0 && by_pool.size() > 1) {
      ps.savings = savings * (SumPrices(candidates) / source_cost);
    }
    for (const Candidate* c : candidates) {
      ps.disruption += c->reschedule_disruption_cost;
      ps.candidates.push_back(c->node_name);
    }
    auto it = totals.find(pool);
    if (it != totals.end()) ps.totals = it->second;
    ps.score = ScoreMove(ps.savings, ps.disruption, ps.totals);
    out.approved = out.approved && ps.score.Approved();
    out.pools.push_back(std::move(ps));
  }
  return out;
}

PoolScore DeleteScore(const Candidate& candidate,
                      const NodePoolTotalsMap& totals) {
  PoolScore ps;
  ps.node_pool = candidate.node_pool_name;
  ps.savings = candidate.price;
  ps.disruption = candidate.reschedule_disruption_cost;
  ps.candidates = {candidate.node_name};
  auto it = totals.find(candidate.node_pool_name);
  if (it != totals.end()) ps.totals = it->second;
  ps.score = ScoreMove(ps.savings, ps.disruption, ps.totals);
  return ps;
}

bool CanPassThreshold(const Candidate& candidate,
                      const NodePoolTotalsMap& totals) {
  if (candidate.consolidation_policy !=
      budget::ConsolidationPolicy::kBalanced) {
    return true;
  }
  auto it = totals.find(candidate.node_pool_name);
  if (it == totals.end() || it->second.total_cost <= 0) return true;
  return DeleteScore(candidate, totals).score.Approved();
}

std::string ApprovedMessage(const BalancedScore& score) {
  return absl::StrFormat(
      "score %.2f >= threshold %.2f (k: %d, savings %.1f%%, disruption "
      "%.1f%%)",
      score.Score(), score.Threshold(), score.k, score.savings_fraction * 100,
      score.disruption_fraction * 100);
}

std::string DescribeScore(const PoolScore& score) {
  const BalancedScore& s = score.score;
  std::string why;
  if (score.totals.total_cost <= 0 || score.totals.total_disruption_cost <= 0) {
    why = absl::StrFormat(
        "; the NodePool's total cost (%.4f) or total disruption (%.2f) is 0",
        score.totals.total_cost, score.totals.total_disruption_cost);
  } else if (!(s.savings_fraction > 0)) {
    why = "; the move saves nothing";
  }
  return absl::StrCat(
      "Balanced score ", ScoreText(s.Score()), s.Approved() ? " >= " : " < ",
      "threshold ", absl::StrFormat("%.2f", s.Threshold()), " in NodePool \"",
      score.node_pool, "\" (k: ", s.k, ", savings ",
      absl::StrFormat("%.4f", score.savings), " of ",
      absl::StrFormat("%.4f", score.totals.total_cost), " (",
      Percent(s.savings_fraction), "), disruption ",
      absl::StrFormat("%.2f", score.disruption), " of ",
      absl::StrFormat("%.2f", score.totals.total_disruption_cost), " (",
      Percent(s.disruption_fraction), ")", why, ")");
}

absl::string_view ConsolidationPolicyName(budget::ConsolidationPolicy policy) {
  switch (policy) {
    case budget::ConsolidationPolicy::kWhenEmpty:
      return "WhenEmpty";
    case budget::ConsolidationPolicy::kBalanced:
      return "Balanced";
    case budget::ConsolidationPolicy::kWhenEmptyOrUnderutilized:
      break;
  }
  return "WhenEmptyOrUnderutilized";
}

}  // namespace karpenter::disruption
