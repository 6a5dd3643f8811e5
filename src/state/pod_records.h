// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// How a state::ClusterState keeps the compacted pods it no longer holds
// alive for the snapshots that still read them (SDK-internal, not
// installed).
//
// A snapshot taken from the state points at the state's pod records
// without owning a share of each: counting 300k shares per snapshot (and
// dropping them again) is a cache miss per pod, most of what a snapshot
// after a few pod events would cost. Instead each snapshot holds a pin,
// and a record the state replaces or deletes is retired here, stamped with
// the number of pins made so far. A record retired with stamp r can be read
// by the snapshots of pins 1..r only (later ones were taken without it), so
// it is freed once no pin numbered r or below is held. A state that is
// destroyed retires every record it still holds; the last pin frees them.
//
// Thread-safety: Pin, Retire and Reclaim are the state's writer's calls
// (one thread at a time); a pin may be released on any thread. The pin
// registry is guarded by a mutex, so a reader's last read of a record
// happens before the writer frees it.

#ifndef KARPENTER_STATE_POD_RECORDS_H_
#define KARPENTER_STATE_POD_RECORDS_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "snapshot/compact_pod.h"

namespace karpenter::state::internal {

class PodRecordKeeper : public std::enable_shared_from_this<PodRecordKeeper> {
 public:
  using Record = std::unique_ptr<const snapshot::internal::CompactPod>;

  PodRecordKeeper() = default;
  PodRecordKeeper(const PodRecordKeeper&) = delete;
  PodRecordKeeper& operator=(const PodRecordKeeper&) = delete;

  // A pin for a snapshot about to be taken: every record retired from now
  // on is kept until the pin (and every older one) is released. The keeper
  // must be owned by a shared_ptr.
  std::shared_ptr<const void> Pin();
  // Takes `record`, which the state no longer holds (null: nothing).
  void Retire(Record record);
  // Frees the retired records no held pin can read.
  void Reclaim();

  // Records retired and not yet freed; pins held.
  size_t retired_count() const { return retired_count_; }
  size_t pins_held() const;

 private:
  class PinToken;

  mutable absl::Mutex mu_;
  // Held pins: number -> how many (one each, unless numbers repeat).
  std::map<uint64_t, uint32_t> pinned_ ABSL_GUARDED_BY(mu_);
  // The writer's alone.
  uint64_t pins_made_ = 0;
  // Retired records by stamp, oldest first.
  std::deque<std::pair<uint64_t, std::vector<Record>>> retired_;
  size_t retired_count_ = 0;
  size_t retired_since_reclaim_ = 0;
};

}  // namespace karpenter::state::internal

#endif  // KARPENTER_STATE_POD_RECORDS_H_
