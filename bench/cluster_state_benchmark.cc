// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// state::ClusterState at 1k/5k/10k nodes (the synthetic cluster, 30 pods a
// node: 300k pods at 10k), the targets of issue 23:
//   - BM_ApplyPodEvent: one pod MODIFIED event (the pod moved to another
//     node, a newer resourceVersion) applied to the state; each iteration
//     is one event, and the counters p50_us / p99_us are the median and
//     99th percentile of the events timed one by one. Target: median < 5 us.
//   - BM_PublishAfter1000Events: 1,000 pod events (a third ADDED new pods,
//     a third MODIFIED, a third DELETED) applied untimed, then Publish()
//     timed: the snapshot and its SnapshotFacts. Target: < 20 ms at 10k.
//   - BM_FullBuild: Snapshot::Build + SnapshotFacts::Build from scratch over
//     the same objects (copied untimed), what Publish() would cost without
//     a state to start from.
//   - BM_HeldPublications: on a fresh state holding the cluster, a first
//     publication, 1,000 pod events, a second publication; then the state
//     is destroyed, and the heap (mallinfo2 uordblks + hblkhd) still in use
//     is what the publications hold, their own allocations and what they
//     share (pods, shapes, parts): pair_MiB with both held, one_MiB with
//     the first alone; counter pair_ratio = pair / one. Target: < 1.3.
//     first_adds_MiB / second_adds_MiB: what each Publish() allocated
//     itself, beside what it shares with the state.
// Inputs are built outside the timed loops; the states are built once per
// size and kept for the process (setup at 10k takes seconds).

#include <benchmark/benchmark.h>
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench_cluster.h"
#include "karpenter/disruption/snapshot_facts.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/state/cluster_state.h"

