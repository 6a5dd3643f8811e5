// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#include "karpenter/scheduling/pod_topology.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "karpenter/drain/classify.h"
#include "karpenter/well_known.h"

namespace karpenter::scheduling {
namespace {

namespace pb = ::google::protobuf;

constexpr absl::string_view kSpreadPath = "spec.topologySpreadConstraints";
constexpr absl::string_view kAffinityPath =
    "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution";
constexpr absl::string_view kAntiAffinityPath =
    "spec.affinity.podAntiAffinity."
    "requiredDuringSchedulingIgnoredDuringExecution";

// framework.MaxNodeScore.
constexpr int64_t kMaxNodeScore = 100;

constexpr absl::string_view kSpreadMismatch = kSpreadMismatchMessage;
constexpr absl::string_view kAffinityMismatch = kAffinityMismatchMessage;
constexpr absl::string_view kAntiAffinityMismatch =
    kAntiAffinityMismatchMessage;
constexpr absl::string_view kExistingAntiAffinityMismatch =
    kExistingAntiAffinityMismatchMessage;

// `selector` ANDed with `key In [value]` (or NotIn) for each of `keys` that
// `labels` has, compiled. A nil selector stays nil.
absl::StatusOr<LabelSelector> MergedSelector(
    const v1::LabelSelector* selector,
    const pb::RepeatedPtrField<std::string>& match_keys,
    const pb::RepeatedPtrField<std::string>& mismatch_keys,
    const pb::Map<std::string, std::string>& labels, absl::string_view path) {
  if (selector == nullptr || (match_keys.empty() && mismatch_keys.empty())) {
    return LabelSelector::FromProto(selector, path);
  }
  v1::LabelSelector merged = *selector;
  const auto add = [&](const std::string& key, const char* op) {
    const auto it = labels.find(key);
    if (it == labels.end()) return;
    v1::LabelSelectorRequirement& r = *merged.add_match_expressions();
    r.set_key(key);
    r.set_operator_(op);
    r.add_values(it->second);
  };
  for (const std::string& key : match_keys) add(key, "In");
  for (const std::string& key : mismatch_keys) add(key, "NotIn");
  return LabelSelector::FromProto(&merged, path);
}

// With `widen`, a namespaceSelector on namespace labels other than
// kubernetes.io/metadata.name is taken to select every namespace instead of
// failing with kUnimplemented.
absl::StatusOr<AffinityTerm> CompileTerm(const v1::PodAffinityTerm& term,
                                         const v1::Pod& owner,
                                         const std::string& path,
                                         bool widen = false) {
  AffinityTerm out;
  if (term.topology_key().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ".topologyKey: must not be empty"));
  }
  out.topology_key = term.topology_key();
  absl::StatusOr<LabelSelector> selector = MergedSelector(
      term.has_label_selector() ? &term.label_selector() : nullptr,
      term.match_label_keys(), term.mismatch_label_keys(),
      owner.metadata().labels(), absl::StrCat(path, ".labelSelector"));
  if (!selector.ok()) return selector.status();
  out.pods.selector = *std::move(selector);
  for (const std::string& ns : term.namespaces()) {
    out.pods.namespaces.push_back(ns);
  }
  if (term.has_namespace_selector()) {
    const std::string ns_path = absl::StrCat(path, ".namespaceSelector");
    absl::StatusOr<LabelSelector> ns_selector =
        LabelSelector::FromProto(&term.namespace_selector(), ns_path);
    if (!ns_selector.ok()) return ns_selector.status();
    if (ns_selector->MatchesEverything()) {
      out.pods.all_namespaces = true;
    } else {
      for (const LabelSelector::Requirement& r : ns_selector->requirements()) {
        if (r.key != well_known::kLabelMetadataName && widen) {
          out.pods.all_namespaces = true;
          break;
        }
        if (r.key != well_known::kLabelMetadataName) {
          return absl::UnimplementedError(absl::StrFormat(
              "%s: selects namespaces by label \"%s\"; Namespace objects are "
              "not read, only %s can be evaluated",
              ns_path, r.key, well_known::kLabelMetadataName));
        }
      }
      if (!out.pods.all_namespaces) {
        out.pods.namespace_selector = *std::move(ns_selector);
      }
    }
  } else if (term.namespaces().empty()) {
    out.pods.namespaces.push_back(owner.metadata().namespace_());
  }
  std::sort(out.pods.namespaces.begin(), out.pods.namespaces.end());
  out.pods.namespaces.erase(
      std::unique(out.pods.namespaces.begin(), out.pods.namespaces.end()),
      out.pods.namespaces.end());
  return out;
}

absl::StatusOr<std::vector<AffinityTerm>> CompileTerms(
    const pb::RepeatedPtrField<v1::PodAffinityTerm>& terms,
    const v1::Pod& owner, absl::string_view path, bool widen = false) {
  std::vector<AffinityTerm> out;
  for (int i = 0; i < terms.size(); ++i) {
    absl::StatusOr<AffinityTerm> t =
        CompileTerm(terms[i], owner, absl::StrCat(path, "[", i, "]"), widen);
    if (!t.ok()) return t.status();
    out.push_back(*std::move(t));
  }
  return out;
}

absl::Status CheckPolicy(const std::optional<std::string>& policy,
                         const std::string& field) {
  if (!policy.has_value() || *policy == "Honor" || *policy == "Ignore") {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrFormat(
      "%s: must be \"Honor\" or \"Ignore\", got \"%s\"", field, *policy));
}

const pb::RepeatedPtrField<v1::PodAffinityTerm>& RequiredAntiAffinity(
    const v1::Pod& pod) {
  return pod.spec()
      .affinity()
      .pod_anti_affinity()
      .required_during_scheduling_ignored_during_execution();
}

// The required anti-affinity terms of a pod already placed, as they act on
// pods after it: a namespaceSelector that cannot be evaluated is widened to
// every namespace, so that such a pod keeps away more pods than
// kube-scheduler might, never fewer.
absl::StatusOr<std::vector<AffinityTerm>> CompileHolderTerms(
    const v1::Pod& pod) {
  return CompileTerms(RequiredAntiAffinity(pod), pod, kAntiAffinityPath,
                      /*widen=*/true);
}

}  // namespace

bool PodSelectorClause::MatchesNamespace(absl::string_view ns) const {
  if (all_namespaces) return true;
  if (std::binary_search(namespaces.begin(), namespaces.end(), ns)) {
    return true;
  }
  if (!namespace_selector.has_value()) return false;
  return namespace_selector->Matches(
      [&](absl::string_view key) -> absl::optional<absl::string_view> {
        if (key == well_known::kLabelMetadataName) return ns;
        return absl::nullopt;
      });
}

bool PodSelectorClause::Matches(const v1::ObjectMeta& pod) const {
  if (!MatchesNamespace(pod.namespace_()) || !selector.Matches(pod.labels())) {
    return false;
  }
  if (controller_kind.empty()) return true;
  for (const v1::OwnerReference& ref : pod.owner_references()) {
    if (ref.controller() && ref.kind() == controller_kind &&
        ref.name() == controller_name) {
      return true;
    }
  }
  return false;
}

