// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// scheduling::Provision over Karpenter-shaped provisioning cases: topology
// spread on zone, hostname and capacity type, pod (anti-)affinity, existing
// nodes first, NodePool limits, minValues, NodePool weights and readiness,
// DaemonSet overhead, instance type order and determinism. The expected
// values are derived from Karpenter's provisioning scheduler
// (pkg/controllers/provisioning/scheduling: scheduler.go, topology.go,
// topologygroup.go, nodeclaim.go; docs/semantics.md §9.3 and §9.10) and
// checked through what the report says: the pods per domain and their skew,
// the pods scheduled, and the NodeClaims made.

#include "karpenter/scheduling/provision.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "karpenter/disruption/scheduler.h"
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
constexpr char kCapacityType[] = "karpenter.sh/capacity-type";
constexpr char kInstanceType[] = "node.kubernetes.io/instance-type";
constexpr char kFamily[] = "karpenter.k8s.aws/instance-family";
constexpr char kRelaxed[] = "karpenter.sh/nodeclaim-min-values-relaxed";
constexpr char kA[] = "us-west-2a";
constexpr char kB[] = "us-west-2b";
constexpr char kC[] = "us-west-2c";

const PodEdit kNoEdit = [](v1::Pod&) {};

// --- Inputs. -----------------------------------------------------------------

// A pod Karpenter's provisioner picks up: unbound, phase Pending, condition
// PodScheduled False with reason Unschedulable; label app=`app`, one
// container requesting `cpu`, then `edit`.
v1::Pod Pending(const std::string& name, const std::string& cpu,
                const std::string& app = "web", const PodEdit& edit = kNoEdit) {
  v1::Pod pod = testing::MakePod({.name = name,
                                  .app = app,
                                  .node = "",
                                  .phase = "Pending",
                                  .cpu = cpu,
                                  .ready = ""});
  testing::SetCondition(
      pod.mutable_status()->mutable_conditions(),
      {.type = "PodScheduled", .status = "False", .reason = "Unschedulable"});
  edit(pod);
  return pod;
}

// A running pod of `app` on `node` requesting `cpu`, then `edit`.
v1::Pod Bound(const std::string& name, const std::string& node,
              const std::string& cpu, const std::string& app = "web",
              const PodEdit& edit = kNoEdit) {
  v1::Pod pod =
      testing::MakePod({.name = name, .app = app, .node = node, .cpu = cpu});
  edit(pod);
  return pod;
}

// A Ready node of NodePool `pool` in `zone` with its hostname label and
// `cpu` (capacity and allocatable).
v1::Node Node(const std::string& name, const std::string& zone,
              const std::string& cpu, const std::string& pool = "default") {
  return testing::MakeNode({.name = name,
                            .nodepool = pool,
                            .zone = zone,
                            .labels = {{kHost, name}},
                            .cpu = cpu,
                            .memory = "64Gi",
                            .pods = "110"});
}

// An instance type of `cpu` offered on demand at `price` in `zones`, and as
// spot at `spot` when set.
InstanceType Type(const std::string& name, const std::string& cpu, double price,
                  std::vector<std::string> zones = {kA, kB, kC},
                  std::optional<double> spot = std::nullopt,
                  Labels labels = {}) {
  return testing::MakeInstanceType({.name = name,
                                    .cpu = cpu,
                                    .memory = "64Gi",
                                    .pods = "110",
                                    .zones = std::move(zones),
                                    .on_demand_price = price,
                                    .spot_price = spot,
                                    .labels = std::move(labels)});
}

// small (2 cpu), medium (4) and large (8), priced by size, in zones a, b, c.
std::vector<InstanceType> Sizes() {
  return {Type("small", "2", 0.1), Type("medium", "4", 0.2),
          Type("large", "8", 0.4)};
}

InstanceTypeCatalog Catalog(const std::vector<std::string>& pools,
                            const std::vector<InstanceType>& types = Sizes()) {
  return testing::MakeCatalog(pools, types);
}

snapshot::Snapshot Snap(const testing::ClusterBuilder& cluster) {
  absl::StatusOr<snapshot::Snapshot> snap = cluster.Build();
  INFO(snap.status().ToString());
  REQUIRE(snap.ok());
  return *std::move(snap);
}

v1::ProvisionReport Run(const snapshot::Snapshot& snap,
                        const InstanceTypeCatalog& catalog) {
  absl::StatusOr<v1::ProvisionReport> report = Provision(snap, catalog);
  INFO(report.status().ToString());
  REQUIRE(report.ok());
  return *std::move(report);
}

// --- Reading the report. -----------------------------------------------------

// The claim's requirement on `key` as "Op v1,v2", or "" when it has none.
std::string Req(const v1::ProvisionNodeClaim& claim, const std::string& key) {
  for (const v1::ProvisionRequirement& r : claim.requirements()) {
    if (r.key() == key) {
      return r.operator_() + " " + absl::StrJoin(r.values(), ",");
    }
  }
  return "";
}

// The one value the claim is pinned to on `key` (In with one value), or ""
// when it is not pinned.
std::string PinnedTo(const v1::ProvisionNodeClaim& claim,
                     const std::string& key) {
  for (const v1::ProvisionRequirement& r : claim.requirements()) {
    if (r.key() == key && r.operator_() == "In" && r.values_size() == 1) {
      return r.values(0);
    }
  }
  return "";
}

// Pods the report places per value of `key`: each claim's pods under the
// value it is pinned to ("?" when not pinned), each existing node's under
// its label.
std::map<std::string, int> PodsPerDomain(const v1::ProvisionReport& report,
                                         const snapshot::Snapshot& snap,
                                         const std::string& key) {
  std::map<std::string, int> out;
  for (const v1::ProvisionNodeClaim& c : report.node_claims()) {
    const std::string v = PinnedTo(c, key);
    out[v.empty() ? "?" : v] += c.pods_size();
  }
  for (const v1::ProvisionExisting& e : report.existing()) {
    const std::optional<snapshot::NodeIndex> n = snap.FindNode(e.node());
    REQUIRE(n.has_value());
    const auto& labels = snap.nodes()[*n].metadata().labels();
    const auto it = labels.find(key);
    out[it == labels.end() ? "?" : it->second] += e.pods_size();
  }
  return out;
}

// max - min of `counts` over `domains` (a domain absent from counts has 0).
int Skew(const std::map<std::string, int>& counts,
         const std::vector<std::string>& domains) {
  int lo = 1 << 30;
  int hi = 0;
  for (const std::string& d : domains) {
    const auto it = counts.find(d);
    const int n = it == counts.end() ? 0 : it->second;
    lo = std::min(lo, n);
    hi = std::max(hi, n);
  }
  return hi - lo;
}

