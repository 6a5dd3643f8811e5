// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "snapshot/object_sink.h"

#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/status_macros.h"
#include "google/protobuf/stubs/status.h"
#include "google/protobuf/util/json_util.h"
#include "karpenter/well_known.h"
#include "snapshot/json_decode.h"
#include "snapshot/json_scan.h"
#include "snapshot/validate.h"

namespace karpenter::snapshot::internal {
namespace {

namespace pb = ::google::protobuf;

constexpr absl::string_view kTimestampType = "google.protobuf.Timestamp";

bool IsRecognisedKindName(absl::string_view kind) {
  return kind == "Node" || kind == "Pod" || kind == "PodDisruptionBudget" ||
         kind == "NodePool" || kind == "NodeClaim" ||
         kind == "VolumeAttachment" || kind == "PersistentVolumeClaim" ||
         kind == "PersistentVolume" || kind == "StorageClass" ||
         kind == "CSINode" || kind == "DaemonSet" || kind == "NodeOverlay";
}

// Describes what a protobuf scalar type expects, for "expected X, got Y".
std::string Expectation(absl::string_view type) {
  if (type == "TYPE_INT32" || type == "TYPE_SINT32" || type == "TYPE_SFIXED32")
    return "a 32-bit integer";
  if (type == "TYPE_INT64" || type == "TYPE_SINT64" || type == "TYPE_SFIXED64")
    return "an integer";
  if (type == "TYPE_UINT32" || type == "TYPE_FIXED32")
    return "a non-negative 32-bit integer";
  if (type == "TYPE_UINT64" || type == "TYPE_FIXED64")
    return "a non-negative integer";
  if (type == "TYPE_BOOL") return "a boolean";
  if (type == "TYPE_STRING" || type == "TYPE_BYTES") return "a string";
  if (type == "TYPE_DOUBLE" || type == "TYPE_FLOAT") return "a number";
  if (absl::EndsWith(type, kTimestampType)) return "an RFC 3339 timestamp";
  if (absl::StartsWith(type, "type.googleapis.com/")) return "an object";
  return std::string(type);
}

// protobuf's rendering of an offending value: a quoted string, a bare
// number or "Field 'x', Invalid time format: <text>". Short values keep
// protobuf's spelling; long ones are cut as QuoteValue cuts them.
std::string ShownValue(absl::string_view value) {
  if (const size_t p = value.find("Invalid time format: ");
      p != absl::string_view::npos) {
    value.remove_prefix(p + 21);
    if (value.size() > kMaxQuotedBytes) return QuoteValue(value);
    return absl::StrCat("\"", value, "\"");
  }
  if (value.size() <= kMaxQuotedBytes + 2) return std::string(value);
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
    return QuoteValue(value.substr(1, value.size() - 2));
  }
  return absl::StrCat(value.substr(0, kMaxQuotedBytes), "... (", value.size(),
                      " bytes)");
}

// Rewrites protobuf's field path ("spec.containers[0].resources.requests[1]
// .value", proto names, map entries as indexed messages) as the Kubernetes
// JSON path ("spec.containers[0].resources.requests").
std::string JsonPath(absl::string_view proto_path,
                     const pb::Descriptor* descriptor) {
  std::string out;
  bool in_map_entry = false;
  for (absl::string_view segment : absl::StrSplit(proto_path, '.')) {
    if (in_map_entry) {  // "key" / "value" of a map entry: not in JSON.
      in_map_entry = false;
      continue;
    }
    absl::string_view name = segment, index;
    if (const size_t bracket = segment.find('[');
        bracket != absl::string_view::npos) {
      name = segment.substr(0, bracket);
      index = segment.substr(bracket);
    }
    const pb::FieldDescriptor* field =
        descriptor == nullptr ? nullptr
                              : descriptor->FindFieldByName(std::string(name));
    absl::StrAppend(&out, out.empty() ? "" : ".",
                    field == nullptr ? name : field->json_name());
    if (field != nullptr && field->is_map()) {
      in_map_entry = !index.empty();
      descriptor = nullptr;
      continue;
    }
    absl::StrAppend(&out, index);
    descriptor = field == nullptr ? nullptr : field->message_type();
  }
  return out;
}

// Turns JsonStringToMessage's error text into "<json path>: <what>".
// Forms seen from protobuf 3.21:
//   (spec.priority): invalid value "x" for type TYPE_INT32
//   (metadata.creation_timestamp): invalid value Field 'creationTimestamp',
//       Invalid time format: yesterday for type type.googleapis.com/...
//   (spec) providerID: Proto field is not repeating, cannot start list.
absl::Status RewriteDecodeError(absl::string_view message,
                                const pb::Descriptor* descriptor) {
  if (!absl::StartsWith(message, "(")) {
    // Not tied to a field (the text was validated, so this is rare).
    const absl::string_view first_line = message.substr(0, message.find('\n'));
    return absl::InvalidArgumentError(
        absl::StrCat("invalid JSON: ", first_line));
  }
  const size_t close = message.find(')');
  if (close == absl::string_view::npos) {
    return absl::InvalidArgumentError(message);
  }
  std::string path = JsonPath(message.substr(1, close - 1), descriptor);
  absl::string_view rest =
      absl::StripLeadingAsciiWhitespace(message.substr(close + 1));
  constexpr absl::string_view kInvalid = ": invalid value ";
  if (absl::StartsWith(rest, kInvalid)) {
    rest.remove_prefix(kInvalid.size());
    const size_t for_type = rest.rfind(" for type ");
    if (for_type != absl::string_view::npos) {
      absl::string_view value = rest.substr(0, for_type);
      const absl::string_view type = rest.substr(for_type + 10);
      const std::string got = ShownValue(value);
      return absl::InvalidArgumentError(
          absl::StrCat(path.empty() ? "" : path + ": ", "expected ",
                       Expectation(type), ", got ", got));
    }
  }
  // "<key>: <text>": a member of the object at `path`.
  const size_t colon = rest.find(": ");
  if (colon != absl::string_view::npos) {
    absl::StrAppend(&path, path.empty() ? "" : ".", rest.substr(0, colon));
    rest.remove_prefix(colon + 2);
  }
  if (absl::EndsWith(rest, "cannot start list.")) {
    rest = "expected a single value, got an array";
  }
  return absl::InvalidArgumentError(
      absl::StrCat(path.empty() ? "" : path + ": ", rest));
}

// protobuf names a bad map value by the map alone ("spec.limits: expected a
// string, got true") or by its internal entry ("spec.limits.value"). Finds
// the entry in `json` and names its key as the YAML reader does:
// `spec.limits["cpu"]: expected a string, got true`. Returns `error`
// unchanged if the path does not lead to a string map holding a value
// that is neither a string nor (for a quantity map) a number.
absl::Status NameMapKey(absl::Status error, absl::string_view json,
                        const pb::Descriptor* descriptor) {
  const absl::string_view message = error.message();
  const size_t colon = message.find(": ");
  if (colon == absl::string_view::npos) return error;
  absl::string_view value = json;
  std::string path;
  for (absl::string_view segment :
       absl::StrSplit(message.substr(0, colon), '.')) {
    if (descriptor == nullptr) return error;
    absl::string_view name = segment;
    int index = -1;
    if (const size_t bracket = segment.find('[');
        bracket != absl::string_view::npos) {
      name = segment.substr(0, bracket);
      if (!absl::SimpleAtoi(
              segment.substr(bracket + 1, segment.size() - bracket - 2),
              &index)) {
        return error;
      }
    }
    const pb::FieldDescriptor* field = nullptr;
    for (int i = 0; i < descriptor->field_count(); ++i) {
      if (descriptor->field(i)->json_name() == name)
        field = descriptor->field(i);
    }
    if (field == nullptr) return error;
    const auto member = FindMember(value, name);
    if (!member) return error;
    value = *member;
    if (index >= 0) {
      std::optional<absl::string_view> element;
      ForEachElement(value, [&](size_t i, absl::string_view e) {
        if (static_cast<int>(i) == index) element = e;
        return !element.has_value();
      });
      if (!element) return error;
      value = *element;
    }
    absl::StrAppend(&path, path.empty() ? "" : ".", segment);
    if (field->is_map()) {
      if (value.empty() || value.front() != '{') return error;
      const bool numbers = AcceptsNumberAsText(*field);
      std::string key;
      absl::string_view bad;
      ForEachMember(value, [&](absl::string_view raw_key, absl::string_view v) {
        const bool number =
            !v.empty() &&
            (v.front() == '-' || (v.front() >= '0' && v.front() <= '9'));
        if (v.front() == '"' || (numbers && number)) return true;
        key = DecodeString(raw_key);
        bad = v;
        return false;
      });
      if (bad.empty()) return error;
      const bool scalar =
          bad.front() != '{' && bad.front() != '[' && !IsNull(bad);
      return absl::InvalidArgumentError(absl::StrCat(
          path, "[\"", absl::CEscape(key), "\"]: expected a string, got ",
          DescribeJsonType(bad),
          scalar && bad.size() <= kMaxQuotedBytes ? absl::StrCat(" ", bad)
                                                  : ""));
    }
    descriptor = field->message_type();
  }
  return error;
}

// Searches the object `value` of type `descriptor` for the first string map
// entry whose value is neither a string nor (for a quantity map) a number;
// sets `out` to `<path>["key"]: expected a string, got ...`.
bool FindBadMapValue(absl::string_view value, const pb::Descriptor* descriptor,
                     const std::string& path, int depth, std::string& out) {
  if (depth > kMaxJsonDepth || value.empty() || value.front() != '{') {
    return false;
  }
  bool found = false;
  ForEachMember(value, [&](absl::string_view raw_key, absl::string_view v) {
    if (v.empty()) return true;
    const std::string key = DecodeString(raw_key);
    const pb::FieldDescriptor* field = nullptr;
    for (int i = 0; i < descriptor->field_count() && field == nullptr; ++i) {
      if (descriptor->field(i)->json_name() == key)
        field = descriptor->field(i);
    }
    for (int i = 0; i < descriptor->field_count() && field == nullptr; ++i) {
      if (descriptor->field(i)->name() == key) field = descriptor->field(i);
    }
    if (field == nullptr ||
        field->type() != pb::FieldDescriptor::TYPE_MESSAGE) {
      return true;
    }
    const std::string here =
        absl::StrCat(path, path.empty() ? "" : ".", field->json_name());
    if (field->is_map()) {
      // NameMapKey, given just this member, names the entry relative to
      // `descriptor`.
      const std::string unnamed = absl::StrCat(field->json_name(), ": ?");
      const absl::Status named = NameMapKey(
          absl::InvalidArgumentError(unnamed),
          absl::StrCat("{\"", field->json_name(), "\":", v, "}"), descriptor);
      if (named.message() == unnamed) return true;
      out = absl::StrCat(path, path.empty() ? "" : ".", named.message());
      found = true;
      return false;
    }
    const pb::Descriptor* type = field->message_type();
    if (type->file()->package() == "google.protobuf") return true;
    if (v.front() == '{') {
      found = FindBadMapValue(v, type, here, depth + 1, out);
    } else if (v.front() == '[') {
      ForEachElement(v, [&](size_t i, absl::string_view e) {
        found = FindBadMapValue(e, type, absl::StrCat(here, "[", i, "]"),
                                depth + 1, out);
        return !found;
      });
    }
    return !found;
  });
  return found;
}

// Kubernetes reads `minAvailable: null` as absent and rejects objects,
// arrays and booleans where an IntOrString belongs; google.protobuf.Value
// accepts them all. Returns whether to keep the value (false: clear it).
absl::StatusOr<bool> CheckIntOrString(const pb::Value& value,
                                      absl::string_view path) {
  switch (value.kind_case()) {
    case pb::Value::kNumberValue:
    case pb::Value::kStringValue:
      return true;
    case pb::Value::kNullValue:
    case pb::Value::KIND_NOT_SET:
      return false;
    case pb::Value::kBoolValue:
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": expected an integer or a string, got ",
                       value.bool_value() ? "true" : "false"));
    default:
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": expected an integer or a string, got ",
                       value.has_struct_value() ? "an object" : "an array"));
  }
}

