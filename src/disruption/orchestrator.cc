// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/disruption/orchestrator.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "karpenter/conditions.h"
#include "karpenter/taints.h"
#include "karpenter/time_util.h"
#include "karpenter/well_known.h"

namespace karpenter::disruption {

struct Orchestrator::Entry {
  struct Launched {
    std::string node_claim;
    std::string provider_id;
    bool initialized = false;
    bool announced = false;
  };
  Command command;
  absl::Time started;
  std::vector<Launched> replacements;
  // Per candidate: its NodeClaim delete succeeded (or found it gone).
  std::vector<bool> deleted;
  // After a failed delete: not before this instant.
  absl::Time retry_at = absl::InfinitePast();
};

namespace {

constexpr absl::Duration kRetryDelay = absl::Seconds(1);

// The metric `reason` label: lower snake case of the condition reason.
std::string MetricReason(Method method) {
  switch (method) {
    case Method::kNodePoolDeleted:
      return "nodepool_deleted";
    case Method::kExpiration:
      return "expired";
    case Method::kEmptiness:
      return "empty";
    case Method::kStaticDrift:
    case Method::kDrift:
      return "drifted";
    case Method::kMultiNodeConsolidation:
    case Method::kSingleNodeConsolidation:
      return "underutilized";
  }
  return "";
}

MetricLabels DecisionLabels(const Command& command) {
  return {{std::string(metrics::kDecisionLabel),
           std::string(DecisionLabel(command.decision()))},
          {std::string(metrics::kReasonLabel), MetricReason(command.method)},
          {std::string(metrics::kConsolidationTypeLabel),
           std::string(ConsolidationTypeName(command.method))}};
}

// "Drift [n1, n2]" for log lines.
std::string Describe(const Command& command) {
  std::vector<absl::string_view> nodes;
  for (const Candidate& c : command.candidates) nodes.push_back(c.node_name);
  return absl::StrCat(MethodName(command.method), " [",
                      absl::StrJoin(nodes, ", "), "]");
}

// The NodePools a command touches, sorted and distinct.
std::vector<std::string> NodePoolsOf(const Command& command) {
  std::set<std::string> pools;
  for (const Candidate& c : command.candidates) {
    if (!c.node_pool_name.empty()) pools.insert(c.node_pool_name);
  }
  for (const Replacement& r : command.replacements) {
    if (!r.node_pool.empty()) pools.insert(r.node_pool);
  }
  return {pools.begin(), pools.end()};
}

bool Gone(const absl::Status& s) { return s.ok() || absl::IsNotFound(s); }

absl::Status Prefixed(const absl::Status& s, absl::string_view prefix) {
  return absl::Status(s.code(), absl::StrCat(prefix, s.message()));
}

// The Node of `claim`: by status.nodeName, else by providerID.
const v1::Node* NodeOf(const snapshot::Snapshot& snapshot,
                       const v1::NodeClaim& claim) {
  if (!claim.status().node_name().empty()) {
    if (auto n = snapshot.FindNode(claim.status().node_name())) {
      return &snapshot.nodes()[*n];
    }
  }
  const std::string& id = claim.status().provider_id();
  if (id.empty()) return nullptr;
  for (const v1::Node& node : snapshot.nodes()) {
    if (node.spec().provider_id() == id) return &node;
  }
  return nullptr;
}

bool IsInitialized(const snapshot::Snapshot& snapshot,
                   const v1::NodeClaim& claim) {
  if (IsConditionTrue(claim.status().conditions(),
                      well_known::kConditionTypeInitialized)) {
    return true;
  }
  const v1::Node* node = NodeOf(snapshot, claim);
  if (node == nullptr) return false;
  auto it = node->metadata().labels().find(
      std::string(well_known::kNodeInitializedLabelKey));
  return it != node->metadata().labels().end() && it->second == "true";
}

absl::Status CheckDuration(absl::string_view field, absl::Duration d,
                           bool allow_zero) {
  if (d == absl::InfiniteDuration() || d < absl::ZeroDuration() ||
      (!allow_zero && d == absl::ZeroDuration())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "OrchestratorOptions.", field, ": \"", absl::FormatDuration(d),
        allow_zero ? "\": must be finite and >= 0"
                   : "\": must be finite and > 0"));
  }
  return absl::OkStatus();
}

