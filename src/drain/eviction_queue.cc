// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/drain/eviction_queue.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"

namespace karpenter::drain {
namespace {

// Key id 0 is the pseudo-key of pods without a PDB (and of every pod in
// kPerPod mode): it has no in-flight limit.
constexpr uint32_t kUnkeyed = 0;
// Scheduling key of a pod under several PDBs in kKeyedByPdb mode: it is in
// no key heap, so only its deadline can release it.
constexpr uint32_t kHeld = 0xFFFFFFFF;
// No key (no PDB; no slot held).
constexpr uint32_t kNoKey = 0xFFFFFFFF;

constexpr double kMaxQps = 1e9;

// A heap entry: ordered by (t, seq). `id` is a slot (item heaps) or a key id
// (the key heap); `stamp` is the item generation or key version the entry
// was pushed under, so stale entries are recognised and skipped.
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

// A binary min-heap of entries with filtering (for compaction).
class MinHeap {
 public:
  bool empty() const { return v_.empty(); }
  size_t size() const { return v_.size(); }
  const Entry& top() const { return v_.front(); }
  void push(const Entry& e) {
    v_.push_back(e);
    std::push_heap(v_.begin(), v_.end(), Later());
  }
  void pop() {
    std::pop_heap(v_.begin(), v_.end(), Later());
    v_.pop_back();
  }
  void clear() { v_.clear(); }
  // Keeps the entries for which `keep` is true.
  template <typename Pred>
  void Filter(Pred keep) {
    v_.erase(std::remove_if(v_.begin(), v_.end(),
                            [&](const Entry& e) { return !keep(e); }),
             v_.end());
    std::make_heap(v_.begin(), v_.end(), Later());
  }

 private:
  std::vector<Entry> v_;
};

// True if a heap holding `size` entries of which `live` are valid should be
// compacted: more than half stale, so compaction is amortised O(1).
bool NeedsCompaction(size_t size, size_t live) { return size > 2 * live + 64; }

enum class Status : uint8_t { kFree, kWaiting, kInFlight };

// Scheduling state of a queued pod (its PodRef lives in a parallel vector,
// so heap maintenance touches only these few cache lines).
struct Item {
  // The one PDB key (kNoKey if none or several).
  uint32_t pdb_key = kNoKey;
  // All PDB keys when there are several, sorted by name.
  std::vector<uint32_t> multi_keys;
  // The key the pod is scheduled under: kUnkeyed, a key id, or kHeld.
  uint32_t sched_key = kUnkeyed;
  // The key whose slot the pod holds while in flight, or kNoKey.
  uint32_t slot_key = kNoKey;
  uint32_t gen = 0;
  int failures = 0;
  absl::Time deadline = absl::InfiniteFuture();
  absl::Time ready_at = absl::InfinitePast();
  uint64_t seq = 0;
  Status status = Status::kFree;
  EvictionWorkKind kind = EvictionWorkKind::kEvict;
};

struct FifoEntry {
  uint64_t seq;
  uint32_t slot;
  uint32_t gen;
};

// The waiting pods of one key. Most pods are never retried, so they sit in a
// FIFO (ready since forever, ascending seq: O(1) push and pop, sequential
// memory); retried pods, and pods re-placed out of seq order, sit in a heap
// by (ready_at, seq). The key's first pod is the smaller of the two heads.
// Both heads are kept valid (stale entries are dropped when they surface).
struct Key {
  std::string name;
  int in_flight = 0;
  // Waiting pods scheduled under this key.
  size_t live = 0;
  uint32_t version = 0;
  std::vector<FifoEntry> fifo;
  size_t fifo_head = 0;
  MinHeap retry;

