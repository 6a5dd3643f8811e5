// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// ObjectList<T>: the objects of one kind in a Snapshot (Snapshot::nodes(),
// node_claims(), ...), a read-only random-access range in the snapshot's
// order. It reads like `absl::Span<const T>` (size, operator[], front, back,
// iteration, standard algorithms), but the objects are not contiguous: each
// object is held on its own and shared, unchanged, by the snapshots a
// state::ClusterState takes one after another, so that a snapshot taken
// after one Node changed copies a pointer per Node instead of every Node.
// There is no data(); `&list[i]` is the address of object i.
//
// An SDK type with no Kubernetes counterpart (an informer's cache hands out
// pointers to its shared objects in the same spirit: client-go
// tools/cache/thread_safe_store.go).
//
// Thread-safety: immutable; valid while the Snapshot that returned it lives
// (moving the Snapshot keeps it valid). Any number of threads may read it.

#ifndef KARPENTER_SNAPSHOT_OBJECT_LIST_H_
#define KARPENTER_SNAPSHOT_OBJECT_LIST_H_

#include <cstddef>
#include <iterator>
#include <memory>

namespace karpenter::snapshot {

template <typename T>
class ObjectList {
 public:
  using value_type = T;
  using size_type = size_t;
  using difference_type = std::ptrdiff_t;
  using reference = const T&;
  using const_reference = const T&;
  using pointer = const T*;
  using const_pointer = const T*;

  // A random-access iterator over the list; dereferences to `const T&`.
  class const_iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = const T*;
    using reference = const T&;

    const_iterator() = default;
    reference operator*() const { return **at_; }
    pointer operator->() const { return at_->get(); }
    reference operator[](difference_type n) const { return *at_[n]; }
    const_iterator& operator++() {
      ++at_;
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator old = *this;
      ++at_;
      return old;
    }
    const_iterator& operator--() {
      --at_;
      return *this;
    }
    const_iterator operator--(int) {
      const_iterator old = *this;
      --at_;
      return old;
    }
    const_iterator& operator+=(difference_type n) {
      at_ += n;
      return *this;
    }
    const_iterator& operator-=(difference_type n) {
      at_ -= n;
      return *this;
    }
    friend const_iterator operator+(const_iterator it, difference_type n) {
      return it += n;
    }
    friend const_iterator operator+(difference_type n, const_iterator it) {
      return it += n;
    }
    friend const_iterator operator-(const_iterator it, difference_type n) {
      return it -= n;
    }
    friend difference_type operator-(const const_iterator& a,
                                     const const_iterator& b) {
      return a.at_ - b.at_;
    }
    friend bool operator==(const const_iterator& a, const const_iterator& b) {
      return a.at_ == b.at_;
    }
    friend bool operator!=(const const_iterator& a, const const_iterator& b) {
      return a.at_ != b.at_;
    }
    friend bool operator<(const const_iterator& a, const const_iterator& b) {
      return a.at_ < b.at_;
    }
    friend bool operator>(const const_iterator& a, const const_iterator& b) {
      return a.at_ > b.at_;
    }
    friend bool operator<=(const const_iterator& a, const const_iterator& b) {
      return a.at_ <= b.at_;
    }
    friend bool operator>=(const const_iterator& a, const const_iterator& b) {
      return a.at_ >= b.at_;
    }

   private:
    friend class ObjectList;
    explicit const_iterator(const std::shared_ptr<const T>* at) : at_(at) {}
    const std::shared_ptr<const T>* at_ = nullptr;
  };
  using iterator = const_iterator;

  // An empty list.
  ObjectList() = default;
  // The `size` objects at `objects` (each non-null), as a Snapshot holds
  // them.
  ObjectList(const std::shared_ptr<const T>* objects, size_t size)
      : objects_(objects), size_(size) {}

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Object `i`; `i` must be < size().
  const T& operator[](size_t i) const { return *objects_[i]; }
  // The first and the last object; the list must not be empty.
  const T& front() const { return *objects_[0]; }
  const T& back() const { return *objects_[size_ - 1]; }
  const_iterator begin() const { return const_iterator(objects_); }
  const_iterator end() const { return const_iterator(objects_ + size_); }
  const_iterator cbegin() const { return begin(); }
  const_iterator cend() const { return end(); }

 private:
  const std::shared_ptr<const T>* objects_ = nullptr;
  size_t size_ = 0;
};

}  // namespace karpenter::snapshot

#endif  // KARPENTER_SNAPSHOT_OBJECT_LIST_H_
