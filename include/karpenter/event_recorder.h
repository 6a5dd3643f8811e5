// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// EventRecorder: the host interface through which the SDK publishes
// Kubernetes events, with Karpenter's event reasons
// (pkg/events/reason.go, docs/semantics.md §7.2), so a host can post
// them as core/v1 Events without renaming anything.
//
// The reasons Karpenter defines are constants here. Reasons the SDK adds
// (marked "SDK") report things Karpenter only logs, such as a cloud
// provider refusing to terminate an instance; hosts may drop them.
//
// Thread-safety: implementations must be safe to call from several threads
// at once. `testing::RecordingEventRecorder`
// (karpenter/testing/recorders.h) keeps events in memory.

#ifndef KARPENTER_EVENT_RECORDER_H_
#define KARPENTER_EVENT_RECORDER_H_

#include <string>

#include "absl/strings/string_view.h"

namespace karpenter {

// Karpenter's event reasons (pkg/events/reason.go).
namespace events {
// Termination (pkg/controllers/node/termination/terminator/events).
inline constexpr absl::string_view kEvicted = "Evicted";
inline constexpr absl::string_view kDisrupted = "Disrupted";
inline constexpr absl::string_view kFailedDraining = "FailedDraining";
inline constexpr absl::string_view kAwaitingVolumeDetachment =
    "AwaitingVolumeDetachment";
inline constexpr absl::string_view kTerminationGracePeriodExpiring =
    "TerminationGracePeriodExpiring";
// Disruption (pkg/controllers/disruption/events).
inline constexpr absl::string_view kDisruptionBlocked = "DisruptionBlocked";
inline constexpr absl::string_view kDisruptionLaunching = "DisruptionLaunching";
inline constexpr absl::string_view kDisruptionWaitingReadiness =
    "DisruptionWaitingReadiness";
inline constexpr absl::string_view kDisruptionTerminating =
    "DisruptionTerminating";
inline constexpr absl::string_view kUnconsolidatable = "Unconsolidatable";
// Consolidation moves (v1.9, v1.14): a replace move found, a move that
// failed its re-validation, a Balanced move whose score passed.
inline constexpr absl::string_view kConsolidationCandidate =
    "ConsolidationCandidate";
inline constexpr absl::string_view kConsolidationRejected =
    "ConsolidationRejected";
inline constexpr absl::string_view kConsolidationApproved =
    "ConsolidationApproved";
// Node repair (pkg/controllers/node/health/events.go): a repair is held
// back because too many Nodes of the NodePool are unhealthy.
inline constexpr absl::string_view kNodeRepairBlocked = "NodeRepairBlocked";
// Pod annotations.
inline constexpr absl::string_view kInvalidDoNotDisruptAnnotation =
    "InvalidDoNotDisruptAnnotation";
// SDK: a cloud-provider call of the termination failed (the message carries
// the provider's error); it is retried with backoff.
inline constexpr absl::string_view kFailedInstanceTermination =
    "FailedInstanceTermination";
// SDK: a NodeClaim or instance was removed by liveness or garbage
// collection (the message says which rule).
inline constexpr absl::string_view kGarbageCollected = "GarbageCollected";
}  // namespace events

enum class EventType {
  kNormal,
  kWarning,
};

// "Normal" or "Warning", as core/v1 Event `type`.
absl::string_view EventTypeName(EventType type);

// One event about one object.
struct Event {
  // The involved object: kind ("Node", "NodeClaim", "Pod", "NodePool"),
  // namespace (empty for cluster-scoped kinds) and name.
  std::string kind;
  std::string namespace_name;
  std::string name;
  EventType type = EventType::kNormal;
  // One of the `events::` reasons.
  std::string reason;
  std::string message;

  friend bool operator==(const Event&, const Event&) = default;
};

// Renders `event` on one line: `Warning FailedDraining Node/n1: <message>`.
std::string EventString(const Event& event);

// Host interface: no data, virtual destructor, contract per method.
class EventRecorder {
 public:
  virtual ~EventRecorder() = default;

  // Publishes `event`. Must not block on the network for long and must not
  // fail the caller: a host that cannot post an event drops or queues it
  // (events are best-effort in Kubernetes too). Karpenter deduplicates
  // repeats of one (object, reason, message) for a while; a host may too.
  virtual void Record(const Event& event) = 0;
};

}  // namespace karpenter

#endif  // KARPENTER_EVENT_RECORDER_H_
