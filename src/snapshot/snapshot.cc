// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/snapshot/snapshot.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "google/protobuf/io/coded_stream.h"
#include "karpenter/well_known.h"
#include "snapshot/compact_pod.h"
#include "snapshot/object_sink.h"
#include "snapshot/validate.h"

namespace karpenter::snapshot {
namespace {

constexpr absl::string_view kDefaultNamespace = "default";
// kNone and kAmbiguous are reserved, so a kind holds at most 2^32 - 2.
constexpr size_t kMaxObjects = 0xFFFFFFFE;

template <typename T>
absl::Status CheckCount(const std::vector<T>& objects, absl::string_view what) {
  if (objects.size() <= kMaxObjects) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("too many ", what, ": ", objects.size()));
}

// Names object `i` of `list` for an error: where it was loaded from if the
// loader recorded it ("a.yaml: document 2: items[0]"), else its position
// ("node_pools[3]").
std::string Place(const ObjectSet& loaded,
                  const std::vector<ObjectOrigin>& origins,
                  absl::string_view list, size_t i) {
  std::string where = loaded.DescribeOrigin(origins, i);
  if (where.empty()) return absl::StrCat(list, "[", i, "]");
  return where;
}

// Place and `label` as the loaders write them: "a.yaml: document 2: Kind x"
// for a top-level object, "a.json: items[3] (Kind x)" for a list item,
// "nodes[3] (Kind x)" without an origin.
std::string PlaceAndLabel(const ObjectSet& loaded,
                          const std::vector<ObjectOrigin>& origins,
                          absl::string_view list, size_t i,
                          absl::string_view label) {
  const std::string where = Place(loaded, origins, list, i);
  const bool item = i >= origins.size() || !origins[i].item.empty() ||
                    loaded.DescribeOrigin(origins, i).empty();
  return absl::StrCat(where, item ? " (" : ": ", label, item ? ")" : "");
}

// " (line N)" for an object loaded from YAML, else "".
std::string LineOf(const std::vector<ObjectOrigin>& origins, size_t i) {
  if (i >= origins.size() || origins[i].line == 0) return "";
  return absl::StrCat(" (line ", origins[i].line, ")");
}

absl::Status Duplicate(absl::string_view kind, absl::string_view key,
                       const ObjectSet& loaded,
                       const std::vector<ObjectOrigin>& origins,
                       absl::string_view list, uint32_t first,
                       uint32_t second) {
  return absl::InvalidArgumentError(absl::StrCat(
      "duplicate ", kind, " \"", key,
      "\": ", Place(loaded, origins, list, first), LineOf(origins, first),
      " and ", Place(loaded, origins, list, second), LineOf(origins, second)));
}

absl::Status EmptyName(absl::string_view kind, const ObjectSet& loaded,
                       const std::vector<ObjectOrigin>& origins,
                       absl::string_view list, size_t i) {
  return absl::InvalidArgumentError(absl::StrCat(
      PlaceAndLabel(loaded, origins, list, i, absl::StrCat("unnamed ", kind)),
      ": metadata.name is empty", LineOf(origins, i)));
}

// Indexes objects by metadata.name, rejecting empty and duplicate names.
template <typename T>
absl::Status IndexByName(
    const std::vector<T>& objects, absl::string_view kind,
    const ObjectSet& loaded, const std::vector<ObjectOrigin>& origins,
    absl::string_view list,
    absl::flat_hash_map<absl::string_view, uint32_t>& out) {
  out.reserve(objects.size());
  for (uint32_t i = 0; i < objects.size(); ++i) {
    const std::string& name = objects[i].metadata().name();
    if (name.empty()) return EmptyName(kind, loaded, origins, list, i);
    const auto [it, inserted] = out.try_emplace(name, i);
    if (!inserted) {
      return Duplicate(kind, name, loaded, origins, list, it->second, i);
    }
  }
  return absl::OkStatus();
}

// Runs `validate` (snapshot/validate.h) on each of the cluster-scoped
// `objects`, naming the first that fails: "<place> (<Kind> <name>): ...".
template <typename T>
absl::Status ValidateEach(const std::vector<T>& objects, absl::string_view kind,
                          const ObjectSet& loaded,
                          const std::vector<ObjectOrigin>& origins,
                          absl::string_view list,
                          absl::Status (*validate)(const T&)) {
  for (size_t i = 0; i < objects.size(); ++i) {
    const absl::Status s = validate(objects[i]);
    if (s.ok()) continue;
    return absl::InvalidArgumentError(absl::StrCat(
        PlaceAndLabel(
            loaded, origins, list, i,
            internal::ObjectLabel(kind, "", objects[i].metadata().name())),
        ": ", s.message(), LineOf(origins, i)));
  }
  return absl::OkStatus();
}

// pkg/volume/util/storageclass.go `IsDefaultAnnotation`.
bool IsDefaultClass(const v1::StorageClass& sc) {
  const auto& annotations = sc.metadata().annotations();
  for (const absl::string_view key :
       {well_known::kIsDefaultStorageClassAnnotation,
        well_known::kBetaIsDefaultStorageClassAnnotation}) {
    const auto it = annotations.find(std::string(key));
    if (it != annotations.end() && it->second == "true") return true;
  }
  return false;
}

// True if `a` sorts before `b` in `GetDefaultClass`'s order: newer first,
// then by name. An absent timestamp is older than any present one.
bool PreferredDefault(const v1::StorageClass& a, const v1::StorageClass& b) {
  const v1::ObjectMeta& ma = a.metadata();
  const v1::ObjectMeta& mb = b.metadata();
  if (ma.has_creation_timestamp() != mb.has_creation_timestamp()) {
    return ma.has_creation_timestamp();
  }
  const auto& ta = ma.creation_timestamp();
  const auto& tb = mb.creation_timestamp();
  if (ta.seconds() != tb.seconds()) return ta.seconds() > tb.seconds();
  if (ta.nanos() != tb.nanos()) return ta.nanos() > tb.nanos();
  return ma.name() < mb.name();
}

template <typename T>
void DefaultNamespace(std::vector<T>& objects) {
  for (T& object : objects) {
    if (object.metadata().namespace_().empty()) {
      object.mutable_metadata()->set_namespace_(std::string(kDefaultNamespace));
    }
  }
}

}  // namespace

