// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/state/cluster_state.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "snapshot/compact_pod.h"
#include "snapshot/object_sink.h"
#include "snapshot/snapshot_parts.h"
#include "snapshot/validate.h"
#include "state/pod_records.h"

namespace karpenter::state {
namespace {

constexpr absl::string_view kDefaultNamespace = "default";

// Per-kind facts: its name, whether it is namespaced, and its extra checks
// (those Snapshot::Build makes beyond names).
template <typename T>
struct KindTraits;

#define KARPENTER_STATE_KIND(Type, Name, Namespaced, Validate)       \
  template <>                                                        \
  struct KindTraits<Type> {                                          \
    static constexpr absl::string_view kName = Name;                 \
    static constexpr bool kNamespaced = Namespaced;                  \
    static absl::Status Check([[maybe_unused]] const Type& object) { \
      return Validate;                                               \
    }                                                                \
  }

KARPENTER_STATE_KIND(v1::Node, "Node", false, absl::OkStatus());
KARPENTER_STATE_KIND(v1::Pod, "Pod", true, absl::OkStatus());
KARPENTER_STATE_KIND(v1::PodDisruptionBudget, "PodDisruptionBudget", true,
                     absl::OkStatus());
KARPENTER_STATE_KIND(v1::NodePool, "NodePool", false, absl::OkStatus());
KARPENTER_STATE_KIND(v1::NodeClaim, "NodeClaim", false, absl::OkStatus());
KARPENTER_STATE_KIND(v1::VolumeAttachment, "VolumeAttachment", false,
                     absl::OkStatus());
KARPENTER_STATE_KIND(v1::PersistentVolumeClaim, "PersistentVolumeClaim", true,
                     absl::OkStatus());
KARPENTER_STATE_KIND(v1::PersistentVolume, "PersistentVolume", false,
                     snapshot::internal::ValidatePersistentVolume(object));
KARPENTER_STATE_KIND(v1::StorageClass, "StorageClass", false,
                     snapshot::internal::ValidateStorageClass(object));
KARPENTER_STATE_KIND(v1::CSINode, "CSINode", false,
                     snapshot::internal::ValidateCSINode(object));
KARPENTER_STATE_KIND(v1::DaemonSet, "DaemonSet", true, absl::OkStatus());

#undef KARPENTER_STATE_KIND

// A resourceVersion that reads as a decimal integer; nullopt otherwise.
std::optional<uint64_t> ResourceVersion(absl::string_view rv) {
  uint64_t v = 0;
  if (rv.empty() || !absl::SimpleAtoi(rv, &v)) return std::nullopt;
  return v;
}

// True if `incoming` is known to be older than `held`.
bool Older(std::optional<uint64_t> incoming, std::optional<uint64_t> held) {
  return incoming.has_value() && held.has_value() && *incoming < *held;
}

// How a kind is held: each object on its own, immutable, shared with the
// snapshots taken while it is current (a snapshot copies a pointer per
// object, not the object); except pods, which are kept compacted
// (snapshot/compact_pod.h) so that a snapshot is assembled from them
// without serializing anything.
template <typename T>
struct Held {
  using Type = std::shared_ptr<const T>;
};
// A pod as applied, until it is compacted: in batches of kCompactBatch, or
// all of them when a snapshot is taken. An event stays a few microseconds
// (compaction is most of a pod's cost), and at most kCompactBatch pods are
// held whole (2-3 KB each, against about 0.2 KB compacted).
// Compacted pods are shared, immutable, with the snapshots taken since.
// Small (the store walks 300k of them per snapshot): the whole pod is held
// out of line while it waits.
// A compacted record's shape id and Ready condition are copied beside
// it, so that assembling a snapshot reads the store alone, not the records.
struct HeldPod {
  // Exactly one is set. A record the store lets go of is retired to its
  // internal::PodRecordKeeper, never freed here.
  std::unique_ptr<v1::Pod> raw;
  internal::PodRecordKeeper::Record record;
  uint32_t shape_id = snapshot::internal::CompactShape::kNoId;
  // The pod's node as the last snapshot with pods resolved it: an index
  // of that snapshot's Nodes (Store::hint_source), which the next snapshot
  // translates if its Nodes differ; a pod stored since has none.
  uint32_t node_hint = snapshot::internal::SnapshotParts::kNoNodeHint;
  snapshot::PodReady ready = snapshot::PodReady::kAbsent;
};
template <>
struct Held<v1::Pod> {
  using Type = HeldPod;
};
constexpr size_t kCompactBatch = 4096;

// Values by sequence number, in its order: a flat vector, because a
// snapshot walks every pod of it (a tree of 300k small nodes is a cache
// miss per few pods). Sequence numbers are appended in increasing order;
// an erased entry is marked dead and swept out once dead entries are a
// quarter of them (amortized O(1)); lookups are binary searches.
template <typename V>
class SeqList {
 public:
  struct Entry {
    uint64_t seq;  // kDead set once erased.
    V value;
  };
  class iterator {
   public:
    iterator(Entry* at, Entry* end) : at_(at), end_(end) { Skip(); }
    Entry& operator*() const { return *at_; }
    iterator& operator++() {
      ++at_;
      Skip();
      return *this;
    }
    friend bool operator==(const iterator& a, const iterator& b) {
      return a.at_ == b.at_;
    }
    friend bool operator!=(const iterator& a, const iterator& b) {
      return a.at_ != b.at_;
    }

