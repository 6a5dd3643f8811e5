// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Expected values follow k8s.io/apimachinery resource.ParseQuantity followed
// by Quantity.MilliValue(), including its rounding of negative values.

#include "karpenter/quantity.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <string>

#include "absl/status/status.h"

namespace karpenter {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

struct Case {
  std::string input;
  int64_t milli;
};

TEST_CASE("quantity: valid quantities in milli-units", "[quantity]") {
  const Case cases[] = {
      {"0", 0},
      {"1", 1000},
      {"+1", 1000},
      {"-1", -1000},
      {"0.5", 500},
      {".5", 500},
      {"5.", 5000},
      {"007", 7000},
      {"100m", 100},
      {"1.5", 1500},
      {"250m", 250},
      {"1k", 1000000},
      {"1M", 1000000000},
      {"1G", 1000000000000},
      {"1T", 1000000000000000},
      {"1P", 1000000000000000000},
      {"0.001E", 1000000000000000000},
      {"1Ki", 1024000},
      {"1.5Ki", 1536000},
      {"1Mi", 1048576000},
      {"1Gi", 1073741824000},
      {"1Ti", 1099511627776000},
      {"1Pi", 1125899906842624000},
      {"0.5Ki", 512000},
      {"1e3", 1000000},
      {"1E3", 1000000},
      {"1e+3", 1000000},
      {"1e-3", 1},
      {"1.5e3", 1500000},
      {"1e0", 1000},
      {"1e03", 1000000},
      {"1u", 1},
      {"1n", 1},
      {"1000000n", 1},
      {"1000001n", 2},
      {"0.0001", 1},
      {"1.0001", 1001},
      {"1.5m", 2},
      {"0.9n", 1},
      {"9223372036854775.807", kMax},
      {"9223372036854775807m", kMax},
      {"-9223372036854775.808", kMin},
      {"-9223372036854775808m", kMin},
      {"8Pi", 9007199254740992000},
      {"-8Pi", -9007199254740992000},
      // Negatives in the int64 fast form round away from zero.
      {"-1n", -1},
      {"-1.5m", -2},
      {"-0.0001", -1},
      {"-1u", -1},
      // Negatives stored as a big decimal: truncated, plus one when a
      // remainder exists (scaledValue), so tiny ones become +1.
      {"-1e-10", 1},
      {"-1.5e-10", 1},
      {"-0.0000000001", 1},
      {"-1.0000000001", -999},
      {"-1234567890123456789n", -1234567890122},
      // Reference quirks: no digits means zero; int32 exponent wrap.
      {"-", 0},
      {"+", 0},
      {".", 0},
      {"-.", 0},
      {"m", 0},
      {"e3", 0},
      {"Ki", 0},
      {"-0", 0},
      {"000", 0},
      {"0.000", 0},
      {"0e-20", 0},
      {"1e4294967296", 1000},
      {"1e-4294967296", 1000},
      {"1e4294967295", 100},  // int32(4294967295) == -1
  };
  for (const Case& c : cases) {
    INFO("input: " << c.input);
    absl::StatusOr<int64_t> milli = ParseQuantityMilli(c.input, "cpu");
    REQUIRE(milli.ok());
    CHECK(*milli == c.milli);
  }
}

struct ErrorCase {
  std::string input;
  std::string reason;
};

TEST_CASE("quantity: malformed quantities fail like ParseQuantity",
          "[quantity]") {
  const std::string format =
      "quantities must match the regular expression "
      "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  const std::string suffix = "unable to parse quantity's suffix";
  const std::string numeric = "unable to parse numeric part of quantity";
  const ErrorCase cases[] = {
      {"", format},
      {" 1", format},
      {"1 ", format},
      {"abc", format},
      {"1.2.3", format},
      {"1kb", format},
      {"1Gib", format},
      {"1e3.5", format},
      {"1e+-3", format},
      {"1KI", format},
      {"1,5", format},
      {"1\xC2\xB5", format},
      {"1Ki5", suffix},
      {"1e", suffix},
      {"1E+", suffix},
      {"1ee3", suffix},
      {"1ki", suffix},
      {"--1", suffix},
      {"1K", suffix},
      {"1i", suffix},
      {"1mi", suffix},
      {"1e9223372036854775808", suffix},
      {"1-", suffix},
      {"Pi", numeric},
      {".Pi", numeric},
      {".e-10", numeric},
      {"-.0e-10", std::string()},  // has a digit: valid, see below
  };
  for (const ErrorCase& c : cases) {
    if (c.reason.empty()) continue;
    INFO("input: " << c.input);
    absl::StatusOr<int64_t> milli = ParseQuantityMilli(c.input, "memory");
    REQUIRE_FALSE(milli.ok());
    CHECK(milli.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(milli.status().message()),
               Catch::StartsWith("memory: invalid quantity \"") &&
                   Catch::EndsWith("\": " + c.reason));
  }
  absl::StatusOr<int64_t> zero = ParseQuantityMilli("-.0e-10");
  REQUIRE(zero.ok());
  CHECK(*zero == 0);
}

TEST_CASE("quantity: error messages quote the input", "[quantity]") {
  absl::StatusOr<int64_t> r = ParseQuantityMilli("1\"x\x01", "limits.cpu");
  REQUIRE_FALSE(r.ok());
  CHECK(std::string(r.status().message()) ==
        "limits.cpu: invalid quantity \"1\\\"x\\x01\": quantities must "
        "match the regular expression "
        "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  absl::StatusOr<int64_t> no_field = ParseQuantityMilli("1kb");
  REQUIRE_FALSE(no_field.ok());
  CHECK_THAT(std::string(no_field.status().message()),
             Catch::StartsWith("invalid quantity \"1kb\": "));
}

TEST_CASE("quantity: values beyond int64 milli-units are OutOfRange",
          "[quantity]") {
  for (const char* input :
       {"9223372036854775.808", "9223372036854776", "-9223372036854775.809",
        "9223372036854775808m", "1E", "2E", "1Ei", "8Ei", "-8Ei", "1e20",
        "1e2147483647", "-1e2147483647", "100000000000000000000000", "10Pi",
        "9007199254740993Ki"}) {
    INFO("input: " << input);
    absl::StatusOr<int64_t> milli = ParseQuantityMilli(input, "memory");
    REQUIRE_FALSE(milli.ok());
    CHECK(milli.status().code() == absl::StatusCode::kOutOfRange);
    CHECK_THAT(
        std::string(milli.status().message()),
        Catch::StartsWith(std::string("memory: quantity \"") + input + "\""));
  }
}

TEST_CASE("quantity: long inputs stay exact", "[quantity]") {
  // 60 significant digits, far beyond int64, scaled back into range.
  const std::string digits(60, '9');
  absl::StatusOr<int64_t> small = ParseQuantityMilli(digits + "e-60");
  REQUIRE(small.ok());
  CHECK(*small == 1000);  // 0.999...9 rounds up to 1 unit
  absl::StatusOr<int64_t> exact =
      ParseQuantityMilli("1" + std::string(40, '0') + "e-40");
  REQUIRE(exact.ok());
  CHECK(*exact == 1000);
  absl::StatusOr<int64_t> fraction =
      ParseQuantityMilli("0." + std::string(1000, '0') + "1");
  REQUIRE(fraction.ok());
  CHECK(*fraction == 1);
  absl::StatusOr<int64_t> binary =
      ParseQuantityMilli("0." + std::string(30, '0') + "1Ei");
  REQUIRE(binary.ok());
  CHECK(*binary == 1);
}

}  // namespace
}  // namespace karpenter
