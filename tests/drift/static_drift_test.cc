// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Expected hashes were produced by github.com/mitchellh/hashstructure/v2
// v2.0.2 (Go 1.19, TZ=UTC) with Karpenter's options over Go structs shaped
// like Karpenter's NodeClaimTemplate, decoded from the same JSON templates.

#include "karpenter/drift/static_drift.h"

#include <google/protobuf/util/json_util.h>

#include <catch2/catch.hpp>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "karpenter/v1/karpenter.pb.h"
#include "karpenter/well_known.h"

namespace karpenter::drift {
namespace {

// A NodePool whose spec.template is `template_json` (Kubernetes JSON).
v1::NodePool PoolWithTemplate(absl::string_view template_json) {
  v1::NodePool pool;
  const std::string json =
      absl::StrCat(R"({"spec":{"template":)", template_json, "}}");
  const auto status = google::protobuf::util::JsonStringToMessage(json, &pool);
  INFO(json);
  REQUIRE(status.ok());
  return pool;
}

std::string HashOf(const v1::NodePool& pool) {
  absl::StatusOr<std::string> hash = NodePoolTemplateHash(pool);
  INFO(hash.status().ToString());
  REQUIRE(hash.ok());
  return *hash;
}

std::string HashOf(absl::string_view template_json) {
  return HashOf(PoolWithTemplate(template_json));
}

constexpr absl::string_view kMinimal =
    R"({"spec":{"nodeClassRef":{"group":"karpenter.k8s.aws",)"
    R"("kind":"EC2NodeClass","name":"default"},"expireAfter":"720h"}})";

constexpr absl::string_view kFull =
    R"({"metadata":{"labels":{"team":"a","env":"prod"},)"
    R"("annotations":{"example.com/owner":"ops"}},)"
    R"("spec":{"taints":[{"key":"dedicated","value":"gpu",)"
    R"("effect":"NoSchedule"},{"key":"k2","effect":"NoExecute"}],)"
    R"("startupTaints":[{"key":"init","effect":"NoSchedule"}],)"
    R"("nodeClassRef":{"group":"karpenter.k8s.aws","kind":"EC2NodeClass",)"
    R"("name":"default"},"terminationGracePeriod":"48h",)"
    R"("expireAfter":"Never"}})";

struct Vector {
  std::string name;
  std::string template_json;
  std::string hash;
};

TEST_CASE("static drift: template hashes equal Karpenter's hashstructure",
          "[drift][static_drift]") {
  const Vector vectors[] = {
      // Everything zero: only the type name "NodeClaimTemplate" is hashed.
      {"empty", R"({"spec":{"expireAfter":"Never"}})", "17307646073972311821"},
      {"minimal", std::string(kMinimal), "6821555240594823858"},
      // The ignored requirements still make the spec struct non-zero.
      {"requirements only",
       R"({"spec":{"requirements":[{"key":"a","operator":"Exists"}],)"
       R"("expireAfter":"Never"}})",
       "7186316952538226297"},
      {"minimal with requirements",
       R"({"spec":{"requirements":[{"key":"karpenter.sh/capacity-type",)"
       R"("operator":"In","values":["spot"]}],"nodeClassRef":{"group":)"
       R"("karpenter.k8s.aws","kind":"EC2NodeClass","name":"default"},)"
       R"("expireAfter":"720h"}})",
       "6821555240594823858"},
      {"full", std::string(kFull), "11999168377625016135"},
      {"full, maps and taints reordered",
       R"({"metadata":{"labels":{"env":"prod","team":"a"},)"
       R"("annotations":{"example.com/owner":"ops"}},)"
       R"("spec":{"taints":[{"key":"k2","effect":"NoExecute"},)"
       R"({"key":"dedicated","value":"gpu","effect":"NoSchedule"}],)"
       R"("startupTaints":[{"key":"init","effect":"NoSchedule"}],)"
       R"("nodeClassRef":{"group":"karpenter.k8s.aws",)"
       R"("kind":"EC2NodeClass","name":"default"},)"
       R"("terminationGracePeriod":"48h","expireAfter":"Never"}})",
       "11999168377625016135"},
      {"zero durations",
       R"({"spec":{"nodeClassRef":{"group":"g","kind":"K","name":"n"},)"
       R"("terminationGracePeriod":"0s","expireAfter":"0s"}})",
       "11514321467367215336"},
      {"durations",
       R"({"spec":{"nodeClassRef":{"group":"g","kind":"K","name":"n"},)"
       R"("terminationGracePeriod":"1h30m","expireAfter":"1.5s"}})",
       "1214218919187800480"},
      {"empty label value",
       R"({"metadata":{"labels":{"a":""}},"spec":{"nodeClassRef":)"
       R"({"group":"g","kind":"K","name":"n"},"expireAfter":"720h"}})",
       "690539203891515318"},
      {"empty nodeClassRef",
       R"({"spec":{"nodeClassRef":{},"expireAfter":"Never"}})",
       "13463795802959939202"},
      {"taint timeAdded",
       R"({"spec":{"taints":[{"key":"t","effect":"NoSchedule",)"
       R"("timeAdded":"2024-01-02T03:04:05Z"}],"nodeClassRef":{"group":"g",)"
       R"("kind":"K","name":"n"},"expireAfter":"720h"}})",
       "15827742925971124842"},
      // Before 1970, with a fraction: seconds and nanoseconds as Go keeps
      // them.
      {"startup taint timeAdded before 1970",
       R"({"spec":{"startupTaints":[{"key":"t","effect":"NoSchedule",)"
       R"("timeAdded":"1969-12-31T23:59:58.25Z"}],"nodeClassRef":{"group":)"
       R"("g","kind":"K","name":"n"},"expireAfter":"720h"}})",
       "17074293231549384732"},
      {"duplicated taint",
       R"({"spec":{"taints":[{"key":"b","effect":"NoSchedule"},)"
       R"({"key":"a","effect":"NoSchedule"},{"key":"b","effect":"NoSchedule"}],)"
       R"("nodeClassRef":{"group":"g","kind":"K","name":"n"},)"
       R"("expireAfter":"720h"}})",
       "17989656463054482447"},
      {"non-ASCII annotation",
       "{\"metadata\":{\"annotations\":{\"note\":\"h\xC3\xA9llo "
       "w\xC3\xB6rld \xE2\x9C\x93\"}},\"spec\":{\"nodeClassRef\":{\"group\":"
       "\"g\",\"kind\":\"K\",\"name\":\"n\"},\"expireAfter\":\"720h\"}}",
       "13093350782922961245"},
  };
  for (const Vector& v : vectors) {
    INFO(v.name);
    CHECK(HashOf(v.template_json) == v.hash);
  }
}

TEST_CASE("static drift: absent expireAfter hashes as the CRD default 720h",
          "[drift][static_drift]") {
  const std::string defaulted =
      HashOf(R"({"spec":{"nodeClassRef":{"group":"karpenter.k8s.aws",)"
             R"("kind":"EC2NodeClass","name":"default"}}})");
  CHECK(defaulted == "6821555240594823858");
  CHECK(defaulted == HashOf(kMinimal));
  // The v1beta1 spelling under spec.disruption is used when the template
  // has none, and the template's own value wins over it.
  v1::NodePool beta = PoolWithTemplate(
      R"({"spec":{"nodeClassRef":{"group":"karpenter.k8s.aws",)"
      R"("kind":"EC2NodeClass","name":"default"}}})");
  beta.mutable_spec()->mutable_disruption()->set_expire_after("Never");
  CHECK(HashOf(beta) != defaulted);
  beta.mutable_spec()->mutable_template_()->mutable_spec()->set_expire_after(
      "720h");
  CHECK(HashOf(beta) == defaulted);
}

// Mutations of a hashed field each change the hash of kFull.
TEST_CASE("static drift: every hashed field changes the hash",
          "[drift][static_drift]") {
  const v1::NodePool base = PoolWithTemplate(kFull);
  const std::string base_hash = HashOf(base);
  struct Mutation {
    std::string name;
    void (*apply)(v1::NodePool&);
  };
  const Mutation mutations[] = {
      {"label value",
       [](v1::NodePool& p) {
         (*p.mutable_spec()
               ->mutable_template_()
               ->mutable_metadata()
               ->mutable_labels())["team"] = "b";
       }},
      {"label key added",
       [](v1::NodePool& p) {
         (*p.mutable_spec()
               ->mutable_template_()
               ->mutable_metadata()
               ->mutable_labels())["x"] = "";
       }},
      {"annotation removed",
       [](v1::NodePool& p) {
         p.mutable_spec()
             ->mutable_template_()
             ->mutable_metadata()
             ->mutable_annotations()
             ->clear();
       }},
      {"taint effect",
       [](v1::NodePool& p) {
         p.mutable_spec()
             ->mutable_template_()
             ->mutable_spec()
             ->mutable_taints(0)
             ->set_effect("NoExecute");
       }},
      {"startup taint value",
       [](v1::NodePool& p) {
         p.mutable_spec()
             ->mutable_template_()
             ->mutable_spec()
             ->mutable_startup_taints(0)
             ->set_value("x");
       }},
      {"taint moved to startup taints",
       [](v1::NodePool& p) {
         auto* spec = p.mutable_spec()->mutable_template_()->mutable_spec();
         *spec->add_startup_taints() = spec->taints(1);
         spec->mutable_taints()->RemoveLast();
       }},
      {"nodeClassRef name",
       [](v1::NodePool& p) {
         p.mutable_spec()
             ->mutable_template_()
             ->mutable_spec()
             ->mutable_node_class_ref()
             ->set_name("other");
       }},
      {"nodeClassRef group",
       [](v1::NodePool& p) {
         p.mutable_spec()
             ->mutable_template_()
             ->mutable_spec()
             ->mutable_node_class_ref()
             ->set_group("other");
       }},
      {"terminationGracePeriod",
       [](v1::NodePool& p) {
         p.mutable_spec()
             ->mutable_template_()
             ->mutable_spec()
             ->set_termination_grace_period("47h");
       }},
      {"terminationGracePeriod removed",
       [](v1::NodePool& p) {
         p.mutable_spec()
             ->mutable_template_()
             ->mutable_spec()
             ->clear_termination_grace_period();
       }},
      {"expireAfter",
       [](v1::NodePool& p) {
         p.mutable_spec()
             ->mutable_template_()
             ->mutable_spec()
             ->set_expire_after("24h");
       }},
  };
  for (const Mutation& m : mutations) {
    INFO(m.name);
    v1::NodePool changed = base;
    m.apply(changed);
    CHECK(HashOf(changed) != base_hash);
  }
}

TEST_CASE("static drift: ignored and non-template fields keep the hash",
          "[drift][static_drift]") {
  const v1::NodePool base = PoolWithTemplate(kFull);
  const std::string base_hash = HashOf(base);
  v1::NodePool changed = base;
  auto* tmpl_spec = changed.mutable_spec()->mutable_template_()->mutable_spec();
  // Requirements (hash:"ignore"); the spec is already non-zero here.
  auto* req = tmpl_spec->add_requirements();
  req->set_key("karpenter.sh/capacity-type");
  req->set_operator_("In");
  req->add_values("spot");
  // Not part of the Go template type.
  (*tmpl_spec->mutable_resources()->mutable_requests())["cpu"] = "1";
  tmpl_spec->mutable_node_class_ref()->set_api_version("karpenter.k8s.aws/v1");
  // Outside spec.template.
  changed.mutable_spec()->mutable_disruption()->set_consolidate_after("5m");
  changed.mutable_spec()->mutable_disruption()->add_budgets()->set_nodes("1");
  (*changed.mutable_spec()->mutable_limits())["cpu"] = "1000";
  changed.mutable_spec()->set_weight(10);
  (*changed.mutable_metadata()->mutable_annotations())[std::string(
      well_known::kNodePoolHashAnnotationKey)] = "1";
  CHECK(HashOf(changed) == base_hash);
}

TEST_CASE("static drift: taints hash as a set and duplicates cancel",
          "[drift][static_drift]") {
  const std::string one =
      HashOf(R"({"spec":{"taints":[{"key":"a","effect":"NoSchedule"}],)"
             R"("nodeClassRef":{"group":"g","kind":"K","name":"n"}}})");
  const std::string twice_plus_one = HashOf(
      R"({"spec":{"taints":[{"key":"b","effect":"NoSchedule"},)"
      R"({"key":"a","effect":"NoSchedule"},{"key":"b","effect":"NoSchedule"}],)"
      R"("nodeClassRef":{"group":"g","kind":"K","name":"n"}}})");
  // hashstructure XORs set elements, so a duplicated taint cancels itself.
  CHECK(one == twice_plus_one);
  // The same taint under startupTaints is a different field.
  CHECK(one != HashOf(R"({"spec":{"startupTaints":[{"key":"a",)"
                      R"("effect":"NoSchedule"}],"nodeClassRef":)"
                      R"({"group":"g","kind":"K","name":"n"}}})"));
}

TEST_CASE("static drift: hash is stable across calls and copies",
          "[drift][static_drift]") {
  const v1::NodePool pool = PoolWithTemplate(kFull);
  const v1::NodePool copy = pool;  // NOLINT(performance-unnecessary-copy-*)
  CHECK(HashOf(pool) == HashOf(pool));
  CHECK(HashOf(copy) == HashOf(pool));
  // An empty collection counts as absent (proto3 cannot tell them apart).
  CHECK(HashOf(R"({"metadata":{"labels":{}},"spec":{"taints":[],)"
               R"("nodeClassRef":{"group":"g","kind":"K","name":"n"}}})") ==
        HashOf(R"({"spec":{"nodeClassRef":{"group":"g","kind":"K",)"
               R"("name":"n"}}})"));
}

TEST_CASE("static drift: unparsable durations are errors naming the field",
          "[drift][static_drift]") {
  struct ErrorCase {
    std::string template_json;
    std::string disruption_expire;  // v1beta1 spec.disruption.expireAfter
    std::string message_part;
  };
  const ErrorCase cases[] = {
      {R"({"spec":{"terminationGracePeriod":"1d"}})", "",
       R"(spec.template.spec.terminationGracePeriod: time: unknown unit "d")"},
      {R"({"spec":{"terminationGracePeriod":"Never"}})", "",
       R"(spec.template.spec.terminationGracePeriod: time: invalid duration "Never")"},
      {R"({"spec":{"expireAfter":"never"}})", "",
       R"(spec.template.spec.expireAfter: time: invalid duration "never")"},
      {R"({"spec":{}})", "5x",
       R"(spec.disruption.expireAfter: time: unknown unit "x")"},
  };
  for (const ErrorCase& c : cases) {
    INFO(c.template_json << " / " << c.disruption_expire);
    v1::NodePool pool = PoolWithTemplate(c.template_json);
    if (!c.disruption_expire.empty()) {
      pool.mutable_spec()->mutable_disruption()->set_expire_after(
          c.disruption_expire);
    }
    absl::StatusOr<std::string> hash = NodePoolTemplateHash(pool);
    REQUIRE_FALSE(hash.ok());
    CHECK(hash.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(hash.status().message()),
               Catch::Contains(c.message_part));
  }
}

// Annotations: the NodePool's and the NodeClaim's (hash, version); nullopt
// leaves the annotation out.
struct DriftCase {
  std::string name;
  std::optional<std::string> pool_hash, pool_version;
  std::optional<std::string> claim_hash, claim_version;
  bool drifted;
};

void Annotate(v1::ObjectMeta& meta, const std::optional<std::string>& hash,
              const std::optional<std::string>& version) {
  auto& annotations = *meta.mutable_annotations();
  if (hash)
    annotations[std::string(well_known::kNodePoolHashAnnotationKey)] = *hash;
  if (version) {
    annotations[std::string(well_known::kNodePoolHashVersionAnnotationKey)] =
        *version;
  }
}

TEST_CASE("static drift: NodePoolDrifted follows the hash annotations",
          "[drift][static_drift]") {
  const std::string v3(kNodePoolHashVersion);
  const DriftCase cases[] = {
      {"equal hashes", "1", v3, "1", v3, false},
      {"different hashes", "1", v3, "2", v3, true},
      {"pool hash missing", std::nullopt, v3, "2", v3, false},
      {"pool version missing", "1", std::nullopt, "2", v3, false},
      {"claim hash missing", "1", v3, std::nullopt, v3, false},
      {"claim version missing", "1", v3, "2", std::nullopt, false},
      {"all missing", std::nullopt, std::nullopt, std::nullopt, std::nullopt,
       false},
      {"version mismatch", "1", v3, "2", "v2", false},
      {"version mismatch, equal hashes", "1", "v2", "1", v3, false},
      // Karpenter compares the two versions with each other only.
      {"older version on both sides", "1", "v2", "2", "v2", true},
      {"empty hash values differ", "", v3, "1", v3, true},
      {"empty hash values equal", "", v3, "", v3, false},
  };
  for (const DriftCase& c : cases) {
    INFO(c.name);
    v1::NodePool pool;
    v1::NodeClaim claim;
    Annotate(*pool.mutable_metadata(), c.pool_hash, c.pool_version);
    Annotate(*claim.mutable_metadata(), c.claim_hash, c.claim_version);
    absl::StatusOr<std::optional<std::string>> reason =
        StaticDrifted(pool, claim);
    REQUIRE(reason.ok());
    if (c.drifted) {
      REQUIRE(reason->has_value());
      CHECK(**reason == "NodePoolDrifted");
    } else {
      CHECK_FALSE(reason->has_value());
    }
  }
}

TEST_CASE("static drift: a template change drifts claims stamped earlier",
          "[drift][static_drift]") {
  v1::NodePool pool = PoolWithTemplate(kFull);
  auto stamp = [](v1::ObjectMeta& meta, const std::string& hash) {
    Annotate(meta, hash, std::string(kNodePoolHashVersion));
  };
  v1::NodeClaim claim;
  stamp(*claim.mutable_metadata(), HashOf(pool));
  stamp(*pool.mutable_metadata(), HashOf(pool));
  REQUIRE_FALSE(StaticDrifted(pool, claim)->has_value());

  // A requirements edit is not static drift.
  pool.mutable_spec()
      ->mutable_template_()
      ->mutable_spec()
      ->add_requirements()
      ->set_key("k");
  stamp(*pool.mutable_metadata(), HashOf(pool));
  CHECK_FALSE(StaticDrifted(pool, claim)->has_value());

  (*pool.mutable_spec()
        ->mutable_template_()
        ->mutable_metadata()
        ->mutable_labels())["team"] = "b";
  stamp(*pool.mutable_metadata(), HashOf(pool));
  const auto reason = StaticDrifted(pool, claim);
  REQUIRE(reason.ok());
  CHECK(reason->value_or("") == "NodePoolDrifted");
}

}  // namespace
}  // namespace karpenter::drift
