// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Node selector matching (karpenter/scheduling/node_selector.h) against the
// rules of component-helpers nodeaffinity.go and apimachinery
// labels/selector.go: one table row per rule, written as text-format
// protos.

#include "karpenter/scheduling/node_selector.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "google/protobuf/text_format.h"
#include "karpenter/v1/core.pb.h"
#include "karpenter/v1/storage.pb.h"

namespace karpenter::scheduling {
namespace {

template <typename T>
T Parse(const std::string& text) {
  T out;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(text, &out));
  return out;
}

v1::Node MakeNode(const std::string& name,
                  const std::map<std::string, std::string>& labels) {
  v1::Node node;
  node.mutable_metadata()->set_name(name);
  for (const auto& [k, v] : labels) {
    (*node.mutable_metadata()->mutable_labels())[k] = v;
  }
  return node;
}

// The node every term row is matched against.
v1::Node Worker() {
  return MakeNode(
      "node-a",
      {{"zone", "us-1a"}, {"gpus", "4"}, {"tier", "gold"}, {"note", "abc"}});
}

struct TermRow {
  const char* what;
  const char* term;  // A NodeSelectorTerm in text format.
  bool want;
};

TEST_CASE("NodeSelectorTermMatches: operators, parse errors, matchFields",
          "[scheduling][node_selector]") {
  const TermRow rows[] = {
      {"empty term matches nothing", "", false},
      // In.
      {"In: value listed",
       R"(match_expressions { key: "zone" operator: "In" values: "us-1b"
                              values: "us-1a" })",
       true},
      {"In: value not listed",
       R"(match_expressions { key: "zone" operator: "In" values: "us-1b" })",
       false},
      {"In: label absent",
       R"(match_expressions { key: "rack" operator: "In" values: "r1" })",
       false},
      {"In without values does not parse",
       R"(match_expressions { key: "zone" operator: "In" })", false},
      // NotIn.
      {"NotIn: label absent matches",
       R"(match_expressions { key: "rack" operator: "NotIn" values: "r1" })",
       true},
      {"NotIn: other value matches",
       R"(match_expressions { key: "zone" operator: "NotIn" values: "us-1b" })",
       true},
      {"NotIn: listed value fails",
       R"(match_expressions { key: "zone" operator: "NotIn" values: "us-1a" })",
       false},
      {"NotIn with an invalid label value makes the term unmatchable",
       R"(match_expressions { key: "rack" operator: "NotIn" values: "a b" })",
       false},
      {"In with one invalid value among valid ones",
       R"(match_expressions { key: "zone" operator: "In" values: "us-1a"
                              values: "-bad" })",
       false},
      {"NotIn without values does not parse",
       R"(match_expressions { key: "rack" operator: "NotIn" })", false},
      // Exists / DoesNotExist.
      {"Exists: present",
       R"(match_expressions { key: "tier" operator: "Exists" })", true},
      {"Exists: absent",
       R"(match_expressions { key: "rack" operator: "Exists" })", false},
      {"Exists with values does not parse",
       R"(match_expressions { key: "tier" operator: "Exists" values: "x" })",
       false},
      {"DoesNotExist: absent",
       R"(match_expressions { key: "rack" operator: "DoesNotExist" })", true},
      {"DoesNotExist: present",
       R"(match_expressions { key: "tier" operator: "DoesNotExist" })", false},
      // Gt / Lt.
      {"Gt: 4 > 3", R"(match_expressions { key: "gpus" operator: "Gt"
                                          values: "3" })",
       true},
      {"Gt: 4 > 4 is false", R"(match_expressions { key: "gpus" operator: "Gt"
                                                    values: "4" })",
       false},
      {"Lt: 4 < 10", R"(match_expressions { key: "gpus" operator: "Lt"
                                           values: "10" })",
       true},
      {"Lt: label absent", R"(match_expressions { key: "rack" operator: "Lt"
                                                  values: "10" })",
       false},
      {"Gt: label not an integer",
       R"(match_expressions { key: "note" operator: "Gt" values: "1" })",
       false},
      {"Gt: value not an integer does not parse",
       R"(match_expressions { key: "gpus" operator: "Gt" values: "three" })",
       false},
      {"Gt: two values do not parse",
       R"(match_expressions { key: "gpus" operator: "Gt" values: "1"
                              values: "2" })",
       false},
      {"Gt: a negative value is not a valid label value",
       R"(match_expressions { key: "gpus" operator: "Gt" values: "-1" })",
       false},
      // Other parse errors.
      {"unknown operator",
       R"(match_expressions { key: "gpus" operator: "Gte" values: "1" })",
       false},
      {"key that is not a qualified name",
       R"(match_expressions { key: "a b" operator: "DoesNotExist" })", false},
      // ANDed requirements.
      {"expressions ANDed: all hold",
       R"(match_expressions { key: "zone" operator: "In" values: "us-1a" }
          match_expressions { key: "tier" operator: "Exists" })",
       true},
      {"expressions ANDed: one fails",
       R"(match_expressions { key: "zone" operator: "In" values: "us-1a" }
          match_expressions { key: "rack" operator: "Exists" })",
       false},
      // matchFields.
      {"matchFields metadata.name In: own name",
       R"(match_fields { key: "metadata.name" operator: "In"
                         values: "node-a" })",
       true},
      {"matchFields metadata.name In: other name",
       R"(match_fields { key: "metadata.name" operator: "In"
                         values: "node-b" })",
       false},
      {"matchFields metadata.name NotIn: other name",
       R"(match_fields { key: "metadata.name" operator: "NotIn"
                         values: "node-b" })",
       true},
      {"matchFields In with two values does not parse",
       R"(match_fields { key: "metadata.name" operator: "In"
                         values: "node-a" values: "node-b" })",
       false},
      {"matchFields Exists does not parse",
       R"(match_fields { key: "metadata.name" operator: "Exists" })", false},
      {"matchFields on another field reads empty: In fails",
       R"(match_fields { key: "spec.x" operator: "In" values: "x" })", false},
      {"matchFields on another field reads empty: NotIn holds",
       R"(match_fields { key: "spec.x" operator: "NotIn" values: "x" })", true},
      {"expressions and fields ANDed",
       R"(match_expressions { key: "zone" operator: "In" values: "us-1a" }
          match_fields { key: "metadata.name" operator: "In"
                         values: "node-b" })",
       false},
  };
  for (const TermRow& row : rows) {
    INFO(row.what);
    CHECK(NodeSelectorTermMatches(Parse<v1::NodeSelectorTerm>(row.term),
                                  Worker()) == row.want);
  }
}

