// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Capacity reservations on new NodeClaims: each NodeClaim that could launch
// into a reservation holds one of its instances (Karpenter's
// reservationmanager.go), and a reservation with none left is offered to no
// further NodeClaim.

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "karpenter/cloud_provider.h"
#include "karpenter/scheduling/provision.h"
#include "karpenter/snapshot/load.h"

namespace karpenter::disruption {
namespace {

std::string PendingPod(int i) {
  return absl::StrCat(
      "---\napiVersion: v1\nkind: Pod\nmetadata: {name: big-", i,
      ", namespace: default}\nspec: {containers: [{name: c, resources: "
      "{requests: {cpu: \"3\"}}}]}\nstatus: {phase: Pending, conditions: "
      "[{type: PodScheduled, status: \"False\", reason: Unschedulable}]}\n");
}

constexpr char kPool[] =
    "---\napiVersion: karpenter.sh/v1\nkind: NodePool\n"
    "metadata: {name: default}\nspec: {template: {spec: {}}}\n";

// One type: reserved in zone a (0.05, `reserved` instances left), on-demand
// in zones a and b (0.20).
InstanceTypeCatalog Catalog(int reserved) {
  InstanceType type;
  type.name = "m5.xlarge";
  type.capacity = {{"cpu", "4"}, {"memory", "16Gi"}, {"pods", "58"}};
  Offering r{"a", "reserved", 0.05, true};
  r.reservation_id = "cr-1";
  r.reservation_capacity = reserved;
  type.offerings = {
      r, {"a", "on-demand", 0.2, true}, {"b", "on-demand", 0.2, true}};
  return {{"default", {type}}};
}

v1::ProvisionReport Provision(int pods, int reserved) {
  std::string yaml = kPool;
  for (int i = 0; i < pods; ++i) yaml += PendingPod(i);
  snapshot::ObjectSet set;
  const absl::Status loaded = snapshot::LoadText(yaml, "test.yaml", set);
  INFO(loaded.ToString());
  REQUIRE(loaded.ok());
  absl::StatusOr<snapshot::Snapshot> snap =
      snapshot::Snapshot::Build(std::move(set));
  REQUIRE(snap.ok());
  absl::StatusOr<v1::ProvisionReport> report =
      scheduling::Provision(*snap, Catalog(reserved));
  INFO(report.status().ToString());
  REQUIRE(report.ok());
  return *report;
}

TEST_CASE("provisioning: one reservation instance per NodeClaim",
          "[simulation][reservations]") {
  SECTION("two instances left: two claims at the reserved price") {
    const v1::ProvisionReport r = Provision(3, 2);
    REQUIRE(r.node_claims_size() == 3);
    CHECK(r.node_claims(0).price() == Approx(0.05));
    CHECK(r.node_claims(1).price() == Approx(0.05));
    CHECK(r.node_claims(2).price() == Approx(0.2));
    CHECK(r.unschedulable().empty());
  }
  SECTION("none left: every claim is on-demand") {
    const v1::ProvisionReport r = Provision(2, 0);
    REQUIRE(r.node_claims_size() == 2);
    CHECK(r.node_claims(0).price() == Approx(0.2));
    CHECK(r.node_claims(1).price() == Approx(0.2));
  }
}

}  // namespace
}  // namespace karpenter::disruption