namespace karpenter {
namespace {

using state::Applied;
using state::ClusterState;
using state::Event;
using state::EventType;

// A state holding the synthetic cluster of `nodes` nodes (every object
// with resourceVersion 1), with what the benchmarks need to make events.
struct Fixture {
  std::unique_ptr<ClusterState> state;
  // Copies of some pods, to make events from.
  std::vector<v1::Pod> pods;
  std::vector<std::string> node_names;
  uint64_t next_rv = 2;
  int64_t created = 0;  // Pods added by events.
};

Fixture& FixtureFor(int nodes) {
  static auto* fixtures = new std::map<int, Fixture>();
  auto it = fixtures->find(nodes);
  if (it != fixtures->end()) return it->second;
  Fixture& f = (*fixtures)[nodes];
  snapshot::ObjectSet objects = bench::SyntheticObjects(nodes);
  const auto stamp = [](auto& list) {
    for (auto& o : list) o.mutable_metadata()->set_resource_version("1");
  };
  stamp(objects.nodes);
  stamp(objects.pods);
  stamp(objects.pdbs);
  stamp(objects.node_pools);
  stamp(objects.node_claims);
  stamp(objects.persistent_volume_claims);
  stamp(objects.persistent_volumes);
  stamp(objects.storage_classes);
  stamp(objects.csi_nodes);
  stamp(objects.daemon_sets);
  // Every 29th pod: a sample over all nodes and Deployments.
  for (size_t i = 0; i < objects.pods.size(); i += 29) {
    f.pods.push_back(objects.pods[i]);
  }
  for (const v1::Node& n : objects.nodes) {
    f.node_names.push_back(n.metadata().name());
  }
  f.state = std::make_unique<ClusterState>();
  if (!f.state->ApplyAll(std::move(objects)).ok()) std::abort();
  return f;
}

// A MODIFIED event for a sampled pod: moved to another node, newer rv.
Event MovePodEvent(Fixture& f, size_t i) {
  v1::Pod pod = f.pods[i % f.pods.size()];
  pod.mutable_spec()->set_node_name(
      f.node_names[(i * 7919 + 1) % f.node_names.size()]);
  pod.mutable_metadata()->set_resource_version(absl::StrCat(f.next_rv++));
  return {.type = EventType::kModified, .object = std::move(pod), .origin = ""};
}

// 1,000 mixed pod events: a new pod, a sampled pod moved, a pod deleted
// (a sampled one, or one added earlier), in turn.
std::vector<Event> MixedPodEvents(Fixture& f, size_t first) {
  std::vector<Event> events;
  events.reserve(1000);
  for (size_t i = first; events.size() < 1000; ++i) {
    switch (i % 3) {
      case 0: {
        v1::Pod pod = f.pods[i % f.pods.size()];
        pod.mutable_metadata()->set_name(absl::StrCat("evt-", f.created++));
        pod.mutable_metadata()->set_resource_version(absl::StrCat(f.next_rv++));
        events.push_back({.type = EventType::kAdded,
                          .object = std::move(pod),
                          .origin = ""});
        break;
      }
      case 1:
        events.push_back(MovePodEvent(f, i));
        break;
      default: {
        // The pod added two events ago: the cluster keeps its size.
        v1::Pod pod = f.pods[(i - 2) % f.pods.size()];
        pod.mutable_metadata()->set_name(absl::StrCat("evt-", f.created - 1));
        pod.mutable_metadata()->set_resource_version(absl::StrCat(f.next_rv++));
        events.push_back({.type = EventType::kDeleted,
                          .object = std::move(pod),
                          .origin = ""});
        break;
      }
    }
  }
  return events;
}

void ApplyOrDie(ClusterState& state, std::vector<Event>& events) {
  for (Event& e : events) {
    absl::StatusOr<Applied> applied = state.Apply(std::move(e));
    if (!applied.ok() ||
        (*applied != Applied::kStored && *applied != Applied::kDeleted)) {
      std::abort();
    }
  }
}

void BM_ApplyPodEvent(benchmark::State& bench) {
  Fixture& f = FixtureFor(static_cast<int>(bench.range(0)));
  constexpr size_t kBatch = 10000;
  std::vector<Event> events;
  std::vector<double> micros;
  size_t next = 0;
  size_t made = 0;
  for (auto _ : bench) {
    if (next == events.size()) {
      bench.PauseTiming();
      events.clear();
      for (size_t i = 0; i < kBatch; ++i)
        events.push_back(MovePodEvent(f, made++));
      next = 0;
      bench.ResumeTiming();
    }
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<Applied> applied = f.state->Apply(std::move(events[next++]));
    const auto end = std::chrono::steady_clock::now();
    if (!applied.ok() || *applied != Applied::kStored) {
      bench.SkipWithError("the event was not stored");
      break;
    }
    micros.push_back(
        std::chrono::duration<double, std::micro>(end - start).count());
  }
  if (!micros.empty()) {
    std::sort(micros.begin(), micros.end());
    bench.counters["p50_us"] = micros[micros.size() / 2];
    bench.counters["p99_us"] = micros[micros.size() * 99 / 100];
  }
  bench.counters["objects"] = static_cast<double>(f.state->size());
}
BENCHMARK(BM_ApplyPodEvent)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(10000)
    ->Unit(benchmark::kMicrosecond);

void BM_PublishAfter1000Events(benchmark::State& bench) {
  Fixture& f = FixtureFor(static_cast<int>(bench.range(0)));
  // The publication before the events, so that a state that publishes
  // incrementally starts from one.
  absl::StatusOr<std::shared_ptr<const state::Published>> previous =
      f.state->Publish();
  if (!previous.ok()) std::abort();
  size_t round = 0;
  for (auto _ : bench) {
    bench.PauseTiming();
    std::vector<Event> events = MixedPodEvents(f, 3 * 1000 * round++);
    ApplyOrDie(*f.state, events);
    bench.ResumeTiming();
    absl::StatusOr<std::shared_ptr<const state::Published>> published =
        f.state->Publish();
    bench.PauseTiming();
    if (!published.ok()) bench.SkipWithError("Publish failed");
    benchmark::DoNotOptimize(published);
    // The previous publication is released untimed.
    previous = std::move(published);
    bench.ResumeTiming();
  }
  bench.counters["objects"] = static_cast<double>(f.state->size());
}
BENCHMARK(BM_PublishAfter1000Events)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_FullBuild(benchmark::State& bench) {
  Fixture& f = FixtureFor(static_cast<int>(bench.range(0)));
  const snapshot::ObjectSet objects = f.state->Export();
  std::optional<snapshot::ObjectSet> copy;
  for (auto _ : bench) {
    bench.PauseTiming();
    copy.emplace(objects);
    bench.ResumeTiming();
    absl::StatusOr<snapshot::Snapshot> snap =
        snapshot::Snapshot::Build(*std::move(copy));
    if (!snap.ok()) {
      bench.SkipWithError("Build failed");
      break;
    }
    auto facts = std::make_unique<const disruption::SnapshotFacts>(
        disruption::SnapshotFacts::Build(*snap, {}));
    benchmark::DoNotOptimize(facts);
    bench.PauseTiming();
    facts.reset();
    snap = absl::StatusOr<snapshot::Snapshot>();
    bench.ResumeTiming();
  }
}
BENCHMARK(BM_FullBuild)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Bytes allocated and not freed: small chunks (uordblks) plus the large
// ones glibc maps on their own (hblkhd: the pods' tables at 10k nodes).
int64_t HeapInUse() {
  malloc_trim(0);
  const struct mallinfo2 info = mallinfo2();
  return static_cast<int64_t>(info.uordblks + info.hblkhd);
}

void BM_HeldPublications(benchmark::State& bench) {
  Fixture& f = FixtureFor(static_cast<int>(bench.range(0)));
  size_t round = 0;
  for (auto _ : bench) {
    // A fresh state, so that no earlier publication is released (or
    // shared) while these are measured.
    bench.PauseTiming();
    const int64_t before = HeapInUse();
    auto fresh = std::make_unique<ClusterState>();
    if (!fresh->ApplyAll(f.state->Export()).ok()) std::abort();
    bench.ResumeTiming();
    const int64_t before_first = HeapInUse();
    absl::StatusOr<std::shared_ptr<const state::Published>> first =
        fresh->Publish();
    if (!first.ok()) std::abort();
    const int64_t after_first = HeapInUse();

    std::vector<Event> events = MixedPodEvents(f, 3 * 1000 * round++);
    ApplyOrDie(*fresh, events);
    events.clear();
    events.shrink_to_fit();
    const int64_t before_second = HeapInUse();
    absl::StatusOr<std::shared_ptr<const state::Published>> second =
        fresh->Publish();
    if (!second.ok()) std::abort();
    const int64_t after_second = HeapInUse();

    // Without the state, the heap left is what the publications hold:
    // their own allocations and the pods, shapes and parts they share.
    fresh.reset();
    const int64_t pair = HeapInUse() - before;
    second = absl::StatusOr<std::shared_ptr<const state::Published>>();
    const int64_t one = HeapInUse() - before;
    bench.counters["one_MiB"] = static_cast<double>(one) / (1 << 20);
    bench.counters["pair_MiB"] = static_cast<double>(pair) / (1 << 20);
    bench.counters["pair_ratio"] =
        one > 0 ? static_cast<double>(pair) / static_cast<double>(one) : 0;
    // What each Publish() allocated itself, beside what it shares.
    bench.counters["first_adds_MiB"] =
        static_cast<double>(after_first - before_first) / (1 << 20);
    bench.counters["second_adds_MiB"] =
        static_cast<double>(after_second - before_second) / (1 << 20);
    bench.PauseTiming();
    first = absl::StatusOr<std::shared_ptr<const state::Published>>();
    bench.ResumeTiming();
  }
}
BENCHMARK(BM_HeldPublications)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(10000)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace karpenter
