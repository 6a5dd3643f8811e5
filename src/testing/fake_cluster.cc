// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/testing/fake_cluster.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "host/cluster_view_checks.h"
#include "karpenter/budget/pdb.h"
#include "karpenter/disruption/scheduler.h"
#include "karpenter/intstr.h"
#include "karpenter/quantity.h"
#include "karpenter/selector.h"
#include "testing/mutex_lock.h"

namespace karpenter::testing {
namespace internal {

using PodId = uint64_t;

constexpr absl::string_view kPdbMessage =
    "Cannot evict pod as it would violate the pod's disruption budget.";
constexpr int64_t kDefaultGraceSeconds = 30;  // The API server's default.
constexpr size_t kMethodCount = 13;
constexpr size_t kResultCount = 6;

struct PdbRecord {
  v1::PodDisruptionBudget object;
  std::string key;  // "namespace/name"
  LabelSelector selector;
  std::optional<IntOrPercent> min_available;
  std::optional<IntOrPercent> max_unavailable;
  bool always_allow = false;
  std::set<PodId> pods;  // The live pods it selects.
};

struct PodRecord {
  v1::Pod pod;
  std::string key;             // "namespace/name"
  std::vector<uint32_t> pdbs;  // Selecting PDBs, ascending.
  std::string controller;      // Controller key; empty without controller.
  bool replaceable = false;    // Controller-owned, not DaemonSet or Node.
  std::string name_base;       // Prefix of its replacements' names.
  // A replacement left unscheduled: the node of the pod it replaces, which
  // the scheduler must not send it back to.
  std::string avoid_node;
};

struct ControllerRecord {
  int64_t pending = 0;  // Replacements scheduled, not created yet.
  std::set<PodId> pods;
};

struct VolumeRecord {
  v1::VolumeAttachment object;
  // Since when no non-terminal pod on its node uses its PV; nullopt while
  // one does.
  std::optional<absl::Time> unused_since;
};

enum class EventKind { kCreateReplacement, kBecomeReady, kRemove, kDetach };

struct Event {
  EventKind kind = EventKind::kRemove;
  PodId pod = 0;     // kBecomeReady, kRemove.
  v1::Pod replaced;  // kCreateReplacement: the pod being replaced.
  std::string controller;
  std::string name_base;
  std::string volume;  // kDetach: the VolumeAttachment.
};

struct Fault {
  absl::Status status;
  FaultTiming timing = FaultTiming::kInsteadOfCall;
};

struct EvictionFault {
  EvictionResponse response;
  FaultTiming timing = FaultTiming::kInsteadOfCall;
};

namespace {

Event PodEvent(EventKind kind, PodId id) {
  Event e;
  e.kind = kind;
  e.pod = id;
  return e;
}

google::protobuf::Timestamp ToProto(absl::Time t) {
  google::protobuf::Timestamp ts;
  const absl::Duration since = t - absl::UnixEpoch();
  const int64_t seconds =
      absl::ToInt64Seconds(absl::Floor(since, absl::Seconds(1)));
  ts.set_seconds(seconds);
  ts.set_nanos(static_cast<int32_t>(
      absl::ToInt64Nanoseconds(since - absl::Seconds(seconds))));
  return ts;
}

absl::Time FromProto(const google::protobuf::Timestamp& ts) {
  return absl::FromUnixSeconds(ts.seconds()) + absl::Nanoseconds(ts.nanos());
}

std::string LogTime(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E*SZ", t, absl::UTCTimeZone());
}

std::string Key(absl::string_view ns, absl::string_view name) {
  return absl::StrCat(ns, "/", name);
}

bool IsTerminal(const v1::Pod& pod) {
  return pod.status().phase() == "Succeeded" ||
         pod.status().phase() == "Failed";
}

bool IsTerminating(const v1::Pod& pod) {
  return pod.metadata().has_deletion_timestamp();
}

// Active as a ReplicaSet counts pods: neither terminal nor terminating.
bool IsActive(const v1::Pod& pod) {
  return !IsTerminal(pod) && !IsTerminating(pod);
}

// podutil.IsPodReady: condition Ready with status True.
bool IsReady(const v1::Pod& pod) {
  for (const v1::Condition& c : pod.status().conditions()) {
    if (c.type() == "Ready") return c.status() == "True";
  }
  return false;
}

// eviction.go `canIgnorePDB`.
bool CanIgnorePdb(const v1::Pod& pod) {
  return IsTerminal(pod) || pod.status().phase() == "Pending" ||
         IsTerminating(pod);
}

// Sets (or replaces) the condition of `type` on `pod`.
void SetPodCondition(v1::Pod& pod, absl::string_view type,
                     absl::string_view status, absl::string_view reason,
                     absl::Time at) {
  v1::Condition* target = nullptr;
  for (v1::Condition& c : *pod.mutable_status()->mutable_conditions()) {
    if (c.type() == type) target = &c;
  }
  if (target == nullptr) target = pod.mutable_status()->add_conditions();
  if (target->status() != status) {
    *target->mutable_last_transition_time() = ToProto(at);
  }
  target->set_type(std::string(type));
  target->set_status(std::string(status));
  target->set_reason(std::string(reason));
}

const v1::OwnerReference* ControllerRef(const v1::Pod& pod) {
  for (const v1::OwnerReference& ref : pod.metadata().owner_references()) {
    if (ref.has_controller() && ref.controller()) return &ref;
  }
  return nullptr;
}

bool IsSet(bool has, const google::protobuf::Value& v) {
  return has && v.kind_case() != google::protobuf::Value::KIND_NOT_SET &&
         v.kind_case() != google::protobuf::Value::kNullValue;
}

bool HasDisruptedTaint(const v1::Node& node) {
  for (const v1::Taint& t : node.spec().taints()) {
    if (t.key() == "karpenter.sh/disrupted" && t.effect() == "NoSchedule") {
      return true;
    }
  }
  return false;
}

std::string NotFoundMessage(ObjectKind kind, absl::string_view name) {
  return absl::StrCat(
      kind == ObjectKind::kNode ? "nodes" : "nodeclaims.karpenter.sh", " \"",
      name, "\" not found");
}

std::string StatusText(const absl::Status& s) {
  if (s.ok()) return "OK";
  return absl::StrCat(absl::StatusCodeToString(s.code()), ": ", s.message());
}

// Validates a PDB as the API server would (via budget::PdbIndex) and parses
// what the live computation needs.
absl::StatusOr<PdbRecord> ParsePdb(const v1::PodDisruptionBudget& pdb) {
  PdbRecord r;
  r.object = pdb;
  r.key = Key(pdb.metadata().namespace_(), pdb.metadata().name());
  const v1::PodDisruptionBudgetSpec& spec = pdb.spec();
  KARPENTER_ASSIGN_OR_RETURN(
      r.selector,
      LabelSelector::FromProto(spec.has_selector() ? &spec.selector() : nullptr,
                               "spec.selector"));
  if (IsSet(spec.has_min_available(), spec.min_available())) {
    KARPENTER_ASSIGN_OR_RETURN(
        r.min_available, IntOrPercent::FromProtoValue(spec.min_available(),
                                                      "spec.minAvailable"));
  }
  if (IsSet(spec.has_max_unavailable(), spec.max_unavailable())) {
    KARPENTER_ASSIGN_OR_RETURN(
        r.max_unavailable, IntOrPercent::FromProtoValue(spec.max_unavailable(),
                                                        "spec.maxUnavailable"));
  }
  r.always_allow = spec.unhealthy_pod_eviction_policy() == "AlwaysAllow";
  return r;
}

}  // namespace

// All of the fake's data; FakeCluster holds it under its mutex.
class FakeClusterState {
 public:
  explicit FakeClusterState(FakeClusterOptions options) : options_(options) {}

  absl::Status Load(snapshot::ObjectSet objects, absl::Time now);
  void Advance(absl::Time now);
  std::optional<absl::Time> NextEventTime() const;
  snapshot::ObjectSet Export(bool with_pods = true) const;
  PdbCounts Counts(const PdbRecord& pdb) const;
  std::optional<PdbCounts> CountsOf(absl::string_view key) const;

  EvictionResponse Evict(const PodRef& ref, absl::Time now,
                         std::string& detail);
  absl::Status DeletePod(const PodRef& ref, int64_t grace_seconds,
                         absl::Time now);
  absl::Status AddPod(v1::Pod pod, absl::Time now);
  absl::Status AddVolumeAttachment(v1::VolumeAttachment va, absl::Time now);

