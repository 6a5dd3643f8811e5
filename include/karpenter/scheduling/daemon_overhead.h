// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// DaemonSet overhead of a new node: the summed requests of the DaemonSet
// pods that would run on a node Karpenter launches, computed from the
// DaemonSet objects (their pod templates), as Karpenter reserves room for
// them before it places pods on a new NodeClaim.
//
// Ports sigs.k8s.io/karpenter pkg/controllers/provisioning/scheduling/
// scheduler.go `getDaemonOverhead` and `isDaemonPodCompatible`, with
// pkg/scheduling/requirements.go `NewStrictPodRequirements` and
// preferences.go `removeRequiredNodeAffinityTerm` /
// `toleratePreferNoScheduleTaints`. A DaemonSet's pod counts on a node whose
// requirements are `node` and whose taints are `taints` when:
//   1. Taints: the pod tolerates (drain::ToleratesTaint) every NoSchedule
//      and NoExecute taint. A PreferNoSchedule taint never excludes it
//      (Karpenter adds a PreferNoSchedule `Exists` toleration to daemon
//      pods); nor does a taint of another effect (the NodePool CRD admits
//      only these three).
//   2. Requirements: `node.Compatible(strict, {allow_undefined =
//      WellKnownLabels()})` (karpenter/requirements.h) for the pod's strict
//      requirements: `key In [value]` for each nodeSelector entry, plus the
//      matchExpressions of its first required node affinity term. Preferred
//      terms are never used. When that is not compatible and more required
//      terms follow, the first is dropped and the next is tried (Karpenter's
//      removeRequiredNodeAffinityTerm loop); when none is compatible, the
//      pod does not count. Without required node affinity (or with an empty
//      term list) the nodeSelector alone decides.
// The overhead is the sum of the counted pods' requests, each computed as
// scheduling::PodRequests (karpenter/scheduling/resources.h) computes a
// pod's, "pods" = 1000 per counted DaemonSet included.
//
// Differences from Karpenter, where it would count a pod that Kubernetes
// would never run on the node:
//   - A required term without matchExpressions (matchFields only, or
//     empty) is skipped: a new node's name is not known, and an empty term
//     selects no node. Karpenter reads such a term as "no requirement".
//     The matchFields of a term that also has matchExpressions are ignored,
//     as in Karpenter. When every term is skipped, the pod does not count.
//   - A DaemonSet whose template has no containers (invalid in Kubernetes)
//     contributes nothing.
// Karpenter prefers a running pod of the DaemonSet over its template
// (`Cluster.GetDaemonSetPod`, which sees in-place resizes, in the pod's spec
// and, since v1.14.0, its status); this class reads the templates only
// (docs/semantics.md §10.3). Callers build `node` from the NodePool template's
// requirements and labels (and the karpenter.sh/nodepool label), narrowed
// to one instance type's labels, and pass the template's `taints`, not its
// startupTaints, as Karpenter does.
//
// Thread-safety: a DaemonOverhead is an immutable value once built; its
// const methods may be called concurrently.

#ifndef KARPENTER_SCHEDULING_DAEMON_OVERHEAD_H_
#define KARPENTER_SCHEDULING_DAEMON_OVERHEAD_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "karpenter/requirements.h"
#include "karpenter/snapshot/object_list.h"
#include "karpenter/v1/core.pb.h"

namespace karpenter::scheduling {

// The compiled pod templates of a set of DaemonSets.
class DaemonOverhead {
 public:
  // No DaemonSets: For() is empty.
  DaemonOverhead() = default;

  // Compiles every DaemonSet's pod template (`spec.template`): its requests
  // (a v1::Pod made of the template's metadata and spec, through
  // PodRequestsCalculator), its tolerations, its nodeSelector and its
  // required node affinity terms. DaemonSets are identified as
  // "<namespace>/<name>"; their order in `daemon_sets` does not matter.
  //
  // Errors: InvalidArgument prefixed with `daemonsets/<ns>/<name>: `, for
  //   - a bad quantity (PodRequests' errors, with the template's path):
  //     `daemonsets/ns/name: spec.template.spec.containers[0].resources.
  //     requests.cpu: invalid quantity "x": ...`;
  //   - a required node affinity requirement that does not parse
  //     (Requirements::FromProto): `daemonsets/ns/name: spec.template.spec.
  //     affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.
  //     nodeSelectorTerms[1].matchExpressions[0].operator: unknown operator
  //     "Foo"`;
  //   - requests whose sum over all the DaemonSets overflows int64:
  //     `daemonsets/ns/name: the cpu requests of the DaemonSets overflow
  //     int64` (the DaemonSet whose addition overflowed).
  // The first DaemonSet in input order with an error is reported.
  static absl::StatusOr<DaemonOverhead> Build(
      absl::Span<const v1::DaemonSet> daemon_sets);
  // The same over a Snapshot's DaemonSets (karpenter/snapshot/object_list.h).
  static absl::StatusOr<DaemonOverhead> Build(
      snapshot::ObjectList<v1::DaemonSet> daemon_sets);

  // The summed requests (resource name -> milli-units, sorted by name, like
  // PodRequests) of the DaemonSets whose pod would run on a node with
  // requirements `node` and taints `taints` (see the file comment). Empty
  // when none would. Never overflows (Build checked the total).
  std::vector<std::pair<std::string, int64_t>> For(
      const Requirements& node, absl::Span<const v1::Taint> taints) const;

  // The DaemonSets ("<namespace>/<name>") that For(node, taints) counts,
  // sorted; for explanations and tests.
  std::vector<std::string> Counted(const Requirements& node,
                                   absl::Span<const v1::Taint> taints) const;

  // The number of DaemonSets compiled (those without containers excluded).
  size_t size() const { return daemons_.size(); }

 private:
  // Build over any range of DaemonSets.
  template <typename List>
  static absl::StatusOr<DaemonOverhead> BuildFrom(const List& daemon_sets);

  struct Daemon {
    // "<namespace>/<name>".
    std::string name;
    // PodRequests of the template, sorted by resource name.
    std::vector<std::pair<std::string, int64_t>> requests;
    std::vector<v1::Toleration> tolerations;
    // The strict requirements to try in turn: the nodeSelector plus each
    // usable required term, in term order (the nodeSelector alone without
    // required terms). Empty: never compatible.
    std::vector<Requirements> alternatives;
  };

  // Whether `daemon`'s pod would run on the node (the file comment's rule).
  bool Runs(const Daemon& daemon, const Requirements& node,
            absl::Span<const v1::Taint> taints) const;

  std::vector<Daemon> daemons_;  // Sorted by name.
  CompatibilityOptions allow_;   // allow_undefined = WellKnownLabels().
};

}  // namespace karpenter::scheduling

#endif  // KARPENTER_SCHEDULING_DAEMON_OVERHEAD_H_
