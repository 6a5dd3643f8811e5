// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Internal: a schema-guided JSON -> protobuf decoder for snapshot ingestion.
//
// protobuf's JsonStringToMessage turns JSON into the binary wire format and
// parses that. It tokenises every byte, including the bulk of a kubectl
// object that our protos do not declare (managedFields, most of a container
// status, node images), and re-resolves the message types on every call; on a
// real dump that was about 80% of the load time.
//
// `FastJsonDecoder` does the same conversion guided by the message's
// Descriptor: it walks one object of validated JSON (see json_scan.h), skips
// every member the message does not declare without tokenising it, writes
// declared members straight to wire format in a reused buffer, and lets the
// generated parser build the message. Members are matched by json_name
// first, then by the proto field name, as protobuf does (`providerID` and
// `provider_id` both work). Because the result passes through the same wire
// format, repeated keys of maps and lists behave as in protobuf.
//
// It accepts exactly the value forms whose protobuf result it reproduces:
// strings (and, for AcceptsNumberAsText fields, numbers kept as their
// text), booleans, integers written plainly as JSON numbers or strings
// (no fraction, exponent, sign '+' or leading zero) in range, RFC 3339
// timestamps (protobuf's own parser), string maps, nested messages and
// lists, null (absent, or google.protobuf.Value's null_value), and
// google.protobuf.Value holding a string or an integer of at most 2^53. It
// declines (returns false) everything else: a JSON type that does not fit
// the field, an out-of-range or fractional integer, a bad timestamp, a
// member given twice, a field type our protos do not use. The caller then
// hands the object to JsonStringToMessage, which yields the same result or
// the same error as it always did. Declining is never an error by itself.
//
// Not installed. Thread-safety: the per-message lookup tables are built once
// under a lock and immutable after; a FastJsonDecoder instance holds reusable
// buffers and must not be shared between threads.

#ifndef KARPENTER_SRC_SNAPSHOT_JSON_DECODE_H_
#define KARPENTER_SRC_SNAPSHOT_JSON_DECODE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"

namespace karpenter::snapshot::internal {

struct MessageTable;  // Per-descriptor field lookup; defined in the .cc.

// True if `field` is a string (or map<string, string>) field that holds a
// Kubernetes resource.Quantity or an int-or-string kept as text (NodePool
// budget `nodes`), whose JSON value the API server also accepts as a number:
// resources requests/limits (spec and container status), a container
// status's allocatedResources, Node and NodeClaim capacity/allocatable, Pod
// overhead, NodePool spec.limits and status.resources, PersistentVolume
// capacity. A number is kept as the text it was written with ("500", "0.5",
// "1e3", "-1"), which ParseQuantity (karpenter/quantity.h) reads as the
// same value.
bool AcceptsNumberAsText(const google::protobuf::FieldDescriptor& field);

// What a `null` entry of a quantity map (`requests: {cpu: null}`) becomes,
// as the API server reads it:
//  - kZero for the core kinds' maps (Pod requests, limits, overhead and
//    container status allocatedResources, Node capacity and allocatable,
//    PersistentVolume capacity): Go's
//    resource.Quantity decodes JSON null as a zero quantity, so the entry is
//    kept with the value "0". NodeClaim spec.resources shares the Pod's
//    ResourceRequirements message and reads the same way (a zero request and
//    an absent one fit alike);
//  - kDropped for the Karpenter CRDs' own maps (NodePool spec.limits and
//    status.resources, NodeClaim status.capacity and allocatable): the API
//    server prunes a null that the structural schema does not declare
//    nullable, so the entry is absent (for limits: no limit on it).
// kNotQuantity for every other field (a null in a label map stays "").
enum class NullQuantity { kNotQuantity, kZero, kDropped };
NullQuantity NullQuantityEntry(const google::protobuf::FieldDescriptor& field);

// For protobuf's JsonStringToMessage, which takes strings only: copies
// `json` (one validated object of `descriptor`'s type) to `out` with every
// JSON number in a field AcceptsNumberAsText quoted, and every null entry
// of a quantity map rewritten as NullQuantityEntry says ("0", or the member
// removed), so both decoders read the same text. Returns false, leaving
// `out` untouched, if there is nothing to rewrite.
bool QuoteNumbersAsText(absl::string_view json,
                        const google::protobuf::Descriptor* descriptor,
                        std::string& out);

class FastJsonDecoder {
 public:
  // Decodes `json`, one JSON object that passed ValidateJson (alone or as
  // part of a larger text), into `message`, replacing its contents. Returns
  // false if the object uses a form this decoder does not reproduce; then
  // `message` is unspecified and the caller must use JsonStringToMessage.
  bool Decode(absl::string_view json, google::protobuf::Message& message);

 private:
  // What follows an element of an object or array.
  enum class Next { kMore, kClosed, kBad };
  // With `pos` at an opening bracket: moves past it and white space, and
  // past `close` too (returning true) if the container is empty.
  bool Open(char close, size_t& pos);
  // With `pos` after an element: past `close` (kClosed), or past ',' and
  // white space to the next element (kMore); kBad on anything else.
  Next AfterElement(char close, size_t& pos);
  bool Object(const MessageTable& table, size_t& pos);
  bool Member(const MessageTable& table, int field, size_t& pos);
  bool Single(const MessageTable& table, int field, size_t& pos);
  // A map<string, string>; values may be JSON numbers if `number_as_text`,
  // and null entries of a quantity map read as `null_entry` says.
  bool StringMap(uint32_t number, bool number_as_text, NullQuantity null_entry,
                 size_t& pos);
  // Writes the JSON number at text_[pos] as string field `number`'s text.
  bool NumberAsText(uint32_t number, size_t& pos);
  // Reads the string at text_[pos] (a '"'); sets `out` to its decoded text
  // (a span of text_ when unescaped, else of scratch).
  bool ReadString(size_t& pos, std::string& scratch, absl::string_view& out);
  bool ReadInteger(size_t& pos, int64_t& out);

  void Tag(uint32_t number, uint32_t wire_type);
  void Varint(uint64_t value);
  void LengthDelimited(uint32_t number, absl::string_view bytes);
  size_t BeginNested(uint32_t number);
  void EndNested(size_t mark);

  absl::string_view text_;
  std::string wire_;
  std::string key_scratch_;
  std::string value_scratch_;
  std::string time_scratch_;
  std::vector<absl::string_view> map_keys_;
};

}  // namespace karpenter::snapshot::internal

#endif  // KARPENTER_SRC_SNAPSHOT_JSON_DECODE_H_
