// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The dump checks of the commands that read a cluster: missing timestamps
// taken as the pass time (--strict), partial dumps (--complete).

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cli_test_util.h"

namespace karpenter::cli {
namespace {

using test::Run;

constexpr char kAt[] = "2025-03-05T07:00:00Z";

constexpr char kPool[] = R"(
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default, creationTimestamp: "2025-01-01T00:00:00Z"}
spec:
  disruption: {consolidationPolicy: WhenEmpty, consolidateAfter: 30s}
  template:
    spec:
      expireAfter: 720h
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}
      requirements: []
---
)";

// A managed node and its NodeClaim; `claim_meta` and `conditions` are
// spliced into the NodeClaim.
std::string Node(const std::string& name, const std::string& claim_meta,
                 const std::string& conditions) {
  return absl::StrCat(R"(
apiVersion: v1
kind: Node
metadata:
  name: )",
                      name, R"(
  creationTimestamp: "2025-01-01T00:00:00Z"
  labels:
    karpenter.sh/nodepool: default
    karpenter.sh/initialized: "true"
    node.kubernetes.io/instance-type: m5.large
spec: {providerID: "aws:///us-west-2a/)",
                      name, R"("}
status:
  allocatable: {cpu: "2", memory: 8Gi, pods: "29"}
  conditions: [{type: Ready, status: "True"}]
---
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata:
  name: )",
                      name, R"(-claim
  labels: {karpenter.sh/nodepool: default}
)",
                      claim_meta, R"(
spec:
  expireAfter: 720h
  nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}
  requirements: []
status:
  providerID: "aws:///us-west-2a/)",
                      name, R"("
  nodeName: )",
                      name, R"(
  conditions:
)",
                      conditions, R"(
---
)");
}

constexpr char kDated[] = R"(  creationTimestamp: "2025-03-01T00:00:00Z")";
constexpr char kDatedConditions[] = R"(
  - {type: Launched, status: "True", lastTransitionTime: "2025-03-01T00:00:00Z"}
  - {type: Initialized, status: "True", lastTransitionTime: "2025-03-01T00:01:00Z"})";
constexpr char kUndatedConditions[] = R"(
  - {type: Launched, status: "True", lastTransitionTime: "2025-03-01T00:00:00Z"}
  - {type: Initialized, status: "True"})";

std::vector<std::string> Lines(const std::string& text) {
  return absl::StrSplit(text, '\n', absl::SkipEmpty());
}

// True if `text` names a year before 2019.
bool HasOldDate(const std::string& text) {
  for (int year = 1970; year < 2019; ++year) {
    if (absl::StrContains(text, absl::StrCat(year, "-"))) return true;
  }
  return false;
}

TEST_CASE("dump audit cli: a NodeClaim without timestamps is taken as --at",
          "[cli][audit]") {
  // Without creationTimestamp the claim looked 55 years old: expired.
  const std::string file =
      test::WriteTemp("audit_bare_claim.yaml",
                      absl::StrCat(kPool, Node("n1", "", kUndatedConditions)));
  const test::Result r = Run({"plan", "-f", file, "--at", kAt});
  REQUIRE(r.status == kExitOk);
  CHECK(Lines(r.err) ==
        std::vector<std::string>{absl::StrCat(
            "warning: ", file,
            ": NodeClaim \"n1-claim\": metadata.creationTimestamp, "
            "status.conditions[Initialized].lastTransitionTime are missing; "
            "taken as 2025-03-05T07:00:00Z (--at)")});
  CHECK(absl::StrContains(r.out, "0 commands"));
  CHECK_FALSE(absl::StrContains(r.out, "Expiration"));
  CHECK_FALSE(HasOldDate(r.out));
  // The empty node becomes consolidatable 30s after --at, not in 1970.
  CHECK(absl::StrContains(r.out, "Next pass: 2025-03-05T07:00:10Z"));

  const test::Result e = Run({"explain", "n1", "-f", file, "--at", kAt});
  REQUIRE(e.status == kExitOk);
  CHECK(Lines(e.err).size() == 1);
  CHECK_FALSE(HasOldDate(e.out));
  CHECK(absl::StrContains(e.out,
                          "consolidateAfter elapses 2025-03-05T07:00:30Z"));
  CHECK(absl::StrContains(e.out, "expiry:        2025-04-04T07:00:00Z"));

  // Without --at the warning says "now".
  const test::Result now = Run({"plan", "-f", file});
  REQUIRE(now.status == kExitOk);
  CHECK(absl::EndsWith(Lines(now.err).at(0), " (now)"));

  // The same cluster with its timestamps has nothing to say.
  const std::string dated = test::WriteTemp(
      "audit_dated_claim.yaml",
      absl::StrCat(kPool, Node("n1", kDated, kDatedConditions)));
  const test::Result clean = Run({"plan", "-f", dated, "--at", kAt});
  REQUIRE(clean.status == kExitOk);
  CHECK(clean.err.empty());
}

