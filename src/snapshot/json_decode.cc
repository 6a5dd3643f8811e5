// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "snapshot/json_decode.h"

#include <climits>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/timestamp.pb.h"
#include "google/protobuf/util/time_util.h"
#include "snapshot/json_scan.h"

namespace karpenter::snapshot::internal {

namespace pb = ::google::protobuf;

// How a field's JSON value becomes wire format.
enum class FieldKind : uint8_t {
  kString,
  kInt32,
  kInt64,
  kBool,
  kMessage,
  kTimestamp,
  kValue,      // google.protobuf.Value (IntOrString in our protos)
  kStringMap,  // map<string, string>
  kUnsupported,
};

struct FieldEntry {
  std::string json_name;
  std::string name;
  uint32_t number = 0;
  FieldKind kind = FieldKind::kUnsupported;
  bool repeated = false;
  // kString / kStringMap: a JSON number is also accepted, kept as its text
  // (AcceptsNumberAsText).
  bool number_as_text = false;
  // kStringMap: what a null entry becomes (NullQuantityEntry).
  NullQuantity null_entry = NullQuantity::kNotQuantity;
  const MessageTable* message = nullptr;  // kMessage only
};

struct MessageTable {
  std::vector<FieldEntry> fields;

  // protobuf's lookup order: a json_name match wins over a proto name match.
  int Find(absl::string_view key) const {
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].json_name == key) return static_cast<int>(i);
    }
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].name == key) return static_cast<int>(i);
    }
    return -1;
  }
};

namespace {

// Wire types.
constexpr uint32_t kVarint = 0;
constexpr uint32_t kFixed64 = 1;
constexpr uint32_t kLen = 2;

// Duplicate members are tracked in a 64-bit mask per object.
constexpr size_t kMaxFields = 64;
// Maps are checked for repeated keys (an error in protobuf) by linear scan;
// bigger maps go to protobuf.
constexpr size_t kMaxMapEntries = 64;
// google.protobuf.Value holds numbers as doubles: integers up to 2^53 are
// exact, so protobuf's conversion cannot differ from ours.
constexpr int64_t kMaxExactDouble = int64_t{1} << 53;

FieldKind KindOf(const pb::FieldDescriptor& f) {
  using FD = pb::FieldDescriptor;
  if (f.real_containing_oneof() != nullptr) return FieldKind::kUnsupported;
  if (f.is_map()) {
    const pb::Descriptor* entry = f.message_type();
    return entry->map_key()->type() == FD::TYPE_STRING &&
                   entry->map_value()->type() == FD::TYPE_STRING
               ? FieldKind::kStringMap
               : FieldKind::kUnsupported;
  }
  switch (f.type()) {
    case FD::TYPE_STRING:
      return FieldKind::kString;
    case FD::TYPE_INT32:
      return FieldKind::kInt32;
    case FD::TYPE_INT64:
      return FieldKind::kInt64;
    case FD::TYPE_BOOL:
      return FieldKind::kBool;
    case FD::TYPE_MESSAGE: {
      const std::string& type = f.message_type()->full_name();
      if (type == "google.protobuf.Timestamp") {
        return f.is_repeated() ? FieldKind::kUnsupported
                               : FieldKind::kTimestamp;
      }
      if (type == "google.protobuf.Value") {
        return f.is_repeated() ? FieldKind::kUnsupported : FieldKind::kValue;
      }
      // Other well-known types have their own JSON forms.
      if (f.message_type()->file()->package() == "google.protobuf") {
        return FieldKind::kUnsupported;
      }
      return FieldKind::kMessage;
    }
    default:  // Enums, floating point, unsigned, bytes: unused by our protos.
      return FieldKind::kUnsupported;
  }
}

// All tables built so far, keyed by descriptor; entries are never removed,
// so pointers to them stay valid.
class TableCache {
 public:
  const MessageTable* Get(const pb::Descriptor* d) {
    std::lock_guard<std::mutex> lock(mu_);
    return Build(d);
  }