absl::StatusOr<Snapshot> Snapshot::Build(ObjectSet objects) {
  SnapshotBuilder builder;
  builder.ReservePods(objects.pods.size());
  for (v1::Pod& pod : objects.pods) builder.AddPod(std::move(pod));
  objects.pods = {};
  builder.objects() = std::move(objects);
  return std::move(builder).Build();
}

// Shapes by their deterministic serialization, and the shape objects of
// compacted pods by address. Only the builder needs it.
struct SnapshotBuilder::ShapeTable {
  // Compacts the pods given to AddPod.
  internal::PodCompactor compactor;
  absl::flat_hash_map<std::string, uint32_t> ids;
  absl::flat_hash_map<const internal::CompactShape*, uint32_t> by_object;
  // Shape objects in by_object whose id was stored from another object:
  // held so that their address is not reused while it is a key.
  std::vector<std::shared_ptr<const internal::CompactShape>> held;
  // The last shape object looked up, and its id (replicas often come in a
  // row).
  const internal::CompactShape* last = nullptr;
  uint32_t last_id = 0;
};

SnapshotBuilder::SnapshotBuilder() : shapes_(std::make_unique<ShapeTable>()) {}
SnapshotBuilder::SnapshotBuilder(SnapshotBuilder&&) noexcept = default;
SnapshotBuilder& SnapshotBuilder::operator=(SnapshotBuilder&&) noexcept =
    default;
SnapshotBuilder::~SnapshotBuilder() = default;

