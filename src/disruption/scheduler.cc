// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#include "karpenter/disruption/scheduler.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>
#include <numeric>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "disruption/facts_internal.h"
#include "disruption/replacement_internal.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "karpenter/budget/disruption_spec.h"
#include "karpenter/budget/pdb.h"
#include "karpenter/conditions.h"
#include "karpenter/disruption/snapshot_facts.h"
#include "karpenter/drain/classify.h"
#include "karpenter/quantity.h"
#include "karpenter/scheduling/filter_status.h"
#include "karpenter/scheduling/node_ports.h"
#include "karpenter/scheduling/node_resources.h"
#include "karpenter/scheduling/node_selector.h"
#include "karpenter/scheduling/pod_topology.h"
#include "karpenter/scheduling/resources.h"
#include "karpenter/scheduling/volumes.h"
#include "karpenter/time_util.h"
#include "karpenter/well_known.h"

namespace karpenter::disruption {
namespace {

namespace pb = ::google::protobuf;
using snapshot::NodeIndex;
using snapshot::PodIndex;

constexpr absl::string_view kCpu = "cpu";
constexpr absl::string_view kMemory = "memory";
constexpr absl::string_view kEphemeral = "ephemeral-storage";
constexpr absl::string_view kPods = "pods";
constexpr absl::string_view kAffinityPath =
    "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
    ".nodeSelectorTerms";
// Fixed resource dimensions; extended resources follow, sorted.
constexpr int kCpuDim = 0;
constexpr int kMemoryDim = 1;

std::vector<std::string> SortedKeys(
    const pb::Map<std::string, std::string>& m) {
  std::vector<std::string> keys;
  keys.reserve(m.size());
  for (const auto& [k, v] : m) keys.push_back(k);
  std::sort(keys.begin(), keys.end());
  return keys;
}

// A non-negative quantity in milli-units; every failure is InvalidArgument.
absl::StatusOr<int64_t> ParseRequest(absl::string_view value,
                                     const std::string& field) {
  absl::StatusOr<int64_t> milli = ParseQuantityMilli(value, field);
  if (!milli.ok()) return absl::InvalidArgumentError(milli.status().message());
  if (*milli < 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: quantity \"%s\" must not be negative", field, value));
  }
  return *milli;
}

// ParseRequest of field `prefix` + `name`, whose name is only built for an
// error (a node's quantities are read by the thousand).
absl::StatusOr<int64_t> ParseRequestAt(absl::string_view value,
                                       absl::string_view prefix,
                                       absl::string_view name) {
  absl::StatusOr<int64_t> v = ParseRequest(value, std::string());
  if (v.ok()) return v;
  return ParseRequest(value, absl::StrCat(prefix, name));
}

bool OwnedByStatefulSet(const v1::Pod& pod) {
  for (const v1::OwnerReference& ref : pod.metadata().owner_references()) {
    if (ref.api_version() == "apps/v1" && ref.kind() == "StatefulSet") {
      return true;
    }
  }
  return false;
}

const v1::OwnerReference* DaemonSetOwner(const v1::Pod& pod) {
  for (const v1::OwnerReference& ref : pod.metadata().owner_references()) {
    if (ref.api_version() == "apps/v1" && ref.kind() == "DaemonSet")
      return &ref;
  }
  return nullptr;
}

// Karpenter's IsReschedulable (docs/semantics.md §2.3).
bool IsReschedulable(const v1::Pod& pod) {
  const bool active = !drain::IsTerminal(pod) && !drain::IsTerminating(pod);
  return (active || (OwnedByStatefulSet(pod) && drain::IsTerminating(pod))) &&
         !drain::IsOwnedByDaemonSet(pod) && !drain::IsOwnedByNode(pod);
}

bool ToleratesAll(const v1::Pod& pod,
                  const pb::RepeatedPtrField<v1::Taint>& t) {
  for (const v1::Taint& taint : t) {
    if (taint.effect() != well_known::kTaintEffectNoSchedule &&
        taint.effect() != well_known::kTaintEffectNoExecute) {
      continue;
    }
    bool tolerated = false;
    for (const v1::Toleration& tol : pod.spec().tolerations()) {
      if (drain::ToleratesTaint(tol, taint)) {
        tolerated = true;
        break;
      }
    }
    if (!tolerated) return false;
  }
  return true;
}

const v1::Taint* FirstUntolerated(const v1::Pod& pod,
                                  const pb::RepeatedPtrField<v1::Taint>& t) {
  for (const v1::Taint& taint : t) {
    pb::RepeatedPtrField<v1::Taint> one;
    *one.Add() = taint;
    if (!ToleratesAll(pod, one)) return &taint;
  }
  return nullptr;
}

std::string DeterministicBytes(const pb::Message& m) {
  std::string out;
  {
    pb::io::StringOutputStream stream(&out);
    pb::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    m.SerializeToCodedStream(&coded);
  }
  return out;
}

std::string FormatMilli(int64_t milli) {
  if (milli % 1000 == 0) return absl::StrCat(milli / 1000);
  return absl::StrCat(milli, "m");
}

uint64_t Fnv1a(absl::string_view s, uint64_t h = 0xcbf29ce484222325ULL) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

using internal::Profile;
using Term = internal::Profile::Term;

struct TypeInfo {
  const InstanceType* type = nullptr;
  std::vector<int64_t> capacity;
  // Capacity per PoolInfo::limit_keys (0 when the type does not list it).
  std::vector<int64_t> limited;
  // DaemonSet overhead of a new node of this type, per dimension.
  std::vector<int64_t> overhead;

  // `pods` (requests per dimension) and the overhead fit.
  bool Holds(absl::Span<const int64_t> pods) const {
    for (size_t i = 0; i < pods.size(); ++i) {
      const int64_t need = pods[i] + overhead[i];
      if (need > 0 && need > capacity[i]) return false;
    }
    return true;
  }
};

struct PoolInfo {
  const v1::NodePool* pool = nullptr;
  const internal::PoolBase* pb = nullptr;
  std::string name;
  Requirements base;  // Template requirements, labels and the pool label.
  std::vector<int64_t> overhead;
  std::vector<TypeInfo> types;
  // Indexes of `types` that `base` admits.
  std::vector<size_t> admitted;
  // Requirements of `base` with minValues: key and minValues.
  std::vector<std::pair<std::string, int32_t>> min_values;
};

using internal::kDoNotDisruptAtNow;
using internal::kIndexed;
using internal::kMovable;
using internal::kPending;

absl::StatusOr<Profile> MakeProfile(const v1::Pod& pod) {
  Profile p;
  p.pod = &pod;
  Term base;
  for (const std::string& key : SortedKeys(pod.spec().node_selector())) {
    const std::string& value = pod.spec().node_selector().at(key);
    base.requirements.Add(Requirement::In(key, {value}));
    v1::NodeSelectorRequirement r;
    r.set_key(key);
    r.set_operator_("In");
    r.add_values(value);
    base.protos.push_back(std::move(r));
  }
  const auto& na = pod.spec().affinity().node_affinity();
  p.has_required_affinity =
      na.has_required_during_scheduling_ignored_during_execution();
  if (!p.has_required_affinity) {
    p.terms.push_back(std::move(base));
    return p;
  }
  const auto& terms = na.required_during_scheduling_ignored_during_execution()
                          .node_selector_terms();
  for (int i = 0; i < terms.size(); ++i) {
    absl::StatusOr<Requirements> reqs = Requirements::FromProto(
        terms[i].match_expressions(),
        absl::StrCat(kAffinityPath, "[", i, "].matchExpressions"));
    if (!reqs.ok()) return reqs.status();
    if (!terms[i].match_fields().empty() ||
        terms[i].match_expressions().empty()) {
      continue;  // Not satisfiable by a node whose name is not known yet.
    }
    Term t = base;
    for (const auto& [key, r] : reqs->map()) t.requirements.Add(r);
    for (const auto& e : terms[i].match_expressions()) t.protos.push_back(e);
    p.terms.push_back(std::move(t));
  }
  return p;
}

bool TypeAdmits(const TypeInfo& t, const Requirements& reqs) {
  if (const Requirement* r = reqs.Get(well_known::kLabelInstanceTypeStable);
      r != nullptr && !r->Has(t.type->name)) {
    return false;
  }
  for (const auto& [key, value] : t.type->labels) {
    const Requirement* r = reqs.Get(NormalizeLabelKey(key));
    if (r != nullptr && !r->Has(value)) return false;
  }
  return CheapestOffering(*t.type, reqs).has_value();
}

}  // namespace

absl::StatusOr<std::vector<std::pair<std::string, int64_t>>> PodRequests(
    const v1::Pod& pod) {
  return scheduling::PodRequests(pod);
}

std::optional<double> CheapestOffering(const InstanceType& type,
                                       const Requirements& allowed) {
  const Requirement* zone = allowed.Get(well_known::kLabelTopologyZone);
  const Requirement* capacity_type =
      allowed.Get(well_known::kCapacityTypeLabelKey);
  std::optional<double> best;
  for (const Offering& o : type.offerings) {
    if (!o.available) continue;
    if (zone != nullptr && !zone->Has(o.zone)) continue;
    if (capacity_type != nullptr && !capacity_type->Has(o.capacity_type)) {
      continue;
    }
    if (!best || o.price < *best) best = o.price;
  }
  return best;
}

}  // namespace karpenter::disruption
namespace karpenter::disruption::internal {
namespace {

// A pod's requests (scheduling/resources.h); keys view into the pod.
using FastList = scheduling::PodRequestList;

void AppendPiece(char tag, absl::string_view bytes, std::string& key) {
  absl::StrAppend(&key, absl::string_view(&tag, 1), bytes.size(), ":", bytes);
}

// The profile key: the pod's constraints, serialized deterministically;
// "" for a pod without any.
std::string ProfileKey(const v1::Pod& pod) {
  const v1::PodSpec& spec = pod.spec();
  std::string key;
  for (const v1::Toleration& t : spec.tolerations()) {
    AppendPiece('t', DeterministicBytes(t), key);
  }
  for (const std::string& k : SortedKeys(spec.node_selector())) {
    AppendPiece('k', k, key);
    AppendPiece('v', spec.node_selector().at(k), key);
  }
  if (spec.has_affinity()) {
    AppendPiece('a', DeterministicBytes(spec.affinity()), key);
  }
  for (const v1::TopologySpreadConstraint& c :
       spec.topology_spread_constraints()) {
    AppendPiece('s', DeterministicBytes(c), key);
  }
  return key;
}

// The preferences of a pod (preferences.go), in the order Karpenter's
// Relax removes them: preferred pod affinity terms, then preferred pod
// anti-affinity terms (each by descending weight), then preferred node
// affinity terms (by descending weight; the heaviest left is required),
// then ScheduleAnyway spreads (the first left, swapped with the last).
struct Preferences {
  std::vector<v1::PodAffinityTerm> affinity;
  std::vector<v1::PodAffinityTerm> anti_affinity;
  std::vector<v1::PreferredSchedulingTerm> node;
  std::vector<v1::TopologySpreadConstraint> spread;  // Every constraint.
  int schedule_anyway = 0;

  explicit Preferences(const v1::Pod& pod) {
    const v1::Affinity& a = pod.spec().affinity();
    std::vector<v1::WeightedPodAffinityTerm> w(
        a.pod_affinity()
            .preferred_during_scheduling_ignored_during_execution()
            .begin(),
        a.pod_affinity()
            .preferred_during_scheduling_ignored_during_execution()
            .end());
    std::stable_sort(w.begin(), w.end(), [](const auto& x, const auto& y) {
      return x.weight() > y.weight();
    });
    for (const auto& t : w) affinity.push_back(t.pod_affinity_term());
    w.assign(a.pod_anti_affinity()
                 .preferred_during_scheduling_ignored_during_execution()
                 .begin(),
             a.pod_anti_affinity()
                 .preferred_during_scheduling_ignored_during_execution()
                 .end());
    std::stable_sort(w.begin(), w.end(), [](const auto& x, const auto& y) {
      return x.weight() > y.weight();
    });
    for (const auto& t : w) anti_affinity.push_back(t.pod_affinity_term());
    node.assign(a.node_affinity()
                    .preferred_during_scheduling_ignored_during_execution()
                    .begin(),
                a.node_affinity()
                    .preferred_during_scheduling_ignored_during_execution()
                    .end());
    std::stable_sort(
        node.begin(), node.end(),
        [](const auto& x, const auto& y) { return x.weight() > y.weight(); });
    spread.assign(pod.spec().topology_spread_constraints().begin(),
                  pod.spec().topology_spread_constraints().end());
    for (const auto& c : spread) {
      if (c.when_unsatisfiable() == "ScheduleAnyway") ++schedule_anyway;
    }
  }
  size_t count() const {
    return affinity.size() + anti_affinity.size() + node.size() +
           static_cast<size_t>(schedule_anyway);
  }

  // Removes the next preference, as Relax; returns what it removed.
  std::string Relax() {
    if (!affinity.empty()) {
      affinity.erase(affinity.begin());
      return "a preferred pod affinity term";
    }
    if (!anti_affinity.empty()) {
      anti_affinity.erase(anti_affinity.begin());
      return "a preferred pod anti-affinity term";
    }
    if (!node.empty()) {
      node.erase(node.begin());
      return "a preferred node affinity term";
    }
    for (size_t i = 0; i < spread.size(); ++i) {
      if (spread[i].when_unsatisfiable() != "ScheduleAnyway") continue;
      spread[i] = spread.back();
      spread.pop_back();
      --schedule_anyway;
      return "a ScheduleAnyway topology spread constraint";
    }
    return "";
  }

  // `pod` with every preference left required.
  v1::Pod Apply(const v1::Pod& pod) const {
    v1::Pod out = pod;
    v1::PodSpec& spec = *out.mutable_spec();
    v1::Affinity& a = *spec.mutable_affinity();
    a.mutable_pod_affinity()
        ->clear_preferred_during_scheduling_ignored_during_execution();
    a.mutable_pod_anti_affinity()
        ->clear_preferred_during_scheduling_ignored_during_execution();
    a.mutable_node_affinity()
        ->clear_preferred_during_scheduling_ignored_during_execution();
    for (const auto& t : affinity) {
      *a.mutable_pod_affinity()
           ->add_required_during_scheduling_ignored_during_execution() = t;
    }
    for (const auto& t : anti_affinity) {
      *a.mutable_pod_anti_affinity()
           ->add_required_during_scheduling_ignored_during_execution() = t;
    }
    if (!node.empty() &&
        !node.front().preference().match_expressions().empty()) {
      v1::NodeSelector& req =
          *a.mutable_node_affinity()
               ->mutable_required_during_scheduling_ignored_during_execution();
      if (req.node_selector_terms().empty()) req.add_node_selector_terms();
      for (v1::NodeSelectorTerm& term : *req.mutable_node_selector_terms()) {
        for (const auto& e : node.front().preference().match_expressions()) {
          *term.add_match_expressions() = e;
        }
      }
    }
    spec.clear_topology_spread_constraints();
    for (v1::TopologySpreadConstraint c : spread) {
      c.set_when_unsatisfiable("DoNotSchedule");
      *spec.add_topology_spread_constraints() = std::move(c);
    }
    return out;
  }
};

class BaseBuilder {
 public:
  // `nodes_from`, `volumes_from`: see BuildSchedulerBase.
  BaseBuilder(const snapshot::Snapshot& snap, const budget::PdbIndex& pdbs,
              SchedulerBase& out, const SchedulerBase* nodes_from,
              const SchedulerBase* volumes_from,
              const SchedulerBase* shapes_from,
              absl::Span<const uint32_t> same_shapes,
              const SchedulerBase* node_objects_from)
      : snap_(snap),
        pdbs_(pdbs),
        b_(out),
        nodes_from_(nodes_from),
        volumes_from_(volumes_from),
        node_objects_from_(node_objects_from) {
    b_.snap = &snap;
    b_.shape_flags.assign(snap.pod_shape_count(), 0);
    if (shapes_from != nullptr &&
        same_shapes.size() == snap.pod_shape_count()) {
      shapes_from_ = shapes_from;
      same_shapes_ = same_shapes;
      // A shape's flags depend on it alone.
      const std::vector<uint8_t>& from = shapes_from->shape_flags;
      for (size_t id = 0; id < same_shapes.size(); ++id) {
        if (same_shapes[id] < from.size()) {
          b_.shape_flags[id] = from[same_shapes[id]];
        }
      }
    }
  }

  absl::Status Build() {
    if (absl::Status s = IndexPods(); !s.ok()) return s;
    if (absl::Status s = IndexNodes(); !s.ok()) return s;
    if (absl::Status s = IndexPools(); !s.ok()) return s;
    if (absl::Status s = IndexVolumes(); !s.ok()) return s;
    IndexMoves();
    if (!snap_.daemon_sets().empty()) {
      absl::StatusOr<scheduling::DaemonOverhead> ds =
          scheduling::DaemonOverhead::Build(snap_.daemon_sets());
      if (!ds.ok()) return ds.status();
      b_.daemon_overhead.emplace(*std::move(ds));
    }
    b_.topology = scheduling::TopologyIndex::Build(
        snap_, shapes_from_ != nullptr ? shapes_from_->topology.get() : nullptr,
        same_shapes_);
    return absl::OkStatus();
  }

