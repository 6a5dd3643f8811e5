// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The volume predicates of kube-scheduler for existing nodes: may a pod's
// PersistentVolumeClaims (and generic ephemeral volumes, which are claims
// named "<pod name>-<volume name>") be used on a node? Three Filter plugins,
// each with kube-scheduler's messages and codes (FilterFailure,
// karpenter/scheduling/filter_status.h):
//   - VolumeZone: the zone and region labels of the bound PersistentVolumes
//     against the node's labels (pkg/scheduler/framework/plugins/volumezone/
//     volume_zone.go, with `LabelZonesToSet` of k8s.io/cloud-provider
//     volume/helpers/zones.go);
//   - VolumeBinding: bound volumes' `spec.nodeAffinity`, and whether the
//     unbound WaitForFirstConsumer claims can be provisioned for the node
//     (pkg/scheduler/framework/plugins/volumebinding/volume_binding.go
//     `podHasPVCs`, `PreFilter`, `Filter`, binder.go `GetPodVolumeClaims`,
//     `FindPodVolumes`, `checkBoundClaims`, `checkVolumeProvisions`, and
//     k8s.io/component-helpers storage/volume pv_helpers.go / helpers.go
//     `CheckNodeAffinity`, `IsVolumeBoundToClaim`,
//     `GetPersistentVolumeClaimClass`, `IsDelayBindingMode`);
//   - NodeVolumeLimits: the CSINode's per-driver attach limit
//     (pkg/scheduler/framework/plugins/nodevolumelimits/csi.go).
//
// Use: build a VolumeIndex over the cluster's objects once, resolve each
// pod once with ResolvePodVolumes, then run the filters per node. For
// NodeVolumeLimits, keep one NodeVolumeUsage per node, filled with the
// PodVolumes of the pods on it and updated as a simulation places and
// removes pods.
//
// Missing objects are not errors. A dump may be partial, and kube-scheduler
// itself meets claims, volumes and classes that do not exist (yet): a
// missing claim, volume or class is recorded in PodVolume (a null pointer)
// and each filter reports it as its plugin does, e.g.
// `persistentvolumeclaim "data" not found` or "pod has unbound immediate
// PersistentVolumeClaims". Errors (InvalidArgument) are kept for input no
// cluster could hold: empty or duplicate names, a volume with two sources.
//
// Deliberate differences from kube-scheduler (docs/semantics.md §9.6):
//   - A claim with `spec.volumeName` is bound. Kubernetes also wants the
//     annotation pv.kubernetes.io/bind-completed, which the PV controller
//     adds seconds after the name; hand-written manifests lack it.
//   - A claim without a class (neither the beta annotation
//     volume.beta.kubernetes.io/storage-class nor `spec.storageClassName`)
//     takes the default StorageClass, as the API server's DefaultStorageClass
//     admission (and the PV controller's retroactive assignment) would give
//     it: the class annotated storageclass.kubernetes.io/is-default-class
//     (or the beta annotation) "true", the newest by creationTimestamp, ties
//     by name (pkg/volume/util/storageclass.go `GetDefaultClass`).
//   - A StorageClass without volumeBindingMode is Immediate (the API
//     default); kube-scheduler reports "VolumeBindingMode not set".
//   - Unbound WaitForFirstConsumer claims are matched only with a volume
//     pre-bound to them (claimRef) and with dynamic provisioning; available
//     static volumes are not searched (the data model lacks the claims'
//     size, selector and volumeMode), so a claim that only a static volume
//     could satisfy fails VolumeBinding: conservative for disruption.
//     Storage capacity (CSIStorageCapacity, "node(s) did not have enough
//     free storage") is not checked.
//   - In-tree volumes are not translated to their CSI drivers (CSI
//     migration): an in-tree PersistentVolume counts against no CSI limit,
//     and a PersistentVolume's node affinity is read as it is.
//   - NodeVolumeLimits reads limits from the CSINode only, not from the
//     Node's `attachable-volumes-*` allocatable; its plugin errors
//     (kube-scheduler's Error code: a claim without a name, an ephemeral
//     claim the pod does not own) are reported as
//     kUnschedulableAndUnresolvable.
//
// Namespaces: an empty metadata.namespace of a pod or claim, and an empty
// claimRef namespace, read as "default" (as the snapshot loader defaults
// them).
//
// Thread-safety: VolumeIndex and PodVolumes are immutable once built; their
// const methods and the filters may be called concurrently. A
// NodeVolumeUsage is a plain value: mutate it from one thread at a time.

