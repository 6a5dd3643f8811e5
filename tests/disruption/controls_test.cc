// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The SDK's NodePool disruption controls (disruption/controls.h): parsing,
// validation, and what each changes in a controller pass.
#include "karpenter/disruption/controls.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "controller_test_util.h"
#include "karpenter/disruption/explain.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/validation.h"
#include "karpenter/well_known.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace karpenter::disruption {
namespace {

using controller_test::CodeOf;
using controller_test::CommandSummary;
using controller_test::PodOpts;
using controller_test::PoolOpts;
using controller_test::World;
using test::kT0;

const std::string kZones(well_known::kMaxDisruptingZonesAnnotationKey);
const std::string kSoft(well_known::kSoftExpirationAnnotationKey);
const std::string kSavings(well_known::kConsolidationMinSavingsAnnotationKey);
const std::string kReplacements(
    well_known::kConsolidationMaxReplacementsAnnotationKey);

TEST_CASE("controls: max-disrupting-zones values", "[controls]") {
  struct Row {
    std::string text;
    std::optional<int64_t> want;  // nullopt: an error.
  };
  const std::vector<Row> rows = {
      {"1", 1},      {"3", 3},        {"1000", 1000}, {"0", std::nullopt},
      {"-1", {}},    {"1001", {}},    {"1.5", {}},    {"", {}},
      {" 1", {}},    {"one", {}},     {"+1", {}},
  };
  for (const Row& row : rows) {
    CAPTURE(row.text);
    absl::StatusOr<int64_t> got = ParseMaxDisruptingZones(row.text);
    REQUIRE(got.ok() == row.want.has_value());
    if (got.ok()) CHECK(*got == *row.want);
  }
}

TEST_CASE("controls: soft-expiration values", "[controls]") {
  SECTION("valid") {
    absl::StatusOr<SoftExpirationSpec> a =
        ParseSoftExpiration("budget=1,ceiling=24h");
    REQUIRE(a.ok());
    CHECK(a->budget == IntOrPercent::FromInt(1));
    CHECK(a->ceiling == absl::Hours(24));
    CHECK(FormatSoftExpiration(*a) == "budget=1,ceiling=24h");

    absl::StatusOr<SoftExpirationSpec> b =
        ParseSoftExpiration("ceiling=Never,budget=20%");
    REQUIRE(b.ok());
    CHECK(b->budget == IntOrPercent::FromPercent(20));
    CHECK_FALSE(b->ceiling.has_value());
    CHECK(FormatSoftExpiration(*b) == "budget=20%,ceiling=Never");

    absl::StatusOr<SoftExpirationSpec> c = ParseSoftExpiration("ceiling=0s");
    REQUIRE(c.ok());
    CHECK_FALSE(c->budget.has_value());
    CHECK(c->ceiling == absl::ZeroDuration());
  }
  SECTION("invalid, each with its problem") {
    const std::vector<std::pair<std::string, std::string>> rows = {
        {"", "must be budget=<nodes>,ceiling=<duration>"},
        {"budget=1", "ceiling is required"},
        {"budget=1,ceiling=1d", "ceiling: "},
        {"budget=1,ceiling=-1h", "must be a duration >= 0 or Never"},
        {"budget=150%,ceiling=1h", "budget \"150%\""},
        {"budget=-1,ceiling=1h", "budget \"-1\""},
        {"budget=1,budget=2,ceiling=1h", "budget given twice"},
        {"ceiling=1h,ceiling=2h", "ceiling given twice"},
        {"budget=1,max=3,ceiling=1h", "unknown key \"max\""},
        {"budget=1;ceiling=1h", "budget \"1;ceiling=1h\""},
        {"1h", "must be key=value"},
    };
    for (const auto& [text, problem] : rows) {
      CAPTURE(text);
      absl::StatusOr<SoftExpirationSpec> got = ParseSoftExpiration(text);
      REQUIRE_FALSE(got.ok());
      CHECK_THAT(std::string(got.status().message()),
                 Catch::Contains(problem));
    }
  }
}

TEST_CASE("controls: consolidation-min-savings and max-replacements values",
          "[controls]") {
  absl::StatusOr<MinSavingsSpec> amount = ParseMinSavings("0.05");
  REQUIRE(amount.ok());
  CHECK(amount->per_hour == 0.05);
  CHECK_FALSE(amount->percent.has_value());
  absl::StatusOr<MinSavingsSpec> share = ParseMinSavings("10%");
  REQUIRE(share.ok());
  CHECK(share->percent == 10);
  CHECK(FormatMinSavings(*share) == "10%");
  CHECK(FormatMinSavings(*amount) == "0.05");
  for (const char* bad :
       {"", "0", "0.0", "-1", "0%", "101%", "1e3", "abc", "5 %", ".", "1.2.3",
        "nan", "inf"}) {
    CAPTURE(bad);
    CHECK_FALSE(ParseMinSavings(bad).ok());
  }
  CHECK(*ParseMaxReplacements("1") == 1);
  CHECK(*ParseMaxReplacements("2") == 2);
  for (const char* bad : {"", "0", "3", "02", "two"}) {
    CAPTURE(bad);
    CHECK_FALSE(ParseMaxReplacements(bad).ok());
  }
}

TEST_CASE("controls: CheckMinSavings against an amount and a share",
          "[controls]") {
  const MinSavingsSpec amount{.per_hour = 0.05};
  CHECK(CheckMinSavings(amount, 0.20, 0.15).ok);  // Exactly the minimum.
  const SavingsCheck below = CheckMinSavings(amount, 0.20, 0.16);
  CHECK_FALSE(below.ok);
  CHECK(below.savings == Approx(0.04));
  CHECK(below.required == 0.05);
  CHECK_THAT(below.why, Catch::Contains("below the NodePool's minimum"));
  const MinSavingsSpec share{.percent = 25};
  CHECK(CheckMinSavings(share, 0.40, 0.30).ok);  // 25% of 0.40 saved.
  CHECK_FALSE(CheckMinSavings(share, 0.40, 0.31).ok);
  CHECK(CheckMinSavings(share, 0.40, 0).ok);  // A delete saves everything.
}

TEST_CASE("controls: NodePool annotations parse together, errors name paths",
          "[controls]") {
  v1::NodePool np;
  np.mutable_metadata()->set_name("default");
  CHECK(*ParseNodePoolControls(np) == NodePoolControls());
  CHECK_FALSE(ParseNodePoolControls(np)->any());
  auto& a = *np.mutable_metadata()->mutable_annotations();
  a[kZones] = "1";
  a[kSoft] = "budget=2,ceiling=12h";
  a[kSavings] = "0.1";
  a[kReplacements] = "2";
  absl::StatusOr<NodePoolControls> all = ParseNodePoolControls(np);
  REQUIRE(all.ok());
  CHECK(all->max_disrupting_zones == 1);
  CHECK(all->soft_expiration->budget == IntOrPercent::FromInt(2));
  CHECK(all->min_savings->per_hour == 0.1);
  CHECK(all->max_replacements == 2);
  CHECK(all->any());

  a[kZones] = "0";
  a[kReplacements] = "";
  const std::vector<ControlError> errors = NodePoolControlErrors(np);
  REQUIRE(errors.size() == 2);
  CHECK(errors[0].ToString() ==
        "metadata.annotations[\"disruption.karpenter-sdk.dev/"
        "consolidation-max-replacements\"]: \"\": must be 1 or 2");
  CHECK(errors[1].field ==
        "metadata.annotations[\"disruption.karpenter-sdk.dev/"
        "max-disrupting-zones\"]");
  CHECK(errors[1].value == "0");
  absl::StatusOr<NodePoolControls> bad = ParseNodePoolControls(np);
  REQUIRE_FALSE(bad.ok());
  CHECK(std::string(bad.status().message()) ==
        errors[0].ToString() + "\n" + errors[1].ToString());
}

TEST_CASE("controls: karpenter validate reports bad SDK annotations",
          "[controls]") {
  snapshot::ObjectSet objects;
  REQUIRE(snapshot::LoadYaml(
              R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: web
  annotations:
    disruption.karpenter-sdk.dev/soft-expiration: "budget=1"
    disruption.karpenter-sdk.dev/consolidation-min-savings: "0.02"
    budget.karpenter-sdk.dev/disruption-rate: "3/1d"
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}
      requirements: []
)",
              "pools.yaml", objects)
              .ok());
  absl::StatusOr<snapshot::Snapshot> snap =
      snapshot::Snapshot::Build(std::move(objects));
  REQUIRE(snap.ok());
  const validation::SnapshotReport report = validation::ValidateSnapshot(*snap);
  std::vector<std::string> lines;
  for (const validation::FieldError& e : report.errors) {
    lines.push_back(e.ToString());
  }
  REQUIRE(lines.size() == 2);
  CHECK_THAT(lines[0],
             Catch::StartsWith(
                 "karpenter.sh/v1 NodePool web: metadata.annotations[\"budget."
                 "karpenter-sdk.dev/disruption-rate\"]:"));
  CHECK_THAT(lines[0], Catch::Contains("(SDK annotation)"));
  CHECK_THAT(lines[1],
             Catch::Contains("metadata.annotations[\"disruption.karpenter-sdk."
                             "dev/soft-expiration\"]: ceiling is required"));
  CHECK_THAT(lines[1], Catch::Contains("got \"budget=1\""));
}

