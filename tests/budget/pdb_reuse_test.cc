// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// PdbIndex::Build with the index of an earlier snapshot holding the same
// PDBs (what a state::ClusterState's publications pass): the same index as
// a build from scratch, sharing what did not change.

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "../state/state_test_util.h"
#include "absl/strings/str_cat.h"
#include "karpenter/budget/pdb.h"
#include "karpenter/state/cluster_state.h"
#include "karpenter/testing/builders.h"
#include "snapshot/compact_pod.h"
#include "snapshot/snapshot_parts.h"

namespace karpenter::budget {
namespace {

using state::ClusterState;
using state::EventType;
using testing::MakePdb;
using testing::MakePod;

std::vector<uint32_t> SameShapes(const snapshot::Snapshot& before,
                                 const snapshot::Snapshot& now) {
  return snapshot::internal::SnapshotParts::SameShapes(before, now);
}

using state_test::MustApply;

void CheckSameIndex(const snapshot::Snapshot& snapshot, const PdbIndex& got,
                    const PdbIndex& want) {
  REQUIRE(got.pdbs().size() == want.pdbs().size());
  for (size_t i = 0; i < want.pdbs().size(); ++i) {
    const PdbInfo& a = got.pdbs()[i];
    const PdbInfo& b = want.pdbs()[i];
    INFO(b.name);
    CHECK(a.name == b.name);
    CHECK(a.error == b.error);
    CHECK(a.from_status == b.from_status);
    CHECK(a.disruptions_allowed == b.disruptions_allowed);
    CHECK(a.expected_pods == b.expected_pods);
    CHECK(a.current_healthy == b.current_healthy);
    CHECK(a.desired_healthy == b.desired_healthy);
    CHECK(a.fully_blocking == b.fully_blocking);
    CHECK(a.always_allow == b.always_allow);
  }
  for (snapshot::PodIndex p = 0; p < snapshot.pod_count(); ++p) {
    INFO(snapshot.PodKey(p));
    const auto a = got.PdbsOfPod(p);
    const auto b = want.PdbsOfPod(p);
    CHECK(std::vector<uint32_t>(a.begin(), a.end()) ==
          std::vector<uint32_t>(b.begin(), b.end()));
    for (bool evictable : {false, true}) {
      const EvictionCheck x = got.CanEvict(snapshot, p, evictable);
      const EvictionCheck y = want.CanEvict(snapshot, p, evictable);
      CHECK(x.verdict == y.verdict);
      CHECK(x.blocking_pdbs == y.blocking_pdbs);
    }
  }
}

// The index of `second` built reusing `first_index` (of `first`), with and
// without its shapes carried, checked against the index from scratch; the
// one without shapes carried is returned.
PdbIndex CheckReused(const snapshot::Snapshot& first,
                     const PdbIndex& first_index,
                     const snapshot::Snapshot& second) {
  const PdbIndex scratch = PdbIndex::Build(second);
  PdbIndex reused = PdbIndex::Build(second, &first_index);
  CheckSameIndex(second, reused, scratch);
  const PdbIndex carried =
      PdbIndex::Build(second, &first_index, SameShapes(first, second));
  CheckSameIndex(second, carried, scratch);
  return reused;
}

TEST_CASE(
    "pdb index: reusing the index of the same PDBs gives the index from "
    "scratch",
    "[pdb]") {
  ClusterState state;
  // Counted PDBs (no status), one from status, one invalid, one matching
  // every pod of its namespace, one selecting nothing.
  for (const v1::PodDisruptionBudget& pdb :
       {MakePdb({.name = "web", .ns = "a", .min_available = "2"}),
        MakePdb({.name = "db",
        .ns = "a",
        .selector = testing::Labels{{"app", "db"}},
        .max_unavailable = "50%"}),
        MakePdb({.name = "status",
        .ns = "b",
        .min_available = "1",
        .disruptions_allowed = 0,
        .expected_pods = 3}),
        MakePdb({.name = "bad",
        .ns = "b",
        .selector = testing::Labels{{"app", "db"}},
        .min_available = "150%"}),
        MakePdb({.name = "all",
        .ns = "c",
        .selector = testing::Labels{},
        .max_unavailable = "1"}),
        MakePdb({.name = "none", .ns = "c", .selector = std::nullopt})}) {
    MustApply(state, EventType::kAdded, pdb, "1");
  }
  const std::vector<std::string> namespaces = {"a", "b", "c"};
  for (int i = 0; i < 12; ++i) {
    MustApply(state, EventType::kAdded,
              MakePod({.name = absl::StrCat("p", i),
                       .ns = namespaces[i % 3],
                       .app = i % 2 == 0 ? "web" : "db"}),
              "1");
  }
  absl::StatusOr<snapshot::Snapshot> first = state.TakeSnapshot();
  REQUIRE(first.ok());
  const PdbIndex first_index = PdbIndex::Build(*first);

  SECTION("pods that no PDB counts change: the PDB list is shared") {
    MustApply(state, EventType::kAdded,
              MakePod({.name = "q", .ns = "a", .app = "cache"}), "2");
    absl::StatusOr<snapshot::Snapshot> second = state.TakeSnapshot();
    REQUIRE(second.ok());
    const PdbIndex reused = CheckReused(*first, first_index, *second);
    CHECK(reused.pdbs().data() == first_index.pdbs().data());
    // The PDBs part is shared: its keys are indexed on the first lookup.
    REQUIRE(snapshot::internal::SnapshotParts::Same(
        *first, *second, snapshot::internal::SnapshotParts::kPdbs));
    for (snapshot::PdbIndex i = 0; i < second->pdbs().size(); ++i) {
      const v1::ObjectMeta& meta = second->pdbs()[i].metadata();
      CHECK(second->FindPdb(meta.namespace_(), meta.name()) == i);
    }
    CHECK_FALSE(second->FindPdb("a", "missing").has_value());
    CHECK_FALSE(second->FindPdb("nowhere", "web").has_value());
  }
  SECTION("a counted pod turns unready and another is deleted") {
    MustApply(
        state, EventType::kModified,
        MakePod({.name = "p0", .ns = "a", .app = "web", .ready = "False"}),
        "2");
    MustApply(state, EventType::kDeleted,
              MakePod({.name = "p3", .ns = "a", .app = "db"}), "2");
    absl::StatusOr<snapshot::Snapshot> second = state.TakeSnapshot();
    REQUIRE(second.ok());
    const PdbIndex reused = CheckReused(*first, first_index, *second);
    CHECK(reused.pdbs().data() != first_index.pdbs().data());
    CHECK(reused.pdbs()[0].current_healthy ==
          first_index.pdbs()[0].current_healthy - 1);
  }
  SECTION("the namespaces are numbered anew") {
    // Emptying namespace "a" (PDB namespaces are numbered after the pods')
    // and adding a pod in a new one numbers the namespaces anew.
    for (int i = 0; i < 12; i += 3) {
      MustApply(state, EventType::kDeleted,
                MakePod({.name = absl::StrCat("p", i), .ns = "a"}), "2");
    }
    MustApply(state, EventType::kAdded,
              MakePod({.name = "z", .ns = "z", .app = "web"}), "2");
    absl::StatusOr<snapshot::Snapshot> second = state.TakeSnapshot();
    REQUIRE(second.ok());
    REQUIRE(second->NamespaceName(0) != first->NamespaceName(0));
    CheckReused(*first, first_index, *second);
  }
}

TEST_CASE("snapshot parts: SameShapes maps the shape objects both hold",
          "[pdb]") {
  ClusterState state;
  for (int i = 0; i < 4; ++i) {
    MustApply(state, EventType::kAdded,
              MakePod({.name = absl::StrCat("web", i), .app = "web"}), "1");
  }
  MustApply(state, EventType::kAdded, MakePod({.name = "db", .app = "db"}),
            "1");
  absl::StatusOr<snapshot::Snapshot> first = state.TakeSnapshot();
  REQUIRE(first.ok());
  REQUIRE(first->pod_shape_count() == 2);
  MustApply(state, EventType::kDeleted, MakePod({.name = "db", .app = "db"}),
            "2");
  MustApply(state, EventType::kAdded, MakePod({.name = "c", .app = "cache"}),
            "2");
  absl::StatusOr<snapshot::Snapshot> second = state.TakeSnapshot();
  REQUIRE(second.ok());
  const std::vector<uint32_t> same = SameShapes(*first, *second);
  REQUIRE(same.size() == 2);
  CHECK(same[second->PodShapeId(0)] == first->PodShapeId(0));  // web
  CHECK(same[second->PodShapeId(4)] ==
        snapshot::internal::CompactShape::kNoId);  // cache: new
  // Another compactor's shapes are other objects, even when equal.
  absl::StatusOr<snapshot::Snapshot> scratch =
      snapshot::Snapshot::Build(state.Export());
  REQUIRE(scratch.ok());
  for (uint32_t id : SameShapes(*first, *scratch)) {
    CHECK(id == snapshot::internal::CompactShape::kNoId);
  }
}

}  // namespace
}  // namespace karpenter::budget
