// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// SimulateDrain: runs drain::Drainer against a FakeCluster on a FakeClock
// until the given nodes are drained, stepping simulated time from event to
// event, and measures what the drain cost (API calls by result, force
// deletes, simulated drain time, PDB violations). For tests and for the
// per-pod vs. keyed-by-PDB comparison (bench/drain_comparison_benchmark.cc).
//
// What it plays: the termination controller's taint step
// (pkg/controllers/node/termination/controller.go puts
// `karpenter.sh/disrupted:NoSchedule` on the node before draining, so
// replacements land elsewhere) and a host that wakes exactly when something
// can change: at StepReport::next_wake or the fake's next transition.
//
// Thread-safety: drives `cluster` and `clock` from the calling thread; do not
// touch them from elsewhere during the call.

#ifndef KARPENTER_TESTING_DRAIN_SIMULATION_H_
#define KARPENTER_TESTING_DRAIN_SIMULATION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "karpenter/drain/drainer.h"
#include "karpenter/testing/fake_clock.h"
#include "karpenter/testing/fake_cluster.h"

namespace karpenter::testing {

struct DrainSimulationResult {
  // Every node was reported done before the limit.
  bool completed = false;
  // Drainer::Step calls.
  int64_t steps = 0;
  // EvictionClient::Evict calls and their HTTP statuses; `http_other` is
  // every other status (transport errors, other 5xx, ...).
  int64_t evict_calls = 0;
  int64_t http_200 = 0;
  int64_t http_404 = 0;
  int64_t http_409 = 0;
  int64_t http_429 = 0;
  int64_t http_500 = 0;
  int64_t http_other = 0;
  // ClusterView::DeletePod calls made by the drain.
  int64_t force_deletes = 0;
  // Evictions refused locally by DrainerOptions::precheck_pdbs.
  int64_t local_pdb_blocks = 0;
  // Every FailedDraining event, in order.
  std::vector<drain::DrainerEvent> events;
  // From the start to the step that found the last node done (its last pod
  // gone); when not completed, to where the simulation stopped.
  absl::Duration drain_time = absl::ZeroDuration();
  // FakeCluster::PdbViolations().size(): must be 0.
  int64_t pdb_violations = 0;
  // The cumulative counts of the drainer.
  drain::DrainCounts counts;
};

// Taints each of `nodes` `karpenter.sh/disrupted:NoSchedule`, registers
// them with a new Drainer over `cluster` (as ClusterView and EvictionClient)
// and `clock`, then steps it. After each Step the clock moves to the earlier
// of StepReport::next_wake and cluster.NextEventTime(), never backwards; a
// Step that made calls is followed by another at the same instant (a tier
// that emptied at once opens the next), at most a few times per instant.
// Stops when every node is done, when nothing more can happen, or when the
// next instant is after start + `limit` (the clock is then left at the last
// step's instant).
// Errors: InvalidArgument for no nodes, an empty node name or a negative
// or infinite `limit`; NotFound (naming the node) if a node does not exist;
// the errors of Drainer::Create and Drainer::Step; Internal if time cannot
// advance although work remains (a bug).
absl::StatusOr<DrainSimulationResult> SimulateDrain(
    FakeCluster& cluster, FakeClock& clock, std::vector<std::string> nodes,
    drain::DrainerOptions options, absl::Duration limit);

}  // namespace karpenter::testing

#endif  // KARPENTER_TESTING_DRAIN_SIMULATION_H_
