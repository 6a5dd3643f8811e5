// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Do-not-disrupt windows (SDK extension, issue 26) in the disruption
// controller: the candidate rules (Node and Pod, graceful against drift with
// terminationGracePeriod), the plan's verdict and next pass, explain and
// `karpenter validate`, the scenario annotations and the README's simulated
// comparison; tests/drain/do_not_disrupt_window_test.cc has the
// window activity and precedence tables.

#include "karpenter/drain/do_not_disrupt_window.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "candidates_test_util.h"
#include "karpenter/disruption/candidates.h"
#include "karpenter/disruption/controller.h"
#include "karpenter/disruption/explain.h"
#include "karpenter/disruption/plan_proto.h"
#include "karpenter/drain/classify.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/testing/builders.h"
#include "karpenter/testing/scenario.h"
#include "karpenter/testing/simulation.h"
#include "karpenter/time_util.h"
#include "karpenter/validation.h"
#include "karpenter/well_known.h"
#include "../drain/window_test_util.h"

// The tables use designated initializers and omit the fields they do not
// need; GCC 12 warns about every omitted member even though each has a
// default.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace karpenter::disruption {
namespace {

using test::ClaimOpts;
using PodOpts = testing::PodOptions;

using window_test::At;
using window_test::kDuration;
using window_test::kSchedule;
using window_test::Window;

// Usable by a graceful method (consolidation), an eventual one (drift), a
// forceful one (expiration); the graceful verdict's code and message.
struct Usable {
  bool graceful = false;
  bool eventual = false;
  bool forceful = false;
  std::string code;
  std::string message;
};

Usable UsableFor(const CandidatePool& pool) {
  Usable u;
  const auto graceful = pool.For(Method::kSingleNodeConsolidation);
  u.graceful = graceful.candidates.size() == 1;
  if (!graceful.excluded.empty()) {
    u.code = graceful.excluded[0].code;
    u.message = graceful.excluded[0].message;
  }
  u.eventual = pool.For(Method::kDrift).candidates.size() == 1;
  u.forceful = pool.For(Method::kExpiration).candidates.size() == 1;
  return u;
}

TEST_CASE(
    "do-not-disrupt window: a pod's window stops graceful methods like "
    "do-not-disrupt",
    "[disruption][dnd-window]") {
  struct Case {
    std::string now;
    bool tgp;
    bool blocks;
  };
  const std::vector<Case> cases = {
      {"2024-01-01T10:00:00Z", false, true},
      {"2024-01-01T10:00:00Z", true, true},
      {"2024-01-01T17:00:00Z", false, false},  // Released at hit + duration.
      {"2024-01-01T08:00:00Z", true, false},
  };
  for (const Case& c : cases) {
    INFO(c.now << " tgp " << c.tgp);
    test::Cluster cl;
    ClaimOpts claim;
    if (c.tgp) claim.tgp = "1h";
    cl.Pool().Node({}, claim);
    cl.Pod({.name = "pinned", .annotations = Window("0 9 * * *", "8h")});
    const snapshot::Snapshot s = cl.Build();
    const CandidatePool pool = test::MustBuild(test::Ctx(s, At(c.now)));
    CHECK(pool.exclusions().empty());
    const Usable u = UsableFor(pool);
    CHECK(u.graceful == !c.blocks);
    // Drift with terminationGracePeriod and forceful methods go ahead.
    CHECK(u.eventual == (!c.blocks || c.tgp));
    CHECK(u.forceful);
    REQUIRE(pool.managed_claims().size() == 1);
    const std::optional<absl::Time>& until =
        pool.managed_claims()[0].window_until;
    if (c.blocks) {
      CHECK(u.code == "DoNotDisruptWindow");
      CHECK(u.message ==
            "pod \"default/pinned\" has a do-not-disrupt window (schedule "
            "\"0 9 * * *\", duration 8h; annotation "
            "\"disruption.karpenter-sdk.dev/do-not-disrupt-schedule\") active "
            "until 2024-01-01T17:00:00Z");
      CHECK(until == At("2024-01-01T17:00:00Z"));
    } else {
      CHECK(u.code.empty());
      CHECK_FALSE(until.has_value());
    }
  }
}

TEST_CASE(
    "do-not-disrupt window: a node's window excludes it like "
    "do-not-disrupt",
    "[disruption][dnd-window]") {
  test::Cluster cl;
  cl.Pool();
  cl.Node({.name = "windowed", .annotations = Window("0 9 * * *", "8h")});
  cl.Node({.name = "later", .annotations = Window("0 20 * * *", "1h")});
  cl.Node({.name = "invalid", .annotations = Window("0 9 * * *", "0s")});
  cl.Node({.name = "half", .annotations = {{kSchedule, "0 9 * * *"}}});
  // karpenter.sh/do-not-disrupt is checked first.
  cl.Node({.name = "both",
           .annotations = {{kSchedule, "0 9 * * *"},
                           {kDuration, "8h"},
                           {"karpenter.sh/do-not-disrupt", "true"}}});
  const snapshot::Snapshot s = cl.Build();
  const CandidatePool pool =
      test::MustBuild(test::Ctx(s, At("2024-01-01T10:00:00Z")));
  REQUIRE(pool.exclusions().size() == 2);
  const NodeVerdict& both = pool.exclusions()[0];
  CHECK(both.node == "both");
  CHECK(both.code == "NodeDoNotDisrupt");
  const NodeVerdict& v = pool.exclusions()[1];
  CHECK(v.node == "windowed");
  CHECK(v.code == "DoNotDisruptWindow");
  CHECK(v.message ==
        "node \"windowed\" has a do-not-disrupt window (schedule \"0 9 * * "
        "*\", duration 8h; annotation "
        "\"disruption.karpenter-sdk.dev/do-not-disrupt-schedule\") active "
        "until 2024-01-01T17:00:00Z");
  // Every method class: the drift and expiration pools lack it too.
  CHECK(test::Names(pool.For(Method::kDrift).candidates) ==
        std::vector<std::string>{"half", "invalid", "later"});
  CHECK(test::Names(pool.For(Method::kExpiration).candidates) ==
        std::vector<std::string>{"half", "invalid", "later"});
  for (const ManagedClaim& m : pool.managed_claims()) {
    INFO(m.facts.node_name);
    CHECK(m.window_until.has_value() == (m.facts.node_name == "windowed"));
  }
  // After the window every node is a candidate again.
  const CandidatePool after =
      test::MustBuild(test::Ctx(s, At("2024-01-01T17:00:00Z")));
  CHECK(after.exclusions().size() == 1);
}

snapshot::ObjectSet DemoObjects() {
  snapshot::ObjectSet set;
  REQUIRE(snapshot::LoadFile(
              absl::StrCat(KARPENTER_EXAMPLES_DIR, "/clusters/demo.yaml"), set)
              .ok());
  return set;
}

constexpr char kEmpty[] = "ip-10-0-1-89.us-west-2.compute.internal";

snapshot::Snapshot DemoWithNodeWindow(const std::string& schedule,
                                      const std::string& duration) {
  snapshot::ObjectSet set = DemoObjects();
  bool found = false;
  for (v1::Node& n : set.nodes) {
    if (n.metadata().name() != kEmpty) continue;
    auto& a = *n.mutable_metadata()->mutable_annotations();
    a[kSchedule] = schedule;
    a[kDuration] = duration;
    found = true;
  }
  REQUIRE(found);
  absl::StatusOr<snapshot::Snapshot> snap =
      snapshot::Snapshot::Build(std::move(set));
  REQUIRE(snap.ok());
  return *std::move(snap);
}

PassInputs Inputs(const snapshot::Snapshot& snap) {
  PassInputs inputs;
  inputs.catalog = ObservedInstanceTypes(snap);
  return inputs;
}

TEST_CASE("do-not-disrupt window: plan verdict and next pass",
          "[disruption][dnd-window]") {
  // Without a window the empty node is deleted at 12:00 (explain_test.cc).
  const snapshot::Snapshot snap = DemoWithNodeWindow("0 11 * * *", "2h");
  const PassInputs inputs = Inputs(snap);
  absl::StatusOr<Plan> plan =
      Controller().Decide(snap, inputs, At("2025-03-05T12:00:00Z"));
  REQUIRE(plan.ok());
  const NodeVerdict* v = plan->VerdictOf(kEmpty);
  REQUIRE(v != nullptr);
  CHECK(v->code == "DoNotDisruptWindow");
  CHECK_THAT(v->message, Catch::Contains("until 2025-03-05T13:00:00Z"));
  // Five seconds before it releases, the next pass is the release.
  absl::StatusOr<Plan> late =
      Controller().Decide(snap, inputs, At("2025-03-05T12:59:55Z"));
  REQUIRE(late.ok());
  CHECK(late->next_pass == At("2025-03-05T13:00:00Z"));
  // At the release the node is commanded.
  absl::StatusOr<Plan> released =
      Controller().Decide(snap, inputs, At("2025-03-05T13:00:00Z"));
  REQUIRE(released.ok());
  REQUIRE(released->VerdictOf(kEmpty) != nullptr);
  CHECK(released->VerdictOf(kEmpty)->code == "Commanded");
}

TEST_CASE("do-not-disrupt window: explain says when the node is released",
          "[disruption][dnd-window]") {
  const snapshot::Snapshot snap = DemoWithNodeWindow("0 11 * * *", "2h");
  absl::StatusOr<NodeExplanation> e = ExplainNode(
      Controller(), snap, Inputs(snap), kEmpty, At("2025-03-05T12:00:00Z"));
  REQUIRE(e.ok());
  CHECK(e->verdict.code == "DoNotDisruptWindow");
  CHECK(e->node_window == "schedule \"0 11 * * *\", duration 2h");
  CHECK(e->node_window_until == At("2025-03-05T13:00:00Z"));
  REQUIRE(e->disrupted_at.has_value());
  CHECK(*e->disrupted_at == At("2025-03-05T13:00:00Z"));
  CHECK(e->disrupted_by == Method::kEmptiness);

  // Asked before the window opens: consolidateAfter elapses at 07:46:19,
  // inside the window [07:46, 08:46) that is not active at `now`; the
  // projection sees it active then and waits for its end.
  const snapshot::Snapshot later = DemoWithNodeWindow("46 7 * * *", "1h");
  absl::StatusOr<NodeExplanation> early = ExplainNode(
      Controller(), later, Inputs(later), kEmpty, At("2025-03-04T07:45:00Z"));
  REQUIRE(early.ok());
  CHECK(early->node_window.empty());
  REQUIRE(early->disrupted_at.has_value());
  CHECK(*early->disrupted_at == At("2025-03-04T08:46:00Z"));
  CHECK(early->disrupted_by == Method::kEmptiness);
}

TEST_CASE("do-not-disrupt window: explain of a pod's window",
          "[disruption][dnd-window]") {
  test::Cluster cl;
  cl.Pool().Node();
  cl.Pod({.name = "pinned", .annotations = Window("0 9 * * *", "8h")});
  const snapshot::Snapshot s = cl.Build();
  PassInputs inputs;
  inputs.catalog = test::Catalog("default", {{"m5.large", 0.1}});
  absl::StatusOr<NodeExplanation> e = ExplainNode(
      Controller(), s, inputs, "node-a", At("2024-01-01T10:00:00Z"));
  REQUIRE(e.ok());
  REQUIRE(e->do_not_disrupt.size() == 1);
  CHECK(e->do_not_disrupt[0].pod == "default/pinned");
  CHECK(e->do_not_disrupt[0].annotation ==
        "disruption.karpenter-sdk.dev/do-not-disrupt-schedule: \"0 9 * * *\", "
        "disruption.karpenter-sdk.dev/do-not-disrupt-duration: \"8h\"");
  CHECK(e->do_not_disrupt[0].until == At("2024-01-01T17:00:00Z"));
}

TEST_CASE("do-not-disrupt window: karpenter validate names field and value",
          "[disruption][dnd-window][validation]") {
  v1::ObjectMeta meta;
  (*meta.mutable_annotations())[kSchedule] = "0 25 * * *";
  (*meta.mutable_annotations())[kDuration] = "-1h";
  const std::vector<validation::FieldError> errors =
      validation::DoNotDisruptWindowErrors("Pod", "default/p", meta);
  REQUIRE(errors.size() == 2);
  CHECK(errors[0].ToString() ==
        "v1 Pod default/p: metadata.annotations[\"disruption.karpenter-sdk."
        "dev/do-not-disrupt-schedule\"]: is not a cron schedule: hour: 25 out "
        "of range 0-23 (end of range (25) above maximum (23): 25) in cron spec "
        "\"0 25 * * *\" (SDK annotation), got \"0 25 * * *\"");
  CHECK(errors[1].field ==
        "metadata.annotations[\"disruption.karpenter-sdk.dev/"
        "do-not-disrupt-duration\"]");
  CHECK(errors[1].problem == "must be a positive Go duration (SDK annotation)");
  CHECK(errors[1].value == "-1h");
  CHECK(errors[1].api_version == "v1");
  CHECK(errors[1].kind == "Pod");

  // Over a snapshot: only the objects carrying a window annotation count.
  test::Cluster cl;
  cl.Pool();
  cl.Node({.name = "ok-node", .annotations = Window("@daily", "1h")});
  cl.Node({.name = "bad-node", .annotations = {{kDuration, "1h"}}});
  cl.Node({.name = "plain"});
  cl.Pod({.name = "good", .annotations = Window("0 9 * * *", "8h")});
  cl.Pod({.name = "bad", .annotations = Window("0 9 * * *", "8")});
  cl.Pod({.name = "unannotated"});
  const snapshot::Snapshot s = cl.Build();
  const validation::SnapshotReport report = validation::ValidateSnapshot(s);
  CHECK(report.checked.at("Node") == 2);
  CHECK(report.checked.at("Pod") == 2);
  // (The test builders' NodePool and NodeClaims are not API-valid; only
  // the Pod and Node errors are this check's.)
  auto pod_and_node_errors = [](const validation::SnapshotReport& r) {
    std::vector<std::string> lines;
    for (const validation::FieldError& e : r.errors) {
      if (e.kind != "Pod" && e.kind != "Node") continue;
      lines.push_back(absl::StrCat(e.kind, " ", e.object, " ", e.value));
    }
    return lines;
  };
  const std::vector<std::string> lines = pod_and_node_errors(report);
  CHECK(lines ==
        std::vector<std::string>{"Node bad-node 1h", "Pod default/bad 8"});

  // Without SDK annotations neither kind is counted.
  test::Cluster plain;
  plain.Pool().Node();
  plain.Pod({.name = "p"});
  const validation::SnapshotReport none =
      validation::ValidateSnapshot(plain.Build());
  CHECK(none.checked.count("Node") == 0);
  CHECK(none.checked.count("Pod") == 0);
  CHECK(pod_and_node_errors(none).empty());
}

std::string ReadExample(const std::string& name) {
  std::ifstream in(absl::StrCat(KARPENTER_EXAMPLES_DIR, "/scenarios/", name));
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Commands started and pods evicted before `end`, and the first command.
struct Disruptions {
  int commands = 0;
  int evictions = 0;
  absl::Time first_command = absl::InfiniteFuture();
};

Disruptions SimulateBefore(const std::string& text, absl::Time end) {
  absl::StatusOr<testing::LoadedScenario> loaded =
      testing::LoadScenario(text, "scenario.yaml");
  INFO(loaded.status().ToString());
  REQUIRE(loaded.ok());
  absl::StatusOr<std::unique_ptr<testing::Simulation>> sim =
      testing::Simulation::Create(*std::move(loaded), {});
  INFO(sim.status().ToString());
  REQUIRE(sim.ok());
  REQUIRE((*sim)->Run().ok());
  const testing::SimulationSummary s = (*sim)->Summary();
  CHECK(s.pdb_violations == 0);
  CHECK(s.unfinished.empty());
  Disruptions d;
  for (const testing::SimulationEvent& e : (*sim)->timeline()) {
    if (e.kind == "CommandStarted") {
      d.first_command = std::min(d.first_command, e.at);
      if (e.at < end) ++d.commands;
    }
    if (e.kind == "Evicted" && e.at < end) ++d.evictions;
  }
  return d;
}

TEST_CASE("do-not-disrupt window: the README comparison, simulated",
          "[disruption][dnd-window][simulation]") {
  const absl::Time window_end = At("2024-01-08T10:30:00Z");
  const Disruptions without =
      SimulateBefore(ReadExample("consolidation.yaml"), window_end);
  const Disruptions with =
      SimulateBefore(ReadExample("do-not-disrupt-window.yaml"), window_end);
  // README.md, "do-not-disrupt windows".
  CHECK(without.commands == 11);
  CHECK(without.evictions == 80);
  CHECK(with.commands == 0);
  CHECK(with.evictions == 0);
  CHECK(with.first_command >= window_end);
  CHECK(with.first_command < window_end + absl::Minutes(1));
}

TEST_CASE("do-not-disrupt window: scenarios reject invalid annotations",
          "[disruption][dnd-window][simulation]") {
  std::string text = ReadExample("do-not-disrupt-window.yaml");
  const std::string good = "do-not-disrupt-duration: \"1h30m\"";
  const size_t at = text.rfind(good);  // The workload's, not the comment's.
  REQUIRE(at != std::string::npos);
  text.replace(at, good.size(), "do-not-disrupt-duration: \"90\"");
  absl::StatusOr<testing::LoadedScenario> loaded =
      testing::LoadScenario(text, "scenario.yaml");
  REQUIRE(loaded.ok());  // Checked when the simulation is created.
  absl::StatusOr<std::unique_ptr<testing::Simulation>> sim =
      testing::Simulation::Create(*std::move(loaded), {});
  REQUIRE_FALSE(sim.ok());
  CHECK_THAT(std::string(sim.status().message()),
             Catch::Contains("spec.generate.workloads[0].annotations[\""
                             "disruption.karpenter-sdk.dev/"
                             "do-not-disrupt-duration\"]: is not a Go "
                             "duration") &&
                 Catch::Contains("\"90\""));
}

}  // namespace
}  // namespace karpenter::disruption
