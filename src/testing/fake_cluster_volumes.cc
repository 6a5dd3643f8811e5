// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// FakeCluster's attach/detach controller (fake_cluster_internal.h): a
// VolumeAttachment is detached volume_detach_delay after the last
// non-terminal pod on its node stops mounting its PV.

#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "testing/fake_cluster_internal.h"

namespace karpenter::testing::internal {

// Whether a non-terminal pod on the attachment's node mounts its PV through a
// claim (Karpenter's GetPersistentVolumeClaim naming, ephemeral included).
bool FakeClusterState::VolumeInUse(const v1::VolumeAttachment& va) const {
  const v1::VolumeAttachmentSource& source = va.spec().source();
  if (!source.has_persistent_volume_name()) return false;
  for (const auto& [id, r] : pods_) {
    const v1::Pod& pod = r.pod;
    if (pod.spec().node_name() != va.spec().node_name() || IsTerminal(pod)) {
      continue;
    }
    for (const v1::Volume& volume : pod.spec().volumes()) {
      std::string claim;
      if (volume.has_persistent_volume_claim()) {
        claim = volume.persistent_volume_claim().claim_name();
      } else if (volume.has_ephemeral()) {
        claim = absl::StrCat(pod.metadata().name(), "-", volume.name());
      } else {
        continue;
      }
      const auto pv =
          pv_of_claim_.find(Key(pod.metadata().namespace_(), claim));
      if (pv != pv_of_claim_.end() &&
          pv->second == source.persistent_volume_name()) {
        return true;
      }
    }
  }
  return false;
}

// Starts the detach clock of an attachment that lost its last user, or stops
// it for one that gained a user.
void FakeClusterState::RefreshVolume(VolumeRecord& v, absl::Time at) {
  if (VolumeInUse(v.object)) {
    v.unused_since.reset();
    return;
  }
  if (v.unused_since) return;
  v.unused_since = at;
  Event e;
  e.kind = EventKind::kDetach;
  e.volume = v.object.metadata().name();
  PushEvent(at + options_.volume_detach_delay, std::move(e));
}

void FakeClusterState::RefreshVolumesOn(absl::string_view node, absl::Time at) {
  if (node.empty()) return;
  for (auto& [name, v] : volumes_) {
    if (v.object.spec().node_name() == node) RefreshVolume(v, at);
  }
}

void FakeClusterState::Detach(absl::Time at, const std::string& name) {
  auto it = volumes_.find(name);
  // Stale if gone, in use again, or unused since later (its own event).
  if (it == volumes_.end() || !it->second.unused_since ||
      *it->second.unused_since + options_.volume_detach_delay > at) {
    return;
  }
  Log(at, absl::StrCat("detach ", name, " from ",
                       it->second.object.spec().node_name()));
  TouchVolume(name);
  volumes_.erase(it);
}

absl::Status FakeClusterState::AddVolumeAttachment(v1::VolumeAttachment va,
                                                   absl::Time now) {
  const std::string name = va.metadata().name();
  if (name.empty()) {
    return absl::InvalidArgumentError("metadata.name: must not be empty");
  }
  if (volumes_.contains(name)) {
    return absl::AlreadyExistsError(absl::StrCat(
        "volumeattachments.storage.k8s.io \"", name, "\" already exists"));
  }
  TouchVolume(name);
  VolumeRecord& v = volumes_[name];
  v.object = std::move(va);
  RefreshVolume(v, now);
  return absl::OkStatus();
}

}  // namespace karpenter::testing::internal
