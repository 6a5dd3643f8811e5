// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// A vendor node agent that gets a spot interruption notice and must drain
// its node before the cloud reclaims the instance two minutes later.
//
// The agent hands the node to drain::Drainer with the reclaim instant as an
// external deadline. The drainer evicts in Karpenter's tiers through the
// Eviction API, so PodDisruptionBudgets are honoured, and force-deletes a
// pod only when its grace period would otherwise run past the deadline.
//
// Here testing::FakeCluster plays the API server and a FakeClock the time,
// over the bundled demo cluster, so the program runs in milliseconds; a
// real agent passes its own ClusterView and EvictionClient and a real clock,
// and calls Step() on watch events and at `next_wake`.
//
// Usage: spot_drain_agent [CLUSTER.yaml [NODE]]

#include <iostream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "karpenter/drain/deadline.h"
#include "karpenter/drain/drainer.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/testing/fake_clock.h"
#include "karpenter/testing/fake_cluster.h"

namespace {

using karpenter::testing::FakeClock;
using karpenter::testing::FakeCluster;

std::string Clock(absl::Time t) {
  return absl::FormatTime("%H:%M:%S", t, absl::UTCTimeZone());
}

int Fail(const absl::Status& status) {
  std::cerr << "spot_drain_agent: " << status << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string file =
      argc > 1 ? argv[1] : KARPENTER_EXAMPLES_DIR "/clusters/demo.yaml";
  const std::string node =
      argc > 2 ? argv[2] : "ip-10-0-1-23.us-west-2.compute.internal";

  karpenter::snapshot::ObjectSet objects;
  if (absl::Status s = karpenter::snapshot::LoadFile(file, objects); !s.ok()) {
    return Fail(s);
  }
  FakeClock clock(absl::FromUnixSeconds(1741176000));  // 2025-03-05 12:00Z
  auto cluster = FakeCluster::Create(std::move(objects), clock);
  if (!cluster.ok()) return Fail(cluster.status());

  // The notice arrives now; the instance is reclaimed two minutes later.
  const absl::Time reclaim =
      karpenter::drain::SpotInterruptionDeadline(clock.Now());
  std::cout << Clock(clock.Now()) << " spot interruption notice for " << node
            << ", instance reclaimed at " << Clock(reclaim) << "\n";

  auto drainer = karpenter::drain::Drainer::Create(**cluster, **cluster, clock);
  if (!drainer.ok()) return Fail(drainer.status());
  if (absl::Status s = (*drainer)->Drain(node, reclaim); !s.ok()) {
    return Fail(s);
  }
  // Step on every change, as watch events would trigger it.
  std::string last_status;
  while (clock.Now() <= reclaim) {
    auto report = (*drainer)->Step();
    if (!report.ok()) return Fail(report.status());
    for (const auto& n : report->nodes) {
      const std::string status = n.done ? "drained" : n.message;
      if (status != last_status) {
        std::cout << Clock(report->now) << " " << status << "\n";
      }
      last_status = status;
    }
    if (report->counts.force_deletes > 0) {
      std::cout << Clock(report->now) << " force-deleted "
                << report->counts.force_deletes
                << " pod(s) whose grace would outlive the instance\n";
    }
    if (report->all_done()) break;
    absl::Time next = std::min(report->next_wake, reclaim);
    if (auto e = (*cluster)->NextEventTime(); e.has_value() && *e < next) {
      next = *e;
    }
    if (next <= clock.Now()) next = clock.Now() + absl::Seconds(1);
    if (absl::Status s = clock.SetTime(next); !s.ok()) return Fail(s);
  }
  const auto& totals = (*drainer)->totals();
  std::cout << "evictions: " << totals.evict_calls << " calls, "
            << (totals.evict_http_status.count(429) > 0
                    ? totals.evict_http_status.at(429)
                    : 0)
            << " answered 429 (PDB); "
            << "force deletions: " << totals.force_deletes << "\n";
  if (clock.Now() > reclaim) {
    std::cout << "the node was not drained before the instance was reclaimed\n";
    return 1;
  }
  std::cout << "drained " << absl::FormatDuration(reclaim - clock.Now())
            << " before the reclaim\n";
  return 0;
}