 private:
  // Called with mu_ held.
  const MessageTable* Build(const pb::Descriptor* d) {
    if (auto it = tables_.find(d); it != tables_.end()) return it->second.get();
    auto owned = std::make_unique<MessageTable>();
    MessageTable* table = owned.get();
    tables_.emplace(d, std::move(owned));  // before recursing: cycles end here
    if (static_cast<size_t>(d->field_count()) > kMaxFields) return nullptr;
    for (int i = 0; i < d->field_count(); ++i) {
      const pb::FieldDescriptor& f = *d->field(i);
      FieldEntry e;
      e.json_name = f.json_name();
      e.name = f.name();
      e.number = static_cast<uint32_t>(f.number());
      e.kind = KindOf(f);
      e.repeated = f.is_repeated();
      e.number_as_text = AcceptsNumberAsText(f);
      e.null_entry = NullQuantityEntry(f);
      if (e.kind == FieldKind::kMessage) e.message = Build(f.message_type());
      if (e.kind == FieldKind::kMessage && e.message == nullptr) {
        e.kind = FieldKind::kUnsupported;
      }
      table->fields.push_back(std::move(e));
    }
    return table;
  }

  std::mutex mu_;
  // Guarded by mu_.
  absl::flat_hash_map<const pb::Descriptor*, std::unique_ptr<MessageTable>>
      tables_;
};

const MessageTable* TableFor(const pb::Descriptor* d) {
  static TableCache* const cache = new TableCache();
  return cache->Get(d);
}

// `-?(0|[1-9][0-9]*)`, not "-0", parsed into `out` if it fits int64.
bool ParsePlainInteger(absl::string_view digits, int64_t& out) {
  absl::string_view body = digits;
  if (!body.empty() && body.front() == '-') body.remove_prefix(1);
  if (body.empty() || body.size() > 19) return false;
  if (body.front() == '0' && digits.size() != 1) return false;
  for (char c : body) {
    if (c < '0' || c > '9') return false;
  }
  return absl::SimpleAtoi(digits, &out);
}

bool IsNumberChar(char c) {
  return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' ||
         c == 'e' || c == 'E';
}

// True if validated JSON `value` is a number (it starts with '-' or a digit).
bool IsJsonNumber(absl::string_view value) {
  return !value.empty() && (value.front() == '-' ||
                            (value.front() >= '0' && value.front() <= '9'));
}

// A rewrite of the text at `span` (a span of the JSON being rewritten).
struct TextEdit {
  absl::string_view span;
  std::string replacement;
};

// The map `object` (a quantity map whose null entries are dropped) with its
// null members removed and its numbers quoted.
std::string WithoutNullMembers(absl::string_view object) {
  std::string out = "{";
  ForEachMember(object, [&](absl::string_view raw_key, absl::string_view v) {
    if (v == "null") return true;
    if (out.size() > 1) out.push_back(',');
    absl::StrAppend(&out, "\"", raw_key, "\":");
    if (IsJsonNumber(v)) {
      absl::StrAppend(&out, "\"", v, "\"");
    } else {
      out.append(v.data(), v.size());
    }
    return true;
  });
  out.push_back('}');
  return out;
}

// Appends to `edits`, in text order, the rewrites QuoteNumbersAsText makes
// in the object `object` (a span of the JSON) of `table`'s type: every
// number a field accepts as text quoted, and every null entry of a quantity
// map made "0" or removed (NullQuantityEntry).
void FindTextEdits(absl::string_view object, const MessageTable& table,
                   std::vector<TextEdit>& edits) {
  ForEachMember(object, [&](absl::string_view raw_key, absl::string_view v) {
    const int index = table.Find(raw_key.find('\\') == absl::string_view::npos
                                     ? std::string(raw_key)
                                     : DecodeString(raw_key));
    if (index < 0 || v.empty()) return true;
    const FieldEntry& f = table.fields[static_cast<size_t>(index)];
    if (f.kind == FieldKind::kMessage && f.message != nullptr) {
      if (v.front() == '{') {
        FindTextEdits(v, *f.message, edits);
      } else if (v.front() == '[') {
        ForEachElement(v, [&](size_t, absl::string_view element) {
          if (!element.empty() && element.front() == '{') {
            FindTextEdits(element, *f.message, edits);
          }
          return true;
        });
      }
    } else if (f.number_as_text && f.kind == FieldKind::kStringMap &&
               v.front() == '{') {
      bool has_null = false;
      const size_t first_edit = edits.size();
      ForEachMember(v, [&](absl::string_view, absl::string_view entry) {
        if (IsJsonNumber(entry)) {
          edits.push_back({entry, absl::StrCat("\"", entry, "\"")});
        } else if (entry == "null") {
          has_null = true;
          if (f.null_entry == NullQuantity::kZero) {
            edits.push_back({entry, "\"0\""});
          }
        }
        return true;
      });
      if (has_null && f.null_entry == NullQuantity::kDropped) {
        edits.resize(first_edit);
        edits.push_back({v, WithoutNullMembers(v)});
      }
    } else if (f.number_as_text && f.kind == FieldKind::kString &&
               IsJsonNumber(v)) {
      edits.push_back({v, absl::StrCat("\"", v, "\"")});
    }
    return true;
  });
}

}  // namespace

