// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/drain/classify.h"

#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "drain_test_util.h"
#include "karpenter/snapshot/load.h"

// The tables use designated initializers and omit the fields they do not
// need; GCC 12 warns about every omitted member even though each has a
// default.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace karpenter::drain {
namespace {

using test::kT0;
using test::MakePod;
using test::MakeToleration;
using test::PodOpts;

constexpr absl::string_view kDnd = "karpenter.sh/do-not-disrupt";
constexpr absl::string_view kDne = "karpenter.sh/do-not-evict";

TEST_CASE("drain: do-not-disrupt annotation values", "[drain]") {
  struct Case {
    std::optional<std::string> value;       // nullopt: annotation absent.
    std::optional<absl::Duration> started;  // Since kT0; nullopt: no start.
    absl::Duration now;                     // Since kT0.
    DoNotDisruptState state;
    std::optional<absl::Duration> until;  // Since kT0.
    bool invalid;
  };
  const absl::Duration m = absl::Minutes(1);
  const std::vector<Case> cases = {
      {std::nullopt, absl::ZeroDuration(), m, DoNotDisruptState::kAbsent,
       std::nullopt, false},
      {"true", absl::ZeroDuration(), 1000 * m, DoNotDisruptState::kActive,
       std::nullopt, false},
      {"true", std::nullopt, m, DoNotDisruptState::kActive, std::nullopt,
       false},
      {"5m", absl::ZeroDuration(), 5 * m - absl::Nanoseconds(1),
       DoNotDisruptState::kActive, 5 * m, false},
      {"5m", absl::ZeroDuration(), 4 * m, DoNotDisruptState::kActive, 5 * m,
       false},
      // Lapses at exactly startTime + D (active iff now - start < D).
      {"5m", absl::ZeroDuration(), 5 * m, DoNotDisruptState::kLapsed, 5 * m,
       false},
      {"5m", absl::ZeroDuration(), 6 * m, DoNotDisruptState::kLapsed, 5 * m,
       false},
      {"1h30m", 10 * m, 90 * m, DoNotDisruptState::kActive, 100 * m, false},
      // No startTime: fail safe, active with no known end.
      {"5m", std::nullopt, 1000 * m, DoNotDisruptState::kActive, std::nullopt,
       false},
      {"false", absl::ZeroDuration(), m, DoNotDisruptState::kAbsent,
       std::nullopt, true},
      {"0s", absl::ZeroDuration(), m, DoNotDisruptState::kAbsent, std::nullopt,
       true},
      {"-5m", absl::ZeroDuration(), m, DoNotDisruptState::kAbsent, std::nullopt,
       true},
      {"invalid", absl::ZeroDuration(), m, DoNotDisruptState::kAbsent,
       std::nullopt, true},
      {"", absl::ZeroDuration(), m, DoNotDisruptState::kAbsent, std::nullopt,
       true},
      {"True", absl::ZeroDuration(), m, DoNotDisruptState::kAbsent,
       std::nullopt, true},
      {"5d", std::nullopt, m, DoNotDisruptState::kAbsent, std::nullopt, true},
  };
  for (const Case& c : cases) {
    PodOpts o;
    if (c.value.has_value()) o.annotations[std::string(kDnd)] = *c.value;
    if (c.started.has_value()) o.started = kT0 + *c.started;
    const v1::Pod pod = MakePod(o);
    const absl::Time now = kT0 + c.now;
    INFO("value " << c.value.value_or("<absent>") << " now +" << c.now);
    const DoNotDisrupt dnd = EvaluateDoNotDisrupt(pod, now);
    CHECK(dnd.state == c.state);
    CHECK(dnd.invalid.ok() == !c.invalid);
    CHECK(dnd.until.has_value() == c.until.has_value());
    if (c.until.has_value() && dnd.until.has_value()) {
      CHECK(*dnd.until == kT0 + *c.until);
    }
    CHECK(dnd.source == (c.state == DoNotDisruptState::kAbsent ? "" : kDnd));
    // Drainable either way; evictable only while not active.
    const PodClass cls = Classify(pod, now);
    CHECK(cls.waiting);
    CHECK(cls.evictable == !dnd.active());
    CHECK(cls.not_evictable_reason ==
          (dnd.active() ? PodReason::kDoNotDisrupt : PodReason::kNone));
  }
}

TEST_CASE("drain: invalid do-not-disrupt names the annotation and value",
          "[drain]") {
  PodOpts o;
  o.annotations[std::string(kDnd)] = "-5m";
  DoNotDisrupt dnd = EvaluateDoNotDisrupt(MakePod(o), kT0);
  REQUIRE(dnd.invalid.code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(dnd.invalid.message()) ==
        "metadata.annotations[\"karpenter.sh/do-not-disrupt\"]: \"-5m\" is "
        "neither \"true\" nor a positive Go duration (not positive)");
  o.annotations[std::string(kDnd)] = "soon";
  dnd = EvaluateDoNotDisrupt(MakePod(o), kT0);
  CHECK_THAT(
      std::string(dnd.invalid.message()),
      Catch::Contains("\"soon\"") && Catch::Contains("time: invalid duration"));
}

TEST_CASE("drain: do-not-evict spelling and precedence", "[drain]") {
  struct Case {
    std::optional<std::string> dnd;
    std::optional<std::string> dne;
    absl::Duration now;  // Since kT0; pods start at kT0.
    DoNotDisruptState state;
    absl::string_view source;
    bool has_until;
    bool invalid;
  };
  const absl::Duration m = absl::Minutes(1);
  const std::vector<Case> cases = {
      {std::nullopt, "true", m, DoNotDisruptState::kActive, kDne, false, false},
      // v1alpha5 read only "true"; other values are ignored, not flagged.
      {std::nullopt, "false", m, DoNotDisruptState::kAbsent, "", false, false},
      {std::nullopt, "1h", m, DoNotDisruptState::kAbsent, "", false, false},
      // Both indefinite: do-not-disrupt decides.
      {"true", "true", m, DoNotDisruptState::kActive, kDnd, false, false},
      // A duration is weaker than do-not-evict "true".
      {"5m", "true", m, DoNotDisruptState::kActive, kDne, false, false},
      {"5m", "true", 10 * m, DoNotDisruptState::kActive, kDne, false, false},
      {"5m", "false", 10 * m, DoNotDisruptState::kLapsed, kDnd, true, false},
      // An invalid do-not-disrupt is still reported.
      {"bogus", "true", m, DoNotDisruptState::kActive, kDne, false, true},
  };
  for (const Case& c : cases) {
    PodOpts o;
    o.started = kT0;
    if (c.dnd.has_value()) o.annotations[std::string(kDnd)] = *c.dnd;
    if (c.dne.has_value()) o.annotations[std::string(kDne)] = *c.dne;
    INFO("dnd " << c.dnd.value_or("<absent>") << " dne "
                << c.dne.value_or("<absent>") << " now +" << c.now);
    const DoNotDisrupt d = EvaluateDoNotDisrupt(MakePod(o), kT0 + c.now);
    CHECK(d.state == c.state);
    CHECK(d.source == c.source);
    CHECK(d.until.has_value() == c.has_until);
    CHECK(d.invalid.ok() == !c.invalid);
  }
}

TEST_CASE("drain: tolerations of the disrupted taint", "[drain]") {
  struct Case {
    std::string name;
    std::vector<v1::Toleration> tolerations;
    bool tolerates;
  };
  const std::string k = "karpenter.sh/disrupted";
  const std::vector<Case> cases = {
      {"none", {}, false},
      {"key Exists", {MakeToleration(k, "Exists")}, true},
      {"key Exists NoSchedule",
       {MakeToleration(k, "Exists", "", "NoSchedule")},
       true},
      {"key Exists NoExecute",
       {MakeToleration(k, "Exists", "", "NoExecute")},
       false},
      {"key Exists PreferNoSchedule",
       {MakeToleration(k, "Exists", "", "PreferNoSchedule")},
       false},
      {"key Equal empty value", {MakeToleration(k, "Equal", "")}, true},
      {"key default operator empty value",
       {MakeToleration(k, "", "", "NoSchedule")},
       true},
      {"key Equal other value", {MakeToleration(k, "Equal", "true")}, false},
      {"key Exists ignores value", {MakeToleration(k, "Exists", "x")}, true},
      {"universal Exists", {MakeToleration("", "Exists")}, true},
      {"universal Exists NoSchedule",
       {MakeToleration("", "Exists", "", "NoSchedule")},
       true},
      {"universal Exists NoExecute",
       {MakeToleration("", "Exists", "", "NoExecute")},
       false},
      {"only unschedulable",
       {MakeToleration("node.kubernetes.io/unschedulable", "Exists", "",
                       "NoSchedule")},
       false},
      {"other key",
       {MakeToleration("karpenter.sh/disruption", "Exists")},
       false},
      {"unknown operator", {MakeToleration(k, "Gt", "")}, false},
      {"key case differs",
       {MakeToleration("Karpenter.sh/disrupted", "Exists")},
       false},
      {"second of two",
       {MakeToleration("node.kubernetes.io/not-ready", "Exists", "",
                       "NoExecute"),
        MakeToleration(k, "Exists")},
       true},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    PodOpts o;
    o.tolerations = c.tolerations;
    const v1::Pod pod = MakePod(o);
    CHECK(ToleratesDisruptedNoScheduleTaint(pod) == c.tolerates);
    const PodClass cls = Classify(pod, kT0);
    CHECK(cls.tolerates_disrupted_taint == c.tolerates);
    CHECK(cls.drainable == !c.tolerates);
    CHECK(cls.waiting == !c.tolerates);
    CHECK(cls.evictable == !c.tolerates);
    CHECK(
        cls.not_waiting_reason ==
        (c.tolerates ? PodReason::kToleratesDisruptedTaint : PodReason::kNone));
  }
}

TEST_CASE("drain: owners, priority classes and phases", "[drain]") {
  struct Case {
    PodOpts opts;
    bool mirror;
    bool daemonset;
    bool critical;
    bool terminal;
    bool waiting;
    bool evictable;
    PodReason not_waiting;
    PodReason not_evictable;
  };
  const PodReason kNone = PodReason::kNone;
  const std::vector<Case> cases = {
      {{.owner = "v1/Node"},
       true,
       false,
       false,
       false,
       false,
       false,
       PodReason::kMirror,
       PodReason::kMirror},
      {{.owner = "apps/v1/Node"},
       false,
       false,
       false,
       false,
       true,
       true,
       kNone,
       kNone},
      {{.owner = "apps/v1/DaemonSet"},
       false,
       true,
       false,
       false,
       true,
       true,
       kNone,
       kNone},
      {{.owner = "extensions/v1beta1/DaemonSet"},
       false,
       false,
       false,
       false,
       true,
       true,
       kNone,
       kNone},
      {{.owner = "apps/v1/ReplicaSet"},
       false,
       false,
       false,
       false,
       true,
       true,
       kNone,
       kNone},
      {{.priority_class = "system-cluster-critical"},
       false,
       false,
       true,
       false,
       true,
       true,
       kNone,
       kNone},
      {{.priority_class = "system-node-critical"},
       false,
       false,
       true,
       false,
       true,
       true,
       kNone,
       kNone},
      {{.priority_class = "system-node-critical-2"},
       false,
       false,
       false,
       false,
       true,
       true,
       kNone,
       kNone},
      {{.priority_class = "high-priority"},
       false,
       false,
       false,
       false,
       true,
       true,
       kNone,
       kNone},
      {{.phase = "Succeeded"},
       false,
       false,
       false,
       true,
       false,
       false,
       PodReason::kTerminal,
       PodReason::kTerminal},
      {{.phase = "Failed"},
       false,
       false,
       false,
       true,
       false,
       false,
       PodReason::kTerminal,
       PodReason::kTerminal},
      {{.phase = "Pending"},
       false,
       false,
       false,
       false,
       true,
       true,
       kNone,
       kNone},
      {{.phase = "Unknown"},
       false,
       false,
       false,
       false,
       true,
       true,
       kNone,
       kNone},
      // Reason precedence: mirror before terminal, terminal before taint.
      {{.phase = "Succeeded", .owner = "v1/Node"},
       true,
       false,
       false,
       true,
       false,
       false,
       PodReason::kMirror,
       PodReason::kMirror},
      {{.phase = "Failed", .tolerations = {MakeToleration("", "Exists")}},
       false,
       false,
       false,
       true,
       false,
       false,
       PodReason::kTerminal,
       PodReason::kTerminal},
      // A mirror pod with do-not-disrupt is still not drained.
      {{.owner = "v1/Node",
        .annotations = {{"karpenter.sh/do-not-disrupt", "true"}}},
       true,
       false,
       false,
       false,
       false,
       false,
       PodReason::kMirror,
       PodReason::kMirror},
      // do-not-disrupt on a terminal pod: terminal wins.
      {{.phase = "Succeeded",
        .annotations = {{"karpenter.sh/do-not-disrupt", "true"}}},
       false,
       false,
       false,
       true,
       false,
       false,
       PodReason::kTerminal,
       PodReason::kTerminal},
      // A critical DaemonSet pod with do-not-disrupt is waited for.
      {{.owner = "apps/v1/DaemonSet",
        .priority_class = "system-node-critical",
        .annotations = {{"karpenter.sh/do-not-disrupt", "true"}}},
       false,
       true,
       true,
       false,
       true,
       false,
       kNone,
       PodReason::kDoNotDisrupt},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    INFO("case " << i << " owner " << c.opts.owner << " class "
                 << c.opts.priority_class << " phase " << c.opts.phase);
    const v1::Pod pod = MakePod(c.opts);
    const PodClass cls = Classify(pod, kT0);
    CHECK(cls.mirror == c.mirror);
    CHECK(IsOwnedByNode(pod) == c.mirror);
    CHECK(cls.daemonset == c.daemonset);
    CHECK(cls.critical == c.critical);
    CHECK(cls.terminal == c.terminal);
    CHECK(cls.waiting == c.waiting);
    CHECK(cls.evictable == c.evictable);
    CHECK(cls.not_waiting_reason == c.not_waiting);
    CHECK(cls.not_evictable_reason == c.not_evictable);
  }
}

TEST_CASE("drain: stuck terminating after exactly one minute", "[drain]") {
  struct Case {
    absl::Duration since_deletion;  // now - deletionTimestamp.
    bool stuck;
  };
  const std::vector<Case> cases = {
      {-absl::Seconds(30), false},  // Still within its grace period.
      {absl::ZeroDuration(), false},
      {absl::Seconds(59), false},
      {absl::Minutes(1), false},  // Exactly one minute: not yet.
      {absl::Minutes(1) + absl::Nanoseconds(1), true},
      {absl::Minutes(10), true},
  };
  for (const Case& c : cases) {
    INFO("since deletion " << c.since_deletion);
    const v1::Pod pod = MakePod({.deleted = kT0});
    const PodClass cls = Classify(pod, kT0 + c.since_deletion);
    CHECK(cls.terminating);
    CHECK(cls.stuck_terminating == c.stuck);
    CHECK(cls.drainable == !c.stuck);
    CHECK(cls.waiting == !c.stuck);
    CHECK_FALSE(cls.evictable);
    CHECK(cls.not_evictable_reason == PodReason::kTerminating);
    CHECK(cls.not_waiting_reason ==
          (c.stuck ? PodReason::kStuckTerminating : PodReason::kNone));
  }
}

TEST_CASE("drain: classify pods loaded from YAML", "[drain]") {
  const std::string yaml = R"(
apiVersion: v1
kind: Pod
metadata:
  name: fluent-bit-x1
  namespace: logging
  ownerReferences:
  - {apiVersion: apps/v1, kind: DaemonSet, name: fluent-bit, uid: u1}
spec:
  nodeName: node-a
  priorityClassName: system-node-critical
  tolerations:
  - operator: Exists
status:
  phase: Running
---
apiVersion: v1
kind: Pod
metadata:
  name: batch-1
  namespace: jobs
  annotations:
    karpenter.sh/do-not-disrupt: "10m"
spec:
  nodeName: node-a
  tolerations:
  - {key: node.kubernetes.io/unschedulable, operator: Exists, effect: NoSchedule}
status:
  phase: Running
  startTime: "2024-01-01T00:00:00Z"
)";
  snapshot::ObjectSet objects;
  REQUIRE(snapshot::LoadText(yaml, "pods.yaml", objects).ok());
  REQUIRE(objects.pods.size() == 2);
  const PodClass ds = Classify(objects.pods[0], kT0);
  CHECK(ds.daemonset);
  CHECK(ds.critical);
  CHECK(ds.tolerates_disrupted_taint);
  CHECK_FALSE(ds.waiting);
  CHECK(ds.not_waiting_reason == PodReason::kToleratesDisruptedTaint);

