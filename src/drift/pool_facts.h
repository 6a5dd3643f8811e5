// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Internal to src/drift: what EvaluateAllDrift computes once per NodePool
// and per call instead of once per NodeClaim, and the memos that let
// NodeClaims share the answers of the requirements and instance-type checks.
//
// Why memoizing is exact (the answers, including every `why` byte, are those
// of RequirementsDrifted and InstanceTypeNotFound on the full claim):
//   * RequirementsDrifted reads the claim only through
//     `FromLabels(labels).Compatible(poolReqs)`. Compatible looks at the
//     pool's keys (defined on the claim or not) and at the claim's
//     requirement for those keys only; a claim label whose normalized key the
//     pool does not constrain (e.g. `kubernetes.io/hostname`) never shows. So
//     the answer is a function of the pool and of the claim's labels whose
//     normalized key is one of the pool's keys (all of them, aliases
//     included, since aliases intersect into one requirement).
//   * InstanceTypeNotFound reads the raw `node.kubernetes.io/instance-type`
//     label, and otherwise only the claim's requirements for the zone and
//     capacity-type keys (offerings constrain no other key, and the message
//     prints only those two), given the pool's catalogue entry.
// A memo key encodes such a projection injectively (length-prefixed, sorted
// by raw key), so claims differing in a projected label never share a key.
//
// Thread-safety: not thread-safe; one instance per call.
#ifndef KARPENTER_SRC_DRIFT_POOL_FACTS_H_
#define KARPENTER_SRC_DRIFT_POOL_FACTS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "google/protobuf/map.h"
#include "karpenter/cloud_provider.h"
#include "karpenter/disruption/types.h"
#include "karpenter/requirements.h"
#include "karpenter/v1/karpenter.pb.h"

namespace karpenter::drift::internal {

// Parses `pool`'s spec.template.spec.requirements, errors naming the field
// as RequirementsDrifted documents.
absl::StatusOr<Requirements> PoolRequirements(const v1::NodePool& pool);

// RequirementsDrifted with the NodePool's requirements already parsed.
std::optional<std::string> RequirementsDriftedAgainst(
    const Requirements& pool_reqs, const v1::NodeClaim& claim,
    std::string* why);

// A memoized check result: the drift reason (nullopt: not drifted) and, when
// drifted, the `why` the check wrote.
struct CheckAnswer {
  std::optional<std::string> reason;
  std::string why;
};

// Interns normalized label keys as small integers, normalizing each distinct
// raw key once per call (NormalizeLabelKey allocates).
class LabelKeys {
 public:
  // The id of NormalizeLabelKey(raw).
  int IdOfRaw(const std::string& raw);
  // The id of an already normalized key.
  int IdOfNormalized(absl::string_view normalized);

 private:
  absl::flat_hash_map<std::string, int> raw_;
  absl::flat_hash_map<std::string, int> normalized_;
};

// One NodePool's facts for one call: its parsed requirements, catalogue
// entry and the memos of its claims' answers.
class PoolFacts {
 public:
  // `keys` and `catalog` (may be null) must outlive this.
  PoolFacts(const v1::NodePool& pool,
            const disruption::InstanceTypeCatalog* catalog, LabelKeys& keys);

  const v1::NodePool& pool() const { return *pool_; }

  // RequirementsDrifted(pool(), claim, &why) as a CheckAnswer, or its
  // error. The reference is valid until the next call.
  absl::StatusOr<const CheckAnswer*> RequirementsAnswer(
      const v1::NodeClaim& claim);

  // The pool's catalogue entry, null when there is no catalogue or the
  // NodePool is absent from it.
  const std::vector<InstanceType>* types() const { return types_; }

  // InstanceTypeNotFound(claim, *types(), &why) as a CheckAnswer; types()
  // must be non-null. The reference is valid until the next call.
  const CheckAnswer& InstanceTypeAnswer(const v1::NodeClaim& claim);

 private:
  using Label = google::protobuf::MapPair<std::string, std::string>;

  // Appends to key_ the claim's labels whose normalized key id is in `ids`.
  void AppendProjection(const v1::NodeClaim& claim, absl::Span<const int> ids);

  const v1::NodePool* pool_;
  const std::vector<InstanceType>* types_ = nullptr;
  LabelKeys* keys_;
  std::optional<absl::StatusOr<Requirements>> reqs_;
  std::vector<int> req_ids_;
  std::vector<int> offering_ids_;
  absl::flat_hash_map<std::string, CheckAnswer> req_memo_;
  absl::flat_hash_map<std::string, CheckAnswer> type_memo_;
  // Scratch space reused across claims.
  std::string key_;
  std::vector<const Label*> selected_;
};

}  // namespace karpenter::drift::internal

#endif  // KARPENTER_SRC_DRIFT_POOL_FACTS_H_