absl::Status CheckOptions(const OrchestratorOptions& o) {
  if (!(o.batch_fraction > 0 && o.batch_fraction <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("OrchestratorOptions.batch_fraction: \"", o.batch_fraction,
                     "\": must be in (0, 1]"));
  }
  KARPENTER_RETURN_IF_ERROR(CheckDuration("min_timeout", o.min_timeout, false));
  KARPENTER_RETURN_IF_ERROR(CheckDuration("max_timeout", o.max_timeout, false));
  KARPENTER_RETURN_IF_ERROR(
      CheckDuration("per_command_timeout", o.per_command_timeout, true));
  KARPENTER_RETURN_IF_ERROR(
      CheckDuration("backoff_initial", o.backoff_initial, false));
  KARPENTER_RETURN_IF_ERROR(CheckDuration("backoff_max", o.backoff_max, false));
  if (o.max_timeout < o.min_timeout) {
    return absl::InvalidArgumentError(absl::StrCat(
        "OrchestratorOptions.max_timeout: \"",
        absl::FormatDuration(o.max_timeout), "\": must be >= min_timeout \"",
        absl::FormatDuration(o.min_timeout), "\""));
  }
  if (o.backoff_max < o.backoff_initial) {
    return absl::InvalidArgumentError(
        absl::StrCat("OrchestratorOptions.backoff_max: \"",
                     absl::FormatDuration(o.backoff_max),
                     "\": must be >= backoff_initial \"",
                     absl::FormatDuration(o.backoff_initial), "\""));
  }
  return absl::OkStatus();
}

absl::Status CheckCommand(const Command& command) {
  if (command.candidates.empty()) {
    return absl::InvalidArgumentError("command.candidates: must not be empty");
  }
  std::set<absl::string_view> seen;
  for (size_t i = 0; i < command.candidates.size(); ++i) {
    const Candidate& c = command.candidates[i];
    for (const auto& [field, value] :
         {std::pair<absl::string_view, absl::string_view>{"node_name",
                                                          c.node_name},
          {"node_claim_name", c.node_claim_name},
          {"provider_id", c.provider_id}}) {
      if (value.empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "command.candidates[", i, "].", field, ": must not be empty"));
      }
    }
    if (!seen.insert(c.provider_id).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("command.candidates[", i, "].provider_id: \"",
                       c.provider_id, "\": appears twice"));
    }
  }
  if (ClassOf(command.method) == MethodClass::kForceful &&
      !command.replacements.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("command.replacements: the forceful method ",
                     MethodName(command.method), " launches no replacements"));
  }
  for (size_t i = 0; i < command.replacements.size(); ++i) {
    if (command.replacements[i].node_claim.metadata().name().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("command.replacements[", i,
                       "].node_claim.metadata.name: must not be empty"));
    }
  }
  return absl::OkStatus();
}

// The replacement NodeClaim as created: the plan's, with the NodePool label
// and the termination finalizer (added before launch, docs/semantics.md §4.7).
v1::NodeClaim ReplacementClaim(const Replacement& r) {
  v1::NodeClaim claim = r.node_claim;
  auto& labels = *claim.mutable_metadata()->mutable_labels();
  if (!r.node_pool.empty() &&
      !labels.contains(std::string(well_known::kNodePoolLabelKey))) {
    labels[std::string(well_known::kNodePoolLabelKey)] = r.node_pool;
  }
  const auto& finalizers = claim.metadata().finalizers();
  if (std::find(finalizers.begin(), finalizers.end(),
                well_known::kTerminationFinalizer) == finalizers.end()) {
    claim.mutable_metadata()->add_finalizers(
        std::string(well_known::kTerminationFinalizer));
  }
  return claim;
}

}  // namespace

absl::string_view DisruptionReasonOf(Method method) {
  switch (method) {
    case Method::kNodePoolDeleted:
      return "NodePoolDeleted";
    case Method::kExpiration:
      return "Expired";
    case Method::kEmptiness:
      return well_known::kDisruptionReasonEmpty;
    case Method::kStaticDrift:
    case Method::kDrift:
      return well_known::kDisruptionReasonDrifted;
    case Method::kMultiNodeConsolidation:
    case Method::kSingleNodeConsolidation:
      return well_known::kDisruptionReasonUnderutilized;
  }
  return "";
}

