// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The tables of SnapshotFacts (karpenter/disruption/snapshot_facts.h) that
// the candidate pool and the scheduler read. Internal: views point into the
// Snapshot the facts were built over.
#ifndef KARPENTER_SRC_DISRUPTION_FACTS_INTERNAL_H_
#define KARPENTER_SRC_DISRUPTION_FACTS_INTERNAL_H_

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "karpenter/budget/disruption_spec.h"
#include "karpenter/budget/pdb.h"
#include "karpenter/disruption/controls.h"
#include "karpenter/drain/do_not_disrupt_window.h"
#include "karpenter/requirements.h"
#include "karpenter/scheduling/daemon_overhead.h"
#include "karpenter/scheduling/node_ports.h"
#include "karpenter/scheduling/node_resources.h"
#include "karpenter/scheduling/pod_topology.h"
#include "karpenter/scheduling/resources.h"
#include "karpenter/scheduling/volumes.h"
#include "karpenter/snapshot/snapshot.h"

namespace karpenter::disruption::internal {

inline constexpr uint32_t kNoIndex = 0xFFFFFFFF;

// What the candidate rules read of one Node. Strings are copies, not views:
// a pass copies them into its Candidates, and reading them from one
// contiguous table is much cheaper than from the scattered protos.
struct NodeFacts {
  std::string name;
  // The Node's NodeClaim (by providerID, else by status.nodeName), or
  // kNoIndex.
  uint32_t claim = kNoIndex;
  std::string provider_id;
  std::string pool_label;
  uint32_t pool = kNoIndex;  // The NodePool `pool_label` names, if any.
  std::string instance_type;
  std::string zone;
  std::string capacity_type;
  bool disrupted_taint = false;  // karpenter.sh/disrupted:NoSchedule.
  bool initialized = false;      // karpenter.sh/initialized == "true".
  bool do_not_disrupt = false;   // karpenter.sh/do-not-disrupt == "true".
  // The Node's valid do-not-disrupt window (SDK extension, issue 26);
  // evaluated at the pass's instant. Null without one, and for invalid
  // annotations (absent). A pointer: most nodes have none.
  std::shared_ptr<const drain::DoNotDisruptWindow> window;
  bool deleting = false;  // Node deletionTimestamp.
  bool ready = false;     // Ready=True.
};

// What the candidate rules read of one Node's pods.
struct NodePodFacts {
  // docs/semantics.md §2.11 sums over the node's pods.
  double eviction_cost = 0;
  double reschedule_cost = 1;
  // Karpenter's StateNode.DisruptionCost (statenode.go `updateForPod`), the
  // Balanced score's cost of a node that is not a candidate: 1 plus the
  // positive eviction costs of its pods that are neither terminal nor owned
  // by a DaemonSet (mirror and terminating pods count).
  double state_cost = 1;
  // Rule 10: the first active pod a PDB blocks (kNoIndex if none), and the
  // verdict code and message it gives.
  uint32_t pdb_block_pod = kNoIndex;
  absl::string_view pdb_block_code;
  std::string pdb_block_message;
};

// What the candidate rules read of one NodeClaim.
struct ClaimFacts {
  std::string name;
  std::string provider_id;
  std::string pool_label;
  uint32_t pool = kNoIndex;  // The NodePool `pool_label` names, if any.
  absl::Time created = absl::UnixEpoch();
  bool has_termination_grace_period = false;
  // spec.expireAfter: nullopt for Never or unset.
  std::optional<absl::Duration> expire_after;
  absl::Status expire_after_error;
  // deletionTimestamp or InstanceTerminating=True.
  bool deleting = false;
  bool disruption_reason = false;  // DisruptionReason=True.
  // Drifted=True: since its lastTransitionTime, with its reason.
  std::optional<absl::Time> drifted_since;
  std::string drift_reason;
  // The first Drifted condition with status True (the controller's mark
  // when drift evaluation changes nothing): its transition time and reason.
  std::optional<absl::Time> true_drifted_since;
  std::string true_drifted_reason;
  // Initialized=True: lastPodEventTime if set, else the transition time.
  std::optional<absl::Time> consolidation_start;
};

// What the candidate rules read of one NodePool.
struct PoolFacts {
  std::string spec_error;  // ParseDisruptionSpec's, or "".
  bool is_static = false;  // spec.replicas is set.
  budget::ConsolidationPolicy policy =
      budget::ConsolidationPolicy::kWhenEmptyOrUnderutilized;
  std::optional<absl::Duration> consolidate_after;  // nullopt: Never.
  // The SDK controls (controls.h); Karpenter's defaults when
  // `controls_error` (ParseNodePoolControls's message) is set.
  NodePoolControls controls;
  std::string controls_error;
};

// An immutable table, shared by the facts of successive snapshots that
// hold the parts it was computed from (copying one is a pointer copy).
template <typename T>
class SharedTable {
 public:
  SharedTable() = default;
  explicit SharedTable(std::vector<T> rows)
      : rows_(std::make_shared<const std::vector<T>>(std::move(rows))) {}
  const T& operator[](size_t i) const { return (*rows_)[i]; }
  size_t size() const { return rows_ != nullptr ? rows_->size() : 0; }

