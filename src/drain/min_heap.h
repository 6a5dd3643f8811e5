// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Internal: the two min-heaps of the EvictionQueue (eviction_queue.cc).
// Both order entries by a strict weak "later than" comparator `Cmp` (as
// std::priority_queue's, so top() is the entry no other is earlier than)
// and can drop entries in bulk with Filter(), which the queue uses to
// compact heaps that lazy deletion filled with stale entries:
//   - MinHeap: a binary heap over std::push_heap/std::pop_heap;
//   - QuadHeap: a 4-ary heap, for the heap popped on every hand-out.
// Among entries that compare equal the order is unspecified.
//
// Thread-safety: none (a value type; the queue serialises its callers).
#ifndef KARPENTER_SRC_DRAIN_MIN_HEAP_H_
#define KARPENTER_SRC_DRAIN_MIN_HEAP_H_

#include <algorithm>
#include <cstddef>
#include <vector>

namespace karpenter::drain::internal {

// A binary min-heap with filtering (for compaction).
template <typename E, typename Cmp>
class MinHeap {
 public:
  bool empty() const { return v_.empty(); }
  size_t size() const { return v_.size(); }
  const E& top() const { return v_.front(); }
  void push(const E& e) {
    v_.push_back(e);
    std::push_heap(v_.begin(), v_.end(), Cmp());
  }
  void pop() {
    std::pop_heap(v_.begin(), v_.end(), Cmp());
    v_.pop_back();
  }
  void clear() { v_.clear(); }
  // Keeps the entries for which `keep` is true.
  template <typename Pred>
  void Filter(Pred keep) {
    v_.erase(std::remove_if(v_.begin(), v_.end(),
                            [&](const E& e) { return !keep(e); }),
             v_.end());
    std::make_heap(v_.begin(), v_.end(), Cmp());
  }

 private:
  std::vector<E> v_;
};

// A 4-ary min-heap: half the levels of a binary heap, and a node's four
// children are adjacent (for 16-byte entries, one or two cache lines), so a
// pop walks about half as many cache lines. Used for the key heap, which is
// popped on every eviction hand-out.
template <typename E, typename Cmp>
class QuadHeap {
 public:
  bool empty() const { return v_.empty(); }
  size_t size() const { return v_.size(); }
  const E& top() const { return v_.front(); }
  void push(const E& e) {
    size_t i = v_.size();
    v_.push_back(e);
    while (i > 0) {
      const size_t parent = (i - 1) / 4;
      if (!Cmp()(v_[parent], e)) break;
      v_[i] = v_[parent];
      i = parent;
    }
    v_[i] = e;
  }
  void pop() {
    const E last = v_.back();
    v_.pop_back();
    if (!v_.empty()) SiftDown(0, last);
  }
  void clear() { v_.clear(); }
  // Keeps the entries for which `keep` is true.
  template <typename Pred>
  void Filter(Pred keep) {
    v_.erase(std::remove_if(v_.begin(), v_.end(),
                            [&](const E& e) { return !keep(e); }),
             v_.end());
    for (size_t i = v_.size() / 4 + 1; i-- > 0;) {
      if (i >= v_.size()) continue;
      // A copy: SiftDown fills hole `i` before it is done with the entry.
      const E e = v_[i];
      SiftDown(i, e);
    }
  }

 private:
  // Places `e` at hole `i` or below.
  void SiftDown(size_t i, const E& e) {
    const size_t n = v_.size();
    for (;;) {
      const size_t first = 4 * i + 1;
      if (first >= n) break;
      size_t best = first;
      const size_t end = std::min(first + 4, n);
      for (size_t c = first + 1; c < end; ++c) {
        if (Cmp()(v_[best], v_[c])) best = c;
      }
      if (!Cmp()(e, v_[best])) break;
      v_[i] = v_[best];
      i = best;
    }
    v_[i] = e;
  }

  std::vector<E> v_;
};

}  // namespace karpenter::drain::internal

#endif  // KARPENTER_SRC_DRAIN_MIN_HEAP_H_
