// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#include "karpenter/disruption/candidates.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/timestamp.pb.h"
#include "karpenter/budget/disruption_spec.h"
#include "karpenter/disruption/cost.h"
#include "karpenter/drain/classify.h"

namespace karpenter::disruption {
namespace {

using Conditions = google::protobuf::RepeatedPtrField<v1::Condition>;
using StringMap = google::protobuf::Map<std::string, std::string>;

// Map keys as std::string, so protobuf map lookups allocate nothing.
struct Keys {
  std::string node_pool = "karpenter.sh/nodepool";
  std::string initialized = std::string(kInitializedLabel);
  std::string instance_type = std::string(kInstanceTypeLabel);
  std::string zone = "topology.kubernetes.io/zone";
  std::string capacity_type = "karpenter.sh/capacity-type";
  std::string do_not_disrupt = std::string(kNodeDoNotDisruptAnnotation);
};
const Keys& K() {
  static const Keys* const kKeys = new Keys();
  return *kKeys;
}

absl::string_view Get(const StringMap& map, const std::string& key) {
  auto it = map.find(key);
  return it == map.end() ? absl::string_view() : absl::string_view(it->second);
}

const v1::Condition* FindCondition(const Conditions& conditions,
                                   absl::string_view type) {
  for (const v1::Condition& c : conditions) {
    if (c.type() == type) return &c;
  }
  return nullptr;
}

bool ConditionTrue(const Conditions& conditions, absl::string_view type) {
  const v1::Condition* c = FindCondition(conditions, type);
  return c != nullptr && c->status() == "True";
}

absl::Time FromProto(const google::protobuf::Timestamp& ts) {
  return absl::FromUnixSeconds(ts.seconds()) + absl::Nanoseconds(ts.nanos());
}

bool IsSet(const google::protobuf::Timestamp& ts) {
  return ts.seconds() != 0 || ts.nanos() != 0;
}

bool IsOwnedByStatefulSet(const v1::Pod& pod) {
  for (const v1::OwnerReference& ref : pod.metadata().owner_references()) {
    if (ref.api_version() == "apps/v1" && ref.kind() == "StatefulSet") {
      return true;
    }
  }
  return false;
}

bool HasDisruptedTaint(const v1::Node& node) {
  for (const v1::Taint& t : node.spec().taints()) {
    if (t.key() == drain::kDisruptedTaintKey && t.effect() == "NoSchedule") {
      return true;
    }
  }
  return false;
}

std::string PodName(const v1::Pod& pod) {
  return absl::StrCat(pod.metadata().namespace_(), "/", pod.metadata().name());
}

// What the pool needs of each NodePool, computed once.
struct PoolInfo {
  std::string spec_error;
  bool is_static = false;
  budget::ConsolidationPolicy policy =
      budget::ConsolidationPolicy::kWhenEmptyOrUnderutilized;
  std::optional<absl::Duration> consolidate_after;  // nullopt: Never.
  // From the catalogue; null when absent.
  const std::vector<InstanceType>* types = nullptr;
  absl::flat_hash_map<absl::string_view, const InstanceType*> by_name;
};

PoolInfo MakePoolInfo(const v1::NodePool& pool,
                      const InstanceTypeCatalog* catalog) {
  PoolInfo info;
  info.is_static = pool.spec().has_replicas();
  absl::StatusOr<budget::DisruptionSpec> spec =
      budget::ParseDisruptionSpec(pool);
  if (spec.ok()) {
    info.policy = spec->consolidation_policy;
    info.consolidate_after = spec->consolidate_after;
  } else {
    info.spec_error = std::string(spec.status().message());
    info.consolidate_after = std::nullopt;  // Disabled: fail closed.
  }
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

}  // namespace

// Builds a CandidatePool in one walk; a friend of CandidatePool.
class CandidatePoolBuilder {
 public:
  explicit CandidatePoolBuilder(const CandidateContext& ctx)
      : ctx_(ctx), snap_(*ctx.snapshot) {}

  absl::StatusOr<CandidatePool> Build() {
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
    pdbs_ = ctx_.pdbs;
    if (pdbs_ == nullptr) {
      pool_.owned_pdbs_ =
          std::make_unique<budget::PdbIndex>(budget::PdbIndex::Build(snap_));
      pdbs_ = pool_.owned_pdbs_.get();
    }
    for (const v1::NodePool& np : snap_.node_pools()) {
      pools_.push_back(MakePoolInfo(np, ctx_.catalog));
      pool_.spec_errors_.push_back(pools_.back().spec_error);
    }
    BuildClaims();
    WalkNodes();
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
  // facts; node facts are added by WalkNodes.
  void BuildClaims() {
    const auto claims = snap_.node_claims();
    std::vector<snapshot::NodeClaimIndex> order(claims.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return claims[a].metadata().name() < claims[b].metadata().name();
    });
    claim_pos_.assign(claims.size(), 0);
    pool_.claims_.resize(claims.size());
    for (size_t pos = 0; pos < order.size(); ++pos) {
      claim_pos_[order[pos]] = pos;
      ManagedClaim& m = pool_.claims_[pos];
      FillClaimFacts(order[pos], m);
      m.facts.has_node = false;
      m.facts.node = 0;
    }
  }

