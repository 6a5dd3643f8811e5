// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/termination/liveness.h"

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "karpenter/conditions.h"
#include "karpenter/drain/deadline.h"
#include "karpenter/time_util.h"
#include "karpenter/well_known.h"
#include "termination/common.h"

namespace karpenter::termination {
namespace {

absl::Status CheckTimeout(absl::string_view field, absl::Duration d) {
  if (d >= absl::ZeroDuration()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(field, ": \"", absl::FormatDuration(d), "\": must be >= 0"));
}

// When a condition's current status began: its lastTransitionTime, or the
// object's creation when the condition (or its time) is absent.
absl::Time Since(const v1::Condition* c, const v1::ObjectMeta& meta) {
  if (c != nullptr && c->has_last_transition_time()) {
    return TimeFromProto(c->last_transition_time());
  }
  return TimeFromProto(meta.creation_timestamp());
}

std::string StatusText(const v1::Condition* c) {
  return c == nullptr ? std::string("absent") : absl::StrCat(c->status());
}

// One repair policy matching a Node: since when, and when it is due.
struct PolicyMatch {
  const RepairPolicy* policy = nullptr;
  // The condition's status as found ("absent" for a missing Ready).
  std::string status;
  absl::Time since;
  absl::Time due;  // InfiniteFuture for an infinite toleration.
};

// `policy` against `node`: the condition of its type with its status, or
// (SDK) an absent Ready against a Ready=Unknown policy, since creation.
std::optional<PolicyMatch> Match(const v1::Node& node,
                                 const RepairPolicy& policy) {
  const v1::Condition* c =
      FindCondition(node.status().conditions(), policy.condition_type);
  PolicyMatch m;
  m.policy = &policy;
  if (c == nullptr) {
    if (policy.condition_type != well_known::kConditionTypeReady ||
        policy.condition_status != well_known::kConditionUnknown) {
      return std::nullopt;
    }
    m.status = "absent";
  } else if (c->status() != policy.condition_status) {
    return std::nullopt;
  } else {
    m.status = c->status();
  }
  m.since = Since(c, node.metadata());
  m.due = m.since + policy.toleration;
  return m;
}

// The matching policy due first (the first listed on a tie), or nullopt.
std::optional<PolicyMatch> EarliestMatch(
    const v1::Node& node, const std::vector<RepairPolicy>& policies) {
  std::optional<PolicyMatch> best;
  for (const RepairPolicy& p : policies) {
    std::optional<PolicyMatch> m = Match(node, p);
    if (m.has_value() && (!best.has_value() || m->due < best->due)) best = m;
  }
  return best;
}

// The guard's notion: some policy matches, toleration not counted.
bool NodeUnhealthy(const v1::Node& node,
                   const std::vector<RepairPolicy>& policies) {
  for (const RepairPolicy& p : policies) {
    if (Match(node, p).has_value()) return true;
  }
  return false;
}

// Nodes and unhealthy Nodes of one NodePool (or of the cluster).
struct PoolHealth {
  int64_t nodes = 0;
  int64_t unhealthy = 0;
};

// Pool health for every pool label value, plus the whole cluster under the
// key std::nullopt.
class HealthIndex {
 public:
  HealthIndex(const snapshot::Snapshot& snapshot,
              const std::vector<RepairPolicy>& policies) {
    for (const v1::Node& node : snapshot.nodes()) {
      const bool bad = NodeUnhealthy(node, policies);
      Count(cluster_, bad);
      std::string pool =
          internal::LabelOf(node.metadata(), well_known::kNodePoolLabelKey);
      if (!pool.empty()) Count(pools_[pool], bad);
    }
  }
  PoolHealth Of(const std::string& pool) const {
    if (pool.empty()) return cluster_;
    auto it = pools_.find(pool);
    return it == pools_.end() ? PoolHealth{} : it->second;
  }