absl::string_view RolloutName(Rollout rollout) {
  switch (rollout) {
    case Rollout::kSerial:
      return "Serial";
    case Rollout::kParallelBatch:
      return "ParallelBatch";
    case Rollout::kBudget:
      return "Budget";
  }
  return "";
}

// --- Construction and queries. ----------------------------------------------

absl::StatusOr<std::unique_ptr<Orchestrator>> Orchestrator::Create(
    ClusterView& view, CloudProvider& cloud, EventRecorder& recorder,
    Metrics& metrics, const Clock& clock, OrchestratorOptions options) {
  KARPENTER_RETURN_IF_ERROR(CheckOptions(options));
  return std::unique_ptr<Orchestrator>(
      new Orchestrator(view, cloud, recorder, metrics, clock, options));
}

Orchestrator::Orchestrator(ClusterView& view, CloudProvider& cloud,
                           EventRecorder& recorder, Metrics& metrics,
                           const Clock& clock, OrchestratorOptions options)
    : view_(view),
      cloud_(cloud),
      recorder_(recorder),
      metrics_(metrics),
      clock_(clock),
      options_(options) {}

Orchestrator::~Orchestrator() = default;

int64_t Orchestrator::SlotsAvailable(int64_t managed_nodes) const {
  const int64_t queued = static_cast<int64_t>(queue_.size());
  switch (options_.rollout) {
    case Rollout::kSerial:
      return std::max<int64_t>(0, 1 - queued);
    case Rollout::kParallelBatch: {
      // The epsilon keeps 5% of 100 at 5 despite binary rounding.
      const double batch = std::ceil(
          options_.batch_fraction *
              static_cast<double>(std::max<int64_t>(managed_nodes, 0)) -
          1e-9);
      const int64_t limit = std::max<int64_t>(1, static_cast<int64_t>(batch));
      return std::max<int64_t>(0, limit - queued);
    }
    case Rollout::kBudget:
      return std::numeric_limits<int64_t>::max();
  }
  return 0;
}

absl::Duration Orchestrator::Timeout() const {
  const absl::Duration scaled =
      options_.per_command_timeout * static_cast<int64_t>(queue_.size());
  return std::clamp(scaled, options_.min_timeout, options_.max_timeout);
}

size_t Orchestrator::size() const { return queue_.size(); }

std::set<std::string, std::less<>> Orchestrator::InFlightProviderIds() const {
  std::set<std::string, std::less<>> ids;
  for (const auto& e : queue_) {
    for (const Candidate& c : e->command.candidates) ids.insert(c.provider_id);
  }
  return ids;
}

std::set<std::string, std::less<>> Orchestrator::InFlightReplacements() const {
  std::set<std::string, std::less<>> names;
  for (const auto& e : queue_) {
    for (const Entry::Launched& r : e->replacements) names.insert(r.node_claim);
  }
  return names;
}

std::map<std::string, absl::Time> Orchestrator::Backoffs() const {
  const absl::Time now = clock_.Now();
  std::map<std::string, absl::Time> out;
  for (const auto& [pool, b] : backoff_) {
    if (b.until > now) out.emplace(pool, b.until);
  }
  return out;
}

absl::Time Orchestrator::BackOff(const std::vector<std::string>& node_pools,
                                 absl::Time now) {
  absl::Time latest = now;
  for (const std::string& pool : node_pools) {
    Backoff& b = backoff_[pool];
    ++b.failures;
    absl::Duration delay = options_.backoff_initial;
    for (int i = 1; i < b.failures && delay < options_.backoff_max; ++i) {
      delay *= 2;
    }
    b.until = now + std::min(delay, options_.backoff_max);
    latest = std::max(latest, b.until);
  }
  return latest;
}

// --- Events and metrics. -----------------------------------------------------

void Orchestrator::Emit(absl::string_view kind, absl::string_view name,
                        absl::string_view reason, std::string message) {
  Event e;
  e.kind = std::string(kind);
  e.name = std::string(name);
  e.type = EventType::kNormal;
  e.reason = std::string(reason);
  e.message = std::move(message);
  recorder_.Record(e);
}

