// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Decoding what `kubectl get --watch -o json` prints into ClusterState
// events (karpenter/state/cluster_state.h), so that a user can pipe a live
// cluster into the CLI (`kubectl get nodes,pods,... -A --watch -o json |
// karpenter plan --watch -f -`) without running anything in it.
//
// The stream is a sequence of JSON values, one after another, separated by
// optional whitespace (kubectl pretty-prints each; nothing separates them
// but a newline). Each value is one of:
//  - a watch event, as `--output-watch-events` prints it (and as the API
//    server's watch sends it, k8s.io/apimachinery pkg/apis/meta/v1
//    watch.go `WatchEvent`): `{"type": "ADDED"|"MODIFIED"|"DELETED",
//    "object": {...}}`. BOOKMARK events carry no change and are skipped. An
//    ERROR event (its object a Status, e.g. `410 Gone` when the watch
//    expired) is an error naming its message: the stream cannot be trusted
//    past it;
//  - an object (`{"kind": "Pod", ...}`), as kubectl prints without
//    `--output-watch-events`: an ADDED event (the state's upsert, so later
//    versions replace earlier ones; such a stream cannot say that an object
//    was deleted, which is why `--output-watch-events` is the better form);
//  - a list (`{"kind": "List"|"PodList"|..., "items": [...]}`), as `kubectl
//    get -o json` prints without --watch: an ADDED event per item.
// Objects are decoded exactly as karpenter/snapshot/load.h LoadJson decodes
// them (same value forms, same errors). Objects of kinds a Snapshot does not
// hold are skipped and counted (`skipped_kinds()`), as the loaders count
// them. A value with `type` or `object` and no `kind` (or kind
// "WatchEvent", metav1's) is a watch event; any other is an object or a list
// (a Secret's top-level `type` does not make it an event). The stream may
// open with a UTF-8 byte order mark.
//
// Memory: only the unfinished value is buffered (a value completed inside a
// chunk is decoded from the chunk itself). A value larger than 256 MiB, or
// nested deeper than 100 (snapshot::LoadJson's limit), is an error as soon
// as the bytes fed show it, so a stream that never closes a value cannot
// exhaust memory.
//
// Thread-safety: a WatchStreamDecoder is not thread-safe; distinct decoders
// are independent.
#ifndef KARPENTER_STATE_WATCH_STREAM_H_
#define KARPENTER_STATE_WATCH_STREAM_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "karpenter/state/cluster_state.h"

namespace karpenter::state {

class WatchStreamDecoder {
 public:
  // `source` names the stream in errors and event origins ("stdin",
  // "watch.json").
  explicit WatchStreamDecoder(std::string source);

  // Appends `chunk`, the next bytes of the stream (any split: a chunk may
  // end inside a value, a string or a UTF-8 sequence; every split gives the
  // same events and errors), and appends to `out` the events of every value
  // completed by it, in stream order. Each event's origin is "<source>:
  // value <n>" (1-based, counting every top-level value) and, for a list's
  // items, ": items[<i>]". Errors:
  // InvalidArgument naming the source, the value's number and its line,
  // for a JSON syntax error, a top-level value that is not an object, an
  // event without `type` or `object` or with an unknown type, an ERROR
  // event, or an object LoadJson rejects (its message as LoadJson gives it),
  // e.g. `stdin: value 2 (line 62): MODIFIED event: Pod default/web-1:
  // spec.terminationGracePeriodSeconds: expected an integer, got "abc"`; a
  // JSON syntax error gives its line and column in the stream. Also for a
  // value over 256 MiB or nested deeper than 100.
  // After an error the decoder is unusable (every later call returns the
  // same error); the events appended before the bad value stay in `out`.
  absl::Status Feed(absl::string_view chunk, std::vector<Event>& out);

  // The end of the stream. Error (InvalidArgument naming the source and the
  // line the value began on, e.g. `stdin: value 2 (line 62): the stream ends
  // inside the value (in a string, 5 unclosed brackets)`) if a value, or a
  // leading byte order mark, is incomplete; whitespace is fine. After an
  // error, returns that error.
  absl::Status Finish();

  // True if no partial value is buffered: everything fed so far has become
  // events (a good moment for a caller to act on them). False after an
  // error.
  bool AtBoundary() const;

  // Kinds skipped so far, counted as ObjectSet::skipped_kinds counts them.
  const std::map<std::string, int64_t>& skipped_kinds() const;

 private:
  // Decodes the complete top-level value `value` (number values_) into
  // `out`.
  absl::Status DecodeValue(absl::string_view value, std::vector<Event>& out);
  // "<source>: value <n> (line <L>)" for the value being read.
  std::string Where(int64_t value_number) const;
  // Records `status` as the decoder's error and returns it.
  absl::Status Fail(absl::Status status);

  std::string source_;
  std::string buffer_;  // The unfinished value's bytes from earlier chunks.
  std::string open_;    // Its open '{' and '[', innermost last.
  bool in_value_ = false;
  bool in_string_ = false;
  bool escaped_ = false;
  int bom_bytes_ = 0;          // Bytes of a leading UTF-8 BOM read (0-3).
  uint64_t stream_bytes_ = 0;  // Bytes fed before the current chunk.
  int64_t values_ = 0;         // Top-level values completed.
  int64_t line_ = 1;           // Line of the next byte.
  uint64_t line_start_ = 0;    // Offset of its first byte (past a BOM).
  int64_t value_line_ = 1;     // Line the unfinished value began on.
  int64_t value_column_ = 1;   // Its column.
  absl::Status error_;
  std::map<std::string, int64_t> skipped_kinds_;
};

// Decodes a whole stream: Feed(text) then Finish(). When set,
// `skipped_kinds` receives the skipped-kind counts, added to what it holds
// (only on success).
absl::StatusOr<std::vector<Event>> DecodeWatchStream(
    absl::string_view text, absl::string_view source,
    std::map<std::string, int64_t>* skipped_kinds = nullptr);

}  // namespace karpenter::state

#endif  // KARPENTER_STATE_WATCH_STREAM_H_
