// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// NodePool and NodeClaim validation against the karpenter.sh CRDs (see
// karpenter/validation.h for the versions ported).

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "karpenter/budget/disruption_spec.h"
#include "karpenter/selector.h"
#include "karpenter/validation.h"
#include "karpenter/well_known.h"
#include "validation/patterns.h"

namespace karpenter::validation {
namespace {

using internal::Errors;

enum class Version { kV1, kV1Beta1 };
enum class Object { kNodePool, kNodeClaim };

constexpr size_t kMaxBudgets = 50;
constexpr size_t kMaxReasons = 50;
constexpr size_t kMaxRequirements = 100;
constexpr size_t kMaxLabels = 100;
constexpr size_t kMaxKeyLength = 316;
constexpr size_t kMaxLabelValueLength = 63;

constexpr char kKeyPattern[] =
    "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*(\\/))?"
    "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$";
constexpr char kLabelValuePattern[] =
    "^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$";

std::string Path(absl::string_view base, absl::string_view child) {
  return absl::StrCat(base, ".", child);
}

std::string Index(absl::string_view base, size_t i) {
  return absl::StrCat(base, "[", i, "]");
}

std::string OneOf(const std::vector<absl::string_view>& allowed) {
  return absl::StrCat("Unsupported value: must be one of \"",
                      absl::StrJoin(allowed, "\", \""), "\" (CRD enum)");
}

std::string UnknownField(Version v, absl::string_view hint) {
  return absl::StrCat("unknown field in ",
                      v == Version::kV1 ? well_known::kApiVersionV1
                                        : well_known::kApiVersionV1Beta1,
                      " (", hint, "; strict field validation)");
}

// The CEL rules on label keys (template labels and requirement keys) for
// `version` and `object`; `requirement` selects the requirement allow-list
// of v1beta1's kubernetes.io rule, which adds node.kubernetes.io/
// instance-type. Adds one error per failed rule.
void CheckRestrictedKey(Version version, Object object, bool requirement,
                        absl::string_view key, const std::string& field,
                        Errors& errors) {
  const absl::string_view domain = internal::LabelDomain(key);
  if (version == Version::kV1Beta1) {
    static constexpr absl::string_view kAllowed[] = {
        "beta.kubernetes.io/instance-type",
        "failure-domain.beta.kubernetes.io/region",
        "beta.kubernetes.io/os",
        "beta.kubernetes.io/arch",
        "failure-domain.beta.kubernetes.io/zone",
        "topology.kubernetes.io/zone",
        "topology.kubernetes.io/region",
        "kubernetes.io/arch",
        "kubernetes.io/os",
        "node.kubernetes.io/windows-build"};
    const bool allowed =
        absl::c_linear_search(kAllowed, key) ||
        (requirement && key == "node.kubernetes.io/instance-type") ||
        absl::EndsWith(domain, "node.kubernetes.io") ||
        absl::EndsWith(domain, "node-restriction.kubernetes.io") ||
        !absl::EndsWith(domain, "kubernetes.io");
    if (!allowed) {
      errors.Add(field,
                 "label domain \"kubernetes.io\" is restricted (CEL rule)",
                 key);
    }
    if (!absl::EndsWith(domain, "kops.k8s.io") &&
        absl::EndsWith(domain, "k8s.io")) {
      errors.Add(field, "label domain \"k8s.io\" is restricted (CEL rule)",
                 key);
    }
  }
  if (key != "karpenter.sh/capacity-type" && key != "karpenter.sh/nodepool" &&
      absl::EndsWith(domain, "karpenter.sh")) {
    errors.Add(field, "label domain \"karpenter.sh\" is restricted (CEL rule)",
               key);
  }
  if (object == Object::kNodePool && key == well_known::kNodePoolLabelKey) {
    errors.Add(field,
               "label \"karpenter.sh/nodepool\" is restricted (CEL rule)", key);
  }
  if (key == "kubernetes.io/hostname") {
    errors.Add(field,
               "label \"kubernetes.io/hostname\" is restricted (CEL rule)",
               key);
  }
}

void CheckRequirement(Version version, Object object,
                      const v1::NodeSelectorRequirement& r,
                      const std::string& field, Errors& errors) {
  const std::string key_field = Path(field, "key");
  if (r.key().empty()) {
    errors.Add(key_field, "Required value (CRD required)", r.key());
  } else if (r.key().size() > kMaxKeyLength) {
    errors.Add(key_field,
               "Too long: may not be longer than 316 (CRD maxLength)", r.key());
  } else if (!internal::MatchesQualifiedKey(r.key())) {
    errors.Add(key_field,
               absl::StrCat("must match ", kKeyPattern, " (CRD pattern)"),
               r.key());
  } else {
    CheckRestrictedKey(version, object, /*requirement=*/true, r.key(),
                       key_field, errors);
  }
  const std::string& op = r.operator_();
  const bool v1 = version == Version::kV1;
  std::vector<absl::string_view> ops = {"In",           "NotIn", "Exists",
                                        "DoesNotExist", "Gt",    "Lt"};
  if (v1) {
    ops.push_back("Gte");
    ops.push_back("Lte");
  }
  const std::string op_field = Path(field, "operator");
  if (op.empty()) {
    errors.Add(op_field, "Required value (CRD required)", op);
  } else if (!absl::c_linear_search(ops, op)) {
    errors.Add(op_field, OneOf(ops), op);
  }
  for (int i = 0; i < r.values_size(); ++i) {
    const std::string& value = r.values(i);
    const std::string value_field = Index(Path(field, "values"), i);
    if (value.size() > kMaxLabelValueLength) {
      errors.Add(value_field,
                 "Too long: may not be longer than 63 (CRD maxLength)", value);
    } else if (!internal::MatchesLabelValue(value)) {
      errors.Add(
          value_field,
          absl::StrCat("must match ", kLabelValuePattern, " (CRD pattern)"),
          value);
    }
  }
  const std::string values_text = absl::StrJoin(r.values(), ",");
  if (op == "In" && r.values_size() == 0) {
    errors.Add(Path(field, "values"),
               "requirements with operator 'In' must have a value defined "
               "(CEL rule)",
               values_text);
  }
  const bool comparison =
      op == "Gt" || op == "Lt" || (v1 && (op == "Gte" || op == "Lte"));
  if (comparison &&
      (r.values_size() != 1 || !internal::IsNonNegativeCelInt(r.values(0)))) {
    errors.Add(Path(field, "values"),
               v1 ? "requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must "
                    "have a single positive integer value (CEL rule)"
                  : "requirements operator 'Gt' or 'Lt' must have a single "
                    "positive integer value (CEL rule)",
               values_text);
  }
  if (r.has_min_values()) {
    const std::string mv_field = Path(field, "minValues");
    const std::string mv = absl::StrCat(r.min_values());
    if (r.min_values() < 1 || r.min_values() > 50) {
      errors.Add(mv_field, "must be between 1 and 50 (CRD minimum/maximum)",
                 mv);
    }
    if (op == "In" && r.values_size() < r.min_values()) {
      errors.Add(mv_field,
                 absl::StrCat("requirements with 'minValues' must have at "
                              "least that many values specified in the "
                              "'values' field (CEL rule; ",
                              r.values_size(), " values)"),
                 mv);
    }
  }
}

void CheckRequirements(
    Version version, Object object,
    const google::protobuf::RepeatedPtrField<v1::NodeSelectorRequirement>& reqs,
    const std::string& field, Errors& errors) {
  if (static_cast<size_t>(reqs.size()) > kMaxRequirements) {
    errors.Add(field, "Too many: must have at most 100 items (CRD maxItems)",
               absl::StrCat(reqs.size(), " items"));
  }
  for (int i = 0; i < reqs.size(); ++i) {
    CheckRequirement(version, object, reqs[i], Index(field, i), errors);
  }
}

void CheckTaints(const google::protobuf::RepeatedPtrField<v1::Taint>& taints,
                 const std::string& field, Errors& errors) {
  for (int i = 0; i < taints.size(); ++i) {
    const v1::Taint& t = taints[i];
    const std::string base = Index(field, i);
    if (t.key().empty()) {
      errors.Add(Path(base, "key"), "Required value (CRD required)", t.key());
    } else if (!internal::MatchesQualifiedKey(t.key())) {
      errors.Add(Path(base, "key"),
                 absl::StrCat("must match ", kKeyPattern, " (CRD pattern)"),
                 t.key());
    }
    if (!t.value().empty() && !internal::MatchesQualifiedKey(t.value())) {
      errors.Add(Path(base, "value"),
                 absl::StrCat("must match ", kKeyPattern, " (CRD pattern)"),
                 t.value());
    }
    const std::vector<absl::string_view> effects = {
        "NoSchedule", "PreferNoSchedule", "NoExecute"};
    if (t.effect().empty()) {
      errors.Add(Path(base, "effect"), "Required value (CRD required)",
                 t.effect());
    } else if (!absl::c_linear_search(effects, t.effect())) {
      errors.Add(Path(base, "effect"), OneOf(effects), t.effect());
    }
  }
}

void CheckQuantities(const google::protobuf::Map<std::string, std::string>& m,
                     const std::string& field, Errors& errors) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : m) keys.push_back(k);
  absl::c_sort(keys);
  for (const std::string& k : keys) {
    const std::string& v = m.at(k);
    if (!internal::MatchesQuantity(v)) {
      errors.Add(Path(field, k),
                 "must be a quantity such as 100m, 2, 1.5Gi or 1e3 (CRD "
                 "int-or-string pattern)",
                 v);
    }
  }
}

