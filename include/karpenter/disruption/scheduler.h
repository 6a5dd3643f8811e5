// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Scheduler: the consolidation and drift scheduling simulation ("if these
// candidates went away, where would their pods go?"), an implementation of
// SchedulingSimulator over one Snapshot and the hosts' instance type
// catalogue.
//
// Ports the parts of Karpenter pkg/controllers/disruption/helpers.go
// `SimulateScheduling` and pkg/controllers/provisioning/scheduling
// (scheduler.go, existingnode.go, nodeclaim.go) that deprovisioning needs
// (docs/semantics.md §2.4 IsCurrentlyReschedulable, §2.6, §2.7, §9), with
// kube-scheduler's Filter plugins for existing nodes
// (pkg/scheduler/framework/plugins/ in kubernetes/kubernetes, through
// karpenter/scheduling/*.h).
//
// What moves: the candidates' `reschedulable_pods` that are currently
// reschedulable (no active do-not-disrupt at SimulatorOptions::now, not
// selected by a fully blocking PDB), plus the currently reschedulable pods
// of nodes already deleting (deletionTimestamp on the Node or its NodeClaim,
// or a `karpenter.sh/disrupted` taint). Pods of candidates that do not move
// (DaemonSet, mirror, do-not-disrupt, fully PDB-blocked) get no capacity.
// The simulated cluster has no candidates (they are no topology domain and
// their pods count nowhere) and the moving pods have left their nodes.
//
// Where they may go, in this order:
//   1. Existing nodes that are not candidates, not deleting, not
//      `spec.unschedulable`, with condition Ready=True, where the pod passes
//      every kube-scheduler Filter plugin the SDK implements:
//      TaintToleration, NodeAffinity (nodeSelector and required node
//      affinity, scheduling/node_selector.h), NodePorts
//      (scheduling/node_ports.h), NodeResourcesFit (free capacity =
//      `status.allocatable`, or `status.capacity` when allocatable is
//      empty, minus the requests of the node's non-terminal pods;
//      scheduling/node_resources.h), NodeVolumeLimits, VolumeBinding and
//      VolumeZone (scheduling/volumes.h), PodTopologySpread and
//      InterPodAffinity (scheduling/pod_topology.h). Each pod placed counts
//      for the pods placed after it (resources, host ports, CSI volumes,
//      spread and affinity counts). Placement is first-fit-decreasing: pods
//      by descending cpu, then memory, then namespace/name; nodes in one
//      fixed order computed by Build, least free cpu first (tight packing),
//      ties by node name. A pod no node takes carries kube-scheduler's
//      summary over every node that is not a candidate: "fits no remaining
//      node (0/5 nodes are available: 2 Insufficient cpu, 3 node(s) didn't
//      match pod topology spread constraints.)", each node counted under its
//      first failing plugin; nodes Karpenter excludes count as "node(s)
//      were not ready" / "node(s) were marked for deletion" / "node(s) were
//      unschedulable".
//   2. Otherwise a new NodeClaim, as Karpenter's provisioning scheduler
//      makes them (docs/semantics.md §9.3, §9.10): a NodeClaim already
//      opened in this simulation, in opening order, else a new one of the
//      first NodePool (not Ready=False; by descending weight, then name)
//      that takes the pod: taints tolerated, host ports free on the claim,
//      requirements Compatible with the pod's node selector and affinity
//      term and its volumes' topology, the claim narrowed to the topology
//      domains the pod's spread and (anti-)affinity allow (and other pods'
//      anti-affinity; domains from existing nodes and from the NodePools'
//      requirements and offerings; late committal of undecided claims), an
//      instance type left that holds the pods plus DaemonSet overhead and
//      fits in the NodePool's remaining spec.limits, and minValues met
//      (SimulatorOptions::min_values_policy). A pod that fails is retried
//      after the others while a round makes progress; one with preferences
//      is first tried with all of them required, then relaxed one at a
//      time (preferences.go). Simulate returns every NodeClaim opened;
//      consolidation refuses more than one.
//
// Approximations, each deliberate:
//   - DaemonSet overhead of a new node: per instance type, the DaemonSet
//     templates whose pods would run there (scheduling/daemon_overhead.h);
//     when the snapshot has no DaemonSet objects, the sum over the
//     DaemonSets with a pod on the NodePool's nodes of the per-resource
//     maximum request of those pods.
//   - An instance type's `capacity` is taken as its allocatable: hosts
//     should give capacity net of kube-reserved, system-reserved and
//     eviction thresholds (Karpenter's InstanceType.Allocatable()). A
//     resource missing from it is 0.
//   - A pod's requests, for the pod placed and for the pods already on a
//     node alike, are scheduling::PodRequests (scheduling/resources.h):
//     sidecar init containers (`restartPolicy: Always`) count beside the
//     containers, pod-level `spec.resources` overrides cpu, memory and
//     hugepages, `spec.overhead` is added, a container without a
//     request for a resource but with a limit requests its limit (the API
//     server's defaulting, for manifests that did not pass through it), and
//     a container's status after an in-place resize counts as in Karpenter
//     v1.14.0 (the max of spec, actuated and allocated requests).
//   - Existing nodes pass kube-scheduler's PodTopologySpread (domains of
//     the nodes) and then Karpenter's topology (also the NodePools'
//     domains and pods on new NodeClaims whose domain is decided).
//   - A node affinity term with matchFields is never used for a new
//     NodeClaim (its name is not known in advance).
//   - A pod whose constraints cannot be evaluated (a namespaceSelector on
//     labels other than kubernetes.io/metadata.name, since Namespace objects
//     are not read; constraints or volumes that do not compile) makes the
//     result `unsupported` rather than wrong.
//   - Not simulated: VolumeRestrictions (ReadWriteOncePod, disk
//     conflicts), storage capacity, in-tree volume limits, DRA claims,
//     PreferNoSchedule taints of existing nodes, the Strict
//     reserved-offering mode.
//
// Thread-safety: immutable after Build; Simulate may be called concurrently.
// A Scheduler keeps a pointer to the Snapshot it was built over, which must
// outlive it; the catalogue is copied.
#ifndef KARPENTER_DISRUPTION_SCHEDULER_H_
#define KARPENTER_DISRUPTION_SCHEDULER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "karpenter/cloud_provider.h"
#include "karpenter/disruption/snapshot_facts.h"
#include "karpenter/disruption/types.h"
#include "karpenter/requirements.h"
#include "karpenter/scheduling/filter_status.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/core.pb.h"

