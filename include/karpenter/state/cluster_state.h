// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// ClusterState: the cluster as a cache kept up to date event by event, as a
// host that watches the API server sees it, from which a Snapshot (and its
// SnapshotFacts) can be taken at any moment without re-reading everything.
//
// It plays the part of Karpenter's informer caches and state.Cluster
// (karpenter pkg/controllers/state/cluster.go, fed by the informers of
// pkg/controllers/state/informer/): every ADDED, MODIFIED and DELETED event
// of the kinds a Snapshot holds (karpenter/snapshot/snapshot.h: Nodes, Pods,
// PodDisruptionBudgets, NodePools, NodeClaims, VolumeAttachments,
// PersistentVolumeClaims, PersistentVolumes, StorageClasses, CSINodes,
// DaemonSets) is applied to a store keyed by kind and namespace/name.
//
// Rules, as an informer applies a watch stream:
//  - ADDED and MODIFIED both store the object (an informer's upsert: an
//    ADDED for a known object replaces it, a MODIFIED for an unknown one
//    adds it); DELETED removes it (a DELETED for an unknown object is
//    ignored, kIgnored).
//  - Stale events are ignored (kStale): when both the stored object (or the
//    last deletion of that key) and the event carry a metadata.resourceVersion
//    that reads as a decimal integer, an event whose resourceVersion is lower
//    changes nothing; an ADDED or MODIFIED equal to the stored object's
//    changes nothing either (kUnchanged: a replayed event), while a DELETED
//    with the stored resourceVersion deletes (a relist that finds the object
//    gone reports its last version). resourceVersions are
//    opaque in the Kubernetes API, but every API server writes etcd's
//    revision there; a value that is not an integer (or is empty, as in a
//    manifest) is never compared, and the event is applied.
//  - Namespaced kinds (Pods, PDBs, PersistentVolumeClaims, DaemonSets) with
//    an empty metadata.namespace go to "default", as Snapshot::Build places
//    them.
//  - Order: objects keep the order in which they were first added; a
//    MODIFIED keeps the object's place, a DELETED followed by an ADDED puts
//    it last. The kinds ClusterStateOptions names are kept in name order
//    instead, as the API server lists them (etcd's key order, bytewise).
//    `Export()` returns the objects in that order, and a Snapshot
//    taken from the state equals, index for index, `Snapshot::Build` over
//    `Export()`. So every plan decided from it is the one decided from a
//    snapshot built from scratch over the same objects.
//  - A bad event changes nothing and returns InvalidArgument naming the
//    event, the kind, the object and the field, as loading does: an empty
//    metadata.name, or a PersistentVolume, StorageClass or CSINode breaking
//    one of the API server's rules that Snapshot::Build checks.
//
// Pods, most of a cluster, are held compacted (the shape replicas share
// once, the rest as wire bytes), each compacted once after its event is
// applied (in batches of 4,096 pods, or when a snapshot is taken, so that an
// event stays cheap and few pods are ever held whole), so taking a snapshot
// copies bytes and builds indexes without serializing anything: about 20x
// faster than Snapshot::Build over the same objects (bench/README.md, issue
// 23). Successive snapshots share storage: each pod's compacted record is
// shared by the state and every snapshot holding that pod (a snapshot pins
// the records it reads; one the state replaces or deletes is freed once no
// snapshot taken before is held). Every other object is held on its own,
// immutable, and shared by the state and every snapshot taken while it is
// current (an event replaces it with a new one), so a snapshot copies a
// pointer per object (Snapshot::nodes() is an ObjectList, not a span); and
// each of those kinds' lists and indexes (snapshot/snapshot_parts.h) are
// shared whole by successive snapshots until an event changes that kind.
// A publication builds its
// SnapshotFacts from the previous publication's (SnapshotFacts::Build's
// `previous`): while no Node, NodeClaim or NodePool changed, the node half
// of the facts is handed on, and so is whatever depends on a pod shape
// alone for the shapes both hold. What a publication still builds whole is
// its per-pod indexes and the per-pod half of its facts (docs/design.md
// §5.3). The state keeps the parts of the last snapshot it took, so those
// kinds are held twice while no snapshot of them is held elsewhere.
//
// Snapshots are immutable and shared: `Publish()` returns a
// `std::shared_ptr<const Published>` that stays valid for as long as the
// caller holds it, whatever is applied afterwards, so a disruption pass can
// run on one while events keep arriving. Publish reuses the previous
// publication when nothing was applied since.
//
// Thread-safety: one writer, any number of readers of published snapshots.
// Apply, ApplyAll, Publish, TakeSnapshot, TakeSnapshotWithoutPods and
// Export must not be called
// concurrently with each other (the host serialises its event handling);
// a Published may be read from any thread, concurrently with further
// Apply/Publish calls.
#ifndef KARPENTER_STATE_CLUSTER_STATE_H_
#define KARPENTER_STATE_CLUSTER_STATE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <variant>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "karpenter/budget/allowed.h"
#include "karpenter/disruption/snapshot_facts.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/core.pb.h"
#include "karpenter/v1/karpenter.pb.h"
#include "karpenter/v1/storage.pb.h"

