// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Internal: the deprecated label keys Karpenter maps to their stable keys
// (pkg/apis/v1/labels.go `NormalizedLabels`). NormalizeLabelKey applies the
// table; code that must find every raw key normalizing to a given key (the
// drift memo) reads it in reverse.
//
// Thread-safety: constant data.
#ifndef KARPENTER_SRC_PRIMITIVES_LABEL_ALIASES_H_
#define KARPENTER_SRC_PRIMITIVES_LABEL_ALIASES_H_

#include <utility>

#include "absl/strings/string_view.h"

namespace karpenter::primitives_internal {

// {alias, stable key} pairs. No stable key is itself an alias.
inline constexpr std::pair<absl::string_view, absl::string_view>
    kLabelKeyAliases[] = {
        {"beta.kubernetes.io/arch", "kubernetes.io/arch"},
        {"beta.kubernetes.io/instance-type",
         "node.kubernetes.io/instance-type"},
        {"beta.kubernetes.io/os", "kubernetes.io/os"},
        {"failure-domain.beta.kubernetes.io/region",
         "topology.kubernetes.io/region"},
        {"failure-domain.beta.kubernetes.io/zone",
         "topology.kubernetes.io/zone"},
};

}  // namespace karpenter::primitives_internal

#endif  // KARPENTER_SRC_PRIMITIVES_LABEL_ALIASES_H_