  bool FifoEmpty() const { return fifo_head == fifo.size(); }
  size_t Entries() const { return fifo.size() - fifo_head + retry.size(); }
};

// The pod's PDB keys, resolved: sorted, distinct, interned.
struct KeySet {
  uint32_t single = kNoKey;
  std::vector<uint32_t> multi;
};

absl::Time ForceTime(const Item& item) {
  return std::max(item.deadline, item.ready_at);
}

bool IsDone(EvictionResult result) {
  return result == EvictionResult::kEvicted ||
         result == EvictionResult::kNotFound ||
         result == EvictionResult::kConflict;
}

std::string PodName(const PodRef& pod) {
  return absl::StrCat(pod.namespace_name, "/", pod.name);
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
  // UID -> slot without a second copy of the UID: the set stores slots and
  // hashes/compares the UID of the item in that slot. Transparent, so it is
  // looked up by string_view. Holds a pointer to this State, which is
  // therefore heap-allocated and never moved.
  struct SlotHash {
    using is_transparent = void;
    const State* state;
    size_t operator()(uint32_t slot) const {
      return (*this)(absl::string_view(state->pods[slot].uid));
    }
    size_t operator()(absl::string_view uid) const {
      return absl::Hash<absl::string_view>()(uid);
    }
  };
  struct SlotEq {
    using is_transparent = void;
    const State* state;
    absl::string_view Uid(uint32_t slot) const { return state->pods[slot].uid; }
    bool operator()(uint32_t a, uint32_t b) const {
      return a == b || Uid(a) == Uid(b);
    }
    bool operator()(uint32_t a, absl::string_view b) const {
      return Uid(a) == b;
    }
    bool operator()(absl::string_view a, uint32_t b) const {
      return a == Uid(b);
    }
  };

  explicit State(const EvictionQueueOptions& o)
      : options(o),
        interval(absl::Seconds(1) / o.qps),
        burst_window(interval * (o.burst - 1)),
        uids(0, SlotHash{this}, SlotEq{this}) {
    keys.emplace_back();  // kUnkeyed
  }
  State(const State&) = delete;
  State& operator=(const State&) = delete;

  // ---- Token bucket (GCRA form of a continuously refilled bucket) ----
  // `tat` is the instant the bucket is full again; a token is available at
  // t iff t >= tat - (burst - 1) * interval. Exact Duration arithmetic, so
  // NextReadyTime and Pop agree to the tick.
  absl::Time NextToken() const { return tat - burst_window; }
  bool TokenAt(absl::Time now) const { return now >= NextToken(); }
  void TakeToken(absl::Time now) { tat = std::max(tat, now) + interval; }

  bool Open(uint32_t k) const {
    return k == kUnkeyed || keys[k].in_flight < options.max_in_flight_per_key;
  }

  absl::Duration Backoff(int failures) const {
    absl::Duration d = options.backoff_base;
    for (int i = 1; i < failures && d < options.backoff_cap; ++i) d *= 2;
    return std::min(d, options.backoff_cap);
  }

  // ---- Entry validity ----
  bool ItemEntryValid(const Entry& e) const {
    const Item& it = items[e.id];
    return it.status == Status::kWaiting && it.gen == e.stamp;
  }
  bool ForceEntryValid(const Entry& e) const {
    return ItemEntryValid(e) && e.t == ForceTime(items[e.id]);
  }
  bool KeyEntryValid(const Entry& e) const {
    return keys[e.id].version == e.stamp;
  }

  bool FifoValid(const FifoEntry& e) const {
    const Item& it = items[e.slot];
    return it.status == Status::kWaiting && it.gen == e.gen;
  }

  // Drops stale entries from the heads of `key`'s FIFO and heap, and
  // compacts them when mostly stale.
  void CleanKey(Key& key) {
    while (!key.FifoEmpty() && !FifoValid(key.fifo[key.fifo_head])) {
      ++key.fifo_head;
    }
    if (key.FifoEmpty()) {
      key.fifo.clear();
      key.fifo_head = 0;
    } else if (key.fifo_head > 64 && 2 * key.fifo_head > key.fifo.size()) {
      key.fifo.erase(key.fifo.begin(),
                     key.fifo.begin() + static_cast<ptrdiff_t>(key.fifo_head));
      key.fifo_head = 0;
    }
    while (!key.retry.empty() && !ItemEntryValid(key.retry.top())) {
      key.retry.pop();
    }
  }

  // Removes stale entries throughout `key` (heads already valid, so the
  // first pod does not change).
  void CompactKey(Key& key) {
    key.fifo.erase(
        std::remove_if(key.fifo.begin() + static_cast<ptrdiff_t>(key.fifo_head),
                       key.fifo.end(),
                       [&](const FifoEntry& e) { return !FifoValid(e); }),
        key.fifo.end());
    key.fifo.erase(key.fifo.begin(),
                   key.fifo.begin() + static_cast<ptrdiff_t>(key.fifo_head));
    key.fifo_head = 0;
    key.retry.Filter([&](const Entry& e) { return ItemEntryValid(e); });
  }

  // The first waiting pod of a clean key with live > 0.
  Entry KeyHead(const Key& key) const {
    if (!key.FifoEmpty()) {
      const FifoEntry& f = key.fifo[key.fifo_head];
      const Entry head{absl::InfinitePast(), f.seq, f.slot, f.gen};
      if (key.retry.empty() || Later()(key.retry.top(), head)) return head;
    }
    return key.retry.top();
  }

  // Re-publishes key `k` in the key heap after its first waiting pod or its
  // openness changed: the old entry goes stale, a new one is pushed if the
  // key can hand something out.
  void RefreshKey(uint32_t k) {
    Key& key = keys[k];
    CleanKey(key);
    ++key.version;
    if (key.live > 0 && Open(k)) {
      const Entry head = KeyHead(key);
      key_heap.push({head.t, head.seq, k, key.version});
    }
  }

  // Puts a waiting pod into the force heap (if it has a deadline) and its
  // key's FIFO or heap (unless held).
  void Place(uint32_t slot) {
    Item& it = items[slot];
    it.status = Status::kWaiting;
    if (it.deadline != absl::InfiniteFuture()) {
      force.push({ForceTime(it), it.seq, slot, it.gen});
      ++force_live;
    }
    if (it.sched_key == kHeld) return;
    Key& key = keys[it.sched_key];
    const Entry e{it.ready_at, it.seq, slot, it.gen};
    bool first;
    if (it.ready_at == absl::InfinitePast() &&
        (key.fifo.empty() || key.fifo.back().seq < it.seq)) {
      // Behind a non-empty FIFO it cannot be first; checking without
      // reading the FIFO's head saves a cache miss per Add.
      first = key.live == 0 || (key.FifoEmpty() && Later()(key.retry.top(), e));
      key.fifo.push_back({it.seq, slot, it.gen});
    } else {
      first = key.live == 0 || Later()(KeyHead(key), e);
      key.retry.push(e);
    }
    ++key.live;
    if (first) RefreshKey(it.sched_key);
  }

  // Takes a waiting pod out of every heap (lazily: its entries go stale).
  void Unplace(uint32_t slot) {
    Item& it = items[slot];
    if (it.deadline != absl::InfiniteFuture()) --force_live;
    const uint32_t k = it.sched_key;
    if (k == kHeld) {
      ++it.gen;
      return;
    }
    Key& key = keys[k];
    const bool was_first = KeyHead(key).id == slot;
    --key.live;
    ++it.gen;
    if (was_first) {
      RefreshKey(k);
    } else if (NeedsCompaction(key.Entries(), key.live)) {
      CompactKey(key);
    }
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

  void Free(uint32_t slot) {
    uids.erase(slot);
    Item& it = items[slot];
    it.status = Status::kFree;
    ++it.gen;
    // The strings keep their capacity for the next pod in this slot.
    free_slots.push_back(slot);
  }

  // Restores the invariant that the tops of `force` and `key_heap` are
  // valid (so const readers can trust them) and compacts them.
  void CleanTops() {
    while (!force.empty() && !ForceEntryValid(force.top())) force.pop();
    if (NeedsCompaction(force.size(), force_live)) {
      force.Filter([&](const Entry& e) { return ForceEntryValid(e); });
    }
    while (!key_heap.empty() && !KeyEntryValid(key_heap.top())) {
      key_heap.pop();
    }
    if (NeedsCompaction(key_heap.size(), keys.size())) {
      key_heap.Filter([&](const Entry& e) { return KeyEntryValid(e); });
    }
  }

  absl::StatusOr<KeySet> ResolveKeys(absl::Span<const std::string> names) {
    KeySet out;
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i].empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("pdb_keys[", i, "]: must not be empty"));
      }
    }
    if (names.empty()) return out;
    if (names.size() == 1) {  // The common case: no sorting, no allocation.
      out.single = Intern(names[0]);
      return out;
    }
    std::vector<absl::string_view> sorted(names.begin(), names.end());
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    if (sorted.size() == 1) {
      out.single = Intern(sorted[0]);
      return out;
    }
    for (absl::string_view name : sorted) out.multi.push_back(Intern(name));
    return out;
  }

  uint32_t Intern(absl::string_view name) {
    auto it = key_ids.find(name);
    if (it != key_ids.end()) return it->second;
    const uint32_t id = static_cast<uint32_t>(keys.size());
    keys.emplace_back().name = std::string(name);
    key_ids.emplace(std::string(name), id);
    return id;
  }

  uint32_t SchedKey(const KeySet& ks) const {
    if (options.mode == EvictionQueueMode::kPerPod) return kUnkeyed;
    if (!ks.multi.empty()) return kHeld;
    return ks.single == kNoKey ? kUnkeyed : ks.single;
  }

  std::vector<std::string> KeyNames(const Item& it) const {
    std::vector<std::string> out;
    if (it.pdb_key != kNoKey) out.push_back(keys[it.pdb_key].name);
    for (uint32_t k : it.multi_keys) out.push_back(keys[k].name);
    return out;
  }

  // The slot of `uid`, or nullopt.
  std::optional<uint32_t> Find(absl::string_view uid) const {
    auto it = uids.find(uid);
    if (it == uids.end()) return std::nullopt;
    return *it;
  }

  uint32_t AllocSlot() {
    if (free_slots.empty()) {
      items.emplace_back();
      pods.emplace_back();
      return static_cast<uint32_t>(items.size() - 1);
    }
    const uint32_t slot = free_slots.back();
    free_slots.pop_back();
    return slot;
  }

  absl::Status Add(const PodRef& pod, absl::Span<const std::string> names,
                   absl::Time deadline);
  absl::Status Update(uint32_t slot, const PodRef& pod, KeySet ks,
                      absl::Time deadline);
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

  // Per slot; parallel vectors.
  std::vector<Item> items;
  std::vector<PodRef> pods;
  std::vector<uint32_t> free_slots;
  absl::flat_hash_set<uint32_t, SlotHash, SlotEq> uids;
  absl::flat_hash_map<std::string, uint32_t> key_ids;
  std::vector<Key> keys;

  // Waiting pods with a deadline, by (max(deadline, ready_at), seq).
  MinHeap force;
  size_t force_live = 0;
  // Open keys with waiting pods, by their first pod's (ready_at, seq).
  MinHeap key_heap;

  uint64_t next_seq = 0;
  size_t in_flight = 0;
  EvictionQueueCounters counters;
};

