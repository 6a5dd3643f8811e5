// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// A termination harness for end-to-end tests: FakeCluster + FakeCloudProvider
// + FakeClock + recorders + termination::Executor, with object builders and
// a driver that steps the clock from one due instant to the next. The objects
// are the test kit's (karpenter/testing/builders.h).

#ifndef KARPENTER_TESTS_TERMINATION_E2E_UTIL_H_
#define KARPENTER_TESTS_TERMINATION_E2E_UTIL_H_

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "karpenter/termination/executor.h"
#include "karpenter/termination/garbage_collection.h"
#include "karpenter/termination/janitor.h"
#include "karpenter/termination/liveness.h"
#include "karpenter/testing/builders.h"
#include "karpenter/testing/fake_clock.h"
#include "karpenter/testing/fake_cloud_provider.h"
#include "karpenter/testing/fake_cluster.h"
#include "karpenter/testing/recorders.h"

namespace karpenter::termination::e2e {

// 2024-01-01T00:00:00Z.
inline constexpr absl::Time kStart = testing::kTestEpoch;

inline std::string ProviderId(const std::string& node) {
  return "fake:///test-zone-a/i-" + node;
}

// A Ready managed Node with the termination finalizer, and its registered
// NodeClaim `<node>-claim`: the kit's (karpenter/testing/builders.h),
// created a day before kStart, in test-zone-a.
inline void AddManagedNode(snapshot::ObjectSet& o, const std::string& node,
                           std::optional<std::string> tgp = std::nullopt,
                           bool ready = true) {
  testing::ManagedNode m = testing::MakeManagedNode(
      {.name = node,
       .provider_id = ProviderId(node),
       .initialized = false,
       .zone = "test-zone-a",
       .finalizers = {"karpenter.sh/termination"},
       .created = kStart - absl::Hours(24),
       .ready = ready ? "True" : "False",
       .ready_since = kStart - absl::Hours(1)},
      {.capacity_type = "on-demand",
       .finalizers = {"karpenter.sh/termination"},
       .created = kStart - absl::Hours(24),
       .termination_grace_period = std::move(tgp),
       .conditions = testing::LifecycleConditions(kStart - absl::Hours(24))});
  o.nodes.push_back(std::move(m.node));
  o.node_claims.push_back(std::move(m.node_claim));
}

struct PodOpts {
  std::string app = "web";
  std::string node = "victim";
  // Controller kind; "" for a bare pod. "Node" makes a mirror pod.
  std::string owner = "ReplicaSet";
  std::string priority_class = "";
  int64_t grace = 30;
  bool do_not_disrupt = false;
  bool tolerate_all = false;
};

// The kit's pod `name` as PodOpts describe it, started two hours before
// kStart.
inline v1::Pod MakePod(const std::string& name, const PodOpts& s = {}) {
  return testing::MakePod(
      {.name = name,
       .app = s.app,
       .node = s.node,
       .owner = s.owner,
       .priority_class = s.priority_class,
       .grace = s.grace,
       .annotations =
           s.do_not_disrupt
               ? testing::Labels{{"karpenter.sh/do-not-disrupt", "true"}}
               : testing::Labels{},
       .started = kStart - absl::Hours(2),
       .tolerations = s.tolerate_all
                          ? std::vector<v1::Toleration>{testing::MakeToleration(
                                "", "Exists")}
                          : std::vector<v1::Toleration>{}});
}

struct Harness {
  explicit Harness(snapshot::ObjectSet objects,
                   testing::FakeCloudProviderOptions cloud_options = {},
                   ExecutorOptions executor_options = {})
      : clock(kStart), options(std::move(executor_options)) {
    std::vector<std::string> provider_ids;
    for (const v1::NodeClaim& c : objects.node_claims) {
      provider_ids.push_back(c.status().provider_id());
    }
    absl::StatusOr<std::unique_ptr<testing::FakeCluster>> c =
        testing::FakeCluster::Create(std::move(objects), clock);
    REQUIRE(c.ok());
    cluster = *std::move(c);
    absl::StatusOr<std::unique_ptr<testing::FakeCloudProvider>> p =
        testing::FakeCloudProvider::Create(clock, cloud_options);
    REQUIRE(p.ok());
    cloud = *std::move(p);
    for (const std::string& id : provider_ids) {
      Instance i;
      i.provider_id = id;
      i.created = kStart - absl::Hours(24);
      REQUIRE(cloud->AddInstance(i).ok());
    }
    Restart();
  }

  // A fresh executor: the old one's soft state (queue, backoff) is lost.
  void Restart() {
    executor.reset();
    absl::StatusOr<std::unique_ptr<Executor>> e = Executor::Create(
        *cluster, *cluster, *cloud, events, metrics, clock, options);
    REQUIRE(e.ok());
    executor = *std::move(e);
  }

