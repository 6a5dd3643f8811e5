// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/disruption/explain.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "karpenter/budget/calendar.h"
#include "karpenter/budget/pdb.h"
#include "karpenter/disruption/balanced.h"
#include "karpenter/disruption/candidates.h"
#include "karpenter/disruption/snapshot_facts.h"
#include "karpenter/drain/classify.h"
#include "karpenter/drain/do_not_disrupt_window.h"
#include "karpenter/time_util.h"
#include "karpenter/well_known.h"

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
      std::string(ConsolidationPolicyName(c.consolidation_policy));
  out.consolidation_disabled = c.consolidation_disabled;
  out.consolidatable_at = c.consolidatable_at;
  out.expires_at = c.expires_at;
  if (c.expires_at.has_value() && c.controls.soft_expiration.has_value() &&
      c.controls.soft_expiration->ceiling.has_value()) {
    out.expiration_ceiling =
        *c.expires_at + *c.controls.soft_expiration->ceiling;
  }
  for (const NodePoolControlState& state : plan.controls) {
    if (state.node_pool == c.node_pool_name) out.controls = state;
  }
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

// `<schedule key>: "<value>", <duration key>: "<value>"`.
std::string WindowAnnotationText(const v1::ObjectMeta& meta) {
  auto value = [&](absl::string_view key) {
    auto it = meta.annotations().find(std::string(key));
    return it == meta.annotations().end() ? std::string() : it->second;
  };
  return absl::StrCat(
      well_known::kDoNotDisruptScheduleAnnotationKey, ": \"",
      value(well_known::kDoNotDisruptScheduleAnnotationKey), "\", ",
      well_known::kDoNotDisruptDurationAnnotationKey, ": \"",
      value(well_known::kDoNotDisruptDurationAnnotationKey), "\"");
}

// The Node's valid do-not-disrupt window, if any.
std::optional<drain::DoNotDisruptWindow> NodeWindow(const v1::Node& node) {
  if (node.metadata().annotations().empty()) return std::nullopt;
  absl::StatusOr<std::optional<drain::DoNotDisruptWindow>> w =
      drain::ParseDoNotDisruptWindow(node.metadata().annotations());
  if (!w.ok()) return std::nullopt;
  return *std::move(w);
}

// The earliest instant > t at which a do-not-disrupt window active at `t`
// on node `n` or one of its pods releases; InfiniteFuture if none.
absl::Time WindowRelease(const snapshot::Snapshot& snapshot,
                         snapshot::NodeIndex n, absl::Time t) {
  absl::Time next = absl::InfiniteFuture();
  auto consider = [&](std::optional<absl::Time> at) {
    if (at.has_value() && *at > t) next = std::min(next, *at);
  };
  if (const std::optional<drain::DoNotDisruptWindow> w =
          NodeWindow(snapshot.nodes()[n]);
      w.has_value()) {
    const drain::WindowState s = drain::EvaluateWindow(*w, t);
    if (s.active) consider(s.until);
  }
  for (snapshot::PodIndex p : snapshot.PodsOnNode(n)) {
    if (snapshot.PodShape(p).metadata().annotations().empty()) continue;
    const drain::DoNotDisrupt dnd =
        drain::EvaluateDoNotDisrupt(snapshot.DecodePod(p), t);
    if (dnd.active() &&
        dnd.source == well_known::kDoNotDisruptScheduleAnnotationKey) {
      consider(dnd.until);
    }
  }
  return next;
}

