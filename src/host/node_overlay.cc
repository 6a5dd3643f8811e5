// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#include "karpenter/node_overlay.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/status_macros.h"
#include "karpenter/requirements.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/validation.h"
#include "karpenter/well_known.h"
#include "snapshot/object_sink.h"

namespace karpenter {
namespace {

// An offering's identity in the price store (Karpenter keys it by the
// offering's requirements: zone, capacity type, reservation).
using OfferingKey = std::tuple<std::string, std::string, std::string>;

OfferingKey KeyOf(const Offering& o) {
  return {o.zone, o.capacity_type, o.reservation_id};
}

int32_t WeightOf(const v1::NodeOverlay& o) {
  return o.spec().has_weight() ? o.spec().weight() : 0;
}

// The price change of an overlay: `price`, else `priceAdjustment`, else
// nullopt.
std::optional<std::string> PriceChangeOf(const v1::NodeOverlay& o) {
  if (o.spec().has_price()) return o.spec().price();
  if (o.spec().has_price_adjustment()) return o.spec().price_adjustment();
  return std::nullopt;
}

// Karpenter's requirements of an instance type offered to `pool`: its
// name, its labels, its offerings' zones and capacity types, the NodePool
// label and the NodePool's template labels.
Requirements TypeRequirements(const InstanceType& it, absl::string_view pool,
                              const v1::NodePool* node_pool) {
  Requirements reqs;
  reqs.Add(Requirement::In(well_known::kNodePoolLabelKey, {std::string(pool)}));
  if (node_pool != nullptr) {
    for (const auto& [k, v] :
         node_pool->spec().template_().metadata().labels()) {
      reqs.Add(Requirement::In(k, {v}));
    }
  }
  reqs.Add(Requirement::In(well_known::kLabelInstanceTypeStable, {it.name}));
  for (const auto& [k, v] : it.labels) reqs.Add(Requirement::In(k, {v}));
  std::set<std::string> zones, capacity_types;
  for (const Offering& o : it.offerings) {
    zones.insert(o.zone);
    capacity_types.insert(o.capacity_type);
  }
  if (!zones.empty()) {
    reqs.Add(
        Requirement::In(well_known::kLabelTopologyZone,
                        std::vector<std::string>(zones.begin(), zones.end())));
  }
  if (!capacity_types.empty()) {
    reqs.Add(Requirement::In(well_known::kCapacityTypeLabelKey,
                             std::vector<std::string>(capacity_types.begin(),
                                                      capacity_types.end())));
  }
  return reqs;
}

Requirements OfferingRequirements(const Offering& o) {
  Requirements reqs;
  reqs.Add(Requirement::In(well_known::kLabelTopologyZone, {o.zone}));
  reqs.Add(
      Requirement::In(well_known::kCapacityTypeLabelKey, {o.capacity_type}));
  return reqs;
}

CompatibilityOptions AllowWellKnown() {
  CompatibilityOptions options;
  const absl::Span<const std::string> known = WellKnownLabels();
  options.allow_undefined.assign(known.begin(), known.end());
  return options;
}

// Karpenter's `getOverlaidOfferings`: the offerings of `it` the overlay
// selects (indexes into it.offerings); empty when it selects none.
std::vector<size_t> Selected(const InstanceType& it, absl::string_view pool,
                             const v1::NodePool* node_pool,
                             const Requirements& overlay,
                             const CompatibilityOptions& allow) {
  std::vector<size_t> out;
  if (!TypeRequirements(it, pool, node_pool).Compatible(overlay)) return out;
  for (size_t i = 0; i < it.offerings.size(); ++i) {
    if (overlay.Compatible(OfferingRequirements(it.offerings[i]), allow)) {
      out.push_back(i);
    }
  }
  return out;
}

// What the overlays decided for one instance type of one NodePool
// (store.go `instanceTypeUpdate`).
struct PriceUpdate {
  std::string change;
  int32_t lowest_weight = 0;
};
struct TypeUpdate {
  std::map<OfferingKey, PriceUpdate> prices;
  // Merged capacity (first overlay to set a resource wins), and the last
  // overlay's own capacity and weight, for conflicts.
  std::map<std::string, std::string> capacity;
  bool has_capacity = false;
  std::map<std::string, std::string> last_capacity;
  int32_t last_capacity_weight = 0;
};
// NodePool -> instance type -> update.
using Store = std::map<std::string, std::map<std::string, TypeUpdate>>;

struct Selection {
  std::string pool;
  const InstanceType* type = nullptr;
  std::vector<size_t> offerings;
};

bool Conflicts(const Store& store, const Selection& s,
               const v1::NodeOverlay& overlay) {
  auto pool = store.find(s.pool);
  if (pool == store.end()) return false;
  auto type = pool->second.find(s.type->name);
  if (type == pool->second.end()) return false;
  const TypeUpdate& u = type->second;
  const int32_t weight = WeightOf(overlay);
  if (PriceChangeOf(overlay).has_value()) {
    for (size_t i : s.offerings) {
      auto p = u.prices.find(KeyOf(s.type->offerings[i]));
      if (p != u.prices.end() && p->second.lowest_weight == weight) {
        return true;
      }
    }
  }
  if (!overlay.spec().capacity().empty() && u.has_capacity &&
      u.last_capacity_weight == weight) {
    for (const auto& [resource, quantity] : overlay.spec().capacity()) {
      if (u.last_capacity.count(resource) > 0) return true;
    }
  }
  return false;
}

void StoreUpdates(Store& store, const Selection& s,
                  const v1::NodeOverlay& overlay, NodeOverlayStatus& status) {
  TypeUpdate& u = store[s.pool][s.type->name];
  const int32_t weight = WeightOf(overlay);
  if (std::optional<std::string> change = PriceChangeOf(overlay)) {
    for (size_t i : s.offerings) {
      auto [it, inserted] = u.prices.emplace(KeyOf(s.type->offerings[i]),
                                             PriceUpdate{*change, weight});
      if (inserted) {
        ++status.priced_offerings;
      } else {
        it->second.lowest_weight = weight;
      }
    }
  }
  if (!overlay.spec().capacity().empty()) {
    bool changed = false;
    for (const auto& [resource, quantity] : overlay.spec().capacity()) {
      changed |= u.capacity.emplace(resource, quantity).second;
    }
    if (changed) ++status.resized_instance_types;
    u.has_capacity = true;
    u.last_capacity = {overlay.spec().capacity().begin(),
                       overlay.spec().capacity().end()};
    u.last_capacity_weight = weight;
  }
}

}  // namespace

absl::StatusOr<double> AdjustedPrice(double price, absl::string_view change) {
  if (change.empty()) return price;
  auto bad = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat("price change \"", absl::CEscape(change),
                     "\": expected a price such as \"0.5\", an amount such "
                     "as \"+0.1\" or \"-0.1\", or a percentage such as "
                     "\"+10%\" or \"-10%\""));
  };
  const bool sign = change.front() == '+' || change.front() == '-';
  absl::string_view number = change;
  const bool percent = sign && absl::ConsumeSuffix(&number, "%");
  if (sign) number.remove_prefix(1);
  // Digits and at most one dot, as the CRD patterns allow.
  if (number.empty() || number == "." ||
      !std::all_of(number.begin(), number.end(),
                   [](char c) { return absl::ascii_isdigit(c) || c == '.'; }) ||
      std::count(number.begin(), number.end(), '.') > 1) {
    return bad();
  }
  double value = 0;
  if (!absl::SimpleAtod(number, &value)) return bad();
  if (!sign) return value;
  if (change.front() == '-') value = -value;
  const double adjusted = percent ? price * (1 + value / 100) : price + value;
  return std::max(adjusted, 0.0);
}

