// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#include "karpenter/disruption/methods.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "disruption/replacement_internal.h"
#include "disruption/verdict_sink.h"
#include "karpenter/duration.h"
#include "karpenter/quantity.h"
#include "karpenter/time_util.h"
#include "karpenter/well_known.h"

namespace karpenter::disruption {
namespace {

using internal::DisplayName;
using internal::Emit;
using internal::VerdictSink;

std::string BudgetMessage(const Candidate& c, Method method,
                          const BudgetLedger& ledger) {
  const std::optional<budget::DisruptionReason> reason = BudgetReasonOf(method);
  return absl::StrCat(
      "no ", reason.has_value() ? budget::DisruptionReasonName(*reason) : "",
      " disruptions allowed: ", ledger.Describe(c.node_pool_name));
}

void EmitBudget(VerdictSink& sink, const Candidate& c, Method method,
                const BudgetLedger& ledger) {
  if (ledger.Remaining(c.node_pool_name) > 0) {
    std::string zone = ledger.ZoneRefusal(c);
    if (!zone.empty()) {
      Emit(sink, c, method, reasons::kZoneLimit, [&] { return zone; });
      return;
    }
  }
  Emit(sink, c, method, reasons::kBudgetExhausted,
       [&] { return BudgetMessage(c, method, ledger); });
}

// The forceful methods (NodePool deleted, expiration) take no claim that is
// already going: one deleting, or in another command. Emits the verdict of
// such a claim and returns true; false if the claim is free to take.
bool EmitIfAlreadyGoing(VerdictSink& sink, const ManagedClaim& mc, Method m) {
  if (mc.deleting) {
    Emit(sink, mc.facts, m, reasons::kDeleting,
         [] { return "node is deleting or marked for deletion"; });
    return true;
  }
  if (mc.in_flight) {
    Emit(sink, mc.facts, m, reasons::kInFlight,
         [] { return "candidate is already being disrupted"; });
    return true;
  }
  return false;
}

// A command of one candidate and no replacement.
Command SingleCommand(Method m, const Candidate& c, std::string explanation) {
  Command cmd;
  cmd.method = m;
  cmd.candidates = {c};
  cmd.explanation = std::move(explanation);
  return cmd;
}

std::string NodeList(const std::vector<Candidate>& candidates) {
  std::vector<absl::string_view> names;
  for (const Candidate& c : candidates) names.push_back(DisplayName(c));
  return absl::StrJoin(names, ", ");
}

// Emptiness ShouldDisrupt (docs/semantics.md §2.5): the reason code when the
// candidate does not qualify, "" when it does.
absl::string_view EmptinessCode(const Candidate& c) {
  if (c.static_node_pool) return reasons::kStaticNodePool;
  if (c.consolidation_disabled) return reasons::kConsolidationDisabled;
  if (!c.IsEmpty()) return reasons::kNotEmpty;
  if (!c.consolidatable) return reasons::kNotConsolidatable;
  return "";
}

std::string EmptinessMessage(const Candidate& c, const CandidatePool& pool,
                             absl::string_view code) {
  if (code == reasons::kStaticNodePool) {
    return absl::StrCat("NodePool \"", c.node_pool_name,
                        "\" is static (spec.replicas)");
  }
  if (code == reasons::kConsolidationDisabled) {
    const absl::string_view error = pool.NodePoolSpecError(c.node_pool);
    return error.empty()
               ? absl::StrCat("NodePool \"", c.node_pool_name,
                              "\" has consolidation disabled")
               : absl::StrCat("NodePool \"", c.node_pool_name,
                              "\" has an invalid disruption spec: ", error);
  }
  if (code == reasons::kNotEmpty) {
    return absl::StrCat("node has ", c.reschedulable_pods.size(),
                        " reschedulable pod(s) (reschedule cost ",
                        c.reschedule_disruption_cost, ")");
  }
  return c.consolidatable_at.has_value()
             ? absl::StrCat(
                   "consolidateAfter has not elapsed (consolidatable "
                   "at ",
                   FormatRfc3339(*c.consolidatable_at), ")")
             : "NodeClaim is not initialized";
}

// Instance types of `pool_name` in the catalogue, cheapest first (ties by
// name), with their cheapest offering price.
std::vector<std::pair<double, std::string>> CheapestTypes(
    const InstanceTypeCatalog* catalog, const std::string& pool_name) {
  std::vector<std::pair<double, std::string>> out;
  if (catalog == nullptr) return out;
  auto it = catalog->find(pool_name);
  if (it == catalog->end()) return out;
  for (const InstanceType& t : it->second) {
    double best = std::numeric_limits<double>::infinity();
    for (const Offering& o : t.offerings) {
      if (!std::isnan(o.price)) best = std::min(best, o.price);
    }
    out.emplace_back(std::isinf(best) ? 0 : best, t.name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A NodeClaim from the NodePool's template replacing `c` (static drift).
Replacement TemplateReplacement(const CandidatePool& pool,
                                const v1::NodePool& np, const Candidate& c) {
  Replacement r;
  r.node_pool = np.metadata().name();
  for (auto& [price, name] : CheapestTypes(pool.catalog(), r.node_pool)) {
    if (r.instance_types.empty()) r.price = price;
    r.instance_types.push_back(name);
  }
  if (r.instance_types.empty()) {  // No catalogue: the node's own type.
    r.instance_types.push_back(c.instance_type);
    r.price = c.price;
  }
  v1::NodeClaim& claim = r.node_claim;
  v1::ObjectMeta& meta = *claim.mutable_metadata();
  meta.set_name(absl::StrCat(c.node_claim_name, "-replacement"));
  internal::SetTemplateMetadata(np, meta);
  *claim.mutable_spec() = np.spec().template_().spec();
  v1::NodeSelectorRequirement* req = claim.mutable_spec()->add_requirements();
  req->set_key(std::string(well_known::kLabelInstanceTypeStable));
  req->set_operator_("In");
  for (const std::string& t : r.instance_types) req->add_values(t);
  return r;
}

// spec.limits.nodes as a count; nullopt when unset.
absl::StatusOr<std::optional<int64_t>> NodeLimit(const v1::NodePool& np) {
  auto it = np.spec().limits().find("nodes");
  if (it == np.spec().limits().end()) return std::nullopt;
  absl::StatusOr<int64_t> milli =
      ParseQuantityMilli(it->second, "spec.limits.nodes");
  if (!milli.ok()) return milli.status();
  // Quantity.Value() rounds up.
  return *milli / 1000 + (*milli % 1000 > 0 ? 1 : 0);
}

}  // namespace

namespace internal {

void SetTemplateMetadata(const v1::NodePool& pool, v1::ObjectMeta& meta) {
  const v1::NodeClaimTemplate& tmpl = pool.spec().template_();
  *meta.mutable_labels() = tmpl.metadata().labels();
  (*meta.mutable_labels())[std::string(well_known::kNodePoolLabelKey)] =
      pool.metadata().name();
  *meta.mutable_annotations() = tmpl.metadata().annotations();
  for (absl::string_view key :
       {well_known::kNodePoolHashAnnotationKey,
        well_known::kNodePoolHashVersionAnnotationKey}) {
    auto it = pool.metadata().annotations().find(std::string(key));
    if (it != pool.metadata().annotations().end()) {
      (*meta.mutable_annotations())[std::string(key)] = it->second;
    }
  }
}

std::string MissingNodePoolMessage(absl::string_view node_pool,
                                   const MethodOptions& options) {
  return absl::StrCat(
      "NodePool \"", node_pool,
      "\" is not in the snapshot, which may not hold the whole cluster: its "
      "NodeClaims are not deleted",
      options.missing_node_pool_hint.empty() ? "" : "; ",
      options.missing_node_pool_hint);
}

std::vector<Command> RunNodePoolDeleted(const CandidatePool& pool,
                                        const MethodOptions& options,
                                        VerdictSink& sink) {
  const Method m = Method::kNodePoolDeleted;
  std::vector<Command> out;
  for (const ManagedClaim& mc : pool.managed_claims()) {
    const Candidate& c = mc.facts;
    if (c.node_pool_name.empty() || mc.node_pool_exists) continue;
    if (!options.node_pools_complete) {
      Emit(sink, c, m, reasons::kNodePoolNotFound,
           [&] { return MissingNodePoolMessage(c.node_pool_name, options); });
      continue;
    }
    if (!EmitIfAlreadyGoing(sink, mc, m)) {
      out.push_back(
          SingleCommand(m, c,
                        absl::StrCat("NodePool \"", c.node_pool_name,
                                     "\" no longer exists: delete NodeClaim \"",
                                     c.node_claim_name, "\"")));
    }
  }
  return out;
}

std::vector<Command> RunExpiration(
    const CandidatePool& pool, VerdictSink& sink,
    const std::vector<NodePoolControlState>* controls) {
  const Method m = Method::kExpiration;
  const absl::Time now = pool.now();
  // soft-expiration: remaining expiration budget per NodePool.
  std::map<std::string, const NodePoolControlState*, std::less<>> soft;
  if (controls != nullptr) {
    for (const NodePoolControlState& state : *controls) {
      if (state.controls.soft_expiration.has_value()) {
        soft.emplace(state.node_pool, &state);
      }
    }
  }
  const auto explain = [](const Candidate& c) {
    return absl::StrCat("expired at ", FormatRfc3339(*c.expires_at),
                        " (expireAfter ",
                        FormatGoDuration(*c.expires_at - c.created), ")");
  };
  std::vector<Command> out;
  std::vector<const Candidate*> waiting;  // Soft-expired, within ceiling.
  for (const ManagedClaim& mc : pool.managed_claims()) {
    const Candidate& c = mc.facts;
    if (!mc.expire_after_error.ok()) {
      Emit(sink, c, m, reasons::kNotExpired, [&] {
        return absl::StrCat("cannot expire: ", mc.expire_after_error.message());
      });
    } else if (!c.expires_at.has_value()) {
      Emit(sink, c, m, reasons::kNotExpired,
           [] { return "spec.expireAfter is Never or unset"; });
    } else if (now < *c.expires_at) {
      Emit(sink, c, m, reasons::kNotExpired, [&] {
        return absl::StrCat("expires at ", FormatRfc3339(*c.expires_at));
      });
    } else if (!EmitIfAlreadyGoing(sink, mc, m)) {
      const std::optional<SoftExpirationSpec>& spec =
          c.controls.soft_expiration;
      const bool budgeted =
          spec.has_value() && soft.contains(c.node_pool_name) &&
          (!spec->ceiling.has_value() || now < *c.expires_at + *spec->ceiling);
      if (budgeted) {
        waiting.push_back(&c);
      } else if (spec.has_value() && soft.contains(c.node_pool_name)) {
        out.push_back(SingleCommand(
            m, c,
            absl::StrCat(explain(c), "; past its soft-expiration ceiling ",
                         FormatGoDuration(*spec->ceiling), " at ",
                         FormatRfc3339(*c.expires_at + *spec->ceiling))));
      } else {
        out.push_back(SingleCommand(m, c, explain(c)));
      }
    }
  }
  // Soft-expired nodes, the longest expired first, take the budget.
  std::stable_sort(waiting.begin(), waiting.end(),
                   [](const Candidate* a, const Candidate* b) {
                     return *a->expires_at < *b->expires_at;
                   });
  std::map<std::string, int64_t, std::less<>> remaining;
  for (const auto& [name, state] : soft) {
    remaining[name] = state->expiration_remaining;
  }
  for (const Candidate* c : waiting) {
    const NodePoolControlState& state = *soft.at(c->node_pool_name);
    int64_t& left = remaining[c->node_pool_name];
    const std::string ceiling =
        state.controls.soft_expiration->ceiling.has_value()
            ? absl::StrCat(
                  "deleted regardless at ",
                  FormatRfc3339(*c->expires_at +
                                *state.controls.soft_expiration->ceiling))
            : std::string("no ceiling (Never)");
    if (left > 0) {
      --left;
      out.push_back(SingleCommand(
          m, *c,
          absl::StrCat(explain(*c), "; soft-expiration budget: ",
                       state.expiration.why, ", ", left, " left")));
    } else {
      Emit(sink, *c, m, reasons::kExpirationBudgetExhausted, [&] {
        return absl::StrCat(explain(*c),
                            "; waiting for the expiration budget "
                            "(soft-expiration): ",
                            state.expiration.why, "; ", ceiling);
      });
    }
  }
  return out;
}

std::vector<Command> RunEmptiness(const CandidatePool& pool,
                                  BudgetLedger& ledger, absl::Time now,
                                  const MethodOptions& options,
                                  VerdictSink& sink, size_t* eligible_count) {
  const Method m = Method::kEmptiness;
  CandidatePool::View view = pool.ViewFor(m);
  for (NodeVerdict& v : view.excluded) sink.PutBuilt(std::move(v));
  std::vector<Candidate> eligible;
  for (const Candidate* c : view.candidates) {
    const absl::string_view code = EmptinessCode(*c);
    if (code.empty()) {
      eligible.push_back(*c);
    } else {
      Emit(sink, *c, m, code, [&] { return EmptinessMessage(*c, pool, code); });
    }
  }
  if (eligible_count != nullptr) *eligible_count = eligible.size();
  SortForConsolidation(eligible);
  std::vector<Candidate> taken;
  for (Candidate& c : eligible) {
    if (ledger.TryTake(c)) {
      taken.push_back(std::move(c));
    } else {
      EmitBudget(sink, c, m, ledger);
    }
  }
  std::vector<Command> out;
  if (!taken.empty()) {
    Command cmd;
    cmd.method = m;
    cmd.validate_at = now + options.validation_delay;
    cmd.explanation = absl::StrCat("delete ", taken.size(),
                                   " empty node(s): ", NodeList(taken));
    cmd.candidates = std::move(taken);
    out.push_back(std::move(cmd));
  }
  return out;
}

namespace {

// The limit on the drift commands of static NodePool `np` holding `count`
// NodeClaims, at most `max_drifts`; `held` says why candidates within the
// budget are held back.
int64_t StaticDriftAllowance(const v1::NodePool& np, int64_t count,
                             int64_t max_drifts, std::string& held) {
  const std::string& name = np.metadata().name();
  if (count > np.spec().replicas()) {
    held =
        absl::StrCat("static NodePool \"", name, "\" is scaling down (", count,
                     " NodeClaims for ", np.spec().replicas(), " replicas)");
    return 0;
  }
  absl::StatusOr<std::optional<int64_t>> limit = NodeLimit(np);
  if (!limit.ok()) {
    held = absl::StrCat("static NodePool \"", name,
                        "\": ", limit.status().message());
    return 0;
  }
  if (!limit->has_value()) return max_drifts;
  held = "static NodePool is at its node limit and cannot stage a replacement";
  return std::clamp<int64_t>(**limit - count, 0, max_drifts);
}

}  // namespace

std::vector<Command> RunStaticDrift(const CandidatePool& pool,
                                    BudgetLedger& ledger, VerdictSink& sink,
                                    size_t* eligible_count) {
  const Method m = Method::kStaticDrift;
  CandidatePool::View view = pool.ViewFor(m);
  for (NodeVerdict& v : view.excluded) {
    // Only static NodePools' nodes are this method's candidates.
    const std::optional<snapshot::NodePoolIndex> p =
        pool.snapshot().FindNodePool(v.node_pool);
    if (p.has_value() &&
        pool.snapshot().node_pools()[*p].spec().has_replicas()) {
      sink.PutBuilt(std::move(v));
    }
  }
  std::map<std::string, std::vector<Candidate>> by_pool;
  for (const Candidate* c : view.candidates) {
    if (!c->static_node_pool) continue;
    if (!c->drifted_since.has_value()) {
      Emit(sink, *c, m, reasons::kNotDrifted,
           [] { return "NodeClaim is not drifted"; });
      continue;
    }
    by_pool[c->node_pool_name].push_back(*c);
    if (eligible_count != nullptr) ++*eligible_count;
  }
  std::vector<Command> out;
  if (by_pool.empty()) return out;
  // NodeClaims per NodePool (running and pending disruption).
  absl::flat_hash_map<std::string, int64_t> claims;
  for (const ManagedClaim& mc : pool.managed_claims()) {
    if (mc.node_pool_exists) ++claims[mc.facts.node_pool_name];
  }
  for (auto& [name, cs] : by_pool) {
    SortForDrift(cs);
    const v1::NodePool& np = pool.snapshot().node_pools()[cs[0].node_pool];
    const int64_t max_drifts = std::min<int64_t>(
        ledger.Remaining(name), static_cast<int64_t>(cs.size()));
    std::string held;
    const int64_t allowed =
        StaticDriftAllowance(np, claims[name], max_drifts, held);
    for (int64_t i = 0; i < static_cast<int64_t>(cs.size()); ++i) {
      const Candidate& c = cs[i];
      if (i < allowed && ledger.TryTake(c)) {
        Command cmd;
        cmd.method = m;
        cmd.candidates = {c};
        cmd.replacements = {TemplateReplacement(pool, np, c)};
        cmd.explanation = absl::StrCat("replace drifted node ", c.node_name,
                                       " (", c.drift_reason,
                                       ") from the "
                                       "template of static NodePool \"",
                                       name, "\"");
        out.push_back(std::move(cmd));
      } else if (i < max_drifts && ledger.ZoneRefusal(c).empty()) {
        Emit(sink, c, m, reasons::kNotSelected, [&] { return held; });
      } else {
        EmitBudget(sink, c, m, ledger);
      }
    }
  }
  return out;
}

std::vector<Command> RunDrift(const CandidatePool& pool, BudgetLedger& ledger,
                              const SchedulingSimulator& simulator,
                              const MethodOptions& options, VerdictSink& sink,
                              size_t* eligible_count) {
  const Method m = Method::kDrift;
  CandidatePool::View view = pool.ViewFor(m);
  for (NodeVerdict& v : view.excluded) sink.PutBuilt(std::move(v));
  std::vector<Candidate> eligible;
  for (const Candidate* c : view.candidates) {
    if (!c->drifted_since.has_value()) {
      Emit(sink, *c, m, reasons::kNotDrifted,
           [] { return "NodeClaim is not drifted"; });
    } else if (c->static_node_pool) {
      Emit(sink, *c, m, reasons::kStaticNodePool, [&] {
        return absl::StrCat(
            "NodePool \"", c->node_pool_name,
            "\" is static: its drift is handled by StaticDrift");
      });
    } else {
      eligible.push_back(*c);
    }
  }
  if (eligible_count != nullptr) *eligible_count = eligible.size();
  SortForDrift(eligible);
  std::string chosen;
  std::vector<Command> out;
  for (Candidate& c : eligible) {
    if (!chosen.empty()) {
      Emit(sink, c, m, reasons::kNotSelected, [&] {
        return absl::StrCat("one drift command per pass: ", chosen,
                            " was chosen");
      });
      continue;
    }
    if (!ledger.Allows(c)) {
      EmitBudget(sink, c, m, ledger);
      continue;
    }
    SimulationResult sim = simulator.Simulate(absl::MakeConstSpan(&c, 1));
    if (sim.unsupported.has_value()) {
      Emit(sink, c, m, reasons::kUnsupportedConstraint,
           [&] { return *sim.unsupported; });
      continue;
    }
    if (!sim.all_pods_scheduled) {
      Emit(sink, c, m, reasons::kPodsDoNotFit, [&] {
        return absl::StrCat("pods cannot be rescheduled: ",
                            absl::StrJoin(sim.unschedulable, "; "));
      });
      continue;
    }
    ledger.TryTake(c);
    Command cmd;
    cmd.method = m;
    cmd.explanation =
        sim.new_node_claims.empty()
            ? absl::StrCat("delete drifted node ", c.node_name, " (",
                           c.drift_reason, ")")
            : absl::StrCat("replace drifted node ", c.node_name, " (",
                           c.drift_reason, ") with ",
                           sim.new_node_claims.size(), " new NodeClaim(s)");
    cmd.replacements = std::move(sim.new_node_claims);
    if (options.one_drift_command_per_pass) chosen = c.node_name;
    cmd.candidates.push_back(std::move(c));
    out.push_back(std::move(cmd));
  }
  return out;
}

}  // namespace internal

namespace {

MethodResult Collect(std::vector<Command> commands,
                     internal::CollectingSink& sink) {
  MethodResult out;
  out.commands = std::move(commands);
  out.verdicts = std::move(sink).Take();
  return out;
}

}  // namespace

MethodResult ComputeNodePoolDeleted(const CandidatePool& pool,
                                    const MethodOptions& options) {
  internal::CollectingSink sink;
  return Collect(internal::RunNodePoolDeleted(pool, options, sink), sink);
}

MethodResult ComputeExpiration(const CandidatePool& pool) {
  internal::CollectingSink sink;
  return Collect(internal::RunExpiration(pool, sink), sink);
}

MethodResult ComputeEmptiness(const CandidatePool& pool, BudgetLedger& ledger,
                              absl::Time now, const MethodOptions& options) {
  internal::CollectingSink sink;
  return Collect(internal::RunEmptiness(pool, ledger, now, options, sink),
                 sink);
}

MethodResult ComputeStaticDrift(const CandidatePool& pool, BudgetLedger& ledger,
                                const SchedulingSimulator& /*simulator*/,
                                const MethodOptions& /*options*/) {
  internal::CollectingSink sink;
  return Collect(internal::RunStaticDrift(pool, ledger, sink), sink);
}

MethodResult ComputeDrift(const CandidatePool& pool, BudgetLedger& ledger,
                          const SchedulingSimulator& simulator,
                          const MethodOptions& options) {
  internal::CollectingSink sink;
  return Collect(internal::RunDrift(pool, ledger, simulator, options, sink),
                 sink);
}

absl::StatusOr<Command> ValidateEmptiness(const Command& command,
                                          const CandidatePool& fresh,
                                          BudgetLedger& fresh_ledger) {
  if (command.method != Method::kEmptiness) {
    return absl::InvalidArgumentError(
        absl::StrCat("ValidateEmptiness: command method is ",
                     MethodName(command.method), ", not Emptiness"));
  }
  // Why each node is not an emptiness candidate now.
  std::map<std::string, std::string, std::less<>> why;
  for (const NodeVerdict& v : fresh.exclusions()) {
    why.emplace(v.node, absl::StrCat(v.code, ": ", v.message));
  }
  CandidatePool::Selection sel = fresh.For(Method::kEmptiness);
  for (const NodeVerdict& v : sel.excluded) {
    why.emplace(v.node, absl::StrCat(v.code, ": ", v.message));
  }
  std::map<std::string, Candidate, std::less<>> eligible;
  for (Candidate& c : sel.candidates) {
    const absl::string_view code = EmptinessCode(c);
    if (!code.empty()) {
      why.emplace(DisplayName(c),
                  absl::StrCat(code, ": ", EmptinessMessage(c, fresh, code)));
    } else {
      eligible.emplace(c.node_name, std::move(c));
    }
  }
  Command out = command;
  out.candidates.clear();
  out.validate_at = std::nullopt;
  std::vector<std::string> failures;
  for (const Candidate& c : command.candidates) {
    auto it = eligible.find(c.node_name);
    if (it == eligible.end() ||
        it->second.node_claim_name != c.node_claim_name) {
      auto w = why.find(c.node_name);
      failures.push_back(
          absl::StrCat(c.node_name, ": ",
                       w != why.end() ? w->second : "no longer a candidate"));
    } else if (!fresh_ledger.TryTake(c)) {
      const std::string zone = fresh_ledger.Remaining(c.node_pool_name) > 0
                                   ? fresh_ledger.ZoneRefusal(c)
                                   : "";
      failures.push_back(
          zone.empty() ? absl::StrCat(c.node_name, ": BudgetExhausted: ",
                                      fresh_ledger.Describe(c.node_pool_name))
                       : absl::StrCat(c.node_name, ": ZoneLimit: ", zone));
    } else {
      out.candidates.push_back(it->second);
    }
  }
  if (out.candidates.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("emptiness command is no longer valid: ",
                     absl::StrJoin(failures, "; ")));
  }
  out.explanation = absl::StrCat("delete ", out.candidates.size(),
                                 " empty node(s): ", NodeList(out.candidates));
  if (!failures.empty()) {
    absl::StrAppend(&out.explanation,
                    " (dropped at validation: ", absl::StrJoin(failures, "; "),
                    ")");
  }
  return out;
}

}  // namespace karpenter::disruption
