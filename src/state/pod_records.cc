// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "state/pod_records.h"

#include <limits>

namespace karpenter::state::internal {

namespace {
// Retirements between two reclaims when no pin is taken: bounds what a
// state that is never read keeps.
constexpr size_t kReclaimEvery = 1024;
}  // namespace

class PodRecordKeeper::PinToken {
 public:
  PinToken(std::shared_ptr<PodRecordKeeper> keeper, uint64_t number)
      : keeper_(std::move(keeper)), number_(number) {}
  PinToken(const PinToken&) = delete;
  PinToken& operator=(const PinToken&) = delete;
  ~PinToken() {
    absl::MutexLock lock(&keeper_->mu_);
    const auto it = keeper_->pinned_.find(number_);
    if (--it->second == 0) keeper_->pinned_.erase(it);
  }

 private:
  std::shared_ptr<PodRecordKeeper> keeper_;
  uint64_t number_;
};

std::shared_ptr<const void> PodRecordKeeper::Pin() {
  Reclaim();
  const uint64_t number = ++pins_made_;
  {
    absl::MutexLock lock(&mu_);
    ++pinned_[number];
  }
  return std::make_shared<const PinToken>(shared_from_this(), number);
}

void PodRecordKeeper::Retire(Record record) {
  if (record == nullptr) return;
  if (retired_.empty() || retired_.back().first != pins_made_) {
    retired_.emplace_back(pins_made_, std::vector<Record>());
  }
  retired_.back().second.push_back(std::move(record));
  ++retired_count_;
  if (++retired_since_reclaim_ >= kReclaimEvery) Reclaim();
}

void PodRecordKeeper::Reclaim() {
  retired_since_reclaim_ = 0;
  if (retired_.empty()) return;
  uint64_t oldest = std::numeric_limits<uint64_t>::max();
  {
    absl::MutexLock lock(&mu_);
    if (!pinned_.empty()) oldest = pinned_.begin()->first;
  }
  // Stamp r is readable by pins 1..r: free it once the oldest held pin is
  // newer.
  while (!retired_.empty() && retired_.front().first < oldest) {
    retired_count_ -= retired_.front().second.size();
    retired_.pop_front();
  }
}

size_t PodRecordKeeper::pins_held() const {
  absl::MutexLock lock(&mu_);
  size_t held = 0;
  for (const auto& [number, count] : pinned_) held += count;
  return held;
}

}  // namespace karpenter::state::internal