absl::Status FixPdb(v1::PodDisruptionBudget& pdb) {
  if (!pdb.has_spec()) return absl::OkStatus();
  v1::PodDisruptionBudgetSpec& spec = *pdb.mutable_spec();
  if (spec.has_min_available()) {
    KARPENTER_ASSIGN_OR_RETURN(
        const bool keep,
        CheckIntOrString(spec.min_available(), "spec.minAvailable"));
    if (!keep) spec.clear_min_available();
  }
  if (spec.has_max_unavailable()) {
    KARPENTER_ASSIGN_OR_RETURN(
        const bool keep,
        CheckIntOrString(spec.max_unavailable(), "spec.maxUnavailable"));
    if (!keep) spec.clear_max_unavailable();
  }
  return absl::OkStatus();
}

// Records `budgets: []` and `reasons: []`, which proto3 decodes exactly like
// absent lists. NodePools are few, so re-reading their JSON is cheap.
void ProbeNodePoolPresence(absl::string_view json, v1::NodePool& pool) {
  const auto spec = FindMember(json, "spec");
  if (!spec) return;
  const auto disruption = FindMember(*spec, "disruption");
  if (!disruption) return;
  const auto budgets = FindMember(*disruption, "budgets");
  if (!budgets) return;
  if (IsEmptyArray(*budgets)) {
    pool.mutable_spec()->mutable_disruption()->set_budgets_explicitly_empty(
        true);
    return;
  }
  // protobuf skips null elements of a repeated message field, so count only
  // the elements that became budgets.
  int decoded = 0;
  ForEachElement(*budgets, [&](size_t, absl::string_view element) {
    if (IsNull(element)) return true;
    const int index = decoded++;
    const auto reasons = FindMember(element, "reasons");
    if (reasons && IsEmptyArray(*reasons) &&
        index < pool.spec().disruption().budgets_size()) {
      pool.mutable_spec()
          ->mutable_disruption()
          ->mutable_budgets(index)
          ->set_reasons_explicitly_empty(true);
    }
    return true;
  });
}

