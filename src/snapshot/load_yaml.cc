// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The YAML reader: yaml-cpp parses the stream; each object is re-emitted as
// JSON guided by its message descriptor (YAML scalars are untyped, so only
// the field's type says whether `5` is a string or a number), then decoded by
// the same ObjectSink as JSON input. yaml-cpp reports errors by throwing;
// every exception is caught here and becomes a Status.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"
#include "karpenter/snapshot/load.h"
#include "snapshot/json_decode.h"
#include "snapshot/object_sink.h"
#include "yaml-cpp/depthguard.h"
#include "yaml-cpp/eventhandler.h"
#include "yaml-cpp/yaml.h"

namespace karpenter::snapshot {
namespace {

namespace pb = ::google::protobuf;
using internal::NullQuantity;
using internal::NullQuantityEntry;
using internal::ObjectKind;

constexpr int kMaxListNesting = 4;
// Budget bytes charged per object visited, on top of its JSON.
constexpr size_t kVisitCost = 16;
// Our messages nest about 8 deep; anything deeper is not ours.
constexpr int kMaxMessageDepth = 32;

// YAML 1.2 core schema spellings of booleans.
std::optional<bool> ParseBool(absl::string_view s) {
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  return std::nullopt;
}

// A decimal integer with an optional sign (YAML 1.2 core "int").
bool LooksLikeInteger(absl::string_view s) {
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) s.remove_prefix(1);
  if (s.empty() || s.size() > 40) return false;
  for (char c : s) {
    if (!absl::ascii_isdigit(c)) return false;
  }
  return true;
}

// A quoted scalar, or one tagged !!str, is a string whatever it spells.
bool IsQuoted(const YAML::Node& node) {
  return node.Tag() == "!" || node.Tag() == "tag:yaml.org,2002:str";
}

// protobuf 3.21 has no json_name lookup; our messages have at most a dozen
// fields, so a scan is as fast as a hash. Proto names are accepted too, as
// JsonStringToMessage does.
const pb::FieldDescriptor* FieldByJsonName(const pb::Descriptor* type,
                                           absl::string_view name) {
  for (int i = 0; i < type->field_count(); ++i) {
    const pb::FieldDescriptor* field = type->field(i);
    if (field->json_name() == name || field->name() == name) return field;
  }
  return nullptr;
}

std::string Describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return internal::QuoteValue(node.Scalar());
    default:
      return "null";
  }
}

void AppendJsonString(absl::string_view s, std::string& out) {
  out.push_back('"');
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          absl::StrAppendFormat(&out, "\\u%04x", c);
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

// Emits one YAML object as JSON for a message type. Field paths in errors
// use the YAML keys as written (they are the JSON names).
class JsonWriter {
 public:
  JsonWriter(std::string& out, size_t max_bytes)
      : out_(out), max_bytes_(max_bytes) {}

  absl::Status Message(const YAML::Node& node, const pb::Descriptor* type,
                       int depth);

 private:
  absl::Status Field(const YAML::Node& node, const pb::FieldDescriptor* field,
                     int depth);
  absl::Status Single(const YAML::Node& node, const pb::FieldDescriptor* field,
                      int depth);
  absl::Status Scalar(const YAML::Node& node, const pb::FieldDescriptor* field);
  absl::Status IntOrString(const YAML::Node& node);
  absl::Status Generic(const YAML::Node& node, int depth);
  absl::Status Error(const YAML::Node& node, absl::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s%s%s (line %d)", path_, path_.empty() ? "" : ": ",
                        what, node.Mark().line + 1));
  }
  // Aliases let a small document name the same subtree many times; stop
  // once the JSON grows past what the input size can explain.
  absl::Status CheckSize(const YAML::Node& node) const {
    if (out_.size() <= max_bytes_) return absl::OkStatus();
    return Error(node,
                 absl::StrCat("document expands to more than ", max_bytes_,
                              " bytes of JSON (YAML alias bomb?)"));
  }
  absl::Status Expected(const YAML::Node& node, absl::string_view what) const {
    return Error(node,
                 absl::StrCat("expected ", what, ", got ", Describe(node)));
  }

  std::string& out_;
  size_t max_bytes_;
  std::string path_;
};

