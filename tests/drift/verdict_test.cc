// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/drift/verdict.h"

#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../testing/kit_test_util.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "karpenter/cloud_provider.h"
#include "karpenter/disruption/types.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/testing/builders.h"
#include "karpenter/testing/fake_clock.h"
#include "karpenter/testing/fake_cloud_provider.h"
#include "karpenter/v1/karpenter.pb.h"

namespace karpenter::drift {
namespace {

const absl::Time kNow = absl::FromUnixSeconds(1704067200);
constexpr char kInstanceType[] = "node.kubernetes.io/instance-type";
constexpr char kZone[] = "topology.kubernetes.io/zone";
constexpr char kCapacityType[] = "karpenter.sh/capacity-type";
constexpr char kArch[] = "kubernetes.io/arch";
constexpr char kHash[] = "karpenter.sh/nodepool-hash";
constexpr char kHashVersion[] = "karpenter.sh/nodepool-hash-version";

// A launched, managed NodeClaim of NodePool "default", two hours old, on an
// m5.large on-demand instance in us-west-2a, with the pool's hash.
struct ClaimOpts {
  std::string name = "default-a";
  std::optional<std::string> pool = "default";
  std::string provider_id = "aws:///us-west-2a/i-a";
  absl::Time created = kNow - absl::Hours(2);
  bool deleting = false;
  std::optional<std::string> launched = "True";
  std::string hash = "1";
  std::map<std::string, std::string> labels = {{kInstanceType, "m5.large"},
                                               {kZone, "us-west-2a"},
                                               {kCapacityType, "on-demand"},
                                               {kArch, "amd64"}};
  // Drifted condition: status and reason; nullopt: none.
  std::optional<std::pair<std::string, std::string>> drifted;
  absl::Time drifted_since = kNow - absl::Minutes(30);
};

// The kit's NodeClaim (karpenter/testing/builders.h) as ClaimOpts describe
// it: not registered to a Node, the pool's hash annotations, the Launched
// and Drifted conditions only.
v1::NodeClaim MakeClaim(const ClaimOpts& o) {
  std::vector<testing::ConditionOptions> conditions;
  if (o.drifted) {
    conditions.push_back({.type = "Drifted",
                          .status = o.drifted->first,
                          .reason = o.drifted->second,
                          .message = o.drifted->second,
                          .since = o.drifted_since});
  }
  return testing::MakeNodeClaim(
      {.name = o.name,
       .node_name = "",
       .provider_id = o.provider_id,
       .nodepool = o.pool.value_or(""),
       .labels = o.labels,
       .annotations = {{kHash, o.hash}, {kHashVersion, "v3"}},
       .created = o.created,
       .deleted = o.deleting ? std::optional(kNow) : std::nullopt,
       .launched = o.launched.value_or(""),
       .conditions = std::move(conditions)});
}

// NodePool `name` with hash "1" requiring `kubernetes.io/arch <arch_op>
// [amd64]`.
v1::NodePool MakePool(std::string name = "default",
                      std::string arch_op = "In") {
  return testing::MakeNodePool({.name = std::move(name),
                                .hash = "1",
                                .requirements = {testing::MakeRequirement(
                                    kArch, std::move(arch_op), {"amd64"})}});
}

Offering Off(std::string zone, std::string capacity_type,
             bool available = true) {
  return Offering{std::move(zone), std::move(capacity_type), 0.1, available};
}

InstanceType Type(std::string name, std::vector<Offering> offerings) {
  return InstanceType{std::move(name), {{"cpu", "2"}}, std::move(offerings)};
}

// The catalogue every claim of "default" passes: m5.large on-demand and
// spot in us-west-2a.
InstanceTypeCatalog GoodCatalog() {
  return {{"default",
           {Type("m5.large", {Off("us-west-2a", "on-demand"),
                              Off("us-west-2a", "spot")})}}};
}

// Observations under which nothing is drifted for `claims`.
DriftObservations CleanObs(const InstanceTypeCatalog* catalog,
                           const std::vector<std::string>& claims) {
  DriftObservations obs;
  obs.catalog = catalog;
  for (const std::string& c : claims) obs.provider[c] = ProviderDrift{};
  return obs;
}

TEST_CASE("drift verdict: instance type not found table", "[drift]") {
  struct Case {
    std::string name;
    std::map<std::string, std::string> labels;
    std::vector<InstanceType> types;
    bool drifted;
    std::string why;
  };
  const std::map<std::string, std::string> reserved = {
      {kInstanceType, "m5.large"},
      {kZone, "us-west-2a"},
      {kCapacityType, "reserved"},
      {"karpenter.k8s.aws/capacity-reservation-id", "cr-1"}};
  const std::map<std::string, std::string> od = {{kInstanceType, "m5.large"},
                                                 {kZone, "us-west-2a"},
                                                 {kCapacityType, "on-demand"}};
  const std::vector<Case> cases = {
      {"reserved claim, reserved and on-demand offerings",
       reserved,
       {Type("m5.large",
             {Off("us-west-2a", "reserved"), Off("us-west-2a", "on-demand")})},
       false,
       ""},
      {"reserved claim, reserved offering only",
       reserved,
       {Type("m5.large", {Off("us-west-2a", "reserved")})},
       false,
       ""},
      {"reserved claim, on-demand offering only",
       reserved,
       {Type("m5.large", {Off("us-west-2a", "on-demand")})},
       false,
       ""},
      {"reserved claim, spot offering only",
       reserved,
       {Type("m5.large", {Off("us-west-2a", "spot")})},
       true,
       "instance type \"m5.large\" has no offering (of 1) in zone "
       "\"us-west-2a\" with capacity type \"on-demand\" or \"reserved\""},
      {"reserved claim, no compatible offering",
       reserved,
       {Type("m5.large",
             {Off("us-west-2b", "reserved"), Off("us-west-2b", "on-demand")})},
       true,
       "instance type \"m5.large\" has no offering (of 2) in zone "
       "\"us-west-2a\" with capacity type \"on-demand\" or \"reserved\""},
      {"on-demand claim, reserved offering only is drifted",
       od,
       {Type("m5.large", {Off("us-west-2a", "reserved")})},
       true,
       "instance type \"m5.large\" has no offering (of 1) in zone "
       "\"us-west-2a\" with capacity type \"on-demand\""},
      {"unavailable offering still counts",
       od,
       {Type("m5.large", {Off("us-west-2a", "on-demand", false)})},
       false,
       ""},
      {"claim without zone label matches any zone",
       {{kInstanceType, "m5.large"}, {kCapacityType, "spot"}},
       {Type("m5.large", {Off("eu-west-1c", "spot")})},
       false,
       ""},
      {"offering without zone matches any zone",
       od,
       {Type("m5.large", {Off("", "on-demand")})},
       false,
       ""},
      {"deprecated zone label is normalised",
       {{kInstanceType, "m5.large"},
        {"failure-domain.beta.kubernetes.io/zone", "us-west-2a"}},
       {Type("m5.large", {Off("us-west-2b", "on-demand")})},
       true,
       "instance type \"m5.large\" has no offering (of 1) in zone "
       "\"us-west-2a\" with capacity type (any)"},
      {"missing instance-type label",
       {{kZone, "us-west-2a"}, {kCapacityType, "on-demand"}},
       {Type("m5.large", {Off("us-west-2a", "on-demand")})},
       true,
       "no node.kubernetes.io/instance-type label"},
      {"instance type gone",
       od,
       {Type("m5.xlarge", {Off("us-west-2a", "on-demand")})},
       true,
       "instance type \"m5.large\" is not among the 1 instance types of the "
       "NodePool"},
      {"no instance types at all",
       od,
       {},
       true,
       "instance type \"m5.large\" is not among the 0 instance types of the "
       "NodePool"},
      {"type without offerings",
       od,
       {Type("m5.large", {})},
       true,
       "instance type \"m5.large\" has no offering (of 0) in zone "
       "\"us-west-2a\" with capacity type \"on-demand\""},
  };
  for (const Case& c : cases) {
    SECTION(c.name) {
      ClaimOpts o;
      o.labels = c.labels;
      std::string why;
      std::optional<std::string> got =
          InstanceTypeNotFound(MakeClaim(o), c.types, &why);
      CHECK(got.has_value() == c.drifted);
      if (c.drifted) CHECK(*got == "InstanceTypeNotFound");
      CHECK(why == c.why);
    }
  }
}

TEST_CASE("drift verdict: instance type check waits an hour", "[drift]") {
  const v1::NodePool pool = MakePool();
  const InstanceTypeCatalog empty = {{"default", {}}};
  const DriftObservations obs = CleanObs(&empty, {"default-a"});
  struct Case {
    absl::Duration age;
    bool drifted;
  };
  for (const Case& c :
       {Case{absl::Minutes(5), false}, Case{absl::Hours(1), false},
        Case{absl::Hours(1) + absl::Seconds(1), true},
        Case{absl::Hours(48), true}}) {
    SECTION(absl::FormatDuration(c.age)) {
      ClaimOpts o;
      o.created = kNow - c.age;
      const DriftVerdict v = EvaluateDrift(MakeClaim(o), &pool, obs, kNow);
      CHECK(v.error.ok());
      CHECK(v.unchecked.empty());
      CHECK(v.reason.has_value() == c.drifted);
      if (c.drifted) CHECK(*v.reason == "InstanceTypeNotFound");
    }
  }
}

TEST_CASE("drift verdict: the first drift reason wins", "[drift]") {
  struct Case {
    std::string name;
    bool hash_drift;
    bool requirements_drift;
    bool type_gone;
    std::optional<std::string> provider;
    std::optional<std::string> want;
    std::string detail;
  };
  const std::vector<Case> cases = {
      {"hash and provider", true, false, false, "AMIDrift", "NodePoolDrifted",
       "NodeClaim karpenter.sh/nodepool-hash \"0\" differs from the "
       "NodePool's \"1\" (hash version \"v3\")"},
      {"all four", true, true, true, "AMIDrift", "NodePoolDrifted", ""},
      {"requirements before instance type", false, true, true, "AMIDrift",
       "RequirementsDrifted",
       "key kubernetes.io/arch, kubernetes.io/arch In [amd64] not in "
       "kubernetes.io/arch In [arm64]"},
      {"instance type before provider", false, false, true, "AMIDrift",
       "InstanceTypeNotFound",
       "instance type \"m4.large\" is not among the 1 instance types of the "
       "NodePool"},
      {"provider only", false, false, false, "SubnetDrift", "SubnetDrift",
       "the cloud provider reports \"SubnetDrift\""},
      {"none", false, false, false, std::nullopt, std::nullopt, ""},
  };
  const v1::NodePool pool = MakePool();
  for (const Case& c : cases) {
    SECTION(c.name) {
      ClaimOpts o;
      if (c.hash_drift) o.hash = "0";
      if (c.requirements_drift) o.labels[kArch] = "arm64";
      if (c.type_gone) o.labels[kInstanceType] = "m4.large";
      const InstanceTypeCatalog catalog = GoodCatalog();
      DriftObservations obs = CleanObs(&catalog, {"default-a"});
      obs.provider["default-a"].reason = c.provider;
      const DriftVerdict v = EvaluateDrift(MakeClaim(o), &pool, obs, kNow);
      CHECK(v.error.ok());
      CHECK(v.reason == c.want);
      if (!c.detail.empty()) CHECK(v.detail == c.detail);
      CHECK(v.change == (c.want ? DriftConditionChange::kSet
                                : DriftConditionChange::kNone));
    }
  }
}

TEST_CASE("drift verdict: Drifted condition changes", "[drift]") {
  using Cond = std::optional<std::pair<std::string, std::string>>;
  const absl::Time old = kNow - absl::Minutes(30);
  struct Case {
    std::string name;
    Cond existing;
    bool drifted;  // By the provider.
    std::optional<std::string> launched;
    DriftConditionChange change;
    std::optional<absl::Time> since;
    std::string skipped;
  };
  const std::vector<Case> cases = {
      {"newly drifted", std::nullopt, true, "True", DriftConditionChange::kSet,
       kNow, ""},
      {"still drifted, same reason keeps since", Cond{{"True", "AMIDrift"}},
       true, "True", DriftConditionChange::kNone, old, ""},
      {"drifted for another reason keeps since", Cond{{"True", "SubnetDrift"}},
       true, "True", DriftConditionChange::kSet, old, ""},
      {"False condition becomes True now", Cond{{"False", "AMIDrift"}}, true,
       "True", DriftConditionChange::kSet, kNow, ""},
      {"no longer drifted", Cond{{"True", "AMIDrift"}}, false, "True",
       DriftConditionChange::kRemove, std::nullopt, ""},
      {"stale False condition removed", Cond{{"False", ""}}, false, "True",
       DriftConditionChange::kRemove, std::nullopt, ""},
      {"never drifted", std::nullopt, false, "True",
       DriftConditionChange::kNone, std::nullopt, ""},
      {"not launched removes", Cond{{"True", "AMIDrift"}}, true, "Unknown",
       DriftConditionChange::kRemove, std::nullopt, "not launched"},
      {"no Launched condition removes", Cond{{"True", "AMIDrift"}}, true,
       std::nullopt, DriftConditionChange::kRemove, std::nullopt,
       "not launched"},
      {"not launched without condition", std::nullopt, true, "False",
       DriftConditionChange::kNone, std::nullopt, "not launched"},
  };
  const v1::NodePool pool = MakePool();
  const InstanceTypeCatalog catalog = GoodCatalog();
  for (const Case& c : cases) {
    SECTION(c.name) {
      ClaimOpts o;
      o.drifted = c.existing;
      o.drifted_since = old;
      o.launched = c.launched;
      DriftObservations obs = CleanObs(&catalog, {"default-a"});
      if (c.drifted) obs.provider["default-a"].reason = "AMIDrift";
      const DriftVerdict v = EvaluateDrift(MakeClaim(o), &pool, obs, kNow);
      CHECK(v.error.ok());
      CHECK(v.skipped == c.skipped);
      CHECK(DriftConditionChangeName(v.change) ==
            DriftConditionChangeName(c.change));
      CHECK(v.since == c.since);
    }
  }
}

TEST_CASE("drift verdict: errors change nothing", "[drift]") {
  const InstanceTypeCatalog catalog = GoodCatalog();
  ClaimOpts o;
  o.drifted = {{"True", "AMIDrift"}};
  const v1::NodeClaim claim = MakeClaim(o);

  SECTION("provider error") {
    DriftObservations obs = CleanObs(&catalog, {"default-a"});
    obs.provider["default-a"].error = absl::UnavailableError("throttled");
    const v1::NodePool pool = MakePool();
    const DriftVerdict v = EvaluateDrift(claim, &pool, obs, kNow);
    CHECK(v.error == absl::UnavailableError("IsDrifted: throttled"));
    CHECK_FALSE(v.reason.has_value());
    CHECK(v.change == DriftConditionChange::kNone);
  }
  SECTION("provider error after an earlier drift is never consulted") {
    DriftObservations obs = CleanObs(&catalog, {"default-a"});
    obs.provider["default-a"].error = absl::UnavailableError("throttled");
    ClaimOpts drifted = o;
    drifted.hash = "0";
    const v1::NodePool pool = MakePool();
    const DriftVerdict v = EvaluateDrift(MakeClaim(drifted), &pool, obs, kNow);
    CHECK(v.error.ok());
    CHECK(v.reason == "NodePoolDrifted");
  }
  SECTION("invalid NodePool requirement") {
    const DriftObservations obs = CleanObs(&catalog, {"default-a"});
    const v1::NodePool pool = MakePool("default", "Foo");
    const DriftVerdict v = EvaluateDrift(claim, &pool, obs, kNow);
    CHECK(v.error.code() == absl::StatusCode::kInvalidArgument);
    CHECK(v.error.message() ==
          "NodePool \"default\": spec.template.spec.requirements[0].operator: "
          "unknown operator \"Foo\" (want In, NotIn, Exists, DoesNotExist, "
          "Gt, Lt, Gte or Lte)");
    CHECK(v.change == DriftConditionChange::kNone);
  }
  SECTION("the wrong NodePool") {
    const DriftObservations obs = CleanObs(&catalog, {"default-a"});
    const v1::NodePool pool = MakePool("other");
    const DriftVerdict v = EvaluateDrift(claim, &pool, obs, kNow);
    CHECK(v.error ==
          absl::InvalidArgumentError(
              "NodeClaim \"default-a\" is labelled NodePool \"default\" but "
              "was given NodePool \"other\""));
  }
}

TEST_CASE("drift verdict: skipped claims", "[drift]") {
  const v1::NodePool pool = MakePool();
  const InstanceTypeCatalog catalog = GoodCatalog();
  DriftObservations obs = CleanObs(&catalog, {"default-a"});
  obs.provider["default-a"].reason = "AMIDrift";
  struct Case {
    std::string name;
    ClaimOpts opts;
    bool with_pool;
    std::string skipped;
  };
  ClaimOpts unmanaged;
  unmanaged.pool = std::nullopt;
  ClaimOpts deleting;
  deleting.deleting = true;
  deleting.drifted = {{"True", "Other"}};
  const std::vector<Case> cases = {
      {"unmanaged", unmanaged, true,
       "not managed: no karpenter.sh/nodepool label"},
      {"deleting", deleting, true, "deleting"},
      {"NodePool not found", ClaimOpts{}, false,
       "NodePool \"default\" not found"},
  };
  for (const Case& c : cases) {
    SECTION(c.name) {
      const DriftVerdict v = EvaluateDrift(
          MakeClaim(c.opts), c.with_pool ? &pool : nullptr, obs, kNow);
      CHECK(v.skipped == c.skipped);
      CHECK_FALSE(v.reason.has_value());
      CHECK(v.error.ok());
      CHECK(v.change == DriftConditionChange::kNone);
    }
  }
}

TEST_CASE("drift verdict: missing observations keep the condition", "[drift]") {
  const v1::NodePool pool = MakePool();
  const InstanceTypeCatalog catalog = GoodCatalog();
  const InstanceTypeCatalog other = {{"other", {}}};
  ClaimOpts o;
  o.drifted = {{"True", "AMIDrift"}};
  const v1::NodeClaim claim = MakeClaim(o);

  SECTION("no catalogue") {
    const DriftObservations obs = CleanObs(nullptr, {"default-a"});
    const DriftVerdict v = EvaluateDrift(claim, &pool, obs, kNow);
    CHECK(v.unchecked ==
          std::vector<std::string>{"InstanceTypeNotFound: no instance-type "
                                   "catalogue observed"});
    CHECK(v.change == DriftConditionChange::kNone);
  }
  SECTION("NodePool missing from the catalogue") {
    DriftObservations obs = CleanObs(&other, {"default-a"});
    obs.catalog_errors["default"] = absl::NotFoundError("no nodeclass");
    const DriftVerdict v = EvaluateDrift(claim, &pool, obs, kNow);
    CHECK(v.unchecked ==
          std::vector<std::string>{
              "InstanceTypeNotFound: NodePool \"default\" is not in the "
              "catalogue (GetInstanceTypes: NOT_FOUND: no nodeclass)"});
    CHECK(v.change == DriftConditionChange::kNone);
  }
  SECTION("provider not asked") {
    const DriftObservations obs = CleanObs(&catalog, {});
    const DriftVerdict v = EvaluateDrift(claim, &pool, obs, kNow);
    CHECK(v.unchecked.size() == 1);
    CHECK(v.change == DriftConditionChange::kNone);
    CHECK_FALSE(v.reason.has_value());
  }
  SECTION("an earlier check still sets the condition") {
    const DriftObservations obs = CleanObs(nullptr, {});
    ClaimOpts fresh;
    fresh.labels[kArch] = "arm64";
    const DriftVerdict v = EvaluateDrift(MakeClaim(fresh), &pool, obs, kNow);
    CHECK(v.reason == "RequirementsDrifted");
    CHECK(v.change == DriftConditionChange::kSet);
  }
  SECTION("the provider still drifts without a catalogue") {
    DriftObservations obs = CleanObs(nullptr, {"default-a"});
    obs.provider["default-a"].reason = "AMIDrift";
    const DriftVerdict v = EvaluateDrift(claim, &pool, obs, kNow);
    CHECK(v.reason == "AMIDrift");
    CHECK(v.change == DriftConditionChange::kNone);
    CHECK(v.since == kNow - absl::Minutes(30));
  }
}

snapshot::Snapshot BuildSnapshot(std::vector<v1::NodePool> pools,
                                 std::vector<v1::NodeClaim> claims) {
  snapshot::ObjectSet set;
  set.node_pools = std::move(pools);
  set.node_claims = std::move(claims);
  return kit_test::MustBuildSnapshot(std::move(set));
}

// Claims of every kind, in this order: drifted by the provider, clean,
// hash-drifted, not launched, deleting, of a missing NodePool, unmanaged,
// whose instance is gone.
std::vector<v1::NodeClaim> MixedClaims() {
  std::vector<v1::NodeClaim> out;
  auto add = [&](std::string name, auto edit) {
    ClaimOpts o;
    o.name = name;
    o.provider_id = "fake:///us-west-2a/" + name;
    edit(o);
    out.push_back(MakeClaim(o));
  };
  add("c-provider", [](ClaimOpts&) {});
  add("c-clean", [](ClaimOpts& o) { o.drifted = {{"True", "AMIDrift"}}; });
  add("c-hash", [](ClaimOpts& o) { o.hash = "0"; });
  add("c-pending", [](ClaimOpts& o) { o.launched = "Unknown"; });
  add("c-deleting", [](ClaimOpts& o) { o.deleting = true; });
  add("c-orphan", [](ClaimOpts& o) { o.pool = "gone"; });
  add("c-unmanaged", [](ClaimOpts& o) { o.pool = std::nullopt; });
  add("c-vanished", [](ClaimOpts&) {});
  return out;
}

TEST_CASE("drift verdict: every NodeClaim of a snapshot", "[drift]") {
  const snapshot::Snapshot s = BuildSnapshot({MakePool()}, MixedClaims());
  const InstanceTypeCatalog catalog = GoodCatalog();
  DriftObservations obs = CleanObs(&catalog, {"c-provider", "c-clean"});
  obs.provider["c-provider"].reason = "AMIDrift";
  const std::vector<DriftVerdict> got = EvaluateAllDrift(s, obs, kNow);
  REQUIRE(got.size() == 8);
  struct Want {
    std::string claim;
    std::optional<std::string> reason;
    DriftConditionChange change;
    std::string skipped;
  };
  const std::vector<Want> want = {
      {"c-provider", "AMIDrift", DriftConditionChange::kSet, ""},
      {"c-clean", std::nullopt, DriftConditionChange::kRemove, ""},
      {"c-hash", "NodePoolDrifted", DriftConditionChange::kSet, ""},
      {"c-pending", std::nullopt, DriftConditionChange::kNone, "not launched"},
      {"c-deleting", std::nullopt, DriftConditionChange::kNone, "deleting"},
      {"c-orphan", std::nullopt, DriftConditionChange::kNone,
       "NodePool \"gone\" not found"},
      {"c-unmanaged", std::nullopt, DriftConditionChange::kNone,
       "not managed: no karpenter.sh/nodepool label"},
      {"c-vanished", std::nullopt, DriftConditionChange::kNone, ""},
  };
  for (size_t i = 0; i < want.size(); ++i) {
    INFO(want[i].claim);
    CHECK(got[i].node_claim == want[i].claim);
    CHECK(got[i].reason == want[i].reason);
    CHECK(got[i].change == want[i].change);
    CHECK(got[i].skipped == want[i].skipped);
    CHECK(got[i].error.ok());
  }
  CHECK(got[7].unchecked.size() == 1);
}

TEST_CASE("drift verdict: ObserveDrift asks the cloud provider", "[drift]") {
  testing::FakeClock clock(kNow);
  absl::StatusOr<std::unique_ptr<testing::FakeCloudProvider>> made =
      testing::FakeCloudProvider::Create(clock);
  REQUIRE(made.ok());
  testing::FakeCloudProvider& cloud = **made;
  for (const char* name : {"c-provider", "c-clean", "c-hash", "c-pending"}) {
    Instance instance;
    instance.provider_id = std::string("fake:///us-west-2a/") + name;
    REQUIRE(cloud.AddInstance(instance).ok());
  }
  REQUIRE(cloud.SetDrifted("fake:///us-west-2a/c-provider", "AMIDrift").ok());
  REQUIRE(cloud.SetDrifted("fake:///us-west-2a/c-hash", "AMIDrift").ok());
  cloud.SetInstanceTypes({Type("m5.large", {Off("us-west-2a", "on-demand")})});
  v1::NodePool idle = MakePool("idle");
  const snapshot::Snapshot s =
      BuildSnapshot({std::move(idle), MakePool()}, MixedClaims());
  InstanceTypeCatalog catalog;
  // From the snapshot, or from a DriftBook over it: the same calls and
  // observations.
  const bool from_book = GENERATE(false, true);
  CAPTURE(from_book);
  const DriftBook book = DriftBook::Build(s);
  const auto observe = [&](InstanceTypeCatalog* out) {
    return from_book ? ObserveDrift(cloud, book, out)
                     : ObserveDrift(cloud, s, out);
  };

  SECTION("calls and answers") {
    const DriftObservations obs = observe(&catalog);
    // One NodePool has eligible claims; c-hash is settled without asking,
    // c-vanished answers NotFound.
    CHECK(cloud.CallCount(testing::CloudMethod::kGetInstanceTypes) == 1);
    CHECK(cloud.CallCount(testing::CloudMethod::kIsDrifted) == 3);
    CHECK(obs.catalog == &catalog);
    REQUIRE(catalog.size() == 1);
    CHECK(catalog.at("default").size() == 1);
    REQUIRE(obs.provider.size() == 2);
    CHECK(obs.provider.at("c-provider").reason == "AMIDrift");
    CHECK_FALSE(obs.provider.at("c-clean").reason.has_value());
    CHECK(obs.provider.at("c-clean").error.ok());

    const std::vector<DriftVerdict> v = EvaluateAllDrift(s, obs, kNow);
    CHECK(v[0].reason == "AMIDrift");
    CHECK(v[1].change == DriftConditionChange::kRemove);
    CHECK(v[2].reason == "NodePoolDrifted");
    CHECK(v[7].change == DriftConditionChange::kNone);
  }
  SECTION("failed calls") {
    REQUIRE(cloud
                .FailNext(testing::CloudMethod::kGetInstanceTypes,
                          absl::NotFoundError("nodeclass missing"))
                .ok());
    REQUIRE(cloud
                .FailNext(testing::CloudMethod::kIsDrifted,
                          absl::UnavailableError("throttled"))
                .ok());
    catalog["stale"] = {};
    const DriftObservations obs = observe(&catalog);
    CHECK(catalog.empty());
    CHECK(obs.catalog_errors.at("default") ==
          absl::NotFoundError("nodeclass missing"));
    CHECK(obs.provider.at("c-provider").error ==
          absl::UnavailableError("throttled"));
    CHECK(obs.provider.at("c-clean").error.ok());

    const std::vector<DriftVerdict> v = EvaluateAllDrift(s, obs, kNow);
    CHECK(v[0].error == absl::UnavailableError("IsDrifted: throttled"));
    CHECK(v[1].change == DriftConditionChange::kNone);
    CHECK(v[1].unchecked.size() == 1);
  }
  SECTION("no catalogue wanted") {
    const DriftObservations obs = observe(nullptr);
    CHECK(cloud.CallCount(testing::CloudMethod::kGetInstanceTypes) == 0);
    CHECK(obs.catalog == nullptr);
    CHECK(obs.provider.size() == 2);
  }
}

}  // namespace
}  // namespace karpenter::drift
