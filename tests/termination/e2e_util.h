// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// A termination harness for end-to-end tests: FakeCluster + FakeCloudProvider
// + FakeClock + recorders + termination::Executor, with object builders and
// a driver that steps the clock from one due instant to the next.

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
#include "karpenter/testing/fake_clock.h"
#include "karpenter/testing/fake_cloud_provider.h"
#include "karpenter/testing/fake_cluster.h"
#include "karpenter/testing/recorders.h"

namespace karpenter::termination::e2e {

// 2024-01-01T00:00:00Z.
inline const absl::Time kStart = absl::FromUnixSeconds(1704067200);

inline void Stamp(absl::Time t, google::protobuf::Timestamp* ts) {
  ts->set_seconds(absl::ToUnixSeconds(t));
}

inline std::string ProviderId(const std::string& node) {
  return "fake:///test-zone-a/i-" + node;
}

// A Ready managed Node with the termination finalizer, and its registered
// NodeClaim `<node>-claim`.
inline void AddManagedNode(snapshot::ObjectSet& o, const std::string& node,
                           std::optional<std::string> tgp = std::nullopt,
                           bool ready = true) {
  v1::Node n;
  n.mutable_metadata()->set_name(node);
  Stamp(kStart - absl::Hours(24),
        n.mutable_metadata()->mutable_creation_timestamp());
  (*n.mutable_metadata()->mutable_labels())["karpenter.sh/nodepool"] =
      "default";
  (*n.mutable_metadata()->mutable_labels())["topology.kubernetes.io/zone"] =
      "test-zone-a";
  n.mutable_metadata()->add_finalizers("karpenter.sh/termination");
  n.mutable_spec()->set_provider_id(ProviderId(node));
  v1::Condition* ready_condition = n.mutable_status()->add_conditions();
  ready_condition->set_type("Ready");
  ready_condition->set_status(ready ? "True" : "False");
  Stamp(kStart - absl::Hours(1),
        ready_condition->mutable_last_transition_time());
  o.nodes.push_back(std::move(n));

  v1::NodeClaim c;
  c.mutable_metadata()->set_name(node + "-claim");
  Stamp(kStart - absl::Hours(24),
        c.mutable_metadata()->mutable_creation_timestamp());
  (*c.mutable_metadata()->mutable_labels())["karpenter.sh/nodepool"] =
      "default";
  (*c.mutable_metadata()->mutable_labels())["karpenter.sh/capacity-type"] =
      "on-demand";
  c.mutable_metadata()->add_finalizers("karpenter.sh/termination");
  if (tgp.has_value()) c.mutable_spec()->set_termination_grace_period(*tgp);
  c.mutable_status()->set_provider_id(ProviderId(node));
  c.mutable_status()->set_node_name(node);
  for (const char* type : {"Launched", "Registered", "Initialized"}) {
    v1::Condition* cond = c.mutable_status()->add_conditions();
    cond->set_type(type);
    cond->set_status("True");
    Stamp(kStart - absl::Hours(24), cond->mutable_last_transition_time());
  }
  o.node_claims.push_back(std::move(c));
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

inline v1::Pod MakePod(const std::string& name, const PodOpts& s = {}) {
  v1::Pod p;
  v1::ObjectMeta& m = *p.mutable_metadata();
  m.set_namespace_("default");
  m.set_name(name);
  m.set_uid("uid-" + name);
  (*m.mutable_labels())["app"] = s.app;
  if (s.do_not_disrupt)
    (*m.mutable_annotations())["karpenter.sh/do-not-disrupt"] = "true";
  if (!s.owner.empty()) {
    v1::OwnerReference* ref = m.add_owner_references();
    ref->set_api_version(
        s.owner == "DaemonSet" || s.owner == "ReplicaSet" ? "apps/v1" : "v1");
    ref->set_kind(s.owner);
    ref->set_name(s.app);
    ref->set_uid("ctrl-" + s.app);
    ref->set_controller(true);
  }
  p.mutable_spec()->set_node_name(s.node);
  p.mutable_spec()->set_priority_class_name(s.priority_class);
  p.mutable_spec()->set_termination_grace_period_seconds(s.grace);
  if (s.tolerate_all)
    p.mutable_spec()->add_tolerations()->set_operator_("Exists");
  p.mutable_status()->set_phase("Running");
  Stamp(kStart - absl::Hours(2), p.mutable_status()->mutable_start_time());
  v1::Condition* c = p.mutable_status()->add_conditions();
  c->set_type("Ready");
  c->set_status("True");
  return p;
}

// `field` "min" or "max"; an integer amount.
inline v1::PodDisruptionBudget MakePdb(const std::string& name,
                                       const std::string& app,
                                       const std::string& field, int amount) {
  v1::PodDisruptionBudget pdb;
  pdb.mutable_metadata()->set_namespace_("default");
  pdb.mutable_metadata()->set_name(name);
  (*pdb.mutable_spec()->mutable_selector()->mutable_match_labels())["app"] =
      app;
  (field == "min" ? pdb.mutable_spec()->mutable_min_available()
                  : pdb.mutable_spec()->mutable_max_unavailable())
      ->set_number_value(amount);
  return pdb;
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
  // earliest instant either has pending work.
  std::optional<absl::Time> RunJanitor() {
    absl::StatusOr<snapshot::Snapshot> s = cluster->Read();
    REQUIRE(s.ok());
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
