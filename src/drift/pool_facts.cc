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
#include "karpenter/cloud_provider.h"
#include "karpenter/drift/verdict.h"
#include "karpenter/requirements.h"
#include "karpenter/v1/karpenter.pb.h"
#include "karpenter/well_known.h"
#include "primitives/label_aliases.h"

namespace karpenter::drift::internal {
namespace {

// A std::string_view probe: protobuf's Map looks it up without copying.
constexpr std::string_view kInstanceTypeLabel(
    well_known::kLabelInstanceTypeStable.data(),
    well_known::kLabelInstanceTypeStable.size());

void AppendNumber(std::string& out, uint64_t n) {
  out.append(reinterpret_cast<const char*>(&n), sizeof(n));
}

// Appends `s` length-prefixed, so that concatenations stay injective
// whatever bytes they hold.
void AppendSized(std::string& out, absl::string_view s) {
  AppendNumber(out, s.size());
  out.append(s.data(), s.size());
}

// Everything of `types` InstanceTypeNotFound reads.
std::string CatalogueFingerprint(const std::vector<InstanceType>& types) {
  std::string out;
  AppendNumber(out, types.size());
  for (const InstanceType& t : types) {
    AppendSized(out, t.name);
    AppendNumber(out, t.offerings.size());
    for (const Offering& o : t.offerings) {
      AppendSized(out, o.zone);
      AppendSized(out, o.capacity_type);
    }
  }
  return out;
}

// `keys` (normalized) and every deprecated alias of them, sorted.
std::vector<std::string> RawForms(const std::vector<absl::string_view>& keys) {
  std::vector<std::string> out;
  for (absl::string_view key : keys) {
    out.emplace_back(key);
    for (const auto& [alias, stable] : primitives_internal::kLabelKeyAliases) {
      if (stable == key) out.emplace_back(alias);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string RequirementsFingerprint(const v1::NodePool& pool) {
  std::string out;
  for (const v1::NodeSelectorRequirement& r :
       pool.spec().template_().spec().requirements()) {
    AppendSized(out, r.SerializeAsString());
  }
  return out;
}

}  // namespace

DriftMemo::DriftMemo(const InstanceTypeCatalog* catalog, size_t pools)
    : catalog_(catalog),
      facts_(pools),
      offering_raw_keys_(RawForms({well_known::kLabelTopologyZone,
                                   well_known::kCapacityTypeLabelKey})) {}

PoolFacts& DriftMemo::Facts(size_t slot, const v1::NodePool& pool) {
  std::optional<PoolFacts>& facts = facts_[slot];
  if (facts.has_value()) return *facts;
  facts.emplace();
  facts->pool = &pool;
  facts->hash = HashAnnotationsOf(pool);
  if (catalog_ != nullptr) {
    auto it = catalog_->find(pool.metadata().name());
    if (it != catalog_->end()) {
      facts->types = &it->second;
      facts->type_group =
          Intern(type_groups_, CatalogueFingerprint(it->second));
    }
  }
  return *facts;
}

absl::StatusOr<const CheckAnswer*> DriftMemo::RequirementsAnswer(
    PoolFacts& facts, const v1::NodeClaim& claim) {
  if (!facts.parsed) {
    facts.parsed = true;
    absl::StatusOr<Requirements> reqs = PoolRequirements(*facts.pool);
    if (!reqs.ok()) {
      facts.error = reqs.status();
    } else {
      std::vector<absl::string_view> keys;
      for (const auto& [key, r] : reqs->map()) keys.push_back(key);
      facts.req_raw_keys = RawForms(keys);
      facts.reqs = *std::move(reqs);
      facts.req_group =
          Intern(req_groups_, RequirementsFingerprint(*facts.pool));
    }
  }
  if (!facts.error.ok()) return facts.error;
  key_.clear();
  AppendNumber(key_, facts.req_group);
  AppendProjection(claim, facts.req_raw_keys, key_);
  if (auto it = req_memo_.find(key_); it != req_memo_.end()) {
    return &it->second;
  }
  CheckAnswer answer;
  answer.reason = RequirementsDriftedAgainst(*facts.reqs, claim, &answer.why);
  return &req_memo_.emplace(key_, std::move(answer)).first->second;
}

std::string DriftMemo::InstanceTypeClaimKey(const v1::NodeClaim& claim) const {
  std::string key;
  const auto& labels = claim.metadata().labels();
  if (auto it = labels.find(kInstanceTypeLabel); it == labels.end()) {
    key.push_back('\0');
  } else {
    key.push_back('\1');
    AppendSized(key, it->second);
  }
  AppendProjection(claim, offering_raw_keys_, key);
  return key;
}

const CheckAnswer& DriftMemo::InstanceTypeAnswer(PoolFacts& facts,
                                                 const v1::NodeClaim& claim) {
  return InstanceTypeAnswerByKey(facts, InstanceTypeClaimKey(claim), claim);
}

const CheckAnswer& DriftMemo::InstanceTypeAnswerByKey(
    PoolFacts& facts, absl::string_view claim_key, const v1::NodeClaim& claim) {
  key_.clear();
  AppendNumber(key_, facts.type_group);
  key_.append(claim_key.data(), claim_key.size());
  if (auto it = type_memo_.find(key_); it != type_memo_.end()) {
    return it->second;
  }
  CheckAnswer answer;
  answer.reason = InstanceTypeNotFound(claim, *facts.types, &answer.why);
  return type_memo_.emplace(key_, std::move(answer)).first->second;
}

int DriftMemo::Intern(absl::flat_hash_map<std::string, int>& ids,
                      absl::string_view key) {
  if (auto it = ids.find(key); it != ids.end()) return it->second;
  const int id = static_cast<int>(ids.size());
  ids.emplace(std::string(key), id);
  return id;
}

void DriftMemo::AppendProjection(const v1::NodeClaim& claim,
                                 const std::vector<std::string>& raw_keys,
                                 std::string& key) {
  const auto& labels = claim.metadata().labels();
  for (const std::string& raw : raw_keys) {
    if (auto it = labels.find(raw); it != labels.end()) {
      AppendSized(key, raw);
      AppendSized(key, it->second);
    }
  }
}

}  // namespace karpenter::drift::internal
