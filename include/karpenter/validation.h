// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Object validation as the Kubernetes API server performs it: the
// Karpenter NodePool and NodeClaim CRD schemas (OpenAPI patterns, enums,
// bounds, required fields) and their CEL rules (x-kubernetes-validations),
// and policy/v1 PodDisruptionBudget validation. `karpenter validate` runs
// it over cluster dumps.
//
// Ports:
//   - karpenter.sh/v1: kubernetes-sigs/karpenter
//     pkg/apis/crds/karpenter.sh_nodepools.yaml and karpenter.sh_nodeclaims
//     .yaml at the revision the SDK follows (docs/semantics.md, v1.14+:
//     consolidationPolicy WhenEmpty | WhenEmptyOrUnderutilized | Balanced,
//     requirement operators In NotIn Exists DoesNotExist Gt Lt Gte Lte,
//     static NodePools with `replicas`), types in pkg/apis/v1/*.go.
//   - karpenter.sh/v1beta1: the v1beta1 version of the same CRDs in v1.0.9,
//     the last release that served it (consolidationPolicy WhenEmpty |
//     WhenUnderutilized, spec.disruption.expireAfter, the kubernetes.io and
//     k8s.io label-domain rules, operators In NotIn Exists DoesNotExist Gt
//     Lt, no budget reasons, no terminationGracePeriod).
//   - PodDisruptionBudget: Kubernetes pkg/apis/policy/validation
//     `ValidatePodDisruptionBudgetSpec` (minAvailable xor maxUnavailable,
//     ValidateNonnegativeIntOrPercent, IsNotMoreThan100Percent, the label
//     selector via `ValidateLabelSelector`, unhealthyPodEvictionPolicy) and
//     the object name rule (DNS-1123 subdomain).
//
// What is checked is what the SDK's protos keep (karpenter/v1/*.proto):
// kubelet settings, status and fields the protos do not declare are not
// seen. A field that exists only in the other version (v1beta1's
// `spec.disruption.expireAfter` in a v1 NodePool, v1's budget `reasons` or
// `terminationGracePeriod` in a v1beta1 one) is reported as an unknown field,
// as `kubectl apply` (strict field validation) reports it. proto3 cannot tell
// an absent string from an empty one, so an empty value is read as absent
// (then defaulted or reported as required). An object without apiVersion is
// checked as karpenter.sh/v1 (NodePool, NodeClaim) or policy/v1 (PDB).
//
// Also reported, though the API server accepts them, each naming Karpenter
// rather than a CRD rule:
//   - what Karpenter cannot evaluate and fails closed on
//     (budget/disruption_spec.h): a budget schedule the cron parser rejects
//     and a `nodes` integer beyond int64;
//   - two checks of Karpenter's NodePool `RuntimeValidate`, which marks the
//     NodePool not ready (pkg/apis/v1/nodepool_validation.go and
//     nodeclaim_validation.go): a taint key/effect pair repeated across
//     taints and startupTaints, and a template label key that is not a
//     qualified name. Its other runtime checks (well-known label values,
//     kubelet settings) are not ported.
//
// Each error prints as
//   <apiVersion> <Kind> <namespace/name>: <field path>: <what> (<rule>),
//   got "<value>"
// e.g. `karpenter.sh/v1 NodePool default: spec.disruption.consolidationPolicy:
// Unsupported value: must be one of "WhenEmpty", "WhenEmptyOrUnderutilized",
// "Balanced" (CRD enum), got "WhenUnderutilized"`. Values longer than 80
// bytes are cut, with their size.
//
// Thread-safety: all functions are pure and may run concurrently.

#ifndef KARPENTER_VALIDATION_H_
#define KARPENTER_VALIDATION_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/core.pb.h"
#include "karpenter/v1/karpenter.pb.h"

namespace karpenter::validation {

// One violation of one field of one object.
struct FieldError {
  // "karpenter.sh/v1", "policy/v1" (the object's, or the version it was
  // checked as when it had none).
  std::string api_version;
  // "NodePool", "NodeClaim", "PodDisruptionBudget".
  std::string kind;
  // "name", or "namespace/name" for namespaced objects.
  std::string object;
  // The field path, e.g. "spec.template.spec.requirements[2].minValues".
  std::string field;
  // What is wrong, naming the rule, e.g. "must be between 1 and 100 (CRD
  // minimum/maximum)".
  std::string problem;
  // The offending value as written ("" for a missing one).
  std::string value;

