// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#include "karpenter/disruption/controls.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "karpenter/conditions.h"
#include "karpenter/duration.h"
#include "karpenter/taints.h"
#include "karpenter/well_known.h"

namespace karpenter::disruption {
namespace {

bool AllDigits(absl::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// "<0..100>%" with ASCII digits, or nullopt when `s` is not of that form.
std::optional<int64_t> Percent(absl::string_view s) {
  if (s.size() < 2 || s.back() != '%') return std::nullopt;
  s.remove_suffix(1);
  int64_t v = 0;
  if (!AllDigits(s) || s.size() > 3 || !absl::SimpleAtoi(s, &v) || v > 100) {
    return std::nullopt;
  }
  return v;
}

// A Go duration without trailing zero units: "24h", "1h30m", "90s".
std::string ShortDuration(absl::Duration d) {
  std::string s = FormatGoDuration(d);
  if (absl::EndsWith(s, "m0s")) s.resize(s.size() - 2);
  if (absl::EndsWith(s, "h0m")) s.resize(s.size() - 2);
  return s;
}

std::string AnnotationField(absl::string_view key) {
  return absl::StrCat("metadata.annotations[\"", key, "\"]");
}

}  // namespace

std::string ControlError::ToString() const {
  return absl::StrCat(field, ": \"", absl::CEscape(value), "\": ", problem);
}

absl::StatusOr<int64_t> ParseMaxDisruptingZones(absl::string_view text) {
  int64_t v = 0;
  if (!AllDigits(text) || text.size() > 4 || !absl::SimpleAtoi(text, &v) ||
      v < 1 || v > 1000) {
    return absl::InvalidArgumentError(
        "must be an integer between 1 and 1000 (the number of zones)");
  }
  return v;
}

absl::StatusOr<SoftExpirationSpec> ParseSoftExpiration(absl::string_view text) {
  SoftExpirationSpec out;
  bool has_budget = false;
  bool has_ceiling = false;
  if (text.empty()) {
    return absl::InvalidArgumentError(
        "must be budget=<nodes>,ceiling=<duration>, e.g. "
        "\"budget=1,ceiling=24h\"");
  }
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    const size_t eq = part.find('=');
    if (eq == absl::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("\"", part,
                       "\": must be key=value with key budget or ceiling, e.g. "
                       "\"budget=1,ceiling=24h\""));
    }
    const absl::string_view key = part.substr(0, eq);
    const absl::string_view value = part.substr(eq + 1);
    if (key == "budget") {
      if (has_budget) return absl::InvalidArgumentError("budget given twice");
      has_budget = true;
      int64_t n = 0;
      if (AllDigits(value) && value.size() <= 18 &&
          absl::SimpleAtoi(value, &n)) {
        out.budget = IntOrPercent::FromInt(n);
      } else if (std::optional<int64_t> p = Percent(value); p.has_value()) {
        out.budget = IntOrPercent::FromPercent(*p);
      } else {
        return absl::InvalidArgumentError(absl::StrCat(
            "budget \"", value,
            "\": must be a non-negative integer or a percentage 0%..100%"));
      }
    } else if (key == "ceiling") {
      if (has_ceiling) return absl::InvalidArgumentError("ceiling given twice");
      has_ceiling = true;
      if (value == "Never") {
        out.ceiling = std::nullopt;
        continue;
      }
      absl::StatusOr<absl::Duration> d = ParseGoDuration(value);
      if (!d.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("ceiling: ", d.status().message()));
      }
      if (*d < absl::ZeroDuration()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "ceiling \"", value, "\": must be a duration >= 0 or Never"));
      }
      out.ceiling = *d;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown key \"", key, "\": the keys are budget and ceiling"));
    }
  }
  if (!has_ceiling) {
    return absl::InvalidArgumentError(
        "ceiling is required (a duration past expireAfter, or Never), e.g. "
        "\"budget=1,ceiling=24h\"");
  }
  return out;
}

