// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#include "karpenter/disruption/snapshot_facts.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <numeric>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "disruption/facts_internal.h"
#include "google/protobuf/timestamp.pb.h"
#include "karpenter/budget/disruption_spec.h"
#include "karpenter/conditions.h"
#include "karpenter/disruption/candidates.h"
#include "karpenter/disruption/cost.h"
#include "karpenter/drain/classify.h"
#include "karpenter/drain/do_not_disrupt_window.h"
#include "karpenter/taints.h"
#include "karpenter/time_util.h"
#include "karpenter/well_known.h"
#include "snapshot/snapshot_parts.h"

namespace karpenter::disruption {
namespace internal {

// A part of SnapshotFacts built on its first use: by `build` from the
// caller's snapshot and a seed (the same part of an earlier snapshot, which
// the build may reuse, or null). Get may be called from any thread.
template <typename T>
class LazyPart {
 public:
  using BuildFn = std::function<std::shared_ptr<const T>(
      const snapshot::Snapshot&, std::shared_ptr<const T> seed)>;

  LazyPart(BuildFn build, std::shared_ptr<const T> seed)
      : build_(std::move(build)), seed_(std::move(seed)) {}
  // A part built already.
  explicit LazyPart(std::shared_ptr<const T> value)
      : value_(std::move(value)), ready_(value_.get()) {}

  const T& Get(const snapshot::Snapshot& snapshot) {
    if (const T* ready = ready_.load(std::memory_order_acquire)) return *ready;
    std::lock_guard<std::mutex> lock(mu_);
    if (value_ == nullptr) {
      value_ = build_(snapshot, std::move(seed_));
      build_ = nullptr;
      seed_ = nullptr;
      ready_.store(value_.get(), std::memory_order_release);
    }
    return *value_;
  }
  // The value when built, else null.
  std::shared_ptr<const T> Value() const {
    std::lock_guard<std::mutex> lock(mu_);
    return value_;
  }
  // The value when built, else the seed it would be built from (may be
  // null): what a later snapshot's part may reuse.
  std::shared_ptr<const T> ValueOrSeed() const {
    std::lock_guard<std::mutex> lock(mu_);
    return value_ != nullptr ? value_ : seed_;
  }

