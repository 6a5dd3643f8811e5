// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Builders: the Kubernetes and Karpenter objects a test of the SDK needs
// (Node, Pod, NodeClaim, NodePool, PodDisruptionBudget, VolumeAttachment,
// PersistentVolumeClaim, PersistentVolume, StorageClass, CSINode, DaemonSet,
// instance types and catalogues), each made from an
// option struct whose defaults describe the common case, plus
// `ClusterBuilder`, which gathers them into a snapshot::ObjectSet and builds
// a Snapshot. They are what the SDK's own tests use, installed so that hosts
// writing their own tests get the same objects.
//
// The option structs are aggregates meant for designated initializers:
//
//   const v1::Node node = MakeNode({.name = "n1", .cpu = "4"});
//   const v1::Pod pod = MakePod({.name = "web-0", .node = "n1",
//                                .owner = "ReplicaSet", .cpu = "500m"});
//
// Designators must follow the declaration order of the fields, so each
// struct lists its fields in the order a reader looks for them (identity,
// labels, lifecycle, spec, status). Every field has a default member
// initializer, so GCC's -Wmissing-field-initializers stays quiet about the
// fields an initializer leaves out.
//
// Defaults: a Node is a Ready, initialized node of the NodePool "default"
// with providerID "aws:///<name>"; its NodeClaim carries the same NodePool
// label and providerID, and no status condition unless asked (Launched,
// Registered, Initialized are one field each); a Pod is a Running, Ready pod
// of app "web" in namespace "default" on node "node-a". No timestamp is set
// unless asked for: times are absolute (there is no hidden "now"); kTestEpoch
// is the instant most tests take as theirs. Every field's comment gives its
// default.
//
// Label, annotation, taint and finalizer keys are written as Kubernetes and
// Karpenter spell them (e.g. "karpenter.sh/nodepool").
//
// Thread-safety: every function is pure (it reads only its arguments); a
// ClusterBuilder is a value with no synchronisation, to be used from one
// thread at a time.

#ifndef KARPENTER_TESTING_BUILDERS_H_
#define KARPENTER_TESTING_BUILDERS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "google/protobuf/repeated_ptr_field.h"
#include "google/protobuf/timestamp.pb.h"
#include "karpenter/cloud_provider.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/core.pb.h"
#include "karpenter/v1/karpenter.pb.h"
#include "karpenter/v1/meta.pb.h"
#include "karpenter/v1/storage.pb.h"