absl::StatusOr<MinSavingsSpec> ParseMinSavings(absl::string_view text) {
  MinSavingsSpec out;
  if (!text.empty() && text.back() == '%') {
    std::optional<int64_t> p = Percent(text);
    if (!p.has_value() || *p < 1) {
      return absl::InvalidArgumentError(
          "percent must be an integer between 1% and 100%");
    }
    out.percent = *p;
    return out;
  }
  // A plain decimal: digits with at most one '.', no sign, no exponent.
  bool dot = false;
  bool digit = false;
  for (char c : text) {
    if (c == '.' && !dot) {
      dot = true;
    } else if (absl::ascii_isdigit(static_cast<unsigned char>(c))) {
      digit = true;
    } else {
      digit = false;
      break;
    }
  }
  double v = 0;
  if (!digit || !absl::SimpleAtod(text, &v) || !std::isfinite(v) || v <= 0) {
    return absl::InvalidArgumentError(
        "must be an amount per hour > 0 (e.g. \"0.05\") or a percentage of "
        "the candidates' price (e.g. \"10%\")");
  }
  out.per_hour = v;
  return out;
}

absl::StatusOr<int64_t> ParseMaxReplacements(absl::string_view text) {
  if (text == "1") return 1;
  if (text == "2") return 2;
  return absl::InvalidArgumentError("must be 1 or 2");
}

std::string FormatSoftExpiration(const SoftExpirationSpec& spec) {
  std::string out;
  if (spec.budget.has_value()) {
    absl::StrAppend(&out, "budget=", spec.budget->ToString(), ",");
  }
  absl::StrAppend(
      &out, "ceiling=",
      spec.ceiling.has_value() ? ShortDuration(*spec.ceiling) : "Never");
  return out;
}

std::string FormatMinSavings(const MinSavingsSpec& spec) {
  if (spec.percent.has_value()) return absl::StrCat(*spec.percent, "%");
  // The shortest fixed-point text that reads back as the same double.
  char buffer[512];
  const std::to_chars_result r =
      std::to_chars(buffer, buffer + sizeof(buffer), spec.per_hour.value_or(0),
                    std::chars_format::fixed);
  if (r.ec != std::errc()) return absl::StrCat(spec.per_hour.value_or(0));
  return std::string(buffer, r.ptr);
}

std::vector<ControlError> NodePoolControlErrors(const v1::NodePool& node_pool) {
  std::vector<ControlError> out;
  const auto& annotations = node_pool.metadata().annotations();
  // In key order (the keys sort as listed).
  const auto check = [&](absl::string_view key, auto parse) {
    auto it = annotations.find(std::string(key));
    if (it == annotations.end()) return;
    auto parsed = parse(it->second);
    if (!parsed.ok()) {
      out.push_back(
          ControlError{.field = AnnotationField(key),
                       .value = it->second,
                       .problem = std::string(parsed.status().message())});
    }
  };
  check(well_known::kConsolidationMaxReplacementsAnnotationKey,
        ParseMaxReplacements);
  check(well_known::kConsolidationMinSavingsAnnotationKey, ParseMinSavings);
  check(well_known::kMaxDisruptingZonesAnnotationKey, ParseMaxDisruptingZones);
  check(well_known::kSoftExpirationAnnotationKey, ParseSoftExpiration);
  return out;
}

