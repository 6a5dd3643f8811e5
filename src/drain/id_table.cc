// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// IdTable's growth and ProbeMemory's allocation (id_table.h); the probes
// stay inline in the header.

#include "drain/id_table.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <new>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace karpenter::drain::internal {

ProbeMemory::ProbeMemory(size_t bytes) : bytes_(bytes) {
  if (bytes_ < kHugePage) {
    p_ = ::operator new(bytes_);
    return;
  }
  bytes_ = (bytes_ + kHugePage - 1) / kHugePage * kHugePage;
  p_ = ::operator new (bytes_, std::align_val_t{kHugePage});
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // Advisory only: on failure the table works with small pages.
  madvise(p_, bytes_, MADV_HUGEPAGE);
#endif
}

ProbeMemory::~ProbeMemory() {
  if (p_ == nullptr) return;
  if (bytes_ < kHugePage) {
    ::operator delete(p_);
  } else {
    ::operator delete (p_, std::align_val_t{kHugePage});
  }
}

void IdTable::Resize(size_t capacity) {
  ProbeMemory memory(capacity * sizeof(Cell));
  Cell* cells = static_cast<Cell*>(memory.get());
  std::fill(cells, cells + capacity, Cell{0, kEmpty});
  const Cell* old = cells_;
  const size_t old_capacity = cells_ == nullptr ? 0 : mask_ + 1;
  cells_ = cells;
  mask_ = capacity - 1;
  shift_ = 32 - std::countr_zero(capacity);
  for (size_t k = 0; k < old_capacity; ++k) {
    const Cell& c = old[k];
    if (c.slot == kEmpty) continue;
    size_t i = Home(c.tag);
    while (cells_[i].slot != kEmpty) i = (i + 1) & mask_;
    cells_[i] = c;
  }
  memory_ = std::move(memory);  // frees the old cells
}

}  // namespace karpenter::drain::internal
