// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The scheduling predicates that count other pods or ports (issue 20:
// PodTopologySpread, InterPodAffinity, NodePorts) at scale, each over
// today's plain synthetic cluster and the same cluster with the constraint
// mix (bench::AddConstraintMix: half the Deployments carry a zone topology
// spread, a fifth a hostname pod anti-affinity, a tenth a hostPort):
//   - BM_SchedulerFit: disruption::Scheduler::Fit, every Filter plugin for
//     one pod on each node of the 10k-node cluster (300k pods), the
//     Scheduler built once outside the loop: what scheduling::FitPod costs
//     past the build. The pod is the first one whose Deployment carries all
//     three constraints in the constrained cluster; the plain run asks about
//     the same pod, which has none there.
//   - BM_FitPod: scheduling::FitPod whole (Scheduler::Build over the
//     snapshot, Fit and the report), for reference.
//   - BM_PlacePendingPods: 10,000 pending pods (20 namespaces x 60 apps:
//     1,200 Deployments of about 8 replicas, 100m / 128Mi each) against
//     nodes that run only their DaemonSet pod: Scheduler::Simulate({}) with
//     include_pending_pods places them first-fit-decreasing, checking every
//     predicate and updating the counts after each placement. 2,000 nodes
//     have room for all (Karpenter's scheduling benchmark, PR #1938, takes
//     12.1 s for 10k pods / 2k nodes, though it also creates those nodes);
//     250 nodes hold 9,500, so the constraints decide which pods are left.
//
// Simulate does not say where each pod went, so BM_PlacePendingPods checks
// its placement outside the timed loop (counters):
//   - placed: the same pods bound to one extra node that is then the only
//     candidate, with a NodePool that does not exist, so that every pod
//     that fits no existing node comes back unschedulable. The moving pods
//     go through the same first-fit-decreasing placement as pending ones.
//   - matches_reference: 1 when the pods left out are exactly those a
//     reference placement written here leaves out (scheduler.h's order;
//     resources, zone spread and hostname anti-affinity checked by direct
//     counting; host ports not, as the Scheduler does not check NodePorts
//     yet). ref_placed_unconstrained: the reference with no constraint;
//     ref_left_out_by_constraints: pods it places that the constrained
//     reference leaves out (at 250 nodes, the same count but other pods).
//   - ref_anti_max_per_node (must be 1), ref_spread_max_skew (must be <= 1)
//     and ref_host_port_clashes (pods whose hostPort another pod on their
//     node already holds; kube-scheduler's NodePorts would refuse them) in
//     the reference placement.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "bench_cluster.h"
#include "karpenter/disruption/scheduler.h"
#include "karpenter/quantity.h"
#include "karpenter/scheduling/fit.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/well_known.h"

