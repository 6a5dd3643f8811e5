// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/snapshot/load.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "google/protobuf/util/message_differencer.h"

namespace karpenter::snapshot {
namespace {

std::string TestData(absl::string_view name) {
  return absl::StrCat(KARPENTER_TESTDATA_DIR, "/", name);
}

ObjectSet MustLoad(absl::string_view text, absl::string_view source = "t") {
  ObjectSet set;
  const absl::Status s = LoadText(text, source, set);
  INFO(s.ToString());
  REQUIRE(s.ok());
  return set;
}

std::string LoadError(absl::string_view text, absl::string_view source) {
  ObjectSet set;
  const absl::Status s = LoadText(text, source, set);
  INFO(text);
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  // A failed load leaves the set untouched.
  CHECK(set.pods.empty());
  CHECK(set.nodes.empty());
  CHECK(set.skipped_kinds.empty());
  return std::string(s.message());
}

TEST_CASE("snapshot load: every file form kubectl and manifests produce",
          "[snapshot]") {
  struct Case {
    const char* file;
    size_t nodes, pods, pdbs, pools, claims;
    std::map<std::string, int64_t> skipped;
  };
  const std::vector<Case> cases = {
      {"pod-web.json", 0, 1, 0, 0, 0, {}},
      {"pod-batch.yaml", 0, 1, 0, 0, 0, {}},
      {"pdb-web-min-available.yaml", 0, 0, 1, 0, 0, {}},
      {"pdb-db-max-unavailable.json", 0, 0, 1, 0, 0, {}},
      {"pdb-zero-max-unavailable.yaml", 0, 0, 1, 0, 0, {}},
      {"deployment-web.yaml", 0, 0, 0, 0, 0, {{"Deployment", 1}}},
      {"deployment-api.json", 0, 0, 0, 0, 0, {{"Deployment", 1}}},
      {"node.json", 1, 0, 0, 0, 0, {}},
      {"nodelist.json", 2, 0, 0, 0, 0, {}},
      {"nodeclaim.yaml", 0, 0, 0, 0, 1, {}},
      {"nodepool-v1.yaml", 0, 0, 0, 1, 0, {}},
      {"nodepool-v1beta1.yaml", 0, 0, 0, 1, 0, {}},
      {"cluster-list.yaml", 2, 4, 1, 1, 2, {}},
      {"cluster-list.json", 2, 4, 1, 1, 2, {}},
      {"multi-document.yaml", 0, 1, 2, 1, 0, {{"Service", 1}}},
  };
  for (const Case& c : cases) {
    INFO(c.file);
    ObjectSet set;
    const absl::Status s = LoadFile(TestData(c.file), set);
    INFO(s.ToString());
    REQUIRE(s.ok());
    CHECK(set.nodes.size() == c.nodes);
    CHECK(set.pods.size() == c.pods);
    CHECK(set.pdbs.size() == c.pdbs);
    CHECK(set.node_pools.size() == c.pools);
    CHECK(set.node_claims.size() == c.claims);
    CHECK(set.skipped_kinds == c.skipped);
  }
}

TEST_CASE("snapshot load: YAML and JSON of one List decode identically",
          "[snapshot]") {
  ObjectSet yaml, json;
  REQUIRE(LoadFile(TestData("cluster-list.yaml"), yaml).ok());
  REQUIRE(LoadFile(TestData("cluster-list.json"), json).ok());
  using google::protobuf::util::MessageDifferencer;
  auto same = [](const auto& a, const auto& b) {
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      std::string diff;
      MessageDifferencer d;
      d.ReportDifferencesToString(&diff);
      INFO(diff);
      CHECK(d.Compare(a[i], b[i]));
    }
  };
  same(yaml.nodes, json.nodes);
  same(yaml.pods, json.pods);
  same(yaml.pdbs, json.pdbs);
  same(yaml.node_pools, json.node_pools);
  same(yaml.node_claims, json.node_claims);

