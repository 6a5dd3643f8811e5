// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/testing/synthetic_cluster.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <utility>

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "karpenter/time_util.h"
#include "karpenter/well_known.h"

namespace karpenter::testing {
namespace {

constexpr int kMaxCount = 10'000'000;
// Enough apps that the default PDB count gives each PDB its own app.
constexpr int kAppsPerNamespace = 60;
constexpr std::array<const char*, 3> kZones = {"us-west-2a", "us-west-2b",
                                               "us-west-2c"};
constexpr std::array<const char*, 4> kInstanceTypes = {
    "m5.large", "m5.xlarge", "c5.2xlarge", "r5.xlarge"};
constexpr char kEbsDriver[] = "ebs.csi.aws.com";
constexpr char kStorageClass[] = "gp3";

// Whole seconds, as the objects a cluster dump holds (metav1.Time).
google::protobuf::Timestamp ToProto(absl::Time t) {
  return TimeToProto(TruncateToSecond(t));
}

// Resolves the -1 defaults and checks every count.
absl::StatusOr<SyntheticClusterOptions> Resolve(SyntheticClusterOptions o) {
  if (o.pdbs == -1) o.pdbs = o.nodes / 2;
  if (o.node_pools == -1) o.node_pools = std::max(1, o.nodes / 20);
  if (o.namespaces == -1) o.namespaces = std::max(1, o.nodes / 100);
  if (o.persistent_volumes == -1) o.persistent_volumes = o.nodes / 10;
  const std::array<std::pair<const char*, int>, 7> counts = {{
      {"nodes", o.nodes},
      {"app_pods_per_node", o.app_pods_per_node},
      {"pdbs", o.pdbs},
      {"node_pools", o.node_pools},
      {"namespaces", o.namespaces},
      {"pending_pods", o.pending_pods},
      {"persistent_volumes", o.persistent_volumes},
  }};
  for (const auto& [field, value] : counts) {
    if (value < 0 || value > kMaxCount) {
      return absl::InvalidArgumentError(
          absl::StrCat("SyntheticClusterOptions.", field, ": ", value,
                       " is outside [0, ", kMaxCount, "]"));
    }
  }
  const std::array<std::pair<const char*, int>, 3> percents = {{
      {"zone_spread_percent", o.zone_spread_percent},
      {"hostname_anti_affinity_percent", o.hostname_anti_affinity_percent},
      {"host_port_percent", o.host_port_percent},
  }};
  for (const auto& [field, value] : percents) {
    if (value < 0 || value > 100) {
      return absl::InvalidArgumentError(absl::StrCat("SyntheticClusterOptions.",
                                                     field, ": ", value,
                                                     " is outside [0, 100]"));
    }
  }
  if (o.node_pools == 0 && o.nodes > 0) {
    return absl::InvalidArgumentError(
        "SyntheticClusterOptions.node_pools: 0 NodePools cannot own nodes");
  }
  if (o.namespaces == 0 && (o.pdbs > 0 || o.app_pods_per_node > 0 ||
                            o.pending_pods > 0 || o.persistent_volumes > 0)) {
    return absl::InvalidArgumentError(
        "SyntheticClusterOptions.namespaces: 0 namespaces cannot hold pods, "
        "PDBs or claims");
  }
  return o;
}

// Whether Deployment `deployment` is among the `percent` share drawn with
// `salt`: splitmix64 of the id and the salt, so that each constraint draws
// independently of the others.
bool Picked(int64_t deployment, uint64_t salt, int percent) {
  if (percent <= 0) return false;
  uint64_t x = static_cast<uint64_t>(deployment) + salt * 0x9e3779b97f4a7c15u;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
  x ^= x >> 31;
  return static_cast<int>(x % 100) < percent;
}

// The constraints of Deployment `deployment` (app label `app`) on `spec`.
void AddConstraints(int64_t deployment, const std::string& app,
                    const SyntheticClusterOptions& o, v1::PodSpec& spec) {
  if (Picked(deployment, 1, o.zone_spread_percent)) {
    v1::TopologySpreadConstraint& c = *spec.add_topology_spread_constraints();
    c.set_max_skew(1);
    c.set_topology_key(std::string(well_known::kLabelTopologyZone));
    c.set_when_unsatisfiable("DoNotSchedule");
    (*c.mutable_label_selector()->mutable_match_labels())["app"] = app;
  }
  if (Picked(deployment, 2, o.hostname_anti_affinity_percent)) {
    v1::PodAffinityTerm& t =
        *spec.mutable_affinity()
             ->mutable_pod_anti_affinity()
             ->add_required_during_scheduling_ignored_during_execution();
    t.set_topology_key(std::string(well_known::kLabelHostname));
    (*t.mutable_label_selector()->mutable_match_labels())["app"] = app;
  }
  if (Picked(deployment, 3, o.host_port_percent)) {
    // A node's pods are consecutive serials and deployment % 60 equals
    // serial % 60, so host ports never collide on a node.
    v1::ContainerPort& port = *spec.mutable_containers(0)->add_ports();
    port.set_name("http");
    port.set_container_port(8080);
    port.set_host_port(8080 + static_cast<int32_t>(deployment % 60));
    port.set_protocol("TCP");
  }
}

void SetCondition(absl::string_view type, absl::string_view status,
                  absl::Time t, v1::Condition& c) {
  c.set_type(std::string(type));
  c.set_status(std::string(status));
  *c.mutable_last_transition_time() = ToProto(t);
}

v1::NodePool MakeNodePool(int i, const SyntheticClusterOptions& o) {
  v1::NodePool np;
  np.set_api_version(std::string(well_known::kApiVersionV1));
  np.set_kind("NodePool");
  np.mutable_metadata()->set_name(absl::StrFormat("pool-%03d", i));
  *np.mutable_metadata()->mutable_creation_timestamp() = ToProto(o.created);
  v1::NodeClaimSpec& spec =
      *np.mutable_spec()->mutable_template_()->mutable_spec();
  spec.set_expire_after("720h");
  spec.mutable_node_class_ref()->set_group("karpenter.k8s.aws");
  spec.mutable_node_class_ref()->set_kind("EC2NodeClass");
  spec.mutable_node_class_ref()->set_name("default");
  v1::NodeSelectorRequirement& req = *spec.add_requirements();
  req.set_key(std::string(well_known::kCapacityTypeLabelKey));
  req.set_operator_("In");
  req.add_values(std::string(well_known::kCapacityTypeOnDemand));
  v1::Disruption& d = *np.mutable_spec()->mutable_disruption();
  d.set_consolidation_policy("WhenEmptyOrUnderutilized");
  d.set_consolidate_after("1m");
  d.add_budgets()->set_nodes("10%");
  return np;
}

void AddNodeAndClaim(int i, const SyntheticClusterOptions& o,
                     snapshot::ObjectSet& out) {
  const std::string name = absl::StrFormat("node-%06d", i);
  const std::string pool = absl::StrFormat("pool-%03d", i % o.node_pools);
  const char* zone = kZones[i % kZones.size()];
  const char* type = kInstanceTypes[i % kInstanceTypes.size()];
  const std::string provider_id =
      absl::StrFormat("aws:///%s/i-%017x", zone, 0x1000000 + i);

  v1::Node& node = out.nodes.emplace_back();
  node.set_api_version("v1");
  node.set_kind("Node");
  v1::ObjectMeta& meta = *node.mutable_metadata();
  meta.set_name(name);
  meta.set_uid(absl::StrFormat("00000000-0000-4000-8000-%012d", i));
  *meta.mutable_creation_timestamp() = ToProto(o.created);
  auto& labels = *meta.mutable_labels();
  labels[std::string(well_known::kLabelHostname)] = name;
  labels[std::string(well_known::kNodePoolLabelKey)] = pool;
  labels[std::string(well_known::kNodeInitializedLabelKey)] = "true";
  labels[std::string(well_known::kNodeRegisteredLabelKey)] = "true";
  labels[std::string(well_known::kCapacityTypeLabelKey)] =
      std::string(well_known::kCapacityTypeOnDemand);
  labels[std::string(well_known::kLabelInstanceTypeStable)] = type;
  labels[std::string(well_known::kLabelTopologyZone)] = zone;
  meta.add_finalizers(std::string(well_known::kTerminationFinalizer));
  node.mutable_spec()->set_provider_id(provider_id);
  (*node.mutable_status()->mutable_allocatable())["cpu"] = "3920m";
  (*node.mutable_status()->mutable_allocatable())["memory"] = "14Gi";
  (*node.mutable_status()->mutable_allocatable())["pods"] = "58";
  SetCondition(well_known::kConditionTypeReady, well_known::kConditionTrue,
               o.created, *node.mutable_status()->add_conditions());

  v1::NodeClaim& claim = out.node_claims.emplace_back();
  claim.set_api_version(std::string(well_known::kApiVersionV1));
  claim.set_kind("NodeClaim");
  claim.mutable_metadata()->set_name(absl::StrFormat("%s-claim", name));
  *claim.mutable_metadata()->mutable_creation_timestamp() = ToProto(o.created);
  (*claim.mutable_metadata()
        ->mutable_labels())[std::string(well_known::kNodePoolLabelKey)] = pool;
  claim.mutable_metadata()->add_finalizers(
      std::string(well_known::kTerminationFinalizer));
  claim.mutable_status()->set_node_name(name);
  claim.mutable_status()->set_provider_id(provider_id);
  for (absl::string_view type_name : {well_known::kConditionTypeLaunched,
                                      well_known::kConditionTypeRegistered,
                                      well_known::kConditionTypeInitialized}) {
    SetCondition(type_name, well_known::kConditionTrue, o.created,
                 *claim.mutable_status()->add_conditions());
  }
}

// The pod in `slot` of node `node_index` (slot -1: its DaemonSet pod), or,
// when `node` is empty, pending application pod `slot` (node_index unused).
v1::Pod MakePod(const std::string& node, int node_index, int slot,
                const SyntheticClusterOptions& o) {
  const bool pending = node.empty();
  v1::Pod pod;
  pod.set_api_version("v1");
  pod.set_kind("Pod");
  v1::ObjectMeta& meta = *pod.mutable_metadata();
  v1::OwnerReference& owner = *meta.add_owner_references();
  owner.set_controller(true);
  // The pod's Deployment id, app * namespaces + ns (-1: a DaemonSet pod).
  int64_t deployment = -1;
  if (slot < 0) {  // the node's DaemonSet pod
    meta.set_name(absl::StrFormat("node-agent-%06d", node_index));
    meta.set_namespace_("kube-system");
    (*meta.mutable_labels())["app"] = "node-agent";
    owner.set_api_version("apps/v1");
    owner.set_kind("DaemonSet");
    owner.set_name("node-agent");
  } else {
    const int64_t serial =
        pending ? int64_t{o.nodes} * o.app_pods_per_node + slot
                : int64_t{node_index} * o.app_pods_per_node + slot;
    const int ns = static_cast<int>(serial % o.namespaces);
    const int app =
        static_cast<int>((serial / o.namespaces) % kAppsPerNamespace);
    deployment = int64_t{app} * o.namespaces + ns;
    meta.set_name(absl::StrFormat("app-%d-%08d", app, serial));
    meta.set_namespace_(absl::StrFormat("ns-%04d", ns));
    (*meta.mutable_labels())["app"] = absl::StrCat("app-", app);
    owner.set_api_version("apps/v1");
    owner.set_kind("ReplicaSet");
    owner.set_name(absl::StrCat("app-", app, "-5d8f7c"));
  }
  if (pending) {
    meta.set_uid(absl::StrFormat("pending-%08d", slot));
  } else {
    meta.set_uid(absl::StrFormat("pod-%06d-%04d", node_index, slot + 1));
  }
  *meta.mutable_creation_timestamp() = ToProto(o.created);
  v1::PodSpec& spec = *pod.mutable_spec();
  if (!pending) spec.set_node_name(node);
  spec.set_termination_grace_period_seconds(30);
  v1::Container& c = *spec.add_containers();
  c.set_name("main");
  (*c.mutable_resources()->mutable_requests())["cpu"] = "100m";
  (*c.mutable_resources()->mutable_requests())["memory"] = "128Mi";
  if (deployment >= 0) {
    AddConstraints(deployment, meta.labels().at("app"), o, spec);
  }
  if (pending) {
    pod.mutable_status()->set_phase("Pending");
    v1::Condition& scheduled = *pod.mutable_status()->add_conditions();
    SetCondition(well_known::kConditionTypePodScheduled,
                 well_known::kConditionFalse, o.created, scheduled);
    scheduled.set_reason("Unschedulable");
    return pod;
  }
  pod.mutable_status()->set_phase("Running");
  *pod.mutable_status()->mutable_start_time() =
      ToProto(o.created + absl::Minutes(1));
  SetCondition(well_known::kConditionTypeReady, well_known::kConditionTrue,
               o.created + absl::Minutes(1),
               *pod.mutable_status()->add_conditions());
  return pod;
}

v1::PodDisruptionBudget MakePdb(int i, const SyntheticClusterOptions& o) {
  v1::PodDisruptionBudget pdb;
  pdb.set_api_version("policy/v1");
  pdb.set_kind("PodDisruptionBudget");
  const int ns = i % o.namespaces;
  const int app = (i / o.namespaces) % kAppsPerNamespace;
  pdb.mutable_metadata()->set_name(absl::StrFormat("pdb-%05d", i));
  pdb.mutable_metadata()->set_namespace_(absl::StrFormat("ns-%04d", ns));
  *pdb.mutable_metadata()->mutable_creation_timestamp() = ToProto(o.created);
  (*pdb.mutable_spec()->mutable_selector()->mutable_match_labels())["app"] =
      absl::StrCat("app-", app);
  if (i % 2 == 0) {
    pdb.mutable_spec()->mutable_min_available()->set_number_value(1);
  } else {
    pdb.mutable_spec()->mutable_max_unavailable()->set_string_value("25%");
  }
  pdb.mutable_status()->set_disruptions_allowed(i % 3 == 0 ? 0 : 1);
  return pdb;
}

// The CSINode the EBS CSI driver registers for node `i`.
v1::CSINode MakeCSINode(const v1::Node& node, int i,
                        const SyntheticClusterOptions& o) {
  v1::CSINode csi;
  csi.set_api_version("storage.k8s.io/v1");
  csi.set_kind("CSINode");
  csi.mutable_metadata()->set_name(node.metadata().name());
  *csi.mutable_metadata()->mutable_creation_timestamp() = ToProto(o.created);
  v1::CSINodeDriver& d = *csi.mutable_spec()->add_drivers();
  d.set_name(kEbsDriver);
  d.set_node_id(absl::StrFormat("i-%017x", 0x1000000 + i));
  d.add_topology_keys(std::string(well_known::kLabelTopologyZone));
  d.mutable_allocatable()->set_count(25);
  return csi;
}

// The DaemonSet whose pods MakePod makes for slot -1.
v1::DaemonSet MakeNodeAgent(const SyntheticClusterOptions& o) {
  v1::DaemonSet ds;
  ds.set_api_version("apps/v1");
  ds.set_kind("DaemonSet");
  ds.mutable_metadata()->set_name("node-agent");
  ds.mutable_metadata()->set_namespace_("kube-system");
  *ds.mutable_metadata()->mutable_creation_timestamp() = ToProto(o.created);
  (*ds.mutable_spec()->mutable_selector()->mutable_match_labels())["app"] =
      "node-agent";
  v1::PodTemplateSpec& t = *ds.mutable_spec()->mutable_template_();
  (*t.mutable_metadata()->mutable_labels())["app"] = "node-agent";
  v1::Container& c = *t.mutable_spec()->add_containers();
  c.set_name("main");
  (*c.mutable_resources()->mutable_requests())["cpu"] = "100m";
  (*c.mutable_resources()->mutable_requests())["memory"] = "128Mi";
  ds.mutable_status()->set_desired_number_scheduled(o.nodes);
  ds.mutable_status()->set_current_number_scheduled(o.nodes);
  ds.mutable_status()->set_number_ready(o.nodes);
  return ds;
}

v1::StorageClass MakeDefaultClass(const SyntheticClusterOptions& o) {
  v1::StorageClass sc;
  sc.set_api_version("storage.k8s.io/v1");
  sc.set_kind("StorageClass");
  sc.mutable_metadata()->set_name(kStorageClass);
  *sc.mutable_metadata()->mutable_creation_timestamp() = ToProto(o.created);
  (*sc.mutable_metadata()->mutable_annotations())[std::string(
      well_known::kIsDefaultStorageClassAnnotation)] = "true";
  sc.set_provisioner(kEbsDriver);
  (*sc.mutable_parameters())["type"] = "gp3";
  sc.set_reclaim_policy("Delete");
  sc.set_volume_binding_mode("WaitForFirstConsumer");
  return sc;
}

// PersistentVolume `i` and the claim bound to it.
void AddVolume(int i, const SyntheticClusterOptions& o,
               snapshot::ObjectSet& out) {
  const std::string pv_name = absl::StrFormat("pv-%06d", i);
  const std::string claim_name = absl::StrFormat("data-%06d", i);
  const std::string ns = absl::StrFormat("ns-%04d", i % o.namespaces);

  v1::PersistentVolume& pv = out.persistent_volumes.emplace_back();
  pv.set_api_version("v1");
  pv.set_kind("PersistentVolume");
  pv.mutable_metadata()->set_name(pv_name);
  *pv.mutable_metadata()->mutable_creation_timestamp() = ToProto(o.created);
  v1::PersistentVolumeSpec& spec = *pv.mutable_spec();
  (*spec.mutable_capacity())["storage"] = "20Gi";
  spec.add_access_modes("ReadWriteOnce");
  spec.set_storage_class_name(kStorageClass);
  spec.set_persistent_volume_reclaim_policy("Delete");
  v1::ObjectReference& ref = *spec.mutable_claim_ref();
  ref.set_api_version("v1");
  ref.set_kind("PersistentVolumeClaim");
  ref.set_namespace_(ns);
  ref.set_name(claim_name);
  spec.mutable_csi()->set_driver(kEbsDriver);
  spec.mutable_csi()->set_volume_handle(
      absl::StrFormat("vol-%017x", 0x2000000 + i));
  v1::NodeSelectorRequirement& zone = *spec.mutable_node_affinity()
                                           ->mutable_required()
                                           ->add_node_selector_terms()
                                           ->add_match_expressions();
  zone.set_key(std::string(well_known::kLabelTopologyZone));
  zone.set_operator_("In");
  zone.add_values(kZones[i % kZones.size()]);
  pv.mutable_status()->set_phase("Bound");

  v1::PersistentVolumeClaim& claim =
      out.persistent_volume_claims.emplace_back();
  claim.set_api_version("v1");
  claim.set_kind("PersistentVolumeClaim");
  claim.mutable_metadata()->set_name(claim_name);
  claim.mutable_metadata()->set_namespace_(ns);
  *claim.mutable_metadata()->mutable_creation_timestamp() = ToProto(o.created);
  claim.mutable_spec()->add_access_modes("ReadWriteOnce");
  claim.mutable_spec()->set_volume_name(pv_name);
  claim.mutable_spec()->set_storage_class_name(kStorageClass);
  claim.mutable_status()->set_phase("Bound");
}

// Everything but the pods into `out`; each pod, as it is made, to `add_pod`.
void Generate(const SyntheticClusterOptions& o, snapshot::ObjectSet& out,
              absl::FunctionRef<void(v1::Pod)> add_pod) {
  out.node_pools.reserve(o.node_pools);
  for (int i = 0; i < o.node_pools; ++i)
    out.node_pools.push_back(MakeNodePool(i, o));
  out.nodes.reserve(o.nodes);
  out.node_claims.reserve(o.nodes);
  // Every Node before the first pod, as a host decoding a node list holds
  // them: made between streamed pods, their sub-messages would sit
  // scattered among the freed pod messages, and per-node reads would miss
  // cache the more, the larger the pods.
  out.csi_nodes.reserve(o.nodes);
  out.daemon_sets.push_back(MakeNodeAgent(o));
  for (int i = 0; i < o.nodes; ++i) {
    AddNodeAndClaim(i, o, out);
    out.csi_nodes.push_back(MakeCSINode(out.nodes.back(), i, o));
  }
  for (int i = 0; i < o.nodes; ++i) {
    const std::string& node = out.nodes[i].metadata().name();
    add_pod(MakePod(node, i, -1, o));
    for (int slot = 0; slot < o.app_pods_per_node; ++slot) {
      add_pod(MakePod(node, i, slot, o));
    }
  }
  for (int i = 0; i < o.pending_pods; ++i) add_pod(MakePod("", -1, i, o));
  out.pdbs.reserve(o.pdbs);
  for (int i = 0; i < o.pdbs; ++i) out.pdbs.push_back(MakePdb(i, o));
  out.storage_classes.push_back(MakeDefaultClass(o));
  out.persistent_volumes.reserve(o.persistent_volumes);
  out.persistent_volume_claims.reserve(o.persistent_volumes);
  for (int i = 0; i < o.persistent_volumes; ++i) AddVolume(i, o, out);
}

}  // namespace

absl::StatusOr<snapshot::ObjectSet> MakeSyntheticCluster(
    const SyntheticClusterOptions& options) {
  absl::StatusOr<SyntheticClusterOptions> resolved = Resolve(options);
  if (!resolved.ok()) return resolved.status();
  snapshot::ObjectSet out;
  out.pods.reserve(static_cast<size_t>(resolved->nodes) *
                       (resolved->app_pods_per_node + 1) +
                   static_cast<size_t>(resolved->pending_pods));
  Generate(*resolved, out,
           [&out](v1::Pod pod) { out.pods.push_back(std::move(pod)); });
  return out;
}

absl::Status AddSyntheticCluster(const SyntheticClusterOptions& options,
                                 snapshot::SnapshotBuilder& out) {
  absl::StatusOr<SyntheticClusterOptions> resolved = Resolve(options);
  if (!resolved.ok()) return resolved.status();
  Generate(*resolved, out.objects(),
           [&out](v1::Pod pod) { out.AddPod(std::move(pod)); });
  return absl::OkStatus();
}

}  // namespace karpenter::testing
