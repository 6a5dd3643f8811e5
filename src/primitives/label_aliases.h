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
#include "karpenter/well_known.h"

namespace karpenter::primitives_internal {

// {alias, stable key} pairs. No stable key is itself an alias.
inline constexpr std::pair<absl::string_view, absl::string_view>
    kLabelKeyAliases[] = {
        {well_known::kLabelBetaArch, well_known::kLabelArchStable},
        {well_known::kLabelInstanceType, well_known::kLabelInstanceTypeStable},
        {well_known::kLabelBetaOS, well_known::kLabelOSStable},
        {well_known::kLabelFailureDomainBetaRegion,
         well_known::kLabelTopologyRegion},
        {well_known::kLabelFailureDomainBetaZone,
         well_known::kLabelTopologyZone},
};

}  // namespace karpenter::primitives_internal

#endif  // KARPENTER_SRC_PRIMITIVES_LABEL_ALIASES_H_
