// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Snapshot: the immutable, indexed view of a cluster that every core decides
// from (DESIGN.md §3). Built once per pass from an `ObjectSet`
// (karpenter/snapshot/load.h or a host's own informers) in O(objects).
//
// It stands in for the informer caches and field indexers Karpenter's
// controllers query: pods by `spec.nodeName` (karpenter/pkg/utils/pod,
// `nodeutils.GetPods`), PDBs by namespace (karpenter/pkg/utils/pdb/pdb.go),
// NodeClaims by `status.providerID` and `status.nodeName`
// (karpenter/pkg/utils/nodeclaim/nodeclaim.go, `NodeClaimForNode`), NodePools
// by name, VolumeAttachments by `spec.nodeName` (karpenter/pkg/utils/node
// `GetVolumeAttachments`) and PersistentVolumeClaims by namespace/name
// (karpenter/pkg/utils/volume `GetPersistentVolumeClaim`). Objects keep their
// input order everywhere (pods and VolumeAttachments on a node, PDBs in a
// namespace, the unbound lists), so a given input always yields the same
// snapshot; hash maps serve lookups only and are never iterated.
//
// Indexes are plain dense `uint32_t` positions into the object spans
// (`nodes()[n]`), valid for the snapshot that returned them.
//
// Normalisation applied by Build: a Pod, PodDisruptionBudget or
// PersistentVolumeClaim with an empty `metadata.namespace` (manifests,
// `kubectl ... --dry-run=client`) is placed in "default", as kubectl would
// create it. VolumeAttachments are cluster-scoped; their namespace is ignored.
//
// Thread-safety: immutable after Build; any number of threads may read one
// snapshot concurrently. Movable (indexes and views survive the move), not
// copyable.

#ifndef KARPENTER_SNAPSHOT_SNAPSHOT_H_
#define KARPENTER_SNAPSHOT_SNAPSHOT_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/v1/core.pb.h"
#include "karpenter/v1/karpenter.pb.h"
#include "karpenter/v1/storage.pb.h"

namespace karpenter::snapshot {

// Positions in the corresponding `Snapshot` span.
using NodeIndex = uint32_t;
using PodIndex = uint32_t;
using PdbIndex = uint32_t;
using NodePoolIndex = uint32_t;
using NodeClaimIndex = uint32_t;
using VolumeAttachmentIndex = uint32_t;
using PersistentVolumeClaimIndex = uint32_t;
// Dense id of a namespace holding at least one Pod or PDB.
using NamespaceId = uint32_t;

class Snapshot {
 public:
  // Indexes `objects`, taking ownership (the protos are moved, not copied).
  // Returns InvalidArgument naming the object if a Node, NodePool, NodeClaim
  // or VolumeAttachment name, or a Pod, PDB or PersistentVolumeClaim
  // namespace/name, is empty or occurs twice (e.g. `duplicate Pod
  // "default/web-1": pods[3] and pods[10]`), or if a kind has more than
  // 2^32 - 2 objects.
  static absl::StatusOr<Snapshot> Build(ObjectSet objects);

  // An empty snapshot.
  Snapshot() = default;
  Snapshot(Snapshot&&) noexcept = default;
  Snapshot& operator=(Snapshot&&) noexcept = default;
  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;

  // The objects, in input order.
  absl::Span<const v1::Node> nodes() const { return nodes_; }
  absl::Span<const v1::Pod> pods() const { return pods_; }
  absl::Span<const v1::PodDisruptionBudget> pdbs() const { return pdbs_; }
  absl::Span<const v1::NodePool> node_pools() const { return node_pools_; }
  absl::Span<const v1::NodeClaim> node_claims() const { return node_claims_; }
  absl::Span<const v1::VolumeAttachment> volume_attachments() const {
    return volume_attachments_;
  }
  absl::Span<const v1::PersistentVolumeClaim> persistent_volume_claims() const {
    return persistent_volume_claims_;
  }

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

  // Pods whose `spec.nodeName` is node `n`, in input order (any phase,
  // terminal pods included). `n` must be < nodes().size().
  absl::Span<const PodIndex> PodsOnNode(NodeIndex n) const {
    return absl::MakeConstSpan(node_pods_.data() + node_pod_offsets_[n],
                               node_pods_.data() + node_pod_offsets_[n + 1]);
  }
  // The node pod `p` is bound to, or nullopt if it is unbound or bound to a
  // node missing from the snapshot. `p` must be < pods().size().
  std::optional<NodeIndex> NodeOfPod(PodIndex p) const {
    if (pod_node_[p] == kNone) return std::nullopt;
    return pod_node_[p];
  }
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

  // Kinds the loader skipped (see ObjectSet::skipped_kinds).
  const std::map<std::string, int64_t>& skipped_kinds() const {
    return skipped_kinds_;
  }

 private:
  static constexpr uint32_t kNone = 0xFFFFFFFF;
  // Marks a key held by several objects.
  static constexpr uint32_t kAmbiguous = 0xFFFFFFFE;

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

  static std::optional<uint32_t> Lookup(const NameIndex& index,
                                        absl::string_view key);
  NamespaceId Intern(absl::string_view ns);
  absl::Status IndexNames();
  absl::Status IndexPods();
  absl::Status IndexPdbs();
  absl::Status IndexVolumes();
  void IndexNodeClaims();

  std::vector<v1::Node> nodes_;
  std::vector<v1::Pod> pods_;
  std::vector<v1::PodDisruptionBudget> pdbs_;
  std::vector<v1::NodePool> node_pools_;
  std::vector<v1::NodeClaim> node_claims_;
  std::vector<v1::VolumeAttachment> volume_attachments_;
  std::vector<v1::PersistentVolumeClaim> persistent_volume_claims_;
  std::map<std::string, int64_t> skipped_kinds_;

  // Keys are views into the protos above; the vectors' heap buffers do not
  // move when the Snapshot does, so the views stay valid.
  NameIndex node_by_name_;
  NameIndex node_pool_by_name_;
  NameIndex node_claim_by_name_;
  NameIndex node_claim_by_node_name_;    // Or kAmbiguous.
  NameIndex node_claim_by_provider_id_;  // Or kAmbiguous.
  NameIndex namespace_ids_;
  std::vector<absl::string_view> namespace_names_;
  absl::flat_hash_map<NamespacedKey, PodIndex> pod_by_key_;
  absl::flat_hash_map<NamespacedKey, PdbIndex> pdb_by_key_;
  NameIndex volume_attachment_by_name_;
  // By (namespace, name). Claim namespaces are not interned: NamespaceId
  // covers Pods and PDBs only.
  absl::flat_hash_map<std::pair<absl::string_view, absl::string_view>,
                      PersistentVolumeClaimIndex>
      pvc_by_key_;

  std::vector<NamespaceId> pod_namespace_;
  std::vector<NodeIndex> pod_node_;  // Or kNone.
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

}  // namespace karpenter::snapshot

#endif  // KARPENTER_SNAPSHOT_SNAPSHOT_H_