std::string PodSelectorClause::Key() const {
  std::string key = all_namespaces ? "*" : absl::StrJoin(namespaces, ",");
  if (namespace_selector.has_value()) {
    absl::StrAppend(&key, "|ns:", namespace_selector->ToString());
  }
  absl::StrAppend(&key, "|", selector.ToString());
  if (!controller_kind.empty()) {
    absl::StrAppend(&key, "|owner:", controller_kind, "/", controller_name);
  }
  return key;
}

absl::StatusOr<std::vector<AffinityTerm>> CompileAntiAffinityTerms(
    const v1::Pod& pod) {
  return CompileTerms(RequiredAntiAffinity(pod), pod, kAntiAffinityPath);
}

namespace {

// Every topology spread constraint of `pod`, compiled, each with whether it
// is DoNotSchedule.
absl::StatusOr<std::vector<std::pair<bool, SpreadConstraint>>>
CompileSpreadConstraints(const v1::Pod& pod) {
  std::vector<std::pair<bool, SpreadConstraint>> out;
  const v1::PodSpec& spec = pod.spec();
  const auto& labels = pod.metadata().labels();
  for (int i = 0; i < spec.topology_spread_constraints_size(); ++i) {
    const v1::TopologySpreadConstraint& c = spec.topology_spread_constraints(i);
    const std::string path = absl::StrCat(kSpreadPath, "[", i, "]");
    const std::string& when = c.when_unsatisfiable();
    if (!when.empty() && when != "DoNotSchedule" && when != "ScheduleAnyway") {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s.whenUnsatisfiable: must be \"DoNotSchedule\" or "
                          "\"ScheduleAnyway\", got \"%s\"",
                          path, when));
    }
    if (c.max_skew() < 1) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s.maxSkew: must be greater than zero, got %d", path, c.max_skew()));
    }
    if (c.topology_key().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ".topologyKey: must not be empty"));
    }
    if (c.has_min_domains() && c.min_domains() < 1) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s.minDomains: must be greater than zero, got %d",
                          path, c.min_domains()));
    }
    const std::optional<std::string> affinity_policy =
        c.has_node_affinity_policy()
            ? std::optional<std::string>(c.node_affinity_policy())
            : std::nullopt;
    const std::optional<std::string> taints_policy =
        c.has_node_taints_policy()
            ? std::optional<std::string>(c.node_taints_policy())
            : std::nullopt;
    if (absl::Status s =
            CheckPolicy(affinity_policy, path + ".nodeAffinityPolicy");
        !s.ok()) {
      return s;
    }
    if (absl::Status s = CheckPolicy(taints_policy, path + ".nodeTaintsPolicy");
        !s.ok()) {
      return s;
    }
    absl::StatusOr<LabelSelector> selector = MergedSelector(
        c.has_label_selector() ? &c.label_selector() : nullptr,
        c.match_label_keys(), {}, labels, path + ".labelSelector");
    if (!selector.ok()) return selector.status();
    SpreadConstraint sc;
    sc.max_skew = c.max_skew();
    sc.topology_key = c.topology_key();
    sc.min_domains = c.has_min_domains() ? c.min_domains() : 1;
    sc.honor_node_affinity = affinity_policy.value_or("Honor") == "Honor";
    sc.honor_node_taints = taints_policy.value_or("Ignore") == "Honor";
    sc.pods.namespaces = {pod.metadata().namespace_()};
    sc.pods.selector = *std::move(selector);
    sc.self_match = sc.pods.selector.Matches(labels);
    out.emplace_back(when != "ScheduleAnyway", std::move(sc));
  }
  return out;
}

bool HasNodeAffinity(const v1::PodSpec& spec) {
  return !spec.node_selector().empty() ||
         spec.affinity()
             .node_affinity()
             .has_required_during_scheduling_ignored_during_execution();
}

// The controllers whose pods kube-scheduler's default spreading counts
// (helper.DefaultSelector: ReplicationController, ReplicaSet,
// StatefulSet).
const v1::OwnerReference* SpreadingController(const v1::Pod& pod) {
  for (const v1::OwnerReference& ref : pod.metadata().owner_references()) {
    if (!ref.controller()) continue;
    const bool rc =
        ref.kind() == "ReplicationController" && ref.api_version() == "v1";
    const bool apps =
        (ref.kind() == "ReplicaSet" || ref.kind() == "StatefulSet") &&
        ref.api_version() == "apps/v1";
    return rc || apps ? &ref : nullptr;
  }
  return nullptr;
}

absl::StatusOr<std::vector<WeightedTerm>> CompileWeightedTerms(
    const pb::RepeatedPtrField<v1::WeightedPodAffinityTerm>& terms,
    const v1::Pod& owner, absl::string_view path, bool widen = false) {
  std::vector<WeightedTerm> out;
  for (int i = 0; i < terms.size(); ++i) {
    const std::string at = absl::StrCat(path, "[", i, "]");
    if (terms[i].weight() < 1 || terms[i].weight() > 100) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s.weight: must be in the range 1-100, got %d", at,
                          terms[i].weight()));
    }
    absl::StatusOr<AffinityTerm> t = CompileTerm(
        terms[i].pod_affinity_term(), owner, at + ".podAffinityTerm", widen);
    if (!t.ok()) return t.status();
    out.push_back({*std::move(t), terms[i].weight()});
  }
  return out;
}

constexpr absl::string_view kPreferredAffinityPath =
    "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution";
constexpr absl::string_view kPreferredAntiAffinityPath =
    "spec.affinity.podAntiAffinity."
    "preferredDuringSchedulingIgnoredDuringExecution";

// The terms of pod `holder` that score pods placed after it, with signed
// weights (interpodaffinity/scoring.go processExistingPod). Terms that do
// not compile are left out: they only score.
std::vector<WeightedTerm> HolderScoringTerms(const v1::Pod& holder) {
  std::vector<WeightedTerm> out;
  const v1::Affinity& a = holder.spec().affinity();
  for (const v1::PodAffinityTerm& t :
       a.pod_affinity().required_during_scheduling_ignored_during_execution()) {
    absl::StatusOr<AffinityTerm> c = CompileTerm(t, holder, "");
    if (c.ok()) out.push_back({*std::move(c), 1});  // hardPodAffinityWeight.
  }
  for (const v1::WeightedPodAffinityTerm& t :
       a.pod_affinity()
           .preferred_during_scheduling_ignored_during_execution()) {
    absl::StatusOr<AffinityTerm> c =
        CompileTerm(t.pod_affinity_term(), holder, "");
    if (c.ok()) out.push_back({*std::move(c), t.weight()});
  }
  for (const v1::WeightedPodAffinityTerm& t :
       a.pod_anti_affinity()
           .preferred_during_scheduling_ignored_during_execution()) {
    absl::StatusOr<AffinityTerm> c =
        CompileTerm(t.pod_affinity_term(), holder, "");
    if (c.ok()) out.push_back({*std::move(c), -t.weight()});
  }
  return out;
}

