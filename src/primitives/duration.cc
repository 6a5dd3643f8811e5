// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/duration.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "primitives/go_compat.h"

namespace karpenter {
namespace {

using primitives_internal::GoTimeQuote;
using primitives_internal::WithField;

constexpr uint64_t kTwoTo63 = uint64_t{1} << 63;

absl::Status InvalidDuration(absl::string_view orig) {
  return absl::InvalidArgumentError(
      absl::StrCat("time: invalid duration ", GoTimeQuote(orig)));
}

// Consumes the leading [0-9]* of `s` into `x`. Returns false when the value
// exceeds 2^63 (Go's leadingInt reports that as an error).
bool LeadingInt(absl::string_view& s, uint64_t& x) {
  x = 0;
  size_t i = 0;
  for (; i < s.size() && absl::ascii_isdigit(s[i]); ++i) {
    if (x > kTwoTo63 / 10) return false;
    x = x * 10 + static_cast<uint64_t>(s[i] - '0');
    if (x > kTwoTo63) return false;
  }
  s.remove_prefix(i);
  return true;
}

// Consumes the leading [0-9]* of `s` as a fraction: value = x / scale. Digits
// that no longer fit are consumed but ignored, as in Go's leadingFraction;
// `scale` is built by repeated multiplication so it is the same double.
void LeadingFraction(absl::string_view& s, uint64_t& x, double& scale) {
  x = 0;
  scale = 1;
  bool overflow = false;
  size_t i = 0;
  for (; i < s.size() && absl::ascii_isdigit(s[i]); ++i) {
    if (overflow) continue;
    if (x > (kTwoTo63 - 1) / 10) {
      overflow = true;
      continue;
    }
    const uint64_t y = x * 10 + static_cast<uint64_t>(s[i] - '0');
    if (y > kTwoTo63) {
      overflow = true;
      continue;
    }
    x = y;
    scale *= 10;
  }
  s.remove_prefix(i);
}

// Nanoseconds per unit, or 0 for an unknown unit.
uint64_t UnitNanos(absl::string_view u) {
  if (u == "ns") return 1;
  if (u == "us" || u == "\xC2\xB5s" || u == "\xCE\xBCs") return 1000;
  if (u == "ms") return 1000 * 1000;
  if (u == "s") return 1000 * 1000 * 1000;
  if (u == "m") return uint64_t{60} * 1000 * 1000 * 1000;
  if (u == "h") return uint64_t{3600} * 1000 * 1000 * 1000;
  return 0;
}

// Parses one segment `[0-9]*(\.[0-9]*)?unit` from the front of `s` and returns
// its magnitude in nanoseconds (at most 2^63).
absl::StatusOr<uint64_t> ParseSegment(absl::string_view& s,
                                      absl::string_view orig) {
  if (!(s[0] == '.' || absl::ascii_isdigit(s[0]))) return InvalidDuration(orig);
  const size_t before_int = s.size();
  uint64_t v = 0;
  if (!LeadingInt(s, v)) return InvalidDuration(orig);
  const bool pre = before_int != s.size();

  uint64_t f = 0;
  double scale = 1;
  bool post = false;
  if (!s.empty() && s[0] == '.') {
    s.remove_prefix(1);
    const size_t before_frac = s.size();
    LeadingFraction(s, f, scale);
    post = before_frac != s.size();
  }
  if (!pre && !post) return InvalidDuration(orig);

  size_t i = 0;
  while (i < s.size() && s[i] != '.' && !absl::ascii_isdigit(s[i])) ++i;
  if (i == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("time: missing unit in duration ", GoTimeQuote(orig)));
  }
  const absl::string_view u = s.substr(0, i);
  s.remove_prefix(i);
  const uint64_t unit = UnitNanos(u);
  if (unit == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("time: unknown unit ", GoTimeQuote(u), " in duration ",
                     GoTimeQuote(orig)));
  }
  if (v > kTwoTo63 / unit) return InvalidDuration(orig);
  v *= unit;
  if (f > 0) {
    // Go: v += uint64(float64(f) * (float64(unit) / scale)). The product is
    // below `unit`, so the conversion is in range; go_compat.h asserts that
    // double is Go's float64, so the nanosecond is the same.
    v += static_cast<uint64_t>(static_cast<double>(f) *
                               (static_cast<double>(unit) / scale));
    if (v > kTwoTo63) return InvalidDuration(orig);
  }
  return v;
}

