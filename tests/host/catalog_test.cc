// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Instance-type catalogues (karpenter/catalog.h): the loader, the overhead
// subtraction, every validation error, the example catalogue
// (examples/catalogs/aws-us-west-2.yaml) and a consolidation it enables on
// the demo cluster (examples/clusters/demo.yaml).

#include "karpenter/catalog.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "karpenter/disruption/controller.h"
#include "karpenter/disruption/plan_proto.h"
#include "karpenter/snapshot/load.h"

namespace karpenter {
namespace {

constexpr char kHeader[] =
    "apiVersion: sim.karpenter-sdk.dev/v1\n"
    "kind: InstanceTypeCatalog\n"
    "metadata: {name: test}\n";

constexpr char kGood[] =
    "apiVersion: sim.karpenter-sdk.dev/v1\n"
    "kind: InstanceTypeCatalog\n"
    "metadata: {name: test}\n"
    "instanceTypes:\n"
    "- name: m5.large\n"
    "  capacity: {cpu: \"2\", memory: 8Gi, pods: \"29\"}\n"
    "  labels: {kubernetes.io/arch: amd64}\n"
    "  overhead:\n"
    "    kubeReserved: {cpu: 70m, memory: 574Mi}\n"
    "    systemReserved: {cpu: 10m}\n"
    "    evictionThreshold: {memory: 100Mi}\n"
    "  offerings:\n"
    "  - {zone: us-west-2a, capacityType: on-demand, price: 0.096}\n"
    "  - {zone: us-west-2b, capacityType: spot, price: 0.035, available: "
    "false}\n"
    "- name: c5.large\n"
    "  capacity: {cpu: \"2\", memory: 4Gi}\n"
    "  offerings: [{zone: us-west-2a, capacityType: spot, price: 0.032}]\n";

std::string Example() {
  return absl::StrCat(KARPENTER_EXAMPLES_DIR, "/catalogs/aws-us-west-2.yaml");
}

snapshot::Snapshot Demo() {
  snapshot::ObjectSet set;
  REQUIRE(snapshot::LoadFile(
              absl::StrCat(KARPENTER_EXAMPLES_DIR, "/clusters/demo.yaml"), set)
              .ok());
  absl::StatusOr<snapshot::Snapshot> snap =
      snapshot::Snapshot::Build(std::move(set));
  REQUIRE(snap.ok());
  return *std::move(snap);
}

const InstanceType* Find(const std::vector<InstanceType>& types,
                         const std::string& name) {
  for (const InstanceType& t : types) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

TEST_CASE("catalog: a document becomes instance types ordered by name",
          "[catalog]") {
  absl::StatusOr<std::vector<InstanceType>> types =
      ParseInstanceTypeCatalog(kGood, "cat.yaml");
  REQUIRE(types.ok());
  REQUIRE(types->size() == 2);
  CHECK((*types)[0].name == "c5.large");
  CHECK((*types)[1].name == "m5.large");
  const InstanceType& m5 = (*types)[1];
  CHECK(m5.labels ==
        std::map<std::string, std::string>{{"kubernetes.io/arch", "amd64"}});
  REQUIRE(m5.offerings.size() == 2);
  CHECK(m5.offerings[0].zone == "us-west-2a");
  CHECK(m5.offerings[0].capacity_type == "on-demand");
  CHECK(m5.offerings[0].price == 0.096);
  CHECK(m5.offerings[0].available);
  CHECK(m5.offerings[1].capacity_type == "spot");
  CHECK_FALSE(m5.offerings[1].available);
  // Without overhead the capacity is kept as written.
  CHECK((*types)[0].capacity ==
        std::map<std::string, std::string>{{"cpu", "2"}, {"memory", "4Gi"}});
}

TEST_CASE("catalog: capacity is reduced by the overhead", "[catalog]") {
  absl::StatusOr<std::vector<InstanceType>> types =
      ParseInstanceTypeCatalog(kGood, "cat.yaml");
  REQUIRE(types.ok());
  // cpu 2 - 70m - 10m; memory 8Gi - 574Mi - 100Mi; pods untouched.
  CHECK((*types)[1].capacity ==
        std::map<std::string, std::string>{
            {"cpu", "1920m"}, {"memory", "7518Mi"}, {"pods", "29"}});
  v1::InstanceTypeSpec spec;
  spec.set_name("x");
  (*spec.mutable_capacity())["memory"] = "2Gi";
  (*spec.mutable_capacity())["cpu"] = "4";
  (*spec.mutable_overhead()->mutable_kube_reserved())["memory"] = "1Gi";
  (*spec.mutable_overhead()->mutable_eviction_threshold())["cpu"] = "4";
  (*spec.mutable_overhead()->mutable_system_reserved())["gpu"] = "1";
  const InstanceType t = InstanceTypeFromSpec(spec);
  // Whole units print without a suffix, binary multiples with one; a
  // resource the capacity lacks stays absent.
  CHECK(t.capacity ==
        std::map<std::string, std::string>{{"cpu", "0"}, {"memory", "1Gi"}});
}

TEST_CASE("catalog: the same document in JSON", "[catalog]") {
  absl::StatusOr<std::vector<InstanceType>> types = ParseInstanceTypeCatalog(
      R"({"apiVersion": "sim.karpenter-sdk.dev/v1",
          "kind": "InstanceTypeCatalog",
          "instanceTypes": [{"name": "t", "capacity": {"cpu": "1"},
            "overhead": {"systemReserved": {"cpu": "100m"}},
            "offerings": [{"zone": "z", "capacityType": "spot",
                           "price": 0.5}]}]})",
      "cat.json");
  REQUIRE(types.ok());
  REQUIRE(types->size() == 1);
  CHECK((*types)[0].capacity.at("cpu") == "900m");
  CHECK((*types)[0].offerings[0].price == 0.5);
}

struct ErrorCase {
  std::string text;
  std::string error;
};

TEST_CASE("catalog: every validation error names the file, field and value",
          "[catalog]") {
  const std::string h = kHeader;
  const std::string offering =
      "  offerings: [{zone: z, capacityType: on-demand, price: 1}]\n";
  const std::vector<ErrorCase> cases = {
      {h + "instanceTypes:\n- name: a\n  capacity: {cpu: 2x}\n" + offering,
       "cat.yaml: instanceTypes[0].capacity[\"cpu\"]: invalid quantity "
       "\"2x\""},
      {h + "instanceTypes:\n- name: a\n  capacity: {cpu: \"-1\"}\n" + offering,
       "cat.yaml: instanceTypes[0].capacity[\"cpu\"]: must not be negative "
       "\"-1\""},
      {h + "instanceTypes:\n- name: a\n" + offering +
           "- name: b\n  offerings: [{zone: z, capacityType: spot, price: "
           "-0.5}]\n",
       "cat.yaml: instanceTypes[1].offerings[0].price: must be a finite "
       "number >= 0 \"-0.5\""},
      {h + "instanceTypes:\n- capacity: {cpu: \"1\"}\n" + offering,
       "cat.yaml: instanceTypes[0].name: must be set"},
      {h + "instanceTypes:\n- name: a\n" + offering + "- name: a\n" + offering,
       "cat.yaml: instanceTypes[1].name: duplicate instance type \"a\""},
      {h + "instanceTypes:\n- name: a\n",
       "cat.yaml: instanceTypes[0].offerings: needs at least one offering "
       "for \"a\""},
      {h + "instanceTypes:\n- name: a\n  offerings: [{capacityType: spot}]\n",
       "cat.yaml: instanceTypes[0].offerings[0].zone: must be set"},
      {h + "instanceTypes:\n- name: a\n  offerings: [{zone: z}]\n",
       "cat.yaml: instanceTypes[0].offerings[0].capacityType: must be set"},
      {h + "instanceTypes:\n- name: a\n  capacity: {memory: 8Gi}\n" +
           "  overhead:\n    kubeReserved: {memory: 6Gi}\n"
           "    systemReserved: {memory: 2Gi}\n"
           "    evictionThreshold: {memory: 100Mi}\n" +
           offering,
       "cat.yaml: instanceTypes[0].overhead: memory overhead \"8292Mi\" "
       "(kubeReserved + systemReserved + evictionThreshold) exceeds capacity "
       "\"8Gi\""},
      {h + "instanceTypes:\n- name: a\n  capacity: {cpu: \"1\"}\n" +
           "  overhead: {systemReserved: {memory: 1Mi}}\n" + offering,
       "cat.yaml: instanceTypes[0].overhead: memory overhead \"1Mi\" "
       "(kubeReserved + systemReserved + evictionThreshold) exceeds capacity "
       "\"0\""},
      {h + "instanceTypes:\n- name: a\n" +
           "  overhead: {evictionThreshold: {memory: lots}}\n" + offering,
       "cat.yaml: instanceTypes[0].overhead.evictionThreshold[\"memory\"]: "
       "invalid quantity \"lots\""},
      {"apiVersion: sim.karpenter-sdk.dev/v1\nkind: Scenario\n",
       "cat.yaml: kind: expected \"InstanceTypeCatalog\", got \"Scenario\""},
      {"apiVersion: v1\nkind: Node\nmetadata: {name: n}\n",
       "cat.yaml: kind: expected \"InstanceTypeCatalog\", got \"Node\""},
      {"apiVersion: sim.karpenter-sdk.dev/v2\nkind: InstanceTypeCatalog\n",
       "cat.yaml: apiVersion: expected \"sim.karpenter-sdk.dev/v1\", got "
       "\"sim.karpenter-sdk.dev/v2\""},
      {"", "cat.yaml: no InstanceTypeCatalog document"},
      {h + "---\n" + h, "cat.yaml: 2 InstanceTypeCatalog documents"},
      {h, "cat.yaml: instanceTypes: needs at least one instance type"},
      {h + "instanceTypes:\n- name: a\n  offerings: [{zone: z, capacityType: "
           "spot, price: cheap}]\n",
       "cat.yaml: document 1 (InstanceTypeCatalog test): "
       "instanceTypes[0].offerings[0].price"},
  };
  for (const ErrorCase& c : cases) {
    CAPTURE(c.text);
    absl::StatusOr<std::vector<InstanceType>> types =
        ParseInstanceTypeCatalog(c.text, "cat.yaml");
    REQUIRE_FALSE(types.ok());
    CHECK(types.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(absl::StartsWith(types.status().message(), c.error));
  }
}

TEST_CASE("catalog: a file that cannot be read is named", "[catalog]") {
  absl::StatusOr<std::vector<InstanceType>> types =
      LoadInstanceTypeCatalog("/nonexistent/cat.yaml");
  REQUIRE_FALSE(types.ok());
  CHECK(types.status().code() == absl::StatusCode::kNotFound);
  CHECK(absl::StrContains(types.status().message(), "/nonexistent/cat.yaml"));
}

TEST_CASE("catalog: the example catalogue loads with allocatable capacity",
          "[catalog]") {
  absl::StatusOr<std::vector<InstanceType>> types =
      LoadInstanceTypeCatalog(Example());
  REQUIRE(types.ok());
  CHECK(types->size() == 14);
  const InstanceType* m5 = Find(*types, "m5.large");
  REQUIRE(m5 != nullptr);
  // 2 vCPU - 70m; 7577Mi - (255Mi + 11Mi x 29) - 100Mi; 20Gi - 1Gi - 2Gi.
  CHECK(m5->capacity ==
        std::map<std::string, std::string>{{"cpu", "1930m"},
                                           {"ephemeral-storage", "17Gi"},
                                           {"memory", "6903Mi"},
                                           {"pods", "29"}});
  CHECK(m5->offerings.size() == 6);
  const InstanceType* arm = Find(*types, "m6g.large");
  REQUIRE(arm != nullptr);
  CHECK(arm->labels.at("kubernetes.io/arch") == "arm64");
}

TEST_CASE("catalog: every NodePool of the snapshot gets every type",
          "[catalog]") {
  const snapshot::Snapshot snap = Demo();
  absl::StatusOr<std::vector<InstanceType>> types =
      LoadInstanceTypeCatalog(Example());
  REQUIRE(types.ok());
  const InstanceTypeCatalog catalog = CatalogForEveryNodePool(snap, *types);
  REQUIRE(catalog.size() == 3);
  for (const char* pool : {"batch", "default", "system"}) {
    CAPTURE(pool);
    REQUIRE(catalog.count(pool) == 1);
    CHECK(catalog.at(pool).size() == types->size());
  }
}

// The demo cluster after the first pass's command has run: ip-10-0-1-89,
// its NodeClaim and its (DaemonSet) pods are gone.
snapshot::Snapshot DemoAfterEmptiness() {
  snapshot::ObjectSet set;
  REQUIRE(snapshot::LoadFile(
              absl::StrCat(KARPENTER_EXAMPLES_DIR, "/clusters/demo.yaml"), set)
              .ok());
  const std::string gone = "ip-10-0-1-89.us-west-2.compute.internal";
  const size_t nodes = set.nodes.size();
  const size_t claims = set.node_claims.size();
  const size_t pods = set.pods.size();
  set.nodes.erase(std::remove_if(set.nodes.begin(), set.nodes.end(),
                                 [&](const v1::Node& n) {
                                   return n.metadata().name() == gone;
                                 }),
                  set.nodes.end());
  set.node_claims.erase(
      std::remove_if(set.node_claims.begin(), set.node_claims.end(),
                     [&](const v1::NodeClaim& c) {
                       return c.status().node_name() == gone;
                     }),
      set.node_claims.end());
  set.pods.erase(std::remove_if(set.pods.begin(), set.pods.end(),
                                [&](const v1::Pod& p) {
                                  return p.spec().node_name() == gone;
                                }),
                 set.pods.end());
  REQUIRE(set.nodes.size() == nodes - 1);
  REQUIRE(set.node_claims.size() == claims - 1);
  REQUIRE(set.pods.size() == pods - 2);  // aws-node and kube-proxy
  absl::StatusOr<snapshot::Snapshot> snap =
      snapshot::Snapshot::Build(std::move(set));
  REQUIRE(snap.ok());
  return *std::move(snap);
}

disruption::Plan PassAt(const snapshot::Snapshot& snap,
                        const InstanceTypeCatalog& catalog,
                        absl::string_view at) {
  absl::Time now;
  std::string error;
  REQUIRE(absl::ParseTime(absl::RFC3339_full, at, &now, &error));
  disruption::PassInputs inputs;
  inputs.catalog = catalog;
  absl::StatusOr<disruption::Plan> plan =
      disruption::Controller().Decide(snap, inputs, now);
  REQUIRE(plan.ok());
  return *std::move(plan);
}

TEST_CASE(
    "catalog: the demo cluster consolidates ip-10-0-3-67 with the example "
    "catalogue once its empty node is gone",
    "[catalog]") {
  constexpr char kAt[] = "2025-03-05T07:00:00Z";
  constexpr char kSpot[] = "ip-10-0-3-67.us-west-2.compute.internal";
  absl::StatusOr<std::vector<InstanceType>> types =
      LoadInstanceTypeCatalog(Example());
  REQUIRE(types.ok());

  // First pass on the dump as shipped: Emptiness acts (one budgeted method
  // per pass), so consolidation is not reached.
  const snapshot::Snapshot demo = Demo();
  const disruption::Plan first =
      PassAt(demo, CatalogForEveryNodePool(demo, *types), kAt);
  REQUIRE(first.commands.size() == 1);
  CHECK(first.commands[0].method == disruption::Method::kEmptiness);
  REQUIRE(first.commands[0].candidates.size() == 1);
  CHECK(first.commands[0].candidates[0].node_name ==
        "ip-10-0-1-89.us-west-2.compute.internal");

  // Second pass, once that node is gone: the priced catalogue lets
  // single-node consolidation delete the spot m5.xlarge (0.0692/h in
  // us-west-2c), whose two movable pods fit on the other nodes.
  const snapshot::Snapshot after = DemoAfterEmptiness();
  const disruption::Plan second =
      PassAt(after, CatalogForEveryNodePool(after, *types), kAt);
  REQUIRE(second.acted.has_value());
  CHECK(*second.acted == disruption::Method::kSingleNodeConsolidation);
  REQUIRE(second.commands.size() == 1);
  const disruption::Command& command = second.commands[0];
  CHECK(command.decision() == disruption::Decision::kDelete);
  REQUIRE(command.candidates.size() == 1);
  CHECK(command.candidates[0].node_name == kSpot);
  CHECK(absl::StrContains(command.explanation, "price 0.0692"));
  const disruption::NodeVerdict* verdict = second.VerdictOf(kSpot);
  REQUIRE(verdict != nullptr);
  CHECK(verdict->code == disruption::reasons::kCommanded);

  // The same pass over the catalogue a dump alone gives (the types the
  // nodes run, unpriced): nothing is consolidated.
  const disruption::Plan unpriced =
      PassAt(after, disruption::ObservedInstanceTypes(after), kAt);
  CHECK(unpriced.commands.empty());
  const disruption::NodeVerdict* unknown = unpriced.VerdictOf(kSpot);
  REQUIRE(unknown != nullptr);
  CHECK(unknown->code == disruption::reasons::kInstanceTypeUnknown);
}

}  // namespace
}  // namespace karpenter
