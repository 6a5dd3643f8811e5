// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// FakeCluster itself (karpenter/testing/fake_cluster.h): the facade over
// FakeClusterState (fake_cluster_internal.h). It takes the mutex, applies
// the due transitions, checks arguments as the API server would, consults
// the scripted faults and writes the call log; the parts of the cluster
// each live in their own fake_cluster_*.cc.

#include "karpenter/testing/fake_cluster.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/status_macros.h"
#include "host/cluster_view_checks.h"
#include "karpenter/budget/pdb.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/time_util.h"
#include "testing/fake_cluster_internal.h"
#include "testing/mutex_lock.h"

namespace karpenter::testing {
namespace {

using internal::FakeClusterState;
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
  internal::MutexLock lock(&mu_);
  const absl::Time now = clock_.Now();
  state_->Advance(now);
  auto fault = TakeFault(FakeMethod::kRead);
  state_->Log(now, absl::StrCat("Read -> ",
                                internal::StatusText(fault ? fault->first
                                                           : absl::OkStatus()),
                                fault ? " (injected)" : ""));
  if (fault) return fault->first;
  // The mirror is fed what changed since the last Read and is only touched
  // under the mutex (ClusterState has one writer).
  KARPENTER_RETURN_IF_ERROR(state_->SyncMirror());
  return state_->mirror().TakeSnapshot();
}

absl::Status FakeCluster::CheckReadMirror() {
  internal::MutexLock lock(&mu_);
  state_->Advance(clock_.Now());
  KARPENTER_RETURN_IF_ERROR(state_->SyncMirror());
  return state_->CheckMirror();
}

absl::Status FakeCluster::SetNodeReady(absl::string_view node, bool ready) {
  KARPENTER_RETURN_IF_ERROR(host_checks::CheckNotEmpty("node", node));
  internal::MutexLock lock(&mu_);
  const absl::Time now = clock_.Now();
  state_->Advance(now);
  return state_->SetNodeReady(node, ready, now);
}

bool FakeCluster::HasUnschedulablePods() {
  internal::MutexLock lock(&mu_);
  state_->Advance(clock_.Now());
  return state_->HasUnscheduled();
}

std::string FakeCluster::NodeOfPod(const PodRef& pod) {
  internal::MutexLock lock(&mu_);
  state_->Advance(clock_.Now());
  return state_->NodeOfPod(pod);
}

PlacementCheck FakeCluster::CheckPlacement() {
  internal::MutexLock lock(&mu_);
  state_->Advance(clock_.Now());
  return state_->CheckPlacement();
}

absl::Status FakeCluster::SucceedPod(const PodRef& pod) {
  internal::MutexLock lock(&mu_);
  const absl::Time now = clock_.Now();
  state_->Advance(now);
  return state_->SucceedPod(pod, now);
}

snapshot::ObjectSet FakeCluster::ExportObjects() {
  internal::MutexLock lock(&mu_);
  state_->Advance(clock_.Now());
  return state_->Export();
}

absl::StatusOr<snapshot::Snapshot> FakeCluster::ReadWithoutPods() {
  internal::MutexLock lock(&mu_);
  state_->Advance(clock_.Now());
  KARPENTER_RETURN_IF_ERROR(state_->SyncMirror());
  return state_->mirror().TakeSnapshotWithoutPods();
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
    return absl::InvalidArgumentError(absl::StrCat(
        "RunUntil: limit ", FormatRfc3339(limit),
        " is before the current time ", FormatRfc3339(clock.Now())));
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
