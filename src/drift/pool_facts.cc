// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "drift/pool_facts.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "karpenter/disruption/types.h"
#include "karpenter/drift/verdict.h"
#include "karpenter/requirements.h"
#include "karpenter/v1/karpenter.pb.h"

namespace karpenter::drift::internal {
namespace {

constexpr std::string_view kInstanceTypeLabel =
    "node.kubernetes.io/instance-type";
constexpr absl::string_view kZoneLabel = "topology.kubernetes.io/zone";
constexpr absl::string_view kCapacityTypeLabel = "karpenter.sh/capacity-type";

// Appends `s` length-prefixed, so that concatenations stay injective
// whatever bytes the labels hold.
void AppendSized(std::string& out, absl::string_view s) {
  const uint64_t n = s.size();
  out.append(reinterpret_cast<const char*>(&n), sizeof(n));
  out.append(s.data(), s.size());
}

}  // namespace

int LabelKeys::IdOfRaw(const std::string& raw) {
  if (auto it = raw_.find(raw); it != raw_.end()) return it->second;
  const int id = IdOfNormalized(NormalizeLabelKey(raw));
  raw_.emplace(raw, id);
  return id;
}

int LabelKeys::IdOfNormalized(absl::string_view normalized) {
  if (auto it = normalized_.find(normalized); it != normalized_.end()) {
    return it->second;
  }
  const int id = static_cast<int>(normalized_.size());
  normalized_.emplace(std::string(normalized), id);
  return id;
}

PoolFacts::PoolFacts(const v1::NodePool& pool,
                     const disruption::InstanceTypeCatalog* catalog,
                     LabelKeys& keys)
    : pool_(&pool), keys_(&keys) {
  if (catalog != nullptr) {
    auto it = catalog->find(pool.metadata().name());
    if (it != catalog->end()) types_ = &it->second;
  }
  offering_ids_ = {keys.IdOfNormalized(kZoneLabel),
                   keys.IdOfNormalized(kCapacityTypeLabel)};
  std::sort(offering_ids_.begin(), offering_ids_.end());
}

absl::StatusOr<const CheckAnswer*> PoolFacts::RequirementsAnswer(
    const v1::NodeClaim& claim) {
  if (!reqs_.has_value()) {
    reqs_ = PoolRequirements(*pool_);
    if (reqs_->ok()) {
      for (const auto& [key, r] : (*reqs_)->map()) {
        req_ids_.push_back(keys_->IdOfNormalized(key));
      }
      std::sort(req_ids_.begin(), req_ids_.end());
    }
  }
  if (!reqs_->ok()) return reqs_->status();
  key_.clear();
  AppendProjection(claim, req_ids_);
  if (auto it = req_memo_.find(key_); it != req_memo_.end()) {
    return &it->second;
  }
  CheckAnswer answer;
  answer.reason = RequirementsDriftedAgainst(**reqs_, claim, &answer.why);
  return &req_memo_.emplace(key_, std::move(answer)).first->second;
}

const CheckAnswer& PoolFacts::InstanceTypeAnswer(const v1::NodeClaim& claim) {
  key_.clear();
  const auto& labels = claim.metadata().labels();
  if (auto it = labels.find(kInstanceTypeLabel); it == labels.end()) {
    key_.push_back('\0');
  } else {
    key_.push_back('\1');
    AppendSized(key_, it->second);
  }
  AppendProjection(claim, offering_ids_);
  if (auto it = type_memo_.find(key_); it != type_memo_.end()) {
    return it->second;
  }
  CheckAnswer answer;
  answer.reason = InstanceTypeNotFound(claim, *types_, &answer.why);
  return type_memo_.emplace(key_, std::move(answer)).first->second;
}

void PoolFacts::AppendProjection(const v1::NodeClaim& claim,
                                 absl::Span<const int> ids) {
  selected_.clear();
  for (const Label& label : claim.metadata().labels()) {
    if (std::binary_search(ids.begin(), ids.end(),
                           keys_->IdOfRaw(label.first))) {
      selected_.push_back(&label);
    }
  }
  // Map iteration order is arbitrary; the key must not depend on it.
  std::sort(selected_.begin(), selected_.end(),
            [](const Label* a, const Label* b) { return a->first < b->first; });
  for (const Label* label : selected_) {
    AppendSized(key_, label->first);
    AppendSized(key_, label->second);
  }
}

}  // namespace karpenter::drift::internal