  // Resolves the claim-backed volumes of every indexed pod that has some
  // (the whole pod is decoded: an ephemeral volume's claim is named after
  // it), and counts the CSI volumes each node's pods use. A pod whose
  // volumes do not resolve is unsupported.
  absl::Status IndexVolumes() {
    if (volumes_from_ != nullptr) {
      b_.volume_index = volumes_from_->volume_index;
    } else {
      absl::StatusOr<scheduling::VolumeIndex> index =
          scheduling::VolumeIndex::Build(
              snap_.persistent_volume_claims(), snap_.persistent_volumes(),
              snap_.storage_classes(), snap_.csi_nodes());
      if (!index.ok()) return index.status();
      b_.volume_index =
          std::make_shared<const scheduling::VolumeIndex>(*std::move(index));
    }
    const size_t pods = snap_.pod_count();
    b_.pod_volumes_of.assign(pods, -1);
    const auto nodes = snap_.nodes();
    b_.node_volumes.assign(nodes.size(), scheduling::NodeVolumeUsage());
    if (volumes_from_ != nullptr && volumes_from_ == nodes_from_) {
      // The same Nodes and CSINodes: the same CSINode of each node.
      b_.node_csi = volumes_from_->node_csi;
    } else {
      b_.node_csi.assign(nodes.size(), nullptr);
      for (NodeIndex n = 0; n < nodes.size(); ++n) {
        b_.node_csi[n] =
            b_.volume_index->FindCSINode(nodes[n].metadata().name());
      }
    }
    // The indexed pods whose shape has claim-backed volumes (IndexPod).
    for (const PodIndex p : claim_pods_) {
      absl::StatusOr<scheduling::PodVolumes> resolved =
          scheduling::ResolvePodVolumes(snap_.DecodePod(p), *b_.volume_index);
      if (!resolved.ok()) {
        b_.unsupported[snap_.PodShapeId(p)] =
            std::string(resolved.status().message());
        continue;
      }
      b_.pod_volumes_of[p] = static_cast<int32_t>(b_.pod_volumes.size());
      b_.pod_volumes.push_back(*std::move(resolved));
      if (std::optional<NodeIndex> n = snap_.NodeOfPod(p);
          n.has_value() && (b_.pod_flags[p] & kIndexed) != 0) {
        b_.node_volumes[*n].Add(b_.pod_volumes.back());
      }
    }
    return absl::OkStatus();
  }

 private:
  // Requests and constraint profile depend on a pod's shape alone, so they
  // are computed once per shape (snapshot.h). On error nothing is memoised:
  // each pod of the shape reports the error under its own name.
  absl::Status IndexShape(PodIndex p, uint32_t shape_id, uint8_t flags,
                          absl::flat_hash_map<std::string, int32_t>& ids) {
    if (CarryShape(p, shape_id, flags, ids)) return absl::OkStatus();
    const v1::Pod& shape = snap_.PodShape(p);
    std::shared_ptr<const FastList> list = CarriedRequests(shape_id);
    if (list == nullptr) {
      FastList computed;
      if (absl::Status s = requests_.Compute(shape, computed); !s.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("pods/", snap_.PodKey(p), ": ", s.message()));
      }
      list = std::make_shared<const FastList>(std::move(computed));
    }
    auto [it, inserted] = ids.try_emplace(
        ProfileKey(shape), static_cast<int32_t>(b_.profiles.size()));
    if (inserted) {
      absl::StatusOr<Profile> profile = MakeProfile(shape);
      if (!profile.ok()) {
        ids.erase(it);
        return absl::InvalidArgumentError(absl::StrCat(
            "pods/", snap_.PodKey(p), ": ", profile.status().message()));
      }
      b_.profiles.push_back(*std::move(profile));
      b_.profile_keys.push_back(it->first);
    }
    shape_list_[shape_id] = static_cast<int32_t>(lists_.size());
    lists_.push_back(list.get());
    list_rows_from_.push_back(0);
    b_.shape_requests[shape_id] = std::move(list);
    b_.shape_profile[shape_id] = it->second;
    IndexConstraints(shape, shape_id);
    IndexVariants(shape, shape_id);
    std::vector<scheduling::HostPort> ports = scheduling::PodHostPorts(shape);
    if (!ports.empty()) {
      b_.shape_ports[shape_id] = static_cast<int32_t>(b_.port_lists.size());
      b_.port_lists.push_back(std::move(ports));
    }
    return absl::OkStatus();
  }

  // Indexes shape `shape_id` of pod `p` (ShapeFlag bits `flags`) as the
  // previous base indexed the same shape object, without reading it: its
  // requests, profile, compiled constraints and host ports. False (nothing
  // done) when there is no previous base, it did not index the shape, or the
  // shape may have preference variants or unsupported constraints
  // (computed again, in IndexShape's order, so that profiles and
  // constraints are numbered as a build from scratch numbers them).
  bool CarryShape(PodIndex p, uint32_t shape_id, uint8_t flags,
                  absl::flat_hash_map<std::string, int32_t>& ids) {
    if (shapes_from_ == nullptr || (flags & kShapePreferences) != 0) {
      return false;
    }
    const SchedulerBase& from = *shapes_from_;
    const uint32_t old = same_shapes_[shape_id];
    if (old >= from.shape_requests.size() ||
        from.shape_requests[old] == nullptr ||
        from.shape_constraints[old] == SchedulerBase::kUnsupported) {
      return false;
    }
    const auto old_profile = static_cast<size_t>(from.shape_profile[old]);
    if (carried_profiles_.empty()) {
      carried_profiles_.assign(from.profiles.size(), -1);
    }
    int32_t& profile = carried_profiles_[old_profile];
    if (profile < 0) {
      const std::string& key = from.profile_keys[old_profile];
      const auto [it, inserted] =
          ids.try_emplace(key, static_cast<int32_t>(b_.profiles.size()));
      if (inserted) {
        b_.profiles.push_back(from.profiles[old_profile]);
        // The shape it was made from may be gone: this one has its key.
        b_.profiles.back().pod = &snap_.PodShape(p);
        b_.profile_keys.push_back(key);
      }
      profile = it->second;
    }
    shape_list_[shape_id] = static_cast<int32_t>(lists_.size());
    b_.shape_requests[shape_id] = from.shape_requests[old];
    lists_.push_back(from.shape_requests[old].get());
    // Without extended resources in the previous base, its row of the
    // shape holds the standard four, which every base's dimensions open
    // with.
    list_rows_from_.push_back(from.d == 4 ? from.shape_row[old] : 0);
    b_.shape_profile[shape_id] = profile;
    if (const int32_t c = from.shape_constraints[old]; c >= 0) {
      b_.shape_constraints[shape_id] =
          static_cast<int32_t>(b_.constraints.size());
      b_.constraints.push_back(from.constraints[static_cast<size_t>(c)]);
    }
    if (const int32_t ports = from.shape_ports[old]; ports >= 0) {
      b_.shape_ports[shape_id] = static_cast<int32_t>(b_.port_lists.size());
      b_.port_lists.push_back(from.port_lists[static_cast<size_t>(ports)]);
    }
    return true;
  }

  // The requests the previous base computed for the same shape, or null.
  std::shared_ptr<const FastList> CarriedRequests(uint32_t shape_id) const {
    if (shapes_from_ == nullptr) return nullptr;
    const uint32_t old = same_shapes_[shape_id];
    const auto& from = shapes_from_->shape_requests;
    return old < from.size() ? from[old] : nullptr;
  }

  // Topology spread and pod (anti-)affinity of one shape. A shape whose
  // constraints do not compile is unsupported: its pods never move.
  void IndexConstraints(const v1::Pod& shape, uint32_t shape_id) {
    if (shapes_from_ != nullptr) {
      // The previous base indexed the same shape (its requests say so):
      // take its compiled constraints, unless they were unsupported (the
      // message may since have been overwritten by a volume's).
      const uint32_t old = same_shapes_[shape_id];
      const SchedulerBase& from = *shapes_from_;
      if (old < from.shape_requests.size() &&
          from.shape_requests[old] != nullptr &&
          from.shape_constraints[old] != SchedulerBase::kUnsupported) {
        const int32_t c = from.shape_constraints[old];
        if (c >= 0) {
          b_.shape_constraints[shape_id] =
              static_cast<int32_t>(b_.constraints.size());
          b_.constraints.push_back(from.constraints[static_cast<size_t>(c)]);
        }
        return;
      }
    }
    absl::StatusOr<scheduling::PodConstraints> c =
        scheduling::CompilePodConstraints(shape);
    if (!c.ok()) {
      b_.shape_constraints[shape_id] = SchedulerBase::kUnsupported;
      b_.unsupported[shape_id] = std::string(c.status().message());
    } else if (!c->empty()) {
      b_.shape_constraints[shape_id] =
          static_cast<int32_t>(b_.constraints.size());
      b_.constraints.push_back(
          std::make_shared<const scheduling::PodConstraints>(*std::move(c)));
    }
  }

  // The shape's preference variants (SchedulerBase::variants). A shape
  // whose variants do not compile keeps none: its preferences are ignored.
  void IndexVariants(const v1::Pod& shape, uint32_t shape_id) {
    if (!shape.spec().has_affinity() &&
        shape.spec().topology_spread_constraints().empty()) {
      return;
    }
    Preferences prefs(shape);
    if (prefs.count() == 0 ||
        b_.shape_constraints[shape_id] == SchedulerBase::kUnsupported) {
      return;
    }
    std::vector<SchedulerBase::Variant> out;
    while (prefs.count() > 0) {
      b_.variant_pods.push_back(prefs.Apply(shape));
      const v1::Pod& pod = b_.variant_pods.back();
      absl::StatusOr<Profile> profile = MakeProfile(pod);
      absl::StatusOr<scheduling::PodConstraints> c =
          scheduling::CompilePodConstraints(pod);
      if (!profile.ok() || !c.ok()) return;
      SchedulerBase::Variant v;
      v.profile = static_cast<int32_t>(b_.profiles.size());
      b_.profiles.push_back(*std::move(profile));
      b_.profile_keys.emplace_back();  // Never looked up.
      if (!c->empty()) {
        v.constraints = static_cast<int32_t>(b_.constraints.size());
        b_.constraints.push_back(
            std::make_shared<const scheduling::PodConstraints>(*std::move(c)));
      }
      v.relaxed = prefs.Relax();
      out.push_back(std::move(v));
    }
    b_.variants.emplace(shape_id, std::move(out));
  }

  // Indexes pod `p` (bound, or `pending`) of shape `shape_id`, whose
  // ShapeFlag bits are `flags`: its profile and requests row, whether it
  // may move (kMovable, kDoNotDisruptAtNow), and whether IndexVolumes must
  // resolve its volumes.
  absl::Status IndexPod(PodIndex p, uint32_t shape_id, uint8_t flags,
                        bool pending,
                        absl::flat_hash_map<std::string, int32_t>& ids) {
    if (shape_list_[shape_id] < 0) {
      if (absl::Status s = IndexShape(p, shape_id, flags, ids); !s.ok()) {
        return s;
      }
    }
    b_.pod_profile[p] = b_.shape_profile[shape_id];
    b_.pod_req_row[p] = static_cast<uint32_t>(shape_list_[shape_id] + 1);
    if ((flags & kShapeClaims) != 0) claim_pods_.push_back(p);
    if (pending) {
      b_.pod_flags[p] = kPending;
      b_.pending_pods.push_back(p);
      return absl::OkStatus();
    }
    b_.pod_flags[p] = kIndexed;
    if ((flags & kShapeDaemon) != 0) daemon_pods_.push_back(p);
    // Movable when disruptable and not fully PDB-blocked; a
    // do-not-disrupt that may be active is decided at the simulation's
    // time. The PDBs selecting a pod are its shape's: whether one fully
    // blocks it is read once per shape (0 unknown, 1 no, 2 yes).
    uint8_t& blocked = shape_blocked_[shape_id];
    if (blocked == 0) blocked = pdbs_.IsFullyBlocked(p) ? 2 : 1;
    if (blocked == 2) return absl::OkStatus();
    // The shape answers as the pod would at the infinite past: see
    // WalkPods in snapshot_facts.cc (a valid do-not-disrupt window is
    // active there, and decided at options.now in Finish).
    if ((flags & kShapeDoNotDisrupt) != 0) {
      b_.pod_flags[p] |= kDoNotDisruptAtNow;
      b_.do_not_disrupt_pods.push_back(p);
    } else {
      b_.pod_flags[p] |= kMovable;
    }
    return absl::OkStatus();
  }

  absl::Status IndexPods() {
    const size_t pod_count = snap_.pod_count();
    b_.pod_flags.assign(pod_count, 0);
    b_.pod_profile.assign(pod_count, -1);
    shape_list_.assign(snap_.pod_shape_count(), -1);
    b_.shape_requests.assign(snap_.pod_shape_count(), nullptr);
    b_.shape_profile.assign(snap_.pod_shape_count(), -1);
    b_.shape_constraints.assign(snap_.pod_shape_count(),
                                SchedulerBase::kNoConstraints);
    b_.shape_ports.assign(snap_.pod_shape_count(), -1);
    b_.pod_req_row.assign(pod_count, 0);
    shape_blocked_.assign(snap_.pod_shape_count(), 0);
    absl::flat_hash_map<std::string, int32_t> profile_ids;
    for (PodIndex p = 0; p < pod_count; ++p) {
      const uint32_t shape_id = snap_.PodShapeId(p);
      const uint8_t flags = FlagsOf(p, shape_id);
      if (flags & kShapeTerminal) continue;
      const bool bound = snap_.NodeOfPod(p).has_value();
      const bool pending =
          snap_.PodIsUnbound(p) && (flags & kShapeTerminating) == 0;
      if (!bound && !pending) continue;
      absl::Status s = IndexPod(p, shape_id, flags, pending, profile_ids);
      if (!s.ok() && !pending) return s;
      if (!s.ok()) {
        if (b_.pending_status.ok()) b_.pending_status = s;
        continue;
      }
    }
    std::set<std::string, std::less<>> extended;
    for (size_t l = 0; l < lists_.size(); ++l) {
      if (list_rows_from_[l] != 0) continue;  // Standard resources only.
      for (const auto& [k, v] : *lists_[l]) {
        if (k != kCpu && k != kMemory && k != kEphemeral && k != kPods) {
          extended.emplace(k);
        }
      }
    }
    b_.dims = {std::string(kCpu), std::string(kMemory), std::string(kEphemeral),
               std::string(kPods)};
    b_.dims.insert(b_.dims.end(), extended.begin(), extended.end());
    b_.d = b_.dims.size();
    // The dimensions are distinct and non-empty by construction.
    b_.resource_dims.emplace(*scheduling::ResourceDims::Create(b_.dims));
    // Each indexed shape's requests as a row over the dimensions, after the
    // zero row of the pods that are not indexed.
    b_.req_rows.assign((lists_.size() + 1) * b_.d, 0);
    for (size_t l = 0; l < lists_.size(); ++l) {
      if (const uint32_t from = list_rows_from_[l]; from != 0) {
        // The previous base's row, over the same first four dimensions
        // (CarryShape).
        const int64_t* row = &shapes_from_->req_rows[size_t{from} * 4];
        std::copy(row, row + 4, &b_.req_rows[(l + 1) * b_.d]);
        continue;
      }
      for (const auto& [k, v] : *lists_[l]) {
        const size_t i = static_cast<size_t>(
            std::find(b_.dims.begin(), b_.dims.end(), k) - b_.dims.begin());
        b_.req_rows[(l + 1) * b_.d + i] = v;
      }
    }
    b_.shape_row.assign(snap_.pod_shape_count(), 0);
    for (size_t id = 0; id < shape_list_.size(); ++id) {
      b_.shape_row[id] = static_cast<uint32_t>(shape_list_[id] + 1);
    }
    return absl::OkStatus();
  }

