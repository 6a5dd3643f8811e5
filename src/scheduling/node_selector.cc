// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/scheduling/node_selector.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "karpenter/selector.h"
#include "primitives/go_compat.h"

namespace karpenter::scheduling {
namespace {

namespace pb = google::protobuf;
using LabelMap = pb::Map<std::string, std::string>;
using Values = pb::RepeatedPtrField<std::string>;

// The one node field Kubernetes extracts (nodeaffinity.go
// `extractNodeFields`).
constexpr absl::string_view kNodeNameField = "metadata.name";

enum class Op { kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt };

std::optional<Op> ParseOp(absl::string_view op) {
  if (op == "In") return Op::kIn;
  if (op == "NotIn") return Op::kNotIn;
  if (op == "Exists") return Op::kExists;
  if (op == "DoesNotExist") return Op::kDoesNotExist;
  if (op == "Gt") return Op::kGt;
  if (op == "Lt") return Op::kLt;
  return std::nullopt;
}

// Go's strconv.ParseInt(s, 10, 64).
std::optional<int64_t> ParseInt64(absl::string_view s) {
  absl::StatusOr<int64_t> v =
      primitives_internal::GoAtoi(s, primitives_internal::QuoteStyle::kStrconv);
  if (!v.ok()) return std::nullopt;
  return *v;
}

// Whether labels.NewRequirement accepts `key op values` (the checks of
// apimachinery pkg/labels/selector.go, in any order: only validity
// matters here).
bool ParsesAsLabelRequirement(absl::string_view key, Op op,
                              const Values& values) {
  if (!ValidateLabelKey(key, "key").ok()) return false;
  switch (op) {
    case Op::kIn:
    case Op::kNotIn:
      if (values.empty()) return false;
      break;
    case Op::kExists:
    case Op::kDoesNotExist:
      if (!values.empty()) return false;
      break;
    case Op::kGt:
    case Op::kLt:
      if (values.size() != 1 || !ParseInt64(values[0]).has_value()) {
        return false;
      }
      break;
  }
  return std::all_of(values.begin(), values.end(), [](const std::string& v) {
    return ValidateLabelValue(v, "values").ok();
  });
}

// apimachinery `Requirement.Matches` for a requirement that parsed.
bool LabelRequirementMatches(const std::string& key, Op op,
                             const Values& values, const LabelMap& labels) {
  const auto it = labels.find(key);
  const bool present = it != labels.end();
  const auto has_value = [&] {
    return std::find(values.begin(), values.end(), it->second) != values.end();
  };
  switch (op) {
    case Op::kIn:
      return present && has_value();
    case Op::kNotIn:
      return !present || !has_value();
    case Op::kExists:
      return present;
    case Op::kDoesNotExist:
      return !present;
    case Op::kGt:
    case Op::kLt: {
      if (!present) return false;
      const std::optional<int64_t> have = ParseInt64(it->second);
      const std::optional<int64_t> want = ParseInt64(values[0]);
      if (!have || !want) return false;
      return op == Op::kGt ? *have > *want : *have < *want;
    }
  }
  return false;
}

// nodeaffinity.go `newNodeSelectorTerm` + `nodeSelectorTerm.match`, for a
// node with `labels` and `name` ("" for a node without fields).
bool TermMatches(const v1::NodeSelectorTerm& term, const LabelMap& labels,
                 absl::string_view name) {
  if (term.match_expressions().empty() && term.match_fields().empty()) {
    return false;  // `isEmptyNodeSelectorTerm`: skipped, selects nothing.
  }
  // Parse the whole term first: an error anywhere makes it unmatchable.
  for (const v1::NodeSelectorRequirement& e : term.match_expressions()) {
    const std::optional<Op> op = ParseOp(e.operator_());
    if (!op || !ParsesAsLabelRequirement(e.key(), *op, e.values())) {
      return false;
    }
  }
  for (const v1::NodeSelectorRequirement& f : term.match_fields()) {
    const std::optional<Op> op = ParseOp(f.operator_());
    if (!op || (*op != Op::kIn && *op != Op::kNotIn) || f.values_size() != 1) {
      return false;
    }
  }
  for (const v1::NodeSelectorRequirement& e : term.match_expressions()) {
    if (!LabelRequirementMatches(e.key(), *ParseOp(e.operator_()), e.values(),
                                 labels)) {
      return false;
    }
  }
  if (name.empty()) return true;  // No fields: matchFields not evaluated.
  for (const v1::NodeSelectorRequirement& f : term.match_fields()) {
    // fields.Set.Get: a key the node does not have reads as "".
    const absl::string_view have =
        f.key() == kNodeNameField ? name : absl::string_view();
    const bool equal = have == f.values(0);
    if (f.operator_() == "In" ? !equal : equal) return false;
  }
  return true;
}

bool SelectorMatches(const v1::NodeSelector& selector, const LabelMap& labels,
                     absl::string_view name) {
  return std::any_of(selector.node_selector_terms().begin(),
                     selector.node_selector_terms().end(),
                     [&](const v1::NodeSelectorTerm& term) {
                       return TermMatches(term, labels, name);
                     });
}

}  // namespace

bool NodeSelectorTermMatches(const v1::NodeSelectorTerm& term,
                             const v1::Node& node) {
  return TermMatches(term, node.metadata().labels(), node.metadata().name());
}

bool NodeSelectorMatches(const v1::NodeSelector& selector,
                         const v1::Node& node) {
  return SelectorMatches(selector, node.metadata().labels(),
                         node.metadata().name());
}

bool NodeSelectorMatchesLabels(const v1::NodeSelector& selector,
                               const LabelMap& labels) {
  return SelectorMatches(selector, labels, "");
}

bool TopologySelectorTermsMatch(
    const pb::RepeatedPtrField<v1::TopologySelectorTerm>& terms,
    const LabelMap& labels) {
  if (terms.empty()) return true;  // An empty list admits every node.
  for (const v1::TopologySelectorTerm& term : terms) {
    const auto& reqs = term.match_label_expressions();
    if (reqs.empty()) continue;  // An empty term selects nothing.
    const bool parses = std::all_of(
        reqs.begin(), reqs.end(),
        [](const v1::TopologySelectorLabelRequirement& r) {
          return ParsesAsLabelRequirement(r.key(), Op::kIn, r.values());
        });
    if (!parses) continue;
    const bool matches = std::all_of(
        reqs.begin(), reqs.end(),
        [&](const v1::TopologySelectorLabelRequirement& r) {
          return LabelRequirementMatches(r.key(), Op::kIn, r.values(), labels);
        });
    if (matches) return true;
  }
  return false;
}

}  // namespace karpenter::scheduling
