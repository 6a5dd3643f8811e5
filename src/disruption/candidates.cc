// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#include "karpenter/disruption/candidates.h"

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
#include "disruption/facts_internal.h"
#include "google/protobuf/timestamp.pb.h"
#include "karpenter/budget/disruption_spec.h"
#include "karpenter/disruption/cost.h"
#include "karpenter/disruption/snapshot_facts.h"
#include "karpenter/drain/classify.h"
#include "karpenter/drain/do_not_disrupt_window.h"
#include "karpenter/time_util.h"
#include "karpenter/well_known.h"

namespace karpenter::disruption {
namespace {

using internal::ClaimFacts;
using internal::kNoIndex;
using internal::NodeFacts;
using internal::NodePodFacts;

// What the pool needs of each NodePool this pass: its facts and its
// instance types in the catalogue.
struct PoolInfo {
  const internal::PoolFacts* facts = nullptr;
  // From the catalogue; null when absent.
  const std::vector<InstanceType>* types = nullptr;
  absl::flat_hash_map<absl::string_view, const InstanceType*> by_name;
};

PoolInfo MakePoolInfo(const v1::NodePool& pool,
                      const internal::PoolFacts& facts,
                      const InstanceTypeCatalog* catalog) {
  PoolInfo info;
  info.facts = &facts;
  if (catalog != nullptr) {
    auto it = catalog->find(pool.metadata().name());
    if (it != catalog->end()) {
      info.types = &it->second;
      for (const InstanceType& type : it->second) {
        info.by_name.emplace(type.name, &type);
      }
    }
  }
  return info;
}

// The cheapest offering of the node's instance type in its zone and
// capacity type (an empty label matches any value, as a missing label
// requirement does); 0 when unknown or NaN.
double PriceOf(const PoolInfo& info, const Candidate& c) {
  auto it = info.by_name.find(c.instance_type);
  if (it == info.by_name.end()) return 0;
  double best = std::numeric_limits<double>::infinity();
  for (const Offering& o : it->second->offerings) {
    if (!c.zone.empty() && o.zone != c.zone) continue;
    if (!c.capacity_type.empty() && o.capacity_type != c.capacity_type) {
      continue;
    }
    if (!std::isnan(o.price)) best = std::min(best, o.price);
  }
  return std::isinf(best) ? 0 : best;
}

NodeVerdict Verdict(absl::string_view node, const Candidate* c,
                    absl::string_view code, std::string message) {
  NodeVerdict v;
  v.node = std::string(node);
  if (c != nullptr) {
    v.node_claim = c->node_claim_name;
    v.node_pool = c->node_pool_name;
  }
  v.code = std::string(code);
  v.message = std::move(message);
  return v;
}

// "active until <RFC 3339>", or "active with no known end".
std::string UntilText(const std::optional<absl::Time>& until) {
  return until.has_value()
             ? absl::StrCat("active until ", FormatRfc3339(*until))
             : std::string("active with no known end");
}

std::string PodName(const v1::Pod& pod) {
  return absl::StrCat(pod.metadata().namespace_(), "/", pod.metadata().name());
}

}  // namespace

// Builds a CandidatePool in one walk over the nodes; a friend of
// CandidatePool.
class CandidatePoolBuilder {
 public:
  CandidatePoolBuilder(const CandidateContext& ctx,
                       const internal::CandidateFacts& facts)
      : ctx_(ctx), snap_(*ctx.snapshot), facts_(facts) {}