// --- max-disrupting-zones in a pass.

// Four drifted nodes over three zones, a budget that allows them all.
World ZonedDrift(const std::string& annotation) {
  World w;
  PoolOpts pool;
  if (!annotation.empty()) pool.annotations = {{kZones, annotation}};
  w.Zones({"zone-a", "zone-b", "zone-c"}).Pool(pool).Budget("100%");
  for (const auto& [name, zone] :
       std::vector<std::pair<std::string, std::string>>{{"a1", "zone-a"},
                                                        {"a2", "zone-a"},
                                                        {"b1", "zone-b"},
                                                        {"c1", "zone-c"}}) {
    w.BusyNode({.name = name,
                .instance_type = "m5.large",
                .zone = zone,
                .capacity_type = "on-demand"},
               {.drifted_since = kT0 - absl::Minutes(10)});
    w.ProviderDrift(name, "NodePoolDrifted");
  }
  return w;
}

TEST_CASE("controls: max-disrupting-zones keeps drift to one zone",
          "[controls]") {
  SECTION("off: Karpenter drifts every zone at once") {
    World w = ZonedDrift("");
    const Plan plan = w.Decide();
    CHECK(CommandSummary(plan) ==
          std::vector<std::string>{"Drift:a1", "Drift:a2", "Drift:b1",
                                   "Drift:c1"});
    CHECK(plan.controls.empty());
  }
  SECTION("on: the first zone's nodes only") {
    World w = ZonedDrift("1");
    const Plan plan = w.Decide();
    CHECK(CommandSummary(plan) ==
          std::vector<std::string>{"Drift:a1", "Drift:a2"});
    CHECK(CodeOf(plan, "b1") == reasons::kZoneLimit);
    CHECK(CodeOf(plan, "c1") == reasons::kZoneLimit);
    CHECK_THAT(plan.VerdictOf("b1")->message,
               Catch::Contains("zone(s) \"zone-a\" disrupting, node is in "
                               "zone \"zone-b\""));
    REQUIRE(plan.controls.size() == 1);
    CHECK(plan.controls[0].disrupting_zones.empty());
  }
  SECTION("two zones") {
    World w = ZonedDrift("2");
    CHECK(CommandSummary(w.Decide()) ==
          std::vector<std::string>{"Drift:a1", "Drift:a2", "Drift:b1"});
  }
  SECTION("a zone already disrupting is the one that continues") {
    World w = ZonedDrift("1");
    w.inputs.in_flight.insert("aws:///b1");
    const Plan plan = w.Decide();
    CHECK(CommandSummary(plan).empty());
    CHECK(CodeOf(plan, "a1") == reasons::kZoneLimit);
    CHECK(CodeOf(plan, "b1") == reasons::kInFlight);
    REQUIRE(plan.controls.size() == 1);
    CHECK(plan.controls[0].disrupting_zones ==
          std::vector<std::string>{"zone-b"});
  }
}

