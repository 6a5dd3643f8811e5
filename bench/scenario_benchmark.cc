// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The bundled simulation (examples/scenarios/rollout.yaml: 3 NodePools, 30
// nodes, 600 pods, 90 simulated minutes of drift rollout with faults), as
// `karpenter simulate` runs it. Target (issue 7): under 10 s of wall time.
//   - BM_BundledScenario/10: min_step 10 s, the CLI's default;
//   - BM_BundledScenario/5: min_step 5 s, testing::Simulation's default.
// The file is read and parsed outside the timed loop; each iteration
// creates the simulation (fakes, generated objects) and runs it to the end.

#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "karpenter/testing/scenario.h"
#include "karpenter/testing/simulation.h"

namespace karpenter {
namespace {

void BM_BundledScenario(benchmark::State& state) {
  std::ifstream in(
      absl::StrCat(KARPENTER_EXAMPLES_DIR, "/scenarios/rollout.yaml"));
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<testing::LoadedScenario> loaded =
      testing::LoadScenario(text.str(), "rollout.yaml");
  if (!loaded.ok()) {
    state.SkipWithError(std::string(loaded.status().message()).c_str());
    return;
  }
  testing::SimulationOptions options;
  options.min_step = absl::Seconds(state.range(0));
  int64_t steps = 0;
  for (auto _ : state) {
    absl::StatusOr<std::unique_ptr<testing::Simulation>> sim =
        testing::Simulation::Create(*loaded, options);
    if (!sim.ok() || !(*sim)->Run().ok()) {
      state.SkipWithError("simulation failed");
      return;
    }
    steps = (*sim)->Summary().steps;
    benchmark::DoNotOptimize(steps);
  }
  state.counters["steps"] = static_cast<double>(steps);
}
BENCHMARK(BM_BundledScenario)
    ->Arg(10)
    ->Arg(5)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3);

}  // namespace
}  // namespace karpenter
