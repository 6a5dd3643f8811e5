// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Well-known names: every label, annotation, taint, finalizer, condition
// type, condition status and condition reason the SDK reads or writes, each
// spelled once, here. The rest of the SDK (src/, include/, tools/) refers to
// these constants instead of string literals, so that a name cannot drift
// between the code that writes it and the code that reads it.
//
// Mirrors, for the names the SDK uses:
//   - Karpenter (sigs.k8s.io/karpenter) pkg/apis/v1: labels.go (labels,
//     annotations, capacity types, finalizer), taints.go (the disrupted
//     taint), nodeclaim_status.go (NodeClaim condition types), nodepool.go
//     (DisruptionReason); the Drifted reasons of
//     pkg/controllers/nodeclaim/disruption/drift.go and the condition
//     reasons the termination controller (pkg/controllers/node/termination)
//     writes; the v1alpha5 do-not-evict annotation;
//   - Kubernetes k8s.io/api/core/v1: well_known_labels.go,
//     well_known_taints.go, annotation_key_constants.go and types.go (taint
//     effects, condition types and statuses);
//   - Kubernetes k8s.io/kubernetes pkg/volume/util/storageclass.go (the
//     default StorageClass annotations).
// Each constant is named after its Go identifier with a `k` prefix where Go
// has one (`NodePoolLabelKey` -> kNodePoolLabelKey, `LabelTopologyZone` ->
// kLabelTopologyZone); names Go spells as literals get a descriptive name.
// Only names the SDK uses are listed; add one here before using it.
// tests/primitives/well_known_test.cc checks every spelling against the
// Go sources.
//
// Namespace `karpenter::well_known`: the names are read at their use as
// `well_known::kNodePoolLabelKey`, and do not collide with an area's own
// constants. Type: `absl::string_view` (compare and StrCat directly; wrap in
// std::string for protobuf map keys).
//
// Thread-safety: compile-time constants, safe to read from any thread.

#ifndef KARPENTER_WELL_KNOWN_H_
#define KARPENTER_WELL_KNOWN_H_

#include "absl/strings/string_view.h"

