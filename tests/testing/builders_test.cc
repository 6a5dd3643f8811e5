// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The test kit's builders (karpenter/testing/builders.h): every option lands
// in its field, the defaults are the documented ones, and a cluster built
// from them loads into a Snapshot that indexes it.

#include "karpenter/testing/builders.h"

#include <catch2/catch.hpp>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "karpenter/disruption/scheduler.h"
#include "karpenter/drain/classify.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/time_util.h"

namespace karpenter::testing {
namespace {

using Map = std::map<std::string, std::string>;

template <typename ProtoMap>
Map ToMap(const ProtoMap& m) {
  return Map(m.begin(), m.end());
}

TEST_CASE("builders: conditions, taints, tolerations, requirements",
          "[builders]") {
  const v1::Condition c = MakeCondition({.type = "Drifted",
                                         .reason = "AMIDrift",
                                         .message = "image changed",
                                         .since = kTestEpoch});
  CHECK(c.type() == "Drifted");
  CHECK(c.status() == "True");
  CHECK(c.reason() == "AMIDrift");
  CHECK(c.message() == "image changed");
  CHECK(TimeFromProto(c.last_transition_time()) == kTestEpoch);
  CHECK_FALSE(MakeCondition({.type = "Ready"}).has_last_transition_time());

  google::protobuf::RepeatedPtrField<v1::Condition> cs;
  SetCondition(&cs, {.type = "Ready", .status = "False"});
  SetCondition(&cs, {.type = "Drained", .status = "Unknown"});
  SetCondition(&cs, {.type = "Ready", .status = "True", .reason = "Kubelet"});
  REQUIRE(cs.size() == 2);
  CHECK(cs[0].type() == "Ready");
  CHECK(cs[0].status() == "True");
  CHECK(cs[0].reason() == "Kubelet");
  CHECK(cs[1].type() == "Drained");

  const v1::Taint t = MakeTaint("k", "v", "NoExecute");
  CHECK(t.key() == "k");
  CHECK(t.value() == "v");
  CHECK(t.effect() == "NoExecute");
  const v1::Taint d = DisruptedTaint();
  CHECK(d.key() == "karpenter.sh/disrupted");
  CHECK(d.value().empty());
  CHECK(d.effect() == "NoSchedule");

  const v1::Toleration tol = MakeToleration("k", "Equal", "v", "NoSchedule");
  CHECK(tol.key() == "k");
  CHECK(tol.operator_() == "Equal");
  CHECK(tol.value() == "v");
  CHECK(tol.effect() == "NoSchedule");
  CHECK(MakeToleration("", "Exists").key().empty());

  const v1::NodeSelectorRequirement r = MakeRequirement(
      "karpenter.sh/capacity-type", "In", {"spot", "on-demand"});
  CHECK(r.key() == "karpenter.sh/capacity-type");
  CHECK(r.operator_() == "In");
  CHECK(std::vector<std::string>(r.values().begin(), r.values().end()) ==
        std::vector<std::string>{"spot", "on-demand"});

  CHECK(ToMap(MakeLabelSelector({{"app", "web"}}).match_labels()) ==
        Map{{"app", "web"}});
  CHECK(MakeIntOrString("50%").string_value() == "50%");
  CHECK(MakeIntOrString("2").number_value() == 2);
  CHECK(MakeIntOrString("2").kind_case() ==
        google::protobuf::Value::kNumberValue);
}

TEST_CASE("builders: node defaults", "[builders]") {
  const v1::Node n = MakeNode();
  CHECK(n.metadata().name() == "node-a");
  CHECK(n.spec().provider_id() == "aws:///node-a");
  CHECK(ToMap(n.metadata().labels()) ==
        Map{{"karpenter.sh/nodepool", "default"},
            {"karpenter.sh/initialized", "true"}});
  CHECK(n.metadata().annotations().empty());
  CHECK(n.metadata().finalizers().empty());
  CHECK_FALSE(n.metadata().has_creation_timestamp());
  CHECK_FALSE(n.metadata().has_deletion_timestamp());
  CHECK(n.spec().taints().empty());
  CHECK_FALSE(n.spec().unschedulable());
  REQUIRE(n.status().conditions_size() == 1);
  CHECK(n.status().conditions(0).type() == "Ready");
  CHECK(n.status().conditions(0).status() == "True");
  CHECK_FALSE(n.status().conditions(0).has_last_transition_time());
  CHECK(n.status().capacity().empty());
  CHECK(n.status().allocatable().empty());
  CHECK(n.api_version().empty());
}

TEST_CASE("builders: every node option lands in its field", "[builders]") {
  const v1::Node n = MakeNode({
      .name = "n1",
      .provider_id = "aws:///us-west-2b/i-1",
      .nodepool = "batch",
      .initialized = false,
      .instance_type = "c5.xlarge",
      .zone = "us-west-2b",
      .capacity_type = "spot",
      .labels = {{"team", "a"}, {"karpenter.sh/capacity-type", "reserved"}},
      .annotations = {{"karpenter.sh/do-not-disrupt", "true"}},
      .taints = {DisruptedTaint()},
      .finalizers = {"karpenter.sh/termination"},
      .created = kTestEpoch - absl::Hours(2),
      .deleted = kTestEpoch,
      .unschedulable = true,
      .ready = "False",
      .ready_since = kTestEpoch - absl::Minutes(5),
      .ready_reason = "KubeletNotReady",
      .conditions = {{.type = "MemoryPressure", .status = "False"}},
      .cpu = "4",
      .memory = "16Gi",
      .pods = "58",
      .capacity = {{"ephemeral-storage", "100Gi"}},
      .allocatable = {{"cpu", "3900m"}},
  });
  CHECK(n.metadata().name() == "n1");
  CHECK(n.spec().provider_id() == "aws:///us-west-2b/i-1");
  CHECK(ToMap(n.metadata().labels()) ==
        Map{{"karpenter.sh/nodepool", "batch"},
            {"node.kubernetes.io/instance-type", "c5.xlarge"},
            {"topology.kubernetes.io/zone", "us-west-2b"},
            {"karpenter.sh/capacity-type", "reserved"},
            {"team", "a"}});
  CHECK(ToMap(n.metadata().annotations()) ==
        Map{{"karpenter.sh/do-not-disrupt", "true"}});
  REQUIRE(n.spec().taints_size() == 1);
  CHECK(n.spec().taints(0).key() == "karpenter.sh/disrupted");
  REQUIRE(n.metadata().finalizers_size() == 1);
  CHECK(n.metadata().finalizers(0) == "karpenter.sh/termination");
  CHECK(TimeFromProto(n.metadata().creation_timestamp()) ==
        kTestEpoch - absl::Hours(2));
  CHECK(TimeFromProto(n.metadata().deletion_timestamp()) == kTestEpoch);
  CHECK(n.spec().unschedulable());
  REQUIRE(n.status().conditions_size() == 2);
  CHECK(n.status().conditions(0).type() == "Ready");
  CHECK(n.status().conditions(0).status() == "False");
  CHECK(n.status().conditions(0).reason() == "KubeletNotReady");
  CHECK(TimeFromProto(n.status().conditions(0).last_transition_time()) ==
        kTestEpoch - absl::Minutes(5));
  CHECK(n.status().conditions(1).type() == "MemoryPressure");
  CHECK(ToMap(n.status().capacity()) == Map{{"cpu", "4"},
                                            {"memory", "16Gi"},
                                            {"pods", "58"},
                                            {"ephemeral-storage", "100Gi"}});
  CHECK(ToMap(n.status().allocatable()) ==
        Map{{"cpu", "3900m"}, {"memory", "16Gi"}, {"pods", "58"}});
}

TEST_CASE("builders: empty node options leave the fields out", "[builders]") {
  const v1::Node n = MakeNode(
      {.provider_id = "", .nodepool = "", .initialized = false, .ready = ""});
  CHECK(n.spec().provider_id().empty());
  CHECK(n.metadata().labels().empty());
  CHECK(n.status().conditions().empty());
}

TEST_CASE("builders: node claim defaults", "[builders]") {
  const v1::NodeClaim c = MakeNodeClaim();
  CHECK(c.metadata().name() == "node-a-claim");
  CHECK(c.status().node_name() == "node-a");
  CHECK(c.status().provider_id() == "aws:///node-a");
  CHECK(ToMap(c.metadata().labels()) ==
        Map{{"karpenter.sh/nodepool", "default"}});
  CHECK(c.status().conditions().empty());
  CHECK_FALSE(c.spec().has_expire_after());
  CHECK_FALSE(c.spec().has_termination_grace_period());
  CHECK(c.status().image_id().empty());
  CHECK_FALSE(c.status().has_last_pod_event_time());
  CHECK_FALSE(c.metadata().has_creation_timestamp());
  CHECK_FALSE(c.metadata().has_deletion_timestamp());

  const v1::NodeClaim joined =
      MakeNodeClaim({.conditions = LifecycleConditions(kTestEpoch)});
  std::vector<std::string> types;
  for (const v1::Condition& cond : joined.status().conditions()) {
    CHECK(cond.status() == "True");
    CHECK(TimeFromProto(cond.last_transition_time()) == kTestEpoch);
    types.push_back(cond.type());
  }
  CHECK(types ==
        std::vector<std::string>{"Launched", "Registered", "Initialized"});
  CHECK_FALSE(LifecycleConditions()[0].since.has_value());

  const v1::NodeClaim pending = MakeNodeClaim({.node_name = ""});
  CHECK(pending.metadata().name() == "claim");
  CHECK(pending.status().provider_id().empty());
}

TEST_CASE("builders: every node claim option lands in its field",
          "[builders]") {
  const v1::NodeClaim c = MakeNodeClaim({
      .name = "nc-1",
      .node_name = "n1",
      .provider_id = "aws:///us-west-2a/i-1",
      .nodepool = "batch",
      .instance_type = "m5.large",
      .zone = "us-west-2a",
      .capacity_type = "spot",
      .labels = {{"team", "a"}},
      .annotations = {{"karpenter.sh/nodepool-hash", "1"}},
      .finalizers = {"karpenter.sh/termination"},
      .created = kTestEpoch - absl::Hours(3),
      .deleted = kTestEpoch,
      .expire_after = "720h",
      .termination_grace_period = "1h",
      .requirements = {MakeRequirement("kubernetes.io/arch", "In", {"amd64"})},
      .taints = {MakeTaint("gpu", "", "NoSchedule")},
      .image_id = "ami-1",
      .launched = "True",
      .launched_since = kTestEpoch - absl::Hours(3),
      .registered = "Unknown",
      .registered_since = kTestEpoch - absl::Hours(2),
      .initialized = "",
      .conditions = {{.type = "Drifted",
                      .reason = "AMIDrift",
                      .since = kTestEpoch - absl::Minutes(1)}},
      .last_pod_event = kTestEpoch - absl::Seconds(30),
      .capacity = {{"cpu", "2"}},
  });
  CHECK(c.metadata().name() == "nc-1");
  CHECK(c.status().node_name() == "n1");
  CHECK(c.status().provider_id() == "aws:///us-west-2a/i-1");
  CHECK(ToMap(c.metadata().labels()) ==
        Map{{"karpenter.sh/nodepool", "batch"},
            {"node.kubernetes.io/instance-type", "m5.large"},
            {"topology.kubernetes.io/zone", "us-west-2a"},
            {"karpenter.sh/capacity-type", "spot"},
            {"team", "a"}});
  CHECK(ToMap(c.metadata().annotations()) ==
        Map{{"karpenter.sh/nodepool-hash", "1"}});
  REQUIRE(c.metadata().finalizers_size() == 1);
  CHECK(TimeFromProto(c.metadata().creation_timestamp()) ==
        kTestEpoch - absl::Hours(3));
  CHECK(TimeFromProto(c.metadata().deletion_timestamp()) == kTestEpoch);
  CHECK(c.spec().expire_after() == "720h");
  CHECK(c.spec().termination_grace_period() == "1h");
  REQUIRE(c.spec().requirements_size() == 1);
  CHECK(c.spec().requirements(0).key() == "kubernetes.io/arch");
  REQUIRE(c.spec().taints_size() == 1);
  CHECK(c.spec().taints(0).key() == "gpu");
  CHECK(c.status().image_id() == "ami-1");
  REQUIRE(c.status().conditions_size() == 3);
  CHECK(c.status().conditions(0).type() == "Launched");
  CHECK(TimeFromProto(c.status().conditions(0).last_transition_time()) ==
        kTestEpoch - absl::Hours(3));
  CHECK(c.status().conditions(1).type() == "Registered");
  CHECK(c.status().conditions(1).status() == "Unknown");
  CHECK(TimeFromProto(c.status().conditions(1).last_transition_time()) ==
        kTestEpoch - absl::Hours(2));
  CHECK(c.status().conditions(2).type() == "Drifted");
  CHECK(c.status().conditions(2).reason() == "AMIDrift");
  CHECK(TimeFromProto(c.status().last_pod_event_time()) ==
        kTestEpoch - absl::Seconds(30));
  CHECK(ToMap(c.status().capacity()) == Map{{"cpu", "2"}});
  CHECK(ToMap(c.status().allocatable()) == Map{{"cpu", "2"}});
}

TEST_CASE("builders: a managed node ties its claim to the node", "[builders]") {
  const ManagedNode m = MakeManagedNode(
      {.name = "n1", .provider_id = "fake:///z/i-1"},
      {.name = "c1", .node_name = "other", .provider_id = "other"});
  CHECK(m.node.metadata().name() == "n1");
  CHECK(m.node_claim.metadata().name() == "c1");
  CHECK(m.node_claim.status().node_name() == "n1");
  CHECK(m.node_claim.status().provider_id() == "fake:///z/i-1");
  const ManagedNode d = MakeManagedNode({.name = "n2"});
  CHECK(d.node_claim.metadata().name() == "n2-claim");
  CHECK(d.node_claim.status().provider_id() == "aws:///n2");
}

TEST_CASE("builders: pod defaults", "[builders]") {
  const v1::Pod p = MakePod();
  CHECK(p.metadata().name() == "p");
  CHECK(p.metadata().namespace_() == "default");
  CHECK(p.metadata().uid() == "uid-p");
  CHECK(ToMap(p.metadata().labels()) == Map{{"app", "web"}});
  CHECK(p.metadata().annotations().empty());
  CHECK(p.metadata().owner_references().empty());
  CHECK(p.spec().node_name() == "node-a");
  CHECK(p.spec().priority_class_name().empty());
  CHECK_FALSE(p.spec().has_priority());
  CHECK_FALSE(p.spec().has_termination_grace_period_seconds());
  CHECK(p.spec().containers().empty());
  CHECK(p.spec().volumes().empty());
  CHECK(p.status().phase() == "Running");
  REQUIRE(p.status().conditions_size() == 1);
  CHECK(p.status().conditions(0).type() == "Ready");
  CHECK(p.status().conditions(0).status() == "True");
  CHECK_FALSE(p.status().has_start_time());
}

TEST_CASE("builders: every pod option lands in its field", "[builders]") {
  const v1::Pod p = MakePod({
      .name = "web-0",
      .ns = "shop",
      .uid = "u-0",
      .app = "web",
      .node = "n1",
      .phase = "Pending",
      .owner = "ReplicaSet",
      .owner_name = "web-7f9",
      .owner_uid = "rs-1",
      .priority_class = "system-node-critical",
      .priority = 2000001000,
      .grace = 60,
      .labels = {{"tier", "front"}},
      .annotations = {{"karpenter.sh/do-not-disrupt", "true"}},
      .created = kTestEpoch - absl::Hours(1),
      .deleted = kTestEpoch,
      .started = kTestEpoch - absl::Minutes(50),
      .finalizers = {"example.com/hold"},
      .tolerations = {MakeToleration("", "Exists")},
      .cpu = "250m",
      .memory = "1Gi",
      .requests = {{"nvidia.com/gpu", "1"}},
      .pvcs = {"data"},
      .ephemeral_volumes = {"scratch"},
      .ready = "False",
      .ready_since = kTestEpoch - absl::Minutes(1),
  });
  CHECK(p.metadata().name() == "web-0");
  CHECK(p.metadata().namespace_() == "shop");
  CHECK(p.metadata().uid() == "u-0");
  CHECK(ToMap(p.metadata().labels()) == Map{{"app", "web"}, {"tier", "front"}});
  CHECK(ToMap(p.metadata().annotations()) ==
        Map{{"karpenter.sh/do-not-disrupt", "true"}});
  REQUIRE(p.metadata().owner_references_size() == 1);
  const v1::OwnerReference& ref = p.metadata().owner_references(0);
  CHECK(ref.api_version() == "apps/v1");
  CHECK(ref.kind() == "ReplicaSet");
  CHECK(ref.name() == "web-7f9");
  CHECK(ref.uid() == "rs-1");
  CHECK(ref.controller());
  CHECK(TimeFromProto(p.metadata().creation_timestamp()) ==
        kTestEpoch - absl::Hours(1));
  CHECK(TimeFromProto(p.metadata().deletion_timestamp()) == kTestEpoch);
  REQUIRE(p.metadata().finalizers_size() == 1);
  CHECK(p.spec().node_name() == "n1");
  CHECK(p.spec().priority_class_name() == "system-node-critical");
  CHECK(p.spec().priority() == 2000001000);
  CHECK(p.spec().termination_grace_period_seconds() == 60);
  REQUIRE(p.spec().tolerations_size() == 1);
  CHECK(p.spec().tolerations(0).operator_() == "Exists");
  REQUIRE(p.spec().containers_size() == 1);
  CHECK(p.spec().containers(0).name() == "main");
  CHECK(ToMap(p.spec().containers(0).resources().requests()) ==
        Map{{"cpu", "250m"}, {"memory", "1Gi"}, {"nvidia.com/gpu", "1"}});
  REQUIRE(p.spec().volumes_size() == 2);
  CHECK(p.spec().volumes(0).name() == "vol-data");
  CHECK(p.spec().volumes(0).persistent_volume_claim().claim_name() == "data");
  CHECK(p.spec().volumes(1).name() == "scratch");
  CHECK(p.spec().volumes(1).has_ephemeral());
  CHECK(p.status().phase() == "Pending");
  REQUIRE(p.status().conditions_size() == 1);
  CHECK(p.status().conditions(0).status() == "False");
  CHECK(TimeFromProto(p.status().conditions(0).last_transition_time()) ==
        kTestEpoch - absl::Minutes(1));
  CHECK(TimeFromProto(p.status().start_time()) ==
        kTestEpoch - absl::Minutes(50));
  const auto requests = disruption::PodRequests(p);
  REQUIRE(requests.ok());
  CHECK(requests->size() == 4);  // cpu, memory, gpu and pods.
}

TEST_CASE("builders: pod owners", "[builders]") {
  struct Case {
    PodOptions options;
    std::string api_version;
    std::string kind;
    std::string name;
  };
  const std::vector<Case> cases = {
      {{.owner = "ReplicaSet"}, "apps/v1", "ReplicaSet", "web"},
      {{.owner = "DaemonSet"}, "apps/v1", "DaemonSet", "web"},
      {{.owner = "StatefulSet"}, "apps/v1", "StatefulSet", "web"},
      {{.owner = "Job"}, "batch/v1", "Job", "web"},
      {{.owner = "Node", .owner_name = "n1"}, "v1", "Node", "n1"},
      {{.app = "", .owner = "apps/v1/DaemonSet"},
       "apps/v1",
       "DaemonSet",
       "owner"},
      {{.owner = "extensions/v1beta1/DaemonSet"},
       "extensions/v1beta1",
       "DaemonSet",
       "web"},
  };
  for (const Case& c : cases) {
    INFO(c.options.owner);
    const v1::Pod p = MakePod(c.options);
    REQUIRE(p.metadata().owner_references_size() == 1);
    const v1::OwnerReference& ref = p.metadata().owner_references(0);
    CHECK(ref.api_version() == c.api_version);
    CHECK(ref.kind() == c.kind);
    CHECK(ref.name() == c.name);
    CHECK(ref.uid() == "ctrl-" + c.name);
    CHECK(ref.controller());
  }
  CHECK(drain::IsOwnedByDaemonSet(MakePod({.owner = "DaemonSet"})));
  CHECK(drain::IsOwnedByNode(MakePod({.owner = "Node"})));
  const v1::Pod plain =
      MakePod({.owner = "ReplicaSet", .owner_controller = false});
  CHECK_FALSE(plain.metadata().owner_references(0).has_controller());
  const v1::Pod bare = MakePod({.uid = "", .app = "", .ready = ""});
  CHECK(bare.metadata().uid().empty());
  CHECK(bare.metadata().labels().empty());
  CHECK(bare.status().conditions().empty());
}

TEST_CASE("builders: pdbs", "[builders]") {
  const v1::PodDisruptionBudget d = MakePdb();
  CHECK(d.metadata().name() == "pdb");
  CHECK(d.metadata().namespace_() == "default");
  CHECK(ToMap(d.spec().selector().match_labels()) == Map{{"app", "web"}});
  CHECK_FALSE(d.spec().has_min_available());
  CHECK_FALSE(d.spec().has_max_unavailable());
  CHECK(d.spec().unhealthy_pod_eviction_policy().empty());
  CHECK_FALSE(d.has_status());

  const v1::PodDisruptionBudget p =
      MakePdb({.name = "db",
               .ns = "data",
               .selector = Labels{{"app", "db"}, {"tier", "back"}},
               .min_available = "50%",
               .max_unavailable = "1",
               .unhealthy_pod_eviction_policy = "AlwaysAllow",
               .disruptions_allowed = 2,
               .expected_pods = 4,
               .current_healthy = 3,
               .desired_healthy = 1});
  CHECK(p.metadata().name() == "db");
  CHECK(p.metadata().namespace_() == "data");
  CHECK(ToMap(p.spec().selector().match_labels()) ==
        Map{{"app", "db"}, {"tier", "back"}});
  CHECK(p.spec().min_available().string_value() == "50%");
  CHECK(p.spec().max_unavailable().number_value() == 1);
  CHECK(p.spec().unhealthy_pod_eviction_policy() == "AlwaysAllow");
  CHECK(p.status().disruptions_allowed() == 2);
  CHECK(p.status().observed_generation() == 1);
  CHECK(p.status().expected_pods() == 4);
  CHECK(p.status().current_healthy() == 3);
  CHECK(p.status().desired_healthy() == 1);

  CHECK_FALSE(MakePdb({.selector = std::nullopt}).spec().has_selector());
  const v1::PodDisruptionBudget all = MakePdb({.selector = Labels{}});
  CHECK(all.spec().has_selector());
  CHECK(all.spec().selector().match_labels().empty());
}

TEST_CASE("builders: node pools and budgets", "[builders]") {
  const v1::NodePool d = MakeNodePool();
  CHECK(d.metadata().name() == "default");
  CHECK(d.metadata().annotations().empty());
  CHECK(d.spec().disruption().consolidation_policy().empty());
  CHECK_FALSE(d.spec().disruption().has_consolidate_after());
  CHECK(d.spec().disruption().budgets().empty());
  CHECK_FALSE(d.spec().template_().spec().has_node_class_ref());
  CHECK_FALSE(d.spec().has_weight());
  CHECK_FALSE(d.spec().has_replicas());

  const v1::NodePool p = MakeNodePool({
      .name = "gpu",
      .labels = {{"team", "ml"}},
      .annotations = {{"note", "x"}},
      .hash = "123",
      .consolidation_policy = "WhenEmpty",
      .consolidate_after = "30s",
      .budgets = {{.nodes = "0",
                   .schedule = "0 9 * * mon-fri",
                   .duration = "8h",
                   .reasons = {"Drifted"}},
                  {}},
      .limits = {{"cpu", "1000"}},
      .weight = 10,
      .replicas = 3,
      .template_labels = {{"team", "a"}},
      .template_annotations = {{"owner", "b"}},
      .node_class = "default",
      .requirements = {MakeRequirement("karpenter.sh/capacity-type", "In",
                                       {"on-demand"})},
      .taints = {MakeTaint("gpu", "true", "NoSchedule")},
      .startup_taints = {MakeTaint("init", "", "NoExecute")},
      .expire_after = "Never",
      .termination_grace_period = "2h",
  });
  CHECK(p.metadata().name() == "gpu");
  CHECK(ToMap(p.metadata().labels()) == Map{{"team", "ml"}});
  CHECK(ToMap(p.metadata().annotations()) ==
        Map{{"note", "x"},
            {"karpenter.sh/nodepool-hash", "123"},
            {"karpenter.sh/nodepool-hash-version", "v3"}});
  const v1::Disruption& dis = p.spec().disruption();
  CHECK(dis.consolidation_policy() == "WhenEmpty");
  CHECK(dis.consolidate_after() == "30s");
  REQUIRE(dis.budgets_size() == 2);
  CHECK(dis.budgets(0).nodes() == "0");
  CHECK(dis.budgets(0).schedule() == "0 9 * * mon-fri");
  CHECK(dis.budgets(0).duration() == "8h");
  REQUIRE(dis.budgets(0).reasons_size() == 1);
  CHECK(dis.budgets(0).reasons(0) == "Drifted");
  CHECK(dis.budgets(1).nodes() == "10%");
  CHECK_FALSE(dis.budgets(1).has_schedule());
  CHECK(dis.budgets(1).reasons().empty());
  CHECK(ToMap(p.spec().limits()) == Map{{"cpu", "1000"}});
  CHECK(p.spec().weight() == 10);
  CHECK(p.spec().replicas() == 3);
  const v1::NodeClaimTemplate& t = p.spec().template_();
  CHECK(ToMap(t.metadata().labels()) == Map{{"team", "a"}});
  CHECK(ToMap(t.metadata().annotations()) == Map{{"owner", "b"}});
  CHECK(t.spec().node_class_ref().group() == "karpenter.k8s.aws");
  CHECK(t.spec().node_class_ref().kind() == "EC2NodeClass");
  CHECK(t.spec().node_class_ref().name() == "default");
  REQUIRE(t.spec().requirements_size() == 1);
  CHECK(t.spec().requirements(0).values(0) == "on-demand");
  REQUIRE(t.spec().taints_size() == 1);
  CHECK(t.spec().taints(0).key() == "gpu");
  REQUIRE(t.spec().startup_taints_size() == 1);
  CHECK(t.spec().startup_taints(0).key() == "init");
  CHECK(t.spec().expire_after() == "Never");
  CHECK(t.spec().termination_grace_period() == "2h");
}

TEST_CASE("builders: volume attachments and claims", "[builders]") {
  const v1::VolumeAttachment d = MakeVolumeAttachment();
  CHECK(d.metadata().name() == "va");
  CHECK(d.spec().node_name() == "node-a");
  CHECK(d.spec().attacher() == "ebs.csi.aws.com");
  CHECK_FALSE(d.spec().source().has_persistent_volume_name());
  CHECK(d.status().attached());
  const v1::VolumeAttachment v =
      MakeVolumeAttachment({.name = "va-1",
                            .node = "n1",
                            .persistent_volume = "pv-1",
                            .attacher = "x",
                            .attached = false});
  CHECK(v.metadata().name() == "va-1");
  CHECK(v.spec().node_name() == "n1");
  CHECK(v.spec().source().persistent_volume_name() == "pv-1");
  CHECK(v.spec().attacher() == "x");
  CHECK_FALSE(v.status().attached());

  const v1::PersistentVolumeClaim c = MakePersistentVolumeClaim();
  CHECK(c.metadata().name() == "data");
  CHECK(c.metadata().namespace_() == "default");
  CHECK(c.spec().volume_name().empty());
  const v1::PersistentVolumeClaim b = MakePersistentVolumeClaim(
      {.name = "logs", .ns = "a", .volume_name = "pv-logs"});
  CHECK(b.metadata().name() == "logs");
  CHECK(b.metadata().namespace_() == "a");
  CHECK(b.spec().volume_name() == "pv-logs");
  CHECK_FALSE(b.spec().has_storage_class_name());
  const v1::PersistentVolumeClaim none =
      MakePersistentVolumeClaim({.storage_class = ""});
  CHECK(none.spec().has_storage_class_name());
  CHECK(none.spec().storage_class_name().empty());
}

TEST_CASE("builders: persistent volumes, classes, CSINodes, DaemonSets",
          "[builders]") {
  const v1::PersistentVolume pv = MakePersistentVolume();
  CHECK(pv.metadata().name() == "pv");
  CHECK(ToMap(pv.spec().capacity()) == Map{{"storage", "10Gi"}});
  CHECK(pv.spec().access_modes(0) == "ReadWriteOnce");
  CHECK(pv.spec().storage_class_name() == "gp3");
  CHECK_FALSE(pv.spec().has_claim_ref());
  CHECK(pv.spec().csi().driver() == "ebs.csi.aws.com");
  CHECK(pv.spec().csi().volume_handle() == "vol-pv");
  CHECK_FALSE(pv.spec().has_node_affinity());
  CHECK(pv.status().phase() == "Available");
  const v1::PersistentVolume bound = MakePersistentVolume(
      {.name = "pv-1",
       .storage = "",
       .storage_class = "",
       .claim = "data",
       .claim_ns = "db",
       .csi_driver = "",
       .node_affinity = {MakeRequirement("zone", "In", {"a"})}});
  CHECK(bound.spec().capacity().empty());
  CHECK(bound.spec().storage_class_name().empty());
  CHECK(bound.spec().claim_ref().kind() == "PersistentVolumeClaim");
  CHECK(bound.spec().claim_ref().namespace_() == "db");
  CHECK(bound.spec().claim_ref().name() == "data");
  CHECK_FALSE(bound.spec().has_csi());
  const auto& terms =
      bound.spec().node_affinity().required().node_selector_terms();
  REQUIRE(terms.size() == 1);
  REQUIRE(terms[0].match_expressions_size() == 1);
  CHECK(terms[0].match_expressions(0).key() == "zone");
  CHECK(bound.status().phase() == "Bound");

  const v1::StorageClass sc = MakeStorageClass();
  CHECK(sc.metadata().name() == "gp3");
  CHECK(sc.metadata().annotations().empty());
  CHECK_FALSE(sc.metadata().has_creation_timestamp());
  CHECK(sc.provisioner() == "ebs.csi.aws.com");
  CHECK(sc.volume_binding_mode() == "WaitForFirstConsumer");
  CHECK(sc.reclaim_policy() == "Delete");
  CHECK(sc.allowed_topologies().empty());
  const v1::StorageClass def = MakeStorageClass(
      {.name = "io2",
       .provisioner = "p",
       .volume_binding_mode = std::nullopt,
       .reclaim_policy = "Retain",
       .is_default = true,
       .created = kTestEpoch,
       .allowed_topologies = {{"zone", {"a", "b"}}, {"rack", {"r"}}}});
  CHECK(def.metadata().annotations().at(
            "storageclass.kubernetes.io/is-default-class") == "true");
  CHECK(def.metadata().creation_timestamp().seconds() == 1704067200);
  CHECK_FALSE(def.has_volume_binding_mode());
  CHECK(def.reclaim_policy() == "Retain");
  REQUIRE(def.allowed_topologies_size() == 1);
  const auto& exprs = def.allowed_topologies(0).match_label_expressions();
  REQUIRE(exprs.size() == 2);
  CHECK(exprs[0].key() == "rack");  // key order
  CHECK(exprs[1].key() == "zone");
  CHECK(exprs[1].values_size() == 2);

  const v1::CSINode csi = MakeCSINode();
  CHECK(csi.metadata().name() == "node-a");
  REQUIRE(csi.spec().drivers_size() == 1);
  CHECK(csi.spec().drivers(0).name() == "ebs.csi.aws.com");
  CHECK(csi.spec().drivers(0).node_id() == "i-node-a");
  CHECK(csi.spec().drivers(0).allocatable().count() == 25);
  CHECK(csi.spec().drivers(0).topology_keys(0) ==
        "topology.ebs.csi.aws.com/zone");
  const v1::CSINode unlimited = MakeCSINode(
      {.name = "n1", .node_id = "i-9", .allocatable = std::nullopt});
  CHECK(unlimited.spec().drivers(0).node_id() == "i-9");
  CHECK_FALSE(unlimited.spec().drivers(0).has_allocatable());
  CHECK(MakeCSINode({.driver = ""}).spec().drivers().empty());

  const v1::DaemonSet ds = MakeDaemonSet();
  CHECK(ds.metadata().name() == "agent");
  CHECK(ds.metadata().namespace_() == "kube-system");
  CHECK(ToMap(ds.spec().selector().match_labels()) == Map{{"app", "agent"}});
  CHECK(ToMap(ds.spec().template_().metadata().labels()) ==
        Map{{"app", "agent"}});
  CHECK(ds.spec().template_().spec().containers().empty());
  const v1::DaemonSet sized =
      MakeDaemonSet({.name = "cni",
                     .labels = {{"k8s-app", "cni"}},
                     .cpu = "25m",
                     .memory = "64Mi",
                     .requests = {{"memory", "80Mi"}},
                     .tolerations = {MakeToleration("", "Exists")},
                     .priority_class = "system-node-critical"});
  CHECK(ToMap(sized.spec().selector().match_labels()) ==
        Map{{"k8s-app", "cni"}});
  const v1::PodSpec& spec = sized.spec().template_().spec();
  REQUIRE(spec.containers_size() == 1);
  CHECK(ToMap(spec.containers(0).resources().requests()) ==
        Map{{"cpu", "25m"}, {"memory", "80Mi"}});
  CHECK(spec.tolerations_size() == 1);
  CHECK(spec.priority_class_name() == "system-node-critical");
}

TEST_CASE("builders: instance types and catalogues", "[builders]") {
  const InstanceType d = MakeInstanceType();
  CHECK(d.name == "m5.large");
  CHECK(d.capacity == Map{{"cpu", "2"}, {"memory", "8Gi"}, {"pods", "29"}});
  REQUIRE(d.offerings.size() == 1);
  CHECK(d.offerings[0].zone == "us-west-2a");
  CHECK(d.offerings[0].capacity_type == "on-demand");
  CHECK(d.offerings[0].price == 0.096);
  CHECK(d.offerings[0].available);
  CHECK(d.labels.empty());

  const InstanceType t = MakeInstanceType({
      .name = "big",
      .cpu = "8",
      .memory = "",
      .pods = "110",
      .capacity = {{"memory", "32Gi"}},
      .zones = {"a", "b"},
      .on_demand_price = 0.4,
      .spot_price = 0.1,
      .offerings = {{"c", "spot", 0.2, false}},
      .labels = {{"kubernetes.io/arch", "arm64"}},
  });
  CHECK(t.capacity == Map{{"cpu", "8"}, {"memory", "32Gi"}, {"pods", "110"}});
  REQUIRE(t.offerings.size() == 5);
  CHECK(t.offerings[0].zone == "a");
  CHECK(t.offerings[0].capacity_type == "on-demand");
  CHECK(t.offerings[1].capacity_type == "spot");
  CHECK(t.offerings[1].price == 0.1);
  CHECK(t.offerings[2].zone == "b");
  CHECK(t.offerings[4].zone == "c");
  CHECK_FALSE(t.offerings[4].available);
  CHECK(t.labels == Map{{"kubernetes.io/arch", "arm64"}});
  CHECK(MakeInstanceType({.on_demand_price = std::nullopt}).offerings.empty());

  const InstanceTypeCatalog catalog = MakeCatalog({"a", "b"}, {d, t});
  REQUIRE(catalog.size() == 2);
  CHECK(catalog.at("a").size() == 2);
  CHECK(catalog.at("b")[1].name == "big");
}

TEST_CASE("builders: a cluster of builder objects loads and indexes",
          "[builders]") {
  ClusterBuilder cluster;
  cluster.AddNodePool({.name = "default"})
      .AddManagedNode({.name = "n1"})
      .AddManagedNode({.name = "n2"}, {.name = "c2"})
      .AddNode({.name = "unmanaged", .nodepool = ""})
      .AddNodeClaim({.name = "pending", .node_name = ""})
      .AddPod({.name = "a", .node = "n1", .owner = "ReplicaSet"})
      .AddPod({.name = "b", .node = "n1", .owner = "DaemonSet"})
      .AddPod({.name = "c", .node = "n2"})
      .AddPod({.name = "unbound", .node = ""})
      .AddPdb({.name = "web", .min_available = "1"})
      .AddVolumeAttachment(
          {.name = "va-1", .node = "n1", .persistent_volume = "pv-1"})
      .AddPersistentVolumeClaim({.name = "data", .volume_name = "pv-1"});
  CHECK(cluster.objects().nodes.size() == 3);
  CHECK(cluster.objects().node_claims.size() == 3);

  absl::StatusOr<snapshot::Snapshot> copy = cluster.Build();
  REQUIRE(copy.ok());
  CHECK(cluster.objects().pods.size() == 4);  // Build() const& copies.

  absl::StatusOr<snapshot::Snapshot> built = std::move(cluster).Build();
  INFO(built.status().ToString());
  REQUIRE(built.ok());
  const snapshot::Snapshot& s = *built;
  CHECK(s.nodes().size() == 3);
  CHECK(s.node_claims().size() == 3);
  CHECK(s.node_pools().size() == 1);
  CHECK(s.pdbs().size() == 1);
  CHECK(s.pod_count() == 4);
  CHECK(s.volume_attachments().size() == 1);

  const std::optional<snapshot::NodeIndex> n1 = s.FindNode("n1");
  REQUIRE(n1.has_value());
  std::vector<std::string> on_n1;
  for (snapshot::PodIndex p : s.PodsOnNode(*n1)) {
    on_n1.push_back(s.DecodePod(p).metadata().name());
  }
  CHECK(on_n1 == std::vector<std::string>{"a", "b"});
  CHECK(s.UnboundPods().size() == 1);
  CHECK(s.FindNodeClaim("n1-claim").has_value());
  CHECK(s.FindNodeClaim("c2").has_value());
  CHECK(s.FindNodeClaim("pending").has_value());
  CHECK(s.FindPod("default", "c").has_value());
  CHECK_FALSE(s.FindNode("n3").has_value());
}

TEST_CASE("builders: a cluster builder hands its objects over", "[builders]") {
  snapshot::ObjectSet start;
  start.nodes.push_back(MakeNode({.name = "loaded"}));
  ClusterBuilder cluster(std::move(start));
  cluster.Add(MakeNode({.name = "added"}))
      .Add(MakePod())
      .Add(MakeNodeClaim())
      .Add(MakePdb())
      .Add(MakeNodePool())
      .Add(MakeVolumeAttachment())
      .Add(MakePersistentVolumeClaim())
      .Add(MakePersistentVolume())
      .Add(MakeStorageClass())
      .Add(MakeCSINode())
      .Add(MakeDaemonSet())
      .AddPersistentVolume({.name = "pv-2"})
      .AddStorageClass({.name = "io2"})
      .AddCSINode({.name = "node-b"})
      .AddDaemonSet({.name = "agent-2"});
  snapshot::ObjectSet objects = cluster.TakeObjects();
  CHECK(objects.nodes.size() == 2);
  CHECK(objects.nodes[0].metadata().name() == "loaded");
  CHECK(objects.pods.size() == 1);
  CHECK(objects.node_claims.size() == 1);
  CHECK(objects.pdbs.size() == 1);
  CHECK(objects.node_pools.size() == 1);
  CHECK(objects.volume_attachments.size() == 1);
  CHECK(objects.persistent_volume_claims.size() == 1);
  CHECK(objects.persistent_volumes.size() == 2);
  CHECK(objects.storage_classes.size() == 2);
  CHECK(objects.csi_nodes.size() == 2);
  REQUIRE(objects.daemon_sets.size() == 2);
  CHECK(objects.daemon_sets[1].metadata().name() == "agent-2");
  CHECK(cluster.objects().nodes.empty());
  // Two Nodes of one name do not build.
  cluster.AddNode({.name = "x"}).AddNode({.name = "x"});
  CHECK_FALSE(cluster.Build().ok());
}

}  // namespace
}  // namespace karpenter::testing