  absl::Status NodeFree(NodeIndex n) {
    const v1::Node& node = snap_.nodes()[n];
    const bool use_capacity = node.status().allocatable().empty();
    const auto& alloc =
        use_capacity ? node.status().capacity() : node.status().allocatable();
    int64_t* free = &b_.node_free[size_t{n} * b_.d];
    for (size_t i = 0; i < b_.d; ++i) {
      const auto it = alloc.find(b_.dims[i]);
      if (it == alloc.end()) continue;
      absl::StatusOr<int64_t> v = ParseRequestAt(
          it->second, use_capacity ? "status.capacity." : "status.allocatable.",
          b_.dims[i]);
      if (!v.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "nodes/", node.metadata().name(), ": ", v.status().message()));
      }
      free[i] = *v;
      b_.node_alloc[size_t{n} * b_.d + i] = *v;
    }
    return absl::OkStatus();
  }

  // The node's NodeClaim: by providerID, else by status.nodeName.
  std::optional<snapshot::NodeClaimIndex> ClaimOfNode(
      const v1::Node& node) const {
    std::optional<snapshot::NodeClaimIndex> claim =
        snap_.FindNodeClaimByProviderId(node.spec().provider_id());
    if (!claim) claim = snap_.FindNodeClaimByNodeName(node.metadata().name());
    return claim;
  }

  // `claim`: ClaimOfNode(node), as for the two below.
  bool NodeDeleting(const v1::Node& node,
                    std::optional<snapshot::NodeClaimIndex> claim) const {
    bool deleting = node.metadata().has_deletion_timestamp();
    for (const v1::Taint& t : node.spec().taints()) {
      if (t.key() == well_known::kDisruptedTaintKey) deleting = true;
    }
    return deleting ||
           (claim &&
            snap_.node_claims()[*claim].metadata().has_deletion_timestamp());
  }

  // Karpenter's StateNode.Initialized: a node without a NodeClaim is
  // initialized; with one, when the NodeClaim's Initialized condition is
  // True or the node carries karpenter.sh/initialized=true.
  bool NodeInitialized(const v1::Node& node,
                       std::optional<snapshot::NodeClaimIndex> claim) const {
    if (!claim) return true;
    static const std::string* const kInitialized =
        new std::string(well_known::kNodeInitializedLabelKey);
    const auto& labels = node.metadata().labels();
    const auto it = labels.find(*kInitialized);
    return (it != labels.end() && it->second == "true") ||
           IsConditionTrue(snap_.node_claims()[*claim].status().conditions(),
                           well_known::kConditionTypeInitialized);
  }

  // Karpenter's IsUnderConsolidateAfter (utils/disruption): until when the
  // node's NodeClaim is inside its NodePool's consolidateAfter.
  absl::Time QuietUntil(const v1::Node& node,
                        std::optional<snapshot::NodeClaimIndex> claim) const {
    static const std::string* const kNodePool =
        new std::string(well_known::kNodePoolLabelKey);
    const auto label = node.metadata().labels().find(*kNodePool);
    if (!claim || label == node.metadata().labels().end()) {
      return absl::InfinitePast();
    }
    const std::optional<snapshot::NodePoolIndex> pool =
        snap_.FindNodePool(label->second);
    if (!pool) return absl::InfinitePast();
    const std::optional<absl::Duration> consolidate_after =
        ConsolidateAfter(*pool);
    if (!consolidate_after.has_value()) return absl::InfinitePast();
    const v1::NodeClaim& nc = snap_.node_claims()[*claim];
    const v1::Condition* init = FindCondition(
        nc.status().conditions(), well_known::kConditionTypeInitialized);
    if (!IsConditionTrue(init)) return absl::InfinitePast();
    const auto& last = nc.status().last_pod_event_time();
    const absl::Time start = (last.seconds() != 0 || last.nanos() != 0)
                                 ? TimeFromProto(last)
                                 : TimeFromProto(init->last_transition_time());
    return start + *consolidate_after;
  }

  // NodePool `pool`'s consolidateAfter when positive, else nullopt (also
  // for a spec that does not parse); parsed once per NodePool.
  std::optional<absl::Duration> ConsolidateAfter(
      snapshot::NodePoolIndex pool) const {
    if (consolidate_after_.empty()) {
      consolidate_after_.reserve(snap_.node_pools().size());
      for (const v1::NodePool& np : snap_.node_pools()) {
        absl::StatusOr<budget::DisruptionSpec> spec =
            budget::ParseDisruptionSpec(np);
        consolidate_after_.push_back(
            spec.ok() && spec->consolidate_after.has_value() &&
                    *spec->consolidate_after > absl::ZeroDuration()
                ? spec->consolidate_after
                : std::nullopt);
      }
    }
    return consolidate_after_[pool];
  }

  // IndexNodes from nodes_from_, whose node facts hold for this snapshot
  // (the same Nodes, NodeClaims and NodePools over the same dimensions):
  // only what the pods change (free capacity, host ports, the placement
  // order by free CPU) is computed again.
  void IndexNodesFrom(const SchedulerBase& from) {
    const auto nodes = snap_.nodes();
    b_.node_alloc = from.node_alloc;
    b_.node_free = from.node_alloc;
    b_.node_deleting = from.node_deleting;
    b_.node_uninitialized = from.node_uninitialized;
    b_.node_quiet_until = from.node_quiet_until;
    b_.node_ports.assign(nodes.size(), scheduling::HostPortSet());
    SubtractPods();
    b_.node_name_rank = from.node_name_rank;
    b_.node_order = from.node_order;
    SortNodeOrder();
  }

  // Subtracts the requests of each node's indexed pods from its free row
  // and adds their host ports. In pod order, which reads the per-pod
  // tables in sequence; each node still sees its own pods in ascending
  // order (PodsOnNode's), and the sums do not depend on it.
  void SubtractPods() {
    const size_t d = b_.d;
    for (PodIndex p = 0; p < snap_.pod_count(); ++p) {
      if ((b_.pod_flags[p] & kIndexed) == 0) continue;
      // An indexed pod is bound to a node of the snapshot (IndexPods).
      const NodeIndex n = *snap_.NodeOfPod(p);
      int64_t* free = &b_.node_free[size_t{n} * d];
      const int64_t* req = b_.Req(p);
      for (size_t i = 0; i < d; ++i) free[i] -= req[i];
      if (const auto* ports = b_.Ports(p)) b_.node_ports[n].Add(*ports);
    }
  }

  // The targets by ascending free CPU, then name (node_name_rank).
  void SortNodeOrder() {
    const size_t d = b_.d;
    const std::vector<int64_t>& free = b_.node_free;
    const std::vector<uint32_t>& rank = b_.node_name_rank;
    std::sort(b_.node_order.begin(), b_.node_order.end(),
              [&](NodeIndex a, NodeIndex b) {
                const int64_t fa = free[size_t{a} * d + kCpuDim];
                const int64_t fb = free[size_t{b} * d + kCpuDim];
                if (fa != fb) return fa < fb;
                return rank[a] < rank[b];
              });
  }

  void RankNodeNames() {
    const auto nodes = snap_.nodes();
    std::vector<NodeIndex> by_name(nodes.size());
    std::iota(by_name.begin(), by_name.end(), 0);
    std::sort(by_name.begin(), by_name.end(), [&](NodeIndex a, NodeIndex b) {
      return nodes[a].metadata().name() < nodes[b].metadata().name();
    });
    b_.node_name_rank.resize(nodes.size());
    for (uint32_t r = 0; r < by_name.size(); ++r)
      b_.node_name_rank[by_name[r]] = r;
  }

  absl::Status IndexNodes() {
    if (nodes_from_ != nullptr && nodes_from_->dims == b_.dims) {
      IndexNodesFrom(*nodes_from_);
      return absl::OkStatus();
    }
    const auto nodes = snap_.nodes();
    b_.node_free.assign(nodes.size() * b_.d, 0);
    b_.node_alloc.assign(nodes.size() * b_.d, 0);
    b_.node_ports.assign(nodes.size(), scheduling::HostPortSet());
    b_.node_deleting.assign(nodes.size(), 0);
    b_.node_uninitialized.assign(nodes.size(), 0);
    b_.node_quiet_until.assign(nodes.size(), absl::InfinitePast());
    // The Nodes of node_objects_from_'s snapshot by address: one of them
    // here is the same object, read against the same NodeClaims and
    // NodePools.
    absl::flat_hash_map<const v1::Node*, NodeIndex> earlier;
    const SchedulerBase* from = node_objects_from_;
    if (from != nullptr && from->dims == b_.dims) {
      const auto old = from->snap->nodes();
      earlier.reserve(old.size());
      for (NodeIndex m = 0; m < old.size(); ++m) earlier.emplace(&old[m], m);
    }
    const size_t d = b_.d;
    for (NodeIndex n = 0; n < nodes.size(); ++n) {
      const v1::Node& node = nodes[n];
      if (const auto it = earlier.find(&node); it != earlier.end()) {
        const NodeIndex m = it->second;
        std::copy_n(&from->node_alloc[size_t{m} * d], d,
                    &b_.node_alloc[size_t{n} * d]);
        std::copy_n(&from->node_alloc[size_t{m} * d], d,
                    &b_.node_free[size_t{n} * d]);
        b_.node_deleting[n] = from->node_deleting[m];
        b_.node_uninitialized[n] = from->node_uninitialized[m];
        b_.node_quiet_until[n] = from->node_quiet_until[m];
      } else {
        if (absl::Status s = NodeFree(n); !s.ok()) return s;
        const std::optional<snapshot::NodeClaimIndex> claim = ClaimOfNode(node);
        b_.node_deleting[n] = NodeDeleting(node, claim);
        b_.node_uninitialized[n] = !NodeInitialized(node, claim);
        b_.node_quiet_until[n] = QuietUntil(node, claim);
      }
      if (!b_.node_deleting[n] && !node.spec().unschedulable() &&
          IsConditionTrue(node.status().conditions(),
                          well_known::kConditionTypeReady)) {
        b_.node_order.push_back(n);
      }
    }
    SubtractPods();
    RankNodeNames();
    SortNodeOrder();
    return absl::OkStatus();
  }

  absl::Status IndexPools() {
    if (nodes_from_ != nullptr && nodes_from_->dims == b_.dims &&
        !snap_.daemon_sets().empty() &&
        !nodes_from_->snap->daemon_sets().empty()) {
      // The same NodePools and Nodes: the same pools and usage, and no
      // DaemonSet-pod overhead in either (DaemonSets give it): shared.
      b_.pool_map = nodes_from_->pool_map;
      return absl::OkStatus();
    }
    absl::Status s = BuildPools();
    b_.pool_map =
        std::make_shared<const SchedulerBase::PoolMap>(std::move(pools_));
    return s;
  }

  absl::Status BuildPools() {
    if (nodes_from_ != nullptr && nodes_from_->dims == b_.dims) {
      // The same NodePools and Nodes: the same pools and usage; only the
      // DaemonSet overhead read from pods is computed again.
      pools_ = nodes_from_->pools();
      for (auto& [name, info] : pools_) info.overhead.assign(b_.d, 0);
      if (snap_.daemon_sets().empty()) AddDaemonSetOverhead();
      return absl::OkStatus();
    }
    for (const v1::NodePool& pool : snap_.node_pools()) {
      const std::string& name = pool.metadata().name();
      PoolBase info;
      info.pool = &pool;
      const auto& tmpl = pool.spec().template_();
      absl::StatusOr<Requirements> reqs = Requirements::FromProto(
          tmpl.spec().requirements(), "spec.template.spec.requirements");
      if (!reqs.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("nodepools/", name, ": ", reqs.status().message()));
      }
      info.base = *std::move(reqs);
      for (const std::string& key : SortedKeys(tmpl.metadata().labels())) {
        info.base.Add(Requirement::In(key, {tmpl.metadata().labels().at(key)}));
      }
      info.base.Add(Requirement::In(well_known::kNodePoolLabelKey, {name}));
      info.overhead.assign(b_.d, 0);
      info.weight = pool.spec().has_weight() ? pool.spec().weight() : 0;
      info.ready = ConditionStatus(pool.status().conditions(),
                                   well_known::kConditionTypeReady) != "False";
      for (const std::string& key : SortedKeys(pool.spec().limits())) {
        absl::StatusOr<int64_t> v = ParseRequest(
            pool.spec().limits().at(key), absl::StrCat("spec.limits.", key));
        if (!v.ok()) {
          return absl::InvalidArgumentError(
              absl::StrCat("nodepools/", name, ": ", v.status().message()));
        }
        info.limit_keys.push_back(key);
        info.limits.push_back(*v);
      }
      pools_.emplace(name, std::move(info));
    }
    // With DaemonSets, a new node's overhead comes from their templates
    // (daemon_overhead), and the pods' overhead would never be read.
    if (snap_.daemon_sets().empty()) AddDaemonSetOverhead();
    return PoolUsage();
  }

  // Each limited pool's nodes that are not deleting, with their capacity
  // per limited resource.
  absl::Status PoolUsage() {
    const std::string pool_key(well_known::kNodePoolLabelKey);
    const auto nodes = snap_.nodes();
    for (NodeIndex n = 0; n < nodes.size(); ++n) {
      if (b_.node_deleting[n]) continue;
      const v1::Node& node = nodes[n];
      const auto label = node.metadata().labels().find(pool_key);
      if (label == node.metadata().labels().end()) continue;
      const auto it = pools_.find(label->second);
      if (it == pools_.end() || it->second.limit_keys.empty()) continue;
      PoolBase& info = it->second;
      std::vector<int64_t> used(info.limit_keys.size(), 0);
      for (size_t i = 0; i < used.size(); ++i) {
        const auto c = node.status().capacity().find(info.limit_keys[i]);
        if (c == node.status().capacity().end()) continue;
        absl::StatusOr<int64_t> v =
            ParseRequestAt(c->second, "status.capacity.", info.limit_keys[i]);
        if (!v.ok()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "nodes/", node.metadata().name(), ": ", v.status().message()));
        }
        used[i] = *v;
      }
      info.usage.emplace_back(n, std::move(used));
    }
    return absl::OkStatus();
  }

  // Per pool, per DaemonSet, the per-resource maximum. The sums do not
  // depend on the order the hash map is walked in.
  void AddDaemonSetOverhead() {
    using Key = std::tuple<absl::string_view, absl::string_view,
                           absl::string_view>;  // pool, namespace, name
    absl::flat_hash_map<Key, std::vector<int64_t>> ds;
    const std::string pool_key(well_known::kNodePoolLabelKey);
    for (PodIndex p : daemon_pods_) {
      const std::optional<NodeIndex> n = snap_.NodeOfPod(p);
      if (!n.has_value()) continue;
      const auto& labels = snap_.nodes()[*n].metadata().labels();
      const auto label = labels.find(pool_key);
      if (label == labels.end() || pools_.count(label->second) == 0) {
        continue;
      }
      const v1::Pod& pod = snap_.PodShape(p);
      std::vector<int64_t>& max =
          ds[Key(label->second, pod.metadata().namespace_(),
                 DaemonSetOwner(pod)->name())];
      max.resize(b_.d, 0);
      for (size_t i = 0; i < b_.d; ++i) {
        max[i] = std::max(max[i], b_.Req(p)[i]);
      }
    }
    for (const auto& [key, max] : ds) {
      std::vector<int64_t>& overhead =
          pools_.find(std::get<0>(key))->second.overhead;
      for (size_t i = 0; i < b_.d; ++i) overhead[i] += max[i];
    }
  }

  // The pods of deleting nodes that would be rescheduled (which pods may
  // move is IndexPod's).
  void IndexMoves() {
    const auto nodes = snap_.nodes();
    for (NodeIndex n = 0; n < nodes.size(); ++n) {
      if (!b_.node_deleting[n]) continue;
      for (PodIndex p : snap_.PodsOnNode(n)) {
        if ((b_.pod_flags[p] & kIndexed) != 0 &&
            IsReschedulable(snap_.PodShape(p))) {
          b_.deleting_pods.emplace_back(p, n);
        }
      }
    }
  }

  // What the indexing reads of a pod that is its shape's, once per shape.
  enum ShapeFlag : uint8_t {
    kShapeKnown = 1,
    kShapeTerminal = 2,
    kShapeTerminating = 4,
    kShapeDaemon = 8,  // Owned by a DaemonSet.
    // Active (neither terminal nor terminating) with a do-not-disrupt that
    // is active at the infinite past.
    kShapeDoNotDisrupt = 16,
    // Has claim-backed volumes (a PersistentVolumeClaim or an ephemeral
    // volume).
    kShapeClaims = 32,
    // Has preferences Karpenter relaxes (preferred affinity terms,
    // ScheduleAnyway spreads): may have variants (IndexVariants).
    kShapePreferences = 64,
  };
  // The flags of pod `p`, of shape `shape_id`.
  uint8_t FlagsOf(PodIndex p, uint32_t shape_id) {
    uint8_t& flags = b_.shape_flags[shape_id];
    if (flags != 0) return flags;
    const v1::Pod& pod = snap_.PodShape(p);
    flags = kShapeKnown;
    const bool terminal = drain::IsTerminal(pod);
    const bool terminating = drain::IsTerminating(pod);
    if (terminal) flags |= kShapeTerminal;
    if (terminating) flags |= kShapeTerminating;
    if (DaemonSetOwner(pod) != nullptr) flags |= kShapeDaemon;
    if (!terminal && !terminating && !pod.metadata().annotations().empty() &&
        drain::EvaluateDoNotDisrupt(pod, absl::InfinitePast()).active()) {
      flags |= kShapeDoNotDisrupt;
    }
    for (const v1::Volume& v : pod.spec().volumes()) {
      if (v.has_persistent_volume_claim() || v.has_ephemeral()) {
        flags |= kShapeClaims;
      }
    }
    if ((pod.spec().has_affinity() ||
         !pod.spec().topology_spread_constraints().empty()) &&
        Preferences(pod).count() > 0) {
      flags |= kShapePreferences;
    }
    return flags;
  }

  const snapshot::Snapshot& snap_;
  const budget::PdbIndex& pdbs_;
  SchedulerBase& b_;
  const SchedulerBase* nodes_from_;
  const SchedulerBase* volumes_from_;
  const SchedulerBase* node_objects_from_;
  scheduling::PodRequestsCalculator requests_;
  std::vector<PodIndex> daemon_pods_;  // Bound, indexed, DaemonSet-owned.
  // Indexed (or pending) pods whose shape has kShapeClaims.
  std::vector<PodIndex> claim_pods_;
  // By shape id: whether a PDB fully blocks the shape's pods (IndexPod).
  std::vector<uint8_t> shape_blocked_;
  // By shape id: index into lists_ and the profile, or -1 before indexing.
  std::vector<int32_t> shape_list_;
  // By profile of shapes_from_: the same profile's index here, or -1.
  std::vector<int32_t> carried_profiles_;
  // Requests of each indexed shape (held by b_.shape_requests), and the
  // row of shapes_from_->req_rows that holds them (0: computed here).
  std::vector<const FastList*> lists_;
  std::vector<uint32_t> list_rows_from_;
  // BuildSchedulerBase's shapes_from and same_shapes (null/empty: none).
  const SchedulerBase* shapes_from_ = nullptr;
  absl::Span<const uint32_t> same_shapes_;
  // The pool table while IndexPools builds it (then b_.pool_map).
  SchedulerBase::PoolMap pools_;
  // ConsolidateAfter of each NodePool, filled on first use.
  mutable std::vector<std::optional<absl::Duration>> consolidate_after_;
};

}  // namespace

absl::Status BuildSchedulerBase(const snapshot::Snapshot& snapshot,
                                const budget::PdbIndex& pdbs,
                                SchedulerBase& out,
                                const SchedulerBase* nodes_from,
                                const SchedulerBase* volumes_from,
                                const SchedulerBase* shapes_from,
                                absl::Span<const uint32_t> same_shapes,
                                const SchedulerBase* node_objects_from) {
  return BaseBuilder(snapshot, pdbs, out, nodes_from, volumes_from, shapes_from,
                     same_shapes,
                     nodes_from == nullptr ? node_objects_from : nullptr)
      .Build();
}

}  // namespace karpenter::disruption::internal
namespace karpenter::disruption {

struct Scheduler::State {
  std::unique_ptr<internal::SchedulerBase> owned_base;
  const internal::SchedulerBase* base = nullptr;
  SimulatorOptions options;
  // Points at `owned_catalog`, or at the caller's (Build over facts).
  const InstanceTypeCatalog* catalog = nullptr;
  InstanceTypeCatalog owned_catalog;
  // The kDoNotDisruptAtNow pods whose do-not-disrupt is not active at
  // options.now.
  absl::flat_hash_set<PodIndex> movable_now;
  // The base's deleting_pods that are movable.
  std::vector<std::pair<PodIndex, NodeIndex>> deleting_pods;

  // Some NodePool's template has a PreferNoSchedule taint: a pod's last
  // relaxation then tolerates them (scheduler.go NewScheduler).
  bool prefer_no_schedule = false;

