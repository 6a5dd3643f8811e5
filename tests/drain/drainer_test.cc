// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/drain/drainer.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "drain_test_util.h"
#include "karpenter/testing/builders.h"
#include "karpenter/testing/drain_simulation.h"
#include "karpenter/testing/fake_clock.h"
#include "karpenter/testing/fake_cluster.h"
#include "karpenter/testing/forwarding_cluster_view.h"
#include "karpenter/well_known.h"

// The builders take designated initializers that omit fields; GCC 12 warns
// about every omitted member even though each has a default.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace karpenter::drain {
namespace {

using test::kT0;
using testing::FakeClock;
using testing::FakeCluster;

// --- Cluster builders (on karpenter/testing/builders.h). ---------------------

v1::Node Node(const std::string& name) {
  return testing::MakeNode(
      {.name = name, .provider_id = "aws:///zone/" + name});
}

struct PodSpec {
  std::string app = "web";
  std::string node = "n1";
  // Controller kind: "ReplicaSet" (replaced when evicted), "DaemonSet", or
  // "" for a bare pod.
  std::string owner = "ReplicaSet";
  std::string priority_class;
  int64_t grace = 30;
  std::string do_not_disrupt;  // The annotation value, "" for none.
};

v1::Pod Pod(const std::string& name, const PodSpec& s = {}) {
  testing::Labels annotations;
  if (!s.do_not_disrupt.empty()) {
    annotations[std::string(well_known::kDoNotDisruptAnnotationKey)] =
        s.do_not_disrupt;
  }
  return testing::MakePod({.name = name,
                           .app = s.app,
                           .node = s.node,
                           .owner = s.owner,
                           .priority_class = s.priority_class,
                           .grace = s.grace,
                           .annotations = annotations});
}

// A deleting NodeClaim of node `node` with terminationGracePeriod `tgp`
// deleted at kT0, so T = kT0 + tgp.
v1::NodeClaim Claim(const std::string& node, const std::string& tgp) {
  return testing::MakeNodeClaim({.name = "claim-" + node,
                                 .node_name = "",
                                 .provider_id = "aws:///zone/" + node,
                                 .nodepool = "",
                                 .finalizers = {"karpenter.sh/termination"},
                                 .deleted = kT0,
                                 .termination_grace_period = tgp});
}

using testing::DisruptedTaint;

// A fake over `objects` (nodes n1 to drain, n2 spare by default) at kT0.
struct Env {
  FakeClock clock{kT0};
  std::unique_ptr<FakeCluster> cluster;

