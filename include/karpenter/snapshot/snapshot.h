// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Snapshot: the immutable, indexed view of a cluster that every core decides
// from (docs/design.md §3). Built once per pass from an `ObjectSet`
// (karpenter/snapshot/load.h or a host's own informers) in O(objects).
//
// It stands in for the informer caches and field indexers Karpenter's
// controllers query: pods by `spec.nodeName` (karpenter/pkg/utils/pod,
// `nodeutils.GetPods`), PDBs by namespace (karpenter/pkg/utils/pdb/pdb.go),
// NodeClaims by `status.providerID` and `status.nodeName`
// (karpenter/pkg/utils/nodeclaim/nodeclaim.go, `NodeClaimForNode`), NodePools
// by name, VolumeAttachments by `spec.nodeName` (karpenter/pkg/utils/node
// `GetVolumeAttachments`), PersistentVolumeClaims by namespace/name
// (karpenter/pkg/utils/volume `GetPersistentVolumeClaim`), and what the
// scheduling simulation reads beside them: PersistentVolumes and
// StorageClasses by name (karpenter/pkg/controllers/provisioning/scheduling
// volumetopology.go), CSINodes by name, which is their Node's name (volume
// limits, karpenter/pkg/controllers/state/cluster.go), DaemonSets by
// namespace/name (karpenter/pkg/controllers/provisioning/provisioner.go
// `getDaemonSetPods`), and the cluster's default StorageClass. Objects keep
// their input order everywhere (pods and VolumeAttachments on a node, PDBs
// in a namespace, the unbound lists), so a given input always yields the
// same snapshot; hash maps serve lookups only and are never iterated.
//
// Indexes are plain dense `uint32_t` positions into the object lists
// (`nodes()[n]`), valid for the snapshot that returned them.
//
// Normalisation applied by Build: a Pod, PodDisruptionBudget,
// PersistentVolumeClaim or DaemonSet with an empty `metadata.namespace`
// (manifests, `kubectl ... --dry-run=client`) is placed in "default", as
// kubectl would create it. VolumeAttachments, PersistentVolumes,
// StorageClasses and CSINodes are cluster-scoped; their namespace is
// ignored. Nothing else is defaulted: in particular a claim whose
// `spec.storageClassName` is unset keeps it unset (the API server's
// admission would write the default class's name into it);
// `StorageClassOfClaim` resolves it to `DefaultStorageClass()` instead.
//
// Pods are stored compactly, because they are most of a cluster (30 per node
// at 10k nodes is 300k pods; as `v1::Pod` messages they take 2.3 KB each, on
// the wire 0.2 KB). Each pod is split in two at Build:
//  - its *shape*: the pod without the fields that differ between the replicas
//    of one workload (metadata.name, uid, resourceVersion, creationTimestamp,
//    spec.nodeName, and status except what the shape keeps: status.phase,
//    the container statuses, and status.conditions of a pod whose in-place
//    resize is Infeasible, which with the spec make its requests). Equal
//    shapes are stored once, decoded, so the pods of a ReplicaSet share one;
//  - the rest, kept as protobuf wire bytes.
// Each pod is one immutable record; snapshots taken from a
// state::ClusterState share the records of the pods they have in common with
// each other and with the state, and their shapes.
// `DecodePod` reassembles the whole pod (the exact message given to Build);
// `PodShape`, `PodName` and `PodReadyCondition` answer the questions a pass
// over every pod asks without decoding anything.
//
// Thread-safety: immutable after Build; any number of threads may read one
// snapshot concurrently (the pods-by-key index of a snapshot taken from a
// state::ClusterState is built on its first FindPod, under absl::call_once).
// Snapshots may share immutable storage with each other; destroying one
// never affects another. Movable (indexes and views survive the move), not
// copyable. `SnapshotBuilder` is not thread-safe.

