// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/testing/fake_node_lifecycle.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "karpenter/conditions.h"
#include "karpenter/time_util.h"
#include "karpenter/well_known.h"

namespace karpenter::testing {
namespace {

// Sets condition `type` to True at `now` (keeping an existing True's time).
void SetTrue(v1::NodeClaimStatus& status, absl::string_view type,
             absl::Time now) {
  for (v1::Condition& c : *status.mutable_conditions()) {
    if (c.type() != type) continue;
    if (c.status() != well_known::kConditionTrue) {
      *c.mutable_last_transition_time() = TimeToProto(now);
    }
    c.set_status(std::string(well_known::kConditionTrue));
    c.set_reason(std::string(type));
    return;
  }
  v1::Condition* c = status.add_conditions();
  c->set_type(std::string(type));
  c->set_status(std::string(well_known::kConditionTrue));
  c->set_reason(std::string(type));
  *c->mutable_last_transition_time() = TimeToProto(now);
}

v1::Node MakeNode(const v1::NodeClaim& claim, const Instance& instance,
                  const std::map<std::string, std::string>& resources,
                  absl::Time now) {
  v1::Node node;
  v1::ObjectMeta& meta = *node.mutable_metadata();
  meta.set_name(claim.metadata().name());
  *meta.mutable_creation_timestamp() = TimeToProto(now);
  auto& labels = *meta.mutable_labels();
  labels = claim.metadata().labels();
  labels[std::string(well_known::kLabelInstanceTypeStable)] =
      instance.instance_type;
  labels[std::string(well_known::kLabelTopologyZone)] = instance.zone;
  labels[std::string(well_known::kCapacityTypeLabelKey)] =
      instance.capacity_type;
  labels[std::string(well_known::kLabelHostname)] = claim.metadata().name();
  labels[std::string(well_known::kNodeRegisteredLabelKey)] = "true";
  meta.add_finalizers(std::string(well_known::kTerminationFinalizer));
  node.mutable_spec()->set_provider_id(instance.provider_id);
  *node.mutable_spec()->mutable_taints() = claim.spec().taints();
  for (const auto& [name, quantity] : resources) {
    (*node.mutable_status()->mutable_capacity())[name] = quantity;
    (*node.mutable_status()->mutable_allocatable())[name] = quantity;
  }
  v1::Condition* ready = node.mutable_status()->add_conditions();
  ready->set_type(std::string(well_known::kConditionTypeReady));
  ready->set_status(std::string(well_known::kConditionTrue));
  ready->set_reason(std::string(well_known::kReasonKubeletReady));
  *ready->mutable_last_transition_time() = TimeToProto(now);
  return node;
}

void AddWake(std::optional<absl::Time>& wake, absl::Time t) {
  if (!wake || t < *wake) wake = t;
}

}  // namespace

absl::StatusOr<std::unique_ptr<FakeNodeLifecycle>> FakeNodeLifecycle::Create(
    FakeCluster& cluster, FakeCloudProvider& cloud, Clock& clock,
    FakeNodeLifecycleOptions options) {
  const absl::Duration d = options.initialization_delay;
  if (d < absl::ZeroDuration() || d == absl::InfiniteDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("FakeNodeLifecycleOptions.initialization_delay: \"",
                     absl::FormatDuration(d), "\": must be finite and >= 0"));
  }
  return std::unique_ptr<FakeNodeLifecycle>(
      new FakeNodeLifecycle(cluster, cloud, clock, std::move(options)));
}

