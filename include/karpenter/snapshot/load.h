// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Snapshot ingestion: reads cluster dumps (`kubectl get ... -o json|yaml`,
// manifests, multi-document YAML) into the SDK's typed data model
// (karpenter/v1/core.pb.h, karpenter/v1/karpenter.pb.h,
// karpenter/v1/storage.pb.h).
//
// Accepted shapes, in JSON and YAML alike:
//   - a single object;
//   - `kind: List`, as `kubectl get nodes,pods,pdb,nodepools,nodeclaims,pv,
//     pvc,storageclasses,csinodes,daemonsets,volumeattachments -A` prints it
//     (items carry their own kind and apiVersion);
//   - typed lists as the API server returns them (`NodeList`, `PodList`,
//     `PodDisruptionBudgetList`, `NodePoolList`, `NodeClaimList`,
//     `PersistentVolumeList`, `PersistentVolumeClaimList`,
//     `StorageClassList`, `CSINodeList`, `DaemonSetList`,
//     `VolumeAttachmentList`, and any other `<Kind>List` with `items`): an
//     item without `kind` takes the list's kind minus "List" and the list's
//     apiVersion;
//   - a JSON top-level array of objects (lenient; kubectl never prints one);
//   - multi-document YAML (`---`); empty documents are skipped.
//
// Recognised kinds: Node, Pod, PersistentVolume and PersistentVolumeClaim
// (apiVersion v1), PodDisruptionBudget (policy/v1, policy/v1beta1), NodePool
// and NodeClaim (karpenter.sh/v1, karpenter.sh/v1beta1), StorageClass,
// CSINode and VolumeAttachment (storage.k8s.io/v1), DaemonSet (apps/v1). An
// object without apiVersion is read by its kind alone. Any other kind, or a
// recognised kind under another apiVersion, is skipped and counted in
// `ObjectSet::skipped_kinds` under "<kind>" or
// "<kind> (<apiVersion>)" respectively.
//
// Field mapping is proto3 JSON == Kubernetes JSON (see meta.proto): JSON is
// decoded with exactly the results of protobuf's JsonStringToMessage with
// unknown fields ignored (a descriptor-guided decoder skips undeclared
// members such as managedFields without tokenising them, and leaves any
// unusual form to protobuf itself), in time linear in the input; YAML
// is converted to JSON guided by the target message's descriptor, so YAML's
// untyped scalars become what the field needs (`nodes: 5` is the string "5",
// `minAvailable: 1` the integer 1, `minAvailable: "1"` the string "1"), with
// `null`, `~` and empty values read as absent, as Kubernetes does.
//
// Value forms the API server accepts beyond proto3 JSON are accepted in both
// formats: a resource quantity (resources requests/limits, a container status's
// allocatedResources, Node and NodeClaim capacity/allocatable, Pod overhead,
// NodePool spec.limits and status.resources, PersistentVolume capacity) or a
// NodePool budget's `nodes` may be a number, kept as the text it was written
// with (`"cpu": 500` is "500", `0.5` is "0.5", `1e3` is "1e3", all read by
// karpenter/quantity.h as Kubernetes reads them); int-or-string fields (PDB
// minAvailable/maxUnavailable) take an integer or a string; `null` is absent
// for any optional scalar, map, list or object. A `null` entry of a quantity
// map is "0" in the core kinds (`requests: {cpu: null}`: Go's Quantity reads
// null as zero) and dropped from NodePool spec.limits and status.resources and
// NodeClaim status.capacity/allocatable (the API server prunes nulls from these
// CRD maps, so such a limit is no limit); in other string maps (labels,
// annotations) it is "", as Go decodes it. Other string fields (labels, names,
// ...) take strings only, as in Kubernetes.
//
// Presence proto3 cannot hold is recorded in SDK extension fields: a NodePool
// `spec.disruption.budgets: []` sets `Disruption.budgets_explicitly_empty`
// and a budget's `reasons: []` sets `Budget.reasons_explicitly_empty`
// (Karpenter reads both as different from an absent list, see
// karpenter/pkg/apis/v1/nodepool.go `GetAllowedDisruptionsByReason`).
//
// Errors are InvalidArgument naming the source, the YAML document (1-based),
// the list item (0-based), the object ("unnamed <Kind>" without a name) and
// the field, and for YAML the line, e.g.
//   cluster.yaml: document 2: items[5] (Pod default/web-1):
//   spec.terminationGracePeriodSeconds: expected an integer, got "abc"
//   (line 40)
//   cluster.json: items[3] (unnamed NodePool): spec.limits["cpu"]:
//   expected a string, got a boolean true
// (a YAML error found after conversion gives the object's line: "(object at
// line 12)"). Each loaded object's origin is recorded in
// `ObjectSet::origins`, so that Snapshot::Build names it the same way.
// Besides types, the loaders check what the API server would have rejected
// and the snapshot relies on, as `Snapshot::Build` does (see snapshot.h):
// a StorageClass's volumeBindingMode and allowedTopologies, a
// PersistentVolume's claimRef and nodeAffinity, a CSINode's drivers, e.g.
//   sc.yaml: document 1 (StorageClass fast): volumeBindingMode: expected
//   "Immediate" or "WaitForFirstConsumer", got "Later"
// An offending value longer than 80 bytes is shown cut, with its size:
//   got "root:x:0:0:root:/root:/bin/bash daemon:x:1:1:..." (1432 bytes)
// Malformed or hostile input (bad syntax, nesting deeper than 100, YAML alias
// expansion beyond 4x the input size plus 1 MiB, a NUL byte in YAML, which
// is named with its line and column) is an error, never a crash or an
// exception. On error `out` is left unchanged.
//
// Thread-safety: the functions are reentrant; concurrent calls must use
// distinct `ObjectSet`s.

