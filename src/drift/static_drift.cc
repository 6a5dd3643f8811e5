// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/drift/static_drift.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/status_macros.h"
#include "drift/pool_facts.h"
#include "google/protobuf/map.h"
#include "google/protobuf/repeated_ptr_field.h"
#include "karpenter/duration.h"
#include "karpenter/v1/karpenter.pb.h"
#include "karpenter/v1/meta.pb.h"
#include "karpenter/well_known.h"

namespace karpenter::drift {
namespace {

// 64-bit FNV-1 (Go's hash/fnv New64), the hasher hashstructure defaults to.
class Fnv1 {
 public:
  void Byte(uint8_t b) {
    h_ *= 1099511628211ULL;
    h_ ^= b;
  }
  void Bytes(absl::string_view s) {
    for (char c : s) Byte(static_cast<uint8_t>(c));
  }
  // encoding/binary little-endian write of a 64-bit value.
  void Le64(uint64_t v) {
    for (int i = 0; i < 8; ++i) Byte(static_cast<uint8_t>(v >> (8 * i)));
  }
  // Big-endian, as time.Time.MarshalBinary lays its fields out.
  void Be(uint64_t v, int bytes) {
    for (int i = bytes - 1; i >= 0; --i) {
      Byte(static_cast<uint8_t>(v >> (8 * i)));
    }
  }
  uint64_t sum() const { return h_; }

 private:
  uint64_t h_ = 14695981039346656037ULL;
};

uint64_t HashString(absl::string_view s) {
  Fnv1 h;
  h.Bytes(s);
  return h.sum();
}

// Go ints of every width are widened to 64 bits before hashing.
uint64_t HashInt64(int64_t v) {
  Fnv1 h;
  h.Le64(static_cast<uint64_t>(v));
  return h.sum();
}

// hashstructure's hashUpdateOrdered.
uint64_t Ordered(uint64_t a, uint64_t b) {
  Fnv1 h;
  h.Le64(a);
  h.Le64(b);
  return h.sum();
}

// hashstructure's hashFinishUnordered (FormatV2): rehash an XOR so that equal
// terms met later in another context do not cancel out.
uint64_t Finish(uint64_t a) {
  Fnv1 h;
  h.Le64(a);
  return h.sum();
}

// A Go struct being hashed: the caller adds only fields that are neither
// ignored nor zero, in Go declaration order.
class StructHash {
 public:
  explicit StructHash(absl::string_view go_type_name)
      : h_(HashString(go_type_name)) {}
  void Field(absl::string_view go_field_name, uint64_t value_hash) {
    h_ = Finish(h_ ^ Ordered(HashString(go_field_name), value_hash));
  }
  void StringField(absl::string_view go_field_name, absl::string_view value) {
    if (!value.empty()) Field(go_field_name, HashString(value));
  }
  uint64_t sum() const { return h_; }

 private:
  uint64_t h_;
};

uint64_t HashStringMap(
    const google::protobuf::Map<std::string, std::string>& m) {
  uint64_t h = 0;  // XOR is order-free, so proto map order does not matter.
  for (const auto& [key, value] : m) {
    h ^= Ordered(HashString(key), HashString(value));
  }
  return Finish(h);
}

// metav1.Time{time.Time} as decoded from JSON (`pt.Local()`), hashed through
// time.Time.MarshalBinary: version 1, seconds since year 1, nanoseconds and
// the zone offset in minutes (0: the controller's Local zone is UTC).
uint64_t HashMetaTime(const google::protobuf::Timestamp& t) {
  constexpr int64_t kUnixToInternal = 62135596800;  // 1970 minus year 1.
  Fnv1 bin;
  bin.Byte(1);
  bin.Be(static_cast<uint64_t>(t.seconds() + kUnixToInternal), 8);
  bin.Be(static_cast<uint32_t>(t.nanos()), 4);
  bin.Be(0, 2);
  StructHash time_struct("Time");
  time_struct.Field("Time", bin.sum());
  return time_struct.sum();
}

uint64_t HashTaint(const v1::Taint& taint) {
  StructHash s("Taint");
  s.StringField("Key", taint.key());
  s.StringField("Value", taint.value());
  s.StringField("Effect", taint.effect());
  if (taint.has_time_added()) {
    s.Field("TimeAdded", HashMetaTime(taint.time_added()));
  }
  return s.sum();
}

// SlicesAsSets: XOR of the elements, with no finishing step.
uint64_t HashTaintSet(const google::protobuf::RepeatedPtrField<v1::Taint>& ts) {
  uint64_t h = 0;
  for (const v1::Taint& t : ts) h ^= HashTaint(t);
  return h;
}

uint64_t HashNodeClassRef(const v1::NodeClassReference& ref) {
  StructHash s("NodeClassReference");
  s.StringField("Kind", ref.kind());
  s.StringField("Name", ref.name());
  s.StringField("Group", ref.group());
  return s.sum();
}

// The template's time.Duration values, already parsed; nullopt = absent (for
// terminationGracePeriod) or "Never" (for expireAfter), both nil in Go.
struct Durations {
  std::optional<int64_t> termination_grace_period;
  std::optional<int64_t> expire_after;
};

absl::StatusOr<Durations> ParseDurations(const v1::NodePoolSpec& spec) {
  const v1::NodeClaimSpec& tmpl = spec.template_().spec();
  Durations out;
  if (tmpl.has_termination_grace_period()) {
    absl::StatusOr<absl::Duration> d =
        ParseGoDuration(tmpl.termination_grace_period());
    if (!d.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "spec.template.spec.terminationGracePeriod: ", d.status().message()));
    }
    out.termination_grace_period = absl::ToInt64Nanoseconds(*d);
  }
  absl::string_view field = "spec.template.spec.expireAfter";
  std::string expire = "720h";  // CRD default, applied before Karpenter hashes.
  if (tmpl.has_expire_after()) {
    expire = tmpl.expire_after();
  } else if (spec.disruption().has_expire_after()) {
    field = "spec.disruption.expireAfter";
    expire = spec.disruption().expire_after();
  }
  KARPENTER_ASSIGN_OR_RETURN(std::optional<absl::Duration> expire_after,
                             ParseNillableDuration(expire, field));
  if (expire_after.has_value()) {
    out.expire_after = absl::ToInt64Nanoseconds(*expire_after);
  }
  return out;
}