namespace karpenter::well_known {

// --- Karpenter API versions (pkg/apis/apis.go Group + version). ---

// The apiVersion of NodePools and NodeClaims.
inline constexpr absl::string_view kApiVersionV1 = "karpenter.sh/v1";
// The previous apiVersion, still accepted on input.
inline constexpr absl::string_view kApiVersionV1Beta1 = "karpenter.sh/v1beta1";
// NodeOverlay's group version (pkg/apis/v1alpha1).
inline constexpr absl::string_view kApiVersionV1Alpha1 =
    "karpenter.sh/v1alpha1";

// --- Karpenter labels (pkg/apis/v1/labels.go). ---

// The NodePool a Node or NodeClaim belongs to.
inline constexpr absl::string_view kNodePoolLabelKey = "karpenter.sh/nodepool";
// "true" once the Node is initialized.
inline constexpr absl::string_view kNodeInitializedLabelKey =
    "karpenter.sh/initialized";
// "true" once the Node registered with its NodeClaim.
inline constexpr absl::string_view kNodeRegisteredLabelKey =
    "karpenter.sh/registered";
// "spot", "on-demand" or "reserved".
inline constexpr absl::string_view kCapacityTypeLabelKey =
    "karpenter.sh/capacity-type";

// The values of kCapacityTypeLabelKey (labels.go `CapacityType*`).
inline constexpr absl::string_view kCapacityTypeSpot = "spot";
inline constexpr absl::string_view kCapacityTypeOnDemand = "on-demand";
inline constexpr absl::string_view kCapacityTypeReserved = "reserved";

// --- Karpenter annotations (pkg/apis/v1/labels.go). ---

// On a Pod, Node or NodeClaim: blocks voluntary disruption ("true", or on a
// Pod a Go duration).
inline constexpr absl::string_view kDoNotDisruptAnnotationKey =
    "karpenter.sh/do-not-disrupt";
// The v1alpha5 Pod annotation (`DoNotEvictPodAnnotationKey`); only "true"
// protects.
inline constexpr absl::string_view kDoNotEvictPodAnnotationKey =
    "karpenter.sh/do-not-evict";
// On a NodePool and its NodeClaims: the hash of `spec.template`.
inline constexpr absl::string_view kNodePoolHashAnnotationKey =
    "karpenter.sh/nodepool-hash";
// On a NodeClaim whose NodePool's minValues could not be met and the
// BestEffort policy relaxed them (Karpenter v1.1+).
inline constexpr absl::string_view kNodeClaimMinValuesRelaxedAnnotationKey =
    "karpenter.sh/nodeclaim-min-values-relaxed";
// The version of the hash algorithm behind kNodePoolHashAnnotationKey.
inline constexpr absl::string_view kNodePoolHashVersionAnnotationKey =
    "karpenter.sh/nodepool-hash-version";
// On a NodeClaim: the node deadline, RFC 3339 with second precision.
inline constexpr absl::string_view kNodeClaimTerminationTimestampAnnotationKey =
    "karpenter.sh/nodeclaim-termination-timestamp";

// --- Karpenter finalizer (pkg/apis/v1/labels.go). ---

// On Nodes and NodeClaims: held until the instance is gone.
inline constexpr absl::string_view kTerminationFinalizer =
    "karpenter.sh/termination";

// --- Karpenter taint (pkg/apis/v1/taints.go). ---

// The key of `DisruptedNoScheduleTaint` (effect kTaintEffectNoSchedule, no
// value), put on a Node being disrupted.
inline constexpr absl::string_view kDisruptedTaintKey =
    "karpenter.sh/disrupted";

// --- Cloud instance tags (karpenter-provider-aws pkg/apis/v1/labels.go). ---

// The NodeClaim an instance was launched for. Instances are also tagged
// with kNodePoolLabelKey (`NodePoolTagKey`).
inline constexpr absl::string_view kNodeClaimTagKey = "karpenter.sh/nodeclaim";

// --- Node condition types of the EKS node monitoring agent, which AWS's
// node-repair policies read (karpenter-provider-aws
// pkg/cloudprovider/cloudprovider.go `RepairPolicies`). ---

inline constexpr absl::string_view kConditionTypeAcceleratedHardwareReady =
    "AcceleratedHardwareReady";
inline constexpr absl::string_view kConditionTypeStorageReady = "StorageReady";
inline constexpr absl::string_view kConditionTypeNetworkingReady =
    "NetworkingReady";
inline constexpr absl::string_view kConditionTypeKernelReady = "KernelReady";
inline constexpr absl::string_view kConditionTypeContainerRuntimeReady =
    "ContainerRuntimeReady";

// --- NodeClaim condition types (pkg/apis/v1/nodeclaim_status.go). ---

inline constexpr absl::string_view kConditionTypeLaunched = "Launched";
inline constexpr absl::string_view kConditionTypeRegistered = "Registered";
inline constexpr absl::string_view kConditionTypeInitialized = "Initialized";
inline constexpr absl::string_view kConditionTypeDrifted = "Drifted";
inline constexpr absl::string_view kConditionTypeDrained = "Drained";
inline constexpr absl::string_view kConditionTypeVolumesDetached =
    "VolumesDetached";
inline constexpr absl::string_view kConditionTypeInstanceTerminating =
    "InstanceTerminating";
// Set with the taint when the disruption controller marks a candidate; its
// reason is a DisruptionReason (or "Expired", "NodePoolDeleted").
inline constexpr absl::string_view kConditionTypeDisruptionReason =
    "DisruptionReason";

// --- Condition reasons. ---
// A condition set True without a reason (operatorpkg `SetTrue`) takes its
// type as reason, e.g. Drained=True has reason "Drained".

// Drifted reasons (pkg/controllers/nodeclaim/disruption/drift.go).
// A static field of the NodePool's template changed (the hash differs).
inline constexpr absl::string_view kNodePoolDrifted = "NodePoolDrifted";
// The NodeClaim no longer satisfies the NodePool's requirements.
inline constexpr absl::string_view kRequirementsDrifted = "RequirementsDrifted";
// The NodeClaim's instance type, or every matching offering of it, is gone.
inline constexpr absl::string_view kInstanceTypeNotFound =
    "InstanceTypeNotFound";

// Termination reasons (pkg/controllers/node/termination/controller.go).
// Drained=Unknown while pods remain.
inline constexpr absl::string_view kReasonDraining = "Draining";
// VolumesDetached=Unknown while VolumeAttachments remain.
inline constexpr absl::string_view kReasonAwaitingVolumeDetachment =
    "AwaitingVolumeDetachment";
// VolumesDetached=False: the deadline passed with attachments left.
inline constexpr absl::string_view kReasonTerminationGracePeriodElapsed =
    "TerminationGracePeriodElapsed";

// --- Disruption reasons (pkg/apis/v1/nodepool.go `DisruptionReason`). ---

inline constexpr absl::string_view kDisruptionReasonUnderutilized =
    "Underutilized";
inline constexpr absl::string_view kDisruptionReasonEmpty = "Empty";
inline constexpr absl::string_view kDisruptionReasonDrifted = "Drifted";

// --- Kubernetes labels (k8s.io/api/core/v1 well_known_labels.go). ---

inline constexpr absl::string_view kLabelHostname = "kubernetes.io/hostname";
// The label the API server sets on every Namespace: its name
// (k8s.io/api/core/v1 LabelMetadataName).
inline constexpr absl::string_view kLabelMetadataName =
    "kubernetes.io/metadata.name";
inline constexpr absl::string_view kLabelTopologyZone =
    "topology.kubernetes.io/zone";
inline constexpr absl::string_view kLabelTopologyRegion =
    "topology.kubernetes.io/region";
inline constexpr absl::string_view kLabelInstanceTypeStable =
    "node.kubernetes.io/instance-type";
inline constexpr absl::string_view kLabelArchStable = "kubernetes.io/arch";
inline constexpr absl::string_view kLabelOSStable = "kubernetes.io/os";
inline constexpr absl::string_view kLabelWindowsBuild =
    "node.kubernetes.io/windows-build";
// Set on a terminating Node so load balancers stop sending it traffic.
inline constexpr absl::string_view kLabelNodeExcludeBalancers =
    "node.kubernetes.io/exclude-from-external-load-balancers";
// The value Karpenter's termination controller gives
// kLabelNodeExcludeBalancers.
inline constexpr absl::string_view kLabelNodeExcludeBalancersValue =
    "karpenter";

// Deprecated spellings Karpenter normalizes to the stable keys above
// (labels.go `NormalizedLabels`).
inline constexpr absl::string_view kLabelFailureDomainBetaZone =
    "failure-domain.beta.kubernetes.io/zone";
inline constexpr absl::string_view kLabelFailureDomainBetaRegion =
    "failure-domain.beta.kubernetes.io/region";
inline constexpr absl::string_view kLabelInstanceType =
    "beta.kubernetes.io/instance-type";
inline constexpr absl::string_view kLabelBetaArch = "beta.kubernetes.io/arch";
inline constexpr absl::string_view kLabelBetaOS = "beta.kubernetes.io/os";

// --- Kubernetes annotations (annotation_key_constants.go). ---

// Pod: the ReplicaSet controller's (and Karpenter's) deletion cost.
inline constexpr absl::string_view kPodDeletionCost =
    "controller.kubernetes.io/pod-deletion-cost";
// PersistentVolumeClaim and PersistentVolume: the deprecated spelling of
// `spec.storageClassName`, read before it when present.
inline constexpr absl::string_view kBetaStorageClassAnnotation =
    "volume.beta.kubernetes.io/storage-class";

// --- Kubernetes storage (k8s.io/api/storage/v1 types.go, core/v1
// types.go, pkg/volume/util/storageclass.go, component-helpers
// storage/volume helpers.go). ---

// StorageClass: "true" marks the cluster's default class
// (`IsDefaultStorageClassAnnotation`, `BetaIsDefaultStorageClassAnnotation`).
inline constexpr absl::string_view kIsDefaultStorageClassAnnotation =
    "storageclass.kubernetes.io/is-default-class";
inline constexpr absl::string_view kBetaIsDefaultStorageClassAnnotation =
    "storageclass.beta.kubernetes.io/is-default-class";
// PersistentVolumeClaim: the node the scheduler chose for a delayed-binding
// claim's provisioning (`AnnSelectedNode`).
inline constexpr absl::string_view kAnnSelectedNode =
    "volume.kubernetes.io/selected-node";
// StorageClass provisioner meaning "no dynamic provisioning"
// (`NotSupportedProvisioner`).
inline constexpr absl::string_view kNotSupportedProvisioner =
    "kubernetes.io/no-provisioner";
// StorageClass volumeBindingMode that delays binding and provisioning until
// a pod using the claim is scheduled (`VolumeBindingWaitForFirstConsumer`;
// the other mode, and the default, is "Immediate").
inline constexpr absl::string_view kVolumeBindingWaitForFirstConsumer =
    "WaitForFirstConsumer";
// PersistentVolumeClaim status.phase of a claim whose volume is gone
// (`ClaimLost`).
inline constexpr absl::string_view kClaimLost = "Lost";

// --- Kubernetes taint effects (types.go `TaintEffect*`). ---

inline constexpr absl::string_view kTaintEffectNoSchedule = "NoSchedule";
inline constexpr absl::string_view kTaintEffectPreferNoSchedule =
    "PreferNoSchedule";
inline constexpr absl::string_view kTaintEffectNoExecute = "NoExecute";

// --- Kubernetes conditions (types.go). ---

// The Ready condition type of Nodes (`NodeReady`) and Pods (`PodReady`).
inline constexpr absl::string_view kConditionTypeReady = "Ready";
// Pod conditions (`PodScheduled`, `DisruptionTarget`).
inline constexpr absl::string_view kConditionTypePodScheduled = "PodScheduled";
inline constexpr absl::string_view kConditionTypeDisruptionTarget =
    "DisruptionTarget";
// Pod condition of an in-place resize the kubelet has not actuated
// (`PodResizePending`), and its reason when the node can never admit it
// (`PodReasonInfeasible`).
inline constexpr absl::string_view kConditionTypePodResizePending =
    "PodResizePending";
inline constexpr absl::string_view kReasonInfeasible = "Infeasible";
// Condition statuses (`ConditionTrue`, `ConditionFalse`, `ConditionUnknown`).
inline constexpr absl::string_view kConditionTrue = "True";
inline constexpr absl::string_view kConditionFalse = "False";
inline constexpr absl::string_view kConditionUnknown = "Unknown";
// Node condition reason: Ready=True from a healthy kubelet (kubelet
// pkg/kubelet/nodestatus/setters.go).
inline constexpr absl::string_view kReasonKubeletReady = "KubeletReady";
// Pod condition reasons: Ready=False while containers start (kubelet
// pkg/kubelet/status/generate.go `ContainersNotReady`), and
// DisruptionTarget=True after an eviction through the Eviction API (the API
// server's pkg/registry/core/pod/storage/eviction.go).
inline constexpr absl::string_view kReasonContainersNotReady =
    "ContainersNotReady";
inline constexpr absl::string_view kReasonEvictionByEvictionAPI =
    "EvictionByEvictionAPI";

// --- SDK extensions (issue 26): opt-in disruption controls Karpenter does
// not have, in the SDK's own annotation namespace. Absent, each is off and
// the SDK decides as Karpenter does. docs/semantics.md §11 documents them.

// On a NodePool: budgeted methods disrupt nodes of at most N zones
// (topology.kubernetes.io/zone) of the NodePool at once; zones with nodes
// already disrupting count ("1": one zone at a time; kubernetes-sigs/
// karpenter#1902).
inline constexpr absl::string_view kMaxDisruptingZonesAnnotationKey =
    "disruption.karpenter-sdk.dev/max-disrupting-zones";
// On a NodePool: expired nodes wait for an expiration budget instead of
// being deleted regardless, up to a hard ceiling after expireAfter
// ("budget=1,ceiling=24h"; #1750, aws#7797).
inline constexpr absl::string_view kSoftExpirationAnnotationKey =
    "disruption.karpenter-sdk.dev/soft-expiration";
// On a NodePool: consolidation moves must save at least an amount per hour
// ("0.05") or a share of the candidates' price ("10%") (#735, #2388).
inline constexpr absl::string_view kConsolidationMinSavingsAnnotationKey =
    "disruption.karpenter-sdk.dev/consolidation-min-savings";
// On a NodePool: how many new NodeClaims one consolidation command may
// launch, "1" (Karpenter) or "2" (m nodes into two; #1442).
inline constexpr absl::string_view kConsolidationMaxReplacementsAnnotationKey =
    "disruption.karpenter-sdk.dev/consolidation-max-replacements";
// On a Pod or Node, together: a cron schedule and a Go duration during
// which the object blocks voluntary disruption as karpenter.sh/
// do-not-disrupt does, the window [hit, hit + duration) of a budget
// schedule (#1719).
inline constexpr absl::string_view kDoNotDisruptScheduleAnnotationKey =
    "disruption.karpenter-sdk.dev/do-not-disrupt-schedule";
inline constexpr absl::string_view kDoNotDisruptDurationAnnotationKey =
    "disruption.karpenter-sdk.dev/do-not-disrupt-duration";

}  // namespace karpenter::well_known

#endif  // KARPENTER_WELL_KNOWN_H_
