// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/termination/executor.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace karpenter::termination {
namespace {

std::string Key(ObjectKind object, absl::string_view name) {
  return absl::StrCat(ObjectKindName(object), "/", name);
}

bool IsTerminatingStep(Step step) {
  switch (step) {
    case Step::kGone:
    case Step::kNotManaged:
    case Step::kAddFinalizer:
    case Step::kActive:
    case Step::kReleased:
    case Step::kInstanceGone:     // Finished: the finalizer is removed.
    case Step::kRemoveFinalizer:  // Likewise.
      return false;
    default:
      return true;
  }
}

// What for_test.side_effect_limit counts: ClusterView mutations. Cloud calls
// are idempotent polls and drainer registration is soft state.
bool IsSideEffect(ActionKind kind) {
  switch (kind) {
    case ActionKind::kRecordEvent:
    case ActionKind::kDrain:
    case ActionKind::kGetInstance:
    case ActionKind::kDeleteInstance:
      return false;
    default:
      return true;
  }
}

absl::Status Prefix(const Action& action, const absl::Status& status) {
  return absl::Status(status.code(),
                      absl::StrCat(action.Describe(), ": ", status.message()));
}

}  // namespace

// The state of one object's reconcile.
struct Executor::Reconcile {
  InstanceObservation instance = InstanceObservation::kUnknown;
  // Describe() of the actions applied, to skip them on a second decision.
  std::set<std::string> done;
  ReconcileReport report;
  // The object went away under a mutation (NotFound): stop.
  bool gone = false;
};

absl::StatusOr<std::unique_ptr<Executor>> Executor::Create(
    ClusterView& view, EvictionClient& evictions, CloudProvider& cloud,
    EventRecorder& recorder, Metrics& metrics, const Clock& clock,
    ExecutorOptions options) {
  if (options.backoff_base <= absl::ZeroDuration() ||
      options.backoff_max < options.backoff_base) {
    return absl::InvalidArgumentError(absl::StrCat(
        "backoff_base: \"", absl::FormatDuration(options.backoff_base),
        "\" must be > 0 and <= backoff_max \"",
        absl::FormatDuration(options.backoff_max), "\""));
  }
  if (options.for_test.side_effect_limit < -1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "for_test.side_effect_limit: ", options.for_test.side_effect_limit,
        " must be -1 (no limit) or >= 0"));
  }
  if (options.decide.min_drain_time < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "decide.min_drain_time: \"",
        absl::FormatDuration(options.decide.min_drain_time), "\" is negative"));
  }
  KARPENTER_ASSIGN_OR_RETURN(
      std::unique_ptr<drain::Drainer> drainer,
      drain::Drainer::Create(view, evictions, clock, options.drainer));
  return std::unique_ptr<Executor>(new Executor(view, evictions, cloud,
                                                recorder, metrics, clock,
                                                options, std::move(drainer)));
}

Executor::Executor(ClusterView& view, EvictionClient& /*evictions*/,
                   CloudProvider& cloud, EventRecorder& recorder,
                   Metrics& metrics, const Clock& clock,
                   ExecutorOptions options,
                   std::unique_ptr<drain::Drainer> drainer)
    : view_(view),
      cloud_(cloud),
      recorder_(recorder),
      metrics_(metrics),
      clock_(clock),
      options_(std::move(options)),
      drainer_(std::move(drainer)) {}

Executor::~Executor() = default;

bool Executor::LimitReached() const {
  return options_.for_test.side_effect_limit >= 0 &&
         side_effects_ >= options_.for_test.side_effect_limit;
}

absl::StatusOr<Decision> Executor::Decide(const snapshot::Snapshot& snapshot,
                                          ObjectKind object,
                                          const std::string& name,
                                          absl::Time now,
                                          InstanceObservation instance) const {
  if (object == ObjectKind::kNode) {
    return DecideNode(snapshot, name, now, options_.decide, instance);
  }
  return DecideNodeClaim(snapshot, name, now, instance);
}

void Executor::RecordSamples(const std::vector<MetricSample>& samples) {
  for (const MetricSample& s : samples) {
    if (s.verb == MetricSample::Verb::kAdd) {
      metrics_.Add(s.name, s.labels, s.value);
    } else {
      metrics_.Observe(s.name, s.labels, s.value);
    }
  }
}

