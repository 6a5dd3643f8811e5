// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Internal status-propagation macros (Abseil 20220623 ships none). Not
// installed: public headers never use macros.

#ifndef KARPENTER_SRC_COMMON_STATUS_MACROS_H_
#define KARPENTER_SRC_COMMON_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

// Returns from the enclosing function if `expr` (an absl::Status) is not OK.
#define KARPENTER_RETURN_IF_ERROR(expr)                    \
  do {                                                     \
    ::absl::Status karpenter_status_ = (expr);             \
    if (!karpenter_status_.ok()) return karpenter_status_; \
  } while (false)

#define KARPENTER_STATUS_CONCAT_INNER_(a, b) a##b
#define KARPENTER_STATUS_CONCAT_(a, b) KARPENTER_STATUS_CONCAT_INNER_(a, b)

// `KARPENTER_ASSIGN_OR_RETURN(auto x, Foo());` declares/assigns `x` from an
// absl::StatusOr or returns its status from the enclosing function.
#define KARPENTER_ASSIGN_OR_RETURN(lhs, rexpr) \
  KARPENTER_ASSIGN_OR_RETURN_IMPL_(            \
      KARPENTER_STATUS_CONCAT_(karpenter_statusor_, __LINE__), lhs, rexpr)

#define KARPENTER_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                                     \
  if (!statusor.ok()) return std::move(statusor).status();     \
  lhs = std::move(statusor).value()

#endif  // KARPENTER_SRC_COMMON_STATUS_MACROS_H_
