// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Applying events to a state::ClusterState in tests: one event that must be
// accepted (the test stops with the state's error otherwise).
#ifndef KARPENTER_TESTS_STATE_STATE_TEST_UTIL_H_
#define KARPENTER_TESTS_STATE_STATE_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "karpenter/state/cluster_state.h"

namespace karpenter::state_test {

// Applies `object` (a typed object or a state::Object) as a `type` event
// with an empty origin; REQUIREs that the state accepts it and returns
// what it did.
template <typename T>
state::Applied MustApply(state::ClusterState& state, state::EventType type,
                         T object) {
  absl::StatusOr<state::Applied> applied =
      state.Apply({.type = type, .object = std::move(object), .origin = ""});
  INFO(applied.status().ToString());
  REQUIRE(applied.ok());
  return *applied;
}

// The same, with metadata.resourceVersion set to `rv` first.
template <typename T>
state::Applied MustApply(state::ClusterState& state, state::EventType type,
                         T object, const std::string& rv) {
  object.mutable_metadata()->set_resource_version(rv);
  return MustApply(state, type, std::move(object));
}

}  // namespace karpenter::state_test

#endif  // KARPENTER_TESTS_STATE_STATE_TEST_UTIL_H_
