// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// FastJsonDecoder must give exactly what protobuf's JsonStringToMessage
// (ignore_unknown_fields) gives, or decline. Every case is checked against
// protobuf itself with MessageDifferencer.

#include "snapshot/json_decode.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/testing/synthetic_cluster.h"
#include "karpenter/v1/core.pb.h"
#include "karpenter/v1/karpenter.pb.h"
#include "snapshot/json_scan.h"
#include "snapshot/object_sink.h"

namespace karpenter::snapshot::internal {
namespace {

namespace pb = ::google::protobuf;

enum class Want { kFast, kDeclined };

// Decodes `json` both ways as a `prototype`; returns whether the fast path
// took it, after checking it agrees with protobuf when it did.
bool DecodeBothWays(const pb::Message& prototype, absl::string_view json) {
  INFO(json);
  REQUIRE(ValidateJson(json).ok());
  std::unique_ptr<pb::Message> fast(prototype.New());
  std::unique_ptr<pb::Message> slow(prototype.New());
  FastJsonDecoder decoder;
  const bool took = decoder.Decode(json, *fast);
  pb::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  // Quantities written as numbers reach protobuf quoted, as ObjectSink
  // hands them over.
  std::string quoted;
  const absl::string_view input =
      QuoteNumbersAsText(json, prototype.GetDescriptor(), quoted) ? quoted
                                                                  : json;
  const auto status = pb::util::JsonStringToMessage(
      pb::StringPiece(input.data(), input.size()), slow.get(), options);
  if (took) {
    INFO("protobuf: " << status.ToString());
    REQUIRE(status.ok());
    std::string diff;
    pb::util::MessageDifferencer differencer;
    differencer.ReportDifferencesToString(&diff);
    INFO("fast: " << fast->ShortDebugString());
    INFO("protobuf: " << slow->ShortDebugString());
    CHECK(differencer.Compare(*slow, *fast));
    CHECK(diff.empty());
  }
  return took;
}

struct Case {
  const pb::Message* prototype;
  std::string json;
  Want want;
};

TEST_CASE("snapshot json_decode: agrees with protobuf on what it accepts",
          "[snapshot][json_decode]") {
  const pb::Message* pod = &v1::Pod::default_instance();
  const pb::Message* node = &v1::Node::default_instance();
  const pb::Message* pdb = &v1::PodDisruptionBudget::default_instance();
  const pb::Message* pool = &v1::NodePool::default_instance();
  const pb::Message* claim = &v1::NodeClaim::default_instance();
  const std::vector<Case> cases = {
      // Unknown members at every depth, bulky or not, are skipped.
      {pod,
       R"({"kind":"Pod","zz":{"a":[1,{"b":null}]},"metadata":{"name":"p",
          "managedFields":[{"manager":"m","fieldsV1":{"f:spec":{"k:{\"n\":1}":{}}}}],
          "labels":{"app":"web"}},"spec":{"dnsPolicy":"x","containers":[
          {"name":"c","env":[{"name":"A","value":"1"}],"resources":{
          "requests":{"cpu":"1"},"claims":[{"name":"gpu"}]}}]},
          "status":{"containerStatuses":[{"name":"c","ready":true}],
          "conditions":[{"type":"Ready","lastProbeTime":null,"extra":[[]]}]}})",
       Want::kFast},
      // Declared names inside skipped subtrees are not picked up; declared
      // siblings of skipped members are.
      {pod,
       R"({"metadata":{"annotations2":{"name":"wrong"},"name":"right",
          "ownerReferences":[{"junk":{"kind":"X"},"kind":"ReplicaSet"}]},
          "spec":{"overhead2":{"cpu":"9"},"nodeName":"n1"}})",
       Want::kFast},
      // json_name and proto names, escaped keys.
      {node, R"({"spec":{"providerID":"aws:///a/i-1"}})", Want::kFast},
      {node, R"({"spec":{"provider_id":"aws:///a/i-1"}})", Want::kFast},
      {node, R"({"spec":{"provider\u0049D":"x"},"api\u0056ersion":"v1"})",
       Want::kFast},
      {pod, R"({"metadata":{"creation_timestamp":"2024-01-01T00:00:00Z"}})",
       Want::kFast},
      {pod, R"({"metadata":{"na\u006de":"caf\u00e9 \ud83d\ude00 \"q\" \\"}})",
       Want::kFast},
      // Integers as numbers and strings; int32 and int64; negative.
      {pod,
       R"({"spec":{"priority":-5,"terminationGracePeriodSeconds":"30"},
          "metadata":{"generation":9007199254740993,
          "deletionGracePeriodSeconds":0}})",
       Want::kFast},
      {pod, R"({"spec":{"priority":"2147483647"}})", Want::kFast},
      // Quantities and budget nodes as numbers: kept as their text.
      {pod,
       R"({"spec":{"overhead":{"cpu":0.5},"containers":[{"resources":{
          "requests":{"cpu":500,"memory":"1Gi"},"limits":{"cpu":-1e3}}}]}})",
       Want::kFast},
      {pool,
       R"({"spec":{"limits":{"cpu":1.5E+2},"disruption":{"budgets":[
          {"nodes":5},{"nodes":"10%"}]}},"status":{"resources":{"cpu":0}}})",
       Want::kFast},
      {claim, R"({"status":{"capacity":{"cpu":2},"allocatable":{"cpu":1}}})",
       Want::kFast},
      // Elsewhere a number is not a string: protobuf reports it.
      {node, R"({"metadata":{"labels":{"a":5}}})", Want::kDeclined},
      {node, R"({"spec":{"providerID":5}})", Want::kDeclined},
      {pdb,
       R"({"status":{"observedGeneration":"-9223372036854775808",
          "expectedPods":0}})",
       Want::kFast},
      // Timestamps: offsets, fractions.
      {pod,
       R"({"status":{"startTime":"2024-02-29T23:59:59.123456789+05:30"},
          "metadata":{"deletionTimestamp":"1970-01-01T00:00:00Z",
          "creationTimestamp":"2024-01-01T00:00:00.5-08:00"}})",
       Want::kFast},
      // Nulls: absent, skipped list elements, Value's null.
      {pod,
       R"({"metadata":{"name":null,"labels":null,"finalizers":["a",null,"b"],
          "ownerReferences":[null,{"controller":false}]},"spec":null,
          "status":{"startTime":null}})",
       Want::kFast},
      {pdb, R"({"spec":{"minAvailable":null,"maxUnavailable":"25%"}})",
       Want::kFast},
      {pdb, R"({"spec":{"minAvailable":3,"selector":{}}})", Want::kFast},
      {pdb, R"({"spec":{"maxUnavailable":-9007199254740992}})", Want::kFast},
      // Empty messages keep their presence; booleans; empty lists and maps.
      {pool,
       R"({"spec":{"disruption":{"budgets":[{},{"nodes":"0","reasons":[]}]},
          "template":{"metadata":{"labels":{}}},"weight":10,"replicas":3},
          "status":{}})",
       Want::kFast},
      {claim,
       R"({"spec":{"taints":[{"key":"k","effect":"NoSchedule"}],
          "requirements":[{"key":"a","operator":"In","values":["x","y"],
          "minValues":2}],"nodeClassRef":{"apiVersion":"v1","name":"d"}},
          "status":{"lastPodEventTime":"2024-01-01T00:00:00Z"}})",
       Want::kFast},
      {node, R"({"spec":{"unschedulable":true,"taints":[]}})", Want::kFast},
      {pod, " { } ", Want::kFast},
      // Declined: protobuf decides (and for most, reports the error).
      {pod, R"({"metadata":{"name":"a","name":"b"}})", Want::kDeclined},
      {node, R"({"spec":{"providerID":"a","provider_id":"b"}})",
       Want::kDeclined},
      {pod, R"({"metadata":{"labels":{"a":"1","a":"2"}}})", Want::kDeclined},
      // An empty member name, at the top or nested (found by the fuzzer).
      {pod, R"({"":1})", Want::kDeclined},
      {pool, R"({"metadata":{"name":"p","":[{"f":{}}]}})", Want::kDeclined},
      {pod, R"({"metadata":{"labels":{"a":null}}})", Want::kDeclined},
      {pod, R"({"metadata":{"labels":{"\u0061":"x"}}})", Want::kDeclined},
      {pod, R"({"spec":{"priority":1.0}})", Want::kDeclined},
      {pod, R"({"spec":{"priority":"007"}})", Want::kDeclined},
      {pod, R"({"spec":{"priority":2147483648}})", Want::kDeclined},
      {pod, R"({"spec":{"priority":"x"}})", Want::kDeclined},
      {pod, R"({"metadata":{"name":5}})", Want::kDeclined},
      {pod, R"({"metadata":{"creationTimestamp":"yesterday"}})",
       Want::kDeclined},
      {pod, R"({"metadata":{"creationTimestamp":1}})", Want::kDeclined},
      {pod, R"({"spec":{"containers":{}}})", Want::kDeclined},
      {pod, R"({"spec":[]})", Want::kDeclined},
      {node, R"({"spec":{"unschedulable":"true"}})", Want::kDeclined},
      {pdb, R"({"spec":{"minAvailable":true}})", Want::kDeclined},
      {pdb, R"({"spec":{"minAvailable":0.5}})", Want::kDeclined},
      {pdb, R"({"spec":{"minAvailable":9007199254740993}})", Want::kDeclined},
  };
  for (const Case& c : cases) {
    CHECK(DecodeBothWays(*c.prototype, c.json) == (c.want == Want::kFast));
  }
}

