// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/snapshot/audit.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/time/time.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/time_util.h"

namespace karpenter::snapshot {
namespace {

const absl::Time kAt = absl::FromUnixSeconds(1741158000);  // 2025-03-05T07Z

ObjectSet Load(const std::string& yaml) {
  ObjectSet objects;
  const absl::Status s = LoadYaml(yaml, "test.yaml", objects);
  REQUIRE(s.ok());
  return objects;
}

constexpr char kBareClaim[] = R"(
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata:
  name: default-abc
  labels: {karpenter.sh/nodepool: default}
spec:
  expireAfter: 720h
status:
  conditions:
  - {type: Initialized, status: "True"}
  - {type: Drifted, status: "True", reason: NodePoolDrifted,
     lastTransitionTime: "2025-03-01T00:00:00Z"}
)";

TEST_CASE("AuditDump fills a NodeClaim's missing timestamps with now",
          "[audit]") {
  ObjectSet objects = Load(kBareClaim);
  AuditOptions options;
  options.source = "nc.yaml";
  options.now_label = "--at";
  absl::StatusOr<std::vector<DumpWarning>> w = AuditDump(objects, kAt, options);
  REQUIRE(w.ok());
  REQUIRE(w->size() == 1);
  const DumpWarning& d = (*w)[0];
  CHECK(d.kind == DumpWarningKind::kMissingTimestamp);
  CHECK(d.source == "nc.yaml");
  CHECK(d.object_kind == "NodeClaim");
  CHECK(d.object == "default-abc");
  CHECK(d.fields == std::vector<std::string>{
                        "metadata.creationTimestamp",
                        "status.conditions[Initialized].lastTransitionTime"});
  CHECK(d.message ==
        "nc.yaml: NodeClaim \"default-abc\": metadata.creationTimestamp, "
        "status.conditions[Initialized].lastTransitionTime are missing; "
        "taken as 2025-03-05T07:00:00Z (--at)");
  const v1::NodeClaim& c = objects.node_claims[0];
  CHECK(TimeFromProto(c.metadata().creation_timestamp()) == kAt);
  CHECK(TimeFromProto(c.status().conditions(0).last_transition_time()) == kAt);
  // A present timestamp stays.
  CHECK(TimeFromProto(c.status().conditions(1).last_transition_time()) ==
        absl::FromUnixSeconds(1740787200));
  // Not deleting: no deletionTimestamp appears.
  CHECK_FALSE(c.metadata().has_deletion_timestamp());

  // A second audit finds nothing: the set is complete now.
  absl::StatusOr<std::vector<DumpWarning>> again =
      AuditDump(objects, kAt + absl::Hours(1), options);
  REQUIRE(again.ok());
  CHECK(again->empty());
}

TEST_CASE("AuditDump: nodes, deletion and pods", "[audit]") {
  ObjectSet objects = Load(R"(
apiVersion: v1
kind: Node
metadata: {name: n1}
---
apiVersion: v1
kind: Node
metadata: {name: n2, creationTimestamp: "1999-01-01T00:00:00Z"}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop}
spec: {nodeName: n1}
---
apiVersion: v1
kind: Pod
metadata: {name: leaving, deletionGracePeriodSeconds: 30}
---
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata:
  name: going
  creationTimestamp: "2025-01-01T00:00:00Z"
  deletionGracePeriodSeconds: 0
)");
  absl::StatusOr<std::vector<DumpWarning>> w = AuditDump(objects, kAt, {});
  REQUIRE(w.ok());
  std::vector<std::string> messages;
  for (const DumpWarning& d : *w) messages.push_back(d.message);
  // n2's (old but present) timestamp and the pod "web" (its creation is
  // read by no decision) are left alone.
  CHECK(messages ==
        std::vector<std::string>{
            "Node \"n1\": metadata.creationTimestamp is missing; taken as "
            "2025-03-05T07:00:00Z (now)",
            "NodeClaim \"going\": metadata.deletionTimestamp is missing; taken "
            "as 2025-03-05T07:00:00Z (now)",
            "Pod \"default/leaving\": metadata.deletionTimestamp is missing; "
            "taken as 2025-03-05T07:00:00Z (now)"});
  CHECK(TimeFromProto(objects.nodes[1].metadata().creation_timestamp()) ==
        absl::FromUnixSeconds(915148800));
  CHECK_FALSE(objects.pods[0].metadata().has_creation_timestamp());
  CHECK(TimeFromProto(objects.pods[1].metadata().deletion_timestamp()) == kAt);
  CHECK(TimeFromProto(objects.node_claims[0].metadata().deletion_timestamp()) ==
        kAt);

