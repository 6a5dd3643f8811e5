// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// FakeCluster's scheduler (fake_cluster_internal.h), by
// FakeClusterOptions::placement:
//   - kFirstNode: a replacement goes to the first Node by name that is not
//     the old pod's, not deleting, unschedulable or tainted disrupted;
//   - kKubeScheduler: pending pods wait in a queue; a pass at each instant
//     where pods joined it (and at the first call after any change while
//     some still wait) binds them as kube-scheduler would, through
//     disruption::Scheduler::Bind over the snapshot the mirror publishes.

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "karpenter/cloud_provider.h"
#include "karpenter/conditions.h"
#include "karpenter/disruption/scheduler.h"
#include "karpenter/drain/classify.h"
#include "karpenter/quantity.h"
#include "karpenter/scheduling/node_ports.h"
#include "karpenter/scheduling/node_selector.h"
#include "karpenter/scheduling/resources.h"
#include "karpenter/taints.h"
#include "karpenter/time_util.h"
#include "karpenter/well_known.h"
#include "testing/fake_cluster_internal.h"

namespace karpenter::testing::internal {

std::optional<std::string> FakeClusterState::ChooseNode(
    absl::string_view source) const {
  for (const auto& [name, node] : nodes_) {
    if (name == source || node.metadata().has_deletion_timestamp() ||
        node.spec().unschedulable() || HasDisruptedNoScheduleTaint(node)) {
      continue;
    }
    return name;
  }
  return std::nullopt;
}

void FakeClusterState::BindPod(PodId id, const std::string& node,
                               absl::Time now) {
  PodRecord& r = pods_.at(id);
  v1::Pod& pod = r.pod;
  TouchPod(id);
  pod.mutable_spec()->set_node_name(node);
  SetPodCondition(pod, well_known::kConditionTypePodScheduled,
                  well_known::kConditionTrue, "", now);
  SetPodCondition(pod, well_known::kConditionTypeReady,
                  well_known::kConditionFalse,
                  well_known::kReasonContainersNotReady, now);
  *pod.mutable_status()->mutable_start_time() = TimeToProto(now);
  RefreshVolumesOn(node, now);
  if (options_.placement == FakeClusterOptions::Placement::kKubeScheduler) {
    Log(now, absl::StrCat("schedule ", r.key, " on ", node));
  }
  PushEvent(now + options_.ready_delay, PodEvent(EventKind::kBecomeReady, id));
}

void FakeClusterState::Enqueue(PodId id, absl::Time now) {
  unscheduled_.insert(id);
  if (schedule_at_.insert(now).second) {
    Event e;
    e.kind = EventKind::kSchedule;
    PushEvent(now, std::move(e));
  }
}

void FakeClusterState::MaybeEnqueue(PodId id, absl::Time now) {
  const v1::Pod& pod = pods_.at(id).pod;
  if (options_.placement == FakeClusterOptions::Placement::kKubeScheduler &&
      pod.spec().node_name().empty() && IsActive(pod)) {
    Enqueue(id, now);
  }
}

void FakeClusterState::RememberDaemonPod(PodId id) {
  const PodRecord& r = pods_.at(id);
  const v1::OwnerReference* ref = ControllerRef(r.pod);
  if (ref == nullptr || ref->kind() != "DaemonSet" ||
      daemon_templates_.contains(r.controller)) {
    return;
  }
  v1::Pod t = r.pod;
  t.mutable_metadata()->clear_name();
  t.mutable_metadata()->clear_uid();
  t.mutable_metadata()->clear_deletion_timestamp();
  t.mutable_metadata()->clear_deletion_grace_period_seconds();
  t.mutable_spec()->clear_node_name();
  t.clear_status();
  daemon_templates_.emplace(r.controller, std::move(t));
}

void FakeClusterState::RunDaemonSets(const v1::Node& node, absl::Time now) {
  const std::string& name = node.metadata().name();
  for (const auto& [controller, t] : daemon_templates_) {
    // daemon_controller.go NodeShouldRunDaemonPod: the node affinity and
    // selector, and the NoSchedule / NoExecute taints.
    bool runs = true;
    for (const auto& [k, v] : t.spec().node_selector()) {
      const auto l = node.metadata().labels().find(k);
      if (l == node.metadata().labels().end() || l->second != v) runs = false;
    }
    const v1::NodeAffinity& affinity = t.spec().affinity().node_affinity();
    if (runs &&
        affinity.has_required_during_scheduling_ignored_during_execution()) {
      // The template's own pin to its first node is not a rule.
      v1::NodeSelector required =
          affinity.required_during_scheduling_ignored_during_execution();
      bool pinned_only = true;
      for (const v1::NodeSelectorTerm& term : required.node_selector_terms()) {
        if (!term.match_expressions().empty()) pinned_only = false;
      }
      if (!pinned_only && !scheduling::NodeSelectorMatches(required, node)) {
        runs = false;
      }
    }
    for (const v1::Taint& taint : node.spec().taints()) {
      if (!runs) break;
      if (taint.effect() != well_known::kTaintEffectNoSchedule &&
          taint.effect() != well_known::kTaintEffectNoExecute) {
        continue;
      }
      bool tolerated = false;
      for (const v1::Toleration& tol : t.spec().tolerations()) {
        tolerated = tolerated || drain::ToleratesTaint(tol, taint);
      }
      runs = tolerated;
    }
    if (!runs) continue;
    v1::Pod pod = t;
    const v1::OwnerReference* ref = ControllerRef(pod);
    std::string pod_name = absl::StrCat(ref->name(), "-", name);
    while (pod_by_key_.contains(Key(pod.metadata().namespace_(), pod_name))) {
      absl::StrAppend(&pod_name, "x");
    }
    pod.mutable_metadata()->set_name(pod_name);
    *pod.mutable_metadata()->mutable_creation_timestamp() = TimeToProto(now);
    pod.mutable_status()->set_phase("Pending");
    // The controller's pin (daemon_controller.go
    // ReplaceDaemonSetPodNodeNameNodeAffinity).
    v1::NodeSelector* pin =
        pod.mutable_spec()
            ->mutable_affinity()
            ->mutable_node_affinity()
            ->mutable_required_during_scheduling_ignored_during_execution();
    pin->clear_node_selector_terms();
    v1::NodeSelectorRequirement* field =
        pin->add_node_selector_terms()->add_match_fields();
    field->set_key("metadata.name");
    field->set_operator_("In");
    field->add_values(name);
    const PodId id = InsertPod(std::move(pod), "");
    Log(now, absl::StrCat("daemonset ", controller, " -> ", pods_.at(id).key));
    Enqueue(id, now);
  }
}

void FakeClusterState::RunScheduler(absl::Time now) {
  changes_at_pass_ = changes_;
  // Drop pods that left the queue some other way (bound by a test's
  // AddPod, terminating, terminal).
  for (auto it = unscheduled_.begin(); it != unscheduled_.end();) {
    const auto r = pods_.find(*it);
    if (r == pods_.end() || !r->second.pod.spec().node_name().empty() ||
        !IsActive(r->second.pod)) {
      it = unscheduled_.erase(it);
    } else {
      ++it;
    }
  }
  if (unscheduled_.empty()) return;
  const auto fail_all = [&](const absl::Status& s) {
    Log(now, absl::StrCat("scheduler: ", StatusText(s)));
  };
  if (absl::Status s = SyncMirror(); !s.ok()) return fail_all(s);
  absl::StatusOr<std::shared_ptr<const state::Published>> published =
      mirror_.Publish();
  if (!published.ok()) return fail_all(published.status());
  static const InstanceTypeCatalog* const kNoCatalog =
      new InstanceTypeCatalog();
  disruption::SimulatorOptions sim;
  sim.now = now;
  sim.include_pending_pods = true;
  absl::StatusOr<disruption::Scheduler> scheduler =
      disruption::Scheduler::Build(*(*published)->facts, *kNoCatalog, sim);
  if (!scheduler.ok()) return fail_all(scheduler.status());
  const snapshot::Snapshot& snap = (*published)->snapshot;

  // The scheduling queue's order (queuesort PrioritySort): higher priority
  // first, then the earlier arrival (a PodId is an insertion order).
  struct Queued {
    int32_t priority;
    PodId id;
    snapshot::PodIndex index;
  };
  std::vector<Queued> queue;
  queue.reserve(unscheduled_.size());
  // The queued pods are unbound in the mirror, so the snapshot's unbound
  // pods (a few, where pods_ holds every pod) find them by key.
  for (const snapshot::PodIndex p : snap.UnboundPods()) {
    const auto id = pod_by_key_.find(snap.PodKey(p));
    if (id == pod_by_key_.end() || !unscheduled_.contains(id->second)) {
      continue;
    }
    queue.push_back(
        {pods_.at(id->second).pod.spec().priority(), id->second, p});
  }
  std::sort(queue.begin(), queue.end(), [](const Queued& a, const Queued& b) {
    return a.priority != b.priority ? a.priority > b.priority : a.id < b.id;
  });
  std::vector<snapshot::PodIndex> order;
  absl::flat_hash_map<snapshot::PodIndex, PodId> id_of;
  for (const Queued& q : queue) {
    order.push_back(q.index);
    id_of[q.index] = q.id;
  }
  const disruption::Scheduler::Bound out =
      scheduler->Bind(order, options_.scheduler_seed);
  for (const auto& [p, n] : out.bound) {
    const PodId id = id_of.at(p);
    unscheduled_.erase(id);
    BindPod(id, snap.nodes()[n].metadata().name(), now);
  }
  for (const auto& [p, why] : out.unschedulable) {
    const PodId id = id_of.at(p);
    v1::Pod& pod = pods_.at(id).pod;
    const v1::Condition* c = FindCondition(
        pod.status().conditions(), well_known::kConditionTypePodScheduled);
    if (c != nullptr && c->status() == well_known::kConditionFalse &&
        c->message() == why) {
      continue;
    }
    TouchPod(id);
    SetPodCondition(pod, well_known::kConditionTypePodScheduled,
                    well_known::kConditionFalse, "Unschedulable", now);
    for (v1::Condition& cond : *pod.mutable_status()->mutable_conditions()) {
      if (cond.type() == well_known::kConditionTypePodScheduled) {
        cond.set_message(why);
      }
    }
    Log(now, absl::StrCat("unschedulable ", pods_.at(id).key, ": ", why));
  }
  // This pass's own writes are not news to the next one.
  changes_at_pass_ = changes_;
}

PlacementCheck FakeClusterState::CheckPlacement() const {
  PlacementCheck out;
  // Per node: requests summed in milli-units, and host ports in use.
  std::map<std::string, std::map<std::string, int64_t>, std::less<>> used;
  std::map<std::string,
           std::vector<std::pair<scheduling::HostPort, std::string>>,
           std::less<>>
      ports;
  for (const auto& [id, r] : pods_) {
    const v1::Pod& pod = r.pod;
    if (IsTerminal(pod)) continue;
    const std::string& node_name = pod.spec().node_name();
    if (node_name.empty()) {
      if (!IsTerminating(pod)) out.pending_pods.push_back(r.key);
      continue;
    }
    const auto node = nodes_.find(node_name);
    if (node == nodes_.end()) continue;  // Removed with its node next.
    bool ok = true;
    for (const auto& [k, v] : pod.spec().node_selector()) {
      const auto l = node->second.metadata().labels().find(k);
      if (l == node->second.metadata().labels().end() || l->second != v) {
        ok = false;
      }
    }
    if (!ok) {
      out.misplaced_pods.push_back(absl::StrCat(
          r.key, ": node ", node_name, " does not match its nodeSelector"));
    }
    const v1::NodeAffinity& affinity = pod.spec().affinity().node_affinity();
    if (affinity.has_required_during_scheduling_ignored_during_execution() &&
        !scheduling::NodeSelectorMatches(
            affinity.required_during_scheduling_ignored_during_execution(),
            node->second)) {
      out.misplaced_pods.push_back(
          absl::StrCat(r.key, ": node ", node_name,
                       " does not match its required node affinity"));
    }
    for (const scheduling::HostPort& port : scheduling::PodHostPorts(pod)) {
      auto& on_node = ports[node_name];
      for (const auto& [other, other_key] : on_node) {
        if (scheduling::HostPortsConflict(port, other)) {
          out.misplaced_pods.push_back(absl::StrCat(
              r.key, ": host port ", port.port, "/", port.protocol,
              " also bound by ", other_key, " on node ", node_name));
        }
      }
      on_node.emplace_back(port, r.key);
    }
    absl::StatusOr<std::vector<std::pair<std::string, int64_t>>> requests =
        scheduling::PodRequests(pod);
    if (!requests.ok()) continue;
    std::map<std::string, int64_t>& sum = used[node_name];
    for (const auto& [resource, milli] : *requests) sum[resource] += milli;
  }
  for (const auto& [node_name, sum] : used) {
    const v1::Node& node = nodes_.find(node_name)->second;
    const auto& allocatable = node.status().allocatable().empty()
                                  ? node.status().capacity()
                                  : node.status().allocatable();
    for (const auto& [resource, milli] : sum) {
      if (milli == 0) continue;
      const auto have = allocatable.find(resource);
      absl::StatusOr<int64_t> parsed = have == allocatable.end()
                                           ? absl::StatusOr<int64_t>(0)
                                           : ParseQuantityMilli(have->second);
      if (parsed.ok() && milli > *parsed) {
        out.overcommitted_nodes.push_back(
            absl::StrCat(node_name, ": ", resource, " requested ", milli,
                         "m of ", *parsed, "m allocatable"));
      }
    }
  }
  std::sort(out.misplaced_pods.begin(), out.misplaced_pods.end());
  std::sort(out.overcommitted_nodes.begin(), out.overcommitted_nodes.end());
  std::sort(out.pending_pods.begin(), out.pending_pods.end());
  return out;
}

}  // namespace karpenter::testing::internal