void Orchestrator::RecordDisrupted(const Command& command,
                                   const Candidate& candidate) {
  const absl::string_view reason = DisruptionReasonOf(command.method);
  Emit("Node", candidate.node_name, events::kDisruptionTerminating,
       absl::StrCat("Disrupting Node: ", reason));
  Emit("NodeClaim", candidate.node_claim_name, events::kDisruptionTerminating,
       absl::StrCat("Disrupting NodeClaim: ", reason));
  const MetricLabels labels = {
      {std::string(metrics::kReasonLabel), MetricReason(command.method)},
      {std::string(metrics::kNodePoolLabel), candidate.node_pool_name},
      {std::string(metrics::kCapacityTypeLabel), candidate.capacity_type}};
  metrics_.Add(metrics::kNodeClaimsDisruptedTotal, labels, 1);
  metrics_.Add(metrics::kPodsDisruptionInitiatedTotal, labels,
               static_cast<double>(candidate.reschedulable_pods.size()));
}

void Orchestrator::RecordDecision(const Command& command) {
  metrics_.Add(metrics::kVoluntaryDisruptionDecisionsTotal,
               DecisionLabels(command), 1);
  std::set<std::string> pools;
  for (const Candidate& c : command.candidates) pools.insert(c.node_pool_name);
  for (const std::string& pool : pools) {
    MetricLabels labels = DecisionLabels(command);
    labels[std::string(metrics::kNodePoolLabel)] = pool;
    metrics_.Add(metrics::kVoluntaryDisruptionDecisionsByNodePoolTotal, labels,
                 1);
  }
}

// --- Start. ------------------------------------------------------------------

absl::Status Orchestrator::CheckStartable(const Command& command,
                                          absl::Time now) const {
  KARPENTER_RETURN_IF_ERROR(CheckCommand(command));
  const std::set<std::string, std::less<>> in_flight = InFlightProviderIds();
  for (const Candidate& c : command.candidates) {
    if (in_flight.contains(c.provider_id)) {
      return absl::AlreadyExistsError(absl::StrCat(
          "candidate \"", c.node_name, "\" (providerID \"", c.provider_id,
          "\") is already being disrupted by a queued command"));
    }
  }
  if (ClassOf(command.method) == MethodClass::kForceful) {
    return absl::OkStatus();
  }
  for (const std::string& pool : NodePoolsOf(command)) {
    auto b = backoff_.find(pool);
    if (b != backoff_.end() && b->second.until > now) {
      return absl::FailedPreconditionError(absl::StrCat(
          "NodePool \"", pool, "\" is backed off until ",
          FormatRfc3339(b->second.until), " after a failed disruption"));
    }
  }
  return absl::OkStatus();
}

// Marks every candidate; returns those marked. Fails (after removing every
// mark made) when a mark fails and the command cannot continue without it.
absl::StatusOr<std::vector<Candidate>> Orchestrator::Mark(
    const Command& command) {
  const v1::Taint taint = DisruptedNoScheduleTaint();
  v1::Condition condition;
  condition.set_type(std::string(well_known::kConditionTypeDisruptionReason));
  condition.set_status(std::string(well_known::kConditionTrue));
  condition.set_reason(std::string(DisruptionReasonOf(command.method)));
  condition.set_message(condition.reason());
  std::vector<Candidate> marked;
  std::vector<Candidate> failed;
  absl::Status first_error;
  for (const Candidate& c : command.candidates) {
    absl::Status s = view_.TaintNode(c.node_name, taint);
    if (s.ok()) s = view_.SetNodeClaimCondition(c.node_claim_name, condition);
    if (s.ok()) {
      marked.push_back(c);
      continue;
    }
    failed.push_back(c);
    if (first_error.ok()) {
      first_error =
          Prefixed(s, absl::StrCat("mark candidate \"", c.node_name, "\": "));
    }
  }
  // A half-applied mark (taint without condition) is removed either way.
  Unmark(failed, nullptr);
  if (!first_error.ok() && (!command.replacements.empty() || marked.empty())) {
    Unmark(marked, nullptr);
    return first_error;
  }
  return marked;
}

