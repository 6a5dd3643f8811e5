// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/drain/tiers.h"

#include <array>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "karpenter/drain/deadline.h"

namespace karpenter::drain {
namespace {

// Decides a waiting pod's force-delete; returns true if it is deleted now.
bool DecideForceDelete(const v1::Pod& pod, std::optional<absl::Time> deadline,
                       absl::Time now, PodDecision& d) {
  d.force_delete_at = ForceDeleteAt(pod, deadline, now);
  if (!NeedsForceDelete(pod, deadline, now)) return false;
  d.action = PodAction::kForceDelete;
  d.force_delete_grace_seconds = ForceDeleteGraceSeconds(*deadline, now);
  return true;
}

// Fills the action and reason of a graceful waiting pod once the tier being
// drained (`current`) is known.
void DecideGraceful(Tier current, PodDecision& d) {
  const PodClass& c = d.pod_class;
  if (d.tier == current) d.action = PodAction::kEnqueue;
  if (c.terminating) {
    d.reason = HoldReason::kTerminating;
  } else if (d.tier != current) {
    d.reason = HoldReason::kEarlierTier;
  } else if (c.do_not_disrupt.active()) {
    d.reason = HoldReason::kDoNotDisrupt;
    d.until = c.do_not_disrupt.until;
  }
}

}  // namespace

absl::string_view TierName(Tier tier) {
  switch (tier) {
    case Tier::kNonCriticalNonDaemonSet:
      return "NonCriticalNonDaemonSet";
    case Tier::kNonCriticalDaemonSet:
      return "NonCriticalDaemonSet";
    case Tier::kCriticalNonDaemonSet:
      return "CriticalNonDaemonSet";
    case Tier::kCriticalDaemonSet:
      return "CriticalDaemonSet";
  }
  return "Unknown";
}

Tier TierOf(const PodClass& c) {
  if (c.critical) {
    return c.daemonset ? Tier::kCriticalDaemonSet : Tier::kCriticalNonDaemonSet;
  }
  return c.daemonset ? Tier::kNonCriticalDaemonSet
                     : Tier::kNonCriticalNonDaemonSet;
}

absl::string_view PodActionName(PodAction action) {
  switch (action) {
    case PodAction::kNone:
      return "None";
    case PodAction::kEnqueue:
      return "Enqueue";
    case PodAction::kForceDelete:
      return "ForceDelete";
  }
  return "Unknown";
}

absl::string_view HoldReasonName(HoldReason reason) {
  switch (reason) {
    case HoldReason::kNone:
      return "None";
    case HoldReason::kNotDrained:
      return "NotDrained";
    case HoldReason::kTerminating:
      return "Terminating";
    case HoldReason::kDoNotDisrupt:
      return "DoNotDisrupt";
    case HoldReason::kEarlierTier:
      return "EarlierTier";
  }
  return "Unknown";
}

std::string DrainPass::Message() const {
  if (done) return "";
  return absl::StrCat(waiting, " pods are waiting to be evicted");
}

absl::StatusOr<DrainPass> PlanDrainPass(const snapshot::Snapshot& snapshot,
                                        snapshot::NodeIndex n,
                                        std::optional<absl::Time> deadline,
                                        absl::Time now) {
  snapshot::DecodedPods pods(snapshot);
  return PlanDrainPass(pods, n, deadline, now);
}

absl::StatusOr<DrainPass> PlanDrainPass(snapshot::DecodedPods& pods,
                                        snapshot::NodeIndex n,
                                        std::optional<absl::Time> deadline,
                                        absl::Time now) {
  const snapshot::Snapshot& snapshot = pods.snapshot();
  if (n >= snapshot.nodes().size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("node index ", n, " out of range (snapshot has ",
                     snapshot.nodes().size(), " nodes)"));
  }
  DrainPass pass;
  std::array<int, kTierCount> graceful_per_tier{};
  for (snapshot::PodIndex p : snapshot.PodsOnNode(n)) {
    const v1::Pod& pod = pods.Get(p);
    PodDecision& d = pass.pods.emplace_back();
    d.pod = p;
    d.pod_class = Classify(pod, now);
    d.tier = TierOf(d.pod_class);
    if (!d.pod_class.waiting) {
      d.reason = HoldReason::kNotDrained;
      continue;
    }
    ++pass.waiting;
    if (DecideForceDelete(pod, deadline, now, d)) {
      pass.force_delete.push_back(p);
    } else {
      ++graceful_per_tier[static_cast<int>(d.tier)];
    }
  }
  for (int t = 0; t < kTierCount && !pass.tier.has_value(); ++t) {
    if (graceful_per_tier[t] > 0) pass.tier = static_cast<Tier>(t);
  }
  for (PodDecision& d : pass.pods) {
    if (!d.pod_class.waiting || d.action == PodAction::kForceDelete) continue;
    DecideGraceful(*pass.tier, d);
    if (d.action == PodAction::kEnqueue) pass.enqueue.push_back(d.pod);
  }
  pass.done = pass.waiting == 0;
  return pass;
}

}  // namespace karpenter::drain
