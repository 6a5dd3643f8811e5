// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "snapshot/json_scan.h"

#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

namespace karpenter::snapshot::internal {
namespace {

TEST_CASE("snapshot json_scan: accepts well-formed JSON", "[snapshot]") {
  const char* valid[] = {
      "{}",
      " [ ] ",
      R"({"a":1,"b":[true,false,null],"c":{"d":"e"}})",
      R"(["\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"])",
      "-0.5e+10",
      "\"caf\xC3\xA9\"",
      "[1, 2.25, -3, 4E2, 0]",
  };
  for (const char* text : valid) {
    INFO(text);
    CHECK(ValidateJson(text).ok());
  }
}

TEST_CASE("snapshot json_scan: rejects malformed JSON with path and position",
          "[snapshot]") {
  struct Case {
    std::string text;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"", "invalid JSON at line 1, column 1: no JSON value"},
      {"{\"a\":1,}", "invalid JSON at line 1, column 8: expected a string key"},
      {"{\"items\":[{},\n{\"x\": tru}]}",
       "items[1].x: invalid JSON at line 2, column 7: unexpected character "
       "'t'"},
      {"{\"a\":[1,2",
       "a[1]: invalid JSON at line 1, column 10: unexpected end "
       "of input"},
      {"{\"a\":\"abc",
       "a: invalid JSON at line 1, column 6: unterminated "
       "string"},
      {"[01]", "[0]: invalid JSON at line 1, column 3: expected ',' or ']'"},
      {"{\"a\" 1}", "invalid JSON at line 1, column 6: expected ':' after key"},
      {"{} {}",
       "invalid JSON at line 1, column 4: unexpected data after the "
       "JSON value"},
      {"[\"\\x\"]", "[0]: invalid JSON at line 1, column 3: invalid escape"},
      {"[\"\\ud800\"]",
       "[0]: invalid JSON at line 1, column 3: unpaired "
       "surrogate in string"},
      {"[\"\xC3\"]", "[0]: invalid JSON at line 1, column 3: invalid UTF-8"},
      {"[\"a\tb\"]", "control character in string"},
      {"[1.]", "invalid number"},
      {"[-]", "invalid number"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    const absl::Status s = ValidateJson(c.text);
    CHECK(s.code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(s.message()), Catch::Contains(c.message));
  }
}

TEST_CASE("snapshot json_scan: nesting is bounded without recursion",
          "[snapshot]") {
  const std::string ok =
      std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  CHECK(ValidateJson(ok).ok());
  const std::string deep(1000000, '[');
  const absl::Status s = ValidateJson(deep);
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(s.message()),
             Catch::Contains("nesting deeper than 100"));
}

TEST_CASE("snapshot json_scan: navigates members and elements", "[snapshot]") {
  const std::string text =
      R"({"kind":"List", "items":[{"a":"}"}, [1,2], "x]"], "k\u0069nd":5})";
  REQUIRE(ValidateJson(text).ok());
  std::vector<std::pair<std::string, std::string>> members;
  ForEachMember(text, [&](absl::string_view key, absl::string_view value) {
    members.emplace_back(DecodeString(key), std::string(value));
    return true;
  });
  REQUIRE(members.size() == 3);
  CHECK(members[0] ==
        std::make_pair(std::string("kind"), std::string("\"List\"")));
  CHECK(members[2].first == "kind");

  std::vector<std::string> elements;
  ForEachElement(*FindMember(text, "items"),
                 [&](size_t, absl::string_view element) {
                   elements.emplace_back(element);
                   return true;
                 });
  CHECK(elements ==
        std::vector<std::string>{R"({"a":"}"})", "[1,2]", "\"x]\""});
  // The last of repeated keys wins, as in protobuf's parser.
  CHECK(FindMember(text, "kind") == absl::string_view("5"));
  CHECK_FALSE(FindMember(text, "missing").has_value());
  CHECK(StringValue("\"a\\nb\"") == std::optional<std::string>("a\nb"));
  CHECK_FALSE(StringValue("12").has_value());
  CHECK(IsEmptyArray("[ \n ]"));
  CHECK_FALSE(IsEmptyArray("[null]"));
  CHECK(DecodeString("\\ud83d\\ude00") == "\xF0\x9F\x98\x80");
}

}  // namespace
}  // namespace karpenter::snapshot::internal
