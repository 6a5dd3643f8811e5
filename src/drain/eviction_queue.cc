// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/drain/eviction_queue.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "drain/id_table.h"
#include "drain/min_heap.h"
#include "karpenter/time_util.h"

namespace karpenter::drain {
namespace {

using internal::IdTable;
using internal::MinHeap;
using internal::QuadHeap;

// Key id 0 is the pseudo-key of pods without a PDB (and of every pod in
// kPerPod mode): it has no in-flight limit.
constexpr uint32_t kUnkeyed = 0;
// "No slot / no link / no entry" in uint32 fields.
constexpr uint32_t kNone = 0xFFFFFFFF;
// Scheduling key of a pod under several PDBs in kKeyedByPdb mode: it is in
// no key's queue, so only its deadline can release it.
constexpr uint32_t kHeld = kNone;
// No key (no PDB; no slot held).
constexpr uint32_t kNoKey = kNone;

constexpr double kMaxQps = 1e9;

// A heap entry ordered by (t, seq). `id` is a slot (item heaps) or a key id
// (key heaps); `stamp` is the item generation or key version the entry was
// pushed under, so stale entries are recognised and skipped.
struct Entry {
  absl::Time t;
  uint64_t seq;
  uint32_t id;
  uint32_t stamp;
};

struct Later {
  bool operator()(const Entry& a, const Entry& b) const {
    if (a.t != b.t) return a.t > b.t;
    return a.seq > b.seq;
  }
};

// A key heap entry whose first pod has never failed: its time is
// InfinitePast, so only seq orders it. Half the size of an Entry, so the
// heap of up to one entry per key stays in L2.
struct FreshEntry {
  uint64_t seq;
  uint32_t id;
  uint32_t stamp;
};

struct FreshLater {
  bool operator()(const FreshEntry& a, const FreshEntry& b) const {
    return a.seq > b.seq;
  }
};

using TimedHeap = MinHeap<Entry, Later>;
using FreshHeap = QuadHeap<FreshEntry, FreshLater>;

// True if a heap holding `size` entries of which `live` are valid should be
// compacted: more than half stale, so compaction is amortised O(1).
bool NeedsCompaction(size_t size, size_t live) { return size > 2 * live + 64; }

enum class Status : uint8_t { kFree, kWaiting, kInFlight };

// Scheduling state of a slot. The pod's strings live in a PodText, so the
// hot paths touch one 80-byte record per pod.
struct Item {
  absl::Time deadline = absl::InfiniteFuture();
  absl::Time ready_at = absl::InfinitePast();
  uint64_t seq = 0;
  // Links of the key FIFO (kNone at the ends), while in_fifo.
  uint32_t prev = kNone;
  uint32_t next = kNone;
  // The one PDB key (kNoKey if none or several).
  uint32_t pdb_key = kNoKey;
  // Index into State::multi_sets when the pod has several keys, else kNone.
  uint32_t multi = kNone;
  // The key the pod is scheduled under: kUnkeyed, a key id, or kHeld.
  uint32_t sched_key = kUnkeyed;
  // The key whose slot the pod holds while in flight, or kNoKey.
  uint32_t slot_key = kNoKey;
  uint32_t gen = 0;
  int failures = 0;
  EvictionWorkKind kind = EvictionWorkKind::kEvict;
  Status status = Status::kFree;
  // Waiting in its key's FIFO (else in the key's retry heap, or held).
  bool in_fifo = false;
};

// A pod's namespace, name and UID, stored back to back: inline when they
// fit (no allocation, one cache line with the lengths), else in `big`,
// which keeps its capacity for the slot's next pod.
struct PodText {
  static constexpr size_t kInline = 96;
  uint64_t hash = 0;  // of the UID, for the UID table
  uint32_t ns_len = 0;
  uint32_t name_len = 0;
  uint32_t uid_len = 0;
  uint32_t big_cap = 0;
  std::unique_ptr<char[]> big;
  char small[kInline];

