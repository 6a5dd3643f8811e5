// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// karpenter_sim: runs seeds of the fault-injection harness (harness.h).
//
//   karpenter_sim --seeds FIRST:COUNT [--plant BUG] [--determinism-every N]
//                 [--no-determinism]
//   karpenter_sim --seed N [--plant BUG] [--trace] [--yaml]
//
// --seeds runs COUNT seeds from FIRST and prints one line per failing seed
// with the command that reproduces it, then a summary; exit 1 if any seed
// failed. Every N-th seed (default 4) runs twice to check that the timeline
// is the same. --seed runs one seed; --trace prints its timeline, --yaml the
// scenario (a file `karpenter simulate` reads as it is).

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "harness.h"
#include "random_scenario.h"

namespace {

using karpenter::sim::HarnessOptions;
using karpenter::sim::PlantedBug;
using karpenter::sim::SeedResult;

int Usage(const std::string& why) {
  std::cerr << "karpenter_sim: " << why << "\n"
            << "usage: karpenter_sim --seeds FIRST:COUNT [--plant BUG] "
               "[--determinism-every N] [--no-determinism]\n"
            << "       karpenter_sim --seed N [--plant BUG] [--trace] "
               "[--yaml]\n";
  return 2;
}

int RunOne(uint64_t seed, HarnessOptions options, bool yaml) {
  if (yaml) {
    std::cout << karpenter::sim::RandomScenarioYaml(seed);
    return 0;
  }
  const bool trace = options.keep_trace;
  const SeedResult r = karpenter::sim::RunSeed(seed, options);
  if (trace) {
    for (const std::string& line : r.trace) std::cout << line << "\n";
  }
  std::cout << karpenter::sim::FormatViolations(r) << "seed " << seed << ": "
            << r.steps << " steps, " << r.events << " events, "
            << r.violations.size() << " violations\n";
  return r.ok() ? 0 : 1;
}

// Every `every`-th seed runs twice for the determinism check (0: none).
int RunMany(uint64_t first, uint64_t count, HarnessOptions options,
            uint64_t every) {
  const absl::Time start = absl::Now();
  uint64_t failed = 0;
  int64_t steps = 0, events = 0, evictions = 0, force = 0, replaced = 0,
          deleted = 0;
  for (uint64_t seed = first; seed < first + count; ++seed) {
    options.check_determinism = every != 0 && seed % every == 0;
    const SeedResult r = karpenter::sim::RunSeed(seed, options);
    steps += r.steps;
    events += r.events;
    evictions += r.summary.evictions;
    force += r.summary.force_deletions;
    replaced += r.summary.nodes_replaced;
    deleted += r.summary.nodes_deleted;
    if (r.ok()) continue;
    ++failed;
    std::cout << karpenter::sim::FormatViolations(r) << "  reproduce: "
              << karpenter::sim::ReproCommand(seed, options.planted) << "\n";
  }
  std::cout << "seeds " << first << ".." << first + count - 1 << ": "
            << count - failed << " passed, " << failed << " failed; " << steps
            << " steps, " << events << " events, " << evictions
            << " evictions, " << force << " force deletions, " << replaced
            << " nodes replaced, " << deleted << " deleted; "
            << absl::FormatDuration(
                   absl::Trunc(absl::Now() - start, absl::Milliseconds(1)))
            << "\n";
  return failed == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  HarnessOptions options;
  std::optional<uint64_t> seed;
  uint64_t first = 0, count = 0, every = 4;
  bool many = false, yaml = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--seed" && has_value) {
      uint64_t n = 0;
      if (!absl::SimpleAtoi(argv[++i], &n)) {
        return Usage(std::string("--seed: not a number: \"") + argv[i] + "\"");
      }
      seed = n;
    } else if (arg == "--seeds" && has_value) {
      std::vector<std::string> parts = absl::StrSplit(argv[++i], ':');
      if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &first) ||
          !absl::SimpleAtoi(parts[1], &count)) {
        return Usage(std::string("--seeds: expected FIRST:COUNT, got \"") +
                     argv[i] + "\"");
      }
      many = true;
    } else if (arg == "--plant" && has_value) {
      if (!karpenter::sim::ParsePlantedBug(argv[++i], options.planted)) {
        return Usage(std::string("--plant: unknown bug \"") + argv[i] + "\"");
      }
    } else if (arg == "--trace") {
      options.keep_trace = true;
    } else if (arg == "--yaml") {
      yaml = true;
    } else if (arg == "--no-determinism") {
      options.check_determinism = false;
      every = 0;
    } else if (arg == "--determinism-every" && has_value) {
      if (!absl::SimpleAtoi(argv[++i], &every)) {
        return Usage(std::string("--determinism-every: not a number: \"") +
                     argv[i] + "\"");
      }
    } else {
      return Usage("unknown argument \"" + arg + "\"");
    }
  }
  if (seed.has_value() == many) return Usage("give --seed or --seeds");
  return many ? RunMany(first, count, options, every)
              : RunOne(*seed, options, yaml);
}