  void FillClaimFacts(snapshot::NodeClaimIndex i, ManagedClaim& m) {
    const v1::NodeClaim& claim = snap_.node_claims()[i];
    Candidate& c = m.facts;
    c.node_claim = i;
    c.node_claim_name = claim.metadata().name();
    c.provider_id = claim.status().provider_id();
    c.created = FromProto(claim.metadata().creation_timestamp());
    c.has_termination_grace_period =
        claim.spec().has_termination_grace_period();
    absl::StatusOr<std::optional<absl::Duration>> expire = ExpireAfterOf(claim);
    if (!expire.ok()) {
      m.expire_after_error = expire.status();
    } else if (expire->has_value()) {
      c.expires_at = c.created + **expire;
    }
    c.lifetime_remaining = LifetimeRemaining(claim, ctx_.now);
    SetDrift(i, claim, c);
    m.deleting =
        claim.metadata().has_deletion_timestamp() ||
        ConditionTrue(claim.status().conditions(), "InstanceTerminating");
    m.in_flight =
        !c.provider_id.empty() && ctx_.in_flight.contains(c.provider_id);
    SetPool(Get(claim.metadata().labels(), K().node_pool), claim, m);
  }

  void SetDrift(snapshot::NodeClaimIndex i, const v1::NodeClaim& claim,
                Candidate& c) {
    if (!ctx_.drift_marks.empty()) {
      if (ctx_.drift_marks[i].has_value()) {
        c.drifted_since = ctx_.drift_marks[i]->since;
        c.drift_reason = ctx_.drift_marks[i]->reason;
      }
      return;
    }
    const v1::Condition* drifted =
        FindCondition(claim.status().conditions(), "Drifted");
    if (drifted != nullptr && drifted->status() == "True") {
      c.drifted_since = FromProto(drifted->last_transition_time());
      c.drift_reason = drifted->reason();
    }
  }

  // NodePool facts, and §2.12 Consolidatable at ctx.now.
  void SetPool(absl::string_view name, const v1::NodeClaim& claim,
               ManagedClaim& m) {
    Candidate& c = m.facts;
    c.node_pool_name = std::string(name);
    std::optional<snapshot::NodePoolIndex> p = snap_.FindNodePool(name);
    m.node_pool_exists = !name.empty() && p.has_value();
    c.node_pool = 0;
    c.static_node_pool = false;
    c.consolidation_disabled = false;
    c.consolidatable = false;
    c.consolidatable_at = std::nullopt;
    if (!m.node_pool_exists) return;
    const PoolInfo& info = pools_[*p];
    c.node_pool = *p;
    c.static_node_pool = info.is_static;
    c.consolidation_policy = info.policy;
    c.consolidation_disabled = !info.consolidate_after.has_value();
    if (info.is_static || c.consolidation_disabled) return;
    const v1::Condition* init =
        FindCondition(claim.status().conditions(), "Initialized");
    if (init == nullptr || init->status() != "True") return;
    const absl::Time t0 = IsSet(claim.status().last_pod_event_time())
                              ? FromProto(claim.status().last_pod_event_time())
                              : FromProto(init->last_transition_time());
    c.consolidatable_at = t0 + *info.consolidate_after;
    c.consolidatable = *c.consolidatable_at <= ctx_.now;
  }

  void WalkNodes() {
    const auto nodes = snap_.nodes();
    std::vector<snapshot::NodeIndex> order(nodes.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return nodes[a].metadata().name() < nodes[b].metadata().name();
    });
    for (snapshot::NodeIndex n : order) VisitNode(n);
  }

  std::optional<snapshot::NodeClaimIndex> ClaimOf(const v1::Node& node) const {
    if (!node.spec().provider_id().empty()) {
      return snap_.FindNodeClaimByProviderId(node.spec().provider_id());
    }
    return snap_.FindNodeClaimByNodeName(node.metadata().name());
  }