  // Runs passes, stepping the clock to the next instant anything is due,
  // until no termination is in progress or the clock would pass `limit`.
  // With `restart_after_each_side_effect`, every pass runs on a fresh
  // executor (for_test.side_effect_limit 1, so queue and backoff are lost) that
  // "crashes" at its second side effect; an interrupted pass is re-run at
  // the same instant.
  void Run(absl::Time limit, bool restart_after_each_side_effect = false) {
    for (int pass = 0; pass < 200000; ++pass) {
      if (restart_after_each_side_effect) {
        options.for_test.side_effect_limit = 1;
        Restart();
      }
      std::optional<absl::Time> janitor_wake;
      if (janitor) janitor_wake = RunJanitor();
      absl::StatusOr<PassReport> r = executor->RunOnce();
      REQUIRE(r.ok());
      ++passes;
      if (r->interrupted) {
        ++restarts;
        continue;  // Crashed mid-pass: restart at the same instant.
      }
      if (r->mutations > 0) continue;  // Decide again on the new state.
      if (r->terminating == 0 && !r->drain.has_value() &&
          !janitor_wake.has_value() && !cluster->NextEventTime() &&
          !cloud->NextEventTime()) {
        return;
      }
      absl::Time next = r->next_wake;
      if (janitor_wake.has_value()) next = std::min(next, *janitor_wake);
      if (std::optional<absl::Time> t = cluster->NextEventTime()) {
        next = std::min(next, *t);
      }
      if (std::optional<absl::Time> t = cloud->NextEventTime()) {
        next = std::min(next, *t);
      }
      next = std::max(next, clock.Now() + absl::Milliseconds(1));
      if (next > limit) {
        REQUIRE(cluster->RunUntil(clock, limit).ok());
        cloud->Settle();
        return;
      }
      REQUIRE(cluster->RunUntil(clock, next).ok());
      cloud->Settle();
    }
    FAIL("the termination did not settle");
  }

  // One liveness and one garbage-collection round, applied; returns the
  // earliest instant either has pending work. The repair policies come from
  // the cloud provider, as a host takes them (the fake's are AWS's; change
  // them with cloud->SetRepairPolicies).
  std::optional<absl::Time> RunJanitor() {
    absl::StatusOr<snapshot::Snapshot> s = cluster->Read();
    REQUIRE(s.ok());
    liveness.repair_policies = cloud->RepairPolicies();
    absl::StatusOr<LivenessReport> live =
        EvaluateLiveness(*s, clock.Now(), liveness);
    REQUIRE(live.ok());
    janitor_log.push_back(ApplyLiveness(*live, *cluster, events, metrics));
    absl::StatusOr<std::vector<Instance>> instances = cloud->List();
    REQUIRE(instances.ok());
    absl::StatusOr<GarbageCollectionReport> gc =
        CollectGarbage(*s, *instances, clock.Now(), gc_options);
    REQUIRE(gc.ok());
    janitor_log.push_back(
        ApplyGarbageCollection(*gc, *cluster, *cloud, events, metrics));
    std::optional<absl::Time> wake = live->next_wake;
    if (gc->next_wake.has_value() &&
        (!wake.has_value() || *gc->next_wake < *wake)) {
      wake = gc->next_wake;
    }
    return wake;
  }

  bool NodeExists(const std::string& name) {
    absl::StatusOr<snapshot::Snapshot> s = cluster->Read();
    REQUIRE(s.ok());
    return s->FindNode(name).has_value();
  }
  bool ClaimExists(const std::string& name) {
    absl::StatusOr<snapshot::Snapshot> s = cluster->Read();
    REQUIRE(s.ok());
    return s->FindNodeClaim(name).has_value();
  }

  testing::FakeClock clock;
  ExecutorOptions options;
  std::unique_ptr<testing::FakeCluster> cluster;
  std::unique_ptr<testing::FakeCloudProvider> cloud;
  testing::RecordingEventRecorder events;
  testing::InMemoryMetrics metrics;
  std::unique_ptr<Executor> executor;
  // Run liveness and garbage collection before every pass.
  bool janitor = false;
  // repair_policies is overwritten from `cloud` by every RunJanitor.
  LivenessOptions liveness;
  GarbageCollectionOptions gc_options;
  std::vector<JanitorResult> janitor_log;
  int passes = 0;
  int restarts = 0;
};

// A FakeCluster call-log line split into its instant and the rest.
struct LogLine {
  absl::Time at;
  std::string text;
};

inline std::vector<LogLine> ParseLog(const std::vector<std::string>& lines) {
  std::vector<LogLine> out;
  for (const std::string& line : lines) {
    const size_t space = line.find(' ');
    LogLine l;
    std::string err;
    REQUIRE(absl::ParseTime(absl::RFC3339_full, line.substr(0, space), &l.at,
                            &err));
    l.text = line.substr(space + 1);
    out.push_back(std::move(l));
  }
  return out;
}

// The first instant a line starting with `prefix` was logged, if any.
inline std::optional<absl::Time> FirstAt(const std::vector<LogLine>& log,
                                         const std::string& prefix) {
  for (const LogLine& l : log) {
    if (absl::StartsWith(l.text, prefix)) return l.at;
  }
  return std::nullopt;
}

inline int CountPrefix(const std::vector<LogLine>& log,
                       const std::string& prefix) {
  return static_cast<int>(std::count_if(
      log.begin(), log.end(),
      [&](const LogLine& l) { return absl::StartsWith(l.text, prefix); }));
}

}  // namespace karpenter::termination::e2e

#endif  // KARPENTER_TESTS_TERMINATION_E2E_UTIL_H_