// Karpenter's NodePool RuntimeValidate (pkg/apis/v1/nodeclaim_validation.go
// `validateTaints`): a key/effect pair may appear once across taints and
// startupTaints, or the NodePool is marked not ready.
void CheckDuplicateTaints(const v1::NodeClaimSpec& s, const std::string& field,
                          Errors& errors) {
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& [list, name] :
       {std::make_pair(&s.taints(), "taints"),
        std::make_pair(&s.startup_taints(), "startupTaints")}) {
    for (int i = 0; i < list->size(); ++i) {
      const v1::Taint& t = (*list)[i];
      if (!seen.emplace(t.key(), t.effect()).second) {
        errors.Add(Index(Path(field, name), i),
                   "duplicate taint key/effect pair (Karpenter "
                   "RuntimeValidate: the NodePool is not ready)",
                   absl::StrCat(t.key(), ":", t.effect()));
      }
    }
  }
}

// `spec.template.spec.nodeClassRef` (NodePool) or `spec.nodeClassRef`.
void CheckNodeClassRef(Version version, const v1::NodeClassReference& ref,
                       const std::string& field, Errors& errors) {
  if (version == Version::kV1Beta1) {
    if (ref.name().empty()) {
      errors.Add(Path(field, "name"), "Required value (CRD required)",
                 ref.name());
    }
    if (!ref.group().empty()) {
      errors.Add(Path(field, "group"),
                 UnknownField(version, "v1 spelling; v1beta1 has apiVersion"),
                 ref.group());
    }
    return;
  }
  if (ref.group().empty()) {
    errors.Add(Path(field, "group"), "group may not be empty (CEL rule)",
               ref.group());
  } else if (absl::StrContains(ref.group(), '/')) {
    errors.Add(Path(field, "group"), "must match ^[^/]*$ (CRD pattern)",
               ref.group());
  }
  if (ref.kind().empty()) {
    errors.Add(Path(field, "kind"), "kind may not be empty (CEL rule)",
               ref.kind());
  }
  if (ref.name().empty()) {
    errors.Add(Path(field, "name"), "name may not be empty (CEL rule)",
               ref.name());
  }
  if (!ref.api_version().empty()) {
    errors.Add(Path(field, "apiVersion"),
               UnknownField(version, "v1beta1 spelling; v1 has group"),
               ref.api_version());
  }
}