namespace karpenter::disruption {

// What a new NodeClaim does when its NodePool's minValues cannot be met
// (Karpenter's --min-values-policy): kStrict, no NodeClaim; kBestEffort, the
// NodeClaim is made anyway and annotated
// karpenter.sh/nodeclaim-min-values-relaxed=true.
enum class MinValuesPolicy { kStrict, kBestEffort };

struct SimulatorOptions {
  // The instant do-not-disrupt durations are evaluated at.
  absl::Time now = absl::UnixEpoch();
  // Also place pending pods (unbound, not terminal, not terminating) before
  // the moving pods, as Karpenter's SimulateScheduling does, so that they
  // take their share of the existing free capacity. A pending pod that fits
  // no existing node is dropped: it never sizes a replacement and never
  // makes the result unschedulable (Karpenter ignores pending pods' errors).
  bool include_pending_pods = false;
  MinValuesPolicy min_values_policy = MinValuesPolicy::kStrict;
};

// A pod's resource requests as the scheduler sees them, in milli-units:
// forwards to scheduling::PodRequests (scheduling/resources.h), which
// documents the rule (containers, sidecar and plain init containers,
// in-place resize status, pod-level resources, spec.overhead, "pods" =
// 1000) and the errors.
// Resource names are sorted. Kept for existing callers; new code should
// call scheduling::PodRequests.
absl::StatusOr<std::vector<std::pair<std::string, int64_t>>> PodRequests(
    const v1::Pod& pod);

// The lowest price among the available offerings of `type` whose zone and
// capacity type `allowed` admits (keys topology.kubernetes.io/zone and
// karpenter.sh/capacity-type; a key `allowed` does not define admits every
// value). Nullopt if there is none. Does not look at the type's labels.
std::optional<double> CheapestOffering(const InstanceType& type,
                                       const Requirements& allowed);

class Scheduler final : public SchedulingSimulator {
 public:
  // Indexes `snapshot` once: free capacity of every node, the fixed node
  // order, every pod's requests and scheduling constraints, each NodePool's
  // template (requirements, labels, taints) and DaemonSet overhead, and the
  // parsed capacities of `catalog`. O(objects + catalogue). `snapshot` must
  // outlive the Scheduler.
  //
  // Errors (InvalidArgument, naming the object and field and quoting the
  // value):
  //   - a bad quantity in a non-terminal pod bound to a node, or in a
  //     pending pod when include_pending_pods:
  //     `pods/ns/name: spec.containers[0].resources.requests.cpu: ...`;
  //   - a bad quantity in a node's allocatable/capacity:
  //     `nodes/name: status.allocatable.cpu: ...`;
  //   - a bad requirement in a NodePool template or a pod's required node
  //     affinity (`nodepools/name: spec.template.spec.requirements[0]...`,
  //     `pods/ns/name: spec.affinity.nodeAffinity...`);
  //   - a bad capacity quantity in the catalogue:
  //     `instance type "m5.large" of NodePool "default": capacity.cpu: ...`.
  static absl::StatusOr<Scheduler> Build(const snapshot::Snapshot& snapshot,
                                         const InstanceTypeCatalog& catalog,
                                         SimulatorOptions options = {});