absl::Status EvictionQueue::State::Add(const PodRef& pod,
                                       absl::Span<const std::string> names,
                                       absl::Time deadline) {
  if (pod.uid.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "pod.uid: must not be empty (pod ", Quote(PodName(pod)), ")"));
  }
  if (pod.name.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("pod.name: must not be empty (uid ", Quote(pod.uid), ")"));
  }
  absl::StatusOr<KeySet> ks = ResolveKeys(names);
  if (!ks.ok()) return ks.status();

  // One hash lookup: copy the pod into a fresh slot (copy-assignment reuses
  // the slot's string capacity) and insert; give the slot back on a repeat.
  const uint32_t slot = AllocSlot();
  pods[slot] = pod;
  const auto [pos, inserted] = uids.insert(slot);
  if (!inserted) {
    free_slots.push_back(slot);
    return Update(*pos, pod, *std::move(ks), deadline);
  }
  Item& it = items[slot];
  it.sched_key = SchedKey(*ks);
  it.pdb_key = ks->single;
  it.multi_keys = std::move(ks->multi);
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
                                          KeySet ks, absl::Time deadline) {
  Item& it = items[slot];
  const PodRef& queued = pods[slot];
  if (queued.namespace_name != pod.namespace_name || queued.name != pod.name) {
    return absl::InvalidArgumentError(
        absl::StrCat("pod.uid ", Quote(pod.uid), ": already queued as ",
                     Quote(PodName(queued)), ", not ", Quote(PodName(pod))));
  }
  ++counters.deduplicated;
  const absl::Time new_deadline = std::min(it.deadline, deadline);
  const bool keys_changed =
      it.pdb_key != ks.single || it.multi_keys != ks.multi;
  if (!keys_changed && new_deadline == it.deadline) return absl::OkStatus();
  const bool waiting = it.status == Status::kWaiting;
  if (waiting) Unplace(slot);
  it.deadline = new_deadline;
  it.sched_key = SchedKey(ks);
  it.pdb_key = ks.single;
  it.multi_keys = std::move(ks.multi);
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
  } else if (!key_heap.empty() && key_heap.top().t <= now) {
    slot_key = key_heap.top().id;
    key_heap.pop();
    slot = KeyHead(keys[slot_key]).id;
    // Count the slot first so the refresh in Unplace sees the key's new
    // openness.
    ++keys[slot_key].in_flight;
    kind = EvictionWorkKind::kEvict;
    Unplace(slot);
    ++counters.popped_evictions;
  } else {
    return std::nullopt;
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
  return EvictionWork{pods[slot], kind, it.deadline, it.failures, ticket};
}

