// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// CronSchedule: the cron dialect Karpenter uses for disruption-budget
// schedules, behaving exactly like robfig/cron v3.0.1 `cron.ParseStandard`
// (parser.go, options Minute|Hour|Dom|Month|Dow|Descriptor) and the
// schedules it returns (`SpecSchedule.Next` in spec.go,
// `ConstantDelaySchedule.Next` in constantdelay.go). Karpenter evaluates
// budgets with `ParseStandard("TZ=UTC " + schedule)` (nodepool.go
// `Budget.IsActive`); see docs/semantics.md §1.5 and §1.6.
//
// Accepted syntax:
//   - an optional single leading `TZ=<zone> ` or `CRON_TZ=<zone> ` prefix
//     (IANA name loaded from the system zoneinfo database);
//   - a descriptor (`@yearly` `@annually` `@monthly` `@weekly` `@daily`
//     `@midnight` `@hourly`, exact lower case) or `@every <Go duration>`;
//   - or exactly five whitespace-separated fields: minute 0-59, hour 0-23,
//     day-of-month 1-31, month 1-12 (or jan..dec), day-of-week 0-6 (or
//     sun..sat; 7 is an error). Each field is a comma list of `*`, `?`, `N`,
//     `N-M`, `*/S`, `N-M/S`, `N/S` (= `N-max/S`).
// Day matching follows the Vixie rule: if day-of-month or day-of-week is a
// star (`*`, `?`, `*/1`) both must match, otherwise either may.
//
// `Next` reproduces robfig's field-by-field walk, including its quirks
// around daylight-saving transitions (a wall time skipped by spring-forward
// does not fire that day; one repeated by fall-back fires at both instants;
// a day whose midnight does not exist can be skipped entirely) and its
// five-year search limit.
//
// Deliberate differences from robfig/cron:
//   - Without a prefix robfig evaluates in `time.Local`; this class uses UTC
//     (Karpenter always prepends `TZ=UTC `, so results there are identical).
//     `TZ=Local` likewise means UTC. `TZ=` and `TZ=UTC` mean UTC, as in Go.
//   - robfig panics on a `TZ=`/`CRON_TZ=` prefix with no following space;
//     `Parse` returns an error instead.
//   - robfig returns the zero `time.Time` when it gives up; `Next` returns
//     `absl::InfiniteFuture()`.
//   - Zone names are restricted to what Go's `time.LoadLocation` could read
//     from a zoneinfo directory (no absolute paths, no `..`, none of the
//     abseil-only forms `Fixed/...`, `file:...`, `libc:...`). Leap-second
//     `right/...` zones, which Go loads and abseil does not, are rejected.
//     Error texts for unloadable zones can differ from Go's.
//   - `@every` parses its duration with `ParseGoDuration` (duration.h) and so
//     shares its one deliberate difference: a segment sum Go 1.19 wraps
//     around 2^64 (`@every 9223372036854775808ns9223372036854775808ns`,
//     which robfig runs every second) is rejected.
//
// Thread-safety: a CronSchedule is an immutable value after `Parse`; all
// const methods may be called concurrently.

#ifndef KARPENTER_CRON_H_
#define KARPENTER_CRON_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace karpenter {

class CronSchedule {
 public:
  // Parses `spec` like robfig/cron v3.0.1 `cron.ParseStandard` (see the file
  // comment for the grammar and the few deliberate differences).
  //
  // Errors (all absl::StatusCode::kInvalidArgument), each message ending in
  // ` in cron spec "<spec>"`:
  //   - `empty spec string`;
  //   - a time-zone prefix without a following space, or a zone that cannot be
  //     loaded (`provided bad location <zone>: ...`);
  //   - `unrecognized descriptor: <spec>` for any other `@...` spec (the match
  //     is case-sensitive, so `@DAILY` is rejected), `failed to parse duration
  //     ...` for a bad `@every` duration;
  //   - `expected exactly 5 fields, found N: [f1 f2 ...]`;
  //   - a bad field, named first, with robfig's wording in parentheses, e.g.
  //     `day-of-week: 7 out of range 0-6 (end of range (7) above maximum (6):
  //     7)` or `minute: invalid step */0 (step of range should be a positive
  //     number: */0)`.
  // Field errors are reported in robfig's order: fields left to right, list
  // items left to right, and within an item parse errors, then minimum,
  // maximum, reversed range, zero step, extra hyphens, extra slashes.
  static absl::StatusOr<CronSchedule> Parse(absl::string_view spec);

  // Returns the first activation strictly after `after`, at whole-second
  // granularity as robfig does: the search starts at floor_to_second(after) +
  // 1s, so Next(H) > H and Next(H - 1s) == H for an activation H, and any
  // sub-second part of `after` is ignored.
  //
  // Returns absl::InfiniteFuture() when robfig returns the zero time: no
  // activation within the calendar year five years after the search start
  // (e.g. `0 0 31 2 *`, or `0 0 29 2 *` when the next 29 February is too far
  // away), or a field list that selects nothing (e.g. `,`).
  // For `@every D`: returns after + D - (sub-second part of after), where D
  // is the parsed duration truncated to whole seconds, at least 1s.
  //
  // Infinite inputs: there is no first activation after InfinitePast() nor
  // after InfiniteFuture(); both return InfiniteFuture(). Finite inputs more
  // than about one billion years from 1970 (where robfig's int arithmetic is
  // no longer meaningful) also return InfiniteFuture().
  absl::Time Next(absl::Time after) const;

  // The zone the schedule is evaluated in: UTC unless a `TZ=`/`CRON_TZ=`
  // prefix named another one.
  const absl::TimeZone& time_zone() const { return zone_; }

  // The spec exactly as given to Parse, including any time-zone prefix.
  const std::string& spec() const { return spec_; }

  // True for `@every <duration>` schedules (robfig's ConstantDelaySchedule);
  // their period is `delay()`. False for field and descriptor schedules, for
  // which `delay()` is absl::ZeroDuration().
  bool is_constant_delay() const { return delay_ > absl::ZeroDuration(); }
  absl::Duration delay() const { return delay_; }

 private:
  class Walk;  // robfig's SpecSchedule.Next search state (cron.cc).

  CronSchedule() = default;

  std::string spec_;
  absl::TimeZone zone_ = absl::UTCTimeZone();
  // The zone's UTC offset in seconds when it never changes (UTC, Etc/*),
  // which lets Next skip zone look-ups and jump over whole runs of hours and
  // minutes instead of stepping one at a time.
  bool fixed_offset_zone_ = true;
  int fixed_offset_ = 0;

  // robfig's bit sets: bit N set if value N is selected; bit 63 is the "star"
  // bit (the field was `*`/`?` without a step > 1).
  uint64_t minute_ = 0;
  uint64_t hour_ = 0;
  uint64_t dom_ = 0;
  uint64_t month_ = 0;
  uint64_t dow_ = 0;
  // True if some field selects nothing, so robfig's walk can only give up.
  bool never_ = false;

  absl::Duration delay_ = absl::ZeroDuration();
};

}  // namespace karpenter

#endif  // KARPENTER_CRON_H_