#ifndef KARPENTER_SNAPSHOT_LOAD_H_
#define KARPENTER_SNAPSHOT_LOAD_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"
#include "karpenter/v1/core.pb.h"
#include "karpenter/v1/karpenter.pb.h"
#include "karpenter/v1/storage.pb.h"

namespace karpenter::snapshot {

// Where a loaded object came from, so that `Snapshot::Build` can name it
// (e.g. `duplicate NodePool "default": a.yaml: items[0] and b.yaml:
// document 2`).
struct ObjectOrigin {
  static constexpr uint32_t kNoSource = 0xFFFFFFFF;
  // Index into ObjectSet::sources; kNoSource if unknown.
  uint32_t source = kNoSource;
  // YAML document, 1-based; 0 for JSON.
  uint32_t document = 0;
  // Line of the object in its YAML text, 1-based; 0 if not recorded (JSON).
  uint32_t line = 0;
  // Position in its list: "items[5]", "[3]" (top-level JSON array),
  // "items[1].items[0]"; empty for a top-level object.
  std::string item;
};

// One ObjectOrigin per object, parallel to ObjectSet's vectors of the same
// name. A vector may be empty (objects added by hand): those objects are
// then named by their list position ("node_pools[3]"). `pods` describes the
// pods in the order Snapshot::Build stores them.
struct ObjectOrigins {
  std::vector<ObjectOrigin> nodes;
  std::vector<ObjectOrigin> pods;
  std::vector<ObjectOrigin> pdbs;
  std::vector<ObjectOrigin> node_pools;
  std::vector<ObjectOrigin> node_claims;
  std::vector<ObjectOrigin> volume_attachments;
  std::vector<ObjectOrigin> persistent_volume_claims;
  std::vector<ObjectOrigin> persistent_volumes;
  std::vector<ObjectOrigin> storage_classes;
  std::vector<ObjectOrigin> csi_nodes;
  std::vector<ObjectOrigin> daemon_sets;
  std::vector<ObjectOrigin> node_overlays;
};

// The raw objects of one or more dumps, each kind in input order. Loading
// appends, so several files can be combined before `Snapshot::Build`.
struct ObjectSet {
  std::vector<v1::Node> nodes;
  std::vector<v1::Pod> pods;
  std::vector<v1::PodDisruptionBudget> pdbs;
  std::vector<v1::NodePool> node_pools;
  std::vector<v1::NodeClaim> node_claims;
  std::vector<v1::VolumeAttachment> volume_attachments;
  std::vector<v1::PersistentVolumeClaim> persistent_volume_claims;
  std::vector<v1::PersistentVolume> persistent_volumes;
  std::vector<v1::StorageClass> storage_classes;
  std::vector<v1::CSINode> csi_nodes;
  std::vector<v1::DaemonSet> daemon_sets;
  // karpenter.sh/v1alpha1 NodeOverlays (karpenter/node_overlay.h). They
  // change the catalogue, not the cluster: Snapshot::Build keeps them
  // apart (Snapshot::node_overlays).
  std::vector<v1::NodeOverlay> node_overlays;
  // Kind (or "<kind> (<apiVersion>)") -> number of objects skipped.
  std::map<std::string, int64_t> skipped_kinds;
  // The inputs the objects were loaded from (file names, "stdin"), and
  // where each object sits in them. Filled by the loaders; optional.
  std::vector<std::string> sources;
  ObjectOrigins origins;

