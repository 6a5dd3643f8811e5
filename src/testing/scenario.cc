// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/testing/scenario.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "common/field_error.h"
#include "common/status_macros.h"
#include "karpenter/catalog.h"
#include "karpenter/drain/do_not_disrupt_window.h"
#include "karpenter/drift/static_drift.h"
#include "karpenter/duration.h"
#include "karpenter/quantity.h"
#include "karpenter/scheduling/resources.h"
#include "karpenter/testing/fake_cluster.h"
#include "karpenter/time_util.h"
#include "karpenter/well_known.h"

namespace karpenter::testing {
namespace {

using ::karpenter::internal::FieldError;

// A Go duration >= 0 (or > 0 with `positive`).
absl::Status NonNegativeDuration(absl::string_view path,
                                 absl::string_view value,
                                 bool positive = false) {
  absl::StatusOr<absl::Duration> d = ParseGoDuration(value);
  if (!d.ok()) return FieldError(path, "invalid duration", value);
  if (*d < absl::ZeroDuration() || (positive && *d == absl::ZeroDuration())) {
    return FieldError(
        path, positive ? "must be positive" : "must not be negative", value);
  }
  return absl::OkStatus();
}

absl::Status CheckQuantity(absl::string_view path, absl::string_view value) {
  absl::StatusOr<int64_t> q = ParseQuantityMilli(value);
  if (!q.ok()) return FieldError(path, "invalid quantity", value);
  if (*q < 0) return FieldError(path, "must not be negative", value);
  return absl::OkStatus();
}

// "1" or "50%" (0..100).
bool IsIntOrPercent(absl::string_view value) {
  int64_t v = 0;
  if (absl::ConsumeSuffix(&value, "%")) {
    return absl::SimpleAtoi(value, &v) && v >= 0 && v <= 100;
  }
  return absl::SimpleAtoi(value, &v) && v >= 0 && v <= INT32_MAX;
}

}  // namespace

std::optional<absl::StatusCode> ParseStatusCodeName(absl::string_view name) {
  static constexpr std::pair<absl::string_view, absl::StatusCode> kCodes[] = {
      {"Cancelled", absl::StatusCode::kCancelled},
      {"Unknown", absl::StatusCode::kUnknown},
      {"InvalidArgument", absl::StatusCode::kInvalidArgument},
      {"DeadlineExceeded", absl::StatusCode::kDeadlineExceeded},
      {"NotFound", absl::StatusCode::kNotFound},
      {"AlreadyExists", absl::StatusCode::kAlreadyExists},
      {"PermissionDenied", absl::StatusCode::kPermissionDenied},
      {"ResourceExhausted", absl::StatusCode::kResourceExhausted},
      {"FailedPrecondition", absl::StatusCode::kFailedPrecondition},
      {"Aborted", absl::StatusCode::kAborted},
      {"OutOfRange", absl::StatusCode::kOutOfRange},
      {"Unimplemented", absl::StatusCode::kUnimplemented},
      {"Internal", absl::StatusCode::kInternal},
      {"Unavailable", absl::StatusCode::kUnavailable},
      {"DataLoss", absl::StatusCode::kDataLoss},
      {"Unauthenticated", absl::StatusCode::kUnauthenticated},
  };
  for (const auto& [n, code] : kCodes) {
    if (n == name) return code;
  }
  return std::nullopt;
}

std::optional<CloudMethod> ParseCloudMethodName(absl::string_view name) {
  for (CloudMethod m :
       {CloudMethod::kCreate, CloudMethod::kDelete, CloudMethod::kGet,
        CloudMethod::kList, CloudMethod::kIsDrifted,
        CloudMethod::kGetInstanceTypes}) {
    if (CloudMethodName(m) == name) return m;
  }
  return std::nullopt;
}

namespace {

absl::Status ValidateInstanceTypes(const v1::ScenarioSpec& spec) {
  return ValidateInstanceTypeSpecs(spec.instance_types(), "spec.instanceTypes");
}

const v1::InstanceTypeSpec* FindType(const v1::ScenarioSpec& spec,
                                     absl::string_view name) {
  for (const v1::InstanceTypeSpec& t : spec.instance_types()) {
    if (t.name() == name) return &t;
  }
  return nullptr;
}

// The first problem of the SDK's do-not-disrupt window annotations among
// `annotations` (at `path`, "....annotations"), as `karpenter validate`
// reports it.
absl::Status CheckWindowAnnotations(
    const std::string& path,
    const google::protobuf::Map<std::string, std::string>& annotations) {
  const std::vector<drain::WindowProblem> problems =
      drain::DoNotDisruptWindowProblems(annotations);
  if (problems.empty()) return absl::OkStatus();
  return FieldError(absl::StrCat(path, "[\"", problems.front().key, "\"]"),
                    problems.front().problem, problems.front().value);
}

absl::Status ValidateNodeGroups(const v1::ScenarioSpec& spec) {
  std::set<std::string> prefixes;
  for (int i = 0; i < spec.generate().nodes_size(); ++i) {
    const v1::NodeGroupSpec& g = spec.generate().nodes(i);
    const std::string path = absl::StrCat("spec.generate.nodes[", i, "]");
    if (g.node_pool().empty()) {
      return FieldError(path + ".nodePool", "must be set", "");
    }
    if (g.count() < 0 || g.count() > kMaxGeneratedNodes) {
      return FieldError(
          path + ".count",
          absl::StrCat("must be in [0, ", kMaxGeneratedNodes, "]"),
          absl::StrCat(g.count()));
    }
    const v1::InstanceTypeSpec* type = FindType(spec, g.instance_type());
    if (type == nullptr) {
      return FieldError(path + ".instanceType",
                        "not in spec.instanceTypes:", g.instance_type());
    }
    bool offered = false;
    for (const v1::OfferingSpec& o : type->offerings()) {
      offered |=
          (g.zone().empty() || o.zone() == g.zone()) &&
          (g.capacity_type().empty() || o.capacity_type() == g.capacity_type());
    }
    if (!offered) {
      return FieldError(path, "no offering of the instance type matches",
                        absl::StrCat(g.instance_type(), " ", g.zone(), " ",
                                     g.capacity_type()));
    }
    if (!g.age().empty()) {
      KARPENTER_RETURN_IF_ERROR(NonNegativeDuration(path + ".age", g.age()));
    }
    KARPENTER_RETURN_IF_ERROR(
        CheckWindowAnnotations(path + ".annotations", g.annotations()));
    const std::string prefix =
        g.name_prefix().empty() ? g.node_pool() : g.name_prefix();
    if (!prefixes.insert(prefix).second) {
      return FieldError(path + ".namePrefix", "duplicate node name prefix",
                        prefix);
    }
  }
  return absl::OkStatus();
}

absl::Status ValidatePdb(const std::string& path, const v1::PdbSpec& pdb) {
  const bool min = !pdb.min_available().empty();
  const bool max = !pdb.max_unavailable().empty();
  if (min && max) {
    return FieldError(
        path, "set only one of minAvailable and maxUnavailable",
        absl::StrCat(pdb.min_available(), " / ", pdb.max_unavailable()));
  }
  if (min && !IsIntOrPercent(pdb.min_available())) {
    return FieldError(path + ".minAvailable",
                      "expected an integer or a percentage, got",
                      pdb.min_available());
  }
  if (max && !IsIntOrPercent(pdb.max_unavailable())) {
    return FieldError(path + ".maxUnavailable",
                      "expected an integer or a percentage, got",
                      pdb.max_unavailable());
  }
  return absl::OkStatus();
}

absl::Status ValidateWorkloads(const v1::ScenarioSpec& spec) {
  std::set<std::string> names;
  for (int i = 0; i < spec.generate().workloads_size(); ++i) {
    const v1::WorkloadSpec& w = spec.generate().workloads(i);
    const std::string path = absl::StrCat("spec.generate.workloads[", i, "]");
    if (w.name().empty()) return FieldError(path + ".name", "must be set", "");
    const std::string key = absl::StrCat(
        w.namespace_().empty() ? "default" : w.namespace_(), "/", w.name());
    if (!names.insert(key).second) {
      return FieldError(path + ".name", "duplicate workload", key);
    }
    KARPENTER_RETURN_IF_ERROR(
        CheckWindowAnnotations(path + ".annotations", w.annotations()));
    if (w.replicas() < 0 || w.replicas() > kMaxReplicas) {
      return FieldError(path + ".replicas",
                        absl::StrCat("must be in [0, ", kMaxReplicas, "]"),
                        absl::StrCat(w.replicas()));
    }
    if (!w.cpu().empty()) {
      KARPENTER_RETURN_IF_ERROR(CheckQuantity(path + ".cpu", w.cpu()));
    }
    if (!w.memory().empty()) {
      KARPENTER_RETURN_IF_ERROR(CheckQuantity(path + ".memory", w.memory()));
    }
    if (!w.termination_grace_period().empty()) {
      KARPENTER_RETURN_IF_ERROR(NonNegativeDuration(
          path + ".terminationGracePeriod", w.termination_grace_period()));
    }
    if (int{w.daemon_set()} + int{w.job()} + int{w.stateful_set()} > 1) {
      return FieldError(path, "set only one of daemonSet, job and statefulSet",
                        w.name());
    }
    if (!w.volume_size().empty()) {
      if (!w.stateful_set()) {
        return FieldError(path + ".volumeSize",
                          "needs statefulSet: true for workload", w.name());
      }
      KARPENTER_RETURN_IF_ERROR(
          CheckQuantity(path + ".volumeSize", w.volume_size()));
    }
    if (!w.duration().empty()) {
      if (!w.job()) {
        return FieldError(path + ".duration", "needs job: true for workload",
                          w.name());
      }
      KARPENTER_RETURN_IF_ERROR(
          NonNegativeDuration(path + ".duration", w.duration()));
    }
    if (!w.daemon_set() && w.node_pool().empty()) {
      return FieldError(path + ".nodePool", "must be set for workload",
                        w.name());
    }
    if (w.has_pdb()) {
      KARPENTER_RETURN_IF_ERROR(ValidatePdb(path + ".pdb", w.pdb()));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateChange(const std::string& path,
                            const v1::ScenarioChange& c) {
  KARPENTER_RETURN_IF_ERROR(NonNegativeDuration(path + ".at", c.at()));
  switch (c.change_case()) {
    case v1::ScenarioChange::kNodePool:
      if (c.node_pool().metadata().name().empty()) {
        return FieldError(path + ".nodePool.metadata.name", "must be set", "");
      }
      return absl::OkStatus();
    case v1::ScenarioChange::kDeleteNode:
      if (c.delete_node().empty()) {
        return FieldError(path + ".deleteNode", "must be set", "");
      }
      return absl::OkStatus();
    case v1::ScenarioChange::kSpotInterruption:
      if (c.spot_interruption().node().empty()) {
        return FieldError(path + ".spotInterruption.node", "must be set", "");
      }
      return absl::OkStatus();
    case v1::ScenarioChange::kDriftNodePool:
      if (c.drift_node_pool().node_pool().empty()) {
        return FieldError(path + ".driftNodePool.nodePool", "must be set", "");
      }
      return absl::OkStatus();
    case v1::ScenarioChange::kCloudFault: {
      const v1::CloudFault& f = c.cloud_fault();
      if (!ParseCloudMethodName(f.method())) {
        return FieldError(path + ".cloudFault.method", "unknown cloud method",
                          f.method());
      }
      if (!ParseStatusCodeName(f.code())) {
        return FieldError(path + ".cloudFault.code", "unknown status code",
                          f.code());
      }
      if (f.times() < 1 || f.times() > kMaxFaultTimes) {
        return FieldError(path + ".cloudFault.times",
                          absl::StrCat("must be in [1, ", kMaxFaultTimes, "]"),
                          absl::StrCat(f.times()));
      }
      return absl::OkStatus();
    }
    case v1::ScenarioChange::kEvictionFault: {
      const v1::EvictionFault& f = c.eviction_fault();
      const int s = f.http_status();
      if (!(s == 0 || s == 429 || (s >= 500 && s <= 599))) {
        return FieldError(path + ".evictionFault.httpStatus",
                          "expected 0, 429 or 5xx, got", absl::StrCat(s));
      }
      if (f.times() < 1 || f.times() > kMaxFaultTimes) {
        return FieldError(path + ".evictionFault.times",
                          absl::StrCat("must be in [1, ", kMaxFaultTimes, "]"),
                          absl::StrCat(f.times()));
      }
      return absl::OkStatus();
    }
    case v1::ScenarioChange::kTerminationProtection:
      if (c.termination_protection().node().empty()) {
        return FieldError(path + ".terminationProtection.node", "must be set",
                          "");
      }
      return absl::OkStatus();
    case v1::ScenarioChange::kFinishJob:
      if (c.finish_job().name().empty()) {
        return FieldError(path + ".finishJob.name", "must be set", "");
      }
      return absl::OkStatus();
    case v1::ScenarioChange::kNodeReadiness:
      if (c.node_readiness().node().empty()) {
        return FieldError(path + ".nodeReadiness.node", "must be set", "");
      }
      return absl::OkStatus();
    case v1::ScenarioChange::kRestartControllers:
      return absl::OkStatus();
    case v1::ScenarioChange::kStaleReads:
      if (c.stale_reads().reads() < 1 ||
          c.stale_reads().reads() > kMaxFaultTimes) {
        return FieldError(path + ".staleReads.reads",
                          absl::StrCat("must be in [1, ", kMaxFaultTimes, "]"),
                          absl::StrCat(c.stale_reads().reads()));
      }
      return absl::OkStatus();
    case v1::ScenarioChange::CHANGE_NOT_SET:
      break;
  }
  return FieldError(path, "sets no change (at", absl::StrCat(c.at(), ")"));
}

// --- Generation. ------------------------------------------------------------

// Whole seconds, as the objects a cluster dump holds (metav1.Time).
void Stamp(absl::Time t, google::protobuf::Timestamp* ts) {
  *ts = TimeToProto(TruncateToSecond(t));
}

void AddCondition(google::protobuf::RepeatedPtrField<v1::Condition>* list,
                  absl::string_view type, absl::Time at) {
  v1::Condition* c = list->Add();
  c->set_type(std::string(type));
  c->set_status(std::string(well_known::kConditionTrue));
  Stamp(at, c->mutable_last_transition_time());
}

struct GeneratedNode {
  v1::Node node;
  v1::NodeClaim claim;
};

GeneratedNode MakeNode(const v1::Scenario& scenario, const v1::NodeGroupSpec& g,
                       const v1::NodePool& pool, int index) {
  const v1::ScenarioSpec& spec = scenario.spec();
  const v1::InstanceTypeSpec& type = *FindType(spec, g.instance_type());
  std::string zone = g.zone(), capacity_type = g.capacity_type();
  for (const v1::OfferingSpec& o : type.offerings()) {
    if ((zone.empty() || o.zone() == zone) &&
        (capacity_type.empty() || o.capacity_type() == capacity_type)) {
      zone = o.zone();
      capacity_type = o.capacity_type();
      break;
    }
  }
  const absl::Duration age = *ParseGoDuration(
      g.age().empty() ? std::string(kDefaultNodeAge) : g.age());
  const absl::Time created = ScenarioStart(scenario) - age;
  const std::string name = absl::StrFormat(
      "%s-%02d", g.name_prefix().empty() ? g.node_pool() : g.name_prefix(),
      index);
  const std::string provider_id = absl::StrCat("fake:///", zone, "/i-", name);
  GeneratedNode out;
  v1::ObjectMeta& m = *out.node.mutable_metadata();
  m.set_name(name);
  Stamp(created, m.mutable_creation_timestamp());
  auto& labels = *m.mutable_labels();
  for (const auto& [k, v] : type.labels()) labels[k] = v;
  for (const auto& [k, v] : pool.spec().template_().metadata().labels()) {
    labels[k] = v;
  }
  for (const auto& [k, v] : g.annotations()) (*m.mutable_annotations())[k] = v;
  labels[std::string(well_known::kNodePoolLabelKey)] = g.node_pool();
  labels[std::string(well_known::kNodeInitializedLabelKey)] = "true";
  labels[std::string(well_known::kNodeRegisteredLabelKey)] = "true";
  labels[std::string(well_known::kLabelInstanceTypeStable)] = type.name();
  labels[std::string(well_known::kLabelTopologyZone)] = zone;
  labels[std::string(well_known::kCapacityTypeLabelKey)] = capacity_type;
  labels[std::string(well_known::kLabelHostname)] = name;
  m.add_finalizers(std::string(well_known::kTerminationFinalizer));
  out.node.mutable_spec()->set_provider_id(provider_id);
  for (const v1::Taint& t : pool.spec().template_().spec().taints()) {
    *out.node.mutable_spec()->add_taints() = t;
  }
  auto& capacity = *out.node.mutable_status()->mutable_capacity();
  for (const auto& [k, v] : type.capacity()) capacity[k] = v;
  if (!capacity.contains("pods")) capacity["pods"] = "110";
  // Allocatable: the capacity less the type's overhead (karpenter/catalog.h).
  auto& allocatable = *out.node.mutable_status()->mutable_allocatable();
  allocatable = capacity;
  for (const auto& [k, v] : InstanceTypeFromSpec(type).capacity) {
    allocatable[k] = v;
  }
  AddCondition(out.node.mutable_status()->mutable_conditions(),
               well_known::kConditionTypeReady, created);

  v1::ObjectMeta& cm = *out.claim.mutable_metadata();
  cm.set_name(name);
  Stamp(created, cm.mutable_creation_timestamp());
  *cm.mutable_labels() = labels;
  cm.mutable_labels()->erase(std::string(well_known::kLabelHostname));
  cm.add_finalizers(std::string(well_known::kTerminationFinalizer));
  // Launched from the pool as it is: the claim carries its hash (when the
  // pool has one), as Karpenter's launch copies it.
  for (absl::string_view key :
       {well_known::kNodePoolHashAnnotationKey,
        well_known::kNodePoolHashVersionAnnotationKey}) {
    auto it = pool.metadata().annotations().find(std::string(key));
    if (it != pool.metadata().annotations().end()) {
      (*cm.mutable_annotations())[it->first] = it->second;
    }
  }
  *out.claim.mutable_spec() = pool.spec().template_().spec();
  v1::NodeClaimStatus& st = *out.claim.mutable_status();
  st.set_node_name(name);
  st.set_provider_id(provider_id);
  st.set_image_id(spec.image().empty() ? std::string(kDefaultImage)
                                       : spec.image());
  *st.mutable_capacity() = capacity;
  *st.mutable_allocatable() = capacity;
  for (absl::string_view c : {well_known::kConditionTypeLaunched,
                              well_known::kConditionTypeRegistered,
                              well_known::kConditionTypeInitialized}) {
    AddCondition(st.mutable_conditions(), c, created);
  }
  return out;
}

void SetIntOrString(absl::string_view value, google::protobuf::Value* out) {
  int64_t v = 0;
  if (absl::SimpleAtoi(value, &v)) {
    out->set_number_value(static_cast<double>(v));
  } else {
    out->set_string_value(std::string(value));
  }
}

v1::Pod MakePod(const v1::Scenario& scenario, const v1::WorkloadSpec& w,
                absl::string_view ns, int index, absl::string_view node) {
  v1::Pod p;
  v1::ObjectMeta& m = *p.mutable_metadata();
  m.set_namespace_(std::string(ns));
  m.set_name(w.stateful_set() ? absl::StrFormat("%s-%d", w.name(), index)
                              : absl::StrFormat("%s-%03d", w.name(), index));
  m.set_uid(absl::StrFormat("uid-%s-%s-%03d", ns, w.name(), index));
  Stamp(ScenarioStart(scenario) - absl::Hours(1),
        m.mutable_creation_timestamp());
  (*m.mutable_labels())["app"] = w.name();
  for (const auto& [k, v] : w.annotations()) (*m.mutable_annotations())[k] = v;
  if (w.do_not_disrupt()) {
    (*m.mutable_annotations())[std::string(
        well_known::kDoNotDisruptAnnotationKey)] = "true";
  }
  v1::OwnerReference* ref = m.add_owner_references();
  ref->set_controller(true);
  ref->set_name(w.name());
  ref->set_uid(absl::StrCat("owner-", ns, "-", w.name()));
  if (w.daemon_set()) {
    ref->set_api_version("apps/v1");
    ref->set_kind("DaemonSet");
  } else if (w.job()) {
    ref->set_api_version("batch/v1");
    ref->set_kind("Job");
  } else if (w.stateful_set()) {
    ref->set_api_version("apps/v1");
    ref->set_kind("StatefulSet");
  } else {
    ref->set_api_version("apps/v1");
    ref->set_kind("ReplicaSet");
  }
  p.mutable_spec()->set_node_name(std::string(node));
  // A workload pinned to a NodePool selects its nodes, as a Deployment
  // pinned to a pool does; a DaemonSet's pods are bound by the controller.
  if (!w.daemon_set() && !w.node_pool().empty()) {
    (*p.mutable_spec()->mutable_node_selector())[std::string(
        well_known::kNodePoolLabelKey)] = w.node_pool();
  }
  const absl::Duration grace = *ParseGoDuration(
      w.termination_grace_period().empty() ? std::string(kDefaultGracePeriod)
                                           : w.termination_grace_period());
  p.mutable_spec()->set_termination_grace_period_seconds(
      absl::ToInt64Seconds(grace));
  *p.mutable_spec()->mutable_topology_spread_constraints() =
      w.topology_spread_constraints();
  if (w.has_affinity()) *p.mutable_spec()->mutable_affinity() = w.affinity();
  if (!w.volume_size().empty()) {
    v1::Volume* v = p.mutable_spec()->add_volumes();
    v->set_name("data");
    v->mutable_persistent_volume_claim()->set_claim_name(
        absl::StrCat("data-", m.name()));
  }
  if (!w.duration().empty()) {
    (*m.mutable_annotations())[std::string(FakeCluster::kRunForAnnotationKey)] =
        w.duration();
  }
  v1::Container* c = p.mutable_spec()->add_containers();
  c->set_name("main");
  if (!w.cpu().empty()) {
    (*c->mutable_resources()->mutable_requests())["cpu"] = w.cpu();
  }
  if (!w.memory().empty()) {
    (*c->mutable_resources()->mutable_requests())["memory"] = w.memory();
  }
  p.mutable_status()->set_phase("Running");
  // A Job that runs for a duration starts with the scenario.
  Stamp(ScenarioStart(scenario) -
            (w.duration().empty() ? absl::Hours(1) : absl::ZeroDuration()),
        p.mutable_status()->mutable_start_time());
  AddCondition(p.mutable_status()->mutable_conditions(),
               well_known::kConditionTypeReady,
               ScenarioStart(scenario) - absl::Hours(1));
  return p;
}

v1::PodDisruptionBudget MakePdb(const v1::WorkloadSpec& w,
                                absl::string_view ns) {
  v1::PodDisruptionBudget pdb;
  pdb.set_api_version("policy/v1");
  pdb.set_kind("PodDisruptionBudget");
  pdb.mutable_metadata()->set_namespace_(std::string(ns));
  pdb.mutable_metadata()->set_name(w.name());
  (*pdb.mutable_spec()->mutable_selector()->mutable_match_labels())["app"] =
      w.name();
  if (!w.pdb().min_available().empty()) {
    SetIntOrString(w.pdb().min_available(),
                   pdb.mutable_spec()->mutable_min_available());
  } else {
    SetIntOrString(w.pdb().max_unavailable(),
                   pdb.mutable_spec()->mutable_max_unavailable());
  }
  return pdb;
}

// Nodes of `pool` (every node when empty), by name.
std::vector<std::string> NodesOfPool(const snapshot::ObjectSet& cluster,
                                     absl::string_view pool) {
  std::vector<std::string> names;
  for (const v1::Node& n : cluster.nodes) {
    const auto& labels = n.metadata().labels();
    auto it = labels.find(std::string(well_known::kNodePoolLabelKey));
    if (pool.empty() || (it != labels.end() && it->second == pool)) {
      names.push_back(n.metadata().name());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

absl::Status ExpandNodes(const v1::Scenario& scenario,
                         snapshot::ObjectSet& cluster) {
  std::set<std::string> names;
  for (const v1::Node& n : cluster.nodes) names.insert(n.metadata().name());
  for (const v1::NodeClaim& n : cluster.node_claims) {
    names.insert(n.metadata().name());
  }
  const v1::GenerateSpec& gen = scenario.spec().generate();
  for (int i = 0; i < gen.nodes_size(); ++i) {
    const v1::NodeGroupSpec& g = gen.nodes(i);
    const std::string path = absl::StrCat("spec.generate.nodes[", i, "]");
    const v1::NodePool* pool = nullptr;
    for (const v1::NodePool& p : cluster.node_pools) {
      if (p.metadata().name() == g.node_pool()) pool = &p;
    }
    if (pool == nullptr) {
      return FieldError(path + ".nodePool", "no NodePool in the cluster named",
                        g.node_pool());
    }
    for (int k = 0; k < g.count(); ++k) {
      GeneratedNode n = MakeNode(scenario, g, *pool, k);
      if (!names.insert(n.node.metadata().name()).second) {
        return FieldError(path, "generated node name already exists",
                          n.node.metadata().name());
      }
      cluster.nodes.push_back(std::move(n.node));
      cluster.node_claims.push_back(std::move(n.claim));
    }
  }
  return absl::OkStatus();
}

// What is left of each node's allocatable cpu, memory and pods (milli-units)
// as generated pods are assigned; a resource a node does not list is not
// limited.
class Room {
 public:
  explicit Room(const snapshot::ObjectSet& cluster) {
    for (const v1::Node& n : cluster.nodes) {
      std::map<std::string, int64_t>& free = free_[n.metadata().name()];
      for (const auto& [k, v] : n.status().allocatable()) {
        if (k != "cpu" && k != "memory" && k != "pods") continue;
        absl::StatusOr<int64_t> milli = ParseQuantityMilli(v);
        if (milli.ok()) free[k] = *milli;
      }
    }
    for (const v1::Pod& p : cluster.pods) {
      if (p.spec().node_name().empty()) continue;
      absl::StatusOr<std::vector<std::pair<std::string, int64_t>>> req =
          scheduling::PodRequests(p);
      if (!req.ok()) continue;
      for (const auto& [k, milli] : *req)
        Subtract(p.spec().node_name(), k, milli);
    }
  }

  bool Fits(const std::string& node, const v1::WorkloadSpec& w) const {
    const auto it = free_.find(node);
    if (it == free_.end()) return true;
    for (const auto& [k, milli] : Requests(w)) {
      const auto f = it->second.find(k);
      if (f != it->second.end() && f->second < milli) return false;
    }
    return true;
  }

  void Take(const std::string& node, const v1::WorkloadSpec& w) {
    for (const auto& [k, milli] : Requests(w)) Subtract(node, k, milli);
  }

 private:
  static std::vector<std::pair<std::string, int64_t>> Requests(
      const v1::WorkloadSpec& w) {
    std::vector<std::pair<std::string, int64_t>> out = {{"pods", 1000}};
    // A quantity that does not parse (an unvalidated scenario) counts 0.
    if (!w.cpu().empty()) {
      out.emplace_back("cpu", ParseQuantityMilli(w.cpu()).value_or(0));
    }
    if (!w.memory().empty()) {
      out.emplace_back("memory", ParseQuantityMilli(w.memory()).value_or(0));
    }
    return out;
  }

  void Subtract(const std::string& node, const std::string& k, int64_t milli) {
    const auto it = free_.find(node);
    if (it == free_.end()) return;
    const auto f = it->second.find(k);
    if (f != it->second.end()) f->second -= milli;
  }

  std::map<std::string, std::map<std::string, int64_t>> free_;
};

constexpr absl::string_view kZonalStorageClass = "sim-zonal";

// PersistentVolumeClaim data-<pod> of `size`, bound to a new
// PersistentVolume whose node affinity is the zone of `node`, and the
// StorageClass they name (once).
void AddZonalVolume(snapshot::ObjectSet& cluster, const v1::Pod& pod,
                    absl::string_view size, absl::string_view node) {
  const std::string class_name(kZonalStorageClass);
  if (std::none_of(cluster.storage_classes.begin(),
                   cluster.storage_classes.end(),
                   [&](const v1::StorageClass& c) {
                     return c.metadata().name() == class_name;
                   })) {
    v1::StorageClass& c = cluster.storage_classes.emplace_back();
    c.set_api_version("storage.k8s.io/v1");
    c.set_kind("StorageClass");
    c.mutable_metadata()->set_name(class_name);
    c.set_provisioner("sim.karpenter-sdk.dev/zonal");
    c.set_volume_binding_mode("WaitForFirstConsumer");
  }
  std::string zone;
  for (const v1::Node& n : cluster.nodes) {
    if (n.metadata().name() != node) continue;
    const auto& labels = n.metadata().labels();
    const auto it = labels.find(std::string(well_known::kLabelTopologyZone));
    if (it != labels.end()) zone = it->second;
  }
  const std::string& ns = pod.metadata().namespace_();
  const std::string claim = absl::StrCat("data-", pod.metadata().name());
  const std::string volume = absl::StrCat("pv-", ns, "-", claim);
  v1::PersistentVolume& pv = cluster.persistent_volumes.emplace_back();
  pv.set_api_version("v1");
  pv.set_kind("PersistentVolume");
  pv.mutable_metadata()->set_name(volume);
  (*pv.mutable_spec()->mutable_capacity())["storage"] = std::string(size);
  pv.mutable_spec()->add_access_modes("ReadWriteOnce");
  pv.mutable_spec()->mutable_claim_ref()->set_namespace_(ns);
  pv.mutable_spec()->mutable_claim_ref()->set_name(claim);
  pv.mutable_spec()->set_storage_class_name(class_name);
  if (!zone.empty()) {
    v1::NodeSelectorRequirement* r = pv.mutable_spec()
                                         ->mutable_node_affinity()
                                         ->mutable_required()
                                         ->add_node_selector_terms()
                                         ->add_match_expressions();
    r->set_key(std::string(well_known::kLabelTopologyZone));
    r->set_operator_("In");
    r->add_values(zone);
  }
  pv.mutable_status()->set_phase("Bound");
  v1::PersistentVolumeClaim& pvc =
      cluster.persistent_volume_claims.emplace_back();
  pvc.set_api_version("v1");
  pvc.set_kind("PersistentVolumeClaim");
  pvc.mutable_metadata()->set_namespace_(ns);
  pvc.mutable_metadata()->set_name(claim);
  pvc.mutable_spec()->add_access_modes("ReadWriteOnce");
  pvc.mutable_spec()->set_volume_name(volume);
  pvc.mutable_spec()->set_storage_class_name(class_name);
  pvc.mutable_status()->set_phase("Bound");
}

absl::Status ExpandWorkloads(const v1::Scenario& scenario,
                             snapshot::ObjectSet& cluster) {
  std::set<std::string> pods;
  for (const v1::Pod& p : cluster.pods) {
    pods.insert(
        absl::StrCat(p.metadata().namespace_(), "/", p.metadata().name()));
  }
  Room room(cluster);
  const v1::GenerateSpec& gen = scenario.spec().generate();
  for (int i = 0; i < gen.workloads_size(); ++i) {
    const v1::WorkloadSpec& w = gen.workloads(i);
    const std::string path = absl::StrCat("spec.generate.workloads[", i, "]");
    const std::string ns = w.namespace_().empty() ? "default" : w.namespace_();
    const std::vector<std::string> nodes = NodesOfPool(cluster, w.node_pool());
    if (nodes.empty()) {
      return FieldError(path + ".nodePool", "no nodes in NodePool",
                        w.node_pool());
    }
    const int count =
        w.daemon_set() ? static_cast<int>(nodes.size()) : w.replicas();
    for (int k = 0; k < count; ++k) {
      // Round-robin over the pool's nodes, skipping a node without room
      // (kube-scheduler would not have put it there); a DaemonSet pod goes
      // to its node regardless.
      std::string node = nodes[k % nodes.size()];
      if (!w.daemon_set()) {
        size_t tried = 0;
        while (tried < nodes.size() &&
               !room.Fits(nodes[(k + tried) % nodes.size()], w)) {
          ++tried;
        }
        if (tried == nodes.size()) {
          return FieldError(
              path,
              absl::StrCat("no node of the pool has room for pod ", k,
                           " of workload"),
              w.name());
        }
        node = nodes[(k + tried) % nodes.size()];
      }
      room.Take(node, w);
      v1::Pod p = MakePod(scenario, w, ns, k, node);
      if (!pods.insert(absl::StrCat(ns, "/", p.metadata().name())).second) {
        return FieldError(path, "generated pod name already exists",
                          absl::StrCat(ns, "/", p.metadata().name()));
      }
      if (!w.volume_size().empty()) {
        AddZonalVolume(cluster, p, w.volume_size(), node);
      }
      cluster.pods.push_back(std::move(p));
    }
    if (w.has_pdb()) cluster.pdbs.push_back(MakePdb(w, ns));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<LoadedScenario> LoadScenario(absl::string_view text,
                                            absl::string_view source) {
  LoadedScenario out;
  KARPENTER_RETURN_IF_ERROR(snapshot::LoadText(text, source, out.cluster));
  std::vector<std::unique_ptr<google::protobuf::Message>> docs;
  KARPENTER_RETURN_IF_ERROR(snapshot::LoadDocumentsOfKind(
      text, source, kScenarioKind, v1::Scenario::default_instance(), docs));
  if (docs.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": no Scenario document"));
  }
  if (docs.size() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": ", docs.size(), " Scenario documents"));
  }
  out.scenario = static_cast<const v1::Scenario&>(*docs.front());
  if (out.scenario.api_version() != kScenarioApiVersion) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: Scenario apiVersion: expected \"%s\", got \"%s\"", source,
        kScenarioApiVersion, absl::CEscape(out.scenario.api_version())));
  }
  // The cluster loader skipped the Scenario as an unknown kind.
  auto it = out.cluster.skipped_kinds.find(std::string(kScenarioKind));
  if (it != out.cluster.skipped_kinds.end() && --it->second <= 0) {
    out.cluster.skipped_kinds.erase(it);
  }
  return out;
}

absl::StatusOr<LoadedScenario> LoadScenarioOrDump(absl::string_view text,
                                                  absl::string_view source) {
  std::vector<std::unique_ptr<google::protobuf::Message>> docs;
  KARPENTER_RETURN_IF_ERROR(snapshot::LoadDocumentsOfKind(
      text, source, kScenarioKind, v1::Scenario::default_instance(), docs));
  if (!docs.empty()) return LoadScenario(text, source);
  LoadedScenario out;
  KARPENTER_RETURN_IF_ERROR(snapshot::LoadText(text, source, out.cluster));
  out.scenario.set_api_version(std::string(kScenarioApiVersion));
  out.scenario.set_kind(std::string(kScenarioKind));
  out.scenario.mutable_metadata()->set_name(std::string(kDumpScenarioName));
  // The cloud's current image: the one most NodeClaims run (the smallest
  // name on a tie), so that only the others are AMI-drifted.
  std::map<std::string, int64_t> images;
  for (const v1::NodeClaim& c : out.cluster.node_claims) {
    if (!c.status().image_id().empty()) ++images[c.status().image_id()];
  }
  const std::string* image = nullptr;
  int64_t most = 0;
  for (const auto& [name, n] : images) {
    if (n > most) {
      most = n;
      image = &name;
    }
  }
  if (image != nullptr) out.scenario.mutable_spec()->set_image(*image);
  out.has_scenario_document = false;
  return out;
}

std::optional<absl::Time> DumpTime(const snapshot::ObjectSet& cluster) {
  std::optional<absl::Time> latest;
  const auto see = [&](const google::protobuf::Timestamp& ts) {
    if (ts.seconds() == 0 && ts.nanos() == 0) return;
    const absl::Time t = TimeFromProto(ts);
    if (!latest.has_value() || t > *latest) latest = t;
  };
  // An object's creation time and its conditions' times.
  const auto see_object = [&](const auto& object) {
    see(object.metadata().creation_timestamp());
    for (const v1::Condition& c : object.status().conditions()) {
      see(c.last_transition_time());
      see(c.last_heartbeat_time());
    }
  };
  for (const v1::Node& n : cluster.nodes) see_object(n);
  for (const v1::NodeClaim& c : cluster.node_claims) see_object(c);
  for (const v1::Pod& p : cluster.pods) see_object(p);
  for (const v1::NodePool& p : cluster.node_pools) see_object(p);
  return latest;
}

absl::StatusOr<std::vector<v1::ScenarioChange>> LoadChanges(
    absl::string_view text, absl::string_view source) {
  snapshot::ObjectSet objects;
  KARPENTER_RETURN_IF_ERROR(snapshot::LoadText(text, source, objects));
  std::vector<std::unique_ptr<google::protobuf::Message>> docs;
  KARPENTER_RETURN_IF_ERROR(snapshot::LoadDocumentsOfKind(
      text, source, kScenarioKind, v1::Scenario::default_instance(), docs));
  // Every kind but NodePool and Scenario is refused.
  std::vector<std::string> others;
  const auto count = [&](size_t n, absl::string_view kind) {
    if (n > 0) others.push_back(absl::StrCat(n, " ", kind));
  };
  count(objects.nodes.size(), "Node");
  count(objects.pods.size(), "Pod");
  count(objects.pdbs.size(), "PodDisruptionBudget");
  count(objects.node_claims.size(), "NodeClaim");
  count(objects.volume_attachments.size(), "VolumeAttachment");
  count(objects.persistent_volume_claims.size(), "PersistentVolumeClaim");
  count(objects.persistent_volumes.size(), "PersistentVolume");
  count(objects.storage_classes.size(), "StorageClass");
  count(objects.csi_nodes.size(), "CSINode");
  count(objects.daemon_sets.size(), "DaemonSet");
  for (const auto& [kind, n] : objects.skipped_kinds) {
    if (kind != kScenarioKind) count(static_cast<size_t>(n), kind);
  }
  if (!others.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source,
                     ": a change file holds NodePools and Scenario changes; "
                     "got ",
                     absl::StrJoin(others, ", ")));
  }
  std::vector<v1::ScenarioChange> out;
  for (v1::NodePool& pool : objects.node_pools) {
    v1::ScenarioChange& c = out.emplace_back();
    c.set_at("0s");
    *c.mutable_node_pool() = std::move(pool);
  }
  for (const auto& doc : docs) {
    const auto& scenario = static_cast<const v1::Scenario&>(*doc);
    if (scenario.api_version() != kScenarioApiVersion) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: Scenario apiVersion: expected \"%s\", got \"%s\"", source,
          kScenarioApiVersion, absl::CEscape(scenario.api_version())));
    }
    v1::ScenarioSpec rest = scenario.spec();
    rest.clear_changes();
    if (rest.ByteSizeLong() != 0) {
      std::vector<const google::protobuf::FieldDescriptor*> set;
      rest.GetReflection()->ListFields(rest, &set);
      return absl::InvalidArgumentError(absl::StrCat(
          source,
          ": Scenario document: only spec.changes is read from a change "
          "file; spec.",
          set.empty() ? "?" : set.front()->json_name(), " is set"));
    }
    for (const v1::ScenarioChange& c : scenario.spec().changes()) {
      out.push_back(c);
    }
  }
  if (out.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": no NodePool and no Scenario changes"));
  }
  return out;
}

