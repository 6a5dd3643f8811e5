// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "snapshot/validate.h"

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/status_macros.h"
#include "karpenter/selector.h"
#include "snapshot/object_sink.h"

namespace karpenter::snapshot::internal {
namespace {

constexpr absl::string_view kImmediate = "Immediate";
constexpr absl::string_view kWaitForFirstConsumer = "WaitForFirstConsumer";
// The one field a node field selector may name (metav1.ObjectNameField).
constexpr absl::string_view kObjectNameField = "metadata.name";

absl::Status Invalid(absl::string_view field, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", what));
}

// corev1 NodeSelectorRequirement in matchExpressions at `path`.
absl::Status ValidateExpression(const v1::NodeSelectorRequirement& r,
                                const std::string& path) {
  KARPENTER_RETURN_IF_ERROR(ValidateLabelKey(r.key(), path + ".key"));
  const absl::string_view op = r.operator_();
  const int values = r.values_size();
  const std::string quoted_op = QuoteValue(op);
  if (op == "In" || op == "NotIn") {
    if (values == 0) {
      return Invalid(path + ".values",
                     absl::StrCat("expected at least one value for operator ",
                                  quoted_op, ", got 0"));
    }
  } else if (op == "Exists" || op == "DoesNotExist") {
    if (values != 0) {
      return Invalid(path + ".values",
                     absl::StrCat("expected no values for operator ", quoted_op,
                                  ", got ", values));
    }
  } else if (op == "Gt" || op == "Lt") {
    if (values != 1) {
      return Invalid(path + ".values",
                     absl::StrCat("expected exactly one value for operator ",
                                  quoted_op, ", got ", values));
    }
  } else {
    return Invalid(path + ".operator",
                   absl::StrCat("expected In, NotIn, Exists, DoesNotExist, Gt "
                                "or Lt, got ",
                                quoted_op));
  }
  return absl::OkStatus();
}

// corev1 NodeSelectorRequirement in matchFields at `path`.
absl::Status ValidateFieldExpression(const v1::NodeSelectorRequirement& r,
                                     const std::string& path) {
  if (r.key() != kObjectNameField) {
    return Invalid(path + ".key",
                   absl::StrCat("expected \"", kObjectNameField, "\", got ",
                                QuoteValue(r.key())));
  }
  if (r.operator_() != "In" && r.operator_() != "NotIn") {
    return Invalid(
        path + ".operator",
        absl::StrCat("expected In or NotIn, got ", QuoteValue(r.operator_())));
  }
  if (r.values_size() != 1) {
    return Invalid(
        path + ".values",
        absl::StrCat("expected exactly one value for operator ",
                     QuoteValue(r.operator_()), ", got ", r.values_size()));
  }
  return absl::OkStatus();
}

absl::Status ValidateNodeAffinity(const v1::VolumeNodeAffinity& affinity) {
  constexpr absl::string_view kRequired = "spec.nodeAffinity.required";
  if (!affinity.has_required()) {
    return Invalid(kRequired, "expected a node selector, got none");
  }
  const auto& terms = affinity.required().node_selector_terms();
  const std::string terms_path = absl::StrCat(kRequired, ".nodeSelectorTerms");
  if (terms.empty()) {
    return Invalid(terms_path, "expected at least one term, got 0");
  }
  for (int t = 0; t < terms.size(); ++t) {
    const std::string term = absl::StrCat(terms_path, "[", t, "]");
    const v1::NodeSelectorTerm& selector_term = terms[t];
    for (int e = 0; e < selector_term.match_expressions_size(); ++e) {
      KARPENTER_RETURN_IF_ERROR(
          ValidateExpression(selector_term.match_expressions(e),
                             absl::StrCat(term, ".matchExpressions[", e, "]")));
    }
    for (int f = 0; f < selector_term.match_fields_size(); ++f) {
      KARPENTER_RETURN_IF_ERROR(
          ValidateFieldExpression(selector_term.match_fields(f),
                                  absl::StrCat(term, ".matchFields[", f, "]")));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidatePersistentVolume(const v1::PersistentVolume& pv) {
  const v1::PersistentVolumeSpec& spec = pv.spec();
  if (spec.has_claim_ref() && spec.claim_ref().name().empty()) {
    return Invalid("spec.claimRef.name", "expected the claim's name, got \"\"");
  }
  if (spec.has_node_affinity()) {
    return ValidateNodeAffinity(spec.node_affinity());
  }
  return absl::OkStatus();
}

absl::Status ValidateStorageClass(const v1::StorageClass& sc) {
  if (sc.has_volume_binding_mode() && sc.volume_binding_mode() != kImmediate &&
      sc.volume_binding_mode() != kWaitForFirstConsumer) {
    return Invalid("volumeBindingMode",
                   absl::StrCat("expected \"", kImmediate, "\" or \"",
                                kWaitForFirstConsumer, "\", got ",
                                QuoteValue(sc.volume_binding_mode())));
  }
  for (int t = 0; t < sc.allowed_topologies_size(); ++t) {
    const auto& expressions =
        sc.allowed_topologies(t).match_label_expressions();
    // Key -> its first expression's index, for duplicates within a term.
    absl::flat_hash_map<absl::string_view, int> seen;
    for (int e = 0; e < expressions.size(); ++e) {
      const v1::TopologySelectorLabelRequirement& r = expressions[e];
      const std::string path = absl::StrCat("allowedTopologies[", t,
                                            "].matchLabelExpressions[", e, "]");
      KARPENTER_RETURN_IF_ERROR(ValidateLabelKey(r.key(), path + ".key"));
      if (r.values().empty()) {
        return Invalid(path + ".values",
                       absl::StrCat("expected at least one value for key ",
                                    QuoteValue(r.key()), ", got 0"));
      }
      absl::flat_hash_map<absl::string_view, int> values;
      for (int v = 0; v < r.values_size(); ++v) {
        const auto [it, inserted] = values.try_emplace(r.values(v), v);
        if (!inserted) {
          return Invalid(
              absl::StrCat(path, ".values[", v, "]"),
              absl::StrCat("duplicate value ", QuoteValue(r.values(v)),
                           " (also values[", it->second, "])"));
        }
      }
      const auto [it, inserted] = seen.try_emplace(r.key(), e);
      if (!inserted) {
        return Invalid(
            path + ".key",
            absl::StrCat("duplicate key ", QuoteValue(r.key()),
                         " (also matchLabelExpressions[", it->second, "])"));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateCSINode(const v1::CSINode& node) {
  const auto& drivers = node.spec().drivers();
  // Driver name -> its first index.
  absl::flat_hash_map<absl::string_view, int> seen;
  for (int d = 0; d < drivers.size(); ++d) {
    const v1::CSINodeDriver& driver = drivers[d];
    const std::string path = absl::StrCat("spec.drivers[", d, "]");
    if (driver.name().empty()) {
      return Invalid(path + ".name", "expected a driver name, got \"\"");
    }
    const auto [it, inserted] = seen.try_emplace(driver.name(), d);
    if (!inserted) {
      return Invalid(
          path + ".name",
          absl::StrCat("duplicate driver ", QuoteValue(driver.name()),
                       " (also spec.drivers[", it->second, "])"));
    }
    if (driver.allocatable().has_count() && driver.allocatable().count() < 0) {
      return Invalid(path + ".allocatable.count",
                     absl::StrCat("expected a non-negative integer, got ",
                                  driver.allocatable().count()));
    }
  }
  return absl::OkStatus();
}

}  // namespace karpenter::snapshot::internal
