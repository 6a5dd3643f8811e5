// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/drain/classify.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "karpenter/drain/do_not_disrupt_window.h"
#include "karpenter/duration.h"
#include "karpenter/taints.h"
#include "karpenter/time_util.h"
#include "karpenter/well_known.h"

namespace karpenter::drain {
namespace {

bool OwnedBy(const v1::Pod& pod, absl::string_view api_version,
             absl::string_view kind) {
  for (const v1::OwnerReference& ref : pod.metadata().owner_references()) {
    if (ref.api_version() == api_version && ref.kind() == kind) return true;
  }
  return false;
}

const std::string* Annotation(const v1::Pod& pod, absl::string_view key) {
  const auto& annotations = pod.metadata().annotations();
  auto it = annotations.find(std::string(key));
  return it == annotations.end() ? nullptr : &it->second;
}

absl::Status InvalidDoNotDisrupt(absl::string_view value,
                                 absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(
      "metadata.annotations[\"", well_known::kDoNotDisruptAnnotationKey,
      "\"]: \"", value, "\" is neither \"true\" nor a positive Go duration (",
      why, ")"));
}

// `karpenter.sh/do-not-disrupt` alone (Karpenter IsDoNotDisruptActive).
DoNotDisrupt EvaluateDoNotDisruptOnly(const v1::Pod& pod, absl::Time now) {
  DoNotDisrupt result;
  const std::string* value =
      Annotation(pod, well_known::kDoNotDisruptAnnotationKey);
  if (value == nullptr) return result;
  if (*value == "true") {
    result.state = DoNotDisruptState::kActive;
    result.source = well_known::kDoNotDisruptAnnotationKey;
    return result;
  }
  absl::StatusOr<absl::Duration> d = ParseGoDuration(*value);
  if (!d.ok()) {
    result.invalid = InvalidDoNotDisrupt(*value, d.status().message());
    return result;
  }
  if (*d <= absl::ZeroDuration()) {
    result.invalid = InvalidDoNotDisrupt(*value, "not positive");
    return result;
  }
  result.source = well_known::kDoNotDisruptAnnotationKey;
  result.state = DoNotDisruptState::kActive;
  if (!pod.status().has_start_time()) return result;  // Fail safe.
  result.until = TimeFromProto(pod.status().start_time()) + *d;
  if (now >= *result.until) result.state = DoNotDisruptState::kLapsed;
  return result;
}

}  // namespace

absl::string_view PodReasonName(PodReason reason) {
  switch (reason) {
    case PodReason::kNone:
      return "None";
    case PodReason::kMirror:
      return "Mirror";
    case PodReason::kTerminal:
      return "Terminal";
    case PodReason::kToleratesDisruptedTaint:
      return "ToleratesDisruptedTaint";
    case PodReason::kStuckTerminating:
      return "StuckTerminating";
    case PodReason::kTerminating:
      return "Terminating";
    case PodReason::kDoNotDisrupt:
      return "DoNotDisrupt";
  }
  return "Unknown";
}

namespace {

// The SDK's window annotations alone (do_not_disrupt_window.h).
DoNotDisrupt EvaluateWindowOnly(const v1::Pod& pod, absl::Time now) {
  DoNotDisrupt result;
  absl::StatusOr<std::optional<DoNotDisruptWindow>> window =
      ParseDoNotDisruptWindow(pod.metadata().annotations());
  if (!window.ok()) {
    result.invalid = window.status();
    return result;
  }
  if (!window->has_value()) return result;
  const WindowState state = EvaluateWindow(**window, now);
  if (!state.active) return result;
  result.state = DoNotDisruptState::kActive;
  result.source = well_known::kDoNotDisruptScheduleAnnotationKey;
  result.until = state.until;
  result.window = (*window)->Describe();
  return result;
}

// Whether active `window` protects longer than `other`.
bool WindowIsStronger(const DoNotDisrupt& other, const DoNotDisrupt& window) {
  if (!other.active()) return true;
  if (!other.until.has_value()) return false;
  return !window.until.has_value() || *window.until > *other.until;
}

}  // namespace

