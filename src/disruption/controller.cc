// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#include "karpenter/disruption/controller.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "disruption/facts_internal.h"
#include "disruption/verdict_sink.h"
#include "karpenter/budget/pdb.h"
#include "karpenter/conditions.h"
#include "karpenter/disruption/candidates.h"
#include "karpenter/disruption/orchestrator.h"
#include "karpenter/time_util.h"
#include "karpenter/well_known.h"

namespace karpenter::disruption {
namespace {

using internal::VerdictRank;

// Accumulates one verdict per name (a Node's, or a Node-less NodeClaim's),
// in name order; the methods' VerdictSink.
class VerdictBook final : public internal::VerdictSink {
 public:
  // Names: every Node's (the facts' name order) and every Node-less
  // NodeClaim's (the pool's name order), merged.
  VerdictBook(const CandidatePool& pool,
              const internal::CandidateFacts& facts) {
    node_slot_.assign(facts.nodes.size(), 0);
    claim_slot_.assign(facts.claims.size(), 0);
    names_.reserve(facts.nodes.size());
    const auto claims = pool.managed_claims();
    size_t next_claim = 0;
    const auto add_claims_before = [&](const std::string* name) {
      for (; next_claim < claims.size(); ++next_claim) {
        const Candidate& c = claims[next_claim].facts;
        if (c.has_node) continue;
        if (name != nullptr && c.node_claim_name >= *name) return;
        claim_slot_[c.node_claim] = Add(c.node_claim_name);
      }
    };
    for (uint32_t n : facts.node_order) {
      add_claims_before(&facts.nodes[n].name);
      node_slot_[n] = Add(facts.nodes[n].name);
    }
    add_claims_before(nullptr);
    entries_.resize(names_.size());
  }

  // Node-level exclusions are final.
  void Exclude(const NodeVerdict& v) { PutRanked(v, 5); }
  void Offer(const NodeVerdict& v) { PutRanked(v, VerdictRank(v.code)); }
  void Commanded(const Command& command) {
    for (const Candidate& c : command.candidates) {
      Entry& e = entries_[Slot(c)];
      if (e.rank >= 6) continue;  // The first command keeps the node.
      e.rank = 6;
      e.verdict = internal::MakeVerdict(c, command.method, reasons::kCommanded,
                                        command.explanation);
    }
  }

  bool Wants(const Candidate& c, absl::string_view code) const override {
    return VerdictRank(code) > entries_[Slot(c)].rank;
  }
  void Put(const Candidate& c, Method method, absl::string_view code,
           std::string message) override {
    Entry& e = entries_[Slot(c)];
    const int rank = VerdictRank(code);
    if (rank <= e.rank) return;
    e.rank = rank;
    e.verdict = internal::MakeVerdict(c, method, code, std::move(message));
  }
  void PutBuilt(NodeVerdict v) override { Offer(v); }

  // One verdict per name; names no method looked at are nodes that need
  // nothing.
  std::vector<NodeVerdict> Take() && {
    std::vector<NodeVerdict> out;
    out.reserve(entries_.size());
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (entries_[i].rank == 0) {
        out.push_back(
            NodeVerdict{.node = std::string(names_[i]),
                        .code = std::string(reasons::kNoDisruptionNeeded),
                        .message = "no method applies"});
      } else {
        out.push_back(std::move(entries_[i].verdict));
      }
    }
    return out;
  }

 private:
  struct Entry {
    int rank = 0;  // 0: none yet.
    NodeVerdict verdict;
  };

  uint32_t Slot(const Candidate& c) const {
    return c.has_node ? node_slot_[c.node] : claim_slot_[c.node_claim];
  }
  void PutRanked(const NodeVerdict& v, int rank) {
    auto it = std::lower_bound(names_.begin(), names_.end(),
                               absl::string_view(v.node));
    if (it == names_.end() || *it != v.node) return;  // Not a known name.
    Entry& e = entries_[it - names_.begin()];
    if (rank <= e.rank) return;
    e.rank = rank;
    e.verdict = v;
  }

