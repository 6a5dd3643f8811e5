// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/intstr.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/struct.pb.h"
#include "primitives/go_compat.h"

namespace karpenter {
namespace {

using primitives_internal::GoAtoi;
using primitives_internal::GoTimeQuote;
using primitives_internal::QuoteStyle;
using primitives_internal::WithField;

// Parses "N%" (the percentage branch shared by both string forms).
absl::StatusOr<IntOrPercent> ParsePercent(absl::string_view s,
                                          absl::string_view field) {
  const absl::StatusOr<int64_t> p =
      GoAtoi(s.substr(0, s.size() - 1), QuoteStyle::kTime);
  if (!p.ok()) {
    return absl::InvalidArgumentError(
        WithField(field, absl::StrCat("invalid value ", GoTimeQuote(s), ": ",
                                      p.status().message())));
  }
  return IntOrPercent::FromPercent(*p);
}

std::string KindName(const google::protobuf::Value& v) {
  switch (v.kind_case()) {
    case google::protobuf::Value::kNullValue:
      return "null";
    case google::protobuf::Value::kBoolValue:
      return v.bool_value() ? "true" : "false";
    case google::protobuf::Value::kStructValue:
      return "an object";
    case google::protobuf::Value::kListValue:
      return "a list";
    default:
      return "no value";
  }
}

}  // namespace

IntOrPercent IntOrPercent::FromInt(int64_t v) { return IntOrPercent(v, false); }

IntOrPercent IntOrPercent::FromPercent(int64_t p) {
  return IntOrPercent(p, true);
}

absl::StatusOr<IntOrPercent> IntOrPercent::Parse(absl::string_view s,
                                                 absl::string_view field) {
  const absl::StatusOr<int64_t> v = GoAtoi(s, QuoteStyle::kTime);
  if (v.ok()) return FromInt(*v);
  if (!absl::EndsWith(s, "%")) {
    return absl::InvalidArgumentError(WithField(
        field, absl::StrCat("invalid value ", GoTimeQuote(s),
                            ": want an integer or a percentage such as "
                            "\"5\" or \"10%\"")));
  }
  return ParsePercent(s, field);
}

absl::StatusOr<IntOrPercent> IntOrPercent::FromProtoValue(
    const google::protobuf::Value& v, absl::string_view field) {
  if (v.kind_case() == google::protobuf::Value::kNumberValue) {
    const double d = v.number_value();
    // The Go field is an int32: JSON decoding rejects fractions and values
    // outside its range instead of rounding or wrapping them.
    if (!(d >= std::numeric_limits<int32_t>::min() &&
          d <= std::numeric_limits<int32_t>::max() && std::trunc(d) == d)) {
      return absl::InvalidArgumentError(WithField(
          field, absl::StrFormat(
                     "invalid value %.17g: want an integer within int32 or "
                     "a percentage string",
                     d)));
    }
    return FromInt(static_cast<int64_t>(d));
  }
  if (v.kind_case() == google::protobuf::Value::kStringValue) {
    const std::string& s = v.string_value();
    if (!absl::EndsWith(s, "%")) {
      return absl::InvalidArgumentError(WithField(
          field, absl::StrCat("invalid value ", GoTimeQuote(s),
                              ": invalid type: string is not a percentage")));
    }
    return ParsePercent(s, field);
  }
  return absl::InvalidArgumentError(
      WithField(field, absl::StrCat("invalid type: neither int nor percentage "
                                    "(got ",
                                    KindName(v), ")")));
}

absl::StatusOr<int64_t> IntOrPercent::Scale(int64_t total,
                                            bool round_up) const {
  if (!is_percent_) return value_;
  // Go: int(math.Ceil(float64(value) * (float64(total)) / 100)), evaluated
  // left to right in float64 (go_compat.h asserts that double matches it).
  const double product =
      static_cast<double>(value_) * static_cast<double>(total) / 100.0;
  const double rounded = round_up ? std::ceil(product) : std::floor(product);
  // [-2^63, 2^63) is exactly the set of doubles that convert to int64.
  constexpr double kTwoTo63 = 9223372036854775808.0;
  if (!(rounded >= -kTwoTo63 && rounded < kTwoTo63)) {
    return absl::OutOfRangeError(absl::StrCat("percentage \"", ToString(),
                                              "\" of ", total,
                                              " does not fit in int64"));
  }
  return static_cast<int64_t>(rounded);
}

std::string IntOrPercent::ToString() const {
  if (is_percent_) return absl::StrCat(value_, "%");
  return absl::StrCat(value_);
}

}  // namespace karpenter
