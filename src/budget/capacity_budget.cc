// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The capacity-weighted budget extension (see karpenter/budget/extensions.h).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "budget/extensions_internal.h"
#include "budget/membership.h"
#include "common/status_macros.h"
#include "karpenter/budget/extensions.h"

namespace karpenter::budget {
namespace {

// `node.status.allocatable[resource]` in the resource's unit, or an error
// naming the node and the field. Messages are built only on failure: this
// runs twice per node of every Snapshot.
absl::StatusOr<int64_t> ReadAllocatable(const v1::Node& node,
                                        CapacityResource resource) {
  static const std::string* const kKeys[] = {new std::string("cpu"),
                                             new std::string("memory")};
  const std::string& key = *kKeys[static_cast<size_t>(resource)];
  const auto& allocatable = node.status().allocatable();
  auto it = allocatable.find(key);
  auto field = [&] {
    return absl::StrCat("node \"", node.metadata().name(),
                        "\": status.allocatable[\"", key, "\"]");
  };
  if (it == allocatable.end()) {
    return absl::InvalidArgumentError(absl::StrCat(field(), " is missing"));
  }
  absl::StatusOr<int64_t> v =
      internal::AmountFromQuantity(resource, it->second);
  if (!v.ok()) {
    return absl::Status(v.status().code(),
                        absl::StrCat(field(), ": \"", it->second,
                                     "\": ", v.status().message()));
  }
  return v;
}

// ceil(percent * total / 100) exactly, for 0 <= percent <= 100 and
// total >= 0: split total so no intermediate exceeds total.
int64_t PercentRoundedUp(int64_t percent, int64_t total) {
  const int64_t whole = (total / 100) * percent;
  const int64_t part = (total % 100) * percent;
  return whole + part / 100 + (part % 100 != 0 ? 1 : 0);
}

std::string SpecLabel(const CapacityBudgetSpec& spec) {
  return absl::StrCat("capacity ", FormatCapacityBudget(spec));
}

}  // namespace

CapacityBook CapacityBook::Build(const snapshot::Snapshot& snapshot) {
  CapacityBook book;
  const size_t pools = snapshot.node_pools().size();
  book.nodes_.resize(pools);
  for (size_t i = 0; i < pools; ++i) {
    book.index_.emplace(snapshot.node_pools()[i].metadata().name(), i);
  }
  const auto nodes = snapshot.nodes();
  for (size_t n = 0; n < nodes.size(); ++n) {
    const std::optional<internal::PoolMember> member =
        internal::ClassifyNode(snapshot, nodes[n]);
    if (!member.has_value()) continue;
    book.nodes_[member->pool].push_back(
        Node{static_cast<snapshot::NodeIndex>(n),
             nodes[n].metadata().name(),
             member->disrupting,
             {ReadAllocatable(nodes[n], CapacityResource::kCpu),
              ReadAllocatable(nodes[n], CapacityResource::kMemory)}});
  }
  return book;
}

absl::StatusOr<CapacityEvaluation> CapacityBook::Evaluate(
    absl::string_view node_pool, const CapacityBudgetSpec& spec) const {
  KARPENTER_RETURN_IF_ERROR(ValidateCapacityBudget(spec));
  auto it = index_.find(node_pool);
  if (it == index_.end()) {
    return absl::NotFoundError(
        absl::StrCat("NodePool \"", node_pool, "\": not in the snapshot"));
  }
  CapacityEvaluation e;
  e.node_pool_ = std::string(node_pool);
  e.spec_ = spec;
  const size_t r = static_cast<size_t>(spec.resource);
  const std::vector<Node>& nodes = nodes_[it->second];
  std::optional<std::string> first_error;
  int64_t unreadable = 0;
  e.members_.reserve(nodes.size());
  for (const Node& n : nodes) {
    int64_t amount = 0;
    if (n.amount[r].ok()) {
      amount = *n.amount[r];
    } else {
      if (!first_error.has_value()) {
        first_error = std::string(n.amount[r].status().message());
      }
      ++unreadable;
    }
    if (__builtin_add_overflow(e.total_, amount, &e.total_)) {
      return absl::OutOfRangeError(absl::StrCat(
          "NodePool \"", node_pool, "\": total allocatable ",
          CapacityResourceName(spec.resource), " overflows int64"));
    }
    // A part of the total, so it cannot overflow.
    if (n.disrupting) e.disrupting_ += amount;
    e.members_.push_back({n.node, n.name, amount, n.disrupting});
  }
  if (first_error.has_value()) {
    e.fail_closed_ = true;
    e.why_ =
        absl::StrCat("fail closed: ", SpecLabel(spec), ": ", *first_error, " (",
                     unreadable, " of ", nodes.size(), " nodes unreadable)");
    return e;
  }
  e.allowance_ = spec.amount.is_percent()
                     ? PercentRoundedUp(spec.amount.value(), e.total_)
                     : spec.amount.value();
  e.remaining_ = std::max<int64_t>(e.allowance_ - e.disrupting_, 0);
  const CapacityResource res = spec.resource;
  e.why_ = absl::StrCat(SpecLabel(spec), ": allowance ",
                        internal::FormatAmount(res, e.allowance_), " of ",
                        internal::FormatAmount(res, e.total_));
  if (spec.amount.is_percent()) {
    absl::StrAppend(&e.why_, " (", spec.amount.ToString(),
                    " rounded up to the ",
                    res == CapacityResource::kCpu ? "millicore" : "byte", ")");
  }
  absl::StrAppend(&e.why_, ", ", internal::FormatAmount(res, e.disrupting_),
                  " disrupting, ", internal::FormatAmount(res, e.remaining_),
                  " remaining");
  return e;
}

absl::StatusOr<const CapacityEvaluation::Member*> CapacityEvaluation::Find(
    snapshot::NodeIndex n) const {
  auto it = std::lower_bound(
      members_.begin(), members_.end(), n,
      [](const Member& m, snapshot::NodeIndex v) { return m.node < v; });
  if (it == members_.end() || it->node != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "node index \"", n, "\": not a counted node of NodePool \"", node_pool_,
        "\""));
  }
  return &*it;
}

