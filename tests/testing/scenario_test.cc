// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Scenario loading, validation and expansion (karpenter/testing/scenario.h).

#include "karpenter/testing/scenario.h"

#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/testing/fake_cluster.h"
#include "karpenter/time_util.h"

namespace karpenter::testing {
namespace {

constexpr absl::string_view kPool = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: general}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
  disruption:
    budgets: [{nodes: "20%"}]
)";

constexpr absl::string_view kScenario = R"(apiVersion: sim.karpenter-sdk.dev/v1
kind: Scenario
metadata: {name: small}
spec:
  start: "2024-01-08T08:00:00Z"
  until: 1h
  instanceTypes:
    - name: m5.xlarge
      capacity: {cpu: "4", memory: 16Gi, pods: "58"}
      offerings: [{zone: test-zone-a, capacityType: on-demand, price: 0.192}]
  generate:
    nodes:
      - {nodePool: general, count: 5, instanceType: m5.xlarge, age: 10h}
    workloads:
      - {name: web, replicas: 12, nodePool: general, cpu: 100m, pdb: {maxUnavailable: "1"}}
      - {name: ds, daemonSet: true, cpu: 10m}
      - {name: job, namespace: batch, replicas: 2, nodePool: general, job: true, doNotDisrupt: true}
)";

std::string Doc(absl::string_view a, absl::string_view b) {
  return absl::StrCat(a, "---\n", b);
}

TEST_CASE("scenario: loads the cluster and the one Scenario document",
          "[scenario]") {
  absl::StatusOr<LoadedScenario> s =
      LoadScenario(Doc(kPool, kScenario), "s.yaml");
  INFO(s.status().ToString());
  REQUIRE(s.ok());
  CHECK(s->cluster.node_pools.size() == 1);
  CHECK(s->cluster.skipped_kinds.empty());
  CHECK(s->scenario.metadata().name() == "small");
  CHECK(s->scenario.spec().generate().nodes(0).count() == 5);
  CHECK(s->scenario.spec().instance_types(0).offerings(0).price() == 0.192);
  CHECK(ScenarioEnd(s->scenario) - ScenarioStart(s->scenario) ==
        absl::Hours(1));
  CHECK(ValidateScenario(s->scenario).ok());
}

TEST_CASE("scenario: the JSON form loads too", "[scenario]") {
  const std::string json = R"([
    {"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
     "metadata": {"name": "general"}},
    {"apiVersion": "sim.karpenter-sdk.dev/v1", "kind": "Scenario",
     "metadata": {"name": "j"},
     "spec": {"start": "2024-01-08T08:00:00Z", "until": "30m",
              "changes": [{"at": "5m", "deleteNode": "n1"}]}}])";
  absl::StatusOr<LoadedScenario> s = LoadScenario(json, "s.json");
  INFO(s.status().ToString());
  REQUIRE(s.ok());
  CHECK(s->cluster.node_pools.size() == 1);
  CHECK(s->scenario.spec().changes(0).delete_node() == "n1");
  CHECK(ScenarioEnd(s->scenario) - ScenarioStart(s->scenario) ==
        absl::Minutes(30));
}

TEST_CASE("scenario: load errors name the source, document and field",
          "[scenario]") {
  struct Case {
    std::string text;
    std::string want;
  };
  const std::vector<Case> cases = {
      {std::string(kPool), "s.yaml: no Scenario document"},
      {Doc(kScenario, kScenario), "s.yaml: 2 Scenario documents"},
      {Doc(kPool,
           "apiVersion: sim.karpenter-sdk.dev/v1\nkind: Scenario\n"
           "spec:\n  generate:\n    nodes:\n      - {count: x}\n"),
       "s.yaml: document 2 (unnamed Scenario): spec.generate.nodes[0].count: "
       "expected a 32-bit integer, got \"x\" (line 18)"},
      {Doc(kPool, "kind: Scenario\nspec: [unclosed\n"),
       "YAML syntax error at line"},
      {"apiVersion: sim.karpenter-sdk.dev/v2\nkind: Scenario\n",
       "expected \"sim.karpenter-sdk.dev/v1\", got "
       "\"sim.karpenter-sdk.dev/v2\""},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    absl::StatusOr<LoadedScenario> s = LoadScenario(c.text, "s.yaml");
    REQUIRE_FALSE(s.ok());
    CHECK(s.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(s.status().message()), Catch::Contains(c.want));
  }
}