  absl::Status AddFinalizer(ObjectKind kind, absl::string_view name,
                            absl::string_view finalizer);
  absl::Status RemoveFinalizer(ObjectKind kind, absl::string_view name,
                               absl::string_view finalizer, absl::Time now);
  absl::Status TaintNode(absl::string_view node, const v1::Taint& taint);
  absl::Status SetMetadataEntry(ObjectKind kind, absl::string_view name,
                                bool label, absl::string_view key,
                                absl::string_view value);
  absl::Status SetNodeClaimCondition(absl::string_view node_claim,
                                     const v1::Condition& condition,
                                     absl::Time now);
  absl::Status Delete(ObjectKind kind, absl::string_view name, absl::Time now);
  absl::Status CreateNodeClaim(v1::NodeClaim node_claim, absl::Time now);
  absl::Status SetNodeReady(absl::string_view node, bool ready, absl::Time now);
  absl::Status RemoveTaint(absl::string_view node, absl::string_view key,
                           absl::string_view effect);
  absl::Status RemoveNodeClaimCondition(absl::string_view node_claim,
                                        absl::string_view type);
  absl::Status AddNode(v1::Node node, absl::Time now);
  absl::Status SetNodeClaimStatus(absl::string_view node_claim,
                                  v1::NodeClaimStatus status);
  absl::Status ApplyNodePool(v1::NodePool node_pool);

  void Log(absl::Time at, absl::string_view line);

  std::array<std::deque<Fault>, kMethodCount> faults;
  std::deque<EvictionFault> eviction_faults;
  int64_t evict_calls = 0;
  std::array<int64_t, kResultCount> evict_results{};
  std::vector<std::string> log;
  std::vector<PdbViolation> violations;

 private:
  PodId InsertPod(v1::Pod pod, std::string name_base);
  void RemovePod(PodId id, absl::Time at);
  void DeletePodRecord(PodId id, int64_t grace_seconds, absl::Time now);
  void EvictPod(PodId id, absl::Time now);
  bool PdbAllows(const PdbRecord& pdb, const v1::Pod& pod,
                 std::string& detail) const;
  void ScheduleReplacement(const PodRecord& r, absl::Time now);
  void CreateReplacement(absl::Time at, const Event& e);
  void BecomeReady(absl::Time at, PodId id);
  void ApplyEvent(absl::Time at, const Event& e);
  void PushEvent(absl::Time at, Event e);
  int64_t ControllerScale(const std::string& key) const;
  int64_t ExpectedFromControllers(const PdbRecord& pdb) const;
  // Requests (milli-units) of the non-terminal pods bound to each Node.
  using Usage =
      std::map<std::string, std::map<std::string, int64_t>, std::less<>>;
  std::optional<std::string> ChooseNode(absl::string_view source,
                                        const v1::Pod& pod,
                                        const Usage* usage = nullptr) const;
  // respect_capacity: whether `node` has room for `pod` next to the
  // non-terminal pods bound to it.
  Usage NodeUsage() const;
  bool HasRoom(const v1::Node& node, const v1::Pod& pod,
               const Usage* usage = nullptr) const;
  // respect_capacity: binds the unscheduled replacement pods that now fit,
  // oldest first.
  void ScheduleUnscheduled(absl::Time now);
  std::string FreshPodName(absl::string_view ns, absl::string_view base);
  v1::ObjectMeta* Meta(ObjectKind kind, absl::string_view name);
  void RemoveObject(ObjectKind kind, absl::string_view name, absl::Time now);
  void RemoveNode(absl::string_view name, absl::Time now);
  bool VolumeInUse(const v1::VolumeAttachment& va) const;
  void RefreshVolume(VolumeRecord& v, absl::Time at);
  void RefreshVolumesOn(absl::string_view node, absl::Time at);
  void Detach(absl::Time at, const std::string& name);