  const PodClass batch = Classify(objects.pods[1], kT0 + absl::Minutes(3));
  CHECK(batch.waiting);
  CHECK_FALSE(batch.evictable);
  REQUIRE(batch.do_not_disrupt.until.has_value());
  CHECK(*batch.do_not_disrupt.until == kT0 + absl::Minutes(10));
  CHECK(Classify(objects.pods[1], kT0 + absl::Minutes(10)).evictable);
}

TEST_CASE("drain: reason names are stable", "[drain]") {
  CHECK(PodReasonName(PodReason::kNone) == "None");
  CHECK(PodReasonName(PodReason::kMirror) == "Mirror");
  CHECK(PodReasonName(PodReason::kTerminal) == "Terminal");
  CHECK(PodReasonName(PodReason::kToleratesDisruptedTaint) ==
        "ToleratesDisruptedTaint");
  CHECK(PodReasonName(PodReason::kStuckTerminating) == "StuckTerminating");
  CHECK(PodReasonName(PodReason::kTerminating) == "Terminating");
  CHECK(PodReasonName(PodReason::kDoNotDisrupt) == "DoNotDisrupt");
  CHECK(PodReasonName(static_cast<PodReason>(99)) == "Unknown");
}

}  // namespace
}  // namespace karpenter::drain
