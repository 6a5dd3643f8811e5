// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/snapshot/snapshot.h"

#include <deque>
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
#include "snapshot/snapshot_parts.h"
#include "snapshot/validate.h"

namespace karpenter::snapshot {
namespace {

constexpr absl::string_view kDefaultNamespace = "default";
// kNone and kAmbiguous are reserved, so a kind holds at most 2^32 - 2.
constexpr size_t kMaxObjects = 0xFFFFFFFE;

absl::Status CheckCount(size_t count, absl::string_view what) {
  if (count <= kMaxObjects) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("too many ", what, ": ", count));
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
    ObjectList<T> objects, absl::string_view kind, const ObjectSet& loaded,
    const std::vector<ObjectOrigin>& origins, absl::string_view list,
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
absl::Status ValidateEach(ObjectList<T> objects, absl::string_view kind,
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
  // By CompactShape::id: the object last seen with that id and its
  // snapshot id (a faster by_object for one compactor's shapes).
  std::vector<std::pair<const internal::CompactShape*, uint32_t>> by_dense_id;
  // By CompactShape::id, for held pods (SnapshotParts::AddHeldPod: one
  // compactor, so the id alone names the shape): its snapshot id, or
  // kNoId.
  std::vector<uint32_t> by_held_id;
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
  pod_node_hints_.reserve(pods);
}

size_t SnapshotBuilder::pod_count() const {
  return snapshot_.pod_shape_.size();
}

// The records a builder made (AddPod, AddCompactPod by reference) or was
// given (AddCompactPod by shared pointer); a deque, so that their addresses
// stay put as it grows. Immutable once the snapshot is built.
struct SnapshotBuilder::OwnedPods {
  std::deque<internal::CompactPod> made;
  std::vector<std::shared_ptr<const internal::CompactPod>> given;
};

SnapshotBuilder::OwnedPods& SnapshotBuilder::owned() {
  if (owned_ == nullptr) owned_ = std::make_shared<OwnedPods>();
  return *owned_;
}

void SnapshotBuilder::AddPod(v1::Pod pod) {
  const internal::CompactPod& made =
      owned().made.emplace_back(shapes_->compactor.Compact(std::move(pod)));
  AppendPod(&made, made.shared_shape().get(), made.shared_shape()->id,
            made.ready());
}

void SnapshotBuilder::AddCompactPod(const internal::CompactPod& pod) {
  const internal::CompactPod& made = owned().made.emplace_back(pod);
  AppendPod(&made, made.shared_shape().get(), made.shared_shape()->id,
            made.ready());
}

void SnapshotBuilder::AddCompactPod(
    std::shared_ptr<const internal::CompactPod> pod) {
  const internal::CompactPod* const record = pod.get();
  owned().given.push_back(std::move(pod));
  AppendPod(record, record->shared_shape().get(), record->shared_shape()->id,
            record->ready());
}

void SnapshotBuilder::AppendPod(const internal::CompactPod* pod,
                                const internal::CompactShape* shape,
                                uint32_t shape_id, PodReady ready) {
  Snapshot& s = snapshot_;
  s.pod_ready_.push_back(ready);
  s.pod_shape_.push_back(InternCompactShape(shape, shape_id, *pod));
  s.pods_.push_back(pod);
}

uint32_t SnapshotBuilder::InternHeldShape(uint32_t dense,
                                          const internal::CompactPod& pod) {
  constexpr uint32_t kNoId = internal::CompactShape::kNoId;
  ShapeTable& table = *shapes_;
  if (dense < table.by_held_id.size() && table.by_held_id[dense] != kNoId) {
    return table.by_held_id[dense];
  }
  if (dense == kNoId) {
    return InternCompactShape(pod.shared_shape().get(), dense, pod);
  }
  // Every held pod comes from one compactor, whose live shapes differ by
  // key: a shape id not seen yet is a shape not seen yet.
  auto& shapes = snapshot_.pod_shapes_;
  const auto id = static_cast<uint32_t>(shapes.size());
  shapes.push_back(std::shared_ptr<const v1::Pod>(pod.shared_shape(),
                                                  &pod.shared_shape()->pod));
  snapshot_.pod_shape_dense_.push_back(dense);
  if (dense >= table.by_held_id.size()) {
    table.by_held_id.resize(dense + 1, kNoId);
  }
  table.by_held_id[dense] = id;
  return id;
}

uint32_t SnapshotBuilder::InternCompactShape(
    const internal::CompactShape* object, uint32_t dense,
    const internal::CompactPod& pod) {
  ShapeTable& table = *shapes_;
  if (object == table.last) return table.last_id;
  if (dense < table.by_dense_id.size() &&
      table.by_dense_id[dense].first == object) {
    table.last = object;
    table.last_id = table.by_dense_id[dense].second;
    return table.last_id;
  }
  auto& shapes = snapshot_.pod_shapes_;
  const auto [it, inserted] = table.by_object.try_emplace(object, 0);
  if (inserted) {
    // First sight of this object: an equal shape may have come through
    // AddPod or another compactor's object.
    const std::shared_ptr<const internal::CompactShape>& shape =
        pod.shared_shape();
    const auto [id, added] = table.ids.try_emplace(
        object->key, static_cast<uint32_t>(shapes.size()));
    if (added) {
      // Shares the object: the snapshot keeps the compacted shape alive.
      shapes.push_back(std::shared_ptr<const v1::Pod>(shape, &object->pod));
      snapshot_.pod_shape_dense_.push_back(dense);
    } else {
      table.held.push_back(shape);
    }
    it->second = id->second;
  }
  if (dense != internal::CompactShape::kNoId) {
    if (dense >= table.by_dense_id.size()) {
      table.by_dense_id.resize(dense + 1, {nullptr, 0});
    }
    table.by_dense_id[dense] = {object, it->second};
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
  s.pod_owners_ = std::move(pod_owners_);
  pod_owners_ = {};
  if (owned_ != nullptr) s.pod_owners_.push_back(std::move(owned_));
  ObjectSet objects = std::move(objects_);
  objects_ = ObjectSet();
  const uint32_t shared = shared_kinds_;
  shared_kinds_ = 0;
  const bool check_keys = !unique_pod_keys_;
  unique_pod_keys_ = false;
  s.skipped_kinds_ = std::move(objects.skipped_kinds);
  s.node_overlays_ = std::move(objects.node_overlays);
  KARPENTER_RETURN_IF_ERROR(CheckCount(s.pod_shape_.size(), "pods"));
  // `objects` keeps the sources and origins, for error messages.
  internal::HeldObjects held;
  if (held_objects_ != nullptr) {
    held = std::move(*held_objects_);
    held_objects_.reset();
  }
  KARPENTER_RETURN_IF_ERROR(s.BuildNodeParts(objects, held, shared));
  // Hints hold only for the Nodes part they were resolved against, which
  // a builder shares (SnapshotParts::AddHeldPod).
  std::vector<uint32_t> hints = std::move(pod_node_hints_);
  pod_node_hints_ = {};
  const Snapshot::PartPtr<v1::Node> hint_nodes = std::move(hint_nodes_);
  const bool hints_from = std::exchange(hints_from_, false);
  if (s.nodes_->objects.size() >= Snapshot::kNoNodeHint) {
    hints.clear();
  } else if (hints_from && !(hint_nodes == s.nodes_)) {
    // Hints index an earlier Nodes part: translate them by name, one
    // lookup per earlier Node. A pod on a Node that is gone names an
    // unknown node now; one that named an unknown node is looked up again
    // (the Node may have come).
    std::vector<uint32_t> to(hint_nodes->objects.size());
    for (size_t i = 0; i < to.size(); ++i) {
      to[i] = Snapshot::Lookup(s.nodes_->by_name,
                               hint_nodes->objects[i]->metadata().name())
                  .value_or(Snapshot::kUnknownNode);
    }
    for (uint32_t& h : hints) {
      if (h < to.size()) {
        h = to[h];
      } else if (h == Snapshot::kUnknownNode) {
        h = Snapshot::kNoNodeHint;
      } else if (h != Snapshot::kNone) {
        h = Snapshot::kNoNodeHint;  // Not an index of the earlier part.
      }
    }
  } else if (!hints_from && (shared & internal::SnapshotParts::kNodes) == 0) {
    hints.clear();
  }
  KARPENTER_RETURN_IF_ERROR(s.IndexPods(objects, check_keys, hints));
  KARPENTER_RETURN_IF_ERROR(
      s.IndexPdbs(objects, (shared & internal::SnapshotParts::kPdbs) == 0));
  KARPENTER_RETURN_IF_ERROR(s.BuildVolumeParts(objects, held, shared));
  s.IndexVolumeAttachmentsByNode();
  return s;
}

v1::Pod Snapshot::DecodePod(PodIndex p) const { return pods_[p]->Decode(); }

absl::string_view Snapshot::PodName(PodIndex p) const {
  return pods_[p]->name();
}

std::string Snapshot::PodKey(PodIndex p) const {
  return absl::StrCat(NamespaceName(pod_namespace_[p]), "/", PodName(p));
}

template <typename T>
absl::Status Snapshot::NewPart(std::vector<T>& objects,
                               std::vector<std::shared_ptr<const T>>& held,
                               uint32_t shared, uint32_t bit,
                               absl::string_view list,
                               std::shared_ptr<Part<T>>& out) {
  if ((shared & bit) != 0) {
    if (!objects.empty() || !held.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the builder shares ", list, " from an earlier snapshot but was ",
          "given ", objects.size() + held.size(), " more"));
    }
    return absl::OkStatus();
  }
  if (!objects.empty() && !held.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the builder was given ", list, " both as objects (",
                     objects.size(), ") and held (", held.size(), ")"));
  }
  KARPENTER_RETURN_IF_ERROR(CheckCount(objects.size() + held.size(), list));
  out = std::make_shared<Part<T>>();
  if (!held.empty()) {
    out->objects = std::move(held);
    held = {};
    return absl::OkStatus();
  }
  out->objects.reserve(objects.size());
  for (T& object : objects) {
    out->objects.push_back(std::make_shared<const T>(std::move(object)));
  }
  objects = {};
  return absl::OkStatus();
}

