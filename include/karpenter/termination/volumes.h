// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The volume-detachment wait of node termination (docs/semantics.md
// §4.2 step 5.2): after the drain, Karpenter keeps the instance until the
// VolumeAttachments bound to the node are deleted, so CSI volumes are cleanly
// detached before the instance goes. Ports `blockingVolumeAttachments` /
// `filterVolumeAttachments` of Karpenter
// pkg/controllers/node/termination/volumedetachment.go (controller.go in
// older releases), with `GetVolumeAttachments` of pkg/utils/node/node.go and
// `GetPersistentVolumeClaim` of pkg/utils/volume/volume.go, and the
// `NodeAwaitingVolumeDetachment` event of
// pkg/controllers/node/termination/terminator/events/events.go.
//
// Thread-safety: pure functions of their arguments; safe to call
// concurrently on one snapshot.

#ifndef KARPENTER_TERMINATION_VOLUMES_H_
#define KARPENTER_TERMINATION_VOLUMES_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "karpenter/snapshot/snapshot.h"

namespace karpenter::termination {

// The VolumeAttachments that still hold up the termination of node `n` at
// `now`, as indexes into `s.volume_attachments()`, in input order.
//
// Starts from the attachments whose `spec.nodeName` is the node
// (`Snapshot::VolumeAttachmentsOnNode`) and drops:
//   - those without `spec.source.persistentVolumeName` (inline volumes);
//   - those whose PV name is the `spec.volumeName` of a claim used by a pod
//     on the node that is NOT drainable (drain::PodClass::drainable, Karpenter
//     `IsDrainable`: the pod tolerates `karpenter.sh/disrupted:NoSchedule`,
//     is stuck terminating at `now`, or is a mirror pod). Such pods are never
//     evicted, so their volumes would never detach; waiting for them would
//     only burn the termination grace period.
// A pod's claims are its `volumes[].persistentVolumeClaim.claimName` and, for
// a generic ephemeral volume, "<pod name>-<volume name>", looked up in the
// pod's namespace. A claim missing from the snapshot is skipped, as Karpenter
// skips NotFound. Terminal pods are drainable, so they protect nothing.
//
// An empty result means the volumes are detached (`VolumesDetached=True`).
// Errors: InvalidArgument naming `n` if it is not < s.nodes().size().
absl::StatusOr<std::vector<snapshot::VolumeAttachmentIndex>>
PendingVolumeAttachments(const snapshot::Snapshot& s, snapshot::NodeIndex n,
                         absl::Time now);

// The message of the `AwaitingVolumeDetachment` event Karpenter publishes on
// the Node while `pending` is not empty:
// "Awaiting deletion of <len(pending)> VolumeAttachments bound to node".
std::string AwaitingVolumeDetachmentMessage(
    absl::Span<const snapshot::VolumeAttachmentIndex> pending);

// The names of the `pending` attachments of `s`, for logs and explanations
// (Karpenter's event gives only the count): the first `max_names` names
// joined by ", ", then " and <k> other(s)" for the rest, as Karpenter's
// pretty.Slice prints lists ("<k> other(s)" alone if no name is shown). An
// index out of range for `s` is shown as "<invalid index N>".
std::string DescribeVolumeAttachments(
    const snapshot::Snapshot& s,
    absl::Span<const snapshot::VolumeAttachmentIndex> pending,
    size_t max_names = 5);

}  // namespace karpenter::termination

#endif  // KARPENTER_TERMINATION_VOLUMES_H_