// Every object of `text` (a JSON list or object), decoded both ways.
int CheckEveryObject(absl::string_view text) {
  int fast = 0;
  auto one = [&](absl::string_view item) {
    const auto kind = FindMember(item, "kind");
    const auto api = FindMember(item, "apiVersion");
    const ObjectKind k = Classify(kind ? StringValue(*kind).value_or("") : "",
                                  api ? StringValue(*api).value_or("") : "");
    if (k == ObjectKind::kSkipped) return true;
    const pb::Message* prototype =
        pb::MessageFactory::generated_factory()->GetPrototype(DescriptorFor(k));
    if (DecodeBothWays(*prototype, item)) ++fast;
    return true;
  };
  REQUIRE(ValidateJson(text).ok());
  const size_t start = SkipWhitespace(text, 0);
  const absl::string_view value =
      text.substr(start, SkipValue(text, start) - start);
  const auto items = FindMember(value, "items");
  if (value.front() == '[') {
    ForEachElement(value, [&](size_t, absl::string_view e) { return one(e); });
  } else if (items) {
    ForEachElement(*items, [&](size_t, absl::string_view e) { return one(e); });
  } else {
    one(value);
  }
  return fast;
}

std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

TEST_CASE("snapshot json_decode: fixtures decode as protobuf decodes them",
          "[snapshot][json_decode]") {
  int files = 0, fast = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(KARPENTER_TESTDATA_DIR)) {
    if (entry.path().extension() != ".json") continue;
    INFO(entry.path().string());
    ++files;
    fast += CheckEveryObject(ReadAll(entry.path()));
  }
  CHECK(files >= 5);
  CHECK(fast >= 10);  // the fixtures are ordinary: the fast path takes them
}

