// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Internal: the CRD patterns and CEL helpers the validators share (and the
// one home of the NodePool CRD patterns: budget/disruption_spec.cc uses the
// budget, duration and schedule matchers), each matching exactly what its
// comment quotes (OpenAPI `pattern` is an unanchored RE2 search; the anchors
// are the pattern's own). Hand-written matchers, linear in the input, so no
// input can make them backtrack.
//
// Thread-safety: pure functions.

#ifndef KARPENTER_SRC_VALIDATION_PATTERNS_H_
#define KARPENTER_SRC_VALIDATION_PATTERNS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "karpenter/validation.h"

namespace karpenter::validation::internal {

// Collects the errors of one object.
class Errors {
 public:
  Errors(std::string api_version, std::string kind, std::string object)
      : api_version_(std::move(api_version)),
        kind_(std::move(kind)),
        object_(std::move(object)) {}

  void Add(std::string field, std::string problem, absl::string_view value) {
    errors_.push_back(FieldError{api_version_, kind_, object_, std::move(field),
                                 std::move(problem), std::string(value)});
  }
  std::vector<FieldError> Take() { return std::move(errors_); }

 private:
  std::string api_version_;
  std::string kind_;
  std::string object_;
  std::vector<FieldError> errors_;
};

// `value` in double quotes with Go-style escapes; values over 80 bytes are
// cut and followed by their size.
std::string QuoteValue(absl::string_view value);

// `^((100|[0-9]{1,2})%|[0-9]+)$` (budget nodes).
bool MatchesBudgetNodes(absl::string_view s);
// `^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$` (budget duration).
bool MatchesBudgetDuration(absl::string_view s);
// v1 `^(([0-9]+(s|m|h))+|Never)$` (consolidateAfter, expireAfter).
bool MatchesNillableDurationV1(absl::string_view s);
// v1beta1 `^(([0-9]+(s|m|h))+)|(Never)$`: a prefix `[0-9]+(s|m|h)` or a
// suffix "Never" (the alternation binds the anchors to one side each).
bool MatchesNillableDurationV1Beta1(absl::string_view s);
// `^([0-9]+(s|m|h))+$` (terminationGracePeriod).
bool MatchesDuration(absl::string_view s);
// The budget schedule pattern
// `^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|
//  ((.+)\s(.+)\s(.+)\s(.+)\s(.+))$`.
bool MatchesSchedule(absl::string_view s);
// `^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*(\/))?
//  ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$` (requirement and taint keys,
// taint values).
bool MatchesQualifiedKey(absl::string_view s);
// `^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$` (label values).
bool MatchesLabelValue(absl::string_view s);
// The quantity pattern `^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))
// (([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`.
bool MatchesQuantity(absl::string_view s);
// A DNS-1123 subdomain (object names): at most 253 characters, dot-separated
// labels of [a-z0-9-] starting and ending with [a-z0-9].
bool IsDns1123Subdomain(absl::string_view s);
// ObjectMeta validation of `metadata.name`: name or generateName is
// required; a name must be a DNS-1123 subdomain. Adds the error to `errors`.
void CheckObjectName(const v1::ObjectMeta& meta, Errors& errors);
// CEL `int(s)` succeeds (strconv.ParseInt base 10: optional sign, digits,
// within int64) with a value >= 0.
bool IsNonNegativeCelInt(absl::string_view s);
// CEL `x.find("^([^/]+)")`: the text before the first '/' (all of `s` when
// there is none; "" when `s` starts with '/').
absl::string_view LabelDomain(absl::string_view s);

}  // namespace karpenter::validation::internal

#endif  // KARPENTER_SRC_VALIDATION_PATTERNS_H_
