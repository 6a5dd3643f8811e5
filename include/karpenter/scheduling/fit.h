// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// FitPod: would this pod fit on each node of the cluster now, and if not,
// why, in kube-scheduler's words. What `karpenter fit` prints.
//
// Runs the Filter plugins of kube-scheduler's default profile in its order
// (pkg/scheduler/framework/plugins/registry.go; messages from each plugin's
// Go file): NodeUnschedulable, TaintToleration, NodeAffinity, NodePorts,
// NodeResourcesFit, NodeVolumeLimits, VolumeBinding, VolumeZone,
// PodTopologySpread, InterPodAffinity, through the same code the
// disruption Scheduler places pods with (disruption/scheduler.h). Unlike
// kube-scheduler, which stops at a node's first failing plugin, every
// failing plugin of a node is reported; the summary line counts, as
// kube-scheduler does, each node's first failing plugin only
// (framework/types.go FitError). Nodes that are not Ready or are being
// deleted fail with the pseudo-plugin NodeReadiness: Karpenter never moves
// a pod there.
//
// A pod bound to a node is considered as if it were unbound: its requests
// and its share of every spread and affinity count are removed from its
// node first, so "fits" on its own node means it could be scheduled there
// again.
//
// Thread-safety: a pure function of its arguments.
#ifndef KARPENTER_SCHEDULING_FIT_H_
#define KARPENTER_SCHEDULING_FIT_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/scheduling.pb.h"

namespace karpenter::scheduling {

// The report for pod `ns`/`name` of `snapshot`: every node by name, whether
// the pod fits, every failing plugin, and kube-scheduler's summary
// ("0/5 nodes are available: 2 Insufficient cpu, 3 node(s) didn't match
// pod topology spread constraints."; when some node fits: "3/5 nodes are
// available.").
//
// Errors: NotFound `pods/ns/name: not in the snapshot`; FailedPrecondition
// for a terminal pod (it will never be scheduled again); InvalidArgument
// naming the object and field for a quantity or node affinity that does
// not parse (as disruption::Scheduler::Build); Unimplemented for a
// constraint the SDK cannot evaluate (pod_topology.h).
absl::StatusOr<v1::FitReport> FitPod(const snapshot::Snapshot& snapshot,
                                     absl::string_view ns,
                                     absl::string_view name);

}  // namespace karpenter::scheduling

#endif  // KARPENTER_SCHEDULING_FIT_H_
