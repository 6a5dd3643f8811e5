// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#include "karpenter/scheduling/resources.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "karpenter/conditions.h"
#include "karpenter/quantity.h"
#include "karpenter/well_known.h"
#include "primitives/go_compat.h"

namespace karpenter::scheduling {
namespace {

namespace pb = ::google::protobuf;
using FieldFn = absl::FunctionRef<std::string()>;
using StringMap = pb::Map<std::string, std::string>;

constexpr size_t kMaxCachedQuantities = 4096;
// Up to this many status entries are searched linearly; more are indexed.
constexpr int kMaxLinearStatuses = 16;

constexpr absl::string_view kContainerStatuses = "containerStatuses";
constexpr absl::string_view kInitContainerStatuses = "initContainerStatuses";

int64_t* Slot(PodRequestList& list, absl::string_view key) {
  for (auto& [k, v] : list) {
    if (k == key) return &v;
  }
  list.emplace_back(key, 0);
  return &list.back().second;
}

bool Contains(const PodRequestList& list, absl::string_view key) {
  for (const auto& [k, v] : list) {
    if (k == key) return true;
  }
  return false;
}

// Calls fn(key, value) for each entry of `m`, by key when `sorted`, stopping
// at the first error.
template <typename Fn>
absl::Status ForEach(const StringMap& m, bool sorted, Fn&& fn) {
  if (!sorted) {
    for (const auto& [key, value] : m) {
      if (absl::Status s = fn(key, value); !s.ok()) return s;
    }
    return absl::OkStatus();
  }
  absl::InlinedVector<const StringMap::value_type*, 8> entries;
  entries.reserve(m.size());
  for (const auto& entry : m) entries.push_back(&entry);
  std::sort(entries.begin(), entries.end(),
            [](const auto* a, const auto* b) { return a->first < b->first; });
  for (const auto* entry : entries) {
    if (absl::Status s = fn(entry->first, entry->second); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status OverflowError(absl::string_view what, absl::string_view resource) {
  return absl::InvalidArgumentError(
      absl::StrCat(what, ": the ", resource, " requests overflow int64"));
}

// One evaluation of the rule of resources.h. `cache` (may be null) holds
// parsed quantity texts; `sorted` walks every map by key, which makes the
// reported error deterministic (protobuf map order is not).
class Aggregator {
 public:
  Aggregator(const v1::Pod& pod,
             absl::flat_hash_map<std::string, int64_t>* cache, bool sorted)
      : spec_(pod.spec()),
        status_(pod.status()),
        cache_(cache),
        sorted_(sorted),
        infeasible_(IsPodResizeInfeasible(pod.status())) {}

  absl::Status Run(PodRequestList& sum) {
    sum.clear();
    PodRequestList one;
    for (int i = 0; i < spec_.containers_size(); ++i) {
      if (absl::Status s = Container(spec_.containers(i), "containers", i,
                                     /*use_status=*/true, one);
          !s.ok()) {
        return s;
      }
      if (absl::Status s = Add(sum, one, "containers", i); !s.ok()) return s;
    }
    // Sidecars run beside the containers and stay up while later init
    // containers run: each init container's peak is its own request plus
    // the sidecars started before it.
    PodRequestList sidecars;
    PodRequestList init_peak;
    PodRequestList combined;
    for (int i = 0; i < spec_.init_containers_size(); ++i) {
      const v1::Container& c = spec_.init_containers(i);
      // Only sidecars read their status (a plain init container has run).
      if (absl::Status s = Container(c, "initContainers", i, IsSidecar(c), one);
          !s.ok()) {
        return s;
      }
      if (IsSidecar(c)) {
        if (absl::Status s = Add(sum, one, "initContainers", i); !s.ok()) {
          return s;
        }
        if (absl::Status s = Add(sidecars, one, "initContainers", i); !s.ok()) {
          return s;
        }
        Max(init_peak, sidecars);
      } else {
        combined = one;
        if (absl::Status s = Add(combined, sidecars, "initContainers", i);
            !s.ok()) {
          return s;
        }
        Max(init_peak, combined);
      }
    }
    Max(sum, init_peak);
    if (absl::Status s = PodLevel(sum); !s.ok()) return s;
    absl::Status status =
        ForEach(spec_.overhead(), sorted_,
                [&](const std::string& key, const std::string& value) {
                  const auto field = [&] {
                    return absl::StrCat("spec.overhead.", key);
                  };
                  int64_t v = 0;
                  if (absl::Status s = Parse(value, field, v); !s.ok()) {
                    return s;
                  }
                  int64_t* slot = Slot(sum, key);
                  if (__builtin_add_overflow(*slot, v, slot)) {
                    return OverflowError(field(), key);
                  }
                  return absl::OkStatus();
                });
    if (!status.ok()) return status;
    *Slot(sum, kResourcePods) = kOnePodMilli;
    return absl::OkStatus();
  }

 private:
  // A non-negative quantity in milli-units. The field path is only built
  // for the error.
  absl::Status Parse(absl::string_view value, FieldFn field, int64_t& out) {
    if (cache_ != nullptr) {
      if (auto it = cache_->find(value); it != cache_->end()) {
        out = it->second;
        return absl::OkStatus();
      }
    }
    absl::StatusOr<int64_t> milli = ParseQuantityMilli(value);
    if (!milli.ok() || *milli < 0) {
      const std::string path = field();
      milli = ParseQuantityMilli(value, path);
      if (!milli.ok()) {
        return absl::InvalidArgumentError(milli.status().message());
      }
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": quantity ", primitives_internal::GoTimeQuote(value),
          " must not be negative"));
    }
    if (cache_ != nullptr && cache_->size() < kMaxCachedQuantities) {
      cache_->emplace(value, *milli);
    }
    out = *milli;
    return absl::OkStatus();
  }

  // A status entry: the entry and where it is, for error paths.
  struct StatusRef {
    const v1::ContainerStatus* status = nullptr;
    absl::string_view list;
    int index = 0;
  };

  // The status entry of the container named `name`, as helpers.go's map
  // from name to status finds it: the last of initContainerStatuses with
  // the name, else the last of containerStatuses. status == nullptr if
  // none.
  StatusRef FindStatus(absl::string_view name) {
    const auto& init = status_.init_container_statuses();
    const auto& regular = status_.container_statuses();
    if (init.size() + regular.size() <= kMaxLinearStatuses) {
      for (int j = init.size() - 1; j >= 0; --j) {
        if (init[j].name() == name) {
          return {&init[j], kInitContainerStatuses, j};
        }
      }
      for (int j = regular.size() - 1; j >= 0; --j) {
        if (regular[j].name() == name) {
          return {&regular[j], kContainerStatuses, j};
        }
      }
      return {};
    }
    if (by_name_.empty()) {
      // Later entries overwrite earlier ones, init statuses the others.
      for (int j = 0; j < regular.size(); ++j) {
        by_name_[regular[j].name()] = {&regular[j], kContainerStatuses, j};
      }
      for (int j = 0; j < init.size(); ++j) {
        by_name_[init[j].name()] = {&init[j], kInitContainerStatuses, j};
      }
    }
    const auto it = by_name_.find(name);
    return it == by_name_.end() ? StatusRef{} : it->second;
  }

  // out = max(out, the quantities of `m`), per resource; `section` names
  // the map under status.<list>[<index>] for errors.
  absl::Status MaxStatus(const StringMap& m, const StatusRef& ref,
                         absl::string_view section, PodRequestList& out) {
    return ForEach(
        m, sorted_, [&](const std::string& key, const std::string& value) {
          int64_t v = 0;
          absl::Status s = Parse(
              value,
              [&] {
                return absl::StrCat("status.", ref.list, "[", ref.index, "].",
                                    section, ".", key);
              },
              v);
          if (!s.ok()) return s;
          int64_t* slot = Slot(out, key);
          *slot = std::max(*slot, v);
          return absl::OkStatus();
        });
  }

  // One container's requests: its spec (a resource with a limit but no
  // request requests its limit, SetDefaults_Pod), then, if `use_status`,
  // what its status says after an in-place resize
  // (determineEffectiveRequests).
  absl::Status Container(const v1::Container& c, absl::string_view kind,
                         int index, bool use_status, PodRequestList& out) {
    if (absl::Status s = Spec(c, kind, index, out); !s.ok()) return s;
    if (!use_status) return absl::OkStatus();
    const StatusRef ref = FindStatus(c.name());
    if (ref.status == nullptr || !ref.status->has_resources()) {
      return absl::OkStatus();
    }
    if (infeasible_) out.clear();
    if (absl::Status s = MaxStatus(ref.status->resources().requests(), ref,
                                   "resources.requests", out);
        !s.ok()) {
      return s;
    }
    return MaxStatus(ref.status->allocated_resources(), ref,
                     "allocatedResources", out);
  }

  // A container's spec requests.
  absl::Status Spec(const v1::Container& c, absl::string_view kind, int index,
                    PodRequestList& out) {
    out.clear();
    const StringMap& requests = c.resources().requests();
    const auto path = [&](absl::string_view section, absl::string_view key) {
      return absl::StrCat("spec.", kind, "[", index, "].resources.", section,
                          ".", key);
    };
    absl::Status status =
        ForEach(requests, sorted_,
                [&](const std::string& key, const std::string& value) {
                  int64_t v = 0;
                  absl::Status s = Parse(
                      value, [&] { return path("requests", key); }, v);
                  if (s.ok()) out.emplace_back(key, v);
                  return s;
                });
    if (!status.ok()) return status;
    return ForEach(c.resources().limits(), sorted_,
                   [&](const std::string& key, const std::string& value) {
                     if (requests.count(key) > 0) return absl::OkStatus();
                     int64_t v = 0;
                     absl::Status s = Parse(
                         value, [&] { return path("limits", key); }, v);
                     if (s.ok()) out.emplace_back(key, v);
                     return s;
                   });
  }

  // into += add, per resource.
  static absl::Status Add(PodRequestList& into, const PodRequestList& add,
                          absl::string_view kind, int index) {
    for (const auto& [key, v] : add) {
      int64_t* slot = Slot(into, key);
      if (__builtin_add_overflow(*slot, v, slot)) {
        return OverflowError(absl::StrCat("spec.", kind, "[", index, "]"), key);
      }
    }
    return absl::OkStatus();
  }

  // into = max(into, other), per resource.
  static void Max(PodRequestList& into, const PodRequestList& other) {
    for (const auto& [key, v] : other) {
      int64_t* slot = Slot(into, key);
      *slot = std::max(*slot, v);
    }
  }

  // Pod-level spec.resources over the container aggregate `sum`.
  absl::Status PodLevel(PodRequestList& sum) {
    if (!spec_.has_resources()) return absl::OkStatus();
    const StringMap& requests = spec_.resources().requests();
    absl::Status status = ForEach(
        requests, sorted_,
        [&](const std::string& key, const std::string& value) {
          if (!IsSupportedPodLevelResource(key)) return absl::OkStatus();
          int64_t v = 0;
          absl::Status s = Parse(
              value,
              [&] { return absl::StrCat("spec.resources.requests.", key); }, v);
          if (s.ok()) *Slot(sum, key) = v;
          return s;
        });
    if (!status.ok()) return status;
    // defaultPodRequests: a limit without a request defaults the request
    // to the container aggregate when containers name an overcommittable
    // resource (no change), otherwise to the limit.
    return ForEach(
        spec_.resources().limits(), sorted_,
        [&](const std::string& key, const std::string& value) {
          if (!IsSupportedPodLevelResource(key) || requests.count(key) > 0) {
            return absl::OkStatus();
          }
          if (!absl::StartsWith(key, kResourceHugePagesPrefix) &&
              Contains(sum, key)) {
            return absl::OkStatus();
          }
          int64_t v = 0;
          absl::Status s = Parse(
              value,
              [&] { return absl::StrCat("spec.resources.limits.", key); }, v);
          if (s.ok()) *Slot(sum, key) = v;
          return s;
        });
  }

  const v1::PodSpec& spec_;
  const v1::PodStatus& status_;
  absl::flat_hash_map<std::string, int64_t>* cache_;
  bool sorted_;
  // IsPodResizeInfeasible: the spec is not read where status is.
  bool infeasible_;
  // FindStatus's index when the pod has many status entries.
  absl::flat_hash_map<absl::string_view, StatusRef> by_name_;
};

}  // namespace

bool IsSidecar(const v1::Container& container) {
  return container.has_restart_policy() &&
         container.restart_policy() == "Always";
}

bool IsPodResizeInfeasible(const v1::PodStatus& status) {
  const v1::Condition* pending = FindCondition(
      status.conditions(), well_known::kConditionTypePodResizePending);
  return pending != nullptr &&
         pending->reason() == well_known::kReasonInfeasible;
}

bool IsSupportedPodLevelResource(absl::string_view name) {
  return name == kResourceCpu || name == kResourceMemory ||
         absl::StartsWith(name, kResourceHugePagesPrefix);
}

absl::StatusOr<std::vector<std::pair<std::string, int64_t>>> PodRequests(
    const v1::Pod& pod) {
  PodRequestList list;
  if (absl::Status s = Aggregator(pod, nullptr, /*sorted=*/true).Run(list);
      !s.ok()) {
    return s;
  }
  std::vector<std::pair<std::string, int64_t>> out;
  out.reserve(list.size());
  for (const auto& [key, v] : list) out.emplace_back(std::string(key), v);
  std::sort(out.begin(), out.end());
  return out;
}

absl::Status PodRequestsCalculator::Compute(const v1::Pod& pod,
                                            PodRequestList& out) {
  absl::Status fast = Aggregator(pod, &parsed_, /*sorted=*/false).Run(out);
  if (fast.ok()) return fast;
  // Report the error PodRequests reports: the first in field order.
  absl::Status ordered = Aggregator(pod, nullptr, /*sorted=*/true).Run(out);
  return ordered.ok() ? fast : ordered;
}

}  // namespace karpenter::scheduling
