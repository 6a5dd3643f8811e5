// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Fuzzes CronSchedule::Parse with arbitrary bytes; for every spec it accepts,
// checks Next's contract from a few fixed instants: the result is strictly
// later than the input, or InfiniteFuture().

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "karpenter/cron.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view spec(reinterpret_cast<const char*>(data), size);
  const absl::StatusOr<karpenter::CronSchedule> schedule =
      karpenter::CronSchedule::Parse(spec);
  if (!schedule.ok()) {
    if (schedule.status().message().empty()) __builtin_trap();
    return 0;
  }
  const absl::Time kInstants[] = {
      absl::UnixEpoch(),
      absl::FromUnixSeconds(1710052200),  // 2024-03-10 06:30 UTC (US DST).
      absl::FromUnixSeconds(1730614500) + absl::Milliseconds(250),
      absl::FromUnixSeconds(-2208988800),   // 1900, before most zone rules.
      absl::FromUnixSeconds(4102444799),    // 2099-12-31 23:59:59.
      absl::FromUnixSeconds(-62135596801),  // Just before year 1.
  };
  for (const absl::Time t : kInstants) {
    const absl::Time next = schedule->Next(t);
    if (next <= t) __builtin_trap();
    if (next != absl::InfiniteFuture() &&
        next - t > absl::Hours(24 * 366 * 7) &&
        !schedule->is_constant_delay()) {
      __builtin_trap();  // robfig never searches past about six years.
    }
  }
  if (schedule->Next(absl::InfiniteFuture()) != absl::InfiniteFuture() ||
      schedule->Next(absl::InfinitePast()) != absl::InfiniteFuture()) {
    __builtin_trap();
  }
  return 0;
}
