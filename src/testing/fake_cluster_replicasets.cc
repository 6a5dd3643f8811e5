// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// FakeCluster's ReplicaSet-like controllers (fake_cluster_internal.h): a
// controller-owned pod that starts terminating is replaced after
// recreate_delay by a new pod (new name and UID), bound by the placement
// rule (fake_cluster_placement.cc), which turns Ready after ready_delay.

#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "karpenter/time_util.h"
#include "karpenter/well_known.h"
#include "testing/fake_cluster_internal.h"

namespace karpenter::testing::internal {

void FakeClusterState::ScheduleReplacement(const PodRecord& r, absl::Time now) {
  ++controllers_[r.controller].pending;
  DirtyControllerPdbs(r.controller);
  pdb_status_stale_ = true;
  Event e;
  e.kind = EventKind::kCreateReplacement;
  e.replaced = r.pod;
  e.controller = r.controller;
  e.name_base = r.name_base;
  PushEvent(now + options_.recreate_delay, std::move(e));
}

void FakeClusterState::CreateReplacement(absl::Time at, const Event& e) {
  const std::string& old_name = e.replaced.metadata().name();
  const bool stateful = [&] {
    const v1::OwnerReference* ref = ControllerRef(e.replaced);
    return ref != nullptr && ref->kind() == "StatefulSet";
  }();
  if (stateful &&
      pod_by_key_.contains(Key(e.replaced.metadata().namespace_(), old_name))) {
    // The StatefulSet controller recreates a pod under its own name, once
    // the old one is gone: look again in a second.
    PushEvent(at + absl::Seconds(1), Event(e));
    return;
  }
  --controllers_[e.controller].pending;
  DirtyControllerPdbs(e.controller);
  pdb_status_stale_ = true;
  const std::string& ns = e.replaced.metadata().namespace_();
  v1::Pod pod = e.replaced;
  v1::ObjectMeta& meta = *pod.mutable_metadata();
  meta.set_name(stateful ? old_name : FreshPodName(ns, e.name_base));
  meta.set_uid(absl::StrCat("fake-uid-", ++next_uid_));
  meta.clear_deletion_timestamp();
  meta.clear_deletion_grace_period_seconds();
  *meta.mutable_creation_timestamp() = TimeToProto(at);
  pod.clear_status();
  pod.mutable_status()->set_phase("Pending");
  pod.mutable_spec()->clear_node_name();
  const std::string new_key = Key(ns, meta.name());
  const std::string old_key = Key(ns, e.replaced.metadata().name());
  if (options_.placement == FakeClusterOptions::Placement::kKubeScheduler) {
    const PodId id = InsertPod(std::move(pod), e.name_base);
    Log(at, absl::StrCat("recreate ", old_key, " -> ", new_key));
    Enqueue(id, at);
    return;
  }
  const std::optional<std::string> node =
      ChooseNode(e.replaced.spec().node_name());
  if (!node) {
    SetPodCondition(pod, well_known::kConditionTypePodScheduled,
                    well_known::kConditionFalse, "Unschedulable", at);
  }
  const PodId id = InsertPod(std::move(pod), e.name_base);
  Log(at, absl::StrCat("recreate ", old_key, " -> ", new_key, " on ",
                       node ? *node : "<unscheduled>"));
  if (node) BindPod(id, *node, at);
}

void FakeClusterState::BecomeReady(absl::Time at, PodId id) {
  auto it = pods_.find(id);
  if (it == pods_.end() || !IsActive(it->second.pod)) return;
  TouchPod(id);
  v1::Pod& pod = it->second.pod;
  pod.mutable_status()->set_phase("Running");
  SetPodCondition(pod, well_known::kConditionTypeReady,
                  well_known::kConditionTrue, "", at);
  Log(at, absl::StrCat("ready ", it->second.key));
  MaybeScheduleSuccess(id, at, at);
}

std::string FakeClusterState::FreshPodName(absl::string_view ns,
                                           absl::string_view base) {
  std::string name;
  do {
    name = absl::StrCat(base, "r", ++next_replacement_);
  } while (pod_by_key_.contains(Key(ns, name)));
  return name;
}

}  // namespace karpenter::testing::internal