   private:
    void Skip() {
      while (at_ != end_ && (at_->seq & kDead) != 0) ++at_;
    }
    Entry* at_;
    Entry* end_;
  };
  class const_iterator {
   public:
    const_iterator(const Entry* at, const Entry* end) : at_(at), end_(end) {
      Skip();
    }
    const Entry& operator*() const { return *at_; }
    const_iterator& operator++() {
      ++at_;
      Skip();
      return *this;
    }
    friend bool operator!=(const const_iterator& a, const const_iterator& b) {
      return a.at_ != b.at_;
    }

   private:
    void Skip() {
      while (at_ != end_ && (at_->seq & kDead) != 0) ++at_;
    }
    const Entry* at_;
    const Entry* end_;
  };

  iterator begin() { return {Data(), Data() + entries_.size()}; }
  iterator end() {
    return {Data() + entries_.size(), Data() + entries_.size()};
  }
  const_iterator begin() const {
    return {entries_.data(), entries_.data() + entries_.size()};
  }
  const_iterator end() const {
    const Entry* e = entries_.data() + entries_.size();
    return {e, e};
  }
  size_t size() const { return entries_.size() - dead_; }

  // The live value at `seq`, or null.
  V* find(uint64_t seq) {
    auto it = std::lower_bound(
        entries_.begin(), entries_.end(), seq,
        [](const Entry& e, uint64_t s) { return (e.seq & ~kDead) < s; });
    if (it == entries_.end() || it->seq != seq) return nullptr;
    return &it->value;
  }
  // Adds `value` at `seq`, above every sequence number held.
  void append(uint64_t seq, V value) {
    entries_.push_back(Entry{seq, std::move(value)});
  }
  // Adds `value` at `seq`, which no entry holds (O(entries) unless last).
  void insert(uint64_t seq, V value) {
    auto it = std::lower_bound(
        entries_.begin(), entries_.end(), seq,
        [](const Entry& e, uint64_t s) { return (e.seq & ~kDead) < s; });
    entries_.insert(it, Entry{seq, std::move(value)});
  }
  // Drops the dead entries, then gives the live ones, in order, the
  // sequence numbers `next()` returns (which must increase).
  template <typename Next>
  void Renumber(Next next) {
    Sweep();
    for (Entry& e : entries_) e.seq = next();
  }
  // Erases the live value at `seq` (its value is reset first).
  void erase(uint64_t seq) {
    auto it = std::lower_bound(
        entries_.begin(), entries_.end(), seq,
        [](const Entry& e, uint64_t s) { return (e.seq & ~kDead) < s; });
    if (it == entries_.end() || it->seq != seq) return;
    it->seq |= kDead;
    it->value = V();
    if (++dead_ >= kSweepAtLeast && 4 * dead_ >= entries_.size()) Sweep();
  }

