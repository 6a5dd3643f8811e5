// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/selector.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace karpenter {
namespace {

using Operator = LabelSelector::Operator;
using Requirement = LabelSelector::Requirement;

// Limits from k8s.io/apimachinery/pkg/util/validation.
constexpr size_t kMaxNameLength = 63;
constexpr size_t kMaxPrefixLength = 253;
constexpr size_t kMaxValueLength = 63;

// Reasons are worded as Kubernetes words them, so users can search for them.
constexpr absl::string_view kTooManySlashes =
    "a qualified name must consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character, with an "
    "optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
constexpr absl::string_view kEmptyPrefix = "prefix part must be non-empty";
constexpr absl::string_view kLongPrefix =
    "prefix part must be no more than 253 characters";
constexpr absl::string_view kBadPrefix =
    "prefix part a lowercase RFC 1123 subdomain must consist of lower case "
    "alphanumeric characters, '-' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'example.com')";
constexpr absl::string_view kEmptyName = "name part must be non-empty";
constexpr absl::string_view kLongName =
    "name part must be no more than 63 characters";
constexpr absl::string_view kBadName =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and "
    "must start and end with an alphanumeric character (e.g. 'MyName', "
    "'my.name' or '123-abc')";
constexpr absl::string_view kLongValue = "must be no more than 63 characters";
constexpr absl::string_view kBadValue =
    "a valid label must be an empty string or consist of alphanumeric "
    "characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyValue', 'my_value' or '12345')";

bool IsAsciiAlnum(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c));
}

// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`, checked by hand: std::regex is
// slow and recursive on long input.
bool IsQualifiedNamePart(absl::string_view s) {
  if (s.empty() || !IsAsciiAlnum(s.front()) || !IsAsciiAlnum(s.back())) {
    return false;
  }
  return std::all_of(s.begin(), s.end(), [](char c) {
    return IsAsciiAlnum(c) || c == '-' || c == '_' || c == '.';
  });
}

bool IsLowerAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

// One DNS-1123 label: `[a-z0-9]([-a-z0-9]*[a-z0-9])?`.
bool IsDns1123Label(absl::string_view s) {
  if (s.empty() || !IsLowerAlnum(s.front()) || !IsLowerAlnum(s.back())) {
    return false;
  }
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return IsLowerAlnum(c) || c == '-'; });
}

// Dot-separated DNS-1123 labels; the length limit is checked by the caller.
bool IsDns1123Subdomain(absl::string_view s) {
  while (true) {
    const size_t dot = s.find('.');
    if (!IsDns1123Label(s.substr(0, dot))) return false;
    if (dot == absl::string_view::npos) return true;
    s.remove_prefix(dot + 1);
  }
}

// Returns why `key` is not a qualified name, or "" if it is one. Like
// IsQualifiedName, but only the first reason.
absl::string_view LabelKeyProblem(absl::string_view key) {
  absl::string_view name = key;
  const size_t slash = key.find('/');
  if (slash != absl::string_view::npos) {
    if (key.find('/', slash + 1) != absl::string_view::npos) {
      return kTooManySlashes;
    }
    const absl::string_view prefix = key.substr(0, slash);
    name = key.substr(slash + 1);
    if (prefix.empty()) return kEmptyPrefix;
    if (prefix.size() > kMaxPrefixLength) return kLongPrefix;
    if (!IsDns1123Subdomain(prefix)) return kBadPrefix;
  }
  if (name.empty()) return kEmptyName;
  if (name.size() > kMaxNameLength) return kLongName;
  if (!IsQualifiedNamePart(name)) return kBadName;
  return "";
}

// Returns why `value` is not a label value, or "" if it is one.
absl::string_view LabelValueProblem(absl::string_view value) {
  if (value.size() > kMaxValueLength) return kLongValue;
  if (!value.empty() && !IsQualifiedNamePart(value)) return kBadValue;
  return "";
}

// Go's %q is what Kubernetes uses; C escapes give the same readability.
std::string Quote(absl::string_view s) {
  return absl::StrCat("\"", absl::CHexEscape(s), "\"");
}

std::string Child(absl::string_view field, absl::string_view child) {
  if (field.empty()) return std::string(child);
  return absl::StrCat(field, ".", child);
}

absl::optional<Operator> ParseOperator(absl::string_view op) {
  if (op == "In") return Operator::kIn;
  if (op == "NotIn") return Operator::kNotIn;
  if (op == "Exists") return Operator::kExists;
  if (op == "DoesNotExist") return Operator::kDoesNotExist;
  return absl::nullopt;
}

// Converts one matchExpressions entry; `path` is its field path.
absl::StatusOr<Requirement> FromExpression(
    const v1::LabelSelectorRequirement& expr, const std::string& path) {
  if (absl::string_view problem = LabelKeyProblem(expr.key());
      !problem.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ".key: ", Quote(expr.key()), ": ", problem));
  }
  const absl::optional<Operator> op = ParseOperator(expr.operator_());
  if (!op.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ".operator: ", Quote(expr.operator_()),
        " is not a valid label selector operator (want In, NotIn, Exists or "
        "DoesNotExist)"));
  }
  const bool needs_values = *op == Operator::kIn || *op == Operator::kNotIn;
  if (needs_values && expr.values().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ".values: must be non-empty for operator ",
                     Quote(expr.operator_())));
  }
  if (!needs_values && !expr.values().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ".values: must be empty for operator ", Quote(expr.operator_())));
  }
  for (int i = 0; i < expr.values_size(); ++i) {
    if (absl::string_view problem = LabelValueProblem(expr.values(i));
        !problem.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ".values[", i, "]: ", Quote(expr.values(i)), ": ", problem));
    }
  }
  Requirement req{
      expr.key(), *op, {expr.values().begin(), expr.values().end()}};
  std::sort(req.values.begin(), req.values.end());
  req.values.erase(std::unique(req.values.begin(), req.values.end()),
                   req.values.end());
  return req;
}

