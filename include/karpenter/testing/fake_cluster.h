// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// FakeCluster: an in-memory `ClusterView` and `EvictionClient` with real
// PodDisruptionBudget enforcement, for tests and simulations of drains and
// node termination. It plays the API server, the disruption controller, the
// ReplicaSet-like controllers and the kubelet, just enough for a drain to
// meet the same answers it would meet in a cluster.
//
// What it models:
//   - Evict: Kubernetes pkg/registry/core/pod/storage/eviction.go. In order:
//     404 if no pod has the name. A pod that is Pending, Succeeded, Failed
//     or already terminating skips every PDB check (`canIgnorePDB`) and is
//     deleted. Otherwise: 500 with `kMultiplePdbMessage` if more than one PDB
//     of the namespace selects it; with one PDB, a pod that is not Ready is
//     deleted without consuming the budget if the PDB is AlwaysAllow, or if
//     IfHealthyBudget (the default) and currentHealthy >= desiredHealthy > 0;
//     otherwise 429 if disruptionsAllowed is 0. Last, the delete checks the
//     UID precondition: 409 if `PodRef::uid` is set and differs. As in
//     eviction.go the UID is checked by the delete, so a mismatching UID on
//     a pod a PDB blocks answers 429 (or 500), not 409. On 200 the pod gets
//     the DisruptionTarget condition and is deleted gracefully (below).
//   - PDB status: computed live on every call, as the disruption controller
//     (pkg/controller/disruption/disruption.go `getExpectedPodCount`,
//     `countHealthyPods`, `updatePdbStatus`) would compute it at that
//     instant, so there is no DisruptedPods bookkeeping: an evicted pod is
//     terminating at once and so unhealthy at once. healthy = Ready=True and
//     not terminating. minAvailable N: expected = the selected pods (any
//     phase, terminating included), desired = N. maxUnavailable and
//     percentage minAvailable: expected = the sum of the scales of the
//     selected pods' controllers, desired = expected - ceil(maxUnavailable)
//     (at least 0) or ceil(minAvailable% of expected). A controller's scale
//     is its live, non-terminating, non-terminal pods plus the replacements
//     pending creation, so it stays constant through an evict-and-replace
//     cycle; `maxUnavailable: 1` then allows exactly one unavailable pod
//     until the replacement is Ready. A selected pod without a controller
//     counts 1 (Kubernetes fails the PDB's sync instead). disruptionsAllowed
//     = max(healthy - desired, 0), and 0 when expected is 0. Read() returns
//     PDBs with this status (observedGeneration = max(generation, 1)).
//   - Graceful deletion (pkg/registry/core/pod/strategy.go): deletionTimestamp
//     = now + grace (the pod's terminationGracePeriodSeconds, 30 if unset, for
//     an eviction); an unscheduled or terminal pod, or grace 0, is removed at
//     once; a terminating pod's deletionTimestamp only moves earlier. The pod
//     is removed when the clock reaches its deletionTimestamp.
//   - Controllers: a pod with a `controller: true` ownerReference whose kind is
//     not DaemonSet or Node is replaced, like a ReplicaSet does, when it starts
//     terminating (or is removed outright): after `recreate_delay` a new pod
//     appears with a new UID and name (`<generateName>r<N>`, or
//     `<name>-r<N>` without generateName; replacements of replacements keep
//     the first base; N counts replacements fake-wide) , bound by the
//     FakeClusterOptions::placement rule (by default the first Node by name
//     that is not the old pod's node, not being deleted, not
//     `spec.unschedulable` and not tainted `karpenter.sh/disrupted:
//     NoSchedule`, capacity not modelled; or kube-scheduler's Filter and
//     Score plugins); it is Pending there and becomes Running and Ready
//     after `ready_delay`. With no such Node it stays Pending and
//     unscheduled. DaemonSet and mirror pods are not replaced.
//   - Nodes and NodeClaims: finalizers block removal as in Kubernetes; when
//     a Node object goes, its pods go at once (the pod GC's orphan cleanup,
//     without its delay), and controller-owned ones are replaced. New
//     NodeClaims come from CreateNodeClaim; new Nodes from AddNode (the
//     fake runs no kubelet: FakeNodeLifecycle registers launched NodeClaims).
//   - Volumes: the attach/detach controller with the kubelet's unmount. A
//     VolumeAttachment is "used" while a pod that is not terminal (Succeeded
//     or Failed), on the attachment's `spec.nodeName`, mounts a claim (in the
//     pod's namespace: `persistentVolumeClaim.claimName`, or "<pod>-<volume>"
//     for a generic ephemeral volume) whose `spec.volumeName` is the
//     attachment's `source.persistentVolumeName`. A terminating pod still
//     uses its volumes until it is removed. An attachment is deleted
//     `volume_detach_delay` after it stops being used; one never used (no
//     PV name, or no such pod) is deleted that long after Create() or
//     AddVolumeAttachment(). A pod using the volume again stops the clock.
//     Deleting a Node does not delete its attachments: its pods go, and the
//     rule above then detaches them. Claims and PVs are not modelled beyond
//     the initial claims' volumeName (no binding, no provisioning).
//
// Time: every call first applies, in time order, all pending transitions
// (replacement created, replacement Ready, terminating pod removed, volume
// detached) whose instant is <= clock.Now(); each takes effect with its own
// instant as its timestamp, so the result does not depend on how often the fake
// is called. Settle(), NextEventTime() and RunUntil() let tests step a
// FakeClock from transition to transition.
//
// Reads: Read() takes its snapshot from a state::ClusterState
// (karpenter/state/cluster_state.h) that mirrors the store and is fed, at
// each Read(), only the objects changed since the previous one, as a host's
// watch cache is; the snapshot equals Snapshot::Build(ExportObjects()),
// object for object and in order (CheckReadMirror() verifies it).
//
// Faults and observation: InjectEvictionFailures() and FailNext() script
// errors; the counters, CallLog() (one line per call and per transition)
// and PdbViolations() (an invariant: must stay empty) observe.
//
// Thread-safety: every method may be called from any thread; one mutex
// serialises them, so each call is atomic with respect to the others. Do
// not call the fake from inside the Clock it was given.

