// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// NodeResourcesFit: kube-scheduler's resource predicate, decided over dense
// rows. A row holds one int64 per resource dimension, in milli-units
// (resources.h PodRequests): a pod's requests, a node's allocatable, and
// what the node's pods already request (or what is still free).
//
// Ports k8s.io/kubernetes pkg/scheduler/framework/plugins/noderesources/
// fit.go `fitsRequest` and `Filter`:
//   - "pods" is always checked, for one pod: "Too many pods" when the pods
//     already there plus one exceed the allocatable pod count. Its code is
//     always Unschedulable (fit.go never marks it unresolvable).
//   - Every other resource is checked only when the pod requests more than
//     0 of it, and fails when the request exceeds allocatable minus
//     requested (a request equal to what is free fits): "Insufficient cpu",
//     "Insufficient memory", "Insufficient ephemeral-storage",
//     "Insufficient <name>" for the others (extended resources,
//     hugepages-*). Its code is UnschedulableAndUnresolvable when the
//     request exceeds the node's allocatable itself (no preemption could
//     help), else Unschedulable.
//   - Every failing resource is reported, in fit.go's order: pods, cpu,
//     memory, ephemeral-storage, then the others; fit.go walks those in
//     map order, here they are sorted by name.
// A resource the node does not list has allocatable 0. kube-scheduler's
// ignoredResources / ignoredResourceGroups arguments and DRA-backed
// extended resources are not modelled. Memory, storage and extended
// resources compare in milli-units where kube-scheduler compares whole
// units rounded up; the two differ only for fractional byte counts.
//
// Thread-safety: ResourceDims is immutable after Create; the functions are
// pure and safe to call concurrently.
#ifndef KARPENTER_SCHEDULING_NODE_RESOURCES_H_
#define KARPENTER_SCHEDULING_NODE_RESOURCES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "karpenter/scheduling/filter_status.h"

namespace karpenter::scheduling {

// The resource dimensions of a set of rows, classified once: where "pods"
// is, the order fit.go reports failures in, and each failure message.
class ResourceDims {
 public:
  // Errors: InvalidArgument for an empty or repeated name, naming its
  // index and quoting it: `dims[3]: duplicate resource name "cpu"`.
  static absl::StatusOr<ResourceDims> Create(std::vector<std::string> names);

  absl::Span<const std::string> names() const { return names_; }
  size_t size() const { return names_.size(); }
  // The index of `name`, or nullopt.
  std::optional<size_t> Find(absl::string_view name) const;
  // The index of "pods", or nullopt when the rows do not count pods.
  std::optional<size_t> pods_index() const { return pods_; }
  // Dimension indexes in the order fit.go reports failures in.
  absl::Span<const uint32_t> report_order() const { return report_order_; }
  // The failure message of dimension `i` < size(): "Too many pods" or
  // "Insufficient <name>".
  const std::string& message(size_t i) const { return messages_[i]; }

 private:
  ResourceDims() = default;

  std::vector<std::string> names_;
  // Dimension indexes in report order: pods, cpu, memory,
  // ephemeral-storage, then the others by name.
  std::vector<uint32_t> report_order_;
  std::optional<uint32_t> pods_;
  // By dimension: "Too many pods" or "Insufficient <name>".
  std::vector<std::string> messages_;
};

// The NodeResourcesFit failures of a pod on a node (see the file comment);
// empty when the pod fits. `pod`, `allocatable` and `requested` hold one
// value per dimension of `dims`; `requested` is the sum of the requests of
// the pods already bound to the node (their "pods" values count them).
// Allocation-free when the pod fits.
//
// Errors: InvalidArgument when a row's length differs from dims.size():
// `allocatable: 3 values for 4 resource dimensions`.
absl::StatusOr<std::vector<FilterFailure>> NodeResourcesFit(
    const ResourceDims& dims, absl::Span<const int64_t> pod,
    absl::Span<const int64_t> allocatable, absl::Span<const int64_t> requested);

// As NodeResourcesFit, given `free` = allocatable - requested (negative on
// an over-committed node) instead of `requested`.
// Errors: as NodeResourcesFit, naming `free` for that row.
absl::StatusOr<std::vector<FilterFailure>> NodeResourcesFitFree(
    const ResourceDims& dims, absl::Span<const int64_t> pod,
    absl::Span<const int64_t> allocatable, absl::Span<const int64_t> free);

}  // namespace karpenter::scheduling

#endif  // KARPENTER_SCHEDULING_NODE_RESOURCES_H_
