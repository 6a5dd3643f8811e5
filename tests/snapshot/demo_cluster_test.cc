// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The bundled demo cluster (examples/clusters/demo.yaml) is the CLI's default
// input: keep it loadable and coherent.

#include <catch2/catch.hpp>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"

namespace karpenter::snapshot {
namespace {

bool IsReady(const v1::Node& node) {
  for (const v1::Condition& c : node.status().conditions()) {
    if (c.type() == "Ready") return c.status() == "True";
  }
  return false;
}

TEST_CASE("snapshot demo: the bundled demo cluster is coherent", "[snapshot]") {
  ObjectSet set;
  const absl::Status loaded = LoadFile(
      absl::StrCat(KARPENTER_EXAMPLES_DIR, "/clusters/demo.yaml"), set);
  INFO(loaded.ToString());
  REQUIRE(loaded.ok());
  absl::StatusOr<Snapshot> built = Snapshot::Build(std::move(set));
  REQUIRE(built.ok());
  const Snapshot& s = *built;
  CHECK(s.nodes().size() == 8);
  CHECK(s.node_claims().size() == 8);
  CHECK(s.node_pools().size() == 3);
  CHECK(s.pod_count() == 30);
  CHECK(s.pdbs().size() == 3);
  CHECK(s.skipped_kinds().empty());

  // Every node has its NodeClaim, both ways, and a known NodePool.
  int not_ready = 0;
  for (NodeIndex n = 0; n < s.nodes().size(); ++n) {
    const v1::Node& node = s.nodes()[n];
    INFO(node.metadata().name());
    const auto by_id = s.FindNodeClaimByProviderId(node.spec().provider_id());
    REQUIRE(by_id.has_value());
    CHECK(s.FindNodeClaimByNodeName(node.metadata().name()) == by_id);
    const auto& labels = node.metadata().labels();
    CHECK(s.FindNodePool(labels.at("karpenter.sh/nodepool")).has_value());
    CHECK(labels.at("karpenter.sh/initialized") == "true");
    CHECK(labels.at("karpenter.sh/registered") == "true");
    CHECK(labels.count("node.kubernetes.io/instance-type") == 1);
    CHECK(labels.count("topology.kubernetes.io/zone") == 1);
    CHECK(labels.count("karpenter.sh/capacity-type") == 1);
    if (!IsReady(node)) ++not_ready;
  }
  CHECK(not_ready == 1);

  // Pods: all but one are bound to known nodes.
  CHECK(s.UnboundPods().size() == 1);
  CHECK(s.PodsOnUnknownNodes().empty());
  int daemonset = 0, mirror = 0, do_not_disrupt = 0, succeeded = 0;
  for (uint32_t pod_index = 0; pod_index < s.pod_count(); ++pod_index) {
    const v1::Pod pod = s.DecodePod(pod_index);
    const auto& owners = pod.metadata().owner_references();
    if (!owners.empty() && owners[0].kind() == "DaemonSet") ++daemonset;
    if (!owners.empty() && owners[0].kind() == "Node") ++mirror;
    if (pod.metadata().annotations().count("karpenter.sh/do-not-disrupt")) {
      ++do_not_disrupt;
    }
    if (pod.status().phase() == "Succeeded") ++succeeded;
  }
  CHECK(daemonset == 16);
  CHECK(mirror == 1);
  CHECK(do_not_disrupt == 1);
  CHECK(succeeded == 2);

  // PDBs: minAvailable "50%", maxUnavailable 0, disruptionsAllowed 1.
  const auto web = s.FindPdb("default", "web");
  const auto api = s.FindPdb("payments", "api");
  const auto dns = s.FindPdb("kube-system", "coredns");
  REQUIRE((web && api && dns));
  CHECK(s.pdbs()[*web].spec().min_available().string_value() == "50%");
  CHECK(s.pdbs()[*api].spec().has_max_unavailable());
  CHECK(s.pdbs()[*api].spec().max_unavailable().number_value() == 0);
  CHECK(s.pdbs()[*dns].status().disruptions_allowed() == 1);

  // The default NodePool carries the budgets from Karpenter's docs.
  const v1::NodePool& pool = s.node_pools()[*s.FindNodePool("default")];
  REQUIRE(pool.spec().disruption().budgets_size() == 2);
  CHECK(pool.spec().disruption().budgets(1).reasons(0) == "Drifted");
  CHECK(pool.spec().template_().spec().expire_after() == "720h");
}

}  // namespace
}  // namespace karpenter::snapshot
