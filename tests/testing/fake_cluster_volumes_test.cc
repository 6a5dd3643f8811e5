// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// FakeCluster's model of the attach/detach controller.

#include <catch2/catch.hpp>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/time/time.h"
#include "karpenter/termination/volumes.h"
#include "karpenter/testing/builders.h"
#include "karpenter/testing/fake_clock.h"
#include "karpenter/testing/fake_cluster.h"
#include "kit_test_util.h"

namespace karpenter::testing {
namespace {

constexpr absl::Time kT0 = kTestEpoch;  // 2024-01-01Z

v1::Node Node(const std::string& name) { return MakeNode({.name = name}); }

// A bare Running pod (no owner, no Ready condition, grace 20 s) mounting
// `claims`; "eph:<v>" is a generic ephemeral volume named <v>.
v1::Pod Pod(const std::string& name, const std::string& node,
            const std::vector<std::string>& claims,
            const std::string& ns = "default") {
  std::vector<std::string> pvcs;
  std::vector<std::string> ephemeral;
  for (const std::string& c : claims) {
    if (absl::StartsWith(c, "eph:")) {
      ephemeral.push_back(c.substr(4));
    } else {
      pvcs.push_back(c);
    }
  }
  return MakePod({.name = name,
                  .ns = ns,
                  .app = "",
                  .node = node,
                  .grace = 20,
                  .pvcs = pvcs,
                  .ephemeral_volumes = ephemeral,
                  .ready = ""});
}

v1::PersistentVolumeClaim Pvc(const std::string& ns, const std::string& name,
                              const std::string& pv) {
  return MakePersistentVolumeClaim({.name = name, .ns = ns, .volume_name = pv});
}

v1::VolumeAttachment Va(const std::string& name, const std::string& node,
                        std::optional<std::string> pv) {
  return MakeVolumeAttachment(
      {.name = name, .node = node, .persistent_volume = std::move(pv)});
}

struct Env : kit_test::FakeClusterEnv {
  using FakeClusterEnv::FakeClusterEnv;
  // The attachments Read() returns, by name.
  std::vector<std::string> Attached() {
    auto s = cluster->Read();
    REQUIRE(s.ok());
    std::vector<std::string> out;
    for (const v1::VolumeAttachment& va : s->volume_attachments()) {
      out.push_back(va.metadata().name());
    }
    return out;
  }
  absl::Status DeletePod(const std::string& name, absl::Duration grace) {
    return cluster->DeletePod({"default", name, "uid-" + name}, grace);
  }
  bool Logged(const std::string& line) {
    for (const std::string& l : cluster->CallLog()) {
      if (l == line) return true;
    }
    return false;
  }
};

using Names = std::vector<std::string>;

TEST_CASE("fake cluster volumes: detached a delay after the last pod goes",
          "[fake-cluster][volumes]") {
  snapshot::ObjectSet o;
  o.nodes = {Node("n1")};
  o.pods = {Pod("db-0", "n1", {"data"})};
  o.persistent_volume_claims = {Pvc("", "data", "pv-1")};
  o.volume_attachments = {Va("csi-unused", "n1", "pv-other"),
                          Va("csi-1", "n1", "pv-1"),
                          Va("csi-inline", "n1", std::nullopt)};
  Env env(std::move(o));
  // Unused attachments go volume_detach_delay (10 s) after the start.
  CHECK(env.cluster->NextEventTime() == kT0 + absl::Seconds(10));
  CHECK(env.Attached() == Names{"csi-1", "csi-inline", "csi-unused"});
  env.RunTo(absl::Seconds(10));
  CHECK(env.Attached() == Names{"csi-1"});
  CHECK(env.Logged("2024-01-01T00:00:10Z detach csi-inline from n1"));
  CHECK(env.Logged("2024-01-01T00:00:10Z detach csi-unused from n1"));
  CHECK(env.cluster->NextEventTime() == std::nullopt);
  // Read() returns the claims, namespace defaulted.
  {
    auto s = env.cluster->Read();
    REQUIRE(s.ok());
    CHECK(s->FindPersistentVolumeClaim("default", "data").has_value());
  }

  // Deleted with 20 s grace: terminating, still mounted until removed at
  // 30 s, then detached at 40 s.
  REQUIRE(env.DeletePod("db-0", absl::Seconds(20)).ok());
  CHECK(env.cluster->NextEventTime() == kT0 + absl::Seconds(30));
  env.RunTo(absl::Seconds(30));
  CHECK(env.Attached() == Names{"csi-1"});
  CHECK(env.cluster->NextEventTime() == kT0 + absl::Seconds(40));
  env.RunTo(absl::Seconds(39));
  {
    auto s = env.cluster->Read();
    REQUIRE(s.ok());
    auto pending =
        termination::PendingVolumeAttachments(*s, 0, env.clock.Now());
    REQUIRE(pending.ok());
    CHECK(pending->size() == 1);
  }
  env.RunTo(absl::Seconds(40));
  CHECK(env.Attached().empty());
  CHECK(env.Logged("2024-01-01T00:00:40Z detach csi-1 from n1"));
  auto s = env.cluster->Read();
  REQUIRE(s.ok());
  CHECK(termination::PendingVolumeAttachments(*s, 0, env.clock.Now())->empty());
}

TEST_CASE("fake cluster volumes: a new user stops the detach clock",
          "[fake-cluster][volumes]") {
  snapshot::ObjectSet o;
  o.nodes = {Node("n1")};
  o.pods = {Pod("a", "n1", {"data"})};
  o.persistent_volume_claims = {Pvc("default", "data", "pv-1")};
  o.volume_attachments = {Va("csi-1", "n1", "pv-1")};
  Env env(std::move(o));
  CHECK(env.cluster->NextEventTime() == std::nullopt);
  REQUIRE(env.DeletePod("a", absl::ZeroDuration()).ok());  // Gone at once.
  CHECK(env.cluster->NextEventTime() == kT0 + absl::Seconds(10));
  REQUIRE(env.clock.SetTime(kT0 + absl::Seconds(5)).ok());
  REQUIRE(env.cluster->AddPod(Pod("b", "n1", {"data"})).ok());
  env.RunTo(absl::Seconds(15));
  CHECK(env.Attached() == Names{"csi-1"});  // The 10 s event was stale.
  REQUIRE(env.DeletePod("b", absl::ZeroDuration()).ok());
  env.RunTo(absl::Seconds(24));
  CHECK(env.Attached() == Names{"csi-1"});
  env.RunTo(absl::Seconds(25));
  CHECK(env.Attached().empty());
}

TEST_CASE("fake cluster volumes: which pods hold an attachment",
          "[fake-cluster][volumes]") {
  snapshot::ObjectSet o;
  o.nodes = {Node("n1"), Node("n2")};
  v1::Pod done = Pod("done", "n1", {"a"});
  done.mutable_status()->set_phase("Succeeded");
  o.pods = {done,                               // Terminal: holds nothing.
            Pod("elsewhere", "n2", {"b"}),      // Other node.
            Pod("other-ns", "n1", {"c"}, "x"),  // x/c is another PV.
            Pod("eph", "n1", {"eph:scratch"}),  // Claim eph-scratch.
            Pod("missing", "n1", {"nope"})};    // No such claim.
  o.persistent_volume_claims = {
      Pvc("default", "a", "pv-a"), Pvc("default", "b", "pv-b"),
      Pvc("default", "c", "pv-c"), Pvc("x", "c", "pv-xc"),
      Pvc("default", "eph-scratch", "pv-eph")};
  o.volume_attachments = {
      Va("va-a", "n1", "pv-a"),     Va("va-b", "n1", "pv-b"),
      Va("va-c", "n1", "pv-c"),     Va("va-xc", "n1", "pv-xc"),
      Va("va-eph", "n1", "pv-eph"), Va("vb-n2", "n2", "pv-b")};
  Env env(std::move(o));
  env.RunTo(absl::Seconds(10));
  CHECK(env.Attached() == Names{"va-eph", "va-xc", "vb-n2"});
}

TEST_CASE("fake cluster volumes: a deleted node's attachments wait for unmount",
          "[fake-cluster][volumes]") {
  snapshot::ObjectSet o;
  o.nodes = {Node("n1")};
  o.pods = {Pod("a", "n1", {"data"})};
  o.persistent_volume_claims = {Pvc("default", "data", "pv-1")};
  o.volume_attachments = {Va("csi-1", "n1", "pv-1")};
  FakeClusterOptions options;
  options.volume_detach_delay = absl::Seconds(3);
  Env env(std::move(o), options);
  REQUIRE(env.clock.SetTime(kT0 + absl::Seconds(1)).ok());
  REQUIRE(env.cluster->DeleteNode("n1").ok());
  // The node and its pod are gone; the attachment outlives them by 3 s.
  CHECK(env.Attached() == Names{"csi-1"});
  CHECK(env.cluster->NextEventTime() == kT0 + absl::Seconds(4));
  env.RunTo(absl::Seconds(4));
  CHECK(env.Attached().empty());
  CHECK(env.Logged("2024-01-01T00:00:04Z detach csi-1 from n1"));
}

TEST_CASE("fake cluster volumes: AddVolumeAttachment and options",
          "[fake-cluster][volumes]") {
  snapshot::ObjectSet o;
  o.nodes = {Node("n1")};
  o.pods = {Pod("a", "n1", {"data"})};
  o.persistent_volume_claims = {Pvc("default", "data", "pv-1")};
  FakeClusterOptions options;
  options.volume_detach_delay = absl::ZeroDuration();
  Env env(std::move(o), options);
  REQUIRE(env.cluster->AddVolumeAttachment(Va("used", "n1", "pv-1")).ok());
  REQUIRE(env.cluster->AddVolumeAttachment(Va("unused", "n1", "pv-2")).ok());
  CHECK(env.cluster->NextEventTime() == kT0);
  CHECK(
      env.Logged("2024-01-01T00:00:00Z AddVolumeAttachment used on n1 -> OK"));
  CHECK(env.cluster->AddVolumeAttachment(Va("used", "n1", "pv-1")).code() ==
        absl::StatusCode::kAlreadyExists);
  CHECK(env.cluster->AddVolumeAttachment(Va("", "n1", "pv-1")).code() ==
        absl::StatusCode::kInvalidArgument);
  // Detached at once: a zero delay applies on the next call.
  CHECK(env.cluster->NextEventTime() == std::nullopt);
  CHECK(env.Attached() == Names{"used"});

  FakeClock clock(kT0);
  FakeClusterOptions bad;
  bad.volume_detach_delay = absl::Seconds(-1);
  auto created = FakeCluster::Create({}, clock, bad);
  CHECK(created.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(created.status().message() ==
        "FakeClusterOptions.volume_detach_delay: \"-1s\": must be finite and "
        ">= 0");
  snapshot::ObjectSet dup;
  dup.volume_attachments = {Va("x", "n1", "pv"), Va("x", "n2", "pv")};
  created = FakeCluster::Create(std::move(dup), clock);
  CHECK(created.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(absl::StrContains(created.status().message(),
                          "duplicate VolumeAttachment \"x\""));
}

TEST_CASE("fake cluster volumes: storage objects and DaemonSets are kept",
          "[fake-cluster][volumes]") {
  snapshot::ObjectSet o;
  o.nodes = {Node("n1")};
  o.persistent_volumes = {MakePersistentVolume({.name = "pv-1"})};
  o.storage_classes = {MakeStorageClass({.is_default = true})};
  o.csi_nodes = {MakeCSINode({.name = "n1"})};
  o.daemon_sets = {MakeDaemonSet({.name = "agent", .ns = ""})};
  Env env(std::move(o));
  env.RunTo(absl::Minutes(1));
  for (const bool with_pods : {true, false}) {
    INFO(with_pods);
    auto s = with_pods ? env.cluster->Read() : env.cluster->ReadWithoutPods();
    REQUIRE(s.ok());
    CHECK(s->FindPersistentVolume("pv-1").has_value());
    CHECK(s->DefaultStorageClass().has_value());
    CHECK(s->FindCSINode("n1").has_value());
    CHECK(s->FindDaemonSet("default", "agent").has_value());
  }
  // Invalid objects are refused as Snapshot::Build refuses them.
  snapshot::ObjectSet bad;
  bad.csi_nodes = {MakeCSINode({.allocatable = -1})};
  FakeClock clock{kT0};
  const auto refused = FakeCluster::Create(std::move(bad), clock);
  CHECK(refused.status().message() ==
        "csi_nodes[0] (CSINode node-a): spec.drivers[0].allocatable.count: "
        "expected a non-negative integer, got -1");
}

}  // namespace
}  // namespace karpenter::testing
