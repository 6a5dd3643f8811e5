// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Internal: the part of snapshot ingestion shared by the JSON and YAML
// readers. Both reduce every input object to (kind, apiVersion, JSON text);
// the sink classifies the kind, decodes the JSON into the typed message
// (FastJsonDecoder, or protobuf's JsonStringToMessage for whatever that
// declines), restores presence proto3 cannot hold, and
// turns protobuf's error text into "<json field path>: <what>" messages.
//
// Not installed. Thread-safety: an ObjectSink is used by one load call.

#ifndef KARPENTER_SRC_SNAPSHOT_OBJECT_SINK_H_
#define KARPENTER_SRC_SNAPSHOT_OBJECT_SINK_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "karpenter/snapshot/load.h"
#include "snapshot/json_decode.h"

namespace karpenter::snapshot::internal {

enum class ObjectKind {
  kNode,
  kPod,
  kPdb,
  kNodePool,
  kNodeClaim,
  kVolumeAttachment,
  kPersistentVolumeClaim,
  kPersistentVolume,
  kStorageClass,
  kCSINode,
  kDaemonSet,
  kNodeOverlay,
  kSkipped
};

// Classifies an object by kind and apiVersion (an empty apiVersion matches
// any recognised kind).
ObjectKind Classify(absl::string_view kind, absl::string_view api_version);

// The message type objects of `kind` decode into (nullptr for kSkipped).
const google::protobuf::Descriptor* DescriptorFor(ObjectKind kind);

// True if `kind` names a list whose items are read: "List" or "<Kind>List".
bool IsListKind(absl::string_view kind);

// The kind a typed list's items take ("PodList" -> "Pod"; "List" -> "").
absl::string_view ItemKind(absl::string_view list_kind);

// "Pod default/web-1", "Node ip-10-0-1-1", "object x" (no kind),
// "unnamed Pod" (no name), or "" (neither).
std::string ObjectLabel(absl::string_view kind, absl::string_view ns,
                        absl::string_view name);

// Longest part of an offending value an error message shows.
inline constexpr size_t kMaxQuotedBytes = 80;

// Quotes `value` (C-escaped) for an error message. A value longer than
// kMaxQuotedBytes is cut there (at a UTF-8 character boundary) and its size
// given, so a stray file cannot flood the message:
//   "root:x:0:0:root:/root:/bin/bash daemon:x:1:1:..." (1432 bytes)
std::string QuoteValue(absl::string_view value);

// Where an object sits in its input, for error messages.
struct Location {
  absl::string_view source;  // File name.
  std::string document;      // "document 2" (YAML) or empty.
  std::string item;          // "items[5]", "[3]", "items[1].items[0]" or "".
  uint32_t document_number = 0;  // 2 for "document 2"; 0 for none.
};

// Returns InvalidArgument
// "<source>: [<document>: ][<item> (<label>)|<label>]: <detail>".
absl::Status LocatedError(const Location& where, absl::string_view label,
                          absl::string_view detail);

// Decodes `json` (one well-formed JSON object) into `message` (cleared
// first) with protobuf's parser, unknown fields ignored. Returns
// InvalidArgument "<json field path>: <what>" on a decode error.
absl::Status DecodeJsonMessage(absl::string_view json,
                               google::protobuf::Message& message);

// LoadDocumentsOfKind (karpenter/snapshot/load.h) for each format; `text`
// has no byte order mark.
absl::Status JsonDocumentsOfKind(
    absl::string_view text, absl::string_view source, absl::string_view kind,
    const google::protobuf::Message& prototype,
    std::vector<std::unique_ptr<google::protobuf::Message>>& out);
absl::Status YamlDocumentsOfKind(
    absl::string_view text, absl::string_view source, absl::string_view kind,
    const google::protobuf::Message& prototype,
    std::vector<std::unique_ptr<google::protobuf::Message>>& out);

// Reads the whole file at `path` into `contents`, as LoadFile does:
// errno-derived codes naming the path (FailedPrecondition for a directory).
// Also used by LoadInstanceTypeCatalog (karpenter/catalog.h).
absl::Status ReadFile(const std::string& path, std::string& contents);

// Appends decoded objects to an ObjectSet.
class ObjectSink {
 public:
  explicit ObjectSink(ObjectSet& out) : out_(out) {}

  // Decodes `json` (one well-formed JSON object) as an object of `kind`
  // (not kSkipped). An empty kind / apiVersion in the object is filled from
  // `kind_name` / `api_version` (typed lists omit them on items). Records
  // the object's origin in `out.origins` (`where`, and `line` for YAML, 0
  // otherwise), adding `where.source` to `out.sources` on first use.
  // Returns InvalidArgument "<field path>: <what>" on a decode error.
  absl::Status Add(ObjectKind kind, absl::string_view kind_name,
                   absl::string_view api_version, absl::string_view json,
                   const Location& where, uint32_t line);

  // Counts a skipped object.
  void Skip(absl::string_view kind_name, absl::string_view api_version);

 private:
  absl::Status AddObject(ObjectKind kind, absl::string_view kind_name,
                         absl::string_view api_version, absl::string_view json);
  std::vector<ObjectOrigin>* OriginsOf(ObjectKind kind);

  ObjectSet& out_;
  FastJsonDecoder decoder_;                    // reused buffers, one per load
  uint32_t source_ = ObjectOrigin::kNoSource;  // index in out_.sources
};

}  // namespace karpenter::snapshot::internal

#endif  // KARPENTER_SRC_SNAPSHOT_OBJECT_SINK_H_
