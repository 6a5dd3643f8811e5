// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Synthetic clusters: deterministic, realistic-looking object sets of any
// size, for benchmarks and for tests that need scale rather than a story.
//
// The shape follows the target ratios of docs/design.md §6 (10k nodes : 300k
// pods : 5k PDBs : 500 NodePools) by default. Every Node has a NodeClaim
// (managed, registered and initialized), pods are spread over namespaces with a
// few app labels each, and every PDB selects one app. Same options, same
// objects: there is no hidden randomness.
//
// A *Deployment* is one (namespace, app) pair: its pods share the label
// `app: <app>` and a ReplicaSet owner. Optionally a share of the Deployments
// carry the scheduling constraints that make kube-scheduler count other
// pods (a zone topology spread, a hostname pod anti-affinity) or a host
// port. The generator places pods round-robin, not as kube-scheduler
// would: a Deployment never has two pods on one node (when
// app_pods_per_node <= 60) and host ports never collide on a node, but the
// zone skew of a spread Deployment's pods may exceed its maxSkew of 1
// (kube-scheduler checks only incoming pods, so such a cluster is legal;
// its pods then move only to their least-populated zones).
//
// Thread-safety: MakeSyntheticCluster is a pure function; AddSyntheticCluster
// writes only to its builder.

#ifndef KARPENTER_TESTING_SYNTHETIC_CLUSTER_H_
#define KARPENTER_TESTING_SYNTHETIC_CLUSTER_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"

namespace karpenter::testing {

struct SyntheticClusterOptions {
  int nodes = 1000;
  // Application pods per node; each node also runs one DaemonSet pod.
  int app_pods_per_node = 29;
  // Defaults derive from `nodes` when left at -1: nodes / 2 PDBs,
  // nodes / 20 NodePools (at least 1), nodes / 100 namespaces (at least 1).
  int pdbs = -1;
  int node_pools = -1;
  int namespaces = -1;
  // Creation time of every object; pods started one minute later.
  absl::Time created = absl::FromUnixSeconds(1704067200);  // 2024-01-01Z

  // The share of Deployments, in percent, whose pods carry:
  //   - zone_spread_percent: a topology spread constraint {maxSkew 1,
  //     topologyKey topology.kubernetes.io/zone, whenUnsatisfiable
  //     DoNotSchedule, labelSelector matchLabels app: <app>};
  //   - hostname_anti_affinity_percent: a required pod anti-affinity term
  //     {topologyKey kubernetes.io/hostname, labelSelector matchLabels
  //     app: <app>};
  //   - host_port_percent: a container port {name http, containerPort 8080,
  //     hostPort 8080 + (deployment % 60), TCP}.
  // Each Deployment is picked for each constraint by its own hash of the
  // Deployment's id (percent / 100 odds, independently), so the shares are
  // the percents within sampling noise and the three sets overlap as
  // independent draws would. 0 (the default) leaves every pod as it was.
  int zone_spread_percent = 0;
  int hostname_anti_affinity_percent = 0;
  int host_port_percent = 0;

  // Pending application pods (no spec.nodeName, phase Pending, condition
  // PodScheduled=False reason Unschedulable), made after the bound ones and
  // continuing their numbering, so they belong to the same Deployments and
  // carry the same constraints.
  int pending_pods = 0;
};

// Builds the objects described by `options`. Returns InvalidArgument naming
// the field when a count is negative (other than the -1 defaults), when
// `nodes` is 0 while pods are asked for, when a count exceeds 10,000,000, or
// when a percent is outside [0, 100].
absl::StatusOr<snapshot::ObjectSet> MakeSyntheticCluster(
    const SyntheticClusterOptions& options);

// The same cluster, object for object, added to `out`: the pods through
// SnapshotBuilder::AddPod as each is made, so that they are never all held
// as messages (what the memory benchmarks measure), the rest to
// `out.objects()`. Errors as MakeSyntheticCluster; nothing is added then.
absl::Status AddSyntheticCluster(const SyntheticClusterOptions& options,
                                 snapshot::SnapshotBuilder& out);

}  // namespace karpenter::testing

#endif  // KARPENTER_TESTING_SYNTHETIC_CLUSTER_H_