void SnapshotBuilder::ReservePods(size_t pods) {
  // Per-pod byte counts are guesses (a name, a node name, a pod's own
  // fields on the wire); growing past them is only slower. Reserving spares
  // the large reallocations that make glibc consolidate every chunk the
  // freed pods leave behind.
  Snapshot& s = snapshot_;
  s.pods_.reserve(pods);
  s.pod_shape_.reserve(pods);
  s.pod_ready_.reserve(pods);
}

size_t SnapshotBuilder::pod_count() const {
  return snapshot_.pod_shape_.size();
}

void SnapshotBuilder::AddPod(v1::Pod pod) {
  AddCompactPod(std::make_shared<const internal::CompactPod>(
      shapes_->compactor.Compact(std::move(pod))));
}

void SnapshotBuilder::AddCompactPod(const internal::CompactPod& pod) {
  AddCompactPod(std::make_shared<const internal::CompactPod>(pod));
}

void SnapshotBuilder::AddCompactPod(
    std::shared_ptr<const internal::CompactPod> pod) {
  Snapshot& s = snapshot_;
  s.pod_ready_.push_back(pod->ready());
  s.pod_shape_.push_back(InternCompactShape(*pod));
  s.pods_.push_back(std::move(pod));
}

uint32_t SnapshotBuilder::InternCompactShape(const internal::CompactPod& pod) {
  ShapeTable& table = *shapes_;
  const std::shared_ptr<const internal::CompactShape>& shape =
      pod.shared_shape();
  const internal::CompactShape* const object = shape.get();
  if (object == table.last) return table.last_id;
  auto& shapes = snapshot_.pod_shapes_;
  const auto [it, inserted] = table.by_object.try_emplace(object, 0);
  if (inserted) {
    // First sight of this object: an equal shape may have come through
    // AddPod or another compactor's object.
    const auto [id, added] = table.ids.try_emplace(
        object->key, static_cast<uint32_t>(shapes.size()));
    if (added) {
      // Shares the object: the snapshot keeps the compacted shape alive.
      shapes.push_back(std::shared_ptr<const v1::Pod>(shape, &object->pod));
    } else {
      table.held.push_back(shape);
    }
    it->second = id->second;
  }
  table.last = object;
  table.last_id = it->second;
  return it->second;
}

absl::StatusOr<Snapshot> SnapshotBuilder::Build() && {
  for (v1::Pod& pod : objects_.pods) AddPod(std::move(pod));
  objects_.pods = {};
  shapes_ = std::make_unique<ShapeTable>();
  Snapshot s = std::move(snapshot_);
  snapshot_ = Snapshot();
  ObjectSet objects = std::move(objects_);
  objects_ = ObjectSet();
  s.nodes_ = std::move(objects.nodes);
  s.pdbs_ = std::move(objects.pdbs);
  s.node_pools_ = std::move(objects.node_pools);
  s.node_claims_ = std::move(objects.node_claims);
  s.volume_attachments_ = std::move(objects.volume_attachments);
  s.persistent_volume_claims_ = std::move(objects.persistent_volume_claims);
  s.persistent_volumes_ = std::move(objects.persistent_volumes);
  s.storage_classes_ = std::move(objects.storage_classes);
  s.csi_nodes_ = std::move(objects.csi_nodes);
  s.daemon_sets_ = std::move(objects.daemon_sets);
  s.skipped_kinds_ = std::move(objects.skipped_kinds);
  KARPENTER_RETURN_IF_ERROR(CheckCount(s.nodes_, "nodes"));
  KARPENTER_RETURN_IF_ERROR(CheckCount(s.pod_shape_, "pods"));
  KARPENTER_RETURN_IF_ERROR(CheckCount(s.pdbs_, "pdbs"));
  KARPENTER_RETURN_IF_ERROR(CheckCount(s.node_pools_, "node_pools"));
  KARPENTER_RETURN_IF_ERROR(CheckCount(s.node_claims_, "node_claims"));
  KARPENTER_RETURN_IF_ERROR(
      CheckCount(s.volume_attachments_, "volume_attachments"));
  KARPENTER_RETURN_IF_ERROR(
      CheckCount(s.persistent_volume_claims_, "persistent_volume_claims"));
  KARPENTER_RETURN_IF_ERROR(
      CheckCount(s.persistent_volumes_, "persistent_volumes"));
  KARPENTER_RETURN_IF_ERROR(CheckCount(s.storage_classes_, "storage_classes"));
  KARPENTER_RETURN_IF_ERROR(CheckCount(s.csi_nodes_, "csi_nodes"));
  KARPENTER_RETURN_IF_ERROR(CheckCount(s.daemon_sets_, "daemon_sets"));
  DefaultNamespace(s.pdbs_);
  DefaultNamespace(s.persistent_volume_claims_);
  DefaultNamespace(s.daemon_sets_);
  // `objects` keeps the sources and origins, for error messages.
  KARPENTER_RETURN_IF_ERROR(s.IndexNames(objects));
  KARPENTER_RETURN_IF_ERROR(s.IndexPods(objects));
  KARPENTER_RETURN_IF_ERROR(s.IndexPdbs(objects));
  KARPENTER_RETURN_IF_ERROR(s.IndexVolumes(objects));
  KARPENTER_RETURN_IF_ERROR(s.IndexStorage(objects));
  KARPENTER_RETURN_IF_ERROR(s.IndexDaemonSets(objects));
  s.IndexNodeClaims();
  return s;
}

