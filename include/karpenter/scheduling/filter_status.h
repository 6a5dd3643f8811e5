// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// FilterFailure: why one kube-scheduler Filter plugin rejects a pod on a
// node, in the plugin's own words. The shared vocabulary of the scheduling
// predicates (karpenter/scheduling/*.h), the disruption Scheduler and
// `karpenter fit`.
//
// Ports the names and codes of k8s.io/kubernetes
// pkg/scheduler/framework/interface.go (`Unschedulable`,
// `UnschedulableAndUnresolvable`) and the plugin names of
// pkg/scheduler/framework/plugins/names/names.go.
//
// Thread-safety: plain values.
#ifndef KARPENTER_SCHEDULING_FILTER_STATUS_H_
#define KARPENTER_SCHEDULING_FILTER_STATUS_H_

#include <map>
#include <string>

#include "absl/strings/string_view.h"

namespace karpenter::scheduling {

// kube-scheduler plugin names, as it prints them.
inline constexpr absl::string_view kNodeUnschedulable = "NodeUnschedulable";
inline constexpr absl::string_view kNodeName = "NodeName";
inline constexpr absl::string_view kTaintToleration = "TaintToleration";
inline constexpr absl::string_view kNodeAffinity = "NodeAffinity";
inline constexpr absl::string_view kNodePorts = "NodePorts";
inline constexpr absl::string_view kNodeResourcesFit = "NodeResourcesFit";
inline constexpr absl::string_view kVolumeRestrictions = "VolumeRestrictions";
inline constexpr absl::string_view kNodeVolumeLimits = "NodeVolumeLimits";
inline constexpr absl::string_view kVolumeBinding = "VolumeBinding";
inline constexpr absl::string_view kVolumeZone = "VolumeZone";
inline constexpr absl::string_view kPodTopologySpread = "PodTopologySpread";
inline constexpr absl::string_view kInterPodAffinity = "InterPodAffinity";
// Not a kube-scheduler plugin: the node is not Ready, or is being deleted,
// so Karpenter would not consider it a destination.
inline constexpr absl::string_view kNodeReadiness = "NodeReadiness";

// The topology plugins' messages (podtopologyspread/filtering.go,
// interpodaffinity/filtering.go).
inline constexpr absl::string_view kSpreadMismatchMessage =
    "node(s) didn't match pod topology spread constraints";
inline constexpr absl::string_view kAffinityMismatchMessage =
    "node(s) didn't match pod affinity rules";
inline constexpr absl::string_view kAntiAffinityMismatchMessage =
    "node(s) didn't match pod anti-affinity rules";
inline constexpr absl::string_view kExistingAntiAffinityMismatchMessage =
    "node(s) didn't satisfy existing pods anti-affinity rules";

enum class FilterCode {
  // The node might take the pod if other pods went away (preemption could
  // help): kube-scheduler's Unschedulable.
  kUnschedulable,
  // Nothing that happens to other pods would help:
  // UnschedulableAndUnresolvable.
  kUnschedulableAndUnresolvable,
};

struct FilterFailure {
  absl::string_view plugin;  // One of the constants above.
  FilterCode code = FilterCode::kUnschedulable;
  // kube-scheduler's message, e.g. "Insufficient cpu" or "node(s) didn't
  // match pod topology spread constraints".
  std::string message;

  friend bool operator==(const FilterFailure&, const FilterFailure&) = default;
};

// kube-scheduler's FitError message (framework/types.go FitError.Error):
// "0/<nodes> nodes are available: " then, for each distinct failure message
// with its node count, "<count> <message>", the entries sorted as strings
// and joined with ", ", then ".". `histogram` maps a message to the number
// of nodes that reported it. With no entries: "0/<nodes> nodes are
// available." (kube-scheduler prints the same prefix).
std::string NoNodeAvailableMessage(int nodes,
                                   const std::map<std::string, int>& histogram);

}  // namespace karpenter::scheduling

#endif  // KARPENTER_SCHEDULING_FILTER_STATUS_H_
