// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Fuzzes Requirement::FromProto, the set algebra and requirements drift. The
// input is a small line format:
//   A key op v1,v2,...   a requirement of set A ("A key op" has no values)
//   B key op v1,v2,...   a requirement of set B
//   J {json}             a NodeSelectorRequirement as JSON, added to A
//   L k=v,k2=v2          NodeClaim labels
//   V value              a probe value for Has
// Besides not crashing, the target checks invariants: r ∩ r == r, ∩ is
// commutative and agrees with Has, sets do not depend on insertion order,
// Compatible(A, A) always holds, and drift equals labels-vs-A Compatible.

#include <google/protobuf/util/json_util.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "karpenter/drift/requirements_drift.h"
#include "karpenter/requirements.h"
#include "karpenter/v1/karpenter.pb.h"

namespace {

using karpenter::Requirement;
using karpenter::Requirements;
using ProtoList =
    google::protobuf::RepeatedPtrField<karpenter::v1::NodeSelectorRequirement>;

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

void AddText(absl::string_view text, ProtoList& list) {
  std::vector<absl::string_view> parts =
      absl::StrSplit(text, absl::MaxSplits(' ', 2));
  auto* p = list.Add();
  p->set_key(std::string(parts[0]));
  if (parts.size() > 1) p->set_operator_(std::string(parts[1]));
  if (parts.size() > 2) {
    for (absl::string_view v : absl::StrSplit(parts[2], ',')) {
      p->add_values(std::string(v));
    }
  }
}

void CheckPair(const Requirement& a, const Requirement& b,
               const std::vector<std::string>& probes) {
  const Requirement ab = a.Intersection(b);
  Check(ab == b.Intersection(a) || a.key() != b.key());
  Check(ab.Intersection(ab) == ab);
  for (const std::string& v : probes) {
    Check(ab.Has(v) == (a.Has(v) && b.Has(v)));
  }
}

void CheckSet(const Requirements& s, const ProtoList& list,
              const std::vector<std::string>& probes) {
  for (const auto& [key, r] : s.map()) {
    Check(r.Intersection(r) == r);
    Check(key == r.key());
    for (const auto& [key2, r2] : s.map()) CheckPair(r, r2, probes);
  }
  Check(s.Compatible(s));
  Check(s.Intersects(s));
  // Insertion order must not matter.
  ProtoList reversed = list;
  for (int i = 0, j = reversed.size() - 1; i < j; ++i, --j) {
    reversed.SwapElements(i, j);
  }
  absl::StatusOr<Requirements> r = Requirements::FromProto(reversed, "r");
  Check(r.ok());
  Check(*r == s);
  Check(r->ToString() == s.ToString());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view input(reinterpret_cast<const char*>(data), size);
  karpenter::v1::NodePool pool;
  ProtoList& a = *pool.mutable_spec()
                      ->mutable_template_()
                      ->mutable_spec()
                      ->mutable_requirements();
  ProtoList b;
  karpenter::v1::NodeClaim claim;
  auto& labels = *claim.mutable_metadata()->mutable_labels();
  std::vector<std::string> probes = {"", "0", "5", "-1", "a"};
  for (absl::string_view line : absl::StrSplit(input, '\n')) {
    if (absl::ConsumePrefix(&line, "A ")) {
      AddText(line, a);
    } else if (absl::ConsumePrefix(&line, "B ")) {
      AddText(line, b);
    } else if (absl::ConsumePrefix(&line, "J ")) {
      karpenter::v1::NodeSelectorRequirement p;
      google::protobuf::util::JsonParseOptions options;
      options.ignore_unknown_fields = true;
      if (google::protobuf::util::JsonStringToMessage(std::string(line), &p,
                                                      options)
              .ok()) {
        *a.Add() = p;
      }
    } else if (absl::ConsumePrefix(&line, "L ")) {
      for (absl::string_view kv : absl::StrSplit(line, ',')) {
        std::vector<absl::string_view> parts =
            absl::StrSplit(kv, absl::MaxSplits('=', 1));
        labels[std::string(parts[0])] =
            parts.size() > 1 ? std::string(parts[1]) : "";
      }
    } else if (absl::ConsumePrefix(&line, "V ")) {
      probes.emplace_back(line);
    }
  }
  for (const auto& [k, v] : labels) probes.push_back(v);

  absl::StatusOr<Requirements> sa = Requirements::FromProto(a, "a");
  absl::StatusOr<Requirements> sb = Requirements::FromProto(b, "b");
  absl::StatusOr<std::optional<std::string>> drifted =
      karpenter::drift::RequirementsDrifted(pool, claim);
  Check(sa.ok() == drifted.ok());
  if (!sa.ok()) {
    Check(absl::IsInvalidArgument(sa.status()));
    return 0;
  }
  CheckSet(*sa, a, probes);
  const Requirements from_labels = Requirements::FromLabels(labels);
  Check(drifted->has_value() != from_labels.Compatible(*sa));
  if (!sb.ok()) return 0;
  CheckSet(*sb, b, probes);
  std::string why;
  const bool compatible = sa->Compatible(*sb, {}, &why);
  Check(compatible == why.empty());
  for (const auto& [key, ra] : sa->map()) {
    for (const auto& [key2, rb] : sb->map()) CheckPair(ra, rb, probes);
  }
  return 0;
}