#ifndef KARPENTER_SNAPSHOT_SNAPSHOT_H_
#define KARPENTER_SNAPSHOT_SNAPSHOT_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/call_once.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/object_list.h"
#include "karpenter/v1/core.pb.h"
#include "karpenter/v1/karpenter.pb.h"
#include "karpenter/v1/storage.pb.h"

namespace karpenter::snapshot {

// Positions in the corresponding `Snapshot` list.
using NodeIndex = uint32_t;
using PodIndex = uint32_t;
using PdbIndex = uint32_t;
using NodePoolIndex = uint32_t;
using NodeClaimIndex = uint32_t;
using VolumeAttachmentIndex = uint32_t;
using PersistentVolumeClaimIndex = uint32_t;
using PersistentVolumeIndex = uint32_t;
using StorageClassIndex = uint32_t;
using CSINodeIndex = uint32_t;
using DaemonSetIndex = uint32_t;
// Dense id of a namespace holding at least one Pod or PDB.
using NamespaceId = uint32_t;

// How a pod's first condition of type "Ready" reads.
enum class PodReady : uint8_t { kAbsent, kTrue, kFalse, kOther };

class SnapshotBuilder;
namespace internal {
class CompactPod;
struct CompactShape;
struct HeldObjects;
struct SnapshotParts;
}  // namespace internal

class Snapshot {
 public:
  // Indexes `objects`, taking ownership (the protos are moved, not copied).
  // Returns InvalidArgument
  //  - naming the object if a Node, NodePool, NodeClaim, VolumeAttachment,
  //    PersistentVolume, StorageClass or CSINode name, or a Pod, PDB,
  //    PersistentVolumeClaim or DaemonSet namespace/name, is empty or occurs
  //    twice. An object is placed by its origin when the loader recorded it
  //    (`objects.origins`, see load.h): source, YAML document, list item
  //    and YAML line, e.g. `duplicate NodePool "default": a.json: items[0]
  //    and b.yaml: document 2 (line 14)`, `c.yaml: document 1: unnamed
  //    CSINode: metadata.name is empty (line 1)`; otherwise by its
  //    position in the ObjectSet, e.g. `duplicate Pod "default/web-1":
  //    pods[3] and pods[10]`, `csi_nodes[2] (unnamed CSINode):
  //    metadata.name is empty`;
  //  - if a kind has more than 2^32 - 2 objects;
  //  - naming the list position, the object, the field and the value if a
  //    PersistentVolume, StorageClass or CSINode breaks a rule of the API
  //    server's that the loaders check too (karpenter/snapshot/load.h), e.g.
  //    `storage_classes[1] (StorageClass fast): volumeBindingMode: expected
  //    "Immediate" or "WaitForFirstConsumer", got "Later"`. The rules:
  //    a StorageClass's volumeBindingMode, when set, is "Immediate" or
  //    "WaitForFirstConsumer"; each allowedTopologies expression has a valid
  //    label key (karpenter/selector.h ValidateLabelKey), at least one value,
  //    no value twice, and no key twice in its term. A PersistentVolume's
  //    claimRef, when set, has a name; its nodeAffinity, when set, has
  //    `required` with at least one term, each matchExpressions entry a
  //    valid label key, an operator among In, NotIn, Exists, DoesNotExist,
  //    Gt and Lt, and values as the operator needs (In/NotIn: at least one;
  //    Exists/DoesNotExist: none; Gt/Lt: exactly one, not checked to be an
  //    integer), each matchFields entry key "metadata.name", operator In or
  //    NotIn and one value. A CSINode's drivers have non-empty names, none
  //    twice, and no negative allocatable.count. DaemonSets are not
  //    validated beyond their names.
  // Pods are compacted one at a time, each freed as soon as it is stored;
  // SnapshotBuilder avoids holding every pod as a message at all.
  static absl::StatusOr<Snapshot> Build(ObjectSet objects);