  absl::StatusOr<CandidatePool> Build(
      std::unique_ptr<budget::PdbIndex> owned_pdbs,
      std::unique_ptr<internal::CandidateFacts> owned_facts) {
    if (!ctx_.drift_marks.empty() &&
        ctx_.drift_marks.size() != snap_.node_claims().size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "CandidateContext.drift_marks has ", ctx_.drift_marks.size(),
          " entries but the snapshot has ", snap_.node_claims().size(),
          " NodeClaims"));
    }
    pool_.snapshot_ = &snap_;
    pool_.catalog_ = ctx_.catalog;
    pool_.now_ = ctx_.now;
    pool_.owned_pdbs_ = std::move(owned_pdbs);
    pool_.owned_facts_ = std::move(owned_facts);
    pool_.facts_ = &facts_;
    pools_.reserve(snap_.node_pools().size());
    for (size_t i = 0; i < snap_.node_pools().size(); ++i) {
      pools_.push_back(
          MakePoolInfo(snap_.node_pools()[i], facts_.pools[i], ctx_.catalog));
      pool_.spec_errors_.push_back(facts_.pools[i].spec_error);
    }
    BuildClaims();
    pool_.entries_.reserve(facts_.node_order.size());
    for (uint32_t n : facts_.node_order) VisitNode(n);
    for (const ManagedClaim& m : pool_.claims_) {
      if (m.facts.has_node) continue;
      const Candidate& c = m.facts;
      if (m.in_flight) {
        pool_.exclusions_.push_back(
            Verdict(c.node_claim_name, &c, reasons::kInFlight,
                    "candidate is already being disrupted"));
      } else {
        pool_.exclusions_.push_back(
            Verdict(c.node_claim_name, &c, reasons::kNoNode,
                    "nodeclaim does not have an associated node"));
      }
    }
    std::stable_sort(pool_.exclusions_.begin(), pool_.exclusions_.end(),
                     [](const NodeVerdict& a, const NodeVerdict& b) {
                       return a.node < b.node;
                     });
    return std::move(pool_);
  }

 private:
  // One ManagedClaim per NodeClaim, in name order, with the NodeClaim's
  // facts; node facts are added by VisitNode.
  void BuildClaims() {
    const size_t count = snap_.node_claims().size();
    claim_pos_.assign(count, 0);
    pool_.claims_.resize(count);
    for (size_t pos = 0; pos < count; ++pos) {
      const uint32_t i = facts_.claim_order[pos];
      claim_pos_[i] = pos;
      FillClaimFacts(i, pool_.claims_[pos]);
    }
  }

  void FillClaimFacts(snapshot::NodeClaimIndex i, ManagedClaim& m) {
    const ClaimFacts& f = facts_.claims[i];
    Candidate& c = m.facts;
    c.node_claim = i;
    c.node_claim_name = f.name;
    c.provider_id = f.provider_id;
    c.created = f.created;
    c.has_termination_grace_period = f.has_termination_grace_period;
    c.has_node = false;
    c.node = 0;
    if (!f.expire_after_error.ok()) {
      m.expire_after_error = f.expire_after_error;
    } else if (f.expire_after.has_value()) {
      c.expires_at = c.created + *f.expire_after;
    }
    c.lifetime_remaining = LifetimeRemaining(
        f.created, f.expire_after_error.ok() ? f.expire_after : std::nullopt,
        ctx_.now);
    SetDrift(i, f, c);
    m.deleting = f.deleting;
    m.in_flight = !c.provider_id.empty() && InFlight(c.provider_id);
    SetPool(f.pool_label, f.pool, f, m);
  }

  bool InFlight(absl::string_view provider_id) const {
    return !ctx_.in_flight.empty() && ctx_.in_flight.contains(provider_id);
  }

  void SetDrift(snapshot::NodeClaimIndex i, const ClaimFacts& f, Candidate& c) {
    if (!ctx_.drift_marks.empty()) {
      if (ctx_.drift_marks[i].has_value()) {
        c.drifted_since = ctx_.drift_marks[i]->since;
        c.drift_reason = ctx_.drift_marks[i]->reason;
      }
      return;
    }
    if (f.drifted_since.has_value()) {
      c.drifted_since = f.drifted_since;
      c.drift_reason = f.drift_reason;
    }
  }

  // NodePool facts, and docs/semantics.md §2.12 Consolidatable at ctx.now.
  void SetPool(const std::string& name, uint32_t pool, const ClaimFacts& f,
               ManagedClaim& m) {
    Candidate& c = m.facts;
    c.node_pool_name = name;
    // No std::optional here: g++ -O1 (the TSan build) warns that its value
    // may be read uninitialised, which it never is.
    m.node_pool_exists = pool != kNoIndex;
    c.node_pool = 0;
    c.static_node_pool = false;
    c.controls = NodePoolControls();
    c.consolidation_disabled = false;
    c.consolidatable = false;
    c.consolidatable_at = std::nullopt;
    if (!m.node_pool_exists) return;
    const internal::PoolFacts& info = *pools_[pool].facts;
    c.node_pool = pool;
    c.static_node_pool = info.is_static;
    c.consolidation_policy = info.policy;
    c.controls = info.controls;
    c.consolidation_disabled = !info.consolidate_after.has_value();
    if (info.is_static || c.consolidation_disabled) return;
    if (!f.consolidation_start.has_value()) return;
    c.consolidatable_at = *f.consolidation_start + *info.consolidate_after;
    c.consolidatable = *c.consolidatable_at <= ctx_.now;
  }

  void VisitNode(snapshot::NodeIndex n) {
    const NodeFacts& nf = facts_.nodes[n];
    const std::string& name = nf.name;
    ManagedClaim* m =
        nf.claim != kNoIndex ? &pool_.claims_[claim_pos_[nf.claim]] : nullptr;
    const bool queued = (!nf.provider_id.empty() && InFlight(nf.provider_id)) ||
                        (m != nullptr && m->in_flight);
    // Observed state of a started command (see the header).
    const bool marked = m != nullptr && nf.disrupted_taint &&
                        facts_.claims[nf.claim].disruption_reason;
    const bool in_flight = queued || marked;
    if (m == nullptr) {
      pool_.exclusions_.push_back(
          in_flight ? Verdict(name, nullptr, reasons::kInFlight,
                              "candidate is already being disrupted")
                    : Verdict(name, nullptr, reasons::kNotManaged,
                              "node isn't managed by karpenter"));
      return;
    }
    Candidate& c = m->facts;
    m->in_flight = in_flight;
    m->deleting = m->deleting || nf.deleting;
    c.has_node = true;
    c.node = n;
    c.node_name = name;
    if (!nf.provider_id.empty()) c.provider_id = nf.provider_id;
    if (!nf.pool_label.empty()) {
      SetPool(nf.pool_label, nf.pool, facts_.claims[nf.claim], *m);
    }
    c.instance_type = nf.instance_type;
    c.zone = nf.zone;
    c.capacity_type = nf.capacity_type;
    if (m->node_pool_exists) c.price = PriceOf(pools_[c.node_pool], c);
    const absl::Span<const snapshot::PodIndex> pods = snap_.PodsOnNode(n);
    c.pods.assign(pods.begin(), pods.end());
    const absl::Span<const snapshot::PodIndex> resched =
        facts_.Reschedulable(n);
    c.reschedulable_pods.assign(resched.begin(), resched.end());
    const NodePodFacts& pf = facts_.node_pods[n];
    c.disruption_cost = pf.eviction_cost * c.lifetime_remaining;
    c.reschedule_disruption_cost = pf.reschedule_cost;

    std::optional<NodeVerdict> excluded =
        NodeRule(name, nf, *m, queued, marked);
    if (excluded.has_value()) {
      if (excluded->code == reasons::kDoNotDisruptWindow) {
        m->window_until = drain::EvaluateWindow(*nf.window, ctx_.now).until;
      }
      pool_.exclusions_.push_back(std::move(*excluded));
      return;
    }
    pool_.entries_.push_back(CandidatePool::Entry{
        claim_pos_[nf.claim], PodBlock(n, c, m->window_until)});
  }

  // Rules 1 and 4-9 for a managed Node (2 and 3 are decided by the caller).
  std::optional<NodeVerdict> NodeRule(const std::string& name,
                                      const NodeFacts& nf,
                                      const ManagedClaim& m, bool queued,
                                      bool marked) const {
    const Candidate& c = m.facts;
    if (queued) {
      return Verdict(name, &c, reasons::kInFlight,
                     "candidate is already being disrupted");
    }
    if (marked) {
      return Verdict(name, &c, reasons::kInFlight,
                     absl::StrCat("candidate is already being disrupted "
                                  "(node has the ",
                                  well_known::kDisruptedTaintKey, ":",
                                  well_known::kTaintEffectNoSchedule,
                                  " taint and its NodeClaim has condition ",
                                  well_known::kConditionTypeDisruptionReason,
                                  "=", well_known::kConditionTrue, ")"));
    }
    if (!nf.initialized) {
      return Verdict(name, &c, reasons::kNotInitialized,
                     "node isn't initialized");
    }
    if (m.deleting) {
      return Verdict(name, &c, reasons::kDeleting,
                     "node is deleting or marked for deletion");
    }
    if (!ctx_.nominated.empty() && ctx_.nominated.contains(name)) {
      return Verdict(name, &c, reasons::kNominated,
                     "node is nominated for a pending pod");
    }
    if (nf.do_not_disrupt) {
      return Verdict(name, &c, reasons::kNodeDoNotDisrupt,
                     absl::StrCat("disruption is blocked through the \"",
                                  well_known::kDoNotDisruptAnnotationKey,
                                  "\" annotation"));
    }
    if (nf.window != nullptr) {
      const drain::WindowState w = drain::EvaluateWindow(*nf.window, ctx_.now);
      if (w.active) {
        return Verdict(
            name, &c, reasons::kDoNotDisruptWindow,
            absl::StrCat("node \"", name, "\" has a do-not-disrupt window (",
                         nf.window->Describe(), "; annotation \"",
                         well_known::kDoNotDisruptScheduleAnnotationKey, "\") ",
                         UntilText(w.until)));
      }
    }
    if (nf.pool_label.empty()) {
      return Verdict(name, &c, reasons::kNoNodePoolLabel,
                     absl::StrCat("node doesn't have required label (label=",
                                  well_known::kNodePoolLabelKey, ")"));
    }
    if (!m.node_pool_exists) {
      return Verdict(
          name, &c, reasons::kNodePoolNotFound,
          absl::StrCat("NodePool not found (NodePool=", nf.pool_label, ")"));
    }
    const PoolInfo& info = pools_[c.node_pool];
    if (ctx_.catalog != nullptr &&
        (info.types == nullptr || info.types->empty())) {
      return NoInstanceTypes(name, nf, c);
    }
    return std::nullopt;
  }

  // Rule 9 when the NodePool exists but the catalogue has no instance types
  // for it. Karpenter reports "NodePool not found" here; the verdict names
  // what is missing instead: the node's instance-type label, or its instance
  // type in the catalogue.
  NodeVerdict NoInstanceTypes(const std::string& name, const NodeFacts& nf,
                              const Candidate& c) const {
    const std::string pool_part =
        absl::StrCat("the catalogue has no instance types for NodePool \"",
                     nf.pool_label, "\"");
    if (nf.instance_type.empty()) {
      return Verdict(
          name, &c, reasons::kMissingLabel,
          absl::StrCat("node has no ", well_known::kLabelInstanceTypeStable,
                       " label and ", pool_part));
    }
    return Verdict(
        name, &c, reasons::kInstanceTypeUnknown,
        absl::StrCat("instance type \"", nf.instance_type, "\" (label ",
                     well_known::kLabelInstanceTypeStable,
                     ") is not in the catalogue: ", pool_part));
  }

  // Rule 10: the first pod with an active do-not-disrupt at ctx.now, else
  // the first pod a PDB blocks (Karpenter checks every pod for the former
  // first).
  // `window_until`: set to the window's end when a pod's window decides.
  std::optional<NodeVerdict> PodBlock(
      snapshot::NodeIndex n, const Candidate& c,
      std::optional<absl::Time>& window_until) const {
    for (snapshot::PodIndex p : facts_.DoNotDisrupt(n)) {
      const v1::Pod& pod = snap_.DecodePod(p);
      const drain::DoNotDisrupt dnd =
          drain::EvaluateDoNotDisrupt(pod, ctx_.now);
      if (!dnd.active()) continue;
      if (dnd.source == well_known::kDoNotDisruptScheduleAnnotationKey) {
        window_until = dnd.until;
      }
      return DoNotDisruptVerdict(c, pod, dnd);
    }
    const NodePodFacts& pf = facts_.node_pods[n];
    if (pf.pdb_block_pod == kNoIndex) return std::nullopt;
    return Verdict(c.node_name, &c, pf.pdb_block_code, pf.pdb_block_message);
  }

  NodeVerdict DoNotDisruptVerdict(const Candidate& c, const v1::Pod& pod,
                                  const drain::DoNotDisrupt& dnd) const {
    if (dnd.source == well_known::kDoNotDisruptScheduleAnnotationKey) {
      return Verdict(c.node_name, &c, reasons::kDoNotDisruptWindow,
                     absl::StrCat("pod \"", PodName(pod),
                                  "\" has a do-not-disrupt window (",
                                  dnd.window, "; annotation \"", dnd.source,
                                  "\") ", UntilText(dnd.until)));
    }
    std::string message = absl::StrCat("pod \"", PodName(pod), "\" has \"",
                                       dnd.source, "\" annotation");
    if (dnd.until.has_value()) {
      absl::StrAppend(&message, " (active until ", FormatRfc3339(*dnd.until),
                      ")");
    }
    return Verdict(c.node_name, &c, reasons::kPodDoNotDisrupt,
                   std::move(message));
  }

  const CandidateContext& ctx_;
  const snapshot::Snapshot& snap_;
  const internal::CandidateFacts& facts_;
  std::vector<PoolInfo> pools_;
  std::vector<uint32_t> claim_pos_;  // NodeClaimIndex -> claims_ position.
  CandidatePool pool_;
};

