// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Budget extensions: configuration parsing, the rate budget ledger and its
// combination with NodePool budgets. The capacity budget is in
// capacity_budget.cc.

#include "karpenter/budget/extensions.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "budget/extensions_internal.h"
#include "budget/membership.h"
#include "karpenter/duration.h"
#include "karpenter/quantity.h"
#include "karpenter/time_util.h"

namespace karpenter::budget {
namespace {

bool AllDigits(absl::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return absl::ascii_isdigit(static_cast<unsigned char>(c));
  });
}

// `<field>: "<text>": <problem>` (no field prefix when `field` is empty).
std::string Problem(absl::string_view field, absl::string_view text,
                    absl::string_view problem) {
  return absl::StrCat(field, field.empty() ? "" : ": ", "\"", text,
                      "\": ", problem);
}

// "1h0m0s" -> "1h", "1h30m0s" -> "1h30m", "10m0s" -> "10m".
std::string ShortDuration(absl::Duration d) {
  std::string s = FormatGoDuration(d);
  if (absl::EndsWith(s, "m0s")) s.resize(s.size() - 2);
  if (absl::EndsWith(s, "h0m")) s.resize(s.size() - 2);
  return s;
}

// The rate text and its validation for explanations.
std::string RateName(const RateBudgetSpec& spec) {
  if (!ValidateRateBudget(spec).ok()) {
    return absl::StrCat(spec.max_disruptions, "/",
                        FormatGoDuration(spec.window));
  }
  return FormatRateBudget(spec);
}

}  // namespace

namespace internal {

std::string FormatInstant(absl::Time t) {
  if (t == absl::InfiniteFuture()) return "never";
  if (t == absl::InfinitePast()) return "the infinite past";
  return FormatRfc3339(t);
}

std::string FormatAmount(CapacityResource resource, int64_t v) {
  if (resource == CapacityResource::kCpu) {
    std::string out = absl::StrCat(v / 1000);
    int64_t frac = v % 1000;
    if (frac < 0) frac = -frac;
    if (frac == 0) return out;
    std::string digits = absl::StrCat(1000 + frac).substr(1);
    while (digits.back() == '0') digits.pop_back();
    if (v < 0 && v > -1000) out = "-0";
    return absl::StrCat(out, ".", digits);
  }
  static constexpr std::pair<int64_t, const char*> kUnits[] = {
      {int64_t{1} << 60, "Ei"}, {int64_t{1} << 50, "Pi"},
      {int64_t{1} << 40, "Ti"}, {int64_t{1} << 30, "Gi"},
      {int64_t{1} << 20, "Mi"}, {int64_t{1} << 10, "Ki"}};
  for (const auto& [size, suffix] : kUnits) {
    if (v != 0 && v % size == 0) return absl::StrCat(v / size, suffix);
  }
  return absl::StrCat(v);
}

absl::StatusOr<int64_t> AmountFromQuantity(CapacityResource resource,
                                           absl::string_view quantity) {
  absl::StatusOr<int64_t> milli = ParseQuantityMilli(quantity);
  if (!milli.ok()) return milli.status();
  if (*milli < 0) return absl::InvalidArgumentError("must be >= 0");
  if (resource == CapacityResource::kCpu) return *milli;
  return *milli / 1000 + (*milli % 1000 != 0 ? 1 : 0);
}

}  // namespace internal

absl::string_view CapacityResourceName(CapacityResource resource) {
  return resource == CapacityResource::kCpu ? "cpu" : "memory";
}

absl::Status ValidateRateBudget(const RateBudgetSpec& spec) {
  if (spec.max_disruptions < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_disruptions: \"", spec.max_disruptions, "\": must be >= 0"));
  }
  if (spec.window <= absl::ZeroDuration() ||
      spec.window == absl::InfiniteDuration()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "window: \"", FormatGoDuration(spec.window), "\": must be positive",
        spec.window == absl::InfiniteDuration() ? " and finite" : ""));
  }
  return absl::OkStatus();
}

