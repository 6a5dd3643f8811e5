// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Random simulation scenarios for the fault-injection harness (harness.h):
// a seed becomes one multi-document YAML file (NodePools plus a Scenario
// document, karpenter/testing/scenario.h) that `karpenter simulate` reads
// as it is. Each seed draws:
//   - 1-3 NodePools (on-demand or spot; one or all instance types; expiry
//     Never or 20m-3h; terminationGracePeriod absent or 2m-20m; WhenEmpty or
//     WhenEmptyOrUnderutilized after 0s-10m or Never; 1-3 budgets of counts
//     or percentages, some with a cron schedule and duration, some limited to
//     reasons);
//   - 2-6 nodes per pool, 1-3 workloads per pool (PDBs by minAvailable or
//     maxUnavailable, do-not-disrupt pods, batch jobs), a DaemonSet on every
//     node in half the seeds;
//   - 2-9 changes within a fault window of 20-40 minutes: drift, a NodePool
//     template edit (hash drift), kubectl delete node, spot interruptions,
//     cloud faults (insufficient capacity on Create, Unavailable on Create,
//     Delete, Get, IsDrifted), eviction faults (429, 500, 503, transport),
//     termination protection on and later off, a node turning NotReady (and
//     maybe Ready again), a controller restart, stale reads, jobs finishing;
//   - a quiet half hour after the window, so that every termination whose
//     blockers are gone has time to finish.
// The generator uses its own SplitMix64 stream, never <random>'s
// distributions (whose output differs between standard libraries): a seed
// gives the same file everywhere.
//
// Thread-safety: the functions are pure and reentrant.

#ifndef KARPENTER_TESTS_SIM_RANDOM_SCENARIO_H_
#define KARPENTER_TESTS_SIM_RANDOM_SCENARIO_H_

#include <cstdint>
#include <string>

#include "absl/time/time.h"

namespace karpenter::sim {

// A deterministic 64-bit generator (SplitMix64).
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next();
  // Uniform in [lo, hi] (lo <= hi); the modulo bias is irrelevant here.
  int Uniform(int lo, int hi);
  // True with probability percent/100.
  bool Chance(int percent);

 private:
  uint64_t state_;
};

// The scenario of `seed`, as YAML text for testing::LoadScenario.
std::string RandomScenarioYaml(uint64_t seed);

}  // namespace karpenter::sim

#endif  // KARPENTER_TESTS_SIM_RANDOM_SCENARIO_H_