absl::Status JsonWriter::Message(const YAML::Node& node,
                                 const pb::Descriptor* type, int depth) {
  if (depth > kMaxMessageDepth) return Error(node, "nesting too deep");
  if (!node.IsMap()) return Expected(node, "a mapping");
  out_.push_back('{');
  bool first = true;
  const size_t path_size = path_.size();
  for (const auto& member : node) {
    // yaml-cpp iterators yield temporaries: hold the nodes by value.
    const YAML::Node key = member.first;
    const YAML::Node value = member.second;
    if (!key.IsScalar()) return Expected(key, "a string key");
    const std::string& name = key.Scalar();
    const pb::FieldDescriptor* field = FieldByJsonName(type, name);
    if (field == nullptr || value.IsNull()) continue;  // Unknown or absent.
    if (!first) out_.push_back(',');
    first = false;
    AppendJsonString(field->json_name(), out_);
    out_.push_back(':');
    absl::StrAppend(&path_, path_size == 0 ? "" : ".", name);
    if (absl::Status s = Field(value, field, depth); !s.ok()) return s;
    path_.resize(path_size);
  }
  out_.push_back('}');
  return CheckSize(node);
}

absl::Status JsonWriter::Field(const YAML::Node& node,
                               const pb::FieldDescriptor* field, int depth) {
  const size_t path_size = path_.size();
  if (field->is_map()) {
    if (!node.IsMap()) return Expected(node, "a mapping");
    const pb::FieldDescriptor* value_field =
        field->message_type()->FindFieldByNumber(2);
    const NullQuantity null_entry = NullQuantityEntry(*field);
    out_.push_back('{');
    bool first = true;
    for (const auto& entry : node) {
      const YAML::Node key = entry.first;
      const YAML::Node value = entry.second;
      if (!key.IsScalar()) return Expected(key, "a string key");
      // `cpu: null` in a quantity map: zero, or pruned (NullQuantityEntry).
      if (value.IsNull() && null_entry == NullQuantity::kDropped) continue;
      if (!first) out_.push_back(',');
      first = false;
      AppendJsonString(key.Scalar(), out_);
      out_.push_back(':');
      absl::StrAppend(&path_, "[", internal::QuoteValue(key.Scalar()), "]");
      if (value.IsNull() && null_entry == NullQuantity::kZero) {
        out_ += "\"0\"";
      } else if (value.IsNull() && value_field->cpp_type() ==
                                       pb::FieldDescriptor::CPPTYPE_STRING) {
        out_ += "\"\"";  // Go decodes `key: null` in a map[string]string as "".
      } else if (absl::Status s = Single(value, value_field, depth); !s.ok()) {
        return s;
      }
      path_.resize(path_size);
      if (absl::Status s = CheckSize(value); !s.ok()) return s;
    }
    out_.push_back('}');
    return absl::OkStatus();
  }
  if (!field->is_repeated()) return Single(node, field, depth);
  if (!node.IsSequence()) return Expected(node, "a list");
  out_.push_back('[');
  size_t i = 0;
  for (const auto& element : node) {
    if (i > 0) out_.push_back(',');
    absl::StrAppend(&path_, "[", i++, "]");
    if (absl::Status s = Single(element, field, depth); !s.ok()) return s;
    path_.resize(path_size);
    if (absl::Status s = CheckSize(element); !s.ok()) return s;
  }
  out_.push_back(']');
  return absl::OkStatus();
}

