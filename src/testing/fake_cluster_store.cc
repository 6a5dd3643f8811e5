// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// FakeCluster's API server (fake_cluster_internal.h): the object store of
// Nodes, NodeClaims, NodePools, pods, PDBs and claims with the verbs on
// them, as the API server answers them: graceful deletion of pods
// (pkg/registry/core/pod/strategy.go), finalizers blocking removal, and the
// pod GC's cleanup of the pods of a removed Node; then Export and the log.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/status_macros.h"
#include "karpenter/cluster_view.h"
#include "karpenter/duration.h"
#include "karpenter/testing/fake_cluster.h"
#include "karpenter/time_util.h"
#include "karpenter/well_known.h"
#include "testing/fake_cluster_internal.h"

namespace karpenter::testing::internal {
namespace {

std::string NotFoundMessage(ObjectKind kind, absl::string_view name) {
  return absl::StrCat(
      kind == ObjectKind::kNode ? "nodes" : "nodeclaims.karpenter.sh", " \"",
      name, "\" not found");
}

}  // namespace

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
    TouchNode(name);
    nodes_.emplace(std::move(name), std::move(n));
  }
  for (v1::NodeClaim& c : objects.node_claims) {
    std::string name = c.metadata().name();
    TouchNodeClaim(name);
    node_claims_.emplace(std::move(name), std::move(c));
  }
  node_pools_ = std::move(objects.node_pools);
  for (const v1::NodePool& p : node_pools_) TouchNodePool(p.metadata().name());
  for (v1::Pod& pod : objects.pods) {
    const bool terminating = IsTerminating(pod);
    const absl::Time at =
        terminating ? TimeFromProto(pod.metadata().deletion_timestamp())
                    : absl::InfinitePast();
    const PodId id = InsertPod(std::move(pod), "");
    if (terminating && options_.remove_terminated_pods) {
      PushEvent(at, PodEvent(EventKind::kRemove, id));
    }
    const v1::Pod& loaded = pods_.at(id).pod;
    if (loaded.status().phase() == "Running") {
      MaybeScheduleSuccess(id,
                           loaded.status().has_start_time()
                               ? TimeFromProto(loaded.status().start_time())
                               : now,
                           now);
    }
    MaybeEnqueue(id, now);
  }
  claims_ = std::move(objects.persistent_volume_claims);
  for (v1::PersistentVolumeClaim& c : claims_) {
    if (c.metadata().namespace_().empty()) {
      c.mutable_metadata()->set_namespace_("default");
    }
    pv_of_claim_[Key(c.metadata().namespace_(), c.metadata().name())] =
        c.spec().volume_name();
  }
  persistent_volumes_ = std::move(objects.persistent_volumes);
  storage_classes_ = std::move(objects.storage_classes);
  csi_nodes_ = std::move(objects.csi_nodes);
  daemon_sets_ = std::move(objects.daemon_sets);
  for (v1::DaemonSet& ds : daemon_sets_) {
    if (ds.metadata().namespace_().empty()) {
      ds.mutable_metadata()->set_namespace_("default");
    }
  }
  for (v1::VolumeAttachment& va : objects.volume_attachments) {
    std::string name = va.metadata().name();
    TouchVolume(name);
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
    r.stateful = ref->kind() == "StatefulSet";
    controllers_[r.controller].pods.insert(id);
  }
  auto bucket = pdbs_by_namespace_.find(meta.namespace_());
  if (bucket != pdbs_by_namespace_.end()) {
    for (uint32_t p : bucket->second) {
      if (!pdbs_[p].selector.Matches(meta.labels())) continue;
      r.pdbs.push_back(p);
      pdbs_[p].pods.insert(id);
      if (r.controller.empty()) {
        ++pdbs_[p].bare_pods;
      } else {
        ++pdbs_[p].controllers[r.controller];
      }
    }
  }
  if (!r.controller.empty()) {
    controllers_[r.controller].pdbs.insert(r.pdbs.begin(), r.pdbs.end());
  }
  r.pod = std::move(pod);
  pod_by_key_[r.key] = id;
  pods_.emplace(id, std::move(r));
  TouchPod(id);
  RememberDaemonPod(id);
  return id;
}

void FakeClusterState::RemovePod(PodId id, absl::Time at) {
  auto it = pods_.find(id);
  const PodRecord& r = it->second;
  DirtyPdbs(id, r);
  for (uint32_t p : r.pdbs) {
    PdbRecord& pdb = pdbs_[p];
    pdb.pods.erase(id);
    if (r.controller.empty()) {
      --pdb.bare_pods;
    } else if (--pdb.controllers[r.controller] == 0) {
      pdb.controllers.erase(r.controller);
    }
  }
  if (!r.controller.empty()) {
    auto c = controllers_.find(r.controller);
    c->second.pods.erase(id);
    if (c->second.pods.empty() && c->second.pending == 0) controllers_.erase(c);
  }
  Log(at, absl::StrCat("removed ", r.key));
  ++changes_;
  unscheduled_.erase(id);
  if (r.mirrored) {
    dirty_pods_[id] = r.key;  // Fed to the mirror as DELETED.
  } else {
    dirty_pods_.erase(id);
  }
  pdb_status_stale_ = true;
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
      terminating ? TimeFromProto(pod.metadata().deletion_timestamp()) : now;
  const std::string node = pod.spec().node_name();
  const PodId id = InsertPod(std::move(pod), "");
  if (terminating && options_.remove_terminated_pods) {
    PushEvent(std::max(at, now), PodEvent(EventKind::kRemove, id));
  }
  MaybeEnqueue(id, now);
  RefreshVolumesOn(node, now);
  return absl::OkStatus();
}