void CheckNillableDuration(Version version, const std::string& value,
                           const std::string& field, Errors& errors) {
  if (version == Version::kV1) {
    if (!internal::MatchesNillableDurationV1(value)) {
      errors.Add(field,
                 "must match ^(([0-9]+(s|m|h))+|Never)$ (CRD pattern; Go "
                 "durations have no 'd')",
                 value);
    }
    return;
  }
  if (!internal::MatchesNillableDurationV1Beta1(value)) {
    errors.Add(field,
               "must match ^(([0-9]+(s|m|h))+)|(Never)$ (CRD pattern; Go "
               "durations have no 'd')",
               value);
  } else if (value != "Never" && !internal::MatchesDuration(value)) {
    // The pattern's alternation only anchors one side; Karpenter's decoder
    // (time.ParseDuration) still rejects the rest.
    errors.Add(field,
               "must be a Go duration of s, m and h or \"Never\" (v1beta1 "
               "NillableDuration decoding)",
               value);
  }
}

// The spec shared by NodePool templates and NodeClaims. `field` is
// "spec.template.spec" or "spec".
void CheckClaimSpec(Version version, Object object, const v1::NodeClaimSpec& s,
                    const std::string& field, Errors& errors) {
  if (s.has_node_class_ref()) {
    CheckNodeClassRef(version, s.node_class_ref(), Path(field, "nodeClassRef"),
                      errors);
  } else {
    errors.Add(Path(field, "nodeClassRef"), "Required value (CRD required)",
               "");
  }
  CheckRequirements(version, object, s.requirements(),
                    Path(field, "requirements"), errors);
  CheckTaints(s.taints(), Path(field, "taints"), errors);
  CheckTaints(s.startup_taints(), Path(field, "startupTaints"), errors);
  if (object == Object::kNodePool) CheckDuplicateTaints(s, field, errors);
  const bool v1 = version == Version::kV1;
  if (s.has_expire_after()) {
    if (v1) {
      CheckNillableDuration(version, s.expire_after(),
                            Path(field, "expireAfter"), errors);
    } else {
      errors.Add(Path(field, "expireAfter"),
                 UnknownField(version, object == Object::kNodePool
                                           ? "v1 spelling; v1beta1 has "
                                             "spec.disruption.expireAfter"
                                           : "added in karpenter.sh/v1"),
                 s.expire_after());
    }
  }
  if (s.has_termination_grace_period()) {
    if (!v1) {
      errors.Add(Path(field, "terminationGracePeriod"),
                 UnknownField(version, "added in karpenter.sh/v1"),
                 s.termination_grace_period());
    } else if (!internal::MatchesDuration(s.termination_grace_period())) {
      errors.Add(Path(field, "terminationGracePeriod"),
                 "must match ^([0-9]+(s|m|h))+$ (CRD pattern; Go durations "
                 "have no 'd')",
                 s.termination_grace_period());
    }
  }
  const v1::ResourceRequirements& res = s.resources();
  if (object == Object::kNodeClaim) {
    CheckQuantities(res.requests(), Path(field, "resources.requests"), errors);
    if (!res.limits().empty()) {
      errors.Add(Path(field, "resources.limits"),
                 UnknownField(version, "NodeClaims take requests only"),
                 absl::StrCat(res.limits().size(), " entries"));
    }
  } else if (!res.requests().empty() || !res.limits().empty()) {
    errors.Add(
        Path(field, "resources"),
        v1 ? UnknownField(version,
                          "a NodePool template has no "
                          "resources")
           : "Too many: must have at most 0 properties (CRD "
             "maxProperties)",
        absl::StrCat(res.requests().size() + res.limits().size(), " entries"));
  }
}

