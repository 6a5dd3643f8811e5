// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Helpers of the pod-request tests (resources_test.cc,
// resize_requests_test.cc): a pod from flow-style YAML, and the
// PodRequestsCalculator's answer in PodRequests' form.

#ifndef KARPENTER_TESTS_SCHEDULING_RESOURCES_TEST_UTIL_H_
#define KARPENTER_TESTS_SCHEDULING_RESOURCES_TEST_UTIL_H_

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "karpenter/scheduling/resources.h"
#include "karpenter/snapshot/load.h"

namespace karpenter::scheduling::resources_test {

using Requests = std::vector<std::pair<std::string, int64_t>>;

// A pod "default/p" from the flow-style YAML of its spec and status (the
// text between the braces of `spec: {...}` and `status: {...}`).
inline v1::Pod PodFromYaml(const std::string& spec,
                           const std::string& status = "") {
  snapshot::ObjectSet set;
  const absl::Status s = snapshot::LoadText(
      absl::StrCat("kind: Pod\nmetadata: {name: p, namespace: default}\n"
                   "spec: {",
                   spec, "}\nstatus: {", status, "}\n"),
      "test.yaml", set);
  INFO(s.ToString());
  REQUIRE(s.ok());
  REQUIRE(set.pods.size() == 1);
  return set.pods[0];
}

// The calculator's answer, sorted like PodRequests'.
inline absl::StatusOr<Requests> ViaCalculator(PodRequestsCalculator& calc,
                                              const v1::Pod& pod) {
  PodRequestList list;
  if (absl::Status s = calc.Compute(pod, list); !s.ok()) return s;
  Requests out;
  for (const auto& [k, v] : list) out.emplace_back(std::string(k), v);
  std::sort(out.begin(), out.end());
  return out;
}

// PodRequests and the calculator both give `want` for `pod`.
inline void CheckRequests(PodRequestsCalculator& calc, const v1::Pod& pod,
                          const Requests& want) {
  const absl::StatusOr<Requests> got = PodRequests(pod);
  INFO(got.status().ToString());
  REQUIRE(got.ok());
  CHECK(*got == want);
  const absl::StatusOr<Requests> fast = ViaCalculator(calc, pod);
  INFO(fast.status().ToString());
  REQUIRE(fast.ok());
  CHECK(*fast == want);
}

}  // namespace karpenter::scheduling::resources_test

#endif  // KARPENTER_TESTS_SCHEDULING_RESOURCES_TEST_UTIL_H_