absl::StatusOr<NodePoolControls> ParseNodePoolControls(
    const v1::NodePool& node_pool) {
  const std::vector<ControlError> errors = NodePoolControlErrors(node_pool);
  if (!errors.empty()) {
    std::vector<std::string> lines;
    for (const ControlError& e : errors) lines.push_back(e.ToString());
    return absl::InvalidArgumentError(absl::StrJoin(lines, "\n"));
  }
  NodePoolControls out;
  const auto& annotations = node_pool.metadata().annotations();
  const auto find = [&](absl::string_view key) -> const std::string* {
    auto it = annotations.find(std::string(key));
    return it == annotations.end() ? nullptr : &it->second;
  };
  if (const std::string* v =
          find(well_known::kConsolidationMaxReplacementsAnnotationKey)) {
    out.max_replacements = *ParseMaxReplacements(*v);
  }
  if (const std::string* v =
          find(well_known::kConsolidationMinSavingsAnnotationKey)) {
    out.min_savings = *ParseMinSavings(*v);
  }
  if (const std::string* v =
          find(well_known::kMaxDisruptingZonesAnnotationKey)) {
    out.max_disrupting_zones = *ParseMaxDisruptingZones(*v);
  }
  if (const std::string* v = find(well_known::kSoftExpirationAnnotationKey)) {
    out.soft_expiration = *ParseSoftExpiration(*v);
  }
  return out;
}

SavingsCheck CheckMinSavings(const MinSavingsSpec& spec,
                             double candidates_price,
                             double replacements_price) {
  SavingsCheck out;
  out.savings = candidates_price - replacements_price;
  out.required =
      spec.percent.has_value()
          ? candidates_price * static_cast<double>(*spec.percent) / 100.0
          : spec.per_hour.value_or(0);
  out.ok = out.savings >= out.required;
  out.why = absl::StrFormat(
      "saves %.4f/h (%.4f -> %.4f), %s the NodePool's minimum %.4f/h "
      "(consolidation-min-savings \"%s\")",
      out.savings, candidates_price, replacements_price,
      out.ok ? "at least" : "below", out.required, FormatMinSavings(spec));
  return out;
}

budget::Allowance ExpirationAllowance(const SoftExpirationSpec& spec,
                                      const budget::DisruptionSpec& disruption,
                                      int64_t total_nodes, absl::Time now) {
  // Budgets that list reasons match no reason here; the others (Karpenter's
  // "every reason") apply, and any budget failing to evaluate fails the
  // NodePool closed, as for Karpenter's reasons.
  budget::DisruptionSpec reasonless = disruption;
  for (budget::Budget& b : reasonless.budgets) {
    if (b.reasons.has_value())
      b.reasons = std::vector<budget::DisruptionReason>{};
  }
  budget::Allowance out = budget::ExplainAllowedDisruptions(
      reasonless, budget::DisruptionReason::kDrifted, total_nodes, now);
  if (absl::StartsWith(out.why, "no active budget matches")) {
    out.why = "no active budget without reasons";
  }
  if (!spec.budget.has_value() || out.why.rfind("fail closed", 0) == 0) {
    return out;
  }
  absl::StatusOr<int64_t> own = spec.budget->Scale(total_nodes, true);
  if (!own.ok()) {
    out.allowed = 0;
    out.limiting_budget = std::nullopt;
    out.why = absl::StrCat("fail closed: soft-expiration budget: ",
                           own.status().message());
    return out;
  }
  if (*own < out.allowed) {
    out.allowed = *own;
    out.limiting_budget = std::nullopt;
    out.why = absl::StrCat("soft-expiration budget=", spec.budget->ToString(),
                           " of ", total_nodes, " nodes = ", *own);
  }
  return out;
}