  // Spot-check what the List carries.
  const v1::Node& node = json.nodes[0];
  CHECK(node.kind() == "Node");
  CHECK(node.spec().provider_id() == "aws:///us-west-2a/i-0a1b2c3d4e5f60001");
  CHECK(node.metadata().labels().at("karpenter.sh/nodepool") == "default");
  REQUIRE(node.status().conditions_size() == 4);
  CHECK(node.status().conditions(3).type() == "Ready");
  CHECK(node.status().conditions(3).last_heartbeat_time().seconds() > 0);
  const v1::NodeClaim& claim = json.node_claims[0];
  CHECK(claim.status().node_name() == node.metadata().name());
  CHECK(claim.spec().node_class_ref().kind() == "EC2NodeClass");
  const v1::Pod& pending = json.pods[3];
  CHECK(pending.spec().node_name().empty());
  CHECK(pending.status().phase() == "Pending");
  CHECK(json.pods[1].spec().termination_grace_period_seconds() == 45);
}

TEST_CASE("snapshot load: typed list items take the list's kind",
          "[snapshot]") {
  ObjectSet set;
  REQUIRE(LoadFile(TestData("nodelist.json"), set).ok());
  REQUIRE(set.nodes.size() == 2);
  CHECK(set.nodes[1].kind() == "Node");
  CHECK(set.nodes[1].api_version() == "v1");
  const ObjectSet yaml = MustLoad(R"(
kind: PodDisruptionBudgetList
apiVersion: policy/v1
items:
- metadata: {name: a, namespace: x}
  spec: {minAvailable: 1}
- kind: ConfigMap
  apiVersion: v1
  metadata: {name: b}
)");
  REQUIRE(yaml.pdbs.size() == 1);
  CHECK(yaml.pdbs[0].kind() == "PodDisruptionBudget");
  CHECK(yaml.pdbs[0].api_version() == "policy/v1");
  CHECK(yaml.skipped_kinds == std::map<std::string, int64_t>{{"ConfigMap", 1}});
}

TEST_CASE("snapshot load: unknown kinds and foreign versions are counted",
          "[snapshot]") {
  ObjectSet set = MustLoad(R"([
    {"kind": "Service", "apiVersion": "v1", "metadata": {"name": "a"}},
    {"kind": "Service", "apiVersion": "v1", "metadata": {"name": "b"}},
    {"kind": "Provisioner", "apiVersion": "karpenter.sh/v1alpha5"},
    {"kind": "NodePool", "apiVersion": "example.com/v1", "metadata": {"name": "c"}},
    {"kind": "DeploymentList", "apiVersion": "apps/v1", "items": [{}, {}]},
    {"kind": "Pod", "metadata": {"name": "p"}}
  ])");
  CHECK(set.pods.size() == 1);
  CHECK(set.node_pools.empty());
  CHECK(set.skipped_kinds ==
        std::map<std::string, int64_t>{{"Deployment", 2},
                                       {"NodePool (example.com/v1)", 1},
                                       {"Provisioner", 1},
                                       {"Service", 2}});
  // Loading appends and accumulates counts.
  REQUIRE(LoadText("kind: Service\n", "more", set).ok());
  CHECK(set.skipped_kinds.at("Service") == 3);
  CHECK(set.pods.size() == 1);
}

