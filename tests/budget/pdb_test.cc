// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/budget/pdb.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../testing/kit_test_util.h"
#include "absl/strings/str_cat.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/testing/builders.h"

// The tables below use designated initializers and omit the fields they do
// not need; GCC 12 warns about every omitted member even though each has a
// default.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace karpenter::budget {
namespace {

using testing::Labels;

// A pod with only `labels` and (unless `ready` is "") a Ready condition:
// no phase, node or owner.
v1::Pod Pod(const std::string& ns, const std::string& name,
            const Labels& labels, const std::string& ready = "True") {
  return testing::MakePod({.name = name,
                           .ns = ns,
                           .uid = "",
                           .app = "",
                           .node = "",
                           .phase = "",
                           .labels = labels,
                           .ready = ready});
}

struct PdbSpec {
  std::optional<Labels> selector;  // nullopt: no selector (nil).
  std::string min_available;
  std::string max_unavailable;
  std::string policy;
  std::optional<int32_t> status_allowed;  // Sets status with generation 1.
};

v1::PodDisruptionBudget Pdb(const std::string& ns, const std::string& name,
                            const PdbSpec& s) {
  return testing::MakePdb({.name = name,
                           .ns = ns,
                           .selector = s.selector,
                           .min_available = s.min_available,
                           .max_unavailable = s.max_unavailable,
                           .unhealthy_pod_eviction_policy = s.policy,
                           .disruptions_allowed = s.status_allowed});
}

snapshot::Snapshot Build(std::vector<v1::Pod> pods,
                         std::vector<v1::PodDisruptionBudget> pdbs) {
  snapshot::ObjectSet objects;
  objects.pods = std::move(pods);
  objects.pdbs = std::move(pdbs);
  return kit_test::MustBuildSnapshot(std::move(objects));
}

std::vector<uint32_t> PdbsOf(const PdbIndex& index, uint32_t pod) {
  auto span = index.PdbsOfPod(pod);
  return {span.begin(), span.end()};
}

TEST_CASE("pdb: nil selector selects nothing, {} selects the namespace",
          "[pdb]") {
  snapshot::Snapshot s =
      Build({Pod("a", "p0", {{"app", "web"}}), Pod("a", "p1", {})},
            {Pdb("a", "nil", {}), Pdb("a", "all", {.selector = Labels{}})});
  PdbIndex index = PdbIndex::Build(s);
  CHECK(PdbsOf(index, 0) == std::vector<uint32_t>{1});
  CHECK(PdbsOf(index, 1) == std::vector<uint32_t>{1});
  CHECK(index.errors().empty());
}

TEST_CASE("pdb: a PDB only selects pods of its own namespace", "[pdb]") {
  snapshot::Snapshot s =
      Build({Pod("a", "p", {{"app", "web"}}), Pod("b", "p", {{"app", "web"}}),
             Pod("c", "p", {{"app", "web"}})},
            {Pdb("b", "web", {.selector = Labels{{"app", "web"}}}),
             Pdb("c", "all", {.selector = Labels{}})});
  PdbIndex index = PdbIndex::Build(s);
  CHECK(PdbsOf(index, 0).empty());
  CHECK(PdbsOf(index, 1) == std::vector<uint32_t>{0});
  CHECK(PdbsOf(index, 2) == std::vector<uint32_t>{1});
}

TEST_CASE("pdb: bucketed and unbucketed PDBs merge in snapshot order",
          "[pdb]") {
  // "tier" PDBs are bucketed (most common key); "app" and {} are the rest.
  snapshot::Snapshot s = Build(
      {Pod("a", "p0", {{"tier", "fe"}, {"app", "web"}}),
       Pod("a", "p1", {{"tier", "be"}}), Pod("a", "p2", {{"app", "web"}})},
      {Pdb("a", "app", {.selector = Labels{{"app", "web"}}}),
       Pdb("a", "fe", {.selector = Labels{{"tier", "fe"}}}),
       Pdb("a", "be", {.selector = Labels{{"tier", "be"}}}),
       Pdb("a", "fe2", {.selector = Labels{{"tier", "fe"}, {"app", "web"}}})});
  PdbIndex index = PdbIndex::Build(s);
  CHECK(PdbsOf(index, 0) == std::vector<uint32_t>{0, 1, 3});
  CHECK(PdbsOf(index, 1) == std::vector<uint32_t>{2});
  CHECK(PdbsOf(index, 2) == std::vector<uint32_t>{0});
  CHECK(index.IsMisconfigured(0));
  CHECK_FALSE(index.IsMisconfigured(1));
  EvictionCheck check = index.CanEvict(s, 0, /*evictable=*/true);
  CHECK(check.verdict == EvictionVerdict::kMisconfigured);
  CHECK(check.blocked());
  CHECK(check.blocking_pdbs ==
        std::vector<std::string>{"a/app", "a/fe", "a/fe2"});
  // A pod that is not evictable is never blocked, misconfigured or not.
  CHECK(index.CanEvict(s, 0, /*evictable=*/false).verdict ==
        EvictionVerdict::kNotEvictable);
}

TEST_CASE("pdb: In with several values and NotIn selectors", "[pdb]") {
  v1::PodDisruptionBudget in = Pdb("a", "in", {.selector = Labels{}});
  v1::LabelSelectorRequirement* r =
      in.mutable_spec()->mutable_selector()->add_match_expressions();
  r->set_key("app");
  r->set_operator_("In");
  r->add_values("web");
  r->add_values("api");
  v1::PodDisruptionBudget not_in = Pdb("a", "notin", {.selector = Labels{}});
  r = not_in.mutable_spec()->mutable_selector()->add_match_expressions();
  r->set_key("app");
  r->set_operator_("NotIn");
  r->add_values("web");
  snapshot::Snapshot s = Build(
      {Pod("a", "web", {{"app", "web"}}), Pod("a", "api", {{"app", "api"}}),
       Pod("a", "db", {{"app", "db"}}), Pod("a", "none", {})},
      {std::move(in), std::move(not_in),
       Pdb("a", "api", {.selector = Labels{{"app", "api"}}})});
  PdbIndex index = PdbIndex::Build(s);
  CHECK(PdbsOf(index, 0) == std::vector<uint32_t>{0});
  CHECK(PdbsOf(index, 1) == std::vector<uint32_t>{0, 1, 2});
  CHECK(PdbsOf(index, 2) == std::vector<uint32_t>{1});
  CHECK(PdbsOf(index, 3) == std::vector<uint32_t>{1});
}

TEST_CASE("pdb: disruptionsAllowed computed as the disruption controller",
          "[pdb]") {
  struct Row {
    std::string min, max;
    int ready, not_ready;
    int64_t expected, healthy, desired, allowed;
  };
  const std::vector<Row> rows = {
      {"50%", "", 3, 0, 3, 3, 2, 1},  // ceil(1.5) = 2 desired.
      {"", "50%", 3, 0, 3, 3, 1, 2},  // ceil(1.5) = 2 unavailable.
      {"2", "", 3, 0, 3, 3, 2, 1},      {"2", "", 2, 1, 3, 2, 2, 0},
      {"", "1", 2, 2, 4, 2, 3, 0},   // healthy < desired: 0, not negative.
      {"5", "", 3, 0, 3, 3, 5, 0},   // minAvailable above the pod count.
      {"", "10", 1, 0, 1, 1, 0, 1},  // desired floors at 0.
      {"0", "", 0, 0, 0, 0, 0, 0},   // nothing expected: 0.
      {"", "", 2, 0, 0, 2, 0, 0},    // neither set: nothing expected.
      {"100%", "", 2, 0, 2, 2, 2, 0},   {"", "0%", 2, 0, 2, 2, 2, 0},
      {"33%", "", 10, 0, 10, 10, 4, 6},  // ceil(3.3) = 4.
  };
  for (const Row& r : rows) {
    std::vector<v1::Pod> pods;
    for (int i = 0; i < r.ready + r.not_ready; ++i) {
      pods.push_back(Pod("ns", absl::StrCat("p", i), {{"app", "x"}},
                         i < r.ready ? "True" : "False"));
    }
    snapshot::Snapshot s =
        Build(std::move(pods), {Pdb("ns", "x",
                                    {.selector = Labels{{"app", "x"}},
                                     .min_available = r.min,
                                     .max_unavailable = r.max})});
    PdbIndex index = PdbIndex::Build(s);
    const PdbInfo& info = index.pdbs()[0];
    INFO("min=" << r.min << " max=" << r.max);
    REQUIRE(info.error.ok());
    CHECK_FALSE(info.from_status);
    CHECK(info.expected_pods == r.expected);
    CHECK(info.current_healthy == r.healthy);
    CHECK(info.desired_healthy == r.desired);
    CHECK(info.disruptions_allowed == r.allowed);
  }
}

TEST_CASE("pdb: terminating pods are selected but not healthy", "[pdb]") {
  v1::Pod dying = Pod("ns", "p1", {{"app", "x"}});
  dying.mutable_metadata()->mutable_deletion_timestamp()->set_seconds(1);
  snapshot::Snapshot s =
      Build({Pod("ns", "p0", {{"app", "x"}}), std::move(dying),
             Pod("ns", "p2", {{"app", "x"}}, /*ready=*/"")},
            {Pdb("ns", "x",
                 {.selector = Labels{{"app", "x"}}, .min_available = "1"})});
  const PdbIndex index = PdbIndex::Build(s);
  const PdbInfo& info = index.pdbs()[0];
  CHECK(info.expected_pods == 3);
  CHECK(info.current_healthy == 1);
  CHECK(info.disruptions_allowed == 0);
}

TEST_CASE("pdb: terminal pods are expected, and healthy only if Ready",
          "[pdb]") {
  // The disruption controller lists every selected pod whatever its phase
  // and counts health from the Ready condition alone; a Succeeded pod's
  // kubelet-set Ready=False keeps it out of currentHealthy.
  v1::Pod done = Pod("ns", "p1", {{"app", "x"}}, "False");
  done.mutable_status()->set_phase("Succeeded");
  snapshot::Snapshot s =
      Build({Pod("ns", "p0", {{"app", "x"}}), std::move(done)},
            {Pdb("ns", "x",
                 {.selector = Labels{{"app", "x"}}, .max_unavailable = "1"})});
  const PdbIndex index = PdbIndex::Build(s);
  const PdbInfo& info = index.pdbs()[0];
  CHECK(info.expected_pods == 2);
  CHECK(info.current_healthy == 1);
  CHECK(info.desired_healthy == 1);
  CHECK(info.disruptions_allowed == 0);
}

TEST_CASE("pdb: status, when present, wins over the computation", "[pdb]") {
  std::vector<v1::Pod> pods = {Pod("ns", "p0", {{"app", "x"}}),
                               Pod("ns", "p1", {{"app", "x"}})};
  SECTION("observedGeneration set, disruptionsAllowed 0") {
    snapshot::Snapshot s =
        Build(std::move(pods), {Pdb("ns", "x",
                                    {.selector = Labels{{"app", "x"}},
                                     .min_available = "1",
                                     .status_allowed = 0})});
    const PdbIndex index = PdbIndex::Build(s);
    const PdbInfo& info = index.pdbs()[0];
    CHECK(info.from_status);
    CHECK(info.disruptions_allowed == 0);
  }
  SECTION("all-zero status is the unprocessed default: computed") {
    v1::PodDisruptionBudget pdb = Pdb(
        "ns", "x", {.selector = Labels{{"app", "x"}}, .min_available = "1"});
    pdb.mutable_status();  // status: {disruptionsAllowed: 0, ...}
    snapshot::Snapshot s = Build(std::move(pods), {std::move(pdb)});
    const PdbIndex index = PdbIndex::Build(s);
    const PdbInfo& info = index.pdbs()[0];
    CHECK_FALSE(info.from_status);
    CHECK(info.disruptions_allowed == 1);
  }
  SECTION("disruptionsAllowed without observedGeneration counts as status") {
    v1::PodDisruptionBudget pdb = Pdb(
        "ns", "x", {.selector = Labels{{"app", "x"}}, .min_available = "1"});
    pdb.mutable_status()->set_disruptions_allowed(7);
    snapshot::Snapshot s = Build(std::move(pods), {std::move(pdb)});
    const PdbIndex index = PdbIndex::Build(s);
    const PdbInfo& info = index.pdbs()[0];
    CHECK(info.from_status);
    CHECK(info.disruptions_allowed == 7);
  }
}

TEST_CASE("pdb: fully blocking forms", "[pdb]") {
  struct Row {
    std::string min, max;
    bool fully_blocking;
  };
  const std::vector<Row> rows = {
      {"", "0", true},     {"", "0%", true},   {"100%", "", true},
      {"", "1", false},    {"99%", "", false}, {"0", "", false},
      {"", "100%", false}, {"3", "", false},
  };
  for (const Row& r : rows) {
    snapshot::Snapshot s = Build({Pod("ns", "p", {{"app", "x"}})},
                                 {Pdb("ns", "x",
                                      {.selector = Labels{{"app", "x"}},
                                       .min_available = r.min,
                                       .max_unavailable = r.max})});
    PdbIndex index = PdbIndex::Build(s);
    INFO("min=" << r.min << " max=" << r.max);
    CHECK(index.pdbs()[0].fully_blocking == r.fully_blocking);
    CHECK(index.IsFullyBlocked(0) == r.fully_blocking);
  }
}

TEST_CASE("pdb: CanEvict verdicts per pod", "[pdb]") {
  snapshot::Snapshot s = Build(
      {Pod("ns", "free", {}), Pod("ns", "blocked", {{"app", "zero"}}),
       Pod("ns", "ok", {{"app", "one"}}), Pod("ns", "ok2", {{"app", "one"}}),
       Pod("ns", "sick", {{"app", "aa"}}, "False"),
       Pod("ns", "unknown", {{"app", "aa"}}, "Unknown"),
       Pod("ns", "sick-ifhealthy", {{"app", "zero"}}, "False")},
      {Pdb("ns", "zero",
           {.selector = Labels{{"app", "zero"}}, .status_allowed = 0}),
       Pdb("ns", "one",
           {.selector = Labels{{"app", "one"}}, .status_allowed = 1}),
       Pdb("ns", "aa",
           {.selector = Labels{{"app", "aa"}},
            .policy = "AlwaysAllow",
            .status_allowed = 0})});
  PdbIndex index = PdbIndex::Build(s);
  struct Row {
    uint32_t pod;
    bool evictable;
    EvictionVerdict verdict;
    std::vector<std::string> blocking;
  };
  const std::vector<Row> rows = {
      {0, true, EvictionVerdict::kNoPdb, {}},
      {1, true, EvictionVerdict::kNoDisruptionsAllowed, {"ns/zero"}},
      {1, false, EvictionVerdict::kNotEvictable, {}},
      // Per pod: one allowed disruption covers both pods of PDB "one".
      {2, true, EvictionVerdict::kAllowed, {}},
      {3, true, EvictionVerdict::kAllowed, {}},
      {4, true, EvictionVerdict::kUnhealthyAlwaysAllow, {}},
      {5, true, EvictionVerdict::kNoDisruptionsAllowed, {"ns/aa"}},
      {6, true, EvictionVerdict::kNoDisruptionsAllowed, {"ns/zero"}},
  };
  for (const Row& r : rows) {
    INFO("pod " << r.pod << " evictable " << r.evictable);
    EvictionCheck check = index.CanEvict(s, r.pod, r.evictable);
    CHECK(EvictionVerdictName(check.verdict) == EvictionVerdictName(r.verdict));
    CHECK(check.blocking_pdbs == r.blocking);
    CHECK(check.blocked() == !r.blocking.empty());
  }
  CHECK(index.pdbs()[2].always_allow);
  CHECK_FALSE(index.pdbs()[0].always_allow);
}

TEST_CASE("pdb: invalid PDBs are reported with their path and block", "[pdb]") {
  struct Row {
    PdbSpec spec;
    std::string error;
  };
  const std::vector<Row> rows = {
      {{.selector = Labels{{"app", "x"}},
        .min_available = "1",
        .max_unavailable = "1"},
       "policy/v1 PodDisruptionBudget ns/bad: spec: minAvailable and "
       "maxUnavailable cannot be both set"},
      {{.selector = Labels{{"app", "x"}}, .min_available = "-1"},
       "policy/v1 PodDisruptionBudget ns/bad: spec.minAvailable: \"-1\": "
       "must be greater than or equal to 0"},
      {{.selector = Labels{{"app", "x"}}, .max_unavailable = "150%"},
       "policy/v1 PodDisruptionBudget ns/bad: spec.maxUnavailable: \"150%\": "
       "must not be greater than 100%"},
      {{.selector = Labels{{"app", "x"}}, .policy = "Sometimes"},
       "policy/v1 PodDisruptionBudget ns/bad: spec.unhealthyPodEvictionPolicy: "
       "\"Sometimes\": must be one of \"IfHealthyBudget\", \"AlwaysAllow\""},
  };
  for (const Row& r : rows) {
    PdbSpec spec = r.spec;
    spec.status_allowed = 5;  // An invalid PDB blocks whatever its status.
    snapshot::Snapshot s = Build(
        {Pod("ns", "p", {{"app", "x"}}), Pod("other", "p", {{"app", "x"}})},
        {Pdb("ns", "bad", spec)});
    PdbIndex index = PdbIndex::Build(s);
    INFO(r.error);
    REQUIRE(index.errors().size() == 1);
    CHECK(index.errors()[0].code() == absl::StatusCode::kInvalidArgument);
    CHECK(std::string(index.errors()[0].message()) == r.error);
    CHECK(index.pdbs()[0].disruptions_allowed == 0);
    EvictionCheck check = index.CanEvict(s, 0, true);
    CHECK(check.verdict == EvictionVerdict::kInvalidPdb);
    CHECK(check.blocking_pdbs == std::vector<std::string>{"ns/bad"});
    CHECK(index.CanEvict(s, 1, true).verdict == EvictionVerdict::kNoPdb);
  }
}

TEST_CASE("pdb: an invalid selector matches its whole namespace only",
          "[pdb]") {
  v1::PodDisruptionBudget bad = Pdb("ns", "bad", {.selector = Labels{}});
  v1::LabelSelectorRequirement* r =
      bad.mutable_spec()->mutable_selector()->add_match_expressions();
  r->set_key("app");
  r->set_operator_("In");  // In without values.
  snapshot::Snapshot s =
      Build({Pod("ns", "p", {{"app", "y"}}), Pod("other", "p", {{"app", "y"}})},
            {std::move(bad)});
  PdbIndex index = PdbIndex::Build(s);
  REQUIRE(index.errors().size() == 1);
  CHECK_THAT(std::string(index.errors()[0].message()),
             Catch::StartsWith("policy/v1 PodDisruptionBudget ns/bad: "
                               "spec.selector.matchExpressions[0].values"));
  CHECK(index.CanEvict(s, 0, true).verdict == EvictionVerdict::kInvalidPdb);
  CHECK(index.CanEvict(s, 1, true).verdict == EvictionVerdict::kNoPdb);
}

TEST_CASE("pdb: a JSON-number minAvailable must be integral", "[pdb]") {
  v1::PodDisruptionBudget pdb = Pdb("ns", "frac", {.selector = Labels{}});
  pdb.mutable_spec()->mutable_min_available()->set_number_value(1.5);
  snapshot::Snapshot s = Build({}, {std::move(pdb)});
  PdbIndex index = PdbIndex::Build(s);
  REQUIRE(index.errors().size() == 1);
  CHECK_THAT(std::string(index.errors()[0].message()),
             Catch::StartsWith("policy/v1 PodDisruptionBudget ns/frac: "
                               "spec.minAvailable: "));
}

}  // namespace
}  // namespace karpenter::budget