#ifndef KARPENTER_SCHEDULING_VOLUMES_H_
#define KARPENTER_SCHEDULING_VOLUMES_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "karpenter/scheduling/filter_status.h"
#include "karpenter/snapshot/object_list.h"
#include "karpenter/v1/core.pb.h"
#include "karpenter/v1/storage.pb.h"

namespace karpenter::scheduling {

// The PersistentVolumeClaims, PersistentVolumes, StorageClasses and
// CSINodes of a cluster, indexed by name. Keeps pointers into the spans'
// elements: they must outlive the index and every PodVolumes resolved
// through it.
class VolumeIndex {
 public:
  // Indexes the four lists. Claims are keyed by namespace ("" read as
  // "default") and name, the others by name. Also finds the default
  // StorageClass and, for each claim, the volumes whose `spec.claimRef`
  // names it.
  //
  // Errors: InvalidArgument naming the list, the index and the field, e.g.
  // `persistentVolumeClaims[2]: metadata.name is empty` or
  // `persistentVolumes[3]: metadata.name: duplicate "pv-1" (first at
  // persistentVolumes[0])`; for claims the value quoted is "namespace/name".
  static absl::StatusOr<VolumeIndex> Build(
      absl::Span<const v1::PersistentVolumeClaim> claims,
      absl::Span<const v1::PersistentVolume> volumes,
      absl::Span<const v1::StorageClass> classes,
      absl::Span<const v1::CSINode> csi_nodes);
  // The same over a Snapshot's lists (karpenter/snapshot/object_list.h).
  static absl::StatusOr<VolumeIndex> Build(
      snapshot::ObjectList<v1::PersistentVolumeClaim> claims,
      snapshot::ObjectList<v1::PersistentVolume> volumes,
      snapshot::ObjectList<v1::StorageClass> classes,
      snapshot::ObjectList<v1::CSINode> csi_nodes);

  // The claim `name` in namespace `ns` ("" read as "default"), or null.
  const v1::PersistentVolumeClaim* FindClaim(absl::string_view ns,
                                             absl::string_view name) const;
  // The PersistentVolume, StorageClass, CSINode of that name, or null. A
  // CSINode is named after its Node.
  const v1::PersistentVolume* FindVolume(absl::string_view name) const;
  const v1::StorageClass* FindStorageClass(absl::string_view name) const;
  const v1::CSINode* FindCSINode(absl::string_view node_name) const;

  // The default StorageClass (see the file comment), or null when no class
  // is annotated as default.
  const v1::StorageClass* default_storage_class() const {
    return default_class_;
  }

  // The volumes whose claimRef names `claim` (namespace and name, and uid
  // when the claimRef has one: `IsVolumeBoundToClaim`), in input order.
  std::vector<const v1::PersistentVolume*> VolumesClaiming(
      const v1::PersistentVolumeClaim& claim) const;

 private:
  using NamespacedName = std::pair<absl::string_view, absl::string_view>;

  VolumeIndex() = default;
  // Build over any random-access ranges of the four kinds.
  template <typename Claims, typename Volumes, typename Classes,
            typename CsiNodes>
  static absl::StatusOr<VolumeIndex> BuildFrom(const Claims& claims,
                                               const Volumes& volumes,
                                               const Classes& classes,
                                               const CsiNodes& csi_nodes);

  absl::flat_hash_map<NamespacedName, const v1::PersistentVolumeClaim*> claims_;
  absl::flat_hash_map<absl::string_view, const v1::PersistentVolume*> volumes_;
  absl::flat_hash_map<absl::string_view, const v1::StorageClass*> classes_;
  absl::flat_hash_map<absl::string_view, const v1::CSINode*> csi_nodes_;
  absl::flat_hash_map<NamespacedName, std::vector<const v1::PersistentVolume*>>
      claim_refs_;
  const v1::StorageClass* default_class_ = nullptr;
};

// One zone or region label of a bound PersistentVolume, as VolumeZone reads
// it: the key as written on the volume (GA topology.kubernetes.io/zone or
// /region, or beta failure-domain.beta.kubernetes.io/zone or /region) and
// its value split at "__", each part trimmed of white space. A value with
// an empty part (e.g. "a____b", "") is ignored, as Kubernetes ignores it.
struct VolumeTopology {
  std::string key;
  std::vector<std::string> values;  // Sorted, unique.

