// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Internal: the state behind FakeCluster (karpenter/testing/fake_cluster.h),
// shared by the files that each play one part of the cluster:
//   fake_cluster.cc              the facade: the mutex, scripted faults, the
//                                call log and the verbs' argument checks;
//   fake_cluster_store.cc        the API server's object store and verbs
//                                (graceful deletion, finalizers, the pod
//                                GC's orphan cleanup), Export and the log;
//   fake_cluster_events.cc       the pending transitions, applied in time
//                                order;
//   fake_cluster_replicasets.cc  the ReplicaSet-like controllers that
//                                replace controller-owned pods;
//   fake_cluster_placement.cc    the stand-in for the scheduler: the Node a
//                                replacement goes to;
//   fake_cluster_volumes.cc      the attach/detach controller;
//   fake_cluster_pdb.cc          the disruption controller's PDB status and
//                                the eviction subresource that enforces it;
//   fake_cluster_mirror.cc       the state::ClusterState mirror Read() takes
//                                its snapshots from, fed what changed.
//
// Thread-safety: none; FakeCluster calls FakeClusterState under its mutex.
#ifndef KARPENTER_SRC_TESTING_FAKE_CLUSTER_INTERNAL_H_
#define KARPENTER_SRC_TESTING_FAKE_CLUSTER_INTERNAL_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "karpenter/cluster_view.h"
#include "karpenter/eviction_client.h"
#include "karpenter/intstr.h"
#include "karpenter/selector.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/state/cluster_state.h"
#include "karpenter/testing/fake_cluster.h"
#include "karpenter/time_util.h"
#include "karpenter/v1/core.pb.h"
#include "karpenter/v1/karpenter.pb.h"
#include "karpenter/well_known.h"

