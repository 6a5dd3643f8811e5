// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The fault-injection harness: runs the random scenario of a seed
// (random_scenario.h) in testing::Simulation and checks, after every step,
// the promises of the termination design (docs/semantics.md §4, §7):
//
//   finalizer     a Node or NodeClaim with a providerID disappears (its
//                 finalizer came off) only once its instance is gone from
//                 the cloud (Karpenter removes the finalizer on NotFound);
//   leak          at the end, every instance belongs to a NodeClaim;
//   pdb           the Eviction API never let an eviction take a PDB below
//                 its minimum (FakeCluster::PdbViolations), and every pod
//                 deleted instead of evicted was deleted at its node's
//                 deadline (deletionTimestamp + terminationGracePeriod,
//                 less the pod's own grace period) or later;
//   budget        a step's commands never left more nodes of a NodePool
//                 disrupting than its budgets allowed before the step
//                 (the Simulation's BudgetExceeded events);
//   do-not-disrupt  a pod annotated karpenter.sh/do-not-disrupt is never
//                 evicted before its node's deadline;
//   bound         a deleting node whose blockers are gone is gone within
//                 kTerminationBound. Blockers: a fault of the scenario
//                 (cloud, eviction, stale reads, restart: until the last
//                 such change plus kTerminationBound, since faults queue up
//                 to be consumed), termination protection on its instance,
//                 and before its deadline a do-not-disrupt pod on it or a pod
//                 whose PDB allows no disruption;
//   placement     after every step, no pod is bound where its node
//                 selector, required node affinity or host ports forbid,
//                 and no node's pods request more than its allocatable
//                 (FakeCluster::CheckPlacement);
//   pending       at the end, no pod has been Unschedulable for
//                 kTerminationBound (after the last fault) while an existing
//                 node or a NodeClaim Karpenter's provisioner would launch
//                 could hold it (scheduling::Provision);
//   determinism   the same seed gives the same timeline, event for event
//                 (checked by running the seed twice).
// A run that returns an error is a failure too ("error").
//
// Thread-safety: RunSeed is reentrant; one thread per call.

#ifndef KARPENTER_TESTS_SIM_HARNESS_H_
#define KARPENTER_TESTS_SIM_HARNESS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "karpenter/testing/simulation.h"

namespace karpenter::sim {

// From the moment a deleting node's last blocker went: the drain of pods
// whose PDBs allow it (eviction backoff up to 10 s per retry, replacements
// Ready up to 40 s later, grace periods up to 90 s), the 15 s requeues,
// instance termination (up to 120 s) with its polls, and the simulation's
// 10 s steps; with margin.
inline constexpr absl::Duration kTerminationBound = absl::Minutes(8);

// Test-only options of the cores that weaken one guard each: the harness
// must catch every one of them.
enum class PlantedBug {
  kNone,
  // termination::DecideOptions::ForTest::finalizer_before_instance_gone.
  kFinalizerBeforeInstanceGone,
  // disruption::ControllerOptions::ForTest::skip_in_flight_budget_count.
  kSkipInFlightBudgetCount,
  // drain::DrainerOptions::ForTest::evict_do_not_disrupt.
  kEvictDoNotDisrupt,
};

// "finalizer-before-instance-gone", "skip-in-flight-budget-count",
// "evict-do-not-disrupt", "" for kNone.
std::string PlantedBugName(PlantedBug bug);
// The inverse; false for an unknown name.
bool ParsePlantedBug(const std::string& name, PlantedBug& bug);

struct HarnessOptions {
  PlantedBug planted = PlantedBug::kNone;
  // Run the seed a second time and compare the timelines.
  bool check_determinism = true;
  // Keep the timeline lines in SeedResult::trace.
  bool keep_trace = false;
};

struct Violation {
  absl::Time at;
  // One of the names in the file comment.
  std::string invariant;
  std::string detail;
};

struct SeedResult {
  uint64_t seed = 0;
  std::vector<Violation> violations;
  int64_t steps = 0;
  int64_t events = 0;
  // FNV-1a over the timeline lines.
  uint64_t trace_hash = 0;
  std::vector<std::string> trace;
  testing::SimulationSummary summary;

  bool ok() const { return violations.empty(); }
};

// The simulation options the harness runs `seed` with: the Simulation's
// defaults, 10 s steps, inapplicable changes skipped, the planted bug, and
// the fakes' latencies drawn from the seed (instance launch 10-90 s and
// termination 5-120 s, pod recreation 1-10 s and readiness 2-30 s).
testing::SimulationOptions HarnessSimulationOptions(uint64_t seed,
                                                    PlantedBug planted);

// Runs `seed`. Never fails: a load or run error is a Violation "error".
SeedResult RunSeed(uint64_t seed, const HarnessOptions& options);

// The command that replays `seed` with its timeline, e.g.
// `build/tests/karpenter_sim --seed 42 --trace`.
std::string ReproCommand(uint64_t seed, PlantedBug planted);

// One line per violation: `seed 42: 2024-03-04T10:00:00Z finalizer: ...`.
std::string FormatViolations(const SeedResult& result);

}  // namespace karpenter::sim

#endif  // KARPENTER_TESTS_SIM_HARNESS_H_
