// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// PdbIndex: every PodDisruptionBudget of a Snapshot, validated and
// pre-parsed, with a one-pass pod -> PDB index and the per-pod eviction
// verdict Karpenter's disruption uses.
//
// Ports:
//   - Karpenter pkg/utils/pdb/pdb.go `NewLimits` / `CanEvictPods` /
//     `isFullyBlocking`: a pod that is not evictable is never blocked; a pod
//     matched by more than one PDB is blocked (the eviction subresource
//     refuses it); with exactly one PDB, an AlwaysAllow PDB does not block a
//     pod whose Ready condition is False, otherwise disruptionsAllowed 0
//     blocks. Fully blocking: maxUnavailable 0 or "0%", or minAvailable
//     "100%".
//   - Kubernetes pkg/controller/disruption/disruption.go
//     `getExpectedPodCount` / `countHealthyPods` / `updatePdbStatus`, used
//     when a PDB carries no status (a manifest, or a PDB the controller has
//     not processed yet).
//   - Kubernetes pkg/apis/policy/validation `ValidatePodDisruptionBudgetSpec`
//     for what a valid spec is.
//
// Decisions (differences from the references, each deliberate):
//   - Status presence. The API server serialises the four status counters
//     even when they are zero, so a PDB the controller has never processed
//     reads `status: {disruptionsAllowed: 0, ...}`. Status counts as present
//     iff observedGeneration > 0, a counter is non-zero, or a condition is
//     set; otherwise disruptionsAllowed is computed. Karpenter always reads
//     the status field (unprocessed PDBs block).
//   - Computed expected count. Kubernetes takes the controllers' scale for
//     maxUnavailable and for percentage minAvailable; a Snapshot has no
//     controllers, so expected is the number of selected pods (any phase,
//     as the controller's pod list), for every form. With neither
//     minAvailable nor maxUnavailable set the controller expects 0 pods and
//     allows nothing (policy/v1 has no default); so do we. Two further
//     inputs of the controller are not in a Snapshot and are not modelled:
//     pods without a controller, which it leaves out of the expected count
//     for the scale-based forms (and warns `UnmanagedPods`), and
//     status.disruptedPods, pods whose eviction was approved less than two
//     minutes ago and which it no longer counts as healthy.
//   - Invalid PDBs do not fail the whole index (Karpenter's NewLimits does,
//     which stops all disruption). The PDB gets an error, 0 disruptions
//     allowed, and blocks the pods it matches (verdict kInvalidPdb). If its
//     selector itself is invalid it is treated as matching every pod of its
//     namespace: fail closed, scoped to the namespace.
//   - A negative disruptionsAllowed in status blocks (Karpenter compares
//     with == 0 and would let it through).
//
// Thread-safety: immutable after Build; const methods may be called
// concurrently. The index keeps no pointer into the Snapshot, but its pod and
// PDB positions are only meaningful for the snapshot it was built from.

#ifndef KARPENTER_BUDGET_PDB_H_
#define KARPENTER_BUDGET_PDB_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "karpenter/selector.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/core.pb.h"

namespace karpenter::budget {
namespace internal {
struct NamespaceBuckets;
struct ParsedPdbs;
struct ShapeMatches;
}  // namespace internal

// One PDB as the index sees it.
struct PdbInfo {
  // "namespace/name", for explanations.
  std::string name;
  // Pre-parsed spec.selector. For a PDB whose selector is invalid this is
  // Everything() (it matches its whole namespace, see the file comment).
  LabelSelector selector;
  // OK, or InvalidArgument naming the object and field, e.g.
  // `policy/v1 PodDisruptionBudget ns/web: spec.minAvailable: ...`.
  absl::Status error;
  // True if disruptions_allowed was read from status (see "Status presence").
  bool from_status = false;
  // From status, or computed as the disruption controller does; 0 when the
  // PDB is invalid.
  int64_t disruptions_allowed = 0;
  // The disruption controller's inputs. When from_status, copied from status;
  // otherwise computed (expected = selected pods, healthy = selected pods
  // that are Ready=True and not terminating).
  int64_t expected_pods = 0;
  int64_t current_healthy = 0;
  int64_t desired_healthy = 0;
  // maxUnavailable 0 / "0%" or minAvailable "100%".
  bool fully_blocking = false;
  // spec.unhealthyPodEvictionPolicy == "AlwaysAllow".
  bool always_allow = false;
};

// Why CanEvict decided as it did.
enum class EvictionVerdict {
  kNotEvictable,          // Not blocked: the caller said the pod is not
                          // evictable (terminal, terminating, mirror, ...).
  kNoPdb,                 // Not blocked: no PDB selects the pod.
  kAllowed,               // Not blocked: its PDB allows disruptions.
  kUnhealthyAlwaysAllow,  // Not blocked: AlwaysAllow and pod Ready=False.
  kNoDisruptionsAllowed,  // Blocked: its PDB has disruptionsAllowed <= 0.
  kMisconfigured,         // Blocked: more than one PDB selects the pod.
  kInvalidPdb,            // Blocked: its single PDB is invalid.
};

struct EvictionCheck {
  EvictionVerdict verdict = EvictionVerdict::kNoPdb;
  // "namespace/name" of the blocking PDBs, in snapshot order; empty when
  // not blocked.
  std::vector<std::string> blocking_pdbs;

