// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/termination/decide.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "../testing/kit_test_util.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "karpenter/time_util.h"
#include "termination_test_util.h"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace karpenter::termination {
namespace {

using drain::test::MakePod;
using test::ClaimOpts;
using test::kT0;
using test::MakeClaim;
using test::MakeNode;
using test::MakeTaint;
using test::NodeOpts;
using test::SetCondition;
using test::Snap;

constexpr InstanceObservation kUnknown = InstanceObservation::kUnknown;
constexpr InstanceObservation kExists = InstanceObservation::kExists;
constexpr InstanceObservation kGone = InstanceObservation::kGone;

// Action lines of the default node-a / claim-a objects.
const char kDeleteClaim[] = "DeleteNodeClaim nodeclaim/claim-a";
const char kTaintLine[] =
    "TaintNode node/node-a karpenter.sh/disrupted:NoSchedule";
const char kLabelLine[] =
    "SetLabel node/node-a "
    "node.kubernetes.io/exclude-from-external-load-balancers=karpenter";
const char kDrainingLine[] =
    "SetCondition nodeclaim/claim-a Drained=Unknown (Draining)";
const char kDrainLine[] = "Drain node/node-a";
const char kGetFromNode[] = "GetInstance node/node-a aws:///us-west-2a/i-a";
const char kDeleteInstance[] =
    "DeleteInstance nodeclaim/claim-a aws:///us-west-2a/i-a";
const char kTerminatingLine[] =
    "SetCondition nodeclaim/claim-a InstanceTerminating=True "
    "(InstanceTerminating)";
const char kGetFromClaim[] =
    "GetInstance nodeclaim/claim-a aws:///us-west-2a/i-a";
const char kRemoveNodeFinalizer[] =
    "RemoveFinalizer node/node-a karpenter.sh/termination";
const char kRemoveClaimFinalizer[] =
    "RemoveFinalizer nodeclaim/claim-a karpenter.sh/termination";

std::string FailedDraining(int n) {
  return absl::StrCat(
      "RecordEvent node/node-a Warning FailedDraining Node/node-a: Failed to "
      "drain node, ",
      n, " pods are waiting to be evicted");
}

Decision DecideN(const snapshot::Snapshot& s, absl::Time now,
                 InstanceObservation instance = kUnknown,
                 const DecideOptions& options = {}) {
  absl::StatusOr<Decision> d = DecideNode(s, "node-a", now, options, instance);
  REQUIRE(d.ok());
  return *std::move(d);
}

Decision DecideC(const snapshot::Snapshot& s, absl::Time now,
                 InstanceObservation instance = kUnknown) {
  absl::StatusOr<Decision> d = DecideNodeClaim(s, "claim-a", now, instance);
  REQUIRE(d.ok());
  return *std::move(d);
}

std::vector<std::string> Lines(const Decision& d) {
  std::vector<std::string> lines;
  for (const Action& a : d.actions) lines.push_back(a.Describe());
  return lines;
}

absl::Time FromProto(const google::protobuf::Timestamp& ts) {
  return absl::FromUnixSeconds(ts.seconds()) + absl::Nanoseconds(ts.nanos());
}

// "Type=Status(Reason)@offset from kT0" for each condition of `d`.
std::vector<std::string> Conditions(const Decision& d) {
  std::vector<std::string> out;
  for (const v1::Condition& c : d.conditions) {
    out.push_back(absl::StrCat(
        c.type(), "=", c.status(), "(", c.reason(), ")@",
        absl::FormatDuration(FromProto(c.last_transition_time()) - kT0)));
  }
  return out;
}

std::vector<std::string> Samples(const Action& a) {
  std::vector<std::string> out;
  for (const MetricSample& m : a.on_success) {
    std::vector<std::string> labels;
    for (const auto& [k, v] : m.labels)
      labels.push_back(absl::StrCat(k, "=", v));
    out.push_back(
        absl::StrCat(m.verb == MetricSample::Verb::kAdd ? "add " : "observe ",
                     m.name, "{", absl::StrJoin(labels, ","), "} ", m.value));
  }
  return out;
}

// A deleting node (since kT0) whose claim is deleting too.
NodeOpts DeletingNode() {
  NodeOpts o;
  o.deleted = kT0;
  return o;
}

// A deleting node that already carries the taint and the label.
NodeOpts TaintedNode() {
  NodeOpts o = DeletingNode();
  o.taints = {MakeTaint("karpenter.sh/disrupted", "", "NoSchedule")};
  o.labels = {
      {"node.kubernetes.io/exclude-from-external-load-balancers", "karpenter"}};
  return o;
}

ClaimOpts DeletingClaim() {
  ClaimOpts o;
  o.deleted = kT0;
  return o;
}

// A deleting claim with Drained=True and VolumesDetached=True.
v1::NodeClaim DrainedClaim() {
  v1::NodeClaim claim = MakeClaim(DeletingClaim());
  SetCondition(claim.mutable_status()->mutable_conditions(), "Drained", "True",
               "Drained", kT0 + absl::Seconds(5));
  SetCondition(claim.mutable_status()->mutable_conditions(), "VolumesDetached",
               "True", "VolumesDetached", kT0 + absl::Seconds(6));
  return claim;
}

std::vector<v1::Pod> TwoPods() {
  return {MakePod({.name = "app", .owner = "apps/v1/ReplicaSet"}),
          MakePod({.name = "ds", .owner = "apps/v1/DaemonSet"})};
}

TEST_CASE("decide: missing objects are Gone", "[termination]") {
  const snapshot::Snapshot s = Snap({});
  const Decision n = DecideN(s, kT0);
  CHECK(n.step == Step::kGone);
  CHECK(n.object == ObjectKind::kNode);
  CHECK(n.name == "node-a");
  CHECK(n.actions.empty());
  CHECK_FALSE(n.requeue_after.has_value());
  CHECK(n.Describe() == "node/node-a: Gone: node not found");
  const Decision c = DecideC(s, kT0);
  CHECK(c.step == Step::kGone);
  CHECK(c.object == ObjectKind::kNodeClaim);
  CHECK(c.actions.empty());
  CHECK(c.Describe() == "nodeclaim/claim-a: Gone: nodeclaim not found");
}

TEST_CASE("decide: node without NodeClaim or nodepool label is not managed",
          "[termination]") {
  for (bool deleting : {false, true}) {
    NodeOpts o;
    o.nodepool = "";
    o.finalizer = deleting;
    if (deleting) o.deleted = kT0;
    // A NodeClaim with another providerID is not this node's.
    const snapshot::Snapshot s = Snap(
        {MakeNode(o)}, {MakeClaim({.provider_id = "aws:///us-west-2a/i-z"})});
    const Decision d = DecideN(s, kT0);
    INFO("deleting=" << deleting);
    CHECK(d.step == Step::kNotManaged);
    CHECK(d.actions.empty());
    CHECK(d.reason == "no NodeClaim and no karpenter.sh/nodepool label");
    CHECK_FALSE(d.requeue_after.has_value());
  }
}

TEST_CASE("decide: managed node outside termination", "[termination]") {
  struct Row {
    const char* name;
    bool label;
    bool claim;
    bool finalizer;
    bool deleting;
    Step step;
    std::vector<std::string> actions;
  };
  const std::vector<Row> rows = {
      {"label, no finalizer",
       true,
       false,
       false,
       false,
       Step::kAddFinalizer,
       {"AddFinalizer node/node-a karpenter.sh/termination"}},
      {"claim only, no finalizer",
       false,
       true,
       false,
       false,
       Step::kAddFinalizer,
       {"AddFinalizer node/node-a karpenter.sh/termination"}},
      {"finalizer present", true, true, true, false, Step::kActive, {}},
      {"deleting without finalizer",
       true,
       true,
       false,
       true,
       Step::kReleased,
       {}},
      {"deleting without finalizer or claim",
       true,
       false,
       false,
       true,
       Step::kReleased,
       {}},
  };
  for (const Row& r : rows) {
    NodeOpts o;
    o.nodepool = r.label ? "default" : "";
    o.finalizer = r.finalizer;
    if (r.deleting) o.deleted = kT0;
    std::vector<v1::NodeClaim> claims;
    if (r.claim) claims.push_back(MakeClaim({}));
    const Decision d = DecideN(Snap({MakeNode(o)}, claims), kT0);
    INFO(r.name);
    CHECK(d.step == r.step);
    CHECK(Lines(d) == r.actions);
    CHECK_FALSE(d.requeue_after.has_value());
    CHECK(d.conditions.empty());
  }
}

TEST_CASE("decide: deleting node without a single NodeClaim is stuck",
          "[termination]") {
  std::vector<std::vector<v1::NodeClaim>> cases;
  cases.push_back({});
  cases.push_back(
      {MakeClaim({.name = "claim-a"}), MakeClaim({.name = "claim-b"})});
  for (const std::vector<v1::NodeClaim>& claims : cases) {
    INFO(claims.size() << " claims");
    const Decision d =
        DecideN(Snap({MakeNode(DeletingNode())}, claims, TwoPods()), kT0);
    CHECK(d.step == Step::kNoNodeClaim);
    CHECK(d.actions.empty());
    CHECK_FALSE(d.requeue_after.has_value());
    CHECK(d.node_claim.empty());
    CHECK(d.reason ==
          "expected a single NodeClaim with providerID "
          "\"aws:///us-west-2a/i-a\"; found none or several");
    CHECK_FALSE(d.drain.has_value());
  }
}

TEST_CASE("decide: deleting node deletes its NodeClaim first",
          "[termination]") {
  const snapshot::Snapshot s =
      Snap({MakeNode(TaintedNode())}, {MakeClaim({})}, TwoPods());
  const Decision d = DecideN(s, kT0);
  CHECK(d.step == Step::kDraining);
  REQUIRE_FALSE(d.actions.empty());
  CHECK(d.actions.front().Describe() == kDeleteClaim);
  CHECK(d.node_claim == "claim-a");
  CHECK(d.provider_id == "aws:///us-west-2a/i-a");

  // Once the claim is deleting it is not deleted again.
  const Decision again = DecideN(
      Snap({MakeNode(TaintedNode())}, {MakeClaim(DeletingClaim())}, TwoPods()),
      kT0);
  const std::vector<std::string> lines = Lines(again);
  CHECK(std::count(lines.begin(), lines.end(), kDeleteClaim) == 0);
}

TEST_CASE("decide: NotReady node asks the cloud before draining",
          "[termination]") {
  for (std::optional<std::string> ready :
       {std::optional<std::string>("False"),
        std::optional<std::string>("Unknown"), std::optional<std::string>()}) {
    INFO("Ready=" << ready.value_or("absent"));
    NodeOpts o = DeletingNode();
    o.ready = ready;
    const snapshot::Snapshot s =
        Snap({MakeNode(o)}, {MakeClaim({})}, TwoPods());
    const Decision d = DecideN(s, kT0);
    CHECK(d.step == Step::kCheckInstance);
    CHECK(Lines(d) == std::vector<std::string>{kDeleteClaim, kGetFromNode});
    CHECK(d.actions.back().provider_id == "aws:///us-west-2a/i-a");
    CHECK_FALSE(d.requeue_after.has_value());
    CHECK_FALSE(d.drain.has_value());
    CHECK(d.reason ==
          "node is not Ready: checking whether its instance exists");
  }
}

TEST_CASE("decide: NotReady node whose instance is gone skips the drain",
          "[termination]") {
  NodeOpts o = DeletingNode();
  o.ready = "False";
  const snapshot::Snapshot s =
      Snap({MakeNode(o)}, {MakeClaim(DeletingClaim())}, TwoPods());
  const absl::Time now = kT0 + absl::Seconds(30);
  const Decision d = DecideN(s, now, kGone);
  CHECK(d.step == Step::kInstanceGone);
  REQUIRE(Lines(d) == std::vector<std::string>{kRemoveNodeFinalizer});
  CHECK_FALSE(d.requeue_after.has_value());
  CHECK_FALSE(d.drain.has_value());
  CHECK(d.reason == "node is not Ready and its instance is gone: no drain");
  CHECK(Samples(d.actions[0]) ==
        std::vector<std::string>{
            "add karpenter_nodes_terminated_total"
            "{nodepool=default,zone=us-west-2a} 1",
            "observe karpenter_nodes_termination_duration_seconds"
            "{nodepool=default} 30",
            "observe karpenter_nodes_lifetime_duration_seconds"
            "{nodepool=default} 3630",
        });
}

TEST_CASE("decide: NotReady node with a live instance drains",
          "[termination]") {
  NodeOpts o = DeletingNode();
  o.ready = "Unknown";
  const snapshot::Snapshot s =
      Snap({MakeNode(o)}, {MakeClaim(DeletingClaim())}, TwoPods());
  const Decision d = DecideN(s, kT0, kExists);
  CHECK(d.step == Step::kDraining);
  CHECK(Lines(d) == std::vector<std::string>{kTaintLine, kLabelLine,
                                             kDrainingLine, kDrainLine,
                                             FailedDraining(2)});
}

TEST_CASE("decide: Ready node is never shortcut", "[termination]") {
  const snapshot::Snapshot s =
      Snap({MakeNode(DeletingNode())}, {MakeClaim(DeletingClaim())}, TwoPods());
  for (InstanceObservation obs : {kUnknown, kGone}) {
    const Decision d = DecideN(s, kT0, obs);
    CHECK(d.step == Step::kDraining);
    CHECK(Lines(d) == std::vector<std::string>{kTaintLine, kLabelLine,
                                               kDrainingLine, kDrainLine,
                                               FailedDraining(2)});
  }
}

TEST_CASE("decide: taint and label only when missing", "[termination]") {
  const v1::Taint disrupted =
      MakeTaint("karpenter.sh/disrupted", "", "NoSchedule");
  const std::string label =
      "node.kubernetes.io/exclude-from-external-load-balancers";
  struct Row {
    const char* name;
    std::vector<v1::Taint> taints;
    std::map<std::string, std::string> labels;
    std::vector<std::string> want;
  };
  const std::vector<Row> rows = {
      {"neither", {}, {}, {kTaintLine, kLabelLine}},
      {"both", {disrupted}, {{label, "karpenter"}}, {}},
      {"taint only", {disrupted}, {}, {kLabelLine}},
      {"label only", {}, {{label, "karpenter"}}, {kTaintLine}},
      {"label with another value",
       {disrupted},
       {{label, "true"}},
       {kLabelLine}},
      {"taint with a value",
       {MakeTaint("karpenter.sh/disrupted", "x", "NoSchedule")},
       {{label, "karpenter"}},
       {kTaintLine}},
      {"taint with another effect",
       {MakeTaint("karpenter.sh/disrupted", "", "NoExecute")},
       {{label, "karpenter"}},
       {kTaintLine}},
      {"taint twice",
       {disrupted, MakeTaint("karpenter.sh/disrupted", "", "NoExecute")},
       {{label, "karpenter"}},
       {kTaintLine}},
      {"taint twice, exact one last",
       {MakeTaint("karpenter.sh/disrupted", "", "NoExecute"), disrupted},
       {{label, "karpenter"}},
       {kTaintLine}},
      {"unrelated taint",
       {MakeTaint("example.com/other", "", "NoSchedule")},
       {{label, "karpenter"}},
       {kTaintLine}},
  };
  for (const Row& r : rows) {
    NodeOpts o = DeletingNode();
    o.taints = r.taints;
    o.labels = r.labels;
    // An empty node with Drained=Unknown: the taint and label are the only
    // possible actions.
    v1::NodeClaim claim = MakeClaim(DeletingClaim());
    SetCondition(claim.mutable_status()->mutable_conditions(), "Drained",
                 "Unknown", "Draining", kT0);
    const Decision d = DecideN(Snap({MakeNode(o)}, {claim}), kT0);
    INFO(r.name);
    CHECK(d.step == Step::kAwaitMinDrainTime);
    CHECK(Lines(d) == r.want);
    for (const Action& a : d.actions) {
      if (a.kind != ActionKind::kTaintNode) continue;
      CHECK(a.taint.key() == "karpenter.sh/disrupted");
      CHECK(a.taint.value().empty());
      CHECK(a.taint.effect() == "NoSchedule");
    }
  }
}

TEST_CASE("decide: waiting pods keep the node draining", "[termination]") {
  const snapshot::Snapshot s =
      Snap({MakeNode(TaintedNode())}, {MakeClaim(DeletingClaim())}, TwoPods());
  const absl::Time now = kT0 + absl::Seconds(2);
  const Decision d = DecideN(s, now);
  CHECK(d.step == Step::kDraining);
  CHECK(d.reason == "2 pods are waiting to be evicted");
  CHECK(Lines(d) ==
        std::vector<std::string>{kDrainingLine, kDrainLine, FailedDraining(2)});
  REQUIRE(d.requeue_after.has_value());
  CHECK(*d.requeue_after == absl::Seconds(1));
  CHECK(Conditions(d) ==
        std::vector<std::string>{"Drained=Unknown(Draining)@2s"});
  const Event& e = d.actions.back().event;
  CHECK(e.kind == "Node");
  CHECK(e.type == EventType::kWarning);
  CHECK(e.reason == "FailedDraining");
  REQUIRE(d.drain.has_value());
  CHECK(d.drain->waiting == 2);
  CHECK_FALSE(d.drain->done);
  REQUIRE(d.drain->enqueue.size() == 1);
  CHECK(s.DecodePod(d.drain->enqueue[0]).metadata().name() == "app");
  CHECK_FALSE(d.deadline.has_value());
  CHECK(d.Describe() ==
        "node/node-a: Draining: 2 pods are waiting to be evicted (requeue 1s)\n"
        "  SetCondition nodeclaim/claim-a Drained=Unknown (Draining)\n"
        "  Drain node/node-a\n"
        "  RecordEvent node/node-a Warning FailedDraining Node/node-a: Failed "
        "to drain node, 2 pods are waiting to be evicted");
}

TEST_CASE("decide: Drained=Unknown is set only once while draining",
          "[termination]") {
  v1::NodeClaim claim = MakeClaim(DeletingClaim());
  SetCondition(claim.mutable_status()->mutable_conditions(), "Drained",
               "Unknown", "Draining", kT0);
  const snapshot::Snapshot s =
      Snap({MakeNode(TaintedNode())}, {claim}, {MakePod({.name = "app"})});
  const Decision d = DecideN(s, kT0 + absl::Seconds(10));
  CHECK(d.step == Step::kDraining);
  CHECK(Lines(d) == std::vector<std::string>{kDrainLine, FailedDraining(1)});
  // The condition keeps its transition time.
  CHECK(Conditions(d) ==
        std::vector<std::string>{"Drained=Unknown(Draining)@0"});
}

TEST_CASE("decide: pods not drained do not hold the drain", "[termination]") {
  // A terminal pod, a mirror pod and a pod tolerating the disrupted taint.
  const std::vector<v1::Pod> pods = {
      MakePod({.name = "done", .phase = "Succeeded"}),
      MakePod({.name = "mirror", .owner = "v1/Node"}),
      MakePod({.name = "tolerant",
               .tolerations = {testing::MakeToleration("karpenter.sh/disrupted",
                                                       "Exists")}}),
  };
  const Decision d = DecideN(
      Snap({MakeNode(TaintedNode())}, {MakeClaim(DeletingClaim())}, pods), kT0);
  CHECK(d.step == Step::kAwaitMinDrainTime);
  CHECK(Lines(d) == std::vector<std::string>{kDrainingLine});
  REQUIRE(d.drain.has_value());
  CHECK(d.drain->done);
  CHECK(d.drain->pods.size() == 3);
}

TEST_CASE("decide: MinDrainTime runs from Drained turning Unknown",
          "[termination]") {
  // First decision on an empty node: Drained turns Unknown now.
  const Decision first = DecideN(
      Snap({MakeNode(TaintedNode())}, {MakeClaim(DeletingClaim())}), kT0);
  CHECK(first.step == Step::kAwaitMinDrainTime);
  CHECK(Lines(first) == std::vector<std::string>{kDrainingLine});
  REQUIRE(first.requeue_after.has_value());
  CHECK(*first.requeue_after == absl::Seconds(1));
  CHECK(first.reason ==
        "drained; waiting until 2024-01-01T00:00:05Z (MinDrainTime 5s after "
        "Drained turned Unknown)");

  v1::NodeClaim claim = MakeClaim(DeletingClaim());
  SetCondition(claim.mutable_status()->mutable_conditions(), "Drained",
               "Unknown", "Draining", kT0);
  const snapshot::Snapshot s = Snap({MakeNode(TaintedNode())}, {claim});
  const Decision early = DecideN(s, kT0 + absl::Milliseconds(4999));
  CHECK(early.step == Step::kAwaitMinDrainTime);
  CHECK(early.actions.empty());
  CHECK(early.requeue_after == std::optional<absl::Duration>(absl::Seconds(1)));

  const Decision done = DecideN(s, kT0 + absl::Seconds(5));
  CHECK(done.step == Step::kMarkDrained);
  REQUIRE(Lines(done) ==
          std::vector<std::string>{
              "SetCondition nodeclaim/claim-a Drained=True (Drained)"});
  CHECK(Samples(done.actions[0]) ==
        std::vector<std::string>{
            "add karpenter_nodes_drained_total{nodepool=default} 1"});
  REQUIRE(done.requeue_after.has_value());
  CHECK(*done.requeue_after == absl::Seconds(1));
  CHECK(Conditions(done) ==
        std::vector<std::string>{"Drained=True(Drained)@5s"});
}

TEST_CASE("decide: min_drain_time option", "[termination]") {
  v1::NodeClaim claim = MakeClaim(DeletingClaim());
  SetCondition(claim.mutable_status()->mutable_conditions(), "Drained",
               "Unknown", "Draining", kT0);
  const snapshot::Snapshot s = Snap({MakeNode(TaintedNode())}, {claim});
  DecideOptions two;
  two.min_drain_time = absl::Seconds(2);
  CHECK(DecideN(s, kT0 + absl::Milliseconds(1999), kUnknown, two).step ==
        Step::kAwaitMinDrainTime);
  CHECK(DecideN(s, kT0 + absl::Seconds(2), kUnknown, two).step ==
        Step::kMarkDrained);

  // Zero: an empty node is drained on the first decision.
  DecideOptions zero;
  zero.min_drain_time = absl::ZeroDuration();
  const Decision d =
      DecideN(Snap({MakeNode(TaintedNode())}, {MakeClaim(DeletingClaim())}),
              kT0, kUnknown, zero);
  CHECK(d.step == Step::kMarkDrained);
  REQUIRE_FALSE(d.actions.empty());
  CHECK(d.actions.back().Describe() ==
        "SetCondition nodeclaim/claim-a Drained=True (Drained)");
  CHECK(Conditions(d) == std::vector<std::string>{"Drained=True(Drained)@0"});
}

TEST_CASE("decide: pods arriving after Drained=True reopen the drain",
          "[termination]") {
  const snapshot::Snapshot s = Snap({MakeNode(TaintedNode())}, {DrainedClaim()},
                                    {MakePod({.name = "late"})});
  const absl::Time now = kT0 + absl::Seconds(7);
  const Decision d = DecideN(s, now);
  CHECK(d.step == Step::kDraining);
  CHECK(Lines(d) ==
        std::vector<std::string>{kDrainingLine, kDrainLine, FailedDraining(1)});
  CHECK(Conditions(d) ==
        std::vector<std::string>{"Drained=Unknown(Draining)@7s",
                                 "VolumesDetached=True(VolumesDetached)@6s"});
}

TEST_CASE("decide: volumes detached is marked once", "[termination]") {
  v1::NodeClaim claim = MakeClaim(DeletingClaim());
  SetCondition(claim.mutable_status()->mutable_conditions(), "Drained", "True",
               "Drained", kT0 + absl::Seconds(5));
  const Decision d =
      DecideN(Snap({MakeNode(TaintedNode())}, {claim}), kT0 + absl::Seconds(6));
  CHECK(d.step == Step::kMarkVolumesDetached);
  CHECK(Lines(d) ==
        std::vector<std::string>{"SetCondition nodeclaim/claim-a "
                                 "VolumesDetached=True (VolumesDetached)"});
  REQUIRE(d.requeue_after.has_value());
  CHECK(*d.requeue_after == absl::Seconds(1));
  CHECK(d.reason == "no volume attachment left");
  CHECK(Conditions(d) ==
        std::vector<std::string>{"Drained=True(Drained)@5s",
                                 "VolumesDetached=True(VolumesDetached)@6s"});

  // With VolumesDetached=True the next decision moves on to the instance.
  const Decision next =
      DecideN(Snap({MakeNode(TaintedNode())}, {DrainedClaim()}),
              kT0 + absl::Seconds(7));
  CHECK(next.step == Step::kTerminateInstance);
}

// A snapshot of the deleting, drained node-a with VolumeAttachment `va-1`
// (PV `pv-1`, or no PV name) and a claim deadline at kT0 + 10m.
snapshot::Snapshot VolumeSnapshot(bool with_pv_name,
                                  std::optional<std::string> volumes = {}) {
  snapshot::ObjectSet o;
  o.nodes.push_back(MakeNode(TaintedNode()));
  ClaimOpts claim_opts = DeletingClaim();
  claim_opts.termination_timestamp = "2024-01-01T00:10:00Z";
  v1::NodeClaim claim = MakeClaim(claim_opts);
  SetCondition(claim.mutable_status()->mutable_conditions(), "Drained", "True",
               "Drained", kT0 + absl::Seconds(5));
  if (volumes.has_value()) {
    SetCondition(claim.mutable_status()->mutable_conditions(),
                 "VolumesDetached", *volumes, "TerminationGracePeriodElapsed",
                 kT0 + absl::Minutes(10));
  }
  o.node_claims.push_back(claim);
  o.volume_attachments.push_back(testing::MakeVolumeAttachment(
      {.name = "va-1",
       .persistent_volume =
           with_pv_name ? std::optional<std::string>("pv-1") : std::nullopt,
       .attached = false}));
  return kit_test::MustBuildSnapshot(std::move(o));
}

TEST_CASE("decide: volume attachments hold the termination until the deadline",
          "[termination]") {
  // Before the deadline: wait, with the event and VolumesDetached=Unknown.
  const Decision waiting =
      DecideN(VolumeSnapshot(true), kT0 + absl::Seconds(6));
  CHECK(waiting.step == Step::kAwaitVolumeDetachment);
  CHECK(waiting.reason == "1 volume attachments remain: va-1");
  REQUIRE(waiting.requeue_after.has_value());
  CHECK(*waiting.requeue_after == absl::Seconds(1));
  const std::vector<std::string> lines = Lines(waiting);
  REQUIRE(lines.size() == 3);
  CHECK(absl::StrContains(lines[0], "TerminationGracePeriodExpiring"));
  CHECK(lines[1] ==
        "RecordEvent node/node-a Normal AwaitingVolumeDetachment Node/node-a: "
        "Awaiting deletion of 1 VolumeAttachments bound to node");
  CHECK(lines[2] ==
        "SetCondition nodeclaim/claim-a VolumesDetached=Unknown "
        "(AwaitingVolumeDetachment)");

  // At the deadline (now >= T): stop waiting, VolumesDetached=False.
  const Decision elapsed =
      DecideN(VolumeSnapshot(true), kT0 + absl::Minutes(10));
  CHECK(elapsed.step == Step::kMarkVolumesDetached);
  CHECK(Lines(elapsed).back() ==
        "SetCondition nodeclaim/claim-a VolumesDetached=False "
        "(TerminationGracePeriodElapsed)");
  CHECK(absl::StrContains(elapsed.reason, "passed with volume attachments"));

  // Once False is recorded, the instance is next.
  const Decision next = DecideN(VolumeSnapshot(true, "False"),
                                kT0 + absl::Minutes(10) + absl::Seconds(1));
  CHECK(next.step == Step::kTerminateInstance);

  // An attachment without a PV name never holds the node.
  const Decision no_pv = DecideN(VolumeSnapshot(false), kT0 + absl::Seconds(6));
  CHECK(no_pv.step == Step::kMarkVolumesDetached);
  CHECK(
      Lines(no_pv).back() ==
      "SetCondition nodeclaim/claim-a VolumesDetached=True (VolumesDetached)");
}

TEST_CASE("decide: node instance termination", "[termination]") {
  struct Row {
    const char* name;
    std::optional<std::string> terminating;  // InstanceTerminating status.
    InstanceObservation instance;
    Step step;
    std::vector<std::string> actions;
    std::optional<absl::Duration> requeue;
    std::string reason;
  };
  const std::vector<Row> rows = {
      {"first time",
       std::nullopt,
       kUnknown,
       Step::kTerminateInstance,
       {kDeleteInstance, kTerminatingLine},
       absl::Seconds(5),
       "terminating instance aws:///us-west-2a/i-a"},
      {"first time, Get answered exists",
       std::nullopt,
       kExists,
       Step::kTerminateInstance,
       {kDeleteInstance, kTerminatingLine},
       absl::Seconds(5),
       "terminating instance aws:///us-west-2a/i-a"},
      {"terminating, not asked",
       "True",
       kUnknown,
       Step::kAwaitInstanceTermination,
       {kGetFromClaim},
       absl::Seconds(5),
       "checking whether instance aws:///us-west-2a/i-a is gone"},
      {"terminating, still exists",
       "True",
       kExists,
       Step::kAwaitInstanceTermination,
       {},
       absl::Seconds(5),
       "instance aws:///us-west-2a/i-a still exists, terminating for 30s"},
      {"terminating, gone",
       "True",
       kGone,
       Step::kRemoveFinalizer,
       {kRemoveNodeFinalizer},
       std::nullopt,
       "instance terminated"},
  };
  const absl::Time since = kT0 + absl::Seconds(7);
  const absl::Time now = since + absl::Seconds(30);
  for (const Row& r : rows) {
    v1::NodeClaim claim = DrainedClaim();
    if (r.terminating.has_value()) {
      SetCondition(claim.mutable_status()->mutable_conditions(),
                   "InstanceTerminating", *r.terminating, "InstanceTerminating",
                   since);
    }
    const Decision d =
        DecideN(Snap({MakeNode(TaintedNode())}, {claim}), now, r.instance);
    INFO(r.name);
    CHECK(d.step == r.step);
    CHECK(Lines(d) == r.actions);
    CHECK(d.requeue_after == r.requeue);
    CHECK(d.reason == r.reason);
    CHECK(Conditions(d).back() == (r.terminating.has_value()
                                       ? "InstanceTerminating=True("
                                         "InstanceTerminating)@7s"
                                       : "InstanceTerminating=True("
                                         "InstanceTerminating)@37s"));
  }
}

TEST_CASE("decide: node finalizer removal records the node metrics",
          "[termination]") {
  NodeOpts o = TaintedNode();
  o.nodepool = "batch";
  o.zone = "";  // No zone label: the zone label is empty.
  o.deleted = kT0 + absl::Milliseconds(500);
  o.created = kT0 - absl::Hours(2);
  v1::NodeClaim claim = DrainedClaim();
  SetCondition(claim.mutable_status()->mutable_conditions(),
               "InstanceTerminating", "True", "InstanceTerminating", kT0);
  const Decision d =
      DecideN(Snap({MakeNode(o)}, {claim}), kT0 + absl::Seconds(20), kGone);
  CHECK(d.step == Step::kRemoveFinalizer);
  REQUIRE(d.actions.size() == 1);
  CHECK(Samples(d.actions[0]) ==
        std::vector<std::string>{
            "add karpenter_nodes_terminated_total{nodepool=batch,zone=} 1",
            "observe karpenter_nodes_termination_duration_seconds"
            "{nodepool=batch} 19.5",
            "observe karpenter_nodes_lifetime_duration_seconds"
            "{nodepool=batch} 7220",
        });
}

TEST_CASE("decide: termination grace period gives the node a deadline",
          "[termination]") {
  const std::string expiring =
      "RecordEvent node/node-a Warning TerminationGracePeriodExpiring "
      "Node/node-a: All pods will be deleted by ";
  struct Row {
    const char* name;
    std::optional<std::string> annotation;
    std::optional<absl::Time> external;
    absl::Time at;
    drain::DeadlineSource source;
    std::string when;
  };
  const std::vector<Row> rows = {
      {"annotation", "2024-01-01T00:04:00Z", std::nullopt,
       kT0 + absl::Minutes(4), drain::DeadlineSource::kAnnotation,
       "2024-01-01T00:04:00Z"},
      {"grace period only", std::nullopt, std::nullopt, kT0 + absl::Minutes(5),
       drain::DeadlineSource::kTerminationGracePeriod, "2024-01-01T00:05:00Z"},
      {"earlier external deadline", "2024-01-01T00:04:00Z",
       kT0 + absl::Minutes(2), kT0 + absl::Minutes(2),
       drain::DeadlineSource::kExternal, "2024-01-01T00:02:00Z"},
  };
  for (const Row& r : rows) {
    ClaimOpts c = DeletingClaim();
    c.grace_period = "300s";
    c.termination_timestamp = r.annotation;
    DecideOptions options;
    options.external_deadline = r.external;
    const Decision d =
        DecideN(Snap({MakeNode(DeletingNode())}, {MakeClaim(c)}, TwoPods()),
                kT0 + absl::Seconds(10), kUnknown, options);
    INFO(r.name);
    REQUIRE(d.deadline.has_value());
    CHECK(d.deadline->at == r.at);
    CHECK(d.deadline->source == r.source);
    CHECK(Lines(d) == std::vector<std::string>{expiring + r.when, kTaintLine,
                                               kLabelLine, kDrainingLine,
                                               kDrainLine, FailedDraining(2)});
  }
}

TEST_CASE("decide: past the deadline waiting pods are force-deleted",
          "[termination]") {
  ClaimOpts c = DeletingClaim();
  c.grace_period = "60s";
  c.termination_timestamp = "2024-01-01T00:01:00Z";
  const std::vector<v1::Pod> pods = {
      MakePod({.name = "app", .grace = 30}),
      MakePod({.name = "ds", .owner = "apps/v1/DaemonSet"}),
  };
  const snapshot::Snapshot s =
      Snap({MakeNode(TaintedNode())}, {MakeClaim(c)}, pods);
  // T - 30 s = kT0 + 30 s: "app" is due strictly after it.
  const Decision before = DecideN(s, kT0 + absl::Seconds(30));
  REQUIRE(before.drain.has_value());
  CHECK(before.drain->force_delete.empty());
  const Decision after = DecideN(s, kT0 + absl::Seconds(31));
  CHECK(after.step == Step::kDraining);
  REQUIRE(after.drain.has_value());
  REQUIRE(after.drain->force_delete.size() == 1);
  CHECK(s.DecodePod(after.drain->force_delete[0]).metadata().name() == "app");
  CHECK(after.drain->waiting == 2);
}

TEST_CASE("decide: invalid input is InvalidArgument", "[termination]") {
  const auto node_error = [](const ClaimOpts& c, const DecideOptions& options) {
    absl::StatusOr<Decision> d =
        DecideNode(Snap({MakeNode(DeletingNode())}, {MakeClaim(c)}), "node-a",
                   kT0, options);
    REQUIRE_FALSE(d.ok());
    CHECK(d.status().code() == absl::StatusCode::kInvalidArgument);
    return std::string(d.status().message());
  };
  ClaimOpts bad_annotation = DeletingClaim();
  bad_annotation.termination_timestamp = "tomorrow";
  const std::string m1 = node_error(bad_annotation, {});
  INFO(m1);
  CHECK(m1.find("node \"node-a\"") != std::string::npos);
  CHECK(m1.find("karpenter.sh/nodeclaim-termination-timestamp") !=
        std::string::npos);
  CHECK(m1.find("\"tomorrow\"") != std::string::npos);

  ClaimOpts bad_grace = DeletingClaim();
  bad_grace.grace_period = "5 minutes";
  const std::string m2 = node_error(bad_grace, {});
  INFO(m2);
  CHECK(m2.find("node \"node-a\"") != std::string::npos);
  CHECK(m2.find("spec.terminationGracePeriod") != std::string::npos);
  CHECK(m2.find("\"5 minutes\"") != std::string::npos);

  DecideOptions negative;
  negative.min_drain_time = -absl::Seconds(1);
  const std::string m3 = node_error(DeletingClaim(), negative);
  INFO(m3);
  CHECK(m3 == "min_drain_time: \"-1s\" is negative");

  // The claim decision reads the grace period too.
  absl::StatusOr<Decision> c =
      DecideNodeClaim(Snap({}, {MakeClaim(bad_grace)}), "claim-a", kT0);
  REQUIRE_FALSE(c.ok());
  CHECK(c.status().code() == absl::StatusCode::kInvalidArgument);
  const std::string m4(c.status().message());
  INFO(m4);
  CHECK(m4.find("nodeclaim \"claim-a\"") != std::string::npos);
  CHECK(m4.find("spec.terminationGracePeriod") != std::string::npos);
  CHECK(m4.find("\"5 minutes\"") != std::string::npos);
}

TEST_CASE("decide: nodeclaim outside termination", "[termination]") {
  struct Row {
    const char* name;
    bool finalizer;
    bool deleting;
    Step step;
    std::vector<std::string> actions;
  };
  const std::vector<Row> rows = {
      {"no finalizer",
       false,
       false,
       Step::kAddFinalizer,
       {"AddFinalizer nodeclaim/claim-a karpenter.sh/termination"}},
      {"finalizer", true, false, Step::kActive, {}},
      {"deleting without finalizer", false, true, Step::kReleased, {}},
  };
  for (const Row& r : rows) {
    ClaimOpts c;
    c.finalizer = r.finalizer;
    if (r.deleting) c.deleted = kT0;
    const Decision d = DecideC(Snap({MakeNode({})}, {MakeClaim(c)}), kT0);
    INFO(r.name);
    CHECK(d.step == r.step);
    CHECK(Lines(d) == r.actions);
    CHECK_FALSE(d.requeue_after.has_value());
    CHECK(d.provider_id == "aws:///us-west-2a/i-a");
  }
}

TEST_CASE("decide: nodeclaim termination timestamp annotation",
          "[termination]") {
  struct Row {
    const char* name;
    absl::Time deleted;
    std::optional<std::string> grace;
    std::optional<std::string> annotation;
    std::vector<std::string> before_delete;  // Actions before DeleteNode.
  };
  const std::string set =
      "SetAnnotation nodeclaim/claim-a "
      "karpenter.sh/nodeclaim-termination-timestamp=";
  const std::string event =
      "RecordEvent nodeclaim/claim-a Warning TerminationGracePeriodExpiring "
      "NodeClaim/claim-a: All pods will be deleted by ";
  const std::vector<Row> rows = {
      {"seconds are truncated",
       kT0 + absl::Milliseconds(700),
       "300s",
       std::nullopt,
       {set + "2024-01-01T00:05:00Z", event + "2024-01-01T00:05:00Z"}},
      {"hours and minutes",
       kT0 + absl::Seconds(59),
       "1h30m",
       std::nullopt,
       {set + "2024-01-01T01:30:59Z", event + "2024-01-01T01:30:59Z"}},
      {"existing annotation is kept", kT0, "300s", "2024-01-01T00:01:00Z", {}},
      {"existing unparsable annotation is kept", kT0, "300s", "soon", {}},
      {"no grace period", kT0, std::nullopt, std::nullopt, {}},
  };
  for (const Row& r : rows) {
    ClaimOpts c;
    c.deleted = r.deleted;
    c.grace_period = r.grace;
    c.termination_timestamp = r.annotation;
    const Decision d = DecideC(Snap({MakeNode({})}, {MakeClaim(c)}), kT0);
    INFO(r.name);
    std::vector<std::string> want = r.before_delete;
    want.push_back("DeleteNode node/node-a");
    CHECK(Lines(d) == want);
    CHECK(d.step == Step::kAwaitNodeDeletion);
  }
}

TEST_CASE("decide: nodeclaim waits for its registered node", "[termination]") {
  const absl::Time now = kT0 + absl::Seconds(3);
  // Live node: delete it and wait.
  const Decision live =
      DecideC(Snap({MakeNode({})}, {MakeClaim(DeletingClaim())}), now);
  CHECK(live.step == Step::kAwaitNodeDeletion);
  CHECK(Lines(live) == std::vector<std::string>{"DeleteNode node/node-a"});
  REQUIRE(live.requeue_after.has_value());
  CHECK(*live.requeue_after == absl::Seconds(1));
  CHECK(live.reason == "waiting for node \"node-a\" to go");

  // Node already deleting: only wait.
  const Decision deleting = DecideC(
      Snap({MakeNode(DeletingNode())}, {MakeClaim(DeletingClaim())}), now);
  CHECK(deleting.step == Step::kAwaitNodeDeletion);
  CHECK(deleting.actions.empty());

  // Not Registered: the node is not waited for.
  ClaimOpts unregistered = DeletingClaim();
  unregistered.registered = false;
  const Decision d =
      DecideC(Snap({MakeNode({})}, {MakeClaim(unregistered)}), now);
  CHECK(d.step == Step::kTerminateInstance);
  CHECK(Lines(d) ==
        std::vector<std::string>{kDeleteInstance, kTerminatingLine});

  // A node named as status.nodeName but with another providerID is not its.
  NodeOpts other;
  other.provider_id = "aws:///us-west-2a/i-other";
  const Decision mismatch =
      DecideC(Snap({MakeNode(other)}, {MakeClaim(DeletingClaim())}), now);
  CHECK(mismatch.step == Step::kTerminateInstance);
}

TEST_CASE("decide: nodeclaim terminates its instance once the node is gone",
          "[termination]") {
  struct Row {
    const char* name;
    bool terminating;
    InstanceObservation instance;
    Step step;
    std::vector<std::string> actions;
    std::optional<absl::Duration> requeue;
  };
  const std::vector<Row> rows = {
      {"first time",
       false,
       kUnknown,
       Step::kTerminateInstance,
       {kDeleteInstance, kTerminatingLine},
       absl::Seconds(5)},
      {"terminating, not asked",
       true,
       kUnknown,
       Step::kAwaitInstanceTermination,
       {kGetFromClaim},
       absl::Seconds(5)},
      {"terminating, still exists",
       true,
       kExists,
       Step::kAwaitInstanceTermination,
       {},
       absl::Seconds(5)},
      {"terminating, gone",
       true,
       kGone,
       Step::kRemoveFinalizer,
       {kRemoveClaimFinalizer},
       std::nullopt},
      {"gone before any delete",
       false,
       kGone,
       Step::kRemoveFinalizer,
       {kRemoveClaimFinalizer},
       std::nullopt},
  };
  for (const Row& r : rows) {
    v1::NodeClaim claim = MakeClaim(DeletingClaim());
    if (r.terminating) {
      SetCondition(claim.mutable_status()->mutable_conditions(),
                   "InstanceTerminating", "True", "InstanceTerminating", kT0);
    }
    const Decision d =
        DecideC(Snap({}, {claim}), kT0 + absl::Seconds(10), r.instance);
    INFO(r.name);
    CHECK(d.step == r.step);
    CHECK(Lines(d) == r.actions);
    CHECK(d.requeue_after == r.requeue);
  }
}

TEST_CASE("decide: nodeclaim that never launched releases at once",
          "[termination]") {
  ClaimOpts c = DeletingClaim();
  c.provider_id = "";
  c.registered = false;
  c.node_name = "";
  for (InstanceObservation obs : {kUnknown, kExists}) {
    const Decision d =
        DecideC(Snap({}, {MakeClaim(c)}), kT0 + absl::Seconds(4), obs);
    CHECK(d.step == Step::kRemoveFinalizer);
    CHECK(d.reason == "never launched: no instance");
    REQUIRE(Lines(d) == std::vector<std::string>{kRemoveClaimFinalizer});
    CHECK(Samples(d.actions[0]) ==
          std::vector<std::string>{
              "add karpenter_nodeclaims_terminated_total"
              "{capacity_type=spot,nodepool=default,zone=us-west-2a} 1",
              "observe karpenter_nodeclaims_termination_duration_seconds"
              "{nodepool=default} 4",
          });
  }
}

TEST_CASE("decide: nodeclaim finalizer removal records the claim metrics",
          "[termination]") {
  v1::NodeClaim claim = MakeClaim(DeletingClaim());
  SetCondition(claim.mutable_status()->mutable_conditions(),
               "InstanceTerminating", "True", "InstanceTerminating",
               kT0 + absl::Seconds(10));
  const Decision d = DecideC(Snap({}, {claim}), kT0 + absl::Seconds(40), kGone);
  CHECK(d.step == Step::kRemoveFinalizer);
  CHECK(d.reason == "instance terminated");
  REQUIRE(d.actions.size() == 1);
  CHECK(Samples(d.actions[0]) ==
        std::vector<std::string>{
            "add karpenter_nodeclaims_terminated_total"
            "{capacity_type=spot,nodepool=default,zone=us-west-2a} 1",
            "observe karpenter_nodeclaims_termination_duration_seconds"
            "{nodepool=default} 40",
            "observe karpenter_nodeclaims_instance_termination_duration_seconds"
            "{nodepool=default} 30",
        });
}

TEST_CASE("decide: decisions are deterministic", "[termination]") {
  ClaimOpts c = DeletingClaim();
  c.grace_period = "120s";
  const snapshot::Snapshot s =
      Snap({MakeNode(DeletingNode())}, {MakeClaim(c)}, TwoPods());
  const absl::Time now = kT0 + absl::Seconds(3);
  CHECK(DecideN(s, now).Describe() == DecideN(s, now).Describe());
  CHECK(DecideC(s, now).Describe() == DecideC(s, now).Describe());
  CHECK(Conditions(DecideN(s, now)) == Conditions(DecideN(s, now)));
}

TEST_CASE("decide: step and action names", "[termination]") {
  CHECK(StepName(Step::kAwaitMinDrainTime) == "AwaitMinDrainTime");
  CHECK(StepName(Step::kAwaitNodeDeletion) == "AwaitNodeDeletion");
  CHECK(StepName(Step::kNoNodeClaim) == "NoNodeClaim");
  CHECK(ActionKindName(ActionKind::kSetAnnotation) == "SetAnnotation");
  CHECK(ActionKindName(ActionKind::kDeleteInstance) == "DeleteInstance");
}

// A tiny host: applies decisions to an ObjectSet, evicts the pods a drain
// pass enqueues or force-deletes, and models one cloud instance that
// survives one Get after its Delete.
class World {
 public:
  explicit World(snapshot::ObjectSet objects) : objects_(std::move(objects)) {}