absl::Status ValidateCapacityBudget(const CapacityBudgetSpec& spec) {
  const IntOrPercent& a = spec.amount;
  if (a.value() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("amount: \"", a.ToString(), "\": must be >= 0"));
  }
  if (a.is_percent() && a.value() > 100) {
    return absl::InvalidArgumentError(absl::StrCat(
        "amount: \"", a.ToString(), "\": must be between 0% and 100%"));
  }
  return absl::OkStatus();
}

absl::StatusOr<RateBudgetSpec> ParseRateBudget(absl::string_view text,
                                               absl::string_view field) {
  const size_t slash = text.find('/');
  if (slash == absl::string_view::npos ||
      text.find('/', slash + 1) != absl::string_view::npos) {
    return absl::InvalidArgumentError(
        Problem(field, text, "must be <count>/<window>, e.g. \"3/1h\""));
  }
  const absl::string_view count = text.substr(0, slash);
  const absl::string_view window = text.substr(slash + 1);
  if (!AllDigits(count)) {
    return absl::InvalidArgumentError(
        Problem(field, text, "count must be a non-negative integer"));
  }
  RateBudgetSpec spec;
  if (!absl::SimpleAtoi(count, &spec.max_disruptions)) {
    return absl::OutOfRangeError(Problem(field, text, "count overflows int64"));
  }
  absl::StatusOr<absl::Duration> d = ParseGoDuration(window);
  if (!d.ok()) {
    return absl::InvalidArgumentError(
        Problem(field, text, absl::StrCat("window: ", d.status().message())));
  }
  if (*d <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        Problem(field, text, "window must be positive"));
  }
  spec.window = *d;
  return spec;
}

absl::StatusOr<CapacityBudgetSpec> ParseCapacityBudget(
    absl::string_view text, absl::string_view field) {
  const size_t eq = text.find('=');
  if (eq == absl::string_view::npos) {
    return absl::InvalidArgumentError(
        Problem(field, text, "must be <resource>=<amount>, e.g. \"cpu=20%\""));
  }
  const absl::string_view resource = text.substr(0, eq);
  const absl::string_view amount = text.substr(eq + 1);
  CapacityBudgetSpec spec;
  if (resource == "cpu") {
    spec.resource = CapacityResource::kCpu;
  } else if (resource == "memory") {
    spec.resource = CapacityResource::kMemory;
  } else {
    return absl::InvalidArgumentError(
        Problem(field, text, "resource must be cpu or memory"));
  }
  if (absl::EndsWith(amount, "%")) {
    const absl::string_view digits = amount.substr(0, amount.size() - 1);
    int64_t p = 0;
    // At most 3 digits keeps SimpleAtoi in range; "007%" is 7%.
    if (!AllDigits(digits) || digits.size() > 3 ||
        !absl::SimpleAtoi(digits, &p) || p > 100) {
      return absl::InvalidArgumentError(Problem(
          field, text, "percent must be an integer between 0% and 100%"));
    }
    spec.amount = IntOrPercent::FromPercent(p);
    return spec;
  }
  absl::StatusOr<int64_t> v =
      internal::AmountFromQuantity(spec.resource, amount);
  if (!v.ok()) {
    return absl::Status(
        v.status().code(),
        Problem(field, text, absl::StrCat("amount: ", v.status().message())));
  }
  spec.amount = IntOrPercent::FromInt(*v);
  return spec;
}

std::string FormatRateBudget(const RateBudgetSpec& spec) {
  return absl::StrCat(spec.max_disruptions, "/", ShortDuration(spec.window));
}

std::string FormatCapacityBudget(const CapacityBudgetSpec& spec) {
  return absl::StrCat(
      CapacityResourceName(spec.resource), "=",
      spec.amount.is_percent()
          ? spec.amount.ToString()
          : internal::FormatAmount(spec.resource, spec.amount.value()));
}