TEST_CASE("scenario: LoadDocumentsOfKind leaves out on error", "[scenario]") {
  std::vector<std::unique_ptr<google::protobuf::Message>> out;
  absl::Status s = snapshot::LoadDocumentsOfKind(
      Doc(kScenario, "kind: Scenario\nspec: {until: [1]}\n"), "x.yaml",
      "Scenario", v1::Scenario::default_instance(), out);
  CHECK_FALSE(s.ok());
  CHECK_THAT(
      std::string(s.message()),
      Catch::Contains("x.yaml: document 2 (unnamed Scenario): spec.until"));
  CHECK(out.empty());
}

v1::Scenario Valid() {
  absl::StatusOr<LoadedScenario> s =
      LoadScenario(Doc(kPool, kScenario), "s.yaml");
  REQUIRE(s.ok());
  return s->scenario;
}

TEST_CASE("scenario: validation names the field path and the value",
          "[scenario]") {
  struct Case {
    const char* name;
    std::function<void(v1::ScenarioSpec&)> edit;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"no start", [](v1::ScenarioSpec& s) { s.clear_start(); },
       "spec.start: must be set"},
      {"bad until", [](v1::ScenarioSpec& s) { s.set_until("3 hours"); },
       "spec.until: invalid duration \"3 hours\""},
      {"zero until", [](v1::ScenarioSpec& s) { s.set_until("0s"); },
       "spec.until: must be positive \"0s\""},
      {"duplicate type",
       [](v1::ScenarioSpec& s) {
         *s.add_instance_types() = s.instance_types(0);
       },
       "spec.instanceTypes[1].name: duplicate instance type \"m5.xlarge\""},
      {"bad capacity",
       [](v1::ScenarioSpec& s) {
         (*s.mutable_instance_types(0)->mutable_capacity())["cpu"] = "four";
       },
       "spec.instanceTypes[0].capacity[\"cpu\"]: invalid quantity \"four\""},
      {"negative price",
       [](v1::ScenarioSpec& s) {
         s.mutable_instance_types(0)->mutable_offerings(0)->set_price(-1);
       },
       "spec.instanceTypes[0].offerings[0].price: must be a finite number >= "
       "0 \"-1\""},
      {"negative count",
       [](v1::ScenarioSpec& s) {
         s.mutable_generate()->mutable_nodes(0)->set_count(-3);
       },
       "spec.generate.nodes[0].count: must be in [0, 10000] \"-3\""},
      {"huge count",
       [](v1::ScenarioSpec& s) {
         s.mutable_generate()->mutable_nodes(0)->set_count(2000000000);
       },
       "spec.generate.nodes[0].count: must be in [0, 10000] \"2000000000\""},
      {"unknown instance type",
       [](v1::ScenarioSpec& s) {
         s.mutable_generate()->mutable_nodes(0)->set_instance_type("m9.huge");
       },
       "spec.generate.nodes[0].instanceType: not in spec.instanceTypes: "
       "\"m9.huge\""},
      {"bad age",
       [](v1::ScenarioSpec& s) {
         s.mutable_generate()->mutable_nodes(0)->set_age("-1h");
       },
       "spec.generate.nodes[0].age: must not be negative \"-1h\""},
      {"duplicate workload",
       [](v1::ScenarioSpec& s) {
         *s.mutable_generate()->add_workloads() = s.generate().workloads(0);
       },
       "spec.generate.workloads[3].name: duplicate workload \"default/web\""},
      {"bad cpu",
       [](v1::ScenarioSpec& s) {
         s.mutable_generate()->mutable_workloads(0)->set_cpu("lots");
       },
       "spec.generate.workloads[0].cpu: invalid quantity \"lots\""},
      {"job and stateful set",
       [](v1::ScenarioSpec& s) {
         s.mutable_generate()->mutable_workloads(0)->set_job(true);
         s.mutable_generate()->mutable_workloads(0)->set_stateful_set(true);
       },
       "spec.generate.workloads[0]: set only one of daemonSet, job and "
       "statefulSet \"web\""},
      {"volume without stateful set",
       [](v1::ScenarioSpec& s) {
         s.mutable_generate()->mutable_workloads(0)->set_volume_size("10Gi");
       },
       "spec.generate.workloads[0].volumeSize: needs statefulSet: true for "
       "workload \"web\""},
      {"bad volume size",
       [](v1::ScenarioSpec& s) {
         s.mutable_generate()->mutable_workloads(0)->set_stateful_set(true);
         s.mutable_generate()->mutable_workloads(0)->set_volume_size("big");
       },
       "spec.generate.workloads[0].volumeSize: invalid quantity \"big\""},
      {"duration without job",
       [](v1::ScenarioSpec& s) {
         s.mutable_generate()->mutable_workloads(0)->set_duration("10m");
       },
       "spec.generate.workloads[0].duration: needs job: true for workload "
       "\"web\""},
      {"bad duration",
       [](v1::ScenarioSpec& s) {
         s.mutable_generate()->mutable_workloads(2)->set_duration("-5m");
       },
       "spec.generate.workloads[2].duration: must not be negative \"-5m\""},
      {"bad pdb",
       [](v1::ScenarioSpec& s) {
         s.mutable_generate()
             ->mutable_workloads(0)
             ->mutable_pdb()
             ->set_max_unavailable("150%");
       },
       "spec.generate.workloads[0].pdb.maxUnavailable: expected an integer "
       "or a percentage, got \"150%\""},
      {"workload without pool",
       [](v1::ScenarioSpec& s) {
         s.mutable_generate()->mutable_workloads(0)->clear_node_pool();
       },
       "spec.generate.workloads[0].nodePool: must be set for workload "
       "\"web\""},
      {"bad at",
       [](v1::ScenarioSpec& s) {
         s.add_changes()->set_at("soon");
         s.mutable_changes(0)->set_delete_node("n");
       },
       "spec.changes[0].at: invalid duration \"soon\""},
      {"unknown method",
       [](v1::ScenarioSpec& s) {
         v1::ScenarioChange* c = s.add_changes();
         c->set_at("1m");
         c->mutable_cloud_fault()->set_method("Terminate");
         c->mutable_cloud_fault()->set_code("Unavailable");
         c->mutable_cloud_fault()->set_times(1);
       },
       "spec.changes[0].cloudFault.method: unknown cloud method "
       "\"Terminate\""},
      {"unknown code",
       [](v1::ScenarioSpec& s) {
         v1::ScenarioChange* c = s.add_changes();
         c->set_at("1m");
         c->mutable_cloud_fault()->set_method("Delete");
         c->mutable_cloud_fault()->set_code("UNAVAILABLE");
         c->mutable_cloud_fault()->set_times(1);
       },
       "spec.changes[0].cloudFault.code: unknown status code "
       "\"UNAVAILABLE\""},
      {"zero times",
       [](v1::ScenarioSpec& s) {
         v1::ScenarioChange* c = s.add_changes();
         c->set_at("1m");
         c->mutable_eviction_fault()->set_http_status(429);
       },
       "spec.changes[0].evictionFault.times: must be in [1, 10000] \"0\""},
      {"huge times",
       [](v1::ScenarioSpec& s) {
         v1::ScenarioChange* c = s.add_changes();
         c->set_at("1m");
         c->mutable_eviction_fault()->set_http_status(429);
         c->mutable_eviction_fault()->set_times(10001);
       },
       "spec.changes[0].evictionFault.times: must be in [1, 10000] "
       "\"10001\""},
      {"bad http status",
       [](v1::ScenarioSpec& s) {
         v1::ScenarioChange* c = s.add_changes();
         c->set_at("1m");
         c->mutable_eviction_fault()->set_http_status(404);
         c->mutable_eviction_fault()->set_times(1);
       },
       "spec.changes[0].evictionFault.httpStatus: expected 0, 429 or 5xx, "
       "got \"404\""},
      {"no stale reads",
       [](v1::ScenarioSpec& s) {
         v1::ScenarioChange* c = s.add_changes();
         c->set_at("1m");
         c->mutable_stale_reads()->set_reads(0);
       },
       "spec.changes[0].staleReads.reads: must be in [1, 10000] \"0\""},
      {"readiness of no node",
       [](v1::ScenarioSpec& s) {
         v1::ScenarioChange* c = s.add_changes();
         c->set_at("1m");
         c->mutable_node_readiness()->set_ready(false);
       },
       "spec.changes[0].nodeReadiness.node: must be set"},
      {"empty change",
       [](v1::ScenarioSpec& s) { s.add_changes()->set_at("1m"); },
       "spec.changes[0]: sets no change (at \"1m)\""},
  };
  REQUIRE(cases.size() >= 10);
  for (const Case& c : cases) {
    CAPTURE(c.name);
    v1::Scenario s = Valid();
    c.edit(*s.mutable_spec());
    absl::Status status = ValidateScenario(s);
    CHECK(status.code() == absl::StatusCode::kInvalidArgument);
    CHECK(std::string(status.message()) == c.want);
  }
}

