// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/budget/extensions.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../testing/kit_test_util.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "karpenter/budget/allowed.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/testing/builders.h"

namespace karpenter::budget {
namespace {

absl::Time Utc(int y, int mo, int d, int h, int mi, int s = 0) {
  return absl::FromCivil(absl::CivilSecond(y, mo, d, h, mi, s),
                         absl::UTCTimeZone());
}

const absl::Time kNow = Utc(2026, 11, 22, 10, 0);

absl::Time At(int h, int mi, int s = 0) { return Utc(2026, 11, 22, h, mi, s); }

// ---------------------------------------------------------------------------
// Parsing.

TEST_CASE("budget-ext: rate parsing accepts N/window", "[budget-ext]") {
  struct Case {
    std::string text;
    int64_t n;
    absl::Duration window;
    std::string formatted;
  };
  const Case cases[] = {
      {"3/1h", 3, absl::Hours(1), "3/1h"},
      {"0/30m", 0, absl::Minutes(30), "0/30m"},
      {"10/1h30m", 10, absl::Minutes(90), "10/1h30m"},
      {"007/90s", 7, absl::Seconds(90), "7/1m30s"},
      {"1/1.5h", 1, absl::Minutes(90), "1/1h30m"},
      {"5/500ms", 5, absl::Milliseconds(500), "5/500ms"},
      {"9223372036854775807/1ns", INT64_MAX, absl::Nanoseconds(1),
       "9223372036854775807/1ns"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    absl::StatusOr<RateBudgetSpec> got = ParseRateBudget(c.text);
    REQUIRE(got.ok());
    CHECK(got->max_disruptions == c.n);
    CHECK(got->window == c.window);
    CHECK(FormatRateBudget(*got) == c.formatted);
    CHECK(ValidateRateBudget(*got).ok());
  }
}

TEST_CASE("budget-ext: rate parsing rejects each bad form", "[budget-ext]") {
  struct Case {
    std::string text;
    absl::StatusCode code;
    std::string message;
  };
  const auto kInvalid = absl::StatusCode::kInvalidArgument;
  const std::string form = "must be <count>/<window>, e.g. \"3/1h\"";
  const std::string count = "count must be a non-negative integer";
  const Case cases[] = {
      {"", kInvalid, "\"\": " + form},
      {"3", kInvalid, "\"3\": " + form},
      {"3/1h/2", kInvalid, "\"3/1h/2\": " + form},
      {"/1h", kInvalid, "\"/1h\": " + count},
      {"-1/1h", kInvalid, "\"-1/1h\": " + count},
      {"+3/1h", kInvalid, "\"+3/1h\": " + count},
      {" 3/1h", kInvalid, "\" 3/1h\": " + count},
      {"3.5/1h", kInvalid, "\"3.5/1h\": " + count},
      {"99999999999999999999/1h", absl::StatusCode::kOutOfRange,
       "\"99999999999999999999/1h\": count overflows int64"},
      {"3/", kInvalid, "\"3/\": window: time: invalid duration \"\""},
      {"3/1d", kInvalid,
       "\"3/1d\": window: time: unknown unit \"d\" in duration \"1d\""},
      {"3/1h ", kInvalid,
       "\"3/1h \": window: time: unknown unit \"h \" in duration \"1h \""},
      {"3/60", kInvalid,
       "\"3/60\": window: time: missing unit in duration \"60\""},
      {"3/0s", kInvalid, "\"3/0s\": window must be positive"},
      {"3/0", kInvalid, "\"3/0\": window must be positive"},
      {"3/-1h", kInvalid, "\"3/-1h\": window must be positive"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    absl::StatusOr<RateBudgetSpec> got = ParseRateBudget(c.text);
    REQUIRE_FALSE(got.ok());
    CHECK(got.status().code() == c.code);
    CHECK(got.status().message() == c.message);
  }
  CHECK(ParseRateBudget("3/0s", "f").status().message() ==
        "f: \"3/0s\": window must be positive");
}

TEST_CASE("budget-ext: capacity parsing table", "[budget-ext]") {
  struct Valid {
    std::string text;
    CapacityResource resource;
    IntOrPercent amount;
    std::string formatted;
  };
  const auto kCpu = CapacityResource::kCpu;
  const auto kMem = CapacityResource::kMemory;
  const Valid valid[] = {
      {"cpu=20%", kCpu, IntOrPercent::FromPercent(20), "cpu=20%"},
      {"cpu=0%", kCpu, IntOrPercent::FromPercent(0), "cpu=0%"},
      {"memory=100%", kMem, IntOrPercent::FromPercent(100), "memory=100%"},
      {"cpu=007%", kCpu, IntOrPercent::FromPercent(7), "cpu=7%"},
      {"cpu=8", kCpu, IntOrPercent::FromInt(8000), "cpu=8"},
      {"cpu=500m", kCpu, IntOrPercent::FromInt(500), "cpu=0.5"},
      {"cpu=2.25", kCpu, IntOrPercent::FromInt(2250), "cpu=2.25"},
      {"cpu=0", kCpu, IntOrPercent::FromInt(0), "cpu=0"},
      {"memory=64Gi", kMem, IntOrPercent::FromInt(int64_t{64} << 30),
       "memory=64Gi"},
      {"memory=1536Mi", kMem, IntOrPercent::FromInt(int64_t{1536} << 20),
       "memory=1536Mi"},
      {"memory=1k", kMem, IntOrPercent::FromInt(1000), "memory=1000"},
      // A fraction of a byte rounds up, as Quantity.Value().
      {"memory=1500m", kMem, IntOrPercent::FromInt(2), "memory=2"},
  };
  for (const Valid& c : valid) {
    INFO(c.text);
    absl::StatusOr<CapacityBudgetSpec> got = ParseCapacityBudget(c.text);
    REQUIRE(got.ok());
    CHECK(got->resource == c.resource);
    CHECK(got->amount == c.amount);
    CHECK(FormatCapacityBudget(*got) == c.formatted);
    CHECK(ValidateCapacityBudget(*got).ok());
  }

  struct Invalid {
    std::string text;
    absl::StatusCode code;
    std::string message;
  };
  const auto kInvalid = absl::StatusCode::kInvalidArgument;
  const std::string form = "must be <resource>=<amount>, e.g. \"cpu=20%\"";
  const std::string resource = "resource must be cpu or memory";
  const std::string percent = "percent must be an integer between 0% and 100%";
  const Invalid invalid[] = {
      {"", kInvalid, "\"\": " + form},
      {"cpu", kInvalid, "\"cpu\": " + form},
      {"20%", kInvalid, "\"20%\": " + form},
      {"gpu=1", kInvalid, "\"gpu=1\": " + resource},
      {"CPU=1", kInvalid, "\"CPU=1\": " + resource},
      {"=1", kInvalid, "\"=1\": " + resource},
      {"cpu=150%", kInvalid, "\"cpu=150%\": " + percent},
      {"cpu=101%", kInvalid, "\"cpu=101%\": " + percent},
      {"cpu=1000%", kInvalid, "\"cpu=1000%\": " + percent},
      {"cpu=-5%", kInvalid, "\"cpu=-5%\": " + percent},
      {"cpu=%", kInvalid, "\"cpu=%\": " + percent},
      {"cpu=1.5%", kInvalid, "\"cpu=1.5%\": " + percent},
      {"cpu=-1", kInvalid, "\"cpu=-1\": amount: must be >= 0"},
      {"memory=-1Gi", kInvalid, "\"memory=-1Gi\": amount: must be >= 0"},
      {"memory=8Ei", absl::StatusCode::kOutOfRange,
       "\"memory=8Ei\": amount: quantity \"8Ei\" does not fit in int64 "
       "milli-units"},
  };
  for (const Invalid& c : invalid) {
    INFO(c.text);
    absl::StatusOr<CapacityBudgetSpec> got = ParseCapacityBudget(c.text);
    REQUIRE_FALSE(got.ok());
    CHECK(got.status().code() == c.code);
    CHECK(got.status().message() == c.message);
  }
  // Malformed quantities carry ParseQuantityMilli's message.
  for (const char* text : {"cpu=1kb", "cpu=", "cpu= 1", "memory=1.2.3"}) {
    INFO(text);
    absl::StatusOr<CapacityBudgetSpec> got = ParseCapacityBudget(text);
    REQUIRE_FALSE(got.ok());
    CHECK(got.status().code() == kInvalid);
    CHECK(absl::StartsWith(got.status().message(),
                           absl::StrCat("\"", text, "\": amount: invalid ")));
  }
}

TEST_CASE("budget-ext: host-built specs are validated, not clamped",
          "[budget-ext]") {
  CHECK(ValidateRateBudget({.max_disruptions = -1}).message() ==
        "max_disruptions: \"-1\": must be >= 0");
  CHECK(
      ValidateRateBudget({.max_disruptions = 1, .window = absl::ZeroDuration()})
          .message() == "window: \"0s\": must be positive");
  CHECK(ValidateRateBudget({.max_disruptions = 1, .window = -absl::Seconds(1)})
            .message() == "window: \"-1s\": must be positive");
  CHECK(ValidateRateBudget(
            {.max_disruptions = 1, .window = absl::InfiniteDuration()})
            .message() == "window: \"inf\": must be positive and finite");
  CHECK(ValidateCapacityBudget({.amount = IntOrPercent::FromPercent(150)})
            .message() == "amount: \"150%\": must be between 0% and 100%");
  CHECK(
      ValidateCapacityBudget({.amount = IntOrPercent::FromInt(-1)}).message() ==
      "amount: \"-1\": must be >= 0");
  CHECK(ValidateCapacityBudget({.amount = IntOrPercent::FromPercent(-1)})
            .message() == "amount: \"-1%\": must be >= 0");
}

v1::NodePool PoolYaml(const std::string& name, const std::string& annotations) {
  snapshot::ObjectSet set;
  const std::string yaml = absl::StrCat(
      "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: ", name,
      "\n", annotations.empty() ? "" : "  annotations:\n", annotations,
      "spec:\n  disruption:\n    budgets: [{nodes: '100%'}]\n");
  const absl::Status st = snapshot::LoadYaml(yaml, "test", set);
  INFO(yaml << st.ToString());
  REQUIRE(st.ok());
  REQUIRE(set.node_pools.size() == 1);
  return set.node_pools[0];
}

TEST_CASE("budget-ext: NodePool annotations opt in", "[budget-ext]") {
  const std::string rate_key = "    budget.karpenter-sdk.dev/disruption-rate: ";
  const std::string cap_key =
      "    budget.karpenter-sdk.dev/disruption-capacity: ";

  absl::StatusOr<BudgetExtensions> none =
      ParseBudgetExtensions(PoolYaml("a", "    other: x\n"));
  REQUIRE(none.ok());
  CHECK_FALSE(none->rate.has_value());
  CHECK_FALSE(none->capacity.has_value());

  absl::StatusOr<BudgetExtensions> both = ParseBudgetExtensions(
      PoolYaml("a", rate_key + "'3/1h'\n" + cap_key + "'memory=64Gi'\n"));
  REQUIRE(both.ok());
  REQUIRE(both->rate.has_value());
  CHECK(both->rate->max_disruptions == 3);
  CHECK(both->rate->window == absl::Hours(1));
  REQUIRE(both->capacity.has_value());
  CHECK(both->capacity->resource == CapacityResource::kMemory);
  CHECK(both->capacity->amount == IntOrPercent::FromInt(int64_t{64} << 30));

  absl::StatusOr<BudgetExtensions> bad_rate =
      ParseBudgetExtensions(PoolYaml("a", rate_key + "'3/0s'\n"));
  CHECK(bad_rate.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(bad_rate.status().message() ==
        "metadata.annotations[\"budget.karpenter-sdk.dev/disruption-rate\"]: "
        "\"3/0s\": window must be positive");

  // An empty value is an error, not "off".
  absl::StatusOr<BudgetExtensions> empty =
      ParseBudgetExtensions(PoolYaml("a", cap_key + "''\n"));
  CHECK(empty.status().message() ==
        "metadata.annotations[\"budget.karpenter-sdk.dev/"
        "disruption-capacity\"]: \"\": must be <resource>=<amount>, e.g. "
        "\"cpu=20%\"");

  // Every problem is reported, one per line.
  absl::StatusOr<BudgetExtensions> two = ParseBudgetExtensions(
      PoolYaml("a", rate_key + "'x'\n" + cap_key + "'memory=8Ei'\n"));
  CHECK(two.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(two.status().message() ==
        "metadata.annotations[\"budget.karpenter-sdk.dev/disruption-rate\"]: "
        "\"x\": must be <count>/<window>, e.g. \"3/1h\"\n"
        "metadata.annotations[\"budget.karpenter-sdk.dev/"
        "disruption-capacity\"]: \"memory=8Ei\": amount: quantity \"8Ei\" "
        "does not fit in int64 milli-units");

  absl::StatusOr<BudgetExtensions> overflow = ParseBudgetExtensions(
      PoolYaml("a", rate_key + "'99999999999999999999/1h'\n"));
  CHECK(overflow.status().code() == absl::StatusCode::kOutOfRange);
}

// ---------------------------------------------------------------------------
// Rate budget.

const RateBudgetSpec k3PerHour = {.max_disruptions = 3,
                                  .window = absl::Hours(1)};

TEST_CASE("budget-ext: rate window excludes now - W and includes now",
          "[budget-ext]") {
  DisruptionLedger ledger;
  REQUIRE(ledger.Record("a", "exactly-w-ago", kNow - absl::Hours(1)).ok());
  REQUIRE(ledger
              .Record("a", "just-inside",
                      kNow - absl::Hours(1) + absl::Nanoseconds(1))
              .ok());
  REQUIRE(ledger.Record("a", "at-now", kNow).ok());
  REQUIRE(ledger.Record("a", "future", kNow + absl::Seconds(1)).ok());
  const RateAllowance r = ledger.Evaluate("a", k3PerHour, kNow);
  CHECK(r.in_window == 2);
  CHECK(r.remaining == 1);
  CHECK(r.next_slot == kNow);
  // One nanosecond later the oldest counted start has left the window.
  CHECK(
      ledger.Evaluate("a", k3PerHour, kNow + absl::Nanoseconds(1)).in_window ==
      1);
  // One nanosecond earlier "exactly-w-ago" is still inside, "at-now" not yet.
  CHECK(
      ledger.Evaluate("a", k3PerHour, kNow - absl::Nanoseconds(1)).in_window ==
      2);
  // Other pools are independent.
  CHECK(ledger.Evaluate("b", k3PerHour, kNow).in_window == 0);
  CHECK(ledger.Evaluate("b", k3PerHour, kNow).remaining == 3);
}

TEST_CASE("budget-ext: rate remaining and next slot", "[budget-ext]") {
  DisruptionLedger ledger;
  for (const auto& [name, t] : std::vector<std::pair<std::string, absl::Time>>{
           {"n1", At(9, 10)}, {"n2", At(9, 20)}, {"n3", At(9, 40)}}) {
    REQUIRE(ledger.Record("a", name, t).ok());
  }
  RateAllowance r = ledger.Evaluate("a", k3PerHour, kNow);
  CHECK(r.in_window == 3);
  CHECK(r.remaining == 0);
  CHECK(r.next_slot == At(10, 10));
  CHECK(r.why ==
        "rate 3/1h: 3 disruptions since 2026-11-22T09:00:00Z, 0 remaining, "
        "next slot at 2026-11-22T10:10:00Z");

  // Over budget (the host recorded more): the slot frees once two leave.
  REQUIRE(ledger.Record("a", "n4", At(9, 50)).ok());
  r = ledger.Evaluate("a", k3PerHour, kNow);
  CHECK(r.in_window == 4);
  CHECK(r.remaining == 0);
  CHECK(r.next_slot == At(10, 20));
  r = ledger.Evaluate("a", k3PerHour, At(10, 10));
  CHECK(r.in_window == 3);
  CHECK(r.next_slot == At(10, 20));
  r = ledger.Evaluate("a", k3PerHour, At(10, 20));
  CHECK(r.in_window == 2);
  CHECK(r.remaining == 1);
  CHECK(r.next_slot == At(10, 20));
  CHECK(r.why ==
        "rate 3/1h: 2 disruptions since 2026-11-22T09:20:00Z, 1 remaining");
  r = ledger.Evaluate("a", k3PerHour, At(10, 45));
  CHECK(r.why ==
        "rate 3/1h: 1 disruption since 2026-11-22T09:45:00Z, 2 remaining");

  // Rate 0: nothing, ever.
  r = ledger.Evaluate("a", {.max_disruptions = 0, .window = absl::Hours(1)},
                      At(23, 0));
  CHECK(r.in_window == 0);
  CHECK(r.remaining == 0);
  CHECK(r.next_slot == absl::InfiniteFuture());
  CHECK(r.why ==
        "rate 0/1h: 0 disruptions since 2026-11-22T22:00:00Z, 0 remaining, "
        "no disruption is ever allowed");

  // An invalid host spec fails closed.
  r = ledger.Evaluate(
      "a", {.max_disruptions = 3, .window = absl::ZeroDuration()}, kNow);
  CHECK(r.remaining == 0);
  CHECK(r.why == "fail closed: rate 3/0s: window: \"0s\": must be positive");
}

TEST_CASE("budget-ext: ledger de-duplicates by node and rejects bad input",
          "[budget-ext]") {
  DisruptionLedger ledger;
  CHECK(*ledger.Record("a", "n1", At(9, 30)));
  CHECK_FALSE(*ledger.Record("a", "n1", At(9, 45)));  // Same disruption.
  CHECK(ledger.size("a") == 1);
  CHECK(*ledger.Record("a", "n1", At(9, 5)));  // An earlier start wins.
  CHECK(ledger.size("a") == 1);
  RateAllowance r = ledger.Evaluate("a", k3PerHour, kNow);
  CHECK(r.in_window == 1);
  // Out-of-order records are kept sorted.
  CHECK(*ledger.Record("a", "n2", At(9, 50)));
  CHECK(*ledger.Record("a", "n3", At(9, 20)));
  CHECK(*ledger.Record("a", "n0", At(8, 0)));
  r = ledger.Evaluate("a", {.max_disruptions = 2, .window = absl::Hours(1)},
                      kNow);
  CHECK(r.in_window == 3);
  CHECK(r.next_slot == At(10, 20));    // n3 (09:20) is the 2nd oldest counted.
  CHECK(ledger.Prune(At(9, 5)) == 2);  // n0 and n1 (at the cutoff).
  CHECK(ledger.size("a") == 2);
  CHECK(*ledger.Record("a", "n1", At(9, 45)));  // Forgotten: new again.

  CHECK(ledger.Record("", "n", kNow).status().message() ==
        "node_pool: must be non-empty");
  CHECK(ledger.Record("a", "", kNow).status().message() ==
        "node_name: must be non-empty");
  CHECK(ledger.Record("a", "n", absl::InfiniteFuture()).status().message() ==
        "at: \"never\": must be a finite instant");
  CHECK(ledger.size("a") == 3);
}

// Node/NodeClaim builders.
struct NodeFixture {
  std::string pool;
  std::string cpu = "";     // "" = no allocatable cpu.
  std::string memory = "";  // "" = no allocatable memory.
  std::string ready = "True";
  bool initialized = true;
  bool managed = true;
  bool claim_deleting = false;
  bool instance_terminating = false;
};

// Node n<i> of `s.pool` (providerID aws:///n<i>) and, when managed, its
// NodeClaim c-n<i>, from the kit (karpenter/testing/builders.h). Returns
// the Node's name.
std::string AddNode(snapshot::ObjectSet* set, const NodeFixture& s) {
  const std::string name = absl::StrCat("n", set->nodes.size());
  testing::Labels allocatable;
  if (!s.cpu.empty()) allocatable["cpu"] = s.cpu;
  if (!s.memory.empty()) allocatable["memory"] = s.memory;
  std::vector<testing::ConditionOptions> conditions;
  if (s.instance_terminating) {
    conditions.push_back({.type = "InstanceTerminating"});
  }
  testing::ManagedNode m = testing::MakeManagedNode(
      {.name = name,
       .nodepool = s.pool,
       .initialized = s.initialized,
       .ready = s.ready,
       .allocatable = allocatable},
      {.name = "c-" + name,
       .nodepool = s.pool,
       .deleted = s.claim_deleting ? std::optional(At(9, 30)) : std::nullopt,
       .conditions = conditions});
  set->nodes.push_back(std::move(m.node));
  if (s.managed) set->node_claims.push_back(std::move(m.node_claim));
  return name;
}

snapshot::Snapshot Build(snapshot::ObjectSet set) {
  return kit_test::MustBuildSnapshot(std::move(set));
}

void AddDeletingClaim(snapshot::ObjectSet* set, const std::string& name,
                      const std::string& pool, const std::string& node,
                      absl::Time at) {
  set->node_claims.push_back(testing::MakeNodeClaim({.name = name,
                                                     .node_name = node,
                                                     .provider_id = "",
                                                     .nodepool = pool,
                                                     .deleted = at}));
}

TEST_CASE("budget-ext: seeding the ledger from a snapshot", "[budget-ext]") {
  snapshot::ObjectSet set;
  set.node_pools.push_back(PoolYaml("a", ""));
  AddNode(&set, {.pool = "a", .cpu = "2"});  // Not deleting: not seeded.
  AddDeletingClaim(&set, "c1", "a", "x1", At(9, 40));
  AddDeletingClaim(&set, "c2", "a", "x2", At(9, 10) + absl::Milliseconds(5));
  AddDeletingClaim(&set, "c3", "a", "x1", At(9, 30));  // Same node: earliest.
  AddDeletingClaim(&set, "c4", "a", "", At(9, 45));    // Never registered.
  AddDeletingClaim(&set, "c5", "", "x5", At(9, 45));   // No NodePool label.
  AddDeletingClaim(&set, "c6", "b", "x6", At(8, 0));   // Other pool.
  const snapshot::Snapshot snap = Build(std::move(set));

  DisruptionLedger ledger;
  REQUIRE(*ledger.Record("a", "x2", At(9, 50)));  // Host saw it later.
  CHECK(ledger.Seed(snap) == 3);                  // x1, x2 earlier, x6.
  CHECK(ledger.size("a") == 2);
  CHECK(ledger.size("b") == 1);
  CHECK(ledger.Seed(snap) == 0);  // Idempotent.
  RateAllowance r = ledger.Evaluate(
      "a", {.max_disruptions = 2, .window = absl::Hours(1)}, kNow);
  CHECK(r.in_window == 2);
  CHECK(r.next_slot == At(10, 10) + absl::Milliseconds(5));
  CHECK(r.why ==
        "rate 2/1h: 2 disruptions since 2026-11-22T09:00:00Z, 0 remaining, "
        "next slot at 2026-11-22T10:10:00.005Z");
  // Recording after seeding keeps order.
  REQUIRE(*ledger.Record("a", "x7", At(9, 55)));
  CHECK(ledger.Evaluate("a", k3PerHour, kNow).in_window == 3);
}

// ---------------------------------------------------------------------------
// Capacity budget.

CapacityBudgetSpec Cap(const std::string& text) {
  absl::StatusOr<CapacityBudgetSpec> spec = ParseCapacityBudget(text);
  REQUIRE(spec.ok());
  return *spec;
}

CapacityEvaluation EvaluateOk(const snapshot::Snapshot& snap,
                              const std::string& pool,
                              const std::string& spec) {
  absl::StatusOr<CapacityEvaluation> e =
      CapacityBook::Build(snap).Evaluate(pool, Cap(spec));
  INFO(e.status().ToString());
  REQUIRE(e.ok());
  return *std::move(e);
}

TEST_CASE("budget-ext: capacity percentages round up to the unit",
          "[budget-ext]") {
  snapshot::ObjectSet set;
  set.node_pools.push_back(PoolYaml("a", ""));
  set.node_pools.push_back(PoolYaml("big", ""));
  for (int i = 0; i < 3; ++i) {
    AddNode(&set, {.pool = "a", .cpu = "333m", .memory = "333"});
  }
  // 10 x 1Pi + 7 bytes: p * total exceeds 2^53, so doubles would round.
  for (int i = 0; i < 9; ++i) {
    AddNode(&set, {.pool = "big", .cpu = "1", .memory = "1Pi"});
  }
  AddNode(&set, {.pool = "big", .cpu = "1", .memory = "1125899906842631"});
  const snapshot::Snapshot snap = Build(std::move(set));
  struct Case {
    std::string pool, spec;
    int64_t total, allowance;
  };
  const int64_t pi = int64_t{1} << 50;
  const Case cases[] = {
      {"a", "cpu=10%", 999, 100},  // ceil(99.9) millicores.
      {"a", "cpu=1%", 999, 10},    // ceil(9.99).
      {"a", "cpu=0%", 999, 0},
      {"a", "cpu=100%", 999, 999},
      {"a", "memory=10%", 999, 100},  // Bytes.
      {"a", "cpu=2", 999, 2000},      // Absolute: as given, not capped.
      {"big", "memory=33%", 10 * pi + 7, 3715469692580662},
      {"big", "memory=1%", 10 * pi + 7, 112589990684263},
  };
  for (const Case& c : cases) {
    INFO(c.pool << " " << c.spec);
    const CapacityEvaluation e = EvaluateOk(snap, c.pool, c.spec);
    CHECK(e.total() == c.total);
    CHECK(e.allowance() == c.allowance);
    CHECK(e.remaining() == c.allowance);
    CHECK_FALSE(e.fail_closed());
  }
  CHECK(EvaluateOk(snap, "a", "cpu=10%").why() ==
        "capacity cpu=10%: allowance 0.1 of 0.999 (10% rounded up to the "
        "millicore), 0 disrupting, 0.1 remaining");
  CHECK(EvaluateOk(snap, "a", "memory=10%").why() ==
        "capacity memory=10%: allowance 100 of 999 (10% rounded up to the "
        "byte), 0 disrupting, 100 remaining");
  CHECK(EvaluateOk(snap, "a", "cpu=2").why() ==
        "capacity cpu=2: allowance 2 of 0.999, 0 disrupting, 2 remaining");
}

TEST_CASE(
    "budget-ext: mixed node sizes, node count versus CPU share (drift "
    "design)",
    "[budget-ext]") {
  snapshot::ObjectSet set;
  set.node_pools.push_back(PoolYaml("mixed", ""));
  const std::string big =
      AddNode(&set, {.pool = "mixed", .cpu = "96", .memory = "384Gi"});
  std::vector<std::string> small;
  for (int i = 0; i < 9; ++i) {
    small.push_back(
        AddNode(&set, {.pool = "mixed", .cpu = "2", .memory = "8Gi"}));
  }
  // Karpenter's node-count budget: 10% of 10 nodes = 1 node, whichever it
  // is: 96 of 114 CPUs (84%) or 2 of 114 (1.8%).
  set.node_pools[0]
      .mutable_spec()
      ->mutable_disruption()
      ->mutable_budgets(0)
      ->set_nodes("10%");
  const snapshot::Snapshot snap = Build(std::move(set));
  const BudgetMapping m = BuildBudgetMapping(snap, kNow);
  CHECK(m.Remaining("mixed", DisruptionReason::kDrifted) == 1);

  const CapacityEvaluation e = EvaluateOk(snap, "mixed", "cpu=10%");
  CHECK(e.total() == 114000);
  CHECK(e.allowance() == 11400);
  absl::StatusOr<CapacityVerdict> v = e.CanDisrupt(snap, {big});
  REQUIRE(v.ok());
  CHECK_FALSE(v->allowed);
  CHECK(v->cost == 96000);
  CHECK(v->why ==
        "capacity cpu=10%: 0 disrupting + 96 from candidates = 96 > allowance "
        "11.4 (of 114)");
  const std::vector<std::string> five(small.begin(), small.begin() + 5);
  v = e.CanDisrupt(snap, five);
  REQUIRE(v.ok());
  CHECK(v->allowed);
  CHECK(v->cost == 10000);
  CHECK(v->why ==
        "capacity cpu=10%: 0 disrupting + 10 from candidates = 10 <= "
        "allowance 11.4 (of 114)");
  const std::vector<std::string> six(small.begin(), small.begin() + 6);
  CHECK_FALSE(e.CanDisrupt(snap, six)->allowed);

  // Greedy prefix in the caller's order.
  std::vector<snapshot::NodeIndex> smalls;
  for (const std::string& s : small) smalls.push_back(*snap.FindNode(s));
  absl::StatusOr<CapacityPrefix> p = e.LongestFittingPrefix(smalls);
  REQUIRE(p.ok());
  CHECK(p->length == 5);
  CHECK(p->cost == 10000);
  CHECK(p->why ==
        "capacity cpu=10%: first 5 of 9 candidates fit, adding 10 of "
        "remaining 11.4; node \"n6\" would add 2");
  std::vector<snapshot::NodeIndex> big_first = {*snap.FindNode(big)};
  big_first.insert(big_first.end(), smalls.begin(), smalls.end());
  CHECK(e.LongestFittingPrefix(big_first)->length == 0);
  // Duplicates cost once.
  const std::vector<snapshot::NodeIndex> dup = {smalls[0], smalls[0],
                                                smalls[1]};
  p = e.LongestFittingPrefix(dup);
  CHECK(p->length == 3);
  CHECK(p->cost == 4000);
  CHECK(p->why ==
        "capacity cpu=10%: all 3 candidates fit, adding 4 of remaining 11.4");
  CHECK(e.LongestFittingPrefix({})->length == 0);

  // The memory view of the same pool: 10% of 456Gi.
  const CapacityEvaluation mem = EvaluateOk(snap, "mixed", "memory=10%");
  CHECK(mem.total() == int64_t{456} << 30);
  CHECK(mem.allowance() == ((int64_t{456} << 30) + 9) / 10);
}

TEST_CASE("budget-ext: capacity uses BudgetBook's nodes and disrupting rule",
          "[budget-ext]") {
  snapshot::ObjectSet set;
  set.node_pools.push_back(PoolYaml("a", ""));
  set.node_pools.push_back(PoolYaml("b", ""));
  const std::string ok = AddNode(&set, {.pool = "a", .cpu = "4"});
  const std::string not_ready =
      AddNode(&set, {.pool = "a", .cpu = "4", .ready = "Unknown"});
  const std::string deleting =
      AddNode(&set, {.pool = "a", .cpu = "2", .claim_deleting = true});
  const std::string ok2 = AddNode(&set, {.pool = "a", .cpu = "10"});
  // Not counted (and missing allocatable does not matter for them).
  const std::string uninit = AddNode(&set, {.pool = "a", .initialized = false});
  AddNode(&set, {.pool = "a", .managed = false});
  AddNode(&set, {.pool = "a", .instance_terminating = true});
  const std::string other = AddNode(&set, {.pool = "b", .cpu = "64"});
  const snapshot::Snapshot snap = Build(std::move(set));

  const CapacityEvaluation e = EvaluateOk(snap, "a", "cpu=50%");
  CHECK(e.total() == 20000);
  CHECK(e.disrupting() == 6000);
  CHECK(e.allowance() == 10000);
  CHECK(e.remaining() == 4000);
  CHECK(e.why() ==
        "capacity cpu=50%: allowance 10 of 20 (50% rounded up to the "
        "millicore), 6 disrupting, 4 remaining");
  // Already disrupting nodes cost nothing more.
  absl::StatusOr<CapacityVerdict> v = e.CanDisrupt(snap, {not_ready, deleting});
  REQUIRE(v.ok());
  CHECK(v->allowed);
  CHECK(v->cost == 0);
  CHECK(v->why ==
        "capacity cpu=50%: the candidates add nothing (none, or all already "
        "disrupting)");
  CHECK(e.CanDisrupt(snap, {ok, deleting})->allowed);  // 6 + 4 <= 10.
  CHECK_FALSE(e.CanDisrupt(snap, {ok2})->allowed);
  CHECK(e.CanDisrupt(snap, {ok, ok})->cost == 4000);

  // Absolute amounts are not scaled; an allowance below what is already
  // disrupting leaves nothing.
  const CapacityEvaluation abs = EvaluateOk(snap, "a", "cpu=5");
  CHECK(abs.remaining() == 0);
  CHECK_FALSE(abs.CanDisrupt(snap, {ok})->allowed);
  CHECK(abs.CanDisrupt(snap, {deleting})->allowed);

  // Candidates the pool does not count are caller errors.
  absl::StatusOr<CapacityVerdict> err = e.CanDisrupt(snap, {other});
  CHECK(err.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(err.status().message() ==
        absl::StrCat("node index \"", *snap.FindNode(other),
                     "\": not a counted node of NodePool \"a\""));
  CHECK_FALSE(e.CanDisrupt(snap, {uninit}).ok());
  CHECK_FALSE(e.CanDisrupt(std::vector<snapshot::NodeIndex>{999}).ok());
  CHECK_FALSE(e.LongestFittingPrefix({*snap.FindNode(other)}).ok());
  err = e.CanDisrupt(snap, {"nope"});
  CHECK(err.status().code() == absl::StatusCode::kNotFound);
  CHECK(err.status().message() == "node \"nope\": not in the snapshot");
}

TEST_CASE("budget-ext: capacity fails closed on unreadable allocatable",
          "[budget-ext]") {
  struct Case {
    std::string cpu;
    std::string message;
  };
  const Case cases[] = {
      {"", "node \"n1\": status.allocatable[\"cpu\"] is missing"},
      {"-2", "node \"n1\": status.allocatable[\"cpu\"]: \"-2\": must be >= 0"},
      {"lots",
       "node \"n1\": status.allocatable[\"cpu\"]: \"lots\": invalid quantity "},
  };
  for (const Case& c : cases) {
    INFO(c.cpu);
    snapshot::ObjectSet set;
    set.node_pools.push_back(PoolYaml("a", ""));
    const std::string good =
        AddNode(&set, {.pool = "a", .cpu = "4", .memory = "1Gi"});
    AddNode(&set, {.pool = "a", .cpu = c.cpu, .memory = "1Gi"});
    AddNode(&set, {.pool = "a", .memory = "1Gi"});
    const snapshot::Snapshot snap = Build(std::move(set));
    const CapacityEvaluation e = EvaluateOk(snap, "a", "cpu=100%");
    CHECK(e.fail_closed());
    CHECK(e.allowance() == 0);
    CHECK(e.remaining() == 0);
    CHECK(absl::StartsWith(e.why(),
                           "fail closed: capacity cpu=100%: " + c.message));
    CHECK(absl::EndsWith(e.why(), " (2 of 3 nodes unreadable)"));
    absl::StatusOr<CapacityVerdict> v = e.CanDisrupt(snap, {good});
    REQUIRE(v.ok());
    CHECK_FALSE(v->allowed);
    CHECK(v->why == e.why());
    CHECK(e.CanDisrupt(snap, std::vector<std::string>{})->allowed);
    CHECK(e.LongestFittingPrefix({*snap.FindNode(good)})->length == 0);
    // Memory is readable on every node: that view is unaffected.
    const CapacityEvaluation mem = EvaluateOk(snap, "a", "memory=100%");
    CHECK_FALSE(mem.fail_closed());
    CHECK(mem.CanDisrupt(snap, {good})->allowed);
  }
}

TEST_CASE("budget-ext: capacity evaluation errors", "[budget-ext]") {
  snapshot::ObjectSet set;
  set.node_pools.push_back(PoolYaml("a", ""));
  AddNode(&set, {.pool = "a", .cpu = "9000000000000000"});
  AddNode(&set, {.pool = "a", .cpu = "9000000000000000"});
  const snapshot::Snapshot snap = Build(std::move(set));
  const CapacityBook book = CapacityBook::Build(snap);
  absl::StatusOr<CapacityEvaluation> e = book.Evaluate("a", Cap("cpu=10%"));
  CHECK(e.status().code() == absl::StatusCode::kOutOfRange);
  CHECK(e.status().message() ==
        "NodePool \"a\": total allocatable cpu overflows int64");
  e = book.Evaluate("zz", Cap("cpu=10%"));
  CHECK(e.status().code() == absl::StatusCode::kNotFound);
  CHECK(e.status().message() == "NodePool \"zz\": not in the snapshot");
  e = book.Evaluate("a", {.amount = IntOrPercent::FromPercent(101)});
  CHECK(e.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(e.status().message() ==
        "amount: \"101%\": must be between 0% and 100%");
  // An empty pool has nothing to disrupt and allows 0.
  snapshot::ObjectSet empty_set;
  empty_set.node_pools.push_back(PoolYaml("e", ""));
  const snapshot::Snapshot empty = Build(std::move(empty_set));
  const CapacityEvaluation none = EvaluateOk(empty, "e", "cpu=100%");
  CHECK(none.total() == 0);
  CHECK(none.allowance() == 0);
}

// ---------------------------------------------------------------------------
// Combination.

TEST_CASE("budget-ext: rate combines with the NodePool budget by minimum",
          "[budget-ext]") {
  snapshot::ObjectSet set;
  set.node_pools.push_back(PoolYaml("a", ""));
  set.node_pools[0]
      .mutable_spec()
      ->mutable_disruption()
      ->mutable_budgets(0)
      ->set_nodes("50%");
  for (int i = 0; i < 9; ++i) AddNode(&set, {.pool = "a", .cpu = "1"});
  AddNode(&set, {.pool = "a", .cpu = "1", .ready = "False"});
  const snapshot::Snapshot snap = Build(std::move(set));
  const BudgetMapping m = BuildBudgetMapping(snap, kNow);
  const NodePoolBudget& pool = m.node_pools[0];
  const DisruptionReason drifted = DisruptionReason::kDrifted;
  REQUIRE(pool.remaining[static_cast<size_t>(drifted)] == 4);  // 5 - 1.

  // No rate configured: Karpenter's number, unchanged.
  CombinedAllowance c = CombineWithRate(pool, drifted, std::nullopt);
  CHECK(c.remaining == 4);
  CHECK_FALSE(c.rate_limits);
  CHECK(c.why ==
        "NodePool budget: budgets[0] nodes \"50%\" of 10 nodes = 5, 1 "
        "disrupting, 4 remaining");

  DisruptionLedger ledger;
  REQUIRE(*ledger.Record("a", "old", At(9, 15)));
  REQUIRE(*ledger.Record("a", "older", At(9, 5)));
  c = CombineWithRate(pool, drifted, ledger.Evaluate("a", k3PerHour, kNow));
  CHECK(c.remaining == 1);
  CHECK(c.rate_limits);
  CHECK(c.why ==
        "rate 3/1h: 2 disruptions since 2026-11-22T09:00:00Z, 1 remaining; "
        "NodePool budget allows 4");

  const RateBudgetSpec generous = {.max_disruptions = 10,
                                   .window = absl::Minutes(30)};
  c = CombineWithRate(pool, drifted, ledger.Evaluate("a", generous, kNow));
  CHECK(c.remaining == 4);
  CHECK_FALSE(c.rate_limits);
  CHECK(c.why ==
        "NodePool budget: budgets[0] nodes \"50%\" of 10 nodes = 5, 1 "
        "disrupting, 4 remaining; rate 10/30m allows 10");

  // A tie names the NodePool budget.
  const RateBudgetSpec tie = {.max_disruptions = 6, .window = absl::Hours(1)};
  c = CombineWithRate(pool, drifted, ledger.Evaluate("a", tie, kNow));
  CHECK(c.remaining == 4);
  CHECK_FALSE(c.rate_limits);
}

TEST_CASE("budget-ext: without annotations nothing changes", "[budget-ext]") {
  const v1::NodePool np = PoolYaml("a", "");
  absl::StatusOr<BudgetExtensions> ext = ParseBudgetExtensions(np);
  REQUIRE(ext.ok());
  CHECK_FALSE(ext->rate.has_value());
  CHECK_FALSE(ext->capacity.has_value());
  snapshot::ObjectSet set;
  set.node_pools.push_back(np);
  for (int i = 0; i < 4; ++i) AddNode(&set, {.pool = "a", .cpu = "1"});
  const snapshot::Snapshot snap = Build(std::move(set));
  const BudgetMapping m = BuildBudgetMapping(snap, kNow);
  const DisruptionLedger ledger;
  std::optional<RateAllowance> rate;
  if (ext->rate.has_value()) rate = ledger.Evaluate("a", *ext->rate, kNow);
  for (DisruptionReason r : kAllDisruptionReasons) {
    const CombinedAllowance c = CombineWithRate(m.node_pools[0], r, rate);
    CHECK(c.remaining == m.Remaining("a", r));
  }
}

}  // namespace
}  // namespace karpenter::budget