  explicit Env(snapshot::ObjectSet objects) {
    if (objects.nodes.empty()) objects.nodes = {Node("n1"), Node("n2")};
    auto created = FakeCluster::Create(std::move(objects), clock);
    REQUIRE(created.ok());
    cluster = *std::move(created);
  }
  std::unique_ptr<Drainer> MakeDrainer(DrainerOptions options = {}) {
    auto d = Drainer::Create(*cluster, *cluster, clock, std::move(options));
    REQUIRE(d.ok());
    return *std::move(d);
  }
  StepReport Step(Drainer& d) {
    absl::StatusOr<StepReport> r = d.Step();
    REQUIRE(r.ok());
    return *std::move(r);
  }
  // Steps `d` until done or `until`, moving to each next wake or cluster
  // transition. Returns the reports.
  std::vector<StepReport> Run(Drainer& d, absl::Time until) {
    std::vector<StepReport> out;
    for (int i = 0; i < 10000; ++i) {
      out.push_back(Step(d));
      if (d.nodes().empty()) break;
      absl::Time next = out.back().next_wake;
      if (auto e = cluster->NextEventTime()) next = std::min(next, *e);
      if (next > until) break;
      REQUIRE(clock.SetTime(next).ok());
    }
    return out;
  }
  std::optional<v1::Pod> FindPod(const std::string& name) {
    auto s = cluster->Read();
    REQUIRE(s.ok());
    auto p = s->FindPod("default", name);
    if (!p) return std::nullopt;
    return s->DecodePod(*p);
  }
  // Lines of the call log containing `needle`.
  std::vector<std::string> Log(const std::string& needle) {
    std::vector<std::string> out;
    for (const std::string& line : cluster->CallLog()) {
      if (absl::StrContains(line, needle)) out.push_back(line);
    }
    return out;
  }
  // Index of the first call-log line containing `needle`, or -1.
  int LogIndex(const std::string& needle) {
    const std::vector<std::string> log = cluster->CallLog();
    for (size_t i = 0; i < log.size(); ++i) {
      if (absl::StrContains(log[i], needle)) return static_cast<int>(i);
    }
    return -1;
  }
};

DrainerOptions Mode(EvictionQueueMode mode, bool precheck = false) {
  DrainerOptions o;
  o.queue.mode = mode;
  o.precheck_pdbs = precheck;
  return o;
}

const NodeReport& Report(const StepReport& r, const std::string& node) {
  for (const NodeReport& n : r.nodes) {
    if (n.node == node) return n;
  }
  FAIL("no report for node " << node);
  return r.nodes.front();
}

std::string NoteOf(const NodeReport& r, const std::string& pod) {
  for (const PodNote& n : r.notes) {
    if (n.pod.name == pod) return n.reason;
  }
  return "";
}

// --- Tests. ------------------------------------------------------------------

TEST_CASE("drainer: tiers drain in order end to end", "[drainer]") {
  snapshot::ObjectSet o;
  o.pods = {
      Pod("crit-ds", {.app = "cds",
                      .owner = "DaemonSet",
                      .priority_class = "system-node-critical"}),
      Pod("ds", {.app = "ds", .owner = "DaemonSet"}),
      Pod("crit", {.app = "crit", .priority_class = "system-cluster-critical"}),
      Pod("web-1", {.grace = 20}),
      Pod("web-2", {.grace = 40}),
  };
  Env env(std::move(o));
  auto result = testing::SimulateDrain(*env.cluster, env.clock, {"n1"}, {},
                                       absl::Hours(1));
  REQUIRE(result.ok());
  CHECK(result->completed);
  CHECK(result->evict_calls == 5);
  CHECK(result->http_200 == 5);
  CHECK(result->pdb_violations == 0);
  // Each tier is evicted only once the previous one is gone.
  const std::vector<std::pair<std::string, std::string>> order = {
      {"removed default/web-2", "Evict default/ds "},
      {"removed default/ds", "Evict default/crit "},
      {"removed default/crit", "Evict default/crit-ds "},
  };
  for (const auto& [before, after] : order) {
    CAPTURE(before, after);
    REQUIRE(env.LogIndex(before) >= 0);
    CHECK(env.LogIndex(before) < env.LogIndex(after));
  }
  CHECK(env.LogIndex("Evict default/web-1 ") <
        env.LogIndex("removed default/web-1"));
  // web-2 (40 s) then ds, crit, crit-ds (30 s each) run one after another.
  CHECK(result->drain_time == absl::Seconds(40 + 30 + 30 + 30));
  CHECK(!env.FindPod("crit-ds").has_value());
}

TEST_CASE("drainer: failures back off without a hot loop", "[drainer]") {
  struct Row {
    std::string name;
    bool blocked_by_pdb;  // else transport errors are injected
  };
  for (const Row& row : std::vector<Row>{{"429", true}, {"transport", false}}) {
    CAPTURE(row.name);
    snapshot::ObjectSet o;
    o.pods = {Pod("web-1")};
    if (row.blocked_by_pdb)
      o.pdbs = {testing::MakePdb({.name = "web", .min_available = "1"})};
    Env env(std::move(o));
    if (!row.blocked_by_pdb) {
      REQUIRE(env.cluster
                  ->InjectEvictionFailures(
                      1000, {EvictionResult::kOtherError, 0, "timeout"})
                  .ok());
    }
    auto drainer = env.MakeDrainer();
    REQUIRE(drainer->Drain("n1").ok());
    std::vector<absl::Time> calls;
    for (const StepReport& r : env.Run(*drainer, kT0 + absl::Minutes(1))) {
      if (r.counts.evict_calls > 0) calls.push_back(r.now);
      CHECK(r.counts.evict_calls <= 1);
      CHECK(r.next_wake > r.now);
    }
    // 0.1 s doubling to the 10 s cap: attempts at 0, 0.1, 0.3, ..., 12.7,
    // 22.7, ..., 52.7 s: 12 in a minute.
    CHECK(calls.size() == 12);
    CHECK(env.cluster->evict_calls() == 12);
    for (size_t i = 2; i < calls.size(); ++i) {
      CHECK(calls[i] - calls[i - 1] >= calls[i - 1] - calls[i - 2]);
    }
    CHECK(calls.back() - calls[calls.size() - 2] == absl::Seconds(10));
    CHECK(drainer->totals().evict_results[static_cast<size_t>(
              row.blocked_by_pdb ? EvictionResult::kBlockedByPdb
                                 : EvictionResult::kOtherError)] == 12);
  }
}

// A pod under two PDBs on a node whose deadline is kT0 + 120 s.
snapshot::ObjectSet TwoPdbPod() {
  snapshot::ObjectSet o;
  o.pods = {Pod("web-1", {.grace = 30})};
  o.pdbs = {testing::MakePdb({.name = "a", .max_unavailable = "1"}),
            testing::MakePdb({.name = "b", .max_unavailable = "1"})};
  o.node_claims = {Claim("n1", "120s")};
  return o;
}

TEST_CASE("drainer: multi-PDB pod is held when keyed and force-deleted",
          "[drainer]") {
  Env env(TwoPdbPod());
  auto drainer = env.MakeDrainer(Mode(EvictionQueueMode::kKeyedByPdb));
  REQUIRE(drainer->Drain("n1").ok());
  const StepReport first = env.Step(*drainer);
  CHECK(first.counts.evict_calls == 0);
  CHECK(first.events.empty());
  const NodeReport& n1 = Report(first, "n1");
  CHECK(n1.message == "1 pods are waiting to be evicted");
  CHECK(absl::StrContains(NoteOf(n1, "web-1"), "held, selected by several"));
  // Force-deleted strictly after T - 30 s = kT0 + 90 s.
  CHECK(first.next_wake == kT0 + absl::Seconds(90) + absl::Nanoseconds(1));
  env.Run(*drainer, kT0 + absl::Minutes(5));
  CHECK(env.cluster->evict_calls() == 0);
  const std::vector<std::string> deletes = env.Log("DeletePod default/web-1");
  REQUIRE(deletes.size() == 1);
  CHECK(absl::StrContains(deletes[0], "grace=29s -> OK"));
  CHECK(drainer->totals().force_deletes == 1);
  CHECK(drainer->nodes().empty());
}

TEST_CASE("drainer: multi-PDB pod gets 500 and an event per pod mode",
          "[drainer]") {
  Env env(TwoPdbPod());
  auto drainer = env.MakeDrainer(Mode(EvictionQueueMode::kPerPod));
  REQUIRE(drainer->Drain("n1").ok());
  const StepReport first = env.Step(*drainer);
  CHECK(first.counts.evict_calls == 1);
  CHECK(first.counts.evict_http_status.at(500) == 1);
  REQUIRE(first.events.size() == 1);
  CHECK(first.events[0].node == "n1");
  CHECK(first.events[0].event.reason == "FailedDraining");
  CHECK(first.events[0].event.message ==
        "Failed to drain node, eviction does not support multiple PDBs "
        "(Pod=default/web-1)");
  env.Run(*drainer, kT0 + absl::Minutes(5));
  CHECK(env.Log("DeletePod default/web-1").size() == 1);
  CHECK(drainer->nodes().empty());
}

TEST_CASE("drainer: do-not-disrupt pod waits for its force-delete instant",
          "[drainer]") {
  snapshot::ObjectSet o;
  o.pods = {Pod("guarded", {.grace = 60, .do_not_disrupt = "true"}),
            Pod("web-1")};
  o.node_claims = {Claim("n1", "300s")};  // T = kT0 + 300 s.
  Env env(std::move(o));
  auto drainer = env.MakeDrainer();
  REQUIRE(drainer->Drain("n1").ok());
  const StepReport first = env.Step(*drainer);
  CAPTURE(NoteOf(Report(first, "n1"), "guarded"));
  CHECK(absl::StrContains(NoteOf(Report(first, "n1"), "guarded"),
                          "DoNotDisrupt: karpenter.sh/do-not-disrupt with no "
                          "end; force-deleted after 2024-01-01T00:04:00Z"));
  const absl::Time due = kT0 + absl::Seconds(240) + absl::Nanoseconds(1);
  env.Run(*drainer, due - absl::Nanoseconds(1));
  CHECK(env.Log("default/guarded").empty());
  CHECK(env.FindPod("guarded").has_value());
  REQUIRE(env.clock.Now() < due);
  env.Run(*drainer, kT0 + absl::Minutes(10));
  // trunc(T - due) = 59 s of grace; never an eviction.
  CHECK(env.Log("Evict default/guarded").empty());
  const std::vector<std::string> deletes = env.Log("DeletePod default/guarded");
  REQUIRE(deletes.size() == 1);
  CHECK(absl::StartsWith(deletes[0], "2024-01-01T00:04:00.000000001Z"));
  CHECK(absl::StrContains(deletes[0], "grace=59s -> OK"));
  CHECK(drainer->nodes().empty());
}

TEST_CASE("drainer: spot deadline force-deletes pods whose grace exceeds it",
          "[drainer]") {
  snapshot::ObjectSet o;
  o.pods = {Pod("slow", {.app = "slow", .grace = 600}),
            Pod("quick", {.app = "quick", .grace = 30}),
            Pod("blocked", {.app = "blocked", .grace = 30})};
  o.pdbs = {testing::MakePdb({.name = "blocked",
                              .selector = testing::Labels{{"app", "blocked"}},
                              .min_available = "1"})};
  Env env(std::move(o));
  const absl::Time t = SpotInterruptionDeadline(kT0);
  auto drainer = env.MakeDrainer();
  REQUIRE(drainer->Drain("n1").ok());
  REQUIRE(drainer->Drain("n1", t).ok());
  REQUIRE(drainer->Drain("n1", t + absl::Minutes(1)).ok());  // Not loosened.
  const StepReport first = env.Step(*drainer);
  REQUIRE(Report(first, "n1").deadline.has_value());
  CHECK(Report(first, "n1").deadline->at == t);
  CHECK(Report(first, "n1").deadline->source == DeadlineSource::kExternal);
  // slow: due at once, granted the 120 s left; quick: evicted.
  CHECK(env.Log("DeletePod default/slow").size() == 1);
  CHECK(absl::StrContains(env.Log("DeletePod default/slow")[0],
                          "grace=2m -> OK"));
  CHECK(env.Log("Evict default/quick").size() == 1);
  env.Run(*drainer, t + absl::Minutes(1));
  // blocked: answered 429 until due at T - 30 s; as in Karpenter the
  // force-delete waits for the end of its 10 s backoff (429s at 72.7 s and
  // 82.7 s), so it runs at 92.7 s and grants trunc(27.3 s).
  const std::vector<std::string> blocked = env.Log("DeletePod default/blocked");
  REQUIRE(blocked.size() == 1);
  CHECK(blocked[0] ==
        "2024-01-01T00:01:32.7Z DeletePod default/blocked uid=uid-blocked "
        "grace=27s -> OK");
  CHECK(drainer->nodes().empty());
  CHECK(env.clock.Now() <= t);
  CHECK(env.cluster->PdbViolations().empty());
}

TEST_CASE("drainer: pods gone or going before execution get no call",
          "[drainer]") {
  snapshot::ObjectSet o;
  o.pods = {Pod("gone", {.app = "a"}), Pod("going", {.app = "b"})};
  o.pdbs = {testing::MakePdb({.name = "a",
                              .selector = testing::Labels{{"app", "a"}},
                              .min_available = "1"}),
            testing::MakePdb({.name = "b",
                              .selector = testing::Labels{{"app", "b"}},
                              .min_available = "1"})};
  Env env(std::move(o));
  auto drainer = env.MakeDrainer();
  REQUIRE(drainer->Drain("n1").ok());
  const StepReport first = env.Step(*drainer);
  CHECK(first.counts.evict_calls == 2);  // Both 429: queued, backing off.
  // Between this step and the next pop: one pod vanishes, one terminates.
  REQUIRE(env.cluster
              ->DeletePod({"default", "gone", "uid-gone"}, absl::ZeroDuration())
              .ok());
  REQUIRE(env.cluster
              ->DeletePod({"default", "going", "uid-going"}, absl::Seconds(30))
              .ok());
  REQUIRE(env.clock.SetTime(first.next_wake).ok());
  const StepReport second = env.Step(*drainer);
  CHECK(second.counts.evict_calls == 0);
  CHECK(second.counts.skipped_gone == 1);
  CHECK(second.counts.skipped_inactive == 1);
  CHECK(drainer->queue().size() == 0);
  CHECK(NoteOf(Report(second, "n1"), "going") ==
        "Terminating: waiting for the pod to go");
  CHECK(env.cluster->evict_calls() == 2);
}

// A ClusterView whose reads lack the Node `hidden` (its pods stay): a
// host's cache that saw the Node's deletion before its pods'. Writes go to
// the fake.
class HidingView final : public testing::ForwardingClusterView {
 public:
  explicit HidingView(FakeCluster& inner)
      : ForwardingClusterView(inner), inner_(inner) {}
  void Hide(std::string node) { hidden_ = std::move(node); }
  absl::StatusOr<snapshot::Snapshot> Read() override {
    snapshot::ObjectSet o = inner_.ExportObjects();
    std::erase_if(o.nodes, [&](const v1::Node& n) {
      return n.metadata().name() == hidden_;
    });
    return snapshot::Snapshot::Build(std::move(o));
  }

