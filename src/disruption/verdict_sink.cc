// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#include "disruption/verdict_sink.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
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

std::string FormatUtc(absl::Time t) {
  const absl::CivilSecond s = absl::ToCivilSecond(t, absl::UTCTimeZone());
  if (t == absl::InfiniteFuture() || t == absl::InfinitePast() ||
      s.year() < 1000 || s.year() > 9999) {
    return absl::FormatTime("%Y-%m-%d%ET%H:%M:%E*SZ", t, absl::UTCTimeZone());
  }
  std::string out =
      absl::StrFormat("%04d-%02d-%02dT%02d:%02d:%02d", s.year(), s.month(),
                      s.day(), s.hour(), s.minute(), s.second());
  int64_t nanos =
      absl::ToInt64Nanoseconds(t - absl::FromCivil(s, absl::UTCTimeZone()));
  if (nanos > 0) {
    std::string frac = absl::StrFormat("%09d", nanos);
    frac.erase(frac.find_last_not_of('0') + 1);
    absl::StrAppend(&out, ".", frac);
  }
  out.push_back('Z');
  return out;
}

}  // namespace karpenter::disruption::internal