 private:
  static constexpr uint64_t kDead = uint64_t{1} << 63;
  static constexpr size_t kSweepAtLeast = 64;
  Entry* Data() { return entries_.data(); }
  void Sweep() {
    entries_.erase(
        std::remove_if(entries_.begin(), entries_.end(),
                       [](const Entry& e) { return (e.seq & kDead) != 0; }),
        entries_.end());
    dead_ = 0;
  }

  std::vector<Entry> entries_;
  size_t dead_ = 0;
};

// The objects of one kind.
template <typename T>
struct KindStore {
  struct Slot {
    uint64_t seq = 0;
    std::optional<uint64_t> rv;
  };
  // In the state's order: by the sequence number of their (last) addition.
  SeqList<typename Held<T>::Type> objects;
  absl::flat_hash_map<std::string, Slot> slots;
  // Keys deleted with a known resourceVersion: a late event for the key
  // that is not newer is stale.
  absl::flat_hash_map<std::string, uint64_t> tombstones;
  // The state's generation after the kind's last change.
  uint64_t changed_at = 0;
  // The generation at which Store::parts took this kind's part (none yet:
  // nullopt).
  std::optional<uint64_t> part_at;
  // Kept in key order (ClusterStateOptions): each key's sequence number,
  // by key; the numbers are this kind's own, spaced kKeyGap apart when
  // assigned afresh, so that a new key usually fits between its
  // neighbours.
  bool by_key = false;
  std::map<std::string, uint64_t, std::less<>> order;
};

// The spacing of a key-ordered kind's sequence numbers, and the largest
// one (below SeqList's dead bit).
constexpr uint64_t kKeyGap = uint64_t{1} << 32;
constexpr uint64_t kMaxKeySeq = uint64_t{1} << 62;

// The sequence number for the new `key` of a key-ordered kind, between
// its neighbours' (renumbering the kind when they are adjacent).
template <typename T>
uint64_t KeyOrderedSeq(KindStore<T>& store, absl::string_view key) {
  while (true) {
    const auto next = store.order.lower_bound(key);
    const uint64_t lo =
        next == store.order.begin() ? 0 : std::prev(next)->second;
    if (next == store.order.end()) {
      if (lo + kKeyGap < kMaxKeySeq) return lo + kKeyGap;
    } else if (next->second - lo >= 2) {
      return lo + (next->second - lo) / 2;
    }
    // No room: renumber the kind, kKeyGap apart (then there is).
    uint64_t seq = 0;
    store.objects.Renumber([&] { return seq += kKeyGap; });
    seq = 0;
    for (auto& [k, s] : store.order) {
      s = (seq += kKeyGap);
      store.slots.find(k)->second.seq = s;
    }
  }
}

// The SnapshotParts bit of each kind but pods.
template <typename T>
constexpr uint32_t PartBit();
#define KARPENTER_STATE_PART(Type, Bit)            \
  template <>                                      \
  constexpr uint32_t PartBit<Type>() {             \
    return snapshot::internal::SnapshotParts::Bit; \
  }
KARPENTER_STATE_PART(v1::Node, kNodes);
KARPENTER_STATE_PART(v1::PodDisruptionBudget, kPdbs);
KARPENTER_STATE_PART(v1::NodePool, kNodePools);
KARPENTER_STATE_PART(v1::NodeClaim, kNodeClaims);
KARPENTER_STATE_PART(v1::VolumeAttachment, kVolumeAttachments);
KARPENTER_STATE_PART(v1::PersistentVolumeClaim, kPersistentVolumeClaims);
KARPENTER_STATE_PART(v1::PersistentVolume, kPersistentVolumes);
KARPENTER_STATE_PART(v1::StorageClass, kStorageClasses);
KARPENTER_STATE_PART(v1::CSINode, kCSINodes);
KARPENTER_STATE_PART(v1::DaemonSet, kDaemonSets);
#undef KARPENTER_STATE_PART

}  // namespace

struct ClusterState::Store {
  explicit Store(const ClusterStateOptions& options)
      : budgets(options.budgets) {
    Of<v1::Node>().by_key = options.nodes_by_name;
    Of<v1::NodeClaim>().by_key = options.node_claims_by_name;
    Of<v1::VolumeAttachment>().by_key = options.volume_attachments_by_name;
  }

