// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The vocabulary of the disruption area: methods, candidates, commands,
// replacements, per-node verdicts with stable reason codes, and the
// scheduling-simulation interface the methods consult.
//
// Ports the types of karpenter pkg/controllers/disruption/types.go
// (`Candidate`, `Command`, `Method`, `Decision`) and the reason strings of
// `NewCandidate`/`ValidateNodeDisruptable` (docs/semantics.md §2.1,
// §2.2, §2.11). Beyond Karpenter, every node the controller does not act on
// carries a `NodeVerdict` whose `code` is one of the `reasons::` constants
// below (stable, CamelCase, for tools and tests) and whose `message` is the
// human explanation (Karpenter's event text where one exists).
//
// Thread-safety: plain values; SchedulingSimulator implementations document
// their own (the SDK's are immutable after construction and safe to share).
#ifndef KARPENTER_DISRUPTION_TYPES_H_
#define KARPENTER_DISRUPTION_TYPES_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "karpenter/budget/allowed.h"
#include "karpenter/budget/disruption_spec.h"
#include "karpenter/cloud_provider.h"
#include "karpenter/disruption/balanced.h"
#include "karpenter/disruption/controls.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/karpenter.pb.h"

namespace karpenter::disruption {

// The disruption methods, in the order the controller tries them. The first
// two are Karpenter's forceful, budget-free paths (the NodePool garbage
// collector through owner references, and the expiration controller); the
// rest are the budgeted methods of `controller.go` (HEAD order).
enum class Method {
  kNodePoolDeleted,
  kExpiration,
  kEmptiness,
  kStaticDrift,
  kDrift,
  kMultiNodeConsolidation,
  kSingleNodeConsolidation,
};
inline constexpr Method kAllMethods[] = {Method::kNodePoolDeleted,
                                         Method::kExpiration,
                                         Method::kEmptiness,
                                         Method::kStaticDrift,
                                         Method::kDrift,
                                         Method::kMultiNodeConsolidation,
                                         Method::kSingleNodeConsolidation};

// "NodePoolDeleted", "Expiration", "Emptiness", "StaticDrift", "Drift",
// "MultiNodeConsolidation", "SingleNodeConsolidation".
absl::string_view MethodName(Method method);

// The `consolidation_type` label of Karpenter's disruption metrics: "empty"
// (Emptiness), "single", "multi", or "" for the other methods.
absl::string_view ConsolidationTypeName(Method method);

// How a method treats pods that block eviction (§2.1): graceful methods are
// stopped by them; eventual ones (drift) ignore them when the NodeClaim has
// `spec.terminationGracePeriod`; forceful ones (expiration, NodePool
// deletion) ignore them at initiation and leave them to the drain.
enum class MethodClass { kGraceful, kEventual, kForceful };
MethodClass ClassOf(Method method);

// The budget reason a method consumes (Empty, Drifted, Underutilized);
// nullopt for the forceful methods, which are budget-free.
std::optional<budget::DisruptionReason> BudgetReasonOf(Method method);

// Stable reason codes of NodeVerdict::code. Candidate exclusions first, in
// NewCandidate's order (§2.2), then method eligibility, budgets, simulation
// and orchestration.
namespace reasons {
// Candidate exclusions (apply to every method).
inline constexpr absl::string_view kInFlight = "InFlight";
inline constexpr absl::string_view kNotManaged = "NotManaged";
inline constexpr absl::string_view kNoNode = "NoNode";
inline constexpr absl::string_view kNotInitialized = "NotInitialized";
inline constexpr absl::string_view kDeleting = "Deleting";
inline constexpr absl::string_view kNominated = "Nominated";
inline constexpr absl::string_view kNodeDoNotDisrupt = "NodeDoNotDisrupt";
inline constexpr absl::string_view kNoNodePoolLabel = "NoNodePoolLabel";
inline constexpr absl::string_view kNodePoolNotFound = "NodePoolNotFound";
inline constexpr absl::string_view kPodDoNotDisrupt = "PodDoNotDisrupt";
// SDK extension (issue 26, kubernetes-sigs/karpenter#1719): an active
// do-not-disrupt window (disruption.karpenter-sdk.dev/do-not-disrupt-
// schedule and -duration) holds the node back: the Node's own (as
// kNodeDoNotDisrupt, every method) or one of its pods' (as kPodDoNotDisrupt,
// per method class). The message names the node or pod, the schedule, the
// duration and the RFC 3339 instant the window releases. Ranked as
// kNodeDoNotDisrupt and kPodDoNotDisrupt are.
inline constexpr absl::string_view kDoNotDisruptWindow = "DoNotDisruptWindow";
inline constexpr absl::string_view kPdbBlocked = "PdbBlocked";
inline constexpr absl::string_view kMultiplePdbs = "MultiplePdbs";
// Method eligibility.
inline constexpr absl::string_view kNotDrifted = "NotDrifted";
inline constexpr absl::string_view kNotExpired = "NotExpired";
inline constexpr absl::string_view kNotEmpty = "NotEmpty";
inline constexpr absl::string_view kConsolidationDisabled =
    "ConsolidationDisabled";  // consolidateAfter: Never
inline constexpr absl::string_view kNotConsolidatable =
    "NotConsolidatable";  // consolidateAfter has not elapsed
inline constexpr absl::string_view kWhenEmptyPolicy = "WhenEmptyPolicy";
inline constexpr absl::string_view kStaticNodePool = "StaticNodePool";
inline constexpr absl::string_view kMissingLabel =
    "MissingLabel";  // instance type, capacity type or zone
inline constexpr absl::string_view kInstanceTypeUnknown = "InstanceTypeUnknown";
inline constexpr absl::string_view kUnsupportedConstraint =
    "UnsupportedConstraint";  // e.g. pod anti-affinity, topology spread
// Budgets and fairness.
inline constexpr absl::string_view kBudgetExhausted = "BudgetExhausted";
inline constexpr absl::string_view kNodePoolBackoff = "NodePoolBackoff";
// Simulation and replacement.
inline constexpr absl::string_view kPodsDoNotFit = "PodsDoNotFit";
inline constexpr absl::string_view kNoCheaperReplacement =
    "NoCheaperReplacement";
inline constexpr absl::string_view kMultipleReplacements =
    "MultipleReplacements";
// consolidationPolicy Balanced: the move's savings are too small for its
// disruption (balanced.h).
inline constexpr absl::string_view kBalancedScoreTooLow = "BalancedScoreTooLow";
// The SDK's own controls (controls.h), held back only where a NodePool opts
// in: the NodePool already disrupts its maximum number of zones
// (max-disrupting-zones); an expired node waits for the expiration budget
// (soft-expiration); a consolidation move saves less than the NodePool's
// minimum (consolidation-min-savings); a control annotation of the
// NodePool is invalid, so its budgeted methods fail closed.
inline constexpr absl::string_view kZoneLimit = "ZoneLimit";
inline constexpr absl::string_view kExpirationBudgetExhausted =
    "ExpirationBudgetExhausted";
inline constexpr absl::string_view kSavingsBelowThreshold =
    "SavingsBelowThreshold";
inline constexpr absl::string_view kInvalidControl = "InvalidControl";
// Nothing to do, or another node was chosen this pass.
inline constexpr absl::string_view kNoDisruptionNeeded = "NoDisruptionNeeded";
inline constexpr absl::string_view kNotSelected = "NotSelected";
// Acted on this pass.
inline constexpr absl::string_view kCommanded = "Commanded";
}  // namespace reasons

// A node that passed the generic candidate rules (§2.2), with the facts the
// methods sort and filter on. Values, so commands can outlive the pass.
struct Candidate {
  snapshot::NodeIndex node = 0;
  snapshot::NodeClaimIndex node_claim = 0;
  snapshot::NodePoolIndex node_pool = 0;
  std::string node_name = "";
  std::string node_claim_name = "";
  std::string node_pool_name = "";
  std::string provider_id = "";
  // False only for a NodeClaim without a Node (forceful commands of
  // NodePoolDeleted and Expiration); `node` and `node_name` are then
  // meaningless (0 and "").
  bool has_node = true;
  // Node labels node.kubernetes.io/instance-type, topology.kubernetes.io/zone
  // and karpenter.sh/capacity-type; empty when missing.
  std::string instance_type = "";
  std::string zone = "";
  std::string capacity_type = "";
  // The offering price for (instance type, zone, capacity type); 0 when
  // unknown, as Karpenter.
  double price = 0;
  // Every pod bound to the node, and those IsReschedulable (§2.3), in
  // snapshot order.
  std::vector<snapshot::PodIndex> pods = {};
  std::vector<snapshot::PodIndex> reschedulable_pods = {};
  // §2.11: Σ EvictionCost(all pods) × LifetimeRemaining, LifetimeRemaining,
  // and 1 + Σ max(0, EvictionCost(reschedulable pods)).
  double disruption_cost = 0;
  double lifetime_remaining = 1;
  double reschedule_disruption_cost = 1;
  // NodeClaim creationTimestamp.
  absl::Time created = absl::UnixEpoch();
  // NodeClaim spec.terminationGracePeriod is set (eventual methods then
  // ignore blocking pods).
  bool has_termination_grace_period = false;
  // The NodePool has spec.replicas (a static NodePool).
  bool static_node_pool = false;
  // Drift (§2.6, §3.6): set when the NodeClaim is drifted; `drifted_since`
  // is the Drifted condition's lastTransitionTime (or the pass time when the
  // drift was found in this pass).
  std::optional<absl::Time> drifted_since = std::nullopt;
  std::string drift_reason = "";
  // NodePool consolidation settings (§2.5, §2.7, §2.12).
  budget::ConsolidationPolicy consolidation_policy =
      budget::ConsolidationPolicy::kWhenEmptyOrUnderutilized;
  // consolidateAfter: Never.
  bool consolidation_disabled = false;
  // §2.12 Consolidatable at the pass time: initialised, and consolidateAfter
  // has elapsed since lastPodEventTime (else the Initialized transition).
  bool consolidatable = false;
  // When consolidateAfter elapses (lastPodEventTime, else the Initialized
  // transition, plus consolidateAfter); nullopt when not initialised or
  // consolidation is disabled. `consolidatable` is `consolidatable_at <=
  // pass time`.
  std::optional<absl::Time> consolidatable_at = std::nullopt;
  // NodeClaim creationTimestamp + spec.expireAfter; nullopt for Never.
  std::optional<absl::Time> expires_at = std::nullopt;
  // The NodePool's SDK controls (controls.h); Karpenter's defaults when it
  // has none or they are invalid.
  NodePoolControls controls = {};

