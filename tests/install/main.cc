// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Links one call from each installed library and checks its answer, so a
// broken export (missing dependency, header or generated proto) fails here.
#include <cstdio>

#include "absl/time/time.h"
#include "karpenter/clock.h"
#include "karpenter/testing/fake_clock.h"
#include "karpenter/v1/core.pb.h"

int main() {
  karpenter::testing::FakeClock clock(absl::FromUnixSeconds(1700000000));
  if (!clock.Advance(absl::Minutes(1)).ok() ||
      clock.Now() != absl::FromUnixSeconds(1700000060)) {
    std::fprintf(stderr, "FakeClock gave the wrong time\n");
    return 1;
  }
  karpenter::v1::Pod pod;
  pod.mutable_metadata()->set_name("web");
  if (pod.metadata().name() != "web" || karpenter::RealClock().Now() <
                                            absl::FromUnixSeconds(1700000000)) {
    std::fprintf(stderr, "installed SDK misbehaves\n");
    return 1;
  }
  std::printf("karpenter SDK install OK\n");
  return 0;
}
