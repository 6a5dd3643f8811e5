// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Expected values follow component-helpers resource.PodRequests after the
// API server's SetDefaults_Pod, in milli-units.

#include "karpenter/scheduling/resources.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "karpenter/snapshot/load.h"
#include "resources_test_util.h"

namespace karpenter::scheduling {
namespace {

using resources_test::Requests;
using resources_test::ViaCalculator;

constexpr int64_t kGi = int64_t{1} << 30;
constexpr int64_t kMi = int64_t{1} << 20;

struct Case {
  std::string name;
  std::string spec;
  Requests want;
};

const std::vector<Case>& Cases() {
  static const auto* cases = new std::vector<Case>{
      {"no containers: one pod", "containers: []", {{"pods", 1000}}},
      {"containers add up",
       "containers: [{name: a, resources: {requests: {cpu: 250m}}}, "
       "{name: b, resources: {requests: {cpu: \"1\", memory: 64Mi}}}]",
       {{"cpu", 1250}, {"memory", 64 * kMi * 1000}, {"pods", 1000}}},
      {"a zero request is still listed",
       "containers: [{name: a, resources: {requests: {cpu: \"0\"}}}]",
       {{"cpu", 0}, {"pods", 1000}}},
      {"a limit without a request is the request",
       "containers: [{name: a, resources: {limits: {cpu: 1500m, "
       "example.com/dongle: \"2\"}, requests: {memory: 1Gi}}}]",
       {{"cpu", 1500},
        {"example.com/dongle", 2000},
        {"memory", kGi * 1000},
        {"pods", 1000}}},
      {"a request beats the limit",
       "containers: [{name: a, resources: {limits: {cpu: \"3\"}, "
       "requests: {cpu: 700m}}}]",
       {{"cpu", 700}, {"pods", 1000}}},
      {"a plain init container larger than the containers",
       "containers: [{name: a, resources: {requests: {cpu: 300m, "
       "memory: 1Gi}}}], initContainers: [{name: i, resources: {requests: "
       "{cpu: \"2\"}}}]",
       {{"cpu", 2000}, {"memory", kGi * 1000}, {"pods", 1000}}},
      {"plain init containers take the max, not the sum",
       "containers: [{name: a, resources: {requests: {cpu: 100m}}}], "
       "initContainers: [{name: i, resources: {requests: {cpu: 900m}}}, "
       "{name: j, resources: {requests: {cpu: 600m}}}]",
       {{"cpu", 900}, {"pods", 1000}}},
      {"a sidecar counts beside the containers",
       "containers: [{name: a, resources: {requests: {cpu: 300m}}}], "
       "initContainers: [{name: s, restartPolicy: Always, resources: "
       "{requests: {cpu: 200m, memory: 32Mi}}}]",
       {{"cpu", 500}, {"memory", 32 * kMi * 1000}, {"pods", 1000}}},
      {"a sidecar before an init container adds to its peak",
       "containers: [{name: a, resources: {requests: {cpu: 300m}}}], "
       "initContainers: [{name: s, restartPolicy: Always, resources: "
       "{requests: {cpu: 200m}}}, {name: i, resources: {requests: {cpu: "
       "\"1\"}}}]",
       {{"cpu", 1200}, {"pods", 1000}}},
      {"a sidecar after an init container does not",
       "containers: [{name: a, resources: {requests: {cpu: 300m}}}], "
       "initContainers: [{name: i, resources: {requests: {cpu: \"1\"}}}, "
       "{name: s, restartPolicy: Always, resources: {requests: {cpu: "
       "200m}}}]",
       {{"cpu", 1000}, {"pods", 1000}}},
      {"sidecars between init containers",
       "containers: [{name: a, resources: {requests: {cpu: 100m}}}], "
       "initContainers: [{name: i1, resources: {requests: {cpu: \"2\"}}}, "
       "{name: s, restartPolicy: Always, resources: {requests: {cpu: 500m, "
       "memory: 1Mi}}}, {name: i2, resources: {requests: {cpu: 1800m}}}]",
       {{"cpu", 2300}, {"memory", kMi * 1000}, {"pods", 1000}}},
      {"an init peak counts only the sidecars declared before it",
       "containers: [{name: a, resources: {requests: {cpu: 100m}}}], "
       "initContainers: [{name: s1, restartPolicy: Always, resources: "
       "{requests: {cpu: 400m}}}, {name: i, resources: {requests: {cpu: "
       "600m}}}, {name: s2, restartPolicy: Always, resources: {requests: "
       "{cpu: 400m}}}]",
       {{"cpu", 1000}, {"pods", 1000}}},
      {"sidecars with the containers can exceed every init peak",
       "containers: [{name: a, resources: {requests: {cpu: 100m}}}], "
       "initContainers: [{name: i, resources: {requests: {cpu: 600m}}}, "
       "{name: s1, restartPolicy: Always, resources: {requests: {cpu: "
       "400m}}}, {name: s2, restartPolicy: Always, resources: {requests: "
       "{cpu: 400m}}}]",
       {{"cpu", 900}, {"pods", 1000}}},
      {"restartPolicy other than Always is a plain init container",
       "containers: [{name: a, resources: {requests: {cpu: 300m}}}], "
       "initContainers: [{name: s, restartPolicy: OnFailure, resources: "
       "{requests: {cpu: 200m}}}]",
       {{"cpu", 300}, {"pods", 1000}}},
      {"pod-level requests replace cpu and memory, not the others",
       "containers: [{name: a, resources: {requests: {cpu: \"1\", memory: "
       "1Gi, ephemeral-storage: 1Gi, example.com/gpu: \"1\"}}}], "
       "resources: {requests: {cpu: \"2\", memory: 512Mi, "
       "ephemeral-storage: 5Gi}}",
       {{"cpu", 2000},
        {"ephemeral-storage", kGi * 1000},
        {"example.com/gpu", 1000},
        {"memory", 512 * kMi * 1000},
        {"pods", 1000}}},
      {"a pod-level request may be below the containers' sum",
       "containers: [{name: a, resources: {requests: {cpu: \"1\"}}}, "
       "{name: b, resources: {requests: {cpu: \"1\"}}}], "
       "resources: {requests: {cpu: 1500m}}",
       {{"cpu", 1500}, {"pods", 1000}}},
      {"a pod-level request adds a resource no container names",
       "containers: [{name: a, resources: {requests: {memory: 1Gi}}}], "
       "resources: {requests: {cpu: 500m}}",
       {{"cpu", 500}, {"memory", kGi * 1000}, {"pods", 1000}}},
      {"a pod-level request replaces sidecar and init peaks too",
       "containers: [{name: a, resources: {requests: {cpu: 100m}}}], "
       "initContainers: [{name: s, restartPolicy: Always, resources: "
       "{requests: {cpu: \"1\"}}}, {name: i, resources: {requests: {cpu: "
       "\"4\"}}}], resources: {requests: {cpu: 750m}}",
       {{"cpu", 750}, {"pods", 1000}}},
      {"a pod-level limit alone is the request when no container names it",
       "containers: [{name: a, resources: {requests: {memory: 1Gi}}}], "
       "resources: {limits: {cpu: \"2\"}}",
       {{"cpu", 2000}, {"memory", kGi * 1000}, {"pods", 1000}}},
      {"a pod-level cpu limit keeps the containers' cpu",
       "containers: [{name: a, resources: {requests: {cpu: 500m}}}], "
       "resources: {limits: {cpu: \"2\", memory: 1Gi}}",
       {{"cpu", 500}, {"memory", kGi * 1000}, {"pods", 1000}}},
      {"a pod-level hugepages limit is the request",
       "containers: [{name: a, resources: {requests: {hugepages-2Mi: "
       "2Mi}}}], resources: {limits: {hugepages-2Mi: 4Mi}}",
       {{"hugepages-2Mi", 4 * kMi * 1000}, {"pods", 1000}}},
      {"a pod-level hugepages request replaces the containers'",
       "containers: [{name: a, resources: {requests: {hugepages-1Gi: "
       "1Gi}}}], resources: {requests: {hugepages-1Gi: 2Gi}}",
       {{"hugepages-1Gi", 2 * kGi * 1000}, {"pods", 1000}}},
      {"unsupported pod-level resources are not read",
       "containers: [{name: a, resources: {requests: {cpu: 100m}}}], "
       "resources: {requests: {example.com/gpu: \"1\"}, limits: "
       "{ephemeral-storage: bogus}}",
       {{"cpu", 100}, {"pods", 1000}}},
      {"overhead is added",
       "containers: [{name: a, resources: {requests: {cpu: 100m}}}], "
       "overhead: {cpu: 50m, memory: 10Mi}",
       {{"cpu", 150}, {"memory", 10 * kMi * 1000}, {"pods", 1000}}},
      {"overhead is added after pod-level resources",
       "containers: [{name: a, resources: {requests: {cpu: 100m}}}], "
       "resources: {requests: {cpu: \"1\"}}, overhead: {cpu: 250m}",
       {{"cpu", 1250}, {"pods", 1000}}},
      {"overhead is added after the sidecar rule",
       "containers: [{name: a, resources: {requests: {cpu: 100m}}}], "
       "initContainers: [{name: s, restartPolicy: Always, resources: "
       "{requests: {cpu: 100m}}}, {name: i, resources: {requests: {cpu: "
       "\"1\"}}}], overhead: {cpu: 10m}",
       {{"cpu", 1110}, {"pods", 1000}}},
      {"pods is always one pod",
       "containers: [{name: a, resources: {requests: {pods: \"5\"}}}], "
       "overhead: {pods: \"2\"}",
       {{"pods", 1000}}},
  };
  return *cases;
}

TEST_CASE("PodRequests: the effective requests of a pod", "[scheduling]") {
  PodRequestsCalculator calc;
  for (const Case& c : Cases()) {
    CAPTURE(c.name);
    const v1::Pod pod = resources_test::PodFromYaml(c.spec);
    // The bulk path agrees too, on a calculator shared by every case.
    resources_test::CheckRequests(calc, pod, c.want);
  }
}

TEST_CASE("PodRequests: a calculator reused across pods keeps them apart",
          "[scheduling]") {
  PodRequestsCalculator calc;
  const v1::Pod a = resources_test::PodFromYaml(
      "containers: [{name: a, resources: {requests: {cpu: 100m}}}]");
  const v1::Pod b = resources_test::PodFromYaml(
      "containers: [{name: a, resources: {requests: {cpu: 100m, memory: "
      "100m}}}, {name: b, resources: {requests: {cpu: 100m}}}]");
  const v1::Pod bad = resources_test::PodFromYaml(
      "containers: [{name: a, resources: {requests: {cpu: -100m}}}]");
  for (int round = 0; round < 2; ++round) {
    CAPTURE(round);
    CHECK(*ViaCalculator(calc, a) == Requests{{"cpu", 100}, {"pods", 1000}});
    CHECK(ViaCalculator(calc, bad).status().code() ==
          absl::StatusCode::kInvalidArgument);
    CHECK(*ViaCalculator(calc, b) ==
          Requests{{"cpu", 200}, {"memory", 100}, {"pods", 1000}});
  }
}

TEST_CASE("PodRequests: sidecars and plain init containers differ",
          "[scheduling]") {
  // The same two init containers; only the restartPolicy changes.
  const std::string base =
      "containers: [{name: a, resources: {requests: {cpu: 300m}}}], "
      "initContainers: [{name: x, %s resources: {requests: {cpu: 200m}}}, "
      "{name: y, resources: {requests: {cpu: 250m}}}]";
  const auto spec = [&](const std::string& policy) {
    std::string s = base;
    s.replace(s.find("%s"), 2, policy);
    return s;
  };
  // Plain: max(300, 200, 250).
  CHECK(*PodRequests(resources_test::PodFromYaml(spec(""))) ==
        Requests{{"cpu", 300}, {"pods", 1000}});
  // Sidecar: max(300 + 200, 200, 250 + 200).
  CHECK(*PodRequests(
            resources_test::PodFromYaml(spec("restartPolicy: Always,"))) ==
        Requests{{"cpu", 500}, {"pods", 1000}});
}

constexpr char kRegexp[] =
    "quantities must match the regular expression "
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

TEST_CASE("PodRequests: errors name the field and quote the value",
          "[scheduling]") {
  struct ErrorCase {
    std::string spec;
    std::string message;
  };
  const std::vector<ErrorCase> cases = {
      {"containers: [{name: a, resources: {requests: {cpu: abc}}}]",
       absl::StrCat("spec.containers[0].resources.requests.cpu: invalid "
                    "quantity \"abc\": ",
                    kRegexp)},
      {"containers: [{name: a}], initContainers: [{name: i}, {name: j, "
       "resources: {requests: {cpu: x}}}]",
       absl::StrCat("spec.initContainers[1].resources.requests.cpu: invalid "
                    "quantity \"x\": ",
                    kRegexp)},
      {"containers: [{name: a, resources: {limits: {memory: 1ki}}}]",
       "spec.containers[0].resources.limits.memory: invalid quantity "
       "\"1ki\": unable to parse quantity's suffix"},
      {"containers: [{name: a, resources: {requests: {cpu: \"-1\"}}}]",
       "spec.containers[0].resources.requests.cpu: quantity \"-1\" must not "
       "be negative"},
      {"containers: [{name: a}], initContainers: [{name: s, restartPolicy: "
       "Always, resources: {limits: {memory: -5Mi}}}]",
       "spec.initContainers[0].resources.limits.memory: quantity \"-5Mi\" "
       "must not be negative"},
      {"containers: [{name: a}], overhead: {memory: \"-1\"}",
       "spec.overhead.memory: quantity \"-1\" must not be negative"},
      {"containers: [{name: a}], resources: {requests: {cpu: lots}}",
       absl::StrCat("spec.resources.requests.cpu: invalid quantity \"lots\": ",
                    kRegexp)},
      {"containers: [{name: a}], resources: {limits: {memory: \"-2\"}}",
       "spec.resources.limits.memory: quantity \"-2\" must not be "
       "negative"},
      {"containers: [{name: a, resources: {requests: {cpu: \"1e20\"}}}]",
       "spec.containers[0].resources.requests.cpu: quantity \"1e20\" does "
       "not fit in int64 milli-units"},
      {"containers: [{name: a, resources: {requests: {cpu: 5P}}}, {name: b, "
       "resources: {requests: {cpu: 5P}}}]",
       "spec.containers[1]: the cpu requests overflow int64"},
      {"containers: [{name: a}], initContainers: [{name: s, restartPolicy: "
       "Always, resources: {requests: {cpu: 5P}}}, {name: i, resources: "
       "{requests: {cpu: 5P}}}]",
       "spec.initContainers[1]: the cpu requests overflow int64"},
      {"containers: [{name: a, resources: {requests: {cpu: 5P}}}], "
       "initContainers: [{name: s, restartPolicy: Always, resources: "
       "{requests: {cpu: 5P}}}]",
       "spec.initContainers[0]: the cpu requests overflow int64"},
      {"containers: [{name: a, resources: {requests: {memory: 9P}}}], "
       "overhead: {memory: 1P}",
       "spec.overhead.memory: the memory requests overflow int64"},
      // Several bad fields: the first by container, then requests before
      // limits, then resource name.
      {"containers: [{name: a, resources: {requests: {memory: m1, zz: z1, "
       "cpu: c1}, limits: {aa: a1}}}, {name: b, resources: {requests: {cpu: "
       "c2}}}], overhead: {cpu: o1}",
       absl::StrCat("spec.containers[0].resources.requests.cpu: invalid "
                    "quantity \"c1\": ",
                    kRegexp)},
      {"containers: [{name: a, resources: {requests: {memory: 1Gi}, limits: "
       "{cpu: bad, memory: alsobad}}}]",
       absl::StrCat("spec.containers[0].resources.limits.cpu: invalid "
                    "quantity \"bad\": ",
                    kRegexp)},
  };
  PodRequestsCalculator calc;
  for (const ErrorCase& c : cases) {
    CAPTURE(c.spec);
    const v1::Pod pod = resources_test::PodFromYaml(c.spec);
    const absl::StatusOr<Requests> got = PodRequests(pod);
    REQUIRE_FALSE(got.ok());
    CHECK(got.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(std::string(got.status().message()) == c.message);
    PodRequestList list;
    const absl::Status fast = calc.Compute(pod, list);
    CHECK(fast.code() == absl::StatusCode::kInvalidArgument);
    CHECK(std::string(fast.message()) == c.message);
  }
}

TEST_CASE("PodRequests: the limit a request shadows is not read",
          "[scheduling]") {
  const v1::Pod pod = resources_test::PodFromYaml(
      "containers: [{name: a, resources: {requests: {cpu: \"1\"}, limits: "
      "{cpu: "
      "bogus}}}]");
  CHECK(*PodRequests(pod) == Requests{{"cpu", 1000}, {"pods", 1000}});
}

TEST_CASE("PodRequests: which containers are sidecars", "[scheduling]") {
  v1::Container c;
  CHECK_FALSE(IsSidecar(c));
  c.set_restart_policy("");
  CHECK_FALSE(IsSidecar(c));
  c.set_restart_policy("always");
  CHECK_FALSE(IsSidecar(c));
  c.set_restart_policy("Always");
  CHECK(IsSidecar(c));
  CHECK(IsSupportedPodLevelResource("cpu"));
  CHECK(IsSupportedPodLevelResource("memory"));
  CHECK(IsSupportedPodLevelResource("hugepages-2Mi"));
  CHECK_FALSE(IsSupportedPodLevelResource("ephemeral-storage"));
  CHECK_FALSE(IsSupportedPodLevelResource("pods"));
  CHECK_FALSE(IsSupportedPodLevelResource("example.com/hugepages-1Gi"));
}

}  // namespace
}  // namespace karpenter::scheduling