  // An empty snapshot.
  Snapshot() = default;
  Snapshot(Snapshot&&) noexcept = default;
  Snapshot& operator=(Snapshot&&) noexcept = default;
  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;

  // The objects, in input order (karpenter/snapshot/object_list.h: a
  // random-access range; successive snapshots taken from a
  // state::ClusterState share each object that did not change).
  ObjectList<v1::Node> nodes() const { return nodes_->List(); }
  ObjectList<v1::PodDisruptionBudget> pdbs() const { return pdbs_->List(); }
  ObjectList<v1::NodePool> node_pools() const { return node_pools_->List(); }
  ObjectList<v1::NodeClaim> node_claims() const { return node_claims_->List(); }
  ObjectList<v1::VolumeAttachment> volume_attachments() const {
    return volume_attachments_->List();
  }
  ObjectList<v1::PersistentVolumeClaim> persistent_volume_claims() const {
    return persistent_volume_claims_->List();
  }
  ObjectList<v1::PersistentVolume> persistent_volumes() const {
    return persistent_volumes_->List();
  }
  ObjectList<v1::StorageClass> storage_classes() const {
    return storage_classes_->List();
  }
  ObjectList<v1::CSINode> csi_nodes() const { return csi_nodes_->List(); }
  ObjectList<v1::DaemonSet> daemon_sets() const { return daemon_sets_->List(); }

  // The number of pods; PodIndex values run from 0 to pod_count() - 1, in
  // input order.
  size_t pod_count() const { return pod_shape_.size(); }
  // Pod `p` exactly as given to Build (with "default" for an empty
  // namespace). Decodes it: O(size of the pod), about 2 us, so passes over
  // every pod should read PodShape instead. `p` must be < pod_count().
  v1::Pod DecodePod(PodIndex p) const;
  // The shape of pod `p`, shared with every pod that differs from it only in
  // metadata.name, uid, resourceVersion, creationTimestamp, spec.nodeName and
  // the rest of status, which are all empty here. Everything else
  // (namespace, labels, annotations, owner references, deletionTimestamp,
  // the spec, status.phase, status.containerStatuses and
  // initContainerStatuses, and status.conditions when the pod's first
  // PodResizePending condition has reason "Infeasible") is the pod's own, so
  // scheduling::PodRequests of the shape is the pod's. `p` must be <
  // pod_count().
  const v1::Pod& PodShape(PodIndex p) const {
    return *pod_shapes_[pod_shape_[p]];
  }
  // metadata.name of pod `p`. `p` must be < pod_count().
  absl::string_view PodName(PodIndex p) const;
  // "namespace/name" of pod `p`.
  std::string PodKey(PodIndex p) const;
  // Pod `p`'s Ready condition. `p` must be < pod_count().
  PodReady PodReadyCondition(PodIndex p) const { return pod_ready_[p]; }
  // The number of distinct pod shapes, and pod `p`'s shape id, below it:
  // pods with equal ids have equal PodShape, so a caller can compute what
  // depends on the shape alone once per id.
  size_t pod_shape_count() const { return pod_shapes_.size(); }
  uint32_t PodShapeId(PodIndex p) const { return pod_shape_[p]; }

  // Lookups by name; nullopt if absent.
  std::optional<NodeIndex> FindNode(absl::string_view name) const;
  std::optional<NodePoolIndex> FindNodePool(absl::string_view name) const;
  std::optional<NodeClaimIndex> FindNodeClaim(absl::string_view name) const;
  std::optional<PodIndex> FindPod(absl::string_view ns,
                                  absl::string_view name) const;
  std::optional<PdbIndex> FindPdb(absl::string_view ns,
                                  absl::string_view name) const;
  std::optional<VolumeAttachmentIndex> FindVolumeAttachment(
      absl::string_view name) const;
  // The claim `ns`/`name` (`ns` as stored: "default" for a claim loaded
  // without namespace).
  std::optional<PersistentVolumeClaimIndex> FindPersistentVolumeClaim(
      absl::string_view ns, absl::string_view name) const;
  std::optional<PersistentVolumeIndex> FindPersistentVolume(
      absl::string_view name) const;
  std::optional<StorageClassIndex> FindStorageClass(
      absl::string_view name) const;
  // The CSINode of the Node named `node` (a CSINode takes its Node's name).
  std::optional<CSINodeIndex> FindCSINode(absl::string_view node) const;
  // The DaemonSet `ns`/`name` (`ns` as stored: "default" for one loaded
  // without namespace).
  std::optional<DaemonSetIndex> FindDaemonSet(absl::string_view ns,
                                              absl::string_view name) const;

