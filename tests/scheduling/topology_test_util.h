// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Builders for the constraints PodTopologySpread and InterPodAffinity read
// (topology spread constraints, required pod (anti-)affinity terms) and
// pod edits that add them, for tests that build pods with
// karpenter/testing/builders.h.
#ifndef KARPENTER_TESTS_SCHEDULING_TOPOLOGY_TEST_UTIL_H_
#define KARPENTER_TESTS_SCHEDULING_TOPOLOGY_TEST_UTIL_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "karpenter/testing/builders.h"
#include "karpenter/v1/core.pb.h"

namespace karpenter::topology_test {

using testing::Labels;

// A topology spread constraint selecting `selector` (nullopt: no
// labelSelector, which selects no pod).
inline v1::TopologySpreadConstraint Spread(
    const std::string& key, int32_t max_skew, std::optional<Labels> selector,
    const std::string& when = "DoNotSchedule") {
  v1::TopologySpreadConstraint c;
  c.set_max_skew(max_skew);
  c.set_topology_key(key);
  c.set_when_unsatisfiable(when);
  if (selector.has_value()) {
    *c.mutable_label_selector() = testing::MakeLabelSelector(*selector);
  }
  return c;
}

// A pod (anti-)affinity term. `selector` nullopt: no labelSelector (selects
// no pod). `ns_selector` nullopt: no namespaceSelector.
inline v1::PodAffinityTerm Term(
    const std::string& key, std::optional<Labels> selector,
    std::vector<std::string> namespaces = {},
    std::optional<Labels> ns_selector = std::nullopt) {
  v1::PodAffinityTerm t;
  t.set_topology_key(key);
  if (selector.has_value()) {
    *t.mutable_label_selector() = testing::MakeLabelSelector(*selector);
  }
  for (std::string& ns : namespaces) t.add_namespaces(std::move(ns));
  if (ns_selector.has_value()) {
    *t.mutable_namespace_selector() = testing::MakeLabelSelector(*ns_selector);
  }
  return t;
}

using PodEdit = std::function<void(v1::Pod&)>;

inline PodEdit WithSpread(v1::TopologySpreadConstraint c) {
  return [c](v1::Pod& p) {
    *p.mutable_spec()->add_topology_spread_constraints() = c;
  };
}
inline PodEdit WithAffinity(v1::PodAffinityTerm t) {
  return [t](v1::Pod& p) {
    *p.mutable_spec()
         ->mutable_affinity()
         ->mutable_pod_affinity()
         ->add_required_during_scheduling_ignored_during_execution() = t;
  };
}
inline PodEdit WithAntiAffinity(v1::PodAffinityTerm t) {
  return [t](v1::Pod& p) {
    *p.mutable_spec()
         ->mutable_affinity()
         ->mutable_pod_anti_affinity()
         ->add_required_during_scheduling_ignored_during_execution() = t;
  };
}
inline PodEdit WithNodeSelector(Labels selector) {
  return [selector](v1::Pod& p) {
    for (const auto& [k, v] : selector) {
      (*p.mutable_spec()->mutable_node_selector())[k] = v;
    }
  };
}
inline PodEdit Both(PodEdit a, PodEdit b) {
  return [a, b](v1::Pod& p) {
    a(p);
    b(p);
  };
}

}  // namespace karpenter::topology_test

#endif  // KARPENTER_TESTS_SCHEDULING_TOPOLOGY_TEST_UTIL_H_
