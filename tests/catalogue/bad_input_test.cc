// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The bad-input catalogue: malformed input of every kind, fed through the
// SDK's public entry points (snapshot loading and Build, the primitive
// parsers, NodePool disruption specs, scenarios, one disruption pass as
// `karpenter plan` runs it). Each row asserts either the exact status code
// and message fragments that name the field and quote the offending value,
// or, where the SDK documents a tolerant reading, that reading concretely
// (the header that documents it is cited in the row's comment).

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "karpenter/budget/disruption_spec.h"
#include "karpenter/cron.h"
#include "karpenter/disruption/controller.h"
#include "karpenter/disruption/plan_proto.h"
#include "karpenter/duration.h"
#include "karpenter/intstr.h"
#include "karpenter/quantity.h"
#include "karpenter/requirements.h"
#include "karpenter/selector.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/testing/scenario.h"
#include "karpenter/v1/plan.pb.h"

namespace karpenter {
namespace {

using absl::StatusCode;

// The entry point a row feeds its input to.
enum class Entry {
  kLoad,          // snapshot::LoadText; OK: the objects, abridged.
  kBuild,         // LoadText + Snapshot::Build; OK: the indexes' counts.
  kPass,          // LoadText + Build + Controller::Decide (`karpenter plan`).
  kPricedPass,    // kPass with every offering priced, so consolidation runs.
  kDuration,      // ParseGoDuration.
  kNillable,      // ParseNillableDuration.
  kQuantity,      // ParseQuantityMilli with field "cpu".
  kIntStr,        // IntOrPercent::Parse with field "nodes".
  kCron,          // CronSchedule::Parse.
  kSelector,      // LabelSelector::Parse (the kubectl -l form).
  kPdbSelector,   // LoadText, then LabelSelector::FromProto of each PDB.
  kRequirements,  // LoadText, then Requirements::FromProto of each NodePool.
  kBudgets,       // LoadText, then budget::ParseDisruptionSpec of each pool.
  kScenario,      // LoadScenario + ValidateScenario + ExpandGenerated.
};

struct Row {
  std::string name;
  Entry entry;
  std::string input;
  StatusCode code;
  // Fragments of the error message, or of the summary of what was read
  // when `code` is kOk (a documented tolerant behaviour).
  std::vector<std::string> expected;
};

struct Outcome {
  absl::Status status;
  std::string summary;
};

// 2024-06-01T12:00:00Z, a Saturday: the instant of every pass and cron.
absl::Time Now() { return absl::FromUnixSeconds(1717243200); }

std::string Abridged(const google::protobuf::Message& m) {
  std::string s = m.ShortDebugString();
  if (s.size() > 300) s = absl::StrCat(s.substr(0, 300), "...");
  return s;
}

Outcome Load(absl::string_view text, snapshot::ObjectSet& set) {
  Outcome out{snapshot::LoadText(text, "in.yaml", set), ""};
  if (!out.status.ok()) return out;
  absl::StrAppend(&out.summary, "nodes=", set.nodes.size(),
                  " pods=", set.pods.size(), " pdbs=", set.pdbs.size(),
                  " pools=", set.node_pools.size(),
                  " claims=", set.node_claims.size(), "\n");
  for (const auto& n : set.nodes) absl::StrAppend(&out.summary, Abridged(n));
  for (const auto& p : set.pods) absl::StrAppend(&out.summary, Abridged(p));
  return out;
}

Outcome RunBuild(absl::string_view text,
                 std::optional<snapshot::Snapshot>& snap) {
  snapshot::ObjectSet set;
  Outcome out = Load(text, set);
  if (!out.status.ok()) return out;
  absl::StatusOr<snapshot::Snapshot> built =
      snapshot::Snapshot::Build(std::move(set));
  if (!built.ok()) return {built.status(), ""};
  snap.emplace(*std::move(built));
  out.summary =
      absl::StrCat("nodes=", snap->nodes().size(), " pods=", snap->pod_count(),
                   " unbound=", snap->UnboundPods().size(),
                   " on_unknown_nodes=", snap->PodsOnUnknownNodes().size());
  return out;
}

// One pass exactly as tools/karpenter/plan_command.cc runs it. `priced`
// gives every observed offering a price: `karpenter plan`'s catalogue has
// none, which makes every node ineligible for consolidation
// (InstanceTypeUnknown), so only a priced pass simulates.
Outcome RunPass(absl::string_view text, bool priced) {
  std::optional<snapshot::Snapshot> snap;
  Outcome out = RunBuild(text, snap);
  if (!out.status.ok()) return out;
  disruption::PassInputs inputs;
  inputs.catalog = disruption::ObservedInstanceTypes(*snap);
  for (auto& [pool, types] : inputs.catalog) {
    for (InstanceType& type : types) {
      for (Offering& offering : type.offerings) {
        if (priced) offering.price = 0.1;
      }
    }
  }
  absl::StatusOr<disruption::Plan> plan =
      disruption::Controller().Decide(*snap, inputs, Now());
  if (!plan.ok()) return {plan.status(), ""};
  const v1::Plan proto = disruption::PlanToProto(*plan);
  absl::StrAppend(&out.summary, " commands=", proto.commands_size());
  for (const v1::PlanVerdict& v : proto.verdicts()) {
    absl::StrAppend(&out.summary, "\n", v.node(), ": ", v.code(), ": ",
                    v.message());
  }
  return out;
}

Outcome RunBudgets(absl::string_view text) {
  snapshot::ObjectSet set;
  Outcome out = Load(text, set);
  if (!out.status.ok()) return out;
  out.summary.clear();
  for (const v1::NodePool& pool : set.node_pools) {
    absl::StatusOr<budget::DisruptionSpec> spec =
        budget::ParseDisruptionSpec(pool);
    if (!spec.ok()) return {spec.status(), ""};
    for (const budget::Budget& b : spec->budgets) {
      absl::StrAppend(&out.summary, "budget nodes=", b.nodes_text,
                      " nodes_status=", b.nodes.status().ToString(),
                      " cron_status=",
                      b.schedule ? b.cron.status().ToString() : "none", "\n");
    }
  }
  return out;
}

Outcome RunScenario(absl::string_view text) {
  absl::StatusOr<testing::LoadedScenario> loaded =
      testing::LoadScenario(text, "in.yaml");
  if (!loaded.ok()) return {loaded.status(), ""};
  if (absl::Status s = testing::ValidateScenario(loaded->scenario); !s.ok()) {
    return {s, ""};
  }
  return {testing::ExpandGenerated(loaded->scenario, loaded->cluster),
          absl::StrCat("nodes=", loaded->cluster.nodes.size())};
}

Outcome Run(Entry entry, const std::string& input) {
  switch (entry) {
    case Entry::kLoad: {
      snapshot::ObjectSet set;
      return Load(input, set);
    }
    case Entry::kBuild: {
      std::optional<snapshot::Snapshot> snap;
      return RunBuild(input, snap);
    }
    case Entry::kPass:
      return RunPass(input, /*priced=*/false);
    case Entry::kPricedPass:
      return RunPass(input, /*priced=*/true);
    case Entry::kDuration: {
      absl::StatusOr<absl::Duration> d = ParseGoDuration(input);
      return {d.status(), d.ok() ? FormatGoDuration(*d) : ""};
    }
    case Entry::kNillable: {
      auto d = ParseNillableDuration(input, "spec.expireAfter");
      return {d.status(), ""};
    }
    case Entry::kQuantity: {
      absl::StatusOr<int64_t> q = ParseQuantityMilli(input, "cpu");
      return {q.status(), q.ok() ? absl::StrCat(*q, " milli") : ""};
    }
    case Entry::kIntStr: {
      absl::StatusOr<IntOrPercent> v = IntOrPercent::Parse(input, "nodes");
      if (!v.ok()) return {v.status(), ""};
      return {absl::OkStatus(),
              absl::StrCat(v->is_percent() ? "percent " : "", v->value())};
    }
    case Entry::kCron: {
      absl::StatusOr<CronSchedule> c = CronSchedule::Parse(input);
      if (!c.ok()) return {c.status(), ""};
      return {absl::OkStatus(), absl::FormatTime(c->Next(Now()))};
    }
    case Entry::kSelector:
      return {LabelSelector::Parse(input).status(), ""};
    case Entry::kPdbSelector: {
      snapshot::ObjectSet set;
      Outcome out = Load(input, set);
      for (const v1::PodDisruptionBudget& pdb : set.pdbs) {
        if (!out.status.ok()) break;
        out.status =
            LabelSelector::FromProto(
                pdb.spec().has_selector() ? &pdb.spec().selector() : nullptr,
                "spec.selector")
                .status();
      }
      return out;
    }
    case Entry::kRequirements: {
      snapshot::ObjectSet set;
      Outcome out = Load(input, set);
      for (const v1::NodePool& pool : set.node_pools) {
        if (!out.status.ok()) break;
        out.status = Requirements::FromProto(
                         pool.spec().template_().spec().requirements(),
                         "spec.template.spec.requirements")
                         .status();
      }
      return out;
    }
    case Entry::kBudgets:
      return RunBudgets(input);
    case Entry::kScenario:
      return RunScenario(input);
  }
  return {absl::InternalError("unknown entry"), ""};
}

// ---- Inputs ---------------------------------------------------------------

// A NodePool named "p" whose spec.disruption is `disruption` (YAML, indented
// by four spaces) and whose template holds `template_spec` (six spaces).
// `spec_extra` (two spaces) goes first in its spec.
std::string Pool(absl::string_view disruption,
                 absl::string_view template_spec = "      expireAfter: 720h\n",
                 absl::string_view spec_extra = "") {
  return absl::StrCat(
      "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: p\n"
      "spec:\n",
      spec_extra, "  template:\n    spec:\n", template_spec, "  disruption:\n",
      disruption);
}

std::string Budgets(absl::string_view budgets,
                    absl::string_view spec_extra = "") {
  return Pool(absl::StrCat("    budgets:\n", budgets),
              "      expireAfter: 720h\n", spec_extra);
}

std::string Requirement(absl::string_view requirement) {
  return Pool(
      "    consolidateAfter: 1m\n",
      absl::StrCat("      requirements:\n        - ", requirement, "\n"));
}

std::string Pdb(absl::string_view selector) {
  return absl::StrCat(
      "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n"
      "  name: web\n  namespace: shop\nspec:\n  maxUnavailable: 1\n"
      "  selector:\n",
      selector);
}

// A Ready, initialised node `name` of NodePool "p" and its NodeClaim, as
// Karpenter leaves them, with `cpu` allocatable.
std::string Machine(absl::string_view name, absl::string_view cpu) {
  return absl::StrReplaceAll(R"(---
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata:
  name: NAME
  labels: {karpenter.sh/nodepool: p}
  creationTimestamp: "2024-05-01T00:00:00Z"
status:
  nodeName: NAME
  providerID: fake:///z/i-NAME
  conditions: [{type: Initialized, status: "True"}]
---
apiVersion: v1
kind: Node
metadata:
  name: NAME
  labels: {karpenter.sh/nodepool: p, karpenter.sh/initialized: "true",
           node.kubernetes.io/instance-type: m5.large,
           topology.kubernetes.io/zone: a, karpenter.sh/capacity-type: spot}
spec: {providerID: fake:///z/i-NAME}
status:
  allocatable: {cpu: CPU, memory: 8Gi, pods: "29"}
  conditions: [{type: Ready, status: "True"}]
)",
                             {{"NAME", name}, {"CPU", cpu}});
}

// NodePool "p" (every node may be disrupted at once, `pool_spec_extra` in
// its spec) with nodes "n1" and "n2" (`cpu` allocatable); `extra` is
// appended as further documents.
std::string Cluster(absl::string_view extra, absl::string_view cpu = "\"2\"",
                    absl::string_view pool_spec_extra = "") {
  return absl::StrCat(Budgets("      - nodes: \"100%\"\n", pool_spec_extra),
                      Machine("n1", cpu), Machine("n2", cpu), extra);
}

// A minimal valid Scenario document with `spec` (YAML, indented by two
// spaces) after its start and instance types.
std::string ScenarioDoc(absl::string_view spec) {
  return absl::StrCat(R"(apiVersion: sim.karpenter-sdk.dev/v1
kind: Scenario
metadata: {name: s}
spec:
  start: "2024-01-08T09:30:00Z"
  instanceTypes:
    - name: m5.large
      capacity: {cpu: "2", memory: 8Gi, pods: "29"}
      offerings: [{zone: a, capacityType: on-demand, price: 0.1}]
)",
                      spec);
}

// A NodePool "p" and the Scenario document.
std::string Scenario(absl::string_view spec) {
  return absl::StrCat(Pool("    consolidateAfter: 1m\n"), "---\n",
                      ScenarioDoc(spec));
}

std::string InstanceTypePrice(absl::string_view price) {
  return Scenario(
      absl::StrCat("    - name: m5.xlarge\n      capacity: {cpu: \"4\"}\n"
                   "      offerings: [{zone: a, capacityType: spot, price: ",
                   price, "}]\n"));
}

std::string Repeat(absl::string_view s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) absl::StrAppend(&out, s);
  return out;
}

