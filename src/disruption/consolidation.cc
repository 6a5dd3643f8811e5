// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#include "karpenter/disruption/consolidation.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "karpenter/requirements.h"
#include "karpenter/time_util.h"
#include "karpenter/well_known.h"

namespace karpenter::disruption {
namespace {

using well_known::kCapacityTypeLabelKey;
using well_known::kCapacityTypeOnDemand;
using well_known::kCapacityTypeReserved;
using well_known::kCapacityTypeSpot;
using well_known::kLabelInstanceTypeStable;
using well_known::kLabelTopologyZone;

std::string Price(double price) { return absl::StrFormat("%.4f", price); }

NodeVerdict MakeVerdict(const Candidate& c, Method method,
                        absl::string_view code, std::string message) {
  return NodeVerdict{
      .node = c.node_name.empty() ? c.node_claim_name : c.node_name,
      .node_claim = c.node_claim_name,
      .node_pool = c.node_pool_name,
      .method = method,
      .code = std::string(code),
      .message = std::move(message)};
}

// --- Pricing replacement instance types --------------------------------

// Karpenter's `Requirements.Get(key).Has(value)`: an undefined key admits
// every value.
bool Admits(const Requirements& reqs, absl::string_view key,
            absl::string_view value) {
  const Requirement* r = reqs.Get(key);
  return r == nullptr || r->Has(value);
}

const InstanceType* FindType(const InstanceTypeCatalog& catalog,
                             absl::string_view node_pool,
                             absl::string_view name) {
  auto pool = catalog.find(node_pool);
  if (pool == catalog.end()) return nullptr;
  for (const InstanceType& it : pool->second) {
    if (it.name == name) return &it;
  }
  return nullptr;
}

bool OfferingAdmitted(const Offering& o, const Requirements& reqs) {
  return o.available && Admits(reqs, kLabelTopologyZone, o.zone) &&
         Admits(reqs, kCapacityTypeLabelKey, o.capacity_type);
}

struct PricedOption {
  std::string name;
  // Cheapest admitted offering: the order key (`OrderByPrice`).
  double cheapest = 0;
  // Karpenter's `WorstLaunchPrice`: the dearest admitted offering of the
  // capacity type the launch would use (reserved, else spot, else
  // on-demand). Compared with the candidates' price, so a replacement is
  // only chosen if it is cheaper whichever offering launches.
  double launch = 0;
};

std::optional<PricedOption> PriceOption(const InstanceType& it,
                                        const Requirements& reqs) {
  std::optional<double> cheapest;
  for (const Offering& o : it.offerings) {
    if (!OfferingAdmitted(o, reqs)) continue;
    cheapest = std::min(cheapest.value_or(o.price), o.price);
  }
  if (!cheapest.has_value()) return std::nullopt;
  for (absl::string_view ct :
       {kCapacityTypeReserved, kCapacityTypeSpot, kCapacityTypeOnDemand}) {
    std::optional<double> worst;
    for (const Offering& o : it.offerings) {
      if (!OfferingAdmitted(o, reqs) || o.capacity_type != ct) continue;
      worst = std::max(worst.value_or(o.price), o.price);
    }
    if (worst.has_value()) return PricedOption{it.name, *cheapest, *worst};
  }
  // Only other capacity types are offered: never cheaper than anything.
  return PricedOption{it.name, *cheapest,
                      std::numeric_limits<double>::infinity()};
}

// The replacement's instance types that the catalogue knows and that have
// an admitted offering, cheapest first, ties by name.
std::vector<PricedOption> PriceOptions(const Replacement& replacement,
                                       const Requirements& reqs,
                                       const InstanceTypeCatalog& catalog) {
  std::vector<PricedOption> out;
  for (const std::string& name : replacement.instance_types) {
    const InstanceType* it = FindType(catalog, replacement.node_pool, name);
    if (it == nullptr) continue;
    if (auto priced = PriceOption(*it, reqs)) out.push_back(*priced);
  }
  std::sort(
      out.begin(), out.end(), [](const PricedOption& a, const PricedOption& b) {
        return std::tie(a.cheapest, a.name) < std::tie(b.cheapest, b.name);
      });
  return out;
}

std::vector<PricedOption> CheaperThan(std::vector<PricedOption> options,
                                      double limit) {
  std::erase_if(options,
                [limit](const PricedOption& o) { return !(o.launch < limit); });
  return options;
}

absl::StatusOr<Requirements> ReplacementRequirements(const Replacement& r) {
  return Requirements::FromProto(r.node_claim.spec().requirements(),
                                 "replacement.node_claim.spec.requirements");
}

// Replaces every requirement on `key` by `key In values`. Only called with
// values the existing requirements admit, so this equals Karpenter's
// intersecting `Requirements.Add`.
void SetIn(v1::NodeClaim& claim, absl::string_view key,
           const std::vector<std::string>& values) {
  auto* reqs = claim.mutable_spec()->mutable_requirements();
  for (int i = reqs->size() - 1; i >= 0; --i) {
    if (NormalizeLabelKey(reqs->Get(i).key()) == key)
      reqs->DeleteSubrange(i, 1);
  }
  v1::NodeSelectorRequirement* req = reqs->Add();
  req->set_key(std::string(key));
  req->set_operator_("In");
  for (const std::string& v : values) req->add_values(v);
}

// `original` narrowed to `options` (non-empty, in order) and, if
// `force_spot`, to spot capacity.
Replacement Narrow(const Replacement& original,
                   const std::vector<PricedOption>& options, bool force_spot) {
  Replacement out = original;
  out.instance_types.clear();
  for (const PricedOption& o : options) out.instance_types.push_back(o.name);
  out.price = options.front().cheapest;
  SetIn(out.node_claim, kLabelInstanceTypeStable, out.instance_types);
  if (force_spot) {
    SetIn(out.node_claim, kCapacityTypeLabelKey,
          {std::string(kCapacityTypeSpot)});
  }
  return out;
}

ConsolidationAttempt NoCommand(absl::string_view code, std::string message) {
  return ConsolidationAttempt{.command = std::nullopt,
                              .code = std::string(code),
                              .message = std::move(message)};
}

ConsolidationAttempt Replace(absl::Span<const Candidate> candidates,
                             Method method, Replacement replacement) {
  Command command{.method = method,
                  .candidates = {candidates.begin(), candidates.end()},
                  .replacements = {std::move(replacement)}};
  return ConsolidationAttempt{.command = std::move(command)};
}

ConsolidationAttempt SpotToSpot(absl::Span<const Candidate> candidates,
                                Method method, const Replacement& replacement,
                                Requirements reqs, double limit,
                                const InstanceTypeCatalog& catalog,
                                const ConsolidationOptions& options) {
  if (!options.spot_to_spot) {
    return NoCommand(reasons::kNoCheaperReplacement,
                     "SpotToSpotConsolidation is disabled, can't replace a "
                     "spot node with a spot node");
  }
  reqs.Add(
      Requirement::In(kCapacityTypeLabelKey, {std::string(kCapacityTypeSpot)}));
  std::vector<PricedOption> cheaper =
      CheaperThan(PriceOptions(replacement, reqs, catalog), limit);
  if (cheaper.empty()) {
    return NoCommand(reasons::kNoCheaperReplacement,
                     absl::StrCat("Can't replace with a cheaper node (no spot "
                                  "instance type below ",
                                  Price(limit), ")"));
  }
  if (candidates.size() == 1) {
    // Launching from only the cheapest N keeps the launched type among
    // them, so the next pass does not consolidate it again.
    if (cheaper.size() < options.min_spot_to_spot_options) {
      return NoCommand(
          reasons::kNoCheaperReplacement,
          absl::StrCat("SpotToSpotConsolidation requires ",
                       options.min_spot_to_spot_options,
                       " cheaper instance type options than the current "
                       "candidate to consolidate, got ",
                       cheaper.size()));
    }
    cheaper.resize(options.min_spot_to_spot_options);
  }
  return Replace(candidates, method, Narrow(replacement, cheaper, true));
}

// --- Multi-node helpers --------------------------------------------------

// Karpenter's `filterOutSameInstanceType`: when a replacement option has
// the type of a candidate, replacing is only worth it below the cheapest
// such candidate (else deleting the others and keeping it disrupts less).
// Every option at or above the lowest such price is dropped.
std::optional<Replacement> FilterOutSameInstanceType(
    const Replacement& replacement, absl::Span<const Candidate> candidates,
    const InstanceTypeCatalog& catalog) {
  std::map<std::string, double, std::less<>> cheapest_existing;
  for (const Candidate& c : candidates) {
    auto [it, inserted] = cheapest_existing.emplace(c.instance_type, c.price);
    if (!inserted) it->second = std::min(it->second, c.price);
  }
  double limit = std::numeric_limits<double>::infinity();
  for (const std::string& name : replacement.instance_types) {
    auto it = cheapest_existing.find(name);
    if (it != cheapest_existing.end()) limit = std::min(limit, it->second);
  }
  absl::StatusOr<Requirements> reqs = ReplacementRequirements(replacement);
  if (!reqs.ok()) return std::nullopt;
  std::vector<PricedOption> kept =
      CheaperThan(PriceOptions(replacement, *reqs, catalog), limit);
  if (kept.empty()) return std::nullopt;
  return Narrow(replacement, kept, false);
}

double TotalPrice(absl::Span<const Candidate> candidates) {
  double total = 0;
  for (const Candidate& c : candidates) total += c.price;
  return total;
}

std::string BudgetText(absl::Span<const Candidate> candidates,
                       const BudgetLedger& ledger) {
  std::map<std::string, int, std::less<>> pools;
  for (const Candidate& c : candidates) ++pools[c.node_pool_name];
  std::vector<std::string> parts;
  for (const auto& [pool, count] : pools) {
    parts.push_back(ledger.Describe(pool));
  }
  return absl::StrCat("budget Underutilized: ", absl::StrJoin(parts, ", "));
}

std::string Explain(absl::string_view prefix, const Command& command,
                    const BudgetLedger& ledger) {
  const size_t n = command.candidates.size();
  std::string what = absl::StrCat(n, n == 1 ? " node" : " nodes", " (price ",
                                  Price(TotalPrice(command.candidates)), ")");
  std::string action;
  if (command.replacements.empty()) {
    action = absl::StrCat("delete ", what, "; their pods fit on other nodes");
  } else if (command.replacements.size() == 1) {
    const Replacement& r = command.replacements.front();
    action =
        absl::StrCat("replace ", what, " with ", r.instance_types.front(), " (",
                     Price(r.price), ") from ", r.instance_types.size(),
                     " cheaper option(s) in NodePool \"", r.node_pool, "\"");
  } else {
    // m nodes into two (SDK control consolidation-max-replacements).
    std::vector<std::string> parts;
    double total = 0;
    for (const Replacement& r : command.replacements) {
      total += r.price;
      parts.push_back(
          absl::StrCat(r.instance_types.front(), " (", Price(r.price), ", ",
                       r.instance_types.size(), " option(s), NodePool \"",
                       r.node_pool, "\")"));
    }
    action = absl::StrCat("replace ", what, " with ",
                          command.replacements.size(), " NodeClaims (price ",
                          Price(total), "): ", absl::StrJoin(parts, " + "));
  }
  std::string out = absl::StrCat(prefix, action, "; ",
                                 BudgetText(command.candidates, ledger));
  for (const PoolScore& score : command.balanced_scores) {
    absl::StrAppend(&out, "; ", DescribeScore(score));
  }
  return out;
}

// Splits `candidates` into verdicts (ineligible, in input order) and the
// eligible ones sorted for consolidation.
std::vector<Candidate> EligibleSorted(std::vector<Candidate> candidates,
                                      Method method,
                                      std::vector<NodeVerdict>& verdicts) {
  std::vector<Candidate> eligible;
  for (Candidate& c : candidates) {
    if (auto verdict = ConsolidationIneligibility(c, method)) {
      verdicts.push_back(*std::move(verdict));
    } else {
      eligible.push_back(std::move(c));
    }
  }
  SortForConsolidation(eligible);
  return eligible;
}

NodeVerdict BudgetVerdict(const Candidate& c, Method method,
                          const BudgetLedger& ledger) {
  if (ledger.Remaining(c.node_pool_name) > 0) {
    std::string zone = ledger.ZoneRefusal(c);
    if (!zone.empty()) {
      return MakeVerdict(c, method, reasons::kZoneLimit, std::move(zone));
    }
  }
  return MakeVerdict(c, method, reasons::kBudgetExhausted,
                     absl::StrCat("no Underutilized disruptions allowed: ",
                                  ledger.Describe(c.node_pool_name)));
}

// Karpenter's single-node order: candidates grouped by NodePool (groups keep
// the consolidation order), then taken one per NodePool in turn.
std::vector<Candidate> RoundRobinByNodePool(std::vector<Candidate> sorted) {
  const size_t total = sorted.size();
  std::map<std::string, std::vector<Candidate>, std::less<>> by_pool;
  for (Candidate& c : sorted) by_pool[c.node_pool_name].push_back(std::move(c));
  std::vector<Candidate> out;
  for (size_t round = 0; out.size() < total; ++round) {
    for (auto& [pool, group] : by_pool) {
      if (round < group.size()) out.push_back(std::move(group[round]));
    }
  }
  return out;
}

// --- Balanced scoring, events and metrics --------------------------------

// Totals over the candidates alone, for callers that give none.
NodePoolTotalsMap TotalsOf(absl::Span<const Candidate> candidates) {
  NodePoolTotalsMap out;
  for (const Candidate& c : candidates) {
    if (c.consolidation_policy != budget::ConsolidationPolicy::kBalanced) {
      continue;
    }
    NodePoolTotals& t = out[c.node_pool_name];
    t.total_cost += c.price;
    t.total_disruption_cost += c.reschedule_disruption_cost;
  }
  return out;
}

// Karpenter's `Command.StringForNode` of a command without a method (as
// the consolidation methods hold it when they publish).
std::string CommandText(const Command& command, const Candidate& c) {
  if (command.candidates.size() == 1) {
    if (command.replacements.empty()) {
      return absl::StrCat(DecisionLabel(command.decision()), ": [", c.node_name,
                          "]");
    }
    const size_t n = command.replacements.size();
    return absl::StrCat(DecisionLabel(command.decision()), ": [", c.node_name,
                        "] -> [", n,
                        n == 1 ? " replacement]" : " replacements]");
  }
  return absl::StrCat(DecisionLabel(command.decision()), ": [", c.node_name,
                      "] (part of ", command.candidates.size(),
                      "-node consolidation)");
}

void NodeAndClaimEvents(const Candidate& c, absl::string_view reason,
                        const std::string& message, std::vector<Event>& out) {
  out.push_back(Event{.kind = "Node",
                      .namespace_name = "",
                      .name = c.node_name,
                      .type = EventType::kNormal,
                      .reason = std::string(reason),
                      .message = message});
  out.push_back(Event{.kind = "NodeClaim",
                      .namespace_name = "",
                      .name = c.node_claim_name,
                      .type = EventType::kNormal,
                      .reason = std::string(reason),
                      .message = message});
}

// `Command.EmitCandidateEvents`, which computeConsolidation calls for
// replace moves only.
void CandidateEvents(const Command& command, std::vector<Event>& out) {
  if (command.replacements.empty()) return;
  const double savings = EstimatedSavings(command);
  for (const Candidate& c : command.candidates) {
    NodeAndClaimEvents(c, events::kConsolidationCandidate,
                       absl::StrFormat("Consolidation candidate: %s "
                                       "(savings: $%.2f)",
                                       CommandText(command, c), savings),
                       out);
  }
}

MetricLabels MoveLabels(absl::string_view decision, absl::string_view pool,
                        budget::ConsolidationPolicy policy) {
  return MetricLabels{
      {std::string(metrics::kDecisionLabel), std::string(decision)},
      {std::string(metrics::kNodePoolLabel), std::string(pool)},
      {std::string(metrics::kPolicyLabel),
       std::string(ConsolidationPolicyName(policy))}};
}

absl::string_view DecisionOf(bool approved) {
  return approved ? metrics::kApproved : metrics::kRejected;
}

// Karpenter's balancedEvaluator, publishing into a ConsolidationResult.
class Evaluator {
 public:
  Evaluator(const NodePoolTotalsMap& totals, ConsolidationResult& result)
      : totals_(totals), result_(result) {}

