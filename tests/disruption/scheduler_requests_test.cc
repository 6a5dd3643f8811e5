// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The consolidation simulation charges pods by scheduling::PodRequests:
// sidecars, pod-level resources and overhead count both for the pod that
// moves and for the pods already on the destination.

#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "karpenter/disruption/scheduler.h"
#include "karpenter/snapshot/load.h"

namespace karpenter::disruption {
namespace {

std::string Node(const std::string& name, const std::string& cpu) {
  return absl::StrCat(
      "---\napiVersion: v1\nkind: Node\nmetadata: {name: ", name,
      ", labels: {karpenter.sh/nodepool: default}}\nstatus: {allocatable: "
      "{cpu: \"",
      cpu,
      "\", memory: 16Gi, pods: \"110\"}, conditions: [{type: Ready, status: "
      "\"True\"}]}\n");
}

// A running pod on `node` with `spec` (containers and the rest).
std::string Pod(const std::string& name, const std::string& node,
                const std::string& spec) {
  return absl::StrCat("---\napiVersion: v1\nkind: Pod\nmetadata: {name: ", name,
                      ", namespace: default}\nspec: {nodeName: ", node, ", ",
                      spec, "}\nstatus: {phase: Running}\n");
}

std::string Cpu(const std::string& name, const std::string& cpu) {
  return absl::StrCat("{name: ", name, ", resources: {requests: {cpu: \"", cpu,
                      "\"}}}");
}

// Whether the pods of node "cand" all fit on node "other" (allocatable 4
// cpu). No instance types are offered, so there is no other way out.
bool MovesToOther(const std::string& moving_spec,
                  const std::string& resident_spec) {
  const std::string yaml = absl::StrCat(
      "---\napiVersion: karpenter.sh/v1\nkind: NodePool\n"
      "metadata: {name: default}\nspec: {template: {spec: {}}}\n",
      Node("cand", "8"), Node("other", "4"), Pod("moving", "cand", moving_spec),
      Pod("resident", "other", resident_spec));
  snapshot::ObjectSet set;
  const absl::Status loaded = snapshot::LoadText(yaml, "test.yaml", set);
  INFO(loaded.ToString());
  REQUIRE(loaded.ok());
  absl::StatusOr<snapshot::Snapshot> snap =
      snapshot::Snapshot::Build(std::move(set));
  REQUIRE(snap.ok());
  absl::StatusOr<Scheduler> scheduler = Scheduler::Build(*snap, {});
  INFO(scheduler.status().ToString());
  REQUIRE(scheduler.ok());
  Candidate c;
  c.node = *snap->FindNode("cand");
  c.node_name = "cand";
  c.node_pool_name = "default";
  for (snapshot::PodIndex p : snap->PodsOnNode(c.node)) {
    c.pods.push_back(p);
    c.reschedulable_pods.push_back(p);
  }
  const SimulationResult result = scheduler->Simulate({c});
  INFO(absl::StrJoin(result.unschedulable, "\n"));
  CHECK_FALSE(result.unsupported.has_value());
  CHECK(result.new_node_claims.empty());
  return result.all_pods_scheduled;
}

TEST_CASE("simulation: requests follow scheduling::PodRequests",
          "[simulation]") {
  struct Case {
    std::string name;
    std::string moving;
    std::string resident;
    bool fits;
  };
  const std::vector<Case> cases = {
      {"baseline: 2 cpu into 3 free",
       absl::StrCat("containers: [", Cpu("a", "2"), "]"),
       absl::StrCat("containers: [", Cpu("a", "1"), "]"), true},
      // The resident's sidecar runs beside its container: 1 + 1.5 used.
      {"a resident's sidecar takes capacity",
       absl::StrCat("containers: [", Cpu("a", "2"), "]"),
       absl::StrCat("containers: [", Cpu("a", "1"),
                    "], initContainers: [{name: s, restartPolicy: Always, "
                    "resources: {requests: {cpu: 1500m}}}]"),
       false},
      // The same init container without restartPolicy: max(1, 1.5) used.
      {"a resident's plain init container does not add up",
       absl::StrCat("containers: [", Cpu("a", "2"), "]"),
       absl::StrCat("containers: [", Cpu("a", "1"),
                    "], initContainers: [{name: s, resources: {requests: "
                    "{cpu: 1500m}}}]"),
       true},
      // The moving pod's sidecar before a big init container: 2 + 1.
      {"a moving pod's init peak with its sidecar",
       absl::StrCat("containers: [", Cpu("a", "500m"),
                    "], initContainers: [{name: s, restartPolicy: Always, "
                    "resources: {requests: {cpu: \"1\"}}}, ",
                    Cpu("i", "2"), "]"),
       absl::StrCat("containers: [", Cpu("a", "1"), "]"), true},
      {"a moving pod's init peak that does not fit",
       absl::StrCat("containers: [", Cpu("a", "500m"),
                    "], initContainers: [{name: s, restartPolicy: Always, "
                    "resources: {requests: {cpu: \"1\"}}}, ",
                    Cpu("i", "2100m"), "]"),
       absl::StrCat("containers: [", Cpu("a", "1"), "]"), false},
      // Pod-level requests replace the containers' 3.5 cpu.
      {"a moving pod's pod-level request",
       absl::StrCat("containers: [", Cpu("a", "3500m"),
                    "], resources: {requests: {cpu: \"2\"}}"),
       absl::StrCat("containers: [", Cpu("a", "1"), "]"), true},
      {"a resident's pod-level request",
       absl::StrCat("containers: [", Cpu("a", "2"), "]"),
       absl::StrCat("containers: [", Cpu("a", "1"),
                    "], resources: {requests: {cpu: 2500m}}"),
       false},
      {"a resident's overhead",
       absl::StrCat("containers: [", Cpu("a", "2"), "]"),
       absl::StrCat("containers: [", Cpu("a", "1"),
                    "], overhead: {cpu: 1100m}"),
       false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    CHECK(MovesToOther(c.moving, c.resident) == c.fits);
  }
}

TEST_CASE("simulation: host ports held on the destination block a move",
          "[simulation]") {
  const auto with_ports = [](const std::string& ports,
                             const std::string& extra = "") {
    return absl::StrCat("containers: [{name: c, ports: [", ports,
                        "], resources: {requests: {cpu: \"100m\"}}}]", extra);
  };
  const std::string plain = with_ports("");
  struct Case {
    std::string name;
    std::string moving;
    std::string resident;
    bool moves;
  };
  const std::vector<Case> cases = {
      {"same port, TCP by default",
       with_ports("{containerPort: 80, hostPort: 80}"),
       with_ports("{containerPort: 80, hostPort: 80, protocol: TCP}"), false},
      {"other protocol",
       with_ports("{containerPort: 80, hostPort: 80, protocol: UDP}"),
       with_ports("{containerPort: 80, hostPort: 80}"), true},
      {"other port", with_ports("{containerPort: 80, hostPort: 81}"),
       with_ports("{containerPort: 80, hostPort: 80}"), true},
      {"distinct host IPs",
       with_ports("{containerPort: 80, hostPort: 80, hostIP: 10.0.0.1}"),
       with_ports("{containerPort: 80, hostPort: 80, hostIP: 10.0.0.2}"), true},
      {"0.0.0.0 conflicts with any IP",
       with_ports("{containerPort: 80, hostPort: 80, hostIP: 10.0.0.1}"),
       with_ports("{containerPort: 80, hostPort: 80}"), false},
      {"no hostPort is no host port", with_ports("{containerPort: 80}"),
       with_ports("{containerPort: 80}"), true},
      {"a sidecar's port, not wanted", plain,
       with_ports("",
                  ", initContainers: [{name: s, restartPolicy: Always, "
                  "ports: [{containerPort: 9, hostPort: 9}]}]"),
       true},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    CHECK(MovesToOther(c.moving, c.resident) == c.moves);
  }
  // The sidecar's port blocks a pod that wants it; a plain init
  // container's does not.
  const std::string wants9 = with_ports("{containerPort: 9, hostPort: 9}");
  CHECK_FALSE(MovesToOther(
      wants9, with_ports("",
                         ", initContainers: [{name: s, restartPolicy: "
                         "Always, ports: [{containerPort: 9, hostPort: "
                         "9}]}]")));
  CHECK(
      MovesToOther(wants9, with_ports("",
                                      ", initContainers: [{name: s, ports: "
                                      "[{containerPort: 9, hostPort: 9}]}]")));
}

}  // namespace
}  // namespace karpenter::disruption
