// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// NodePool disruption spec: parsing and validation of `spec.disruption` (v1
// and v1beta1 spellings) and Karpenter's budget activity rule.
//
// Ports the NodePool CRD (karpenter pkg/apis/crds/karpenter.sh_nodepools.yaml:
// OpenAPI patterns, enums, maxItems, the CEL rule "'schedule' must be set
// with 'duration'" and the CRD defaults) and `Budget.IsActive` from
// pkg/apis/v1/nodepool.go; see docs/semantics.md §1.1, §1.2 and §1.5.
//
// Two kinds of problems are kept apart, as Karpenter keeps them apart:
//   * Spec errors: what the API server would reject (CRD patterns, enums,
//     list sizes, CEL). `ParseDisruptionSpec` reports every one of them, each
//     naming its path, e.g.
//     `spec.disruption.budgets[2].duration: "30s" must be hours and minutes
//     (e.g. 1h30m)`.
//   * Runtime errors: a budget the CRD accepts but Karpenter cannot evaluate
//     (a schedule that passes the CRD's loose regex but not the cron parser,
//     a `CRON_TZ=` prefix, day-of-week 7, an integer `nodes` beyond int64).
//     The budget is kept, its error recorded, and evaluation fails closed
//     (budget/allowed.h: 0 allowed disruptions for every reason).
//
// Deliberate choices:
//   * `consolidationPolicy: Balanced` (Karpenter HEAD, v1.14+) is accepted;
//     budgets do not depend on the policy.
//   * v1beta1 `WhenUnderutilized` is accepted under either apiVersion and
//     mapped to WhenEmptyOrUnderutilized.
//   * Time zones are an opt-in extension (`BudgetOptions::allow_time_zones`).
//
// Thread-safety: all functions are pure; the returned values are immutable
// and may be shared between threads.
#ifndef KARPENTER_BUDGET_DISRUPTION_SPEC_H_
#define KARPENTER_BUDGET_DISRUPTION_SPEC_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "karpenter/cron.h"
#include "karpenter/intstr.h"
#include "karpenter/v1/karpenter.pb.h"

namespace karpenter::budget {

// The reasons a budget can restrict (the CRD enum). There is no `Expired`:
// expiration bypasses budgets.
enum class DisruptionReason { kUnderutilized = 0, kEmpty = 1, kDrifted = 2 };
inline constexpr std::array<DisruptionReason, 3> kAllDisruptionReasons = {
    DisruptionReason::kUnderutilized, DisruptionReason::kEmpty,
    DisruptionReason::kDrifted};

// "Underutilized", "Empty" or "Drifted" (the CRD spelling).
absl::string_view DisruptionReasonName(DisruptionReason reason);

enum class ConsolidationPolicy {
  kWhenEmpty,
  kWhenEmptyOrUnderutilized,  // Also v1beta1 `WhenUnderutilized`.
  kBalanced,
};

struct BudgetOptions {
  // Off (default), a schedule is evaluated as Karpenter does, as
  // `TZ=UTC <schedule>`, so a user `CRON_TZ=`/`TZ=` prefix is a runtime
  // error (fail closed). On, the schedule is parsed as written: a prefix
  // selects its zone (DST-correct through CronSchedule), no prefix is UTC.
  bool allow_time_zones = false;

  friend bool operator==(const BudgetOptions&, const BudgetOptions&) = default;
};

// One entry of `spec.disruption.budgets`, validated against the CRD.
struct Budget {
  // The `nodes` text as written; an empty proto value (absent) takes the CRD
  // default "10%".
  std::string nodes_text;
  // `nodes` parsed with Karpenter's Atoi-then-percent rule. An error here
  // (e.g. an integer beyond int64) is a runtime error that only matters
  // while the budget is active, as in Karpenter.
  absl::StatusOr<IntOrPercent> nodes = IntOrPercent();
  // Both set or both unset (CEL). Unset: always active.
  std::optional<std::string> schedule;
  std::optional<absl::Duration> duration;
  // The parsed schedule when `schedule` is set; an error is a runtime error
  // that fails closed whether or not the budget would be active.
  absl::StatusOr<CronSchedule> cron =
      absl::FailedPreconditionError("no schedule");
  // nullopt: the field was absent, the budget applies to every reason. An
  // empty vector (`reasons: []`) matches no reason.
  std::optional<std::vector<DisruptionReason>> reasons;

