// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Every constant of karpenter/well_known.h against its spelling in the Go
// source it mirrors (the Go identifier and file in each row), so that a typo
// in the one place a name is spelled cannot go unnoticed.

#include "karpenter/well_known.h"

#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "absl/strings/string_view.h"

namespace karpenter::well_known {
namespace {

struct Spelling {
  const char* constant;  // The C++ name, for the failure message.
  absl::string_view value;
  const char* want;   // As the Go source spells it.
  const char* where;  // The Go identifier (or literal) and its file.
};

#define KARPENTER_SPELLING(name, want, where) \
  { #name, name, want, where }

TEST_CASE("well_known: every name is spelled as in Karpenter and Kubernetes",
          "[well_known]") {
  const Spelling rows[] = {
      // sigs.k8s.io/karpenter pkg/apis/apis.go + pkg/apis/v1.
      KARPENTER_SPELLING(kApiVersionV1, "karpenter.sh/v1",
                         "Group + \"/v1\" (apis.go, register.go)"),
      KARPENTER_SPELLING(kApiVersionV1Beta1, "karpenter.sh/v1beta1",
                         "Group + \"/v1beta1\" (apis.go)"),
      KARPENTER_SPELLING(kNodePoolLabelKey, "karpenter.sh/nodepool",
                         "NodePoolLabelKey (labels.go)"),
      KARPENTER_SPELLING(kNodeInitializedLabelKey, "karpenter.sh/initialized",
                         "NodeInitializedLabelKey (labels.go)"),
      KARPENTER_SPELLING(kNodeRegisteredLabelKey, "karpenter.sh/registered",
                         "NodeRegisteredLabelKey (labels.go)"),
      KARPENTER_SPELLING(kCapacityTypeLabelKey, "karpenter.sh/capacity-type",
                         "CapacityTypeLabelKey (labels.go)"),
      KARPENTER_SPELLING(kCapacityTypeSpot, "spot",
                         "CapacityTypeSpot (labels.go)"),
      KARPENTER_SPELLING(kCapacityTypeOnDemand, "on-demand",
                         "CapacityTypeOnDemand (labels.go)"),
      KARPENTER_SPELLING(kCapacityTypeReserved, "reserved",
                         "CapacityTypeReserved (labels.go)"),
      KARPENTER_SPELLING(kDoNotDisruptAnnotationKey,
                         "karpenter.sh/do-not-disrupt",
                         "DoNotDisruptAnnotationKey (labels.go)"),
      KARPENTER_SPELLING(kDoNotEvictPodAnnotationKey,
                         "karpenter.sh/do-not-evict",
                         "DoNotEvictPodAnnotationKey (v1alpha5/labels.go)"),
      KARPENTER_SPELLING(kNodeClaimMinValuesRelaxedAnnotationKey,
                         "karpenter.sh/nodeclaim-min-values-relaxed",
                         "NodeClaimMinValuesRelaxedAnnotationKey (labels.go)"),
      KARPENTER_SPELLING(kNodePoolHashAnnotationKey,
                         "karpenter.sh/nodepool-hash",
                         "NodePoolHashAnnotationKey (labels.go)"),
      KARPENTER_SPELLING(kNodePoolHashVersionAnnotationKey,
                         "karpenter.sh/nodepool-hash-version",
                         "NodePoolHashVersionAnnotationKey (labels.go)"),
      KARPENTER_SPELLING(kNodeClaimTerminationTimestampAnnotationKey,
                         "karpenter.sh/nodeclaim-termination-timestamp",
                         "NodeClaimTerminationTimestampAnnotationKey "
                         "(labels.go)"),
      KARPENTER_SPELLING(kTerminationFinalizer, "karpenter.sh/termination",
                         "TerminationFinalizer (labels.go)"),
      KARPENTER_SPELLING(kDisruptedTaintKey, "karpenter.sh/disrupted",
                         "DisruptedTaintKey (taints.go)"),
      KARPENTER_SPELLING(kNodeClaimTagKey, "karpenter.sh/nodeclaim",
                         "NodeClaimTagKey (karpenter-provider-aws labels.go)"),
      KARPENTER_SPELLING(kConditionTypeAcceleratedHardwareReady,
                         "AcceleratedHardwareReady",
                         "RepairPolicies (karpenter-provider-aws "
                         "cloudprovider.go)"),
      KARPENTER_SPELLING(kConditionTypeStorageReady, "StorageReady",
                         "RepairPolicies (karpenter-provider-aws "
                         "cloudprovider.go)"),
      KARPENTER_SPELLING(kConditionTypeNetworkingReady, "NetworkingReady",
                         "RepairPolicies (karpenter-provider-aws "
                         "cloudprovider.go)"),
      KARPENTER_SPELLING(kConditionTypeKernelReady, "KernelReady",
                         "RepairPolicies (karpenter-provider-aws "
                         "cloudprovider.go)"),
      KARPENTER_SPELLING(kConditionTypeContainerRuntimeReady,
                         "ContainerRuntimeReady",
                         "RepairPolicies (karpenter-provider-aws "
                         "cloudprovider.go)"),
      KARPENTER_SPELLING(kConditionTypeLaunched, "Launched",
                         "ConditionTypeLaunched (nodeclaim_status.go)"),
      KARPENTER_SPELLING(kConditionTypeRegistered, "Registered",
                         "ConditionTypeRegistered (nodeclaim_status.go)"),
      KARPENTER_SPELLING(kConditionTypeInitialized, "Initialized",
                         "ConditionTypeInitialized (nodeclaim_status.go)"),
      KARPENTER_SPELLING(kConditionTypeDrifted, "Drifted",
                         "ConditionTypeDrifted (nodeclaim_status.go)"),
      KARPENTER_SPELLING(kConditionTypeDrained, "Drained",
                         "ConditionTypeDrained (nodeclaim_status.go)"),
      KARPENTER_SPELLING(kConditionTypeVolumesDetached, "VolumesDetached",
                         "ConditionTypeVolumesDetached (nodeclaim_status.go)"),
      KARPENTER_SPELLING(kConditionTypeInstanceTerminating,
                         "InstanceTerminating",
                         "ConditionTypeInstanceTerminating "
                         "(nodeclaim_status.go)"),
      KARPENTER_SPELLING(kConditionTypeDisruptionReason, "DisruptionReason",
                         "ConditionTypeDisruptionReason "
                         "(nodeclaim_status.go)"),
      KARPENTER_SPELLING(kNodePoolDrifted, "NodePoolDrifted",
                         "NodePoolDrifted (nodeclaim/disruption/drift.go)"),
      KARPENTER_SPELLING(kRequirementsDrifted, "RequirementsDrifted",
                         "RequirementsDrifted (nodeclaim/disruption/drift.go)"),
      KARPENTER_SPELLING(kInstanceTypeNotFound, "InstanceTypeNotFound",
                         "InstanceTypeNotFound "
                         "(nodeclaim/disruption/drift.go)"),
      KARPENTER_SPELLING(kReasonDraining, "Draining",
                         "\"Draining\" (node/termination/controller.go)"),
      KARPENTER_SPELLING(kReasonAwaitingVolumeDetachment,
                         "AwaitingVolumeDetachment",
                         "\"AwaitingVolumeDetachment\" "
                         "(node/termination/controller.go)"),
      KARPENTER_SPELLING(kReasonTerminationGracePeriodElapsed,
                         "TerminationGracePeriodElapsed",
                         "\"TerminationGracePeriodElapsed\" "
                         "(node/termination/controller.go)"),
      KARPENTER_SPELLING(kDisruptionReasonUnderutilized, "Underutilized",
                         "DisruptionReasonUnderutilized (nodepool.go)"),
      KARPENTER_SPELLING(kDisruptionReasonEmpty, "Empty",
                         "DisruptionReasonEmpty (nodepool.go)"),
      KARPENTER_SPELLING(kDisruptionReasonDrifted, "Drifted",
                         "DisruptionReasonDrifted (nodepool.go)"),
      // k8s.io/api/core/v1.
      KARPENTER_SPELLING(kLabelHostname, "kubernetes.io/hostname",
                         "LabelHostname (well_known_labels.go)"),
      KARPENTER_SPELLING(kLabelTopologyZone, "topology.kubernetes.io/zone",
                         "LabelTopologyZone (well_known_labels.go)"),
      KARPENTER_SPELLING(kLabelTopologyRegion, "topology.kubernetes.io/region",
                         "LabelTopologyRegion (well_known_labels.go)"),
      KARPENTER_SPELLING(kLabelInstanceTypeStable,
                         "node.kubernetes.io/instance-type",
                         "LabelInstanceTypeStable (well_known_labels.go)"),
      KARPENTER_SPELLING(kLabelArchStable, "kubernetes.io/arch",
                         "LabelArchStable (well_known_labels.go)"),
      KARPENTER_SPELLING(kLabelOSStable, "kubernetes.io/os",
                         "LabelOSStable (well_known_labels.go)"),
      KARPENTER_SPELLING(kLabelWindowsBuild, "node.kubernetes.io/windows-build",
                         "LabelWindowsBuild (well_known_labels.go)"),
      KARPENTER_SPELLING(
          kLabelNodeExcludeBalancers,
          "node.kubernetes.io/exclude-from-external-load-balancers",
          "LabelNodeExcludeBalancers (well_known_labels.go)"),
      KARPENTER_SPELLING(kLabelNodeExcludeBalancersValue, "karpenter",
                         "\"karpenter\" (node/termination/controller.go)"),
      KARPENTER_SPELLING(kLabelFailureDomainBetaZone,
                         "failure-domain.beta.kubernetes.io/zone",
                         "LabelFailureDomainBetaZone (well_known_labels.go)"),
      KARPENTER_SPELLING(kLabelFailureDomainBetaRegion,
                         "failure-domain.beta.kubernetes.io/region",
                         "LabelFailureDomainBetaRegion (well_known_labels.go)"),
      KARPENTER_SPELLING(kLabelInstanceType, "beta.kubernetes.io/instance-type",
                         "LabelInstanceType (well_known_labels.go)"),
      KARPENTER_SPELLING(kLabelBetaArch, "beta.kubernetes.io/arch",
                         "\"beta.kubernetes.io/arch\" (karpenter labels.go)"),
      KARPENTER_SPELLING(kLabelBetaOS, "beta.kubernetes.io/os",
                         "\"beta.kubernetes.io/os\" (karpenter labels.go)"),
      KARPENTER_SPELLING(kPodDeletionCost,
                         "controller.kubernetes.io/pod-deletion-cost",
                         "PodDeletionCost (annotation_key_constants.go)"),
      KARPENTER_SPELLING(kBetaStorageClassAnnotation,
                         "volume.beta.kubernetes.io/storage-class",
                         "BetaStorageClassAnnotation "
                         "(annotation_key_constants.go)"),
      // Storage: k8s.io/api/storage/v1 and core/v1 types.go,
      // pkg/volume/util/storageclass.go, component-helpers storage/volume.
      KARPENTER_SPELLING(kIsDefaultStorageClassAnnotation,
                         "storageclass.kubernetes.io/is-default-class",
                         "IsDefaultStorageClassAnnotation "
                         "(volume/util/storageclass.go)"),
      KARPENTER_SPELLING(kBetaIsDefaultStorageClassAnnotation,
                         "storageclass.beta.kubernetes.io/is-default-class",
                         "BetaIsDefaultStorageClassAnnotation "
                         "(volume/util/storageclass.go)"),
      KARPENTER_SPELLING(kAnnSelectedNode, "volume.kubernetes.io/selected-node",
                         "AnnSelectedNode (storage/volume/helpers.go)"),
      KARPENTER_SPELLING(kNotSupportedProvisioner,
                         "kubernetes.io/no-provisioner",
                         "NotSupportedProvisioner (storage/volume/helpers.go)"),
      KARPENTER_SPELLING(kVolumeBindingWaitForFirstConsumer,
                         "WaitForFirstConsumer",
                         "VolumeBindingWaitForFirstConsumer "
                         "(storage/v1 types.go)"),
      KARPENTER_SPELLING(kClaimLost, "Lost", "ClaimLost (core/v1 types.go)"),
      KARPENTER_SPELLING(kLabelMetadataName, "kubernetes.io/metadata.name",
                         "LabelMetadataName (well_known_labels.go)"),
      KARPENTER_SPELLING(kTaintEffectNoSchedule, "NoSchedule",
                         "TaintEffectNoSchedule (types.go)"),
      KARPENTER_SPELLING(kTaintEffectPreferNoSchedule, "PreferNoSchedule",
                         "TaintEffectPreferNoSchedule (types.go)"),
      KARPENTER_SPELLING(kTaintEffectNoExecute, "NoExecute",
                         "TaintEffectNoExecute (types.go)"),
      KARPENTER_SPELLING(kConditionTypeReady, "Ready",
                         "NodeReady, PodReady (types.go)"),
      KARPENTER_SPELLING(kConditionTypePodScheduled, "PodScheduled",
                         "PodScheduled (types.go)"),
      KARPENTER_SPELLING(kConditionTypeDisruptionTarget, "DisruptionTarget",
                         "DisruptionTarget (types.go)"),
      KARPENTER_SPELLING(kConditionTrue, "True", "ConditionTrue (types.go)"),
      KARPENTER_SPELLING(kConditionFalse, "False", "ConditionFalse (types.go)"),
      KARPENTER_SPELLING(kConditionUnknown, "Unknown",
                         "ConditionUnknown (types.go)"),
      KARPENTER_SPELLING(kReasonKubeletReady, "KubeletReady",
                         "\"KubeletReady\" (kubelet nodestatus/setters.go)"),
      KARPENTER_SPELLING(kReasonContainersNotReady, "ContainersNotReady",
                         "ContainersNotReady (kubelet status/generate.go)"),
      KARPENTER_SPELLING(kReasonEvictionByEvictionAPI, "EvictionByEvictionAPI",
                         "\"EvictionByEvictionAPI\" (registry pod "
                         "storage/eviction.go)"),
  };
  std::set<std::string> constants;
  for (const Spelling& row : rows) {
    INFO(row.constant << ", Go " << row.where);
    CHECK(std::string(row.value) == row.want);
    CHECK(constants.insert(row.constant).second);  // Each row once.
  }
  // One row per constant of well_known.h: update this count (and add the
  // row) with each new constant.
  CHECK(constants.size() == 75);
}

#undef KARPENTER_SPELLING

}  // namespace
}  // namespace karpenter::well_known
