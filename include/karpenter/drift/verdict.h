// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Drift verdicts: whether each NodeClaim is drifted, why, and what its
// `Drifted` status condition must become.
//
// Ports the NodeClaim disruption controller's drift reconciler (karpenter
// pkg/controllers/nodeclaim/disruption/drift.go `Reconcile`, `isDrifted`,
// `instanceTypeNotFound`, and the skips of controller.go), see
// docs/semantics.md §3.1, §3.4 and §3.6:
//   * skipped (no condition change) when the NodeClaim is not managed (no
//     `karpenter.sh/nodepool` label; this SDK has no NodeClass registry, so
//     the label is what "managed" means, as in termination/decide.h), is
//     deleting, or its NodePool is not found;
//   * a NodeClaim that is not `Launched=True` has `Drifted` removed;
//   * otherwise the first drift reason, in this order, wins: static drift
//     (`NodePoolDrifted`, static_drift.h), requirements drift
//     (`RequirementsDrifted`, requirements_drift.h), `InstanceTypeNotFound`
//     (only once the NodeClaim is older than one hour), then the cloud
//     provider's reason (`CloudProvider::IsDrifted`);
//   * drifted: `Drifted=True` with reason = message = the reason, keeping the
//     lastTransitionTime of a condition that was already True; not drifted:
//     `Drifted` is removed (never set False).
//
// Cores never call host interfaces (docs/design.md §1): EvaluateDrift and
// EvaluateAllDrift are pure functions of the snapshot, the time and the
// `DriftObservations` the host gathered. ObserveDrift is that gathering
// step: the only function here that calls the CloudProvider.
//
// Deliberate differences from Karpenter:
//   * Karpenter caches a passing InstanceTypeNotFound check for 30 minutes
//     per NodeClaim UID to save API calls; the catalogue is gathered once per
//     pass here, so every pass checks (a type that disappears is found up to
//     30 minutes sooner).
//   * An observation that is missing (no catalogue, a NodePool whose
//     GetInstanceTypes failed, a NodeClaim whose IsDrifted was not asked or
//     answered NotFound) skips that check. When no check that did run finds
//     drift, the verdict then changes nothing (`DriftVerdict::unchecked` says
//     why) instead of removing `Drifted`: Karpenter aborts the reconcile on
//     such errors, which likewise leaves the condition as it is.
//   * An invalid NodePool requirement is an error here; Karpenter's API
//     server rejects such NodePools before the controller sees them.
//
// Thread-safety: EvaluateDrift, EvaluateAllDrift and InstanceTypeNotFound
// are pure and safe to call concurrently. ObserveDrift is as thread-safe as
// the CloudProvider it calls (the interface requires thread-safety).
#ifndef KARPENTER_DRIFT_VERDICT_H_
#define KARPENTER_DRIFT_VERDICT_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "karpenter/cloud_provider.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/karpenter.pb.h"

