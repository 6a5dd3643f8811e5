// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Termination decisions: where the graceful termination of one Node (or the
// finalization of one NodeClaim) stands, derived from observed state only,
// and the actions to take now, in Karpenter's order.
//
// Ports Karpenter's node termination controller
// (pkg/controllers/node/termination/controller.go `finalize`), the NodeClaim
// lifecycle finalizer (pkg/controllers/nodeclaim/lifecycle/controller.go
// `finalize`) and pkg/utils/termination `EnsureTerminated`
// (docs/semantics.md §4.1, §4.2, §7.2, §7.3). For a deleting Node that
// carries the `karpenter.sh/termination` finalizer, one DecideNode call
// walks the reconcile to its first wait:
//   1. the NodeClaim (by providerID) is deleted if it is not deleting; zero
//      or several NodeClaims stop the termination (Karpenter's terminal
//      "expected a single associated nodeclaim" error);
//   2. a Node whose Ready condition is not True and whose instance the
//      cloud reports gone loses its finalizer at once, without a drain (the
//      cloud is asked first: Step::kCheckInstance);
//   3. taint `karpenter.sh/disrupted:NoSchedule` and label
//      `node.kubernetes.io/exclude-from-external-load-balancers=karpenter`;
//   4. drain: NodeClaim condition Drained=Unknown (Draining), then the
//      tiered drain (drain/tiers.h) until no pod waits, requeue 1 s; then
//      at least MinDrainTime (5 s) after Drained turned Unknown, to catch
//      pods the scheduler placed before it saw the taint; then Drained=True
//      (`karpenter_nodes_drained_total`), requeue 1 s;
//   5. volumes: VolumesDetached=True once no VolumeAttachment of a drainable
//      pod remains (termination/volumes.h); while some remain,
//      Unknown (AwaitingVolumeDetachment), requeue 1 s, unless the node
//      deadline has passed: then False (TerminationGracePeriodElapsed);
//   6. instance: the first time, cloud Delete and InstanceTerminating=True;
//      afterwards cloud Get, requeue 5 s, until the provider answers
//      NotFound;
//   7. remove the Node finalizer (`karpenter_nodes_terminated_total`,
//      `..._termination_duration_seconds`, `..._lifetime_duration_seconds`).
// A managed Node that is not deleting only gets the finalizer added.
//
// Decisions are pure: no host call, no clock. The one fact a snapshot cannot
// show, whether the cloud instance still exists, is an input
// (InstanceObservation) that the executor fills in by performing the
// decision's kGetInstance / kDeleteInstance action and deciding again. So a
// host that restarts at any point, with its eviction queue lost, reads the
// cluster and continues where the cluster says it is; every mutation is
// emitted only when the observed state lacks it, so none is repeated.
//
// Thread-safety: pure functions, safe to call concurrently.

#ifndef KARPENTER_TERMINATION_DECIDE_H_
#define KARPENTER_TERMINATION_DECIDE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "karpenter/cluster_view.h"
#include "karpenter/drain/deadline.h"
#include "karpenter/drain/tiers.h"
#include "karpenter/event_recorder.h"
#include "karpenter/metrics.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/meta.pb.h"

namespace karpenter::termination {

// Karpenter's intervals (termination/controller.go).
inline constexpr absl::Duration kMinDrainTime = absl::Seconds(5);
inline constexpr absl::Duration kShortRequeue = absl::Seconds(1);
inline constexpr absl::Duration kInstanceRequeue = absl::Seconds(5);

// What the caller knows about the node's cloud instance.
enum class InstanceObservation {
  kUnknown,  // Not asked yet in this reconcile.
  kExists,   // Get or Delete answered: it still exists.
  kGone,     // The provider answered NotFound.
};

struct DecideOptions {
  // An external deadline (e.g. drain::SpotInterruptionDeadline), combined
  // with the NodeClaim's as the earlier (drain/deadline.h NodeDeadline).
  std::optional<absl::Time> external_deadline;
  // Karpenter's MinDrainTime. Must be >= 0.
  absl::Duration min_drain_time = kMinDrainTime;

