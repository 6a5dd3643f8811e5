// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The two kube-scheduler Filter plugins that count other pods:
// PodTopologySpread and InterPodAffinity, over a Snapshot, with the counts
// changing as a simulation removes nodes and moves pods.
//
// Ports k8s.io/kubernetes pkg/scheduler/framework/plugins:
//   - podtopologyspread/common.go + filtering.go: only DoNotSchedule
//     constraints filter; the pods counted are the non-terminating pods of
//     the incoming pod's namespace that the constraint's selector (ANDed
//     with `key in (<pod's value>)` for each matchLabelKeys key the pod
//     has) selects; a node counts (is part of a domain) when it carries
//     every constraint's topology key and passes the constraint's node
//     inclusion policies (nodeAffinityPolicy Honor, the default: the pod's
//     nodeSelector and required node affinity; nodeTaintsPolicy Honor: the
//     pod tolerates the node's NoSchedule and NoExecute taints; the default
//     Ignore counts tainted nodes). On a node, constraint after constraint
//     in the pod's order, the first failure answering: missing the
//     constraint's key is UnschedulableAndUnresolvable ("... (missing
//     required label)"); else skew = matching pods in the node's domain +
//     (1 if the pod matches its own selector) - the minimum over every
//     domain (0 when there are fewer domains than minDomains), and skew >
//     maxSkew is Unschedulable.
//   - interpodaffinity/filtering.go: the pod's required affinity (some pod
//     matching every term in the node's domain of each term's key; the node
//     must carry every key; the first-pod exception when no pod anywhere
//     matches every term and the pod matches its own terms), then its
//     required anti-affinity (no matching pod in the node's domain of the
//     term's key), then the required anti-affinity of pods already placed
//     against it (a term of an existing pod that selects the incoming pod
//     blocks every node sharing that pod's node's value of the term's key).
//     Terminating pods count here, unlike for spread. A term's namespaces:
//     its list, ORed with its namespaceSelector; neither: the namespace of
//     the pod the term belongs to.
//
// And their Score plugins, which kube-scheduler's default profile weighs 2
// each (TopologyState::PodTopologySpreadScore, InterPodAffinityScore):
//   - podtopologyspread/scoring.go: the pod's ScheduleAnyway constraints;
//     a pod with no constraints at all gets the system defaults
//     (kubernetes.io/hostname maxSkew 3, topology.kubernetes.io/zone
//     maxSkew 5) over the pods of its controller (see below), and none
//     without one. With the pod's own constraints a feasible node lacking
//     any constraint's key is ignored (scores 0); with the defaults it is
//     not. A domain's count is the matching non-terminating pods on the
//     nodes of that domain that pass the constraint's inclusion policies
//     (and carry every key, with the pod's own constraints); for hostname,
//     the matching pods on the node itself. A node scores
//     sum(count * ln(domains among feasible nodes + 2) + maxSkew - 1),
//     rounded, over the constraints whose key it has; normalized as
//     100 * (max + min - score) / max (100 everywhere when max is 0).
//   - interpodaffinity/scoring.go: per topology domain, +weight for each
//     pod matching one of the pod's preferred affinity terms, -weight for
//     its preferred anti-affinity terms, +1 (hardPodAffinityWeight) for
//     each existing pod whose required affinity term selects the pod, and
//     +/-weight for existing pods' preferred (anti-)affinity terms that
//     select it; terminating pods count. A node scores the sum over the
//     domains it is in, normalized as 100 * (score - min) / (max - min)
//     (0 everywhere when max == min); skipped when no term matched.
//
// The system default constraints select, in kube-scheduler, the pods that
// the Services selecting the pod and its controlling ReplicaSet,
// StatefulSet or ReplicationController select (helper.DefaultSelector).
// Those objects are not in a snapshot: the SDK takes the pods with the same
// controller (kind and name, in the pod's namespace), which is the same set
// while the controller's selector is its own; a pod with another
// controller, or none, gets no default spreading (kube-scheduler would
// spread it over the pods of its Services).
//
// What is not read: Namespace objects. A namespaceSelector is matched
// against the one label every namespace carries,
// `kubernetes.io/metadata.name`; `{}` selects every namespace. A selector on
// any other namespace label makes CompilePodConstraints fail with
// kUnimplemented rather than guess; in the required anti-affinity of a pod
// already placed (TopologyIndex, AddPod) such a term is taken to select
// every namespace, so that the pod keeps away at least the pods
// kube-scheduler would keep away.
//
// The pods that count are the snapshot's bound, non-terminal pods (terminal
// pods have left kube-scheduler's cache), moved by TopologyState. Incoming
// pods are snapshot pods too (pending or bound; a bound one is first
// removed with RemovePod, so that it never counts against itself).
//
// Thread-safety: TopologyIndex is immutable after Build apart from lazily
// filled caches guarded by a mutex, so one index serves concurrent
// simulations; a TopologyState belongs to one thread.
#ifndef KARPENTER_SCHEDULING_POD_TOPOLOGY_H_
#define KARPENTER_SCHEDULING_POD_TOPOLOGY_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "karpenter/scheduling/filter_status.h"
#include "karpenter/selector.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/core.pb.h"

