// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#include "karpenter/disruption/scheduler.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
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
};

struct PoolInfo {
  const v1::NodePool* pool = nullptr;
  Requirements base;  // Template requirements, labels and the pool label.
  std::vector<int64_t> overhead;
  std::vector<TypeInfo> types;
  // Indexes of `types` that `base` admits.
  std::vector<size_t> admitted;
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

class BaseBuilder {
 public:
  BaseBuilder(const snapshot::Snapshot& snap, const budget::PdbIndex& pdbs,
              SchedulerBase& out)
      : snap_(snap), pdbs_(pdbs), b_(out) {
    b_.snap = &snap;
  }

  absl::Status Build() {
    if (absl::Status s = IndexPods(); !s.ok()) return s;
    if (absl::Status s = IndexNodes(); !s.ok()) return s;
    if (absl::Status s = IndexPools(); !s.ok()) return s;
    if (absl::Status s = IndexVolumes(); !s.ok()) return s;
    IndexMoves();
    b_.topology = scheduling::TopologyIndex::Build(snap_);
    return absl::OkStatus();
  }

  // Resolves the claim-backed volumes of every indexed pod that has some
  // (the whole pod is decoded: an ephemeral volume's claim is named after
  // it), and counts the CSI volumes each node's pods use. A pod whose
  // volumes do not resolve is unsupported.
  absl::Status IndexVolumes() {
    absl::StatusOr<scheduling::VolumeIndex> index =
        scheduling::VolumeIndex::Build(
            snap_.persistent_volume_claims(), snap_.persistent_volumes(),
            snap_.storage_classes(), snap_.csi_nodes());
    if (!index.ok()) return index.status();
    b_.volume_index.emplace(*std::move(index));
    const size_t pods = snap_.pod_count();
    b_.pod_volumes_of.assign(pods, -1);
    const auto nodes = snap_.nodes();
    b_.node_volumes.assign(nodes.size(), scheduling::NodeVolumeUsage());
    b_.node_csi.assign(nodes.size(), nullptr);
    for (NodeIndex n = 0; n < nodes.size(); ++n) {
      b_.node_csi[n] = b_.volume_index->FindCSINode(nodes[n].metadata().name());
    }
    for (PodIndex p = 0; p < pods; ++p) {
      if ((b_.pod_flags[p] & (kIndexed | kPending)) == 0) continue;
      bool has = false;
      for (const v1::Volume& v : snap_.PodShape(p).spec().volumes()) {
        has = has || v.has_persistent_volume_claim() || v.has_ephemeral();
      }
      if (!has) continue;
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
  absl::Status IndexShape(PodIndex p, uint32_t shape_id,
                          absl::flat_hash_map<std::string, int32_t>& ids) {
    const v1::Pod& shape = snap_.PodShape(p);
    FastList list;
    if (absl::Status s = requests_.Compute(shape, list); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("pods/", snap_.PodKey(p), ": ", s.message()));
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
    }
    shape_list_[shape_id] = static_cast<int32_t>(lists_.size());
    lists_.push_back(std::move(list));
    shape_profile_[shape_id] = it->second;
    IndexConstraints(shape, shape_id);
    std::vector<scheduling::HostPort> ports = scheduling::PodHostPorts(shape);
    if (!ports.empty()) {
      b_.shape_ports[shape_id] = static_cast<int32_t>(b_.port_lists.size());
      b_.port_lists.push_back(std::move(ports));
    }
    return absl::OkStatus();
  }

  // Topology spread and pod (anti-)affinity of one shape. A shape whose
  // constraints do not compile is unsupported: its pods never move.
  void IndexConstraints(const v1::Pod& shape, uint32_t shape_id) {
    absl::StatusOr<scheduling::PodConstraints> c =
        scheduling::CompilePodConstraints(shape);
    if (!c.ok()) {
      b_.shape_constraints[shape_id] = SchedulerBase::kUnsupported;
      b_.unsupported[shape_id] = std::string(c.status().message());
    } else if (!c->empty()) {
      b_.shape_constraints[shape_id] =
          static_cast<int32_t>(b_.constraints.size());
      b_.constraints.push_back(*std::move(c));
    }
  }

  absl::Status IndexPod(PodIndex p, bool pending,
                        absl::flat_hash_map<std::string, int32_t>& ids) {
    const uint32_t shape_id = snap_.PodShapeId(p);
    if (shape_list_[shape_id] < 0) {
      if (absl::Status s = IndexShape(p, shape_id, ids); !s.ok()) return s;
    }
    b_.pod_profile[p] = shape_profile_[shape_id];
    b_.pod_flags[p] = pending ? kPending : kIndexed;
    if (!pending && DaemonSetOwner(snap_.PodShape(p)) != nullptr) {
      daemon_pods_.push_back(p);
    }
    if (pending) b_.pending_pods.push_back(p);
    return absl::OkStatus();
  }

  absl::Status IndexPods() {
    const size_t pod_count = snap_.pod_count();
    b_.pod_flags.assign(pod_count, 0);
    b_.pod_profile.assign(pod_count, -1);
    shape_list_.assign(snap_.pod_shape_count(), -1);
    shape_profile_.assign(snap_.pod_shape_count(), -1);
    b_.shape_constraints.assign(snap_.pod_shape_count(),
                                SchedulerBase::kNoConstraints);
    b_.shape_ports.assign(snap_.pod_shape_count(), -1);
    absl::flat_hash_map<std::string, int32_t> profile_ids;
    for (PodIndex p = 0; p < pod_count; ++p) {
      const v1::Pod& pod = snap_.PodShape(p);
      if (drain::IsTerminal(pod)) continue;
      const bool bound = snap_.NodeOfPod(p).has_value();
      const bool pending = snap_.PodIsUnbound(p) && !drain::IsTerminating(pod);
      if (!bound && !pending) continue;
      absl::Status s = IndexPod(p, pending, profile_ids);
      if (!s.ok() && !pending) return s;
      if (!s.ok()) {
        if (b_.pending_status.ok()) b_.pending_status = s;
        continue;
      }
    }
    std::set<std::string, std::less<>> extended;
    for (const FastList& list : lists_) {
      for (const auto& [k, v] : list) {
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
    // Each indexed shape's requests as a row over the dimensions.
    std::vector<int64_t> rows(lists_.size() * b_.d, 0);
    for (size_t l = 0; l < lists_.size(); ++l) {
      for (const auto& [k, v] : lists_[l]) {
        const size_t i = static_cast<size_t>(
            std::find(b_.dims.begin(), b_.dims.end(), k) - b_.dims.begin());
        rows[l * b_.d + i] = v;
      }
    }
    b_.pod_req.assign(pod_count * b_.d, 0);
    for (PodIndex p = 0; p < pod_count; ++p) {
      if (b_.pod_flags[p] == 0) continue;
      const size_t l = static_cast<size_t>(shape_list_[snap_.PodShapeId(p)]);
      std::copy_n(rows.begin() + static_cast<std::ptrdiff_t>(l * b_.d), b_.d,
                  b_.pod_req.begin() + static_cast<std::ptrdiff_t>(p * b_.d));
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
      absl::StatusOr<int64_t> v = ParseRequest(
          it->second, absl::StrCat(use_capacity ? "status.capacity."
                                                : "status.allocatable.",
                                   b_.dims[i]));
      if (!v.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "nodes/", node.metadata().name(), ": ", v.status().message()));
      }
      free[i] = *v;
      b_.node_alloc[size_t{n} * b_.d + i] = *v;
    }
    for (PodIndex p : snap_.PodsOnNode(n)) {
      if ((b_.pod_flags[p] & kIndexed) == 0) continue;
      for (size_t i = 0; i < b_.d; ++i) free[i] -= b_.Req(p)[i];
      if (const auto* ports = b_.Ports(p)) b_.node_ports[n].Add(*ports);
    }
    return absl::OkStatus();
  }

  bool NodeDeleting(const v1::Node& node) const {
    bool deleting = node.metadata().has_deletion_timestamp();
    for (const v1::Taint& t : node.spec().taints()) {
      if (t.key() == well_known::kDisruptedTaintKey) deleting = true;
    }
    std::optional<snapshot::NodeClaimIndex> claim =
        snap_.FindNodeClaimByProviderId(node.spec().provider_id());
    if (!claim) claim = snap_.FindNodeClaimByNodeName(node.metadata().name());
    return deleting ||
           (claim &&
            snap_.node_claims()[*claim].metadata().has_deletion_timestamp());
  }

  absl::Status IndexNodes() {
    const auto nodes = snap_.nodes();
    b_.node_free.assign(nodes.size() * b_.d, 0);
    b_.node_alloc.assign(nodes.size() * b_.d, 0);
    b_.node_ports.assign(nodes.size(), scheduling::HostPortSet());
    b_.node_deleting.assign(nodes.size(), 0);
    for (NodeIndex n = 0; n < nodes.size(); ++n) {
      if (absl::Status s = NodeFree(n); !s.ok()) return s;
      const v1::Node& node = nodes[n];
      b_.node_deleting[n] = NodeDeleting(node);
      if (!b_.node_deleting[n] && !node.spec().unschedulable() &&
          IsConditionTrue(node.status().conditions(),
                          well_known::kConditionTypeReady)) {
        b_.node_order.push_back(n);
      }
    }
    const size_t d = b_.d;
    const std::vector<int64_t>& free = b_.node_free;
    std::sort(b_.node_order.begin(), b_.node_order.end(),
              [&](NodeIndex a, NodeIndex b) {
                const int64_t fa = free[size_t{a} * d + kCpuDim];
                const int64_t fb = free[size_t{b} * d + kCpuDim];
                if (fa != fb) return fa < fb;
                return nodes[a].metadata().name() < nodes[b].metadata().name();
              });
    return absl::OkStatus();
  }

  absl::Status IndexPools() {
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
      b_.pools.emplace(name, std::move(info));
    }
    AddDaemonSetOverhead();
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
      if (label == labels.end() || b_.pools.count(label->second) == 0) {
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
          b_.pools.find(std::get<0>(key))->second.overhead;
      for (size_t i = 0; i < b_.d; ++i) overhead[i] += max[i];
    }
  }

