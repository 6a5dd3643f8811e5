// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "primitives/go_compat.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"

namespace karpenter::primitives_internal {

char32_t DecodeRune(absl::string_view s, size_t i, size_t* width) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(s[i + k]); };
  const uint8_t b0 = byte(0);
  *width = 1;
  if (b0 < 0x80) return b0;
  size_t n = 0;
  char32_t r = 0;
  uint8_t lo = 0x80, hi = 0xBF;  // Allowed range of the second byte.
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2, r = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3, r = b0 & 0x0F;
    if (b0 == 0xE0) lo = 0xA0;  // Overlong.
    if (b0 == 0xED) hi = 0x9F;  // Surrogates.
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4, r = b0 & 0x07;
    if (b0 == 0xF0) lo = 0x90;  // Overlong.
    if (b0 == 0xF4) hi = 0x8F;  // Above U+10FFFF.
  } else {
    return kRuneError;
  }
  if (i + n > s.size()) return kRuneError;
  for (size_t k = 1; k < n; ++k) {
    const uint8_t b = byte(k);
    if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) {
      return kRuneError;
    }
    r = (r << 6) | (b & 0x3F);
  }
  *width = n;
  return r;
}

bool IsGoSpace(char32_t r) {
  switch (r) {
    case '\t':
    case '\n':
    case '\v':
    case '\f':
    case '\r':
    case ' ':
    case 0x85:
    case 0xA0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000:
      return true;
    default:
      return r >= 0x2000 && r <= 0x200A;
  }
}

std::string GoTimeQuote(absl::string_view s) {
  // Go walks runes, but every byte of a non-ASCII rune (valid or not) is
  // >= 0x80 and escaped alike, so a walk over bytes gives the same text.
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back('"');
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c >= 0x80) {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xf]);
      continue;
    }
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(ch);
  }
  out.push_back('"');
  return out;
}

namespace {

// strconv.Quote's escape for the runes that have a C escape, or nullptr.
const char* CEscape(char32_t r) {
  switch (r) {
    case '"':
      return "\\\"";
    case '\\':
      return "\\\\";
    case '\a':
      return "\\a";
    case '\b':
      return "\\b";
    case '\f':
      return "\\f";
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    case '\t':
      return "\\t";
    case '\v':
      return "\\v";
    default:
      return nullptr;
  }
}

}  // namespace

std::string GoStrconvQuote(absl::string_view s) {
  std::string out = "\"";
  for (size_t i = 0, w = 0; i < s.size(); i += w) {
    const char32_t r = DecodeRune(s, i, &w);
    if (const char* escape = CEscape(r); escape != nullptr) {
      out += escape;
    } else if (r == kRuneError && w == 1) {
      absl::StrAppendFormat(&out, "\\x%02x", static_cast<uint8_t>(s[i]));
    } else if (r < 0x20 || r == 0x7F) {
      absl::StrAppendFormat(&out, "\\x%02x", static_cast<uint32_t>(r));
    } else if (r >= 0x80 && (r <= 0xA0 || IsGoSpace(r))) {
      absl::StrAppendFormat(&out, "\\u%04x", static_cast<uint32_t>(r));
    } else {
      absl::StrAppend(&out, s.substr(i, w));
    }
  }
  out += '"';
  return out;
}

absl::StatusOr<int64_t> GoAtoi(absl::string_view s, QuoteStyle style) {
  const auto fail = [s, style](absl::string_view reason) {
    const std::string quoted =
        style == QuoteStyle::kTime ? GoTimeQuote(s) : GoStrconvQuote(s);
    return absl::InvalidArgumentError(
        absl::StrCat("strconv.Atoi: parsing ", quoted, ": ", reason));
  };
  absl::string_view digits = s;
  bool neg = false;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    neg = digits[0] == '-';
    digits.remove_prefix(1);
  }
  if (digits.empty()) return fail("invalid syntax");
  // Like Go's ParseUint: a syntax error at the first non-digit, a range error
  // as soon as the magnitude overflows uint64 (even if a non-digit follows),
  // then the int64 range check; the magnitude limit is 2^63 for negatives.
  uint64_t n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return fail("invalid syntax");
    const auto d = static_cast<uint64_t>(c - '0');
    if (n > (std::numeric_limits<uint64_t>::max() - d) / 10) {
      return fail("value out of range");
    }
    n = n * 10 + d;
  }
  const uint64_t limit =
      neg ? uint64_t{1} << 63 : uint64_t{std::numeric_limits<int64_t>::max()};
  if (n > limit) return fail("value out of range");
  return neg ? static_cast<int64_t>(uint64_t{0} - n) : static_cast<int64_t>(n);
}

std::string WithField(absl::string_view field, absl::string_view message) {
  if (field.empty()) return std::string(message);
  return absl::StrCat(field, ": ", message);
}

}  // namespace karpenter::primitives_internal