TEST_CASE("scenario: an at after until is accepted", "[scenario]") {
  v1::Scenario s = Valid();
  v1::ScenarioChange* c = s.mutable_spec()->add_changes();
  c->set_at("5h");
  c->set_delete_node("general-00");
  CHECK(ValidateScenario(s).ok());
}

TEST_CASE("scenario: generate expands to the exact counts", "[scenario]") {
  absl::StatusOr<LoadedScenario> s =
      LoadScenario(Doc(kPool, kScenario), "s.yaml");
  REQUIRE(s.ok());
  snapshot::ObjectSet cluster = s->cluster;
  REQUIRE(ExpandGenerated(s->scenario, cluster).ok());
  CHECK(cluster.nodes.size() == 5);
  CHECK(cluster.node_claims.size() == 5);
  CHECK(cluster.pods.size() == 12 + 5 + 2);
  CHECK(cluster.pdbs.size() == 1);
  const v1::Node& n = cluster.nodes[0];
  CHECK(n.metadata().name() == "general-00");
  CHECK(n.spec().provider_id() == "fake:///test-zone-a/i-general-00");
  CHECK(n.metadata().labels().at("karpenter.sh/nodepool") == "general");
  CHECK(n.metadata().labels().at("karpenter.sh/capacity-type") == "on-demand");
  CHECK(n.status().allocatable().at("cpu") == "4");
  CHECK(absl::FromUnixSeconds(n.metadata().creation_timestamp().seconds()) ==
        ScenarioStart(s->scenario) - absl::Hours(10));
  const v1::NodeClaim& c = cluster.node_claims[0];
  CHECK(c.status().node_name() == "general-00");
  CHECK(c.status().image_id() == kDefaultImage);
  CHECK(c.spec().node_class_ref().name() == "default");
  CHECK(c.status().conditions_size() == 3);
  // Round-robin over the pool's nodes by name.
  std::map<std::string, int> web_per_node;
  int daemons = 0, jobs = 0;
  for (const v1::Pod& p : cluster.pods) {
    const auto& owner = p.metadata().owner_references(0);
    if (owner.kind() == "ReplicaSet") ++web_per_node[p.spec().node_name()];
    daemons += owner.kind() == "DaemonSet";
    if (owner.kind() == "Job") {
      ++jobs;
      CHECK(p.metadata().annotations().at("karpenter.sh/do-not-disrupt") ==
            "true");
      CHECK(p.metadata().namespace_() == "batch");
    }
  }
  CHECK(daemons == 5);
  CHECK(jobs == 2);
  CHECK(web_per_node == std::map<std::string, int>{{"general-00", 3},
                                                   {"general-01", 3},
                                                   {"general-02", 2},
                                                   {"general-03", 2},
                                                   {"general-04", 2}});
  CHECK(cluster.pdbs[0].spec().max_unavailable().number_value() == 1);
}

