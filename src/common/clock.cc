// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/clock.h"

#include "absl/time/clock.h"

namespace karpenter {
namespace {

class SystemClock final : public Clock {
 public:
  absl::Time Now() const override { return absl::Now(); }
};

}  // namespace

Clock& RealClock() {
  static SystemClock* const clock = new SystemClock();
  return *clock;
}

}  // namespace karpenter
