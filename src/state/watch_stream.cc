// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// WatchStreamDecoder (karpenter/state/watch_stream.h): a byte-at-a-time
// splitter of concatenated top-level JSON values that keeps only the
// unfinished value, and a decoder of each complete value through
// snapshot::LoadJson.

#include "karpenter/state/watch_stream.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/state/cluster_state.h"
#include "snapshot/json_scan.h"
#include "snapshot/object_sink.h"

namespace karpenter::state {
namespace {

namespace internal = ::karpenter::snapshot::internal;

// The largest top-level value buffered: a watch event or a list bigger than
// this is refused rather than held in memory.
constexpr size_t kMaxValueBytes = size_t{256} << 20;

constexpr absl::string_view kBom = "\xEF\xBB\xBF";

// Describes a JSON value for an error message: its type, and a string's
// text quoted (cut as the loaders cut offending values).
std::string Describe(absl::string_view value) {
  if (!value.empty() && value.front() == '"') {
    std::optional<std::string> s = internal::StringValue(value);
    return absl::StrCat("a string ", internal::QuoteValue(s ? *s : value));
  }
  return std::string(internal::DescribeJsonType(value));
}

// Describes what a top-level value that is not an object begins with.
std::string DescribeStart(char c) {
  if (c == '[') return "an array";
  if (c == '"') return "a string";
  if (c == '-' || absl::ascii_isdigit(static_cast<unsigned char>(c))) {
    return "a number";
  }
  return absl::StrCat("'", absl::CHexEscape(absl::string_view(&c, 1)), "'");
}

// The members of a top-level value that decide its form (the last of each,
// as protobuf reads repeated keys).
struct Form {
  std::optional<absl::string_view> kind, type, object;
};

Form FormOf(const std::vector<internal::RootMember>& members) {
  Form form;
  for (const internal::RootMember& m : members) {
    const std::string key = m.raw_key.find('\\') == absl::string_view::npos
                                ? std::string(m.raw_key)
                                : internal::DecodeString(m.raw_key);
    if (key == "kind") form.kind = m.value;
    if (key == "type") form.type = m.value;
    if (key == "object") form.object = m.value;
  }
  return form;
}

// Rewrites the position in a ValidateJson message ("... invalid JSON at
// line L, column C: ...", relative to the value) into a position in the
// stream, given where the value began.
std::string StreamPosition(absl::string_view message, int64_t value_line,
                           int64_t value_column) {
  constexpr absl::string_view kLine = "invalid JSON at line ";
  constexpr absl::string_view kColumn = ", column ";
  const size_t at = message.find(kLine);
  if (at == absl::string_view::npos) return std::string(message);
  const size_t line_start = at + kLine.size();
  const size_t line_end = message.find(kColumn, line_start);
  if (line_end == absl::string_view::npos) return std::string(message);
  const size_t column_start = line_end + kColumn.size();
  const size_t column_end = message.find(':', column_start);
  if (column_end == absl::string_view::npos) return std::string(message);
  int64_t line = 0, column = 0;
  if (!absl::SimpleAtoi(message.substr(line_start, line_end - line_start),
                        &line) ||
      !absl::SimpleAtoi(message.substr(column_start, column_end - column_start),
                        &column)) {
    return std::string(message);
  }
  if (line == 1) column += value_column - 1;
  line += value_line - 1;
  return absl::StrCat(message.substr(0, line_start), line, kColumn, column,
                      message.substr(column_end));
}

// An object decoded from a value, with its place in it.
struct Decoded {
  std::vector<size_t> position;  // The indices of `item`, outermost first.
  std::string item;              // "items[3]", "items[1].items[0]" or "".
  Object object;
};

// The indices in an origin's item ("items[1].items[0]" -> {1, 0}).
std::vector<size_t> PositionOf(absl::string_view item) {
  std::vector<size_t> position;
  size_t open = item.find('[');
  while (open != absl::string_view::npos) {
    const size_t close = item.find(']', open);
    if (close == absl::string_view::npos) break;
    size_t index = 0;
    if (absl::SimpleAtoi(item.substr(open + 1, close - open - 1), &index)) {
      position.push_back(index);
    }
    open = item.find('[', close);
  }
  return position;
}

template <typename T>
void Collect(std::vector<T>& objects,
             const std::vector<snapshot::ObjectOrigin>& origins,
             std::vector<Decoded>& out) {
  for (size_t i = 0; i < objects.size(); ++i) {
    std::string item = i < origins.size() ? origins[i].item : "";
    std::vector<size_t> position = PositionOf(item);
    out.push_back(
        Decoded{std::move(position), std::move(item),
                Object(std::in_place_type<T>, std::move(objects[i]))});
  }
}

// Every object of `set`, in the order they stood in the input (a list's
// items in list order, whatever their kinds).
std::vector<Decoded> InInputOrder(snapshot::ObjectSet& set) {
  std::vector<Decoded> all;
  const snapshot::ObjectOrigins& o = set.origins;
  Collect(set.nodes, o.nodes, all);
  Collect(set.pods, o.pods, all);
  Collect(set.pdbs, o.pdbs, all);
  Collect(set.node_pools, o.node_pools, all);
  Collect(set.node_claims, o.node_claims, all);
  Collect(set.volume_attachments, o.volume_attachments, all);
  Collect(set.persistent_volume_claims, o.persistent_volume_claims, all);
  Collect(set.persistent_volumes, o.persistent_volumes, all);
  Collect(set.storage_classes, o.storage_classes, all);
  Collect(set.csi_nodes, o.csi_nodes, all);
  Collect(set.daemon_sets, o.daemon_sets, all);
  std::stable_sort(all.begin(), all.end(),
                   [](const Decoded& a, const Decoded& b) {
                     return a.position < b.position;
                   });
  return all;
}

// The error an ERROR watch event stands for, naming its Status.
std::string StatusDetail(std::optional<absl::string_view> object) {
  if (!object || object->empty() || object->front() != '{') {
    return absl::StrCat("ERROR event: object: expected a Status, got ",
                        object ? Describe(*object) : "nothing");
  }
  std::string detail = "ERROR event:";
  const auto message = internal::FindMember(*object, "message");
  const std::optional<std::string> text =
      message ? internal::StringValue(*message) : std::nullopt;
  absl::StrAppend(&detail, " ",
                  text ? internal::QuoteValue(*text) : "(no message)");
  std::vector<std::string> facts;
  if (const auto reason = internal::FindMember(*object, "reason")) {
    if (const auto s = internal::StringValue(*reason)) {
      facts.push_back(absl::StrCat("reason ", internal::QuoteValue(*s)));
    }
  }
  if (const auto code = internal::FindMember(*object, "code")) {
    if (!code->empty() && code->front() != '"' && code->front() != '{' &&
        code->front() != '[' && !internal::IsNull(*code) &&
        code->size() <= internal::kMaxQuotedBytes) {
      facts.push_back(absl::StrCat("code ", *code));
    }
  }
  for (size_t i = 0; i < facts.size(); ++i) {
    absl::StrAppend(&detail, i == 0 ? " (" : ", ", facts[i]);
  }
  if (!facts.empty()) absl::StrAppend(&detail, ")");
  return detail;
}

std::optional<EventType> ChangeType(absl::string_view name) {
  if (name == "ADDED") return EventType::kAdded;
  if (name == "MODIFIED") return EventType::kModified;
  if (name == "DELETED") return EventType::kDeleted;
  return std::nullopt;
}

}  // namespace

WatchStreamDecoder::WatchStreamDecoder(std::string source)
    : source_(std::move(source)) {}

std::string WatchStreamDecoder::Where(int64_t value_number) const {
  return absl::StrCat(source_, ": value ", value_number, " (line ", value_line_,
                      ")");
}

absl::Status WatchStreamDecoder::Fail(absl::Status status) {
  error_ = std::move(status);
  std::string().swap(buffer_);
  return error_;
}

absl::Status WatchStreamDecoder::Feed(absl::string_view chunk,
                                      std::vector<Event>& out) {
  if (!error_.ok()) return error_;
  const size_t n = chunk.size();
  // Where the unfinished value begins in `chunk` (0 if in an earlier one).
  size_t value_start = 0;
  for (size_t i = 0; i < n; ++i) {
    const char c = chunk[i];
    if (!in_value_) {
      const uint64_t offset = stream_bytes_ + i;
      if (offset < kBom.size() && offset == static_cast<uint64_t>(bom_bytes_) &&
          c == kBom[bom_bytes_]) {
        ++bom_bytes_;
        line_start_ = offset + 1;  // Columns count from after the BOM.
        continue;
      }
      if (bom_bytes_ > 0 && bom_bytes_ < static_cast<int>(kBom.size())) {
        return Fail(absl::InvalidArgumentError(absl::StrCat(
            source_, ": invalid JSON at line 1, column 1: a cut UTF-8 byte ",
            "order mark")));
      }
      if (c == '\n') {
        ++line_;
        line_start_ = offset + 1;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r') continue;
      value_line_ = line_;
      value_column_ = static_cast<int64_t>(offset - line_start_) + 1;
      if (c != '{') {
        return Fail(absl::InvalidArgumentError(
            absl::StrCat(Where(values_ + 1), ": expected an object, got ",
                         DescribeStart(c))));
      }
      in_value_ = true;
      in_string_ = false;
      escaped_ = false;
      open_.assign(1, '{');
      value_start = i;
      continue;
    }

    // Inside a value: track strings and brackets until it closes.
    if (c == '\n') {
      ++line_;
      line_start_ = stream_bytes_ + i + 1;
    }
    if (in_string_) {
      if (escaped_) {
        escaped_ = false;
      } else if (c == '\\') {
        escaped_ = true;
      } else if (c == '"') {
        in_string_ = false;
      } else {
        // Skip to the next byte that matters (most of a dump is strings).
        size_t next = i + 1;
        while (next < n && chunk[next] != '"' && chunk[next] != '\\' &&
               chunk[next] != '\n') {
          ++next;
        }
        i = next - 1;
      }
      continue;
    }
    bool complete = false;
    if (c == '"') {
      in_string_ = true;
    } else if (c == '{' || c == '[') {
      open_.push_back(c);
      // Deeper than LoadJson reads: end the value here, so that the
      // validator names the error now rather than after 256 MiB.
      complete = open_.size() > static_cast<size_t>(internal::kMaxJsonDepth);
    } else if (c == '}' || c == ']') {
      const char opener = c == '}' ? '{' : '[';
      if (open_.back() != opener) {
        complete = true;  // Mismatched: the validator names it.
      } else {
        open_.pop_back();
        complete = open_.empty();
      }
    }
    if (!complete) continue;

    const size_t size = buffer_.size() + (i + 1 - value_start);
    if (size > kMaxValueBytes) {
      return Fail(absl::InvalidArgumentError(
          absl::StrCat(Where(values_ + 1), ": the value is larger than ",
                       kMaxValueBytes >> 20, " MiB")));
    }
    absl::string_view value;
    if (buffer_.empty()) {
      value = chunk.substr(value_start, i + 1 - value_start);
    } else {
      buffer_.append(chunk.data() + value_start, i + 1 - value_start);
      value = buffer_;
    }
    in_value_ = false;
    ++values_;
    absl::Status status = DecodeValue(value, out);
    if (!status.ok()) return Fail(std::move(status));
    if (buffer_.capacity() > (size_t{1} << 20)) {
      std::string().swap(buffer_);
    } else {
      buffer_.clear();
    }
  }
  if (in_value_) {
    const size_t rest = n - value_start;
    if (buffer_.size() + rest > kMaxValueBytes) {
      return Fail(absl::InvalidArgumentError(
          absl::StrCat(Where(values_ + 1), ": the value is larger than ",
                       kMaxValueBytes >> 20, " MiB")));
    }
    buffer_.append(chunk.data() + value_start, rest);
  }
  stream_bytes_ += n;
  return absl::OkStatus();
}

absl::Status WatchStreamDecoder::DecodeValue(absl::string_view value,
                                             std::vector<Event>& out) {
  const std::string where = Where(values_);
  std::vector<internal::RootMember> members;
  if (absl::Status s = internal::ValidateJson(value, &members); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": ", StreamPosition(s.message(), value_line_, value_column_)));
  }
  const Form form = FormOf(members);
  const std::string origin = absl::StrCat(source_, ": value ", values_);
  snapshot::ObjectSet set;

