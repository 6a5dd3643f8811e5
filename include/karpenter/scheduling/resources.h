// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// A pod's effective resource requests, the amounts kube-scheduler's
// NodeResourcesFit compares with a node's free capacity and charges to the
// node once the pod is bound. One rule for every caller: the pod being
// placed, the pods already on a node, and DaemonSet overhead.
//
// Ports Karpenter v1.14.0 pkg/utils/resources/resources.go `Ceiling`
// (requests since PR #3065: k8s.io/component-helpers resource/helpers.go
// `PodRequests` with `UseStatusResources: true` and every other option at
// its default), that is helpers.go `PodRequests`,
// `AggregateContainerRequests`, `determineEffectiveRequests` /
// `IsPodResizeInfeasible` and `IsSupportedPodLevelResource`, together with
// the API server defaulting of pkg/apis/core/v1/defaults.go
// `SetDefaults_Pod` that manifests which never passed through an API server
// lack (`defaultPodRequests`). Per resource, in milli-units
// (karpenter/quantity.h ParseQuantityMilli):
//
//   1. A container's spec request is its `resources.requests` entry, or its
//      `resources.limits` entry when it has no request for the resource.
//   2. In-place resize: a container, or a sidecar (below), whose status
//      entry has `resources` set (`{}` counts; absent does not) requests,
//      per resource over the union of the names,
//        max(spec request, status `resources.requests`,
//            status `allocatedResources`),
//      or, while the pod's first `PodResizePending` condition has reason
//      "Infeasible", the same max without the spec. Its status entry is
//      the last of `status.initContainerStatuses`, else the last of
//      `status.containerStatuses`, with its name. A container with no such
//      entry, or whose entry lacks `resources` (allocatedResources alone
//      is ignored), and every plain init container, request their spec.
//      Limits are never read from status.
//   3. Container aggregate (the sidecar rule of KEP-753): with sidecars the
//      init containers whose `restartPolicy` is "Always",
//        max( sum(containers) + sum(sidecars),
//             max over init containers i of
//               (sidecar i:  sum of sidecars 0..i, i included;
//                plain i:    init_i + sum of sidecars declared before i) ).
//      A resource named by any container (or its status) is present, even
//      at 0.
//   4. Pod-level resources (KEP-2837) override the aggregate for a
//      supported resource (cpu, memory, hugepages-*): a
//      `spec.resources.requests` entry replaces it (and adds the resource
//      when no container names it). A `spec.resources.limits` entry without
//      a request is the API server's default request when no container
//      names the resource, or for hugepages-*; a cpu or memory limit with
//      containers naming the resource defaults the request to the
//      aggregate itself, so nothing changes. Other pod-level resources are
//      not read (the API server rejects them), nor is pod-level status
//      (Karpenter leaves InPlacePodLevelResourcesVerticalScalingEnabled
//      off).
//   5. Plus `spec.overhead`, then "pods" = 1000 (one pod), whatever the
//      containers or the overhead say about "pods".
//
// A pod that was never resized (no status, as a DaemonSet's template pod)
// requests its spec, as before v1.14.0.
//
// Not modelled: DRA node-allocatable claim resources; and the API server's
// defaulting of pod-level hugepage limits from container limits, which
// yields the container aggregate again for any pod that passes validation
// (hugepage requests must equal limits).
//
// Thread-safety: the free functions are pure and safe to call concurrently.
// A PodRequestsCalculator holds a mutable cache: one per thread.
#ifndef KARPENTER_SCHEDULING_RESOURCES_H_
#define KARPENTER_SCHEDULING_RESOURCES_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "karpenter/v1/core.pb.h"

namespace karpenter::scheduling {

// Resource names with a rule of their own.
inline constexpr absl::string_view kResourceCpu = "cpu";
inline constexpr absl::string_view kResourceMemory = "memory";
inline constexpr absl::string_view kResourceEphemeralStorage =
    "ephemeral-storage";
inline constexpr absl::string_view kResourcePods = "pods";
inline constexpr absl::string_view kResourceHugePagesPrefix = "hugepages-";

// The "pods" request of every pod: one pod, in milli-units.
inline constexpr int64_t kOnePodMilli = 1000;

// True for an init container that keeps running beside the containers
// (`restartPolicy: Always`): its requests and host ports count for the
// pod's whole life.
bool IsSidecar(const v1::Container& container);

// True if the pod's first `PodResizePending` condition has reason
// "Infeasible" (helpers.go IsPodResizeInfeasible): its containers' spec
// requests are not read, only their status (see the file comment).
bool IsPodResizeInfeasible(const v1::PodStatus& status);

// True for the resources pod-level `spec.resources` may set: cpu, memory
// and every "hugepages-<size>" (helpers.go IsSupportedPodLevelResource).
bool IsSupportedPodLevelResource(absl::string_view name);

// The pod's effective requests (see the file comment), sorted by resource
// name, "pods" included.
//
// Errors: InvalidArgument naming the field path and quoting the value, for
//   - a malformed or out-of-range quantity:
//     `spec.initContainers[1].resources.requests.cpu: invalid quantity "x":
//     quantities must match the regular expression ...`;
//   - a negative quantity:
//     `spec.overhead.memory: quantity "-1" must not be negative`;
//   - a sum outside int64: `spec.containers[2]: the cpu requests overflow
//     int64` (the container, sidecar, plain init container or overhead
//     field whose addition overflowed).
// Status quantities are named by their own path:
//   `status.containerStatuses[0].allocatedResources.memory: invalid
//   quantity "1Gx": ...`.
// Only the quantities the rule reads are parsed: a limit beside a request,
// the status of a plain init container or of an entry without `resources`
// are not.
// When several fields are bad, the first in this order is reported:
// containers, then init containers, in declaration order (within a
// container its requests, then the limits it lacks a request for, then its
// status `resources.requests`, then its status `allocatedResources`, each
// by resource name), then `spec.resources.requests`, `spec.resources.limits`
// and `spec.overhead`, each by resource name.
absl::StatusOr<std::vector<std::pair<std::string, int64_t>>> PodRequests(
    const v1::Pod& pod);

// A pod's requests without copying names: each key views into the Pod
// passed to PodRequestsCalculator::Compute (or is kResourcePods), so the
// list is valid while that Pod is alive and unmodified. Unordered.
using PodRequestList =
    absl::InlinedVector<std::pair<absl::string_view, int64_t>, 6>;

// PodRequests for bulk indexing: the same rule and the same errors, without
// sorting or copying names, and with each distinct quantity text parsed once
// (pods of one workload repeat the same few strings). Holds up to 4,096
// parsed texts; later texts are parsed every time.
class PodRequestsCalculator {
 public:
  PodRequestsCalculator() = default;

  // Replaces `out` with the requests of `pod`: the values of
  // PodRequests(pod), in an unspecified order. On error (exactly
  // PodRequests(pod)'s error) `out` is unspecified.
  absl::Status Compute(const v1::Pod& pod, PodRequestList& out);

 private:
  absl::flat_hash_map<std::string, int64_t> parsed_;
};

}  // namespace karpenter::scheduling

#endif  // KARPENTER_SCHEDULING_RESOURCES_H_
