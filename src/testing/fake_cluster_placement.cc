// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// FakeCluster's stand-in for the scheduler (fake_cluster_internal.h): the
// Node a replacement goes to (the first by name that is not the old pod's,
// not deleting, unschedulable or tainted disrupted) and, with
// respect_capacity, a minimal capacity check and the binding of pods left
// unscheduled once room appears.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "karpenter/disruption/scheduler.h"
#include "karpenter/quantity.h"
#include "karpenter/taints.h"
#include "karpenter/time_util.h"
#include "karpenter/well_known.h"
#include "testing/fake_cluster_internal.h"

namespace karpenter::testing::internal {
namespace {

// Requests of `pod` in milli-units by resource, "pods" = 1000; unparsable
// quantities count as 0 (the fake is not a validator).
std::map<std::string, int64_t> RequestsOf(const v1::Pod& pod) {
  std::map<std::string, int64_t> out;
  absl::StatusOr<std::vector<std::pair<std::string, int64_t>>> r =
      disruption::PodRequests(pod);
  if (r.ok()) out.insert(r->begin(), r->end());
  out["pods"] = 1000;
  return out;
}

}  // namespace

std::optional<std::string> FakeClusterState::ChooseNode(
    absl::string_view source, const v1::Pod& pod, const Usage* usage) const {
  for (const auto& [name, node] : nodes_) {
    if (name == source || node.metadata().has_deletion_timestamp() ||
        node.spec().unschedulable() || HasDisruptedNoScheduleTaint(node)) {
      continue;
    }
    if (options_.respect_capacity && !HasRoom(node, pod, usage)) continue;
    return name;
  }
  return std::nullopt;
}

FakeClusterState::Usage FakeClusterState::NodeUsage() const {
  Usage usage;
  for (const auto& [id, r] : pods_) {
    if (r.pod.spec().node_name().empty() || IsTerminal(r.pod)) continue;
    std::map<std::string, int64_t>& used = usage[r.pod.spec().node_name()];
    for (const auto& [resource, milli] : RequestsOf(r.pod)) {
      used[resource] += milli;
    }
  }
  return usage;
}

bool FakeClusterState::HasRoom(const v1::Node& node, const v1::Pod& pod,
                               const Usage* usage) const {
  std::map<std::string, int64_t> used = RequestsOf(pod);
  const std::string& name = node.metadata().name();
  if (usage != nullptr) {
    if (auto it = usage->find(name); it != usage->end()) {
      for (const auto& [resource, milli] : it->second) used[resource] += milli;
    }
  } else {
    for (const auto& [id, r] : pods_) {
      if (r.pod.spec().node_name() != name || IsTerminal(r.pod)) continue;
      for (const auto& [resource, milli] : RequestsOf(r.pod)) {
        used[resource] += milli;
      }
    }
  }
  for (const auto& [resource, milli] : used) {
    if (milli == 0) continue;
    auto it = node.status().allocatable().find(resource);
    if (it == node.status().allocatable().end()) return false;
    absl::StatusOr<int64_t> have = ParseQuantityMilli(it->second);
    if (!have.ok() || *have < milli) return false;
  }
  return true;
}

void FakeClusterState::ScheduleUnscheduled(absl::Time now) {
  if (!options_.respect_capacity) return;
  // Computed once per call (and kept current below): every call retries the
  // pending pods, so a per-pod scan of every pod would be quadratic.
  std::optional<Usage> usage;
  for (auto& [id, r] : pods_) {
    v1::Pod& pod = r.pod;
    if (!pod.spec().node_name().empty() || !IsActive(pod) || !r.replaceable) {
      continue;
    }
    if (!usage.has_value()) usage = NodeUsage();
    const std::optional<std::string> node =
        ChooseNode(r.avoid_node, pod, &*usage);
    if (!node) continue;
    for (const auto& [resource, milli] : RequestsOf(pod)) {
      (*usage)[*node][resource] += milli;
    }
    TouchPod(id);
    pod.mutable_spec()->set_node_name(*node);
    SetPodCondition(pod, well_known::kConditionTypePodScheduled,
                    well_known::kConditionTrue, "", now);
    SetPodCondition(pod, well_known::kConditionTypeReady,
                    well_known::kConditionFalse,
                    well_known::kReasonContainersNotReady, now);
    *pod.mutable_status()->mutable_start_time() = TimeToProto(now);
    RefreshVolumesOn(*node, now);
    Log(now, absl::StrCat("schedule ", r.key, " on ", *node));
    PushEvent(now + options_.ready_delay,
              PodEvent(EventKind::kBecomeReady, id));
  }
}

}  // namespace karpenter::testing::internal