  const NodePoolTotalsMap& totals() const { return totals_; }

  // `ApproveCommand`: scores the move; for a single-candidate move counts
  // it and, when its NodePool is Balanced, observes the score and
  // publishes ConsolidationApproved if it passed.
  BalancedEvaluation Approve(const Command& command) {
    BalancedEvaluation eval = EvaluateBalancedMove(command, totals_);
    if (command.candidates.size() != 1) return eval;
    const Candidate& c = command.candidates.front();
    const PoolScore* scored = eval.pools.empty() ? nullptr : &eval.pools[0];
    const bool approved = scored == nullptr || scored->score.Approved();
    MetricLabels labels = MoveLabels(DecisionOf(approved), c.node_pool_name,
                                     c.consolidation_policy);
    result_.metrics.push_back(
        MetricSample{.kind = MetricSample::Kind::kAdd,
                     .name = std::string(metrics::kConsolidationMovesTotal),
                     .labels = labels,
                     .value = 1});
    if (scored == nullptr) return eval;
    result_.metrics.push_back(
        MetricSample{.kind = MetricSample::Kind::kObserve,
                     .name = std::string(metrics::kConsolidationScore),
                     .labels = std::move(labels),
                     .value = scored->score.Score()});
    if (approved) {
      NodeAndClaimEvents(c, events::kConsolidationApproved,
                         ApprovedMessage(scored->score), result_.events);
    }
    return eval;
  }

