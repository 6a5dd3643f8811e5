// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The one spelling of a document field's error in the SDK's own input
// formats (the instance-type catalogue, the simulation Scenario):
// `<path>: <what> "<value>"`, the value C-escaped, or `<path>: <what>` when
// there is no value to quote. Not installed. Thread-safety: a pure function.
#ifndef KARPENTER_SRC_COMMON_FIELD_ERROR_H_
#define KARPENTER_SRC_COMMON_FIELD_ERROR_H_

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace karpenter::internal {

// InvalidArgument `<path>: <what> "<value>"` (`<path>: <what>` for an empty
// `value`), e.g. `spec.instanceTypes[2].offerings[0].price: must be a finite
// number >= 0 "-1"`.
inline absl::Status FieldError(absl::string_view path, absl::string_view what,
                               absl::string_view value) {
  if (value.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
  }
  return absl::InvalidArgumentError(
      absl::StrCat(path, ": ", what, " \"", absl::CEscape(value), "\""));
}

}  // namespace karpenter::internal

#endif  // KARPENTER_SRC_COMMON_FIELD_ERROR_H_