  // The cluster's default StorageClass, as the API server's admission picks
  // it for a new claim (k8s.io/kubernetes pkg/volume/util/storageclass.go
  // `GetDefaultClass`): among the classes annotated
  // storageclass.kubernetes.io/is-default-class: "true" (or its beta
  // spelling, well_known.h), the newest by metadata.creationTimestamp, ties
  // broken by the smaller name. A class without creationTimestamp counts as
  // older than any with one. Nullopt if no class is annotated.
  std::optional<StorageClassIndex> DefaultStorageClass() const {
    if (storage_classes_->default_class == kNone) return std::nullopt;
    return storage_classes_->default_class;
  }
  // The StorageClass claim `c` uses: the class its spec.storageClassName
  // names (nullopt if that class is not in the snapshot); nullopt for
  // `storageClassName: ""`, which asks for no class. When storageClassName
  // is unset: DefaultStorageClass() for an unbound claim (empty
  // spec.volumeName), as admission assigns it to a new claim and, since
  // Kubernetes 1.28, the PV controller to an unbound one created before any
  // default existed; nullopt for a bound one, which keeps no class. `c` must
  // be < persistent_volume_claims().size().
  std::optional<StorageClassIndex> StorageClassOfClaim(
      PersistentVolumeClaimIndex c) const;

  // Pods whose `spec.nodeName` is node `n`, in input order (any phase,
  // terminal pods included). `n` must be < nodes().size().
  absl::Span<const PodIndex> PodsOnNode(NodeIndex n) const {
    return absl::MakeConstSpan(node_pods_.data() + node_pod_offsets_[n],
                               node_pods_.data() + node_pod_offsets_[n + 1]);
  }
  // The node pod `p` is bound to, or nullopt if it is unbound or bound to a
  // node missing from the snapshot. `p` must be < pod_count().
  std::optional<NodeIndex> NodeOfPod(PodIndex p) const {
    if (pod_node_[p] >= kUnknownNode) return std::nullopt;
    return pod_node_[p];
  }
  // True if pod `p` has an empty `spec.nodeName` (it is in UnboundPods()).
  // `p` must be < pod_count().
  bool PodIsUnbound(PodIndex p) const { return pod_node_[p] == kNone; }
  // VolumeAttachments whose `spec.nodeName` is node `n`, in input order.
  // Attachments naming no Node of the snapshot are in no node's list.
  // `n` must be < nodes().size().
  absl::Span<const VolumeAttachmentIndex> VolumeAttachmentsOnNode(
      NodeIndex n) const {
    return absl::MakeConstSpan(node_vas_.data() + node_va_offsets_[n],
                               node_vas_.data() + node_va_offsets_[n + 1]);
  }
  // Pods with an empty `spec.nodeName` (not scheduled yet), in input order.
  absl::Span<const PodIndex> UnboundPods() const { return unbound_pods_; }
  // Pods whose `spec.nodeName` names no Node in the snapshot (the Node was
  // deleted, or the dump is partial), in input order. Disjoint from
  // UnboundPods() and from every PodsOnNode().
  absl::Span<const PodIndex> PodsOnUnknownNodes() const {
    return pods_on_unknown_nodes_;
  }