#ifndef KARPENTER_TESTING_FAKE_CLUSTER_H_
#define KARPENTER_TESTING_FAKE_CLUSTER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "karpenter/clock.h"
#include "karpenter/cluster_view.h"
#include "karpenter/eviction_client.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/testing/fake_clock.h"
#include "karpenter/v1/core.pb.h"
#include "karpenter/v1/karpenter.pb.h"

namespace karpenter::testing {

struct FakeClusterOptions {
  // From a controller-owned pod starting to terminate to its replacement
  // existing. Must be >= 0.
  absl::Duration recreate_delay = absl::Seconds(5);
  // From a replacement being created on a Node to it being Ready. >= 0.
  absl::Duration ready_delay = absl::Seconds(10);
  // When false, terminating pods are never removed, as with a kubelet that
  // never confirms termination (Karpenter's "stuck terminating" pods).
  bool remove_terminated_pods = true;
  // From a VolumeAttachment losing its last user (see the file comment) to
  // the attach/detach controller deleting it. Must be >= 0.
  absl::Duration volume_detach_delay = absl::Seconds(10);
  // Who binds pods that have no Node (see the file comment, Controllers):
  //   kFirstNode: a replacement goes to the first Node by name that is not
  //     the old pod's node, not being deleted, not `spec.unschedulable` and
  //     not tainted `karpenter.sh/disrupted: NoSchedule`; capacity is not
  //     modelled and other pending pods stay pending. For drain and
  //     termination tests whose Nodes carry no allocatable or conditions.
  //   kKubeScheduler: every pending pod (a replacement, or a pod added or
  //     loaded without a node) is bound as kube-scheduler binds it
  //     (disruption::Scheduler::Bind: the Filter plugins, then the default
  //     profile's scores; ties broken by `scheduler_seed`), in the
  //     scheduling queue's order (higher spec.priority first, then
  //     creation). One pass binds every pod that became pending at an
  //     instant; a pod that fits nowhere stays Pending with PodScheduled
  //     False, reason Unschedulable and kube-scheduler's message, and is
  //     retried 1 s (kube-scheduler's initial backoff) after anything in
  //     the cluster changed: one pass for all the changes of an instant.
  enum class Placement { kFirstNode, kKubeScheduler };
  Placement placement = Placement::kFirstNode;
  uint64_t scheduler_seed = 0;
  // When false, CallLog() stays empty (for large simulations).
  bool record_call_log = true;
};

// CheckPlacement's findings: where the pods bound now break a Filter rule.
struct PlacementCheck {
  // "namespace/name: why" of bound, non-terminal pods whose node does not
  // match their nodeSelector or required node affinity, or whose host port
  // another such pod on the node also binds; sorted.
  std::vector<std::string> misplaced_pods;
  // "node: cpu requested 4100m of 4000m allocatable" (milli-units) for
  // each node and resource where the node's non-terminal
  // pods request more than status.allocatable of some resource; sorted.
  std::vector<std::string> overcommitted_nodes;
  // "namespace/name" of active pods with no node; sorted.
  std::vector<std::string> pending_pods;
};

// The ClusterView methods, for FailNext().
enum class FakeMethod {
  kRead,
  kAddFinalizer,
  kRemoveFinalizer,
  kTaintNode,
  kSetLabel,
  kSetAnnotation,
  kSetNodeClaimCondition,
  kDeleteNode,
  kDeleteNodeClaim,
  kDeletePod,
  kCreateNodeClaim,
  kRemoveTaint,
  kRemoveNodeClaimCondition,
};

// The method's name as CallLog() prints it, e.g. "DeletePod".
absl::string_view FakeMethodName(FakeMethod method);

// When a scripted fault strikes.
enum class FaultTiming {
  // The call has no effect and returns the fault: a refused request.
  kInsteadOfCall,
  // The call takes effect, then returns the fault: a reply lost after the
  // server committed (a timeout). Tests idempotent retries.
  kAfterCall,
};

// A PDB's status as the disruption controller would compute it now.
struct PdbCounts {
  int64_t expected_pods = 0;
  int64_t current_healthy = 0;
  int64_t desired_healthy = 0;
  int64_t disruptions_allowed = 0;