 private:
  FakeCluster& inner_;
  std::string hidden_;
};

TEST_CASE("drainer: a queued pod whose node is gone is still asked for",
          "[drainer]") {
  // The pod outlives its Node in the view's reads (the pod GC has not
  // removed it yet): its queued eviction is retried, not counted as gone.
  snapshot::ObjectSet o;
  o.pods = {Pod("orphan", {.app = "a"})};
  o.pdbs = {testing::MakePdb({.name = "a",
                              .selector = testing::Labels{{"app", "a"}},
                              .min_available = "1"})};
  Env env(std::move(o));
  HidingView view(*env.cluster);
  auto created = Drainer::Create(view, *env.cluster, env.clock, {});
  REQUIRE(created.ok());
  Drainer& drainer = **created;
  REQUIRE(drainer.Drain("n1").ok());
  const StepReport first = env.Step(drainer);
  CHECK(first.counts.evict_calls == 1);  // 429: queued, backing off.
  view.Hide("n1");
  REQUIRE(env.clock.SetTime(first.next_wake).ok());
  const StepReport second = env.Step(drainer);
  CHECK(Report(second, "n1").gone);
  CHECK(second.counts.skipped_gone == 0);
  CHECK(second.counts.evict_calls == 1);
  CHECK(env.cluster->evict_calls() == 2);
}

// Three nodes of four ReplicaSet pods under two maxUnavailable-1 PDBs, spare
// node n9.
snapshot::ObjectSet ThreeNodes() {
  snapshot::ObjectSet o;
  o.nodes = {Node("n1"), Node("n2"), Node("n3"), Node("n9")};
  for (int i = 0; i < 12; ++i) {
    const std::string app = i % 2 == 0 ? "even" : "odd";
    o.pods.push_back(Pod(absl::StrCat("p", i),
                         {.app = app, .node = absl::StrCat("n", 1 + i % 3)}));
  }
  o.pdbs = {testing::MakePdb({.name = "even",
                              .selector = testing::Labels{{"app", "even"}},
                              .max_unavailable = "1"}),
            testing::MakePdb({.name = "odd",
                              .selector = testing::Labels{{"app", "odd"}},
                              .max_unavailable = "1"})};
  return o;
}

TEST_CASE("drainer: a fresh drainer finishes a drain after a restart",
          "[drainer]") {
  Env env(ThreeNodes());
  const v1::Taint taint = DisruptedTaint();
  const std::vector<std::string> nodes = {"n1", "n2", "n3"};
  {
    auto first = env.MakeDrainer();
    for (const std::string& n : nodes) {
      REQUIRE(env.cluster->TaintNode(n, taint).ok());
      REQUIRE(first->Drain(n).ok());
    }
    env.Run(*first, kT0 + absl::Seconds(20));
    REQUIRE(first->nodes().size() == 3);  // Mid-drain.
    REQUIRE(first->totals().evict_results[0] > 0);
  }
  auto second = env.MakeDrainer();
  for (const std::string& n : nodes) REQUIRE(second->Drain(n).ok());
  env.Run(*second, kT0 + absl::Hours(1));
  CHECK(second->nodes().empty());
  auto snap = env.cluster->Read();
  REQUIRE(snap.ok());
  for (const std::string& n : nodes) {
    CHECK(snap->PodsOnNode(*snap->FindNode(n)).empty());
  }
  CHECK(snap->PodsOnNode(*snap->FindNode("n9")).size() == 12);
  CHECK(env.cluster->PdbViolations().empty());
}

TEST_CASE("drainer: identical runs give identical call logs", "[drainer]") {
  std::vector<std::vector<std::string>> logs;
  for (int run = 0; run < 2; ++run) {
    Env env(ThreeNodes());
    auto r = testing::SimulateDrain(*env.cluster, env.clock, {"n1", "n2", "n3"},
                                    Mode(EvictionQueueMode::kPerPod),
                                    absl::Hours(1));
    REQUIRE(r.ok());
    CHECK(r->completed);
    logs.push_back(env.cluster->CallLog());
  }
  CHECK(logs[0].size() > 20);
  CHECK(logs[0] == logs[1]);
}

// An EvictionClient that checks, on every call, that no other pod of the
// called pod's PDBs is in flight in the drainer's queue.
class InFlightChecker : public EvictionClient {
 public:
  InFlightChecker(FakeCluster& cluster, const std::vector<std::string>& pods)
      : cluster_(cluster), pods_(pods) {}
  EvictionResponse Evict(const PodRef& pod) override {
    for (const std::string& uid : pods_) {
      if (uid == pod.uid || drainer == nullptr) continue;
      auto s = drainer->queue().Inspect(uid, absl::InfinitePast());
      if (!s.ok() || s->state != EvictionItemState::kInFlight) continue;
      for (const std::string& key : s->pdb_keys) {
        auto mine = drainer->queue().Inspect(pod.uid, absl::InfinitePast());
        if (mine.ok() &&
            std::count(mine->pdb_keys.begin(), mine->pdb_keys.end(), key) > 0) {
          ++overlaps;
        }
      }
    }
    ++calls;
    return cluster_.Evict(pod);
  }
  const Drainer* drainer = nullptr;
  int calls = 0;
  int overlaps = 0;

