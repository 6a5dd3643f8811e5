// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Implementation notes. robfig/cron is written against Go's strings,
// strconv and time packages, and its observable behaviour (which specs are
// accepted, where DST transitions land) depends on their exact rules, so the
// small pieces of those packages it relies on are re-created:
//   - in primitives/go_compat.h (shared with the other parsers): UTF-8
//     decoding, unicode.IsSpace, strconv.Atoi and strconv.Quote;
//   - time.ParseDuration for `@every` is the public ParseGoDuration;
//   - here: strings.Fields / TrimSpace (Unicode white space),
//     strings.ToLower as far as it can produce an ASCII month or day name,
//     and time.Date's normalisation and its local-to-UTC mapping, which
//     differs from absl::FromCivil inside DST gaps and overlaps.
// The search itself runs on whole Unix seconds: after its first step robfig's
// time never has a sub-second part again.

#include "karpenter/cron.h"

#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "karpenter/duration.h"
#include "primitives/go_compat.h"

namespace karpenter {
namespace {

using primitives_internal::DecodeRune;
using primitives_internal::GoAtoi;
using primitives_internal::GoStrconvQuote;
using primitives_internal::IsGoSpace;
using primitives_internal::QuoteStyle;

constexpr uint64_t kStarBit = uint64_t{1} << 63;

// ---------------------------------------------------------------------------
// Go text helpers.

// Go's strings.Fields: splits around runs of Unicode white space.
std::vector<absl::string_view> GoFields(absl::string_view s) {
  std::vector<absl::string_view> fields;
  size_t start = absl::string_view::npos;
  for (size_t i = 0, w = 0; i < s.size(); i += w) {
    const bool space = IsGoSpace(DecodeRune(s, i, &w));
    if (space && start != absl::string_view::npos) {
      fields.push_back(s.substr(start, i - start));
      start = absl::string_view::npos;
    } else if (!space && start == absl::string_view::npos) {
      start = i;
    }
  }
  if (start != absl::string_view::npos) fields.push_back(s.substr(start));
  return fields;
}

// Go's strings.TrimSpace.
absl::string_view GoTrimSpace(absl::string_view s) {
  size_t first = s.size(), last = 0;
  for (size_t i = 0, w = 0; i < s.size(); i += w) {
    if (!IsGoSpace(DecodeRune(s, i, &w))) {
      if (first == s.size()) first = i;
      last = i + w;
    }
  }
  return first == s.size() ? absl::string_view()
                           : s.substr(first, last - first);
}

// strings.ToLower as robfig uses it: only to look up ASCII month and weekday
// names. Besides A-Z, U+0130 (İ) and U+212A (Kelvin sign) lower-case to
// ASCII in Go; every other non-ASCII rune stays non-ASCII and can never
// match a name, so its bytes are kept as they are.
std::string LowerForNameLookup(absl::string_view s) {
  std::string out;
  for (size_t i = 0, w = 0; i < s.size(); i += w) {
    const char32_t r = DecodeRune(s, i, &w);
    if (r >= 'A' && r <= 'Z') {
      out += static_cast<char>(r - 'A' + 'a');
    } else if (r == 0x130) {
      out += 'i';
    } else if (r == 0x212A) {
      out += 'k';
    } else {
      absl::StrAppend(&out, s.substr(i, w));
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// Fields (robfig parser.go getField / getRange).

struct FieldBounds {
  const char* name;
  uint64_t min;
  uint64_t max;
  const std::pair<const char*, uint64_t>* names;
  size_t name_count;
};

constexpr std::pair<const char*, uint64_t> kMonthNames[] = {
    {"jan", 1}, {"feb", 2}, {"mar", 3}, {"apr", 4},  {"may", 5},  {"jun", 6},
    {"jul", 7}, {"aug", 8}, {"sep", 9}, {"oct", 10}, {"nov", 11}, {"dec", 12}};
constexpr std::pair<const char*, uint64_t> kDowNames[] = {
    {"sun", 0}, {"mon", 1}, {"tue", 2}, {"wed", 3},
    {"thu", 4}, {"fri", 5}, {"sat", 6}};

constexpr FieldBounds kMinute = {"minute", 0, 59, nullptr, 0};
constexpr FieldBounds kHour = {"hour", 0, 23, nullptr, 0};
constexpr FieldBounds kDom = {"day-of-month", 1, 31, nullptr, 0};
constexpr FieldBounds kMonth = {"month", 1, 12, kMonthNames, 12};
constexpr FieldBounds kDow = {"day-of-week", 0, 6, kDowNames, 7};

// Bits [min, max] with the given step (robfig getBits); max <= 63.
uint64_t Bits(uint64_t min, uint64_t max, uint64_t step) {
  if (step == 1) {
    const uint64_t upto =
        max >= 63 ? ~uint64_t{0} : ~(~uint64_t{0} << (max + 1));
    return upto & (~uint64_t{0} << min);
  }
  uint64_t bits = 0;
  // No overflow: i <= 63 and step < 2^63.
  for (uint64_t i = min; i <= max; i += step) bits |= uint64_t{1} << i;
  return bits;
}

uint64_t All(const FieldBounds& f) { return Bits(f.min, f.max, 1) | kStarBit; }

// `<field>: invalid <what> <expr> (<robfig message>)`.
absl::Status FieldError(const FieldBounds& f, absl::string_view what,
                        absl::string_view expr, absl::string_view detail) {
  return absl::InvalidArgumentError(
      absl::StrCat(f.name, ": invalid ", what, " ", expr, " (", detail, ")"));
}

// `<field>: <expr> out of range <min>-<max> (<robfig message>)`.
absl::Status OutOfRange(const FieldBounds& f, absl::string_view expr,
                        absl::string_view detail) {
  return absl::InvalidArgumentError(absl::StrCat(f.name, ": ", expr,
                                                 " out of range ", f.min, "-",
                                                 f.max, " (", detail, ")"));
}

// robfig mustParseInt: strconv.Atoi, then reject negatives.
absl::StatusOr<uint64_t> ParseNumber(const FieldBounds& f,
                                     absl::string_view what,
                                     absl::string_view expr,
                                     absl::string_view text) {
  const absl::StatusOr<int64_t> n = GoAtoi(text, QuoteStyle::kStrconv);
  if (!n.ok()) {
    return FieldError(f, what, expr,
                      absl::StrCat("failed to parse int from ", text, ": ",
                                   n.status().message()));
  }
  if (*n < 0) {
    return FieldError(
        f, what, expr,
        absl::StrCat("negative number (", *n, ") not allowed: ", text));
  }
  return static_cast<uint64_t>(*n);
}

// robfig parseIntOrName.
absl::StatusOr<uint64_t> ParseNumberOrName(const FieldBounds& f,
                                           absl::string_view expr,
                                           absl::string_view text) {
  if (f.names != nullptr) {
    const std::string lower = LowerForNameLookup(text);
    for (size_t i = 0; i < f.name_count; ++i) {
      if (lower == f.names[i].first) return f.names[i].second;
    }
  }
  return ParseNumber(f, "value", expr, text);
}

// robfig getRange: one list item of a field.
absl::StatusOr<uint64_t> ParseItem(const FieldBounds& f,
                                   absl::string_view expr) {
  const std::vector<absl::string_view> range_and_step =
      absl::StrSplit(expr, '/');
  const std::vector<absl::string_view> low_and_high =
      absl::StrSplit(range_and_step[0], '-');
  uint64_t start = 0, end = 0, step = 1, extra = 0;
  if (low_and_high[0] == "*" || low_and_high[0] == "?") {
    // Anything after a star's hyphen is ignored, as in robfig.
    start = f.min;
    end = f.max;
    extra = kStarBit;
  } else {
    absl::StatusOr<uint64_t> n = ParseNumberOrName(f, expr, low_and_high[0]);
    if (!n.ok()) return n.status();
    start = end = *n;
    if (low_and_high.size() == 2) {
      n = ParseNumberOrName(f, expr, low_and_high[1]);
      if (!n.ok()) return n.status();
      end = *n;
    } else if (low_and_high.size() > 2) {
      return FieldError(f, "range", expr,
                        absl::StrCat("too many hyphens: ", expr));
    }
  }
  if (range_and_step.size() == 2) {
    absl::StatusOr<uint64_t> n =
        ParseNumber(f, "step", expr, range_and_step[1]);
    if (!n.ok()) return n.status();
    step = *n;
    if (low_and_high.size() == 1) end = f.max;  // "N/S" means "N-max/S".
    if (step > 1) extra = 0;
  } else if (range_and_step.size() > 2) {
    return FieldError(f, "step", expr,
                      absl::StrCat("too many slashes: ", expr));
  }
  if (start < f.min) {
    return OutOfRange(f, expr,
                      absl::StrCat("beginning of range (", start,
                                   ") below minimum (", f.min, "): ", expr));
  }
  if (end > f.max) {
    return OutOfRange(f, expr,
                      absl::StrCat("end of range (", end, ") above maximum (",
                                   f.max, "): ", expr));
  }
  if (start > end) {
    return FieldError(
        f, "range", expr,
        absl::StrCat("beginning of range (", start, ") beyond end of range (",
                     end, "): ", expr));
  }
  if (step == 0) {
    return FieldError(
        f, "step", expr,
        absl::StrCat("step of range should be a positive number: ", expr));
  }
  return Bits(start, end, step) | extra;
}

// robfig getField: a comma list; empty items are dropped (FieldsFunc).
absl::StatusOr<uint64_t> ParseField(const FieldBounds& f,
                                    absl::string_view field) {
  uint64_t bits = 0;
  for (absl::string_view item : absl::StrSplit(field, ',', absl::SkipEmpty())) {
    absl::StatusOr<uint64_t> b = ParseItem(f, item);
    if (!b.ok()) return b.status();
    bits |= *b;
  }
  return bits;
}

// Go's time.LoadLocation, restricted to names it could resolve. "Local" maps
// to UTC (see the header).
absl::Status LoadZone(absl::string_view name, absl::TimeZone* zone) {
  if (name.empty() || name == "UTC" || name == "Local") {
    *zone = absl::UTCTimeZone();
    return absl::OkStatus();
  }
  if (absl::StrContains(name, "..") || name[0] == '/' || name[0] == '\\') {
    return absl::InvalidArgumentError("time: invalid location name");
  }
  // Forms abseil understands (fixed offsets, explicit files, the C library)
  // but Go's file lookup never would.
  const bool abseil_only =
      absl::StrContains(name, absl::string_view("\0", 1)) ||
      absl::StartsWith(name, "Fixed/") || absl::StartsWith(name, "file:") ||
      absl::StartsWith(name, "libc:");
  if (abseil_only || !absl::LoadTimeZone(std::string(name), zone)) {
    return absl::InvalidArgumentError(absl::StrCat("unknown time zone ", name));
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Civil-time arithmetic on the proleptic Gregorian calendar (Go's and
// abseil's), in int64 so that normalisation never overflows in the supported
// domain.

int64_t FloorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}
int64_t FloorMod(int64_t a, int64_t b) { return a - FloorDiv(a, b) * b; }

// Days from 1970-01-01 to y-m-d (m in 1..12, d any).
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = FloorDiv(y, 400);
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

struct Ymd {
  int64_t year;
  int month;
  int day;
};

Ymd CivilFromDays(int64_t z) {
  z += 719468;
  const int64_t era = FloorDiv(z, 146097);
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  const int month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  return {yoe + era * 400 + (month <= 2 ? 1 : 0), month, day};
}

// Inputs further than this from the epoch (about 1.1e9 years) give up.
constexpr int64_t kMaxAbsUnixSeconds = int64_t{1} << 55;
// Safety net against a walk that never ends; robfig's own walks stay in the
// low thousands of steps.
constexpr int64_t kMaxSteps = int64_t{1} << 22;
constexpr uint64_t kMinuteMask = (uint64_t{1} << 60) - 1;
constexpr uint64_t kHourMask = (uint64_t{1} << 24) - 1;

// ---------------------------------------------------------------------------
// Spec-level parsing (robfig Parser.Parse).

struct FieldBits {
  uint64_t minute = 0, hour = 0, dom = 0, month = 0, dow = 0;
};

// Strips one leading `TZ=<zone> ` / `CRON_TZ=<zone> ` and loads the zone;
// returns the rest of the spec.
absl::StatusOr<absl::string_view> StripZonePrefix(absl::string_view spec,
                                                  absl::TimeZone* zone) {
  if (!absl::StartsWith(spec, "TZ=") && !absl::StartsWith(spec, "CRON_TZ=")) {
    return spec;
  }
  const size_t space = spec.find(' ');
  if (space == absl::string_view::npos) {
    // robfig slices with index -1 here and panics.
    return absl::InvalidArgumentError(
        "time zone prefix is not followed by a space");
  }
  const size_t eq = spec.find('=');
  const absl::string_view name = spec.substr(eq + 1, space - eq - 1);
  if (absl::Status st = LoadZone(name, zone); !st.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("provided bad location ", name, ": ", st.message()));
  }
  return GoTrimSpace(spec.substr(space));
}

// robfig parseDescriptor. `@every` sets `*delay` and returns no bits.
absl::StatusOr<FieldBits> ParseDescriptor(absl::string_view d,
                                          absl::Duration* delay) {
  // robfig's bit patterns; the star bits matter to the day rule.
  const uint64_t any_dom = All(kDom), any_month = All(kMonth),
                 any_dow = All(kDow);
  if (d == "@yearly" || d == "@annually") return FieldBits{1, 1, 2, 2, any_dow};
  if (d == "@monthly") return FieldBits{1, 1, 2, any_month, any_dow};
  if (d == "@weekly") return FieldBits{1, 1, any_dom, any_month, 1};
  if (d == "@daily" || d == "@midnight") {
    return FieldBits{1, 1, any_dom, any_month, any_dow};
  }
  if (d == "@hourly")
    return FieldBits{1, All(kHour), any_dom, any_month, any_dow};
  constexpr absl::string_view kEvery = "@every ";
  if (!absl::StartsWith(d, kEvery)) {
    return absl::InvalidArgumentError(
        absl::StrCat("unrecognized descriptor: ", d));
  }
  const absl::StatusOr<absl::Duration> every =
      ParseGoDuration(d.substr(kEvery.size()));
  if (!every.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "failed to parse duration ", d, ": ", every.status().message()));
  }
  // robfig Every(): at least one second, sub-second part dropped.
  *delay = *every < absl::Seconds(1) ? absl::Seconds(1)
                                     : absl::Trunc(*every, absl::Seconds(1));
  return FieldBits{};
}

// robfig normalizeFields + getField for the five standard fields.
absl::StatusOr<FieldBits> ParseFiveFields(absl::string_view spec) {
  const std::vector<absl::string_view> fields = GoFields(spec);
  if (fields.size() != 5) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected exactly 5 fields, found ", fields.size(), ": [",
                     absl::StrJoin(fields, " "), "]"));
  }
  FieldBits bits;
  const std::pair<const FieldBounds*, uint64_t*> targets[] = {
      {&kMinute, &bits.minute},
      {&kHour, &bits.hour},
      {&kDom, &bits.dom},
      {&kMonth, &bits.month},
      {&kDow, &bits.dow}};
  for (size_t i = 0; i < 5; ++i) {
    absl::StatusOr<uint64_t> b = ParseField(*targets[i].first, fields[i]);
    if (!b.ok()) return b.status();
    *targets[i].second = *b;
  }
  return bits;
}

// True if a field selects nothing (e.g. ","), or no day can satisfy the day
// rule: robfig's walk can then only run out its five years.
bool NeverFires(const FieldBits& b) {
  const bool star_day = ((b.dom | b.dow) & kStarBit) != 0;
  const bool dom_empty = (b.dom & ~kStarBit) == 0;
  const bool dow_empty = (b.dow & ~kStarBit) == 0;
  return (b.minute & kMinuteMask) == 0 || (b.hour & kHourMask) == 0 ||
         (b.month & ~kStarBit) == 0 ||
         (star_day ? (dom_empty || dow_empty) : (dom_empty && dow_empty));
}

}  // namespace

absl::StatusOr<CronSchedule> CronSchedule::Parse(absl::string_view spec) {
  const auto fail = [spec](absl::string_view message) {
    return absl::InvalidArgumentError(
        absl::StrCat(message, " in cron spec ", GoStrconvQuote(spec)));
  };
  if (spec.empty()) return fail("empty spec string");
  CronSchedule s;
  s.spec_ = std::string(spec);
  const absl::StatusOr<absl::string_view> rest =
      StripZonePrefix(spec, &s.zone_);
  if (!rest.ok()) return fail(rest.status().message());
  absl::TimeZone::CivilTransition unused;
  s.fixed_offset_zone_ = !s.zone_.NextTransition(absl::InfinitePast(), &unused);
  s.fixed_offset_ = s.zone_.At(absl::UnixEpoch()).offset;

  const absl::StatusOr<FieldBits> bits = absl::StartsWith(*rest, "@")
                                             ? ParseDescriptor(*rest, &s.delay_)
                                             : ParseFiveFields(*rest);
  if (!bits.ok()) return fail(bits.status().message());
  s.minute_ = bits->minute;
  s.hour_ = bits->hour;
  s.dom_ = bits->dom;
  s.month_ = bits->month;
  s.dow_ = bits->dow;
  s.never_ = !s.is_constant_delay() && NeverFires(*bits);
  return s;
}

// ---------------------------------------------------------------------------
// Next: robfig SpecSchedule.Next on whole Unix seconds.

class CronSchedule::Walk {
 public:
  Walk(const CronSchedule& schedule, int64_t start) : s_(schedule) {
    Set(start);
  }

