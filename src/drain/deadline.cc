// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/drain/deadline.h"

#include <algorithm>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "karpenter/drain/classify.h"
#include "karpenter/duration.h"
#include "karpenter/time_util.h"
#include "karpenter/well_known.h"

namespace karpenter::drain {
namespace {

absl::Status BadTimestamp(absl::string_view s, absl::string_view field) {
  return absl::InvalidArgumentError(
      absl::StrCat(field, ": invalid RFC 3339 timestamp \"", s, "\""));
}

bool DigitsAt(absl::string_view s, size_t pos, size_t n) {
  if (pos + n > s.size()) return false;
  for (size_t i = pos; i < pos + n; ++i) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

// The layout Go's RFC3339 parse accepts, which absl::ParseTime is laxer
// about (white space, lowercase 't'/'z', one-digit fields, leap second 60):
// YYYY-MM-DDTHH:MM:SS[.d+](Z|+HH:MM|-HH:MM).
bool HasRfc3339Shape(absl::string_view s) {
  if (s.size() < 20 || !DigitsAt(s, 0, 4) || s[4] != '-' ||
      !DigitsAt(s, 5, 2) || s[7] != '-' || !DigitsAt(s, 8, 2) || s[10] != 'T' ||
      !DigitsAt(s, 11, 2) || s[13] != ':' || !DigitsAt(s, 14, 2) ||
      s[16] != ':' || !DigitsAt(s, 17, 2) || s.substr(17, 2) == "60") {
    return false;
  }
  size_t pos = 19;
  if (s[pos] == '.') {
    const size_t start = ++pos;
    while (DigitsAt(s, pos, 1)) ++pos;
    if (pos == start) return false;
  }
  absl::string_view zone = s.substr(pos);
  if (zone == "Z") return true;
  return zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') &&
         DigitsAt(zone, 1, 2) && zone[3] == ':' && DigitsAt(zone, 4, 2);
}

absl::StatusOr<std::optional<absl::Duration>> GracePeriod(
    const v1::NodeClaim& claim) {
  if (!claim.spec().has_termination_grace_period()) return std::nullopt;
  absl::StatusOr<absl::Duration> d =
      ParseGoDuration(claim.spec().termination_grace_period());
  if (!d.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("spec.terminationGracePeriod: ", d.status().message()));
  }
  return *d;
}

// The NodeClaim's own deadline (annotation, else deletion + TGP).
absl::StatusOr<std::optional<Deadline>> ClaimDeadline(
    const v1::NodeClaim& claim) {
  const auto& annotations = claim.metadata().annotations();
  auto it = annotations.find(
      std::string(well_known::kNodeClaimTerminationTimestampAnnotationKey));
  if (it != annotations.end()) {
    KARPENTER_ASSIGN_OR_RETURN(
        absl::Time at,
        ParseRfc3339(
            it->second,
            absl::StrCat(
                "metadata.annotations[\"",
                well_known::kNodeClaimTerminationTimestampAnnotationKey,
                "\"]")));
    return Deadline{at, DeadlineSource::kAnnotation};
  }
  if (!claim.metadata().has_deletion_timestamp()) return std::nullopt;
  KARPENTER_ASSIGN_OR_RETURN(std::optional<absl::Duration> tgp,
                             GracePeriod(claim));
  if (!tgp.has_value()) return std::nullopt;
  return Deadline{TimeFromProto(claim.metadata().deletion_timestamp()) + *tgp,
                  DeadlineSource::kTerminationGracePeriod};
}

std::optional<Deadline> Earliest(std::optional<Deadline> own,
                                 std::optional<absl::Time> external) {
  if (!external.has_value()) return own;
  if (own.has_value() && own->at <= *external) return own;
  return Deadline{*external, DeadlineSource::kExternal};
}

absl::Status NodeOutOfRange(const snapshot::Snapshot& snapshot,
                            snapshot::NodeIndex n) {
  return absl::InvalidArgumentError(
      absl::StrCat("node index ", n, " out of range (snapshot has ",
                   snapshot.nodes().size(), " nodes)"));
}

}  // namespace

absl::string_view DeadlineSourceName(DeadlineSource source) {
  switch (source) {
    case DeadlineSource::kAnnotation:
      return "Annotation";
    case DeadlineSource::kTerminationGracePeriod:
      return "TerminationGracePeriod";
    case DeadlineSource::kExternal:
      return "External";
  }
  return "Unknown";
}

absl::Time SpotInterruptionDeadline(absl::Time notice) {
  return notice + kSpotInterruptionNotice;
}

absl::StatusOr<absl::Time> ParseRfc3339(absl::string_view s,
                                        absl::string_view field) {
  if (!HasRfc3339Shape(s)) return BadTimestamp(s, field);
  absl::Time t;
  std::string err;
  if (!absl::ParseTime(absl::RFC3339_full, s, &t, &err)) {
    return BadTimestamp(s, field);
  }
  return t;
}

absl::StatusOr<std::optional<Deadline>> NodeDeadline(
    const v1::NodeClaim& claim, std::optional<absl::Time> external) {
  KARPENTER_ASSIGN_OR_RETURN(std::optional<Deadline> own, ClaimDeadline(claim));
  return Earliest(own, external);
}

absl::StatusOr<std::optional<Deadline>> NodeDeadline(
    const snapshot::Snapshot& snapshot, snapshot::NodeIndex n,
    std::optional<absl::Time> external) {
  if (n >= snapshot.nodes().size()) return NodeOutOfRange(snapshot, n);
  std::optional<snapshot::NodeClaimIndex> c =
      snapshot.FindNodeClaimByProviderId(
          snapshot.nodes()[n].spec().provider_id());
  if (!c.has_value()) return Earliest(std::nullopt, external);
  const v1::NodeClaim& claim = snapshot.node_claims()[*c];
  absl::StatusOr<std::optional<Deadline>> d = NodeDeadline(claim, external);
  if (!d.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "nodeclaim \"", claim.metadata().name(), "\": ", d.status().message()));
  }
  return d;
}

