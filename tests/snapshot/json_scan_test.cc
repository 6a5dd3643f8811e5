// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "snapshot/json_scan.h"

#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

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

namespace karpenter::snapshot::internal {
namespace {

TEST_CASE("snapshot json_scan: word-at-a-time string skipping",
          "[snapshot][json_decode]") {
  // Quotes and backslashes at every offset of an 8-byte word, escaped
  // backslash runs before a closing quote, and non-ASCII bytes.
  for (size_t pad = 0; pad < 17; ++pad) {
    const std::string prefix(pad, 'a');
    const std::vector<std::string> bodies = {
        prefix,
        prefix + "\\\"",
        prefix + "\\\\",
        prefix + "\\\\\\\"x\\\\",
        prefix + "caf\xC3\xA9\\u00e9",
        "\\\"" + prefix + "\\\\\\\\",
    };
    for (const std::string& body : bodies) {
      const std::string text = absl::StrCat("[\"", body, "\",1]");
      INFO(text);
      REQUIRE(ValidateJson(text).ok());
      CHECK(SkipValue(text, 1) == body.size() + 3);
      CHECK(StringValue(text.substr(1, body.size() + 2)).has_value());
    }
    // Unterminated (unvalidated) text: the end of the span.
    const std::string open = absl::StrCat("\"", prefix, "\\\"");
    CHECK(SkipValue(open, 0) == open.size());
    // A control character or unpaired quote inside is still found.
    const std::string bad = absl::StrCat("[\"", prefix, "\t\"]");
    CHECK_FALSE(ValidateJson(bad).ok());
  }
}

TEST_CASE("snapshot json_scan: ScanObject and root members",
          "[snapshot][json_decode]") {
  const std::string text =
      R"( {"kind":"List", "items":[{"a":1},{"b":"}"}] ,"k\"":null} )";
  std::vector<RootMember> root;
  REQUIRE(ValidateJson(text, &root).ok());
  REQUIRE(root.size() == 3);
  CHECK(root[0].raw_key == "kind");
  CHECK(root[0].value == "\"List\"");
  CHECK(root[1].raw_key == "items");
  CHECK(root[1].value == R"([{"a":1},{"b":"}"}])");
  CHECK(root[2].raw_key == "k\\\"");
  CHECK(root[2].value == "null");

  std::vector<std::string> seen;
  const size_t start = text.find('{');
  const size_t end =
      ScanObject(text, start, [&](absl::string_view k, absl::string_view v) {
        seen.push_back(absl::StrCat(k, "=", v));
      });
  CHECK(end == text.rfind('}') + 1);
  CHECK(seen == std::vector<std::string>{"kind=\"List\"",
                                         R"(items=[{"a":1},{"b":"}"}])",
                                         "k\\\"=null"});
  // Not an object: the value's end, no members.
  CHECK(ScanObject("[1,2] ", 0, [](absl::string_view, absl::string_view) {
          FAIL("no members expected");
        }) == 5);
  // Arrays and scalars at the top have no root members.
  root.clear();
  REQUIRE(ValidateJson(R"([{"kind":"Pod"}])", &root).ok());
  CHECK(root.empty());
}

}  // namespace
}  // namespace karpenter::snapshot::internal