  const char* data() const {
    return ns_len + name_len + uid_len <= kInline ? small : big.get();
  }
  absl::string_view ns() const { return {data(), ns_len}; }
  absl::string_view name() const { return {data() + ns_len, name_len}; }
  absl::string_view uid() const {
    return {data() + ns_len + name_len, uid_len};
  }
  void Set(const PodRef& pod, uint64_t uid_hash) {
    hash = uid_hash;
    ns_len = static_cast<uint32_t>(pod.namespace_name.size());
    name_len = static_cast<uint32_t>(pod.name.size());
    uid_len = static_cast<uint32_t>(pod.uid.size());
    const size_t total = size_t{ns_len} + name_len + uid_len;
    char* out = small;
    if (total > kInline) {
      if (total > big_cap) {
        big = std::make_unique<char[]>(total);
        big_cap = static_cast<uint32_t>(total);
      }
      out = big.get();
    }
    std::memcpy(out, pod.namespace_name.data(), ns_len);
    std::memcpy(out + ns_len, pod.name.data(), name_len);
    std::memcpy(out + ns_len + name_len, pod.uid.data(), uid_len);
  }
};

uint64_t HashUid(absl::string_view uid) {
  return absl::Hash<absl::string_view>()(uid);
}

// The waiting pods of one key: never-failed pods in a FIFO threaded through
// their Items (ascending seq, O(1) everything); retried pods, and pods
// re-placed out of seq order, in the key's retry heap by (ready_at, seq).
// The key's first pod is the smaller of the two heads. Invariant: when
// retry_live > 0 the retry heap's top is valid; when 0 the heap is empty.
// One cache line, holding the start of the key's name too, so that Add's
// name lookup is confirmed from the line Place then updates.
struct alignas(64) Key {
  static constexpr size_t kPrefix = 32;
  int in_flight = 0;
  // Waiting pods scheduled under this key (FIFO and retry heap).
  uint32_t live = 0;
  uint32_t retry_live = 0;
  uint32_t version = 0;
  uint32_t head = kNone;
  uint32_t tail = kNone;
  uint32_t name_len = 0;
  uint32_t unused = 0;
  char name_prefix[kPrefix] = {};
};

absl::Time ForceTime(const Item& item) {
  return std::max(item.deadline, item.ready_at);
}

bool IsDone(EvictionResult result) {
  return result == EvictionResult::kEvicted ||
         result == EvictionResult::kNotFound ||
         result == EvictionResult::kConflict;
}

std::string PodName(absl::string_view ns, absl::string_view name) {
  return absl::StrCat(ns, "/", name);
}

std::string Quote(absl::string_view s) { return absl::StrCat("\"", s, "\""); }

absl::Status NotQueued(absl::string_view uid) {
  return absl::NotFoundError(
      absl::StrCat("uid ", Quote(uid), ": not in the eviction queue"));
}

absl::Status ValidateOptions(const EvictionQueueOptions& o) {
  if (o.mode != EvictionQueueMode::kKeyedByPdb &&
      o.mode != EvictionQueueMode::kPerPod) {
    return absl::InvalidArgumentError(
        absl::StrCat("mode: unknown value ", static_cast<int>(o.mode)));
  }
  if (o.max_in_flight_per_key < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_in_flight_per_key: must be at least 1, got ",
                     o.max_in_flight_per_key));
  }
  if (o.backoff_base <= absl::ZeroDuration() ||
      o.backoff_base == absl::InfiniteDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("backoff_base: must be positive and finite, got ",
                     Quote(absl::FormatDuration(o.backoff_base))));
  }
  if (o.backoff_cap < o.backoff_base ||
      o.backoff_cap == absl::InfiniteDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("backoff_cap: must be finite and at least backoff_base (",
                     Quote(absl::FormatDuration(o.backoff_base)), "), got ",
                     Quote(absl::FormatDuration(o.backoff_cap))));
  }
  // Written so that NaN fails too.
  if (!(o.qps > 0 && o.qps <= kMaxQps)) {
    return absl::InvalidArgumentError(
        absl::StrCat("qps: must be > 0 and at most 1e9, got ", o.qps));
  }
  if (o.burst < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("burst: must be at least 1, got ", o.burst));
  }
  return absl::OkStatus();
}

}  // namespace

absl::string_view EvictionWorkKindName(EvictionWorkKind kind) {
  switch (kind) {
    case EvictionWorkKind::kEvict:
      return "Evict";
    case EvictionWorkKind::kForceDelete:
      return "ForceDelete";
  }
  return "Evict";
}

absl::string_view EvictionItemStateName(EvictionItemState state) {
  switch (state) {
    case EvictionItemState::kReady:
      return "Ready";
    case EvictionItemState::kBackingOff:
      return "BackingOff";
    case EvictionItemState::kWaitingForKey:
      return "WaitingForKey";
    case EvictionItemState::kWaitingForToken:
      return "WaitingForToken";
    case EvictionItemState::kHeldMisconfigured:
      return "HeldMisconfigured";
    case EvictionItemState::kInFlight:
      return "InFlight";
  }
  return "Ready";
}