// The fast decoder takes what it reproduces exactly; protobuf's own parser
// takes the rest, so results and error messages are protobuf's either way.
template <typename T>
absl::Status Decode(FastJsonDecoder& decoder, absl::string_view json,
                    absl::string_view kind_name, absl::string_view api_version,
                    std::vector<T>& out) {
  T message;
  if (!decoder.Decode(json, message)) {
    pb::util::JsonParseOptions options;
    options.ignore_unknown_fields = true;
    // Quantities given as JSON numbers, which protobuf takes as strings only.
    std::string quoted;
    const absl::string_view input =
        QuoteNumbersAsText(json, T::descriptor(), quoted) ? quoted : json;
    const auto status = pb::util::JsonStringToMessage(
        pb::StringPiece(input.data(), input.size()), &message, options);
    if (!status.ok()) {
      const auto text = status.message();
      absl::Status error = RewriteDecodeError(
          absl::string_view(text.data(), text.size()), T::descriptor());
      // protobuf sometimes loses the path of a bad map value ("JSON
      // transcoder produced invalid protobuf output"): find it ourselves.
      std::string found;
      if (absl::StartsWith(error.message(), "invalid JSON: ") &&
          FindBadMapValue(json, T::descriptor(), "", 0, found)) {
        return absl::InvalidArgumentError(found);
      }
      return NameMapKey(std::move(error), json, T::descriptor());
    }
  }
  if (message.kind().empty()) message.set_kind(std::string(kind_name));
  if (message.api_version().empty()) {
    message.set_api_version(std::string(api_version));
  }
  if constexpr (std::is_same_v<T, v1::PodDisruptionBudget>) {
    if (absl::Status s = FixPdb(message); !s.ok()) return s;
  }
  if constexpr (std::is_same_v<T, v1::NodePool>) {
    ProbeNodePoolPresence(json, message);
  }
  // The API server's rules the snapshot relies on (snapshot/validate.h).
  if constexpr (std::is_same_v<T, v1::PersistentVolume>) {
    KARPENTER_RETURN_IF_ERROR(ValidatePersistentVolume(message));
  }
  if constexpr (std::is_same_v<T, v1::StorageClass>) {
    KARPENTER_RETURN_IF_ERROR(ValidateStorageClass(message));
  }
  if constexpr (std::is_same_v<T, v1::CSINode>) {
    KARPENTER_RETURN_IF_ERROR(ValidateCSINode(message));
  }
  out.push_back(std::move(message));
  return absl::OkStatus();
}

}  // namespace

