// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/testing/builders.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "karpenter/drift/static_drift.h"
#include "karpenter/taints.h"
#include "karpenter/time_util.h"
#include "karpenter/well_known.h"

namespace karpenter::testing {
namespace {

// Sets `key` to `value` in `map` unless `value` is empty.
template <typename Map>
void SetIfNotEmpty(Map& map, absl::string_view key, const std::string& value) {
  if (!value.empty()) map[std::string(key)] = value;
}

template <typename Map>
void SetAll(Map& map, const Labels& entries) {
  for (const auto& [k, v] : entries) map[k] = v;
}

// The labels Karpenter puts on a Node and its NodeClaim.
template <typename Map>
void SetKarpenterLabels(Map& labels, const std::string& nodepool,
                        const std::string& instance_type,
                        const std::string& zone,
                        const std::string& capacity_type) {
  SetIfNotEmpty(labels, well_known::kNodePoolLabelKey, nodepool);
  SetIfNotEmpty(labels, well_known::kLabelInstanceTypeStable, instance_type);
  SetIfNotEmpty(labels, well_known::kLabelTopologyZone, zone);
  SetIfNotEmpty(labels, well_known::kCapacityTypeLabelKey, capacity_type);
}

// ConditionOptions spelled out (designated initializers that omit fields
// warn under GCC 12's -Wextra).
ConditionOptions Condition(const std::string& type, const std::string& status,
                           const std::string& reason,
                           const std::optional<absl::Time>& since) {
  ConditionOptions c;
  c.type = type;
  c.status = status;
  c.reason = reason;
  c.since = since;
  return c;
}

void AddLifecycleCondition(
    google::protobuf::RepeatedPtrField<v1::Condition>* conditions,
    const std::string& type, const std::string& status,
    const std::optional<absl::Time>& since) {
  if (status.empty()) return;
  *conditions->Add() = MakeCondition(Condition(type, status, "", since));
}

// metadata.annotations, finalizers, creationTimestamp and deletionTimestamp.
void SetObjectMeta(const Labels& annotations,
                   const std::vector<std::string>& finalizers,
                   const std::optional<absl::Time>& created,
                   const std::optional<absl::Time>& deleted,
                   v1::ObjectMeta& meta) {
  SetAll(*meta.mutable_annotations(), annotations);
  for (const std::string& f : finalizers) meta.add_finalizers(f);
  if (created.has_value()) {
    *meta.mutable_creation_timestamp() = TimeToProto(*created);
  }
  if (deleted.has_value()) {
    *meta.mutable_deletion_timestamp() = TimeToProto(*deleted);
  }
}

// The apiVersion of the usual owners of a pod.
std::string OwnerApiVersion(const std::string& kind) {
  if (kind == "ReplicaSet" || kind == "DaemonSet" || kind == "StatefulSet" ||
      kind == "Deployment") {
    return "apps/v1";
  }
  if (kind == "Job" || kind == "CronJob") return "batch/v1";
  return "v1";
}

}  // namespace

v1::Condition MakeCondition(const ConditionOptions& options) {
  v1::Condition c;
  c.set_type(options.type);
  c.set_status(options.status);
  c.set_reason(options.reason);
  c.set_message(options.message);
  if (options.since.has_value()) {
    *c.mutable_last_transition_time() = TimeToProto(*options.since);
  }
  return c;
}

void SetCondition(google::protobuf::RepeatedPtrField<v1::Condition>* conditions,
                  const ConditionOptions& options) {
  for (v1::Condition& c : *conditions) {
    if (c.type() == options.type) {
      c = MakeCondition(options);
      return;
    }
  }
  *conditions->Add() = MakeCondition(options);
}

v1::Taint MakeTaint(std::string key, std::string value, std::string effect) {
  v1::Taint t;
  t.set_key(std::move(key));
  t.set_value(std::move(value));
  t.set_effect(std::move(effect));
  return t;
}

v1::Taint DisruptedTaint() { return DisruptedNoScheduleTaint(); }

v1::Toleration MakeToleration(std::string key, std::string op,
                              std::string value, std::string effect) {
  v1::Toleration t;
  t.set_key(std::move(key));
  t.set_operator_(std::move(op));
  t.set_value(std::move(value));
  t.set_effect(std::move(effect));
  return t;
}

v1::NodeSelectorRequirement MakeRequirement(std::string key, std::string op,
                                            std::vector<std::string> values) {
  v1::NodeSelectorRequirement r;
  r.set_key(std::move(key));
  r.set_operator_(std::move(op));
  for (std::string& v : values) r.add_values(std::move(v));
  return r;
}

v1::LabelSelector MakeLabelSelector(const Labels& match_labels) {
  v1::LabelSelector selector;
  SetAll(*selector.mutable_match_labels(), match_labels);
  return selector;
}

google::protobuf::Value MakeIntOrString(const std::string& text) {
  google::protobuf::Value v;
  if (absl::EndsWith(text, "%")) {
    v.set_string_value(text);
  } else {
    v.set_number_value(std::stod(text));
  }
  return v;
}

v1::Node MakeNode(const NodeOptions& o) {
  v1::Node node;
  v1::ObjectMeta& meta = *node.mutable_metadata();
  meta.set_name(o.name);
  auto& labels = *meta.mutable_labels();
  SetKarpenterLabels(labels, o.nodepool, o.instance_type, o.zone,
                     o.capacity_type);
  if (o.initialized) {
    labels[std::string(well_known::kNodeInitializedLabelKey)] = "true";
  }
  SetAll(labels, o.labels);
  SetObjectMeta(o.annotations, o.finalizers, o.created, o.deleted, meta);
  v1::NodeSpec& spec = *node.mutable_spec();
  spec.set_provider_id(o.provider_id.value_or("aws:///" + o.name));
  for (const v1::Taint& t : o.taints) *spec.add_taints() = t;
  spec.set_unschedulable(o.unschedulable);
  v1::NodeStatus& status = *node.mutable_status();
  if (!o.ready.empty()) {
    *status.add_conditions() = MakeCondition(
        Condition("Ready", o.ready, o.ready_reason, o.ready_since));
  }
  for (const ConditionOptions& c : o.conditions) {
    *status.add_conditions() = MakeCondition(c);
  }
  for (auto* resources :
       {status.mutable_capacity(), status.mutable_allocatable()}) {
    SetIfNotEmpty(*resources, "cpu", o.cpu);
    SetIfNotEmpty(*resources, "memory", o.memory);
    SetIfNotEmpty(*resources, "pods", o.pods);
  }
  SetAll(*status.mutable_capacity(), o.capacity);
  SetAll(*status.mutable_allocatable(), o.allocatable);
  return node;
}

std::vector<ConditionOptions> LifecycleConditions(
    std::optional<absl::Time> since) {
  std::vector<ConditionOptions> out;
  for (const char* type : {"Launched", "Registered", "Initialized"}) {
    out.push_back(Condition(type, "True", "", since));
  }
  return out;
}

v1::NodeClaim MakeNodeClaim(const NodeClaimOptions& o) {
  v1::NodeClaim claim;
  v1::ObjectMeta& meta = *claim.mutable_metadata();
  meta.set_name(o.name.value_or(o.node_name.empty() ? std::string("claim")
                                                    : o.node_name + "-claim"));
  auto& labels = *meta.mutable_labels();
  SetKarpenterLabels(labels, o.nodepool, o.instance_type, o.zone,
                     o.capacity_type);
  SetAll(labels, o.labels);
  SetObjectMeta(o.annotations, o.finalizers, o.created, o.deleted, meta);
  v1::NodeClaimSpec& spec = *claim.mutable_spec();
  if (o.expire_after.has_value()) spec.set_expire_after(*o.expire_after);
  if (o.termination_grace_period.has_value()) {
    spec.set_termination_grace_period(*o.termination_grace_period);
  }
  for (const v1::NodeSelectorRequirement& r : o.requirements) {
    *spec.add_requirements() = r;
  }
  for (const v1::Taint& t : o.taints) *spec.add_taints() = t;
  v1::NodeClaimStatus& status = *claim.mutable_status();
  status.set_node_name(o.node_name);
  status.set_provider_id(o.provider_id.value_or(
      o.node_name.empty() ? std::string() : "aws:///" + o.node_name));
  status.set_image_id(o.image_id);
  AddLifecycleCondition(status.mutable_conditions(), "Launched", o.launched,
                        o.launched_since);
  AddLifecycleCondition(status.mutable_conditions(), "Registered", o.registered,
                        o.registered_since);
  AddLifecycleCondition(status.mutable_conditions(), "Initialized",
                        o.initialized, o.initialized_since);
  for (const ConditionOptions& c : o.conditions) {
    *status.add_conditions() = MakeCondition(c);
  }
  if (o.last_pod_event.has_value()) {
    *status.mutable_last_pod_event_time() = TimeToProto(*o.last_pod_event);
  }
  SetAll(*status.mutable_capacity(), o.capacity);
  SetAll(*status.mutable_allocatable(), o.capacity);
  return claim;
}

ManagedNode MakeManagedNode(const NodeOptions& node, NodeClaimOptions claim) {
  ManagedNode out;
  out.node = MakeNode(node);
  claim.node_name = node.name;
  claim.provider_id = out.node.spec().provider_id();
  out.node_claim = MakeNodeClaim(claim);
  return out;
}

v1::Pod MakePod(const PodOptions& o) {
  v1::Pod pod;
  v1::ObjectMeta& meta = *pod.mutable_metadata();
  meta.set_name(o.name);
  meta.set_namespace_(o.ns);
  meta.set_uid(o.uid.value_or("uid-" + o.name));
  SetIfNotEmpty(*meta.mutable_labels(), "app", o.app);
  SetAll(*meta.mutable_labels(), o.labels);
  SetObjectMeta(o.annotations, o.finalizers, o.created, o.deleted, meta);
  if (!o.owner.empty()) {
    v1::OwnerReference& ref = *meta.add_owner_references();
    const size_t slash = o.owner.rfind('/');
    if (slash == std::string::npos) {
      ref.set_api_version(OwnerApiVersion(o.owner));
      ref.set_kind(o.owner);
    } else {
      ref.set_api_version(o.owner.substr(0, slash));
      ref.set_kind(o.owner.substr(slash + 1));
    }
    const std::string name = !o.owner_name.empty() ? o.owner_name
                             : !o.app.empty()      ? o.app
                                                   : std::string("owner");
    ref.set_name(name);
    ref.set_uid(o.owner_uid.empty() ? "ctrl-" + name : o.owner_uid);
    if (o.owner_controller) ref.set_controller(true);
  }
  v1::PodSpec& spec = *pod.mutable_spec();
  spec.set_node_name(o.node);
  spec.set_priority_class_name(o.priority_class);
  if (o.priority.has_value()) spec.set_priority(*o.priority);
  if (o.grace.has_value()) spec.set_termination_grace_period_seconds(*o.grace);
  for (const v1::Toleration& t : o.tolerations) *spec.add_tolerations() = t;
  if (!o.cpu.empty() || !o.memory.empty() || !o.requests.empty()) {
    v1::Container& main = *spec.add_containers();
    main.set_name("main");
    auto& requests = *main.mutable_resources()->mutable_requests();
    SetIfNotEmpty(requests, "cpu", o.cpu);
    SetIfNotEmpty(requests, "memory", o.memory);
    SetAll(requests, o.requests);
  }
  for (const std::string& claim : o.pvcs) {
    v1::Volume& v = *spec.add_volumes();
    v.set_name("vol-" + claim);
    v.mutable_persistent_volume_claim()->set_claim_name(claim);
  }
  for (const std::string& name : o.ephemeral_volumes) {
    v1::Volume& v = *spec.add_volumes();
    v.set_name(name);
    v.mutable_ephemeral();
  }
  v1::PodStatus& status = *pod.mutable_status();
  status.set_phase(o.phase);
  if (!o.ready.empty()) {
    *status.add_conditions() =
        MakeCondition(Condition("Ready", o.ready, "", o.ready_since));
  }
  if (o.started.has_value()) {
    *status.mutable_start_time() = TimeToProto(*o.started);
  }
  return pod;
}

v1::PodDisruptionBudget MakePdb(const PdbOptions& o) {
  v1::PodDisruptionBudget pdb;
  pdb.mutable_metadata()->set_name(o.name);
  pdb.mutable_metadata()->set_namespace_(o.ns);
  v1::PodDisruptionBudgetSpec& spec = *pdb.mutable_spec();
  if (o.selector.has_value()) {
    *spec.mutable_selector() = MakeLabelSelector(*o.selector);
  }
  if (!o.min_available.empty()) {
    *spec.mutable_min_available() = MakeIntOrString(o.min_available);
  }
  if (!o.max_unavailable.empty()) {
    *spec.mutable_max_unavailable() = MakeIntOrString(o.max_unavailable);
  }
  spec.set_unhealthy_pod_eviction_policy(o.unhealthy_pod_eviction_policy);
  if (o.disruptions_allowed.has_value()) {
    v1::PodDisruptionBudgetStatus& status = *pdb.mutable_status();
    status.set_disruptions_allowed(*o.disruptions_allowed);
    status.set_observed_generation(1);
    status.set_expected_pods(o.expected_pods);
    status.set_current_healthy(o.current_healthy);
    status.set_desired_healthy(o.desired_healthy);
  }
  return pdb;
}

v1::Budget MakeBudget(const DisruptionBudgetOptions& o) {
  v1::Budget b;
  b.set_nodes(o.nodes);
  if (o.schedule.has_value()) b.set_schedule(*o.schedule);
  if (o.duration.has_value()) b.set_duration(*o.duration);
  for (const std::string& r : o.reasons) b.add_reasons(r);
  return b;
}

v1::NodePool MakeNodePool(const NodePoolOptions& o) {
  v1::NodePool pool;
  v1::ObjectMeta& meta = *pool.mutable_metadata();
  meta.set_name(o.name);
  SetAll(*meta.mutable_labels(), o.labels);
  SetAll(*meta.mutable_annotations(), o.annotations);
  if (!o.hash.empty()) {
    auto& annotations = *meta.mutable_annotations();
    annotations[std::string(well_known::kNodePoolHashAnnotationKey)] = o.hash;
    annotations[std::string(well_known::kNodePoolHashVersionAnnotationKey)] =
        std::string(drift::kNodePoolHashVersion);
  }
  v1::NodePoolSpec& spec = *pool.mutable_spec();
  v1::Disruption& disruption = *spec.mutable_disruption();
  disruption.set_consolidation_policy(o.consolidation_policy);
  if (o.consolidate_after.has_value()) {
    disruption.set_consolidate_after(*o.consolidate_after);
  }
  for (const DisruptionBudgetOptions& b : o.budgets) {
    *disruption.add_budgets() = MakeBudget(b);
  }
  SetAll(*spec.mutable_limits(), o.limits);
  if (o.weight.has_value()) spec.set_weight(*o.weight);
  if (o.replicas.has_value()) spec.set_replicas(*o.replicas);
  v1::NodeClaimTemplate& tmpl = *spec.mutable_template_();
  SetAll(*tmpl.mutable_metadata()->mutable_labels(), o.template_labels);
  SetAll(*tmpl.mutable_metadata()->mutable_annotations(),
         o.template_annotations);
  v1::NodeClaimSpec& claim = *tmpl.mutable_spec();
  if (!o.node_class.empty()) {
    claim.mutable_node_class_ref()->set_group("karpenter.k8s.aws");
    claim.mutable_node_class_ref()->set_kind("EC2NodeClass");
    claim.mutable_node_class_ref()->set_name(o.node_class);
  }
  for (const v1::NodeSelectorRequirement& r : o.requirements) {
    *claim.add_requirements() = r;
  }
  for (const v1::Taint& t : o.taints) *claim.add_taints() = t;
  for (const v1::Taint& t : o.startup_taints) *claim.add_startup_taints() = t;
  if (o.expire_after.has_value()) claim.set_expire_after(*o.expire_after);
  if (o.termination_grace_period.has_value()) {
    claim.set_termination_grace_period(*o.termination_grace_period);
  }
  return pool;
}

v1::VolumeAttachment MakeVolumeAttachment(const VolumeAttachmentOptions& o) {
  v1::VolumeAttachment va;
  va.mutable_metadata()->set_name(o.name);
  va.mutable_spec()->set_attacher(o.attacher);
  va.mutable_spec()->set_node_name(o.node);
  if (o.persistent_volume.has_value()) {
    va.mutable_spec()->mutable_source()->set_persistent_volume_name(
        *o.persistent_volume);
  }
  va.mutable_status()->set_attached(o.attached);
  return va;
}

v1::PersistentVolumeClaim MakePersistentVolumeClaim(
    const PersistentVolumeClaimOptions& o) {
  v1::PersistentVolumeClaim pvc;
  pvc.mutable_metadata()->set_name(o.name);
  pvc.mutable_metadata()->set_namespace_(o.ns);
  pvc.mutable_spec()->set_volume_name(o.volume_name);
  if (o.storage_class.has_value()) {
    pvc.mutable_spec()->set_storage_class_name(*o.storage_class);
  }
  return pvc;
}

v1::PersistentVolume MakePersistentVolume(const PersistentVolumeOptions& o) {
  v1::PersistentVolume pv;
  pv.mutable_metadata()->set_name(o.name);
  v1::PersistentVolumeSpec& spec = *pv.mutable_spec();
  SetIfNotEmpty(*spec.mutable_capacity(), "storage", o.storage);
  spec.add_access_modes("ReadWriteOnce");
  spec.set_storage_class_name(o.storage_class);
  spec.set_persistent_volume_reclaim_policy("Delete");
  if (!o.claim.empty()) {
    v1::ObjectReference& ref = *spec.mutable_claim_ref();
    ref.set_api_version("v1");
    ref.set_kind("PersistentVolumeClaim");
    ref.set_namespace_(o.claim_ns);
    ref.set_name(o.claim);
  }
  if (!o.csi_driver.empty()) {
    spec.mutable_csi()->set_driver(o.csi_driver);
    spec.mutable_csi()->set_volume_handle("vol-" + o.name);
  }
  if (!o.node_affinity.empty()) {
    v1::NodeSelectorTerm& term = *spec.mutable_node_affinity()
                                      ->mutable_required()
                                      ->add_node_selector_terms();
    for (const v1::NodeSelectorRequirement& r : o.node_affinity) {
      *term.add_match_expressions() = r;
    }
  }
  pv.mutable_status()->set_phase(o.claim.empty() ? "Available" : "Bound");
  return pv;
}

v1::StorageClass MakeStorageClass(const StorageClassOptions& o) {
  v1::StorageClass sc;
  v1::ObjectMeta& meta = *sc.mutable_metadata();
  meta.set_name(o.name);
  if (o.is_default) {
    (*meta.mutable_annotations())[std::string(
        well_known::kIsDefaultStorageClassAnnotation)] = "true";
  }
  if (o.created.has_value()) {
    *meta.mutable_creation_timestamp() = TimeToProto(*o.created);
  }
  sc.set_provisioner(o.provisioner);
  if (o.volume_binding_mode.has_value()) {
    sc.set_volume_binding_mode(*o.volume_binding_mode);
  }
  sc.set_reclaim_policy(o.reclaim_policy);
  if (!o.allowed_topologies.empty()) {
    v1::TopologySelectorTerm& term = *sc.add_allowed_topologies();
    for (const auto& [key, values] : o.allowed_topologies) {
      v1::TopologySelectorLabelRequirement& r =
          *term.add_match_label_expressions();
      r.set_key(key);
      for (const std::string& v : values) r.add_values(v);
    }
  }
  return sc;
}

v1::CSINode MakeCSINode(const CSINodeOptions& o) {
  v1::CSINode node;
  node.mutable_metadata()->set_name(o.name);
  if (!o.driver.empty()) {
    v1::CSINodeDriver& d = *node.mutable_spec()->add_drivers();
    d.set_name(o.driver);
    d.set_node_id(o.node_id.empty() ? "i-" + o.name : o.node_id);
    for (const std::string& key : o.topology_keys) d.add_topology_keys(key);
    if (o.allocatable.has_value()) {
      d.mutable_allocatable()->set_count(*o.allocatable);
    }
  }
  return node;
}

v1::DaemonSet MakeDaemonSet(const DaemonSetOptions& o) {
  v1::DaemonSet ds;
  ds.mutable_metadata()->set_name(o.name);
  ds.mutable_metadata()->set_namespace_(o.ns);
  const Labels labels = o.labels.empty() ? Labels{{"app", o.name}} : o.labels;
  SetAll(*ds.mutable_spec()->mutable_selector()->mutable_match_labels(),
         labels);
  v1::PodTemplateSpec& t = *ds.mutable_spec()->mutable_template_();
  SetAll(*t.mutable_metadata()->mutable_labels(), labels);
  v1::PodSpec& spec = *t.mutable_spec();
  spec.set_priority_class_name(o.priority_class);
  for (const v1::Toleration& tol : o.tolerations) *spec.add_tolerations() = tol;
  if (!o.cpu.empty() || !o.memory.empty() || !o.requests.empty()) {
    v1::Container& main = *spec.add_containers();
    main.set_name("main");
    auto& requests = *main.mutable_resources()->mutable_requests();
    SetIfNotEmpty(requests, "cpu", o.cpu);
    SetIfNotEmpty(requests, "memory", o.memory);
    SetAll(requests, o.requests);
  }
  return ds;
}

InstanceType MakeInstanceType(const InstanceTypeOptions& o) {
  InstanceType type;
  type.name = o.name;
  SetIfNotEmpty(type.capacity, "cpu", o.cpu);
  SetIfNotEmpty(type.capacity, "memory", o.memory);
  SetIfNotEmpty(type.capacity, "pods", o.pods);
  SetAll(type.capacity, o.capacity);
  for (const std::string& zone : o.zones) {
    if (o.on_demand_price.has_value()) {
      type.offerings.push_back({zone, "on-demand", *o.on_demand_price, true});
    }
    if (o.spot_price.has_value()) {
      type.offerings.push_back({zone, "spot", *o.spot_price, true});
    }
  }
  for (const Offering& offering : o.offerings) {
    type.offerings.push_back(offering);
  }
  type.labels = o.labels;
  return type;
}

InstanceTypeCatalog MakeCatalog(const std::vector<std::string>& pools,
                                const std::vector<InstanceType>& types) {
  InstanceTypeCatalog catalog;
  for (const std::string& pool : pools) catalog[pool] = types;
  return catalog;
}

ClusterBuilder::ClusterBuilder(snapshot::ObjectSet objects)
    : objects_(std::move(objects)) {}

ClusterBuilder& ClusterBuilder::AddNode(const NodeOptions& options) {
  return Add(MakeNode(options));
}

ClusterBuilder& ClusterBuilder::AddNodeClaim(const NodeClaimOptions& options) {
  return Add(MakeNodeClaim(options));
}

ClusterBuilder& ClusterBuilder::AddManagedNode(const NodeOptions& node,
                                               const NodeClaimOptions& claim) {
  ManagedNode m = MakeManagedNode(node, claim);
  Add(std::move(m.node));
  return Add(std::move(m.node_claim));
}

ClusterBuilder& ClusterBuilder::AddPod(const PodOptions& options) {
  return Add(MakePod(options));
}

ClusterBuilder& ClusterBuilder::AddPdb(const PdbOptions& options) {
  return Add(MakePdb(options));
}

ClusterBuilder& ClusterBuilder::AddNodePool(const NodePoolOptions& options) {
  return Add(MakeNodePool(options));
}

ClusterBuilder& ClusterBuilder::AddVolumeAttachment(
    const VolumeAttachmentOptions& options) {
  return Add(MakeVolumeAttachment(options));
}

ClusterBuilder& ClusterBuilder::AddPersistentVolumeClaim(
    const PersistentVolumeClaimOptions& options) {
  return Add(MakePersistentVolumeClaim(options));
}

ClusterBuilder& ClusterBuilder::AddPersistentVolume(
    const PersistentVolumeOptions& options) {
  return Add(MakePersistentVolume(options));
}

ClusterBuilder& ClusterBuilder::AddStorageClass(
    const StorageClassOptions& options) {
  return Add(MakeStorageClass(options));
}

ClusterBuilder& ClusterBuilder::AddCSINode(const CSINodeOptions& options) {
  return Add(MakeCSINode(options));
}

ClusterBuilder& ClusterBuilder::AddDaemonSet(const DaemonSetOptions& options) {
  return Add(MakeDaemonSet(options));
}

snapshot::ObjectSet ClusterBuilder::TakeObjects() {
  snapshot::ObjectSet out = std::move(objects_);
  objects_ = snapshot::ObjectSet();
  return out;
}

absl::StatusOr<snapshot::Snapshot> ClusterBuilder::Build() const& {
  return snapshot::Snapshot::Build(objects_);
}

absl::StatusOr<snapshot::Snapshot> ClusterBuilder::Build() && {
  return snapshot::Snapshot::Build(TakeObjects());
}

}  // namespace karpenter::testing