absl::Status Snapshot::BuildNodeParts(ObjectSet& loaded,
                                      internal::HeldObjects& held,
                                      uint32_t shared) {
  using Bits = internal::SnapshotParts;
  const ObjectOrigins& o = loaded.origins;
  std::shared_ptr<Part<v1::Node>> nodes;
  std::shared_ptr<Part<v1::PodDisruptionBudget>> pdbs;
  std::shared_ptr<Part<v1::NodePool>> pools;
  std::shared_ptr<Part<v1::NodeClaim>> claims;
  DefaultNamespace(loaded.pdbs);
  KARPENTER_RETURN_IF_ERROR(
      NewPart(loaded.nodes, held.nodes, shared, Bits::kNodes, "nodes", nodes));
  KARPENTER_RETURN_IF_ERROR(
      NewPart(loaded.pdbs, held.pdbs, shared, Bits::kPdbs, "pdbs", pdbs));
  KARPENTER_RETURN_IF_ERROR(NewPart(loaded.node_pools, held.node_pools, shared,
                                    Bits::kNodePools, "node_pools", pools));
  KARPENTER_RETURN_IF_ERROR(NewPart(loaded.node_claims, held.node_claims,
                                    shared, Bits::kNodeClaims, "node_claims",
                                    claims));
  if (nodes != nullptr) {
    KARPENTER_RETURN_IF_ERROR(IndexByName(nodes->List(), "Node", loaded,
                                          o.nodes, "nodes", nodes->by_name));
    nodes_ = std::move(nodes);
  }
  if (pdbs != nullptr) pdbs_ = std::move(pdbs);
  if (pools != nullptr) {
    KARPENTER_RETURN_IF_ERROR(IndexByName(pools->List(), "NodePool", loaded,
                                          o.node_pools, "node_pools",
                                          pools->by_name));
    node_pools_ = std::move(pools);
  }
  if (claims != nullptr) {
    KARPENTER_RETURN_IF_ERROR(IndexByName(claims->List(), "NodeClaim", loaded,
                                          o.node_claims, "node_claims",
                                          claims->by_name));
    const auto add = [](NameIndex& index, absl::string_view key, uint32_t i) {
      if (key.empty()) return;
      const auto [it, inserted] = index.try_emplace(key, i);
      if (!inserted) it->second = kAmbiguous;
    };
    for (uint32_t i = 0; i < claims->objects.size(); ++i) {
      const v1::NodeClaimStatus& status = claims->objects[i]->status();
      add(claims->by_node_name, status.node_name(), i);
      add(claims->by_provider_id, status.provider_id(), i);
    }
    node_claims_ = std::move(claims);
  }
  return absl::OkStatus();
}