 private:
  static void Count(PoolHealth& h, bool bad) {
    ++h.nodes;
    if (bad) ++h.unhealthy;
  }
  PoolHealth cluster_;
  std::map<std::string, PoolHealth> pools_;
};

// ceil(fraction x nodes), with the fraction taken in millionths so that
// binary rounding (0.56 x 25 = 14.000000000000002) cannot add one.
int64_t UnhealthyThreshold(double fraction, int64_t nodes) {
  const int64_t ppm = std::llround(fraction * 1e6);
  return (ppm * nodes + 999999) / 1000000;
}

// The rule "`condition` not True for `timeout` -> delete with `fired`";
// `waiting` is the kNone reason. An infinite timeout never fires.
LivenessVerdict TimeoutRule(const v1::Condition* condition,
                            absl::string_view type, const v1::ObjectMeta& meta,
                            absl::Duration timeout, absl::string_view fired,
                            absl::string_view waiting, absl::Time now) {
  LivenessVerdict v;
  const absl::Time start = Since(condition, meta);
  v.why = absl::StrCat(type, " is ", StatusText(condition), " since ",
                       FormatRfc3339(start), "; timeout ",
                       absl::FormatDuration(timeout));
  if (timeout == absl::InfiniteDuration()) {
    v.reason = std::string(waiting);
    absl::StrAppend(&v.why, " (never fires)");
    return v;
  }
  v.due = start + timeout;
  const bool fire = now >= *v.due;
  v.action = fire ? LivenessAction::kDeleteNodeClaim : LivenessAction::kNone;
  v.reason = std::string(fire ? fired : waiting);
  absl::StrAppend(&v.why, fire ? " elapsed at " : " elapses at ",
                  FormatRfc3339(*v.due));
  return v;
}

// Rules 1 and 2; nullopt once the NodeClaim is registered. While Launched is
// not True only the launch rule runs, as liveness.go returns early.
std::optional<LivenessVerdict> CheckLifecycle(const v1::NodeClaim& claim,
                                              absl::Time now,
                                              const LivenessOptions& o) {
  const auto& conditions = claim.status().conditions();
  const v1::Condition* launched =
      FindCondition(conditions, well_known::kConditionTypeLaunched);
  if (!IsConditionTrue(launched)) {
    return TimeoutRule(launched, well_known::kConditionTypeLaunched,
                       claim.metadata(), o.launch_timeout, kReasonLaunchTimeout,
                       "launching", now);
  }
  const v1::Condition* registered =
      FindCondition(conditions, well_known::kConditionTypeRegistered);
  if (IsConditionTrue(registered)) return std::nullopt;
  return TimeoutRule(registered, well_known::kConditionTypeRegistered,
                     claim.metadata(), o.registration_timeout,
                     kReasonRegistrationTimeout, "registering", now);
}

// The annotation value a repair writes: now, unless `claim` already holds a
// parseable time before now ("" then: keep it).
std::string TerminationTimestamp(const v1::NodeClaim& claim, absl::Time now) {
  const auto& annotations = claim.metadata().annotations();
  auto it = annotations.find(
      std::string(well_known::kNodeClaimTerminationTimestampAnnotationKey));
  if (it != annotations.end()) {
    absl::StatusOr<absl::Time> t = drain::ParseRfc3339(it->second, "");
    if (t.ok() && *t < now) return "";
  }
  return FormatRfc3339(TruncateToSecond(now));
}

// Rule 3 for a registered NodeClaim `claim` whose Node is `node`.
void CheckRepair(const v1::NodeClaim& claim, const v1::Node& node,
                 const HealthIndex& health, absl::Time now,
                 const LivenessOptions& o, LivenessVerdict& v) {
  if (node.metadata().has_deletion_timestamp()) {
    v.reason = "node_deleting";
    v.why = absl::StrCat("Node \"", v.node, "\" is being deleted");
    return;
  }
  if (!o.node_repair_enabled || o.repair_policies.empty()) {
    v.reason = "repair_disabled";
    v.why = o.node_repair_enabled
                ? "node repair has no policies (repair_policies is empty)"
                : "node repair is disabled (node_repair_enabled is false)";
    return;
  }
  const std::optional<PolicyMatch> m = EarliestMatch(node, o.repair_policies);
  if (!m.has_value()) {
    v.reason = "node_healthy";
    v.why = absl::StrCat("Node \"", v.node, "\" matches none of the ",
                         o.repair_policies.size(), " repair policies");
    return;
  }
  const RepairPolicy& p = *m->policy;
  v.condition = p.condition_type;
  const std::string since = absl::StrCat(
      "Node \"", v.node, "\" condition ", p.condition_type, " is ", m->status,
      m->status == "absent" ? " (counted as Unknown)" : "", " since ",
      FormatRfc3339(m->since));
  if (p.toleration == absl::InfiniteDuration()) {
    v.reason = "tolerated";
    v.why =
        absl::StrCat(since, "; the toleration is infinite (never repaired)");
    return;
  }
  if (now < m->due) {
    v.reason = "tolerated";
    v.due = m->due;
    v.why = absl::StrCat(since, "; repair after ",
                         absl::FormatDuration(p.toleration), ", at ",
                         FormatRfc3339(m->due));
    return;
  }
  const PoolHealth h = health.Of(v.node_pool);
  const int64_t threshold =
      UnhealthyThreshold(o.max_unhealthy_fraction, h.nodes);
  const std::string scope =
      v.node_pool.empty() ? std::string("the cluster")
                          : absl::StrCat("NodePool \"", v.node_pool, "\"");
  const std::string counts =
      absl::StrCat(h.unhealthy, " of ", h.nodes, " nodes of ", scope,
                   " are unhealthy; at most ", threshold, " (",
                   o.max_unhealthy_fraction * 100, "% rounded up) may be");
  if (h.unhealthy > threshold) {
    v.action = LivenessAction::kBlocked;
    v.reason = "repair_blocked";
    v.due = now + kRepairBlockedRecheck;
    v.why = absl::StrCat(since, "; repair blocked: ", counts);
    return;
  }
  v.action = LivenessAction::kDeleteNodeClaim;
  v.reason = std::string(kReasonUnhealthy);
  v.due = m->due;
  v.node_pool =
      internal::LabelOf(node.metadata(), well_known::kNodePoolLabelKey);
  v.capacity_type =
      internal::LabelOf(node.metadata(), well_known::kCapacityTypeLabelKey);
  v.termination_timestamp = TerminationTimestamp(claim, now);
  v.why = absl::StrCat(since, ", past ", absl::FormatDuration(p.toleration),
                       "; ", counts);
}

LivenessVerdict Evaluate(const snapshot::Snapshot& snapshot,
                         const internal::NodesByProviderId& by_id,
                         const HealthIndex& health, const v1::NodeClaim& claim,
                         absl::Time now, const LivenessOptions& o) {
  LivenessVerdict base;
  base.node_claim = claim.metadata().name();
  base.node_pool =
      internal::LabelOf(claim.metadata(), well_known::kNodePoolLabelKey);
  base.capacity_type =
      internal::LabelOf(claim.metadata(), well_known::kCapacityTypeLabelKey);
  base.image_id = claim.status().image_id();
  const std::optional<snapshot::NodeIndex> node =
      internal::NodeOfClaim(snapshot, by_id, claim);
  if (node.has_value()) base.node = snapshot.nodes()[*node].metadata().name();
  if (claim.metadata().has_deletion_timestamp()) {
    base.reason = "deleting";
    base.why = absl::StrCat(
        "NodeClaim is being deleted since ",
        FormatRfc3339(TimeFromProto(claim.metadata().deletion_timestamp())));
    if (!node.has_value()) return base;
    // Karpenter's health controller still forces the drain of a deleting
    // NodeClaim whose Node is due for repair (it annotates, then skips the
    // delete), and still reports a blocked repair.
    LivenessVerdict repair = base;
    CheckRepair(claim, snapshot.nodes()[*node], health, now, o, repair);
    switch (repair.action) {
      case LivenessAction::kNone:
        base.due = repair.due;
        return base;
      case LivenessAction::kDeleteNodeClaim:
        if (repair.termination_timestamp.empty()) return base;
        repair.action = LivenessAction::kAnnotateNodeClaim;
        break;
      case LivenessAction::kBlocked:
      case LivenessAction::kAnnotateNodeClaim:
        break;
    }
    repair.why = absl::StrCat(base.why, "; ", repair.why);
    return repair;
  }
  if (std::optional<LivenessVerdict> v = CheckLifecycle(claim, now, o)) {
    v->node_claim = std::move(base.node_claim);
    v->node = std::move(base.node);
    v->node_pool = std::move(base.node_pool);
    v->capacity_type = std::move(base.capacity_type);
    v->image_id = std::move(base.image_id);
    return *std::move(v);
  }
  if (!node.has_value()) {
    base.reason = "node_missing";
    base.why =
        "registered, but its Node is not in the snapshot (left to garbage "
        "collection)";
    return base;
  }
  CheckRepair(claim, snapshot.nodes()[*node], health, now, o, base);
  return base;
}

}  // namespace

absl::Status LivenessOptions::Validate() const {
  for (const auto& [field, d] :
       {std::pair<absl::string_view, absl::Duration>{"launch_timeout",
                                                     launch_timeout},
        {"registration_timeout", registration_timeout}}) {
    if (absl::Status s = CheckTimeout(field, d); !s.ok()) return s;
  }
  for (size_t i = 0; i < repair_policies.size(); ++i) {
    const RepairPolicy& p = repair_policies[i];
    const std::string path = absl::StrCat("repair_policies[", i, "]");
    if (p.condition_type.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ".condition_type: \"\": must not be empty"));
    }
    if (p.condition_status != well_known::kConditionTrue &&
        p.condition_status != well_known::kConditionFalse &&
        p.condition_status != well_known::kConditionUnknown) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ".condition_status: \"", p.condition_status,
                       "\": must be \"True\", \"False\" or \"Unknown\""));
    }
    if (absl::Status s =
            CheckTimeout(absl::StrCat(path, ".toleration"), p.toleration);
        !s.ok()) {
      return s;
    }
  }
  if (!(max_unhealthy_fraction >= 0 && max_unhealthy_fraction <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_unhealthy_fraction: \"", max_unhealthy_fraction,
                     "\": must be between 0 and 1"));
  }
  return absl::OkStatus();
}