NodeOverlayResult ApplyNodeOverlays(const InstanceTypeCatalog& catalog,
                                    absl::Span<const v1::NodePool> node_pools,
                                    absl::Span<const v1::NodeOverlay> overlays,
                                    const NodeOverlayOptions& options) {
  NodeOverlayResult result;
  result.catalog = catalog;
  std::vector<const v1::NodeOverlay*> order;
  for (const v1::NodeOverlay& o : overlays) order.push_back(&o);
  // OrderByWeight: heavier first; equal weights, the later name first.
  std::stable_sort(order.begin(), order.end(),
                   [](const v1::NodeOverlay* a, const v1::NodeOverlay* b) {
                     if (WeightOf(*a) != WeightOf(*b)) {
                       return WeightOf(*a) > WeightOf(*b);
                     }
                     return a->metadata().name() > b->metadata().name();
                   });
  if (!options.enabled) {
    for (const v1::NodeOverlay* o : order) {
      result.statuses.push_back(
          NodeOverlayStatus{.name = o->metadata().name(),
                            .reason = "Disabled",
                            .message = "the NodeOverlay feature gate is off"});
    }
    return result;
  }
  std::map<std::string, const v1::NodePool*, std::less<>> pools;
  for (const v1::NodePool& p : node_pools) pools[p.metadata().name()] = &p;
  const CompatibilityOptions allow = AllowWellKnown();
  Store store;
  for (const v1::NodeOverlay* overlay : order) {
    NodeOverlayStatus status{.name = overlay->metadata().name()};
    if (absl::Status valid = validation::ValidateNodeOverlay(*overlay);
        !valid.ok()) {
      status.reason = "RuntimeValidation";
      status.message = std::string(valid.message());
      result.statuses.push_back(std::move(status));
      continue;
    }
    absl::StatusOr<Requirements> reqs = Requirements::FromProto(
        overlay->spec().requirements(), "spec.requirements");
    if (!reqs.ok()) {
      status.reason = "RuntimeValidation";
      status.message = std::string(reqs.status().message());
      result.statuses.push_back(std::move(status));
      continue;
    }
    std::vector<Selection> selections;
    for (const auto& [pool, types] : catalog) {
      auto np = pools.find(pool);
      const v1::NodePool* node_pool = np == pools.end() ? nullptr : np->second;
      for (const InstanceType& it : types) {
        std::vector<size_t> offerings =
            Selected(it, pool, node_pool, *reqs, allow);
        if (offerings.empty()) continue;
        selections.push_back({pool, &it, std::move(offerings)});
      }
    }
    // All or nothing: any conflict rejects the overlay everywhere.
    const bool conflict = std::any_of(
        selections.begin(), selections.end(),
        [&](const Selection& s) { return Conflicts(store, s, *overlay); });
    if (conflict) {
      status.reason = "Conflict";
      status.message = "conflict with another overlay";
      result.statuses.push_back(std::move(status));
      continue;
    }
    for (const Selection& s : selections)
      StoreUpdates(store, s, *overlay, status);
    status.reason = "Applied";
    result.statuses.push_back(std::move(status));
  }
  // Apply the store to the catalogue.
  for (auto& [pool, types] : result.catalog) {
    auto pool_updates = store.find(pool);
    if (pool_updates == store.end()) continue;
    for (InstanceType& it : types) {
      auto u = pool_updates->second.find(it.name);
      if (u == pool_updates->second.end()) continue;
      for (const auto& [resource, quantity] : u->second.capacity) {
        it.capacity[resource] = quantity;
      }
      for (Offering& o : it.offerings) {
        auto p = u->second.prices.find(KeyOf(o));
        if (p == u->second.prices.end()) continue;
        // Validated above: the change parses.
        absl::StatusOr<double> price = AdjustedPrice(o.price, p->second.change);
        if (price.ok()) o.price = *price;
      }
    }
  }
  return result;
}

absl::StatusOr<std::vector<v1::NodeOverlay>> ParseNodeOverlays(
    absl::string_view text, absl::string_view source) {
  snapshot::ObjectSet set;
  KARPENTER_RETURN_IF_ERROR(snapshot::LoadText(text, source, set));
  return std::move(set.node_overlays);
}

absl::StatusOr<std::vector<v1::NodeOverlay>> LoadNodeOverlays(
    const std::string& path) {
  std::string text;
  KARPENTER_RETURN_IF_ERROR(snapshot::internal::ReadFile(path, text));
  return ParseNodeOverlays(text, path);
}

}  // namespace karpenter