namespace karpenter::scheduling {

using snapshot::NodeIndex;
using snapshot::PodIndex;

// Which pods a constraint or term counts: those whose labels `selector`
// selects, in any namespace when `all_namespaces`, else in one of
// `namespaces` (sorted, unique) or in a namespace `namespace_selector`
// selects (matched against the namespace's kubernetes.io/metadata.name
// label); and, when `controller_kind` is set, whose controller owner
// reference has that kind and `controller_name`.
struct PodSelectorClause {
  bool all_namespaces = false;
  std::vector<std::string> namespaces;
  std::optional<LabelSelector> namespace_selector;
  LabelSelector selector;
  std::string controller_kind;
  std::string controller_name;

  bool MatchesNamespace(absl::string_view ns) const;
  // Whether the pod with this metadata is counted.
  bool Matches(const v1::ObjectMeta& pod) const;
  // A deterministic text that is equal exactly for equal clauses.
  std::string Key() const;
};

// One DoNotSchedule topology spread constraint.
struct SpreadConstraint {
  int32_t max_skew = 1;
  std::string topology_key;
  int32_t min_domains = 1;  // 1 when unset.
  bool honor_node_affinity = true;
  bool honor_node_taints = false;
  PodSelectorClause pods;   // The pod's own namespace.
  bool self_match = false;  // The pod matches `pods`.
};

// One required pod (anti-)affinity term, its namespaces resolved.
struct AffinityTerm {
  PodSelectorClause pods;
  std::string topology_key;
};

// A pod's constraints that count other pods.
struct PodConstraints {
  std::vector<SpreadConstraint> spread;  // DoNotSchedule only.
  std::vector<AffinityTerm> affinity;
  std::vector<AffinityTerm> anti_affinity;
  // The pod matches every one of its own affinity terms.
  bool self_matches_affinity = false;
  // The pod has a nodeSelector or required node affinity: without either,
  // nodeAffinityPolicy Honor admits every node and is not evaluated.
  bool has_node_affinity = false;
  // ScheduleAnyway constraints and preferred terms only score: see
  // CompilePodScoring.

