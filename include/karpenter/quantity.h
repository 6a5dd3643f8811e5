// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Kubernetes resource quantities ("100m", "1Gi", "1e3", "0.5"), parsed with
// the grammar and suffixes of `resource.ParseQuantity` and converted to
// integer milli-units the way `Quantity.MilliValue()` does
// (k8s.io/apimachinery/pkg/api/resource: quantity.go parseQuantityString and
// ParseQuantity, suffix.go, amount.go AsScaledInt64, math.go
// negativeScaleInt64, scale_int.go scaledValue).
//
// Grammar (exactly ParseQuantity's scanner): an optional sign, digits with at
// most one '.', then a suffix made of letters from "eEinumkKMGTP", an
// optional sign and digits, which must then be one of
//   binary   Ki Mi Gi Ti Pi Ei              (2^10 .. 2^60)
//   decimal  n u m "" k M G T P E           (10^-9 .. 10^18; "E" is exa)
//   exponent e<int> or E<int>               (int64 text, e.g. "1e-3", "2E+6")
// ".5", "5." and "1.5e3" are valid; "1e" is not (no exponent digits), while
// "1E" is 10^18. No whitespace is accepted (" 1", "1 "): that is
// ParseQuantity; only the JSON decoder trims spaces before calling it.
//
// Reference quirks reproduced on purpose, because the API server stores
// what ParseQuantity returns:
//   * A numeric part without digits counts as zero: "-", "+", ".", "m",
//     "e3", "Ki" all parse to 0 (kubernetes/apimachinery issue #165).
//     "Pi", ".e-10" and similar inputs that reach the big-decimal path
//     instead fail with "unable to parse numeric part of quantity".
//   * The exponent after e/E is parsed as int64 then truncated to int32
//     (`int32(parsed)`), so "1e4294967296" is 1 (1000 milli).
//   * Rounding toward a milli-unit depends on how ParseQuantity stored the
//     value. Positive values always round up ("1n" -> 1). Negative values
//     stored in the int64 fast form round away from zero ("-1n" -> -1,
//     "-1.5m" -> -2). That form is used for decimal input with at most 18
//     digits (integer part without its leading zeros, plus all fraction
//     digits) and a resulting scale of at least 10^-9, and for binary input
//     without a fraction and with at most 11/8/5/2 integer digits (leading
//     zeros not counted) for Ki/Mi/Gi/Ti. Other negative values are stored
//     as a big decimal and go through scaledValue, which truncates toward
//     zero and then adds one when a remainder exists: "-1e-10" and
//     "-0.0000000001" give +1, "-1.0000000001" gives -999. Only magnitudes
//     of at least 2^63-1 nano-units take its other branch, which truncates
//     toward zero.
//
// Where Go's accessor would overflow (it returns 0, saturates or wraps,
// depending on the version) this returns OutOfRange instead; it never clamps.
// BinarySI values that ParseQuantity caps at 2^63-1 always overflow in
// milli-units, so the cap never changes a successful result.
//
// Thread-safety: pure functions, safe to call concurrently.

#ifndef KARPENTER_QUANTITY_H_
#define KARPENTER_QUANTITY_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace karpenter {

// Parses `s` as a Kubernetes quantity and returns Quantity.MilliValue() of
// the result (see the file comment for the exact rules).
//
// Errors, each naming `field` (when not empty) and quoting `s`:
//   * `kInvalidArgument`: malformed input, with ParseQuantity's message:
//     "quantities must match the regular expression ..." (e.g. "", "1.2.3",
//     "1kb", "abc", " 1", "1 "), "unable to parse quantity's suffix" (e.g.
//     "1Ki5", "1e", "1ee3", "1ki", an exponent outside int64) or "unable to
//     parse numeric part of quantity".
//   * `kOutOfRange`: the value in milli-units does not fit in int64 (e.g.
//     "9223372036854776", "8Ei", "1e20").
absl::StatusOr<int64_t> ParseQuantityMilli(absl::string_view s,
                                           absl::string_view field = "");

}  // namespace karpenter

#endif  // KARPENTER_QUANTITY_H_