absl::StatusOr<CandidatePool> CandidatePool::Build(
    const CandidateContext& ctx) {
  if (ctx.snapshot == nullptr) {
    return absl::InvalidArgumentError("CandidateContext.snapshot is null");
  }
  if (ctx.facts != nullptr) {
    if (&ctx.facts->snapshot() != ctx.snapshot) {
      return absl::InvalidArgumentError(
          "CandidateContext.facts was built over another snapshot");
    }
    return CandidatePoolBuilder(ctx, ctx.facts->candidate_facts())
        .Build(nullptr, nullptr);
  }
  std::unique_ptr<budget::PdbIndex> owned_pdbs;
  const budget::PdbIndex* pdbs = ctx.pdbs;
  if (pdbs == nullptr) {
    owned_pdbs = std::make_unique<budget::PdbIndex>(
        budget::PdbIndex::Build(*ctx.snapshot));
    pdbs = owned_pdbs.get();
  }
  auto facts = std::make_unique<internal::CandidateFacts>(
      internal::BuildCandidateFacts(*ctx.snapshot, *pdbs));
  const internal::CandidateFacts& ref = *facts;
  return CandidatePoolBuilder(ctx, ref).Build(std::move(owned_pdbs),
                                              std::move(facts));
}

CandidatePool::CandidatePool() = default;
CandidatePool::CandidatePool(CandidatePool&&) noexcept = default;
CandidatePool& CandidatePool::operator=(CandidatePool&&) noexcept = default;
CandidatePool::~CandidatePool() = default;

