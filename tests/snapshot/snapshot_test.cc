// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/snapshot/snapshot.h"

#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "../testing/kit_test_util.h"
#include "absl/strings/str_cat.h"
#include "karpenter/testing/builders.h"

namespace karpenter::snapshot {
namespace {

// Positional shorthands for the kit's builders
// (karpenter/testing/builders.h); "" leaves a field empty.
v1::Node MakeNode(const std::string& name,
                  const std::string& provider_id = "") {
  return testing::MakeNode({.name = name, .provider_id = provider_id});
}

v1::Pod MakePod(const std::string& ns, const std::string& name,
                const std::string& node_name) {
  return testing::MakePod({.name = name, .ns = ns, .node = node_name});
}

v1::PodDisruptionBudget MakePdb(const std::string& ns,
                                const std::string& name) {
  return testing::MakePdb({.name = name, .ns = ns});
}

v1::NodeClaim MakeClaim(const std::string& name, const std::string& node_name,
                        const std::string& provider_id) {
  return testing::MakeNodeClaim(
      {.name = name, .node_name = node_name, .provider_id = provider_id});
}

v1::NodePool MakePool(const std::string& name) {
  return testing::MakeNodePool({.name = name});
}

std::vector<std::string> PodNames(const Snapshot& s,
                                  absl::Span<const PodIndex> pods) {
  std::vector<std::string> names;
  for (PodIndex p : pods) names.push_back(s.DecodePod(p).metadata().name());
  return names;
}

Snapshot MustBuild(ObjectSet set) {
  return kit_test::MustBuildSnapshot(std::move(set));
}

TEST_CASE("snapshot: groups pods by node in input order", "[snapshot]") {
  ObjectSet set;
  set.nodes = {MakeNode("n0"), MakeNode("n1"), MakeNode("n2")};
  set.pods = {MakePod("a", "p0", "n1"), MakePod("a", "p1", ""),
              MakePod("b", "p2", "n0"), MakePod("a", "p3", "ghost"),
              MakePod("b", "p4", "n1"), MakePod("a", "p5", ""),
              MakePod("c", "p6", "n1")};
  const Snapshot s = MustBuild(std::move(set));
  CHECK(PodNames(s, s.PodsOnNode(0)) == std::vector<std::string>{"p2"});
  CHECK(PodNames(s, s.PodsOnNode(1)) ==
        std::vector<std::string>{"p0", "p4", "p6"});
  CHECK(s.PodsOnNode(2).empty());
  CHECK(PodNames(s, s.UnboundPods()) == std::vector<std::string>{"p1", "p5"});
  CHECK(PodNames(s, s.PodsOnUnknownNodes()) == std::vector<std::string>{"p3"});
  CHECK(s.NodeOfPod(0) == std::optional<NodeIndex>(1));
  CHECK_FALSE(s.NodeOfPod(1).has_value());
  CHECK_FALSE(s.NodeOfPod(3).has_value());
  // Namespaces are interned in first-seen order.
  REQUIRE(s.namespace_count() == 3);
  CHECK(s.NamespaceName(0) == "a");
  CHECK(s.NamespaceName(s.NamespaceOfPod(6)) == "c");
  CHECK(s.FindNamespace("b") == std::optional<NamespaceId>(1));
  CHECK_FALSE(s.FindNamespace("zzz").has_value());
}

TEST_CASE("snapshot: lookups by name, namespace and provider id",
          "[snapshot]") {
  ObjectSet set;
  set.nodes = {MakeNode("n0", "aws:///us-west-2a/i-0"),
               MakeNode("n1", "aws:///us-west-2a/i-1")};
  set.pods = {MakePod("", "p", "n0"), MakePod("shop", "p", "n1")};
  set.pdbs = {MakePdb("shop", "web"), MakePdb("", "dflt"),
              MakePdb("shop", "api"), MakePdb("other", "x")};
  set.node_pools = {MakePool("default"), MakePool("batch")};
  set.node_claims = {MakeClaim("c0", "n0", "aws:///us-west-2a/i-0"),
                     MakeClaim("c1", "", "aws:///us-west-2a/i-1"),
                     MakeClaim("c2", "n9", "")};
  set.skipped_kinds["Service"] = 2;
  const Snapshot s = MustBuild(std::move(set));

  CHECK(s.FindNode("n1") == std::optional<NodeIndex>(1));
  CHECK_FALSE(s.FindNode("n2").has_value());
  CHECK(s.FindNodePool("batch") == std::optional<NodePoolIndex>(1));
  CHECK_FALSE(s.FindNodePool("gpu").has_value());
  CHECK(s.FindNodeClaim("c2") == std::optional<NodeClaimIndex>(2));
  // Empty namespaces become "default", as kubectl would create them.
  CHECK(s.DecodePod(0).metadata().namespace_() == "default");
  CHECK(s.FindPod("default", "p") == std::optional<PodIndex>(0));
  CHECK(s.FindPod("shop", "p") == std::optional<PodIndex>(1));
  CHECK_FALSE(s.FindPod("", "p").has_value());
  CHECK_FALSE(s.FindPod("nowhere", "p").has_value());
  CHECK(s.FindPdb("default", "dflt") == std::optional<PdbIndex>(1));
  CHECK_FALSE(s.FindPdb("shop", "dflt").has_value());

  const auto shop = s.PdbsInNamespace("shop");
  CHECK(std::vector<PdbIndex>(shop.begin(), shop.end()) ==
        std::vector<PdbIndex>{0, 2});
  CHECK(s.PdbsInNamespace("other").size() == 1);
  CHECK(s.PdbsInNamespace("nowhere").empty());
  CHECK(s.PdbsInNamespace(*s.FindNamespace("default")).size() == 1);

  CHECK(s.FindNodeClaimByNodeName("n0") == std::optional<NodeClaimIndex>(0));
  CHECK(s.FindNodeClaimByNodeName("n9") == std::optional<NodeClaimIndex>(2));
  CHECK_FALSE(s.FindNodeClaimByNodeName("").has_value());
  CHECK(s.FindNodeClaimByProviderId("aws:///us-west-2a/i-1") ==
        std::optional<NodeClaimIndex>(1));
  CHECK_FALSE(s.FindNodeClaimByProviderId("").has_value());
  CHECK_FALSE(s.FindNodeClaimByProviderId("aws:///x").has_value());
  CHECK(s.skipped_kinds().at("Service") == 2);
}

TEST_CASE("snapshot: ambiguous provider ids and node names match nothing",
          "[snapshot]") {
  ObjectSet set;
  set.node_claims = {MakeClaim("c0", "n0", "aws:///i-dup"),
                     MakeClaim("c1", "n0", "aws:///i-dup"),
                     MakeClaim("c2", "n1", "aws:///i-2"),
                     MakeClaim("c3", "n2", "aws:///i-dup")};
  const Snapshot s = MustBuild(std::move(set));
  CHECK_FALSE(s.FindNodeClaimByProviderId("aws:///i-dup").has_value());
  CHECK_FALSE(s.FindNodeClaimByNodeName("n0").has_value());
  CHECK(s.FindNodeClaimByNodeName("n2") == std::optional<NodeClaimIndex>(3));
  CHECK(s.FindNodeClaimByProviderId("aws:///i-2") ==
        std::optional<NodeClaimIndex>(2));
}

TEST_CASE("snapshot: duplicate and empty names are rejected", "[snapshot]") {
  struct Case {
    const char* name;
    ObjectSet set;
    std::string message;
  };
  std::vector<Case> cases;
  {
    ObjectSet set;
    set.nodes = {MakeNode("a"), MakeNode("b"), MakeNode("a")};
    cases.push_back({"nodes", std::move(set),
                     "duplicate Node \"a\": nodes[0] and nodes[2]"});
  }
  {
    ObjectSet set;
    set.pods = {MakePod("x", "p", ""), MakePod("y", "p", ""),
                MakePod("y", "p", "n")};
    cases.push_back(
        {"pods", std::move(set), "duplicate Pod \"y/p\": pods[1] and pods[2]"});
  }
  {
    ObjectSet set;
    set.pods = {MakePod("", "p", ""), MakePod("default", "p", "")};
    cases.push_back({"defaulted pods", std::move(set),
                     "duplicate Pod \"default/p\": pods[0] and pods[1]"});
  }
  {
    ObjectSet set;
    set.pdbs = {MakePdb("x", "a"), MakePdb("x", "a")};
    cases.push_back(
        {"pdbs", std::move(set),
         "duplicate PodDisruptionBudget \"x/a\": pdbs[0] and pdbs[1]"});
  }
  {
    ObjectSet set;
    set.node_pools = {MakePool("default"), MakePool("default")};
    cases.push_back(
        {"pools", std::move(set),
         "duplicate NodePool \"default\": node_pools[0] and node_pools[1]"});
  }
  {
    ObjectSet set;
    set.node_claims = {MakeClaim("c", "", ""), MakeClaim("c", "n", "p")};
    cases.push_back(
        {"claims", std::move(set),
         "duplicate NodeClaim \"c\": node_claims[0] and node_claims[1]"});
  }
  {
    ObjectSet set;
    set.pods = {MakePod("x", "p", ""), MakePod("x", "", "")};
    cases.push_back({"unnamed pod", std::move(set),
                     "pods[1] (unnamed Pod): metadata.name is empty"});
  }
  {
    ObjectSet set;
    set.nodes = {MakeNode("")};
    cases.push_back({"unnamed node", std::move(set),
                     "nodes[0] (unnamed Node): metadata.name is empty"});
  }
  for (Case& c : cases) {
    INFO(c.name);
    const absl::StatusOr<Snapshot> s = Snapshot::Build(std::move(c.set));
    CHECK(s.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(s.status().message() == c.message);
  }
}

TEST_CASE("snapshot: survives moves with its indexes intact", "[snapshot]") {
  ObjectSet set;
  for (int i = 0; i < 50; ++i) {
    // The index keys are views into the protos: a move that relocated them
    // would leave the keys dangling (ASan would tell).
    set.nodes.push_back(MakeNode(absl::StrCat("n", i)));
    set.pods.push_back(
        MakePod("ns", absl::StrCat("p", i), absl::StrCat("n", i % 7)));
  }
  Snapshot first = MustBuild(std::move(set));
  Snapshot moved(std::move(first));
  Snapshot assigned;
  assigned = std::move(moved);
  CHECK(assigned.FindNode("n42") == std::optional<NodeIndex>(42));
  CHECK(assigned.FindPod("ns", "p13") == std::optional<PodIndex>(13));
  CHECK(
      PodNames(assigned, assigned.PodsOnNode(6)) ==
      std::vector<std::string>{"p6", "p13", "p20", "p27", "p34", "p41", "p48"});
  const Snapshot empty;
  CHECK(empty.nodes().empty());
  CHECK(empty.UnboundPods().empty());
  CHECK(empty.PdbsInNamespace("x").empty());
}

TEST_CASE("snapshot: loads the kubectl List fixture end to end", "[snapshot]") {
  ObjectSet set;
  REQUIRE(
      LoadFile(absl::StrCat(KARPENTER_TESTDATA_DIR, "/cluster-list.yaml"), set)
          .ok());
  const Snapshot s = MustBuild(std::move(set));
  const auto n0 = s.FindNode("ip-10-0-1-23.us-west-2.compute.internal");
  REQUIRE(n0.has_value());
  CHECK(PodNames(s, s.PodsOnNode(*n0)) ==
        std::vector<std::string>{"web-6d4cf56db6-4xk2p", "kube-proxy-q9w3a"});
  CHECK(PodNames(s, s.UnboundPods()) ==
        std::vector<std::string>{"report-7f9c5d8b4-2lmnp"});
  const auto claim =
      s.FindNodeClaimByProviderId(s.nodes()[*n0].spec().provider_id());
  REQUIRE(claim.has_value());
  CHECK(s.node_claims()[*claim].metadata().name() == "default-7xk2p");
  CHECK(s.FindNodeClaimByNodeName(s.nodes()[*n0].metadata().name()) == claim);
  CHECK(s.FindNodePool("default").has_value());
  CHECK(s.PdbsInNamespace("default").size() == 1);
  CHECK(s.PdbsInNamespace("kube-system").empty());
}

}  // namespace
}  // namespace karpenter::snapshot
