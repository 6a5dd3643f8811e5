// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Fuzzes LabelSelector::FromProto and Matches. The input is a small line
// format that builds a v1::LabelSelector and some label sets:
//   nil                  the selector is null (must select nothing)
//   L key=value          a matchLabels entry
//   E key op v1,v2,...   a matchExpressions entry ("E key op" has no values)
//   P k=v,k2=v2          a label set to match against
//   S text               a selector string for LabelSelector::Parse
// Besides not crashing, the target checks invariants: the selector does not
// depend on expression order, both Matches overloads agree, nil/empty
// selectors behave as documented, and Parse inverts ToString.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "karpenter/selector.h"
#include "karpenter/v1/meta.pb.h"

namespace {

using Labels = google::protobuf::Map<std::string, std::string>;

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

Labels ParseLabels(absl::string_view text) {
  Labels labels;
  for (absl::string_view kv : absl::StrSplit(text, ',')) {
    std::vector<absl::string_view> parts =
        absl::StrSplit(kv, absl::MaxSplits('=', 1));
    labels[std::string(parts[0])] =
        parts.size() > 1 ? std::string(parts[1]) : "";
  }
  return labels;
}

void AddExpression(absl::string_view text, karpenter::v1::LabelSelector& sel) {
  std::vector<absl::string_view> parts =
      absl::StrSplit(text, absl::MaxSplits(' ', 2));
  auto* expr = sel.add_match_expressions();
  expr->set_key(std::string(parts[0]));
  if (parts.size() > 1) expr->set_operator_(std::string(parts[1]));
  if (parts.size() > 2) {
    for (absl::string_view v : absl::StrSplit(parts[2], ',')) {
      expr->add_values(std::string(v));
    }
  }
}

void CheckMatches(const karpenter::LabelSelector& s, const Labels& labels) {
  const bool by_map = s.Matches(labels);
  const bool by_lookup = s.Matches(
      [&](absl::string_view key) -> absl::optional<absl::string_view> {
        auto it = labels.find(std::string(key));
        if (it == labels.end()) return absl::nullopt;
        return absl::string_view(it->second);
      });
  Check(by_map == by_lookup);
  if (s.MatchesNothing()) Check(!by_map);
  if (s.MatchesEverything()) Check(by_map);
}

// Kubernetes prints an In/NotIn set holding only "" as "k in ()", which does
// not parse back; every other valid selector must survive the round trip.
void CheckRoundTrip(const karpenter::LabelSelector& s) {
  for (const auto& r : s.requirements()) {
    if (r.values.size() == 1 && r.values[0].empty() &&
        r.op != karpenter::LabelSelector::Operator::kEquals) {
      return;
    }
  }
  absl::StatusOr<karpenter::LabelSelector> back =
      karpenter::LabelSelector::Parse(s.ToString());
  Check(back.ok());
  Check(*back == s);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view input(reinterpret_cast<const char*>(data), size);
  karpenter::v1::LabelSelector sel;
  bool nil = false;
  std::vector<Labels> label_sets = {Labels()};
  Labels derived;  // Labels built from the selector's own keys and values.
  std::vector<absl::string_view> strings;
  for (absl::string_view line : absl::StrSplit(input, '\n')) {
    if (line == "nil") {
      nil = true;
    } else if (absl::ConsumePrefix(&line, "L ")) {
      std::vector<absl::string_view> kv =
          absl::StrSplit(line, absl::MaxSplits('=', 1));
      const std::string value = kv.size() > 1 ? std::string(kv[1]) : "";
      (*sel.mutable_match_labels())[std::string(kv[0])] = value;
      derived[std::string(kv[0])] = value;
    } else if (absl::ConsumePrefix(&line, "E ")) {
      AddExpression(line, sel);
      const auto& expr =
          sel.match_expressions(sel.match_expressions_size() - 1);
      derived[expr.key()] = expr.values().empty() ? "" : expr.values(0);
    } else if (absl::ConsumePrefix(&line, "P ")) {
      label_sets.push_back(ParseLabels(line));
    } else if (absl::ConsumePrefix(&line, "S ")) {
      strings.push_back(line);
    }
  }
  label_sets.push_back(derived);

  for (absl::string_view text : strings) {
    absl::StatusOr<karpenter::LabelSelector> parsed =
        karpenter::LabelSelector::Parse(text);
    if (!parsed.ok()) {
      Check(absl::IsInvalidArgument(parsed.status()));
      continue;
    }
    Check(!parsed->MatchesNothing());
    for (const Labels& labels : label_sets) CheckMatches(*parsed, labels);
    CheckRoundTrip(*parsed);
  }

  absl::StatusOr<karpenter::LabelSelector> s =
      karpenter::LabelSelector::FromProto(nil ? nullptr : &sel,
                                          "spec.selector");
  if (!s.ok()) {
    Check(absl::IsInvalidArgument(s.status()));
    return 0;
  }
  for (const Labels& labels : label_sets) CheckMatches(*s, labels);
  if (nil) {
    Check(s->MatchesNothing());
    return 0;
  }

  // Reversing the expressions must give the same selector and string.
  karpenter::v1::LabelSelector reversed = sel;
  auto* exprs = reversed.mutable_match_expressions();
  for (int i = 0, j = exprs->size() - 1; i < j; ++i, --j)
    exprs->SwapElements(i, j);
  absl::StatusOr<karpenter::LabelSelector> r =
      karpenter::LabelSelector::FromProto(&reversed, "spec.selector");
  Check(r.ok());
  Check(*r == *s);
  Check(r->ToString() == s->ToString());
  CheckRoundTrip(*s);
  return 0;
}
