// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// FakeClock: a manually driven `karpenter::Clock` for tests and simulation.
//
// The clock stands still until told to move, so a test can place a decision
// exactly on a boundary (a budget window opening, a drain deadline passing).
// Installed with the SDK so hosts can drive their own tests with it.
//
// Thread-safety: all methods are safe to call concurrently.

#ifndef KARPENTER_TESTING_FAKE_CLOCK_H_
#define KARPENTER_TESTING_FAKE_CLOCK_H_

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "karpenter/clock.h"

namespace karpenter::testing {

class FakeClock final : public Clock {
 public:
  // Starts at `start`.
  explicit FakeClock(absl::Time start);

  absl::Time Now() const override;

  // Moves the clock to `t`. Returns InvalidArgument (naming both times) if
  // `t` is before the current time: a clock never runs backwards.
  absl::Status SetTime(absl::Time t);

  // Moves the clock forward by `d`. Returns InvalidArgument if `d` is
  // negative or infinite.
  absl::Status Advance(absl::Duration d);

 private:
  mutable absl::Mutex mu_;
  absl::Time now_ ABSL_GUARDED_BY(mu_);
};

}  // namespace karpenter::testing

#endif  // KARPENTER_TESTING_FAKE_CLOCK_H_