  // Appends `name` unless it is the last one; returns its slot.
  uint32_t Add(absl::string_view name) {
    if (names_.empty() || names_.back() != name) names_.push_back(name);
    return static_cast<uint32_t>(names_.size() - 1);
  }

  std::vector<absl::string_view> names_;  // Sorted, unique.
  std::vector<uint32_t> node_slot_;       // By NodeIndex.
  std::vector<uint32_t> claim_slot_;      // By NodeClaimIndex.
  std::vector<Entry> entries_;            // By slot.
};

// Why a NodePool's budgeted methods disrupt nothing this pass: a backoff
// after a failed command, or an invalid SDK control annotation.
struct Hold {
  absl::string_view code;
  std::string message;
};
using Holds = std::map<std::string, Hold, std::less<>>;

// NodePools in backoff at `now`, then NodePools with an invalid control
// annotation (a backoff is named first).
Holds ActiveHolds(const PassInputs& inputs, const Plan& plan, absl::Time now) {
  Holds out;
  for (const auto& [pool, until] : inputs.node_pool_backoff) {
    if (until <= now) continue;
    out.emplace(pool,
                Hold{reasons::kNodePoolBackoff,
                     absl::StrCat("NodePool \"", pool,
                                  "\" is backing off after a failed command "
                                  "until ",
                                  FormatRfc3339(until))});
  }
  for (const NodePoolControlState& state : plan.controls) {
    if (state.error.empty()) continue;
    out.emplace(state.node_pool,
                Hold{reasons::kInvalidControl,
                     absl::StrCat("NodePool \"", state.node_pool,
                                  "\" has an invalid disruption control, so "
                                  "its nodes are not disrupted: ",
                                  state.error)});
  }
  return out;
}

// A method's ledger: held NodePools at 0, zone limits applied.
BudgetLedger ControlledLedger(BudgetLedger ledger, const Holds& holds,
                              const Plan& plan) {
  for (const auto& [name, hold] : holds) ledger.Set(name, 0);
  for (const NodePoolControlState& state : plan.controls) {
    if (!state.controls.max_disrupting_zones.has_value()) continue;
    ledger.LimitZones(
        state.node_pool, *state.controls.max_disrupting_zones,
        {state.disrupting_zones.begin(), state.disrupting_zones.end()});
  }
  return ledger;
}

// Rewrites the budget verdicts of held NodePools.
class HoldSink final : public internal::VerdictSink {
 public:
  HoldSink(const Holds& holds, internal::VerdictSink& next)
      : holds_(holds), next_(next) {}

  bool Wants(const Candidate& c, absl::string_view code) const override {
    return next_.Wants(c, Rewritten(c.node_pool_name, code));
  }
  void Put(const Candidate& c, Method method, absl::string_view code,
           std::string message) override {
    const absl::string_view rewritten = Rewritten(c.node_pool_name, code);
    if (rewritten != code)
      message = holds_.find(c.node_pool_name)->second.message;
    next_.Put(c, method, rewritten, std::move(message));
  }
  void PutBuilt(NodeVerdict v) override {
    const absl::string_view rewritten = Rewritten(v.node_pool, v.code);
    if (rewritten != v.code) {
      v.code = std::string(rewritten);
      v.message = holds_.find(v.node_pool)->second.message;
    }
    next_.PutBuilt(std::move(v));
  }

 private:
  absl::string_view Rewritten(absl::string_view pool,
                              absl::string_view code) const {
    if (code != reasons::kBudgetExhausted) return code;
    auto it = holds_.find(pool);
    return it == holds_.end() ? code : it->second.code;
  }