 private:
  FakeCluster& cluster_;
  std::vector<std::string> pods_;
};

TEST_CASE("drainer: keyed mode never has two evictions of a PDB in flight",
          "[drainer]") {
  Env env(ThreeNodes());
  std::vector<std::string> uids;
  for (int i = 0; i < 12; ++i) uids.push_back(absl::StrCat("uid-p", i));
  InFlightChecker checker(*env.cluster, uids);
  auto created = Drainer::Create(*env.cluster, checker, env.clock,
                                 Mode(EvictionQueueMode::kKeyedByPdb));
  REQUIRE(created.ok());
  std::unique_ptr<Drainer> drainer = *std::move(created);
  checker.drainer = drainer.get();
  for (const char* n : {"n1", "n2", "n3"}) {
    REQUIRE(env.cluster->TaintNode(n, DisruptedTaint()).ok());
    REQUIRE(drainer->Drain(n).ok());
  }
  env.Run(*drainer, kT0 + absl::Hours(1));
  CHECK(drainer->nodes().empty());
  CHECK(checker.calls >= 12);
  CHECK(checker.overlaps == 0);
  CHECK(drainer->queue().in_flight() == 0);
}

TEST_CASE("drainer: keyed with precheck needs far fewer calls than per pod",
          "[drainer]") {
  // 2 nodes x 20 pods under 4 PDBs (maxUnavailable 1, 10 pods each).
  auto objects = [] {
    snapshot::ObjectSet o;
    o.nodes = {Node("n1"), Node("n2"), Node("spare")};
    for (int i = 0; i < 40; ++i) {
      const std::string app = absl::StrCat("app", i % 4);
      o.pods.push_back(
          Pod(absl::StrCat("p", i), {.app = app, .node = i % 2 ? "n2" : "n1"}));
    }
    for (int k = 0; k < 4; ++k) {
      const std::string app = absl::StrCat("app", k);
      o.pdbs.push_back(
          testing::MakePdb({.name = app,
                            .selector = testing::Labels{{"app", app}},
                            .max_unavailable = "1"}));
    }
    return o;
  };
  std::vector<testing::DrainSimulationResult> results;
  for (const DrainerOptions& options :
       {Mode(EvictionQueueMode::kPerPod),
        Mode(EvictionQueueMode::kKeyedByPdb, /*precheck=*/true)}) {
    Env env(objects());
    auto r = testing::SimulateDrain(*env.cluster, env.clock, {"n1", "n2"},
                                    options, absl::Hours(2));
    REQUIRE(r.ok());
    CHECK(r->completed);
    CHECK(r->pdb_violations == 0);
    CHECK(r->http_200 == 40);
    CHECK(r->force_deletes == 0);
    results.push_back(*std::move(r));
  }
  const auto& per_pod = results[0];
  const auto& keyed = results[1];
  CAPTURE(per_pod.evict_calls, per_pod.http_429, keyed.evict_calls,
          keyed.http_429, per_pod.drain_time, keyed.drain_time);
  CHECK(keyed.evict_calls * 3 < per_pod.evict_calls);
  CHECK(keyed.http_429 * 5 < per_pod.http_429);
  CHECK(keyed.local_pdb_blocks > 0);
  CHECK(per_pod.local_pdb_blocks == 0);
}

TEST_CASE("drainer: input errors and missing nodes", "[drainer]") {
  Env env(snapshot::ObjectSet{});
  auto drainer = env.MakeDrainer();
  CHECK(drainer->Drain("").code() == absl::StatusCode::kInvalidArgument);
  const absl::Status inf = drainer->Drain("n1", absl::InfiniteFuture());
  CHECK(inf.code() == absl::StatusCode::kInvalidArgument);
  CHECK(absl::StrContains(inf.message(), "external_deadline for node \"n1\""));
  DrainerOptions bad;
  bad.queue.qps = 0;
  CHECK(Drainer::Create(*env.cluster, *env.cluster, env.clock, bad)
            .status()
            .code() == absl::StatusCode::kInvalidArgument);

  REQUIRE(drainer->Drain("missing").ok());
  REQUIRE(drainer->Drain("n1").ok());
  REQUIRE(env.cluster
              ->FailNext(testing::FakeMethod::kRead,
                         absl::UnavailableError("cache not synced"))
              .ok());
  const auto failed = drainer->Step();
  CHECK(failed.status().code() == absl::StatusCode::kUnavailable);
  CHECK(failed.status().message() == "read cluster: cache not synced");
  const StepReport r = env.Step(*drainer);
  REQUIRE(r.nodes.size() == 2);
  CHECK(r.nodes[0].node == "missing");
  CHECK(r.nodes[0].done);
  CHECK(r.nodes[0].gone);
  CHECK(r.nodes[1].done);  // n1 has no pods.
  CHECK(!r.nodes[1].gone);
  CHECK(drainer->nodes().empty());
  CHECK(r.next_wake == absl::InfiniteFuture());
}

TEST_CASE("drainer: an invalid deadline annotation fails only its node",
          "[drainer]") {
  snapshot::ObjectSet o;
  o.pods = {Pod("web-1", {.node = "n2"})};
  v1::NodeClaim claim = Claim("n1", "60s");
  (*claim.mutable_metadata()->mutable_annotations())[std::string(
      well_known::kNodeClaimTerminationTimestampAnnotationKey)] = "tomorrow";
  o.node_claims = {claim};
  Env env(std::move(o));
  auto drainer = env.MakeDrainer();
  REQUIRE(drainer->Drain("n1").ok());
  REQUIRE(drainer->Drain("n2").ok());
  const StepReport r = env.Step(*drainer);
  const NodeReport& n1 = Report(r, "n1");
  CHECK(!n1.done);
  CHECK(n1.error.code() == absl::StatusCode::kInvalidArgument);
  CHECK(absl::StrContains(n1.error.message(), "node \"n1\": "));
  CHECK(absl::StrContains(n1.error.message(), "\"tomorrow\""));
  CHECK(r.counts.evict_calls == 1);  // n2 proceeds.
  CHECK(drainer->nodes() == std::vector<std::string>{"n1", "n2"});
}

}  // namespace
}  // namespace karpenter::drain
