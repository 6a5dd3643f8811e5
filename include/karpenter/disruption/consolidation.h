// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Multi-node and single-node consolidation: which candidates may be
// consolidated, the delete or replace command the scheduling simulation
// allows, and the re-validation of that command after the 15 s delay.
//
// Ports karpenter pkg/controllers/disruption/consolidation.go
// (`ShouldDisrupt`, `computeConsolidation`,
// `computeSpotToSpotConsolidation`, `getCandidatePrices`),
// multinodeconsolidation.go (`firstNConsolidationOption`,
// `filterOutSameInstanceType`), singlenodeconsolidation.go (budget skip,
// round-robin by NodePool) and validation.go (docs/semantics.md §1.4,
// §2.7, §2.11, §2.14). The simulation is consumed through
// `SchedulingSimulator`; prices of replacement instance types come from the
// `InstanceTypeCatalog` the host gathered for the pass.
//
// Deliberate differences from Karpenter, all for determinism or clarity:
//   - Multi-node tries prefixes of at most `max_multi_candidates` nodes.
//     Karpenter's search can try 101 nodes when more than 100 are eligible
//     (its `hi` is the cap, used as an index); we cap the batch itself.
//   - Single-node interleaves NodePools in name order; Karpenter uses Go map
//     order (random) after the pools a previous pass timed out on. There is
//     no timeout here: the functions are pure and bounded by the input.
//   - minValues is not re-checked when instance types are filtered by price
//     (Karpenter's `RemoveInstanceTypeOptionsByPriceAndMinValues`); spot-to-
//     spot truncates to `min_spot_to_spot_options` types.
//   - Balanced candidates' ties in the consolidation order are broken
//     deterministically (SortForConsolidation); Karpenter's sort.Slice
//     leaves them unspecified.
//
// Thread-safety: the functions are pure apart from the caller's
// BudgetLedger, which they mutate; the simulator is only read.
#ifndef KARPENTER_DISRUPTION_CONSOLIDATION_H_
#define KARPENTER_DISRUPTION_CONSOLIDATION_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "karpenter/disruption/balanced.h"
#include "karpenter/disruption/types.h"
#include "karpenter/event_recorder.h"
#include "karpenter/metrics.h"