  snapshot::Snapshot Snapshot() const {
    return kit_test::MustBuildSnapshot(objects_);
  }

  // Performs a GetInstance.
  InstanceObservation Get() {
    if (!exists_) return kGone;
    if (deleted_ && gets_left_-- <= 0) exists_ = false;
    return exists_ ? kExists : kGone;
  }

  void Apply(const snapshot::Snapshot& s, const Decision& d, absl::Time now) {
    for (const Action& a : d.actions) {
      if (a.kind != ActionKind::kDrain && a.kind != ActionKind::kRecordEvent &&
          a.kind != ActionKind::kGetInstance) {
        mutations_.push_back(a.Describe());
      }
      ApplyOne(s, d, a, now);
    }
  }

  const std::vector<std::string>& mutations() const { return mutations_; }
  const std::vector<std::string>& evicted() const { return evicted_; }
  const snapshot::ObjectSet& objects() const { return objects_; }

 private:
  template <typename T>
  T* Find(std::vector<T>& list, const std::string& name) {
    for (T& o : list) {
      if (o.metadata().name() == name) return &o;
    }
    FAIL("no object " << name);
    return nullptr;
  }

  v1::ObjectMeta* Meta(const Action& a) {
    return a.object == ObjectKind::kNode
               ? Find(objects_.nodes, a.name)->mutable_metadata()
               : Find(objects_.node_claims, a.name)->mutable_metadata();
  }

