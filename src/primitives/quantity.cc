// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The parse follows ParseQuantity step by step only where a step decides
// the outcome (which error, which storage form, which exponent after int32
// wrap-around). The arithmetic itself is exact: the value is kept as a
// decimal digit string times a power of ten, so no big-number library is
// needed and nothing can overflow silently.

#include "karpenter/quantity.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "primitives/go_compat.h"

namespace karpenter {
namespace {

using primitives_internal::GoAtoi;
using primitives_internal::GoTimeQuote;
using primitives_internal::QuoteStyle;
using primitives_internal::WithField;

constexpr char kErrFormatWrong[] =
    "quantities must match the regular expression "
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr char kErrNumeric[] = "unable to parse numeric part of quantity";
constexpr char kErrSuffix[] = "unable to parse quantity's suffix";

// Go int32 arithmetic wraps; these reproduce it without signed overflow.
int32_t Wrap32(int64_t v) {
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
}

// The pieces parseQuantityString extracts.
struct Scanned {
  bool negative = false;
  absl::string_view num;    // leading zeros stripped; empty means "0"
  absl::string_view denom;  // digits after '.'
  absl::string_view suffix;
  bool value_has_digits = false;  // whether inf.Dec could parse the number
};

// Port of parseQuantityString's control flow. Returns false for
// ErrFormatWrong.
bool ScanQuantity(absl::string_view s, Scanned& out) {
  size_t pos = 0;
  const size_t end = s.size();
  if (pos < end && (s[0] == '-' || s[0] == '+')) {
    out.negative = s[0] == '-';
    ++pos;
  }
  const size_t zeros_start = pos;
  while (pos < end && s[pos] == '0') ++pos;
  out.value_has_digits = pos > zeros_start;
  if (pos >= end) {
    // Only zeros, or just a sign: Go sets the number to "0".
    out.value_has_digits = true;
    return true;
  }

  size_t i = pos;
  while (i < end && absl::ascii_isdigit(s[i])) ++i;
  out.num = s.substr(pos, i - pos);
  out.value_has_digits = out.value_has_digits || !out.num.empty();
  pos = i;
  if (pos >= end) return true;

  if (s[pos] == '.') {
    ++pos;
    i = pos;
    while (i < end && absl::ascii_isdigit(s[i])) ++i;
    out.denom = s.substr(pos, i - pos);
    out.value_has_digits = out.value_has_digits || !out.denom.empty();
    pos = i;
    if (pos >= end) return true;
  }

  const size_t suffix_start = pos;
  static constexpr absl::string_view kSuffixLetters = "eEinumkKMGTP";
  while (pos < end && kSuffixLetters.find(s[pos]) != absl::string_view::npos) {
    ++pos;
  }
  if (pos < end && (s[pos] == '-' || s[pos] == '+')) ++pos;
  while (pos < end && absl::ascii_isdigit(s[pos])) ++pos;
  if (pos < end) return false;
  out.suffix = s.substr(suffix_start);
  return true;
}

struct Suffix {
  bool binary = false;
  int32_t exponent = 0;  // power of 10, or of 2 when binary
};

// Port of quantitySuffixer.interpret.
std::optional<Suffix> InterpretSuffix(absl::string_view s) {
  struct Entry {
    absl::string_view text;
    Suffix suffix;
  };
  static constexpr Entry kTable[] = {
      {"", {false, 0}},   {"n", {false, -9}}, {"u", {false, -6}},
      {"m", {false, -3}}, {"k", {false, 3}},  {"M", {false, 6}},
      {"G", {false, 9}},  {"T", {false, 12}}, {"P", {false, 15}},
      {"E", {false, 18}}, {"Ki", {true, 10}}, {"Mi", {true, 20}},
      {"Gi", {true, 30}}, {"Ti", {true, 40}}, {"Pi", {true, 50}},
      {"Ei", {true, 60}},
  };
  for (const Entry& e : kTable) {
    if (e.text == s) return e.suffix;
  }
  if (s.size() > 1 && (s[0] == 'e' || s[0] == 'E')) {
    // Go: strconv.ParseInt(s[1:], 10, 64), which accepts exactly what Atoi
    // does on a 64-bit platform; its message is not used.
    const absl::StatusOr<int64_t> parsed =
        GoAtoi(s.substr(1), QuoteStyle::kStrconv);
    if (!parsed.ok()) return std::nullopt;
    return Suffix{false, Wrap32(*parsed)};  // Go: int32(parsed)
  }
  return std::nullopt;
}

// The parsed value: (-1)^negative * digits * 10^exp10, and whether
// ParseQuantity stored it as an int64Amount (fast form) or an inf.Dec.
struct Value {
  bool negative = false;
  std::string digits;  // decimal, may have leading zeros; empty means 0
  int64_t exp10 = 0;
  bool int64_form = false;
};

// digits * 2^bits, as decimal digits (bits is a multiple of 10, <= 60).
std::string MultiplyByPowerOfTwo(absl::string_view digits, int bits) {
  std::vector<uint32_t> rev;  // little-endian decimal digits
  rev.reserve(digits.size() + 20);
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    rev.push_back(static_cast<uint32_t>(*it - '0'));
  }
  for (int b = 0; b < bits; b += 10) {
    uint32_t carry = 0;
    for (uint32_t& d : rev) {
      const uint32_t x = d * 1024 + carry;
      d = x % 10;
      carry = x / 10;
    }
    while (carry > 0) {
      rev.push_back(carry % 10);
      carry /= 10;
    }
  }
  std::string out;
  out.reserve(rev.size());
  for (auto it = rev.rbegin(); it != rev.rend(); ++it) {
    out.push_back(static_cast<char>('0' + *it));
  }
  return out;
}

// Whether the int64 fast path of ParseQuantity applies (precision >= 0,
// scale >= Nano, ParseInt and int64Multiply succeed), and the fast-path
// scale. Returns nullopt for the ErrNumeric that ParseInt can raise.
struct FastPath {
  bool taken = false;
  int32_t scale = 0;
};
std::optional<FastPath> DecideFastPath(const Scanned& q, const Suffix& suf) {
  const absl::string_view num = q.num.empty() ? "0" : q.num;
  const int64_t digit_count =
      static_cast<int64_t>(num.size()) + static_cast<int64_t>(q.denom.size());
  int32_t precision = -1;
  int32_t scale = 0;
  if (!suf.binary) {
    scale = suf.exponent;
    precision = Wrap32(int64_t{18} - Wrap32(digit_count));
  } else if (q.denom.empty()) {
    // 15 - len(num) - int32(float32(exponent)*3/10) - 1; the float32 term is
    // exactly 3*exponent/10 for the table's exponents.
    precision = Wrap32(int64_t{14} - Wrap32(static_cast<int64_t>(num.size())) -
                       suf.exponent * 3 / 10);
  }
  if (precision < 0) return FastPath{};
  scale = Wrap32(int64_t{scale} - Wrap32(static_cast<int64_t>(q.denom.size())));
  if (scale < -9) return FastPath{};
  // strconv.ParseInt(num+denom): digits only, so it fails only above int64.
  uint64_t v = 0;
  for (absl::string_view part : {num, q.denom}) {
    for (char c : part) {
      const auto d = static_cast<uint64_t>(c - '0');
      if (v > (uint64_t{std::numeric_limits<int64_t>::max()} - d) / 10) {
        return std::nullopt;
      }
      v = v * 10 + d;
    }
  }
  if (suf.binary && v > 1 &&
      v > (uint64_t{std::numeric_limits<int64_t>::max()} >> suf.exponent)) {
    return FastPath{};  // int64Multiply overflows: Go falls back to inf.Dec
  }
  return FastPath{true, scale};
}

// Builds the value ParseQuantity would store. Returns a non-OK status with
// ParseQuantity's message on error.
absl::StatusOr<Value> ParseValue(absl::string_view s) {
  if (s.empty()) return absl::InvalidArgumentError(kErrFormatWrong);
  Scanned q;
  if (!ScanQuantity(s, q)) return absl::InvalidArgumentError(kErrFormatWrong);
  const std::optional<Suffix> suf = InterpretSuffix(q.suffix);
  if (!suf.has_value()) return absl::InvalidArgumentError(kErrSuffix);
  const std::optional<FastPath> fast = DecideFastPath(q, *suf);
  if (!fast.has_value()) return absl::InvalidArgumentError(kErrNumeric);

  Value v;
  v.negative = q.negative;
  v.int64_form = fast->taken;
  v.digits = absl::StrCat(q.num, q.denom);
  if (!fast->taken && !q.value_has_digits) {
    return absl::InvalidArgumentError(kErrNumeric);  // inf.Dec.SetString
  }
  if (suf->binary) {
    v.digits = MultiplyByPowerOfTwo(v.digits, suf->exponent);
    v.exp10 = -static_cast<int64_t>(q.denom.size());
  } else if (fast->taken) {
    v.exp10 = fast->scale;
  } else {
    // inf.Dec: scale len(denom), then SetScale(scale + (-exponent)), all
    // int32; the value is unscaled * 10^-scale.
    const int32_t inf_scale =
        Wrap32(int64_t{Wrap32(static_cast<int64_t>(q.denom.size()))} +
               Wrap32(-int64_t{suf->exponent}));
    v.exp10 = -int64_t{inf_scale};
  }
  return v;
}

// Returns ceil(digits * 10^shift) for non-negative digits, or nullopt when
// it reaches 10^37 (far beyond anything int64 results need).
std::optional<absl::uint128> CeilScaled(absl::string_view digits,
                                        int64_t shift) {
  constexpr int64_t kMaxDigits = 37;
  while (!digits.empty() && digits.front() == '0') digits.remove_prefix(1);
  if (digits.empty()) return absl::uint128(0);
  while (digits.back() == '0') {
    digits.remove_suffix(1);
    ++shift;
  }
  const auto len = static_cast<int64_t>(digits.size());
  const int64_t int_len = len + shift;  // digits left of the decimal point
  if (int_len > kMaxDigits) return std::nullopt;
  absl::uint128 v = 0;
  for (int64_t i = 0; i < std::min(len, int_len); ++i) {
    v = v * 10 + static_cast<uint64_t>(digits[static_cast<size_t>(i)] - '0');
  }
  for (int64_t i = len; i < int_len; ++i) v *= 10;
  // The last digit is non-zero, so any digit right of the point makes a
  // fraction.
  if (int_len < len) v += 1;
  return v;
}

// Quantity.MilliValue() of `v`, or nullopt when it does not fit in int64.
std::optional<int64_t> MilliValue(const Value& v) {
  constexpr uint64_t kTwoTo63 = uint64_t{1} << 63;
  const absl::uint128 kMaxPos = kTwoTo63 - 1;
  if (v.int64_form || !v.negative) {
    // int64Amount.AsScaledInt64 rounds away from zero; scaledValue rounds a
    // positive inf.Dec up. Both are the magnitude's ceiling.
    const std::optional<absl::uint128> mag = CeilScaled(v.digits, v.exp10 + 3);
    if (!mag.has_value()) return std::nullopt;
    if (!v.negative) {
      if (*mag > kMaxPos) return std::nullopt;
      return static_cast<int64_t>(absl::Uint128Low64(*mag));
    }
    if (*mag > kTwoTo63) return std::nullopt;
    return static_cast<int64_t>(uint64_t{0} - absl::Uint128Low64(*mag));
  }
  // Negative inf.Dec: ParseQuantity rounded the magnitude up to whole
  // nano-units (u), and scaledValue(-u, 9, 3) divides by 10^6.
  const std::optional<absl::uint128> u = CeilScaled(v.digits, v.exp10 + 9);
  if (!u.has_value()) return std::nullopt;
  const absl::uint128 q = *u / 1000000;
  const bool remainder = *u % 1000000 != 0;
  if (q > kTwoTo63) return std::nullopt;
  const auto neg_q = static_cast<int64_t>(uint64_t{0} - absl::Uint128Low64(q));
  // Below MaxInt64 scaledValue truncates toward zero and then adds one for a
  // remainder (a bug for negatives, kept); above it, floor division plus one
  // is truncation.
  if (*u < kMaxPos && remainder) return neg_q + 1;
  return neg_q;
}

}  // namespace

absl::StatusOr<int64_t> ParseQuantityMilli(absl::string_view s,
                                           absl::string_view field) {
  absl::StatusOr<Value> v = ParseValue(s);
  if (!v.ok()) {
    return absl::InvalidArgumentError(
        WithField(field, absl::StrCat("invalid quantity ", GoTimeQuote(s), ": ",
                                      v.status().message())));
  }
  const std::optional<int64_t> milli = MilliValue(*v);
  if (!milli.has_value()) {
    return absl::OutOfRangeError(
        WithField(field, absl::StrCat("quantity ", GoTimeQuote(s),
                                      " does not fit in int64 milli-units")));
  }
  return *milli;
}

}  // namespace karpenter