// NodeClaimTemplateSpec; nullopt when the Go struct would be the zero value
// (then IgnoreZeroValue drops the whole `Spec` field). The ignored
// Requirements still count towards zero-ness.
std::optional<uint64_t> HashTemplateSpec(const v1::NodeClaimSpec& tmpl,
                                         const Durations& durations) {
  if (tmpl.taints().empty() && tmpl.startup_taints().empty() &&
      tmpl.requirements().empty() && !tmpl.has_node_class_ref() &&
      !durations.termination_grace_period.has_value() &&
      !durations.expire_after.has_value()) {
    return std::nullopt;
  }
  StructHash s("NodeClaimTemplateSpec");
  if (!tmpl.taints().empty()) s.Field("Taints", HashTaintSet(tmpl.taints()));
  if (!tmpl.startup_taints().empty()) {
    s.Field("StartupTaints", HashTaintSet(tmpl.startup_taints()));
  }
  if (tmpl.has_node_class_ref()) {
    s.Field("NodeClassRef", HashNodeClassRef(tmpl.node_class_ref()));
  }
  if (durations.termination_grace_period.has_value()) {
    // *metav1.Duration{time.Duration}: a zero duration is skipped inside.
    StructHash d("Duration");
    if (*durations.termination_grace_period != 0) {
      d.Field("Duration", HashInt64(*durations.termination_grace_period));
    }
    s.Field("TerminationGracePeriod", d.sum());
  }
  if (durations.expire_after.has_value()) {
    // NillableDuration{*time.Duration, Raw (ignored)}: the pointer is
    // non-nil, so even "0s" is hashed.
    StructHash d("NillableDuration");
    d.Field("Duration", HashInt64(*durations.expire_after));
    s.Field("ExpireAfter", d.sum());
  }
  return s.sum();
}

// A missing key and a present one are different facts here, so look up
// rather than default to "".
std::optional<absl::string_view> Annotation(const v1::ObjectMeta& meta,
                                            absl::string_view key) {
  // A std::string_view probe: protobuf's Map looks it up without copying.
  auto it = meta.annotations().find(std::string_view(key.data(), key.size()));
  if (it == meta.annotations().end()) return std::nullopt;
  return absl::string_view(it->second);
}

}  // namespace

absl::StatusOr<std::string> NodePoolTemplateHash(const v1::NodePool& pool) {
  KARPENTER_ASSIGN_OR_RETURN(Durations durations, ParseDurations(pool.spec()));
  const v1::NodeClaimTemplate& tmpl = pool.spec().template_();
  StructHash h("NodeClaimTemplate");
  const v1::NodeClaimTemplateMetadata& meta = tmpl.metadata();
  if (!meta.labels().empty() || !meta.annotations().empty()) {
    StructHash m("ObjectMeta");
    if (!meta.labels().empty()) m.Field("Labels", HashStringMap(meta.labels()));
    if (!meta.annotations().empty()) {
      m.Field("Annotations", HashStringMap(meta.annotations()));
    }
    h.Field("ObjectMeta", m.sum());  // the embedded field's name is its type's
  }
  if (std::optional<uint64_t> spec = HashTemplateSpec(tmpl.spec(), durations)) {
    h.Field("Spec", *spec);
  }
  return absl::StrCat(h.sum());
}

namespace internal {

PoolHashAnnotations HashAnnotationsOf(const v1::NodePool& pool) {
  return {Annotation(pool.metadata(), well_known::kNodePoolHashAnnotationKey),
          Annotation(pool.metadata(),
                     well_known::kNodePoolHashVersionAnnotationKey)};
}

std::optional<std::string> StaticDriftedAgainst(const PoolHashAnnotations& pool,
                                                const v1::NodeClaim& claim) {
  const std::optional<absl::string_view>& pool_hash = pool.hash;
  const std::optional<absl::string_view>& pool_version = pool.version;
  // Without both, nothing the claim carries can drift it.
  if (!pool_hash || !pool_version) return std::nullopt;
  const std::optional<absl::string_view> claim_hash =
      Annotation(claim.metadata(), well_known::kNodePoolHashAnnotationKey);
  const std::optional<absl::string_view> claim_version = Annotation(
      claim.metadata(), well_known::kNodePoolHashVersionAnnotationKey);
  if (!pool_hash || !pool_version || !claim_hash || !claim_version) {
    return std::nullopt;
  }
  // Hashes of different versions are not comparable.
  if (*pool_version != *claim_version) return std::nullopt;
  if (*pool_hash == *claim_hash) return std::nullopt;
  return std::string(well_known::kNodePoolDrifted);
}

}  // namespace internal

absl::StatusOr<std::optional<std::string>> StaticDrifted(
    const v1::NodePool& pool, const v1::NodeClaim& claim) {
  return internal::StaticDriftedAgainst(internal::HashAnnotationsOf(pool),
                                        claim);
}

}  // namespace karpenter::drift
