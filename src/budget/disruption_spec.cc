// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/budget/disruption_spec.h"

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "karpenter/cron.h"
#include "karpenter/duration.h"
#include "karpenter/intstr.h"
#include "karpenter/well_known.h"
#include "primitives/go_compat.h"
#include "validation/patterns.h"

namespace karpenter::budget {
namespace {

using primitives_internal::GoStrconvQuote;

constexpr size_t kMaxBudgets = 50;
constexpr size_t kMaxReasons = 50;

std::optional<DisruptionReason> ReasonFromName(absl::string_view name) {
  for (DisruptionReason r : kAllDisruptionReasons) {
    if (DisruptionReasonName(r) == name) return r;
  }
  return std::nullopt;
}

// Collects `<path>: <message>` strings.
class Errors {
 public:
  void Add(absl::string_view path, absl::string_view message) {
    list_.push_back(absl::StrCat(path, ": ", message));
  }
  std::vector<std::string> Take() { return std::move(list_); }

 private:
  std::vector<std::string> list_;
};

std::optional<ConsolidationPolicy> ParsePolicy(absl::string_view path,
                                               absl::string_view s,
                                               Errors* errors) {
  if (s.empty() || s == "WhenEmptyOrUnderutilized" ||
      s == "WhenUnderutilized") {
    return ConsolidationPolicy::kWhenEmptyOrUnderutilized;
  }
  if (s == "WhenEmpty") return ConsolidationPolicy::kWhenEmpty;
  if (s == "Balanced") return ConsolidationPolicy::kBalanced;
  errors->Add(path, absl::StrCat(GoStrconvQuote(s),
                                 " must be one of WhenEmpty, "
                                 "WhenEmptyOrUnderutilized, Balanced or "
                                 "(v1beta1) WhenUnderutilized"));
  return std::nullopt;
}

// A NillableDuration field; `fallback` when it fails.
std::optional<absl::Duration> ParseNillable(
    absl::string_view path, absl::string_view s,
    std::optional<absl::Duration> fallback, Errors* errors) {
  if (!validation::internal::MatchesNillableDurationV1(s)) {
    errors->Add(path, absl::StrCat(GoStrconvQuote(s),
                                   " must be a duration in hours, minutes "
                                   "and seconds (e.g. 1h30m) or Never"));
    return fallback;
  }
  absl::StatusOr<std::optional<absl::Duration>> d = ParseNillableDuration(s);
  if (!d.ok()) {
    errors->Add(path, d.status().message());
    return fallback;
  }
  return *d;
}

void ParseReasons(absl::string_view path, const v1::Budget& in, Budget* out,
                  Errors* errors) {
  if (in.reasons().empty() && !in.reasons_explicitly_empty()) return;
  out->reasons.emplace();
  if (static_cast<size_t>(in.reasons_size()) > kMaxReasons) {
    errors->Add(path, absl::StrCat("must have at most ", kMaxReasons,
                                   " items, got ", in.reasons_size()));
  }
  for (int i = 0; i < in.reasons_size(); ++i) {
    const std::string item_path = absl::StrCat(path, "[", i, "]");
    const std::optional<DisruptionReason> r = ReasonFromName(in.reasons(i));
    if (!r.has_value()) {
      errors->Add(
          item_path,
          absl::StrCat(GoStrconvQuote(in.reasons(i)), " must be one of ",
                       well_known::kDisruptionReasonUnderutilized, ", ",
                       well_known::kDisruptionReasonEmpty, ", ",
                       well_known::kDisruptionReasonDrifted));
      continue;
    }
    for (DisruptionReason seen : *out->reasons) {
      if (seen == *r) {
        errors->Add(item_path, absl::StrCat("duplicate value ",
                                            GoStrconvQuote(in.reasons(i))));
      }
    }
    out->reasons->push_back(*r);
  }
}

void ParseSchedule(absl::string_view path, const v1::Budget& in,
                   const BudgetOptions& options, Budget* out, Errors* errors) {
  if (in.has_schedule() != in.has_duration()) {
    errors->Add(path, "'schedule' must be set with 'duration'");
  }
  if (in.has_schedule()) {
    const std::string& s = in.schedule();
    if (!validation::internal::MatchesSchedule(s)) {
      errors->Add(absl::StrCat(path, ".schedule"),
                  absl::StrCat(GoStrconvQuote(s),
                               " must be a 5-field cron expression or one of "
                               "@yearly, @annually, @monthly, @weekly, "
                               "@daily, @midnight, @hourly"));
    }
    out->schedule = s;
    // Karpenter compiles at evaluation time; a failure fails closed there.
    out->cron = CronSchedule::Parse(
        options.allow_time_zones ? s : absl::StrCat("TZ=UTC ", s));
  }
  if (in.has_duration()) {
    const std::string& d = in.duration();
    const std::string dpath = absl::StrCat(path, ".duration");
    if (!validation::internal::MatchesBudgetDuration(d)) {
      errors->Add(dpath, absl::StrCat(GoStrconvQuote(d),
                                      " must be hours and minutes (e.g. "
                                      "1h30m)"));
      return;
    }
    absl::StatusOr<absl::Duration> parsed = ParseGoDuration(d);
    if (!parsed.ok()) {
      errors->Add(dpath, parsed.status().message());
      return;
    }
    out->duration = *parsed;
  }
}

Budget ParseBudget(absl::string_view path, const v1::Budget& in,
                   const BudgetOptions& options, Errors* errors) {
  Budget out;
  // proto3 cannot tell an absent `nodes` from "": both take the CRD
  // default.
  out.nodes_text = in.nodes().empty() ? "10%" : in.nodes();
  if (!validation::internal::MatchesBudgetNodes(out.nodes_text)) {
    errors->Add(absl::StrCat(path, ".nodes"),
                absl::StrCat(GoStrconvQuote(out.nodes_text),
                             " must be a non-negative integer or a "
                             "percentage from 0% to 100%"));
  }
  out.nodes = IntOrPercent::Parse(out.nodes_text, absl::StrCat(path, ".nodes"));
  ParseSchedule(path, in, options, &out, errors);
  ParseReasons(absl::StrCat(path, ".reasons"), in, &out, errors);
  return out;
}

Budget DefaultBudget() {
  Budget b;
  b.nodes_text = "10%";
  b.nodes = IntOrPercent::FromPercent(10);
  return b;
}

DisruptionSpec ParseSpec(const v1::NodePool& np, const BudgetOptions& options,
                         Errors* errors) {
  DisruptionSpec spec;
  const v1::Disruption& d = np.spec().disruption();
  if (std::optional<ConsolidationPolicy> p =
          ParsePolicy("spec.disruption.consolidationPolicy",
                      d.consolidation_policy(), errors)) {
    spec.consolidation_policy = *p;
  }
  if (d.has_consolidate_after()) {
    spec.consolidate_after =
        ParseNillable("spec.disruption.consolidateAfter", d.consolidate_after(),
                      spec.consolidate_after, errors);
  }
  const v1::NodeClaimSpec& tmpl = np.spec().template_().spec();
  if (tmpl.has_expire_after()) {
    spec.expire_after =
        ParseNillable("spec.template.spec.expireAfter", tmpl.expire_after(),
                      spec.expire_after, errors);
  } else if (d.has_expire_after()) {
    spec.expire_after =
        ParseNillable("spec.disruption.expireAfter", d.expire_after(),
                      spec.expire_after, errors);
  }
  if (d.budgets().empty() && !d.budgets_explicitly_empty()) {
    spec.budgets.push_back(DefaultBudget());
    spec.budgets_defaulted = true;
    return spec;
  }
  if (static_cast<size_t>(d.budgets_size()) > kMaxBudgets) {
    errors->Add("spec.disruption.budgets",
                absl::StrCat("must have at most ", kMaxBudgets, " items, got ",
                             d.budgets_size()));
  }
  for (int i = 0; i < d.budgets_size(); ++i) {
    spec.budgets.push_back(
        ParseBudget(absl::StrCat("spec.disruption.budgets[", i, "]"),
                    d.budgets(i), options, errors));
  }
  return spec;
}

}  // namespace

absl::string_view DisruptionReasonName(DisruptionReason reason) {
  switch (reason) {
    case DisruptionReason::kUnderutilized:
      return well_known::kDisruptionReasonUnderutilized;
    case DisruptionReason::kEmpty:
      return well_known::kDisruptionReasonEmpty;
    case DisruptionReason::kDrifted:
      return well_known::kDisruptionReasonDrifted;
  }
  return "Unknown";
}

bool Budget::Matches(DisruptionReason reason) const {
  if (!reasons.has_value()) return true;
  for (DisruptionReason r : *reasons) {
    if (r == reason) return true;
  }
  return false;
}

absl::StatusOr<DisruptionSpec> ParseDisruptionSpec(
    const v1::NodePool& node_pool, const BudgetOptions& options) {
  Errors errors;
  DisruptionSpec spec = ParseSpec(node_pool, options, &errors);
  std::vector<std::string> list = errors.Take();
  if (!list.empty()) {
    return absl::InvalidArgumentError(absl::StrJoin(list, "\n"));
  }
  return spec;
}

std::vector<std::string> DisruptionSpecErrors(const v1::NodePool& node_pool,
                                              const BudgetOptions& options) {
  Errors errors;
  ParseSpec(node_pool, options, &errors);
  return errors.Take();
}

absl::StatusOr<bool> IsActive(const Budget& budget, absl::Time now) {
  if (!budget.schedule.has_value() || !budget.duration.has_value()) {
    return true;
  }
  if (!budget.cron.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("schedule: ", budget.cron.status().message()));
  }
  // Go's zero time (robfig giving up) is never After(now): always active.
  // InfiniteFuture stands for it here, so it must be tested explicitly.
  const absl::Time next = budget.cron->Next(now - *budget.duration);
  return next == absl::InfiniteFuture() || next <= now;
}

}  // namespace karpenter::budget
