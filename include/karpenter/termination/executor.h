// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Executor: applies termination decisions (termination/decide.h) through a
// host's ClusterView, EvictionClient and CloudProvider, reporting through
// its EventRecorder and Metrics. It plays the part of Karpenter's node
// termination controller and NodeClaim lifecycle finalizer together
// (pkg/controllers/node/termination/controller.go,
// pkg/controllers/nodeclaim/lifecycle/controller.go; docs/semantics.md
// §4.1, §4.2, §7), with the drain delegated to a drain::Drainer.
//
// One RunOnce pass:
//   1. reads a snapshot;
//   2. for every Node, then every NodeClaim, by name, that is due (see
//      below): decides, then applies the decision's actions in order,
//      stopping at the first failure. A kGetInstance / kDeleteInstance
//      action's answer becomes the InstanceObservation of a second decision
//      in the same reconcile (as Karpenter's reconcile continues after its
//      cloud call); actions already applied in the reconcile are not
//      repeated. kDrain registers the node with the drainer;
//   3. steps the drainer once, if it has nodes (evictions and force-deletes
//      happen here), and forwards its FailedDraining events and
//      `karpenter_pods_eviction_requests_total{code}`.
// NotFound from a mutation means the object is gone: the reconcile of that
// object ends without error (ClusterView contract).
//
// Scheduling, per object: after a successful reconcile the object is due
// again after the decision's requeue_after (1 s or 5 s), or at once when the
// decision has none; after a failure, after an exponential backoff from
// `backoff_base` doubling to `backoff_max` (Karpenter's controller rate
// limiter: 100 ms to 10 s), reset by the next success. Failures are never
// dropped: the object stays due until its termination completes. A failed
// cloud call (termination protection, throttling, ...) is also published
// as a Warning event `FailedInstanceTermination` on the NodeClaim naming the
// provider's error.
//
// Restart safety: the executor holds only soft state (backoff times, the
// drainer's eviction queue). A new executor on the same cluster continues
// every termination from the observed state (decide.h), and no mutation is
// repeated because decisions emit only the mutations the cluster lacks.
//
// Thread-safety: not thread-safe; one thread drives an Executor. The view,
// client, cloud provider, recorder, metrics and clock must outlive it.

#ifndef KARPENTER_TERMINATION_EXECUTOR_H_
#define KARPENTER_TERMINATION_EXECUTOR_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "karpenter/clock.h"
#include "karpenter/cloud_provider.h"
#include "karpenter/cluster_view.h"
#include "karpenter/drain/drainer.h"
#include "karpenter/event_recorder.h"
#include "karpenter/eviction_client.h"
#include "karpenter/metrics.h"
#include "karpenter/termination/decide.h"

namespace karpenter::termination {

struct ExecutorOptions {
  DecideOptions decide;
  drain::DrainerOptions drainer;
  // Per-object retry backoff after a failed reconcile: base doubling up to
  // max. 0 < backoff_base <= backoff_max.
  absl::Duration backoff_base = absl::Milliseconds(100);
  absl::Duration backoff_max = absl::Seconds(10);

  // Not for production: switches for tests that simulate a host's crash.
  // Never set outside tests.
  struct ForTest {
    // For restart tests: the executor performs at most this many side
    // effects (ClusterView mutations, and drainer steps that made a call)
    // over its life, then stops mid-pass as a crashed host would. Cloud
    // calls are not counted: Delete is idempotent, and a host that dies
    // between a Delete and the InstanceTerminating condition write sends the
    // Delete again after the restart, as Karpenter does. -1: no limit.
    int64_t side_effect_limit = -1;
  };
  ForTest for_test;
};

// One object's reconcile in a pass.
struct ReconcileReport {
  ObjectKind object = ObjectKind::kNode;
  std::string name;
  // The last decision of the reconcile.
  Decision decision;
  // Action::Describe() of each action applied successfully, in order.
  std::vector<std::string> applied;
  // The first failure, prefixed with the action; OK otherwise.
  absl::Status error;
  // When the object is due again.
  absl::Time next_due = absl::InfiniteFuture();
};

struct PassReport {
  absl::Time now;
  // Objects reconciled this pass that are terminating or had actions,
  // Nodes then NodeClaims, each by name.
  std::vector<ReconcileReport> reconciled;
  // The drainer's step, if it ran.
  std::optional<drain::StepReport> drain;
  // Nodes and NodeClaims whose termination is in progress (deleting with
  // the finalizer) after this pass, as of its snapshot.
  int64_t terminating = 0;
  // The earliest instant a later pass has work: an object due, or the
  // drainer's next wake. InfiniteFuture if none.
  absl::Time next_wake = absl::InfiniteFuture();
  // ClusterView mutations applied by the reconciles of this pass (not
  // counting the drainer's evictions and deletes). A host that saw
  // mutations runs the next pass at once, as its watches would trigger it:
  // the pass decided each object from a snapshot taken before them.
  int64_t mutations = 0;
  // for_test.side_effect_limit was reached; the pass stopped early.
  bool interrupted = false;
};

class Executor {
 public:
  // Errors: InvalidArgument naming the option and value for a bad backoff,
  // for_test.side_effect_limit < -1, or the drainer's options.
  static absl::StatusOr<std::unique_ptr<Executor>> Create(
      ClusterView& view, EvictionClient& evictions, CloudProvider& cloud,
      EventRecorder& recorder, Metrics& metrics, const Clock& clock,
      ExecutorOptions options = {});

  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;
  ~Executor();

  // Runs one pass at clock.Now() (file comment). Per-object failures are in
  // the report (and retried), never errors.
  // Errors: Read() failures, prefixed "read cluster: "; the drainer's
  // Step errors, prefixed "drain: ".
  absl::StatusOr<PassReport> RunOnce();

  // Side effects performed so far (see
  // ExecutorOptions::ForTest::side_effect_limit).
  int64_t side_effects() const { return side_effects_; }

 private:
  struct Backoff {
    int failures = 0;
    absl::Time due = absl::InfinitePast();
  };
  struct Reconcile;

  Executor(ClusterView& view, EvictionClient& evictions, CloudProvider& cloud,
           EventRecorder& recorder, Metrics& metrics, const Clock& clock,
           ExecutorOptions options, std::unique_ptr<drain::Drainer> drainer);

  bool LimitReached() const;
  absl::StatusOr<Decision> Decide(const snapshot::Snapshot& snapshot,
                                  ObjectKind object, const std::string& name,
                                  absl::Time now,
                                  InstanceObservation instance) const;
  ReconcileReport ReconcileObject(const snapshot::Snapshot& snapshot,
                                  ObjectKind object, const std::string& name,
                                  absl::Time now);
  absl::Status Apply(Reconcile& r, const Action& action);
  absl::Status ApplyCloud(Reconcile& r, const Action& action);
  absl::Status ApplyMutation(const Action& action);
  void RecordSamples(const std::vector<MetricSample>& samples);
  void Schedule(ReconcileReport& report, absl::Time now);
  absl::Status StepDrainer(PassReport& report);

  ClusterView& view_;
  CloudProvider& cloud_;
  EventRecorder& recorder_;
  Metrics& metrics_;
  const Clock& clock_;
  ExecutorOptions options_;
  std::unique_ptr<drain::Drainer> drainer_;
  // "Node/name" or "NodeClaim/name" -> retry state. Ordered for
  // deterministic iteration.
  std::map<std::string, Backoff> backoff_;
  int64_t side_effects_ = 0;
};

}  // namespace karpenter::termination

#endif  // KARPENTER_TERMINATION_EXECUTOR_H_
