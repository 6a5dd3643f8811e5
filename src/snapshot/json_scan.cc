// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "snapshot/json_scan.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace karpenter::snapshot::internal {
namespace {

bool IsWhitespace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Reads the 4 hex digits at text[pos..pos+4); -1 if they are not there.
int32_t ReadHex4(absl::string_view text, size_t pos) {
  if (pos + 4 > text.size()) return -1;
  int32_t v = 0;
  for (size_t i = 0; i < 4; ++i) {
    const int h = HexValue(text[pos + i]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

// Length of the well-formed UTF-8 sequence at text[pos], or 0 if malformed
// (overlong forms, surrogates and code points above U+10FFFF are malformed).
size_t Utf8SequenceLength(absl::string_view text, size_t pos) {
  const auto b0 = static_cast<unsigned char>(text[pos]);
  if (b0 < 0x80) return 1;
  size_t len;
  uint32_t cp;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2;
    cp = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3;
    cp = b0 & 0x0F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4;
    cp = b0 & 0x07;
  } else {
    return 0;
  }
  if (pos + len > text.size()) return 0;
  for (size_t i = 1; i < len; ++i) {
    const auto b = static_cast<unsigned char>(text[pos + i]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
      (cp >= 0xD800 && cp <= 0xDFFF)) {
    return 0;
  }
  return len;
}

void AppendUtf8(uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Eight bytes at a time ("SWAR"): most of a Kubernetes dump is string
// bodies, which need no work but finding their end. Each mask below flags
// the bytes of interest in a little-endian word; bits above a flagged byte
// may be spurious, so only the lowest flag is ever used.
constexpr uint64_t kOnes = 0x0101010101010101u;
constexpr uint64_t kHighs = 0x8080808080808080u;

uint64_t Load8(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  if constexpr (std::endian::native == std::endian::big) {
    v = __builtin_bswap64(v);
  }
  return v;
}

// Flags bytes equal to `b`.
uint64_t BytesEqual(uint64_t v, uint8_t b) {
  const uint64_t x = v ^ (kOnes * b);
  return (x - kOnes) & ~x & kHighs;
}

// Flags bytes below `n` (n <= 128).
uint64_t BytesBelow(uint64_t v, uint8_t n) {
  return (v - kOnes * n) & ~v & kHighs;
}

// Index within the word of the lowest flagged byte.
size_t FirstFlagged(uint64_t mask) {
  return static_cast<size_t>(std::countr_zero(mask)) / 8;
}

// Returns one past the closing quote of the string starting at text[pos]
// (a '"'), or text.size() if it does not close. No validation.
size_t SkipString(absl::string_view text, size_t pos) {
  const char* data = text.data();
  const size_t size = text.size();
  ++pos;
  while (pos < size) {
    if (pos + 8 <= size) {
      const uint64_t w = Load8(data + pos);
      const uint64_t mask = BytesEqual(w, '"') | BytesEqual(w, '\\');
      if (mask == 0) {
        pos += 8;
        continue;
      }
      pos += FirstFlagged(mask);
    }
    if (data[pos] == '\\') {
      pos += 2;
    } else if (data[pos] == '"') {
      return pos + 1;
    } else {
      ++pos;
    }
  }
  return size;
}

// Returns the first position at or after `pos` that holds a byte a string
// body cannot simply pass over: '"', '\\', a control character or a
// non-ASCII byte (or text.size()).
size_t SkipPlainStringBytes(absl::string_view text, size_t pos) {
  const char* data = text.data();
  const size_t size = text.size();
  while (pos + 8 <= size) {
    const uint64_t w = Load8(data + pos);
    const uint64_t mask = BytesEqual(w, '"') | BytesEqual(w, '\\') |
                          BytesBelow(w, 0x20) | (w & kHighs);
    if (mask != 0) return pos + FirstFlagged(mask);
    pos += 8;
  }
  while (pos < size) {
    const auto c = static_cast<unsigned char>(data[pos]);
    if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) return pos;
    ++pos;
  }
  return size;
}

// ---------------------------------------------------------------------------
// The validator: an explicit-stack state machine, so hostile nesting costs
// heap (bounded by kMaxJsonDepth), never native stack.

struct Frame {
  bool is_object;
  size_t index = 0;       // Arrays: the element being read.
  absl::string_view key;  // Objects: the raw key being read.
};

class Validator {
 public:
  Validator(absl::string_view text, std::vector<RootMember>* root_members)
      : text_(text), root_members_(root_members) {}

  absl::Status Run();

 private:
  enum class Want { kValue, kValueOrClose, kKey, kKeyOrClose, kCommaOrClose };

  absl::Status Error(size_t pos, absl::string_view what) const;
  // Each scanner advances pos_ past its token or returns an error.
  absl::Status ScanString();
  absl::Status ScanNumber();
  absl::Status ScanLiteral();
  absl::Status ScanValueStart(Want& want);
  // Called after a complete value; returns true when the document is done.
  bool ValueDone(Want& want) {
    if (stack_.empty()) return true;
    if (InRootObject()) {
      root_members_->push_back(
          {stack_[0].key,
           text_.substr(root_value_start_, pos_ - root_value_start_)});
    }
    want = Want::kCommaOrClose;
    return false;
  }
  // True while reading a member value of a top-level object whose members
  // are asked for.
  bool InRootObject() const {
    return root_members_ != nullptr && stack_.size() == 1 &&
           stack_[0].is_object;
  }

  absl::string_view text_;
  std::vector<RootMember>* root_members_;
  size_t root_value_start_ = 0;
  size_t pos_ = 0;
  std::vector<Frame> stack_;
};

absl::Status Validator::Error(size_t pos, absl::string_view what) const {
  std::string path;
  for (const Frame& f : stack_) {
    if (!f.is_object) {
      absl::StrAppend(&path, "[", f.index, "]");
    } else if (!f.key.empty()) {
      absl::StrAppend(&path, path.empty() ? "" : ".", DecodeString(f.key));
    }
  }
  size_t line = 1, line_start = 0;
  for (size_t i = 0; i < pos && i < text_.size(); ++i) {
    if (text_[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return absl::InvalidArgumentError(absl::StrFormat(
      "%s%sinvalid JSON at line %d, column %d: %s", path,
      path.empty() ? "" : ": ", line, pos - line_start + 1, what));
}

absl::Status Validator::ScanString() {
  const size_t start = pos_;
  ++pos_;
  while (pos_ < text_.size()) {
    pos_ = SkipPlainStringBytes(text_, pos_);
    if (pos_ >= text_.size()) break;
    const char c = text_[pos_];
    if (c == '"') {
      ++pos_;
      return absl::OkStatus();
    }
    if (static_cast<unsigned char>(c) < 0x20) {
      return Error(pos_, "control character in string");
    }
    if (c != '\\') {
      const size_t len = Utf8SequenceLength(text_, pos_);
      if (len == 0) return Error(pos_, "invalid UTF-8 in string");
      pos_ += len;
      continue;
    }
    if (pos_ + 1 >= text_.size()) break;
    const char e = text_[pos_ + 1];
    if (e != 'u') {
      if (absl::string_view("\"\\/bfnrt").find(e) == absl::string_view::npos) {
        return Error(pos_, "invalid escape in string");
      }
      pos_ += 2;
      continue;
    }
    const int32_t cp = ReadHex4(text_, pos_ + 2);
    if (cp < 0) return Error(pos_, "invalid \\u escape in string");
    pos_ += 6;
    if (cp >= 0xDC00 && cp <= 0xDFFF) {
      return Error(pos_ - 6, "unpaired surrogate in string");
    }
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      const int32_t lo = pos_ + 1 < text_.size() && text_[pos_] == '\\' &&
                                 text_[pos_ + 1] == 'u'
                             ? ReadHex4(text_, pos_ + 2)
                             : -1;
      if (lo < 0xDC00 || lo > 0xDFFF) {
        return Error(pos_ - 6, "unpaired surrogate in string");
      }
      pos_ += 6;
    }
  }
  return Error(start, "unterminated string");
}

absl::Status Validator::ScanNumber() {
  const size_t start = pos_;
  if (text_[pos_] == '-') ++pos_;
  if (pos_ >= text_.size() || !IsDigit(text_[pos_])) {
    return Error(start, "invalid number");
  }
  if (text_[pos_] == '0') {
    ++pos_;
  } else {
    while (pos_ < text_.size() && IsDigit(text_[pos_])) ++pos_;
  }
  if (pos_ < text_.size() && text_[pos_] == '.') {
    ++pos_;
    if (pos_ >= text_.size() || !IsDigit(text_[pos_])) {
      return Error(start, "invalid number");
    }
    while (pos_ < text_.size() && IsDigit(text_[pos_])) ++pos_;
  }
  if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
    ++pos_;
    if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) {
      ++pos_;
    }
    if (pos_ >= text_.size() || !IsDigit(text_[pos_])) {
      return Error(start, "invalid number");
    }
    while (pos_ < text_.size() && IsDigit(text_[pos_])) ++pos_;
  }
  return absl::OkStatus();
}

absl::Status Validator::ScanLiteral() {
  for (absl::string_view lit : {"true", "false", "null"}) {
    if (text_.substr(pos_, lit.size()) == lit) {
      pos_ += lit.size();
      return absl::OkStatus();
    }
  }
  return Error(pos_, absl::StrFormat("unexpected character '%s'",
                                     absl::CEscape(text_.substr(pos_, 1))));
}

absl::Status Validator::ScanValueStart(Want& want) {
  const char c = text_[pos_];
  if (c == '{' || c == '[') {
    if (stack_.size() >= static_cast<size_t>(kMaxJsonDepth)) {
      return Error(pos_, absl::StrCat("nesting deeper than ", kMaxJsonDepth));
    }
    stack_.push_back(Frame{c == '{', 0, {}});
    ++pos_;
    want = c == '{' ? Want::kKeyOrClose : Want::kValueOrClose;
    return absl::OkStatus();
  }
  if (c == '"') return ScanString();
  if (c == '-' || IsDigit(c)) return ScanNumber();
  return ScanLiteral();
}

absl::Status Validator::Run() {
  Want want = Want::kValue;
  pos_ = SkipWhitespace(text_, 0);
  while (true) {
    pos_ = SkipWhitespace(text_, pos_);
    if (pos_ >= text_.size()) {
      return Error(
          pos_, stack_.empty() ? "no JSON value" : "unexpected end of input");
    }
    const char c = text_[pos_];
    bool done = false;
    switch (want) {
      case Want::kValueOrClose:
      case Want::kValue: {
        if (want == Want::kValueOrClose && c == ']') {
          stack_.pop_back();
          ++pos_;
          done = ValueDone(want);
          break;
        }
        const size_t depth = stack_.size();
        if (InRootObject()) root_value_start_ = pos_;
        if (absl::Status s = ScanValueStart(want); !s.ok()) return s;
        if (stack_.size() == depth) done = ValueDone(want);
        break;
      }
      case Want::kKeyOrClose:
      case Want::kKey: {
        if (want == Want::kKeyOrClose && c == '}') {
          stack_.pop_back();
          ++pos_;
          done = ValueDone(want);
          break;
        }
        if (c != '"') return Error(pos_, "expected a string key");
        const size_t key_start = pos_;
        if (absl::Status s = ScanString(); !s.ok()) return s;
        stack_.back().key = text_.substr(key_start + 1, pos_ - key_start - 2);
        pos_ = SkipWhitespace(text_, pos_);
        if (pos_ >= text_.size()) return Error(pos_, "unexpected end of input");
        if (text_[pos_] != ':') return Error(pos_, "expected ':' after key");
        ++pos_;
        want = Want::kValue;
        break;
      }
      case Want::kCommaOrClose: {
        Frame& top = stack_.back();
        const char close = top.is_object ? '}' : ']';
        if (c == ',') {
          ++pos_;
          if (top.is_object) {
            top.key = {};  // Between members: the object itself is the path.
            want = Want::kKey;
          } else {
            ++top.index;
            want = Want::kValue;
          }
        } else if (c == close) {
          stack_.pop_back();
          ++pos_;
          done = ValueDone(want);
        } else {
          return Error(pos_, absl::StrFormat("expected ',' or '%c'", close));
        }
        break;
      }
    }
    if (done) {
      pos_ = SkipWhitespace(text_, pos_);
      if (pos_ < text_.size()) {
        return Error(pos_, "unexpected data after the JSON value");
      }
      return absl::OkStatus();
    }
  }
}

}  // namespace

absl::Status ValidateJson(absl::string_view text,
                          std::vector<RootMember>* root_members) {
  return Validator(text, root_members).Run();
}

size_t SkipWhitespace(absl::string_view text, size_t pos) {
  while (pos < text.size() && IsWhitespace(text[pos])) ++pos;
  return pos;
}

size_t SkipValue(absl::string_view text, size_t pos) {
  if (pos >= text.size()) return text.size();
  const char c = text[pos];
  if (c == '"') return SkipString(text, pos);
  if (c != '{' && c != '[') {
    while (pos < text.size() && !IsWhitespace(text[pos]) && text[pos] != ',' &&
           text[pos] != ']' && text[pos] != '}') {
      ++pos;
    }
    return pos;
  }
  size_t depth = 0;
  while (pos < text.size()) {
    const char d = text[pos];
    if (d == '"') {
      pos = SkipString(text, pos);
      continue;
    }
    if (d == '{' || d == '[') {
      ++depth;
    } else if ((d == '}' || d == ']') && --depth == 0) {
      return pos + 1;
    }
    ++pos;
  }
  return text.size();
}

void ForEachMember(
    absl::string_view object,
    absl::FunctionRef<bool(absl::string_view raw_key, absl::string_view value)>
        fn) {
  if (object.empty() || object[0] != '{') return;
  size_t pos = 1;
  while (true) {
    pos = SkipWhitespace(object, pos);
    if (pos >= object.size() || object[pos] != '"') return;
    const size_t key_end = SkipString(object, pos);
    if (key_end < pos + 2) return;
    const absl::string_view raw_key = object.substr(pos + 1, key_end - pos - 2);
    pos = SkipWhitespace(object, key_end);
    if (pos >= object.size() || object[pos] != ':') return;
    pos = SkipWhitespace(object, pos + 1);
    const size_t value_end = SkipValue(object, pos);
    if (!fn(raw_key, object.substr(pos, value_end - pos))) return;
    pos = SkipWhitespace(object, value_end);
    if (pos >= object.size() || object[pos] != ',') return;
    ++pos;
  }
}

size_t ScanObject(
    absl::string_view text, size_t pos,
    absl::FunctionRef<void(absl::string_view raw_key, absl::string_view value)>
        fn) {
  if (pos >= text.size() || text[pos] != '{') return SkipValue(text, pos);
  pos = SkipWhitespace(text, pos + 1);
  if (pos < text.size() && text[pos] == '}') return pos + 1;
  while (true) {
    if (pos >= text.size() || text[pos] != '"') return text.size();
    const size_t key_end = SkipString(text, pos);
    if (key_end < pos + 2) return text.size();
    const absl::string_view raw_key = text.substr(pos + 1, key_end - pos - 2);
    pos = SkipWhitespace(text, key_end);
    if (pos >= text.size() || text[pos] != ':') return text.size();
    pos = SkipWhitespace(text, pos + 1);
    const size_t value_end = SkipValue(text, pos);
    fn(raw_key, text.substr(pos, value_end - pos));
    pos = SkipWhitespace(text, value_end);
    if (pos >= text.size()) return text.size();
    if (text[pos] == '}') return pos + 1;
    if (text[pos] != ',') return text.size();
    pos = SkipWhitespace(text, pos + 1);
  }
}

void ForEachElement(
    absl::string_view array,
    absl::FunctionRef<bool(size_t index, absl::string_view element)> fn) {
  if (array.empty() || array[0] != '[') return;
  size_t pos = SkipWhitespace(array, 1);
  if (pos >= array.size() || array[pos] == ']') return;
  for (size_t index = 0;; ++index) {
    const size_t end = SkipValue(array, pos);
    if (end == pos) return;  // Not a value: only on unvalidated text.
    if (!fn(index, array.substr(pos, end - pos))) return;
    pos = SkipWhitespace(array, end);
    if (pos >= array.size() || array[pos] != ',') return;
    pos = SkipWhitespace(array, pos + 1);
  }
}

std::optional<absl::string_view> FindMember(absl::string_view object,
                                            absl::string_view key) {
  std::optional<absl::string_view> found;
  ForEachMember(object, [&](absl::string_view raw_key, absl::string_view v) {
    const bool escaped = raw_key.find('\\') != absl::string_view::npos;
    if (escaped ? DecodeString(raw_key) == key : raw_key == key) found = v;
    return true;
  });
  return found;
}

std::string DecodeString(absl::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '\\' || i + 1 >= raw.size()) {
      out.push_back(raw[i]);
      continue;
    }
    const char e = raw[++i];
    switch (e) {
      case 'b':
        out.push_back('\b');
        break;
      case 'f':
        out.push_back('\f');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'u': {
        int32_t cp = ReadHex4(raw, i + 1);
        if (cp < 0) {
          AppendUtf8(0xFFFD, out);
          break;
        }
        i += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF && i + 2 < raw.size() &&
            raw[i + 1] == '\\' && raw[i + 2] == 'u') {
          const int32_t lo = ReadHex4(raw, i + 3);
          if (lo >= 0xDC00 && lo <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            i += 6;
          }
        }
        if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD;
        AppendUtf8(static_cast<uint32_t>(cp), out);
        break;
      }
      default:  // '"', '\\', '/' and (unvalidated) anything else.
        out.push_back(e);
    }
  }
  return out;
}

std::optional<std::string> StringValue(absl::string_view value) {
  if (value.size() < 2 || value.front() != '"' || value.back() != '"') {
    return std::nullopt;
  }
  return DecodeString(value.substr(1, value.size() - 2));
}

bool IsEmptyArray(absl::string_view value) {
  return !value.empty() && value.front() == '[' &&
         SkipWhitespace(value, 1) < value.size() &&
         value[SkipWhitespace(value, 1)] == ']';
}

bool IsNull(absl::string_view value) { return value == "null"; }

absl::string_view DescribeJsonType(absl::string_view value) {
  if (value.empty()) return "nothing";
  switch (value.front()) {
    case '{':
      return "an object";
    case '[':
      return "an array";
    case '"':
      return "a string";
    case 't':
    case 'f':
      return "a boolean";
    case 'n':
      return "null";
    default:
      return "a number";
  }
}

}  // namespace karpenter::snapshot::internal