absl::Status DecodeJsonMessage(absl::string_view json,
                               google::protobuf::Message& message) {
  message.Clear();
  pb::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  const auto status = pb::util::JsonStringToMessage(
      pb::StringPiece(json.data(), json.size()), &message, options);
  if (status.ok()) return absl::OkStatus();
  const auto text = status.message();
  return RewriteDecodeError(absl::string_view(text.data(), text.size()),
                            message.GetDescriptor());
}

ObjectKind Classify(absl::string_view kind, absl::string_view api_version) {
  const bool any = api_version.empty();
  if (kind == "Node" && (any || api_version == "v1")) return ObjectKind::kNode;
  if (kind == "Pod" && (any || api_version == "v1")) return ObjectKind::kPod;
  if (kind == "PersistentVolumeClaim" && (any || api_version == "v1")) {
    return ObjectKind::kPersistentVolumeClaim;
  }
  if (kind == "PersistentVolume" && (any || api_version == "v1")) {
    return ObjectKind::kPersistentVolume;
  }
  const bool storage = any || api_version == "storage.k8s.io/v1";
  if (kind == "VolumeAttachment" && storage) {
    return ObjectKind::kVolumeAttachment;
  }
  if (kind == "StorageClass" && storage) return ObjectKind::kStorageClass;
  if (kind == "CSINode" && storage) return ObjectKind::kCSINode;
  if (kind == "DaemonSet" && (any || api_version == "apps/v1")) {
    return ObjectKind::kDaemonSet;
  }
  if (kind == "PodDisruptionBudget" &&
      (any || api_version == "policy/v1" || api_version == "policy/v1beta1")) {
    return ObjectKind::kPdb;
  }
  const bool karpenter = any || api_version == well_known::kApiVersionV1 ||
                         api_version == well_known::kApiVersionV1Beta1;
  if (kind == "NodePool" && karpenter) return ObjectKind::kNodePool;
  if (kind == "NodeClaim" && karpenter) return ObjectKind::kNodeClaim;
  if (kind == "NodeOverlay" &&
      (any || api_version == well_known::kApiVersionV1Alpha1)) {
    return ObjectKind::kNodeOverlay;
  }
  return ObjectKind::kSkipped;
}

