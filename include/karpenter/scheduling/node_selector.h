// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Node selector matching: whether a corev1.NodeSelector (a pod's required
// node affinity, a PersistentVolume's `spec.nodeAffinity.required`) or a
// StorageClass's `allowedTopologies` admits a node. The one home of the
// rule for the scheduling predicates (karpenter/scheduling/*.h).
//
// Ports k8s.io/component-helpers scheduling/corev1/nodeaffinity
// nodeaffinity.go (`LazyErrorNodeSelector.Match`, `nodeSelectorTerm.match`,
// `nodeSelectorRequirementsAsSelector`,
// `nodeSelectorRequirementsAsFieldSelector`), with the requirement rules of
// k8s.io/apimachinery pkg/labels/selector.go (`NewRequirement`,
// `Requirement.Matches`), and `MatchTopologySelectorTerms` of
// k8s.io/kubernetes pkg/apis/core/v1/helper/helpers.go:
//   - terms are ORed; the requirements of a term are ANDed; an empty term
//     (no matchExpressions, no matchFields) matches nothing, and so does a
//     selector without terms;
//   - matchExpressions: In (the label is present with one of the values),
//     NotIn (absent, or present with none of the values), Exists,
//     DoesNotExist, Gt and Lt (the label is present and, read as a base-10
//     int64, greater or less than the one value);
//   - a term that Kubernetes cannot parse matches no node, even where its
//     other requirements would: an unknown operator, a key that is not a
//     qualified name, In/NotIn without values, Exists/DoesNotExist with
//     values, Gt/Lt without exactly one integer value, or ANY value that is
//     not a valid label value (so `NotIn ["a b"]` makes its term
//     unmatchable instead of matching everything);
//   - matchFields: In and NotIn with exactly one value (anything else makes
//     the term unmatchable), compared with the node's fields, of which
//     Kubernetes has one, `metadata.name` (another key reads as ""). A node
//     without a name has no fields, and then matchFields are not evaluated
//     at all: that is how Kubernetes checks a PersistentVolume's node
//     affinity (component-helpers storage/volume `CheckNodeAffinity` builds
//     a Node from the labels alone); NodeSelectorMatchesLabels does the
//     same.
//
// Thread-safety: pure functions of their arguments; safe to call
// concurrently.

#ifndef KARPENTER_SCHEDULING_NODE_SELECTOR_H_
#define KARPENTER_SCHEDULING_NODE_SELECTOR_H_

#include <string>

#include "google/protobuf/map.h"
#include "google/protobuf/repeated_ptr_field.h"
#include "karpenter/v1/core.pb.h"
#include "karpenter/v1/meta.pb.h"
#include "karpenter/v1/storage.pb.h"

namespace karpenter::scheduling {

// Whether the one term `term` selects `node` (its labels and, for
// matchFields, its name), per the rules above. An empty term selects no
// node.
bool NodeSelectorTermMatches(const v1::NodeSelectorTerm& term,
                             const v1::Node& node);

// Whether at least one term of `selector` selects `node`. A selector
// without terms selects no node.
bool NodeSelectorMatches(const v1::NodeSelector& selector,
                         const v1::Node& node);

// NodeSelectorMatches for a node known only by its labels, as Kubernetes
// matches a PersistentVolume's `spec.nodeAffinity.required`
// (`CheckNodeAffinity`): matchFields requirements are not evaluated (a
// term's matchFields must still parse).
bool NodeSelectorMatchesLabels(
    const v1::NodeSelector& selector,
    const google::protobuf::Map<std::string, std::string>& labels);

// Whether `labels` satisfy a StorageClass's `allowedTopologies`: an empty
// list admits every node; otherwise some term must have all its
// requirements satisfied, each requirement meaning `key In values` (with
// the In parse rules above); a term without requirements matches nothing.
bool TopologySelectorTermsMatch(
    const google::protobuf::RepeatedPtrField<v1::TopologySelectorTerm>& terms,
    const google::protobuf::Map<std::string, std::string>& labels);

}  // namespace karpenter::scheduling

#endif  // KARPENTER_SCHEDULING_NODE_SELECTOR_H_
