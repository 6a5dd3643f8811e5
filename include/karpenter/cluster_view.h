// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// ClusterView: the host interface through which the SDK reads the cluster
// and applies the few object mutations node termination needs.
//
// The SDK never talks to an API server itself. A host implements this
// interface over its Kubernetes client (informer caches for Read, patches
// and deletes for the mutations); `testing::FakeCluster`
// (karpenter/testing/fake_cluster.h) implements it in memory. The mutations
// are those Karpenter's termination path performs
// (pkg/controllers/node/termination/controller.go,
// pkg/controllers/nodeclaim/lifecycle/controller.go `finalize`,
// terminator.go force deletion; docs/semantics.md §4.1, §4.2, §4.5):
// finalizers on Nodes and NodeClaims, the `karpenter.sh/disrupted` taint,
// the exclude-from-load-balancers label, the NodeClaim termination-timestamp
// annotation, NodeClaim status conditions (Drained, VolumesDetached, ...),
// deleting the Node and NodeClaim, and deleting pods past the drain deadline.
// Disruption orchestration (pkg/controllers/disruption/queue.go,
// docs/semantics.md §2.1 step 3, §2.13) adds three: creating
// replacement NodeClaims, removing the disrupted taint and clearing the
// NodeClaim `DisruptionReason` condition on rollback and cleanup.
// Evictions go through `EvictionClient` (karpenter/eviction_client.h).
//
// Every mutation is idempotent: it states the result it establishes, not a
// step, so the executor can re-apply a plan after a crash or a lost reply and
// derive where it is from the next Read (docs/design.md §1, "observed state").
//
// Error codes, common to every method (the per-method comments add their
// own):
//   - NotFound: the object does not exist (it is already gone). Callers
//     treat it as done for deletes and finalizer removal, and as "nothing
//     left to do" for every other mutation: the next Read will not show the
//     object, and the decision that asked for the mutation no longer applies.
//   - InvalidArgument: the request itself is malformed (an empty name, a
//     taint effect that is not a Kubernetes effect, ...); retrying the same
//     request cannot succeed.
//   - Aborted: an optimistic-concurrency conflict (HTTP 409 on update); the
//     caller re-reads and retries.
//   - Unavailable, DeadlineExceeded, ResourceExhausted (429 from the API
//     server's flow control), Internal: transient; retry with backoff.
//   - PermissionDenied, Unauthenticated: the host's credentials do not allow
//     the call; retrying will not help.
// Implementations must not retry internally (the caller owns backoff) and
// must not block longer than the host's request timeout.
//
// Thread-safety: implementations must be safe to call from several threads
// at once. A mutation that returned OK is visible to every later Read.

#ifndef KARPENTER_CLUSTER_VIEW_H_
#define KARPENTER_CLUSTER_VIEW_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "karpenter/eviction_client.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/core.pb.h"
#include "karpenter/v1/karpenter.pb.h"
#include "karpenter/v1/meta.pb.h"

namespace karpenter {

// The cluster-scoped objects ClusterView mutates by name.
enum class ObjectKind {
  kNode,       // v1 Node.
  kNodeClaim,  // karpenter.sh/v1 NodeClaim.
};

// "Node" or "NodeClaim".
absl::string_view ObjectKindName(ObjectKind kind);

// Host interface: no data, virtual destructor, contract per method.
class ClusterView {
 public:
  virtual ~ClusterView() = default;

  // Returns a consistent snapshot of the cluster: every object as of one
  // instant (for an informer-backed host: one point of its caches, taken
  // under their read locks), with every earlier OK mutation applied.
  // Errors: Unavailable / DeadlineExceeded (transient); InvalidArgument from
  // `snapshot::Snapshot::Build` if the objects cannot form a snapshot (a
  // duplicate or empty name).
  virtual absl::StatusOr<snapshot::Snapshot> Read() = 0;

  // Ensures `metadata.finalizers` of the object contains `finalizer`
  // (appended at the end if absent; no write if present).
  // Errors: NotFound; InvalidArgument if `name` or `finalizer` is empty;
  // FailedPrecondition if the object is being deleted and lacks the
  // finalizer (Kubernetes forbids new finalizers on a deleting object).
  virtual absl::Status AddFinalizer(ObjectKind kind, absl::string_view name,
                                    absl::string_view finalizer) = 0;

  // Ensures `metadata.finalizers` of the object does not contain
  // `finalizer` (no write if absent). As in Kubernetes, a deleting object
  // whose last finalizer is removed is gone afterwards.
  // Errors: NotFound (already gone: done); InvalidArgument if `name` or
  // `finalizer` is empty.
  virtual absl::Status RemoveFinalizer(ObjectKind kind, absl::string_view name,
                                       absl::string_view finalizer) = 0;

