// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Disruption cost: what evicting a pod, and disrupting a node early in its
// life, costs. Ports `EvictionCost`, `ReschedulingCost` and
// `LifetimeRemaining` of karpenter pkg/utils/disruption/disruption.go
// (docs/semantics.md §2.11). The candidate builder (candidates.h) sums
// these into `Candidate::disruption_cost` and
// `Candidate::reschedule_disruption_cost`.
//
// Deliberate differences from Go, each on input Karpenter would mis-handle:
//   * A pod-deletion-cost of "NaN" is ignored like any unparsable value (Go
//     parses it and the NaN then poisons every comparison of the sort).
//   * Hexadecimal floats and digit underscores, which Go's ParseFloat also
//     accepts, are treated as unparsable (the annotation is an int32 in
//     Kubernetes; no real value uses them).
//
// Thread-safety: all functions are pure and safe to call concurrently.
#ifndef KARPENTER_DISRUPTION_COST_H_
#define KARPENTER_DISRUPTION_COST_H_

#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "karpenter/v1/core.pb.h"
#include "karpenter/v1/karpenter.pb.h"

namespace karpenter::disruption {

// Parses a pod-deletion-cost value as Go's strconv.ParseFloat(s, 64) does
// for decimal input: optional sign, digits with an optional fraction and
// exponent, or "Inf"/"Infinity" (any case). No surrounding whitespace.
// Errors: InvalidArgument quoting the value when it is not such a number,
// is NaN, or overflows a double (Go's ErrRange, e.g. "1e400").
absl::StatusOr<double> ParsePodDeletionCost(absl::string_view value);

// The pod's eviction cost at `now`-independent state:
//   clamp(1 + deletionCost / 2^27 + priority / 2^25, -10, 10)
// where deletionCost is the kPodDeletionCostAnnotation value (the term is
// dropped when absent or unparsable, as Karpenter logs and ignores it) and
// priority is `spec.priority` (0 when unset). Never fails.
double EvictionCost(const v1::Pod& pod);

// The NodeClaim's `spec.expireAfter` as a duration; nullopt for absent or
// "Never". Errors: InvalidArgument naming `spec.expireAfter` and quoting the
// value when it is neither "Never" nor a Go duration.
absl::StatusOr<std::optional<absl::Duration>> ExpireAfterOf(
    const v1::NodeClaim& claim);

// The expireAfter that applies to `claim` under its NodePool `pool` (null
// when the NodePool is unknown): the NodeClaim's `spec.expireAfter` when it
// has one (Karpenter v1 copies it from the NodePool template at creation),
// else the karpenter.sh/v1beta1 NodePool's `spec.disruption.expireAfter`,
// which v1beta1 NodeClaims never carried (docs/semantics.md §2.8); nullopt
// when neither is set or the one that applies is "Never". Errors:
// InvalidArgument naming the field (`spec.expireAfter`, or `NodePool "x"
// spec.disruption.expireAfter`) and quoting the value.
absl::StatusOr<std::optional<absl::Duration>> ExpireAfterOf(
    const v1::NodeClaim& claim, const v1::NodePool* pool);

// The fraction of the NodeClaim's lifetime left at `now`:
//   clamp((expireAfter - age) / expireAfter, 0, 1), age = now - creation.
// 1.0 when expireAfter is absent or "Never", and also when it is
// unparsable (ExpireAfterOf reports that error; the expiration method
// refuses such a claim). A zero or negative expireAfter gives 0 (expired).
double LifetimeRemaining(const v1::NodeClaim& claim, absl::Time now);
// The same from a NodeClaim created at `created` with parsed expireAfter
// `expire_after` (nullopt: absent, "Never" or unparsable).
double LifetimeRemaining(absl::Time created,
                         std::optional<absl::Duration> expire_after,
                         absl::Time now);

}  // namespace karpenter::disruption

#endif  // KARPENTER_DISRUPTION_COST_H_