bool AcceptsNumberAsText(const google::protobuf::FieldDescriptor& field) {
  // resource.Quantity fields (map<string, string> of quantities) and
  // intstr-like strings. Other string maps (labels, annotations,
  // nodeSelector, parameters) take strings only, as in Kubernetes.
  static const auto* const kFields = new absl::flat_hash_set<std::string>({
      "karpenter.v1.NodeStatus.capacity",
      "karpenter.v1.NodeStatus.allocatable",
      "karpenter.v1.PodSpec.overhead",
      "karpenter.v1.ContainerStatus.allocated_resources",
      "karpenter.v1.ResourceRequirements.requests",
      "karpenter.v1.ResourceRequirements.limits",
      "karpenter.v1.NodePoolSpec.limits",
      "karpenter.v1.NodePoolStatus.resources",
      "karpenter.v1.NodeClaimStatus.capacity",
      "karpenter.v1.NodeClaimStatus.allocatable",
      "karpenter.v1.PersistentVolumeSpec.capacity",
      "karpenter.v1.Budget.nodes",
      "karpenter.v1.NodeOverlaySpec.capacity",
  });
  return kFields->contains(field.full_name());
}

NullQuantity NullQuantityEntry(const google::protobuf::FieldDescriptor& field) {
  if (!field.is_map() || !AcceptsNumberAsText(field)) {
    return NullQuantity::kNotQuantity;
  }
  static const auto* const kPruned = new absl::flat_hash_set<std::string>({
      "karpenter.v1.NodePoolSpec.limits",
      "karpenter.v1.NodePoolStatus.resources",
      "karpenter.v1.NodeClaimStatus.capacity",
      "karpenter.v1.NodeClaimStatus.allocatable",
      "karpenter.v1.NodeOverlaySpec.capacity",
  });
  return kPruned->contains(field.full_name()) ? NullQuantity::kDropped
                                              : NullQuantity::kZero;
}

bool QuoteNumbersAsText(absl::string_view json,
                        const google::protobuf::Descriptor* descriptor,
                        std::string& out) {
  const MessageTable* table = TableFor(descriptor);
  if (table == nullptr) return false;
  const size_t start = SkipWhitespace(json, 0);
  if (start >= json.size() || json[start] != '{') return false;
  std::vector<TextEdit> edits;
  FindTextEdits(json.substr(start), *table, edits);
  if (edits.empty()) return false;
  out.clear();
  out.reserve(json.size() + 2 * edits.size());
  size_t copied = 0;
  for (const TextEdit& edit : edits) {
    const size_t at = static_cast<size_t>(edit.span.data() - json.data());
    out.append(json.data() + copied, at - copied);
    out += edit.replacement;
    copied = at + edit.span.size();
  }
  out.append(json.data() + copied, json.size() - copied);
  return true;
}

