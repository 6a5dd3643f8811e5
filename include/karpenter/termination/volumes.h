// TEMPORARY STUB (not committed)
#ifndef KARPENTER_TERMINATION_VOLUMES_H_
#define KARPENTER_TERMINATION_VOLUMES_H_
#include <vector>

#include "absl/status/statusor.h"
#include "karpenter/snapshot/snapshot.h"
namespace karpenter::snapshot {
using VolumeAttachmentIndex = uint32_t;
}
namespace karpenter::termination {
inline absl::StatusOr<std::vector<snapshot::VolumeAttachmentIndex>>
PendingVolumeAttachments(const snapshot::Snapshot&, snapshot::NodeIndex,
                         absl::Time) {
  return std::vector<snapshot::VolumeAttachmentIndex>{};
}
}  // namespace karpenter::termination
#endif