struct EvictionQueue::State {
  explicit State(const EvictionQueueOptions& o)
      : options(o),
        interval(absl::Seconds(1) / o.qps),
        burst_window(interval * (o.burst - 1)) {
    keys.emplace_back();  // kUnkeyed
    key_names.emplace_back();
    key_retry.emplace_back();
  }
  State(const State&) = delete;
  State& operator=(const State&) = delete;

  // ---- Token bucket (GCRA form of a continuously refilled bucket) ----
  // `tat` is the instant the bucket is full again; a token is available at
  // t iff t >= tat - (burst - 1) * interval (kept in `next_token`). Exact
  // Duration arithmetic, so NextReadyTime and Pop agree to the tick.
  absl::Time NextToken() const { return next_token; }
  bool TokenAt(absl::Time now) const { return now >= next_token; }
  void TakeToken(absl::Time now) {
    tat = std::max(tat, now) + interval;
    next_token = tat - burst_window;
  }

  bool Open(uint32_t k) const {
    return k == kUnkeyed || keys[k].in_flight < options.max_in_flight_per_key;
  }

  absl::Duration Backoff(int failures) const {
    absl::Duration d = options.backoff_base;
    for (int i = 1; i < failures && d < options.backoff_cap; ++i) d *= 2;
    return std::min(d, options.backoff_cap);
  }

  // ---- Per-slot storage ----
  // PodTexts live in fixed chunks so that the views Pop hands out stay put
  // while the queue grows.
  static constexpr int kChunkBits = 12;
  static constexpr uint32_t kChunkMask = (1u << kChunkBits) - 1;
  PodText& Text(uint32_t slot) {
    return texts[slot >> kChunkBits][slot & kChunkMask];
  }
  const PodText& Text(uint32_t slot) const {
    return texts[slot >> kChunkBits][slot & kChunkMask];
  }

  uint32_t AllocSlot() {
    if (!free_slots.empty()) {
      const uint32_t slot = free_slots.back();
      free_slots.pop_back();
      return slot;
    }
    const uint32_t slot = static_cast<uint32_t>(items.size());
    if ((slot & kChunkMask) == 0) {
      texts.emplace_back(new PodText[size_t{1} << kChunkBits]);
    }
    items.emplace_back();
    return slot;
  }

  // The cell of `uid` (hash `h`) in the UID table: its slot, or
  // IdTable::kEmpty.
  size_t ProbeUid(uint64_t h, absl::string_view uid) const {
    return uids.Probe(h, [&](uint32_t s) {
      return items[s].status != Status::kFree && Text(s).uid() == uid;
    });
  }
  // The slot of `uid`, or nullopt.
  std::optional<uint32_t> Find(absl::string_view uid) const {
    const uint32_t slot = uids.At(ProbeUid(HashUid(uid), uid));
    if (slot == IdTable::kEmpty) return std::nullopt;
    return slot;
  }

  // ---- Entry validity ----
  bool ItemEntryValid(const Entry& e) const {
    const Item& it = items[e.id];
    return it.status == Status::kWaiting && it.gen == e.stamp;
  }
  bool ForceEntryValid(const Entry& e) const {
    return ItemEntryValid(e) && e.t == ForceTime(items[e.id]);
  }
  template <typename E>
  bool KeyEntryValid(const E& e) const {
    return keys[e.id].version == e.stamp;
  }

  // ---- Per-key queues ----
  // Drops stale entries from the top of key `k`'s retry heap (compacting it
  // when mostly stale); empties it when no retried pod waits.
  void CleanRetry(uint32_t k) {
    TimedHeap& heap = key_retry[k];
    const Key& key = keys[k];
    if (key.retry_live == 0) {
      heap.clear();
      return;
    }
    while (!ItemEntryValid(heap.top())) heap.pop();
    if (NeedsCompaction(heap.size(), key.retry_live)) {
      heap.Filter([&](const Entry& e) { return ItemEntryValid(e); });
    }
  }

  // The first waiting pod of key `k` (live > 0).
  Entry KeyHead(uint32_t k) const {
    const Key& key = keys[k];
    if (key.head != kNone) {
      const Item& it = items[key.head];
      const Entry head{absl::InfinitePast(), it.seq, key.head, it.gen};
      if (key.retry_live == 0 || Later()(key_retry[k].top(), head)) {
        return head;
      }
    }
    return key_retry[k].top();
  }

  // Re-publishes key `k` after its first waiting pod or its openness
  // changed: its old key-heap entry goes stale, a new one is pushed if the
  // key can hand something out.
  void RefreshKey(uint32_t k) {
    Key& key = keys[k];
    ++key.version;
    if (key.live == 0 || !Open(k)) return;
    const Entry head = KeyHead(k);
    if (head.t == absl::InfinitePast()) {
      fresh_keys.push({head.seq, k, key.version});
    } else {
      timed_keys.push({head.t, head.seq, k, key.version});
    }
  }

