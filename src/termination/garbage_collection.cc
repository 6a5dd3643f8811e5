// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/termination/garbage_collection.h"

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/time.h"
#include "karpenter/conditions.h"
#include "karpenter/time_util.h"
#include "karpenter/well_known.h"
#include "termination/common.h"

namespace karpenter::termination {
namespace {

absl::Status CheckNonNegative(absl::string_view field, absl::Duration d) {
  if (d >= absl::ZeroDuration()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(field, ": \"", absl::FormatDuration(d), "\": must be >= 0"));
}

bool IsShellSafe(absl::string_view s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '.' || c == '-';
  });
}

// `s` inside single quotes for a POSIX shell.
std::string ShellQuote(absl::string_view s) {
  return absl::StrCat("'", absl::StrReplaceAll(s, {{"'", "'\\''"}}), "'");
}

void Wake(std::optional<absl::Time> due, absl::Time now,
          GarbageCollectionReport& report) {
  if (due.has_value() && *due > now && *due != absl::InfiniteFuture() &&
      (!report.next_wake.has_value() || *due < *report.next_wake)) {
    report.next_wake = due;
  }
}

// Checks the instance list and indexes the live (non-terminating) IDs.
absl::StatusOr<absl::flat_hash_set<absl::string_view>> LiveInstances(
    absl::Span<const Instance> instances) {
  absl::flat_hash_map<absl::string_view, size_t> seen;
  absl::flat_hash_set<absl::string_view> live;
  for (size_t i = 0; i < instances.size(); ++i) {
    const std::string& id = instances[i].provider_id;
    if (id.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("instances[", i, "].provider_id: must be non-empty"));
    }
    auto [it, inserted] = seen.emplace(id, i);
    if (!inserted) {
      return absl::InvalidArgumentError(
          absl::StrCat("duplicate instance \"", id, "\": instances[",
                       it->second, "] and instances[", i, "]"));
    }
    if (instances[i].state != InstanceState::kTerminating) live.insert(id);
  }
  return live;
}

InstanceVerdict JudgeInstance(
    const Instance& instance,
    const absl::flat_hash_map<absl::string_view, absl::string_view>& owners,
    const snapshot::Snapshot& snapshot,
    const internal::NodesByProviderId& nodes, absl::Time now,
    const GarbageCollectionOptions& o) {
  InstanceVerdict v;
  v.provider_id = instance.provider_id;
  if (instance.state == InstanceState::kTerminating) {
    v.reason = "terminating";
    v.why = "the instance is already terminating";
    return v;
  }
  if (auto it = owners.find(instance.provider_id); it != owners.end()) {
    v.reason = "owned";
    v.why = absl::StrCat("held by NodeClaim \"", it->second, "\"");
    return v;
  }
  v.due = instance.created + o.instance_grace;
  const std::string age = absl::StrCat(
      "no NodeClaim holds it; created ", FormatRfc3339(instance.created),
      ", grace ", absl::FormatDuration(o.instance_grace));
  if (now < *v.due) {
    v.reason = "within_grace";
    v.why = absl::StrCat(age, "; collectable at ", FormatRfc3339(*v.due));
    return v;
  }
  v.delete_instance = true;
  v.reason = "leaked";
  for (snapshot::NodeIndex n : nodes.Find(instance.provider_id)) {
    v.nodes.push_back(snapshot.nodes()[n].metadata().name());
  }
  std::sort(v.nodes.begin(), v.nodes.end());
  v.why = absl::StrCat(age, " elapsed; terminate it and delete ",
                       v.nodes.size(), " Node(s) carrying its provider ID");
  return v;
}

NodeClaimGcVerdict JudgeNodeClaim(
    const v1::NodeClaim& claim, const snapshot::Snapshot& snapshot,
    const internal::NodesByProviderId& nodes,
    const absl::flat_hash_set<absl::string_view>& live) {
  NodeClaimGcVerdict v;
  v.node_claim = claim.metadata().name();
  v.node_pool =
      internal::LabelOf(claim.metadata(), well_known::kNodePoolLabelKey);
  v.capacity_type =
      internal::LabelOf(claim.metadata(), well_known::kCapacityTypeLabelKey);
  const std::optional<snapshot::NodeIndex> node =
      internal::NodeOfClaim(snapshot, nodes, claim);
  if (node.has_value()) v.node = snapshot.nodes()[*node].metadata().name();
  const std::string& id = claim.status().provider_id();
  if (claim.metadata().has_deletion_timestamp()) {
    v.reason = "deleting";
    v.why = "the NodeClaim is already being deleted";
  } else if (!IsConditionTrue(claim.status().conditions(),
                              well_known::kConditionTypeRegistered)) {
    v.reason = "not_registered";
    v.why = "not Registered; left to the registration timeout";
  } else if (live.contains(id)) {
    v.reason = "instance_exists";
    v.why = absl::StrCat("instance \"", id, "\" exists");
  } else {
    const v1::Condition* ready =
        node.has_value()
            ? FindCondition(snapshot.nodes()[*node].status().conditions(),
                            well_known::kConditionTypeReady)
            : nullptr;
    const std::string gone =
        absl::StrCat("instance \"", id, "\" is gone or terminating");
    if (IsConditionTrue(ready)) {
      v.reason = "node_ready";
      v.why = absl::StrCat(gone, ", but Node \"", v.node,
                           "\" is Ready, which keeps the NodeClaim");
    } else {
      v.delete_node_claim = true;
      v.reason = std::string(kReasonGarbageCollected);
      v.why = absl::StrCat(
          gone, " and ",
          node.has_value() ? absl::StrCat("Node \"", v.node, "\" is not Ready")
                           : std::string("its Node is missing"));
    }
  }
  return v;
}

