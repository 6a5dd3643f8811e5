// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Expected Scale() values for large operands were computed with Go's
// math.Ceil/math.Floor over float64, as GetScaledValueFromIntOrPercent does.

#include "karpenter/intstr.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "absl/status/status.h"
#include "google/protobuf/struct.pb.h"

namespace karpenter {
namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

struct ParseCase {
  std::string input;
  bool is_percent;
  int64_t value;
  std::string canonical;
};

TEST_CASE("intstr: Parse follows Karpenter's Atoi-then-percent rule",
          "[intstr]") {
  const ParseCase cases[] = {
      {"0", false, 0, "0"},
      {"5", false, 5, "5"},
      {"010", false, 10, "10"},
      {"+5", false, 5, "5"},
      {"-3", false, -3, "-3"},
      {"100000", false, 100000, "100000"},
      {"3000000000", false, 3000000000, "3000000000"},  // not wrapped
      {"9223372036854775807", false, kInt64Max, "9223372036854775807"},
      {"-9223372036854775808", false, kInt64Min, "-9223372036854775808"},
      {"0%", true, 0, "0%"},
      {"05%", true, 5, "5%"},
      {"10%", true, 10, "10%"},
      {"100%", true, 100, "100%"},
      {"150%", true, 150, "150%"},
      {"-10%", true, -10, "-10%"},
      {"+5%", true, 5, "5%"},
  };
  for (const ParseCase& c : cases) {
    INFO("input: " << c.input);
    absl::StatusOr<IntOrPercent> v = IntOrPercent::Parse(c.input, "nodes");
    REQUIRE(v.ok());
    CHECK(v->is_percent() == c.is_percent);
    CHECK(v->value() == c.value);
    CHECK(v->ToString() == c.canonical);
  }
}

struct ErrorCase {
  std::string input;
  std::string message;
};

TEST_CASE("intstr: Parse rejects non-integers and bad percentages",
          "[intstr]") {
  const std::string want =
      ": want an integer or a percentage such as \"5\" or \"10%\"";
  const ErrorCase cases[] = {
      {"", R"(budgets[0].nodes: invalid value "")" + want},
      {"abc", R"(budgets[0].nodes: invalid value "abc")" + want},
      {"1.5", R"(budgets[0].nodes: invalid value "1.5")" + want},
      {" 5", R"(budgets[0].nodes: invalid value " 5")" + want},
      {"9223372036854775808",
       R"(budgets[0].nodes: invalid value "9223372036854775808")" + want},
      {"%",
       R"(budgets[0].nodes: invalid value "%": strconv.Atoi: parsing "": invalid syntax)"},
      {"abc%",
       R"(budgets[0].nodes: invalid value "abc%": strconv.Atoi: parsing "abc": invalid syntax)"},
      {"10.5%",
       R"(budgets[0].nodes: invalid value "10.5%": strconv.Atoi: parsing "10.5": invalid syntax)"},
      {"5 %",
       R"(budgets[0].nodes: invalid value "5 %": strconv.Atoi: parsing "5 ": invalid syntax)"},
      {"5%%",
       R"(budgets[0].nodes: invalid value "5%%": strconv.Atoi: parsing "5%": invalid syntax)"},
      {"+%",
       R"(budgets[0].nodes: invalid value "+%": strconv.Atoi: parsing "+": invalid syntax)"},
      {"99999999999999999999%",
       R"(budgets[0].nodes: invalid value "99999999999999999999%": strconv.Atoi: parsing "99999999999999999999": value out of range)"},
      {"99999999999999999999x%",
       R"(budgets[0].nodes: invalid value "99999999999999999999x%": strconv.Atoi: parsing "99999999999999999999x": value out of range)"},
      {"9223372036854775808x%",
       R"(budgets[0].nodes: invalid value "9223372036854775808x%": strconv.Atoi: parsing "9223372036854775808x": invalid syntax)"},
  };
  for (const ErrorCase& c : cases) {
    INFO("input: " << c.input);
    absl::StatusOr<IntOrPercent> v =
        IntOrPercent::Parse(c.input, "budgets[0].nodes");
    REQUIRE_FALSE(v.ok());
    CHECK(v.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(std::string(v.status().message()) == c.message);
  }
}

struct ScaleCase {
  IntOrPercent v;
  int64_t total;
  int64_t up;
  int64_t down;
};

TEST_CASE("intstr: Scale equals GetScaledValueFromIntOrPercent", "[intstr]") {
  const ScaleCase cases[] = {
      // Integers are returned as is, never capped by the total.
      {IntOrPercent::FromInt(5), 3, 5, 5},
      {IntOrPercent::FromInt(0), 10, 0, 0},
      {IntOrPercent::FromInt(-2), 10, -2, -2},
      {IntOrPercent::FromInt(kInt64Max), 0, kInt64Max, kInt64Max},
      // Percentages.
      {IntOrPercent::FromPercent(5), 10, 1, 0},
      {IntOrPercent::FromPercent(50), 3, 2, 1},
      {IntOrPercent::FromPercent(33), 100, 33, 33},
      {IntOrPercent::FromPercent(10), 0, 0, 0},
      {IntOrPercent::FromPercent(0), 100, 0, 0},
      {IntOrPercent::FromPercent(100), 7, 7, 7},
      {IntOrPercent::FromPercent(150), 10, 15, 15},
      {IntOrPercent::FromPercent(1), 1, 1, 0},
      {IntOrPercent::FromPercent(10), 1, 1, 0},
      {IntOrPercent::FromPercent(-10), 10, -1, -1},
      {IntOrPercent::FromPercent(-10), 15, -1, -2},
      {IntOrPercent::FromPercent(50), -3, -1, -2},
      {IntOrPercent::FromPercent(99), 2147483647, 2126008811, 2126008810},
      // Beyond 2^53 the float64 product rounds; Go's results, not exact ones
      // (exact: 46116860141324207 / ...206).
      {IntOrPercent::FromPercent(2147483647), 2147483647, 46116860141324208,
       46116860141324208},
      {IntOrPercent::FromPercent(1), 9007199254740993, 90071992547410,
       90071992547409},
      {IntOrPercent::FromPercent(3), 6004799503160661, 180143985094820,
       180143985094819},
      {IntOrPercent::FromPercent(7), 1317624576693539401, 92233720368547760,
       92233720368547760},
      // -2^63 is exactly representable.
      {IntOrPercent::FromPercent(-100), kInt64Max, kInt64Min, kInt64Min},
  };
  for (const ScaleCase& c : cases) {
    INFO("value: " << c.v.ToString() << " total: " << c.total);
    absl::StatusOr<int64_t> up = c.v.Scale(c.total, /*round_up=*/true);
    absl::StatusOr<int64_t> down = c.v.Scale(c.total, /*round_up=*/false);
    REQUIRE(up.ok());
    REQUIRE(down.ok());
    CHECK(*up == c.up);
    CHECK(*down == c.down);
  }
}

TEST_CASE("intstr: Scale reports int64 overflow instead of clamping",
          "[intstr]") {
  struct Case {
    IntOrPercent v;
    int64_t total;
  };
  const Case cases[] = {
      {IntOrPercent::FromPercent(100), kInt64Max},  // rounds to 2^63
      {IntOrPercent::FromPercent(200), kInt64Max},
      {IntOrPercent::FromPercent(kInt64Max), 100},
      {IntOrPercent::FromPercent(-200), kInt64Max},
  };
  for (const Case& c : cases) {
    INFO("value: " << c.v.ToString() << " total: " << c.total);
    for (bool round_up : {true, false}) {
      absl::StatusOr<int64_t> r = c.v.Scale(c.total, round_up);
      REQUIRE_FALSE(r.ok());
      CHECK(r.status().code() == absl::StatusCode::kOutOfRange);
      CHECK_THAT(std::string(r.status().message()),
                 Catch::Contains(c.v.ToString()));
    }
  }
}

google::protobuf::Value Number(double d) {
  google::protobuf::Value v;
  v.set_number_value(d);
  return v;
}

google::protobuf::Value String(const std::string& s) {
  google::protobuf::Value v;
  v.set_string_value(s);
  return v;
}

TEST_CASE("intstr: FromProtoValue reads Kubernetes IntOrString", "[intstr]") {
  struct Case {
    google::protobuf::Value in;
    IntOrPercent want;
  };
  const Case cases[] = {
      {Number(0), IntOrPercent::FromInt(0)},
      {Number(-0.0), IntOrPercent::FromInt(0)},
      {Number(5), IntOrPercent::FromInt(5)},
      {Number(-1), IntOrPercent::FromInt(-1)},
      {Number(2147483647), IntOrPercent::FromInt(2147483647)},
      {Number(-2147483648.0), IntOrPercent::FromInt(-2147483648LL)},
      {String("50%"), IntOrPercent::FromPercent(50)},
      {String("0%"), IntOrPercent::FromPercent(0)},
      {String("-10%"), IntOrPercent::FromPercent(-10)},
      {String("150%"), IntOrPercent::FromPercent(150)},
  };
  for (const Case& c : cases) {
    INFO("input: " << c.in.ShortDebugString());
    absl::StatusOr<IntOrPercent> v =
        IntOrPercent::FromProtoValue(c.in, "spec.maxUnavailable");
    REQUIRE(v.ok());
    CHECK(*v == c.want);
  }
}

TEST_CASE("intstr: FromProtoValue rejects what Kubernetes rejects",
          "[intstr]") {
  google::protobuf::Value null_value;
  null_value.set_null_value(google::protobuf::NULL_VALUE);
  google::protobuf::Value bool_value;
  bool_value.set_bool_value(true);
  google::protobuf::Value list_value;
  list_value.mutable_list_value();
  struct Case {
    google::protobuf::Value in;
    std::string message;
  };
  const Case cases[] = {
      {String("5"),
       R"(invalid value "5": invalid type: string is not a percentage)"},
      {String(""),
       R"(invalid value "": invalid type: string is not a percentage)"},
      {String("abc%"),
       R"(invalid value "abc%": strconv.Atoi: parsing "abc": invalid syntax)"},
      {String("%"),
       R"(invalid value "%": strconv.Atoi: parsing "": invalid syntax)"},
      {Number(1.5),
       R"(invalid value 1.5: want an integer within int32 or a percentage string)"},
      {Number(2147483648.0),
       R"(invalid value 2147483648: want an integer within int32 or a percentage string)"},
      {Number(-2147483649.0),
       R"(invalid value -2147483649: want an integer within int32 or a percentage string)"},
      {Number(std::nan("")),
       R"(invalid value nan: want an integer within int32 or a percentage string)"},
      {null_value, R"(invalid type: neither int nor percentage (got null))"},
      {bool_value, R"(invalid type: neither int nor percentage (got true))"},
      {list_value, R"(invalid type: neither int nor percentage (got a list))"},
      {google::protobuf::Value(),
       R"(invalid type: neither int nor percentage (got no value))"},
  };
  for (const Case& c : cases) {
    INFO("input: " << c.in.ShortDebugString());
    absl::StatusOr<IntOrPercent> v =
        IntOrPercent::FromProtoValue(c.in, "spec.minAvailable");
    REQUIRE_FALSE(v.ok());
    CHECK(v.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(std::string(v.status().message()) ==
          "spec.minAvailable: " + c.message);
  }
}

TEST_CASE("intstr: default value and equality", "[intstr]") {
  const IntOrPercent zero;
  CHECK_FALSE(zero.is_percent());
  CHECK(zero.value() == 0);
  CHECK(zero == IntOrPercent::FromInt(0));
  CHECK(IntOrPercent::FromInt(5) != IntOrPercent::FromPercent(5));
  CHECK(IntOrPercent::FromPercent(5).ToString() == "5%");
}

}  // namespace
}  // namespace karpenter