bool FastJsonDecoder::Decode(absl::string_view json,
                             google::protobuf::Message& message) {
  const MessageTable* table = TableFor(message.GetDescriptor());
  if (table == nullptr) return false;
  text_ = json;
  wire_.clear();
  size_t pos = SkipWhitespace(text_, 0);
  if (pos >= text_.size() || text_[pos] != '{') return false;
  if (!Object(*table, pos)) return false;
  if (SkipWhitespace(text_, pos) != text_.size()) return false;
  if (wire_.size() > static_cast<size_t>(INT_MAX)) return false;
  return message.ParseFromArray(wire_.data(), static_cast<int>(wire_.size()));
}

bool FastJsonDecoder::Open(char close, size_t& pos) {
  pos = SkipWhitespace(text_, pos + 1);
  if (pos < text_.size() && text_[pos] == close) {
    ++pos;
    return true;
  }
  return false;
}

FastJsonDecoder::Next FastJsonDecoder::AfterElement(char close, size_t& pos) {
  pos = SkipWhitespace(text_, pos);
  if (pos >= text_.size()) return Next::kBad;
  if (text_[pos] == close) {
    ++pos;
    return Next::kClosed;
  }
  if (text_[pos] != ',') return Next::kBad;
  pos = SkipWhitespace(text_, pos + 1);
  return Next::kMore;
}

bool FastJsonDecoder::Object(const MessageTable& table, size_t& pos) {
  uint64_t seen = 0;
  if (Open('}', pos)) return true;
  while (true) {
    if (pos >= text_.size() || text_[pos] != '"') return false;
    absl::string_view key;
    if (!ReadString(pos, key_scratch_, key)) return false;
    // protobuf's parser rejects an empty member name even where unknown
    // members are ignored; let it decide and report.
    if (key.empty()) return false;
    pos = SkipWhitespace(text_, pos);
    if (pos >= text_.size() || text_[pos] != ':') return false;
    pos = SkipWhitespace(text_, pos + 1);
    if (pos >= text_.size()) return false;
    const int field = table.Find(key);
    if (field < 0) {
      pos = SkipValue(text_, pos);  // undeclared: never tokenised
    } else {
      const uint64_t bit = uint64_t{1} << field;
      if ((seen & bit) != 0) return false;
      seen |= bit;
      if (!Member(table, field, pos)) return false;
    }
    const Next next = AfterElement('}', pos);
    if (next != Next::kMore) return next == Next::kClosed;
  }
}

bool FastJsonDecoder::Member(const MessageTable& table, int field,
                             size_t& pos) {
  const FieldEntry& f = table.fields[static_cast<size_t>(field)];
  if (f.kind == FieldKind::kUnsupported) return false;
  if (text_.substr(pos, 4) == "null") {
    pos += 4;
    // protobuf reads null as absent, except that a Value holds it.
    if (f.kind == FieldKind::kValue) {
      const size_t mark = BeginNested(f.number);
      Tag(1, kVarint);  // null_value: NULL_VALUE
      Varint(0);
      EndNested(mark);
    }
    return true;
  }
  if (f.kind == FieldKind::kStringMap) {
    return StringMap(f.number, f.number_as_text, f.null_entry, pos);
  }
  if (!f.repeated) return Single(table, field, pos);
  if (text_[pos] != '[') return false;
  if (Open(']', pos)) return true;
  while (true) {
    if (text_.substr(pos, 4) == "null") {
      pos += 4;  // protobuf skips null elements
    } else if (pos >= text_.size() || !Single(table, field, pos)) {
      return false;
    }
    const Next next = AfterElement(']', pos);
    if (next != Next::kMore) return next == Next::kClosed;
  }
}