  // The one-line form of the file comment.
  std::string ToString() const;
};

// Every CRD/CEL violation of `node_pool` (karpenter.sh/v1 or v1beta1, by its
// apiVersion), in field order: metadata, spec.template, spec.disruption,
// spec.limits, spec.weight, spec.replicas. Empty when valid. An apiVersion
// other than those two gives one error on `apiVersion`.
std::vector<FieldError> NodePoolErrors(const v1::NodePool& node_pool);

// As NodePoolErrors, for a NodeClaim (metadata, then spec).
std::vector<FieldError> NodeClaimErrors(const v1::NodeClaim& node_claim);

// Every policy/v1 validation error of `pdb` (metadata.name, spec.selector,
// spec.minAvailable, spec.maxUnavailable, both set,
// spec.unhealthyPodEvictionPolicy). policy/v1beta1 is checked the same way.
std::vector<FieldError> PodDisruptionBudgetErrors(
    const v1::PodDisruptionBudget& pdb);

// Every violation of a karpenter.sh/v1alpha1 NodeOverlay's CRD schema, CEL
// rules and Karpenter's RuntimeValidate (pkg/apis/v1alpha1/nodeoverlay.go,
// nodeoverlay_validation.go), in field order: metadata.name;
// spec.requirements (at most 100; the key, operator and value rules of
// NodeClaim requirements; In and NotIn need values); spec.price
// (^\d+(\.\d+)?$); spec.priceAdjustment (a signed amount, "+N%", "-N%"
// with at most two integer digits, or "-100%"); both set; spec.capacity
// (quantities, not cpu, memory, ephemeral-storage or pods); spec.weight
// (1..10000).
std::vector<FieldError> NodeOverlayErrors(const v1::NodeOverlay& overlay);

// Every problem of `node_pool`'s annotations in the SDK's own namespaces:
// the budget extensions (budget/extensions.h: disruption-rate,
// disruption-capacity) and the disruption controls (disruption/controls.h:
// max-disrupting-zones, soft-expiration, consolidation-min-savings,
// consolidation-max-replacements). The API server accepts any annotation;
// the SDK fails such a NodePool closed, so these are reported with the
// problem ending "(SDK annotation)" and the field
// `metadata.annotations["<key>"]`. Empty when they are valid or absent.
std::vector<FieldError> NodePoolSdkAnnotationErrors(
    const v1::NodePool& node_pool);

// OK when NodePoolErrors / NodeClaimErrors / PodDisruptionBudgetErrors is
// empty, else InvalidArgument with every error's ToString(), one a line.
absl::Status ValidateNodePool(const v1::NodePool& node_pool);
absl::Status ValidateNodeClaim(const v1::NodeClaim& node_claim);
absl::Status ValidatePodDisruptionBudget(const v1::PodDisruptionBudget& pdb);
absl::Status ValidateNodeOverlay(const v1::NodeOverlay& overlay);

// SDK extension (issue 26, kubernetes-sigs/karpenter#1719), not an API
// server rule: the do-not-disrupt window annotations
// `disruption.karpenter-sdk.dev/do-not-disrupt-schedule` and
// `.../do-not-disrupt-duration` of one Pod or Node (`kind`), whose name is
// `object` ("namespace/name" for a Pod), with `metadata`. One FieldError per
// drain::DoNotDisruptWindowProblems entry, schedule first: apiVersion "v1",
// field `metadata.annotations["<key>"]`, the value as written, and a problem
// ending in "(SDK annotation)": one annotation without the other, a cron
// schedule the budget-schedule parser rejects (its message quoted), a
// duration that is not a positive Go duration. Empty when neither
// annotation is set or both are valid. (A schedule that never fires, e.g.
// "0 0 31 2 *", parses and is not reported: the window is then always
// active, as such a NodePool budget is.)
std::vector<FieldError> DoNotDisruptWindowErrors(
    absl::string_view kind, absl::string_view object,
    const v1::ObjectMeta& metadata);

// What `karpenter validate` reports about a snapshot.
struct SnapshotReport {
  // Every error, sorted by kind, then object (namespace/name), each object's
  // errors in field order.
  std::vector<FieldError> errors;
  // Objects checked per kind ("NodePool", "NodeClaim",
  // "PodDisruptionBudget", "NodeOverlay"); kinds with none are absent.
  // "Pod" and "Node" count only the objects carrying at least one of the
  // SDK's do-not-disrupt window annotations, the only thing checked on
  // them (DoNotDisruptWindowErrors); absent when none does, so a snapshot
  // without SDK annotations reports exactly as before.
  std::map<std::string, int64_t> checked;
  // Objects not checked: the description of their kind (see
  // DescribeUncheckedKind) -> count, sorted by description.
  std::map<std::string, int64_t> not_checked;
};

// Validates every NodePool (NodePoolErrors and NodePoolSdkAnnotationErrors),
// NodeClaim, PodDisruptionBudget and NodeOverlay of `snapshot`, the SDK's
// do-not-disrupt window annotations of every Pod and Node
// (DoNotDisruptWindowErrors), and lists the kinds the loader skipped
// (Snapshot::skipped_kinds). Other loaded kinds (DaemonSet, storage
// objects) and the rest of Pods and Nodes are in neither list: the loader
// itself checks what the snapshot relies on. Never fails.
SnapshotReport ValidateSnapshot(const snapshot::Snapshot& snapshot);

// A human description of a kind that is not checked, from its
// Snapshot::skipped_kinds key ("Provisioner", "NodePool (karpenter.sh/v2)"):
//   Provisioner, Machine     -> "karpenter.sh/v1alpha5 <Kind> (removed in
//                                Karpenter v0.33)"
//   AWSNodeTemplate          -> "karpenter.k8s.aws/v1alpha1 AWSNodeTemplate
//                                (removed in Karpenter v0.33)"
//   EC2NodeClass, AKSNodeClass, any "...NodeClass"
//                            -> "<Kind> (provider-specific)"
//   "<Kind> (<apiVersion>)"  -> "<apiVersion> <Kind> (apiVersion not
//                                supported)"
//   any other kind           -> "<Kind> (unknown kind)"
std::string DescribeUncheckedKind(absl::string_view key);

}  // namespace karpenter::validation

#endif  // KARPENTER_VALIDATION_H_