  friend bool operator==(const VolumeTopology&,
                         const VolumeTopology&) = default;
};

// What NodeVolumeLimits counts for one volume: its CSI driver and handle.
struct CsiVolumeId {
  std::string driver;
  // The bound PersistentVolume's `spec.csi.volumeHandle`; or, for a claim
  // whose volume is not known (no `spec.volumeName`, or a volume missing
  // from the index), "<namespace>/<claim name>" with `provisional` set: the
  // volume its StorageClass's provisioner would create. A provisional id
  // never equals a real handle.
  std::string handle;
  bool provisional = false;

  friend bool operator==(const CsiVolumeId&, const CsiVolumeId&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const CsiVolumeId& id) {
    return H::combine(std::move(h), id.driver, id.handle, id.provisional);
  }
};

// One volume of a pod that uses a claim, resolved. Pointers point into the
// VolumeIndex's inputs; null means "not found" (or "none").
struct PodVolume {
  // spec.volumes[].name.
  std::string name;
  // A generic ephemeral volume (spec.volumes[].ephemeral) rather than a
  // persistentVolumeClaim volume.
  bool ephemeral = false;
  // persistentVolumeClaim.claimName (possibly empty), or
  // "<pod name>-<volume name>" for an ephemeral volume.
  std::string claim_name;
  // The claim, in the pod's namespace; null if not in the index.
  const v1::PersistentVolumeClaim* claim = nullptr;
  // For an ephemeral volume: the claim's controller ownerReference has the
  // pod's uid (`ephemeral.VolumeIsForPod`). True for other volumes.
  bool claim_owned = true;
  // The claim's class: the beta annotation if present (even ""), else
  // `spec.storageClassName` if set (even ""), else the default class's
  // name, else "". Empty without a claim.
  std::string class_name;
  // The StorageClass `class_name`; null if empty or not in the index.
  const v1::StorageClass* storage_class = nullptr;
  // `storage_class` has volumeBindingMode WaitForFirstConsumer.
  bool wait_for_first_consumer = false;
  // The claim's `spec.volumeName` volume; null if unbound or missing.
  const v1::PersistentVolume* volume = nullptr;
  // For a claim without `spec.volumeName`: the first volume (input order)
  // pre-bound to it that kube-scheduler would pick: its claimRef names the
  // claim, its class is `class_name`, it is not being deleted.
  const v1::PersistentVolume* prebound_volume = nullptr;
  // The zone and region labels of `volume`, in kube-scheduler's order
  // (beta zone, beta region, GA zone, GA region).
  std::vector<VolumeTopology> topology;
  // What the volume counts against a CSI attach limit (csi.go
  // `getCSIDriverInfo`): `volume`'s `spec.csi` driver and handle (none for
  // a volume without both); without a known volume, the provisioner of
  // `storage_class` with a provisional handle (none without a class or
  // provisioner). None without a claim, or for an ephemeral claim the pod
  // does not own. Kubernetes counts every claim without a known volume
  // this way, whatever its binding mode.
  std::optional<CsiVolumeId> csi;
};

// A pod's claim-backed volumes, resolved once for all nodes.
struct PodVolumes {
  std::string pod_namespace;  // "" read as "default".
  std::string pod_name;
  // The persistentVolumeClaim and ephemeral volumes, in spec order; other
  // volume sources are left out.
  std::vector<PodVolume> volumes;
  // The distinct `csi` ids of `volumes`, in first-use order.
  std::vector<CsiVolumeId> csi_volumes;
};

// Resolves the claim-backed volumes of `pod` against `index` (see
// PodVolume for each field). The result points into the index's inputs.
//
// Errors: InvalidArgument if a volume sets both persistentVolumeClaim and
// ephemeral, e.g. `pod "default/web-0": spec.volumes[1] ("data"): sets
// both persistentVolumeClaim and ephemeral`.
absl::StatusOr<PodVolumes> ResolvePodVolumes(const v1::Pod& pod,
                                             const VolumeIndex& index);

// VolumeZone (kUnschedulableAndUnresolvable in every case). Over the pod's
// persistentVolumeClaim volumes (ephemeral volumes are not read), in spec
// order, the first problem of:
//   - an empty claimName: "PersistentVolumeClaim had no name";
//   - a missing claim: `persistentvolumeclaim "<name>" not found`;
//   - an unbound claim: with class "", "PersistentVolumeClaim had no pv name
//     and storageClass name"; with a missing class,
//     `storageclass.storage.k8s.io "<class>" not found`; WaitForFirstConsumer
//     claims are skipped; otherwise "PersistentVolume had no name";
//   - a missing volume: `persistentvolume "<name>" not found`.
// Then, when the node has any of the four zone/region labels, every
// VolumeTopology of the bound volumes must hold the node's value of its key
// or, when the node lacks that key, of its GA counterpart (a beta key is
// also looked up as GA; a GA key is not looked up as beta), else "node(s)
// had no available volume zone". A node without zone and region labels
// accepts every volume.
std::optional<FilterFailure> VolumeZoneFilter(const PodVolumes& pod,
                                              const v1::Node& node);

// VolumeBinding (kUnschedulableAndUnresolvable in every case). Returns the
// failures in kube-scheduler's order, empty when the node fits. First the
// pod-level checks of PreFilter, over all claim-backed volumes in spec
// order, the first one failing being the only failure:
//   - a missing claim: `persistentvolumeclaim "<name>" not found`, or for an
//     ephemeral volume `waiting for ephemeral volume controller to create
//     the persistentvolumeclaim "<name>"`;
//   - status.phase Lost: `persistentvolumeclaim "<name>" bound to
//     non-existent persistentvolume "<volumeName>"`;
//   - being deleted: `persistentvolumeclaim "<name>" is being deleted`;
//   - an ephemeral claim the pod does not own: `PVC <ns>/<name> was not
//     created for pod <ns>/<pod> (pod is not owner)`;
//   - an unbound claim that is not WaitForFirstConsumer (Immediate, no
//     class, or a missing class): "pod has unbound immediate
//     PersistentVolumeClaims".
// Then per node, up to three failures, in this order:
//   - "node(s) had volume node affinity conflict": a bound volume's
//     `spec.nodeAffinity.required` does not select the node's labels
//     (NodeSelectorMatchesLabels);
//   - "node(s) didn't find available persistent volumes to bind": an
//     unbound WaitForFirstConsumer claim annotated
//     volume.kubernetes.io/selected-node with another node; or one that is
//     neither satisfied by its pre-bound volume (whose node affinity must
//     select the node) nor provisionable for the node: its class needs a
//     provisioner other than "" and kubernetes.io/no-provisioner, and its
//     `allowedTopologies` must admit the node's labels
//     (TopologySelectorTermsMatch; an empty list admits every node);
//   - "node(s) unavailable due to one or more pvc(s) bound to non-existent
//     pv(s)": a bound claim's volume is missing.
// The bound volumes are checked in spec order and stop at the first
// missing volume or affinity conflict, as kube-scheduler does.
std::vector<FilterFailure> VolumeBindingFilter(const PodVolumes& pod,
                                               const v1::Node& node);

// The CSI volumes in use on one node, with reference counts per
// (driver, handle): a volume used by two pods counts once against the
// limit, and stays in use until both are removed.
class NodeVolumeUsage {
 public:
  // Counts the `csi_volumes` of a pod placed on the node.
  void Add(const PodVolumes& pod);
  // Uncounts a pod added before. Errors: InvalidArgument, leaving the usage
  // unchanged, if one of the pod's volumes is not in use, e.g. `pod
  // "default/web-0": csi volume "ebs.csi.aws.com" "vol-1" is not in use on
  // this node`.
  absl::Status Remove(const PodVolumes& pod);