TEST_CASE("snapshot load: IntOrString keeps its JSON form", "[snapshot]") {
  struct Case {
    std::string text;
    std::string min_available;  // "n:<number>", "s:<string>" or "" (absent)
    std::string max_unavailable;
  };
  auto describe = [](bool has, const google::protobuf::Value& v) {
    if (!has) return std::string();
    if (v.has_number_value()) return absl::StrCat("n:", v.number_value());
    if (v.has_string_value()) return "s:" + v.string_value();
    return std::string("?");
  };
  const std::string pdb = "kind: PodDisruptionBudget\nmetadata: {name: a}\n";
  const std::vector<Case> cases = {
      {pdb + "spec: {minAvailable: 1}", "n:1", ""},
      {pdb + "spec: {minAvailable: \"50%\"}", "s:50%", ""},
      {pdb + "spec: {minAvailable: 50%}", "s:50%", ""},
      {pdb + "spec: {minAvailable: '1'}", "s:1", ""},
      {pdb + "spec: {maxUnavailable: 0}", "", "n:0"},
      {pdb + "spec: {maxUnavailable: ~, minAvailable: null}", "", ""},
      {pdb + "spec: {maxUnavailable: -3}", "", "n:-3"},
      {R"({"kind":"PodDisruptionBudget","spec":{"minAvailable":1}})", "n:1",
       ""},
      {R"({"kind":"PodDisruptionBudget","spec":{"minAvailable":"50%"}})",
       "s:50%", ""},
      {R"({"kind":"PodDisruptionBudget","spec":{"maxUnavailable":0}})", "",
       "n:0"},
      {R"({"kind":"PodDisruptionBudget","spec":{"maxUnavailable":null}})", "",
       ""},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    const ObjectSet set = MustLoad(c.text);
    REQUIRE(set.pdbs.size() == 1);
    const auto& spec = set.pdbs[0].spec();
    CHECK(describe(spec.has_min_available(), spec.min_available()) ==
          c.min_available);
    CHECK(describe(spec.has_max_unavailable(), spec.max_unavailable()) ==
          c.max_unavailable);
  }
  // The kubectl fixtures.
  ObjectSet set;
  REQUIRE(LoadFile(TestData("pdb-web-min-available.yaml"), set).ok());
  REQUIRE(LoadFile(TestData("pdb-db-max-unavailable.json"), set).ok());
  REQUIRE(LoadFile(TestData("pdb-zero-max-unavailable.yaml"), set).ok());
  REQUIRE(LoadFile(TestData("pdb-one-min-available.yaml"), set).ok());
  CHECK(set.pdbs[0].spec().min_available().string_value() == "50%");
  CHECK(set.pdbs[1].spec().max_unavailable().number_value() == 1);
  CHECK(set.pdbs[2].spec().has_max_unavailable());
  CHECK(set.pdbs[2].spec().max_unavailable().number_value() == 0);
  CHECK(set.pdbs[3].spec().min_available().number_value() == 1);
  CHECK(set.pdbs[0].spec().selector().match_labels().at("app") == "web");
}

TEST_CASE("snapshot load: absent, null and empty selectors stay distinct",
          "[snapshot]") {
  struct Case {
    std::string text;
    bool has_selector;
  };
  const std::vector<Case> cases = {
      {"kind: PodDisruptionBudget\nspec: {minAvailable: 1}", false},
      {"kind: PodDisruptionBudget\nspec: {selector: null}", false},
      {"kind: PodDisruptionBudget\nspec: {selector: {}}", true},
      {"kind: PodDisruptionBudget\nspec:\n  selector:\n", false},
      {R"({"kind":"PodDisruptionBudget","spec":{}})", false},
      {R"({"kind":"PodDisruptionBudget","spec":{"selector":null}})", false},
      {R"({"kind":"PodDisruptionBudget","spec":{"selector":{}}})", true},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    const ObjectSet set = MustLoad(c.text);
    REQUIRE(set.pdbs.size() == 1);
    CHECK(set.pdbs[0].spec().has_selector() == c.has_selector);
  }
}

TEST_CASE("snapshot load: explicitly empty budgets and reasons are recorded",
          "[snapshot]") {
  struct Case {
    std::string text;
    int budgets;
    bool budgets_empty;
    std::vector<bool> reasons_empty;
  };
  const std::string pool = "kind: NodePool\nmetadata: {name: p}\n";
  const std::vector<Case> cases = {
      {pool + "spec: {disruption: {consolidateAfter: 1m}}", 0, false, {}},
      {pool + "spec: {disruption: {budgets: []}}", 0, true, {}},
      {pool + "spec: {disruption: {budgets: null}}", 0, false, {}},
      {pool + "spec: {disruption: {budgets: [{nodes: 1}, {nodes: 0, "
              "reasons: []}, {nodes: 2, reasons: [Empty]}]}}",
       3,
       false,
       {false, true, false}},
      {R"({"kind":"NodePool","spec":{"disruption":{"budgets":[]}}})",
       0,
       true,
       {}},
      {R"({"kind":"NodePool","spec":{"disruption":{"budgets":[
          {"nodes":"1","reasons":[ ]}, null, {"nodes":"2"}]}}})",
       2,
       false,
       {true, false}},
      {R"({"kind":"NodePool","spec":{"disruption":{}}})", 0, false, {}},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    const ObjectSet set = MustLoad(c.text);
    REQUIRE(set.node_pools.size() == 1);
    const v1::Disruption& d = set.node_pools[0].spec().disruption();
    REQUIRE(d.budgets_size() == c.budgets);
    CHECK(d.budgets_explicitly_empty() == c.budgets_empty);
    for (int i = 0; i < c.budgets; ++i) {
      CHECK(d.budgets(i).reasons_explicitly_empty() == c.reasons_empty[i]);
    }
  }
}