// --- Graceful deletion. -----------------------------------------------------

// pkg/registry/core/pod/strategy.go CheckGracefulDelete, then the ReplicaSet
// reaction to a pod that stopped being active.
void FakeClusterState::DeletePodRecord(PodId id, int64_t grace_seconds,
                                       absl::Time now) {
  PodRecord& r = pods_.at(id);
  v1::Pod& pod = r.pod;
  if (pod.spec().node_name().empty() || IsTerminal(pod)) grace_seconds = 0;
  const absl::Time at = now + absl::Seconds(grace_seconds);
  if (IsTerminating(pod) &&
      TimeFromProto(pod.metadata().deletion_timestamp()) <= at) {
    return;  // A deletion only ever moves earlier.
  }
  if (IsActive(pod) && r.replaceable) ScheduleReplacement(r, now);
  if (grace_seconds == 0) {
    RemovePod(id, now);
    return;
  }
  *pod.mutable_metadata()->mutable_deletion_timestamp() = TimeToProto(at);
  pod.mutable_metadata()->set_deletion_grace_period_seconds(grace_seconds);
  TouchPod(id);
  if (options_.remove_terminated_pods) {
    PushEvent(at, PodEvent(EventKind::kRemove, id));
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
    if (it == nodes_.end()) return nullptr;
    TouchNode(name);
    return it->second.mutable_metadata();
  }
  auto it = node_claims_.find(name);
  if (it == node_claims_.end()) return nullptr;
  TouchNodeClaim(name);
  return it->second.mutable_metadata();
}

void FakeClusterState::RemoveObject(ObjectKind kind, absl::string_view name,
                                    absl::Time now) {
  if (kind == ObjectKind::kNode) {
    RemoveNode(name, now);
    return;
  }
  TouchNodeClaim(name);
  node_claims_.erase(node_claims_.find(name));
  Log(now, absl::StrCat("removed NodeClaim ", name));
}

// The pod GC deletes the pods of a Node that no longer exists.
void FakeClusterState::RemoveNode(absl::string_view name, absl::Time now) {
  TouchNode(name);
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
  TouchNodeClaim(node_claim);
  auto* conditions = it->second.mutable_status()->mutable_conditions();
  v1::Condition* target = nullptr;
  for (v1::Condition& c : *conditions) {
    if (c.type() == condition.type()) target = &c;
  }
  v1::Condition next = condition;
  if (target != nullptr && target->status() == condition.status()) {
    *next.mutable_last_transition_time() = target->last_transition_time();
  } else if (!next.has_last_transition_time()) {
    *next.mutable_last_transition_time() = TimeToProto(now);
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
    *meta->mutable_deletion_timestamp() = TimeToProto(now);
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
    *meta.mutable_creation_timestamp() = TimeToProto(now);
  }
  TouchNodeClaim(name);
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
  TouchNode(node);
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
  TouchNodeClaim(node_claim);
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
    *node.mutable_metadata()->mutable_creation_timestamp() = TimeToProto(now);
  }
  TouchNode(name);
  auto [it, inserted] = nodes_.emplace(name, std::move(node));
  if (options_.placement == FakeClusterOptions::Placement::kKubeScheduler) {
    RunDaemonSets(it->second, now);
  }
  return absl::OkStatus();
}

absl::Status FakeClusterState::SucceedPod(const PodRef& ref, absl::Time now) {
  auto key = pod_by_key_.find(Key(ref.namespace_name, ref.name));
  if (key == pod_by_key_.end()) {
    return absl::NotFoundError(
        absl::StrCat("pods \"", ref.name, "\" not found"));
  }
  PodRecord& r = pods_.at(key->second);
  if (!ref.uid.empty() && ref.uid != r.pod.metadata().uid()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "pods \"", ref.name, "\": UID ", ref.uid, " does not match"));
  }
  Succeed(key->second, now);
  return absl::OkStatus();
}

void FakeClusterState::Succeed(PodId id, absl::Time now) {
  PodRecord& r = pods_.at(id);
  if (IsTerminal(r.pod)) return;
  TouchPod(id);
  r.pod.mutable_status()->set_phase("Succeeded");
  SetPodCondition(r.pod, well_known::kConditionTypeReady,
                  well_known::kConditionFalse, "PodCompleted", now);
  unscheduled_.erase(id);
  Log(now, absl::StrCat("succeeded ", r.key));
  RefreshVolumesOn(r.pod.spec().node_name(), now);
}