absl::Status JsonWriter::Single(const YAML::Node& node,
                                const pb::FieldDescriptor* field, int depth) {
  if (field->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE) {
    return Scalar(node, field);
  }
  const std::string& type = field->message_type()->full_name();
  if (type == "google.protobuf.Value") return IntOrString(node);
  if (type == "google.protobuf.Struct") {
    if (!node.IsMap()) return Expected(node, "a mapping");
    return Generic(node, depth + 1);
  }
  if (type == "google.protobuf.Timestamp") {
    if (!node.IsScalar()) return Expected(node, "an RFC 3339 timestamp");
    AppendJsonString(node.Scalar(), out_);
    return absl::OkStatus();
  }
  return Message(node, field->message_type(), depth + 1);
}

absl::Status JsonWriter::Scalar(const YAML::Node& node,
                                const pb::FieldDescriptor* field) {
  using FD = pb::FieldDescriptor;
  const auto cpp_type = field->cpp_type();
  if (node.IsNull()) {
    return Expected(node,
                    cpp_type == FD::CPPTYPE_STRING ? "a string" : "a value");
  }
  if (!node.IsScalar()) {
    return Expected(node,
                    cpp_type == FD::CPPTYPE_STRING ? "a string" : "a scalar");
  }
  const std::string& text = node.Scalar();
  switch (cpp_type) {
    case FD::CPPTYPE_INT32:
    case FD::CPPTYPE_INT64:
    case FD::CPPTYPE_UINT32:
    case FD::CPPTYPE_UINT64: {
      const bool is32 =
          cpp_type == FD::CPPTYPE_INT32 || cpp_type == FD::CPPTYPE_UINT32;
      const bool is_unsigned =
          cpp_type == FD::CPPTYPE_UINT32 || cpp_type == FD::CPPTYPE_UINT64;
      int64_t v = 0;
      if (!LooksLikeInteger(text) || !absl::SimpleAtoi(text, &v) ||
          (is32 && (v < std::numeric_limits<int32_t>::min() ||
                    v > std::numeric_limits<int32_t>::max())) ||
          (is_unsigned && v < 0)) {
        return Expected(node, is32 ? "a 32-bit integer" : "an integer");
      }
      absl::StrAppend(&out_, v);
      return absl::OkStatus();
    }
    case FD::CPPTYPE_BOOL: {
      const std::optional<bool> b = ParseBool(text);
      if (!b) return Expected(node, "a boolean");
      out_ += *b ? "true" : "false";
      return absl::OkStatus();
    }
    case FD::CPPTYPE_DOUBLE:
    case FD::CPPTYPE_FLOAT: {
      double d = 0;
      if (!absl::SimpleAtod(text, &d) || !std::isfinite(d)) {
        return Expected(node, "a number");
      }
      absl::StrAppendFormat(&out_, "%.17g", d);
      return absl::OkStatus();
    }
    default:  // Strings, bytes and enum names.
      AppendJsonString(text, out_);
      return absl::OkStatus();
  }
}

// IntOrString: a plain integer is an integer, anything else a string
// (`minAvailable: 1` vs `minAvailable: "1"` and `minAvailable: 50%`).
absl::Status JsonWriter::IntOrString(const YAML::Node& node) {
  if (!node.IsScalar()) return Expected(node, "an integer or a string");
  const std::string& text = node.Scalar();
  if (!IsQuoted(node) && LooksLikeInteger(text)) {
    int32_t v = 0;
    if (!absl::SimpleAtoi(text, &v)) {
      return Expected(node, "a 32-bit integer or a string");
    }
    absl::StrAppend(&out_, v);
    return absl::OkStatus();
  }
  AppendJsonString(text, out_);
  return absl::OkStatus();
}