  const Holds& holds_;
  internal::VerdictSink& next_;
};

// The Drifted condition a NodeClaim carries now, as a DriftMark.
std::optional<DriftMark> ExistingDriftMark(const internal::ClaimFacts& claim) {
  if (!claim.true_drifted_since.has_value()) return std::nullopt;
  return DriftMark{.reason = claim.true_drifted_reason,
                   .since = *claim.true_drifted_since};
}

// Evaluates drift for every NodeClaim: marks for the candidates, and the
// condition writes for the plan.
std::vector<std::optional<DriftMark>> EvaluateDriftMarks(
    const SnapshotFacts& facts, const PassInputs& inputs, absl::Time now,
    Plan& plan) {
  drift::DriftObservations obs = inputs.drift;
  obs.catalog = &inputs.catalog;
  const auto& claims = facts.candidate_facts().claims;
  std::vector<std::optional<DriftMark>> marks(claims.size());
  facts.drift().ForEach(obs, now, [&](size_t i, const drift::DriftVerdict& v) {
    if (!v.error.ok()) {
      plan.drift_errors.push_back(
          absl::StrCat(v.node_claim, ": ", v.error.message()));
      marks[i] = ExistingDriftMark(claims[i]);
      return;
    }
    if (v.reason.has_value()) {
      marks[i] = DriftMark{.reason = *v.reason, .since = v.since.value_or(now)};
    } else if (v.change == drift::DriftConditionChange::kNone) {
      // Not evaluated, or a check lacked its observation (IsDrifted not
      // answered, NodePool missing from the catalogue): the condition is
      // left as it is, and Karpenter's disruption pass reads the condition,
      // so it still counts.
      marks[i] = ExistingDriftMark(claims[i]);
    }
    if (v.change != drift::DriftConditionChange::kNone) {
      plan.drift_updates.push_back(
          DriftConditionUpdate{.node_claim = v.node_claim,
                               .change = v.change,
                               .reason = v.reason.value_or(""),
                               .since = v.since.value_or(now)});
    }
  });
  std::sort(plan.drift_updates.begin(), plan.drift_updates.end(),
            [](const DriftConditionUpdate& a, const DriftConditionUpdate& b) {
              return a.node_claim < b.node_claim;
            });
  return marks;
}

// A node-level exclusion of a NodeClaim whose NodePool is not in the
// snapshot, reworded when the snapshot may be partial
// (MethodOptions::node_pools_complete false): the NodePool may exist
// outside the dump, so the NodeClaim is neither orphaned nor deleted.
NodeVerdict MissingNodePoolVerdict(const snapshot::Snapshot& snapshot,
                                   const MethodOptions& options,
                                   const NodeVerdict& v) {
  if (options.node_pools_complete || v.node_pool.empty() ||
      (v.code != reasons::kNodePoolNotFound && v.code != reasons::kNoNode) ||
      snapshot.FindNodePool(v.node_pool).has_value()) {
    return v;
  }
  NodeVerdict out = v;
  out.code = std::string(reasons::kNodePoolNotFound);
  out.message = internal::MissingNodePoolMessage(v.node_pool, options);
  return out;
}

// Drops from `commands` the candidates another command of this pass already
// took (an expired node is also empty, say), and commands left empty.
void DropTaken(const absl::flat_hash_set<std::string>& taken,
               std::vector<Command>& commands) {
  for (Command& command : commands) {
    std::erase_if(command.candidates, [&](const Candidate& c) {
      return taken.contains(c.node_claim_name);
    });
  }
  std::erase_if(commands, [](const Command& command) {
    return command.candidates.empty();
  });
}

// Keeps at most `max` commands (max < 0: all); the rest become verdicts.
void CapCommands(int64_t max, std::vector<Command>& commands,
                 VerdictBook& book) {
  if (max < 0 || static_cast<int64_t>(commands.size()) <= max) return;
  for (size_t i = static_cast<size_t>(max); i < commands.size(); ++i) {
    for (const Candidate& c : commands[i].candidates) {
      book.Offer(
          NodeVerdict{.node = c.node_name,
                      .node_claim = c.node_claim_name,
                      .node_pool = c.node_pool_name,
                      .method = commands[i].method,
                      .code = std::string(reasons::kNotSelected),
                      .message = absl::StrCat("rollout allows ", max,
                                              " more command(s) this pass")});
    }
  }
  commands.resize(static_cast<size_t>(max));
}

// A consolidation method over the pool's candidates for it; the pods'
// exclusions become verdicts too.
// karpenter_voluntary_disruption_eligible_nodes{reason} of one method run.
void EligibleGauge(Method method, size_t eligible, Plan& plan) {
  const std::optional<budget::DisruptionReason> reason = BudgetReasonOf(method);
  if (!reason.has_value()) return;
  plan.metrics.push_back(MetricSample{
      .kind = MetricSample::Kind::kSet,
      .name = std::string(metrics::kVoluntaryDisruptionEligibleNodes),
      .labels = {{std::string(metrics::kReasonLabel),
                  absl::AsciiStrToLower(
                      budget::DisruptionReasonName(*reason))}},
      .value = static_cast<double>(eligible)});
}

std::vector<Command> RunConsolidation(Method method, const CandidatePool& pool,
                                      const SchedulingSimulator& simulator,
                                      const ControllerOptions& options,
                                      BudgetLedger& ledger, absl::Time now,
                                      internal::VerdictSink& sink, Plan& plan) {
  static const InstanceTypeCatalog kNoCatalog;
  const InstanceTypeCatalog& catalog =
      pool.catalog() != nullptr ? *pool.catalog() : kNoCatalog;
  CandidatePool::Selection selection = pool.For(method);
  // Karpenter's evaluator totals, over every candidate of the class.
  const NodePoolTotalsMap totals = pool.BalancedTotals(selection.candidates);
  ConsolidationResult r =
      method == Method::kMultiNodeConsolidation
          ? ComputeMultiNodeConsolidation(std::move(selection.candidates),
                                          ledger, simulator, catalog, now,
                                          options.consolidation, &totals)
          : ComputeSingleNodeConsolidation(std::move(selection.candidates),
                                           ledger, simulator, catalog, now,
                                           options.consolidation, &totals);
  for (NodeVerdict& v : selection.excluded) sink.PutBuilt(std::move(v));
  for (NodeVerdict& v : r.verdicts) sink.PutBuilt(std::move(v));
  EligibleGauge(method, r.eligible, plan);
  for (Event& e : r.events) plan.events.push_back(std::move(e));
  for (MetricSample& m : r.metrics) plan.metrics.push_back(std::move(m));
  return std::move(r.commands);
}

// One budgeted method over the pool, with backoff pools zeroed in its
// ledger (their verdicts say so).
std::vector<Command> RunMethod(Method method, const CandidatePool& pool,
                               const SchedulingSimulator& simulator,
                               const ControllerOptions& options,
                               const BudgetLedger& base_ledger,
                               const Holds& holds, absl::Time now,
                               internal::VerdictSink& book, Plan& plan) {
  BudgetLedger ledger = ControlledLedger(base_ledger, holds, plan);
  HoldSink sink(holds, book);
  size_t eligible = 0;
  std::vector<Command> out;
  switch (method) {
    case Method::kEmptiness:
      out = internal::RunEmptiness(pool, ledger, now, options.methods, sink,
                                   &eligible);
      EligibleGauge(method, eligible, plan);
      return out;
    case Method::kStaticDrift:
      out = internal::RunStaticDrift(pool, ledger, sink, &eligible);
      EligibleGauge(method, eligible, plan);
      return out;
    case Method::kDrift:
      out = internal::RunDrift(pool, ledger, simulator, options.methods, sink,
                               &eligible);
      EligibleGauge(method, eligible, plan);
      return out;
    case Method::kMultiNodeConsolidation:
    case Method::kSingleNodeConsolidation:
      return RunConsolidation(method, pool, simulator, options, ledger, now,
                              sink, plan);
    default:
      return {};
  }
}

// Karpenter's loop: the first budgeted method with a command ends the pass.
void RunBudgetedMethods(const CandidatePool& pool,
                        const SchedulingSimulator& simulator,
                        const ControllerOptions& options,
                        const PassInputs& inputs, const Holds& holds,
                        absl::Time now,
                        const absl::flat_hash_set<std::string>& taken,
                        VerdictBook& book, Plan& plan) {
  for (Method method : kAllMethods) {
    const std::optional<budget::DisruptionReason> reason =
        BudgetReasonOf(method);
    if (!reason.has_value()) continue;
    if (options.disable_consolidation &&
        (method == Method::kMultiNodeConsolidation ||
         method == Method::kSingleNodeConsolidation)) {
      continue;
    }
    std::vector<Command> commands =
        RunMethod(method, pool, simulator, options,
                  BudgetLedger::FromMapping(plan.budgets, *reason), holds, now,
                  book, plan);
    DropTaken(taken, commands);
    if (commands.empty()) continue;
    CapCommands(inputs.max_commands, commands, book);
    if (commands.empty()) return;
    plan.acted = method;
    for (Command& command : commands) {
      book.Commanded(command);
      plan.commands.push_back(std::move(command));
    }
    return;
  }
}

// The earliest instant a new pass could decide differently on its own.
absl::Time NextPass(const CandidatePool& pool, const Plan& plan,
                    const ControllerOptions& options, absl::Time now) {
  absl::Time next = plan.acted.has_value() ? now : now + options.poll_interval;
  for (const ManagedClaim& claim : pool.managed_claims()) {
    const Candidate& c = claim.facts;
    if (c.expires_at.has_value() && *c.expires_at > now) {
      next = std::min(next, *c.expires_at);
    }
    // soft-expiration: an expired node waiting for the budget goes at its
    // ceiling regardless.
    if (c.expires_at.has_value() && c.controls.soft_expiration.has_value() &&
        c.controls.soft_expiration->ceiling.has_value()) {
      const absl::Time hard =
          *c.expires_at + *c.controls.soft_expiration->ceiling;
      if (hard > now) next = std::min(next, hard);
    }
    if (c.consolidatable_at.has_value() && *c.consolidatable_at > now) {
      next = std::min(next, *c.consolidatable_at);
    }
    // SDK extension: a do-not-disrupt window holding the node releases.
    if (claim.window_until.has_value() && *claim.window_until > now) {
      next = std::min(next, *claim.window_until);
    }
  }
  for (const Command& command : plan.commands) {
    if (command.validate_at.has_value()) {
      next = std::min(next, *command.validate_at);
    }
  }
  return next;
}

bool NodeIsReady(const v1::Node& node) {
  return IsConditionTrue(node.status().conditions(),
                         well_known::kConditionTypeReady);
}

// Karpenter counts the candidates of queued commands as disrupting through
// its in-memory MarkedForDeletion; a snapshot only shows what is persisted
// and what the budget mapping counts (a NodeClaim deleting, a NotReady
// node; InstanceTerminating leaves the count), so the in-flight nodes that
// neither covers are added here, before any method consumes the budgets.
// A Node deleting while its NodeClaim is not (a `kubectl delete node` of a
// candidate in flight) is one of them: the mapping does not count it.
void CountInFlightAsDisrupting(const CandidatePool& pool,
                               budget::BudgetMapping& budgets) {
  std::map<std::string, int64_t, std::less<>> extra;
  const snapshot::Snapshot& snap = pool.snapshot();
  for (const ManagedClaim& claim : pool.managed_claims()) {
    if (!claim.in_flight || !claim.facts.has_node) continue;
    const v1::NodeClaim& nc = snap.node_claims()[claim.facts.node_claim];
    if (nc.metadata().has_deletion_timestamp() ||
        IsConditionTrue(nc.status().conditions(),
                        well_known::kConditionTypeInstanceTerminating)) {
      continue;
    }
    if (!NodeIsReady(snap.nodes()[claim.facts.node])) continue;
    ++extra[claim.facts.node_pool_name];
  }
  for (budget::NodePoolBudget& b : budgets.node_pools) {
    auto it = extra.find(b.node_pool);
    if (it == extra.end()) continue;
    b.disrupting_nodes += it->second;
    for (size_t r = 0; r < b.remaining.size(); ++r) {
      b.remaining[r] =
          std::max<int64_t>(b.by_reason[r].allowed - b.disrupting_nodes, 0);
    }
  }
}

// ControllerOptions::count_replacement_pairs_once: recomputes each
// NodePool's allowance over the nodes that stay (see the option).
absl::Status CountReplacementPairsOnce(const CandidatePool& pool,
                                       const PassInputs& inputs,
                                       const budget::BudgetOptions& options,
                                       absl::Time now,
                                       budget::BudgetMapping& budgets) {
  const snapshot::Snapshot& snap = pool.snapshot();
  std::map<std::string, int64_t, std::less<>> leaving;
  for (const ManagedClaim& claim : pool.managed_claims()) {
    const Candidate& c = claim.facts;
    if (!c.has_node) continue;
    const v1::NodeClaim& nc = snap.node_claims()[c.node_claim];
    if (IsConditionTrue(nc.status().conditions(),
                        well_known::kConditionTypeInstanceTerminating)) {
      continue;
    }
    const auto& labels = snap.nodes()[c.node].metadata().labels();
    auto init = labels.find(std::string(well_known::kNodeInitializedLabelKey));
    if (init == labels.end() || init->second != "true") continue;
    if (claim.deleting ||
        inputs.in_flight_replacements.contains(c.node_claim_name)) {
      ++leaving[c.node_pool_name];
    }
  }
  for (budget::NodePoolBudget& b : budgets.node_pools) {
    auto it = leaving.find(b.node_pool);
    if (it == leaving.end()) continue;
    std::optional<snapshot::NodePoolIndex> index =
        snap.FindNodePool(b.node_pool);
    if (!index.has_value()) continue;
    absl::StatusOr<budget::DisruptionSpec> spec =
        budget::ParseDisruptionSpec(snap.node_pools()[*index], options);
    if (!spec.ok()) continue;  // Already failing closed.
    const int64_t base = std::max<int64_t>(b.total_nodes - it->second, 0);
    for (budget::DisruptionReason r : budget::kAllDisruptionReasons) {
      const size_t i = static_cast<size_t>(r);
      b.by_reason[i] = budget::ExplainAllowedDisruptions(*spec, r, base, now);
      b.remaining[i] =
          std::max<int64_t>(b.by_reason[i].allowed - b.disrupting_nodes, 0);
    }
  }
  return absl::OkStatus();
}

// Builds the Scheduler on the first Simulate: a pass whose methods never
// simulate (no drifted node, consolidation off or nothing eligible) does not
// pay for indexing every node's free capacity. A build error is kept for
// the caller (`error()`) and every simulation then reports it.
class LazySimulator final : public SchedulingSimulator {
 public:
  LazySimulator(const SnapshotFacts& facts, const InstanceTypeCatalog& catalog,
                SimulatorOptions options)
      : facts_(facts), catalog_(catalog), options_(options) {}

