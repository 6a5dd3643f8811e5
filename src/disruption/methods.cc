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
#include "karpenter/duration.h"
#include "karpenter/quantity.h"

namespace karpenter::disruption {
namespace {

std::string FormatUtc(absl::Time t) {
  return absl::FormatTime("%Y-%m-%d%ET%H:%M:%E*SZ", t, absl::UTCTimeZone());
}

// The name a verdict is filed under: the Node's, else the NodeClaim's.
const std::string& DisplayName(const Candidate& c) {
  return c.has_node ? c.node_name : c.node_claim_name;
}

NodeVerdict VerdictFor(const Candidate& c, Method method,
                       absl::string_view code, std::string message) {
  NodeVerdict v;
  v.node = DisplayName(c);
  v.node_claim = c.node_claim_name;
  v.node_pool = c.node_pool_name;
  v.method = method;
  v.code = std::string(code);
  v.message = std::move(message);
  return v;
}

void SortVerdicts(std::vector<NodeVerdict>& verdicts) {
  std::stable_sort(verdicts.begin(), verdicts.end(),
                   [](const NodeVerdict& a, const NodeVerdict& b) {
                     return a.node < b.node;
                   });
}

NodeVerdict BudgetVerdict(const Candidate& c, Method method,
                          const BudgetLedger& ledger) {
  const std::optional<budget::DisruptionReason> reason = BudgetReasonOf(method);
  return VerdictFor(
      c, method, reasons::kBudgetExhausted,
      absl::StrCat(
          "no ",
          reason.has_value() ? budget::DisruptionReasonName(*reason) : "",
          " disruptions allowed: ", ledger.Describe(c.node_pool_name)));
}

std::string NodeList(const std::vector<Candidate>& candidates) {
  std::vector<absl::string_view> names;
  for (const Candidate& c : candidates) names.push_back(DisplayName(c));
  return absl::StrJoin(names, ", ");
}

// Emptiness ShouldDisrupt (§2.5); nullopt when the candidate qualifies.
std::optional<NodeVerdict> EmptinessIneligible(const Candidate& c,
                                               const CandidatePool& pool) {
  const Method m = Method::kEmptiness;
  if (c.static_node_pool) {
    return VerdictFor(c, m, reasons::kStaticNodePool,
                      absl::StrCat("NodePool \"", c.node_pool_name,
                                   "\" is static (spec.replicas)"));
  }
  if (c.consolidation_disabled) {
    const absl::string_view error = pool.NodePoolSpecError(c.node_pool);
    return VerdictFor(
        c, m, reasons::kConsolidationDisabled,
        error.empty()
            ? absl::StrCat("NodePool \"", c.node_pool_name,
                           "\" has consolidation disabled")
            : absl::StrCat("NodePool \"", c.node_pool_name,
                           "\" has an invalid disruption spec: ", error));
  }
  if (!c.IsEmpty()) {
    return VerdictFor(c, m, reasons::kNotEmpty,
                      absl::StrCat("node has ", c.reschedulable_pods.size(),
                                   " reschedulable pod(s) (reschedule cost ",
                                   c.reschedule_disruption_cost, ")"));
  }
  if (!c.consolidatable) {
    return VerdictFor(
        c, m, reasons::kNotConsolidatable,
        c.consolidatable_at.has_value()
            ? absl::StrCat("consolidateAfter has not elapsed (consolidatable "
                           "at ",
                           FormatUtc(*c.consolidatable_at), ")")
            : "NodeClaim is not initialized");
  }
  return std::nullopt;
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
  const v1::NodeClaimTemplate& tmpl = np.spec().template_();
  *meta.mutable_labels() = tmpl.metadata().labels();
  (*meta.mutable_labels())["karpenter.sh/nodepool"] = r.node_pool;
  *meta.mutable_annotations() = tmpl.metadata().annotations();
  for (const char* key :
       {"karpenter.sh/nodepool-hash", "karpenter.sh/nodepool-hash-version"}) {
    auto it = np.metadata().annotations().find(key);
    if (it != np.metadata().annotations().end()) {
      (*meta.mutable_annotations())[key] = it->second;
    }
  }
  *claim.mutable_spec() = tmpl.spec();
  v1::NodeSelectorRequirement* req = claim.mutable_spec()->add_requirements();
  req->set_key(std::string(kInstanceTypeLabel));
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

MethodResult ComputeNodePoolDeleted(const CandidatePool& pool) {
  const Method m = Method::kNodePoolDeleted;
  MethodResult out;
  for (const ManagedClaim& mc : pool.managed_claims()) {
    const Candidate& c = mc.facts;
    if (c.node_pool_name.empty() || mc.node_pool_exists) continue;
    if (mc.deleting) {
      out.verdicts.push_back(VerdictFor(c, m, reasons::kDeleting,
                                        "node is deleting or marked for "
                                        "deletion"));
    } else if (mc.in_flight) {
      out.verdicts.push_back(VerdictFor(
          c, m, reasons::kInFlight, "candidate is already being disrupted"));
    } else {
      Command cmd;
      cmd.method = m;
      cmd.candidates = {c};
      cmd.explanation = absl::StrCat("NodePool \"", c.node_pool_name,
                                     "\" no longer exists: delete NodeClaim \"",
                                     c.node_claim_name, "\"");
      out.commands.push_back(std::move(cmd));
    }
  }
  SortVerdicts(out.verdicts);
  return out;
}

MethodResult ComputeExpiration(const CandidatePool& pool) {
  const Method m = Method::kExpiration;
  const absl::Time now = pool.now();
  MethodResult out;
  for (const ManagedClaim& mc : pool.managed_claims()) {
    const Candidate& c = mc.facts;
    if (!mc.expire_after_error.ok()) {
      out.verdicts.push_back(VerdictFor(
          c, m, reasons::kNotExpired,
          absl::StrCat("cannot expire: ", mc.expire_after_error.message())));
    } else if (!c.expires_at.has_value()) {
      out.verdicts.push_back(VerdictFor(c, m, reasons::kNotExpired,
                                        "spec.expireAfter is Never or unset"));
    } else if (now < *c.expires_at) {
      out.verdicts.push_back(
          VerdictFor(c, m, reasons::kNotExpired,
                     absl::StrCat("expires at ", FormatUtc(*c.expires_at))));
    } else if (mc.deleting) {
      out.verdicts.push_back(VerdictFor(
          c, m, reasons::kDeleting, "node is deleting or marked for deletion"));
    } else if (mc.in_flight) {
      out.verdicts.push_back(VerdictFor(
          c, m, reasons::kInFlight, "candidate is already being disrupted"));
    } else {
      Command cmd;
      cmd.method = m;
      cmd.candidates = {c};
      cmd.explanation = absl::StrCat(
          "expired at ", FormatUtc(*c.expires_at), " (expireAfter ",
          FormatGoDuration(*c.expires_at - c.created), ")");
      out.commands.push_back(std::move(cmd));
    }
  }
  SortVerdicts(out.verdicts);
  return out;
}

MethodResult ComputeEmptiness(const CandidatePool& pool, BudgetLedger& ledger,
                              absl::Time now, const MethodOptions& options) {
  const Method m = Method::kEmptiness;
  CandidatePool::Selection sel = pool.For(m);
  MethodResult out;
  out.verdicts = std::move(sel.excluded);
  std::vector<Candidate> eligible;
  for (Candidate& c : sel.candidates) {
    std::optional<NodeVerdict> no = EmptinessIneligible(c, pool);
    if (no.has_value()) {
      out.verdicts.push_back(std::move(*no));
    } else {
      eligible.push_back(std::move(c));
    }
  }
  SortForConsolidation(eligible);
  std::vector<Candidate> taken;
  for (Candidate& c : eligible) {
    if (ledger.TryTake(c.node_pool_name)) {
      taken.push_back(std::move(c));
    } else {
      out.verdicts.push_back(BudgetVerdict(c, m, ledger));
    }
  }
  if (!taken.empty()) {
    Command cmd;
    cmd.method = m;
    cmd.validate_at = now + options.validation_delay;
    cmd.explanation = absl::StrCat("delete ", taken.size(),
                                   " empty node(s): ", NodeList(taken));
    cmd.candidates = std::move(taken);
    out.commands.push_back(std::move(cmd));
  }
  SortVerdicts(out.verdicts);
  return out;
}

MethodResult ComputeStaticDrift(const CandidatePool& pool, BudgetLedger& ledger,
                                const SchedulingSimulator& /*simulator*/,
                                const MethodOptions& /*options*/) {
  const Method m = Method::kStaticDrift;
  CandidatePool::Selection sel = pool.For(m);
  MethodResult out;
  for (NodeVerdict& v : sel.excluded) {
    // Only static NodePools' nodes are this method's candidates.
    const std::optional<snapshot::NodePoolIndex> p =
        pool.snapshot().FindNodePool(v.node_pool);
    if (p.has_value() &&
        pool.snapshot().node_pools()[*p].spec().has_replicas()) {
      out.verdicts.push_back(std::move(v));
    }
  }
  std::map<std::string, std::vector<Candidate>> by_pool;
  for (Candidate& c : sel.candidates) {
    if (!c.static_node_pool) continue;
    if (!c.drifted_since.has_value()) {
      out.verdicts.push_back(
          VerdictFor(c, m, reasons::kNotDrifted, "NodeClaim is not drifted"));
      continue;
    }
    by_pool[c.node_pool_name].push_back(std::move(c));
  }
  // NodeClaims per NodePool (running and pending disruption).
  absl::flat_hash_map<std::string, int64_t> claims;
  for (const ManagedClaim& mc : pool.managed_claims()) {
    if (mc.node_pool_exists) ++claims[mc.facts.node_pool_name];
  }
  for (auto& [name, cs] : by_pool) {
    SortForDrift(cs);
    const v1::NodePool& np = pool.snapshot().node_pools()[cs[0].node_pool];
    const int64_t budget = ledger.Remaining(name);
    const int64_t count = claims[name];
    const int64_t max_drifts =
        std::min<int64_t>(budget, static_cast<int64_t>(cs.size()));
    int64_t allowed = max_drifts;
    std::string held;  // Why candidates within the budget are held back.
    if (count > np.spec().replicas()) {
      allowed = 0;
      held = absl::StrCat("static NodePool \"", name, "\" is scaling down (",
                          count, " NodeClaims for ", np.spec().replicas(),
                          " replicas)");
    } else {
      absl::StatusOr<std::optional<int64_t>> limit = NodeLimit(np);
      if (!limit.ok()) {
        allowed = 0;
        held = absl::StrCat("static NodePool \"", name,
                            "\": ", limit.status().message());
      } else if (limit->has_value()) {
        allowed = std::clamp<int64_t>(**limit - count, 0, max_drifts);
        held =
            "static NodePool is at its node limit and cannot stage a "
            "replacement";
      }
    }
    for (int64_t i = 0; i < static_cast<int64_t>(cs.size()); ++i) {
      const Candidate& c = cs[i];
      if (i < allowed && ledger.TryTake(name)) {
        Command cmd;
        cmd.method = m;
        cmd.candidates = {c};
        cmd.replacements = {TemplateReplacement(pool, np, c)};
        cmd.explanation = absl::StrCat("replace drifted node ", c.node_name,
                                       " (", c.drift_reason,
                                       ") from the "
                                       "template of static NodePool \"",
                                       name, "\"");
        out.commands.push_back(std::move(cmd));
      } else if (i < max_drifts) {
        out.verdicts.push_back(VerdictFor(c, m, reasons::kNotSelected, held));
      } else {
        out.verdicts.push_back(BudgetVerdict(c, m, ledger));
      }
    }
  }
  SortVerdicts(out.verdicts);
  return out;
}

MethodResult ComputeDrift(const CandidatePool& pool, BudgetLedger& ledger,
                          const SchedulingSimulator& simulator,
                          const MethodOptions& options) {
  const Method m = Method::kDrift;
  CandidatePool::Selection sel = pool.For(m);
  MethodResult out;
  out.verdicts = std::move(sel.excluded);
  std::vector<Candidate> eligible;
  for (Candidate& c : sel.candidates) {
    if (!c.drifted_since.has_value()) {
      out.verdicts.push_back(
          VerdictFor(c, m, reasons::kNotDrifted, "NodeClaim is not drifted"));
    } else if (c.static_node_pool) {
      out.verdicts.push_back(VerdictFor(
          c, m, reasons::kStaticNodePool,
          absl::StrCat("NodePool \"", c.node_pool_name,
                       "\" is static: its drift is handled by StaticDrift")));
    } else {
      eligible.push_back(std::move(c));
    }
  }
  SortForDrift(eligible);
  std::string chosen;
  for (Candidate& c : eligible) {
    if (!chosen.empty()) {
      out.verdicts.push_back(VerdictFor(
          c, m, reasons::kNotSelected,
          absl::StrCat("one drift command per pass: ", chosen, " was chosen")));
      continue;
    }
    if (ledger.Remaining(c.node_pool_name) <= 0) {
      out.verdicts.push_back(BudgetVerdict(c, m, ledger));
      continue;
    }
    SimulationResult sim = simulator.Simulate(absl::MakeConstSpan(&c, 1));
    if (sim.unsupported.has_value()) {
      out.verdicts.push_back(
          VerdictFor(c, m, reasons::kUnsupportedConstraint, *sim.unsupported));
      continue;
    }
    if (!sim.all_pods_scheduled) {
      out.verdicts.push_back(
          VerdictFor(c, m, reasons::kPodsDoNotFit,
                     absl::StrCat("pods cannot be rescheduled: ",
                                  absl::StrJoin(sim.unschedulable, "; "))));
      continue;
    }
    ledger.TryTake(c.node_pool_name);
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
    out.commands.push_back(std::move(cmd));
  }
  SortVerdicts(out.verdicts);
  return out;
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
    std::optional<NodeVerdict> no = EmptinessIneligible(c, fresh);
    if (no.has_value()) {
      why.emplace(no->node, absl::StrCat(no->code, ": ", no->message));
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
    } else if (!fresh_ledger.TryTake(c.node_pool_name)) {
      failures.push_back(absl::StrCat(c.node_name, ": BudgetExhausted: ",
                                      fresh_ledger.Describe(c.node_pool_name)));
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