void CheckLabels(Version version,
                 const google::protobuf::Map<std::string, std::string>& labels,
                 const std::string& field, Errors& errors) {
  if (labels.size() > kMaxLabels) {
    errors.Add(field,
               "Too many: must have at most 100 properties (CRD "
               "maxProperties)",
               absl::StrCat(labels.size(), " entries"));
  }
  std::vector<std::string> keys;
  for (const auto& [k, v] : labels) keys.push_back(k);
  absl::c_sort(keys);
  for (const std::string& k : keys) {
    const std::string& v = labels.at(k);
    const std::string value_field = Path(field, k);
    if (v.size() > kMaxLabelValueLength) {
      errors.Add(value_field,
                 "Too long: may not be longer than 63 (CRD maxLength)", v);
    } else if (!internal::MatchesLabelValue(v)) {
      errors.Add(
          value_field,
          absl::StrCat("must match ", kLabelValuePattern, " (CRD pattern)"), v);
    }
    CheckRestrictedKey(version, Object::kNodePool, /*requirement=*/false, k,
                       field, errors);
    // Karpenter's NodePool RuntimeValidate (nodepool_validation.go
    // `validateLabels`): keys must be qualified names.
    if (absl::Status key_status = ValidateLabelKey(k, field);
        !key_status.ok()) {
      const absl::string_view m = key_status.message();
      const size_t at = m.rfind("\": ");
      errors.Add(
          field,
          absl::StrCat(at == absl::string_view::npos ? m : m.substr(at + 3),
                       " (Karpenter RuntimeValidate: the NodePool is "
                       "not ready)"),
          k);
    }
  }
}