  bool Movable(PodIndex p) const {
    const uint8_t f = base->pod_flags[p];
    return (f & kMovable) != 0 ||
           ((f & kDoNotDisruptAtNow) != 0 && movable_now.contains(p));
  }
  absl::Status Finish();
  absl::Status CheckCatalog() const;
  // The NodePool `name` with its instance types, built on first use (a
  // simulation touches the candidates' NodePools only); null when the
  // snapshot has no such NodePool.
  const PoolInfo* Pool(absl::string_view name) const;
  // Every NodePool that is not Ready=False, by descending weight, then
  // name: the order Karpenter's scheduler tries NodeClaim templates in.
  const std::vector<const PoolInfo*>& PoolsByWeight() const;
  // The values of topology key `key` new NodeClaims may take: the NodePools'
  // (requirements, labels, offerings) and the existing nodes'; sorted.
  // Computed once per key for every pass of this Scheduler.
  const std::vector<std::string>& Universe(const std::string& key) const;

 private:
  // Instance type `type`'s capacity per dimension (CheckCatalog has parsed
  // every quantity once already).
  absl::StatusOr<std::vector<int64_t>> Capacity(const InstanceType& type,
                                                absl::string_view pool) const;

  mutable std::once_flag by_weight_once_;
  mutable std::vector<const PoolInfo*> by_weight_;
  mutable std::mutex mu_;  // Guards pools_.
  mutable std::map<std::string, std::unique_ptr<PoolInfo>, std::less<>> pools_;
  mutable std::mutex universe_mu_;  // Guards universe_.
  mutable std::map<std::string, std::vector<std::string>, std::less<>>
      universe_;
};

absl::StatusOr<std::vector<int64_t>> Scheduler::State::Capacity(
    const InstanceType& type, absl::string_view pool) const {
  std::vector<int64_t> capacity(base->d, 0);
  for (size_t i = 0; i < base->d; ++i) {
    const auto c = type.capacity.find(base->dims[i]);
    if (c == type.capacity.end()) continue;
    absl::StatusOr<int64_t> v =
        ParseRequest(c->second, absl::StrCat("capacity.", base->dims[i]));
    if (!v.ok()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("instance type \"%s\" of NodePool \"%s\": %s",
                          type.name, pool, v.status().message()));
    }
    capacity[i] = *v;
  }
  return capacity;
}

absl::Status Scheduler::State::CheckCatalog() const {
  for (const auto& [name, pb] : base->pools()) {
    const auto it = catalog->find(name);
    if (it == catalog->end()) continue;
    for (const InstanceType& type : it->second) {
      absl::StatusOr<std::vector<int64_t>> c = Capacity(type, name);
      if (!c.ok()) return c.status();
      for (const std::string& key : pb.limit_keys) {
        const auto q = type.capacity.find(key);
        if (q == type.capacity.end()) continue;
        absl::StatusOr<int64_t> v =
            ParseRequest(q->second, absl::StrCat("capacity.", key));
        if (!v.ok()) {
          return absl::InvalidArgumentError(
              absl::StrFormat("instance type \"%s\" of NodePool \"%s\": %s",
                              type.name, name, v.status().message()));
        }
      }
    }
  }
  return absl::OkStatus();
}

const PoolInfo* Scheduler::State::Pool(absl::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto cached = pools_.find(name);
  if (cached != pools_.end()) return cached->second.get();
  const auto pb = base->pools().find(name);
  if (pb == base->pools().end()) return nullptr;
  auto info = std::make_unique<PoolInfo>();
  info->pool = pb->second.pool;
  info->pb = &pb->second;
  info->name = std::string(name);
  info->base = pb->second.base;
  info->overhead = pb->second.overhead;
  for (const auto& [key, r] : info->base.map()) {
    if (r.min_values().has_value()) {
      info->min_values.emplace_back(key, *r.min_values());
    }
  }
  const auto it = catalog->find(name);
  if (it != catalog->end()) {
    for (const InstanceType& type : it->second) {
      // CheckCatalog accepted every capacity.
      TypeInfo t{
          &type, Capacity(type, name).value_or(std::vector<int64_t>()), {}, {}};
      for (const std::string& key : pb->second.limit_keys) {
        const auto c = type.capacity.find(key);
        int64_t v = 0;
        if (c != type.capacity.end()) {
          v = ParseRequest(c->second, key).value_or(0);
        }
        t.limited.push_back(v);
      }
      t.overhead = info->overhead;
      if (base->daemon_overhead.has_value()) {
        // The DaemonSets whose pods would run on this type under this
        // template (isDaemonPodCompatible).
        Requirements node = info->base;
        for (const auto& [key, value] : type.labels) {
          node.Add(Requirement::In(key, {value}));
        }
        node.Add(
            Requirement::In(well_known::kLabelInstanceTypeStable, {type.name}));
        const auto& taints = info->pool->spec().template_().spec().taints();
        const std::vector<v1::Taint> list(taints.begin(), taints.end());
        t.overhead.assign(base->d, 0);
        for (const auto& [resource, milli] :
             base->daemon_overhead->For(node, list)) {
          const auto dim =
              std::find(base->dims.begin(), base->dims.end(), resource);
          if (dim != base->dims.end()) {
            t.overhead[static_cast<size_t>(dim - base->dims.begin())] = milli;
          }
        }
      }
      if (TypeAdmits(t, info->base)) {
        info->admitted.push_back(info->types.size());
      }
      info->types.push_back(std::move(t));
    }
  }
  return pools_.emplace(std::string(name), std::move(info)).first->second.get();
}

const std::vector<const PoolInfo*>& Scheduler::State::PoolsByWeight() const {
  std::call_once(by_weight_once_, [&] {
    for (const auto& [name, pb] : base->pools()) {
      if (!pb.ready) continue;
      by_weight_.push_back(Pool(name));
    }
    std::stable_sort(by_weight_.begin(), by_weight_.end(),
                     [](const PoolInfo* a, const PoolInfo* b) {
                       return a->pb->weight > b->pb->weight;
                     });
  });
  return by_weight_;
}

absl::Status Scheduler::State::Finish() {
  if (options.include_pending_pods && !base->pending_status.ok()) {
    return base->pending_status;
  }
  if (absl::Status s = CheckCatalog(); !s.ok()) return s;
  for (const auto& [name, pb] : base->pools()) {
    for (const v1::Taint& t : pb.pool->spec().template_().spec().taints()) {
      if (t.effect() == well_known::kTaintEffectPreferNoSchedule) {
        prefer_no_schedule = true;
      }
    }
  }
  for (PodIndex p : base->do_not_disrupt_pods) {
    if (!drain::EvaluateDoNotDisrupt(base->snap->DecodePod(p), options.now)
             .active()) {
      movable_now.insert(p);
    }
  }
  for (const auto& [p, n] : base->deleting_pods) {
    if (Movable(p)) deleting_pods.emplace_back(p, n);
  }
  return absl::OkStatus();
}

absl::StatusOr<Scheduler> Scheduler::Build(const snapshot::Snapshot& snapshot,
                                           const InstanceTypeCatalog& catalog,
                                           SimulatorOptions options) {
  auto state = std::make_unique<State>();
  state->owned_base = std::make_unique<internal::SchedulerBase>();
  if (absl::Status s = internal::BuildSchedulerBase(
          snapshot, budget::PdbIndex::Build(snapshot), *state->owned_base);
      !s.ok()) {
    return s;
  }
  state->base = state->owned_base.get();
  state->options = options;
  state->owned_catalog = catalog;
  state->catalog = &state->owned_catalog;
  if (absl::Status s = state->Finish(); !s.ok()) return s;
  return Scheduler(std::move(state));
}

absl::StatusOr<Scheduler> Scheduler::Build(const SnapshotFacts& facts,
                                           const InstanceTypeCatalog& catalog,
                                           SimulatorOptions options) {
  if (!facts.simulation_status().ok()) return facts.simulation_status();
  auto state = std::make_unique<State>();
  state->base = facts.scheduler_base();
  state->options = options;
  state->catalog = &catalog;
  if (absl::Status s = state->Finish(); !s.ok()) return s;
  return Scheduler(std::move(state));
}

Scheduler::Scheduler(std::unique_ptr<const State> state)
    : state_(std::move(state)) {}
Scheduler::Scheduler(Scheduler&&) noexcept = default;
Scheduler& Scheduler::operator=(Scheduler&&) noexcept = default;
Scheduler::~Scheduler() = default;

namespace {

// A pod to place, and whether it comes from a candidate (Karpenter does not
// move a candidate's pods onto a node that is not initialized).
struct Moving {
  PodIndex pod = 0;
  int from_candidate = 0;
};

// A new NodeClaim being filled (Karpenter's in-flight NodeClaim).
struct Claim {
  const PoolInfo* info = nullptr;
  int id = 0;  // Order of opening; its hostname is a placeholder.
  // The NodePool's requirements, narrowed by every pod added (their node
  // selectors and affinity, volume topology, topology domains).
  Requirements reqs;
  std::vector<size_t> types;   // Indexes into info->types that still fit.
  std::vector<int64_t> total;  // DaemonSet overhead plus the pods' requests.
  std::vector<PodIndex> pods;
  scheduling::HostPortSet ports;  // Held by the pods added so far.
  // minValues was not met and the BestEffort policy relaxed it.
  bool min_values_relaxed = false;
  // The capacity reservations it holds one instance of (reservationmanager.go).
  std::set<std::string> reserved;
};

// A pod added to a new NodeClaim, with the claim's requirements right after
// it was added: Karpenter records a pod in a topology domain then, and only
// when the claim's value for the key is decided (topology.go Record).
struct ClaimRecord {
  PodIndex pod = 0;
  int claim = 0;
  Requirements reqs;
  // The constraints it was placed with (its preferences as far as
  // relaxed); null if none.
  const scheduling::PodConstraints* constraints = nullptr;
};

// Pods on new NodeClaims that one selector selects, by where they are on
// one topology key.
struct Tally {
  size_t scanned = 0;  // Records looked at.
  std::map<std::string, int32_t, std::less<>> decided;
  absl::flat_hash_map<int, int32_t> per_claim;
  // Claims whose value is undecided, with the values they could take
  // (nullopt: any).
  std::vector<std::optional<Requirement>> undecided;
};

}  // namespace

// The Simulate steps, over one State; local to this file.
class SimulationPass {
 public:
  SimulationPass(const Scheduler::State& s,
                 absl::Span<const Candidate> candidates)
      : s_(s), b_(*s.base), candidates_(candidates) {}

  SimulationResult Run();
  void set_consolidation(bool c) { consolidation_ = c; }
  // Karpenter's provisioner over `pods` (see Scheduler::Provision).
  Scheduler::Provisioned Provision(absl::Span<const PodIndex> pods);
  // Every node's Filter failures for pod `p` as if it were unbound (see
  // Scheduler::Fit).
  std::vector<std::vector<scheduling::FilterFailure>> FitAll(PodIndex p);
  // kube-scheduler's binding of `pods` (see Scheduler::Bind).
  Scheduler::Bound BindAll(absl::Span<const PodIndex> pods, uint64_t seed);

 private:
  bool Fits(const int64_t* req, const int64_t* free) const {
    for (size_t i = 0; i < b_.d; ++i) {
      if (req[i] > 0 && req[i] > free[i]) return false;
    }
    return true;
  }
  // Bit kAffinityOk: nodeSelector and required node affinity match node n;
  // bit kTaintsOk: the pod tolerates n's NoSchedule and NoExecute taints.
  static constexpr uint8_t kAffinityOk = 1;
  static constexpr uint8_t kTaintsOk = 2;
  uint8_t Static(PodIndex p, NodeIndex n);
  bool Compatible(PodIndex p, NodeIndex n) {
    return Static(p, n) == (kAffinityOk | kTaintsOk);
  }
  // f(pod): pod p as the topology plugins read it (its constraints, its node
  // affinity and taint predicates).
  template <typename F>
  auto WithIncoming(PodIndex p, F f);
  // PodTopologySpread and InterPodAffinity for p on n (first failure).
  std::optional<scheduling::FilterFailure> TopologyFilter(PodIndex p,
                                                          NodeIndex n);
  // Whether p's placement depends on other pods' placement.
  bool TopologyMatters(PodIndex p);
  // A topology key, other than the hostname, on which the anti-affinity of
  // pods placed now keeps p out of some domain (a new node would have to be
  // narrowed away from it), or nullopt.
  std::optional<std::string> ExistingAntiAffinityKey(PodIndex p);
  // Every failing plugin for p on n, in kube-scheduler's order; with
  // `first_only`, stops at the first failing plugin.
  std::vector<scheduling::FilterFailure> FilterAll(PodIndex p, NodeIndex n,
                                                   bool first_only);
  // kube-scheduler's "0/N nodes are available: ..." for p over every node
  // that is not a candidate.
  std::string NoNodeAvailable(PodIndex p);
  void Place(PodIndex p, NodeIndex n);
  // Karpenter's volume topology (volumetopology.go): the requirements a
  // new node must meet for p's volumes, as alternatives (empty: none). An
  // error for a claim that is missing or unbound with Immediate binding.
  std::optional<std::string> VolumeAlternatives(
      PodIndex p, std::vector<Requirements>& out) const;
  // Node n's host ports in use in this pass.
  const scheduling::HostPortSet& PortsOf(NodeIndex n) const;
  scheduling::HostPortSet& MutablePortsOf(NodeIndex n);
  // Node n's CSI volumes in use in this pass.
  const scheduling::NodeVolumeUsage& VolumesOf(NodeIndex n) const;
  scheduling::NodeVolumeUsage& MutableVolumesOf(NodeIndex n);
  // NodeVolumeLimits, VolumeBinding and VolumeZone all pass.
  bool VolumesFit(const scheduling::PodVolumes& volumes, NodeIndex n) const;
  bool PlaceOnExisting(PodIndex p);
  void Fail(PodIndex p, std::string reason) {
    failed_.emplace_back(p, std::move(reason));
  }
  // Adds pod `p` to `claim` if its NodePool's template, the topology and
  // one instance type admit it with the pods already there; else returns
  // why not.
  std::optional<std::string> TryAdd(Claim& claim, PodIndex p);
  // Places p on a new NodeClaim: an open one first, else a new one of the
  // first NodePool by weight that takes it. Returns why not.
  std::optional<std::string> PlaceOnNewClaim(PodIndex p);
  // Narrows `reqs` (a claim's requirements with p's own, `pod_reqs`) to the
  // topology domains p may take on `claim` (Karpenter's
  // Topology.AddRequirements). False, with `why`, when no domain is left.
  bool Narrow(PodIndex p, const Claim& claim, const Requirements& pod_reqs,
              Requirements& reqs, std::string& why);
  // Whether the pods on new NodeClaims keep p from existing node n (their
  // spread counts, their anti-affinity, p's anti-affinity against them).
  // Returns kube-scheduler's message for the plugin that refuses, or
  // nullopt.
  std::optional<std::string> ClaimsBlock(PodIndex p, NodeIndex n);
  // The values of topology key `key` new NodeClaims may take: the NodePools'
  // (requirements, labels, offerings) and the existing nodes'; sorted.
  const std::vector<std::string>& Universe(const std::string& key);
  Tally& TallyOf(const scheduling::PodSelectorClause& clause,
                 const std::string& key);
  // The requirements a claim may take from the NodePool's remaining limits:
  // the instance types whose capacity fits in them. False when none.
  std::vector<size_t> WithinLimits(const PoolInfo& info);
  // Holds one instance of every capacity reservation the claim could now
  // launch into and has left (releasing those it no longer can).
  void Reserve(Claim& claim);
  Replacement Finish(const Claim& claim) const;
  // Places each pod in order: an existing node, else (when `new_claims`) a
  // new NodeClaim; records why not.
  void PlaceAll(absl::Span<const Moving> pods, bool new_claims);
  // One attempt at placing m; why it failed.
  std::optional<std::string> PlaceOne(const Moving& m, bool new_claims);
  // A node with a NodeClaim that is not initialized (state.go
  // StateNode.Initialized).
  bool uninitialized(NodeIndex n) const { return b_.node_uninitialized[n]; }
  void SortFfd(std::vector<Moving>& pods) const;

  bool IsCandidate(NodeIndex n) const {
    return (candidate_bits_[n / 64] >> (n % 64)) & 1;
  }
  // The preference variant pod p is tried with now (SchedulerBase::
  // variants), or null once every preference is relaxed (or it has none).
  const internal::SchedulerBase::Variant* VariantOf(PodIndex p) const {
    if (p != current_pod_ || current_variants_ == nullptr ||
        current_variant_ >= current_variants_->size()) {
      return nullptr;
    }
    return &(*current_variants_)[current_variant_];
  }
  int32_t ProfileId(PodIndex p) const {
    const auto* v = VariantOf(p);
    return v != nullptr ? v->profile : b_.pod_profile[p];
  }
  const scheduling::PodConstraints* ConstraintsOf(PodIndex p) const {
    const auto* v = VariantOf(p);
    if (v == nullptr) return b_.Constraints(p);
    return v->constraints >= 0
               ? b_.constraints[static_cast<size_t>(v->constraints)].get()
               : nullptr;
  }
  // Node `n`'s free capacity in this simulation: the base's until a pod is
  // placed there, then a copy (a simulation touches few nodes, and copying
  // every node's row per simulation costs more than the simulation).
  const int64_t* FreeOf(NodeIndex n) const {
    const int32_t row = row_of_[n];
    return row < 0 ? &b_.node_free[size_t{n} * b_.d]
                   : &rows_[static_cast<size_t>(row) * b_.d];
  }
  int64_t* MutableFreeOf(NodeIndex n);