  bool empty() const {
    return spread.empty() && affinity.empty() && anti_affinity.empty();
  }
};

// A preferred pod (anti-)affinity term and its weight (1..100).
struct WeightedTerm {
  AffinityTerm term;
  int32_t weight = 0;
};

// What the two Score plugins read of an incoming pod.
struct PodScoring {
  // The ScheduleAnyway constraints (their inclusion policies as for the
  // filter; min_domains and self_match unused), or the system defaults.
  std::vector<SpreadConstraint> spread;
  bool system_defaults = false;
  std::vector<WeightedTerm> preferred_affinity;
  std::vector<WeightedTerm> preferred_anti_affinity;
  // As PodConstraints::has_node_affinity.
  bool has_node_affinity = false;
};

// Compiles what `pod` is scored by: its ScheduleAnyway constraints (or the
// system defaults) and its preferred pod (anti-)affinity terms.
//
// Errors: those of CompilePodConstraints for the same fields, and
// InvalidArgument for a preferred term's weight outside 1..100, e.g.
// `spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight:
// must be in the range 1-100, got 0`.
absl::StatusOr<PodScoring> CompilePodScoring(const v1::Pod& pod);

// Compiles `pod`'s topology spread constraints and required pod
// (anti-)affinity terms.
//
// Errors (InvalidArgument, naming the field and quoting the value):
// maxSkew < 1, an empty topologyKey, whenUnsatisfiable other than
// DoNotSchedule / ScheduleAnyway (empty: DoNotSchedule), minDomains < 1,
// a policy other than Honor / Ignore, an invalid label selector, e.g.
// `spec.topologySpreadConstraints[0].maxSkew: must be greater than zero,
// got 0`. kUnimplemented for a namespaceSelector on labels other than
// kubernetes.io/metadata.name.
absl::StatusOr<PodConstraints> CompilePodConstraints(const v1::Pod& pod);

// The required anti-affinity terms of `pod` alone (what the pod imposes on
// pods that come after it). Errors as CompilePodConstraints.
absl::StatusOr<std::vector<AffinityTerm>> CompileAntiAffinityTerms(
    const v1::Pod& pod);

// Per-snapshot tables the two plugins share: each topology key's domains,
// the pods of each namespace, the members of each selector group, and the
// pods carrying required anti-affinity terms.
class TopologyIndex {
 public:
  // O(pods). Never fails: a bound pod's anti-affinity terms that do not
  // compile (CompilePodConstraints' InvalidArgument errors; the API server
  // would have refused the pod) are left out, and that pod's own
  // constraints are reported by whoever compiles them. A term whose
  // namespaceSelector cannot be evaluated is widened to every namespace
  // (see the file comment).
  static std::unique_ptr<TopologyIndex> Build(
      const snapshot::Snapshot& snapshot);
  // The same index, reading what `from` read of a shape (its phase,
  // deletionTimestamp and whether it has required anti-affinity terms)
  // instead of reading the shape again: `same_shapes` maps each shape id
  // of `snapshot` to the id of the same shape object in from's snapshot,
  // or to 0xFFFFFFFF (snapshot::internal::SnapshotParts::SameShapes). With
  // `from` null or `same_shapes` not one entry per shape, as Build(snapshot).
  // The result equals Build(snapshot).
  static std::unique_ptr<TopologyIndex> Build(
      const snapshot::Snapshot& snapshot, const TopologyIndex* from,
      absl::Span<const uint32_t> same_shapes);

  // Node -> dense domain id for one topology key (-1: no such label).
  struct Domains {
    std::vector<int32_t> of_node;
    std::vector<std::string> values;  // By domain id.
  };
  const Domains& DomainsOf(absl::string_view key) const;

  // The pods a group selects, ascending: bound, non-terminal pods matching
  // every clause (and not terminating unless `with_terminating`).
  const std::vector<PodIndex>& Members(
      absl::Span<const PodSelectorClause* const> clauses,
      bool with_terminating) const;

  // A required anti-affinity term carried by existing pods.
  struct HolderGroup {
    AffinityTerm term;
    std::vector<PodIndex> holders;  // Bound, non-terminal, ascending.
  };
  absl::Span<const HolderGroup> holder_groups() const { return holders_; }
  // The holder groups whose term selects pods shaped like `p`.
  const std::vector<int32_t>& HolderGroupsSelecting(PodIndex p) const;
  // The anti-affinity terms pod `p` carries (empty if none or if they do
  // not compile); index into holder_groups() by term.
  absl::Span<const int32_t> HolderGroupsOf(PodIndex p) const;

  // The counted pods whose own terms score pods placed after them
  // (InterPodAffinity's Score), grouped by shape: the terms with signed
  // weights (required affinity +1, preferred affinity +weight, preferred
  // anti-affinity -weight) and the pods. Terms that do not compile are
  // left out. Built on first use.
  struct ScoringHolders {
    std::vector<WeightedTerm> terms;
    std::vector<PodIndex> pods;  // Ascending.
  };
  const std::vector<ScoringHolders>& scoring_holders() const;

  const snapshot::Snapshot& snapshot() const { return *snap_; }
  // Counted: bound and not terminal.
  bool Counted(PodIndex p) const { return (flags_[p] & kCounted) != 0; }
  bool Terminating(PodIndex p) const { return (flags_[p] & kTerm) != 0; }

  ~TopologyIndex();

 private:
  TopologyIndex() = default;
  static constexpr uint8_t kCounted = 1;
  static constexpr uint8_t kTerm = 2;

  const snapshot::Snapshot* snap_ = nullptr;
  std::vector<uint8_t> flags_;
  // By shape id: what Build read of the shape (ShapeFlag bits in
  // pod_topology.cc), 0 for a shape no pod was read of.
  std::vector<uint8_t> shape_flags_;
  // CSR by NamespaceId: the counted pods.
  std::vector<uint32_t> ns_offsets_;
  std::vector<PodIndex> ns_pods_;
  std::vector<HolderGroup> holders_;
  // By shape id: -1, or the index in shape_terms_ of the holder groups of
  // the shape's own terms (a counted pod's are its shape's).
  std::vector<int32_t> shape_terms_of_;
  std::vector<std::vector<int32_t>> shape_terms_;

