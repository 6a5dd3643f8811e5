// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Drainer: drives the drains of one or more nodes step by step through a
// host's ClusterView and EvictionClient, under a Clock, with one
// EvictionQueue shared by every node it drains (Karpenter's queue is global).
//
// Ports the drain half of Karpenter's node termination
// (pkg/controllers/node/termination/terminator/terminator.go `Drain` and
// eviction.go `Reconcile`; docs/semantics.md §4.3-§4.5, §5). Each Step:
//   1. reads a snapshot (ClusterView::Read);
//   2. per registered node: its deadline T (deadline.h NodeDeadline, with the
//      caller's external deadline) and a drain pass (tiers.h PlanDrainPass);
//   3. queues the pods past their force-delete instant (every tier), and the
//      pods of the tier being drained that need an eviction request (active
//      and evictable), each with the instant from which it is force-deleted;
//   4. executes every queue item ready now: an eviction (EvictionClient) or a
//      force-delete (ClusterView::DeletePod with grace
//      ForceDeleteGraceSeconds(T, now)), re-checking the pod in the snapshot
//      first, and reports each result to the queue.
//
// Decisions (differences from Karpenter, each deliberate):
//   - Terminating and do-not-disrupt pods are not queued for eviction (the
//     queue could only drop them or back off on them); a do-not-disrupt pod
//     is queued once it is due for force-deletion or its annotation lapses,
//     so it is never evicted before its deadline. Step's `next_wake` covers
//     those instants.
//   - A popped pod that is gone, replaced (another UID), no longer active or
//     no longer evictable is completed without an API call (Karpenter's
//     Reconcile finds the same from its informer cache). One that is merely
//     not evictable is dropped rather than backed off: the next Step queues
//     it again once it is evictable.
//   - `precheck_pdbs` (off by default) refuses, without an API call, the
//     eviction of a Ready pod whose single PDB allows no disruption in the
//     step's snapshot (minus the evictions this step already made under
//     it), and of a pod under several PDBs; the pod backs off as on a 429 /
//     500. A PDB's status can lag the cluster, so this saves requests but
//     the API server remains the only guarantee; a pod that is not Ready is
//     always sent (the server may let it go under IfHealthyBudget).
//   - Node-level FailedDraining ("N pods are waiting") is reported in
//     NodeReport::message, not as an event; the waiting time MinDrainTime,
//     the taint and the Drained condition belong to the termination
//     controller, not to the drain.
//
// Restart safety: the Drainer keeps no state the cluster does not hold
// except the queue's backoff and rate-limit bookkeeping. A new Drainer on
// the same cluster, given the same nodes, finishes the drains.
//
// Thread-safety: not thread-safe; one thread drives a Drainer. The view,
// client and clock must outlive it.

#ifndef KARPENTER_DRAIN_DRAINER_H_
#define KARPENTER_DRAIN_DRAINER_H_

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "karpenter/clock.h"
#include "karpenter/cluster_view.h"
#include "karpenter/drain/deadline.h"
#include "karpenter/drain/eviction_queue.h"
#include "karpenter/drain/tiers.h"
#include "karpenter/eviction_client.h"

namespace karpenter::drain {

struct DrainerOptions {
  // The shared queue's options (mode, backoff, rate limit).
  EvictionQueueOptions queue;
  // Refuse evictions locally when the snapshot's PDB status already says
  // the API server would answer 429 (or 500 for several PDBs). See the file
  // comment: an optimisation, not a guarantee.
  bool precheck_pdbs = false;

  // Not for production: each switch weakens a guard so the fault-injection
  // harness (tests/sim) can prove it catches the bug. Never set outside
  // tests.
  struct ForTest {
    // Do-not-disrupt pods are enqueued and evicted like any other pod (both
    // guards, at enqueueing and before the call, are off).
    bool evict_do_not_disrupt = false;
  };
  ForTest for_test;
};

// A pod of a drained node that was not acted on, or is still queued, and
// why.
struct PodNote {
  PodRef pod;
  // E.g. "EarlierTier: waits for tier NonCriticalNonDaemonSet", or the
  // queue's explanation ("\"ns/a\": held, selected by several PDBs ...").
  std::string reason;
};

// Where one registered node stands after a Step.
struct NodeReport {
  std::string node;
  // Nothing is waiting (or the node is gone): the drain is complete and the
  // node was unregistered.
  bool done = false;
  // The node was not in the snapshot.
  bool gone = false;
  // N, the pods the drain waits for (tiers.h DrainPass::waiting).
  int waiting = 0;
  // "N pods are waiting to be evicted"; empty when done.
  std::string message;
  // T, if any.
  std::optional<Deadline> deadline;
  // The tier being drained, if any.
  std::optional<Tier> tier;
  // Every pod of the node not completed this step that the drain did not
  // evict or delete, in the node's pod order.
  std::vector<PodNote> notes;
  // Planning failed for this node (e.g. an invalid termination-timestamp
  // annotation); it stays registered and the other nodes proceed.
  absl::Status error;
};

// A Warning event for the host to record on Node `node`.
struct DrainerEvent {
  std::string node;
  DrainEvent event;
};

// Requests made and skipped (per Step, and cumulative in Drainer::totals()).
struct DrainCounts {
  // EvictionClient::Evict calls and their results (index: EvictionResult).
  int64_t evict_calls = 0;
  std::array<int64_t, 6> evict_results{};
  // Evict responses by HTTP status (0 for transport errors); ordered map.
  std::map<int, int64_t> evict_http_status;
  // ClusterView::DeletePod calls (force-deletes) and their results
  // (kEvicted: deleted; kNotFound; kConflict: UID precondition failed;
  // kOtherError: anything else).
  int64_t force_deletes = 0;
  std::array<int64_t, 6> force_delete_results{};
  // Evictions refused by precheck_pdbs without a call.
  int64_t local_pdb_blocks = 0;
  // Popped items completed without a call: the pod was gone or replaced,
  // already terminating or terminal, or no longer evictable.
  int64_t skipped_gone = 0;
  int64_t skipped_inactive = 0;
  int64_t skipped_not_evictable = 0;