bool HasScoringTerms(const v1::Pod& pod) {
  const v1::Affinity& a = pod.spec().affinity();
  return !a.pod_affinity()
              .required_during_scheduling_ignored_during_execution()
              .empty() ||
         !a.pod_affinity()
              .preferred_during_scheduling_ignored_during_execution()
              .empty() ||
         !a.pod_anti_affinity()
              .preferred_during_scheduling_ignored_during_execution()
              .empty();
}

}  // namespace

absl::StatusOr<PodScoring> CompilePodScoring(const v1::Pod& pod) {
  PodScoring out;
  absl::StatusOr<std::vector<std::pair<bool, SpreadConstraint>>> spread =
      CompileSpreadConstraints(pod);
  if (!spread.ok()) return spread.status();
  for (auto& [hard, sc] : *spread) {
    if (!hard) out.spread.push_back(std::move(sc));
  }
  if (pod.spec().topology_spread_constraints().empty()) {
    if (const v1::OwnerReference* owner = SpreadingController(pod)) {
      // podtopologyspread/plugin.go systemDefaultConstraints.
      for (const auto& [key, skew] : {std::pair<absl::string_view, int32_t>{
                                          well_known::kLabelHostname, 3},
                                      {well_known::kLabelTopologyZone, 5}}) {
        SpreadConstraint sc;
        sc.max_skew = skew;
        sc.topology_key = std::string(key);
        sc.pods.namespaces = {pod.metadata().namespace_()};
        sc.pods.selector = LabelSelector::Everything();
        sc.pods.controller_kind = owner->kind();
        sc.pods.controller_name = owner->name();
        sc.self_match = true;
        out.spread.push_back(std::move(sc));
      }
      out.system_defaults = true;
    }
  }
  const v1::Affinity& a = pod.spec().affinity();
  absl::StatusOr<std::vector<WeightedTerm>> affinity = CompileWeightedTerms(
      a.pod_affinity().preferred_during_scheduling_ignored_during_execution(),
      pod, kPreferredAffinityPath);
  if (!affinity.ok()) return affinity.status();
  out.preferred_affinity = *std::move(affinity);
  absl::StatusOr<std::vector<WeightedTerm>> anti = CompileWeightedTerms(
      a.pod_anti_affinity()
          .preferred_during_scheduling_ignored_during_execution(),
      pod, kPreferredAntiAffinityPath);
  if (!anti.ok()) return anti.status();
  out.preferred_anti_affinity = *std::move(anti);
  out.has_node_affinity = HasNodeAffinity(pod.spec());
  return out;
}

absl::StatusOr<PodConstraints> CompilePodConstraints(const v1::Pod& pod) {
  PodConstraints out;
  const v1::PodSpec& spec = pod.spec();
  absl::StatusOr<std::vector<std::pair<bool, SpreadConstraint>>> spread =
      CompileSpreadConstraints(pod);
  if (!spread.ok()) return spread.status();
  for (auto& [hard, sc] : *spread) {
    if (hard) out.spread.push_back(std::move(sc));
  }
  absl::StatusOr<std::vector<AffinityTerm>> affinity =
      CompileTerms(spec.affinity()
                       .pod_affinity()
                       .required_during_scheduling_ignored_during_execution(),
                   pod, kAffinityPath);
  if (!affinity.ok()) return affinity.status();
  out.affinity = *std::move(affinity);
  absl::StatusOr<std::vector<AffinityTerm>> anti =
      CompileAntiAffinityTerms(pod);
  if (!anti.ok()) return anti.status();
  out.anti_affinity = *std::move(anti);
  out.has_node_affinity = HasNodeAffinity(spec);
  out.self_matches_affinity = true;
  for (const AffinityTerm& t : out.affinity) {
    if (!t.pods.Matches(pod.metadata())) {
      out.self_matches_affinity = false;
    }
  }
  return out;
}

// --- TopologyIndex ---------------------------------------------------------

struct TopologyIndex::Caches {
  std::mutex mu;
  std::map<std::string, std::unique_ptr<Domains>, std::less<>> domains;
  std::map<std::string, std::unique_ptr<std::vector<PodIndex>>, std::less<>>
      members;
  // By pod shape id.
  absl::flat_hash_map<uint32_t, std::unique_ptr<std::vector<int32_t>>>
      selecting;
  std::unique_ptr<std::vector<ScoringHolders>> scoring_holders;
};

TopologyIndex::~TopologyIndex() = default;

std::unique_ptr<TopologyIndex> TopologyIndex::Build(
    const snapshot::Snapshot& snap) {
  return Build(snap, nullptr, {});
}

std::unique_ptr<TopologyIndex> TopologyIndex::Build(
    const snapshot::Snapshot& snap, const TopologyIndex* from,
    absl::Span<const uint32_t> same_shapes) {
  std::unique_ptr<TopologyIndex> index(new TopologyIndex());
  index->snap_ = &snap;
  index->caches_ = std::make_unique<Caches>();
  const size_t pods = snap.pod_count();
  index->flags_.assign(pods, 0);
  std::vector<uint32_t> per_ns(snap.namespace_count() + 1, 0);
  // Per shape: -1 unknown, else index into shape_terms.
  std::vector<int32_t>& shape_terms_of = index->shape_terms_of_;
  shape_terms_of.assign(snap.pod_shape_count(), -1);
  std::vector<std::vector<int32_t>>& shape_terms = index->shape_terms_;
  std::map<std::string, int32_t, std::less<>> group_ids;
  // Per shape, what the loop reads of it (all of it the shape's own):
  // known, terminal, terminating, and required anti-affinity terms; the
  // same shape's in `from`.
  enum : uint8_t { kKnown = 1, kTerminal = 2, kTerminating = 4, kAnti = 8 };
  std::vector<uint8_t>& shape_flags = index->shape_flags_;
  shape_flags.assign(snap.pod_shape_count(), 0);
  if (from != nullptr && same_shapes.size() == shape_flags.size()) {
    const std::vector<uint8_t>& was = from->shape_flags_;
    for (size_t id = 0; id < same_shapes.size(); ++id) {
      if (same_shapes[id] < was.size()) shape_flags[id] = was[same_shapes[id]];
    }
  }
  for (PodIndex p = 0; p < pods; ++p) {
    const uint32_t shape_id = snap.PodShapeId(p);
    uint8_t& sf = shape_flags[shape_id];
    if (sf == 0) {
      const v1::Pod& shape = snap.PodShape(p);
      sf = kKnown | (drain::IsTerminal(shape) ? kTerminal : 0) |
           (drain::IsTerminating(shape) ? kTerminating : 0) |
           (RequiredAntiAffinity(shape).empty() ? 0 : kAnti);
    }
    if (!snap.NodeOfPod(p).has_value() || (sf & kTerminal) != 0) continue;
    index->flags_[p] = kCounted | ((sf & kTerminating) != 0 ? kTerm : 0);
    ++per_ns[snap.NamespaceOfPod(p) + 1];
    if (shape_terms_of[shape_id] < 0 && (sf & kAnti) != 0) {
      const v1::Pod& shape = snap.PodShape(p);
      absl::StatusOr<std::vector<AffinityTerm>> terms =
          CompileHolderTerms(shape);
      if (!terms.ok()) terms = std::vector<AffinityTerm>();
      std::vector<int32_t> ids;
      for (AffinityTerm& t : *terms) {
        const std::string key = absl::StrCat(t.topology_key, "|", t.pods.Key());
        auto [it, inserted] = group_ids.try_emplace(
            key, static_cast<int32_t>(index->holders_.size()));
        if (inserted) index->holders_.push_back({std::move(t), {}});
        ids.push_back(it->second);
      }
      std::sort(ids.begin(), ids.end());
      ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
      shape_terms_of[shape_id] = static_cast<int32_t>(shape_terms.size());
      shape_terms.push_back(std::move(ids));
    }
    if (shape_terms_of[shape_id] >= 0) {
      for (int32_t g : shape_terms[shape_terms_of[shape_id]]) {
        index->holders_[g].holders.push_back(p);
      }
    }
  }
  for (size_t i = 1; i < per_ns.size(); ++i) per_ns[i] += per_ns[i - 1];
  index->ns_offsets_ = per_ns;
  index->ns_pods_.resize(per_ns.back());
  std::vector<uint32_t> next(per_ns.begin(), per_ns.end() - 1);
  for (PodIndex p = 0; p < pods; ++p) {
    if ((index->flags_[p] & kCounted) == 0) continue;
    index->ns_pods_[next[snap.NamespaceOfPod(p)]++] = p;
  }
  return index;
}