  // Karpenter's `Reasons == nil || contains(Reasons, reason)`.
  bool Matches(DisruptionReason reason) const;
};

struct DisruptionSpec {
  ConsolidationPolicy consolidation_policy =
      ConsolidationPolicy::kWhenEmptyOrUnderutilized;
  // nullopt means `Never`. Default 0s.
  std::optional<absl::Duration> consolidate_after = absl::ZeroDuration();
  // nullopt means `Never`. Default 720h.
  std::optional<absl::Duration> expire_after = absl::Hours(720);
  // In spec order. Empty with `budgets_defaulted` false: explicit `[]`,
  // which means no limit.
  std::vector<Budget> budgets;
  // True when `budgets` was absent and the CRD default [{nodes: "10%"}]
  // was applied.
  bool budgets_defaulted = false;
};

// Parses `node_pool.spec.disruption` (plus `spec.template.spec.expireAfter`)
// with the CRD's validation and defaults:
//   * consolidationPolicy: WhenEmpty | WhenEmptyOrUnderutilized | Balanced |
//     v1beta1 WhenUnderutilized; empty means WhenEmptyOrUnderutilized.
//   * consolidateAfter, expireAfter: `^(([0-9]+(s|m|h))+|Never)$`, then
//     parsed as a Go duration; consolidateAfter defaults to 0s, expireAfter
//     to 720h (v1 `spec.template.spec.expireAfter` wins over v1beta1
//     `spec.disruption.expireAfter` when both are set).
//   * budgets: at most 50; absent means [{nodes: "10%"}]; `nodes` matches
//     `^((100|[0-9]{1,2})%|[0-9]+)$`; `schedule` and `duration` both or
//     neither; `duration` matches `^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$`;
//     `schedule` matches the CRD's (unanchored) regex; reasons are a set
//     of at most 50 of Underutilized, Empty, Drifted.
// Schedules are compiled here (per `options`); failures are recorded on the
// budget (runtime errors), not reported as spec errors.
//
// Errors: kInvalidArgument listing every spec error, one per line, each as
// `<path>: <message>` (the same strings `DisruptionSpecErrors` returns).
absl::StatusOr<DisruptionSpec> ParseDisruptionSpec(
    const v1::NodePool& node_pool, const BudgetOptions& options = {});

// Every spec error of `node_pool`, in field order, each `<path>: <message>`
// quoting the offending value. Empty when the spec is valid. Runtime budget
// errors are not included (they stay on `Budget::cron` and `Budget::nodes`).
std::vector<std::string> DisruptionSpecErrors(
    const v1::NodePool& node_pool, const BudgetOptions& options = {});

// Karpenter's `Budget.IsActive`: a budget without a schedule is active;
// otherwise with `next = cron.Next(now - duration)` it is active iff
// `next <= now`, i.e. for now in [hit, hit + duration) at whole-second
// granularity. A schedule that never fires again (`0 0 31 2 *`; Next is
// InfiniteFuture where robfig returns the zero time) is always active, as
// in Karpenter. A zero duration is never active.
//
// Errors: the budget's schedule parse error (kInvalidArgument, message
// prefixed with "schedule: "); callers must fail closed.
absl::StatusOr<bool> IsActive(const Budget& budget, absl::Time now);

}  // namespace karpenter::budget

#endif  // KARPENTER_BUDGET_DISRUPTION_SPEC_H_
