// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Node disruption budgets: "keep at least N (or N%) of the nodes a selector
// picks available" (minAvailable) or "let at most N (or N%) of them be
// unavailable" (maxUnavailable), and the check that a set of node deletions
// keeps every such budget.
//
// There is no Karpenter object for this yet (it comes from the seed
// designs); the arithmetic ports the Kubernetes PodDisruptionBudget rules of
// pkg/controller/disruption/disruption.go `getExpectedScale` /
// `updatePdbStatus` and k8s.io/apimachinery/pkg/util/intstr
// `GetScaledValueFromIntOrPercent`, applied to nodes instead of pods:
//   * selected = nodes the selector matches; available = selected nodes
//     with condition Ready exactly "True" and no metadata.deletionTimestamp
//     (NotReady, Unknown, a missing Ready condition and deleting nodes are
//     unavailable); unavailable = selected - available;
//   * minAvailable percent rounds UP over selected (10 nodes at 75% -> 8
//     must stay available); maxUnavailable percent rounds UP over selected
//     (10 nodes at 25% -> 3 may be unavailable);
//   * allowed deletions = max(available - minAvailable, 0), or
//     max(maxUnavailable - unavailable, 0).
//
// Deliberate differences from PDBs, each on purpose:
//   * A null OR an empty (`{}`) selector selects NO node. For a PDB an empty
//     selector selects every pod of its namespace (LabelSelector::FromProto);
//     for a cluster-wide node budget that would silently put every node
//     under one budget, so a budget must name its nodes.
//   * Integers are not capped by the selected count (as Kubernetes), so
//     minAvailable 5 over 3 nodes allows no deletion.
//   * CanDelete keeps the thresholds computed before the deletion (the
//     deleted nodes still count in `selected`), as an eviction is checked
//     against the PDB status of the moment.
//
// Thread-safety: NodeDisruptionBudget and NodeBudgetEvaluation are immutable
// values once built; const methods may be called concurrently.

#ifndef KARPENTER_BUDGET_NODE_BUDGET_H_
#define KARPENTER_BUDGET_NODE_BUDGET_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "karpenter/intstr.h"
#include "karpenter/selector.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/meta.pb.h"

namespace karpenter::budget {

// The host-built input form of a node disruption budget. Set exactly one
// of `min_available` and `max_unavailable`; build the amounts with
// IntOrPercent::FromInt / FromPercent, IntOrPercent::Parse("25%") or
// IntOrPercent::FromProtoValue for JSON input.
struct NodeDisruptionBudgetSpec {
  // Non-empty; names the budget in errors and verdicts.
  std::string name;
  // nullopt (null) and an empty selector both select no node.
  std::optional<v1::LabelSelector> selector;
  std::optional<IntOrPercent> min_available;
  std::optional<IntOrPercent> max_unavailable;
};

// A validated node disruption budget.
class NodeDisruptionBudget {
 public:
  // Validates `spec`. Errors are InvalidArgument, prefixed with
  // `node disruption budget "<name>": ` and naming the field:
  //   * `name: must be non-empty`;
  //   * `spec: exactly one of minAvailable and maxUnavailable must be set`
  //     (neither or both set);
  //   * `spec.minAvailable: "-1": must be >= 0` (likewise maxUnavailable);
  //   * `spec.maxUnavailable: "150%": must be between 0% and 100%`;
  //   * `spec.selector...`: an invalid selector (see LabelSelector::FromProto).
  static absl::StatusOr<NodeDisruptionBudget> FromSpec(
      const NodeDisruptionBudgetSpec& spec);

  const std::string& name() const { return name_; }
  // Nothing() for a null or empty selector.
  const LabelSelector& selector() const { return selector_; }
  // True for the minAvailable form, false for maxUnavailable.
  bool is_min_available() const { return is_min_available_; }
  // The minAvailable or maxUnavailable amount.
  const IntOrPercent& amount() const { return amount_; }

  // True if the budget selects `node` (by its labels).
  bool Selects(const v1::Node& node) const;

 private:
  std::string name_;
  LabelSelector selector_;
  bool is_min_available_ = true;
  IntOrPercent amount_;
};

// One budget evaluated over a snapshot.
struct NodeBudgetStatus {
  std::string name;
  int64_t selected = 0;
  int64_t available = 0;
  int64_t unavailable = 0;
  // minAvailable form: nodes that must stay available; maxUnavailable form:
  // nodes that may be unavailable. Percentages rounded up over `selected`.
  int64_t threshold = 0;
  int64_t allowed_deletions = 0;
};

// How one budget fares under a proposed deletion.
struct NodeBudgetCheck {
  // Position of the budget in the evaluated list.
  size_t budget = 0;
  std::string name;
  // Deleted nodes this budget selects, and of those the available ones
  // (deleting an unavailable node costs nothing).
  int64_t deleting_selected = 0;
  int64_t deleting_available = 0;
  int64_t allowed_deletions = 0;
  // deleting_available <= allowed_deletions.
  bool holds = true;
  // E.g. `budget "web": minAvailable "75%" of 10 selected nodes = 8; 9
  // available; deleting 2 available nodes would leave 7`.
  std::string why;
};

// The verdict of NodeBudgetEvaluation::CanDelete.
struct NodeDeletionVerdict {
  bool allowed = true;
  // Every budget selecting at least one deleted node, in budget order.
  std::vector<NodeBudgetCheck> checks;
  // Names of the budgets that would break, in budget order.
  std::vector<std::string> violated;
};

// The budgets evaluated over one snapshot.
class NodeBudgetEvaluation {
 public:
  // Evaluates `budgets` over every node of `snapshot` in O(nodes x
  // budgets). Returns OutOfRange only if a scaled amount overflows int64
  // (impossible for validated budgets).
  static absl::StatusOr<NodeBudgetEvaluation> Evaluate(
      const snapshot::Snapshot& snapshot,
      absl::Span<const NodeDisruptionBudget> budgets);

  // Per budget, in the order given to Evaluate.
  absl::Span<const NodeBudgetStatus> statuses() const { return statuses_; }

  // Whether deleting `nodes` (indexes into the evaluated snapshot's nodes();
  // duplicates count once) keeps every budget that selects one of them.
  // Returns InvalidArgument quoting an index that is out of range.
  absl::StatusOr<NodeDeletionVerdict> CanDelete(
      absl::Span<const snapshot::NodeIndex> nodes) const;

  // Same, by node name, looked up in `snapshot` (the one evaluated).
  // Returns NotFound quoting a name the snapshot does not hold.
  absl::StatusOr<NodeDeletionVerdict> CanDelete(
      const snapshot::Snapshot& snapshot,
      absl::Span<const std::string> node_names) const;

 private:
  std::string Explain(size_t b, int64_t deleting_available) const;

  std::vector<NodeDisruptionBudget> budgets_;
  std::vector<NodeBudgetStatus> statuses_;
  size_t node_count_ = 0;
  // Per node: Ready=True and not deleting.
  std::vector<bool> node_available_;
  // selects_[n * budgets + b]: budget b selects node n.
  std::vector<bool> selects_;
};

// True if `node` has condition Ready with status exactly "True" and no
// deletionTimestamp.
bool NodeIsAvailable(const v1::Node& node);

}  // namespace karpenter::budget

#endif  // KARPENTER_BUDGET_NODE_BUDGET_H_