v1::Pod Snapshot::DecodePod(PodIndex p) const { return pods_[p]->Decode(); }

absl::string_view Snapshot::PodName(PodIndex p) const {
  return pods_[p]->name();
}

std::string Snapshot::PodKey(PodIndex p) const {
  return absl::StrCat(NamespaceName(pod_namespace_[p]), "/", PodName(p));
}

absl::Status Snapshot::IndexNames(const ObjectSet& loaded) {
  const ObjectOrigins& o = loaded.origins;
  KARPENTER_RETURN_IF_ERROR(
      IndexByName(nodes_, "Node", loaded, o.nodes, "nodes", node_by_name_));
  KARPENTER_RETURN_IF_ERROR(IndexByName(node_pools_, "NodePool", loaded,
                                        o.node_pools, "node_pools",
                                        node_pool_by_name_));
  return IndexByName(node_claims_, "NodeClaim", loaded, o.node_claims,
                     "node_claims", node_claim_by_name_);
}

NamespaceId Snapshot::Intern(absl::string_view ns) {
  const auto [it, inserted] = namespace_ids_.try_emplace(
      ns, static_cast<NamespaceId>(namespace_names_.size()));
  if (inserted) namespace_names_.push_back(ns);
  return it->second;
}

absl::Status Snapshot::IndexPods(const ObjectSet& loaded) {
  const std::vector<ObjectOrigin>& origins = loaded.origins.pods;
  const size_t n = pod_shape_.size();
  pod_namespace_.resize(n);
  pod_node_.assign(n, kNone);
  pod_by_key_.reserve(n);
  // The namespace is part of the shape: interned once per shape, at the
  // shape's first pod, which keeps namespaces in first-seen pod order.
  std::vector<NamespaceId> shape_namespace(pod_shapes_.size(), kNone);
  // Counting sort by node: count, prefix-sum, then place in input order.
  std::vector<uint32_t> count(nodes_.size() + 1, 0);
  for (uint32_t i = 0; i < n; ++i) {
    const absl::string_view name = PodName(i);
    if (name.empty()) return EmptyName("Pod", loaded, origins, "pods", i);
    NamespaceId& shape_ns = shape_namespace[pod_shape_[i]];
    if (shape_ns == kNone) {
      shape_ns = Intern(PodShape(i).metadata().namespace_());
    }
    const NamespaceId ns = shape_ns;
    pod_namespace_[i] = ns;
    const auto [it, inserted] =
        pod_by_key_.try_emplace(NamespacedKey{ns, name}, i);
    if (!inserted) {
      return Duplicate("Pod", absl::StrCat(namespace_names_[ns], "/", name),
                       loaded, origins, "pods", it->second, i);
    }
    const absl::string_view node_name = pods_[i]->node_name();
    if (node_name.empty()) {
      unbound_pods_.push_back(i);
    } else if (const auto node = Lookup(node_by_name_, node_name)) {
      pod_node_[i] = *node;
      ++count[*node + 1];
    } else {
      pod_node_[i] = kUnknownNode;
      pods_on_unknown_nodes_.push_back(i);
    }
  }
  for (size_t k = 1; k < count.size(); ++k) count[k] += count[k - 1];
  node_pod_offsets_ = count;
  node_pods_.resize(count.back());
  for (uint32_t i = 0; i < n; ++i) {
    if (pod_node_[i] < kUnknownNode) node_pods_[count[pod_node_[i]]++] = i;
  }
  return absl::OkStatus();
}

