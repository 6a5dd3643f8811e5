// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Metrics: the host interface through which the SDK reports Prometheus-style
// measurements under Karpenter's metric names and labels
// (pkg/metrics/metrics.go, pkg/controllers/node/termination/metrics.go,
// pkg/controllers/disruption/metrics.go; docs/semantics.md §7.1), so a
// host can register them in its Prometheus registry unchanged and existing
// Karpenter dashboards work.
//
// The names are constants here. A host maps each name to its own collector
// type (counter, gauge, histogram or summary, as the comment next to each
// name says); the SDK only calls the three verbs below.
//
// Thread-safety: implementations must be safe to call from several threads
// at once. `testing::InMemoryMetrics` (karpenter/testing/recorders.h) keeps
// the values in memory.

#ifndef KARPENTER_METRICS_H_
#define KARPENTER_METRICS_H_

#include <functional>
#include <map>
#include <string>

#include "absl/strings/string_view.h"

namespace karpenter {

namespace metrics {
// Counter {nodepool, zone}: Node finalizers removed by termination.
inline constexpr absl::string_view kNodesTerminatedTotal =
    "karpenter_nodes_terminated_total";
// Summary {nodepool}: Node deletionTimestamp to finalizer removal, seconds.
inline constexpr absl::string_view kNodesTerminationDurationSeconds =
    "karpenter_nodes_termination_duration_seconds";
// Histogram {nodepool}: Node creationTimestamp to finalizer removal.
inline constexpr absl::string_view kNodesLifetimeDurationSeconds =
    "karpenter_nodes_lifetime_duration_seconds";
// Counter {nodepool}: Nodes whose Drained condition turned True.
inline constexpr absl::string_view kNodesDrainedTotal =
    "karpenter_nodes_drained_total";
// Counter {code}: eviction requests by HTTP status.
inline constexpr absl::string_view kPodsEvictionRequestsTotal =
    "karpenter_pods_eviction_requests_total";
// Counter {reason}: pods drained (evicted or force-deleted).
inline constexpr absl::string_view kPodsDrainedTotal =
    "karpenter_pods_drained_total";
// Counter {nodepool, capacity_type, zone}: NodeClaim finalizers removed.
inline constexpr absl::string_view kNodeClaimsTerminatedTotal =
    "karpenter_nodeclaims_terminated_total";
// Histogram {nodepool}: NodeClaim deletionTimestamp to finalizer removal.
inline constexpr absl::string_view kNodeClaimsTerminationDurationSeconds =
    "karpenter_nodeclaims_termination_duration_seconds";
// Histogram {nodepool}: first cloud delete to the provider's NotFound.
inline constexpr absl::string_view
    kNodeClaimsInstanceTerminationDurationSeconds =
        "karpenter_nodeclaims_instance_termination_duration_seconds";
// Counter {reason, nodepool, capacity_type, consolidation_policy,
// termination_mode}: NodeClaims disrupted; reasons include
// `registration_timeout`, `launch_timeout`, `garbage_collected`.
inline constexpr absl::string_view kNodeClaimsDisruptedTotal =
    "karpenter_nodeclaims_disrupted_total";
// Counter {condition, nodepool, capacity_type, image_id}: NodeClaims
// deleted by node repair (pkg/controllers/node/health/controller.go).
inline constexpr absl::string_view kNodeClaimsUnhealthyDisruptedTotal =
    "karpenter_nodeclaims_unhealthy_disrupted_total";
// Disruption orchestration (pkg/controllers/disruption/metrics.go,
// queue.go; docs/semantics.md §2.13).
// Counter {decision, reason, consolidation_type}: commands started.
inline constexpr absl::string_view kVoluntaryDisruptionDecisionsTotal =
    "karpenter_voluntary_disruption_decisions_total";
// Counter {nodepool, decision, reason, consolidation_type}: the same, per
// NodePool of the candidates.
inline constexpr absl::string_view
    kVoluntaryDisruptionDecisionsByNodePoolTotal =
        "karpenter_voluntary_disruption_decisions_by_nodepool_total";
// Counter {decision, reason, consolidation_type}: uninitialised
// replacements of commands rolled back.
inline constexpr absl::string_view kVoluntaryDisruptionQueueFailuresTotal =
    "karpenter_voluntary_disruption_queue_failures_total";
// Gauge {reason}: candidates a disruption method found eligible in its last
// run (after its own filter): reason `empty`, `drifted` or
// `underutilized` (controller.go `disrupt`).
inline constexpr absl::string_view kVoluntaryDisruptionEligibleNodes =
    "karpenter_voluntary_disruption_eligible_nodes";
// Counter {consolidation_type}: candidates of commands that failed their
// re-validation for churn or budgets (validation.go; v1.5).
inline constexpr absl::string_view kVoluntaryDisruptionFailedValidationsTotal =
    "karpenter_voluntary_disruption_failed_validations_total";
// Histogram {decision, nodepool, policy}, buckets 0.1, 0.25, 0.33, 0.5, 1,
// 2, 5, 10: the Balanced score of consolidation moves (balanced.go; v1.14).
inline constexpr absl::string_view kConsolidationScore =
    "karpenter_consolidation_score";
// Counter {decision, nodepool, policy}: consolidation moves scored (every
// single-node move, any policy; multi-node once per NodePool of a search's
// outcome).
inline constexpr absl::string_view kConsolidationMovesTotal =
    "karpenter_consolidation_moves_total";
// Counter {reason, nodepool, capacity_type}: reschedulable pods of the
// NodeClaims a disruption deleted.
inline constexpr absl::string_view kPodsDisruptionInitiatedTotal =
    "karpenter_pods_disruption_initiated_total";
// Labels.
inline constexpr absl::string_view kDecisionLabel = "decision";
inline constexpr absl::string_view kConsolidationTypeLabel =
    "consolidation_type";
inline constexpr absl::string_view kNodePoolLabel = "nodepool";
inline constexpr absl::string_view kZoneLabel = "zone";
inline constexpr absl::string_view kCapacityTypeLabel = "capacity_type";
inline constexpr absl::string_view kReasonLabel = "reason";
inline constexpr absl::string_view kCodeLabel = "code";
inline constexpr absl::string_view kConditionLabel = "condition";
inline constexpr absl::string_view kImageIdLabel = "image_id";
inline constexpr absl::string_view kPolicyLabel = "policy";
// Label values of kConsolidationScore and kConsolidationMovesTotal.
inline constexpr absl::string_view kApproved = "approved";
inline constexpr absl::string_view kRejected = "rejected";
// kConsolidationScore's bucket upper bounds (metrics.go).
inline constexpr double kConsolidationScoreBuckets[] = {0.1, 0.25, 0.33, 0.5,
                                                        1.0, 2.0,  5.0,  10.0};
}  // namespace metrics

// Label name -> value. Ordered, so a label set prints and compares
// deterministically.
using MetricLabels = std::map<std::string, std::string, std::less<>>;

// Host interface: no data, virtual destructor, contract per method. None of
// the methods may fail the caller; a host that cannot record drops the
// sample.
class Metrics {
 public:
  virtual ~Metrics() = default;

  // Adds `delta` (>= 0) to counter `name` with `labels`.
  virtual void Add(absl::string_view name, const MetricLabels& labels,
                   double delta) = 0;

  // Sets gauge `name` with `labels` to `value`.
  virtual void Set(absl::string_view name, const MetricLabels& labels,
                   double value) = 0;

  // Records one observation in histogram or summary `name` with `labels`.
  virtual void Observe(absl::string_view name, const MetricLabels& labels,
                       double value) = 0;
};

// One measurement a pure core decided on, for its executor (or a test) to
// hand to a `Metrics`: the decision functions return these instead of
// calling a host interface.
struct MetricSample {
  enum class Kind {
    kAdd,      // Metrics::Add
    kSet,      // Metrics::Set
    kObserve,  // Metrics::Observe
  };
  Kind kind = Kind::kAdd;
  std::string name;
  MetricLabels labels;
  double value = 0;

  friend bool operator==(const MetricSample&, const MetricSample&) = default;
};

// Calls the `Metrics` verb of `sample.kind`.
void Record(const MetricSample& sample, Metrics& metrics);

}  // namespace karpenter

#endif  // KARPENTER_METRICS_H_