namespace karpenter::testing::internal {

using PodId = uint64_t;

// kube-scheduler's podInitialBackoffSeconds: an Unschedulable pod is retried
// this long after the cluster changed.
constexpr absl::Duration kSchedulingBackoff = absl::Seconds(1);

constexpr size_t kMethodCount = 13;
constexpr size_t kResultCount = 6;

struct PdbRecord {
  v1::PodDisruptionBudget object;
  std::string key;  // "namespace/name"
  LabelSelector selector;
  std::optional<IntOrPercent> min_available;
  std::optional<IntOrPercent> max_unavailable;
  bool always_allow = false;
  std::set<PodId> pods;  // The live pods it selects.
  // The status last fed to the mirror; nullopt before the first feed.
  std::optional<PdbCounts> mirrored;
  // Counts() memo, reset whenever one of its inputs changes (a pod it
  // selects, or a controller of such a pod: DirtyPdbs).
  mutable std::optional<PdbCounts> counts;
  // Kept by InsertPod and RemovePod: its pods per controller key, and its
  // pods without a controller.
  std::map<std::string, int64_t> controllers;
  int64_t bare_pods = 0;
  // Its healthy pods as of the last Counts(), and the pods changed since
  // (re-read by the next Counts()).
  mutable std::set<PodId> healthy;
  mutable std::vector<PodId> stale;
};

struct PodRecord {
  v1::Pod pod;
  std::string key;             // "namespace/name"
  std::vector<uint32_t> pdbs;  // Selecting PDBs, ascending.
  std::string controller;      // Controller key; empty without controller.
  bool replaceable = false;    // Controller-owned, not DaemonSet or Node.
  // StatefulSet-owned: replaced under its own name once it is gone.
  bool stateful = false;
  std::string name_base;  // Prefix of its replacements' names.
  // Whether the mirror holds the pod (it was fed since its insertion).
  bool mirrored = false;
};

struct ControllerRecord {
  int64_t pending = 0;  // Replacements scheduled, not created yet.
  std::set<PodId> pods;
  // The PDBs selecting any of its pods, ever: their counts read its scale.
  std::set<uint32_t> pdbs;
  // Its active pods as of the last ControllerScale(), and the pods changed
  // since (re-read by the next one).
  mutable std::set<PodId> active;
  mutable std::vector<PodId> stale;
};

struct VolumeRecord {
  v1::VolumeAttachment object;
  // Since when no non-terminal pod on its node uses its PV; nullopt while
  // one does.
  std::optional<absl::Time> unused_since;
};

enum class EventKind {
  kCreateReplacement,
  kBecomeReady,
  kRemove,
  kDetach,
  kSchedule,  // kKubeScheduler: a scheduling pass.
  kSucceed,   // A Job pod with a run-for annotation is done.
};

struct Event {
  EventKind kind = EventKind::kRemove;
  PodId pod = 0;     // kBecomeReady, kRemove, kSucceed.
  v1::Pod replaced;  // kCreateReplacement: the pod being replaced.
  std::string controller;
  std::string name_base;
  std::string volume;  // kDetach: the VolumeAttachment.
};

struct Fault {
  absl::Status status;
  FaultTiming timing = FaultTiming::kInsteadOfCall;
};

struct EvictionFault {
  EvictionResponse response;
  FaultTiming timing = FaultTiming::kInsteadOfCall;
};

inline Event PodEvent(EventKind kind, PodId id) {
  Event e;
  e.kind = kind;
  e.pod = id;
  return e;
}

// The ownerReference with controller: true, or null.
inline const v1::OwnerReference* ControllerRef(const v1::Pod& pod) {
  for (const v1::OwnerReference& ref : pod.metadata().owner_references()) {
    if (ref.has_controller() && ref.controller()) return &ref;
  }
  return nullptr;
}

inline std::string Key(absl::string_view ns, absl::string_view name) {
  return absl::StrCat(ns, "/", name);
}

inline bool IsTerminal(const v1::Pod& pod) {
  return pod.status().phase() == "Succeeded" ||
         pod.status().phase() == "Failed";
}

inline bool IsTerminating(const v1::Pod& pod) {
  return pod.metadata().has_deletion_timestamp();
}

// Active as a ReplicaSet counts pods: neither terminal nor terminating.
inline bool IsActive(const v1::Pod& pod) {
  return !IsTerminal(pod) && !IsTerminating(pod);
}

// Sets (or replaces) the condition of `type` on `pod`.
inline void SetPodCondition(v1::Pod& pod, absl::string_view type,
                            absl::string_view status, absl::string_view reason,
                            absl::Time at) {
  v1::Condition* target = nullptr;
  for (v1::Condition& c : *pod.mutable_status()->mutable_conditions()) {
    if (c.type() == type) target = &c;
  }
  if (target == nullptr) target = pod.mutable_status()->add_conditions();
  if (target->status() != status) {
    *target->mutable_last_transition_time() = TimeToProto(at);
  }
  target->set_type(std::string(type));
  target->set_status(std::string(status));
  target->set_reason(std::string(reason));
}

inline std::string StatusText(const absl::Status& s) {
  if (s.ok()) return "OK";
  return absl::StrCat(absl::StatusCodeToString(s.code()), ": ", s.message());
}

// Validates a PDB as the API server would (via budget::PdbIndex) and parses
// what the live computation needs. Defined in fake_cluster_pdb.cc.
absl::StatusOr<PdbRecord> ParsePdb(const v1::PodDisruptionBudget& pdb);

// All of the fake's data; FakeCluster holds it under its mutex. Each method
// is defined in the file of the part it plays (see the file comment).
class FakeClusterState {
 public:
  explicit FakeClusterState(FakeClusterOptions options) : options_(options) {}

