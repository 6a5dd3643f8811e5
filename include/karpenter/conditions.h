// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Status conditions: the one lookup the SDK uses to find a condition in a
// Node's, NodeClaim's or Pod's `status.conditions` (v1::Condition, the shape
// metav1.Condition, corev1.NodeCondition and corev1.PodCondition share).
// The condition types and statuses are in karpenter/well_known.h.
//
// Mirrors the lookups Karpenter reads conditions with: operatorpkg's
// `ConditionSet.Get(type)` / `IsTrue(type)` for NodeClaims, and Kubernetes'
// `GetNodeCondition` / `GetPodCondition` (k8s.io/kubernetes pkg/api/v1/node,
// pkg/api/v1/pod). Like them, a lookup answers with the first condition of
// the type; a list that holds a type twice (which the API server does not
// produce) is answered by its first entry.
//
// Thread-safety: pure functions of their arguments; safe to call from
// several threads on objects no thread is modifying.

#ifndef KARPENTER_CONDITIONS_H_
#define KARPENTER_CONDITIONS_H_

#include "absl/strings/string_view.h"
#include "google/protobuf/repeated_ptr_field.h"
#include "karpenter/v1/meta.pb.h"
#include "karpenter/well_known.h"

namespace karpenter {

// `status.conditions` of a Node, NodeClaim, NodePool or Pod.
using ConditionList = google::protobuf::RepeatedPtrField<v1::Condition>;

// Returns the first condition of `type` in `conditions`, or nullptr when
// there is none. The pointer is into `conditions` and valid while it is.
inline const v1::Condition* FindCondition(const ConditionList& conditions,
                                          absl::string_view type) {
  for (const v1::Condition& c : conditions) {
    if (c.type() == type) return &c;
  }
  return nullptr;
}

// Returns the status of the first condition of `type` ("True", "False",
// "Unknown", or whatever the object holds), or "" when there is none. The
// view is into `conditions` and valid while it is.
inline absl::string_view ConditionStatus(const ConditionList& conditions,
                                         absl::string_view type) {
  const v1::Condition* c = FindCondition(conditions, type);
  return c == nullptr ? absl::string_view() : absl::string_view(c->status());
}

// Returns whether `condition` is non-null with status "True" (operatorpkg
// `Condition.IsTrue`), for a condition FindCondition returned.
inline bool IsConditionTrue(const v1::Condition* condition) {
  return condition != nullptr &&
         condition->status() == well_known::kConditionTrue;
}

// Returns whether the first condition of `type` has status "True"
// (operatorpkg `ConditionSet.IsTrue`); false when there is none.
inline bool IsConditionTrue(const ConditionList& conditions,
                            absl::string_view type) {
  return IsConditionTrue(FindCondition(conditions, type));
}

}  // namespace karpenter

#endif  // KARPENTER_CONDITIONS_H_