  // Karpenter HEAD's IsEmpty: no reschedulable pod has positive cost.
  bool IsEmpty() const { return reschedule_disruption_cost <= 1.0; }
  // Karpenter HEAD's consolidation sort key (descending).
  double SavingsRatio() const { return price / reschedule_disruption_cost; }
};

// Karpenter's consolidation order (HEAD `sortCandidates`): descending
// SavingsRatio. Karpenter's sort.Slice leaves ties unspecified; ours are
// broken by, in turn: lower disruption_cost, older NodeClaim (created), then
// node name ascending, so the order is total and deterministic.
void SortForConsolidation(std::vector<Candidate>& candidates);

// Karpenter's drift order (§2.6): oldest `drifted_since` first (a candidate
// without one sorts last), then empty candidates (no reschedulable pods)
// before non-empty ones, keeping that order within each group. Ties in
// drifted_since are broken by node name.
void SortForDrift(std::vector<Candidate>& candidates);

// Remaining disruptions per NodePool for one budget reason, consumed as a
// method chooses candidates (§1.4 "Budget consumption within a pass"). A
// NodePool that was never set reads 0: Karpenter blocks nodes of NodePools
// missing from its mapping.
class BudgetLedger {
 public:
  BudgetLedger() = default;
  // `mapping.node_pools[i].remaining[reason]` for every NodePool.
  static BudgetLedger FromMapping(const budget::BudgetMapping& mapping,
                                  budget::DisruptionReason reason);
  // Sets the remaining count of `node_pool`; a negative count reads as 0.
  // The NodePool is then limited (Describe prints the count), even if
  // FromMapping found no budget limiting it.
  void Set(absl::string_view node_pool, int64_t remaining);
  int64_t Remaining(absl::string_view node_pool) const;
  // Takes one disruption from `node_pool`; false (nothing taken) at 0.
  bool TryTake(absl::string_view node_pool);
  // SDK control max-disrupting-zones (controls.h): candidates of
  // `node_pool` may come from at most `max_zones` zones, counting the zones
  // in `disrupting` (zones with a node already disrupting).
  void LimitZones(absl::string_view node_pool, int64_t max_zones,
                  std::set<std::string, std::less<>> disrupting);
  // Remaining(c.node_pool_name) > 0 and ZoneRefusal(c) is empty.
  bool Allows(const Candidate& c) const;
  // Takes one disruption from c's NodePool and counts c's zone as
  // disrupting; false (nothing taken) when !Allows(c).
  bool TryTake(const Candidate& c);
  // Why c's zone may not be disrupted now, or "" when it may: `NodePool "x"
  // disrupts nodes of at most 1 zone(s) at once (max-disrupting-zones "1"):
  // zone "a" is disrupting, node is in zone "b"`.
  std::string ZoneRefusal(const Candidate& c) const;
  // `2 left in NodePool "x"` for explanations: the remaining count, or
  // `unlimited in NodePool "x"` when no budget limits the reason (allowed
  // is budget::kUnlimited, so the count is MaxInt32 less the disrupting
  // nodes and means nothing to a reader).
  std::string Describe(absl::string_view node_pool) const;