  friend bool operator==(const PdbCounts&, const PdbCounts&) = default;
};

// An eviction after which a PDB selecting the evicted pod had fewer healthy
// pods than it desires, while the pod had been healthy. The eviction rules
// make this impossible; a non-empty PdbViolations() is a bug in the fake.
struct PdbViolation {
  absl::Time at;
  std::string pdb;  // "namespace/name"
  std::string pod;  // "namespace/name" of the evicted pod
  int64_t current_healthy = 0;
  int64_t desired_healthy = 0;
};

namespace internal {
class FakeClusterState;
}  // namespace internal

class FakeCluster final : public ClusterView, public EvictionClient {
 public:
  // Takes `objects` as the initial cluster. A Pod, PDB, PersistentVolumeClaim
  // or DaemonSet without a namespace goes to "default" and a Pod without a
  // UID gets "fake-uid-<N>", as the API server would. PersistentVolumes,
  // StorageClasses, CSINodes and DaemonSets stay as given: the fake runs
  // none of their controllers (a new Node gets no CSINode and no DaemonSet
  // pods). The detach clock of unused
  // VolumeAttachments starts at clock.Now(). Pods already terminating stay
  // until their deletionTimestamp (or at once if it is past) and are not
  // replaced (their replacement is assumed to be in `objects`); the other
  // controller-owned pods define their controllers' scales. `clock` must
  // outlive the fake. Errors: InvalidArgument from snapshot::Snapshot::Build
  // (empty or duplicate names), for a PDB the API server would reject (the
  // message of budget::PdbIndex), or for a negative delay in `options`.
  static absl::StatusOr<std::unique_ptr<FakeCluster>> Create(
      snapshot::ObjectSet objects, Clock& clock,
      FakeClusterOptions options = {});

