// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/budget/pdb.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "karpenter/conditions.h"
#include "karpenter/intstr.h"
#include "karpenter/well_known.h"

namespace karpenter::budget {
namespace internal {

// A PDB in a bucket; `exact` when its selector is nothing but the bucket's
// requirement, so being in the bucket of the pod's value is the match.
struct Candidate {
  uint32_t id;
  bool exact;
};

// PDBs of one namespace, bucketed by the value they require for `key` (the
// matchLabels / In key most of them use), so a pod is tested only against the
// bucket of its own value plus the unbucketed rest. Measured: 5x faster than
// testing every PDB of the namespace at 50 PDBs a namespace (bench/README.md).
// Values view the PdbInfo selectors, which outlive the buckets (both are
// local to Build); one flat candidate array per namespace keeps allocations
// (and the frees of the previous pass) few.
struct NamespaceBuckets {
  std::string key;
  // value -> [begin, end) in `candidates`.
  absl::flat_hash_map<absl::string_view, std::pair<uint32_t, uint32_t>>
      by_value;
  std::vector<Candidate> candidates;
  std::vector<uint32_t> rest;
};

// The validated spec of one PDB, before pods are counted.
struct ParsedSpec {
  std::optional<IntOrPercent> min_available;
  std::optional<IntOrPercent> max_unavailable;
};

// What an index parses from the PDBs alone; immutable once built, and
// shared by the indexes of snapshots holding the same PDBs.
struct ParsedPdbs {
  // Per PDB: name, selector, error, always_allow, fully_blocking (counts
  // unset); its spec; whether it has no status (pods are counted for it).
  std::vector<PdbInfo> base;
  std::vector<ParsedSpec> specs;
  std::vector<bool> needs_count;
  // Per NamespaceId of the snapshot they were built for, whose namespace
  // names `namespaces` lists in id order. The buckets view `base`.
  std::vector<std::string> namespaces;
  std::vector<NamespaceBuckets> buckets;
};

// The PDBs selecting each shape of one snapshot: they depend on the
// shape's namespace and labels alone.
struct ShapeMatches {
  static constexpr uint32_t kUnmatched = 0xFFFFFFFF;
  struct Match {
    uint32_t first = kUnmatched;  // Into pdbs.
    uint32_t size = 0;
    bool count = false;  // A PDB without status selects the shape.
  };
  std::vector<Match> by_shape;  // By shape id.
  std::vector<uint32_t> pdbs;
};

}  // namespace internal

namespace {

using internal::Candidate;
using internal::NamespaceBuckets;
using internal::ParsedPdbs;
using internal::ParsedSpec;
using internal::ShapeMatches;
using snapshot::PodIndex;
using snapshot::Snapshot;

// An IntOrString field is absent when unset or JSON null (a nil Go pointer).
bool IsSet(bool has, const google::protobuf::Value& v) {
  return has && v.kind_case() != google::protobuf::Value::KIND_NOT_SET &&
         v.kind_case() != google::protobuf::Value::kNullValue;
}

// Parses and range-checks minAvailable / maxUnavailable as Kubernetes'
// ValidateNonnegativeIntOrPercent and IsValidPercent do. Appends problems
// to `problems`.
std::optional<IntOrPercent> ParseAmount(const google::protobuf::Value& v,
                                        absl::string_view field,
                                        std::vector<std::string>& problems) {
  absl::StatusOr<IntOrPercent> parsed = IntOrPercent::FromProtoValue(v, field);
  if (!parsed.ok()) {
    problems.emplace_back(parsed.status().message());
    return std::nullopt;
  }
  if (parsed->value() < 0) {
    problems.push_back(absl::StrCat(field, ": \"", parsed->ToString(),
                                    "\": must be greater than or equal to 0"));
    return std::nullopt;
  }
  if (parsed->is_percent() && parsed->value() > 100) {
    problems.push_back(absl::StrCat(field, ": \"", parsed->ToString(),
                                    "\": must not be greater than 100%"));
    return std::nullopt;
  }
  return *parsed;
}

ParsedSpec ParseSpec(const v1::PodDisruptionBudget& pdb, PdbInfo& info) {
  const v1::PodDisruptionBudgetSpec& spec = pdb.spec();
  std::vector<std::string> problems;
  absl::StatusOr<LabelSelector> selector = LabelSelector::FromProto(
      spec.has_selector() ? &spec.selector() : nullptr, "spec.selector");
  if (selector.ok()) {
    info.selector = *std::move(selector);
  } else {
    problems.emplace_back(selector.status().message());
    info.selector = LabelSelector::Everything();  // Fail closed.
  }
  ParsedSpec out;
  const bool has_min = IsSet(spec.has_min_available(), spec.min_available());
  const bool has_max =
      IsSet(spec.has_max_unavailable(), spec.max_unavailable());
  if (has_min) {
    out.min_available =
        ParseAmount(spec.min_available(), "spec.minAvailable", problems);
  }
  if (has_max) {
    out.max_unavailable =
        ParseAmount(spec.max_unavailable(), "spec.maxUnavailable", problems);
  }
  if (has_min && has_max) {
    problems.push_back(
        "spec: minAvailable and maxUnavailable cannot be both set");
  }
  const std::string& policy = spec.unhealthy_pod_eviction_policy();
  if (!policy.empty() && policy != "IfHealthyBudget" &&
      policy != "AlwaysAllow") {
    problems.push_back(absl::StrCat(
        "spec.unhealthyPodEvictionPolicy: \"", policy,
        "\": must be one of \"IfHealthyBudget\", \"AlwaysAllow\""));
  }
  info.always_allow = policy == "AlwaysAllow";
  const IntOrPercent zero_pct = IntOrPercent::FromPercent(0);
  info.fully_blocking = (out.max_unavailable.has_value() &&
                         (*out.max_unavailable == IntOrPercent::FromInt(0) ||
                          *out.max_unavailable == zero_pct)) ||
                        (out.min_available.has_value() &&
                         *out.min_available == IntOrPercent::FromPercent(100));
  if (!problems.empty()) {
    info.error = absl::InvalidArgumentError(
        absl::StrCat("policy/v1 PodDisruptionBudget ", info.name, ": ",
                     absl::StrJoin(problems, "; ")));
  }
  return out;
}

// See "Status presence" in pdb.h.
bool StatusPresent(const v1::PodDisruptionBudgetStatus& s) {
  return s.observed_generation() > 0 || s.disruptions_allowed() != 0 ||
         s.current_healthy() != 0 || s.desired_healthy() != 0 ||
         s.expected_pods() != 0 || s.conditions_size() > 0;
}

// disruption.go: desiredHealthy from the spec and the expected count, then
// allowed = healthy - desired, 0 when nothing is expected or it is negative.
// The amounts are validated (0..100%, int32), so Scale cannot overflow.
void ComputeAllowed(const ParsedSpec& spec, PdbInfo& info) {
  int64_t desired = 0;
  if (spec.max_unavailable.has_value()) {
    const int64_t max_unavailable =
        spec.max_unavailable->Scale(info.expected_pods, true).value_or(0);
    desired = std::max<int64_t>(info.expected_pods - max_unavailable, 0);
  } else if (spec.min_available.has_value()) {
    desired = spec.min_available->Scale(info.expected_pods, true).value_or(0);
  } else {
    // policy/v1 has no default (v1beta1 defaulted minAvailable to 1): the
    // controller leaves expectedCount at 0, so nothing is allowed.
    info.expected_pods = 0;
  }
  info.desired_healthy = desired;
  const int64_t allowed = info.current_healthy - desired;
  info.disruptions_allowed =
      (info.expected_pods <= 0 || allowed <= 0) ? 0 : allowed;
}

bool IsBucketOp(LabelSelector::Operator op) {
  return op == LabelSelector::Operator::kEquals ||
         op == LabelSelector::Operator::kIn;
}

const LabelSelector::Requirement* BucketRequirement(const LabelSelector& s,
                                                    absl::string_view key) {
  for (const LabelSelector::Requirement& r : s.requirements()) {
    if (r.key == key && IsBucketOp(r.op)) return &r;
  }
  return nullptr;
}

// The In/Equals key most PDBs of the namespace require; "" if none.
absl::string_view MostCommonKey(absl::Span<const uint32_t> pdb_ids,
                                const std::vector<PdbInfo>& pdbs) {
  // Ordered: ties pick the least key.
  std::map<absl::string_view, int> key_counts;
  for (uint32_t id : pdb_ids) {
    for (const LabelSelector::Requirement& r :
         pdbs[id].selector.requirements()) {
      if (IsBucketOp(r.op)) ++key_counts[r.key];
    }
  }
  absl::string_view best_key;
  int best = 0;
  for (const auto& [key, count] : key_counts) {
    if (count > best) {
      best = count;
      best_key = key;
    }
  }
  return best_key;
}

NamespaceBuckets BuildBuckets(absl::Span<const uint32_t> pdb_ids,
                              const std::vector<PdbInfo>& pdbs) {
  NamespaceBuckets out;
  out.key = std::string(MostCommonKey(pdb_ids, pdbs));
  std::vector<std::pair<absl::string_view, Candidate>> entries;
  for (uint32_t id : pdb_ids) {
    const LabelSelector& selector = pdbs[id].selector;
    const LabelSelector::Requirement* r =
        out.key.empty() ? nullptr : BucketRequirement(selector, out.key);
    if (r == nullptr) {
      out.rest.push_back(id);
      continue;
    }
    const bool exact = selector.requirements().size() == 1;
    for (const std::string& v : r->values) entries.push_back({v, {id, exact}});
  }
  // By value, then PDB id (pdb_ids ascend), so each bucket is in order.
  std::stable_sort(
      entries.begin(), entries.end(),
      [](const auto& a, const auto& b) { return a.first < b.first; });
  out.candidates.reserve(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i == 0 || entries[i].first != entries[i - 1].first) {
      out.by_value[entries[i].first] = {static_cast<uint32_t>(i),
                                        static_cast<uint32_t>(i)};
    }
    ++out.by_value[entries[i].first].second;
    out.candidates.push_back(entries[i].second);
  }
  return out;
}

// The bucket of `labels`' value for the bucket key; empty if none.
absl::Span<const Candidate> BucketOf(
    const NamespaceBuckets& b,
    const google::protobuf::Map<std::string, std::string>& labels) {
  if (b.by_value.empty()) return {};
  auto label = labels.find(b.key);
  if (label == labels.end()) return {};
  auto it = b.by_value.find(label->second);
  if (it == b.by_value.end()) return {};
  return absl::MakeConstSpan(b.candidates.data() + it->second.first,
                             b.candidates.data() + it->second.second);
}

}  // namespace

