// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/testing/synthetic_cluster.h"

#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
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

// The constraint mix of issue 20's benchmarks.
SyntheticClusterOptions Mix(SyntheticClusterOptions o) {
  o.zone_spread_percent = 50;
  o.hostname_anti_affinity_percent = 20;
  o.host_port_percent = 10;
  return o;
}

struct PodConstraintsSeen {
  bool spread = false;
  bool anti = false;
  int32_t host_port = 0;
  bool operator==(const PodConstraintsSeen&) const = default;
};

PodConstraintsSeen Seen(const v1::Pod& pod) {
  PodConstraintsSeen c;
  const v1::PodSpec& spec = pod.spec();
  if (!spec.topology_spread_constraints().empty()) {
    REQUIRE(spec.topology_spread_constraints_size() == 1);
    const v1::TopologySpreadConstraint& t = spec.topology_spread_constraints(0);
    CHECK(t.max_skew() == 1);
    CHECK(t.topology_key() == "topology.kubernetes.io/zone");
    CHECK(t.when_unsatisfiable() == "DoNotSchedule");
    CHECK(t.label_selector().match_labels().size() == 1);
    CHECK(t.label_selector().match_labels().at("app") ==
          pod.metadata().labels().at("app"));
    c.spread = true;
  }
  const auto& anti = spec.affinity()
                         .pod_anti_affinity()
                         .required_during_scheduling_ignored_during_execution();
  if (!anti.empty()) {
    REQUIRE(anti.size() == 1);
    CHECK(anti[0].topology_key() == "kubernetes.io/hostname");
    CHECK(anti[0].label_selector().match_labels().size() == 1);
    CHECK(anti[0].label_selector().match_labels().at("app") ==
          pod.metadata().labels().at("app"));
    CHECK(anti[0].namespaces().empty());
    c.anti = true;
  }
  REQUIRE(spec.containers_size() == 1);
  if (!spec.containers(0).ports().empty()) {
    REQUIRE(spec.containers(0).ports_size() == 1);
    const v1::ContainerPort& port = spec.containers(0).ports(0);
    CHECK(port.container_port() == 8080);
    CHECK(port.protocol() == "TCP");
    CHECK(port.host_port() >= 8080);
    CHECK(port.host_port() < 8080 + 60);
    c.host_port = port.host_port();
  }
  return c;
}

TEST_CASE("synthetic cluster: constraint shares of the Deployments",
          "[testing][synthetic]") {
  // 100 namespaces x 60 apps = 6,000 Deployment ids; 200 nodes x 29 app
  // pods give 5,800 of them one pod each.
  SyntheticClusterOptions options;
  options.nodes = 200;
  options.namespaces = 100;
  absl::StatusOr<snapshot::ObjectSet> objects =
      MakeSyntheticCluster(Mix(options));
  REQUIRE(objects.ok());
  std::map<std::string, PodConstraintsSeen> deployments;
  for (const v1::Pod& pod : objects->pods) {
    const PodConstraintsSeen c = Seen(pod);
    if (pod.metadata().namespace_() == "kube-system") {
      CHECK(c == PodConstraintsSeen());  // DaemonSet pods: none
      continue;
    }
    const std::string key =
        pod.metadata().namespace_() + "/" + pod.metadata().labels().at("app");
    CHECK(deployments.emplace(key, c).second);
  }
  REQUIRE(deployments.size() == 5800);
  int spread = 0, anti = 0, port = 0, spread_and_anti = 0;
  for (const auto& [key, c] : deployments) {
    spread += c.spread ? 1 : 0;
    anti += c.anti ? 1 : 0;
    port += c.host_port != 0 ? 1 : 0;
    spread_and_anti += c.spread && c.anti ? 1 : 0;
  }
  // Independent draws: within about 4 standard deviations of the percents.
  CHECK(spread >= 2900 - 160);
  CHECK(spread <= 2900 + 160);
  CHECK(anti >= 1160 - 120);
  CHECK(anti <= 1160 + 120);
  CHECK(port >= 580 - 100);
  CHECK(port <= 580 + 100);
  CHECK(spread_and_anti >= 580 - 100);
  CHECK(spread_and_anti <= 580 + 100);
}

TEST_CASE("synthetic cluster: a Deployment's pods share its constraints",
          "[testing][synthetic]") {
  SyntheticClusterOptions options;
  options.nodes = 300;  // 3 namespaces: 180 Deployments of ~48 pods
  options.pending_pods = 500;
  absl::StatusOr<snapshot::ObjectSet> objects =
      MakeSyntheticCluster(Mix(options));
  REQUIRE(objects.ok());
  std::map<std::string, PodConstraintsSeen> deployments;
  // Per node: the hostPorts in use and the anti-affinity Deployments.
  std::map<std::string, std::set<int32_t>> ports;
  std::map<std::string, std::set<std::string>> anti;
  int pending = 0;
  for (const v1::Pod& pod : objects->pods) {
    if (pod.metadata().namespace_() == "kube-system") continue;
    const PodConstraintsSeen c = Seen(pod);
    const std::string key =
        pod.metadata().namespace_() + "/" + pod.metadata().labels().at("app");
    const auto [it, inserted] = deployments.emplace(key, c);
    if (!inserted) CHECK(it->second == c);
    const std::string& node = pod.spec().node_name();
    if (node.empty()) {
      ++pending;
      CHECK(pod.status().phase() == "Pending");
      continue;
    }
    // The generator's placement honours anti-affinity and host ports.
    if (c.host_port != 0) CHECK(ports[node].insert(c.host_port).second);
    if (c.anti) CHECK(anti[node].insert(key).second);
  }
  CHECK(pending == 500);
  CHECK(deployments.size() == 180);
}

