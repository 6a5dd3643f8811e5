// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The non-consolidation disruption methods: NodePool deletion, expiration,
// emptiness, static drift and drift, each turning a CandidatePool
// (candidates.h) into commands, with budget gating per reason and a
// NodeVerdict for every candidate it does not command.
//
// Ports karpenter pkg/controllers/disruption/emptiness.go, drift.go,
// staticdrift.go and validation.go (emptiness part), and
// pkg/controllers/nodeclaim/expiration/controller.go
// (docs/semantics.md §1.4, §2.5, §2.6, §2.8, §2.14). NodePool deletion
// is Karpenter's owner-reference garbage collection (a NodePool's NodeClaims
// are deleted with it); the SDK makes it an explicit, budget-free method.
//
// Ordering and determinism: candidates arrive in node-name order; methods
// sort with SortForConsolidation / SortForDrift (types.h), whose ties are
// total; verdicts are sorted by node name. Budgets are consumed from the
// caller's BudgetLedger (build it with BudgetLedger::FromMapping for the
// method's reason, types.h BudgetReasonOf), so a pass can share one ledger
// per reason across methods, as Karpenter's mapping is per reason.
//
// Deliberate differences:
//   * MethodOptions::one_drift_command_per_pass (default false): Karpenter
//     starts one drift command per pass and requeues at once
//     (kubernetes-sigs/karpenter#3197); the SDK by default returns every
//     drift command the budget allows in one pass. Each candidate is still
//     simulated alone against the cluster as it is, as Karpenter does for
//     its one command; the simulation does not see the other commands of
//     the pass, so a pod may be planned onto a node another command of the
//     same pass removes. Hosts that need each simulation to see the earlier
//     commands set the option (Karpenter's pacing).
//   * StaticDrift orders candidates within a NodePool by SortForDrift and
//     NodePools by name (Karpenter: cluster-state order and Go map order).
//   * Expiration leaves NodeClaims that are in flight to their command
//     (Karpenter's separate controller would delete them anyway).
//
// Thread-safety: the functions are reentrant; the ledger is mutated and must
// not be shared between concurrent calls.
#ifndef KARPENTER_DISRUPTION_METHODS_H_
#define KARPENTER_DISRUPTION_METHODS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "karpenter/disruption/candidates.h"
#include "karpenter/disruption/types.h"

namespace karpenter::disruption {

struct MethodOptions {
  // Emptiness commands are re-validated this long after they are computed
  // (Karpenter's commandValidationDelay).
  absl::Duration validation_delay = absl::Seconds(15);
  // See the file comment.
  bool one_drift_command_per_pass = false;
  // The snapshot holds every NodePool of the cluster, so a NodeClaim whose
  // NodePool is absent belongs to a deleted NodePool and is deleted
  // (NodePoolDeleted): Karpenter's view, the default. Hosts whose snapshot
  // may be partial (a dump without its NodePools) set it to false: such
  // NodeClaims then get no command, only a kNodePoolNotFound verdict saying
  // that the NodePool is not in the snapshot.
  bool node_pools_complete = true;
  // With `node_pools_complete` false: appended to that verdict's message
  // after "; " when not empty (e.g. how to declare the snapshot complete).
  std::string missing_node_pool_hint = "";
};

struct MethodResult {
  std::vector<Command> commands;
  // Every candidate of the method that was not commanded, with its code,
  // including the nodes the method's class excludes for their pods
  // (CandidatePool::Selection::excluded); sorted by node name.
  std::vector<NodeVerdict> verdicts;
};

// NodeClaims whose karpenter.sh/nodepool label (the Node's once it has one)
// names no NodePool of the snapshot: one delete command per NodeClaim, in
// name order, budget-free and forceful, with or without a Node. Verdicts
// (kDeleting, kInFlight) for such NodeClaims already deleting or in flight;
// NodeClaims whose NodePool exists are not this method's candidates.
// With options.node_pools_complete false: no commands; a kNodePoolNotFound
// verdict per such NodeClaim instead (see MethodOptions).
MethodResult ComputeNodePoolDeleted(const CandidatePool& pool,
                                    const MethodOptions& options = {});

// §2.8: every NodeClaim with `now >= creationTimestamp + spec.expireAfter`
// (pool.now()) gets its own delete command, in name order, budget-free and
// forceful: pods and do-not-disrupt do not stop it (the drain still honours
// them). Verdicts for every other NodeClaim: kNotExpired (expireAfter
// Never, unset, not reached, or unparsable, which the message quotes),
// kDeleting or kInFlight.
MethodResult ComputeExpiration(const CandidatePool& pool);

// §2.5: candidates not in a static NodePool (kStaticNodePool), with
// consolidation enabled (kConsolidationDisabled), empty (kNotEmpty) and
// consolidatable (kNotConsolidatable), in SortForConsolidation order, taken
// while their NodePool's budget in `ledger` lasts (others get
// kBudgetExhausted). At most ONE delete command, with every taken
// candidate, to be validated at `now + options.validation_delay`.
MethodResult ComputeEmptiness(const CandidatePool& pool, BudgetLedger& ledger,
                              absl::Time now, const MethodOptions& options);

// Static NodePools (spec.replicas): drifted candidates (others:
// kNotDrifted), per NodePool in name order, SortForDrift within it. A
// NodePool at budget 0 gets kBudgetExhausted for all its candidates; one
// that is scaling down (more NodeClaims than replicas) or at its
// `spec.limits.nodes` gets kNotSelected. Otherwise up to
// min(budget, candidates, room under the node limit) candidates each get a
// replace command whose replacement is a NodeClaim from the NodePool's
// template (instance types from the pool's catalogue, cheapest first). The
// simulator is not consulted: Karpenter does not simulate static drift; it
// is a parameter so every budgeted method has the same shape.
MethodResult ComputeStaticDrift(const CandidatePool& pool, BudgetLedger& ledger,
                                const SchedulingSimulator& simulator,
                                const MethodOptions& options);

// §2.6: drifted candidates (kNotDrifted) outside static NodePools
// (kStaticNodePool), in SortForDrift order. A candidate whose NodePool is at
// budget 0 gets kBudgetExhausted; otherwise it is simulated alone:
// `unsupported` gives kUnsupportedConstraint, unschedulable pods
// kPodsDoNotFit (the message lists them); else one command for the
// candidate (replacements = the simulation's new_node_claims; none means
// delete), taking one from the ledger. No validation delay. With
// options.one_drift_command_per_pass, candidates after the first command
// get kNotSelected.
MethodResult ComputeDrift(const CandidatePool& pool, BudgetLedger& ledger,
                          const SchedulingSimulator& simulator,
                          const MethodOptions& options);

// §2.14 for emptiness: after the delay, keeps the candidates of `command`
// that are still emptiness candidates in `fresh` (same Node and NodeClaim,
// passing every rule and ShouldDisrupt again) and still fit the budget of
// `fresh_ledger` (consumed), in the command's order. Returns the command
// with that subset and no validate_at.
// Errors: InvalidArgument if `command.method` is not kEmptiness;
// FailedPrecondition naming the candidates and why each failed if none
// survives.
absl::StatusOr<Command> ValidateEmptiness(const Command& command,
                                          const CandidatePool& fresh,
                                          BudgetLedger& fresh_ledger);

}  // namespace karpenter::disruption

#endif  // KARPENTER_DISRUPTION_METHODS_H_
