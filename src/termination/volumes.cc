// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/termination/volumes.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "karpenter/drain/classify.h"

namespace karpenter::termination {
namespace {

using snapshot::NodeIndex;
using snapshot::Snapshot;
using snapshot::VolumeAttachmentIndex;

// Karpenter GetPersistentVolumeClaim: the claim a volume of `pod` names, or
// empty for a volume that is not backed by a claim.
std::string ClaimName(const v1::Pod& pod, const v1::Volume& volume) {
  if (volume.has_persistent_volume_claim()) {
    return volume.persistent_volume_claim().claim_name();
  }
  if (volume.has_ephemeral()) {
    // The ephemeral volume controller names the claim it creates this way.
    return absl::StrCat(pod.metadata().name(), "-", volume.name());
  }
  return "";
}

// The PV names of the claims used by the pods on `n` that the drain will
// never remove. Views into `s`.
absl::flat_hash_set<absl::string_view> VolumesOfUndrainablePods(
    const Snapshot& s, NodeIndex n, absl::Time now) {
  absl::flat_hash_set<absl::string_view> out;
  for (const snapshot::PodIndex p : s.PodsOnNode(n)) {
    const v1::Pod& pod = s.DecodePod(p);
    if (drain::Classify(pod, now).drainable) continue;
    for (const v1::Volume& volume : pod.spec().volumes()) {
      const std::string claim = ClaimName(pod, volume);
      if (claim.empty()) continue;
      const auto pvc =
          s.FindPersistentVolumeClaim(pod.metadata().namespace_(), claim);
      if (!pvc) continue;  // Karpenter skips NotFound.
      out.insert(s.persistent_volume_claims()[*pvc].spec().volume_name());
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<VolumeAttachmentIndex>> PendingVolumeAttachments(
    const Snapshot& s, NodeIndex n, absl::Time now) {
  if (n >= s.nodes().size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("node index \"", n, "\": out of range, the snapshot has ",
                     s.nodes().size(), " nodes"));
  }
  const absl::Span<const VolumeAttachmentIndex> attached =
      s.VolumeAttachmentsOnNode(n);
  std::vector<VolumeAttachmentIndex> pending;
  if (attached.empty()) return pending;
  const absl::flat_hash_set<absl::string_view> kept =
      VolumesOfUndrainablePods(s, n, now);
  for (const VolumeAttachmentIndex v : attached) {
    const v1::VolumeAttachmentSource& source =
        s.volume_attachments()[v].spec().source();
    if (!source.has_persistent_volume_name()) continue;
    if (kept.contains(source.persistent_volume_name())) continue;
    pending.push_back(v);
  }
  return pending;
}

std::string AwaitingVolumeDetachmentMessage(
    absl::Span<const VolumeAttachmentIndex> pending) {
  return absl::StrCat("Awaiting deletion of ", pending.size(),
                      " VolumeAttachments bound to node");
}

std::string DescribeVolumeAttachments(
    const Snapshot& s, absl::Span<const VolumeAttachmentIndex> pending,
    size_t max_names) {
  std::string out;
  size_t shown = 0;
  for (; shown < pending.size() && shown < max_names; ++shown) {
    const VolumeAttachmentIndex v = pending[shown];
    absl::StrAppend(&out, shown > 0 ? ", " : "");
    if (v < s.volume_attachments().size()) {
      absl::StrAppend(&out, s.volume_attachments()[v].metadata().name());
    } else {
      absl::StrAppend(&out, "<invalid index ", v, ">");
    }
  }
  if (shown < pending.size()) {
    absl::StrAppend(&out, shown > 0 ? " and " : "", pending.size() - shown,
                    " other(s)");
  }
  return out;
}

}  // namespace karpenter::termination
