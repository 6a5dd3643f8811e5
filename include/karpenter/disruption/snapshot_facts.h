// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// SnapshotFacts: everything a disruption pass derives from a Snapshot alone,
// computed once per Snapshot so that each pass only walks nodes.
//
// A pass (disruption::Controller::Decide) depends on the Snapshot, the time
// and the host's per-pass inputs (catalogue, drift answers, queued
// commands). Most of its work depends on the Snapshot only: which PDBs
// select each pod and whether they allow an eviction (budget::PdbIndex),
// each NodePool's parsed budgets and node counts (budget::BudgetBook), the
// snapshot half of drift (drift::DriftBook: skips, static and requirements
// drift), each
// node's NodeClaim, labels, taints and pod aggregates (eviction costs,
// reschedulable pods, the first PDB-blocked pod, the pods whose
// do-not-disrupt may be active), each NodeClaim's parsed expireAfter,
// conditions and timestamps, and the scheduling simulation's tables (every
// pod's requests and constraint profile, every node's free capacity and
// placement order, each NodePool's template and DaemonSet overhead). This
// is the part of Karpenter's state.Cluster and its informer caches that its
// disruption controller reads (karpenter pkg/controllers/state/cluster.go,
// statenode.go), and what docs/design.md §3 asks the per-pass snapshot to
// carry.
//
// Building costs O(nodes + pods + NodeClaims + PDB matches); a host that
// takes a new Snapshot for every pass builds it once per pass (Controller's
// Decide(snapshot, ...) overload does so), a host or test that decides
// several times over one Snapshot builds it once.
//
// Build computes the PDB index and the scheduling simulation's tables; the
// BudgetBook, the DriftBook and the candidates' facts are computed on their
// first use (a host that only simulates, such as a scheduler pass, never
// pays for them), each from the same inputs as if Build had.
//
// Thread-safety: logically immutable after Build; any number of passes may
// read one SnapshotFacts concurrently (a part built on first use is built
// once, under a lock). It keeps a pointer to its Snapshot, which must
// outlive it and must not be moved from while it is in use (a moved-to
// Snapshot keeps its objects, but the pointer names the old variable).
#ifndef KARPENTER_DISRUPTION_SNAPSHOT_FACTS_H_
#define KARPENTER_DISRUPTION_SNAPSHOT_FACTS_H_

#include <memory>

#include "absl/status/status.h"
#include "karpenter/budget/allowed.h"
#include "karpenter/budget/pdb.h"
#include "karpenter/drift/verdict.h"
#include "karpenter/snapshot/snapshot.h"

namespace karpenter::disruption {

namespace internal {
struct CandidateFacts;
struct SchedulerBase;
template <typename T>
class LazyPart;
}  // namespace internal

class SnapshotFacts {
 public:
  // Indexes `snapshot` (see the file comment). `budgets` parameterises the
  // BudgetBook (budget/allowed.h). Never fails: an object the scheduling
  // simulation cannot read (an unparsable resource quantity or
  // requirement) is kept as `simulation_status()`, reported only by the
  // passes that simulate, as before the facts existed.
  //
  // `previous`, when given, is the facts of an earlier snapshot that may
  // share kinds with `snapshot` (a state::ClusterState's previous
  // publication, see snapshot/snapshot_parts.h): whatever depends only on
  // kinds both snapshots hold in the same storage is taken from it instead
  // of being computed again (the NodePool budgets when the Nodes,
  // NodeClaims and NodePools are shared and `budgets` is the same; the
  // snapshot half of drift when the NodeClaims and NodePools are; the node
  // facts with the Nodes, NodeClaims and NodePools; the parsed PDBs with
  // the PDBs; and what depends on a pod shape alone for the shape objects
  // both snapshots hold). The result is the same as without it. `previous`
  // and its Snapshot are only read during the call (both must be alive):
  // the facts built may share immutable tables (and parts not built yet)
  // with `previous` but keep no reference to it, nor to its Snapshot. What
  // is handed on is what `previous` holds at the call: a part it has not
  // built by then is built from scratch here, unless the inputs of both
  // are the same (then both share one, built by whichever uses it first).
  static SnapshotFacts Build(const snapshot::Snapshot& snapshot,
                             const budget::BudgetOptions& budgets = {},
                             const SnapshotFacts* previous = nullptr);

  SnapshotFacts(SnapshotFacts&&) noexcept;
  SnapshotFacts& operator=(SnapshotFacts&&) noexcept;
  ~SnapshotFacts();

  const snapshot::Snapshot& snapshot() const { return *snapshot_; }
  // The PDB index of the snapshot.
  const budget::PdbIndex& pdbs() const { return *pdbs_; }
  // The NodePool budgets of the snapshot, to Evaluate at a pass time (built
  // on the first call).
  const budget::BudgetBook& budgets() const;
  // The Snapshot-only half of drift evaluation (built on the first call).
  const drift::DriftBook& drift() const;
  // The options the BudgetBook was built with.
  const budget::BudgetOptions& budget_options() const {
    return budget_options_;
  }
  // OK, or InvalidArgument naming the object and field the scheduling
  // simulation could not read (see Scheduler::Build for the messages).
  const absl::Status& simulation_status() const { return simulation_status_; }

  // For the disruption sources; not part of the supported API (built on the
  // first call).
  const internal::CandidateFacts& candidate_facts() const;
  // Null when simulation_status() is not OK.
  const internal::SchedulerBase* scheduler_base() const {
    return scheduler_.get();
  }

 private:
  SnapshotFacts() = default;

  const snapshot::Snapshot* snapshot_ = nullptr;
  budget::BudgetOptions budget_options_;
  std::unique_ptr<budget::PdbIndex> pdbs_;
  // The parts built on first use (snapshot_facts.cc). The budgets and the
  // drift book are shared with the facts of later snapshots that share
  // their inputs, built or not.
  std::shared_ptr<internal::LazyPart<budget::BudgetBook>> budgets_;
  std::shared_ptr<internal::LazyPart<drift::DriftBook>> drift_;
  std::unique_ptr<internal::LazyPart<internal::CandidateFacts>> candidates_;
  std::unique_ptr<internal::SchedulerBase> scheduler_;
  absl::Status simulation_status_;
};

}  // namespace karpenter::disruption

#endif  // KARPENTER_DISRUPTION_SNAPSHOT_FACTS_H_
