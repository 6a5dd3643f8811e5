// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Fuzzes the watch-stream decoder (karpenter/state/watch_stream.h): the
// input is a stream, decoded in one chunk and again in two chunks split at a
// byte the input chooses (and byte by byte when it is small). Nothing may
// crash, throw or exhaust memory; errors must be InvalidArgument; and every
// chunking must give the same events (count, types, kinds, origins) and the
// same status, message included.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "karpenter/state/cluster_state.h"
#include "karpenter/state/watch_stream.h"

namespace {

using karpenter::state::Event;
using karpenter::state::WatchStreamDecoder;

struct Result {
  std::vector<std::string> events;  // "<type> <kind> <origin>".
  absl::Status status;
  bool at_boundary = false;
};

Result Decode(absl::string_view text, size_t piece) {
  Result result;
  WatchStreamDecoder decoder("fuzz");
  std::vector<Event> events;
  for (size_t pos = 0; pos < text.size() && result.status.ok(); pos += piece) {
    result.status = decoder.Feed(text.substr(pos, piece), events);
  }
  result.at_boundary = decoder.AtBoundary();
  if (result.status.ok()) result.status = decoder.Finish();
  for (const Event& e : events) {
    result.events.push_back(
        std::string(karpenter::state::EventTypeName(e.type)) + " " +
        std::string(karpenter::state::KindOf(e.object)) + " " + e.origin);
  }
  return result;
}

void Check(const Result& want, const Result& got) {
  if (got.events != want.events || got.status != want.status ||
      got.at_boundary != want.at_boundary) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  const Result whole = Decode(text, size == 0 ? 1 : size);
  if (!whole.status.ok() &&
      whole.status.code() != absl::StatusCode::kInvalidArgument) {
    std::abort();
  }
  // Two chunks, split where the input's last two bytes say.
  const size_t split =
      size < 2 ? 0 : (data[size - 1] | (size_t{data[size - 2]} << 8)) % size;
  Result two;
  {
    WatchStreamDecoder decoder("fuzz");
    std::vector<Event> events;
    two.status = decoder.Feed(text.substr(0, split), events);
    if (two.status.ok()) two.status = decoder.Feed(text.substr(split), events);
    two.at_boundary = decoder.AtBoundary();
    if (two.status.ok()) two.status = decoder.Finish();
    for (const Event& e : events) {
      two.events.push_back(
          std::string(karpenter::state::EventTypeName(e.type)) + " " +
          std::string(karpenter::state::KindOf(e.object)) + " " + e.origin);
    }
  }
  Check(whole, two);
  if (size <= 4096) Check(whole, Decode(text, 1));
  return 0;
}
