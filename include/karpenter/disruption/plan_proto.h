// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Dry-run support for disruption::Controller: a Plan as the stable
// `karpenter.v1.Plan` message (proto/karpenter/v1/plan.proto), and the
// instance-type catalogue a host without a cloud can derive from the nodes
// of a cluster dump.
//
// Karpenter has no dry run (kubernetes-sigs/karpenter#711, aws#3732); these
// let `karpenter plan` and any host log, diff or ship a pass's decisions,
// and run a pass offline over `kubectl get ... -o yaml` output.
//
// Thread-safety: pure functions.
#ifndef KARPENTER_DISRUPTION_PLAN_PROTO_H_
#define KARPENTER_DISRUPTION_PLAN_PROTO_H_

#include <string>

#include "absl/time/time.h"
#include "karpenter/disruption/controller.h"
#include "karpenter/disruption/types.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/plan.pb.h"

namespace karpenter::disruption {

// `plan` as a message: every field of plan.proto filled from the Plan,
// instants as RFC 3339 UTC ("" for an infinite one), enums by their names
// (MethodName, DecisionName, DriftConditionChangeName,
// budget::DisruptionReasonName). Budgets are listed per NodePool in the
// plan's order, then per reason (Underutilized, Empty, Drifted).
v1::Plan PlanToProto(const Plan& plan);

// One NodePool's SDK controls as plan.proto and budget.proto carry them
// (`node_pool`, then `error` alone when the annotations are invalid, else
// every control: 0 or "" where off).
v1::NodePoolControlsReport ControlStateToProto(
    const NodePoolControlState& state);

// `t` as the instants of plan.proto (and simulation.proto) are written:
// RFC 3339 in UTC with "Z" and only the fractional digits needed
// ("2025-03-05T12:00:15Z", "...:15.5Z"); "" for an infinite instant.
std::string FormatPlanTime(absl::Time t);

// The catalogue a pass can use when no CloudProvider is at hand: for every
// NodePool of `snapshot` (a NodePool without nodes gets an empty list), the
// instance types its Nodes run (label karpenter.sh/nodepool), each with
//   - `capacity`: the `status.capacity` of the first such Node by name
//     (else its `status.allocatable`);
//   - one offering per distinct (topology.kubernetes.io/zone,
//     karpenter.sh/capacity-type) seen on those Nodes, price 0, available;
//   - `labels`: kubernetes.io/arch and kubernetes.io/os when the Node has
//     them.
// Nodes without the node.kubernetes.io/instance-type label are skipped.
// Types are ordered by name, offerings by (zone, capacity type).
//
// With every price 0, consolidation never finds a cheaper replacement, so a
// pass over this catalogue proposes deletions (pods fit elsewhere) but no
// replacements; a host that knows its prices should pass its real
// catalogue. Never fails.
InstanceTypeCatalog ObservedInstanceTypes(const snapshot::Snapshot& snapshot);

}  // namespace karpenter::disruption

#endif  // KARPENTER_DISRUPTION_PLAN_PROTO_H_