  // Drops deleted objects without finalizers, as the API server does.
  template <typename T>
  static void Collect(std::vector<T>& list) {
    list.erase(std::remove_if(list.begin(), list.end(),
                              [](const T& o) {
                                return o.metadata().has_deletion_timestamp() &&
                                       o.metadata().finalizers().empty();
                              }),
               list.end());
  }

  void Evict(const snapshot::Snapshot& s, snapshot::PodIndex p) {
    const std::string name = s.DecodePod(p).metadata().name();
    evicted_.push_back(name);
    objects_.pods.erase(
        std::remove_if(
            objects_.pods.begin(), objects_.pods.end(),
            [&](const v1::Pod& pod) { return pod.metadata().name() == name; }),
        objects_.pods.end());
  }

  void ApplyOne(const snapshot::Snapshot& s, const Decision& d, const Action& a,
                absl::Time now) {
    switch (a.kind) {
      case ActionKind::kAddFinalizer:
        Meta(a)->add_finalizers(a.key);
        break;
      case ActionKind::kRemoveFinalizer: {
        auto* f = Meta(a)->mutable_finalizers();
        f->erase(std::remove(f->begin(), f->end(), a.key), f->end());
        break;
      }
      case ActionKind::kDeleteNode:
      case ActionKind::kDeleteNodeClaim:
        *Meta(a)->mutable_deletion_timestamp() = TimeToProto(now);
        break;
      case ActionKind::kTaintNode: {
        auto* taints =
            Find(objects_.nodes, a.name)->mutable_spec()->mutable_taints();
        taints->erase(std::remove_if(taints->begin(), taints->end(),
                                     [&](const v1::Taint& t) {
                                       return t.key() == a.taint.key();
                                     }),
                      taints->end());
        *taints->Add() = a.taint;
        break;
      }
      case ActionKind::kSetLabel:
        (*Meta(a)->mutable_labels())[a.key] = a.value;
        break;
      case ActionKind::kSetAnnotation:
        (*Meta(a)->mutable_annotations())[a.key] = a.value;
        break;
      case ActionKind::kSetCondition: {
        v1::NodeClaim* claim = Find(objects_.node_claims, a.name);
        auto* conditions = claim->mutable_status()->mutable_conditions();
        bool replaced = false;
        for (v1::Condition& c : *conditions) {
          if (c.type() == a.condition.type()) {
            c = a.condition;
            replaced = true;
          }
        }
        if (!replaced) *conditions->Add() = a.condition;
        break;
      }
      case ActionKind::kDrain:
        REQUIRE(d.drain.has_value());
        for (snapshot::PodIndex p : d.drain->force_delete) Evict(s, p);
        for (snapshot::PodIndex p : d.drain->enqueue) Evict(s, p);
        break;
      case ActionKind::kDeleteInstance:
        deleted_ = true;
        break;
      case ActionKind::kGetInstance:
      case ActionKind::kRecordEvent:
        break;
    }
    Collect(objects_.nodes);
    Collect(objects_.node_claims);
  }