  // Moves every object of `other` to the end of this set and adds its
  // skipped counts, sources and origins (an origin vector shorter than its
  // objects is padded with unknown origins first).
  void Append(ObjectSet&& other);

  // Where object `index` of origin vector `origins` (one of `this->origins`)
  // came from: "<source>[: document <d>][: <item>]", or "" if unknown (no
  // origin recorded for it). The YAML line is not included.
  std::string DescribeOrigin(const std::vector<ObjectOrigin>& origins,
                             size_t index) const;
};

// Reads JSON `text` (one object, a list, or an array of objects) into `out`.
// `source` names the input in error messages (a file name, "stdin").
// Returns InvalidArgument on syntax errors, objects without `kind`, and
// values of the wrong type for their field.
absl::Status LoadJson(absl::string_view text, absl::string_view source,
                      ObjectSet& out);

// Reads (multi-document) YAML `text` into `out`. Errors as LoadJson, plus
// YAML syntax errors with their line and column.
absl::Status LoadYaml(absl::string_view text, absl::string_view source,
                      ObjectSet& out);

// LoadJson if the first non-whitespace character (after an optional UTF-8
// byte order mark) is '{' or '[', otherwise LoadYaml. Empty text is an empty
// YAML stream: OK, nothing loaded.
absl::Status LoadText(absl::string_view text, absl::string_view source,
                      ObjectSet& out);

// Reads the documents of kind `kind` from `text` (JSON or YAML, sniffed as
// LoadText does) as messages of `prototype`'s type, for SDK documents that
// ride along a cluster dump (e.g. a simulation Scenario, which the loaders
// above skip as an unknown kind). YAML: every top-level document whose
// `kind` is `kind`; JSON: the top-level object, or each element of a
// top-level array, whose `kind` is `kind`. Lists are not searched. Each is
// decoded as the loaders decode objects (YAML scalars typed by the field,
// unknown fields ignored) into a new message appended to `out`, in input
// order. Errors: InvalidArgument naming the source, the document (YAML,
// 1-based) or element (JSON array, 0-based), the field and, for YAML, the
// line, e.g. `s.yaml: document 3 (Scenario rollout): spec.generate.nodes[0]
// .count: expected a 32-bit integer, got "x" (line 12)`; syntax errors as
// LoadYaml / LoadJson. On error `out` is left unchanged.
absl::Status LoadDocumentsOfKind(
    absl::string_view text, absl::string_view source, absl::string_view kind,
    const google::protobuf::Message& prototype,
    std::vector<std::unique_ptr<google::protobuf::Message>>& out);

// Reads the file at `path` and calls LoadText with `path` as the source.
// Returns NotFound, PermissionDenied or another errno-derived code naming
// `path` if the file cannot be read (FailedPrecondition for a directory).
absl::Status LoadFile(const std::string& path, ObjectSet& out);

}  // namespace karpenter::snapshot

#endif  // KARPENTER_SNAPSHOT_LOAD_H_
