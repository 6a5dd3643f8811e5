// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/requirements.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "karpenter/selector.h"
#include "karpenter/well_known.h"
#include "primitives/go_compat.h"
#include "primitives/label_aliases.h"

namespace karpenter {
namespace {

using primitives_internal::GoAtoi;
using primitives_internal::GoStrconvQuote;
using primitives_internal::QuoteStyle;

std::vector<std::string> SortedUnique(absl::Span<const std::string> values) {
  std::vector<std::string> out(values.begin(), values.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Go's strconv.Atoi, as Karpenter's withinBounds uses it on label values.
std::optional<int64_t> ParseGoInt(absl::string_view s) {
  absl::StatusOr<int64_t> n = GoAtoi(s, QuoteStyle::kStrconv);
  if (!n.ok()) return std::nullopt;
  return *n;
}

bool WithinBounds(absl::string_view value, std::optional<int64_t> gte,
                  std::optional<int64_t> lte) {
  if (!gte && !lte) return true;
  // Bounds admit integers only: "abc" is outside "Gt 1" as in Karpenter.
  const std::optional<int64_t> n = ParseGoInt(value);
  if (!n) return false;
  return (!gte || *n >= *gte) && (!lte || *n <= *lte);
}

std::optional<int64_t> TighterLower(std::optional<int64_t> a,
                                    std::optional<int64_t> b) {
  if (!a) return b;
  if (!b) return a;
  return std::max(*a, *b);
}

std::optional<int64_t> TighterUpper(std::optional<int64_t> a,
                                    std::optional<int64_t> b) {
  if (!a) return b;
  if (!b) return a;
  return std::min(*a, *b);
}

std::optional<int32_t> LargerMinValues(std::optional<int32_t> a,
                                       std::optional<int32_t> b) {
  if (!a) return b;
  if (!b) return a;
  return std::max(*a, *b);
}

// Quotes a value list for error messages: ["a", "b"].
std::string QuoteList(
    const google::protobuf::RepeatedPtrField<std::string>& values) {
  std::vector<std::string> quoted;
  quoted.reserve(values.size());
  for (const std::string& v : values) quoted.push_back(GoStrconvQuote(v));
  return absl::StrCat("[", absl::StrJoin(quoted, ", "), "]");
}

absl::Status ValuesError(absl::string_view field,
                         const v1::NodeSelectorRequirement& proto,
                         absl::string_view need) {
  return absl::InvalidArgumentError(absl::StrCat(
      field, ".values: operator ", GoStrconvQuote(proto.operator_()), " ", need,
      ", got ", QuoteList(proto.values())));
}

// Parses the single bound of Gt/Lt/Gte/Lte. Karpenter's CRD demands exactly
// one value with int(value) >= 0.
absl::StatusOr<int64_t> ParseBound(const v1::NodeSelectorRequirement& proto,
                                   absl::string_view field) {
  constexpr absl::string_view kNeed =
      "needs exactly one non-negative integer value";
  if (proto.values_size() != 1) return ValuesError(field, proto, kNeed);
  const std::optional<int64_t> n = ParseGoInt(proto.values(0));
  if (!n || *n < 0) return ValuesError(field, proto, kNeed);
  return *n;
}

absl::Status ValidateMinValues(const v1::NodeSelectorRequirement& proto,
                               absl::string_view field) {
  if (!proto.has_min_values()) return absl::OkStatus();
  const int32_t min = proto.min_values();
  if (min < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ".minValues: must be at least 1, got ", min));
  }
  if (proto.operator_() == "In" && proto.values_size() < min) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ".minValues: ", min, " is more than the ",
                     proto.values_size(), " values of operator \"In\""));
  }
  return absl::OkStatus();
}

absl::StatusOr<Requirement> BuildFromProto(
    const v1::NodeSelectorRequirement& proto, absl::string_view field) {
  const std::string& op = proto.operator_();
  const std::string& key = proto.key();
  if (op == "In" || op == "NotIn") {
    if (op == "In" && proto.values().empty()) {
      return ValuesError(field, proto, "needs at least one value");
    }
    const std::vector<std::string> values(proto.values().begin(),
                                          proto.values().end());
    return op == "In" ? Requirement::In(key, values)
                      : Requirement::NotIn(key, values);
  }
  if (op == "Exists" || op == "DoesNotExist") {
    if (!proto.values().empty()) {
      return ValuesError(field, proto, "takes no values");
    }
    return op == "Exists" ? Requirement::Exists(key)
                          : Requirement::DoesNotExist(key);
  }
  if (op == "Gt" || op == "Lt" || op == "Gte" || op == "Lte") {
    absl::StatusOr<int64_t> n = ParseBound(proto, field);
    if (!n.ok()) return n.status();
    if (op == "Gt") return Requirement::Gt(key, *n);
    if (op == "Lt") return Requirement::Lt(key, *n);
    if (op == "Gte") return Requirement::Gte(key, *n);
    return Requirement::Lte(key, *n);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      field, ".operator: unknown operator ", GoStrconvQuote(op),
      " (want In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte or Lte)"));
}