TEST_CASE("snapshot load: YAML scalars take their field's type", "[snapshot]") {
  const ObjectSet set = MustLoad(R"(
kind: NodePool
apiVersion: karpenter.sh/v1
metadata:
  name: 42
  labels: {enabled: true, count: 3, empty: null}
  creationTimestamp: 2025-03-03T08:00:00Z
  deletionTimestamp: "2025-03-04T10:00:00.5Z"
  generation: "7"
spec:
  weight: 10
  disruption:
    budgets:
    - nodes: 5
      schedule: '0 9 * * 1'
  template:
    spec:
      taints: [{key: k, value: true, effect: NoSchedule}]
      requirements:
      - {key: a, operator: Gt, values: [2, 1.5], minValues: 2}
)");
  REQUIRE(set.node_pools.size() == 1);
  const v1::NodePool& pool = set.node_pools[0];
  CHECK(pool.metadata().name() == "42");
  CHECK(pool.metadata().labels().at("enabled") == "true");
  CHECK(pool.metadata().labels().at("count") == "3");
  CHECK(pool.metadata().labels().at("empty").empty());
  CHECK(pool.metadata().creation_timestamp().seconds() == 1740988800);
  CHECK(pool.metadata().deletion_timestamp().nanos() == 500000000);
  CHECK(pool.metadata().generation() == 7);
  CHECK(pool.spec().weight() == 10);
  CHECK(pool.spec().disruption().budgets(0).nodes() == "5");
  CHECK(pool.spec().disruption().budgets(0).schedule() == "0 9 * * 1");
  CHECK(pool.spec().template_().spec().taints(0).value() == "true");
  const auto& req = pool.spec().template_().spec().requirements(0);
  CHECK(req.values(0) == "2");
  CHECK(req.values(1) == "1.5");
  CHECK(req.min_values() == 2);
}

TEST_CASE("snapshot load: timestamps and v1beta1 spellings", "[snapshot]") {
  ObjectSet set;
  REQUIRE(LoadFile(TestData("pod-web.json"), set).ok());
  REQUIRE(LoadFile(TestData("nodepool-v1beta1.yaml"), set).ok());
  REQUIRE(LoadFile(TestData("nodeclaim.yaml"), set).ok());
  // kubectl prints `creationTimestamp: null` for objects not yet created.
  CHECK_FALSE(set.pods[0].metadata().has_creation_timestamp());
  const v1::NodePool& legacy = set.node_pools[0];
  CHECK(legacy.api_version() == "karpenter.sh/v1beta1");
  CHECK(legacy.spec().disruption().consolidation_policy() ==
        "WhenUnderutilized");
  CHECK(legacy.spec().disruption().expire_after() == "720h");
  CHECK(legacy.spec().template_().spec().node_class_ref().api_version() ==
        "karpenter.k8s.aws/v1beta1");
  CHECK(legacy.spec().template_().spec().requirements(1).min_values() == 2);
  CHECK(legacy.spec().limits().at("cpu") == "1000");
  const v1::NodeClaim& claim = set.node_claims[0];
  CHECK(claim.metadata().creation_timestamp().seconds() == 1740989401);
  CHECK(claim.status().last_pod_event_time().seconds() > 0);
  CHECK(claim.status().provider_id() ==
        "aws:///us-west-2a/i-0a1b2c3d4e5f60001");
}