  const FakeClusterOptions options_;
  std::map<std::string, v1::Node, std::less<>> nodes_;
  std::map<std::string, v1::NodeClaim, std::less<>> node_claims_;
  std::vector<v1::NodePool> node_pools_;
  std::vector<PdbRecord> pdbs_;
  absl::flat_hash_map<std::string, std::vector<uint32_t>> pdbs_by_namespace_;
  std::map<PodId, PodRecord> pods_;
  absl::flat_hash_map<std::string, PodId> pod_by_key_;
  std::map<std::string, ControllerRecord> controllers_;
  std::map<std::string, VolumeRecord, std::less<>> volumes_;
  std::vector<v1::PersistentVolumeClaim> claims_;
  // "namespace/name" of a claim -> its spec.volumeName.
  absl::flat_hash_map<std::string, std::string> pv_of_claim_;
  // By (instant, sequence): time order, then scheduling order.
  std::map<std::pair<absl::Time, uint64_t>, Event> events_;
  uint64_t next_event_ = 0;
  PodId next_pod_ = 0;
  uint64_t next_uid_ = 0;
  uint64_t next_replacement_ = 0;
};

// --- Loading and pods. -----------------------------------------------------

absl::Status FakeClusterState::Load(snapshot::ObjectSet objects,
                                    absl::Time now) {
  for (v1::PodDisruptionBudget& pdb : objects.pdbs) {
    KARPENTER_ASSIGN_OR_RETURN(PdbRecord r, ParsePdb(pdb));
    pdbs_by_namespace_[pdb.metadata().namespace_()].push_back(
        static_cast<uint32_t>(pdbs_.size()));
    pdbs_.push_back(std::move(r));
  }
  for (v1::Node& n : objects.nodes) {
    std::string name = n.metadata().name();
    nodes_.emplace(std::move(name), std::move(n));
  }
  for (v1::NodeClaim& c : objects.node_claims) {
    std::string name = c.metadata().name();
    node_claims_.emplace(std::move(name), std::move(c));
  }
  node_pools_ = std::move(objects.node_pools);
  for (v1::Pod& pod : objects.pods) {
    const bool terminating = IsTerminating(pod);
    const absl::Time at = terminating
                              ? FromProto(pod.metadata().deletion_timestamp())
                              : absl::InfinitePast();
    const PodId id = InsertPod(std::move(pod), "");
    if (terminating && options_.remove_terminated_pods) {
      PushEvent(at, PodEvent(EventKind::kRemove, id));
    }
  }
  claims_ = std::move(objects.persistent_volume_claims);
  for (v1::PersistentVolumeClaim& c : claims_) {
    if (c.metadata().namespace_().empty()) {
      c.mutable_metadata()->set_namespace_("default");
    }
    pv_of_claim_[Key(c.metadata().namespace_(), c.metadata().name())] =
        c.spec().volume_name();
  }
  for (v1::VolumeAttachment& va : objects.volume_attachments) {
    std::string name = va.metadata().name();
    VolumeRecord& v = volumes_[std::move(name)];
    v.object = std::move(va);
    RefreshVolume(v, now);
  }
  return absl::OkStatus();
}

PodId FakeClusterState::InsertPod(v1::Pod pod, std::string name_base) {
  v1::ObjectMeta& meta = *pod.mutable_metadata();
  if (meta.namespace_().empty()) meta.set_namespace_("default");
  if (meta.uid().empty()) meta.set_uid(absl::StrCat("fake-uid-", ++next_uid_));
  const PodId id = next_pod_++;
  PodRecord r;
  r.key = Key(meta.namespace_(), meta.name());
  r.name_base = !name_base.empty() ? std::move(name_base)
                : !meta.generate_name().empty()
                    ? meta.generate_name()
                    : absl::StrCat(meta.name(), "-");
  if (const v1::OwnerReference* ref = ControllerRef(pod); ref != nullptr) {
    r.controller = absl::StrCat(ref->kind(), "/", meta.namespace_(), "/",
                                ref->name(), "/", ref->uid());
    r.replaceable = ref->kind() != "DaemonSet" && ref->kind() != "Node";
    controllers_[r.controller].pods.insert(id);
  }
  auto bucket = pdbs_by_namespace_.find(meta.namespace_());
  if (bucket != pdbs_by_namespace_.end()) {
    for (uint32_t p : bucket->second) {
      if (!pdbs_[p].selector.Matches(meta.labels())) continue;
      r.pdbs.push_back(p);
      pdbs_[p].pods.insert(id);
    }
  }
  r.pod = std::move(pod);
  pod_by_key_[r.key] = id;
  pods_.emplace(id, std::move(r));
  return id;
}

void FakeClusterState::RemovePod(PodId id, absl::Time at) {
  auto it = pods_.find(id);
  const PodRecord& r = it->second;
  for (uint32_t p : r.pdbs) pdbs_[p].pods.erase(id);
  if (!r.controller.empty()) {
    auto c = controllers_.find(r.controller);
    c->second.pods.erase(id);
    if (c->second.pods.empty() && c->second.pending == 0) controllers_.erase(c);
  }
  Log(at, absl::StrCat("removed ", r.key));
  const std::string node = r.pod.spec().node_name();
  pod_by_key_.erase(r.key);
  pods_.erase(it);
  RefreshVolumesOn(node, at);
}

absl::Status FakeClusterState::AddPod(v1::Pod pod, absl::Time now) {
  if (pod.metadata().name().empty()) {
    return absl::InvalidArgumentError("metadata.name: must not be empty");
  }
  if (pod.metadata().namespace_().empty()) {
    pod.mutable_metadata()->set_namespace_("default");
  }
  const std::string key =
      Key(pod.metadata().namespace_(), pod.metadata().name());
  if (pod_by_key_.contains(key)) {
    return absl::AlreadyExistsError(
        absl::StrCat("pods \"", pod.metadata().name(), "\" already exists"));
  }
  const bool terminating = IsTerminating(pod);
  const absl::Time at =
      terminating ? FromProto(pod.metadata().deletion_timestamp()) : now;
  const std::string node = pod.spec().node_name();
  const PodId id = InsertPod(std::move(pod), "");
  if (terminating && options_.remove_terminated_pods) {
    PushEvent(std::max(at, now), PodEvent(EventKind::kRemove, id));
  }
  RefreshVolumesOn(node, now);
  return absl::OkStatus();
}

// --- Graceful deletion and replacement. -----------------------------------

// pkg/registry/core/pod/strategy.go CheckGracefulDelete, then the ReplicaSet
// reaction to a pod that stopped being active.
void FakeClusterState::DeletePodRecord(PodId id, int64_t grace_seconds,
                                       absl::Time now) {
  PodRecord& r = pods_.at(id);
  v1::Pod& pod = r.pod;
  if (pod.spec().node_name().empty() || IsTerminal(pod)) grace_seconds = 0;
  const absl::Time at = now + absl::Seconds(grace_seconds);
  if (IsTerminating(pod) &&
      FromProto(pod.metadata().deletion_timestamp()) <= at) {
    return;  // A deletion only ever moves earlier.
  }
  if (IsActive(pod) && r.replaceable) ScheduleReplacement(r, now);
  if (grace_seconds == 0) {
    RemovePod(id, now);
    return;
  }
  *pod.mutable_metadata()->mutable_deletion_timestamp() = ToProto(at);
  pod.mutable_metadata()->set_deletion_grace_period_seconds(grace_seconds);
  if (options_.remove_terminated_pods) {
    PushEvent(at, PodEvent(EventKind::kRemove, id));
  }
}

void FakeClusterState::ScheduleReplacement(const PodRecord& r, absl::Time now) {
  ++controllers_[r.controller].pending;
  Event e;
  e.kind = EventKind::kCreateReplacement;
  e.replaced = r.pod;
  e.controller = r.controller;
  e.name_base = r.name_base;
  PushEvent(now + options_.recreate_delay, std::move(e));
}

void FakeClusterState::CreateReplacement(absl::Time at, const Event& e) {
  --controllers_[e.controller].pending;
  const std::string& ns = e.replaced.metadata().namespace_();
  v1::Pod pod = e.replaced;
  v1::ObjectMeta& meta = *pod.mutable_metadata();
  meta.set_name(FreshPodName(ns, e.name_base));
  meta.set_uid(absl::StrCat("fake-uid-", ++next_uid_));
  meta.clear_deletion_timestamp();
  meta.clear_deletion_grace_period_seconds();
  *meta.mutable_creation_timestamp() = ToProto(at);
  pod.clear_status();
  pod.mutable_status()->set_phase("Pending");
  const std::optional<std::string> node =
      ChooseNode(e.replaced.spec().node_name(), pod);
  pod.mutable_spec()->set_node_name(node.value_or(""));
  SetPodCondition(pod, "PodScheduled", node ? "True" : "False",
                  node ? "" : "Unschedulable", at);
  if (node) {
    SetPodCondition(pod, "Ready", "False", "ContainersNotReady", at);
    *pod.mutable_status()->mutable_start_time() = ToProto(at);
  }
  const std::string new_key = Key(ns, meta.name());
  const PodId id = InsertPod(std::move(pod), e.name_base);
  if (!node) pods_.at(id).avoid_node = e.replaced.spec().node_name();
  if (node) RefreshVolumesOn(*node, at);
  Log(at,
      absl::StrCat("recreate ", Key(ns, e.replaced.metadata().name()), " -> ",
                   new_key, " on ", node ? *node : "<unscheduled>"));
  if (node) {
    PushEvent(at + options_.ready_delay, PodEvent(EventKind::kBecomeReady, id));
  }
}

void FakeClusterState::BecomeReady(absl::Time at, PodId id) {
  auto it = pods_.find(id);
  if (it == pods_.end() || !IsActive(it->second.pod)) return;
  v1::Pod& pod = it->second.pod;
  pod.mutable_status()->set_phase("Running");
  SetPodCondition(pod, "Ready", "True", "", at);
  Log(at, absl::StrCat("ready ", it->second.key));
}

std::string FakeClusterState::FreshPodName(absl::string_view ns,
                                           absl::string_view base) {
  std::string name;
  do {
    name = absl::StrCat(base, "r", ++next_replacement_);
  } while (pod_by_key_.contains(Key(ns, name)));
  return name;
}

std::optional<std::string> FakeClusterState::ChooseNode(
    absl::string_view source, const v1::Pod& pod, const Usage* usage) const {
  for (const auto& [name, node] : nodes_) {
    if (name == source || node.metadata().has_deletion_timestamp() ||
        node.spec().unschedulable() || HasDisruptedTaint(node)) {
      continue;
    }
    if (options_.respect_capacity && !HasRoom(node, pod, usage)) continue;
    return name;
  }
  return std::nullopt;
}

namespace {

// Requests of `pod` in milli-units by resource, "pods" = 1000; unparsable
// quantities count as 0 (the fake is not a validator).
std::map<std::string, int64_t> RequestsOf(const v1::Pod& pod) {
  std::map<std::string, int64_t> out;
  absl::StatusOr<std::vector<std::pair<std::string, int64_t>>> r =
      disruption::PodRequests(pod);
  if (r.ok()) out.insert(r->begin(), r->end());
  out["pods"] = 1000;
  return out;
}

}  // namespace

FakeClusterState::Usage FakeClusterState::NodeUsage() const {
  Usage usage;
  for (const auto& [id, r] : pods_) {
    if (r.pod.spec().node_name().empty() || IsTerminal(r.pod)) continue;
    std::map<std::string, int64_t>& used = usage[r.pod.spec().node_name()];
    for (const auto& [resource, milli] : RequestsOf(r.pod)) {
      used[resource] += milli;
    }
  }
  return usage;
}

bool FakeClusterState::HasRoom(const v1::Node& node, const v1::Pod& pod,
                               const Usage* usage) const {
  std::map<std::string, int64_t> used = RequestsOf(pod);
  const std::string& name = node.metadata().name();
  if (usage != nullptr) {
    if (auto it = usage->find(name); it != usage->end()) {
      for (const auto& [resource, milli] : it->second) used[resource] += milli;
    }
  } else {
    for (const auto& [id, r] : pods_) {
      if (r.pod.spec().node_name() != name || IsTerminal(r.pod)) continue;
      for (const auto& [resource, milli] : RequestsOf(r.pod)) {
        used[resource] += milli;
      }
    }
  }
  for (const auto& [resource, milli] : used) {
    if (milli == 0) continue;
    auto it = node.status().allocatable().find(resource);
    if (it == node.status().allocatable().end()) return false;
    absl::StatusOr<int64_t> have = ParseQuantityMilli(it->second);
    if (!have.ok() || *have < milli) return false;
  }
  return true;
}

void FakeClusterState::ScheduleUnscheduled(absl::Time now) {
  if (!options_.respect_capacity) return;
  // Computed once per call (and kept current below): every call retries the
  // pending pods, so a per-pod scan of every pod would be quadratic.
  std::optional<Usage> usage;
  for (auto& [id, r] : pods_) {
    v1::Pod& pod = r.pod;
    if (!pod.spec().node_name().empty() || !IsActive(pod) || !r.replaceable) {
      continue;
    }
    if (!usage.has_value()) usage = NodeUsage();
    const std::optional<std::string> node =
        ChooseNode(r.avoid_node, pod, &*usage);
    if (!node) continue;
    for (const auto& [resource, milli] : RequestsOf(pod)) {
      (*usage)[*node][resource] += milli;
    }
    pod.mutable_spec()->set_node_name(*node);
    SetPodCondition(pod, "PodScheduled", "True", "", now);
    SetPodCondition(pod, "Ready", "False", "ContainersNotReady", now);
    *pod.mutable_status()->mutable_start_time() = ToProto(now);
    RefreshVolumesOn(*node, now);
    Log(now, absl::StrCat("schedule ", r.key, " on ", *node));
    PushEvent(now + options_.ready_delay,
              PodEvent(EventKind::kBecomeReady, id));
  }
}

// --- Time. -------------------------------------------------------------------

void FakeClusterState::PushEvent(absl::Time at, Event e) {
  events_.emplace(std::make_pair(at, next_event_++), std::move(e));
}

void FakeClusterState::Advance(absl::Time now) {
  while (!events_.empty() && events_.begin()->first.first <= now) {
    auto node = events_.extract(events_.begin());
    ApplyEvent(node.key().first, node.mapped());
  }
  ScheduleUnscheduled(now);
}

void FakeClusterState::ApplyEvent(absl::Time at, const Event& e) {
  switch (e.kind) {
    case EventKind::kCreateReplacement:
      CreateReplacement(at, e);
      return;
    case EventKind::kBecomeReady:
      BecomeReady(at, e.pod);
      return;
    case EventKind::kDetach:
      Detach(at, e.volume);
      return;
    case EventKind::kRemove: {
      // Stale if the pod is gone or its deletion moved (it has its own event).
      auto it = pods_.find(e.pod);
      if (it == pods_.end() || !IsTerminating(it->second.pod) ||
          FromProto(it->second.pod.metadata().deletion_timestamp()) > at) {
        return;
      }
      RemovePod(e.pod, at);
      return;
    }
  }
}

std::optional<absl::Time> FakeClusterState::NextEventTime() const {
  if (events_.empty()) return std::nullopt;
  return events_.begin()->first.first;
}

// --- Volumes (the attach/detach controller). --------------------------------

// Whether a non-terminal pod on the attachment's node mounts its PV through a
// claim (Karpenter's GetPersistentVolumeClaim naming, ephemeral included).
bool FakeClusterState::VolumeInUse(const v1::VolumeAttachment& va) const {
  const v1::VolumeAttachmentSource& source = va.spec().source();
  if (!source.has_persistent_volume_name()) return false;
  for (const auto& [id, r] : pods_) {
    const v1::Pod& pod = r.pod;
    if (pod.spec().node_name() != va.spec().node_name() || IsTerminal(pod)) {
      continue;
    }
    for (const v1::Volume& volume : pod.spec().volumes()) {
      std::string claim;
      if (volume.has_persistent_volume_claim()) {
        claim = volume.persistent_volume_claim().claim_name();
      } else if (volume.has_ephemeral()) {
        claim = absl::StrCat(pod.metadata().name(), "-", volume.name());
      } else {
        continue;
      }
      const auto pv =
          pv_of_claim_.find(Key(pod.metadata().namespace_(), claim));
      if (pv != pv_of_claim_.end() &&
          pv->second == source.persistent_volume_name()) {
        return true;
      }
    }
  }
  return false;
}

// Starts the detach clock of an attachment that lost its last user, or stops
// it for one that gained a user.
void FakeClusterState::RefreshVolume(VolumeRecord& v, absl::Time at) {
  if (VolumeInUse(v.object)) {
    v.unused_since.reset();
    return;
  }
  if (v.unused_since) return;
  v.unused_since = at;
  Event e;
  e.kind = EventKind::kDetach;
  e.volume = v.object.metadata().name();
  PushEvent(at + options_.volume_detach_delay, std::move(e));
}

void FakeClusterState::RefreshVolumesOn(absl::string_view node, absl::Time at) {
  if (node.empty()) return;
  for (auto& [name, v] : volumes_) {
    if (v.object.spec().node_name() == node) RefreshVolume(v, at);
  }
}

void FakeClusterState::Detach(absl::Time at, const std::string& name) {
  auto it = volumes_.find(name);
  // Stale if gone, in use again, or unused since later (its own event).
  if (it == volumes_.end() || !it->second.unused_since ||
      *it->second.unused_since + options_.volume_detach_delay > at) {
    return;
  }
  Log(at, absl::StrCat("detach ", name, " from ",
                       it->second.object.spec().node_name()));
  volumes_.erase(it);
}

absl::Status FakeClusterState::AddVolumeAttachment(v1::VolumeAttachment va,
                                                   absl::Time now) {
  const std::string name = va.metadata().name();
  if (name.empty()) {
    return absl::InvalidArgumentError("metadata.name: must not be empty");
  }
  if (volumes_.contains(name)) {
    return absl::AlreadyExistsError(absl::StrCat(
        "volumeattachments.storage.k8s.io \"", name, "\" already exists"));
  }
  VolumeRecord& v = volumes_[name];
  v.object = std::move(va);
  RefreshVolume(v, now);
  return absl::OkStatus();
}

// --- PDB arithmetic (disruption.go). ---------------------------------------

int64_t FakeClusterState::ControllerScale(const std::string& key) const {
  auto it = controllers_.find(key);
  if (it == controllers_.end()) return 0;
  int64_t scale = it->second.pending;
  for (PodId id : it->second.pods) {
    if (IsActive(pods_.at(id).pod)) ++scale;
  }
  return scale;
}

// getExpectedScale: each distinct controller of the selected pods counts its
// scale once; a pod without a controller counts 1 (see the header).
int64_t FakeClusterState::ExpectedFromControllers(const PdbRecord& pdb) const {
  std::set<absl::string_view> seen;
  int64_t expected = 0;
  for (PodId id : pdb.pods) {
    const PodRecord& r = pods_.at(id);
    if (r.controller.empty()) {
      ++expected;
    } else if (seen.insert(r.controller).second) {
      expected += ControllerScale(r.controller);
    }
  }
  return expected;
}

PdbCounts FakeClusterState::Counts(const PdbRecord& pdb) const {
  PdbCounts c;
  for (PodId id : pdb.pods) {
    if (budget::PodIsHealthy(pods_.at(id).pod)) ++c.current_healthy;
  }
  if (pdb.max_unavailable) {
    c.expected_pods = ExpectedFromControllers(pdb);
    const int64_t max_unavailable =
        pdb.max_unavailable->Scale(c.expected_pods, true).value_or(0);
    c.desired_healthy = std::max<int64_t>(c.expected_pods - max_unavailable, 0);
  } else if (pdb.min_available && pdb.min_available->is_percent()) {
    c.expected_pods = ExpectedFromControllers(pdb);
    c.desired_healthy =
        pdb.min_available->Scale(c.expected_pods, true).value_or(0);
  } else if (pdb.min_available) {
    c.expected_pods = static_cast<int64_t>(pdb.pods.size());
    c.desired_healthy = pdb.min_available->value();
  }
  const int64_t allowed = c.current_healthy - c.desired_healthy;
  c.disruptions_allowed = (c.expected_pods <= 0 || allowed <= 0) ? 0 : allowed;
  return c;
}

std::optional<PdbCounts> FakeClusterState::CountsOf(
    absl::string_view key) const {
  for (const PdbRecord& pdb : pdbs_) {
    if (pdb.key == key) return Counts(pdb);
  }
  return std::nullopt;
}

// --- Eviction (eviction.go). ------------------------------------------------

bool FakeClusterState::PdbAllows(const PdbRecord& pdb, const v1::Pod& pod,
                                 std::string& detail) const {
  const PdbCounts c = Counts(pdb);
  detail = absl::StrCat("pdb ", pdb.key, ": healthy ", c.current_healthy,
                        ", desired ", c.desired_healthy, ", allowed ",
                        c.disruptions_allowed);
  if (!IsReady(pod)) {
    // An unready pod does not count as healthy, so deleting it costs the
    // budget nothing when the policy or the budget's state allows that.
    if (pdb.always_allow) return true;
    if (c.current_healthy >= c.desired_healthy && c.desired_healthy > 0) {
      return true;
    }
  }
  return c.disruptions_allowed > 0;
}

EvictionResponse FakeClusterState::Evict(const PodRef& ref, absl::Time now,
                                         std::string& detail) {
  auto found = pod_by_key_.find(Key(ref.namespace_name, ref.name));
  if (found == pod_by_key_.end()) {
    return {EvictionResult::kNotFound, 404,
            absl::StrCat("pods \"", ref.name, "\" not found")};
  }
  const PodRecord& r = pods_.at(found->second);
  if (!CanIgnorePdb(r.pod)) {
    if (r.pdbs.size() > 1) {
      return {EvictionResult::kMisconfigured, 500,
              std::string(kMultiplePdbMessage)};
    }
    if (r.pdbs.size() == 1 && !PdbAllows(pdbs_[r.pdbs[0]], r.pod, detail)) {
      return {EvictionResult::kBlockedByPdb, 429, std::string(kPdbMessage)};
    }
  }
  if (!ref.uid.empty() && ref.uid != r.pod.metadata().uid()) {
    return {EvictionResult::kConflict, 409,
            absl::StrCat("Operation cannot be fulfilled on Pod \"", ref.name,
                         "\": the UID in the precondition (", ref.uid,
                         ") does not match the UID in record (",
                         r.pod.metadata().uid(),
                         "). The object might have been deleted and then "
                         "recreated")};
  }
  EvictPod(found->second, now);
  return {EvictionResult::kEvicted, 200, ""};
}

void FakeClusterState::EvictPod(PodId id, absl::Time now) {
  PodRecord& r = pods_.at(id);
  const bool was_healthy = budget::PodIsHealthy(r.pod);
  const std::vector<uint32_t> pdbs = r.pdbs;
  const std::string key = r.key;
  SetPodCondition(r.pod, "DisruptionTarget", "True", "EvictionByEvictionAPI",
                  now);
  const int64_t grace = r.pod.spec().has_termination_grace_period_seconds()
                            ? r.pod.spec().termination_grace_period_seconds()
                            : kDefaultGraceSeconds;
  DeletePodRecord(id, grace, now);
  if (!was_healthy) return;
  for (uint32_t p : pdbs) {
    const PdbCounts c = Counts(pdbs_[p]);
    if (c.current_healthy < c.desired_healthy) {
      violations.push_back(
          {now, pdbs_[p].key, key, c.current_healthy, c.desired_healthy});
    }
  }
}

absl::Status FakeClusterState::DeletePod(const PodRef& ref,
                                         int64_t grace_seconds,
                                         absl::Time now) {
  auto found = pod_by_key_.find(Key(ref.namespace_name, ref.name));
  if (found == pod_by_key_.end()) {
    return absl::NotFoundError(
        absl::StrCat("pods \"", ref.name, "\" not found"));
  }
  const std::string& uid = pods_.at(found->second).pod.metadata().uid();
  if (!ref.uid.empty() && ref.uid != uid) {
    return absl::FailedPreconditionError(absl::StrCat(
        "pod ", Key(ref.namespace_name, ref.name),
        ": the UID in the "
        "precondition (",
        ref.uid, ") does not match the UID in record (", uid, ")"));
  }
  DeletePodRecord(found->second, grace_seconds, now);
  return absl::OkStatus();
}

// --- Nodes and NodeClaims. --------------------------------------------------

v1::ObjectMeta* FakeClusterState::Meta(ObjectKind kind,
                                       absl::string_view name) {
  if (kind == ObjectKind::kNode) {
    auto it = nodes_.find(name);
    return it == nodes_.end() ? nullptr : it->second.mutable_metadata();
  }
  auto it = node_claims_.find(name);
  return it == node_claims_.end() ? nullptr : it->second.mutable_metadata();
}

void FakeClusterState::RemoveObject(ObjectKind kind, absl::string_view name,
                                    absl::Time now) {
  if (kind == ObjectKind::kNode) {
    RemoveNode(name, now);
    return;
  }
  node_claims_.erase(node_claims_.find(name));
  Log(now, absl::StrCat("removed NodeClaim ", name));
}

// The pod GC deletes the pods of a Node that no longer exists.
void FakeClusterState::RemoveNode(absl::string_view name, absl::Time now) {
  nodes_.erase(nodes_.find(name));
  Log(now, absl::StrCat("removed Node ", name));
  std::vector<PodId> orphans;
  for (const auto& [id, r] : pods_) {
    if (r.pod.spec().node_name() == name) orphans.push_back(id);
  }
  for (PodId id : orphans) DeletePodRecord(id, 0, now);
}

absl::Status FakeClusterState::AddFinalizer(ObjectKind kind,
                                            absl::string_view name,
                                            absl::string_view finalizer) {
  v1::ObjectMeta* meta = Meta(kind, name);
  if (meta == nullptr) return absl::NotFoundError(NotFoundMessage(kind, name));
  for (const std::string& f : meta->finalizers()) {
    if (f == finalizer) return absl::OkStatus();
  }
  if (meta->has_deletion_timestamp()) {
    return absl::FailedPreconditionError(absl::StrCat(
        ObjectKindName(kind), " \"", name, "\": finalizer \"", finalizer,
        "\": no new finalizers can be added if the object is being deleted"));
  }
  meta->add_finalizers(std::string(finalizer));
  return absl::OkStatus();
}

absl::Status FakeClusterState::RemoveFinalizer(ObjectKind kind,
                                               absl::string_view name,
                                               absl::string_view finalizer,
                                               absl::Time now) {
  v1::ObjectMeta* meta = Meta(kind, name);
  if (meta == nullptr) return absl::NotFoundError(NotFoundMessage(kind, name));
  auto* finalizers = meta->mutable_finalizers();
  finalizers->erase(
      std::remove(finalizers->begin(), finalizers->end(), finalizer),
      finalizers->end());
  if (meta->has_deletion_timestamp() && finalizers->empty()) {
    RemoveObject(kind, name, now);
  }
  return absl::OkStatus();
}

absl::Status FakeClusterState::TaintNode(absl::string_view node,
                                         const v1::Taint& taint) {
  v1::ObjectMeta* meta = Meta(ObjectKind::kNode, node);
  if (meta == nullptr) {
    return absl::NotFoundError(NotFoundMessage(ObjectKind::kNode, node));
  }
  auto* taints = nodes_.find(node)->second.mutable_spec()->mutable_taints();
  int same_key = 0;
  bool equal = false;
  for (const v1::Taint& t : *taints) {
    if (t.key() != taint.key()) continue;
    ++same_key;
    equal = t.value() == taint.value() && t.effect() == taint.effect();
  }
  if (same_key == 1 && equal) return absl::OkStatus();
  taints->erase(std::remove_if(
                    taints->begin(), taints->end(),
                    [&](const v1::Taint& t) { return t.key() == taint.key(); }),
                taints->end());
  *taints->Add() = taint;
  return absl::OkStatus();
}

absl::Status FakeClusterState::SetMetadataEntry(ObjectKind kind,
                                                absl::string_view name,
                                                bool label,
                                                absl::string_view key,
                                                absl::string_view value) {
  v1::ObjectMeta* meta = Meta(kind, name);
  if (meta == nullptr) return absl::NotFoundError(NotFoundMessage(kind, name));
  auto& map = label ? *meta->mutable_labels() : *meta->mutable_annotations();
  map[std::string(key)] = std::string(value);
  return absl::OkStatus();
}

absl::Status FakeClusterState::SetNodeClaimCondition(
    absl::string_view node_claim, const v1::Condition& condition,
    absl::Time now) {
  auto it = node_claims_.find(node_claim);
  if (it == node_claims_.end()) {
    return absl::NotFoundError(
        NotFoundMessage(ObjectKind::kNodeClaim, node_claim));
  }
  auto* conditions = it->second.mutable_status()->mutable_conditions();
  v1::Condition* target = nullptr;
  for (v1::Condition& c : *conditions) {
    if (c.type() == condition.type()) target = &c;
  }
  v1::Condition next = condition;
  if (target != nullptr && target->status() == condition.status()) {
    *next.mutable_last_transition_time() = target->last_transition_time();
  } else if (!next.has_last_transition_time()) {
    *next.mutable_last_transition_time() = ToProto(now);
  }
  if (target == nullptr) target = conditions->Add();
  *target = std::move(next);
  return absl::OkStatus();
}

absl::Status FakeClusterState::Delete(ObjectKind kind, absl::string_view name,
                                      absl::Time now) {
  v1::ObjectMeta* meta = Meta(kind, name);
  if (meta == nullptr) return absl::NotFoundError(NotFoundMessage(kind, name));
  if (meta->has_deletion_timestamp()) return absl::OkStatus();
  if (meta->finalizers().empty()) {
    RemoveObject(kind, name, now);
  } else {
    *meta->mutable_deletion_timestamp() = ToProto(now);
  }
  return absl::OkStatus();
}

absl::Status FakeClusterState::CreateNodeClaim(v1::NodeClaim node_claim,
                                               absl::Time now) {
  const std::string name = node_claim.metadata().name();
  if (node_claims_.contains(name)) {
    return absl::AlreadyExistsError(
        absl::StrCat("nodeclaims.karpenter.sh \"", name, "\" already exists"));
  }
  v1::ObjectMeta& meta = *node_claim.mutable_metadata();
  meta.clear_deletion_timestamp();
  if (!meta.has_creation_timestamp()) {
    *meta.mutable_creation_timestamp() = ToProto(now);
  }
  node_claims_.emplace(name, std::move(node_claim));
  return absl::OkStatus();
}

absl::Status FakeClusterState::RemoveTaint(absl::string_view node,
                                           absl::string_view key,
                                           absl::string_view effect) {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) {
    return absl::NotFoundError(NotFoundMessage(ObjectKind::kNode, node));
  }
  auto* taints = it->second.mutable_spec()->mutable_taints();
  taints->erase(std::remove_if(taints->begin(), taints->end(),
                               [&](const v1::Taint& t) {
                                 return t.key() == key && t.effect() == effect;
                               }),
                taints->end());
  return absl::OkStatus();
}

absl::Status FakeClusterState::RemoveNodeClaimCondition(
    absl::string_view node_claim, absl::string_view type) {
  auto it = node_claims_.find(node_claim);
  if (it == node_claims_.end()) {
    return absl::NotFoundError(
        NotFoundMessage(ObjectKind::kNodeClaim, node_claim));
  }
  auto* conditions = it->second.mutable_status()->mutable_conditions();
  conditions->erase(
      std::remove_if(conditions->begin(), conditions->end(),
                     [&](const v1::Condition& c) { return c.type() == type; }),
      conditions->end());
  return absl::OkStatus();
}

absl::Status FakeClusterState::AddNode(v1::Node node, absl::Time now) {
  const std::string name = node.metadata().name();
  if (name.empty()) {
    return absl::InvalidArgumentError("metadata.name: must not be empty");
  }
  if (nodes_.contains(name)) {
    return absl::AlreadyExistsError(
        absl::StrCat("nodes \"", name, "\" already exists"));
  }
  if (!node.metadata().has_creation_timestamp()) {
    *node.mutable_metadata()->mutable_creation_timestamp() = ToProto(now);
  }
  nodes_.emplace(name, std::move(node));
  return absl::OkStatus();
}

absl::Status FakeClusterState::SetNodeReady(absl::string_view node, bool ready,
                                            absl::Time now) {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) {
    return absl::NotFoundError(NotFoundMessage(ObjectKind::kNode, node));
  }
  const std::string status = ready ? "True" : "False";
  auto* conditions = it->second.mutable_status()->mutable_conditions();
  for (v1::Condition& c : *conditions) {
    if (c.type() != "Ready") continue;
    if (c.status() != status) {
      c.set_status(status);
      *c.mutable_last_transition_time() = ToProto(now);
    }
    return absl::OkStatus();
  }
  v1::Condition* c = conditions->Add();
  c->set_type("Ready");
  c->set_status(status);
  *c->mutable_last_transition_time() = ToProto(now);
  return absl::OkStatus();
}

