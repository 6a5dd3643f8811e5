// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#include "karpenter/scheduling/node_resources.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "karpenter/scheduling/resources.h"

namespace karpenter::scheduling {
namespace {

// fit.go's fixed order; any other resource ranks after them, by name.
int Rank(absl::string_view name) {
  if (name == kResourcePods) return 0;
  if (name == kResourceCpu) return 1;
  if (name == kResourceMemory) return 2;
  if (name == kResourceEphemeralStorage) return 3;
  return 4;
}

absl::Status CheckRow(absl::string_view what, absl::Span<const int64_t> row,
                      size_t dims) {
  if (row.size() == dims) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      what, ": ", row.size(), " values for ", dims, " resource dimensions"));
}

// `free_of(i)` is what dimension i has free, as a 128-bit value so that
// allocatable - requested never overflows.
template <typename FreeOf>
std::vector<FilterFailure> Fit(const ResourceDims& dims,
                               absl::Span<const int64_t> pod,
                               absl::Span<const int64_t> allocatable,
                               FreeOf free_of) {
  std::vector<FilterFailure> out;
  const std::optional<size_t> pods = dims.pods_index();
  for (const uint32_t i : dims.report_order()) {
    const bool is_pods = pods.has_value() && *pods == i;
    // One pod, whatever the row says; other resources only when requested.
    const int64_t want = is_pods ? kOnePodMilli : pod[i];
    if (want <= 0 || static_cast<__int128>(want) <= free_of(i)) continue;
    const FilterCode code = !is_pods && want > allocatable[i]
                                ? FilterCode::kUnschedulableAndUnresolvable
                                : FilterCode::kUnschedulable;
    out.push_back(FilterFailure{kNodeResourcesFit, code, dims.message(i)});
  }
  return out;
}

}  // namespace

absl::StatusOr<ResourceDims> ResourceDims::Create(
    std::vector<std::string> names) {
  absl::flat_hash_set<absl::string_view> seen;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i].empty()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("dims[%d]: empty resource name", i));
    }
    if (!seen.insert(names[i]).second) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "dims[%d]: duplicate resource name \"%s\"", i, names[i]));
    }
  }
  ResourceDims dims;
  dims.names_ = std::move(names);
  const std::vector<std::string>& n = dims.names_;
  dims.report_order_.resize(n.size());
  dims.messages_.reserve(n.size());
  for (uint32_t i = 0; i < n.size(); ++i) {
    dims.report_order_[i] = i;
    if (n[i] == kResourcePods) {
      dims.pods_ = i;
      dims.messages_.emplace_back("Too many pods");
    } else {
      dims.messages_.push_back(absl::StrCat("Insufficient ", n[i]));
    }
  }
  std::sort(dims.report_order_.begin(), dims.report_order_.end(),
            [&](uint32_t a, uint32_t b) {
              const int ra = Rank(n[a]);
              const int rb = Rank(n[b]);
              if (ra != rb) return ra < rb;
              return n[a] < n[b];
            });
  return dims;
}

std::optional<size_t> ResourceDims::Find(absl::string_view name) const {
  const auto it = std::find(names_.begin(), names_.end(), name);
  if (it == names_.end()) return std::nullopt;
  return static_cast<size_t>(it - names_.begin());
}

absl::StatusOr<std::vector<FilterFailure>> NodeResourcesFit(
    const ResourceDims& dims, absl::Span<const int64_t> pod,
    absl::Span<const int64_t> allocatable,
    absl::Span<const int64_t> requested) {
  for (const auto& [what, row] :
       {std::pair{"pod", pod}, std::pair{"allocatable", allocatable},
        std::pair{"requested", requested}}) {
    if (absl::Status s = CheckRow(what, row, dims.size()); !s.ok()) return s;
  }
  return Fit(dims, pod, allocatable, [&](size_t i) {
    return static_cast<__int128>(allocatable[i]) - requested[i];
  });
}

absl::StatusOr<std::vector<FilterFailure>> NodeResourcesFitFree(
    const ResourceDims& dims, absl::Span<const int64_t> pod,
    absl::Span<const int64_t> allocatable, absl::Span<const int64_t> free) {
  for (const auto& [what, row] :
       {std::pair{"pod", pod}, std::pair{"allocatable", allocatable},
        std::pair{"free", free}}) {
    if (absl::Status s = CheckRow(what, row, dims.size()); !s.ok()) return s;
  }
  return Fit(dims, pod, allocatable,
             [&](size_t i) { return static_cast<__int128>(free[i]); });
}

}  // namespace karpenter::scheduling
