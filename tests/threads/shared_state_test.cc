// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The library's thread-safety promises, exercised from several threads at
// once: a Snapshot and its SnapshotFacts shared by concurrent passes
// (snapshot.h, snapshot_facts.h, controller.h), one Scheduler whose lazily
// built per-NodePool tables are filled by concurrent Simulate calls
// (scheduler.h), concurrent loads that share the JSON decoder's table cache
// (load.h), and one CronSchedule read by many threads (cron.h). Each case
// compares what every thread got with a serial reference, and the TSan
// build (KARPENTER_SANITIZE_THREAD, target karpenter_thread_tests) reports
// any data race among them.

#include <catch2/catch.hpp>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "karpenter/budget/pdb.h"
#include "karpenter/cron.h"
#include "karpenter/disruption/candidates.h"
#include "karpenter/disruption/controller.h"
#include "karpenter/disruption/plan_proto.h"
#include "karpenter/disruption/scheduler.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/state/cluster_state.h"
#include "karpenter/testing/builders.h"
#include "karpenter/testing/synthetic_cluster.h"
#include "karpenter/v1/plan.pb.h"

namespace karpenter {
namespace {

constexpr int kThreads = 4;
const absl::Time kNow = absl::FromUnixSeconds(1717243200);  // 2024-06-01Z

// Runs `work(t)` on kThreads threads at once and joins them.
void RunOnThreads(const std::function<void(int)>& work) {
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(work, t);
  for (std::thread& thread : threads) thread.join();
}

// A synthetic cluster of `nodes` nodes and `pods_per_node` app pods each.
snapshot::ObjectSet SyntheticObjects(int nodes, int pods_per_node) {
  testing::SyntheticClusterOptions options;
  options.nodes = nodes;
  options.app_pods_per_node = pods_per_node;
  absl::StatusOr<snapshot::ObjectSet> objects =
      testing::MakeSyntheticCluster(options);
  REQUIRE(objects.ok());
  return *std::move(objects);
}

snapshot::Snapshot SyntheticSnapshot() {
  absl::StatusOr<snapshot::Snapshot> built =
      snapshot::Snapshot::Build(SyntheticObjects(60, 6));
  REQUIRE(built.ok());
  return *std::move(built);
}

// Priced instance types for every NodePool, so that consolidation runs.
InstanceTypeCatalog PricedCatalog(const snapshot::Snapshot& s) {
  std::vector<InstanceType> types;
  for (const auto& [name, cpu, price] :
       {std::tuple{"m5.large", "2", 0.096}, std::tuple{"m5.xlarge", "4", 0.192},
        std::tuple{"c5.2xlarge", "8", 0.34}}) {
    types.push_back(testing::MakeInstanceType(
        {.name = name,
         .cpu = cpu,
         .memory = "16Gi",
         .pods = "58",
         .zones = {"us-west-2a", "us-west-2b", "us-west-2c"},
         .on_demand_price = price}));
  }
  InstanceTypeCatalog catalog;
  for (const v1::NodePool& pool : s.node_pools()) {
    catalog[pool.metadata().name()] = types;
  }
  return catalog;
}

std::string PlanBytes(const absl::StatusOr<disruption::Plan>& plan) {
  if (!plan.ok()) return absl::StrCat("error: ", plan.status().ToString());
  std::string bytes;
  disruption::PlanToProto(*plan).SerializeToString(&bytes);
  return bytes;
}

TEST_CASE("threads: concurrent passes over one Snapshot and SnapshotFacts",
          "[threads][disruption]") {
  const snapshot::Snapshot snap = SyntheticSnapshot();
  const disruption::SnapshotFacts facts =
      disruption::SnapshotFacts::Build(snap);
  disruption::PassInputs inputs;
  inputs.catalog = PricedCatalog(snap);
  const disruption::Controller controller;
  // Passes at several instants, so that the threads do not all take the
  // same path through the budgets.
  std::vector<std::string> expected;
  for (int i = 0; i < kThreads; ++i) {
    expected.push_back(
        PlanBytes(controller.Decide(facts, inputs, kNow + absl::Hours(7 * i))));
  }
  REQUIRE(expected[0].rfind("error", 0) != 0);
  std::vector<std::vector<std::string>> got(kThreads);
  RunOnThreads([&](int t) {
    for (int round = 0; round < 3; ++round) {
      const int i = (t + round) % kThreads;
      got[t].push_back(PlanBytes(
          controller.Decide(facts, inputs, kNow + absl::Hours(7 * i))));
      // The snapshot-taking overload builds its own facts from the shared
      // snapshot.
      got[t].push_back(PlanBytes(
          controller.Decide(snap, inputs, kNow + absl::Hours(7 * i))));
    }
  });
  for (int t = 0; t < kThreads; ++t) {
    for (int round = 0; round < 3; ++round) {
      const int i = (t + round) % kThreads;
      CHECK(got[t][2 * round] == expected[i]);
      CHECK(got[t][2 * round + 1] == expected[i]);
    }
  }
}

TEST_CASE(
    "threads: a publication's facts are built on first use by concurrent "
    "passes while the next publication hands them on",
    "[threads][disruption]") {
  const snapshot::ObjectSet objects = SyntheticObjects(60, 6);
  state::ClusterState cluster;
  REQUIRE(cluster.ApplyAll(objects).ok());
  absl::StatusOr<std::shared_ptr<const state::Published>> published =
      cluster.Publish();
  REQUIRE(published.ok());
  const snapshot::Snapshot& snap = (*published)->snapshot;
  const disruption::SnapshotFacts& facts = *(*published)->facts;
  disruption::PassInputs inputs;
  inputs.catalog = PricedCatalog(snap);
  const disruption::Controller controller;
  // The reference: facts of their own over the same snapshot.
  const disruption::SnapshotFacts own = disruption::SnapshotFacts::Build(snap);
  std::vector<std::string> expected;
  for (int i = 0; i < kThreads; ++i) {
    expected.push_back(
        PlanBytes(controller.Decide(own, inputs, kNow + absl::Hours(7 * i))));
  }
  REQUIRE(expected[0].rfind("error", 0) != 0);
  // The threads race to build the budgets, the drift book and the candidate
  // facts of `facts`; meanwhile this thread publishes twice more (pod
  // events only), each publication reading what the one before holds.
  std::vector<std::string> got(kThreads);
  std::vector<const budget::BudgetBook*> books(kThreads);
  std::thread publisher([&] {
    for (int i = 0; i < 2; ++i) {
      v1::Pod pod = objects.pods[0];
      pod.mutable_metadata()->set_name(absl::StrCat("extra-", i));
      pod.mutable_metadata()->set_uid(absl::StrCat("extra-uid-", i));
      state::Event event;
      event.object = std::move(pod);
      absl::StatusOr<state::Applied> applied = cluster.Apply(std::move(event));
      absl::StatusOr<std::shared_ptr<const state::Published>> next =
          cluster.Publish();
      if (!applied.ok() || !next.ok()) return;
      (void)(*next)->facts->budgets();
    }
  });
  RunOnThreads([&](int t) {
    got[t] =
        PlanBytes(controller.Decide(facts, inputs, kNow + absl::Hours(7 * t)));
    books[t] = &facts.budgets();
  });
  publisher.join();
  for (int t = 0; t < kThreads; ++t) {
    CHECK(got[t] == expected[t]);
    CHECK(books[t] == books[0]);
  }
}

std::string Describe(const disruption::SimulationResult& r) {
  std::vector<std::string> claims;
  for (const disruption::Replacement& c : r.new_node_claims) {
    claims.push_back(absl::StrCat(
        c.node_pool, ":", absl::StrJoin(c.instance_types, ","), "@", c.price));
  }
  return absl::StrCat(
      r.all_pods_scheduled, " [", absl::StrJoin(r.unschedulable, "; "), "] [",
      absl::StrJoin(claims, " "), "] ", r.unsupported.value_or("-"));
}

TEST_CASE(
    "threads: one Scheduler fills its NodePool tables under concurrent "
    "Simulate calls",
    "[threads][disruption]") {
  const snapshot::Snapshot snap = SyntheticSnapshot();
  const InstanceTypeCatalog catalog = PricedCatalog(snap);
  const budget::PdbIndex pdbs = budget::PdbIndex::Build(snap);
  disruption::CandidateContext ctx;
  ctx.snapshot = &snap;
  ctx.pdbs = &pdbs;
  ctx.catalog = &catalog;
  ctx.now = kNow;
  absl::StatusOr<disruption::CandidatePool> pool =
      disruption::CandidatePool::Build(ctx);
  REQUIRE(pool.ok());
  const std::vector<disruption::Candidate> candidates =
      pool->For(disruption::Method::kSingleNodeConsolidation).candidates;
  REQUIRE(candidates.size() >= 20);

  // Reference answers from a Scheduler of its own, filled serially.
  absl::StatusOr<disruption::Scheduler> serial =
      disruption::Scheduler::Build(snap, catalog);
  REQUIRE(serial.ok());
  std::vector<std::string> expected;
  for (const disruption::Candidate& c : candidates) {
    expected.push_back(Describe(serial->Simulate({c})));
  }
  // A fresh Scheduler: its tables are built by whichever thread needs
  // them first. Each thread starts at a different candidate.
  absl::StatusOr<disruption::Scheduler> shared =
      disruption::Scheduler::Build(snap, catalog);
  REQUIRE(shared.ok());
  const size_t n = candidates.size();
  std::vector<std::vector<std::string>> got(kThreads,
                                            std::vector<std::string>(n));
  RunOnThreads([&](int t) {
    for (size_t k = 0; k < n; ++k) {
      const size_t i = (k + static_cast<size_t>(t) * n / kThreads) % n;
      got[t][i] = Describe(shared->Simulate({candidates[i]}));
    }
  });
  for (int t = 0; t < kThreads; ++t) CHECK(got[t] == expected);
}

std::string ReadTestdata(const std::string& name) {
  std::ifstream in(std::string(KARPENTER_TESTDATA_DIR) + "/" + name);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

TEST_CASE(
    "threads: a ClusterState's snapshot builds its pod index on the first "
    "FindPod from any thread",
    "[threads][snapshot]") {
  snapshot::ObjectSet objects = SyntheticObjects(40, 5);
  std::vector<std::pair<std::string, std::string>> keys;
  for (const v1::Pod& pod : objects.pods) {
    keys.emplace_back(pod.metadata().namespace_(), pod.metadata().name());
  }
  state::ClusterState cluster;
  REQUIRE(cluster.ApplyAll(std::move(objects)).ok());
  absl::StatusOr<std::shared_ptr<const state::Published>> published =
      cluster.Publish();
  REQUIRE(published.ok());
  const snapshot::Snapshot& snap = (*published)->snapshot;
  std::vector<int> found(kThreads, 0);
  RunOnThreads([&](int t) {
    // Each thread starts at another pod, all racing to the first lookup.
    for (size_t k = 0; k < keys.size(); ++k) {
      const auto& [ns, name] =
          keys[(k + static_cast<size_t>(t) * 37) % keys.size()];
      const std::optional<snapshot::PodIndex> p = snap.FindPod(ns, name);
      if (p && snap.PodName(*p) == name) ++found[t];
    }
  });
  for (int t = 0; t < kThreads; ++t) {
    CHECK(found[t] == static_cast<int>(keys.size()));
  }
  CHECK_FALSE(snap.FindPod(keys[0].first, "no-such-pod").has_value());
}

TEST_CASE("threads: concurrent JSON and YAML loads", "[threads][snapshot]") {
  const std::string json = ReadTestdata("cluster-list.json");
  const std::string yaml = ReadTestdata("cluster-list.yaml");
  REQUIRE(!json.empty());
  REQUIRE(!yaml.empty());
  std::vector<std::string> got(kThreads);
  RunOnThreads([&](int t) {
    // Half the threads start with JSON, whose decoder builds its shared
    // per-message tables on first use.
    std::string summary;
    for (int round = 0; round < 4; ++round) {
      const bool as_json = (t + round) % 2 == 0;
      snapshot::ObjectSet objects;
      const absl::Status status =
          as_json ? snapshot::LoadJson(json, "cluster-list.json", objects)
                  : snapshot::LoadYaml(yaml, "cluster-list.yaml", objects);
      absl::StrAppend(&summary, status.ok(), ":", objects.nodes.size(), "/",
                      objects.pods.size(), "/", objects.node_pools.size(), " ");
    }
    got[t] = summary;
  });
  snapshot::ObjectSet from_json;
  REQUIRE(snapshot::LoadJson(json, "cluster-list.json", from_json).ok());
  REQUIRE(!from_json.nodes.empty());
  const std::string one =
      absl::StrCat("1:", from_json.nodes.size(), "/", from_json.pods.size(),
                   "/", from_json.node_pools.size(), " ");
  for (int t = 0; t < kThreads; ++t) {
    CHECK(got[t] == absl::StrCat(one, one, one, one));
  }
}

TEST_CASE("threads: one CronSchedule read from many threads",
          "[threads][cron]") {
  absl::StatusOr<CronSchedule> schedule =
      CronSchedule::Parse("TZ=Europe/Berlin 30 2 * 3,10 0");
  REQUIRE(schedule.ok());
  std::vector<absl::Time> expected;
  absl::Time at = kNow;
  for (int i = 0; i < 50; ++i) {
    at = schedule->Next(at);
    expected.push_back(at);
  }
  std::vector<std::vector<absl::Time>> got(kThreads);
  RunOnThreads([&](int t) {
    absl::Time from = kNow;
    for (int i = 0; i < 50; ++i) {
      from = schedule->Next(from);
      got[t].push_back(from);
    }
  });
  for (int t = 0; t < kThreads; ++t) CHECK(got[t] == expected);
}

}  // namespace
}  // namespace karpenter
