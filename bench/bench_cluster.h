// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Benchmark inputs shared by bench/*_benchmark.cc: synthetic clusters at a
// given node count (karpenter/testing/synthetic_cluster.h) and their
// snapshots. Setup failures abort: a benchmark with broken input has nothing
// to measure.

#ifndef KARPENTER_BENCH_BENCH_CLUSTER_H_
#define KARPENTER_BENCH_BENCH_CLUSTER_H_

#include <cstdlib>
#include <utility>

#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/testing/synthetic_cluster.h"

namespace karpenter::bench {

// The synthetic cluster of `nodes` nodes with the default ratios.
inline snapshot::ObjectSet SyntheticObjects(int nodes) {
  testing::SyntheticClusterOptions options;
  options.nodes = nodes;
  absl::StatusOr<snapshot::ObjectSet> objects =
      testing::MakeSyntheticCluster(options);
  if (!objects.ok()) std::abort();
  return *std::move(objects);
}

inline snapshot::Snapshot BuildOrDie(snapshot::ObjectSet objects) {
  absl::StatusOr<snapshot::Snapshot> snap =
      snapshot::Snapshot::Build(std::move(objects));
  if (!snap.ok()) std::abort();
  return *std::move(snap);
}

}  // namespace karpenter::bench

#endif  // KARPENTER_BENCH_BENCH_CLUSTER_H_