bool NeedsForceDelete(const v1::Pod& pod, std::optional<absl::Time> deadline,
                      absl::Time now) {
  std::optional<absl::Time> at = ForceDeleteAt(pod, deadline, now);
  if (!at.has_value()) return false;
  return IsTerminating(pod) || now > *at;
}

std::optional<absl::Time> ForceDeleteAt(const v1::Pod& pod,
                                        std::optional<absl::Time> deadline,
                                        absl::Time now) {
  if (!deadline.has_value()) return std::nullopt;
  if (IsTerminating(pod)) {
    if (TimeFromProto(pod.metadata().deletion_timestamp()) > *deadline)
      return now;
    return std::nullopt;
  }
  if (!pod.spec().has_termination_grace_period_seconds()) return std::nullopt;
  return *deadline -
         absl::Seconds(pod.spec().termination_grace_period_seconds());
}

int64_t ForceDeleteGraceSeconds(absl::Time deadline, absl::Time now) {
  return std::max<int64_t>(absl::ToInt64Seconds(deadline - now), 1);
}

absl::StatusOr<absl::Duration> RemainingGrace(const v1::Pod& pod,
                                              absl::Time now) {
  if (IsTerminating(pod)) {
    return std::max(TimeFromProto(pod.metadata().deletion_timestamp()) - now,
                    absl::ZeroDuration());
  }
  if (!pod.spec().has_termination_grace_period_seconds()) {
    return kDefaultTerminationGracePeriod;
  }
  const int64_t s = pod.spec().termination_grace_period_seconds();
  if (s < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "spec.terminationGracePeriodSeconds: ", s, " is negative"));
  }
  return absl::Seconds(s);
}

absl::StatusOr<DrainEstimate> EstimateDrain(const snapshot::Snapshot& snapshot,
                                            snapshot::NodeIndex n,
                                            std::optional<absl::Time> deadline,
                                            absl::Time now) {
  if (n >= snapshot.nodes().size()) return NodeOutOfRange(snapshot, n);
  DrainEstimate estimate;
  for (snapshot::PodIndex p : snapshot.PodsOnNode(n)) {
    const v1::Pod& pod = snapshot.DecodePod(p);
    if (!Classify(pod, now).waiting) continue;
    absl::StatusOr<absl::Duration> grace = RemainingGrace(pod, now);
    if (!grace.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "pod \"", pod.metadata().namespace_(), "/", pod.metadata().name(),
          "\": ", grace.status().message()));
    }
    ++estimate.waiting;
    estimate.timeout += *grace;
  }
  estimate.drain_deadline = now + estimate.timeout;
  if (deadline.has_value()) {
    estimate.drain_deadline = std::min(estimate.drain_deadline, *deadline);
  }
  return estimate;
}

absl::string_view TerminationModeName(TerminationMode mode) {
  switch (mode) {
    case TerminationMode::kGraceful:
      return "graceful";
    case TerminationMode::kForceful:
      return "forceful";
    case TerminationMode::kEventual:
      return "eventual";
  }
  return "unknown";
}

absl::StatusOr<TerminationMode> TerminationModeOf(const v1::NodeClaim& claim) {
  KARPENTER_ASSIGN_OR_RETURN(std::optional<absl::Duration> tgp,
                             GracePeriod(claim));
  if (!tgp.has_value()) return TerminationMode::kGraceful;
  if (*tgp <= absl::ZeroDuration()) return TerminationMode::kForceful;
  return TerminationMode::kEventual;
}

}  // namespace karpenter::drain
