// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// EvictionQueue: the pods a drain has to remove, handed out one at a time as
// eviction (or force-delete) requests, with Karpenter's rate limiting and
// response handling, optionally serialised per PodDisruptionBudget.
//
// Ports Karpenter's eviction queue
// (pkg/controllers/node/termination/terminator/eviction.go,
// docs/semantics.md §5):
//   - de-duplication by pod UID; Add keeps the earliest force-delete
//     deadline (a later Add tightens it, never loosens or clears it);
//   - per-pod exponential failure backoff, 100 ms doubling to a 10 s cap
//     (client-go ItemExponentialFailureRateLimiter), forgotten on success;
//   - a global token bucket (client-go BucketRateLimiter, golang.org/x/time
//     rate.Limiter: continuous refill at qps up to burst). Karpenter's
//     defaults at 1 CPU: qps 100, burst 1000;
//   - responses: 200/404/409 done; 429 and the multiple-PDB 500 back off and
//     emit a Warning `FailedDraining` event on the Node; anything else backs
//     off silently;
//   - force deletion (the pod's deadline has passed) bypasses PDBs.
//
// Decisions (differences from Karpenter, each deliberate):
//   - Mode kKeyedByPdb (the default) serialises evictions per PDB, as the
//     seed design asks: at most `max_in_flight_per_key` evictions of pods of
//     one PDB are outstanding. Pods with no PDB are not serialised. A pod
//     under more than one PDB is held (never handed out for eviction, state
//     kHeldMisconfigured) because the API server would refuse it with a 500
//     on every attempt; it is still force-deleted at its deadline. Mode
//     kPerPod is what Karpenter does: no per-PDB gate (the API server's 429
//     is the only one), and a pod under several PDBs is handed out, gets the
//     500 and backs off, with an event per attempt.
//   - The token bucket is charged for every request handed out (evictions
//     and force-deletes), so it bounds the API request rate. In Karpenter a
//     newly added pod reaches the workqueue with a plain Add and only
//     retries pass the rate limiter.
//   - Karpenter's queue item is the pod's namespace/name and a recreated pod
//     with the same name leaves a stale entry; here the UID is the identity,
//     so a same-name pod with another UID is a distinct item.
//   - 409 on a force-delete (the UID precondition failed: the pod was
//     replaced) is done, as for an eviction; Karpenter backs off and then
//     finds nothing to do.
//   - The queue does not know about do-not-disrupt: the caller adds a
//     do-not-disrupt pod only when it may be evicted, or with a deadline.
//
// Ordering is deterministic: force-deletes due at `now` first, by the
// instant they became due (max(deadline, end of backoff)); then evictions by
// the end of their backoff; ties by the order pods were first added. The
// same calls with the same arguments give the same results.
//
// Complexity: Add, Remove, Pop and Complete are O(log n) amortised, and
// O(log k) for the common pod that never failed and has no deadline (k: PDB
// keys with waiting pods). Pods of a key wait in an intrusive FIFO (never
// failed) or a heap (retried); open keys sit in a heap by their first pod;
// pods with a deadline in a heap by force-delete time; stale heap entries are
// skipped lazily and compacted when more than half are stale. The UID index
// is an open-addressing table of (hash, slot) cells: one hash per call, no
// allocation per pod after warm-up (a pod's strings are stored inline in its
// slot when together at most 96 bytes); Complete(work) does no UID lookup.
// NextReadyTime and size are O(1). Memory: about 220 bytes per queued pod
// plus one record per distinct PDB key ever added (keys are interned and
// never forgotten).
//
// Thread-safety: not thread-safe. A single-threaded data structure driven by
// explicit `now` arguments (it never reads a clock); callers sharing one
// queue between threads must synchronise externally. Const methods may run
// concurrently with each other.

#ifndef KARPENTER_DRAIN_EVICTION_QUEUE_H_
#define KARPENTER_DRAIN_EVICTION_QUEUE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "karpenter/eviction_client.h"

namespace karpenter::drain {

enum class EvictionQueueMode {
  // At most `max_in_flight_per_key` outstanding evictions per PDB key.
  kKeyedByPdb,
  // No per-key gate (Karpenter today); keys are only reported.
  kPerPod,
};

struct EvictionQueueOptions {
  EvictionQueueMode mode = EvictionQueueMode::kKeyedByPdb;
  // Outstanding evictions per PDB key (kKeyedByPdb only). At least 1.
  int max_in_flight_per_key = 1;
  // Per-pod failure backoff: base * 2^(failures-1), capped at backoff_cap.
  absl::Duration backoff_base = absl::Milliseconds(100);
  absl::Duration backoff_cap = absl::Seconds(10);
  // Token bucket: `qps` tokens a second, at most `burst` stored; one token
  // per request handed out. Karpenter's values at 1 CPU.
  double qps = 100;
  int64_t burst = 1000;
};

// What a popped item asks the caller to do.
enum class EvictionWorkKind {
  kEvict,        // POST pods/eviction with the UID precondition.
  kForceDelete,  // DELETE with the UID precondition; the deadline passed.
};

// The stable name of a kind: "Evict" or "ForceDelete".
absl::string_view EvictionWorkKindName(EvictionWorkKind kind);

// A non-owning view of a queued pod's namespace, name and UID. Converts
// implicitly to PodRef (copying the strings) wherever a `const PodRef&` is
// expected.
struct PodRefView {
  absl::string_view namespace_name;
  absl::string_view name;
  absl::string_view uid;

