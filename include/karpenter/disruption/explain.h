// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// disruption::ExplainNode: everything that decides whether one node is
// disrupted, gathered from one disruption pass and the facts behind it, and
// the earliest instant at which a pass would act on it if nothing else in
// the cluster changed.
//
// Answers Karpenter's most asked question, "why is my node not being
// disrupted?" (kubernetes-sigs/karpenter#2017, #1599; aws#9207), offline.
// The facts are those Karpenter's own rules read (docs/semantics.md):
// the candidate rules of pkg/controllers/disruption/helpers.go and
// types.go `NewCandidate` (§2.2), consolidateAfter (§2.12), expireAfter
// (§2.8), drift (§3), the NodePool budgets (§1.4) and the PDBs and
// do-not-disrupt annotations that block eviction (§2.4).
//
// The projection runs the same controller at the instants where time
// alone can change the answer: the node's consolidateAfter and expireAfter
// instants (and its soft-expiration ceiling), its pods' do-not-disrupt
// expiries, the releases of the do-not-disrupt windows (SDK extension) of
// the node and its pods active at each instant tried, and the next changes
// of its NodePool's budgets, in order, until a pass commands the node or the
// horizon is reached. Each pass's commands are carried out before the next
// pass: their candidates' Nodes and NodeClaims are deleted (with their
// CSINodes and VolumeAttachments), their replacements launched as
// initialised NodeClaims and Ready Nodes of the cheapest listed instance
// type the catalogue knows (its capacity, the first available offering the
// requirements allow), and the deleted Nodes' pods moved: DaemonSet,
// mirror, terminal and terminating pods go with the Node, the others are bound
// to the command's first replacement, or left pending for the next pass's
// simulation when the command replaces nothing. A pass that commanded other
// nodes is followed by one poll interval (ControllerOptions::poll_interval)
// later, or when its commands are validated (validate_at) if that is later.
// Nothing else changes: no pod is created, no other Node or NodeClaim ages
// into a command of its own between the instants tried.
//
// Thread-safety: a pure function of its arguments.
#ifndef KARPENTER_DISRUPTION_EXPLAIN_H_
#define KARPENTER_DISRUPTION_EXPLAIN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "karpenter/budget/disruption_spec.h"
#include "karpenter/disruption/controller.h"
#include "karpenter/snapshot/snapshot.h"

