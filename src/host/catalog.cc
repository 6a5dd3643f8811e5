// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/catalog.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/field_error.h"
#include "common/status_macros.h"
#include "karpenter/quantity.h"
#include "karpenter/snapshot/load.h"
#include "snapshot/object_sink.h"

namespace karpenter {
namespace {

using ::karpenter::internal::FieldError;

absl::Status CheckQuantity(absl::string_view path, absl::string_view value) {
  absl::StatusOr<int64_t> q = ParseQuantityMilli(value);
  if (!q.ok()) return FieldError(path, "invalid quantity", value);
  if (*q < 0) return FieldError(path, "must not be negative", value);
  return absl::OkStatus();
}

// `milli` milli-units in the largest unit that holds it exactly.
std::string FormatQuantity(int64_t milli) {
  if (milli % 1000 != 0) return absl::StrCat(milli, "m");
  const int64_t v = milli / 1000;
  if (v != 0) {
    for (const auto& [suffix, unit] :
         {std::pair<const char*, int64_t>{"Gi", int64_t{1} << 30},
          {"Mi", int64_t{1} << 20},
          {"Ki", int64_t{1} << 10}}) {
      if (v % unit == 0) return absl::StrCat(v / unit, suffix);
    }
  }
  return absl::StrCat(v);
}

using QuantityMap = google::protobuf::Map<std::string, std::string>;

// Resource -> the overhead's total in milli-units; nullopt on overflow.
// Expects valid quantities (unparsable ones count as 0).
std::map<std::string, std::optional<int64_t>> OverheadTotals(
    const v1::InstanceTypeOverhead& overhead) {
  std::map<std::string, std::optional<int64_t>> totals;
  for (const QuantityMap* part :
       {&overhead.kube_reserved(), &overhead.system_reserved(),
        &overhead.eviction_threshold()}) {
    for (const auto& [resource, value] : *part) {
      auto [it, inserted] = totals.try_emplace(resource, int64_t{0});
      absl::StatusOr<int64_t> q = ParseQuantityMilli(value);
      if (!it->second.has_value() || !q.ok()) continue;
      int64_t sum = 0;
      if (__builtin_add_overflow(*it->second, *q, &sum)) {
        it->second.reset();
      } else {
        it->second = sum;
      }
    }
  }
  return totals;
}

absl::Status ValidateOverhead(const std::string& path,
                              const v1::InstanceTypeSpec& t) {
  const v1::InstanceTypeOverhead& o = t.overhead();
  for (const auto& [field, part] :
       {std::pair<const char*, const QuantityMap*>{"kubeReserved",
                                                   &o.kube_reserved()},
        {"systemReserved", &o.system_reserved()},
        {"evictionThreshold", &o.eviction_threshold()}}) {
    for (const auto& [k, v] : *part) {
      KARPENTER_RETURN_IF_ERROR(CheckQuantity(
          absl::StrCat(path, ".overhead.", field, "[\"", k, "\"]"), v));
    }
  }
  for (const auto& [resource, total] : OverheadTotals(o)) {
    auto cap = t.capacity().find(resource);
    const std::string capacity =
        cap == t.capacity().end() ? std::string("0") : cap->second;
    const int64_t available = ParseQuantityMilli(capacity).value_or(0);
    if (!total.has_value() || *total > available) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s.overhead: %s overhead \"%s\" (kubeReserved + systemReserved + "
          "evictionThreshold) exceeds capacity \"%s\"",
          path, absl::CEscape(resource),
          total.has_value() ? FormatQuantity(*total) : "overflow",
          absl::CEscape(capacity)));
    }
  }
  return absl::OkStatus();
}

// The kind of the first object of `set` other than the catalogue, or "".
std::string ForeignKind(const snapshot::ObjectSet& set) {
  const std::pair<bool, const char*> recognised[] = {
      {!set.nodes.empty(), "Node"},
      {!set.pods.empty(), "Pod"},
      {!set.pdbs.empty(), "PodDisruptionBudget"},
      {!set.node_pools.empty(), "NodePool"},
      {!set.node_claims.empty(), "NodeClaim"},
      {!set.volume_attachments.empty(), "VolumeAttachment"},
      {!set.persistent_volume_claims.empty(), "PersistentVolumeClaim"},
      {!set.persistent_volumes.empty(), "PersistentVolume"},
      {!set.storage_classes.empty(), "StorageClass"},
      {!set.csi_nodes.empty(), "CSINode"},
      {!set.daemon_sets.empty(), "DaemonSet"},
  };
  for (const auto& [present, kind] : recognised) {
    if (present) return kind;
  }
  for (const auto& [kind, count] : set.skipped_kinds) {
    if (kind != kInstanceTypeCatalogKind && count > 0) return kind;
  }
  return "";
}

}  // namespace

