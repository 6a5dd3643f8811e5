// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/cloud_provider.h"

namespace karpenter {

absl::string_view InstanceStateName(InstanceState state) {
  switch (state) {
    case InstanceState::kPending:
      return "Pending";
    case InstanceState::kRunning:
      return "Running";
    case InstanceState::kTerminating:
      return "Terminating";
  }
  return "Unknown";
}

}  // namespace karpenter
