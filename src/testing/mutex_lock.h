// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// MutexLock: absl::MutexLock that ThreadSanitizer can see. Debian's Abseil
// is built without TSan, so its Mutex synchronises through atomics and
// futexes TSan never observes, and a TSan build (KARPENTER_SANITIZE_THREAD)
// reports every access the fakes guard with it as a race. Under TSan this
// lock tells the runtime about each acquisition and release, as Abseil's
// own annotations do when Abseil itself is built with TSan; otherwise it is
// exactly absl::MutexLock.
//
// Thread-safety: as absl::MutexLock.

#ifndef KARPENTER_SRC_TESTING_MUTEX_LOCK_H_
#define KARPENTER_SRC_TESTING_MUTEX_LOCK_H_

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

#if defined(__SANITIZE_THREAD__)
#define KARPENTER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define KARPENTER_TSAN 1
#endif
#endif

#ifdef KARPENTER_TSAN
#include <sanitizer/tsan_interface.h>
#endif

namespace karpenter::testing::internal {

class ABSL_SCOPED_LOCKABLE MutexLock {
 public:
  explicit MutexLock(absl::Mutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu)
      : mu_(mu) {
#ifdef KARPENTER_TSAN
    __tsan_mutex_pre_lock(mu_, 0);
    mu_->Lock();
    __tsan_mutex_post_lock(mu_, 0, 0);
#else
    mu_->Lock();
#endif
  }

  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

  ~MutexLock() ABSL_UNLOCK_FUNCTION() {
#ifdef KARPENTER_TSAN
    __tsan_mutex_pre_unlock(mu_, 0);
    mu_->Unlock();
    __tsan_mutex_post_unlock(mu_, 0);
#else
    mu_->Unlock();
#endif
  }

 private:
  absl::Mutex* const mu_;
};

}  // namespace karpenter::testing::internal

#endif  // KARPENTER_SRC_TESTING_MUTEX_LOCK_H_