  ~FakeCluster() override;
  FakeCluster(const FakeCluster&) = delete;
  FakeCluster& operator=(const FakeCluster&) = delete;

  // ClusterView (karpenter/cluster_view.h); contracts there. In a Read(),
  // Nodes and NodeClaims are sorted by name, pods are in creation order (the
  // initial pods in input order, then replacements and added pods), PDBs,
  // NodePools, PersistentVolumeClaims, PersistentVolumes, StorageClasses,
  // CSINodes and DaemonSets in input order, VolumeAttachments sorted by
  // name; PDBs carry the live status. NodePools added by ApplyNodePool
  // follow the initial ones. Errors: a FailNext fault; Internal if the
  // ClusterState mirror refuses an event (a bug of the fake).
  absl::StatusOr<snapshot::Snapshot> Read() override;
  absl::Status AddFinalizer(ObjectKind kind, absl::string_view name,
                            absl::string_view finalizer) override;
  absl::Status RemoveFinalizer(ObjectKind kind, absl::string_view name,
                               absl::string_view finalizer) override;
  absl::Status TaintNode(absl::string_view node,
                         const v1::Taint& taint) override;
  absl::Status SetLabel(ObjectKind kind, absl::string_view name,
                        absl::string_view key,
                        absl::string_view value) override;
  absl::Status SetAnnotation(ObjectKind kind, absl::string_view name,
                             absl::string_view key,
                             absl::string_view value) override;
  absl::Status SetNodeClaimCondition(absl::string_view node_claim,
                                     const v1::Condition& condition) override;
  absl::Status DeleteNode(absl::string_view node) override;
  absl::Status DeleteNodeClaim(absl::string_view node_claim) override;
  absl::Status DeletePod(const PodRef& pod, absl::Duration grace) override;
  absl::Status CreateNodeClaim(const v1::NodeClaim& node_claim) override;
  absl::Status RemoveTaint(absl::string_view node, absl::string_view key,
                           absl::string_view effect) override;
  absl::Status RemoveNodeClaimCondition(absl::string_view node_claim,
                                        absl::string_view type) override;

  // EvictionClient (karpenter/eviction_client.h), with the rules in the file
  // comment. Messages are Kubernetes' own: `pods "<name>" not found` (404),
  // "Cannot evict pod as it would violate the pod's disruption budget."
  // (429), kMultiplePdbMessage (500), and for 409 `Operation cannot be
  // fulfilled on Pod "<name>": the UID in the precondition (<uid>) does not
  // match the UID in record (<uid>). ...`. An empty `pod.uid` sends no
  // precondition.
  EvictionResponse Evict(const PodRef& pod) override;

  // Adds a pod, as if a user or a controller outside the fake created it
  // (e.g. a pod the scheduler placed on a node being drained). Namespace
  // and UID defaults as Create; a controller-owned pod adds 1 to its
  // controller's scale. Errors: InvalidArgument if the name is empty;
  // AlreadyExists if a pod has the namespace/name.
  absl::Status AddPod(v1::Pod pod);

  // Adds a Node, as the kubelet does when it registers (used by
  // FakeNodeLifecycle, karpenter/testing/fake_node_lifecycle.h, to turn a
  // launched NodeClaim into a node). A missing creationTimestamp becomes
  // clock.Now(). Controller-owned pods recreated from now on may land on it
  // (the placement rule). With kKubeScheduler, pending pods are retried,
  // and every DaemonSet the fake has seen a pod of (its first pod is the
  // template) gets a pod pinned to the node when the template's node
  // selector, required node affinity and tolerations admit it, as the
  // DaemonSet controller does (daemon_controller.go).
  // Errors: InvalidArgument if the name is empty; AlreadyExists if a Node
  // has the name.
  absl::Status AddNode(v1::Node node);