  snapshot::ObjectSet objects_;
  bool exists_ = true;
  bool deleted_ = false;
  int gets_left_ = 1;
  std::vector<std::string> mutations_;
  std::vector<std::string> evicted_;
};

// Decides with kUnknown; if the decision asks the cloud, asks the world and
// decides again with the answer, as an executor would.
template <typename DecideFn>
Decision DecideAndObserve(World& w, const snapshot::Snapshot& s,
                          DecideFn decide, std::vector<std::string>& steps) {
  Decision d = decide(s, kUnknown);
  const bool asks = std::any_of(
      d.actions.begin(), d.actions.end(),
      [](const Action& a) { return a.kind == ActionKind::kGetInstance; });
  if (asks) {
    steps.push_back(absl::StrCat(StepName(d.step), "+Get"));
    d = decide(s, w.Get());
  }
  steps.push_back(std::string(StepName(d.step)));
  return d;
}

TEST_CASE("decide: walk from deletion to both finalizers removed",
          "[termination]") {
  snapshot::ObjectSet objects;
  objects.nodes.push_back(MakeNode(DeletingNode()));
  objects.node_claims.push_back(MakeClaim({}));
  objects.pods = TwoPods();
  World w(std::move(objects));

  std::vector<std::string> node_steps;
  std::vector<std::string> claim_steps;
  std::vector<absl::Duration> offsets;
  absl::Time now = kT0;
  Decision claim;
  for (int tick = 0; tick < 40 && claim.step != Step::kRemoveFinalizer;
       ++tick) {
    offsets.push_back(now - kT0);
    // The node controller, then the NodeClaim controller, each on the
    // cluster as the previous one left it.
    const snapshot::Snapshot s = w.Snapshot();
    const Decision d = DecideAndObserve(
        w, s,
        [&](const snapshot::Snapshot& snap, InstanceObservation obs) {
          return DecideN(snap, now, obs);
        },
        node_steps);
    w.Apply(s, d, now);
    const snapshot::Snapshot after = w.Snapshot();
    claim = DecideAndObserve(
        w, after,
        [&](const snapshot::Snapshot& snap, InstanceObservation obs) {
          return DecideC(snap, now, obs);
        },
        claim_steps);
    w.Apply(after, claim, now);
    if (d.step == Step::kRemoveFinalizer) break;
    REQUIRE(d.requeue_after.has_value());
    now += *d.requeue_after;
  }
  CHECK(node_steps == std::vector<std::string>{
                          "Draining",                      // t=0
                          "Draining",                      // t=1
                          "AwaitMinDrainTime",             // t=2
                          "AwaitMinDrainTime",             // t=3
                          "AwaitMinDrainTime",             // t=4
                          "MarkDrained",                   // t=5
                          "MarkVolumesDetached",           // t=6
                          "TerminateInstance",             // t=7
                          "AwaitInstanceTermination+Get",  // t=12
                          "AwaitInstanceTermination",
                          "AwaitInstanceTermination+Get",  // t=17
                          "RemoveFinalizer",
                      });
  CHECK(offsets.back() == absl::Seconds(17));
  CHECK(w.evicted() == std::vector<std::string>{"app", "ds"});
  CHECK(w.objects().nodes.empty());
  CHECK(w.objects().node_claims.empty());
  // The claim waits for its node on every tick, then sees the instance gone.
  std::vector<std::string> want_claim(9, "AwaitNodeDeletion");
  want_claim.push_back("AwaitInstanceTermination+Get");
  want_claim.push_back("RemoveFinalizer");
  CHECK(claim_steps == want_claim);
  REQUIRE(claim.actions.size() == 1);
  CHECK(Samples(claim.actions[0]) ==
        std::vector<std::string>{
            "add karpenter_nodeclaims_terminated_total"
            "{capacity_type=spot,nodepool=default,zone=us-west-2a} 1",
            "observe karpenter_nodeclaims_termination_duration_seconds"
            "{nodepool=default} 17",
            "observe karpenter_nodeclaims_instance_termination_duration_seconds"
            "{nodepool=default} 10",
        });

  // Every mutation happened exactly once, in this order.
  CHECK(w.mutations() ==
        std::vector<std::string>{
            kDeleteClaim,
            kTaintLine,
            kLabelLine,
            kDrainingLine,
            "SetCondition nodeclaim/claim-a Drained=True (Drained)",
            "SetCondition nodeclaim/claim-a VolumesDetached=True "
            "(VolumesDetached)",
            kDeleteInstance,
            kTerminatingLine,
            kRemoveNodeFinalizer,
            kRemoveClaimFinalizer,
        });
  const std::set<std::string> unique(w.mutations().begin(),
                                     w.mutations().end());
  CHECK(unique.size() == w.mutations().size());
}

}  // namespace
}  // namespace karpenter::termination