TEST_CASE(
    "scenario: an instance type's overhead leaves allocatable below "
    "capacity",
    "[scenario][catalog]") {
  std::string scenario(kScenario);
  const std::string capacity =
      "      capacity: {cpu: \"4\", memory: 16Gi, pods: \"58\"}\n";
  REQUIRE(absl::StrContains(scenario, capacity));
  scenario.replace(scenario.find(capacity), capacity.size(),
                   capacity +
                       "      overhead: {kubeReserved: {cpu: 80m, memory: "
                       "893Mi}, evictionThreshold: {memory: 100Mi}}\n");
  absl::StatusOr<LoadedScenario> s =
      LoadScenario(Doc(kPool, scenario), "s.yaml");
  REQUIRE(s.ok());
  REQUIRE(ValidateScenario(s->scenario).ok());
  snapshot::ObjectSet cluster = s->cluster;
  REQUIRE(ExpandGenerated(s->scenario, cluster).ok());
  const v1::Node& n = cluster.nodes[0];
  CHECK(n.status().capacity().at("cpu") == "4");
  CHECK(n.status().capacity().at("memory") == "16Gi");
  CHECK(n.status().allocatable().at("cpu") == "3920m");
  CHECK(n.status().allocatable().at("memory") == "15391Mi");
  CHECK(n.status().allocatable().at("pods") == "58");
  // The same checks as a catalogue's, under spec.instanceTypes.
  (*s->scenario.mutable_spec()
        ->mutable_instance_types(0)
        ->mutable_overhead()
        ->mutable_system_reserved())["cpu"] = "4";
  CHECK(ValidateScenario(s->scenario).message() ==
        "spec.instanceTypes[0].overhead: cpu overhead \"4080m\" "
        "(kubeReserved + systemReserved + evictionThreshold) exceeds "
        "capacity \"4\"");
}

