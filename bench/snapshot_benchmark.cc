// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Building a Snapshot from protos at 1k/5k/10k nodes (30 pods a node, a PDB per
// two nodes, a NodePool per 20 nodes: 10k nodes is the target of
// docs/design.md §6: 300k pods, 5k PDBs and 500 NodePools; plus a CSINode a
// node and a bound PersistentVolume and claim per ten nodes), next to a
// memory-scan baseline over as many bytes as those protos occupy. Both report
// bytes/second, so their ratio says how far Build is from the machine's own
// limit.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <utility>
#include <vector>

#include "bench_cluster.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/testing/synthetic_cluster.h"
#include "snapshot/compact_pod.h"

namespace karpenter {
namespace {

template <typename T>
int64_t SpaceUsed(const std::vector<T>& messages) {
  int64_t bytes = 0;
  for (const T& m : messages) bytes += static_cast<int64_t>(m.SpaceUsedLong());
  return bytes;
}

int64_t SpaceUsed(const snapshot::ObjectSet& o) {
  return SpaceUsed(o.nodes) + SpaceUsed(o.pods) + SpaceUsed(o.pdbs) +
         SpaceUsed(o.node_pools) + SpaceUsed(o.node_claims) +
         SpaceUsed(o.volume_attachments) +
         SpaceUsed(o.persistent_volume_claims) +
         SpaceUsed(o.persistent_volumes) + SpaceUsed(o.storage_classes) +
         SpaceUsed(o.csi_nodes) + SpaceUsed(o.daemon_sets);
}

int64_t ObjectCount(const snapshot::ObjectSet& o) {
  return static_cast<int64_t>(
      o.nodes.size() + o.pods.size() + o.pdbs.size() + o.node_pools.size() +
      o.node_claims.size() + o.volume_attachments.size() +
      o.persistent_volume_claims.size() + o.persistent_volumes.size() +
      o.storage_classes.size() + o.csi_nodes.size() + o.daemon_sets.size());
}

void BM_SnapshotBuild(benchmark::State& state) {
  const snapshot::ObjectSet input =
      bench::SyntheticObjects(static_cast<int>(state.range(0)));
  std::optional<snapshot::ObjectSet> copy;
  std::optional<absl::StatusOr<snapshot::Snapshot>> built;
  for (auto _ : state) {
    state.PauseTiming();
    built.reset();  // destroying the previous snapshot is not Build's cost
    copy.emplace(input);
    state.ResumeTiming();
    built.emplace(snapshot::Snapshot::Build(*std::move(copy)));
    if (!built->ok()) state.SkipWithError("Build failed");
    benchmark::DoNotOptimize(*built);
  }
  state.SetBytesProcessed(state.iterations() * SpaceUsed(input));
  state.SetItemsProcessed(state.iterations() * ObjectCount(input));
  state.counters["pods"] = static_cast<double>(input.pods.size());
  state.counters["MiB"] = static_cast<double>(SpaceUsed(input)) / (1 << 20);
}
BENCHMARK(BM_SnapshotBuild)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Assembling the same snapshot from pods compacted beforehand (issue 23:
// a ClusterState keeps every pod compacted, so a snapshot after a batch of
// events only copies bytes and builds indexes). The compaction and the copy
// of the other objects are outside the timed region, as BM_SnapshotBuild's
// copy of its input is; compare the two at the same node count.
void BM_SnapshotFromCompactPods(benchmark::State& state) {
  snapshot::ObjectSet input =
      bench::SyntheticObjects(static_cast<int>(state.range(0)));
  snapshot::internal::PodCompactor compactor;
  std::vector<snapshot::internal::CompactPod> pods;
  pods.reserve(input.pods.size());
  for (v1::Pod& pod : input.pods) {
    pods.push_back(compactor.Compact(std::move(pod)));
  }
  input.pods.clear();
  std::optional<snapshot::ObjectSet> copy;
  std::optional<absl::StatusOr<snapshot::Snapshot>> built;
  for (auto _ : state) {
    state.PauseTiming();
    built.reset();
    copy.emplace(input);
    state.ResumeTiming();
    snapshot::SnapshotBuilder builder;
    builder.ReservePods(pods.size());
    for (const snapshot::internal::CompactPod& pod : pods) {
      builder.AddCompactPod(pod);
    }
    builder.objects() = *std::move(copy);
    built.emplace(std::move(builder).Build());
    if (!built->ok()) state.SkipWithError("Build failed");
    benchmark::DoNotOptimize(*built);
  }
  state.SetItemsProcessed(state.iterations() *
                          static_cast<int64_t>(pods.size()));
  state.counters["pods"] = static_cast<double>(pods.size());
  state.counters["shapes"] = static_cast<double>(compactor.live_shape_count());
}
BENCHMARK(BM_SnapshotFromCompactPods)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Compacting the pods, the cost a ClusterState pays once per pod event
// instead of once per snapshot (outside BM_SnapshotFromCompactPods).
void BM_CompactPods(benchmark::State& state) {
  const snapshot::ObjectSet input =
      bench::SyntheticObjects(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    snapshot::internal::PodCompactor compactor;
    std::vector<snapshot::internal::CompactPod> pods;
    pods.reserve(input.pods.size());
    // Compact takes its pod by value: each is copied from the input first.
    for (const v1::Pod& pod : input.pods) {
      pods.push_back(compactor.Compact(pod));
    }
    benchmark::DoNotOptimize(pods);
    state.PauseTiming();
    pods.clear();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() *
                          static_cast<int64_t>(input.pods.size()));
}
BENCHMARK(BM_CompactPods)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Sums every 64-bit word of a buffer as large as the same cluster's protos:
// the fastest any pass that touches all objects once could go.
void BM_MemoryScanBaseline(benchmark::State& state) {
  const int64_t bytes =
      SpaceUsed(bench::SyntheticObjects(static_cast<int>(state.range(0))));
  std::vector<uint64_t> words(static_cast<size_t>(bytes) / sizeof(uint64_t));
  for (size_t i = 0; i < words.size(); ++i) words[i] = i * 0x9E3779B97F4A7C15u;
  for (auto _ : state) {
    uint64_t sum = 0;
    for (uint64_t w : words) sum += w;
    benchmark::DoNotOptimize(sum);
  }
  state.SetBytesProcessed(
      state.iterations() *
      static_cast<int64_t>(words.size() * sizeof(uint64_t)));
}
BENCHMARK(BM_MemoryScanBaseline)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// A host that produces pods one at a time (watch events, a generator) and
// hands each to a SnapshotBuilder while it is still in cache, against the
// same generator filling an ObjectSet that is then destroyed: the difference
// is what compaction costs when it is not also the first touch of cold
// protos (BM_SnapshotBuild's case).
testing::SyntheticClusterOptions SizedOptions(const benchmark::State& state) {
  testing::SyntheticClusterOptions options;
  options.nodes = static_cast<int>(state.range(0));
  return options;
}

void BM_GenerateObjectSet(benchmark::State& state) {
  const testing::SyntheticClusterOptions options = SizedOptions(state);
  for (auto _ : state) {
    absl::StatusOr<snapshot::ObjectSet> objects =
        testing::MakeSyntheticCluster(options);
    if (!objects.ok()) state.SkipWithError("generate failed");
    benchmark::DoNotOptimize(objects);
  }
}
BENCHMARK(BM_GenerateObjectSet)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_GenerateIntoBuilder(benchmark::State& state) {
  const testing::SyntheticClusterOptions options = SizedOptions(state);
  for (auto _ : state) {
    snapshot::SnapshotBuilder builder;
    if (!testing::AddSyntheticCluster(options, builder).ok()) {
      state.SkipWithError("generate failed");
    }
    absl::StatusOr<snapshot::Snapshot> snap = std::move(builder).Build();
    if (!snap.ok()) state.SkipWithError("Build failed");
    benchmark::DoNotOptimize(snap);
  }
}
BENCHMARK(BM_GenerateIntoBuilder)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace karpenter