  template <typename T>
  KindStore<T>& Of() {
    return std::get<KindStore<T>>(kinds);
  }
  template <typename T>
  const KindStore<T>& Of() const {
    return std::get<KindStore<T>>(kinds);
  }

  template <typename T>
  absl::StatusOr<Applied> Apply(EventType type, T object,
                                absl::string_view origin);

  template <typename T>
  void ExportKind(std::vector<T>& out) const {
    const KindStore<T>& store = Of<T>();
    out.reserve(store.objects.size());
    for (const auto& [seq, object] : store.objects) {
      if constexpr (std::is_same_v<T, v1::Pod>) {
        out.push_back(object.raw != nullptr ? *object.raw
                                            : object.record->Decode());
      } else {
        out.push_back(*object);
      }
    }
  }

  // Hands the objects of every kind but pods to a builder as they are
  // (SnapshotParts::Held), except the kinds in `skip` (SnapshotParts bits).
  void HoldAllButPods(snapshot::SnapshotBuilder& builder, uint32_t skip) const {
    snapshot::internal::HeldObjects& held =
        snapshot::internal::SnapshotParts::Held(builder);
    HoldUnless(skip, held.nodes);
    HoldUnless(skip, held.pdbs);
    HoldUnless(skip, held.node_pools);
    HoldUnless(skip, held.node_claims);
    HoldUnless(skip, held.volume_attachments);
    HoldUnless(skip, held.persistent_volume_claims);
    HoldUnless(skip, held.persistent_volumes);
    HoldUnless(skip, held.storage_classes);
    HoldUnless(skip, held.csi_nodes);
    HoldUnless(skip, held.daemon_sets);
    builder.objects().skipped_kinds = skipped_kinds;
  }
  template <typename T>
  void HoldUnless(uint32_t skip,
                  std::vector<std::shared_ptr<const T>>& out) const {
    if ((skip & PartBit<T>()) != 0) return;
    const KindStore<T>& store = Of<T>();
    out.reserve(store.objects.size());
    for (const auto& [seq, object] : store.objects) out.push_back(object);
  }

  // Copies every kind but pods (and the skipped-kind counts) into `out`.
  void ExportAllButPods(snapshot::ObjectSet& out) const {
    ExportKind(out.nodes);
    ExportKind(out.pdbs);
    ExportKind(out.node_pools);
    ExportKind(out.node_claims);
    ExportKind(out.volume_attachments);
    ExportKind(out.persistent_volume_claims);
    ExportKind(out.persistent_volumes);
    ExportKind(out.storage_classes);
    ExportKind(out.csi_nodes);
    ExportKind(out.daemon_sets);
    out.skipped_kinds = skipped_kinds;
  }

