// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Internal: IdTable, the open-addressing table of the EvictionQueue
// (eviction_queue.cc) that maps a string to a 32-bit id (a pod's UID to
// its slot, a PDB key's name to its key id) without storing the strings:
// the caller keeps each id's string and confirms a candidate id against it
// (the `eq` of Probe), so a cell is 8 bytes and the table of a million pods
// is 16 MiB. The caller hashes (any 64-bit hash whose top 32 bits are well
// mixed, e.g. absl::Hash). ProbeMemory is the table's huge-page-backed
// storage.
//
// Thread-safety: none (a value type; the queue serialises its callers).
#ifndef KARPENTER_SRC_DRAIN_ID_TABLE_H_
#define KARPENTER_SRC_DRAIN_ID_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <utility>

namespace karpenter::drain::internal {

// Memory for a large randomly probed array, 2 MiB aligned and marked for
// transparent huge pages: with 4 KiB pages nearly every probe of a table of
// many megabytes also misses the TLB (measured: about a third of the cost of
// a probe). Smaller arrays use the ordinary allocator.
class ProbeMemory {
 public:
  static constexpr size_t kHugePage = size_t{2} << 20;
  ProbeMemory() = default;
  explicit ProbeMemory(size_t bytes);
  ProbeMemory(ProbeMemory&& o) noexcept
      : p_(std::exchange(o.p_, nullptr)), bytes_(o.bytes_) {}
  ProbeMemory& operator=(ProbeMemory&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  ~ProbeMemory();
  void* get() const { return p_; }

 private:
  void* p_ = nullptr;
  size_t bytes_ = 0;
};

// String -> id (UID -> slot, PDB key name -> key id): linear probing over
// 8-byte cells holding the top 32 bits of the string's hash and the id. The
// home cell is taken from the top bits of the tag, so growing needs no rehash
// of the UIDs; a tag match is confirmed against the id's stored string. At most
// half full; deletion shifts cells back (no tombstones). 1M pods: a 16 MiB
// table, one cache miss per probe. Ids are any uint32 but kEmpty.
class IdTable {
 public:
  // The id of an empty cell (At); never stored.
  static constexpr uint32_t kEmpty = 0xFFFFFFFF;

  IdTable() { Resize(16); }

  size_t size() const { return size_; }
  void Prefetch(uint64_t hash) const {
    __builtin_prefetch(&cells_[Home(Tag(hash))], 1);
  }
  // Makes room for one more cell (call before Probe when inserting).
  void Reserve() {
    if (2 * (size_ + 1) > mask_ + 1) Resize(2 * (mask_ + 1));
  }
  // The index of the cell whose slot satisfies `eq`, or of the empty cell
  // where such a slot would go.
  template <typename Eq>
  size_t Probe(uint64_t hash, Eq eq) const {
    const uint32_t tag = Tag(hash);
    for (size_t i = Home(tag);; i = (i + 1) & mask_) {
      const Cell& c = cells_[i];
      if (c.slot == kEmpty || (c.tag == tag && eq(c.slot))) return i;
    }
  }
  // The slot in cell `i` (kEmpty if empty).
  uint32_t At(size_t i) const { return cells_[i].slot; }
  // Fills the empty cell `i` returned by Probe.
  void InsertAt(size_t i, uint64_t hash, uint32_t slot) {
    cells_[i] = {Tag(hash), slot};
    ++size_;
  }
  // Erases `slot`, which must be in the table under `hash`.
  void Erase(uint64_t hash, uint32_t slot) {
    size_t i = Probe(hash, [slot](uint32_t s) { return s == slot; });
    // Backward shift: move each later cell of the run into the hole unless
    // its home lies after the hole.
    for (size_t j = (i + 1) & mask_; cells_[j].slot != kEmpty;
         j = (j + 1) & mask_) {
      const size_t home = Home(cells_[j].tag);
      if (((j - home) & mask_) >= ((j - i) & mask_)) {
        cells_[i] = cells_[j];
        i = j;
      }
    }
    cells_[i].slot = kEmpty;
    --size_;
  }

 private:
  struct Cell {
    uint32_t tag;
    uint32_t slot;
  };
  static uint32_t Tag(uint64_t hash) {
    return static_cast<uint32_t>(hash >> 32);
  }
  size_t Home(uint32_t tag) const { return tag >> shift_; }

  void Resize(size_t capacity);

  ProbeMemory memory_;
  Cell* cells_ = nullptr;
  size_t mask_ = 0;
  int shift_ = 0;
  size_t size_ = 0;
};

}  // namespace karpenter::drain::internal

#endif  // KARPENTER_SRC_DRAIN_ID_TABLE_H_