  // Without node_creation a Node's missing creationTimestamp stays missing.
  ObjectSet more = Load("apiVersion: v1\nkind: Node\nmetadata: {name: n3}\n");
  AuditOptions no_nodes;
  no_nodes.node_creation = false;
  absl::StatusOr<std::vector<DumpWarning>> none =
      AuditDump(more, kAt, no_nodes);
  REQUIRE(none.ok());
  CHECK(none->empty());
  CHECK_FALSE(more.nodes[0].metadata().has_creation_timestamp());
}

TEST_CASE("AuditDump rejects an infinite now and leaves the set alone",
          "[audit]") {
  ObjectSet objects = Load(kBareClaim);
  absl::StatusOr<std::vector<DumpWarning>> w =
      AuditDump(objects, absl::InfiniteFuture(), {});
  REQUIRE_FALSE(w.ok());
  CHECK(w.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(absl::StrContains(w.status().message(), "infinite-future"));
  CHECK_FALSE(objects.node_claims[0].metadata().has_creation_timestamp());
}

TEST_CASE("AuditCoverage names what a partial dump lacks", "[audit]") {
  SECTION("NodeClaims without NodePools") {
    ObjectSet objects = Load(kBareClaim);
    const std::vector<DumpWarning> w = AuditCoverage(objects);
    REQUIRE(w.size() == 1);
    CHECK(w[0].kind == DumpWarningKind::kPartialDump);
    CHECK(w[0].kubectl == "kubectl get nodepools -o yaml");
    CHECK(w[0].message ==
          "the dump has 1 NodeClaim (of NodePool \"default\") but no "
          "NodePools, so every NodeClaim's NodePool looks deleted; add them "
          "with: kubectl get nodepools -o yaml");
  }
  SECTION(
      "managed Nodes without NodeClaims, pods on absent nodes, unused "
      "NodePools") {
    ObjectSet objects = Load(R"(
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {karpenter.sh/nodepool: default}}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
---
apiVersion: v1
kind: Pod
metadata: {name: a}
spec: {nodeName: gone-1}
---
apiVersion: v1
kind: Pod
metadata: {name: b}
spec: {nodeName: gone-1}
---
apiVersion: v1
kind: Pod
metadata: {name: c}
spec: {nodeName: n2}
---
apiVersion: v1
kind: Pod
metadata: {name: pending}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: spare}
)");
    const std::vector<DumpWarning> w = AuditCoverage(objects);
    REQUIRE(w.size() == 3);
    CHECK(w[0].kubectl == "kubectl get nodeclaims -o yaml");
    CHECK(absl::StartsWith(w[0].message,
                           "the dump has 1 Node labelled "
                           "karpenter.sh/nodepool but no NodeClaims"));
    CHECK(w[1].kubectl == "kubectl get nodes -o yaml");
    CHECK(absl::StartsWith(w[1].message,
                           "2 pods bound to 1 node not in the dump "
                           "(\"gone-1\")"));
    CHECK(w[2].kind == DumpWarningKind::kInformational);
    CHECK(w[2].kubectl.empty());
    CHECK(w[2].message ==
          "NodePool \"spare\" has no Node or NodeClaim in the dump");
  }
  SECTION("a consistent dump has nothing to say") {
    ObjectSet objects = Load(R"(
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {karpenter.sh/nodepool: default}}
---
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata: {name: c1, labels: {karpenter.sh/nodepool: default}}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
---
apiVersion: v1
kind: Pod
metadata: {name: a}
spec: {nodeName: n1}
)");
    CHECK(AuditCoverage(objects).empty());
    CHECK(AuditCoverage(ObjectSet{}).empty());
  }
}

}  // namespace
}  // namespace karpenter::snapshot
