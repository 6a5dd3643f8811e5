// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The CRD pattern matchers of src/validation/patterns.h against the regular
// expressions they implement, including the edges the regexes allow that a
// reader might not expect (unanchored alternations, exponent forms).

#include "validation/patterns.h"

#include <catch2/catch.hpp>
#include <functional>
#include <string>
#include <vector>

namespace karpenter::validation::internal {
namespace {

struct PatternCase {
  std::string name;
  std::function<bool(absl::string_view)> match;
  std::vector<std::string> accepted;
  std::vector<std::string> rejected;
};

TEST_CASE("validation patterns: accepted and rejected values", "[validation]") {
  const std::vector<PatternCase> cases = {
      {"budget nodes",
       MatchesBudgetNodes,
       {"0", "10", "123456", "0%", "99%", "100%", "05%"},
       {"", "101%", "1000%", "%", "-1", "1.5", "10 %", "5%%"}},
      {"budget duration",
       MatchesBudgetDuration,
       {"1h", "30m", "1h30m", "10h0s", "10h0m0s", "90m0s"},
       {"", "30s", "1h30m10s", "1d", "h", "1m30h", "1h0s0s"}},
      {"v1 nillable duration",
       MatchesNillableDurationV1,
       {"Never", "0s", "720h", "1h30m10s", "10s10s"},
       {"", "never", "1d", "1.5h", "10", "Never1h", "1hNever"}},
      {"v1beta1 nillable duration (unanchored alternation)",
       MatchesNillableDurationV1Beta1,
       {"Never", "720h", "10mx", "xNever"},
       {"", "never", "1d", "h1"}},
      {"terminationGracePeriod",
       MatchesDuration,
       {"1s", "24h", "1h30m"},
       {"", "Never", "1d", "-1h", "1h "}},
      {"schedule",
       MatchesSchedule,
       {"@daily", "@hourlyx", "0 9 * * 1-5", "x 0 9 * * *", "a b c d e"},
       {"", "@every 1h", "0 9 * *", "daily", "a b c d e\n"}},
      {"qualified key",
       MatchesQualifiedKey,
       {"a", "app", "example.com/x", "karpenter.k8s.aws/instance-cpu",
        "A_b.c-D", "a.b/C"},
       {"", "-a", "a-", "Example.com/x", "a/b/c", "/a", "a/", "a b", "a..b/x",
        "a_b/x"}},
      {"label value",
       MatchesLabelValue,
       {"", "a", "amd64", "m5.large", "A-b_c.d"},
       {"-a", "a-", "a b", "a/b", "é"}},
      {"quantity",
       MatchesQuantity,
       {"1", "+1", "-1", "1.", ".5", "1.5", "100m", "1Ki", "1Gi", "1E", "1e3",
        "1E-3", "1.5e+2.5", "1000"},
       {"", ".", "1ki", "1KB", "1 Gi", "1e", "1Gi ", "e3", "1.5.5", "Gi"}},
      {"DNS-1123 subdomain",
       IsDns1123Subdomain,
       {"a", "default", "web-1.example", std::string(253, 'a')},
       {"", "Default", "-a", "a..b", "a_b", std::string(254, 'a')}},
      {"CEL int >= 0",
       IsNonNegativeCelInt,
       {"0", "4", "+4", "-0", "0004", "9223372036854775807"},
       {"", "-1", "4Gi", "1.5", " 4", "4 ", "9223372036854775808", "+",
        "0x10"}},
  };
  for (const PatternCase& c : cases) {
    CAPTURE(c.name);
    for (const std::string& s : c.accepted) {
      CAPTURE(s);
      CHECK(c.match(s));
    }
    for (const std::string& s : c.rejected) {
      CAPTURE(s);
      CHECK_FALSE(c.match(s));
    }
  }
}

TEST_CASE("validation patterns: the CEL label domain", "[validation]") {
  CHECK(LabelDomain("karpenter.sh/nodepool") == "karpenter.sh");
  CHECK(LabelDomain("karpenter.sh") == "karpenter.sh");
  CHECK(LabelDomain("a/b/c") == "a");
  CHECK(LabelDomain("/a").empty());
}

TEST_CASE("validation patterns: quoted values", "[validation]") {
  CHECK(QuoteValue("") == "\"\"");
  CHECK(QuoteValue("a\"b") == "\"a\\\"b\"");
  CHECK(QuoteValue(std::string(81, 'a')) ==
        "\"" + std::string(80, 'a') + "...\" (81 bytes)");
}

}  // namespace
}  // namespace karpenter::validation::internal