absl::Status Snapshot::IndexPdbs(const ObjectSet& loaded) {
  const std::vector<ObjectOrigin>& origins = loaded.origins.pdbs;
  std::vector<NamespaceId> pdb_namespace(pdbs_.size());
  pdb_by_key_.reserve(pdbs_.size());
  for (uint32_t i = 0; i < pdbs_.size(); ++i) {
    const v1::ObjectMeta& meta = pdbs_[i].metadata();
    if (meta.name().empty()) {
      return EmptyName("PodDisruptionBudget", loaded, origins, "pdbs", i);
    }
    const NamespaceId ns = Intern(meta.namespace_());
    pdb_namespace[i] = ns;
    const auto [it, inserted] =
        pdb_by_key_.try_emplace(NamespacedKey{ns, meta.name()}, i);
    if (!inserted) {
      return Duplicate("PodDisruptionBudget",
                       absl::StrCat(meta.namespace_(), "/", meta.name()),
                       loaded, origins, "pdbs", it->second, i);
    }
  }
  std::vector<uint32_t> count(namespace_names_.size() + 1, 0);
  for (const NamespaceId ns : pdb_namespace) ++count[ns + 1];
  for (size_t k = 1; k < count.size(); ++k) count[k] += count[k - 1];
  pdb_offsets_ = count;
  pdbs_by_namespace_.resize(pdbs_.size());
  for (uint32_t i = 0; i < pdbs_.size(); ++i) {
    pdbs_by_namespace_[count[pdb_namespace[i]]++] = i;
  }
  return absl::OkStatus();
}

absl::Status Snapshot::IndexVolumes(const ObjectSet& loaded) {
  KARPENTER_RETURN_IF_ERROR(
      IndexByName(volume_attachments_, "VolumeAttachment", loaded,
                  loaded.origins.volume_attachments, "volume_attachments",
                  volume_attachment_by_name_));
  const std::vector<ObjectOrigin>& pvc_origins =
      loaded.origins.persistent_volume_claims;
  pvc_by_key_.reserve(persistent_volume_claims_.size());
  for (uint32_t i = 0; i < persistent_volume_claims_.size(); ++i) {
    const v1::ObjectMeta& meta = persistent_volume_claims_[i].metadata();
    if (meta.name().empty()) {
      return EmptyName("PersistentVolumeClaim", loaded, pvc_origins,
                       "persistent_volume_claims", i);
    }
    const auto [it, inserted] =
        pvc_by_key_.try_emplace(std::pair{absl::string_view(meta.namespace_()),
                                          absl::string_view(meta.name())},
                                i);
    if (!inserted) {
      return Duplicate("PersistentVolumeClaim",
                       absl::StrCat(meta.namespace_(), "/", meta.name()),
                       loaded, pvc_origins, "persistent_volume_claims",
                       it->second, i);
    }
  }
  // Counting sort by node, as IndexPods does.
  std::vector<NodeIndex> va_node(volume_attachments_.size(), kNone);
  std::vector<uint32_t> count(nodes_.size() + 1, 0);
  for (uint32_t i = 0; i < volume_attachments_.size(); ++i) {
    const auto node =
        Lookup(node_by_name_, volume_attachments_[i].spec().node_name());
    if (!node) continue;
    va_node[i] = *node;
    ++count[*node + 1];
  }
  for (size_t k = 1; k < count.size(); ++k) count[k] += count[k - 1];
  node_va_offsets_ = count;
  node_vas_.resize(count.back());
  for (uint32_t i = 0; i < va_node.size(); ++i) {
    if (va_node[i] != kNone) node_vas_[count[va_node[i]]++] = i;
  }
  return absl::OkStatus();
}