bool FastJsonDecoder::Single(const MessageTable& table, int field,
                             size_t& pos) {
  const FieldEntry& f = table.fields[static_cast<size_t>(field)];
  const char c = text_[pos];
  switch (f.kind) {
    case FieldKind::kString: {
      absl::string_view s;
      if (f.number_as_text && c != '"') return NumberAsText(f.number, pos);
      if (c != '"' || !ReadString(pos, value_scratch_, s)) return false;
      LengthDelimited(f.number, s);
      return true;
    }
    case FieldKind::kInt32:
    case FieldKind::kInt64: {
      int64_t v;
      if (c == '"') {
        absl::string_view s;
        if (!ReadString(pos, value_scratch_, s)) return false;
        if (!ParsePlainInteger(s, v)) return false;
      } else if (!ReadInteger(pos, v)) {
        return false;
      }
      if (f.kind == FieldKind::kInt32 && (v < INT32_MIN || v > INT32_MAX)) {
        return false;
      }
      Tag(f.number, kVarint);
      Varint(static_cast<uint64_t>(v));  // negative: 10 bytes, as protobuf
      return true;
    }
    case FieldKind::kBool: {
      const bool value = text_.substr(pos, 4) == "true";
      if (!value && text_.substr(pos, 5) != "false") return false;
      pos += value ? 4 : 5;
      Tag(f.number, kVarint);
      Varint(value ? 1 : 0);
      return true;
    }
    case FieldKind::kMessage: {
      if (c != '{') return false;
      const size_t mark = BeginNested(f.number);
      if (!Object(*f.message, pos)) return false;
      EndNested(mark);
      return true;
    }
    case FieldKind::kTimestamp: {
      absl::string_view s;
      if (c != '"' || !ReadString(pos, value_scratch_, s)) return false;
      time_scratch_.assign(s.data(), s.size());
      pb::Timestamp t;
      if (!pb::util::TimeUtil::FromString(time_scratch_, &t)) return false;
      const size_t mark = BeginNested(f.number);
      if (t.seconds() != 0) {
        Tag(1, kVarint);
        Varint(static_cast<uint64_t>(t.seconds()));
      }
      if (t.nanos() != 0) {
        Tag(2, kVarint);
        Varint(static_cast<uint64_t>(static_cast<int64_t>(t.nanos())));
      }
      EndNested(mark);
      return true;
    }
    case FieldKind::kValue: {
      if (c == '"') {
        absl::string_view s;
        if (!ReadString(pos, value_scratch_, s)) return false;
        const size_t mark = BeginNested(f.number);
        LengthDelimited(3, s);  // string_value
        EndNested(mark);
        return true;
      }
      int64_t v;
      if (!ReadInteger(pos, v) || v > kMaxExactDouble || v < -kMaxExactDouble) {
        return false;
      }
      const double d = static_cast<double>(v);
      uint64_t bits;
      std::memcpy(&bits, &d, sizeof(bits));
      const size_t mark = BeginNested(f.number);
      Tag(2, kFixed64);  // number_value
      for (int i = 0; i < 8; ++i) {
        wire_.push_back(static_cast<char>((bits >> (8 * i)) & 0xFF));
      }
      EndNested(mark);
      return true;
    }
    case FieldKind::kStringMap:
    case FieldKind::kUnsupported:
      break;
  }
  return false;
}

bool FastJsonDecoder::NumberAsText(uint32_t number, size_t& pos) {
  size_t end = pos;
  while (end < text_.size() && IsNumberChar(text_[end])) ++end;
  const absl::string_view digits = text_.substr(pos, end - pos);
  if (!IsJsonNumber(digits)) return false;
  pos = end;
  LengthDelimited(number, digits);
  return true;
}