TEST_CASE("synthetic cluster: percents 0 leave every object as it was",
          "[testing][synthetic]") {
  SyntheticClusterOptions options;
  options.nodes = 300;
  const SyntheticClusterOptions zero = options;  // the defaults: 0
  CHECK(zero.zone_spread_percent == 0);
  CHECK(zero.hostname_anti_affinity_percent == 0);
  CHECK(zero.host_port_percent == 0);
  CHECK(zero.pending_pods == 0);
  auto plain = MakeSyntheticCluster(zero);
  auto mixed = MakeSyntheticCluster(Mix(options));
  REQUIRE(plain.ok());
  REQUIRE(mixed.ok());
  using google::protobuf::util::MessageDifferencer;
  REQUIRE(plain->pods.size() == mixed->pods.size());
  int constrained = 0;
  for (size_t i = 0; i < plain->pods.size(); ++i) {
    CHECK(Seen(plain->pods[i]) == PodConstraintsSeen());
    CHECK(!plain->pods[i].spec().has_affinity());
    // The mix adds the three fields and nothing else.
    v1::Pod stripped = mixed->pods[i];
    if (!MessageDifferencer::Equals(stripped, plain->pods[i])) ++constrained;
    stripped.mutable_spec()->clear_topology_spread_constraints();
    stripped.mutable_spec()->clear_affinity();
    stripped.mutable_spec()->mutable_containers(0)->clear_ports();
    REQUIRE(MessageDifferencer::Equals(stripped, plain->pods[i]));
  }
  CHECK(constrained > 0);
  const auto same = [](const auto& a, const auto& b) {
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      REQUIRE(MessageDifferencer::Equals(a[i], b[i]));
    }
  };
  same(plain->nodes, mixed->nodes);
  same(plain->node_claims, mixed->node_claims);
  same(plain->pdbs, mixed->pdbs);
  same(plain->node_pools, mixed->node_pools);
}

TEST_CASE(
    "synthetic cluster: pending pods are unbound and continue the "
    "numbering",
    "[testing][synthetic]") {
  SyntheticClusterOptions options;
  options.nodes = 10;
  options.pending_pods = 25;
  absl::StatusOr<snapshot::ObjectSet> objects = MakeSyntheticCluster(options);
  REQUIRE(objects.ok());
  REQUIRE(objects->pods.size() == 10 * 30 + 25);
  // The last bound app pod is serial 289; the pending ones follow.
  const v1::Pod& first = objects->pods[300];
  CHECK(first.metadata().name() == "app-50-00000290");
  CHECK(first.spec().node_name().empty());
  CHECK(first.status().phase() == "Pending");
  absl::StatusOr<snapshot::Snapshot> snap =
      snapshot::Snapshot::Build(*std::move(objects));
  REQUIRE(snap.ok());
  CHECK(snap->UnboundPods().size() == 25);

  // Streaming gives the same pods.
  snapshot::SnapshotBuilder builder;
  REQUIRE(AddSyntheticCluster(options, builder).ok());
  absl::StatusOr<snapshot::Snapshot> streamed = std::move(builder).Build();
  REQUIRE(streamed.ok());
  CHECK(streamed->pod_count() == snap->pod_count());
  CHECK(streamed->UnboundPods().size() == 25);
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
  options.node_pools = -1;
  options.pending_pods = -1;
  bad = MakeSyntheticCluster(options);
  REQUIRE(absl::IsInvalidArgument(bad.status()));
  CHECK(absl::StrContains(bad.status().message(), "pending_pods: -1"));
}

TEST_CASE("synthetic cluster: percents outside [0, 100] name the field",
          "[testing][synthetic]") {
  for (int value : {-1, 101}) {
    for (int field = 0; field < 3; ++field) {
      SyntheticClusterOptions options;
      options.nodes = 10;
      int& percent = field == 0   ? options.zone_spread_percent
                     : field == 1 ? options.hostname_anti_affinity_percent
                                  : options.host_port_percent;
      percent = value;
      const char* name = field == 0   ? "zone_spread_percent"
                         : field == 1 ? "hostname_anti_affinity_percent"
                                      : "host_port_percent";
      CAPTURE(value, name);
      absl::StatusOr<snapshot::ObjectSet> bad = MakeSyntheticCluster(options);
      REQUIRE(absl::IsInvalidArgument(bad.status()));
      CHECK(
          absl::StrContains(bad.status().message(),
                            absl::StrCat("SyntheticClusterOptions.", name, ": ",
                                         value, " is outside [0, 100]")));
      snapshot::SnapshotBuilder builder;
      CHECK(absl::IsInvalidArgument(AddSyntheticCluster(options, builder)));
    }
  }
  SyntheticClusterOptions all;
  all.nodes = 10;
  all.zone_spread_percent = 100;
  all.hostname_anti_affinity_percent = 100;
  all.host_port_percent = 100;
  absl::StatusOr<snapshot::ObjectSet> every = MakeSyntheticCluster(all);
  REQUIRE(every.ok());
  for (const v1::Pod& pod : every->pods) {
    if (pod.metadata().namespace_() == "kube-system") continue;
    const PodConstraintsSeen c = Seen(pod);
    CHECK(c.spread);
    CHECK(c.anti);
    CHECK(c.host_port != 0);
  }
}

}  // namespace
}  // namespace karpenter::testing
