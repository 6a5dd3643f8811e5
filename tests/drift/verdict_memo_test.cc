// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// EvaluateAllDrift shares per-NodePool work and memoizes the requirements
// and instance-type answers across NodeClaims. These tests pin that no two
// claims whose answers differ ever share one, and that EvaluateAllDrift
// agrees field by field with EvaluateDrift (which evaluates each claim
// alone).

#include <catch2/catch.hpp>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../testing/kit_test_util.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "karpenter/cloud_provider.h"
#include "karpenter/disruption/types.h"
#include "karpenter/drift/verdict.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/state/cluster_state.h"
#include "karpenter/testing/builders.h"
#include "karpenter/v1/karpenter.pb.h"

namespace karpenter::drift {
namespace {

const absl::Time kNow = absl::FromUnixSeconds(1704067200);
constexpr char kNodePoolLabel[] = "karpenter.sh/nodepool";
constexpr char kHostname[] = "kubernetes.io/hostname";
constexpr char kArch[] = "kubernetes.io/arch";
constexpr char kBetaArch[] = "beta.kubernetes.io/arch";
constexpr char kInstanceType[] = "node.kubernetes.io/instance-type";
constexpr char kZone[] = "topology.kubernetes.io/zone";
constexpr char kBetaZone[] = "failure-domain.beta.kubernetes.io/zone";
constexpr char kCapacityType[] = "karpenter.sh/capacity-type";

using Labels = std::map<std::string, std::string>;

// A NodePool stamped with hash "1" whose requirements are `reqs`, each
// {key, operator, values}.
struct Req {
  std::string key;
  std::string op;
  std::vector<std::string> values;
};
v1::NodePool Pool(const std::string& name, const std::vector<Req>& reqs) {
  testing::NodePoolOptions o{.name = name, .hash = "1"};
  for (const Req& r : reqs) {
    o.requirements.push_back(testing::MakeRequirement(r.key, r.op, r.values));
  }
  return testing::MakeNodePool(o);
}

// What varies between the claims of the tables.
struct ClaimSpec {
  std::string name;
  std::optional<std::string> pool;
  Labels labels;
  std::string hash = "1";
  bool launched = true;
  bool deleting = false;
  absl::Duration age = absl::Hours(2);
  // A Drifted=True condition with this reason.
  std::optional<std::string> drifted;

