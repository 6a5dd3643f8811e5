// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The JSON reader: validate once, split lists with the structural scanner,
// decode each object with protobuf. Every byte is visited a constant number
// of times, so a dump of hundreds of MB loads in linear time.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "karpenter/snapshot/load.h"
#include "snapshot/json_scan.h"
#include "snapshot/object_sink.h"

namespace karpenter::snapshot {
namespace {

using internal::ObjectKind;

// Lists inside lists are legal but never printed by kubectl; bound them.
constexpr int kMaxListNesting = 4;

bool KeyIs(absl::string_view raw_key, absl::string_view key) {
  if (raw_key.find('\\') == absl::string_view::npos) return raw_key == key;
  return internal::DecodeString(raw_key) == key;
}

// Describes `value` for an error message: its JSON type, and for a scalar
// also the value itself (a string decoded and quoted, a number or boolean
// as written, both cut as QuoteValue cuts), so the message shows what was
// found: `got a number 42`, `got a string "Pod"`, `got an array`.
std::string DescribeJsonValue(absl::string_view value) {
  const absl::string_view type = internal::DescribeJsonType(value);
  if (value.empty() || value.front() == '{' || value.front() == '[' ||
      internal::IsNull(value)) {
    return std::string(type);
  }
  if (value.front() == '"') {
    std::optional<std::string> s = internal::StringValue(value);
    return absl::StrCat(type, " ", internal::QuoteValue(s ? *s : value));
  }
  if (value.size() <= internal::kMaxQuotedBytes) {
    return absl::StrCat(type, " ", value);
  }
  return absl::StrCat(type, " ", value.substr(0, internal::kMaxQuotedBytes),
                      "... (", value.size(), " bytes)");
}

// The members that decide how an object is read (the last of each, as
// protobuf reads repeated keys).
struct Header {
  std::optional<absl::string_view> kind, api, items;

  void Visit(absl::string_view key, absl::string_view value) {
    if (KeyIs(key, "kind")) kind = value;
    if (KeyIs(key, "apiVersion")) api = value;
    if (KeyIs(key, "items")) items = value;
  }
};

class JsonReader {
 public:
  JsonReader(absl::string_view source, ObjectSet& out)
      : sink_(out), where_{source, "", ""} {}

  // Reads the object `span` whose members `header` holds; `inherited_*` come
  // from an enclosing typed list.
  absl::Status Object(absl::string_view span, const Header& header,
                      absl::string_view inherited_kind,
                      absl::string_view inherited_api, int list_depth);

  // Reads the elements of the array `span`, naming them "<prefix>[i]".
  absl::Status Elements(absl::string_view span, absl::string_view prefix,
                        absl::string_view kind, absl::string_view api,
                        int list_depth);

 private:
  absl::Status Error(absl::string_view label, absl::string_view detail) {
    return internal::LocatedError(where_, label, detail);
  }
  std::string LabelOf(absl::string_view span, absl::string_view kind);

