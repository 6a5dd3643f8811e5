// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The part of a replacement NodeClaim both the drift method (methods.cc)
// and the scheduler (scheduler.cc) build from a NodePool's template.
// Internal.
#ifndef KARPENTER_SRC_DISRUPTION_REPLACEMENT_INTERNAL_H_
#define KARPENTER_SRC_DISRUPTION_REPLACEMENT_INTERNAL_H_

#include "karpenter/v1/karpenter.pb.h"
#include "karpenter/v1/meta.pb.h"

namespace karpenter::disruption::internal {

// Sets `meta`'s labels to the template's plus the NodePool label
// (kNodePoolLabelKey = the pool's name), and its annotations to the
// template's plus the NodePool's hash and hash-version annotations, where
// `pool` has them. Defined in methods.cc.
void SetTemplateMetadata(const v1::NodePool& pool, v1::ObjectMeta& meta);

}  // namespace karpenter::disruption::internal

#endif  // KARPENTER_SRC_DISRUPTION_REPLACEMENT_INTERNAL_H_
