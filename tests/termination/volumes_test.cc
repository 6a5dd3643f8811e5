// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/termination/volumes.h"

#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../testing/kit_test_util.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "karpenter/drain/classify.h"
#include "karpenter/testing/builders.h"
#include "karpenter/well_known.h"

namespace karpenter::termination {
namespace {

using snapshot::ObjectSet;
using snapshot::Snapshot;
using snapshot::VolumeAttachmentIndex;

constexpr absl::Time kNow = testing::kTestEpoch;  // 2024-01-01

// How a test pod differs from a plain, drainable one.
enum class PodKind {
  kPlain,
  kToleratesTaint,     // Tolerates karpenter.sh/disrupted:NoSchedule.
  kTerminatingRecent,  // Terminating 30 s ago: still drainable.
  kTerminatingOneMin,  // Exactly 1 min: not stuck yet, drainable.
  kStuck,              // Terminating 2 min ago: stuck.
  kMirror,             // Owned by its Node.
  kDaemonSet,          // Drainable.
  kTerminalTolerating  // Succeeded and tolerating: terminal pods can be
                       // undrainable too.
};

struct PodSpec {
  std::string ns;
  std::string name;
  std::string node;
  PodKind kind = PodKind::kPlain;
  std::vector<std::string> claims;           // persistentVolumeClaim volumes.
  std::vector<std::string> ephemerals = {};  // Generic ephemeral volumes.
};

// A bare Running pod (no labels, no Ready condition) of the kit
// (karpenter/testing/builders.h), shaped by `p.kind`, with a volume per
// claim and per ephemeral name, and a "config" volume without a claim.
v1::Pod MakePod(const PodSpec& p) {
  testing::PodOptions o{.name = p.name,
                        .ns = p.ns,
                        .uid = "",
                        .app = "",
                        .node = p.node,
                        .pvcs = p.claims,
                        .ephemeral_volumes = p.ephemerals,
                        .ready = ""};
  const v1::Toleration tolerate = testing::MakeToleration(
      std::string(well_known::kDisruptedTaintKey), "Exists");
  switch (p.kind) {
    case PodKind::kPlain:
      break;
    case PodKind::kToleratesTaint:
      o.tolerations = {tolerate};
      break;
    case PodKind::kTerminatingRecent:
      o.deleted = kNow - absl::Seconds(30);
      break;
    case PodKind::kTerminatingOneMin:
      o.deleted = kNow - absl::Minutes(1);
      break;
    case PodKind::kStuck:
      o.deleted = kNow - absl::Minutes(2);
      break;
    case PodKind::kMirror:
      o.owner = "Node";
      break;
    case PodKind::kDaemonSet:
      o.owner = "DaemonSet";
      break;
    case PodKind::kTerminalTolerating:
      o.tolerations = {tolerate};
      o.phase = "Succeeded";
      break;
  }
  v1::Pod pod = testing::MakePod(o);
  // A volume without a claim is ignored.
  pod.mutable_spec()->add_volumes()->set_name("config");
  return pod;
}

v1::VolumeAttachment MakeVa(const std::string& name, const std::string& node,
                            std::optional<std::string> pv) {
  return testing::MakeVolumeAttachment(
      {.name = name, .node = node, .persistent_volume = std::move(pv)});
}

v1::PersistentVolumeClaim MakePvc(const std::string& ns,
                                  const std::string& name,
                                  const std::string& pv) {
  return testing::MakePersistentVolumeClaim(
      {.name = name, .ns = ns, .volume_name = pv});
}

// Nodes n0 and n1; claims a/data -> pv-a, b/data -> pv-b, default/logs ->
// pv-logs, default/eph-scratch -> pv-eph, default/unbound -> "".
Snapshot Build(std::vector<PodSpec> pods,
               std::vector<v1::VolumeAttachment> vas) {
  ObjectSet set;
  for (const char* n : {"n0", "n1"}) {
    set.nodes.push_back(testing::MakeNode({.name = n}));
  }
  for (const PodSpec& p : pods) set.pods.push_back(MakePod(p));
  set.volume_attachments = std::move(vas);
  set.persistent_volume_claims = {MakePvc("a", "data", "pv-a"),
                                  MakePvc("b", "data", "pv-b"),
                                  MakePvc("", "logs", "pv-logs"),
                                  MakePvc("default", "eph-scratch", "pv-eph"),
                                  MakePvc("default", "unbound", "")};
  return kit_test::MustBuildSnapshot(std::move(set));
}

std::vector<std::string> Names(const Snapshot& s,
                               const std::vector<VolumeAttachmentIndex>& v) {
  std::vector<std::string> out;
  for (VolumeAttachmentIndex i : v) {
    out.push_back(s.volume_attachments()[i].metadata().name());
  }
  return out;
}

TEST_CASE("termination volumes: which attachments hold up the node",
          "[termination][volumes]") {
  struct Case {
    const char* name;
    std::vector<PodSpec> pods;
    std::vector<v1::VolumeAttachment> vas;
    std::vector<std::string> pending;  // On n0.
  };
  const std::vector<Case> cases = {
      {"no attachments", {{"a", "w", "n0", PodKind::kStuck, {"data"}}}, {}, {}},
      {"no PV name is ignored",
       {},
       {MakeVa("inline", "n0", std::nullopt), MakeVa("va", "n0", "pv-a")},
       {"va"}},
      {"attachment without pods is pending",
       {},
       {MakeVa("va", "n0", "pv-x")},
       {"va"}},
      {"drainable pod's claim is pending",
       {{"a", "w", "n0", PodKind::kPlain, {"data"}}},
       {MakeVa("va", "n0", "pv-a")},
       {"va"}},
      {"pod tolerating the taint keeps its volume",
       {{"a", "w", "n0", PodKind::kToleratesTaint, {"data"}}},
       {MakeVa("va", "n0", "pv-a"), MakeVa("other", "n0", "pv-b")},
       {"other"}},
      {"stuck terminating pod keeps its volume",
       {{"a", "w", "n0", PodKind::kStuck, {"data"}}},
       {MakeVa("va", "n0", "pv-a")},
       {}},
      {"recently terminating pod is drainable",
       {{"a", "w", "n0", PodKind::kTerminatingRecent, {"data"}}},
       {MakeVa("va", "n0", "pv-a")},
       {"va"}},
      {"terminating exactly one minute is not stuck",
       {{"a", "w", "n0", PodKind::kTerminatingOneMin, {"data"}}},
       {MakeVa("va", "n0", "pv-a")},
       {"va"}},
      {"mirror pod keeps its volume",
       {{"a", "w", "n0", PodKind::kMirror, {"data"}}},
       {MakeVa("va", "n0", "pv-a")},
       {}},
      {"daemonset pod is drainable",
       {{"a", "w", "n0", PodKind::kDaemonSet, {"data"}}},
       {MakeVa("va", "n0", "pv-a")},
       {"va"}},
      {"terminal pod tolerating the taint still keeps its volume",
       {{"a", "w", "n0", PodKind::kTerminalTolerating, {"data"}}},
       {MakeVa("va", "n0", "pv-a")},
       {}},
      {"missing claim is skipped",
       {{"a", "w", "n0", PodKind::kMirror, {"nope", "data"}}},
       {MakeVa("va", "n0", "pv-a"), MakeVa("vb", "n0", "pv-nope")},
       {"vb"}},
      {"claims resolve in the pod's namespace",
       {{"b", "w", "n0", PodKind::kMirror, {"data"}}},
       {MakeVa("va", "n0", "pv-a"), MakeVa("vb", "n0", "pv-b")},
       {"va"}},
      {"a pod without namespace reads default",
       {{"", "w", "n0", PodKind::kMirror, {"logs"}}},
       {MakeVa("va", "n0", "pv-logs")},
       {}},
      {"generic ephemeral volume names its claim pod-volume",
       {{"default", "eph", "n0", PodKind::kMirror, {}, {"scratch"}}},
       {MakeVa("va", "n0", "pv-eph")},
       {}},
      {"other nodes' attachments and pods do not count",
       {{"a", "w", "n1", PodKind::kMirror, {"data"}}},
       {MakeVa("va-n1", "n1", "pv-a"), MakeVa("va", "n0", "pv-a"),
        MakeVa("lost", "gone", "pv-a")},
       {"va"}},
      {"unbound claim matches an empty PV name, as in Karpenter",
       {{"default", "w", "n0", PodKind::kMirror, {"unbound"}}},
       {MakeVa("empty", "n0", ""), MakeVa("va", "n0", "pv-a")},
       {"va"}},
      {"output keeps input order",
       {{"a", "w", "n0", PodKind::kToleratesTaint, {"data"}},
        {"b", "x", "n0", PodKind::kPlain, {"data"}}},
       {MakeVa("z", "n0", "pv-z"), MakeVa("va", "n0", "pv-a"),
        MakeVa("b", "n0", "pv-b"), MakeVa("a", "n0", "pv-q")},
       {"z", "b", "a"}},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const Snapshot s = Build(c.pods, c.vas);
    const auto pending = PendingVolumeAttachments(s, 0, kNow);
    INFO(pending.status().ToString());
    REQUIRE(pending.ok());
    CHECK(Names(s, *pending) == c.pending);
  }
}

TEST_CASE("termination volumes: drainability is judged at now",
          "[termination][volumes]") {
  const Snapshot s =
      Build({{"a", "w", "n0", PodKind::kTerminatingRecent, {"data"}}},
            {MakeVa("va", "n0", "pv-a")});
  // Terminating 30 s before kNow: stuck from kNow + 30 s + epsilon.
  CHECK(Names(s, *PendingVolumeAttachments(s, 0, kNow + absl::Seconds(30))) ==
        std::vector<std::string>{"va"});
  CHECK(PendingVolumeAttachments(s, 0, kNow + absl::Seconds(31))->empty());
}

TEST_CASE("termination volumes: node index out of range",
          "[termination][volumes]") {
  const Snapshot s = Build({}, {MakeVa("va", "n1", "pv-a")});
  CHECK(Names(s, *PendingVolumeAttachments(s, 1, kNow)) ==
        std::vector<std::string>{"va"});
  for (const snapshot::NodeIndex n : {2u, 0xFFFFFFFFu}) {
    const auto r = PendingVolumeAttachments(s, n, kNow);
    CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(r.status().message() ==
          absl::StrCat("node index \"", n,
                       "\": out of range, the snapshot has 2 nodes"));
  }
  const Snapshot empty;
  CHECK(PendingVolumeAttachments(empty, 0, kNow).status().code() ==
        absl::StatusCode::kInvalidArgument);
}

TEST_CASE("termination volumes: event message and description",
          "[termination][volumes]") {
  std::vector<v1::VolumeAttachment> vas;
  for (int i = 0; i < 7; ++i) {
    vas.push_back(MakeVa(absl::StrCat("csi-", i), "n0", "pv"));
  }
  const Snapshot s = Build({}, std::move(vas));
  const std::vector<VolumeAttachmentIndex> all = {0, 1, 2, 3, 4, 5, 6};
  CHECK(AwaitingVolumeDetachmentMessage(all) ==
        "Awaiting deletion of 7 VolumeAttachments bound to node");
  CHECK(AwaitingVolumeDetachmentMessage({}) ==
        "Awaiting deletion of 0 VolumeAttachments bound to node");
  struct Case {
    std::vector<VolumeAttachmentIndex> pending;
    size_t max;
    std::string want;
  };
  const std::vector<Case> cases = {
      {{}, 5, ""},
      {{2}, 5, "csi-2"},
      {{0, 1, 2, 3, 4}, 5, "csi-0, csi-1, csi-2, csi-3, csi-4"},
      {all, 5, "csi-0, csi-1, csi-2, csi-3, csi-4 and 2 other(s)"},
      {{6, 0}, 1, "csi-6 and 1 other(s)"},
      {{6, 0}, 0, "2 other(s)"},
      {{1, 9}, 5, "csi-1, <invalid index 9>"},
  };
  for (const Case& c : cases) {
    CHECK(DescribeVolumeAttachments(s, c.pending, c.max) == c.want);
  }
}

}  // namespace
}  // namespace karpenter::termination
