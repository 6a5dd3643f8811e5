// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// PodTopologySpread and InterPodAffinity (scheduling/pod_topology.h) as
// kube-scheduler's Filter plugins answer them: one table per plugin, a row
// per rule, every row naming what each node answers; then the counts as a
// simulation changes them (AddPod, RemovePod, RemoveNode).

#include "karpenter/scheduling/pod_topology.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "karpenter/drain/classify.h"
#include "karpenter/scheduling/fit.h"
#include "karpenter/testing/builders.h"
#include "topology_test_util.h"

// The builders take designated initializers that omit fields; GCC 12 warns
// about every omitted member even though each has a default.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace karpenter::scheduling {
namespace {

using testing::Labels;
using topology_test::Both;
using topology_test::PodEdit;
using topology_test::Spread;
using topology_test::Term;
using topology_test::WithAffinity;
using topology_test::WithAntiAffinity;
using topology_test::WithNodeSelector;
using topology_test::WithSpread;

constexpr char kZone[] = "topology.kubernetes.io/zone";
constexpr char kHost[] = "kubernetes.io/hostname";
constexpr absl::Time kDeleted = testing::kTestEpoch;

// --- The cluster and the plugins' answers. ----------------------------------

// Short names for the plugins' answers; the exact plugin, code and message
// are checked by Answer.
constexpr char kOk[] = "ok";
constexpr char kSkew[] = "skew";    // PodTopologySpread, Unschedulable
constexpr char kLabel[] = "label";  // PodTopologySpread, missing key
constexpr char kAff[] = "affinity";
constexpr char kAnti[] = "anti";
constexpr char kExisting[] = "existing";

std::string Answer(const std::optional<FilterFailure>& f) {
  if (!f.has_value()) return kOk;
  const struct {
    const char* name;
    FilterFailure failure;
  } known[] = {
      {kSkew,
       {kPodTopologySpread, FilterCode::kUnschedulable,
        "node(s) didn't match pod topology spread constraints"}},
      {kLabel,
       {kPodTopologySpread, FilterCode::kUnschedulableAndUnresolvable,
        "node(s) didn't match pod topology spread constraints (missing "
        "required label)"}},
      {kAff,
       {kInterPodAffinity, FilterCode::kUnschedulableAndUnresolvable,
        "node(s) didn't match pod affinity rules"}},
      {kAnti,
       {kInterPodAffinity, FilterCode::kUnschedulable,
        "node(s) didn't match pod anti-affinity rules"}},
      {kExisting,
       {kInterPodAffinity, FilterCode::kUnschedulable,
        "node(s) didn't satisfy existing pods anti-affinity rules"}},
  };
  for (const auto& k : known) {
    if (k.failure == *f) return k.name;
  }
  return absl::StrCat("unexpected: ", f->plugin, " code ",
                      static_cast<int>(f->code), " \"", f->message, "\"");
}

// "a1=ok b1=skew".
std::string Str(const std::map<std::string, std::string>& answers) {
  std::string out;
  for (const auto& [node, answer] : answers) {
    absl::StrAppend(&out, out.empty() ? "" : " ", node, "=", answer);
  }
  return out;
}

// A cluster under construction: nodes (with kubernetes.io/hostname unless
// added bare) and pods of app labels.
class Cluster {
 public:
  Cluster& Node(const std::string& name, Labels labels = {},
                std::vector<v1::Taint> taints = {}) {
    labels.emplace(kHost, name);
    return BareNode(name, std::move(labels), std::move(taints));
  }
  // A node without the hostname label.
  Cluster& BareNode(const std::string& name, Labels labels,
                    std::vector<v1::Taint> taints = {}) {
    objects_.nodes.push_back(testing::MakeNode({.name = name,
                                                .labels = std::move(labels),
                                                .taints = std::move(taints),
                                                .cpu = "4",
                                                .memory = "16Gi",
                                                .pods = "110"}));
    return *this;
  }
  // A Running pod on `node` ("" for pending) in namespace `ns`.
  Cluster& Pod(const std::string& name, const std::string& node, Labels labels,
               const PodEdit& edit = nullptr,
               const std::string& ns = "default") {
    v1::Pod pod = testing::MakePod({.name = name,
                                    .ns = ns,
                                    .app = "",
                                    .node = node,
                                    .labels = std::move(labels)});
    if (edit) edit(pod);
    objects_.pods.push_back(std::move(pod));
    return *this;
  }
  // `count` pods named <prefix>-<i> on `node`.
  Cluster& Pods(int count, const std::string& prefix, const std::string& node,
                const Labels& labels, const std::string& ns = "default") {
    for (int i = 0; i < count; ++i) {
      Pod(absl::StrCat(prefix, "-", i), node, labels, nullptr, ns);
    }
    return *this;
  }
  // Marks the last pod terminating (deletionTimestamp set).
  Cluster& Terminating() {
    objects_.pods.back()
        .mutable_metadata()
        ->mutable_deletion_timestamp()
        ->set_seconds(absl::ToUnixSeconds(kDeleted));
    return *this;
  }
  // Sets the last pod's phase.
  Cluster& Phase(const std::string& phase) {
    objects_.pods.back().mutable_status()->set_phase(phase);
    return *this;
  }

  snapshot::ObjectSet& objects() { return objects_; }

 private:
  snapshot::ObjectSet objects_;
};

// The snapshot, index and one TopologyState over a cluster.
class World {
 public:
  explicit World(Cluster cluster) {
    absl::StatusOr<snapshot::Snapshot> s =
        snapshot::Snapshot::Build(std::move(cluster.objects()));
    INFO(s.status().ToString());
    REQUIRE(s.ok());
    snap_ = std::make_unique<snapshot::Snapshot>(*std::move(s));
    index_ = TopologyIndex::Build(*snap_);
    state_ = std::make_unique<TopologyState>(*index_);
  }

  snapshot::NodeIndex NodeIdx(const std::string& name) const {
    std::optional<snapshot::NodeIndex> n = snap_->FindNode(name);
    INFO(name);
    REQUIRE(n.has_value());
    return *n;
  }
  snapshot::PodIndex PodIdx(const std::string& name,
                            const std::string& ns = "default") const {
    std::optional<snapshot::PodIndex> p = snap_->FindPod(ns, name);
    INFO(name);
    REQUIRE(p.has_value());
    return *p;
  }

  TopologyState& state() { return *state_; }
  void AddPod(const std::string& pod, const std::string& node) {
    state_->AddPod(PodIdx(pod), NodeIdx(node));
  }
  void RemovePod(const std::string& pod) { state_->RemovePod(PodIdx(pod)); }
  void RemoveNode(const std::string& node) {
    state_->RemoveNode(NodeIdx(node));
    removed_nodes_.insert(node);
  }

  // What `plugin` (PodTopologySpread or InterPodAffinity) says of pod
  // `name` on every node not removed: node name -> Answer. A bound pod is first
  // removed from its node, as the header asks. The node affinity callback is
  // the pod's nodeSelector; the taints callback whether it tolerates every
  // NoSchedule and NoExecute taint.
  std::map<std::string, std::string> Ask(absl::string_view plugin,
                                         const std::string& name,
                                         const std::string& ns = "default") {
    const snapshot::PodIndex p = PodIdx(name, ns);
    const v1::Pod pod = snap_->DecodePod(p);
    if (!pod.spec().node_name().empty() && !removed_.contains(p)) {
      state_->RemovePod(p);
      removed_.insert(p);
    }
    absl::StatusOr<PodConstraints> c = CompilePodConstraints(pod);
    INFO(c.status().ToString());
    REQUIRE(c.ok());
    const auto affinity = [&](snapshot::NodeIndex n) {
      return MatchesNodeSelector(pod, n);
    };
    const auto taints = [&](snapshot::NodeIndex n) {
      return ToleratesNodeTaints(pod, n);
    };
    const IncomingPod incoming{p, &*c, affinity, taints};
    std::map<std::string, std::string> out;
    for (snapshot::NodeIndex n = 0; n < snap_->nodes().size(); ++n) {
      const std::string& node = snap_->nodes()[n].metadata().name();
      if (removed_nodes_.contains(node)) continue;
      out[node] = Answer(plugin == kPodTopologySpread
                             ? state_->PodTopologySpread(incoming, n)
                             : state_->InterPodAffinity(incoming, n));
    }
    return out;
  }
  // What Score plugin `plugin` gives pending pod `name` on each node not
  // removed (all of them feasible, or those of `only`), as "n1=0 n2=100",
  // or "skipped". The callbacks are Ask's.
  std::string Scores(absl::string_view plugin, const std::string& name,
                     const std::vector<std::string>& only = {}) {
    const snapshot::PodIndex p = PodIdx(name);
    const v1::Pod pod = snap_->DecodePod(p);
    absl::StatusOr<PodConstraints> c = CompilePodConstraints(pod);
    absl::StatusOr<PodScoring> scoring = CompilePodScoring(pod);
    INFO(scoring.status().ToString());
    REQUIRE(c.ok());
    REQUIRE(scoring.ok());
    const auto affinity = [&](snapshot::NodeIndex n) {
      return MatchesNodeSelector(pod, n);
    };
    const auto taints = [&](snapshot::NodeIndex n) {
      return ToleratesNodeTaints(pod, n);
    };
    const IncomingPod incoming{p, &*c, affinity, taints};
    std::vector<snapshot::NodeIndex> feasible;
    for (snapshot::NodeIndex n = 0; n < snap_->nodes().size(); ++n) {
      const std::string& node = snap_->nodes()[n].metadata().name();
      if (!removed_nodes_.contains(node) &&
          (only.empty() ||
           std::find(only.begin(), only.end(), node) != only.end())) {
        feasible.push_back(n);
      }
    }
    const std::vector<int64_t> scores =
        plugin == kPodTopologySpread
            ? state_->PodTopologySpreadScore(incoming, *scoring, feasible)
            : state_->InterPodAffinityScore(incoming, *scoring, feasible);
    if (scores.empty()) return "skipped";
    REQUIRE(scores.size() == feasible.size());
    std::string out;
    for (size_t i = 0; i < feasible.size(); ++i) {
      absl::StrAppend(&out, out.empty() ? "" : " ",
                      snap_->nodes()[feasible[i]].metadata().name(), "=",
                      scores[i]);
    }
    return out;
  }