  // A watch event has no `kind` (or, typed, metav1's "WatchEvent"); a
  // Kubernetes object may have a `type` member too (a Secret).
  const bool watch_event = (form.type || form.object) &&
                           (!form.kind || internal::IsNull(*form.kind) ||
                            internal::StringValue(*form.kind) == "WatchEvent");
  if (!watch_event) {
    // An object or a list: ADDED events.
    if (absl::Status s = snapshot::LoadJson(value, where, set); !s.ok()) {
      return s;
    }
    for (auto& [kind, count] : set.skipped_kinds) skipped_kinds_[kind] += count;
    for (Decoded& d : InInputOrder(set)) {
      out.push_back(
          Event{EventType::kAdded, std::move(d.object),
                d.item.empty() ? origin : absl::StrCat(origin, ": ", d.item)});
    }
    return absl::OkStatus();
  }

  // A watch event.
  if (!form.type) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": watch event has no type"));
  }
  const std::optional<std::string> type = internal::StringValue(*form.type);
  if (!type) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": type: expected a string, got ", Describe(*form.type)));
  }
  if (*type == "BOOKMARK") return absl::OkStatus();
  if (*type == "ERROR") {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": ", StatusDetail(form.object)));
  }
  const std::optional<EventType> event_type = ChangeType(*type);
  if (!event_type) {
    return absl::InvalidArgumentError(absl::StrCat(
        where,
        ": type: expected \"ADDED\", \"MODIFIED\", \"DELETED\", \"BOOKMARK\" "
        "or \"ERROR\", got ",
        internal::QuoteValue(*type)));
  }
  const std::string event = absl::StrCat(where, ": ", *type, " event");
  if (!form.object) {
    return absl::InvalidArgumentError(absl::StrCat(event, " has no object"));
  }
  const absl::string_view object = *form.object;
  if (object.front() != '{') {
    return absl::InvalidArgumentError(absl::StrCat(
        event, ": object: expected an object, got ", Describe(object)));
  }
  if (const auto kind = internal::FindMember(object, "kind")) {
    const std::string name = internal::StringValue(*kind).value_or("");
    if (internal::IsListKind(name) &&
        (name == "List" || internal::FindMember(object, "items"))) {
      return absl::InvalidArgumentError(absl::StrCat(
          event, ": object: expected a single object, got a ", name));
    }
  }
  if (absl::Status s = snapshot::LoadJson(object, event, set); !s.ok()) {
    return s;
  }
  for (auto& [kind, count] : set.skipped_kinds) skipped_kinds_[kind] += count;
  std::vector<Decoded> decoded = InInputOrder(set);
  if (decoded.size() == 1) {
    out.push_back(
        Event{*event_type, std::move(decoded.front().object), origin});
  }
  return absl::OkStatus();
}