CandidatePool::View CandidatePool::ViewFor(Method method) const {
  const MethodClass cls = ClassOf(method);
  View out;
  out.candidates.reserve(entries_.size());
  for (const Entry& e : entries_) {
    const Candidate& c = claims_[e.claim_pos].facts;
    const bool blocked =
        e.pod_block.has_value() &&
        (cls == MethodClass::kGraceful ||
         (cls == MethodClass::kEventual && !c.has_termination_grace_period));
    if (!blocked) {
      out.candidates.push_back(&c);
      continue;
    }
    NodeVerdict v = *e.pod_block;
    v.method = method;
    out.excluded.push_back(std::move(v));
  }
  return out;
}

CandidatePool::Selection CandidatePool::For(Method method) const {
  View view = ViewFor(method);
  Selection out;
  out.candidates.reserve(view.candidates.size());
  for (const Candidate* c : view.candidates) out.candidates.push_back(*c);
  out.excluded = std::move(view.excluded);
  return out;
}

NodePoolTotalsMap CandidatePool::BalancedTotals(
    absl::Span<const Candidate> all_candidates) const {
  NodePoolTotalsMap out;
  const bool any_balanced = std::any_of(
      all_candidates.begin(), all_candidates.end(), [](const Candidate& c) {
        return c.consolidation_policy == budget::ConsolidationPolicy::kBalanced;
      });
  if (!any_balanced || facts_ == nullptr) return out;
  std::map<std::string, double, std::less<>> fallback_cost;
  absl::flat_hash_map<uint32_t, double> candidate_cost;  // By NodeIndex.
  for (const Candidate& c : all_candidates) {
    out[c.node_pool_name];
    fallback_cost[c.node_pool_name] += c.price;
    if (c.has_node) candidate_cost[c.node] = c.reschedule_disruption_cost;
  }
  for (size_t n = 0; n < facts_->nodes.size(); ++n) {
    auto it = out.find(facts_->nodes[n].pool_label);
    if (facts_->nodes[n].pool_label.empty() || it == out.end()) continue;
    auto c = candidate_cost.find(static_cast<uint32_t>(n));
    it->second.total_disruption_cost +=
        c != candidate_cost.end() ? c->second : facts_->node_pods[n].state_cost;
  }
  // ClusterCost: every NodeClaim with the four labels, at its offering's
  // price in its NodePool's catalogue (0 when unknown).
  const snapshot::Snapshot& snap = *snapshot_;
  for (const ManagedClaim& m : claims_) {
    const v1::NodeClaim& nc = snap.node_claims()[m.facts.node_claim];
    const auto& labels = nc.metadata().labels();
    auto pool = labels.find(std::string(well_known::kNodePoolLabelKey));
    if (pool == labels.end()) continue;
    auto it = out.find(pool->second);
    if (it == out.end()) continue;
    if (!m.facts.has_node) it->second.total_disruption_cost += 1.0;
    auto type = labels.find(std::string(well_known::kLabelInstanceTypeStable));
    auto zone = labels.find(std::string(well_known::kLabelTopologyZone));
    auto capacity = labels.find(std::string(well_known::kCapacityTypeLabelKey));
    if (type == labels.end() || zone == labels.end() ||
        capacity == labels.end() || catalog_ == nullptr) {
      continue;
    }
    auto types = catalog_->find(pool->second);
    if (types == catalog_->end()) continue;
    for (const InstanceType& t : types->second) {
      if (t.name != type->second) continue;
      for (const Offering& o : t.offerings) {
        if (o.zone == zone->second && o.capacity_type == capacity->second &&
            !std::isnan(o.price)) {
          it->second.total_cost += o.price;
          break;
        }
      }
      break;
    }
  }
  for (auto& [pool, totals] : out) {
    if (totals.total_cost <= 0) totals.total_cost = fallback_cost[pool];
  }
  return out;
}

absl::string_view CandidatePool::NodePoolSpecError(
    snapshot::NodePoolIndex pool) const {
  return pool < spec_errors_.size() ? absl::string_view(spec_errors_[pool])
                                    : absl::string_view();
}

}  // namespace karpenter::disruption
