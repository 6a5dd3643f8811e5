// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Go durations: parsing and formatting exactly as Go's `time` package does
// (`time.ParseDuration` and `Duration.String` in src/time/format.go and
// src/time/time.go, checked against Go 1.19), plus Karpenter's
// `NillableDuration` (pkg/apis/v1/duration.go), which adds the literal
// "Never" for "no limit" to fields such as `expireAfter` and
// `consolidateAfter`.
//
// Go represents a duration as int64 nanoseconds; these functions therefore
// produce and accept `absl::Duration` values in that range. Fractions are
// computed the way Go computes them, as a float64 product truncated toward
// zero, not exactly: "0.8361797402186111h" is 3010247064787ns (exact:
// ...786.99...) and "0.49795031940000h" is 1792621149839ns while
// "0.4979503194h" is 1792621149840ns (trailing zeros change the float
// scale).
//
// Thread-safety: all functions are pure and safe to call concurrently.

#ifndef KARPENTER_DURATION_H_
#define KARPENTER_DURATION_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace karpenter {

// Parses `s` with Go's `time.ParseDuration` grammar:
// `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+` with units "ns", "us", "µs" (U+00B5),
// "μs" (U+03BC), "ms", "s", "m", "h". A bare "0", "+0" or "-0" is zero; ".5h"
// and "1.h" are valid; "1.5h30m" mixes segments. No whitespace, no other unit
// (no "d"), case-sensitive ("1H" is an error).
//
// Returns the duration (whole nanoseconds, as Go does: sub-nanosecond
// fractions are truncated toward zero, "1.9ns" is 1ns).
//
// Errors (all `absl::StatusCode::kInvalidArgument`, message quoting the input
// with Go's wording):
//   * `time: invalid duration "<s>"`: empty input, a sign alone, a segment
//     without digits ("." or ".s"), a leading non-digit, or a total outside
//     int64 nanoseconds (the range is [-2562047h47m16.854775808s,
//     2562047h47m16.854775807s]).
//   * `time: missing unit in duration "<s>"`: e.g. "1" or "1.5.5s".
//   * `time: unknown unit "<u>" in duration "<s>"`: e.g. "1d", "1 h".
// Deliberate difference: Go 1.19 adds segment values in uint64 without a
// wrap check, so "9223372036854775808ns9223372036854775808ns" (two segments
// of exactly 2^63ns) wraps to 0 and succeeds there. This function reports it
// as `invalid duration` instead of returning a corrupted value.
absl::StatusOr<absl::Duration> ParseGoDuration(absl::string_view s);

// Formats `d` like Go's `Duration.String()`: "1h30m0s", "300ms", "1.5µs"
// (micro sign U+00B5), "0s", "-2m0s", "2562047h47m16.854775807s". Leading zero
// units are omitted, fractions lose trailing zeros, and durations under one
// second use "ms", "µs" or "ns" so that the leading digit is non-zero.
//
// `absl::Duration` is wider and finer than Go's: sub-nanosecond remainders are
// truncated toward zero (-0.25ns formats as "0s"); finite durations beyond
// int64 nanoseconds are formatted with the same rules and more hours (Go
// cannot hold them, so there is no reference output to differ from);
// `absl::InfiniteDuration()` formats as "inf" and its negation as "-inf", as
// `absl::FormatDuration` does. Never fails.
std::string FormatGoDuration(absl::Duration d);

// Parses a Karpenter `NillableDuration` value: exactly "Never"
// (case-sensitive, as Karpenter compares `str == "Never"`) yields
// `std::nullopt`, meaning "no limit"; anything else must be a Go duration and
// is parsed with `ParseGoDuration` (so "never", "NEVER" or "" are errors).
// Karpenter applies no further check at this level; the CRD patterns that
// restrict e.g. `expireAfter` to `^(([0-9]+(s|m|h))+|Never)$` are not applied
// here.
//
// Errors: `kInvalidArgument` with the message of `ParseGoDuration` prefixed by
// "<field>: " when `field` is not empty.
absl::StatusOr<std::optional<absl::Duration>> ParseNillableDuration(
    absl::string_view s, absl::string_view field = "");

}  // namespace karpenter

#endif  // KARPENTER_DURATION_H_
