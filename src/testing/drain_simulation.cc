// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/testing/drain_simulation.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "karpenter/drain/classify.h"
#include "karpenter/taints.h"
#include "karpenter/time_util.h"
#include "karpenter/well_known.h"

namespace karpenter::testing {
namespace {

// Steps allowed at one instant before time must move on. A Step that made
// calls may have emptied a tier, so the next gets one more look; a force
// delete re-issued for a pod past the deadline must not spin forever.
constexpr int kMaxStepsPerInstant = 4;

absl::Status Validate(const std::vector<std::string>& nodes,
                      absl::Duration limit) {
  if (nodes.empty()) return absl::InvalidArgumentError("nodes: empty");
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("nodes[", i, "]: must not be empty"));
    }
  }
  if (limit < absl::ZeroDuration() || limit == absl::InfiniteDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("limit: must be finite and >= 0, got \"",
                     absl::FormatDuration(limit), "\""));
  }
  return absl::OkStatus();
}

absl::Status TaintAll(FakeCluster& cluster,
                      const std::vector<std::string>& nodes) {
  const v1::Taint taint = DisruptedNoScheduleTaint();
  for (const std::string& node : nodes) {
    const absl::Status s = cluster.TaintNode(node, taint);
    if (!s.ok()) {
      return absl::Status(s.code(), absl::StrCat("tainting node \"", node,
                                                 "\": ", s.message()));
    }
  }
  return absl::OkStatus();
}

int64_t StatusCount(const drain::DrainCounts& c, int code) {
  const auto it = c.evict_http_status.find(code);
  return it == c.evict_http_status.end() ? 0 : it->second;
}

void Summarise(const drain::DrainCounts& c, DrainSimulationResult& r) {
  r.counts = c;
  r.evict_calls = c.evict_calls;
  r.http_200 = StatusCount(c, 200) + StatusCount(c, 201);
  r.http_404 = StatusCount(c, 404);
  r.http_409 = StatusCount(c, 409);
  r.http_429 = StatusCount(c, 429);
  r.http_500 = StatusCount(c, 500);
  r.http_other = c.evict_calls - r.http_200 - r.http_404 - r.http_409 -
                 r.http_429 - r.http_500;
  r.force_deletes = c.force_deletes;
  r.local_pdb_blocks = c.local_pdb_blocks;
}

}  // namespace

absl::StatusOr<DrainSimulationResult> SimulateDrain(
    FakeCluster& cluster, FakeClock& clock, std::vector<std::string> nodes,
    drain::DrainerOptions options, absl::Duration limit) {
  KARPENTER_RETURN_IF_ERROR(Validate(nodes, limit));
  KARPENTER_RETURN_IF_ERROR(TaintAll(cluster, nodes));
  KARPENTER_ASSIGN_OR_RETURN(
      std::unique_ptr<drain::Drainer> drainer,
      drain::Drainer::Create(cluster, cluster, clock, std::move(options)));
  for (const std::string& node : nodes) {
    KARPENTER_RETURN_IF_ERROR(drainer->Drain(node));
  }
  const absl::Time start = clock.Now();
  const absl::Time end = start + limit;
  DrainSimulationResult result;
  int at_instant = 0;
  while (true) {
    KARPENTER_ASSIGN_OR_RETURN(drain::StepReport report, drainer->Step());
    ++result.steps;
    ++at_instant;
    for (drain::DrainerEvent& e : report.events) {
      result.events.push_back(std::move(e));
    }
    const absl::Time now = report.now;
    result.drain_time = now - start;
    if (drainer->nodes().empty()) {
      result.completed = true;
      break;
    }
    const bool called =
        report.counts.evict_calls + report.counts.force_deletes > 0;
    if (called && at_instant < kMaxStepsPerInstant) continue;
    absl::Time next = report.next_wake;
    if (const auto event = cluster.NextEventTime())
      next = std::min(next, *event);
    if (next <= now && at_instant < kMaxStepsPerInstant) continue;
    if (next == absl::InfiniteFuture() || next > end) break;
    if (next <= now) {
      return absl::InternalError(absl::StrCat(
          "drain simulation: time cannot advance at ", FormatRfc3339(now),
          " with ", drainer->nodes().size(), " node(s) still draining"));
    }
    KARPENTER_RETURN_IF_ERROR(clock.SetTime(next));
    at_instant = 0;
  }
  Summarise(drainer->totals(), result);
  result.pdb_violations = static_cast<int64_t>(cluster.PdbViolations().size());
  return result;
}

}  // namespace karpenter::testing