// The pods of each claim, in claim order.
std::vector<int> ClaimSizes(const v1::ProvisionReport& report) {
  std::vector<int> out;
  for (const v1::ProvisionNodeClaim& c : report.node_claims()) {
    out.push_back(c.pods_size());
  }
  return out;
}

// Every pod the report places (on existing nodes or claims), sorted.
std::vector<std::string> Scheduled(const v1::ProvisionReport& report) {
  std::vector<std::string> out;
  for (const v1::ProvisionExisting& e : report.existing()) {
    out.insert(out.end(), e.pods().begin(), e.pods().end());
  }
  for (const v1::ProvisionNodeClaim& c : report.node_claims()) {
    out.insert(out.end(), c.pods().begin(), c.pods().end());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> Unschedulable(const v1::ProvisionReport& report) {
  std::vector<std::string> out;
  for (const v1::ProvisionUnschedulable& u : report.unschedulable()) {
    out.push_back(u.pod());
  }
  return out;
}

std::string ReasonOf(const v1::ProvisionReport& report,
                     const std::string& pod) {
  for (const v1::ProvisionUnschedulable& u : report.unschedulable()) {
    if (u.pod() == pod) return u.reason();
  }
  return "";
}

std::vector<std::string> PodsOf(const v1::ProvisionNodeClaim& claim) {
  return {claim.pods().begin(), claim.pods().end()};
}

std::vector<std::string> TypesOf(const v1::ProvisionNodeClaim& claim) {
  return {claim.instance_types().begin(), claim.instance_types().end()};
}

const Labels kWeb = {{"app", "web"}};

// --- 1. Zonal spread. --------------------------------------------------------

TEST_CASE(
    "provision: zonal spread pins each NodeClaim to one zone, two pods per "
    "zone",
    "[provision][topology]") {
  // Six 1-cpu web pods, maxSkew 1 on the zone, DoNotSchedule; the NodePool
  // offers zones a, b and c, and no node exists. Karpenter narrows each
  // claim to the zone with the fewest web pods (topologygroup.go
  // nextDomainTopologySpread): a, b, c, then a claim in each zone takes a
  // second pod (2 - min 1 <= 1) and none takes a third.
  testing::ClusterBuilder cluster;
  cluster.AddNodePool({});
  const PodEdit spread = WithSpread(Spread(kZone, 1, kWeb));
  for (int i = 0; i < 6; ++i) {
    cluster.Add(Pending("web-" + std::to_string(i), "1", "web", spread));
  }
  const snapshot::Snapshot snap = Snap(cluster);
  const v1::ProvisionReport report = Run(snap, Catalog({"default"}));
  INFO(report.DebugString());
  CHECK(report.unschedulable().empty());
  CHECK(report.existing().empty());
  CHECK(Scheduled(report).size() == 6);
  REQUIRE(report.node_claims_size() == 3);
  std::set<std::string> zones;
  for (const v1::ProvisionNodeClaim& c : report.node_claims()) {
    // One zone each: `topology.kubernetes.io/zone In [x]`.
    const std::string zone = PinnedTo(c, kZone);
    CHECK_FALSE(zone.empty());
    CHECK(Req(c, kZone) == "In " + zone);
    zones.insert(zone);
    CHECK(c.pods_size() == 2);
    CHECK(c.node_pool() == "default");
  }
  CHECK(zones == std::set<std::string>{kA, kB, kC});
  const std::map<std::string, int> per_zone =
      PodsPerDomain(report, snap, kZone);
  CHECK(per_zone == std::map<std::string, int>{{kA, 2}, {kB, 2}, {kC, 2}});
  CHECK(Skew(per_zone, {kA, kB, kC}) <= 1);
}

TEST_CASE("provision: zonal spread counts the pods already on existing nodes",
          "[provision][topology]") {
  // Zone a already runs a web pod on a full node: the five pending web
  // pods fill b and c first; after b=2, c=2 the last goes to a, for 2 per
  // zone in all.
  testing::ClusterBuilder cluster;
  cluster.AddNodePool({});
  cluster.Add(Node("n-a", kA, "1"));
  const PodEdit spread = WithSpread(Spread(kZone, 1, kWeb));
  cluster.Add(Bound("web-old", "n-a", "1", "web", spread));
  for (int i = 0; i < 5; ++i) {
    cluster.Add(Pending("web-" + std::to_string(i), "1", "web", spread));
  }
  const snapshot::Snapshot snap = Snap(cluster);
  const v1::ProvisionReport report = Run(snap, Catalog({"default"}));
  INFO(report.DebugString());
  CHECK(report.unschedulable().empty());
  CHECK(report.existing().empty());
  std::map<std::string, int> per_zone = PodsPerDomain(report, snap, kZone);
  CHECK(per_zone == std::map<std::string, int>{{kA, 1}, {kB, 2}, {kC, 2}});
  ++per_zone[kA];  // web-old
  CHECK(Skew(per_zone, {kA, kB, kC}) == 0);
  for (const v1::ProvisionNodeClaim& c : report.node_claims()) {
    CHECK_FALSE(PinnedTo(c, kZone).empty());
  }
}

TEST_CASE(
    "provision: an existing node is refused when its zone would break the "
    "spread over the NodePool's zones",
    "[provision][topology]") {
  // n-a (zone a) runs web-old and has room. Karpenter's ExistingNode.CanAdd
  // narrows through Topology.AddRequirements, whose domains include the
  // zones the NodePool can launch into (b and c, 0 web pods): zone a would
  // count 2 against a minimum of 0, over maxSkew 1, so web-new gets a claim
  // in b or c (docs/semantics.md §9.10).
  testing::ClusterBuilder cluster;
  cluster.AddNodePool({});
  const PodEdit spread = WithSpread(Spread(kZone, 1, kWeb));
  cluster.Add(Node("n-a", kA, "4"))
      .Add(Bound("web-old", "n-a", "1", "web", spread));
  cluster.Add(Pending("web-new", "1", "web", spread));
  const snapshot::Snapshot snap = Snap(cluster);
  const v1::ProvisionReport report = Run(snap, Catalog({"default"}));
  INFO(report.DebugString());
  CHECK(report.unschedulable().empty());
  CHECK(report.existing().empty());
  REQUIRE(report.node_claims_size() == 1);
  const std::string zone = PinnedTo(report.node_claims(0), kZone);
  CHECK((zone == kB || zone == kC));
  std::map<std::string, int> per_zone = PodsPerDomain(report, snap, kZone);
  ++per_zone[kA];  // web-old
  CHECK(Skew(per_zone, {kA, kB, kC}) <= 1);
}

// Required node affinity `key In values`.
PodEdit WithNodeAffinityIn(const std::string& key,
                           std::vector<std::string> values) {
  return [key, values](v1::Pod& p) {
    *p.mutable_spec()
         ->mutable_affinity()
         ->mutable_node_affinity()
         ->mutable_required_during_scheduling_ignored_during_execution()
         ->add_node_selector_terms()
         ->add_match_expressions() =
        testing::MakeRequirement(key, "In", values);
  };
}

TEST_CASE(
    "provision: zonal spread over the zones the pod's node affinity admits, "
    "and minDomains",
    "[provision][topology]") {
  SECTION("node affinity In [a, b]: the minimum is over a and b only") {
    // Zone c, which the pods cannot use, does not hold the minimum at 0
    // (topologygroup.go domainMinCount over the pod's domains): a and b
    // take two pods each.
    testing::ClusterBuilder cluster;
    cluster.AddNodePool({});
    const PodEdit edit = Both(WithSpread(Spread(kZone, 1, kWeb)),
                              WithNodeAffinityIn(kZone, {kA, kB}));
    for (int i = 0; i < 4; ++i) {
      cluster.Add(Pending("web-" + std::to_string(i), "1", "web", edit));
    }
    const snapshot::Snapshot snap = Snap(cluster);
    const v1::ProvisionReport report = Run(snap, Catalog({"default"}));
    INFO(report.DebugString());
    CHECK(report.unschedulable().empty());
    CHECK(ClaimSizes(report) == std::vector<int>{2, 2});
    CHECK(PodsPerDomain(report, snap, kZone) ==
          std::map<std::string, int>{{kA, 2}, {kB, 2}});
  }
  SECTION("minDomains 4 over 3 zones: the minimum stays 0") {
    // Fewer domains than minDomains: the global minimum is 0, so no zone
    // may take a second pod (maxSkew 1) and the fourth pod fits nowhere.
    testing::ClusterBuilder cluster;
    cluster.AddNodePool({});
    v1::TopologySpreadConstraint c = Spread(kZone, 1, kWeb);
    c.set_min_domains(4);
    for (int i = 0; i < 4; ++i) {
      cluster.Add(
          Pending("web-" + std::to_string(i), "1", "web", WithSpread(c)));
    }
    const snapshot::Snapshot snap = Snap(cluster);
    const v1::ProvisionReport report = Run(snap, Catalog({"default"}));
    INFO(report.DebugString());
    CHECK(ClaimSizes(report) == std::vector<int>{1, 1, 1});
    CHECK(PodsPerDomain(report, snap, kZone) ==
          std::map<std::string, int>{{kA, 1}, {kB, 1}, {kC, 1}});
    CHECK(Unschedulable(report) == std::vector<std::string>{"default/web-3"});
    CHECK_THAT(ReasonOf(report, "default/web-3"), Catch::Contains("maxSkew"));
  }
}

// --- 2. Hostname spread. -----------------------------------------------------

TEST_CASE("provision: hostname spread puts at most maxSkew pods on a NodeClaim",
          "[provision][topology]") {
  // On kubernetes.io/hostname the minimum is always 0 (a new node can be
  // made, topologygroup.go domainMinCount): a claim takes maxSkew pods.
  struct Row {
    int max_skew;
    int pods;
    std::vector<int> sizes;
  };
  const std::vector<Row> rows = {
      {1, 3, {1, 1, 1}},
      {2, 4, {2, 2}},
      {2, 5, {2, 2, 1}},
  };
  for (const Row& row : rows) {
    CAPTURE(row.max_skew, row.pods);
    testing::ClusterBuilder cluster;
    cluster.AddNodePool({});
    const PodEdit spread = WithSpread(Spread(kHost, row.max_skew, kWeb));
    for (int i = 0; i < row.pods; ++i) {
      cluster.Add(Pending("web-" + std::to_string(i), "1", "web", spread));
    }
    const snapshot::Snapshot snap = Snap(cluster);
    const v1::ProvisionReport report = Run(snap, Catalog({"default"}));
    INFO(report.DebugString());
    CHECK(report.unschedulable().empty());
    CHECK(ClaimSizes(report) == row.sizes);
    // No zone is forced on the claims: the spread is on the hostname.
    for (const v1::ProvisionNodeClaim& c : report.node_claims()) {
      CHECK(Req(c, kZone).empty());
    }
  }
}

// --- 3. Capacity-type spread. ------------------------------------------------

TEST_CASE(
    "provision: capacity-type spread splits the NodeClaims between spot "
    "and on-demand",
    "[provision][topology]") {
  // The instance types are offered on demand and as spot: the domains of
  // karpenter.sh/capacity-type are {on-demand, spot}. Four pods, maxSkew 1:
  // two claims, one per capacity type, two pods each.
  testing::ClusterBuilder cluster;
  cluster.AddNodePool({});
  const PodEdit spread = WithSpread(Spread(kCapacityType, 1, kWeb));
  for (int i = 0; i < 4; ++i) {
    cluster.Add(Pending("web-" + std::to_string(i), "1", "web", spread));
  }
  const InstanceTypeCatalog catalog =
      Catalog({"default"}, {Type("small", "2", 0.2, {kA}, 0.1),
                            Type("medium", "4", 0.4, {kA}, 0.2)});
  const snapshot::Snapshot snap = Snap(cluster);
  const v1::ProvisionReport report = Run(snap, catalog);
  INFO(report.DebugString());
  CHECK(report.unschedulable().empty());
  REQUIRE(report.node_claims_size() == 2);
  const std::map<std::string, int> per_type =
      PodsPerDomain(report, snap, kCapacityType);
  CHECK(per_type == std::map<std::string, int>{{"on-demand", 2}, {"spot", 2}});
  std::set<std::string> types;
  for (const v1::ProvisionNodeClaim& c : report.node_claims()) {
    types.insert(PinnedTo(c, kCapacityType));
    // Two 1-cpu pods fit the cheapest type, small, in either capacity type.
    CHECK(TypesOf(c).front() == "small");
  }
  CHECK(types == std::set<std::string>{"on-demand", "spot"});
  // The spot claim is priced at the spot offering.
  for (const v1::ProvisionNodeClaim& c : report.node_claims()) {
    CHECK(c.price() ==
          Approx(PinnedTo(c, kCapacityType) == "spot" ? 0.1 : 0.2));
  }
}

// --- 4. Zone and hostname spread together. -----------------------------------

TEST_CASE("provision: zone and hostname spread together",
          "[provision][topology]") {
  // maxSkew 1 on both keys: one pod per claim, the claims over the zones
  // round-robin, two per zone. With maxSkew 2 on the hostname: three
  // claims, one per zone, two pods each.
  struct Row {
    int host_skew;
    std::vector<int> sizes;
  };
  for (const Row& row :
       std::vector<Row>{{1, {1, 1, 1, 1, 1, 1}}, {2, {2, 2, 2}}}) {
    CAPTURE(row.host_skew);
    testing::ClusterBuilder cluster;
    cluster.AddNodePool({});
    const PodEdit spread = Both(WithSpread(Spread(kZone, 1, kWeb)),
                                WithSpread(Spread(kHost, row.host_skew, kWeb)));
    for (int i = 0; i < 6; ++i) {
      cluster.Add(Pending("web-" + std::to_string(i), "1", "web", spread));
    }
    const snapshot::Snapshot snap = Snap(cluster);
    const v1::ProvisionReport report = Run(snap, Catalog({"default"}));
    INFO(report.DebugString());
    CHECK(report.unschedulable().empty());
    CHECK(ClaimSizes(report) == row.sizes);
    const std::map<std::string, int> per_zone =
        PodsPerDomain(report, snap, kZone);
    CHECK(per_zone == std::map<std::string, int>{{kA, 2}, {kB, 2}, {kC, 2}});
    CHECK(Skew(per_zone, {kA, kB, kC}) == 0);
  }
}

// --- 5. Pod anti-affinity. ---------------------------------------------------

TEST_CASE("provision: hostname anti-affinity gives each replica its own claim",
          "[provision][topology]") {
  testing::ClusterBuilder cluster;
  cluster.AddNodePool({});
  const PodEdit apart = WithAntiAffinity(Term(kHost, Labels{{"app", "r"}}));
  for (int i = 0; i < 3; ++i) {
    cluster.Add(Pending("r-" + std::to_string(i), "1", "r", apart));
  }
  const snapshot::Snapshot snap = Snap(cluster);
  const v1::ProvisionReport report = Run(snap, Catalog({"default"}));
  INFO(report.DebugString());
  CHECK(report.unschedulable().empty());
  CHECK(ClaimSizes(report) == std::vector<int>{1, 1, 1});
  CHECK(Scheduled(report) ==
        std::vector<std::string>{"default/r-0", "default/r-1", "default/r-2"});
}

TEST_CASE(
    "provision: zonal anti-affinity with zone spread makes three claims in "
    "three zones and leaves a fourth replica unschedulable",
    "[provision][topology]") {
  // The spread pins each claim to one zone, so each replica's zone is
  // decided when it joins and blocks that zone for the others; the fourth
  // finds every zone taken.
  testing::ClusterBuilder cluster;
  cluster.AddNodePool({});
  const Labels r = {{"app", "r"}};
  const PodEdit edit =
      Both(WithAntiAffinity(Term(kZone, r)), WithSpread(Spread(kZone, 1, r)));
  for (int i = 0; i < 4; ++i) {
    cluster.Add(Pending("r-" + std::to_string(i), "1", "r", edit));
  }
  const snapshot::Snapshot snap = Snap(cluster);
  const v1::ProvisionReport report = Run(snap, Catalog({"default"}));
  INFO(report.DebugString());
  REQUIRE(report.node_claims_size() == 3);
  std::set<std::string> zones;
  for (const v1::ProvisionNodeClaim& c : report.node_claims()) {
    CHECK(c.pods_size() == 1);
    zones.insert(PinnedTo(c, kZone));
  }
  CHECK(zones == std::set<std::string>{kA, kB, kC});
  CHECK(Unschedulable(report) == std::vector<std::string>{"default/r-3"});
  CHECK_THAT(ReasonOf(report, "default/r-3"), Catch::Contains("anti-affinity"));
}

TEST_CASE(
    "provision: zonal anti-affinity alone schedules one replica per batch "
    "(late committal)",
    "[provision][topology]") {
  // Karpenter's topology_test.go "should support pod anti-affinity with a
  // zone topology": a claim whose zone is still open blocks every zone it
  // could take (Topology.Record records all of an anti-affinity pod's
  // possible domains), so a batch schedules one replica; once its node
  // exists in a zone the next batch schedules the next, in another zone.
  const Labels r = {{"app", "r"}};
  const PodEdit apart = WithAntiAffinity(Term(kZone, r));
  const InstanceTypeCatalog catalog = Catalog({"default"});
  testing::ClusterBuilder cluster;
  cluster.AddNodePool({});
  // What each batch leaves pending, and the nodes launched so far.
  const auto batch = [&](const std::vector<std::string>& pending) {
    testing::ClusterBuilder c = cluster;
    for (const std::string& name : pending) {
      c.Add(Pending(name, "1", "r", apart));
    }
    const snapshot::Snapshot snap = Snap(c);
    return Run(snap, catalog);
  };
  {
    const v1::ProvisionReport report = batch({"r-0", "r-1", "r-2"});
    INFO(report.DebugString());
    REQUIRE(report.node_claims_size() == 1);
    CHECK(PodsOf(report.node_claims(0)) ==
          std::vector<std::string>{"default/r-0"});
    // Any zone will do: the claim is not narrowed to one.
    CHECK(Req(report.node_claims(0), kZone) ==
          "In us-west-2a,us-west-2b,us-west-2c");
    CHECK(Unschedulable(report) ==
          std::vector<std::string>{"default/r-1", "default/r-2"});
    CHECK_THAT(ReasonOf(report, "default/r-1"),
               Catch::Contains("anti-affinity"));
  }
  // r-0's claim launched in zone a (the node has room: only the
  // anti-affinity keeps the others off it).
  cluster.Add(Node("z-a", kA, "4")).Add(Bound("r-0", "z-a", "1", "r", apart));
  {
    const v1::ProvisionReport report = batch({"r-1", "r-2"});
    INFO(report.DebugString());
    CHECK(report.existing().empty());
    REQUIRE(report.node_claims_size() == 1);
    CHECK(PodsOf(report.node_claims(0)) ==
          std::vector<std::string>{"default/r-1"});
    CHECK(Req(report.node_claims(0), kZone) == "In us-west-2b,us-west-2c");
    CHECK(Unschedulable(report) == std::vector<std::string>{"default/r-2"});
  }
  cluster.Add(Node("z-b", kB, "4")).Add(Bound("r-1", "z-b", "1", "r", apart));
  {
    const v1::ProvisionReport report = batch({"r-2"});
    INFO(report.DebugString());
    CHECK(report.existing().empty());
    REQUIRE(report.node_claims_size() == 1);
    CHECK(Req(report.node_claims(0), kZone) == "In us-west-2c");
    CHECK(report.unschedulable().empty());
  }
  cluster.Add(Node("z-c", kC, "4")).Add(Bound("r-2", "z-c", "1", "r", apart));
  {
    // Every zone has a replica: a fourth schedules nowhere.
    const v1::ProvisionReport report = batch({"r-3"});
    INFO(report.DebugString());
    CHECK(report.existing().empty());
    CHECK(report.node_claims().empty());
    CHECK(Unschedulable(report) == std::vector<std::string>{"default/r-3"});
    CHECK_THAT(ReasonOf(report, "default/r-3"),
               Catch::Contains("anti-affinity"));
  }
}

// --- 6. Pod affinity. --------------------------------------------------------

TEST_CASE(
    "provision: zonal pod affinity pins the claim to the zone of the pod it "
    "selects",
    "[provision][topology]") {
  // db runs in zone b on a full node; zone a has a node with room but no
  // db pod. api needs a db pod in its zone: a new claim in zone b.
  testing::ClusterBuilder cluster;
  cluster.AddNodePool({});
  cluster.Add(Node("n-a", kA, "4"))
      .Add(Node("n-b", kB, "1"))
      .Add(Bound("db", "n-b", "1", "db"));
  cluster.Add(Pending("api", "1", "api",
                      WithAffinity(Term(kZone, Labels{{"app", "db"}}))));
  // Affinity to pods that exist nowhere, not selecting itself: never.
  cluster.Add(Pending("lonely", "1", "lonely",
                      WithAffinity(Term(kZone, Labels{{"app", "ghost"}}))));
  const snapshot::Snapshot snap = Snap(cluster);
  const v1::ProvisionReport report = Run(snap, Catalog({"default"}));
  INFO(report.DebugString());
  CHECK(report.existing().empty());
  REQUIRE(report.node_claims_size() == 1);
  CHECK(PodsOf(report.node_claims(0)) ==
        std::vector<std::string>{"default/api"});
  CHECK(Req(report.node_claims(0), kZone) == "In us-west-2b");
  CHECK(Unschedulable(report) == std::vector<std::string>{"default/lonely"});
  CHECK_THAT(ReasonOf(report, "default/lonely"), Catch::Contains("affinity"));
}

TEST_CASE("provision: a self-affine group lands in one zone",
          "[provision][topology]") {
  // Three 3-cpu pods (one per 4-cpu node) that need each other in their
  // zone: the first opens a zone (Karpenter: any, the SDK: the first by
  // value), the others follow it on claims of their own.
  testing::ClusterBuilder cluster;
  cluster.AddNodePool({});
  const PodEdit together = WithAffinity(Term(kZone, Labels{{"app", "grp"}}));
  for (int i = 0; i < 3; ++i) {
    cluster.Add(Pending("g-" + std::to_string(i), "3", "grp", together));
  }
  const snapshot::Snapshot snap = Snap(cluster);
  const v1::ProvisionReport report =
      Run(snap, Catalog({"default"},
                        {Type("small", "2", 0.1), Type("medium", "4", 0.2)}));
  INFO(report.DebugString());
  CHECK(report.unschedulable().empty());
  CHECK(ClaimSizes(report) == std::vector<int>{1, 1, 1});
  const std::map<std::string, int> per_zone =
      PodsPerDomain(report, snap, kZone);
  REQUIRE(per_zone.size() == 1);
  CHECK(per_zone.begin()->first != "?");
  CHECK(per_zone.begin()->second == 3);
}

// --- 7. Existing nodes first. ------------------------------------------------

TEST_CASE("provision: pending pods take existing room before new NodeClaims",
          "[provision]") {
  // n1 has 3 cpu free. big (6 cpu) fits no node: a claim. fits (2) and
  // small (1) go to n1, in placement order (largest first).
  testing::ClusterBuilder cluster;
  cluster.AddNodePool({});
  cluster.Add(Node("n1", kA, "4")).Add(Bound("resident", "n1", "1"));
  cluster.Add(Pending("big", "6"))
      .Add(Pending("fits", "2"))
      .Add(Pending("small", "1"));
  // Not picked up by the provisioner: no Unschedulable condition yet, or
  // terminating.
  v1::Pod fresh = Pending("fresh", "1");
  fresh.mutable_status()->clear_conditions();
  cluster.Add(fresh);
  cluster.Add(Pending("leaving", "1", "web", [](v1::Pod& p) {
    *p.mutable_metadata()->mutable_deletion_timestamp() =
        testing::MakePod({.deleted = testing::kTestEpoch})
            .metadata()
            .deletion_timestamp();
  }));
  const snapshot::Snapshot snap = Snap(cluster);
  const v1::ProvisionReport report = Run(snap, Catalog({"default"}));
  INFO(report.DebugString());
  REQUIRE(report.existing_size() == 1);
  CHECK(report.existing(0).node() == "n1");
  CHECK(std::vector<std::string>(report.existing(0).pods().begin(),
                                 report.existing(0).pods().end()) ==
        std::vector<std::string>{"default/fits", "default/small"});
  REQUIRE(report.node_claims_size() == 1);
  CHECK(PodsOf(report.node_claims(0)) ==
        std::vector<std::string>{"default/big"});
  CHECK(TypesOf(report.node_claims(0)) == std::vector<std::string>{"large"});
  CHECK(report.unschedulable().empty());
  CHECK(Scheduled(report) == std::vector<std::string>{"default/big",
                                                      "default/fits",
                                                      "default/small"});
}

// --- 8. Limits. --------------------------------------------------------------

TEST_CASE("provision: NodePool limits", "[provision][limits]") {
  SECTION("limits used up by the NodePool's nodes: no claim") {
    testing::ClusterBuilder cluster;
    cluster.AddNodePool({.limits = {{"cpu", "4"}}});
    cluster.Add(Node("n1", kA, "4")).Add(Bound("resident", "n1", "4"));
    cluster.Add(Pending("p", "1"));
    const v1::ProvisionReport report = Run(Snap(cluster), Catalog({"default"}));
    INFO(report.DebugString());
    CHECK(report.node_claims().empty());
    CHECK(Unschedulable(report) == std::vector<std::string>{"default/p"});
    CHECK_THAT(ReasonOf(report, "default/p"),
               Catch::Contains("limits") && Catch::Contains("default"));
  }
  // limits cpu 8, a 4-cpu node: 4 cpu left, so only small and medium may
  // launch. p1 (3 cpu) opens a medium claim, which takes the 4 left
  // (Karpenter's subtractMax); p2 cannot join it (6 > 4) nor open another.
  testing::ClusterBuilder cluster;
  cluster.AddNodePool({.limits = {{"cpu", "8"}}});
  cluster.Add(Node("n1", kA, "4")).Add(Bound("resident", "n1", "4"));
  cluster.Add(Pending("p1", "3")).Add(Pending("p2", "3"));
  SECTION("room for exactly one more claim") {
    const v1::ProvisionReport report = Run(Snap(cluster), Catalog({"default"}));
    INFO(report.DebugString());
    REQUIRE(report.node_claims_size() == 1);
    CHECK(PodsOf(report.node_claims(0)) ==
          std::vector<std::string>{"default/p1"});
    // large (8 cpu) would exceed the limit.
    CHECK(TypesOf(report.node_claims(0)) == std::vector<std::string>{"medium"});
    CHECK(Unschedulable(report) == std::vector<std::string>{"default/p2"});
    CHECK_THAT(ReasonOf(report, "default/p2"), Catch::Contains("limits"));
  }
  SECTION("the next pod goes to a second NodePool") {
    cluster.AddNodePool({.name = "spare"});
    const v1::ProvisionReport report =
        Run(Snap(cluster), Catalog({"default", "spare"}));
    INFO(report.DebugString());
    CHECK(report.unschedulable().empty());
    REQUIRE(report.node_claims_size() == 2);
    CHECK(report.node_claims(0).node_pool() == "default");
    CHECK(PodsOf(report.node_claims(0)) ==
          std::vector<std::string>{"default/p1"});
    CHECK(report.node_claims(1).node_pool() == "spare");
    CHECK(PodsOf(report.node_claims(1)) ==
          std::vector<std::string>{"default/p2"});
    CHECK(TypesOf(report.node_claims(1)) ==
          std::vector<std::string>{"medium", "large"});
  }
}

// --- 9. minValues. -----------------------------------------------------------

// NodePool "default" requiring `req` (with minValues), and pending `pods`.
testing::ClusterBuilder MinValuesCluster(v1::NodeSelectorRequirement req,
                                         const std::vector<v1::Pod>& pods) {
  testing::ClusterBuilder cluster;
  cluster.AddNodePool({.requirements = {std::move(req)}});
  for (const v1::Pod& p : pods) cluster.Add(p);
  return cluster;
}

v1::NodeSelectorRequirement WithMin(v1::NodeSelectorRequirement r, int min) {
  r.set_min_values(min);
  return r;
}

// The pending pods of `snap` through disruption::Scheduler::Provision with
// `policy`.
disruption::Scheduler::Provisioned ProvisionWith(
    const snapshot::Snapshot& snap, const InstanceTypeCatalog& catalog,
    disruption::MinValuesPolicy policy) {
  disruption::SimulatorOptions options;
  options.include_pending_pods = true;
  options.min_values_policy = policy;
  absl::StatusOr<disruption::Scheduler> s =
      disruption::Scheduler::Build(snap, catalog, options);
  INFO(s.status().ToString());
  REQUIRE(s.ok());
  std::vector<snapshot::PodIndex> pending;
  for (snapshot::PodIndex p = 0; p < snap.pod_count(); ++p) {
    if (snap.PodIsUnbound(p)) pending.push_back(p);
  }
  return s->Provision(pending);
}

TEST_CASE("provision: minValues on the instance type",
          "[provision][minvalues]") {
  // instance-type Exists, minValues 3, types of 2, 4, 8 and 16 cpu. A 5-cpu
  // pod fits only the 8 and the 16: 2 of 3 values.
  const InstanceTypeCatalog catalog =
      Catalog({"default"}, {Type("t-2", "2", 0.1), Type("t-4", "4", 0.2),
                            Type("t-8", "8", 0.4), Type("t-16", "16", 0.8)});
  const v1::NodeSelectorRequirement exists =
      WithMin(testing::MakeRequirement(kInstanceType, "Exists", {}), 3);
  SECTION("Strict: the pod is unschedulable, naming minValues") {
    const snapshot::Snapshot snap =
        Snap(MinValuesCluster(exists, {Pending("wide", "5")}));
    const v1::ProvisionReport report = Run(snap, catalog);
    INFO(report.DebugString());
    CHECK(report.node_claims().empty());
    CHECK(Unschedulable(report) == std::vector<std::string>{"default/wide"});
    CHECK_THAT(ReasonOf(report, "default/wide"), Catch::Contains("minValues"));
  }
  SECTION("Strict: a pod that leaves 3 types gets a claim") {
    const snapshot::Snapshot snap =
        Snap(MinValuesCluster(exists, {Pending("narrow", "3")}));
    const v1::ProvisionReport report = Run(snap, catalog);
    INFO(report.DebugString());
    REQUIRE(report.node_claims_size() == 1);
    CHECK(TypesOf(report.node_claims(0)) ==
          std::vector<std::string>{"t-4", "t-8", "t-16"});
    CHECK(report.node_claims(0).annotations().empty());
  }
  SECTION("BestEffort: the claim is made and annotated relaxed") {
    const snapshot::Snapshot snap =
        Snap(MinValuesCluster(exists, {Pending("wide", "5")}));
    const disruption::Scheduler::Provisioned out =
        ProvisionWith(snap, catalog, disruption::MinValuesPolicy::kBestEffort);
    CHECK(out.unschedulable.empty());
    REQUIRE(out.node_claims.size() == 1);
    CHECK(out.node_claims[0].instance_types ==
          std::vector<std::string>{"t-8", "t-16"});
    const auto& annotations =
        out.node_claims[0].node_claim.metadata().annotations();
    REQUIRE(annotations.count(kRelaxed) == 1);
    CHECK(annotations.at(kRelaxed) == "true");
    // Strict through the same entry point agrees with Provision.
    const disruption::Scheduler::Provisioned strict =
        ProvisionWith(snap, catalog, disruption::MinValuesPolicy::kStrict);
    CHECK(strict.node_claims.empty());
    REQUIRE(strict.unschedulable.size() == 1);
    CHECK_THAT(strict.unschedulable[0].second, Catch::Contains("minValues"));
  }
  SECTION("BestEffort: a claim that meets minValues is not annotated") {
    const snapshot::Snapshot snap =
        Snap(MinValuesCluster(exists, {Pending("narrow", "3")}));
    const disruption::Scheduler::Provisioned out =
        ProvisionWith(snap, catalog, disruption::MinValuesPolicy::kBestEffort);
    REQUIRE(out.node_claims.size() == 1);
    CHECK(out.node_claims[0].node_claim.metadata().annotations().count(
              kRelaxed) == 0);
  }
}

TEST_CASE("provision: minValues on the instance family",
          "[provision][minvalues]") {
  // instance-family In [c5, m5, r5], minValues 3. r5 comes only in 2 cpu:
  // a 4-cpu pod leaves c5 and m5, 2 of 3 families.
  const InstanceTypeCatalog catalog =
      Catalog({"default"}, {Type("c5.xlarge", "4", 0.17, {kA, kB, kC},
                                 std::nullopt, {{kFamily, "c5"}}),
                            Type("m5.xlarge", "4", 0.19, {kA, kB, kC},
                                 std::nullopt, {{kFamily, "m5"}}),
                            Type("r5.large", "2", 0.13, {kA, kB, kC},
                                 std::nullopt, {{kFamily, "r5"}})});
  const v1::NodeSelectorRequirement families =
      WithMin(testing::MakeRequirement(kFamily, "In", {"c5", "m5", "r5"}), 3);
  {
    const snapshot::Snapshot snap = Snap(MinValuesCluster(
        families, {Pending("four", "4"), Pending("one", "1")}));
    const v1::ProvisionReport report = Run(snap, catalog);
    INFO(report.DebugString());
    CHECK(Unschedulable(report) == std::vector<std::string>{"default/four"});
    CHECK_THAT(ReasonOf(report, "default/four"), Catch::Contains("minValues"));
    // The 1-cpu pod leaves all three families.
    REQUIRE(report.node_claims_size() == 1);
    CHECK(PodsOf(report.node_claims(0)) ==
          std::vector<std::string>{"default/one"});
    CHECK(TypesOf(report.node_claims(0)) ==
          std::vector<std::string>{"r5.large", "c5.xlarge", "m5.xlarge"});
  }
  {
    const snapshot::Snapshot snap =
        Snap(MinValuesCluster(families, {Pending("four", "4")}));
    const disruption::Scheduler::Provisioned out =
        ProvisionWith(snap, catalog, disruption::MinValuesPolicy::kBestEffort);
    CHECK(out.unschedulable.empty());
    REQUIRE(out.node_claims.size() == 1);
    CHECK(out.node_claims[0].instance_types ==
          std::vector<std::string>{"c5.xlarge", "m5.xlarge"});
    CHECK(out.node_claims[0].node_claim.metadata().annotations().at(kRelaxed) ==
          "true");
  }
}

// --- 10. NodePools by weight. ------------------------------------------------

TEST_CASE("provision: NodePools are tried by weight, then name",
          "[provision][nodepools]") {
  const v1::Taint gpu = testing::MakeTaint("dedicated", "gpu", "NoSchedule");
  const PodEdit tolerates = [](v1::Pod& p) {
    *p.mutable_spec()->add_tolerations() =
        testing::MakeToleration("dedicated", "Equal", "gpu", "NoSchedule");
  };
  SECTION("the heavier NodePool takes the pod") {
    testing::ClusterBuilder cluster;
    cluster.AddNodePool({.name = "a-light"});
    cluster.AddNodePool({.name = "z-heavy", .weight = 10});
    cluster.Add(Pending("p", "1"));
    const v1::ProvisionReport report =
        Run(Snap(cluster), Catalog({"a-light", "z-heavy"}));
    INFO(report.DebugString());
    REQUIRE(report.node_claims_size() == 1);
    CHECK(report.node_claims(0).node_pool() == "z-heavy");
  }
  SECTION("equal weights: by name") {
    testing::ClusterBuilder cluster;
    cluster.AddNodePool({.name = "beta", .weight = 5});
    cluster.AddNodePool({.name = "alpha", .weight = 5});
    cluster.Add(Pending("p", "1"));
    const v1::ProvisionReport report =
        Run(Snap(cluster), Catalog({"alpha", "beta"}));
    INFO(report.DebugString());
    REQUIRE(report.node_claims_size() == 1);
    CHECK(report.node_claims(0).node_pool() == "alpha");
  }
  SECTION("a pod that does not tolerate the heavy one's taint goes elsewhere") {
    testing::ClusterBuilder cluster;
    cluster.AddNodePool({.name = "light"});
    cluster.AddNodePool({.name = "heavy", .weight = 10, .taints = {gpu}});
    // tolerant (2 cpu) is placed first and opens a heavy claim; plain
    // cannot join it nor open another heavy one: it opens a light claim.
    // (Had plain come first, tolerant would join the light claim already
    // open: open claims are tried before new ones.)
    cluster.Add(Pending("plain", "1"))
        .Add(Pending("tolerant", "2", "web", tolerates));
    const v1::ProvisionReport report =
        Run(Snap(cluster), Catalog({"heavy", "light"}));
    INFO(report.DebugString());
    CHECK(report.unschedulable().empty());
    REQUIRE(report.node_claims_size() == 2);
    std::map<std::string, std::vector<std::string>> by_pool;
    for (const v1::ProvisionNodeClaim& c : report.node_claims()) {
      by_pool[c.node_pool()] = PodsOf(c);
    }
    CHECK(by_pool ==
          std::map<std::string, std::vector<std::string>>{
              {"heavy", {"default/tolerant"}}, {"light", {"default/plain"}}});
  }
  SECTION("a claim already open is tried before a heavier new one") {
    // plain (the larger) opens a light claim; tolerant then joins it rather
    // than opening a heavy one (scheduler.go: existing nodes, then the
    // NodeClaims of this round, then the templates).
    testing::ClusterBuilder cluster;
    cluster.AddNodePool({.name = "light"});
    cluster.AddNodePool({.name = "heavy", .weight = 10, .taints = {gpu}});
    cluster.Add(Pending("plain", "2"))
        .Add(Pending("tolerant", "1", "web", tolerates));
    const v1::ProvisionReport report =
        Run(Snap(cluster), Catalog({"heavy", "light"}));
    INFO(report.DebugString());
    CHECK(report.unschedulable().empty());
    REQUIRE(report.node_claims_size() == 1);
    CHECK(report.node_claims(0).node_pool() == "light");
    CHECK(PodsOf(report.node_claims(0)) ==
          std::vector<std::string>{"default/plain", "default/tolerant"});
  }
  SECTION("a NodePool that is not Ready is skipped") {
    testing::ClusterBuilder cluster;
    cluster.AddNodePool({.name = "light"});
    v1::NodePool heavy = testing::MakeNodePool({.name = "heavy", .weight = 10});
    testing::SetCondition(heavy.mutable_status()->mutable_conditions(),
                          {.type = "Ready", .status = "False"});
    cluster.Add(heavy);
    cluster.Add(Pending("p", "1"));
    const v1::ProvisionReport report =
        Run(Snap(cluster), Catalog({"heavy", "light"}));
    INFO(report.DebugString());
    REQUIRE(report.node_claims_size() == 1);
    CHECK(report.node_claims(0).node_pool() == "light");
  }
  SECTION("no Ready NodePool: unschedulable") {
    testing::ClusterBuilder cluster;
    v1::NodePool only = testing::MakeNodePool({});
    testing::SetCondition(only.mutable_status()->mutable_conditions(),
                          {.type = "Ready", .status = "False"});
    cluster.Add(only);
    cluster.Add(Pending("p", "1"));
    const v1::ProvisionReport report = Run(Snap(cluster), Catalog({"default"}));
    INFO(report.DebugString());
    CHECK(report.node_claims().empty());
    CHECK(Unschedulable(report) == std::vector<std::string>{"default/p"});
  }
}

// --- 11. DaemonSet overhead. -------------------------------------------------

TEST_CASE("provision: DaemonSet overhead shrinks what a new node holds",
          "[provision][daemonset]") {
  // The NodePool's node n1 (1 cpu) runs a 500m DaemonSet pod, or a plain
  // 500m pod. A 3600m pod (medium's 4 cpu - 400m) fits medium without the
  // overhead; with it, it needs 4100m: only large.
  struct Row {
    std::string name;
    std::string owner;
    std::string pod_cpu;
    std::vector<std::string> types;
  };
  const std::vector<Row> rows = {
      {"no DaemonSet", "", "3600m", {"medium", "large"}},
      {"DaemonSet 500m", "DaemonSet", "3600m", {"large"}},
      {"DaemonSet 500m, exact fit", "DaemonSet", "3500m", {"medium", "large"}},
  };
  for (const Row& row : rows) {
    CAPTURE(row.name);
    testing::ClusterBuilder cluster;
    cluster.AddNodePool({});
    cluster.Add(Node("n1", kA, "1"));
    cluster.AddPod({.name = "agent",
                    .app = "agent",
                    .node = "n1",
                    .owner = row.owner,
                    .cpu = "500m"});
    cluster.Add(Pending("p", row.pod_cpu));
    const v1::ProvisionReport report = Run(Snap(cluster), Catalog({"default"}));
    INFO(report.DebugString());
    REQUIRE(report.node_claims_size() == 1);
    CHECK(TypesOf(report.node_claims(0)) == row.types);
  }
}

// --- 12. Instance types and unknown labels. ----------------------------------

TEST_CASE(
    "provision: instance types cheapest first, and a label no NodePool "
    "defines",
    "[provision]") {
  // Names and sizes out of price order: the report lists by price.
  const InstanceTypeCatalog catalog = Catalog(
      {"default"}, {Type("a-mid", "4", 0.30), Type("b-small", "2", 0.20),
                    Type("c-big", "8", 0.10)});
  testing::ClusterBuilder cluster;
  cluster.AddNodePool({.template_labels = {{"team", "a"}}});
  cluster.Add(Pending("p", "1"));
  // disk=ssd: neither the NodePool nor any instance type defines it.
  cluster.Add(Pending("ssd", "1", "ssd", WithNodeSelector({{"disk", "ssd"}})));
  // team=a: the template's label, so the NodePool defines it.
  cluster.Add(Pending("team", "1", "team", WithNodeSelector({{"team", "a"}})));
  // A zone no instance type is offered in.
  cluster.Add(
      Pending("nowhere", "1", "nowhere", WithNodeSelector({{kZone, "mars"}})));
  const v1::ProvisionReport report = Run(Snap(cluster), catalog);
  INFO(report.DebugString());
  REQUIRE(report.node_claims_size() == 1);
  const v1::ProvisionNodeClaim& claim = report.node_claims(0);
  CHECK(TypesOf(claim) ==
        std::vector<std::string>{"c-big", "b-small", "a-mid"});
  CHECK(claim.price() == Approx(0.10));
  // The last requirement lists the same types in the same order.
  REQUIRE(claim.requirements_size() > 0);
  const v1::ProvisionRequirement& last =
      claim.requirements(claim.requirements_size() - 1);
  CHECK(last.key() == kInstanceType);
  CHECK(last.operator_() == "In");
  CHECK(std::vector<std::string>(last.values().begin(), last.values().end()) ==
        TypesOf(claim));
  CHECK(Req(claim, "team") == "In a");
  CHECK(PodsOf(claim) == std::vector<std::string>{"default/p", "default/team"});
  CHECK(Unschedulable(report) ==
        std::vector<std::string>{"default/nowhere", "default/ssd"});
  CHECK_THAT(ReasonOf(report, "default/ssd"), Catch::Contains("disk"));
}

TEST_CASE(
    "provision: the reason of a pod no instance type takes names the cause",
    "[provision]") {
  // The NodePool runs no DaemonSet. Karpenter's error for these pods names
  // the resources or the requirement no instance type meets
  // (nodeclaim.go: "no instance type satisfied resources ... and
  // requirements ..." / "incompatible requirements, key
  // topology.kubernetes.io/zone, ... In [mars] not in ..."); it cannot
  // blame a DaemonSet overhead that is not there.
  testing::ClusterBuilder cluster;
  cluster.AddNodePool({});
  cluster.Add(Pending("huge", "64"));
  cluster.Add(
      Pending("nowhere", "1", "nowhere", WithNodeSelector({{kZone, "mars"}})));
  const v1::ProvisionReport report = Run(Snap(cluster), Catalog({"default"}));
  INFO(report.DebugString());
  CHECK(Unschedulable(report) ==
        std::vector<std::string>{"default/huge", "default/nowhere"});
  CHECK_THAT(ReasonOf(report, "default/huge"),
             !Catch::Contains("DaemonSet") && Catch::Contains("cpu"));
  CHECK_THAT(ReasonOf(report, "default/nowhere"),
             !Catch::Contains("DaemonSet") && Catch::Contains(kZone));
}

// --- 13. Determinism. --------------------------------------------------------

TEST_CASE("provision: the same snapshot gives the same report", "[provision]") {
  testing::ClusterBuilder cluster;
  cluster.AddNodePool({});
  cluster.AddNodePool({.name = "spare", .weight = 1});
  cluster.Add(Node("n-a", kA, "2")).Add(Bound("web-old", "n-a", "1"));
  const PodEdit spread = Both(WithSpread(Spread(kZone, 1, kWeb)),
                              WithSpread(Spread(kHost, 2, kWeb)));
  for (int i = 0; i < 7; ++i) {
    cluster.Add(Pending("web-" + std::to_string(i), "1", "web", spread));
  }
  for (int i = 0; i < 3; ++i) {
    cluster.Add(Pending("r-" + std::to_string(i), "2", "r",
                        WithAntiAffinity(Term(kHost, Labels{{"app", "r"}}))));
  }
  cluster.Add(Pending("huge", "64"));
  const InstanceTypeCatalog catalog = Catalog({"default", "spare"});
  const snapshot::Snapshot snap = Snap(cluster);
  const v1::ProvisionReport first = Run(snap, catalog);
  INFO(first.DebugString());
  CHECK(first.node_claims_size() > 0);
  CHECK(Unschedulable(first) == std::vector<std::string>{"default/huge"});
  for (int i = 0; i < 3; ++i) {
    CHECK(Run(snap, catalog).DebugString() == first.DebugString());
  }
  // A snapshot built again from the same objects answers the same.
  CHECK(Run(Snap(cluster), catalog).DebugString() == first.DebugString());
}

}  // namespace
}  // namespace karpenter::scheduling
