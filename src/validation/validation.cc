// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// PodDisruptionBudget validation (Kubernetes pkg/apis/policy/validation),
// snapshot-wide reports and the error line format.

#include "karpenter/validation.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "karpenter/budget/extensions.h"
#include "karpenter/disruption/controls.h"
#include "karpenter/selector.h"
#include "validation/do_not_disrupt_window.h"
#include "validation/patterns.h"

namespace karpenter::validation {
namespace {

using internal::Errors;

// The reason of a ValidateLabelKey / ValidateLabelValue status, whose
// message is `<field>: "<value>": <reason>` (reasons hold no `": `).
std::string Reason(const absl::Status& s) {
  const absl::string_view m = s.message();
  const size_t at = m.rfind("\": ");
  return std::string(at == absl::string_view::npos ? m : m.substr(at + 3));
}

void CheckLabelKey(const std::string& key, const std::string& field,
                   Errors& errors) {
  if (absl::Status s = ValidateLabelKey(key, field); !s.ok()) {
    errors.Add(field, absl::StrCat(Reason(s), " (qualified name)"), key);
  }
}

void CheckLabelValue(const std::string& value, const std::string& field,
                     Errors& errors) {
  if (absl::Status s = ValidateLabelValue(value, field); !s.ok()) {
    errors.Add(field, absl::StrCat(Reason(s), " (label value)"), value);
  }
}

// metav1 validation `ValidateLabelSelector`.
void CheckSelector(const v1::LabelSelector& sel, Errors& errors) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : sel.match_labels()) keys.push_back(k);
  std::sort(keys.begin(), keys.end());
  for (const std::string& k : keys) {
    CheckLabelKey(k, "spec.selector.matchLabels", errors);
    CheckLabelValue(sel.match_labels().at(k),
                    absl::StrCat("spec.selector.matchLabels.", k), errors);
  }
  for (int i = 0; i < sel.match_expressions_size(); ++i) {
    const v1::LabelSelectorRequirement& r = sel.match_expressions(i);
    const std::string base =
        absl::StrCat("spec.selector.matchExpressions[", i, "]");
    const std::string& op = r.operator_();
    if (op == "In" || op == "NotIn") {
      if (r.values_size() == 0) {
        errors.Add(base + ".values",
                   "Required value: must be specified when `operator` is "
                   "'In' or 'NotIn' (label selector validation)",
                   "");
      }
    } else if (op == "Exists" || op == "DoesNotExist") {
      if (r.values_size() > 0) {
        errors.Add(base + ".values",
                   "Forbidden: may not be specified when `operator` is "
                   "'Exists' or 'DoesNotExist' (label selector validation)",
                   absl::StrJoin(r.values(), ","));
      }
    } else {
      errors.Add(base + ".operator",
                 "Invalid value: not a valid selector operator: must be one "
                 "of \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\" (label "
                 "selector validation)",
                 op);
    }
    CheckLabelKey(r.key(), base + ".key", errors);
    for (int j = 0; j < r.values_size(); ++j) {
      CheckLabelValue(r.values(j), absl::StrCat(base, ".values[", j, "]"),
                      errors);
    }
  }
}

// An IntOrString field is absent when unset or JSON null (a nil pointer).
bool IsSet(bool has, const google::protobuf::Value& v) {
  return has && v.kind_case() != google::protobuf::Value::KIND_NOT_SET &&
         v.kind_case() != google::protobuf::Value::kNullValue;
}

std::string ValueText(const google::protobuf::Value& v) {
  switch (v.kind_case()) {
    case google::protobuf::Value::kNumberValue: {
      const double d = v.number_value();
      if (std::trunc(d) == d && std::fabs(d) < 9e15) {
        return absl::StrCat(static_cast<int64_t>(d));
      }
      return absl::StrCat(d);
    }
    case google::protobuf::Value::kStringValue:
      return v.string_value();
    case google::protobuf::Value::kBoolValue:
      return v.bool_value() ? "true" : "false";
    default:
      return "";
  }
}