  SimulationResult Simulate(
      absl::Span<const Candidate> candidates) const override {
    return Run(candidates, /*consolidation=*/false);
  }
  SimulationResult SimulateConsolidation(
      absl::Span<const Candidate> candidates) const override {
    return Run(candidates, /*consolidation=*/true);
  }

  const absl::Status& error() const { return error_; }

 private:
  SimulationResult Run(absl::Span<const Candidate> candidates,
                       bool consolidation) const {
    if (!built_) {
      built_ = true;
      absl::StatusOr<Scheduler> s =
          Scheduler::Build(facts_, catalog_, options_);
      if (s.ok()) {
        scheduler_.emplace(*std::move(s));
      } else {
        error_ = s.status();
      }
    }
    if (scheduler_.has_value()) {
      return consolidation ? scheduler_->SimulateConsolidation(candidates)
                           : scheduler_->Simulate(candidates);
    }
    SimulationResult failed;
    failed.unsupported = std::string(error_.message());
    return failed;
  }

  const SnapshotFacts& facts_;
  const InstanceTypeCatalog& catalog_;
  const SimulatorOptions options_;
  mutable bool built_ = false;
  mutable std::optional<Scheduler> scheduler_;
  mutable absl::Status error_;
};
// NodesToCleanUp (orchestrator.h) from the facts.
std::vector<std::string> MarkedNodes(
    const SnapshotFacts& facts,
    const std::set<std::string, std::less<>>& in_flight) {
  const internal::CandidateFacts& cf = facts.candidate_facts();
  std::vector<std::string> out;
  for (uint32_t n : cf.marked_nodes) {
    const absl::string_view id = cf.nodes[n].provider_id;
    if (!id.empty() && in_flight.contains(std::string(id))) continue;
    out.push_back(facts.snapshot().nodes()[n].metadata().name());
  }
  return out;
}

}  // namespace

