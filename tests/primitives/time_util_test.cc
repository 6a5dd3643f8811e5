// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Timestamp conversions and the RFC 3339 formatter of karpenter/time_util.h.

#include "karpenter/time_util.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "google/protobuf/timestamp.pb.h"

namespace karpenter {
namespace {

google::protobuf::Timestamp Ts(int64_t seconds, int32_t nanos) {
  google::protobuf::Timestamp ts;
  ts.set_seconds(seconds);
  ts.set_nanos(nanos);
  return ts;
}

TEST_CASE("time_util: FormatRfc3339 writes what absl::FormatTime writes",
          "[time_util]") {
  const absl::Time base = absl::FromUnixSeconds(1704067200);  // 2024-01-01
  const std::vector<absl::Time> times = {
      base,
      base + absl::Nanoseconds(1),
      base + absl::Milliseconds(120),
      base + absl::Seconds(59) + absl::Nanoseconds(999999999),
      base + absl::Nanoseconds(1) / 4,  // Below a nanosecond.
      base - absl::Hours(24 * 366),
      absl::FromUnixSeconds(0),
      absl::FromUnixSeconds(-62135596800 + 3600),  // year 1
      absl::FromUnixSeconds(253402300799),         // 9999-12-31T23:59:59
      absl::FromUnixSeconds(253402300800),         // year 10000
      absl::InfiniteFuture(),
      absl::InfinitePast(),
  };
  for (absl::Time t : times) {
    const std::string want =
        absl::FormatTime("%Y-%m-%d%ET%H:%M:%E*SZ", t, absl::UTCTimeZone());
    CAPTURE(want);
    CHECK(FormatRfc3339(t) == want);
  }
  CHECK(FormatRfc3339(base) == "2024-01-01T00:00:00Z");
  CHECK(FormatRfc3339(base + absl::Milliseconds(120)) ==
        "2024-01-01T00:00:00.12Z");
  CHECK(FormatRfc3339(absl::InfiniteFuture()) == "infinite-future");
}

TEST_CASE("time_util: TruncateToSecond rounds down as Go's Truncate(Second)",
          "[time_util]") {
  const absl::Time base = absl::FromUnixSeconds(1741176000);  // 2025-03-05T12Z
  CHECK(TruncateToSecond(base) == base);
  CHECK(TruncateToSecond(base + absl::Milliseconds(999)) == base);
  CHECK(TruncateToSecond(base - absl::Milliseconds(1)) ==
        base - absl::Seconds(1));
  CHECK(TruncateToSecond(absl::UnixEpoch() - absl::Milliseconds(500)) ==
        absl::FromUnixSeconds(-1));
  CHECK(TruncateToSecond(absl::InfiniteFuture()) == absl::InfiniteFuture());
  CHECK(TruncateToSecond(absl::InfinitePast()) == absl::InfinitePast());
  CHECK(FormatRfc3339(TruncateToSecond(base + absl::Milliseconds(500))) ==
        "2025-03-05T12:00:00Z");
}

TEST_CASE("time_util: Timestamp and absl::Time convert both ways exactly",
          "[time_util]") {
  CHECK(TimeFromProto(google::protobuf::Timestamp()) == absl::UnixEpoch());
  CHECK(TimeFromProto(Ts(1741176000, 500000000)) ==
        absl::FromUnixSeconds(1741176000) + absl::Milliseconds(500));
  CHECK(TimeFromProto(Ts(-1, 999999999)) == absl::FromUnixNanos(-1));

  const std::vector<absl::Time> times = {
      absl::UnixEpoch(),
      absl::FromUnixSeconds(1741176000),
      absl::FromUnixSeconds(1741176000) + absl::Nanoseconds(1),
      absl::FromUnixNanos(-1),
      absl::FromUnixSeconds(-62135596800),  // 0001-01-01T00:00:00Z
      absl::FromUnixSeconds(253402300799) + absl::Nanoseconds(999999999),
  };
  for (absl::Time t : times) {
    CAPTURE(FormatRfc3339(t));
    const google::protobuf::Timestamp ts = TimeToProto(t);
    CHECK(ts.nanos() >= 0);
    CHECK(ts.nanos() <= 999999999);
    CHECK(TimeFromProto(ts) == t);
  }
  const google::protobuf::Timestamp before_epoch =
      TimeToProto(absl::FromUnixNanos(-1));
  CHECK(before_epoch.seconds() == -1);
  CHECK(before_epoch.nanos() == 999999999);
  // A sub-nanosecond remainder is dropped.
  CHECK(TimeToProto(absl::UnixEpoch() + absl::Nanoseconds(1) / 4).nanos() == 0);
}

}  // namespace
}  // namespace karpenter
