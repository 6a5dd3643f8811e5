// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Primitives on the budget hot path: a cron schedule's Next (evaluated per
// budget per pass) and IntOrPercent::Scale (per budget per NodePool).

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <vector>

#include "absl/time/time.h"
#include "karpenter/cron.h"
#include "karpenter/intstr.h"

namespace karpenter {
namespace {

// Specs of increasing walk length: every minute, a daily window, a weekday
// business-hours window, a zoned schedule crossing DST, a rare leap day.
const char* const kSpecs[] = {
    "* * * * *",           "@daily",
    "30 9-17 * * mon-fri", "CRON_TZ=America/New_York 30 2 * * *",
    "0 0 29 2 *",
};

CronSchedule MustParse(const char* spec) {
  absl::StatusOr<CronSchedule> s = CronSchedule::Parse(spec);
  if (!s.ok()) std::abort();
  return *std::move(s);
}

// One Next call from each of 1,024 instants spread over a year, so the
// result is not a single memoised walk.
void BM_CronNext(benchmark::State& state) {
  const CronSchedule schedule = MustParse(kSpecs[state.range(0)]);
  std::vector<absl::Time> starts;
  const absl::Time base = absl::FromUnixSeconds(1704067200);  // 2024-01-01Z
  for (int i = 0; i < 1024; ++i) {
    starts.push_back(base + absl::Seconds(i * 30817));  // ~356 days in all
  }
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(schedule.Next(starts[i++ & 1023]));
  }
  state.SetLabel(kSpecs[state.range(0)]);
}
BENCHMARK(BM_CronNext)->DenseRange(0, 4);

void BM_CronParse(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(CronSchedule::Parse("30 9-17 * * mon-fri"));
  }
}
BENCHMARK(BM_CronParse);

void BM_IntOrPercentScale(benchmark::State& state) {
  const IntOrPercent percent = IntOrPercent::FromPercent(10);
  int64_t total = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(percent.Scale(total++ & 16383, true));
  }
}
BENCHMARK(BM_IntOrPercentScale);

void BM_IntOrPercentParse(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(IntOrPercent::Parse("10%"));
  }
}
BENCHMARK(BM_IntOrPercentParse);

}  // namespace
}  // namespace karpenter