void Orchestrator::Unmark(const std::vector<Candidate>& candidates,
                          std::vector<std::string>* log) {
  for (const Candidate& c : candidates) {
    const absl::Status untaint =
        view_.RemoveTaint(c.node_name, well_known::kDisruptedTaintKey,
                          well_known::kTaintEffectNoSchedule);
    const absl::Status clear = view_.RemoveNodeClaimCondition(
        c.node_claim_name, well_known::kConditionTypeDisruptionReason);
    if (log == nullptr) continue;
    if (!Gone(untaint)) {
      log->push_back(absl::StrCat("unmark \"", c.node_name,
                                  "\": remove taint: ", untaint.ToString()));
    }
    if (!Gone(clear)) {
      log->push_back(absl::StrCat("unmark \"", c.node_name,
                                  "\": clear condition: ", clear.ToString()));
    }
  }
}

absl::Status Orchestrator::StartForceful(const Command& command,
                                         const std::vector<Candidate>& marked) {
  absl::Status first_error;
  for (const Candidate& c : marked) {
    const absl::Status s = view_.DeleteNodeClaim(c.node_claim_name);
    if (s.ok()) RecordDisrupted(command, c);
    if (!Gone(s) && first_error.ok()) {
      first_error = Prefixed(
          s, absl::StrCat("delete NodeClaim \"", c.node_claim_name, "\": "));
    }
  }
  return first_error;
}

absl::Status Orchestrator::Launch(const Command& command, Entry& entry,
                                  absl::Time now) {
  for (const Replacement& r : command.replacements) {
    v1::NodeClaim claim = ReplacementClaim(r);
    const std::string& name = claim.metadata().name();
    absl::StatusOr<Instance> instance = cloud_.Create(claim);
    absl::Status failure = instance.status();
    if (instance.ok()) {
      claim.mutable_status()->set_provider_id(instance->provider_id);
      claim.mutable_status()->set_image_id(instance->image_id);
      failure = view_.CreateNodeClaim(claim);
      if (absl::IsAlreadyExists(failure)) failure = absl::OkStatus();
      // Recorded even on failure, so the rollback terminates the instance.
      entry.replacements.push_back({name, instance->provider_id});
    }
    if (failure.ok()) continue;
    for (const Entry::Launched& l : entry.replacements) {
      // Best effort: a leftover NodeClaim is deleted by liveness, a leftover
      // instance by instance garbage collection.
      view_.DeleteNodeClaim(l.node_claim).IgnoreError();
      cloud_.Delete(l.provider_id).IgnoreError();
    }
    entry.replacements.clear();
    const std::vector<std::string> pools = NodePoolsOf(command);
    const absl::Time until = BackOff(pools, now);
    return absl::Status(
        failure.code(),
        absl::StrCat(
            "launch replacement \"", name, "\" (NodePool \"", r.node_pool,
            "\"): ",
            absl::IsResourceExhausted(failure) ? "insufficient capacity: " : "",
            failure.message(), "; rolled back, NodePool(s) \"",
            absl::StrJoin(pools, "\", \""), "\" backed off until ",
            FormatRfc3339(until)));
  }
  return absl::OkStatus();
}

absl::Status Orchestrator::Start(const Command& command) {
  const absl::Time now = clock_.Now();
  KARPENTER_RETURN_IF_ERROR(CheckStartable(command, now));
  KARPENTER_ASSIGN_OR_RETURN(std::vector<Candidate> marked, Mark(command));
  Command effective = command;
  effective.candidates = std::move(marked);
  if (ClassOf(command.method) == MethodClass::kForceful) {
    RecordDecision(effective);
    return StartForceful(effective, effective.candidates);
  }
  auto entry = std::make_unique<Entry>();
  entry->started = now;
  const absl::Status launched = Launch(effective, *entry, now);
  if (!launched.ok()) {
    Unmark(effective.candidates, nullptr);
    return launched;
  }
  RecordDecision(effective);
  entry->deleted.assign(effective.candidates.size(), false);
  entry->command = std::move(effective);
  queue_.push_back(std::move(entry));
  return absl::OkStatus();
}

// --- Reconcile. --------------------------------------------------------------

