// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Time conversions: google.protobuf.Timestamp (the SDK's metav1.Time fields,
// e.g. `metadata.deletionTimestamp`, a condition's `lastTransitionTime`) to
// absl::Time and back, and the one RFC 3339 formatter of the SDK.
//
// Mirrors metav1.Time and Go's time formatting: a Timestamp denotes
// `seconds` + `nanos` after the Unix epoch (timestamp.proto); text is RFC
// 3339 in UTC with a "Z" suffix, as Go's time.RFC3339Nano writes it (no
// trailing zeros in the fraction, none at all on a whole second). Where
// Kubernetes or Karpenter keep second precision (metav1.Time on the wire,
// Go's time.RFC3339, the karpenter.sh/nodeclaim-termination-timestamp
// annotation), callers apply TruncateToSecond first.
//
// Whether a Timestamp field is set is the caller's question (`has_*()` on
// the message); these functions convert values only.
//
// Thread-safety: pure functions, safe to call concurrently.

#ifndef KARPENTER_TIME_UTIL_H_
#define KARPENTER_TIME_UTIL_H_

#include <string>

#include "absl/time/time.h"
#include "google/protobuf/timestamp.pb.h"

namespace karpenter {

// Returns the instant `ts` denotes, exactly (absl::Time covers the whole
// Timestamp range). The default (unset) Timestamp is absl::UnixEpoch().
absl::Time TimeFromProto(const google::protobuf::Timestamp& ts);

// Returns the Timestamp of `t`: `seconds` is floor(t) in Unix seconds and
// `nanos` the remainder in [0, 999999999], so TimeFromProto(TimeToProto(t))
// == t for every finite t within Timestamp's range (years 1 to 9999) at
// nanosecond precision; a sub-nanosecond remainder is dropped. For an
// infinite t the result is unspecified (but deterministic); no caller
// stores one.
google::protobuf::Timestamp TimeToProto(absl::Time t);

// Returns `t` rounded down (toward the past) to a whole second, as Go's
// `t.Truncate(time.Second)`; absl::InfiniteFuture() and
// absl::InfinitePast() are returned unchanged.
absl::Time TruncateToSecond(absl::Time t);

// Returns `t` as RFC 3339 in UTC: "2025-03-05T12:00:00Z", with as many
// fraction digits as `t` needs ("2025-03-05T12:00:00.25Z"), up to
// nanoseconds. For second precision (Go's time.RFC3339), pass
// TruncateToSecond(t). The infinite times format as absl does:
// "infinite-future" and "infinite-past".
std::string FormatRfc3339(absl::Time t);

}  // namespace karpenter

#endif  // KARPENTER_TIME_UTIL_H_