absl::Status ValidateScenario(const v1::Scenario& scenario) {
  const v1::ScenarioSpec& spec = scenario.spec();
  if (!spec.has_start()) return FieldError("spec.start", "must be set", "");
  if (!spec.until().empty()) {
    KARPENTER_RETURN_IF_ERROR(
        NonNegativeDuration("spec.until", spec.until(), /*positive=*/true));
  }
  KARPENTER_RETURN_IF_ERROR(ValidateInstanceTypes(spec));
  std::set<std::string> protected_nodes;
  for (int i = 0; i < spec.termination_protection_size(); ++i) {
    const std::string& n = spec.termination_protection(i);
    const std::string path =
        absl::StrCat("spec.terminationProtection[", i, "]");
    if (n.empty()) return FieldError(path, "must be set", "");
    if (!protected_nodes.insert(n).second) {
      return FieldError(path, "duplicate node", n);
    }
  }
  KARPENTER_RETURN_IF_ERROR(ValidateNodeGroups(spec));
  KARPENTER_RETURN_IF_ERROR(ValidateWorkloads(spec));
  for (int i = 0; i < spec.changes_size(); ++i) {
    KARPENTER_RETURN_IF_ERROR(
        ValidateChange(absl::StrCat("spec.changes[", i, "]"), spec.changes(i)));
  }
  return absl::OkStatus();
}