const TopologyIndex::Domains& TopologyIndex::DomainsOf(
    absl::string_view key) const {
  std::lock_guard<std::mutex> lock(caches_->mu);
  auto it = caches_->domains.find(key);
  if (it != caches_->domains.end()) return *it->second;
  auto d = std::make_unique<Domains>();
  const auto nodes = snap_->nodes();
  d->of_node.assign(nodes.size(), -1);
  absl::flat_hash_map<absl::string_view, int32_t> ids;
  const std::string k(key);
  for (NodeIndex n = 0; n < nodes.size(); ++n) {
    const auto& labels = nodes[n].metadata().labels();
    const auto l = labels.find(k);
    if (l == labels.end()) continue;
    auto [id, inserted] =
        ids.try_emplace(l->second, static_cast<int32_t>(d->values.size()));
    if (inserted) d->values.push_back(l->second);
    d->of_node[n] = id->second;
  }
  return *caches_->domains.emplace(k, std::move(d)).first->second;
}

const std::vector<PodIndex>& TopologyIndex::Members(
    absl::Span<const PodSelectorClause* const> clauses,
    bool with_terminating) const {
  std::string key = with_terminating ? "T" : "R";
  for (const PodSelectorClause* c : clauses) {
    absl::StrAppend(&key, "&", c->Key());
  }
  std::lock_guard<std::mutex> lock(caches_->mu);
  auto it = caches_->members.find(key);
  if (it != caches_->members.end()) return *it->second;
  auto out = std::make_unique<std::vector<PodIndex>>();
  const auto consider = [&](PodIndex p, std::vector<int8_t>& by_shape) {
    if (!with_terminating && (flags_[p] & kTerm) != 0) return;
    int8_t& m = by_shape[snap_->PodShapeId(p)];
    if (m < 0) {
      const v1::Pod& shape = snap_->PodShape(p);
      m = 1;
      for (const PodSelectorClause* c : clauses) {
        if (!c->Matches(shape.metadata())) {
          m = 0;
          break;
        }
      }
    }
    if (m == 1) out->push_back(p);
  };
  if (!clauses.empty()) {
    std::vector<int8_t> by_shape(snap_->pod_shape_count(), -1);
    const PodSelectorClause& first = *clauses[0];
    if (first.all_namespaces || first.namespace_selector.has_value()) {
      for (PodIndex p : ns_pods_) consider(p, by_shape);
    } else {
      for (const std::string& ns : first.namespaces) {
        std::optional<snapshot::NamespaceId> id = snap_->FindNamespace(ns);
        if (!id.has_value()) continue;
        for (uint32_t i = ns_offsets_[*id]; i < ns_offsets_[*id + 1]; ++i) {
          consider(ns_pods_[i], by_shape);
        }
      }
    }
    std::sort(out->begin(), out->end());
  }
  return *caches_->members.emplace(std::move(key), std::move(out))
              .first->second;
}

const std::vector<int32_t>& TopologyIndex::HolderGroupsSelecting(
    PodIndex p) const {
  const uint32_t shape_id = snap_->PodShapeId(p);
  std::lock_guard<std::mutex> lock(caches_->mu);
  auto it = caches_->selecting.find(shape_id);
  if (it != caches_->selecting.end()) return *it->second;
  auto out = std::make_unique<std::vector<int32_t>>();
  const v1::Pod& shape = snap_->PodShape(p);
  for (size_t g = 0; g < holders_.size(); ++g) {
    if (holders_[g].term.pods.Matches(shape.metadata())) {
      out->push_back(static_cast<int32_t>(g));
    }
  }
  return *caches_->selecting.emplace(shape_id, std::move(out)).first->second;
}

const std::vector<TopologyIndex::ScoringHolders>&
TopologyIndex::scoring_holders() const {
  std::lock_guard<std::mutex> lock(caches_->mu);
  if (caches_->scoring_holders != nullptr) return *caches_->scoring_holders;
  auto out = std::make_unique<std::vector<ScoringHolders>>();
  // By shape id: -2 unknown, -1 no terms, else index into *out.
  std::vector<int32_t> group(snap_->pod_shape_count(), -2);
  for (PodIndex p = 0; p < snap_->pod_count(); ++p) {
    if ((flags_[p] & kCounted) == 0) continue;
    int32_t& g = group[snap_->PodShapeId(p)];
    if (g == -2) {
      const v1::Pod& shape = snap_->PodShape(p);
      std::vector<WeightedTerm> terms;
      if (HasScoringTerms(shape)) terms = HolderScoringTerms(shape);
      if (terms.empty()) {
        g = -1;
      } else {
        g = static_cast<int32_t>(out->size());
        out->push_back({std::move(terms), {}});
      }
    }
    if (g >= 0) (*out)[static_cast<size_t>(g)].pods.push_back(p);
  }
  caches_->scoring_holders = std::move(out);
  return *caches_->scoring_holders;
}

absl::Span<const int32_t> TopologyIndex::HolderGroupsOf(PodIndex p) const {
  // A counted pod's terms are its shape's.
  if (!Counted(p)) return {};
  const int32_t terms = shape_terms_of_[snap_->PodShapeId(p)];
  if (terms < 0) return {};
  return shape_terms_[static_cast<size_t>(terms)];
}

// --- TopologyState ---------------------------------------------------------

