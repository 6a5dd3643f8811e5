// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// TopologyIndex::Build with the index of an earlier snapshot (what the
// scheduler base of a state::ClusterState's next publication passes): what
// it reads of each shape is taken from that index, and the result equals a
// build from scratch.

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "../state/state_test_util.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "karpenter/scheduling/pod_topology.h"
#include "karpenter/state/cluster_state.h"
#include "karpenter/testing/builders.h"
#include "snapshot/snapshot_parts.h"
#include "topology_test_util.h"

namespace karpenter::scheduling {
namespace {

using state::ClusterState;
using state::EventType;
using testing::MakeNode;
using testing::MakePod;

using state_test::MustApply;

// A pod of app "guard" that keeps app "web" pods off its node (a term its
// own pods do not match: only the placed pod's side repels them).
v1::Pod GuardPod(const std::string& name, const std::string& node) {
  v1::Pod pod = MakePod({.name = name, .app = "guard", .node = node});
  topology_test::WithAntiAffinity(topology_test::Term(
      "kubernetes.io/hostname", testing::Labels{{"app", "web"}}))(pod);
  return pod;
}

void CheckSameIndex(const snapshot::Snapshot& snap, const TopologyIndex& got,
                    const TopologyIndex& want) {
  REQUIRE(got.holder_groups().size() == want.holder_groups().size());
  for (size_t g = 0; g < want.holder_groups().size(); ++g) {
    const TopologyIndex::HolderGroup& a = got.holder_groups()[g];
    const TopologyIndex::HolderGroup& b = want.holder_groups()[g];
    CHECK(a.term.topology_key == b.term.topology_key);
    CHECK(a.term.pods.Key() == b.term.pods.Key());
    CHECK(a.holders == b.holders);
  }
  for (snapshot::PodIndex p = 0; p < snap.pod_count(); ++p) {
    INFO(snap.PodKey(p));
    CHECK(got.Counted(p) == want.Counted(p));
    CHECK(got.Terminating(p) == want.Terminating(p));
    const auto a = got.HolderGroupsOf(p);
    const auto b = want.HolderGroupsOf(p);
    CHECK(std::vector<int32_t>(a.begin(), a.end()) ==
          std::vector<int32_t>(b.begin(), b.end()));
  }
}

TEST_CASE(
    "topology index: built with an earlier index, it reads shapes from it "
    "and equals a build from scratch",
    "[topology]") {
  ClusterState state;
  for (const char* node : {"node-a", "node-b", "node-c"}) {
    MustApply(state, EventType::kAdded, MakeNode({.name = node}), "1");
  }
  MustApply(state, EventType::kAdded, GuardPod("guard-0", "node-a"), "1");
  MustApply(state, EventType::kAdded, GuardPod("guard-1", "node-b"), "1");
  for (int i = 0; i < 6; ++i) {
    MustApply(state, EventType::kAdded,
              MakePod({.name = absl::StrCat("web-", i),
                       .node = i % 2 == 0 ? "node-c" : "node-b"}),
              "1");
  }
  MustApply(state, EventType::kAdded,
            MakePod({.name = "done",
                     .app = "web",
                     .node = "node-a",
                     .phase = "Succeeded"}),
            "1");
  MustApply(state, EventType::kAdded,
            MakePod({.name = "leaving",
                     .node = "node-c",
                     .deleted = absl::FromUnixSeconds(1000)}),
            "1");
  absl::StatusOr<snapshot::Snapshot> first = state.TakeSnapshot();
  REQUIRE(first.ok());
  const std::unique_ptr<TopologyIndex> first_index =
      TopologyIndex::Build(*first);
  REQUIRE(first_index->holder_groups().size() == 1);
  REQUIRE(first_index->holder_groups()[0].holders.size() == 2);

  // Pods of the same shapes come and go, a guard is deleted, and a pod
  // turns terminal and another terminating (new shapes: phase and
  // deletionTimestamp are a shape's).
  MustApply(state, EventType::kAdded, GuardPod("guard-2", "node-c"), "2");
  MustApply(state, EventType::kDeleted, GuardPod("guard-0", "node-a"), "2");
  MustApply(state, EventType::kModified,
            MakePod({.name = "web-0", .node = "node-c", .phase = "Failed"}),
            "2");
  MustApply(state, EventType::kModified,
            MakePod({.name = "web-1",
                     .node = "node-b",
                     .deleted = absl::FromUnixSeconds(2000)}),
            "2");
  MustApply(state, EventType::kAdded,
            MakePod({.name = "web-9", .node = "node-a"}), "2");
  absl::StatusOr<snapshot::Snapshot> second = state.TakeSnapshot();
  REQUIRE(second.ok());
  const std::vector<uint32_t> same =
      snapshot::internal::SnapshotParts::SameShapes(*first, *second);
  const std::unique_ptr<TopologyIndex> reused =
      TopologyIndex::Build(*second, first_index.get(), same);
  const std::unique_ptr<TopologyIndex> scratch = TopologyIndex::Build(*second);
  CheckSameIndex(*second, *reused, *scratch);
  REQUIRE(reused->holder_groups().size() == 1);
  CHECK(reused->holder_groups()[0].holders.size() == 2);

  SECTION("a mapping of the wrong size is ignored") {
    const std::unique_ptr<TopologyIndex> ignored = TopologyIndex::Build(
        *second, first_index.get(),
        absl::MakeConstSpan(same).subspan(0, same.size() - 1));
    CheckSameIndex(*second, *ignored, *scratch);
  }
}

}  // namespace
}  // namespace karpenter::scheduling