  // The activation time in Unix seconds, or nullopt where robfig gives up.
  std::optional<int64_t> Run() {
    const int64_t year_limit = c_.year + 5;
    while (true) {
      if (c_.year > year_limit) return std::nullopt;
      Result r = Months();
      if (r == Result::kMatched) r = Days();
      if (r == Result::kMatched) r = Hours();
      if (r == Result::kMatched) r = Minutes();
      if (r == Result::kMatched) r = Seconds();
      if (r == Result::kMatched) return t_;
      if (r == Result::kGiveUp) return std::nullopt;
      // kWrapped: robfig's `goto WRAP` re-checks every field from the top.
    }
  }

 private:
  enum class Result { kMatched, kWrapped, kGiveUp };

  // Local civil fields of t_ in the schedule's zone.
  struct Civil {
    int64_t year;
    int month, day, hour, minute, second, weekday;
  };

  int64_t Offset(int64_t unix) const {
    if (s_.fixed_offset_zone_) return s_.fixed_offset_;
    return s_.zone_.At(absl::FromUnixSeconds(unix)).offset;
  }

  void Set(int64_t t) {
    t_ = t;
    const int64_t local = t + Offset(t);
    const int64_t days = FloorDiv(local, 86400);
    const int64_t sod = local - days * 86400;
    const Ymd ymd = CivilFromDays(days);
    c_ = {ymd.year,
          ymd.month,
          ymd.day,
          static_cast<int>(sod / 3600),
          static_cast<int>(sod / 60 % 60),
          static_cast<int>(sod % 60),
          static_cast<int>(FloorMod(days + 4, 7))};  // 1970-01-01 was Thu.
  }