  // Replaces the NodeClaim's whole status (nodeName, providerID,
  // capacity, conditions, ...), as Karpenter's NodeClaim lifecycle
  // controller writes it on launch, registration and initialisation.
  // Errors: InvalidArgument if `node_claim` is empty; NotFound.
  absl::Status SetNodeClaimStatus(absl::string_view node_claim,
                                  v1::NodeClaimStatus status);

  // Replaces the NodePool named like `node_pool` whole (keeping its place in
  // Read()), or appends it if there is none, as `kubectl apply` of an
  // edited NodePool would (e.g. new budgets, or a template change that
  // drifts its nodes by hash). Errors: InvalidArgument if the name is empty.
  absl::Status ApplyNodePool(v1::NodePool node_pool);

  // Adds a VolumeAttachment, as the attach/detach controller does when a
  // pod using a PV is scheduled; it is detached by the rule in the file
  // comment. Errors: InvalidArgument if the name is empty; AlreadyExists if
  // an attachment has the name.
  absl::Status AddVolumeAttachment(v1::VolumeAttachment va);

  // Sets the Node's Ready condition to "True" or "False" (adding it if
  // absent; lastTransitionTime = now when the status changes), as a kubelet
  // that stops or resumes reporting leaves it. Pods are not touched. Not a
  // ClusterView call: no fault injection, no CallLog line. Errors:
  // InvalidArgument if `node` is empty; NotFound.
  absl::Status SetNodeReady(absl::string_view node, bool ready);

  // A Job-owned pod carrying this annotation (a Go duration, e.g. "20m")
  // succeeds that long after it starts running: after it turns Ready, or
  // for a pod loaded running, after its status.startTime (the load time if
  // unset). Scenario workloads with `job` and `duration` carry it.
  static constexpr absl::string_view kRunForAnnotationKey =
      "sim.karpenter-sdk.dev/run-for";

  // The pod's containers exited 0, as a finished Job's pod: phase
  // Succeeded, Ready False (reason PodCompleted). A terminal pod is not
  // replaced by its controller, holds no resources and uses its volumes no
  // more. A pod already terminal is left as it is. Not a ClusterView call.
  // Errors: NotFound; FailedPrecondition if `pod.uid` is set and differs.
  absl::Status SucceedPod(const PodRef& pod);

  // An invariant check over the store as it is now (PlacementCheck): no pod
  // bound where its node selector, required node affinity or host ports
  // forbid, no node over its allocatable (requests as
  // scheduling::PodRequests; a quantity that does not parse counts 0), and
  // the pods still pending. Taints are not checked: a NoSchedule taint
  // added after a pod was bound does not move it. O(pods). Not logged.
  PlacementCheck CheckPlacement();

  // Whether some pod waits for the scheduler (kKubeScheduler: queued or
  // Unschedulable); false with kFirstNode. Cheap: for a provisioner that
  // reads the cluster only when there is something to provision.
  bool HasUnschedulablePods();

  // The name of the Node the pod (by namespace and name; the UID is not
  // compared) is bound to, or "" if there is no such pod, it is not bound
  // or its Node is gone: where an observer places an eviction it saw,
  // without reading every pod. Not a ClusterView call. O(log pods).
  std::string NodeOfPod(const PodRef& pod);

  // The objects Read() would build its snapshot from, as of now, for a
  // caller that keeps a copy to serve later (a lagging cache). Not a
  // ClusterView call: no fault injection, no CallLog line.
  snapshot::ObjectSet ExportObjects();

  // Read() without Pods and PodDisruptionBudgets, for observers that only
  // look at Nodes, NodeClaims and NodePools: taken from the same mirror as
  // Read() (state::ClusterState::TakeSnapshotWithoutPods), so it copies no
  // kind that did not change since the last read. Not a ClusterView call:
  // no fault injection, no CallLog line.
  absl::StatusOr<snapshot::Snapshot> ReadWithoutPods();

