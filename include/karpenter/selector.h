// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// LabelSelector: a validated, pre-sorted Kubernetes label selector
// (metav1.LabelSelector) that matches object labels without allocating.
//
// Ports the rules of k8s.io/apimachinery:
//   - pkg/apis/meta/v1/helpers.go `LabelSelectorAsSelector`: a nil selector
//     selects nothing, an empty one (`{}`) selects everything, matchLabels
//     `k: v` means `k In [v]`, and all requirements are ANDed. Karpenter's
//     pkg/utils/pdb/pdb.go relies on the nil/empty distinction for PDBs.
//   - pkg/labels/selector.go `Requirement.Matches` (NotIn and DoesNotExist
//     match an absent label), `Requirement.String` / `ByKey` (string form)
//     and `Parse` (the `kubectl -l` syntax).
//   - pkg/util/validation/validation.go `IsQualifiedName`, `IsValidLabelValue`
//     and pkg/apis/meta/v1/validation `ValidateLabelSelector` (which keys,
//     values, operators and value counts are accepted).
//
// Thread-safety: LabelSelector is an immutable value once built; const
// methods may be called concurrently from any number of threads.

#ifndef KARPENTER_SELECTOR_H_
#define KARPENTER_SELECTOR_H_

#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/optional.h"
#include "absl/types/span.h"
#include "google/protobuf/map.h"
#include "karpenter/v1/meta.pb.h"

namespace karpenter {

// Validates a label key as a Kubernetes qualified name: an optional prefix
// (a lower-case DNS-1123 subdomain, at most 253 characters) and '/', then a
// name of 1 to 63 characters from [A-Za-z0-9_.-] that starts and ends with an
// alphanumeric character. Returns OK, or InvalidArgument with the message
// `<field>: "<key>": <reason>` (for example
// `spec.key: "a b": name part must consist of ...`).
absl::Status ValidateLabelKey(absl::string_view key, absl::string_view field);

// Validates a label value: empty, or at most 63 characters from
// [A-Za-z0-9_.-] starting and ending with an alphanumeric character. Returns
// OK, or InvalidArgument with the message `<field>: "<value>": <reason>`.
absl::Status ValidateLabelValue(absl::string_view value,
                                absl::string_view field);

// A parsed label selector. Requirements are stored sorted by key, each with a
// sorted, de-duplicated value list, so matching is a map lookup plus a binary
// search per requirement and never allocates.
//
// The default-constructed selector selects nothing, like a nil selector.
class LabelSelector {
 public:
  // The operator of one requirement. kEquals comes from matchLabels; it
  // matches exactly like kIn with one value and only prints differently
  // (`k=v` rather than `k in (v)`), as in Kubernetes.
  enum class Operator { kEquals, kIn, kNotIn, kExists, kDoesNotExist };

  // One ANDed requirement. `values` is sorted and unique; it is empty for
  // kExists and kDoesNotExist and holds exactly one value for kEquals.
  struct Requirement {
    std::string key;
    Operator op = Operator::kExists;
    std::vector<std::string> values;

    friend bool operator==(const Requirement&, const Requirement&) = default;
  };

  // Selects nothing (a nil selector).
  LabelSelector() = default;

  // Builds a selector from its API form. `selector` may be null: the result
  // then selects nothing. A selector with neither matchLabels nor
  // matchExpressions selects everything. `field` is the path of the selector
  // in its object (e.g. "spec.selector") and prefixes every error message.
  //
  // Returns InvalidArgument naming the field path and quoting the offending
  // input when a key is not a qualified name, a value is not a valid label
  // value, an operator is not exactly one of In, NotIn, Exists,
  // DoesNotExist, In/NotIn has no values, or Exists/DoesNotExist has values.
  // Only the first problem is reported, in a fixed order: matchLabels by
  // sorted key, then matchExpressions in order (key, operator, value count,
  // values). For example:
  //   spec.selector.matchExpressions[1].values: must be non-empty for
  //   operator "In"
  static absl::StatusOr<LabelSelector> FromProto(
      const v1::LabelSelector* selector, absl::string_view field);

  // Parses the Kubernetes selector string form, as `kubectl -l` takes it
  // (pkg/labels/selector.go `Parse`), e.g.
  // "app=web,tier!=db,env in (a,b),env notin (c),!legacy,key". Whitespace
  // around tokens is ignored. "k=v" and "k==v" become kEquals, "k!=v" becomes
  // kNotIn with one value (same matches), "key" kExists, "!key"
  // kDoesNotExist. An empty or all-blank string selects everything. The
  // comparison operators ">" and "<" are not supported.
  //
  // Returns InvalidArgument for a syntax error (naming the offset and what
  // was expected), an invalid key or value (as FromProto), or an empty value
  // set ("k in ()"). The message starts with `label selector "<text>": `.
  // Parse(s.ToString()) gives back s, except that Kubernetes prints `k In
  // [""]` as "k in ()", which no parser accepts.
  static absl::StatusOr<LabelSelector> Parse(absl::string_view text);

  // The selector that selects every label set (`{}`).
  static LabelSelector Everything();
  // The selector that selects no label set (nil).
  static LabelSelector Nothing();

  // Returns true if every requirement holds for `labels`. Never allocates.
  //   Equals/In:    the label is present and its value is in the set.
  //   NotIn:        the label is absent, or its value is not in the set.
  //   Exists:       the label is present.
  //   DoesNotExist: the label is absent.
  bool Matches(
      const google::protobuf::Map<std::string, std::string>& labels) const;

  // Same as above for labels held elsewhere (e.g. an interned snapshot):
  // `lookup(key)` returns the label's value, or nullopt if it is absent.
  bool Matches(
      absl::FunctionRef<absl::optional<absl::string_view>(absl::string_view)>
          lookup) const;

  // True for a nil selector (and Nothing()).
  bool MatchesNothing() const { return nothing_; }
  // True for an empty selector (and Everything()).
  bool MatchesEverything() const { return !nothing_ && requirements_.empty(); }

  // The requirements, sorted by key, then operator, then values. Empty for
  // both Everything() and Nothing(); tell them apart with MatchesNothing().
  absl::Span<const Requirement> requirements() const { return requirements_; }

  // The Kubernetes selector string (`labels.Selector.String()`), e.g.
  // "app=web,!legacy,tier notin (cache,db),zone in (a,b)": requirements in
  // the order of requirements(), values sorted. Everything() gives "" as in
  // Kubernetes. Nothing() gives "<nothing>" (Kubernetes prints "" for both,
  // which would make explain output ambiguous). Deterministic.
  std::string ToString() const;

  friend bool operator==(const LabelSelector&, const LabelSelector&) = default;

 private:
  bool nothing_ = true;
  std::vector<Requirement> requirements_;
};

}  // namespace karpenter

#endif  // KARPENTER_SELECTOR_H_
