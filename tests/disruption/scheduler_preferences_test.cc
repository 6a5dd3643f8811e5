// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Preferences on new NodeClaims (Karpenter's preferences.go): tried as
// required first, then relaxed one at a time; PreferNoSchedule taints of
// NodePools count until the last relaxation tolerates them.

#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "karpenter/cloud_provider.h"
#include "karpenter/scheduling/provision.h"
#include "karpenter/snapshot/load.h"

namespace karpenter::disruption {
namespace {

std::string Pool(const std::string& name, int weight,
                 const std::string& taints = "[]") {
  return absl::StrCat(
      "---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: ",
      name, "}\nspec: {weight: ", weight,
      ", template: {spec: {taints: ", taints, "}}}\n");
}

// A pending pod of app `app` requesting `cpu`, with `extra` spec fields.
std::string Pending(const std::string& name, const std::string& cpu,
                    const std::string& extra = "") {
  return absl::StrCat(
      "---\napiVersion: v1\nkind: Pod\nmetadata: {name: ", name,
      ", namespace: default, labels: {app: web}}\nspec: {containers: [{name: "
      "c, resources: {requests: {cpu: \"",
      cpu, "\"}}}]", extra,
      "}\nstatus: {phase: Pending, conditions: [{type: PodScheduled, status: "
      "\"False\", reason: Unschedulable}]}\n");
}

InstanceTypeCatalog Catalog(const std::vector<std::string>& pools,
                            const std::vector<std::string>& zones) {
  InstanceType type;
  type.name = "m5.xlarge";
  type.capacity = {{"cpu", "4"}, {"memory", "16Gi"}, {"pods", "58"}};
  for (const std::string& z : zones) {
    type.offerings.push_back({z, "on-demand", 0.2, true});
  }
  InstanceTypeCatalog out;
  for (const std::string& p : pools) out[p] = {type};
  return out;
}

v1::ProvisionReport Provision(const std::string& yaml,
                              const InstanceTypeCatalog& catalog) {
  snapshot::ObjectSet set;
  const absl::Status loaded = snapshot::LoadText(yaml, "test.yaml", set);
  INFO(loaded.ToString());
  REQUIRE(loaded.ok());
  absl::StatusOr<snapshot::Snapshot> snap =
      snapshot::Snapshot::Build(std::move(set));
  INFO(snap.status().ToString());
  REQUIRE(snap.ok());
  absl::StatusOr<v1::ProvisionReport> report =
      scheduling::Provision(*snap, catalog);
  INFO(report.status().ToString());
  REQUIRE(report.ok());
  return *report;
}

// The values of `key` In on claim `c`, or {} when it has no In on it.
std::vector<std::string> Values(const v1::ProvisionNodeClaim& c,
                                const std::string& key) {
  for (const v1::ProvisionRequirement& r : c.requirements()) {
    if (r.key() == key && r.operator_() == "In") {
      return {r.values().begin(), r.values().end()};
    }
  }
  return {};
}

constexpr char kZone[] = "topology.kubernetes.io/zone";

TEST_CASE("preferences: preferred node affinity is tried as required",
          "[simulation][preferences]") {
  const std::string prefer_b =
      ", affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuring"
      "Execution: [{weight: 10, preference: {matchExpressions: [{key: "
      "topology.kubernetes.io/zone, operator: In, values: [b]}]}}]}}";
  SECTION("zone b is offered: the claim is pinned to it") {
    const v1::ProvisionReport r =
        Provision(Pool("default", 0) + Pending("p", "1", prefer_b),
                  Catalog({"default"}, {"a", "b"}));
    REQUIRE(r.node_claims_size() == 1);
    CHECK(Values(r.node_claims(0), kZone) == std::vector<std::string>{"b"});
  }
  SECTION("zone b is not offered: relaxed, the claim may take any zone") {
    const v1::ProvisionReport r =
        Provision(Pool("default", 0) + Pending("p", "1", prefer_b),
                  Catalog({"default"}, {"a", "c"}));
    REQUIRE(r.node_claims_size() == 1);
    CHECK(r.unschedulable().empty());
    CHECK(Values(r.node_claims(0), kZone).empty());
  }
}

TEST_CASE("preferences: ScheduleAnyway spreads and preferred anti-affinity",
          "[simulation][preferences]") {
  SECTION("a ScheduleAnyway zone spread spreads new NodeClaims") {
    const std::string spread =
        ", topologySpreadConstraints: [{maxSkew: 1, topologyKey: "
        "topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway, "
        "labelSelector: {matchLabels: {app: web}}}]";
    std::string yaml = Pool("default", 0);
    for (int i = 0; i < 3; ++i) {
      yaml += Pending(absl::StrCat("web-", i), "3", spread);
    }
    const v1::ProvisionReport r =
        Provision(yaml, Catalog({"default"}, {"a", "b", "c"}));
    REQUIRE(r.node_claims_size() == 3);
    std::set<std::string> zones;
    for (const auto& c : r.node_claims()) {
      const std::vector<std::string> v = Values(c, kZone);
      REQUIRE(v.size() == 1);
      zones.insert(v[0]);
    }
    CHECK(zones == std::set<std::string>{"a", "b", "c"});
  }
  SECTION("preferred hostname anti-affinity: one replica per NodeClaim") {
    const std::string anti =
        ", affinity: {podAntiAffinity: {preferredDuringSchedulingIgnored"
        "DuringExecution: [{weight: 100, podAffinityTerm: {topologyKey: "
        "kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}}]}}";
    const v1::ProvisionReport r =
        Provision(Pool("default", 0) + Pending("web-0", "1", anti) +
                      Pending("web-1", "1", anti),
                  Catalog({"default"}, {"a"}));
    CHECK(r.node_claims_size() == 2);
    CHECK(r.unschedulable().empty());
  }
}

TEST_CASE("preferences: PreferNoSchedule taints of NodePools",
          "[simulation][preferences]") {
  const std::string taint =
      "[{key: spot, value: \"yes\", effect: "
      "PreferNoSchedule}]";
  SECTION("a heavier tainted NodePool is passed over for an untainted one") {
    const v1::ProvisionReport r = Provision(
        Pool("tainted", 10, taint) + Pool("plain", 0) + Pending("p", "1"),
        Catalog({"tainted", "plain"}, {"a"}));
    REQUIRE(r.node_claims_size() == 1);
    CHECK(r.node_claims(0).node_pool() == "plain");
  }
  SECTION("only the tainted NodePool: the last relaxation tolerates it") {
    const v1::ProvisionReport r =
        Provision(Pool("tainted", 10, taint) + Pending("p", "1"),
                  Catalog({"tainted"}, {"a"}));
    REQUIRE(r.node_claims_size() == 1);
    CHECK(r.node_claims(0).node_pool() == "tainted");
    CHECK(r.unschedulable().empty());
  }
}

}  // namespace
}  // namespace karpenter::disruption