  // Ensures the Node's taints with key `taint.key()` are exactly `taint`
  // (key, value, effect; timeAdded is not compared): an equal taint is a
  // no-op, otherwise every taint with that key is dropped and `taint` is
  // appended. Other taints keep their order. This is how Karpenter applies
  // `karpenter.sh/disrupted:NoSchedule` (termination/controller.go).
  // Errors: NotFound; InvalidArgument if `node` or the key is empty, or the
  // effect is not "NoSchedule", "PreferNoSchedule" or "NoExecute".
  virtual absl::Status TaintNode(absl::string_view node,
                                 const v1::Taint& taint) = 0;

  // Ensures `metadata.labels[key] == value` on the object (no write if so).
  // Errors: NotFound; InvalidArgument if `name` or `key` is empty.
  virtual absl::Status SetLabel(ObjectKind kind, absl::string_view name,
                                absl::string_view key,
                                absl::string_view value) = 0;

  // Ensures `metadata.annotations[key] == value` on the object (no write if
  // so). Errors: NotFound; InvalidArgument if `name` or `key` is empty.
  virtual absl::Status SetAnnotation(ObjectKind kind, absl::string_view name,
                                     absl::string_view key,
                                     absl::string_view value) = 0;

  // Ensures the NodeClaim has one status condition of `condition.type()`
  // with the given status, reason, message and observedGeneration. If a
  // condition of that type already has the same status, its
  // lastTransitionTime is kept (the status did not transition); otherwise
  // lastTransitionTime is `condition.last_transition_time()` if set, else
  // the view's current time. Karpenter's MinDrainTime wait reads this time.
  // Errors: NotFound; InvalidArgument if `node_claim` or the type is empty,
  // or the status is not "True", "False" or "Unknown".
  virtual absl::Status SetNodeClaimCondition(
      absl::string_view node_claim, const v1::Condition& condition) = 0;

  // Deletes the Node object. With finalizers it gets a deletionTimestamp
  // (kept if already set) and stays until its last finalizer is removed;
  // without, it is gone at once. Deleting a deleting Node is OK and changes
  // nothing. Errors: NotFound (already gone: done); InvalidArgument if
  // `node` is empty.
  virtual absl::Status DeleteNode(absl::string_view node) = 0;

  // Deletes the NodeClaim; finalizer semantics as DeleteNode.
  // Errors: NotFound (already gone: done); InvalidArgument if `node_claim`
  // is empty.
  virtual absl::Status DeleteNodeClaim(absl::string_view node_claim) = 0;

  // Deletes a pod directly (DELETE with DeleteOptions gracePeriodSeconds and
  // the UID precondition `pod.uid`), bypassing PodDisruptionBudgets and
  // do-not-disrupt: Karpenter's force-delete past the drain deadline
  // (terminator.go). `grace` is a whole number of seconds; Karpenter sends
  // at least 1 s, because 0 removes the pod from the API at once without
  // waiting for the kubelet to stop it (`--grace-period=0 --force`). As in
  // Kubernetes, a pod already terminating only ever gets an earlier
  // deletionTimestamp (now + grace), never a later one, and an unscheduled
  // or terminal pod is removed at once. An empty `pod.uid` sends no
  // precondition.
  // Errors: NotFound (already gone: done); FailedPrecondition if the UID
  // precondition failed (a different pod now has the name: done, as a 409 on
  // eviction); InvalidArgument if the namespace or name is empty, or `grace`
  // is negative, infinite or not whole seconds.
  virtual absl::Status DeletePod(const PodRef& pod, absl::Duration grace) = 0;

  // Creates the NodeClaim as given: metadata (name, labels, annotations,
  // finalizers), spec and status (a host creates the object, then writes
  // its status subresource, as Karpenter's launch records
  // `status.providerID`). A missing creationTimestamp becomes the view's
  // current time; a deletionTimestamp in `node_claim` is ignored.
  // Errors: AlreadyExists if a NodeClaim has the name (a caller that created
  // it before, e.g. a retry after a lost reply, treats this as done);
  // InvalidArgument if `metadata.name` is empty.
  virtual absl::Status CreateNodeClaim(const v1::NodeClaim& node_claim) = 0;

  // Ensures the Node has no taint with key `key` and effect `effect` (its
  // value is not compared); other taints keep their order. No write if
  // there is none. This is how Karpenter removes
  // `karpenter.sh/disrupted:NoSchedule` when a disruption is rolled back or
  // a restart left it behind.
  // Errors: NotFound; InvalidArgument if `node` or `key` is empty, or the
  // effect is not "NoSchedule", "PreferNoSchedule" or "NoExecute".
  virtual absl::Status RemoveTaint(absl::string_view node,
                                   absl::string_view key,
                                   absl::string_view effect) = 0;

  // Ensures the NodeClaim has no status condition of `type` (no write if
  // absent). Karpenter clears `DisruptionReason` this way on rollback.
  // Errors: NotFound; InvalidArgument if `node_claim` or `type` is empty.
  virtual absl::Status RemoveNodeClaimCondition(absl::string_view node_claim,
                                                absl::string_view type) = 0;
};

}  // namespace karpenter

#endif  // KARPENTER_CLUSTER_VIEW_H_