// Converts matchLabels, visiting keys in sorted order so that the first
// error reported does not depend on hash-map order.
absl::Status AppendMatchLabels(
    const google::protobuf::Map<std::string, std::string>& match_labels,
    const std::string& path, std::vector<Requirement>& out) {
  std::vector<std::pair<absl::string_view, absl::string_view>> sorted(
      match_labels.begin(), match_labels.end());
  std::sort(sorted.begin(), sorted.end());
  for (const auto& [key, value] : sorted) {
    if (absl::string_view problem = LabelKeyProblem(key); !problem.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": key ", Quote(key), ": ", problem));
    }
    if (absl::string_view problem = LabelValueProblem(value);
        !problem.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": value ", Quote(value), " of key ", Quote(key),
                       ": ", problem));
    }
    out.push_back(
        Requirement{std::string(key), Operator::kEquals, {std::string(value)}});
  }
  return absl::OkStatus();
}

bool RequirementLess(const Requirement& a, const Requirement& b) {
  return std::tie(a.key, a.op, a.values) < std::tie(b.key, b.op, b.values);
}

bool HasValue(const Requirement& r, absl::string_view value) {
  return std::binary_search(
      r.values.begin(), r.values.end(), value,
      [](absl::string_view a, absl::string_view b) { return a < b; });
}

// Requirement.Matches for one requirement; `value` is meaningful only if
// `present`.
bool Holds(const Requirement& r, bool present, absl::string_view value) {
  switch (r.op) {
    case Operator::kEquals:
    case Operator::kIn:
      return present && HasValue(r, value);
    case Operator::kNotIn:
      return !present || !HasValue(r, value);
    case Operator::kExists:
      return present;
    case Operator::kDoesNotExist:
      return !present;
  }
  return false;
}

void AppendRequirement(const Requirement& r, std::string& out) {
  switch (r.op) {
    case Operator::kEquals:
      absl::StrAppend(&out, r.key, "=", r.values.front());
      return;
    case Operator::kIn:
      absl::StrAppend(&out, r.key, " in (", absl::StrJoin(r.values, ","), ")");
      return;
    case Operator::kNotIn:
      absl::StrAppend(&out, r.key, " notin (", absl::StrJoin(r.values, ","),
                      ")");
      return;
    case Operator::kExists:
      absl::StrAppend(&out, r.key);
      return;
    case Operator::kDoesNotExist:
      absl::StrAppend(&out, "!", r.key);
      return;
  }
}

}  // namespace

absl::Status ValidateLabelKey(absl::string_view key, absl::string_view field) {
  const absl::string_view problem = LabelKeyProblem(key);
  if (problem.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(field, ": ", Quote(key), ": ", problem));
}

absl::Status ValidateLabelValue(absl::string_view value,
                                absl::string_view field) {
  const absl::string_view problem = LabelValueProblem(value);
  if (problem.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(field, ": ", Quote(value), ": ", problem));
}

absl::StatusOr<LabelSelector> LabelSelector::FromProto(
    const v1::LabelSelector* selector, absl::string_view field) {
  if (selector == nullptr) return Nothing();
  LabelSelector out = Everything();
  auto& reqs = out.requirements_;
  reqs.reserve(selector->match_labels_size() +
               selector->match_expressions_size());
  const absl::Status labels_status = AppendMatchLabels(
      selector->match_labels(), Child(field, "matchLabels"), reqs);
  if (!labels_status.ok()) return labels_status;
  for (int i = 0; i < selector->match_expressions_size(); ++i) {
    absl::StatusOr<Requirement> req = FromExpression(
        selector->match_expressions(i),
        absl::StrCat(Child(field, "matchExpressions"), "[", i, "]"));
    if (!req.ok()) return req.status();
    reqs.push_back(*std::move(req));
  }
  std::sort(reqs.begin(), reqs.end(), RequirementLess);
  return out;
}

LabelSelector LabelSelector::Everything() {
  LabelSelector s;
  s.nothing_ = false;
  return s;
}

LabelSelector LabelSelector::Nothing() { return LabelSelector(); }

bool LabelSelector::Matches(
    const google::protobuf::Map<std::string, std::string>& labels) const {
  if (nothing_) return false;
  for (const Requirement& r : requirements_) {
    const auto it = labels.find(r.key);
    const bool present = it != labels.end();
    if (!Holds(r, present, present ? absl::string_view(it->second) : "")) {
      return false;
    }
  }
  return true;
}

bool LabelSelector::Matches(
    absl::FunctionRef<absl::optional<absl::string_view>(absl::string_view)>
        lookup) const {
  if (nothing_) return false;
  for (const Requirement& r : requirements_) {
    const absl::optional<absl::string_view> value = lookup(r.key);
    if (!Holds(r, value.has_value(), value.value_or(""))) return false;
  }
  return true;
}

std::string LabelSelector::ToString() const {
  if (nothing_) return "<nothing>";
  std::string out;
  for (size_t i = 0; i < requirements_.size(); ++i) {
    if (i > 0) out.push_back(',');
    AppendRequirement(requirements_[i], out);
  }
  return out;
}

}  // namespace karpenter
