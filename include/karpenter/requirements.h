// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Requirement and Requirements: Karpenter's set algebra over node label
// values, the representation behind NodePool/NodeClaim `requirements`
// (v1.NodeSelectorRequirement plus Karpenter's minValues).
//
// Ports sigs.k8s.io/karpenter pkg/scheduling/requirement.go and
// requirements.go (the version with inclusive Gte/Lte bounds):
//   - A requirement is a value set that is either finite (`In`, and
//     `DoesNotExist` as the empty finite set) or the complement of a finite
//     set (`NotIn`, and `Exists` as the complement of nothing), plus optional
//     inclusive integer bounds. `Gt N` is stored as `>= N+1`, `Lt N` as
//     `<= N-1`, and both are "Exists with bounds". A bounded requirement
//     admits only values that parse as a Go int (strconv.Atoi).
//   - Requirements with the same key intersect (`Requirements.Add`).
//   - Label keys are normalized as Karpenter's pkg/apis/v1/labels.go
//     `NormalizedLabels` does (e.g. `beta.kubernetes.io/arch` becomes
//     `kubernetes.io/arch`).
//   - `Compatible` and `Intersects` follow requirements.go exactly, including
//     which keys may be undefined (see Requirements::Compatible).
// Validation follows the NodePool CRD rules of pkg/apis/v1/nodepool.go and
// the webhook's ValidateRequirement (operator set, value counts, Gt/Lt/Gte/
// Lte need one non-negative integer).
//
// Thread-safety: Requirement and Requirements are values; const methods may
// be called concurrently, mutation needs external synchronization.

#ifndef KARPENTER_REQUIREMENTS_H_
#define KARPENTER_REQUIREMENTS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "google/protobuf/map.h"
#include "google/protobuf/repeated_ptr_field.h"
#include "karpenter/v1/meta.pb.h"

namespace karpenter {

// Returns the key Karpenter uses for `key`: the deprecated aliases
// `failure-domain.beta.kubernetes.io/zone`, `.../region`,
// `beta.kubernetes.io/arch`, `beta.kubernetes.io/os` and
// `beta.kubernetes.io/instance-type` map to their stable labels; any other
// key is returned unchanged.
std::string NormalizeLabelKey(absl::string_view key);

// The labels Karpenter core treats as well known (pkg/apis/v1/labels.go
// `WellKnownLabels`), sorted. Pass them as
// CompatibilityOptions::allow_undefined to reproduce Karpenter's
// `AllowUndefinedWellKnownLabels` option. Cloud providers add their own.
absl::Span<const std::string> WellKnownLabels();

// One label key with the set of values it admits.
class Requirement {
 public:
  // The operator a requirement is equivalent to (Karpenter's `Operator()`):
  // bounded requirements report kExists or kNotIn, the bounds show in
  // greater_or_equal()/less_or_equal().
  enum class Operator { kIn, kNotIn, kExists, kDoesNotExist };

  // Builds a requirement from its API form, normalizing the key. `field` is
  // the path of the requirement in its object (e.g.
  // "spec.template.spec.requirements[1]") and prefixes every error.
  //
  // Returns InvalidArgument naming the sub-field and quoting the offending
  // value when:
  //   - the key is not a qualified name (`<field>.key: ...`);
  //   - the operator is not one of In, NotIn, Exists, DoesNotExist, Gt, Lt,
  //     Gte, Lte (`<field>.operator: unknown operator "Foo"`);
  //   - In has no values, Exists/DoesNotExist has values, or Gt/Lt/Gte/Lte
  //     does not have exactly one value that parses as a non-negative Go int
  //     (`<field>.values: ...`);
  //   - minValues is below 1, or above the value count for In
  //     (`<field>.minValues: ...`).
  // NotIn with no values is accepted and equals Exists, as in Karpenter.
  static absl::StatusOr<Requirement> FromProto(
      const v1::NodeSelectorRequirement& proto, absl::string_view field);

  // Factories for already-valid input (keys are normalized, duplicates
  // dropped). Gt(k, INT64_MAX) and Lt(k, INT64_MIN) admit nothing and are
  // DoesNotExist.
  static Requirement In(absl::string_view key,
                        absl::Span<const std::string> values);
  static Requirement NotIn(absl::string_view key,
                           absl::Span<const std::string> values);
  static Requirement Exists(absl::string_view key);
  static Requirement DoesNotExist(absl::string_view key);
  static Requirement Gt(absl::string_view key, int64_t n);
  static Requirement Lt(absl::string_view key, int64_t n);
  static Requirement Gte(absl::string_view key, int64_t n);
  static Requirement Lte(absl::string_view key, int64_t n);

