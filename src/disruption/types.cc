// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#include "karpenter/disruption/types.h"

#include <algorithm>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "karpenter/well_known.h"

namespace karpenter::disruption {

absl::string_view MethodName(Method method) {
  switch (method) {
    case Method::kNodePoolDeleted:
      return "NodePoolDeleted";
    case Method::kExpiration:
      return "Expiration";
    case Method::kEmptiness:
      return "Emptiness";
    case Method::kStaticDrift:
      return "StaticDrift";
    case Method::kDrift:
      return "Drift";
    case Method::kMultiNodeConsolidation:
      return "MultiNodeConsolidation";
    case Method::kSingleNodeConsolidation:
      return "SingleNodeConsolidation";
  }
  return "Unknown";
}

MethodClass ClassOf(Method method) {
  switch (method) {
    case Method::kNodePoolDeleted:
    case Method::kExpiration:
      return MethodClass::kForceful;
    case Method::kStaticDrift:
    case Method::kDrift:
      return MethodClass::kEventual;
    case Method::kEmptiness:
    case Method::kMultiNodeConsolidation:
    case Method::kSingleNodeConsolidation:
      return MethodClass::kGraceful;
  }
  return MethodClass::kGraceful;
}

std::optional<budget::DisruptionReason> BudgetReasonOf(Method method) {
  switch (method) {
    case Method::kNodePoolDeleted:
    case Method::kExpiration:
      return std::nullopt;
    case Method::kEmptiness:
      return budget::DisruptionReason::kEmpty;
    case Method::kStaticDrift:
    case Method::kDrift:
      return budget::DisruptionReason::kDrifted;
    case Method::kMultiNodeConsolidation:
    case Method::kSingleNodeConsolidation:
      return budget::DisruptionReason::kUnderutilized;
  }
  return std::nullopt;
}

absl::string_view ConsolidationTypeName(Method method) {
  switch (method) {
    case Method::kEmptiness:
      return "empty";
    case Method::kMultiNodeConsolidation:
      return "multi";
    case Method::kSingleNodeConsolidation:
      return "single";
    default:
      return "";
  }
}

absl::string_view DecisionLabel(Decision decision) {
  switch (decision) {
    case Decision::kNoOp:
      return "no-op";
    case Decision::kDelete:
      return "delete";
    case Decision::kReplace:
      return "replace";
  }
  return "";
}

absl::string_view DecisionName(Decision decision) {
  switch (decision) {
    case Decision::kNoOp:
      return "NoOp";
    case Decision::kDelete:
      return "Delete";
    case Decision::kReplace:
      return "Replace";
  }
  return "Unknown";
}

void SortForConsolidation(std::vector<Candidate>& candidates) {
  std::sort(candidates.begin(), candidates.end(),
            [](const Candidate& a, const Candidate& b) {
              const double ra = a.SavingsRatio();
              const double rb = b.SavingsRatio();
              if (ra != rb) return ra > rb;
              return std::tie(a.disruption_cost, a.created, a.node_name) <
                     std::tie(b.disruption_cost, b.created, b.node_name);
            });
}

void SortForDrift(std::vector<Candidate>& candidates) {
  std::sort(
      candidates.begin(), candidates.end(),
      [](const Candidate& a, const Candidate& b) {
        const absl::Time ta = a.drifted_since.value_or(absl::InfiniteFuture());
        const absl::Time tb = b.drifted_since.value_or(absl::InfiniteFuture());
        return std::tie(ta, a.node_name) < std::tie(tb, b.node_name);
      });
  std::stable_partition(
      candidates.begin(), candidates.end(),
      [](const Candidate& c) { return c.reschedulable_pods.empty(); });
}

BudgetLedger BudgetLedger::FromMapping(const budget::BudgetMapping& mapping,
                                       budget::DisruptionReason reason) {
  BudgetLedger ledger;
  for (const budget::NodePoolBudget& pool : mapping.node_pools) {
    const size_t r = static_cast<size_t>(reason);
    ledger.Set(pool.node_pool, pool.remaining[r]);
    if (pool.by_reason[r].allowed == budget::kUnlimited) {
      ledger.unlimited_.insert(pool.node_pool);
    }
  }
  return ledger;
}

void BudgetLedger::Set(absl::string_view node_pool, int64_t remaining) {
  remaining_[std::string(node_pool)] = std::max<int64_t>(remaining, 0);
  auto it = unlimited_.find(node_pool);
  if (it != unlimited_.end()) unlimited_.erase(it);
}

int64_t BudgetLedger::Remaining(absl::string_view node_pool) const {
  auto it = remaining_.find(node_pool);
  return it == remaining_.end() ? 0 : it->second;
}

bool BudgetLedger::TryTake(absl::string_view node_pool) {
  auto it = remaining_.find(node_pool);
  if (it == remaining_.end() || it->second <= 0) return false;
  --it->second;
  return true;
}

void BudgetLedger::LimitZones(absl::string_view node_pool, int64_t max_zones,
                              std::set<std::string, std::less<>> disrupting) {
  zones_[std::string(node_pool)] =
      ZoneLimit{.max_zones = max_zones, .disrupting = std::move(disrupting)};
}

std::string BudgetLedger::ZoneRefusal(const Candidate& c) const {
  auto it = zones_.find(c.node_pool_name);
  if (it == zones_.end()) return "";
  const ZoneLimit& limit = it->second;
  if (limit.disrupting.contains(c.zone) ||
      static_cast<int64_t>(limit.disrupting.size()) < limit.max_zones) {
    return "";
  }
  std::vector<std::string> quoted;
  for (const std::string& z : limit.disrupting) {
    quoted.push_back(absl::StrCat("\"", z, "\""));
  }
  return absl::StrCat(
      "NodePool \"", c.node_pool_name, "\" disrupts nodes of at most ",
      limit.max_zones, " zone(s) at once (",
      well_known::kMaxDisruptingZonesAnnotationKey, " \"", limit.max_zones,
      "\"): zone(s) ", absl::StrJoin(quoted, ", "),
      " disrupting, node is in zone \"", c.zone, "\"");
}

bool BudgetLedger::Allows(const Candidate& c) const {
  return Remaining(c.node_pool_name) > 0 && ZoneRefusal(c).empty();
}

bool BudgetLedger::TryTake(const Candidate& c) {
  if (!Allows(c)) return false;
  TryTake(c.node_pool_name);
  auto it = zones_.find(c.node_pool_name);
  if (it != zones_.end()) it->second.disrupting.insert(c.zone);
  return true;
}

std::string BudgetLedger::Describe(absl::string_view node_pool) const {
  if (remaining_.find(node_pool) == remaining_.end()) {
    return absl::StrCat("NodePool \"", node_pool, "\" has no budget entry");
  }
  if (unlimited_.find(node_pool) != unlimited_.end()) {
    return absl::StrCat("unlimited in NodePool \"", node_pool, "\"");
  }
  return absl::StrCat(Remaining(node_pool), " left in NodePool \"", node_pool,
                      "\"");
}

}  // namespace karpenter::disruption
