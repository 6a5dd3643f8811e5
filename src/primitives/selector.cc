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
  return Requirement{
      expr.key(), *op, {expr.values().begin(), expr.values().end()}};
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

// ---- The string form (pkg/labels/selector.go Lexer and Parser). ----

enum class Tok {
  kEnd,
  kIdentifier,
  kIn,
  kNotIn,
  kBang,
  kEquals,
  kDoubleEquals,
  kNotEquals,
  kGreater,
  kLess,
  kOpen,
  kClose,
  kComma,
};

struct Token {
  Tok tok;
  absl::string_view text;
  size_t offset;
};

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

bool IsSpecial(char c) {
  return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' ||
         c == '<';
}

// Splits a selector string into tokens. Every character sequence is some
// token, so lexing cannot fail; the parser judges the sequence. Unlike Go's
// lexer, a NUL byte is an ordinary identifier character (Go stops at it).
class Lexer {
 public:
  explicit Lexer(absl::string_view text) : text_(text) {}

  Token Next() {
    while (pos_ < text_.size() && IsBlank(text_[pos_])) ++pos_;
    const size_t start = pos_;
    if (pos_ == text_.size()) return {Tok::kEnd, "", start};
    if (IsSpecial(text_[pos_])) return Special(start);
    while (pos_ < text_.size() && !IsBlank(text_[pos_]) &&
           !IsSpecial(text_[pos_])) {
      ++pos_;
    }
    const absl::string_view word = text_.substr(start, pos_ - start);
    if (word == "in") return {Tok::kIn, word, start};
    if (word == "notin") return {Tok::kNotIn, word, start};
    return {Tok::kIdentifier, word, start};
  }

 private:
  // The longest operator at `start`; only "==" and "!=" have two characters.
  Token Special(size_t start) {
    const absl::string_view two = text_.substr(start, 2);
    if (two == "==" || two == "!=") {
      pos_ += 2;
      return {two == "==" ? Tok::kDoubleEquals : Tok::kNotEquals, two, start};
    }
    ++pos_;
    const absl::string_view one = text_.substr(start, 1);
    switch (one[0]) {
      case '=':
        return {Tok::kEquals, one, start};
      case '!':
        return {Tok::kBang, one, start};
      case '(':
        return {Tok::kOpen, one, start};
      case ')':
        return {Tok::kClose, one, start};
      case ',':
        return {Tok::kComma, one, start};
      case '>':
        return {Tok::kGreater, one, start};
      default:
        return {Tok::kLess, one, start};
    }
  }

  absl::string_view text_;
  size_t pos_ = 0;
};

// A one-token-lookahead parser (no recursion) over the grammar
//   selector    := "" | requirement ("," requirement)*
//   requirement := "!" KEY
//                | KEY [("in" | "notin") "(" values ")"
//                       | ("=" | "==" | "!=") [VALUE]]
// Where a key or value is expected, "in" and "notin" are plain words, as in
// Go ("in in (in)" is valid).
class SelectorParser {
 public:
  explicit SelectorParser(absl::string_view text) : text_(text), lexer_(text) {
    Advance();
  }

  absl::StatusOr<std::vector<Requirement>> ParseAll() {
    std::vector<Requirement> reqs;
    if (peek_.tok == Tok::kEnd) return reqs;
    while (true) {
      absl::StatusOr<Requirement> req = ParseRequirement();
      if (!req.ok()) return req.status();
      reqs.push_back(*std::move(req));
      if (peek_.tok == Tok::kEnd) return reqs;
      if (peek_.tok != Tok::kComma) return Unexpected("',' or end of string");
      Advance();
    }
  }

 private:
  void Advance() { peek_ = lexer_.Next(); }

  // Whether the current token can be a key or a value.
  bool AtWord() const {
    return peek_.tok == Tok::kIdentifier || peek_.tok == Tok::kIn ||
           peek_.tok == Tok::kNotIn;
  }

  absl::Status Fail(absl::string_view detail) const {
    return absl::InvalidArgumentError(
        absl::StrCat("label selector ", Quote(text_), ": ", detail));
  }

  absl::Status Unexpected(absl::string_view expected) const {
    const std::string found = peek_.tok == Tok::kEnd
                                  ? std::string("end of string")
                                  : Quote(peek_.text);
    return Fail(absl::StrCat("found ", found, " at offset ", peek_.offset,
                             ", expected ", expected));
  }