namespace karpenter::drift {

// InstanceTypeNotFound is only checked for NodeClaims strictly older than
// this (drift.go: `clock.Since(creationTimestamp) > time.Hour`).
inline constexpr absl::Duration kInstanceTypeCheckMinAge = absl::Hours(1);

// Returns nullopt if `claim` still runs an instance type of `types` with an
// offering compatible with its labels, else "InstanceTypeNotFound" with
// `*why` (if non-null) set to the cause:
//   * the claim has no `node.kubernetes.io/instance-type` label;
//   * no element of `types` has that name;
//   * no offering of that type is compatible with the claim's labels: an
//     offering's zone and capacity type must equal the claim's
//     `topology.kubernetes.io/zone` and `karpenter.sh/capacity-type` labels
//     where the claim has them (both are well-known labels, so a missing one
//     matches anything), and an empty offering field constrains nothing.
//     Availability is not considered: providers list temporarily unavailable
//     offerings too. A claim labelled capacity type "reserved" is matched
//     against {reserved, on-demand}, since reserved capacity falls back to
//     on-demand; reservation IDs are left to the provider, as in Karpenter.
// Errors: none (every input is meaningful).
std::optional<std::string> InstanceTypeNotFound(
    const v1::NodeClaim& claim, absl::Span<const InstanceType> types,
    std::string* why = nullptr);

// What the host observed from `CloudProvider::IsDrifted` for one NodeClaim.
struct ProviderDrift {
  // The provider's reason (e.g. "AMIDrift"), or nullopt: not drifted.
  std::optional<std::string> reason;
  // Not OK: the call failed with an error other than NotFound; `reason` is
  // then meaningless.
  absl::Status error;
};

// Everything EvaluateDrift needs beyond the snapshot, gathered from the
// CloudProvider by the host (or by ObserveDrift).
struct DriftObservations {
  // GetInstanceTypes per NodePool name. Null: InstanceTypeNotFound is not
  // checked. A NodePool absent from it (its GetInstanceTypes failed) is not
  // checked either; one present with no types drifts every old enough claim.
  const InstanceTypeCatalog* catalog = nullptr;
  // NodePool name -> why GetInstanceTypes failed, for explanations only.
  std::map<std::string, absl::Status, std::less<>> catalog_errors;
  // NodeClaim name -> IsDrifted result. Absent: not asked, or the instance
  // was not found (Karpenter ignores NodeClaimNotFound); the check is skipped.
  std::map<std::string, ProviderDrift, std::less<>> provider;
};

// What the NodeClaim's `Drifted` condition must become.
enum class DriftConditionChange {
  kNone,    // Leave it as it is (absent, or already right).
  kSet,     // Set Drifted=True, reason = message = `reason`, at `since`.
  kRemove,  // Remove it (Karpenter never sets Drifted=False).
};

// "None", "Set" or "Remove".
absl::string_view DriftConditionChangeName(DriftConditionChange change);

// The drift decision for one NodeClaim.
struct DriftVerdict {
  std::string node_claim;
  // The `karpenter.sh/nodepool` label ("" if absent).
  std::string node_pool;
  // The first drift reason found: NodePoolDrifted, RequirementsDrifted,
  // InstanceTypeNotFound or the provider's reason. Nullopt: not drifted (or
  // not evaluated, see `skipped` and `error`).
  std::optional<std::string> reason;
  // Why, for explain output: which hashes differ, which requirement or
  // offering no longer matches, which provider reason.
  std::string detail;
  // Not OK: evaluation failed (an invalid NodePool requirement, an
  // IsDrifted error). Karpenter aborts the reconcile: `change` is kNone.
  absl::Status error;
  DriftConditionChange change = DriftConditionChange::kNone;
  // When drifted: the lastTransitionTime of the Drifted=True condition the
  // claim already has (nullopt if it has none recorded), else `now`.
  std::optional<absl::Time> since;
  // Non-empty when the claim was not evaluated: "not managed: ...",
  // "deleting", "NodePool \"x\" not found", "not launched" (the last
  // removes `Drifted`).
  std::string skipped;
  // Checks skipped for lack of an observation, e.g. `InstanceTypeNotFound:
  // NodePool "x" is not in the catalogue`. When non-empty and no check
  // found drift, `change` is kNone: nothing proves the claim is not drifted.
  std::vector<std::string> unchecked;
};

// Evaluates `claim` against `pool` (the NodePool its `karpenter.sh/nodepool`
// label names, or null if there is none) at `now`, in the order of the file
// comment. InstanceTypeNotFound is checked only when `now -
// creationTimestamp > kInstanceTypeCheckMinAge` and `obs.catalog` has the
// NodePool; the provider's reason only when `obs.provider` has the claim.
// Errors (in `DriftVerdict::error`, never thrown):
//   * InvalidArgument if `pool` is not the NodePool the label names, or one
//     of its requirements is invalid (`NodePool "x":
//     spec.template.spec.requirements[0].operator: ...`);
//   * the IsDrifted error's own code, prefixed `IsDrifted: `.
DriftVerdict EvaluateDrift(const v1::NodeClaim& claim, const v1::NodePool* pool,
                           const DriftObservations& obs, absl::Time now);

// EvaluateDrift for every NodeClaim of `snapshot`, in snapshot order, each
// with the NodePool its label names (null if absent from the snapshot).
std::vector<DriftVerdict> EvaluateAllDrift(const snapshot::Snapshot& snapshot,
                                           const DriftObservations& obs,
                                           absl::Time now);

// EvaluateAllDrift in two halves, for callers that evaluate one Snapshot
// more than once (disruption::SnapshotFacts): Build runs what depends on the
// Snapshot alone (the skips, static drift, requirements drift, and each
// claim's inputs to the later checks), O(NodeClaims); Evaluate runs the
// InstanceTypeNotFound and provider checks and decides the conditions,
// O(NodeClaims) with memoized instance-type answers.
//
// Thread-safety: immutable after Build; Evaluate may be called
// concurrently. Keeps views of the Snapshot's NodeClaims and NodePools,
// which must outlive it: the Snapshot, or any later one of a
// state::ClusterState that shares those kinds with it (snapshot_parts.h),
// which is how SnapshotFacts hands a book on to the next publication.
class DriftBook {
 public:
  // `previous`, when given, is a book built over an earlier snapshot that
  // is still alive: each NodeClaim that is the very same object as one of
  // its claims (a state::ClusterState shares unchanged objects between
  // snapshots) takes that claim's entry instead of being checked again,
  // provided the NodePools are the very same objects in the same order.
  // The book is the one built without `previous`.
  static DriftBook Build(const snapshot::Snapshot& snapshot,
                         const DriftBook* previous = nullptr);