 private:
  std::shared_ptr<const std::vector<T>> rows_;
};

// What the candidates' pod walk reads of a pod, all of it its shape's
// (snapshot.h): computed once per shape id.
struct ShapeWalk {
  bool known = false;
  double cost = 0;        // EvictionCost.
  bool active = false;    // Neither terminating nor terminal.
  bool mirror = false;    // Owned by its Node.
  bool terminal = false;  // Succeeded or Failed.
  bool daemon = false;    // Owned by a DaemonSet.
  bool reschedulable = false;
  // A duration-based do-not-disrupt only lapses as time passes, so one
  // inactive at the infinite past is never active. At the infinite past a
  // duration is active with or without status.startTime (absent: fail
  // safe), so the shape, which has no startTime, answers as the pod would.
  // A do-not-disrupt window (SDK extension) recurs instead of lapsing:
  // EvaluateDoNotDisrupt reports a valid one active at the infinite past,
  // and the pass decides it at its own instant.
  bool do_not_disrupt = false;
  // Tolerates karpenter.sh/disrupted:NoSchedule (never PDB-blocked here).
  bool tolerates_disrupted = false;
};

struct CandidateFacts {
  SharedTable<PoolFacts> pools;         // By NodePoolIndex.
  SharedTable<NodeFacts> nodes;         // By NodeIndex.
  SharedTable<ClaimFacts> claims;       // By NodeClaimIndex.
  std::vector<NodePodFacts> node_pods;  // By NodeIndex.
  std::vector<uint32_t> node_order;     // NodeIndex, by name.
  std::vector<uint32_t> claim_order;    // NodeClaimIndex, by name.
  // CSR by NodeIndex: the node's IsReschedulable pods, in snapshot order.
  std::vector<uint32_t> reschedulable_offsets = {0};
  std::vector<snapshot::PodIndex> reschedulable;
  // CSR by NodeIndex: the node's active pods whose do-not-disrupt may be
  // active at some time (evaluated at the pass time), in snapshot order.
  std::vector<uint32_t> do_not_disrupt_offsets = {0};
  std::vector<snapshot::PodIndex> do_not_disrupt;
  // Nodes NodesToCleanUp would return with no command in flight, by name.
  std::vector<uint32_t> marked_nodes;
  // By shape id: what the walk read of each shape (known once read).
  std::vector<ShapeWalk> shapes;