absl::string_view EvictionVerdictName(EvictionVerdict v) {
  switch (v) {
    case EvictionVerdict::kNotEvictable:
      return "NotEvictable";
    case EvictionVerdict::kNoPdb:
      return "NoPdb";
    case EvictionVerdict::kAllowed:
      return "Allowed";
    case EvictionVerdict::kUnhealthyAlwaysAllow:
      return "UnhealthyAlwaysAllow";
    case EvictionVerdict::kNoDisruptionsAllowed:
      return "NoDisruptionsAllowed";
    case EvictionVerdict::kMisconfigured:
      return "Misconfigured";
    case EvictionVerdict::kInvalidPdb:
      return "InvalidPdb";
  }
  return "Unknown";
}

bool PodReadyIsFalse(const v1::Pod& pod) {
  return ConditionStatus(pod.status().conditions(),
                         well_known::kConditionTypeReady) ==
         well_known::kConditionFalse;
}

bool PodIsHealthy(const v1::Pod& pod) {
  if (pod.metadata().has_deletion_timestamp()) return false;
  return IsConditionTrue(pod.status().conditions(),
                         well_known::kConditionTypeReady);
}

PdbIndex::PdbIndex() = default;
PdbIndex::PdbIndex(const PdbIndex&) = default;
PdbIndex& PdbIndex::operator=(const PdbIndex&) = default;
PdbIndex::PdbIndex(PdbIndex&&) noexcept = default;
PdbIndex& PdbIndex::operator=(PdbIndex&&) noexcept = default;
PdbIndex::~PdbIndex() = default;