void CheckBudget(Version version, const v1::Budget& b, const std::string& base,
                 Errors& errors) {
  if (!b.nodes().empty() && !internal::MatchesBudgetNodes(b.nodes())) {
    errors.Add(Path(base, "nodes"),
               "must match ^((100|[0-9]{1,2})%|[0-9]+)$ (CRD pattern)",
               b.nodes());
  }
  if (b.has_schedule() && !internal::MatchesSchedule(b.schedule())) {
    errors.Add(Path(base, "schedule"),
               "must be a cron expression of five fields or @annually, "
               "@yearly, @monthly, @weekly, @daily, @midnight or @hourly "
               "(CRD pattern)",
               b.schedule());
  }
  if (b.has_duration() && !internal::MatchesBudgetDuration(b.duration())) {
    errors.Add(Path(base, "duration"),
               "must match ^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$ (CRD "
               "pattern: hours and minutes)",
               b.duration());
  }
  if (b.has_schedule() != b.has_duration()) {
    errors.Add(
        b.has_schedule() ? Path(base, "duration") : Path(base, "schedule"),
        "'schedule' must be set with 'duration' (CEL rule)",
        b.has_schedule() ? b.schedule() : b.duration());
  }
  const std::string reasons_field = Path(base, "reasons");
  if (version == Version::kV1Beta1) {
    if (b.reasons_size() > 0 || b.reasons_explicitly_empty()) {
      errors.Add(reasons_field,
                 UnknownField(version, "added in karpenter.sh/v1"),
                 absl::StrJoin(b.reasons(), ","));
    }
    return;
  }
  if (static_cast<size_t>(b.reasons_size()) > kMaxReasons) {
    errors.Add(reasons_field,
               "Too many: must have at most 50 items (CRD maxItems)",
               absl::StrCat(b.reasons_size(), " items"));
  }
  const std::vector<absl::string_view> reasons = {"Underutilized", "Empty",
                                                  "Drifted"};
  std::set<std::string> seen;
  for (int i = 0; i < b.reasons_size(); ++i) {
    const std::string& r = b.reasons(i);
    if (!absl::c_linear_search(reasons, r)) {
      errors.Add(Index(reasons_field, i), OneOf(reasons), r);
    } else if (!seen.insert(r).second) {
      errors.Add(Index(reasons_field, i),
                 "Duplicate value (CRD x-kubernetes-list-type: set)", r);
    }
  }
}

// What the CRD accepts but Karpenter cannot evaluate (fails closed).
void CheckRuntime(const v1::NodePool& np, Errors& errors) {
  absl::StatusOr<budget::DisruptionSpec> spec = budget::ParseDisruptionSpec(np);
  if (!spec.ok()) return;  // The CRD checks above report these.
  for (size_t i = 0; i < spec->budgets.size(); ++i) {
    const budget::Budget& b = spec->budgets[i];
    const std::string base = Index("spec.disruption.budgets", i);
    if (!b.nodes.ok()) {
      // The parser's message may already name the field.
      errors.Add(Path(base, "nodes"),
                 absl::StrCat(absl::StripPrefix(b.nodes.status().message(),
                                                Path(base, "nodes") + ": "),
                              " (Karpenter fails closed at run time)"),
                 b.nodes_text);
    }
    if (b.schedule.has_value() && !b.cron.ok()) {
      errors.Add(Path(base, "schedule"),
                 absl::StrCat(b.cron.status().message(),
                              " (Karpenter fails closed at run time)"),
                 *b.schedule);
    }
  }
}