  // Movable when disruptable and not fully PDB-blocked; a do-not-disrupt
  // that may be active is decided at the simulation's time.
  void IndexMoves() {
    for (PodIndex p = 0; p < snap_.pod_count(); ++p) {
      if ((b_.pod_flags[p] & kIndexed) == 0 || pdbs_.IsFullyBlocked(p)) {
        continue;
      }
      // The shape answers as the pod would at the infinite past: see
      // WalkPods in snapshot_facts.cc.
      const v1::Pod& pod = snap_.PodShape(p);
      const bool active = !drain::IsTerminal(pod) && !drain::IsTerminating(pod);
      if (active && !pod.metadata().annotations().empty() &&
          drain::EvaluateDoNotDisrupt(pod, absl::InfinitePast()).active()) {
        b_.pod_flags[p] |= kDoNotDisruptAtNow;
        b_.do_not_disrupt_pods.push_back(p);
      } else {
        b_.pod_flags[p] |= kMovable;
      }
    }
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

  const snapshot::Snapshot& snap_;
  const budget::PdbIndex& pdbs_;
  SchedulerBase& b_;
  scheduling::PodRequestsCalculator requests_;
  std::vector<PodIndex> daemon_pods_;  // Bound, indexed, DaemonSet-owned.
  // By shape id: index into lists_ and the profile, or -1 before indexing.
  std::vector<int32_t> shape_list_;
  std::vector<int32_t> shape_profile_;
  std::vector<FastList> lists_;  // Requests of each indexed shape.
};

}  // namespace

absl::Status BuildSchedulerBase(const snapshot::Snapshot& snapshot,
                                const budget::PdbIndex& pdbs,
                                SchedulerBase& out) {
  return BaseBuilder(snapshot, pdbs, out).Build();
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

 private:
  // Instance type `type`'s capacity per dimension (CheckCatalog has parsed
  // every quantity once already).
  absl::StatusOr<std::vector<int64_t>> Capacity(const InstanceType& type,
                                                absl::string_view pool) const;

  mutable std::mutex mu_;  // Guards pools_.
  mutable std::map<std::string, std::unique_ptr<PoolInfo>, std::less<>> pools_;
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
  for (const auto& [name, pb] : base->pools) {
    const auto it = catalog->find(name);
    if (it == catalog->end()) continue;
    for (const InstanceType& type : it->second) {
      absl::StatusOr<std::vector<int64_t>> c = Capacity(type, name);
      if (!c.ok()) return c.status();
    }
  }
  return absl::OkStatus();
}

const PoolInfo* Scheduler::State::Pool(absl::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto cached = pools_.find(name);
  if (cached != pools_.end()) return cached->second.get();
  const auto pb = base->pools.find(name);
  if (pb == base->pools.end()) return nullptr;
  auto info = std::make_unique<PoolInfo>();
  info->pool = pb->second.pool;
  info->base = pb->second.base;
  info->overhead = pb->second.overhead;
  const auto it = catalog->find(name);
  if (it != catalog->end()) {
    for (const InstanceType& type : it->second) {
      // CheckCatalog accepted every capacity.
      TypeInfo t{&type, Capacity(type, name).value_or(std::vector<int64_t>())};
      if (TypeAdmits(t, info->base)) {
        info->admitted.push_back(info->types.size());
      }
      info->types.push_back(std::move(t));
    }
  }
  return pools_.emplace(std::string(name), std::move(info)).first->second.get();
}

absl::Status Scheduler::State::Finish() {
  if (options.include_pending_pods && !base->pending_status.ok()) {
    return base->pending_status;
  }
  if (absl::Status s = CheckCatalog(); !s.ok()) return s;
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

// A pod to place, and the candidate NodePool it falls back to (index into
// the pass's pool list; -1: the first pool whose template admits it).
struct Moving {
  PodIndex pod = 0;
  int pool = -1;
};

// The new NodeClaim being filled for one NodePool.
struct Claim {
  const PoolInfo* info = nullptr;
  Requirements reqs;
  std::vector<size_t> types;  // Indexes into info->types that still fit.
  std::vector<int64_t> total;
  std::vector<v1::NodeSelectorRequirement> added;
  int pods = 0;
  scheduling::HostPortSet ports;  // Held by the pods added so far.
};

}  // namespace

// The Simulate steps, over one State; local to this file.
class SimulationPass {
 public:
  SimulationPass(const Scheduler::State& s,
                 absl::Span<const Candidate> candidates)
      : s_(s), b_(*s.base), candidates_(candidates) {}

