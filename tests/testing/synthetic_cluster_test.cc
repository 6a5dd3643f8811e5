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
}

}  // namespace
}  // namespace karpenter::testing