void CheckDisruption(Version version, const v1::Disruption& d, Errors& errors) {
  const std::string field = "spec.disruption";
  const bool v1 = version == Version::kV1;
  const std::string& policy = d.consolidation_policy();
  const std::vector<absl::string_view> policies =
      v1 ? std::vector<absl::string_view>{"WhenEmpty",
                                          "WhenEmptyOrUnderutilized",
                                          "Balanced"}
         : std::vector<absl::string_view>{"WhenEmpty", "WhenUnderutilized"};
  if (!policy.empty() && !absl::c_linear_search(policies, policy)) {
    std::string problem = OneOf(policies);
    if (v1 && policy == "WhenUnderutilized") {
      absl::StrAppend(&problem,
                      "; WhenUnderutilized is karpenter.sh/v1beta1's "
                      "spelling of WhenEmptyOrUnderutilized");
    } else if (!v1 && policy == "WhenEmptyOrUnderutilized") {
      absl::StrAppend(&problem,
                      "; WhenEmptyOrUnderutilized is karpenter.sh/v1's "
                      "spelling of WhenUnderutilized");
    }
    errors.Add(Path(field, "consolidationPolicy"), problem, policy);
  }
  if (d.has_consolidate_after()) {
    CheckNillableDuration(version, d.consolidate_after(),
                          Path(field, "consolidateAfter"), errors);
  }
  if (!v1) {
    // The CRD default is WhenUnderutilized; CEL sees the defaulted value.
    const std::string effective = policy.empty() ? "WhenUnderutilized" : policy;
    if (d.has_consolidate_after() && effective == "WhenUnderutilized" &&
        d.consolidate_after() != "Never") {
      errors.Add(Path(field, "consolidateAfter"),
                 "consolidateAfter cannot be combined with "
                 "consolidationPolicy=WhenUnderutilized (CEL rule)",
                 d.consolidate_after());
    }
    if (effective == "WhenEmpty" && !d.has_consolidate_after()) {
      errors.Add(Path(field, "consolidateAfter"),
                 "consolidateAfter must be specified with "
                 "consolidationPolicy=WhenEmpty (CEL rule)",
                 "");
    }
  }
  if (d.has_expire_after()) {
    if (v1) {
      errors.Add(Path(field, "expireAfter"),
                 UnknownField(version,
                              "v1beta1 spelling; v1 has "
                              "spec.template.spec.expireAfter"),
                 d.expire_after());
    } else {
      CheckNillableDuration(version, d.expire_after(),
                            Path(field, "expireAfter"), errors);
    }
  }
  const std::string budgets = Path(field, "budgets");
  if (static_cast<size_t>(d.budgets_size()) > kMaxBudgets) {
    errors.Add(budgets, "Too many: must have at most 50 items (CRD maxItems)",
               absl::StrCat(d.budgets_size(), " items"));
  }
  for (int i = 0; i < d.budgets_size(); ++i) {
    CheckBudget(version, d.budgets(i), Index(budgets, i), errors);
  }
}

// "karpenter.sh/v1", "karpenter.sh/v1beta1" or empty (checked as v1).
bool ParseVersion(const std::string& api_version, Version& version) {
  if (api_version.empty() || api_version == well_known::kApiVersionV1) {
    version = Version::kV1;
    return true;
  }
  if (api_version == well_known::kApiVersionV1Beta1) {
    version = Version::kV1Beta1;
    return true;
  }
  return false;
}

std::string ShownVersion(const std::string& api_version) {
  return api_version.empty() ? std::string(well_known::kApiVersionV1)
                             : api_version;
}

}  // namespace

