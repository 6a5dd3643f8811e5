// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// FakeCluster's clock (fake_cluster_internal.h): the pending transitions
// (replacement created, scheduling pass, replacement Ready, terminating pod
// removed, volume detached), applied in time order, each at its own instant,
// before every call; each is handed to the part that plays it.

#include <optional>
#include <utility>

#include "absl/time/time.h"
#include "karpenter/time_util.h"
#include "testing/fake_cluster_internal.h"

namespace karpenter::testing::internal {

void FakeClusterState::PushEvent(absl::Time at, Event e) {
  events_.emplace(std::make_pair(at, next_event_++), std::move(e));
}

void FakeClusterState::Advance(absl::Time now) {
  while (!events_.empty() && events_.begin()->first.first <= now) {
    auto node = events_.extract(events_.begin());
    ApplyEvent(node.key().first, node.mapped());
  }
  // kube-scheduler retries unschedulable pods when the cluster changes,
  // after their backoff (podInitialBackoffSeconds, 1 s): one pass then for
  // every change of this instant.
  if (!unscheduled_.empty() && changes_ != changes_at_pass_) {
    changes_at_pass_ = changes_;
    const absl::Time at = now + kSchedulingBackoff;
    if (schedule_at_.insert(at).second) {
      Event e;
      e.kind = EventKind::kSchedule;
      PushEvent(at, std::move(e));
    }
  }
}

void FakeClusterState::ApplyEvent(absl::Time at, const Event& e) {
  switch (e.kind) {
    case EventKind::kCreateReplacement:
      CreateReplacement(at, e);
      return;
    case EventKind::kBecomeReady:
      BecomeReady(at, e.pod);
      return;
    case EventKind::kDetach:
      Detach(at, e.volume);
      return;
    case EventKind::kSchedule:
      schedule_at_.erase(at);
      RunScheduler(at);
      return;
    case EventKind::kSucceed: {
      // Stale if the pod is gone or is being deleted.
      auto it = pods_.find(e.pod);
      if (it != pods_.end() && !IsTerminating(it->second.pod)) {
        Succeed(e.pod, at);
      }
      return;
    }
    case EventKind::kRemove: {
      // Stale if the pod is gone or its deletion moved (it has its own event).
      auto it = pods_.find(e.pod);
      if (it == pods_.end() || !IsTerminating(it->second.pod) ||
          TimeFromProto(it->second.pod.metadata().deletion_timestamp()) > at) {
        return;
      }
      RemovePod(e.pod, at);
      return;
    }
  }
}

std::optional<absl::Time> FakeClusterState::NextEventTime() const {
  if (events_.empty()) return std::nullopt;
  return events_.begin()->first.first;
}

}  // namespace karpenter::testing::internal
