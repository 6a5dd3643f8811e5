// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/termination/decide.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "karpenter/conditions.h"
#include "karpenter/drain/classify.h"
#include "karpenter/duration.h"
#include "karpenter/taints.h"
#include "karpenter/termination/volumes.h"
#include "karpenter/time_util.h"
#include "karpenter/well_known.h"

namespace karpenter::termination {
namespace {

using snapshot::NodeIndex;
using snapshot::Snapshot;
using well_known::kConditionFalse;
using well_known::kConditionTrue;
using well_known::kConditionTypeDrained;
using well_known::kConditionTypeInstanceTerminating;
using well_known::kConditionTypeVolumesDetached;
using well_known::kConditionUnknown;

bool HasFinalizer(const v1::ObjectMeta& meta) {
  return std::find(meta.finalizers().begin(), meta.finalizers().end(),
                   well_known::kTerminationFinalizer) !=
         meta.finalizers().end();
}

bool IsDeleting(const v1::ObjectMeta& meta) {
  return meta.has_deletion_timestamp();
}

bool ConditionIs(const v1::NodeClaim& claim, absl::string_view type,
                 absl::string_view status) {
  return ConditionStatus(claim.status().conditions(), type) == status;
}

bool NodeIsReady(const v1::Node& node) {
  return IsConditionTrue(node.status().conditions(),
                         well_known::kConditionTypeReady);
}

std::string LabelOr(const v1::ObjectMeta& meta, absl::string_view key) {
  auto it = meta.labels().find(std::string(key));
  return it == meta.labels().end() ? "" : it->second;
}

bool HasDisruptedTaint(const v1::Node& node) {
  const v1::Taint want = DisruptedNoScheduleTaint();
  int with_key = 0;
  bool exact = false;
  for (const v1::Taint& t : node.spec().taints()) {
    if (t.key() != want.key()) continue;
    ++with_key;
    exact = t.value().empty() && t.effect() == want.effect();
  }
  // TaintNode leaves exactly one taint with the key.
  return with_key == 1 && exact;
}

// Builds decisions step by step.
class Builder {
 public:
  Builder(ObjectKind object, absl::string_view name, absl::Time now)
      : now_(now) {
    decision_.object = object;
    decision_.name = std::string(name);
  }

  Decision& decision() { return decision_; }

  Decision Finish(Step step, std::string reason,
                  std::optional<absl::Duration> requeue = std::nullopt) {
    decision_.step = step;
    decision_.reason = std::move(reason);
    decision_.requeue_after = requeue;
    return std::move(decision_);
  }

  Action& Add(ActionKind kind, ObjectKind object, absl::string_view name) {
    Action& a = decision_.actions.emplace_back();
    a.kind = kind;
    a.object = object;
    a.name = std::string(name);
    return a;
  }

  void Event(ObjectKind object, absl::string_view name, EventType type,
             absl::string_view reason, std::string message) {
    Action& a = Add(ActionKind::kRecordEvent, object, name);
    a.event.kind = std::string(ObjectKindName(object));
    a.event.name = std::string(name);
    a.event.type = type;
    a.event.reason = std::string(reason);
    a.event.message = std::move(message);
  }

  // Emits kSetCondition unless the claim already has the condition with the
  // same status and reason; records the resulting value either way.
  void Condition(const v1::NodeClaim& claim, absl::string_view type,
                 absl::string_view status, absl::string_view reason) {
    const v1::Condition* current =
        FindCondition(claim.status().conditions(), type);
    const bool same = current != nullptr && current->status() == status &&
                      current->reason() == reason;
    v1::Condition next;
    if (same) {
      next = *current;
    } else {
      next.set_type(std::string(type));
      next.set_status(std::string(status));
      next.set_reason(std::string(reason));
      next.set_message(std::string(reason));
      if (current != nullptr && current->status() == status) {
        *next.mutable_last_transition_time() = current->last_transition_time();
      } else {
        *next.mutable_last_transition_time() = TimeToProto(now_);
      }
      Action& a = Add(ActionKind::kSetCondition, ObjectKind::kNodeClaim,
                      claim.metadata().name());
      a.condition = next;
    }
    SetConditionValue(next);
  }