absl::StatusOr<BudgetExtensions> ParseBudgetExtensions(
    const v1::NodePool& node_pool) {
  const auto& annotations = node_pool.metadata().annotations();
  BudgetExtensions out;
  std::vector<std::string> errors;
  bool all_out_of_range = true;
  auto note = [&](const absl::Status& s) {
    errors.emplace_back(s.message());
    all_out_of_range = all_out_of_range && absl::IsOutOfRange(s);
  };
  auto field = [](absl::string_view key) {
    return absl::StrCat("metadata.annotations[\"", key, "\"]");
  };
  if (auto it = annotations.find(std::string(kDisruptionRateAnnotation));
      it != annotations.end()) {
    absl::StatusOr<RateBudgetSpec> rate =
        ParseRateBudget(it->second, field(kDisruptionRateAnnotation));
    if (rate.ok()) {
      out.rate = *rate;
    } else {
      note(rate.status());
    }
  }
  if (auto it = annotations.find(std::string(kDisruptionCapacityAnnotation));
      it != annotations.end()) {
    absl::StatusOr<CapacityBudgetSpec> capacity =
        ParseCapacityBudget(it->second, field(kDisruptionCapacityAnnotation));
    if (capacity.ok()) {
      out.capacity = *capacity;
    } else {
      note(capacity.status());
    }
  }
  if (errors.empty()) return out;
  const std::string message = absl::StrJoin(errors, "\n");
  return all_out_of_range ? absl::OutOfRangeError(message)
                          : absl::InvalidArgumentError(message);
}

// ---------------------------------------------------------------------------
// DisruptionLedger.

namespace {

using Entry = std::pair<absl::Time, std::string>;

// First entry starting after `t`.
std::vector<Entry>::const_iterator FirstAfter(const std::vector<Entry>& v,
                                              absl::Time t) {
  return std::partition_point(v.begin(), v.end(),
                              [t](const Entry& e) { return e.first <= t; });
}

}  // namespace

bool DisruptionLedger::Insert(Pool& pool, absl::string_view node_name,
                              absl::Time at) {
  auto [it, added] = pool.start_of.try_emplace(node_name, at);
  if (!added) {
    if (it->second <= at) return false;  // Keep the earliest start.
    const Entry old(it->second, std::string(node_name));
    auto pos = std::lower_bound(pool.entries.begin(), pool.entries.end(), old);
    pool.entries.erase(pos);
    it->second = at;
  }
  Entry e(at, std::string(node_name));
  // Chronological recording appends: amortised O(1).
  auto pos =
      pool.entries.empty() || pool.entries.back() < e
          ? pool.entries.end()
          : std::lower_bound(pool.entries.begin(), pool.entries.end(), e);
  pool.entries.insert(pos, std::move(e));
  return true;
}

absl::StatusOr<bool> DisruptionLedger::Record(absl::string_view node_pool,
                                              absl::string_view node_name,
                                              absl::Time at) {
  if (node_pool.empty()) {
    return absl::InvalidArgumentError("node_pool: must be non-empty");
  }
  if (node_name.empty()) {
    return absl::InvalidArgumentError("node_name: must be non-empty");
  }
  if (at == absl::InfiniteFuture() || at == absl::InfinitePast()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "at: \"", internal::FormatInstant(at), "\": must be a finite instant"));
  }
  return Insert(pools_[node_pool], node_name, at);
}

int64_t DisruptionLedger::Seed(const snapshot::Snapshot& snapshot) {
  // The earliest deletion per (NodePool, node) in the snapshot first, then
  // one merge per NodePool, each touched pool re-sorted once: O((claims +
  // entries) log) whatever the claims' order. Pools are visited in hash
  // order, which reaches no output (each pool is sorted on its own).
  absl::flat_hash_map<std::string, absl::flat_hash_map<std::string, absl::Time>>
      seen;
  for (const v1::NodeClaim& claim : snapshot.node_claims()) {
    if (!claim.metadata().has_deletion_timestamp()) continue;
    const absl::string_view pool_name =
        internal::Label(claim.metadata(), internal::NodePoolLabel());
    const std::string& node = claim.status().node_name();
    if (pool_name.empty() || node.empty()) continue;
    const absl::Time at = TimeFromProto(claim.metadata().deletion_timestamp());
    auto [it, added] = seen[pool_name].try_emplace(node, at);
    if (!added && at < it->second) it->second = at;
  }
  int64_t changed = 0;
  for (const auto& [pool_name, starts] : seen) {
    Pool& pool = pools_[pool_name];
    const int64_t before = changed;
    for (const auto& [node, at] : starts) {
      auto [it, added] = pool.start_of.try_emplace(node, at);
      if (!added && it->second <= at) continue;
      it->second = at;
      ++changed;
    }
    if (changed == before) continue;
    pool.entries.clear();
    pool.entries.reserve(pool.start_of.size());
    for (const auto& [name, at] : pool.start_of) {
      pool.entries.emplace_back(at, name);
    }
    std::sort(pool.entries.begin(), pool.entries.end());
  }
  return changed;
}