const NodeVerdict* Plan::VerdictOf(absl::string_view node) const {
  auto it = std::lower_bound(
      verdicts.begin(), verdicts.end(), node,
      [](const NodeVerdict& v, absl::string_view n) { return v.node < n; });
  if (it == verdicts.end() || it->node != node) return nullptr;
  return &*it;
}

Controller::Controller(ControllerOptions options)
    : options_(std::move(options)) {}

absl::Status Controller::CheckBudgetOptions(const SnapshotFacts& facts) const {
  if (facts.budget_options() == options_.budgets) return absl::OkStatus();
  return absl::InvalidArgumentError(
      "SnapshotFacts were built with other budget::BudgetOptions than "
      "ControllerOptions.budgets");
}

// What a pass builds from the snapshot before any method runs.
struct Controller::Prepared {
  CandidatePool pool;
  std::optional<LazySimulator> simulator;
  Holds holds;
};

absl::Status Controller::Prepare(const SnapshotFacts& facts,
                                 const PassInputs& inputs, absl::Time now,
                                 Prepared& prepared, Plan& plan) const {
  const snapshot::Snapshot& snapshot = facts.snapshot();
  plan.now = now;
  plan.budgets = facts.budgets().Evaluate(now);
  CandidateContext ctx;
  ctx.snapshot = &snapshot;
  ctx.facts = &facts;
  ctx.catalog = &inputs.catalog;
  ctx.now = now;
  ctx.in_flight = inputs.in_flight;
  ctx.nominated = inputs.nominated;
  ctx.drift_marks = EvaluateDriftMarks(facts, inputs, now, plan);
  KARPENTER_ASSIGN_OR_RETURN(prepared.pool, CandidatePool::Build(ctx));
  // The simulation evaluates do-not-disrupt durations and the
  // consolidateAfter of the nodes pods may move to at the pass time.
  SimulatorOptions simulator_options = options_.simulator;
  simulator_options.now = now;
  prepared.simulator.emplace(facts, inputs.catalog, simulator_options);
  if (options_.count_replacement_pairs_once) {
    KARPENTER_RETURN_IF_ERROR(CountReplacementPairsOnce(
        prepared.pool, inputs, options_.budgets, now, plan.budgets));
  }
  if (!options_.for_test.skip_in_flight_budget_count) {
    CountInFlightAsDisrupting(prepared.pool, plan.budgets);
  }
  plan.controls = EvaluateControls(snapshot, plan.budgets, options_.budgets,
                                   inputs.in_flight, now);
  prepared.holds = ActiveHolds(inputs, plan, now);
  return absl::OkStatus();
}