TEST_CASE("snapshot load: malformed input names file, item and field",
          "[snapshot]") {
  struct Case {
    std::string source;
    std::string text;
    std::string message;  // Exact unless `contains`.
    bool contains = false;
  };
  const std::string list_yaml = R"(kind: Service
---
apiVersion: v1
kind: List
items:
- kind: Pod
  metadata: {name: web-0, namespace: default}
- kind: Pod
  metadata: {name: web-1, namespace: default}
  spec:
    terminationGracePeriodSeconds: abc
)";
  const std::vector<Case> cases = {
      {"cluster.yaml", list_yaml,
       "cluster.yaml: document 2: items[1] (Pod default/web-1): "
       "spec.terminationGracePeriodSeconds: expected an integer, got \"abc\" "
       "(line 11)"},
      {"cluster.json",
       R"({"kind":"List","items":[{"kind":"Pod","metadata":{"name":"a"}},
          {"kind":"Pod","metadata":{"name":"web-1","namespace":"default"},
           "spec":{"terminationGracePeriodSeconds":"abc"}}]})",
       "cluster.json: items[1] (Pod default/web-1): "
       "spec.terminationGracePeriodSeconds: expected an integer, got \"abc\""},
      {"p.json", R"({"kind":"Pod","spec":{"priority":99999999999}})",
       "p.json: unnamed Pod: spec.priority: expected a 32-bit integer, got "
       "99999999999"},
      {"p.yaml", "kind: Pod\nmetadata: {name: x}\nspec: {priority: 1e3}\n",
       "p.yaml: document 1: Pod x: spec.priority: expected a 32-bit integer, "
       "got \"1e3\" (line 3)"},
      {"n.json", R"({"kind":"Node","metadata":{"name":"n","labels":{"a":1}}})",
       "n.json: Node n: metadata.labels[\"a\"]: expected a string, got a "
       "number 1"},
      {"n.json", R"({"kind":"Node","spec":{"providerID":["x"]}})",
       "n.json: unnamed Node: spec.providerID: expected a single value, got an "
       "array"},
      {"n.yaml", "kind: Node\nspec: {unschedulable: maybe}\n",
       "n.yaml: document 1: unnamed Node: spec.unschedulable: expected a "
       "boolean, got "
       "\"maybe\" (line 2)"},
      {"n.yaml", "kind: Node\nspec: {taints: {key: a}}\n",
       "n.yaml: document 1: unnamed Node: spec.taints: expected a list, got a "
       "mapping "
       "(line 2)"},
      {"t.json",
       R"({"kind":"Pod","metadata":{"name":"a","creationTimestamp":"yesterday"}})",
       "t.json: Pod a: metadata.creationTimestamp: expected an RFC 3339 "
       "timestamp, got \"yesterday\""},
      {"t.yaml", "kind: Pod\nmetadata:\n  creationTimestamp: 2025-13-01\n",
       "t.yaml: document 1: unnamed Pod: metadata.creationTimestamp: expected "
       "an RFC "
       "3339 timestamp, got \"2025-13-01\" (object at line 1)"},
      {"pdb.json",
       R"({"kind":"PodDisruptionBudget","metadata":{"name":"a","namespace":"b"},
           "spec":{"minAvailable":{"x":1}}})",
       "pdb.json: PodDisruptionBudget b/a: spec.minAvailable: expected an "
       "integer or a string, got an object"},
      {"pdb.yaml", "kind: PodDisruptionBudget\nspec: {maxUnavailable: [1]}\n",
       "pdb.yaml: document 1: unnamed PodDisruptionBudget: "
       "spec.maxUnavailable: "
       "expected an integer or a string, got a list (line 2)"},
      {"bad.json", R"({"kind":"Pod","metadata":{"name":"a",}})",
       "bad.json: metadata: invalid JSON at line 1, column 38: expected a "
       "string key"},
      {"trunc.json",
       R"({"kind":"List","items":[{"kind":"Pod"},{"kind":"Pod","metadata":{"na)",
       "trunc.json: items[1].metadata: invalid JSON at line 1, column 66: "
       "unterminated string"},
      {"nokind.json", R"({"kind":"List","items":[{"metadata":{"name":"x"}}]})",
       "nokind.json: items[0] (object x): object has no kind"},
      {"nokind.yaml", "apiVersion: v1\nmetadata: {name: x}\n",
       "nokind.yaml: document 1: object x: object has no kind (line 1)"},
      {"item.json", R"({"kind":"List","items":[5]})",
       "item.json: items[0]: expected an object, got a number 5"},
      {"top.json", R"(["a"])",
       "top.json: [0]: expected an object, got a string \"a\""},
      {"items.yaml", "kind: PodList\nitems: {a: 1}\n",
       "items.yaml: document 1: PodList: items: expected a list, got a "
       "mapping"},
      {"syntax.yaml", "kind: Service\n---\nkind: Pod\nmetadata: [a, b\n",
       "syntax.yaml: document 2: YAML syntax error at line 5", true},
      {"scalar.yaml", "just a string\n",
       "scalar.yaml: document 1: expected a mapping, got \"just a string\" "
       "(line 1)"},
      {"deep.json",
       "{\"kind\":\"Pod\",\"x\":" + std::string(200, '[') +
           std::string(200, ']') + "}",
       "deep.json: x[0][0]", true},
  };
  for (const Case& c : cases) {
    const std::string message = LoadError(c.text, c.source);
    if (c.contains) {
      CHECK_THAT(message, Catch::Contains(c.message));
    } else {
      CHECK(message == c.message);
    }
  }
}