// A google.protobuf.Struct keeps a subtree we do not declare (e.g. a
// topology spread constraint), so it is emitted without a schema: YAML 1.2
// core-schema scalars (null, booleans, decimal integers) keep their type,
// every other scalar is a string.
absl::Status JsonWriter::Generic(const YAML::Node& node, int depth) {
  if (depth > kMaxMessageDepth) return Error(node, "nesting too deep");
  const size_t path_size = path_.size();
  if (node.IsMap()) {
    out_.push_back('{');
    bool first = true;
    for (const auto& member : node) {
      const YAML::Node key = member.first;
      const YAML::Node value = member.second;
      if (!key.IsScalar()) return Expected(key, "a string key");
      if (!first) out_.push_back(',');
      first = false;
      AppendJsonString(key.Scalar(), out_);
      out_.push_back(':');
      absl::StrAppend(&path_, path_size == 0 ? "" : ".", key.Scalar());
      if (absl::Status s = Generic(value, depth + 1); !s.ok()) return s;
      path_.resize(path_size);
    }
    out_.push_back('}');
    return CheckSize(node);
  }
  if (node.IsSequence()) {
    out_.push_back('[');
    size_t i = 0;
    for (const auto& element : node) {
      if (i > 0) out_.push_back(',');
      absl::StrAppend(&path_, "[", i++, "]");
      if (absl::Status s = Generic(element, depth + 1); !s.ok()) return s;
      path_.resize(path_size);
    }
    out_.push_back(']');
    return CheckSize(node);
  }
  if (!node.IsScalar()) {
    out_ += "null";
    return absl::OkStatus();
  }
  const std::string& text = node.Scalar();
  const bool plain = !IsQuoted(node);
  int64_t v = 0;
  if (plain &&
      (text == "null" || text == "~" || text == "Null" || text == "NULL")) {
    out_ += "null";
  } else if (plain && ParseBool(text)) {
    out_ += *ParseBool(text) ? "true" : "false";
  } else if (plain && LooksLikeInteger(text) && absl::SimpleAtoi(text, &v)) {
    absl::StrAppend(&out_, v);
  } else {
    AppendJsonString(text, out_);
  }
  return absl::OkStatus();
}

// Reads the documents of one YAML stream.
class YamlReader {
 public:
  YamlReader(absl::string_view source, ObjectSet& out, size_t max_json_bytes)
      : sink_(out), where_{source, "", ""}, max_json_bytes_(max_json_bytes) {}

  absl::Status Document(const YAML::Node& node, int number) {
    where_.document = absl::StrCat("document ", number);
    where_.document_number = static_cast<uint32_t>(number);
    where_.item.clear();
    if (node.IsSequence()) return Elements(node, "", "", "", 0);
    return Object(node, "", "", 0);
  }

 private:
  absl::Status Object(const YAML::Node& node, absl::string_view inherited_kind,
                      absl::string_view inherited_api, int list_depth);
  absl::Status Elements(const YAML::Node& items, absl::string_view prefix,
                        absl::string_view kind, absl::string_view api,
                        int list_depth);
  absl::Status Error(absl::string_view label, absl::string_view detail) {
    return internal::LocatedError(where_, label, detail);
  }

  internal::ObjectSink sink_;
  internal::Location where_;
  size_t max_json_bytes_;
  size_t json_bytes_ = 0;  // Emitted so far, against alias expansion.
  std::string json_;       // Scratch buffer, reused across objects.
};

absl::Status YamlReader::Elements(const YAML::Node& items,
                                  absl::string_view prefix,
                                  absl::string_view kind, absl::string_view api,
                                  int list_depth) {
  const std::string saved = where_.item;
  size_t i = 0;
  for (const auto& item : items) {
    where_.item =
        absl::StrCat(saved, saved.empty() || prefix.empty() ? "" : ".", prefix,
                     "[", i++, "]");
    if (absl::Status s = Object(item, kind, api, list_depth); !s.ok()) {
      return s;
    }
  }
  where_.item = saved;
  return absl::OkStatus();
}