absl::Status ValidateInstanceTypeSpecs(
    const google::protobuf::RepeatedPtrField<v1::InstanceTypeSpec>& types,
    absl::string_view path) {
  std::set<std::string> names;
  for (int i = 0; i < types.size(); ++i) {
    const v1::InstanceTypeSpec& t = types.Get(i);
    const std::string p = absl::StrCat(path, "[", i, "]");
    if (t.name().empty()) return FieldError(p + ".name", "must be set", "");
    if (!names.insert(t.name()).second) {
      return FieldError(p + ".name", "duplicate instance type", t.name());
    }
    for (const auto& [k, v] : t.capacity()) {
      KARPENTER_RETURN_IF_ERROR(
          CheckQuantity(absl::StrCat(p, ".capacity[\"", k, "\"]"), v));
    }
    if (t.offerings().empty()) {
      return FieldError(p + ".offerings", "needs at least one offering for",
                        t.name());
    }
    for (int j = 0; j < t.offerings_size(); ++j) {
      const v1::OfferingSpec& o = t.offerings(j);
      const std::string op = absl::StrCat(p, ".offerings[", j, "]");
      if (o.zone().empty()) return FieldError(op + ".zone", "must be set", "");
      if (o.capacity_type().empty()) {
        return FieldError(op + ".capacityType", "must be set", "");
      }
      if (!std::isfinite(o.price()) || o.price() < 0) {
        return FieldError(op + ".price", "must be a finite number >= 0",
                          absl::StrCat(o.price()));
      }
    }
    KARPENTER_RETURN_IF_ERROR(ValidateOverhead(p, t));
  }
  return absl::OkStatus();
}

InstanceType InstanceTypeFromSpec(const v1::InstanceTypeSpec& spec) {
  InstanceType type;
  type.name = spec.name();
  type.capacity.insert(spec.capacity().begin(), spec.capacity().end());
  for (const auto& [resource, total] : OverheadTotals(spec.overhead())) {
    auto it = type.capacity.find(resource);
    if (it == type.capacity.end() || !total.has_value()) continue;
    absl::StatusOr<int64_t> capacity = ParseQuantityMilli(it->second);
    if (!capacity.ok()) continue;
    it->second = FormatQuantity(std::max<int64_t>(0, *capacity - *total));
  }
  type.labels.insert(spec.labels().begin(), spec.labels().end());
  for (const v1::OfferingSpec& o : spec.offerings()) {
    type.offerings.push_back({o.zone(), o.capacity_type(), o.price(),
                              o.has_available() ? o.available() : true});
  }
  return type;
}

absl::StatusOr<v1::InstanceTypeCatalog> ParseInstanceTypeCatalogDocument(
    absl::string_view text, absl::string_view source) {
  // The cluster loader checks the syntax and names the other documents'
  // kinds (it skips the catalogue as an unknown kind).
  snapshot::ObjectSet others;
  KARPENTER_RETURN_IF_ERROR(snapshot::LoadText(text, source, others));
  if (std::string kind = ForeignKind(others); !kind.empty()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: kind: expected \"%s\", got \"%s\"", source,
                        kInstanceTypeCatalogKind, absl::CEscape(kind)));
  }
  std::vector<std::unique_ptr<google::protobuf::Message>> docs;
  KARPENTER_RETURN_IF_ERROR(snapshot::LoadDocumentsOfKind(
      text, source, kInstanceTypeCatalogKind,
      v1::InstanceTypeCatalog::default_instance(), docs));
  if (docs.size() != 1) {
    return absl::InvalidArgumentError(
        docs.empty() ? absl::StrCat(source, ": no ", kInstanceTypeCatalogKind,
                                    " document")
                     : absl::StrCat(source, ": ", docs.size(), " ",
                                    kInstanceTypeCatalogKind, " documents"));
  }
  v1::InstanceTypeCatalog catalog =
      static_cast<const v1::InstanceTypeCatalog&>(*docs.front());
  if (catalog.api_version() != kInstanceTypeCatalogApiVersion) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: apiVersion: expected \"%s\", got \"%s\"", source,
        kInstanceTypeCatalogApiVersion, absl::CEscape(catalog.api_version())));
  }
  if (catalog.instance_types().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": instanceTypes: needs at least one instance type"));
  }
  if (absl::Status s =
          ValidateInstanceTypeSpecs(catalog.instance_types(), "instanceTypes");
      !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": ", s.message()));
  }
  return catalog;
}

absl::StatusOr<std::vector<InstanceType>> ParseInstanceTypeCatalog(
    absl::string_view text, absl::string_view source) {
  KARPENTER_ASSIGN_OR_RETURN(v1::InstanceTypeCatalog catalog,
                             ParseInstanceTypeCatalogDocument(text, source));
  std::vector<InstanceType> types;
  types.reserve(catalog.instance_types_size());
  for (const v1::InstanceTypeSpec& spec : catalog.instance_types()) {
    types.push_back(InstanceTypeFromSpec(spec));
  }
  std::sort(types.begin(), types.end(),
            [](const InstanceType& a, const InstanceType& b) {
              return a.name < b.name;
            });
  return types;
}

absl::StatusOr<std::vector<InstanceType>> LoadInstanceTypeCatalog(
    const std::string& path) {
  std::string contents;
  KARPENTER_RETURN_IF_ERROR(snapshot::internal::ReadFile(path, contents));
  return ParseInstanceTypeCatalog(contents, path);
}

InstanceTypeCatalog CatalogForEveryNodePool(
    const snapshot::Snapshot& snapshot,
    const std::vector<InstanceType>& types) {
  InstanceTypeCatalog catalog;
  for (const v1::NodePool& pool : snapshot.node_pools()) {
    catalog[pool.metadata().name()] = types;
  }
  return catalog;
}

}  // namespace karpenter