 private:
  std::map<std::string, int64_t, std::less<>> remaining_;
  // NodePools whose allowance for the reason is budget::kUnlimited.
  std::set<std::string, std::less<>> unlimited_;
  struct ZoneLimit {
    int64_t max_zones = 0;
    std::set<std::string, std::less<>> disrupting;
  };
  std::map<std::string, ZoneLimit, std::less<>> zones_;
};

// One NodeClaim to launch before the candidates are deleted.
struct Replacement {
  std::string node_pool = "";
  // Instance types it may launch as, cheapest first (ties by name); never
  // empty in a command.
  std::vector<std::string> instance_types = {};
  // Price of instance_types.front() at the cheapest compatible offering.
  double price = 0;
  // The NodeClaim to create: name, labels (karpenter.sh/nodepool),
  // NodePool template (labels, annotations incl. the hash, taints, startup
  // taints, nodeClassRef, expireAfter, terminationGracePeriod) and
  // requirements narrowed to `instance_types` (and to the capacity type
  // chosen). The name is deterministic for a given plan.
  v1::NodeClaim node_claim = {};
};

enum class Decision { kNoOp, kDelete, kReplace };
absl::string_view DecisionName(Decision decision);
// Karpenter's `Decision` string (types.go): "no-op", "delete", "replace",
// as its command texts and the `decision` label of its metrics spell it.
absl::string_view DecisionLabel(Decision decision);

struct Command {
  Method method = Method::kEmptiness;
  // Sorted in the method's order (the order they were chosen).
  std::vector<Candidate> candidates = {};
  std::vector<Replacement> replacements = {};
  // Emptiness and consolidation are re-validated 15 s after they are
  // computed (§2.14); nullopt for the others.
  std::optional<absl::Time> validate_at = std::nullopt;
  // Why this command, e.g. `empty; budget Empty 2 of 3 left` or
  // `replace 3 nodes (price 1.20) with c5.large (0.34)`.
  std::string explanation = "";
  // Consolidation of Balanced NodePools: the score of each (balanced.h),
  // in NodePool name order; empty for other policies and methods.
  std::vector<PoolScore> balanced_scores = {};