  // Adds `other` to this.
  void Add(const DrainCounts& other);
};

// The outcome of one Step.
struct StepReport {
  // clock.Now() at the start of the step; every decision used it.
  absl::Time now;
  // One per node registered at the start of the step, by name.
  std::vector<NodeReport> nodes;
  // FailedDraining events from the queue, in execution order.
  std::vector<DrainerEvent> events;
  DrainCounts counts;
  // The earliest instant after `now` at which the passage of time alone
  // changes what Step would do: the queue's next ready item, a pod's
  // force-delete instant, a do-not-disrupt lapse, a terminating pod turning
  // stuck. InfiniteFuture if none. Changes in the cluster (a pod going away
  // opening the next tier) are seen on the next Read; a host steps again on
  // its watch events, or polls (Karpenter requeues every second).
  absl::Time next_wake = absl::InfiniteFuture();

  // True when every node reported is done.
  bool all_done() const;
};

class Drainer {
 public:
  // Creates a drainer with an empty queue. `view`, `client` and `clock` must
  // outlive it. Errors: those of EvictionQueue::Create for
  // `options.queue` (InvalidArgument naming the option and value).
  static absl::StatusOr<std::unique_ptr<Drainer>> Create(
      ClusterView& view, EvictionClient& client, const Clock& clock,
      DrainerOptions options = {});

  Drainer(const Drainer&) = delete;
  Drainer& operator=(const Drainer&) = delete;
  ~Drainer();

  // Registers node `node` for draining with an optional external deadline
  // (e.g. SpotInterruptionDeadline(notice)), combined with the NodeClaim's
  // deadline as the earlier. Idempotent: registering again keeps the earlier
  // external deadline (a later call can tighten it, never loosen or clear
  // it). Errors: InvalidArgument for an empty name or an infinite deadline
  // (quoted).
  absl::Status Drain(
      absl::string_view node,
      std::optional<absl::Time> external_deadline = std::nullopt);

  // Runs one step at clock.Now() (see the file comment). Nodes found done
  // are reported once with `done` and unregistered. Per-node planning
  // errors are reported in NodeReport::error; failed requests are results
  // in the queue (they back off), never errors.
  // Errors: Read() failures, prefixed "read cluster: "; Internal if the
  // queue rejects a completion (a bug).
  absl::StatusOr<StepReport> Step();

  // The registered nodes, by name.
  std::vector<std::string> nodes() const;
  // Counts since Create.
  const DrainCounts& totals() const;
  // The shared queue, for inspection.
  const EvictionQueue& queue() const;

 private:
  struct StepContext;
  Drainer(ClusterView& view, EvictionClient& client, const Clock& clock,
          DrainerOptions options, EvictionQueue queue);

  absl::Status Begin(StepContext& ctx);
  void Finish(StepContext& ctx);
  NodeReport PlanNode(StepContext& ctx, const std::string& node,
                      std::optional<absl::Time> external);
  absl::Status Enqueue(StepContext& ctx, const DrainPass& pass);
  absl::Status Execute(StepContext& ctx, const EvictionWork& work);
  std::optional<EvictionResult> Skip(StepContext& ctx, EvictionWorkKind kind,
                                     const PodRef& pod);
  // Snapshot::FindPod on the step's snapshot, by way of the registered
  // nodes' pods.
  std::optional<snapshot::PodIndex> FindPod(StepContext& ctx,
                                            const PodRef& ref) const;
  EvictionResult Run(StepContext& ctx, EvictionWorkKind kind,
                     const PodRef& pod);
  void Annotate(StepContext& ctx, const DrainPass& pass,
                NodeReport& report) const;

  ClusterView& view_;
  EvictionClient& client_;
  const Clock& clock_;
  DrainerOptions options_;
  EvictionQueue queue_;
  // Registered nodes and their external deadlines.
  std::map<std::string, std::optional<absl::Time>, std::less<>> nodes_;
  DrainCounts totals_;
};

}  // namespace karpenter::drain

#endif  // KARPENTER_DRAIN_DRAINER_H_
