// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/disruption/explain.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "karpenter/budget/calendar.h"
#include "karpenter/budget/pdb.h"
#include "karpenter/disruption/candidates.h"
#include "karpenter/disruption/snapshot_facts.h"
#include "karpenter/drain/classify.h"

namespace karpenter::disruption {
namespace {

absl::Status CheckOptions(const ExplainOptions& options) {
  if (options.horizon < absl::ZeroDuration() ||
      options.horizon == absl::InfiniteDuration()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ExplainOptions.horizon: \"", absl::FormatDuration(options.horizon),
        "\" must be finite and >= 0"));
  }
  if (options.max_passes < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ExplainOptions.max_passes: ", options.max_passes, " must be >= 1"));
  }
  return absl::OkStatus();
}

const Command* CommandOf(const Plan& plan, absl::string_view node) {
  for (const Command& c : plan.commands) {
    for (const Candidate& cand : c.candidates) {
      if ((cand.has_node ? cand.node_name : cand.node_claim_name) == node) {
        return &c;
      }
    }
  }
  return nullptr;
}

// The candidate facts of `node` (by Node name, else NodeClaim name).
const ManagedClaim* ClaimOf(const CandidatePool& pool, absl::string_view node) {
  for (const ManagedClaim& m : pool.managed_claims()) {
    if (m.facts.has_node ? m.facts.node_name == node
                         : m.facts.node_claim_name == node) {
      return &m;
    }
  }
  return nullptr;
}

void FillFacts(const ManagedClaim& claim, const Plan& plan,
               NodeExplanation& out) {
  const Candidate& c = claim.facts;
  out.pods = static_cast<int64_t>(c.pods.size());
  out.reschedulable_pods = static_cast<int64_t>(c.reschedulable_pods.size());
  out.empty = c.IsEmpty();
  out.consolidation_policy =
      c.consolidation_policy == budget::ConsolidationPolicy::kWhenEmpty
          ? "WhenEmpty"
          : "WhenEmptyOrUnderutilized";
  out.consolidation_disabled = c.consolidation_disabled;
  out.consolidatable_at = c.consolidatable_at;
  out.expires_at = c.expires_at;
  out.drifted_since = c.drifted_since;
  out.drift_reason = c.drift_reason;
  // The pass may have found (or cleared) drift that the condition does not
  // show yet.
  for (const DriftConditionUpdate& u : plan.drift_updates) {
    if (u.node_claim != c.node_claim_name) continue;
    if (u.change == drift::DriftConditionChange::kSet) {
      out.drifted_since = u.since;
      out.drift_reason = u.reason;
    } else if (u.change == drift::DriftConditionChange::kRemove) {
      out.drifted_since.reset();
      out.drift_reason.clear();
    }
  }
}

void FillBudgets(const snapshot::Snapshot& snapshot, const Plan& plan,
                 const budget::BudgetOptions& options, NodeExplanation& out) {
  const budget::NodePoolBudget* found = plan.budgets.Find(out.node_pool);
  if (found == nullptr) return;
  const budget::NodePoolBudget& pool = *found;
  std::optional<budget::DisruptionSpec> spec;
  if (auto p = snapshot.FindNodePool(out.node_pool); p.has_value()) {
    auto parsed =
        budget::ParseDisruptionSpec(snapshot.node_pools()[*p], options);
    if (parsed.ok()) spec = *std::move(parsed);
  }
  for (budget::DisruptionReason reason : budget::kAllDisruptionReasons) {
    const size_t r = static_cast<size_t>(reason);
    ReasonBudgetExplanation e;
    e.reason = reason;
    e.allowed = pool.by_reason[r].allowed;
    e.remaining = pool.remaining[r];
    e.why = pool.by_reason[r].why;
    if (spec.has_value()) {
      e.next_change =
          budget::NextChange(*spec, reason, pool.total_nodes, plan.now);
      if (e.next_change != absl::InfiniteFuture()) {
        e.next_allowed = budget::AllowedDisruptions(
            *spec, reason, pool.total_nodes, e.next_change);
      }
    }
    out.budgets.push_back(std::move(e));
  }
}

void AddBlockingPdbs(const snapshot::Snapshot& snapshot,
                     const budget::PdbIndex& pdbs, snapshot::PodIndex p,
                     NodeExplanation& out) {
  for (snapshot::PdbIndex i : pdbs.PdbsOfPod(p)) {
    const budget::PdbInfo& info = pdbs.pdbs()[i];
    if (info.error.ok() && info.disruptions_allowed > 0) continue;
    auto existing =
        std::find_if(out.blocking_pdbs.begin(), out.blocking_pdbs.end(),
                     [&](const BlockingPdb& b) { return b.pdb == info.name; });
    if (existing == out.blocking_pdbs.end()) {
      BlockingPdb b;
      b.pdb = info.name;
      b.disruptions_allowed = info.disruptions_allowed;
      b.expected_pods = info.expected_pods;
      b.current_healthy = info.current_healthy;
      b.desired_healthy = info.desired_healthy;
      if (!info.error.ok()) b.error = std::string(info.error.message());
      out.blocking_pdbs.push_back(std::move(b));
      existing = out.blocking_pdbs.end() - 1;
    }
    existing->pods.push_back(snapshot.PodKey(p));
  }
}