  const Scheduler::State& s_;
  const internal::SchedulerBase& b_;
  absl::Span<const Candidate> candidates_;
  std::vector<uint64_t> candidate_bits_;
  // Per node: its row in rows_ once a pod was placed there, else -1.
  std::vector<int32_t> row_of_;
  std::vector<int64_t> rows_;
  absl::flat_hash_map<int32_t, size_t> cache_slot_;
  std::vector<int8_t> cache_;  // per (profile slot, node): -1 unknown, bits
  std::vector<std::pair<PodIndex, std::string>> failed_;
  scheduling::TopologyState topo_{*b_.topology};
  // Copies of the nodes' port sets this pass changed.
  absl::flat_hash_map<NodeIndex, scheduling::HostPortSet> ports_;
  // Copies of the nodes' volume usage this pass changed.
  absl::flat_hash_map<NodeIndex, scheduling::NodeVolumeUsage> volumes_;
  // A pod with required anti-affinity terms was placed in this pass.
  bool placed_holder_ = false;
  // A consolidation simulation, and whether the pod being placed comes
  // from a candidate.
  bool consolidation_ = false;
  bool from_candidate_ = false;
  // The pod being placed and its preference variant.
  PodIndex current_pod_ = 0;
  const std::vector<internal::SchedulerBase::Variant>* current_variants_ =
      nullptr;
  size_t current_variant_ = 0;
  // Every preference of the pod being placed is relaxed and it now
  // tolerates PreferNoSchedule taints of NodePools.
  bool tolerate_prefer_no_schedule_ = false;
  // Per pod with preferences: how many relaxations it has had.
  absl::flat_hash_map<PodIndex, size_t> relaxed_;
  // New NodeClaims opened in this pass, in order, and the pods added.
  std::vector<Claim> claims_;
  std::vector<ClaimRecord> records_;
  // records_ whose pod has required anti-affinity terms.
  std::vector<size_t> holder_records_;
  // The same, grouped by the constraints they were placed with (equal
  // terms): a term is matched against a pod once per group, not once per
  // pod placed.
  struct HolderGroup {
    const scheduling::PodConstraints* constraints = nullptr;
    std::vector<size_t> records;
    absl::flat_hash_map<int, int32_t> per_claim;  // Records per claim id.
  };
  std::vector<HolderGroup> holder_groups_;
  absl::flat_hash_map<const scheduling::PodConstraints*, size_t>
      holder_group_of_;
  // ClaimsBlock's spread counts of one pod (Karpenter's domains plus the
  // pods on new NodeClaims), per spread constraint: valid while nothing is
  // placed, i.e. within one PlaceOnExisting or NoNodeAvailable call.
  struct SpreadView {
    std::map<std::string, int64_t, std::less<>> counts;
    int64_t min = 0;
  };
  std::vector<std::optional<SpreadView>> spread_views_;
  void ResetSpreadViews() { spread_views_.clear(); }
  absl::flat_hash_map<std::string, Tally> tallies_;
  // State::Universe's answers, without its lock.
  std::map<std::string, const std::vector<std::string>*, std::less<>> universe_;
  // Per NodePool with limits: what is left of them (nullopt until first
  // needed).
  absl::flat_hash_map<const PoolInfo*, std::vector<int64_t>> remaining_;
  // Instances left per capacity reservation id.
  bool reservations_ready_ = false;
  std::map<std::string, int32_t, std::less<>> reservations_;

 public:
  // Pods placed on existing nodes, in order.
  std::vector<std::pair<PodIndex, NodeIndex>> placed_;
  const std::vector<Claim>& claims() const { return claims_; }
};

namespace {
const scheduling::PodConstraints& NoConstraints() {
  static const auto* const kNone = new scheduling::PodConstraints();
  return *kNone;
}

std::string UntoleratedTaintMessage(const v1::Taint& t) {
  return absl::StrFormat("node(s) had untolerated taint {%s: %s}", t.key(),
                         t.value());
}
}  // namespace

uint8_t SimulationPass::Static(PodIndex p, NodeIndex n) {
  const int32_t profile = ProfileId(p);
  const size_t nodes = b_.snap->nodes().size();
  auto [it, inserted] = cache_slot_.try_emplace(profile, cache_.size());
  if (inserted) cache_.resize(cache_.size() + nodes, -1);
  int8_t& v = cache_[it->second + n];
  if (v >= 0) return static_cast<uint8_t>(v);
  const Profile& prof = b_.profiles[profile];
  const v1::Node& node = b_.snap->nodes()[n];
  const auto& labels = node.metadata().labels();
  bool ok = true;
  for (const auto& [key, value] : prof.pod->spec().node_selector()) {
    const auto l = labels.find(key);
    if (l == labels.end() || l->second != value) ok = false;
  }
  if (ok && prof.has_required_affinity) {
    ok = false;
    for (const auto& term :
         prof.pod->spec()
             .affinity()
             .node_affinity()
             .required_during_scheduling_ignored_during_execution()
             .node_selector_terms()) {
      if (scheduling::NodeSelectorTermMatches(term, node)) {
        ok = true;
        break;
      }
    }
  }
  v = static_cast<int8_t>(
      (ok ? kAffinityOk : 0) |
      (ToleratesAll(*prof.pod, node.spec().taints()) ? kTaintsOk : 0));
  return static_cast<uint8_t>(v);
}

bool SimulationPass::TopologyMatters(PodIndex p) {
  return ConstraintsOf(p) != nullptr || placed_holder_ ||
         !holder_records_.empty() ||
         !b_.topology->HolderGroupsSelecting(p).empty();
}

template <typename F>
auto SimulationPass::WithIncoming(PodIndex p, F f) {
  const scheduling::PodConstraints* c = ConstraintsOf(p);
  const auto affinity = [&](NodeIndex m) {
    return (Static(p, m) & kAffinityOk) != 0;
  };
  const auto taints = [&](NodeIndex m) {
    return (Static(p, m) & kTaintsOk) != 0;
  };
  const uint32_t variant =
      VariantOf(p) != nullptr ? static_cast<uint32_t>(current_variant_ + 1) : 0;
  return f(scheduling::IncomingPod{p, c != nullptr ? c : &NoConstraints(),
                                   affinity, taints, variant});
}

std::optional<scheduling::FilterFailure> SimulationPass::TopologyFilter(
    PodIndex p, NodeIndex n) {
  return WithIncoming(p, [&](const scheduling::IncomingPod& pod) {
    if (auto f = topo_.PodTopologySpread(pod, n)) return f;
    return topo_.InterPodAffinity(pod, n);
  });
}

std::optional<std::string> SimulationPass::ExistingAntiAffinityKey(PodIndex p) {
  if (!TopologyMatters(p)) return std::nullopt;
  return WithIncoming(p, [&](const scheduling::IncomingPod& pod) {
    return topo_.ExistingAntiAffinityKey(pod);
  });
}

std::vector<scheduling::FilterFailure> SimulationPass::FilterAll(
    PodIndex p, NodeIndex n, bool first_only) {
  using scheduling::FilterCode;
  using scheduling::FilterFailure;
  std::vector<FilterFailure> out;
  const auto done = [&] { return first_only && !out.empty(); };
  const v1::Node& node = b_.snap->nodes()[n];
  const v1::Pod& shape = b_.snap->PodShape(p);
  if (b_.node_deleting[n]) {
    out.push_back({scheduling::kNodeReadiness,
                   FilterCode::kUnschedulableAndUnresolvable,
                   "node(s) were marked for deletion"});
  } else if (!IsConditionTrue(node.status().conditions(),
                              well_known::kConditionTypeReady)) {
    out.push_back({scheduling::kNodeReadiness,
                   FilterCode::kUnschedulableAndUnresolvable,
                   "node(s) were not ready"});
  }
  if (done()) return out;
  if (node.spec().unschedulable()) {
    v1::Taint cordon;
    cordon.set_key("node.kubernetes.io/unschedulable");
    cordon.set_effect(std::string(well_known::kTaintEffectNoSchedule));
    pb::RepeatedPtrField<v1::Taint> one;
    *one.Add() = cordon;
    if (!ToleratesAll(shape, one)) {
      out.push_back({scheduling::kNodeUnschedulable,
                     FilterCode::kUnschedulableAndUnresolvable,
                     "node(s) were unschedulable"});
    }
  }
  if (done()) return out;
  const uint8_t bits = Static(p, n);
  if ((bits & kTaintsOk) == 0) {
    const v1::Taint* t = FirstUntolerated(shape, node.spec().taints());
    out.push_back({scheduling::kTaintToleration,
                   FilterCode::kUnschedulableAndUnresolvable,
                   t != nullptr ? UntoleratedTaintMessage(*t)
                                : "node(s) had untolerated taint"});
  }
  if (done()) return out;
  if ((bits & kAffinityOk) == 0) {
    out.push_back({scheduling::kNodeAffinity,
                   FilterCode::kUnschedulableAndUnresolvable,
                   "node(s) didn't match Pod's node affinity/selector"});
  }
  if (done()) return out;
  if (const auto* ports = b_.Ports(p)) {
    if (std::optional<FilterFailure> f =
            scheduling::NodePortsFilter(*ports, PortsOf(n))) {
      out.push_back(*std::move(f));
    }
  }
  if (done()) return out;
  const auto d = static_cast<std::ptrdiff_t>(b_.d);
  const auto row = [&](const int64_t* r) {
    return absl::MakeConstSpan(r, r + d);
  };
  // The rows have b_.d values each: NodeResourcesFitFree cannot fail.
  absl::StatusOr<std::vector<FilterFailure>> resources =
      scheduling::NodeResourcesFitFree(*b_.resource_dims, row(b_.Req(p)),
                                       row(&b_.node_alloc[size_t{n} * b_.d]),
                                       row(FreeOf(n)));
  if (resources.ok()) {
    for (FilterFailure& f : *resources) out.push_back(std::move(f));
  }
  if (done()) return out;
  if (const scheduling::PodVolumes* volumes = b_.Volumes(p)) {
    if (auto f = scheduling::NodeVolumeLimitsFilter(*volumes, VolumesOf(n),
                                                    b_.node_csi[n])) {
      out.push_back(*std::move(f));
    }
    if (done()) return out;
    for (FilterFailure& f : scheduling::VolumeBindingFilter(*volumes, node)) {
      out.push_back(std::move(f));
    }
    if (done()) return out;
    if (auto f = scheduling::VolumeZoneFilter(*volumes, node)) {
      out.push_back(*std::move(f));
    }
  }
  if (done()) return out;
  // Each plugin on its own: a node may fail both.
  WithIncoming(p, [&](const scheduling::IncomingPod& pod) {
    if (auto f = topo_.PodTopologySpread(pod, n)) out.push_back(*std::move(f));
    if (done()) return;
    if (auto f = topo_.InterPodAffinity(pod, n)) out.push_back(*std::move(f));
  });
  return out;
}

std::string SimulationPass::NoNodeAvailable(PodIndex p) {
  ResetSpreadViews();
  std::map<std::string, int> histogram;
  int nodes = 0;
  for (NodeIndex n = 0; n < b_.snap->nodes().size(); ++n) {
    if (IsCandidate(n)) continue;
    ++nodes;
    const std::vector<scheduling::FilterFailure> failures =
        FilterAll(p, n, true);
    for (const scheduling::FilterFailure& f : failures) {
      ++histogram[f.message];
    }
    if (failures.empty() && TopologyMatters(p)) {
      // Refused only for Karpenter's domains or pods on new NodeClaims.
      if (std::optional<std::string> why = ClaimsBlock(p, n)) {
        ++histogram[*why];
      }
    }
  }
  return scheduling::NoNodeAvailableMessage(nodes, histogram);
}

const scheduling::HostPortSet& SimulationPass::PortsOf(NodeIndex n) const {
  const auto it = ports_.find(n);
  return it != ports_.end() ? it->second : b_.node_ports[n];
}

scheduling::HostPortSet& SimulationPass::MutablePortsOf(NodeIndex n) {
  auto [it, inserted] = ports_.try_emplace(n);
  if (inserted) it->second = b_.node_ports[n];
  return it->second;
}

const scheduling::NodeVolumeUsage& SimulationPass::VolumesOf(
    NodeIndex n) const {
  const auto it = volumes_.find(n);
  return it != volumes_.end() ? it->second : b_.node_volumes[n];
}

scheduling::NodeVolumeUsage& SimulationPass::MutableVolumesOf(NodeIndex n) {
  auto [it, inserted] = volumes_.try_emplace(n);
  if (inserted) it->second = b_.node_volumes[n];
  return it->second;
}

bool SimulationPass::VolumesFit(const scheduling::PodVolumes& volumes,
                                NodeIndex n) const {
  const v1::Node& node = b_.snap->nodes()[n];
  return !scheduling::NodeVolumeLimitsFilter(volumes, VolumesOf(n),
                                             b_.node_csi[n])
              .has_value() &&
         scheduling::VolumeBindingFilter(volumes, node).empty() &&
         !scheduling::VolumeZoneFilter(volumes, node).has_value();
}

void SimulationPass::Place(PodIndex p, NodeIndex n) {
  if (const scheduling::PodVolumes* v = b_.Volumes(p)) {
    MutableVolumesOf(n).Add(*v);
  }
  const int64_t* req = b_.Req(p);
  int64_t* free = MutableFreeOf(n);
  for (size_t i = 0; i < b_.d; ++i) free[i] -= req[i];
  if (const auto* ports = b_.Ports(p)) MutablePortsOf(n).Add(*ports);
  topo_.AddPod(p, n);
  const scheduling::PodConstraints* c = ConstraintsOf(p);
  if (c != nullptr && !c->anti_affinity.empty()) placed_holder_ = true;
  placed_.emplace_back(p, n);
}

int64_t* SimulationPass::MutableFreeOf(NodeIndex n) {
  if (row_of_[n] < 0) {
    row_of_[n] = static_cast<int32_t>(rows_.size() / b_.d);
    const int64_t* base = &b_.node_free[size_t{n} * b_.d];
    rows_.insert(rows_.end(), base, base + b_.d);
  }
  return &rows_[static_cast<size_t>(row_of_[n]) * b_.d];
}

bool SimulationPass::PlaceOnExisting(PodIndex p) {
  ResetSpreadViews();
  const int64_t* req = b_.Req(p);
  const bool topology = TopologyMatters(p);
  const std::vector<scheduling::HostPort>* ports = b_.Ports(p);
  const scheduling::PodVolumes* volumes = b_.Volumes(p);
  for (NodeIndex n : b_.node_order) {
    if (IsCandidate(n)) continue;
    if (!Fits(req, FreeOf(n)) || !Compatible(p, n)) continue;
    if (ports != nullptr && scheduling::NodePortsFilter(*ports, PortsOf(n))) {
      continue;
    }
    if (volumes != nullptr && !VolumesFit(*volumes, n)) continue;
    if (topology && TopologyFilter(p, n).has_value()) continue;
    if (topology && ClaimsBlock(p, n).has_value()) continue;
    // Consolidation does not move a candidate's pods onto a node still
    // inside its consolidateAfter (Karpenter v1.14,
    // IsConsolidationSimulation).
    if (consolidation_ && from_candidate_ &&
        s_.options.now < b_.node_quiet_until[n]) {
      continue;
    }
    Place(p, n);
    return true;
  }
  return false;
}

void SimulationPass::SortFfd(std::vector<Moving>& pods) const {
  const snapshot::Snapshot& snap = *b_.snap;
  std::sort(pods.begin(), pods.end(), [&](const Moving& a, const Moving& b) {
    const int64_t* ra = b_.Req(a.pod);
    const int64_t* rb = b_.Req(b.pod);
    if (ra[kCpuDim] != rb[kCpuDim]) return ra[kCpuDim] > rb[kCpuDim];
    if (ra[kMemoryDim] != rb[kMemoryDim])
      return ra[kMemoryDim] > rb[kMemoryDim];
    const absl::string_view na = snap.NamespaceName(snap.NamespaceOfPod(a.pod));
    const absl::string_view nb = snap.NamespaceName(snap.NamespaceOfPod(b.pod));
    if (na != nb) return na < nb;
    return snap.PodName(a.pod) < snap.PodName(b.pod);
  });
}

namespace {

// The values instance type `t` offers for `key` (minValues counts them):
// its name, its available offerings' zones or capacity types, or its label.
std::vector<std::string> TypeValues(const TypeInfo& t, absl::string_view key) {
  std::vector<std::string> out;
  if (key == well_known::kLabelInstanceTypeStable) {
    out.push_back(t.type->name);
  } else if (key == well_known::kLabelTopologyZone ||
             key == well_known::kCapacityTypeLabelKey) {
    for (const Offering& o : t.type->offerings) {
      if (!o.available) continue;
      out.push_back(key == well_known::kLabelTopologyZone ? o.zone
                                                          : o.capacity_type);
    }
  } else if (const auto it = t.type->labels.find(std::string(key));
             it != t.type->labels.end()) {
    out.push_back(it->second);
  }
  return out;
}

// A requirement in its API form (requirement.go NodeSelectorRequirement):
// a bound as Gte / Lte. Karpenter writes only the first of a lower bound,
// an upper bound and excluded values; every part is written here, as one
// entry each, so that the claim admits exactly what the requirement does.
std::vector<v1::NodeSelectorRequirement> RequirementProtos(
    const Requirement& r) {
  std::vector<v1::NodeSelectorRequirement> out;
  const auto add = [&](absl::string_view op) -> v1::NodeSelectorRequirement& {
    v1::NodeSelectorRequirement& e = out.emplace_back();
    e.set_key(r.key());
    e.set_operator_(std::string(op));
    if (r.min_values().has_value()) e.set_min_values(*r.min_values());
    return e;
  };
  if (r.greater_or_equal().has_value()) {
    add("Gte").add_values(absl::StrCat(*r.greater_or_equal()));
  }
  if (r.less_or_equal().has_value()) {
    add("Lte").add_values(absl::StrCat(*r.less_or_equal()));
  }
  const bool bounded =
      r.greater_or_equal().has_value() || r.less_or_equal().has_value();
  switch (r.op()) {
    case Requirement::Operator::kIn: {
      v1::NodeSelectorRequirement& e = add("In");
      for (const std::string& v : r.values()) e.add_values(v);
    } break;
    case Requirement::Operator::kNotIn:
      if (!r.values().empty()) {
        v1::NodeSelectorRequirement& e = add("NotIn");
        for (const std::string& v : r.values()) e.add_values(v);
      } else if (!bounded) {
        add("Exists");
      }
      break;
    case Requirement::Operator::kExists:
      if (!bounded) add("Exists");
      break;
    case Requirement::Operator::kDoesNotExist:
      add("DoesNotExist");
      break;
  }
  return out;
}

// Per dimension, the least DaemonSet overhead among the claim's instance
// types (Karpenter's addDaemonRequests): what the claim requests for its
// DaemonSets whichever type it launches as.
std::vector<int64_t> MinOverhead(const Claim& claim) {
  std::vector<int64_t> out;
  for (size_t t : claim.types) {
    const std::vector<int64_t>& o = claim.info->types[t].overhead;
    if (out.empty()) {
      out = o;
      continue;
    }
    for (size_t i = 0; i < o.size(); ++i) out[i] = std::min(out[i], o[i]);
  }
  if (out.empty()) out.assign(claim.total.size(), 0);
  return out;
}

std::string HostnamePlaceholder(int claim) {
  return absl::StrCat("hostname-placeholder-", claim);
}

std::string CountsText(const std::map<std::string, int64_t>& counts) {
  return absl::StrJoin(counts, ", ", absl::PairFormatter("="));
}

}  // namespace