// --- soft-expiration in a pass.

World Expired(const std::string& annotation, const std::string& budget) {
  World w;
  PoolOpts pool{.consolidate_after = "Never"};
  if (!annotation.empty()) pool.annotations = {{kSoft, annotation}};
  w.Pool(pool);
  if (!budget.empty()) w.Budget(budget);
  // Expired 1h, 2h and 3h ago (expireAfter 1h); d-fresh has not expired.
  for (int i = 1; i <= 3; ++i) {
    w.BusyNode({.name = std::string(1, static_cast<char>('a' + i - 1)) +
                        "-expired"},
               {.created = kT0 - absl::Hours(1 + i), .expire_after = "1h"});
  }
  w.BusyNode({.name = "d-fresh"},
             {.created = kT0 - absl::Minutes(30), .expire_after = "1h"});
  return w;
}

TEST_CASE("controls: soft-expiration waits for the expiration budget",
          "[controls]") {
  SECTION("off: every expired node goes while the budget is 0") {
    World w = Expired("", "0");
    CHECK(CommandSummary(w.Decide()) ==
          std::vector<std::string>{"Expiration:a-expired",
                                   "Expiration:b-expired",
                                   "Expiration:c-expired"});
  }
  SECTION("on with budget=1: the longest expired goes first") {
    World w = Expired("budget=1,ceiling=24h", "100%");
    const Plan plan = w.Decide();
    CHECK(CommandSummary(plan) ==
          std::vector<std::string>{"Expiration:c-expired"});
    CHECK(CodeOf(plan, "a-expired") == reasons::kExpirationBudgetExhausted);
    CHECK(CodeOf(plan, "b-expired") == reasons::kExpirationBudgetExhausted);
    CHECK_THAT(plan.VerdictOf("b-expired")->message,
               Catch::Contains("soft-expiration budget=1 of 4 nodes = 1"));
    CHECK_THAT(plan.VerdictOf("b-expired")->message,
               Catch::Contains("deleted regardless at 2024-01-01T22:00:00Z"));
    CHECK(CodeOf(plan, "d-fresh") != reasons::kCommanded);
    // The next pass is due when a-expired reaches its ceiling at the
    // latest (it expired at kT0 - 1h; ceiling 24h), or sooner.
    CHECK(plan.next_pass <= kT0 + absl::Hours(23));
  }
  SECTION("a reason-less NodePool budget of 0 holds them all") {
    World w = Expired("ceiling=24h", "0");
    const Plan plan = w.Decide();
    CHECK(CommandSummary(plan).empty());
    CHECK(CodeOf(plan, "c-expired") == reasons::kExpirationBudgetExhausted);
  }
  SECTION("a budget for other reasons does not") {
    World w;
    w.Pool(PoolOpts{.annotations = {{kSoft, "ceiling=Never"}},
                    .consolidate_after = "Never"})
        .Budget("0", {"Drifted"})
        .BusyNode({.name = "a-expired"},
                  {.created = kT0 - absl::Hours(2), .expire_after = "1h"});
    CHECK(CommandSummary(w.Decide()) ==
          std::vector<std::string>{"Expiration:a-expired"});
  }
  SECTION("past the ceiling a node goes regardless") {
    World w = Expired("budget=0,ceiling=90m", "");
    const Plan plan = w.Decide();
    // Expired 2h and 3h ago: past 90m. a-expired (1h ago) waits.
    CHECK(CommandSummary(plan) ==
          std::vector<std::string>{"Expiration:b-expired",
                                   "Expiration:c-expired"});
    CHECK(CodeOf(plan, "a-expired") == reasons::kExpirationBudgetExhausted);
    CHECK_THAT(plan.commands[0].explanation,
               Catch::Contains("past its soft-expiration ceiling 1h30m"));
    CHECK(plan.next_pass <= kT0 + absl::Minutes(30));
  }
  SECTION("nodes already disrupting use the budget up") {
    World w = Expired("budget=2,ceiling=24h", "100%");
    w.inputs.in_flight.insert("aws:///d-fresh");
    const Plan plan = w.Decide();
    CHECK(CommandSummary(plan) ==
          std::vector<std::string>{"Expiration:c-expired"});
    REQUIRE(plan.controls.size() == 1);
    CHECK(plan.controls[0].expiration.allowed == 2);
    CHECK(plan.controls[0].expiration_remaining == 1);
  }
}