  // Namespaces of Pods and PDBs, interned in first-seen order (pods first).
  size_t namespace_count() const { return namespace_names_.size(); }
  absl::string_view NamespaceName(NamespaceId id) const {
    return namespace_names_[id];
  }
  std::optional<NamespaceId> FindNamespace(absl::string_view ns) const;
  NamespaceId NamespaceOfPod(PodIndex p) const { return pod_namespace_[p]; }

  // PDBs in namespace `ns` / namespace id `id`, in input order; empty for a
  // namespace without PDBs.
  absl::Span<const PdbIndex> PdbsInNamespace(absl::string_view ns) const;
  absl::Span<const PdbIndex> PdbsInNamespace(NamespaceId id) const {
    return absl::MakeConstSpan(
        pdbs_by_namespace_.data() + pdb_offsets_[id],
        pdbs_by_namespace_.data() + pdb_offsets_[id + 1]);
  }

  // The NodeClaim whose `status.nodeName` is `node`. Nullopt if none, or if
  // several NodeClaims claim the node (ambiguous, like a providerID clash).
  std::optional<NodeClaimIndex> FindNodeClaimByNodeName(
      absl::string_view node) const;
  // The NodeClaim whose `status.providerID` is `provider_id`. Karpenter's
  // `NodeClaimForNode` treats zero or several matches as "no NodeClaim", so
  // an ambiguous providerID returns nullopt too. Empty ids never match.
  std::optional<NodeClaimIndex> FindNodeClaimByProviderId(
      absl::string_view provider_id) const;

  // The NodeOverlays of the dump (ObjectSet::node_overlays), in input order.
  const std::vector<v1::NodeOverlay>& node_overlays() const {
    return node_overlays_;
  }
  // Kinds the loader skipped (see ObjectSet::skipped_kinds).
  const std::map<std::string, int64_t>& skipped_kinds() const {
    return skipped_kinds_;
  }

 private:
  friend class SnapshotBuilder;
  friend struct internal::SnapshotParts;
  static constexpr uint32_t kNone = 0xFFFFFFFF;
  // Marks a key held by several objects.
  static constexpr uint32_t kAmbiguous = 0xFFFFFFFE;
  // pod_node_ of a pod naming a node missing from the snapshot.
  static constexpr uint32_t kUnknownNode = 0xFFFFFFFE;
  // No node hint for a pod (SnapshotBuilder::pod_node_hints_). Hints are
  // only read while every NodeIndex is below it.
  static constexpr uint32_t kNoNodeHint = 0xFFFFFFFD;

  struct NamespacedKey {
    NamespaceId ns;
    absl::string_view name;
    friend bool operator==(const NamespacedKey& a, const NamespacedKey& b) {
      return a.ns == b.ns && a.name == b.name;
    }
    template <typename H>
    friend H AbslHashValue(H h, const NamespacedKey& k) {
      return H::combine(std::move(h), k.ns, k.name);
    }
  };
  using NameIndex = absl::flat_hash_map<absl::string_view, uint32_t>;
  // By (namespace, name), for the namespaced kinds whose namespaces are not
  // interned (NamespaceId covers Pods and PDBs only).
  using KeyIndex =
      absl::flat_hash_map<std::pair<absl::string_view, absl::string_view>,
                          uint32_t>;

