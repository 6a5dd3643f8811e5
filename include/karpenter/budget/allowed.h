// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Allowed disruptions: how many nodes of a NodePool may be disrupted for a
// reason right now, and the per-NodePool mapping over a cluster Snapshot.
//
// Ports `NodePool.GetAllowedDisruptionsByReason`, `MustGetAllowedDisruptions`
// and `Budget.GetAllowedDisruptions` (karpenter pkg/apis/v1/nodepool.go) and
// `BuildDisruptionBudgetMapping` (pkg/controllers/disruption/helpers.go); see
// docs/semantics.md §1.3 and §1.4:
//   * every budget is evaluated (before filtering by reason); any error
//     (bad schedule, or a bad `nodes` value while active) makes the NodePool
//     allow 0 for every reason (fail closed);
//   * an inactive budget allows MaxInt32 (2147483647), as does an explicit
//     empty budget list;
//   * integers are not capped by the node count; percentages round up;
//   * the result is the minimum over budgets whose reasons match.
// Every result carries an explanation: the limiting budget and why.
//
// Deliberate differences: Karpenter also counts nodes marked in memory by
// an in-flight command; a Snapshot has no such marks, so only persisted
// state (deletion timestamps, InstanceTerminating, Ready) counts.
//
// Thread-safety: all functions are pure; results are plain values.
#ifndef KARPENTER_BUDGET_ALLOWED_H_
#define KARPENTER_BUDGET_ALLOWED_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "karpenter/budget/disruption_spec.h"
#include "karpenter/snapshot/snapshot.h"

namespace karpenter::budget {

// Karpenter's "no limit" (math.MaxInt32).
inline constexpr int64_t kUnlimited = 2147483647;

// Allowed disruptions for one reason, with the reason for the number.
struct Allowance {
  int64_t allowed = kUnlimited;
  // The budget that set `allowed`: the first erroring budget when failing
  // closed, else the first active matching budget giving the minimum.
  // nullopt when no active budget matches (allowed is kUnlimited).
  std::optional<size_t> limiting_budget;
  // Human-readable explanation, e.g.
  // `budgets[1] nodes "5%" of 10 nodes = 1` or
  // `fail closed: budgets[2]: schedule: ...` or
  // `no active budget matches Drifted (budgets[0] inactive)`.
  std::string why;
};

// Allowed disruptions for `reason` over `num_nodes` nodes at `now`, before
// subtracting nodes already disrupting. Never fails: errors fail closed to
// 0 and are explained in `why`.
Allowance ExplainAllowedDisruptions(const DisruptionSpec& spec,
                                    DisruptionReason reason, int64_t num_nodes,
                                    absl::Time now);

// `ExplainAllowedDisruptions(...).allowed`.
int64_t AllowedDisruptions(const DisruptionSpec& spec, DisruptionReason reason,
                           int64_t num_nodes, absl::Time now);

// One NodePool of a BudgetMapping.
struct NodePoolBudget {
  std::string node_pool;
  // Managed, initialized, not InstanceTerminating nodes labelled with this
  // NodePool.
  int64_t total_nodes = 0;
  // Of those: Ready not "True" (NotReady, Unknown, missing), or deleting
  // (NodeClaim deletionTimestamp).
  int64_t disrupting_nodes = 0;
  // Spec errors; when non-empty every reason allows 0.
  std::vector<std::string> spec_errors;
  // Indexed by DisruptionReason. `allowed` is before subtracting
  // `disrupting_nodes` (Karpenter's allowed-disruptions gauge).
  std::array<Allowance, 3> by_reason;
  // max(by_reason[r].allowed - disrupting_nodes, 0).
  std::array<int64_t, 3> remaining = {0, 0, 0};
};

class BudgetBook;

// The budgets of every NodePool at one instant (BudgetBook::Evaluate).
class BudgetMapping {
 public:
  // One entry per NodePool, in `snapshot.node_pools()` order.
  std::vector<NodePoolBudget> node_pools;

  // The entry of `node_pool`, or null for a NodePool not in the mapping.
  // O(1); the pointer is valid until `node_pools` changes.
  const NodePoolBudget* Find(absl::string_view node_pool) const;

  // Remaining disruptions for `node_pool` and `reason`; 0 for a NodePool
  // not in the mapping (Karpenter blocks nodes of missing NodePools).
  int64_t Remaining(absl::string_view node_pool, DisruptionReason reason) const;

 private:
  friend class BudgetBook;

  // Lookup only (never iterated): NodePool name -> position.
  absl::flat_hash_map<std::string, size_t> index_;
};

// The time-independent half of a BudgetMapping: every NodePool's spec
// parsed (schedules compiled) and its nodes counted, once per Snapshot, so
// that a mapping at any instant costs only budget evaluation. Build it when
// the Snapshot changes and call Evaluate per disruption pass.
//
// Thread-safety: immutable after Build; Evaluate may run concurrently.
class BudgetBook {
 public:
  // Parses every NodePool of `snapshot` and counts its nodes in one pass. A
  // Node is matched to its NodeClaim by `spec.providerID`, or by NodeClaim
  // `status.nodeName` when the Node has no providerID. Never fails: invalid
  // NodePools keep their errors and evaluate to 0.
  static BudgetBook Build(const snapshot::Snapshot& snapshot,
                          const BudgetOptions& options = {});

  // The mapping at `now`, one entry per NodePool in `snapshot.node_pools()`
  // order: O(NodePools x budgets), no parsing and no pass over nodes.
  BudgetMapping Evaluate(absl::Time now) const;

 private:
  BudgetBook() = default;

  // Names, counts and spec errors; `by_reason`/`remaining` unset.
  std::vector<NodePoolBudget> pools_;
  // Parallel to `pools_`.
  std::vector<absl::StatusOr<DisruptionSpec>> specs_;
  absl::flat_hash_map<std::string, size_t> index_;
};

// `BudgetBook::Build(snapshot, options).Evaluate(now)`: the mapping for
// every NodePool of `snapshot` at `now` in one pass over nodes plus one over
// budgets. Never fails: invalid NodePools allow 0 and list their errors.
BudgetMapping BuildBudgetMapping(const snapshot::Snapshot& snapshot,
                                 absl::Time now,
                                 const BudgetOptions& options = {});

}  // namespace karpenter::budget

#endif  // KARPENTER_BUDGET_ALLOWED_H_