// --- consolidation-min-savings in a pass.

TEST_CASE("controls: consolidation-min-savings refuses small moves",
          "[controls]") {
  // Two half-used m5.large (0.096/h each): one can go, saving 0.096/h.
  // Multi-node consolidation is kept out (it finds no cheaper replacement
  // for both and would name that first).
  ControllerOptions options;
  options.consolidation.max_multi_candidates = 1;
  const auto decide = [&](const std::string& annotation) {
    World w;
    PoolOpts pool;
    if (!annotation.empty()) pool.annotations = {{kSavings, annotation}};
    w.Pool(pool).Budget("100%");
    w.BusyNode({.name = "a-busy"}).BusyNode({.name = "b-busy"});
    return w.Decide(options);
  };
  const Plan off = decide("");
  REQUIRE(off.commands.size() == 1);
  CHECK(off.commands[0].decision() == Decision::kDelete);
  CHECK(decide("0.05").commands.size() == 1);
  CHECK(decide("100%").commands.size() == 1);  // A delete saves all of it.
  const Plan held = decide("0.10");
  CHECK(held.commands.empty());
  for (const char* node : {"a-busy", "b-busy"}) {
    CAPTURE(node);
    CHECK(CodeOf(held, node) == reasons::kSavingsBelowThreshold);
  }
  CHECK_THAT(held.VerdictOf("a-busy")->message,
             Catch::Contains("below the NodePool's minimum 0.1000/h"));
}

