// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// A pod's requests after an in-place resize, as Karpenter v1.14.0 computes
// them (pkg/utils/resources/resources.go `Ceiling`: component-helpers
// resource.PodRequests with UseStatusResources), in milli-units.

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "karpenter/scheduling/resources.h"
#include "karpenter/snapshot/load.h"
#include "resources_test_util.h"

namespace karpenter::scheduling {
namespace {

using resources_test::Requests;
using resources_test::ViaCalculator;

constexpr int64_t kMi = int64_t{1} << 20;

// One container "a" requesting cpu 200m and memory 100Mi.
constexpr char kOneContainer[] =
    "containers: [{name: a, resources: {requests: {cpu: 200m, memory: "
    "100Mi}}}]";

struct Case {
  std::string name;
  std::string spec;
  std::string status;
  Requests want;
};

const std::vector<Case>& Cases() {
  static const auto* cases = new std::vector<Case>{
      {"no status: the spec",
       kOneContainer,
       "phase: Running",
       {{"cpu", 200}, {"memory", 100 * kMi * 1000}, {"pods", 1000}}},
      {"resize up actuated: status above the spec wins",
       kOneContainer,
       "containerStatuses: [{name: a, resources: {requests: {cpu: \"1\", "
       "memory: 100Mi}}, allocatedResources: {cpu: \"1\", memory: 100Mi}}]",
       {{"cpu", 1000}, {"memory", 100 * kMi * 1000}, {"pods", 1000}}},
      {"resize down not actuated: the old, larger status wins",
       kOneContainer,
       "containerStatuses: [{name: a, resources: {requests: {cpu: 800m}}, "
       "allocatedResources: {cpu: 800m}}]",
       {{"cpu", 800}, {"memory", 100 * kMi * 1000}, {"pods", 1000}}},
      {"resize up pending: status below the spec, the spec wins",
       kOneContainer,
       "containerStatuses: [{name: a, resources: {requests: {cpu: 50m, "
       "memory: 10Mi}}, allocatedResources: {cpu: 50m, memory: 10Mi}}]",
       {{"cpu", 200}, {"memory", 100 * kMi * 1000}, {"pods", 1000}}},
      {"allocated above actuated and spec",
       kOneContainer,
       "containerStatuses: [{name: a, resources: {requests: {cpu: 300m}}, "
       "allocatedResources: {cpu: 600m}}]",
       {{"cpu", 600}, {"memory", 100 * kMi * 1000}, {"pods", 1000}}},
      {"allocated only, with resources present but empty",
       kOneContainer,
       "containerStatuses: [{name: a, resources: {}, allocatedResources: "
       "{cpu: 700m}}]",
       {{"cpu", 700}, {"memory", 100 * kMi * 1000}, {"pods", 1000}}},
      {"resources absent: allocatedResources is ignored",
       kOneContainer,
       "containerStatuses: [{name: a, allocatedResources: {cpu: \"3\", "
       "memory: 1Gi}}]",
       {{"cpu", 200}, {"memory", 100 * kMi * 1000}, {"pods", 1000}}},
      {"resources null: absent too",
       kOneContainer,
       "containerStatuses: [{name: a, resources: null, allocatedResources: "
       "{cpu: \"3\"}}]",
       {{"cpu", 200}, {"memory", 100 * kMi * 1000}, {"pods", 1000}}},
      {"a status of another name does not apply",
       kOneContainer,
       "containerStatuses: [{name: b, resources: {requests: {cpu: \"2\"}}}]",
       {{"cpu", 200}, {"memory", 100 * kMi * 1000}, {"pods", 1000}}},
      {"a resource only in status is counted",
       kOneContainer,
       "containerStatuses: [{name: a, resources: {requests: "
       "{ephemeral-storage: 1Gi}}, allocatedResources: {example.com/x: "
       "\"2\"}}]",
       {{"cpu", 200},
        {"ephemeral-storage", 1024 * kMi * 1000},
        {"example.com/x", 2000},
        {"memory", 100 * kMi * 1000},
        {"pods", 1000}}},
      {"the spec's limit-as-request is the spec side of the max",
       "containers: [{name: a, resources: {limits: {cpu: \"2\"}}}]",
       "containerStatuses: [{name: a, resources: {requests: {cpu: \"1\"}}}]",
       {{"cpu", 2000}, {"pods", 1000}}},
      {"Infeasible resize: the spec is ignored",
       kOneContainer,
       "conditions: [{type: PodResizePending, status: \"True\", reason: "
       "Infeasible}], containerStatuses: [{name: a, resources: {requests: "
       "{cpu: 100m}}, allocatedResources: {cpu: 150m}}]",
       {{"cpu", 150}, {"pods", 1000}}},
      {"Infeasible resize without status resources: the spec",
       kOneContainer,
       "conditions: [{type: PodResizePending, status: \"True\", reason: "
       "Infeasible}], containerStatuses: [{name: a, allocatedResources: "
       "{cpu: 150m}}]",
       {{"cpu", 200}, {"memory", 100 * kMi * 1000}, {"pods", 1000}}},
      {"Deferred resize: the usual max",
       kOneContainer,
       "conditions: [{type: PodResizePending, status: \"True\", reason: "
       "Deferred}], containerStatuses: [{name: a, resources: {requests: "
       "{cpu: 100m}}, allocatedResources: {cpu: 150m}}]",
       {{"cpu", 200}, {"memory", 100 * kMi * 1000}, {"pods", 1000}}},
      {"only the first PodResizePending condition is read",
       kOneContainer,
       "conditions: [{type: PodResizePending, reason: Deferred}, {type: "
       "PodResizePending, reason: Infeasible}], containerStatuses: [{name: "
       "a, resources: {requests: {cpu: 100m}}}]",
       {{"cpu", 200}, {"memory", 100 * kMi * 1000}, {"pods", 1000}}},
      {"a sidecar reads its initContainerStatuses entry",
       "containers: [{name: a, resources: {requests: {cpu: 100m}}}], "
       "initContainers: [{name: s, restartPolicy: Always, resources: "
       "{requests: {cpu: 100m}}}]",
       "initContainerStatuses: [{name: s, resources: {requests: {cpu: "
       "400m}}, allocatedResources: {cpu: 400m}}]",
       {{"cpu", 500}, {"pods", 1000}}},
      {"a plain init container ignores its status",
       "containers: [{name: a, resources: {requests: {cpu: 100m}}}], "
       "initContainers: [{name: i, resources: {requests: {cpu: 300m}}}]",
       "initContainerStatuses: [{name: i, resources: {requests: {cpu: "
       "\"5\"}}, allocatedResources: {cpu: \"5\"}}]",
       {{"cpu", 300}, {"pods", 1000}}},
      {"an init status with the container's name wins over its own",
       kOneContainer,
       "containerStatuses: [{name: a, resources: {requests: {cpu: \"4\"}}}], "
       "initContainerStatuses: [{name: a, resources: {requests: {cpu: "
       "300m}}}]",
       {{"cpu", 300}, {"memory", 100 * kMi * 1000}, {"pods", 1000}}},
      {"of two entries with one name, the last",
       kOneContainer,
       "containerStatuses: [{name: a, resources: {requests: {cpu: \"4\"}}}, "
       "{name: a, resources: {requests: {cpu: 300m}}}]",
       {{"cpu", 300}, {"memory", 100 * kMi * 1000}, {"pods", 1000}}},
      {"containers sum their effective requests",
       "containers: [{name: a, resources: {requests: {cpu: 100m}}}, {name: "
       "b, resources: {requests: {cpu: 100m}}}]",
       "containerStatuses: [{name: b, resources: {requests: {cpu: 900m}}}]",
       {{"cpu", 1000}, {"pods", 1000}}},
      {"pod-level requests still override the containers",
       "containers: [{name: a, resources: {requests: {cpu: 100m}}}], "
       "resources: {requests: {cpu: 500m}}",
       "containerStatuses: [{name: a, resources: {requests: {cpu: \"2\", "
       "memory: 1Mi}}}]",
       {{"cpu", 500}, {"memory", kMi * 1000}, {"pods", 1000}}},
      {"overhead is added to the effective requests",
       std::string(kOneContainer) + ", overhead: {cpu: 50m}",
       "containerStatuses: [{name: a, resources: {requests: {cpu: \"1\"}}}]",
       {{"cpu", 1000 + 50}, {"memory", 100 * kMi * 1000}, {"pods", 1000}}},
  };
  return *cases;
}

TEST_CASE("PodRequests: in-place resize status", "[scheduling][resize]") {
  PodRequestsCalculator calc;
  for (const Case& c : Cases()) {
    CAPTURE(c.name);
    const v1::Pod pod = resources_test::PodFromYaml(c.spec, c.status);
    resources_test::CheckRequests(calc, pod, c.want);
  }
}

TEST_CASE("PodRequests: many status entries are found by name",
          "[scheduling][resize]") {
  // More entries than FindStatus searches linearly.
  std::string containers;
  std::string statuses;
  for (int i = 0; i < 40; ++i) {
    absl::StrAppend(&containers, i == 0 ? "" : ", ", "{name: c", i,
                    ", resources: {requests: {cpu: 10m}}}");
    absl::StrAppend(&statuses, i == 0 ? "" : ", ", "{name: c", 39 - i,
                    ", resources: {requests: {cpu: ", i % 2 == 0 ? 30 : 5,
                    "m}}}");
  }
  // A duplicate name late in the list replaces the earlier entry.
  absl::StrAppend(&statuses, ", {name: c0, resources: {requests: {cpu: 1}}}");
  const v1::Pod pod = resources_test::PodFromYaml(
      absl::StrCat("containers: [", containers, "]"),
      absl::StrCat("containerStatuses: [", statuses, "]"));
  // The 20 odd names have 30m in status (above their 10m spec), the even
  // ones 5m (below it), except c0, whose last entry says 1.
  const Requests want = {{"cpu", 20 * 30 + 19 * 10 + 1000}, {"pods", 1000}};
  CHECK(*PodRequests(pod) == want);
  PodRequestsCalculator calc;
  CHECK(*ViaCalculator(calc, pod) == want);
}

constexpr char kRegexp[] =
    "quantities must match the regular expression "
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

TEST_CASE("PodRequests: status quantities are named by their path",
          "[scheduling][resize]") {
  struct ErrorCase {
    std::string spec;
    std::string status;
    std::string message;  // empty: no error (the field is not read)
  };
  const std::vector<ErrorCase> cases = {
      {kOneContainer,
       "containerStatuses: [{name: x}, {name: a, resources: {}, "
       "allocatedResources: {cpu: lots}}]",
       absl::StrCat("status.containerStatuses[1].allocatedResources.cpu: "
                    "invalid quantity \"lots\": ",
                    kRegexp)},
      {kOneContainer,
       "containerStatuses: [{name: a, resources: {requests: {memory: "
       "\"-1\"}}}]",
       "status.containerStatuses[0].resources.requests.memory: quantity "
       "\"-1\" must not be negative"},
      {"containers: [{name: a}], initContainers: [{name: s, restartPolicy: "
       "Always}]",
       "initContainerStatuses: [{name: s, resources: {requests: {cpu: 1x}}}]",
       absl::StrCat("status.initContainerStatuses[0].resources.requests.cpu: "
                    "invalid quantity \"1x\": ",
                    kRegexp)},
      // Actuated requests before allocated resources.
      {kOneContainer,
       "containerStatuses: [{name: a, resources: {requests: {cpu: r1}}, "
       "allocatedResources: {cpu: a1}}]",
       absl::StrCat("status.containerStatuses[0].resources.requests.cpu: "
                    "invalid quantity \"r1\": ",
                    kRegexp)},
      // A container's spec before its status.
      {"containers: [{name: a, resources: {requests: {cpu: s1}}}]",
       "containerStatuses: [{name: a, resources: {requests: {cpu: r1}}}]",
       absl::StrCat("spec.containers[0].resources.requests.cpu: invalid "
                    "quantity \"s1\": ",
                    kRegexp)},
      // The first container's status before the second container's spec.
      {"containers: [{name: a}, {name: b, resources: {requests: {cpu: "
       "s2}}}]",
       "containerStatuses: [{name: a, resources: {requests: {cpu: r1}}}]",
       absl::StrCat("status.containerStatuses[0].resources.requests.cpu: "
                    "invalid quantity \"r1\": ",
                    kRegexp)},
      // Status the rule does not read is not parsed.
      {kOneContainer,
       "containerStatuses: [{name: a, allocatedResources: {cpu: lots}}]", ""},
      {"containers: [{name: a}], initContainers: [{name: i}]",
       "initContainerStatuses: [{name: i, resources: {requests: {cpu: 1x}}}]",
       ""},
      {kOneContainer,
       "containerStatuses: [{name: z, resources: {requests: {cpu: 1x}}}]", ""},
  };
  PodRequestsCalculator calc;
  for (const ErrorCase& c : cases) {
    CAPTURE(c.spec, c.status);
    const v1::Pod pod = resources_test::PodFromYaml(c.spec, c.status);
    const absl::StatusOr<Requests> got = PodRequests(pod);
    PodRequestList list;
    const absl::Status fast = calc.Compute(pod, list);
    if (c.message.empty()) {
      CHECK(got.ok());
      CHECK(fast.ok());
      continue;
    }
    REQUIRE_FALSE(got.ok());
    CHECK(got.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(std::string(got.status().message()) == c.message);
    CHECK(fast.code() == absl::StatusCode::kInvalidArgument);
    CHECK(std::string(fast.message()) == c.message);
  }
}

TEST_CASE("PodRequests: which resizes are Infeasible", "[scheduling][resize]") {
  v1::PodStatus status;
  CHECK_FALSE(IsPodResizeInfeasible(status));
  v1::Condition* ready = status.add_conditions();
  ready->set_type("Ready");
  ready->set_reason("Infeasible");
  CHECK_FALSE(IsPodResizeInfeasible(status));
  v1::Condition* pending = status.add_conditions();
  pending->set_type("PodResizePending");
  pending->set_reason("Deferred");
  CHECK_FALSE(IsPodResizeInfeasible(status));
  pending->set_reason("Infeasible");
  CHECK(IsPodResizeInfeasible(status));
  // The condition's status is not read.
  pending->set_status("False");
  CHECK(IsPodResizeInfeasible(status));
}

}  // namespace
}  // namespace karpenter::scheduling