  void VisitNode(snapshot::NodeIndex n) {
    const v1::Node& node = snap_.nodes()[n];
    const std::string& name = node.metadata().name();
    const std::string& pid = node.spec().provider_id();
    std::optional<snapshot::NodeClaimIndex> ci = ClaimOf(node);
    ManagedClaim* m =
        ci.has_value() ? &pool_.claims_[claim_pos_[*ci]] : nullptr;
    const bool queued = (!pid.empty() && ctx_.in_flight.contains(pid)) ||
                        (m != nullptr && m->in_flight);
    // Observed state of a started command (see the header).
    const bool marked =
        m != nullptr && HasDisruptedTaint(node) &&
        ConditionTrue(snap_.node_claims()[*ci].status().conditions(),
                      "DisruptionReason");
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
    m->deleting = m->deleting || node.metadata().has_deletion_timestamp();
    c.has_node = true;
    c.node = n;
    c.node_name = name;
    if (!pid.empty()) c.provider_id = pid;
    const StringMap& labels = node.metadata().labels();
    const absl::string_view pool_label = Get(labels, K().node_pool);
    if (!pool_label.empty()) {
      SetPool(pool_label, snap_.node_claims()[*ci], *m);
    }
    c.instance_type = std::string(Get(labels, K().instance_type));
    c.zone = std::string(Get(labels, K().zone));
    c.capacity_type = std::string(Get(labels, K().capacity_type));
    if (m->node_pool_exists) c.price = PriceOf(pools_[c.node_pool], c);

    std::optional<NodeVerdict> excluded =
        NodeRule(node, *m, queued, marked, pool_label);
    std::optional<NodeVerdict> pod_block = WalkPods(n, c, !excluded);
    if (excluded.has_value()) {
      pool_.exclusions_.push_back(std::move(*excluded));
      return;
    }
    pool_.entries_.push_back(
        CandidatePool::Entry{claim_pos_[*ci], std::move(pod_block)});
  }

  // Rules 1 and 4-9 for a managed Node (2 and 3 are decided by the caller).
  std::optional<NodeVerdict> NodeRule(const v1::Node& node,
                                      const ManagedClaim& m, bool queued,
                                      bool marked,
                                      absl::string_view pool_label) const {
    const std::string& name = node.metadata().name();
    const Candidate& c = m.facts;
    if (queued) {
      return Verdict(name, &c, reasons::kInFlight,
                     "candidate is already being disrupted");
    }
    if (marked) {
      return Verdict(name, &c, reasons::kInFlight,
                     "candidate is already being disrupted (node has the "
                     "karpenter.sh/disrupted:NoSchedule taint and its "
                     "NodeClaim has condition DisruptionReason=True)");
    }
    if (Get(node.metadata().labels(), K().initialized) != "true") {
      return Verdict(name, &c, reasons::kNotInitialized,
                     "node isn't initialized");
    }
    if (m.deleting) {
      return Verdict(name, &c, reasons::kDeleting,
                     "node is deleting or marked for deletion");
    }
    if (ctx_.nominated.contains(name)) {
      return Verdict(name, &c, reasons::kNominated,
                     "node is nominated for a pending pod");
    }
    if (Get(node.metadata().annotations(), K().do_not_disrupt) == "true") {
      return Verdict(
          name, &c, reasons::kNodeDoNotDisrupt,
          absl::StrCat("disruption is blocked through the \"",
                       kNodeDoNotDisruptAnnotation, "\" annotation"));
    }
    if (pool_label.empty()) {
      return Verdict(name, &c, reasons::kNoNodePoolLabel,
                     "node doesn't have required label "
                     "(label=karpenter.sh/nodepool)");
    }
    if (!m.node_pool_exists) {
      return Verdict(
          name, &c, reasons::kNodePoolNotFound,
          absl::StrCat("NodePool not found (NodePool=", pool_label, ")"));
    }
    const PoolInfo& info = pools_[c.node_pool];
    if (ctx_.catalog != nullptr &&
        (info.types == nullptr || info.types->empty())) {
      return Verdict(name, &c, reasons::kNodePoolNotFound,
                     absl::StrCat("NodePool not found (NodePool=", pool_label,
                                  "): no instance types in the catalogue"));
    }
    return std::nullopt;
  }