TEST_CASE("dump audit cli: --strict turns missing timestamps into an error",
          "[cli][audit]") {
  const std::string file =
      test::WriteTemp("audit_strict.yaml",
                      absl::StrCat(kPool, Node("n1", "", kUndatedConditions),
                                   Node("n2", kDated, kUndatedConditions)));
  const std::string head = absl::StrCat(
      ": --strict: ", file,
      ": NodeClaim \"n1-claim\": metadata.creationTimestamp, "
      "status.conditions[Initialized].lastTransitionTime are missing (and 1 "
      "more object with missing timestamps)\n");
  test::CheckUsageError({{"plan", "-f", file, "--at", kAt, "--strict"},
                         absl::StrCat("karpenter: plan", head)});
  test::CheckUsageError({{"explain", "n1", "--strict", "-f", file, "--at", kAt},
                         absl::StrCat("karpenter: explain", head)});
  test::CheckUsageError({{"budgets", "-f", file, "--at", kAt, "--strict"},
                         absl::StrCat("karpenter: budgets", head)});
  test::CheckUsageError({{"fit", "default/p", "-f", file, "--strict"},
                         "karpenter: fit: --strict: "});
  test::CheckUsageError({{"provision", "-f", file, "--strict"},
                         "karpenter: provision: --strict: "});
  // Without --strict the same commands warn, one line per object, and run.
  const test::Result b = Run({"budgets", "-f", file, "--at", kAt});
  CHECK(b.status == kExitOk);
  CHECK(Lines(b.err).size() == 2);
  // A complete dump passes --strict.
  const std::string dated = test::WriteTemp(
      "audit_strict_dated.yaml",
      absl::StrCat(kPool, Node("n1", kDated, kDatedConditions)));
  const test::Result ok = Run({"plan", "-f", dated, "--at", kAt, "--strict"});
  CHECK(ok.status == kExitOk);
  CHECK(ok.err.empty());
}

// NodeClaims (and their Nodes) dumped without their NodePool; n1's claim
// has expired, n2's has not.
std::string WithoutNodePools() {
  return absl::StrCat(
      Node("n1", R"(  creationTimestamp: "2025-01-01T00:00:00Z")",
           kDatedConditions),
      Node("n2", kDated, kDatedConditions));
}

TEST_CASE(
    "dump audit cli: NodeClaims without NodePools are not deleted "
    "unless --complete",
    "[cli][audit]") {
  const std::string file =
      test::WriteTemp("audit_no_pools.yaml", WithoutNodePools());
  const test::Result r = Run({"plan", "-f", file, "--at", kAt});
  REQUIRE(r.status == kExitOk);
  CHECK(Lines(r.err) ==
        std::vector<std::string>{
            "warning: the dump has 2 NodeClaims (of NodePool \"default\") "
            "but no NodePools, so every NodeClaim's NodePool looks deleted; "
            "add them with: kubectl get nodepools -o yaml"});
  CHECK_FALSE(absl::StrContains(r.out, "NodePoolDeleted"));
  // The expired claim still expires (its own spec.expireAfter), once.
  CHECK(absl::StrContains(r.out, "1 command\n"));
  CHECK(absl::StrContains(r.out, "Expiration"));
  CHECK(absl::StrContains(
      r.out,
      "NodePool \"default\" is not in the snapshot, which may not hold "
      "the whole cluster: its NodeClaims are not deleted; pass "
      "--complete if the dump is the whole cluster"));

  const test::Result e = Run({"explain", "n2", "-f", file, "--at", kAt});
  REQUIRE(e.status == kExitOk);
  CHECK(absl::StrContains(e.out, "verdict:       NodePoolNotFound"));
  CHECK(absl::StrContains(e.out, "pass --complete"));

  // --complete: the dump is the cluster, the NodePool was deleted, every
  // claim is deleted once, the expired one included (not a second time
  // for its expiry).
  const test::Result c = Run({"plan", "-f", file, "--at", kAt, "--complete"});
  REQUIRE(c.status == kExitOk);
  CHECK(absl::StrContains(c.out, "2 commands\n"));
  CHECK(absl::StrContains(c.out, "1  NodePoolDeleted  Delete    n1"));
  CHECK(absl::StrContains(c.out, "2  NodePoolDeleted  Delete    n2"));
  CHECK_FALSE(absl::StrContains(c.out, "Expiration  "));
}

