// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/testing/fake_clock.h"

#include "absl/strings/str_cat.h"
#include "karpenter/time_util.h"
#include "testing/mutex_lock.h"

namespace karpenter::testing {

FakeClock::FakeClock(absl::Time start) : now_(start) {}

absl::Time FakeClock::Now() const {
  internal::MutexLock lock(&mu_);
  return now_;
}

absl::Status FakeClock::SetTime(absl::Time t) {
  internal::MutexLock lock(&mu_);
  if (t < now_) {
    return absl::InvalidArgumentError(
        absl::StrCat("FakeClock::SetTime: time ", FormatRfc3339(t),
                     " is before the current time ", FormatRfc3339(now_)));
  }
  now_ = t;
  return absl::OkStatus();
}

absl::Status FakeClock::Advance(absl::Duration d) {
  if (d < absl::ZeroDuration() || d == absl::InfiniteDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("FakeClock::Advance: duration ", absl::FormatDuration(d),
                     " must be finite and not negative"));
  }
  internal::MutexLock lock(&mu_);
  now_ += d;
  return absl::OkStatus();
}

}  // namespace karpenter::testing
