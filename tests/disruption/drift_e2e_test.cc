// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// End to end: a NodePool's image changes, so its 20 nodes drift; the
// disruption Runner replaces them under a 20% budget while the termination
// Executor drains the old ones through PDBs, with FakeCluster,
// FakeCloudProvider and FakeNodeLifecycle playing the cluster, the cloud and
// the kubelet.

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "karpenter/disruption/runner.h"
#include "karpenter/termination/executor.h"
#include "karpenter/testing/fake_clock.h"
#include "karpenter/testing/fake_cloud_provider.h"
#include "karpenter/testing/fake_cluster.h"
#include "karpenter/testing/fake_node_lifecycle.h"
#include "karpenter/testing/recorders.h"
#include "runner_test_util.h"

namespace karpenter::disruption {
namespace {

using runner_test::kStart;
constexpr int kNodes = 20;
constexpr int kApps = 5;
constexpr int kReplicas = 8;

std::string NodeName(int i) { return absl::StrFormat("old-%02d", i); }

snapshot::ObjectSet MakeCluster() {
  snapshot::ObjectSet o;
  o.node_pools.push_back(runner_test::RunnerPool("Never", {{.nodes = "20%"}}));
  for (int i = 0; i < kNodes; ++i) {
    testing::ManagedNode m =
        runner_test::RunnerNode(NodeName(i), o.node_pools[0]);
    o.nodes.push_back(std::move(m.node));
    o.node_claims.push_back(std::move(m.node_claim));
  }
  int slot = 0;
  for (int app = 0; app < kApps; ++app) {
    const std::string name = absl::StrCat("app", app);
    for (int r = 0; r < kReplicas; ++r) {
      o.pods.push_back(runner_test::RunnerPod(absl::StrCat(name, "-", r), name,
                                              NodeName(slot++ % kNodes)));
    }
    o.pdbs.push_back(
        testing::MakePdb({.name = name,
                          .selector = testing::Labels{{"app", name}},
                          .min_available = std::to_string(kReplicas - 1)}));
  }
  return o;
}

bool InstanceTerminating(const v1::NodeClaim& claim) {
  for (const v1::Condition& c : claim.status().conditions()) {
    if (c.type() == "InstanceTerminating") return c.status() == "True";
  }
  return false;
}

struct World {
  World(bool pairs_once) : clock(kStart) {
    testing::FakeClusterOptions cluster_options;
    cluster_options.placement =
        testing::FakeClusterOptions::Placement::kKubeScheduler;
    cluster_options.record_call_log = false;
    absl::StatusOr<std::unique_ptr<testing::FakeCluster>> c =
        testing::FakeCluster::Create(MakeCluster(), clock, cluster_options);
    REQUIRE(c.ok());
    cluster = *std::move(c);
    testing::FakeCloudProviderOptions cloud_options;
    cloud_options.default_image_id = "image-1";
    cloud_options.record_call_log = false;
    absl::StatusOr<std::unique_ptr<testing::FakeCloudProvider>> p =
        testing::FakeCloudProvider::Create(clock, cloud_options);
    REQUIRE(p.ok());
    cloud = *std::move(p);
    for (int i = 0; i < kNodes; ++i) {
      REQUIRE(
          cloud->AddInstance(runner_test::RunnerInstance(NodeName(i))).ok());
    }
    absl::StatusOr<std::unique_ptr<testing::FakeNodeLifecycle>> l =
        testing::FakeNodeLifecycle::Create(*cluster, *cloud, clock);
    REQUIRE(l.ok());
    lifecycle = *std::move(l);
    absl::StatusOr<std::unique_ptr<termination::Executor>> e =
        termination::Executor::Create(*cluster, *cluster, *cloud, events,
                                      metrics, clock, {});
    REQUIRE(e.ok());
    executor = *std::move(e);
    RunnerOptions options;
    options.orchestrator.rollout = Rollout::kBudget;
    options.controller.count_replacement_pairs_once = pairs_once;
    absl::StatusOr<std::unique_ptr<Runner>> r =
        Runner::Create(*cluster, *cloud, events, metrics, clock, options);
    REQUIRE(r.ok());
    runner = *std::move(r);
  }

  // Old nodes being disrupted now, as budgets count them: tainted by a
  // command or deleting, until the cloud accepted the instance's
  // termination (NodeClaim InstanceTerminating=True: drained, no pods left,
  // out of Karpenter's count).
  int DisruptingOldNodes() {
    absl::StatusOr<snapshot::Snapshot> s = cluster->Read();
    REQUIRE(s.ok());
    int n = 0;
    for (const v1::Node& node : s->nodes()) {
      if (node.metadata().name().rfind("old-", 0) != 0) continue;
      std::optional<snapshot::NodeClaimIndex> claim =
          s->FindNodeClaim(node.metadata().name());
      if (claim.has_value() && InstanceTerminating(s->node_claims()[*claim])) {
        continue;
      }
      bool tainted = false;
      for (const v1::Taint& t : node.spec().taints()) {
        tainted |= t.key() == "karpenter.sh/disrupted";
      }
      n += tainted || node.metadata().has_deletion_timestamp();
    }
    return n;
  }