  // The objects of one kind other than pods, with the indexes that depend
  // on them alone: immutable once built, and shared between the snapshots
  // a state::ClusterState takes while the kind does not change (keys are
  // views into the objects, which never move). Each kind fills the
  // indexes it has.
  template <typename T>
  struct Part {
    // Each object non-null, immutable and possibly shared with other parts
    // (and with the state::ClusterState that made them).
    std::vector<std::shared_ptr<const T>> objects;
    ObjectList<T> List() const { return {objects.data(), objects.size()}; }
    NameIndex by_name;  // Cluster-scoped kinds.
    KeyIndex by_key;    // PersistentVolumeClaims, DaemonSets.
    // NodeClaims by status.nodeName and status.providerID (or kAmbiguous).
    NameIndex by_node_name;
    NameIndex by_provider_id;
    // StorageClasses: DefaultStorageClass(), or kNone.
    uint32_t default_class = kNone;
  };
  // The part of a snapshot without objects of kind T (never destroyed).
  template <typename T>
  static const std::shared_ptr<const Part<T>>& EmptyPart() {
    static const auto* const empty =
        new std::shared_ptr<const Part<T>>(std::make_shared<Part<T>>());
    return *empty;
  }
  // A shared part, never null: empty by default and once moved from, so a
  // moved-from Snapshot reads as an empty one.
  template <typename T>
  class PartPtr {
   public:
    PartPtr() : part_(EmptyPart<T>()) {}
    template <typename U>
    PartPtr(std::shared_ptr<U> part)  // NOLINT: converts a built part.
        : part_(std::move(part)) {}
    PartPtr(const PartPtr&) = default;
    PartPtr& operator=(const PartPtr&) = default;
    PartPtr(PartPtr&& other) noexcept
        : part_(std::exchange(other.part_, EmptyPart<T>())) {}
    PartPtr& operator=(PartPtr&& other) noexcept {
      part_ = std::exchange(other.part_, EmptyPart<T>());
      return *this;
    }
    const Part<T>* operator->() const { return part_.get(); }
    // The same storage (SnapshotParts::Same).
    friend bool operator==(const PartPtr& a, const PartPtr& b) {
      return a.part_ == b.part_;
    }

   private:
    std::shared_ptr<const Part<T>> part_;
  };

  static std::optional<uint32_t> Lookup(const NameIndex& index,
                                        absl::string_view key);
  NamespaceId Intern(absl::string_view ns);
  // `loaded` holds the objects' sources and origins, for error messages.
  // A new part holding `objects` (each moved into its own allocation) or
  // `held` (as they are; at most one of the two is not empty), in `out`,
  // unless the kind's bit is in `shared` (a mask of internal::SnapshotParts
  // bits: the part was taken from an earlier snapshot), when `out` is left
  // null and both must be empty.
  template <typename T>
  static absl::Status NewPart(std::vector<T>& objects,
                              std::vector<std::shared_ptr<const T>>& held,
                              uint32_t shared, uint32_t bit,
                              absl::string_view list,
                              std::shared_ptr<Part<T>>& out);
  // Builds the parts not shared from an earlier snapshot, from `loaded`:
  // Nodes, PDBs, NodePools and NodeClaims, then the storage kinds.
  // `held`: objects taken as they are (internal::SnapshotParts::Held).
  absl::Status BuildNodeParts(ObjectSet& loaded, internal::HeldObjects& held,
                              uint32_t shared);
  absl::Status BuildVolumeParts(ObjectSet& loaded, internal::HeldObjects& held,
                                uint32_t shared);
  // `check_keys`: fill pod_by_key_, rejecting a duplicate namespace/name.
  // `node_hints`: empty, or per pod its NodeIndex in this snapshot,
  // kNone (unbound), kUnknownNode, or kNoNodeHint (looked up).
  absl::Status IndexPods(const ObjectSet& loaded, bool check_keys,
                         absl::Span<const uint32_t> node_hints);
  void FillPodKeyIndex() const;
  // `check_keys`: fill pdb_by_key_, rejecting empty names and duplicate
  // keys (else FindPdb fills it).
  absl::Status IndexPdbs(const ObjectSet& loaded, bool check_keys);
  void FillPdbKeyIndex() const;
  void IndexVolumeAttachmentsByNode();

