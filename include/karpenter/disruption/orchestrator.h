// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Orchestrator: executes disruption commands (disruption/types.h) through a
// host's ClusterView and CloudProvider: marks the candidates, launches their
// replacements, waits for the replacements to initialise, then deletes the
// candidates' NodeClaims (whose termination the termination executor then
// carries out), or rolls the command back. It ports Karpenter's
// orchestration queue (pkg/controllers/disruption/queue.go `StartCommand`,
// `Reconcile`, `waitOrTerminate`; docs/semantics.md §2.13), the
// cleanup step of the disruption loop (controller.go, §2.1 step 3) and its
// metrics and events (§7.1, §7.2).
//
// Ordering guarantees (the reason this exists):
//   - Replacement before deletion: no candidate NodeClaim is deleted before
//     every replacement of its command is initialised (its Node carries
//     karpenter.sh/initialized=true, or the NodeClaim has Initialized=True).
//   - Cloud before NodeClaim: a replacement's instance is launched
//     (CloudProvider::Create) before its NodeClaim is created with
//     `status.providerID`. A crash in between leaves an instance without a
//     NodeClaim, which instance garbage collection terminates after 30 s
//     (§4.7, termination/garbage_collection.h); never a NodeClaim without
//     an instance. Replacements get the finalizer karpenter.sh/termination,
//     so deleting one also terminates its instance.
//   - Rollback leaks nothing: on timeout, or when a replacement NodeClaim
//     vanishes, the uninitialised replacements are deleted (NodeClaim and
//     instance) and the candidates are unmarked (taint
//     karpenter.sh/disrupted:NoSchedule removed, NodeClaim condition
//     DisruptionReason cleared). Initialised replacements stay: they are
//     ordinary nodes that consolidation may later remove.
//
// Restart: the queue is soft state, as in Karpenter. A new Orchestrator
// knows no command. Leftover marks are removed by CleanUp (NodesToCleanUp:
// marked nodes that are not in flight and not deleting); replacements
// already created remain ordinary nodes (an uninitialised one initialises,
// or the registration timeout of termination/liveness.h deletes it);
// candidates whose NodeClaims were deleted continue terminating. Nothing
// leaks: every instance launched has a NodeClaim, or is garbage collected.
//
// Beyond Karpenter (SDK extensions):
//   - Rollout limits how many commands are in flight (SlotsAvailable): the
//     seed drift design replaces one node at a time.
//   - Per-NodePool backoff after a failed launch or a rollback
//     (kubernetes-sigs/karpenter#3080): the NodePools of the command are
//     skipped for `backoff_initial`, doubling per consecutive failure up to
//     `backoff_max`; a command of the NodePool completing resets it. The
//     planner reads Backoffs() (reasons::kNodePoolBackoff); Start refuses
//     budgeted commands of a backed-off NodePool. Other NodePools are not
//     affected (fairness).
//   - Karpenter republishes DisruptionLaunching / DisruptionWaitingReadiness
//     on every reconcile and relies on event deduplication; the SDK
//     publishes each once per replacement.
//   - Forceful commands (Expiration, NodePoolDeleted) are marked and their
//     NodeClaims deleted by Start at once; they are never queued.
//
// Thread-safety: not thread-safe; one thread drives an Orchestrator. The
// view, cloud provider, recorder, metrics and clock must outlive it.

#ifndef KARPENTER_DISRUPTION_ORCHESTRATOR_H_
#define KARPENTER_DISRUPTION_ORCHESTRATOR_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "karpenter/clock.h"
#include "karpenter/cloud_provider.h"
#include "karpenter/cluster_view.h"
#include "karpenter/disruption/types.h"
#include "karpenter/event_recorder.h"
#include "karpenter/metrics.h"
#include "karpenter/snapshot/snapshot.h"

