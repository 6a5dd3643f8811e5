// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/time_util.h"

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/time/civil_time.h"

namespace karpenter {
namespace {

// Appends `v` as exactly `width` decimal digits.
void AppendDigits(int64_t v, int width, std::string& out) {
  char buf[20];
  for (int i = width - 1; i >= 0; --i) {
    buf[i] = static_cast<char>('0' + v % 10);
    v /= 10;
  }
  out.append(buf, static_cast<size_t>(width));
}

}  // namespace

absl::Time TimeFromProto(const google::protobuf::Timestamp& ts) {
  return absl::FromUnixSeconds(ts.seconds()) + absl::Nanoseconds(ts.nanos());
}

google::protobuf::Timestamp TimeToProto(absl::Time t) {
  google::protobuf::Timestamp ts;
  const int64_t seconds = absl::ToUnixSeconds(t);  // Rounds down.
  ts.set_seconds(seconds);
  ts.set_nanos(static_cast<int32_t>(
      absl::ToInt64Nanoseconds(t - absl::FromUnixSeconds(seconds))));
  return ts;
}

absl::Time TruncateToSecond(absl::Time t) {
  if (t == absl::InfiniteFuture() || t == absl::InfinitePast()) return t;
  return absl::FromUnixSeconds(absl::ToUnixSeconds(t));  // Rounds down.
}

std::string FormatRfc3339(absl::Time t) {
  // Plans and explanations format an instant per node, so the common case
  // (a four-digit year, whole nanoseconds) is written by hand; everything
  // else goes to absl::FormatTime, whose output the fast path matches.
  const absl::CivilSecond s = absl::ToCivilSecond(t, absl::UTCTimeZone());
  const absl::Duration fraction = t - absl::FromCivil(s, absl::UTCTimeZone());
  const int64_t nanos = absl::ToInt64Nanoseconds(fraction);
  if (t == absl::InfiniteFuture() || t == absl::InfinitePast() ||
      s.year() < 1000 || s.year() > 9999 ||
      fraction != absl::Nanoseconds(nanos)) {
    return absl::FormatTime("%Y-%m-%dT%H:%M:%E*SZ", t, absl::UTCTimeZone());
  }
  std::string out;
  out.reserve(31);
  AppendDigits(s.year(), 4, out);
  out.push_back('-');
  AppendDigits(s.month(), 2, out);
  out.push_back('-');
  AppendDigits(s.day(), 2, out);
  out.push_back('T');
  AppendDigits(s.hour(), 2, out);
  out.push_back(':');
  AppendDigits(s.minute(), 2, out);
  out.push_back(':');
  AppendDigits(s.second(), 2, out);
  if (nanos > 0) {
    out.push_back('.');
    AppendDigits(nanos, 9, out);
    out.erase(out.find_last_not_of('0') + 1);
  }
  out.push_back('Z');
  return out;
}

}  // namespace karpenter