  // Puts a waiting pod into the force heap (if it has a deadline) and its
  // key's FIFO or retry heap (unless held).
  void Place(uint32_t slot) {
    Item& it = items[slot];
    it.status = Status::kWaiting;
    if (it.deadline != absl::InfiniteFuture()) {
      force.push({ForceTime(it), it.seq, slot, it.gen});
      ++force_live;
    }
    it.in_fifo = false;
    const uint32_t k = it.sched_key;
    if (k == kHeld) return;
    Key& key = keys[k];
    bool first;
    if (it.ready_at == absl::InfinitePast() &&
        (key.tail == kNone || items[key.tail].seq < it.seq)) {
      // Behind a non-empty FIFO it cannot be first.
      first =
          key.live == 0 || (key.head == kNone &&
                            Later()(key_retry[k].top(),
                                    Entry{it.ready_at, it.seq, slot, it.gen}));
      it.in_fifo = true;
      it.prev = key.tail;
      it.next = kNone;
      (key.tail == kNone ? key.head : items[key.tail].next) = slot;
      key.tail = slot;
    } else {
      const Entry e{it.ready_at, it.seq, slot, it.gen};
      first = key.live == 0 || Later()(KeyHead(k), e);
      key_retry[k].push(e);
      ++key.retry_live;
    }
    ++key.live;
    if (first) RefreshKey(k);
  }

  // Takes a waiting pod out of its queues (the force heap and retry heaps
  // lazily: their entries go stale with the generation).
  void Unplace(uint32_t slot) {
    Item& it = items[slot];
    if (it.deadline != absl::InfiniteFuture()) --force_live;
    const uint32_t k = it.sched_key;
    if (k == kHeld) {
      ++it.gen;
      return;
    }
    Key& key = keys[k];
    const bool was_first = KeyHead(k).id == slot;
    --key.live;
    ++it.gen;
    if (it.in_fifo) {
      (it.prev == kNone ? key.head : items[it.prev].next) = it.next;
      (it.next == kNone ? key.tail : items[it.next].prev) = it.prev;
      it.in_fifo = false;
    } else {
      --key.retry_live;
      CleanRetry(k);
    }
    if (was_first) RefreshKey(k);
  }

  // Releases the key slot an in-flight pod holds.
  void ReleaseSlot(Item& it) {
    const uint32_t k = it.slot_key;
    it.slot_key = kNoKey;
    --in_flight;
    if (k == kNoKey) return;  // A force-delete holds no slot.
    Key& key = keys[k];
    --key.in_flight;
    // Reopened: publish the key's first waiting pod again.
    if (k != kUnkeyed && key.in_flight == options.max_in_flight_per_key - 1) {
      RefreshKey(k);
    }
  }

  // Frees `slot`. Its UID cell is erased kPendingFrees frees later, its
  // line prefetched now: erasing at once would stall on a cache miss per
  // pod (a fifth of the queue's time with 1M pods). Until then the cell
  // stays, but lookups skip free slots, and the slot is not reused.
  void Free(uint32_t slot) {
    Item& it = items[slot];
    it.status = Status::kFree;
    ++it.gen;
    SetMulti(it, {});
    const uint64_t hash = Text(slot).hash;
    uids.Prefetch(hash);
    if (pending_count == kPendingFrees) FinishFree();
    pending[(pending_head + pending_count++) % kPendingFrees] = {hash, slot};
  }
  void FinishFree() {
    const PendingFree& p = pending[pending_head];
    pending_head = (pending_head + 1) % kPendingFrees;
    --pending_count;
    uids.Erase(p.hash, p.slot);
    free_slots.push_back(p.slot);
  }

  // Restores the invariant that the tops of the force and key heaps are
  // valid (so const readers can trust them) and compacts them.
  void CleanTops() {
    while (!force.empty() && !ForceEntryValid(force.top())) force.pop();
    if (NeedsCompaction(force.size(), force_live)) {
      force.Filter([&](const Entry& e) { return ForceEntryValid(e); });
    }
    CleanKeyHeap(fresh_keys);
    CleanKeyHeap(timed_keys);
  }
  template <typename Heap>
  void CleanKeyHeap(Heap& heap) {
    while (!heap.empty() && !KeyEntryValid(heap.top())) heap.pop();
    if (NeedsCompaction(heap.size(), keys.size())) {
      heap.Filter([&](const auto& e) { return KeyEntryValid(e); });
    }
  }

