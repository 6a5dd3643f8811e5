// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Budget extensions: two disruption limits that Karpenter does NOT have.
// They are SDK extensions, opt-in per NodePool, and never change what
// `BudgetBook`/`BuildBudgetMapping` (budget/allowed.h) compute; a host that
// configures none of them gets Karpenter's behaviour exactly.
//
//   * Rate budget, "at most N node disruptions per rolling window W" (asked
//     for in kubernetes-sigs/karpenter #1089 and #2909): a `DisruptionLedger`
//     of disruption start instants, fed by the host and seedable from a
//     Snapshot, evaluated at `now` over the window (now - W, now].
//   * Capacity-weighted budget, "disrupting nodes may hold at most P% (or an
//     absolute amount) of the NodePool's allocatable cpu or memory": a node
//     count budget disrupts anywhere between a sliver and most of a pool's
//     capacity when node sizes differ (1 x 96-CPU + 9 x 2-CPU nodes: "10%"
//     allows one node, 1.8% or 84% of the CPU).
//
// Both count the nodes Karpenter's budgets count (pkg/controllers/
// disruption/helpers.go BuildDisruptionBudgetMapping: managed, initialized,
// not InstanceTerminating, labelled with the NodePool), and treat as already
// disrupting the ones it does (Ready not "True", or NodeClaim deleting).
//
// Configuration, either a plain struct (`RateBudgetSpec`,
// `CapacityBudgetSpec`) or NodePool annotations read by
// `ParseBudgetExtensions`:
//   budget.karpenter-sdk.dev/disruption-rate: "3/1h"
//   budget.karpenter-sdk.dev/disruption-capacity: "cpu=20%"
// No annotation means the extension is off (no limit). Bad input is
// reported, never clamped; evaluation problems fail closed (allow nothing)
// with the reason in `why`, as Karpenter does for a broken budget.
//
// Thread-safety: the spec structs, `CapacityBook` and `CapacityEvaluation`
// are immutable values whose const methods may run concurrently.
// `DisruptionLedger` is a plain container: const methods may run
// concurrently with each other, but not with `Record`, `Seed` or `Prune`
// (the host serialises writers, e.g. in its disruption loop).
#ifndef KARPENTER_BUDGET_EXTENSIONS_H_
#define KARPENTER_BUDGET_EXTENSIONS_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "karpenter/budget/allowed.h"
#include "karpenter/budget/disruption_spec.h"
#include "karpenter/intstr.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/karpenter.pb.h"

