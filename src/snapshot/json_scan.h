// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Internal: a structural JSON scanner for snapshot ingestion.
//
// Ingestion hands each Kubernetes object to protobuf's JsonStringToMessage,
// but first it must split a `kind: List` into its items and read each item's
// `kind` without decoding the whole dump twice. This scanner does that in
// linear time with no allocation per value:
//
//   1. `ValidateJson` checks a whole text against the RFC 8259 grammar once,
//      iteratively (no recursion), with a nesting limit, and reports the first
//      syntax error with its line, column and the JSON path it occurred at.
//   2. The navigation helpers (`SkipValue`, `ForEachMember`, ...) then walk
//      spans of that validated text without re-checking the grammar. Calling
//      them on text that did not pass `ValidateJson` is safe (they stop at
//      the end of the span) but their results are unspecified.
//
// Not installed. Thread-safety: free functions over caller-owned text.

#ifndef KARPENTER_SRC_SNAPSHOT_JSON_SCAN_H_
#define KARPENTER_SRC_SNAPSHOT_JSON_SCAN_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace karpenter::snapshot::internal {

// Deepest nesting of arrays and objects accepted, as protobuf's own JSON
// parser: Kubernetes objects nest about 15 deep, hostile input much deeper.
inline constexpr int kMaxJsonDepth = 100;

// A member of a top-level object: the raw (still escaped) key and the value's
// span.
struct RootMember {
  absl::string_view raw_key;
  absl::string_view value;
};

// Returns OK if `text` is exactly one JSON value surrounded by optional
// whitespace. Otherwise InvalidArgument:
// "<path>: invalid JSON at line L, column C: <what>", where <path> is the
// JSON path of the innermost open value ("items[3].metadata.labels") and is
// omitted at the top level. Nesting deeper than kMaxJsonDepth is an error.
// If `root_members` is set and the value is an object, its members are
// appended there in input order, which spares a `kind: List` reader a second
// pass over the whole list just to find `items` (contents unspecified on
// error).
absl::Status ValidateJson(absl::string_view text,
                          std::vector<RootMember>* root_members = nullptr);

// Returns the index of the first non-whitespace byte at or after `pos`
// (text.size() if none).
size_t SkipWhitespace(absl::string_view text, size_t pos);

// Returns the end (one past the last byte) of the value starting at `pos`
// (which must be its first byte). String- and escape-aware; never reads past
// `text`.
size_t SkipValue(absl::string_view text, size_t pos);

// Calls `fn(raw_key, value)` for each member of the object `object` (a span
// starting with '{'), in input order. `raw_key` is the key without its quotes
// and still escaped (`DecodeString` turns it into text); `value` is the
// member value's span. Stops early when `fn` returns false.
void ForEachMember(
    absl::string_view object,
    absl::FunctionRef<bool(absl::string_view raw_key, absl::string_view value)>
        fn);

// As ForEachMember for the object starting at text[pos] (a '{'), visiting
// every member; returns one past the object's closing '}', so a caller
// walking a list learns each object's extent from the same pass.
size_t ScanObject(
    absl::string_view text, size_t pos,
    absl::FunctionRef<void(absl::string_view raw_key, absl::string_view value)>
        fn);

// Calls `fn(index, element)` for each element of the array `array` (a span
// starting with '['), in order. Stops early when `fn` returns false.
void ForEachElement(
    absl::string_view array,
    absl::FunctionRef<bool(size_t index, absl::string_view element)> fn);

// Returns the value of member `key` of `object` (the last one if repeated,
// as protobuf's parser does), or nullopt if there is none or `object` is not
// an object.
std::optional<absl::string_view> FindMember(absl::string_view object,
                                            absl::string_view key);

// Decodes the escapes of a raw (unquoted) JSON string body. Invalid escapes
// decode to U+FFFD; the text was validated before, so that only matters for
// unvalidated input.
std::string DecodeString(absl::string_view raw);

// If `value` is a JSON string, returns its decoded text.
std::optional<std::string> StringValue(absl::string_view value);

// True if `value` is an array with no elements (`[]`, `[ ]`).
bool IsEmptyArray(absl::string_view value);

// True if `value` is the literal `null`.
bool IsNull(absl::string_view value);

// Describes the JSON type of `value` for error messages: "an object",
// "an array", "a string", "a number", "a boolean", "null".
absl::string_view DescribeJsonType(absl::string_view value);

}  // namespace karpenter::snapshot::internal

#endif  // KARPENTER_SRC_SNAPSHOT_JSON_SCAN_H_