  // ---- Keys ----
  // Resolves `names` (validated non-empty) into `single` or, for several
  // distinct names, `multi` (sorted by name).
  void ResolveKeys(absl::Span<const std::string> names, uint32_t& single,
                   std::vector<uint32_t>& multi) {
    single = kNoKey;
    multi.clear();
    if (names.empty()) return;
    if (names.size() == 1) {  // The common case: no sorting, no allocation.
      single = Intern(names[0]);
      return;
    }
    std::vector<absl::string_view> sorted(names.begin(), names.end());
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    if (sorted.size() == 1) {
      single = Intern(sorted[0]);
      return;
    }
    for (absl::string_view name : sorted) multi.push_back(Intern(name));
  }

  bool KeyNameIs(uint32_t id, absl::string_view name) const {
    const Key& key = keys[id];
    if (key.name_len != name.size()) return false;
    const size_t n = std::min(name.size(), Key::kPrefix);
    return std::memcmp(key.name_prefix, name.data(), n) == 0 &&
           (name.size() <= Key::kPrefix || key_names[id] == name);
  }

  uint32_t Intern(absl::string_view name) {
    const uint64_t hash = absl::Hash<absl::string_view>()(name);
    key_ids.Reserve();
    const size_t cell =
        key_ids.Probe(hash, [&](uint32_t id) { return KeyNameIs(id, name); });
    if (key_ids.At(cell) != IdTable::kEmpty) return key_ids.At(cell);
    const uint32_t id = static_cast<uint32_t>(keys.size());
    Key& key = keys.emplace_back();
    key.name_len = static_cast<uint32_t>(name.size());
    std::memcpy(key.name_prefix, name.data(),
                std::min(name.size(), Key::kPrefix));
    key_names.emplace_back(name);
    key_retry.emplace_back();
    key_ids.InsertAt(cell, hash, id);
    return id;
  }

  absl::Span<const uint32_t> Multi(const Item& it) const {
    if (it.multi == kNone) return {};
    return multi_sets[it.multi];
  }
  void SetMulti(Item& it, std::vector<uint32_t> multi) {
    if (multi.empty()) {
      if (it.multi != kNone) free_multi.push_back(it.multi);
      it.multi = kNone;
      return;
    }
    if (it.multi == kNone) {
      if (free_multi.empty()) {
        it.multi = static_cast<uint32_t>(multi_sets.size());
        multi_sets.emplace_back();
      } else {
        it.multi = free_multi.back();
        free_multi.pop_back();
      }
    }
    multi_sets[it.multi] = std::move(multi);
  }

  void SetKeys(Item& it, uint32_t single, std::vector<uint32_t> multi) {
    it.pdb_key = single;
    if (options.mode == EvictionQueueMode::kPerPod) {
      it.sched_key = kUnkeyed;
    } else if (!multi.empty()) {
      it.sched_key = kHeld;
    } else {
      it.sched_key = single == kNoKey ? kUnkeyed : single;
    }
    SetMulti(it, std::move(multi));
  }

  std::vector<std::string> KeyNames(const Item& it) const {
    std::vector<std::string> out;
    if (it.pdb_key != kNoKey) out.push_back(key_names[it.pdb_key]);
    for (uint32_t k : Multi(it)) out.push_back(key_names[k]);
    return out;
  }

  std::string QuotedPodName(uint32_t slot) const {
    const PodText& t = Text(slot);
    return Quote(PodName(t.ns(), t.name()));
  }

  absl::Status Add(const PodRef& pod, absl::Span<const std::string> names,
                   absl::Time deadline);
  absl::Status Update(uint32_t slot, const PodRef& pod, uint32_t single,
                      std::vector<uint32_t> multi, absl::Time deadline);
  std::optional<EvictionWork> Pop(absl::Time now);
  absl::StatusOr<EvictionCompletion> Complete(uint32_t slot,
                                              EvictionResult result,
                                              absl::Time now);
  absl::Status Remove(absl::string_view uid);
  EvictionItemStatus Inspect(uint32_t slot, absl::Time now) const;

  EvictionQueueOptions options;
  absl::Duration interval;
  absl::Duration burst_window;
  absl::Time tat = absl::InfinitePast();
  absl::Time next_token = absl::InfinitePast();