  // The callbacks of IncomingPod: `pod`'s nodeSelector admits node n; it
  // tolerates every NoSchedule and NoExecute taint of n.
  bool MatchesNodeSelector(const v1::Pod& pod, snapshot::NodeIndex n) const {
    const auto& labels = snap_->nodes()[n].metadata().labels();
    for (const auto& [k, v] : pod.spec().node_selector()) {
      auto it = labels.find(k);
      if (it == labels.end() || it->second != v) return false;
    }
    return true;
  }
  bool ToleratesNodeTaints(const v1::Pod& pod, snapshot::NodeIndex n) const {
    for (const v1::Taint& t : snap_->nodes()[n].spec().taints()) {
      if (t.effect() != "NoSchedule" && t.effect() != "NoExecute") continue;
      bool ok = false;
      for (const v1::Toleration& tol : pod.spec().tolerations()) {
        ok = ok || drain::ToleratesTaint(tol, t);
      }
      if (!ok) return false;
    }
    return true;
  }

  // Ask, as Str prints it.
  std::string Spread(const std::string& name) {
    return Str(Ask(kPodTopologySpread, name));
  }
  std::string Affinity(const std::string& name) {
    return Str(Ask(kInterPodAffinity, name));
  }

 private:
  std::unique_ptr<snapshot::Snapshot> snap_;
  std::unique_ptr<TopologyIndex> index_;
  std::unique_ptr<TopologyState> state_;
  absl::flat_hash_set<snapshot::PodIndex> removed_;
  absl::flat_hash_set<std::string> removed_nodes_;
};

using Answers = std::map<std::string, std::string>;

// --- PodTopologySpread. ------------------------------------------------------

// Zones a (a1, a2), b (b1) and c (c1).
Cluster SpreadNodes() {
  Cluster c;
  c.Node("a1", {{kZone, "a"}})
      .Node("a2", {{kZone, "a"}})
      .Node("b1", {{kZone, "b"}})
      .Node("c1", {{kZone, "c"}});
  return c;
}

const Labels kWeb = {{"app", "web"}};

TEST_CASE("pod topology spread: each rule of the filter",
          "[scheduling][topology]") {
  const PodEdit zone1 = WithSpread(Spread(kZone, 1, kWeb));
  struct Row {
    std::string name;
    std::function<void(Cluster&)> setup;  // adds pods, and "in"
    Answers want;
  };
  const std::vector<Row> rows = {
      {"skew = matching pods in the domain + 1 - the minimum, zero-count "
       "zones included",
       [&](Cluster& c) {
         c.Pods(2, "w", "a1", kWeb).Pods(1, "x", "b1", kWeb);
         c.Pod("in", "", kWeb, zone1);
       },
       {{"a1", kSkew}, {"a2", kSkew}, {"b1", kSkew}, {"c1", kOk}}},
      {"maxSkew 2 allows a skew of 2",
       [&](Cluster& c) {
         c.Pods(2, "w", "a1", kWeb).Pods(1, "x", "b1", kWeb);
         c.Pod("in", "", kWeb, WithSpread(Spread(kZone, 2, kWeb)));
       },
       {{"a1", kSkew}, {"a2", kSkew}, {"b1", kOk}, {"c1", kOk}}},
      {"ScheduleAnyway never filters",
       [&](Cluster& c) {
         c.Pods(5, "w", "a1", kWeb);
         c.Pod("in", "", kWeb,
               WithSpread(Spread(kZone, 1, kWeb, "ScheduleAnyway")));
       },
       {{"a1", kOk}, {"a2", kOk}, {"b1", kOk}, {"c1", kOk}}},
      {"an empty whenUnsatisfiable filters like DoNotSchedule",
       [&](Cluster& c) {
         c.Pods(2, "w", "a1", kWeb);
         c.Pod("in", "", kWeb, WithSpread(Spread(kZone, 1, kWeb, "")));
       },
       {{"a1", kSkew}, {"a2", kSkew}, {"b1", kOk}, {"c1", kOk}}},
      {"pods of other namespaces do not count",
       [&](Cluster& c) {
         c.Pods(2, "w", "a1", kWeb, "other").Pods(1, "x", "b1", kWeb);
         c.Pod("in", "", kWeb, zone1);
       },
       {{"a1", kOk}, {"a2", kOk}, {"b1", kSkew}, {"c1", kOk}}},
      {"terminating pods do not count",
       [&](Cluster& c) {
         c.Pod("t0", "a1", kWeb).Terminating();
         c.Pod("t1", "a1", kWeb).Terminating();
         c.Pods(1, "x", "b1", kWeb);
         c.Pod("in", "", kWeb, zone1);
       },
       {{"a1", kOk}, {"a2", kOk}, {"b1", kSkew}, {"c1", kOk}}},
      {"terminal pods do not count",
       [&](Cluster& c) {
         c.Pod("s", "a1", kWeb).Phase("Succeeded");
         c.Pod("f", "a1", kWeb).Phase("Failed");
         c.Pods(1, "x", "b1", kWeb);
         c.Pod("in", "", kWeb, zone1);
       },
       {{"a1", kOk}, {"a2", kOk}, {"b1", kSkew}, {"c1", kOk}}},
      {"pending pods do not count",
       [&](Cluster& c) {
         c.Pods(3, "pending", "", kWeb).Pods(1, "x", "b1", kWeb);
         c.Pod("in", "", kWeb, zone1);
       },
       {{"a1", kOk}, {"a2", kOk}, {"b1", kSkew}, {"c1", kOk}}},
      {"a nil selector counts nothing, not even the pod itself",
       [&](Cluster& c) {
         c.Pods(3, "w", "a1", kWeb);
         c.Pod("in", "", kWeb, WithSpread(Spread(kZone, 1, std::nullopt)));
       },
       {{"a1", kOk}, {"a2", kOk}, {"b1", kOk}, {"c1", kOk}}},
      {"an empty selector counts every pod of the namespace",
       [&](Cluster& c) {
         c.Pods(2, "db", "a1", {{"app", "db"}}).Pods(1, "x", "b1", kWeb);
         c.Pods(2, "elsewhere", "c1", kWeb, "other");
         c.Pod("in", "", kWeb, WithSpread(Spread(kZone, 1, Labels{})));
       },
       {{"a1", kSkew}, {"a2", kSkew}, {"b1", kSkew}, {"c1", kOk}}},
      {"the selector picks the pods: app=db is not counted for app=web",
       [&](Cluster& c) {
         c.Pods(2, "db", "a1", {{"app", "db"}}).Pods(1, "x", "b1", kWeb);
         c.Pod("in", "", kWeb, zone1);
       },
       {{"a1", kOk}, {"a2", kOk}, {"b1", kSkew}, {"c1", kOk}}},
      {"matchLabelKeys ANDs the pod's own value of each key",
       [&](Cluster& c) {
         c.Pods(2, "v1", "a1", {{"app", "web"}, {"version", "v1"}});
         c.Pods(1, "v2", "b1", {{"app", "web"}, {"version", "v2"}});
         v1::TopologySpreadConstraint s = Spread(kZone, 1, kWeb);
         s.add_match_label_keys("version");
         c.Pod("in", "", {{"app", "web"}, {"version", "v2"}}, WithSpread(s));
       },
       {{"a1", kOk}, {"a2", kOk}, {"b1", kSkew}, {"c1", kOk}}},
      {"a matchLabelKeys key the pod does not carry is ignored",
       [&](Cluster& c) {
         c.Pods(2, "v1", "a1", {{"app", "web"}, {"version", "v1"}});
         v1::TopologySpreadConstraint s = Spread(kZone, 1, kWeb);
         s.add_match_label_keys("version");
         c.Pod("in", "", kWeb, WithSpread(s));
       },
       {{"a1", kSkew}, {"a2", kSkew}, {"b1", kOk}, {"c1", kOk}}},
      {"a node without the topology key is UnschedulableAndUnresolvable",
       [&](Cluster& c) {
         c.Node("nozone");
         c.Pod("in", "", kWeb, zone1);
       },
       {{"a1", kOk},
        {"a2", kOk},
        {"b1", kOk},
        {"c1", kOk},
        {"nozone", kLabel}}},
      {"nodeAffinityPolicy Honor (default): nodes failing the nodeSelector "
       "are no domain and their pods do not count",
       [&](Cluster& c) {
         // Only a1 and b1 carry pool=x: zone c is no domain (min 1), and
         // a2's three pods are not counted in zone a.
         c.Node("ax", {{kZone, "a"}, {"pool", "x"}})
             .Node("bx", {{kZone, "b"}, {"pool", "x"}});
         c.Pods(1, "w", "ax", kWeb).Pods(1, "x", "bx", kWeb);
         c.Pods(3, "y", "a2", kWeb);
         c.Pod("in", "", kWeb, Both(zone1, WithNodeSelector({{"pool", "x"}})));
       },
       {{"a1", kOk},
        {"a2", kOk},
        {"ax", kOk},
        {"b1", kOk},
        {"bx", kOk},
        {"c1", kOk}}},
      {"nodeAffinityPolicy Ignore: every node with the key counts",
       [&](Cluster& c) {
         c.Node("ax", {{kZone, "a"}, {"pool", "x"}})
             .Node("bx", {{kZone, "b"}, {"pool", "x"}});
         c.Pods(1, "w", "ax", kWeb).Pods(1, "x", "bx", kWeb);
         c.Pods(3, "y", "a2", kWeb);
         v1::TopologySpreadConstraint s = Spread(kZone, 1, kWeb);
         s.set_node_affinity_policy("Ignore");
         c.Pod("in", "", kWeb,
               Both(WithSpread(s), WithNodeSelector({{"pool", "x"}})));
       },
       {{"a1", kSkew},
        {"a2", kSkew},
        {"ax", kSkew},
        {"b1", kSkew},
        {"bx", kSkew},
        {"c1", kOk}}},
      {"a node that is no domain, in a domain other nodes make, is judged "
       "by that domain's count",
       [&](Cluster& c) {
         c.Node("ax", {{kZone, "a"}, {"pool", "x"}})
             .Node("bx", {{kZone, "b"}, {"pool", "x"}});
         c.Pods(2, "w", "ax", kWeb);
         c.Pod("in", "", kWeb, Both(zone1, WithNodeSelector({{"pool", "x"}})));
       },
       // a1, a2 fail the nodeSelector but share zone a with ax (2 pods,
       // min 0 from bx); c1 is in no domain: count 0.
       {{"a1", kSkew},
        {"a2", kSkew},
        {"ax", kSkew},
        {"b1", kOk},
        {"bx", kOk},
        {"c1", kOk}}},
      {"no domain at all: every node with the key passes",
       [&](Cluster& c) {
         c.Pods(3, "w", "a1", kWeb);
         c.Node("nozone");
         c.Pod("in", "", kWeb,
               Both(zone1, WithNodeSelector({{"pool", "none"}})));
       },
       {{"a1", kOk},
        {"a2", kOk},
        {"b1", kOk},
        {"c1", kOk},
        {"nozone", kLabel}}},
      {"nodeTaintsPolicy Ignore (default): a tainted node is a domain",
       [&](Cluster& c) {
         c.Node("c2", {{kZone, "c2"}},
                {testing::MakeTaint("dedicated", "x", "NoSchedule")});
         c.Pods(1, "w", "a1", kWeb).Pods(1, "x", "b1", kWeb);
         c.Pods(1, "y", "c1", kWeb);
         c.Pod("in", "", kWeb, zone1);
       },
       {{"a1", kSkew},
        {"a2", kSkew},
        {"b1", kSkew},
        {"c1", kSkew},
        {"c2", kOk}}},
      {"nodeTaintsPolicy Honor: an untolerated tainted node is no domain",
       [&](Cluster& c) {
         c.Node("c2", {{kZone, "c2"}},
                {testing::MakeTaint("dedicated", "x", "NoSchedule")});
         c.Pods(1, "w", "a1", kWeb).Pods(1, "x", "b1", kWeb);
         c.Pods(1, "y", "c1", kWeb);
         v1::TopologySpreadConstraint s = Spread(kZone, 1, kWeb);
         s.set_node_taints_policy("Honor");
         c.Pod("in", "", kWeb, WithSpread(s));
       },
       {{"a1", kOk}, {"a2", kOk}, {"b1", kOk}, {"c1", kOk}, {"c2", kOk}}},
      {"nodeTaintsPolicy Honor: a tolerated tainted node is a domain",
       [&](Cluster& c) {
         c.Node("c2", {{kZone, "c2"}},
                {testing::MakeTaint("dedicated", "x", "NoExecute")});
         c.Pods(1, "w", "a1", kWeb).Pods(1, "x", "b1", kWeb);
         c.Pods(1, "y", "c1", kWeb);
         v1::TopologySpreadConstraint s = Spread(kZone, 1, kWeb);
         s.set_node_taints_policy("Honor");
         c.Pod("in", "", kWeb, Both(WithSpread(s), [](v1::Pod& p) {
                 *p.mutable_spec()->add_tolerations() =
                     testing::MakeToleration("dedicated", "Exists");
               }));
       },
       {{"a1", kSkew},
        {"a2", kSkew},
        {"b1", kSkew},
        {"c1", kSkew},
        {"c2", kOk}}},
      {"a pod its own selector does not select adds no 1",
       [&](Cluster& c) {
         c.Pods(2, "w", "a1", kWeb).Pods(1, "x", "b1", kWeb);
         c.Pods(1, "y", "c1", kWeb);
         c.Pod("in", "", {{"app", "api"}}, zone1);
       },
       {{"a1", kOk}, {"a2", kOk}, {"b1", kOk}, {"c1", kOk}}},
      {"... and one it selects does",
       [&](Cluster& c) {
         c.Pods(2, "w", "a1", kWeb).Pods(1, "x", "b1", kWeb);
         c.Pods(1, "y", "c1", kWeb);
         c.Pod("in", "", kWeb, zone1);
       },
       {{"a1", kSkew}, {"a2", kSkew}, {"b1", kOk}, {"c1", kOk}}},
      {"minDomains at the number of domains keeps the minimum",
       [&](Cluster& c) {
         c.Pods(1, "w", "a1", kWeb).Pods(1, "x", "b1", kWeb);
         c.Pods(1, "y", "c1", kWeb);
         v1::TopologySpreadConstraint s = Spread(kZone, 1, kWeb);
         s.set_min_domains(3);
         c.Pod("in", "", kWeb, WithSpread(s));
       },
       {{"a1", kOk}, {"a2", kOk}, {"b1", kOk}, {"c1", kOk}}},
      {"fewer domains than minDomains: the minimum is 0",
       [&](Cluster& c) {
         c.Pods(1, "w", "a1", kWeb).Pods(1, "x", "b1", kWeb);
         c.Pods(1, "y", "c1", kWeb);
         v1::TopologySpreadConstraint s = Spread(kZone, 1, kWeb);
         s.set_min_domains(4);
         c.Pod("in", "", kWeb, WithSpread(s));
       },
       {{"a1", kSkew}, {"a2", kSkew}, {"b1", kSkew}, {"c1", kSkew}}},
      {"two constraints: a node lacking one key is no domain of the other",
       [&](Cluster& c) {
         // Only ra and rb carry both keys. ra2 (zone a, no rack) holds 3
         // pods that count for neither constraint: zone a is 1 (ra), zone
         // b 1 (rb).
         c.Node("ra", {{kZone, "a"}, {"rack", "r1"}})
             .Node("rb", {{kZone, "b"}, {"rack", "r2"}})
             .Node("ra2", {{kZone, "a"}});
         c.Pods(1, "w", "ra", kWeb).Pods(1, "x", "rb", kWeb);
         c.Pods(3, "y", "ra2", kWeb);
         c.Pod("in", "", kWeb,
               Both(zone1, WithSpread(Spread("rack", 1, kWeb))));
       },
       {{"a1", kLabel},
        {"a2", kLabel},
        {"b1", kLabel},
        {"c1", kLabel},
        {"ra", kOk},
        {"ra2", kLabel},
        {"rb", kOk}}},
  };
  for (const Row& row : rows) {
    CAPTURE(row.name);
    Cluster c = SpreadNodes();
    row.setup(c);
    World w(std::move(c));
    CHECK(w.Spread("in") == Str(row.want));
  }
}

TEST_CASE("pod topology spread: constraints are checked in order",
          "[scheduling][topology]") {
  // a1, b1 carry zone and rack; a3 carries only the zone. Zone a holds 3
  // web pods, zone b 1: on a3 the zone constraint is violated and the rack
  // label is missing. kube-scheduler checks one constraint after the other:
  // the first constraint's failure is the answer.
  Cluster c;
  c.Node("a1", {{kZone, "a"}, {"rack", "r1"}})
      .Node("b1", {{kZone, "b"}, {"rack", "r2"}})
      .Node("a3", {{kZone, "a"}});
  c.Pods(3, "w", "a1", kWeb).Pods(1, "x", "b1", kWeb);
  const v1::TopologySpreadConstraint zone = Spread(kZone, 1, kWeb);
  const v1::TopologySpreadConstraint rack = Spread("rack", 5, kWeb);
  c.Pod("zone-first", "", kWeb, Both(WithSpread(zone), WithSpread(rack)));
  c.Pod("rack-first", "", kWeb, Both(WithSpread(rack), WithSpread(zone)));
  World w(std::move(c));
  CHECK(w.Spread("zone-first") ==
        Str(Answers{{"a1", kSkew}, {"a3", kSkew}, {"b1", kOk}}));
  CHECK(w.Spread("rack-first") ==
        Str(Answers{{"a1", kSkew}, {"a3", kLabel}, {"b1", kOk}}));
}

TEST_CASE(
    "pod topology spread: the counts follow AddPod, RemovePod and "
    "RemoveNode",
    "[scheduling][topology]") {
  const PodEdit zone1 = WithSpread(Spread(kZone, 1, kWeb));
  Cluster c = SpreadNodes();
  // a: 1 (on a1), b: 1, c: 0. "in" and "in2" share one shape.
  c.Pod("wa", "a1", kWeb, zone1).Pod("wb", "b1", kWeb, zone1);
  c.Pod("in", "", kWeb, zone1).Pod("in2", "", kWeb, zone1);
  c.Pod("in3", "", kWeb, zone1);
  c.Pod("other-ns", "", kWeb, zone1, "other");
  // A terminating pod on a2 (a StatefulSet pod Karpenter reschedules).
  c.Pod("leaving", "a2", kWeb).Terminating();
  World w(std::move(c));
  const Answers only_c = {
      {"a1", kSkew}, {"a2", kSkew}, {"b1", kSkew}, {"c1", kOk}};
  const Answers all = {{"a1", kOk}, {"a2", kOk}, {"b1", kOk}, {"c1", kOk}};
  REQUIRE(w.Spread("in") == Str(only_c));

  SECTION("a placed pod counts where it was placed, for pods asked later") {
    w.AddPod("in2", "c1");
    CHECK(w.Spread("in") == Str(all));
    // Another one in zone a makes it 2 against a minimum of 1.
    w.AddPod("in", "a2");
    CHECK(w.Spread("in3") ==
          Str(Answers{{"a1", kSkew}, {"a2", kSkew}, {"b1", kOk}, {"c1", kOk}}));
  }
  SECTION("a pod of another namespace placed does not count") {
    w.state().AddPod(w.PodIdx("other-ns", "other"), w.NodeIdx("c1"));
    CHECK(w.Spread("in") == Str(only_c));
  }
  SECTION("a removed pod no longer counts") {
    w.RemovePod("wa");
    CHECK(w.Spread("in") ==
          Str(Answers{{"a1", kOk}, {"a2", kOk}, {"b1", kSkew}, {"c1", kOk}}));
  }
  SECTION("a moved pod counts at its new node only") {
    w.RemovePod("wa");
    w.AddPod("wa", "c1");
    CHECK(w.Spread("in") ==
          Str(Answers{{"a1", kOk}, {"a2", kOk}, {"b1", kSkew}, {"c1", kSkew}}));
  }
  SECTION("a pod placed and removed again does not count") {
    w.AddPod("in2", "c1");
    w.RemovePod("in2");
    CHECK(w.Spread("in") == Str(only_c));
  }
  SECTION("a pod placed twice counts at its last node") {
    w.AddPod("in2", "a2");
    w.RemovePod("in2");
    w.AddPod("in2", "c1");
    CHECK(w.Spread("in") == Str(all));
  }
  SECTION("a removed node is no domain and its pods do not count") {
    // Zone c is gone: the minimum is 1, over a and b.
    w.RemoveNode("c1");
    CHECK(w.Spread("in") ==
          Str(Answers{{"a1", kOk}, {"a2", kOk}, {"b1", kOk}}));
    // a1 gone too: zone a lives on in a2, with no pod.
    w.RemoveNode("a1");
    CHECK(w.Spread("in") == Str(Answers{{"a2", kOk}, {"b1", kSkew}}));
  }
  SECTION("a terminating pod counts nowhere, until it is placed again") {
    w.RemovePod("leaving");
    CHECK(w.Spread("in") == Str(only_c));
    // Placed, it stands for the pod that replaces it, which is not
    // terminating.
    w.AddPod("leaving", "c1");
    CHECK(w.Spread("in") == Str(all));
  }
  SECTION("two pods moving one after the other") {
    // Both leave; the first goes to c; the second then sees a: 0, b: 1,
    // c: 1.
    w.RemovePod("wa");
    w.RemovePod("wb");
    CHECK(w.Spread("wa") == Str(all));
    w.AddPod("wa", "c1");
    CHECK(w.Spread("wb") ==
          Str(Answers{{"a1", kOk}, {"a2", kOk}, {"b1", kOk}, {"c1", kSkew}}));
  }
}

// --- InterPodAffinity. -------------------------------------------------------

// Zones a (a1, a2) and b (b1); "nozone" has only its hostname.
Cluster AffinityNodes() {
  Cluster c;
  c.Node("a1", {{kZone, "a"}})
      .Node("a2", {{kZone, "a"}})
      .Node("b1", {{kZone, "b"}})
      .Node("nozone");
  return c;
}

const Labels kDb = {{"app", "db"}};

TEST_CASE("inter-pod affinity: each rule of the filter",
          "[scheduling][topology]") {
  struct Row {
    std::string name;
    std::function<void(Cluster&)> setup;  // adds pods, and "in"
    Answers want;
  };
  const std::vector<Row> rows = {
      // Required affinity.
      {"affinity: any node in the zone of a matching pod",
       [](Cluster& c) {
         c.Pod("db", "a1", kDb);
         c.Pod("in", "", kWeb, WithAffinity(Term(kZone, kDb)));
       },
       {{"a1", kOk}, {"a2", kOk}, {"b1", kAff}, {"nozone", kAff}}},
      {"affinity by hostname: only the matching pod's node",
       [](Cluster& c) {
         c.Pod("db", "a1", kDb);
         c.Pod("in", "", kWeb, WithAffinity(Term(kHost, kDb)));
       },
       {{"a1", kOk}, {"a2", kAff}, {"b1", kAff}, {"nozone", kAff}}},
      {"affinity: the node must carry every term's key",
       [](Cluster& c) {
         c.Pod("db", "a1", kDb).Pod("db2", "nozone", kDb);
         c.Pod("in", "", kWeb,
               Both(WithAffinity(Term(kZone, kDb)),
                    WithAffinity(Term(kHost, kDb))));
       },
       {{"a1", kOk}, {"a2", kAff}, {"b1", kAff}, {"nozone", kAff}}},
      {"affinity: one pod must match every term",
       [](Cluster& c) {
         // db is tier front, x is tier back: nobody is both.
         c.Pod("db", "a1", {{"app", "db"}, {"tier", "front"}});
         c.Pod("x", "a1", {{"app", "x"}, {"tier", "back"}});
         c.Pod("in", "", kWeb,
               Both(WithAffinity(Term(kZone, kDb)),
                    WithAffinity(Term(kZone, Labels{{"tier", "back"}}))));
       },
       {{"a1", kAff}, {"a2", kAff}, {"b1", kAff}, {"nozone", kAff}}},
      {"affinity: ... which one pod in zone b does",
       [](Cluster& c) {
         c.Pod("db", "a1", {{"app", "db"}, {"tier", "front"}});
         c.Pod("x", "a1", {{"app", "x"}, {"tier", "back"}});
         c.Pod("both", "b1", {{"app", "db"}, {"tier", "back"}});
         c.Pod("in", "", kWeb,
               Both(WithAffinity(Term(kZone, kDb)),
                    WithAffinity(Term(kZone, Labels{{"tier", "back"}}))));
       },
       {{"a1", kAff}, {"a2", kAff}, {"b1", kOk}, {"nozone", kAff}}},
      {"affinity: the first pod of a self-affine group may go to any node "
       "with the key",
       [](Cluster& c) {
         c.Pod("db", "a1", kDb);
         c.Pod("in", "", kWeb, WithAffinity(Term(kZone, kWeb)));
       },
       {{"a1", kOk}, {"a2", kOk}, {"b1", kOk}, {"nozone", kAff}}},
      {"affinity: no first-pod exception once a matching pod exists",
       [](Cluster& c) {
         c.Pod("web", "b1", kWeb);
         c.Pod("in", "", kWeb, WithAffinity(Term(kZone, kWeb)));
       },
       {{"a1", kAff}, {"a2", kAff}, {"b1", kOk}, {"nozone", kAff}}},
      {"affinity: a matching pod on a node without the key leaves the "
       "exception",
       [](Cluster& c) {
         c.Pod("web", "nozone", kWeb);
         c.Pod("in", "", kWeb, WithAffinity(Term(kZone, kWeb)));
       },
       {{"a1", kOk}, {"a2", kOk}, {"b1", kOk}, {"nozone", kAff}}},
      {"affinity: no exception for a pod its own terms do not select",
       [](Cluster& c) {
         c.Pod("in", "", kWeb, WithAffinity(Term(kZone, kDb)));
       },
       {{"a1", kAff}, {"a2", kAff}, {"b1", kAff}, {"nozone", kAff}}},
      {"affinity: a nil selector selects nobody, not even the pod",
       [](Cluster& c) {
         c.Pod("web", "a1", kWeb);
         c.Pod("in", "", kWeb, WithAffinity(Term(kZone, std::nullopt)));
       },
       {{"a1", kAff}, {"a2", kAff}, {"b1", kAff}, {"nozone", kAff}}},
      {"affinity: terminating pods count",
       [](Cluster& c) {
         c.Pod("db", "b1", kDb).Terminating();
         c.Pod("in", "", kWeb, WithAffinity(Term(kZone, kDb)));
       },
       {{"a1", kAff}, {"a2", kAff}, {"b1", kOk}, {"nozone", kAff}}},
      {"affinity: terminal and pending pods do not",
       [](Cluster& c) {
         c.Pod("db", "b1", kDb).Phase("Succeeded");
         c.Pod("db2", "", kDb);
         c.Pod("in", "", kWeb, WithAffinity(Term(kZone, kDb)));
       },
       {{"a1", kAff}, {"a2", kAff}, {"b1", kAff}, {"nozone", kAff}}},
      // Required anti-affinity.
      {"anti-affinity: no node in the zone of a matching pod",
       [](Cluster& c) {
         c.Pod("db", "a1", kDb);
         c.Pod("in", "", kWeb, WithAntiAffinity(Term(kZone, kDb)));
       },
       {{"a1", kAnti}, {"a2", kAnti}, {"b1", kOk}, {"nozone", kOk}}},
      {"anti-affinity: terminating pods count",
       [](Cluster& c) {
         c.Pod("db", "a1", kDb).Terminating();
         c.Pod("in", "", kWeb, WithAntiAffinity(Term(kZone, kDb)));
       },
       {{"a1", kAnti}, {"a2", kAnti}, {"b1", kOk}, {"nozone", kOk}}},
      {"anti-affinity: terminal and pending pods do not",
       [](Cluster& c) {
         c.Pod("db", "a1", kDb).Phase("Failed");
         c.Pod("db2", "", kDb);
         c.Pod("in", "", kWeb, WithAntiAffinity(Term(kZone, kDb)));
       },
       {{"a1", kOk}, {"a2", kOk}, {"b1", kOk}, {"nozone", kOk}}},
      {"anti-affinity: namespaceSelector {} selects every namespace",
       [](Cluster& c) {
         c.Pod("db", "a1", kDb, nullptr, "other");
         c.Pod("in", "", kWeb,
               WithAntiAffinity(Term(kZone, kDb, {}, Labels{})));
       },
       {{"a1", kAnti}, {"a2", kAnti}, {"b1", kOk}, {"nozone", kOk}}},
      {"anti-affinity: neither namespaces nor selector: the pod's namespace",
       [](Cluster& c) {
         c.Pod("db", "a1", kDb, nullptr, "other");
         c.Pod("db2", "nozone", kDb);
         c.Pod("in", "", kWeb, WithAntiAffinity(Term(kHost, kDb)));
       },
       {{"a1", kOk}, {"a2", kOk}, {"b1", kOk}, {"nozone", kAnti}}},
      {"anti-affinity: a namespaces list alone is only those namespaces",
       [](Cluster& c) {
         c.Pod("db", "a1", kDb, nullptr, "x");
         c.Pod("db2", "a2", kDb, nullptr, "y");
         c.Pod("db3", "nozone", kDb);
         c.Pod("in", "", kWeb, WithAntiAffinity(Term(kHost, kDb, {"x"})));
       },
       {{"a1", kAnti}, {"a2", kOk}, {"b1", kOk}, {"nozone", kOk}}},
      {"anti-affinity: namespaces list OR namespaceSelector",
       [](Cluster& c) {
         c.Pod("db", "a1", kDb, nullptr, "x");
         c.Pod("db2", "a2", kDb, nullptr, "y");
         c.Pod("db3", "b1", kDb, nullptr, "z");
         c.Pod("db4", "nozone", kDb);
         c.Pod("in", "", kWeb,
               WithAntiAffinity(
                   Term(kHost, kDb, {"x"},
                        Labels{{"kubernetes.io/metadata.name", "y"}})));
       },
       {{"a1", kAnti}, {"a2", kAnti}, {"b1", kOk}, {"nozone", kOk}}},
      // Existing pods' anti-affinity (symmetry).
      {"existing: a pod's anti-affinity term selecting the incoming pod "
       "blocks its zone",
       [](Cluster& c) {
         c.Pod("h", "a1", kDb, WithAntiAffinity(Term(kZone, kWeb)));
         c.Pod("in", "", kWeb);
       },
       {{"a1", kExisting}, {"a2", kExisting}, {"b1", kOk}, {"nozone", kOk}}},
      {"existing: a term selecting other pods blocks nothing",
       [](Cluster& c) {
         c.Pod("h", "a1", kDb, WithAntiAffinity(Term(kZone, kDb)));
         c.Pod("in", "", kWeb);
       },
       {{"a1", kOk}, {"a2", kOk}, {"b1", kOk}, {"nozone", kOk}}},
      {"existing: the term's namespaces are the existing pod's",
       [](Cluster& c) {
         c.Pod("h", "a1", kDb, WithAntiAffinity(Term(kZone, kWeb)), "team");
         c.Pod("in", "", kWeb);
       },
       {{"a1", kOk}, {"a2", kOk}, {"b1", kOk}, {"nozone", kOk}}},
      {"existing: ... or those it lists",
       [](Cluster& c) {
         c.Pod("h", "a1", kDb, WithAntiAffinity(Term(kZone, kWeb, {"default"})),
               "team");
         c.Pod("in", "", kWeb);
       },
       {{"a1", kExisting}, {"a2", kExisting}, {"b1", kOk}, {"nozone", kOk}}},
      {"existing: a namespaceSelector on other namespace labels is taken "
       "to select every namespace (Namespace objects are not read)",
       [](Cluster& c) {
         c.Pod("h", "a1", kDb,
               WithAntiAffinity(Term(kZone, kWeb, {}, Labels{{"team", "a"}})),
               "team");
         c.Pod("in", "", kWeb);
       },
       {{"a1", kExisting}, {"a2", kExisting}, {"b1", kOk}, {"nozone", kOk}}},
      {"existing: a terminating pod's anti-affinity still counts",
       [](Cluster& c) {
         c.Pod("h", "b1", kDb, WithAntiAffinity(Term(kZone, kWeb)))
             .Terminating();
         c.Pod("in", "", kWeb);
       },
       {{"a1", kOk}, {"a2", kOk}, {"b1", kExisting}, {"nozone", kOk}}},
      {"existing: a pod on a node without the key blocks only by that key",
       [](Cluster& c) {
         c.Pod("h", "nozone", kDb, WithAntiAffinity(Term(kZone, kWeb)));
         c.Pod("h2", "b1", kDb, WithAntiAffinity(Term(kHost, kWeb)));
         c.Pod("in", "", kWeb);
       },
       {{"a1", kOk}, {"a2", kOk}, {"b1", kExisting}, {"nozone", kOk}}},
      // Order: affinity, then anti-affinity, then existing pods'.
      {"order: the first failing check answers",
       [](Cluster& c) {
         // Affinity to db by zone: a1, a2, b1 pass, nozone fails.
         c.Pod("db", "a1", kDb).Pod("db2", "b1", kDb);
         // Anti-affinity to cache by hostname: a1 and nozone fail.
         c.Pod("cache", "a1", {{"app", "cache"}});
         c.Pod("cache2", "nozone", {{"app", "cache"}});
         // Existing anti-affinity against web: every node but a2 fails.
         for (const char* n : {"a1", "b1", "nozone"}) {
           c.Pod(absl::StrCat("h-", n), n, {{"app", "h"}},
                 WithAntiAffinity(Term(kHost, kWeb)));
         }
         c.Pod("in", "", kWeb,
               Both(WithAffinity(Term(kZone, kDb)),
                    WithAntiAffinity(Term(kHost, Labels{{"app", "cache"}}))));
       },
       {{"a1", kAnti}, {"a2", kOk}, {"b1", kExisting}, {"nozone", kAff}}},
      // Itself, and what is never enforced.
      {"a pod never conflicts with itself: anti-affinity",
       [](Cluster& c) {
         c.Pod("peer", "b1", kWeb);
         c.Pod("in", "a1", kWeb, WithAntiAffinity(Term(kHost, kWeb)));
       },
       {{"a1", kOk}, {"a2", kOk}, {"b1", kAnti}, {"nozone", kOk}}},
      {"a pod never conflicts with itself: the first-pod exception",
       [](Cluster& c) {
         c.Pod("in", "a1", kWeb, WithAffinity(Term(kHost, kWeb)));
       },
       {{"a1", kOk}, {"a2", kOk}, {"b1", kOk}, {"nozone", kOk}}},
      {"preferred terms are never enforced",
       [](Cluster& c) {
         const auto preferred = [](v1::PodAffinityTerm t) {
           v1::WeightedPodAffinityTerm w;
           w.set_weight(100);
           *w.mutable_pod_affinity_term() = std::move(t);
           return w;
         };
         c.Pod("db", "a1", kDb, [&](v1::Pod& p) {
           *p.mutable_spec()
                ->mutable_affinity()
                ->mutable_pod_anti_affinity()
                ->add_preferred_during_scheduling_ignored_during_execution() =
               preferred(Term(kZone, kWeb));
         });
         c.Pod("in", "", kWeb, [&](v1::Pod& p) {
           v1::Affinity& a = *p.mutable_spec()->mutable_affinity();
           *a.mutable_pod_anti_affinity()
                ->add_preferred_during_scheduling_ignored_during_execution() =
               preferred(Term(kZone, kDb));
           *a.mutable_pod_affinity()
                ->add_preferred_during_scheduling_ignored_during_execution() =
               preferred(Term(kZone, Labels{{"app", "none"}}));
         });
       },
       {{"a1", kOk}, {"a2", kOk}, {"b1", kOk}, {"nozone", kOk}}},
  };
  for (const Row& row : rows) {
    CAPTURE(row.name);
    Cluster c = AffinityNodes();
    row.setup(c);
    World w(std::move(c));
    CHECK(w.Affinity("in") == Str(row.want));
  }
}

TEST_CASE(
    "inter-pod affinity: the counts follow AddPod, RemovePod and "
    "RemoveNode",
    "[scheduling][topology]") {
  Cluster c = AffinityNodes();
  c.Node("b2", {{kZone, "b"}});
  const Labels holder = {{"app", "h"}};
  c.Pod("h", "a1", holder, WithAntiAffinity(Term(kZone, kWeb)));
  // A pending holder, a pending db, and two web pods of one shape that keep
  // one per hostname.
  c.Pod("h2", "", holder, WithAntiAffinity(Term(kZone, kWeb)));
  c.Pod("db", "", kDb);
  c.Pod("in", "", kWeb, WithAntiAffinity(Term(kHost, kWeb)));
  c.Pod("in2", "", kWeb, WithAntiAffinity(Term(kHost, kWeb)));
  c.Pod("inz", "", kWeb, WithAntiAffinity(Term(kZone, kWeb)));
  c.Pod("aff", "", kWeb, WithAffinity(Term(kZone, kDb)));
  World w(std::move(c));
  const Answers zone_a_blocked = {{"a1", kExisting},
                                  {"a2", kExisting},
                                  {"b1", kOk},
                                  {"b2", kOk},
                                  {"nozone", kOk}};
  const Answers all = {
      {"a1", kOk}, {"a2", kOk}, {"b1", kOk}, {"b2", kOk}, {"nozone", kOk}};
  const Answers only_b = {
      {"a1", kAff}, {"a2", kAff}, {"b1", kOk}, {"b2", kOk}, {"nozone", kAff}};
  const Answers none = {
      {"a1", kAff}, {"a2", kAff}, {"b1", kAff}, {"b2", kAff}, {"nozone", kAff}};
  REQUIRE(w.Affinity("in") == Str(zone_a_blocked));

  SECTION("a removed holder blocks nothing") {
    w.RemovePod("h");
    CHECK(w.Affinity("in") == Str(all));
  }
  SECTION("a holder moved blocks its new zone only") {
    w.RemovePod("h");
    w.AddPod("h", "b1");
    CHECK(w.Affinity("in") == Str(Answers{{"a1", kOk},
                                          {"a2", kOk},
                                          {"b1", kExisting},
                                          {"b2", kExisting},
                                          {"nozone", kOk}}));
  }
  SECTION("a placed pending holder blocks later pods") {
    w.AddPod("h2", "b1");
    CHECK(w.Affinity("in") == Str(Answers{{"a1", kExisting},
                                          {"a2", kExisting},
                                          {"b1", kExisting},
                                          {"b2", kExisting},
                                          {"nozone", kOk}}));
  }
  SECTION("the holder's node removed: it blocks nothing") {
    w.RemoveNode("a1");
    CHECK(w.Affinity("in") ==
          Str(Answers{{"a2", kOk}, {"b1", kOk}, {"b2", kOk}, {"nozone", kOk}}));
  }
  SECTION("a placed holder whose node is removed afterwards blocks nothing") {
    w.AddPod("h2", "b1");
    w.RemoveNode("b1");
    CHECK(w.Affinity("in") == Str(Answers{{"a1", kExisting},
                                          {"a2", kExisting},
                                          {"b2", kOk},
                                          {"nozone", kOk}}));
  }
  SECTION("a placed replica counts for its sibling's anti-affinity") {
    w.RemovePod("h");
    w.AddPod("in2", "a2");
    CHECK(w.Affinity("in") == Str(Answers{{"a1", kOk},
                                          {"a2", kAnti},
                                          {"b1", kOk},
                                          {"b2", kOk},
                                          {"nozone", kOk}}));
  }
  SECTION(
      "a placed pod on a node removed afterwards counts for no "
      "anti-affinity") {
    w.RemovePod("h");
    w.AddPod("in2", "b1");
    CHECK(w.Affinity("inz") == Str(Answers{{"a1", kOk},
                                           {"a2", kOk},
                                           {"b1", kAnti},
                                           {"b2", kAnti},
                                           {"nozone", kOk}}));
    w.RemoveNode("b1");
    CHECK(w.Affinity("inz") ==
          Str(Answers{{"a1", kOk}, {"a2", kOk}, {"b2", kOk}, {"nozone", kOk}}));
  }
  SECTION("a placed pod satisfies affinity and ends the first-pod exception") {
    CHECK(w.Affinity("aff") == Str(none));
    w.AddPod("db", "b1");
    CHECK(w.Affinity("aff") == Str(only_b));
    w.RemovePod("db");
    CHECK(w.Affinity("aff") == Str(none));
  }
  SECTION("a placed pod on a node removed afterwards satisfies no affinity") {
    w.AddPod("db", "b1");
    w.RemoveNode("b1");
    CHECK(w.Affinity("aff") ==
          Str(Answers{
              {"a1", kAff}, {"a2", kAff}, {"b2", kAff}, {"nozone", kAff}}));
  }
}

// FitPod's nodes as "node: Plugin message; Plugin message" (or "node: fits")
// and its summary.
std::vector<std::string> FitLines(const snapshot::ObjectSet& objects,
                                  const std::string& pod) {
  absl::StatusOr<snapshot::Snapshot> snap = snapshot::Snapshot::Build(objects);
  REQUIRE(snap.ok());
  absl::StatusOr<v1::FitReport> report = FitPod(*snap, "default", pod);
  INFO(report.status().ToString());
  REQUIRE(report.ok());
  std::vector<std::string> out;
  for (const v1::FitNode& n : report->nodes()) {
    std::string line = absl::StrCat(n.name(), ":");
    if (n.fits()) absl::StrAppend(&line, " fits");
    for (const v1::FitReason& r : n.reasons()) {
      absl::StrAppend(&line, line.back() == ':' ? " " : "; ", r.plugin(), " ",
                      r.message());
    }
    out.push_back(line);
  }
  out.push_back(report->summary());
  return out;
}

TEST_CASE("FitPod: both topology plugins are reported for a node failing both",
          "[scheduling][topology]") {
  Cluster c;
  c.Node("a1", {{kZone, "a"}}).Node("b1", {{kZone, "b"}});
  c.Pod("w0", "a1", kWeb);
  c.Pod("in", "", kWeb,
        Both(WithSpread(Spread(kZone, 1, kWeb)),
             WithAntiAffinity(Term(kHost, kWeb))));
  CHECK(FitLines(c.objects(), "in") ==
        std::vector<std::string>{
            "a1: PodTopologySpread node(s) didn't match pod topology spread "
            "constraints; InterPodAffinity node(s) didn't match pod "
            "anti-affinity rules",
            "b1: fits", "1/2 nodes are available."});
  // A bound pod is asked about as if unbound: "mine", alone in zone b, is
  // not counted against itself there.
  c.Pod("mine", "b1", kWeb,
        Both(WithSpread(Spread(kZone, 1, kWeb)),
             WithAntiAffinity(Term(kHost, Labels{{"app", "none"}}))));
  CHECK(FitLines(c.objects(), "mine") ==
        std::vector<std::string>{"a1: PodTopologySpread node(s) didn't match "
                                 "pod topology spread constraints",
                                 "b1: fits", "1/2 nodes are available."});
  // With w1, zone a holds 2 against zone b's 1; both nodes run a web pod.
  // The summary counts each node's first failing plugin.
  c.Pod("w1", "a1", kWeb);
  CHECK(FitLines(c.objects(), "in") ==
        std::vector<std::string>{
            "a1: PodTopologySpread node(s) didn't match pod topology spread "
            "constraints; InterPodAffinity node(s) didn't match pod "
            "anti-affinity rules",
            "b1: InterPodAffinity node(s) didn't match pod anti-affinity rules",
            "0/2 nodes are available: 1 node(s) didn't match pod "
            "anti-affinity rules, 1 node(s) didn't match pod topology spread "
            "constraints."});
}

TEST_CASE("CompilePodConstraints: what it keeps and what it refuses",
          "[scheduling][topology]") {
  struct Row {
    std::string name;
    PodEdit edit;
    std::string error;  // "" when it compiles
  };
  v1::TopologySpreadConstraint bad_skew = Spread(kZone, 0, kWeb);
  v1::TopologySpreadConstraint no_key = Spread("", 1, kWeb);
  v1::TopologySpreadConstraint bad_when = Spread(kZone, 1, kWeb, "Sometimes");
  v1::TopologySpreadConstraint bad_min = Spread(kZone, 1, kWeb);
  bad_min.set_min_domains(0);
  v1::TopologySpreadConstraint bad_policy = Spread(kZone, 1, kWeb);
  bad_policy.set_node_taints_policy("honor");
  const std::vector<Row> rows = {
      {"maxSkew", WithSpread(bad_skew),
       "spec.topologySpreadConstraints[0].maxSkew: must be greater than zero, "
       "got 0"},
      {"topologyKey",
       Both(WithSpread(Spread(kZone, 1, kWeb)), WithSpread(no_key)),
       "spec.topologySpreadConstraints[1].topologyKey: must not be empty"},
      {"whenUnsatisfiable", WithSpread(bad_when),
       "spec.topologySpreadConstraints[0].whenUnsatisfiable: must be "
       "\"DoNotSchedule\" or \"ScheduleAnyway\", got \"Sometimes\""},
      {"minDomains", WithSpread(bad_min),
       "spec.topologySpreadConstraints[0].minDomains: must be greater than "
       "zero, got 0"},
      {"policy", WithSpread(bad_policy),
       "spec.topologySpreadConstraints[0].nodeTaintsPolicy: must be \"Honor\" "
       "or \"Ignore\", got \"honor\""},
      {"term topologyKey", WithAntiAffinity(Term("", kWeb)),
       "spec.affinity.podAntiAffinity."
       "requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: must "
       "not be empty"},
  };
  for (const Row& row : rows) {
    CAPTURE(row.name);
    v1::Pod pod = testing::MakePod({.name = "p"});
    row.edit(pod);
    absl::StatusOr<PodConstraints> c = CompilePodConstraints(pod);
    REQUIRE_FALSE(c.ok());
    CHECK(c.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(c.status().message() == row.error);
  }

  // Unimplemented: a namespace label other than kubernetes.io/metadata.name.
  v1::Pod ns_label = testing::MakePod({.name = "p"});
  WithAffinity(Term(kZone, kWeb, {}, Labels{{"team", "a"}}))(ns_label);
  CHECK(CompilePodConstraints(ns_label).status().code() ==
        absl::StatusCode::kUnimplemented);

  // What is kept: DoNotSchedule constraints with their defaults, required
  // terms; ScheduleAnyway and preferred terms are not.
  v1::Pod pod = testing::MakePod({.name = "p", .ns = "team"});
  WithSpread(Spread(kZone, 2, kWeb, "ScheduleAnyway"))(pod);
  WithSpread(Spread(kHost, 3, kWeb))(pod);
  WithAffinity(Term(kZone, kDb))(pod);
  WithAntiAffinity(Term(kHost, kWeb, {"b", "a", "b"}))(pod);
  absl::StatusOr<PodConstraints> c = CompilePodConstraints(pod);
  REQUIRE(c.ok());
  REQUIRE(c->spread.size() == 1);
  CHECK(c->spread[0].topology_key == kHost);
  CHECK(c->spread[0].max_skew == 3);
  CHECK(c->spread[0].min_domains == 1);
  CHECK(c->spread[0].honor_node_affinity);
  CHECK_FALSE(c->spread[0].honor_node_taints);
  CHECK(c->spread[0].self_match);
  CHECK(c->spread[0].pods.namespaces == std::vector<std::string>{"team"});
  REQUIRE(c->affinity.size() == 1);
  CHECK(c->affinity[0].pods.namespaces == std::vector<std::string>{"team"});
  CHECK_FALSE(c->self_matches_affinity);
  REQUIRE(c->anti_affinity.size() == 1);
  CHECK(c->anti_affinity[0].pods.namespaces ==
        std::vector<std::string>{"a", "b"});
}

// --- The Score plugins. -----------------------------------------------------

// The pod's controller ownerReference.
PodEdit Owned(const std::string& kind, const std::string& name) {
  return [kind, name](v1::Pod& p) {
    v1::OwnerReference& ref = *p.mutable_metadata()->add_owner_references();
    ref.set_api_version(kind == "ReplicationController" ? "v1" : "apps/v1");
    ref.set_kind(kind);
    ref.set_name(name);
    ref.set_uid("uid-" + name);
    ref.set_controller(true);
  };
}

// A preferred pod affinity (weight > 0) or anti-affinity (weight < 0) term.
PodEdit Preferred(int32_t weight, v1::PodAffinityTerm t) {
  return [weight, t](v1::Pod& p) {
    v1::Affinity& a = *p.mutable_spec()->mutable_affinity();
    v1::WeightedPodAffinityTerm& w =
        weight > 0
            ? *a.mutable_pod_affinity()
                   ->add_preferred_during_scheduling_ignored_during_execution()
            : *a.mutable_pod_anti_affinity()
                   ->add_preferred_during_scheduling_ignored_during_execution();
    w.set_weight(weight > 0 ? weight : -weight);
    *w.mutable_pod_affinity_term() = t;
  };
}

const Labels kWebApp = {{"app", "web"}};
const Labels kDbApp = {{"app", "db"}};

TEST_CASE("pod topology spread score: ScheduleAnyway constraints",
          "[scheduling][topology][score]") {
  SECTION("a zone constraint: the emptier zone scores 100") {
    // Zone a holds 2 matching pods, zone b none. Two domains among the
    // feasible nodes: weight ln(4); a's nodes score round(2 * 1.386) = 3,
    // b's 0; normalized 100 * (3 + 0 - s) / 3.
    Cluster c;
    c.Node("n1", {{kZone, "a"}})
        .Node("n2", {{kZone, "a"}})
        .Node("n3", {{kZone, "b"}})
        .Pods(2, "web", "n1", kWebApp)
        .Pod("db", "n3", kDbApp)
        .Pod("new", "", kWebApp,
             WithSpread(Spread(kZone, 1, kWebApp, "ScheduleAnyway")));
    World w(std::move(c));
    CHECK(w.Scores(kPodTopologySpread, "new") == "n1=0 n2=0 n3=100");
  }
  SECTION("a hostname constraint counts each node's own pods") {
    // 3 scored nodes: weight ln(5) = 1.609; raw n1 round(3.22) = 3, n2 0,
    // n3 round(1.61) = 2; normalized n3 = 100 * (3 + 0 - 2) / 3 = 33.
    Cluster c;
    c.Node("n1", {{kZone, "a"}})
        .Node("n2", {{kZone, "a"}})
        .Node("n3", {{kZone, "b"}})
        .Pods(2, "web", "n1", kWebApp)
        .Pod("web-x", "n3", kWebApp)
        .Pod("new", "", kWebApp,
             WithSpread(Spread(kHost, 1, kWebApp, "ScheduleAnyway")));
    World w(std::move(c));
    CHECK(w.Scores(kPodTopologySpread, "new") == "n1=0 n2=100 n3=33");
  }
  SECTION("maxSkew - 1 is added to every node, softening the differences") {
    // As the first case with maxSkew 5: raw a = round(2.77 + 4) = 7, b = 4;
    // normalized a = 100 * (7 + 4 - 7) / 7 = 57.
    Cluster c;
    c.Node("n1", {{kZone, "a"}})
        .Node("n2", {{kZone, "a"}})
        .Node("n3", {{kZone, "b"}})
        .Pods(2, "web", "n1", kWebApp)
        .Pod("new", "", kWebApp,
             WithSpread(Spread(kZone, 5, kWebApp, "ScheduleAnyway")));
    World w(std::move(c));
    CHECK(w.Scores(kPodTopologySpread, "new") == "n1=57 n2=57 n3=100");
  }
  SECTION("a node missing the key is ignored (0) and not a domain") {
    // n3 has no zone: ignored. One domain left (a): weight ln(3); every
    // scored node has the same raw score, so max + min - s = min.
    Cluster c;
    c.Node("n1", {{kZone, "a"}})
        .Node("n2", {{kZone, "a"}})
        .Node("n3")
        .Pods(2, "web", "n1", kWebApp)
        .Pod("new", "", kWebApp,
             WithSpread(Spread(kZone, 1, kWebApp, "ScheduleAnyway")));
    World w(std::move(c));
    CHECK(w.Scores(kPodTopologySpread, "new") == "n1=100 n2=100 n3=0");
  }
  SECTION("pods on nodes outside the pod's node affinity are not counted") {
    // nodeAffinityPolicy Honor (default): n1's pods are in zone a but n1 is
    // not a node the pod could go to, so zone a counts 0 -> max 0 -> 100.
    Cluster c;
    c.Node("n1", {{kZone, "a"}, {"pool", "other"}})
        .Node("n2", {{kZone, "a"}, {"pool", "mine"}})
        .Node("n3", {{kZone, "b"}, {"pool", "mine"}})
        .Pods(2, "web", "n1", kWebApp)
        .Pod("new", "", kWebApp,
             Both(WithSpread(Spread(kZone, 1, kWebApp, "ScheduleAnyway")),
                  WithNodeSelector({{"pool", "mine"}})));
    World w(std::move(c));
    CHECK(w.Scores(kPodTopologySpread, "new", {"n2", "n3"}) == "n2=100 n3=100");
    // With nodeAffinityPolicy Ignore they count: a = round(2 * 1.386) = 3.
    Cluster ignore;
    v1::TopologySpreadConstraint spread =
        Spread(kZone, 1, kWebApp, "ScheduleAnyway");
    spread.set_node_affinity_policy("Ignore");
    ignore.Node("n1", {{kZone, "a"}, {"pool", "other"}})
        .Node("n2", {{kZone, "a"}, {"pool", "mine"}})
        .Node("n3", {{kZone, "b"}, {"pool", "mine"}})
        .Pods(2, "web", "n1", kWebApp)
        .Pod("new", "", kWebApp,
             Both(WithSpread(spread), WithNodeSelector({{"pool", "mine"}})));
    World w2(std::move(ignore));
    CHECK(w2.Scores(kPodTopologySpread, "new", {"n2", "n3"}) == "n2=0 n3=100");
  }
  SECTION("terminating pods and other namespaces do not count") {
    Cluster c;
    c.Node("n1", {{kZone, "a"}})
        .Node("n2", {{kZone, "b"}})
        .Pod("gone", "n1", kWebApp)
        .Terminating()
        .Pod("elsewhere", "n1", kWebApp, nullptr, "other")
        .Pod("new", "", kWebApp,
             WithSpread(Spread(kZone, 1, kWebApp, "ScheduleAnyway")));
    World w(std::move(c));
    CHECK(w.Scores(kPodTopologySpread, "new") == "n1=100 n2=100");
  }
  SECTION("DoNotSchedule constraints do not score; no default spreading") {
    Cluster c;
    c.Node("n1", {{kZone, "a"}})
        .Node("n2", {{kZone, "b"}})
        .Pods(2, "web", "n1", kWebApp, "default")
        .Pod("new", "", kWebApp,
             Both(WithSpread(Spread(kZone, 3, kWebApp)),
                  Owned("ReplicaSet", "web-1")));
    World w(std::move(c));
    CHECK(w.Scores(kPodTopologySpread, "new") == "skipped");
  }
}

TEST_CASE("pod topology spread score: the system default constraints",
          "[scheduling][topology][score]") {
  // hostname maxSkew 3 and zone maxSkew 5 over the pods of the same
  // controller. n3 has no zone: with the defaults it is not ignored, and
  // Go's missing label reads "" (a domain of its own).
  // Zone weight ln(2 + 2) = 1.386, hostname weight ln(3 + 2) = 1.609.
  //   n1: host 1 * 1.609 + 2, zone 1 * 1.386 + 4 -> round(8.995) = 9
  //   n2: host 0 + 2, zone 1 * 1.386 + 4 -> round(7.386) = 7
  //   n3: host 1 * 1.609 + 2 (no zone label: no zone term) -> 4
  // Normalized 100 * (9 + 4 - s) / 9: 44, 66, 100. The three pods of
  // ReplicaSet web-2 on n2 carry the same labels and are not counted.
  Cluster c;
  c.Node("n1", {{kZone, "a"}})
      .Node("n2", {{kZone, "a"}})
      .Node("n3")
      .Pod("web-1-a", "n1", kWebApp, Owned("ReplicaSet", "web-1"))
      .Pod("web-1-b", "n3", kWebApp, Owned("ReplicaSet", "web-1"))
      .Pod("web-2-a", "n2", kWebApp, Owned("ReplicaSet", "web-2"))
      .Pod("web-2-b", "n2", kWebApp, Owned("ReplicaSet", "web-2"))
      .Pod("web-2-c", "n2", kWebApp, Owned("ReplicaSet", "web-2"))
      .Pod("new", "", kWebApp, Owned("ReplicaSet", "web-1"))
      .Pod("bare", "", kWebApp)
      .Pod("job", "", kWebApp, Owned("Job", "web-1"))
      .Pod("sts", "", kWebApp, Owned("StatefulSet", "web-2"));
  World w(std::move(c));
  CHECK(w.Scores(kPodTopologySpread, "new") == "n1=44 n2=66 n3=100");
  // No controller, or one default spreading does not read: skipped.
  CHECK(w.Scores(kPodTopologySpread, "bare") == "skipped");
  CHECK(w.Scores(kPodTopologySpread, "job") == "skipped");
  // A StatefulSet's pods are counted by the StatefulSet's name: none here.
  // Every raw score is host 2 + zone 4 (or host 2 alone on n3).
  CHECK(w.Scores(kPodTopologySpread, "sts") == "n1=33 n2=33 n3=100");
}

TEST_CASE("inter-pod affinity score: the pod's preferred terms",
          "[scheduling][topology][score]") {
  SECTION("affinity adds, anti-affinity subtracts, per domain") {
    // +10 for zone a (db on n1), -5 for n2's hostname (web on n2):
    // n1 10, n2 5, n3 0 -> 100 * (s - 0) / 10.
    Cluster c;
    c.Node("n1", {{kZone, "a"}})
        .Node("n2", {{kZone, "a"}})
        .Node("n3", {{kZone, "b"}})
        .Pod("db", "n1", kDbApp)
        .Pod("web", "n2", kWebApp)
        .Pod("new", "", {{"app", "api"}},
             Both(Preferred(10, Term(kZone, kDbApp)),
                  Preferred(-5, Term(kHost, kWebApp))));
    World w(std::move(c));
    CHECK(w.Scores(kInterPodAffinity, "new") == "n1=100 n2=50 n3=0");
  }
  SECTION("terminating pods count; equal scores give 0") {
    Cluster c;
    c.Node("n1", {{kZone, "a"}})
        .Node("n2", {{kZone, "b"}})
        .Pod("db", "n1", kDbApp)
        .Terminating()
        .Pod("new", "", {{"app", "api"}}, Preferred(7, Term(kZone, kDbApp)))
        .Pod("everywhere", "", {{"app", "api"}},
             Preferred(7, Term("missing-key", kDbApp)));
    World w(std::move(c));
    CHECK(w.Scores(kInterPodAffinity, "new") == "n1=100 n2=0");
    // The term matched no node with its key: nothing was counted.
    CHECK(w.Scores(kInterPodAffinity, "everywhere") == "skipped");
  }
  SECTION("the lowest score is the floor, even when every node has one") {
    // Zone a has one db, zone b two: 10 and 20 -> 0 and 100.
    Cluster c;
    c.Node("n1", {{kZone, "a"}})
        .Node("n2", {{kZone, "b"}})
        .Pod("db-1", "n1", kDbApp)
        .Pods(2, "db-b", "n2", kDbApp)
        .Pod("new", "", {{"app", "api"}}, Preferred(10, Term(kZone, kDbApp)));
    World w(std::move(c));
    CHECK(w.Scores(kInterPodAffinity, "new") == "n1=0 n2=100");
  }
  SECTION("no term anywhere: skipped") {
    Cluster c;
    c.Node("n1").Node("n2").Pod("db", "n1", kDbApp).Pod("new", "", kWebApp);
    World w(std::move(c));
    CHECK(w.Scores(kInterPodAffinity, "new") == "skipped");
  }
}

TEST_CASE("inter-pod affinity score: existing pods' terms",
          "[scheduling][topology][score]") {
  // db on n1 requires affinity to web in its zone (+1, hardPodAffinityWeight);
  // cache on n3 prefers web on its node (+20); batch on n2 prefers to keep
  // web out of its zone (-30). For a web pod: n1 = 1, n2 = -30, n3 = 20;
  // normalized 100 * (s + 30) / 50.
  Cluster c;
  c.Node("n1", {{kZone, "a"}})
      .Node("n2", {{kZone, "b"}})
      .Node("n3", {{kZone, "c"}})
      .Pod("db", "n1", kDbApp, WithAffinity(Term(kZone, kWebApp)))
      .Pod("batch", "n2", {{"app", "batch"}},
           Preferred(-30, Term(kZone, kWebApp)))
      .Pod("cache", "n3", {{"app", "cache"}},
           Preferred(20, Term(kHost, kWebApp)))
      .Pod("web", "", kWebApp)
      .Pod("api", "", {{"app", "api"}})
      .Pod("web2", "", kWebApp)
      .Pod("sticky", "", {{"app", "sticky"}},
           Preferred(50, Term(kZone, kWebApp)));
  World w(std::move(c));
  CHECK(w.Scores(kInterPodAffinity, "web") == "n1=62 n2=0 n3=100");
  // No term selects an api pod.
  CHECK(w.Scores(kInterPodAffinity, "api") == "skipped");
  // A pod placed in this simulation carries its terms: cache moves to n1,
  // batch's node is gone. n1 = 1 + 20, n3 = 0 -> n2 is removed.
  w.RemovePod("cache");
  w.AddPod("cache", "n1");
  w.RemoveNode("n2");
  CHECK(w.Scores(kInterPodAffinity, "web2") == "n1=100 n3=0");
  // A pending pod placed here carries its terms too: sticky's +50 in n3's
  // zone outweighs n1's 21.
  w.AddPod("sticky", "n3");
  CHECK(w.Scores(kInterPodAffinity, "web2") == "n1=0 n3=100");
}

TEST_CASE("CompilePodScoring: what it keeps and what it refuses",
          "[scheduling][topology][score]") {
  v1::Pod pod = testing::MakePod({.name = "p", .ns = "team"});
  WithSpread(Spread(kZone, 2, kWebApp, "ScheduleAnyway"))(pod);
  WithSpread(Spread(kHost, 3, kWebApp))(pod);
  Preferred(30, Term(kZone, kDbApp))(pod);
  Preferred(-40, Term(kHost, kWebApp, {"x"}))(pod);
  absl::StatusOr<PodScoring> s = CompilePodScoring(pod);
  REQUIRE(s.ok());
  REQUIRE(s->spread.size() == 1);
  CHECK(s->spread[0].topology_key == kZone);
  CHECK(s->spread[0].max_skew == 2);
  CHECK_FALSE(s->system_defaults);
  REQUIRE(s->preferred_affinity.size() == 1);
  CHECK(s->preferred_affinity[0].weight == 30);
  CHECK(s->preferred_affinity[0].term.pods.namespaces ==
        std::vector<std::string>{"team"});
  REQUIRE(s->preferred_anti_affinity.size() == 1);
  CHECK(s->preferred_anti_affinity[0].weight == 40);
  CHECK(s->preferred_anti_affinity[0].term.pods.namespaces ==
        std::vector<std::string>{"x"});

  v1::Pod zero = testing::MakePod({.name = "p"});
  Preferred(30, Term(kZone, kDbApp))(zero);
  zero.mutable_spec()
      ->mutable_affinity()
      ->mutable_pod_affinity()
      ->mutable_preferred_during_scheduling_ignored_during_execution(0)
      ->set_weight(0);
  CHECK(CompilePodScoring(zero).status().message() ==
        "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuring"
        "Execution[0].weight: must be in the range 1-100, got 0");
  v1::Pod skew = testing::MakePod({.name = "p"});
  WithSpread(Spread(kZone, 0, kWebApp, "ScheduleAnyway"))(skew);
  CHECK(CompilePodScoring(skew).status().message() ==
        "spec.topologySpreadConstraints[0].maxSkew: must be greater than "
        "zero, got 0");
}

}  // namespace
}  // namespace karpenter::scheduling
