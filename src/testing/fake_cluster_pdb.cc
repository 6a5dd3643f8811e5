// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// FakeCluster's PodDisruptionBudget enforcement (fake_cluster_internal.h):
// each PDB's status as the disruption controller computes it
// (pkg/controller/disruption/disruption.go), live on every call, and the
// eviction subresource that checks it (pkg/registry/core/pod/storage/
// eviction.go), with the PdbViolations() invariant.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/status_macros.h"
#include "karpenter/budget/pdb.h"
#include "karpenter/conditions.h"
#include "karpenter/eviction_client.h"
#include "karpenter/intstr.h"
#include "karpenter/selector.h"
#include "karpenter/well_known.h"
#include "testing/fake_cluster_internal.h"

namespace karpenter::testing::internal {
namespace {

constexpr absl::string_view kPdbMessage =
    "Cannot evict pod as it would violate the pod's disruption budget.";
constexpr int64_t kDefaultGraceSeconds = 30;  // The API server's default.

// eviction.go `canIgnorePDB`.
bool CanIgnorePdb(const v1::Pod& pod) {
  return IsTerminal(pod) || pod.status().phase() == "Pending" ||
         IsTerminating(pod);
}

bool IsSet(bool has, const google::protobuf::Value& v) {
  return has && v.kind_case() != google::protobuf::Value::KIND_NOT_SET &&
         v.kind_case() != google::protobuf::Value::kNullValue;
}

}  // namespace

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

// --- PDB arithmetic (disruption.go). ---------------------------------------

// Scales and healthy counts are kept per controller and per PDB and
// brought up to date lazily: each reads again only the pods changed since it
// last counted (DirtyPdbs), so a count costs the changes, not the pods.
int64_t FakeClusterState::ControllerScale(const std::string& key) const {
  auto it = controllers_.find(key);
  if (it == controllers_.end()) return 0;
  const ControllerRecord& c = it->second;
  for (PodId id : c.stale) {
    const auto pod = pods_.find(id);
    if (pod != pods_.end() && c.pods.contains(id) &&
        IsActive(pod->second.pod)) {
      c.active.insert(id);
    } else {
      c.active.erase(id);
    }
  }
  c.stale.clear();
  return c.pending + static_cast<int64_t>(c.active.size());
}

// getExpectedScale: each distinct controller of the selected pods counts its
// scale once; a pod without a controller counts 1 (see the header).
int64_t FakeClusterState::ExpectedFromControllers(const PdbRecord& pdb) const {
  int64_t expected = pdb.bare_pods;
  for (const auto& [controller, pods] : pdb.controllers) {
    expected += ControllerScale(controller);
  }
  return expected;
}

void FakeClusterState::DirtyPdbs(PodId id, const PodRecord& r) {
  for (uint32_t p : r.pdbs) {
    pdbs_[p].counts.reset();
    pdbs_[p].stale.push_back(id);
  }
  if (r.controller.empty()) return;
  auto it = controllers_.find(r.controller);
  if (it == controllers_.end()) return;
  it->second.stale.push_back(id);
  for (uint32_t p : it->second.pdbs) pdbs_[p].counts.reset();
}

void FakeClusterState::DirtyControllerPdbs(const std::string& controller) {
  auto it = controllers_.find(controller);
  if (it == controllers_.end()) return;
  for (uint32_t p : it->second.pdbs) pdbs_[p].counts.reset();
}

namespace {

// disruption.go updatePdbStatus from the healthy pods and a getExpectedScale
// thunk (read only for maxUnavailable and percentage minAvailable).
template <typename Expected>
PdbCounts Derive(const PdbRecord& pdb, int64_t healthy, Expected expected) {
  PdbCounts c;
  c.current_healthy = healthy;
  if (pdb.max_unavailable) {
    c.expected_pods = expected();
    const int64_t max_unavailable =
        pdb.max_unavailable->Scale(c.expected_pods, true).value_or(0);
    c.desired_healthy = std::max<int64_t>(c.expected_pods - max_unavailable, 0);
  } else if (pdb.min_available && pdb.min_available->is_percent()) {
    c.expected_pods = expected();
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

}  // namespace

PdbCounts FakeClusterState::Counts(const PdbRecord& pdb) const {
  if (pdb.counts.has_value()) return *pdb.counts;
  for (PodId id : pdb.stale) {
    const auto pod = pods_.find(id);
    if (pod != pods_.end() && pdb.pods.contains(id) &&
        budget::PodIsHealthy(pod->second.pod)) {
      pdb.healthy.insert(id);
    } else {
      pdb.healthy.erase(id);
    }
  }
  pdb.stale.clear();
  pdb.counts = Derive(pdb, static_cast<int64_t>(pdb.healthy.size()),
                      [&] { return ExpectedFromControllers(pdb); });
  return *pdb.counts;
}

PdbCounts FakeClusterState::Recount(const PdbRecord& pdb) const {
  int64_t healthy = 0;
  for (PodId id : pdb.pods) {
    if (budget::PodIsHealthy(pods_.at(id).pod)) ++healthy;
  }
  return Derive(pdb, healthy, [&] {
    std::set<absl::string_view> seen;
    int64_t expected = 0;
    for (PodId id : pdb.pods) {
      const PodRecord& r = pods_.at(id);
      if (r.controller.empty()) {
        ++expected;
        continue;
      }
      if (!seen.insert(r.controller).second) continue;
      const ControllerRecord& c = controllers_.at(r.controller);
      expected += c.pending;
      for (PodId other : c.pods) {
        if (IsActive(pods_.at(other).pod)) ++expected;
      }
    }
    return expected;
  });
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
  // podutil.IsPodReady: condition Ready with status True.
  if (!IsConditionTrue(pod.status().conditions(),
                       well_known::kConditionTypeReady)) {
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
  TouchPod(id);
  SetPodCondition(r.pod, well_known::kConditionTypeDisruptionTarget,
                  well_known::kConditionTrue,
                  well_known::kReasonEvictionByEvictionAPI, now);
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

}  // namespace karpenter::testing::internal