  // Per slot.
  std::vector<Item> items;
  std::vector<std::unique_ptr<PodText[]>> texts;
  std::vector<uint32_t> free_slots;
  IdTable uids;
  // Freed slots whose UID cells are still to be erased (see Free), a ring.
  struct PendingFree {
    uint64_t hash;
    uint32_t slot;
  };
  static constexpr size_t kPendingFrees = 16;
  std::array<PendingFree, kPendingFrees> pending{};
  size_t pending_head = 0;
  size_t pending_count = 0;
  // Key sets of pods under several PDBs, indexed by Item::multi.
  std::vector<std::vector<uint32_t>> multi_sets;
  std::vector<uint32_t> free_multi;

  // Per key id; parallel vectors (the hot Key records stay small).
  IdTable key_ids;
  std::vector<Key> keys;
  std::vector<std::string> key_names;
  std::vector<TimedHeap> key_retry;

  // Waiting pods with a deadline, by (max(deadline, ready_at), seq).
  TimedHeap force;
  size_t force_live = 0;
  // Open keys with waiting pods, by their first pod's (ready_at, seq): those
  // whose first pod is ready since InfinitePast (never failed) in
  // `fresh_keys`, the others in `timed_keys`. At most one valid entry per
  // key across both.
  FreshHeap fresh_keys;
  TimedHeap timed_keys;

  uint64_t next_seq = 0;
  size_t in_flight = 0;
  EvictionQueueCounters counters;
};

absl::Status EvictionQueue::State::Add(const PodRef& pod,
                                       absl::Span<const std::string> names,
                                       absl::Time deadline) {
  if (pod.uid.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("pod.uid: must not be empty (pod ",
                     Quote(PodName(pod.namespace_name, pod.name)), ")"));
  }
  if (pod.name.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("pod.name: must not be empty (uid ", Quote(pod.uid), ")"));
  }
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i].empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("pdb_keys[", i, "]: must not be empty"));
    }
  }
  // Start fetching the UID's table cell while the keys are resolved.
  const uint64_t hash = HashUid(pod.uid);
  uids.Prefetch(hash);
  uint32_t single;
  std::vector<uint32_t> multi;
  ResolveKeys(names, single, multi);

  // Reuse a pending slot rather than grow; erasing moves cells, so before
  // the probe.
  if (free_slots.empty() && pending_count > 0) FinishFree();
  uids.Reserve();
  const size_t cell = ProbeUid(hash, pod.uid);
  if (uids.At(cell) != IdTable::kEmpty) {
    return Update(uids.At(cell), pod, single, std::move(multi), deadline);
  }
  const uint32_t slot = AllocSlot();
  uids.InsertAt(cell, hash, slot);
  Text(slot).Set(pod, hash);
  Item& it = items[slot];
  SetKeys(it, single, std::move(multi));
  it.slot_key = kNoKey;
  it.failures = 0;
  it.deadline = deadline;
  it.ready_at = absl::InfinitePast();
  it.seq = next_seq++;
  it.kind = EvictionWorkKind::kEvict;
  ++counters.added;
  Place(slot);
  CleanTops();
  return absl::OkStatus();
}

absl::Status EvictionQueue::State::Update(uint32_t slot, const PodRef& pod,
                                          uint32_t single,
                                          std::vector<uint32_t> multi,
                                          absl::Time deadline) {
  Item& it = items[slot];
  const PodText& queued = Text(slot);
  if (queued.ns() != pod.namespace_name || queued.name() != pod.name) {
    return absl::InvalidArgumentError(absl::StrCat(
        "pod.uid ", Quote(pod.uid), ": already queued as ", QuotedPodName(slot),
        ", not ", Quote(PodName(pod.namespace_name, pod.name))));
  }
  ++counters.deduplicated;
  const absl::Time new_deadline = std::min(it.deadline, deadline);
  const absl::Span<const uint32_t> old_multi = Multi(it);
  const bool keys_changed =
      it.pdb_key != single || !std::equal(old_multi.begin(), old_multi.end(),
                                          multi.begin(), multi.end());
  if (!keys_changed && new_deadline == it.deadline) return absl::OkStatus();
  const bool waiting = it.status == Status::kWaiting;
  if (waiting) Unplace(slot);
  it.deadline = new_deadline;
  SetKeys(it, single, std::move(multi));
  if (waiting) Place(slot);
  CleanTops();
  return absl::OkStatus();
}