absl::Status Snapshot::IndexStorage(const ObjectSet& loaded) {
  const ObjectOrigins& o = loaded.origins;
  KARPENTER_RETURN_IF_ERROR(IndexByName(
      persistent_volumes_, "PersistentVolume", loaded, o.persistent_volumes,
      "persistent_volumes", persistent_volume_by_name_));
  KARPENTER_RETURN_IF_ERROR(ValidateEach(
      persistent_volumes_, "PersistentVolume", loaded, o.persistent_volumes,
      "persistent_volumes", &internal::ValidatePersistentVolume));
  KARPENTER_RETURN_IF_ERROR(
      IndexByName(storage_classes_, "StorageClass", loaded, o.storage_classes,
                  "storage_classes", storage_class_by_name_));
  KARPENTER_RETURN_IF_ERROR(
      ValidateEach(storage_classes_, "StorageClass", loaded, o.storage_classes,
                   "storage_classes", &internal::ValidateStorageClass));
  for (uint32_t i = 0; i < storage_classes_.size(); ++i) {
    if (!IsDefaultClass(storage_classes_[i])) continue;
    if (default_storage_class_ == kNone ||
        PreferredDefault(storage_classes_[i],
                         storage_classes_[default_storage_class_])) {
      default_storage_class_ = i;
    }
  }
  KARPENTER_RETURN_IF_ERROR(IndexByName(csi_nodes_, "CSINode", loaded,
                                        o.csi_nodes, "csi_nodes",
                                        csi_node_by_name_));
  return ValidateEach(csi_nodes_, "CSINode", loaded, o.csi_nodes, "csi_nodes",
                      &internal::ValidateCSINode);
}

absl::Status Snapshot::IndexDaemonSets(const ObjectSet& loaded) {
  const std::vector<ObjectOrigin>& origins = loaded.origins.daemon_sets;
  daemon_set_by_key_.reserve(daemon_sets_.size());
  for (uint32_t i = 0; i < daemon_sets_.size(); ++i) {
    const v1::ObjectMeta& meta = daemon_sets_[i].metadata();
    if (meta.name().empty()) {
      return EmptyName("DaemonSet", loaded, origins, "daemon_sets", i);
    }
    const auto [it, inserted] = daemon_set_by_key_.try_emplace(
        std::pair{absl::string_view(meta.namespace_()),
                  absl::string_view(meta.name())},
        i);
    if (!inserted) {
      return Duplicate("DaemonSet",
                       absl::StrCat(meta.namespace_(), "/", meta.name()),
                       loaded, origins, "daemon_sets", it->second, i);
    }
  }
  return absl::OkStatus();
}

void Snapshot::IndexNodeClaims() {
  auto add = [](NameIndex& index, absl::string_view key, uint32_t i) {
    if (key.empty()) return;
    const auto [it, inserted] = index.try_emplace(key, i);
    if (!inserted) it->second = kAmbiguous;
  };
  for (uint32_t i = 0; i < node_claims_.size(); ++i) {
    const v1::NodeClaimStatus& status = node_claims_[i].status();
    add(node_claim_by_node_name_, status.node_name(), i);
    add(node_claim_by_provider_id_, status.provider_id(), i);
  }
}

std::optional<uint32_t> Snapshot::Lookup(const NameIndex& index,
                                         absl::string_view key) {
  const auto it = index.find(key);
  if (it == index.end() || it->second == kAmbiguous) return std::nullopt;
  return it->second;
}