TEST_CASE("snapshot load: hostile YAML fails cleanly", "[snapshot]") {
  // Deep nesting: yaml-cpp's own depth guard throws; we return a Status.
  const std::string deep = "kind: Pod\nx: " + std::string(100000, '[');
  CHECK_THAT(LoadError(deep, "deep.yaml"), Catch::Contains("deep.yaml"));

  // Alias expansion inside fields we read: each requirement repeats a
  // 2000-value list by reference.
  std::string bomb = "x-values: &v [";
  for (int i = 0; i < 2000; ++i) absl::StrAppend(&bomb, i ? "," : "", "abcd");
  bomb +=
      "]\nkind: NodePool\nspec:\n  template:\n    spec:\n"
      "      requirements:\n";
  for (int i = 0; i < 2000; ++i) bomb += "      - {key: k, values: *v}\n";
  CHECK_THAT(LoadError(bomb, "bomb.yaml"), Catch::Contains("YAML alias bomb"));

  // Lists of aliased lists of objects: 64^3 pods from a few hundred bytes.
  std::string lists = "p: &p {kind: Pod}\nl1: &l1 {kind: List, items: [";
  for (int i = 0; i < 64; ++i) lists += i ? ",*p" : "*p";
  lists += "]}\nl2: &l2 {kind: List, items: [";
  for (int i = 0; i < 64; ++i) lists += i ? ",*l1" : "*l1";
  lists += "]}\nkind: List\nitems: [";
  for (int i = 0; i < 64; ++i) lists += i ? ",*l2" : "*l2";
  lists += "]\n";
  CHECK_THAT(LoadError(lists, "lists.yaml"),
             Catch::Contains("objects (YAML alias bomb?)"));

  // Found by the fuzzer: yaml-cpp 0.7 loops forever, allocating, on this.
  CHECK_THAT(LoadError(",kig }\n\n}\n", "loop.yaml"),
             Catch::Contains("loop.yaml: document 1: malformed YAML"));

  // A self-referencing alias is bounded by the message schema.
  const ObjectSet set = MustLoad("kind: Pod\nmetadata: &m {name: a, x: *m}\n");
  CHECK(set.pods.size() == 1);
}

TEST_CASE("snapshot load: format sniffing, BOM and empty input", "[snapshot]") {
  CHECK(MustLoad("").pods.empty());
  CHECK(MustLoad("# only a comment\n---\n").pods.empty());
  CHECK(MustLoad("\xEF\xBB\xBF  \n {\"kind\":\"Pod\"}").pods.size() == 1);
  CHECK(MustLoad("\xEF\xBB\xBF"
                 "kind: Pod\n")
            .pods.size() == 1);
  CHECK(MustLoad("[]").pods.empty());
  CHECK(MustLoad(R"({"kind":"List","items":null})").pods.empty());
  // YAML flow style that is not JSON goes to the JSON reader and fails.
  CHECK_THAT(LoadError("{kind: Pod}", "f"), Catch::Contains("invalid JSON"));
  // JSON string escapes reach the message.
  const ObjectSet set =
      MustLoad(R"({"kind":"Pod","metadata":{"name":"caf\u00e9"}})");
  CHECK(set.pods[0].metadata().name() == "caf\xC3\xA9");
}

