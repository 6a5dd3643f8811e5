// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Garbage collection: which cloud instances leaked (no NodeClaim holds
// them), which NodeClaims lost their instance, and which deleting Nodes and
// NodeClaims are stuck on a termination finalizer nobody will remove,
// decided from a snapshot, the cloud's instance list and a time, with a
// verdict for every instance and NodeClaim (docs/design.md §1).
// ApplyGarbageCollection (karpenter/termination/janitor.h) carries the
// deletions out.
//
// Ports (docs/semantics.md §0, §4.6, §4.7):
//   * AWS instance garbage collection (aws
//     pkg/controllers/nodeclaim/garbagecollection/controller.go): an instance
//     that is not terminating, whose provider ID no NodeClaim's
//     `status.providerID` holds, and that was created at least
//     instance_grace (30 s) ago is terminated, and every Node whose
//     `spec.providerID` is that ID is deleted.
//   * Core NodeClaim garbage collection (pkg/controllers/nodeclaim/
//     garbagecollection/controller.go): a NodeClaim that is Registered=True,
//     not deleting, whose providerID is not among the instances (terminating
//     instances count as absent), and whose Node is missing or not Ready is
//     deleted, metric reason `garbage_collected`. A Ready Node keeps its
//     NodeClaim; an unregistered NodeClaim is left to the registration
//     timeout (karpenter/termination/liveness.h).
//   * An SDK addition with no Karpenter counterpart: Nodes and NodeClaims
//     deleting for longer than orphaned_finalizer_after that still carry
//     `karpenter.sh/termination`. They are only reported, each with the
//     kubectl command that removes the finalizer. Removing it skips the
//     drain and, for a NodeClaim, the instance termination (the instance
//     may leak until instance GC finds it); only a host that knows the
//     termination controller is gone for good should run the command.
//
// `instances` must be the cloud's complete list (CloudProvider::List()):
// a partial list makes every NodeClaim of a missing instance look orphaned.
//
// Thread-safety: CollectGarbage is a pure function of its arguments; the
// returned report is a plain value.

#ifndef KARPENTER_TERMINATION_GARBAGE_COLLECTION_H_
#define KARPENTER_TERMINATION_GARBAGE_COLLECTION_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "karpenter/cloud_provider.h"
#include "karpenter/cluster_view.h"
#include "karpenter/snapshot/snapshot.h"

namespace karpenter::termination {

// Metric reason of a NodeClaim deleted by garbage collection.
inline constexpr absl::string_view kReasonGarbageCollected =
    "garbage_collected";

struct GarbageCollectionOptions {
  // A NodeClaim-less instance younger than this is left alone (its
  // NodeClaim may not be written yet). Must be >= 0.
  absl::Duration instance_grace = absl::Seconds(30);
  // A termination finalizer still present this long after the
  // deletionTimestamp is reported as orphaned. Must be >= 0.
  absl::Duration orphaned_finalizer_after = absl::Minutes(10);

  // OK, or InvalidArgument naming the field and its value, e.g.
  // `instance_grace: "-1s": must be >= 0`.
  absl::Status Validate() const;
};

// The verdict for one cloud instance.
struct InstanceVerdict {
  std::string provider_id;
  // True: terminate the instance, then delete `nodes`.
  bool delete_instance = false;
  // Nodes whose spec.providerID is `provider_id`, sorted by name; deleted
  // with a leaked instance.
  std::vector<std::string> nodes;
  // "leaked" (delete_instance), or "owned" (a NodeClaim holds it),
  // "terminating", "within_grace".
  std::string reason;
  std::string why;
  // "leaked": when it became collectable; "within_grace": when it will be.
  std::optional<absl::Time> due;
};

// The verdict for one NodeClaim.
struct NodeClaimGcVerdict {
  std::string node_claim;
  // Its Node ("" if none), labels karpenter.sh/nodepool and
  // karpenter.sh/capacity-type ("" if absent), for events and metrics.
  std::string node;
  std::string node_pool;
  std::string capacity_type;
  bool delete_node_claim = false;
  // kReasonGarbageCollected (delete_node_claim), or "deleting",
  // "not_registered", "instance_exists", "node_ready".
  std::string reason;
  std::string why;
};

// A deleting object carrying `karpenter.sh/termination`.
struct FinalizerVerdict {
  ObjectKind kind = ObjectKind::kNode;
  std::string name;
  absl::Time deleting_since;
  // "orphaned_finalizer" (past orphaned_finalizer_after: `command` is set)
  // or "terminating" (still within it).
  std::string reason;
  std::string why;
  // E.g. kubectl patch node n1 --type=json -p '[{"op":"test","path":
  // "/metadata/finalizers/0","value":"karpenter.sh/termination"},{"op":
  // "remove","path":"/metadata/finalizers/0"}]' (one line). The test op
  // makes the API server refuse the patch if the finalizer list changed
  // since the snapshot. "" for "terminating".
  std::string command;
  // "terminating": when it becomes "orphaned_finalizer".
  std::optional<absl::Time> due;
};

struct GarbageCollectionReport {
  absl::Time now;
  // One per instance, sorted by provider ID.
  std::vector<InstanceVerdict> instances;
  // One per NodeClaim, sorted by name.
  std::vector<NodeClaimGcVerdict> node_claims;
  // Deleting objects carrying the finalizer: Nodes then NodeClaims, each
  // sorted by name. Never acted on.
  std::vector<FinalizerVerdict> finalizers;
  // The earliest `due` after `now`, or nullopt.
  std::optional<absl::Time> next_wake;
};

// Evaluates the three rules above at `now`.
// Errors: InvalidArgument from `options.Validate()`, for an instance with an
// empty provider ID (`instances[2].provider_id: must be non-empty`), or for
// a provider ID listed twice (quoting it and both positions).
absl::StatusOr<GarbageCollectionReport> CollectGarbage(
    const snapshot::Snapshot& snapshot, absl::Span<const Instance> instances,
    absl::Time now, const GarbageCollectionOptions& options);

// The one-line kubectl command that removes finalizer `finalizer` at
// position `index` of the object's `metadata.finalizers`, guarded by a JSON
// patch test op. `kind` selects `node` or `nodeclaims.karpenter.sh`; a name
// with characters outside [A-Za-z0-9.-] is single-quoted for the shell.
std::string RemoveFinalizerCommand(ObjectKind kind, absl::string_view name,
                                   int index, absl::string_view finalizer);

}  // namespace karpenter::termination

#endif  // KARPENTER_TERMINATION_GARBAGE_COLLECTION_H_