Tally& SimulationPass::TallyOf(const scheduling::PodSelectorClause& clause,
                               const std::string& key) {
  Tally& t = tallies_[absl::StrCat(clause.Key(), "\x1f", key)];
  const bool hostname = key == well_known::kLabelHostname;
  for (; t.scanned < records_.size(); ++t.scanned) {
    const ClaimRecord& rec = records_[t.scanned];
    const v1::Pod& shape = b_.snap->PodShape(rec.pod);
    if (!clause.Matches(shape.metadata())) {
      continue;
    }
    ++t.per_claim[rec.claim];
    if (hostname) continue;
    const Requirement* r = rec.reqs.Get(key);
    if (r != nullptr && !r->complement() && r->values().size() == 1) {
      ++t.decided[r->values().front()];
    } else if (r != nullptr) {
      t.undecided.emplace_back(*r);
    } else {
      t.undecided.emplace_back(std::nullopt);
    }
  }
  return t;
}

const std::vector<std::string>& Scheduler::State::Universe(
    const std::string& key) const {
  std::lock_guard<std::mutex> lock(universe_mu_);
  auto it = universe_.find(key);
  if (it != universe_.end()) return it->second;
  std::set<std::string> values;
  for (const std::string& v : base->topology->DomainsOf(key).values) {
    values.insert(v);
  }
  for (const PoolInfo* info : PoolsByWeight()) {
    const Requirement* r = info->base.Get(key);
    if (r != nullptr && !r->complement() &&
        key != well_known::kLabelTopologyZone &&
        key != well_known::kCapacityTypeLabelKey &&
        key != well_known::kLabelInstanceTypeStable) {
      values.insert(r->values().begin(), r->values().end());
      continue;
    }
    for (size_t t : info->admitted) {
      const TypeInfo& type = info->types[t];
      if (key == well_known::kLabelTopologyZone ||
          key == well_known::kCapacityTypeLabelKey) {
        const Requirement* other =
            info->base.Get(key == well_known::kLabelTopologyZone
                               ? well_known::kCapacityTypeLabelKey
                               : well_known::kLabelTopologyZone);
        for (const Offering& o : type.type->offerings) {
          const bool zone = key == well_known::kLabelTopologyZone;
          const std::string& v = zone ? o.zone : o.capacity_type;
          const std::string& w = zone ? o.capacity_type : o.zone;
          if (!o.available || (r != nullptr && !r->Has(v)) ||
              (other != nullptr && !other->Has(w))) {
            continue;
          }
          values.insert(v);
        }
        continue;
      }
      for (const std::string& v : TypeValues(type, key)) {
        if (r == nullptr || r->Has(v)) values.insert(v);
      }
    }
  }
  return universe_
      .emplace(key, std::vector<std::string>(values.begin(), values.end()))
      .first->second;
}

const std::vector<std::string>& SimulationPass::Universe(
    const std::string& key) {
  auto it = universe_.find(key);
  if (it != universe_.end()) return *it->second;
  const std::vector<std::string>& values = s_.Universe(key);
  universe_.emplace(key, &values);
  return values;
}

bool SimulationPass::Narrow(PodIndex p, const Claim& claim,
                            const Requirements& pod_reqs, Requirements& reqs,
                            std::string& why) {
  const v1::Pod& shape = b_.snap->PodShape(p);
  const std::string hostname(well_known::kLabelHostname);
  const auto restrict_to = [&](const std::string& key,
                               std::vector<std::string> values,
                               absl::string_view what) {
    reqs.Add(Requirement::In(key, values));
    const Requirement* r = reqs.Get(key);
    if (r != nullptr && r->IsEmpty()) {
      why = absl::StrCat("no domain of ", key, " is left for ", what);
      return false;
    }
    return true;
  };
  const scheduling::PodConstraints* c = ConstraintsOf(p);
  if (c != nullptr) {
    const bool ok = WithIncoming(p, [&](const scheduling::IncomingPod& pod) {
      for (size_t i = 0; i < c->spread.size(); ++i) {
        const scheduling::SpreadConstraint& sc = c->spread[i];
        const std::string& key = sc.topology_key;
        Tally& t = TallyOf(sc.pods, key);
        const int32_t self = sc.self_match ? 1 : 0;
        if (key == hostname) {
          // A new node can always be made: the minimum is 0.
          const auto on = t.per_claim.find(claim.id);
          const int32_t count = (on == t.per_claim.end() ? 0 : on->second);
          if (count + self > sc.max_skew) {
            why = absl::StrFormat(
                "the NodeClaim already has %d pod(s) of the topology spread "
                "on %s (maxSkew %d)",
                count, key, sc.max_skew);
            return false;
          }
          continue;
        }
        std::map<std::string, int64_t> counts;
        for (const auto& [v, n] : topo_.SpreadDomainCounts(pod, i)) {
          counts[v] = n;
        }
        for (const std::string& v : Universe(key)) counts.try_emplace(v, 0);
        for (const auto& [v, n] : t.decided) counts[v] += n;
        const Requirement* pd =
            sc.honor_node_affinity ? pod_reqs.Get(key) : nullptr;
        int64_t min = std::numeric_limits<int64_t>::max();
        int32_t domains = 0;
        for (const auto& [v, n] : counts) {
          if (pd != nullptr && !pd->Has(v)) continue;
          ++domains;
          min = std::min(min, n);
        }
        if (domains < sc.min_domains) min = 0;
        const Requirement* nd = reqs.Get(key);
        const std::string* best = nullptr;
        int64_t best_count = std::numeric_limits<int64_t>::max();
        for (const auto& [v, n] : counts) {
          if ((pd != nullptr && !pd->Has(v)) || (nd != nullptr && !nd->Has(v)))
            continue;
          const int64_t with = n + self;
          if (with - min <= sc.max_skew && with < best_count) {
            best = &v;
            best_count = with;
          }
        }
        if (best == nullptr) {
          why = absl::StrFormat(
              "no domain of %s keeps the topology spread within maxSkew %d "
              "(counts %s)",
              key, sc.max_skew, CountsText(counts));
          return false;
        }
        reqs.Add(Requirement::In(key, {*best}));
      }
      for (size_t i = 0; i < c->affinity.size(); ++i) {
        const scheduling::AffinityTerm& term = c->affinity[i];
        const std::string& key = term.topology_key;
        Tally& t = TallyOf(term.pods, key);
        const bool any_claim = !t.per_claim.empty();
        const bool first = !topo_.AnyAffinityMatch(pod) && !any_claim &&
                           c->self_matches_affinity;
        if (key == hostname) {
          if (t.per_claim.count(claim.id) == 0 &&
              !(first && claim.pods.empty())) {
            why =
                "pod affinity on kubernetes.io/hostname: no pod it selects "
                "is on this NodeClaim";
            return false;
          }
          continue;
        }
        std::vector<std::string> options;
        const Requirement* pd = pod_reqs.Get(key);
        std::set<std::string> with_pods;
        for (const auto& [v, n] : topo_.AffinityDomainCounts(pod, i)) {
          with_pods.insert(v);
        }
        for (const auto& [v, n] : t.decided) with_pods.insert(v);
        for (const std::string& v : with_pods) {
          if (pd == nullptr || pd->Has(v)) options.push_back(v);
        }
        if (options.empty() && first) {
          // The first pod of a self-selecting group opens one domain.
          const Requirement* nd = reqs.Get(key);
          for (const std::string& v : Universe(key)) {
            if ((pd == nullptr || pd->Has(v)) &&
                (nd == nullptr || nd->Has(v))) {
              options.push_back(v);
              break;
            }
          }
        }
        if (!restrict_to(key, std::move(options), "pod affinity")) return false;
      }
      for (size_t i = 0; i < c->anti_affinity.size(); ++i) {
        const scheduling::AffinityTerm& term = c->anti_affinity[i];
        const std::string& key = term.topology_key;
        Tally& t = TallyOf(term.pods, key);
        if (key == hostname) {
          if (t.per_claim.count(claim.id) > 0) {
            why =
                "pod anti-affinity on kubernetes.io/hostname: a pod it "
                "selects is on this NodeClaim";
            return false;
          }
          continue;
        }
        std::set<std::string> blocked;
        for (const auto& [v, n] : topo_.AntiAffinityDomainCounts(pod, i)) {
          blocked.insert(v);
        }
        for (const auto& [v, n] : t.decided) blocked.insert(v);
        bool all = false;
        for (const std::optional<Requirement>& r : t.undecided) {
          if (!r.has_value() || r->complement()) {
            all = true;
          } else {
            blocked.insert(r->values().begin(), r->values().end());
          }
        }
        std::vector<std::string> options;
        const Requirement* pd = pod_reqs.Get(key);
        for (const std::string& v :
             all ? std::vector<std::string>() : Universe(key)) {
          if (blocked.count(v) == 0 && (pd == nullptr || pd->Has(v))) {
            options.push_back(v);
          }
        }
        if (!restrict_to(key, std::move(options), "pod anti-affinity")) {
          return false;
        }
      }
      return true;
    });
    if (!ok) return false;
  }
  // Other pods' required anti-affinity against p: on existing nodes...
  if (TopologyMatters(p)) {
    const auto blocked =
        WithIncoming(p, [&](const scheduling::IncomingPod& pod) {
          return topo_.BlockedDomains(pod);
        });
    for (const auto& [key, values] : blocked) {
      if (key == hostname) continue;  // A new node has a new hostname.
      std::vector<std::string> options;
      for (const std::string& v : Universe(key)) {
        if (!std::binary_search(values.begin(), values.end(), v)) {
          options.push_back(v);
        }
      }
      if (!restrict_to(key, std::move(options),
                       "existing pods' anti-affinity")) {
        return false;
      }
    }
  }
  // ... and on new NodeClaims, where an undecided claim blocks every value
  // it could take (late committal).
  for (const HolderGroup& group : holder_groups_) {
    for (const scheduling::AffinityTerm& term :
         group.constraints->anti_affinity) {
      if (!term.pods.Matches(shape.metadata())) {
        continue;
      }
      const std::string& key = term.topology_key;
      if (key == hostname) {
        if (!group.per_claim.contains(claim.id)) continue;
        for (size_t r : group.records) {
          if (records_[r].claim == claim.id && records_[r].pod != p) {
            why = "the anti-affinity of a pod on this NodeClaim selects it";
            return false;
          }
        }
        continue;
      }
      for (size_t r : group.records) {
        const ClaimRecord& rec = records_[r];
        if (rec.pod == p) continue;
        const Requirement* where = rec.reqs.Get(key);
        std::vector<std::string> options;
        if (where != nullptr && !where->complement()) {
          for (const std::string& v : Universe(key)) {
            if (!where->Has(v)) options.push_back(v);
          }
        }
        if (!restrict_to(key, std::move(options),
                         "the anti-affinity of pods on new NodeClaims")) {
          return false;
        }
      }
    }
  }
  return true;
}

std::optional<std::string> SimulationPass::ClaimsBlock(PodIndex p,
                                                       NodeIndex n) {
  constexpr absl::string_view kSpread = scheduling::kSpreadMismatchMessage;
  constexpr absl::string_view kAnti = scheduling::kAntiAffinityMismatchMessage;
  constexpr absl::string_view kExisting =
      scheduling::kExistingAntiAffinityMismatchMessage;
  const auto& labels = b_.snap->nodes()[n].metadata().labels();
  const v1::Pod& shape = b_.snap->PodShape(p);
  const std::string hostname(well_known::kLabelHostname);
  if (const scheduling::PodConstraints* c = ConstraintsOf(p)) {
    const std::optional<absl::string_view> blocked = WithIncoming(
        p,
        [&](const scheduling::IncomingPod& pod)
            -> std::optional<absl::string_view> {
          for (size_t i = 0; i < c->spread.size(); ++i) {
            const scheduling::SpreadConstraint& sc = c->spread[i];
            if (sc.topology_key == hostname) continue;
            const auto l = labels.find(sc.topology_key);
            if (l == labels.end()) continue;
            if (spread_views_.size() < c->spread.size()) {
              spread_views_.resize(c->spread.size());
            }
            std::optional<SpreadView>& view = spread_views_[i];
            if (!view.has_value()) {
              view.emplace();
              std::map<std::string, int64_t, std::less<>>& counts =
                  view->counts;
              for (const auto& [v, k] : topo_.SpreadDomainCounts(pod, i)) {
                counts[v] = k;
              }
              // Karpenter's domains: also those only a NodePool offers,
              // that the pod's node affinity admits.
              const Profile& prof = b_.profiles[ProfileId(p)];
              const Requirement* pd =
                  sc.honor_node_affinity && !prof.terms.empty()
                      ? prof.terms.front().requirements.Get(sc.topology_key)
                      : nullptr;
              for (const std::string& v : Universe(sc.topology_key)) {
                if (pd == nullptr || pd->Has(v)) counts.try_emplace(v, 0);
              }
              const Tally& t = TallyOf(sc.pods, sc.topology_key);
              for (const auto& [v, k] : t.decided) counts[v] += k;
              int64_t min = std::numeric_limits<int64_t>::max();
              for (const auto& [v, k] : counts) min = std::min(min, k);
              if (static_cast<int32_t>(counts.size()) < sc.min_domains) {
                min = 0;
              }
              view->min = min;
            }
            const auto at = view->counts.find(l->second);
            const int64_t with = (at == view->counts.end() ? 0 : at->second) +
                                 (sc.self_match ? 1 : 0);
            if (with - view->min > sc.max_skew) return kSpread;
          }
          for (const scheduling::AffinityTerm& term : c->anti_affinity) {
            if (term.topology_key == hostname) continue;
            const auto l = labels.find(term.topology_key);
            if (l == labels.end()) continue;
            Tally& t = TallyOf(term.pods, term.topology_key);
            if (t.decided.count(l->second) > 0) return kAnti;
            for (const std::optional<Requirement>& r : t.undecided) {
              if (!r.has_value() || r->Has(l->second)) return kAnti;
            }
          }
          return std::nullopt;
        });
    if (blocked.has_value()) return std::string(*blocked);
  }
  for (const HolderGroup& group : holder_groups_) {
    for (const scheduling::AffinityTerm& term :
         group.constraints->anti_affinity) {
      if (term.topology_key == hostname ||
          !term.pods.Matches(shape.metadata())) {
        continue;
      }
      const auto l = labels.find(term.topology_key);
      if (l == labels.end()) continue;
      for (size_t r : group.records) {
        const ClaimRecord& rec = records_[r];
        if (rec.pod == p) continue;
        const Requirement* where = rec.reqs.Get(term.topology_key);
        if (where == nullptr || where->Has(l->second)) {
          return std::string(kExisting);
        }
      }
    }
  }
  return std::nullopt;
}

void SimulationPass::Reserve(Claim& claim) {
  if (!reservations_ready_) {
    reservations_ready_ = true;
    for (const PoolInfo* info : s_.PoolsByWeight()) {
      for (const TypeInfo& t : info->types) {
        for (const Offering& o : t.type->offerings) {
          if (o.capacity_type != well_known::kCapacityTypeReserved) continue;
          auto [it, inserted] = reservations_.try_emplace(
              o.reservation_id, o.reservation_capacity);
          if (!inserted)
            it->second = std::min(it->second, o.reservation_capacity);
        }
      }
    }
  }
  if (reservations_.empty()) return;
  const Requirement* zone = claim.reqs.Get(well_known::kLabelTopologyZone);
  const Requirement* ct = claim.reqs.Get(well_known::kCapacityTypeLabelKey);
  std::set<std::string> keep;
  for (size_t t : claim.types) {
    for (const Offering& o : claim.info->types[t].type->offerings) {
      if (o.capacity_type != well_known::kCapacityTypeReserved ||
          !o.available || (zone != nullptr && !zone->Has(o.zone)) ||
          (ct != nullptr && !ct->Has(o.capacity_type))) {
        continue;
      }
      if (claim.reserved.count(o.reservation_id) > 0 ||
          reservations_[o.reservation_id] > 0) {
        keep.insert(o.reservation_id);
      }
    }
  }
  for (const std::string& id : keep) {
    if (claim.reserved.count(id) == 0) --reservations_[id];
  }
  for (const std::string& id : claim.reserved) {
    if (keep.count(id) == 0) ++reservations_[id];
  }
  claim.reserved = std::move(keep);
}

std::vector<size_t> SimulationPass::WithinLimits(const PoolInfo& info) {
  const internal::PoolBase& pb = *info.pb;
  if (pb.limit_keys.empty()) return info.admitted;
  auto [it, inserted] = remaining_.try_emplace(&info);
  if (inserted) {
    it->second = pb.limits;
    for (const auto& [n, used] : pb.usage) {
      if (IsCandidate(n)) continue;
      for (size_t i = 0; i < used.size(); ++i) it->second[i] -= used[i];
    }
  }
  std::vector<size_t> out;
  for (size_t t : info.admitted) {
    bool fits = true;
    for (size_t i = 0; fits && i < pb.limit_keys.size(); ++i) {
      if (info.types[t].limited[i] > it->second[i]) fits = false;
    }
    if (fits) out.push_back(t);
  }
  return out;
}