  // A self-check for tests: applies the due transitions, brings the
  // state::ClusterState that Read() takes its snapshots from up to date and
  // compares its objects with ExportObjects(), list by list, object for
  // object, in order. OK if equal (so Read() equals Snapshot::Build over
  // ExportObjects()); otherwise Internal naming the list, the index and the
  // object, e.g. `FakeCluster mirror: nodes[2]: "b" differs from the
  // store's "c"`. It first checks that every PDB's memoised status equals
  // a recount (Internal naming the PDB otherwise). Not logged, not subject
  // to FailNext.
  absl::Status CheckReadMirror();

  // Applies every transition due at clock.Now(). Every other call does so
  // first too; Settle() is for a test that only moved the clock.
  void Settle();

  // The instant of the earliest pending transition, or nullopt if none. It
  // may turn out to be a no-op (a removal superseded by an earlier one).
  std::optional<absl::Time> NextEventTime() const;

  // Steps `clock` to each pending transition at or before `limit` in turn,
  // applying it (transitions scheduled by others are followed too), then
  // sets `clock` to `limit`. Errors: FailedPrecondition if `clock` is not
  // the clock the fake was created with; InvalidArgument if `limit` is
  // before clock.Now().
  absl::Status RunUntil(FakeClock& clock, absl::Time limit);

  // The next `n` Evict calls answer `response` (queued after any earlier
  // injection). With kInsteadOfCall nothing happens to the pod; with
  // kAfterCall the eviction runs (its real answer is logged) and `response`
  // replaces the answer. The counters count the answers returned. Errors:
  // InvalidArgument if `n` < 1, or if `response` is kEvicted (a fake 200 for an
  // eviction that did not happen would break the EvictionClient contract).
  absl::Status InjectEvictionFailures(
      int n, EvictionResponse response,
      FaultTiming timing = FaultTiming::kInsteadOfCall);

  // The next `times` calls of `method` return `status` (queued per method).
  // Errors: InvalidArgument if `status` is OK or `times` < 1.
  absl::Status FailNext(FakeMethod method, absl::Status status, int times = 1,
                        FaultTiming timing = FaultTiming::kInsteadOfCall);

  // Evict calls so far, and how many answered `result` (injected answers
  // included).
  int64_t evict_calls() const;
  int64_t EvictCount(EvictionResult result) const;

  // One line per call and per applied transition, in order, e.g.
  //   2024-01-01T00:00:00Z Evict default/web-1 uid=u1 -> 200
  //   2024-01-01T00:00:05Z recreate default/web-1 -> default/web-r1 on n2
  //   2024-01-01T00:00:40Z detach csi-1 from n1
  // Deterministic for a deterministic sequence of calls.
  std::vector<std::string> CallLog() const;

  // Every PdbViolation so far, in time order. Empty unless the fake is
  // broken.
  std::vector<PdbViolation> PdbViolations() const;

  // The live status of PDB `ns`/`name` (after applying due transitions).
  // Errors: NotFound naming the PDB.
  absl::StatusOr<PdbCounts> PdbStatus(absl::string_view ns,
                                      absl::string_view name);

 private:
  FakeCluster(Clock& clock, std::unique_ptr<internal::FakeClusterState> state);

  // Pops the next scripted fault of `method`, if any.
  std::optional<std::pair<absl::Status, FaultTiming>> TakeFault(
      FakeMethod method) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Applies due transitions, consults the fault script and the log, and runs
  // `op` for a ClusterView mutation.
  template <typename Op>
  absl::Status Mutate(FakeMethod method, absl::string_view args, Op op);

  Clock& clock_;
  mutable absl::Mutex mu_;
  std::unique_ptr<internal::FakeClusterState> state_ ABSL_GUARDED_BY(mu_);
};

}  // namespace karpenter::testing

#endif  // KARPENTER_TESTING_FAKE_CLUSTER_H_