namespace {

// A group of pods counted in one state: the index's members, less the pods
// removed, plus those placed that match.
struct GroupState {
  std::vector<PodSelectorClause> clauses;
  bool with_terminating = false;
  const std::vector<PodIndex>* base = nullptr;
  std::vector<std::pair<PodIndex, NodeIndex>> added;
};

// Counts of one constraint or term over the domains of its key.
struct DomainCounts {
  const TopologyIndex::Domains* domains = nullptr;
  std::vector<int32_t> count;  // By domain id.
};

struct SpreadState {
  std::vector<DomainCounts> counts;  // By constraint.
  std::vector<int32_t> min;          // By constraint.
};

struct AffinityState {
  std::vector<DomainCounts> affinity;  // By affinity term.
  bool any_affinity_match = false;
  std::vector<DomainCounts> anti;  // By anti-affinity term.
  // Per topology key of existing pods' terms: blocked domains, and the key.
  std::vector<std::pair<const TopologyIndex::Domains*, std::vector<uint8_t>>>
      blocked;
  std::vector<std::string> blocked_keys;
};

struct PodCache {
  uint64_t version = 0;
  uint64_t node_version = 0;
  // Per spread constraint: nodes that count (all keys, policies).
  std::vector<std::vector<uint8_t>> eligible;
  std::vector<std::vector<uint8_t>> domain_exists;
  bool spread_valid = false;
  SpreadState spread;
  bool affinity_valid = false;
  AffinityState affinity;
};

}  // namespace

struct TopologyState::Impl {
  explicit Impl(const TopologyIndex& i) : index(i), snap(i.snapshot()) {
    removed_node.assign(snap.nodes().size(), 0);
  }

  const TopologyIndex& index;
  const snapshot::Snapshot& snap;
  std::vector<uint8_t> removed_node;
  absl::flat_hash_set<PodIndex> removed_pods;
  absl::flat_hash_map<PodIndex, NodeIndex> placed_at;
  std::vector<std::pair<PodIndex, NodeIndex>> placed;
  // Placed pods carrying anti-affinity terms, and their terms.
  struct PlacedHolder {
    PodIndex pod;
    NodeIndex node;
    std::vector<AffinityTerm> terms;
  };
  std::vector<PlacedHolder> placed_holders;
  std::map<std::string, std::unique_ptr<GroupState>, std::less<>> groups;
  // By shape id (low 32 bits) and variant (high 32 bits).
  absl::flat_hash_map<uint64_t, PodCache> pod_caches;
  uint64_t version = 1;
  uint64_t node_version = 1;
  // By incoming shape id: the (scoring holder group, term) pairs of the
  // index that select it.
  absl::flat_hash_map<uint32_t, std::vector<std::pair<size_t, size_t>>>
      scoring_selecting;
  // By shape id: the scoring terms of placed pods the index does not count.
  absl::flat_hash_map<uint32_t, std::vector<WeightedTerm>> placed_scoring;
  // Placed pods the index does not count whose own terms score later pods
  // (in placing order; a pod placed again appears again).
  std::vector<std::pair<PodIndex, NodeIndex>> placed_scoring_holders;

  // Where pod p counts now (nullopt: nowhere).
  std::optional<NodeIndex> NodeOf(PodIndex p) const {
    if (auto it = placed_at.find(p); it != placed_at.end()) return it->second;
    if (removed_pods.contains(p)) return std::nullopt;
    std::optional<NodeIndex> n = snap.NodeOfPod(p);
    if (!n.has_value() || removed_node[*n]) return std::nullopt;
    return n;
  }

  // Whether placed pod p is counted by g. A placed pod stands for the pod
  // scheduled there, which is not terminating even when p is (a
  // StatefulSet pod Karpenter reschedules while it terminates).
  bool GroupMatches(const GroupState& g, PodIndex p) const {
    const v1::Pod& shape = snap.PodShape(p);
    for (const PodSelectorClause& c : g.clauses) {
      if (!c.Matches(shape.metadata())) {
        return false;
      }
    }
    return true;
  }

  GroupState& Group(std::vector<const PodSelectorClause*> clauses,
                    bool with_terminating) {
    std::string key = with_terminating ? "T" : "R";
    for (const PodSelectorClause* c : clauses) {
      absl::StrAppend(&key, "&", c->Key());
    }
    auto it = groups.find(key);
    if (it != groups.end()) return *it->second;
    auto g = std::make_unique<GroupState>();
    for (const PodSelectorClause* c : clauses) g->clauses.push_back(*c);
    g->with_terminating = with_terminating;
    g->base = &index.Members(clauses, with_terminating);
    for (const auto& [p, n] : placed) {
      if (GroupMatches(*g, p)) g->added.emplace_back(p, n);
    }
    return *groups.emplace(std::move(key), std::move(g)).first->second;
  }

  // Calls f(node) for every pod of the group where it counts now.
  template <typename F>
  void ForEachMember(const GroupState& g, F f) const {
    for (PodIndex p : *g.base) {
      if (placed_at.contains(p) || removed_pods.contains(p)) continue;
      std::optional<NodeIndex> n = snap.NodeOfPod(p);
      if (n.has_value() && !removed_node[*n]) f(*n);
    }
    for (const auto& [p, n] : g.added) {
      // A placed pod may have been removed again, or its node since.
      auto it = placed_at.find(p);
      if (it != placed_at.end() && it->second == n && !removed_node[n]) f(n);
    }
  }

  PodCache& Cache(const IncomingPod& pod) {
    PodCache& c = pod_caches[uint64_t{snap.PodShapeId(pod.pod)} |
                             (uint64_t{pod.variant} << 32)];
    if (c.node_version != node_version) {
      c = PodCache();
      c.node_version = node_version;
    }
    if (c.version != version) {
      c.version = version;
      c.spread_valid = false;
      c.affinity_valid = false;
    }
    return c;
  }

  void ComputeEligibility(const IncomingPod& pod, PodCache& c) {
    const std::vector<SpreadConstraint>& spread = pod.constraints->spread;
    const size_t nodes = snap.nodes().size();
    std::vector<const TopologyIndex::Domains*> domains;
    for (const SpreadConstraint& sc : spread) {
      domains.push_back(&index.DomainsOf(sc.topology_key));
    }
    c.eligible.assign(spread.size(), std::vector<uint8_t>(nodes, 0));
    c.domain_exists.resize(spread.size());
    for (size_t i = 0; i < spread.size(); ++i) {
      c.domain_exists[i].assign(domains[i]->values.size(), 0);
    }
    for (NodeIndex n = 0; n < nodes; ++n) {
      if (removed_node[n]) continue;
      bool all_keys = true;
      for (const auto* d : domains) {
        if (d->of_node[n] < 0) all_keys = false;
      }
      if (!all_keys) continue;
      std::optional<bool> affinity;
      std::optional<bool> taints;
      for (size_t i = 0; i < spread.size(); ++i) {
        if (spread[i].honor_node_affinity &&
            pod.constraints->has_node_affinity) {
          if (!affinity.has_value()) affinity = pod.matches_node_affinity(n);
          if (!*affinity) continue;
        }
        if (spread[i].honor_node_taints) {
          if (!taints.has_value()) taints = pod.tolerates_node_taints(n);
          if (!*taints) continue;
        }
        c.eligible[i][n] = 1;
        c.domain_exists[i][domains[i]->of_node[n]] = 1;
      }
    }
  }