// Do-not-disrupt pods and blocking PDBs among the node's evictable pods.
void FillBlockers(const snapshot::Snapshot& snapshot, snapshot::NodeIndex n,
                  absl::Time now, NodeExplanation& out) {
  const budget::PdbIndex pdbs = budget::PdbIndex::Build(snapshot);
  for (snapshot::PodIndex p : snapshot.PodsOnNode(n)) {
    const v1::Pod pod = snapshot.DecodePod(p);
    if (drain::IsTerminal(pod) || drain::IsTerminating(pod) ||
        drain::IsOwnedByNode(pod)) {
      continue;
    }
    const drain::DoNotDisrupt dnd = drain::EvaluateDoNotDisrupt(pod, now);
    if (dnd.active()) {
      const auto& annotations = pod.metadata().annotations();
      auto it = annotations.find(std::string(dnd.source));
      out.do_not_disrupt.push_back(DoNotDisruptPod{
          snapshot.PodKey(p),
          absl::StrCat(dnd.source, ": \"",
                       it == annotations.end() ? "" : it->second, "\""),
          dnd.until});
    }
    if (!drain::IsOwnedByDaemonSet(pod))
      AddBlockingPdbs(snapshot, pdbs, p, out);
  }
}

// The instants after `t` at which time alone may change the node's verdict.
absl::Time NextInstant(const NodeExplanation& e,
                       const std::optional<budget::DisruptionSpec>& spec,
                       int64_t pool_nodes, absl::Time t) {
  absl::Time next = absl::InfiniteFuture();
  auto consider = [&](std::optional<absl::Time> at) {
    if (at.has_value() && *at > t) next = std::min(next, *at);
  };
  consider(e.consolidatable_at);
  consider(e.expires_at);
  for (const DoNotDisruptPod& pod : e.do_not_disrupt) consider(pod.until);
  if (spec.has_value()) {
    for (budget::DisruptionReason reason : budget::kAllDisruptionReasons) {
      consider(budget::NextChange(*spec, reason, pool_nodes, t));
    }
  }
  return next;
}

std::optional<budget::DisruptionSpec> SpecOf(const snapshot::Snapshot& snap,
                                             absl::string_view node_pool,
                                             const budget::BudgetOptions& o) {
  auto p = snap.FindNodePool(node_pool);
  if (!p.has_value()) return std::nullopt;
  auto parsed = budget::ParseDisruptionSpec(snap.node_pools()[*p], o);
  if (!parsed.ok()) return std::nullopt;
  return *std::move(parsed);
}

// Runs passes at the instants where time alone changes the answer until
// one commands the node.
absl::Status SearchDisruption(const Controller& controller,
                              const SnapshotFacts& facts,
                              const PassInputs& inputs, const Plan& first,
                              const ExplainOptions& options,
                              NodeExplanation& out) {
  const std::optional<budget::DisruptionSpec> spec =
      SpecOf(facts.snapshot(), out.node_pool, controller.options().budgets);
  int64_t pool_nodes = 0;
  if (const budget::NodePoolBudget* pool = first.budgets.Find(out.node_pool);
      pool != nullptr) {
    pool_nodes = pool->total_nodes;
  }
  const absl::Time limit = out.now + options.horizon;
  absl::Time t = out.now;
  for (int pass = 0; pass < options.max_passes && t <= limit; ++pass) {
    out.tried.push_back(t);
    Plan later;
    const Plan* plan = &first;
    if (pass > 0) {
      absl::StatusOr<Plan> p = controller.Decide(facts, inputs, t);
      if (!p.ok()) return p.status();
      later = *std::move(p);
      plan = &later;
    }
    const NodeVerdict* v = plan->VerdictOf(out.node);
    if (v != nullptr && v->code == reasons::kCommanded) {
      out.disrupted_at = t;
      out.disrupted_by = v->method;
      return absl::OkStatus();
    }
    t = NextInstant(out, spec, pool_nodes, t);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<NodeExplanation> ExplainNode(const Controller& controller,
                                            const snapshot::Snapshot& snapshot,
                                            const PassInputs& inputs,
                                            absl::string_view node,
                                            absl::Time now,
                                            const ExplainOptions& options) {
  if (absl::Status s = CheckOptions(options); !s.ok()) return s;
  const std::optional<snapshot::NodeIndex> n = snapshot.FindNode(node);
  if (!n.has_value() && !snapshot.FindNodeClaim(node).has_value()) {
    return absl::NotFoundError(absl::StrCat("node \"", node, "\" not found"));
  }
  const SnapshotFacts facts =
      SnapshotFacts::Build(snapshot, controller.options().budgets);
  absl::StatusOr<Plan> plan = controller.Decide(facts, inputs, now);
  if (!plan.ok()) return plan.status();
  const NodeVerdict* verdict = plan->VerdictOf(node);
  if (verdict == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("node \"", node, "\" has no verdict in the pass"));
  }
  NodeExplanation out;
  out.now = now;
  out.node = std::string(node);
  out.has_node = n.has_value();
  out.verdict = *verdict;
  out.node_claim = verdict->node_claim;
  out.node_pool = verdict->node_pool;
  if (const Command* c = CommandOf(*plan, node); c != nullptr) out.command = *c;

  CandidateContext ctx;
  ctx.snapshot = &snapshot;
  ctx.facts = &facts;
  ctx.catalog = &inputs.catalog;
  ctx.now = now;
  absl::StatusOr<CandidatePool> pool = CandidatePool::Build(ctx);
  if (!pool.ok()) return pool.status();
  if (const ManagedClaim* claim = ClaimOf(*pool, node); claim != nullptr) {
    FillFacts(*claim, *plan, out);
  }
  FillBudgets(snapshot, *plan, controller.options().budgets, out);
  if (n.has_value()) FillBlockers(snapshot, *n, now, out);
  if (!out.node_claim.empty()) {
    if (absl::Status s =
            SearchDisruption(controller, facts, inputs, *plan, options, out);
        !s.ok()) {
      return s;
    }
  }
  return out;
}

}  // namespace karpenter::disruption
