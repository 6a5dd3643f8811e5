// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#include "karpenter/scheduling/node_ports.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "karpenter/scheduling/resources.h"

namespace karpenter::scheduling {
namespace {

void AppendPorts(const v1::Container& c, bool host_network,
                 std::vector<HostPort>& out) {
  for (const v1::ContainerPort& p : c.ports()) {
    int32_t port = p.host_port();
    if (host_network && port == 0) port = p.container_port();
    if (port <= 0) continue;
    HostPort& h = out.emplace_back();
    if (!p.host_ip().empty()) h.ip = p.host_ip();
    if (!p.protocol().empty()) h.protocol = p.protocol();
    h.port = port;
  }
}

// The set's order: (port, protocol), the part a conflict needs equal, then
// ip.
bool PortProtocolLess(const HostPort& a, const HostPort& b) {
  return std::tie(a.port, a.protocol) < std::tie(b.port, b.protocol);
}
bool SetLess(const HostPort& a, const HostPort& b) {
  return std::tie(a.port, a.protocol, a.ip) <
         std::tie(b.port, b.protocol, b.ip);
}

}  // namespace

bool HostPortsConflict(const HostPort& a, const HostPort& b) {
  if (a.port <= 0 || a.port != b.port || a.protocol != b.protocol) {
    return false;
  }
  return a.ip == b.ip || a.ip == kBindAllHostIp || b.ip == kBindAllHostIp;
}

std::vector<HostPort> PodHostPorts(const v1::Pod& pod) {
  const v1::PodSpec& spec = pod.spec();
  std::vector<HostPort> out;
  for (const v1::Container& c : spec.init_containers()) {
    if (IsSidecar(c)) AppendPorts(c, spec.host_network(), out);
  }
  for (const v1::Container& c : spec.containers()) {
    AppendPorts(c, spec.host_network(), out);
  }
  return out;
}

void HostPortSet::Add(absl::Span<const HostPort> ports) {
  for (const HostPort& p : ports) {
    if (p.port <= 0) continue;
    ports_.insert(std::upper_bound(ports_.begin(), ports_.end(), p, SetLess),
                  p);
  }
}

void HostPortSet::Remove(absl::Span<const HostPort> ports) {
  for (const HostPort& p : ports) {
    if (p.port <= 0) continue;
    const auto it = std::lower_bound(ports_.begin(), ports_.end(), p, SetLess);
    if (it != ports_.end() && *it == p) ports_.erase(it);
  }
}

bool HostPortSet::Conflicts(const HostPort& port) const {
  if (port.port <= 0) return false;
  const auto [first, last] =
      std::equal_range(ports_.begin(), ports_.end(), port, PortProtocolLess);
  return std::any_of(first, last, [&](const HostPort& used) {
    return HostPortsConflict(port, used);
  });
}

std::optional<FilterFailure> NodePortsFilter(absl::Span<const HostPort> wanted,
                                             const HostPortSet& used) {
  if (used.empty()) return std::nullopt;
  for (const HostPort& p : wanted) {
    if (used.Conflicts(p)) {
      return FilterFailure{kNodePorts, FilterCode::kUnschedulable,
                           std::string(kNodePortsReason)};
    }
  }
  return std::nullopt;
}

}  // namespace karpenter::scheduling
