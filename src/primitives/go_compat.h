// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Internal helpers shared by the primitive parsers (not installed): the small
// pieces of Go's standard library whose exact behaviour shows up in the
// results and error messages of the ported Kubernetes, Karpenter and
// robfig/cron code. Each function names the Go function it mirrors (Go 1.19).
//
// Thread-safety: all functions are pure and safe to call concurrently.

#ifndef KARPENTER_SRC_PRIMITIVES_GO_COMPAT_H_
#define KARPENTER_SRC_PRIMITIVES_GO_COMPAT_H_

#include <cfloat>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace karpenter::primitives_internal {

// Code that reproduces Go's float64 arithmetic (duration fractions, percent
// scaling) needs IEEE binary64 evaluated without excess precision, exactly
// like Go's float64, to round to the same result.
static_assert(std::numeric_limits<double>::is_iec559,
              "Go float64 arithmetic needs IEEE binary64 doubles");
static_assert(FLT_EVAL_METHOD == 0,
              "Go float64 arithmetic needs no excess precision");

// The rune Go decodes invalid UTF-8 to (utf8.RuneError).
inline constexpr char32_t kRuneError = 0xFFFD;

// Go's utf8.DecodeRuneInString applied to s[i:]: returns the rune starting at
// s[i] (requires i < s.size()) and sets `*width` to its length in bytes.
// Invalid, overlong, surrogate or truncated sequences decode as kRuneError
// with width 1.
char32_t DecodeRune(absl::string_view s, size_t i, size_t* width);

// Go's unicode.IsSpace.
bool IsGoSpace(char32_t r);

// Go's time.quote (src/time/format.go), used in time.ParseDuration errors:
// wraps `s` in double quotes, backslash-escapes '"' and '\\', and writes every
// byte below 0x20 or above 0x7f as \xNN (so every byte of a non-ASCII rune is
// escaped; DEL stays as is). The result is printable ASCII apart from DEL.
std::string GoTimeQuote(absl::string_view s);

// Go's strconv.Quote (as used by %q and strconv.NumError) for the inputs the
// parsers see: printable ASCII verbatim, C escapes (\n, \t, ...) for controls
// that have them, \xNN for other ASCII controls, DEL and each byte of invalid
// UTF-8, \uNNNN for C1 controls, U+00A0 and Unicode white space; other valid
// UTF-8 is kept. (strconv.Quote would also escape unassigned and other
// non-graphic code points; that difference is accepted.)
std::string GoStrconvQuote(absl::string_view s);

// Which of the two quoting functions above an error message uses.
enum class QuoteStyle { kTime, kStrconv };

// Go's strconv.Atoi on a 64-bit platform: `[+-]?[0-9]+` within int64, no
// white space, no underscores.
//
// Errors (kInvalidArgument), worded like Go's *strconv.NumError with `s`
// quoted in `style` (Go itself uses strconv.Quote; the styles agree on
// printable ASCII):
//   * `strconv.Atoi: parsing "<s>": invalid syntax`: empty, a sign alone, or
//     a non-digit before the magnitude overflows uint64;
//   * `strconv.Atoi: parsing "<s>": value out of range`: outside int64, or a
//     magnitude overflowing uint64 even if a non-digit follows (as Go's
//     ParseUint stops at the overflow).
absl::StatusOr<int64_t> GoAtoi(absl::string_view s, QuoteStyle style);

// Returns "<field>: <message>" or just `message` when `field` is empty.
std::string WithField(absl::string_view field, absl::string_view message);

}  // namespace karpenter::primitives_internal

#endif  // KARPENTER_SRC_PRIMITIVES_GO_COMPAT_H_