absl::Status FakeClusterState::SetNodeClaimStatus(absl::string_view node_claim,
                                                  v1::NodeClaimStatus status) {
  auto it = node_claims_.find(node_claim);
  if (it == node_claims_.end()) {
    return absl::NotFoundError(
        NotFoundMessage(ObjectKind::kNodeClaim, node_claim));
  }
  *it->second.mutable_status() = std::move(status);
  return absl::OkStatus();
}

// --- Output. -----------------------------------------------------------------

snapshot::ObjectSet FakeClusterState::Export(bool with_pods) const {
  snapshot::ObjectSet out;
  out.nodes.reserve(nodes_.size());
  for (const auto& [name, node] : nodes_) out.nodes.push_back(node);
  if (with_pods) {
    out.pods.reserve(pods_.size());
    for (const auto& [id, r] : pods_) out.pods.push_back(r.pod);
    out.pdbs.reserve(pdbs_.size());
  }
  for (const PdbRecord& r : pdbs_) {
    if (!with_pods) break;
    v1::PodDisruptionBudget pdb = r.object;
    const PdbCounts c = Counts(r);
    v1::PodDisruptionBudgetStatus& s = *pdb.mutable_status();
    s.set_disruptions_allowed(static_cast<int32_t>(c.disruptions_allowed));
    s.set_current_healthy(static_cast<int32_t>(c.current_healthy));
    s.set_desired_healthy(static_cast<int32_t>(c.desired_healthy));
    s.set_expected_pods(static_cast<int32_t>(c.expected_pods));
    s.set_observed_generation(
        std::max<int64_t>(pdb.metadata().generation(), 1));
    out.pdbs.push_back(std::move(pdb));
  }
  out.node_pools = node_pools_;
  for (const auto& [name, c] : node_claims_) out.node_claims.push_back(c);
  for (const auto& [name, v] : volumes_) {
    out.volume_attachments.push_back(v.object);
  }
  out.persistent_volume_claims = claims_;
  return out;
}