namespace karpenter {
namespace {

using snapshot::NodeIndex;
using snapshot::PodIndex;

const absl::Time kCreated = absl::FromUnixSeconds(1704067200);
constexpr int kFitNodes = 10000;

bool HasSpread(const v1::Pod& pod) {
  return !pod.spec().topology_spread_constraints().empty();
}
bool HasAntiAffinity(const v1::Pod& pod) {
  return !pod.spec()
              .affinity()
              .pod_anti_affinity()
              .required_during_scheduling_ignored_during_execution()
              .empty();
}
// The pod's first hostPort, 0 if none.
int32_t HostPort(const v1::Pod& pod) {
  for (const v1::Container& c : pod.spec().containers()) {
    for (const v1::ContainerPort& port : c.ports()) {
      if (port.host_port() != 0) return port.host_port();
    }
  }
  return 0;
}

// The 10k-node cluster (1% drifted, as disruption_pass_benchmark), built
// once per process.
const snapshot::Snapshot& FitCluster(bool constrained) {
  static std::array<std::unique_ptr<snapshot::Snapshot>, 2> clusters;
  std::unique_ptr<snapshot::Snapshot>& c = clusters[constrained ? 1 : 0];
  if (c == nullptr) {
    c = std::make_unique<snapshot::Snapshot>(bench::DriftingSnapshot(
        kFitNodes, 100, kCreated + absl::Hours(1), constrained));
  }
  return *c;
}

// The first pod of the constrained cluster with a zone spread, a hostname
// anti-affinity and a hostPort; the plain cluster has it at the same index.
PodIndex FitPodIndex() {
  const snapshot::Snapshot& s = FitCluster(true);
  for (PodIndex p = 0; p < s.pod_count(); ++p) {
    const v1::Pod& shape = s.PodShape(p);
    if (HasSpread(shape) && HasAntiAffinity(shape) && HostPort(shape) != 0) {
      return p;
    }
  }
  std::abort();
}

void BM_SchedulerFit(benchmark::State& state) {
  const bool constrained = state.range(0) == 1;
  const PodIndex pod = FitPodIndex();
  const snapshot::Snapshot& s = FitCluster(constrained);
  const InstanceTypeCatalog catalog = bench::SyntheticCatalog(s);
  absl::StatusOr<disruption::Scheduler> scheduler =
      disruption::Scheduler::Build(s, catalog);
  if (!scheduler.ok()) std::abort();
  std::vector<std::vector<scheduling::FilterFailure>> last;
  for (auto _ : state) {
    auto fit = scheduler->Fit(pod);
    if (!fit.ok()) std::abort();
    last = *std::move(fit);
    benchmark::DoNotOptimize(last);
  }
  // Nodes that fit, and the others by their first failing plugin.
  int fits = 0;
  std::map<std::string, int> first;
  for (const auto& failures : last) {
    if (failures.empty()) {
      ++fits;
    } else {
      ++first[std::string(failures.front().plugin)];
    }
  }
  state.counters["nodes"] = static_cast<double>(last.size());
  state.counters["fits"] = fits;
  for (const auto& [plugin, count] : first) {
    state.counters[absl::StrCat("first_", plugin)] = count;
  }
}
BENCHMARK(BM_SchedulerFit)
    ->ArgName("constrained")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_FitPod(benchmark::State& state) {
  const bool constrained = state.range(0) == 1;
  const PodIndex pod = FitPodIndex();
  const snapshot::Snapshot& s = FitCluster(constrained);
  const std::string ns(s.NamespaceName(s.NamespaceOfPod(pod)));
  const std::string name(s.PodName(pod));
  int fits = 0;
  for (auto _ : state) {
    absl::StatusOr<v1::FitReport> report = scheduling::FitPod(s, ns, name);
    if (!report.ok()) std::abort();
    fits = 0;
    for (const v1::FitNode& n : report->nodes()) fits += n.fits() ? 1 : 0;
    benchmark::DoNotOptimize(report);
  }
  state.counters["fits"] = fits;
}
BENCHMARK(BM_FitPod)
    ->ArgName("constrained")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// --- BM_PlacePendingPods ----------------------------------------------------

constexpr int kPendingPods = 10000;

testing::SyntheticClusterOptions PendingOptions(int nodes, bool constrained) {
  testing::SyntheticClusterOptions o;
  o.nodes = nodes;
  o.app_pods_per_node = 0;  // Only the DaemonSet pod.
  o.pdbs = 0;
  o.namespaces = 20;  // The same 1,200 Deployments at every node count.
  o.pending_pods = kPendingPods;
  if (constrained) bench::AddConstraintMix(o);
  return o;
}

int64_t MilliOrDie(const google::protobuf::Map<std::string, std::string>& m,
                   const std::string& key) {
  auto it = m.find(key);
  if (it == m.end()) return 0;
  absl::StatusOr<int64_t> v = ParseQuantityMilli(it->second);
  if (!v.ok()) std::abort();
  return *v;
}

struct Reference {
  std::set<std::string> left_out;  // "ns/name"
  int placed = 0;
  int anti_max_per_node = 0;
  int spread_max_skew = 0;
  int host_port_clashes = 0;
};

// First-fit-decreasing as scheduler.h describes it, for pending pods on the
// existing nodes: pods by cpu, then memory, descending, then namespace/name;
// nodes least free cpu first, ties by name. With `constraints`, a pod with a
// zone spread (maxSkew 1) goes only to a zone where its Deployment has no
// more pods than in its emptiest zone, and a pod with hostname
// anti-affinity never joins a pod of its Deployment. Host ports are not
// checked, only counted.
Reference ReferencePlace(const snapshot::Snapshot& s, bool constraints) {
  const size_t nodes = s.nodes().size();
  std::vector<std::array<int64_t, 3>> free(nodes);  // cpu, memory, pods
  std::vector<int> zone(nodes);
  std::map<std::string, int> zone_ids;
  const auto requests = [](const v1::Pod& pod) {
    std::array<int64_t, 3> r = {0, 0, 0};
    auto req = disruption::PodRequests(pod);
    if (!req.ok()) std::abort();
    for (const auto& [name, milli] : *req) {
      if (name == "cpu") r[0] = milli;
      if (name == "memory") r[1] = milli;
      if (name == "pods") r[2] = milli;
    }
    return r;
  };
  for (NodeIndex n = 0; n < nodes; ++n) {
    const v1::Node& node = s.nodes()[n];
    const auto& alloc = node.status().allocatable();
    free[n] = {MilliOrDie(alloc, "cpu"), MilliOrDie(alloc, "memory"),
               MilliOrDie(alloc, "pods")};
    for (PodIndex p : s.PodsOnNode(n)) {
      const std::array<int64_t, 3> r = requests(s.PodShape(p));
      for (size_t i = 0; i < 3; ++i) free[n][i] -= r[i];
    }
    const std::string& z = node.metadata().labels().at(
        std::string(well_known::kLabelTopologyZone));
    zone[n] = zone_ids.try_emplace(z, static_cast<int>(zone_ids.size()))
                  .first->second;
  }
  std::vector<NodeIndex> order(nodes);
  for (NodeIndex n = 0; n < nodes; ++n) order[n] = n;
  std::sort(order.begin(), order.end(), [&](NodeIndex a, NodeIndex b) {
    if (free[a][0] != free[b][0]) return free[a][0] < free[b][0];
    return s.nodes()[a].metadata().name() < s.nodes()[b].metadata().name();
  });

  struct Pending {
    std::array<int64_t, 3> req;
    std::string ns;
    std::string name;
    int deployment;
    bool spread;
    bool anti;
    int32_t port;
  };
  std::map<std::string, int> deployment_ids;
  std::vector<Pending> pods;
  for (PodIndex p : s.UnboundPods()) {
    const v1::Pod& shape = s.PodShape(p);
    Pending q{requests(shape),
              std::string(s.NamespaceName(s.NamespaceOfPod(p))),
              std::string(s.PodName(p)),
              0,
              constraints && HasSpread(shape),
              constraints && HasAntiAffinity(shape),
              HostPort(shape)};
    q.deployment =
        deployment_ids
            .try_emplace(
                absl::StrCat(q.ns, "/", shape.metadata().labels().at("app")),
                static_cast<int>(deployment_ids.size()))
            .first->second;
    pods.push_back(std::move(q));
  }
  std::sort(pods.begin(), pods.end(), [](const Pending& a, const Pending& b) {
    if (a.req[0] != b.req[0]) return a.req[0] > b.req[0];
    if (a.req[1] != b.req[1]) return a.req[1] > b.req[1];
    if (a.ns != b.ns) return a.ns < b.ns;
    return a.name < b.name;
  });

  const size_t zones = zone_ids.size();
  std::vector<std::vector<int>> per_zone(deployment_ids.size(),
                                         std::vector<int>(zones, 0));
  absl::flat_hash_map<std::pair<int, NodeIndex>, int> per_node;
  std::vector<std::map<int32_t, int>> ports(nodes);
  std::vector<bool> spread_deployment(deployment_ids.size(), false);
  std::vector<bool> anti_deployment(deployment_ids.size(), false);
  Reference out;
  for (const Pending& q : pods) {
    spread_deployment[q.deployment] = q.spread;
    anti_deployment[q.deployment] = q.anti;
    const std::vector<int>& counts = per_zone[q.deployment];
    const int min = *std::min_element(counts.begin(), counts.end());
    bool placed = false;
    for (NodeIndex n : order) {
      bool fits = true;
      for (size_t i = 0; i < 3; ++i) {
        if (q.req[i] > 0 && q.req[i] > free[n][i]) fits = false;
      }
      if (!fits) continue;
      if (q.spread && counts[zone[n]] > min) continue;
      if (q.anti && per_node.contains({q.deployment, n})) continue;
      for (size_t i = 0; i < 3; ++i) free[n][i] -= q.req[i];
      ++per_zone[q.deployment][zone[n]];
      ++per_node[{q.deployment, n}];
      if (q.port != 0 && ports[n][q.port]++ > 0) ++out.host_port_clashes;
      placed = true;
      break;
    }
    if (placed) {
      ++out.placed;
    } else {
      out.left_out.insert(absl::StrCat(q.ns, "/", q.name));
    }
  }
  for (const auto& [key, count] : per_node) {
    if (anti_deployment[key.first]) {
      out.anti_max_per_node = std::max(out.anti_max_per_node, count);
    }
  }
  for (size_t d = 0; d < per_zone.size(); ++d) {
    if (!spread_deployment[d]) continue;
    const auto [lo, hi] =
        std::minmax_element(per_zone[d].begin(), per_zone[d].end());
    out.spread_max_skew = std::max(out.spread_max_skew, *hi - *lo);
  }
  return out;
}

// The pods the Scheduler places on the existing nodes of `objects`, found
// through the candidate path: every pending pod bound to an extra node that
// is then the one candidate, of a NodePool that does not exist. Fills
// `left_out` with the pods it could not place.
int SchedulerPlaced(snapshot::ObjectSet objects,
                    const InstanceTypeCatalog& catalog,
                    std::set<std::string>& left_out) {
  v1::Node& source = objects.nodes.emplace_back();
  source.set_api_version("v1");
  source.set_kind("Node");
  source.mutable_metadata()->set_name("source");
  (*source.mutable_status()->mutable_allocatable())["cpu"] = "100000";
  (*source.mutable_status()->mutable_allocatable())["memory"] = "100Ti";
  (*source.mutable_status()->mutable_allocatable())["pods"] = "100000";
  for (v1::Pod& pod : objects.pods) {
    if (pod.spec().node_name().empty())
      pod.mutable_spec()->set_node_name("source");
  }
  const snapshot::Snapshot s = bench::BuildOrDie(std::move(objects));
  absl::StatusOr<disruption::Scheduler> scheduler =
      disruption::Scheduler::Build(s, catalog);
  const std::optional<NodeIndex> node = s.FindNode("source");
  if (!scheduler.ok() || !node.has_value()) std::abort();
  disruption::Candidate c;
  c.node = *node;
  c.node_name = "source";
  c.node_pool_name = "no-such-pool";
  c.pods.assign(s.PodsOnNode(*node).begin(), s.PodsOnNode(*node).end());
  c.reschedulable_pods = c.pods;
  const disruption::SimulationResult r = scheduler->Simulate({c});
  if (r.unsupported.has_value()) std::abort();
  for (const std::string& u : r.unschedulable) {
    left_out.insert(u.substr(0, u.find(':')));
  }
  return static_cast<int>(c.pods.size() - r.unschedulable.size());
}

void BM_PlacePendingPods(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const bool constrained = state.range(1) == 1;
  absl::StatusOr<snapshot::ObjectSet> objects =
      testing::MakeSyntheticCluster(PendingOptions(nodes, constrained));
  if (!objects.ok()) std::abort();
  snapshot::ObjectSet mirror = *objects;
  const snapshot::Snapshot s = bench::BuildOrDie(*std::move(objects));
  const InstanceTypeCatalog catalog = bench::SyntheticCatalog(s);
  disruption::SimulatorOptions options;
  options.include_pending_pods = true;
  absl::StatusOr<disruption::Scheduler> scheduler =
      disruption::Scheduler::Build(s, catalog, options);
  if (!scheduler.ok()) std::abort();
  for (auto _ : state) {
    disruption::SimulationResult r = scheduler->Simulate({});
    benchmark::DoNotOptimize(r);
  }

  std::set<std::string> left_out;
  const int placed = SchedulerPlaced(std::move(mirror), catalog, left_out);
  const Reference ref = ReferencePlace(s, true);
  const Reference plain = ReferencePlace(s, false);
  state.counters["pending"] = static_cast<double>(s.UnboundPods().size());
  state.counters["placed"] = placed;
  state.counters["matches_reference"] =
      left_out == ref.left_out && placed == ref.placed ? 1 : 0;
  state.counters["ref_placed_unconstrained"] = plain.placed;
  int moved_out = 0;  // Left out because of the constraints.
  for (const std::string& pod : ref.left_out) {
    moved_out += plain.left_out.count(pod) == 0 ? 1 : 0;
  }
  state.counters["ref_left_out_by_constraints"] = moved_out;
  state.counters["ref_anti_max_per_node"] = ref.anti_max_per_node;
  state.counters["ref_spread_max_skew"] = ref.spread_max_skew;
  state.counters["ref_host_port_clashes"] = ref.host_port_clashes;
}
BENCHMARK(BM_PlacePendingPods)
    ->ArgNames({"nodes", "constrained"})
    ->Args({2000, 0})
    ->Args({2000, 1})
    ->Args({250, 0})
    ->Args({250, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace karpenter

BENCHMARK_MAIN();