  // The SnapshotParts bits of the kinds whose part in `parts` is current:
  // no event changed the kind since that part was taken.
  uint32_t UnchangedParts() const {
    uint32_t bits = 0;
    std::apply([&](const auto&... store) { ((bits |= Unchanged(store)), ...); },
               kinds);
    return bits;
  }
  template <typename T>
  uint32_t Unchanged(const KindStore<T>& store) const {
    if constexpr (std::is_same_v<T, v1::Pod>) {
      return 0;
    } else {
      return store.part_at.has_value() && store.changed_at <= *store.part_at
                 ? PartBit<T>()
                 : 0;
    }
  }
  // Keeps the parts of `snapshot` of the kinds in `bits` for the next
  // snapshots, as of the current generation.
  void KeepParts(const snapshot::Snapshot& snapshot, uint32_t bits) {
    snapshot::internal::SnapshotParts::Replace(parts, snapshot, bits);
    std::apply([&](auto&... store) { (MarkPart(store, bits), ...); }, kinds);
  }
  template <typename T>
  void MarkPart(KindStore<T>& store, uint32_t bits) {
    if constexpr (!std::is_same_v<T, v1::Pod>) {
      if (bits & PartBit<T>()) store.part_at = generation;
    }
  }

  // `object` as its kind is held; `seq` is its place.
  template <typename T>
  typename Held<T>::Type Hold(T object, uint64_t seq) {
    if constexpr (std::is_same_v<T, v1::Pod>) {
      raw_pods.push_back(seq);
      HeldPod held;
      held.raw = std::make_unique<v1::Pod>(std::move(object));
      return held;
    } else {
      return std::make_shared<const T>(std::move(object));
    }
  }

  // Compacts the pods held whole: all of them, or only when kCompactBatch
  // have gathered (`all` false).
  void CompactRawPods(bool all) {
    if (raw_pods.empty() || (!all && raw_pods.size() < kCompactBatch)) return;
    auto& pods = Of<v1::Pod>().objects;
    for (const uint64_t seq : raw_pods) {
      HeldPod* const held = pods.find(seq);
      if (held == nullptr) continue;  // Deleted since.
      if (held->raw != nullptr) {
        held->record = std::make_unique<snapshot::internal::CompactPod>(
            compactor.Compact(std::move(*held->raw)));
        held->raw.reset();
        held->shape_id = held->record->shared_shape()->id;
        held->ready = held->record->ready();
      }
    }
    raw_pods.clear();
  }

  // Lets go of `held` (about to be replaced or erased): a pod's record is
  // retired, for the snapshots that may still read it.
  template <typename V>
  void Release(V& held) {
    if constexpr (std::is_same_v<V, HeldPod>) {
      pod_records->Retire(std::move(held.record));
    }
  }

  ~Store() {
    // Snapshots taken may outlive the state: their pins keep the records.
    for (auto& [seq, held] : Of<v1::Pod>().objects) Release(held);
    pod_records->Reclaim();
  }

