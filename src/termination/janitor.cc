// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/termination/janitor.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "karpenter/time_util.h"
#include "karpenter/well_known.h"

namespace karpenter::termination {
namespace {

// Records `status` for an action; NotFound is done.
JanitorAction& Record(JanitorResult& result, JanitorActionKind kind,
                      absl::string_view target, absl::string_view reason,
                      absl::Status status) {
  JanitorAction a;
  a.kind = kind;
  a.target = std::string(target);
  a.reason = std::string(reason);
  a.already_gone = absl::IsNotFound(status);
  a.status = a.already_gone ? absl::OkStatus() : std::move(status);
  result.actions.push_back(std::move(a));
  return result.actions.back();
}

// Records `kind` on `target` as skipped because `cause` failed.
void Skip(JanitorResult& result, JanitorActionKind kind,
          absl::string_view target, absl::string_view reason,
          const JanitorAction& cause) {
  Record(result, kind, target, reason,
         absl::FailedPreconditionError(absl::StrCat(
             "not attempted: ", JanitorActionKindName(cause.kind), " \"",
             cause.target, "\" failed: ", cause.status.ToString())));
}

// True if the action was carried out by this call (not already gone).
bool Did(const JanitorAction& a) { return a.status.ok() && !a.already_gone; }

void Emit(EventRecorder& events, absl::string_view kind, absl::string_view name,
          EventType type, absl::string_view reason, std::string message) {
  Event e;
  e.kind = std::string(kind);
  e.name = std::string(name);
  e.type = type;
  e.reason = std::string(reason);
  e.message = std::move(message);
  events.Record(e);
}

void CountDisrupted(Metrics& metrics, absl::string_view reason,
                    absl::string_view node_pool,
                    absl::string_view capacity_type) {
  metrics.Add(
      metrics::kNodeClaimsDisruptedTotal,
      {{std::string(metrics::kReasonLabel), std::string(reason)},
       {std::string(metrics::kNodePoolLabel), std::string(node_pool)},
       {std::string(metrics::kCapacityTypeLabel), std::string(capacity_type)}},
      1);
}

void ApplyDelete(const LivenessVerdict& v, absl::Time now, ClusterView& cluster,
                 EventRecorder& events, Metrics& metrics,
                 JanitorResult& result) {
  const bool repair = v.reason == kReasonUnhealthy;
  if (repair) {
    const JanitorAction& annotate = Record(
        result, JanitorActionKind::kAnnotateNodeClaim, v.node_claim, v.reason,
        cluster.SetAnnotation(
            ObjectKind::kNodeClaim, v.node_claim,
            well_known::kNodeClaimTerminationTimestampAnnotationKey,
            FormatRfc3339(TruncateToSecond(now))));
    if (annotate.already_gone) return;
    if (!annotate.status.ok()) {
      Skip(result, JanitorActionKind::kDeleteNodeClaim, v.node_claim, v.reason,
           annotate);
      return;
    }
  }
  const JanitorAction& del =
      Record(result, JanitorActionKind::kDeleteNodeClaim, v.node_claim,
             v.reason, cluster.DeleteNodeClaim(v.node_claim));
  if (!Did(del)) return;
  CountDisrupted(metrics, v.reason, v.node_pool, v.capacity_type);
  if (repair) {
    metrics.Add(metrics::kNodeClaimsUnhealthyDisruptedTotal,
                {{std::string(metrics::kConditionLabel),
                  std::string(well_known::kConditionTypeReady)},
                 {std::string(metrics::kNodePoolLabel), v.node_pool},
                 {std::string(metrics::kCapacityTypeLabel), v.capacity_type},
                 {std::string(metrics::kImageIdLabel), v.image_id}},
                1);
  }
  Emit(events, "NodeClaim", v.node_claim, EventType::kWarning,
       events::kGarbageCollected,
       absl::StrCat("Deleting NodeClaim: ", v.reason, ": ", v.why));
}

void EmitBlocked(const LivenessVerdict& v, EventRecorder& events) {
  const std::string message = absl::StrCat(
      "Node repair blocked for NodeClaim \"", v.node_claim, "\": ", v.why);
  if (!v.node.empty()) {
    Emit(events, "Node", v.node, EventType::kWarning,
         events::kNodeRepairBlocked, message);
  }
  Emit(events, "NodeClaim", v.node_claim, EventType::kWarning,
       events::kNodeRepairBlocked, message);
  if (!v.node_pool.empty()) {
    Emit(events, "NodePool", v.node_pool, EventType::kWarning,
         events::kNodeRepairBlocked, message);
  }
}

void ApplyInstance(const InstanceVerdict& v, ClusterView& cluster,
                   CloudProvider& cloud, EventRecorder& events,
                   JanitorResult& result) {
  const JanitorAction& del =
      Record(result, JanitorActionKind::kDeleteInstance, v.provider_id,
             v.reason, cloud.Delete(v.provider_id));
  if (!del.status.ok()) {
    const JanitorAction cause = del;  // `del` dies with the next push_back.
    for (const std::string& node : v.nodes) {
      Skip(result, JanitorActionKind::kDeleteNode, node, v.reason, cause);
    }
    return;
  }
  for (const std::string& node : v.nodes) {
    if (Did(Record(result, JanitorActionKind::kDeleteNode, node, v.reason,
                   cluster.DeleteNode(node)))) {
      Emit(events, "Node", node, EventType::kNormal, events::kGarbageCollected,
           absl::StrCat("Deleting Node of leaked instance \"", v.provider_id,
                        "\": ", v.why));
    }
  }
}

}  // namespace

absl::string_view JanitorActionKindName(JanitorActionKind kind) {
  switch (kind) {
    case JanitorActionKind::kAnnotateNodeClaim:
      return "AnnotateNodeClaim";
    case JanitorActionKind::kDeleteNodeClaim:
      return "DeleteNodeClaim";
    case JanitorActionKind::kDeleteInstance:
      return "DeleteInstance";
    case JanitorActionKind::kDeleteNode:
      return "DeleteNode";
  }
  return "Unknown";
}

int JanitorResult::failures() const {
  return static_cast<int>(
      std::count_if(actions.begin(), actions.end(),
                    [](const JanitorAction& a) { return !a.status.ok(); }));
}

JanitorResult ApplyLiveness(const LivenessReport& report, ClusterView& cluster,
                            EventRecorder& events, Metrics& metrics) {
  JanitorResult result;
  for (const LivenessVerdict& v : report.verdicts) {
    switch (v.action) {
      case LivenessAction::kDeleteNodeClaim:
        ApplyDelete(v, report.now, cluster, events, metrics, result);
        break;
      case LivenessAction::kBlocked:
        EmitBlocked(v, events);
        break;
      case LivenessAction::kNone:
        break;
    }
  }
  return result;
}

JanitorResult ApplyGarbageCollection(const GarbageCollectionReport& report,
                                     ClusterView& cluster, CloudProvider& cloud,
                                     EventRecorder& events, Metrics& metrics) {
  JanitorResult result;
  for (const InstanceVerdict& v : report.instances) {
    if (v.delete_instance) ApplyInstance(v, cluster, cloud, events, result);
  }
  for (const NodeClaimGcVerdict& v : report.node_claims) {
    if (!v.delete_node_claim) continue;
    if (Did(Record(result, JanitorActionKind::kDeleteNodeClaim, v.node_claim,
                   v.reason, cluster.DeleteNodeClaim(v.node_claim)))) {
      CountDisrupted(metrics, v.reason, v.node_pool, v.capacity_type);
      Emit(events, "NodeClaim", v.node_claim, EventType::kNormal,
           events::kGarbageCollected,
           absl::StrCat("Deleting NodeClaim: ", v.reason, ": ", v.why));
    }
  }
  return result;
}

}  // namespace karpenter::termination