namespace karpenter::disruption {

// The DisruptionReason condition's reason (and message) for `method`:
// "Empty", "Drifted", "Underutilized", "Expired" or "NodePoolDeleted".
absl::string_view DisruptionReasonOf(Method method);

// How many commands may be in flight at once.
enum class Rollout {
  // At most one (the seed drift design; the default).
  kSerial,
  // At most max(1, ceil(batch_fraction x managed nodes)).
  kParallelBatch,
  // No limit beyond the disruption budgets (Karpenter's behaviour).
  kBudget,
};

// "Serial", "ParallelBatch" or "Budget".
absl::string_view RolloutName(Rollout rollout);

struct OrchestratorOptions {
  Rollout rollout = Rollout::kSerial;
  // For kParallelBatch: in (0, 1].
  double batch_fraction = 0.05;
  // A command times out after clamp(per_command_timeout x commands in the
  // queue, min_timeout, max_timeout) (Karpenter: 80 ms, 10 min, 1 h).
  // 0 < min_timeout <= max_timeout, both finite; per_command_timeout >= 0.
  absl::Duration min_timeout = absl::Minutes(10);
  absl::Duration max_timeout = absl::Hours(1);
  absl::Duration per_command_timeout = absl::Milliseconds(80);
  // Per-NodePool backoff after a failed launch or a rollback (file
  // comment). 0 < backoff_initial <= backoff_max, both finite.
  absl::Duration backoff_initial = absl::Seconds(10);
  absl::Duration backoff_max = absl::Minutes(10);
};

class Orchestrator {
 public:
  // Errors: InvalidArgument naming the option and its value when an option
  // breaks the bounds documented in OrchestratorOptions.
  static absl::StatusOr<std::unique_ptr<Orchestrator>> Create(
      ClusterView& view, CloudProvider& cloud, EventRecorder& recorder,
      Metrics& metrics, const Clock& clock, OrchestratorOptions options = {});

  Orchestrator(const Orchestrator&) = delete;
  Orchestrator& operator=(const Orchestrator&) = delete;
  ~Orchestrator();

  // How many more commands may start now under the Rollout, given the
  // number of managed nodes (NodeClaim-backed Nodes): kSerial 1 - queued,
  // kParallelBatch max(1, ceil(batch_fraction x managed_nodes)) - queued,
  // never below 0; kBudget INT64_MAX. Forceful commands are never queued
  // and never need a slot. A negative `managed_nodes` counts as 0 (the
  // batch is then 1).
  int64_t SlotsAvailable(int64_t managed_nodes) const;

  // Starts `command` (§2.13 StartCommand), at clock.Now():
  //   1. refuses it if a candidate's provider ID is already queued;
  //   2. refuses a budgeted command whose NodePools (candidates' and
  //      replacements') include one backed off;
  //   3. marks each candidate: taint karpenter.sh/disrupted:NoSchedule and
  //      NodeClaim condition DisruptionReason=True, reason and message
  //      DisruptionReasonOf(method). If a mark fails and the command has
  //      replacements, or no candidate could be marked, every mark made is
  //      removed and the error returned; otherwise a delete-only command
  //      continues with the candidates marked;
  //   4. forceful methods: deletes the candidates' NodeClaims now (events,
  //      metrics) and returns; nothing is queued;
  //   5. launches each replacement: CloudProvider::Create, then
  //      ClusterView::CreateNodeClaim with `status.providerID` (AlreadyExists
  //      counts as created: a retry of this launch), with the label
  //      karpenter.sh/nodepool and the finalizer karpenter.sh/termination
  //      added if missing. On a failure the launched replacements are
  //      deleted (NodeClaim and instance), the marks removed, the command's
  //      NodePools backed off, and the error returned;
  //   6. queues the command; metrics
  //      karpenter_voluntary_disruption_decisions_total and
  //      ..._decisions_by_nodepool_total.
  // Errors: InvalidArgument for a malformed command (no candidates; an
  // empty node, NodeClaim or provider ID; a provider ID twice; a
  // replacement without a NodeClaim name; replacements on a forceful
  // method), naming the field; AlreadyExists naming the queued candidate;
  // FailedPrecondition naming the backed-off NodePool and until when; a
  // mark failure (its code, message prefixed `mark candidate "<node>": `);
  // a launch failure (its code, e.g. ResourceExhausted for insufficient
  // capacity; message `launch replacement "<name>" (NodePool "<np>"):
  // insufficient capacity: ...; rolled back, NodePool(s) "<np>", ...
  // backed off until <time>`); for forceful methods, the first NodeClaim
  // delete failure (after trying every candidate).
  absl::Status Start(const Command& command);

  struct Report {
    // Commands whose candidates were all deleted this reconcile.
    int64_t completed = 0;
    // Commands still queued.
    int64_t waiting = 0;
    // Commands rolled back (timed out, or a replacement vanished).
    int64_t rolled_back = 0;
    // When a queued command next needs a reconcile without any change in
    // the cluster: its timeout, or a retry 1 s after a failed delete.
    // nullopt when the queue is empty.
    std::optional<absl::Time> next_wake;
    // One line per event of note, in queue order, e.g.
    // `Drift [n1]: waiting for r1 to initialise (1m0s of 10m0s)`.
    std::vector<std::string> log;
  };