PdbIndex PdbIndex::Build(const Snapshot& snapshot) {
  return Build(snapshot, nullptr);
}

namespace {

// The namespace names of `snapshot`, by id.
bool SameNamespaces(const Snapshot& snapshot,
                    const std::vector<std::string>& names) {
  if (names.size() != snapshot.namespace_count()) return false;
  for (snapshot::NamespaceId ns = 0; ns < names.size(); ++ns) {
    if (snapshot.NamespaceName(ns) != names[ns]) return false;
  }
  return true;
}

// Parses `snapshot`'s PDBs, or takes `same`'s specs (parsed from the same
// PDBs), and buckets them by `snapshot`'s namespaces.
std::shared_ptr<const ParsedPdbs> Parse(const Snapshot& snapshot,
                                        const ParsedPdbs* same) {
  auto parsed = std::make_shared<ParsedPdbs>();
  const auto all = snapshot.pdbs();
  if (same != nullptr) {
    parsed->base = same->base;
    parsed->specs = same->specs;
    parsed->needs_count = same->needs_count;
  } else {
    parsed->base.resize(all.size());
    parsed->specs.resize(all.size());
    parsed->needs_count.resize(all.size());
    for (size_t i = 0; i < all.size(); ++i) {
      PdbInfo& info = parsed->base[i];
      info.name = absl::StrCat(all[i].metadata().namespace_(), "/",
                               all[i].metadata().name());
      parsed->specs[i] = ParseSpec(all[i], info);
      parsed->needs_count[i] = !StatusPresent(all[i].status());
    }
  }
  parsed->namespaces.reserve(snapshot.namespace_count());
  parsed->buckets.resize(snapshot.namespace_count());
  for (snapshot::NamespaceId ns = 0; ns < snapshot.namespace_count(); ++ns) {
    parsed->namespaces.emplace_back(snapshot.NamespaceName(ns));
    parsed->buckets[ns] =
        BuildBuckets(snapshot.PdbsInNamespace(ns), parsed->base);
  }
  return parsed;
}

}  // namespace