absl::StatusOr<Plan> Controller::Decide(const snapshot::Snapshot& snapshot,
                                        const PassInputs& inputs,
                                        absl::Time now) const {
  return Decide(SnapshotFacts::Build(snapshot, options_.budgets), inputs, now);
}

absl::StatusOr<Plan> Controller::Decide(const SnapshotFacts& facts,
                                        const PassInputs& inputs,
                                        absl::Time now) const {
  KARPENTER_RETURN_IF_ERROR(CheckBudgetOptions(facts));
  Plan plan;
  Prepared prepared;
  KARPENTER_RETURN_IF_ERROR(Prepare(facts, inputs, now, prepared, plan));
  const CandidatePool& pool = prepared.pool;

  VerdictBook book(pool, facts.candidate_facts());
  for (const NodeVerdict& v : pool.exclusions()) {
    book.Exclude(MissingNodePoolVerdict(facts.snapshot(), options_.methods, v));
  }

  // 1. Forceful, budget-free methods. A NodeClaim gets one command at most:
  // one whose NodePool is gone and that has expired too is deleted once,
  // for its NodePool (the first method).
  absl::flat_hash_set<std::string> taken;
  std::vector<Command> forceful =
      internal::RunNodePoolDeleted(pool, options_.methods, book);
  std::vector<Command> expired =
      internal::RunExpiration(pool, book, &plan.controls);
  for (std::vector<Command>* commands : {&forceful, &expired}) {
    for (Command& command : *commands) {
      const bool again =
          std::any_of(command.candidates.begin(), command.candidates.end(),
                      [&](const Candidate& c) {
                        return taken.contains(c.node_claim_name);
                      });
      if (again) continue;
      for (const Candidate& c : command.candidates) {
        taken.insert(c.node_claim_name);
      }
      book.Commanded(command);
      plan.commands.push_back(std::move(command));
    }
  }

  // 2. Budgeted methods: the first that acts ends the pass.
  RunBudgetedMethods(pool, *prepared.simulator, options_, inputs,
                     prepared.holds, now, taken, book, plan);
  KARPENTER_RETURN_IF_ERROR(prepared.simulator->error());

  // 3. Every node has a verdict; nodes no method looked at need nothing.
  plan.verdicts = std::move(book).Take();
  plan.cleanup = MarkedNodes(facts, inputs.in_flight);
  plan.next_pass = NextPass(pool, plan, options_, now);
  return plan;
}

