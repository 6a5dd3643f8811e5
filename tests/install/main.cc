// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// A consumer of the installed SDK. Includes the umbrella header (so every
// installed header, generated protos included, must compile from the install
// tree) and checks one answer from each library, so a broken export (a
// missing dependency, header or object) fails here.
#include <cstdio>

#include "absl/time/time.h"
#include "karpenter/karpenter.h"
#include "karpenter/testing/fake_clock.h"
#include "karpenter/testing/fake_cloud_provider.h"
#include "karpenter/testing/recorders.h"

namespace {

bool Check(bool ok, const char* what) {
  if (!ok) std::fprintf(stderr, "installed SDK: %s is wrong\n", what);
  return ok;
}

}  // namespace

int main() {
  karpenter::testing::FakeClock clock(absl::FromUnixSeconds(1704067200));
  bool ok = Check(clock.Advance(absl::Hours(1)).ok(), "FakeClock::Advance");

  // 10% of 15 nodes rounds up to 2, as Karpenter's budgets do.
  absl::StatusOr<karpenter::IntOrPercent> budget =
      karpenter::IntOrPercent::Parse("10%");
  ok &= Check(budget.ok() && budget->Scale(15, true).value_or(-1) == 2,
              "IntOrPercent::Scale");

  absl::StatusOr<karpenter::CronSchedule> daily =
      karpenter::CronSchedule::Parse("@daily");
  ok &= Check(daily.ok() && daily->Next(clock.Now()) ==
                                absl::FromUnixSeconds(1704067200 + 86400),
              "CronSchedule::Next");

  karpenter::snapshot::ObjectSet objects;
  ok &= Check(karpenter::snapshot::LoadYaml(
                  "kind: Node\napiVersion: v1\nmetadata: {name: n1}\n",
                  "inline", objects)
                      .ok() &&
                  objects.nodes.size() == 1,
              "snapshot::LoadYaml");
  // The testing doubles of the host interfaces.
  auto cloud = karpenter::testing::FakeCloudProvider::Create(clock);
  karpenter::v1::NodeClaim claim;
  claim.mutable_metadata()->set_name("nc-1");
  ok &= Check(cloud.ok() && (*cloud)->Create(claim).ok() &&
                  (*cloud)->Instances().size() == 1,
              "testing::FakeCloudProvider");
  karpenter::testing::InMemoryMetrics metrics;
  metrics.Add(karpenter::metrics::kNodesTerminatedTotal, {}, 1);
  ok &= Check(metrics.Total(karpenter::metrics::kNodesTerminatedTotal) == 1,
              "testing::InMemoryMetrics");
  if (!ok) return 1;
  std::printf("karpenter SDK install OK\n");
  return 0;
}