absl::StatusOr<Orchestrator::Report> Orchestrator::Reconcile(
    const snapshot::Snapshot& snapshot) {
  const absl::Time now = clock_.Now();
  const absl::Duration timeout = Timeout();
  Report report;
  std::vector<std::unique_ptr<Entry>> waiting;
  for (std::unique_ptr<Entry>& entry : queue_) {
    switch (Step(*entry, snapshot, now, timeout, report)) {
      case Outcome::kCompleted:
        ++report.completed;
        for (const std::string& pool : NodePoolsOf(entry->command)) {
          backoff_.erase(pool);
        }
        break;
      case Outcome::kRolledBack:
        ++report.rolled_back;
        break;
      case Outcome::kWaiting: {
        ++report.waiting;
        absl::Time wake = entry->started + timeout;
        if (entry->retry_at > now) wake = std::min(wake, entry->retry_at);
        if (!report.next_wake || wake < *report.next_wake) {
          report.next_wake = wake;
        }
        waiting.push_back(std::move(entry));
        break;
      }
    }
  }
  queue_ = std::move(waiting);
  return report;
}

Orchestrator::Outcome Orchestrator::Step(Entry& entry,
                                         const snapshot::Snapshot& snapshot,
                                         absl::Time now, absl::Duration timeout,
                                         Report& report) {
  const std::string what = Describe(entry.command);
  const absl::string_view reason = DisruptionReasonOf(entry.command.method);
  std::vector<absl::string_view> pending;
  for (Entry::Launched& r : entry.replacements) {
    if (r.initialized) continue;
    const std::optional<snapshot::NodeClaimIndex> found =
        snapshot.FindNodeClaim(r.node_claim);
    if (!found ||
        snapshot.node_claims()[*found].metadata().has_deletion_timestamp()) {
      Rollback(entry,
               absl::StrCat("replacement NodeClaim \"", r.node_claim,
                            "\" was deleted"),
               now, report);
      return Outcome::kRolledBack;
    }
    const v1::NodeClaim& claim = snapshot.node_claims()[*found];
    r.initialized = IsInitialized(snapshot, claim);
    if (!r.announced) {
      r.announced = true;
      Emit("NodeClaim", r.node_claim, events::kDisruptionLaunching,
           absl::StrCat("Launching NodeClaim: ", reason));
      if (!r.initialized) {
        Emit("NodeClaim", r.node_claim, events::kDisruptionWaitingReadiness,
             "Waiting on readiness to continue disruption");
      }
    }
    if (r.initialized) {
      report.log.push_back(
          absl::StrCat(what, ": replacement ", r.node_claim, " initialised"));
    } else {
      pending.push_back(r.node_claim);
    }
  }
  if (pending.empty() && now >= entry.retry_at &&
      DeleteCandidates(entry, now, report)) {
    return Outcome::kCompleted;
  }
  if (now - entry.started >= timeout) {
    Rollback(entry,
             absl::StrCat("timed out after ", absl::FormatDuration(timeout),
                          pending.empty() ? " deleting candidates"
                                          : " waiting for replacements"),
             now, report);
    return Outcome::kRolledBack;
  }
  if (!pending.empty()) {
    report.log.push_back(absl::StrCat(
        what, ": waiting for ", absl::StrJoin(pending, ", "),
        " to initialise (", absl::FormatDuration(now - entry.started), " of ",
        absl::FormatDuration(timeout), ")"));
  }
  return Outcome::kWaiting;
}

// Deletes the candidates not yet deleted; true when all are.
bool Orchestrator::DeleteCandidates(Entry& entry, absl::Time now,
                                    Report& report) {
  const std::string what = Describe(entry.command);
  bool all = true;
  for (size_t i = 0; i < entry.command.candidates.size(); ++i) {
    if (entry.deleted[i]) continue;
    const Candidate& c = entry.command.candidates[i];
    const absl::Status s = view_.DeleteNodeClaim(c.node_claim_name);
    if (Gone(s)) {
      entry.deleted[i] = true;
      if (s.ok()) RecordDisrupted(entry.command, c);
      report.log.push_back(
          absl::StrCat(what, ": deleted NodeClaim ", c.node_claim_name));
      continue;
    }
    all = false;
    entry.retry_at = now + kRetryDelay;
    report.log.push_back(absl::StrCat(what, ": delete NodeClaim ",
                                      c.node_claim_name, ": ", s.ToString(),
                                      " (retrying)"));
  }
  return all;
}