void FakeClusterState::Log(absl::Time at, absl::string_view line) {
  if (options_.record_call_log)
    log.push_back(absl::StrCat(LogTime(at), " ", line));
}

}  // namespace internal

// --- FakeCluster.
// -------------------------------------------------------------

namespace {

using internal::FakeClusterState;
using internal::LogTime;
namespace host_checks = ::karpenter::internal;

absl::Status CheckOptions(const FakeClusterOptions& o) {
  for (const auto& [field, d] :
       {std::pair{"recreate_delay", o.recreate_delay},
        std::pair{"ready_delay", o.ready_delay},
        std::pair{"volume_detach_delay", o.volume_detach_delay}}) {
    if (d < absl::ZeroDuration() || d == absl::InfiniteDuration()) {
      return absl::InvalidArgumentError(
          absl::StrCat("FakeClusterOptions.", field, ": \"",
                       absl::FormatDuration(d), "\": must be finite and >= 0"));
    }
  }
  return absl::OkStatus();
}

// The API server's defaults and validation, applied to the initial objects.
absl::Status Validate(snapshot::ObjectSet& objects) {
  for (v1::PodDisruptionBudget& pdb : objects.pdbs) {
    if (pdb.metadata().namespace_().empty()) {
      pdb.mutable_metadata()->set_namespace_("default");
    }
  }
  snapshot::ObjectSet copy = objects;
  KARPENTER_ASSIGN_OR_RETURN(snapshot::Snapshot snap,
                             snapshot::Snapshot::Build(std::move(copy)));
  const std::vector<absl::Status> errors =
      budget::PdbIndex::Build(snap).errors();
  return errors.empty() ? absl::OkStatus() : errors.front();
}

std::string RefText(const PodRef& pod) {
  return absl::StrCat(pod.namespace_name, "/", pod.name, " uid=", pod.uid);
}

std::string ObjectText(ObjectKind kind, absl::string_view name) {
  return absl::StrCat(ObjectKindName(kind), " ", name);
}

}  // namespace

