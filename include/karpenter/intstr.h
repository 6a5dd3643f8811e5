// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// IntOrPercent: an absolute count or a percentage of a total, as used by
// NodePool disruption budgets (`nodes: "5"` or `nodes: "10%"`) and by
// PodDisruptionBudget `minAvailable`/`maxUnavailable`.
//
// Ports two Go rules:
//   * Karpenter's string form, `GetIntStrFromValue` in
//     pkg/apis/v1/nodepool.go: a string that `strconv.Atoi` accepts is an
//     integer, anything else must be a percentage.
//   * Kubernetes' `intstr.GetScaledValueFromIntOrPercent` and
//     `getIntOrPercentValueSafely` in
//     k8s.io/apimachinery/pkg/util/intstr/intstr.go: the JSON form (a number
//     or a "N%" string) and the scaling of a percentage against a total.
//
// Integers are held as int64. Deliberate difference: Karpenter passes the
// `Atoi` result (a 64-bit Go int) through `intstr.FromInt`, which truncates it
// to int32 (logging an error), so `nodes: "3000000000"` becomes -1294967296
// there. `Parse` keeps the exact value instead of wrapping it. Every value a
// budget can sensibly hold (below 2^31) behaves identically.
//
// Thread-safety: IntOrPercent is an immutable value type; all functions are
// safe to call concurrently.

#ifndef KARPENTER_INTSTR_H_
#define KARPENTER_INTSTR_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/struct.pb.h"

namespace karpenter {

class IntOrPercent {
 public:
  // The integer 0.
  IntOrPercent() = default;

  // An absolute integer `v`.
  static IntOrPercent FromInt(int64_t v);

  // A percentage `p` ("p%"). Any int64 is accepted, negative and above 100
  // included, as Kubernetes' Atoi-based parsing does.
  static IntOrPercent FromPercent(int64_t p);

  // Parses Karpenter's string form (NodePool budget `nodes`). If Go's
  // `strconv.Atoi` accepts `s` (optional sign, ASCII digits, int64 range) it
  // is an integer: "010" is 10, "+5" is 5, "-3" is -3. Otherwise `s` must end
  // in '%' and `Atoi` must accept the rest: "10%", "-10%", "+5%", "150%".
  // No whitespace is allowed anywhere.
  //
  // Errors: `kInvalidArgument` naming `field` (when not empty) and quoting
  // `s`, e.g. for "", "abc", "%", "abc%", "10.5%", "5 %", "5%%" and integers
  // outside int64.
  static absl::StatusOr<IntOrPercent> Parse(absl::string_view s,
                                            absl::string_view field = "");

  // Reads a Kubernetes IntOrString decoded from JSON into a
  // google.protobuf.Value, with the rules of `getIntOrPercentValueSafely`:
  //   * a number is an integer; it must be integral and within int32 (the
  //     Go field is an int32, so JSON decoding rejects anything else);
  //   * a string must be a percentage "N%" with `Atoi`-valid N; a bare "5"
  //     is an error ("invalid type: string is not a percentage");
  //   * any other kind (null, bool, list, struct, unset) is an error.
  // Errors: `kInvalidArgument` naming `field` and the offending value.
  static absl::StatusOr<IntOrPercent> FromProtoValue(
      const google::protobuf::Value& v, absl::string_view field);

  bool is_percent() const { return is_percent_; }
  // The integer, or the percentage number (10 for "10%").
  int64_t value() const { return value_; }

  // Equals Kubernetes `GetScaledValueFromIntOrPercent(v, total, round_up)`:
  // an integer is returned unchanged (not capped by `total`); a percentage p
  // gives ceil(p * total / 100) when `round_up`, else floor(...).
  //
  // The percentage is computed exactly as the reference does, in IEEE
  // binary64: `ceil(double(p) * double(total) / 100)`. While |p * total| <=
  // 2^53 this equals exact integer arithmetic; beyond that the double
  // product rounds first, and this function reproduces Go's result (e.g. 2^31-1
  // percent of 2^31-1 is 46116860141324208, where exact arithmetic gives
  // ...207).
  //
  // Errors: `kOutOfRange` if the result does not fit int64 (Go would
  // return an implementation-defined value), message quoting the value and
  // the total. Never clamps.
  absl::StatusOr<int64_t> Scale(int64_t total, bool round_up) const;

  // "5" or "10%" (canonical: "+5%" parses to a value that prints "5%").
  std::string ToString() const;

  friend bool operator==(const IntOrPercent& a, const IntOrPercent& b) {
    return a.value_ == b.value_ && a.is_percent_ == b.is_percent_;
  }
  friend bool operator!=(const IntOrPercent& a, const IntOrPercent& b) {
    return !(a == b);
  }

 private:
  IntOrPercent(int64_t value, bool is_percent)
      : value_(value), is_percent_(is_percent) {}

  int64_t value_ = 0;
  bool is_percent_ = false;
};

}  // namespace karpenter

#endif  // KARPENTER_INTSTR_H_
