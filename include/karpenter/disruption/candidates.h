// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Disruption candidates: which nodes a disruption method may consider, and
// why every other node is excluded.
//
// Ports karpenter pkg/controllers/disruption/types.go `NewCandidate`,
// helpers.go `GetCandidates`, pkg/controllers/state/statenode.go
// `ValidateNodeDisruptable` / `ValidatePodsDisruptable`, the pod predicates
// of pkg/utils/pod/scheduling.go and pkg/utils/pdb/pdb.go `CanEvictPods`
// (docs/semantics.md §2.2-§2.4, §2.11, §2.12). The rules, in order; the
// first that fails excludes the node with the reasons:: code shown:
//   1. its providerID is in a queued command                 kInFlight
//   2. no NodeClaim                                          kNotManaged
//   3. a NodeClaim without a Node                            kNoNode
//   4. label karpenter.sh/initialized is not "true"          kNotInitialized
//   5. NodeClaim deletionTimestamp or InstanceTerminating=True, or Node
//      deletionTimestamp                                     kDeleting
//   6. nominated for a pending pod                           kNominated
//   7. Node annotation karpenter.sh/do-not-disrupt == "true" kNodeDoNotDisrupt
//      or (SDK extension, issue 26) the Node's do-not-disrupt window is
//      active (drain/do_not_disrupt_window.h)              kDoNotDisruptWindow
//   8. no karpenter.sh/nodepool label                        kNoNodePoolLabel
//   9. the NodePool is not in the snapshot                   kNodePoolNotFound
//      or the catalogue has no instance types for it: Karpenter reports
//      "NodePool not found" too, the SDK names what is missing: the node has
//      no node.kubernetes.io/instance-type label           kMissingLabel
//      or its instance type is not in the catalogue        kInstanceTypeUnknown
//  10. per method class: a pod with an active do-not-disrupt annotation
//      (kPodDoNotDisrupt; kDoNotDisruptWindow when a pod's active window
//      decided, see drain::EvaluateDoNotDisrupt), else a pod whose eviction a
//      PDB refuses (kPdbBlocked, or kMultiplePdbs for a pod under several
//      PDBs). Graceful methods are stopped by these; eventual ones ignore them
//      when the NodeClaim has spec.terminationGracePeriod; forceful ones never.
//
// Observed state instead of remembered state (docs/design.md §1): after a
// restart the orchestration queue is empty, but a command that was started left
// the `karpenter.sh/disrupted:NoSchedule` taint on its Node and
// `DisruptionReason=True` on its NodeClaim. A node carrying both counts as in
// flight (rule 1), so a pass never re-disrupts a node mid-command. Karpenter
// instead clears both marks at the start of its next pass
// (docs/semantics.md §2.1 step 3).
//
// Performance: with SnapshotFacts (snapshot_facts.h), `Build` walks the
// nodes only, O(nodes + pods with a do-not-disrupt annotation); without, it
// first computes those facts, O(nodes + pods + PDB matches). `For` only
// copies; nothing is recomputed per method.
//
// Thread-safety: a built CandidatePool is immutable; its const methods may
// be called concurrently. It keeps pointers to the context's snapshot,
// facts and catalogue, which must outlive it.
#ifndef KARPENTER_DISRUPTION_CANDIDATES_H_
#define KARPENTER_DISRUPTION_CANDIDATES_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "karpenter/budget/pdb.h"
#include "karpenter/disruption/balanced.h"
#include "karpenter/disruption/snapshot_facts.h"
#include "karpenter/disruption/types.h"
#include "karpenter/snapshot/snapshot.h"

namespace karpenter::disruption {

// A drift finding from outside the snapshot (e.g. drift/static_drift.h run
// this pass), used instead of the NodeClaim's Drifted condition.
struct DriftMark {
  std::string reason;
  absl::Time since;
};

// The inputs of one pass.
struct CandidateContext {
  // Required.
  const snapshot::Snapshot* snapshot = nullptr;
  // Built over `snapshot`: the pool reads its PDB index and per-node
  // aggregates instead of walking the pods (a pass then costs O(nodes)).
  // Null: the pool computes them.
  const SnapshotFacts* facts = nullptr;
  // Built over `snapshot`; used when `facts` is null; null: the pool builds
  // and owns one.
  const budget::PdbIndex* pdbs = nullptr;
  // Price lookup and rule 9. Null: rule 9 checks only that the NodePool
  // exists, and every price is 0.
  const InstanceTypeCatalog* catalog = nullptr;
  absl::Time now = absl::UnixEpoch();
  // Provider IDs of the nodes in queued commands (rule 1).
  std::set<std::string, std::less<>> in_flight;
  // Node names the provisioner nominated for pending pods (rule 6).
  std::set<std::string, std::less<>> nominated;
  // Per NodeClaimIndex. Empty: each NodeClaim's Drifted condition decides
  // (status "True": drifted since its lastTransitionTime, reason = the
  // condition's reason).
  std::vector<std::optional<DriftMark>> drift_marks;
};

// A managed NodeClaim, with or without a Node, as the forceful methods see
// it (they act on NodeClaims, not on candidates).
struct ManagedClaim {
  // Facts as far as known: names, indexes, `has_node`, `created`,
  // `expires_at`, pods and costs when there is a Node. `node_pool_name` is
  // the karpenter.sh/nodepool label of the NodeClaim (else of its Node);
  // `node_pool` is meaningful only when `node_pool_exists`.
  Candidate facts;
  bool node_pool_exists = false;
  // NodeClaim or Node deleting, or InstanceTerminating=True.
  bool deleting = false;
  // Rule 1 (including the taint + DisruptionReason observation).
  bool in_flight = false;
  // OK, or the error of an unparsable spec.expireAfter.
  absl::Status expire_after_error;
  // When a do-not-disrupt window (SDK extension, issue 26) holds the node
  // (kDoNotDisruptWindow: the Node's window, rule 7, or a pod's, rule 10):
  // the instant it releases; unset otherwise or when no end is known.
  std::optional<absl::Time> window_until;
};

class CandidatePool {
 public:
  // Builds the candidates of one pass over `ctx.snapshot` at `ctx.now`.
  // Errors: InvalidArgument when `ctx.snapshot` is null, when `ctx.facts`
  // was built over another snapshot, or when
  // `ctx.drift_marks` is non-empty but its size differs from the
  // snapshot's NodeClaim count (quoting both sizes).
  static absl::StatusOr<CandidatePool> Build(const CandidateContext& ctx);

