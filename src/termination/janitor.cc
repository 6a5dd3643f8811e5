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

void ApplyDelete(const LivenessVerdict& v, ClusterView& cluster,
                 EventRecorder& events, Metrics& metrics,
                 JanitorResult& result) {
  const bool repair = v.reason == kReasonUnhealthy;
  if (repair && !v.termination_timestamp.empty()) {
    const JanitorAction& annotate = Record(
        result, JanitorActionKind::kAnnotateNodeClaim, v.node_claim, v.reason,
        cluster.SetAnnotation(
            ObjectKind::kNodeClaim, v.node_claim,
            well_known::kNodeClaimTerminationTimestampAnnotationKey,
            v.termination_timestamp));
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
                  ConditionMetricLabel(v.condition)},
                 {std::string(metrics::kNodePoolLabel), v.node_pool},
                 {std::string(metrics::kCapacityTypeLabel), v.capacity_type},
                 {std::string(metrics::kImageIdLabel), v.image_id}},
                1);
  }
  Emit(events, "NodeClaim", v.node_claim, EventType::kWarning,
       events::kGarbageCollected,
       absl::StrCat("Deleting NodeClaim: ", v.reason, ": ", v.why));
}

// Karpenter publishes its NodeRepairBlocked events (one per dedupe key:
// Node, NodeClaim and, for a pool, NodePool) all on the Node, with these
// texts ("then" is Karpenter's spelling); one event stands for them here.
void EmitBlocked(const LivenessVerdict& v, EventRecorder& events) {
  if (v.node.empty()) return;
  Emit(events, "Node", v.node, EventType::kWarning, events::kNodeRepairBlocked,
       std::string(v.node_pool.empty() ? kNodeRepairBlockedClusterMessage
                                       : kNodeRepairBlockedNodePoolMessage));
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

std::string ConditionMetricLabel(absl::string_view condition_type) {
  const auto upper = [](char c) { return c >= 'A' && c <= 'Z'; };
  const auto lower = [](char c) { return c >= 'a' && c <= 'z'; };
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  const absl::string_view s = condition_type;
  // Pass 1: before each capital that starts a lowercase run ("Ready"), if
  // something precedes it.
  std::string first;
  for (size_t i = 0; i < s.size();) {
    first.push_back(s[i]);
    size_t end = i + 2;
    while (end < s.size() && lower(s[end])) ++end;
    if (i + 2 < s.size() && upper(s[i + 1]) && end > i + 2) {
      absl::StrAppend(&first, "_", s.substr(i + 1, end - i - 1));
      i = end;
    } else {
      ++i;
    }
  }
  // Pass 2: between a lowercase letter or digit and a capital; then lower
  // the whole.
  std::string out;
  for (size_t i = 0; i < first.size(); ++i) {
    out.push_back(first[i]);
    if (i + 1 < first.size() && (lower(first[i]) || digit(first[i])) &&
        upper(first[i + 1])) {
      out.push_back('_');
      out.push_back(first[++i]);
    }
  }
  for (char& c : out) {
    if (upper(c)) c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
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
        ApplyDelete(v, cluster, events, metrics, result);
        break;
      case LivenessAction::kBlocked:
        EmitBlocked(v, events);
        break;
      case LivenessAction::kAnnotateNodeClaim:
        Record(result, JanitorActionKind::kAnnotateNodeClaim, v.node_claim,
               v.reason,
               cluster.SetAnnotation(
                   ObjectKind::kNodeClaim, v.node_claim,
                   well_known::kNodeClaimTerminationTimestampAnnotationKey,
                   v.termination_timestamp));
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