  absl::Span<const snapshot::PodIndex> Reschedulable(uint32_t n) const {
    return absl::MakeConstSpan(
        reschedulable.data() + reschedulable_offsets[n],
        reschedulable.data() + reschedulable_offsets[n + 1]);
  }
  absl::Span<const snapshot::PodIndex> DoNotDisrupt(uint32_t n) const {
    return absl::MakeConstSpan(
        do_not_disrupt.data() + do_not_disrupt_offsets[n],
        do_not_disrupt.data() + do_not_disrupt_offsets[n + 1]);
  }
};

// `nodes_from`, when given, is the CandidateFacts of a snapshot holding the
// same Nodes, NodeClaims and NodePools as `snapshot` (the same parts,
// snapshot/snapshot_parts.h): what depends on those alone (pools, claims,
// each node's own facts, the orders, the marked nodes) is copied from it,
// and only the pod aggregates are computed again. `shapes_from`, when
// given, is the CandidateFacts of a snapshot holding the shapes that
// `same_shapes` (snapshot::internal::SnapshotParts::SameShapes) maps
// `snapshot`'s to: what the walk read of those is copied. The result is the
// same.
CandidateFacts BuildCandidateFacts(const snapshot::Snapshot& snapshot,
                                   const budget::PdbIndex& pdbs,
                                   const CandidateFacts* nodes_from = nullptr,
                                   const CandidateFacts* shapes_from = nullptr,
                                   absl::Span<const uint32_t> same_shapes = {});

// The scheduling constraints shared by pods with equal tolerations,
// nodeSelector, affinity and spread constraints.
struct Profile {
  // One way a pod may be placed on a new NodeClaim: its nodeSelector plus
  // one required node affinity term.
  struct Term {
    Requirements requirements;
    std::vector<v1::NodeSelectorRequirement> protos;
  };
  const v1::Pod* pod = nullptr;  // The shape of any pod of the profile.
  bool has_required_affinity = false;
  // Terms usable on a new NodeClaim, in order (matchFields terms left out).
  std::vector<Term> terms;
};

enum SchedulerPodFlag : uint8_t {
  kIndexed = 1,  // Requests parsed: non-terminal and bound.
  kPending = 2,  // Requests parsed: unbound, not terminating.
  kMovable = 4,  // Disruptable and not fully PDB-blocked.
  // Indexed, not fully blocked, but do-not-disrupt may be active: movable
  // is decided at the simulation's `now`.
  kDoNotDisruptAtNow = 8,
};

// A NodePool's template as the scheduler reads it.
struct PoolBase {
  const v1::NodePool* pool = nullptr;
  Requirements base;  // Template requirements, labels and the pool label.
  // DaemonSet overhead, per dimension, from the DaemonSet pods on the
  // pool's nodes; left zero when the snapshot has DaemonSets (their
  // templates give each new node's overhead: daemon_overhead).
  std::vector<int64_t> overhead;
  int32_t weight = 0;  // spec.weight (0 when unset).
  bool ready = true;   // Not Ready=False.
  // spec.limits, by resource name (sorted), in milli-units.
  std::vector<std::string> limit_keys;
  std::vector<int64_t> limits;
  // The pool's nodes that are not deleting, with their status.capacity
  // per limit key (Karpenter subtracts state nodes' capacity).
  std::vector<std::pair<snapshot::NodeIndex, std::vector<int64_t>>> usage;
};

// The Snapshot-only tables of the scheduling simulation.
struct SchedulerBase {
  const snapshot::Snapshot* snap = nullptr;
  // ShapeFlag bits by shape id, as far as computed; 0: not yet.
  std::vector<uint8_t> shape_flags;
  // Each indexed shape's requests by shape id (null: not indexed), shared
  // with the bases of later snapshots holding the same shape.
  std::vector<std::shared_ptr<const scheduling::PodRequestList>> shape_requests;
  std::vector<std::string> dims;
  size_t d = 0;
  // Requests: per pod its row of `req_rows` (rows of d values: row 0 all
  // zero, for the pods that are not indexed, then one per indexed shape).
  std::vector<uint32_t> pod_req_row;
  std::vector<int64_t> req_rows;
  // Each shape's row of `req_rows` (0 when not indexed).
  std::vector<uint32_t> shape_row;
  std::vector<uint8_t> pod_flags;
  std::vector<int32_t> pod_profile;  // -1 when not indexed
  std::vector<Profile> profiles;
  // Per profile, the ProfileKey it was made for ("" for a preference
  // variant's, never looked up); per indexed shape its profile (-1: not
  // indexed).
  std::vector<std::string> profile_keys;
  std::vector<int32_t> shape_profile;
  std::vector<int64_t> node_free;   // nodes x d
  std::vector<int64_t> node_alloc;  // nodes x d: allocatable (or capacity)
  std::vector<uint8_t> node_deleting;
  std::vector<uint8_t> node_uninitialized;  // NodeClaim not initialized.
  // Until when node n is inside its NodePool's consolidateAfter (its
  // NodeClaim's lastPodEventTime, else its Initialized transition, plus
  // consolidateAfter); InfinitePast when it never is.
  std::vector<absl::Time> node_quiet_until;
  std::vector<snapshot::NodeIndex> node_order;  // Targets, placement order.
  // Each node's place among the nodes sorted by name (node_order's tie
  // break).
  std::vector<uint32_t> node_name_rank;
  // IsReschedulable pods of deleting nodes (movable or not).
  std::vector<std::pair<snapshot::PodIndex, snapshot::NodeIndex>> deleting_pods;
  std::vector<snapshot::PodIndex> pending_pods;
  // The pods flagged kDoNotDisruptAtNow, ascending.
  std::vector<snapshot::PodIndex> do_not_disrupt_pods;
  // The first error among pending pods (reported with include_pending_pods).
  absl::Status pending_status;
  // By NodePool name; shared between the bases of successive snapshots
  // holding the same NodePools and Nodes while no DaemonSet-pod overhead
  // is summed into it.
  using PoolMap = std::map<std::string, PoolBase, std::less<>>;
  std::shared_ptr<const PoolMap> pool_map = std::make_shared<const PoolMap>();
  const PoolMap& pools() const { return *pool_map; }
  // Topology spread and pod (anti-)affinity: the counts' index, and per
  // indexed pod shape its compiled constraints (an index into
  // `constraints`, kNoConstraints, or kUnsupported with the reason in
  // `unsupported`).
  std::unique_ptr<scheduling::TopologyIndex> topology;
  static constexpr int32_t kNoConstraints = -1;
  static constexpr int32_t kUnsupported = -2;
  std::vector<int32_t> shape_constraints;
  // Shared with the bases of later snapshots holding the same shapes.
  std::vector<std::shared_ptr<const scheduling::PodConstraints>> constraints;
  // Karpenter's preferences (preferences.go): for a shape with preferred
  // node affinity, preferred pod (anti-)affinity or ScheduleAnyway spreads,
  // the pod as first tried (every preference required), then after each
  // relaxation in Karpenter's order; past the last, the shape's own
  // profile and constraints apply. Variant pods live in `variant_pods`.
  struct Variant {
    int32_t profile = -1;
    int32_t constraints = kNoConstraints;  // Index into `constraints`.
    std::string relaxed;                   // What the next relaxation removes.
  };
  absl::flat_hash_map<uint32_t, std::vector<Variant>> variants;  // By shape.
  std::deque<v1::Pod> variant_pods;
  std::map<uint32_t, std::string> unsupported;  // By shape id.
  // Host ports: per indexed shape an index into `port_lists` (-1: none),
  // and per node the ports its bound pods hold.
  std::vector<int32_t> shape_ports;
  std::vector<std::vector<scheduling::HostPort>> port_lists;
  std::vector<scheduling::HostPortSet> node_ports;
  std::optional<scheduling::ResourceDims> resource_dims;  // Over `dims`.
  // Claim-backed volumes: the index over the snapshot's claims, volumes,
  // classes and CSINodes; per indexed pod with such volumes an index into
  // `pod_volumes` (-1: none); per node the CSI volumes in use and its
  // CSINode (or null).
  // Shared with the bases of later snapshots holding the same claims,
  // volumes, classes and CSINodes (it points into those parts).
  std::shared_ptr<const scheduling::VolumeIndex> volume_index;
  std::vector<int32_t> pod_volumes_of;
  std::vector<scheduling::PodVolumes> pod_volumes;
  std::vector<scheduling::NodeVolumeUsage> node_volumes;
  std::vector<const v1::CSINode*> node_csi;
  // The snapshot's DaemonSet templates (scheduler.go getDaemonOverhead),
  // when it has DaemonSets; otherwise PoolBase::overhead, from the
  // DaemonSet pods on each NodePool's nodes, is used.
  std::optional<scheduling::DaemonOverhead> daemon_overhead;