void Orchestrator::Rollback(Entry& entry, absl::string_view why, absl::Time now,
                            Report& report) {
  const std::string what = Describe(entry.command);
  int64_t uninitialized = 0;
  for (const Entry::Launched& r : entry.replacements) {
    if (r.initialized) continue;
    ++uninitialized;
    const absl::Status claim = view_.DeleteNodeClaim(r.node_claim);
    const absl::Status instance = cloud_.Delete(r.provider_id);
    for (const absl::Status& s : {claim, instance}) {
      if (Gone(s)) continue;
      report.log.push_back(absl::StrCat(what, ": delete replacement ",
                                        r.node_claim, ": ", s.ToString()));
    }
  }
  std::vector<Candidate> remaining;
  for (size_t i = 0; i < entry.command.candidates.size(); ++i) {
    if (!entry.deleted[i]) remaining.push_back(entry.command.candidates[i]);
  }
  Unmark(remaining, &report.log);
  if (uninitialized > 0) {
    metrics_.Add(metrics::kVoluntaryDisruptionQueueFailuresTotal,
                 DecisionLabels(entry.command),
                 static_cast<double>(uninitialized));
  }
  const std::vector<std::string> pools = NodePoolsOf(entry.command);
  const absl::Time until = BackOff(pools, now);
  report.log.push_back(
      absl::StrCat(what, ": rolled back: ", why, "; NodePool(s) \"",
                   absl::StrJoin(pools, "\", \""), "\" backed off until ",
                   FormatRfc3339(until)));
}

// --- Cleanup. ----------------------------------------------------------------

absl::StatusOr<std::vector<std::string>> Orchestrator::CleanUp(
    const snapshot::Snapshot& snapshot) {
  const std::vector<std::string> nodes =
      NodesToCleanUp(snapshot, InFlightProviderIds());
  absl::Status first_error;
  for (const std::string& name : nodes) {
    absl::Status s = view_.RemoveTaint(name, well_known::kDisruptedTaintKey,
                                       well_known::kTaintEffectNoSchedule);
    const v1::Node& node = snapshot.nodes()[*snapshot.FindNode(name)];
    std::optional<snapshot::NodeClaimIndex> claim =
        snapshot.FindNodeClaimByNodeName(name);
    if (!claim)
      claim = snapshot.FindNodeClaimByProviderId(node.spec().provider_id());
    if (Gone(s) && claim) {
      s = view_.RemoveNodeClaimCondition(
          snapshot.node_claims()[*claim].metadata().name(),
          well_known::kConditionTypeDisruptionReason);
    }
    if (!Gone(s) && first_error.ok()) {
      first_error = Prefixed(s, absl::StrCat("clean up node \"", name, "\": "));
    }
  }
  if (!first_error.ok()) return first_error;
  return nodes;
}

std::vector<std::string> NodesToCleanUp(
    const snapshot::Snapshot& snapshot,
    const std::set<std::string, std::less<>>& in_flight_provider_ids) {
  std::vector<std::string> out;
  for (const v1::Node& node : snapshot.nodes()) {
    const std::string& id = node.spec().provider_id();
    if (node.metadata().has_deletion_timestamp() ||
        (!id.empty() && in_flight_provider_ids.contains(id))) {
      continue;
    }
    std::optional<snapshot::NodeClaimIndex> c =
        snapshot.FindNodeClaimByNodeName(node.metadata().name());
    if (!c) c = snapshot.FindNodeClaimByProviderId(id);
    const v1::NodeClaim* claim = c ? &snapshot.node_claims()[*c] : nullptr;
    if (claim != nullptr && claim->metadata().has_deletion_timestamp()) {
      continue;
    }
    if (HasDisruptedNoScheduleTaint(node) ||
        (claim != nullptr &&
         FindCondition(claim->status().conditions(),
                       well_known::kConditionTypeDisruptionReason) !=
             nullptr)) {
      out.push_back(node.metadata().name());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace karpenter::disruption