  // As above over prebuilt SnapshotFacts (snapshot_facts.h). `facts` and
  // `catalog` (not copied) must outlive the Scheduler. Only the catalogue's
  // quantities are checked and the do-not-disrupt pods evaluated at
  // options.now, O(NodePools x instance types + pods with do-not-disrupt);
  // a NodePool's instance types are matched to its template on first use.
  // Errors: the facts' simulation_status(), the pending-pod error when
  // include_pending_pods, and the catalogue errors above.
  static absl::StatusOr<Scheduler> Build(const SnapshotFacts& facts,
                                         const InstanceTypeCatalog& catalog,
                                         SimulatorOptions options = {});

  Scheduler(Scheduler&&) noexcept;
  Scheduler& operator=(Scheduler&&) noexcept;
  ~Scheduler() override;

  // Simulates removing `candidates` (see the file comment). Pure and
  // deterministic: the same candidates give the same result. O(pods moved x
  // nodes considered) plus, for pods that need a new NodeClaim, O(pods x
  // instance types). A candidate pod index outside the snapshot is reported
  // as unschedulable (`pod #N: not in the snapshot`).
  SimulationResult Simulate(
      absl::Span<const Candidate> candidates) const override;
  // As Simulate, and a candidate's pods may not go to an existing node
  // still inside its NodePool's consolidateAfter at SimulatorOptions::now
  // (Karpenter v1.14 IsConsolidationSimulation; pending pods and pods of
  // deleting nodes may).
  SimulationResult SimulateConsolidation(
      absl::Span<const Candidate> candidates) const override;

  // What kube-scheduler's Filter plugins say of pod `pod` on every node of
  // the snapshot, the pod considered as if unbound (its requests and its
  // counts removed from the node it is bound to): by NodeIndex, every
  // failing plugin in kube-scheduler's order, empty when it fits. Nodes
  // that are not Ready or are being deleted fail with the pseudo-plugin
  // NodeReadiness, as Karpenter would not use them. O(nodes) plus the
  // spread and affinity counts.
  //
  // Errors: InvalidArgument for an index outside the snapshot;
  // FailedPrecondition for a terminal pod, or an unbound terminating one;
  // Unimplemented (naming the field) when its constraints cannot be
  // evaluated (see pod_topology.h).
  absl::StatusOr<std::vector<std::vector<scheduling::FilterFailure>>> Fit(
      snapshot::PodIndex pod) const;

