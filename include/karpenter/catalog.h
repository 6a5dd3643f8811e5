// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Instance-type catalogues: a priced list of the instance types a cloud
// offers, read from a document
//
//   apiVersion: sim.karpenter-sdk.dev/v1
//   kind: InstanceTypeCatalog
//   metadata: {name: aws-us-west-2}
//   instanceTypes:
//   - name: m5.large
//     capacity: {cpu: "2", memory: 8Gi, pods: "29"}
//     labels: {kubernetes.io/arch: amd64}
//     offerings:
//     - {zone: us-west-2a, capacityType: on-demand, price: 0.096}
//     - {zone: us-west-2a, capacityType: spot, price: 0.035}
//     overhead:
//       kubeReserved: {cpu: 70m, memory: 574Mi}
//       evictionThreshold: {memory: 100Mi}
//
// (YAML or JSON; proto/karpenter/v1/catalog.proto). `instanceTypes` has the
// schema of a Scenario's `spec.instanceTypes` (karpenter/testing/
// scenario.h), which is read by the same functions, plus an optional
// per-type `overhead`.
//
// The rule it ports: Karpenter's cloud provider offers every NodePool every
// instance type (`CloudProvider.GetInstanceTypes(ctx, nodePool)`; the
// provisioning and disruption schedulers then filter them by the NodePool's
// requirements), and an instance type's allocatable is its capacity minus
// the kubelet's kubeReserved, systemReserved and eviction threshold
// (karpenter pkg/cloudprovider/types.go `InstanceType.Allocatable`:
// Capacity - Overhead.Total()). The disruption scheduler reads
// `InstanceType::capacity` as what pods can use (allocatable), so the
// loaders here store capacity minus overhead there. A host without a
// CloudProvider (or `karpenter plan --catalog`) passes
// `CatalogForEveryNodePool(snapshot, types)` as `PassInputs::catalog`, and
// consolidation then prices nodes as Karpenter would; without prices every
// node is `InstanceTypeUnknown` to consolidation.
//
// Thread-safety: the functions are pure and reentrant.

#ifndef KARPENTER_CATALOG_H_
#define KARPENTER_CATALOG_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/repeated_field.h"
#include "karpenter/cloud_provider.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/catalog.pb.h"
#include "karpenter/v1/scenario.pb.h"

namespace karpenter {

inline constexpr absl::string_view kInstanceTypeCatalogApiVersion =
    "sim.karpenter-sdk.dev/v1";
inline constexpr absl::string_view kInstanceTypeCatalogKind =
    "InstanceTypeCatalog";

// Checks instance-type specs, returning the first problem as
// InvalidArgument `<path>[i].<field>: <what> "<value>"`, e.g.
// `instanceTypes[2].offerings[0].price: must be a finite number >= 0 "-1"`:
//   - `name` non-empty and unique;
//   - every `capacity` and `overhead` quantity valid and >= 0;
//   - at least one offering, each with `zone` and `capacityType` set and a
//     finite `price` >= 0 (0 means unknown: such an offering is never a
//     consolidation candidate's or a replacement's price);
//   - per resource, kubeReserved + systemReserved + evictionThreshold at
//     most the capacity (absent capacity counts as 0):
//     `instanceTypes[0].overhead: memory overhead "9Gi" (kubeReserved +
//     systemReserved + evictionThreshold) exceeds capacity "8Gi"`.
// `path` is the list's field path ("instanceTypes", "spec.instanceTypes").
absl::Status ValidateInstanceTypeSpecs(
    const google::protobuf::RepeatedPtrField<v1::InstanceTypeSpec>& types,
    absl::string_view path);

// The InstanceType of a spec ValidateInstanceTypeSpecs accepted: name,
// labels and offerings copied (an absent `available` is true), and
// `capacity` the spec's capacity minus its overhead, per resource (a
// resource with no overhead keeps its string; one with overhead is written
// in the largest of the units Gi, Mi, Ki, none and m that holds it
// exactly). On a spec that was not validated, an unparsable quantity is
// copied unchanged.
InstanceType InstanceTypeFromSpec(const v1::InstanceTypeSpec& spec);

// Reads the one InstanceTypeCatalog document of `text` (YAML or JSON, as
// snapshot::LoadText sniffs it) and validates it. `source` names the input
// in messages. Errors, all InvalidArgument and prefixed `<source>: `:
//   - syntax and field-type errors of the loaders (snapshot/load.h), naming
//     the document, field and line;
//   - `kind: expected "InstanceTypeCatalog", got "Scenario"` when the text
//     holds a document of another kind, `no InstanceTypeCatalog document`
//     when it holds none, `2 InstanceTypeCatalog documents`;
//   - `apiVersion: expected "sim.karpenter-sdk.dev/v1", got "v1"`;
//   - `instanceTypes: needs at least one instance type`;
//   - ValidateInstanceTypeSpecs' errors under "instanceTypes".
absl::StatusOr<v1::InstanceTypeCatalog> ParseInstanceTypeCatalogDocument(
    absl::string_view text, absl::string_view source);

// ParseInstanceTypeCatalogDocument, then InstanceTypeFromSpec for every
// type; the result is ordered by name (as CloudProvider::GetInstanceTypes
// returns types), offerings in document order. Errors as
// ParseInstanceTypeCatalogDocument.
absl::StatusOr<std::vector<InstanceType>> ParseInstanceTypeCatalog(
    absl::string_view text, absl::string_view source);

// Reads the file at `path` and calls ParseInstanceTypeCatalog with `path`
// as the source. Errors: those of ParseInstanceTypeCatalog; NotFound,
// PermissionDenied or another errno-derived code naming `path` if the file
// cannot be read (FailedPrecondition for a directory).
absl::StatusOr<std::vector<InstanceType>> LoadInstanceTypeCatalog(
    const std::string& path);

// The catalogue a pass over `snapshot` uses when the cloud offers `types`:
// every NodePool of the snapshot maps to the whole list, as Karpenter's
// cloud provider offers each NodePool every type (the scheduler filters
// them by the NodePool's requirements and the pods'). Never fails.
InstanceTypeCatalog CatalogForEveryNodePool(
    const snapshot::Snapshot& snapshot, const std::vector<InstanceType>& types);

}  // namespace karpenter

#endif  // KARPENTER_CATALOG_H_