DoNotDisrupt EvaluateDoNotDisrupt(const v1::Pod& pod, absl::Time now) {
  DoNotDisrupt result = EvaluateDoNotDisruptOnly(pod, now);
  // Only an indefinite do-not-disrupt is as strong as do-not-evict "true".
  if (!result.active() || result.until.has_value()) {
    const std::string* evict =
        Annotation(pod, well_known::kDoNotEvictPodAnnotationKey);
    if (evict != nullptr && *evict == "true") {
      result.state = DoNotDisruptState::kActive;
      result.source = well_known::kDoNotEvictPodAnnotationKey;
      result.until.reset();
    }
  }
  if (pod.metadata().annotations().empty()) return result;
  DoNotDisrupt window = EvaluateWindowOnly(pod, now);
  if (!window.invalid.ok()) {
    result.invalid =
        result.invalid.ok()
            ? window.invalid
            : absl::InvalidArgumentError(absl::StrCat(
                  result.invalid.message(), "; ", window.invalid.message()));
  }
  if (window.active() && WindowIsStronger(result, window)) {
    window.invalid = std::move(result.invalid);
    return window;
  }
  return result;
}

bool ToleratesTaint(const v1::Toleration& toleration, const v1::Taint& taint) {
  if (!toleration.effect().empty() && toleration.effect() != taint.effect()) {
    return false;
  }
  if (!toleration.key().empty() && toleration.key() != taint.key()) {
    return false;
  }
  const std::string& op = toleration.operator_();
  if (op.empty() || op == "Equal") return toleration.value() == taint.value();
  return op == "Exists";
}

bool ToleratesDisruptedNoScheduleTaint(const v1::Pod& pod) {
  const v1::Taint taint = DisruptedNoScheduleTaint();
  for (const v1::Toleration& t : pod.spec().tolerations()) {
    if (ToleratesTaint(t, taint)) return true;
  }
  return false;
}

bool IsTerminal(const v1::Pod& pod) {
  const std::string& phase = pod.status().phase();
  return phase == "Succeeded" || phase == "Failed";
}

bool IsTerminating(const v1::Pod& pod) {
  return pod.metadata().has_deletion_timestamp();
}

bool IsStuckTerminating(const v1::Pod& pod, absl::Time now) {
  return IsTerminating(pod) &&
         now - TimeFromProto(pod.metadata().deletion_timestamp()) >
             kStuckTerminatingAfter;
}

bool IsOwnedByDaemonSet(const v1::Pod& pod) {
  return OwnedBy(pod, "apps/v1", "DaemonSet");
}

bool IsOwnedByNode(const v1::Pod& pod) { return OwnedBy(pod, "v1", "Node"); }

bool IsCritical(const v1::Pod& pod) {
  const std::string& pc = pod.spec().priority_class_name();
  return pc == "system-cluster-critical" || pc == "system-node-critical";
}

namespace {

PodReason NotWaitingReason(const PodClass& c) {
  if (c.mirror) return PodReason::kMirror;
  if (c.terminal) return PodReason::kTerminal;
  if (c.tolerates_disrupted_taint) return PodReason::kToleratesDisruptedTaint;
  if (c.stuck_terminating) return PodReason::kStuckTerminating;
  return PodReason::kNone;
}

PodReason NotEvictableReason(const PodClass& c) {
  if (c.mirror) return PodReason::kMirror;
  if (c.terminal) return PodReason::kTerminal;
  if (c.terminating) return PodReason::kTerminating;
  if (c.tolerates_disrupted_taint) return PodReason::kToleratesDisruptedTaint;
  if (c.do_not_disrupt.active()) return PodReason::kDoNotDisrupt;
  return PodReason::kNone;
}

}  // namespace

PodClass Classify(const v1::Pod& pod, absl::Time now) {
  PodClass c;
  c.terminal = IsTerminal(pod);
  c.terminating = IsTerminating(pod);
  c.stuck_terminating = IsStuckTerminating(pod, now);
  c.mirror = IsOwnedByNode(pod);
  c.daemonset = IsOwnedByDaemonSet(pod);
  c.critical = IsCritical(pod);
  c.tolerates_disrupted_taint = ToleratesDisruptedNoScheduleTaint(pod);
  c.do_not_disrupt = EvaluateDoNotDisrupt(pod, now);
  c.drainable =
      !c.tolerates_disrupted_taint && !c.stuck_terminating && !c.mirror;
  c.waiting = !c.terminal && c.drainable;
  c.not_waiting_reason = NotWaitingReason(c);
  c.not_evictable_reason = NotEvictableReason(c);
  c.evictable = c.not_evictable_reason == PodReason::kNone;
  return c;
}

}  // namespace karpenter::drain