  bool blocked() const {
    return verdict == EvictionVerdict::kNoDisruptionsAllowed ||
           verdict == EvictionVerdict::kMisconfigured ||
           verdict == EvictionVerdict::kInvalidPdb;
  }
};

// The stable name of a verdict, e.g. "Misconfigured".
absl::string_view EvictionVerdictName(EvictionVerdict v);

class PdbIndex {
 public:
  // Validates every PDB of `snapshot` and indexes every pod against the PDBs
  // of its own namespace in one pass (selectors parsed once; within a
  // namespace, PDBs are bucketed by their most common matchLabels key so a
  // pod tests only candidates). O(pods * candidates + PDBs). Never fails:
  // invalid PDBs are recorded in pdbs()[i].error (and errors()).
  static PdbIndex Build(const snapshot::Snapshot& snapshot);
  // The same index, reusing what `same_pdbs` parsed when it is non-null:
  // it must have been built from a snapshot holding the very PDBs of
  // `snapshot` (snapshot::internal::SnapshotParts::Same with kPdbs), as a
  // state::ClusterState's successive publications do. Selectors and specs
  // are then not parsed again, the namespace buckets are reused while the
  // namespaces are numbered alike, and the PdbInfo list is shared when no
  // count changed. The result equals Build(snapshot).
  // `same_shapes`, when not empty, maps each shape id of `snapshot` to the
  // id of the same shape object in same_pdbs's snapshot, or to
  // 0xFFFFFFFF (snapshot::internal::SnapshotParts::SameShapes): the PDBs
  // selecting a shape are then taken from same_pdbs, not matched again.
  static PdbIndex Build(const snapshot::Snapshot& snapshot,
                        const PdbIndex* same_pdbs,
                        absl::Span<const uint32_t> same_shapes = {});

  PdbIndex();
  PdbIndex(const PdbIndex&);
  PdbIndex& operator=(const PdbIndex&);
  PdbIndex(PdbIndex&&) noexcept;
  PdbIndex& operator=(PdbIndex&&) noexcept;
  ~PdbIndex();

  // Per PDB, indexed like Snapshot::pdbs().
  absl::Span<const PdbInfo> pdbs() const {
    return pdbs_ != nullptr ? absl::MakeConstSpan(*pdbs_)
                            : absl::Span<const PdbInfo>();
  }

  // The errors of the invalid PDBs, in snapshot order.
  std::vector<absl::Status> errors() const;

  // The PDBs selecting pod `p` (same namespace, selector matches), ascending.
  // `p` must be < the snapshot's pod_count().
  absl::Span<const snapshot::PdbIndex> PdbsOfPod(snapshot::PodIndex p) const;

  // True if more than one PDB selects pod `p`: the eviction API refuses such
  // a pod ("more than one PodDisruptionBudget").
  bool IsMisconfigured(snapshot::PodIndex p) const {
    return PdbsOfPod(p).size() > 1;
  }

  // True if a fully blocking PDB selects pod `p` (Karpenter excludes such
  // pods from rescheduling simulations).
  bool IsFullyBlocked(snapshot::PodIndex p) const;

  // The verdict of Karpenter's `CanEvictPods` for pod `p` of `snapshot`
  // (the snapshot this index was built from; `p` must be in range). Per pod,
  // never aggregated over a node. `evictable` is pod.IsEvictable (active, not
  // a mirror pod, does not tolerate the disrupted taint, no active
  // do-not-disrupt), which needs the clock and so is the caller's.
  EvictionCheck CanEvict(const snapshot::Snapshot& snapshot,
                         snapshot::PodIndex p, bool evictable) const;

 private:
  // The one pass over pods; counts selected and healthy pods for the PDBs
  // that need them (no status).
  void IndexPods(const snapshot::Snapshot& snapshot,
                 const internal::ParsedPdbs& parsed,
                 const internal::ShapeMatches* same,
                 absl::Span<const uint32_t> same_shapes,
                 std::vector<int64_t>& selected, std::vector<int64_t>& healthy);

  // Immutable once built, shared between indexes of the same PDBs (Build
  // with same_pdbs); null for an empty index.
  std::shared_ptr<const std::vector<PdbInfo>> pdbs_;
  // What Build parsed from the PDBs alone (null for an empty index).
  std::shared_ptr<const internal::ParsedPdbs> parsed_;
  // The PDBs selecting each shape of the snapshot (null when empty).
  std::shared_ptr<const internal::ShapeMatches> shapes_;
  // Each pod's shape id (Snapshot::PodShapeId): the PDBs selecting a pod
  // are its shape's, in shapes_.
  std::vector<uint32_t> pod_shapes_;
};

// True if `pod` has a condition Ready with status exactly "False" (what
// AlwaysAllow tests; "Unknown" and a missing condition are not False).
bool PodReadyIsFalse(const v1::Pod& pod);

// True if `pod` has condition Ready=True and no deletionTimestamp (the
// disruption controller's "healthy").
bool PodIsHealthy(const v1::Pod& pod);

}  // namespace karpenter::budget

#endif  // KARPENTER_BUDGET_PDB_H_