absl::Status Executor::ApplyMutation(const Action& a) {
  switch (a.kind) {
    case ActionKind::kAddFinalizer:
      return view_.AddFinalizer(a.object, a.name, a.key);
    case ActionKind::kRemoveFinalizer:
      return view_.RemoveFinalizer(a.object, a.name, a.key);
    case ActionKind::kDeleteNode:
      return view_.DeleteNode(a.name);
    case ActionKind::kDeleteNodeClaim:
      return view_.DeleteNodeClaim(a.name);
    case ActionKind::kTaintNode:
      return view_.TaintNode(a.name, a.taint);
    case ActionKind::kSetLabel:
      return view_.SetLabel(a.object, a.name, a.key, a.value);
    case ActionKind::kSetAnnotation:
      return view_.SetAnnotation(a.object, a.name, a.key, a.value);
    case ActionKind::kSetCondition:
      return view_.SetNodeClaimCondition(a.name, a.condition);
    default:
      return absl::InternalError(
          absl::StrCat("not a mutation: ", ActionKindName(a.kind)));
  }
}

absl::Status Executor::ApplyCloud(Reconcile& r, const Action& a) {
  absl::Status status;
  if (a.kind == ActionKind::kGetInstance) {
    status = cloud_.Get(a.provider_id).status();
  } else {
    status = cloud_.Delete(a.provider_id);
  }
  if (status.ok()) {
    r.instance = InstanceObservation::kExists;
    return absl::OkStatus();
  }
  if (absl::IsNotFound(status)) {
    r.instance = InstanceObservation::kGone;
    return absl::OkStatus();
  }
  const std::string& claim = r.report.decision.node_claim.empty()
                                 ? a.name
                                 : r.report.decision.node_claim;
  recorder_.Record(Event{std::string(ObjectKindName(ObjectKind::kNodeClaim)),
                         "", claim, EventType::kWarning,
                         std::string(events::kFailedInstanceTermination),
                         absl::StrCat(ActionKindName(a.kind), " ",
                                      a.provider_id, ": ", status.ToString())});
  return status;
}

absl::Status Executor::Apply(Reconcile& r, const Action& a) {
  switch (a.kind) {
    case ActionKind::kRecordEvent:
      recorder_.Record(a.event);
      return absl::OkStatus();
    case ActionKind::kDrain:
      return drainer_->Drain(a.name, options_.decide.external_deadline);
    case ActionKind::kGetInstance:
    case ActionKind::kDeleteInstance:
      return ApplyCloud(r, a);
    default:
      break;
  }
  ++side_effects_;
  absl::Status status = ApplyMutation(a);
  if (absl::IsNotFound(status)) {
    // The object is gone: nothing left to do for it (ClusterView contract).
    r.gone = true;
    return absl::OkStatus();
  }
  return status;
}

ReconcileReport Executor::ReconcileObject(const snapshot::Snapshot& snapshot,
                                          ObjectKind object,
                                          const std::string& name,
                                          absl::Time now) {
  Reconcile r;
  r.report.object = object;
  r.report.name = name;
  // A cloud answer changes the observation at most twice (Get, then Delete
  // or nothing), so three decisions always reach a wait or the end.
  for (int round = 0; round < 3 && !r.gone; ++round) {
    const InstanceObservation before = r.instance;
    absl::StatusOr<Decision> decision =
        Decide(snapshot, object, name, now, r.instance);
    if (!decision.ok()) {
      r.report.error = decision.status();
      return std::move(r.report);
    }
    r.report.decision = *std::move(decision);
    for (const Action& a : r.report.decision.actions) {
      const std::string line = a.Describe();
      if (a.kind != ActionKind::kRecordEvent && r.done.contains(line)) continue;
      if (LimitReached() && IsSideEffect(a.kind)) {
        r.report.error = absl::AbortedError("side_effect_limit reached");
        return std::move(r.report);
      }
      absl::Status status = Apply(r, a);
      if (!status.ok()) {
        r.report.error = Prefix(a, status);
        return std::move(r.report);
      }
      RecordSamples(a.on_success);
      r.done.insert(line);
      r.report.applied.push_back(line);
      if (r.gone || r.instance != before) break;
    }
    if (r.instance == before) break;
  }
  return std::move(r.report);
}