std::string CapacityEvaluation::Explain(int64_t cost) const {
  const std::string label = SpecLabel(spec_);
  if (cost == 0) {
    return absl::StrCat(label,
                        ": the candidates add nothing (none, or all already "
                        "disrupting)");
  }
  const CapacityResource res = spec_.resource;
  // disrupting and cost are disjoint parts of total: no overflow.
  const int64_t sum = disrupting_ + cost;
  return absl::StrCat(label, ": ", internal::FormatAmount(res, disrupting_),
                      " disrupting + ", internal::FormatAmount(res, cost),
                      " from candidates = ", internal::FormatAmount(res, sum),
                      sum <= allowance_ ? " <= " : " > ", "allowance ",
                      internal::FormatAmount(res, allowance_), " (of ",
                      internal::FormatAmount(res, total_), ")");
}

absl::StatusOr<CapacityVerdict> CapacityEvaluation::CanDisrupt(
    absl::Span<const snapshot::NodeIndex> candidates) const {
  std::vector<snapshot::NodeIndex> unique(candidates.begin(), candidates.end());
  std::sort(unique.begin(), unique.end());
  unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
  CapacityVerdict v;
  for (snapshot::NodeIndex n : unique) {
    KARPENTER_ASSIGN_OR_RETURN(const Member* m, Find(n));
    if (!m->disrupting) v.cost += m->amount;
  }
  if (fail_closed_) {
    v.allowed = unique.empty();
    v.why = why_;
    return v;
  }
  v.allowed = v.cost <= remaining_;
  v.why = Explain(v.cost);
  return v;
}

absl::StatusOr<CapacityVerdict> CapacityEvaluation::CanDisrupt(
    const snapshot::Snapshot& snapshot,
    absl::Span<const std::string> candidates) const {
  std::vector<snapshot::NodeIndex> indexes;
  indexes.reserve(candidates.size());
  for (const std::string& name : candidates) {
    std::optional<snapshot::NodeIndex> n = snapshot.FindNode(name);
    if (!n.has_value()) {
      return absl::NotFoundError(
          absl::StrCat("node \"", name, "\": not in the snapshot"));
    }
    indexes.push_back(*n);
  }
  return CanDisrupt(indexes);
}

absl::StatusOr<CapacityPrefix> CapacityEvaluation::LongestFittingPrefix(
    absl::Span<const snapshot::NodeIndex> candidates) const {
  std::vector<const Member*> members;
  members.reserve(candidates.size());
  for (snapshot::NodeIndex n : candidates) {
    KARPENTER_ASSIGN_OR_RETURN(const Member* m, Find(n));
    members.push_back(m);
  }
  CapacityPrefix p;
  if (fail_closed_) {
    p.why = why_;
    return p;
  }
  const std::string label = SpecLabel(spec_);
  const CapacityResource res = spec_.resource;
  absl::flat_hash_set<snapshot::NodeIndex> seen;  // Lookup only.
  for (const Member* m : members) {
    const bool counted = m->disrupting || seen.contains(m->node);
    const int64_t add = counted ? 0 : m->amount;
    if (p.cost + add > remaining_) {
      p.why = absl::StrCat(
          label, ": first ", p.length, " of ", members.size(),
          " candidates fit, adding ", internal::FormatAmount(res, p.cost),
          " of remaining ", internal::FormatAmount(res, remaining_),
          "; node \"", m->name, "\" would add ",
          internal::FormatAmount(res, add));
      return p;
    }
    seen.insert(m->node);
    p.cost += add;
    ++p.length;
  }
  p.why =
      absl::StrCat(label, ": all ", members.size(), " candidates fit, adding ",
                   internal::FormatAmount(res, p.cost), " of remaining ",
                   internal::FormatAmount(res, remaining_));
  return p;
}

}  // namespace karpenter::budget