  // `EmitMultiNodeEvents`: once per multi-node search.
  void EmitMultiNode(const Command& command, const BalancedEvaluation& eval,
                     bool approved) {
    std::map<std::string, budget::ConsolidationPolicy, std::less<>> pools;
    for (const Candidate& c : command.candidates) {
      pools.emplace(c.node_pool_name, c.consolidation_policy);
    }
    for (const auto& [pool, policy] : pools) {
      result_.metrics.push_back(
          MetricSample{.kind = MetricSample::Kind::kAdd,
                       .name = std::string(metrics::kConsolidationMovesTotal),
                       .labels = MoveLabels(DecisionOf(approved), pool, policy),
                       .value = 1});
      const std::string& name = pool;  // Lambdas cannot capture bindings.
      auto scored =
          std::find_if(eval.pools.begin(), eval.pools.end(),
                       [&](const PoolScore& p) { return p.node_pool == name; });
      if (scored == eval.pools.end()) continue;
      const bool pool_approved = scored->score.Approved();
      result_.metrics.push_back(MetricSample{
          .kind = MetricSample::Kind::kObserve,
          .name = std::string(metrics::kConsolidationScore),
          .labels = MoveLabels(DecisionOf(pool_approved), pool, policy),
          .value = scored->score.Score()});
      if (pool_approved) {
        result_.events.push_back(
            Event{.kind = "NodePool",
                  .namespace_name = "",
                  .name = pool,
                  .type = EventType::kNormal,
                  .reason = std::string(events::kConsolidationApproved),
                  .message = ApprovedMessage(scored->score)});
      }
    }
  }