absl::string_view FakeMethodName(FakeMethod method) {
  static constexpr std::array<absl::string_view, internal::kMethodCount>
      kNames = {"Read",
                "AddFinalizer",
                "RemoveFinalizer",
                "TaintNode",
                "SetLabel",
                "SetAnnotation",
                "SetNodeClaimCondition",
                "DeleteNode",
                "DeleteNodeClaim",
                "DeletePod",
                "CreateNodeClaim",
                "RemoveTaint",
                "RemoveNodeClaimCondition"};
  return kNames[static_cast<size_t>(method)];
}

absl::StatusOr<std::unique_ptr<FakeCluster>> FakeCluster::Create(
    snapshot::ObjectSet objects, Clock& clock, FakeClusterOptions options) {
  KARPENTER_RETURN_IF_ERROR(CheckOptions(options));
  KARPENTER_RETURN_IF_ERROR(Validate(objects));
  auto state = std::make_unique<FakeClusterState>(options);
  KARPENTER_RETURN_IF_ERROR(state->Load(std::move(objects), clock.Now()));
  return std::unique_ptr<FakeCluster>(new FakeCluster(clock, std::move(state)));
}

FakeCluster::FakeCluster(Clock& clock, std::unique_ptr<FakeClusterState> state)
    : clock_(clock), state_(std::move(state)) {}

FakeCluster::~FakeCluster() = default;

std::optional<std::pair<absl::Status, FaultTiming>> FakeCluster::TakeFault(
    FakeMethod method) {
  auto& queue = state_->faults[static_cast<size_t>(method)];
  if (queue.empty()) return std::nullopt;
  internal::Fault f = std::move(queue.front());
  queue.pop_front();
  return std::make_pair(std::move(f.status), f.timing);
}

