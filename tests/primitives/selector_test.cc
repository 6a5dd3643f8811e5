// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/selector.h"

#include <google/protobuf/text_format.h>

#include <catch2/catch.hpp>
#include <initializer_list>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "karpenter/v1/meta.pb.h"

namespace karpenter {
namespace {

using Labels = google::protobuf::Map<std::string, std::string>;

v1::LabelSelector ParseText(const std::string& text) {
  v1::LabelSelector proto;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(text, &proto));
  return proto;
}

LabelSelector MustBuild(const std::string& text) {
  const v1::LabelSelector proto = ParseText(text);
  absl::StatusOr<LabelSelector> s =
      LabelSelector::FromProto(&proto, "spec.selector");
  INFO(text << " -> " << s.status().ToString());
  REQUIRE(s.ok());
  return *std::move(s);
}

absl::Status BuildError(const std::string& text) {
  const v1::LabelSelector proto = ParseText(text);
  return LabelSelector::FromProto(&proto, "spec.selector").status();
}

Labels MakeLabels(
    std::initializer_list<std::pair<const char*, const char*>> kvs) {
  Labels labels;
  for (const auto& [k, v] : kvs) labels[k] = v;
  return labels;
}

// A matchExpressions entry in text format.
std::string Expr(const std::string& key, const std::string& op,
                 std::initializer_list<std::string> values = {}) {
  std::string out =
      "match_expressions { key: \"" + key + "\" operator: \"" + op + "\"";
  for (const std::string& v : values) out += " values: \"" + v + "\"";
  return out + " }";
}

std::string MatchLabel(const std::string& key, const std::string& value) {
  return "match_labels { key: \"" + key + "\" value: \"" + value + "\" }";
}

TEST_CASE("selector: nil selects nothing, empty selects everything",
          "[selector]") {
  const Labels none;
  const Labels some = MakeLabels({{"app", "web"}});

  absl::StatusOr<LabelSelector> nil =
      LabelSelector::FromProto(nullptr, "spec.selector");
  REQUIRE(nil.ok());
  CHECK(nil->MatchesNothing());
  CHECK_FALSE(nil->MatchesEverything());
  CHECK_FALSE(nil->Matches(none));
  CHECK_FALSE(nil->Matches(some));
  CHECK(*nil == LabelSelector::Nothing());
  CHECK(LabelSelector() == LabelSelector::Nothing());

  const v1::LabelSelector empty_proto;
  absl::StatusOr<LabelSelector> empty =
      LabelSelector::FromProto(&empty_proto, "spec.selector");
  REQUIRE(empty.ok());
  CHECK(empty->MatchesEverything());
  CHECK_FALSE(empty->MatchesNothing());
  CHECK(empty->Matches(none));
  CHECK(empty->Matches(some));
  CHECK(*empty == LabelSelector::Everything());
  CHECK_FALSE(*empty == *nil);
}

TEST_CASE("selector: operators match like Requirement.Matches", "[selector]") {
  struct Case {
    std::string selector;
    Labels labels;
    bool want;
  };
  const Labels web = MakeLabels({{"app", "web"}});
  const Labels db = MakeLabels({{"app", "db"}});
  const Labels empty_value = MakeLabels({{"app", ""}});
  const Labels other = MakeLabels({{"tier", "web"}});
  const Labels none;
  const std::string in = Expr("app", "In", {"web", "api"});
  const std::string not_in = Expr("app", "NotIn", {"web", "api"});
  const std::string exists = Expr("app", "Exists");
  const std::string absent = Expr("app", "DoesNotExist");
  const std::string in_empty = Expr("app", "In", {""});
  const Case cases[] = {
      {MatchLabel("app", "web"), web, true},
      {MatchLabel("app", "web"), db, false},
      {MatchLabel("app", "web"), other, false},
      {MatchLabel("app", "web"), none, false},
      {in, web, true},
      {in, db, false},
      {in, other, false},
      {in, none, false},
      {in_empty, empty_value, true},
      {in_empty, none, false},
      {not_in, web, false},
      {not_in, db, true},
      {not_in, other, true},  // NotIn holds when the label is absent.
      {not_in, none, true},
      {exists, web, true},
      {exists, empty_value, true},
      {exists, other, false},
      {absent, web, false},
      {absent, empty_value, false},
      {absent, other, true},
      {absent, none, true},
  };
  for (const Case& c : cases) {
    const LabelSelector s = MustBuild(c.selector);
    INFO(c.selector << " on " << c.labels.size() << " labels");
    CHECK(s.Matches(c.labels) == c.want);
    // The lookup overload agrees with the map overload.
    CHECK(s.Matches(
              [&](absl::string_view key) -> absl::optional<absl::string_view> {
                auto it = c.labels.find(std::string(key));
                if (it == c.labels.end()) return absl::nullopt;
                return absl::string_view(it->second);
              }) == c.want);
  }
}

TEST_CASE(
    "selector: requirements are ANDed across matchLabels and "
    "matchExpressions",
    "[selector]") {
  const LabelSelector s = MustBuild(
      MatchLabel("app", "web") + MatchLabel("team", "a") +
      Expr("tier", "In", {"front", "back"}) + Expr("legacy", "DoesNotExist"));
  struct Case {
    Labels labels;
    bool want;
  };
  const Case cases[] = {
      {MakeLabels({{"app", "web"}, {"team", "a"}, {"tier", "front"}}), true},
      {MakeLabels(
           {{"app", "web"}, {"team", "a"}, {"tier", "back"}, {"extra", "x"}}),
       true},
      {MakeLabels({{"app", "web"}, {"team", "b"}, {"tier", "front"}}), false},
      {MakeLabels({{"app", "web"}, {"team", "a"}}), false},
      {MakeLabels({{"app", "web"},
                   {"team", "a"},
                   {"tier", "front"},
                   {"legacy", "true"}}),
       false},
      {MakeLabels({{"team", "a"}, {"tier", "front"}}), false},
  };
  for (const Case& c : cases) {
    CHECK(s.Matches(c.labels) == c.want);
  }
  CHECK_FALSE(s.MatchesEverything());
  CHECK_FALSE(s.MatchesNothing());
}

TEST_CASE("selector: duplicate keys are all kept and ANDed", "[selector]") {
  // matchLabels and an expression on the same key can contradict each other.
  const LabelSelector contradiction =
      MustBuild(MatchLabel("app", "web") + Expr("app", "In", {"db"}));
  CHECK(contradiction.requirements().size() == 2);
  CHECK_FALSE(contradiction.Matches(MakeLabels({{"app", "web"}})));
  CHECK_FALSE(contradiction.Matches(MakeLabels({{"app", "db"}})));

  const LabelSelector narrowing =
      MustBuild(Expr("app", "In", {"web", "db", "api"}) +
                Expr("app", "NotIn", {"db"}) + Expr("app", "Exists"));
  CHECK(narrowing.Matches(MakeLabels({{"app", "web"}})));
  CHECK(narrowing.Matches(MakeLabels({{"app", "api"}})));
  CHECK_FALSE(narrowing.Matches(MakeLabels({{"app", "db"}})));
  CHECK_FALSE(narrowing.Matches(Labels()));

  // Exists and DoesNotExist on one key select nothing, but the selector is
  // still not MatchesNothing(): that flag is only for a nil selector.
  const LabelSelector impossible =
      MustBuild(Expr("app", "Exists") + Expr("app", "DoesNotExist"));
  CHECK_FALSE(impossible.Matches(Labels()));
  CHECK_FALSE(impossible.Matches(MakeLabels({{"app", "x"}})));
  CHECK_FALSE(impossible.MatchesNothing());
}

TEST_CASE("selector: invalid selectors name the field and quote the input",
          "[selector]") {
  struct Case {
    std::string selector;
    std::string want;  // The whole message.
  };
  const Case cases[] = {
      {Expr("app", "In"),
       "spec.selector.matchExpressions[0].values: must be non-empty for "
       "operator \"In\""},
      {Expr("app", "Exists") + Expr("app", "NotIn"),
       "spec.selector.matchExpressions[1].values: must be non-empty for "
       "operator \"NotIn\""},
      {Expr("app", "Exists", {"x"}),
       "spec.selector.matchExpressions[0].values: must be empty for operator "
       "\"Exists\""},
      {Expr("app", "DoesNotExist", {"x"}),
       "spec.selector.matchExpressions[0].values: must be empty for operator "
       "\"DoesNotExist\""},
      {Expr("app", "in", {"x"}),
       "spec.selector.matchExpressions[0].operator: \"in\" is not a valid "
       "label selector operator (want In, NotIn, Exists or DoesNotExist)"},
      {Expr("app", "", {"x"}),
       "spec.selector.matchExpressions[0].operator: \"\" is not a valid label "
       "selector operator (want In, NotIn, Exists or DoesNotExist)"},
      {Expr("app", "Gt", {"1"}),
       "spec.selector.matchExpressions[0].operator: \"Gt\" is not a valid "
       "label selector operator (want In, NotIn, Exists or DoesNotExist)"},
      {Expr("a b", "Exists"),
       "spec.selector.matchExpressions[0].key: \"a b\": name part must "
       "consist of alphanumeric characters, '-', '_' or '.', and must start "
       "and end with an alphanumeric character (e.g. 'MyName', 'my.name' or "
       "'123-abc')"},
      {Expr("app", "In", {"ok", "not ok"}),
       "spec.selector.matchExpressions[0].values[1]: \"not ok\": a valid "
       "label must be an empty string or consist of alphanumeric characters, "
       "'-', '_' or '.', and must start and end with an alphanumeric "
       "character (e.g. 'MyValue', 'my_value' or '12345')"},
      {MatchLabel("a b", "x"),
       "spec.selector.matchLabels: key \"a b\": name part must consist of "
       "alphanumeric characters, '-', '_' or '.', and must start and end "
       "with an alphanumeric character (e.g. 'MyName', 'my.name' or "
       "'123-abc')"},
      {MatchLabel("app", "-web"),
       "spec.selector.matchLabels: value \"-web\" of key \"app\": a valid "
       "label must be an empty string or consist of alphanumeric characters, "
       "'-', '_' or '.', and must start and end with an alphanumeric "
       "character (e.g. 'MyValue', 'my_value' or '12345')"},
      {MatchLabel("", "x"),
       "spec.selector.matchLabels: key \"\": name part must be non-empty"},
      {MatchLabel("/app", "x"),
       "spec.selector.matchLabels: key \"/app\": prefix part must be "
       "non-empty"},
      {MatchLabel("example.com/", "x"),
       "spec.selector.matchLabels: key \"example.com/\": name part must be "
       "non-empty"},
      {MatchLabel("a/b/c", "x"),
       "spec.selector.matchLabels: key \"a/b/c\": a qualified name must "
       "consist of alphanumeric characters, '-', '_' or '.', and must start "
       "and end with an alphanumeric character, with an optional DNS "
       "subdomain prefix and '/' (e.g. 'example.com/MyName')"},
      {MatchLabel("Example.com/app", "x"),
       "spec.selector.matchLabels: key \"Example.com/app\": prefix part a "
       "lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
       "characters, '-' or '.', and must start and end with an alphanumeric "
       "character (e.g. 'example.com')"},
      // Control characters are escaped in the message.
      {MatchLabel("app", "a\\nb"),
       "spec.selector.matchLabels: value \"a\\nb\" of key \"app\": a valid "
       "label must be an empty string or consist of alphanumeric characters, "
       "'-', '_' or '.', and must start and end with an alphanumeric "
       "character (e.g. 'MyValue', 'my_value' or '12345')"},
  };
  for (const Case& c : cases) {
    const absl::Status s = BuildError(c.selector);
    INFO(c.selector);
    CHECK(absl::IsInvalidArgument(s));
    CHECK(std::string(s.message()) == c.want);
  }
}

TEST_CASE("selector: the first error is chosen deterministically",
          "[selector]") {
  // matchLabels come first, by sorted key, whatever the map order.
  const absl::Status s = BuildError(
      MatchLabel("z z", "x") + MatchLabel("b b", "x") + Expr("c c", "Exists"));
  CHECK(absl::StrContains(s.message(), "matchLabels: key \"b b\""));
  // Within an expression: key before operator before values.
  CHECK(absl::StrContains(BuildError(Expr("a b", "bogus")).message(),
                          ".key: \"a b\""));
  CHECK(absl::StrContains(BuildError(Expr("app", "bogus")).message(),
                          ".operator: \"bogus\""));
  CHECK(absl::StrContains(BuildError(Expr("app", "Exists", {"a b"})).message(),
                          ".values: must be empty"));
}

TEST_CASE("selector: the field path prefix is the caller's", "[selector]") {
  const v1::LabelSelector proto = ParseText(Expr("app", "In"));
  CHECK(LabelSelector::FromProto(&proto, "").status().message() ==
        "matchExpressions[0].values: must be non-empty for operator \"In\"");
  CHECK(absl::StartsWith(
      LabelSelector::FromProto(&proto, "spec.podSelector").status().message(),
      "spec.podSelector.matchExpressions[0].values:"));
}

TEST_CASE("selector: key and value length boundaries", "[selector]") {
  const std::string name63(63, 'a');
  const std::string name64(64, 'a');
  // A 253-character subdomain: three 63-character labels, one of 61, and
  // three dots.
  const std::string prefix253 =
      std::string(63, 'b') + "." + std::string(63, 'b') + "." +
      std::string(63, 'b') + "." + std::string(61, 'b');
  REQUIRE(prefix253.size() == 253);
  const std::string prefix254 = prefix253 + "b";

  struct Case {
    std::string key;
    std::string value;
    std::string want_error;  // Substring; "" means valid.
  };
  const Case cases[] = {
      {name63, "v", ""},
      {name64, "v", "name part must be no more than 63 characters"},
      {"k", name63, ""},
      {"k", name64,
       "value \"" + name64 +
           "\" of key \"k\": must be no more "
           "than 63 characters"},
      {"k", "", ""},
      {prefix253 + "/" + name63, "v", ""},
      {prefix254 + "/k", "v",
       "prefix part must be no more than 253 characters"},
      {prefix253 + "/" + name64, "v", "name part must be no more than 63"},
  };
  for (const Case& c : cases) {
    INFO(c.key.size() << "-char key, " << c.value.size() << "-char value");
    const v1::LabelSelector proto = [&] {
      v1::LabelSelector p;
      (*p.mutable_match_labels())[c.key] = c.value;
      return p;
    }();
    const absl::Status s =
        LabelSelector::FromProto(&proto, "spec.selector").status();
    if (c.want_error.empty()) {
      CHECK(s.ok());
    } else {
      CHECK(absl::IsInvalidArgument(s));
      CHECK(absl::StrContains(s.message(), c.want_error));
    }
  }
}

TEST_CASE("selector: label key character rules", "[selector]") {
  struct Case {
    std::string key;
    bool valid;
  };
  const Case cases[] = {
      {"app", true},
      {"App_Name-1.x", true},
      {"1", true},
      {"a", true},
      {"example.com/app", true},
      {"kubernetes.io/hostname", true},
      {"karpenter.sh/nodepool", true},
      {"a-b.c-d/X", true},
      {"123.example/name", true},
      {"_app", false},
      {"app_", false},
      {"-app", false},
      {"app.", false},
      {".app", false},
      {"a b", false},
      {"app\xc3\xa9", false},  // Non-ASCII.
      {"app\n", false},
      {"Example.com/app", false},  // Upper-case prefix.
      {"example_com/app", false},  // '_' not allowed in a prefix.
      {"-example.com/app", false},
      {"example.com-/app", false},
      {"example..com/app", false},
      {".example.com/app", false},
      {"example.com./app", false},
      {"example.-com/app", false},
      {"example.com/-app", false},
  };
  for (const Case& c : cases) {
    INFO(c.key);
    const absl::Status s = ValidateLabelKey(c.key, "metadata.labels");
    CHECK(s.ok() == c.valid);
    if (!c.valid) {
      CHECK(absl::IsInvalidArgument(s));
      CHECK(absl::StartsWith(s.message(), "metadata.labels: \""));
    }
  }
}

TEST_CASE("selector: label value character rules", "[selector]") {
  struct Case {
    std::string value;
    bool valid;
  };
  const Case cases[] = {
      {"", true},     {"a", true},     {"a_b", true},     {"a.b", true},
      {"a-b", true},  {"A9", true},    {"a__.--b", true}, {"_a", false},
      {"a_", false},  {".a", false},   {"a.", false},     {"-a", false},
      {"a-", false},  {"a/b", false},  {"a b", false},    {"a=b", false},
      {"a,b", false}, {"\xff", false}, {"_", false},      {".", false},
  };
  for (const Case& c : cases) {
    INFO(c.value);
    const absl::Status s = ValidateLabelValue(c.value, "values[0]");
    CHECK(s.ok() == c.valid);
    if (!c.valid) CHECK(absl::IsInvalidArgument(s));
  }
}

TEST_CASE("selector: ToString is the sorted Kubernetes form", "[selector]") {
  struct Case {
    std::string selector;
    std::string want;
  };
  const Case cases[] = {
      {"", ""},
      {MatchLabel("app", "web"), "app=web"},
      {MatchLabel("tier", "db") + MatchLabel("app", "web"), "app=web,tier=db"},
      {Expr("zone", "In", {"b", "a", "b"}) + Expr("legacy", "DoesNotExist") +
           Expr("app", "Exists") + Expr("tier", "NotIn", {"db", "cache"}),
       "app,!legacy,tier notin (cache,db),zone in (a,b)"},
      {Expr("app", "In", {"web"}) + MatchLabel("app", "web"),
       "app=web,app in (web)"},
      {MatchLabel("app", ""), "app="},
  };
  for (const Case& c : cases) {
    INFO(c.selector);
    CHECK(MustBuild(c.selector).ToString() == c.want);
  }
  CHECK(LabelSelector::Nothing().ToString() == "<nothing>");
  CHECK(LabelSelector::Everything().ToString().empty());
}

TEST_CASE("selector: declaration order does not change the result",
          "[selector]") {
  const std::string a = Expr("b", "In", {"2", "1"});
  const std::string b = Expr("a", "NotIn", {"x"});
  const std::string c = Expr("b", "Exists");
  const LabelSelector s1 = MustBuild(a + b + c);
  const LabelSelector s2 = MustBuild(c + b + a);
  CHECK(s1 == s2);
  CHECK(s1.ToString() == s2.ToString());
  CHECK(s1.ToString() == "a notin (x),b in (1,2),b");

  // Many matchLabels: the output is sorted whatever the map's hash order.
  v1::LabelSelector many;
  for (int i = 99; i >= 0; --i) {
    (*many.mutable_match_labels())["k" + std::to_string(i)] = "v";
  }
  absl::StatusOr<LabelSelector> s = LabelSelector::FromProto(&many, "sel");
  REQUIRE(s.ok());
  const auto reqs = s->requirements();
  REQUIRE(reqs.size() == 100);
  for (size_t i = 1; i < reqs.size(); ++i) {
    CHECK(reqs[i - 1].key < reqs[i].key);
  }
}

TEST_CASE("selector: requirements() exposes sorted, unique values",
          "[selector]") {
  const LabelSelector s = MustBuild(Expr("app", "In", {"c", "a", "b", "a"}) +
                                    MatchLabel("app", "z"));
  const auto reqs = s.requirements();
  REQUIRE(reqs.size() == 2);
  CHECK(reqs[0].key == "app");
  CHECK(reqs[0].op == LabelSelector::Operator::kEquals);
  CHECK(reqs[0].values == std::vector<std::string>{"z"});
  CHECK(reqs[1].op == LabelSelector::Operator::kIn);
  CHECK(reqs[1].values == std::vector<std::string>{"a", "b", "c"});
}

TEST_CASE("selector: large value sets match by binary search", "[selector]") {
  v1::LabelSelector proto;
  auto* expr = proto.add_match_expressions();
  expr->set_key("id");
  expr->set_operator_("In");
  for (int i = 0; i < 1000; i += 2) expr->add_values("v" + std::to_string(i));
  absl::StatusOr<LabelSelector> s = LabelSelector::FromProto(&proto, "sel");
  REQUIRE(s.ok());
  for (int i = 0; i < 1000; ++i) {
    Labels labels;
    labels["id"] = "v" + std::to_string(i);
    CHECK(s->Matches(labels) == (i % 2 == 0));
  }
}

TEST_CASE("selector: Parse reads the kubectl -l form", "[selector]") {
  struct Case {
    std::string text;
    std::string want;  // ToString() of the result.
  };
  const Case cases[] = {
      {"", ""},
      {"   ", ""},
      {"app=web", "app=web"},
      {"app==web", "app=web"},
      {"app = web", "app=web"},
      {"app!=web", "app notin (web)"},
      {"app=", "app="},
      {"app=,tier", "app=,tier"},
      {"env in (b, a,b)", "env in (a,b)"},
      {"env notin (c)", "env notin (c)"},
      {"env in (a,,b)", "env in (,a,b)"},
      {"env in (,)", "env in ()"},
      {"env in (a,)", "env in (,a)"},
      {"!legacy", "!legacy"},
      {" ! legacy ", "!legacy"},
      {"key", "key"},
      {"in in (in),notin notin (notin),x=in",
       "in in (in),notin notin (notin),x=in"},
      {"app=web,tier!=db,env in (a,b),!legacy,key",
       "app=web,env in (a,b),key,!legacy,tier notin (db)"},
      {"example.com/app in (x)", "example.com/app in (x)"},
      {"\tapp\n=\rweb", "app=web"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    absl::StatusOr<LabelSelector> s = LabelSelector::Parse(c.text);
    REQUIRE(s.ok());
    CHECK(s->ToString() == c.want);
    CHECK_FALSE(s->MatchesNothing());
  }
}

TEST_CASE("selector: Parse matches like the equivalent proto", "[selector]") {
  absl::StatusOr<LabelSelector> parsed =
      LabelSelector::Parse("app=web,tier!=db,env in (a,b),!legacy,key");
  REQUIRE(parsed.ok());
  const LabelSelector built =
      MustBuild(MatchLabel("app", "web") + Expr("tier", "NotIn", {"db"}) +
                Expr("env", "In", {"b", "a"}) + Expr("legacy", "DoesNotExist") +
                Expr("key", "Exists"));
  CHECK(*parsed == built);
  CHECK(
      parsed->Matches(MakeLabels({{"app", "web"}, {"env", "a"}, {"key", ""}})));
  CHECK_FALSE(parsed->Matches(
      MakeLabels({{"app", "web"}, {"env", "a"}, {"key", ""}, {"tier", "db"}})));
  CHECK(LabelSelector::Parse("")->MatchesEverything());
}

TEST_CASE("selector: Parse rejects bad syntax with offset and expectation",
          "[selector]") {
  struct Case {
    std::string text;
    std::string want;  // The whole message.
  };
  const Case cases[] = {
      {"app in ()",
       "label selector \"app in ()\": values of key \"app\" must be non-empty "
       "for operator \"in\""},
      {"app notin ()",
       "label selector \"app notin ()\": values of key \"app\" must be "
       "non-empty for operator \"notin\""},
      {"app,",
       "label selector \"app,\": found end of string at offset 4, expected "
       "'!' or key"},
      {",app",
       "label selector \",app\": found \",\" at offset 0, expected '!' or key"},
      {"app web",
       "label selector \"app web\": found \"web\" at offset 4, expected 'in', "
       "'notin', '=', '==', '!=', ',' or end of string"},
      {"app>1",
       "label selector \"app>1\": found \">\" at offset 3, expected 'in', "
       "'notin', '=', '==', '!=', ',' or end of string"},
      {"app in a",
       "label selector \"app in a\": found \"a\" at offset 7, expected '('"},
      {"app in (a",
       "label selector \"app in (a\": found end of string at offset 9, "
       "expected ',', ')' or value"},
      {"app in (a b)",
       "label selector \"app in (a b)\": found \"b\" at offset 10, expected "
       "',', ')' or value"},
      {"!app=x",
       "label selector \"!app=x\": found \"=\" at offset 4, expected ',' or "
       "end of string"},
      {"!",
       "label selector \"!\": found end of string at offset 1, expected key"},
      {"app=(",
       "label selector \"app=(\": found \"(\" at offset 4, expected value"},
      {"a=b=c",
       "label selector \"a=b=c\": found \"=\" at offset 3, expected ',' or end "
       "of string"},
      {"App_/x=1",
       "label selector \"App_/x=1\": key \"App_/x\": prefix part a lowercase "
       "RFC 1123 subdomain must consist of lower case alphanumeric "
       "characters, '-' or '.', and must start and end with an alphanumeric "
       "character (e.g. 'example.com')"},
      {"app=-x",
       "label selector \"app=-x\": value \"-x\" of key \"app\": a valid label "
       "must be an empty string or consist of alphanumeric characters, '-', "
       "'_' or '.', and must start and end with an alphanumeric character "
       "(e.g. 'MyValue', 'my_value' or '12345')"},
      {std::string("app\0x", 5),
       "label selector \"app\\x00x\": key \"app\\x00x\": name part must "
       "consist of alphanumeric characters, '-', '_' or '.', and must start "
       "and end with an alphanumeric character (e.g. 'MyName', 'my.name' or "
       "'123-abc')"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    const absl::Status s = LabelSelector::Parse(c.text).status();
    CHECK(absl::IsInvalidArgument(s));
    CHECK(std::string(s.message()) == c.want);
  }
}

TEST_CASE("selector: Parse inverts ToString", "[selector]") {
  const std::string protos[] = {
      "",
      MatchLabel("app", "web") + MatchLabel("x", ""),
      Expr("zone", "In", {"b", "a"}) + Expr("legacy", "DoesNotExist") +
          Expr("app", "Exists") + Expr("tier", "NotIn", {"db", ""}),
      Expr("in", "In", {"in", "notin"}) + MatchLabel("notin", "in"),
  };
  for (const std::string& text : protos) {
    const LabelSelector s = MustBuild(text);
    INFO(s.ToString());
    absl::StatusOr<LabelSelector> back = LabelSelector::Parse(s.ToString());
    REQUIRE(back.ok());
    CHECK(*back == s);
  }
}

}  // namespace
}  // namespace karpenter