TEST_CASE("scenario: expansion errors leave the cluster unchanged",
          "[scenario]") {
  absl::StatusOr<LoadedScenario> s = LoadScenario(kScenario, "s.yaml");
  REQUIRE(s.ok());
  snapshot::ObjectSet cluster;
  absl::Status status = ExpandGenerated(s->scenario, cluster);
  CHECK(std::string(status.message()) ==
        "spec.generate.nodes[0].nodePool: no NodePool in the cluster named "
        "\"general\"");
  CHECK(cluster.nodes.empty());
}

TEST_CASE("scenario: StatefulSet and Job workloads", "[scenario]") {
  absl::StatusOr<LoadedScenario> s =
      LoadScenario(Doc(kPool, kScenario), "s.yaml");
  REQUIRE(s.ok());
  v1::WorkloadSpec& db = *s->scenario.mutable_spec()
                              ->mutable_generate()
                              ->mutable_workloads()
                              ->Add();
  db.set_name("db");
  db.set_replicas(2);
  db.set_node_pool("general");
  db.set_stateful_set(true);
  db.set_volume_size("10Gi");
  s->scenario.mutable_spec()
      ->mutable_generate()
      ->mutable_workloads(2)
      ->set_duration("15m");
  REQUIRE(ValidateScenario(s->scenario).ok());
  REQUIRE(ExpandGenerated(s->scenario, s->cluster).ok());
  std::map<std::string, const v1::Pod*> pods;
  for (const v1::Pod& p : s->cluster.pods) pods[p.metadata().name()] = &p;
  REQUIRE(pods.count("db-0") == 1);
  REQUIRE(pods.count("db-1") == 1);
  CHECK(pods["db-0"]->metadata().owner_references(0).kind() == "StatefulSet");
  CHECK(
      pods["db-1"]->spec().volumes(0).persistent_volume_claim().claim_name() ==
      "data-db-1");
  REQUIRE(s->cluster.storage_classes.size() == 1);
  CHECK(s->cluster.storage_classes[0].volume_binding_mode() ==
        "WaitForFirstConsumer");
  REQUIRE(s->cluster.persistent_volume_claims.size() == 2);
  REQUIRE(s->cluster.persistent_volumes.size() == 2);
  const v1::PersistentVolume& pv = s->cluster.persistent_volumes[0];
  CHECK(pv.spec().claim_ref().name() == "data-db-0");
  CHECK(pv.spec()
            .node_affinity()
            .required()
            .node_selector_terms(0)
            .match_expressions(0)
            .values(0) == "test-zone-a");
  CHECK(s->cluster.persistent_volume_claims[0].spec().volume_name() ==
        pv.metadata().name());
  // The Job runs for its duration from the scenario's start.
  const v1::Pod& job = *pods["job-000"];
  CHECK(job.metadata().annotations().at(
            std::string(FakeCluster::kRunForAnnotationKey)) == "15m");
  CHECK(TimeFromProto(job.status().start_time()) == ScenarioStart(s->scenario));
}

