// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "validation/patterns.h"

#include <bitset>
#include <cstdint>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace karpenter::validation::internal {
namespace {

constexpr size_t kMaxQuoted = 80;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLowerAlnum(char c) { return IsDigit(c) || (c >= 'a' && c <= 'z'); }
bool IsAlnum(char c) { return absl::ascii_isalnum(static_cast<uint8_t>(c)); }

// Consumes one or more ASCII digits at s[*i]; false if there are none.
bool ConsumeDigits(absl::string_view s, size_t* i) {
  const size_t start = *i;
  while (*i < s.size() && IsDigit(s[*i])) ++*i;
  return *i > start;
}

// `([0-9]+h)|([0-9]+m)|([0-9]+h[0-9]+m)`, the whole of `s`.
bool MatchesHoursMinutes(absl::string_view s) {
  size_t i = 0;
  if (!ConsumeDigits(s, &i) || i == s.size()) return false;
  if (s[i] == 'm') return i + 1 == s.size();
  if (s[i] != 'h') return false;
  if (++i == s.size()) return true;
  return ConsumeDigits(s, &i) && i + 1 == s.size() && s[i] == 'm';
}

// `[0-9]+(s|m|h)` at s[*i].
bool ConsumeDurationUnit(absl::string_view s, size_t* i) {
  if (!ConsumeDigits(s, i) || *i == s.size()) return false;
  const char c = s[*i];
  if (c != 's' && c != 'm' && c != 'h') return false;
  ++*i;
  return true;
}

// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`, the whole of `s`.
bool IsDnsLabel(absl::string_view s) {
  if (s.empty() || !IsLowerAlnum(s.front()) || !IsLowerAlnum(s.back())) {
    return false;
  }
  for (char c : s) {
    if (!IsLowerAlnum(c) && c != '-') return false;
  }
  return true;
}

// Dot-separated DNS labels, the whole of `s`.
bool IsDnsLabels(absl::string_view s) {
  while (true) {
    const size_t dot = s.find('.');
    if (!IsDnsLabel(s.substr(0, dot))) return false;
    if (dot == absl::string_view::npos) return true;
    s.remove_prefix(dot + 1);
  }
}

// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`, the whole of `s`.
bool IsLabelName(absl::string_view s) {
  if (s.empty() || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

// `([0-9]+(\.[0-9]*)?)|(\.[0-9]+)` at s[*i].
bool ConsumeDecimal(absl::string_view s, size_t* i) {
  if (ConsumeDigits(s, i)) {
    if (*i < s.size() && s[*i] == '.') {
      ++*i;
      while (*i < s.size() && IsDigit(s[*i])) ++*i;
    }
    return true;
  }
  if (*i >= s.size() || s[*i] != '.') return false;
  ++*i;
  return ConsumeDigits(s, i);
}

void ConsumeSign(absl::string_view s, size_t* i) {
  if (*i < s.size() && (s[*i] == '+' || s[*i] == '-')) ++*i;
}

// Go regexp `\s`: [\t\n\f\r ].
bool IsRegexpSpace(char c) {
  return c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == ' ';
}

}  // namespace

std::string QuoteValue(absl::string_view value) {
  if (value.size() <= kMaxQuoted) {
    return absl::StrCat("\"", absl::CHexEscape(value), "\"");
  }
  return absl::StrCat("\"", absl::CHexEscape(value.substr(0, kMaxQuoted)),
                      "...\" (", value.size(), " bytes)");
}

bool MatchesBudgetNodes(absl::string_view s) {
  size_t i = 0;
  if (!ConsumeDigits(s, &i)) return false;
  if (i == s.size()) return true;
  if (i + 1 != s.size() || s[i] != '%') return false;
  const absl::string_view digits = s.substr(0, i);
  return digits.size() <= 2 || digits == "100";
}

bool MatchesBudgetDuration(absl::string_view s) {
  if (MatchesHoursMinutes(s)) return true;
  return absl::ConsumeSuffix(&s, "0s") && MatchesHoursMinutes(s);
}

bool MatchesDuration(absl::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    if (!ConsumeDurationUnit(s, &i)) return false;
  }
  return !s.empty();
}

bool MatchesNillableDurationV1(absl::string_view s) {
  return s == "Never" || MatchesDuration(s);
}

bool MatchesNillableDurationV1Beta1(absl::string_view s) {
  size_t i = 0;
  return ConsumeDurationUnit(s, &i) || absl::EndsWith(s, "Never");
}

// `^` binds to the descriptor alternative only, `$` to the five-field one
// (five `.+` groups ending the string; `.` excludes '\n'), simulated as an
// NFA in one pass: state 2k waits for the first character of group k, state
// 2k+1 is inside group k.
bool MatchesSchedule(absl::string_view s) {
  for (absl::string_view d : {"annually", "yearly", "monthly", "weekly",
                              "daily", "midnight", "hourly"}) {
    if (absl::StartsWith(s, absl::StrCat("@", d))) return true;
  }
  std::bitset<10> states;
  for (char c : s) {
    states.set(0);  // Unanchored: a match may start anywhere.
    std::bitset<10> next;
    for (int group = 0; group < 5; ++group) {
      const bool waiting = states.test(2 * group);
      const bool inside = states.test(2 * group + 1);
      if ((waiting || inside) && c != '\n') next.set(2 * group + 1);
      if (inside && group < 4 && IsRegexpSpace(c)) next.set(2 * group + 2);
    }
    states = next;
  }
  return states.test(9);
}

bool MatchesQualifiedKey(absl::string_view s) {
  const size_t slash = s.find('/');
  if (slash == absl::string_view::npos) return IsLabelName(s);
  return IsDnsLabels(s.substr(0, slash)) && IsLabelName(s.substr(slash + 1));
}

bool MatchesLabelValue(absl::string_view s) {
  return s.empty() || IsLabelName(s);
}

bool MatchesQuantity(absl::string_view s) {
  size_t i = 0;
  ConsumeSign(s, &i);
  if (!ConsumeDecimal(s, &i)) return false;
  const absl::string_view suffix = s.substr(i);
  if (suffix.empty()) return true;
  if (suffix.size() == 2 && suffix[1] == 'i' &&
      absl::string_view("KMGTPE").find(suffix[0]) != absl::string_view::npos) {
    return true;
  }
  if (suffix.size() == 1 && absl::string_view("numkMGTPE").find(suffix[0]) !=
                                absl::string_view::npos) {
    return true;
  }
  if (suffix[0] != 'e' && suffix[0] != 'E') return false;
  ++i;
  ConsumeSign(s, &i);
  return ConsumeDecimal(s, &i) && i == s.size();
}

bool IsDns1123Subdomain(absl::string_view s) {
  return s.size() <= 253 && IsDnsLabels(s);
}

void CheckObjectName(const v1::ObjectMeta& meta, Errors& errors) {
  const std::string& name = meta.name();
  if (name.empty()) {
    if (meta.generate_name().empty()) {
      errors.Add("metadata.name",
                 "Required value: name or generateName is required "
                 "(ObjectMeta validation)",
                 "");
    }
    return;
  }
  if (IsDns1123Subdomain(name)) return;
  errors.Add("metadata.name",
             "a lowercase RFC 1123 subdomain must consist of lower case "
             "alphanumeric characters, '-' or '.', and must start and end "
             "with an alphanumeric character, at most 253 characters "
             "(ObjectMeta validation)",
             name);
}

bool IsNonNegativeCelInt(absl::string_view s) {
  // absl::SimpleAtoi also skips whitespace, which ParseInt rejects.
  if (s.empty() || absl::ascii_isspace(static_cast<uint8_t>(s.front())) ||
      absl::ascii_isspace(static_cast<uint8_t>(s.back()))) {
    return false;
  }
  size_t i = 0;
  ConsumeSign(s, &i);
  for (size_t j = i; j < s.size(); ++j) {
    if (!IsDigit(s[j])) return false;
  }
  int64_t v = 0;
  return absl::SimpleAtoi(s, &v) && v >= 0;
}

absl::string_view LabelDomain(absl::string_view s) {
  return s.substr(0, s.find('/'));
}

}  // namespace karpenter::validation::internal