PdbIndex PdbIndex::Build(const Snapshot& snapshot, const PdbIndex* same_pdbs,
                         absl::Span<const uint32_t> same_shapes) {
  PdbIndex index;
  const auto all = snapshot.pdbs();
  const ParsedPdbs* const same =
      same_pdbs != nullptr ? same_pdbs->parsed_.get() : nullptr;
  if (same != nullptr && SameNamespaces(snapshot, same->namespaces)) {
    index.parsed_ = same_pdbs->parsed_;
  } else {
    index.parsed_ = Parse(snapshot, same);
  }
  const ParsedPdbs& parsed = *index.parsed_;

  std::vector<int64_t> selected(all.size(), 0), healthy(all.size(), 0);
  // Shape matches carry over with the very PDBs and namespace numbering.
  const bool shapes_carry = same_pdbs != nullptr &&
                            index.parsed_ == same_pdbs->parsed_ &&
                            same_pdbs->shapes_ != nullptr &&
                            same_shapes.size() == snapshot.pod_shape_count();
  index.IndexPods(snapshot, parsed,
                  shapes_carry ? same_pdbs->shapes_.get() : nullptr,
                  shapes_carry ? same_shapes : absl::Span<const uint32_t>(),
                  selected, healthy);

  // Counts are all that can differ from the same PDBs' earlier index.
  if (same_pdbs != nullptr && index.parsed_ == same_pdbs->parsed_) {
    const absl::Span<const PdbInfo> before = same_pdbs->pdbs();
    bool same_counts = before.size() == all.size();
    for (size_t i = 0; same_counts && i < all.size(); ++i) {
      if (!parsed.needs_count[i]) continue;
      PdbInfo counted;  // Allocates nothing.
      counted.expected_pods = selected[i];
      counted.current_healthy = healthy[i];
      ComputeAllowed(parsed.specs[i], counted);
      if (!parsed.base[i].error.ok()) counted.disruptions_allowed = 0;
      same_counts =
          before[i].expected_pods == counted.expected_pods &&
          before[i].current_healthy == counted.current_healthy &&
          before[i].desired_healthy == counted.desired_healthy &&
          before[i].disruptions_allowed == counted.disruptions_allowed;
    }
    if (same_counts) {
      index.pdbs_ = same_pdbs->pdbs_;
      return index;
    }
  }
  auto infos = std::make_shared<std::vector<PdbInfo>>();
  std::vector<PdbInfo>& out = *infos;
  out.reserve(all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    PdbInfo info = parsed.base[i];
    const v1::PodDisruptionBudgetStatus& status = all[i].status();
    if (!parsed.needs_count[i]) {
      info.from_status = true;
      info.disruptions_allowed = status.disruptions_allowed();
      info.expected_pods = status.expected_pods();
      info.current_healthy = status.current_healthy();
      info.desired_healthy = status.desired_healthy();
    } else {
      info.expected_pods = selected[i];
      info.current_healthy = healthy[i];
      ComputeAllowed(parsed.specs[i], info);
    }
    if (!info.error.ok()) info.disruptions_allowed = 0;
    out.push_back(std::move(info));
  }
  index.pdbs_ = std::move(infos);
  return index;
}