int64_t DisruptionLedger::Prune(absl::Time cutoff) {
  int64_t removed = 0;
  // The order of pools does not reach any output: only the count does.
  for (auto& [name, pool] : pools_) {
    const auto end = FirstAfter(pool.entries, cutoff);
    for (auto it = pool.entries.cbegin(); it != end; ++it) {
      pool.start_of.erase(it->second);
    }
    removed += end - pool.entries.cbegin();
    pool.entries.erase(pool.entries.cbegin(), end);
  }
  return removed;
}

size_t DisruptionLedger::size(absl::string_view node_pool) const {
  auto it = pools_.find(node_pool);
  return it == pools_.end() ? 0 : it->second.entries.size();
}

RateAllowance DisruptionLedger::Evaluate(absl::string_view node_pool,
                                         const RateBudgetSpec& spec,
                                         absl::Time now) const {
  RateAllowance out;
  out.spec = spec;
  out.now = now;
  if (absl::Status valid = ValidateRateBudget(spec); !valid.ok()) {
    out.why = absl::StrCat("fail closed: rate ", RateName(spec), ": ",
                           valid.message());
    return out;
  }
  const absl::Time since = now - spec.window;
  static const std::vector<Entry>* const kNone = new std::vector<Entry>();
  auto it = pools_.find(node_pool);
  const std::vector<Entry>& entries =
      it == pools_.end() ? *kNone : it->second.entries;
  const auto first = FirstAfter(entries, since);
  const auto last = FirstAfter(entries, now);
  out.in_window = std::max<int64_t>(last - first, 0);
  out.remaining = std::max<int64_t>(spec.max_disruptions - out.in_window, 0);
  out.why = absl::StrCat("rate ", FormatRateBudget(spec), ": ", out.in_window,
                         out.in_window == 1 ? " disruption" : " disruptions",
                         " since ", internal::FormatInstant(since), ", ",
                         out.remaining, " remaining");
  if (out.remaining > 0) {
    out.next_slot = now;
  } else if (spec.max_disruptions == 0) {
    absl::StrAppend(&out.why, ", no disruption is ever allowed");
  } else {
    // The slot frees once in_window - max + 1 of the counted starts have
    // left the window; the youngest of those is at this offset.
    out.next_slot =
        (first + (out.in_window - spec.max_disruptions))->first + spec.window;
    absl::StrAppend(&out.why, ", next slot at ",
                    internal::FormatInstant(out.next_slot));
  }
  return out;
}

CombinedAllowance CombineWithRate(const NodePoolBudget& budget,
                                  DisruptionReason reason,
                                  const std::optional<RateAllowance>& rate) {
  const size_t r = static_cast<size_t>(reason);
  const int64_t from_budget = budget.remaining[r];
  CombinedAllowance out;
  out.remaining = from_budget;
  out.why = absl::StrCat("NodePool budget: ", budget.by_reason[r].why, ", ",
                         budget.disrupting_nodes, " disrupting, ", from_budget,
                         " remaining");
  if (!rate.has_value()) return out;
  if (rate->remaining < from_budget) {
    out.remaining = rate->remaining;
    out.rate_limits = true;
    out.why = absl::StrCat(rate->why, "; NodePool budget allows ", from_budget);
  } else {
    absl::StrAppend(&out.why, "; rate ", RateName(rate->spec), " allows ",
                    rate->remaining);
  }
  return out;
}

}  // namespace karpenter::budget