const char* OperatorName(Requirement::Operator op) {
  switch (op) {
    case Requirement::Operator::kIn:
      return "In";
    case Requirement::Operator::kNotIn:
      return "NotIn";
    case Requirement::Operator::kExists:
      return "Exists";
    case Requirement::Operator::kDoesNotExist:
      return "DoesNotExist";
  }
  return "?";
}

bool IsNotInOrDoesNotExist(const Requirement& r) {
  const Requirement::Operator op = r.op();
  return op == Requirement::Operator::kNotIn ||
         op == Requirement::Operator::kDoesNotExist;
}

void AppendWhy(std::string* why, absl::string_view problem) {
  if (why == nullptr) return;
  if (!why->empty()) why->append("; ");
  why->append(problem.data(), problem.size());
}

}  // namespace

std::string NormalizeLabelKey(absl::string_view key) {
  // pkg/apis/v1/labels.go NormalizedLabels.
  for (const auto& [alias, stable] : primitives_internal::kLabelKeyAliases) {
    if (key == alias) return std::string(stable);
  }
  return std::string(key);
}

absl::Span<const std::string> WellKnownLabels() {
  static const auto* const kLabels = new std::vector<std::string>{
      std::string(well_known::kCapacityTypeLabelKey),
      std::string(well_known::kNodePoolLabelKey),
      std::string(well_known::kLabelArchStable),
      std::string(well_known::kLabelOSStable),
      std::string(well_known::kLabelInstanceTypeStable),
      std::string(well_known::kLabelWindowsBuild),
      std::string(well_known::kLabelTopologyRegion),
      std::string(well_known::kLabelTopologyZone),
  };
  return *kLabels;
}

Requirement::Requirement(absl::string_view key, bool complement,
                         std::vector<std::string> values)
    : key_(NormalizeLabelKey(key)),
      complement_(complement),
      values_(std::move(values)) {}

absl::StatusOr<Requirement> Requirement::FromProto(
    const v1::NodeSelectorRequirement& proto, absl::string_view field) {
  absl::Status key_ok =
      ValidateLabelKey(proto.key(), absl::StrCat(field, ".key"));
  if (!key_ok.ok()) return key_ok;
  absl::StatusOr<Requirement> r = BuildFromProto(proto, field);
  if (!r.ok()) return r.status();
  absl::Status min_ok = ValidateMinValues(proto, field);
  if (!min_ok.ok()) return min_ok;
  if (proto.has_min_values()) r->min_values_ = proto.min_values();
  return r;
}

Requirement Requirement::In(absl::string_view key,
                            absl::Span<const std::string> values) {
  return Requirement(key, false, SortedUnique(values));
}

Requirement Requirement::NotIn(absl::string_view key,
                               absl::Span<const std::string> values) {
  return Requirement(key, true, SortedUnique(values));
}

Requirement Requirement::Exists(absl::string_view key) {
  return Requirement(key, true, {});
}

Requirement Requirement::DoesNotExist(absl::string_view key) {
  return Requirement(key, false, {});
}

Requirement Requirement::Gt(absl::string_view key, int64_t n) {
  // Karpenter canonicalizes Gt N to Gte N+1; nothing exceeds the maximum.
  if (n == std::numeric_limits<int64_t>::max()) return DoesNotExist(key);
  return Gte(key, n + 1);
}

Requirement Requirement::Lt(absl::string_view key, int64_t n) {
  if (n == std::numeric_limits<int64_t>::min()) return DoesNotExist(key);
  return Lte(key, n - 1);
}

Requirement Requirement::Gte(absl::string_view key, int64_t n) {
  Requirement r = Exists(key);
  r.gte_ = n;
  return r;
}

Requirement Requirement::Lte(absl::string_view key, int64_t n) {
  Requirement r = Exists(key);
  r.lte_ = n;
  return r;
}

Requirement::Operator Requirement::op() const {
  if (complement_)
    return values_.empty() ? Operator::kExists : Operator::kNotIn;
  return values_.empty() ? Operator::kDoesNotExist : Operator::kIn;
}

bool Requirement::Has(absl::string_view value) const {
  const bool listed = std::binary_search(
      values_.begin(), values_.end(), value,
      [](absl::string_view a, absl::string_view b) { return a < b; });
  return listed != complement_ && WithinBounds(value, gte_, lte_);
}

