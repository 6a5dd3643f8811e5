// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The drain tests' defaults on the test kit (karpenter/testing/builders.h):
// node-a with its NodeClaim claim-a, and a snapshot of them with pods.

#ifndef KARPENTER_TESTS_DRAIN_DRAIN_TEST_UTIL_H_
#define KARPENTER_TESTS_DRAIN_DRAIN_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "../testing/kit_test_util.h"
#include "absl/time/time.h"
#include "karpenter/drain/tiers.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/testing/builders.h"
#include "karpenter/v1/core.pb.h"
#include "karpenter/v1/karpenter.pb.h"

namespace karpenter::drain::test {

// 2024-01-01T00:00:00Z, the reference instant of the tests.
inline constexpr absl::Time kT0 = testing::kTestEpoch;

// The providerID of node-a and of the default NodeClaim.
inline constexpr char kProviderId[] = "aws:///us-west-2a/i-a";

// Test pods are the kit's (karpenter/testing/builders.h): a Running, Ready
// pod "p" of app "web" on node-a.
using PodOpts = testing::PodOptions;
using testing::MakePod;
using testing::MakeToleration;

// A NodeClaim as the kit builds it, named "claim-a" and with providerID
// kProviderId (node-a's) unless `o` says otherwise.
inline v1::NodeClaim MakeClaim(testing::NodeClaimOptions o = {}) {
  if (!o.name.has_value()) o.name = "claim-a";
  if (!o.provider_id.has_value()) o.provider_id = kProviderId;
  return testing::MakeNodeClaim(o);
}

// The annotation karpenter.sh/nodeclaim-termination-timestamp=`value`.
inline testing::Labels TerminationTimestamp(const std::string& value) {
  return {{"karpenter.sh/nodeclaim-termination-timestamp", value}};
}

// A snapshot with node "node-a" (providerID kProviderId), the given pods
// (bound to it unless their `node` differs) and NodeClaims.
inline snapshot::Snapshot MakeSnapshot(std::vector<v1::Pod> pods,
                                       std::vector<v1::NodeClaim> claims = {}) {
  snapshot::ObjectSet objects;
  objects.nodes.push_back(testing::MakeNode({.provider_id = kProviderId}));
  objects.pods = std::move(pods);
  objects.node_claims = std::move(claims);
  return kit_test::MustBuildSnapshot(std::move(objects));
}

// The decision a pass made for the pod called `name` (fails the test if
// there is none).
inline const PodDecision& DecisionOf(const snapshot::Snapshot& s,
                                     const DrainPass& p,
                                     const std::string& name) {
  for (const PodDecision& d : p.pods) {
    if (s.DecodePod(d.pod).metadata().name() == name) return d;
  }
  FAIL("no decision for pod " << name);
  return p.pods.front();
}

}  // namespace karpenter::drain::test

#endif  // KARPENTER_TESTS_DRAIN_DRAIN_TEST_UTIL_H_