template <typename Op>
absl::Status FakeCluster::Mutate(FakeMethod method, absl::string_view args,
                                 Op op) {
  internal::MutexLock lock(&mu_);
  const absl::Time now = clock_.Now();
  state_->Advance(now);
  auto fault = TakeFault(method);
  absl::Status status;
  if (!fault || fault->second == FaultTiming::kAfterCall) {
    status = op(*state_, now);
  }
  if (fault) status = fault->first;
  state_->Log(now, absl::StrCat(FakeMethodName(method), " ", args, " -> ",
                                internal::StatusText(status),
                                fault ? " (injected)" : ""));
  return status;
}

absl::StatusOr<snapshot::Snapshot> FakeCluster::Read() {
  snapshot::ObjectSet objects;
  {
    internal::MutexLock lock(&mu_);
    const absl::Time now = clock_.Now();
    state_->Advance(now);
    auto fault = TakeFault(FakeMethod::kRead);
    state_->Log(now, absl::StrCat("Read -> ",
                                  internal::StatusText(
                                      fault ? fault->first : absl::OkStatus()),
                                  fault ? " (injected)" : ""));
    if (fault) return fault->first;
    objects = state_->Export();
  }
  return snapshot::Snapshot::Build(std::move(objects));
}

absl::Status FakeCluster::SetNodeReady(absl::string_view node, bool ready) {
  KARPENTER_RETURN_IF_ERROR(host_checks::CheckNotEmpty("node", node));
  internal::MutexLock lock(&mu_);
  const absl::Time now = clock_.Now();
  state_->Advance(now);
  return state_->SetNodeReady(node, ready, now);
}

snapshot::ObjectSet FakeCluster::ExportObjects() {
  internal::MutexLock lock(&mu_);
  state_->Advance(clock_.Now());
  return state_->Export();
}

absl::StatusOr<snapshot::Snapshot> FakeCluster::ReadWithoutPods() {
  snapshot::ObjectSet objects;
  {
    internal::MutexLock lock(&mu_);
    state_->Advance(clock_.Now());
    objects = state_->Export(/*with_pods=*/false);
  }
  return snapshot::Snapshot::Build(std::move(objects));
}

absl::Status FakeCluster::AddFinalizer(ObjectKind kind, absl::string_view name,
                                       absl::string_view finalizer) {
  return Mutate(
      FakeMethod::kAddFinalizer,
      absl::StrCat(ObjectText(kind, name), " ", finalizer),
      [&](FakeClusterState& s, absl::Time) -> absl::Status {
        KARPENTER_RETURN_IF_ERROR(host_checks::CheckNotEmpty("name", name));
        KARPENTER_RETURN_IF_ERROR(
            host_checks::CheckNotEmpty("finalizer", finalizer));
        return s.AddFinalizer(kind, name, finalizer);
      });
}

absl::Status FakeCluster::RemoveFinalizer(ObjectKind kind,
                                          absl::string_view name,
                                          absl::string_view finalizer) {
  return Mutate(
      FakeMethod::kRemoveFinalizer,
      absl::StrCat(ObjectText(kind, name), " ", finalizer),
      [&](FakeClusterState& s, absl::Time now) -> absl::Status {
        KARPENTER_RETURN_IF_ERROR(host_checks::CheckNotEmpty("name", name));
        KARPENTER_RETURN_IF_ERROR(
            host_checks::CheckNotEmpty("finalizer", finalizer));
        return s.RemoveFinalizer(kind, name, finalizer, now);
      });
}

absl::Status FakeCluster::TaintNode(absl::string_view node,
                                    const v1::Taint& taint) {
  return Mutate(
      FakeMethod::kTaintNode,
      absl::StrCat(node, " ", taint.key(), "=", taint.value(), ":",
                   taint.effect()),
      [&](FakeClusterState& s, absl::Time) -> absl::Status {
        KARPENTER_RETURN_IF_ERROR(host_checks::CheckNotEmpty("node", node));
        KARPENTER_RETURN_IF_ERROR(host_checks::CheckTaint(taint));
        return s.TaintNode(node, taint);
      });
}

absl::Status FakeCluster::SetLabel(ObjectKind kind, absl::string_view name,
                                   absl::string_view key,
                                   absl::string_view value) {
  return Mutate(
      FakeMethod::kSetLabel,
      absl::StrCat(ObjectText(kind, name), " ", key, "=", value),
      [&](FakeClusterState& s, absl::Time) -> absl::Status {
        KARPENTER_RETURN_IF_ERROR(host_checks::CheckNotEmpty("name", name));
        KARPENTER_RETURN_IF_ERROR(host_checks::CheckNotEmpty("label key", key));
        return s.SetMetadataEntry(kind, name, true, key, value);
      });
}

absl::Status FakeCluster::SetAnnotation(ObjectKind kind, absl::string_view name,
                                        absl::string_view key,
                                        absl::string_view value) {
  return Mutate(
      FakeMethod::kSetAnnotation,
      absl::StrCat(ObjectText(kind, name), " ", key, "=", value),
      [&](FakeClusterState& s, absl::Time) -> absl::Status {
        KARPENTER_RETURN_IF_ERROR(host_checks::CheckNotEmpty("name", name));
        KARPENTER_RETURN_IF_ERROR(
            host_checks::CheckNotEmpty("annotation key", key));
        return s.SetMetadataEntry(kind, name, false, key, value);
      });
}

absl::Status FakeCluster::SetNodeClaimCondition(
    absl::string_view node_claim, const v1::Condition& condition) {
  return Mutate(
      FakeMethod::kSetNodeClaimCondition,
      absl::StrCat(node_claim, " ", condition.type(), "=", condition.status(),
                   " ", condition.reason()),
      [&](FakeClusterState& s, absl::Time now) -> absl::Status {
        KARPENTER_RETURN_IF_ERROR(
            host_checks::CheckNotEmpty("node_claim", node_claim));
        KARPENTER_RETURN_IF_ERROR(host_checks::CheckCondition(condition));
        return s.SetNodeClaimCondition(node_claim, condition, now);
      });
}

absl::Status FakeCluster::DeleteNode(absl::string_view node) {
  return Mutate(
      FakeMethod::kDeleteNode, node,
      [&](FakeClusterState& s, absl::Time now) -> absl::Status {
        KARPENTER_RETURN_IF_ERROR(host_checks::CheckNotEmpty("node", node));
        return s.Delete(ObjectKind::kNode, node, now);
      });
}

absl::Status FakeCluster::DeleteNodeClaim(absl::string_view node_claim) {
  return Mutate(FakeMethod::kDeleteNodeClaim, node_claim,
                [&](FakeClusterState& s, absl::Time now) -> absl::Status {
                  KARPENTER_RETURN_IF_ERROR(
                      host_checks::CheckNotEmpty("node_claim", node_claim));
                  return s.Delete(ObjectKind::kNodeClaim, node_claim, now);
                });
}

absl::Status FakeCluster::DeletePod(const PodRef& pod, absl::Duration grace) {
  return Mutate(
      FakeMethod::kDeletePod,
      absl::StrCat(RefText(pod), " grace=", absl::FormatDuration(grace)),
      [&](FakeClusterState& s, absl::Time now) -> absl::Status {
        KARPENTER_RETURN_IF_ERROR(host_checks::CheckPodRef(pod));
        KARPENTER_ASSIGN_OR_RETURN(const int64_t seconds,
                                   host_checks::GraceSeconds(grace));
        return s.DeletePod(pod, seconds, now);
      });
}

absl::Status FakeCluster::CreateNodeClaim(const v1::NodeClaim& node_claim) {
  const std::string& name = node_claim.metadata().name();
  return Mutate(
      FakeMethod::kCreateNodeClaim,
      absl::StrCat(name, " providerID=", node_claim.status().provider_id()),
      [&](FakeClusterState& s, absl::Time now) -> absl::Status {
        KARPENTER_RETURN_IF_ERROR(
            host_checks::CheckNotEmpty("metadata.name", name));
        return s.CreateNodeClaim(node_claim, now);
      });
}

absl::Status FakeCluster::RemoveTaint(absl::string_view node,
                                      absl::string_view key,
                                      absl::string_view effect) {
  return Mutate(
      FakeMethod::kRemoveTaint, absl::StrCat(node, " ", key, ":", effect),
      [&](FakeClusterState& s, absl::Time) -> absl::Status {
        KARPENTER_RETURN_IF_ERROR(host_checks::CheckNotEmpty("node", node));
        v1::Taint taint;
        taint.set_key(std::string(key));
        taint.set_effect(std::string(effect));
        KARPENTER_RETURN_IF_ERROR(host_checks::CheckTaint(taint));
        return s.RemoveTaint(node, key, effect);
      });
}

