// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#include "karpenter/scheduling/filter_status.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace karpenter::scheduling {

std::string NoNodeAvailableMessage(
    int nodes, const std::map<std::string, int>& histogram) {
  std::vector<std::string> entries;
  entries.reserve(histogram.size());
  for (const auto& [message, count] : histogram) {
    entries.push_back(absl::StrCat(count, " ", message));
  }
  // Go's sort.Strings: byte-wise, so "10 x" sorts before "2 y".
  std::sort(entries.begin(), entries.end());
  std::string out = absl::StrCat("0/", nodes, " nodes are available");
  if (!entries.empty())
    absl::StrAppend(&out, ": ", absl::StrJoin(entries, ", "));
  absl::StrAppend(&out, ".");
  return out;
}

}  // namespace karpenter::scheduling