  // fake_cluster_store.cc: the object store and its verbs.
  absl::Status Load(snapshot::ObjectSet objects, absl::Time now);
  snapshot::ObjectSet Export() const;
  absl::Status DeletePod(const PodRef& ref, int64_t grace_seconds,
                         absl::Time now);
  absl::Status AddPod(v1::Pod pod, absl::Time now);
  absl::Status AddFinalizer(ObjectKind kind, absl::string_view name,
                            absl::string_view finalizer);
  absl::Status RemoveFinalizer(ObjectKind kind, absl::string_view name,
                               absl::string_view finalizer, absl::Time now);
  absl::Status TaintNode(absl::string_view node, const v1::Taint& taint);
  absl::Status SetMetadataEntry(ObjectKind kind, absl::string_view name,
                                bool label, absl::string_view key,
                                absl::string_view value);
  absl::Status SetNodeClaimCondition(absl::string_view node_claim,
                                     const v1::Condition& condition,
                                     absl::Time now);
  absl::Status Delete(ObjectKind kind, absl::string_view name, absl::Time now);
  absl::Status CreateNodeClaim(v1::NodeClaim node_claim, absl::Time now);
  absl::Status SetNodeReady(absl::string_view node, bool ready, absl::Time now);
  absl::Status RemoveTaint(absl::string_view node, absl::string_view key,
                           absl::string_view effect);
  absl::Status RemoveNodeClaimCondition(absl::string_view node_claim,
                                        absl::string_view type);
  absl::Status AddNode(v1::Node node, absl::Time now);
  absl::Status SucceedPod(const PodRef& ref, absl::Time now);
  // Pod `id`'s containers exited 0 (SucceedPod's effects).
  void Succeed(PodId id, absl::Time now);
  // Pushes the kSucceed event of a Job pod with a run-for annotation that
  // started running at `started`.
  void MaybeScheduleSuccess(PodId id, absl::Time started, absl::Time now);
  // fake_cluster_placement.cc.
  PlacementCheck CheckPlacement() const;
  bool HasUnscheduled() const { return !unscheduled_.empty(); }
  // The Node `pod` is bound to, if both exist; else "".
  std::string NodeOfPod(const PodRef& pod) const {
    const auto id = pod_by_key_.find(Key(pod.namespace_name, pod.name));
    if (id == pod_by_key_.end()) return "";
    const std::string& node = pods_.at(id->second).pod.spec().node_name();
    return nodes_.count(node) > 0 ? node : "";
  }
  absl::Status SetNodeClaimStatus(absl::string_view node_claim,
                                  v1::NodeClaimStatus status);
  absl::Status ApplyNodePool(v1::NodePool node_pool);
  void Log(absl::Time at, absl::string_view line);

  // fake_cluster_mirror.cc: the ClusterState mirror. SyncMirror feeds it
  // the objects changed since the last call (the first call feeds them
  // all), as ADDED, MODIFIED and DELETED events, so that mirror().Export()
  // equals Export() object for object, in the same order. Errors: Internal
  // if the mirror refuses an event (a bug of the fake).
  absl::Status SyncMirror();
  const state::ClusterState& mirror() const { return mirror_; }
  // After SyncMirror: OK if mirror().Export() equals Export() object for
  // object, else Internal naming the list, the index and the object.
  absl::Status CheckMirror() const;

  // fake_cluster_events.cc: the pending transitions.
  void Advance(absl::Time now);
  std::optional<absl::Time> NextEventTime() const;

  // fake_cluster_pdb.cc: PDB status and the eviction subresource.
  PdbCounts Counts(const PdbRecord& pdb) const;
  // Counts() computed from every selected pod, for the self-check.
  PdbCounts Recount(const PdbRecord& pdb) const;
  std::optional<PdbCounts> CountsOf(absl::string_view key) const;
  EvictionResponse Evict(const PodRef& ref, absl::Time now,
                         std::string& detail);

  // fake_cluster_volumes.cc: the attach/detach controller.
  absl::Status AddVolumeAttachment(v1::VolumeAttachment va, absl::Time now);

