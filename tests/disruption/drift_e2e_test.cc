// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// End to end: a NodePool's image changes, so its 20 nodes drift; the
// disruption Runner replaces them under a 20% budget while the termination
// Executor drains the old ones through PDBs, with FakeCluster,
// FakeCloudProvider and FakeNodeLifecycle playing the cluster, the cloud and
// the kubelet.

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "karpenter/disruption/runner.h"
#include "karpenter/termination/executor.h"
#include "karpenter/testing/fake_clock.h"
#include "karpenter/testing/fake_cloud_provider.h"
#include "karpenter/testing/fake_cluster.h"
#include "karpenter/testing/fake_node_lifecycle.h"
#include "karpenter/testing/recorders.h"

namespace karpenter::disruption {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1704067200);
constexpr int kNodes = 20;
constexpr int kApps = 5;
constexpr int kReplicas = 8;

void Stamp(absl::Time t, google::protobuf::Timestamp* ts) {
  ts->set_seconds(absl::ToUnixSeconds(t));
}

void Label(v1::ObjectMeta& m, const std::string& k, const std::string& v) {
  (*m.mutable_labels())[k] = v;
}

std::string NodeName(int i) { return absl::StrFormat("old-%02d", i); }
std::string ProviderId(int i) {
  return absl::StrCat("fake:///test-zone-a/i-", NodeName(i));
}

v1::NodePool MakeNodePool() {
  v1::NodePool pool;
  pool.mutable_metadata()->set_name("default");
  v1::NodeClaimSpec& spec =
      *pool.mutable_spec()->mutable_template_()->mutable_spec();
  spec.mutable_node_class_ref()->set_group("karpenter.k8s.aws");
  spec.mutable_node_class_ref()->set_kind("EC2NodeClass");
  spec.mutable_node_class_ref()->set_name("default");
  spec.set_expire_after("Never");
  v1::NodeSelectorRequirement* ct = spec.add_requirements();
  ct->set_key("karpenter.sh/capacity-type");
  ct->set_operator_("In");
  ct->add_values("on-demand");
  v1::Disruption& d = *pool.mutable_spec()->mutable_disruption();
  d.set_consolidation_policy("WhenEmptyOrUnderutilized");
  d.set_consolidate_after("Never");
  d.add_budgets()->set_nodes("20%");
  return pool;
}

void AddNode(snapshot::ObjectSet& o, int i) {
  const std::string name = NodeName(i);
  v1::Node n;
  v1::ObjectMeta& m = *n.mutable_metadata();
  m.set_name(name);
  Stamp(kStart - absl::Hours(24), m.mutable_creation_timestamp());
  for (auto [k, v] : std::map<std::string, std::string>{
           {"karpenter.sh/nodepool", "default"},
           {"karpenter.sh/initialized", "true"},
           {"karpenter.sh/registered", "true"},
           {"karpenter.sh/capacity-type", "on-demand"},
           {"node.kubernetes.io/instance-type", "m5.large"},
           {"topology.kubernetes.io/zone", "test-zone-a"},
           {"kubernetes.io/hostname", name}}) {
    Label(m, k, v);
  }
  m.add_finalizers("karpenter.sh/termination");
  n.mutable_spec()->set_provider_id(ProviderId(i));
  for (auto [k, v] : std::map<std::string, std::string>{
           {"cpu", "2"}, {"memory", "8Gi"}, {"pods", "29"}}) {
    (*n.mutable_status()->mutable_capacity())[k] = v;
    (*n.mutable_status()->mutable_allocatable())[k] = v;
  }
  v1::Condition* ready = n.mutable_status()->add_conditions();
  ready->set_type("Ready");
  ready->set_status("True");
  Stamp(kStart - absl::Hours(24), ready->mutable_last_transition_time());
  o.nodes.push_back(n);

  v1::NodeClaim c;
  v1::ObjectMeta& cm = *c.mutable_metadata();
  cm.set_name(name);
  Stamp(kStart - absl::Hours(24), cm.mutable_creation_timestamp());
  for (const auto& [k, v] : n.metadata().labels()) Label(cm, k, v);
  cm.add_finalizers("karpenter.sh/termination");
  *c.mutable_spec() = MakeNodePool().spec().template_().spec();
  c.mutable_status()->set_provider_id(ProviderId(i));
  c.mutable_status()->set_node_name(name);
  c.mutable_status()->set_image_id("image-1");
  for (const char* type : {"Launched", "Registered", "Initialized"}) {
    v1::Condition* cond = c.mutable_status()->add_conditions();
    cond->set_type(type);
    cond->set_status("True");
    Stamp(kStart - absl::Hours(24), cond->mutable_last_transition_time());
  }
  o.node_claims.push_back(c);
}