absl::StatusOr<EvictionCompletion> EvictionQueue::State::Complete(
    uint32_t slot, EvictionResult result, absl::Time now) {
  Item& it = items[slot];
  if (it.status != Status::kInFlight) {
    return absl::FailedPreconditionError(
        absl::StrCat("uid ", Quote(pods[slot].uid), " (pod ",
                     Quote(PodName(pods[slot])), "): not in flight"));
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
    out.event = DrainEvent{"FailedDraining",
                           absl::StrCat("Failed to drain node, ", why,
                                        " (Pod=", PodName(pods[slot]), ")")};
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
  const std::string pod = Quote(PodName(pods[slot]));
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
                               absl::FormatTime(s.until, absl::UTCTimeZone()));
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
                             " failure(s) until ",
                             absl::FormatTime(s.until, absl::UTCTimeZone()));
    return s;
  }
  if (!Open(it.sched_key)) {
    const Key& key = keys[it.sched_key];
    s.state = EvictionItemState::kWaitingForKey;
    s.message = absl::StrCat(pod, ": waiting for PDB ", Quote(key.name), ": ",
                             key.in_flight, " eviction(s) in flight (max ",
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
  if (!s.key_heap.empty()) t = std::min(t, s.key_heap.top().t);
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
      s.pods[slot].uid == work.pod.uid) {
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

size_t EvictionQueue::size() const { return state_->uids.size(); }
size_t EvictionQueue::in_flight() const { return state_->in_flight; }
const EvictionQueueCounters& EvictionQueue::counters() const {
  return state_->counters;
}
const EvictionQueueOptions& EvictionQueue::options() const {
  return state_->options;
}

}  // namespace karpenter::drain