absl::Status YamlReader::Object(const YAML::Node& node,
                                absl::string_view inherited_kind,
                                absl::string_view inherited_api,
                                int list_depth) {
  // Aliases can repeat whole lists of objects (even lists of lists); charge
  // each visit so a tiny stream cannot make us walk or decode millions.
  json_bytes_ += kVisitCost;
  if (json_bytes_ > max_json_bytes_) {
    return Error("", absl::StrCat("the stream expands to more than ",
                                  max_json_bytes_ / kVisitCost,
                                  " objects (YAML alias bomb?)"));
  }
  if (!node.IsMap()) {
    return Error("", absl::StrFormat("expected a mapping, got %s (line %d)",
                                     Describe(node), node.Mark().line + 1));
  }
  std::string kind(inherited_kind), api(inherited_api), ns, name;
  YAML::Node items;
  for (const auto& member : node) {
    const YAML::Node key_node = member.first;
    const YAML::Node value = member.second;
    if (!key_node.IsScalar()) continue;
    const std::string key = key_node.Scalar();
    if (key == "items") items = value;
    if (key == "kind" && value.IsScalar()) kind = value.Scalar();
    if (key == "apiVersion" && value.IsScalar()) api = value.Scalar();
    if (key == "metadata" && value.IsMap()) {
      for (const auto& field : value) {
        const YAML::Node k = field.first;
        const YAML::Node v = field.second;
        if (!k.IsScalar() || !v.IsScalar()) continue;
        if (k.Scalar() == "name") name = v.Scalar();
        if (k.Scalar() == "namespace") ns = v.Scalar();
      }
    }
  }
  if (kind.empty()) {
    return Error(
        internal::ObjectLabel("", ns, name),
        absl::StrFormat("object has no kind (line %d)", node.Mark().line + 1));
  }
  if (internal::IsListKind(kind) && (items || kind == "List")) {
    if (list_depth >= kMaxListNesting) {
      return Error(kind,
                   absl::StrCat("lists nested deeper than ", kMaxListNesting));
    }
    if (!items || items.IsNull()) return absl::OkStatus();
    if (!items.IsSequence()) {
      return Error(kind, absl::StrFormat("items: expected a list, got %s",
                                         Describe(items)));
    }
    const bool typed = kind != "List";
    return Elements(items, "items", internal::ItemKind(kind),
                    typed ? absl::string_view(api) : "", list_depth + 1);
  }
  const ObjectKind object_kind = internal::Classify(kind, api);
  if (object_kind == ObjectKind::kSkipped) {
    sink_.Skip(kind, api);
    return absl::OkStatus();
  }
  const std::string label = internal::ObjectLabel(kind, ns, name);
  json_.clear();
  JsonWriter writer(json_, max_json_bytes_ - json_bytes_);
  absl::Status status =
      writer.Message(node, internal::DescriptorFor(object_kind), 0);
  if (!status.ok()) return Error(label, status.message());
  json_bytes_ += json_.size();
  const int line = node.Mark().line + 1;
  status = sink_.Add(object_kind, kind, api, json_, where_,
                     static_cast<uint32_t>(line));
  if (!status.ok()) {
    // The decoder and the API server rules know no lines: name the object's.
    return Error(label, absl::StrFormat("%s (object at line %d)",
                                        status.message(), line));
  }
  return absl::OkStatus();
}

int DocumentAtLine(absl::string_view text, int line);

// Counts parser events and gives up past a limit. yaml-cpp 0.7 can loop
// forever on some malformed flow collections (e.g. ",kig }\n\n}"),
// emitting events without consuming input; well-formed YAML yields well
// under one event per input byte.
class EventBudget final : public YAML::EventHandler {
 public:
  struct Exceeded : std::runtime_error {
    explicit Exceeded(const YAML::Mark& m)
        : std::runtime_error("event budget exceeded"), mark(m) {}
    YAML::Mark mark;
  };
  explicit EventBudget(size_t limit) : limit_(limit) {}