  const int64_t* Req(snapshot::PodIndex p) const {
    return &req_rows[size_t{pod_req_row[p]} * d];
  }
  // Pod p's claim-backed volumes, or null when it has none.
  const scheduling::PodVolumes* Volumes(snapshot::PodIndex p) const {
    const int32_t i = pod_volumes_of[p];
    return i >= 0 ? &pod_volumes[static_cast<size_t>(i)] : nullptr;
  }
  // Pod p's host ports, or null when it has none.
  const std::vector<scheduling::HostPort>* Ports(snapshot::PodIndex p) const {
    const int32_t i = shape_ports[snap->PodShapeId(p)];
    return i >= 0 ? &port_lists[static_cast<size_t>(i)] : nullptr;
  }
  // Pod p's compiled constraints, or null when it has none (or they are
  // unsupported).
  const scheduling::PodConstraints* Constraints(snapshot::PodIndex p) const {
    const int32_t c = shape_constraints[snap->PodShapeId(p)];
    return c >= 0 ? constraints[static_cast<size_t>(c)].get() : nullptr;
  }
};

// Errors: InvalidArgument as Scheduler::Build documents. `nodes_from`, when
// given, is the SchedulerBase of a snapshot holding the same Nodes,
// NodeClaims and NodePools as `snapshot` (the same parts): what depends on
// those alone (each node's allocatable, deleting, initialized and
// consolidateAfter facts, the NodePools' usage) is copied from it when the
// resource dimensions are the same. The result is the same.
// `volumes_from`, when given, is the SchedulerBase of a snapshot holding
// the same PersistentVolumeClaims, PersistentVolumes, StorageClasses and
// CSINodes: its volume index is shared.
// `shapes_from` and `same_shapes`: as for BuildCandidateFacts, for the
// flags each shape has (terminal, terminating, DaemonSet, do-not-disrupt)
// and its requests.
// `node_objects_from`, when given (and `nodes_from` is not), is the
// SchedulerBase of a snapshot holding the same NodeClaims and NodePools,
// whose Snapshot is alive: a Node that is the very object (same address)
// of one of its Nodes takes that node's facts. The result is the same.
absl::Status BuildSchedulerBase(
    const snapshot::Snapshot& snapshot, const budget::PdbIndex& pdbs,
    SchedulerBase& out, const SchedulerBase* nodes_from = nullptr,
    const SchedulerBase* volumes_from = nullptr,
    const SchedulerBase* shapes_from = nullptr,
    absl::Span<const uint32_t> same_shapes = {},
    const SchedulerBase* node_objects_from = nullptr);

}  // namespace karpenter::disruption::internal

#endif  // KARPENTER_SRC_DISRUPTION_FACTS_INTERNAL_H_