TEST_CASE("controls: an invalid control annotation fails the NodePool closed",
          "[controls]") {
  World w;
  w.Pool(PoolOpts{.annotations = {{kZones, "zero"}}})
      .Budget("100%")
      .Node({.name = "a-empty"})
      .BusyNode({.name = "b-expired"},
                {.created = kT0 - absl::Hours(2), .expire_after = "1h"});
  const Plan plan = w.Decide();
  // Expiration stays Karpenter's; the budgeted methods disrupt nothing.
  CHECK(CommandSummary(plan) ==
        std::vector<std::string>{"Expiration:b-expired"});
  CHECK(CodeOf(plan, "a-empty") == reasons::kInvalidControl);
  CHECK_THAT(plan.VerdictOf("a-empty")->message,
             Catch::Contains("max-disrupting-zones\"]: \"zero\": must be"));
  REQUIRE(plan.controls.size() == 1);
  CHECK_FALSE(plan.controls[0].error.empty());
}

// --- consolidation-max-replacements (m nodes into two) in a pass.

// Three m5.2xlarge-priced nodes (0.384/h each; 2 cpu allocatable, as every
// World node), each running one 1100m pod that fits on no other node. New
// NodeClaims can be m5.large (2 cpu: one pod, `small_price`) or c5.xlarge
// (3 cpu: two pods, `big_price`); m5.2xlarge is offered with 2 cpu. So
// the three pods need two new NodeClaims, two of them need one.
World ThreeIntoTwo(const std::string& annotation, double small_price,
                   double big_price) {
  World w;
  PoolOpts pool;
  if (!annotation.empty()) pool.annotations = {{kReplacements, annotation}};
  // On-demand only, so that no replacement is held to spot offerings.
  v1::NodeSelectorRequirement on_demand;
  on_demand.set_key(std::string(well_known::kCapacityTypeLabelKey));
  on_demand.set_operator_("In");
  on_demand.add_values(std::string(well_known::kCapacityTypeOnDemand));
  pool.requirements = {on_demand};
  w.Pool(pool).Budget("100%");
  for (const char* n : {"a", "b", "c"}) {
    w.Node({.name = n,
            .instance_type = "m5.2xlarge",
            .zone = "us-west-2a",
            .capacity_type = "on-demand"});
    w.Pod(PodOpts{.name = std::string("web-") + n,
                  .node = n,
                  .owner = "apps/v1/ReplicaSet",
                  .cpu = "1100m"});
  }
  w.Build();
  std::vector<InstanceType>& types = w.inputs.catalog["default"];
  types.front().offerings.front().price = small_price;  // m5.large.
  types.push_back(testing::MakeInstanceType(
      {.name = "m5.2xlarge", .on_demand_price = 0.384}));
  types.push_back(testing::MakeInstanceType(
      {.name = "c5.xlarge", .cpu = "3", .on_demand_price = big_price}));
  return w;
}