TEST_CASE("snapshot json_decode: synthetic cluster round-trips",
          "[snapshot][json_decode]") {
  testing::SyntheticClusterOptions options;
  options.nodes = 4;
  options.persistent_volumes = 2;
  const absl::StatusOr<ObjectSet> objects =
      testing::MakeSyntheticCluster(options);
  REQUIRE(objects.ok());
  auto check = [](const pb::Message& original) {
    std::string json;
    REQUIRE(pb::util::MessageToJsonString(original, &json).ok());
    std::unique_ptr<pb::Message> decoded(original.New());
    FastJsonDecoder decoder;
    REQUIRE(decoder.Decode(json, *decoded));
    CHECK(pb::util::MessageDifferencer::Equals(original, *decoded));
    CHECK(DecodeBothWays(original, json));
  };
  for (const auto& m : objects->nodes) check(m);
  for (const auto& m : objects->pods) check(m);
  for (const auto& m : objects->pdbs) check(m);
  for (const auto& m : objects->node_pools) check(m);
  for (const auto& m : objects->node_claims) check(m);
  for (const auto& m : objects->persistent_volumes) check(m);
  for (const auto& m : objects->persistent_volume_claims) check(m);
  for (const auto& m : objects->storage_classes) check(m);
  for (const auto& m : objects->csi_nodes) check(m);
  for (const auto& m : objects->daemon_sets) check(m);
}

