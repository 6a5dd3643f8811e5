// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The SDK's own NodePool disruption controls: limits Karpenter's users keep
// asking for and Karpenter does not have (docs/semantics.md §11). Each is
// opt-in through a NodePool annotation in the SDK's namespace (keys in
// karpenter/well_known.h); a NodePool without them is decided exactly as
// Karpenter decides it.
//
//   * max-disrupting-zones "N" (kubernetes-sigs/karpenter#1902): budgeted
//     methods disrupt nodes of at most N zones of the NodePool at once; a
//     zone with a node already disrupting counts. Verdict kZoneLimit.
//   * soft-expiration "budget=<nodes>,ceiling=<duration|Never>" (#1750,
//     aws#7797): an expired node waits for an expiration budget, the
//     minimum of `budget` (if given) and the NodePool's active budgets that
//     list no `reasons`, instead of being deleted regardless; past
//     expireAfter + ceiling it is deleted regardless, as Karpenter does.
//     Verdict kExpirationBudgetExhausted.
//   * consolidation-min-savings "<amount>" or "<N>%" (#735, #2388,
//     aws#7146): a consolidation move must save at least that much per hour,
//     or that share of its candidates' price. Verdict kSavingsBelowThreshold.
//   * consolidation-max-replacements "1" or "2" (#1442): a multi-node
//     consolidation may replace its candidates with up to that many new
//     NodeClaims when that is cheaper than a single replacement.
//
// A NodePool whose control annotation is invalid fails closed: its budgeted
// methods disrupt none of its nodes (verdict kInvalidControl naming the
// annotation), as Karpenter fails closed on a budget it cannot evaluate;
// `karpenter validate` reports the same errors.
//
// Thread-safety: plain values and pure functions.
#ifndef KARPENTER_DISRUPTION_CONTROLS_H_
#define KARPENTER_DISRUPTION_CONTROLS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "karpenter/budget/allowed.h"
#include "karpenter/budget/disruption_spec.h"
#include "karpenter/intstr.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/karpenter.pb.h"

namespace karpenter::disruption {

// soft-expiration.
struct SoftExpirationSpec {
  // `budget=`: nodes (an integer) or a percentage of the NodePool's nodes
  // (rounded up, as Karpenter's budgets); nullopt when omitted (only the
  // NodePool's reason-less budgets limit).
  std::optional<IntOrPercent> budget;
  // `ceiling=`: how long past expireAfter an expired node may wait;
  // nullopt for Never.
  std::optional<absl::Duration> ceiling;

  friend bool operator==(const SoftExpirationSpec&,
                         const SoftExpirationSpec&) = default;
};

// consolidation-min-savings: exactly one of the two is set.
struct MinSavingsSpec {
  // An amount per hour, in the catalogue's price unit, > 0.
  std::optional<double> per_hour;
  // A percentage 1..100 of the candidates' price.
  std::optional<int64_t> percent;

  friend bool operator==(const MinSavingsSpec&,
                         const MinSavingsSpec&) = default;
};

// The controls one NodePool opts into; the defaults are Karpenter's.
struct NodePoolControls {
  std::optional<int64_t> max_disrupting_zones;
  std::optional<SoftExpirationSpec> soft_expiration;
  std::optional<MinSavingsSpec> min_savings;
  int64_t max_replacements = 1;

  // True when any control differs from Karpenter's behaviour.
  bool any() const {
    return max_disrupting_zones.has_value() || soft_expiration.has_value() ||
           min_savings.has_value() || max_replacements != 1;
  }
  friend bool operator==(const NodePoolControls&,
                         const NodePoolControls&) = default;
};

// One bad control annotation.
struct ControlError {
  // `metadata.annotations["disruption.karpenter-sdk.dev/..."]`.
  std::string field;
  // The value as written.
  std::string value;
  // What is wrong, e.g. `must be a positive integer`.
  std::string problem;