// `ValidateNonnegativeIntOrPercent` plus `IsNotMoreThan100Percent`.
void CheckIntOrPercent(const google::protobuf::Value& v,
                       const std::string& field, Errors& errors) {
  const std::string text = ValueText(v);
  if (v.kind_case() == google::protobuf::Value::kNumberValue) {
    const double d = v.number_value();
    if (std::trunc(d) != d || std::fabs(d) > 2147483647.0) {
      errors.Add(field,
                 "must be a 32-bit integer or a percent string (IntOrString)",
                 text);
    } else if (d < 0) {
      errors.Add(field,
                 "must be greater than or equal to 0 "
                 "(ValidateNonnegativeIntOrPercent)",
                 text);
    }
    return;
  }
  if (v.kind_case() != google::protobuf::Value::kStringValue) {
    errors.Add(field, "must be an integer or a string (IntOrString)", text);
    return;
  }
  absl::string_view digits = text;
  const bool percent = absl::ConsumeSuffix(&digits, "%");
  const bool numeric = !digits.empty() &&
                       std::all_of(digits.begin(), digits.end(),
                                   [](char c) { return c >= '0' && c <= '9'; });
  if (!percent || !numeric) {
    errors.Add(field,
               "a valid percent string must be a numeric string followed by "
               "an ending '%' (e.g. '1%' or '93%') "
               "(ValidateNonnegativeIntOrPercent)",
               text);
    return;
  }
  // Leading zeros and long digit strings compare by value.
  absl::string_view trimmed = digits;
  while (trimmed.size() > 1 && trimmed.front() == '0') trimmed.remove_prefix(1);
  if (trimmed.size() > 3 || (trimmed.size() == 3 && trimmed > "100")) {
    errors.Add(field, "must not be greater than 100% (IsNotMoreThan100Percent)",
               text);
  }
}

std::string ObjectName(const v1::ObjectMeta& meta) {
  return meta.namespace_().empty()
             ? meta.name()
             : absl::StrCat(meta.namespace_(), "/", meta.name());
}

absl::Status ToStatus(const std::vector<FieldError>& errors) {
  if (errors.empty()) return absl::OkStatus();
  std::vector<std::string> lines;
  lines.reserve(errors.size());
  for (const FieldError& e : errors) lines.push_back(e.ToString());
  return absl::InvalidArgumentError(absl::StrJoin(lines, "\n"));
}

void Append(std::vector<FieldError> more, std::vector<FieldError>& out) {
  for (FieldError& e : more) out.push_back(std::move(e));
}

}  // namespace

std::string FieldError::ToString() const {
  return absl::StrCat(api_version, " ", kind, " ", object, ": ", field, ": ",
                      problem, ", got ", internal::QuoteValue(value));
}

std::vector<FieldError> PodDisruptionBudgetErrors(
    const v1::PodDisruptionBudget& pdb) {
  Errors errors(pdb.api_version().empty() ? "policy/v1" : pdb.api_version(),
                "PodDisruptionBudget", ObjectName(pdb.metadata()));
  internal::CheckObjectName(pdb.metadata(), errors);
  const v1::PodDisruptionBudgetSpec& spec = pdb.spec();
  if (spec.has_selector()) CheckSelector(spec.selector(), errors);
  const bool has_min = IsSet(spec.has_min_available(), spec.min_available());
  const bool has_max =
      IsSet(spec.has_max_unavailable(), spec.max_unavailable());
  if (has_min) {
    CheckIntOrPercent(spec.min_available(), "spec.minAvailable", errors);
  }
  if (has_max) {
    CheckIntOrPercent(spec.max_unavailable(), "spec.maxUnavailable", errors);
  }
  if (has_min && has_max) {
    errors.Add(
        "spec",
        "minAvailable and maxUnavailable cannot be both set "
        "(ValidatePodDisruptionBudgetSpec)",
        absl::StrCat("minAvailable: ", ValueText(spec.min_available()),
                     ", maxUnavailable: ", ValueText(spec.max_unavailable())));
  }
  const std::string& policy = spec.unhealthy_pod_eviction_policy();
  if (!policy.empty() && policy != "IfHealthyBudget" &&
      policy != "AlwaysAllow") {
    errors.Add("spec.unhealthyPodEvictionPolicy",
               "Unsupported value: must be one of \"IfHealthyBudget\", "
               "\"AlwaysAllow\" (ValidatePodDisruptionBudgetSpec)",
               policy);
  }
  return errors.Take();
}

absl::Status ValidateNodePool(const v1::NodePool& node_pool) {
  return ToStatus(NodePoolErrors(node_pool));
}

absl::Status ValidateNodeClaim(const v1::NodeClaim& node_claim) {
  return ToStatus(NodeClaimErrors(node_claim));
}

absl::Status ValidatePodDisruptionBudget(const v1::PodDisruptionBudget& pdb) {
  return ToStatus(PodDisruptionBudgetErrors(pdb));
}

absl::Status ValidateNodeOverlay(const v1::NodeOverlay& overlay) {
  return ToStatus(NodeOverlayErrors(overlay));
}