std::optional<std::string> SimulationPass::VolumeAlternatives(
    PodIndex p, std::vector<Requirements>& out) const {
  out.clear();
  const scheduling::PodVolumes* volumes = b_.Volumes(p);
  if (volumes == nullptr) return std::nullopt;
  std::vector<Requirements> merged = {Requirements()};
  for (const scheduling::PodVolume& v : volumes->volumes) {
    std::vector<Requirements> alts;
    if (v.claim == nullptr) {
      return absl::StrFormat("persistentvolumeclaim \"%s\" not found",
                             v.claim_name);
    }
    if (v.volume != nullptr) {
      const v1::PersistentVolume& pv = *v.volume;
      if (pv.spec().node_affinity().has_required()) {
        const auto& terms =
            pv.spec().node_affinity().required().node_selector_terms();
        for (int i = 0; i < terms.size(); ++i) {
          absl::StatusOr<Requirements> r = Requirements::FromProto(
              terms[i].match_expressions(),
              absl::StrCat("spec.nodeAffinity.required.nodeSelectorTerms[", i,
                           "].matchExpressions"));
          if (!r.ok()) {
            return absl::StrCat("persistentvolumes/", pv.metadata().name(),
                                ": ", r.status().message());
          }
          if (!r->empty()) alts.push_back(*std::move(r));
        }
      } else if (!v.topology.empty()) {
        Requirements r;
        for (const scheduling::VolumeTopology& t : v.topology) {
          r.Add(Requirement::In(t.key, t.values));
        }
        alts.push_back(std::move(r));
      }
    } else if (!v.wait_for_first_consumer) {
      return absl::StrFormat(
          "persistentvolumeclaim \"%s\" with immediate volume binding mode "
          "must be bound",
          v.claim_name);
    } else if (v.storage_class != nullptr) {
      for (const v1::TopologySelectorTerm& term :
           v.storage_class->allowed_topologies()) {
        Requirements r;
        for (const auto& e : term.match_label_expressions()) {
          const std::vector<std::string> values(e.values().begin(),
                                                e.values().end());
          r.Add(Requirement::In(e.key(), values));
        }
        if (!r.empty()) alts.push_back(std::move(r));
      }
    }
    if (alts.empty()) continue;
    // volumetopology.go: keep the compatible combinations, or all of them
    // when none is.
    std::vector<Requirements> next;
    for (bool compatible_only : {true, false}) {
      for (const Requirements& have : merged) {
        for (const Requirements& alt : alts) {
          if (compatible_only && !have.Intersects(alt)) continue;
          Requirements m = have;
          for (const auto& [key, r] : alt.map()) m.Add(r);
          next.push_back(std::move(m));
        }
      }
      if (!next.empty()) break;
    }
    merged = std::move(next);
  }
  if (merged.size() == 1 && merged.front().empty()) return std::nullopt;
  out = std::move(merged);
  return std::nullopt;
}

// Adds pod `p` to `claim` if its template and one instance type admit it
// with the pods already there; else returns why not.
std::optional<std::string> SimulationPass::TryAdd(Claim& claim, PodIndex p) {
  const Profile& prof = b_.profiles[ProfileId(p)];
  const PoolInfo& info = *claim.info;
  const std::string& pool = info.name;
  const auto& tmpl = info.pool->spec().template_().spec();
  if (const v1::Taint* t = FirstUntolerated(*prof.pod, tmpl.taints())) {
    return absl::StrFormat("does not tolerate taint %s=%s:%s of NodePool %s",
                           t->key(), t->value(), t->effect(), pool);
  }
  // Karpenter's taint check counts PreferNoSchedule taints too, until the
  // pod's last relaxation tolerates them (preferences.go).
  if (!tolerate_prefer_no_schedule_) {
    for (const v1::Taint& t : tmpl.taints()) {
      if (t.effect() != well_known::kTaintEffectPreferNoSchedule) continue;
      bool tolerated = false;
      for (const v1::Toleration& tol : prof.pod->spec().tolerations()) {
        tolerated = tolerated || drain::ToleratesTaint(tol, t);
      }
      if (!tolerated) {
        return absl::StrFormat(
            "does not tolerate taint %s=%s:PreferNoSchedule of NodePool %s",
            t.key(), t.value(), pool);
      }
    }
  }
  const std::vector<scheduling::HostPort>* ports = b_.Ports(p);
  if (ports != nullptr && scheduling::NodePortsFilter(*ports, claim.ports)) {
    return absl::StrFormat(
        "its host ports are taken by another pod of the new NodeClaim of "
        "NodePool %s",
        pool);
  }
  std::vector<int64_t> total = claim.total;
  const int64_t* req = b_.Req(p);
  for (size_t i = 0; i < b_.d; ++i) total[i] += req[i];
  CompatibilityOptions allow;
  allow.allow_undefined.assign(WellKnownLabels().begin(),
                               WellKnownLabels().end());
  std::string why;
  std::string topology_why;
  std::string min_values_why;
  std::string volume_why;
  std::string requirements_why;
  bool any_compatible = false;
  std::vector<Requirements> volume_alts;
  if (std::optional<std::string> error = VolumeAlternatives(p, volume_alts)) {
    return *error;
  }
  const Requirements no_volumes;
  const size_t alt_count = std::max<size_t>(1, volume_alts.size());
  for (size_t k = 0; k < prof.terms.size() * alt_count; ++k) {
    const Term& term = prof.terms[k / alt_count];
    const Requirements& volume =
        volume_alts.empty() ? no_volumes : volume_alts[k % alt_count];
    std::string term_why;
    if (!claim.reqs.Compatible(term.requirements, allow, &term_why)) {
      if (why.empty()) why = term_why;
      continue;
    }
    any_compatible = true;
    Requirements reqs = claim.reqs;
    for (const auto& [key, r] : term.requirements.map()) reqs.Add(r);
    if (!volume.empty()) {
      if (!reqs.Compatible(volume, allow, &term_why)) {
        if (volume_why.empty()) volume_why = term_why;
        continue;
      }
      for (const auto& [key, r] : volume.map()) reqs.Add(r);
    }
    if (!Narrow(p, claim, term.requirements, reqs, term_why)) {
      if (topology_why.empty()) topology_why = term_why;
      continue;
    }
    std::vector<size_t> types;
    bool any_admitted = false;
    for (size_t t : claim.types) {
      const TypeInfo& type = info.types[t];
      if (!TypeAdmits(type, reqs)) continue;
      any_admitted = true;
      if (type.Holds(total)) types.push_back(t);
    }
    if (types.empty()) {
      if (!any_admitted && requirements_why.empty()) {
        std::vector<std::string> parts;
        for (const auto& [key, r] : reqs.map()) {
          if (key != well_known::kLabelHostname) parts.push_back(r.ToString());
        }
        requirements_why = absl::StrCat("no instance type of NodePool ", pool,
                                        " satisfied requirements ",
                                        absl::StrJoin(parts, ", "));
      }
      continue;
    }
    bool relaxed = claim.min_values_relaxed;
    std::string mv_why;
    for (const auto& [key, min] : info.min_values) {
      std::set<std::string> distinct;
      const Requirement* r = reqs.Get(key);
      for (size_t t : types) {
        for (std::string& v : TypeValues(info.types[t], key)) {
          if (r == nullptr || r->Has(v)) distinct.insert(std::move(v));
        }
      }
      if (static_cast<int32_t>(distinct.size()) < min) {
        mv_why = absl::StrFormat(
            "minValues requirement is not met for label %s of NodePool %s "
            "(%d of %d values)",
            key, pool, distinct.size(), min);
        break;
      }
    }
    if (!mv_why.empty()) {
      if (s_.options.min_values_policy == MinValuesPolicy::kStrict) {
        if (min_values_why.empty()) min_values_why = mv_why;
        continue;
      }
      relaxed = true;
    }
    claim.reqs = std::move(reqs);
    claim.types = std::move(types);
    claim.total = std::move(total);
    claim.min_values_relaxed = relaxed;
    Reserve(claim);
    if (ports != nullptr) claim.ports.Add(*ports);
    claim.pods.push_back(p);
    const scheduling::PodConstraints* c = ConstraintsOf(p);
    records_.push_back({p, claim.id, claim.reqs, c});
    if (c != nullptr && !c->anti_affinity.empty()) {
      holder_records_.push_back(records_.size() - 1);
      auto [g, added] = holder_group_of_.try_emplace(c, holder_groups_.size());
      if (added) holder_groups_.push_back({c, {}, {}});
      HolderGroup& group = holder_groups_[g->second];
      group.records.push_back(records_.size() - 1);
      ++group.per_claim[claim.id];
    }
    return std::nullopt;
  }
  if (!any_compatible) {
    if (prof.terms.empty()) {
      return absl::StrCat(
          "no required node affinity term can be met by a new "
          "NodeClaim of NodePool ",
          pool);
    }
    return absl::StrCat("incompatible with NodePool ", pool, ": ", why);
  }
  if (!volume_why.empty() && topology_why.empty()) {
    return absl::StrCat(
        "the topology of its volumes is incompatible with "
        "NodePool ",
        pool, ": ", volume_why);
  }
  if (!topology_why.empty()) {
    return absl::StrCat("a new NodeClaim of NodePool ", pool,
                        " cannot keep its topology: ", topology_why);
  }
  if (!min_values_why.empty()) return min_values_why;
  if (!requirements_why.empty()) return requirements_why;
  // Karpenter: "no instance type satisfied resources {...} and
  // requirements ...".
  const auto text = [&](const std::vector<int64_t>& v) {
    std::vector<std::string> parts;
    for (size_t i = 0; i < b_.d; ++i) {
      if (v[i] <= 0) continue;
      std::string q = FormatMilli(v[i]);
      const int64_t bytes = v[i] / 1000;
      if (i != kCpuDim && v[i] % 1000 == 0 && bytes > 0) {
        constexpr int64_t kMi = int64_t{1} << 20;
        if (bytes % (kMi << 10) == 0) {
          q = absl::StrCat(bytes / (kMi << 10), "Gi");
        } else if (bytes % kMi == 0) {
          q = absl::StrCat(bytes / kMi, "Mi");
        }
      }
      parts.push_back(absl::StrCat(b_.dims[i], ": ", q));
    }
    return absl::StrCat("{", absl::StrJoin(parts, ", "), "}");
  };
  std::vector<int64_t> own(req, req + b_.d);
  std::string out = absl::StrCat("no instance type of NodePool ", pool,
                                 " satisfied resources ", text(own));
  const std::vector<int64_t> daemons = MinOverhead(claim);
  bool overhead = false;
  for (int64_t v : daemons) overhead = overhead || v > 0;
  if (overhead) {
    absl::StrAppend(&out, " with DaemonSet overhead ", text(daemons));
  }
  if (!claim.pods.empty()) {
    absl::StrAppend(
        &out, absl::StrFormat(" together with the %d other pods of the new "
                              "NodeClaim",
                              claim.pods.size()));
  }
  return out;
}

std::optional<std::string> SimulationPass::PlaceOnNewClaim(PodIndex p) {
  const int64_t* req = b_.Req(p);
  for (Claim& claim : claims_) {
    // Quick check: some instance type left has room for the requests.
    std::vector<int64_t> with(claim.total);
    for (size_t i = 0; i < b_.d; ++i) with[i] += req[i];
    bool room = false;
    for (size_t t : claim.types) {
      if (claim.info->types[t].Holds(with)) {
        room = true;
        break;
      }
    }
    if (room && !TryAdd(claim, p).has_value()) return std::nullopt;
  }
  std::vector<std::string> whys;
  for (const PoolInfo* info : s_.PoolsByWeight()) {
    if (info->admitted.empty()) {
      whys.push_back(absl::StrCat("NodePool ", info->name,
                                  " has no instance type its requirements "
                                  "admit"));
      continue;
    }
    std::vector<size_t> types = WithinLimits(*info);
    if (types.empty()) {
      whys.push_back(absl::StrCat(
          "all available instance types exceed the limits of NodePool ",
          info->name));
      continue;
    }
    Claim claim;
    claim.info = info;
    claim.id = static_cast<int>(claims_.size());
    claim.reqs = info->base;
    claim.reqs.Add(Requirement::In(well_known::kLabelHostname,
                                   {HostnamePlaceholder(claim.id)}));
    claim.types = std::move(types);
    claim.total.assign(b_.d, 0);
    if (std::optional<std::string> why = TryAdd(claim, p)) {
      whys.push_back(*std::move(why));
      continue;
    }
    if (!info->pb->limit_keys.empty()) {
      std::vector<int64_t>& left = remaining_[info];
      for (size_t i = 0; i < left.size(); ++i) {
        int64_t max = 0;
        for (size_t t : claim.types) {
          max = std::max(max, info->types[t].limited[i]);
        }
        left[i] -= max;
      }
    }
    claims_.push_back(std::move(claim));
    return std::nullopt;
  }
  if (whys.empty()) return std::string("there is no NodePool that is Ready");
  return absl::StrJoin(whys, "; ");
}

Replacement SimulationPass::Finish(const Claim& claim) const {
  const PoolInfo& info = *claim.info;
  const v1::NodePool& pool = *info.pool;
  const std::string& name = pool.metadata().name();
  std::vector<std::pair<double, const std::string*>> priced;
  const Requirement* zone = claim.reqs.Get(well_known::kLabelTopologyZone);
  const Requirement* ct = claim.reqs.Get(well_known::kCapacityTypeLabelKey);
  for (size_t t : claim.types) {
    const InstanceType& type = *info.types[t].type;
    // The cheapest offering it may launch into: a reserved one only when
    // the claim holds one of its reservation.
    std::optional<double> best;
    for (const Offering& o : type.offerings) {
      if (!o.available || (zone != nullptr && !zone->Has(o.zone)) ||
          (ct != nullptr && !ct->Has(o.capacity_type))) {
        continue;
      }
      if (o.capacity_type == well_known::kCapacityTypeReserved &&
          claim.reserved.count(o.reservation_id) == 0) {
        continue;
      }
      if (!best || o.price < *best) best = o.price;
    }
    if (!best.has_value()) continue;
    priced.emplace_back(*best, &type.name);
  }
  if (priced.empty()) {
    // Only reserved offerings it holds none of: priced as they are.
    for (size_t t : claim.types) {
      const InstanceType& type = *info.types[t].type;
      priced.emplace_back(CheapestOffering(type, claim.reqs).value_or(0),
                          &type.name);
    }
  }
  std::sort(priced.begin(), priced.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : *a.second < *b.second;
  });
  Replacement r;
  r.node_pool = name;
  for (const auto& [price, type] : priced) r.instance_types.push_back(*type);
  r.price = priced.front().first;

  std::vector<std::string> names;
  for (const Candidate& c : candidates_) names.push_back(c.node_name);
  std::sort(names.begin(), names.end());
  uint64_t hash = Fnv1a(absl::StrJoin(names, "\n"));
  if (claim.id > 0) hash = Fnv1a(absl::StrCat("\n", claim.id), hash);
  v1::NodeClaim& nc = r.node_claim;
  nc.set_api_version(std::string(well_known::kApiVersionV1));
  nc.set_kind("NodeClaim");
  const auto& tmpl = pool.spec().template_();
  v1::ObjectMeta& meta = *nc.mutable_metadata();
  meta.set_name(absl::StrFormat("%s-replacement-%016x", name, hash));
  internal::SetTemplateMetadata(pool, meta);
  v1::OwnerReference& owner = *meta.add_owner_references();
  owner.set_api_version(std::string(well_known::kApiVersionV1));
  owner.set_kind("NodePool");
  owner.set_name(name);
  owner.set_uid(pool.metadata().uid());
  owner.set_block_owner_deletion(true);
  v1::NodeClaimSpec& spec = *nc.mutable_spec();
  *spec.mutable_taints() = tmpl.spec().taints();
  *spec.mutable_startup_taints() = tmpl.spec().startup_taints();
  if (tmpl.spec().has_node_class_ref()) {
    *spec.mutable_node_class_ref() = tmpl.spec().node_class_ref();
  }
  if (tmpl.spec().has_expire_after()) {
    spec.set_expire_after(tmpl.spec().expire_after());
  }
  if (tmpl.spec().has_termination_grace_period()) {
    spec.set_termination_grace_period(tmpl.spec().termination_grace_period());
  }
  // The claim's requirements: the template's, its labels, the pods' and
  // the topology domains it was narrowed to (the placeholder hostname and
  // the instance types, which follow, left out).
  for (const auto& [key, req] : claim.reqs.map()) {
    if (key == well_known::kLabelInstanceTypeStable ||
        key == well_known::kLabelHostname) {
      continue;
    }
    for (v1::NodeSelectorRequirement& e : RequirementProtos(req)) {
      *spec.add_requirements() = std::move(e);
    }
  }
  if (claim.min_values_relaxed) {
    (*meta.mutable_annotations())[std::string(
        well_known::kNodeClaimMinValuesRelaxedAnnotationKey)] = "true";
  }
  v1::NodeSelectorRequirement& types = *spec.add_requirements();
  types.set_key(std::string(well_known::kLabelInstanceTypeStable));
  types.set_operator_("In");
  for (const std::string& t : r.instance_types) types.add_values(t);
  if (const Requirement* base =
          info.base.Get(well_known::kLabelInstanceTypeStable);
      base != nullptr && base->min_values().has_value()) {
    types.set_min_values(*base->min_values());
  }
  const std::vector<int64_t> daemons = MinOverhead(claim);
  for (size_t i = 0; i < b_.d; ++i) {
    const int64_t request = claim.total[i] + daemons[i];
    if (request <= 0) continue;
    (*spec.mutable_resources()->mutable_requests())[b_.dims[i]] =
        FormatMilli(request);
  }
  return r;
}

