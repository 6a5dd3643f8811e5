// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Internal (not installed): protobuf Timestamp -> absl::Time for the drain
// sources.
//
// Thread-safety: pure functions, safe to call concurrently.

#ifndef KARPENTER_SRC_DRAIN_PROTO_TIME_H_
#define KARPENTER_SRC_DRAIN_PROTO_TIME_H_

#include "absl/time/time.h"
#include "google/protobuf/timestamp.pb.h"

namespace karpenter::drain_internal {

// The instant `ts` denotes. Exact for every representable Timestamp (absl
// time covers the whole proto range and more).
inline absl::Time FromProto(const google::protobuf::Timestamp& ts) {
  return absl::FromUnixSeconds(ts.seconds()) + absl::Nanoseconds(ts.nanos());
}

}  // namespace karpenter::drain_internal

#endif  // KARPENTER_SRC_DRAIN_PROTO_TIME_H_