  Decision decision() const {
    if (candidates.empty()) return Decision::kNoOp;
    return replacements.empty() ? Decision::kDelete : Decision::kReplace;
  }
};

// Why a node was or was not acted on.
struct NodeVerdict {
  std::string node = "";        // Node name, or the NodeClaim's if no Node.
  std::string node_claim = "";  // Empty if unmanaged.
  std::string node_pool = "";
  // The method the verdict is about; nullopt for generic exclusions.
  std::optional<Method> method = std::nullopt;
  // One of the reasons:: constants.
  std::string code = "";
  // Human explanation, naming the pod/PDB/budget/label concerned.
  std::string message = "";
};

// The result of simulating that `candidates` go away (§2.6, §2.7
// `SimulateScheduling`): their currently-reschedulable pods (plus pods of
// nodes already deleting) are placed on the remaining nodes, else on new
// NodeClaims from the candidates' NodePools.
struct SimulationResult {
  // True if every pod found a place (existing node or new NodeClaim).
  bool all_pods_scheduled = false;
  // "namespace/name: reason" per pod that found none, in snapshot order.
  std::vector<std::string> unschedulable = {};
  // The new NodeClaims needed, at most one per NodePool per pass.
  std::vector<Replacement> new_node_claims = {};
  // Set if a pod has a constraint the simulator cannot evaluate (e.g.
  // required pod anti-affinity, topology spread): the candidates are then
  // ineligible (reasons::kUnsupportedConstraint) rather than answered
  // wrongly. Names the pod and the constraint.
  std::optional<std::string> unsupported = std::nullopt;
};

// Scheduling simulation, as the methods consume it.
class SchedulingSimulator {
 public:
  virtual ~SchedulingSimulator() = default;
  // Simulates removing `candidates` from the cluster the simulator was
  // built over. Pure: the same input gives the same result.
  virtual SimulationResult Simulate(
      absl::Span<const Candidate> candidates) const = 0;
  // The same for consolidation, where Karpenter (v1.14) also keeps a
  // candidate's pods off nodes still inside their own consolidateAfter.
  // Defaults to Simulate.
  virtual SimulationResult SimulateConsolidation(
      absl::Span<const Candidate> candidates) const {
    return Simulate(candidates);
  }
};

}  // namespace karpenter::disruption

#endif  // KARPENTER_DISRUPTION_TYPES_H_