 private:
  // A std::mutex, which ThreadSanitizer sees (a distribution's Abseil is
  // not built with its annotations).
  mutable std::mutex mu_;
  BuildFn build_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<const T> seed_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<const T> value_ ABSL_GUARDED_BY(mu_);
  std::atomic<const T*> ready_{nullptr};  // value_.get() once built.
};

namespace {

using Conditions = google::protobuf::RepeatedPtrField<v1::Condition>;
using StringMap = google::protobuf::Map<std::string, std::string>;

// Map keys as std::string, so protobuf map lookups allocate nothing.
struct Keys {
  std::string node_pool = std::string(well_known::kNodePoolLabelKey);
  std::string initialized = std::string(well_known::kNodeInitializedLabelKey);
  std::string instance_type = std::string(well_known::kLabelInstanceTypeStable);
  std::string zone = std::string(well_known::kLabelTopologyZone);
  std::string capacity_type = std::string(well_known::kCapacityTypeLabelKey);
  std::string do_not_disrupt =
      std::string(well_known::kDoNotDisruptAnnotationKey);
};
const Keys& K() {
  static const Keys* const kKeys = new Keys();
  return *kKeys;
}

absl::string_view Get(const StringMap& map, const std::string& key) {
  auto it = map.find(key);
  return it == map.end() ? absl::string_view() : absl::string_view(it->second);
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

PoolFacts MakePoolFacts(const v1::NodePool& pool) {
  PoolFacts info;
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
  absl::StatusOr<NodePoolControls> controls = ParseNodePoolControls(pool);
  if (controls.ok()) {
    info.controls = *std::move(controls);
  } else {
    info.controls_error = std::string(controls.status().message());
  }
  return info;
}

uint32_t PoolOf(const snapshot::Snapshot& snap, absl::string_view label) {
  if (label.empty()) return kNoIndex;
  std::optional<snapshot::NodePoolIndex> p = snap.FindNodePool(label);
  return p.has_value() ? *p : kNoIndex;
}

// karpenter.sh/v1beta1's NodeClaim condition: the node has been empty
// since its lastTransitionTime.
constexpr absl::string_view kConditionEmpty = "Empty";

// A NodeClaim of the v1beta1 era: it or its NodePool is karpenter.sh/v1beta1.
bool IsV1Beta1(const v1::NodeClaim& claim, const v1::NodePool* pool) {
  return claim.api_version() == well_known::kApiVersionV1Beta1 ||
         (pool != nullptr &&
          pool->api_version() == well_known::kApiVersionV1Beta1);
}

ClaimFacts MakeClaimFacts(const snapshot::Snapshot& snap,
                          const v1::NodeClaim& claim) {
  ClaimFacts f;
  f.name = claim.metadata().name();
  f.provider_id = claim.status().provider_id();
  f.pool_label = std::string(Get(claim.metadata().labels(), K().node_pool));
  f.pool = PoolOf(snap, f.pool_label);
  f.created = TimeFromProto(claim.metadata().creation_timestamp());
  f.has_termination_grace_period = claim.spec().has_termination_grace_period();
  const v1::NodePool* pool =
      f.pool == kNoIndex ? nullptr : &snap.node_pools()[f.pool];
  absl::StatusOr<std::optional<absl::Duration>> expire =
      ExpireAfterOf(claim, pool);
  if (!expire.ok()) {
    f.expire_after_error = expire.status();
  } else {
    f.expire_after = *expire;
  }
  const Conditions& conditions = claim.status().conditions();
  f.deleting = claim.metadata().has_deletion_timestamp() ||
               IsConditionTrue(conditions,
                               well_known::kConditionTypeInstanceTerminating);
  f.disruption_reason =
      IsConditionTrue(conditions, well_known::kConditionTypeDisruptionReason);
  const v1::Condition* drifted =
      FindCondition(conditions, well_known::kConditionTypeDrifted);
  if (IsConditionTrue(drifted)) {
    f.drifted_since = TimeFromProto(drifted->last_transition_time());
    f.drift_reason = drifted->reason();
  }
  for (const v1::Condition& c : conditions) {
    if (c.type() != well_known::kConditionTypeDrifted ||
        c.status() != well_known::kConditionTrue) {
      continue;
    }
    f.true_drifted_since = TimeFromProto(c.last_transition_time());
    f.true_drifted_reason = c.reason();
    break;
  }
  const v1::Condition* init =
      FindCondition(conditions, well_known::kConditionTypeInitialized);
  if (IsConditionTrue(init)) {
    f.consolidation_start =
        IsSet(claim.status().last_pod_event_time())
            ? TimeFromProto(claim.status().last_pod_event_time())
            : TimeFromProto(init->last_transition_time());
    // karpenter.sh/v1beta1 had no lastPodEventTime: its consolidateAfter
    // (WhenEmpty only) counted from the Empty condition's transition.
    const v1::Condition* empty = FindCondition(conditions, kConditionEmpty);
    if (!IsSet(claim.status().last_pod_event_time()) &&
        IsV1Beta1(claim, pool) && IsConditionTrue(empty)) {
      f.consolidation_start = std::max(
          *f.consolidation_start, TimeFromProto(empty->last_transition_time()));
    }
  }
  return f;
}

uint32_t ClaimOf(const snapshot::Snapshot& snap, const v1::Node& node) {
  std::optional<snapshot::NodeClaimIndex> c =
      node.spec().provider_id().empty()
          ? snap.FindNodeClaimByNodeName(node.metadata().name())
          : snap.FindNodeClaimByProviderId(node.spec().provider_id());
  return c.has_value() ? *c : kNoIndex;
}

NodeFacts MakeNodeFacts(const snapshot::Snapshot& snap, const v1::Node& node) {
  NodeFacts f;
  f.name = node.metadata().name();
  f.claim = ClaimOf(snap, node);
  f.provider_id = node.spec().provider_id();
  const StringMap& labels = node.metadata().labels();
  f.pool_label = std::string(Get(labels, K().node_pool));
  f.pool = PoolOf(snap, f.pool_label);
  f.instance_type = std::string(Get(labels, K().instance_type));
  f.zone = std::string(Get(labels, K().zone));
  f.capacity_type = std::string(Get(labels, K().capacity_type));
  f.initialized = Get(labels, K().initialized) == "true";
  f.do_not_disrupt =
      Get(node.metadata().annotations(), K().do_not_disrupt) == "true";
  if (!node.metadata().annotations().empty()) {
    absl::StatusOr<std::optional<drain::DoNotDisruptWindow>> window =
        drain::ParseDoNotDisruptWindow(node.metadata().annotations());
    if (window.ok() && window->has_value()) {
      f.window = std::make_shared<const drain::DoNotDisruptWindow>(
          **std::move(window));
    }
  }
  f.disrupted_taint = HasDisruptedNoScheduleTaint(node);
  f.deleting = node.metadata().has_deletion_timestamp();
  f.ready = IsConditionTrue(node.status().conditions(),
                            well_known::kConditionTypeReady);
  return f;
}

// NodesToCleanUp's test (orchestrator.h) without the in-flight filter.
bool IsMarked(const snapshot::Snapshot& snap, const v1::Node& node) {
  if (node.metadata().has_deletion_timestamp()) return false;
  std::optional<snapshot::NodeClaimIndex> c =
      snap.FindNodeClaimByNodeName(node.metadata().name());
  if (!c) c = snap.FindNodeClaimByProviderId(node.spec().provider_id());
  const v1::NodeClaim* claim = c ? &snap.node_claims()[*c] : nullptr;
  if (claim != nullptr && claim->metadata().has_deletion_timestamp()) {
    return false;
  }
  return HasDisruptedNoScheduleTaint(node) ||
         (claim != nullptr &&
          FindCondition(claim->status().conditions(),
                        well_known::kConditionTypeDisruptionReason) != nullptr);
}

void SetPdbBlock(const snapshot::Snapshot& snap, snapshot::PodIndex p,
                 const budget::EvictionCheck& check, NodePodFacts& f) {
  f.pdb_block_pod = p;
  if (check.verdict == budget::EvictionVerdict::kMisconfigured) {
    f.pdb_block_code = reasons::kMultiplePdbs;
    f.pdb_block_message = absl::StrCat(
        "eviction does not support multiple PDBs (PodDisruptionBudget(s)=[",
        absl::StrJoin(check.blocking_pdbs, " "), "], Pod=", snap.PodKey(p),
        ")");
    return;
  }
  const std::string pdb =
      check.blocking_pdbs.empty() ? "" : check.blocking_pdbs.front();
  f.pdb_block_code = reasons::kPdbBlocked;
  f.pdb_block_message = absl::StrCat(
      "pdb \"", pdb, "\" prevents pod evictions (Pod=", snap.PodKey(p), ")");
  if (check.verdict == budget::EvictionVerdict::kInvalidPdb) {
    absl::StrAppend(&f.pdb_block_message, ": the PDB is invalid");
  }
}

// `from`/`same`: BuildCandidateFacts's `shapes_from`/`same_shapes`.
const ShapeWalk& WalkOf(const snapshot::Snapshot& snap, snapshot::PodIndex p,
                        std::vector<ShapeWalk>& shapes,
                        const std::vector<ShapeWalk>* from,
                        absl::Span<const uint32_t> same) {
  const uint32_t id = snap.PodShapeId(p);
  ShapeWalk& w = shapes[id];
  if (w.known) return w;
  if (from != nullptr && same[id] < from->size() && (*from)[same[id]].known) {
    w = (*from)[same[id]];
    return w;
  }
  const v1::Pod& pod = snap.PodShape(p);
  w.known = true;
  w.cost = EvictionCost(pod);
  const bool terminating = drain::IsTerminating(pod);
  w.active = !terminating && !drain::IsTerminal(pod);
  w.mirror = drain::IsOwnedByNode(pod);
  w.terminal = drain::IsTerminal(pod);
  w.daemon = drain::IsOwnedByDaemonSet(pod);
  w.reschedulable = (w.active || (terminating && IsOwnedByStatefulSet(pod))) &&
                    !w.daemon && !w.mirror;
  w.do_not_disrupt =
      w.active && !pod.metadata().annotations().empty() &&
      drain::EvaluateDoNotDisrupt(pod, absl::InfinitePast()).active();
  w.tolerates_disrupted = pod.spec().tolerations_size() > 0 &&
                          drain::ToleratesDisruptedNoScheduleTaint(pod);
  return w;
}

// Pod aggregates of node `n` (candidates.h, docs/semantics.md §2.3, §2.11 and
// rule 10 with the time-dependent do-not-disrupt left to the pass). Reads only
// the pods' shapes (through `shapes`): nothing here depends on a replica's
// own fields.
// `blocked`: by shape id and whether the pod is Ready=False (2 per
// shape), whether CanEvict blocks such a pod: 0 not known yet, 1 no, 2 yes.
// A pod's PDBs are its shape's, and Ready=False is all CanEvict reads of
// the pod itself.
void WalkPods(const snapshot::Snapshot& snap, const budget::PdbIndex& pdbs,
              snapshot::NodeIndex n, const std::vector<ShapeWalk>* from,
              absl::Span<const uint32_t> same, std::vector<uint8_t>& blocked,
              CandidateFacts& out) {
  std::vector<ShapeWalk>& shapes = out.shapes;
  NodePodFacts& f = out.node_pods[n];
  double total = 0;
  double reschedule = 1.0;
  double state = 1.0;
  for (snapshot::PodIndex p : snap.PodsOnNode(n)) {
    const ShapeWalk& w = WalkOf(snap, p, shapes, from, same);
    total += w.cost;
    if (!w.terminal && !w.daemon && w.cost > 0) state += w.cost;
    if (w.reschedulable) {
      out.reschedulable.push_back(p);
      reschedule += std::max(0.0, w.cost);
    }
    if (!w.active) continue;
    if (w.do_not_disrupt) out.do_not_disrupt.push_back(p);
    if (f.pdb_block_pod != kNoIndex || w.mirror || w.tolerates_disrupted) {
      continue;
    }
    // Whether a PDB blocks the pod depends on its shape and Ready=False
    // alone (CanEvict): asked once per pair. A shape no PDB selects is
    // never blocked.
    const bool unready =
        snap.PodReadyCondition(p) == snapshot::PodReady::kFalse;
    uint8_t& known = blocked[2 * size_t{snap.PodShapeId(p)} + unready];
    if (known == 1) continue;
    budget::EvictionCheck check = pdbs.CanEvict(snap, p, true);
    known = check.blocked() ? 2 : 1;
    if (check.blocked()) SetPdbBlock(snap, p, check, f);
  }
  f.eviction_cost = total;
  f.reschedule_cost = reschedule;
  f.state_cost = state;
  out.reschedulable_offsets.push_back(out.reschedulable.size());
  out.do_not_disrupt_offsets.push_back(out.do_not_disrupt.size());
}

template <typename T, typename Name>
std::vector<uint32_t> OrderByName(snapshot::ObjectList<T> objects, Name name) {
  std::vector<uint32_t> order(objects.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return name(objects[a]) < name(objects[b]);
  });
  return order;
}

}  // namespace

CandidateFacts BuildCandidateFacts(const snapshot::Snapshot& snap,
                                   const budget::PdbIndex& pdbs,
                                   const CandidateFacts* nodes_from,
                                   const CandidateFacts* shapes_from,
                                   absl::Span<const uint32_t> same_shapes) {
  CandidateFacts out;
  const auto nodes = snap.nodes();
  if (nodes_from != nullptr) {
    out.pools = nodes_from->pools;
    out.claims = nodes_from->claims;
    out.nodes = nodes_from->nodes;
    out.node_order = nodes_from->node_order;
    out.claim_order = nodes_from->claim_order;
    out.marked_nodes = nodes_from->marked_nodes;
  } else {
    std::vector<PoolFacts> pools;
    for (const v1::NodePool& pool : snap.node_pools()) {
      pools.push_back(MakePoolFacts(pool));
    }
    out.pools = SharedTable<PoolFacts>(std::move(pools));
    std::vector<ClaimFacts> claims;
    claims.reserve(snap.node_claims().size());
    for (const v1::NodeClaim& claim : snap.node_claims()) {
      claims.push_back(MakeClaimFacts(snap, claim));
    }
    out.claims = SharedTable<ClaimFacts>(std::move(claims));
    std::vector<NodeFacts> node_facts;
    node_facts.reserve(nodes.size());
    for (snapshot::NodeIndex n = 0; n < nodes.size(); ++n) {
      node_facts.push_back(MakeNodeFacts(snap, nodes[n]));
    }
    out.nodes = SharedTable<NodeFacts>(std::move(node_facts));
    const auto by_name = [](const auto& o) -> const std::string& {
      return o.metadata().name();
    };
    out.node_order = OrderByName(nodes, by_name);
    out.claim_order = OrderByName(snap.node_claims(), by_name);
    for (uint32_t n : out.node_order) {
      if (IsMarked(snap, nodes[n])) out.marked_nodes.push_back(n);
    }
  }
  out.node_pods.resize(nodes.size());
  out.reschedulable.reserve(snap.pod_count());
  out.shapes.assign(snap.pod_shape_count(), ShapeWalk());
  const bool carry =
      shapes_from != nullptr && same_shapes.size() == snap.pod_shape_count();
  const std::vector<ShapeWalk>* from = carry ? &shapes_from->shapes : nullptr;
  std::vector<uint8_t> blocked(2 * snap.pod_shape_count(), 0);
  for (snapshot::NodeIndex n = 0; n < nodes.size(); ++n) {
    WalkPods(snap, pdbs, n, from, same_shapes, blocked, out);
  }
  return out;
}

}  // namespace internal

SnapshotFacts SnapshotFacts::Build(const snapshot::Snapshot& snapshot,
                                   const budget::BudgetOptions& budgets,
                                   const SnapshotFacts* previous) {
  using internal::CandidateFacts;
  using internal::LazyPart;
  using snapshot::internal::SnapshotParts;
  SnapshotFacts f;
  f.snapshot_ = &snapshot;
  f.budget_options_ = budgets;
  // What the previous facts' inputs share with `snapshot`.
  const auto shares = [&](uint32_t kinds) {
    return previous != nullptr &&
           SnapshotParts::Same(snapshot, *previous->snapshot_, kinds);
  };
  // Per shape, the same shape object in the previous snapshot: what
  // depends on a shape alone is taken from the previous facts.
  std::vector<uint32_t> same_shapes =
      previous != nullptr
          ? SnapshotParts::SameShapes(*previous->snapshot_, snapshot)
          : std::vector<uint32_t>();
  // The PDB index reuses what it parsed and matched for the same PDBs.
  f.pdbs_ = std::make_unique<budget::PdbIndex>(budget::PdbIndex::Build(
      snapshot, shares(SnapshotParts::kPdbs) ? previous->pdbs_.get() : nullptr,
      same_shapes));
  // BudgetBook::Build reads the Nodes, NodeClaims and NodePools.
  if (shares(SnapshotParts::kNodes | SnapshotParts::kNodeClaims |
             SnapshotParts::kNodePools) &&
      previous->budget_options_ == budgets) {
    f.budgets_ = previous->budgets_;
  } else {
    f.budgets_ = std::make_shared<LazyPart<budget::BudgetBook>>(
        [budgets](const snapshot::Snapshot& snap,
                  std::shared_ptr<const budget::BudgetBook>) {
          return std::make_shared<const budget::BudgetBook>(
              budget::BudgetBook::Build(snap, budgets));
        },
        nullptr);
  }
  // DriftBook::Build reads the NodeClaims and NodePools.
  const std::shared_ptr<const drift::DriftBook> drift_from =
      previous != nullptr ? previous->drift_->Value() : nullptr;
  if (shares(SnapshotParts::kNodeClaims | SnapshotParts::kNodePools)) {
    f.drift_ = previous->drift_;
  } else if (drift_from != nullptr) {
    // A book reads its snapshot's parts, which the previous snapshot may be
    // the last to hold: the entries it checked are reused now, while it
    // lives, or never.
    f.drift_ = std::make_shared<LazyPart<drift::DriftBook>>(
        std::make_shared<const drift::DriftBook>(
            drift::DriftBook::Build(snapshot, drift_from.get())));
  } else {
    f.drift_ = std::make_shared<LazyPart<drift::DriftBook>>(
        [](const snapshot::Snapshot& snap,
           std::shared_ptr<const drift::DriftBook>) {
          return std::make_shared<const drift::DriftBook>(
              drift::DriftBook::Build(snap));
        },
        nullptr);
  }
  // The node halves of the candidate facts and the scheduler's tables read
  // the Nodes, NodeClaims and NodePools.
  const bool same_nodes =
      shares(SnapshotParts::kNodes | SnapshotParts::kNodeClaims |
             SnapshotParts::kNodePools);
  // The candidates' shapes are carried from previous facts built already
  // (`same_shapes` maps to the previous snapshot's shapes only).
  std::shared_ptr<const CandidateFacts> shapes_from =
      previous != nullptr ? previous->candidates_->Value() : nullptr;
  f.candidates_ = std::make_unique<LazyPart<CandidateFacts>>(
      [pdbs = f.pdbs_.get(), shapes_from,
       same = shapes_from != nullptr ? same_shapes : std::vector<uint32_t>()](
          const snapshot::Snapshot& snap,
          std::shared_ptr<const CandidateFacts> nodes_from) {
        return std::make_shared<const CandidateFacts>(BuildCandidateFacts(
            snap, *pdbs, nodes_from.get(), shapes_from.get(), same));
      },
      same_nodes ? previous->candidates_->ValueOrSeed() : nullptr);
  auto base = std::make_unique<internal::SchedulerBase>();
  // The volume index reads the storage kinds.
  const bool same_volumes =
      shares(SnapshotParts::kPersistentVolumeClaims |
             SnapshotParts::kPersistentVolumes |
             SnapshotParts::kStorageClasses | SnapshotParts::kCSINodes);
  f.simulation_status_ = internal::BuildSchedulerBase(
      snapshot, *f.pdbs_, *base,
      same_nodes ? previous->scheduler_.get() : nullptr,
      same_volumes ? previous->scheduler_.get() : nullptr,
      previous != nullptr ? previous->scheduler_.get() : nullptr, same_shapes,
      // Otherwise, the facts of each Node object both snapshots hold.
      !same_nodes &&
              shares(SnapshotParts::kNodeClaims | SnapshotParts::kNodePools)
          ? previous->scheduler_.get()
          : nullptr);
  if (f.simulation_status_.ok()) f.scheduler_ = std::move(base);
  return f;
}

const budget::BudgetBook& SnapshotFacts::budgets() const {
  return budgets_->Get(*snapshot_);
}

const drift::DriftBook& SnapshotFacts::drift() const {
  return drift_->Get(*snapshot_);
}

const internal::CandidateFacts& SnapshotFacts::candidate_facts() const {
  return candidates_->Get(*snapshot_);
}

SnapshotFacts::SnapshotFacts(SnapshotFacts&&) noexcept = default;
SnapshotFacts& SnapshotFacts::operator=(SnapshotFacts&&) noexcept = default;
SnapshotFacts::~SnapshotFacts() = default;

}  // namespace karpenter::disruption