// Do-not-disrupt pods and blocking PDBs among the node's evictable pods,
// and the Node's own active window.
void FillBlockers(const snapshot::Snapshot& snapshot, snapshot::NodeIndex n,
                  absl::Time now, NodeExplanation& out) {
  if (const std::optional<drain::DoNotDisruptWindow> w =
          NodeWindow(snapshot.nodes()[n]);
      w.has_value()) {
    const drain::WindowState s = drain::EvaluateWindow(*w, now);
    if (s.active) {
      out.node_window = w->Describe();
      out.node_window_until = s.until;
    }
  }
  const budget::PdbIndex pdbs = budget::PdbIndex::Build(snapshot);
  for (snapshot::PodIndex p : snapshot.PodsOnNode(n)) {
    const v1::Pod pod = snapshot.DecodePod(p);
    if (drain::IsTerminal(pod) || drain::IsTerminating(pod) ||
        drain::IsOwnedByNode(pod)) {
      continue;
    }
    const drain::DoNotDisrupt dnd = drain::EvaluateDoNotDisrupt(pod, now);
    if (dnd.active() &&
        dnd.source == well_known::kDoNotDisruptScheduleAnnotationKey) {
      out.do_not_disrupt.push_back(DoNotDisruptPod{
          snapshot.PodKey(p), WindowAnnotationText(pod.metadata()), dnd.until});
    } else if (dnd.active()) {
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
  consider(e.expiration_ceiling);
  for (const DoNotDisruptPod& pod : e.do_not_disrupt) consider(pod.until);
  consider(e.node_window_until);
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

v1::Condition TrueCondition(absl::string_view type, absl::Time at) {
  v1::Condition c;
  c.set_type(std::string(type));
  c.set_status(std::string(well_known::kConditionTrue));
  c.set_reason(std::string(type));
  *c.mutable_last_transition_time() = TimeToProto(at);
  return c;
}

// The `In` values the claim's requirements allow for `key`; empty = any.
std::vector<std::string> AllowedValues(const v1::NodeClaim& claim,
                                       absl::string_view key) {
  std::vector<std::string> out;
  for (const v1::NodeSelectorRequirement& r : claim.spec().requirements()) {
    if (r.key() == key && r.operator_() == "In") {
      out.assign(r.values().begin(), r.values().end());
    }
  }
  return out;
}

bool Allows(const std::vector<std::string>& values, absl::string_view v) {
  return values.empty() ||
         std::find(values.begin(), values.end(), v) != values.end();
}

// The replacement NodeClaim `r` as launched and initialised at `at`, and
// its Node: the first of its instance types (the cheapest) that the
// catalogue lists for its NodePool, in the first available offering its
// requirements allow, with that type's capacity.
void LaunchReplacement(const Replacement& r, const PassInputs& inputs,
                       absl::Time at, snapshot::ObjectSet& objects) {
  v1::NodeClaim claim = r.node_claim;
  const std::string name = claim.metadata().name();
  *claim.mutable_metadata()->mutable_creation_timestamp() = TimeToProto(at);
  const std::string provider_id = absl::StrCat("explain:///", name);
  v1::Node node;
  node.set_api_version("v1");
  node.set_kind("Node");
  node.mutable_metadata()->set_name(name);
  *node.mutable_metadata()->mutable_creation_timestamp() = TimeToProto(at);
  auto& labels = *node.mutable_metadata()->mutable_labels();
  for (const auto& [k, v] : claim.metadata().labels()) labels[k] = v;
  labels[std::string(well_known::kNodePoolLabelKey)] = r.node_pool;
  labels[std::string(well_known::kNodeInitializedLabelKey)] = "true";
  labels[std::string(well_known::kNodeRegisteredLabelKey)] = "true";
  labels[std::string(well_known::kLabelHostname)] = name;
  const InstanceType* type = nullptr;
  if (auto pool = inputs.catalog.find(r.node_pool);
      pool != inputs.catalog.end()) {
    for (const std::string& want : r.instance_types) {
      for (const InstanceType& it : pool->second) {
        if (it.name == want) type = &it;
      }
      if (type != nullptr) break;
    }
  }
  if (type == nullptr && !r.instance_types.empty()) {
    labels[std::string(well_known::kLabelInstanceTypeStable)] =
        r.instance_types.front();
  }
  if (type != nullptr) {
    labels[std::string(well_known::kLabelInstanceTypeStable)] = type->name;
    for (const auto& [k, v] : type->labels) labels[k] = v;
    const std::vector<std::string> zones =
        AllowedValues(claim, well_known::kLabelTopologyZone);
    const std::vector<std::string> capacity_types =
        AllowedValues(claim, well_known::kCapacityTypeLabelKey);
    for (const Offering& o : type->offerings) {
      if (!o.available || !Allows(zones, o.zone) ||
          !Allows(capacity_types, o.capacity_type)) {
        continue;
      }
      labels[std::string(well_known::kLabelTopologyZone)] = o.zone;
      labels[std::string(well_known::kCapacityTypeLabelKey)] = o.capacity_type;
      break;
    }
    for (const auto& [resource, quantity] : type->capacity) {
      (*node.mutable_status()->mutable_capacity())[resource] = quantity;
      (*node.mutable_status()->mutable_allocatable())[resource] = quantity;
      (*claim.mutable_status()->mutable_capacity())[resource] = quantity;
      (*claim.mutable_status()->mutable_allocatable())[resource] = quantity;
    }
  }
  for (const auto& [k, v] : labels) {
    (*claim.mutable_metadata()->mutable_labels())[k] = v;
  }
  node.mutable_spec()->set_provider_id(provider_id);
  *node.mutable_spec()->mutable_taints() = claim.spec().taints();
  *node.mutable_status()->add_conditions() =
      TrueCondition(well_known::kConditionTypeReady, at);
  claim.mutable_status()->set_provider_id(provider_id);
  claim.mutable_status()->set_node_name(name);
  for (absl::string_view c : {well_known::kConditionTypeLaunched,
                              well_known::kConditionTypeRegistered,
                              well_known::kConditionTypeInitialized}) {
    *claim.mutable_status()->add_conditions() = TrueCondition(c, at);
  }
  objects.nodes.push_back(std::move(node));
  objects.node_claims.push_back(std::move(claim));
}

// The cluster after the commands of `plan` ran at `at`: their candidates'
// Nodes and NodeClaims are gone, their replacements launched and
// initialised, and the pods of the deleted Nodes moved: DaemonSet, mirror,
// terminal and terminating pods go with their Node; the others are bound to the
// command's first replacement, or left pending (unbound) for the next
// pass's simulation when the command replaces nothing.
absl::StatusOr<snapshot::Snapshot> ApplyCommandsImpl(
    const snapshot::Snapshot& snap, const Plan& plan, const PassInputs& inputs,
    absl::Time at) {
  std::map<std::string, std::string> moved_to;  // Deleted Node -> new home.
  std::set<std::string> deleted_claims;
  snapshot::ObjectSet objects;
  for (const Command& c : plan.commands) {
    std::string home;
    for (const Replacement& r : c.replacements) {
      std::string name = r.node_claim.metadata().name();
      while (snap.FindNodeClaim(name).has_value() ||
             snap.FindNode(name).has_value()) {
        absl::StrAppend(&name, "-x");
      }
      Replacement launched = r;
      launched.node_claim.mutable_metadata()->set_name(name);
      if (home.empty()) home = name;
      LaunchReplacement(launched, inputs, at, objects);
    }
    for (const Candidate& cand : c.candidates) {
      deleted_claims.insert(cand.node_claim_name);
      if (cand.has_node) moved_to[cand.node_name] = home;
    }
  }
  for (const v1::Node& n : snap.nodes()) {
    if (moved_to.count(n.metadata().name()) == 0) objects.nodes.push_back(n);
  }
  for (const v1::NodeClaim& nc : snap.node_claims()) {
    if (deleted_claims.count(nc.metadata().name()) == 0) {
      objects.node_claims.push_back(nc);
    }
  }
  for (snapshot::PodIndex p = 0; p < snap.pod_count(); ++p) {
    v1::Pod pod = snap.DecodePod(p);
    auto it = moved_to.find(pod.spec().node_name());
    if (it != moved_to.end()) {
      if (drain::IsOwnedByDaemonSet(pod) || drain::IsOwnedByNode(pod) ||
          drain::IsTerminal(pod) || drain::IsTerminating(pod)) {
        continue;
      }
      pod.mutable_spec()->set_node_name(it->second);
    }
    objects.pods.push_back(std::move(pod));
  }
  objects.pdbs.assign(snap.pdbs().begin(), snap.pdbs().end());
  objects.node_pools.assign(snap.node_pools().begin(), snap.node_pools().end());
  for (const v1::VolumeAttachment& va : snap.volume_attachments()) {
    if (moved_to.count(va.spec().node_name()) == 0) {
      objects.volume_attachments.push_back(va);
    }
  }
  objects.persistent_volume_claims.assign(
      snap.persistent_volume_claims().begin(),
      snap.persistent_volume_claims().end());
  objects.persistent_volumes.assign(snap.persistent_volumes().begin(),
                                    snap.persistent_volumes().end());
  objects.storage_classes.assign(snap.storage_classes().begin(),
                                 snap.storage_classes().end());
  for (const v1::CSINode& n : snap.csi_nodes()) {
    if (moved_to.count(n.metadata().name()) == 0) {
      objects.csi_nodes.push_back(n);
    }
  }
  objects.daemon_sets.assign(snap.daemon_sets().begin(),
                             snap.daemon_sets().end());
  absl::StatusOr<snapshot::Snapshot> out =
      snapshot::Snapshot::Build(std::move(objects));
  if (!out.ok()) {
    return absl::InternalError(absl::StrCat(
        "the cluster after the commands of the pass at ", FormatRfc3339(at),
        " does not build: ", out.status().message()));
  }
  return out;
}

// The projected cluster of one pass: a snapshot and its facts.
struct Projection {
  std::unique_ptr<snapshot::Snapshot> snapshot;
  std::unique_ptr<SnapshotFacts> facts;
};

// Runs passes at the instants where time alone changes the answer until
// one commands the node. Before each pass the commands of the previous one
// are applied (ApplyCommands), and a pass that commanded other nodes is
// followed by one as soon as they are gone: after the poll interval, or
// when its commands are validated if that is later.
absl::Status SearchDisruption(const Controller& controller,
                              const SnapshotFacts& facts,
                              const PassInputs& inputs, const Plan& first,
                              const ExplainOptions& options,
                              NodeExplanation& out) {
  const std::optional<budget::DisruptionSpec> spec =
      SpecOf(facts.snapshot(), out.node_pool, controller.options().budgets);
  const absl::Time limit = out.now + options.horizon;
  absl::Time t = out.now;
  Projection current;  // Empty until a pass commands other nodes.
  Plan plan = first;
  for (int pass = 0; pass < options.max_passes && t <= limit; ++pass) {
    if (pass > 0) {
      const SnapshotFacts& now_facts =
          current.facts != nullptr ? *current.facts : facts;
      absl::StatusOr<Plan> p = controller.Decide(now_facts, inputs, t);
      if (!p.ok()) return p.status();
      plan = *std::move(p);
    }
    out.tried.push_back(t);
    const NodeVerdict* v = plan.VerdictOf(out.node);
    if (v != nullptr && v->code == reasons::kCommanded) {
      out.disrupted_at = t;
      out.disrupted_by = v->method;
      return absl::OkStatus();
    }
    int64_t pool_nodes = 0;
    if (const budget::NodePoolBudget* pool = plan.budgets.Find(out.node_pool);
        pool != nullptr) {
      pool_nodes = pool->total_nodes;
    }
    absl::Time next = NextInstant(out, spec, pool_nodes, t);
    // Windows recur: those active at `t` (not only at `now`) release the
    // node at their ends.
    if (const std::optional<snapshot::NodeIndex> n =
            facts.snapshot().FindNode(out.node);
        n.has_value()) {
      next = std::min(next, WindowRelease(facts.snapshot(), *n, t));
    }
    if (!plan.commands.empty()) {
      const snapshot::Snapshot& before =
          current.snapshot != nullptr ? *current.snapshot : facts.snapshot();
      absl::StatusOr<snapshot::Snapshot> after =
          ApplyCommandsImpl(before, plan, inputs, t);
      if (!after.ok()) return after.status();
      Projection projected;
      projected.snapshot =
          std::make_unique<snapshot::Snapshot>(*std::move(after));
      projected.facts = std::make_unique<SnapshotFacts>(SnapshotFacts::Build(
          *projected.snapshot, controller.options().budgets));
      current = std::move(projected);
      absl::Time gone = t + controller.options().poll_interval;
      for (const Command& c : plan.commands) {
        if (c.validate_at.has_value()) gone = std::max(gone, *c.validate_at);
      }
      next = std::min(next, gone);
    }
    t = next;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<snapshot::Snapshot> ApplyCommands(
    const snapshot::Snapshot& snapshot, const Plan& plan,
    const PassInputs& inputs, absl::Time at) {
  return ApplyCommandsImpl(snapshot, plan, inputs, at);
}

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
