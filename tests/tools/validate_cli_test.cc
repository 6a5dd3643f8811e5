// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// `karpenter validate` in-process: exact output lines and exit codes for the
// API-server checks of karpenter/validation.h, the "not checked" lines and
// "nothing to validate".

#include <catch2/catch.hpp>
#include <string>

#include "cli.h"
#include "cli_test_util.h"

namespace karpenter::cli {
namespace {

using test::Result;
using test::Run;
using test::WriteTemp;

constexpr char kStrictErrors[] = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: web
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: kubernetes.io/hostname, operator: In, values: [a]}
      terminationGracePeriod: 1d
  disruption:
    consolidationPolicy: WhenUnderutilized
---
apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata:
  name: batch
spec:
  template:
    spec:
      nodeClassRef: {name: default}
      requirements:
      - {key: karpenter.k8s.aws/instance-cpu, operator: Gte, values: ["4"]}
  disruption:
    consolidationPolicy: WhenEmpty
    expireAfter: 720h
)";

TEST_CASE("validate cli: v1 and v1beta1 rules as the API server applies them",
          "[cli][validate]") {
  const std::string path = WriteTemp("strict.yaml", kStrictErrors);
  Result r = Run({"validate", "-f", path});
  CHECK(r.status == kExitInvalid);
  CHECK(r.err.empty());
  // Each line starts with where the object is: file and YAML document.
  const std::string web = path + ": document 1: ";
  const std::string batch = path + ": document 2: ";
  CHECK(
      r.out ==
      batch +
          "karpenter.sh/v1beta1 NodePool batch: "
          "spec.template.spec.requirements[0].operator: Unsupported value: "
          "must "
          "be one of \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\", \"Gt\", "
          "\"Lt\" (CRD enum), got \"Gte\"\n" +
          batch +
          "karpenter.sh/v1beta1 NodePool batch: "
          "spec.disruption.consolidateAfter: consolidateAfter must be "
          "specified with consolidationPolicy=WhenEmpty (CEL rule), got "
          "\"\"\n" +
          web +
          "karpenter.sh/v1 NodePool web: "
          "spec.template.spec.requirements[0].key: "
          "label \"kubernetes.io/hostname\" is restricted (CEL rule), got "
          "\"kubernetes.io/hostname\"\n" +
          web +
          "karpenter.sh/v1 NodePool web: "
          "spec.template.spec.terminationGracePeriod: must match "
          "^([0-9]+(s|m|h))+$ (CRD pattern; Go durations have no 'd'), got "
          "\"1d\"\n" +
          web +
          "karpenter.sh/v1 NodePool web: spec.disruption.consolidationPolicy: "
          "Unsupported value: must be one of \"WhenEmpty\", "
          "\"WhenEmptyOrUnderutilized\", \"Balanced\" (CRD enum); "
          "WhenUnderutilized is karpenter.sh/v1beta1's spelling of "
          "WhenEmptyOrUnderutilized, got \"WhenUnderutilized\"\n");
}

TEST_CASE("validate cli: a v1alpha5 Provisioner alone is nothing to validate",
          "[cli][validate]") {
  const std::string path = WriteTemp("provisioner.yaml", R"(
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata:
  name: default
spec:
  ttlSecondsAfterEmpty: 30
)");
  Result r = Run({"validate", "-f", path});
  CHECK(r.status == kExitInvalid);
  CHECK(r.err.empty());
  CHECK(r.out ==
        "not checked: karpenter.sh/v1alpha5 Provisioner (removed in "
        "Karpenter v0.33), 1 object\n"
        "nothing to validate (no NodePool, NodeClaim or "
        "PodDisruptionBudget)\n");
}

TEST_CASE("validate cli: unchecked kinds are listed after the errors",
          "[cli][validate]") {
  const std::string path = WriteTemp("mixed.yaml", R"(
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
---
apiVersion: karpenter.k8s.aws/v1alpha1
kind: AWSNodeTemplate
metadata: {name: a}
---
apiVersion: karpenter.k8s.aws/v1alpha1
kind: AWSNodeTemplate
metadata: {name: b}
---
apiVersion: karpenter.sh/v1alpha5
kind: Machine
metadata: {name: m}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: shop}
spec:
  minAvailable: 1
  maxUnavailable: 1
)");
  Result r = Run({"validate", "-f", path});
  CHECK(r.status == kExitInvalid);
  CHECK(
      r.out ==
      path + ": document 5: " +
          "policy/v1 PodDisruptionBudget shop/web: spec: minAvailable and "
          "maxUnavailable cannot be both set "
          "(ValidatePodDisruptionBudgetSpec), "
          "got \"minAvailable: 1, maxUnavailable: 1\"\n"
          "not checked: EC2NodeClass (provider-specific), 1 object\n"
          "not checked: karpenter.k8s.aws/v1alpha1 AWSNodeTemplate (removed in "
          "Karpenter v0.33), 2 objects\n"
          "not checked: karpenter.sh/v1alpha5 Machine (removed in Karpenter "
          "v0.33), 1 object\n");
}

TEST_CASE("validate cli: valid objects are counted per kind",
          "[cli][validate]") {
  const std::string path = WriteTemp("valid.yaml", R"(
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: []
      expireAfter: 720h
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 1m
---
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata: {name: default-x1}
spec:
  nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
  requirements:
  - {key: karpenter.sh/nodepool, operator: In, values: [default]}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
)");
  Result r = Run({"validate", "-f", path});
  CHECK(r.status == kExitOk);
  CHECK(r.out ==
        "not checked: EC2NodeClass (provider-specific), 1 object\n"
        "2 objects valid (1 NodePool, 1 NodeClaim)\n");
}

TEST_CASE("validate cli: NodeOverlays are checked against their rules",
          "[cli][validate][node_overlay]") {
  const std::string path = WriteTemp("overlays.yaml", R"(
apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata: {name: gpu}
spec:
  weight: 20000
  price: "1"
  priceAdjustment: "-10%"
  capacity: {cpu: 2, example.com/gpu: 1}
---
apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata: {name: fine}
spec:
  priceAdjustment: "-10%"
)");
  Result r = Run({"validate", "-f", path});
  CHECK(r.status == 1);
  CHECK_THAT(r.out, Catch::Contains("NodeOverlay gpu: spec: cannot set both "
                                    "'price' and 'priceAdjustment'") &&
                        Catch::Contains("NodeOverlay gpu: spec.capacity.cpu") &&
                        Catch::Contains("NodeOverlay gpu: spec.weight"));
  CHECK_THAT(r.out, !Catch::Contains("NodeOverlay fine"));
}

TEST_CASE("validate cli: an empty dump is nothing to validate",
          "[cli][validate]") {
  Result r = Run({"validate", "-f", WriteTemp("empty.yaml", "")});
  CHECK(r.status == kExitInvalid);
  CHECK(r.out ==
        "nothing to validate (no NodePool, NodeClaim or "
        "PodDisruptionBudget)\n");
}

TEST_CASE("validate cli: help names the checks", "[cli][validate]") {
  Result r = Run({"validate", "--help"});
  CHECK(r.status == kExitOk);
  CHECK(absl::StrContains(r.out, "CRD schema and CEL rules"));
  CHECK(absl::StrContains(r.out, "nothing to validate"));
  CHECK(absl::StrContains(r.out, "not checked: "));
}

}  // namespace
}  // namespace karpenter::cli