  PodRefView() = default;
  PodRefView(absl::string_view ns, absl::string_view n, absl::string_view u)
      : namespace_name(ns), name(n), uid(u) {}
  // Views `pod`, which must outlive the view.
  PodRefView(const PodRef& pod)  // NOLINT(google-explicit-constructor)
      : namespace_name(pod.namespace_name), name(pod.name), uid(pod.uid) {}

  operator PodRef() const {  // NOLINT(google-explicit-constructor)
    return PodRef{std::string(namespace_name), std::string(name),
                  std::string(uid)};
  }

  friend bool operator==(const PodRefView& a, const PodRefView& b) {
    return a.namespace_name == b.namespace_name && a.name == b.name &&
           a.uid == b.uid;
  }
};

// One request handed out by Pop. The pod stays in the queue, in flight,
// until Complete or Remove.
struct EvictionWork {
  // Views the strings the queue stores for the pod (Pop allocates nothing).
  // Valid until the pod leaves the queue (a Complete that returns done, or
  // Remove) or the queue is destroyed; moving the queue keeps it valid, and
  // so does a failed Complete (the pod stays queued). Copy it into a PodRef
  // to keep it longer.
  PodRefView pod;
  EvictionWorkKind kind = EvictionWorkKind::kEvict;
  // The force-delete deadline (InfiniteFuture if none); a force-delete's
  // grace period is computed from it.
  absl::Time deadline = absl::InfiniteFuture();
  // Failed attempts so far (0 on the first try).
  int failures = 0;
  // Names this hand-out for Complete(const EvictionWork&, ...); opaque.
  uint64_t ticket = 0;
};

// An event the caller should record: type Warning, on the Node.
struct DrainEvent {
  std::string reason;   // "FailedDraining"
  std::string message;  // e.g. "Failed to drain node, evicting pod violates
                        // a PDB (Pod=ns/name)"
};

// What Complete did with the pod.
struct EvictionCompletion {
  // True: the pod left the queue. False: it waits until `retry_at`.
  bool done = false;
  absl::Time retry_at = absl::InfiniteFuture();
  absl::Duration backoff = absl::ZeroDuration();
  // Failed attempts including this one (0 when done).
  int failures = 0;
  std::optional<DrainEvent> event;
};

enum class EvictionItemState {
  kReady,              // A Pop at `now` may hand it out (order permitting).
  kBackingOff,         // Waiting until `until` after a failure.
  kWaitingForKey,      // Its PDB key has no free in-flight slot.
  kWaitingForToken,    // Otherwise ready; the bucket refills at `until`.
  kHeldMisconfigured,  // Under several PDBs (kKeyedByPdb): not evicted;
                       // force-deleted at `until` (its deadline) if finite.
  kInFlight,           // Handed out; waiting for Complete.
};

// The stable name of a state, e.g. "WaitingForKey".
absl::string_view EvictionItemStateName(EvictionItemState state);

// Why a pod is where it is (Inspect).
struct EvictionItemStatus {
  EvictionItemState state = EvictionItemState::kReady;
  // For kReady/kWaitingForToken: what Pop would hand out. For kInFlight:
  // what was handed out. Otherwise kEvict.
  EvictionWorkKind kind = EvictionWorkKind::kEvict;
  // kBackingOff, kWaitingForToken, kHeldMisconfigured: when that ends
  // (InfiniteFuture if never on its own); otherwise InfinitePast.
  absl::Time until = absl::InfinitePast();
  absl::Time deadline = absl::InfiniteFuture();
  int failures = 0;
  // The pod's PDB keys, sorted. For kWaitingForKey, the first is the key.
  std::vector<std::string> pdb_keys;
  // One line for humans, e.g. `waiting for PDB "ns/web": 1 eviction in
  // flight (max 1)`.
  std::string message;
};

// Counters for measurement (monotonic since Create).
struct EvictionQueueCounters {
  int64_t added = 0;         // Adds of a new UID.
  int64_t deduplicated = 0;  // Adds of a UID already queued.
  int64_t removed = 0;       // Remove calls that found the pod.
  int64_t popped_evictions = 0;
  int64_t popped_force_deletes = 0;
  // Completions indexed by static_cast<size_t>(EvictionResult).
  std::array<int64_t, 6> eviction_results{};
  std::array<int64_t, 6> force_delete_results{};
  int64_t events = 0;  // FailedDraining events returned.
};

class EvictionQueue {
 public:
  // Validates `options`. Errors: InvalidArgument naming the option and its
  // value, e.g. `qps: must be > 0 and at most 1e9, got 0`, for qps not in
  // (0, 1e9] (or NaN), burst < 1, backoff_base <= 0 or infinite,
  // backoff_cap < backoff_base or infinite, max_in_flight_per_key < 1, an
  // unknown mode.
  static absl::StatusOr<EvictionQueue> Create(
      const EvictionQueueOptions& options = {});