absl::Status StampNodePoolHash(v1::NodePool& pool) {
  absl::StatusOr<std::string> hash = drift::NodePoolTemplateHash(pool);
  if (!hash.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "NodePool ", pool.metadata().name(), ": ", hash.status().message()));
  }
  auto& annotations = *pool.mutable_metadata()->mutable_annotations();
  annotations[std::string(well_known::kNodePoolHashAnnotationKey)] = *hash;
  annotations[std::string(well_known::kNodePoolHashVersionAnnotationKey)] =
      std::string(drift::kNodePoolHashVersion);
  return absl::OkStatus();
}

absl::Status ExpandGenerated(const v1::Scenario& scenario,
                             snapshot::ObjectSet& cluster) {
  snapshot::ObjectSet staged;
  staged.nodes = cluster.nodes;
  staged.node_claims = cluster.node_claims;
  staged.node_pools = cluster.node_pools;
  staged.pods = cluster.pods;
  staged.pdbs = cluster.pdbs;
  staged.persistent_volume_claims = cluster.persistent_volume_claims;
  staged.persistent_volumes = cluster.persistent_volumes;
  staged.storage_classes = cluster.storage_classes;
  KARPENTER_RETURN_IF_ERROR(ExpandNodes(scenario, staged));
  KARPENTER_RETURN_IF_ERROR(ExpandWorkloads(scenario, staged));
  cluster.nodes = std::move(staged.nodes);
  cluster.node_claims = std::move(staged.node_claims);
  cluster.pods = std::move(staged.pods);
  cluster.pdbs = std::move(staged.pdbs);
  cluster.persistent_volume_claims = std::move(staged.persistent_volume_claims);
  cluster.persistent_volumes = std::move(staged.persistent_volumes);
  cluster.storage_classes = std::move(staged.storage_classes);
  return absl::OkStatus();
}

absl::Time ScenarioStart(const v1::Scenario& scenario) {
  return TimeFromProto(scenario.spec().start());
}

absl::Time ScenarioEnd(const v1::Scenario& scenario) {
  absl::StatusOr<absl::Duration> until =
      ParseGoDuration(scenario.spec().until());
  if (scenario.spec().until().empty() || !until.ok() ||
      *until <= absl::ZeroDuration()) {
    until = ParseGoDuration(kDefaultUntil);
  }
  return ScenarioStart(scenario) + *until;
}

}  // namespace karpenter::testing