std::string DescribeUncheckedKind(absl::string_view key) {
  const size_t paren = key.find(" (");
  if (paren != absl::string_view::npos && absl::EndsWith(key, ")")) {
    const absl::string_view kind = key.substr(0, paren);
    const absl::string_view api = key.substr(paren + 2, key.size() - paren - 3);
    return absl::StrCat(api, " ", kind, " (apiVersion not supported)");
  }
  if (key == "Provisioner" || key == "Machine") {
    return absl::StrCat("karpenter.sh/v1alpha5 ", key,
                        " (removed in Karpenter v0.33)");
  }
  if (key == "AWSNodeTemplate") {
    return "karpenter.k8s.aws/v1alpha1 AWSNodeTemplate (removed in Karpenter "
           "v0.33)";
  }
  if (absl::EndsWith(key, "NodeClass")) {
    return absl::StrCat(key, " (provider-specific)");
  }
  return absl::StrCat(key, " (unknown kind)");
}

std::vector<FieldError> NodePoolSdkAnnotationErrors(
    const v1::NodePool& node_pool) {
  std::vector<FieldError> out;
  const auto add = [&](std::string field, std::string value,
                       absl::string_view problem) {
    out.push_back(
        FieldError{.api_version = node_pool.api_version().empty()
                                      ? "karpenter.sh/v1"
                                      : node_pool.api_version(),
                   .kind = "NodePool",
                   .object = node_pool.metadata().name(),
                   .field = std::move(field),
                   .problem = absl::StrCat(problem, " (SDK annotation)"),
                   .value = std::move(value)});
  };
  const auto& annotations = node_pool.metadata().annotations();
  const auto field = [](absl::string_view key) {
    return absl::StrCat("metadata.annotations[\"", key, "\"]");
  };
  // The budget extensions (budget/extensions.h), then the disruption
  // controls (disruption/controls.h); together in key order.
  if (auto it =
          annotations.find(std::string(budget::kDisruptionCapacityAnnotation));
      it != annotations.end()) {
    absl::StatusOr<budget::CapacityBudgetSpec> spec =
        budget::ParseCapacityBudget(it->second);
    if (!spec.ok()) {
      add(field(it->first), it->second, spec.status().message());
    }
  }
  if (auto it =
          annotations.find(std::string(budget::kDisruptionRateAnnotation));
      it != annotations.end()) {
    absl::StatusOr<budget::RateBudgetSpec> spec =
        budget::ParseRateBudget(it->second);
    if (!spec.ok()) {
      add(field(it->first), it->second, spec.status().message());
    }
  }
  for (disruption::ControlError& e :
       disruption::NodePoolControlErrors(node_pool)) {
    add(std::move(e.field), std::move(e.value), e.problem);
  }
  return out;
}

SnapshotReport ValidateSnapshot(const snapshot::Snapshot& snapshot) {
  SnapshotReport report;
  for (const v1::NodePool& np : snapshot.node_pools()) {
    Append(NodePoolErrors(np), report.errors);
    Append(NodePoolSdkAnnotationErrors(np), report.errors);
  }
  for (const v1::NodeClaim& nc : snapshot.node_claims()) {
    Append(NodeClaimErrors(nc), report.errors);
  }
  for (const v1::PodDisruptionBudget& pdb : snapshot.pdbs()) {
    Append(PodDisruptionBudgetErrors(pdb), report.errors);
  }
  for (const v1::NodeOverlay& overlay : snapshot.node_overlays()) {
    Append(NodeOverlayErrors(overlay), report.errors);
  }
  internal::CheckDoNotDisruptWindows(snapshot, report);
  std::stable_sort(report.errors.begin(), report.errors.end(),
                   [](const FieldError& a, const FieldError& b) {
                     return std::tie(a.kind, a.object) <
                            std::tie(b.kind, b.object);
                   });
  if (!snapshot.node_pools().empty()) {
    report.checked["NodePool"] =
        static_cast<int64_t>(snapshot.node_pools().size());
  }
  if (!snapshot.node_claims().empty()) {
    report.checked["NodeClaim"] =
        static_cast<int64_t>(snapshot.node_claims().size());
  }
  if (!snapshot.pdbs().empty()) {
    report.checked["PodDisruptionBudget"] =
        static_cast<int64_t>(snapshot.pdbs().size());
  }
  if (!snapshot.node_overlays().empty()) {
    report.checked["NodeOverlay"] =
        static_cast<int64_t>(snapshot.node_overlays().size());
  }
  for (const auto& [key, count] : snapshot.skipped_kinds()) {
    report.not_checked[DescribeUncheckedKind(key)] += count;
  }
  return report;
}

}  // namespace karpenter::validation
