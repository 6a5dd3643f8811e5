// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The liveness, garbage-collection and validation tests' Nodes and
// NodeClaims: the test kit's (karpenter/testing/builders.h) with the
// janitor's defaults, relative to kT0. The doubles are the shipped ones
// (karpenter/testing/recorders.h, fake_cloud_provider.h); the helpers here
// only print what they recorded in the tests' terms.

#ifndef KARPENTER_TESTS_TERMINATION_JANITOR_TEST_UTIL_H_
#define KARPENTER_TESTS_TERMINATION_JANITOR_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "../testing/kit_test_util.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/testing/builders.h"
#include "karpenter/testing/fake_cloud_provider.h"
#include "karpenter/testing/recorders.h"

namespace karpenter::termination::janitor_test {

// 2026-01-01T00:00:00Z, the reference instant of the tests.
inline constexpr absl::Time kT0 = absl::FromUnixSeconds(1767225600);

// A Node "n1" of NodePool "default", created two hours before kT0 and
// Ready since one hour before; otherwise the kit's.
struct NodeOpts : testing::NodeOptions {
  NodeOpts() {
    name = "n1";
    created = kT0 - absl::Hours(2);
    ready_since = kT0 - absl::Hours(1);
  }
};

// A NodeClaim "nc1" of NodePool "default" (on-demand), created, Launched and
// Registered two hours before kT0, not Initialized, image ami-1, not yet
// registered to a Node (node_name ""; providerID "aws:///<node_name>" once
// set).
struct ClaimOpts : testing::NodeClaimOptions {
  ClaimOpts() {
    name = "nc1";
    node_name = "";
    capacity_type = "on-demand";
    created = kT0 - absl::Hours(2);
    image_id = "ami-1";
    launched = "True";
    launched_since = kT0 - absl::Hours(2);
    registered = "True";
    registered_since = kT0 - absl::Hours(2);
  }
};

using testing::MakeNode;

inline v1::NodeClaim MakeClaim(const ClaimOpts& o) {
  return testing::MakeNodeClaim(o);
}

inline snapshot::ObjectSet Objects(std::vector<v1::Node> nodes,
                                   std::vector<v1::NodeClaim> claims) {
  snapshot::ObjectSet objects;
  objects.nodes = std::move(nodes);
  objects.node_claims = std::move(claims);
  return objects;
}

inline snapshot::Snapshot Build(std::vector<v1::Node> nodes,
                                std::vector<v1::NodeClaim> claims) {
  return kit_test::MustBuildSnapshot(
      Objects(std::move(nodes), std::move(claims)));
}

// "<reason> <kind>/<name>" of each recorded event, in order.
inline std::vector<std::string> EventLines(
    const testing::RecordingEventRecorder& events) {
  std::vector<std::string> out;
  for (const Event& e : events.events()) {
    out.push_back(absl::StrCat(e.reason, " ", e.kind, "/", e.name));
  }
  return out;
}

// Every series of `metrics` as `name{k=v,...}` (labels in order, values
// unquoted) -> value.
inline std::map<std::string, double> MetricValues(
    const testing::InMemoryMetrics& metrics) {
  std::map<std::string, double> out;
  for (const std::string& line : metrics.Dump()) {
    const size_t space = line.rfind(' ');
    out[absl::StrReplaceAll(line.substr(0, space), {{"\"", ""}})] =
        std::stod(line.substr(space + 1));
  }
  return out;
}

// The provider IDs the cloud was asked to Delete, in order.
inline std::vector<std::string> DeletedIds(
    const testing::FakeCloudProvider& cloud) {
  std::vector<std::string> out;
  for (const std::string& line : cloud.CallLog()) {
    const std::vector<std::string> words = absl::StrSplit(line, ' ');
    if (words.size() > 2 && words[1] == "Delete") out.push_back(words[2]);
  }
  return out;
}

}  // namespace karpenter::termination::janitor_test

#endif  // KARPENTER_TESTS_TERMINATION_JANITOR_TEST_UTIL_H_
