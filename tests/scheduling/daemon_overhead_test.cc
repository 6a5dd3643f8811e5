// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Expected values follow Karpenter's scheduler.go getDaemonOverhead and
// isDaemonPodCompatible: a daemon pod counts on a NodeClaimTemplate when it
// tolerates the template's taints (PreferNoSchedule aside) and one of its
// strict requirement sets (nodeSelector + one required term, in order) is
// compatible with the template's requirements, well-known labels allowed
// undefined.

#include "karpenter/scheduling/daemon_overhead.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "karpenter/requirements.h"
#include "karpenter/scheduling/resources.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/testing/builders.h"

namespace karpenter::scheduling {
namespace {

using Requests = std::vector<std::pair<std::string, int64_t>>;
using Names = std::vector<std::string>;
using testing::MakeDaemonSet;
using testing::MakeTaint;
using testing::MakeToleration;

constexpr int64_t kMi = int64_t{1} << 20;
constexpr absl::string_view kArch = "kubernetes.io/arch";
constexpr absl::string_view kZone = "topology.kubernetes.io/zone";

// A DaemonSet "ns/<name>" whose pod template spec is the YAML flow mapping
// body `spec`.
v1::DaemonSet DaemonSetWithSpec(const std::string& name,
                                const std::string& spec) {
  snapshot::ObjectSet set;
  const absl::Status s =
      snapshot::LoadText(absl::StrCat("apiVersion: apps/v1\nkind: DaemonSet\n"
                                      "metadata: {name: ",
                                      name,
                                      ", namespace: ns}\n"
                                      "spec: {template: {spec: {",
                                      spec, "}}}\n"),
                         "test.yaml", set);
  INFO(s.ToString());
  REQUIRE(s.ok());
  REQUIRE(set.daemon_sets.size() == 1);
  return set.daemon_sets[0];
}

// A DaemonSet "ns/<name>" with one container requesting `cpu`.
v1::DaemonSet Agent(const std::string& name, const std::string& cpu = "100m") {
  return MakeDaemonSet({.name = name, .ns = "ns", .cpu = cpu});
}

DaemonOverhead Build(const std::vector<v1::DaemonSet>& daemon_sets) {
  absl::StatusOr<DaemonOverhead> o = DaemonOverhead::Build(daemon_sets);
  INFO(o.status().ToString());
  REQUIRE(o.ok());
  return *std::move(o);
}

// Node requirements from `key In [values]` pairs.
Requirements NodeWith(
    const std::vector<std::pair<std::string, std::vector<std::string>>>& in) {
  Requirements r;
  for (const auto& [key, values] : in) r.Add(Requirement::In(key, values));
  return r;
}

TEST_CASE("DaemonOverhead: taints of the template", "[scheduling]") {
  const DaemonOverhead o = Build({
      MakeDaemonSet({.name = "all",
                     .ns = "ns",
                     .cpu = "100m",
                     .tolerations = {MakeToleration("", "Exists")}}),
      MakeDaemonSet({.name = "dedicated",
                     .ns = "ns",
                     .cpu = "200m",
                     .tolerations = {MakeToleration("dedicated", "Equal", "gpu",
                                                    "NoSchedule")}}),
      Agent("none", "400m"),
  });
  const Requirements node;

  SECTION("no taints: every DaemonSet") {
    CHECK(o.Counted(node, {}) == Names{"ns/all", "ns/dedicated", "ns/none"});
    CHECK(o.For(node, {}) == Requests{{"cpu", 700}, {"pods", 3000}});
  }
  SECTION("NoSchedule: only the DaemonSets that tolerate it") {
    const std::vector<v1::Taint> taints = {
        MakeTaint("dedicated", "gpu", "NoSchedule")};
    CHECK(o.Counted(node, taints) == Names{"ns/all", "ns/dedicated"});
    CHECK(o.For(node, taints) == Requests{{"cpu", 300}, {"pods", 2000}});
  }
  SECTION("another value of the key is not tolerated") {
    const std::vector<v1::Taint> taints = {
        MakeTaint("dedicated", "infra", "NoSchedule")};
    CHECK(o.Counted(node, taints) == Names{"ns/all"});
  }
  SECTION("NoExecute: a NoSchedule toleration does not cover it") {
    const std::vector<v1::Taint> taints = {
        MakeTaint("dedicated", "gpu", "NoExecute")};
    CHECK(o.Counted(node, taints) == Names{"ns/all"});
    CHECK(o.For(node, taints) == Requests{{"cpu", 100}, {"pods", 1000}});
  }
  SECTION("PreferNoSchedule never excludes a daemon pod") {
    const std::vector<v1::Taint> taints = {
        MakeTaint("dedicated", "infra", "PreferNoSchedule"),
        MakeTaint("spot", "", "PreferNoSchedule")};
    CHECK(o.Counted(node, taints) ==
          Names{"ns/all", "ns/dedicated", "ns/none"});
  }
  SECTION("every NoSchedule/NoExecute taint must be tolerated") {
    const std::vector<v1::Taint> taints = {
        MakeTaint("dedicated", "gpu", "NoSchedule"),
        MakeTaint("team", "a", "NoSchedule")};
    CHECK(o.Counted(node, taints) == Names{"ns/all"});
  }
}

TEST_CASE("DaemonOverhead: nodeSelector", "[scheduling]") {
  const DaemonOverhead o = Build({DaemonSetWithSpec(
      "arm",
      "nodeSelector: {kubernetes.io/arch: arm64}, "
      "containers: [{name: c, resources: {requests: {cpu: 100m}}}]")});

  CHECK(o.Counted(NodeWith({{std::string(kArch), {"amd64"}}}), {}).empty());
  CHECK(o.For(NodeWith({{std::string(kArch), {"amd64"}}}), {}).empty());
  CHECK(o.Counted(NodeWith({{std::string(kArch), {"amd64", "arm64"}}}), {}) ==
        Names{"ns/arm"});
  CHECK(o.Counted(NodeWith({{std::string(kArch), {"arm64"}}}), {}) ==
        Names{"ns/arm"});
  // A well-known label the node leaves undefined is allowed.
  CHECK(o.Counted(NodeWith({{std::string(kZone), {"us-west-2a"}}}), {}) ==
        Names{"ns/arm"});
  CHECK(o.For(Requirements(), {}) == Requests{{"cpu", 100}, {"pods", 1000}});
}

TEST_CASE("DaemonOverhead: deprecated label keys are normalized",
          "[scheduling]") {
  const DaemonOverhead o = Build(
      {DaemonSetWithSpec("arm",
                         "nodeSelector: {beta.kubernetes.io/arch: arm64}, "
                         "containers: [{name: c}]")});
  CHECK(o.Counted(NodeWith({{std::string(kArch), {"amd64"}}}), {}).empty());
  CHECK(o.Counted(NodeWith({{std::string(kArch), {"arm64"}}}), {}) ==
        Names{"ns/arm"});
}

TEST_CASE("DaemonOverhead: a custom label must be defined by the node",
          "[scheduling]") {
  const DaemonOverhead o = Build({
      DaemonSetWithSpec("custom",
                        "nodeSelector: {example.com/team: a}, "
                        "containers: [{name: c}]"),
      DaemonSetWithSpec(
          "not-b",
          "affinity: {nodeAffinity: "
          "{requiredDuringSchedulingIgnoredDuringExecution: "
          "{nodeSelectorTerms: "
          "[{matchExpressions: [{key: example.com/team, operator: NotIn, "
          "values: [b]}]}]}}}, containers: [{name: c}]"),
  });
  // Undefined and not well known: the nodeSelector is not met. NotIn may be
  // undefined (Karpenter's Compatible).
  CHECK(o.Counted(Requirements(), {}) == Names{"ns/not-b"});
  CHECK(o.Counted(NodeWith({{"example.com/team", {"a"}}}), {}) ==
        Names{"ns/custom", "ns/not-b"});
  CHECK(o.Counted(NodeWith({{"example.com/team", {"b"}}}), {}).empty());
}

TEST_CASE("DaemonOverhead: required node affinity terms", "[scheduling]") {
  // Term 0 asks for us-east-1a, term 1 for amd64.
  const std::string terms =
      "affinity: {nodeAffinity: "
      "{requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: ["
      "{matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, "
      "values: [us-east-1a]}]}, "
      "{matchExpressions: [{key: kubernetes.io/arch, operator: In, "
      "values: [amd64]}]}]}}}";
  const DaemonOverhead o = Build({
      DaemonSetWithSpec("two-terms", terms + ", containers: [{name: c}]"),
      DaemonSetWithSpec("two-terms-arm",
                        terms + ", nodeSelector: {kubernetes.io/arch: arm64}, "
                                "containers: [{name: c}]"),
  });

  SECTION("the first term incompatible, the second compatible: counted") {
    const Requirements node = NodeWith({{std::string(kZone), {"us-west-2a"}},
                                        {std::string(kArch), {"amd64"}}});
    CHECK(o.Counted(node, {}) == Names{"ns/two-terms"});
  }
  SECTION("the first term compatible") {
    const Requirements node = NodeWith({{std::string(kZone), {"us-east-1a"}},
                                        {std::string(kArch), {"arm64"}}});
    // two-terms-arm: its nodeSelector holds with every term.
    CHECK(o.Counted(node, {}) == Names{"ns/two-terms", "ns/two-terms-arm"});
  }
  SECTION("no term compatible: not counted") {
    const Requirements node = NodeWith({{std::string(kZone), {"us-west-2a"}},
                                        {std::string(kArch), {"arm64"}}});
    CHECK(o.Counted(node, {}).empty());
    CHECK(o.For(node, {}).empty());
  }
}

TEST_CASE("DaemonOverhead: preferred node affinity is not used",
          "[scheduling]") {
  const DaemonOverhead o = Build({DaemonSetWithSpec(
      "prefers-arm",
      "affinity: {nodeAffinity: "
      "{preferredDuringSchedulingIgnoredDuringExecution: [{weight: 100, "
      "preference: {matchExpressions: [{key: kubernetes.io/arch, operator: "
      "In, values: [arm64]}]}}]}}, containers: [{name: c}]")});
  CHECK(o.Counted(NodeWith({{std::string(kArch), {"amd64"}}}), {}) ==
        Names{"ns/prefers-arm"});
}

TEST_CASE("DaemonOverhead: terms a new node cannot meet are skipped",
          "[scheduling]") {
  const std::string by_name =
      "{matchFields: [{key: metadata.name, operator: In, values: [n1]}]}";
  const std::string amd64 =
      "{matchExpressions: [{key: kubernetes.io/arch, operator: In, values: "
      "[amd64]}]}";
  auto with_terms = [](const std::string& name, const std::string& terms) {
    return DaemonSetWithSpec(
        name, absl::StrCat("affinity: {nodeAffinity: "
                           "{requiredDuringSchedulingIgnoredDuringExecution: "
                           "{nodeSelectorTerms: [",
                           terms, "]}}}, containers: [{name: c}]"));
  };
  const DaemonOverhead o = Build({
      with_terms("by-name", by_name),
      with_terms("by-name-then-amd64", by_name + ", " + amd64),
      with_terms("empty-term", "{}"),
  });
  CHECK(o.Counted(NodeWith({{std::string(kArch), {"amd64"}}}), {}) ==
        Names{"ns/by-name-then-amd64"});
  CHECK(o.Counted(Requirements(), {}) == Names{"ns/by-name-then-amd64"});
  CHECK(o.Counted(NodeWith({{std::string(kArch), {"arm64"}}}), {}).empty());
}

TEST_CASE("DaemonOverhead: requests follow PodRequests", "[scheduling]") {
  // Sidecar (300m) declared before a plain init container (400m): the init
  // phase needs 700m, more than containers + sidecars (500m); the overhead
  // adds 10m and 1Mi.
  const v1::DaemonSet ds = DaemonSetWithSpec(
      "sidecars",
      "initContainers: ["
      "{name: side, restartPolicy: Always, resources: {requests: "
      "{cpu: 300m, memory: 32Mi}}}, "
      "{name: init, resources: {requests: {cpu: 400m}}}], "
      "containers: [{name: c, resources: {requests: {cpu: 200m, memory: "
      "64Mi}}}], "
      "overhead: {cpu: 10m, memory: 1Mi}");
  const DaemonOverhead o = Build({ds});
  const Requests want = {
      {"cpu", 710}, {"memory", 97 * kMi * 1000}, {"pods", 1000}};
  CHECK(o.For(Requirements(), {}) == want);

  v1::Pod pod;
  *pod.mutable_spec() = ds.spec().template_().spec();
  absl::StatusOr<Requests> direct = PodRequests(pod);
  REQUIRE(direct.ok());
  CHECK(*direct == want);
}

TEST_CASE("DaemonOverhead: sums DaemonSets, sorted by name", "[scheduling]") {
  const DaemonOverhead o = Build({
      MakeDaemonSet(
          {.name = "b", .ns = "ns", .cpu = "250m", .memory = "128Mi"}),
      MakeDaemonSet({.name = "a",
                     .ns = "ns",
                     .cpu = "1",
                     .requests = {{"nvidia.com/gpu", "1"}}}),
      // No containers: contributes nothing.
      MakeDaemonSet({.name = "empty", .ns = "ns"}),
  });
  CHECK(o.size() == 2);
  CHECK(o.Counted(Requirements(), {}) == Names{"ns/a", "ns/b"});
  CHECK(o.For(Requirements(), {}) == Requests{{"cpu", 1250},
                                              {"memory", 128 * kMi * 1000},
                                              {"nvidia.com/gpu", 1000},
                                              {"pods", 2000}});
}

TEST_CASE("DaemonOverhead: no DaemonSets", "[scheduling]") {
  const DaemonOverhead built = Build({});
  CHECK(built.For(Requirements(), {}).empty());
  CHECK(built.Counted(Requirements(), {}).empty());
  CHECK(DaemonOverhead().For(Requirements(), {}).empty());
}

TEST_CASE("DaemonOverhead: errors name the DaemonSet and the field",
          "[scheduling]") {
  SECTION("a bad quantity") {
    const absl::StatusOr<DaemonOverhead> o =
        DaemonOverhead::Build({Agent("ok"), Agent("bad", "x")});
    REQUIRE(o.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(o.status().message()),
               Catch::StartsWith("daemonsets/ns/bad: spec.template.spec."
                                 "containers[0].resources.requests.cpu: "
                                 "invalid quantity \"x\""));
  }
  SECTION("a negative quantity") {
    const absl::StatusOr<DaemonOverhead> o =
        DaemonOverhead::Build({Agent("neg", "-1")});
    REQUIRE(o.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(o.status().message() ==
          "daemonsets/ns/neg: spec.template.spec.containers[0].resources."
          "requests.cpu: quantity \"-1\" must not be negative");
  }
  SECTION("a node affinity requirement that does not parse") {
    v1::DaemonSet ds = Agent("affinity");
    v1::NodeSelector& required =
        *ds.mutable_spec()
             ->mutable_template_()
             ->mutable_spec()
             ->mutable_affinity()
             ->mutable_node_affinity()
             ->mutable_required_during_scheduling_ignored_during_execution();
    *required.add_node_selector_terms()->add_match_expressions() =
        testing::MakeRequirement(std::string(kArch), "In", {"amd64"});
    *required.add_node_selector_terms()->add_match_expressions() =
        testing::MakeRequirement(std::string(kArch), "Foo", {"amd64"});
    const absl::StatusOr<DaemonOverhead> o = DaemonOverhead::Build({ds});
    REQUIRE(o.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(
        std::string(o.status().message()),
        Catch::StartsWith(
            "daemonsets/ns/affinity: spec.template.spec.affinity.nodeAffinity."
            "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
            "[1].matchExpressions[0].operator: "));
    CHECK_THAT(std::string(o.status().message()), Catch::Contains("\"Foo\""));
  }
  SECTION("a total that overflows int64") {
    const std::string huge = "9000000000000000";  // 9e18 milli-units.
    const absl::StatusOr<DaemonOverhead> o =
        DaemonOverhead::Build({Agent("one", huge), Agent("two", huge)});
    REQUIRE(o.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(o.status().message() ==
          "daemonsets/ns/two: the cpu requests of the DaemonSets overflow "
          "int64");
  }
}

}  // namespace
}  // namespace karpenter::scheduling