absl::StatusOr<LifecycleReport> FakeNodeLifecycle::Reconcile() {
  const absl::Time now = clock_.Now();
  LifecycleReport report;
  KARPENTER_ASSIGN_OR_RETURN(const snapshot::Snapshot snap, cluster_.Read());
  KARPENTER_ASSIGN_OR_RETURN(const std::vector<Instance> instances,
                             cloud_.List());
  std::map<std::string, const Instance*, std::less<>> by_id;
  for (const Instance& i : instances) by_id[i.provider_id] = &i;
  std::optional<std::vector<InstanceType>> catalogue;

  // The snapshot lists NodeClaims by name.
  for (const v1::NodeClaim& claim : snap.node_claims()) {
    const std::string& name = claim.metadata().name();
    const std::string& id = claim.status().provider_id();
    if (claim.metadata().has_deletion_timestamp() || id.empty()) continue;
    auto found = by_id.find(id);
    if (found == by_id.end()) continue;  // Gone, or never launched.
    const Instance& instance = *found->second;
    const auto& conditions = claim.status().conditions();
    if (IsConditionTrue(conditions, well_known::kConditionTypeLaunched) &&
        IsConditionTrue(conditions, well_known::kConditionTypeRegistered) &&
        IsConditionTrue(conditions, well_known::kConditionTypeInitialized)) {
      continue;  // Nothing left to do for it (most claims, most passes).
    }
    v1::NodeClaimStatus status = claim.status();
    bool changed = false;
    if (!IsConditionTrue(status.conditions(),
                         well_known::kConditionTypeLaunched)) {
      // Karpenter's launch copies the instance's placement onto the
      // NodeClaim's labels (PopulateNodeClaimDetails); requirements drift
      // reads them.
      for (const auto& [key, value] :
           {std::pair<absl::string_view, const std::string*>{
                well_known::kLabelInstanceTypeStable, &instance.instance_type},
            {well_known::kLabelTopologyZone, &instance.zone},
            {well_known::kCapacityTypeLabelKey, &instance.capacity_type}}) {
        if (value->empty()) continue;
        const absl::Status labelled =
            cluster_.SetLabel(ObjectKind::kNodeClaim, name, key, *value);
        if (!labelled.ok()) {
          return absl::Status(labelled.code(),
                              absl::StrCat("label NodeClaim \"", name,
                                           "\": ", labelled.message()));
        }
      }
      SetTrue(status, well_known::kConditionTypeLaunched, now);
      report.launched.push_back(name);
      changed = true;
    }
    // A Node of that name from an earlier, interrupted pass is adopted if
    // it has the instance's providerID; another one blocks registration.
    const std::optional<snapshot::NodeIndex> existing = snap.FindNode(name);
    if (!IsConditionTrue(status.conditions(),
                         well_known::kConditionTypeRegistered) &&
        instance.state == InstanceState::kRunning &&
        (!existing || snap.nodes()[*existing].spec().provider_id() == id)) {
      if (!catalogue) {
        KARPENTER_ASSIGN_OR_RETURN(catalogue,
                                   cloud_.GetInstanceTypes(v1::NodePool()));
      }
      std::map<std::string, std::string> resources =
          options_.default_allocatable;
      for (const InstanceType& t : *catalogue) {
        if (t.name == instance.instance_type) resources = t.capacity;
      }
      const absl::Status added =
          existing
              ? absl::OkStatus()
              : cluster_.AddNode(MakeNode(claim, instance, resources, now));
      if (!added.ok() && !absl::IsAlreadyExists(added)) {
        return absl::Status(added.code(),
                            absl::StrCat("register NodeClaim \"", name,
                                         "\": ", added.message()));
      }
      status.set_node_name(name);
      status.set_image_id(instance.image_id);
      for (const auto& [resource, quantity] : resources) {
        (*status.mutable_capacity())[resource] = quantity;
        (*status.mutable_allocatable())[resource] = quantity;
      }
      SetTrue(status, well_known::kConditionTypeRegistered, now);
      report.registered.push_back(name);
      changed = true;
    }
    if (IsConditionTrue(status.conditions(),
                        well_known::kConditionTypeRegistered) &&
        !IsConditionTrue(status.conditions(),
                         well_known::kConditionTypeInitialized)) {
      const absl::Time due =
          TimeFromProto(FindCondition(status.conditions(),
                                      well_known::kConditionTypeRegistered)
                            ->last_transition_time()) +
          options_.initialization_delay;
      if (due <= now) {
        const absl::Status labelled =
            cluster_.SetLabel(ObjectKind::kNode, status.node_name(),
                              well_known::kNodeInitializedLabelKey, "true");
        if (!labelled.ok() && !absl::IsNotFound(labelled)) {
          return absl::Status(labelled.code(),
                              absl::StrCat("initialise NodeClaim \"", name,
                                           "\": ", labelled.message()));
        }
        SetTrue(status, well_known::kConditionTypeInitialized, now);
        report.initialized.push_back(name);
        changed = true;
      } else {
        AddWake(report.next_wake, due);
      }
    }
    if (changed) {
      const absl::Status written = cluster_.SetNodeClaimStatus(name, status);
      if (!written.ok()) {
        return absl::Status(written.code(),
                            absl::StrCat("update NodeClaim \"", name,
                                         "\" status: ", written.message()));
      }
    }
  }
  return report;
}

}  // namespace karpenter::testing