  budget::BudgetOptions budgets;
  std::tuple<KindStore<v1::Node>, KindStore<v1::Pod>,
             KindStore<v1::PodDisruptionBudget>, KindStore<v1::NodePool>,
             KindStore<v1::NodeClaim>, KindStore<v1::VolumeAttachment>,
             KindStore<v1::PersistentVolumeClaim>,
             KindStore<v1::PersistentVolume>, KindStore<v1::StorageClass>,
             KindStore<v1::CSINode>, KindStore<v1::DaemonSet>>
      kinds;
  std::map<std::string, int64_t> skipped_kinds;
  // Interns the shapes of held pods (and of the snapshots taken from them).
  snapshot::internal::PodCompactor compactor;
  // Places of the pods held whole (some may since be deleted or compacted).
  std::vector<uint64_t> raw_pods;
  // Keeps the records this store let go of for the snapshots taken before.
  std::shared_ptr<internal::PodRecordKeeper> pod_records =
      std::make_shared<internal::PodRecordKeeper>();
  uint64_t next_seq = 0;
  uint64_t generation = 0;
  size_t size = 0;
  std::shared_ptr<const Published> published;
  // The parts of the last snapshots taken (snapshot/snapshot_parts.h), each
  // as of its kind's KindStore::part_at: the next snapshot shares those of
  // the kinds no event has changed since.
  snapshot::Snapshot parts;
  // The parts of the snapshot that gave the pods their node hints
  // (HeldPod::node_hint: indexes of its Nodes); nullopt before any.
  std::optional<snapshot::Snapshot> hint_source;
};

template <typename T>
absl::StatusOr<Applied> ClusterState::Store::Apply(EventType type, T object,
                                                   absl::string_view origin) {
  using Traits = KindTraits<T>;
  v1::ObjectMeta& meta = *object.mutable_metadata();
  if (Traits::kNamespaced && meta.namespace_().empty()) {
    meta.set_namespace_(std::string(kDefaultNamespace));
  }
  const std::string label = snapshot::internal::ObjectLabel(
      Traits::kName, Traits::kNamespaced ? meta.namespace_() : "", meta.name());
  const auto fail = [&](absl::string_view message) {
    return absl::InvalidArgumentError(
        absl::StrCat(origin, origin.empty() ? "" : ": ", EventTypeName(type),
                     " ", label, ": ", message));
  };
  if (meta.name().empty()) return fail("metadata.name is empty");
  if (type != EventType::kDeleted) {
    if (absl::Status s = Traits::Check(object); !s.ok()) {
      return fail(s.message());
    }
  }
  std::string key = Traits::kNamespaced
                        ? absl::StrCat(meta.namespace_(), "/", meta.name())
                        : meta.name();
  const std::optional<uint64_t> rv = ResourceVersion(meta.resource_version());
  KindStore<T>& store = Of<T>();
  const auto slot = store.slots.find(key);
  if (type == EventType::kDeleted) {
    if (slot == store.slots.end()) return Applied::kIgnored;
    if (Older(rv, slot->second.rv)) return Applied::kStale;
    std::optional<uint64_t> last = slot->second.rv;
    if (rv.has_value() && (!last.has_value() || *rv > *last)) last = rv;
    if (auto* held = store.objects.find(slot->second.seq)) Release(*held);
    store.objects.erase(slot->second.seq);
    if (store.by_key) store.order.erase(slot->first);
    store.slots.erase(slot);
    if (last.has_value()) store.tombstones[key] = *last;
    --size;
    store.changed_at = ++generation;
    return Applied::kDeleted;
  }
  if (slot != store.slots.end()) {
    if (Older(rv, slot->second.rv)) return Applied::kStale;
    if (rv.has_value() && slot->second.rv == rv) return Applied::kUnchanged;
    auto* const held = store.objects.find(slot->second.seq);
    Release(*held);
    *held = Hold(std::move(object), slot->second.seq);
    CompactRawPods(/*all=*/false);
    slot->second.rv = rv;
    store.changed_at = ++generation;
    return Applied::kStored;
  }
  if (const auto tomb = store.tombstones.find(key);
      tomb != store.tombstones.end()) {
    if (rv.has_value() && *rv <= tomb->second) return Applied::kStale;
    store.tombstones.erase(tomb);
  }
  if (store.by_key) {
    const uint64_t seq = KeyOrderedSeq(store, key);
    store.objects.insert(seq, Hold(std::move(object), seq));
    store.order.emplace(key, seq);
    store.slots.emplace(std::move(key), typename KindStore<T>::Slot{seq, rv});
    ++size;
    store.changed_at = ++generation;
    return Applied::kStored;
  }
  const uint64_t seq = next_seq++;
  store.objects.append(seq, Hold(std::move(object), seq));
  CompactRawPods(/*all=*/false);
  store.slots.emplace(std::move(key), typename KindStore<T>::Slot{seq, rv});
  ++size;
  store.changed_at = ++generation;
  return Applied::kStored;
}

namespace {
ClusterStateOptions WithBudgets(budget::BudgetOptions budgets) {
  ClusterStateOptions o;
  o.budgets = std::move(budgets);
  return o;
}
}  // namespace

ClusterState::ClusterState(budget::BudgetOptions budgets)
    : ClusterState(WithBudgets(std::move(budgets))) {}
ClusterState::ClusterState(const ClusterStateOptions& options)
    : store_(std::make_unique<Store>(options)) {}
ClusterState::ClusterState(ClusterState&&) noexcept = default;
ClusterState& ClusterState::operator=(ClusterState&&) noexcept = default;
ClusterState::~ClusterState() = default;

absl::StatusOr<Applied> ClusterState::Apply(Event event) {
  return std::visit(
      [&](auto& object) {
        return store_->Apply(event.type, std::move(object), event.origin);
      },
      event.object);
}

namespace {

// Applies `objects` (one of ObjectSet's lists) as ADDED events; each error
// is placed by the object's origin, or by its list position.
template <typename T, typename ApplyFn>
absl::Status ApplyList(std::vector<T>& objects, absl::string_view list,
                       const snapshot::ObjectSet& set,
                       const std::vector<snapshot::ObjectOrigin>& origins,
                       ApplyFn apply) {
  for (size_t i = 0; i < objects.size(); ++i) {
    std::string origin = set.DescribeOrigin(origins, i);
    if (origin.empty()) origin = absl::StrCat(list, "[", i, "]");
    absl::StatusOr<Applied> applied =
        apply(EventType::kAdded, std::move(objects[i]), origin);
    if (!applied.ok()) return applied.status();
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ClusterState::ApplyAll(snapshot::ObjectSet objects) {
  Store& store = *store_;
  const auto apply = [&store](EventType type, auto object,
                              absl::string_view origin) {
    return store.Apply(type, std::move(object), origin);
  };
  const snapshot::ObjectSet& set = objects;
  const snapshot::ObjectOrigins& o = objects.origins;
  for (const auto& [kind, count] : objects.skipped_kinds) {
    store.skipped_kinds[kind] += count;
    ++store.generation;
  }
  absl::Status s = ApplyList(objects.nodes, "nodes", set, o.nodes, apply);
  if (s.ok()) s = ApplyList(objects.pods, "pods", set, o.pods, apply);
  if (s.ok()) s = ApplyList(objects.pdbs, "pdbs", set, o.pdbs, apply);
  if (s.ok()) {
    s = ApplyList(objects.node_pools, "node_pools", set, o.node_pools, apply);
  }
  if (s.ok()) {
    s = ApplyList(objects.node_claims, "node_claims", set, o.node_claims,
                  apply);
  }
  if (s.ok()) {
    s = ApplyList(objects.volume_attachments, "volume_attachments", set,
                  o.volume_attachments, apply);
  }
  if (s.ok()) {
    s = ApplyList(objects.persistent_volume_claims, "persistent_volume_claims",
                  set, o.persistent_volume_claims, apply);
  }
  if (s.ok()) {
    s = ApplyList(objects.persistent_volumes, "persistent_volumes", set,
                  o.persistent_volumes, apply);
  }
  if (s.ok()) {
    s = ApplyList(objects.storage_classes, "storage_classes", set,
                  o.storage_classes, apply);
  }
  if (s.ok()) {
    s = ApplyList(objects.csi_nodes, "csi_nodes", set, o.csi_nodes, apply);
  }
  if (s.ok()) {
    s = ApplyList(objects.daemon_sets, "daemon_sets", set, o.daemon_sets,
                  apply);
  }
  return s;
}

snapshot::ObjectSet ClusterState::Export() const {
  snapshot::ObjectSet out;
  store_->ExportKind(out.pods);
  store_->ExportAllButPods(out);
  return out;
}

absl::StatusOr<snapshot::Snapshot> ClusterState::TakeSnapshot() const {
  // Compacting the pods held whole changes how they are held, not what
  // the state holds: this stays a reader's call for the state's contract.
  Store& store = *store_;
  store.CompactRawPods(/*all=*/true);
  using snapshot::internal::SnapshotParts;
  snapshot::SnapshotBuilder builder;
  auto& pods = store.Of<v1::Pod>().objects;
  const uint32_t unchanged = store.UnchangedParts();
  // The pods' node hints index the Nodes of the last snapshot with pods;
  // the builder translates them if the Nodes changed since.
  const bool hinted = store.hint_source.has_value();
  if (hinted) SnapshotParts::HintsFrom(builder, *store.hint_source);
  // With hints whose Nodes part is this snapshot's, the pods without one
  // (stored since the last snapshot), by their index in this one: the
  // only hints the snapshot can change.
  const bool same_nodes = hinted && (unchanged & SnapshotParts::kNodes) != 0 &&
                          SnapshotParts::Same(*store.hint_source, store.parts,
                                              SnapshotParts::kNodes);
  builder.ReservePods(pods.size());
  SnapshotParts::KeepPodsAlive(builder, store.pod_records->Pin());
  std::vector<std::pair<uint32_t, HeldPod*>> unhinted;
  uint32_t index = 0;
  for (auto& [seq, pod] : pods) {
    if (same_nodes && pod.node_hint == SnapshotParts::kNoNodeHint) {
      unhinted.emplace_back(index, &pod);
    }
    SnapshotParts::AddHeldPod(
        builder, pod.record.get(), pod.shape_id, pod.ready,
        hinted ? pod.node_hint : SnapshotParts::kNoNodeHint);
    ++index;
  }
  SnapshotParts::Share(builder, store.parts, unchanged);
  // The store holds one pod per namespace/name.
  SnapshotParts::AssumeUniquePodKeys(builder);
  store.HoldAllButPods(builder, /*skip=*/unchanged);
  absl::StatusOr<snapshot::Snapshot> snapshot = std::move(builder).Build();
  if (snapshot.ok()) {
    store.KeepParts(*snapshot, SnapshotParts::kAll);
    // Pods are in the store's order: pod i is the i-th held.
    const absl::Span<const uint32_t> resolved =
        SnapshotParts::PodNodes(*snapshot);
    if (same_nodes) {
      // A hinted pod was placed by its hint: only the others change.
      for (const auto& [i, pod] : unhinted) pod->node_hint = resolved[i];
    } else {
      size_t i = 0;
      for (auto& [seq, pod] : pods) {
        // Written only when it changed: most pods keep their node.
        if (pod.node_hint != resolved[i]) pod.node_hint = resolved[i];
        ++i;
      }
    }
    store.hint_source = SnapshotParts::Of(*snapshot);
  }
  return snapshot;
}

absl::StatusOr<snapshot::Snapshot> ClusterState::TakeSnapshotWithoutPods()
    const {
  using snapshot::internal::SnapshotParts;
  Store& store = *store_;
  snapshot::SnapshotBuilder builder;
  // PDBs are left out like pods: neither shared nor exported.
  const uint32_t unchanged = store.UnchangedParts() & ~SnapshotParts::kPdbs;
  SnapshotParts::Share(builder, store.parts, unchanged);
  store.HoldAllButPods(builder, /*skip=*/unchanged | SnapshotParts::kPdbs);
  absl::StatusOr<snapshot::Snapshot> snapshot = std::move(builder).Build();
  if (snapshot.ok()) {
    store.KeepParts(*snapshot, SnapshotParts::kAll & ~SnapshotParts::kPdbs);
  }
  return snapshot;
}

absl::StatusOr<std::shared_ptr<const Published>> ClusterState::Publish() {
  Store& store = *store_;
  if (store.published != nullptr &&
      store.published->generation == store.generation) {
    return store.published;
  }
  absl::StatusOr<snapshot::Snapshot> snapshot = TakeSnapshot();
  if (!snapshot.ok()) return snapshot.status();
  auto published = std::make_shared<Published>();
  published->snapshot = *std::move(snapshot);
  published->facts = std::make_unique<const disruption::SnapshotFacts>(
      disruption::SnapshotFacts::Build(
          published->snapshot, store.budgets,
          store.published != nullptr ? store.published->facts.get() : nullptr));
  published->generation = store.generation;
  store.published = published;
  return std::shared_ptr<const Published>(std::move(published));
}

uint64_t ClusterState::generation() const { return store_->generation; }

size_t ClusterState::size() const { return store_->size; }

}  // namespace karpenter::state
