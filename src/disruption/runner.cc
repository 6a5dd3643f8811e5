// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#include "karpenter/disruption/runner.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/status_macros.h"
#include "karpenter/disruption/consolidation.h"
#include "karpenter/drift/verdict.h"
#include "karpenter/time_util.h"
#include "karpenter/well_known.h"

namespace karpenter::disruption {
namespace {

std::string StatusText(const absl::Status& s) {
  return absl::StrCat(absl::StatusCodeToString(s.code()), ": ", s.message());
}

// The Drifted condition writes of a plan.
void ApplyDriftUpdates(ClusterView& view, const Plan& plan,
                       std::vector<std::string>& errors) {
  for (const DriftConditionUpdate& u : plan.drift_updates) {
    absl::Status s;
    if (u.change == drift::DriftConditionChange::kSet) {
      v1::Condition c;
      c.set_type(std::string(well_known::kConditionTypeDrifted));
      c.set_status(std::string(well_known::kConditionTrue));
      c.set_reason(u.reason);
      c.set_message(u.reason);
      *c.mutable_last_transition_time() = TimeToProto(u.since);
      s = view.SetNodeClaimCondition(u.node_claim, c);
    } else if (u.change == drift::DriftConditionChange::kRemove) {
      s = view.RemoveNodeClaimCondition(u.node_claim,
                                        well_known::kConditionTypeDrifted);
    }
    if (!s.ok() && !absl::IsNotFound(s)) {
      errors.push_back(absl::StrCat("Drifted condition of ", u.node_claim, ": ",
                                    StatusText(s)));
    }
  }
}

// NodeClaims with a Node: what the rollout's batch fraction is taken of.
int64_t ManagedNodes(const snapshot::Snapshot& snap) {
  int64_t n = 0;
  for (const v1::NodeClaim& c : snap.node_claims()) {
    n += !c.status().node_name().empty();
  }
  return n;
}

// "churn", "budget", "scheduling" or "unknown": the prefix of
// Controller::Validate's FailedPrecondition (Karpenter's
// `getValidationFailureReason`).
absl::string_view ValidationFailureReason(const absl::Status& status) {
  if (!absl::IsFailedPrecondition(status)) return "unknown";
  const absl::string_view message = status.message();
  for (absl::string_view reason : {"churn", "budget", "scheduling"}) {
    if (absl::StartsWith(message, absl::StrCat(reason, ":"))) return reason;
  }
  return "unknown";
}

}  // namespace

void Runner::RecordValidation(const Command& command,
                              const absl::StatusOr<Command>& valid) {
  const bool consolidation =
      command.method == Method::kMultiNodeConsolidation ||
      command.method == Method::kSingleNodeConsolidation;
  if (command.method != Method::kEmptiness && !consolidation) return;
  const absl::string_view reason =
      valid.ok() ? absl::string_view()
                 : ValidationFailureReason(valid.status());
  // validation.go: emptiness counts each candidate that dropped out;
  // consolidation counts the whole command when a candidate changed
  // (churn) or its budget is gone, not when the simulation disagrees.
  double failed = 0;
  if (command.method == Method::kEmptiness) {
    failed = static_cast<double>(command.candidates.size() -
                                 (valid.ok() ? valid->candidates.size() : 0));
  } else if (reason == "churn" || reason == "budget") {
    failed = static_cast<double>(command.candidates.size());
  }
  if (failed > 0) {
    metrics_.Add(metrics::kVoluntaryDisruptionFailedValidationsTotal,
                 {{std::string(metrics::kConsolidationTypeLabel),
                   std::string(ConsolidationTypeName(command.method))}},
                 failed);
  }
  if (consolidation && !valid.ok()) {
    for (const Event& e : ConsolidationRejectedEvents(command, reason)) {
      recorder_.Record(e);
    }
  }
}

absl::StatusOr<std::unique_ptr<Runner>> Runner::Create(
    ClusterView& view, CloudProvider& cloud, EventRecorder& recorder,
    Metrics& metrics, Clock& clock, RunnerOptions options) {
  KARPENTER_ASSIGN_OR_RETURN(
      std::unique_ptr<Orchestrator> orchestrator,
      Orchestrator::Create(view, cloud, recorder, metrics, clock,
                           options.orchestrator));
  return std::unique_ptr<Runner>(new Runner(view, cloud, recorder, metrics,
                                            clock, std::move(options),
                                            std::move(orchestrator)));
}

Runner::Runner(ClusterView& view, CloudProvider& cloud, EventRecorder& recorder,
               Metrics& metrics, Clock& clock, RunnerOptions options,
               std::unique_ptr<Orchestrator> orchestrator)
    : view_(view),
      cloud_(cloud),
      recorder_(recorder),
      metrics_(metrics),
      clock_(clock),
      options_(options),
      controller_(options.controller),
      orchestrator_(std::move(orchestrator)) {}

absl::StatusOr<RunReport> Runner::RunOnce() {
  RunReport report;
  const absl::Time now = clock_.Now();
  {
    KARPENTER_ASSIGN_OR_RETURN(snapshot::Snapshot before, view_.Read());
    KARPENTER_ASSIGN_OR_RETURN(report.orchestration,
                               orchestrator_->Reconcile(before));
  }
  // Read again: the pass must see the deletions and rollbacks just made.
  auto pass = std::make_unique<PassState>();
  KARPENTER_ASSIGN_OR_RETURN(pass->snapshot, view_.Read());
  const snapshot::Snapshot& snap = pass->snapshot;
  if (absl::StatusOr<std::vector<std::string>> cleaned =
          orchestrator_->CleanUp(snap);
      !cleaned.ok()) {
    report.errors.push_back(
        absl::StrCat("cleanup: ", StatusText(cleaned.status())));
  }

  // Built once: validation and the pass read the same snapshot. Built
  // from the previous pass's facts: what the parts and pod shapes the two
  // snapshots share decide is taken from there (a view whose snapshots
  // share nothing, as Snapshot::Build makes them, gains nothing).
  pass->facts = std::make_unique<const SnapshotFacts>(SnapshotFacts::Build(
      snap, controller_.options().budgets,
      previous_ != nullptr ? previous_->facts.get() : nullptr));
  const SnapshotFacts& facts = *pass->facts;
  previous_.reset();
  PassInputs inputs;
  inputs.drift = drift::ObserveDrift(cloud_, facts.drift(), &inputs.catalog);
  inputs.in_flight = orchestrator_->InFlightProviderIds();
  inputs.in_flight_replacements = orchestrator_->InFlightReplacements();
  for (const auto& [pool, until] : orchestrator_->Backoffs()) {
    inputs.node_pool_backoff.emplace(pool, until);
  }

  // Commands whose validation time has come are validated against this
  // snapshot, without their own candidates counted as in flight.
  std::vector<Command> due;
  std::vector<Command> still_waiting;
  for (Command& c : waiting_) {
    (c.validate_at.value_or(now) <= now ? due : still_waiting)
        .push_back(std::move(c));
  }
  waiting_ = std::move(still_waiting);
  for (const Command& c : waiting_) {
    for (const Candidate& cand : c.candidates) {
      inputs.in_flight.insert(cand.provider_id);
    }
  }
  for (const Command& c : due) {
    absl::StatusOr<Command> valid = controller_.Validate(c, facts, inputs, now);
    RecordValidation(c, valid);
    if (!valid.ok()) {
      report.rejected.push_back(
          absl::StrCat(MethodName(c.method), ": ", valid.status().message()));
      continue;
    }
    if (absl::Status s = orchestrator_->Start(*valid); !s.ok()) {
      report.errors.push_back(
          absl::StrCat("start ", MethodName(c.method), ": ", StatusText(s)));
      continue;
    }
    ++report.started;
    for (const Candidate& cand : valid->candidates) {
      inputs.in_flight.insert(cand.provider_id);
    }
  }

  // The rollout's slots, less what validation just started.
  const int64_t slots =
      std::max<int64_t>(orchestrator_->SlotsAvailable(ManagedNodes(snap)) -
                            static_cast<int64_t>(waiting_.size()),
                        0);
  inputs.max_commands = slots;
  KARPENTER_ASSIGN_OR_RETURN(report.plan,
                             controller_.Decide(facts, inputs, now));
  for (const Event& e : report.plan.events) recorder_.Record(e);
  for (const MetricSample& m : report.plan.metrics) Record(m, metrics_);
  ApplyDriftUpdates(view_, report.plan, report.errors);
  int64_t budgeted_started = 0;
  for (const Command& c : report.plan.commands) {
    if (c.validate_at.has_value()) {
      waiting_.push_back(c);
      continue;
    }
    const bool forceful = ClassOf(c.method) == MethodClass::kForceful;
    if (!forceful && slots >= 0 && budgeted_started >= slots) continue;
    if (absl::Status s = orchestrator_->Start(c); !s.ok()) {
      report.errors.push_back(
          absl::StrCat("start ", MethodName(c.method), ": ", StatusText(s)));
      continue;
    }
    ++report.started;
    if (!forceful) ++budgeted_started;
  }
  report.waiting_validation = static_cast<int64_t>(waiting_.size());

  previous_ = std::move(pass);
  report.next_wake = report.plan.next_pass;
  if (report.orchestration.next_wake.has_value()) {
    report.next_wake =
        std::min(report.next_wake, *report.orchestration.next_wake);
  }
  for (const Command& c : waiting_) {
    report.next_wake = std::min(report.next_wake, *c.validate_at);
  }
  return report;
}

}  // namespace karpenter::disruption
