// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// End-to-end termination: FakeCluster + FakeCloudProvider + FakeClock driven
// by termination::Executor.

#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "e2e_util.h"
#include "karpenter/metrics.h"
#include "karpenter/time_util.h"

namespace karpenter::termination {
namespace {

using e2e::AddManagedNode;
using e2e::CountPrefix;
using e2e::FirstAt;
using e2e::Harness;
using e2e::kStart;
using e2e::MakePod;
using e2e::ParseLog;
using e2e::ProviderId;

// The victim node of the acceptance scenario: 12 pods across the four
// drain tiers, a PDB allowing one disruption, a do-not-disrupt pod and
// DaemonSet pods; TGP 10m on the NodeClaim. A spare node takes the
// replacements.
snapshot::ObjectSet TwelvePodNode() {
  snapshot::ObjectSet o;
  AddManagedNode(o, "victim", "10m");
  AddManagedNode(o, "spare");
  for (int i = 0; i < 5; ++i) {
    o.pods.push_back(MakePod(absl::StrCat("web-", i), {.app = "web"}));
  }
  o.pods.push_back(MakePod("batch-0", {.app = "batch"}));
  o.pods.push_back(MakePod("mirror", {.app = "static", .owner = "Node"}));
  o.pods.push_back(MakePod("ds-logs", {.app = "logs", .owner = "DaemonSet"}));
  o.pods.push_back(
      MakePod("ds-tolerant",
              {.app = "cni", .owner = "DaemonSet", .tolerate_all = true}));
  o.pods.push_back(MakePod(
      "crit-0", {.app = "dns", .priority_class = "system-cluster-critical"}));
  o.pods.push_back(
      MakePod("keeper", {.app = "keeper",
                         .priority_class = "system-cluster-critical",
                         .grace = 60,
                         .do_not_disrupt = true}));
  o.pods.push_back(
      MakePod("crit-ds", {.app = "proxy",
                          .owner = "DaemonSet",
                          .priority_class = "system-node-critical"}));
  o.pdbs.push_back(testing::MakePdb({.name = "web", .max_unavailable = "1"}));
  return o;
}

TEST_CASE("termination e2e: twelve pods across tiers, PDB, do-not-disrupt",
          "[termination][e2e]") {
  snapshot::ObjectSet objects = TwelvePodNode();
  REQUIRE(objects.pods.size() == 12);
  Harness h(std::move(objects));
  REQUIRE(h.cluster->DeleteNode("victim").ok());
  h.Run(kStart + absl::Hours(1));

  // The node and its NodeClaim are gone, and so is the instance; the spare
  // is untouched.
  CHECK_FALSE(h.NodeExists("victim"));
  CHECK_FALSE(h.ClaimExists("victim-claim"));
  CHECK_FALSE(h.cloud->Exists(ProviderId("victim")));
  CHECK(h.cloud->Exists(ProviderId("spare")));
  CHECK(h.NodeExists("spare"));
  CHECK(h.cluster->PdbViolations().empty());

  const std::vector<e2e::LogLine> log = ParseLog(h.cluster->CallLog());
  const absl::Time deadline = kStart + absl::Minutes(10);
  // Tainted and labelled at once.
  CHECK(FirstAt(log, "TaintNode victim") == kStart);
  CHECK(FirstAt(log, "SetLabel Node victim") == kStart);
  // Tier 1 (non-critical, not DaemonSet) first: every web and batch pod is
  // evicted, one web pod at a time under the PDB.
  absl::Time last_tier1_removed = absl::InfinitePast();
  for (const char* pod :
       {"web-0", "web-1", "web-2", "web-3", "web-4", "batch-0"}) {
    INFO(pod);
    CHECK(CountPrefix(log, absl::StrCat("Evict default/", pod, " uid=uid-", pod,
                                        " -> 200")) == 1);
    std::optional<absl::Time> removed =
        FirstAt(log, absl::StrCat("removed default/", pod));
    REQUIRE(removed.has_value());
    last_tier1_removed = std::max(last_tier1_removed, *removed);
  }
  // web pods: the PDB allows one at a time, so the evictions are spread.
  std::vector<absl::Time> web_evictions;
  for (const e2e::LogLine& l : log) {
    if (absl::StartsWith(l.text, "Evict default/web-") &&
        absl::StrContains(l.text, "-> 200")) {
      web_evictions.push_back(l.at);
    }
  }
  REQUIRE(web_evictions.size() == 5);
  CHECK(web_evictions.back() - web_evictions.front() >= absl::Seconds(40));
  CHECK(CountPrefix(log, "Evict default/web-") > 5);  // Some met a 429.
  // Tier 2 (DaemonSet) only after tier 1 is gone; tier 3 after tier 2.
  std::optional<absl::Time> ds_evicted = FirstAt(log, "Evict default/ds-logs");
  REQUIRE(ds_evicted.has_value());
  CHECK(*ds_evicted >= last_tier1_removed);
  std::optional<absl::Time> ds_removed =
      FirstAt(log, "removed default/ds-logs");
  REQUIRE(ds_removed.has_value());
  std::optional<absl::Time> crit_evicted = FirstAt(log, "Evict default/crit-0");
  REQUIRE(crit_evicted.has_value());
  CHECK(*crit_evicted >= *ds_removed);
  // The do-not-disrupt pod is never evicted: it is deleted with its full
  // 60 s grace just after T - 60 s, bypassing the annotation.
  CHECK(CountPrefix(log, "Evict default/keeper") == 0);
  std::optional<absl::Time> keeper_deleted =
      FirstAt(log, "DeletePod default/keeper");
  REQUIRE(keeper_deleted.has_value());
  CHECK(*keeper_deleted >= deadline - absl::Seconds(60));
  CHECK(*keeper_deleted <= deadline - absl::Seconds(59));
  // Once keeper is due for force-deletion it leaves the graceful tiers
  // (Karpenter HEAD splits force-delete pods off first), so tier 3 has no
  // graceful pod left and the critical DaemonSet pod of tier 4 is evicted
  // in the same pass, before its own force-delete instant (T - 30 s).
  CHECK(FirstAt(log, "Evict default/crit-ds uid=uid-crit-ds -> 200") ==
        *keeper_deleted);
  CHECK(CountPrefix(log, "DeletePod default/crit-ds") == 0);
  // Never touched: the mirror pod and the DaemonSet pod tolerating the
  // disrupted taint.
  CHECK(CountPrefix(log, "Evict default/mirror") == 0);
  CHECK(CountPrefix(log, "DeletePod default/mirror") == 0);
  CHECK(CountPrefix(log, "Evict default/ds-tolerant") == 0);
  // Conditions and the instance: Drained, then VolumesDetached, then the
  // cloud delete, then the finalizer.
  std::optional<absl::Time> drained =
      FirstAt(log, "SetNodeClaimCondition victim-claim Drained=True");
  std::optional<absl::Time> volumes =
      FirstAt(log, "SetNodeClaimCondition victim-claim VolumesDetached=True");
  std::optional<absl::Time> finalizer =
      FirstAt(log, "RemoveFinalizer Node victim");
  REQUIRE(drained.has_value());
  REQUIRE(volumes.has_value());
  REQUIRE(finalizer.has_value());
  CHECK(*drained >= deadline);  // keeper and crit-ds leave at T.
  CHECK(*volumes >= *drained + absl::Seconds(1));
  CHECK(*finalizer >= *volumes + absl::Seconds(10));  // Cloud latency.
  CHECK(*finalizer < deadline + absl::Minutes(1));
  const std::vector<std::string> cloud_log = h.cloud->CallLog();
  CHECK(std::count_if(
            cloud_log.begin(), cloud_log.end(), [](const std::string& l) {
              return absl::StrContains(l, "Delete " + ProviderId("victim"));
            }) == 1);
  // Metrics and events under Karpenter's names.
  const MetricLabels pool = {{"nodepool", "default"}};
  CHECK(h.metrics.Value(metrics::kNodesTerminatedTotal,
                        {{"nodepool", "default"}, {"zone", "test-zone-a"}}) ==
        1);
  CHECK(h.metrics.Value(metrics::kNodesDrainedTotal, pool) == 1);
  CHECK(h.metrics.Total(metrics::kNodeClaimsTerminatedTotal) == 1);
  const std::vector<double> durations =
      h.metrics.Observations(metrics::kNodesTerminationDurationSeconds, pool);
  REQUIRE(durations.size() == 1);
  CHECK(durations[0] == Approx(absl::ToDoubleSeconds(*finalizer - kStart)));
  CHECK(h.metrics.Total(metrics::kPodsEvictionRequestsTotal) ==
        CountPrefix(log, "Evict "));
  CHECK(h.events.Count("FailedDraining") > 0);
  CHECK(h.events.Count("TerminationGracePeriodExpiring") > 0);
  CHECK(h.metrics.contract_violations() == 0);
}

TEST_CASE("termination e2e: cloud delete fails five times, then succeeds",
          "[termination][e2e]") {
  snapshot::ObjectSet o;
  AddManagedNode(o, "victim");
  Harness h(std::move(o));
  REQUIRE(h.cloud
              ->FailNext(testing::CloudMethod::kDelete,
                         absl::UnavailableError("ec2: RequestLimitExceeded"), 5)
              .ok());
  REQUIRE(h.cluster->DeleteNode("victim").ok());
  h.Run(kStart + absl::Hours(1));
  CHECK_FALSE(h.NodeExists("victim"));
  CHECK_FALSE(h.ClaimExists("victim-claim"));
  CHECK_FALSE(h.cloud->Exists(ProviderId("victim")));
  CHECK(h.cloud->CallCount(testing::CloudMethod::kDelete) == 6);
  CHECK(h.events.Count("FailedInstanceTermination") == 5);
  // Backoff 100 ms, 200 ms, 400 ms, 800 ms, 1.6 s between the attempts.
  std::vector<absl::Time> attempts;
  for (const std::string& line : h.cloud->CallLog()) {
    if (absl::StrContains(line, " Delete ")) {
      absl::Time t;
      std::string err;
      REQUIRE(absl::ParseTime(absl::RFC3339_full,
                              line.substr(0, line.find(' ')), &t, &err));
      attempts.push_back(t);
    }
  }
  REQUIRE(attempts.size() == 6);
  for (size_t i = 1; i < attempts.size(); ++i) {
    INFO("attempt " << i);
    CHECK(attempts[i] - attempts[i - 1] ==
          absl::Milliseconds(100) * (1 << (i - 1)));
  }
}

TEST_CASE("termination e2e: termination protection on, then off",
          "[termination][e2e]") {
  snapshot::ObjectSet o;
  AddManagedNode(o, "victim");
  Harness h(std::move(o));
  REQUIRE(h.cloud->SetTerminationProtection(ProviderId("victim"), true).ok());
  REQUIRE(h.cluster->DeleteNode("victim").ok());
  h.Run(kStart + absl::Minutes(5));
  // Blocked: nothing leaked, nothing dropped; the node waits with its
  // finalizer and the failures are reported.
  CHECK(h.NodeExists("victim"));
  CHECK(h.cloud->Exists(ProviderId("victim")));
  const int64_t refused = h.events.Count("FailedInstanceTermination");
  CHECK(refused > 5);
  // Capped at 10 s between attempts: at most 5 min / 10 s + the ramp.
  CHECK(refused < 45);
  bool mentions_protection = false;
  for (const Event& e : h.events.events()) {
    if (e.reason == "FailedInstanceTermination") {
      CHECK(e.kind == "NodeClaim");
      CHECK(e.name == "victim-claim");
      mentions_protection |=
          absl::StrContains(e.message, "OperationNotPermitted");
    }
  }
  CHECK(mentions_protection);
  REQUIRE(h.cloud->SetTerminationProtection(ProviderId("victim"), false).ok());
  h.Run(kStart + absl::Minutes(10));
  CHECK_FALSE(h.NodeExists("victim"));
  CHECK_FALSE(h.ClaimExists("victim-claim"));
  CHECK_FALSE(h.cloud->Exists(ProviderId("victim")));
  CHECK(h.clock.Now() < kStart + absl::Minutes(6));
}

TEST_CASE("termination e2e: terminationGracePeriod forces a blocked drain",
          "[termination][e2e]") {
  snapshot::ObjectSet o;
  AddManagedNode(o, "victim", "2m");
  AddManagedNode(o, "spare");
  o.pods.push_back(MakePod("db-0", {.app = "db", .grace = 20}));
  o.pods.push_back(MakePod("db-1", {.app = "db", .grace = 20}));
  // minAvailable 2 of 2: the PDB never allows an eviction.
  o.pdbs.push_back(testing::MakePdb({.name = "db",
                                     .selector = testing::Labels{{"app", "db"}},
                                     .min_available = "2"}));
  Harness h(std::move(o));
  REQUIRE(h.cluster->DeleteNode("victim").ok());
  h.Run(kStart + absl::Hours(1));
  CHECK_FALSE(h.NodeExists("victim"));
  CHECK_FALSE(h.cloud->Exists(ProviderId("victim")));
  const std::vector<e2e::LogLine> log = ParseLog(h.cluster->CallLog());
  // Every eviction was refused; the pods were deleted once past
  // T - 20 s = t0 + 100 s. A pod already in the eviction queue is picked up
  // when its 429 backoff (at most 10 s) expires, as in Karpenter's queue.
  CHECK(CountPrefix(log, "Evict default/db-0") > 0);
  for (const e2e::LogLine& l : log) {
    if (absl::StartsWith(l.text, "Evict ")) {
      CHECK(absl::StrContains(l.text, "-> 429"));
    }
  }
  for (const char* pod : {"db-0", "db-1"}) {
    std::optional<absl::Time> deleted =
        FirstAt(log, absl::StrCat("DeletePod default/", pod));
    REQUIRE(deleted.has_value());
    CHECK(*deleted >= kStart + absl::Seconds(100));
    CHECK(*deleted <= kStart + absl::Seconds(111));
  }
  CHECK(h.events.Count("TerminationGracePeriodExpiring") > 0);
}

TEST_CASE(
    "termination e2e: a NotReady node whose instance is gone skips the drain",
    "[termination][e2e]") {
  snapshot::ObjectSet o;
  AddManagedNode(o, "victim", std::nullopt, /*ready=*/false);
  o.pods.push_back(MakePod("web-0", {.app = "web"}));
  o.pdbs.push_back(testing::MakePdb({.name = "web", .min_available = "1"}));
  Harness h(std::move(o));
  REQUIRE(h.cloud->Vanish(ProviderId("victim")).ok());
  REQUIRE(h.cluster->DeleteNode("victim").ok());
  h.Run(kStart + absl::Hours(1));
  CHECK_FALSE(h.NodeExists("victim"));
  CHECK_FALSE(h.ClaimExists("victim-claim"));
  const std::vector<e2e::LogLine> log = ParseLog(h.cluster->CallLog());
  CHECK(CountPrefix(log, "Evict ") == 0);
  CHECK(CountPrefix(log, "TaintNode ") == 0);
  CHECK(FirstAt(log, "RemoveFinalizer Node victim") == kStart);
}

TEST_CASE(
    "termination e2e: a Ready node is drained even if its instance is gone",
    "[termination][e2e]") {
  snapshot::ObjectSet o;
  AddManagedNode(o, "victim");
  AddManagedNode(o, "spare");
  o.pods.push_back(MakePod("web-0", {.app = "web"}));
  Harness h(std::move(o));
  REQUIRE(h.cloud->Vanish(ProviderId("victim")).ok());
  REQUIRE(h.cluster->DeleteNode("victim").ok());
  h.Run(kStart + absl::Hours(1));
  CHECK_FALSE(h.NodeExists("victim"));
  const std::vector<e2e::LogLine> log = ParseLog(h.cluster->CallLog());
  CHECK(CountPrefix(log, "Evict default/web-0") == 1);
}

// The multiset of ClusterView mutations and successful evictions, without
// instants or answers: what a termination did to the cluster.
std::map<std::string, int> Mutations(const std::vector<e2e::LogLine>& log) {
  std::map<std::string, int> out;
  for (const e2e::LogLine& l : log) {
    const std::string& t = l.text;
    const bool mutation =
        absl::StartsWith(t, "AddFinalizer") ||
        absl::StartsWith(t, "RemoveFinalizer") ||
        absl::StartsWith(t, "TaintNode") || absl::StartsWith(t, "SetLabel") ||
        absl::StartsWith(t, "SetAnnotation") ||
        absl::StartsWith(t, "SetNodeClaimCondition") ||
        absl::StartsWith(t, "DeleteNode") ||
        absl::StartsWith(t, "DeleteNodeClaim") ||
        (absl::StartsWith(t, "Evict") && absl::StrContains(t, "-> 200"));
    if (!mutation) continue;
    const std::string without_answer = t.substr(0, t.find(" -> "));
    ++out[without_answer];
  }
  return out;
}

TEST_CASE("termination e2e: restart after every side effect",
          "[termination][e2e][restart]") {
  auto scenario = [] {
    snapshot::ObjectSet o;
    AddManagedNode(o, "victim", "10m");
    AddManagedNode(o, "spare");
    o.pods.push_back(MakePod("web-0", {.app = "web"}));
    o.pods.push_back(MakePod("web-1", {.app = "web"}));
    o.pods.push_back(MakePod("ds-logs", {.app = "logs", .owner = "DaemonSet"}));
    o.pods.push_back(
        MakePod("keeper", {.app = "keeper", .do_not_disrupt = true}));
    o.pdbs.push_back(testing::MakePdb({.name = "web", .max_unavailable = "1"}));
    return o;
  };
  Harness straight(scenario());
  REQUIRE(straight.cluster->DeleteNode("victim").ok());
  straight.Run(kStart + absl::Hours(1));
  REQUIRE_FALSE(straight.NodeExists("victim"));

  Harness crashing(scenario());
  REQUIRE(crashing.cluster->DeleteNode("victim").ok());
  crashing.Run(kStart + absl::Hours(1),
               /*restart_after_each_side_effect=*/true);
  CHECK(crashing.restarts >= 3);
  CHECK_FALSE(crashing.NodeExists("victim"));
  CHECK_FALSE(crashing.ClaimExists("victim-claim"));
  CHECK_FALSE(crashing.cloud->Exists(ProviderId("victim")));
  CHECK(crashing.cluster->PdbViolations().empty());

  // The same mutations, each exactly once: none repeated, none skipped.
  const std::map<std::string, int> a =
      Mutations(ParseLog(straight.cluster->CallLog()));
  const std::map<std::string, int> b =
      Mutations(ParseLog(crashing.cluster->CallLog()));
  CHECK(a == b);
  for (const auto& [line, n] : b) {
    INFO(line);
    CHECK(n == 1);
  }
  // The instance was deleted once in both runs.
  CHECK(crashing.cloud->CallCount(testing::CloudMethod::kDelete) ==
        straight.cloud->CallCount(testing::CloudMethod::kDelete));
}

TEST_CASE(
    "termination e2e: a lost InstanceTerminating write repeats the Delete",
    "[termination][e2e][restart]") {
  snapshot::ObjectSet o;
  AddManagedNode(o, "victim");
  Harness h(std::move(o));
  REQUIRE(h.cluster->DeleteNode("victim").ok());
  // Empty node: Drained=Unknown at t0, True at t0+5s (MinDrainTime),
  // VolumesDetached at t0+6s, the cloud Delete at t0+7s.
  h.Run(kStart + absl::Milliseconds(6500));
  REQUIRE(h.cloud->CallCount(testing::CloudMethod::kDelete) == 0);
  REQUIRE(h.cluster
              ->FailNext(testing::FakeMethod::kSetNodeClaimCondition,
                         absl::UnavailableError("etcd timeout"))
              .ok());
  h.Run(kStart + absl::Hours(1));
  CHECK_FALSE(h.NodeExists("victim"));
  CHECK_FALSE(h.cloud->Exists(ProviderId("victim")));
  // The Delete was accepted, the condition write failed, so the retry sends
  // the (idempotent) Delete again before recording the condition.
  CHECK(h.cloud->CallCount(testing::CloudMethod::kDelete) == 2);
}

TEST_CASE(
    "termination e2e: a node NotReady for 30 minutes (AWS's repair policy) "
    "is terminated",
    "[termination][e2e][liveness]") {
  snapshot::ObjectSet o;
  AddManagedNode(o, "sick", std::nullopt, /*ready=*/false);
  AddManagedNode(o, "healthy");
  AddManagedNode(o, "healthy-2");
  AddManagedNode(o, "healthy-3");
  AddManagedNode(o, "healthy-4");
  AddManagedNode(o, "healthy-5");
  // NotReady since kStart - 1h in the builder; move it to kStart.
  for (v1::Node& n : o.nodes) {
    if (n.metadata().name() == "sick") {
      *n.mutable_status()
           ->mutable_conditions(0)
           ->mutable_last_transition_time() = TimeToProto(kStart);
    }
  }
  o.pods.push_back(MakePod("web-0", {.app = "web", .node = "sick"}));
  Harness h(std::move(o));
  h.janitor = true;
  h.Run(kStart + absl::Minutes(30) - absl::Seconds(1));
  CHECK(h.NodeExists("sick"));
  CHECK(h.ClaimExists("sick-claim"));
  h.Run(kStart + absl::Hours(1));
  CHECK_FALSE(h.NodeExists("sick"));
  CHECK_FALSE(h.ClaimExists("sick-claim"));
  CHECK_FALSE(h.cloud->Exists(ProviderId("sick")));
  CHECK(h.NodeExists("healthy"));
  const std::vector<e2e::LogLine> log = ParseLog(h.cluster->CallLog());
  // The fake cloud publishes AWS's policies (Ready=False for 30 min), and
  // the harness takes them from it, as a host does. Repair deletes the
  // NodeClaim at exactly 30 minutes with the
  // termination deadline set to that instant (Karpenter's node repair is
  // forceful), so the termination drains the NotReady node (its instance
  // still exists) by deleting its pods rather than evicting them.
  CHECK(FirstAt(log, "DeleteNodeClaim sick-claim") ==
        kStart + absl::Minutes(30));
  CHECK(CountPrefix(log, "Evict default/web-0") == 0);
  CHECK(FirstAt(log, "DeletePod default/web-0") == kStart + absl::Minutes(30));
  CHECK(h.metrics.Total(metrics::kNodeClaimsDisruptedTotal) == 1);
}

TEST_CASE("termination e2e: a leaked instance is collected after 30 s",
          "[termination][e2e][gc]") {
  snapshot::ObjectSet o;
  AddManagedNode(o, "owned");
  Harness h(std::move(o));
  Instance leaked;
  leaked.provider_id = "fake:///test-zone-a/i-leaked";
  leaked.created = kStart - absl::Seconds(10);
  REQUIRE(h.cloud->AddInstance(leaked).ok());
  h.janitor = true;
  h.Run(kStart + absl::Seconds(19));
  CHECK(h.cloud->Exists(leaked.provider_id));
  h.Run(kStart + absl::Minutes(5));
  CHECK_FALSE(h.cloud->Exists(leaked.provider_id));
  CHECK(h.cloud->Exists(ProviderId("owned")));
  CHECK(h.NodeExists("owned"));
  std::optional<absl::Time> deleted;
  for (const std::string& line : h.cloud->CallLog()) {
    if (absl::StrContains(line, "Delete " + leaked.provider_id)) {
      absl::Time t;
      std::string err;
      REQUIRE(absl::ParseTime(absl::RFC3339_full,
                              line.substr(0, line.find(' ')), &t, &err));
      if (!deleted.has_value()) deleted = t;
    }
  }
  REQUIRE(deleted.has_value());
  CHECK(*deleted == kStart + absl::Seconds(20));
}

TEST_CASE("termination e2e: the instance waits for volumes to detach",
          "[termination][e2e][volumes]") {
  snapshot::ObjectSet o;
  AddManagedNode(o, "victim");
  AddManagedNode(o, "spare");
  v1::Pod db = MakePod("db-0", {.app = "db"});
  v1::Volume* volume = db.mutable_spec()->add_volumes();
  volume->set_name("data");
  volume->mutable_persistent_volume_claim()->set_claim_name("data-db-0");
  o.pods.push_back(db);
  v1::PersistentVolumeClaim pvc;
  pvc.mutable_metadata()->set_namespace_("default");
  pvc.mutable_metadata()->set_name("data-db-0");
  pvc.mutable_spec()->set_volume_name("pv-db-0");
  o.persistent_volume_claims.push_back(pvc);
  v1::VolumeAttachment va;
  va.mutable_metadata()->set_name("csi-db-0");
  va.mutable_spec()->set_attacher("ebs.csi.aws.com");
  va.mutable_spec()->set_node_name("victim");
  va.mutable_spec()->mutable_source()->set_persistent_volume_name("pv-db-0");
  va.mutable_status()->set_attached(true);
  o.volume_attachments.push_back(va);
  Harness h(std::move(o));
  REQUIRE(h.cluster->DeleteNode("victim").ok());
  h.Run(kStart + absl::Hours(1));
  CHECK_FALSE(h.NodeExists("victim"));
  CHECK_FALSE(h.cloud->Exists(ProviderId("victim")));
  const std::vector<e2e::LogLine> log = ParseLog(h.cluster->CallLog());
  std::optional<absl::Time> removed = FirstAt(log, "removed default/db-0");
  std::optional<absl::Time> detached = FirstAt(log, "detach csi-db-0");
  std::optional<absl::Time> waiting =
      FirstAt(log,
              "SetNodeClaimCondition victim-claim VolumesDetached=Unknown "
              "AwaitingVolumeDetachment");
  std::optional<absl::Time> volumes_done =
      FirstAt(log, "SetNodeClaimCondition victim-claim VolumesDetached=True");
  REQUIRE(removed.has_value());
  REQUIRE(detached.has_value());
  REQUIRE(waiting.has_value());
  REQUIRE(volumes_done.has_value());
  // The pod leaves 30 s after its eviction, the attach/detach controller
  // detaches 10 s later, and only then is the condition set.
  CHECK(*detached == *removed + absl::Seconds(10));
  CHECK(*waiting < *detached);
  CHECK(*volumes_done >= *detached);
  CHECK(*volumes_done <= *detached + absl::Seconds(1));
  CHECK(h.events.Count("AwaitingVolumeDetachment") > 0);
  std::optional<absl::Time> deleted;
  for (const std::string& line : h.cloud->CallLog()) {
    if (absl::StrContains(line, "Delete " + ProviderId("victim"))) {
      absl::Time t;
      std::string err;
      REQUIRE(absl::ParseTime(absl::RFC3339_full,
                              line.substr(0, line.find(' ')), &t, &err));
      deleted = t;
      break;
    }
  }
  REQUIRE(deleted.has_value());
  CHECK(*deleted > *volumes_done);
}

TEST_CASE("termination e2e: executor rejects bad options", "[termination]") {
  snapshot::ObjectSet o;
  Harness h(std::move(o));
  ExecutorOptions bad;
  bad.backoff_base = absl::ZeroDuration();
  absl::StatusOr<std::unique_ptr<Executor>> e = Executor::Create(
      *h.cluster, *h.cluster, *h.cloud, h.events, h.metrics, h.clock, bad);
  REQUIRE_FALSE(e.ok());
  CHECK(absl::StrContains(e.status().message(), "backoff_base"));
  ExecutorOptions limit;
  limit.for_test.side_effect_limit = -2;
  e = Executor::Create(*h.cluster, *h.cluster, *h.cloud, h.events, h.metrics,
                       h.clock, limit);
  REQUIRE_FALSE(e.ok());
  CHECK(absl::StrContains(e.status().message(), "side_effect_limit: -2"));
}

}  // namespace
}  // namespace karpenter::termination