  internal::ObjectSink sink_;
  internal::Location where_;
};

std::string JsonReader::LabelOf(absl::string_view span,
                                absl::string_view kind) {
  std::string ns, name;
  if (const auto meta = internal::FindMember(span, "metadata")) {
    if (const auto v = internal::FindMember(*meta, "namespace")) {
      ns = internal::StringValue(*v).value_or("");
    }
    if (const auto v = internal::FindMember(*meta, "name")) {
      name = internal::StringValue(*v).value_or("");
    }
  }
  return internal::ObjectLabel(kind, ns, name);
}

absl::Status JsonReader::Elements(absl::string_view span,
                                  absl::string_view prefix,
                                  absl::string_view kind, absl::string_view api,
                                  int list_depth) {
  const std::string saved = where_.item;
  absl::Status status;
  // One pass finds each element's extent and its header members together.
  size_t pos = internal::SkipWhitespace(span, 1);
  for (size_t i = 0; pos < span.size() && span[pos] != ']'; ++i) {
    Header header;
    const size_t end = internal::ScanObject(
        span, pos,
        [&](absl::string_view k, absl::string_view v) { header.Visit(k, v); });
    where_.item = absl::StrCat(
        saved, saved.empty() || prefix.empty() ? "" : ".", prefix, "[", i, "]");
    status = Object(span.substr(pos, end - pos), header, kind, api, list_depth);
    if (!status.ok()) break;
    pos = internal::SkipWhitespace(span, end);
    if (pos >= span.size() || span[pos] != ',') break;
    pos = internal::SkipWhitespace(span, pos + 1);
  }
  where_.item = saved;
  return status;
}

absl::Status JsonReader::Object(absl::string_view span, const Header& header,
                                absl::string_view inherited_kind,
                                absl::string_view inherited_api,
                                int list_depth) {
  if (span.empty() || span.front() != '{') {
    return Error(
        "", absl::StrCat("expected an object, got ", DescribeJsonValue(span)));
  }
  const auto& [kind_value, api_value, items] = header;
  std::string kind(inherited_kind), api(inherited_api);
  if (kind_value && !internal::IsNull(*kind_value)) {
    auto s = internal::StringValue(*kind_value);
    if (!s) {
      return Error("", absl::StrCat("kind: expected a string, got ",
                                    DescribeJsonValue(*kind_value)));
    }
    kind = *std::move(s);
  }
  if (api_value && !internal::IsNull(*api_value)) {
    auto s = internal::StringValue(*api_value);
    if (!s) {
      return Error(LabelOf(span, kind),
                   absl::StrCat("apiVersion: expected a string, got ",
                                DescribeJsonValue(*api_value)));
    }
    api = *std::move(s);
  }
  if (kind.empty()) return Error(LabelOf(span, ""), "object has no kind");

  if (internal::IsListKind(kind) && (items || kind == "List")) {
    if (list_depth >= kMaxListNesting) {
      return Error(kind,
                   absl::StrCat("lists nested deeper than ", kMaxListNesting));
    }
    if (!items || internal::IsNull(*items)) return absl::OkStatus();
    if (items->front() != '[') {
      return Error(kind, absl::StrCat("items: expected an array, got ",
                                      DescribeJsonValue(*items)));
    }
    const bool typed = kind != "List";
    return Elements(*items, "items", internal::ItemKind(kind),
                    typed ? absl::string_view(api) : "", list_depth + 1);
  }

  const ObjectKind object_kind = internal::Classify(kind, api);
  if (object_kind == ObjectKind::kSkipped) {
    sink_.Skip(kind, api);
    return absl::OkStatus();
  }
  absl::Status status = sink_.Add(object_kind, kind, api, span, where_, 0);
  if (!status.ok()) return Error(LabelOf(span, kind), status.message());
  return absl::OkStatus();
}

// `value`'s kind member, or "" if absent or not a string.
std::string KindOf(absl::string_view value) {
  if (value.empty() || value.front() != '{') return "";
  const auto member = internal::FindMember(value, "kind");
  return member ? internal::StringValue(*member).value_or("") : "";
}

// "<kind> <name>" of a document for error messages.
std::string DocumentLabel(absl::string_view value, absl::string_view kind) {
  std::string name;
  if (const auto meta = internal::FindMember(value, "metadata")) {
    if (const auto v = internal::FindMember(*meta, "name")) {
      name = internal::StringValue(*v).value_or("");
    }
  }
  return internal::ObjectLabel(kind, "", name);
}

}  // namespace

namespace internal {

absl::Status JsonDocumentsOfKind(
    absl::string_view text, absl::string_view source, absl::string_view kind,
    const google::protobuf::Message& prototype,
    std::vector<std::unique_ptr<google::protobuf::Message>>& out) {
  if (absl::Status s = ValidateJson(text); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": ", s.message()));
  }
  const size_t start = SkipWhitespace(text, 0);
  const size_t end = text.find_last_not_of(" \t\r\n") + 1;
  const absl::string_view value = text.substr(start, end - start);
  std::vector<std::pair<std::string, absl::string_view>> found;
  if (value.front() == '[') {
    ForEachElement(value, [&](size_t i, absl::string_view element) {
      if (KindOf(element) == kind)
        found.emplace_back(absl::StrCat("[", i, "]"), element);
      return true;
    });
  } else if (KindOf(value) == kind) {
    found.emplace_back("", value);
  }
  std::vector<std::unique_ptr<google::protobuf::Message>> staged;
  for (const auto& [where, element] : found) {
    std::unique_ptr<google::protobuf::Message> message(prototype.New());
    if (absl::Status s = DecodeJsonMessage(element, *message); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(source, ": ", where, where.empty() ? "" : " ", "(",
                       DocumentLabel(element, kind), "): ", s.message()));
    }
    staged.push_back(std::move(message));
  }
  for (auto& m : staged) out.push_back(std::move(m));
  return absl::OkStatus();
}

}  // namespace internal

absl::Status LoadJson(absl::string_view text, absl::string_view source,
                      ObjectSet& out) {
  if (absl::StartsWith(text, "\xEF\xBB\xBF")) text.remove_prefix(3);
  std::vector<internal::RootMember> root_members;
  if (absl::Status s = internal::ValidateJson(text, &root_members); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": ", s.message()));
  }
  // Validated: exactly one value between optional whitespace.
  const size_t start = internal::SkipWhitespace(text, 0);
  const size_t end = text.find_last_not_of(" \t\r\n") + 1;
  const absl::string_view value = text.substr(start, end - start);
  ObjectSet staged;
  JsonReader reader(source, staged);
  if (value.front() == '[') {
    if (absl::Status s = reader.Elements(value, "", "", "", 0); !s.ok()) {
      return s;
    }
    out.Append(std::move(staged));
    return absl::OkStatus();
  }
  Header header;
  for (const auto& [key, member] : root_members) header.Visit(key, member);
  absl::Status status = reader.Object(value, header, "", "", 0);
  if (!status.ok()) return status;
  out.Append(std::move(staged));
  return absl::OkStatus();
}

}  // namespace karpenter::snapshot