  std::array<std::deque<Fault>, kMethodCount> faults;
  std::deque<EvictionFault> eviction_faults;
  int64_t evict_calls = 0;
  std::array<int64_t, kResultCount> evict_results{};
  std::vector<std::string> log;
  std::vector<PdbViolation> violations;

 private:
  // Requests (milli-units) of the non-terminal pods bound to each Node.
  using Usage =
      std::map<std::string, std::map<std::string, int64_t>, std::less<>>;

  // fake_cluster_mirror.cc: marks an object changed (or removed) since the
  // last SyncMirror. Every change of a stored object calls one of them.
  void TouchPod(PodId id);
  void TouchNode(absl::string_view name);
  void TouchNodeClaim(absl::string_view name);
  void TouchVolume(absl::string_view name);
  void TouchNodePool(absl::string_view name);

  // fake_cluster_store.cc.
  // A PDB as Export returns it: with the status of `counts`.
  static v1::PodDisruptionBudget PdbWithStatus(const PdbRecord& r,
                                               const PdbCounts& counts);
  PodId InsertPod(v1::Pod pod, std::string name_base);
  void RemovePod(PodId id, absl::Time at);
  void DeletePodRecord(PodId id, int64_t grace_seconds, absl::Time now);
  v1::ObjectMeta* Meta(ObjectKind kind, absl::string_view name);
  void RemoveObject(ObjectKind kind, absl::string_view name, absl::Time now);
  void RemoveNode(absl::string_view name, absl::Time now);

  // fake_cluster_events.cc.
  void ApplyEvent(absl::Time at, const Event& e);
  void PushEvent(absl::Time at, Event e);

  // fake_cluster_replicasets.cc.
  void ScheduleReplacement(const PodRecord& r, absl::Time now);
  void CreateReplacement(absl::Time at, const Event& e);
  void BecomeReady(absl::Time at, PodId id);
  std::string FreshPodName(absl::string_view ns, absl::string_view base);

  // fake_cluster_placement.cc.
  // kFirstNode: the Node a replacement of a pod on `source` goes to.
  std::optional<std::string> ChooseNode(absl::string_view source) const;
  // Binds pod `id` to `node` at `now`: PodScheduled True, Ready False until
  // ready_delay has passed.
  void BindPod(PodId id, const std::string& node, absl::Time now);
  // kKubeScheduler: pod `id` is unbound and active; it joins the scheduling
  // queue, and a pass runs at `now` (one per instant).
  void Enqueue(PodId id, absl::Time now);
  // Enqueue if kKubeScheduler and pod `id` is unbound and active.
  void MaybeEnqueue(PodId id, absl::Time now);
  // kKubeScheduler: the DaemonSet controller. Remembers pod `id` as its
  // DaemonSet's template (the first pod seen per DaemonSet).
  void RememberDaemonPod(PodId id);
  // Creates, on new Node `node`, a pod of every known DaemonSet whose pods
  // would run there (node selector, required node affinity, NoSchedule and
  // NoExecute taints tolerated), pinned to it by a required node affinity
  // on metadata.name, as the DaemonSet controller does; the scheduler binds
  // it.
  void RunDaemonSets(const v1::Node& node, absl::Time now);
  // kKubeScheduler: binds the queued pods (Scheduler::Bind over the
  // mirror's published snapshot), marks the others Unschedulable.
  void RunScheduler(absl::Time now);

  // fake_cluster_pdb.cc.
  // Forgets the counts of the PDBs that read pod `r` or its controller.
  void DirtyPdbs(PodId id, const PodRecord& r);
  void DirtyControllerPdbs(const std::string& controller);
  void EvictPod(PodId id, absl::Time now);
  bool PdbAllows(const PdbRecord& pdb, const v1::Pod& pod,
                 std::string& detail) const;
  int64_t ControllerScale(const std::string& key) const;
  int64_t ExpectedFromControllers(const PdbRecord& pdb) const;

