// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/testing/recorders.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace karpenter::testing {
namespace {

Event MakeEvent(std::string name, absl::string_view reason,
                EventType type = EventType::kNormal) {
  Event e;
  e.kind = "Node";
  e.name = std::move(name);
  e.type = type;
  e.reason = std::string(reason);
  e.message = "m";
  return e;
}

TEST_CASE("recorders: events are kept in order and counted by reason",
          "[recorders]") {
  RecordingEventRecorder rec;
  EventRecorder& sink = rec;  // Used through the interface, as the SDK does.
  sink.Record(MakeEvent("n1", events::kDisruptionTerminating));
  sink.Record(MakeEvent("n2", events::kFailedDraining, EventType::kWarning));
  sink.Record(MakeEvent("n1", events::kFailedDraining, EventType::kWarning));
  REQUIRE(rec.events().size() == 3);
  CHECK(rec.events()[1] ==
        MakeEvent("n2", events::kFailedDraining, EventType::kWarning));
  CHECK(rec.Count(events::kFailedDraining) == 2);
  CHECK(rec.Count(events::kDisruptionTerminating) == 1);
  CHECK(rec.Count(events::kEvicted) == 0);
  CHECK(rec.Lines() ==
        std::vector<std::string>{"Normal DisruptionTerminating Node/n1: m",
                                 "Warning FailedDraining Node/n2: m",
                                 "Warning FailedDraining Node/n1: m"});
  rec.Clear();
  CHECK(rec.events().empty());
  CHECK(rec.Count(events::kFailedDraining) == 0);
}

TEST_CASE("recorders: concurrent events are all kept", "[recorders][threads]") {
  RecordingEventRecorder rec;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&rec, t] {
      for (int i = 0; i < 100; ++i) {
        rec.Record(MakeEvent(absl::StrCat("n", t, "-", i), events::kEvicted));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(rec.Count(events::kEvicted) == 400);
}

TEST_CASE("recorders: counters and gauges by label set", "[recorders]") {
  InMemoryMetrics m;
  Metrics& sink = m;
  const MetricLabels a = {{"nodepool", "default"}, {"zone", "a"}};
  const MetricLabels b = {{"nodepool", "default"}, {"zone", "b"}};
  sink.Add(metrics::kNodesTerminatedTotal, a, 1);
  sink.Add(metrics::kNodesTerminatedTotal, a, 2);
  sink.Add(metrics::kNodesTerminatedTotal, b, 0.5);
  sink.Set("karpenter_gauge", {}, 7);
  sink.Set("karpenter_gauge", {}, 3);
  CHECK(m.Value(metrics::kNodesTerminatedTotal, a) == 3);
  CHECK(m.Value(metrics::kNodesTerminatedTotal, b) == 0.5);
  CHECK(m.Value(metrics::kNodesTerminatedTotal, {{"zone", "a"}}) == 0);
  CHECK(m.Value("absent", {}) == 0);
  CHECK(m.Total(metrics::kNodesTerminatedTotal) == 3.5);
  CHECK(m.Total("absent") == 0);
  CHECK(m.Value("karpenter_gauge") == 3);  // Set replaces.
  CHECK(m.contract_violations() == 0);
}

TEST_CASE("recorders: observations are kept in order", "[recorders]") {
  InMemoryMetrics m;
  const MetricLabels pool = {{"nodepool", "default"}};
  m.Observe(metrics::kNodesTerminationDurationSeconds, pool, 12.5);
  m.Observe(metrics::kNodesTerminationDurationSeconds, pool, 3);
  CHECK(m.Observations(metrics::kNodesTerminationDurationSeconds, pool) ==
        std::vector<double>{12.5, 3});
  CHECK(m.Observations(metrics::kNodesTerminationDurationSeconds, {}).empty());
  CHECK(m.Observations("absent").empty());
  CHECK(m.Value(metrics::kNodesTerminationDurationSeconds, pool) == 0);
  CHECK(m.contract_violations() == 0);
}

TEST_CASE("recorders: Dump prints sorted Prometheus text lines",
          "[recorders]") {
  InMemoryMetrics m;
  m.Add(metrics::kNodesTerminatedTotal, {{"zone", "b"}, {"nodepool", "p"}}, 1);
  m.Add(metrics::kNodesTerminatedTotal,
        {{"nodepool", "default"}, {"zone", "a"}}, 1);
  m.Add(metrics::kPodsDrainedTotal, {{"reason", "quote\"back\\slash\nnl"}}, 2);
  m.Set("karpenter_up", {}, 1);
  m.Observe(metrics::kNodeClaimsTerminationDurationSeconds,
            {{"nodepool", "default"}}, 1.5);
  m.Observe(metrics::kNodeClaimsTerminationDurationSeconds,
            {{"nodepool", "default"}}, 2);
  const std::vector<std::string> want = {
      "karpenter_nodeclaims_termination_duration_seconds_count"
      "{nodepool=\"default\"} 2",
      "karpenter_nodeclaims_termination_duration_seconds_sum"
      "{nodepool=\"default\"} 3.5",
      "karpenter_nodes_terminated_total{nodepool=\"default\",zone=\"a\"} 1",
      "karpenter_nodes_terminated_total{nodepool=\"p\",zone=\"b\"} 1",
      "karpenter_pods_drained_total"
      "{reason=\"quote\\\"back\\\\slash\\nnl\"} 2",
      "karpenter_up 1",
  };
  CHECK(m.Dump() == want);
  m.Clear();
  CHECK(m.Dump().empty());
}

TEST_CASE("recorders: contract misuse is recorded and counted", "[recorders]") {
  InMemoryMetrics m;
  SECTION("negative delta") {
    m.Add(metrics::kNodesDrainedTotal, {}, -1);
    CHECK(m.Value(metrics::kNodesDrainedTotal) == -1);  // Recorded anyway.
    CHECK(m.contract_violations() == 1);
    REQUIRE(m.ContractViolationMessages().size() == 1);
    CHECK(absl::StrContains(m.ContractViolationMessages()[0],
                            "delta \"-1\": must be >= 0"));
  }
  SECTION("NaN delta") {
    m.Add(metrics::kNodesDrainedTotal, {}, std::nan(""));
    CHECK(m.contract_violations() == 1);
  }
  SECTION("one name, two verbs") {
    m.Add(metrics::kNodesDrainedTotal, {}, 1);
    m.Set(metrics::kNodesDrainedTotal, {}, 5);
    m.Observe(metrics::kNodesDrainedTotal, {}, 5);
    CHECK(m.contract_violations() == 2);
    CHECK(absl::StrContains(m.ContractViolationMessages()[0],
                            "Set on a metric first used with Add"));
    m.Clear();
    CHECK(m.contract_violations() == 0);
  }
  SECTION("zero delta is fine") {
    m.Add(metrics::kNodesDrainedTotal, {}, 0);
    CHECK(m.contract_violations() == 0);
  }
}

TEST_CASE("recorders: concurrent Adds sum exactly", "[recorders][threads]") {
  InMemoryMetrics m;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&m] {
      for (int i = 0; i < 1000; ++i) {
        m.Add(metrics::kPodsEvictionRequestsTotal, {{"code", "200"}}, 1);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(m.Value(metrics::kPodsEvictionRequestsTotal, {{"code", "200"}}) ==
        4000);
}

}  // namespace
}  // namespace karpenter::testing