  const SpreadState& Spread(const IncomingPod& pod) {
    PodCache& c = Cache(pod);
    if (c.spread_valid) return c.spread;
    if (c.eligible.empty() && !pod.constraints->spread.empty()) {
      ComputeEligibility(pod, c);
    }
    const std::vector<SpreadConstraint>& spread = pod.constraints->spread;
    SpreadState& s = c.spread;
    s.counts.assign(spread.size(), DomainCounts());
    s.min.assign(spread.size(), 0);
    for (size_t i = 0; i < spread.size(); ++i) {
      DomainCounts& dc = s.counts[i];
      dc.domains = &index.DomainsOf(spread[i].topology_key);
      dc.count.assign(dc.domains->values.size(), 0);
      GroupState& g = Group({&spread[i].pods}, /*with_terminating=*/false);
      const std::vector<uint8_t>& eligible = c.eligible[i];
      ForEachMember(g, [&](NodeIndex n) {
        if (eligible[n]) ++dc.count[dc.domains->of_node[n]];
      });
      int64_t domains = 0;
      int32_t min = std::numeric_limits<int32_t>::max();
      for (size_t d = 0; d < dc.count.size(); ++d) {
        if (!c.domain_exists[i][d]) continue;
        ++domains;
        min = std::min(min, dc.count[d]);
      }
      s.min[i] = domains < spread[i].min_domains ? 0 : min;
    }
    c.spread_valid = true;
    return s;
  }

  DomainCounts CountTerms(std::vector<const PodSelectorClause*> clauses,
                          const std::string& key, bool* any) {
    DomainCounts dc;
    dc.domains = &index.DomainsOf(key);
    dc.count.assign(dc.domains->values.size(), 0);
    GroupState& g = Group(std::move(clauses), /*with_terminating=*/true);
    ForEachMember(g, [&](NodeIndex n) {
      const int32_t d = dc.domains->of_node[n];
      if (d < 0) return;
      ++dc.count[d];
      if (any != nullptr) *any = true;
    });
    return dc;
  }

  const AffinityState& Affinity(const IncomingPod& pod) {
    PodCache& c = Cache(pod);
    if (c.affinity_valid) return c.affinity;
    AffinityState& s = c.affinity;
    s = AffinityState();
    const PodConstraints& pc = *pod.constraints;
    std::vector<const PodSelectorClause*> all;
    for (const AffinityTerm& t : pc.affinity) all.push_back(&t.pods);
    for (const AffinityTerm& t : pc.affinity) {
      s.affinity.push_back(
          CountTerms(all, t.topology_key, &s.any_affinity_match));
    }
    for (const AffinityTerm& t : pc.anti_affinity) {
      s.anti.push_back(CountTerms({&t.pods}, t.topology_key, nullptr));
    }
    // Existing pods' anti-affinity terms that select this pod.
    std::map<std::string, size_t, std::less<>> by_key;
    const auto block = [&](const std::string& key, NodeIndex n) {
      auto [it, inserted] = by_key.try_emplace(key, s.blocked.size());
      if (inserted) {
        const TopologyIndex::Domains* d = &index.DomainsOf(key);
        s.blocked.emplace_back(d, std::vector<uint8_t>(d->values.size(), 0));
        s.blocked_keys.push_back(key);
      }
      auto& [domains, blocked] = s.blocked[it->second];
      const int32_t d = domains->of_node[n];
      if (d >= 0) blocked[d] = 1;
    };
    const std::vector<int32_t>& selecting =
        index.HolderGroupsSelecting(pod.pod);
    for (int32_t g : selecting) {
      const TopologyIndex::HolderGroup& hg = index.holder_groups()[g];
      for (PodIndex h : hg.holders) {
        if (h == pod.pod || placed_at.contains(h)) continue;
        std::optional<NodeIndex> n = NodeOf(h);
        if (n.has_value()) block(hg.term.topology_key, *n);
      }
    }
    const v1::Pod& shape = snap.PodShape(pod.pod);
    for (const PlacedHolder& ph : placed_holders) {
      if (ph.pod == pod.pod || removed_node[ph.node]) continue;
      auto it = placed_at.find(ph.pod);
      if (it == placed_at.end() || it->second != ph.node) continue;
      for (const AffinityTerm& t : ph.terms) {
        if (t.pods.Matches(shape.metadata())) {
          block(t.topology_key, ph.node);
        }
      }
    }
    c.affinity_valid = true;
    return s;
  }
};

TopologyState::TopologyState(const TopologyIndex& index)
    : impl_(std::make_unique<Impl>(index)) {}
TopologyState::~TopologyState() = default;

void TopologyState::RemoveNode(NodeIndex n) {
  if (n >= impl_->removed_node.size() || impl_->removed_node[n]) return;
  impl_->removed_node[n] = 1;
  ++impl_->node_version;
  ++impl_->version;
}

void TopologyState::RemovePod(PodIndex p) {
  impl_->removed_pods.insert(p);
  impl_->placed_at.erase(p);
  ++impl_->version;
}

void TopologyState::AddPod(PodIndex p, NodeIndex n) {
  Impl& s = *impl_;
  s.removed_pods.insert(p);
  s.placed_at[p] = n;
  s.placed.emplace_back(p, n);
  for (auto& [key, g] : s.groups) {
    if (s.GroupMatches(*g, p)) g->added.emplace_back(p, n);
  }
  const v1::Pod& shape = s.snap.PodShape(p);
  if (!s.index.Counted(p) && HasScoringTerms(shape)) {
    s.placed_scoring_holders.emplace_back(p, n);
  }
  if (!RequiredAntiAffinity(shape).empty()) {
    absl::StatusOr<std::vector<AffinityTerm>> terms = CompileHolderTerms(shape);
    // A pod whose terms do not compile was refused before it was placed.
    if (terms.ok()) s.placed_holders.push_back({p, n, *std::move(terms)});
  }
  ++s.version;
}

std::optional<FilterFailure> TopologyState::PodTopologySpread(
    const IncomingPod& pod, NodeIndex n) {
  const std::vector<SpreadConstraint>& spread = pod.constraints->spread;
  if (spread.empty()) return std::nullopt;
  const SpreadState& s = impl_->Spread(pod);
  // One constraint after the other, as kube-scheduler: a constraint's
  // missing label or skew answers before the next constraint is looked at.
  for (size_t i = 0; i < spread.size(); ++i) {
    const int32_t d = s.counts[i].domains->of_node[n];
    if (d < 0) {
      return FilterFailure{
          kPodTopologySpread, FilterCode::kUnschedulableAndUnresolvable,
          absl::StrCat(kSpreadMismatch, " (missing required label)")};
    }
    const int64_t skew = int64_t{s.counts[i].count[d]} +
                         (spread[i].self_match ? 1 : 0) - s.min[i];
    if (skew > spread[i].max_skew) {
      return FilterFailure{kPodTopologySpread, FilterCode::kUnschedulable,
                           std::string(kSpreadMismatch)};
    }
  }
  return std::nullopt;
}