namespace karpenter::testing {

// 2024-01-01T00:00:00Z, the reference instant of the SDK's tests.
inline constexpr absl::Time kTestEpoch = absl::FromUnixSeconds(1704067200);

// Label (or selector, or annotation) key -> value, ordered.
using Labels = std::map<std::string, std::string>;

// --- Timestamps, conditions and small parts. --------------------------------

struct ConditionOptions {
  // `type`; required (no default).
  std::string type = {};
  // `status`; default "True".
  std::string status = "True";
  // `reason` and `message`; default empty.
  std::string reason = {};
  std::string message = {};
  // `lastTransitionTime`; default unset.
  std::optional<absl::Time> since = {};
};

// A status condition with exactly the given fields.
v1::Condition MakeCondition(const ConditionOptions& options);

// Replaces the first condition of `conditions` whose type is
// `options.type` with MakeCondition(options), or appends it if there is
// none. `conditions` must not be null.
void SetCondition(google::protobuf::RepeatedPtrField<v1::Condition>* conditions,
                  const ConditionOptions& options);

// A taint; empty arguments leave the field empty.
v1::Taint MakeTaint(std::string key, std::string value, std::string effect);

// `karpenter.sh/disrupted:NoSchedule`, the taint Karpenter puts on a node it
// disrupts.
v1::Taint DisruptedTaint();

// A toleration; empty arguments leave the field empty (operator "" means
// Equal to Kubernetes).
v1::Toleration MakeToleration(std::string key, std::string op,
                              std::string value = "", std::string effect = "");

// A node selector requirement `key op values`, e.g.
// MakeRequirement("karpenter.sh/capacity-type", "In", {"spot"}).
v1::NodeSelectorRequirement MakeRequirement(std::string key, std::string op,
                                            std::vector<std::string> values);

// A label selector with exactly `match_labels` (empty: selects everything).
v1::LabelSelector MakeLabelSelector(const Labels& match_labels);

// An IntOrString value from its text: "50%" is a string, anything else is
// parsed as a number (std::stod; it must be one).
google::protobuf::Value MakeIntOrString(const std::string& text);

// --- Node. ------------------------------------------------------------------

struct NodeOptions {
  // metadata.name; default "node-a".
  std::string name = "node-a";
  // spec.providerID; default (nullopt) "aws:///<name>"; "" leaves it empty.
  std::optional<std::string> provider_id = {};
  // Label karpenter.sh/nodepool; default "default"; "" for no label (a
  // node Karpenter does not manage).
  std::string nodepool = "default";
  // Label karpenter.sh/initialized=true; default true.
  bool initialized = true;
  // Labels node.kubernetes.io/instance-type, topology.kubernetes.io/zone and
  // karpenter.sh/capacity-type, e.g. "m5.large", "us-west-2a", "on-demand";
  // default "" (no label).
  std::string instance_type = {};
  std::string zone = {};
  std::string capacity_type = {};
  // More labels, set after (and so overriding) the ones above; default none.
  Labels labels = {};
  // metadata.annotations; default none.
  Labels annotations = {};
  // spec.taints; default none.
  std::vector<v1::Taint> taints = {};
  // metadata.finalizers; default none (Karpenter's nodes carry
  // "karpenter.sh/termination").
  std::vector<std::string> finalizers = {};
  // metadata.creationTimestamp and deletionTimestamp; default unset.
  std::optional<absl::Time> created = {};
  std::optional<absl::Time> deleted = {};
  // spec.unschedulable (cordoned); default false.
  bool unschedulable = false;
  // Status of the Ready condition; default "True"; "" for no Ready
  // condition. Its lastTransitionTime (default unset) and reason (default
  // empty).
  std::string ready = "True";
  std::optional<absl::Time> ready_since = {};
  std::string ready_reason = {};
  // More status conditions, after Ready; default none.
  std::vector<ConditionOptions> conditions = {};
  // status.capacity and status.allocatable of cpu, memory and pods (the
  // same value in both); default "" (absent).
  std::string cpu = {};
  std::string memory = {};
  std::string pods = {};
  // More status.capacity / status.allocatable entries, set after (and so
  // overriding) the three above; default none.
  Labels capacity = {};
  Labels allocatable = {};
};

// A v1 Node as `options` describe it (apiVersion and kind are left empty,
// as the loaders leave them).
v1::Node MakeNode(const NodeOptions& options = {});

// --- NodeClaim. -------------------------------------------------------------

struct NodeClaimOptions {
  // metadata.name; default (nullopt) "<node_name>-claim", or "claim" when
  // node_name is empty.
  std::optional<std::string> name = {};
  // status.nodeName; default "node-a"; "" for a NodeClaim not yet
  // registered to a Node.
  std::string node_name = "node-a";
  // status.providerID; default (nullopt) "aws:///<node_name>" (the default
  // providerID of that Node), or empty when node_name is empty; "" leaves it
  // empty.
  std::optional<std::string> provider_id = {};
  // Labels karpenter.sh/nodepool (default "default"),
  // node.kubernetes.io/instance-type, topology.kubernetes.io/zone and
  // karpenter.sh/capacity-type (default "" each); "" for no label.
  std::string nodepool = "default";
  std::string instance_type = {};
  std::string zone = {};
  std::string capacity_type = {};
  // More labels, set after (and so overriding) the ones above; default none.
  Labels labels = {};
  // metadata.annotations; default none.
  Labels annotations = {};
  // metadata.finalizers; default none.
  std::vector<std::string> finalizers = {};
  // metadata.creationTimestamp and deletionTimestamp; default unset.
  std::optional<absl::Time> created = {};
  std::optional<absl::Time> deleted = {};
  // spec.expireAfter and spec.terminationGracePeriod (Go durations, or
  // "Never" for expireAfter); default unset.
  std::optional<std::string> expire_after = {};
  std::optional<std::string> termination_grace_period = {};
  // spec.requirements and spec.taints; default none.
  std::vector<v1::NodeSelectorRequirement> requirements = {};
  std::vector<v1::Taint> taints = {};
  // status.imageID; default empty.
  std::string image_id = {};
  // Status of the Launched, Registered and Initialized conditions ("True",
  // "False", "Unknown"); default "" (no such condition). Each with its
  // lastTransitionTime (default unset).
  std::string launched = {};
  std::optional<absl::Time> launched_since = {};
  std::string registered = {};
  std::optional<absl::Time> registered_since = {};
  std::string initialized = {};
  std::optional<absl::Time> initialized_since = {};
  // More status conditions (Drifted, InstanceTerminating, Drained, ...),
  // after those three; default none.
  std::vector<ConditionOptions> conditions = {};
  // status.lastPodEventTime; default unset.
  std::optional<absl::Time> last_pod_event = {};
  // status.capacity and status.allocatable (both get every entry); default
  // none.
  Labels capacity = {};
};

// Launched, Registered and Initialized, each True since `since` (unset by
// default): the conditions of a NodeClaim whose Node has joined, for
// NodeClaimOptions::conditions.
std::vector<ConditionOptions> LifecycleConditions(
    std::optional<absl::Time> since = {});

// A v1 NodeClaim as `options` describe it.
v1::NodeClaim MakeNodeClaim(const NodeClaimOptions& options = {});

// A Node and the NodeClaim that launched it.
struct ManagedNode {
  v1::Node node = {};
  v1::NodeClaim node_claim = {};
};

// MakeNode(node) and MakeNodeClaim(claim), tied together: the NodeClaim's
// status.nodeName is the Node's name and its status.providerID the Node's
// spec.providerID, whatever `claim` says about them. Every other field of
// the NodeClaim (name, labels, conditions) comes from `claim` as given.
ManagedNode MakeManagedNode(const NodeOptions& node = {},
                            NodeClaimOptions claim = {});

// --- Pod. -------------------------------------------------------------------

struct PodOptions {
  // metadata.name and metadata.namespace; defaults "p" and "default".
  std::string name = "p";
  std::string ns = "default";
  // metadata.uid; default (nullopt) "uid-<name>"; "" leaves it empty.
  std::optional<std::string> uid = {};
  // Label app=<app>; default "web"; "" for no app label.
  std::string app = "web";
  // spec.nodeName; default "node-a"; "" for an unscheduled pod.
  std::string node = "node-a";
  // status.phase; default "Running".
  std::string phase = "Running";
  // The controller ownerReference: "" (default) for a bare pod; a kind
  // ("ReplicaSet", "DaemonSet", "StatefulSet", "Job", "Node" for a mirror
  // pod) with its usual apiVersion (apps/v1, batch/v1, v1); or
  // "<apiVersion>/<Kind>", e.g. "apps/v1/DaemonSet", split at the last '/'.
  std::string owner = {};
  // The owner's name; default "" meaning the app, or "owner" without one.
  std::string owner_name = {};
  // The owner's uid; default "" meaning "ctrl-<owner name>".
  std::string owner_uid = {};
  // ownerReference.controller; default true (false leaves it unset, as
  // for an owner that is not the controller).
  bool owner_controller = true;
  // spec.priorityClassName (default empty) and spec.priority (default
  // unset).
  std::string priority_class = {};
  std::optional<int32_t> priority = {};
  // spec.terminationGracePeriodSeconds; default unset (Kubernetes: 30).
  std::optional<int64_t> grace = {};
  // More labels, set after (and so overriding) app; default none.
  Labels labels = {};
  // metadata.annotations; default none.
  Labels annotations = {};
  // metadata.creationTimestamp and deletionTimestamp, and status.startTime;
  // default unset.
  std::optional<absl::Time> created = {};
  std::optional<absl::Time> deleted = {};
  std::optional<absl::Time> started = {};
  // metadata.finalizers; default none.
  std::vector<std::string> finalizers = {};
  // spec.tolerations; default none.
  std::vector<v1::Toleration> tolerations = {};
  // Requests of the one container "main" (cpu, memory, then `requests`,
  // which override); default none, and no container at all when all are
  // empty.
  std::string cpu = {};
  std::string memory = {};
  Labels requests = {};
  // Volumes: a persistentVolumeClaim volume "vol-<claim>" per claim name,
  // then a generic ephemeral volume per name; default none.
  std::vector<std::string> pvcs = {};
  std::vector<std::string> ephemeral_volumes = {};
  // Status of the Ready condition; default "True"; "" for none. Its
  // lastTransitionTime; default unset.
  std::string ready = "True";
  std::optional<absl::Time> ready_since = {};
};

// A v1 Pod as `options` describe it.
v1::Pod MakePod(const PodOptions& options = {});

// --- PodDisruptionBudget. ---------------------------------------------------

struct PdbOptions {
  // metadata.name and metadata.namespace; defaults "pdb" and "default".
  std::string name = "pdb";
  std::string ns = "default";
  // spec.selector.matchLabels; default app=web. nullopt: no selector at all
  // (a nil selector, which selects nothing); an empty map selects every pod
  // of the namespace.
  std::optional<Labels> selector = Labels{{"app", "web"}};
  // spec.minAvailable and spec.maxUnavailable as IntOrString text ("2",
  // "50%"); default "" (unset).
  std::string min_available = {};
  std::string max_unavailable = {};
  // spec.unhealthyPodEvictionPolicy ("IfHealthyBudget", "AlwaysAllow");
  // default empty.
  std::string unhealthy_pod_eviction_policy = {};
  // status.disruptionsAllowed; default unset (no status). When set, the
  // status also gets observedGeneration 1 and the three counts below.
  std::optional<int32_t> disruptions_allowed = {};
  int32_t expected_pods = 0;
  int32_t current_healthy = 0;
  int32_t desired_healthy = 0;
};

// A policy/v1 PodDisruptionBudget as `options` describe it.
v1::PodDisruptionBudget MakePdb(const PdbOptions& options = {});

// --- NodePool. --------------------------------------------------------------

struct DisruptionBudgetOptions {
  // `nodes` ("10%", "0"); default "10%", Karpenter's default budget.
  std::string nodes = "10%";
  // `schedule` (cron) and `duration`; default unset.
  std::optional<std::string> schedule = {};
  std::optional<std::string> duration = {};
  // `reasons` (Underutilized, Empty, Drifted); default none (all reasons).
  std::vector<std::string> reasons = {};
};

// One entry of spec.disruption.budgets.
v1::Budget MakeBudget(const DisruptionBudgetOptions& options = {});

struct NodePoolOptions {
  // metadata.name; default "default".
  std::string name = "default";
  // metadata.labels and metadata.annotations; default none.
  Labels labels = {};
  Labels annotations = {};
  // Annotations karpenter.sh/nodepool-hash=<hash> and
  // karpenter.sh/nodepool-hash-version=v3; default "" (neither).
  std::string hash = {};
  // spec.disruption.consolidationPolicy; default empty (Karpenter:
  // WhenEmptyOrUnderutilized).
  std::string consolidation_policy = {};
  // spec.disruption.consolidateAfter; default unset (Karpenter: 0s).
  std::optional<std::string> consolidate_after = {};
  // spec.disruption.budgets; default none (Karpenter: one of 10%).
  std::vector<DisruptionBudgetOptions> budgets = {};
  // spec.limits; default none.
  Labels limits = {};
  // spec.weight and spec.replicas; default unset.
  std::optional<int32_t> weight = {};
  std::optional<int64_t> replicas = {};
  // spec.template.metadata.labels and annotations; default none.
  Labels template_labels = {};
  Labels template_annotations = {};
  // spec.template.spec.nodeClassRef {group: karpenter.k8s.aws, kind:
  // EC2NodeClass, name: <node_class>}; default "" (no nodeClassRef).
  std::string node_class = {};
  // spec.template.spec.requirements, taints and startupTaints; default
  // none.
  std::vector<v1::NodeSelectorRequirement> requirements = {};
  std::vector<v1::Taint> taints = {};
  std::vector<v1::Taint> startup_taints = {};
  // spec.template.spec.expireAfter and terminationGracePeriod; default
  // unset.
  std::optional<std::string> expire_after = {};
  std::optional<std::string> termination_grace_period = {};
};

// A karpenter.sh/v1 NodePool as `options` describe it.
v1::NodePool MakeNodePool(const NodePoolOptions& options = {});

// --- Volumes. ---------------------------------------------------------------

struct VolumeAttachmentOptions {
  // metadata.name; default "va".
  std::string name = "va";
  // spec.nodeName; default "node-a".
  std::string node = "node-a";
  // spec.source.persistentVolumeName; default unset (an inline volume).
  std::optional<std::string> persistent_volume = {};
  // spec.attacher; default "ebs.csi.aws.com".
  std::string attacher = "ebs.csi.aws.com";
  // status.attached; default true.
  bool attached = true;
};

// A storage.k8s.io/v1 VolumeAttachment as `options` describe it.
v1::VolumeAttachment MakeVolumeAttachment(
    const VolumeAttachmentOptions& options = {});

struct PersistentVolumeClaimOptions {
  // metadata.name and metadata.namespace; defaults "data" and "default".
  std::string name = "data";
  std::string ns = "default";
  // spec.volumeName (the bound PersistentVolume); default "" (unbound).
  std::string volume_name = {};
  // spec.storageClassName; default unset (the cluster's default class); ""
  // asks for no class.
  std::optional<std::string> storage_class = {};
};

// A v1 PersistentVolumeClaim as `options` describe it.
v1::PersistentVolumeClaim MakePersistentVolumeClaim(
    const PersistentVolumeClaimOptions& options = {});

struct PersistentVolumeOptions {
  // metadata.name; default "pv".
  std::string name = "pv";
  // spec.capacity.storage; default "10Gi"; "" leaves capacity out.
  std::string storage = "10Gi";
  // spec.storageClassName; default "gp3".
  std::string storage_class = "gp3";
  // spec.claimRef: the bound claim's name and namespace; default "" (no
  // claimRef: an Available volume) and "default".
  std::string claim = {};
  std::string claim_ns = "default";
  // spec.csi.driver, with volumeHandle "vol-<name>"; default
  // "ebs.csi.aws.com"; "" for no CSI source.
  std::string csi_driver = "ebs.csi.aws.com";
  // spec.nodeAffinity.required: one term ANDing these (see
  // MakeRequirement); default none, and no nodeAffinity at all.
  std::vector<v1::NodeSelectorRequirement> node_affinity = {};
};

// A v1 PersistentVolume as `options` describe it; status.phase is "Bound"
// with a claim, "Available" without.
v1::PersistentVolume MakePersistentVolume(
    const PersistentVolumeOptions& options = {});

struct StorageClassOptions {
  // metadata.name; default "gp3".
  std::string name = "gp3";
  // provisioner; default "ebs.csi.aws.com".
  std::string provisioner = "ebs.csi.aws.com";
  // volumeBindingMode; default "WaitForFirstConsumer"; nullopt leaves it
  // unset (Kubernetes reads that as "Immediate").
  std::optional<std::string> volume_binding_mode = "WaitForFirstConsumer";
  // reclaimPolicy; default "Delete".
  std::string reclaim_policy = "Delete";
  // The annotation storageclass.kubernetes.io/is-default-class: "true";
  // default false (no annotation).
  bool is_default = false;
  // metadata.creationTimestamp; default unset.
  std::optional<absl::Time> created = {};
  // allowedTopologies: one term with one expression per key, in key order;
  // default none.
  std::map<std::string, std::vector<std::string>> allowed_topologies = {};
};

// A storage.k8s.io/v1 StorageClass as `options` describe it.
v1::StorageClass MakeStorageClass(const StorageClassOptions& options = {});

struct CSINodeOptions {
  // metadata.name, its Node's name; default "node-a".
  std::string name = "node-a";
  // The one driver, spec.drivers[0]: its name (default "ebs.csi.aws.com";
  // "" for no drivers at all), nodeID (default "" meaning "i-<name>"),
  // allocatable.count (default 25, the EBS limit of most Nitro instances;
  // nullopt for no allocatable, no limit) and topologyKeys (default
  // topology.ebs.csi.aws.com/zone).
  std::string driver = "ebs.csi.aws.com";
  std::string node_id = {};
  std::optional<int32_t> allocatable = 25;
  std::vector<std::string> topology_keys = {"topology.ebs.csi.aws.com/zone"};
};

// A storage.k8s.io/v1 CSINode as `options` describe it.
v1::CSINode MakeCSINode(const CSINodeOptions& options = {});

struct DaemonSetOptions {
  // metadata.name and metadata.namespace; defaults "agent" and
  // "kube-system".
  std::string name = "agent";
  std::string ns = "kube-system";
  // The pod template's labels, which spec.selector.matchLabels repeats;
  // default (empty) app=<name>.
  Labels labels = {};
  // Requests of the template's one container "main" (cpu, memory, then
  // `requests`, which override); default none, and no container at all
  // when all are empty.
  std::string cpu = {};
  std::string memory = {};
  Labels requests = {};
  // The template's spec.tolerations and spec.priorityClassName; default
  // none.
  std::vector<v1::Toleration> tolerations = {};
  std::string priority_class = {};
};

// An apps/v1 DaemonSet as `options` describe it.
v1::DaemonSet MakeDaemonSet(const DaemonSetOptions& options = {});

// --- Instance types. --------------------------------------------------------

struct InstanceTypeOptions {
  // The name; default "m5.large".
  std::string name = "m5.large";
  // Capacity of cpu, memory and pods; defaults "2", "8Gi", "29" (an
  // m5.large); "" leaves the resource out.
  std::string cpu = "2";
  std::string memory = "8Gi";
  std::string pods = "29";
  // More capacity, set after (and so overriding) the three above; default
  // none.
  Labels capacity = {};
  // One on-demand and (when spot_price is set) one spot offering, both
  // available, per zone; defaults: zone us-west-2a, on-demand at 0.096
  // (m5.large's us-west-2 price), no spot. nullopt on_demand_price: no
  // on-demand offerings.
  std::vector<std::string> zones = {"us-west-2a"};
  std::optional<double> on_demand_price = 0.096;
  std::optional<double> spot_price = {};
  // More offerings, after those; default none.
  std::vector<Offering> offerings = {};
  // InstanceType::labels; default none.
  Labels labels = {};
};

// An InstanceType as `options` describe it: offerings per zone, on-demand
// before spot.
InstanceType MakeInstanceType(const InstanceTypeOptions& options = {});

// A catalogue offering every one of `types` to every NodePool of `pools`.
InstanceTypeCatalog MakeCatalog(const std::vector<std::string>& pools,
                                const std::vector<InstanceType>& types);

// --- Cluster. ---------------------------------------------------------------

// Gathers objects into a snapshot::ObjectSet, in the order added, and
// builds a Snapshot of them:
//
//   ClusterBuilder cluster;
//   cluster.AddNodePool({}).AddManagedNode({.name = "n1"}).AddPod(
//       {.node = "n1"});
//   absl::StatusOr<snapshot::Snapshot> s = std::move(cluster).Build();
class ClusterBuilder {
 public:
  ClusterBuilder() = default;
  // Starts from `objects` (e.g. loaded from YAML).
  explicit ClusterBuilder(snapshot::ObjectSet objects);

