// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The names of watch event types and object kinds
// (karpenter/state/cluster_state.h), shared by ClusterState and the watch
// stream decoder.

#include <array>
#include <variant>

#include "absl/strings/string_view.h"
#include "karpenter/state/cluster_state.h"

namespace karpenter::state {
namespace {

// Indexed by Object::index(): the order of the variant's alternatives.
constexpr std::array<absl::string_view, 11> kKindNames = {
    "Node",
    "Pod",
    "PodDisruptionBudget",
    "NodePool",
    "NodeClaim",
    "VolumeAttachment",
    "PersistentVolumeClaim",
    "PersistentVolume",
    "StorageClass",
    "CSINode",
    "DaemonSet",
};
static_assert(kKindNames.size() == std::variant_size_v<Object>,
              "one name per Object alternative");

}  // namespace

absl::string_view EventTypeName(EventType type) {
  switch (type) {
    case EventType::kAdded:
      return "ADDED";
    case EventType::kModified:
      return "MODIFIED";
    case EventType::kDeleted:
      return "DELETED";
  }
  return "UNKNOWN";
}

absl::string_view KindOf(const Object& object) {
  // valueless_by_exception cannot happen: protobuf moves do not throw.
  if (object.index() >= kKindNames.size()) return "";
  return kKindNames[object.index()];
}

}  // namespace karpenter::state
