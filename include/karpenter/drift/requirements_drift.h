// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Requirements drift: whether a launched NodeClaim still satisfies its
// NodePool's requirements.
//
// Ports sigs.k8s.io/karpenter pkg/controllers/nodeclaim/disruption/drift.go
// `areRequirementsDrifted`:
//   - the NodePool side is spec.template.spec.requirements only (template
//     labels are covered by the static hash drift, `NodePoolDrifted`);
//   - the NodeClaim side is its metadata.labels, each as `key In [value]`
//     (Karpenter sets them from the launched instance);
//   - the NodeClaim is drifted iff `claimLabels.Compatible(poolReqs)` fails
//     with no undefined keys allowed: a NodePool key the claim has no label
//     for drifts unless its operator is NotIn or DoesNotExist, and every
//     shared key must admit the label's value (see
//     Requirements::Compatible in karpenter/requirements.h).
//
// Thread-safety: a pure function; safe to call concurrently.

#ifndef KARPENTER_DRIFT_REQUIREMENTS_DRIFT_H_
#define KARPENTER_DRIFT_REQUIREMENTS_DRIFT_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "karpenter/v1/karpenter.pb.h"

namespace karpenter::drift {

// Returns "RequirementsDrifted" if `claim`'s labels no longer satisfy
// `pool`'s template requirements, nullopt if they do. The caller checks the
// other drift kinds and that the claim belongs to the pool and is launched.
//
// Returns InvalidArgument if a NodePool requirement is invalid; the message
// names it, e.g. `spec.template.spec.requirements[1].operator: unknown
// operator "Foo" ...` (see Requirement::FromProto). Karpenter's API server
// rejects such NodePools, so an error here means the input bypassed it.
absl::StatusOr<std::optional<std::string>> RequirementsDrifted(
    const v1::NodePool& pool, const v1::NodeClaim& claim);

// As above, also setting `*why` (if non-null and drifted) to the
// incompatibilities, e.g. `label "kubernetes.io/arch" does not have known
// values`, for explain output.
absl::StatusOr<std::optional<std::string>> RequirementsDrifted(
    const v1::NodePool& pool, const v1::NodeClaim& claim, std::string* why);

}  // namespace karpenter::drift

#endif  // KARPENTER_DRIFT_REQUIREMENTS_DRIFT_H_
