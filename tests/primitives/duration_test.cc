// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Expected values were produced with Go 1.19's time.ParseDuration and
// Duration.String.

#include "karpenter/duration.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace karpenter {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

struct ParseCase {
  std::string input;
  int64_t nanos;
};

TEST_CASE("duration: valid Go durations parse to Go's nanoseconds",
          "[duration]") {
  const ParseCase cases[] = {
      {"0", 0},
      {"+0", 0},
      {"-0", 0},
      {"0s", 0},
      {"-0s", 0},
      {"1ns", 1},
      {"1us", 1000},
      {"1\xC2\xB5s", 1000},  // U+00B5 micro sign
      {"1\xCE\xBCs", 1000},  // U+03BC Greek mu
      {"1ms", 1000000},
      {"1s", 1000000000},
      {"1m", 60000000000},
      {"1h", 3600000000000},
      {"1h30m", 5400000000000},
      {"1.5h", 5400000000000},
      {"-2m", -120000000000},
      {"+1.5m", 90000000000},
      {"-1.5m", -90000000000},
      {"300ms", 300000000},
      {"2h45m30.5s", 9930500000000},
      {".5h", 1800000000000},
      {"1.h", 3600000000000},
      {"1.s", 1000000000},
      {"00001s", 1000000000},
      {"1h1h", 7200000000000},
      {"1.1\xC2\xB5s", 1100},
      {"0h0m0.000000001s", 1},
      {"16m40.000000001s", 1000000000001},
      // Fractions: float64 product truncated toward zero, as in Go.
      {"1.0000000001s", 1000000000},
      {"0.3333333333h", 1199999999880},
      {"0.8361797402186111h", 3010247064787},  // exact: ...786.99
      {"0.49795031940000h", 1792621149839},    // exact: ...840
      {"0.4979503194h", 1792621149840},
      {"0.20639411905m", 12383647143},
      {"0.1ns", 0},
      {"0.5ns", 0},
      {"1.9ns", 1},
      {"0.1h", 360000000000},
      {"0.7h", 2520000000000},
      {"1.3h", 4680000000000},
      {"5.6h", 20160000000000},
      {"100.123456789123456789s", 100123456789},
      {"3.99999999999999999999h", 14400000000000},
      {"4.999999999999999999h", 18000000000000},
      {"0.9999999999999999999999s", 1000000000},
      {"0.000000000000000000000000001h", 0},
      {"1.00000000000000000000000000000000000001s", 1000000000},
      // The int64 limits.
      {"9223372036854775807ns", kMax},
      {"-9223372036854775808ns", kMin},
      {"2562047h47m16.854775807s", kMax},
      {"-2562047h47m16.854775808s", kMin},
  };
  for (const ParseCase& c : cases) {
    INFO("input: " << c.input);
    absl::StatusOr<absl::Duration> d = ParseGoDuration(c.input);
    REQUIRE(d.ok());
    CHECK(absl::ToInt64Nanoseconds(*d) == c.nanos);
    CHECK(*d == absl::Nanoseconds(c.nanos));
  }
}

struct ErrorCase {
  std::string input;
  std::string message;
};

