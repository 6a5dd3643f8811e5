// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/scheduling/volumes.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "karpenter/scheduling/node_selector.h"
#include "karpenter/well_known.h"
#include "primitives/go_compat.h"

namespace karpenter::scheduling {
namespace {

namespace pb = google::protobuf;
using LabelMap = pb::Map<std::string, std::string>;
using primitives_internal::GoStrconvQuote;

constexpr absl::string_view kDefaultNamespace = "default";

// k8s.io/cloud-provider volume/constants.go `LabelMultiZoneDelimiter`.
constexpr absl::string_view kMultiZoneDelimiter = "__";

// volume_zone.go `topologyLabels`, in its order.
constexpr std::array<absl::string_view, 4> kTopologyLabels = {
    well_known::kLabelFailureDomainBetaZone,
    well_known::kLabelFailureDomainBetaRegion,
    well_known::kLabelTopologyZone,
    well_known::kLabelTopologyRegion,
};

// kube-scheduler's reasons.
constexpr absl::string_view kReasonVolumeZoneConflict =
    "node(s) had no available volume zone";  // volume_zone.go
constexpr absl::string_view kReasonNodeConflict =
    "node(s) had volume node affinity conflict";  // binder.go
constexpr absl::string_view kReasonBindConflict =
    "node(s) didn't find available persistent volumes to bind";
constexpr absl::string_view kReasonPVNotExist =
    "node(s) unavailable due to one or more pvc(s) bound to non-existent "
    "pv(s)";
constexpr absl::string_view kReasonUnboundImmediate =
    "pod has unbound immediate PersistentVolumeClaims";  // volume_binding.go
constexpr absl::string_view kReasonMaxVolumeCount =
    "node(s) exceed max volume count";  // csi.go
constexpr absl::string_view kClaimHadNoName =
    "PersistentVolumeClaim had no name";

absl::string_view NamespaceOrDefault(absl::string_view ns) {
  return ns.empty() ? kDefaultNamespace : ns;
}

// A lister's NotFound error: `<resource> "<name>" not found`.
std::string NotFound(absl::string_view resource, absl::string_view name) {
  return absl::StrCat(resource, " ", GoStrconvQuote(name), " not found");
}

FilterFailure Failure(absl::string_view plugin, FilterCode code,
                      std::string message) {
  return FilterFailure{plugin, code, std::move(message)};
}

FilterFailure Unresolvable(absl::string_view plugin, std::string message) {
  return Failure(plugin, FilterCode::kUnschedulableAndUnresolvable,
                 std::move(message));
}

absl::Status EmptyName(absl::string_view list, size_t i) {
  return absl::InvalidArgumentError(
      absl::StrCat(list, "[", i, "]: metadata.name is empty"));
}

absl::Status Duplicate(absl::string_view list, size_t i, absl::string_view key,
                       size_t first) {
  return absl::InvalidArgumentError(
      absl::StrCat(list, "[", i, "]: metadata.name: duplicate \"", key,
                   "\" (first at ", list, "[", first, "])"));
}

// Indexes `objects` by metadata.name, rejecting empty and duplicate names.
template <typename T, typename List>
absl::Status IndexByName(const List& objects, absl::string_view list,
                         absl::flat_hash_map<absl::string_view, const T*>& out,
                         absl::flat_hash_map<absl::string_view, size_t>& at) {
  out.reserve(objects.size());
  at.clear();
  for (size_t i = 0; i < objects.size(); ++i) {
    const std::string& name = objects[i].metadata().name();
    if (name.empty()) return EmptyName(list, i);
    const auto [it, inserted] = at.try_emplace(name, i);
    if (!inserted) return Duplicate(list, i, name, it->second);
    out.emplace(name, &objects[i]);
  }
  return absl::OkStatus();
}

bool IsDefaultClass(const v1::StorageClass& c) {
  const auto& a = c.metadata().annotations();
  for (absl::string_view key :
       {well_known::kIsDefaultStorageClassAnnotation,
        well_known::kBetaIsDefaultStorageClassAnnotation}) {
    const auto it = a.find(std::string(key));
    if (it != a.end() && it->second == "true") return true;
  }
  return false;
}

// `GetDefaultClass` order: newest creationTimestamp first, then name.
bool PreferredDefault(const v1::StorageClass& a, const v1::StorageClass& b) {
  const auto& ta = a.metadata().creation_timestamp();
  const auto& tb = b.metadata().creation_timestamp();
  const auto key_a = std::make_tuple(ta.seconds(), ta.nanos());
  const auto key_b = std::make_tuple(tb.seconds(), tb.nanos());
  if (key_a != key_b) return key_a > key_b;
  return a.metadata().name() < b.metadata().name();
}

// `GetPersistentVolumeClaimClass` plus the default class (API defaulting).
std::string ClaimClass(const v1::PersistentVolumeClaim& claim,
                       const VolumeIndex& index) {
  const auto& a = claim.metadata().annotations();
  const auto it = a.find(std::string(well_known::kBetaStorageClassAnnotation));
  if (it != a.end()) return it->second;
  if (claim.spec().has_storage_class_name()) {
    return claim.spec().storage_class_name();
  }
  const v1::StorageClass* def = index.default_storage_class();
  return def == nullptr ? std::string() : def->metadata().name();
}

// `GetPersistentVolumeClass`.
absl::string_view VolumeClass(const v1::PersistentVolume& pv) {
  const auto& a = pv.metadata().annotations();
  const auto it = a.find(std::string(well_known::kBetaStorageClassAnnotation));
  if (it != a.end()) return it->second;
  return pv.spec().storage_class_name();
}

// metav1.IsControlledBy(claim, pod): the first controller ownerReference
// has the pod's uid.
bool ControlledBy(const v1::PersistentVolumeClaim& claim, const v1::Pod& pod) {
  for (const v1::OwnerReference& ref : claim.metadata().owner_references()) {
    if (ref.has_controller() && ref.controller()) {
      return ref.uid() == pod.metadata().uid();
    }
  }
  return false;
}

// `LabelZonesToSet`: nullopt when a part is empty after trimming.
std::optional<std::vector<std::string>> ZoneSet(absl::string_view value) {
  std::vector<std::string> out;
  for (absl::string_view part : absl::StrSplit(value, kMultiZoneDelimiter)) {
    // Go's strings.TrimSpace trims Unicode white space; zone names are
    // ASCII.
    part = absl::StripAsciiWhitespace(part);
    if (part.empty()) return std::nullopt;
    out.emplace_back(part);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<VolumeTopology> TopologyOf(const v1::PersistentVolume& pv) {
  std::vector<VolumeTopology> out;
  const LabelMap& labels = pv.metadata().labels();
  for (absl::string_view key : kTopologyLabels) {
    const auto it = labels.find(std::string(key));
    if (it == labels.end()) continue;
    std::optional<std::vector<std::string>> values = ZoneSet(it->second);
    if (!values) continue;  // Kubernetes logs and ignores the label.
    out.push_back(VolumeTopology{std::string(key), *std::move(values)});
  }
  return out;
}

// volume_zone.go `translateToGALabel`.
absl::string_view ToGaLabel(absl::string_view key) {
  if (key == well_known::kLabelFailureDomainBetaRegion) {
    return well_known::kLabelTopologyRegion;
  }
  if (key == well_known::kLabelFailureDomainBetaZone) {
    return well_known::kLabelTopologyZone;
  }
  return key;
}

// component-helpers storage/volume `CheckNodeAffinity`: the node is known by
// its labels only.
bool VolumeAffinityMatches(const v1::PersistentVolume& pv,
                           const v1::Node& node) {
  if (!pv.spec().has_node_affinity()) return true;
  const v1::VolumeNodeAffinity& affinity = pv.spec().node_affinity();
  if (!affinity.has_required()) return true;
  return NodeSelectorMatchesLabels(affinity.required(),
                                   node.metadata().labels());
}

// csi.go `getCSIDriverInfo` / `getCSIDriverInfoFromSC`.
std::optional<CsiVolumeId> CsiOf(const PodVolume& v,
                                 absl::string_view claim_namespace) {
  if (v.claim == nullptr || !v.claim_owned) return std::nullopt;
  if (v.volume != nullptr) {
    if (!v.volume->spec().has_csi()) return std::nullopt;
    const v1::CSIPersistentVolumeSource& csi = v.volume->spec().csi();
    if (csi.driver().empty() || csi.volume_handle().empty()) {
      return std::nullopt;
    }
    return CsiVolumeId{csi.driver(), csi.volume_handle(), false};
  }
  if (v.storage_class == nullptr) return std::nullopt;
  const std::string& provisioner = v.storage_class->provisioner();
  if (provisioner.empty()) return std::nullopt;
  return CsiVolumeId{provisioner,
                     absl::StrCat(claim_namespace, "/", v.claim_name), true};
}

std::string PodKey(const PodVolumes& pod) {
  return absl::StrCat(pod.pod_namespace, "/", pod.pod_name);
}

// ephemeral.VolumeIsForPod's error.
std::string NotOwnedMessage(const PodVolumes& pod, const PodVolume& v) {
  return absl::StrCat("PVC ",
                      NamespaceOrDefault(v.claim->metadata().namespace_()), "/",
                      v.claim->metadata().name(), " was not created for pod ",
                      PodKey(pod), " (pod is not owner)");
}

}  // namespace

// --- VolumeIndex. ------------------------------------------------------------

absl::StatusOr<VolumeIndex> VolumeIndex::Build(
    absl::Span<const v1::PersistentVolumeClaim> claims,
    absl::Span<const v1::PersistentVolume> volumes,
    absl::Span<const v1::StorageClass> classes,
    absl::Span<const v1::CSINode> csi_nodes) {
  return BuildFrom(claims, volumes, classes, csi_nodes);
}

absl::StatusOr<VolumeIndex> VolumeIndex::Build(
    snapshot::ObjectList<v1::PersistentVolumeClaim> claims,
    snapshot::ObjectList<v1::PersistentVolume> volumes,
    snapshot::ObjectList<v1::StorageClass> classes,
    snapshot::ObjectList<v1::CSINode> csi_nodes) {
  return BuildFrom(claims, volumes, classes, csi_nodes);
}

template <typename Claims, typename Volumes, typename Classes,
          typename CsiNodes>
absl::StatusOr<VolumeIndex> VolumeIndex::BuildFrom(const Claims& claims,
                                                   const Volumes& volumes,
                                                   const Classes& classes,
                                                   const CsiNodes& csi_nodes) {
  VolumeIndex index;
  {
    absl::flat_hash_map<NamespacedName, size_t> at;
    index.claims_.reserve(claims.size());
    for (size_t i = 0; i < claims.size(); ++i) {
      const v1::ObjectMeta& m = claims[i].metadata();
      if (m.name().empty()) return EmptyName("persistentVolumeClaims", i);
      const NamespacedName key{NamespaceOrDefault(m.namespace_()), m.name()};
      const auto [it, inserted] = at.try_emplace(key, i);
      if (!inserted) {
        return Duplicate("persistentVolumeClaims", i,
                         absl::StrCat(key.first, "/", key.second), it->second);
      }
      index.claims_.emplace(key, &claims[i]);
    }
  }
  absl::flat_hash_map<absl::string_view, size_t> at;
  absl::Status s = IndexByName<v1::PersistentVolume>(
      volumes, "persistentVolumes", index.volumes_, at);
  if (!s.ok()) return s;
  s = IndexByName<v1::StorageClass>(classes, "storageClasses", index.classes_,
                                    at);
  if (!s.ok()) return s;
  s = IndexByName<v1::CSINode>(csi_nodes, "csiNodes", index.csi_nodes_, at);
  if (!s.ok()) return s;

  for (const v1::PersistentVolume& pv : volumes) {
    if (!pv.spec().has_claim_ref()) continue;
    const v1::ObjectReference& ref = pv.spec().claim_ref();
    index.claim_refs_[{NamespaceOrDefault(ref.namespace_()), ref.name()}]
        .push_back(&pv);
  }
  for (const v1::StorageClass& c : classes) {
    if (!IsDefaultClass(c)) continue;
    if (index.default_class_ == nullptr ||
        PreferredDefault(c, *index.default_class_)) {
      index.default_class_ = &c;
    }
  }
  return index;
}

const v1::PersistentVolumeClaim* VolumeIndex::FindClaim(
    absl::string_view ns, absl::string_view name) const {
  const auto it = claims_.find(NamespacedName{NamespaceOrDefault(ns), name});
  return it == claims_.end() ? nullptr : it->second;
}

const v1::PersistentVolume* VolumeIndex::FindVolume(
    absl::string_view name) const {
  const auto it = volumes_.find(name);
  return it == volumes_.end() ? nullptr : it->second;
}

const v1::StorageClass* VolumeIndex::FindStorageClass(
    absl::string_view name) const {
  const auto it = classes_.find(name);
  return it == classes_.end() ? nullptr : it->second;
}

const v1::CSINode* VolumeIndex::FindCSINode(absl::string_view node_name) const {
  const auto it = csi_nodes_.find(node_name);
  return it == csi_nodes_.end() ? nullptr : it->second;
}

std::vector<const v1::PersistentVolume*> VolumeIndex::VolumesClaiming(
    const v1::PersistentVolumeClaim& claim) const {
  std::vector<const v1::PersistentVolume*> out;
  const v1::ObjectMeta& m = claim.metadata();
  const auto it = claim_refs_.find(
      NamespacedName{NamespaceOrDefault(m.namespace_()), m.name()});
  if (it == claim_refs_.end()) return out;
  for (const v1::PersistentVolume* pv : it->second) {
    const std::string& uid = pv->spec().claim_ref().uid();
    if (uid.empty() || uid == m.uid()) out.push_back(pv);
  }
  return out;
}

// --- ResolvePodVolumes. ------------------------------------------------------

absl::StatusOr<PodVolumes> ResolvePodVolumes(const v1::Pod& pod,
                                             const VolumeIndex& index) {
  PodVolumes out;
  out.pod_namespace =
      std::string(NamespaceOrDefault(pod.metadata().namespace_()));
  out.pod_name = pod.metadata().name();
  absl::flat_hash_set<CsiVolumeId> seen;
  for (int i = 0; i < pod.spec().volumes_size(); ++i) {
    const v1::Volume& source = pod.spec().volumes(i);
    if (source.has_persistent_volume_claim() && source.has_ephemeral()) {
      return absl::InvalidArgumentError(
          absl::StrCat("pod \"", PodKey(out), "\": spec.volumes[", i, "] (",
                       GoStrconvQuote(source.name()),
                       "): sets both persistentVolumeClaim and ephemeral"));
    }
    if (!source.has_persistent_volume_claim() && !source.has_ephemeral()) {
      continue;
    }
    PodVolume v;
    v.name = source.name();
    v.ephemeral = source.has_ephemeral();
    v.claim_name = v.ephemeral
                       ? absl::StrCat(pod.metadata().name(), "-", source.name())
                       : source.persistent_volume_claim().claim_name();
    v.claim = index.FindClaim(out.pod_namespace, v.claim_name);
    if (v.claim != nullptr) {
      if (v.ephemeral) v.claim_owned = ControlledBy(*v.claim, pod);
      v.class_name = ClaimClass(*v.claim, index);
      if (!v.class_name.empty()) {
        v.storage_class = index.FindStorageClass(v.class_name);
      }
      v.wait_for_first_consumer =
          v.storage_class != nullptr &&
          v.storage_class->volume_binding_mode() ==
              well_known::kVolumeBindingWaitForFirstConsumer;
      const std::string& pv_name = v.claim->spec().volume_name();
      if (!pv_name.empty()) {
        v.volume = index.FindVolume(pv_name);
        if (v.volume != nullptr) v.topology = TopologyOf(*v.volume);
      } else {
        for (const v1::PersistentVolume* pv : index.VolumesClaiming(*v.claim)) {
          if (VolumeClass(*pv) != v.class_name) continue;  // `ListPVs(class)`
          if (pv->metadata().has_deletion_timestamp()) continue;
          v.prebound_volume = pv;
          break;
        }
      }
    }
    v.csi = CsiOf(v, out.pod_namespace);
    if (v.csi && seen.insert(*v.csi).second) out.csi_volumes.push_back(*v.csi);
    out.volumes.push_back(std::move(v));
  }
  return out;
}

// --- VolumeZone. -------------------------------------------------------------

std::optional<FilterFailure> VolumeZoneFilter(const PodVolumes& pod,
                                              const v1::Node& node) {
  const auto fail = [](std::string message) {
    return Unresolvable(kVolumeZone, std::move(message));
  };
  std::vector<const VolumeTopology*> topologies;
  for (const PodVolume& v : pod.volumes) {
    if (v.ephemeral) continue;  // Only persistentVolumeClaim volumes.
    if (v.claim_name.empty()) return fail(std::string(kClaimHadNoName));
    if (v.claim == nullptr) {
      return fail(NotFound("persistentvolumeclaim", v.claim_name));
    }
    const std::string& pv_name = v.claim->spec().volume_name();
    if (pv_name.empty()) {
      if (v.class_name.empty()) {
        return fail(
            "PersistentVolumeClaim had no pv name and storageClass name");
      }
      if (v.storage_class == nullptr) {
        return fail(NotFound("storageclass.storage.k8s.io", v.class_name));
      }
      if (v.wait_for_first_consumer) continue;  // Skip unbound volumes.
      return fail("PersistentVolume had no name");
    }
    if (v.volume == nullptr) return fail(NotFound("persistentvolume", pv_name));
    for (const VolumeTopology& t : v.topology) topologies.push_back(&t);
  }
  if (topologies.empty()) return std::nullopt;

  const LabelMap& labels = node.metadata().labels();
  const bool constrained = std::any_of(
      kTopologyLabels.begin(), kTopologyLabels.end(),
      [&](absl::string_view key) { return labels.contains(std::string(key)); });
  if (!constrained) return std::nullopt;  // E.g. a single-zone cluster.
  for (const VolumeTopology* t : topologies) {
    auto it = labels.find(t->key);
    if (it == labels.end()) it = labels.find(std::string(ToGaLabel(t->key)));
    if (it == labels.end() ||
        !std::binary_search(t->values.begin(), t->values.end(), it->second)) {
      return fail(std::string(kReasonVolumeZoneConflict));
    }
  }
  return std::nullopt;
}

// --- VolumeBinding. ----------------------------------------------------------

std::vector<FilterFailure> VolumeBindingFilter(const PodVolumes& pod,
                                               const v1::Node& node) {
  const auto fail = [](std::string message) {
    return std::vector<FilterFailure>{
        Unresolvable(kVolumeBinding, std::move(message))};
  };
  // PreFilter: `podHasPVCs`.
  for (const PodVolume& v : pod.volumes) {
    if (v.claim == nullptr) {
      if (v.ephemeral) {
        return fail(absl::StrCat(
            "waiting for ephemeral volume controller to create the "
            "persistentvolumeclaim ",
            GoStrconvQuote(v.claim_name)));
      }
      return fail(NotFound("persistentvolumeclaim", v.claim_name));
    }
    const v1::PersistentVolumeClaim& claim = *v.claim;
    if (claim.status().phase() == well_known::kClaimLost) {
      return fail(absl::StrCat("persistentvolumeclaim ",
                               GoStrconvQuote(claim.metadata().name()),
                               " bound to non-existent persistentvolume ",
                               GoStrconvQuote(claim.spec().volume_name())));
    }
    if (claim.metadata().has_deletion_timestamp()) {
      return fail(absl::StrCat("persistentvolumeclaim ",
                               GoStrconvQuote(claim.metadata().name()),
                               " is being deleted"));
    }
    if (v.ephemeral && !v.claim_owned) return fail(NotOwnedMessage(pod, v));
  }
  // PreFilter: `GetPodVolumeClaims` and the unbound immediate claims.
  std::vector<const PodVolume*> bound;
  std::vector<const PodVolume*> delayed;
  for (const PodVolume& v : pod.volumes) {
    if (!v.claim->spec().volume_name().empty()) {
      bound.push_back(&v);
    } else if (v.wait_for_first_consumer) {
      delayed.push_back(&v);
    } else {
      return fail(std::string(kReasonUnboundImmediate));
    }
  }

  // Filter: `FindPodVolumes`.
  bool bound_satisfied = true;
  bool bound_volumes_found = true;
  bool unbound_satisfied = true;
  for (const PodVolume* v : bound) {  // `checkBoundClaims`.
    if (v->volume == nullptr) {
      bound_volumes_found = false;
      break;
    }
    if (!VolumeAffinityMatches(*v->volume, node)) {
      bound_satisfied = false;
      break;
    }
  }
  const LabelMap& labels = node.metadata().labels();
  const std::string selected_node_key(well_known::kAnnSelectedNode);
  for (const PodVolume* v : delayed) {
    const auto& annotations = v->claim->metadata().annotations();
    const auto selected = annotations.find(selected_node_key);
    if (selected != annotations.end()) {
      if (selected->second != node.metadata().name()) {
        unbound_satisfied = false;  // Provisioning elsewhere.
        break;
      }
    } else if (v->prebound_volume != nullptr &&
               VolumeAffinityMatches(*v->prebound_volume, node)) {
      continue;  // `findMatchingVolumes`: the pre-bound volume.
    }
    // `checkVolumeProvisions`.
    const std::string& provisioner = v->storage_class->provisioner();
    if (provisioner.empty() ||
        provisioner == well_known::kNotSupportedProvisioner ||
        !TopologySelectorTermsMatch(v->storage_class->allowed_topologies(),
                                    labels)) {
      unbound_satisfied = false;
      break;
    }
  }
  std::vector<FilterFailure> out;
  if (!bound_satisfied) {
    out.push_back(
        Unresolvable(kVolumeBinding, std::string(kReasonNodeConflict)));
  }
  if (!unbound_satisfied) {
    out.push_back(
        Unresolvable(kVolumeBinding, std::string(kReasonBindConflict)));
  }
  if (!bound_volumes_found) {
    out.push_back(Unresolvable(kVolumeBinding, std::string(kReasonPVNotExist)));
  }
  return out;
}

// --- NodeVolumeLimits. -------------------------------------------------------

void NodeVolumeUsage::Add(const PodVolumes& pod) {
  for (const CsiVolumeId& id : pod.csi_volumes) {
    if (++refs_[id] == 1) ++per_driver_[id.driver];
  }
}

absl::Status NodeVolumeUsage::Remove(const PodVolumes& pod) {
  for (const CsiVolumeId& id : pod.csi_volumes) {
    if (!refs_.contains(id)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "pod \"", PodKey(pod), "\": csi volume ", GoStrconvQuote(id.driver),
          " ", GoStrconvQuote(id.handle), " is not in use on this node"));
    }
  }
  for (const CsiVolumeId& id : pod.csi_volumes) {
    const auto it = refs_.find(id);
    if (--it->second > 0) continue;
    refs_.erase(it);
    const auto d = per_driver_.find(id.driver);
    if (--d->second == 0) per_driver_.erase(d);
  }
  return absl::OkStatus();
}

int NodeVolumeUsage::Count(absl::string_view driver) const {
  const auto it = per_driver_.find(driver);
  return it == per_driver_.end() ? 0 : it->second;
}

std::optional<FilterFailure> NodeVolumeLimitsFilter(
    const PodVolumes& pod, const NodeVolumeUsage& usage,
    const v1::CSINode* csi_node) {
  // `filterAttachableVolumes` for the new pod.
  for (const PodVolume& v : pod.volumes) {
    if (v.claim_name.empty()) {
      return Unresolvable(kNodeVolumeLimits, std::string(kClaimHadNoName));
    }
    if (v.claim == nullptr) {
      return Unresolvable(
          kNodeVolumeLimits,
          absl::StrCat("looking up PVC ", pod.pod_namespace, "/", v.claim_name,
                       ": ", NotFound("persistentvolumeclaim", v.claim_name)));
    }
    if (v.ephemeral && !v.claim_owned) {
      return Unresolvable(kNodeVolumeLimits, NotOwnedMessage(pod, v));
    }
  }
  // New volumes per driver, those already on the node counted once.
  absl::flat_hash_map<absl::string_view, int> added;
  for (const CsiVolumeId& id : pod.csi_volumes) {
    if (!usage.Contains(id)) ++added[id.driver];
  }
  if (added.empty() || csi_node == nullptr) return std::nullopt;
  for (const auto& [driver, count] : added) {
    std::optional<int64_t> limit;
    for (const v1::CSINodeDriver& d : csi_node->spec().drivers()) {
      if (d.name() == driver && d.allocatable().has_count()) {
        limit = d.allocatable().count();  // The last entry wins, as in Go.
      }
    }
    if (limit && int64_t{usage.Count(driver)} + count > *limit) {
      return Failure(kNodeVolumeLimits, FilterCode::kUnschedulable,
                     std::string(kReasonMaxVolumeCount));
    }
  }
  return std::nullopt;
}

}  // namespace karpenter::scheduling