namespace karpenter::disruption {

// A pod on the node whose do-not-disrupt annotation holds at the pass.
struct DoNotDisruptPod {
  std::string pod;  // "namespace/name"
  // The annotation and its value, e.g. `karpenter.sh/do-not-disrupt: "1h"`.
  std::string annotation;
  // When the protection lapses; nullopt when it never does ("true").
  std::optional<absl::Time> until;
};

// A PDB that selects pods of the node and allows no disruption now.
struct BlockingPdb {
  std::string pdb;  // "namespace/name"
  int64_t disruptions_allowed = 0;
  int64_t expected_pods = 0;
  int64_t current_healthy = 0;
  int64_t desired_healthy = 0;
  // "" when the PDB is valid, else its error.
  std::string error;
  // The node's pods it blocks, "namespace/name", in snapshot order.
  std::vector<std::string> pods;
};

// One budget reason of the node's NodePool.
struct ReasonBudgetExplanation {
  budget::DisruptionReason reason = budget::DisruptionReason::kEmpty;
  int64_t allowed = 0;  // Before subtracting disrupting nodes.
  int64_t remaining = 0;
  std::string why;  // The limiting budget.
  // When `allowed` next changes (InfiniteFuture: never) and to what.
  absl::Time next_change = absl::InfiniteFuture();
  int64_t next_allowed = 0;
};

struct NodeExplanation {
  absl::Time now = absl::UnixEpoch();
  std::string node = "";        // As asked.
  bool has_node = false;        // False for a NodeClaim without a Node.
  std::string node_claim = "";  // Empty when Karpenter does not manage it.
  std::string node_pool = "";
  // The pass's verdict for the node.
  NodeVerdict verdict;
  // The command of the pass that includes the node, if any.
  std::optional<Command> command;
  // Drift: the Drifted condition, or the drift this pass found.
  std::optional<absl::Time> drifted_since;
  std::string drift_reason = "";
  // Pods on the node and, of those, the ones that would be rescheduled;
  // empty = no reschedulable pod with positive cost (Karpenter's IsEmpty).
  int64_t pods = 0;
  int64_t reschedulable_pods = 0;
  bool empty = false;
  // "WhenEmpty", "WhenEmptyOrUnderutilized" or "Balanced"; consolidateAfter
  // Never.
  std::string consolidation_policy = "";
  bool consolidation_disabled = false;
  // When consolidateAfter elapses (nullopt: not initialised or disabled).
  std::optional<absl::Time> consolidatable_at;
  // NodeClaim creation + expireAfter; nullopt for Never.
  std::optional<absl::Time> expires_at;
  // SDK soft-expiration (controls.h): when an expired node goes whatever the
  // expiration budget (expires_at + ceiling); nullopt when the NodePool has
  // no soft-expiration, its ceiling is Never, or the node never expires.
  std::optional<absl::Time> expiration_ceiling;
  // The SDK controls of the node's NodePool at the pass, when it has any.
  std::optional<NodePoolControlState> controls;
  // The NodePool's budgets (empty when the node has no known NodePool).
  std::vector<ReasonBudgetExplanation> budgets;
  // Pods whose protection holds at `now`; a pod's active do-not-disrupt
  // window (SDK extension, issue 26) is listed with its annotations and
  // the instant it releases the node.
  std::vector<DoNotDisruptPod> do_not_disrupt;
  // SDK extension (issue 26): the Node's own do-not-disrupt window when it
  // is active at `now` (DoNotDisruptWindow::Describe, e.g. `schedule
  // "0 9 * * 1-5", duration 8h`; empty otherwise) and when it releases
  // the node (nullopt: no known end).
  std::string node_window = "";
  std::optional<absl::Time> node_window_until;
  std::vector<BlockingPdb> blocking_pdbs;
  // The earliest instant in [now, now + horizon] at which a pass commands
  // the node, the earlier passes' commands carried out (see the top), and
  // the method; nullopt if none.
  std::optional<absl::Time> disrupted_at;
  std::optional<Method> disrupted_by;
  // The instants that were tried, in order (for the curious).
  std::vector<absl::Time> tried;
};

struct ExplainOptions {
  // How far ahead to look for the instant a pass acts. Must be >= 0 and
  // finite.
  absl::Duration horizon = absl::Hours(24 * 30);
  // The most passes to run while looking. Must be >= 1.
  int max_passes = 200;
};

// Explains `node` (a Node name, or the name of a NodeClaim without a Node)
// at `now`, running `controller` over `snapshot` with `inputs`.
// Errors: NotFound `node "x" not found` when neither a Node nor a NodeClaim
// has that name; InvalidArgument for bad options (naming the option and
// value); the errors of Controller::Decide; Internal when the cluster after
// a pass's commands does not build (naming the instant and the reason).
absl::StatusOr<NodeExplanation> ExplainNode(const Controller& controller,
                                            const snapshot::Snapshot& snapshot,
                                            const PassInputs& inputs,
                                            absl::string_view node,
                                            absl::Time now,
                                            const ExplainOptions& options = {});

// The cluster after the commands of `plan` (a pass over `snapshot`) ran at
// `at`, as ExplainNode's projection sees it (see the top of this file): the
// candidates' Nodes and NodeClaims deleted with their CSINodes and
// VolumeAttachments; each replacement launched as a NodeClaim created at
// `at` (Launched, Registered, Initialized) and a Ready Node of the same
// name, of the first of its instance types that `inputs.catalog` lists for
// its NodePool (that type's capacity as capacity and allocatable, its
// labels, and the zone and capacity type of its first available offering
// the NodeClaim's requirements allow); the deleted Nodes' DaemonSet, mirror,
// terminal and terminating pods dropped, their other pods bound to the
// command's first replacement or, without one, left unbound (pending). A
// replacement whose name is taken gets "-x" appended. Everything else is copied
// unchanged. Errors: Internal, naming `at` and Snapshot::Build's message, if
// the result does not build.
absl::StatusOr<snapshot::Snapshot> ApplyCommands(
    const snapshot::Snapshot& snapshot, const Plan& plan,
    const PassInputs& inputs, absl::Time at);

}  // namespace karpenter::disruption

#endif  // KARPENTER_DISRUPTION_EXPLAIN_H_