std::optional<EvictionWork> EvictionQueue::State::Pop(absl::Time now) {
  if (!TokenAt(now)) return std::nullopt;
  uint32_t slot;
  EvictionWorkKind kind;
  uint32_t slot_key = kNoKey;
  if (!force.empty() && force.top().t <= now) {
    slot = force.top().id;
    force.pop();
    kind = EvictionWorkKind::kForceDelete;
    Unplace(slot);
    ++counters.popped_force_deletes;
  } else {
    // A fresh key's first pod (ready since InfinitePast) precedes any timed
    // one.
    if (!fresh_keys.empty()) {
      slot_key = fresh_keys.top().id;
      fresh_keys.pop();
    } else if (!timed_keys.empty() && timed_keys.top().t <= now) {
      slot_key = timed_keys.top().id;
      timed_keys.pop();
    } else {
      return std::nullopt;
    }
    slot = KeyHead(slot_key).id;
    // Count the slot first so the refresh in Unplace sees the key's new
    // openness.
    ++keys[slot_key].in_flight;
    kind = EvictionWorkKind::kEvict;
    Unplace(slot);
    ++counters.popped_evictions;
  }
  Item& it = items[slot];
  it.status = Status::kInFlight;
  it.kind = kind;
  it.slot_key = slot_key;
  ++in_flight;
  TakeToken(now);
  CleanTops();
  // The generation does not change while in flight, so (slot, gen) names
  // this hand-out until it is completed or removed.
  const uint64_t ticket = (uint64_t{slot} << 32) | it.gen;
  const PodText& text = Text(slot);
  return EvictionWork{PodRefView(text.ns(), text.name(), text.uid()), kind,
                      it.deadline, it.failures, ticket};
}

absl::StatusOr<EvictionCompletion> EvictionQueue::State::Complete(
    uint32_t slot, EvictionResult result, absl::Time now) {
  Item& it = items[slot];
  if (it.status != Status::kInFlight) {
    return absl::FailedPreconditionError(
        absl::StrCat("uid ", Quote(Text(slot).uid()), " (pod ",
                     QuotedPodName(slot), "): not in flight"));
  }
  const size_t result_index = static_cast<size_t>(result);
  if (result_index >= counters.eviction_results.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "result: unknown EvictionResult ", static_cast<int>(result)));
  }
  const bool evict = it.kind == EvictionWorkKind::kEvict;
  ++(evict ? counters.eviction_results
           : counters.force_delete_results)[result_index];
  ReleaseSlot(it);

  EvictionCompletion out;
  if (IsDone(result)) {
    out.done = true;
    Free(slot);
    CleanTops();
    return out;
  }
  if (evict && (result == EvictionResult::kBlockedByPdb ||
                result == EvictionResult::kMisconfigured)) {
    absl::string_view why = result == EvictionResult::kBlockedByPdb
                                ? "evicting pod violates a PDB"
                                : "eviction does not support multiple PDBs";
    const PodText& text = Text(slot);
    out.event = DrainEvent{"FailedDraining",
                           absl::StrCat("Failed to drain node, ", why, " (Pod=",
                                        PodName(text.ns(), text.name()), ")")};
    ++counters.events;
  }
  if (it.failures < INT_MAX) ++it.failures;
  out.failures = it.failures;
  out.backoff = Backoff(it.failures);
  out.retry_at = now + out.backoff;
  it.ready_at = out.retry_at;
  it.kind = EvictionWorkKind::kEvict;
  Place(slot);
  CleanTops();
  return out;
}

absl::Status EvictionQueue::State::Remove(absl::string_view uid) {
  const std::optional<uint32_t> slot = Find(uid);
  if (!slot.has_value()) return NotQueued(uid);
  Item& it = items[*slot];
  if (it.status == Status::kWaiting) {
    Unplace(*slot);
  } else {
    ReleaseSlot(it);
  }
  Free(*slot);
  ++counters.removed;
  CleanTops();
  return absl::OkStatus();
}

