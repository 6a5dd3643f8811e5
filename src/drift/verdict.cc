// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/drift/verdict.h"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "drift/pool_facts.h"
#include "google/protobuf/timestamp.pb.h"
#include "karpenter/cloud_provider.h"
#include "karpenter/conditions.h"
#include "karpenter/drift/requirements_drift.h"
#include "karpenter/drift/static_drift.h"
#include "karpenter/requirements.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/time_util.h"
#include "karpenter/v1/karpenter.pb.h"
#include "karpenter/v1/meta.pb.h"
#include "karpenter/well_known.h"

namespace karpenter::drift {
namespace {

std::optional<absl::string_view> Label(const v1::ObjectMeta& meta,
                                       absl::string_view key) {
  // A std::string_view probe: protobuf's Map looks it up without copying.
  auto it = meta.labels().find(std::string_view(key.data(), key.size()));
  if (it == meta.labels().end()) return std::nullopt;
  return absl::string_view(it->second);
}

bool Launched(const v1::NodeClaim& claim) {
  return IsConditionTrue(claim.status().conditions(),
                         well_known::kConditionTypeLaunched);
}

// The claim's labels as requirements, with a reserved capacity type widened
// to {reserved, on-demand}: a reservation may fall back to on-demand.
Requirements OfferingQuery(const v1::NodeClaim& claim) {
  const auto& labels = claim.metadata().labels();
  auto ct = labels.find(std::string(well_known::kCapacityTypeLabelKey));
  if (ct == labels.end() || ct->second != well_known::kCapacityTypeReserved) {
    return Requirements::FromLabels(labels);
  }
  google::protobuf::Map<std::string, std::string> rest = labels;
  rest.erase(std::string(well_known::kCapacityTypeLabelKey));
  Requirements reqs = Requirements::FromLabels(rest);
  const std::vector<std::string> both = {
      std::string(well_known::kCapacityTypeReserved),
      std::string(well_known::kCapacityTypeOnDemand)};
  reqs.Add(Requirement::In(well_known::kCapacityTypeLabelKey, both));
  return reqs;
}

// An offering as Karpenter's offering requirements; an empty field is no
// requirement.
Requirements OfferingRequirements(const Offering& o) {
  Requirements reqs;
  if (!o.zone.empty()) {
    reqs.Add(Requirement::In(well_known::kLabelTopologyZone, {o.zone}));
  }
  if (!o.capacity_type.empty()) {
    reqs.Add(
        Requirement::In(well_known::kCapacityTypeLabelKey, {o.capacity_type}));
  }
  return reqs;
}

const CompatibilityOptions& WellKnownUndefined() {
  static const CompatibilityOptions* const options = new CompatibilityOptions{
      {WellKnownLabels().begin(), WellKnownLabels().end()}};
  return *options;
}

// The values `query` admits for `key`, quoted and joined by " or ", or
// "(any)" when it does not constrain the key.
std::string Admitted(const Requirements& query, absl::string_view key) {
  const Requirement* r = query.Get(key);
  if (r == nullptr || r->complement()) return "(any)";
  std::string out;
  for (const std::string& v : r->values()) {
    absl::StrAppend(&out, out.empty() ? "" : " or ", "\"", v, "\"");
  }
  return out;
}

std::optional<std::string> NotFound(std::string* why, std::string message) {
  if (why != nullptr) *why = std::move(message);
  return std::string(well_known::kInstanceTypeNotFound);
}

// The annotation or "" (StaticDrifted has already required all four).
std::string AnnotationOf(const v1::ObjectMeta& meta, absl::string_view key) {
  auto it = meta.annotations().find(std::string(key));
  return it == meta.annotations().end() ? "" : it->second;
}

std::string StaticDetail(const v1::NodePool& pool, const v1::NodeClaim& claim) {
  return absl::StrCat(
      "NodeClaim ", well_known::kNodePoolHashAnnotationKey, " \"",
      AnnotationOf(claim.metadata(), well_known::kNodePoolHashAnnotationKey),
      "\" differs from the NodePool's \"",
      AnnotationOf(pool.metadata(), well_known::kNodePoolHashAnnotationKey),
      "\" (hash version \"",
      AnnotationOf(pool.metadata(),
                   well_known::kNodePoolHashVersionAnnotationKey),
      "\")");
}

// The checks that read only the snapshot, in Karpenter's order: static
// drift, then requirements drift. Sets reason or error; returns true when
// the verdict is settled (drifted or failed), false when the observed
// checks must run.
bool RunSnapshotChecks(const v1::NodeClaim& claim, internal::DriftMemo& memo,
                       internal::PoolFacts& facts, DriftVerdict& v) {
  const v1::NodePool& pool = *facts.pool;
  // StaticDrifted, whose status is never an error, with the NodePool's
  // annotations looked up once.
  if (std::optional<std::string> stat =
          internal::StaticDriftedAgainst(facts.hash, claim)) {
    v.reason = std::move(stat);
    v.detail = StaticDetail(pool, claim);
    return true;
  }
  absl::StatusOr<const internal::CheckAnswer*> reqs =
      memo.RequirementsAnswer(facts, claim);
  if (!reqs.ok()) {
    v.error = absl::Status(reqs.status().code(),
                           absl::StrCat("NodePool \"", v.node_pool,
                                        "\": ", reqs.status().message()));
    return true;
  }
  if ((*reqs)->reason.has_value()) {
    v.reason = (*reqs)->reason;
    v.detail = (*reqs)->why;
    return true;
  }
  return false;
}

// The checks that read observations: InstanceTypeNotFound (`type_key` is
// DriftMemo::InstanceTypeClaimKey of the claim), then the provider. Sets
// reason or error; appends to `unchecked` the checks that lacked an
// observation.
void RunObservedChecks(const v1::NodeClaim& claim, absl::Time created,
                       absl::string_view type_key, internal::DriftMemo& memo,
                       internal::PoolFacts& facts, const DriftObservations& obs,
                       absl::Time now, DriftVerdict& v) {
  if (now - created > kInstanceTypeCheckMinAge) {
    if (obs.catalog == nullptr) {
      v.unchecked.push_back(
          "InstanceTypeNotFound: no instance-type catalogue observed");
    } else if (facts.types == nullptr) {
      auto err = obs.catalog_errors.find(v.node_pool);
      v.unchecked.push_back(absl::StrCat(
          "InstanceTypeNotFound: NodePool \"", v.node_pool,
          "\" is not in the catalogue",
          err == obs.catalog_errors.end()
              ? ""
              : absl::StrCat(" (GetInstanceTypes: ", err->second.ToString(),
                             ")")));
    } else if (const internal::CheckAnswer& r =
                   memo.InstanceTypeAnswerByKey(facts, type_key, claim);
               r.reason.has_value()) {
      v.reason = r.reason;
      v.detail = r.why;
      return;
    }
  }
  auto provider = obs.provider.find(v.node_claim);
  if (provider == obs.provider.end()) {
    v.unchecked.push_back(
        "provider: IsDrifted not observed (not asked, or instance not found)");
    return;
  }
  if (!provider->second.error.ok()) {
    v.error = absl::Status(
        provider->second.error.code(),
        absl::StrCat("IsDrifted: ", provider->second.error.message()));
    return;
  }
  if (provider->second.reason.has_value()) {
    v.reason = provider->second.reason;
    v.detail = absl::StrCat("the cloud provider reports \"",
                            *provider->second.reason, "\"");
  }
}

// The claim's Drifted condition, as DecideCondition reads it.
struct ExistingDrifted {
  bool present = false;
  bool is_true = false;
  std::optional<absl::Time> since;
  std::string reason;
  std::string message;
};

ExistingDrifted ExistingOf(const v1::NodeClaim& claim) {
  ExistingDrifted e;
  const v1::Condition* c = FindCondition(claim.status().conditions(),
                                         well_known::kConditionTypeDrifted);
  if (c == nullptr) return e;
  e.present = true;
  e.is_true = c->status() == well_known::kConditionTrue;
  if (c->has_last_transition_time()) {
    e.since = TimeFromProto(c->last_transition_time());
  }
  e.reason = c->reason();
  e.message = c->message();
  return e;
}

// What the Drifted condition becomes, as operatorpkg's SetTrueWithReason and
// Clear would change it: the transition time moves only with the status.
void DecideCondition(const ExistingDrifted& existing, absl::Time now,
                     DriftVerdict& v) {
  if (!v.reason.has_value()) {
    if (!v.unchecked.empty()) {
      v.detail = "not drifted by the checks that ran; condition left as is";
      return;
    }
    if (existing.present) v.change = DriftConditionChange::kRemove;
    return;
  }
  if (!existing.is_true) {
    v.change = DriftConditionChange::kSet;
    v.since = now;
    return;
  }
  if (existing.since.has_value()) v.since = existing.since;
  if (existing.reason != *v.reason || existing.message != *v.reason) {
    v.change = DriftConditionChange::kSet;
  }
}

bool Eligible(const v1::NodeClaim& claim, const snapshot::Snapshot& snapshot) {
  std::optional<absl::string_view> pool =
      Label(claim.metadata(), well_known::kNodePoolLabelKey);
  return pool.has_value() && snapshot.FindNodePool(*pool).has_value() &&
         !claim.metadata().has_deletion_timestamp() && Launched(claim);
}

// True if the static or requirements check settles the verdict without the
// provider (drifted, or an error).
bool SettledWithoutProvider(const v1::NodeClaim& claim,
                            const v1::NodePool& pool) {
  absl::StatusOr<std::optional<std::string>> stat = StaticDrifted(pool, claim);
  if (!stat.ok() || stat->has_value()) return true;
  absl::StatusOr<std::optional<std::string>> reqs =
      RequirementsDrifted(pool, claim);
  return !reqs.ok() || reqs->has_value();
}

// Fills `v` with what EvaluateDrift decides before any drift check: the
// skips and the NodePool mismatch. Returns true if the checks must run.
// `label` is the claim's karpenter.sh/nodepool label.
bool Precheck(const v1::NodeClaim& claim,
              std::optional<absl::string_view> label, const v1::NodePool* pool,
              DriftVerdict& v) {
  v.node_claim = claim.metadata().name();
  if (!label.has_value()) {
    v.skipped = absl::StrCat("not managed: no ", well_known::kNodePoolLabelKey,
                             " label");
    return false;
  }
  v.node_pool = std::string(*label);
  if (claim.metadata().has_deletion_timestamp()) {
    v.skipped = "deleting";
    return false;
  }
  if (pool == nullptr) {
    v.skipped = absl::StrCat("NodePool \"", v.node_pool, "\" not found");
    return false;
  }
  if (pool->metadata().name() != v.node_pool) {
    v.error = absl::InvalidArgumentError(absl::StrCat(
        "NodeClaim \"", v.node_claim, "\" is labelled NodePool \"", v.node_pool,
        "\" but was given NodePool \"", pool->metadata().name(), "\""));
    return false;
  }
  if (!Launched(claim)) {
    v.skipped = "not launched";
    if (FindCondition(claim.status().conditions(),
                      well_known::kConditionTypeDrifted) != nullptr) {
      v.change = DriftConditionChange::kRemove;
    }
    return false;
  }
  return true;
}

}  // namespace

std::optional<std::string> InstanceTypeNotFound(
    const v1::NodeClaim& claim, absl::Span<const InstanceType> types,
    std::string* why) {
  std::optional<absl::string_view> name =
      Label(claim.metadata(), well_known::kLabelInstanceTypeStable);
  if (!name.has_value()) {
    return NotFound(
        why,
        absl::StrCat("no ", well_known::kLabelInstanceTypeStable, " label"));
  }
  const InstanceType* type = nullptr;
  for (const InstanceType& t : types) {
    if (t.name == *name) {
      type = &t;
      break;
    }
  }
  if (type == nullptr) {
    return NotFound(
        why, absl::StrCat("instance type \"", *name, "\" is not among the ",
                          types.size(), " instance types of the NodePool"));
  }
  const Requirements query = OfferingQuery(claim);
  for (const Offering& o : type->offerings) {
    if (query.Compatible(OfferingRequirements(o), WellKnownUndefined())) {
      return std::nullopt;
    }
  }
  return NotFound(
      why, absl::StrCat("instance type \"", *name, "\" has no offering (of ",
                        type->offerings.size(), ") in zone ",
                        Admitted(query, well_known::kLabelTopologyZone),
                        " with capacity type ",
                        Admitted(query, well_known::kCapacityTypeLabelKey)));
}

absl::string_view DriftConditionChangeName(DriftConditionChange change) {
  switch (change) {
    case DriftConditionChange::kNone:
      return "None";
    case DriftConditionChange::kSet:
      return "Set";
    case DriftConditionChange::kRemove:
      return "Remove";
  }
  return "Unknown";
}

DriftVerdict EvaluateDrift(const v1::NodeClaim& claim, const v1::NodePool* pool,
                           const DriftObservations& obs, absl::Time now) {
  DriftVerdict v;
  if (!Precheck(claim, Label(claim.metadata(), well_known::kNodePoolLabelKey),
                pool, v)) {
    return v;
  }
  internal::DriftMemo memo(obs.catalog, 1);
  internal::PoolFacts& facts = memo.Facts(0, *pool);
  if (!RunSnapshotChecks(claim, memo, facts, v)) {
    RunObservedChecks(
        claim, TimeFromProto(claim.metadata().creation_timestamp()),
        memo.InstanceTypeClaimKey(claim), memo, facts, obs, now, v);
  }
  if (v.error.ok()) DecideCondition(ExistingOf(claim), now, v);
  return v;
}

// What DriftBook keeps of one NodeClaim.
struct DriftBook::Entry {
  // The verdict as far as the snapshot decides it.
  DriftVerdict verdict;
  // Precheck passed (ObserveDrift's "eligible").
  bool eligible = false;
  // Precheck passed and no error: the condition is decided at the pass
  // time.
  bool checked = false;
  // The snapshot checks did not settle it: the observed checks run.
  bool observe = false;
  snapshot::NodePoolIndex pool = 0;
  absl::Time created = absl::UnixEpoch();
  std::string type_key;
  ExistingDrifted existing;
};

DriftBook DriftBook::Build(const snapshot::Snapshot& snapshot,
                           const DriftBook* previous) {
  DriftBook book;
  book.claims_ = snapshot.node_claims();
  book.pools_ = snapshot.node_pools();
  internal::DriftMemo memo(nullptr, snapshot.node_pools().size());
  const auto claims = snapshot.node_claims();
  // An entry depends on its claim and the NodePools alone: with the very
  // same NodePools, a claim object the previous book checked keeps its
  // entry.
  absl::flat_hash_map<const v1::NodeClaim*, size_t> before;
  if (previous != nullptr && previous->pools_.size() == book.pools_.size() &&
      std::equal(previous->pools_.begin(), previous->pools_.end(),
                 book.pools_.begin(),
                 [](const v1::NodePool& a, const v1::NodePool& b) {
                   return &a == &b;
                 })) {
    before.reserve(previous->claims_.size());
    for (size_t i = 0; i < previous->claims_.size(); ++i) {
      before.emplace(&previous->claims_[i], i);
    }
  }
  book.entries_.resize(claims.size());
  for (size_t i = 0; i < claims.size(); ++i) {
    const v1::NodeClaim& claim = claims[i];
    Entry& e = book.entries_[i];
    if (const auto it = before.find(&claim); it != before.end()) {
      e = previous->entries_[it->second];
      continue;
    }
    const std::optional<absl::string_view> label =
        Label(claim.metadata(), well_known::kNodePoolLabelKey);
    std::optional<snapshot::NodePoolIndex> p;
    if (label.has_value()) p = snapshot.FindNodePool(*label);
    if (!Precheck(claim, label, p ? &snapshot.node_pools()[*p] : nullptr,
                  e.verdict)) {
      continue;
    }
    e.eligible = true;
    e.pool = *p;
    e.existing = ExistingOf(claim);
    e.observe = !RunSnapshotChecks(
        claim, memo, memo.Facts(*p, snapshot.node_pools()[*p]), e.verdict);
    e.checked = e.verdict.error.ok();
    if (e.observe) {
      e.created = TimeFromProto(claim.metadata().creation_timestamp());
      e.type_key = memo.InstanceTypeClaimKey(claim);
    }
  }
  return book;
}

DriftBook::DriftBook(DriftBook&&) noexcept = default;
DriftBook& DriftBook::operator=(DriftBook&&) noexcept = default;
DriftBook::~DriftBook() = default;

void DriftBook::ForEach(
    const DriftObservations& obs, absl::Time now,
    absl::FunctionRef<void(size_t, const DriftVerdict&)> visit) const {
  internal::DriftMemo memo(obs.catalog, pools_.size());
  DriftVerdict v;
  for (size_t i = 0; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    v = e.verdict;  // Reuses v's string and vector capacity.
    if (e.observe) {
      RunObservedChecks(claims_[i], e.created, e.type_key, memo,
                        memo.Facts(e.pool, pools_[e.pool]), obs, now, v);
    }
    if (e.checked && v.error.ok()) DecideCondition(e.existing, now, v);
    visit(i, v);
  }
}

std::vector<DriftVerdict> DriftBook::Evaluate(const DriftObservations& obs,
                                              absl::Time now) const {
  std::vector<DriftVerdict> out;
  out.reserve(entries_.size());
  ForEach(obs, now, [&](size_t, const DriftVerdict& v) { out.push_back(v); });
  return out;
}

std::vector<DriftVerdict> EvaluateAllDrift(const snapshot::Snapshot& snapshot,
                                           const DriftObservations& obs,
                                           absl::Time now) {
  return DriftBook::Build(snapshot).Evaluate(obs, now);
}
namespace {

// ObserveDrift's calls: GetInstanceTypes for each needed NodePool (into
// `*catalog_out`, cleared first; none if null), and IsDrifted for one
// claim (NotFound records nothing).
void ObserveCatalog(CloudProvider& cloud,
                    snapshot::ObjectList<v1::NodePool> pools,
                    const std::vector<bool>& pool_needed,
                    InstanceTypeCatalog* catalog_out, DriftObservations& obs) {
  if (catalog_out == nullptr) return;
  catalog_out->clear();
  for (size_t p = 0; p < pool_needed.size(); ++p) {
    if (!pool_needed[p]) continue;
    const v1::NodePool& pool = pools[p];
    absl::StatusOr<std::vector<InstanceType>> types =
        cloud.GetInstanceTypes(pool);
    if (types.ok()) {
      (*catalog_out)[pool.metadata().name()] = *std::move(types);
    } else {
      obs.catalog_errors[pool.metadata().name()] = types.status();
    }
  }
  obs.catalog = catalog_out;
}

void ObserveProvider(CloudProvider& cloud, const v1::NodeClaim& claim,
                     DriftObservations& obs) {
  absl::StatusOr<std::optional<std::string>> drifted = cloud.IsDrifted(claim);
  if (absl::IsNotFound(drifted.status())) return;
  ProviderDrift& entry = obs.provider[claim.metadata().name()];
  if (drifted.ok()) {
    entry.reason = *std::move(drifted);
  } else {
    entry.error = drifted.status();
  }
}

}  // namespace

DriftObservations ObserveDrift(CloudProvider& cloud,
                               const snapshot::Snapshot& snapshot,
                               InstanceTypeCatalog* catalog_out) {
  DriftObservations obs;
  std::vector<bool> pool_needed(snapshot.node_pools().size(), false);
  std::vector<const v1::NodeClaim*> eligible;
  for (const v1::NodeClaim& claim : snapshot.node_claims()) {
    if (!Eligible(claim, snapshot)) continue;
    eligible.push_back(&claim);
    pool_needed[*snapshot.FindNodePool(
        *Label(claim.metadata(), well_known::kNodePoolLabelKey))] = true;
  }
  ObserveCatalog(cloud, snapshot.node_pools(), pool_needed, catalog_out, obs);
  for (const v1::NodeClaim* claim : eligible) {
    const v1::NodePool& pool = snapshot.node_pools()[*snapshot.FindNodePool(
        *Label(claim->metadata(), well_known::kNodePoolLabelKey))];
    if (SettledWithoutProvider(*claim, pool)) continue;
    ObserveProvider(cloud, *claim, obs);
  }
  return obs;
}

DriftObservations ObserveDrift(CloudProvider& cloud, const DriftBook& book,
                               InstanceTypeCatalog* catalog_out) {
  DriftObservations obs;
  std::vector<bool> pool_needed(book.pools_.size(), false);
  for (const DriftBook::Entry& e : book.entries_) {
    if (e.eligible) pool_needed[e.pool] = true;
  }
  ObserveCatalog(cloud, book.pools_, pool_needed, catalog_out, obs);
  for (size_t i = 0; i < book.entries_.size(); ++i) {
    // Settled by the static or requirements check: not observed.
    if (!book.entries_[i].eligible || !book.entries_[i].observe) continue;
    ObserveProvider(cloud, book.claims_[i], obs);
  }
  return obs;
}

}  // namespace karpenter::drift