struct SelectorRow {
  const char* what;
  const char* selector;  // A NodeSelector in text format.
  bool want_named;       // NodeSelectorMatches on node-a.
  bool want_labels;      // NodeSelectorMatchesLabels on its labels.
};

TEST_CASE(
    "NodeSelectorMatches: terms ORed, and the labels-only form skips fields",
    "[scheduling][node_selector]") {
  const SelectorRow rows[] = {
      {"no terms", "", false, false},
      {"only an empty term", "node_selector_terms {}", false, false},
      {"empty term then a matching one",
       R"(node_selector_terms {}
          node_selector_terms { match_expressions { key: "tier"
                                                    operator: "Exists" } })",
       true, true},
      {"unparsable term then a matching one",
       R"(node_selector_terms { match_expressions { key: "tier"
                                                    operator: "Bogus" } }
          node_selector_terms { match_expressions { key: "zone" operator: "In"
                                                    values: "us-1a" } })",
       true, true},
      {"no term matches",
       R"(node_selector_terms { match_expressions { key: "zone" operator: "In"
                                                    values: "us-1b" } }
          node_selector_terms { match_expressions { key: "rack"
                                                    operator: "Exists" } })",
       false, false},
      {"matchFields naming another node: unnamed node ignores fields",
       R"(node_selector_terms { match_fields { key: "metadata.name"
                                               operator: "In"
                                               values: "node-b" } })",
       false, true},
      {"unparsable matchFields still fail on an unnamed node",
       R"(node_selector_terms { match_fields { key: "metadata.name"
                                               operator: "Gt"
                                               values: "1" } })",
       false, false},
      {"labels still checked on an unnamed node",
       R"(node_selector_terms {
            match_expressions { key: "zone" operator: "In" values: "us-1b" }
            match_fields { key: "metadata.name" operator: "In"
                           values: "node-a" } })",
       false, false},
  };
  for (const SelectorRow& row : rows) {
    INFO(row.what);
    const auto selector = Parse<v1::NodeSelector>(row.selector);
    const v1::Node node = Worker();
    CHECK(NodeSelectorMatches(selector, node) == row.want_named);
    CHECK(NodeSelectorMatchesLabels(selector, node.metadata().labels()) ==
          row.want_labels);
  }
}

struct TopologyRow {
  const char* what;
  const char* storage_class;  // A StorageClass in text format.
  bool want;
};

TEST_CASE("TopologySelectorTermsMatch: allowedTopologies of a StorageClass",
          "[scheduling][node_selector]") {
  const TopologyRow rows[] = {
      {"no allowedTopologies admit every node", "", true},
      {"zone listed",
       R"(allowed_topologies { match_label_expressions {
            key: "zone" values: "us-1b" values: "us-1a" } })",
       true},
      {"zone not listed",
       R"(allowed_topologies { match_label_expressions {
            key: "zone" values: "us-1b" } })",
       false},
      {"requirements of a term ANDed",
       R"(allowed_topologies {
            match_label_expressions { key: "zone" values: "us-1a" }
            match_label_expressions { key: "tier" values: "silver" } })",
       false},
      {"terms ORed",
       R"(allowed_topologies { match_label_expressions {
            key: "zone" values: "us-1b" } }
          allowed_topologies { match_label_expressions {
            key: "tier" values: "gold" } })",
       true},
      {"an empty term matches nothing", "allowed_topologies {}", false},
      {"key absent on the node",
       R"(allowed_topologies { match_label_expressions {
            key: "rack" values: "r1" } })",
       false},
      {"a term with an invalid value is skipped",
       R"(allowed_topologies { match_label_expressions {
            key: "zone" values: "us-1a" values: "not valid" } })",
       false},
      {"a term without values is skipped",
       R"(allowed_topologies { match_label_expressions { key: "zone" } }
          allowed_topologies { match_label_expressions {
            key: "tier" values: "gold" } })",
       true},
  };
  for (const TopologyRow& row : rows) {
    INFO(row.what);
    const auto sc = Parse<v1::StorageClass>(row.storage_class);
    const v1::Node node = Worker();
    CHECK(TopologySelectorTermsMatch(sc.allowed_topologies(),
                                     node.metadata().labels()) == row.want);
  }
}

}  // namespace
}  // namespace karpenter::scheduling