EvictionItemStatus EvictionQueue::State::Inspect(uint32_t slot,
                                                 absl::Time now) const {
  const Item& it = items[slot];
  EvictionItemStatus s;
  s.deadline = it.deadline;
  s.failures = it.failures;
  s.pdb_keys = KeyNames(it);
  const std::string pod = QuotedPodName(slot);
  auto token = [&](EvictionWorkKind kind) {
    s.kind = kind;
    const std::string what =
        kind == EvictionWorkKind::kForceDelete ? "force-delete" : "eviction";
    if (TokenAt(now)) {
      s.state = EvictionItemState::kReady;
      s.message = absl::StrCat(pod, ": ready for ", what);
    } else {
      s.state = EvictionItemState::kWaitingForToken;
      s.until = NextToken();
      s.message = absl::StrCat(pod, ": ready for ", what,
                               ", waiting for a rate-limit token until ",
                               FormatRfc3339(s.until));
    }
  };
  if (it.status == Status::kInFlight) {
    s.state = EvictionItemState::kInFlight;
    s.kind = it.kind;
    s.message =
        absl::StrCat(pod, ": ", EvictionWorkKindName(it.kind), " in flight");
    return s;
  }
  if (it.deadline <= now && it.ready_at <= now) {
    token(EvictionWorkKind::kForceDelete);
    return s;
  }
  if (it.sched_key == kHeld) {
    s.state = EvictionItemState::kHeldMisconfigured;
    s.until = ForceTime(it);
    s.message = absl::StrCat(pod, ": held, selected by several PDBs (",
                             absl::StrJoin(s.pdb_keys, ", "),
                             "); the eviction API refuses such pods");
    return s;
  }
  if (it.ready_at > now) {
    s.state = EvictionItemState::kBackingOff;
    s.until = it.ready_at;
    s.message = absl::StrCat(pod, ": backing off after ", it.failures,
                             " failure(s) until ", FormatRfc3339(s.until));
    return s;
  }
  if (!Open(it.sched_key)) {
    const Key& key = keys[it.sched_key];
    s.state = EvictionItemState::kWaitingForKey;
    s.message =
        absl::StrCat(pod, ": waiting for PDB ", Quote(key_names[it.sched_key]),
                     ": ", key.in_flight, " eviction(s) in flight (max ",
                     options.max_in_flight_per_key, ")");
    return s;
  }
  token(EvictionWorkKind::kEvict);
  return s;
}

absl::StatusOr<EvictionQueue> EvictionQueue::Create(
    const EvictionQueueOptions& options) {
  absl::Status status = ValidateOptions(options);
  if (!status.ok()) return status;
  return EvictionQueue(std::make_unique<State>(options));
}

EvictionQueue::EvictionQueue(std::unique_ptr<State> state)
    : state_(std::move(state)) {}
EvictionQueue::EvictionQueue(EvictionQueue&&) noexcept = default;
EvictionQueue& EvictionQueue::operator=(EvictionQueue&&) noexcept = default;
EvictionQueue::~EvictionQueue() = default;

absl::Status EvictionQueue::Add(const PodRef& pod,
                                absl::Span<const std::string> pdb_keys,
                                absl::Time force_delete_at) {
  return state_->Add(pod, pdb_keys, force_delete_at);
}

std::optional<EvictionWork> EvictionQueue::Pop(absl::Time now) {
  return state_->Pop(now);
}

absl::Time EvictionQueue::NextReadyTime() const {
  const State& s = *state_;
  absl::Time t = absl::InfiniteFuture();
  if (!s.force.empty()) t = s.force.top().t;
  if (!s.fresh_keys.empty()) {
    t = absl::InfinitePast();
  } else if (!s.timed_keys.empty()) {
    t = std::min(t, s.timed_keys.top().t);
  }
  if (t == absl::InfiniteFuture()) return t;
  return std::max(t, s.NextToken());
}

absl::StatusOr<EvictionCompletion> EvictionQueue::Complete(
    absl::string_view uid, EvictionResult result, absl::Time now) {
  const std::optional<uint32_t> slot = state_->Find(uid);
  if (!slot.has_value()) return NotQueued(uid);
  return state_->Complete(*slot, result, now);
}

absl::StatusOr<EvictionCompletion> EvictionQueue::Complete(
    const EvictionWork& work, EvictionResult result, absl::Time now) {
  const State& s = *state_;
  const uint64_t slot = work.ticket >> 32;
  const uint32_t gen = static_cast<uint32_t>(work.ticket);
  // A current ticket skips the UID lookup; anything else (a stale or forged
  // ticket) takes the UID path and its errors.
  if (slot < s.items.size() && s.items[slot].gen == gen &&
      s.items[slot].status == Status::kInFlight &&
      s.Text(static_cast<uint32_t>(slot)).uid() == work.pod.uid) {
    return state_->Complete(static_cast<uint32_t>(slot), result, now);
  }
  return Complete(work.pod.uid, result, now);
}

absl::Status EvictionQueue::Remove(absl::string_view uid) {
  return state_->Remove(uid);
}

absl::StatusOr<EvictionItemStatus> EvictionQueue::Inspect(
    absl::string_view uid, absl::Time now) const {
  const std::optional<uint32_t> slot = state_->Find(uid);
  if (!slot.has_value()) return NotQueued(uid);
  return state_->Inspect(*slot, now);
}

size_t EvictionQueue::size() const {
  return state_->uids.size() - state_->pending_count;
}
size_t EvictionQueue::in_flight() const { return state_->in_flight; }
const EvictionQueueCounters& EvictionQueue::counters() const {
  return state_->counters;
}
const EvictionQueueOptions& EvictionQueue::options() const {
  return state_->options;
}

}  // namespace karpenter::drain