  ClaimSpec& Hash(std::string h) {
    hash = std::move(h);
    return *this;
  }
  ClaimSpec& Pending() {
    launched = false;
    return *this;
  }
  ClaimSpec& Deleting() {
    deleting = true;
    return *this;
  }
  ClaimSpec& Age(absl::Duration d) {
    age = d;
    return *this;
  }
  ClaimSpec& Drifted(std::string reason) {
    drifted = std::move(reason);
    return *this;
  }
};

ClaimSpec Spec(std::string name, std::optional<std::string> pool,
               Labels labels) {
  ClaimSpec spec;
  spec.name = std::move(name);
  spec.pool = std::move(pool);
  spec.labels = std::move(labels);
  return spec;
}

// The kit's NodeClaim (karpenter/testing/builders.h) as `spec` describes
// it: not registered to a Node, Launched (Unknown while pending), the hash
// annotations, and Drifted=True since 30 minutes before kNow if asked.
v1::NodeClaim Claim(const ClaimSpec& spec) {
  std::vector<testing::ConditionOptions> conditions;
  if (spec.drifted) {
    conditions.push_back({.type = "Drifted",
                          .reason = *spec.drifted,
                          .message = *spec.drifted,
                          .since = kNow - absl::Minutes(30)});
  }
  return testing::MakeNodeClaim(
      {.name = spec.name,
       .node_name = "",
       .nodepool = spec.pool.value_or(""),
       .labels = spec.labels,
       .annotations = {{"karpenter.sh/nodepool-hash", spec.hash},
                       {"karpenter.sh/nodepool-hash-version", "v3"}},
       .created = kNow - spec.age,
       .deleted = spec.deleting ? std::optional(kNow) : std::nullopt,
       .launched = spec.launched ? "True" : "Unknown",
       .conditions = std::move(conditions)});
}

snapshot::Snapshot Snap(std::vector<v1::NodePool> pools,
                        const std::vector<ClaimSpec>& specs) {
  snapshot::ObjectSet set;
  set.node_pools = std::move(pools);
  for (const ClaimSpec& spec : specs) set.node_claims.push_back(Claim(spec));
  return kit_test::MustBuildSnapshot(std::move(set));
}

// Labels of an m5.large on-demand amd64 instance in us-west-2a.
Labels Placed(const std::string& host) {
  return {{kHostname, host},
          {kArch, "amd64"},
          {kInstanceType, "m5.large"},
          {kZone, "us-west-2a"},
          {kCapacityType, "on-demand"}};
}

Labels With(Labels labels, const std::string& key,
            std::optional<std::string> value) {
  if (value) {
    labels[key] = *value;
  } else {
    labels.erase(key);
  }
  return labels;
}

// Every claim's verdict must equal EvaluateDrift's for it alone.
void CheckMatchesEvaluateDrift(const snapshot::Snapshot& s,
                               const DriftObservations& obs,
                               const std::vector<DriftVerdict>& all) {
  REQUIRE(all.size() == s.node_claims().size());
  for (size_t i = 0; i < all.size(); ++i) {
    const v1::NodeClaim& claim = s.node_claims()[i];
    INFO(claim.metadata().name());
    const v1::NodePool* pool = nullptr;
    auto label = claim.metadata().labels().find(kNodePoolLabel);
    if (label != claim.metadata().labels().end()) {
      if (auto p = s.FindNodePool(label->second)) {
        pool = &s.node_pools()[*p];
      }
    }
    const DriftVerdict one = EvaluateDrift(claim, pool, obs, kNow);
    CHECK(all[i].node_claim == one.node_claim);
    CHECK(all[i].node_pool == one.node_pool);
    CHECK(all[i].reason == one.reason);
    CHECK(all[i].detail == one.detail);
    CHECK(all[i].error == one.error);
    CHECK(all[i].change == one.change);
    CHECK(all[i].since == one.since);
    CHECK(all[i].skipped == one.skipped);
    CHECK(all[i].unchecked == one.unchecked);
  }
}

TEST_CASE(
    "drift verdict: memo separates claims differing in a constrained "
    "label",
    "[drift][memo]") {
  const v1::NodePool pool = Pool("default", {{kArch, "In", {"amd64"}}});
  // amd64 first, then arm64, then amd64 again: the memo of the first must
  // not answer the second, nor the second the third.
  const std::vector<ClaimSpec> specs = {
      Spec("amd-1", "default", Placed("node-1")),
      Spec("arm-1", "default", With(Placed("node-2"), kArch, "arm64")),
      Spec("amd-2", "default", Placed("node-3")),
      Spec("arm-2", "default", With(Placed("node-4"), kArch, "arm64")),
      // The deprecated alias intersects with the stable label: empty.
      Spec("alias-arm", "default", With(Placed("node-5"), kBetaArch, "arm64")),
      Spec("alias-amd", "default", With(Placed("node-6"), kBetaArch, "amd64")),
      Spec("no-arch", "default", With(Placed("node-7"), kArch, std::nullopt)),
  };
  const snapshot::Snapshot s = Snap({pool}, specs);
  const InstanceTypeCatalog catalog = {
      {"default",
       {InstanceType{
           "m5.large", {}, {{"us-west-2a", "on-demand", 0.1, true}}}}}};
  DriftObservations obs;
  obs.catalog = &catalog;
  const std::vector<DriftVerdict> got = EvaluateAllDrift(s, obs, kNow);
  REQUIRE(got.size() == specs.size());
  const std::string arm_why =
      "key kubernetes.io/arch, kubernetes.io/arch In [amd64] not in "
      "kubernetes.io/arch In [arm64]";
  struct Want {
    std::optional<std::string> reason;
    std::string detail;
  };
  const std::vector<Want> want = {
      {std::nullopt,
       "not drifted by the checks that ran; condition left as is"},
      {"RequirementsDrifted", arm_why},
      {std::nullopt,
       "not drifted by the checks that ran; condition left as is"},
      {"RequirementsDrifted", arm_why},
      {"RequirementsDrifted",
       "key kubernetes.io/arch, kubernetes.io/arch In [amd64] not in "
       "kubernetes.io/arch DoesNotExist"},
      {std::nullopt,
       "not drifted by the checks that ran; condition left as is"},
      {"RequirementsDrifted",
       "label \"kubernetes.io/arch\" does not have known values"},
  };
  for (size_t i = 0; i < want.size(); ++i) {
    INFO(specs[i].name);
    CHECK(got[i].reason == want[i].reason);
    CHECK(got[i].detail == want[i].detail);
  }
  CheckMatchesEvaluateDrift(s, obs, got);
}

TEST_CASE("drift verdict: memo keys on the labels each NodePool constrains",
          "[drift][memo]") {
  // "arch" ignores hostnames; "hosts" excludes node-2 by hostname.
  const std::vector<v1::NodePool> pools = {
      Pool("arch", {{kArch, "In", {"amd64"}}}),
      Pool("hosts", {{kHostname, "NotIn", {"node-2"}}})};
  const std::vector<ClaimSpec> specs = {
      Spec("arch-1", "arch", With(Placed("node-1"), kArch, "arm64")),
      Spec("arch-2", "arch", With(Placed("node-2"), kArch, "arm64")),
      Spec("hosts-1", "hosts", Placed("node-1")),
      Spec("hosts-2", "hosts", Placed("node-2")),
      Spec("hosts-3", "hosts", Placed("node-3")),
  };
  const snapshot::Snapshot s = Snap(pools, specs);
  const DriftObservations obs;
  const std::vector<DriftVerdict> got = EvaluateAllDrift(s, obs, kNow);
  REQUIRE(got.size() == specs.size());
  const std::string arch_why =
      "key kubernetes.io/arch, kubernetes.io/arch In [amd64] not in "
      "kubernetes.io/arch In [arm64]";
  // Differing only in an unconstrained hostname: the same answer.
  CHECK(got[0].reason == "RequirementsDrifted");
  CHECK(got[0].detail == arch_why);
  CHECK(got[1].reason == "RequirementsDrifted");
  CHECK(got[1].detail == arch_why);
  // Differing only in a hostname the NodePool constrains: not the same.
  CHECK_FALSE(got[2].reason.has_value());
  CHECK(got[3].reason == "RequirementsDrifted");
  CHECK(got[3].detail ==
        "key kubernetes.io/hostname, kubernetes.io/hostname NotIn [node-2] "
        "not in kubernetes.io/hostname In [node-2]");
  CHECK_FALSE(got[4].reason.has_value());
  CheckMatchesEvaluateDrift(s, obs, got);
}

TEST_CASE(
    "drift verdict: NodePools with different requirements share no "
    "answer",
    "[drift][memo]") {
  const std::vector<v1::NodePool> pools = {
      Pool("amd", {{kArch, "In", {"amd64"}}}),
      Pool("arm", {{kArch, "In", {"arm64"}}}), Pool("any", {})};
  // The same labels under each NodePool.
  const std::vector<ClaimSpec> specs = {
      Spec("amd-1", "amd", Placed("node-1")),
      Spec("arm-1", "arm", Placed("node-1")),
      Spec("any-1", "any", Placed("node-1")),
      Spec("arm-2", "arm", With(Placed("node-2"), kArch, "arm64")),
      Spec("amd-2", "amd", With(Placed("node-2"), kArch, "arm64")),
  };
  const snapshot::Snapshot s = Snap(pools, specs);
  const DriftObservations obs;
  const std::vector<DriftVerdict> got = EvaluateAllDrift(s, obs, kNow);
  REQUIRE(got.size() == specs.size());
  CHECK_FALSE(got[0].reason.has_value());
  CHECK(got[1].reason == "RequirementsDrifted");
  CHECK(got[1].detail ==
        "key kubernetes.io/arch, kubernetes.io/arch In [arm64] not in "
        "kubernetes.io/arch In [amd64]");
  CHECK_FALSE(got[2].reason.has_value());
  CHECK_FALSE(got[3].reason.has_value());
  CHECK(got[4].reason == "RequirementsDrifted");
  CheckMatchesEvaluateDrift(s, obs, got);
}

TEST_CASE("drift verdict: invalid NodePool requirements error every claim",
          "[drift][memo]") {
  const std::vector<v1::NodePool> pools = {
      Pool("bad", {{kArch, "In", {"amd64"}}, {kZone, "Near", {"x"}}}),
      Pool("good", {{kArch, "In", {"amd64"}}})};
  const std::vector<ClaimSpec> specs = {
      Spec("bad-1", "bad", Placed("node-1")),
      Spec("good-1", "good", With(Placed("node-2"), kArch, "arm64")),
      Spec("bad-2", "bad", With(Placed("node-3"), kArch, "arm64")),
      // Static drift comes first and needs no requirements.
      Spec("bad-hash", "bad", Placed("node-4")).Hash("0"),
      Spec("bad-3", "bad", Placed("node-5")),
  };
  const snapshot::Snapshot s = Snap(pools, specs);
  const DriftObservations obs;
  const std::vector<DriftVerdict> got = EvaluateAllDrift(s, obs, kNow);
  REQUIRE(got.size() == specs.size());
  const absl::Status want = absl::InvalidArgumentError(
      "NodePool \"bad\": spec.template.spec.requirements[1].operator: "
      "unknown operator \"Near\" (want In, NotIn, Exists, DoesNotExist, Gt, "
      "Lt, Gte or Lte)");
  for (size_t i : {0, 2, 4}) {
    INFO(specs[i].name);
    CHECK(got[i].error == want);
    CHECK_FALSE(got[i].reason.has_value());
    CHECK(got[i].change == DriftConditionChange::kNone);
  }
  CHECK(got[1].error.ok());
  CHECK(got[1].reason == "RequirementsDrifted");
  CHECK(got[3].error.ok());
  CHECK(got[3].reason == "NodePoolDrifted");
  CheckMatchesEvaluateDrift(s, obs, got);
}

TEST_CASE("drift verdict: EvaluateAllDrift equals EvaluateDrift per claim",
          "[drift][memo]") {
  const std::vector<Req> main_reqs = {{kArch, "In", {"amd64"}},
                                      {kCapacityType, "NotIn", {"x"}}};
  // "twin" has main's requirements but another catalogue; "zones" has
  // main's catalogue but other requirements.
  const std::vector<v1::NodePool> pools = {
      Pool("main", main_reqs),
      Pool("spot", {{kCapacityType, "In", {"spot", "on-demand"}}}),
      Pool("uncatalogued", {}),
      Pool("failed", {}),
      Pool("twin", main_reqs),
      Pool("zones", {{kZone, "In", {"us-west-2a"}}})};
  const InstanceType m5{"m5.large",
                        {},
                        {{"us-west-2a", "on-demand", 0.1, true},
                         {"us-west-2b", "reserved", 0.1, true}}};
  const InstanceType c5{"c5.large", {}, {{"", "spot", 0.1, true}}};
  const InstanceTypeCatalog catalog = {
      {"main", {m5, c5}}, {"spot", {}}, {"twin", {c5}}, {"zones", {m5, c5}}};
  struct Row {
    ClaimSpec spec;
    std::optional<std::string> reason;
  };
  const Labels placed = Placed("h");
  const std::vector<Row> rows = {
      {Spec("clean", "main", placed), std::nullopt},
      {Spec("other-zone", "main", With(placed, kZone, "us-west-2c")),
       "InstanceTypeNotFound"},
      {Spec("beta-zone", "main", With(placed, kBetaZone, "us-west-2c")),
       "InstanceTypeNotFound"},
      {Spec("reserved-b", "main",
            With(With(placed, kZone, "us-west-2b"), kCapacityType, "reserved")),
       std::nullopt},
      {Spec("on-demand-b", "main", With(placed, kZone, "us-west-2b")),
       "InstanceTypeNotFound"},
      {Spec("no-zone", "main", With(placed, kZone, std::nullopt)),
       std::nullopt},
      {Spec("no-type", "main", With(placed, kInstanceType, std::nullopt)),
       "InstanceTypeNotFound"},
      {Spec("unknown-type", "main", With(placed, kInstanceType, "x9.huge")),
       "InstanceTypeNotFound"},
      {Spec("c5-on-demand", "main", With(placed, kInstanceType, "c5.large")),
       "InstanceTypeNotFound"},
      {Spec("c5-spot", "main",
            With(With(placed, kInstanceType, "c5.large"), kCapacityType,
                 "spot")),
       std::nullopt},
      {Spec("young-unknown", "main", With(placed, kInstanceType, "x9.huge"))
           .Age(absl::Minutes(10)),
       std::nullopt},
      {Spec("arm", "main", With(placed, kArch, "arm64")),
       "RequirementsDrifted"},
      {Spec("excluded-ct", "main", With(placed, kCapacityType, "x")),
       "RequirementsDrifted"},
      {Spec("hash", "main", With(placed, kArch, "arm64")).Hash("0"),
       "NodePoolDrifted"},
      {Spec("spot-empty-catalog", "spot", placed), "InstanceTypeNotFound"},
      {Spec("spot-reserved", "spot", With(placed, kCapacityType, "reserved")),
       "RequirementsDrifted"},
      {Spec("uncatalogued", "uncatalogued", placed), std::nullopt},
      {Spec("failed", "failed", placed).Drifted("AMIDrift"), "AMIDrift"},
      {Spec("provider-error", "uncatalogued", placed), std::nullopt},
      {Spec("pending", "main", placed).Pending().Drifted("AMIDrift"),
       std::nullopt},
      {Spec("deleting", "main", placed).Deleting(), std::nullopt},
      {Spec("orphan", "gone", placed), std::nullopt},
      {Spec("unmanaged", std::nullopt, placed), std::nullopt},
      {Spec("twin-m5", "twin", placed), "InstanceTypeNotFound"},
      {Spec("twin-c5-spot", "twin",
            With(With(placed, kInstanceType, "c5.large"), kCapacityType,
                 "spot")),
       std::nullopt},
      {Spec("twin-arm", "twin", With(placed, kArch, "arm64")),
       "RequirementsDrifted"},
      {Spec("zones-arm", "zones", With(placed, kArch, "arm64")), std::nullopt},
      {Spec("zones-b", "zones", With(placed, kZone, "us-west-2b")),
       "RequirementsDrifted"},
      {Spec("zones-other-zone", "zones", With(placed, kBetaZone, "us-west-2c")),
       "RequirementsDrifted"},
  };
  // Every row twice, the second round named "-again": it is answered from
  // the memos the first round filled.
  std::vector<ClaimSpec> specs;
  for (const char* suffix : {"", "-again"}) {
    for (const Row& row : rows) {
      ClaimSpec spec = row.spec;
      spec.name += suffix;
      spec.labels[kHostname] = spec.name;
      specs.push_back(spec);
    }
  }
  const snapshot::Snapshot s = Snap(pools, specs);
  DriftObservations obs;
  obs.catalog = &catalog;
  obs.catalog_errors["failed"] = absl::UnavailableError("throttled");
  for (const ClaimSpec& spec : specs) {
    obs.provider[spec.name] = ProviderDrift{};
  }
  obs.provider.erase("uncatalogued-again");
  obs.provider["failed"].reason = "AMIDrift";
  obs.provider["failed-again"].reason = "AMIDrift";
  obs.provider["provider-error"].error = absl::InternalError("boom");
  obs.provider["provider-error-again"].error = absl::InternalError("boom");

  const std::vector<DriftVerdict> got = EvaluateAllDrift(s, obs, kNow);
  REQUIRE(got.size() == 2 * rows.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO(specs[i].name);
    CHECK(got[i].reason == rows[i % rows.size()].reason);
  }
  CheckMatchesEvaluateDrift(s, obs, got);
}

TEST_CASE(
    "drift verdict: one DriftBook evaluates any observations as "
    "EvaluateDrift does",
    "[drift][memo]") {
  const std::vector<v1::NodePool> pools = {
      Pool("main", {{kArch, "In", {"amd64"}}}), Pool("bare", {})};
  const InstanceType m5{
      "m5.large", {}, {{"us-west-2a", "on-demand", 0.1, true}}};
  const InstanceTypeCatalog catalog = {{"main", {m5}}};
  const Labels placed = Placed("h");
  const std::vector<ClaimSpec> specs = {
      Spec("clean", "main", placed),
      Spec("moved", "main", With(placed, kZone, "us-west-2c")),
      Spec("arm", "main", With(placed, kArch, "arm64")),
      Spec("marked", "bare", placed).Drifted("AMIDrift"),
      Spec("young", "main", With(placed, kZone, "us-west-2c"))
          .Age(absl::Minutes(5)),
      Spec("pending", "main", placed).Pending().Drifted("AMIDrift"),
  };
  const snapshot::Snapshot s = Snap(pools, specs);
  const DriftBook book = DriftBook::Build(s);

  DriftObservations nothing;
  DriftObservations everything;
  everything.catalog = &catalog;
  for (const ClaimSpec& spec : specs) everything.provider[spec.name] = {};
  everything.provider["clean"].reason = "AMIDrift";
  DriftObservations failing = everything;
  failing.provider["marked"].error = absl::UnavailableError("throttled");

  for (const DriftObservations* obs :
       {&nothing, &everything, &failing, &nothing}) {
    const std::vector<DriftVerdict> got = book.Evaluate(*obs, kNow);
    CheckMatchesEvaluateDrift(s, *obs, got);
  }
  const std::vector<DriftVerdict> got = book.Evaluate(everything, kNow);
  CHECK(got[0].reason == "AMIDrift");  // The provider's.
  CHECK(got[1].reason == "InstanceTypeNotFound");
  CHECK(got[2].reason == "RequirementsDrifted");
  // "bare" is not in the catalogue: nothing proves "marked" undrifted.
  CHECK(got[3].change == DriftConditionChange::kNone);
  CHECK(got[3].unchecked.size() == 1);
  CHECK_FALSE(got[4].reason.has_value());  // Too young for the type check.
  CHECK(got[5].skipped == "not launched");
  CHECK(book.Evaluate(nothing, kNow)[3].unchecked.size() == 2);
}

TEST_CASE(
    "drift verdict: a DriftBook built from the previous one is the book "
    "built afresh",
    "[drift][memo]") {
  const Labels placed = Placed("h");
  state::ClusterState state;
  const auto apply = [&](state::EventType type, auto object) {
    REQUIRE(state.Apply(state::Event{type, std::move(object), ""}).ok());
  };
  apply(state::EventType::kAdded, Pool("main", {{kArch, "In", {"amd64"}}}));
  apply(state::EventType::kAdded, Pool("bare", {}));
  for (const ClaimSpec& spec :
       {Spec("clean", "main", placed),
        Spec("arm", "main", With(placed, kArch, "arm64")),
        Spec("stale", "main", placed).Hash("0"),
        Spec("young", "main", With(placed, kZone, "us-west-2c"))
            .Age(absl::Minutes(5)),
        Spec("pending", "main", placed).Pending(),
        Spec("bare", "bare", placed)}) {
    apply(state::EventType::kAdded, Claim(spec));
  }
  const InstanceType m5{
      "m5.large", {}, {{"us-west-2a", "on-demand", 0.1, true}}};
  const InstanceTypeCatalog catalog = {{"main", {m5}}};
  DriftObservations obs;
  obs.catalog = &catalog;
  obs.provider["bare"].reason = "AMIDrift";

  absl::StatusOr<snapshot::Snapshot> first = state.TakeSnapshot();
  REQUIRE(first.ok());
  const DriftBook first_book = DriftBook::Build(*first);
  CheckMatchesEvaluateDrift(*first, obs, first_book.Evaluate(obs, kNow));

  // One claim now drifts, one launches, one goes, one comes: the others
  // are the same objects and keep their entries.
  apply(state::EventType::kModified,
        Claim(Spec("clean", "main", With(placed, kArch, "arm64"))));
  apply(state::EventType::kModified, Claim(Spec("pending", "main", placed)));
  apply(state::EventType::kDeleted, Claim(Spec("young", "main", placed)));
  apply(state::EventType::kAdded,
        Claim(Spec("new", "main", With(placed, kArch, "arm64"))));
  absl::StatusOr<snapshot::Snapshot> second = state.TakeSnapshot();
  REQUIRE(second.ok());
  REQUIRE(&second->node_claims()[1] == &first->node_claims()[1]);  // arm
  const DriftBook handed = DriftBook::Build(*second, &first_book);
  const std::vector<DriftVerdict> got = handed.Evaluate(obs, kNow);
  CheckMatchesEvaluateDrift(*second, obs, got);
  REQUIRE(got.size() == 6);
  CHECK(got[0].reason == "RequirementsDrifted");  // clean, now arm64
  CHECK(got[1].reason == "RequirementsDrifted");  // arm, handed on
  CHECK(got[2].reason == "NodePoolDrifted");      // stale, handed on
  CHECK(got[3].skipped.empty());                  // pending, launched now
  CHECK(got[5].node_claim == "new");

  // A NodePool edit: nothing is handed on, and the verdicts follow it.
  apply(state::EventType::kModified, Pool("main", {}));
  absl::StatusOr<snapshot::Snapshot> third = state.TakeSnapshot();
  REQUIRE(third.ok());
  const DriftBook rebuilt = DriftBook::Build(*third, &handed);
  const std::vector<DriftVerdict> after = rebuilt.Evaluate(obs, kNow);
  CheckMatchesEvaluateDrift(*third, obs, after);
  CHECK_FALSE(after[1].reason.has_value());  // arm: no requirement now
}

}  // namespace
}  // namespace karpenter::drift