  // Whether `id` is in use.
  bool Contains(const CsiVolumeId& id) const { return refs_.contains(id); }
  // The number of distinct volumes of `driver` in use.
  int Count(absl::string_view driver) const;

 private:
  absl::flat_hash_map<CsiVolumeId, int> refs_;
  absl::flat_hash_map<std::string, int> per_driver_;
};

// NodeVolumeLimits for a node whose volumes in use are `usage` and whose
// CSINode is `csi_node` (null: none). First the pod-level checks, over the
// claim-backed volumes in spec order (kUnschedulableAndUnresolvable):
//   - an empty claimName: "PersistentVolumeClaim had no name";
//   - a missing claim: `looking up PVC <ns>/<name>: persistentvolumeclaim
//     "<name>" not found`;
//   - an ephemeral claim the pod does not own: `PVC <ns>/<name> was not
//     created for pod <ns>/<pod> (pod is not owner)`.
// Then the pod's `csi_volumes` not already in `usage` are its new volumes;
// for each driver with new volumes whose CSINode entry
// (`spec.drivers[name=driver]`) has `allocatable.count`, the node fails
// with "node(s) exceed max volume count" (kUnschedulable) when
// usage.Count(driver) plus the new ones exceed that count. No CSINode, no
// entry for the driver, or no count: no limit.
std::optional<FilterFailure> NodeVolumeLimitsFilter(
    const PodVolumes& pod, const NodeVolumeUsage& usage,
    const v1::CSINode* csi_node);

}  // namespace karpenter::scheduling

#endif  // KARPENTER_SCHEDULING_VOLUMES_H_
