// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// NodeOverlay (karpenter/node_overlay.h): price changes, weights and their
// ties, capacity merging, conflicts, requirement matching, validation, the
// feature gate and the loaders.

#include "karpenter/node_overlay.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/testing/builders.h"
#include "karpenter/validation.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace karpenter {
namespace {

struct OverlayOpts {
  std::string name = "o";
  std::optional<int32_t> weight = {};
  std::optional<std::string> price = {};
  std::optional<std::string> price_adjustment = {};
  std::map<std::string, std::string> capacity = {};
  // (key, operator, values).
  std::vector<std::tuple<std::string, std::string, std::vector<std::string>>>
      requirements = {};
};

v1::NodeOverlay Overlay(const OverlayOpts& o) {
  v1::NodeOverlay out;
  out.set_api_version("karpenter.sh/v1alpha1");
  out.set_kind("NodeOverlay");
  out.mutable_metadata()->set_name(o.name);
  v1::NodeOverlaySpec& spec = *out.mutable_spec();
  if (o.weight.has_value()) spec.set_weight(*o.weight);
  if (o.price.has_value()) spec.set_price(*o.price);
  if (o.price_adjustment.has_value()) {
    spec.set_price_adjustment(*o.price_adjustment);
  }
  for (const auto& [k, v] : o.capacity) (*spec.mutable_capacity())[k] = v;
  for (const auto& [key, op, values] : o.requirements) {
    *spec.add_requirements() = testing::MakeRequirement(key, op, values);
  }
  return out;
}

// Pool "p": m5.large (0.096 on-demand, 0.035 spot) and c5.large (0.085,
// 0.03), each in zones a and b.
InstanceTypeCatalog Catalog() {
  const std::vector<std::string> zones = {"zone-a", "zone-b"};
  return testing::MakeCatalog(
      {"p"}, {testing::MakeInstanceType({.name = "m5.large",
                                         .zones = zones,
                                         .on_demand_price = 0.096,
                                         .spot_price = 0.035}),
              testing::MakeInstanceType({.name = "c5.large",
                                         .zones = zones,
                                         .on_demand_price = 0.085,
                                         .spot_price = 0.03})});
}

std::vector<v1::NodePool> Pools(
    std::map<std::string, std::string> labels = {}) {
  return {testing::MakeNodePool({.name = "p", .template_labels = labels})};
}

const InstanceType& Type(const NodeOverlayResult& r, const std::string& name) {
  for (const InstanceType& it : r.catalog.at("p")) {
    if (it.name == name) return it;
  }
  FAIL("no instance type " << name);
  static InstanceType none;
  return none;
}

// "zone/capacity-type=price" for each offering.
std::vector<std::string> Prices(const InstanceType& it) {
  std::vector<std::string> out;
  for (const Offering& o : it.offerings) {
    out.push_back(absl::StrCat(o.zone, "/", o.capacity_type, "=", o.price));
  }
  return out;
}

std::vector<std::string> Reasons(const NodeOverlayResult& r) {
  std::vector<std::string> out;
  for (const NodeOverlayStatus& s : r.statuses) {
    out.push_back(absl::StrCat(s.name, ":", s.reason));
  }
  return out;
}

NodeOverlayResult Apply(const std::vector<v1::NodeOverlay>& overlays,
                        const std::vector<v1::NodePool>& pools = Pools()) {
  return ApplyNodeOverlays(Catalog(), pools, overlays, {.enabled = true});
}

TEST_CASE("node overlay: price and priceAdjustment", "[node_overlay]") {
  struct Row {
    const char* change;
    double want;
  };
  const Row rows[] = {
      {"", 0.2},      {"0.5", 0.5},    {"0", 0},     {"12.25", 12.25},
      {"+0.1", 0.3},  {"-0.05", 0.15}, {"-1", 0},    {"+10%", 0.22},
      {"-10%", 0.18}, {"-100%", 0},    {"+.5", 0.7}, {"+200%", 0.6},
  };
  for (const Row& row : rows) {
    CAPTURE(row.change);
    absl::StatusOr<double> p = AdjustedPrice(0.2, row.change);
    REQUIRE(p.ok());
    CHECK(*p == Approx(row.want));
  }
  for (const char* bad : {"+", "abc", "1.2.3", "+10%%", "10%", "+1e3", "-"}) {
    CAPTURE(bad);
    absl::StatusOr<double> p = AdjustedPrice(0.2, bad);
    REQUIRE_FALSE(p.ok());
    CHECK_THAT(std::string(p.status().message()),
               Catch::Contains(absl::StrCat("\"", bad, "\"")));
  }
}

TEST_CASE(
    "node overlay: the heaviest overlay sets a price, and they do not stack",
    "[node_overlay]") {
  const NodeOverlayResult r = Apply(
      {Overlay({.name = "light",
                .weight = 5,
                .price_adjustment = "-50%",
                .requirements = {{"node.kubernetes.io/instance-type",
                                  "In",
                                  {"m5.large"}}}}),
       Overlay({.name = "heavy",
                .weight = 10,
                .price = "0.2",
                .requirements = {
                    {"node.kubernetes.io/instance-type", "In", {"m5.large"}},
                    {"karpenter.sh/capacity-type", "In", {"on-demand"}}}})});
  CHECK(Reasons(r) ==
        std::vector<std::string>{"heavy:Applied", "light:Applied"});
  // On-demand: heavy's price; spot: only light selects it, from the
  // provider's price. c5.large is untouched.
  CHECK(Prices(Type(r, "m5.large")) ==
        std::vector<std::string>{"zone-a/on-demand=0.2", "zone-a/spot=0.0175",
                                 "zone-b/on-demand=0.2", "zone-b/spot=0.0175"});
  CHECK(Prices(Type(r, "c5.large")) ==
        std::vector<std::string>{"zone-a/on-demand=0.085", "zone-a/spot=0.03",
                                 "zone-b/on-demand=0.085", "zone-b/spot=0.03"});
  CHECK(r.statuses[0].priced_offerings == 2);
  CHECK(r.statuses[1].priced_offerings == 2);
}

TEST_CASE("node overlay: equal weights conflict, the later name first",
          "[node_overlay]") {
  // Both weight 3 and both price m5.large zone-a on-demand: "b" is taken
  // first, "a" conflicts and is applied nowhere, not even to c5.large,
  // which only it selects.
  const NodeOverlayResult r =
      Apply({Overlay({.name = "a",
                      .weight = 3,
                      .price = "1",
                      .requirements =
                          {{"topology.kubernetes.io/zone", "In", {"zone-a"}}}}),
             Overlay({.name = "b",
                      .weight = 3,
                      .price = "2",
                      .requirements = {{"node.kubernetes.io/instance-type",
                                        "In",
                                        {"m5.large"}}}})});
  CHECK(Reasons(r) == std::vector<std::string>{"b:Applied", "a:Conflict"});
  CHECK(r.statuses[1].message == "conflict with another overlay");
  CHECK(Prices(Type(r, "m5.large")) ==
        std::vector<std::string>{"zone-a/on-demand=2", "zone-a/spot=2",
                                 "zone-b/on-demand=2", "zone-b/spot=2"});
  CHECK(Prices(Type(r, "c5.large"))[0] == "zone-a/on-demand=0.085");

  SECTION("different weights do not conflict") {
    const NodeOverlayResult r2 =
        Apply({Overlay({.name = "a", .weight = 3, .price = "1"}),
               Overlay({.name = "b", .weight = 4, .price = "2"})});
    CHECK(Reasons(r2) == std::vector<std::string>{"b:Applied", "a:Applied"});
    CHECK(Prices(Type(r2, "c5.large"))[0] == "zone-a/on-demand=2");
  }
  SECTION("no weight is weight 0, below any weight") {
    const NodeOverlayResult r2 =
        Apply({Overlay({.name = "z", .price = "1"}),
               Overlay({.name = "a", .weight = 1, .price = "2"})});
    CHECK(Reasons(r2) == std::vector<std::string>{"a:Applied", "z:Applied"});
    CHECK(Prices(Type(r2, "m5.large"))[0] == "zone-a/on-demand=2");
  }
}

TEST_CASE("node overlay: capacity merges by weight and conflicts per resource",
          "[node_overlay]") {
  const NodeOverlayResult r =
      Apply({Overlay({.name = "gpu",
                      .weight = 10,
                      .capacity = {{"example.com/gpu", "1"}},
                      .requirements = {{"node.kubernetes.io/instance-type",
                                        "In",
                                        {"m5.large"}}}}),
             Overlay({.name = "more",
                      .weight = 5,
                      .capacity = {{"example.com/gpu", "4"},
                                   {"example.com/fpga", "2"}}})});
  CHECK(Reasons(r) == std::vector<std::string>{"gpu:Applied", "more:Applied"});
  const InstanceType& m5 = Type(r, "m5.large");
  CHECK(m5.capacity.at("example.com/gpu") == "1");
  CHECK(m5.capacity.at("example.com/fpga") == "2");
  CHECK(m5.capacity.at("cpu") == "2");
  CHECK(Type(r, "c5.large").capacity.at("example.com/gpu") == "4");
  // A zone requirement selects offerings, but capacity is the whole type's.
  const NodeOverlayResult zoned = Apply({Overlay(
      {.name = "z",
       .capacity = {{"example.com/gpu", "8"}},
       .requirements = {{"topology.kubernetes.io/zone", "In", {"zone-b"}}}})});
  CHECK(Type(zoned, "m5.large").capacity.at("example.com/gpu") == "8");

  SECTION("equal weight sharing a resource conflicts; disjoint ones do not") {
    const NodeOverlayResult c = Apply(
        {Overlay({.name = "x", .weight = 2, .capacity = {{"r/one", "1"}}}),
         Overlay({.name = "y",
                  .weight = 2,
                  .capacity = {{"r/one", "5"}, {"r/two", "1"}}})});
    CHECK(Reasons(c) == std::vector<std::string>{"y:Applied", "x:Conflict"});
    const NodeOverlayResult d = Apply(
        {Overlay({.name = "x", .weight = 2, .capacity = {{"r/one", "1"}}}),
         Overlay({.name = "y", .weight = 2, .capacity = {{"r/two", "1"}}})});
    CHECK(Reasons(d) == std::vector<std::string>{"y:Applied", "x:Applied"});
    CHECK(Type(d, "m5.large").capacity.at("r/one") == "1");
  }
}

TEST_CASE("node overlay: requirements select by NodePool, labels and offering",
          "[node_overlay]") {
  SECTION("a custom label must be a template label of the NodePool") {
    const v1::NodeOverlay team =
        Overlay({.name = "team",
                 .price = "9",
                 .requirements = {{"team", "In", {"a"}}}});
    CHECK(Type(Apply({team}), "m5.large").offerings[0].price == Approx(0.096));
    CHECK(Type(Apply({team}, Pools({{"team", "a"}})), "m5.large")
              .offerings[0]
              .price == 9);
    CHECK(Type(Apply({team}, Pools({{"team", "b"}})), "m5.large")
              .offerings[0]
              .price == Approx(0.096));
  }
  SECTION("the NodePool label") {
    const v1::NodeOverlay other =
        Overlay({.name = "other",
                 .price = "9",
                 .requirements = {{"karpenter.sh/nodepool", "In", {"q"}}}});
    CHECK(Type(Apply({other}), "m5.large").offerings[0].price == Approx(0.096));
  }
  SECTION("spot offerings in one zone") {
    const NodeOverlayResult r = Apply(
        {Overlay({.name = "spot-b",
                  .price_adjustment = "+100%",
                  .requirements = {
                      {"karpenter.sh/capacity-type", "In", {"spot"}},
                      {"topology.kubernetes.io/zone", "In", {"zone-b"}}}})});
    CHECK(Prices(Type(r, "c5.large")) ==
          std::vector<std::string>{"zone-a/on-demand=0.085", "zone-a/spot=0.03",
                                   "zone-b/on-demand=0.085",
                                   "zone-b/spot=0.06"});
  }
  SECTION("a zone no offering has selects nothing") {
    const NodeOverlayResult r = Apply(
        {Overlay({.name = "nowhere",
                  .price = "5",
                  .requirements = {
                      {"topology.kubernetes.io/zone", "In", {"zone-z"}}}})});
    CHECK(r.statuses[0].priced_offerings == 0);
  }
}

TEST_CASE("node overlay: an invalid overlay is skipped with its error",
          "[node_overlay]") {
  const NodeOverlayResult r =
      Apply({Overlay({.name = "cpu", .capacity = {{"cpu", "4"}}}),
             Overlay({.name = "ok", .price = "1"})});
  CHECK(Reasons(r) ==
        std::vector<std::string>{"ok:Applied", "cpu:RuntimeValidation"});
  CHECK_THAT(r.statuses[1].message,
             Catch::Contains("spec.capacity.cpu") &&
                 Catch::Contains("invalid resource restricted"));
  CHECK(Type(r, "m5.large").capacity.at("cpu") == "2");
}

TEST_CASE("node overlay: validation of the CRD's rules", "[node_overlay]") {
  struct Row {
    OverlayOpts opts;
    const char* field;  // "" when valid.
  };
  const Row rows[] = {
      {{.price = "0.5"}, ""},
      {{.price_adjustment = "-99.5%"}, ""},
      {{.price_adjustment = "-100%"}, ""},
      {{.price_adjustment = "+250%"}, ""},
      {{.price_adjustment = "-.25"}, ""},
      {{.weight = 10000, .capacity = {{"example.com/gpu", "1"}}}, ""},
      {{.price = "-1"}, "spec.price"},
      {{.price = "1."}, "spec.price"},
      {{.price_adjustment = "-150%"}, "spec.priceAdjustment"},
      {{.price_adjustment = "10%"}, "spec.priceAdjustment"},
      {{.price_adjustment = "+x"}, "spec.priceAdjustment"},
      {{.price = "1", .price_adjustment = "+1"}, "spec"},
      {{.weight = 0}, "spec.weight"},
      {{.weight = 10001}, "spec.weight"},
      {{.capacity = {{"pods", "1"}}}, "spec.capacity.pods"},
      {{.capacity = {{"example.com/gpu", "lots"}}},
       "spec.capacity.example.com/gpu"},
      {{.requirements = {{"kubernetes.io/hostname", "In", {"n"}}}},
       "spec.requirements[0].key"},
      {{.requirements = {{"zone", "NotIn", {}}}},
       "spec.requirements[0].values"},
      {{.requirements = {{"zone", "In", {}}}}, "spec.requirements[0].values"},
  };
  for (const Row& row : rows) {
    const v1::NodeOverlay o = Overlay(row.opts);
    const std::vector<validation::FieldError> errors =
        validation::NodeOverlayErrors(o);
    CAPTURE(row.field, o.DebugString());
    if (row.field[0] == '\0') {
      CHECK(errors.empty());
      continue;
    }
    REQUIRE_FALSE(errors.empty());
    CHECK(errors[0].field == row.field);
    CHECK(errors[0].kind == "NodeOverlay");
  }
  const absl::Status s = validation::ValidateNodeOverlay(
      Overlay({.name = "gpu", .capacity = {{"memory", "1Gi"}}}));
  CHECK_THAT(std::string(s.message()),
             Catch::Contains("NodeOverlay") && Catch::Contains("gpu") &&
                 Catch::Contains("spec.capacity.memory"));
}

TEST_CASE("node overlay: off unless the feature gate is on", "[node_overlay]") {
  const std::vector<v1::NodeOverlay> overlays = {
      Overlay({.name = "o", .price = "9", .capacity = {{"r/x", "1"}}})};
  const NodeOverlayResult off =
      ApplyNodeOverlays(Catalog(), Pools(), overlays, {});
  CHECK(off.catalog == Catalog());
  CHECK(Reasons(off) == std::vector<std::string>{"o:Disabled"});
  const NodeOverlayResult on = Apply(overlays);
  CHECK_FALSE(on.catalog == Catalog());
}

TEST_CASE("node overlay: read from dumps, lists and catalogues",
          "[node_overlay]") {
  const std::string yaml = R"(apiVersion: v1
kind: List
items:
- apiVersion: karpenter.sh/v1alpha1
  kind: NodeOverlay
  metadata: {name: gpu}
  spec:
    weight: 10
    requirements:
    - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}
    capacity: {example.com/gpu: 1}
    priceAdjustment: "+10%"
- apiVersion: v1
  kind: Node
  metadata: {name: n1}
)";
  absl::StatusOr<std::vector<v1::NodeOverlay>> overlays =
      ParseNodeOverlays(yaml, "dump.yaml");
  REQUIRE(overlays.ok());
  REQUIRE(overlays->size() == 1);
  const v1::NodeOverlay& o = overlays->front();
  CHECK(o.metadata().name() == "gpu");
  CHECK(o.spec().weight() == 10);
  CHECK(o.spec().capacity().at("example.com/gpu") == "1");
  CHECK(o.spec().price_adjustment() == "+10%");
  CHECK_FALSE(o.spec().has_price());
  // The snapshot keeps them apart from the cluster's objects.
  snapshot::ObjectSet set;
  REQUIRE(snapshot::LoadText(yaml, "dump.yaml", set).ok());
  absl::StatusOr<snapshot::Snapshot> snap =
      snapshot::Snapshot::Build(std::move(set));
  REQUIRE(snap.ok());
  CHECK(snap->node_overlays().size() == 1);
  CHECK(snap->nodes().size() == 1);
  CHECK(snap->skipped_kinds().empty());

  SECTION("a field of the wrong type names the document and the field") {
    absl::StatusOr<std::vector<v1::NodeOverlay>> bad = ParseNodeOverlays(
        "apiVersion: karpenter.sh/v1alpha1\nkind: NodeOverlay\n"
        "metadata: {name: x}\nspec: {weight: heavy}\n",
        "o.yaml");
    REQUIRE_FALSE(bad.ok());
    CHECK_THAT(std::string(bad.status().message()),
               Catch::Contains("o.yaml") && Catch::Contains("spec.weight") &&
                   Catch::Contains("heavy"));
  }
}

}  // namespace
}  // namespace karpenter
