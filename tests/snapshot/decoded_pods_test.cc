// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// DecodedPods: each pod read through it is Snapshot::DecodePod's, decoded
// once and kept at the same address.

#include "karpenter/snapshot/decoded_pods.h"

#include <catch2/catch.hpp>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/testing/builders.h"

namespace karpenter::snapshot {
namespace {

using ::karpenter::testing::MakeNode;
using ::karpenter::testing::MakePod;

TEST_CASE("decoded pods: each pod is DecodePod's, decoded once", "[snapshot]") {
  ObjectSet objects;
  objects.nodes.push_back(MakeNode({.name = "n1"}));
  objects.pods.push_back(MakePod({.name = "a", .node = "n1", .cpu = "1"}));
  objects.pods.push_back(MakePod({.name = "b", .node = "n1", .cpu = "2"}));
  absl::StatusOr<Snapshot> snapshot = Snapshot::Build(std::move(objects));
  REQUIRE(snapshot.ok());

  DecodedPods pods(*snapshot);
  CHECK(&pods.snapshot() == &*snapshot);
  const v1::Pod& b = pods.Get(1);
  const v1::Pod& a = pods.Get(0);
  CHECK(a.metadata().name() == "a");
  CHECK(b.metadata().name() == "b");
  CHECK(b.metadata().uid() == "uid-b");
  CHECK(a.SerializeAsString() == snapshot->DecodePod(0).SerializeAsString());
  CHECK(b.SerializeAsString() == snapshot->DecodePod(1).SerializeAsString());
  // A second read is the same object, and reading more pods moves none.
  CHECK(&pods.Get(1) == &b);
  CHECK(&pods.Get(0) == &a);
}

}  // namespace
}  // namespace karpenter::snapshot