  PartPtr<v1::Node> nodes_;
  // The pod store (see the file comment): one immutable compacted record
  // per pod (its shape, wire bytes, name and node name), shared with the
  // ClusterState and other snapshots that hold the same pod, so a snapshot
  // taken after a few pod events copies pointers, not pods (and touches no
  // record: their lifetime is pod_owners_'s, not one count each). Shapes are
  // shared (immutable) with the records they come from; pod_shape_ numbers
  // them in first-use order.
  std::vector<const internal::CompactPod*> pods_;
  // What keeps the records pods_ points to alive: the builder's own
  // records, or a pin on the state's (internal::PodRecordKeeper). Never
  // read otherwise.
  std::vector<std::shared_ptr<const void>> pod_owners_;
  std::vector<std::shared_ptr<const v1::Pod>> pod_shapes_;
  // Per shape, its CompactShape::id (internal::SnapshotParts::SameShapes).
  std::vector<uint32_t> pod_shape_dense_;
  std::vector<uint32_t> pod_shape_;
  std::vector<PodReady> pod_ready_;
  PartPtr<v1::PodDisruptionBudget> pdbs_;
  PartPtr<v1::NodePool> node_pools_;
  PartPtr<v1::NodeClaim> node_claims_;
  PartPtr<v1::VolumeAttachment> volume_attachments_;
  PartPtr<v1::PersistentVolumeClaim> persistent_volume_claims_;
  PartPtr<v1::PersistentVolume> persistent_volumes_;
  PartPtr<v1::StorageClass> storage_classes_;
  PartPtr<v1::CSINode> csi_nodes_;
  PartPtr<v1::DaemonSet> daemon_sets_;
  std::map<std::string, int64_t> skipped_kinds_;
  std::vector<v1::NodeOverlay> node_overlays_;

  // Keys are views into the protos above; the vectors' heap buffers do not
  // move when the Snapshot does, so the views stay valid.
  NameIndex namespace_ids_;
  std::vector<absl::string_view> namespace_names_;
  // Pods by (namespace, name). Build fills it while rejecting duplicates,
  // unless the builder was told the keys are unique (a state::ClusterState
  // assembling from its store): then the first FindPod fills it, so a
  // snapshot nobody looks a pod up in never pays for it.
  struct PodKeyIndex {
    absl::once_flag once;
    absl::flat_hash_map<NamespacedKey, PodIndex> map;
  };
  std::unique_ptr<PodKeyIndex> pod_by_key_ = std::make_unique<PodKeyIndex>();
  // PDBs by (namespace, name): filled by Build while rejecting duplicates,
  // or, when the PDBs part was shared (already checked), on the first
  // FindPdb.
  struct PdbKeyIndex {
    absl::once_flag once;
    absl::flat_hash_map<NamespacedKey, PdbIndex> map;
  };
  std::unique_ptr<PdbKeyIndex> pdb_by_key_ = std::make_unique<PdbKeyIndex>();

  std::vector<NamespaceId> pod_namespace_;
  std::vector<NodeIndex> pod_node_;  // Or kNone (unbound), kUnknownNode.
  // CSR: pods on node n are node_pods_[node_pod_offsets_[n] ..
  // node_pod_offsets_[n + 1]).
  std::vector<uint32_t> node_pod_offsets_ = {0};
  std::vector<PodIndex> node_pods_;
  std::vector<PodIndex> unbound_pods_;
  std::vector<PodIndex> pods_on_unknown_nodes_;
  // CSR by namespace id.
  std::vector<uint32_t> pdb_offsets_ = {0};
  std::vector<PdbIndex> pdbs_by_namespace_;
  // CSR by node, as for pods.
  std::vector<uint32_t> node_va_offsets_ = {0};
  std::vector<VolumeAttachmentIndex> node_vas_;
};

// Builds a Snapshot object by object, so that a host feeding it from its own
// watch streams (or a generator) never holds every pod as a message: each
// pod is compacted as it is added and freed.
//
//   SnapshotBuilder b;
//   for (v1::Pod& pod : incoming) b.AddPod(std::move(pod));
//   b.objects().nodes = std::move(nodes);
//   absl::StatusOr<Snapshot> s = std::move(b).Build();
class SnapshotBuilder {
 public:
  SnapshotBuilder();
  SnapshotBuilder(SnapshotBuilder&&) noexcept;
  SnapshotBuilder& operator=(SnapshotBuilder&&) noexcept;
  ~SnapshotBuilder();

