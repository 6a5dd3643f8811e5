// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#include "karpenter/scheduling/provision.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "karpenter/conditions.h"
#include "karpenter/disruption/scheduler.h"
#include "karpenter/drain/classify.h"
#include "karpenter/well_known.h"

namespace karpenter::scheduling {

// Karpenter's pod.IsProvisionable: unbound, not terminal, not terminating,
// not owned by a DaemonSet or a Node (node overhead, not a reason to launch
// one), and marked unschedulable by kube-scheduler.
bool IsProvisionable(const v1::Pod& pod) {
  if (!pod.spec().node_name().empty() || drain::IsTerminal(pod) ||
      drain::IsTerminating(pod) || drain::IsOwnedByDaemonSet(pod) ||
      drain::IsOwnedByNode(pod)) {
    return false;
  }
  const v1::Condition* c = FindCondition(
      pod.status().conditions(), well_known::kConditionTypePodScheduled);
  return c != nullptr && c->status() == "False" &&
         c->reason() == "Unschedulable";
}

absl::StatusOr<v1::ProvisionReport> Provision(
    const snapshot::Snapshot& snapshot, const InstanceTypeCatalog& catalog,
    ProvisionOptions options) {
  disruption::SimulatorOptions sim;
  sim.now = options.now;
  sim.include_pending_pods = true;  // Their quantities must parse.
  absl::StatusOr<disruption::Scheduler> scheduler =
      disruption::Scheduler::Build(snapshot, catalog, sim);
  if (!scheduler.ok()) return scheduler.status();
  std::vector<snapshot::PodIndex> pods;
  for (snapshot::PodIndex p = 0; p < snapshot.pod_count(); ++p) {
    if (snapshot.PodIsUnbound(p) && IsProvisionable(snapshot.DecodePod(p))) {
      pods.push_back(p);
    }
  }
  const disruption::Scheduler::Provisioned out = scheduler->Provision(pods);
  v1::ProvisionReport report;
  std::map<std::string, v1::ProvisionExisting> existing;
  for (const auto& [p, n] : out.existing) {
    const std::string& name = snapshot.nodes()[n].metadata().name();
    v1::ProvisionExisting& e = existing[name];
    e.set_node(name);
    e.add_pods(snapshot.PodKey(p));
  }
  for (auto& [name, e] : existing) *report.add_existing() = std::move(e);
  for (size_t i = 0; i < out.node_claims.size(); ++i) {
    const disruption::Replacement& r = out.node_claims[i];
    v1::ProvisionNodeClaim& c = *report.add_node_claims();
    c.set_node_pool(r.node_pool);
    c.set_price(r.price);
    for (const std::string& t : r.instance_types) c.add_instance_types(t);
    for (const v1::NodeSelectorRequirement& req :
         r.node_claim.spec().requirements()) {
      v1::ProvisionRequirement& out_req = *c.add_requirements();
      out_req.set_key(req.key());
      out_req.set_operator_(req.operator_());
      *out_req.mutable_values() = req.values();
    }
    for (const auto& [k, v] : r.node_claim.metadata().annotations()) {
      if (k == well_known::kNodeClaimMinValuesRelaxedAnnotationKey) {
        (*c.mutable_annotations())[k] = v;
      }
    }
    for (snapshot::PodIndex p : out.claim_pods[i]) {
      c.add_pods(snapshot.PodKey(p));
    }
  }
  std::vector<std::pair<std::string, std::string>> failed;
  for (const auto& [p, why] : out.unschedulable) {
    failed.emplace_back(snapshot.PodKey(p), why);
  }
  std::sort(failed.begin(), failed.end());
  for (auto& [pod, why] : failed) {
    v1::ProvisionUnschedulable& u = *report.add_unschedulable();
    u.set_pod(pod);
    u.set_reason(why);
  }
  return report;
}

}  // namespace karpenter::scheduling