TEST_CASE("snapshot load: file errors name the path", "[snapshot]") {
  ObjectSet set;
  const std::string missing = TestData("no-such-file.yaml");
  absl::Status s = LoadFile(missing, set);
  CHECK(s.code() == absl::StatusCode::kNotFound);
  CHECK_THAT(std::string(s.message()), Catch::Contains(missing));
  s = LoadFile(KARPENTER_TESTDATA_DIR, set);
  CHECK(s.code() == absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(std::string(s.message()), Catch::Contains("is a directory"));
}

}  // namespace
}  // namespace karpenter::snapshot

namespace karpenter::snapshot {
namespace {

TEST_CASE("snapshot load: long offending values are cut in messages",
          "[snapshot]") {
  std::string passwd;
  for (int i = 0; i < 40; ++i) {
    absl::StrAppend(&passwd, "user", i, ":x:", i, ":", i, ":/home/u", i,
                    ":/bin/sh\n");
  }
  const std::string long_text(5000, 'z');
  struct Case {
    std::string source;
    std::string text;
    std::string message;
  };
  const std::vector<Case> cases = {
      // A stray file read as YAML is one long scalar.
      {"/etc/passwd", passwd,
       "/etc/passwd: document 1: expected a mapping, got \"user0:x:0:0:/home/"
       "u0:/bin/sh user1:x:1:1:/home/u1:/bin/sh user2:x:2:2:/home/u2:/...\" "
       "(1279 bytes) (line 1)"},
      {"p.yaml", "kind: Pod\nspec: {priority: " + long_text + "}\n",
       "p.yaml: document 1: unnamed Pod: spec.priority: expected a 32-bit "
       "integer, "
       "got \"" +
           std::string(80, 'z') + "...\" (5000 bytes) (line 2)"},
      {"p.json",
       R"({"kind":"Pod","spec":{"terminationGracePeriodSeconds":")" +
           long_text + "\"}}",
       "p.json: unnamed Pod: spec.terminationGracePeriodSeconds: expected an "
       "integer, "
       "got \"" +
           std::string(80, 'z') + "...\" (5000 bytes)"},
      {"t.json",
       R"({"kind":"Pod","metadata":{"creationTimestamp":")" + long_text +
           "\"}}",
       "t.json: unnamed Pod: metadata.creationTimestamp: expected an RFC 3339 "
       "timestamp, got \"" +
           std::string(80, 'z') + "...\" (5000 bytes)"},
      // Long map keys in a field path too.
      {"k.yaml",
       "kind: Node\nmetadata:\n  labels:\n    ? " + long_text + "\n    : [1]\n",
       "k.yaml: document 1: unnamed Node: metadata.labels[\"" +
           std::string(80, 'z') +
           "...\" (5000 bytes)]: expected a string, got a list (line 5)"},
      // Exactly 80 bytes: shown whole.
      {"e.yaml",
       "kind: Node\nspec: {unschedulable: " + std::string(80, 'y') + "}\n",
       "e.yaml: document 1: unnamed Node: spec.unschedulable: expected a "
       "boolean, got "
       "\"" +
           std::string(80, 'y') + "\" (line 2)"},
      // A cut never splits a UTF-8 character ("é" is 2 bytes at 79-80).
      {"u.yaml",
       "kind: Node\nspec: {unschedulable: " + std::string(79, 'a') +
           "\xC3\xA9" + std::string(50, 'b') + "}\n",
       "u.yaml: document 1: unnamed Node: spec.unschedulable: expected a "
       "boolean, got "
       "\"" +
           std::string(79, 'a') + "...\" (131 bytes) (line 2)"},
  };
  for (const Case& c : cases) {
    ObjectSet set;
    const absl::Status s = LoadText(c.text, c.source, set);
    CHECK(s.code() == absl::StatusCode::kInvalidArgument);
    CHECK(std::string(s.message()) == c.message);
    CHECK(s.message().size() < 400);
  }
}