absl::StatusOr<int64_t> ParseGoDurationNanos(absl::string_view orig) {
  absl::string_view s = orig;
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return 0;
  if (s.empty()) return InvalidDuration(orig);
  uint64_t total = 0;
  while (!s.empty()) {
    absl::StatusOr<uint64_t> v = ParseSegment(s, orig);
    if (!v.ok()) return v.status();
    // Both terms are at most 2^63, so an overflow check is needed only
    // against 2^63 (Go skips it, see the header).
    if (*v > kTwoTo63 - total) return InvalidDuration(orig);
    total += *v;
  }
  if (neg) {
    if (total == kTwoTo63) return std::numeric_limits<int64_t>::min();
    return -static_cast<int64_t>(total);
  }
  if (total > kTwoTo63 - 1) return InvalidDuration(orig);
  return static_cast<int64_t>(total);
}

// Writes v % 10^prec (a fraction with `prec` digits) without trailing zeros
// and returns v / 10^prec, like Go's fmtFrac. `reversed` receives the
// characters in reverse order.
uint64_t FormatFraction(std::string& reversed, uint64_t v, int prec) {
  bool print = false;
  for (int i = 0; i < prec; ++i) {
    const auto digit = static_cast<char>(v % 10);
    print = print || digit != 0;
    if (print) reversed.push_back(static_cast<char>('0' + digit));
    v /= 10;
  }
  if (print) reversed.push_back('.');
  return v;
}

void FormatInt(std::string& reversed, uint64_t v) {
  do {
    reversed.push_back(static_cast<char>('0' + v % 10));
    v /= 10;
  } while (v > 0);
}

// Formats a magnitude of `secs` seconds plus `nanos` (< 1e9) nanoseconds.
std::string FormatMagnitude(bool neg, uint64_t secs, uint64_t nanos) {
  std::string r;  // built backwards, like Go's buffer
  if (secs == 0) {
    if (nanos == 0) return "0s";
    r.push_back('s');
    int prec = 6;
    if (nanos < 1000) {
      prec = 0;
      r.push_back('n');
    } else if (nanos < 1000 * 1000) {
      prec = 3;
      r += "\xB5\xC2";  // U+00B5, reversed
    } else {
      r.push_back('m');
    }
    FormatInt(r, FormatFraction(r, nanos, prec));
  } else {
    r.push_back('s');
    FormatFraction(r, nanos, 9);
    FormatInt(r, secs % 60);
    const uint64_t mins = secs / 60;
    if (mins > 0) {
      r.push_back('m');
      FormatInt(r, mins % 60);
      const uint64_t hours = mins / 60;
      if (hours > 0) {
        r.push_back('h');
        FormatInt(r, hours);
      }
    }
  }
  if (neg) r.push_back('-');
  return std::string(r.rbegin(), r.rend());
}

}  // namespace

absl::StatusOr<absl::Duration> ParseGoDuration(absl::string_view s) {
  absl::StatusOr<int64_t> nanos = ParseGoDurationNanos(s);
  if (!nanos.ok()) return nanos.status();
  return absl::Nanoseconds(*nanos);
}

std::string FormatGoDuration(absl::Duration d) {
  if (d == absl::InfiniteDuration()) return "inf";
  if (d == -absl::InfiniteDuration()) return "-inf";
  // Split into whole seconds and a remainder of the same sign; both are
  // exact for every finite absl::Duration, including the most negative.
  absl::Duration rem;
  const int64_t secs = absl::IDivDuration(d, absl::Seconds(1), &rem);
  const int64_t nanos = absl::ToInt64Nanoseconds(rem);  // truncates
  const bool neg = secs < 0 || (secs == 0 && nanos < 0);
  // Unsigned negation keeps the most negative int64 exact.
  const uint64_t abs_secs =
      neg ? uint64_t{0} - static_cast<uint64_t>(secs) : uint64_t(secs);
  const uint64_t abs_nanos =
      neg ? uint64_t{0} - static_cast<uint64_t>(nanos) : uint64_t(nanos);
  return FormatMagnitude(neg && (abs_secs != 0 || abs_nanos != 0), abs_secs,
                         abs_nanos);
}

absl::StatusOr<std::optional<absl::Duration>> ParseNillableDuration(
    absl::string_view s, absl::string_view field) {
  if (s == "Never") return std::optional<absl::Duration>();
  absl::StatusOr<absl::Duration> d = ParseGoDuration(s);
  if (!d.ok()) {
    return absl::InvalidArgumentError(WithField(field, d.status().message()));
  }
  return std::optional<absl::Duration>(*d);
}

}  // namespace karpenter