  // Movable, not copyable. A moved-from queue may only be destroyed or
  // assigned to.
  EvictionQueue(EvictionQueue&&) noexcept;
  EvictionQueue& operator=(EvictionQueue&&) noexcept;
  ~EvictionQueue();

  // Queues `pod` for eviction. `pdb_keys` names the PDBs selecting it (any
  // stable spelling, e.g. "namespace/name"; duplicates count once): none
  // means unkeyed, more than one means misconfigured. `force_delete_at` is
  // the instant from which the pod is force-deleted instead of evicted
  // (InfiniteFuture: never).
  //
  // If the UID is already queued: the deadline becomes the earlier of the
  // two, the keys are replaced (for an in-flight pod, from its next
  // attempt), and backoff state is kept. O(log n).
  //
  // Errors: InvalidArgument for an empty pod.uid or pod.name, an empty key,
  // or a UID already queued under another namespace/name (quoted).
  absl::Status Add(const PodRef& pod, absl::Span<const std::string> pdb_keys,
                   absl::Time force_delete_at = absl::InfiniteFuture());

  // Hands out the next request ready at `now`, or nullopt. Ready: a pod
  // whose deadline <= now (force-delete, regardless of keys) and whose
  // backoff has ended; else a pod whose backoff has ended, that is not held,
  // and whose key has a free slot. Either way a token must be available;
  // handing out takes it and, for an eviction, the key slot. `now` should
  // not decrease between calls (if it does, fewer pods are ready).
  std::optional<EvictionWork> Pop(absl::Time now);

  // The earliest instant at which Pop could hand something out, barring
  // Add/Complete/Remove in between: Pop(NextReadyTime()) succeeds. May be in
  // the past (even InfinitePast: ready whenever). InfiniteFuture when
  // nothing can become ready on its own (empty, all in flight, all waiting
  // for busy keys, or held without a deadline).
  absl::Time NextReadyTime() const;

  // Reports the result of the request handed out for `uid`. O(log n).
  //   Evictions: kEvicted, kNotFound, kConflict -> done (removed, failure
  //   count forgotten); kBlockedByPdb, kMisconfigured -> backoff and a
  //   FailedDraining event; kOtherError -> backoff.
  //   Force-deletes: kEvicted (deleted), kNotFound, kConflict -> done;
  //   anything else -> backoff, no event.
  // The key slot is released in every case. Backoff: the failure count
  // increments and the pod is ready again at now + min(cap, base *
  // 2^(failures-1)).
  // Errors: NotFound if `uid` is not queued; FailedPrecondition if it is not
  // in flight; InvalidArgument for a `result` outside the enum.
  absl::StatusOr<EvictionCompletion> Complete(absl::string_view uid,
                                              EvictionResult result,
                                              absl::Time now);

  // As Complete(work.pod.uid, result, now), without the UID lookup when
  // `work` is the current hand-out of its pod (as returned by Pop and not
  // yet completed or removed). Same results and errors.
  absl::StatusOr<EvictionCompletion> Complete(const EvictionWork& work,
                                              EvictionResult result,
                                              absl::Time now);

  // Drops `uid` from the queue, releasing its key slot if it was in flight
  // (a later Complete for it returns NotFound). Errors: NotFound.
  absl::Status Remove(absl::string_view uid);

  // Explains where `uid` stands at `now`. Errors: NotFound.
  absl::StatusOr<EvictionItemStatus> Inspect(absl::string_view uid,
                                             absl::Time now) const;

  // Pods queued, in flight included.
  size_t size() const;
  // Pods handed out and not yet completed.
  size_t in_flight() const;
  const EvictionQueueCounters& counters() const;
  const EvictionQueueOptions& options() const;

 private:
  struct State;
  explicit EvictionQueue(std::unique_ptr<State> state);

  std::unique_ptr<State> state_;
};

}  // namespace karpenter::drain

#endif  // KARPENTER_DRAIN_EVICTION_QUEUE_H_