  // Go's time.Date(y, mo, d, h, mi, sec, 0, loc): fields normalise like
  // carries, then the civil time is mapped with Go's two-lookup rule (first
  // guess the offset at the civil time read as UTC, then re-check at the
  // corrected instant). In a gap or overlap this can pick a different instant
  // from absl::FromCivil, and robfig's DST behaviour depends on it.
  int64_t Date(int64_t y, int64_t mo, int64_t d, int64_t h, int64_t mi,
               int64_t sec) const {
    y += FloorDiv(mo - 1, 12);
    mo = FloorMod(mo - 1, 12) + 1;
    const int64_t unix = DaysFromCivil(y, mo, 1) * 86400 + (d - 1) * 86400 +
                         h * 3600 + mi * 60 + sec;
    int64_t offset = Offset(unix);
    if (offset != 0) offset = Offset(unix - offset);
    return unix - offset;
  }

  // Marks the field as advanced; the first advance resets the lower fields.
  bool FirstAdvance() { return !std::exchange(added_, true); }
  bool Tick() { return ++steps_ < kMaxSteps; }

  Result Months() {
    while (((s_.month_ >> c_.month) & 1) == 0) {
      if (!Tick()) return Result::kGiveUp;
      if (FirstAdvance()) Set(Date(c_.year, c_.month, 1, 0, 0, 0));
      Set(Date(c_.year, c_.month + 1, c_.day, c_.hour, c_.minute, c_.second));
      if (c_.month == 1) return Result::kWrapped;
    }
    return Result::kMatched;
  }