  // Where Karpenter's provisioner would put `pods` (pending pods of the
  // snapshot; others are reported unschedulable): existing nodes first,
  // then new NodeClaims, with no candidate removed. Pure and deterministic.
  struct Provisioned {
    // Pods placed on existing nodes, in placement order.
    std::vector<std::pair<snapshot::PodIndex, snapshot::NodeIndex>> existing;
    // The NodeClaims opened, in order, and the pods each takes.
    std::vector<Replacement> node_claims;
    std::vector<std::vector<snapshot::PodIndex>> claim_pods;
    // Pods that found no place, by index, with the reason.
    std::vector<std::pair<snapshot::PodIndex, std::string>> unschedulable;
  };
  Provisioned Provision(absl::Span<const snapshot::PodIndex> pods) const;

  // Where kube-scheduler would bind `pods` (pending pods of the snapshot,
  // in scheduling-queue order) on the existing nodes, with no NodeClaim
  // launched and no candidate removed: what a simulated cluster's scheduler
  // does. Each pod in turn is filtered on every node that is Ready, not
  // being deleted and not unschedulable, with the Filter plugins Fit
  // evaluates, and goes to the feasible node with the highest total score
  // of kube-scheduler's default profile (pkg/scheduler/apis/config/v1
  // default_plugins.go weights; each plugin's Go file for its score):
  //   - NodeResourcesFit, LeastAllocated (weight 1): per cpu and memory,
  //     (allocatable - requested) * 100 / allocatable, averaged; the pod's
  //     own cpu or memory counts as 100m / 200Mi when it requests none
  //     (kube-scheduler's non-zero defaults), the node's pods with their
  //     requests;
  //   - NodeResourcesBalancedAllocation (weight 1): (1 - |cpu fraction -
  //     memory fraction| / 2) * 100, fractions after the pod, capped at 1;
  //   - TaintToleration (weight 3): PreferNoSchedule taints the pod does not
  //     tolerate, normalized reversed over the feasible nodes (fewest: 100);
  //   - NodeAffinity (weight 2): the summed weights of the pod's preferred
  //     node affinity terms the node matches, normalized to 100 over the
  //     feasible nodes;
  //   - PodTopologySpread (weight 2): ScheduleAnyway constraints, or the
  //     system default spreading over the pods of the same controller;
  //   - InterPodAffinity (weight 2): the pod's preferred terms and the
  //     terms of pods already placed that select it
  //     (scheduling::TopologyState::PodTopologySpreadScore and
  //     InterPodAffinityScore, scheduling/pod_topology.h).
  // Not scored (adds nothing, on every node alike): ImageLocality. Every
  // feasible node is scored (kube-scheduler samples a share of the nodes
  // of a cluster over 100 nodes: percentageOfNodesToScore). Ties go to the
  // node whose
  // hash of (`seed`, pod key, node name) is lowest, where kube-scheduler
  // picks at random. Each pod bound counts for the pods after it
  // (resources, ports, volumes, spread and affinity counts). A pod with no
  // feasible node is unschedulable with kube-scheduler's message ("0/5
  // nodes are available: 2 Insufficient cpu, 3 node(s) had untolerated
  // taint {...}."). Pure and deterministic. O(pods x nodes).
  struct Bound {
    std::vector<std::pair<snapshot::PodIndex, snapshot::NodeIndex>> bound;
    // Pods not bound, in the order given, with the reason.
    std::vector<std::pair<snapshot::PodIndex, std::string>> unschedulable;
  };
  Bound Bind(absl::Span<const snapshot::PodIndex> pods, uint64_t seed) const;

 private:
  friend class SimulationPass;
  struct State;
  explicit Scheduler(std::unique_ptr<const State> state);
  std::unique_ptr<const State> state_;
};

}  // namespace karpenter::disruption

#endif  // KARPENTER_DISRUPTION_SCHEDULER_H_