namespace karpenter::budget {

inline constexpr absl::string_view kDisruptionRateAnnotation =
    "budget.karpenter-sdk.dev/disruption-rate";
inline constexpr absl::string_view kDisruptionCapacityAnnotation =
    "budget.karpenter-sdk.dev/disruption-capacity";

// ---------------------------------------------------------------------------
// Configuration.

// At most `max_disruptions` node disruptions started within any rolling
// `window`.
struct RateBudgetSpec {
  // >= 0; 0 allows no disruption at all.
  int64_t max_disruptions = 0;
  // > 0 and finite.
  absl::Duration window = absl::Hours(1);
};

enum class CapacityResource { kCpu, kMemory };

// "cpu" or "memory".
absl::string_view CapacityResourceName(CapacityResource resource);

// Nodes disrupting at once may hold at most `amount` of the NodePool's
// allocatable `resource`.
struct CapacityBudgetSpec {
  CapacityResource resource = CapacityResource::kCpu;
  // A percentage 0..100 of the pool's total allocatable, or an absolute
  // amount >= 0 in the resource's unit: millicores for cpu, bytes for
  // memory (IntOrPercent::FromInt(8000) is 8 CPUs).
  IntOrPercent amount = IntOrPercent::FromPercent(10);
};

// Checks a host-built spec. Errors: InvalidArgument naming the field and
// quoting the value: `max_disruptions: "-1": must be >= 0`,
// `window: "0s": must be positive` (also for an infinite window).
absl::Status ValidateRateBudget(const RateBudgetSpec& spec);

// Errors: InvalidArgument `amount: "150%": must be between 0% and 100%` or
// `amount: "-1": must be >= 0`.
absl::Status ValidateCapacityBudget(const CapacityBudgetSpec& spec);

// Parses the rate form "<N>/<window>": N is ASCII digits (no sign, no
// spaces), the window a Go duration (ParseGoDuration) that must be
// positive. "3/1h", "0/30m", "10/1h30m".
//
// Errors, each `<field>: "<text>": <problem>` (field omitted when empty):
//   * InvalidArgument: no single '/' (`must be <count>/<window>, e.g.
//     "3/1h"`), a count that is not digits (`count must be a non-negative
//     integer`), a bad window (`window: time: unknown unit "d" in duration
//     "1d"`), a window <= 0 (`window must be positive`);
//   * OutOfRange: a count beyond int64 (`count overflows int64`).
absl::StatusOr<RateBudgetSpec> ParseRateBudget(absl::string_view text,
                                               absl::string_view field = "");

// Parses the capacity form "<resource>=<amount>": resource "cpu" or
// "memory"; amount "<0..100>%" (ASCII digits) or a Kubernetes quantity
// ("8", "500m", "64Gi"; ParseQuantityMilli), which must be >= 0. Absolute
// amounts become millicores for cpu and bytes for memory (a fraction of a
// byte rounds up, as Quantity.Value() does).
//
// Errors, each `<field>: "<text>": <problem>`:
//   * InvalidArgument: no '=' (`must be <resource>=<amount>, e.g.
//     "cpu=20%"`), another resource (`resource must be cpu or memory`), a
//     bad percentage (`percent must be an integer between 0% and 100%`), a
//     negative amount (`amount: must be >= 0`), a malformed quantity
//     (`amount: ` and ParseQuantityMilli's message);
//   * OutOfRange: a quantity beyond int64 milli-units (`amount: quantity
//     "8Ei" does not fit in int64 milli-units`).
absl::StatusOr<CapacityBudgetSpec> ParseCapacityBudget(
    absl::string_view text, absl::string_view field = "");

// "3/1h" (the window in Go duration form without trailing zero units).
std::string FormatRateBudget(const RateBudgetSpec& spec);
// "cpu=20%", "cpu=8", "cpu=500m", "memory=64Gi", "memory=1000".
std::string FormatCapacityBudget(const CapacityBudgetSpec& spec);

// The extensions a NodePool opts into; nullopt = off (no limit).
struct BudgetExtensions {
  std::optional<RateBudgetSpec> rate;
  std::optional<CapacityBudgetSpec> capacity;
};

// Reads kDisruptionRateAnnotation and kDisruptionCapacityAnnotation from
// `node_pool.metadata.annotations`. Absent annotations leave the extension
// off; an empty value is an error, not "off".
//
// Errors: every problem of both annotations, one per line, each as
// `metadata.annotations["<key>"]: "<value>": <problem>`. The code is
// InvalidArgument, or OutOfRange when every problem is an overflow.
absl::StatusOr<BudgetExtensions> ParseBudgetExtensions(
    const v1::NodePool& node_pool);

// ---------------------------------------------------------------------------
// Rate budget.

// A rate budget evaluated at one instant.
struct RateAllowance {
  RateBudgetSpec spec;
  absl::Time now;
  // Disruptions recorded in (now - window, now]: one that started exactly
  // `window` ago no longer counts; one recorded after `now` does not count
  // yet.
  int64_t in_window = 0;
  // max(max_disruptions - in_window, 0).
  int64_t remaining = 0;
  // The earliest instant >= now at which `remaining` is positive if nothing
  // else is recorded: `now` when remaining > 0; InfiniteFuture when
  // max_disruptions is 0; otherwise the (in_window - max + 1)-th oldest
  // counted start plus the window.
  absl::Time next_slot = absl::InfiniteFuture();
  // E.g. at 10:00 `rate 3/1h: 3 disruptions since 2026-11-22T09:00:00Z, 0
  // remaining, next slot at 2026-11-22T10:10:00Z` ("since" is the window's
  // exclusive start, now - window).
  std::string why;
};

// Disruption start instants per NodePool, de-duplicated by node name: a
// node recorded twice keeps its earliest instant (re-recording the same
// disruption on every pass is harmless). Entries are kept sorted by time,
// so evaluation is O(log n) per NodePool; recording in time order is
// amortised O(1), out of order O(log n) plus a vector move.
//
// A node name reused for a new node within the window counts once; call
// Prune to forget entries older than the longest window in use.
class DisruptionLedger {
 public:
  // Records that `node_name` of `node_pool` started disrupting at `at`.
  // Returns true if the ledger changed (a new node, or an earlier instant
  // for a known one).
  //
  // Errors: InvalidArgument for an empty `node_pool` or `node_name`, or an
  // infinite `at` (the ledger is unchanged).
  absl::StatusOr<bool> Record(absl::string_view node_pool,
                              absl::string_view node_name, absl::Time at);

