// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Expected Next() values in the tables below were produced by running
// robfig/cron v3.0.1 itself (cron.ParseStandard(spec).Next(after) under Go
// 1.19 with the system zoneinfo, time.Local = UTC) on each (spec, after)
// pair; they are facts about the reference, not re-derivations.

#include "karpenter/cron.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace karpenter {
namespace {

// Marks a case where robfig returns the zero time (it gives up).
constexpr const char* kNever = nullptr;

struct NextCase {
  const char* spec;
  const char* after;  // RFC 3339, UTC, optional fraction.
  const char* want;   // RFC 3339 or kNever.
};

absl::Time T(absl::string_view rfc3339) {
  absl::Time t;
  std::string err;
  REQUIRE(absl::ParseTime(absl::RFC3339_full, rfc3339, &t, &err));
  return t;
}

std::string Show(absl::Time t) {
  return absl::FormatTime(absl::RFC3339_full, t, absl::UTCTimeZone());
}

void CheckNext(const NextCase& c) {
  INFO("spec: \"" << c.spec << "\" after " << c.after);
  const absl::StatusOr<CronSchedule> s = CronSchedule::Parse(c.spec);
  REQUIRE(s.ok());
  const absl::Time got = s->Next(T(c.after));
  const absl::Time want = c.want == kNever ? absl::InfiniteFuture() : T(c.want);
  CHECK(Show(got) == Show(want));
}

TEST_CASE("cron: every descriptor and @every", "[cron][descriptor]") {
  const NextCase kCases[] = {
      {"@yearly", "2024-03-09T12:00:00Z", "2025-01-01T00:00:00Z"},
      {"@annually", "2024-03-09T12:00:00Z", "2025-01-01T00:00:00Z"},
      {"@monthly", "2024-03-09T12:00:00Z", "2024-04-01T00:00:00Z"},
      {"@weekly", "2024-03-09T12:00:00Z", "2024-03-10T00:00:00Z"},
      {"@daily", "2024-03-09T12:00:00Z", "2024-03-10T00:00:00Z"},
      {"@midnight", "2024-03-09T12:00:00Z", "2024-03-10T00:00:00Z"},
      {"@hourly", "2024-03-09T12:00:00Z", "2024-03-09T13:00:00Z"},
      {"@every 1h", "2024-03-09T12:00:00.700Z", "2024-03-09T13:00:00Z"},
      {"@every 90m", "2024-03-09T12:00:00Z", "2024-03-09T13:30:00Z"},
      {"@every 1.5s", "2024-03-09T12:00:00Z", "2024-03-09T12:00:01Z"},
      {"@every 500ms", "2024-03-09T12:00:00.250Z", "2024-03-09T12:00:01Z"},
      {"@every -3h", "2024-03-09T12:00:00Z", "2024-03-09T12:00:01Z"},
      {"@every 0", "2024-03-09T12:00:00Z", "2024-03-09T12:00:01Z"},
      {"@every 1h30m10.9s", "2024-03-09T12:00:00Z", "2024-03-09T13:30:10Z"},
      {"TZ=America/New_York @every 1h", "2024-03-10T06:30:00Z",
       "2024-03-10T07:30:00Z"},
      {"TZ=America/New_York @weekly", "2024-03-09T12:00:00Z",
       "2024-03-10T05:00:00Z"},
  };
  for (const NextCase& c : kCases) CheckNext(c);
}

TEST_CASE("cron: names, ranges, steps, lists and whitespace",
          "[cron][syntax]") {
  const NextCase kCases[] = {
      {"0 0 1 jan *", "2024-03-09T12:00:00Z", "2025-01-01T00:00:00Z"},
      {"0 0 1 JAN,Jul *", "2024-03-09T12:00:00Z", "2024-07-01T00:00:00Z"},
      {"0 9 * * MON-FRI", "2024-03-09T12:00:00Z", "2024-03-11T09:00:00Z"},
      {"0 9 * * mon-fri", "2024-03-08T12:00:00Z", "2024-03-11T09:00:00Z"},
      {"0 9 * * Sat,sun", "2024-03-08T12:00:00Z", "2024-03-09T09:00:00Z"},
      {"0 0 * feb-apr *", "2024-05-09T12:00:00Z", "2025-02-01T00:00:00Z"},
      {"15-17 * * * *", "2024-03-09T12:17:00Z", "2024-03-09T13:15:00Z"},
      {"*/15 * * * *", "2024-03-09T12:16:00Z", "2024-03-09T12:30:00Z"},
      {"10-40/15 * * * *", "2024-03-09T12:26:00Z", "2024-03-09T12:40:00Z"},
      {"50/5 * * * *", "2024-03-09T12:56:00Z", "2024-03-09T13:50:00Z"},
      {"5,,55 * * * *", "2024-03-09T12:06:00Z", "2024-03-09T12:55:00Z"},
      {"? ? ? ? ?", "2024-03-09T12:00:00Z", "2024-03-09T12:01:00Z"},
      {"*-5 3 * * *", "2024-03-09T12:00:00Z", "2024-03-10T03:00:00Z"},
      {"*/1 */1 */1 */1 */1", "2024-03-09T12:00:30Z", "2024-03-09T12:01:00Z"},
      {"0 */7 * * *", "2024-03-09T15:00:00Z", "2024-03-09T21:00:00Z"},
      {"0 0 */10 * *", "2024-03-09T12:00:00Z", "2024-03-11T00:00:00Z"},
      {"0 0 * */5 *", "2024-03-09T12:00:00Z", "2024-06-01T00:00:00Z"},
      {"+5 007 * * *", "2024-03-09T12:00:00Z", "2024-03-10T07:05:00Z"},
      {"0\t0  *\n* *", "2024-03-09T12:00:00Z", "2024-03-10T00:00:00Z"},
      {"59 23 31 12 *", "2024-03-09T12:00:00Z", "2024-12-31T23:59:00Z"},
      {"0 0 * * fr\u0130", "2024-03-09T12:00:00Z", "2024-03-15T00:00:00Z"},
      {"0 12 * * *", "2024-03-09T12:00:00Z", "2024-03-10T12:00:00Z"},
  };
  for (const NextCase& c : kCases) CheckNext(c);
}

TEST_CASE("cron: day-of-month/day-of-week Vixie rule", "[cron][dayrule]") {
  const NextCase kCases[] = {
      {"0 0 1 * mon", "2024-03-09T12:00:00Z", "2024-03-11T00:00:00Z"},
      {"0 0 1 * mon", "2024-03-11T00:00:00Z", "2024-03-18T00:00:00Z"},
      {"0 0 1 * mon", "2024-03-25T00:00:00Z", "2024-04-01T00:00:00Z"},
      {"0 0 1-31 * mon", "2024-03-09T12:00:00Z", "2024-03-10T00:00:00Z"},
      {"0 0 13 * fri", "2024-03-09T12:00:00Z", "2024-03-13T00:00:00Z"},
      {"0 0 * * fri", "2024-03-09T12:00:00Z", "2024-03-15T00:00:00Z"},
      {"0 0 13 * *", "2024-03-09T12:00:00Z", "2024-03-13T00:00:00Z"},
      {"0 0 13 * */1", "2024-03-09T12:00:00Z", "2024-03-13T00:00:00Z"},
      {"0 0 13 * */2", "2024-03-09T12:00:00Z", "2024-03-10T00:00:00Z"},
      {"0 0 */2 * fri", "2024-03-09T12:00:00Z", "2024-03-11T00:00:00Z"},
      {"0 0 ? * fri", "2024-03-09T12:00:00Z", "2024-03-15T00:00:00Z"},
  };
  for (const NextCase& c : kCases) CheckNext(c);
}

TEST_CASE("cron: never-firing specs and the five-year limit", "[cron][never]") {
  const NextCase kCases[] = {
      {"0 0 31 2 *", "2024-03-09T12:00:00Z", kNever},
      {"0 0 30 2 *", "2024-03-09T12:00:00Z", kNever},
      {"0 0 31 4,6,9,11 *", "2024-03-09T12:00:00Z", kNever},
      {"0 0 29 2 *", "2024-03-09T12:00:00Z", "2028-02-29T00:00:00Z"},
      {"0 0 29 2 *", "2095-03-01T00:00:00Z", "2096-02-29T00:00:00Z"},
      {"0 0 29 2 *", "2097-03-01T00:00:00Z", kNever},
      {"0 0 29 2 *", "2096-02-29T00:00:00Z", kNever},
      {", * * * *", "2024-03-09T12:00:00Z", kNever},
      {"0 , * * *", "2024-03-09T12:00:00Z", kNever},
      {"0 0 , * *", "2024-03-09T12:00:00Z", kNever},
      {"0 0 * , *", "2024-03-09T12:00:00Z", kNever},
      {"0 0 * * ,", "2024-03-09T12:00:00Z", kNever},
      {"0 0 , * mon", "2024-03-09T12:00:00Z", "2024-03-11T00:00:00Z"},
      {"0 0 1 * ,", "2024-03-09T12:00:00Z", "2024-04-01T00:00:00Z"},
      {"0 0 31 2 mon", "2024-03-09T12:00:00Z", "2025-02-03T00:00:00Z"},
  };
  for (const NextCase& c : kCases) CheckNext(c);
}

TEST_CASE("cron: Next is strictly after at whole seconds", "[cron][strict]") {
  const NextCase kCases[] = {
      {"0 * * * *", "2024-03-09T12:00:00Z", "2024-03-09T13:00:00Z"},
      {"0 * * * *", "2024-03-09T11:59:59Z", "2024-03-09T12:00:00Z"},
      {"0 * * * *", "2024-03-09T11:59:59.999999999Z", "2024-03-09T12:00:00Z"},
      {"0 * * * *", "2024-03-09T12:00:00.000000001Z", "2024-03-09T13:00:00Z"},
      {"* * * * *", "2024-03-09T12:00:00Z", "2024-03-09T12:01:00Z"},
      {"* * * * *", "2024-03-09T12:00:59.5Z", "2024-03-09T12:01:00Z"},
      {"* * * * *", "1969-12-31T23:59:59.5Z", "1970-01-01T00:00:00Z"},
      {"0 0 * * *", "1960-06-15T08:00:00Z", "1960-06-16T00:00:00Z"},
      {"0 0 1 1 *", "2024-12-31T23:59:59Z", "2025-01-01T00:00:00Z"},
  };
  for (const NextCase& c : kCases) CheckNext(c);
}

TEST_CASE("cron: time zones and DST transitions match robfig", "[cron][dst]") {
  const NextCase kCases[] = {
      {"CRON_TZ=America/New_York 30 2 * * *", "2024-03-09T12:00:00Z",
       "2024-03-11T06:30:00Z"},
      {"CRON_TZ=America/New_York 30 2 * * *", "2024-03-10T06:59:59Z",
       "2024-03-11T06:30:00Z"},
      {"CRON_TZ=America/New_York 0 2 * * *", "2024-03-09T12:00:00Z",
       "2024-03-11T06:00:00Z"},
      {"CRON_TZ=America/New_York 30 1 * * *", "2024-11-02T12:00:00Z",
       "2024-11-03T05:30:00Z"},
      {"CRON_TZ=America/New_York 30 1 * * *", "2024-11-03T05:30:00Z",
       "2024-11-03T06:30:00Z"},
      {"CRON_TZ=America/New_York 30 1 * * *", "2024-11-03T06:30:00Z",
       "2024-11-04T06:30:00Z"},
      {"CRON_TZ=America/New_York 0 * * * *", "2024-03-10T05:00:00Z",
       "2024-03-10T06:00:00Z"},
      {"CRON_TZ=America/New_York 0 * * * *", "2024-03-10T06:00:00Z",
       "2024-03-10T07:00:00Z"},
      {"CRON_TZ=America/New_York 0 * * * *", "2024-03-10T06:30:00Z",
       "2024-03-10T07:00:00Z"},
      {"CRON_TZ=America/New_York 0 * * * *", "2024-11-03T04:00:00Z",
       "2024-11-03T05:00:00Z"},
      {"CRON_TZ=America/New_York 0 * * * *", "2024-11-03T05:00:00Z",
       "2024-11-03T06:00:00Z"},
      {"CRON_TZ=America/New_York 0 * * * *", "2024-11-03T05:30:00Z",
       "2024-11-03T06:00:00Z"},
      {"CRON_TZ=America/New_York 0 * * * *", "2024-11-03T06:00:00Z",
       "2024-11-03T07:00:00Z"},
      {"CRON_TZ=America/New_York 0 0 * * *", "2024-03-09T12:00:00Z",
       "2024-03-10T05:00:00Z"},
      {"TZ=America/New_York 0 9 * * *", "2024-03-09T15:00:00Z",
       "2024-03-10T13:00:00Z"},
      {"TZ=America/New_York 0 9 * * *", "2024-11-02T15:00:00Z",
       "2024-11-03T14:00:00Z"},
      {"TZ=Europe/London 30 1 * * *", "2024-03-30T12:00:00Z",
       "2024-04-01T00:30:00Z"},
      {"TZ=Europe/London 30 1 * * *", "2024-10-26T12:00:00Z",
       "2024-10-27T00:30:00Z"},
      {"TZ=America/Sao_Paulo 0 0 * * *", "2018-11-03T12:00:00Z",
       "2018-11-05T02:00:00Z"},
      {"TZ=America/Sao_Paulo 0 0 4 11 *", "2018-11-01T12:00:00Z",
       "2019-11-04T03:00:00Z"},
      {"TZ=America/Sao_Paulo 0 12 4 11 *", "2018-11-01T12:00:00Z",
       "2018-11-04T14:00:00Z"},
      {"TZ=Australia/Lord_Howe 15 2 * * *", "2024-10-05T12:00:00Z",
       "2024-10-06T15:15:00Z"},
      {"TZ=Asia/Kolkata 0 0 * * *", "2024-03-09T12:00:00Z",
       "2024-03-09T18:30:00Z"},
      {"TZ=UTC 0 0 * * *", "2024-03-09T12:00:00Z", "2024-03-10T00:00:00Z"},
      {"TZ= 0 0 * * *", "2024-03-09T12:00:00Z", "2024-03-10T00:00:00Z"},
      {"TZ=Etc/GMT+5 0 0 * * *", "2024-03-09T12:00:00Z",
       "2024-03-10T05:00:00Z"},
      {"TZ=America/New_York 0 12 * * *", "1883-11-18T12:00:00Z",
       "1883-11-18T16:56:02Z"},
      {"TZ=America/New_York 30 * * * *", "1850-06-01T12:00:00Z",
       "1850-06-01T13:26:02Z"},
  };
  for (const NextCase& c : kCases) CheckNext(c);
}

TEST_CASE("cron: parse errors name the field and keep robfig's wording",
          "[cron][errors]") {
  struct ErrorCase {
    const char* spec;
    const char* want;  // Substring of the message, before the quoted spec.
  };
  const ErrorCase kCases[] = {
      {"0 0 * * 7",
       "day-of-week: 7 out of range 0-6 (end of range (7) above maximum (6): "
       "7)"},
      {"0 0 * * tue-mon",
       "day-of-week: invalid range tue-mon (beginning of range (2) beyond end "
       "of range (1): tue-mon)"},
      {"*/0 * * * *",
       "minute: invalid step */0 (step of range should be a positive number: "
       "*/0)"},
      {"1-2-3 * * * *",
       "minute: invalid range 1-2-3 (too many hyphens: 1-2-3)"},
      {"1/2/3 * * * *", "minute: invalid step 1/2/3 (too many slashes: 1/2/3)"},
      {"60 * * * *",
       "minute: 60 out of range 0-59 (end of range (60) above maximum (59): "
       "60)"},
      {"0 24 * * *", "hour: 24 out of range 0-23 (end of range (24) above"},
      {"0 0 0 * *",
       "day-of-month: 0 out of range 1-31 (beginning of range (0) below "
       "minimum (1): 0)"},
      {"0 0 32 * *", "day-of-month: 32 out of range 1-31 (end of range (32)"},
      {"0 0 * 13 *",
       "month: 13 out of range 1-12 (end of range (13) above maximum (12): "
       "13)"},
      {"0 0 * 0 *", "month: 0 out of range 1-12 (beginning of range (0) below"},
      {"abc * * * *",
       "minute: invalid value abc (failed to parse int from abc: "
       "strconv.Atoi: parsing \"abc\": invalid syntax)"},
      // "-5" splits into an empty start and "5", as in robfig.
      {"-5 * * * *",
       "minute: invalid value -5 (failed to parse int from : strconv.Atoi: "
       "parsing \"\": invalid syntax)"},
      {"*/-1 * * * *",
       "minute: invalid step */-1 (negative number (-1) not allowed: -1)"},
      {"99999999999999999999 * * * *",
       "strconv.Atoi: parsing \"99999999999999999999\": value out of range"},
      {"5/abc * * * *", "minute: invalid step 5/abc (failed to parse int"},
      // "N/S" means N-max/S, so an N above max is "beyond end of range".
      {"60/5 * * * *",
       "minute: invalid range 60/5 (beginning of range (60) beyond end of "
       "range (59): 60/5)"},
      {"0 0 * jan-foo *",
       "month: invalid value jan-foo (failed to parse int "
       "from foo"},
      {"0 0 * * sunday", "day-of-week: invalid value sunday"},
      // The first bad field wins; later fields are not looked at.
      {"60 24 * * 7", "minute: 60 out of range"},
      {"1,2,x,99 * * * *", "minute: invalid value x"},
      {"0 0 * *", "expected exactly 5 fields, found 4: [0 0 * *]"},
      {"0 0 * * * *", "expected exactly 5 fields, found 6: [0 0 * * * *]"},
      {" ", "expected exactly 5 fields, found 0: []"},
      {"", "empty spec string"},
      {"@DAILY", "unrecognized descriptor: @DAILY"},
      {"@every", "unrecognized descriptor: @every"},
      {" @daily", "expected exactly 5 fields, found 1: [@daily]"},
      {"@every 1x",
       "failed to parse duration @every 1x: time: unknown unit \"x\" in "
       "duration \"1x\""},
      {"@every 1h ", "failed to parse duration @every 1h : time: unknown unit"},
      {"@every 9223372036854775808ns", "time: invalid duration"},
      {"TZ=Mars/Olympus 0 0 * * *",
       "provided bad location Mars/Olympus: unknown time zone Mars/Olympus"},
      {"TZ=../../etc/passwd 0 0 * * *",
       "provided bad location ../../etc/passwd: time: invalid location name"},
      {"TZ=/usr/share/zoneinfo/UTC 0 0 * * *", "time: invalid location name"},
      {"TZ=Fixed/UTC+01:00:00 0 0 * * *", "unknown time zone Fixed/UTC+"},
      {"TZ=libc:UTC 0 0 * * *", "unknown time zone libc:UTC"},
      {"TZ=file:UTC 0 0 * * *", "unknown time zone file:UTC"},
      {"TZ=America 0 0 * * *", "provided bad location America: "},
      {"@every 1\xff", "time: unknown unit \"\\xff\" in duration \"1\\xff\""},
      // robfig panics on these two.
      {"TZ=UTC", "time zone prefix is not followed by a space"},
      {"CRON_TZ=America/New_York", "time zone prefix is not followed"},
      // Karpenter's own failure mode: "TZ=UTC " + a user zone prefix.
      {"TZ=UTC CRON_TZ=America/New_York 0 9 * * *",
       "expected exactly 5 fields, found 6"},
  };
  for (const ErrorCase& c : kCases) {
    INFO("spec: \"" << c.spec << "\"");
    const absl::StatusOr<CronSchedule> s = CronSchedule::Parse(c.spec);
    REQUIRE_FALSE(s.ok());
    CHECK(absl::IsInvalidArgument(s.status()));
    const std::string message(s.status().message());
    CHECK_THAT(message, Catch::Contains(c.want));
    // The spec is quoted Go-style, so bytes such as \xff come out escaped.
    const absl::string_view spec = c.spec;
    const bool plain = std::all_of(spec.begin(), spec.end(), [](char ch) {
      return ch >= ' ' && ch <= '~' && ch != '"' && ch != '\\';
    });
    CHECK_THAT(message, Catch::EndsWith(absl::StrCat(
                            " in cron spec \"",
                            plain ? spec : absl::CHexEscape(spec), "\"")));
  }
}

TEST_CASE("cron: time zone prefix and accessors", "[cron][zone]") {
  struct ZoneCase {
    const char* spec;
    const char* zone;
  };
  const ZoneCase kCases[] = {
      {"0 0 * * *", "UTC"},
      {"TZ=UTC 0 0 * * *", "UTC"},
      {"TZ= 0 0 * * *", "UTC"},       // Go: LoadLocation("") is UTC.
      {"TZ=Local 0 0 * * *", "UTC"},  // Deliberate: never the host zone.
      {"CRON_TZ=America/New_York 0 0 * * *", "America/New_York"},
      {"TZ=Europe/London   @daily", "Europe/London"},
      {"TZ=Asia/Tokyo @every 1h", "Asia/Tokyo"},
  };
  for (const ZoneCase& c : kCases) {
    INFO("spec: \"" << c.spec << "\"");
    const absl::StatusOr<CronSchedule> s = CronSchedule::Parse(c.spec);
    REQUIRE(s.ok());
    CHECK(s->time_zone().name() == c.zone);
    CHECK(s->spec() == c.spec);
  }
  // Only one prefix is stripped, and only at the very start.
  CHECK_FALSE(CronSchedule::Parse("TZ=UTC TZ=UTC 0 0 * * *").ok());
  CHECK_FALSE(CronSchedule::Parse(" TZ=UTC 0 0 * * *").ok());
  CHECK_FALSE(CronSchedule::Parse("tz=UTC 0 0 * * *").ok());
}

TEST_CASE("cron: @every keeps whole seconds, at least one", "[cron][every]") {
  struct EveryCase {
    const char* spec;
    absl::Duration delay;
  };
  const EveryCase kCases[] = {
      {"@every 1h", absl::Hours(1)},
      {"@every 1h30m10.9s", absl::Seconds(5410)},
      {"@every 500ms", absl::Seconds(1)},
      {"@every -3h", absl::Seconds(1)},
      {"@every 0", absl::Seconds(1)},
      {"@every 1.5s", absl::Seconds(1)},
      {"@every 2562047h", absl::Hours(2562047)},
  };
  for (const EveryCase& c : kCases) {
    INFO("spec: \"" << c.spec << "\"");
    const absl::StatusOr<CronSchedule> s = CronSchedule::Parse(c.spec);
    REQUIRE(s.ok());
    CHECK(s->is_constant_delay());
    CHECK(s->delay() == c.delay);
  }
  const absl::StatusOr<CronSchedule> daily = CronSchedule::Parse("@daily");
  REQUIRE(daily.ok());
  CHECK_FALSE(daily->is_constant_delay());
  CHECK(daily->delay() == absl::ZeroDuration());
}

TEST_CASE("cron: infinite and far-away inputs", "[cron][edge]") {
  for (const char* spec : {"0 0 * * *", "@every 1h", "0 0 31 2 *"}) {
    INFO("spec: \"" << spec << "\"");
    const absl::StatusOr<CronSchedule> s = CronSchedule::Parse(spec);
    REQUIRE(s.ok());
    CHECK(s->Next(absl::InfiniteFuture()) == absl::InfiniteFuture());
    CHECK(s->Next(absl::InfinitePast()) == absl::InfiniteFuture());
  }
  const absl::StatusOr<CronSchedule> daily = CronSchedule::Parse("0 0 * * *");
  REQUIRE(daily.ok());
  // Beyond about a billion years from 1970 the walk gives up.
  const absl::Time far = absl::UnixEpoch() + absl::Hours(24 * 366) * 2e9;
  CHECK(daily->Next(far) == absl::InfiniteFuture());
  CHECK(daily->Next(absl::UnixEpoch() - (far - absl::UnixEpoch())) ==
        absl::InfiniteFuture());
  // Still exact a million years out, and before year 1.
  CHECK(Show(daily->Next(T("1000000-06-15T12:00:00Z"))) ==
        "1000000-06-16T00:00:00+00:00");
  CHECK(Show(daily->Next(T("-0100-02-28T12:00:00Z"))) ==
        "-100-03-01T00:00:00+00:00");
}

TEST_CASE("cron: successive activations walk forward", "[cron][strict]") {
  // Properties over many consecutive activations: each Next is strictly
  // later, lands on a whole minute, and Next(H - 1s) == H.
  for (const char* spec :
       {"*/7 * * * *", "0 9 * * mon-fri", "30 2 * * *", "0 0 1 * mon",
        "CRON_TZ=America/New_York 30 1 * * *", "TZ=Europe/London 0 * * * *",
        "TZ=Australia/Lord_Howe */20 2 * * *"}) {
    INFO("spec: \"" << spec << "\"");
    const absl::StatusOr<CronSchedule> s = CronSchedule::Parse(spec);
    REQUIRE(s.ok());
    absl::Time t = T("2023-12-31T22:00:00Z");
    for (int i = 0; i < 2000; ++i) {
      const absl::Time next = s->Next(t);
      REQUIRE(next > t);
      REQUIRE(next != absl::InfiniteFuture());
      CHECK(absl::ToUnixSeconds(next) % 60 == 0);
      CHECK(s->Next(next - absl::Seconds(1)) == next);
      t = next;
    }
  }
}

TEST_CASE("cron: @every rejects the sums ParseGoDuration rejects", "[cron]") {
  // Go 1.19 wraps the segment sum to 0 here and robfig would run every
  // second; @every parses with ParseGoDuration, which reports it instead.
  const absl::StatusOr<CronSchedule> s =
      CronSchedule::Parse("@every 9223372036854775808ns9223372036854775808ns");
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(std::string(s.status().message()),
             Catch::StartsWith("failed to parse duration @every "
                               "9223372036854775808ns9223372036854775808ns: "
                               "time: invalid duration"));
}

}  // namespace
}  // namespace karpenter
