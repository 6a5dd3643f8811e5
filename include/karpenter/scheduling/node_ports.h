// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// NodePorts: kube-scheduler's host port predicate. A pod that asks for a
// host port cannot go to a node where a pod already holds a conflicting
// one.
//
// Ports k8s.io/kubernetes pkg/scheduler/framework/plugins/nodeports/
// node_ports.go (Filter, fitsPorts, its ErrReason) with the port list of
// pkg/scheduler/util/utils.go `GetHostPorts` (containers and sidecar init
// containers; plain init containers have exited before the pod runs) and
// the conflict rule of pkg/scheduler/framework/types.go `HostPortInfo`
// (`CheckConflict`, `sanitize`), plus the API server defaulting of
// pkg/apis/core/v1/defaults.go `defaultHostNetworkPorts`: with
// `spec.hostNetwork` a port without hostPort takes its containerPort, so
// manifests that never passed through an API server hold the ports a
// stored pod would.
//
// Two ports conflict when protocol and port are equal and either host IP is
// "0.0.0.0" or the IPs are equal. IPs compare as text, as kube-scheduler
// does: "::" and "::ffff:0.0.0.0" are ordinary addresses, and "127.0.0.1"
// and "127.000.000.001" differ.
//
// Thread-safety: PodHostPorts and NodePortsFilter are pure; a HostPortSet
// is a plain value (const methods may run concurrently, mutation needs
// exclusive access).
#ifndef KARPENTER_SCHEDULING_NODE_PORTS_H_
#define KARPENTER_SCHEDULING_NODE_PORTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "karpenter/scheduling/filter_status.h"
#include "karpenter/v1/core.pb.h"

namespace karpenter::scheduling {

// The host IP a port without `hostIP` binds, and the protocol of a port
// without `protocol`.
inline constexpr absl::string_view kBindAllHostIp = "0.0.0.0";
inline constexpr absl::string_view kDefaultProtocol = "TCP";

// kube-scheduler's NodePorts failure message.
inline constexpr absl::string_view kNodePortsReason =
    "node(s) didn't have free ports for the requested pod ports";

// One host port, with defaults applied.
struct HostPort {
  std::string ip = std::string(kBindAllHostIp);
  std::string protocol = std::string(kDefaultProtocol);
  int32_t port = 0;

  friend bool operator==(const HostPort&, const HostPort&) = default;
};

// True when `a` and `b` cannot both be bound on one node: same port (> 0),
// same protocol, and equal IPs or either IP is kBindAllHostIp. Ports <= 0
// never conflict.
bool HostPortsConflict(const HostPort& a, const HostPort& b);

// The host ports `pod` holds: those of its sidecar init containers
// (`restartPolicy: Always`), then of its containers, in declaration order.
// A port's hostPort is its containerPort when `spec.hostNetwork` is true
// and hostPort is 0; ports whose hostPort is then <= 0 hold nothing. An
// empty protocol is "TCP" and an empty hostIP "0.0.0.0". Duplicates are
// kept. Never fails: values are taken as written (API validation keeps
// them within 1..65535).
std::vector<HostPort> PodHostPorts(const v1::Pod& pod);

// The host ports in use on one node, as a multiset: Add the ports of each
// pod bound there and Remove them when it leaves; a port stays in use until
// every pod that added it has removed it. A small sorted vector: nodes hold
// few host ports.
class HostPortSet {
 public:
  HostPortSet() = default;

  // Adds each port with port > 0 (others are ignored, like HostPortInfo).
  void Add(absl::Span<const HostPort> ports);
  // Removes one occurrence of each port with port > 0; a port not in the
  // set is ignored.
  void Remove(absl::Span<const HostPort> ports);

  // True when `port` conflicts (HostPortsConflict) with a port in the set.
  bool Conflicts(const HostPort& port) const;

  // Ports in the set, occurrences included, sorted by (port, protocol, ip).
  absl::Span<const HostPort> ports() const { return ports_; }
  bool empty() const { return ports_.empty(); }
  size_t size() const { return ports_.size(); }

 private:
  std::vector<HostPort> ports_;  // Sorted by (port, protocol, ip).
};

// NodePorts' Filter: nullopt when no port of `wanted` (the pod's
// PodHostPorts) conflicts with `used` (the node's), otherwise
// {kNodePorts, kUnschedulable, kNodePortsReason}. Conflicts among the
// pod's own ports are not checked, as in kube-scheduler.
std::optional<FilterFailure> NodePortsFilter(absl::Span<const HostPort> wanted,
                                             const HostPortSet& used);

}  // namespace karpenter::scheduling

#endif  // KARPENTER_SCHEDULING_NODE_PORTS_H_
