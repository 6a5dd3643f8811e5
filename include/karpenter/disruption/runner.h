// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// disruption::Runner: the thin executor of the disruption controller. One
// RunOnce reads the cluster, gathers what the controller needs from the
// cloud (instance types, provider drift), reconciles the orchestration
// queue, plans a pass with disruption::Controller and applies the plan:
// Drifted conditions, leftover-taint cleanup, re-validation of commands
// whose 15 s wait is over, and new commands handed to the Orchestrator.
// It records what Karpenter publishes during the pass (Plan::events and
// Plan::metrics) and, for a command that fails its re-validation,
// karpenter_voluntary_disruption_failed_validations_total and the
// ConsolidationRejected events.
//
// It is Karpenter's disruption controller Reconcile (pkg/controllers/
// disruption/controller.go, docs/semantics.md §2.1) plus the drift
// marking of pkg/controllers/nodeclaim/disruption (§3.1), run as one
// synchronous step the host calls when `next_wake` comes (or on any cluster
// event). The termination of the NodeClaims the orchestrator deletes is
// termination::Executor's job; a host runs both.
//
// Soft state: the orchestration queue and the commands waiting for their
// 15 s validation. Losing them (a restart) is safe: the cleanup step
// removes leftover taints, a waiting command is simply recomputed, and a
// replacement already launched is an ordinary node (instance garbage
// collection covers a launch cut short).
//
// Thread-safety: thread-compatible; call RunOnce from one thread at a time.
#ifndef KARPENTER_DISRUPTION_RUNNER_H_
#define KARPENTER_DISRUPTION_RUNNER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "karpenter/clock.h"
#include "karpenter/cloud_provider.h"
#include "karpenter/cluster_view.h"
#include "karpenter/disruption/controller.h"
#include "karpenter/disruption/orchestrator.h"
#include "karpenter/event_recorder.h"
#include "karpenter/metrics.h"

namespace karpenter::disruption {

struct RunnerOptions {
  ControllerOptions controller;
  OrchestratorOptions orchestrator;
};

struct RunReport {
  // The plan of this pass.
  Plan plan;
  // Commands handed to the orchestrator, waiting for validation, and
  // dropped by validation (with why) in this pass.
  int64_t started = 0;
  int64_t waiting_validation = 0;
  std::vector<std::string> rejected;
  // Errors applying the plan (a failed write, a refused start), each
  // `<what>: <status>`; the next pass retries from observed state.
  std::vector<std::string> errors;
  Orchestrator::Report orchestration;
  // When to call RunOnce again at the latest.
  absl::Time next_wake = absl::InfiniteFuture();
};

class Runner {
 public:
  // All references must outlive the Runner. Errors: InvalidArgument from
  // Orchestrator::Create for bad options.
  static absl::StatusOr<std::unique_ptr<Runner>> Create(
      ClusterView& view, CloudProvider& cloud, EventRecorder& recorder,
      Metrics& metrics, Clock& clock, RunnerOptions options = {});

  // One pass, as described in the file comment. Errors: those of
  // ClusterView::Read and Controller::Decide (nothing was applied); write
  // failures are reported in RunReport::errors instead.
  absl::StatusOr<RunReport> RunOnce();

  const Orchestrator& orchestrator() const { return *orchestrator_; }

 private:
  Runner(ClusterView& view, CloudProvider& cloud, EventRecorder& recorder,
         Metrics& metrics, Clock& clock, RunnerOptions options,
         std::unique_ptr<Orchestrator> orchestrator);
  // After re-validating `command`: failed-validation metric and, for
  // consolidation, ConsolidationRejected events.
  void RecordValidation(const Command& command,
                        const absl::StatusOr<Command>& valid);

  ClusterView& view_;
  CloudProvider& cloud_;
  EventRecorder& recorder_;
  Metrics& metrics_;
  Clock& clock_;
  RunnerOptions options_;
  Controller controller_;
  std::unique_ptr<Orchestrator> orchestrator_;
  // Commands computed with a validate_at, waiting for it.
  std::vector<Command> waiting_;
  // The last pass's snapshot and facts, which the next pass's facts are
  // built from (SnapshotFacts::Build's `previous`); soft state like the
  // rest (the facts equal those built from scratch).
  struct PassState {
    snapshot::Snapshot snapshot;
    std::unique_ptr<const SnapshotFacts> facts;  // Over `snapshot`.
  };
  std::unique_ptr<PassState> previous_;
};

}  // namespace karpenter::disruption

#endif  // KARPENTER_DISRUPTION_RUNNER_H_