  // One reconcile of every queued command in start order, at clock.Now()
  // (Karpenter's queue Reconcile). `snapshot` must have been read after the
  // last Start: a replacement NodeClaim missing from it counts as deleted.
  // Per command:
  //   - every replacement initialised (file comment) -> deletes each
  //     candidate NodeClaim (NotFound counts as deleted); events
  //     DisruptionTerminating on the Node and the NodeClaim; metrics
  //     karpenter_nodeclaims_disrupted_total and
  //     karpenter_pods_disruption_initiated_total; when all are deleted
  //     the command completes and its NodePools' backoff is reset. A failed
  //     delete is retried 1 s later;
  //   - otherwise events DisruptionLaunching and DisruptionWaitingReadiness
  //     (once per replacement) and the command waits;
  //   - a replacement NodeClaim absent or deleting -> rollback;
  //   - not completed once Timeout() has elapsed since Start -> rollback.
  // Rollback: deletes the uninitialised replacements (NodeClaim, then
  // instance; NotFound counts as done), removes the taint and the
  // DisruptionReason condition from candidates not yet deleted, backs off
  // the command's NodePools and adds the uninitialised replacements to
  // karpenter_voluntary_disruption_queue_failures_total. Its API failures
  // are logged, not retried: cleanup and garbage collection repair them.
  // Errors: none; failures are in the report's log.
  absl::StatusOr<Report> Reconcile(const snapshot::Snapshot& snapshot);

  // §2.1 step 3 over `snapshot`: for each node NodesToCleanUp returns
  // (with InFlightProviderIds()), removes the disrupted taint and clears
  // the DisruptionReason condition of its NodeClaim. NotFound counts as
  // done. Returns the nodes cleaned, sorted. Errors: the first other
  // failure (after trying every node), prefixed with the node; the host
  // retries on its next pass.
  absl::StatusOr<std::vector<std::string>> CleanUp(
      const snapshot::Snapshot& snapshot);

  // The provider IDs of the candidates of queued commands (candidate rule
  // 1, reasons::kInFlight).
  std::set<std::string, std::less<>> InFlightProviderIds() const;

  // The NodeClaim names of the replacements launched by queued commands
  // (for ControllerOptions::count_replacement_pairs_once).
  std::set<std::string, std::less<>> InFlightReplacements() const;

  // NodePool -> the end of its backoff, for backoffs still running at
  // clock.Now().
  std::map<std::string, absl::Time> Backoffs() const;

  // The current command timeout: clamp(per_command_timeout x size(),
  // min_timeout, max_timeout).
  absl::Duration Timeout() const;

  // Queued commands.
  size_t size() const;

 private:
  struct Entry;
  enum class Outcome { kWaiting, kCompleted, kRolledBack };

  Orchestrator(ClusterView& view, CloudProvider& cloud, EventRecorder& recorder,
               Metrics& metrics, const Clock& clock,
               OrchestratorOptions options);

  absl::Status CheckStartable(const Command& command, absl::Time now) const;
  absl::StatusOr<std::vector<Candidate>> Mark(const Command& command);
  void Unmark(const std::vector<Candidate>& candidates,
              std::vector<std::string>* log);
  absl::Status StartForceful(const Command& command,
                             const std::vector<Candidate>& marked);
  absl::Status Launch(const Command& command, Entry& entry, absl::Time now);
  Outcome Step(Entry& entry, const snapshot::Snapshot& snapshot, absl::Time now,
               absl::Duration timeout, Report& report);
  bool DeleteCandidates(Entry& entry, absl::Time now, Report& report);
  void Rollback(Entry& entry, absl::string_view why, absl::Time now,
                Report& report);
  absl::Time BackOff(const std::vector<std::string>& node_pools,
                     absl::Time now);
  void RecordDecision(const Command& command);
  void RecordDisrupted(const Command& command, const Candidate& candidate);
  void Emit(absl::string_view kind, absl::string_view name,
            absl::string_view reason, std::string message);

  ClusterView& view_;
  CloudProvider& cloud_;
  EventRecorder& recorder_;
  Metrics& metrics_;
  const Clock& clock_;
  OrchestratorOptions options_;
  // In start order.
  std::vector<std::unique_ptr<Entry>> queue_;
  struct Backoff {
    int failures = 0;
    absl::Time until = absl::InfinitePast();
  };
  std::map<std::string, Backoff> backoff_;
};

// §2.1 step 3 as a pure function: the Nodes carrying the taint
// karpenter.sh/disrupted:NoSchedule, or whose NodeClaim (by status.nodeName,
// else status.providerID) has the DisruptionReason condition, whose
// providerID is not in `in_flight_provider_ids` and where neither the Node
// nor its NodeClaim is being deleted (a deleting one is terminating: the
// mark stays). Returns their names, sorted.
std::vector<std::string> NodesToCleanUp(
    const snapshot::Snapshot& snapshot,
    const std::set<std::string, std::less<>>& in_flight_provider_ids);

}  // namespace karpenter::disruption

#endif  // KARPENTER_DISRUPTION_ORCHESTRATOR_H_