const pb::Descriptor* DescriptorFor(ObjectKind kind) {
  switch (kind) {
    case ObjectKind::kNode:
      return v1::Node::descriptor();
    case ObjectKind::kPod:
      return v1::Pod::descriptor();
    case ObjectKind::kPdb:
      return v1::PodDisruptionBudget::descriptor();
    case ObjectKind::kNodePool:
      return v1::NodePool::descriptor();
    case ObjectKind::kNodeClaim:
      return v1::NodeClaim::descriptor();
    case ObjectKind::kVolumeAttachment:
      return v1::VolumeAttachment::descriptor();
    case ObjectKind::kPersistentVolumeClaim:
      return v1::PersistentVolumeClaim::descriptor();
    case ObjectKind::kPersistentVolume:
      return v1::PersistentVolume::descriptor();
    case ObjectKind::kStorageClass:
      return v1::StorageClass::descriptor();
    case ObjectKind::kCSINode:
      return v1::CSINode::descriptor();
    case ObjectKind::kDaemonSet:
      return v1::DaemonSet::descriptor();
    case ObjectKind::kNodeOverlay:
      return v1::NodeOverlay::descriptor();
    case ObjectKind::kSkipped:
      break;
  }
  return nullptr;
}

bool IsListKind(absl::string_view kind) { return absl::EndsWith(kind, "List"); }

absl::string_view ItemKind(absl::string_view list_kind) {
  if (!IsListKind(list_kind)) return "";
  return list_kind.substr(0, list_kind.size() - 4);
}

std::string ObjectLabel(absl::string_view kind, absl::string_view ns,
                        absl::string_view name) {
  const absl::string_view what = kind.empty() ? "object" : kind;
  if (name.empty()) return kind.empty() ? "" : absl::StrCat("unnamed ", kind);
  if (ns.empty()) return absl::StrCat(what, " ", name);
  return absl::StrCat(what, " ", ns, "/", name);
}

std::string QuoteValue(absl::string_view value) {
  if (value.size() <= kMaxQuotedBytes) {
    return absl::StrCat("\"", absl::CEscape(value), "\"");
  }
  size_t cut = kMaxQuotedBytes;
  while (cut > 0 && (static_cast<unsigned char>(value[cut]) & 0xC0) == 0x80) {
    --cut;  // value[cut] continues a UTF-8 sequence: keep it whole or out
  }
  return absl::StrCat("\"", absl::CEscape(value.substr(0, cut)), "...\" (",
                      value.size(), " bytes)");
}