  bool DayMatches() const {
    const bool dom = ((s_.dom_ >> c_.day) & 1) != 0;
    const bool dow = ((s_.dow_ >> c_.weekday) & 1) != 0;
    if (((s_.dom_ | s_.dow_) & kStarBit) != 0) return dom && dow;
    return dom || dow;
  }

  Result Days() {
    while (!DayMatches()) {
      if (!Tick()) return Result::kGiveUp;
      if (FirstAdvance()) Set(Date(c_.year, c_.month, c_.day, 0, 0, 0));
      Set(Date(c_.year, c_.month, c_.day + 1, c_.hour, c_.minute, c_.second));
      // robfig's fix-up for days whose midnight a DST change moved.
      if (c_.hour != 0) {
        Set(t_ + (c_.hour > 12 ? 24 - c_.hour : -c_.hour) * int64_t{3600});
      }
      if (c_.day == 1) return Result::kWrapped;
    }
    return Result::kMatched;
  }

  // With a fixed offset every +1h (+1m) step advances the local hour
  // (minute) by exactly one, so a run of steps is one jump to the next set
  // bit, or to 0 (robfig's wrap) if none is left.
  Result Jump(uint64_t bits, uint64_t mask, int current, int wrap,
              int64_t unit) {
    const uint64_t above = bits & mask & (~uint64_t{0} << (current + 1));
    const int target = above != 0 ? std::countr_zero(above) : wrap;
    Set(t_ + (target - current) * unit);
    return above != 0 ? Result::kMatched : Result::kWrapped;
  }