  // Records the claim's current condition values (before any action).
  void ObserveConditions(const v1::NodeClaim& claim) {
    for (absl::string_view type :
         {kConditionTypeDrained, kConditionTypeVolumesDetached,
          kConditionTypeInstanceTerminating}) {
      const v1::Condition* c = FindCondition(claim.status().conditions(), type);
      if (c != nullptr) SetConditionValue(*c);
    }
  }

 private:
  void SetConditionValue(const v1::Condition& c) {
    for (v1::Condition& existing : decision_.conditions) {
      if (existing.type() == c.type()) {
        existing = c;
        return;
      }
    }
    decision_.conditions.push_back(c);
  }

  absl::Time now_;
  Decision decision_;
};

MetricSample Counter(absl::string_view name, MetricLabels labels) {
  return MetricSample{MetricSample::Verb::kAdd, std::string(name),
                      std::move(labels), 1};
}

MetricSample Observation(absl::string_view name, MetricLabels labels,
                         absl::Duration d) {
  return MetricSample{MetricSample::Verb::kObserve, std::string(name),
                      std::move(labels), absl::ToDoubleSeconds(d)};
}

// The node's NodeClaim by providerID, as Karpenter's NodeClaimForNode.
std::optional<snapshot::NodeClaimIndex> ClaimOfNode(const Snapshot& s,
                                                    const v1::Node& node) {
  if (node.spec().provider_id().empty()) return std::nullopt;
  return s.FindNodeClaimByProviderId(node.spec().provider_id());
}

bool IsManaged(const Snapshot& s, const v1::Node& node) {
  return ClaimOfNode(s, node).has_value() ||
         node.metadata().labels().contains(
             std::string(well_known::kNodePoolLabelKey));
}

// Step 6 of the file comment, shared by Node and NodeClaim decisions.
// Returns nullopt when the instance is gone (continue to the finalizer).
// DecideOptions::ForTest::finalizer_before_instance_gone.
InstanceObservation PlantedObservation(const DecideOptions& options,
                                       const v1::NodeClaim& claim,
                                       InstanceObservation instance) {
  if (options.for_test.finalizer_before_instance_gone &&
      ConditionIs(claim, kConditionTypeInstanceTerminating, kConditionTrue)) {
    return InstanceObservation::kGone;
  }
  return instance;
}

std::optional<Decision> TerminateInstance(Builder& b,
                                          const v1::NodeClaim& claim,
                                          absl::string_view provider_id,
                                          InstanceObservation instance,
                                          absl::Time now) {
  if (instance == InstanceObservation::kGone || provider_id.empty()) {
    return std::nullopt;
  }
  if (!ConditionIs(claim, kConditionTypeInstanceTerminating, kConditionTrue)) {
    Action& del = b.Add(ActionKind::kDeleteInstance, ObjectKind::kNodeClaim,
                        claim.metadata().name());
    del.provider_id = std::string(provider_id);
    b.Condition(claim, kConditionTypeInstanceTerminating, kConditionTrue,
                kConditionTypeInstanceTerminating);
    return b.Finish(Step::kTerminateInstance,
                    absl::StrCat("terminating instance ", provider_id),
                    kInstanceRequeue);
  }
  if (instance == InstanceObservation::kUnknown) {
    Action& get = b.Add(ActionKind::kGetInstance, ObjectKind::kNodeClaim,
                        claim.metadata().name());
    get.provider_id = std::string(provider_id);
    return b.Finish(
        Step::kAwaitInstanceTermination,
        absl::StrCat("checking whether instance ", provider_id, " is gone"),
        kInstanceRequeue);
  }
  const v1::Condition* c = FindCondition(claim.status().conditions(),
                                         kConditionTypeInstanceTerminating);
  return b.Finish(
      Step::kAwaitInstanceTermination,
      absl::StrCat(
          "instance ", provider_id, " still exists, terminating for ",
          absl::FormatDuration(now - TimeFromProto(c->last_transition_time()))),
      kInstanceRequeue);
}

MetricLabels NodePoolLabels(const v1::ObjectMeta& meta) {
  return {{std::string(metrics::kNodePoolLabel),
           LabelOr(meta, well_known::kNodePoolLabelKey)}};
}

Decision RemoveNodeFinalizer(Builder& b, const v1::Node& node, Step step,
                             std::string reason, absl::Time now) {
  Action& a = b.Add(ActionKind::kRemoveFinalizer, ObjectKind::kNode,
                    node.metadata().name());
  a.key = std::string(well_known::kTerminationFinalizer);
  MetricLabels with_zone = NodePoolLabels(node.metadata());
  with_zone[std::string(metrics::kZoneLabel)] =
      LabelOr(node.metadata(), well_known::kLabelTopologyZone);
  a.on_success.push_back(Counter(metrics::kNodesTerminatedTotal, with_zone));
  a.on_success.push_back(
      Observation(metrics::kNodesTerminationDurationSeconds,
                  NodePoolLabels(node.metadata()),
                  now - TimeFromProto(node.metadata().deletion_timestamp())));
  a.on_success.push_back(Observation(
      metrics::kNodesLifetimeDurationSeconds, NodePoolLabels(node.metadata()),
      now - TimeFromProto(node.metadata().creation_timestamp())));
  return b.Finish(step, std::move(reason));
}

// Node not deleting, or deleting but not ours.
std::optional<Decision> DecideNodeLifecycle(Builder& b, const Snapshot& s,
                                            const v1::Node& node) {
  const std::string& name = node.metadata().name();
  if (!IsManaged(s, node)) {
    return b.Finish(Step::kNotManaged,
                    absl::StrCat("no NodeClaim and no ",
                                 well_known::kNodePoolLabelKey, " label"));
  }
  if (IsDeleting(node.metadata())) {
    if (HasFinalizer(node.metadata())) return std::nullopt;
    return b.Finish(Step::kReleased, "deleting without the finalizer");
  }
  if (HasFinalizer(node.metadata())) {
    return b.Finish(Step::kActive, "managed, not deleting");
  }
  Action& a = b.Add(ActionKind::kAddFinalizer, ObjectKind::kNode, name);
  a.key = std::string(well_known::kTerminationFinalizer);
  return b.Finish(Step::kAddFinalizer, "managed node lacks the finalizer");
}

// Steps 3 (taint and label).
void TaintAndLabel(Builder& b, const v1::Node& node) {
  const std::string& name = node.metadata().name();
  if (!HasDisruptedTaint(node)) {
    Action& a = b.Add(ActionKind::kTaintNode, ObjectKind::kNode, name);
    a.taint = DisruptedNoScheduleTaint();
  }
  if (LabelOr(node.metadata(), well_known::kLabelNodeExcludeBalancers) !=
      well_known::kLabelNodeExcludeBalancersValue) {
    Action& a = b.Add(ActionKind::kSetLabel, ObjectKind::kNode, name);
    a.key = std::string(well_known::kLabelNodeExcludeBalancers);
    a.value = std::string(well_known::kLabelNodeExcludeBalancersValue);
  }
}

// Step 4. Returns nullopt once Drained is True.
absl::StatusOr<std::optional<Decision>> AwaitDrain(
    Builder& b, const Snapshot& s, NodeIndex n, const v1::NodeClaim& claim,
    absl::Time now, const DecideOptions& options) {
  const v1::Node& node = s.nodes()[n];
  const std::optional<drain::Deadline>& deadline = b.decision().deadline;
  KARPENTER_ASSIGN_OR_RETURN(
      drain::DrainPass pass,
      drain::PlanDrainPass(
          s, n,
          deadline ? std::optional<absl::Time>(deadline->at) : std::nullopt,
          now));
  b.decision().drain = pass;
  const v1::Condition* drained =
      FindCondition(claim.status().conditions(), kConditionTypeDrained);
  // Karpenter drains on every reconcile, so pods that arrive after
  // Drained=True reopen the drain.
  if (pass.done && IsConditionTrue(drained)) {
    return std::nullopt;
  }
  if (drained == nullptr || !pass.done) {
    b.Condition(claim, kConditionTypeDrained, kConditionUnknown,
                well_known::kReasonDraining);
  }
  if (!pass.done) {
    b.Add(ActionKind::kDrain, ObjectKind::kNode, node.metadata().name());
    b.Event(ObjectKind::kNode, node.metadata().name(), EventType::kWarning,
            events::kFailedDraining,
            absl::StrCat("Failed to drain node, ", pass.Message()));
    return b.Finish(Step::kDraining, pass.Message(), kShortRequeue);
  }
  const absl::Time since =
      drained == nullptr || drained->status() != kConditionUnknown
          ? now
          : TimeFromProto(drained->last_transition_time());
  if (now - since < options.min_drain_time) {
    return b.Finish(Step::kAwaitMinDrainTime,
                    absl::StrCat("drained; waiting until ",
                                 FormatRfc3339(since + options.min_drain_time),
                                 " (MinDrainTime ",
                                 absl::FormatDuration(options.min_drain_time),
                                 " after Drained turned Unknown)"),
                    kShortRequeue);
  }
  b.Condition(claim, kConditionTypeDrained, kConditionTrue,
              kConditionTypeDrained);
  b.decision().actions.back().on_success.push_back(
      Counter(metrics::kNodesDrainedTotal, NodePoolLabels(node.metadata())));
  return b.Finish(Step::kMarkDrained, "drained", kShortRequeue);
}

// Step 5. Returns nullopt once volumes are detached or the deadline passed.
absl::StatusOr<std::optional<Decision>> AwaitVolumes(Builder& b,
                                                     const Snapshot& s,
                                                     NodeIndex n,
                                                     const v1::NodeClaim& claim,
                                                     absl::Time now) {
  KARPENTER_ASSIGN_OR_RETURN(
      std::vector<snapshot::VolumeAttachmentIndex> pending,
      PendingVolumeAttachments(s, n, now));
  const std::optional<drain::Deadline>& deadline = b.decision().deadline;
  if (pending.empty()) {
    if (ConditionIs(claim, kConditionTypeVolumesDetached, kConditionTrue)) {
      return std::nullopt;
    }
    b.Condition(claim, kConditionTypeVolumesDetached, kConditionTrue,
                kConditionTypeVolumesDetached);
    return b.Finish(Step::kMarkVolumesDetached, "no volume attachment left",
                    kShortRequeue);
  }
  const std::string list = DescribeVolumeAttachments(s, pending);
  if (!deadline.has_value() || now < deadline->at) {
    b.Event(ObjectKind::kNode, s.nodes()[n].metadata().name(),
            EventType::kNormal, events::kAwaitingVolumeDetachment,
            AwaitingVolumeDetachmentMessage(pending));
    b.Condition(claim, kConditionTypeVolumesDetached, kConditionUnknown,
                well_known::kReasonAwaitingVolumeDetachment);
    return b.Finish(
        Step::kAwaitVolumeDetachment,
        absl::StrCat(pending.size(), " volume attachments remain: ", list),
        kShortRequeue);
  }
  if (ConditionIs(claim, kConditionTypeVolumesDetached, kConditionFalse)) {
    return std::nullopt;
  }
  b.Condition(claim, kConditionTypeVolumesDetached, kConditionFalse,
              well_known::kReasonTerminationGracePeriodElapsed);
  return b.Finish(Step::kMarkVolumesDetached,
                  absl::StrCat("deadline ", FormatRfc3339(deadline->at),
                               " passed with volume attachments left: ", list),
                  kShortRequeue);
}

absl::StatusOr<Decision> DecideDeletingNode(Builder& b, const Snapshot& s,
                                            NodeIndex n, absl::Time now,
                                            const DecideOptions& options,
                                            InstanceObservation instance) {
  const v1::Node& node = s.nodes()[n];
  const std::string& name = node.metadata().name();
  const std::optional<snapshot::NodeClaimIndex> c = ClaimOfNode(s, node);
  if (!c.has_value()) {
    return b.Finish(
        Step::kNoNodeClaim,
        absl::StrCat("expected a single NodeClaim with providerID \"",
                     node.spec().provider_id(), "\"; found none or several"));
  }
  const v1::NodeClaim& claim = s.node_claims()[*c];
  b.decision().node_claim = claim.metadata().name();
  b.decision().provider_id = node.spec().provider_id();
  b.ObserveConditions(claim);
  if (!IsDeleting(claim.metadata())) {
    b.Add(ActionKind::kDeleteNodeClaim, ObjectKind::kNodeClaim,
          claim.metadata().name());
  }
  if (!NodeIsReady(node)) {
    if (instance == InstanceObservation::kUnknown) {
      Action& get = b.Add(ActionKind::kGetInstance, ObjectKind::kNode, name);
      get.provider_id = node.spec().provider_id();
      return b.Finish(
          Step::kCheckInstance,
          "node is not Ready: checking whether its instance exists");
    }
    if (instance == InstanceObservation::kGone) {
      return RemoveNodeFinalizer(
          b, node, Step::kInstanceGone,
          "node is not Ready and its instance is gone: no drain", now);
    }
  }
  KARPENTER_ASSIGN_OR_RETURN(
      b.decision().deadline,
      drain::NodeDeadline(s, n, options.external_deadline));
  if (b.decision().deadline.has_value()) {
    b.Event(ObjectKind::kNode, name, EventType::kWarning,
            events::kTerminationGracePeriodExpiring,
            absl::StrCat("All pods will be deleted by ",
                         FormatRfc3339(b.decision().deadline->at)));
  }
  TaintAndLabel(b, node);
  KARPENTER_ASSIGN_OR_RETURN(std::optional<Decision> drain,
                             AwaitDrain(b, s, n, claim, now, options));
  if (drain.has_value()) return std::move(*drain);
  KARPENTER_ASSIGN_OR_RETURN(std::optional<Decision> volumes,
                             AwaitVolumes(b, s, n, claim, now));
  if (volumes.has_value()) return std::move(*volumes);
  std::optional<Decision> terminate =
      TerminateInstance(b, claim, node.spec().provider_id(),
                        PlantedObservation(options, claim, instance), now);
  if (terminate.has_value()) return std::move(*terminate);
  return RemoveNodeFinalizer(b, node, Step::kRemoveFinalizer,
                             "instance terminated", now);
}

}  // namespace

absl::string_view StepName(Step step) {
  switch (step) {
    case Step::kGone:
      return "Gone";
    case Step::kNotManaged:
      return "NotManaged";
    case Step::kAddFinalizer:
      return "AddFinalizer";
    case Step::kActive:
      return "Active";
    case Step::kReleased:
      return "Released";
    case Step::kNoNodeClaim:
      return "NoNodeClaim";
    case Step::kCheckInstance:
      return "CheckInstance";
    case Step::kInstanceGone:
      return "InstanceGone";
    case Step::kDraining:
      return "Draining";
    case Step::kAwaitMinDrainTime:
      return "AwaitMinDrainTime";
    case Step::kMarkDrained:
      return "MarkDrained";
    case Step::kAwaitVolumeDetachment:
      return "AwaitVolumeDetachment";
    case Step::kMarkVolumesDetached:
      return "MarkVolumesDetached";
    case Step::kTerminateInstance:
      return "TerminateInstance";
    case Step::kAwaitInstanceTermination:
      return "AwaitInstanceTermination";
    case Step::kRemoveFinalizer:
      return "RemoveFinalizer";
    case Step::kAwaitNodeDeletion:
      return "AwaitNodeDeletion";
  }
  return "Unknown";
}

absl::string_view ActionKindName(ActionKind kind) {
  switch (kind) {
    case ActionKind::kAddFinalizer:
      return "AddFinalizer";
    case ActionKind::kRemoveFinalizer:
      return "RemoveFinalizer";
    case ActionKind::kDeleteNode:
      return "DeleteNode";
    case ActionKind::kDeleteNodeClaim:
      return "DeleteNodeClaim";
    case ActionKind::kTaintNode:
      return "TaintNode";
    case ActionKind::kSetLabel:
      return "SetLabel";
    case ActionKind::kSetAnnotation:
      return "SetAnnotation";
    case ActionKind::kSetCondition:
      return "SetCondition";
    case ActionKind::kDrain:
      return "Drain";
    case ActionKind::kGetInstance:
      return "GetInstance";
    case ActionKind::kDeleteInstance:
      return "DeleteInstance";
    case ActionKind::kRecordEvent:
      return "RecordEvent";
  }
  return "Unknown";
}

std::string Action::Describe() const {
  std::string line =
      absl::StrCat(ActionKindName(kind), " ",
                   object == ObjectKind::kNode ? "node/" : "nodeclaim/", name);
  switch (kind) {
    case ActionKind::kAddFinalizer:
    case ActionKind::kRemoveFinalizer:
      absl::StrAppend(&line, " ", key);
      break;
    case ActionKind::kSetLabel:
    case ActionKind::kSetAnnotation:
      absl::StrAppend(&line, " ", key, "=", value);
      break;
    case ActionKind::kTaintNode:
      absl::StrAppend(&line, " ", taint.key(), taint.value().empty() ? "" : "=",
                      taint.value(), ":", taint.effect());
      break;
    case ActionKind::kSetCondition:
      absl::StrAppend(&line, " ", condition.type(), "=", condition.status(),
                      condition.reason().empty() ? "" : " (",
                      condition.reason(),
                      condition.reason().empty() ? "" : ")");
      break;
    case ActionKind::kGetInstance:
    case ActionKind::kDeleteInstance:
      absl::StrAppend(&line, " ", provider_id);
      break;
    case ActionKind::kRecordEvent:
      absl::StrAppend(&line, " ", EventString(event));
      break;
    case ActionKind::kDeleteNode:
    case ActionKind::kDeleteNodeClaim:
    case ActionKind::kDrain:
      break;
  }
  return line;
}

std::string Decision::Describe() const {
  std::string out =
      absl::StrCat(object == ObjectKind::kNode ? "node/" : "nodeclaim/", name,
                   ": ", StepName(step), ": ", reason);
  if (requeue_after.has_value()) {
    absl::StrAppend(&out, " (requeue ", absl::FormatDuration(*requeue_after),
                    ")");
  }
  for (const Action& a : actions) absl::StrAppend(&out, "\n  ", a.Describe());
  return out;
}

absl::StatusOr<Decision> DecideNode(const Snapshot& snapshot,
                                    absl::string_view node, absl::Time now,
                                    const DecideOptions& options,
                                    InstanceObservation instance) {
  if (options.min_drain_time < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "min_drain_time: \"", absl::FormatDuration(options.min_drain_time),
        "\" is negative"));
  }
  Builder b(ObjectKind::kNode, node, now);
  const std::optional<NodeIndex> n = snapshot.FindNode(node);
  if (!n.has_value()) return b.Finish(Step::kGone, "node not found");
  const v1::Node& object = snapshot.nodes()[*n];
  if (std::optional<Decision> d = DecideNodeLifecycle(b, snapshot, object)) {
    return std::move(*d);
  }
  absl::StatusOr<Decision> d =
      DecideDeletingNode(b, snapshot, *n, now, options, instance);
  if (!d.ok()) {
    return absl::Status(
        d.status().code(),
        absl::StrCat("node \"", node, "\": ", d.status().message()));
  }
  return d;
}

