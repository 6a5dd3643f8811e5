// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Provision: what Karpenter's provisioner would do with the snapshot's
// pending pods: which existing nodes take them, which NodeClaims it would
// launch for the rest (NodePool, requirements narrowed by topology,
// instance types cheapest first, pods), and which pods schedule nowhere and
// why. What `karpenter provision` prints.
//
// Ports Karpenter pkg/controllers/provisioning/scheduling (scheduler.go
// Solve, existingnode.go, nodeclaim.go, topology.go, topologygroup.go,
// preferences.go) through disruption::Scheduler, the same simulation
// consolidation and drift use (docs/semantics.md §9.10):
//   - the pods provisioned are the pods Karpenter's provisioner picks up:
//     no spec.nodeName, not terminal, not terminating, not owned by a
//     DaemonSet or a Node (mirror pods), and condition
//     PodScheduled False with reason Unschedulable (provisioner.go
//     GetPendingPods / pod.IsProvisionable);
//   - each pod goes to an existing node that passes kube-scheduler's Filter
//     plugins (disruption/scheduler.h), else to a NodeClaim already opened
//     in this round, else to a new NodeClaim of the first NodePool, by
//     descending weight then name, that can hold it;
//   - see disruption/scheduler.h for the NodeClaim rules (topology
//     narrowing, preferences, limits, minValues, DaemonSet overhead).
//
// Thread-safety: a pure function of its arguments.
#ifndef KARPENTER_SCHEDULING_PROVISION_H_
#define KARPENTER_SCHEDULING_PROVISION_H_

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "karpenter/cloud_provider.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/scheduling.pb.h"

namespace karpenter::scheduling {

struct ProvisionOptions {
  // The instant time-dependent rules are evaluated at (NodePool readiness
  // and budgets are not time-dependent; kept for the simulator).
  absl::Time now = absl::UnixEpoch();
};

// Karpenter's pod.IsProvisionable (provisioner.go GetPendingPods): no
// spec.nodeName, not terminal, not terminating, not owned by a DaemonSet or
// a Node, and condition PodScheduled False with reason Unschedulable.
bool IsProvisionable(const v1::Pod& pod);

// The report for the pending pods of `snapshot` with the instance types of
// `catalog` (NodePool name -> types; a NodePool absent from it launches
// nothing): `existing` by node name, each node's pods in placement order;
// `node_claims` in the order they were opened; `unschedulable` by pod key.
//
// Errors: InvalidArgument naming the object and field for a quantity,
// requirement or affinity that does not parse, or a catalogue capacity
// that does not (as disruption::Scheduler::Build).
absl::StatusOr<v1::ProvisionReport> Provision(
    const snapshot::Snapshot& snapshot, const InstanceTypeCatalog& catalog,
    ProvisionOptions options = {});

}  // namespace karpenter::scheduling

#endif  // KARPENTER_SCHEDULING_PROVISION_H_