  // Each adds MakeX(options) and returns *this.
  ClusterBuilder& AddNode(const NodeOptions& options = {});
  ClusterBuilder& AddNodeClaim(const NodeClaimOptions& options = {});
  // The Node and NodeClaim of MakeManagedNode.
  ClusterBuilder& AddManagedNode(const NodeOptions& node = {},
                                 const NodeClaimOptions& claim = {});
  ClusterBuilder& AddPod(const PodOptions& options = {});
  ClusterBuilder& AddPdb(const PdbOptions& options = {});
  ClusterBuilder& AddNodePool(const NodePoolOptions& options = {});
  ClusterBuilder& AddVolumeAttachment(
      const VolumeAttachmentOptions& options = {});
  ClusterBuilder& AddPersistentVolumeClaim(
      const PersistentVolumeClaimOptions& options = {});
  ClusterBuilder& AddPersistentVolume(
      const PersistentVolumeOptions& options = {});
  ClusterBuilder& AddStorageClass(const StorageClassOptions& options = {});
  ClusterBuilder& AddCSINode(const CSINodeOptions& options = {});
  ClusterBuilder& AddDaemonSet(const DaemonSetOptions& options = {});
  // Adds `object`: a v1::Node, NodeClaim, Pod, PodDisruptionBudget,
  // NodePool, VolumeAttachment, PersistentVolumeClaim, PersistentVolume,
  // StorageClass, CSINode or DaemonSet.
  template <typename Object>
  ClusterBuilder& Add(Object object) {
    ListOf<Object>().push_back(std::move(object));
    return *this;
  }