v1::Pod MakePod(int app, int replica, int node) {
  v1::Pod p;
  v1::ObjectMeta& m = *p.mutable_metadata();
  m.set_namespace_("default");
  m.set_name(absl::StrCat("app", app, "-", replica));
  m.set_uid(absl::StrCat("uid-app", app, "-", replica));
  Label(m, "app", absl::StrCat("app", app));
  v1::OwnerReference* ref = m.add_owner_references();
  ref->set_api_version("apps/v1");
  ref->set_kind("ReplicaSet");
  ref->set_name(absl::StrCat("app", app));
  ref->set_uid(absl::StrCat("rs-app", app));
  ref->set_controller(true);
  p.mutable_spec()->set_node_name(NodeName(node));
  p.mutable_spec()->set_termination_grace_period_seconds(30);
  v1::Container* c = p.mutable_spec()->add_containers();
  c->set_name("main");
  (*c->mutable_resources()->mutable_requests())["cpu"] = "800m";
  (*c->mutable_resources()->mutable_requests())["memory"] = "3Gi";
  p.mutable_status()->set_phase("Running");
  Stamp(kStart - absl::Hours(2), p.mutable_status()->mutable_start_time());
  v1::Condition* ready = p.mutable_status()->add_conditions();
  ready->set_type("Ready");
  ready->set_status("True");
  return p;
}

v1::PodDisruptionBudget MakePdb(int app) {
  v1::PodDisruptionBudget pdb;
  pdb.mutable_metadata()->set_namespace_("default");
  pdb.mutable_metadata()->set_name(absl::StrCat("app", app));
  (*pdb.mutable_spec()->mutable_selector()->mutable_match_labels())["app"] =
      absl::StrCat("app", app);
  pdb.mutable_spec()->mutable_min_available()->set_number_value(kReplicas - 1);
  return pdb;
}

snapshot::ObjectSet MakeCluster() {
  snapshot::ObjectSet o;
  o.node_pools.push_back(MakeNodePool());
  for (int i = 0; i < kNodes; ++i) AddNode(o, i);
  int slot = 0;
  for (int app = 0; app < kApps; ++app) {
    for (int r = 0; r < kReplicas; ++r) {
      o.pods.push_back(MakePod(app, r, slot++ % kNodes));
    }
    o.pdbs.push_back(MakePdb(app));
  }
  return o;
}

bool InstanceTerminating(const v1::NodeClaim& claim) {
  for (const v1::Condition& c : claim.status().conditions()) {
    if (c.type() == "InstanceTerminating") return c.status() == "True";
  }
  return false;
}

struct World {
  World(bool pairs_once) : clock(kStart) {
    testing::FakeClusterOptions cluster_options;
    cluster_options.respect_capacity = true;
    cluster_options.record_call_log = false;
    absl::StatusOr<std::unique_ptr<testing::FakeCluster>> c =
        testing::FakeCluster::Create(MakeCluster(), clock, cluster_options);
    REQUIRE(c.ok());
    cluster = *std::move(c);
    testing::FakeCloudProviderOptions cloud_options;
    cloud_options.default_image_id = "image-1";
    cloud_options.record_call_log = false;
    absl::StatusOr<std::unique_ptr<testing::FakeCloudProvider>> p =
        testing::FakeCloudProvider::Create(clock, cloud_options);
    REQUIRE(p.ok());
    cloud = *std::move(p);
    for (int i = 0; i < kNodes; ++i) {
      Instance inst;
      inst.provider_id = ProviderId(i);
      inst.created = kStart - absl::Hours(24);
      inst.instance_type = "m5.large";
      inst.zone = "test-zone-a";
      inst.capacity_type = "on-demand";
      inst.image_id = "image-1";
      inst.tags["karpenter.sh/nodeclaim"] = NodeName(i);
      REQUIRE(cloud->AddInstance(inst).ok());
    }
    absl::StatusOr<std::unique_ptr<testing::FakeNodeLifecycle>> l =
        testing::FakeNodeLifecycle::Create(*cluster, *cloud, clock);
    REQUIRE(l.ok());
    lifecycle = *std::move(l);
    absl::StatusOr<std::unique_ptr<termination::Executor>> e =
        termination::Executor::Create(*cluster, *cluster, *cloud, events,
                                      metrics, clock, {});
    REQUIRE(e.ok());
    executor = *std::move(e);
    RunnerOptions options;
    options.orchestrator.rollout = Rollout::kBudget;
    options.controller.count_replacement_pairs_once = pairs_once;
    absl::StatusOr<std::unique_ptr<Runner>> r =
        Runner::Create(*cluster, *cloud, events, metrics, clock, options);
    REQUIRE(r.ok());
    runner = *std::move(r);
  }