SimulationResult SimulationPass::Run() {
  SimulationResult result;
  const size_t pod_count = b_.snap->pod_count();
  const size_t node_count = b_.snap->nodes().size();
  candidate_bits_.assign(node_count / 64 + 1, 0);
  row_of_.assign(node_count, -1);
  absl::flat_hash_set<PodIndex> seen;
  std::vector<Moving> moving;
  for (const Candidate& c : candidates_) {
    if (c.node < node_count) {
      candidate_bits_[c.node / 64] |= uint64_t{1} << (c.node % 64);
    }
    for (PodIndex p : c.reschedulable_pods) {
      if (p >= pod_count) {
        result.unschedulable.push_back(
            absl::StrCat("pod #", p, ": not in the snapshot"));
        continue;
      }
      if (!s_.Movable(p) || !seen.insert(p).second) continue;
      moving.push_back({p, 1});
    }
  }
  for (const auto& [p, n] : s_.deleting_pods) {
    if (IsCandidate(n) || !seen.insert(p).second) continue;
    moving.push_back({p, 0});
  }
  for (const Moving& m : moving) {
    const auto it = b_.unsupported.find(b_.snap->PodShapeId(m.pod));
    if (it != b_.unsupported.end()) {
      result.unsupported =
          absl::StrCat(b_.snap->PodKey(m.pod), ": ", it->second);
      return result;
    }
  }
  for (const Candidate& c : candidates_) topo_.RemoveNode(c.node);
  for (const Moving& m : moving) topo_.RemovePod(m.pod);
  if (s_.options.include_pending_pods) {
    std::vector<Moving> pending;
    for (PodIndex p : b_.pending_pods) pending.push_back({p, 0});
    SortFfd(pending);
    for (const Moving& m : pending) PlaceOnExisting(m.pod);
  }
  SortFfd(moving);
  PlaceAll(moving, /*new_claims=*/true);
  for (const Claim& claim : claims_) {
    result.new_node_claims.push_back(Finish(claim));
  }
  std::sort(failed_.begin(), failed_.end());
  for (const auto& [p, why] : failed_) {
    result.unschedulable.push_back(absl::StrCat(b_.snap->PodKey(p), ": ", why));
  }
  result.all_pods_scheduled = result.unschedulable.empty();
  return result;
}

void SimulationPass::PlaceAll(absl::Span<const Moving> pods, bool new_claims) {
  // Karpenter's queue: a pod that fails goes back to the end, and a round
  // in which no pod found a place ends it (a pod may need one placed after
  // it, e.g. for its pod affinity).
  std::vector<Moving> queue(pods.begin(), pods.end());
  std::vector<std::pair<Moving, std::string>> failed;
  while (true) {
    failed.clear();
    bool relaxed = false;
    for (const Moving& m : queue) {
      if (std::optional<std::string> why = PlaceOne(m, new_claims)) {
        // Relax one preference (preferences.go) and try again later: the
        // pod's own, then, when a NodePool has a PreferNoSchedule taint, a
        // toleration of those.
        const auto v = b_.variants.find(b_.snap->PodShapeId(m.pod));
        const size_t steps = (v != b_.variants.end() ? v->second.size() : 0) +
                             (s_.prefer_no_schedule ? 1 : 0);
        if (steps > 0) {
          size_t& done = relaxed_[m.pod];
          if (done < steps) {
            ++done;
            relaxed = true;
          }
        }
        failed.emplace_back(m, *std::move(why));
      }
    }
    if (failed.empty() || (failed.size() == queue.size() && !relaxed)) break;
    queue.clear();
    for (const auto& [m, why] : failed) queue.push_back(m);
  }
  for (auto& [m, why] : failed) Fail(m.pod, std::move(why));
}

std::optional<std::string> SimulationPass::PlaceOne(const Moving& m,
                                                    bool new_claims) {
  from_candidate_ = m.from_candidate != 0;
  current_pod_ = m.pod;
  const auto v = b_.variants.find(b_.snap->PodShapeId(m.pod));
  current_variants_ = v != b_.variants.end() ? &v->second : nullptr;
  current_variant_ = 0;
  if (const auto r = relaxed_.find(m.pod); r != relaxed_.end()) {
    current_variant_ = r->second;
  }
  tolerate_prefer_no_schedule_ =
      current_variant_ >
      (current_variants_ != nullptr ? current_variants_->size() : 0);
  if (PlaceOnExisting(m.pod)) {
    const NodeIndex n = placed_.back().second;
    if (m.from_candidate && uninitialized(n)) {
      return absl::StrCat("would schedule against uninitialized node ",
                          b_.snap->nodes()[n].metadata().name());
    }
    return std::nullopt;
  }
  if (!new_claims) {
    return absl::StrCat("fits no node (", NoNodeAvailable(m.pod), ")");
  }
  if (std::optional<std::string> why = PlaceOnNewClaim(m.pod)) {
    return absl::StrCat("fits no remaining node (", NoNodeAvailable(m.pod),
                        ") and ", *why);
  }
  return std::nullopt;
}

Scheduler::Provisioned SimulationPass::Provision(
    absl::Span<const PodIndex> pods) {
  const size_t node_count = b_.snap->nodes().size();
  candidate_bits_.assign(node_count / 64 + 1, 0);
  row_of_.assign(node_count, -1);
  std::vector<Moving> list;
  for (PodIndex p : pods) {
    if (p >= b_.snap->pod_count()) continue;
    if ((b_.pod_flags[p] & kPending) == 0) {
      Fail(p, "is not pending (bound, terminal or terminating)");
      continue;
    }
    const auto it = b_.unsupported.find(b_.snap->PodShapeId(p));
    if (it != b_.unsupported.end()) {
      Fail(p, it->second);
      continue;
    }
    list.push_back({p, 0});
  }
  SortFfd(list);
  PlaceAll(list, /*new_claims=*/true);
  Scheduler::Provisioned out;
  out.existing = placed_;
  for (const Claim& claim : claims_) {
    out.node_claims.push_back(Finish(claim));
    out.claim_pods.push_back(claim.pods);
  }
  std::sort(failed_.begin(), failed_.end());
  out.unschedulable = failed_;
  return out;
}

std::vector<std::vector<scheduling::FilterFailure>> SimulationPass::FitAll(
    PodIndex p) {
  row_of_.assign(b_.snap->nodes().size(), -1);
  candidate_bits_.assign(b_.snap->nodes().size() / 64 + 1, 0);
  if (std::optional<NodeIndex> bound = b_.snap->NodeOfPod(p)) {
    if ((b_.pod_flags[p] & kIndexed) != 0) {
      int64_t* free = MutableFreeOf(*bound);
      for (size_t i = 0; i < b_.d; ++i) free[i] += b_.Req(p)[i];
      if (const auto* ports = b_.Ports(p)) {
        MutablePortsOf(*bound).Remove(*ports);
      }
      if (const scheduling::PodVolumes* v = b_.Volumes(p)) {
        // Added at Build: removing cannot fail.
        MutableVolumesOf(*bound).Remove(*v).IgnoreError();
      }
    }
    topo_.RemovePod(p);
  }
  std::vector<std::vector<scheduling::FilterFailure>> out;
  out.reserve(b_.snap->nodes().size());
  for (NodeIndex n = 0; n < b_.snap->nodes().size(); ++n) {
    out.push_back(FilterAll(p, n, /*first_only=*/false));
  }
  return out;
}

namespace {

// kube-scheduler's default profile score weights
// (pkg/scheduler/apis/config/v1/default_plugins.go).
constexpr int64_t kLeastAllocatedWeight = 1;
constexpr int64_t kBalancedWeight = 1;
constexpr int64_t kTaintTolerationWeight = 3;
constexpr int64_t kNodeAffinityWeight = 2;
constexpr int64_t kPodTopologySpreadWeight = 2;
constexpr int64_t kInterPodAffinityWeight = 2;
constexpr int64_t kMaxNodeScore = 100;
// pkg/scheduler/util/pod_resources.go: what a pod that requests no cpu or
// memory counts as when nodes are scored (milli-units).
constexpr int64_t kNonZeroCpuMilli = 100;
constexpr int64_t kNonZeroMemoryMilli = int64_t{200} * 1024 * 1024 * 1000;

// least_allocated.go leastResourceScorer, one resource.
int64_t LeastAllocated(int64_t requested, int64_t allocatable) {
  if (allocatable <= 0 || requested > allocatable) return 0;
  // In milli-units products overflow int64 for large memories: scale in
  // double, then truncate as the Go integer division does.
  return static_cast<int64_t>(static_cast<double>(allocatable - requested) *
                              kMaxNodeScore / static_cast<double>(allocatable));
}

// balanced_allocation.go balancedResourceScorer for cpu and memory.
int64_t Balanced(int64_t cpu_requested, int64_t cpu_allocatable,
                 int64_t mem_requested, int64_t mem_allocatable) {
  const auto fraction = [](int64_t requested, int64_t allocatable) {
    if (allocatable <= 0) return 1.0;  // Go skips a zero capacity.
    const double f =
        static_cast<double>(requested) / static_cast<double>(allocatable);
    return f > 1 ? 1.0 : f;
  };
  if (cpu_allocatable <= 0 || mem_allocatable <= 0) {
    // One resource left: its standard deviation is 0.
    return kMaxNodeScore;
  }
  const double std_dev = std::abs(fraction(cpu_requested, cpu_allocatable) -
                                  fraction(mem_requested, mem_allocatable)) /
                         2;
  return static_cast<int64_t>((1 - std_dev) * kMaxNodeScore);
}

// The PreferNoSchedule taints of `node` that `pod` does not tolerate
// (taint_toleration.go countIntolerableTaintsPreferNoSchedule).
int64_t IntolerablePreferNoSchedule(const v1::Pod& pod, const v1::Node& node) {
  int64_t count = 0;
  for (const v1::Taint& taint : node.spec().taints()) {
    if (taint.effect() != well_known::kTaintEffectPreferNoSchedule) continue;
    bool tolerated = false;
    for (const v1::Toleration& tol : pod.spec().tolerations()) {
      if ((tol.effect().empty() ||
           tol.effect() == well_known::kTaintEffectPreferNoSchedule) &&
          drain::ToleratesTaint(tol, taint)) {
        tolerated = true;
        break;
      }
    }
    if (!tolerated) ++count;
  }
  return count;
}

// node_affinity.go Score: the weights of the preferred terms `node` matches.
int64_t PreferredNodeAffinity(const v1::Pod& pod, const v1::Node& node) {
  int64_t sum = 0;
  for (const v1::PreferredSchedulingTerm& term :
       pod.spec()
           .affinity()
           .node_affinity()
           .preferred_during_scheduling_ignored_during_execution()) {
    if (term.weight() != 0 &&
        scheduling::NodeSelectorTermMatches(term.preference(), node)) {
      sum += term.weight();
    }
  }
  return sum;
}

}  // namespace

Scheduler::Bound SimulationPass::BindAll(absl::Span<const PodIndex> pods,
                                         uint64_t seed) {
  const size_t node_count = b_.snap->nodes().size();
  candidate_bits_.assign(node_count / 64 + 1, 0);
  row_of_.assign(node_count, -1);
  Scheduler::Bound out;
  struct Scored {
    NodeIndex node;
    int64_t least = 0;
    int64_t balanced = 0;
    int64_t taints = 0;
    int64_t affinity = 0;
  };
  std::vector<Scored> feasible;
  std::vector<NodeIndex> feasible_nodes;
  // By shape id: what the topology Score plugins read of the pod; nullopt
  // when it does not compile (they are then skipped for it).
  absl::flat_hash_map<uint32_t, std::optional<scheduling::PodScoring>> scoring;
  for (PodIndex p : pods) {
    if (p >= b_.snap->pod_count()) {
      out.unschedulable.emplace_back(
          p, absl::StrCat("pod #", p, ": not in the snapshot"));
      continue;
    }
    if ((b_.pod_flags[p] & kPending) == 0) {
      out.unschedulable.emplace_back(
          p, "is not pending (bound, terminal or terminating)");
      continue;
    }
    if (const auto it = b_.unsupported.find(b_.snap->PodShapeId(p));
        it != b_.unsupported.end()) {
      out.unschedulable.emplace_back(p, it->second);
      continue;
    }
    ResetSpreadViews();
    const int64_t* req = b_.Req(p);
    const bool topology = TopologyMatters(p);
    const std::vector<scheduling::HostPort>* ports = b_.Ports(p);
    const scheduling::PodVolumes* volumes = b_.Volumes(p);
    feasible.clear();
    for (NodeIndex n : b_.node_order) {
      if (!Fits(req, FreeOf(n)) || !Compatible(p, n)) continue;
      if (ports != nullptr && scheduling::NodePortsFilter(*ports, PortsOf(n))) {
        continue;
      }
      if (volumes != nullptr && !VolumesFit(*volumes, n)) continue;
      if (topology && TopologyFilter(p, n).has_value()) continue;
      feasible.push_back({n});
    }
    if (feasible.empty()) {
      out.unschedulable.emplace_back(p, NoNodeAvailable(p));
      continue;
    }
    const v1::Pod& shape = *b_.profiles[ProfileId(p)].pod;
    const int64_t pod_cpu = req[kCpuDim] > 0 ? req[kCpuDim] : kNonZeroCpuMilli;
    const int64_t pod_mem =
        req[kMemoryDim] > 0 ? req[kMemoryDim] : kNonZeroMemoryMilli;
    int64_t max_taints = 0;
    int64_t max_affinity = 0;
    for (Scored& f : feasible) {
      const NodeIndex n = f.node;
      const int64_t* alloc = &b_.node_alloc[size_t{n} * b_.d];
      const int64_t* free = FreeOf(n);
      const int64_t cpu_used = alloc[kCpuDim] - free[kCpuDim];
      const int64_t mem_used = alloc[kMemoryDim] - free[kMemoryDim];
      f.least = (LeastAllocated(cpu_used + pod_cpu, alloc[kCpuDim]) +
                 LeastAllocated(mem_used + pod_mem, alloc[kMemoryDim])) /
                2;
      f.balanced = Balanced(cpu_used + req[kCpuDim], alloc[kCpuDim],
                            mem_used + req[kMemoryDim], alloc[kMemoryDim]);
      const v1::Node& node = b_.snap->nodes()[n];
      f.taints = IntolerablePreferNoSchedule(shape, node);
      f.affinity = PreferredNodeAffinity(shape, node);
      max_taints = std::max(max_taints, f.taints);
      max_affinity = std::max(max_affinity, f.affinity);
    }
    const auto emplaced = scoring.try_emplace(b_.snap->PodShapeId(p));
    const auto sc = emplaced.first;
    if (emplaced.second) {
      absl::StatusOr<scheduling::PodScoring> c =
          scheduling::CompilePodScoring(b_.snap->PodShape(p));
      if (c.ok()) sc->second = *std::move(c);
    }
    std::vector<int64_t> spread;
    std::vector<int64_t> inter_pod;
    if (sc->second.has_value() && feasible.size() > 1) {
      feasible_nodes.clear();
      for (const Scored& f : feasible) feasible_nodes.push_back(f.node);
      WithIncoming(p, [&](const scheduling::IncomingPod& pod) {
        spread = topo_.PodTopologySpreadScore(pod, *sc->second, feasible_nodes);
        inter_pod =
            topo_.InterPodAffinityScore(pod, *sc->second, feasible_nodes);
        return 0;
      });
    }
    const std::string pod_key = b_.snap->PodKey(p);
    const auto tie = [&](NodeIndex n) {
      return Fnv1a(b_.snap->nodes()[n].metadata().name(),
                   Fnv1a(pod_key, 0xcbf29ce484222325ULL ^ seed));
    };
    NodeIndex best = feasible.front().node;
    int64_t best_score = -1;
    uint64_t best_tie = 0;
    for (size_t i = 0; i < feasible.size(); ++i) {
      const Scored& f = feasible[i];
      // helper.DefaultNormalizeScore: reversed for taints, plain for
      // affinity; a maximum of 0 leaves 100 (reversed) or 0.
      const int64_t taints =
          max_taints == 0
              ? kMaxNodeScore
              : kMaxNodeScore - f.taints * kMaxNodeScore / max_taints;
      const int64_t affinity =
          max_affinity == 0 ? 0 : f.affinity * kMaxNodeScore / max_affinity;
      const int64_t score =
          f.least * kLeastAllocatedWeight + f.balanced * kBalancedWeight +
          taints * kTaintTolerationWeight + affinity * kNodeAffinityWeight +
          (spread.empty() ? 0 : spread[i] * kPodTopologySpreadWeight) +
          (inter_pod.empty() ? 0 : inter_pod[i] * kInterPodAffinityWeight);
      if (score < best_score) continue;
      const uint64_t t = tie(f.node);
      if (score > best_score || t < best_tie) {
        best = f.node;
        best_score = score;
        best_tie = t;
      }
    }
    Place(p, best);
    out.bound.emplace_back(p, best);
  }
  return out;
}

absl::StatusOr<std::vector<std::vector<scheduling::FilterFailure>>>
Scheduler::Fit(PodIndex pod) const {
  const internal::SchedulerBase& b = *state_->base;
  if (pod >= b.snap->pod_count()) {
    return absl::InvalidArgumentError(
        absl::StrCat("pod #", pod, ": not in the snapshot"));
  }
  if ((b.pod_flags[pod] & (kIndexed | kPending)) == 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "pods/", b.snap->PodKey(pod),
        ": is terminal or terminating and unbound; it will not be scheduled"));
  }
  const auto it = b.unsupported.find(b.snap->PodShapeId(pod));
  if (it != b.unsupported.end()) {
    return absl::UnimplementedError(
        absl::StrCat("pods/", b.snap->PodKey(pod), ": ", it->second));
  }
  SimulationPass pass(*state_, {});
  return pass.FitAll(pod);
}

Scheduler::Provisioned Scheduler::Provision(
    absl::Span<const PodIndex> pods) const {
  SimulationPass pass(*state_, {});
  return pass.Provision(pods);
}

Scheduler::Bound Scheduler::Bind(absl::Span<const PodIndex> pods,
                                 uint64_t seed) const {
  SimulationPass pass(*state_, {});
  return pass.BindAll(pods, seed);
}

SimulationResult Scheduler::Simulate(
    absl::Span<const Candidate> candidates) const {
  SimulationPass pass(*state_, candidates);
  return pass.Run();
}

SimulationResult Scheduler::SimulateConsolidation(
    absl::Span<const Candidate> candidates) const {
  SimulationPass pass(*state_, candidates);
  pass.set_consolidation(true);
  return pass.Run();
}

}  // namespace karpenter::disruption