  // Records every NodeClaim of `snapshot` that has a deletionTimestamp as a
  // disruption of its node (`status.nodeName`) in its NodePool (label
  // karpenter.sh/nodepool) started at that timestamp. NodeClaims without a
  // NodePool label or without a node name (never registered: no node was
  // disrupted) are skipped. Only disruptions still in flight are visible in
  // a snapshot; completed ones need the host's own records. Several
  // deleting NodeClaims of one node count once, at the earliest timestamp.
  // O((claims + entries) log). Returns how many (NodePool, node) entries
  // were added or moved earlier; seeding again from the same snapshot
  // returns 0.
  int64_t Seed(const snapshot::Snapshot& snapshot);

  // Forgets every entry that started at or before `cutoff` (call with
  // now - longest window). Returns how many were removed.
  int64_t Prune(absl::Time cutoff);

  // The rate budget `spec` of `node_pool` at `now`. A NodePool without
  // entries has none in its window. Never fails: an invalid `spec` (see
  // ValidateRateBudget) fails closed to 0 remaining, explained in `why`.
  RateAllowance Evaluate(absl::string_view node_pool,
                         const RateBudgetSpec& spec, absl::Time now) const;

  // Entries held for `node_pool`.
  size_t size(absl::string_view node_pool) const;

 private:
  struct Pool {
    // (start, node name), sorted.
    std::vector<std::pair<absl::Time, std::string>> entries;
    // Lookup only: node name -> start.
    absl::flat_hash_map<std::string, absl::Time> start_of;
  };
  bool Insert(Pool& pool, absl::string_view node_name, absl::Time at);

  // Lookup only (never iterated into outputs).
  absl::flat_hash_map<std::string, Pool> pools_;
};

// Karpenter's remaining disruptions for `reason` (budget.remaining, i.e.
// after subtracting nodes already disrupting) combined with a rate budget:
// the minimum of the two.
struct CombinedAllowance {
  int64_t remaining = 0;
  // True when the rate budget is strictly lower than the NodePool budget
  // (on a tie the NodePool budget is named).
  bool rate_limits = false;
  // The limiting side's explanation, then the other's number, e.g.
  // `rate 3/1h: 3 disruptions since ..., 0 remaining, next slot at ...;
  // NodePool budget allows 4` or `NodePool budget: budgets[0] nodes "10%"
  // of 10 nodes = 1, 0 disrupting, 1 remaining; rate 3/1h allows 3`.
  std::string why;
};

// min(budget.remaining[reason], rate->remaining); with no rate (nullopt)
// the NodePool budget's remaining unchanged.
CombinedAllowance CombineWithRate(const NodePoolBudget& budget,
                                  DisruptionReason reason,
                                  const std::optional<RateAllowance>& rate);

// ---------------------------------------------------------------------------
// Capacity-weighted budget.

// The verdict of CapacityEvaluation::CanDisrupt.
struct CapacityVerdict {
  bool allowed = true;
  // Capacity the candidates add: the allocatable of those not already
  // disrupting (an already disrupting node is counted in `disrupting`).
  int64_t cost = 0;
  std::string why;
};

// The result of CapacityEvaluation::LongestFittingPrefix.
struct CapacityPrefix {
  // The first `length` candidates fit together.
  size_t length = 0;
  int64_t cost = 0;
  std::string why;
};

// One NodePool's capacity budget over one Snapshot. Units: millicores for
// cpu, bytes for memory.
//
// Fail-closed rule: if any counted node of the pool lacks
// `status.allocatable[resource]`, or has an unparsable or negative one, the
// pool's capacity is unknown and the budget allows nothing (allowance and
// remaining 0, every non-empty candidate set refused), naming the first
// such node in snapshot order in `why`. Guessing a size (e.g. the largest
// sibling) would still let a wrong total inflate the allowance.
class CapacityEvaluation {
 public:
  const std::string& node_pool() const { return node_pool_; }
  const CapacityBudgetSpec& spec() const { return spec_; }
  // Allocatable over the pool's counted nodes.
  int64_t total() const { return total_; }
  // Allocatable of the counted nodes already disrupting.
  int64_t disrupting() const { return disrupting_; }
  // A percentage of total rounded UP to the unit (millicore or byte), or
  // the absolute amount as given.
  int64_t allowance() const { return allowance_; }
  // max(allowance - disrupting, 0).
  int64_t remaining() const { return remaining_; }
  bool fail_closed() const { return fail_closed_; }
  // E.g. `capacity cpu=10%: allowance 11.4 of 114 (10% rounded up to the
  // millicore), 0 disrupting, 11.4 remaining` (amounts as quantities: cpu
  // in cores, memory in bytes or the largest exact binary unit).
  const std::string& why() const { return why_; }