  Result Hours() {
    while (((s_.hour_ >> c_.hour) & 1) == 0) {
      if (!Tick()) return Result::kGiveUp;
      if (FirstAdvance()) Set(Date(c_.year, c_.month, c_.day, c_.hour, 0, 0));
      if (s_.fixed_offset_zone_) {
        return Jump(s_.hour_, kHourMask, c_.hour, 24, 3600);
      }
      Set(t_ + 3600);
      if (c_.hour == 0) return Result::kWrapped;
    }
    return Result::kMatched;
  }

  Result Minutes() {
    while (((s_.minute_ >> c_.minute) & 1) == 0) {
      if (!Tick()) return Result::kGiveUp;
      if (FirstAdvance()) Set(FloorDiv(t_, 60) * 60);  // Truncate(Minute).
      if (s_.fixed_offset_zone_) {
        return Jump(s_.minute_, kMinuteMask, c_.minute, 60, 60);
      }
      Set(t_ + 60);
      if (c_.minute == 0) return Result::kWrapped;
    }
    return Result::kMatched;
  }

  // The seconds field is always {0}. Only zones whose offset has a seconds
  // part (local mean time) ever leave second 0 once the walk has started.
  Result Seconds() {
    while (c_.second != 0) {
      if (!Tick()) return Result::kGiveUp;
      added_ = true;  // Truncate(Second) is a no-op on whole seconds.
      Set(t_ + 1);
      if (c_.second == 0) return Result::kWrapped;
    }
    return Result::kMatched;
  }

  const CronSchedule& s_;
  int64_t t_ = 0;
  Civil c_{};
  bool added_ = false;
  int64_t steps_ = 0;
};

absl::Time CronSchedule::Next(absl::Time after) const {
  if (after == absl::InfiniteFuture() || after == absl::InfinitePast()) {
    return absl::InfiniteFuture();
  }
  const int64_t seconds = absl::ToUnixSeconds(after);  // Rounds down.
  if (is_constant_delay()) {
    // robfig ConstantDelaySchedule: t + delay - t.Nanosecond().
    return absl::FromUnixSeconds(seconds) + delay_;
  }
  if (never_ || seconds > kMaxAbsUnixSeconds || seconds < -kMaxAbsUnixSeconds) {
    return absl::InfiniteFuture();
  }
  const std::optional<int64_t> next = Walk(*this, seconds + 1).Run();
  return next.has_value() ? absl::FromUnixSeconds(*next)
                          : absl::InfiniteFuture();
}

}  // namespace karpenter
