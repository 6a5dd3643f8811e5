// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Static drift: the NodePool template hash Karpenter stamps in the
// `karpenter.sh/nodepool-hash` annotation, and the `NodePoolDrifted` check
// that compares it between a NodePool and its NodeClaims.
//
// Ports `NodePool.Hash()` and `NodePoolHashVersion` (karpenter
// pkg/apis/v1/nodepool.go) with the reflective walk of
// github.com/mitchellh/hashstructure/v2 v2.0.2 (hashstructure.go, FormatV2,
// options SlicesAsSets, IgnoreZeroValue and ZeroNil), and
// `areStaticFieldsDrifted` (pkg/controllers/nodeclaim/disruption/drift.go);
// see docs/semantics.md §3.2.
//
// The hash is bit-exact with Karpenter's: the test vectors in
// tests/drift/static_drift_test.cc were produced by hashstructure v2.0.2 under
// Go 1.19 over Go structs of the same shape as Karpenter's
// `NodeClaimTemplate`. The walk, as Karpenter's Go types make it:
//   * the hasher is 64-bit FNV-1 (`fnv.New64`, not FNV-1a); a string hashes
//     its bytes, an integer its 8 little-endian bytes;
//   * a struct starts from the hash of its Go type name; each included field,
//     in declaration order, folds in as
//     `h = fnv(le64(h ^ fnv(le64(fnv(name)) + le64(value_hash))))`;
//     fields tagged `hash:"ignore"` and fields whose Go value is the zero
//     value are skipped (a struct all of whose fields are zero is a zero
//     value, including its ignored fields);
//   * a map XORs fnv(le64(key) + le64(value)) over its entries, then hashes
//     the result once more; a slice (a set here) XORs its elements' hashes
//     with no final step, so two identical taints cancel out;
//   * a non-nil pointer hashes its target, even a zero one.
// Hashed Go fields: `ObjectMeta{Labels, Annotations}` and
// `NodeClaimTemplateSpec{Taints, StartupTaints, NodeClassRef{Kind, Name,
// Group}, TerminationGracePeriod (*metav1.Duration), ExpireAfter
// (NillableDuration: its *time.Duration; "Never" is the zero value)}`.
// `Requirements` is `hash:"ignore"` (requirements drift handles it), as is
// `NillableDuration.Raw`; everything outside `spec.template` (disruption,
// limits, weight, replicas) is not hashed.
//
// Mapping from our protos, and what they cannot express:
//   * An empty map or list is treated as absent. Go tells `labels: {}` or
//     `taints: []` (empty but non-nil, hashed) from an absent field (nil,
//     skipped); proto3 cannot, so such a template hashes differently here
//     than in Karpenter. Kubernetes clients rarely send empty collections.
//   * An absent `expireAfter` takes the v1beta1 `spec.disruption.expireAfter`
//     if present, else the CRD default "720h", since the API server applies
//     the default before Karpenter ever hashes the object.
//   * `nodeClassRef.apiVersion` (a v1beta1 spelling) is not part of the Go v1
//     type and is ignored; `spec.resources` is not in the template's Go type.
//   * A taint's `timeAdded` hashes Go's `time.Time.MarshalBinary` of a time
//     decoded by `metav1.Time` into the controller's local zone. Karpenter's
//     hash therefore depends on the controller's time zone; this port assumes
//     UTC (offset 0, not Go's "UTC location" marker), as in Karpenter's
//     container image.
//
// Thread-safety: all functions are pure and safe to call concurrently.
#ifndef KARPENTER_DRIFT_STATIC_DRIFT_H_
#define KARPENTER_DRIFT_STATIC_DRIFT_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "karpenter/v1/karpenter.pb.h"

namespace karpenter::drift {

// The hash version Karpenter stamps next to the hash. Karpenter bumps it when
// a hashed field's default changes or a field joins or leaves the hash.
inline constexpr absl::string_view kNodePoolHashVersion = "v3";

// Returns `pool.spec.template` hashed as Karpenter's `NodePool.Hash()` does:
// the decimal uint64 Karpenter writes in `karpenter.sh/nodepool-hash` (e.g.
// "6821555240594823858"). Only `spec.template` is read; see the file comment
// for the fields and for what our protos cannot express.
//
// Errors: `kInvalidArgument` when a hashed duration does not parse as Go
// parses it, naming the field and quoting the value:
//   * `spec.template.spec.terminationGracePeriod` must be a Go duration;
//   * `spec.template.spec.expireAfter` (or v1beta1
//     `spec.disruption.expireAfter`) must be a Go duration or "Never".
absl::StatusOr<std::string> NodePoolTemplateHash(const v1::NodePool& pool);

// Returns `kNodePoolDriftedReason` when `claim` is statically drifted from
// `pool`, `std::nullopt` otherwise, following `areStaticFieldsDrifted`:
//   * not drifted if any of the four annotations (hash and hash version, on
//     the NodePool and on the NodeClaim) is missing;
//   * not drifted if the two hash versions differ (the hash controller is
//     expected to migrate the NodeClaim first);
//   * otherwise drifted iff the two hash annotations differ as strings.
// As in Karpenter, the NodePool's *annotation* is compared, not a hash
// recomputed from its template (a host that runs no hash controller stamps
// the annotation with `NodePoolTemplateHash`), and the versions are compared
// with each other, not with `kNodePoolHashVersion`.
//
// Errors: none today; the status is reserved so that callers need not change
// when validation is added.
absl::StatusOr<std::optional<std::string>> StaticDrifted(
    const v1::NodePool& pool, const v1::NodeClaim& claim);

}  // namespace karpenter::drift

#endif  // KARPENTER_DRIFT_STATIC_DRIFT_H_