  CandidatePool();
  CandidatePool(CandidatePool&&) noexcept;
  CandidatePool& operator=(CandidatePool&&) noexcept;
  ~CandidatePool();

  // The candidates usable by `method`'s class, in node-name order, and a
  // NodeVerdict (method set, code kPodDoNotDisrupt, kPdbBlocked or
  // kMultiplePdbs) for each node its pods exclude for that class.
  struct Selection {
    std::vector<Candidate> candidates;
    std::vector<NodeVerdict> excluded;
  };
  Selection For(Method method) const;
  // As For, without copying the candidates: pointers into the pool, valid
  // while it lives.
  struct View {
    std::vector<const Candidate*> candidates;
    std::vector<NodeVerdict> excluded;
  };
  View ViewFor(Method method) const;

  // Rules 1-9 (method-independent): one NodeVerdict per excluded Node or
  // Node-less NodeClaim, sorted by `node` (the Node's name, or the
  // NodeClaim's when it has no Node).
  absl::Span<const NodeVerdict> exclusions() const { return exclusions_; }

  // Every NodeClaim of the snapshot, sorted by NodeClaim name.
  absl::Span<const ManagedClaim> managed_claims() const { return claims_; }

  // The spec error of NodePool `pool` (ParseDisruptionSpec), or "" when its
  // spec is valid. A NodePool with an invalid spec has consolidation
  // disabled (its budgets fail closed too, budget/allowed.h).
  absl::string_view NodePoolSpecError(snapshot::NodePoolIndex pool) const;

  // The denominators of Balanced scores (balanced.h) for the NodePools of
  // `all_candidates`, the candidates of one method run before its own
  // filter (Karpenter's `computeNodePoolTotals`): total cost is the sum of
  // the offering prices (from the catalogue) of the NodeClaims labelled
  // with the NodePool that carry all four of karpenter.sh/nodepool,
  // node.kubernetes.io/instance-type, topology.kubernetes.io/zone and
  // karpenter.sh/capacity-type (Karpenter's ClusterCost), else, when that
  // is 0, the candidates' prices; total disruption sums over the Nodes
  // labelled with it (and NodeClaims without a Node, at 1 each) the
  // candidate's `reschedule_disruption_cost` or, for the others,
  // Karpenter's StateNode.DisruptionCost. Empty when no candidate's
  // NodePool is Balanced: nothing else is scored. O(nodes + NodeClaims).
  NodePoolTotalsMap BalancedTotals(
      absl::Span<const Candidate> all_candidates) const;

  // The context the pool was built from.
  const snapshot::Snapshot& snapshot() const { return *snapshot_; }
  const InstanceTypeCatalog* catalog() const { return catalog_; }
  absl::Time now() const { return now_; }

 private:
  struct Entry {
    uint32_t claim_pos = 0;  // Into claims_.
    // Rule 10, evaluated once; applies per method class.
    std::optional<NodeVerdict> pod_block;
  };

  const snapshot::Snapshot* snapshot_ = nullptr;
  const InstanceTypeCatalog* catalog_ = nullptr;
  absl::Time now_ = absl::UnixEpoch();
  std::unique_ptr<budget::PdbIndex> owned_pdbs_;
  // Computed when the context gave no SnapshotFacts.
  std::unique_ptr<internal::CandidateFacts> owned_facts_;
  // owned_facts_, or the context's SnapshotFacts' (which must outlive the
  // pool).
  const internal::CandidateFacts* facts_ = nullptr;
  // Nodes that passed rules 1-9, in node-name order.
  std::vector<Entry> entries_;
  std::vector<NodeVerdict> exclusions_;
  std::vector<ManagedClaim> claims_;
  std::vector<std::string> spec_errors_;  // By NodePoolIndex.

  friend class CandidatePoolBuilder;
};

}  // namespace karpenter::disruption

#endif  // KARPENTER_DISRUPTION_CANDIDATES_H_
