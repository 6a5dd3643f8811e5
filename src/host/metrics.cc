// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#include "karpenter/metrics.h"

namespace karpenter {

void Record(const MetricSample& sample, Metrics& metrics) {
  switch (sample.kind) {
    case MetricSample::Kind::kAdd:
      metrics.Add(sample.name, sample.labels, sample.value);
      return;
    case MetricSample::Kind::kSet:
      metrics.Set(sample.name, sample.labels, sample.value);
      return;
    case MetricSample::Kind::kObserve:
      metrics.Observe(sample.name, sample.labels, sample.value);
      return;
  }
}

}  // namespace karpenter