absl::Status FakeCluster::RemoveNodeClaimCondition(absl::string_view node_claim,
                                                   absl::string_view type) {
  return Mutate(FakeMethod::kRemoveNodeClaimCondition,
                absl::StrCat(node_claim, " ", type),
                [&](FakeClusterState& s, absl::Time) -> absl::Status {
                  KARPENTER_RETURN_IF_ERROR(
                      host_checks::CheckNotEmpty("node_claim", node_claim));
                  KARPENTER_RETURN_IF_ERROR(
                      host_checks::CheckNotEmpty("condition type", type));
                  return s.RemoveNodeClaimCondition(node_claim, type);
                });
}

absl::Status FakeCluster::AddNode(v1::Node node) {
  const std::string args = node.metadata().name();
  internal::MutexLock lock(&mu_);
  const absl::Time now = clock_.Now();
  state_->Advance(now);
  const absl::Status status = state_->AddNode(std::move(node), now);
  state_->Log(now, absl::StrCat("AddNode ", args, " -> ",
                                internal::StatusText(status)));
  return status;
}

absl::Status FakeCluster::SetNodeClaimStatus(absl::string_view node_claim,
                                             v1::NodeClaimStatus status) {
  internal::MutexLock lock(&mu_);
  const absl::Time now = clock_.Now();
  state_->Advance(now);
  std::string conditions;
  for (const v1::Condition& c : status.conditions()) {
    absl::StrAppend(&conditions, " ", c.type(), "=", c.status());
  }
  absl::Status result =
      node_claim.empty()
          ? absl::InvalidArgumentError("node_claim: must not be empty")
          : state_->SetNodeClaimStatus(node_claim, std::move(status));
  state_->Log(now, absl::StrCat("SetNodeClaimStatus ", node_claim, conditions,
                                " -> ", internal::StatusText(result)));
  return result;
}

EvictionResponse FakeCluster::Evict(const PodRef& pod) {
  internal::MutexLock lock(&mu_);
  const absl::Time now = clock_.Now();
  state_->Advance(now);
  ++state_->evict_calls;
  std::optional<internal::EvictionFault> fault;
  if (!state_->eviction_faults.empty()) {
    fault = std::move(state_->eviction_faults.front());
    state_->eviction_faults.pop_front();
  }
  EvictionResponse response;
  std::string detail;
  std::string line = absl::StrCat("Evict ", RefText(pod), " -> ");
  if (!fault || fault->timing == FaultTiming::kAfterCall) {
    response = state_->Evict(pod, now, detail);
    absl::StrAppend(&line, response.http_status, detail.empty() ? "" : " (",
                    detail, detail.empty() ? "" : ")");
  }
  if (fault) {
    response = fault->response;
    absl::StrAppend(&line, fault->timing == FaultTiming::kAfterCall ? ", " : "",
                    "injected ", response.http_status, " ", response.message);
  }
  ++state_->evict_results[static_cast<size_t>(response.result)];
  state_->Log(now, line);
  return response;
}

absl::Status FakeCluster::AddPod(v1::Pod pod) {
  const std::string args =
      absl::StrCat(pod.metadata().namespace_(), "/", pod.metadata().name());
  internal::MutexLock lock(&mu_);
  const absl::Time now = clock_.Now();
  state_->Advance(now);
  const absl::Status status = state_->AddPod(std::move(pod), now);
  state_->Log(
      now, absl::StrCat("AddPod ", args, " -> ", internal::StatusText(status)));
  return status;
}

absl::Status internal::FakeClusterState::ApplyNodePool(v1::NodePool node_pool) {
  if (node_pool.metadata().name().empty()) {
    return absl::InvalidArgumentError("NodePool metadata.name: must be set");
  }
  for (v1::NodePool& p : node_pools_) {
    if (p.metadata().name() == node_pool.metadata().name()) {
      p = std::move(node_pool);
      return absl::OkStatus();
    }
  }
  node_pools_.push_back(std::move(node_pool));
  return absl::OkStatus();
}

absl::Status FakeCluster::ApplyNodePool(v1::NodePool node_pool) {
  const std::string args = node_pool.metadata().name();
  internal::MutexLock lock(&mu_);
  const absl::Time now = clock_.Now();
  state_->Advance(now);
  const absl::Status status = state_->ApplyNodePool(std::move(node_pool));
  state_->Log(now, absl::StrCat("ApplyNodePool ", args, " -> ",
                                internal::StatusText(status)));
  return status;
}

absl::Status FakeCluster::AddVolumeAttachment(v1::VolumeAttachment va) {
  const std::string args =
      absl::StrCat(va.metadata().name(), " on ", va.spec().node_name());
  internal::MutexLock lock(&mu_);
  const absl::Time now = clock_.Now();
  state_->Advance(now);
  const absl::Status status = state_->AddVolumeAttachment(std::move(va), now);
  state_->Log(now, absl::StrCat("AddVolumeAttachment ", args, " -> ",
                                internal::StatusText(status)));
  return status;
}

void FakeCluster::Settle() {
  internal::MutexLock lock(&mu_);
  state_->Advance(clock_.Now());
}

std::optional<absl::Time> FakeCluster::NextEventTime() const {
  internal::MutexLock lock(&mu_);
  return state_->NextEventTime();
}

absl::Status FakeCluster::RunUntil(FakeClock& clock, absl::Time limit) {
  if (static_cast<Clock*>(&clock) != &clock_) {
    return absl::FailedPreconditionError(
        "RunUntil: the clock is not the one the FakeCluster was created with");
  }
  if (limit < clock.Now()) {
    return absl::InvalidArgumentError(
        absl::StrCat("RunUntil: limit ", LogTime(limit),
                     " is before the current time ", LogTime(clock.Now())));
  }
  for (std::optional<absl::Time> next = NextEventTime();
       next.has_value() && *next <= limit; next = NextEventTime()) {
    if (*next > clock.Now()) KARPENTER_RETURN_IF_ERROR(clock.SetTime(*next));
    Settle();
  }
  KARPENTER_RETURN_IF_ERROR(clock.SetTime(limit));
  Settle();
  return absl::OkStatus();
}

absl::Status FakeCluster::InjectEvictionFailures(int n,
                                                 EvictionResponse response,
                                                 FaultTiming timing) {
  if (n < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("InjectEvictionFailures: n: \"", n, "\": must be >= 1"));
  }
  if (response.result == EvictionResult::kEvicted) {
    return absl::InvalidArgumentError(
        "InjectEvictionFailures: response.result: \"Evicted\": a scripted "
        "fault cannot be a success");
  }
  internal::MutexLock lock(&mu_);
  for (int i = 0; i < n; ++i) {
    state_->eviction_faults.push_back({response, timing});
  }
  return absl::OkStatus();
}

absl::Status FakeCluster::FailNext(FakeMethod method, absl::Status status,
                                   int times, FaultTiming timing) {
  if (status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("FailNext(", FakeMethodName(method),
                     "): status: \"OK\": a fault must be an error"));
  }
  if (times < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("FailNext(", FakeMethodName(method), "): times: \"", times,
                     "\": must be >= 1"));
  }
  internal::MutexLock lock(&mu_);
  for (int i = 0; i < times; ++i) {
    state_->faults[static_cast<size_t>(method)].push_back({status, timing});
  }
  return absl::OkStatus();
}

int64_t FakeCluster::evict_calls() const {
  internal::MutexLock lock(&mu_);
  return state_->evict_calls;
}

int64_t FakeCluster::EvictCount(EvictionResult result) const {
  internal::MutexLock lock(&mu_);
  return state_->evict_results[static_cast<size_t>(result)];
}

std::vector<std::string> FakeCluster::CallLog() const {
  internal::MutexLock lock(&mu_);
  return state_->log;
}

std::vector<PdbViolation> FakeCluster::PdbViolations() const {
  internal::MutexLock lock(&mu_);
  return state_->violations;
}

absl::StatusOr<PdbCounts> FakeCluster::PdbStatus(absl::string_view ns,
                                                 absl::string_view name) {
  internal::MutexLock lock(&mu_);
  state_->Advance(clock_.Now());
  std::optional<PdbCounts> counts =
      state_->CountsOf(absl::StrCat(ns, "/", name));
  if (!counts) {
    return absl::NotFoundError(absl::StrCat("poddisruptionbudgets.policy \"",
                                            ns, "/", name, "\" not found"));
  }
  return *counts;
}

}  // namespace karpenter::testing