  // `<field>: "<value>": <problem>`.
  std::string ToString() const;
};

// Single-value parsers; errors are InvalidArgument `<problem>` (no field
// prefix) so callers can place them.
//   "N": an integer 1..1000 in ASCII digits.
absl::StatusOr<int64_t> ParseMaxDisruptingZones(absl::string_view text);
//   "budget=<nodes>,ceiling=<dur>" in any order, no spaces; `ceiling` is
//   required (a Go duration >= 0 or "Never"); `budget` is optional, an
//   integer or "<0..100>%".
absl::StatusOr<SoftExpirationSpec> ParseSoftExpiration(absl::string_view text);
//   "<amount>" (a decimal number > 0, e.g. "0.05") or "<1..100>%".
absl::StatusOr<MinSavingsSpec> ParseMinSavings(absl::string_view text);
//   "1" or "2".
absl::StatusOr<int64_t> ParseMaxReplacements(absl::string_view text);

// The canonical text of each ("budget=1,ceiling=24h", "ceiling=Never",
// "0.05", "10%"); the parser reads it back as the same spec (an amount is
// printed as the shortest fixed-point text of its double).
std::string FormatSoftExpiration(const SoftExpirationSpec& spec);
std::string FormatMinSavings(const MinSavingsSpec& spec);

// Every problem of `node_pool`'s control annotations, in key order. Empty
// when they are valid or absent. An empty value is an error, not "off".
std::vector<ControlError> NodePoolControlErrors(const v1::NodePool& node_pool);

// The controls of `node_pool`. Errors: InvalidArgument listing every
// ControlError::ToString(), one a line.
absl::StatusOr<NodePoolControls> ParseNodePoolControls(
    const v1::NodePool& node_pool);

// --- Evaluation helpers.

// Whether a consolidation move saves enough: savings = candidates_price -
// replacements_price, required = per_hour, or percent% of candidates_price.
struct SavingsCheck {
  bool ok = true;
  double savings = 0;
  double required = 0;
  // E.g. `saves 0.0120/h, below the NodePool's minimum 0.0500/h
  // (consolidation-min-savings "0.05")`.
  std::string why;
};
SavingsCheck CheckMinSavings(const MinSavingsSpec& spec,
                             double candidates_price,
                             double replacements_price);

// The expiration budget of soft expiration at `now`: the minimum of
// `spec.budget` over `total_nodes` and every active budget of
// `disruption` that lists no reasons; a budget that fails to evaluate
// fails closed (0). `allowed` is before subtracting disrupting nodes.
budget::Allowance ExpirationAllowance(const SoftExpirationSpec& spec,
                                      const budget::DisruptionSpec& disruption,
                                      int64_t total_nodes, absl::Time now);

// One NodePool's controls at one instant: what the controller enforces and
// `karpenter budgets` prints.
struct NodePoolControlState {
  std::string node_pool = "";
  NodePoolControls controls = {};
  // ParseNodePoolControls's message when an annotation is invalid: the
  // NodePool's budgeted methods then disrupt nothing.
  std::string error = "";
  // max-disrupting-zones: the zones of the NodePool's nodes already
  // disrupting, sorted.
  std::vector<std::string> disrupting_zones = {};
  // soft-expiration: the expiration budget (before subtracting disrupting
  // nodes) and what remains of it.
  budget::Allowance expiration = {};
  int64_t expiration_remaining = 0;
};

// The state of every NodePool of `snapshot` that has a control annotation
// (valid or not), in name order; NodePools without one are not listed.
//
// A node of a NodePool counts as disrupting, for its zone
// (topology.kubernetes.io/zone; "" when unlabelled), when it is initialised
// (karpenter.sh/initialized "true") and any of: its Ready condition is not
// "True", it or its NodeClaim is deleting, it carries the karpenter.sh/
// disrupted taint, or its providerID is in `in_flight` (the candidates of
// queued commands). These are the nodes Karpenter's budgets count as
// disrupting, plus the ones being disrupted right now.
//
// The expiration budget uses `mapping`'s node counts for the NodePool
// (total_nodes, disrupting_nodes; 0 when absent) and its spec parsed with
// `options`; a spec that does not parse fails closed (0).
std::vector<NodePoolControlState> EvaluateControls(
    const snapshot::Snapshot& snapshot, const budget::BudgetMapping& mapping,
    const budget::BudgetOptions& options,
    const std::set<std::string, std::less<>>& in_flight, absl::Time now);

}  // namespace karpenter::disruption

#endif  // KARPENTER_DISRUPTION_CONTROLS_H_