std::vector<FieldError> NodePoolErrors(const v1::NodePool& np) {
  Errors errors(ShownVersion(np.api_version()), "NodePool",
                np.metadata().name());
  Version version = Version::kV1;
  if (!ParseVersion(np.api_version(), version)) {
    errors.Add("apiVersion",
               "must be karpenter.sh/v1 or karpenter.sh/v1beta1 (served "
               "versions)",
               np.api_version());
    return errors.Take();
  }
  internal::CheckObjectName(np.metadata(), errors);
  const v1::NodePoolSpec& spec = np.spec();
  if (!spec.has_template_()) {
    errors.Add("spec.template", "Required value (CRD required)", "");
  } else {
    CheckLabels(version, spec.template_().metadata().labels(),
                "spec.template.metadata.labels", errors);
    if (spec.template_().has_spec()) {
      CheckClaimSpec(version, Object::kNodePool, spec.template_().spec(),
                     "spec.template.spec", errors);
    } else {
      errors.Add("spec.template.spec", "Required value (CRD required)", "");
    }
  }
  CheckDisruption(version, spec.disruption(), errors);
  CheckRuntime(np, errors);
  CheckQuantities(spec.limits(), "spec.limits", errors);
  if (spec.has_weight() && (spec.weight() < 1 || spec.weight() > 100)) {
    errors.Add("spec.weight", "must be between 1 and 100 (CRD minimum/maximum)",
               absl::StrCat(spec.weight()));
  }
  if (spec.has_replicas()) {
    const std::string replicas = absl::StrCat(spec.replicas());
    if (version == Version::kV1Beta1) {
      errors.Add("spec.replicas",
                 UnknownField(version, "static NodePools are karpenter.sh/v1"),
                 replicas);
    } else {
      if (spec.replicas() < 0) {
        errors.Add("spec.replicas",
                   "must be greater than or equal to 0 (CRD minimum)",
                   replicas);
      }
      const bool only_nodes =
          spec.limits().empty() ||
          (spec.limits().size() == 1 && spec.limits().contains("nodes"));
      if (!only_nodes) {
        std::vector<std::string> keys;
        for (const auto& [k, v] : spec.limits()) keys.push_back(k);
        absl::c_sort(keys);
        errors.Add("spec.limits",
                   "only 'limits.nodes' is supported on static NodePools (CEL "
                   "rule)",
                   absl::StrJoin(keys, ","));
      }
      if (spec.has_weight()) {
        errors.Add("spec.weight",
                   "'weight' is not supported on static NodePools (CEL rule)",
                   absl::StrCat(spec.weight()));
      }
    }
  }
  return errors.Take();
}

std::vector<FieldError> NodeClaimErrors(const v1::NodeClaim& nc) {
  Errors errors(ShownVersion(nc.api_version()), "NodeClaim",
                nc.metadata().name());
  Version version = Version::kV1;
  if (!ParseVersion(nc.api_version(), version)) {
    errors.Add("apiVersion",
               "must be karpenter.sh/v1 or karpenter.sh/v1beta1 (served "
               "versions)",
               nc.api_version());
    return errors.Take();
  }
  internal::CheckObjectName(nc.metadata(), errors);
  if (nc.has_spec()) {
    CheckClaimSpec(version, Object::kNodeClaim, nc.spec(), "spec", errors);
  } else {
    errors.Add("spec", "Required value (CRD required)", "");
  }
  return errors.Take();
}

