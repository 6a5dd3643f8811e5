// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/requirements.h"

#include <catch2/catch.hpp>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "karpenter/v1/meta.pb.h"

namespace karpenter {
namespace {

using Labels = google::protobuf::Map<std::string, std::string>;

v1::NodeSelectorRequirement Proto(const std::string& key, const std::string& op,
                                  const std::vector<std::string>& values = {},
                                  std::optional<int32_t> min_values = {}) {
  v1::NodeSelectorRequirement p;
  p.set_key(key);
  p.set_operator_(op);
  for (const std::string& v : values) p.add_values(v);
  if (min_values) p.set_min_values(*min_values);
  return p;
}

Requirement Req(const std::string& key, const std::string& op,
                const std::vector<std::string>& values = {}) {
  absl::StatusOr<Requirement> r =
      Requirement::FromProto(Proto(key, op, values), "req");
  INFO(key << " " << op << " -> " << r.status().ToString());
  REQUIRE(r.ok());
  return *std::move(r);
}

// A Requirements built from `reqs` in order.
Requirements Reqs(std::initializer_list<Requirement> reqs) {
  Requirements out;
  for (const Requirement& r : reqs) out.Add(r);
  return out;
}

Requirements FromLabels(
    std::initializer_list<std::pair<const char*, const char*>> kvs) {
  Labels labels;
  for (const auto& [k, v] : kvs) labels[k] = v;
  return Requirements::FromLabels(labels);
}

TEST_CASE("requirements: every operator parses to its set form",
          "[requirements]") {
  struct Case {
    std::string op;
    std::vector<std::string> values;
    std::string want;
    Requirement::Operator want_op;
  };
  using Op = Requirement::Operator;
  const std::vector<Case> cases = {
      {"In", {"b", "a", "b"}, "k In [a b]", Op::kIn},
      {"NotIn", {"x"}, "k NotIn [x]", Op::kNotIn},
      {"NotIn", {}, "k Exists", Op::kExists},
      {"Exists", {}, "k Exists", Op::kExists},
      {"DoesNotExist", {}, "k DoesNotExist", Op::kDoesNotExist},
      // Gt/Lt are stored as inclusive bounds, like current Karpenter.
      {"Gt", {"4"}, "k Exists >=5", Op::kExists},
      {"Lt", {"4"}, "k Exists <=3", Op::kExists},
      {"Gte", {"4"}, "k Exists >=4", Op::kExists},
      {"Lte", {"0"}, "k Exists <=0", Op::kExists},
      {"Gt", {"+007"}, "k Exists >=8", Op::kExists},
      {"Gt", {"9223372036854775807"}, "k DoesNotExist", Op::kDoesNotExist},
  };
  for (const Case& c : cases) {
    const Requirement r = Req("k", c.op, c.values);
    INFO(c.op);
    CHECK(r.ToString() == c.want);
    CHECK(r.op() == c.want_op);
  }
}

TEST_CASE("requirements: invalid requirements name the field and the value",
          "[requirements]") {
  struct Case {
    v1::NodeSelectorRequirement proto;
    std::string want;
  };
  const std::vector<Case> cases = {
      {Proto("k", "Foo"),
       "spec.requirements[1].operator: unknown operator \"Foo\""},
      {Proto("k", "in", {"a"}),
       "spec.requirements[1].operator: unknown operator \"in\""},
      {Proto("k", ""), "spec.requirements[1].operator: unknown operator \"\""},
      {Proto("k", "In"),
       "spec.requirements[1].values: operator \"In\" needs at least one "
       "value, got []"},
      {Proto("k", "Exists", {"a"}),
       "spec.requirements[1].values: operator \"Exists\" takes no values, "
       "got [\"a\"]"},
      {Proto("k", "DoesNotExist", {""}),
       "spec.requirements[1].values: operator \"DoesNotExist\" takes no "
       "values, got [\"\"]"},
      {Proto("k", "Gt"),
       "spec.requirements[1].values: operator \"Gt\" needs exactly one "
       "non-negative integer value, got []"},
      {Proto("k", "Lt", {"1", "2"}),
       "spec.requirements[1].values: operator \"Lt\" needs exactly one "
       "non-negative integer value, got [\"1\", \"2\"]"},
      {Proto("k", "Gt", {"four"}),
       "spec.requirements[1].values: operator \"Gt\" needs exactly one "
       "non-negative integer value, got [\"four\"]"},
      {Proto("k", "Gte", {"-1"}),
       "spec.requirements[1].values: operator \"Gte\" needs exactly one "
       "non-negative integer value, got [\"-1\"]"},
      {Proto("k", "Lte", {" 1"}),
       "spec.requirements[1].values: operator \"Lte\" needs exactly one "
       "non-negative integer value, got [\" 1\"]"},
      {Proto("k", "Gt", {"99999999999999999999"}),
       "spec.requirements[1].values: operator \"Gt\" needs exactly one "
       "non-negative integer value, got [\"99999999999999999999\"]"},
      {Proto("", "Exists"), "spec.requirements[1].key: \"\": "},
      {Proto("a b", "Exists"), "spec.requirements[1].key: \"a b\": "},
      {Proto("k", "In", {"a"}, 2),
       "spec.requirements[1].minValues: 2 is more than the 1 values of "
       "operator \"In\""},
      {Proto("k", "Exists", {}, 0),
       "spec.requirements[1].minValues: must be at least 1, got 0"},
  };
  for (const Case& c : cases) {
    google::protobuf::RepeatedPtrField<v1::NodeSelectorRequirement> list;
    *list.Add() = Proto("ok", "Exists");
    *list.Add() = c.proto;
    *list.Add() = Proto("bad", "Bad");  // Only the first error is reported.
    absl::StatusOr<Requirements> r =
        Requirements::FromProto(list, "spec.requirements");
    INFO(c.proto.ShortDebugString() << " -> " << r.status().ToString());
    REQUIRE_FALSE(r.ok());
    CHECK(absl::IsInvalidArgument(r.status()));
    CHECK(r.status().message().substr(0, c.want.size()) == c.want);
  }
}

TEST_CASE("requirements: deprecated label keys are normalized",
          "[requirements]") {
  CHECK(Req("beta.kubernetes.io/arch", "In", {"amd64"}).key() ==
        "kubernetes.io/arch");
  CHECK(Req("failure-domain.beta.kubernetes.io/zone", "Exists").key() ==
        "topology.kubernetes.io/zone");
  CHECK(NormalizeLabelKey("beta.kubernetes.io/instance-type") ==
        "node.kubernetes.io/instance-type");
  CHECK(NormalizeLabelKey("example.com/arch") == "example.com/arch");
  // A label under the old key and one under the new key are one key; two
  // different values then leave nothing.
  const Requirements both = FromLabels(
      {{"beta.kubernetes.io/arch", "amd64"}, {"kubernetes.io/arch", "arm64"}});
  REQUIRE(both.size() == 1);
  CHECK(both.Get("kubernetes.io/arch")->IsEmpty());
}

TEST_CASE("requirements: Has admits values by set and bounds",
          "[requirements]") {
  struct Case {
    Requirement r;
    std::string value;
    bool want;
  };
  const std::vector<Case> cases = {
      {Req("k", "In", {"a", "b"}), "a", true},
      {Req("k", "In", {"a", "b"}), "c", false},
      {Req("k", "NotIn", {"a"}), "a", false},
      {Req("k", "NotIn", {"a"}), "z", true},
      {Req("k", "Exists"), "", true},
      {Req("k", "DoesNotExist"), "a", false},
      {Req("k", "Gt", {"4"}), "5", true},
      {Req("k", "Gt", {"4"}), "4", false},
      {Req("k", "Gt", {"4"}), "2", false},
      {Req("k", "Gt", {"4"}), "+5", true},  // Go's Atoi takes a sign.
      {Req("k", "Gt", {"4"}), "05", true},
      {Req("k", "Gt", {"4"}), "5.0", false},  // Not an int: outside.
      {Req("k", "Gt", {"4"}), "abc", false},
      {Req("k", "Lt", {"4"}), "3", true},
      {Req("k", "Lt", {"4"}), "4", false},
      {Req("k", "Lt", {"4"}), "-9", true},
      {Req("k", "Gte", {"4"}), "4", true},
      {Req("k", "Lte", {"4"}), "4", true},
      {Req("k", "Lte", {"4"}), "5", false},
  };
  for (const Case& c : cases) {
    INFO(c.r.ToString() << " has " << c.value);
    CHECK(c.r.Has(c.value) == c.want);
  }
}

TEST_CASE("requirements: intersection table", "[requirements]") {
  struct Case {
    Requirement a;
    Requirement b;
    std::string want;
  };
  const std::vector<Case> cases = {
      {Req("k", "In", {"a", "b", "c"}), Req("k", "In", {"b", "c", "d"}),
       "k In [b c]"},
      {Req("k", "In", {"a", "b"}), Req("k", "NotIn", {"a"}), "k In [b]"},
      {Req("k", "NotIn", {"a"}), Req("k", "In", {"a", "b"}), "k In [b]"},
      {Req("k", "NotIn", {"a"}), Req("k", "NotIn", {"b"}), "k NotIn [a b]"},
      {Req("k", "In", {"a"}), Req("k", "NotIn", {"a"}), "k DoesNotExist"},
      {Req("k", "Exists"), Req("k", "In", {"a"}), "k In [a]"},
      {Req("k", "Exists"), Req("k", "NotIn", {"a"}), "k NotIn [a]"},
      {Req("k", "Exists"), Req("k", "DoesNotExist"), "k DoesNotExist"},
      {Req("k", "DoesNotExist"), Req("k", "NotIn", {"a"}), "k DoesNotExist"},
      {Req("k", "Gt", {"1"}), Req("k", "Lt", {"9"}), "k Exists >=2 <=8"},
      {Req("k", "Gt", {"1"}), Req("k", "Gt", {"5"}), "k Exists >=6"},
      {Req("k", "Lte", {"3"}), Req("k", "Lt", {"9"}), "k Exists <=3"},
      // Crossed bounds admit nothing.
      {Req("k", "Gt", {"5"}), Req("k", "Lt", {"6"}), "k DoesNotExist"},
      {Req("k", "Gte", {"5"}), Req("k", "Lte", {"5"}), "k Exists >=5 <=5"},
      // A finite set keeps the values within the bounds and drops them.
      {Req("k", "Gt", {"4"}), Req("k", "In", {"2", "8", "x", "16"}),
       "k In [16 8]"},
      {Req("k", "In", {"2", "8"}), Req("k", "Lt", {"4"}), "k In [2]"},
      {Req("k", "Gt", {"4"}), Req("k", "In", {"2"}), "k DoesNotExist"},
      // Excluded values outside the bounds are dropped as irrelevant.
      {Req("k", "Gt", {"4"}), Req("k", "NotIn", {"2", "6", "x"}),
       "k NotIn [6] >=5"},
  };
  for (const Case& c : cases) {
    INFO(c.a.ToString() << " ∩ " << c.b.ToString());
    CHECK(c.a.Intersection(c.b).ToString() == c.want);
    CHECK(c.b.Intersection(c.a).ToString() == c.want);
  }
}

TEST_CASE("requirements: a complement is never empty, even if bounded away",
          "[requirements]") {
  // Karpenter's Len() of a complement is MaxInt64 minus the excluded count:
  // `>=5 <=5 NotIn [5]` admits nothing yet is not treated as empty.
  const Requirement r = Req("k", "Gte", {"5"})
                            .Intersection(Req("k", "Lte", {"5"}))
                            .Intersection(Req("k", "NotIn", {"5"}));
  CHECK(r.ToString() == "k NotIn [5] >=5 <=5");
  CHECK_FALSE(r.Has("5"));
  CHECK_FALSE(r.IsEmpty());
}

TEST_CASE("requirements: minValues survives intersection as the larger",
          "[requirements]") {
  absl::StatusOr<Requirement> a =
      Requirement::FromProto(Proto("k", "In", {"a", "b", "c"}, 2), "req");
  absl::StatusOr<Requirement> b =
      Requirement::FromProto(Proto("k", "Exists", {}, 3), "req");
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(a->ToString() == "k In [a b c] minValues 2");
  CHECK(a->Intersection(*b).min_values() == 3);
  CHECK(b->Intersection(*a).ToString() == "k In [a b c] minValues 3");
}

TEST_CASE("requirements: Add intersects requirements for the same key",
          "[requirements]") {
  google::protobuf::RepeatedPtrField<v1::NodeSelectorRequirement> list;
  *list.Add() = Proto("zone", "In", {"a", "b", "c"});
  *list.Add() = Proto("arch", "Exists");
  *list.Add() = Proto("zone", "NotIn", {"b"});
  *list.Add() = Proto("cpu", "Gt", {"2"});
  *list.Add() = Proto("cpu", "Lt", {"17"});
  absl::StatusOr<Requirements> r =
      Requirements::FromProto(list, "spec.requirements");
  REQUIRE(r.ok());
  CHECK(r->size() == 3);
  CHECK(r->ToString() == "arch Exists, cpu Exists >=3 <=16, zone In [a c]");
  CHECK(r->Has("cpu"));
  CHECK(r->Get("missing") == nullptr);
}

TEST_CASE("requirements: ToString does not depend on insertion order",
          "[requirements]") {
  const Requirements a =
      Reqs({Req("z", "In", {"2", "1"}), Req("a", "DoesNotExist"),
            Req("m", "NotIn", {"x", "w"})});
  const Requirements b =
      Reqs({Req("m", "NotIn", {"w", "x"}), Req("z", "In", {"1", "2"}),
            Req("a", "DoesNotExist")});
  CHECK(a.ToString() == "a DoesNotExist, m NotIn [w x], z In [1 2]");
  CHECK(a == b);
  CHECK(Requirements().ToString().empty());
}

TEST_CASE("requirements: Compatible table", "[requirements]") {
  struct Case {
    std::string name;
    Requirements mine;
    Requirements theirs;
    bool want;
  };
  const std::vector<Case> cases = {
      {"same In", Reqs({Req("k", "In", {"a"})}), Reqs({Req("k", "In", {"a"})}),
       true},
      {"overlapping In", Reqs({Req("k", "In", {"a", "b"})}),
       Reqs({Req("k", "In", {"b", "c"})}), true},
      {"disjoint In", Reqs({Req("k", "In", {"a"})}),
       Reqs({Req("k", "In", {"b"})}), false},
      {"their key undefined here, In", Reqs({}), Reqs({Req("k", "In", {"a"})}),
       false},
      {"their key undefined here, Exists", Reqs({}), Reqs({Req("k", "Exists")}),
       false},
      {"their key undefined here, Gt", Reqs({}), Reqs({Req("k", "Gt", {"1"})}),
       false},
      {"their key undefined here, NotIn", Reqs({}),
       Reqs({Req("k", "NotIn", {"a"})}), true},
      {"their key undefined here, DoesNotExist", Reqs({}),
       Reqs({Req("k", "DoesNotExist")}), true},
      {"my key undefined there", Reqs({Req("k", "In", {"a"})}), Reqs({}), true},
      {"both NotIn, disjoint complements intersect",
       Reqs({Req("k", "NotIn", {"a"})}), Reqs({Req("k", "NotIn", {"b"})}),
       true},
      {"both DoesNotExist", Reqs({Req("k", "DoesNotExist")}),
       Reqs({Req("k", "DoesNotExist")}), true},
      {"NotIn against DoesNotExist", Reqs({Req("k", "NotIn", {"a"})}),
       Reqs({Req("k", "DoesNotExist")}), true},
      {"In against DoesNotExist", Reqs({Req("k", "In", {"a"})}),
       Reqs({Req("k", "DoesNotExist")}), false},
      {"DoesNotExist against In", Reqs({Req("k", "DoesNotExist")}),
       Reqs({Req("k", "In", {"a"})}), false},
      {"In against Exists", Reqs({Req("k", "In", {"a"})}),
       Reqs({Req("k", "Exists")}), true},
      {"In against Gt, inside", Reqs({Req("k", "In", {"8"})}),
       Reqs({Req("k", "Gt", {"4"})}), true},
      {"In against Gt, outside", Reqs({Req("k", "In", {"2"})}),
       Reqs({Req("k", "Gt", {"4"})}), false},
      {"Gt against Lt, crossed", Reqs({Req("k", "Gt", {"4"})}),
       Reqs({Req("k", "Lt", {"3"})}), false},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    std::string why;
    CHECK(c.mine.Compatible(c.theirs, {}, &why) == c.want);
    CHECK(why.empty() == c.want);
  }
}

TEST_CASE("requirements: Compatible explains and allows listed undefined keys",
          "[requirements]") {
  const Requirements mine = Reqs({Req("os", "In", {"linux"})});
  const Requirements theirs =
      Reqs({Req("kubernetes.io/arch", "In", {"amd64"}),
            Req("os", "In", {"windows"}), Req("custom", "Exists")});
  std::string why;
  CHECK_FALSE(mine.Compatible(theirs, {}, &why));
  CHECK(why ==
        "label \"custom\" does not have known values; label "
        "\"kubernetes.io/arch\" does not have known values; key os, os In "
        "[windows] not in os In [linux]");

  CompatibilityOptions well_known;
  well_known.allow_undefined.assign(WellKnownLabels().begin(),
                                    WellKnownLabels().end());
  why.clear();
  CHECK_FALSE(mine.Compatible(theirs, well_known, &why));
  CHECK(why ==
        "label \"custom\" does not have known values; key os, os In "
        "[windows] not in os In [linux]");
  // Allowing undefined keys never skips the intersection of shared keys.
  const Requirements arch_only = Reqs({Req("kubernetes.io/arch", "In", {"a"})});
  CHECK(Requirements().Compatible(arch_only, well_known));
  CHECK_FALSE(Reqs({Req("kubernetes.io/arch", "In", {"b"})})
                  .Compatible(arch_only, well_known));
}

TEST_CASE("requirements: Intersects ignores keys on one side only",
          "[requirements]") {
  const Requirements a =
      Reqs({Req("x", "In", {"1"}), Req("only-a", "DoesNotExist")});
  const Requirements b =
      Reqs({Req("x", "In", {"1", "2"}), Req("only-b", "In", {"z"})});
  CHECK(a.Intersects(b));
  CHECK(b.Intersects(a));
  const Requirements c = Reqs({Req("x", "NotIn", {"1"})});
  std::string why;
  CHECK_FALSE(a.Intersects(c, &why));
  CHECK(why == "key x, x NotIn [1] not in x In [1]");
}

}  // namespace
}  // namespace karpenter