namespace karpenter::state {

// A watch event's type, as the API server's watch (and `kubectl get --watch
// --output-watch-events`) names it: ADDED, MODIFIED, DELETED.
enum class EventType { kAdded, kModified, kDeleted };

// "ADDED", "MODIFIED" or "DELETED".
absl::string_view EventTypeName(EventType type);

// One object of a kind a Snapshot holds.
using Object = std::variant<v1::Node, v1::Pod, v1::PodDisruptionBudget,
                            v1::NodePool, v1::NodeClaim, v1::VolumeAttachment,
                            v1::PersistentVolumeClaim, v1::PersistentVolume,
                            v1::StorageClass, v1::CSINode, v1::DaemonSet>;

// The kind of `object` ("Pod", "NodePool", ...).
absl::string_view KindOf(const Object& object);

struct Event {
  EventType type = EventType::kAdded;
  Object object;
  // Where the event came from, for error messages ("stdin: event 12"); may
  // be empty.
  std::string origin;
};

// What Apply did with an event.
enum class Applied {
  kStored,     // Added or replaced the object.
  kDeleted,    // Removed the object.
  kUnchanged,  // Same resourceVersion as the stored object: a replay.
  kStale,      // Older resourceVersion than the stored object or deletion.
  kIgnored,    // DELETED for an object the state does not hold.
};

// A snapshot taken from the state, with its facts. Immutable.
struct Published {
  snapshot::Snapshot snapshot;
  // Built over `snapshot` (points into this struct: never move a Published).
  std::unique_ptr<const disruption::SnapshotFacts> facts;
  // ClusterState::generation() when it was taken.
  uint64_t generation = 0;
};

struct ClusterStateOptions {
  // Parameterises the published SnapshotFacts (budget/allowed.h).
  budget::BudgetOptions budgets;
  // Keep the Nodes, NodeClaims or VolumeAttachments in name order (see the
  // file comment) instead of the order of their first addition: for a
  // host whose snapshots must list them as `kubectl get` does. An addition
  // then costs O(objects of the kind) at worst (usually O(log)).
  bool nodes_by_name = false;
  bool node_claims_by_name = false;
  bool volume_attachments_by_name = false;
};

class ClusterState {
 public:
  // `budgets` parameterises the published SnapshotFacts (budget/allowed.h).
  explicit ClusterState(budget::BudgetOptions budgets = {});
  explicit ClusterState(const ClusterStateOptions& options);
  ClusterState(ClusterState&&) noexcept;
  ClusterState& operator=(ClusterState&&) noexcept;
  ClusterState(const ClusterState&) = delete;
  ClusterState& operator=(const ClusterState&) = delete;
  ~ClusterState();

  // Applies one event (see the file comment for the rules). Errors:
  // InvalidArgument naming `event.origin` (when set), the event type, the
  // kind, the object and the field, e.g. `stdin: value 3: ADDED unnamed Pod:
  // metadata.name is empty`, `w.json: MODIFIED StorageClass fast:
  // volumeBindingMode: expected "Immediate" or "WaitForFirstConsumer", got
  // "Later"`; the state is unchanged. A DELETED event's object is checked
  // for its name only.
  absl::StatusOr<Applied> Apply(Event event);

  // Applies every object of `objects` as an ADDED event, in ObjectSet order
  // (kinds in the order of its fields, objects in list order): the initial
  // LIST of an informer, or a loaded dump. Objects' origins name them in
  // errors as Snapshot::Build does. Stops at the first bad object and
  // returns its error; the objects before it stay applied. The skipped kinds
  // are added to the state's counts (Snapshot::skipped_kinds).
  absl::Status ApplyAll(snapshot::ObjectSet objects);

  // The current objects, in the state's order (see the file comment), with
  // the skipped-kind counts; no sources or origins.
  snapshot::ObjectSet Export() const;

  // A Snapshot of the current objects and its SnapshotFacts. Returns the
  // previous publication when generation() has not changed since. Errors:
  // whatever Snapshot::Build would return over Export() (the per-object
  // checks are made by Apply, so in practice none).
  absl::StatusOr<std::shared_ptr<const Published>> Publish();

  // A Snapshot of the current objects, owned by the caller (for a
  // ClusterView::Read); equal to Snapshot::Build(Export()).
  absl::StatusOr<snapshot::Snapshot> TakeSnapshot() const;

  // TakeSnapshot() without Pods and PodDisruptionBudgets, for a reader that
  // looks only at Nodes, NodeClaims, NodePools and the storage kinds: equal
  // to Snapshot::Build(Export()) with `pods` and `pdbs` cleared, at a
  // fraction of TakeSnapshot's cost (no per-pod index). Shares parts with
  // the snapshots taken before and after it, as TakeSnapshot does. Errors:
  // as TakeSnapshot.
  absl::StatusOr<snapshot::Snapshot> TakeSnapshotWithoutPods() const;

  // Incremented by every event that changed the state (kStored, kDeleted).
  uint64_t generation() const;
  // The number of objects held, all kinds together.
  size_t size() const;

 private:
  struct Store;
  std::unique_ptr<Store> store_;
};

}  // namespace karpenter::state

#endif  // KARPENTER_STATE_CLUSTER_STATE_H_