  void OnDocumentStart(const YAML::Mark& mark) override { Tick(mark); }
  void OnDocumentEnd() override { Tick(last_); }
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { Tick(mark); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { Tick(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                const std::string&) override {
    Tick(mark);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&,
                       YAML::anchor_t, YAML::EmitterStyle::value) override {
    Tick(mark);
  }
  void OnSequenceEnd() override { Tick(last_); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    Tick(mark);
  }
  void OnMapEnd() override { Tick(last_); }

 private:
  void Tick(const YAML::Mark& mark) {
    last_ = mark;
    if (++events_ > limit_) throw Exceeded(mark);
  }
  size_t limit_;
  size_t events_ = 0;
  YAML::Mark last_;
};

// Parses the stream once without building nodes, so LoadAll only ever sees
// input whose parse terminates.
absl::Status CheckParserTerminates(const std::string& text,
                                   absl::string_view source) {
  std::istringstream stream(text);
  YAML::Parser parser(stream);
  EventBudget budget(2 * text.size() + 64);
  try {
    while (parser.HandleNextDocument(budget)) {
    }
  } catch (const EventBudget::Exceeded& e) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: document %d: malformed YAML near line %d, column %d: the parser "
        "does not terminate",
        source, DocumentAtLine(text, e.mark.line), e.mark.line + 1,
        e.mark.column + 1));
  }
  return absl::OkStatus();
}

// yaml-cpp's LoadAll reports a syntax error by line only; recover the
// document it is in by counting "---" separators before that line.
int DocumentAtLine(absl::string_view text, int line) {
  int document = 1;
  bool content_seen = false;
  int current = 0;
  for (absl::string_view l : absl::StrSplit(text, '\n')) {
    if (current++ >= line) break;
    if (absl::StartsWith(l, "---") &&
        (l.size() == 3 || absl::ascii_isspace(l[3]))) {
      if (content_seen) ++document;
      content_seen = true;  // "---" opens a document even if it is empty.
      continue;
    }
    const absl::string_view t = absl::StripAsciiWhitespace(l);
    if (!t.empty() && t.front() != '#') content_seen = true;
  }
  return document;
}

// Parses every document of `text`; YAML syntax errors become Status.
absl::Status ParseDocuments(absl::string_view text, absl::string_view source,
                            std::vector<YAML::Node>& documents) {
  // yaml-cpp takes a NUL for the end of the input and reports a misleading
  // "illegal EOF"; YAML allows no NUL character anywhere, so name it.
  if (const size_t nul = text.find('\0'); nul != absl::string_view::npos) {
    const absl::string_view before = text.substr(0, nul);
    const int line =
        static_cast<int>(std::count(before.begin(), before.end(), '\n'));
    const size_t line_start = before.rfind('\n');
    const size_t column =
        line_start == absl::string_view::npos ? nul : nul - line_start - 1;
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: document %d: NUL byte at line %d, column %d: YAML allows no NUL "
        "characters",
        source, DocumentAtLine(text, line), line + 1, column + 1));
  }
  const std::string copy(text);
  try {
    if (absl::Status s = CheckParserTerminates(copy, source); !s.ok()) {
      return s;
    }
    documents = YAML::LoadAll(copy);
  } catch (const YAML::DeepRecursion& e) {
    // Its message is yaml-cpp's unhelpful "bad file".
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: document %d: YAML nested too deep (%d levels) at line %d, "
        "column %d",
        source, DocumentAtLine(text, e.mark.line), e.depth(), e.mark.line + 1,
        e.mark.column + 1));
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: document %d: YAML syntax error at line %d, column %d: %s", source,
        DocumentAtLine(text, e.mark.line), e.mark.line + 1, e.mark.column + 1,
        e.msg));
  }
  return absl::OkStatus();
}

// Converting to JSON can at most double well-formed YAML (quotes, commas);
// far more means aliases are being expanded.
size_t MaxJsonBytes(absl::string_view text) {
  return 4 * text.size() + (size_t{1} << 20);
}

