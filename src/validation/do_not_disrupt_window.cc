// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// `karpenter validate` checks of the SDK's do-not-disrupt window
// annotations (issue 26): DoNotDisruptWindowErrors and the snapshot walk.

#include "validation/do_not_disrupt_window.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "karpenter/drain/do_not_disrupt_window.h"
#include "karpenter/well_known.h"

namespace karpenter::validation {
namespace {

bool HasWindowAnnotation(const v1::ObjectMeta& metadata) {
  const auto& a = metadata.annotations();
  if (a.empty()) return false;
  return a.contains(
             std::string(well_known::kDoNotDisruptScheduleAnnotationKey)) ||
         a.contains(
             std::string(well_known::kDoNotDisruptDurationAnnotationKey));
}

void AppendAll(std::vector<FieldError> from, std::vector<FieldError>& to) {
  for (FieldError& e : from) to.push_back(std::move(e));
}

}  // namespace

std::vector<FieldError> DoNotDisruptWindowErrors(
    absl::string_view kind, absl::string_view object,
    const v1::ObjectMeta& metadata) {
  std::vector<FieldError> errors;
  for (drain::WindowProblem& p :
       drain::DoNotDisruptWindowProblems(metadata.annotations())) {
    FieldError e;
    e.api_version = "v1";
    e.kind = std::string(kind);
    e.object = std::string(object);
    e.field = absl::StrCat("metadata.annotations[\"", p.key, "\"]");
    e.problem = std::move(p.problem);
    e.value = std::move(p.value);
    errors.push_back(std::move(e));
  }
  return errors;
}

namespace internal {

void CheckDoNotDisruptWindows(const snapshot::Snapshot& snapshot,
                              SnapshotReport& report) {
  int64_t nodes = 0;
  for (const v1::Node& node : snapshot.nodes()) {
    if (!HasWindowAnnotation(node.metadata())) continue;
    ++nodes;
    AppendAll(DoNotDisruptWindowErrors("Node", node.metadata().name(),
                                       node.metadata()),
              report.errors);
  }
  int64_t pods = 0;
  for (snapshot::PodIndex p = 0; p < snapshot.pod_count(); ++p) {
    // Annotations are part of the pod's shape (snapshot.h).
    const v1::ObjectMeta& metadata = snapshot.PodShape(p).metadata();
    if (!HasWindowAnnotation(metadata)) continue;
    ++pods;
    AppendAll(DoNotDisruptWindowErrors("Pod", snapshot.PodKey(p), metadata),
              report.errors);
  }
  if (nodes > 0) report.checked["Node"] = nodes;
  if (pods > 0) report.checked["Pod"] = pods;
}

}  // namespace internal
}  // namespace karpenter::validation