absl::Status LocatedError(const Location& where, absl::string_view label,
                          absl::string_view detail) {
  std::string out(where.source);
  if (!where.document.empty()) absl::StrAppend(&out, ": ", where.document);
  if (!where.item.empty()) {
    absl::StrAppend(&out, ": ", where.item);
    if (!label.empty()) absl::StrAppend(&out, " (", label, ")");
  } else if (!label.empty()) {
    absl::StrAppend(&out, ": ", label);
  }
  absl::StrAppend(&out, ": ", detail);
  return absl::InvalidArgumentError(out);
}

std::vector<ObjectOrigin>* ObjectSink::OriginsOf(ObjectKind kind) {
  ObjectOrigins& o = out_.origins;
  switch (kind) {
    case ObjectKind::kNode:
      return &o.nodes;
    case ObjectKind::kPod:
      return &o.pods;
    case ObjectKind::kPdb:
      return &o.pdbs;
    case ObjectKind::kNodePool:
      return &o.node_pools;
    case ObjectKind::kNodeClaim:
      return &o.node_claims;
    case ObjectKind::kVolumeAttachment:
      return &o.volume_attachments;
    case ObjectKind::kPersistentVolumeClaim:
      return &o.persistent_volume_claims;
    case ObjectKind::kPersistentVolume:
      return &o.persistent_volumes;
    case ObjectKind::kStorageClass:
      return &o.storage_classes;
    case ObjectKind::kCSINode:
      return &o.csi_nodes;
    case ObjectKind::kDaemonSet:
      return &o.daemon_sets;
    case ObjectKind::kNodeOverlay:
      return &o.node_overlays;
    case ObjectKind::kSkipped:
      break;
  }
  return nullptr;
}

absl::Status ObjectSink::Add(ObjectKind kind, absl::string_view kind_name,
                             absl::string_view api_version,
                             absl::string_view json, const Location& where,
                             uint32_t line) {
  KARPENTER_RETURN_IF_ERROR(AddObject(kind, kind_name, api_version, json));
  std::vector<ObjectOrigin>* origins = OriginsOf(kind);
  if (origins == nullptr) return absl::OkStatus();
  if (source_ == ObjectOrigin::kNoSource) {
    source_ = static_cast<uint32_t>(out_.sources.size());
    out_.sources.emplace_back(where.source);
  }
  origins->push_back(
      ObjectOrigin{source_, where.document_number, line, where.item});
  return absl::OkStatus();
}

absl::Status ObjectSink::AddObject(ObjectKind kind, absl::string_view kind_name,
                                   absl::string_view api_version,
                                   absl::string_view json) {
  switch (kind) {
    case ObjectKind::kNode:
      return Decode(decoder_, json, kind_name, api_version, out_.nodes);
    case ObjectKind::kPod:
      return Decode(decoder_, json, kind_name, api_version, out_.pods);
    case ObjectKind::kPdb:
      return Decode(decoder_, json, kind_name, api_version, out_.pdbs);
    case ObjectKind::kNodePool:
      return Decode(decoder_, json, kind_name, api_version, out_.node_pools);
    case ObjectKind::kNodeClaim:
      return Decode(decoder_, json, kind_name, api_version, out_.node_claims);
    case ObjectKind::kVolumeAttachment:
      return Decode(decoder_, json, kind_name, api_version,
                    out_.volume_attachments);
    case ObjectKind::kPersistentVolumeClaim:
      return Decode(decoder_, json, kind_name, api_version,
                    out_.persistent_volume_claims);
    case ObjectKind::kPersistentVolume:
      return Decode(decoder_, json, kind_name, api_version,
                    out_.persistent_volumes);
    case ObjectKind::kStorageClass:
      return Decode(decoder_, json, kind_name, api_version,
                    out_.storage_classes);
    case ObjectKind::kCSINode:
      return Decode(decoder_, json, kind_name, api_version, out_.csi_nodes);
    case ObjectKind::kDaemonSet:
      return Decode(decoder_, json, kind_name, api_version, out_.daemon_sets);
    case ObjectKind::kNodeOverlay:
      return Decode(decoder_, json, kind_name, api_version, out_.node_overlays);
    case ObjectKind::kSkipped:
      break;
  }
  return absl::InternalError("ObjectSink::Add called for a skipped kind");
}

void ObjectSink::Skip(absl::string_view kind_name,
                      absl::string_view api_version) {
  std::string key(kind_name);
  if (IsRecognisedKindName(kind_name)) {
    absl::StrAppend(&key, " (", api_version, ")");
  }
  ++out_.skipped_kinds[key];
}

}  // namespace karpenter::snapshot::internal
