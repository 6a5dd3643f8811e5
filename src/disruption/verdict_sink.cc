// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#include "disruption/verdict_sink.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"

namespace karpenter::disruption::internal {

int VerdictRank(absl::string_view code) {
  if (code == reasons::kCommanded) return 5;
  if (code == reasons::kNotDrifted || code == reasons::kNotExpired ||
      code == reasons::kNotEmpty || code == reasons::kNoDisruptionNeeded) {
    return 1;
  }
  if (code == reasons::kConsolidationDisabled ||
      code == reasons::kNotConsolidatable ||
      code == reasons::kWhenEmptyPolicy || code == reasons::kStaticNodePool) {
    return 2;
  }
  return 3;
}

NodeVerdict MakeVerdict(const Candidate& c, Method method,
                        absl::string_view code, std::string message) {
  NodeVerdict v;
  v.node = DisplayName(c);
  v.node_claim = c.node_claim_name;
  v.node_pool = c.node_pool_name;
  v.method = method;
  v.code = std::string(code);
  v.message = std::move(message);
  return v;
}

std::vector<NodeVerdict> CollectingSink::Take() && {
  std::stable_sort(verdicts_.begin(), verdicts_.end(),
                   [](const NodeVerdict& a, const NodeVerdict& b) {
                     return a.node < b.node;
                   });
  return std::move(verdicts_);
}

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

std::string FormatUtc(absl::Time t) {
  const absl::CivilSecond s = absl::ToCivilSecond(t, absl::UTCTimeZone());
  if (t == absl::InfiniteFuture() || t == absl::InfinitePast() ||
      s.year() < 1000 || s.year() > 9999) {
    return absl::FormatTime("%Y-%m-%d%ET%H:%M:%E*SZ", t, absl::UTCTimeZone());
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
  const int64_t nanos =
      absl::ToInt64Nanoseconds(t - absl::FromCivil(s, absl::UTCTimeZone()));
  if (nanos > 0) {
    out.push_back('.');
    AppendDigits(nanos, 9, out);
    out.erase(out.find_last_not_of('0') + 1);
  }
  out.push_back('Z');
  return out;
}

}  // namespace karpenter::disruption::internal