std::optional<FilterFailure> TopologyState::InterPodAffinity(
    const IncomingPod& pod, NodeIndex n) {
  const PodConstraints& pc = *pod.constraints;
  const AffinityState& s = impl_->Affinity(pod);
  if (!pc.affinity.empty()) {
    bool all_keys = true;
    bool pods_exist = true;
    for (const DomainCounts& dc : s.affinity) {
      const int32_t d = dc.domains->of_node[n];
      if (d < 0) {
        all_keys = false;
      } else if (dc.count[d] <= 0) {
        pods_exist = false;
      }
    }
    const bool ok =
        all_keys &&
        (pods_exist || (!s.any_affinity_match && pc.self_matches_affinity));
    if (!ok) {
      return FilterFailure{kInterPodAffinity,
                           FilterCode::kUnschedulableAndUnresolvable,
                           std::string(kAffinityMismatch)};
    }
  }
  for (const DomainCounts& dc : s.anti) {
    const int32_t d = dc.domains->of_node[n];
    if (d >= 0 && dc.count[d] > 0) {
      return FilterFailure{kInterPodAffinity, FilterCode::kUnschedulable,
                           std::string(kAntiAffinityMismatch)};
    }
  }
  for (const auto& [domains, blocked] : s.blocked) {
    const int32_t d = domains->of_node[n];
    if (d >= 0 && blocked[d]) {
      return FilterFailure{kInterPodAffinity, FilterCode::kUnschedulable,
                           std::string(kExistingAntiAffinityMismatch)};
    }
  }
  return std::nullopt;
}

std::optional<std::string> TopologyState::ExistingAntiAffinityKey(
    const IncomingPod& pod) {
  const AffinityState& s = impl_->Affinity(pod);
  for (size_t i = 0; i < s.blocked.size(); ++i) {
    if (s.blocked_keys[i] == well_known::kLabelHostname) continue;
    for (uint8_t b : s.blocked[i].second) {
      if (b != 0) return s.blocked_keys[i];
    }
  }
  return std::nullopt;
}

