// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "drain/min_heap.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>
#include <random>
#include <tuple>
#include <vector>

namespace karpenter::drain::internal {
namespace {

// (t, seq, id), as the queue's entries: ordered by t, then by seq, which
// is unique, so `id` never decides.
using E = std::tuple<int, int, int>;
using Later = std::greater<E>;

int Id(const E& e) { return std::get<2>(e); }

// The ids of the entries popped until `heap` is empty.
template <typename Heap>
std::vector<int> Drain(Heap& heap) {
  std::vector<int> out;
  while (!heap.empty()) {
    out.push_back(Id(heap.top()));
    heap.pop();
  }
  return out;
}

// The ids of `entries` sorted as the heap pops them.
std::vector<int> Sorted(std::vector<E> entries) {
  std::sort(entries.begin(), entries.end());
  std::vector<int> ids;
  for (const E& e : entries) ids.push_back(Id(e));
  return ids;
}

TEMPLATE_TEST_CASE("heap: an empty heap, push, top, pop and clear",
                   "[drain][heap]", (MinHeap<E, Later>), (QuadHeap<E, Later>)) {
  TestType heap;
  CHECK(heap.empty());
  CHECK(heap.size() == 0);
  heap.push({5, 0, 1});
  heap.push({3, 1, 2});
  heap.push({3, 0, 3});
  CHECK(heap.size() == 3);
  CHECK(Id(heap.top()) == 3);  // t 3, then the smaller seq
  heap.pop();
  CHECK(Id(heap.top()) == 2);
  heap.clear();
  CHECK(heap.empty());
  heap.push({1, 0, 4});
  CHECK(Id(heap.top()) == 4);
}

TEMPLATE_TEST_CASE("heap: pops in (t, seq) order whatever the push order",
                   "[drain][heap]", (MinHeap<E, Later>), (QuadHeap<E, Later>)) {
  std::mt19937 rng(7);
  for (int round = 0; round < 50; ++round) {
    const int n = round < 10 ? round : static_cast<int>(rng() % 300);
    std::vector<E> entries;
    for (int i = 0; i < n; ++i) {
      entries.push_back({static_cast<int>(rng() % 20), i, i});
    }
    std::shuffle(entries.begin(), entries.end(), rng);
    TestType heap;
    for (const E& e : entries) heap.push(e);
    REQUIRE(heap.size() == entries.size());
    CHECK(Drain(heap) == Sorted(entries));
  }
}

TEMPLATE_TEST_CASE("heap: pops interleaved with pushes stay ordered",
                   "[drain][heap]", (MinHeap<E, Later>), (QuadHeap<E, Later>)) {
  std::mt19937 rng(11);
  TestType heap;
  std::vector<E> model;
  int seq = 0;
  for (int step = 0; step < 2000; ++step) {
    if (model.empty() || rng() % 3 != 0) {
      const E e{static_cast<int>(rng() % 50), seq, seq};
      ++seq;
      heap.push(e);
      model.push_back(e);
    } else {
      const std::vector<int> want = Sorted(model);
      REQUIRE(Id(heap.top()) == want.front());
      heap.pop();
      model.erase(std::find_if(model.begin(), model.end(), [&](const E& e) {
        return Id(e) == want.front();
      }));
    }
    REQUIRE(heap.size() == model.size());
  }
  CHECK(Drain(heap) == Sorted(model));
}

TEMPLATE_TEST_CASE("heap: Filter keeps exactly the kept entries, in order",
                   "[drain][heap]", (MinHeap<E, Later>), (QuadHeap<E, Later>)) {
  std::mt19937 rng(3);
  for (int round = 0; round < 200; ++round) {
    const int n = static_cast<int>(rng() % 200);
    const int modulus = 2 + static_cast<int>(rng() % 4);
    std::vector<E> entries;
    for (int i = 0; i < n; ++i) {
      // Times in descending push order, so most entries must move when
      // the heap is rebuilt.
      entries.push_back({n - i + static_cast<int>(rng() % 5), i, i});
    }
    TestType heap;
    for (const E& e : entries) heap.push(e);
    // Pops first, so the heap's layout is not the push order.
    const int pops = n == 0 ? 0 : static_cast<int>(rng() % (n / 4 + 1));
    std::vector<E> left = entries;
    for (int i = 0; i < pops; ++i) {
      const int id = Id(heap.top());
      heap.pop();
      left.erase(std::find_if(left.begin(), left.end(),
                              [&](const E& e) { return Id(e) == id; }));
    }
    auto keep = [&](const E& e) { return Id(e) % modulus != 0; };
    heap.Filter(keep);
    std::vector<E> kept;
    for (const E& e : left) {
      if (keep(e)) kept.push_back(e);
    }
    REQUIRE(heap.size() == kept.size());
    CHECK(Drain(heap) == Sorted(kept));
  }
}

TEMPLATE_TEST_CASE("heap: Filter of nothing and of everything", "[drain][heap]",
                   (MinHeap<E, Later>), (QuadHeap<E, Later>)) {
  TestType heap;
  heap.Filter([](const E&) { return false; });
  CHECK(heap.empty());
  for (int i = 0; i < 40; ++i) heap.push({40 - i, i, i});
  heap.Filter([](const E&) { return true; });
  CHECK(heap.size() == 40);
  CHECK(Id(heap.top()) == 39);
  heap.Filter([](const E&) { return false; });
  CHECK(heap.empty());
}

}  // namespace
}  // namespace karpenter::drain::internal