  // Appends `pod` (PodIndex: the number of pods added before it). Never
  // fails; names are checked by Build.
  void AddPod(v1::Pod pod);
  // SDK-internal (src/snapshot/compact_pod.h, not installed): appends a pod
  // compacted ahead of time, without re-serializing anything; the shared
  // form holds the record itself (no copy), so snapshots taken from the
  // same compacted pods share their storage. The snapshot is the one AddPod
  // of the original pod would give.
  void AddCompactPod(const internal::CompactPod& pod);
  void AddCompactPod(std::shared_ptr<const internal::CompactPod> pod);
  // Preallocates for `pods` pods in all: optional, only faster.
  void ReservePods(size_t pods);
  // The number of pods added so far.
  size_t pod_count() const;

  // Every other kind, moved into the snapshot by Build. Pods left in
  // `objects().pods` are added by Build after those passed to AddPod.
  ObjectSet& objects() { return objects_; }

  // The snapshot; errors as Snapshot::Build. The builder is left empty.
  absl::StatusOr<Snapshot> Build() &&;

 private:
  struct ShapeTable;
  struct OwnedPods;

  // The id of the shape of `pod`, by its shape object when seen before,
  // else by its serialization (equal shapes, one id). `object` is
  // pod.shared_shape().get() and `dense` its CompactShape::id, passed so
  // that a known shape costs no read of the record or the shape.
  uint32_t InternCompactShape(const internal::CompactShape* object,
                              uint32_t dense, const internal::CompactPod& pod);
  // The same for a held pod (internal::SnapshotParts::AddHeldPod): every
  // pod of the builder comes from one compactor, so its shape's dense id
  // alone names the shape, and the shape is read on first sight only.
  uint32_t InternHeldShape(uint32_t dense, const internal::CompactPod& pod);
  // Appends `pod`, whose lifetime the caller (or owned_) guarantees;
  // `shape` and `shape_id` are its shape object and CompactShape::id.
  void AppendPod(const internal::CompactPod* pod,
                 const internal::CompactShape* shape, uint32_t shape_id,
                 PodReady ready);
  OwnedPods& owned();

  friend struct internal::SnapshotParts;

  Snapshot snapshot_;
  ObjectSet objects_;
  std::unique_ptr<ShapeTable> shapes_;
  // The records AddPod and AddCompactPod made or were given (created on
  // first use, handed to the snapshot's pod_owners_ by Build).
  std::shared_ptr<OwnedPods> owned_;
  // Owners the state handed over (internal::SnapshotParts::KeepPodsAlive).
  std::vector<std::shared_ptr<const void>> pod_owners_;
  // Kinds taken from an earlier snapshot (internal::SnapshotParts::Share).
  uint32_t shared_kinds_ = 0;
  // Objects taken as they are (internal::SnapshotParts::Held); created on
  // first use.
  std::unique_ptr<internal::HeldObjects> held_objects_;
  // Set by internal::SnapshotParts::AssumeUniquePodKeys.
  bool unique_pod_keys_ = false;
  // Per pod added, its node as an earlier snapshot sharing the Nodes
  // resolved it, or kNoNodeHint (internal::SnapshotParts::AddHeldPod);
  // empty when no pod came with a hint.
  std::vector<uint32_t> pod_node_hints_;
  // The Nodes part the hints index (internal::SnapshotParts::HintsFrom),
  // or the empty part: then hints index the shared Nodes part, if any.
  Snapshot::PartPtr<v1::Node> hint_nodes_;
  bool hints_from_ = false;
};

}  // namespace karpenter::snapshot

#endif  // KARPENTER_SNAPSHOT_SNAPSHOT_H_