namespace {
std::vector<std::pair<std::string, int32_t>> NonZero(
    const TopologyIndex::Domains& domains, absl::Span<const int32_t> count) {
  std::vector<std::pair<std::string, int32_t>> out;
  for (size_t d = 0; d < count.size(); ++d) {
    if (count[d] > 0) out.emplace_back(domains.values[d], count[d]);
  }
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace

std::vector<std::pair<std::string, int32_t>> TopologyState::SpreadDomainCounts(
    const IncomingPod& pod, size_t i) {
  const SpreadState& s = impl_->Spread(pod);
  const PodCache& c = impl_->Cache(pod);
  std::vector<std::pair<std::string, int32_t>> out;
  const DomainCounts& dc = s.counts[i];
  for (size_t d = 0; d < dc.count.size(); ++d) {
    if (c.domain_exists[i][d]) {
      out.emplace_back(dc.domains->values[d], dc.count[d]);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::pair<std::string, int32_t>>
TopologyState::AffinityDomainCounts(const IncomingPod& pod, size_t i) {
  const AffinityState& s = impl_->Affinity(pod);
  return NonZero(*s.affinity[i].domains, s.affinity[i].count);
}

bool TopologyState::AnyAffinityMatch(const IncomingPod& pod) {
  return impl_->Affinity(pod).any_affinity_match;
}

std::vector<std::pair<std::string, int32_t>>
TopologyState::AntiAffinityDomainCounts(const IncomingPod& pod, size_t i) {
  const AffinityState& s = impl_->Affinity(pod);
  return NonZero(*s.anti[i].domains, s.anti[i].count);
}

std::vector<std::pair<std::string, std::vector<std::string>>>
TopologyState::BlockedDomains(const IncomingPod& pod) {
  const AffinityState& s = impl_->Affinity(pod);
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (size_t k = 0; k < s.blocked.size(); ++k) {
    const auto& [domains, blocked] = s.blocked[k];
    std::vector<std::string> values;
    for (size_t d = 0; d < blocked.size(); ++d) {
      if (blocked[d] != 0) values.push_back(domains->values[d]);
    }
    if (values.empty()) continue;
    std::sort(values.begin(), values.end());
    out.emplace_back(s.blocked_keys[k], std::move(values));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// --- Scoring ---------------------------------------------------------------

namespace {

// The domain a node is in for scoring: its value's id, or, for a node
// without the key, the id of the value "" (Go reads a missing label as "")
// or one past the last id.
int32_t ScoreDomain(const TopologyIndex::Domains& d, int32_t missing,
                    NodeIndex n) {
  const int32_t id = d.of_node[n];
  return id >= 0 ? id : missing;
}

int32_t MissingDomain(const TopologyIndex::Domains& d) {
  const auto it = std::find(d.values.begin(), d.values.end(), "");
  return static_cast<int32_t>(it - d.values.begin());
}

}  // namespace

std::vector<int64_t> TopologyState::PodTopologySpreadScore(
    const IncomingPod& pod, const PodScoring& scoring,
    absl::Span<const NodeIndex> feasible) {
  const std::vector<SpreadConstraint>& cs = scoring.spread;
  if (cs.empty() || feasible.empty()) return {};
  Impl& s = *impl_;
  const size_t k = cs.size();
  const bool require_all = !scoring.system_defaults;
  std::vector<const TopologyIndex::Domains*> domains(k);
  std::vector<int32_t> missing(k);
  std::vector<uint8_t> hostname(k);
  for (size_t i = 0; i < k; ++i) {
    domains[i] = &s.index.DomainsOf(cs[i].topology_key);
    missing[i] = MissingDomain(*domains[i]);
    hostname[i] = cs[i].topology_key == well_known::kLabelHostname;
  }
  const auto has_all_keys = [&](NodeIndex n) {
    for (const auto* d : domains) {
      if (d->of_node[n] < 0) return false;
    }
    return true;
  };
  // initPreScoreState: the ignored nodes, and the domains of the others.
  std::vector<uint8_t> ignored(feasible.size(), 0);
  std::vector<std::vector<uint8_t>> present(k);
  std::vector<int64_t> topo_size(k, 0);
  int64_t scored = 0;
  for (size_t i = 0; i < k; ++i) {
    present[i].assign(domains[i]->values.size() + 1, 0);
  }
  for (size_t f = 0; f < feasible.size(); ++f) {
    const NodeIndex n = feasible[f];
    if (require_all && !has_all_keys(n)) {
      ignored[f] = 1;
      continue;
    }
    ++scored;
    for (size_t i = 0; i < k; ++i) {
      if (hostname[i]) continue;
      uint8_t& p = present[i][ScoreDomain(*domains[i], missing[i], n)];
      if (p == 0) {
        p = 1;
        ++topo_size[i];
      }
    }
  }
  std::vector<double> weight(k);
  for (size_t i = 0; i < k; ++i) {
    weight[i] = std::log(
        static_cast<double>((hostname[i] ? scored : topo_size[i]) + 2));
  }
  // PreScore: matching pods per domain (on nodes that carry every key when
  // required and pass the constraint's inclusion policies), per node for
  // hostname.
  const size_t nodes = s.snap.nodes().size();
  std::vector<int8_t> affinity_ok(nodes, -1);
  std::vector<int8_t> taints_ok(nodes, -1);
  const auto included = [&](const SpreadConstraint& c, NodeIndex n) {
    if (c.honor_node_affinity && scoring.has_node_affinity) {
      if (affinity_ok[n] < 0) affinity_ok[n] = pod.matches_node_affinity(n);
      if (affinity_ok[n] == 0) return false;
    }
    if (c.honor_node_taints) {
      if (taints_ok[n] < 0) taints_ok[n] = pod.tolerates_node_taints(n);
      if (taints_ok[n] == 0) return false;
    }
    return true;
  };
  std::vector<std::vector<int64_t>> count(k);
  for (size_t i = 0; i < k; ++i) {
    GroupState& g = s.Group({&cs[i].pods}, /*with_terminating=*/false);
    if (hostname[i]) {
      count[i].assign(nodes, 0);
      s.ForEachMember(g, [&](NodeIndex n) { ++count[i][n]; });
      continue;
    }
    count[i].assign(domains[i]->values.size() + 1, 0);
    s.ForEachMember(g, [&](NodeIndex n) {
      if (require_all && !has_all_keys(n)) return;
      if (!included(cs[i], n)) return;
      const int32_t d = ScoreDomain(*domains[i], missing[i], n);
      if (present[i][d]) ++count[i][d];
    });
  }
  // Score, then NormalizeScore.
  std::vector<int64_t> out(feasible.size(), 0);
  int64_t min = std::numeric_limits<int64_t>::max();
  int64_t max = 0;
  for (size_t f = 0; f < feasible.size(); ++f) {
    if (ignored[f]) continue;
    const NodeIndex n = feasible[f];
    double score = 0;
    for (size_t i = 0; i < k; ++i) {
      const int32_t d = domains[i]->of_node[n];
      if (d < 0) continue;
      const int64_t cnt = hostname[i] ? count[i][n] : count[i][d];
      score += static_cast<double>(cnt) * weight[i] +
               static_cast<double>(cs[i].max_skew - 1);
    }
    out[f] = static_cast<int64_t>(std::round(score));
    min = std::min(min, out[f]);
    max = std::max(max, out[f]);
  }
  for (size_t f = 0; f < feasible.size(); ++f) {
    if (ignored[f]) {
      out[f] = 0;
    } else if (max == 0) {
      out[f] = kMaxNodeScore;
    } else {
      out[f] = kMaxNodeScore * (max + min - out[f]) / max;
    }
  }
  return out;
}

std::vector<int64_t> TopologyState::InterPodAffinityScore(
    const IncomingPod& pod, const PodScoring& scoring,
    absl::Span<const NodeIndex> feasible) {
  Impl& s = *impl_;
  // Per topology key: the score of each domain.
  std::map<std::string, std::vector<int64_t>, std::less<>> by_key;
  std::vector<std::pair<const TopologyIndex::Domains*, std::vector<int64_t>*>>
      keys;
  bool any = false;
  const auto add = [&](const std::string& key, NodeIndex n, int64_t w) {
    const TopologyIndex::Domains& d = s.index.DomainsOf(key);
    const int32_t id = d.of_node[n];
    if (id < 0) return;
    auto [it, inserted] = by_key.try_emplace(key);
    if (inserted) {
      it->second.assign(d.values.size(), 0);
      keys.emplace_back(&d, &it->second);
    }
    it->second[static_cast<size_t>(id)] += w;
    any = true;
  };
  // The pod's preferred terms, over the pods they select.
  for (const auto& terms_and_sign :
       {std::pair<const std::vector<WeightedTerm>*, int64_t>{
            &scoring.preferred_affinity, 1},
        {&scoring.preferred_anti_affinity, -1}}) {
    const int64_t sign = terms_and_sign.second;
    for (const WeightedTerm& t : *terms_and_sign.first) {
      GroupState& g = s.Group({&t.term.pods}, /*with_terminating=*/true);
      s.ForEachMember(g, [&](NodeIndex n) {
        add(t.term.topology_key, n, sign * t.weight);
      });
    }
  }
  // Other pods' terms that select the pod.
  const uint32_t shape_id = s.snap.PodShapeId(pod.pod);
  const v1::ObjectMeta& meta = s.snap.PodShape(pod.pod).metadata();
  const std::vector<TopologyIndex::ScoringHolders>& holders =
      s.index.scoring_holders();
  auto [sel, fresh] = s.scoring_selecting.try_emplace(shape_id);
  if (fresh) {
    for (size_t g = 0; g < holders.size(); ++g) {
      for (size_t t = 0; t < holders[g].terms.size(); ++t) {
        if (holders[g].terms[t].term.pods.Matches(meta)) {
          sel->second.emplace_back(g, t);
        }
      }
    }
  }
  for (const auto& [g, t] : sel->second) {
    const WeightedTerm& term = holders[g].terms[t];
    for (PodIndex h : holders[g].pods) {
      if (h == pod.pod) continue;
      if (std::optional<NodeIndex> n = s.NodeOf(h)) {
        add(term.term.topology_key, *n, term.weight);
      }
    }
  }
  absl::flat_hash_set<PodIndex> seen;
  for (const auto& [p, n] : s.placed_scoring_holders) {
    if (p == pod.pod || s.removed_node[n]) continue;
    const auto at = s.placed_at.find(p);
    if (at == s.placed_at.end() || at->second != n || !seen.insert(p).second) {
      continue;
    }
    const uint32_t id = s.snap.PodShapeId(p);
    auto [terms, inserted] = s.placed_scoring.try_emplace(id);
    if (inserted && HasScoringTerms(s.snap.PodShape(p))) {
      terms->second = HolderScoringTerms(s.snap.PodShape(p));
    }
    for (const WeightedTerm& t : terms->second) {
      if (t.term.pods.Matches(meta)) add(t.term.topology_key, n, t.weight);
    }
  }
  if (!any) return {};
  // Score, then NormalizeScore.
  std::vector<int64_t> out(feasible.size(), 0);
  int64_t min = std::numeric_limits<int64_t>::max();
  int64_t max = std::numeric_limits<int64_t>::min();
  for (size_t f = 0; f < feasible.size(); ++f) {
    int64_t score = 0;
    for (const auto& [d, values] : keys) {
      const int32_t id = d->of_node[feasible[f]];
      if (id >= 0) score += (*values)[static_cast<size_t>(id)];
    }
    out[f] = score;
    min = std::min(min, score);
    max = std::max(max, score);
  }
  for (int64_t& score : out) {
    score = max > min
                ? static_cast<int64_t>(static_cast<double>(kMaxNodeScore) *
                                       (static_cast<double>(score - min) /
                                        static_cast<double>(max - min)))
                : 0;
  }
  return out;
}

}  // namespace karpenter::scheduling
