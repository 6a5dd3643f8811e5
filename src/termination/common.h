// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Internal (not installed): helpers shared by the termination sources:
// labels, and the Node of a NodeClaim.
//
// Thread-safety: pure functions, safe to call concurrently.

#ifndef KARPENTER_SRC_TERMINATION_COMMON_H_
#define KARPENTER_SRC_TERMINATION_COMMON_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "google/protobuf/repeated_ptr_field.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/meta.pb.h"

namespace karpenter::termination::internal {

// The value of label `key`, or "" when absent.
inline std::string LabelOf(const v1::ObjectMeta& meta, absl::string_view key) {
  auto it = meta.labels().find(std::string(key));
  return it == meta.labels().end() ? std::string() : it->second;
}  // Nodes by `spec.providerID` (a lookup index; never iterated into output).
class NodesByProviderId {
 public:
  explicit NodesByProviderId(const snapshot::Snapshot& snapshot) {
    for (snapshot::NodeIndex n = 0; n < snapshot.nodes().size(); ++n) {
      const std::string& id = snapshot.nodes()[n].spec().provider_id();
      if (!id.empty()) index_[id].push_back(n);
    }
  }
  // Every Node with that providerID, in snapshot order; empty for "".
  std::vector<snapshot::NodeIndex> Find(absl::string_view provider_id) const {
    auto it = index_.find(provider_id);
    if (it == index_.end()) return {};
    return it->second;
  }

 private:
  absl::flat_hash_map<absl::string_view, std::vector<snapshot::NodeIndex>>
      index_;
};

// The Node of `claim`: the first Node carrying its providerID (as
// Karpenter's NodeForNodeClaim), else the Node named `status.nodeName`.
inline std::optional<snapshot::NodeIndex> NodeOfClaim(
    const snapshot::Snapshot& snapshot, const NodesByProviderId& by_id,
    const v1::NodeClaim& claim) {
  std::vector<snapshot::NodeIndex> found =
      by_id.Find(claim.status().provider_id());
  if (!found.empty()) return found.front();
  if (claim.status().node_name().empty()) return std::nullopt;
  return snapshot.FindNode(claim.status().node_name());
}

}  // namespace karpenter::termination::internal

#endif  // KARPENTER_SRC_TERMINATION_COMMON_H_