  // Whether disrupting `candidates` (indexes into the snapshot's nodes();
  // duplicates count once) keeps disrupting + cost <= allowance. Adding no
  // capacity (no candidate, or only already disrupting ones) is always
  // allowed unless the pool failed closed.
  //
  // Errors: InvalidArgument quoting an index that is not a counted node of
  // this NodePool (out of range, another pool, or not counted).
  absl::StatusOr<CapacityVerdict> CanDisrupt(
      absl::Span<const snapshot::NodeIndex> candidates) const;
  // Same by node name. Errors: NotFound quoting a name `snapshot` (the one
  // evaluated) does not hold; otherwise as above.
  absl::StatusOr<CapacityVerdict> CanDisrupt(
      const snapshot::Snapshot& snapshot,
      absl::Span<const std::string> candidates) const;

  // The longest prefix of `candidates`, in the caller's order, that
  // CanDisrupt would allow (greedy: it stops at the first candidate that
  // does not fit, so the caller's priority order is kept). Errors as
  // CanDisrupt, for any candidate.
  absl::StatusOr<CapacityPrefix> LongestFittingPrefix(
      absl::Span<const snapshot::NodeIndex> candidates) const;

 private:
  friend class CapacityBook;
  struct Member {
    snapshot::NodeIndex node;
    std::string name;
    int64_t amount;  // 0 when unreadable (the pool then fails closed).
    bool disrupting;
  };
  // The member at node index `n`, or InvalidArgument.
  absl::StatusOr<const Member*> Find(snapshot::NodeIndex n) const;
  std::string Explain(int64_t cost) const;

  std::string node_pool_;
  CapacityBudgetSpec spec_;
  int64_t total_ = 0;
  int64_t disrupting_ = 0;
  int64_t allowance_ = 0;
  int64_t remaining_ = 0;
  bool fail_closed_ = false;
  std::string why_;
  // Sorted by node index.
  std::vector<Member> members_;
};

// Every counted node's cpu and memory allocatable, grouped by NodePool, so
// that evaluating a pool costs O(its nodes). Build once per Snapshot.
class CapacityBook {
 public:
  // One pass over the snapshot's nodes. Never fails: unreadable allocatable
  // values are kept as errors and fail their pool closed.
  static CapacityBook Build(const snapshot::Snapshot& snapshot);

  // `spec` over NodePool `node_pool`.
  //
  // Errors: NotFound for a NodePool the snapshot does not hold;
  // InvalidArgument for an invalid spec (ValidateCapacityBudget); OutOfRange
  // if the pool's total overflows int64.
  absl::StatusOr<CapacityEvaluation> Evaluate(
      absl::string_view node_pool, const CapacityBudgetSpec& spec) const;

 private:
  struct Node {
    snapshot::NodeIndex node;
    std::string name;
    bool disrupting;
    // Indexed by CapacityResource; an error names the node and field.
    std::array<absl::StatusOr<int64_t>, 2> amount;
  };
  // Lookup only: NodePool name -> position in `nodes_`.
  absl::flat_hash_map<std::string, size_t> index_;
  // Per NodePool (snapshot order), its counted nodes in snapshot order.
  std::vector<std::vector<Node>> nodes_;
};

}  // namespace karpenter::budget

#endif  // KARPENTER_BUDGET_EXTENSIONS_H_