absl::Status LoadYamlOrThrow(absl::string_view text, absl::string_view source,
                             ObjectSet& out) {
  std::vector<YAML::Node> documents;
  if (absl::Status s = ParseDocuments(text, source, documents); !s.ok()) {
    return s;
  }
  YamlReader reader(source, out, MaxJsonBytes(text));
  for (size_t i = 0; i < documents.size(); ++i) {
    if (documents[i].IsNull()) continue;
    if (absl::Status s = reader.Document(documents[i], static_cast<int>(i + 1));
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

// The scalar `key` of the mapping `node`, or "".
std::string ScalarMember(const YAML::Node& node, absl::string_view key) {
  if (!node.IsMap()) return "";
  for (const auto& member : node) {
    const YAML::Node k = member.first;
    const YAML::Node v = member.second;
    if (k.IsScalar() && k.Scalar() == key && v.IsScalar()) return v.Scalar();
  }
  return "";
}

absl::Status DocumentsOfKindOrThrow(
    absl::string_view text, absl::string_view source, absl::string_view kind,
    const pb::Message& prototype,
    std::vector<std::unique_ptr<pb::Message>>& out) {
  std::vector<YAML::Node> documents;
  if (absl::Status s = ParseDocuments(text, source, documents); !s.ok()) {
    return s;
  }
  const size_t max_bytes = MaxJsonBytes(text);
  for (size_t i = 0; i < documents.size(); ++i) {
    const YAML::Node& document = documents[i];
    if (ScalarMember(document, "kind") != kind) continue;
    std::string name;
    for (const auto& member : document) {
      const YAML::Node k = member.first;
      if (k.IsScalar() && k.Scalar() == "metadata") {
        name = ScalarMember(member.second, "name");
      }
    }
    const std::string where =
        absl::StrFormat("%s: document %d (%s)", source, i + 1,
                        internal::ObjectLabel(kind, "", name));
    std::string json;
    JsonWriter writer(json, max_bytes);
    absl::Status s = writer.Message(document, prototype.GetDescriptor(), 0);
    std::unique_ptr<pb::Message> message(prototype.New());
    if (s.ok()) s = internal::DecodeJsonMessage(json, *message);
    if (!s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": ", s.message()));
    }
    out.push_back(std::move(message));
  }
  return absl::OkStatus();
}

// Runs `fn`, turning anything yaml-cpp throws into a Status.
template <typename Fn>
absl::Status CatchYaml(absl::string_view source, Fn fn) {
  // yaml-cpp throws for syntax errors, for deep nesting (DeepRecursion) and
  // from its node accessors; the library must not let any of it escape.
  try {
    return fn();
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: YAML error at line %d, column %d: %s", source,
                        e.mark.line + 1, e.mark.column + 1, e.msg));
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": cannot read YAML: ", e.what()));
  } catch (...) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": cannot read YAML: unknown error"));
  }
}

}  // namespace

absl::Status LoadYaml(absl::string_view text, absl::string_view source,
                      ObjectSet& out) {
  ObjectSet staged;
  absl::Status status =
      CatchYaml(source, [&] { return LoadYamlOrThrow(text, source, staged); });
  if (!status.ok()) return status;
  out.Append(std::move(staged));
  return absl::OkStatus();
}

namespace internal {

absl::Status YamlDocumentsOfKind(
    absl::string_view text, absl::string_view source, absl::string_view kind,
    const google::protobuf::Message& prototype,
    std::vector<std::unique_ptr<google::protobuf::Message>>& out) {
  std::vector<std::unique_ptr<google::protobuf::Message>> staged;
  absl::Status status = CatchYaml(source, [&] {
    return DocumentsOfKindOrThrow(text, source, kind, prototype, staged);
  });
  if (!status.ok()) return status;
  for (auto& m : staged) out.push_back(std::move(m));
  return absl::OkStatus();
}

}  // namespace internal

}  // namespace karpenter::snapshot
