// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// ClusterState: applying events, their order and staleness, bad events, and
// publications that outlive later events.

#include "karpenter/state/cluster_state.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "karpenter/disruption/candidates.h"
#include "karpenter/disruption/scheduler.h"
#include "karpenter/testing/builders.h"
#include "karpenter/testing/snapshot_equal.h"
#include "snapshot/snapshot_parts.h"
#include "state_test_util.h"

namespace karpenter::state {
namespace {

using snapshot::internal::SnapshotParts;

using ::karpenter::testing::MakeNode;
using ::karpenter::testing::MakeNodeClaim;
using ::karpenter::testing::MakeNodePool;
using ::karpenter::testing::MakePdb;
using ::karpenter::testing::MakePod;
using ::karpenter::testing::MakeStorageClass;

v1::Node NodeAt(const std::string& name, const std::string& rv) {
  v1::Node node = MakeNode({.name = name});
  node.mutable_metadata()->set_resource_version(rv);
  return node;
}

v1::Pod PodAt(const std::string& ns, const std::string& name,
              const std::string& rv, const std::string& node = "") {
  v1::Pod pod = MakePod({.name = name, .node = node});
  pod.mutable_metadata()->set_namespace_(ns);
  pod.mutable_metadata()->set_resource_version(rv);
  return pod;
}

std::vector<std::string> NodeNames(const ClusterState& state) {
  std::vector<std::string> names;
  for (const v1::Node& n : state.Export().nodes) {
    names.push_back(n.metadata().name());
  }
  return names;
}

using state_test::MustApply;

TEST_CASE("cluster state: objects keep the order of their first addition",
          "[cluster-state]") {
  ClusterState state;
  for (const char* name : {"a", "b", "c"}) {
    CHECK(MustApply(state, EventType::kAdded, NodeAt(name, "1")) ==
          Applied::kStored);
  }
  // A MODIFIED keeps its place; a DELETED then ADDED goes last.
  CHECK(MustApply(state, EventType::kModified, NodeAt("a", "5")) ==
        Applied::kStored);
  CHECK(NodeNames(state) == std::vector<std::string>{"a", "b", "c"});
  CHECK(MustApply(state, EventType::kDeleted, NodeAt("b", "6")) ==
        Applied::kDeleted);
  CHECK(NodeNames(state) == std::vector<std::string>{"a", "c"});
  CHECK(MustApply(state, EventType::kAdded, NodeAt("b", "7")) ==
        Applied::kStored);
  CHECK(NodeNames(state) == std::vector<std::string>{"a", "c", "b"});
  CHECK(state.size() == 3);
  // The stored object is the newest one.
  CHECK(state.Export().nodes[0].metadata().resource_version() == "5");
}

// Takes a snapshot from `state` and checks that it is the one built from
// its objects, accessor for accessor; returns it.
snapshot::Snapshot CheckTakenIsBuilt(const ClusterState& state) {
  absl::StatusOr<snapshot::Snapshot> taken = state.TakeSnapshot();
  REQUIRE(taken.ok());
  absl::StatusOr<snapshot::Snapshot> built =
      snapshot::Snapshot::Build(state.Export());
  REQUIRE(built.ok());
  CHECK(testing::SnapshotDiff(*taken, *built).empty());
  return *std::move(taken);
}

TEST_CASE("cluster state: kinds kept by name stay in name order",
          "[cluster-state]") {
  ClusterStateOptions options;
  options.nodes_by_name = true;
  options.node_claims_by_name = true;
  ClusterState state(options);
  for (const char* name : {"c", "a", "b"}) {
    MustApply(state, EventType::kAdded, NodeAt(name, "1"));
  }
  CHECK(NodeNames(state) == std::vector<std::string>{"a", "b", "c"});
  // A MODIFIED keeps its place; a DELETED then ADDED comes back in place.
  MustApply(state, EventType::kModified, NodeAt("a", "5"));
  MustApply(state, EventType::kDeleted, NodeAt("b", "6"));
  MustApply(state, EventType::kAdded, NodeAt("b", "7"));
  CHECK(NodeNames(state) == std::vector<std::string>{"a", "b", "c"});
  CHECK(state.Export().nodes[0].metadata().resource_version() == "5");
  // Kinds not named keep the order of first addition.
  MustApply(state, EventType::kAdded, MakeNodePool({.name = "z"}));
  MustApply(state, EventType::kAdded, MakeNodePool({.name = "y"}));
  CHECK(state.Export().node_pools[0].metadata().name() == "z");

  // Each new name the largest below "b": the spacing between neighbours
  // halves every time, until the kind is renumbered (more than once).
  std::string name = "a";
  std::vector<std::string> want = {"a"};
  for (int i = 0; i < 80; ++i) {
    name += "1";
    want.push_back(name);
    MustApply(state, EventType::kAdded, NodeAt(name, "8"));
    // Pods on the new node, so snapshots translate their node hints.
    MustApply(state, EventType::kAdded,
              PodAt("p", absl::StrCat("pod-", i), "8", name));
    if (i % 9 == 0) CheckTakenIsBuilt(state);
  }
  want.push_back("b");
  want.push_back("c");
  CHECK(NodeNames(state) == want);
  // Deleting and modifying after the renumbering finds every node.
  MustApply(state, EventType::kDeleted, NodeAt("a1", "9"));
  MustApply(state, EventType::kModified, NodeAt("a11", "9"));
  want.erase(want.begin() + 1);
  CHECK(NodeNames(state) == want);
  CHECK(state.Export().nodes[1].metadata().resource_version() == "9");
  CheckTakenIsBuilt(state);
  CHECK(state.size() == want.size() + 2 + 80);
}

TEST_CASE("cluster state: ADDED and MODIFIED are both upserts",
          "[cluster-state]") {
  ClusterState state;
  CHECK(MustApply(state, EventType::kModified, NodeAt("n", "3")) ==
        Applied::kStored);
  CHECK(MustApply(state, EventType::kAdded, NodeAt("n", "4")) ==
        Applied::kStored);
  CHECK(state.size() == 1);
  CHECK(state.Export().nodes.at(0).metadata().resource_version() == "4");
}

TEST_CASE("cluster state: events older than the stored object are stale",
          "[cluster-state]") {
  ClusterState state;
  MustApply(state, EventType::kAdded, NodeAt("n", "10"));
  const uint64_t generation = state.generation();
  CHECK(MustApply(state, EventType::kModified, NodeAt("n", "9")) ==
        Applied::kStale);
  CHECK(MustApply(state, EventType::kModified, NodeAt("n", "10")) ==
        Applied::kUnchanged);
  CHECK(MustApply(state, EventType::kDeleted, NodeAt("n", "8")) ==
        Applied::kStale);
  CHECK(state.generation() == generation);
  CHECK(state.Export().nodes.at(0).metadata().resource_version() == "10");
  // Numeric comparison, not text: "100" is newer than "99".
  MustApply(state, EventType::kModified, NodeAt("n", "99"));
  CHECK(MustApply(state, EventType::kModified, NodeAt("n", "100")) ==
        Applied::kStored);
  CHECK(state.generation() == generation + 2);
}

TEST_CASE("cluster state: a late event for a deleted object is stale",
          "[cluster-state]") {
  ClusterState state;
  MustApply(state, EventType::kAdded, NodeAt("n", "10"));
  CHECK(MustApply(state, EventType::kDeleted, NodeAt("n", "12")) ==
        Applied::kDeleted);
  // A MODIFIED from before the deletion arrives late: not resurrected.
  CHECK(MustApply(state, EventType::kModified, NodeAt("n", "11")) ==
        Applied::kStale);
  CHECK(MustApply(state, EventType::kModified, NodeAt("n", "12")) ==
        Applied::kStale);
  CHECK(state.size() == 0);
  // A deletion of what is not there is ignored.
  CHECK(MustApply(state, EventType::kDeleted, NodeAt("n", "13")) ==
        Applied::kIgnored);
  CHECK(MustApply(state, EventType::kDeleted, NodeAt("m", "1")) ==
        Applied::kIgnored);
  // A newer object of the same name is a new object.
  CHECK(MustApply(state, EventType::kAdded, NodeAt("n", "14")) ==
        Applied::kStored);
  CHECK(state.size() == 1);
}

TEST_CASE("cluster state: resourceVersions that are not integers are applied",
          "[cluster-state]") {
  ClusterState state;
  MustApply(state, EventType::kAdded, NodeAt("n", "10"));
  // Manifests carry none, and resourceVersion is opaque in the API.
  CHECK(MustApply(state, EventType::kModified, NodeAt("n", "")) ==
        Applied::kStored);
  CHECK(MustApply(state, EventType::kModified, NodeAt("n", "abc")) ==
        Applied::kStored);
  CHECK(MustApply(state, EventType::kModified, NodeAt("n", "3")) ==
        Applied::kStored);
  CHECK(state.Export().nodes.at(0).metadata().resource_version() == "3");
}

TEST_CASE("cluster state: namespaced objects default to the default namespace",
          "[cluster-state]") {
  ClusterState state;
  MustApply(state, EventType::kAdded, PodAt("", "web", "1"));
  // The same pod, named with its namespace: the same key.
  CHECK(MustApply(state, EventType::kModified, PodAt("default", "web", "2")) ==
        Applied::kStored);
  MustApply(state, EventType::kAdded, PodAt("other", "web", "1"));
  const snapshot::ObjectSet objects = state.Export();
  REQUIRE(objects.pods.size() == 2);
  CHECK(objects.pods[0].metadata().namespace_() == "default");
  CHECK(objects.pods[0].metadata().resource_version() == "2");
  CHECK(objects.pods[1].metadata().namespace_() == "other");
}

TEST_CASE("cluster state: a bad event is an error and changes nothing",
          "[cluster-state]") {
  ClusterState state;
  MustApply(state, EventType::kAdded, NodeAt("n", "1"));
  const uint64_t generation = state.generation();

  absl::StatusOr<Applied> unnamed = state.Apply({.type = EventType::kAdded,
                                                 .object = PodAt("ns", "", "1"),
                                                 .origin = "stdin: value 3"});
  REQUIRE_FALSE(unnamed.ok());
  CHECK(unnamed.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(unnamed.status().message() ==
        "stdin: value 3: ADDED unnamed Pod: metadata.name is empty");

  v1::StorageClass sc = MakeStorageClass({.name = "fast"});
  sc.set_volume_binding_mode("Later");
  absl::StatusOr<Applied> bad_class = state.Apply(
      {.type = EventType::kModified, .object = sc, .origin = "w.json"});
  REQUIRE_FALSE(bad_class.ok());
  CHECK(bad_class.status().message() ==
        "w.json: MODIFIED StorageClass fast: volumeBindingMode: expected "
        "\"Immediate\" or \"WaitForFirstConsumer\", got \"Later\"");

  CHECK(state.generation() == generation);
  CHECK(state.size() == 1);
  // Deleting a bad object by name works: its contents are not checked.
  MustApply(state, EventType::kAdded, MakeStorageClass({.name = "slow"}));
  sc.mutable_metadata()->set_name("slow");
  CHECK(MustApply(state, EventType::kDeleted, sc) == Applied::kDeleted);
}

TEST_CASE("cluster state: ApplyAll adds a loaded dump in ObjectSet order",
          "[cluster-state]") {
  snapshot::ObjectSet set;
  set.nodes = {NodeAt("n2", "1"), NodeAt("n1", "1")};
  set.pods = {PodAt("a", "p", "1", "n1")};
  set.skipped_kinds["Service"] = 3;
  ClusterState state;
  REQUIRE(state.ApplyAll(set).ok());
  CHECK(NodeNames(state) == std::vector<std::string>{"n2", "n1"});
  CHECK(state.size() == 3);
  CHECK(state.Export().skipped_kinds.at("Service") == 3);

  // A bad object is named by its list position when it has no origin.
  snapshot::ObjectSet bad;
  bad.nodes = {NodeAt("n3", "1"), NodeAt("", "1")};
  const absl::Status s = state.ApplyAll(bad);
  CHECK(s.message() == "nodes[1]: ADDED unnamed Node: metadata.name is empty");
  // The objects before it stay applied.
  CHECK(NodeNames(state) == std::vector<std::string>{"n2", "n1", "n3"});
}

TEST_CASE(
    "cluster state: the snapshot equals one built from the exported "
    "objects",
    "[cluster-state]") {
  ClusterState state;
  MustApply(state, EventType::kAdded, NodeAt("n1", "1"));
  MustApply(state, EventType::kAdded, NodeAt("n2", "1"));
  MustApply(state, EventType::kAdded, PodAt("a", "p1", "1", "n1"));
  MustApply(state, EventType::kAdded, PodAt("a", "p2", "1", "n2"));
  MustApply(state, EventType::kAdded, PodAt("b", "p3", "1"));
  MustApply(state, EventType::kModified, PodAt("a", "p1", "2", "n2"));
  MustApply(state, EventType::kDeleted, NodeAt("n1", "3"));

  // Assembled from the held (compacted) pods, it is the snapshot of the
  // exported objects, accessor for accessor.
  const snapshot::Snapshot taken = CheckTakenIsBuilt(state);
  CHECK(taken.nodes().size() == 1);
  REQUIRE(taken.pod_count() == 3);
  const std::optional<snapshot::NodeIndex> n2 = taken.FindNode("n2");
  REQUIRE(n2.has_value());
  // p1 moved to n2: both a/p1 and a/p2 are there, in pod order.
  const auto on_n2 = taken.PodsOnNode(*n2);
  REQUIRE(on_n2.size() == 2);
  CHECK(taken.PodKey(on_n2[0]) == "a/p1");
  CHECK(taken.PodKey(on_n2[1]) == "a/p2");
  CHECK(taken.UnboundPods().size() == 1);
}

TEST_CASE("cluster state: a publication outlives later events",
          "[cluster-state]") {
  ClusterState state;
  MustApply(state, EventType::kAdded, NodeAt("n1", "1"));
  absl::StatusOr<std::shared_ptr<const Published>> first = state.Publish();
  REQUIRE(first.ok());
  // Nothing applied since: the same publication.
  absl::StatusOr<std::shared_ptr<const Published>> again = state.Publish();
  REQUIRE(again.ok());
  CHECK(again->get() == first->get());
  MustApply(state, EventType::kModified, NodeAt("n1", "1"));  // A replay.
  CHECK(state.Publish()->get() == first->get());

  MustApply(state, EventType::kAdded, NodeAt("n2", "2"));
  MustApply(state, EventType::kDeleted, NodeAt("n1", "3"));
  absl::StatusOr<std::shared_ptr<const Published>> second = state.Publish();
  REQUIRE(second.ok());
  CHECK(second->get() != first->get());
  // The first still shows the cluster as it was, facts included.
  const Published& old = **first;
  REQUIRE(old.snapshot.nodes().size() == 1);
  CHECK(old.snapshot.nodes()[0].metadata().name() == "n1");
  CHECK(&old.facts->snapshot() == &old.snapshot);
  CHECK((*second)->snapshot.nodes()[0].metadata().name() == "n2");
  CHECK((*second)->generation == state.generation());
}

TEST_CASE(
    "cluster state: successive snapshots share the pods and kinds that did "
    "not change",
    "[cluster-state]") {
  ClusterState state;
  MustApply(state, EventType::kAdded, NodeAt("n1", "1"));
  MustApply(state, EventType::kAdded, NodeAt("n2", "1"));
  MustApply(state, EventType::kAdded, MakeStorageClass({.name = "gp3"}));
  MustApply(state, EventType::kAdded, PodAt("a", "p1", "1", "n1"));
  MustApply(state, EventType::kAdded, PodAt("a", "p2", "1", "n2"));
  absl::StatusOr<snapshot::Snapshot> first = state.TakeSnapshot();
  REQUIRE(first.ok());

  // Pod events only: the Node and StorageClass storage is the first
  // snapshot's, and so is the record of the pod no event touched.
  MustApply(state, EventType::kModified, PodAt("a", "p1", "2", "n2"));
  MustApply(state, EventType::kAdded, PodAt("b", "p3", "2"));
  absl::StatusOr<snapshot::Snapshot> second = state.TakeSnapshot();
  REQUIRE(second.ok());
  CHECK(SnapshotParts::Same(
      *second, *first, SnapshotParts::kNodes | SnapshotParts::kStorageClasses));
  CHECK(second->PodName(1).data() == first->PodName(1).data());  // a/p2
  CHECK(second->PodName(0).data() != first->PodName(0).data());  // a/p1
  absl::StatusOr<snapshot::Snapshot> built =
      snapshot::Snapshot::Build(state.Export());
  REQUIRE(built.ok());
  CHECK(testing::SnapshotDiff(*second, *built).empty());
  // The first is unchanged by what the second shares.
  REQUIRE(first->pod_count() == 2);
  CHECK(first->NodeOfPod(0) == first->FindNode("n1"));
  CHECK(second->NodeOfPod(0) == second->FindNode("n2"));

  // A Node event: that kind is indexed again (its unchanged objects still
  // shared one by one), the other kinds are still shared whole, and the
  // result is still the snapshot of the objects.
  MustApply(state, EventType::kDeleted, NodeAt("n1", "3"));
  absl::StatusOr<snapshot::Snapshot> third = state.TakeSnapshot();
  REQUIRE(third.ok());
  CHECK_FALSE(SnapshotParts::Same(*third, *second, SnapshotParts::kNodes));
  REQUIRE(third->nodes().size() == 1);
  CHECK(&third->nodes()[0] == &second->nodes()[1]);  // n2
  CHECK(SnapshotParts::Same(*third, *first, SnapshotParts::kStorageClasses));
  built = snapshot::Snapshot::Build(state.Export());
  REQUIRE(built.ok());
  CHECK(testing::SnapshotDiff(*third, *built).empty());
  CHECK(second->nodes().size() == 2);

  // A Node modified: the new one is its own object, the others shared.
  MustApply(state, EventType::kAdded, NodeAt("n3", "4"));
  absl::StatusOr<snapshot::Snapshot> fourth = state.TakeSnapshot();
  REQUIRE(fourth.ok());
  MustApply(state, EventType::kModified, NodeAt("n3", "5"));
  absl::StatusOr<snapshot::Snapshot> fifth = state.TakeSnapshot();
  REQUIRE(fifth.ok());
  REQUIRE(fifth->nodes().size() == 2);
  CHECK(&fifth->nodes()[0] == &third->nodes()[0]);   // n2
  CHECK(&fifth->nodes()[1] != &fourth->nodes()[1]);  // n3
  CHECK(fourth->nodes()[1].metadata().resource_version() == "4");
  CHECK(fifth->nodes()[1].metadata().resource_version() == "5");
}

// Snapshot::Build over the state's objects without pods and PDBs.
snapshot::Snapshot BuiltWithoutPods(const ClusterState& state) {
  snapshot::ObjectSet objects = state.Export();
  objects.pods.clear();
  objects.pdbs.clear();
  absl::StatusOr<snapshot::Snapshot> built =
      snapshot::Snapshot::Build(std::move(objects));
  REQUIRE(built.ok());
  return *std::move(built);
}

TEST_CASE(
    "cluster state: a snapshot without pods shares its parts both ways and "
    "never hands its missing PDBs on",
    "[cluster-state]") {
  ClusterState state;
  MustApply(state, EventType::kAdded, NodeAt("n1", "1"));
  MustApply(state, EventType::kAdded, PodAt("a", "p1", "1", "n1"));
  MustApply(state, EventType::kAdded,
            MakePdb({.name = "pdb", .ns = "a", .min_available = "1"}));
  absl::StatusOr<snapshot::Snapshot> full = state.TakeSnapshot();
  REQUIRE(full.ok());

  absl::StatusOr<snapshot::Snapshot> bare = state.TakeSnapshotWithoutPods();
  REQUIRE(bare.ok());
  CHECK(bare->pod_count() == 0);
  CHECK(bare->pdbs().empty());
  CHECK(SnapshotParts::Same(*bare, *full, SnapshotParts::kNodes));
  CHECK(testing::SnapshotDiff(*bare, BuiltWithoutPods(state)).empty());

  // A Node event: the pod-less snapshot indexes the Nodes again, and the
  // next full snapshot shares them from it, with the PDBs of the first.
  MustApply(state, EventType::kAdded, NodeAt("n2", "2"));
  absl::StatusOr<snapshot::Snapshot> bare2 = state.TakeSnapshotWithoutPods();
  REQUIRE(bare2.ok());
  CHECK(bare2->nodes().size() == 2);
  CHECK(testing::SnapshotDiff(*bare2, BuiltWithoutPods(state)).empty());
  absl::StatusOr<snapshot::Snapshot> full2 = state.TakeSnapshot();
  REQUIRE(full2.ok());
  CHECK(SnapshotParts::Same(*full2, *bare2, SnapshotParts::kNodes));
  CHECK(SnapshotParts::Same(*full2, *full, SnapshotParts::kPdbs));
  absl::StatusOr<snapshot::Snapshot> built =
      snapshot::Snapshot::Build(state.Export());
  REQUIRE(built.ok());
  CHECK(testing::SnapshotDiff(*full2, *built).empty());

  // A PDB changed, then a pod-less snapshot: the full one after it builds
  // the new PDBs (the pod-less one had none to hand on).
  MustApply(state, EventType::kDeleted,
            MakePdb({.name = "pdb", .ns = "a", .min_available = "1"}));
  MustApply(state, EventType::kAdded,
            MakePdb({.name = "other", .ns = "a", .min_available = "2"}));
  REQUIRE(state.TakeSnapshotWithoutPods().ok());
  absl::StatusOr<snapshot::Snapshot> full3 = state.TakeSnapshot();
  REQUIRE(full3.ok());
  REQUIRE(full3->pdbs().size() == 1);
  CHECK(full3->pdbs()[0].metadata().name() == "other");
  built = snapshot::Snapshot::Build(state.Export());
  REQUIRE(built.ok());
  CHECK(testing::SnapshotDiff(*full3, *built).empty());
}

// The drift verdicts of `p`'s facts at `now` (no observations), checked
// against those of a book built from scratch over the same snapshot.
std::vector<drift::DriftVerdict> DriftAsFromScratch(const Published& p,
                                                    absl::Time now) {
  std::vector<drift::DriftVerdict> got = p.facts->drift().Evaluate({}, now);
  const std::vector<drift::DriftVerdict> want =
      disruption::SnapshotFacts::Build(p.snapshot).drift().Evaluate({}, now);
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    CHECK(got[i].node_claim == want[i].node_claim);
    CHECK(got[i].node_pool == want[i].node_pool);
    CHECK(got[i].skipped == want[i].skipped);
    CHECK(got[i].reason == want[i].reason);
  }
  return got;
}

TEST_CASE(
    "cluster state: a publication hands the facts of unchanged kinds on to "
    "the next",
    "[cluster-state]") {
  ClusterState state;
  MustApply(state, EventType::kAdded, MakeNodePool({.name = "default"}));
  MustApply(state, EventType::kAdded, NodeAt("n1", "1"));
  MustApply(state, EventType::kAdded,
            MakeNodeClaim({.name = "c1", .node_name = "n1"}));
  MustApply(state, EventType::kAdded, PodAt("a", "p1", "1", "n1"));
  absl::StatusOr<std::shared_ptr<const Published>> first = state.Publish();
  REQUIRE(first.ok());

  // Pod events only: the NodePool budgets and the drift book are the first
  // publication's.
  MustApply(state, EventType::kAdded, PodAt("a", "p2", "2", "n1"));
  absl::StatusOr<std::shared_ptr<const Published>> second = state.Publish();
  REQUIRE(second.ok());
  const disruption::SnapshotFacts& f1 = *(*first)->facts;
  const disruption::SnapshotFacts& f2 = *(*second)->facts;
  CHECK(&f2.budgets() == &f1.budgets());
  CHECK(&f2.drift() == &f1.drift());

  // A Node event: the budgets count nodes, drift reads only NodeClaims and
  // NodePools.
  MustApply(state, EventType::kAdded, NodeAt("n2", "3"));
  absl::StatusOr<std::shared_ptr<const Published>> third = state.Publish();
  REQUIRE(third.ok());
  const disruption::SnapshotFacts& f3 = *(*third)->facts;
  CHECK(&f3.budgets() != &f2.budgets());
  CHECK(&f3.drift() == &f1.drift());

  // A NodePool event: both are built again.
  v1::NodePool pool = MakeNodePool({.name = "default"});
  pool.mutable_metadata()->set_resource_version("4");
  MustApply(state, EventType::kModified, pool);
  absl::StatusOr<std::shared_ptr<const Published>> fourth = state.Publish();
  REQUIRE(fourth.ok());
  const disruption::SnapshotFacts& f4 = *(*fourth)->facts;
  CHECK(&f4.budgets() != &f3.budgets());
  CHECK(&f4.drift() != &f3.drift());

  // A book handed on stays valid once the publication that built it is
  // released: it reads the parts the later snapshots still hold.
  first->reset();
  second->reset();
  const std::vector<drift::DriftVerdict> handed_on =
      DriftAsFromScratch(**third, absl::FromUnixSeconds(1700000000));
  REQUIRE(handed_on.size() == 1);
  CHECK(handed_on[0].node_claim == "c1");
}

// Where the pods of node `candidate` would go in a consolidation simulation
// at `now` over `facts`: "scheduled" and the replacements' count, or the
// pods left unschedulable.
std::string WhereCandidatePodsGo(const disruption::SnapshotFacts& facts,
                                 const std::string& candidate, absl::Time now) {
  InstanceTypeCatalog catalog;
  catalog["default"] = {testing::MakeInstanceType({.name = "m5.xlarge",
                                                   .cpu = "4",
                                                   .memory = "16Gi",
                                                   .pods = "58",
                                                   .zones = {"us-west-2a"},
                                                   .on_demand_price = 0.192})};
  disruption::CandidateContext ctx;
  ctx.snapshot = &facts.snapshot();
  ctx.facts = &facts;
  ctx.pdbs = &facts.pdbs();
  ctx.catalog = &catalog;
  ctx.now = now;
  absl::StatusOr<disruption::CandidatePool> pool =
      disruption::CandidatePool::Build(ctx);
  REQUIRE(pool.ok());
  disruption::SimulatorOptions options;
  options.now = now;
  absl::StatusOr<disruption::Scheduler> scheduler =
      disruption::Scheduler::Build(facts, catalog, options);
  REQUIRE(scheduler.ok());
  for (const disruption::Candidate& c :
       pool->For(disruption::Method::kSingleNodeConsolidation).candidates) {
    if (facts.snapshot().nodes()[c.node].metadata().name() != candidate) {
      continue;
    }
    const disruption::SimulationResult r =
        scheduler->SimulateConsolidation({c});
    return r.all_pods_scheduled
               ? absl::StrCat("scheduled, ", r.new_node_claims.size(),
                              " new NodeClaim(s)")
               : absl::StrCat("unschedulable: ",
                              absl::StrJoin(r.unschedulable, "; "));
  }
  return "not a candidate";
}

TEST_CASE(
    "cluster state: after a Node event, the other Nodes' facts are those of "
    "the same objects, consolidateAfter included",
    "[cluster-state]") {
  // "busy" could move its pod to "fresh", but fresh's NodeClaim is inside
  // the NodePool's consolidateAfter: consolidation does not move pods onto
  // it (Karpenter v1.14). "other" has no room.
  const absl::Time now = absl::FromUnixSeconds(1717243200);
  ClusterState state;
  v1::NodePool pool =
      MakeNodePool({.consolidation_policy = "WhenEmptyOrUnderutilized",
                    .consolidate_after = "1h",
                    .budgets = {{.nodes = "100%"}}});
  pool.mutable_metadata()->set_resource_version("1");
  MustApply(state, EventType::kAdded, pool);
  int rv = 1;
  const auto add_node = [&](const std::string& name, absl::Time since,
                            const std::string& pod_cpu) {
    testing::ManagedNode m = testing::MakeManagedNode(
        {.name = name,
         .instance_type = "m5.xlarge",
         .zone = "us-west-2a",
         .capacity_type = "on-demand",
         .cpu = "4",
         .memory = "16Gi",
         .pods = "58"},
        {.initialized = "True", .initialized_since = since});
    m.node.mutable_metadata()->set_resource_version(absl::StrCat(++rv));
    m.node_claim.mutable_metadata()->set_resource_version(absl::StrCat(++rv));
    MustApply(state, EventType::kAdded, m.node);
    MustApply(state, EventType::kAdded, m.node_claim);
    v1::Pod pod = MakePod({.name = "p-" + name,
                           .node = name,
                           .owner = "ReplicaSet",
                           .cpu = pod_cpu});
    pod.mutable_metadata()->set_resource_version(absl::StrCat(++rv));
    MustApply(state, EventType::kAdded, pod);
  };
  add_node("busy", now - absl::Hours(10), "500m");
  add_node("fresh", now - absl::Minutes(10), "500m");
  add_node("other", now - absl::Hours(10), "3900m");
  absl::StatusOr<std::shared_ptr<const Published>> first = state.Publish();
  REQUIRE(first.ok());
  const disruption::SnapshotFacts& f1 = *(*first)->facts;
  CHECK(WhereCandidatePodsGo(f1, "busy", now) ==
        "scheduled, 1 new NodeClaim(s)");
  // Fifty minutes later fresh is quiet no more.
  const absl::Time later = now + absl::Hours(1);
  CHECK(WhereCandidatePodsGo(f1, "busy", later) ==
        "scheduled, 0 new NodeClaim(s)");

  // A label on "other": busy and fresh are the same objects in the next
  // publication, whose facts for them are the first's.
  v1::Node other =
      (*first)->snapshot.nodes()[*(*first)->snapshot.FindNode("other")];
  (*other.mutable_metadata()->mutable_labels())["team"] = "a";
  other.mutable_metadata()->set_resource_version(absl::StrCat(++rv));
  MustApply(state, EventType::kModified, other);
  absl::StatusOr<std::shared_ptr<const Published>> second = state.Publish();
  REQUIRE(second.ok());
  REQUIRE(SnapshotParts::Same(
      (*first)->snapshot, (*second)->snapshot,
      SnapshotParts::kNodeClaims | SnapshotParts::kNodePools));
  REQUIRE_FALSE(SnapshotParts::Same((*first)->snapshot, (*second)->snapshot,
                                    SnapshotParts::kNodes));
  const disruption::SnapshotFacts& f2 = *(*second)->facts;
  const disruption::SnapshotFacts scratch =
      disruption::SnapshotFacts::Build((*second)->snapshot);
  for (const absl::Time at : {now, later}) {
    CHECK(WhereCandidatePodsGo(f2, "busy", at) ==
          WhereCandidatePodsGo(scratch, "busy", at));
    CHECK(WhereCandidatePodsGo(f2, "busy", at) ==
          WhereCandidatePodsGo(f1, "busy", at));
  }
}

TEST_CASE(
    "cluster state: a drift book built from the previous publication's "
    "outlives it",
    "[cluster-state]") {
  // The second publication's NodeClaims differ, so its drift book is its
  // own, built with the first's at hand; the first (and the only snapshot
  // holding its NodeClaims) is then released. Under ASan a book that still
  // read the first's NodeClaims fails here.
  ClusterState state;
  MustApply(state, EventType::kAdded, MakeNodePool({.name = "default"}));
  for (const char* name : {"n1", "n2"}) {
    v1::NodeClaim claim = MakeNodeClaim({.name = std::string("c-") + name,
                                         .node_name = name,
                                         .image_id = "ami-1"});
    claim.mutable_metadata()->set_resource_version(std::string("1") + name);
    MustApply(state, EventType::kAdded, claim);
  }
  absl::StatusOr<std::shared_ptr<const Published>> first = state.Publish();
  REQUIRE(first.ok());
  const absl::Time now = absl::FromUnixSeconds(1700000000);
  REQUIRE((*first)->facts->drift().Evaluate({}, now).size() == 2);
  v1::NodeClaim changed =
      MakeNodeClaim({.name = "c-n3", .node_name = "n3", .image_id = "ami-2"});
  changed.mutable_metadata()->set_resource_version("3");
  MustApply(state, EventType::kAdded, changed);
  absl::StatusOr<std::shared_ptr<const Published>> second = state.Publish();
  REQUIRE(second.ok());
  first->reset();
  CHECK(DriftAsFromScratch(**second, now).size() == 3);
}

}  // namespace
}  // namespace karpenter::state