absl::StatusOr<Command> Controller::Validate(const Command& command,
                                             const snapshot::Snapshot& snapshot,
                                             const PassInputs& inputs,
                                             absl::Time now) const {
  if (!command.validate_at.has_value()) return command;
  if (!BudgetReasonOf(command.method).has_value()) return command;
  return Validate(command, SnapshotFacts::Build(snapshot, options_.budgets),
                  inputs, now);
}

absl::StatusOr<Command> Controller::Validate(const Command& command,
                                             const SnapshotFacts& facts,
                                             const PassInputs& inputs,
                                             absl::Time now) const {
  if (!command.validate_at.has_value()) return command;
  const std::optional<budget::DisruptionReason> reason =
      BudgetReasonOf(command.method);
  if (!reason.has_value()) return command;
  KARPENTER_RETURN_IF_ERROR(CheckBudgetOptions(facts));
  Plan plan;
  Prepared prepared;
  KARPENTER_RETURN_IF_ERROR(Prepare(facts, inputs, now, prepared, plan));
  BudgetLedger ledger = ControlledLedger(
      BudgetLedger::FromMapping(plan.budgets, *reason), prepared.holds, plan);
  switch (command.method) {
    case Method::kEmptiness:
      return ValidateEmptiness(command, prepared.pool, ledger);
    case Method::kMultiNodeConsolidation:
    case Method::kSingleNodeConsolidation: {
      CandidatePool::Selection fresh = prepared.pool.For(command.method);
      absl::StatusOr<Command> valid = ValidateConsolidation(
          command, fresh.candidates, ledger, *prepared.simulator, now);
      KARPENTER_RETURN_IF_ERROR(prepared.simulator->error());
      return valid;
    }
    default:
      return command;
  }
}

}  // namespace karpenter::disruption