// The finalizer verdict for a deleting object, or nullopt if it is not
// deleting or lacks the finalizer.
std::optional<FinalizerVerdict> JudgeFinalizer(
    ObjectKind kind, const v1::ObjectMeta& meta, absl::Time now,
    const GarbageCollectionOptions& o) {
  if (!meta.has_deletion_timestamp()) return std::nullopt;
  const auto& list = meta.finalizers();
  auto it =
      std::find(list.begin(), list.end(), well_known::kTerminationFinalizer);
  if (it == list.end()) return std::nullopt;
  FinalizerVerdict v;
  v.kind = kind;
  v.name = meta.name();
  v.deleting_since = TimeFromProto(meta.deletion_timestamp());
  const absl::Time due = v.deleting_since + o.orphaned_finalizer_after;
  const std::string head = absl::StrCat(
      "deleting since ", FormatRfc3339(v.deleting_since), "; finalizer ",
      well_known::kTerminationFinalizer, " still present");
  if (now < due) {
    v.reason = "terminating";
    v.due = due;
    v.why =
        absl::StrCat(head, "; reported as orphaned at ", FormatRfc3339(due));
    return v;
  }
  v.reason = "orphaned_finalizer";
  v.why = absl::StrCat(
      head, ": termination controller absent for ",
      absl::FormatDuration(now - v.deleting_since), " (limit ",
      absl::FormatDuration(o.orphaned_finalizer_after),
      "); run the command only if the controller is gone for good");
  v.command =
      RemoveFinalizerCommand(kind, v.name, static_cast<int>(it - list.begin()),
                             well_known::kTerminationFinalizer);
  return v;
}

}  // namespace

absl::Status GarbageCollectionOptions::Validate() const {
  if (absl::Status s = CheckNonNegative("instance_grace", instance_grace);
      !s.ok()) {
    return s;
  }
  return CheckNonNegative("orphaned_finalizer_after", orphaned_finalizer_after);
}

std::string RemoveFinalizerCommand(ObjectKind kind, absl::string_view name,
                                   int index, absl::string_view finalizer) {
  const std::string path = absl::StrCat("/metadata/finalizers/", index);
  const std::string value =
      absl::StrReplaceAll(finalizer, {{"\\", "\\\\"}, {"\"", "\\\""}});
  const std::string patch =
      absl::StrCat("[{\"op\":\"test\",\"path\":\"", path, "\",\"value\":\"",
                   value, "\"},{\"op\":\"remove\",\"path\":\"", path, "\"}]");
  return absl::StrCat(
      "kubectl patch ",
      kind == ObjectKind::kNode ? "node" : "nodeclaims.karpenter.sh", " ",
      IsShellSafe(name) ? std::string(name) : ShellQuote(name),
      " --type=json -p ", ShellQuote(patch));
}

absl::StatusOr<GarbageCollectionReport> CollectGarbage(
    const snapshot::Snapshot& snapshot, absl::Span<const Instance> instances,
    absl::Time now, const GarbageCollectionOptions& options) {
  if (absl::Status s = options.Validate(); !s.ok()) return s;
  absl::StatusOr<absl::flat_hash_set<absl::string_view>> live =
      LiveInstances(instances);
  if (!live.ok()) return live.status();
  const internal::NodesByProviderId nodes(snapshot);
  // providerID -> the first NodeClaim (snapshot order) holding it; any
  // NodeClaim, deleting or not, protects its instance.
  absl::flat_hash_map<absl::string_view, absl::string_view> owners;
  for (const v1::NodeClaim& claim : snapshot.node_claims()) {
    const std::string& id = claim.status().provider_id();
    if (!id.empty()) owners.emplace(id, claim.metadata().name());
  }

  GarbageCollectionReport report;
  report.now = now;
  for (const Instance& instance : instances) {
    report.instances.push_back(
        JudgeInstance(instance, owners, snapshot, nodes, now, options));
    Wake(report.instances.back().due, now, report);
  }
  std::sort(report.instances.begin(), report.instances.end(),
            [](const InstanceVerdict& a, const InstanceVerdict& b) {
              return a.provider_id < b.provider_id;
            });
  for (const v1::NodeClaim& claim : snapshot.node_claims()) {
    report.node_claims.push_back(JudgeNodeClaim(claim, snapshot, nodes, *live));
  }
  std::sort(report.node_claims.begin(), report.node_claims.end(),
            [](const NodeClaimGcVerdict& a, const NodeClaimGcVerdict& b) {
              return a.node_claim < b.node_claim;
            });
  for (const v1::Node& node : snapshot.nodes()) {
    if (auto v =
            JudgeFinalizer(ObjectKind::kNode, node.metadata(), now, options)) {
      report.finalizers.push_back(*std::move(v));
    }
  }
  for (const v1::NodeClaim& claim : snapshot.node_claims()) {
    if (auto v = JudgeFinalizer(ObjectKind::kNodeClaim, claim.metadata(), now,
                                options)) {
      report.finalizers.push_back(*std::move(v));
    }
  }
  std::sort(report.finalizers.begin(), report.finalizers.end(),
            [](const FinalizerVerdict& a, const FinalizerVerdict& b) {
              return std::tie(a.kind, a.name) < std::tie(b.kind, b.name);
            });
  for (const FinalizerVerdict& v : report.finalizers) Wake(v.due, now, report);
  return report;
}

}  // namespace karpenter::termination
