// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "primitives/go_quote.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace karpenter::primitives_internal {

std::string GoQuote(absl::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back('"');
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c >= 0x80) {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xf]);
      continue;
    }
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(ch);
  }
  out.push_back('"');
  return out;
}

std::string WithField(absl::string_view field, absl::string_view message) {
  if (field.empty()) return std::string(message);
  return absl::StrCat(field, ": ", message);
}

}  // namespace karpenter::primitives_internal
