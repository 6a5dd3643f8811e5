// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Tests of the internal Go-compatibility helpers. Expected texts were
// produced with Go 1.19 (strconv.Atoi, strconv.Quote via %q, and the errors
// of time.ParseDuration for time.quote).

#include "primitives/go_compat.h"

#include <catch2/catch.hpp>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace karpenter::primitives_internal {
namespace {

struct AtoiOk {
  std::string input;
  int64_t value;
};

TEST_CASE("go_compat: GoAtoi accepts what strconv.Atoi accepts",
          "[go_compat]") {
  const AtoiOk cases[] = {
      {"0", 0},
      {"+7", 7},
      {"-7", -7},
      {"007", 7},
      {"-0", 0},
      {"9223372036854775807", std::numeric_limits<int64_t>::max()},
      {"-9223372036854775808", std::numeric_limits<int64_t>::min()},
  };
  for (const AtoiOk& c : cases) {
    INFO("input: " << c.input);
    const absl::StatusOr<int64_t> v = GoAtoi(c.input, QuoteStyle::kStrconv);
    REQUIRE(v.ok());
    CHECK(*v == c.value);
  }
}

struct AtoiError {
  std::string input;
  std::string message;
};

TEST_CASE("go_compat: GoAtoi rejects with strconv.Atoi's message",
          "[go_compat]") {
  const AtoiError cases[] = {
      {"", R"(strconv.Atoi: parsing "": invalid syntax)"},
      {"+", R"(strconv.Atoi: parsing "+": invalid syntax)"},
      {"-", R"(strconv.Atoi: parsing "-": invalid syntax)"},
      {" 1", R"(strconv.Atoi: parsing " 1": invalid syntax)"},
      {"1_000", R"(strconv.Atoi: parsing "1_000": invalid syntax)"},
      {"0x1f", R"(strconv.Atoi: parsing "0x1f": invalid syntax)"},
      {"9223372036854775808",
       R"(strconv.Atoi: parsing "9223372036854775808": value out of range)"},
      {"-9223372036854775809",
       R"(strconv.Atoi: parsing "-9223372036854775809": value out of range)"},
      // Go's ParseUint stops at the uint64 overflow, before the 'x'.
      {"18446744073709551616x",
       R"(strconv.Atoi: parsing "18446744073709551616x": value out of range)"},
      {"18446744073709551615x",
       R"(strconv.Atoi: parsing "18446744073709551615x": invalid syntax)"},
  };
  for (const AtoiError& c : cases) {
    INFO("input: " << c.input);
    const absl::StatusOr<int64_t> v = GoAtoi(c.input, QuoteStyle::kStrconv);
    REQUIRE_FALSE(v.ok());
    CHECK(v.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(v.status().message() == c.message);
  }
}

TEST_CASE("go_compat: GoAtoi quotes the input in the requested style",
          "[go_compat]") {
  const absl::StatusOr<int64_t> strconv_style =
      GoAtoi("\xC3\xA9\n", QuoteStyle::kStrconv);
  const absl::StatusOr<int64_t> time_style =
      GoAtoi("\xC3\xA9\n", QuoteStyle::kTime);
  REQUIRE_FALSE(strconv_style.ok());
  REQUIRE_FALSE(time_style.ok());
  CHECK(strconv_style.status().message() ==
        "strconv.Atoi: parsing \"\xC3\xA9\\n\": invalid syntax");
  CHECK(time_style.status().message() ==
        R"(strconv.Atoi: parsing "\xc3\xa9\x0a": invalid syntax)");
}

struct QuoteCase {
  std::string input;
  std::string quoted;
};

TEST_CASE("go_compat: GoTimeQuote matches time.quote", "[go_compat]") {
  const QuoteCase cases[] = {
      {"", R"("")"},
      {"1h", R"("1h")"},
      {"\"\\", R"("\"\\")"},
      {"\n", R"("\x0a")"},
      {"\xC3\xA9", R"("\xc3\xa9")"},
      {"\xE2\x80\xA8", R"("\xe2\x80\xa8")"},
      {"\xFF", R"("\xff")"},
      {"\x7F", "\"\x7F\""},  // DEL is neither a control nor non-ASCII there.
  };
  for (const QuoteCase& c : cases) {
    INFO("input: " << c.input);
    CHECK(GoTimeQuote(c.input) == c.quoted);
  }
}

TEST_CASE("go_compat: GoStrconvQuote matches strconv.Quote", "[go_compat]") {
  const QuoteCase cases[] = {
      {"", R"("")"},
      {"abc", R"("abc")"},
      {"\"\\", R"("\"\\")"},
      {"\a\b\f\n\r\t\v\x01", R"("\a\b\f\n\r\t\v\x01")"},
      {"\x7F", R"("\x7f")"},
      {"\xFF", R"("\xff")"},
      {"\xC3\xA9", "\"\xC3\xA9\""},  // printable UTF-8 is kept
      {"a\xE2\x80\xA8", R"("a\u2028")"},
      {"\xC2\xA0", R"("\u00a0")"},
      {"\xC2\x85", R"("\u0085")"},
  };
  for (const QuoteCase& c : cases) {
    INFO("input: " << c.input);
    CHECK(GoStrconvQuote(c.input) == c.quoted);
  }
}

struct RuneCase {
  std::string input;
  char32_t rune;
  size_t width;
};

TEST_CASE("go_compat: DecodeRune matches utf8.DecodeRuneInString",
          "[go_compat]") {
  const RuneCase cases[] = {
      {"a", 'a', 1},
      {"\xC3\xA9", 0xE9, 2},
      {"\xF0\x9F\x98\x80", 0x1F600, 4},
      {"\xC0\xAF", kRuneError, 1},          // overlong
      {"\xE0\x80\x80", kRuneError, 1},      // overlong
      {"\xED\xA0\x80", kRuneError, 1},      // surrogate
      {"\xF4\x90\x80\x80", kRuneError, 1},  // above U+10FFFF
      {"\xE2\x82", kRuneError, 1},          // truncated
      {"\xEF\xBF\xBD", kRuneError, 3},      // a real U+FFFD
  };
  for (const RuneCase& c : cases) {
    INFO("input: " << c.input);
    size_t width = 0;
    CHECK(DecodeRune(c.input, 0, &width) == c.rune);
    CHECK(width == c.width);
  }
}

TEST_CASE("go_compat: IsGoSpace matches unicode.IsSpace", "[go_compat]") {
  for (char32_t r : {U' ', U'\t', U'\n', U'\v', U'\f', U'\r', U'\u0085',
                     U'\u00A0', U'\u1680', U'\u2000', U'\u200A', U'\u2028',
                     U'\u2029', U'\u202F', U'\u205F', U'\u3000'}) {
    INFO("rune: " << static_cast<uint32_t>(r));
    CHECK(IsGoSpace(r));
  }
  for (char32_t r : {U'a', U'\0', U'\u200B', U'\u180E', U'\uFEFF'}) {
    INFO("rune: " << static_cast<uint32_t>(r));
    CHECK_FALSE(IsGoSpace(r));
  }
}

TEST_CASE("go_compat: WithField prefixes only a non-empty field",
          "[go_compat]") {
  CHECK(WithField("spec.x", "bad") == "spec.x: bad");
  CHECK(WithField("", "bad") == "bad");
}

}  // namespace
}  // namespace karpenter::primitives_internal