TEST_CASE("scenario: a dump without a Scenario loads with the defaults",
          "[scenario]") {
  constexpr absl::string_view kClaims = R"(apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata: {name: a, creationTimestamp: "2025-01-01T00:00:00Z", labels: {karpenter.sh/nodepool: general}}
status: {imageID: ami-2}
---
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata: {name: b, creationTimestamp: "2025-01-02T00:00:00Z", labels: {karpenter.sh/nodepool: general}}
status:
  imageID: ami-1
  conditions:
  - {type: Ready, status: "True", lastTransitionTime: "2025-01-03T04:05:06Z"}
---
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata: {name: c, labels: {karpenter.sh/nodepool: general}}
status: {imageID: ami-2}
)";
  absl::StatusOr<LoadedScenario> s =
      LoadScenarioOrDump(Doc(kPool, kClaims), "dump.yaml");
  REQUIRE(s.ok());
  CHECK_FALSE(s->has_scenario_document);
  CHECK(s->cluster.node_claims.size() == 3);
  CHECK(s->scenario.metadata().name() == "what-if");
  CHECK(s->scenario.api_version() == kScenarioApiVersion);
  CHECK_FALSE(s->scenario.spec().has_start());
  // The image two of three claims run.
  CHECK(s->scenario.spec().image() == "ami-2");
  // The latest timestamp: b's condition.
  const std::optional<absl::Time> at = DumpTime(s->cluster);
  REQUIRE(at.has_value());
  CHECK(*at == absl::FromCivil(absl::CivilSecond(2025, 1, 3, 4, 5, 6),
                               absl::UTCTimeZone()));
  CHECK_FALSE(DumpTime(snapshot::ObjectSet()).has_value());

  // With a Scenario document, as LoadScenario.
  absl::StatusOr<LoadedScenario> with =
      LoadScenarioOrDump(Doc(kPool, kScenario), "s.yaml");
  REQUIRE(with.ok());
  CHECK(with->has_scenario_document);
  CHECK(with->scenario.metadata().name() == "small");
  CHECK(LoadScenarioOrDump("kind: [", "bad.yaml").status().code() ==
        absl::StatusCode::kInvalidArgument);
}

TEST_CASE("scenario: change files hold NodePools and Scenario changes",
          "[scenario]") {
  constexpr absl::string_view kChanges = R"(apiVersion: sim.karpenter-sdk.dev/v1
kind: Scenario
metadata: {name: later}
spec:
  changes:
  - {at: 10m, deleteNode: n1}
  - {at: 20m, driftNodePool: {nodePool: general}}
)";
  absl::StatusOr<std::vector<v1::ScenarioChange>> c =
      LoadChanges(Doc(kChanges, kPool), "c.yaml");
  REQUIRE(c.ok());
  REQUIRE(c->size() == 3);
  // NodePools first, at the start; then the Scenario's, in order.
  CHECK((*c)[0].at() == "0s");
  CHECK((*c)[0].node_pool().metadata().name() == "general");
  CHECK((*c)[1].delete_node() == "n1");
  CHECK((*c)[2].drift_node_pool().node_pool() == "general");

  CHECK(LoadChanges("apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\n"
                    "apiVersion: v1\nkind: Pod\nmetadata: {name: b}\n",
                    "p.yaml")
            .status()
            .message() ==
        "p.yaml: a change file holds NodePools and Scenario changes; got 2 "
        "Pod");
  CHECK(LoadChanges(kScenario, "s.yaml").status().message() ==
        "s.yaml: Scenario document: only spec.changes is read from a change "
        "file; spec.start is set");
  CHECK(LoadChanges("", "empty.yaml").status().message() ==
        "empty.yaml: no NodePool and no Scenario changes");
  CHECK(absl::StrContains(
      LoadChanges("apiVersion: sim.karpenter-sdk.dev/v2\nkind: Scenario\n",
                  "v.yaml")
          .status()
          .message(),
      "Scenario apiVersion"));
}

}  // namespace
}  // namespace karpenter::testing
