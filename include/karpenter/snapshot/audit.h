// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Dump audit: what a cluster dump lacks before it is taken as a cluster.
//
// A `kubectl get -o yaml` dump always carries the timestamps the API server
// sets, but hand-written manifests do not, and proto3 reads an absent
// Timestamp as the Unix epoch: a NodeClaim without
// `metadata.creationTimestamp` would be 56 years old and expired, a
// condition without `lastTransitionTime` would have "transitioned" in 1970.
// `AuditDump` fills every such timestamp a decision reads with the pass
// time and reports what it filled, so a host (the `karpenter` CLI) can warn
// or refuse. The timestamps the disruption, drift, expiration and
// termination logic read (karpenter pkg/controllers/disruption/types.go
// `NewCandidate`, nodeclaim/expiration/controller.go, nodeclaim/disruption/
// drift.go and consolidation.go, node/termination):
//   - NodeClaim `metadata.creationTimestamp` (expiry, lifetime cost,
//     InstanceTypeNotFound drift) and `status.conditions[*].
//     lastTransitionTime` (Drifted, Initialized = consolidateAfter start,
//     Consolidatable, InstanceTerminating, ...);
//   - Node `metadata.creationTimestamp` (read by termination only:
//     registration and liveness; AuditOptions::node_creation);
//   - `metadata.deletionTimestamp` of a Node, NodeClaim or Pod that has
//     `metadata.deletionGracePeriodSeconds` (the API server sets both when
//     it marks an object for deletion, so the object is deleting).
// A Pod's creationTimestamp is read by no decision and is left alone.
//
// `AuditCoverage` looks at what kinds a dump holds and says which part of
// the cluster is probably missing (a dump with NodeClaims and no NodePools
// would make every NodeClaim look orphaned: Karpenter deletes the
// NodeClaims of a deleted NodePool), each with the kubectl command that
// adds it.
//
// Thread-safety: the functions are reentrant; concurrent calls must use
// distinct `ObjectSet`s.

#ifndef KARPENTER_SNAPSHOT_AUDIT_H_
#define KARPENTER_SNAPSHOT_AUDIT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "karpenter/snapshot/load.h"

namespace karpenter::snapshot {

enum class DumpWarningKind {
  // A timestamp a decision reads was absent and has been filled in.
  kMissingTimestamp,
  // The dump probably lacks a part of the cluster (AuditCoverage).
  kPartialDump,
  // Worth knowing, harmless to the decisions (e.g. an unused NodePool).
  kInformational,
};

// One finding, one line.
struct DumpWarning {
  DumpWarningKind kind = DumpWarningKind::kMissingTimestamp;
  // The file the object came from (AuditOptions::source); "" if unknown.
  std::string source = "";
  // The object's kind ("NodeClaim") and name ("default-abc"; pods
  // "namespace/name"); empty for AuditCoverage's dump-wide findings.
  std::string object_kind = "";
  std::string object = "";
  // The fields filled in, in the order checked, e.g.
  // "metadata.creationTimestamp", "status.conditions[Initialized]
  // .lastTransitionTime".
  std::vector<std::string> fields = {};
  // For AuditCoverage: the kubectl command that adds what is missing; ""
  // for informational findings.
  std::string kubectl = "";
  // The whole line, without a "warning: " prefix, e.g.
  //   nc.yaml: NodeClaim "default-abc": metadata.creationTimestamp is
  //   missing; taken as 2025-03-05T07:00:00Z (--at)
  std::string message = "";
};

struct AuditOptions {
  // Names the input in messages (a file name); "" for none.
  std::string source = "";
  // Says where `now` came from, shown after the time ("--at", "now").
  std::string now_label = "now";
  // Fill (and report) Nodes' creationTimestamp. Only the termination logic
  // reads it; a host that runs no termination (the CLI's dry runs) turns it
  // off so hand-written Nodes raise no warning about a field nothing reads.
  bool node_creation = true;
};

// Fills every timestamp listed in the file comment that `objects` lacks
// with `now` and returns one DumpWarning (kind kMissingTimestamp) per
// object changed, in the order nodes, NodeClaims, pods, each in input
// order; empty when nothing was missing. Present timestamps, however old,
// are left as they are. Errors: InvalidArgument when `now` is infinite
// (quoting it); `objects` is then unchanged.
absl::StatusOr<std::vector<DumpWarning>> AuditDump(ObjectSet& objects,
                                                   absl::Time now,
                                                   const AuditOptions& options);

// What the dump probably lacks, one DumpWarning each (kind kPartialDump
// unless said otherwise), in this order:
//   - NodeClaims but no NodePools (`kubectl get nodepools -o yaml`);
//   - Nodes labelled karpenter.sh/nodepool but no NodeClaims
//     (`kubectl get nodeclaims -o yaml`);
//   - pods bound (spec.nodeName) to nodes not in the dump
//     (`kubectl get nodes -o yaml`), naming up to 3 of those nodes;
//   - kInformational: NodePools that no Node or NodeClaim of the dump
//     refers to through karpenter.sh/nodepool, naming up to 5.
// Never fails: an empty vector for a consistent (or empty) dump.
std::vector<DumpWarning> AuditCoverage(const ObjectSet& objects);

}  // namespace karpenter::snapshot

#endif  // KARPENTER_SNAPSHOT_AUDIT_H_