namespace {

absl::StatusOr<std::optional<std::string>> TerminationTimestamp(
    const v1::NodeClaim& claim) {
  if (!claim.spec().has_termination_grace_period()) return std::nullopt;
  absl::StatusOr<absl::Duration> tgp =
      ParseGoDuration(claim.spec().termination_grace_period());
  if (!tgp.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "nodeclaim \"", claim.metadata().name(),
        "\": spec.terminationGracePeriod: ", tgp.status().message()));
  }
  const absl::Time at = TimeFromProto(claim.metadata().deletion_timestamp()) +
                        *tgp;  // Go's time.RFC3339 has second precision.
  return FormatRfc3339(TruncateToSecond(at));
}

// The claim's Node, by status.nodeName with a matching providerID.
const v1::Node* NodeOfClaim(const Snapshot& s, const v1::NodeClaim& claim) {
  if (claim.status().node_name().empty()) return nullptr;
  const std::optional<NodeIndex> n = s.FindNode(claim.status().node_name());
  if (!n.has_value()) return nullptr;
  const v1::Node& node = s.nodes()[*n];
  if (!claim.status().provider_id().empty() &&
      node.spec().provider_id() != claim.status().provider_id()) {
    return nullptr;
  }
  return &node;
}

Decision RemoveClaimFinalizer(Builder& b, const v1::NodeClaim& claim,
                              absl::Time now, std::string reason) {
  Action& a = b.Add(ActionKind::kRemoveFinalizer, ObjectKind::kNodeClaim,
                    claim.metadata().name());
  a.key = std::string(well_known::kTerminationFinalizer);
  MetricLabels labels = NodePoolLabels(claim.metadata());
  labels[std::string(metrics::kCapacityTypeLabel)] =
      LabelOr(claim.metadata(), well_known::kCapacityTypeLabelKey);
  labels[std::string(metrics::kZoneLabel)] =
      LabelOr(claim.metadata(), well_known::kLabelTopologyZone);
  a.on_success.push_back(Counter(metrics::kNodeClaimsTerminatedTotal, labels));
  a.on_success.push_back(
      Observation(metrics::kNodeClaimsTerminationDurationSeconds,
                  NodePoolLabels(claim.metadata()),
                  now - TimeFromProto(claim.metadata().deletion_timestamp())));
  const v1::Condition* terminating = FindCondition(
      claim.status().conditions(), kConditionTypeInstanceTerminating);
  if (IsConditionTrue(terminating)) {
    a.on_success.push_back(
        Observation(metrics::kNodeClaimsInstanceTerminationDurationSeconds,
                    NodePoolLabels(claim.metadata()),
                    now - TimeFromProto(terminating->last_transition_time())));
  }
  return b.Finish(Step::kRemoveFinalizer, std::move(reason));
}

}  // namespace