void Executor::Schedule(ReconcileReport& report, absl::Time now) {
  Backoff& b = backoff_[Key(report.object, report.name)];
  if (!report.error.ok()) {
    ++b.failures;
    absl::Duration delay = options_.backoff_base;
    for (int i = 1; i < b.failures && delay < options_.backoff_max; ++i) {
      delay *= 2;
    }
    b.due = now + std::min(delay, options_.backoff_max);
    report.next_due = b.due;
    return;
  }
  b.failures = 0;
  if (report.decision.requeue_after.has_value()) {
    b.due = now + *report.decision.requeue_after;
    report.next_due = b.due;
  } else {
    // Only a change in the cluster matters: look again every pass, but
    // nothing to wake up for.
    b.due = absl::InfinitePast();
    report.next_due = absl::InfiniteFuture();
  }
}

absl::Status Executor::StepDrainer(PassReport& report) {
  if (drainer_->nodes().empty() || LimitReached()) return absl::OkStatus();
  absl::StatusOr<drain::StepReport> step = drainer_->Step();
  if (!step.ok()) {
    return absl::Status(step.status().code(),
                        absl::StrCat("drain: ", step.status().message()));
  }
  const drain::DrainCounts& counts = step->counts;
  if (counts.evict_calls + counts.force_deletes > 0) ++side_effects_;
  for (const auto& [code, n] : counts.evict_http_status) {
    metrics_.Add(metrics::kPodsEvictionRequestsTotal,
                 {{std::string(metrics::kCodeLabel), absl::StrCat(code)}},
                 static_cast<double>(n));
  }
  for (const drain::DrainerEvent& e : step->events) {
    recorder_.Record(Event{"Node", "", e.node, EventType::kWarning,
                           e.event.reason, e.event.message});
  }
  report.next_wake = std::min(report.next_wake, step->next_wake);
  report.drain = *std::move(step);
  return absl::OkStatus();
}

absl::StatusOr<PassReport> Executor::RunOnce() {
  PassReport report;
  report.now = clock_.Now();
  absl::StatusOr<snapshot::Snapshot> snapshot = view_.Read();
  if (!snapshot.ok()) {
    return absl::Status(
        snapshot.status().code(),
        absl::StrCat("read cluster: ", snapshot.status().message()));
  }
  std::vector<std::pair<ObjectKind, std::string>> objects;
  for (const v1::Node& n : snapshot->nodes()) {
    objects.emplace_back(ObjectKind::kNode, n.metadata().name());
  }
  for (const v1::NodeClaim& c : snapshot->node_claims()) {
    objects.emplace_back(ObjectKind::kNodeClaim, c.metadata().name());
  }
  std::sort(objects.begin(), objects.end());
  std::map<std::string, Backoff> seen;
  for (const auto& [object, name] : objects) {
    const std::string key = Key(object, name);
    auto it = backoff_.find(key);
    if (it != backoff_.end() && it->second.due > report.now) {
      seen.insert(*it);
      report.terminating += 1;  // Only waiting objects have a future due.
      report.next_wake = std::min(report.next_wake, it->second.due);
      continue;
    }
    if (report.interrupted) continue;
    const int64_t before = side_effects_;
    ReconcileReport r = ReconcileObject(*snapshot, object, name, report.now);
    report.mutations += side_effects_ - before;
    if (absl::IsAborted(r.error) && LimitReached()) report.interrupted = true;
    if (!IsTerminatingStep(r.decision.step) && r.applied.empty() &&
        r.error.ok()) {
      continue;  // Nothing to do and nothing to wait for.
    }
    Schedule(r, report.now);
    seen[key] = backoff_[key];
    if (IsTerminatingStep(r.decision.step) || !r.error.ok()) {
      report.terminating += 1;
      report.next_wake = std::min(report.next_wake, r.next_due);
    }
    report.reconciled.push_back(std::move(r));
  }
  backoff_ = std::move(seen);
  if (!report.interrupted) {
    KARPENTER_RETURN_IF_ERROR(StepDrainer(report));
  }
  return report;
}

}  // namespace karpenter::termination