bool FastJsonDecoder::StringMap(uint32_t number, bool number_as_text,
                                NullQuantity null_entry, size_t& pos) {
  if (text_[pos] != '{') return false;
  map_keys_.clear();
  if (Open('}', pos)) return true;
  while (true) {
    if (pos >= text_.size() || text_[pos] != '"') return false;
    absl::string_view key, value;
    if (!ReadString(pos, key_scratch_, key)) return false;
    // Repeated keys are an error in protobuf. Compare keys as raw text, so
    // only unescaped ones (spans of text_, stable) are taken.
    if (key.data() == key_scratch_.data()) return false;
    if (map_keys_.size() >= kMaxMapEntries) return false;
    for (absl::string_view k : map_keys_) {
      if (k == key) return false;
    }
    map_keys_.push_back(key);
    pos = SkipWhitespace(text_, pos);
    if (pos >= text_.size() || text_[pos] != ':') return false;
    pos = SkipWhitespace(text_, pos + 1);
    if (pos >= text_.size()) return false;
    bool dropped = false;
    if (text_[pos] == '"') {
      if (!ReadString(pos, value_scratch_, value)) return false;
    } else if (text_[pos] == 'n' && null_entry != NullQuantity::kNotQuantity) {
      if (text_.substr(pos, 4) != "null") return false;
      pos += 4;
      value = "0";
      dropped = null_entry == NullQuantity::kDropped;
    } else {
      if (!number_as_text) return false;
      size_t end = pos;
      while (end < text_.size() && IsNumberChar(text_[end])) ++end;
      value = text_.substr(pos, end - pos);
      if (!IsJsonNumber(value)) return false;
      pos = end;
    }
    if (!dropped) {
      const size_t mark = BeginNested(number);
      LengthDelimited(1, key);
      LengthDelimited(2, value);
      EndNested(mark);
    }
    const Next next = AfterElement('}', pos);
    if (next != Next::kMore) return next == Next::kClosed;
  }
}

bool FastJsonDecoder::ReadString(size_t& pos, std::string& scratch,
                                 absl::string_view& out) {
  const size_t end = SkipValue(text_, pos);
  if (end < pos + 2 || text_[end - 1] != '"') return false;
  const absl::string_view raw = text_.substr(pos + 1, end - pos - 2);
  pos = end;
  if (std::memchr(raw.data(), '\\', raw.size()) == nullptr) {
    out = raw;
    return true;
  }
  scratch = DecodeString(raw);
  out = scratch;
  return true;
}

bool FastJsonDecoder::ReadInteger(size_t& pos, int64_t& out) {
  size_t end = pos;
  while (end < text_.size() && IsNumberChar(text_[end])) ++end;
  const absl::string_view digits = text_.substr(pos, end - pos);
  pos = end;
  return ParsePlainInteger(digits, out);
}

void FastJsonDecoder::Tag(uint32_t number, uint32_t wire_type) {
  Varint((static_cast<uint64_t>(number) << 3) | wire_type);
}

void FastJsonDecoder::Varint(uint64_t value) {
  while (value >= 0x80) {
    wire_.push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  wire_.push_back(static_cast<char>(value));
}

void FastJsonDecoder::LengthDelimited(uint32_t number,
                                      absl::string_view bytes) {
  Tag(number, kLen);
  Varint(bytes.size());
  wire_.append(bytes.data(), bytes.size());
}

size_t FastJsonDecoder::BeginNested(uint32_t number) {
  Tag(number, kLen);
  wire_.push_back('\0');  // one-byte length; widened by EndNested if needed
  return wire_.size() - 1;
}

void FastJsonDecoder::EndNested(size_t mark) {
  const size_t length = wire_.size() - mark - 1;
  if (length < 0x80) {
    wire_[mark] = static_cast<char>(length);
    return;
  }
  char buffer[10];
  size_t n = 0;
  uint64_t v = length;
  for (; v >= 0x80; v >>= 7) {
    buffer[n++] = static_cast<char>((v & 0x7F) | 0x80);
  }
  buffer[n++] = static_cast<char>(v);
  wire_.insert(mark + 1, n - 1, '\0');
  std::memcpy(&wire_[mark], buffer, n);
}

}  // namespace karpenter::snapshot::internal
