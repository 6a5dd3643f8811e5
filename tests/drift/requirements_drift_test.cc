// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/drift/requirements_drift.h"

#include <catch2/catch.hpp>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "karpenter/testing/builders.h"
#include "karpenter/v1/karpenter.pb.h"

namespace karpenter::drift {
namespace {

struct Req {
  Req(std::string k, std::string o, std::vector<std::string> v = {})
      : key(std::move(k)), op(std::move(o)), values(std::move(v)) {}
  std::string key;
  std::string op;
  std::vector<std::string> values;
};

v1::NodePool Pool(const std::vector<Req>& reqs) {
  testing::NodePoolOptions o;
  for (const Req& r : reqs) {
    o.requirements.push_back(testing::MakeRequirement(r.key, r.op, r.values));
  }
  return testing::MakeNodePool(o);
}

// A NodeClaim "default-abc" with exactly `labels`.
v1::NodeClaim Claim(
    std::initializer_list<std::pair<std::string, std::string>> labels) {
  return testing::MakeNodeClaim(
      {.name = "default-abc",
       .node_name = "",
       .nodepool = "",
       .labels = testing::Labels(labels.begin(), labels.end())});
}

constexpr char kArch[] = "kubernetes.io/arch";
constexpr char kOs[] = "kubernetes.io/os";
constexpr char kZone[] = "topology.kubernetes.io/zone";
constexpr char kCapacityType[] = "karpenter.sh/capacity-type";
constexpr char kCpu[] = "karpenter.k8s.aws/instance-cpu";

TEST_CASE("requirements drift: table", "[drift][requirements]") {
  struct Case {
    std::string name;
    std::vector<Req> pool;
    v1::NodeClaim claim;
    bool drifted;
  };
  const v1::NodeClaim arm = Claim({{kArch, "arm64"}, {kOs, "linux"}});
  const v1::NodeClaim amd = Claim({{kArch, "amd64"}, {kOs, "linux"}});
  const std::vector<Case> cases = {
      {"arch narrowed away from the node's arch",
       {{kArch, "In", {"amd64"}}},
       arm,
       true},
      {"arch still allowed", {{kArch, "In", {"amd64"}}}, amd, false},
      {"widened requirement", {{kArch, "In", {"amd64", "arm64"}}}, amd, false},
      {"requirement removed", {}, amd, false},
      {"NotIn excludes the node's zone",
       {{kZone, "NotIn", {"us-west-2a"}}},
       Claim({{kZone, "us-west-2a"}}),
       true},
      {"NotIn excludes another zone",
       {{kZone, "NotIn", {"us-west-2b"}}},
       Claim({{kZone, "us-west-2a"}}),
       false},
      {"Gt above the node's cpu",
       {{kCpu, "Gt", {"4"}}},
       Claim({{kCpu, "2"}}),
       true},
      {"Gt below the node's cpu",
       {{kCpu, "Gt", {"4"}}},
       Claim({{kCpu, "8"}}),
       false},
      {"Gt equal to the node's cpu",
       {{kCpu, "Gt", {"4"}}},
       Claim({{kCpu, "4"}}),
       true},
      {"Lt below the node's cpu",
       {{kCpu, "Lt", {"4"}}},
       Claim({{kCpu, "8"}}),
       true},
      {"Gte equal to the node's cpu",
       {{kCpu, "Gte", {"4"}}},
       Claim({{kCpu, "4"}}),
       false},
      {"Lte below the node's cpu",
       {{kCpu, "Lte", {"4"}}},
       Claim({{kCpu, "5"}}),
       true},
      {"Gt on a non-numeric label",
       {{kCpu, "Gt", {"4"}}},
       Claim({{kCpu, "many"}}),
       true},
      // Compatible is called without AllowUndefined: a NodePool key the claim
      // has no label for drifts unless the operator is NotIn or
      // DoesNotExist, even for Exists, and even for well-known labels.
      {"new In key the claim lacks",
       {{kCapacityType, "In", {"spot"}}},
       amd,
       true},
      {"new Exists key the claim lacks",
       {{"example.com/team", "Exists"}},
       amd,
       true},
      {"new Gt key the claim lacks", {{kCpu, "Gt", {"1"}}}, amd, true},
      {"new NotIn key the claim lacks",
       {{"example.com/team", "NotIn", {"a"}}},
       amd,
       false},
      {"new DoesNotExist key the claim lacks",
       {{"example.com/team", "DoesNotExist"}},
       amd,
       false},
      {"Exists on a present label", {{kOs, "Exists"}}, amd, false},
      {"DoesNotExist on a present label", {{kOs, "DoesNotExist"}}, amd, true},
      // Claim labels without a NodePool requirement never drift.
      {"extra claim labels",
       {{kOs, "In", {"linux"}}},
       Claim({{kOs, "linux"}, {"example.com/extra", "x"}}),
       false},
      // Deprecated label keys are normalized on both sides.
      {"beta arch requirement against stable label",
       {{"beta.kubernetes.io/arch", "In", {"arm64"}}},
       amd,
       true},
      {"stable arch requirement against beta label",
       {{kArch, "In", {"amd64"}}},
       Claim({{"beta.kubernetes.io/arch", "amd64"}}),
       false},
      // Requirements for one key intersect before the comparison.
      {"two requirements for one key",
       {{kZone, "In", {"a", "b"}}, {kZone, "NotIn", {"a"}}},
       Claim({{kZone, "a"}}),
       true},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    absl::StatusOr<std::optional<std::string>> got =
        RequirementsDrifted(Pool(c.pool), c.claim);
    REQUIRE(got.ok());
    if (c.drifted) {
      CHECK(*got == std::optional<std::string>("RequirementsDrifted"));
    } else {
      CHECK(*got == std::nullopt);
    }
  }
}

// The rows of pkg/controllers/nodeclaim/disruption/drift_test.go, as listed in
// docs/semantics.md §3.3 (ct = capacity type).
TEST_CASE("requirements drift: Karpenter's drift_test table",
          "[drift][requirements]") {
  struct Case {
    std::vector<Req> pool;
    v1::NodeClaim claim;
    bool drifted;
  };
  const std::vector<Case> cases = {
      {{{kCapacityType, "In", {"spot"}}},
       Claim({{kCapacityType, "on-demand"}, {kArch, "amd64"}, {kOs, "linux"}}),
       true},
      {{{kCapacityType, "In", {"on-demand"}},
        {kOs, "In", {"linux"}},
        {kArch, "In", {"amd64"}}},
       Claim({{kCapacityType, "on-demand"}, {kOs, "linux"}}),
       true},
      {{{kOs, "In", {"windows"}}}, Claim({{kOs, "linux"}}), true},
      {{{kOs, "In", {"linux", "windows"}}}, Claim({{kOs, "linux"}}), false},
      {{{kOs, "Exists"}}, Claim({{kOs, "linux"}}), false},
      {{{kOs, "DoesNotExist"}}, Claim({{kOs, "linux"}}), true},
      {{{"test-label", "Gt", {"10"}}}, Claim({{"test-label", "5"}}), true},
      {{{"test-label", "Gt", {"2"}}}, Claim({{"test-label", "5"}}), false},
      {{{"test-label", "Lt", {"1"}}}, Claim({{"test-label", "2"}}), true},
      {{{"test-label", "Lt", {"5"}}}, Claim({{"test-label", "2"}}), false},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    INFO("row " << i);
    absl::StatusOr<std::optional<std::string>> got =
        RequirementsDrifted(Pool(cases[i].pool), cases[i].claim);
    REQUIRE(got.ok());
    CHECK(got->has_value() == cases[i].drifted);
  }
}

TEST_CASE("requirements drift: template labels are not requirements",
          "[drift][requirements]") {
  // Template label changes are static (hash) drift, not requirements drift.
  v1::NodePool pool = Pool({{kOs, "In", {"linux"}}});
  pool.mutable_spec()
      ->mutable_template_()
      ->mutable_metadata()
      ->mutable_labels()
      ->insert({"team", "b"});
  absl::StatusOr<std::optional<std::string>> got =
      RequirementsDrifted(pool, Claim({{kOs, "linux"}, {"team", "a"}}));
  REQUIRE(got.ok());
  CHECK(*got == std::nullopt);
}

TEST_CASE("requirements drift: explains why", "[drift][requirements]") {
  std::string why;
  absl::StatusOr<std::optional<std::string>> got = RequirementsDrifted(
      Pool({{kArch, "In", {"amd64"}}, {kCapacityType, "In", {"spot"}}}),
      Claim({{kArch, "arm64"}}), &why);
  REQUIRE(got.ok());
  CHECK(got->has_value());
  CHECK(why ==
        "label \"karpenter.sh/capacity-type\" does not have known values; key "
        "kubernetes.io/arch, kubernetes.io/arch In [amd64] not in "
        "kubernetes.io/arch In [arm64]");
}

TEST_CASE("requirements drift: invalid NodePool requirements are errors",
          "[drift][requirements]") {
  struct Case {
    std::vector<Req> pool;
    std::string want;
  };
  const std::vector<Case> cases = {
      {{{kOs, "In", {"linux"}}, {kArch, "Foo", {"x"}}},
       "spec.template.spec.requirements[1].operator: unknown operator \"Foo\""},
      {{{kArch, "In", {}}},
       "spec.template.spec.requirements[0].values: operator \"In\" needs at "
       "least one value, got []"},
      {{{kCpu, "Gt", {"two"}}},
       "spec.template.spec.requirements[0].values: operator \"Gt\" needs "
       "exactly one non-negative integer value, got [\"two\"]"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::optional<std::string>> got =
        RequirementsDrifted(Pool(c.pool), Claim({{kOs, "linux"}}));
    INFO(got.status().ToString());
    REQUIRE_FALSE(got.ok());
    CHECK(absl::IsInvalidArgument(got.status()));
    CHECK(got.status().message().substr(0, c.want.size()) == c.want);
  }
}

}  // namespace
}  // namespace karpenter::drift
