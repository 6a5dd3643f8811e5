// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Expected values follow kube-scheduler's NodePorts plugin:
// util.GetHostPorts and framework.HostPortInfo.CheckConflict.

#include "karpenter/scheduling/node_ports.h"

#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "karpenter/snapshot/load.h"

namespace karpenter::scheduling {
namespace {

v1::Pod PodWithSpec(const std::string& spec) {
  snapshot::ObjectSet set;
  const absl::Status s = snapshot::LoadText(
      absl::StrCat("kind: Pod\nmetadata: {name: p, namespace: default}\n"
                   "spec: {",
                   spec, "}\n"),
      "test.yaml", set);
  INFO(s.ToString());
  REQUIRE(s.ok());
  REQUIRE(set.pods.size() == 1);
  return set.pods[0];
}

HostPort Port(int32_t port, std::string protocol = "TCP",
              std::string ip = "0.0.0.0") {
  HostPort p;
  p.port = port;
  p.protocol = std::move(protocol);
  p.ip = std::move(ip);
  return p;
}

std::string Show(const std::vector<HostPort>& ports) {
  std::string out;
  for (const HostPort& p : ports) {
    absl::StrAppend(&out, out.empty() ? "" : " ", p.ip, ":", p.port, "/",
                    p.protocol);
  }
  return out;
}

TEST_CASE("PodHostPorts: which ports a pod holds", "[scheduling]") {
  struct Case {
    std::string name;
    std::string spec;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"no ports", "containers: [{name: a}]", ""},
      {"containerPort alone holds no host port",
       "containers: [{name: a, ports: [{containerPort: 8080}]}]", ""},
      {"defaults: TCP on every address",
       "containers: [{name: a, ports: [{containerPort: 80, hostPort: "
       "8080}]}]",
       "0.0.0.0:8080/TCP"},
      {"protocol and hostIP as written",
       "containers: [{name: a, ports: [{containerPort: 53, hostPort: 53, "
       "protocol: UDP, hostIP: 10.0.0.7}, {containerPort: 9, hostPort: 9, "
       "protocol: SCTP}]}]",
       "10.0.0.7:53/UDP 0.0.0.0:9/SCTP"},
      {"every container, in order, duplicates kept",
       "containers: [{name: a, ports: [{containerPort: 1, hostPort: 81}]}, "
       "{name: b, ports: [{containerPort: 2, hostPort: 82}, {containerPort: "
       "3, hostPort: 81}]}]",
       "0.0.0.0:81/TCP 0.0.0.0:82/TCP 0.0.0.0:81/TCP"},
      {"sidecars first, plain init containers never",
       "containers: [{name: a, ports: [{containerPort: 1, hostPort: 81}]}], "
       "initContainers: [{name: i, ports: [{containerPort: 2, hostPort: "
       "82}]}, {name: s, restartPolicy: Always, ports: [{containerPort: 3, "
       "hostPort: 83}]}]",
       "0.0.0.0:83/TCP 0.0.0.0:81/TCP"},
      {"hostNetwork: containerPort is the host port",
       "hostNetwork: true, containers: [{name: a, ports: [{containerPort: "
       "9100}, {containerPort: 9101, hostPort: 9101, protocol: UDP}]}], "
       "initContainers: [{name: i, ports: [{containerPort: 7000}]}, {name: "
       "s, restartPolicy: Always, ports: [{containerPort: 7001}]}]",
       "0.0.0.0:7001/TCP 0.0.0.0:9100/TCP 0.0.0.0:9101/UDP"},
      {"without hostNetwork containerPort is not defaulted",
       "hostNetwork: false, containers: [{name: a, ports: [{containerPort: "
       "9100}]}]",
       ""},
      {"negative host ports hold nothing",
       "containers: [{name: a, ports: [{containerPort: 1, hostPort: -5}]}]",
       ""},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    CHECK(Show(PodHostPorts(PodWithSpec(c.spec))) == c.want);
  }
}

TEST_CASE("HostPortsConflict: the conflict matrix", "[scheduling]") {
  struct Case {
    HostPort used;
    HostPort wanted;
    bool conflict;
  };
  const std::vector<Case> cases = {
      // Same everything.
      {Port(80), Port(80), true},
      {Port(80, "TCP", "10.0.0.1"), Port(80, "TCP", "10.0.0.1"), true},
      // Different port or protocol never conflicts.
      {Port(80), Port(81), false},
      {Port(80), Port(80, "UDP"), false},
      {Port(80, "UDP"), Port(80, "UDP"), true},
      {Port(80, "SCTP", "10.0.0.1"), Port(80, "UDP", "10.0.0.1"), false},
      // 0.0.0.0 on either side covers every address.
      {Port(80), Port(80, "TCP", "10.0.0.1"), true},
      {Port(80, "TCP", "10.0.0.1"), Port(80), true},
      {Port(80, "UDP"), Port(80, "UDP", "192.168.1.1"), true},
      // Two specific addresses conflict only when equal (as text).
      {Port(80, "TCP", "10.0.0.1"), Port(80, "TCP", "10.0.0.2"), false},
      {Port(80, "TCP", "127.0.0.1"), Port(80, "TCP", "127.000.000.001"), false},
      // "::" is not the bind-all address for kube-scheduler.
      {Port(80, "TCP", "::"), Port(80, "TCP", "::1"), false},
      {Port(80, "TCP", "::"), Port(80), true},
      // Port 0 or below holds nothing.
      {Port(0), Port(0), false},
      {Port(-1), Port(-1), false},
  };
  for (const Case& c : cases) {
    CAPTURE(Show({c.used}), Show({c.wanted}));
    CHECK(HostPortsConflict(c.used, c.wanted) == c.conflict);
    CHECK(HostPortsConflict(c.wanted, c.used) == c.conflict);
    HostPortSet set;
    set.Add({c.used});
    CHECK(set.Conflicts(c.wanted) == c.conflict);
    CHECK(NodePortsFilter({c.wanted}, set).has_value() == c.conflict);
  }
}

TEST_CASE("HostPortSet: a multiset of the ports in use", "[scheduling]") {
  HostPortSet set;
  CHECK(set.empty());
  const std::vector<HostPort> first = {Port(80), Port(53, "UDP", "10.0.0.1")};
  const std::vector<HostPort> second = {Port(80), Port(0), Port(443)};
  set.Add(first);
  set.Add(second);
  CHECK(set.size() == 4);  // Port 0 is not added.
  CHECK(Show({set.ports().begin(), set.ports().end()}) ==
        "10.0.0.1:53/UDP 0.0.0.0:80/TCP 0.0.0.0:80/TCP 0.0.0.0:443/TCP");

  // Two pods hold 80: it stays in use until both have left.
  set.Remove(first);
  CHECK(set.Conflicts(Port(80)));
  CHECK_FALSE(set.Conflicts(Port(53, "UDP")));
  set.Remove(second);
  CHECK_FALSE(set.Conflicts(Port(80)));
  CHECK_FALSE(set.Conflicts(Port(443)));
  CHECK(set.empty());

  // Removing what is not there changes nothing.
  set.Add({Port(8080, "TCP", "10.0.0.1")});
  set.Remove({Port(8080), Port(8080, "UDP", "10.0.0.1"), Port(9090)});
  CHECK(set.size() == 1);
  CHECK(set.Conflicts(Port(8080)));
}

TEST_CASE("NodePortsFilter: kube-scheduler's verdict", "[scheduling]") {
  HostPortSet used;
  used.Add(PodHostPorts(PodWithSpec(
      "containers: [{name: a, ports: [{containerPort: 1, hostPort: 8080}, "
      "{containerPort: 2, hostPort: 53, protocol: UDP, hostIP: "
      "10.0.0.1}]}]")));

  const FilterFailure want{kNodePorts, FilterCode::kUnschedulable,
                           "node(s) didn't have free ports for the requested "
                           "pod ports"};
  struct Case {
    std::string name;
    std::string spec;
    bool fails;
  };
  const std::vector<Case> cases = {
      {"no host ports", "containers: [{name: a}]", false},
      {"a free port",
       "containers: [{name: a, ports: [{containerPort: 1, "
       "hostPort: 8081}]}]",
       false},
      {"a taken port among free ones",
       "containers: [{name: a, ports: [{containerPort: 1, hostPort: 8081}, "
       "{containerPort: 2, hostPort: 8080}]}]",
       true},
      {"the same port over UDP",
       "containers: [{name: a, ports: [{containerPort: 1, hostPort: 8080, "
       "protocol: UDP}]}]",
       false},
      {"a specific address against a bind-all one",
       "containers: [{name: a, ports: [{containerPort: 1, hostPort: 8080, "
       "hostIP: 10.0.0.9}]}]",
       true},
      {"another address for a port bound to one address",
       "containers: [{name: a, ports: [{containerPort: 1, hostPort: 53, "
       "protocol: UDP, hostIP: 10.0.0.2}]}]",
       false},
      {"bind-all against a port bound to one address",
       "containers: [{name: a, ports: [{containerPort: 1, hostPort: 53, "
       "protocol: UDP}]}]",
       true},
      {"a sidecar's port",
       "containers: [{name: a}], initContainers: [{name: s, restartPolicy: "
       "Always, ports: [{containerPort: 1, hostPort: 8080}]}]",
       true},
      {"a plain init container's port",
       "containers: [{name: a}], initContainers: [{name: i, ports: "
       "[{containerPort: 1, hostPort: 8080}]}]",
       false},
      {"hostNetwork defaults the host port",
       "hostNetwork: true, containers: [{name: a, ports: [{containerPort: "
       "8080}]}]",
       true},
      {"hostPort 0 without hostNetwork",
       "containers: [{name: a, ports: [{containerPort: 8080, hostPort: 0}]}]",
       false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const std::optional<FilterFailure> got =
        NodePortsFilter(PodHostPorts(PodWithSpec(c.spec)), used);
    CHECK(got.has_value() == c.fails);
    if (got.has_value()) CHECK(*got == want);
  }
  CHECK_FALSE(NodePortsFilter({Port(8080)}, HostPortSet()).has_value());
}

}  // namespace
}  // namespace karpenter::scheduling
