// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#include "karpenter/scheduling/fit.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "karpenter/cloud_provider.h"
#include "karpenter/disruption/scheduler.h"
#include "karpenter/scheduling/filter_status.h"

namespace karpenter::scheduling {

absl::StatusOr<v1::FitReport> FitPod(const snapshot::Snapshot& snapshot,
                                     absl::string_view ns,
                                     absl::string_view name) {
  const std::optional<snapshot::PodIndex> pod = snapshot.FindPod(ns, name);
  if (!pod.has_value()) {
    return absl::NotFoundError(
        absl::StrCat("pods/", ns, "/", name, ": not in the snapshot"));
  }
  // A pending pod's requests are checked only when it is the one asked
  // about; no instance types are needed.
  disruption::SimulatorOptions options;
  options.include_pending_pods = snapshot.PodIsUnbound(*pod);
  absl::StatusOr<disruption::Scheduler> scheduler =
      disruption::Scheduler::Build(snapshot, InstanceTypeCatalog(), options);
  if (!scheduler.ok()) return scheduler.status();
  absl::StatusOr<std::vector<std::vector<FilterFailure>>> fit =
      scheduler->Fit(*pod);
  if (!fit.ok()) return fit.status();
  v1::FitReport report;
  report.set_pod(snapshot.PodKey(*pod));
  std::vector<snapshot::NodeIndex> order(snapshot.nodes().size());
  for (snapshot::NodeIndex n = 0; n < order.size(); ++n) order[n] = n;
  std::sort(order.begin(), order.end(),
            [&](snapshot::NodeIndex a, snapshot::NodeIndex b) {
              return snapshot.nodes()[a].metadata().name() <
                     snapshot.nodes()[b].metadata().name();
            });
  std::map<std::string, int> histogram;
  int fits = 0;
  for (snapshot::NodeIndex n : order) {
    const std::vector<FilterFailure>& failures = (*fit)[n];
    v1::FitNode& node = *report.add_nodes();
    node.set_name(snapshot.nodes()[n].metadata().name());
    node.set_fits(failures.empty());
    if (failures.empty()) ++fits;
    for (const FilterFailure& f : failures) {
      v1::FitReason& r = *node.add_reasons();
      r.set_plugin(std::string(f.plugin));
      r.set_message(f.message);
    }
    // kube-scheduler counts the reasons of the first failing plugin.
    for (const FilterFailure& f : failures) {
      if (f.plugin != failures.front().plugin) break;
      ++histogram[f.message];
    }
  }
  const int nodes = static_cast<int>(order.size());
  if (fits > 0) {
    report.set_summary(absl::StrCat(fits, "/", nodes, " nodes are available."));
  } else {
    report.set_summary(NoNodeAvailableMessage(nodes, histogram));
  }
  return report;
}

}  // namespace karpenter::scheduling
