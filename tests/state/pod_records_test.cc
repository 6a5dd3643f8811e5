// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// PodRecordKeeper: records the state lets go of live exactly as long as a
// snapshot taken before may read them; and, through ClusterState, snapshots
// that outlive the events and the state that made them.

#include "state/pod_records.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "karpenter/state/cluster_state.h"
#include "karpenter/testing/builders.h"
#include "snapshot/compact_pod.h"
#include "state_test_util.h"

namespace karpenter::state {
namespace {

using internal::PodRecordKeeper;
using snapshot::internal::CompactPod;
using snapshot::internal::PodCompactor;

PodRecordKeeper::Record Record(PodCompactor& compactor,
                               const std::string& name) {
  return std::make_unique<const CompactPod>(
      compactor.Compact(testing::MakePod({.name = name})));
}

TEST_CASE("pod records: a record is freed once no older pin is held",
          "[cluster-state]") {
  PodCompactor compactor;
  auto keeper = std::make_shared<PodRecordKeeper>();
  // No pin: a retired record is not kept past the next reclaim.
  keeper->Retire(Record(compactor, "a"));
  CHECK(keeper->retired_count() == 1);
  keeper->Reclaim();
  CHECK(keeper->retired_count() == 0);

  std::shared_ptr<const void> first = keeper->Pin();
  keeper->Retire(Record(compactor, "b"));  // Readable by the first.
  std::shared_ptr<const void> second = keeper->Pin();
  keeper->Retire(Record(compactor, "c"));  // By both.
  CHECK(keeper->pins_held() == 2);
  keeper->Reclaim();
  CHECK(keeper->retired_count() == 2);

  // Releasing the newer pin frees nothing: the older one reads both.
  second.reset();
  keeper->Reclaim();
  CHECK(keeper->retired_count() == 2);
  // A pin taken now reads neither record.
  std::shared_ptr<const void> third = keeper->Pin();
  first.reset();
  keeper->Reclaim();
  CHECK(keeper->retired_count() == 0);
  CHECK(keeper->pins_held() == 1);

  // A record retired while the third is held stays until it goes.
  keeper->Retire(Record(compactor, "d"));
  keeper->Retire(nullptr);  // Nothing.
  keeper->Reclaim();
  CHECK(keeper->retired_count() == 1);
  third.reset();
  CHECK(keeper->pins_held() == 0);
  keeper->Reclaim();
  CHECK(keeper->retired_count() == 0);
}

TEST_CASE("pod records: a keeper never read reclaims on its own",
          "[cluster-state]") {
  PodCompactor compactor;
  auto keeper = std::make_shared<PodRecordKeeper>();
  for (int i = 0; i < 5000; ++i) {
    keeper->Retire(Record(compactor, absl::StrCat("p", i)));
  }
  // Reclaimed every 1,024 retirements.
  CHECK(keeper->retired_count() < 1024);
}

v1::Pod PodAt(const std::string& name, const std::string& rv,
              const std::string& node) {
  v1::Pod pod = testing::MakePod({.name = name, .node = node});
  pod.mutable_metadata()->set_resource_version(rv);
  return pod;
}

using state_test::MustApply;

TEST_CASE(
    "pod records: a snapshot reads its pods after the state replaced, "
    "deleted and dropped them",
    "[cluster-state]") {
  constexpr int kPods = 3000;
  std::vector<v1::Pod> originals;
  std::optional<snapshot::Snapshot> kept;
  {
    ClusterState state;
    for (int i = 0; i < kPods; ++i) {
      originals.push_back(PodAt(absl::StrCat("p", i), "1", "n1"));
      MustApply(state, EventType::kAdded, originals.back());
    }
    absl::StatusOr<snapshot::Snapshot> first = state.TakeSnapshot();
    REQUIRE(first.ok());
    kept = *std::move(first);
    // Every pod replaced, then half deleted, with snapshots taken and
    // dropped between: more than a reclaim's worth of retirements.
    for (int i = 0; i < kPods; ++i) {
      MustApply(state, EventType::kModified,
                PodAt(absl::StrCat("p", i), "2", "n2"));
    }
    REQUIRE(state.TakeSnapshot().ok());
    for (int i = 0; i < kPods; i += 2) {
      MustApply(state, EventType::kDeleted,
                PodAt(absl::StrCat("p", i), "3", "n2"));
    }
    absl::StatusOr<snapshot::Snapshot> last = state.TakeSnapshot();
    REQUIRE(last.ok());
    CHECK(last->pod_count() == kPods / 2);
    CHECK(last->DecodePod(0).spec().node_name() == "n2");
  }
  // The state is gone; the first snapshot still holds every pod as it was.
  REQUIRE(kept->pod_count() == kPods);
  for (int i = 0; i < kPods; ++i) {
    const v1::Pod pod = kept->DecodePod(i);
    CHECK(pod.metadata().name() == originals[i].metadata().name());
    CHECK(pod.spec().node_name() == "n1");
    CHECK(pod.metadata().resource_version() == "1");
  }
}

}  // namespace
}  // namespace karpenter::state