std::string WithNul(absl::string_view before, absl::string_view after) {
  return absl::StrCat(before, std::string(1, '\0'), after);
}

std::string FiftyOneBudgets() {
  std::string budgets;
  for (int i = 0; i < 51; ++i)
    absl::StrAppend(&budgets, "      - nodes: \"1\"\n");
  return Budgets(budgets);
}

std::vector<Row> Catalogue() {
  const StatusCode kInvalid = StatusCode::kInvalidArgument;
  const StatusCode kOk = StatusCode::kOk;
  const std::string kPod =
      "apiVersion: v1\nkind: Pod\nmetadata: {name: w, namespace: shop}\n";
  // A running pod on each node that requests some CPU, so that no node is
  // empty and a pass simulates consolidation.
  std::string busy;
  for (absl::string_view node : {"n1", "n2"}) {
    absl::StrAppend(
        &busy, "---\napiVersion: v1\nkind: Pod\nmetadata: {name: ", "busy-",
        node, ", namespace: shop}\nspec:\n  nodeName: ", node,
        "\n  containers: [{name: c, resources: {requests: {cpu: "
        "100m}}}]\nstatus: {phase: Running}\n");
  }
  const std::string kBusy = busy;
  return {
      // ---- Snapshot loading: syntax ------------------------------------
      {"truncated YAML: unterminated quoted scalar",
       Entry::kLoad,
       "apiVersion: v1\nkind: Pod\nmetadata:\n  name: \"web",
       kInvalid,
       {"in.yaml: document 1: YAML syntax error at line 4"}},
      {"truncated YAML: unclosed flow sequence",
       Entry::kLoad,
       "kind: Node\nmetadata: {name: a}\nspec:\n  taints: [{key: k",
       kInvalid,
       {"in.yaml: document 1: YAML syntax error", "line 4"}},
      {"truncated JSON object",
       Entry::kLoad,
       R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web")",
       kInvalid,
       {"in.yaml", "invalid JSON at line 1", "unexpected end of input"}},
      {"truncated JSON list",
       Entry::kLoad,
       R"({"kind":"List","items":[{"kind":"Node","metadata":{"name":"a"}},)",
       kInvalid,
       {"in.yaml", "invalid JSON at line 1"}},
      {"binary garbage",
       Entry::kLoad,
       std::string("\x01\x02\xff\xfe\x80garbage", 12),
       kInvalid,
       {"in.yaml: document 1: expected a mapping, got "}},
      {"JSON array of a bare number",
       Entry::kLoad,
       "[42]",
       kInvalid,
       {"in.yaml: [0]: expected an object, got a number 42"}},
      {"JSON kind that is a number",
       Entry::kLoad,
       R"({"kind":5})",
       kInvalid,
       {"in.yaml: kind: expected a string, got a number 5"}},
      {"JSON items that are a string",
       Entry::kLoad,
       R"({"kind":"List","items":"Pod"})",
       kInvalid,
       {"in.yaml: List: items: expected an array, got a string \"Pod\""}},
      {"JSON object without kind",
       Entry::kLoad,
       R"({"metadata":{}})",
       kInvalid,
       {"in.yaml", "kind"}},
      // load.h: "Empty text is an empty YAML stream: OK, nothing loaded".
      {"empty document",
       Entry::kLoad,
       "",
       kOk,
       {"nodes=0 pods=0 pdbs=0 pools=0 claims=0"}},
      // load.h: "multi-document YAML (`---`); empty documents are skipped".
      {"only document separators",
       Entry::kLoad,
       "---\n---\n...\n",
       kOk,
       {"nodes=0 pods=0"}},
      {"10000 nested JSON lists",
       Entry::kLoad,
       absl::StrCat(Repeat("[", 10000), Repeat("]", 10000)),
       kInvalid,
       {"in.yaml", "nest"}},
      {"10000 nested JSON objects",
       Entry::kLoad,
       absl::StrCat(Repeat(R"({"a":)", 10000), "1", Repeat("}", 10000)),
       kInvalid,
       {"in.yaml", "nest"}},
      {"10000 nested YAML flow lists",
       Entry::kLoad,
       absl::StrCat("kind: Node\nmetadata: {name: a}\nx: ", Repeat("[", 10000),
                    Repeat("]", 10000)),
       kInvalid,
       {"in.yaml: document 1: YAML nested too deep", "line 3"}},
      {"NUL byte inside a YAML scalar",
       Entry::kLoad,
       WithNul("kind: Node\nmetadata: {name: \"a", "b\"}\n"),
       kInvalid,
       {"in.yaml: document 1: NUL byte at line 2, column 20"}},
      {"NUL byte in a later YAML document",
       Entry::kLoad,
       WithNul("kind: Node\nmetadata: {name: a}\n---\nkind: Pod\n", ""),
       kInvalid,
       {"in.yaml: document 2: NUL byte at line 5, column 1"}},
      {"NUL byte inside a JSON string",
       Entry::kLoad,
       WithNul(R"({"kind":"Node","metadata":{"name":"a)", R"(b"}})"),
       kInvalid,
       {"in.yaml: metadata.name: invalid JSON at line 1, column 37: control "
        "character in string"}},
      {"invalid UTF-8 in a JSON string",
       Entry::kLoad,
       "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"w\xff\"}}",
       kInvalid,
       {"in.yaml: metadata.name: invalid JSON at line 1, column 36: invalid "
        "UTF-8 in string"}},
      {"invalid UTF-8 in a YAML scalar",
       Entry::kLoad,
       "kind: Pod\nmetadata: {name: \"w\xff\", namespace: shop}\n",
       kInvalid,
       {"in.yaml: document 1: Pod shop/w", "non UTF-8"}},
      // load.h: LoadText sniffs "after an optional UTF-8 byte order mark".
      {"BOM before YAML",
       Entry::kLoad,
       "\xef\xbb\xbfkind: Node\nmetadata: {name: a}\n",
       kOk,
       {"nodes=1", "name: \"a\""}},
      {"BOM before JSON",
       Entry::kLoad,
       "\xef\xbb\xbf{\"kind\":\"Node\",\"metadata\":{\"name\":\"a\"}}",
       kOk,
       {"nodes=1", "name: \"a\""}},

      // ---- Snapshot loading: types ------------------------------------
      {"JSON string where an integer belongs",
       Entry::kLoad,
       R"({"kind":"Pod","metadata":{"name":"w"},)"
       R"("spec":{"terminationGracePeriodSeconds":"abc"}})",
       kInvalid,
       {"in.yaml: Pod w: spec.terminationGracePeriodSeconds: expected an "
        "integer, got \"abc\""}},
      {"YAML string where an integer belongs",
       Entry::kLoad,
       kPod + "spec: {terminationGracePeriodSeconds: abc}\n",
       kInvalid,
       {"in.yaml: document 1: Pod shop/w: spec.terminationGracePeriodSeconds: "
        "expected an integer, got \"abc\""}},
      {"YAML mapping where a list belongs",
       Entry::kLoad,
       kPod + "spec: {containers: {name: c}}\n",
       kInvalid,
       {"spec.containers: expected a list, got a mapping (line 4)"}},
      // load.h: JSON is decoded "with exactly the results of protobuf's
      // JsonStringToMessage", which reads a lone object given for a
      // repeated message field as a one-element list.
      {"JSON object where a list belongs",
       Entry::kLoad,
       R"({"kind":"Pod","metadata":{"name":"w"},)"
       R"("spec":{"containers":{"name":"c"}}})",
       kOk,
       {"pods=1", "containers { name: \"c\" }"}},
      {"JSON number where a list belongs",
       Entry::kLoad,
       R"({"kind":"Pod","metadata":{"name":"w"},"spec":{"containers":5}})",
       kInvalid,
       {"in.yaml: Pod w: spec.containers: expected an object, got 5"}},
      {"JSON list where an object belongs",
       Entry::kLoad,
       R"({"kind":"Pod","metadata":["w"]})",
       kInvalid,
       {"in.yaml: unnamed Pod: invalid JSON: metadata:", "cannot start list"}},
      {"YAML list where an object belongs",
       Entry::kLoad,
       "kind: Pod\nmetadata: [w]\n",
       kInvalid,
       {"in.yaml: document 1", "metadata: expected a mapping, got a list"}},
      {"JSON integer overflowing int64",
       Entry::kLoad,
       R"({"kind":"Pod","metadata":{"name":"w"},)"
       R"("spec":{"terminationGracePeriodSeconds":99999999999999999999}})",
       kInvalid,
       {"spec.terminationGracePeriodSeconds: expected an integer, got "}},
      {"YAML integer overflowing int64",
       Entry::kLoad,
       kPod + "spec: {terminationGracePeriodSeconds: 99999999999999999999}\n",
       kInvalid,
       {"spec.terminationGracePeriodSeconds:", "\"99999999999999999999\""}},
      {"YAML integer overflowing int32 (pod priority)",
       Entry::kLoad,
       kPod + "spec: {priority: 2147483648}\n",
       kInvalid,
       {"spec.priority:", "\"2147483648\""}},
      {"JSON integer overflowing int32 (NodePool weight)",
       Entry::kLoad,
       R"({"apiVersion":"karpenter.sh/v1","kind":"NodePool",)"
       R"("metadata":{"name":"p"},"spec":{"weight":4294967296}})",
       kInvalid,
       {"NodePool p: spec.weight: expected a 32-bit integer, got 4294967296"}},
      // deadline.h: a negative grace is kept as written ("The arithmetic is
      // Karpenter's, unchecked"); RemainingGrace reports it when asked.
      {"negative terminationGracePeriodSeconds is kept",
       Entry::kLoad,
       kPod + "spec: {terminationGracePeriodSeconds: -5}\n",
       kOk,
       {"termination_grace_period_seconds: -5"}},
      {"a string far longer than 80 bytes is quoted cut",
       Entry::kLoad,
       kPod + "spec: {terminationGracePeriodSeconds: " +
           std::string(100000, 'x') + "}\n",
       kInvalid,
       {"spec.terminationGracePeriodSeconds: expected an integer, got "
        "\"xxxxxxxx",
        "(100000 bytes)"}},
      // load.h: names are free-form strings at load; Build checks only
      // emptiness and uniqueness (snapshot.h).
      {"a 1 MiB node name loads",
       Entry::kBuild,
       "kind: Node\nmetadata: {name: " + std::string(1 << 20, 'n') + "}\n",
       kOk,
       {"nodes=1 pods=0"}},
      // scheduler.h: only NoSchedule and NoExecute taints keep pods off a
      // node; another effect is kept verbatim and ignored there.
      {"unknown taint effect is kept",
       Entry::kLoad,
       "kind: Node\nmetadata: {name: a}\nspec: {taints: [{key: k, effect: "
       "Foo}]}\n",
       kOk,
       {"effect: \"Foo\""}},

      // ---- Snapshot::Build ---------------------------------------------
      {"duplicate Node",
       Entry::kBuild,
       "kind: Node\nmetadata: {name: a}\n---\nkind: Node\nmetadata: {name: "
       "a}\n",
       kInvalid,
       {"duplicate Node \"a\": in.yaml: document 1 (line 1) and in.yaml: "
        "document 2 (line 4)"}},
      {"duplicate Pod, one without namespace",
       Entry::kBuild,
       "kind: Pod\nmetadata: {name: w}\n---\nkind: Pod\nmetadata: {name: w, "
       "namespace: default}\n",
       kInvalid,
       {"duplicate Pod \"default/w\": in.yaml: document 1 (line 1) and "
        "in.yaml: document 2 (line 4)"}},
      {"duplicate NodePool",
       Entry::kBuild,
       Pool("    consolidateAfter: 1m\n") + "---\n" +
           Pool("    consolidateAfter: 2m\n"),
       kInvalid,
       {"duplicate NodePool \"p\""}},
      {"duplicate PodDisruptionBudget",
       Entry::kBuild,
       Pdb("    matchLabels: {app: web}\n") + "---\n" +
           Pdb("    matchLabels: {app: api}\n"),
       kInvalid,
       {"duplicate PodDisruptionBudget \"shop/web\""}},
      {"empty Node name",
       Entry::kBuild,
       "kind: Node\nmetadata: {name: \"\"}\n",
       kInvalid,
       {"in.yaml: document 1: unnamed Node: metadata.name is empty (line 1)"}},
      {"empty Pod name",
       Entry::kBuild,
       "kind: Pod\nmetadata: {namespace: a}\n",
       kInvalid,
       {"in.yaml: document 1: unnamed Pod: metadata.name is empty"}},
      {"empty NodeClaim name",
       Entry::kBuild,
       "apiVersion: karpenter.sh/v1\nkind: NodeClaim\nmetadata: {name: ''}\n",
       kInvalid,
       {"in.yaml: document 1: unnamed NodeClaim: metadata.name is empty"}},
      // snapshot.h PodsOnUnknownNodes: "Pods whose spec.nodeName names no
      // Node in the snapshot (the Node was deleted, or the dump is
      // partial)", disjoint from UnboundPods and from every PodsOnNode.
      {"pod on a node that does not exist",
       Entry::kBuild,
       kPod + "spec: {nodeName: ghost}\n",
       kOk,
       {"nodes=0 pods=1 unbound=0 on_unknown_nodes=1"}},

      // ---- The disruption pass -----------------------------------------
      {"unparsable allocatable quantity",
       Entry::kPricedPass,
       Cluster(kBusy, "\"2 cores\""),
       kInvalid,
       {"n1", "cpu", "\"2 cores\""}},
      {"unparsable pod request",
       Entry::kPricedPass,
       Cluster(absl::StrCat(kBusy, "---\n", kPod,
                            "spec:\n  nodeName: n1\n  containers: [{name: c, "
                            "resources: {requests: {memory: lots}}}]\n")),
       kInvalid,
       {"shop/w", "memory", "\"lots\""}},
      // controller.h: "Decisions (a blocked node, an exhausted budget) are
      // verdicts, never errors"; a NodeClaim whose NodePool is gone is
      // disrupted forcefully as Karpenter garbage-collects it.
      {"NodeClaim pointing to a missing NodePool",
       Entry::kPass,
       Cluster(R"(---
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata:
  name: orphan
  labels: {karpenter.sh/nodepool: gone}
  creationTimestamp: "2024-05-01T00:00:00Z"
status: {providerID: fake:///z/i-2}
)"),
       kOk,
       {"orphan: Commanded: NodePool \"gone\" no longer exists"}},
      // A pod bound to a missing Node belongs to no node of the pass: the
      // one real node stays empty of it.
      {"pass over a pod on a node that does not exist",
       Entry::kPass,
       Cluster("---\n" + kPod +
               "spec:\n  nodeName: ghost\n  containers: [{name: c}]\n"),
       kOk,
       {"on_unknown_nodes=1", "n1: Commanded: "}},
      {"pass over a negative grace period",
       Entry::kPass,
       Cluster("---\n" + kPod +
               "spec:\n  nodeName: n1\n  terminationGracePeriodSeconds: -5\n"
               "  containers: [{name: c}]\nstatus: {phase: Running}\n"),
       kOk,
       {"pods=1", "n1: "}},

      // ---- Go durations --------------------------------------------------
      {"duration with unknown unit",
       Entry::kDuration,
       "1d",
       kInvalid,
       {"time: unknown unit \"d\" in duration \"1d\""}},
      {"duration with a space",
       Entry::kDuration,
       "5 m",
       kInvalid,
       {"unknown unit \" m\" in duration \"5 m\""}},
      {"duration without unit",
       Entry::kDuration,
       "30",
       kInvalid,
       {"time: missing unit in duration \"30\""}},
      {"duration overflowing int64 nanoseconds",
       Entry::kDuration,
       "2562048h",
       kInvalid,
       {"time: invalid duration \"2562048h\""}},
      {"empty duration",
       Entry::kDuration,
       "",
       kInvalid,
       {"time: invalid duration \"\""}},
      // duration.h: Go's grammar has a sign; the callers that need a
      // non-negative value check it (rows for consolidateAfter, at, ...).
      {"negative duration parses as Go does",
       Entry::kDuration,
       "-1h30m",
       kOk,
       {"-1h30m0s"}},
      {"nillable duration spelt never",
       Entry::kNillable,
       "never",
       kInvalid,
       {"spec.expireAfter: time: invalid duration \"never\""}},

      // ---- Quantities ------------------------------------------------------
      {"quantity with bad suffix",
       Entry::kQuantity,
       "1kb",
       kInvalid,
       {"cpu", "\"1kb\"", "quantities must match the regular expression"}},
      {"quantity with trailing digits after suffix",
       Entry::kQuantity,
       "1Ki5",
       kInvalid,
       {"cpu", "\"1Ki5\"", "unable to parse quantity's suffix"}},
      {"quantity overflowing int64 milli-units",
       Entry::kQuantity,
       "1e20",
       StatusCode::kOutOfRange,
       {"cpu", "\"1e20\""}},
      {"quantity with whitespace",
       Entry::kQuantity,
       " 1",
       kInvalid,
       {"cpu", "\" 1\""}},

      // ---- IntOrPercent ----------------------------------------------------
      {"intstr fractional percent",
       Entry::kIntStr,
       "10.5%",
       kInvalid,
       {"nodes", "\"10.5%\""}},
      {"intstr bare percent sign",
       Entry::kIntStr,
       "%",
       kInvalid,
       {"nodes", "\"%\""}},
      {"intstr integer overflowing int64",
       Entry::kIntStr,
       "99999999999999999999",
       kInvalid,
       {"nodes", "\"99999999999999999999\""}},
      // intstr.h: "150%" is a valid IntOrPercent; the 100% cap is the
      // NodePool CRD's pattern (see the budget row below).
      {"intstr percent over 100 parses",
       Entry::kIntStr,
       "150%",
       kOk,
       {"percent 150"}},

      // ---- Cron schedules --------------------------------------------------
      {"cron with six fields (seconds)",
       Entry::kCron,
       "0 0 9 * * mon",
       kInvalid,
       {"expected exactly 5 fields, found 6", "\"0 0 9 * * mon\""}},
      {"cron minute 60",
       Entry::kCron,
       "60 * * * *",
       kInvalid,
       {"60", "above maximum"}},
      {"cron hour 24",
       Entry::kCron,
       "0 24 * * *",
       kInvalid,
       {"24", "above maximum"}},
      {"cron day-of-month 0",
       Entry::kCron,
       "0 0 0 * *",
       kInvalid,
       {"0", "below minimum"}},
      {"cron month 13",
       Entry::kCron,
       "0 0 1 13 *",
       kInvalid,
       {"13", "above maximum"}},
      {"cron day-of-week 7",
       Entry::kCron,
       "0 0 * * 7",
       kInvalid,
       {"7", "above maximum"}},
      {"cron unknown descriptor",
       Entry::kCron,
       "@fortnightly",
       kInvalid,
       {"\"@fortnightly\""}},
      {"cron unknown time zone",
       Entry::kCron,
       "TZ=Mars/Olympus 0 0 * * *",
       kInvalid,
       {"Mars/Olympus"}},
      {"cron empty", Entry::kCron, "", kInvalid, {"empty"}},

      // ---- Label selectors ---------------------------------------------
      {"selector operator Foo",
       Entry::kPdbSelector,
       Pdb("    matchExpressions: [{key: app, operator: Foo, values: [a]}]\n"),
       kInvalid,
       {"spec.selector.matchExpressions[0].operator", "\"Foo\""}},
      {"selector In without values",
       Entry::kPdbSelector,
       Pdb("    matchExpressions: [{key: app, operator: In}]\n"),
       kInvalid,
       {"spec.selector.matchExpressions[0].values: must be non-empty for "
        "operator \"In\""}},
      {"selector key with a space",
       Entry::kPdbSelector,
       Pdb("    matchLabels: {\"a b\": x}\n"),
       kInvalid,
       {"spec.selector.matchLabels", "\"a b\""}},
      {"selector string with unknown operator",
       Entry::kSelector,
       "app ~ web",
       kInvalid,
       {"label selector \"app ~ web\""}},
      {"selector string with unclosed set",
       Entry::kSelector,
       "env in (a,b",
       kInvalid,
       {"label selector \"env in (a,b\""}},

      // ---- NodePool requirements ---------------------------------------
      {"requirement operator Foo",
       Entry::kRequirements,
       Requirement(
           "{key: karpenter.sh/capacity-type, operator: Foo, values: [spot]}"),
       kInvalid,
       {"spec.template.spec.requirements[0].operator", "\"Foo\""}},
      {"requirement Gt negative",
       Entry::kRequirements,
       Requirement("{key: karpenter.k8s.aws/instance-cpu, operator: Gt, "
                   "values: [\"-1\"]}"),
       kInvalid,
       {"spec.template.spec.requirements[0].values", "\"-1\""}},
      {"requirement minValues 0",
       Entry::kRequirements,
       Requirement("{key: kubernetes.io/arch, operator: In, values: [amd64], "
                   "minValues: 0}"),
       kInvalid,
       {"spec.template.spec.requirements[0].minValues"}},
      // requirements.h: label values are not enumerated, so an unknown
      // capacity type is just a value no offering has.
      {"requirement with unknown capacity type parses",
       Entry::kRequirements,
       Requirement(
           "{key: karpenter.sh/capacity-type, operator: In, values: [Foo]}"),
       kOk,
       {"pools=1"}},

      // ---- NodePool disruption budgets ------------------------------------
      {"budget reason Foo",
       Entry::kBudgets,
       Budgets("      - nodes: \"1\"\n        reasons: [Foo]\n"),
       kInvalid,
       {"spec.disruption.budgets[0].reasons[0]", "\"Foo\""}},
      {"budget nodes negative",
       Entry::kBudgets,
       Budgets("      - nodes: \"-1\"\n"),
       kInvalid,
       {"spec.disruption.budgets[0].nodes", "\"-1\""}},
      {"budget nodes over 100 percent",
       Entry::kBudgets,
       Budgets("      - nodes: \"150%\"\n"),
       kInvalid,
       {"spec.disruption.budgets[0].nodes", "\"150%\""}},
      {"budget nodes empty string",
       Entry::kBudgets,
       Budgets("      - nodes: \"\"\n        schedule: \"@daily\"\n"),
       kInvalid,
       {"spec.disruption.budgets[0]", "duration"}},
      {"51 budgets on one NodePool",
       Entry::kBudgets,
       FiftyOneBudgets(),
       kInvalid,
       {"spec.disruption.budgets: must have at most 50 items, got 51"}},
      {"budget schedule without duration",
       Entry::kBudgets,
       Budgets("      - nodes: \"0\"\n        schedule: \"@daily\"\n"),
       kInvalid,
       {"spec.disruption.budgets[0]",
        "'schedule' must be set with "
        "'duration'"}},
      {"budget duration in seconds",
       Entry::kBudgets,
       Budgets("      - nodes: \"0\"\n        schedule: \"@daily\"\n"
               "        duration: 30s\n"),
       kInvalid,
       {"spec.disruption.budgets[0].duration: \"30s\""}},
      // disruption_spec.h: a schedule the CRD regex accepts but the cron
      // parser does not is a runtime error kept on the budget (fail closed).
      {"budget with a six-field schedule",
       Entry::kBudgets,
       Budgets("      - nodes: \"0\"\n        schedule: \"0 0 9 * * mon\"\n"
               "        duration: 1h\n"),
       kOk,
       {"cron_status=INVALID_ARGUMENT", "expected exactly 5 fields"}},
      {"budget with an out-of-range schedule",
       Entry::kBudgets,
       Budgets("      - nodes: \"0\"\n        schedule: \"0 25 * * *\"\n"
               "        duration: 1h\n"),
       kOk,
       {"cron_status=INVALID_ARGUMENT", "above maximum"}},
      {"consolidationPolicy Foo",
       Entry::kBudgets,
       Pool("    consolidationPolicy: Foo\n"),
       kInvalid,
       {"spec.disruption.consolidationPolicy", "\"Foo\""}},
      {"consolidateAfter negative",
       Entry::kBudgets,
       Pool("    consolidateAfter: -5m\n"),
       kInvalid,
       {"spec.disruption.consolidateAfter", "\"-5m\""}},
      {"expireAfter in days",
       Entry::kBudgets,
       Pool("    consolidateAfter: 1m\n", "      expireAfter: 30d\n"),
       kInvalid,
       {"spec.template.spec.expireAfter", "\"30d\""}},
      {"budget nodes as a YAML list",
       Entry::kBudgets,
       Budgets("      - nodes: [1]\n"),
       kInvalid,
       {"spec.disruption.budgets[0].nodes", "expected a string, got a list"}},

      // ---- Scenarios -----------------------------------------------------
      {"scenario price NaN",
       Entry::kScenario,
       InstanceTypePrice(".nan"),
       kInvalid,
       {"spec.instanceTypes[1].offerings[0].price", "nan"}},
      {"scenario price infinity",
       Entry::kScenario,
       InstanceTypePrice(".inf"),
       kInvalid,
       {"spec.instanceTypes[1].offerings[0].price", "inf"}},
      {"scenario price negative",
       Entry::kScenario,
       InstanceTypePrice("-0.5"),
       kInvalid,
       {"spec.instanceTypes[1].offerings[0].price", "-0.5"}},
      {"scenario price a string",
       Entry::kScenario,
       InstanceTypePrice("cheap"),
       kInvalid,
       {"price", "\"cheap\""}},
      {"scenario negative replicas",
       Entry::kScenario,
       Scenario("  generate:\n    workloads: [{name: web, nodePool: p, "
                "replicas: -1}]\n"),
       kInvalid,
       {"spec.generate.workloads[0].replicas", "-1"}},
      {"scenario negative node count",
       Entry::kScenario,
       Scenario("  generate:\n    nodes: [{nodePool: p, instanceType: "
                "m5.large, count: -3}]\n"),
       kInvalid,
       {"spec.generate.nodes[0].count", "-3"}},
      {"scenario node count overflowing int32",
       Entry::kScenario,
       Scenario("  generate:\n    nodes: [{nodePool: p, instanceType: "
                "m5.large, count: 4294967297}]\n"),
       kInvalid,
       {"spec.generate.nodes[0].count", "4294967297"}},
      {"scenario negative grace period",
       Entry::kScenario,
       Scenario("  generate:\n    workloads: [{name: web, nodePool: p, "
                "replicas: 1, terminationGracePeriod: -30s}]\n"),
       kInvalid,
       {"spec.generate.workloads[0].terminationGracePeriod", "\"-30s\""}},
      {"scenario negative change time",
       Entry::kScenario,
       Scenario("  changes: [{at: -1m, deleteNode: n1}]\n"),
       kInvalid,
       {"spec.changes[0].at", "\"-1m\""}},
      {"scenario negative until",
       Entry::kScenario,
       Scenario("  until: -1h\n"),
       kInvalid,
       {"spec.until", "\"-1h\""}},
      {"scenario unknown cloud method",
       Entry::kScenario,
       Scenario("  changes: [{at: 1m, cloudFault: {method: Foo, code: "
                "Unavailable, times: 1}}]\n"),
       kInvalid,
       {"spec.changes[0].cloudFault.method", "\"Foo\""}},
      {"scenario unknown status code",
       Entry::kScenario,
       Scenario("  changes: [{at: 1m, cloudFault: {method: Create, code: "
                "Foo, times: 1}}]\n"),
       kInvalid,
       {"spec.changes[0].cloudFault.code", "\"Foo\""}},
      {"scenario empty workload name",
       Entry::kScenario,
       Scenario("  generate:\n    workloads: [{name: \"\", nodePool: p, "
                "replicas: 1}]\n"),
       kInvalid,
       {"spec.generate.workloads[0].name"}},
      {"scenario node group of a missing NodePool",
       Entry::kScenario,
       Scenario("  generate:\n    nodes: [{nodePool: gone, instanceType: "
                "m5.large, count: 1}]\n"),
       kInvalid,
       {"spec.generate.nodes[0].nodePool", "\"gone\""}},
      {"scenario missing",
       Entry::kScenario,
       Pool("    consolidateAfter: 1m\n"),
       kInvalid,
       {"in.yaml: no Scenario document"}},
      {"scenario duplicated",
       Entry::kScenario,
       Scenario("") + "---\n" + ScenarioDoc(""),
       kInvalid,
       {"in.yaml: 2 Scenario documents"}},
  };
}

TEST_CASE("catalogue: malformed input is rejected naming field and value",
          "[catalogue]") {
  const std::vector<Row> rows = Catalogue();
  REQUIRE(rows.size() >= 60);
  for (const Row& row : rows) {
    DYNAMIC_SECTION(row.name) {
      const Outcome out = Run(row.entry, row.input);
      INFO("status: " << out.status.ToString());
      INFO("summary: " << out.summary);
      CHECK(out.status.code() == row.code);
      const std::string& text = row.code == StatusCode::kOk
                                    ? out.summary
                                    : std::string(out.status.message());
      for (const std::string& fragment : row.expected) {
        INFO("expected fragment: " << fragment);
        CHECK(absl::StrContains(text, fragment));
      }
    }
  }
}

TEST_CASE("catalogue: row names are unique", "[catalogue]") {
  std::vector<std::string> names;
  for (const Row& row : Catalogue()) names.push_back(row.name);
  std::sort(names.begin(), names.end());
  CHECK(std::adjacent_find(names.begin(), names.end()) == names.end());
}

}  // namespace
}  // namespace karpenter