TEST_CASE("snapshot load: pod affinity and topology spread from kubectl JSON",
          "[snapshot]") {
  // As `kubectl get pod -o json` prints it (preferred terms are not declared
  // and are skipped; pod (anti-)affinity terms and spread constraints are
  // kept whole).
  const std::string json = R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "web-0", "namespace": "shop"},
    "spec": {
      "affinity": {
        "nodeAffinity": {
          "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
              {"matchExpressions": [
                 {"key": "kubernetes.io/arch", "operator": "In",
                  "values": ["arm64", "amd64"]},
                 {"key": "karpenter.sh/capacity-type", "operator": "NotIn",
                  "values": ["spot"]}]},
              {"matchFields": [
                 {"key": "metadata.name", "operator": "In",
                  "values": ["node-a"]}]}]
          },
          "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 10, "preference": {"matchExpressions": [
              {"key": "zone", "operator": "In", "values": ["a"]}]}}]
        },
        "podAntiAffinity": {
          "requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "web"}},
             "topologyKey": "kubernetes.io/hostname"}]
        }
      },
      "topologySpreadConstraints": [
        {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
         "whenUnsatisfiable": "DoNotSchedule",
         "labelSelector": {"matchLabels": {"app": "web"}}}],
      "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]
    }
  })";
  const std::string yaml = R"(apiVersion: v1
kind: Pod
metadata: {name: web-0, namespace: shop}
spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - {key: kubernetes.io/arch, operator: In, values: [arm64, amd64]}
          - {key: karpenter.sh/capacity-type, operator: NotIn, values: [spot]}
        - matchFields:
          - {key: metadata.name, operator: In, values: [node-a]}
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 10
        preference:
          matchExpressions: [{key: zone, operator: In, values: [a]}]
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector: {matchLabels: {app: web}}
        topologyKey: kubernetes.io/hostname
  topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: topology.kubernetes.io/zone
    whenUnsatisfiable: DoNotSchedule
    labelSelector: {matchLabels: {app: web}}
  containers:
  - name: c
    resources: {requests: {cpu: "1"}}
)";
  for (const std::string* text : {&json, &yaml}) {
    const ObjectSet set = MustLoad(*text);
    REQUIRE(set.pods.size() == 1);
    const v1::PodSpec& spec = set.pods[0].spec();
    REQUIRE(spec.has_affinity());
    const auto& terms =
        spec.affinity()
            .node_affinity()
            .required_during_scheduling_ignored_during_execution()
            .node_selector_terms();
    REQUIRE(terms.size() == 2);
    REQUIRE(terms[0].match_expressions_size() == 2);
    CHECK(terms[0].match_expressions(0).key() == "kubernetes.io/arch");
    CHECK(terms[0].match_expressions(0).values_size() == 2);
    CHECK(terms[0].match_expressions(1).operator_() == "NotIn");
    REQUIRE(terms[1].match_fields_size() == 1);
    CHECK(terms[1].match_fields(0).values(0) == "node-a");
    CHECK_FALSE(spec.affinity().has_pod_affinity());
    const auto& anti =
        spec.affinity()
            .pod_anti_affinity()
            .required_during_scheduling_ignored_during_execution();
    REQUIRE(anti.size() == 1);
    CHECK(anti[0].topology_key() == "kubernetes.io/hostname");
    REQUIRE(spec.topology_spread_constraints_size() == 1);
    const v1::TopologySpreadConstraint& spread =
        spec.topology_spread_constraints(0);
    CHECK(spread.when_unsatisfiable() == "DoNotSchedule");
    CHECK(spread.max_skew() == 1);
    CHECK(spread.label_selector().match_labels().at("app") == "web");
    CHECK(spec.containers(0).resources().requests().at("cpu") == "1");
  }
}

}  // namespace
}  // namespace karpenter::snapshot