  // fake_cluster_volumes.cc.
  bool VolumeInUse(const v1::VolumeAttachment& va) const;
  void RefreshVolume(VolumeRecord& v, absl::Time at);
  void RefreshVolumesOn(absl::string_view node, absl::Time at);
  void Detach(absl::Time at, const std::string& name);

  const FakeClusterOptions options_;
  std::map<std::string, v1::Node, std::less<>> nodes_;
  std::map<std::string, v1::NodeClaim, std::less<>> node_claims_;
  std::vector<v1::NodePool> node_pools_;
  std::vector<PdbRecord> pdbs_;
  absl::flat_hash_map<std::string, std::vector<uint32_t>> pdbs_by_namespace_;
  std::map<PodId, PodRecord> pods_;
  absl::flat_hash_map<std::string, PodId> pod_by_key_;
  std::map<std::string, ControllerRecord> controllers_;
  std::map<std::string, VolumeRecord, std::less<>> volumes_;
  std::vector<v1::PersistentVolumeClaim> claims_;
  // Kept as given, returned by every Export: no controller of the fake
  // changes them.
  std::vector<v1::PersistentVolume> persistent_volumes_;
  std::vector<v1::StorageClass> storage_classes_;
  std::vector<v1::CSINode> csi_nodes_;
  std::vector<v1::DaemonSet> daemon_sets_;
  // "namespace/name" of a claim -> its spec.volumeName.
  absl::flat_hash_map<std::string, std::string> pv_of_claim_;
  // By (instant, sequence): time order, then scheduling order.
  std::map<std::pair<absl::Time, uint64_t>, Event> events_;
  uint64_t next_event_ = 0;
  PodId next_pod_ = 0;
  uint64_t next_uid_ = 0;
  uint64_t next_replacement_ = 0;
  // kKubeScheduler: the pods waiting for the scheduler, the instants a pass
  // is queued for, and the value of changes_ after the last pass (a pass
  // is retried only once something changed).
  std::set<PodId> unscheduled_;
  // DaemonSet controller key -> a pod of it, unbound (the template).
  std::map<std::string, v1::Pod> daemon_templates_;
  std::set<absl::Time> schedule_at_;
  uint64_t changes_ = 0;
  uint64_t changes_at_pass_ = 0;

  // The mirror (fake_cluster_mirror.cc) and what it has not been fed yet.
  // The store's order: Nodes, NodeClaims and VolumeAttachments by name.
  static state::ClusterStateOptions MirrorOptions() {
    state::ClusterStateOptions o;
    o.nodes_by_name = true;
    o.node_claims_by_name = true;
    o.volume_attachments_by_name = true;
    return o;
  }
  state::ClusterState mirror_{MirrorOptions()};
  // Pods changed since the last feed, by id, with their "namespace/name"
  // (a removed pod's record is gone).
  std::map<PodId, std::string> dirty_pods_;
  // Names changed (or removed) since the last feed, per kind.
  std::set<std::string, std::less<>> dirty_nodes_;
  std::set<std::string, std::less<>> dirty_node_claims_;
  std::set<std::string, std::less<>> dirty_volumes_;
  std::set<std::string, std::less<>> dirty_node_pools_;
  // Names the mirror holds, for the kinds stored by name.
  std::set<std::string, std::less<>> mirrored_nodes_;
  std::set<std::string, std::less<>> mirrored_node_claims_;
  std::set<std::string, std::less<>> mirrored_volumes_;
  // Whether a pod or a controller's pending count changed since the last
  // feed: the only inputs of the PDB status, recounted only then.
  bool pdb_status_stale_ = true;
  // Whether the kinds no controller changes (claims, PVs, StorageClasses,
  // CSINodes, DaemonSets) were fed.
  bool statics_mirrored_ = false;
};

}  // namespace karpenter::testing::internal

#endif  // KARPENTER_SRC_TESTING_FAKE_CLUSTER_INTERNAL_H_
