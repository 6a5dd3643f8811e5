// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// FakeCluster::Read() takes its snapshot from a state::ClusterState mirror
// fed only what changed: after any sequence of calls it must equal, index
// for index, Snapshot::Build over ExportObjects() (the snapshot Read() built
// from scratch before), or simulations would change.

#include <catch2/catch.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "karpenter/testing/builders.h"
#include "karpenter/testing/fake_clock.h"
#include "karpenter/testing/fake_cluster.h"
#include "karpenter/testing/snapshot_equal.h"
#include "kit_test_util.h"

// The builders take designated initializers that omit fields; GCC 12 warns
// about every omitted member even though each has a default.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace karpenter::testing {
namespace {

std::vector<std::string> NodeNames(const snapshot::Snapshot& s) {
  std::vector<std::string> out;
  for (const v1::Node& n : s.nodes()) out.push_back(n.metadata().name());
  return out;
}

std::vector<std::string> PodNames(const snapshot::Snapshot& s) {
  std::vector<std::string> out;
  for (snapshot::PodIndex p = 0; p < s.pod_count(); ++p) {
    out.emplace_back(s.PodName(p));
  }
  return out;
}

struct Env : kit_test::FakeClusterEnv {
  using FakeClusterEnv::FakeClusterEnv;

  // ReadWithoutPods() then Read(), each checked against a snapshot built
  // from scratch (the first leaves parts the second may share).
  snapshot::Snapshot Read() {
    absl::StatusOr<snapshot::Snapshot> bare = cluster->ReadWithoutPods();
    INFO(bare.status().ToString());
    REQUIRE(bare.ok());
    snapshot::ObjectSet objects = cluster->ExportObjects();
    objects.pods.clear();
    objects.pdbs.clear();
    absl::StatusOr<snapshot::Snapshot> bare_built =
        snapshot::Snapshot::Build(std::move(objects));
    REQUIRE(bare_built.ok());
    INFO(SnapshotDiff(*bare, *bare_built));
    CHECK(SnapshotDiff(*bare, *bare_built).empty());
    absl::StatusOr<snapshot::Snapshot> read = cluster->Read();
    INFO(read.status().ToString());
    REQUIRE(read.ok());
    absl::StatusOr<snapshot::Snapshot> built =
        snapshot::Snapshot::Build(cluster->ExportObjects());
    REQUIRE(built.ok());
    INFO(SnapshotDiff(*read, *built));
    CHECK(SnapshotDiff(*read, *built).empty());
    const absl::Status check = cluster->CheckReadMirror();
    INFO(check.ToString());
    CHECK(check.ok());
    return *std::move(read);
  }
};

v1::Node NodeAt(const std::string& name, const std::string& rv = "") {
  v1::Node n = MakeNode({.name = name, .cpu = "4", .pods = "20"});
  n.mutable_metadata()->set_resource_version(rv);
  return n;
}

v1::Pod PodAt(const std::string& name, const std::string& node,
              const std::string& app = "web", const std::string& rv = "") {
  v1::Pod p = MakePod({.name = name,
                       .app = app,
                       .node = node,
                       .owner = app == "bare" ? "" : "ReplicaSet",
                       .grace = 30,
                       .cpu = "500m"});
  p.mutable_metadata()->set_resource_version(rv);
  return p;
}

TEST_CASE("fake cluster mirror: a Node whose name sorts first is read first",
          "[fake-mirror]") {
  snapshot::ObjectSet o;
  o.nodes = {NodeAt("n20"), NodeAt("n30", "5"), NodeAt("n40")};
  Env env(std::move(o));
  CHECK(NodeNames(env.Read()) == std::vector<std::string>{"n20", "n30", "n40"});
  REQUIRE(env.cluster->AddNode(NodeAt("n25", "9")).ok());
  REQUIRE(env.cluster->AddNode(NodeAt("n10")).ok());
  CHECK(NodeNames(env.Read()) ==
        std::vector<std::string>{"n10", "n20", "n25", "n30", "n40"});
  REQUIRE(env.cluster->DeleteNode("n20").ok());
  REQUIRE(env.cluster->AddNode(NodeAt("n50")).ok());
  CHECK(NodeNames(env.Read()) ==
        std::vector<std::string>{"n10", "n25", "n30", "n40", "n50"});
}

TEST_CASE("fake cluster mirror: a pod re-created under its name is read last",
          "[fake-mirror]") {
  snapshot::ObjectSet o;
  o.nodes = {NodeAt("n1")};
  o.pods = {PodAt("a", "n1", "bare"), PodAt("b", "n1", "bare"),
            PodAt("c", "n1", "bare")};
  Env env(std::move(o));
  CHECK(PodNames(env.Read()) == std::vector<std::string>{"a", "b", "c"});
  REQUIRE(
      env.cluster->DeletePod({"default", "a", ""}, absl::ZeroDuration()).ok());
  REQUIRE(env.cluster->AddPod(PodAt("a", "n1", "bare")).ok());
  CHECK(PodNames(env.Read()) == std::vector<std::string>{"b", "c", "a"});
  // Removed and re-created between two reads.
  REQUIRE(
      env.cluster->DeletePod({"default", "b", ""}, absl::ZeroDuration()).ok());
  REQUIRE(env.cluster->AddPod(PodAt("b", "n1", "bare")).ok());
  REQUIRE(env.cluster->AddPod(PodAt("d", "n1", "bare")).ok());
  CHECK(PodNames(env.Read()) == std::vector<std::string>{"c", "a", "b", "d"});
}

TEST_CASE("fake cluster mirror: changes to objects with resourceVersions read",
          "[fake-mirror]") {
  // The fake keeps the resourceVersions it was given, which the mirror
  // would otherwise take for replays (same version) or stale events.
  snapshot::ObjectSet o;
  o.nodes = {NodeAt("n1", "7"), NodeAt("n2", "8")};
  o.pods = {PodAt("a", "n1", "bare", "12")};
  Env env(std::move(o));
  env.Read();
  REQUIRE(env.cluster->TaintNode("n1", MakeTaint("k", "v", "NoSchedule")).ok());
  REQUIRE(env.cluster->DeletePod({"default", "a", ""}, absl::Seconds(30)).ok());
  const snapshot::Snapshot s1 = env.Read();
  REQUIRE(s1.nodes().size() == 2);
  CHECK(s1.nodes()[0].spec().taints_size() == 1);
  REQUIRE(s1.pod_count() == 1);
  CHECK(s1.DecodePod(0).metadata().has_deletion_timestamp());
  // Deleted, then added again with an older version.
  REQUIRE(env.cluster->DeleteNode("n2").ok());
  env.Read();
  REQUIRE(env.cluster->AddNode(NodeAt("n2", "3")).ok());
  const snapshot::Snapshot s2 = env.Read();
  CHECK(NodeNames(s2) == std::vector<std::string>{"n1", "n2"});
  CHECK(s2.nodes()[1].metadata().resource_version() == "3");
}

TEST_CASE("fake cluster mirror: PDB status follows evictions and replacements",
          "[fake-mirror]") {
  snapshot::ObjectSet o;
  o.nodes = {NodeAt("n1"), NodeAt("n2")};
  o.pods = {PodAt("a", "n1"), PodAt("b", "n1"), PodAt("c", "n1")};
  o.pdbs = {MakePdb({.name = "web", .max_unavailable = "1"})};
  Env env(std::move(o));
  REQUIRE(env.Read().pdbs()[0].status().disruptions_allowed() == 1);
  REQUIRE(env.cluster->Evict({"default", "a", "uid-a"}).http_status == 200);
  CHECK(env.Read().pdbs()[0].status().disruptions_allowed() == 0);
  // The replacement turns Ready after recreate_delay + ready_delay.
  REQUIRE(env.clock.Advance(absl::Seconds(60)).ok());
  const snapshot::Snapshot s = env.Read();
  CHECK(s.pdbs()[0].status().disruptions_allowed() == 1);
  CHECK(s.pod_count() == 3);
}

// Random calls on a cluster with every kind the fake changes; every few
// calls the read is checked against the objects exported.
void RunRandomCalls(uint32_t seed, FakeClusterOptions options) {
  std::mt19937 rng(seed);
  const auto pick = [&rng](size_t n) {
    return std::uniform_int_distribution<size_t>(0, n - 1)(rng);
  };
  snapshot::ObjectSet o;
  for (int i = 0; i < 6; ++i) {
    v1::Node n = NodeAt(absl::StrCat("n", 10 * (i + 2)), i % 2 ? "4" : "");
    if (i % 3 == 0) n.mutable_metadata()->add_finalizers("karpenter.sh/t");
    o.nodes.push_back(n);
    o.node_claims.push_back(
        MakeNodeClaim({.name = absl::StrCat("c", 10 * (i + 2)),
                       .node_name = n.metadata().name(),
                       .finalizers = {"karpenter.sh/t"}}));
    o.csi_nodes.push_back(MakeCSINode({.name = n.metadata().name()}));
  }
  const std::vector<std::string> apps = {"web", "api", "bare"};
  for (int i = 0; i < 24; ++i) {
    o.pods.push_back(PodAt(absl::StrCat("p", i),
                           o.nodes[i % 6].metadata().name(), apps[i % 3],
                           i % 4 ? "" : "11"));
  }
  o.pods[0].mutable_spec()->add_volumes()->set_name("vol-data");
  o.pods[0]
      .mutable_spec()
      ->mutable_volumes(0)
      ->mutable_persistent_volume_claim()
      ->set_claim_name("data");
  o.pdbs = {MakePdb({.name = "web", .max_unavailable = "1"}),
            MakePdb({.name = "api",
                     .selector = Labels{{"app", "api"}},
                     .min_available = "50%"}),
            MakePdb({.name = "bare",
                     .selector = Labels{{"app", "bare"}},
                     .min_available = "2"})};
  o.node_pools = {MakeNodePool({.name = "b"}), MakeNodePool({.name = "a"})};
  o.persistent_volume_claims = {
      MakePersistentVolumeClaim({.volume_name = "pv"})};
  o.persistent_volumes = {MakePersistentVolume({.claim = "data"})};
  o.storage_classes = {MakeStorageClass({})};
  o.daemon_sets = {MakeDaemonSet({})};
  o.volume_attachments = {
      MakeVolumeAttachment({.name = "va-m",
                            .node = o.nodes[0].metadata().name(),
                            .persistent_volume = "pv"}),
      MakeVolumeAttachment({.name = "va-x", .node = "n30"})};
  Env env(std::move(o), options);
  env.Read();

  const auto node_name = [&] { return absl::StrCat("n", 5 * pick(20)); };
  const auto claim_name = [&] { return absl::StrCat("c", 5 * pick(20)); };
  const auto pod_name = [&] { return absl::StrCat("p", pick(30)); };
  const auto kind = [&] {
    return pick(2) ? ObjectKind::kNode : ObjectKind::kNodeClaim;
  };
  const auto name_of = [&](ObjectKind k) {
    return k == ObjectKind::kNode ? node_name() : claim_name();
  };
  for (int step = 0; step < 300; ++step) {
    // Errors (not found, already exists) are part of the game: a refused
    // call must not change the mirror either.
    switch (pick(16)) {
      case 0:
        (void)env.cluster->AddNode(NodeAt(node_name(), pick(2) ? "2" : ""));
        break;
      case 1:
        (void)env.cluster->DeleteNode(node_name());
        break;
      case 2: {
        const ObjectKind k = kind();
        (void)env.cluster->AddFinalizer(k, name_of(k), "karpenter.sh/t");
        break;
      }
      case 3: {
        const ObjectKind k = kind();
        (void)env.cluster->RemoveFinalizer(k, name_of(k), "karpenter.sh/t");
        break;
      }
      case 4:
        if (pick(2)) {
          (void)env.cluster->TaintNode(
              node_name(), MakeTaint("k", absl::StrCat(pick(3)), "NoSchedule"));
        } else {
          (void)env.cluster->RemoveTaint(node_name(), "k", "NoSchedule");
        }
        break;
      case 5: {
        const ObjectKind k = kind();
        (void)env.cluster->SetLabel(k, name_of(k), "l", absl::StrCat(pick(3)));
        (void)env.cluster->SetAnnotation(k, name_of(k), "a", "v");
        break;
      }
      case 6:
        (void)env.cluster->DeletePod({"default", pod_name(), ""},
                                     absl::Seconds(30 * pick(2)));
        break;
      case 7: {
        const std::string name = pod_name();
        (void)env.cluster->Evict({"default", name, ""});
        break;
      }
      case 8:
        (void)env.cluster->AddPod(PodAt(pod_name(), pick(4) ? node_name() : "",
                                        apps[pick(3)], pick(2) ? "6" : ""));
        break;
      case 9: {
        const std::string name = claim_name();
        v1::NodeClaim c = MakeNodeClaim({.name = name, .node_name = ""});
        if (pick(2)) c.mutable_metadata()->set_resource_version("3");
        (void)env.cluster->CreateNodeClaim(c);
        break;
      }
      case 10:
        (void)env.cluster->DeleteNodeClaim(claim_name());
        break;
      case 11:
        if (pick(2)) {
          (void)env.cluster->SetNodeClaimCondition(
              claim_name(),
              MakeCondition({.type = "Drifted", .since = env.clock.Now()}));
        } else {
          (void)env.cluster->RemoveNodeClaimCondition(claim_name(), "Drifted");
        }
        break;
      case 12: {
        v1::NodeClaimStatus status;
        status.set_node_name(node_name());
        (void)env.cluster->SetNodeClaimStatus(claim_name(), status);
        break;
      }
      case 13:
        (void)env.cluster->ApplyNodePool(MakeNodePool(
            {.name = std::string(1, static_cast<char>('a' + pick(4))),
             .hash = absl::StrCat(pick(5))}));
        break;
      case 14:
        if (pick(2)) {
          (void)env.cluster->AddVolumeAttachment(
              MakeVolumeAttachment({.name = absl::StrCat("va-", pick(26)),
                                    .node = node_name(),
                                    .persistent_volume = "pv"}));
        } else {
          (void)env.cluster->SetNodeReady(node_name(), pick(2) == 0);
        }
        break;
      case 15:
        REQUIRE(env.clock.Advance(absl::Seconds(pick(20))).ok());
        break;
    }
    if (pick(3) == 0) {
      INFO("seed " << seed << " step " << step);
      env.Read();
    }
  }
  env.Read();
}

TEST_CASE(
    "fake cluster mirror: reads equal a snapshot built from scratch "
    "after random calls",
    "[fake-mirror]") {
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    FakeClusterOptions options;
    options.placement = seed % 2 == 0
                            ? FakeClusterOptions::Placement::kKubeScheduler
                            : FakeClusterOptions::Placement::kFirstNode;
    options.remove_terminated_pods = seed % 3 != 0;
    RunRandomCalls(seed, options);
  }
}

}  // namespace
}  // namespace karpenter::testing