TEST_CASE("duration: invalid Go durations fail with Go's message",
          "[duration]") {
  const ErrorCase cases[] = {
      {"", R"(time: invalid duration "")"},
      {"+", R"(time: invalid duration "+")"},
      {"-", R"(time: invalid duration "-")"},
      {".", R"(time: invalid duration ".")"},
      {".s", R"(time: invalid duration ".s")"},
      {"-.s", R"(time: invalid duration "-.s")"},
      {" 1h", R"(time: invalid duration " 1h")"},
      {"1", R"(time: missing unit in duration "1")"},
      {"9223372036854775807",
       R"(time: missing unit in duration "9223372036854775807")"},
      {"1.5.5s", R"(time: missing unit in duration "1.5.5s")"},
      {"1..s", R"(time: missing unit in duration "1..s")"},
      {"1d", R"(time: unknown unit "d" in duration "1d")"},
      {"1H", R"(time: unknown unit "H" in duration "1H")"},
      {"1 h", R"(time: unknown unit " h" in duration "1 h")"},
      {"1h ", R"(time: unknown unit "h " in duration "1h ")"},
      {"1h-1m", R"(time: unknown unit "h-" in duration "1h-1m")"},
      {"1e3s", R"(time: unknown unit "e" in duration "1e3s")"},
      {"1x", R"(time: unknown unit "x" in duration "1x")"},
      {"1\xC2\xB5", R"(time: unknown unit "\xc2\xb5" in duration "1\xc2\xb5")"},
      {"1\xB5s", R"(time: unknown unit "\xb5s" in duration "1\xb5s")"},
      // Overflow of int64 nanoseconds.
      {"9223372036854775808ns",
       R"(time: invalid duration "9223372036854775808ns")"},
      {"-9223372036854775809ns",
       R"(time: invalid duration "-9223372036854775809ns")"},
      {"12345678901234567890ns",
       R"(time: invalid duration "12345678901234567890ns")"},
      {"2562047h47m16.854775808s",
       R"(time: invalid duration "2562047h47m16.854775808s")"},
      {"2562048h", R"(time: invalid duration "2562048h")"},
      {"9223372036854775808ns1ns",
       R"(time: invalid duration "9223372036854775808ns1ns")"},
      // Go wraps this sum to 0; we refuse it (documented difference).
      {"9223372036854775808ns9223372036854775808ns",
       R"(time: invalid duration "9223372036854775808ns9223372036854775808ns")"},
  };
  for (const ErrorCase& c : cases) {
    INFO("input: " << c.input);
    absl::StatusOr<absl::Duration> d = ParseGoDuration(c.input);
    REQUIRE_FALSE(d.ok());
    CHECK(d.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(std::string(d.status().message()) == c.message);
  }
}

struct FormatCase {
  int64_t nanos;
  std::string text;
};

TEST_CASE("duration: FormatGoDuration matches Go's Duration.String",
          "[duration]") {
  const FormatCase cases[] = {
      {0, "0s"},
      {1, "1ns"},
      {999, "999ns"},
      {1000, "1\xC2\xB5s"},
      {1100, "1.1\xC2\xB5s"},
      {1500, "1.5\xC2\xB5s"},
      {999999, "999.999\xC2\xB5s"},
      {1000000, "1ms"},
      {300000000, "300ms"},
      {999999999, "999.999999ms"},
      {1000000000, "1s"},
      {1000000001, "1.000000001s"},
      {59999999999, "59.999999999s"},
      {60000000000, "1m0s"},
      {3600000000000, "1h0m0s"},
      {5400000000000, "1h30m0s"},
      {9930000000000, "2h45m30s"},
      {3723004005006, "1h2m3.004005006s"},
      {-1, "-1ns"},
      {-1500, "-1.5\xC2\xB5s"},
      {-120000000000, "-2m0s"},
      {kMax, "2562047h47m16.854775807s"},
      {kMin, "-2562047h47m16.854775808s"},
  };
  for (const FormatCase& c : cases) {
    INFO("nanos: " << c.nanos);
    CHECK(FormatGoDuration(absl::Nanoseconds(c.nanos)) == c.text);
  }
}

TEST_CASE("duration: FormatGoDuration outside Go's range", "[duration]") {
  CHECK(FormatGoDuration(absl::InfiniteDuration()) == "inf");
  CHECK(FormatGoDuration(-absl::InfiniteDuration()) == "-inf");
  // Sub-nanosecond parts are truncated toward zero.
  CHECK(FormatGoDuration(absl::Nanoseconds(0.25)) == "0s");
  CHECK(FormatGoDuration(-absl::Nanoseconds(0.25)) == "0s");
  CHECK(FormatGoDuration(absl::Nanoseconds(1.75)) == "1ns");
  CHECK(FormatGoDuration(-absl::Nanoseconds(1.75)) == "-1ns");
  // Beyond int64 nanoseconds: same layout, more hours.
  CHECK(FormatGoDuration(absl::Hours(3000000)) == "3000000h0m0s");
  CHECK(FormatGoDuration(-absl::Hours(3000000) - absl::Milliseconds(1)) ==
        "-3000000h0m0.001s");
  const absl::Duration most_negative =
      absl::Seconds(std::numeric_limits<int64_t>::min());
  CHECK(FormatGoDuration(most_negative) == "-2562047788015215h30m8s");
}

TEST_CASE("duration: parse and format round-trip", "[duration]") {
  for (const char* text :
       {"1h30m0s", "300ms", "1.5\xC2\xB5s", "-2m0s", "2h45m30.5s", "1ns",
        "2562047h47m16.854775807s", "-2562047h47m16.854775808s"}) {
    INFO("text: " << text);
    absl::StatusOr<absl::Duration> d = ParseGoDuration(text);
    REQUIRE(d.ok());
    CHECK(FormatGoDuration(*d) == text);
  }
}

TEST_CASE("duration: NillableDuration accepts exactly Never", "[duration]") {
  absl::StatusOr<std::optional<absl::Duration>> never =
      ParseNillableDuration("Never", "spec.template.spec.expireAfter");
  REQUIRE(never.ok());
  CHECK_FALSE(never->has_value());

  absl::StatusOr<std::optional<absl::Duration>> d =
      ParseNillableDuration("720h", "spec.template.spec.expireAfter");
  REQUIRE(d.ok());
  REQUIRE(d->has_value());
  CHECK(**d == absl::Hours(720));

  absl::StatusOr<std::optional<absl::Duration>> zero =
      ParseNillableDuration("0s");
  REQUIRE(zero.ok());
  REQUIRE(zero->has_value());
  CHECK(**zero == absl::ZeroDuration());

  for (const char* bad : {"never", "NEVER", " Never", "Never ", "", "1d"}) {
    INFO("input: " << bad);
    absl::StatusOr<std::optional<absl::Duration>> r =
        ParseNillableDuration(bad, "spec.disruption.consolidateAfter");
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(r.status().message()),
               Catch::StartsWith("spec.disruption.consolidateAfter: time: "));
  }
  absl::StatusOr<std::optional<absl::Duration>> no_field =
      ParseNillableDuration("never");
  REQUIRE_FALSE(no_field.ok());
  CHECK(std::string(no_field.status().message()) ==
        R"(time: invalid duration "never")");
}

}  // namespace
}  // namespace karpenter