Requirement Requirement::Intersection(const Requirement& other) const {
  const std::optional<int64_t> gte = TighterLower(gte_, other.gte_);
  const std::optional<int64_t> lte = TighterUpper(lte_, other.lte_);
  const std::optional<int32_t> min_values =
      LargerMinValues(min_values_, other.min_values_);
  if (gte && lte && *gte > *lte) {
    // Crossed bounds admit nothing: Karpenter returns DoesNotExist.
    Requirement none = DoesNotExist(key_);
    none.min_values_ = min_values;
    return none;
  }
  Requirement out(key_, complement_ && other.complement_, {});
  out.min_values_ = min_values;

  // Both lists are sorted, so the set operations run in linear time.
  const auto& a = values_;
  const auto& b = other.values_;
  auto sink = std::back_inserter(out.values_);
  if (complement_ && other.complement_) {
    std::set_union(a.begin(), a.end(), b.begin(), b.end(), sink);
  } else if (complement_) {
    std::set_difference(b.begin(), b.end(), a.begin(), a.end(), sink);
  } else if (other.complement_) {
    std::set_difference(a.begin(), a.end(), b.begin(), b.end(), sink);
  } else {
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), sink);
  }
  // Karpenter filters every listed value by the bounds, excluded ones too.
  std::erase_if(out.values_, [&](const std::string& v) {
    return !WithinBounds(v, gte, lte);
  });
  // A finite set already holds only admitted values: drop the bounds.
  if (out.complement_) {
    out.gte_ = gte;
    out.lte_ = lte;
  }
  return out;
}

std::string Requirement::ToString() const {
  const Operator operation = op();
  std::string out = absl::StrCat(key_, " ", OperatorName(operation));
  if (operation == Operator::kIn || operation == Operator::kNotIn) {
    absl::StrAppend(&out, " [", absl::StrJoin(values_, " "), "]");
  }
  if (gte_) absl::StrAppend(&out, " >=", *gte_);
  if (lte_) absl::StrAppend(&out, " <=", *lte_);
  if (min_values_) absl::StrAppend(&out, " minValues ", *min_values_);
  return out;
}

absl::StatusOr<Requirements> Requirements::FromProto(
    const google::protobuf::RepeatedPtrField<v1::NodeSelectorRequirement>&
        requirements,
    absl::string_view field) {
  Requirements out;
  for (int i = 0; i < requirements.size(); ++i) {
    absl::StatusOr<Requirement> r = Requirement::FromProto(
        requirements.Get(i), absl::StrCat(field, "[", i, "]"));
    if (!r.ok()) return r.status();
    out.Add(*r);
  }
  return out;
}

Requirements Requirements::FromLabels(
    const google::protobuf::Map<std::string, std::string>& labels) {
  Requirements out;
  for (const auto& [key, value] : labels) {
    out.Add(Requirement::In(key, {value}));
  }
  return out;
}

void Requirements::Add(const Requirement& r) {
  auto it = map_.find(r.key());
  if (it == map_.end()) {
    map_.emplace(r.key(), r);
    return;
  }
  // Karpenter intersects the incoming requirement with the existing one.
  it->second = r.Intersection(it->second);
}

const Requirement* Requirements::Get(absl::string_view key) const {
  auto it = map_.find(key);
  return it == map_.end() ? nullptr : &it->second;
}

bool Requirements::Compatible(const Requirements& other,
                              const CompatibilityOptions& options,
                              std::string* why) const {
  bool ok = true;
  for (const auto& [key, theirs] : other.map_) {
    const auto& allowed = options.allow_undefined;
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) {
      continue;
    }
    if (Has(key) || IsNotInOrDoesNotExist(theirs)) continue;
    ok = false;
    AppendWhy(why, absl::StrCat("label ", GoStrconvQuote(key),
                                " does not have known values"));
  }
  return Intersects(other, why) && ok;
}

bool Requirements::Intersects(const Requirements& other,
                              std::string* why) const {
  bool ok = true;
  for (const auto& [key, ours] : map_) {
    const Requirement* theirs = other.Get(key);
    if (theirs == nullptr || !ours.Intersection(*theirs).IsEmpty()) continue;
    if (IsNotInOrDoesNotExist(*theirs) && IsNotInOrDoesNotExist(ours)) {
      continue;
    }
    ok = false;
    AppendWhy(why, absl::StrCat("key ", key, ", ", theirs->ToString(),
                                " not in ", ours.ToString()));
  }
  return ok;
}

std::string Requirements::ToString() const {
  std::vector<std::string> parts;
  parts.reserve(map_.size());
  for (const auto& [key, r] : map_) parts.push_back(r.ToString());
  return absl::StrJoin(parts, ", ");
}

}  // namespace karpenter