  struct Caches;
  std::unique_ptr<Caches> caches_;
};

// One incoming pod, as the plugins read it.
struct IncomingPod {
  PodIndex pod = 0;
  const PodConstraints* constraints = nullptr;
  // The pod's nodeSelector and required node affinity admit node n
  // (nodeAffinityPolicy Honor).
  absl::FunctionRef<bool(NodeIndex)> matches_node_affinity;
  // The pod tolerates n's NoSchedule and NoExecute taints
  // (nodeTaintsPolicy Honor).
  absl::FunctionRef<bool(NodeIndex)> tolerates_node_taints;
  // Which of the pod's constraint sets `constraints` is, when a caller
  // evaluates the same pod under several (e.g. preferences treated as
  // required, then relaxed): cached counts are kept apart by it.
  uint32_t variant = 0;
};

// The cluster as one simulation has changed it: nodes removed, pods moved.
// Filters answer for that state.
class TopologyState {
 public:
  explicit TopologyState(const TopologyIndex& index);
  ~TopologyState();

  // The node is gone: it is no domain and its pods do not count.
  void RemoveNode(NodeIndex n);
  // A pod leaves its node (it is moving, or being asked about).
  void RemovePod(PodIndex p);
  // A pod (bound elsewhere, or pending) is placed on `n`; it counts there
  // from now on, as a pod that is not terminating (it stands for the pod
  // scheduled there), and its anti-affinity terms apply to later pods.
  void AddPod(PodIndex p, NodeIndex n);

  // PodTopologySpread's Filter for `pod` on node `n`; nullopt if it passes.
  std::optional<FilterFailure> PodTopologySpread(const IncomingPod& pod,
                                                 NodeIndex n);
  // InterPodAffinity's Filter: the first failing check, as kube-scheduler.
  std::optional<FilterFailure> InterPodAffinity(const IncomingPod& pod,
                                                NodeIndex n);
  // PodTopologySpread's Score and NormalizeScore for `pod`, compiled as
  // `scoring`, over the nodes that passed the filters: one score in
  // [0, 100] per node of `feasible`, in its order; empty when the plugin
  // is skipped (no constraint applies). See the file comment.
  std::vector<int64_t> PodTopologySpreadScore(
      const IncomingPod& pod, const PodScoring& scoring,
      absl::Span<const NodeIndex> feasible);
  // InterPodAffinity's Score and NormalizeScore, as above.
  std::vector<int64_t> InterPodAffinityScore(
      const IncomingPod& pod, const PodScoring& scoring,
      absl::Span<const NodeIndex> feasible);

  // A topology key other than kubernetes.io/hostname on which the required
  // anti-affinity of pods counted now (existing or added) keeps `pod` out
  // of at least one domain, or nullopt. A new node escapes hostname terms
  // (its hostname is new) but not these: it would have to be placed
  // outside the blocked domains.
  std::optional<std::string> ExistingAntiAffinityKey(const IncomingPod& pod);

  // The counts behind the two filters, by domain value, for placing `pod`
  // on a node that does not exist yet (Karpenter's topology.go works on
  // domain values, not nodes). Each list is sorted by value.
  //
  // Spread constraint `i` of the pod: every domain that exists (some node
  // of it counts under the constraint's inclusion policies) with the
  // matching pods in it.
  std::vector<std::pair<std::string, int32_t>> SpreadDomainCounts(
      const IncomingPod& pod, size_t i);
  // Required affinity term `i`: the domains where pods matching every
  // affinity term of the pod are, with their number.
  std::vector<std::pair<std::string, int32_t>> AffinityDomainCounts(
      const IncomingPod& pod, size_t i);
  // Whether any pod anywhere matches every affinity term of the pod.
  bool AnyAffinityMatch(const IncomingPod& pod);
  // Required anti-affinity term `i`: the domains where pods it selects are.
  std::vector<std::pair<std::string, int32_t>> AntiAffinityDomainCounts(
      const IncomingPod& pod, size_t i);
  // Per topology key, sorted: the domains that the required anti-affinity
  // of pods counted now (existing or added) keeps `pod` out of.
  std::vector<std::pair<std::string, std::vector<std::string>>> BlockedDomains(
      const IncomingPod& pod);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace karpenter::scheduling

#endif  // KARPENTER_SCHEDULING_POD_TOPOLOGY_H_