void PdbIndex::IndexPods(const Snapshot& snapshot, const ParsedPdbs& parsed,
                         const ShapeMatches* same,
                         absl::Span<const uint32_t> same_shapes,
                         std::vector<int64_t>& selected,
                         std::vector<int64_t>& healthy) {
  const std::vector<NamespaceBuckets>& buckets = parsed.buckets;
  const std::vector<bool>& needs_count = parsed.needs_count;
  const std::vector<PdbInfo>& pdbs = parsed.base;
  const size_t pod_count = snapshot.pod_count();
  pod_shapes_.resize(pod_count);
  // Which PDBs select a pod depends on its namespace and labels, which are
  // its shape's (snapshot.h): matched once per shape, or taken from `same`.
  auto matches = std::make_shared<ShapeMatches>();
  std::vector<ShapeMatches::Match>& shapes = matches->by_shape;
  std::vector<uint32_t>& shape_pdbs = matches->pdbs;
  shapes.resize(snapshot.pod_shape_count());
  for (PodIndex p = 0; p < pod_count; ++p) {
    const uint32_t shape = snapshot.PodShapeId(p);
    pod_shapes_[p] = shape;
    ShapeMatches::Match& match = shapes[shape];
    if (match.first == ShapeMatches::kUnmatched) {
      const size_t first = shape_pdbs.size();
      const uint32_t old =
          same != nullptr ? same_shapes[shape] : ShapeMatches::kUnmatched;
      if (old != ShapeMatches::kUnmatched &&
          same->by_shape[old].first != ShapeMatches::kUnmatched) {
        const ShapeMatches::Match& was = same->by_shape[old];
        shape_pdbs.insert(shape_pdbs.end(), same->pdbs.begin() + was.first,
                          same->pdbs.begin() + was.first + was.size);
        match.count = was.count;
      } else {
        const NamespaceBuckets& b = buckets[snapshot.NamespaceOfPod(p)];
        const auto& labels = snapshot.PodShape(p).metadata().labels();
        const absl::Span<const Candidate> candidates = BucketOf(b, labels);
        for (const Candidate& c : candidates) {
          if (c.exact || pdbs[c.id].selector.Matches(labels)) {
            shape_pdbs.push_back(c.id);
          }
        }
        for (uint32_t id : b.rest) {
          if (pdbs[id].selector.Matches(labels)) shape_pdbs.push_back(id);
        }
        if (!candidates.empty() && !b.rest.empty()) {
          std::sort(shape_pdbs.begin() + static_cast<std::ptrdiff_t>(first),
                    shape_pdbs.end());
        }
        for (size_t k = first; k < shape_pdbs.size(); ++k) {
          match.count = match.count || needs_count[shape_pdbs[k]];
        }
      }
      match.first = static_cast<uint32_t>(first);
      match.size = static_cast<uint32_t>(shape_pdbs.size() - first);
    }
    // Reading the pod's conditions is a cache miss; only pay it when a PDB
    // without status needs the count.
    if (match.count) {
      const auto ids =
          absl::MakeConstSpan(shape_pdbs).subspan(match.first, match.size);
      const bool ok =
          !snapshot.PodShape(p).metadata().has_deletion_timestamp() &&
          snapshot.PodReadyCondition(p) == snapshot::PodReady::kTrue;
      for (uint32_t id : ids) {
        ++selected[id];
        if (ok) ++healthy[id];
      }
    }
  }
  shapes_ = std::move(matches);
}