namespace {

bool HasControlAnnotation(const v1::NodePool& node_pool) {
  const auto& a = node_pool.metadata().annotations();
  for (absl::string_view key :
       {well_known::kConsolidationMaxReplacementsAnnotationKey,
        well_known::kConsolidationMinSavingsAnnotationKey,
        well_known::kMaxDisruptingZonesAnnotationKey,
        well_known::kSoftExpirationAnnotationKey}) {
    if (a.find(std::string(key)) != a.end()) return true;
  }
  return false;
}

std::string LabelOr(const v1::Node& node, absl::string_view key) {
  const auto& labels = node.metadata().labels();
  auto it = labels.find(std::string(key));
  return it == labels.end() ? std::string() : it->second;
}

// Zones with a disrupting node, per NodePool name (see EvaluateControls).
std::map<std::string, std::set<std::string>, std::less<>> DisruptingZones(
    const snapshot::Snapshot& snapshot,
    const std::set<std::string, std::less<>>& pools,
    const std::set<std::string, std::less<>>& in_flight) {
  std::set<std::string, std::less<>> deleting_claims;  // By providerID.
  for (const v1::NodeClaim& nc : snapshot.node_claims()) {
    if (nc.metadata().has_deletion_timestamp() &&
        !nc.status().provider_id().empty()) {
      deleting_claims.insert(nc.status().provider_id());
    }
  }
  std::map<std::string, std::set<std::string>, std::less<>> out;
  for (const v1::Node& node : snapshot.nodes()) {
    const std::string pool = LabelOr(node, well_known::kNodePoolLabelKey);
    if (pool.empty() || !pools.contains(pool)) continue;
    if (LabelOr(node, well_known::kNodeInitializedLabelKey) != "true") continue;
    const std::string& id = node.spec().provider_id();
    const bool disrupting = !IsConditionTrue(node.status().conditions(),
                                             well_known::kConditionTypeReady) ||
                            node.metadata().has_deletion_timestamp() ||
                            HasDisruptedNoScheduleTaint(node) ||
                            (!id.empty() && (in_flight.contains(id) ||
                                             deleting_claims.contains(id)));
    if (disrupting) {
      out[pool].insert(LabelOr(node, well_known::kLabelTopologyZone));
    }
  }
  return out;
}

}  // namespace

std::vector<NodePoolControlState> EvaluateControls(
    const snapshot::Snapshot& snapshot, const budget::BudgetMapping& mapping,
    const budget::BudgetOptions& options,
    const std::set<std::string, std::less<>>& in_flight, absl::Time now) {
  std::vector<NodePoolControlState> out;
  std::set<std::string, std::less<>> zoned;
  for (const v1::NodePool& np : snapshot.node_pools()) {
    if (!HasControlAnnotation(np)) continue;
    NodePoolControlState state;
    state.node_pool = np.metadata().name();
    absl::StatusOr<NodePoolControls> controls = ParseNodePoolControls(np);
    if (!controls.ok()) {
      state.error = std::string(controls.status().message());
      out.push_back(std::move(state));
      continue;
    }
    state.controls = *std::move(controls);
    if (state.controls.max_disrupting_zones.has_value()) {
      zoned.insert(state.node_pool);
    }
    if (state.controls.soft_expiration.has_value()) {
      const budget::NodePoolBudget* counts = mapping.Find(state.node_pool);
      const int64_t total = counts != nullptr ? counts->total_nodes : 0;
      const int64_t disrupting =
          counts != nullptr ? counts->disrupting_nodes : 0;
      absl::StatusOr<budget::DisruptionSpec> spec =
          budget::ParseDisruptionSpec(np, options);
      if (spec.ok()) {
        state.expiration = ExpirationAllowance(*state.controls.soft_expiration,
                                               *spec, total, now);
      } else {
        state.expiration.allowed = 0;
        state.expiration.why =
            absl::StrCat("fail closed: ", spec.status().message());
      }
      state.expiration_remaining =
          std::max<int64_t>(state.expiration.allowed - disrupting, 0);
      absl::StrAppend(&state.expiration.why, ", ", disrupting, " disrupting, ",
                      state.expiration_remaining, " remaining");
    }
    out.push_back(std::move(state));
  }
  if (!zoned.empty()) {
    auto zones = DisruptingZones(snapshot, zoned, in_flight);
    for (NodePoolControlState& state : out) {
      auto it = zones.find(state.node_pool);
      if (it == zones.end()) continue;
      state.disrupting_zones.assign(it->second.begin(), it->second.end());
    }
  }
  std::sort(out.begin(), out.end(),
            [](const NodePoolControlState& a, const NodePoolControlState& b) {
              return a.node_pool < b.node_pool;
            });
  return out;
}

}  // namespace karpenter::disruption