absl::Status WatchStreamDecoder::Finish() {
  if (!error_.ok()) return error_;
  if (bom_bytes_ > 0 && bom_bytes_ < static_cast<int>(kBom.size())) {
    return Fail(absl::InvalidArgumentError(absl::StrCat(
        source_,
        ": invalid JSON at line 1, column 1: a cut UTF-8 byte order mark")));
  }
  if (in_value_) {
    return Fail(absl::InvalidArgumentError(absl::StrCat(
        Where(values_ + 1), ": the stream ends inside the value (",
        in_string_ ? "in a string, " : "", open_.size(), " unclosed ",
        open_.size() == 1 ? "bracket" : "brackets", ")")));
  }
  return absl::OkStatus();
}

bool WatchStreamDecoder::AtBoundary() const {
  return error_.ok() && !in_value_ &&
         (bom_bytes_ == 0 || bom_bytes_ == static_cast<int>(kBom.size()));
}

const std::map<std::string, int64_t>& WatchStreamDecoder::skipped_kinds()
    const {
  return skipped_kinds_;
}

absl::StatusOr<std::vector<Event>> DecodeWatchStream(
    absl::string_view text, absl::string_view source,
    std::map<std::string, int64_t>* skipped_kinds) {
  WatchStreamDecoder decoder{std::string(source)};
  std::vector<Event> events;
  if (absl::Status s = decoder.Feed(text, events); !s.ok()) return s;
  if (absl::Status s = decoder.Finish(); !s.ok()) return s;
  if (skipped_kinds != nullptr) {
    for (const auto& [kind, count] : decoder.skipped_kinds()) {
      (*skipped_kinds)[kind] += count;
    }
  }
  return events;
}

}  // namespace karpenter::state
