// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/testing/fake_cluster.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "karpenter/budget/pdb.h"
#include "karpenter/testing/builders.h"
#include "karpenter/testing/fake_clock.h"
#include "kit_test_util.h"

// The builders below take designated initializers that omit fields; GCC 12
// warns about every omitted member even though each has a default.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace Catch {
template <>
struct StringMaker<karpenter::testing::PdbCounts> {
  static std::string convert(const karpenter::testing::PdbCounts& c) {
    return absl::StrCat("{expected ", c.expected_pods, ", healthy ",
                        c.current_healthy, ", desired ", c.desired_healthy,
                        ", allowed ", c.disruptions_allowed, "}");
  }
};
}  // namespace Catch

namespace karpenter::testing {
namespace {

constexpr absl::Time kT0 = kTestEpoch;  // 2024-01-01Z

// --- Object builders (on karpenter/testing/builders.h). --------------------

v1::Node Node(const std::string& name) { return MakeNode({.name = name}); }

struct PodSpec {
  std::string app = "web";
  std::string node = "n1";
  // Controller kind ("" for a bare pod); the controller is named after app.
  std::string owner = "ReplicaSet";
  bool ready = true;
  std::string phase = "Running";
  std::optional<int64_t> grace = 30;
};

v1::Pod Pod(const std::string& name, const PodSpec& s = {}) {
  return MakePod({.name = name,
                  .app = s.app,
                  .node = s.node,
                  .phase = s.phase,
                  .owner = s.owner,
                  .grace = s.grace,
                  .ready = s.ready ? "True" : "False"});
}

// `amount`: "2" is a number, "50%" a string. `field` is "min" or "max".
v1::PodDisruptionBudget Pdb(const std::string& name, const std::string& app,
                            const std::string& field, const std::string& amount,
                            const std::string& policy = "") {
  return MakePdb({.name = name,
                  .selector = Labels{{"app", app}},
                  .min_available = field == "min" ? amount : "",
                  .max_unavailable = field == "min" ? "" : amount,
                  .unhealthy_pod_eviction_policy = policy});
}

PodRef Ref(const std::string& name, const std::string& uid = "") {
  return PodRef{"default", name, uid.empty() ? "uid-" + name : uid};
}

// A fake over `objects` with its own clock at kT0.
struct Env : kit_test::FakeClusterEnv {
  using FakeClusterEnv::FakeClusterEnv;
  int Evict(const std::string& name, const std::string& uid = "") {
    return cluster->Evict(Ref(name, uid)).http_status;
  }
  PdbCounts Status(const std::string& pdb) {
    auto s = cluster->PdbStatus("default", pdb);
    REQUIRE(s.ok());
    return *s;
  }
  snapshot::Snapshot Read() {
    auto s = cluster->Read();
    REQUIRE(s.ok());
    return *std::move(s);
  }
};

// Three ReplicaSet pods of app "web" on n1, spare nodes n2 and n3.
snapshot::ObjectSet ThreeWebPods() {
  snapshot::ObjectSet o;
  o.nodes = {Node("n1"), Node("n2"), Node("n3")};
  o.pods = {Pod("a"), Pod("b"), Pod("c")};
  return o;
}

std::optional<v1::Pod> FindPod(const snapshot::Snapshot& s,
                               const std::string& name) {
  auto p = s.FindPod("default", name);
  if (!p) return std::nullopt;
  return s.DecodePod(*p);
}

// --- Eviction responses.
// -------------------------------------------------------

TEST_CASE("fake cluster: eviction response codes", "[fake-cluster]") {
  snapshot::ObjectSet o = ThreeWebPods();
  o.pods.push_back(Pod("lone", {.app = "lone"}));
  o.pods.push_back(Pod("twice", {.app = "twice"}));
  o.pdbs = {Pdb("web", "web", "min", "3"), Pdb("twice-1", "twice", "max", "1"),
            Pdb("twice-2", "twice", "min", "0")};
  Env env(std::move(o));
  struct Row {
    std::string pod, uid;
    int status;
    EvictionResult result;
  };
  const std::vector<Row> rows = {
      {"missing", "", 404, EvictionResult::kNotFound},
      {"lone", "uid-other", 409, EvictionResult::kConflict},
      {"twice", "", 500, EvictionResult::kMisconfigured},
      {"a", "", 429, EvictionResult::kBlockedByPdb},
      // eviction.go checks the UID in the final delete: a blocked pod with a
      // stale UID still answers 429.
      {"b", "uid-other", 429, EvictionResult::kBlockedByPdb},
      {"lone", "", 200, EvictionResult::kEvicted},
  };
  for (const Row& row : rows) {
    CAPTURE(row.pod, row.uid);
    const EvictionResponse r = env.cluster->Evict(Ref(row.pod, row.uid));
    CHECK(r.http_status == row.status);
    CHECK(r.result == row.result);
    CHECK(ClassifyEvictionStatus(r.http_status, r.message) == row.result);
  }
  CHECK(env.cluster->Evict(Ref("missing")).message ==
        "pods \"missing\" not found");
  CHECK(env.cluster->Evict(Ref("a")).message ==
        "Cannot evict pod as it would violate the pod's disruption budget.");
  CHECK(env.cluster->Evict(Ref("lone", "x")).message ==
        "Operation cannot be fulfilled on Pod \"lone\": the UID in the "
        "precondition (x) does not match the UID in record (uid-lone). The "
        "object might have been deleted and then recreated");
  CHECK(env.cluster->evict_calls() == 9);
  CHECK(env.cluster->EvictCount(EvictionResult::kBlockedByPdb) == 3);
  CHECK(env.cluster->EvictCount(EvictionResult::kEvicted) == 1);
  CHECK(env.cluster->EvictCount(EvictionResult::kOtherError) == 0);
}

TEST_CASE("fake cluster: NodeOfPod names the bound pod's existing node",
          "[fake-cluster]") {
  snapshot::ObjectSet o = ThreeWebPods();
  o.pods.push_back(Pod("pending", {.app = "lone", .node = ""}));
  o.pods.push_back(Pod("orphan", {.app = "lone", .node = "gone"}));
  Env env(std::move(o));
  CHECK(env.cluster->NodeOfPod(Ref("a")) == "n1");
  // By namespace and name: the UID is not compared.
  CHECK(env.cluster->NodeOfPod(Ref("a", "uid-other")) == "n1");
  CHECK(env.cluster->NodeOfPod(PodRef{"other", "a", ""}).empty());
  CHECK(env.cluster->NodeOfPod(Ref("missing")).empty());
  CHECK(env.cluster->NodeOfPod(Ref("pending")).empty());
  CHECK(env.cluster->NodeOfPod(Ref("orphan")).empty());
  // An evicted pod stays bound while it terminates.
  REQUIRE(env.Evict("a") == 200);
  CHECK(env.cluster->NodeOfPod(Ref("a")) == "n1");
}

TEST_CASE("fake cluster: a pod under two PDBs gets the multiple-PDB 500",
          "[fake-cluster]") {
  snapshot::ObjectSet o = ThreeWebPods();
  o.pdbs = {Pdb("p1", "web", "max", "3"), Pdb("p2", "web", "min", "0")};
  Env env(std::move(o));
  const EvictionResponse r = env.cluster->Evict(Ref("a"));
  CHECK(r.http_status == 500);
  CHECK(r.result == EvictionResult::kMisconfigured);
  CHECK(r.message ==
        "This pod has more than one PodDisruptionBudget, which the eviction "
        "subresource does not support.");
  CHECK(r.message == kMultiplePdbMessage);
  // Refused although each PDB alone would allow it.
  CHECK(env.Evict("b") == 500);
}

// --- PDB arithmetic.
// -------------------------------------------------------------

TEST_CASE("fake cluster: maxUnavailable 1 allows one unavailable pod",
          "[fake-cluster]") {
  snapshot::ObjectSet o = ThreeWebPods();
  o.pdbs = {Pdb("web", "web", "max", "1")};
  Env env(std::move(o));
  CHECK(env.Status("web") == PdbCounts{3, 3, 2, 1});
  CHECK(env.Evict("a") == 200);
  CHECK(env.Status("web") == PdbCounts{3, 2, 2, 0});
  CHECK(env.Evict("b") == 429);
  env.RunTo(absl::Seconds(5));  // The replacement exists but is not Ready.
  CHECK(env.Read().pod_count() == 4);
  CHECK(env.Status("web") == PdbCounts{3, 2, 2, 0});
  CHECK(env.Evict("b") == 429);
  env.RunTo(absl::Seconds(15) - absl::Nanoseconds(1));
  CHECK(env.Evict("b") == 429);
  env.RunTo(absl::Seconds(15));  // Ready.
  CHECK(env.Status("web") == PdbCounts{3, 3, 2, 1});
  CHECK(env.Evict("b") == 200);
  CHECK(env.Evict("c") == 429);
  CHECK(env.cluster->PdbViolations().empty());
}

TEST_CASE("fake cluster: minAvailable counts the selected pods",
          "[fake-cluster]") {
  snapshot::ObjectSet o = ThreeWebPods();
  o.pdbs = {Pdb("web", "web", "min", "2")};
  Env env(std::move(o));
  CHECK(env.Evict("a") == 200);
  // The terminating pod is still selected: expected 3, healthy 2.
  CHECK(env.Status("web") == PdbCounts{3, 2, 2, 0});
  CHECK(env.Evict("b") == 429);
  env.RunTo(absl::Seconds(5));
  CHECK(env.Status("web") == PdbCounts{4, 2, 2, 0});
  env.RunTo(absl::Seconds(15));
  CHECK(env.Status("web") == PdbCounts{4, 3, 2, 1});
  CHECK(env.Evict("b") == 200);
  // b's replacement exists from 20 s and is Ready at 30 s, when a (30 s
  // grace) is gone.
  env.RunTo(absl::Seconds(29));
  CHECK(env.Status("web") == PdbCounts{5, 2, 2, 0});
  env.RunTo(absl::Seconds(30));
  CHECK(env.Status("web") == PdbCounts{4, 3, 2, 1});
}

TEST_CASE("fake cluster: percentages round up", "[fake-cluster]") {
  struct Row {
    int pods;
    std::string field, amount;
    PdbCounts counts;
    int evictions_allowed;
  };
  const std::vector<Row> rows = {
      {4, "min", "50%", {4, 4, 2, 2}, 2},
      {5, "min", "50%", {5, 5, 3, 2}, 2},  // ceil(2.5) = 3 must stay.
      {5, "max", "30%", {5, 5, 3, 2}, 2},  // ceil(1.5) = 2 may go.
      {10, "max", "25%", {10, 10, 7, 3}, 3},
      {3, "max", "1%", {3, 3, 2, 1}, 1},
      {3, "min", "100%", {3, 3, 3, 0}, 0},
      {3, "max", "0%", {3, 3, 3, 0}, 0},
  };
  for (const Row& row : rows) {
    CAPTURE(row.pods, row.field, row.amount);
    snapshot::ObjectSet o;
    o.nodes = {Node("n1"), Node("n2")};
    for (int i = 0; i < row.pods; ++i)
      o.pods.push_back(Pod(absl::StrCat("p", i)));
    o.pdbs = {Pdb("web", "web", row.field, row.amount)};
    Env env(std::move(o));
    CHECK(env.Status("web") == row.counts);
    int evicted = 0;
    for (int i = 0; i < row.pods; ++i) {
      if (env.Evict(absl::StrCat("p", i)) == 200) ++evicted;
    }
    CHECK(evicted == row.evictions_allowed);
    CHECK(env.cluster->PdbViolations().empty());
  }
}

TEST_CASE("fake cluster: unready pods follow unhealthyPodEvictionPolicy",
          "[fake-cluster]") {
  struct Row {
    std::string name, policy, amount;
    int unready;  // How many of the 4 pods are unready (the first ones).
    int status;   // Evicting the first (unready) pod.
    int64_t allowed_after;
  };
  const std::vector<Row> rows = {
      // IfHealthyBudget: healthy 3 >= desired 2 > 0, so the unready pod goes
      // and the budget keeps its one disruption.
      {"budget met", "", "2", 1, 200, 1},
      {"budget met explicit", "IfHealthyBudget", "2", 1, 200, 1},
      // healthy 2 < desired 3: nothing allowed.
      {"budget not met", "", "3", 2, 429, 0},
      {"always allow", "AlwaysAllow", "3", 2, 200, 0},
  };
  for (const Row& row : rows) {
    CAPTURE(row.name);
    snapshot::ObjectSet o;
    o.nodes = {Node("n1"), Node("n2")};
    for (int i = 0; i < 4; ++i) {
      o.pods.push_back(Pod(absl::StrCat("p", i), {.ready = i >= row.unready}));
    }
    o.pdbs = {Pdb("web", "web", "min", row.amount, row.policy)};
    Env env(std::move(o));
    CHECK(env.Evict("p0") == row.status);
    CHECK(env.Status("web").disruptions_allowed == row.allowed_after);
  }
}

TEST_CASE("fake cluster: pending and terminating pods skip the PDB",
          "[fake-cluster]") {
  snapshot::ObjectSet o = ThreeWebPods();
  o.pods.push_back(Pod("pending", {.ready = false, .phase = "Pending"}));
  o.pdbs = {Pdb("web", "web", "max", "0")};
  Env env(std::move(o));
  CHECK(env.Evict("a") == 429);
  CHECK(env.Evict("pending") == 200);  // canIgnorePDB: Pending.
  REQUIRE(env.cluster->DeletePod(Ref("a"), absl::Seconds(60)).ok());
  CHECK(env.Evict("a") == 200);  // canIgnorePDB: terminating.
  // Its 30 s grace moves the deletion earlier than DeletePod's 60 s.
  const snapshot::Snapshot s = env.Read();
  CHECK(FindPod(s, "a")->metadata().deletion_timestamp().seconds() ==
        absl::ToUnixSeconds(kT0) + 30);
}

// --- Time: termination, replacement, readiness.
// -------------------------------

TEST_CASE("fake cluster: an evicted pod terminates after its grace period",
          "[fake-cluster]") {
  snapshot::ObjectSet o;
  o.nodes = {Node("n1")};
  o.pods = {Pod("a", {.owner = "", .grace = 20}),
            Pod("b", {.owner = "", .grace = std::nullopt})};
  Env env(std::move(o));
  CHECK(env.Evict("a") == 200);
  CHECK(env.Evict("b") == 200);
  {
    const snapshot::Snapshot s = env.Read();
    const v1::Pod a = *FindPod(s, "a");
    CHECK(a.metadata().deletion_timestamp().seconds() ==
          absl::ToUnixSeconds(kT0) + 20);
    CHECK(a.metadata().deletion_grace_period_seconds() == 20);
    bool disruption_target = false;
    for (const v1::Condition& c : a.status().conditions()) {
      if (c.type() == "DisruptionTarget" && c.status() == "True" &&
          c.reason() == "EvictionByEvictionAPI") {
        disruption_target = true;
      }
    }
    CHECK(disruption_target);
    CHECK(FindPod(s, "b")->metadata().deletion_grace_period_seconds() == 30);
  }
  CHECK(env.cluster->NextEventTime() == kT0 + absl::Seconds(20));
  env.RunTo(absl::Seconds(19));
  CHECK(FindPod(env.Read(), "a").has_value());
  env.RunTo(absl::Seconds(20));
  CHECK(!FindPod(env.Read(), "a").has_value());
  CHECK(env.Evict("a") == 404);
  env.RunTo(absl::Seconds(30));
  CHECK(env.Read().pod_count() == 0);  // Bare pods are not replaced.
  CHECK(env.cluster->NextEventTime() == std::nullopt);
}

TEST_CASE("fake cluster: stuck pods stay when removal is off",
          "[fake-cluster]") {
  FakeClusterOptions options;
  options.remove_terminated_pods = false;
  Env env(ThreeWebPods(), options);
  CHECK(env.Evict("a") == 200);
  env.RunTo(absl::Hours(1));
  const snapshot::Snapshot s = env.Read();
  REQUIRE(FindPod(s, "a").has_value());
  CHECK(FindPod(s, "a")->metadata().has_deletion_timestamp());
  CHECK(s.pod_count() == 4);  // And its replacement.
}

TEST_CASE("fake cluster: replacements follow the configured delays",
          "[fake-cluster]") {
  FakeClusterOptions options;
  options.recreate_delay = absl::Seconds(2);
  options.ready_delay = absl::Seconds(3);
  Env env(ThreeWebPods(), options);
  CHECK(env.Evict("a") == 200);
  env.RunTo(absl::Seconds(2) - absl::Nanoseconds(1));
  CHECK(env.Read().pod_count() == 3);
  env.RunTo(absl::Seconds(2));
  {
    const snapshot::Snapshot s = env.Read();
    REQUIRE(s.pod_count() == 4);
    const v1::Pod& r = s.DecodePod(3);
    CHECK(r.metadata().name() == "a-r1");
    CHECK(r.metadata().uid() == "fake-uid-1");
    CHECK(r.metadata().labels().at("app") == "web");
    CHECK(r.metadata().creation_timestamp().seconds() ==
          absl::ToUnixSeconds(kT0) + 2);
    CHECK_FALSE(r.metadata().has_deletion_timestamp());
    CHECK(r.spec().node_name() == "n2");
    CHECK(r.status().phase() == "Pending");
    CHECK_FALSE(budget::PodIsHealthy(r));
  }
  env.RunTo(absl::Seconds(5));
  const snapshot::Snapshot s = env.Read();
  const v1::Pod r = *FindPod(s, "a-r1");
  CHECK(r.status().phase() == "Running");
  CHECK(budget::PodIsHealthy(r));
  // Evicting the replacement makes another, with the same name base.
  CHECK(env.Evict("a-r1", r.metadata().uid()) == 200);
  env.RunTo(absl::Seconds(7));
  CHECK(FindPod(env.Read(), "a-r2").has_value());
}

TEST_CASE("fake cluster: the replacement node is chosen deterministically",
          "[fake-cluster]") {
  snapshot::ObjectSet o;
  o.nodes = {Node("n4"), Node("n1"), Node("n3"), Node("n2"), Node("n5")};
  o.nodes[2].mutable_spec()->set_unschedulable(true);  // n3
  *o.nodes[3].mutable_spec()->add_taints() =
      MakeTaint("karpenter.sh/disrupted", "", "NoSchedule");  // n2
  *o.nodes[0].mutable_spec()->add_taints() =
      MakeTaint("karpenter.sh/disrupted", "", "NoExecute");  // n4 ok
  o.pods = {Pod("a", {.node = "n1"}), Pod("b", {.node = "n4"}),
            Pod("ds", {.app = "ds", .node = "n1", .owner = "DaemonSet"}),
            Pod("bare", {.app = "bare", .node = "n1", .owner = ""})};
  Env env(std::move(o));
  for (const char* name : {"a", "b", "ds", "bare"})
    CHECK(env.Evict(name) == 200);
  env.RunTo(absl::Seconds(60));
  const snapshot::Snapshot s = env.Read();
  REQUIRE(s.pod_count() == 2);
  CHECK(s.DecodePod(0).metadata().name() == "a-r1");
  CHECK(s.DecodePod(0).spec().node_name() == "n4");  // Not n1 (source), n2, n3.
  CHECK(s.DecodePod(1).metadata().name() == "b-r2");
  CHECK(s.DecodePod(1).spec().node_name() == "n1");
  CHECK(s.nodes()[0].metadata().name() == "n1");  // Nodes by name.
}

TEST_CASE("fake cluster: a replacement with no eligible node stays Pending",
          "[fake-cluster]") {
  snapshot::ObjectSet o;
  o.nodes = {Node("n1")};
  o.pods = {Pod("a")};
  Env env(std::move(o));
  CHECK(env.Evict("a") == 200);
  env.RunTo(absl::Minutes(5));
  const snapshot::Snapshot s = env.Read();
  REQUIRE(s.pod_count() == 1);
  CHECK(s.DecodePod(0).spec().node_name().empty());
  CHECK(s.DecodePod(0).status().phase() == "Pending");
  CHECK(s.UnboundPods().size() == 1);
  // An unscheduled pod is deleted at once.
  CHECK(env.Evict("a-r1", s.DecodePod(0).metadata().uid()) == 200);
  CHECK(env.Read().pod_count() == 0);
}

// --- ClusterView mutations.
// ------------------------------------------------------

snapshot::ObjectSet NodesAndClaims() {
  snapshot::ObjectSet o = ThreeWebPods();
  o.node_claims.push_back(MakeNodeClaim({.name = "c1", .node_name = ""}));
  return o;
}

TEST_CASE("fake cluster: taints are idempotent and replace by key",
          "[fake-cluster]") {
  Env env(NodesAndClaims());
  const v1::Taint disrupted =
      MakeTaint("karpenter.sh/disrupted", "", "NoSchedule");
  REQUIRE(
      env.cluster->TaintNode("n1", MakeTaint("other", "x", "NoExecute")).ok());
  REQUIRE(env.cluster->TaintNode("n1", disrupted).ok());
  REQUIRE(env.cluster->TaintNode("n1", disrupted).ok());
  auto taints = [&] {
    const snapshot::Snapshot s = env.Read();
    std::vector<std::string> out;
    for (const v1::Taint& t : s.nodes()[*s.FindNode("n1")].spec().taints()) {
      out.push_back(absl::StrCat(t.key(), "=", t.value(), ":", t.effect()));
    }
    return out;
  };
  CHECK(taints() ==
        std::vector<std::string>{"other=x:NoExecute",
                                 "karpenter.sh/disrupted=:NoSchedule"});
  REQUIRE(
      env.cluster->TaintNode("n1", MakeTaint("other", "y", "NoSchedule")).ok());
  CHECK(taints() ==
        std::vector<std::string>{"karpenter.sh/disrupted=:NoSchedule",
                                 "other=y:NoSchedule"});
  CHECK(absl::IsNotFound(env.cluster->TaintNode("gone", disrupted)));
  CHECK(absl::IsInvalidArgument(
      env.cluster->TaintNode("n1", MakeTaint("k", "", "NoWhere"))));
  CHECK(absl::IsInvalidArgument(
      env.cluster->TaintNode("n1", MakeTaint("", "", "NoSchedule"))));
}

TEST_CASE("fake cluster: finalizers and deletion are idempotent",
          "[fake-cluster]") {
  Env env(NodesAndClaims());
  for (ObjectKind kind : {ObjectKind::kNode, ObjectKind::kNodeClaim}) {
    const std::string name = kind == ObjectKind::kNode ? "n2" : "c1";
    CAPTURE(ObjectKindName(kind));
    auto meta = [&]() -> std::optional<v1::ObjectMeta> {
      const snapshot::Snapshot s = env.Read();
      if (kind == ObjectKind::kNode) {
        auto n = s.FindNode(name);
        if (n) return s.nodes()[*n].metadata();
      } else {
        auto c = s.FindNodeClaim(name);
        if (c) return s.node_claims()[*c].metadata();
      }
      return std::nullopt;
    };
    auto del = [&] {
      return kind == ObjectKind::kNode ? env.cluster->DeleteNode(name)
                                       : env.cluster->DeleteNodeClaim(name);
    };
    const std::string f = "karpenter.sh/termination";
    REQUIRE(env.cluster->AddFinalizer(kind, name, f).ok());
    REQUIRE(env.cluster->AddFinalizer(kind, name, f).ok());
    REQUIRE(env.cluster->AddFinalizer(kind, name, "other").ok());
    CHECK(meta()->finalizers_size() == 2);
    REQUIRE(del().ok());
    REQUIRE(del().ok());  // Deleting a deleting object changes nothing.
    REQUIRE(meta().has_value());
    CHECK(meta()->deletion_timestamp().seconds() == absl::ToUnixSeconds(kT0));
    // No new finalizers on a deleting object; an existing one is fine.
    CHECK(absl::IsFailedPrecondition(
        env.cluster->AddFinalizer(kind, name, "late")));
    CHECK(env.cluster->AddFinalizer(kind, name, f).ok());
    REQUIRE(env.cluster->RemoveFinalizer(kind, name, "other").ok());
    REQUIRE(env.cluster->RemoveFinalizer(kind, name, "other").ok());
    CHECK(meta().has_value());
    REQUIRE(env.cluster->RemoveFinalizer(kind, name, f).ok());
    CHECK_FALSE(meta().has_value());  // Last finalizer gone: object gone.
    CHECK(absl::IsNotFound(env.cluster->RemoveFinalizer(kind, name, f)));
    CHECK(absl::IsNotFound(del()));
    CHECK(absl::IsNotFound(env.cluster->AddFinalizer(kind, name, f)));
    CHECK(absl::IsInvalidArgument(env.cluster->AddFinalizer(kind, name, "")));
  }
  // Without finalizers a delete removes at once.
  REQUIRE(env.cluster->DeleteNode("n3").ok());
  CHECK_FALSE(env.Read().FindNode("n3").has_value());
  CHECK(absl::IsNotFound(env.cluster->DeleteNode("n3")));
}

TEST_CASE("fake cluster: labels, annotations and conditions",
          "[fake-cluster]") {
  Env env(NodesAndClaims());
  REQUIRE(env.cluster
              ->SetLabel(ObjectKind::kNode, "n1",
                         "node.kubernetes.io/exclude-from-external-load-"
                         "balancers",
                         "karpenter")
              .ok());
  REQUIRE(env.cluster
              ->SetAnnotation(ObjectKind::kNodeClaim, "c1",
                              "karpenter.sh/nodeclaim-termination-timestamp",
                              "2024-01-01T00:05:00Z")
              .ok());
  CHECK(absl::IsNotFound(
      env.cluster->SetLabel(ObjectKind::kNodeClaim, "gone", "k", "v")));
  CHECK(absl::IsInvalidArgument(
      env.cluster->SetAnnotation(ObjectKind::kNode, "n1", "", "v")));

  v1::Condition drained;
  drained.set_type("Drained");
  drained.set_status("Unknown");
  drained.set_reason("Draining");
  REQUIRE(env.cluster->SetNodeClaimCondition("c1", drained).ok());
  REQUIRE(env.clock.Advance(absl::Seconds(3)).ok());
  drained.set_message("still draining");
  REQUIRE(env.cluster->SetNodeClaimCondition("c1", drained).ok());
  auto condition = [&] {
    const snapshot::Snapshot s = env.Read();
    const v1::NodeClaim& c = s.node_claims()[*s.FindNodeClaim("c1")];
    REQUIRE(c.status().conditions_size() == 1);
    return c.status().conditions(0);
  };
  // Same status: the transition time stays, the message updates.
  CHECK(condition().last_transition_time().seconds() ==
        absl::ToUnixSeconds(kT0));
  CHECK(condition().message() == "still draining");
  REQUIRE(env.clock.Advance(absl::Seconds(2)).ok());
  drained.set_status("True");
  drained.set_reason("Drained");
  REQUIRE(env.cluster->SetNodeClaimCondition("c1", drained).ok());
  CHECK(condition().last_transition_time().seconds() ==
        absl::ToUnixSeconds(kT0) + 5);
  CHECK(condition().status() == "True");
  CHECK(absl::IsNotFound(env.cluster->SetNodeClaimCondition("c9", drained)));
  drained.set_status("Maybe");
  CHECK(absl::IsInvalidArgument(
      env.cluster->SetNodeClaimCondition("c1", drained)));

  const snapshot::Snapshot s = env.Read();
  CHECK(s.nodes()[*s.FindNode("n1")].metadata().labels().at(
            "node.kubernetes.io/exclude-from-external-load-balancers") ==
        "karpenter");
  CHECK(s.node_claims()[0].metadata().annotations().at(
            "karpenter.sh/nodeclaim-termination-timestamp") ==
        "2024-01-01T00:05:00Z");
}

TEST_CASE("fake cluster: DeletePod bypasses PDBs with a UID precondition",
          "[fake-cluster]") {
  snapshot::ObjectSet o = ThreeWebPods();
  o.pdbs = {Pdb("web", "web", "max", "0")};
  Env env(std::move(o));
  CHECK(absl::IsFailedPrecondition(
      env.cluster->DeletePod(Ref("a", "stale"), absl::Seconds(10))));
  CHECK(absl::IsNotFound(env.cluster->DeletePod(Ref("zz"), absl::Seconds(10))));
  for (absl::Duration bad : {absl::Seconds(-1), absl::Milliseconds(1500),
                             absl::InfiniteDuration()}) {
    CAPTURE(absl::FormatDuration(bad));
    CHECK(absl::IsInvalidArgument(env.cluster->DeletePod(Ref("a"), bad)));
  }
  REQUIRE(env.cluster->DeletePod(Ref("a"), absl::Seconds(10)).ok());
  // A later, longer grace does not move the deletion; a shorter one does.
  REQUIRE(env.cluster->DeletePod(Ref("a"), absl::Seconds(100)).ok());
  REQUIRE(env.cluster->DeletePod(Ref("a"), absl::Seconds(4)).ok());
  CHECK(FindPod(env.Read(), "a")->metadata().deletion_timestamp().seconds() ==
        absl::ToUnixSeconds(kT0) + 4);
  // Grace 0 removes the pod from the API at once.
  REQUIRE(env.cluster->DeletePod(Ref("b"), absl::ZeroDuration()).ok());
  CHECK(!FindPod(env.Read(), "b").has_value());
  env.RunTo(absl::Seconds(4));
  CHECK(!FindPod(env.Read(), "a").has_value());
  CHECK(absl::IsNotFound(env.cluster->DeletePod(Ref("a"), absl::Seconds(1))));
  env.RunTo(absl::Seconds(5));  // Both were replaced.
  CHECK(env.Read().pod_count() == 3);
  CHECK(env.cluster->PdbViolations().empty());  // Only evictions count.
}

TEST_CASE("fake cluster: a removed node takes its pods with it",
          "[fake-cluster]") {
  snapshot::ObjectSet o = ThreeWebPods();
  o.pods.push_back(Pod("ds", {.app = "ds", .owner = "DaemonSet"}));
  o.pods.push_back(Pod("elsewhere", {.app = "x", .node = "n3"}));
  Env env(std::move(o));
  REQUIRE(env.cluster->AddFinalizer(ObjectKind::kNode, "n1", "f").ok());
  REQUIRE(env.cluster->DeleteNode("n1").ok());
  CHECK(env.Read().pod_count() == 5);  // Still held by the finalizer.
  REQUIRE(env.cluster->RemoveFinalizer(ObjectKind::kNode, "n1", "f").ok());
  CHECK(env.Read().pod_count() == 1);
  env.RunTo(absl::Seconds(5));
  const snapshot::Snapshot s = env.Read();
  REQUIRE(s.pod_count() == 4);  // Three web replacements, no DaemonSet pod.
  for (snapshot::PodIndex p = 1; p < 4; ++p)
    CHECK(s.DecodePod(p).spec().node_name() == "n2");
}

TEST_CASE("fake cluster: AddPod joins PDBs and controllers", "[fake-cluster]") {
  snapshot::ObjectSet o = ThreeWebPods();
  o.pdbs = {Pdb("web", "web", "max", "1")};
  Env env(std::move(o));
  REQUIRE(env.cluster->AddPod(Pod("d", {.node = "n2"})).ok());
  CHECK(env.Status("web") == PdbCounts{4, 4, 3, 1});
  CHECK(absl::IsAlreadyExists(env.cluster->AddPod(Pod("d"))));
  v1::Pod nameless = Pod("x");
  nameless.mutable_metadata()->clear_name();
  CHECK(absl::IsInvalidArgument(env.cluster->AddPod(nameless)));
}

// --- Faults and observation.
// -------------------------------------------------------

TEST_CASE("fake cluster: scripted eviction failures", "[fake-cluster]") {
  Env env(ThreeWebPods());
  const EvictionResponse outage{EvictionResult::kOtherError, 503,
                                "service unavailable"};
  REQUIRE(env.cluster->InjectEvictionFailures(2, outage).ok());
  CHECK(env.cluster->Evict(Ref("a")).http_status == 503);
  CHECK(env.cluster->Evict(Ref("a")).message == "service unavailable");
  CHECK(FindPod(env.Read(), "a")->metadata().has_deletion_timestamp() == false);
  CHECK(env.Evict("a") == 200);
  // A lost reply: the eviction happened, the caller saw a timeout.
  REQUIRE(env.cluster
              ->InjectEvictionFailures(
                  1, {EvictionResult::kOtherError, 0, "timeout"},
                  FaultTiming::kAfterCall)
              .ok());
  CHECK(env.Evict("b") == 0);
  CHECK(FindPod(env.Read(), "b")->metadata().has_deletion_timestamp());
  CHECK(env.cluster->EvictCount(EvictionResult::kOtherError) == 3);
  CHECK(env.cluster->EvictCount(EvictionResult::kEvicted) == 1);
  CHECK(env.cluster->evict_calls() == 4);
  CHECK(
      absl::IsInvalidArgument(env.cluster->InjectEvictionFailures(0, outage)));
  CHECK(absl::IsInvalidArgument(env.cluster->InjectEvictionFailures(
      1, {EvictionResult::kEvicted, 200, ""})));
}

TEST_CASE("fake cluster: scripted method failures", "[fake-cluster]") {
  Env env(NodesAndClaims());
  const v1::Taint t = MakeTaint("karpenter.sh/disrupted", "", "NoSchedule");
  REQUIRE(env.cluster
              ->FailNext(FakeMethod::kTaintNode,
                         absl::UnavailableError("apiserver down"), 2)
              .ok());
  CHECK(absl::IsUnavailable(env.cluster->TaintNode("n1", t)));
  CHECK(absl::IsUnavailable(env.cluster->TaintNode("n1", t)));
  CHECK(env.Read().nodes()[0].spec().taints_size() == 0);
  CHECK(env.cluster->TaintNode("n1", t).ok());
  REQUIRE(env.cluster
              ->FailNext(FakeMethod::kDeleteNode,
                         absl::DeadlineExceededError("timeout"), 1,
                         FaultTiming::kAfterCall)
              .ok());
  CHECK(absl::IsDeadlineExceeded(env.cluster->DeleteNode("n3")));
  CHECK_FALSE(env.Read().FindNode("n3").has_value());      // It did happen.
  CHECK(absl::IsNotFound(env.cluster->DeleteNode("n3")));  // Retry: done.
  REQUIRE(env.cluster->FailNext(FakeMethod::kRead, absl::UnavailableError("x"))
              .ok());
  CHECK(absl::IsUnavailable(env.cluster->Read().status()));
  CHECK(env.cluster->Read().ok());
  CHECK(absl::IsInvalidArgument(
      env.cluster->FailNext(FakeMethod::kRead, absl::OkStatus())));
  CHECK(absl::IsInvalidArgument(env.cluster->FailNext(
      FakeMethod::kRead, absl::UnavailableError("x"), 0)));
}

TEST_CASE("fake cluster: Read reflects mutations and live PDB status",
          "[fake-cluster]") {
  snapshot::ObjectSet o = NodesAndClaims();
  o.pdbs = {Pdb("web", "web", "max", "1")};
  Env env(std::move(o));
  REQUIRE(env.Evict("a") == 200);
  REQUIRE(env.cluster->TaintNode("n1", MakeTaint("k", "v", "NoSchedule")).ok());
  const snapshot::Snapshot s = env.Read();
  CHECK(FindPod(s, "a")->metadata().has_deletion_timestamp());
  CHECK(s.nodes()[0].spec().taints_size() == 1);
  REQUIRE(s.pdbs().size() == 1);
  const v1::PodDisruptionBudgetStatus& st = s.pdbs()[0].status();
  CHECK(st.expected_pods() == 3);
  CHECK(st.current_healthy() == 2);
  CHECK(st.desired_healthy() == 2);
  CHECK(st.disruptions_allowed() == 0);
  CHECK(st.observed_generation() == 1);
  // The SDK's own PDB index reads the same verdict from the snapshot.
  const budget::PdbIndex index = budget::PdbIndex::Build(s);
  CHECK(index.pdbs()[0].from_status);
  CHECK(index.CanEvict(s, *s.FindPod("default", "b"), true).blocked());
}

TEST_CASE("fake cluster: the call log is deterministic", "[fake-cluster]") {
  auto run = [] {
    snapshot::ObjectSet o = ThreeWebPods();
    o.pdbs = {Pdb("web", "web", "max", "1")};
    Env env(std::move(o));
    env.Evict("a");
    env.Evict("b");
    env.RunTo(absl::Seconds(15));
    (void)env.cluster->DeletePod(Ref("c"), absl::Seconds(1));
    return env.cluster->CallLog();
  };
  const std::vector<std::string> log = run();
  CHECK(log == run());
  REQUIRE(log.size() == 5);
  CHECK(log[0] ==
        "2024-01-01T00:00:00Z Evict default/a uid=uid-a -> 200 "
        "(pdb default/web: healthy 3, desired 2, allowed 1)");
  CHECK(log[1] ==
        "2024-01-01T00:00:00Z Evict default/b uid=uid-b -> 429 "
        "(pdb default/web: healthy 2, desired 2, allowed 0)");
  CHECK(log[2] ==
        "2024-01-01T00:00:05Z recreate default/a -> default/a-r1 "
        "on n2");
  CHECK(log[3] == "2024-01-01T00:00:15Z ready default/a-r1");
  CHECK(log[4] ==
        "2024-01-01T00:00:15Z DeletePod default/c uid=uid-c "
        "grace=1s -> OK");
}

TEST_CASE("fake cluster: Create and RunUntil reject bad input",
          "[fake-cluster]") {
  FakeClock clock(kT0);
  snapshot::ObjectSet dup = ThreeWebPods();
  dup.pods.push_back(Pod("a"));
  CHECK(absl::IsInvalidArgument(FakeCluster::Create(dup, clock).status()));
  snapshot::ObjectSet both = ThreeWebPods();
  both.pdbs = {Pdb("web", "web", "max", "1")};
  both.pdbs[0].mutable_spec()->mutable_min_available()->set_number_value(1);
  const absl::Status s = FakeCluster::Create(both, clock).status();
  CHECK(absl::IsInvalidArgument(s));
  CHECK(s.message().find("default/web") != absl::string_view::npos);
  FakeClusterOptions bad;
  bad.ready_delay = absl::Seconds(-1);
  CHECK(absl::IsInvalidArgument(
      FakeCluster::Create(ThreeWebPods(), clock, bad).status()));

  auto fake = FakeCluster::Create(ThreeWebPods(), clock);
  REQUIRE(fake.ok());
  FakeClock other(kT0);
  CHECK(absl::IsFailedPrecondition((*fake)->RunUntil(other, kT0)));
  REQUIRE(clock.Advance(absl::Seconds(1)).ok());
  CHECK(absl::IsInvalidArgument((*fake)->RunUntil(clock, kT0)));
}

// --- Scale and threads.
// -------------------------------------------------------------

// 20 nodes x 50 pods, 50 apps of 20 pods spread over all nodes, one
// maxUnavailable 1 PDB per app: the drain comparison's shape.
snapshot::ObjectSet FiftyApps() {
  snapshot::ObjectSet o;
  for (int n = 0; n < 20; ++n)
    o.nodes.push_back(Node(absl::StrFormat("n%02d", n)));
  for (int i = 0; i < 1000; ++i) {
    const std::string app = absl::StrCat("app", i % 50);
    o.pods.push_back(
        Pod(absl::StrCat("p", i),
            {.app = app, .node = absl::StrFormat("n%02d", i / 50)}));
  }
  for (int a = 0; a < 50; ++a) {
    const std::string app = absl::StrCat("app", a);
    o.pdbs.push_back(Pdb(app, app, "max", "1"));
  }
  return o;
}

TEST_CASE("fake cluster: draining five nodes under fifty PDBs keeps them whole",
          "[fake-cluster]") {
  FakeClusterOptions options;
  options.record_call_log = false;
  Env env(FiftyApps(), options);
  for (int n = 0; n < 5; ++n) {
    REQUIRE(
        env.cluster
            ->TaintNode(absl::StrFormat("n%02d", n),
                        MakeTaint("karpenter.sh/disrupted", "", "NoSchedule"))
            .ok());
  }
  int rounds = 0;
  for (;; ++rounds) {
    REQUIRE(rounds < 1000);
    const snapshot::Snapshot s = env.Read();
    int remaining = 0;
    for (snapshot::NodeIndex n = 0; n < 5; ++n) {
      for (snapshot::PodIndex p : s.PodsOnNode(n)) {
        const v1::Pod& pod = s.DecodePod(p);
        ++remaining;
        if (pod.metadata().has_deletion_timestamp()) continue;
        env.cluster->Evict(PodRef{pod.metadata().namespace_(),
                                  pod.metadata().name(), pod.metadata().uid()});
      }
    }
    if (remaining == 0) break;
    env.RunTo(absl::Seconds(rounds + 1));
  }
  const snapshot::Snapshot s = env.Read();
  CHECK(s.pod_count() == 1000);
  CHECK(env.cluster->PdbViolations().empty());
  CHECK(env.cluster->EvictCount(EvictionResult::kEvicted) == 250);
  CHECK(env.cluster->evict_calls() > 1000);
  for (const v1::PodDisruptionBudget& pdb : s.pdbs()) {
    CHECK(pdb.status().current_healthy() >= pdb.status().desired_healthy());
  }
  // Each of the 50 PDBs loses one pod at a time and waits 15 s (recreate +
  // ready) for it to come back, with 5 pods of each app to drain.
  CHECK(rounds >= 5 * 15);
}

TEST_CASE("fake cluster: concurrent evictions keep PDBs whole",
          "[fake-cluster][threads]") {
  Env env(FiftyApps());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = t; i < 1000; i += 4) env.Evict(absl::StrCat("p", i));
    });
  }
  for (std::thread& th : threads) th.join();
  CHECK(env.cluster->evict_calls() == 1000);
  // maxUnavailable 1 per app: exactly one eviction per PDB.
  CHECK(env.cluster->EvictCount(EvictionResult::kEvicted) == 50);
  CHECK(env.cluster->EvictCount(EvictionResult::kBlockedByPdb) == 950);
  CHECK(env.cluster->PdbViolations().empty());
}

}  // namespace
}  // namespace karpenter::testing