TEST_CASE("dump audit cli: a NodeClaim dumped alone is not orphaned",
          "[cli][audit]") {
  // No Node and no NodePool: without --complete the verdict says why the
  // claim is left alone (not "does not have an associated node").
  const std::string file = test::WriteTemp("audit_claim_only.yaml", R"(
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata:
  name: lone
  creationTimestamp: "2025-03-01T00:00:00Z"
  labels: {karpenter.sh/nodepool: default}
spec: {expireAfter: 720h}
)");
  const test::Result r = Run({"plan", "-f", file, "--at", kAt});
  REQUIRE(r.status == kExitOk);
  CHECK(absl::StrContains(r.out, "0 commands"));
  CHECK(absl::StrContains(r.out, "lone  default   NodePoolNotFound"));
  const test::Result c = Run({"plan", "-f", file, "--at", kAt, "--complete"});
  REQUIRE(c.status == kExitOk);
  CHECK(absl::StrContains(c.out, "1  NodePoolDeleted  Delete    lone"));
}

TEST_CASE("dump audit cli: other partial dumps get one line each",
          "[cli][audit]") {
  const std::string nodes_only =
      test::WriteTemp("audit_nodes_only.yaml", absl::StrCat(kPool, R"(
apiVersion: v1
kind: Node
metadata:
  name: n1
  creationTimestamp: "2025-01-01T00:00:00Z"
  labels: {karpenter.sh/nodepool: default}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop}
spec: {nodeName: elsewhere, containers: [{name: c}]}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: spare}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}
      requirements: []
)"));
  const test::Result r = Run({"plan", "-f", nodes_only, "--at", kAt});
  REQUIRE(r.status == kExitOk);
  CHECK(Lines(r.err) ==
        std::vector<std::string>{
            "warning: the dump has 1 Node labelled karpenter.sh/nodepool but "
            "no NodeClaims, so no node is managed by Karpenter; add them "
            "with: kubectl get nodeclaims -o yaml",
            "warning: 1 pod bound to 1 node not in the dump (\"elsewhere\"); "
            "add them with: kubectl get nodes -o yaml",
            "note: NodePool \"spare\" has no Node or NodeClaim in the dump"});
  // --strict is about timestamps: a partial dump still plans.
  CHECK(Run({"plan", "-f", nodes_only, "--at", kAt, "--strict"}).status ==
        kExitOk);
}

TEST_CASE("dump audit cli: the bundled cluster has nothing to report",
          "[cli][audit]") {
  const test::Result r = Run({"plan", "--at", kAt, "--strict"});
  CHECK(r.status == kExitOk);
  CHECK(r.err.empty());
}

TEST_CASE("dump audit cli: usage texts name --strict and --complete",
          "[cli][audit]") {
  for (const char* command : {"plan", "explain"}) {
    const test::Result r = Run({command, "--help"});
    CHECK(absl::StrContains(r.out, "[--strict] [--complete]"));
  }
  for (const char* command : {"budgets", "fit", "provision"}) {
    const test::Result r = Run({command, "--help"});
    CHECK(absl::StrContains(r.out, "[--strict]"));
  }
}

}  // namespace
}  // namespace karpenter::cli
