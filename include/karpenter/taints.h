// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The disrupted taint: the NoSchedule taint Karpenter puts on a node it is
// about to disrupt or terminate, built and recognised in one place. Ports
// `DisruptedNoScheduleTaint` (karpenter pkg/apis/v1/taints.go) and the match
// Karpenter checks it with, Kubernetes' `Taint.MatchTaint`
// (k8s.io/api/core/v1/taint.go: same key and effect; the value is ignored).
// The key and effect strings are in karpenter/well_known.h.
//
// Thread-safety: pure functions of their arguments.

#ifndef KARPENTER_TAINTS_H_
#define KARPENTER_TAINTS_H_

#include <string>

#include "karpenter/v1/core.pb.h"
#include "karpenter/v1/meta.pb.h"
#include "karpenter/well_known.h"

namespace karpenter {

// `karpenter.sh/disrupted:NoSchedule`, with no value.
inline v1::Taint DisruptedNoScheduleTaint() {
  v1::Taint taint;
  taint.set_key(std::string(well_known::kDisruptedTaintKey));
  taint.set_effect(std::string(well_known::kTaintEffectNoSchedule));
  return taint;
}

// Whether `node` has a taint matching DisruptedNoScheduleTaint() as
// `Taint.MatchTaint` matches: the same key and effect, whatever the value.
inline bool HasDisruptedNoScheduleTaint(const v1::Node& node) {
  for (const v1::Taint& t : node.spec().taints()) {
    if (t.key() == well_known::kDisruptedTaintKey &&
        t.effect() == well_known::kTaintEffectNoSchedule) {
      return true;
    }
  }
  return false;
}

}  // namespace karpenter

#endif  // KARPENTER_TAINTS_H_
