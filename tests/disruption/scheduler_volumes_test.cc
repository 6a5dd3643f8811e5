// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The consolidation simulation honours volumes as kube-scheduler does on
// existing nodes (VolumeBinding, VolumeZone, NodeVolumeLimits), and fails
// closed when a new NodeClaim would have to follow a zonal volume.

#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "karpenter/cloud_provider.h"
#include "karpenter/disruption/scheduler.h"
#include "karpenter/snapshot/load.h"

namespace karpenter::disruption {
namespace {

std::string Node(const std::string& name, const std::string& zone,
                 const std::string& cpu = "4") {
  return absl::StrCat(
      "---\napiVersion: v1\nkind: Node\nmetadata: {name: ", name,
      ", labels: {karpenter.sh/nodepool: default, "
      "topology.kubernetes.io/zone: ",
      zone, "}}\nstatus: {allocatable: {cpu: \"", cpu,
      "\", memory: 16Gi, pods: \"110\"}, conditions: [{type: Ready, status: "
      "\"True\"}]}\n");
}

std::string Pod(const std::string& name, const std::string& node,
                const std::string& claim) {
  return absl::StrCat(
      "---\napiVersion: v1\nkind: Pod\nmetadata: {name: ", name,
      ", namespace: default}\nspec: {nodeName: ", node,
      ", containers: [{name: c, resources: {requests: {cpu: 100m}}}], "
      "volumes: [{name: data, persistentVolumeClaim: {claimName: ",
      claim, "}}]}\nstatus: {phase: Running}\n");
}

// A claim bound to a zonal EBS volume in `zone` (handle `handle`).
std::string BoundClaim(const std::string& claim, const std::string& zone,
                       const std::string& handle) {
  const std::string pv = "pv-" + claim;
  return absl::StrCat(
      "---\napiVersion: v1\nkind: PersistentVolume\nmetadata: {name: ", pv,
      ", labels: {topology.kubernetes.io/zone: ", zone,
      "}}\nspec: {storageClassName: gp3, claimRef: {namespace: default, name: ",
      claim, "}, csi: {driver: ebs.csi.aws.com, volumeHandle: ", handle,
      "}, nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: "
      "[{key: topology.kubernetes.io/zone, operator: In, values: [",
      zone,
      "]}]}]}}}\n---\napiVersion: v1\nkind: PersistentVolumeClaim\n"
      "metadata: {name: ",
      claim,
      ", namespace: default}\nspec: {storageClassName: gp3, volumeName: ", pv,
      "}\nstatus: {phase: Bound}\n");
}

constexpr char kCommon[] =
    "---\napiVersion: karpenter.sh/v1\nkind: NodePool\n"
    "metadata: {name: default}\nspec: {template: {spec: {}}}\n"
    "---\napiVersion: storage.k8s.io/v1\nkind: StorageClass\n"
    "metadata: {name: gp3}\nprovisioner: ebs.csi.aws.com\n"
    "volumeBindingMode: WaitForFirstConsumer\n";

InstanceTypeCatalog Catalog() {
  InstanceType type;
  type.name = "m5.xlarge";
  type.capacity = {{"cpu", "4"}, {"memory", "16Gi"}, {"pods", "58"}};
  for (const char* zone : {"a", "b"}) {
    type.offerings.push_back({zone, "on-demand", 0.2, true});
  }
  return {{"default", {type}}};
}

// Simulates removing node "cand" from the cluster `yaml`.
SimulationResult RemoveCand(const std::string& yaml) {
  snapshot::ObjectSet set;
  const absl::Status loaded =
      snapshot::LoadText(absl::StrCat(kCommon, yaml), "test.yaml", set);
  INFO(loaded.ToString());
  REQUIRE(loaded.ok());
  absl::StatusOr<snapshot::Snapshot> snap =
      snapshot::Snapshot::Build(std::move(set));
  INFO(snap.status().ToString());
  REQUIRE(snap.ok());
  absl::StatusOr<Scheduler> scheduler = Scheduler::Build(*snap, Catalog());
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
  SimulationResult result = scheduler->Simulate({c});
  CHECK_FALSE(result.unsupported.has_value());
  return result;
}

TEST_CASE("simulation: a zonal volume keeps its pod in its zone",
          "[simulation][volumes]") {
  const std::string claim = BoundClaim("data", "a", "vol-1");
  SECTION("no node in the volume's zone: a new NodeClaim pinned to it") {
    const SimulationResult r =
        RemoveCand(absl::StrCat(Node("cand", "a"), Node("other", "b"),
                                Pod("db-0", "cand", "data"), claim));
    CHECK(r.all_pods_scheduled);
    REQUIRE(r.new_node_claims.size() == 1);
    bool pinned = false;
    for (const v1::NodeSelectorRequirement& req :
         r.new_node_claims[0].node_claim.spec().requirements()) {
      if (req.key() != "topology.kubernetes.io/zone") continue;
      pinned = req.operator_() == "In" && req.values_size() == 1 &&
               req.values(0) == "a";
    }
    CHECK(pinned);
  }
  SECTION("a zone no instance type is offered in: refused with the reason") {
    const SimulationResult r = RemoveCand(absl::StrCat(
        Node("cand", "a"), Node("other", "b"), Pod("db-0", "cand", "data"),
        BoundClaim("data", "c", "v")));
    CHECK_FALSE(r.all_pods_scheduled);
    CHECK(r.new_node_claims.empty());
    REQUIRE(r.unschedulable.size() == 1);
    CHECK_THAT(r.unschedulable[0],
               Catch::StartsWith(
                   "default/db-0: fits no remaining node (0/1 nodes are "
                   "available: 1 node(s) had volume node affinity conflict.) "
                   "and "));
  }
  SECTION("a node in the volume's zone takes it") {
    const SimulationResult r = RemoveCand(
        absl::StrCat(Node("cand", "a"), Node("other", "b"),
                     Node("other-a", "a"), Pod("db-0", "cand", "data"), claim));
    CHECK(r.all_pods_scheduled);
    CHECK(r.new_node_claims.empty());
  }
  SECTION("a volume without zone or affinity may go anywhere, even new") {
    const std::string plain =
        "---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: "
        "scratch, namespace: default}\nspec: {storageClassName: gp3}\n";
    const SimulationResult r =
        RemoveCand(absl::StrCat(Node("cand", "a", "4"), Node("other", "b", "0"),
                                Pod("job", "cand", "scratch"), plain));
    CHECK(r.all_pods_scheduled);
    CHECK(r.new_node_claims.size() == 1);
  }
}

TEST_CASE("simulation: CSI attach limits of the destination count",
          "[simulation][volumes]") {
  const auto csinode = [](const std::string& node, int count) {
    return absl::StrCat(
        "---\napiVersion: storage.k8s.io/v1\nkind: CSINode\nmetadata: {name: ",
        node,
        "}\nspec: {drivers: [{name: ebs.csi.aws.com, nodeID: i-1, "
        "allocatable: {count: ",
        count, "}}]}\n");
  };
  const std::string cluster = absl::StrCat(
      Node("cand", "a"), Node("other", "a"), Pod("db-0", "cand", "data"),
      BoundClaim("data", "a", "vol-1"), Pod("db-1", "other", "logs"),
      BoundClaim("logs", "a", "vol-2"));
  SECTION("full: one attachment left, so a new node in the volume's zone") {
    const SimulationResult r = RemoveCand(cluster + csinode("other", 1));
    CHECK(r.all_pods_scheduled);
    CHECK(r.new_node_claims.size() == 1);
  }
  SECTION("room for it") {
    const SimulationResult r = RemoveCand(cluster + csinode("other", 2));
    CHECK(r.all_pods_scheduled);
    CHECK(r.new_node_claims.empty());
  }
  SECTION("no CSINode: no limit") {
    CHECK(RemoveCand(cluster).all_pods_scheduled);
  }
}

}  // namespace
}  // namespace karpenter::disruption