 private:
  const NodePoolTotalsMap& totals_;
  ConsolidationResult& result_;
};

// Why a Balanced evaluation refused a move: its refusing NodePools' scores.
std::string RefusedText(const BalancedEvaluation& eval) {
  std::vector<std::string> parts;
  for (const PoolScore& p : eval.pools) {
    if (!p.score.Approved()) parts.push_back(DescribeScore(p));
  }
  return absl::StrJoin(parts, "; ");
}

// SDK control consolidation-min-savings (controls.h): why `command` saves
// too little for a NodePool of its candidates, or nullopt.
std::optional<std::string> MinSavingsRefusal(const Command& command) {
  std::map<std::string, const MinSavingsSpec*, std::less<>> pools;
  for (const Candidate& c : command.candidates) {
    if (c.controls.min_savings.has_value()) {
      pools.emplace(c.node_pool_name, &*c.controls.min_savings);
    }
  }
  if (pools.empty()) return std::nullopt;
  const double before = SourceCost(command);
  const double after = before - EstimatedSavings(command);
  std::vector<std::string> refused;
  for (const auto& [pool, spec] : pools) {
    const SavingsCheck check = CheckMinSavings(*spec, before, after);
    if (!check.ok) {
      refused.push_back(absl::StrCat("NodePool \"", pool, "\": ", check.why));
    }
  }
  if (refused.empty()) return std::nullopt;
  return absl::StrCat(DecisionLabel(command.decision()), " ",
                      command.candidates.size(),
                      " node(s): ", absl::StrJoin(refused, "; "));
}

// Whether every candidate's NodePool lets a multi-node move launch two
// NodeClaims (controls.h, consolidation-max-replacements "2").
bool AllowsTwoReplacements(absl::Span<const Candidate> candidates,
                           Method method, const ConsolidationOptions& options) {
  if (!options.multiple_replacements ||
      method != Method::kMultiNodeConsolidation) {
    return false;
  }
  return std::all_of(
      candidates.begin(), candidates.end(),
      [](const Candidate& c) { return c.controls.max_replacements >= 2; });
}

// m nodes into two: both replacements narrowed to the options that keep any
// pair launched strictly below `limit` (the candidates' price), each priced
// at its worst launch price as Karpenter prices one; the dearest option of
// the dearer side is dropped until the two dearest kept sum below `limit`.
ConsolidationAttempt ReplaceWithTwo(absl::Span<const Candidate> candidates,
                                    Method method,
                                    const std::vector<Replacement>& claims,
                                    double limit,
                                    const InstanceTypeCatalog& catalog) {
  std::vector<std::vector<PricedOption>> options;
  std::vector<bool> force_spot;
  for (const Replacement& r : claims) {
    absl::StatusOr<Requirements> reqs = ReplacementRequirements(r);
    if (!reqs.ok()) {
      return NoCommand(reasons::kUnsupportedConstraint,
                       std::string(reqs.status().message()));
    }
    std::vector<PricedOption> priced = PriceOptions(r, *reqs, catalog);
    // Ordered by the launch price, which the sum is judged on.
    std::stable_sort(priced.begin(), priced.end(),
                     [](const PricedOption& a, const PricedOption& b) {
                       return a.launch < b.launch;
                     });
    if (priced.empty() || !std::isfinite(priced.front().launch)) {
      return NoCommand(reasons::kNoCheaperReplacement,
                       absl::StrCat("Can't replace with 2 cheaper nodes (no "
                                    "priced instance type for a replacement "
                                    "in NodePool \"",
                                    r.node_pool, "\")"));
    }
    force_spot.push_back(
        Admits(*reqs, kCapacityTypeLabelKey, kCapacityTypeSpot) &&
        Admits(*reqs, kCapacityTypeLabelKey, kCapacityTypeOnDemand));
    options.push_back(std::move(priced));
  }
  const double cheapest = options[0].front().launch + options[1].front().launch;
  if (!(cheapest < limit)) {
    return NoCommand(
        reasons::kNoCheaperReplacement,
        absl::StrCat("Can't replace with 2 cheaper nodes (the cheapest pair "
                     "costs ",
                     Price(cheapest), ", the candidates ", Price(limit), ")"));
  }
  for (size_t i = 0; i < 2; ++i) {
    const double room = limit - options[1 - i].front().launch;
    std::erase_if(options[i],
                  [room](const PricedOption& o) { return !(o.launch < room); });
  }
  // Both cheapest options stay: their pair fits.
  while (!(options[0].back().launch + options[1].back().launch < limit)) {
    size_t dearer =
        options[0].back().launch >= options[1].back().launch ? 0 : 1;
    if (options[dearer].size() == 1) dearer = 1 - dearer;
    options[dearer].pop_back();
  }
  std::vector<Replacement> out;
  for (size_t i = 0; i < 2; ++i) {
    std::sort(options[i].begin(), options[i].end(),
              [](const PricedOption& a, const PricedOption& b) {
                return std::tie(a.cheapest, a.name) <
                       std::tie(b.cheapest, b.name);
              });
    out.push_back(Narrow(claims[i], options[i], force_spot[i]));
  }
  Command command{.method = method,
                  .candidates = {candidates.begin(), candidates.end()},
                  .replacements = std::move(out)};
  return ConsolidationAttempt{.command = std::move(command)};
}

absl::Status Rejected(absl::string_view reason, absl::string_view detail) {
  return absl::FailedPreconditionError(absl::StrCat(reason, ": ", detail));
}

}  // namespace

std::optional<NodeVerdict> ConsolidationIneligibility(
    const Candidate& candidate, Method method) {
  const Candidate& c = candidate;
  auto verdict = [&](absl::string_view code, std::string message) {
    return MakeVerdict(c, method, code, std::move(message));
  };
  auto missing = [&](absl::string_view label) {
    return verdict(reasons::kMissingLabel,
                   absl::StrCat("Node does not have label \"", label, "\""));
  };
  if (c.static_node_pool) {
    return verdict(reasons::kStaticNodePool,
                   absl::StrCat("NodePool \"", c.node_pool_name,
                                "\" is static (spec.replicas is set)"));
  }
  if (c.instance_type.empty()) return missing(kLabelInstanceTypeStable);
  if (!(c.price > 0)) {
    return verdict(
        reasons::kInstanceTypeUnknown,
        absl::StrCat("Instance Type \"", c.instance_type,
                     "\" not found (no offering price for zone \"", c.zone,
                     "\", capacity type \"", c.capacity_type, "\")"));
  }
  if (c.capacity_type.empty()) return missing(kCapacityTypeLabelKey);
  if (c.zone.empty()) return missing(kLabelTopologyZone);
  if (c.consolidation_disabled) {
    return verdict(reasons::kConsolidationDisabled,
                   absl::StrCat("NodePool \"", c.node_pool_name,
                                "\" has consolidation disabled"));
  }
  if (c.IsEmpty()) {
    return verdict(reasons::kNoDisruptionNeeded,
                   "node is empty; empty nodes are left to emptiness");
  }
  if (c.consolidation_policy == budget::ConsolidationPolicy::kWhenEmpty) {
    return verdict(reasons::kWhenEmptyPolicy,
                   absl::StrCat("NodePool \"", c.node_pool_name,
                                "\" has consolidation policy WhenEmpty, but "
                                "node is not empty"));
  }
  if (!c.consolidatable) {
    return verdict(reasons::kNotConsolidatable,
                   "NodeClaim is not Consolidatable: consolidateAfter has not "
                   "elapsed since the last pod event");
  }
  return std::nullopt;
}

ConsolidationAttempt EvaluateConsolidation(
    absl::Span<const Candidate> candidates, Method method,
    const SchedulingSimulator& simulator, const InstanceTypeCatalog& catalog,
    const ConsolidationOptions& options) {
  if (candidates.empty()) {
    return NoCommand(reasons::kNoDisruptionNeeded, "no candidates");
  }
  const SimulationResult sim = simulator.SimulateConsolidation(candidates);
  if (sim.unsupported.has_value()) {
    return NoCommand(reasons::kUnsupportedConstraint, *sim.unsupported);
  }
  if (!sim.all_pods_scheduled) {
    return NoCommand(reasons::kPodsDoNotFit,
                     sim.unschedulable.empty()
                         ? std::string("not all pods would schedule")
                         : absl::StrJoin(sim.unschedulable, "; "));
  }
  if (sim.new_node_claims.empty()) {
    return ConsolidationAttempt{
        .command =
            Command{.method = method,
                    .candidates = {candidates.begin(), candidates.end()}}};
  }
  const double limit = TotalPrice(candidates);
  const bool all_spot = std::all_of(
      candidates.begin(), candidates.end(),
      [](const Candidate& c) { return c.capacity_type == kCapacityTypeSpot; });
  if (sim.new_node_claims.size() == 2 && !all_spot &&
      AllowsTwoReplacements(candidates, method, options)) {
    return ReplaceWithTwo(candidates, method, sim.new_node_claims, limit,
                          catalog);
  }
  if (sim.new_node_claims.size() > 1) {
    return NoCommand(reasons::kMultipleReplacements,
                     absl::StrCat("Can't remove without creating ",
                                  sim.new_node_claims.size(), " candidates"));
  }
  const Replacement& replacement = sim.new_node_claims.front();
  absl::StatusOr<Requirements> reqs = ReplacementRequirements(replacement);
  if (!reqs.ok()) {
    return NoCommand(reasons::kUnsupportedConstraint,
                     std::string(reqs.status().message()));
  }
  if (all_spot && Admits(*reqs, kCapacityTypeLabelKey, kCapacityTypeSpot)) {
    return SpotToSpot(candidates, method, replacement, *std::move(reqs), limit,
                      catalog, options);
  }
  std::vector<PricedOption> cheaper =
      CheaperThan(PriceOptions(replacement, *reqs, catalog), limit);
  if (cheaper.empty()) {
    return NoCommand(reasons::kNoCheaperReplacement,
                     absl::StrCat("Can't replace with a cheaper node (no "
                                  "instance type below ",
                                  Price(limit), ")"));
  }
  // Prices assumed spot would launch when both are allowed: insist on it,
  // so a spot shortage fails the launch instead of costing more.
  const bool force_spot =
      Admits(*reqs, kCapacityTypeLabelKey, kCapacityTypeSpot) &&
      Admits(*reqs, kCapacityTypeLabelKey, kCapacityTypeOnDemand);
  return Replace(candidates, method, Narrow(replacement, cheaper, force_spot));
}

ConsolidationResult ComputeMultiNodeConsolidation(
    std::vector<Candidate> candidates, BudgetLedger& ledger,
    const SchedulingSimulator& simulator, const InstanceTypeCatalog& catalog,
    absl::Time now, const ConsolidationOptions& options,
    const NodePoolTotalsMap* balanced_totals) {
  constexpr Method kMethod = Method::kMultiNodeConsolidation;
  ConsolidationResult result;
  const NodePoolTotalsMap own_totals =
      balanced_totals == nullptr ? TotalsOf(candidates) : NodePoolTotalsMap();
  Evaluator evaluator(
      balanced_totals == nullptr ? own_totals : *balanced_totals, result);
  std::vector<Candidate> batch;
  std::vector<Candidate> eligible =
      EligibleSorted(std::move(candidates), kMethod, result.verdicts);
  result.eligible = eligible.size();
  for (Candidate& c : eligible) {
    if (ledger.TryTake(c)) {
      batch.push_back(std::move(c));
    } else {
      result.verdicts.push_back(BudgetVerdict(c, kMethod, ledger));
    }
  }
  const size_t limit = std::min(batch.size(), options.max_multi_candidates);
  if (limit < 2) {
    for (const Candidate& c : batch) {
      result.verdicts.push_back(MakeVerdict(
          c, kMethod, reasons::kNotSelected,
          absl::StrCat("multi-node consolidation needs at least 2 "
                       "candidates, ",
                       batch.size(), " eligible within budget (batch limit ",
                       options.max_multi_candidates, ")")));
    }
    return result;
  }
  // Binary search on the index of the prefix's last candidate, as
  // `firstNConsolidationOption` (its lo = 1: never a single node).
  struct Search {
    std::optional<Command> best;
    BalancedEvaluation best_eval;
    ConsolidationAttempt last_failure;
    // The last move a Balanced score refused, and its evaluation.
    std::optional<std::pair<Command, BalancedEvaluation>> last_refused;
  };
  const auto search = [&](const ConsolidationOptions& opts) {
    Search out;
    size_t lo = 1;
    size_t hi = limit - 1;
    while (lo <= hi) {
      const size_t mid = (lo + hi) / 2;
      absl::Span<const Candidate> prefix(batch.data(), mid + 1);
      ConsolidationAttempt attempt =
          EvaluateConsolidation(prefix, kMethod, simulator, catalog, opts);
      if (attempt.command.has_value()) {
        CandidateEvents(*attempt.command, result.events);
      }
      if (attempt.command.has_value() &&
          attempt.command->decision() == Decision::kReplace) {
        bool kept_all = true;
        for (Replacement& r : attempt.command->replacements) {
          std::optional<Replacement> kept =
              FilterOutSameInstanceType(r, prefix, catalog);
          if (!kept.has_value()) {
            kept_all = false;
            break;
          }
          r = *std::move(kept);
        }
        if (!kept_all) {
          attempt = NoCommand(reasons::kNoCheaperReplacement,
                              "every replacement option costs at least as "
                              "much as a candidate of the same instance type");
        }
      }
      if (attempt.command.has_value()) {
        if (std::optional<std::string> why =
                MinSavingsRefusal(*attempt.command)) {
          attempt = NoCommand(reasons::kSavingsBelowThreshold, *std::move(why));
        }
      }
      if (attempt.command.has_value()) {
        BalancedEvaluation eval = evaluator.Approve(*attempt.command);
        if (eval.approved) {
          attempt.command->balanced_scores = eval.pools;
          out.best_eval = std::move(eval);
        } else {
          std::string why = RefusedText(eval);
          out.last_refused.emplace(*std::move(attempt.command),
                                   std::move(eval));
          attempt = NoCommand(reasons::kBalancedScoreTooLow, std::move(why));
        }
      }
      if (attempt.command.has_value()) {
        out.best = std::move(attempt.command);
        lo = mid + 1;
      } else {
        out.last_failure = std::move(attempt);
        hi = mid - 1;
      }
    }
    return out;
  };
  Search found = search(options);
  // m nodes into two (controls.h) only where it saves more than the move
  // Karpenter's one-replacement rule finds (a tie keeps Karpenter's).
  if (found.best.has_value() && found.best->replacements.size() > 1) {
    ConsolidationOptions one = options;
    one.multiple_replacements = false;
    Search single = search(one);
    if (single.best.has_value() &&
        EstimatedSavings(*single.best) >= EstimatedSavings(*found.best)) {
      found = std::move(single);
    }
  }
  std::optional<Command>& best = found.best;
  BalancedEvaluation& best_eval = found.best_eval;
  ConsolidationAttempt& last_failure = found.last_failure;
  std::optional<std::pair<Command, BalancedEvaluation>>& last_refused =
      found.last_refused;
  if (!best.has_value() && last_refused.has_value()) {
    evaluator.EmitMultiNode(last_refused->first, last_refused->second, false);
  }
  if (best.has_value()) evaluator.EmitMultiNode(*best, best_eval, true);
  if (!best.has_value()) {
    // The search ended on the first two candidates: their reason stands for
    // the batch.
    for (const Candidate& c : batch) {
      result.verdicts.push_back(MakeVerdict(
          c, kMethod, last_failure.code,
          absl::StrCat("multi-node: removing the first 2 candidates together: ",
                       last_failure.message)));
    }
    return result;
  }
  const size_t taken = best->candidates.size();
  for (size_t i = taken; i < batch.size(); ++i) {
    result.verdicts.push_back(MakeVerdict(
        batch[i], kMethod, reasons::kNotSelected,
        absl::StrCat("multi-node: not in the longest consolidatable prefix (",
                     taken, " of ", batch.size(), " candidates)")));
  }
  best->validate_at = now + options.validation_delay;
  best->explanation = Explain("multi-node: ", *best, ledger);
  result.commands.push_back(*std::move(best));
  return result;
}

ConsolidationResult ComputeSingleNodeConsolidation(
    std::vector<Candidate> candidates, BudgetLedger& ledger,
    const SchedulingSimulator& simulator, const InstanceTypeCatalog& catalog,
    absl::Time now, const ConsolidationOptions& options,
    const NodePoolTotalsMap* balanced_totals) {
  constexpr Method kMethod = Method::kSingleNodeConsolidation;
  ConsolidationResult result;
  const NodePoolTotalsMap own_totals =
      balanced_totals == nullptr ? TotalsOf(candidates) : NodePoolTotalsMap();
  Evaluator evaluator(
      balanced_totals == nullptr ? own_totals : *balanced_totals, result);
  std::vector<Candidate> eligible =
      EligibleSorted(std::move(candidates), kMethod, result.verdicts);
  result.eligible = eligible.size();
  std::vector<Candidate> order = RoundRobinByNodePool(std::move(eligible));
  for (const Candidate& c : order) {
    if (!result.commands.empty()) {
      result.verdicts.push_back(MakeVerdict(
          c, kMethod, reasons::kNotSelected,
          absl::StrCat("single-node: node \"",
                       result.commands.front().candidates.front().node_name,
                       "\" was chosen this pass")));
      continue;
    }
    if (!ledger.Allows(c)) {
      result.verdicts.push_back(BudgetVerdict(c, kMethod, ledger));
      continue;
    }
    if (!CanPassThreshold(c, evaluator.totals())) {
      result.verdicts.push_back(MakeVerdict(
          c, kMethod, reasons::kBalancedScoreTooLow,
          absl::StrCat("even deleting the node: ",
                       DescribeScore(DeleteScore(c, evaluator.totals())))));
      continue;
    }
    ConsolidationAttempt attempt = EvaluateConsolidation(
        absl::MakeConstSpan(&c, 1), kMethod, simulator, catalog, options);
    if (!attempt.command.has_value()) {
      result.verdicts.push_back(
          MakeVerdict(c, kMethod, attempt.code, std::move(attempt.message)));
      continue;
    }
    if (std::optional<std::string> why = MinSavingsRefusal(*attempt.command)) {
      result.verdicts.push_back(
          MakeVerdict(c, kMethod, reasons::kSavingsBelowThreshold, *why));
      continue;
    }
    CandidateEvents(*attempt.command, result.events);
    BalancedEvaluation eval = evaluator.Approve(*attempt.command);
    if (!eval.approved) {
      result.verdicts.push_back(MakeVerdict(
          c, kMethod, reasons::kBalancedScoreTooLow, RefusedText(eval)));
      continue;
    }
    ledger.TryTake(c);
    Command command = *std::move(attempt.command);
    command.balanced_scores = std::move(eval.pools);
    command.validate_at = now + options.validation_delay;
    command.explanation = Explain("single-node: ", command, ledger);
    result.commands.push_back(std::move(command));
  }
  return result;
}

std::vector<Event> ConsolidationRejectedEvents(const Command& command,
                                               absl::string_view reason) {
  std::vector<Event> out;
  const double savings = EstimatedSavings(command);
  for (const Candidate& c : command.candidates) {
    NodeAndClaimEvents(
        c, events::kConsolidationRejected,
        absl::StrFormat("Consolidation rejected: %s, reason: %s (savings: "
                        "$%.2f)",
                        CommandText(command, c), reason, savings),
        out);
  }
  return out;
}

absl::StatusOr<Command> ValidateConsolidation(
    const Command& command, absl::Span<const Candidate> fresh_candidates,
    BudgetLedger& fresh_ledger, const SchedulingSimulator& fresh_simulator,
    absl::Time now) {
  if (command.method != Method::kMultiNodeConsolidation &&
      command.method != Method::kSingleNodeConsolidation) {
    return absl::InvalidArgumentError(
        absl::StrCat("command.method: \"", MethodName(command.method),
                     "\" is not a consolidation method"));
  }
  if (command.candidates.empty()) {
    return absl::InvalidArgumentError("command.candidates: empty");
  }
  if (command.validate_at.has_value() && now < *command.validate_at) {
    return absl::InvalidArgumentError(absl::StrCat(
        "now: \"", FormatRfc3339(now), "\" is before command.validate_at \"",
        FormatRfc3339(*command.validate_at), "\""));
  }
  // 1. Churn: every candidate must still be one, unchanged.
  std::vector<Candidate> current;
  for (const Candidate& old : command.candidates) {
    auto fresh =
        std::find_if(fresh_candidates.begin(), fresh_candidates.end(),
                     [&](const Candidate& f) {
                       return f.node_claim_name == old.node_claim_name &&
                              f.provider_id == old.provider_id;
                     });
    if (fresh == fresh_candidates.end()) {
      return Rejected("churn", absl::StrCat("candidate \"", old.node_name,
                                            "\" is no longer a candidate"));
    }
    if (auto verdict = ConsolidationIneligibility(*fresh, command.method)) {
      return Rejected("churn", absl::StrCat("candidate \"", old.node_name,
                                            "\" is no longer consolidatable: ",
                                            verdict->message));
    }
    if (std::tie(fresh->instance_type, fresh->zone, fresh->capacity_type,
                 fresh->node_pool_name) != std::tie(old.instance_type, old.zone,
                                                    old.capacity_type,
                                                    old.node_pool_name)) {
      return Rejected("churn",
                      absl::StrCat("candidate \"", old.node_name,
                                   "\" changed instance type, zone, capacity "
                                   "type or NodePool"));
    }
    current.push_back(*fresh);
  }
  // 2. Budget, consumed one per candidate.
  for (const Candidate& c : current) {
    if (!fresh_ledger.TryTake(c)) {
      const std::string zone = fresh_ledger.Remaining(c.node_pool_name) > 0
                                   ? fresh_ledger.ZoneRefusal(c)
                                   : "";
      if (!zone.empty()) return Rejected("budget", zone);
      return Rejected(
          "budget",
          absl::StrCat("candidate \"", c.node_name,
                       "\" can no longer be disrupted without violating "
                       "budgets (",
                       fresh_ledger.Describe(c.node_pool_name), ")"));
    }
  }
  // 3. The simulation must still give the same kind of answer. (Karpenter's
  // step 4, re-reading the candidates after simulating, guards a race with
  // its live cluster state; the inputs here are immutable.)
  const SimulationResult sim = fresh_simulator.SimulateConsolidation(current);
  if (sim.unsupported.has_value()) {
    return Rejected("scheduling", *sim.unsupported);
  }
  if (!sim.all_pods_scheduled) {
    return Rejected("scheduling",
                    absl::StrCat("not all pods would schedule: ",
                                 absl::StrJoin(sim.unschedulable, "; ")));
  }
  // One replacement (Karpenter), or two for m nodes into two when the
  // candidates' NodePools still allow it (controls.h).
  const size_t allowed =
      command.method == Method::kMultiNodeConsolidation &&
              std::all_of(current.begin(), current.end(),
                          [](const Candidate& c) {
                            return c.controls.max_replacements >= 2;
                          })
          ? 2
          : 1;
  if (sim.new_node_claims.size() != command.replacements.size() ||
      sim.new_node_claims.size() > allowed) {
    return Rejected(
        "scheduling",
        absl::StrCat("the simulation now needs ", sim.new_node_claims.size(),
                     " new NodeClaim(s), the command has ",
                     command.replacements.size()));
  }
  for (size_t i = 0; i < command.replacements.size(); ++i) {
    const std::vector<std::string>& now_types =
        sim.new_node_claims[i].instance_types;
    for (const std::string& type : command.replacements[i].instance_types) {
      if (std::find(now_types.begin(), now_types.end(), type) ==
          now_types.end()) {
        return Rejected("scheduling",
                        absl::StrCat("replacement instance type \"", type,
                                     "\" is no longer an option"));
      }
    }
  }
  Command valid = command;
  valid.candidates = std::move(current);
  valid.validate_at = std::nullopt;
  return valid;
}

}  // namespace karpenter::disruption