absl::StatusOr<Decision> DecideNodeClaim(const Snapshot& snapshot,
                                         absl::string_view node_claim,
                                         absl::Time now,
                                         InstanceObservation instance) {
  Builder b(ObjectKind::kNodeClaim, node_claim, now);
  const std::optional<snapshot::NodeClaimIndex> c =
      snapshot.FindNodeClaim(node_claim);
  if (!c.has_value()) return b.Finish(Step::kGone, "nodeclaim not found");
  const v1::NodeClaim& claim = snapshot.node_claims()[*c];
  b.decision().node_claim = claim.metadata().name();
  b.decision().provider_id = claim.status().provider_id();
  b.ObserveConditions(claim);
  if (!IsDeleting(claim.metadata())) {
    if (HasFinalizer(claim.metadata())) {
      return b.Finish(Step::kActive, "not deleting");
    }
    Action& a = b.Add(ActionKind::kAddFinalizer, ObjectKind::kNodeClaim,
                      claim.metadata().name());
    a.key = std::string(well_known::kTerminationFinalizer);
    return b.Finish(Step::kAddFinalizer, "nodeclaim lacks the finalizer");
  }
  if (!HasFinalizer(claim.metadata())) {
    return b.Finish(Step::kReleased, "deleting without the finalizer");
  }
  KARPENTER_ASSIGN_OR_RETURN(std::optional<std::string> timestamp,
                             TerminationTimestamp(claim));
  if (timestamp.has_value()) {
    auto it = claim.metadata().annotations().find(
        std::string(well_known::kNodeClaimTerminationTimestampAnnotationKey));
    if (it == claim.metadata().annotations().end()) {
      Action& a = b.Add(ActionKind::kSetAnnotation, ObjectKind::kNodeClaim,
                        claim.metadata().name());
      a.key =
          std::string(well_known::kNodeClaimTerminationTimestampAnnotationKey);
      a.value = *timestamp;
      b.Event(ObjectKind::kNodeClaim, claim.metadata().name(),
              EventType::kWarning, events::kTerminationGracePeriodExpiring,
              absl::StrCat("All pods will be deleted by ", *timestamp));
    }
  }
  if (ConditionIs(claim, well_known::kConditionTypeRegistered,
                  kConditionTrue)) {
    if (const v1::Node* node = NodeOfClaim(snapshot, claim)) {
      if (!IsDeleting(node->metadata())) {
        b.Add(ActionKind::kDeleteNode, ObjectKind::kNode,
              node->metadata().name());
      }
      return b.Finish(Step::kAwaitNodeDeletion,
                      absl::StrCat("waiting for node \"",
                                   node->metadata().name(), "\" to go"),
                      kShortRequeue);
    }
  }
  std::optional<Decision> terminate =
      TerminateInstance(b, claim, claim.status().provider_id(), instance, now);
  if (terminate.has_value()) return std::move(*terminate);
  return RemoveClaimFinalizer(b, claim, now,
                              claim.status().provider_id().empty()
                                  ? "never launched: no instance"
                                  : "instance terminated");
}

}  // namespace karpenter::termination