  // Not for production: each switch weakens a guard so the fault-injection
  // harness (tests/sim) can prove it catches the bug. Never set outside
  // tests.
  struct ForTest {
    // Once InstanceTerminating is True the instance is taken as gone, so a
    // Node's finalizer comes off while its instance may still run.
    bool finalizer_before_instance_gone = false;
  };
  ForTest for_test;
};

// Where a termination stands. Node steps first, then NodeClaim-only steps.
enum class Step {
  kGone,               // The object is not in the snapshot.
  kNotManaged,         // Node: no NodeClaim and no karpenter.sh/nodepool label.
  kAddFinalizer,       // Not deleting, finalizer missing.
  kActive,             // Not deleting, finalizer present: nothing to do.
  kReleased,           // Deleting without our finalizer: the API server has it.
  kNoNodeClaim,        // Node deleting with zero or several NodeClaims: stuck.
  kCheckInstance,      // Node not Ready: ask whether the instance exists.
  kInstanceGone,       // Not Ready and instance gone: finalizer removed.
  kDraining,           // Pods still wait for eviction or deletion.
  kAwaitMinDrainTime,  // Drained, within MinDrainTime of Drained=Unknown.
  kMarkDrained,        // Setting Drained=True.
  kAwaitVolumeDetachment,     // VolumeAttachments of drainable pods remain.
  kMarkVolumesDetached,       // Setting VolumesDetached True or False.
  kTerminateInstance,         // First cloud Delete.
  kAwaitInstanceTermination,  // Polling the cloud until NotFound.
  kRemoveFinalizer,           // Done: finalizer removed.
  kAwaitNodeDeletion,         // NodeClaim: its Node still exists.
};

// Stable name, e.g. "Draining".
absl::string_view StepName(Step step);

enum class ActionKind {
  kAddFinalizer,     // ClusterView::AddFinalizer(object, name, finalizer).
  kRemoveFinalizer,  // ClusterView::RemoveFinalizer(object, name, ...).
  kDeleteNode,       // ClusterView::DeleteNode(name).
  kDeleteNodeClaim,  // ClusterView::DeleteNodeClaim(name).
  kTaintNode,        // ClusterView::TaintNode(name, taint).
  kSetLabel,         // ClusterView::SetLabel(object, name, key, value).
  kSetAnnotation,    // ClusterView::SetAnnotation(object, name, key, value).
  kSetCondition,     // ClusterView::SetNodeClaimCondition(name, condition).
  kDrain,            // Hand Node `name` to the drainer (drain/drainer.h).
  kGetInstance,      // CloudProvider::Get(provider_id).
  kDeleteInstance,   // CloudProvider::Delete(provider_id).
  kRecordEvent,      // EventRecorder::Record(event).
};

// Stable name, e.g. "TaintNode".
absl::string_view ActionKindName(ActionKind kind);

// A metric sample to record once its action succeeded.
struct MetricSample {
  enum class Verb { kAdd, kObserve };
  Verb verb = Verb::kAdd;
  std::string name;
  MetricLabels labels;
  double value = 0;

  friend bool operator==(const MetricSample&, const MetricSample&) = default;
};

// One action. Only the fields of its kind are set.
struct Action {
  ActionKind kind = ActionKind::kRecordEvent;
  ObjectKind object = ObjectKind::kNode;
  // The Node or NodeClaim acted on (the NodeClaim for kSetCondition).
  std::string name;
  // Finalizer (kAdd/RemoveFinalizer), label or annotation key and value.
  std::string key;
  std::string value;
  v1::Taint taint;
  v1::Condition condition;
  std::string provider_id;
  Event event;
  // Recorded through Metrics when the action succeeded.
  std::vector<MetricSample> on_success;

  // One line, e.g. `TaintNode node/n1 karpenter.sh/disrupted:NoSchedule`.
  std::string Describe() const;
};

// The decision for one Node or NodeClaim at one instant.
struct Decision {
  ObjectKind object = ObjectKind::kNode;
  std::string name;
  Step step = Step::kGone;
  // Why the termination is at this step, e.g. "3 pods are waiting to be
  // evicted" or "instance aws:///z/i-1 still exists".
  std::string reason;
  // In order; the executor stops at the first failure.
  std::vector<Action> actions;
  // When to decide again if nothing changes (1 s or 5 s as Karpenter);
  // nullopt: only a change in the cluster matters.
  std::optional<absl::Duration> requeue_after;
  // The node deadline T, if any.
  std::optional<drain::Deadline> deadline;
  // Node steps from kDraining on: the drain pass at this instant.
  std::optional<drain::DrainPass> drain;
  // The NodeClaim's Drained, VolumesDetached and InstanceTerminating
  // conditions as they are after the actions (absent ones omitted).
  std::vector<v1::Condition> conditions;
  // The NodeClaim of a Node decision, if exactly one.
  std::string node_claim;
  // The instance's provider ID, if known.
  std::string provider_id;

  // Multi-line rendering: step, reason, then one line per action.
  std::string Describe() const;
};

// Decides for Node `node` of `snapshot` at `now`, given what the caller
// observed of its instance in this reconcile (see the file comment).
// Errors (kInvalidArgument, naming the field and value): an unparsable
// termination-timestamp annotation or terminationGracePeriod on the
// NodeClaim; a negative min_drain_time; a volume or pod error from the
// drain planning. A missing node is not an error (Step::kGone).
absl::StatusOr<Decision> DecideNode(
    const snapshot::Snapshot& snapshot, absl::string_view node, absl::Time now,
    const DecideOptions& options = {},
    InstanceObservation instance = InstanceObservation::kUnknown);

// Decides for NodeClaim `node_claim` (Karpenter's lifecycle finalizer):
// add the finalizer if it is not deleting; when deleting with the
// finalizer: record the termination-timestamp annotation
// (deletionTimestamp + terminationGracePeriod, RFC 3339, never changed once
// set; event TerminationGracePeriodExpiring), delete its Node (found by
// `status.nodeName` with a matching providerID) if Registered=True and wait
// for it to go, terminate the instance as DecideNode step 6, remove the
// finalizer (`karpenter_nodeclaims_terminated_total`,
// `..._termination_duration_seconds`). A NodeClaim without a providerID never
// launched: no cloud call.
// Errors (kInvalidArgument): an unparsable terminationGracePeriod.
absl::StatusOr<Decision> DecideNodeClaim(
    const snapshot::Snapshot& snapshot, absl::string_view node_claim,
    absl::Time now,
    InstanceObservation instance = InstanceObservation::kUnknown);

}  // namespace karpenter::termination

#endif  // KARPENTER_TERMINATION_DECIDE_H_