TEST_CASE("snapshot json_decode: loader results equal protobuf's path",
          "[snapshot][json_decode]") {
  // Mixes objects the fast path takes with ones it declines (a repeated
  // label key), through the public loader.
  const std::string text = R"({"kind":"List","items":[
    {"kind":"Pod","metadata":{"name":"a","managedFields":[{"x":{}}]},
     "spec":{"priority":3}},
    {"kind":"Pod","metadata":{"name":"b","labels":{"k":"1","k2":"2"}},
     "spec":{"priority":"4"}},
    {"kind":"Node","metadata":{"name":"n"},"spec":{"provider_id":"p"},
     "status":{"images":[{"names":["i"],"sizeBytes":1}]}}]})";
  ObjectSet set;
  REQUIRE(LoadJson(text, "t", set).ok());
  REQUIRE(set.pods.size() == 2);
  CHECK(set.pods[0].metadata().name() == "a");
  CHECK(set.pods[0].spec().priority() == 3);
  CHECK(set.pods[1].metadata().labels().at("k2") == "2");
  CHECK(set.pods[1].spec().priority() == 4);
  REQUIRE(set.nodes.size() == 1);
  CHECK(set.nodes[0].spec().provider_id() == "p");
  CHECK(CheckEveryObject(text) == 3);
}

TEST_CASE("snapshot json_decode: bad JSON inside a skipped member is an error",
          "[snapshot][json_decode]") {
  struct ErrorCase {
    std::string text;
    std::string message;
  };
  const std::vector<ErrorCase> cases = {
      {R"({"kind":"Pod","metadata":{"managedFields":[{"f": tru}]}})",
       "t: metadata.managedFields[0].f: invalid JSON at line 1, column 50: "
       "unexpected character 't'"},
      {R"({"kind":"Node","status":{"images":[{"names":["a",]}]}})",
       "t: status.images[0].names[1]: invalid JSON at line 1, column 50: "
       "unexpected character ']'"},
      {"{\"kind\":\"Pod\",\"zz\":\"\xC3\"}",
       "t: zz: invalid JSON at line 1, column 21: invalid UTF-8 in string"},
      {R"({"kind":"Pod","spec":{"x":01}})",
       "t: spec.x: invalid JSON at line 1, column 28: expected ',' or '}'"},
  };
  for (const ErrorCase& c : cases) {
    ObjectSet set;
    const absl::Status s = LoadJson(c.text, "t", set);
    INFO(c.text);
    CHECK(s.code() == absl::StatusCode::kInvalidArgument);
    CHECK(std::string(s.message()) == c.message);
    CHECK(set.pods.empty());
  }
}

TEST_CASE("snapshot json_decode: long wire lengths and reuse",
          "[snapshot][json_decode]") {
  // Nested lengths over 127 and 16383 bytes need multi-byte varints; one
  // decoder serves many objects.
  FastJsonDecoder decoder;
  for (size_t n : {10, 200, 20000, 3000000}) {
    const std::string json =
        absl::StrCat(R"({"metadata":{"name":")", std::string(n, 'x'),
                     R"(","labels":{"a":"b"}},"spec":{"nodeName":"n"}})");
    v1::Pod pod;
    REQUIRE(decoder.Decode(json, pod));
    CHECK(pod.metadata().name().size() == n);
    CHECK(pod.metadata().labels().at("a") == "b");
    CHECK(pod.spec().node_name() == "n");
  }
}

}  // namespace
}  // namespace karpenter::snapshot::internal