  const std::string& key() const { return key_; }
  // True for NotIn/Exists/Gt/Lt/Gte/Lte: values() lists what is excluded.
  bool complement() const { return complement_; }
  // The finite set (admitted, or excluded when complement()), sorted.
  absl::Span<const std::string> values() const { return values_; }
  // Inclusive integer bounds; only ever set on complement requirements.
  std::optional<int64_t> greater_or_equal() const { return gte_; }
  std::optional<int64_t> less_or_equal() const { return lte_; }
  std::optional<int32_t> min_values() const { return min_values_; }
  Operator op() const;

  // True if `value` is admitted: in the finite set (or not excluded by the
  // complement) and, when bounds are set, a Go int within them.
  bool Has(absl::string_view value) const;

  // True if no value is admitted. Like Karpenter's `Len() == 0`, only a
  // finite set can be empty: a complement is never empty, even when its
  // bounds exclude every integer it does not already exclude.
  bool IsEmpty() const { return !complement_ && values_.empty(); }

  // The values admitted by both (Karpenter's `Intersection`). Bounds are
  // the tighter of the two; crossing bounds give DoesNotExist; a finite
  // result keeps only values within the bounds and drops the bounds.
  // minValues is the larger of the two. The key is this requirement's.
  Requirement Intersection(const Requirement& other) const;

  // `key In [a b]`, `key NotIn [a]`, `key Exists`, `key DoesNotExist`, then
  // ` >=N`, ` <=N`, ` minValues N` when set. Values are sorted and all
  // printed (Karpenter truncates after five). Deterministic.
  std::string ToString() const;

  friend bool operator==(const Requirement&, const Requirement&) = default;

 private:
  Requirement(absl::string_view key, bool complement,
              std::vector<std::string> values);

  std::string key_;
  bool complement_ = false;
  std::vector<std::string> values_;
  std::optional<int64_t> gte_;
  std::optional<int64_t> lte_;
  std::optional<int32_t> min_values_;
};

// Options for Requirements::Compatible.
struct CompatibilityOptions {
  // Keys of the other side that may be missing from this side whatever
  // their operator (Karpenter's `AllowUndefined`). Empty by default, as in
  // drift detection.
  std::vector<std::string> allow_undefined;
};

// Requirements keyed by (normalized) label key, ordered by key. Adding a
// requirement for a key already present intersects the two.
class Requirements {
 public:
  using Map = std::map<std::string, Requirement, std::less<>>;

  Requirements() = default;

  // Builds requirements from API requirements (NodePool
  // spec.template.spec.requirements, NodeClaim spec.requirements). `field`
  // is the list's path; the i-th entry reports errors as `<field>[i]...`
  // (see Requirement::FromProto). The first error in list order is returned.
  static absl::StatusOr<Requirements> FromProto(
      const google::protobuf::RepeatedPtrField<v1::NodeSelectorRequirement>&
          requirements,
      absl::string_view field);

  // `key In [value]` for every label (Karpenter's NewLabelRequirements).
  // Never fails: label values are taken as they are.
  static Requirements FromLabels(
      const google::protobuf::Map<std::string, std::string>& labels);

  // Adds `r`, intersecting it with an existing requirement for its key.
  void Add(const Requirement& r);

  bool Has(absl::string_view key) const { return map_.count(key) > 0; }
  // The requirement for `key`, or null if there is none (Karpenter's Get
  // would return Exists; callers decide).
  const Requirement* Get(absl::string_view key) const;
  const Map& map() const { return map_; }
  size_t size() const { return map_.size(); }
  bool empty() const { return map_.empty(); }

  // Karpenter's `r.Compatible(other)`: `other` can loosely be met by this.
  //   1. Every key of `other` not in options.allow_undefined must be defined
  //      here, unless `other`'s requirement for it is NotIn or DoesNotExist
  //      (by op(), so Gt/Lt/Gte/Lte, being Exists with bounds, must be
  //      defined).
  //   2. Intersects(other).
  // Returns true if compatible. When not and `why` is non-null, appends
  // every problem joined by "; ": undefined keys first, then keys that do
  // not intersect, each in key order (Karpenter's messages).
  bool Compatible(const Requirements& other,
                  const CompatibilityOptions& options = {},
                  std::string* why = nullptr) const;

  // Karpenter's `r.Intersects(other)`: for every key defined on both sides
  // the intersection must be non-empty, except that an empty intersection
  // is allowed when both sides are NotIn or DoesNotExist. Keys defined on
  // one side only are ignored. When not and `why` is non-null, appends each
  // non-intersecting key's problem in key order, joined by "; ".
  bool Intersects(const Requirements& other, std::string* why = nullptr) const;

  // Each requirement's ToString() in key order, joined by ", ".
  // Deterministic.
  std::string ToString() const;

  friend bool operator==(const Requirements&, const Requirements&) = default;

 private:
  Map map_;
};

}  // namespace karpenter

#endif  // KARPENTER_REQUIREMENTS_H_
