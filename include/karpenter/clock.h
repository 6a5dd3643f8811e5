// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Clock: the one place the SDK reads the current time.
//
// Every core takes the time it decides at as an argument (decide-then-act);
// controllers and executors that need "now" hold a `karpenter::Clock&` so a
// host can substitute `testing::FakeClock` (karpenter/testing/fake_clock.h)
// and replay a pass at any instant. This mirrors Karpenter's use of an
// injected `clock.Clock` (k8s.io/utils/clock) in every controller.
//
// Thread-safety: implementations must be safe to call from any thread;
// `RealClock()` and `testing::FakeClock` are.

#ifndef KARPENTER_CLOCK_H_
#define KARPENTER_CLOCK_H_

#include "absl/time/time.h"

namespace karpenter {

// A source of the current time. Pure interface: no data, virtual destructor.
class Clock {
 public:
  virtual ~Clock() = default;

  // Returns the current time. Must never fail; successive calls on one
  // thread return non-decreasing values.
  virtual absl::Time Now() const = 0;
};

// Returns the process-wide clock backed by absl::Now(). The object lives for
// the whole program and is never destroyed.
Clock& RealClock();

}  // namespace karpenter

#endif  // KARPENTER_CLOCK_H_