absl::Span<const snapshot::PdbIndex> PdbIndex::PdbsOfPod(PodIndex p) const {
  if (shapes_ == nullptr) return {};
  // A pod's PDBs are its shape's (its namespace and labels).
  const ShapeMatches::Match& match = shapes_->by_shape[pod_shapes_[p]];
  return absl::MakeConstSpan(shapes_->pdbs).subspan(match.first, match.size);
}

std::vector<absl::Status> PdbIndex::errors() const {
  std::vector<absl::Status> out;
  for (const PdbInfo& info : pdbs()) {
    if (!info.error.ok()) out.push_back(info.error);
  }
  return out;
}

bool PdbIndex::IsFullyBlocked(PodIndex p) const {
  for (uint32_t id : PdbsOfPod(p)) {
    if (pdbs()[id].fully_blocking) return true;
  }
  return false;
}

EvictionCheck PdbIndex::CanEvict(const Snapshot& snapshot, PodIndex p,
                                 bool evictable) const {
  EvictionCheck out;
  const absl::Span<const snapshot::PdbIndex> ids = PdbsOfPod(p);
  if (!evictable) {
    out.verdict = EvictionVerdict::kNotEvictable;
    return out;
  }
  if (ids.empty()) {
    out.verdict = EvictionVerdict::kNoPdb;
    return out;
  }
  if (ids.size() > 1) {
    out.verdict = EvictionVerdict::kMisconfigured;
    for (uint32_t id : ids) out.blocking_pdbs.push_back(pdbs()[id].name);
    return out;
  }
  const PdbInfo& pdb = pdbs()[ids[0]];
  if (!pdb.error.ok()) {
    out.verdict = EvictionVerdict::kInvalidPdb;
  } else if (pdb.always_allow &&
             snapshot.PodReadyCondition(p) == snapshot::PodReady::kFalse) {
    out.verdict = EvictionVerdict::kUnhealthyAlwaysAllow;
    return out;
  } else if (pdb.disruptions_allowed <= 0) {
    out.verdict = EvictionVerdict::kNoDisruptionsAllowed;
  } else {
    out.verdict = EvictionVerdict::kAllowed;
    return out;
  }
  out.blocking_pdbs.push_back(pdb.name);
  return out;
}

}  // namespace karpenter::budget