  absl::StatusOr<Requirement> ParseRequirement() {
    const bool negated = peek_.tok == Tok::kBang;
    if (negated) Advance();
    if (!AtWord()) return Unexpected(negated ? "key" : "'!' or key");
    Requirement req{std::string(peek_.text), Operator::kExists, {}};
    if (absl::string_view problem = LabelKeyProblem(req.key);
        !problem.empty()) {
      return Fail(absl::StrCat("key ", Quote(req.key), ": ", problem));
    }
    Advance();
    if (negated) {
      req.op = Operator::kDoesNotExist;
      return req;
    }
    if (peek_.tok == Tok::kEnd || peek_.tok == Tok::kComma) return req;
    absl::Status status;
    switch (peek_.tok) {
      case Tok::kIn:
      case Tok::kNotIn:
        req.op = peek_.tok == Tok::kIn ? Operator::kIn : Operator::kNotIn;
        Advance();
        status = ParseValueSet(req);
        break;
      case Tok::kEquals:
      case Tok::kDoubleEquals:
      case Tok::kNotEquals:
        // "k!=v" matches exactly like "k notin (v)".
        req.op =
            peek_.tok == Tok::kNotEquals ? Operator::kNotIn : Operator::kEquals;
        Advance();
        status = ParseExactValue(req);
        break;
      default:
        return Unexpected(
            "'in', 'notin', '=', '==', '!=', ',' or end of string");
    }
    if (!status.ok()) return status;
    for (const std::string& value : req.values) {
      if (absl::string_view problem = LabelValueProblem(value);
          !problem.empty()) {
        return Fail(absl::StrCat("value ", Quote(value), " of key ",
                                 Quote(req.key), ": ", problem));
      }
    }
    return req;
  }

  // "(" values ")" with comma-separated values that may be empty: "(a,,b)"
  // holds "a", "" and "b", "(,)" holds "". "()" holds nothing: rejected.
  absl::Status ParseValueSet(Requirement& req) {
    if (peek_.tok != Tok::kOpen) return Unexpected("'('");
    Advance();
    if (peek_.tok != Tok::kClose) {
      while (true) {
        if (AtWord()) {
          req.values.emplace_back(peek_.text);
          Advance();
        } else {
          req.values.emplace_back();
        }
        if (peek_.tok == Tok::kClose) break;
        if (peek_.tok != Tok::kComma) return Unexpected("',', ')' or value");
        Advance();
      }
    }
    Advance();  // The ")".
    if (req.values.empty()) {
      return Fail(absl::StrCat(
          "values of key ", Quote(req.key), " must be non-empty for operator ",
          req.op == Operator::kIn ? "\"in\"" : "\"notin\""));
    }
    return absl::OkStatus();
  }

  // The value after "=", "==" or "!=", which may be left out: "k=" means the
  // empty value.
  absl::Status ParseExactValue(Requirement& req) {
    if (peek_.tok == Tok::kEnd || peek_.tok == Tok::kComma) {
      req.values.emplace_back();
      return absl::OkStatus();
    }
    if (!AtWord()) return Unexpected("value");
    req.values.emplace_back(peek_.text);
    Advance();
    return absl::OkStatus();
  }

  absl::string_view text_;
  Lexer lexer_;
  Token peek_;
};

// Sorts each value list (dropping duplicates) and then the requirements.
void Canonicalize(std::vector<Requirement>& reqs) {
  for (Requirement& r : reqs) {
    std::sort(r.values.begin(), r.values.end());
    r.values.erase(std::unique(r.values.begin(), r.values.end()),
                   r.values.end());
  }
  std::sort(reqs.begin(), reqs.end(), RequirementLess);
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
  Canonicalize(reqs);
  return out;
}

absl::StatusOr<LabelSelector> LabelSelector::Parse(absl::string_view text) {
  absl::StatusOr<std::vector<Requirement>> reqs =
      SelectorParser(text).ParseAll();
  if (!reqs.ok()) return reqs.status();
  LabelSelector out = Everything();
  out.requirements_ = *std::move(reqs);
  Canonicalize(out.requirements_);
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