  DriftBook(DriftBook&&) noexcept;
  DriftBook& operator=(DriftBook&&) noexcept;
  ~DriftBook();

  // Exactly EvaluateAllDrift(snapshot, obs, now).
  std::vector<DriftVerdict> Evaluate(const DriftObservations& obs,
                                     absl::Time now) const;
  // The same verdicts, one at a time in NodeClaim order, without keeping
  // them: `visit(i, verdict)` for NodeClaimIndex i. The verdict is only
  // valid during the call (its storage is reused, which saves a pass its
  // allocations).
  void ForEach(
      const DriftObservations& obs, absl::Time now,
      absl::FunctionRef<void(size_t, const DriftVerdict&)> visit) const;

 private:
  struct Entry;
  DriftBook() = default;

  friend DriftObservations ObserveDrift(CloudProvider& cloud,
                                        const DriftBook& book,
                                        InstanceTypeCatalog* catalog_out);

  snapshot::ObjectList<v1::NodeClaim> claims_;
  snapshot::ObjectList<v1::NodePool> pools_;
  std::vector<Entry> entries_;
};

// The host-side gathering step (not a core: it calls `cloud`). A claim is
// "eligible" when it is labelled with a NodePool of `snapshot`, not deleting
// and `Launched=True`. Calls, in snapshot order:
//   * GetInstanceTypes once per NodePool with an eligible claim, storing the
//     types in `*catalog_out` (cleared first). A failed call leaves the
//     NodePool out of the catalogue and records the error in
//     `catalog_errors`. Null `catalog_out`: no call, `catalog` stays null.
//   * IsDrifted once per eligible claim whose static and requirements checks
//     do not already drift or fail (those verdicts never read the answer;
//     Karpenter saves the same calls). NotFound leaves no entry; any other
//     error is recorded in `ProviderDrift::error`.
// Returns the observations, with `catalog` pointing at `*catalog_out`, which
// must outlive their use. Errors: none of its own (call errors are data).
DriftObservations ObserveDrift(CloudProvider& cloud,
                               const snapshot::Snapshot& snapshot,
                               InstanceTypeCatalog* catalog_out);
// The same calls and observations for the snapshot `book` was built over
// (which must be alive), with the static and requirements checks the book
// already made instead of making them again.
DriftObservations ObserveDrift(CloudProvider& cloud, const DriftBook& book,
                               InstanceTypeCatalog* catalog_out);

}  // namespace karpenter::drift

#endif  // KARPENTER_DRIFT_VERDICT_H_