TEST_CASE("controls: consolidation-max-replacements 2 puts 3 nodes on 2",
          "[controls]") {
  SECTION("off: Karpenter replaces two nodes with one") {
    World w = ThreeIntoTwo("", 0.096, 0.17);
    const Plan plan = w.Decide();
    REQUIRE(plan.commands.size() == 1);
    const Command& cmd = plan.commands[0];
    CHECK(cmd.method == Method::kMultiNodeConsolidation);
    CHECK(cmd.candidates.size() == 2);
    REQUIRE(cmd.replacements.size() == 1);
    CHECK(cmd.replacements[0].instance_types ==
          std::vector<std::string>{"c5.xlarge"});
    CHECK(CodeOf(plan, "c") == reasons::kNotSelected);
  }
  SECTION("on: all three on a c5.xlarge and an m5.large") {
    World w = ThreeIntoTwo("2", 0.096, 0.17);
    const Plan plan = w.Decide();
    REQUIRE(plan.commands.size() == 1);
    const Command& cmd = plan.commands[0];
    CHECK(cmd.method == Method::kMultiNodeConsolidation);
    CHECK(cmd.candidates.size() == 3);
    REQUIRE(cmd.replacements.size() == 2);
    // Two pods on a c5.xlarge; one on an m5.large or, for the same
    // pair price bound, a c5.xlarge.
    CHECK(cmd.replacements[0].instance_types ==
          std::vector<std::string>{"c5.xlarge"});
    CHECK(cmd.replacements[1].instance_types ==
          (std::vector<std::string>{"m5.large", "c5.xlarge"}));
    CHECK(cmd.replacements[0].node_claim.metadata().name() !=
          cmd.replacements[1].node_claim.metadata().name());
    CHECK(EstimatedSavings(cmd) == Approx(3 * 0.384 - 0.17 - 0.096));
    CHECK_THAT(cmd.explanation,
               Catch::Contains("replace 3 nodes (price 1.1520) with 2 "
                               "NodeClaims (price 0.2660): c5.xlarge"));
    // The 15-second re-validation accepts the same two replacements.
    REQUIRE(cmd.validate_at.has_value());
    absl::StatusOr<Command> valid = Controller().Validate(
        cmd, *w.snapshot, w.inputs, *cmd.validate_at);
    REQUIRE(valid.ok());
    CHECK(valid->replacements.size() == 2);
  }
  SECTION("on, but the pair costs more than one replacement saves") {
    // Both at 0.40: three into two saves 1.152 - 0.80 = 0.352, two into
    // one 0.768 - 0.40 = 0.368. Karpenter's move stands.
    World w = ThreeIntoTwo("2", 0.40, 0.40);
    const Plan plan = w.Decide();
    REQUIRE(plan.commands.size() == 1);
    CHECK(plan.commands[0].candidates.size() == 2);
    CHECK(plan.commands[0].replacements.size() == 1);
  }
  SECTION("on, but the pair costs more than the candidates") {
    // 2 x 0.60 > 3 x 0.384 is refused; the two-node move (0.60 < 0.768)
    // is what remains.
    World w = ThreeIntoTwo("2", 0.60, 0.60);
    const Plan plan = w.Decide();
    REQUIRE(plan.commands.size() == 1);
    CHECK(plan.commands[0].candidates.size() == 2);
    CHECK(plan.commands[0].replacements.size() == 1);
  }
  SECTION("every candidate's NodePool must allow it") {
    World w = ThreeIntoTwo("1", 0.096, 0.17);
    const Plan plan = w.Decide();
    REQUIRE(plan.commands.size() == 1);
    CHECK(plan.commands[0].replacements.size() == 1);
  }
}

TEST_CASE("controls: explain finds when the zone limit lets a node go",
          "[controls]") {
  World w = ZonedDrift("1");
  w.Build();
  absl::StatusOr<NodeExplanation> e =
      ExplainNode(Controller(), *w.snapshot, w.inputs, "b1", kT0);
  REQUIRE(e.ok());
  CHECK(e->verdict.code == reasons::kZoneLimit);
  REQUIRE(e->controls.has_value());
  CHECK(e->controls->controls.max_disrupting_zones == 1);
  // Once zone-a's drifted nodes are gone, a later pass takes zone-b.
  REQUIRE(e->disrupted_at.has_value());
  CHECK(*e->disrupted_at > kT0);
  CHECK(e->disrupted_by == Method::kDrift);
}

TEST_CASE("controls: explain says when soft expiration lets a node go",
          "[controls]") {
  // Expired an hour ago, the budget is 0: it goes at its 90m ceiling.
  World w;
  w.Pool(PoolOpts{.annotations = {{kSoft, "budget=0,ceiling=90m"}},
                  .consolidate_after = "Never"})
      .BusyNode({.name = "a-expired"},
                {.created = kT0 - absl::Hours(2), .expire_after = "1h"});
  w.Build();
  absl::StatusOr<NodeExplanation> e =
      ExplainNode(Controller(), *w.snapshot, w.inputs, "a-expired", kT0);
  REQUIRE(e.ok());
  CHECK(e->verdict.code == reasons::kExpirationBudgetExhausted);
  CHECK(e->expiration_ceiling == kT0 + absl::Minutes(30));
  REQUIRE(e->controls.has_value());
  CHECK(e->controls->expiration_remaining == 0);
  CHECK(e->disrupted_at == kT0 + absl::Minutes(30));
  CHECK(e->disrupted_by == Method::kExpiration);
}

}  // namespace
}  // namespace karpenter::disruption

#pragma GCC diagnostic pop