  // Pods, reschedulable pods and costs (§2.3, §2.11); with `check_blocks`,
  // rule 10: the first pod with an active do-not-disrupt, else the first
  // pod a PDB blocks (Karpenter checks every pod for the former first).
  std::optional<NodeVerdict> WalkPods(snapshot::NodeIndex n, Candidate& c,
                                      bool check_blocks) {
    double total = 0;
    double reschedule = 1.0;
    std::optional<NodeVerdict> dnd_block;
    std::optional<NodeVerdict> pdb_block;
    const absl::Span<const snapshot::PodIndex> pods = snap_.PodsOnNode(n);
    c.pods.assign(pods.begin(), pods.end());
    c.reschedulable_pods.clear();
    for (snapshot::PodIndex p : pods) {
      const v1::Pod& pod = snap_.pods()[p];
      const double cost = EvictionCost(pod);
      total += cost;
      const bool terminating = drain::IsTerminating(pod);
      const bool active = !terminating && !drain::IsTerminal(pod);
      const bool mirror = drain::IsOwnedByNode(pod);
      const bool reschedulable =
          (active || (terminating && IsOwnedByStatefulSet(pod))) &&
          !drain::IsOwnedByDaemonSet(pod) && !mirror;
      if (reschedulable) {
        c.reschedulable_pods.push_back(p);
        reschedule += std::max(0.0, cost);
      }
      if (!check_blocks || dnd_block.has_value() || !active) continue;
      if (!pod.metadata().annotations().empty()) {
        const drain::DoNotDisrupt dnd =
            drain::EvaluateDoNotDisrupt(pod, ctx_.now);
        if (dnd.active()) {
          dnd_block = DoNotDisruptVerdict(c, pod, dnd);
          continue;
        }
      }
      if (pdb_block.has_value() || mirror || pdbs_->PdbsOfPod(p).empty()) {
        continue;
      }
      if (pod.spec().tolerations_size() > 0 &&
          drain::ToleratesDisruptedNoScheduleTaint(pod)) {
        continue;
      }
      budget::EvictionCheck check = pdbs_->CanEvict(snap_, p, true);
      if (check.blocked()) pdb_block = PdbVerdict(c, pod, check);
    }
    c.disruption_cost = total * c.lifetime_remaining;
    c.reschedule_disruption_cost = reschedule;
    return dnd_block.has_value() ? std::move(dnd_block) : std::move(pdb_block);
  }

  NodeVerdict DoNotDisruptVerdict(const Candidate& c, const v1::Pod& pod,
                                  const drain::DoNotDisrupt& dnd) const {
    std::string message = absl::StrCat("pod \"", PodName(pod), "\" has \"",
                                       dnd.source, "\" annotation");
    if (dnd.until.has_value()) {
      absl::StrAppend(&message, " (active until ",
                      absl::FormatTime("%Y-%m-%d%ET%H:%M:%E*SZ", *dnd.until,
                                       absl::UTCTimeZone()),
                      ")");
    }
    return Verdict(c.node_name, &c, reasons::kPodDoNotDisrupt,
                   std::move(message));
  }

  NodeVerdict PdbVerdict(const Candidate& c, const v1::Pod& pod,
                         const budget::EvictionCheck& check) const {
    if (check.verdict == budget::EvictionVerdict::kMisconfigured) {
      return Verdict(c.node_name, &c, reasons::kMultiplePdbs,
                     absl::StrCat("eviction does not support multiple PDBs "
                                  "(PodDisruptionBudget(s)=[",
                                  absl::StrJoin(check.blocking_pdbs, " "),
                                  "], Pod=", PodName(pod), ")"));
    }
    const std::string pdb =
        check.blocking_pdbs.empty() ? "" : check.blocking_pdbs.front();
    std::string message = absl::StrCat(
        "pdb \"", pdb, "\" prevents pod evictions (Pod=", PodName(pod), ")");
    if (check.verdict == budget::EvictionVerdict::kInvalidPdb) {
      absl::StrAppend(&message, ": the PDB is invalid");
    }
    return Verdict(c.node_name, &c, reasons::kPdbBlocked, std::move(message));
  }

  const CandidateContext& ctx_;
  const snapshot::Snapshot& snap_;
  const budget::PdbIndex* pdbs_ = nullptr;
  std::vector<PoolInfo> pools_;
  std::vector<uint32_t> claim_pos_;  // NodeClaimIndex -> claims_ position.
  CandidatePool pool_;
};

absl::StatusOr<CandidatePool> CandidatePool::Build(
    const CandidateContext& ctx) {
  if (ctx.snapshot == nullptr) {
    return absl::InvalidArgumentError("CandidateContext.snapshot is null");
  }
  return CandidatePoolBuilder(ctx).Build();
}

CandidatePool::Selection CandidatePool::For(Method method) const {
  const MethodClass cls = ClassOf(method);
  Selection out;
  out.candidates.reserve(entries_.size());
  for (const Entry& e : entries_) {
    const Candidate& c = claims_[e.claim_pos].facts;
    const bool blocked =
        e.pod_block.has_value() &&
        (cls == MethodClass::kGraceful ||
         (cls == MethodClass::kEventual && !c.has_termination_grace_period));
    if (!blocked) {
      out.candidates.push_back(c);
      continue;
    }
    NodeVerdict v = *e.pod_block;
    v.method = method;
    out.excluded.push_back(std::move(v));
  }
  return out;
}

absl::string_view CandidatePool::NodePoolSpecError(
    snapshot::NodePoolIndex pool) const {
  return pool < spec_errors_.size() ? absl::string_view(spec_errors_[pool])
                                    : absl::string_view();
}

}  // namespace karpenter::disruption
