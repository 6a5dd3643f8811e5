// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The budget extensions (karpenter/budget/extensions.h) over the synthetic
// cluster at 1k/5k/10k nodes (a NodePool per 20 nodes):
//   * CapacityBook::Build, once per Snapshot (parses cpu and memory
//     allocatable of every counted node);
//   * a capacity pass: every NodePool evaluated at "cpu=10%" plus a greedy
//     prefix over its nodes;
//   * a rate pass: the DisruptionLedger evaluated for every NodePool with
//     one recorded disruption per node (10k entries at 10k nodes).

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "bench_cluster.h"
#include "karpenter/budget/extensions.h"
#include "karpenter/snapshot/snapshot.h"

namespace karpenter {
namespace {

void BM_CapacityBookBuild(benchmark::State& state) {
  const snapshot::Snapshot snap = bench::BuildOrDie(
      bench::SyntheticObjects(static_cast<int>(state.range(0))));
  for (auto _ : state) {
    budget::CapacityBook book = budget::CapacityBook::Build(snap);
    benchmark::DoNotOptimize(book);
  }
}
BENCHMARK(BM_CapacityBookBuild)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(10000)
    ->Unit(benchmark::kMicrosecond);

void BM_CapacityPass(benchmark::State& state) {
  const snapshot::Snapshot snap = bench::BuildOrDie(
      bench::SyntheticObjects(static_cast<int>(state.range(0))));
  const budget::CapacityBook book = budget::CapacityBook::Build(snap);
  const budget::CapacityBudgetSpec spec = {
      .resource = budget::CapacityResource::kCpu,
      .amount = IntOrPercent::FromPercent(10)};
  // Every node of its pool as a candidate, in snapshot order.
  std::vector<std::vector<snapshot::NodeIndex>> candidates(
      snap.node_pools().size());
  for (snapshot::NodeIndex n = 0; n < snap.nodes().size(); ++n) {
    const auto& labels = snap.nodes()[n].metadata().labels();
    auto it = labels.find("karpenter.sh/nodepool");
    if (it == labels.end()) continue;
    std::optional<snapshot::NodePoolIndex> p = snap.FindNodePool(it->second);
    if (p.has_value()) candidates[*p].push_back(n);
  }
  for (auto _ : state) {
    for (size_t p = 0; p < snap.node_pools().size(); ++p) {
      absl::StatusOr<budget::CapacityEvaluation> e =
          book.Evaluate(snap.node_pools()[p].metadata().name(), spec);
      if (!e.ok()) std::abort();
      absl::StatusOr<budget::CapacityPrefix> prefix =
          e->LongestFittingPrefix(candidates[p]);
      benchmark::DoNotOptimize(prefix);
    }
  }
}
BENCHMARK(BM_CapacityPass)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(10000)
    ->Unit(benchmark::kMicrosecond);

void BM_RatePass(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const int pools = nodes / 20;
  const absl::Time start = absl::FromUnixSeconds(1704189600);
  budget::DisruptionLedger ledger;
  for (int i = 0; i < nodes; ++i) {
    // One disruption a minute, round-robin over the pools.
    if (!ledger
             .Record(absl::StrCat("pool-", i % pools), absl::StrCat("n", i),
                     start + absl::Minutes(i))
             .ok()) {
      std::abort();
    }
  }
  std::vector<std::string> names;
  for (int p = 0; p < pools; ++p) names.push_back(absl::StrCat("pool-", p));
  const budget::RateBudgetSpec spec = {.max_disruptions = 3,
                                       .window = absl::Hours(24)};
  absl::Time now = start + absl::Hours(24);
  for (auto _ : state) {
    for (const std::string& name : names) {
      budget::RateAllowance r = ledger.Evaluate(name, spec, now);
      benchmark::DoNotOptimize(r);
    }
    now += absl::Minutes(7);
  }
}
BENCHMARK(BM_RatePass)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(10000)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace karpenter