  // Old Nodes and NodeClaims still present.
  int OldNodesLeft() {
    absl::StatusOr<snapshot::Snapshot> s = cluster->Read();
    REQUIRE(s.ok());
    auto old = [](const v1::ObjectMeta& m) {
      return m.name().rfind("old-", 0) == 0;
    };
    int n = 0;
    for (const v1::Node& x : s->nodes()) n += old(x.metadata());
    for (const v1::NodeClaim& x : s->node_claims()) n += old(x.metadata());
    return n;
  }

  // Steps until every old node is gone or `limit`; returns the most old
  // nodes disrupting at once.
  int Run(absl::Time limit) {
    int most = 0;
    while (clock.Now() <= limit && OldNodesLeft() > 0) {
      absl::StatusOr<RunReport> r = runner->RunOnce();
      REQUIRE(r.ok());
      for (const std::string& e : r->errors) UNSCOPED_INFO(e);
      absl::StatusOr<termination::PassReport> t = executor->RunOnce();
      REQUIRE(t.ok());
      absl::StatusOr<testing::LifecycleReport> l = lifecycle->Reconcile();
      REQUIRE(l.ok());
      most = std::max(most, DisruptingOldNodes());
      REQUIRE(cluster->PdbViolations().empty());
      REQUIRE(clock.Advance(absl::Seconds(1)).ok());
    }
    return most;
  }

  testing::FakeClock clock;
  std::unique_ptr<testing::FakeCluster> cluster;
  std::unique_ptr<testing::FakeCloudProvider> cloud;
  std::unique_ptr<testing::FakeNodeLifecycle> lifecycle;
  testing::RecordingEventRecorder events;
  testing::InMemoryMetrics metrics;
  std::unique_ptr<termination::Executor> executor;
  std::unique_ptr<Runner> runner;
};

TEST_CASE(
    "disruption e2e: an image change replaces 20 drifted nodes under a "
    "20 percent budget",
    "[disruption][e2e]") {
  World w(/*pairs_once=*/true);
  // Nothing drifts before the image changes.
  absl::StatusOr<RunReport> first = w.runner->RunOnce();
  REQUIRE(first.ok());
  CHECK(first->plan.commands.empty());
  w.cloud->SetImage("image-2");

  const int most = w.Run(kStart + absl::Hours(2));
  CHECK(w.OldNodesLeft() == 0);
  CHECK(most == 4);  // The budget, not seriality, paced the rollout.
  CHECK(w.cluster->PdbViolations().empty());

  // Every instance left belongs to a NodeClaim, and runs the new image.
  absl::StatusOr<snapshot::Snapshot> s = w.cluster->Read();
  REQUIRE(s.ok());
  std::set<std::string> claimed;
  for (const v1::NodeClaim& c : s->node_claims()) {
    claimed.insert(c.status().provider_id());
  }
  std::vector<Instance> instances = w.cloud->Instances();
  for (const Instance& i : instances) {
    CAPTURE(i.provider_id);
    CHECK(claimed.count(i.provider_id) == 1);
    CHECK(i.image_id == "image-2");
  }
  CHECK(instances.size() == s->node_claims().size());
  CHECK(s->nodes().size() == s->node_claims().size());
  // Every pod is back, bound to a new node.
  CHECK(s->pod_count() == kApps * kReplicas);
  for (uint32_t p_index = 0; p_index < s->pod_count(); ++p_index) {
    const v1::Pod p = s->DecodePod(p_index);
    CAPTURE(p.metadata().name());
    CHECK_FALSE(p.spec().node_name().empty());
    CHECK(p.spec().node_name().rfind("old-", 0) != 0);
  }
}

TEST_CASE(
    "disruption e2e: Karpenter's budget count lets a fifth node go while "
    "replacements exist",
    "[disruption][e2e]") {
  // Without count_replacement_pairs_once the 20% is taken of old and new
  // nodes together (24 while four replacements stand), which allows 5.
  World w(/*pairs_once=*/false);
  w.cloud->SetImage("image-2");
  const int most = w.Run(kStart + absl::Hours(2));
  CHECK(w.OldNodesLeft() == 0);
  CHECK(most == 5);
  CHECK(w.cluster->PdbViolations().empty());
}

}  // namespace
}  // namespace karpenter::disruption