  // The objects so far, to inspect or edit in place.
  snapshot::ObjectSet& objects() { return objects_; }
  const snapshot::ObjectSet& objects() const { return objects_; }

  // Hands the objects over (e.g. to FakeCluster::Create); the builder is
  // left empty.
  snapshot::ObjectSet TakeObjects();

  // snapshot::Snapshot::Build over a copy of the objects; errors as Build
  // (e.g. InvalidArgument for two Nodes of one name).
  absl::StatusOr<snapshot::Snapshot> Build() const&;
  // The same, moving the objects (the builder is left empty).
  absl::StatusOr<snapshot::Snapshot> Build() &&;

 private:
  // The list of objects_ that holds objects of type T.
  template <typename T>
  std::vector<T>& ListOf() {
    if constexpr (std::is_same_v<T, v1::Node>) {
      return objects_.nodes;
    } else if constexpr (std::is_same_v<T, v1::NodeClaim>) {
      return objects_.node_claims;
    } else if constexpr (std::is_same_v<T, v1::Pod>) {
      return objects_.pods;
    } else if constexpr (std::is_same_v<T, v1::PodDisruptionBudget>) {
      return objects_.pdbs;
    } else if constexpr (std::is_same_v<T, v1::NodePool>) {
      return objects_.node_pools;
    } else if constexpr (std::is_same_v<T, v1::VolumeAttachment>) {
      return objects_.volume_attachments;
    } else if constexpr (std::is_same_v<T, v1::PersistentVolume>) {
      return objects_.persistent_volumes;
    } else if constexpr (std::is_same_v<T, v1::StorageClass>) {
      return objects_.storage_classes;
    } else if constexpr (std::is_same_v<T, v1::CSINode>) {
      return objects_.csi_nodes;
    } else if constexpr (std::is_same_v<T, v1::DaemonSet>) {
      return objects_.daemon_sets;
    } else {
      static_assert(std::is_same_v<T, v1::PersistentVolumeClaim>,
                    "ClusterBuilder::Add takes the kinds an ObjectSet holds");
      return objects_.persistent_volume_claims;
    }
  }

  snapshot::ObjectSet objects_;
};

}  // namespace karpenter::testing

#endif  // KARPENTER_TESTING_BUILDERS_H_