NamespaceId Snapshot::Intern(absl::string_view ns) {
  const auto [it, inserted] = namespace_ids_.try_emplace(
      ns, static_cast<NamespaceId>(namespace_names_.size()));
  if (inserted) namespace_names_.push_back(ns);
  return it->second;
}

absl::Status Snapshot::IndexPods(const ObjectSet& loaded, bool check_keys,
                                 absl::Span<const uint32_t> node_hints) {
  const std::vector<ObjectOrigin>& origins = loaded.origins.pods;
  const size_t n = pod_shape_.size();
  pod_namespace_.resize(n);
  pod_node_.assign(n, kNone);
  auto& by_key = pod_by_key_->map;
  if (check_keys) by_key.reserve(n);
  // The namespace is part of the shape: interned once per shape, at the
  // shape's first pod, which keeps namespaces in first-seen pod order.
  std::vector<NamespaceId> shape_namespace(pod_shapes_.size(), kNone);
  // Counting sort by node: count, prefix-sum, then place in input order.
  std::vector<uint32_t> count(nodes_->objects.size() + 1, 0);
  for (uint32_t i = 0; i < n; ++i) {
    // Without check_keys the caller vouches for the names (a record is
    // then not read here at all when its node is hinted).
    if (check_keys && PodName(i).empty()) {
      return EmptyName("Pod", loaded, origins, "pods", i);
    }
    NamespaceId& shape_ns = shape_namespace[pod_shape_[i]];
    if (shape_ns == kNone) {
      shape_ns = Intern(PodShape(i).metadata().namespace_());
    }
    const NamespaceId ns = shape_ns;
    pod_namespace_[i] = ns;
    if (check_keys) {
      const absl::string_view name = PodName(i);
      const auto [it, inserted] =
          by_key.try_emplace(NamespacedKey{ns, name}, i);
      if (!inserted) {
        return Duplicate("Pod", absl::StrCat(namespace_names_[ns], "/", name),
                         loaded, origins, "pods", it->second, i);
      }
    }
    const uint32_t hint = node_hints.empty() ? kNoNodeHint : node_hints[i];
    if (hint != kNoNodeHint) {
      pod_node_[i] = hint;
      if (hint == kNone) {
        unbound_pods_.push_back(i);
      } else if (hint == kUnknownNode) {
        pods_on_unknown_nodes_.push_back(i);
      } else {
        ++count[hint + 1];
      }
      continue;
    }
    const absl::string_view node_name = pods_[i]->node_name();
    if (node_name.empty()) {
      unbound_pods_.push_back(i);
    } else if (const auto node = Lookup(nodes_->by_name, node_name)) {
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
  // Filled: FindPod must not fill it again.
  if (check_keys) absl::call_once(pod_by_key_->once, [] {});
  return absl::OkStatus();
}

void Snapshot::FillPdbKeyIndex() const {
  const ObjectList<v1::PodDisruptionBudget> pdbs = pdbs_->List();
  auto& by_key = pdb_by_key_->map;
  by_key.reserve(pdbs.size());
  for (uint32_t i = 0; i < pdbs.size(); ++i) {
    const v1::ObjectMeta& meta = pdbs[i].metadata();
    const std::optional<NamespaceId> ns = FindNamespace(meta.namespace_());
    by_key.try_emplace(NamespacedKey{*ns, meta.name()}, i);
  }
}

void Snapshot::FillPodKeyIndex() const {
  auto& by_key = pod_by_key_->map;
  by_key.reserve(pod_count());
  for (uint32_t i = 0; i < pod_count(); ++i) {
    by_key.try_emplace(NamespacedKey{pod_namespace_[i], PodName(i)}, i);
  }
}

absl::Status Snapshot::IndexPdbs(const ObjectSet& loaded, bool check_keys) {
  const std::vector<ObjectOrigin>& origins = loaded.origins.pdbs;
  const ObjectList<v1::PodDisruptionBudget> pdbs = pdbs_->List();
  std::vector<NamespaceId> pdb_namespace(pdbs.size());
  auto& by_key = pdb_by_key_->map;
  if (check_keys) by_key.reserve(pdbs.size());
  for (uint32_t i = 0; i < pdbs.size(); ++i) {
    const v1::ObjectMeta& meta = pdbs[i].metadata();
    if (check_keys && meta.name().empty()) {
      return EmptyName("PodDisruptionBudget", loaded, origins, "pdbs", i);
    }
    const NamespaceId ns = Intern(meta.namespace_());
    pdb_namespace[i] = ns;
    if (!check_keys) continue;
    const auto [it, inserted] =
        by_key.try_emplace(NamespacedKey{ns, meta.name()}, i);
    if (!inserted) {
      return Duplicate("PodDisruptionBudget",
                       absl::StrCat(meta.namespace_(), "/", meta.name()),
                       loaded, origins, "pdbs", it->second, i);
    }
  }
  // Filled: FindPdb must not fill it again.
  if (check_keys) absl::call_once(pdb_by_key_->once, [] {});
  std::vector<uint32_t> count(namespace_names_.size() + 1, 0);
  for (const NamespaceId ns : pdb_namespace) ++count[ns + 1];
  for (size_t k = 1; k < count.size(); ++k) count[k] += count[k - 1];
  pdb_offsets_ = count;
  pdbs_by_namespace_.resize(pdbs.size());
  for (uint32_t i = 0; i < pdbs.size(); ++i) {
    pdbs_by_namespace_[count[pdb_namespace[i]]++] = i;
  }
  return absl::OkStatus();
}

// Indexes namespaced `objects` by (namespace, name), rejecting empty names
// and duplicate keys.
template <typename T, typename Index>
absl::Status IndexByKey(ObjectList<T> objects, absl::string_view kind,
                        const ObjectSet& loaded,
                        const std::vector<ObjectOrigin>& origins,
                        absl::string_view list, Index& out) {
  out.reserve(objects.size());
  for (uint32_t i = 0; i < objects.size(); ++i) {
    const v1::ObjectMeta& meta = objects[i].metadata();
    if (meta.name().empty()) {
      return EmptyName(kind, loaded, origins, list, i);
    }
    const auto [it, inserted] =
        out.try_emplace(std::pair{absl::string_view(meta.namespace_()),
                                  absl::string_view(meta.name())},
                        i);
    if (!inserted) {
      return Duplicate(kind, absl::StrCat(meta.namespace_(), "/", meta.name()),
                       loaded, origins, list, it->second, i);
    }
  }
  return absl::OkStatus();
}

absl::Status Snapshot::BuildVolumeParts(ObjectSet& loaded,
                                        internal::HeldObjects& held,
                                        uint32_t shared) {
  using Bits = internal::SnapshotParts;
  const ObjectOrigins& o = loaded.origins;
  std::shared_ptr<Part<v1::VolumeAttachment>> vas;
  std::shared_ptr<Part<v1::PersistentVolumeClaim>> pvcs;
  std::shared_ptr<Part<v1::PersistentVolume>> pvs;
  std::shared_ptr<Part<v1::StorageClass>> classes;
  std::shared_ptr<Part<v1::CSINode>> csi;
  std::shared_ptr<Part<v1::DaemonSet>> daemon_sets;
  DefaultNamespace(loaded.persistent_volume_claims);
  DefaultNamespace(loaded.daemon_sets);
  KARPENTER_RETURN_IF_ERROR(
      NewPart(loaded.volume_attachments, held.volume_attachments, shared,
              Bits::kVolumeAttachments, "volume_attachments", vas));
  KARPENTER_RETURN_IF_ERROR(NewPart(
      loaded.persistent_volume_claims, held.persistent_volume_claims, shared,
      Bits::kPersistentVolumeClaims, "persistent_volume_claims", pvcs));
  KARPENTER_RETURN_IF_ERROR(
      NewPart(loaded.persistent_volumes, held.persistent_volumes, shared,
              Bits::kPersistentVolumes, "persistent_volumes", pvs));
  KARPENTER_RETURN_IF_ERROR(
      NewPart(loaded.storage_classes, held.storage_classes, shared,
              Bits::kStorageClasses, "storage_classes", classes));
  KARPENTER_RETURN_IF_ERROR(NewPart(loaded.csi_nodes, held.csi_nodes, shared,
                                    Bits::kCSINodes, "csi_nodes", csi));
  KARPENTER_RETURN_IF_ERROR(NewPart(loaded.daemon_sets, held.daemon_sets,
                                    shared, Bits::kDaemonSets, "daemon_sets",
                                    daemon_sets));
  if (vas != nullptr) {
    KARPENTER_RETURN_IF_ERROR(IndexByName(vas->List(), "VolumeAttachment",
                                          loaded, o.volume_attachments,
                                          "volume_attachments", vas->by_name));
    volume_attachments_ = std::move(vas);
  }
  if (pvcs != nullptr) {
    KARPENTER_RETURN_IF_ERROR(IndexByKey(
        pvcs->List(), "PersistentVolumeClaim", loaded,
        o.persistent_volume_claims, "persistent_volume_claims", pvcs->by_key));
    persistent_volume_claims_ = std::move(pvcs);
  }
  if (pvs != nullptr) {
    KARPENTER_RETURN_IF_ERROR(IndexByName(pvs->List(), "PersistentVolume",
                                          loaded, o.persistent_volumes,
                                          "persistent_volumes", pvs->by_name));
    KARPENTER_RETURN_IF_ERROR(ValidateEach(
        pvs->List(), "PersistentVolume", loaded, o.persistent_volumes,
        "persistent_volumes", &internal::ValidatePersistentVolume));
    persistent_volumes_ = std::move(pvs);
  }
  if (classes != nullptr) {
    const ObjectList<v1::StorageClass> list = classes->List();
    KARPENTER_RETURN_IF_ERROR(IndexByName(list, "StorageClass", loaded,
                                          o.storage_classes, "storage_classes",
                                          classes->by_name));
    KARPENTER_RETURN_IF_ERROR(ValidateEach(list, "StorageClass", loaded,
                                           o.storage_classes, "storage_classes",
                                           &internal::ValidateStorageClass));
    uint32_t& best = classes->default_class;
    for (uint32_t i = 0; i < list.size(); ++i) {
      if (!IsDefaultClass(list[i])) continue;
      if (best == kNone || PreferredDefault(list[i], list[best])) best = i;
    }
    storage_classes_ = std::move(classes);
  }
  if (csi != nullptr) {
    KARPENTER_RETURN_IF_ERROR(IndexByName(csi->List(), "CSINode", loaded,
                                          o.csi_nodes, "csi_nodes",
                                          csi->by_name));
    KARPENTER_RETURN_IF_ERROR(ValidateEach(csi->List(), "CSINode", loaded,
                                           o.csi_nodes, "csi_nodes",
                                           &internal::ValidateCSINode));
    csi_nodes_ = std::move(csi);
  }
  if (daemon_sets != nullptr) {
    KARPENTER_RETURN_IF_ERROR(IndexByKey(daemon_sets->List(), "DaemonSet",
                                         loaded, o.daemon_sets, "daemon_sets",
                                         daemon_sets->by_key));
    daemon_sets_ = std::move(daemon_sets);
  }
  return absl::OkStatus();
}

void Snapshot::IndexVolumeAttachmentsByNode() {
  // Counting sort by node, as IndexPods does.
  const ObjectList<v1::VolumeAttachment> vas = volume_attachments_->List();
  std::vector<NodeIndex> va_node(vas.size(), kNone);
  std::vector<uint32_t> count(nodes_->objects.size() + 1, 0);
  for (uint32_t i = 0; i < vas.size(); ++i) {
    const auto node = Lookup(nodes_->by_name, vas[i].spec().node_name());
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
}

std::optional<uint32_t> Snapshot::Lookup(const NameIndex& index,
                                         absl::string_view key) {
  const auto it = index.find(key);
  if (it == index.end() || it->second == kAmbiguous) return std::nullopt;
  return it->second;
}

std::optional<NodeIndex> Snapshot::FindNode(absl::string_view name) const {
  return Lookup(nodes_->by_name, name);
}

std::optional<NodePoolIndex> Snapshot::FindNodePool(
    absl::string_view name) const {
  return Lookup(node_pools_->by_name, name);
}

std::optional<NodeClaimIndex> Snapshot::FindNodeClaim(
    absl::string_view name) const {
  return Lookup(node_claims_->by_name, name);
}

std::optional<NamespaceId> Snapshot::FindNamespace(absl::string_view ns) const {
  return Lookup(namespace_ids_, ns);
}

std::optional<PodIndex> Snapshot::FindPod(absl::string_view ns,
                                          absl::string_view name) const {
  const std::optional<NamespaceId> id = FindNamespace(ns);
  if (!id) return std::nullopt;
  absl::call_once(pod_by_key_->once, [this] { FillPodKeyIndex(); });
  const auto& by_key = pod_by_key_->map;
  const auto it = by_key.find(NamespacedKey{*id, name});
  if (it == by_key.end()) return std::nullopt;
  return it->second;
}

std::optional<PdbIndex> Snapshot::FindPdb(absl::string_view ns,
                                          absl::string_view name) const {
  const std::optional<NamespaceId> id = FindNamespace(ns);
  if (!id) return std::nullopt;
  absl::call_once(pdb_by_key_->once, [this] { FillPdbKeyIndex(); });
  const auto& by_key = pdb_by_key_->map;
  const auto it = by_key.find(NamespacedKey{*id, name});
  if (it == by_key.end()) return std::nullopt;
  return it->second;
}

std::optional<VolumeAttachmentIndex> Snapshot::FindVolumeAttachment(
    absl::string_view name) const {
  return Lookup(volume_attachments_->by_name, name);
}

std::optional<PersistentVolumeClaimIndex> Snapshot::FindPersistentVolumeClaim(
    absl::string_view ns, absl::string_view name) const {
  const KeyIndex& index = persistent_volume_claims_->by_key;
  const auto it = index.find(std::pair{ns, name});
  if (it == index.end()) return std::nullopt;
  return it->second;
}

std::optional<PersistentVolumeIndex> Snapshot::FindPersistentVolume(
    absl::string_view name) const {
  return Lookup(persistent_volumes_->by_name, name);
}

std::optional<StorageClassIndex> Snapshot::FindStorageClass(
    absl::string_view name) const {
  return Lookup(storage_classes_->by_name, name);
}

std::optional<CSINodeIndex> Snapshot::FindCSINode(
    absl::string_view node) const {
  return Lookup(csi_nodes_->by_name, node);
}

std::optional<DaemonSetIndex> Snapshot::FindDaemonSet(
    absl::string_view ns, absl::string_view name) const {
  const KeyIndex& index = daemon_sets_->by_key;
  const auto it = index.find(std::pair{ns, name});
  if (it == index.end()) return std::nullopt;
  return it->second;
}

std::optional<StorageClassIndex> Snapshot::StorageClassOfClaim(
    PersistentVolumeClaimIndex c) const {
  const v1::PersistentVolumeClaimSpec& spec =
      persistent_volume_claims_->objects[c]->spec();
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
  return Lookup(node_claims_->by_node_name, node);
}

std::optional<NodeClaimIndex> Snapshot::FindNodeClaimByProviderId(
    absl::string_view provider_id) const {
  if (provider_id.empty()) return std::nullopt;
  return Lookup(node_claims_->by_provider_id, provider_id);
}

namespace internal {

Snapshot SnapshotParts::Of(const Snapshot& from) {
  Snapshot parts;
  parts.nodes_ = from.nodes_;
  parts.pdbs_ = from.pdbs_;
  parts.node_pools_ = from.node_pools_;
  parts.node_claims_ = from.node_claims_;
  parts.volume_attachments_ = from.volume_attachments_;
  parts.persistent_volume_claims_ = from.persistent_volume_claims_;
  parts.persistent_volumes_ = from.persistent_volumes_;
  parts.storage_classes_ = from.storage_classes_;
  parts.csi_nodes_ = from.csi_nodes_;
  parts.daemon_sets_ = from.daemon_sets_;
  return parts;
}

void SnapshotParts::Share(SnapshotBuilder& builder, const Snapshot& from,
                          uint32_t kinds) {
  Replace(builder.snapshot_, from, kinds);
  builder.shared_kinds_ |= kinds & kAll;
}

void SnapshotParts::Replace(Snapshot& to, const Snapshot& from,
                            uint32_t kinds) {
  if (kinds & kNodes) to.nodes_ = from.nodes_;
  if (kinds & kPdbs) to.pdbs_ = from.pdbs_;
  if (kinds & kNodePools) to.node_pools_ = from.node_pools_;
  if (kinds & kNodeClaims) to.node_claims_ = from.node_claims_;
  if (kinds & kVolumeAttachments) {
    to.volume_attachments_ = from.volume_attachments_;
  }
  if (kinds & kPersistentVolumeClaims) {
    to.persistent_volume_claims_ = from.persistent_volume_claims_;
  }
  if (kinds & kPersistentVolumes) {
    to.persistent_volumes_ = from.persistent_volumes_;
  }
  if (kinds & kStorageClasses) to.storage_classes_ = from.storage_classes_;
  if (kinds & kCSINodes) to.csi_nodes_ = from.csi_nodes_;
  if (kinds & kDaemonSets) to.daemon_sets_ = from.daemon_sets_;
}

bool SnapshotParts::Same(const Snapshot& a, const Snapshot& b, uint32_t kinds) {
  return (!(kinds & kNodes) || a.nodes_ == b.nodes_) &&
         (!(kinds & kPdbs) || a.pdbs_ == b.pdbs_) &&
         (!(kinds & kNodePools) || a.node_pools_ == b.node_pools_) &&
         (!(kinds & kNodeClaims) || a.node_claims_ == b.node_claims_) &&
         (!(kinds & kVolumeAttachments) ||
          a.volume_attachments_ == b.volume_attachments_) &&
         (!(kinds & kPersistentVolumeClaims) ||
          a.persistent_volume_claims_ == b.persistent_volume_claims_) &&
         (!(kinds & kPersistentVolumes) ||
          a.persistent_volumes_ == b.persistent_volumes_) &&
         (!(kinds & kStorageClasses) ||
          a.storage_classes_ == b.storage_classes_) &&
         (!(kinds & kCSINodes) || a.csi_nodes_ == b.csi_nodes_) &&
         (!(kinds & kDaemonSets) || a.daemon_sets_ == b.daemon_sets_);
}

HeldObjects& SnapshotParts::Held(SnapshotBuilder& builder) {
  if (builder.held_objects_ == nullptr) {
    builder.held_objects_ = std::make_unique<HeldObjects>();
  }
  return *builder.held_objects_;
}

void SnapshotParts::AssumeUniquePodKeys(SnapshotBuilder& builder) {
  builder.unique_pod_keys_ = true;
}

void SnapshotParts::KeepPodsAlive(SnapshotBuilder& builder,
                                  std::shared_ptr<const void> owner) {
  builder.pod_owners_.push_back(std::move(owner));
}

void SnapshotParts::AddHeldPod(SnapshotBuilder& builder, const CompactPod* pod,
                               uint32_t shape_id, PodReady ready,
                               uint32_t node_hint) {
  std::vector<uint32_t>& hints = builder.pod_node_hints_;
  const size_t before = builder.snapshot_.pod_count();
  if (node_hint != kNoNodeHint && hints.size() < before) {
    hints.resize(before, kNoNodeHint);
  }
  Snapshot& s = builder.snapshot_;
  s.pod_ready_.push_back(ready);
  s.pod_shape_.push_back(builder.InternHeldShape(shape_id, *pod));
  s.pods_.push_back(pod);
  if (!hints.empty()) hints.push_back(node_hint);
}

std::vector<uint32_t> SnapshotParts::SameShapes(const Snapshot& before,
                                                const Snapshot& now) {
  constexpr uint32_t kNoId = CompactShape::kNoId;
  std::vector<uint32_t> out(now.pod_shapes_.size(), kNoId);
  // Before's shape ids by dense id; a dense id names one live object of
  // one compactor, and the object's address confirms it.
  std::vector<uint32_t> by_dense;
  for (uint32_t id = 0; id < before.pod_shape_dense_.size(); ++id) {
    const uint32_t dense = before.pod_shape_dense_[id];
    if (dense == kNoId) continue;
    if (dense >= by_dense.size()) by_dense.resize(dense + 1, kNoId);
    by_dense[dense] = id;
  }
  for (uint32_t id = 0; id < now.pod_shape_dense_.size(); ++id) {
    const uint32_t dense = now.pod_shape_dense_[id];
    if (dense >= by_dense.size() || by_dense[dense] == kNoId) continue;
    const uint32_t old = by_dense[dense];
    if (before.pod_shapes_[old].get() == now.pod_shapes_[id].get()) {
      out[id] = old;
    }
  }
  return out;
}

void SnapshotParts::HintsFrom(SnapshotBuilder& builder,
                              const Snapshot& earlier) {
  builder.hint_nodes_ = earlier.nodes_;
  builder.hints_from_ = true;
}

absl::Span<const uint32_t> SnapshotParts::PodNodes(const Snapshot& snapshot) {
  return snapshot.pod_node_;
}

}  // namespace internal

}  // namespace karpenter::snapshot