std::optional<NodeIndex> Snapshot::FindNode(absl::string_view name) const {
  return Lookup(node_by_name_, name);
}

std::optional<NodePoolIndex> Snapshot::FindNodePool(
    absl::string_view name) const {
  return Lookup(node_pool_by_name_, name);
}

std::optional<NodeClaimIndex> Snapshot::FindNodeClaim(
    absl::string_view name) const {
  return Lookup(node_claim_by_name_, name);
}

std::optional<NamespaceId> Snapshot::FindNamespace(absl::string_view ns) const {
  return Lookup(namespace_ids_, ns);
}

std::optional<PodIndex> Snapshot::FindPod(absl::string_view ns,
                                          absl::string_view name) const {
  const std::optional<NamespaceId> id = FindNamespace(ns);
  if (!id) return std::nullopt;
  const auto it = pod_by_key_.find(NamespacedKey{*id, name});
  if (it == pod_by_key_.end()) return std::nullopt;
  return it->second;
}

std::optional<PdbIndex> Snapshot::FindPdb(absl::string_view ns,
                                          absl::string_view name) const {
  const std::optional<NamespaceId> id = FindNamespace(ns);
  if (!id) return std::nullopt;
  const auto it = pdb_by_key_.find(NamespacedKey{*id, name});
  if (it == pdb_by_key_.end()) return std::nullopt;
  return it->second;
}

std::optional<VolumeAttachmentIndex> Snapshot::FindVolumeAttachment(
    absl::string_view name) const {
  return Lookup(volume_attachment_by_name_, name);
}

std::optional<PersistentVolumeClaimIndex> Snapshot::FindPersistentVolumeClaim(
    absl::string_view ns, absl::string_view name) const {
  const auto it = pvc_by_key_.find(std::pair{ns, name});
  if (it == pvc_by_key_.end()) return std::nullopt;
  return it->second;
}

std::optional<PersistentVolumeIndex> Snapshot::FindPersistentVolume(
    absl::string_view name) const {
  return Lookup(persistent_volume_by_name_, name);
}

std::optional<StorageClassIndex> Snapshot::FindStorageClass(
    absl::string_view name) const {
  return Lookup(storage_class_by_name_, name);
}

std::optional<CSINodeIndex> Snapshot::FindCSINode(
    absl::string_view node) const {
  return Lookup(csi_node_by_name_, node);
}

std::optional<DaemonSetIndex> Snapshot::FindDaemonSet(
    absl::string_view ns, absl::string_view name) const {
  const auto it = daemon_set_by_key_.find(std::pair{ns, name});
  if (it == daemon_set_by_key_.end()) return std::nullopt;
  return it->second;
}

std::optional<StorageClassIndex> Snapshot::StorageClassOfClaim(
    PersistentVolumeClaimIndex c) const {
  const v1::PersistentVolumeClaimSpec& spec =
      persistent_volume_claims_[c].spec();
  if (!spec.has_storage_class_name()) {
    if (!spec.volume_name().empty()) return std::nullopt;
    return DefaultStorageClass();
  }
  if (spec.storage_class_name().empty()) return std::nullopt;
  return FindStorageClass(spec.storage_class_name());
}

absl::Span<const PdbIndex> Snapshot::PdbsInNamespace(
    absl::string_view ns) const {
  const std::optional<NamespaceId> id = FindNamespace(ns);
  if (!id) return {};
  return PdbsInNamespace(*id);
}

std::optional<NodeClaimIndex> Snapshot::FindNodeClaimByNodeName(
    absl::string_view node) const {
  if (node.empty()) return std::nullopt;
  return Lookup(node_claim_by_node_name_, node);
}

std::optional<NodeClaimIndex> Snapshot::FindNodeClaimByProviderId(
    absl::string_view provider_id) const {
  if (provider_id.empty()) return std::nullopt;
  return Lookup(node_claim_by_provider_id_, provider_id);
}

}  // namespace karpenter::snapshot
