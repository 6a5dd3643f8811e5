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
//     the answer is a function of the pool's requirements and of the claim's
//     labels whose normalized key is one of the pool's keys (all of them,
//     aliases included, since aliases intersect into one requirement).
//     NodePools whose requirement protos serialize to the same bytes parse to
//     the same requirements and share answers.
//   * InstanceTypeNotFound reads the raw `node.kubernetes.io/instance-type`
//     label and otherwise only the claim's requirements for the zone and
//     capacity-type keys (offerings constrain no other key, and the message
//     prints only those two). Of the NodePool's types it reads the count,
//     each name, and each offering's count, zone and capacity type; NodePools
//     whose catalogue entries agree on those share answers.
// A memo key encodes such an input injectively (length-prefixed, labels
// sorted by raw key), so claims differing in a read label never share a key.
// The labels are found by direct lookups of every raw key that normalizes to
// a read key (the key and its deprecated aliases), not by scanning all of
// the claim's labels: scanning touches every label's memory and cost more
// than the checks themselves.
//
// Thread-safety: not thread-safe; one instance per call.
#ifndef KARPENTER_SRC_DRIFT_POOL_FACTS_H_
#define KARPENTER_SRC_DRIFT_POOL_FACTS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "karpenter/cloud_provider.h"
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

// The NodePool's hash and hash-version annotations.
struct PoolHashAnnotations {
  std::optional<absl::string_view> hash;
  std::optional<absl::string_view> version;
};
PoolHashAnnotations HashAnnotationsOf(const v1::NodePool& pool);

// StaticDrifted with the NodePool's annotations already looked up; the
// claim's are not read when the NodePool lacks one.
std::optional<std::string> StaticDriftedAgainst(const PoolHashAnnotations& pool,
                                                const v1::NodeClaim& claim);

// A memoized check result: the drift reason (nullopt: not drifted) and, when
// drifted, the `why` the check wrote.
struct CheckAnswer {
  std::optional<std::string> reason;
  std::string why;
};

// One NodePool's facts for one call, made by DriftMemo::Facts.
struct PoolFacts {
  const v1::NodePool* pool = nullptr;
  PoolHashAnnotations hash;
  // The catalogue entry; null without a catalogue or when absent from it.
  const std::vector<InstanceType>* types = nullptr;
  // Filled on first use by DriftMemo::RequirementsAnswer.
  bool parsed = false;
  absl::Status error;
  std::optional<Requirements> reqs;
  // The raw label keys that normalize to a key of `reqs`, sorted.
  std::vector<std::string> req_raw_keys;
  int req_group = -1;   // Same group: same requirement protos.
  int type_group = -1;  // Same group: same catalogue fingerprint.
};

// The per-call memo.
class DriftMemo {
 public:
  // For `pools` NodePools; `catalog` (may be null) must outlive this.
  DriftMemo(const InstanceTypeCatalog* catalog, size_t pools);

  // The facts of `pool`, `slot` (< `pools`) being its index among the
  // call's NodePools: each slot must always be given the same NodePool. The
  // reference stays valid for the memo's lifetime.
  PoolFacts& Facts(size_t slot, const v1::NodePool& pool);

  // RequirementsDrifted(pool, claim, &why) as a CheckAnswer, or its error.
  // The pointer is valid until the next call.
  absl::StatusOr<const CheckAnswer*> RequirementsAnswer(
      PoolFacts& facts, const v1::NodeClaim& claim);

  // InstanceTypeNotFound(claim, *facts.types, &why) as a CheckAnswer;
  // facts.types must be non-null. The reference is valid until the next
  // call.
  const CheckAnswer& InstanceTypeAnswer(PoolFacts& facts,
                                        const v1::NodeClaim& claim);
  // What InstanceTypeAnswer reads of `claim`, as a key (Snapshot-only: a
  // DriftBook computes it once per claim).
  std::string InstanceTypeClaimKey(const v1::NodeClaim& claim) const;
  // InstanceTypeAnswer with the claim's key already computed; `claim` is
  // read only on a memo miss.
  const CheckAnswer& InstanceTypeAnswerByKey(PoolFacts& facts,
                                             absl::string_view claim_key,
                                             const v1::NodeClaim& claim);

 private:
  static int Intern(absl::flat_hash_map<std::string, int>& ids,
                    absl::string_view key);
  // Appends to key_ the labels of `claim` with a key in `raw_keys`, in that
  // (sorted) order.
  static void AppendProjection(const v1::NodeClaim& claim,
                               const std::vector<std::string>& raw_keys,
                               std::string& key);

  const InstanceTypeCatalog* catalog_;
  std::vector<std::optional<PoolFacts>> facts_;
  // The raw keys of the zone and capacity-type labels, sorted.
  std::vector<std::string> offering_raw_keys_;
  // Fingerprint -> group, for requirement protos and catalogue entries.
  absl::flat_hash_map<std::string, int> req_groups_;
  absl::flat_hash_map<std::string, int> type_groups_;
  absl::flat_hash_map<std::string, CheckAnswer> req_memo_;
  absl::flat_hash_map<std::string, CheckAnswer> type_memo_;
  std::string key_;  // Scratch.
};

}  // namespace karpenter::drift::internal

#endif  // KARPENTER_SRC_DRIFT_POOL_FACTS_H_