void FakeClusterState::MaybeScheduleSuccess(PodId id, absl::Time started,
                                            absl::Time now) {
  const v1::Pod& pod = pods_.at(id).pod;
  const v1::OwnerReference* ref = ControllerRef(pod);
  if (ref == nullptr || ref->kind() != "Job") return;
  const auto& annotations = pod.metadata().annotations();
  const auto it =
      annotations.find(std::string(FakeCluster::kRunForAnnotationKey));
  if (it == annotations.end()) return;
  const absl::StatusOr<absl::Duration> run_for = ParseGoDuration(it->second);
  if (!run_for.ok() || *run_for < absl::ZeroDuration()) return;
  PushEvent(std::max(now, started + *run_for),
            PodEvent(EventKind::kSucceed, id));
}

absl::Status FakeClusterState::SetNodeReady(absl::string_view node, bool ready,
                                            absl::Time now) {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) {
    return absl::NotFoundError(NotFoundMessage(ObjectKind::kNode, node));
  }
  TouchNode(node);
  const std::string status(ready ? well_known::kConditionTrue
                                 : well_known::kConditionFalse);
  auto* conditions = it->second.mutable_status()->mutable_conditions();
  for (v1::Condition& c : *conditions) {
    if (c.type() != well_known::kConditionTypeReady) continue;
    if (c.status() != status) {
      c.set_status(status);
      *c.mutable_last_transition_time() = TimeToProto(now);
    }
    return absl::OkStatus();
  }
  v1::Condition* c = conditions->Add();
  c->set_type(std::string(well_known::kConditionTypeReady));
  c->set_status(status);
  *c->mutable_last_transition_time() = TimeToProto(now);
  return absl::OkStatus();
}

absl::Status FakeClusterState::SetNodeClaimStatus(absl::string_view node_claim,
                                                  v1::NodeClaimStatus status) {
  auto it = node_claims_.find(node_claim);
  if (it == node_claims_.end()) {
    return absl::NotFoundError(
        NotFoundMessage(ObjectKind::kNodeClaim, node_claim));
  }
  TouchNodeClaim(node_claim);
  *it->second.mutable_status() = std::move(status);
  return absl::OkStatus();
}

absl::Status FakeClusterState::ApplyNodePool(v1::NodePool node_pool) {
  if (node_pool.metadata().name().empty()) {
    return absl::InvalidArgumentError("NodePool metadata.name: must be set");
  }
  TouchNodePool(node_pool.metadata().name());
  for (v1::NodePool& p : node_pools_) {
    if (p.metadata().name() == node_pool.metadata().name()) {
      p = std::move(node_pool);
      return absl::OkStatus();
    }
  }
  node_pools_.push_back(std::move(node_pool));
  return absl::OkStatus();
}

// --- Output. -----------------------------------------------------------------

v1::PodDisruptionBudget FakeClusterState::PdbWithStatus(
    const PdbRecord& r, const PdbCounts& counts) {
  v1::PodDisruptionBudget pdb = r.object;
  v1::PodDisruptionBudgetStatus& s = *pdb.mutable_status();
  s.set_disruptions_allowed(static_cast<int32_t>(counts.disruptions_allowed));
  s.set_current_healthy(static_cast<int32_t>(counts.current_healthy));
  s.set_desired_healthy(static_cast<int32_t>(counts.desired_healthy));
  s.set_expected_pods(static_cast<int32_t>(counts.expected_pods));
  s.set_observed_generation(std::max<int64_t>(pdb.metadata().generation(), 1));
  return pdb;
}

snapshot::ObjectSet FakeClusterState::Export() const {
  snapshot::ObjectSet out;
  out.nodes.reserve(nodes_.size());
  for (const auto& [name, node] : nodes_) out.nodes.push_back(node);
  out.pods.reserve(pods_.size());
  for (const auto& [id, r] : pods_) out.pods.push_back(r.pod);
  out.pdbs.reserve(pdbs_.size());
  for (const PdbRecord& r : pdbs_) {
    out.pdbs.push_back(PdbWithStatus(r, Counts(r)));
  }
  out.node_pools = node_pools_;
  for (const auto& [name, c] : node_claims_) out.node_claims.push_back(c);
  for (const auto& [name, v] : volumes_) {
    out.volume_attachments.push_back(v.object);
  }
  out.persistent_volume_claims = claims_;
  out.persistent_volumes = persistent_volumes_;
  out.storage_classes = storage_classes_;
  out.csi_nodes = csi_nodes_;
  out.daemon_sets = daemon_sets_;
  return out;
}

void FakeClusterState::Log(absl::Time at, absl::string_view line) {
  if (options_.record_call_log)
    log.push_back(absl::StrCat(FormatRfc3339(at), " ", line));
}

}  // namespace karpenter::testing::internal