  // Old nodes being disrupted now, as budgets count them: tainted by a
  // command or deleting, until the cloud accepted the instance's
  // termination (NodeClaim InstanceTerminating=True: drained, no pods left,
  // out of Karpenter's count).
  int DisruptingOldNodes() {
    absl::StatusOr<snapshot::Snapshot> s = cluster->Read();
    REQUIRE(s.ok());
    int n = 0;
    for (const v1::Node& node : s->nodes()) {
      if (node.metadata().name().rfind("old-", 0) != 0) continue;
      std::optional<snapshot::NodeClaimIndex> claim =
          s->FindNodeClaim(node.metadata().name());
      if (claim.has_value() && InstanceTerminating(s->node_claims()[*claim])) {
        continue;
      }
      bool tainted = false;
      for (const v1::Taint& t : node.spec().taints()) {
        tainted |= t.key() == "karpenter.sh/disrupted";
      }
      n += tainted || node.metadata().has_deletion_timestamp();
    }
    return n;
  }

  // Old Nodes and NodeClaims still present.
  int OldNodesLeft() {
    absl::StatusOr<snapshot::Snapshot> s = cluster->Read();
    REQUIRE(s.ok());
    auto old = [](const v1::ObjectMeta& m) {
      return m.name().rfind("old-", 0) == 0;
    };
    int n = 0;
    for (const v1::Node& x : s->nodes()) n += old(x.metadata());
    for (const v1::NodeClaim& x : s->node_claims()) n += old(x.metadata());
    return n;
  }

  // Steps until every old node is gone or `limit`; returns the most old
  // nodes disrupting at once.
  int Run(absl::Time limit) {
    int most = 0;
    while (clock.Now() <= limit && OldNodesLeft() > 0) {
      absl::StatusOr<RunReport> r = runner->RunOnce();
      REQUIRE(r.ok());
      for (const std::string& e : r->errors) UNSCOPED_INFO(e);
      absl::StatusOr<termination::PassReport> t = executor->RunOnce();
      REQUIRE(t.ok());
      absl::StatusOr<testing::LifecycleReport> l = lifecycle->Reconcile();
      REQUIRE(l.ok());
      most = std::max(most, DisruptingOldNodes());
      REQUIRE(cluster->PdbViolations().empty());
      REQUIRE(clock.Advance(absl::Seconds(1)).ok());
    }
    return most;
  }

  testing::FakeClock clock;
  std::unique_ptr<testing::FakeCluster> cluster;
  std::unique_ptr<testing::FakeCloudProvider> cloud;
  std::unique_ptr<testing::FakeNodeLifecycle> lifecycle;
  testing::RecordingEventRecorder events;
  testing::InMemoryMetrics metrics;
  std::unique_ptr<termination::Executor> executor;
  std::unique_ptr<Runner> runner;
};

TEST_CASE(
    "disruption e2e: an image change replaces 20 drifted nodes under a "
    "20 percent budget",
    "[disruption][e2e]") {
  World w(/*pairs_once=*/true);
  // Nothing drifts before the image changes.
  absl::StatusOr<RunReport> first = w.runner->RunOnce();
  REQUIRE(first.ok());
  CHECK(first->plan.commands.empty());
  w.cloud->SetImage("image-2");

  const int most = w.Run(kStart + absl::Hours(2));
  CHECK(w.OldNodesLeft() == 0);
  CHECK(most == 4);  // The budget, not seriality, paced the rollout.
  CHECK(w.cluster->PdbViolations().empty());

  // Every instance left belongs to a NodeClaim, and runs the new image.
  absl::StatusOr<snapshot::Snapshot> s = w.cluster->Read();
  REQUIRE(s.ok());
  std::set<std::string> claimed;
  for (const v1::NodeClaim& c : s->node_claims()) {
    claimed.insert(c.status().provider_id());
  }
  std::vector<Instance> instances = w.cloud->Instances();
  for (const Instance& i : instances) {
    CAPTURE(i.provider_id);
    CHECK(claimed.count(i.provider_id) == 1);
    CHECK(i.image_id == "image-2");
  }
  CHECK(instances.size() == s->node_claims().size());
  CHECK(s->nodes().size() == s->node_claims().size());
  // Every pod is back, bound to a new node.
  CHECK(s->pod_count() == kApps * kReplicas);
  for (uint32_t p_index = 0; p_index < s->pod_count(); ++p_index) {
    const v1::Pod p = s->DecodePod(p_index);
    CAPTURE(p.metadata().name());
    CHECK_FALSE(p.spec().node_name().empty());
    CHECK(p.spec().node_name().rfind("old-", 0) != 0);
  }
}

TEST_CASE(
    "disruption e2e: Karpenter's budget count lets a fifth node go while "
    "replacements exist",
    "[disruption][e2e]") {
  // Without count_replacement_pairs_once the 20% is taken of old and new
  // nodes together (24 while four replacements stand), which allows 5.
  World w(/*pairs_once=*/false);
  w.cloud->SetImage("image-2");
  const int most = w.Run(kStart + absl::Hours(2));
  CHECK(w.OldNodesLeft() == 0);
  CHECK(most == 5);
  CHECK(w.cluster->PdbViolations().empty());
}

}  // namespace
}  // namespace karpenter::disruption