absl::string_view LivenessActionName(LivenessAction action) {
  switch (action) {
    case LivenessAction::kNone:
      return "None";
    case LivenessAction::kDeleteNodeClaim:
      return "DeleteNodeClaim";
    case LivenessAction::kBlocked:
      return "Blocked";
    case LivenessAction::kAnnotateNodeClaim:
      return "AnnotateNodeClaim";
  }
  return "Unknown";
}

absl::StatusOr<LivenessReport> EvaluateLiveness(
    const snapshot::Snapshot& snapshot, absl::Time now,
    const LivenessOptions& options) {
  if (absl::Status s = options.Validate(); !s.ok()) return s;
  const internal::NodesByProviderId by_id(snapshot);
  const HealthIndex health(snapshot, options.repair_policies);
  LivenessReport report;
  report.now = now;
  report.verdicts.reserve(snapshot.node_claims().size());
  for (const v1::NodeClaim& claim : snapshot.node_claims()) {
    LivenessVerdict v = Evaluate(snapshot, by_id, health, claim, now, options);
    if (v.due.has_value() && *v.due > now && *v.due != absl::InfiniteFuture() &&
        (!report.next_wake.has_value() || *v.due < *report.next_wake)) {
      report.next_wake = v.due;
    }
    report.verdicts.push_back(std::move(v));
  }
  return report;
}

}  // namespace karpenter::termination