namespace karpenter::disruption {

struct ConsolidationOptions {
  // Consolidation commands wait this long before validation (Karpenter's
  // consolidationTTL).
  absl::Duration validation_delay = absl::Seconds(15);
  // Most candidates one multi-node command may take (Karpenter's
  // MaxMultiNodeConsolidationBatchSize).
  size_t max_multi_candidates = 100;
  // The SpotToSpotConsolidation feature gate (default off in Karpenter).
  bool spot_to_spot = false;
  // Single-node spot-to-spot needs this many strictly cheaper spot options
  // and launches with only the cheapest this many
  // (MinInstanceTypesForSpotToSpotConsolidation).
  size_t min_spot_to_spot_options = 15;
  // SDK control consolidation-max-replacements (controls.h): when true, a
  // multi-node move whose candidates' NodePools all allow 2 replacements may
  // launch two new NodeClaims (m nodes into two); false keeps Karpenter's
  // one replacement whatever the annotations say.
  bool multiple_replacements = true;
};

// What one consolidation method decided in a pass. Mirrors `MethodResult`
// of methods.h.
struct ConsolidationResult {
  // At most one command.
  std::vector<Command> commands = {};
  // One verdict per candidate passed in that is not in a command: the
  // ineligible ones in input order, then the others in the order the method
  // considered them (consolidation order; round-robin for single-node).
  std::vector<NodeVerdict> verdicts = {};
  // What Karpenter publishes while the method runs, in order, for the
  // executor to hand to its EventRecorder and Metrics:
  //   - ConsolidationCandidate (Node and NodeClaim) for every replace move
  //     computed, single-node or in each step of the multi-node search;
  //   - single-node, per move scored: karpenter_consolidation_moves_total
  //     (any policy; "rejected" only for a Balanced score below the
  //     threshold) and, for Balanced, karpenter_consolidation_score and
  //     ConsolidationApproved (Node and NodeClaim) when approved;
  //   - multi-node, once per search (the command found, else the last move
  //     a Balanced score refused): per NodePool of the move, the moves
  //     counter with the move's decision and, for Balanced NodePools, the
  //     score with the NodePool's own decision and ConsolidationApproved on
  //     the NodePool when it approved.
  // Karpenter publishes no event for a refused score (only the metrics).
  std::vector<Event> events = {};
  std::vector<MetricSample> metrics = {};
  // Candidates ConsolidationIneligibility kept (Karpenter's eligible
  // nodes of the method).
  size_t eligible = 0;
};

// Karpenter's consolidation `ShouldDisrupt` (§2.7), checked in its order:
// static NodePool (reasons::kStaticNodePool), instance-type label missing
// (kMissingLabel) or price unknown, i.e. `price <= 0` (kInstanceTypeUnknown),
// capacity-type then zone label missing (kMissingLabel), consolidateAfter
// Never (kConsolidationDisabled), empty node (kNoDisruptionNeeded: empty
// nodes are left to Emptiness), WhenEmpty policy (kWhenEmptyPolicy), not
// Consolidatable yet (kNotConsolidatable). Returns nullopt when `candidate`
// may be consolidated, else its verdict with `method` set and Karpenter's
// Unconsolidatable event text as message where it has one.
std::optional<NodeVerdict> ConsolidationIneligibility(
    const Candidate& candidate, Method method);

// The outcome of simulating that one set of candidates goes away.
struct ConsolidationAttempt {
  // A delete or replace command (validate_at and explanation unset); nullopt
  // when consolidation is not possible, see `code`.
  std::optional<Command> command = std::nullopt;
  // When there is no command: reasons::kUnsupportedConstraint,
  // kPodsDoNotFit, kMultipleReplacements or kNoCheaperReplacement, and the
  // message (Karpenter's event text where it has one).
  std::string code = "";
  std::string message = "";
};

// Karpenter's `computeConsolidation` for `candidates` (non-empty), in the
// order given: simulate; unsupported constraint or any unscheduled pod gives
// no command; 0 new NodeClaims gives a delete; more than 1 is refused; with
// exactly 1, its instance types are priced from `catalog[node_pool]` at the
// offerings its requirements admit (zone, capacity type; available ones
// only) and kept iff their launch price (the dearest admitted offering of the
// capacity type it would launch as: reserved, else spot, else on-demand) is
// strictly below the sum of the candidates' prices. When every candidate is
// spot and the replacement admits spot, the spot-to-spot path applies: it
// needs `options.spot_to_spot`, prices spot offerings only and, for a single
// candidate, needs `min_spot_to_spot_options` cheaper types and keeps that
// many. A replacement admitting both spot and on-demand is narrowed to spot.
// The surviving types are ordered by their cheapest admitted offering (ties
// by name) and written to `Replacement::instance_types`, `price` and the
// NodeClaim's instance-type requirement.
ConsolidationAttempt EvaluateConsolidation(
    absl::Span<const Candidate> candidates, Method method,
    const SchedulingSimulator& simulator, const InstanceTypeCatalog& catalog,
    const ConsolidationOptions& options = {});

// Multi-node consolidation (§2.7). Filters `candidates` with
// ConsolidationIneligibility, sorts them (SortForConsolidation), keeps those
// whose NodePool still has budget in `ledger` (taking one per candidate
// kept, as Karpenter's mapping is consumed) and, with at least 2 kept,
// binary-searches the longest prefix of at most `max_multi_candidates`
// nodes that can be deleted together or replaced by one cheaper NodeClaim
// whose types are all cheaper than the cheapest candidate of the same type
// (`filterOutSameInstanceType`) and, when some are Balanced, whose score
// (EvaluateBalancedMove against `balanced_totals`) every Balanced NodePool
// approves. Returns the last valid command with `validate_at = now +
// validation_delay` and its `balanced_scores`, or none.
// `balanced_totals`: the NodePools' totals (CandidatePool::BalancedTotals
// over every candidate of the method's class); null: totals over
// `candidates` alone (their prices and reschedule costs).
ConsolidationResult ComputeMultiNodeConsolidation(
    std::vector<Candidate> candidates, BudgetLedger& ledger,
    const SchedulingSimulator& simulator, const InstanceTypeCatalog& catalog,
    absl::Time now, const ConsolidationOptions& options = {},
    const NodePoolTotalsMap* balanced_totals = nullptr);

// Single-node consolidation (§2.7). Filters and sorts as multi-node, then
// interleaves the candidates round-robin by NodePool (NodePools in name
// order) and returns the first candidate whose NodePool has budget left in
// `ledger`, whose deletion alone could pass a Balanced score
// (CanPassThreshold), that EvaluateConsolidation can delete or replace,
// and whose move a Balanced NodePool approves. One unit is taken from
// `ledger` for the commanded candidate only. `balanced_totals` as for
// ComputeMultiNodeConsolidation.
ConsolidationResult ComputeSingleNodeConsolidation(
    std::vector<Candidate> candidates, BudgetLedger& ledger,
    const SchedulingSimulator& simulator, const InstanceTypeCatalog& catalog,
    absl::Time now, const ConsolidationOptions& options = {},
    const NodePoolTotalsMap* balanced_totals = nullptr);

// Karpenter's ConsolidationRejected events for a consolidation `command`
// whose re-validation failed for `reason` ("churn", "budget", "scheduling"
// or "unknown"; Controller::Validate's message prefix): on each
// candidate's Node and NodeClaim, `Consolidation rejected: <command>,
// reason: <reason> (savings: $0.12)`.
std::vector<Event> ConsolidationRejectedEvents(const Command& command,
                                               absl::string_view reason);

// Re-checks a consolidation `command` after its delay (§2.14) against a
// fresh view: `fresh_candidates` (rebuilt by the caller; filtered here with
// ConsolidationIneligibility for the command's method), `fresh_ledger` (a
// budget ledger rebuilt for Underutilized; consumed one per candidate) and
// `fresh_simulator`. Candidates are matched by NodeClaim name and provider
// ID. Returns the command with each candidate replaced by its fresh copy
// (fresh prices and pods) and `validate_at` cleared when it still holds.
// Errors:
//   - InvalidArgument: `command` has no candidates or is not a
//     consolidation command.
//   - FailedPrecondition "churn: ...": a candidate vanished, is no longer
//     eligible, or changed instance type, zone, capacity type or NodePool.
//   - FailedPrecondition "budget: ...": a candidate's NodePool has no budget
//     left.
//   - FailedPrecondition "scheduling: ...": pods no longer all schedule, the
//     number of new NodeClaims differs from the command's replacements, or
//     the command's instance types are not a subset of the new simulation's.
// `now` must be at or after `command.validate_at` (InvalidArgument else).
absl::StatusOr<Command> ValidateConsolidation(
    const Command& command, absl::Span<const Candidate> fresh_candidates,
    BudgetLedger& fresh_ledger, const SchedulingSimulator& fresh_simulator,
    absl::Time now);

}  // namespace karpenter::disruption

#endif  // KARPENTER_DISRUPTION_CONSOLIDATION_H_