  SimulationResult Run();
  // Every node's Filter failures for pod `p` as if it were unbound (see
  // Scheduler::Fit).
  std::vector<std::vector<scheduling::FilterFailure>> FitAll(PodIndex p);

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
  // Why a new NodeClaim for p would have to be narrowed to its volumes'
  // topology (the plugin and what): a bound volume with zone labels or
  // node affinity, an unbound WaitForFirstConsumer claim whose class
  // restricts topologies, or a claim that is missing. Nullopt if none.
  std::optional<std::string> NeedsVolumeNarrowing(PodIndex p) const;
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
  std::optional<std::string> TryAdd(Claim& claim, PodIndex p) const;
  Replacement Finish(const Claim& claim) const;
  void SortFfd(std::vector<Moving>& pods) const;

  bool IsCandidate(NodeIndex n) const {
    return (candidate_bits_[n / 64] >> (n % 64)) & 1;
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
  const int32_t profile = b_.pod_profile[p];
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
  return b_.Constraints(p) != nullptr || placed_holder_ ||
         !b_.topology->HolderGroupsSelecting(p).empty();
}

template <typename F>
auto SimulationPass::WithIncoming(PodIndex p, F f) {
  const scheduling::PodConstraints* c = b_.Constraints(p);
  const auto affinity = [&](NodeIndex m) {
    return (Static(p, m) & kAffinityOk) != 0;
  };
  const auto taints = [&](NodeIndex m) {
    return (Static(p, m) & kTaintsOk) != 0;
  };
  return f(scheduling::IncomingPod{p, c != nullptr ? c : &NoConstraints(),
                                   affinity, taints});
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
  std::map<std::string, int> histogram;
  int nodes = 0;
  for (NodeIndex n = 0; n < b_.snap->nodes().size(); ++n) {
    if (IsCandidate(n)) continue;
    ++nodes;
    for (const scheduling::FilterFailure& f : FilterAll(p, n, true)) {
      ++histogram[f.message];
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

std::optional<std::string> SimulationPass::NeedsVolumeNarrowing(
    PodIndex p) const {
  const scheduling::PodVolumes* volumes = b_.Volumes(p);
  if (volumes == nullptr) return std::nullopt;
  for (const scheduling::PodVolume& v : volumes->volumes) {
    if (v.claim == nullptr) {
      return absl::StrFormat(
          "VolumeBinding (persistentvolumeclaim \"%s\" not found)",
          v.claim_name);
    }
    if (v.volume != nullptr) {
      if (!v.topology.empty()) {
        return absl::StrFormat("VolumeZone (volume %s is zonal)",
                               v.volume->metadata().name());
      }
      if (v.volume->spec().node_affinity().has_required()) {
        return absl::StrFormat("VolumeBinding (node affinity of volume %s)",
                               v.volume->metadata().name());
      }
    } else if (!v.wait_for_first_consumer) {
      return "VolumeBinding (unbound immediate PersistentVolumeClaims)";
    } else if (v.storage_class != nullptr &&
               !v.storage_class->allowed_topologies().empty()) {
      return absl::StrFormat(
          "VolumeBinding (allowedTopologies of StorageClass %s)",
          v.storage_class->metadata().name());
    }
  }
  return std::nullopt;
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
  const scheduling::PodConstraints* c = b_.Constraints(p);
  if (c != nullptr && !c->anti_affinity.empty()) placed_holder_ = true;
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

// Adds pod `p` to `claim` if its template and one instance type admit it
// with the pods already there; else returns why not.
std::optional<std::string> SimulationPass::TryAdd(Claim& claim,
                                                  PodIndex p) const {
  const Profile& prof = b_.profiles[b_.pod_profile[p]];
  const PoolInfo& info = *claim.info;
  const std::string& pool = info.pool->metadata().name();
  const auto& tmpl = info.pool->spec().template_().spec();
  if (const v1::Taint* t = FirstUntolerated(*prof.pod, tmpl.taints())) {
    return absl::StrFormat("does not tolerate taint %s=%s:%s of NodePool %s",
                           t->key(), t->value(), t->effect(), pool);
  }
  const std::vector<scheduling::HostPort>* ports = b_.Ports(p);
  if (ports != nullptr && scheduling::NodePortsFilter(*ports, claim.ports)) {
    return absl::StrFormat(
        "its host ports are taken by another pod of the one new NodeClaim of "
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
  bool any_compatible = false;
  for (const Term& term : prof.terms) {
    std::string term_why;
    if (!claim.reqs.Compatible(term.requirements, allow, &term_why)) {
      if (why.empty()) why = term_why;
      continue;
    }
    any_compatible = true;
    Requirements reqs = claim.reqs;
    for (const auto& [key, r] : term.requirements.map()) reqs.Add(r);
    std::vector<size_t> types;
    for (size_t t : claim.types) {
      const TypeInfo& type = info.types[t];
      bool fits = term.requirements.empty() || TypeAdmits(type, reqs);
      for (size_t i = 0; fits && i < b_.d; ++i) {
        if (total[i] > 0 && total[i] > type.capacity[i]) fits = false;
      }
      if (fits) types.push_back(t);
    }
    if (types.empty()) continue;
    claim.reqs = std::move(reqs);
    claim.types = std::move(types);
    claim.total = std::move(total);
    claim.added.insert(claim.added.end(), term.protos.begin(),
                       term.protos.end());
    if (ports != nullptr) claim.ports.Add(*ports);
    ++claim.pods;
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
  if (claim.pods == 0) {
    return absl::StrCat("no instance type of NodePool ", pool,
                        " fits it with the DaemonSet overhead");
  }
  return absl::StrFormat(
      "no instance type of NodePool %s fits it together with the %d other "
      "pods of the one new NodeClaim",
      pool, claim.pods);
}

Replacement SimulationPass::Finish(const Claim& claim) const {
  const PoolInfo& info = *claim.info;
  const v1::NodePool& pool = *info.pool;
  const std::string& name = pool.metadata().name();
  std::vector<std::pair<double, const std::string*>> priced;
  for (size_t t : claim.types) {
    const InstanceType& type = *info.types[t].type;
    priced.emplace_back(CheapestOffering(type, claim.reqs).value_or(0),
                        &type.name);
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
  const uint64_t hash = Fnv1a(absl::StrJoin(names, "\n"));
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
  std::set<std::string> seen;
  const auto add_requirement = [&](const v1::NodeSelectorRequirement& req) {
    if (NormalizeLabelKey(req.key()) == well_known::kLabelInstanceTypeStable) {
      return;
    }
    if (seen.insert(DeterministicBytes(req)).second) {
      *spec.add_requirements() = req;
    }
  };
  for (const auto& req : tmpl.spec().requirements()) add_requirement(req);
  for (const auto& req : claim.added) add_requirement(req);
  v1::NodeSelectorRequirement& types = *spec.add_requirements();
  types.set_key(std::string(well_known::kLabelInstanceTypeStable));
  types.set_operator_("In");
  for (const std::string& t : r.instance_types) types.add_values(t);
  for (size_t i = 0; i < b_.d; ++i) {
    if (claim.total[i] <= 0) continue;
    (*spec.mutable_resources()->mutable_requests())[b_.dims[i]] =
        FormatMilli(claim.total[i]);
  }
  return r;
}

SimulationResult SimulationPass::Run() {
  SimulationResult result;
  const size_t pod_count = b_.snap->pod_count();
  const size_t node_count = b_.snap->nodes().size();
  candidate_bits_.assign(node_count / 64 + 1, 0);
  row_of_.assign(node_count, -1);
  std::vector<std::string> pool_names;
  absl::flat_hash_set<PodIndex> seen;
  std::vector<Moving> moving;
  for (const Candidate& c : candidates_) {
    if (c.node < node_count) {
      candidate_bits_[c.node / 64] |= uint64_t{1} << (c.node % 64);
    }
    auto pool =
        std::find(pool_names.begin(), pool_names.end(), c.node_pool_name);
    if (pool == pool_names.end()) {
      pool = pool_names.insert(pool_names.end(), c.node_pool_name);
    }
    const int slot = static_cast<int>(pool - pool_names.begin());
    for (PodIndex p : c.reschedulable_pods) {
      if (p >= pod_count) {
        result.unschedulable.push_back(
            absl::StrCat("pod #", p, ": not in the snapshot"));
        continue;
      }
      if (!s_.Movable(p) || !seen.insert(p).second) continue;
      moving.push_back({p, slot});
    }
  }
  for (const auto& [p, n] : s_.deleting_pods) {
    if (IsCandidate(n) || !seen.insert(p).second) continue;
    moving.push_back({p, -1});
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
    for (PodIndex p : b_.pending_pods) pending.push_back({p, -1});
    SortFfd(pending);
    for (const Moving& m : pending) PlaceOnExisting(m.pod);
  }
  SortFfd(moving);
  std::vector<std::vector<PodIndex>> groups(pool_names.size());
  for (const Moving& m : moving) {
    if (PlaceOnExisting(m.pod)) continue;
    if (const scheduling::PodConstraints* c = b_.Constraints(m.pod)) {
      // A new NodeClaim would have to be narrowed to a domain that keeps
      // the constraint, which is provisioning's job (not simulated yet):
      // fail closed rather than guess.
      Fail(m.pod,
           absl::StrCat("fits no remaining node (", NoNodeAvailable(m.pod),
                        ") and a new NodeClaim for it would need narrowing "
                        "for ",
                        !c->spread.empty()
                            ? "PodTopologySpread (topology spread constraints)"
                        : !c->affinity.empty()
                            ? "InterPodAffinity (pod affinity)"
                            : "InterPodAffinity (pod anti-affinity)",
                        ", which is not simulated"));
      continue;
    }
    if (const std::optional<std::string> plugin = NeedsVolumeNarrowing(m.pod)) {
      Fail(m.pod,
           absl::StrCat("fits no remaining node (", NoNodeAvailable(m.pod),
                        ") and a new NodeClaim for it would need narrowing "
                        "for ",
                        *plugin, ", which is not simulated"));
      continue;
    }
    if (std::optional<std::string> key = ExistingAntiAffinityKey(m.pod)) {
      // A new node escapes other pods' hostname anti-affinity, not theirs
      // on a zone: it would have to be narrowed away from those domains.
      Fail(m.pod,
           absl::StrCat("fits no remaining node (", NoNodeAvailable(m.pod),
                        ") and a new NodeClaim for it would need narrowing "
                        "for InterPodAffinity (existing pods' anti-affinity "
                        "on ",
                        *key, "), which is not simulated"));
      continue;
    }
    int slot = m.pool;
    std::string why = "there is no candidate NodePool";
    for (size_t i = 0; slot < 0 && i < pool_names.size(); ++i) {
      const PoolInfo* info = s_.Pool(pool_names[i]);
      if (info == nullptr) continue;
      Claim probe{info, info->base, info->admitted, info->overhead, {}, 0, {}};
      std::optional<std::string> probe_why = TryAdd(probe, m.pod);
      if (!probe_why) {
        slot = static_cast<int>(i);
      } else if (i == 0) {
        why = *std::move(probe_why);
      }
    }
    if (slot < 0) {
      Fail(m.pod, absl::StrCat("fits no remaining node (",
                               NoNodeAvailable(m.pod), ") and ", why));
      continue;
    }
    groups[slot].push_back(m.pod);
  }
  std::vector<size_t> pool_order(pool_names.size());
  for (size_t i = 0; i < pool_order.size(); ++i) pool_order[i] = i;
  std::sort(pool_order.begin(), pool_order.end(),
            [&](size_t a, size_t b) { return pool_names[a] < pool_names[b]; });
  for (size_t slot : pool_order) {
    if (groups[slot].empty()) continue;
    const PoolInfo* info = s_.Pool(pool_names[slot]);
    if (info == nullptr) {
      for (PodIndex p : groups[slot]) {
        Fail(p, absl::StrCat("fits no remaining node (", NoNodeAvailable(p),
                             ") and NodePool ", pool_names[slot],
                             " is not in the snapshot"));
      }
      continue;
    }
    Claim claim{info, info->base, info->admitted, info->overhead, {}, 0, {}};
    for (PodIndex p : groups[slot]) {
      if (std::optional<std::string> why = TryAdd(claim, p)) {
        Fail(p, absl::StrCat("fits no remaining node (", NoNodeAvailable(p),
                             ") and ", *why));
      }
    }
    if (claim.pods > 0) result.new_node_claims.push_back(Finish(claim));
  }
  std::sort(failed_.begin(), failed_.end());
  for (const auto& [p, why] : failed_) {
    result.unschedulable.push_back(absl::StrCat(b_.snap->PodKey(p), ": ", why));
  }
  result.all_pods_scheduled = result.unschedulable.empty();
  return result;
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

SimulationResult Scheduler::Simulate(
    absl::Span<const Candidate> candidates) const {
  SimulationPass pass(*state_, candidates);
  return pass.Run();
}

}  // namespace karpenter::disruption
