// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/testing/synthetic_cluster.h"

#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "absl/strings/match.h"
#include "google/protobuf/util/message_differencer.h"
#include "karpenter/snapshot/snapshot.h"

namespace karpenter::testing {
namespace {

TEST_CASE("synthetic cluster: default ratios and a buildable snapshot",
          "[testing][synthetic]") {
  SyntheticClusterOptions options;
  options.nodes = 200;
  absl::StatusOr<snapshot::ObjectSet> objects = MakeSyntheticCluster(options);
  REQUIRE(objects.ok());
  CHECK(objects->nodes.size() == 200);
  CHECK(objects->node_claims.size() == 200);
  CHECK(objects->pods.size() == 200 * 30);
  CHECK(objects->pdbs.size() == 100);
  CHECK(objects->node_pools.size() == 10);
  CHECK(objects->csi_nodes.size() == 200);
  CHECK(objects->daemon_sets.size() == 1);
  CHECK(objects->storage_classes.size() == 1);
  CHECK(objects->persistent_volumes.size() == 20);
  CHECK(objects->persistent_volume_claims.size() == 20);

  absl::StatusOr<snapshot::Snapshot> snap =
      snapshot::Snapshot::Build(*std::move(objects));
  REQUIRE(snap.ok());
  for (snapshot::NodeIndex n = 0; n < snap->nodes().size(); ++n) {
    REQUIRE(snap->PodsOnNode(n).size() == 30);
    const std::string& name = snap->nodes()[n].metadata().name();
    auto claim = snap->FindNodeClaimByNodeName(name);
    REQUIRE(claim.has_value());
    CHECK(snap->node_claims()[*claim].status().provider_id() ==
          snap->nodes()[n].spec().provider_id());
    CHECK(snap->FindNodePool(snap->nodes()[n].metadata().labels().at(
                                 "karpenter.sh/nodepool"))
              .has_value());
  }
  CHECK(snap->UnboundPods().empty());

  // Storage: a CSINode per node, every claim bound both ways to a zonal
  // volume of the default class, and the DaemonSet of the per-node pods.
  for (const v1::Node& node : snap->nodes()) {
    const auto csi = snap->FindCSINode(node.metadata().name());
    REQUIRE(csi.has_value());
    CHECK(snap->csi_nodes()[*csi].spec().drivers(0).allocatable().count() ==
          25);
  }
  REQUIRE(snap->DefaultStorageClass().has_value());
  CHECK(
      snap->storage_classes()[*snap->DefaultStorageClass()].metadata().name() ==
      "gp3");
  for (snapshot::PersistentVolumeClaimIndex c = 0;
       c < snap->persistent_volume_claims().size(); ++c) {
    const v1::PersistentVolumeClaim& claim =
        snap->persistent_volume_claims()[c];
    CHECK(snap->StorageClassOfClaim(c) == snap->DefaultStorageClass());
    const auto pv = snap->FindPersistentVolume(claim.spec().volume_name());
    REQUIRE(pv.has_value());
    const v1::ObjectReference& ref =
        snap->persistent_volumes()[*pv].spec().claim_ref();
    CHECK(ref.namespace_() == claim.metadata().namespace_());
    CHECK(ref.name() == claim.metadata().name());
  }
  const auto agent = snap->FindDaemonSet("kube-system", "node-agent");
  REQUIRE(agent.has_value());
  const snapshot::PodIndex first_pod = snap->PodsOnNode(0)[0];
  const v1::Pod& shape = snap->PodShape(first_pod);
  CHECK(shape.metadata().owner_references(0).kind() == "DaemonSet");
  CHECK(shape.metadata().owner_references(0).name() == "node-agent");
  CHECK(shape.metadata().labels().at("app") ==
        snap->daemon_sets()[*agent].spec().selector().match_labels().at("app"));
}

TEST_CASE("synthetic cluster: every PDB selects its own app",
          "[testing][synthetic]") {
  SyntheticClusterOptions options;
  options.nodes = 1000;  // 500 PDBs over 10 namespaces
  absl::StatusOr<snapshot::ObjectSet> objects = MakeSyntheticCluster(options);
  REQUIRE(objects.ok());
  std::set<std::string> selected;
  for (const v1::PodDisruptionBudget& pdb : objects->pdbs) {
    selected.insert(pdb.metadata().namespace_() + "/" +
                    pdb.spec().selector().match_labels().at("app"));
  }
  CHECK(selected.size() == objects->pdbs.size());
}

TEST_CASE("synthetic cluster: same options, same objects",
          "[testing][synthetic]") {
  SyntheticClusterOptions options;
  options.nodes = 50;
  auto a = MakeSyntheticCluster(options);
  auto b = MakeSyntheticCluster(options);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  REQUIRE(a->pods.size() == b->pods.size());
  for (size_t i = 0; i < a->pods.size(); ++i) {
    REQUIRE(google::protobuf::util::MessageDifferencer::Equals(a->pods[i],
                                                               b->pods[i]));
  }
}

TEST_CASE("synthetic cluster: bad counts name the field",
          "[testing][synthetic]") {
  SyntheticClusterOptions options;
  options.nodes = -5;
  absl::StatusOr<snapshot::ObjectSet> bad = MakeSyntheticCluster(options);
  REQUIRE(absl::IsInvalidArgument(bad.status()));
  CHECK(absl::StrContains(bad.status().message(), "nodes: -5"));
  options.nodes = 10;
  options.node_pools = 0;
  bad = MakeSyntheticCluster(options);
  REQUIRE(absl::IsInvalidArgument(bad.status()));
  CHECK(absl::StrContains(bad.status().message(), "node_pools"));
  options.node_pools = 1;
  options.persistent_volumes = -2;
  bad = MakeSyntheticCluster(options);
  REQUIRE(absl::IsInvalidArgument(bad.status()));
  CHECK(absl::StrContains(bad.status().message(), "persistent_volumes: -2"));
  // Claims need a namespace, as pods and PDBs do.
  options.nodes = 0;
  options.app_pods_per_node = 0;
  options.pdbs = 0;
  options.namespaces = 0;
  options.persistent_volumes = 1;
  bad = MakeSyntheticCluster(options);
  REQUIRE(absl::IsInvalidArgument(bad.status()));
  CHECK(absl::StrContains(bad.status().message(), "namespaces"));
  options.persistent_volumes = 0;
  CHECK(MakeSyntheticCluster(options).ok());
}

}  // namespace
}  // namespace karpenter::testing