namespace {

// `^\d+(\.\d+)?$`.
bool MatchesPrice(absl::string_view s) {
  const size_t dot = s.find('.');
  const absl::string_view whole = s.substr(0, dot);
  const auto digits = [](absl::string_view d) {
    return !d.empty() &&
           absl::c_all_of(d, [](char c) { return c >= '0' && c <= '9'; });
  };
  if (!digits(whole)) return false;
  return dot == absl::string_view::npos || digits(s.substr(dot + 1));
}

// `\d*\.?\d+`.
bool MatchesUnsignedDecimal(absl::string_view s) {
  const size_t dot = s.find('.');
  const auto digits = [](absl::string_view d) {
    return absl::c_all_of(d, [](char c) { return c >= '0' && c <= '9'; });
  };
  if (dot == absl::string_view::npos) return !s.empty() && digits(s);
  return digits(s.substr(0, dot)) && s.size() > dot + 1 &&
         digits(s.substr(dot + 1));
}

// `^(([+-]{1}(\d*\.?\d+))|(\+{1}\d*\.?\d+%)|(^(-\d{1,2}(\.\d+)?%)$)|(-100%))$`.
bool MatchesPriceAdjustment(absl::string_view s) {
  if (s.size() < 2 || (s[0] != '+' && s[0] != '-')) return false;
  const bool plus = s[0] == '+';
  absl::string_view rest = s.substr(1);
  if (!absl::ConsumeSuffix(&rest, "%")) return MatchesUnsignedDecimal(rest);
  if (plus) return MatchesUnsignedDecimal(rest);
  if (rest == "100") return true;
  const size_t dot = rest.find('.');
  const absl::string_view whole = rest.substr(0, dot);
  if (whole.empty() || whole.size() > 2 ||
      !absl::c_all_of(whole, [](char c) { return c >= '0' && c <= '9'; })) {
    return false;
  }
  if (dot == absl::string_view::npos) return true;
  const absl::string_view frac = rest.substr(dot + 1);
  return !frac.empty() &&
         absl::c_all_of(frac, [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::vector<FieldError> NodeOverlayErrors(const v1::NodeOverlay& overlay) {
  Errors errors(overlay.api_version().empty()
                    ? std::string(well_known::kApiVersionV1Alpha1)
                    : overlay.api_version(),
                "NodeOverlay", overlay.metadata().name());
  if (!overlay.api_version().empty() &&
      overlay.api_version() != well_known::kApiVersionV1Alpha1) {
    errors.Add("apiVersion", "must be karpenter.sh/v1alpha1 (served version)",
               overlay.api_version());
    return errors.Take();
  }
  internal::CheckObjectName(overlay.metadata(), errors);
  const v1::NodeOverlaySpec& spec = overlay.spec();
  if (static_cast<size_t>(spec.requirements_size()) > kMaxRequirements) {
    errors.Add("spec.requirements",
               "Too many: must have at most 100 items (CRD maxItems)",
               absl::StrCat(spec.requirements_size()));
  }
  for (int i = 0; i < spec.requirements_size(); ++i) {
    const v1::NodeSelectorRequirement& r = spec.requirements(i);
    const std::string field = Index("spec.requirements", i);
    CheckRequirement(Version::kV1, Object::kNodeClaim, r, field, errors);
    if (r.operator_() == "NotIn" && r.values_size() == 0) {
      errors.Add(Path(field, "values"),
                 "requirements with operator 'NotIn' must have a value "
                 "defined (CEL rule)",
                 "");
    }
  }
  if (spec.has_price() && !MatchesPrice(spec.price())) {
    errors.Add("spec.price", "must match ^\\d+(\\.\\d+)?$ (CRD pattern)",
               spec.price());
  }
  if (spec.has_price_adjustment() &&
      !MatchesPriceAdjustment(spec.price_adjustment())) {
    errors.Add("spec.priceAdjustment",
               "must be a signed amount (\"+0.1\", \"-0.1\"), \"+N%\", "
               "\"-N%\" below 100 or \"-100%\" (CRD pattern)",
               spec.price_adjustment());
  }
  if (spec.has_price() && spec.has_price_adjustment()) {
    errors.Add("spec",
               "cannot set both 'price' and 'priceAdjustment' (CEL "
               "rule)",
               "");
  }
  std::vector<std::string> keys;
  for (const auto& [k, v] : spec.capacity()) keys.push_back(k);
  absl::c_sort(keys);
  for (const std::string& k : keys) {
    if (k == "cpu" || k == "memory" || k == "ephemeral-storage" ||
        k == "pods") {
      errors.Add(Path("spec.capacity", k),
                 "invalid resource restricted (CEL rule; cpu, memory, "
                 "ephemeral-storage and pods come from the instance type)",
                 k);
    }
  }
  CheckQuantities(spec.capacity(), "spec.capacity", errors);
  if (spec.has_weight() && (spec.weight() < 1 || spec.weight() > 10000)) {
    errors.Add("spec.weight",
               "must be between 1 and 10000 (CRD minimum/maximum)",
               absl::StrCat(spec.weight()));
  }
  return errors.Take();
}

}  // namespace karpenter::validation
