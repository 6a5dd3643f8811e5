// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Argument checks shared by ClusterView implementations (the InvalidArgument
// cases of karpenter/cluster_view.h), so every implementation rejects the
// same requests with the same messages. Internal: not installed.

#ifndef KARPENTER_SRC_HOST_CLUSTER_VIEW_CHECKS_H_
#define KARPENTER_SRC_HOST_CLUSTER_VIEW_CHECKS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "karpenter/cluster_view.h"
#include "karpenter/eviction_client.h"
#include "karpenter/v1/meta.pb.h"

namespace karpenter::internal {

// InvalidArgument `<field>: must not be empty` if `value` is empty.
absl::Status CheckNotEmpty(absl::string_view field, absl::string_view value);

// InvalidArgument if the key is empty or the effect is not NoSchedule,
// PreferNoSchedule or NoExecute (quoting it).
absl::Status CheckTaint(const v1::Taint& taint);

// InvalidArgument if the type is empty or the status is not True, False or
// Unknown (quoting it).
absl::Status CheckCondition(const v1::Condition& condition);

// InvalidArgument if the namespace or name of `pod` is empty.
absl::Status CheckPodRef(const PodRef& pod);

// `grace` as DeleteOptions.gracePeriodSeconds. InvalidArgument (quoting the
// duration) if it is negative, infinite or not a whole number of seconds.
absl::StatusOr<int64_t> GraceSeconds(absl::Duration grace);

}  // namespace karpenter::internal

#endif  // KARPENTER_SRC_HOST_CLUSTER_VIEW_CHECKS_H_
