// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// karpenter/validation.h: one table row per CRD / CEL / policy rule, valid
// and invalid, under karpenter.sh/v1 and v1beta1, plus the line format,
// the snapshot report and the description of unchecked kinds.

#include "karpenter/validation.h"

#include <catch2/catch.hpp>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"

namespace karpenter::validation {
namespace {

constexpr char kV1[] = "karpenter.sh/v1";
constexpr char kV1Beta1[] = "karpenter.sh/v1beta1";

v1::NodePool ValidNodePool(const std::string& api_version) {
  v1::NodePool np;
  np.set_api_version(api_version);
  np.set_kind("NodePool");
  np.mutable_metadata()->set_name("default");
  v1::NodeClaimSpec* spec =
      np.mutable_spec()->mutable_template_()->mutable_spec();
  v1::NodeClassReference* ref = spec->mutable_node_class_ref();
  if (api_version == kV1) {
    ref->set_group("karpenter.k8s.aws");
    ref->set_kind("EC2NodeClass");
  }
  ref->set_name("default");
  v1::NodeSelectorRequirement* r = spec->add_requirements();
  r->set_key("kubernetes.io/arch");
  r->set_operator_("In");
  r->add_values("amd64");
  return np;
}

using Mutation = std::function<void(v1::NodePool&)>;

// Every error's line, for failure messages.
std::string Joined(const std::vector<FieldError>& errors) {
  std::string out;
  for (const FieldError& e : errors) absl::StrAppend(&out, e.ToString(), "\n");
  return out;
}

v1::NodeClaimSpec& TemplateSpec(v1::NodePool& np) {
  return *np.mutable_spec()->mutable_template_()->mutable_spec();
}

v1::NodeSelectorRequirement& Req(v1::NodePool& np) {
  return *TemplateSpec(np).mutable_requirements(0);
}

v1::Disruption& Disruption(v1::NodePool& np) {
  return *np.mutable_spec()->mutable_disruption();
}

v1::Budget& AddBudget(v1::NodePool& np, const std::string& nodes) {
  v1::Budget* b = Disruption(np).add_budgets();
  b->set_nodes(nodes);
  return *b;
}

struct Case {
  std::string name;
  std::string api_version;
  Mutation mutate;
  // Empty: the NodePool is valid.
  std::string field;
  // A part of the problem text (the rule).
  std::string problem;
  // The offending value.
  std::string value;
};

TEST_CASE("validation: NodePool rules per version", "[validation]") {
  const std::vector<Case> cases = {
      // consolidationPolicy enum per version.
      {"v1 WhenEmptyOrUnderutilized", kV1,
       [](v1::NodePool& np) {
         Disruption(np).set_consolidation_policy("WhenEmptyOrUnderutilized");
       },
       "", "", ""},
      {"v1 Balanced", kV1,
       [](v1::NodePool& np) {
         Disruption(np).set_consolidation_policy("Balanced");
       },
       "", "", ""},
      {"v1 rejects v1beta1 WhenUnderutilized", kV1,
       [](v1::NodePool& np) {
         Disruption(np).set_consolidation_policy("WhenUnderutilized");
       },
       "spec.disruption.consolidationPolicy", "v1beta1's spelling",
       "WhenUnderutilized"},
      {"v1beta1 WhenUnderutilized", kV1Beta1,
       [](v1::NodePool& np) {
         Disruption(np).set_consolidation_policy("WhenUnderutilized");
       },
       "", "", ""},
      {"v1beta1 rejects v1 WhenEmptyOrUnderutilized", kV1Beta1,
       [](v1::NodePool& np) {
         Disruption(np).set_consolidation_policy("WhenEmptyOrUnderutilized");
       },
       "spec.disruption.consolidationPolicy",
       "must be one of \"WhenEmpty\", \"WhenUnderutilized\"",
       "WhenEmptyOrUnderutilized"},
      {"v1beta1 rejects Balanced", kV1Beta1,
       [](v1::NodePool& np) {
         Disruption(np).set_consolidation_policy("Balanced");
         Disruption(np).set_consolidate_after("Never");
       },
       "spec.disruption.consolidationPolicy", "CRD enum", "Balanced"},
      // Durations.
      {"v1 terminationGracePeriod 24h", kV1,
       [](v1::NodePool& np) {
         TemplateSpec(np).set_termination_grace_period("24h");
       },
       "", "", ""},
      {"v1 terminationGracePeriod 1d", kV1,
       [](v1::NodePool& np) {
         TemplateSpec(np).set_termination_grace_period("1d");
       },
       "spec.template.spec.terminationGracePeriod",
       "^([0-9]+(s|m|h))+$ (CRD pattern", "1d"},
      {"v1 terminationGracePeriod Never is not allowed", kV1,
       [](v1::NodePool& np) {
         TemplateSpec(np).set_termination_grace_period("Never");
       },
       "spec.template.spec.terminationGracePeriod", "CRD pattern", "Never"},
      {"v1beta1 has no terminationGracePeriod", kV1Beta1,
       [](v1::NodePool& np) {
         TemplateSpec(np).set_termination_grace_period("1h");
       },
       "spec.template.spec.terminationGracePeriod",
       "unknown field in karpenter.sh/v1beta1", "1h"},
      {"v1 expireAfter Never", kV1,
       [](v1::NodePool& np) { TemplateSpec(np).set_expire_after("Never"); },
       "", "", ""},
      {"v1 expireAfter 720h30m", kV1,
       [](v1::NodePool& np) { TemplateSpec(np).set_expire_after("720h30m"); },
       "", "", ""},
      {"v1 expireAfter 30d", kV1,
       [](v1::NodePool& np) { TemplateSpec(np).set_expire_after("30d"); },
       "spec.template.spec.expireAfter", "^(([0-9]+(s|m|h))+|Never)$", "30d"},
      {"v1 expireAfter 1.5h", kV1,
       [](v1::NodePool& np) { TemplateSpec(np).set_expire_after("1.5h"); },
       "spec.template.spec.expireAfter", "CRD pattern", "1.5h"},
      {"v1 rejects v1beta1 spec.disruption.expireAfter", kV1,
       [](v1::NodePool& np) { Disruption(np).set_expire_after("720h"); },
       "spec.disruption.expireAfter", "unknown field in karpenter.sh/v1",
       "720h"},
      {"v1beta1 disruption expireAfter", kV1Beta1,
       [](v1::NodePool& np) { Disruption(np).set_expire_after("720h"); },
       "", "", ""},
      {"v1beta1 disruption expireAfter 30d", kV1Beta1,
       [](v1::NodePool& np) { Disruption(np).set_expire_after("30d"); },
       "spec.disruption.expireAfter", "^(([0-9]+(s|m|h))+)|(Never)$", "30d"},
      {"v1beta1 pattern passes 10mx but the decoder does not", kV1Beta1,
       [](v1::NodePool& np) { Disruption(np).set_expire_after("10mx"); },
       "spec.disruption.expireAfter", "NillableDuration decoding", "10mx"},
      {"v1beta1 rejects template expireAfter", kV1Beta1,
       [](v1::NodePool& np) { TemplateSpec(np).set_expire_after("720h"); },
       "spec.template.spec.expireAfter", "unknown field", "720h"},
      {"v1 consolidateAfter 1d", kV1,
       [](v1::NodePool& np) { Disruption(np).set_consolidate_after("1d"); },
       "spec.disruption.consolidateAfter", "no 'd'", "1d"},
      {"v1 consolidateAfter with WhenEmptyOrUnderutilized", kV1,
       [](v1::NodePool& np) {
         Disruption(np).set_consolidation_policy("WhenEmptyOrUnderutilized");
         Disruption(np).set_consolidate_after("30s");
       },
       "", "", ""},
      // v1beta1 CEL on consolidateAfter.
      {"v1beta1 consolidateAfter with default WhenUnderutilized", kV1Beta1,
       [](v1::NodePool& np) { Disruption(np).set_consolidate_after("30s"); },
       "spec.disruption.consolidateAfter",
       "consolidateAfter cannot be combined with "
       "consolidationPolicy=WhenUnderutilized (CEL rule)",
       "30s"},
      {"v1beta1 consolidateAfter Never with WhenUnderutilized", kV1Beta1,
       [](v1::NodePool& np) { Disruption(np).set_consolidate_after("Never"); },
       "", "", ""},
      {"v1beta1 WhenEmpty needs consolidateAfter", kV1Beta1,
       [](v1::NodePool& np) {
         Disruption(np).set_consolidation_policy("WhenEmpty");
       },
       "spec.disruption.consolidateAfter",
       "consolidateAfter must be specified with consolidationPolicy=WhenEmpty",
       ""},
      {"v1beta1 WhenEmpty with consolidateAfter", kV1Beta1,
       [](v1::NodePool& np) {
         Disruption(np).set_consolidation_policy("WhenEmpty");
         Disruption(np).set_consolidate_after("5m");
       },
       "", "", ""},
      // Budgets.
      {"budget nodes 100%", kV1,
       [](v1::NodePool& np) { AddBudget(np, "100%"); }, "", "", ""},
      {"budget nodes 101%", kV1,
       [](v1::NodePool& np) { AddBudget(np, "101%"); },
       "spec.disruption.budgets[0].nodes",
       "^((100|[0-9]{1,2})%|[0-9]+)$ (CRD pattern)", "101%"},
      {"budget nodes -1 under v1beta1", kV1Beta1,
       [](v1::NodePool& np) { AddBudget(np, "-1"); },
       "spec.disruption.budgets[0].nodes", "CRD pattern", "-1"},
      {"budget schedule and duration", kV1,
       [](v1::NodePool& np) {
         v1::Budget& b = AddBudget(np, "0");
         b.set_schedule("0 9 * * mon-fri");
         b.set_duration("8h30m");
       },
       "", "", ""},
      {"budget duration 1h0s form", kV1,
       [](v1::NodePool& np) {
         v1::Budget& b = AddBudget(np, "0");
         b.set_schedule("@daily");
         b.set_duration("10h0m0s");
       },
       "", "", ""},
      {"budget duration in seconds", kV1,
       [](v1::NodePool& np) {
         v1::Budget& b = AddBudget(np, "0");
         b.set_schedule("@daily");
         b.set_duration("30s");
       },
       "spec.disruption.budgets[0].duration",
       "^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$", "30s"},
      {"budget schedule without duration", kV1Beta1,
       [](v1::NodePool& np) { AddBudget(np, "1").set_schedule("@daily"); },
       "spec.disruption.budgets[0].duration",
       "'schedule' must be set with 'duration' (CEL rule)", "@daily"},
      {"budget duration without schedule", kV1,
       [](v1::NodePool& np) { AddBudget(np, "1").set_duration("1h"); },
       "spec.disruption.budgets[0].schedule",
       "'schedule' must be set with 'duration' (CEL rule)", "1h"},
      {"budget schedule not cron", kV1,
       [](v1::NodePool& np) {
         v1::Budget& b = AddBudget(np, "1");
         b.set_schedule("every day");
         b.set_duration("1h");
       },
       "spec.disruption.budgets[0].schedule", "CRD pattern", "every day"},
      {"budget schedule the CRD accepts but cron rejects", kV1,
       [](v1::NodePool& np) {
         v1::Budget& b = AddBudget(np, "1");
         b.set_schedule("0 25 * * *");
         b.set_duration("1h");
       },
       "spec.disruption.budgets[0].schedule", "fails closed at run time",
       "0 25 * * *"},
      {"budget nodes beyond int64 (runtime)", kV1,
       [](v1::NodePool& np) { AddBudget(np, "99999999999999999999"); },
       "spec.disruption.budgets[0].nodes",
       "want an integer or a percentage such as \"5\" or \"10%\" "
       "(Karpenter fails closed at run time)",
       "99999999999999999999"},
      {"budget reasons v1", kV1,
       [](v1::NodePool& np) {
         v1::Budget& b = AddBudget(np, "1");
         b.add_reasons("Drifted");
         b.add_reasons("Empty");
       },
       "", "", ""},
      {"budget reason Expired", kV1,
       [](v1::NodePool& np) { AddBudget(np, "1").add_reasons("Expired"); },
       "spec.disruption.budgets[0].reasons[0]",
       "must be one of \"Underutilized\", \"Empty\", \"Drifted\"", "Expired"},
      {"budget reason duplicated", kV1,
       [](v1::NodePool& np) {
         v1::Budget& b = AddBudget(np, "1");
         b.add_reasons("Empty");
         b.add_reasons("Empty");
       },
       "spec.disruption.budgets[0].reasons[1]", "Duplicate value", "Empty"},
      {"budget reasons are v1 only", kV1Beta1,
       [](v1::NodePool& np) { AddBudget(np, "1").add_reasons("Empty"); },
       "spec.disruption.budgets[0].reasons",
       "unknown field in karpenter.sh/v1beta1", "Empty"},
      {"51 budgets", kV1,
       [](v1::NodePool& np) {
         for (int i = 0; i < 51; ++i) AddBudget(np, "1");
       },
       "spec.disruption.budgets", "at most 50 items (CRD maxItems)",
       "51 items"},
      // Requirements.
      {"requirement operator Gte in v1", kV1,
       [](v1::NodePool& np) {
         Req(np).set_key("karpenter.k8s.aws/instance-cpu");
         Req(np).set_operator_("Gte");
         Req(np).set_values(0, "4");
       },
       "", "", ""},
      {"requirement operator Gte in v1beta1", kV1Beta1,
       [](v1::NodePool& np) {
         Req(np).set_operator_("Gte");
         Req(np).set_values(0, "4");
       },
       "spec.template.spec.requirements[0].operator",
       "must be one of \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\", "
       "\"Gt\", \"Lt\" (CRD enum)",
       "Gte"},
      {"requirement operator Equals", kV1,
       [](v1::NodePool& np) { Req(np).set_operator_("Equals"); },
       "spec.template.spec.requirements[0].operator", "CRD enum", "Equals"},
      {"requirement In without values", kV1,
       [](v1::NodePool& np) { Req(np).clear_values(); },
       "spec.template.spec.requirements[0].values",
       "requirements with operator 'In' must have a value defined", ""},
      {"requirement Exists without values", kV1,
       [](v1::NodePool& np) {
         Req(np).set_operator_("Exists");
         Req(np).clear_values();
       },
       "", "", ""},
      {"requirement Gt two values", kV1Beta1,
       [](v1::NodePool& np) {
         Req(np).set_operator_("Gt");
         Req(np).set_values(0, "1");
         Req(np).add_values("2");
       },
       "spec.template.spec.requirements[0].values",
       "'Gt' or 'Lt' must have a single positive integer value (CEL rule)",
       "1,2"},
      {"requirement Lt not an integer", kV1,
       [](v1::NodePool& np) {
         Req(np).set_operator_("Lt");
         Req(np).set_values(0, "4Gi");
       },
       "spec.template.spec.requirements[0].values",
       "'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive integer",
       "4Gi"},
      {"requirement Gt beyond int64", kV1,
       [](v1::NodePool& np) {
         Req(np).set_operator_("Gt");
         Req(np).set_values(0, "99999999999999999999");
       },
       "spec.template.spec.requirements[0].values", "CEL rule", "99999999999999999999"},
      {"requirement minValues within values", kV1,
       [](v1::NodePool& np) {
         Req(np).add_values("arm64");
         Req(np).set_min_values(2);
       },
       "", "", ""},
      {"requirement minValues above values", kV1Beta1,
       [](v1::NodePool& np) { Req(np).set_min_values(2); },
       "spec.template.spec.requirements[0].minValues",
       "requirements with 'minValues' must have at least that many values",
       "2"},
      {"requirement minValues 0", kV1,
       [](v1::NodePool& np) {
         Req(np).set_operator_("Exists");
         Req(np).clear_values();
         Req(np).set_min_values(0);
       },
       "spec.template.spec.requirements[0].minValues",
       "must be between 1 and 50", "0"},
      {"requirement minValues 51 with NotIn", kV1,
       [](v1::NodePool& np) {
         Req(np).set_operator_("NotIn");
         Req(np).set_min_values(51);
       },
       "spec.template.spec.requirements[0].minValues",
       "must be between 1 and 50 (CRD minimum/maximum)", "51"},
      {"requirement key hostname", kV1,
       [](v1::NodePool& np) { Req(np).set_key("kubernetes.io/hostname"); },
       "spec.template.spec.requirements[0].key",
       "label \"kubernetes.io/hostname\" is restricted (CEL rule)",
       "kubernetes.io/hostname"},
      {"requirement key karpenter.sh/nodepool", kV1,
       [](v1::NodePool& np) { Req(np).set_key("karpenter.sh/nodepool"); },
       "spec.template.spec.requirements[0].key",
       "label \"karpenter.sh/nodepool\" is restricted", "karpenter.sh/nodepool"},
      {"requirement key karpenter.sh/capacity-type", kV1,
       [](v1::NodePool& np) {
         Req(np).set_key("karpenter.sh/capacity-type");
         Req(np).set_values(0, "spot");
       },
       "", "", ""},
      {"requirement key in the karpenter.sh domain", kV1Beta1,
       [](v1::NodePool& np) { Req(np).set_key("test.karpenter.sh/foo"); },
       "spec.template.spec.requirements[0].key",
       "label domain \"karpenter.sh\" is restricted", "test.karpenter.sh/foo"},
      {"v1beta1 kubernetes.io domain", kV1Beta1,
       [](v1::NodePool& np) { Req(np).set_key("kubernetes.io/custom"); },
       "spec.template.spec.requirements[0].key",
       "label domain \"kubernetes.io\" is restricted", "kubernetes.io/custom"},
      {"v1 has no kubernetes.io domain rule", kV1,
       [](v1::NodePool& np) { Req(np).set_key("kubernetes.io/custom"); }, "",
       "", ""},
      {"v1beta1 node.kubernetes.io/instance-type", kV1Beta1,
       [](v1::NodePool& np) {
         Req(np).set_key("node.kubernetes.io/instance-type");
         Req(np).set_values(0, "m5.large");
       },
       "", "", ""},
      {"v1beta1 k8s.io domain", kV1Beta1,
       [](v1::NodePool& np) { Req(np).set_key("example.k8s.io/x"); },
       "spec.template.spec.requirements[0].key",
       "label domain \"k8s.io\" is restricted", "example.k8s.io/x"},
      {"v1beta1 kops.k8s.io allowed", kV1Beta1,
       [](v1::NodePool& np) { Req(np).set_key("kops.k8s.io/instancegroup"); },
       "", "", ""},
      {"requirement key pattern", kV1,
       [](v1::NodePool& np) { Req(np).set_key("Example.com/x"); },
       "spec.template.spec.requirements[0].key", "(CRD pattern)",
       "Example.com/x"},
      {"requirement value pattern", kV1,
       [](v1::NodePool& np) { Req(np).set_values(0, "a b"); },
       "spec.template.spec.requirements[0].values[0]", "(CRD pattern)", "a b"},
      {"requirement value too long", kV1,
       [](v1::NodePool& np) { Req(np).set_values(0, std::string(64, 'a')); },
       "spec.template.spec.requirements[0].values[0]",
       "may not be longer than 63", std::string(64, 'a')},
      // Labels.
      {"template label hostname", kV1,
       [](v1::NodePool& np) {
         (*np.mutable_spec()
               ->mutable_template_()
               ->mutable_metadata()
               ->mutable_labels())["kubernetes.io/hostname"] = "a";
       },
       "spec.template.metadata.labels",
       "label \"kubernetes.io/hostname\" is restricted",
       "kubernetes.io/hostname"},
      {"template label nodepool", kV1Beta1,
       [](v1::NodePool& np) {
         (*np.mutable_spec()
               ->mutable_template_()
               ->mutable_metadata()
               ->mutable_labels())["karpenter.sh/nodepool"] = "a";
       },
       "spec.template.metadata.labels",
       "label \"karpenter.sh/nodepool\" is restricted",
       "karpenter.sh/nodepool"},
      {"template label value", kV1,
       [](v1::NodePool& np) {
         (*np.mutable_spec()
               ->mutable_template_()
               ->mutable_metadata()
               ->mutable_labels())["team"] = "-bad";
       },
       "spec.template.metadata.labels.team", "(CRD pattern)", "-bad"},
      {"template label ok", kV1,
       [](v1::NodePool& np) {
         (*np.mutable_spec()
               ->mutable_template_()
               ->mutable_metadata()
               ->mutable_labels())["team"] = "web";
       },
       "", "", ""},
      // Taints.
      {"taint ok", kV1,
       [](v1::NodePool& np) {
         v1::Taint* t = TemplateSpec(np).add_taints();
         t->set_key("example.com/special");
         t->set_value("true");
         t->set_effect("NoSchedule");
       },
       "", "", ""},
      {"taint effect NoExecut", kV1Beta1,
       [](v1::NodePool& np) {
         v1::Taint* t = TemplateSpec(np).add_startup_taints();
         t->set_key("a");
         t->set_effect("NoExecut");
       },
       "spec.template.spec.startupTaints[0].effect",
       "must be one of \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"",
       "NoExecut"},
      {"taint without effect", kV1,
       [](v1::NodePool& np) { TemplateSpec(np).add_taints()->set_key("a"); },
       "spec.template.spec.taints[0].effect", "Required value", ""},
      {"taint without key", kV1,
       [](v1::NodePool& np) {
         TemplateSpec(np).add_taints()->set_effect("NoSchedule");
       },
       "spec.template.spec.taints[0].key", "Required value", ""},
      {"taint key pattern", kV1,
       [](v1::NodePool& np) {
         v1::Taint* t = TemplateSpec(np).add_taints();
         t->set_key("bad key");
         t->set_effect("NoSchedule");
       },
       "spec.template.spec.taints[0].key", "(CRD pattern)", "bad key"},
      {"taint key/effect pair twice across taints and startupTaints", kV1,
       [](v1::NodePool& np) {
         v1::Taint* t = TemplateSpec(np).add_taints();
         t->set_key("a");
         t->set_effect("NoSchedule");
         v1::Taint* s = TemplateSpec(np).add_startup_taints();
         s->set_key("a");
         s->set_value("other");
         s->set_effect("NoSchedule");
       },
       "spec.template.spec.startupTaints[0]",
       "duplicate taint key/effect pair (Karpenter RuntimeValidate", "a:NoSchedule"},
      {"same taint key with two effects", kV1Beta1,
       [](v1::NodePool& np) {
         v1::Taint* t = TemplateSpec(np).add_taints();
         t->set_key("a");
         t->set_effect("NoSchedule");
         v1::Taint* s = TemplateSpec(np).add_taints();
         s->set_key("a");
         s->set_effect("NoExecute");
       },
       "", "", ""},
      {"template label key not a qualified name", kV1,
       [](v1::NodePool& np) {
         (*np.mutable_spec()
               ->mutable_template_()
               ->mutable_metadata()
               ->mutable_labels())["bad key"] = "a";
       },
       "spec.template.metadata.labels", "(Karpenter RuntimeValidate",
       "bad key"},
      // Limits, weight, replicas.
      {"limits ok", kV1,
       [](v1::NodePool& np) {
         (*np.mutable_spec()->mutable_limits())["cpu"] = "1000";
         (*np.mutable_spec()->mutable_limits())["memory"] = "1000Gi";
         (*np.mutable_spec()->mutable_limits())["nvidia.com/gpu"] = "1.5e3";
       },
       "", "", ""},
      {"limits not a quantity", kV1Beta1,
       [](v1::NodePool& np) {
         (*np.mutable_spec()->mutable_limits())["memory"] = "1000GB";
       },
       "spec.limits.memory", "must be a quantity", "1000GB"},
      {"weight 100", kV1,
       [](v1::NodePool& np) { np.mutable_spec()->set_weight(100); }, "", "",
       ""},
      {"weight 0", kV1,
       [](v1::NodePool& np) { np.mutable_spec()->set_weight(0); },
       "spec.weight", "must be between 1 and 100", "0"},
      {"weight 101", kV1Beta1,
       [](v1::NodePool& np) { np.mutable_spec()->set_weight(101); },
       "spec.weight", "must be between 1 and 100", "101"},
      {"static NodePool with nodes limit", kV1,
       [](v1::NodePool& np) {
         np.mutable_spec()->set_replicas(3);
         (*np.mutable_spec()->mutable_limits())["nodes"] = "5";
       },
       "", "", ""},
      {"static NodePool with cpu limit", kV1,
       [](v1::NodePool& np) {
         np.mutable_spec()->set_replicas(3);
         (*np.mutable_spec()->mutable_limits())["cpu"] = "5";
       },
       "spec.limits", "only 'limits.nodes' is supported on static NodePools",
       "cpu"},
      {"static NodePool with weight", kV1,
       [](v1::NodePool& np) {
         np.mutable_spec()->set_replicas(3);
         np.mutable_spec()->set_weight(10);
       },
       "spec.weight", "'weight' is not supported on static NodePools", "10"},
      // nodeClassRef.
      {"v1 nodeClassRef without group", kV1,
       [](v1::NodePool& np) {
         TemplateSpec(np).mutable_node_class_ref()->clear_group();
       },
       "spec.template.spec.nodeClassRef.group",
       "group may not be empty (CEL rule)", ""},
      {"v1 nodeClassRef group with a slash", kV1,
       [](v1::NodePool& np) {
         TemplateSpec(np).mutable_node_class_ref()->set_group(
             "karpenter.k8s.aws/v1");
       },
       "spec.template.spec.nodeClassRef.group", "^[^/]*$",
       "karpenter.k8s.aws/v1"},
      {"v1beta1 nodeClassRef without name", kV1Beta1,
       [](v1::NodePool& np) {
         TemplateSpec(np).mutable_node_class_ref()->clear_name();
       },
       "spec.template.spec.nodeClassRef.name", "Required value", ""},
      {"v1 template missing", kV1,
       [](v1::NodePool& np) { np.mutable_spec()->clear_template_(); },
       "spec.template", "Required value (CRD required)", ""},
      {"v1beta1 nodeClassRef missing", kV1Beta1,
       [](v1::NodePool& np) { TemplateSpec(np).clear_node_class_ref(); },
       "spec.template.spec.nodeClassRef", "Required value (CRD required)",
       ""},
      // metadata.
      {"name not a subdomain", kV1,
       [](v1::NodePool& np) { np.mutable_metadata()->set_name("Default"); },
       "metadata.name", "RFC 1123 subdomain", "Default"},
      {"unsupported apiVersion", "karpenter.sh/v1alpha5",
       [](v1::NodePool&) {}, "apiVersion", "must be karpenter.sh/v1 or",
       "karpenter.sh/v1alpha5"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    v1::NodePool np = ValidNodePool(c.api_version);
    c.mutate(np);
    const std::vector<FieldError> errors = NodePoolErrors(np);
    if (c.field.empty()) {
      CHECK(Joined(errors) == "");
      CHECK(ValidateNodePool(np).ok());
      continue;
    }
    REQUIRE(errors.size() == 1);
    CAPTURE(errors[0].ToString());
    CHECK(errors[0].api_version == c.api_version);
    CHECK(errors[0].kind == "NodePool");
    CHECK(errors[0].object == np.metadata().name());
    CHECK(errors[0].field == c.field);
    CHECK(absl::StrContains(errors[0].problem, c.problem));
    CHECK(errors[0].value == c.value);
    const absl::Status status = ValidateNodePool(np);
    CHECK(status.code() == absl::StatusCode::kInvalidArgument);
    CHECK(status.message() == errors[0].ToString());
  }
}

TEST_CASE("validation: the error line format", "[validation]") {
  v1::NodePool np = ValidNodePool(kV1);
  Disruption(np).set_consolidation_policy("WhenUnderutilized");
  TemplateSpec(np).set_termination_grace_period("1d");
  const std::vector<FieldError> errors = NodePoolErrors(np);
  REQUIRE(errors.size() == 2);
  CHECK(errors[0].ToString() ==
        "karpenter.sh/v1 NodePool default: "
        "spec.template.spec.terminationGracePeriod: must match "
        "^([0-9]+(s|m|h))+$ (CRD pattern; Go durations have no 'd'), got "
        "\"1d\"");
  CHECK(errors[1].ToString() ==
        "karpenter.sh/v1 NodePool default: "
        "spec.disruption.consolidationPolicy: Unsupported value: must be one "
        "of \"WhenEmpty\", \"WhenEmptyOrUnderutilized\", \"Balanced\" (CRD "
        "enum); WhenUnderutilized is karpenter.sh/v1beta1's spelling of "
        "WhenEmptyOrUnderutilized, got \"WhenUnderutilized\"");
  // Long and unprintable values are escaped and cut.
  FieldError long_value{"policy/v1", "PodDisruptionBudget",       "a/b", "f",
                        "bad",       std::string(100, 'x') + "\n"};
  CHECK(long_value.ToString() ==
        absl::StrCat("policy/v1 PodDisruptionBudget a/b: f: bad, got \"",
                     std::string(80, 'x'), "...\" (101 bytes)"));
  FieldError newline{"v", "K", "o", "f", "bad", "a\nb"};
  CHECK(newline.ToString() == "v K o: f: bad, got \"a\\nb\"");
}

TEST_CASE("validation: an object without apiVersion is checked as v1",
          "[validation]") {
  v1::NodePool np = ValidNodePool(kV1);
  np.clear_api_version();
  CHECK(NodePoolErrors(np).empty());
  Disruption(np).set_consolidation_policy("WhenUnderutilized");
  const std::vector<FieldError> errors = NodePoolErrors(np);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].api_version == kV1);
}

v1::NodeClaim ValidNodeClaim(const std::string& api_version) {
  v1::NodeClaim nc;
  nc.set_api_version(api_version);
  nc.mutable_metadata()->set_name("default-abcde");
  v1::NodeClaimSpec* spec = nc.mutable_spec();
  *spec = ValidNodePool(api_version).spec().template_().spec();
  (*spec->mutable_resources()->mutable_requests())["cpu"] = "500m";
  return nc;
}

TEST_CASE("validation: NodeClaim rules per version", "[validation]") {
  struct ClaimCase {
    std::string name;
    std::string api_version;
    std::function<void(v1::NodeClaim&)> mutate;
    std::string field;
    std::string problem;
    std::string value;
  };
  const std::vector<ClaimCase> cases = {
      {"v1 valid", kV1, [](v1::NodeClaim&) {}, "", "", ""},
      {"v1beta1 valid", kV1Beta1, [](v1::NodeClaim&) {}, "", "", ""},
      {"v1 may carry karpenter.sh/nodepool", kV1,
       [](v1::NodeClaim& nc) {
         nc.mutable_spec()->mutable_requirements(0)->set_key(
             "karpenter.sh/nodepool");
       },
       "", "", ""},
      {"hostname restricted", kV1,
       [](v1::NodeClaim& nc) {
         nc.mutable_spec()->mutable_requirements(0)->set_key(
             "kubernetes.io/hostname");
       },
       "spec.requirements[0].key",
       "label \"kubernetes.io/hostname\" is restricted",
       "kubernetes.io/hostname"},
      {"v1 expireAfter 7d", kV1,
       [](v1::NodeClaim& nc) { nc.mutable_spec()->set_expire_after("7d"); },
       "spec.expireAfter", "CRD pattern", "7d"},
      {"v1 terminationGracePeriod 90m", kV1,
       [](v1::NodeClaim& nc) {
         nc.mutable_spec()->set_termination_grace_period("90m");
       },
       "", "", ""},
      {"v1beta1 expireAfter unknown", kV1Beta1,
       [](v1::NodeClaim& nc) { nc.mutable_spec()->set_expire_after("1h"); },
       "spec.expireAfter", "unknown field in karpenter.sh/v1beta1", "1h"},
      {"requests quantity", kV1,
       [](v1::NodeClaim& nc) {
         (*nc.mutable_spec()
               ->mutable_resources()
               ->mutable_requests())["memory"] = "1 Gi";
       },
       "spec.resources.requests.memory", "must be a quantity", "1 Gi"},
      {"v1 kind missing", kV1,
       [](v1::NodeClaim& nc) {
         nc.mutable_spec()->mutable_node_class_ref()->clear_kind();
       },
       "spec.nodeClassRef.kind", "kind may not be empty (CEL rule)", ""},
  };
  for (const ClaimCase& c : cases) {
    CAPTURE(c.name);
    v1::NodeClaim nc = ValidNodeClaim(c.api_version);
    c.mutate(nc);
    const std::vector<FieldError> errors = NodeClaimErrors(nc);
    if (c.field.empty()) {
      CHECK(Joined(errors) == "");
      CHECK(ValidateNodeClaim(nc).ok());
      continue;
    }
    REQUIRE(errors.size() == 1);
    CAPTURE(errors[0].ToString());
    CHECK(errors[0].kind == "NodeClaim");
    CHECK(errors[0].field == c.field);
    CHECK(absl::StrContains(errors[0].problem, c.problem));
    CHECK(errors[0].value == c.value);
    CHECK(ValidateNodeClaim(nc).code() == absl::StatusCode::kInvalidArgument);
  }
}

// Loads one PodDisruptionBudget from YAML (the loader types the values).
v1::PodDisruptionBudget LoadPdb(const std::string& spec_yaml) {
  snapshot::ObjectSet objects;
  const absl::Status s = snapshot::LoadYaml(
      absl::StrCat("apiVersion: policy/v1\nkind: PodDisruptionBudget\n"
                   "metadata:\n  name: web\n  namespace: shop\nspec:\n",
                   spec_yaml),
      "pdb.yaml", objects);
  REQUIRE(s.ok());
  REQUIRE(objects.pdbs.size() == 1);
  return objects.pdbs[0];
}

TEST_CASE("validation: PodDisruptionBudget rules", "[validation]") {
  struct PdbCase {
    std::string spec;
    std::string field;
    std::string problem;
    std::string value;
  };
  const std::vector<PdbCase> cases = {
      {"  minAvailable: 1\n  selector: {matchLabels: {app: web}}\n", "", "",
       ""},
      {"  maxUnavailable: 0%\n  selector: {}\n", "", "", ""},
      {"  minAvailable: \"100%\"\n", "", "", ""},
      {"  minAvailable: -1\n", "spec.minAvailable",
       "must be greater than or equal to 0", "-1"},
      {"  maxUnavailable: \"101%\"\n", "spec.maxUnavailable",
       "must not be greater than 100%", "101%"},
      {"  minAvailable: \"1\"\n", "spec.minAvailable",
       "a valid percent string must be a numeric string followed by an "
       "ending '%'",
       "1"},
      {"  minAvailable: \"lots\"\n", "spec.minAvailable", "valid percent",
       "lots"},
      {"  minAvailable: 1\n  maxUnavailable: 1\n", "spec",
       "minAvailable and maxUnavailable cannot be both set",
       "minAvailable: 1, maxUnavailable: 1"},
      {"  minAvailable: 1\n  selector:\n    matchExpressions:\n    - {key: "
       "app, "
       "operator: In}\n",
       "spec.selector.matchExpressions[0].values", "Required value", ""},
      {"  minAvailable: 1\n  selector:\n    matchExpressions:\n    - {key: "
       "app, "
       "operator: Exists, values: [web]}\n",
       "spec.selector.matchExpressions[0].values", "may not be specified",
       "web"},
      {"  minAvailable: 1\n  selector:\n    matchExpressions:\n    - {key: "
       "app, "
       "operator: Equals, values: [web]}\n",
       "spec.selector.matchExpressions[0].operator",
       "not a valid selector operator", "Equals"},
      {"  minAvailable: 1\n  selector: {matchLabels: {\"bad key\": web}}\n",
       "spec.selector.matchLabels", "(qualified name)", "bad key"},
      {"  minAvailable: 1\n  selector: {matchLabels: {app: \"-web\"}}\n",
       "spec.selector.matchLabels.app", "(label value)", "-web"},
      {"  minAvailable: 1\n  unhealthyPodEvictionPolicy: Never\n",
       "spec.unhealthyPodEvictionPolicy",
       "must be one of \"IfHealthyBudget\", \"AlwaysAllow\"", "Never"},
  };
  for (const PdbCase& c : cases) {
    CAPTURE(c.spec);
    const v1::PodDisruptionBudget pdb = LoadPdb(c.spec);
    const std::vector<FieldError> errors = PodDisruptionBudgetErrors(pdb);
    if (c.field.empty()) {
      CHECK(Joined(errors) == "");
      CHECK(ValidatePodDisruptionBudget(pdb).ok());
      continue;
    }
    REQUIRE(errors.size() == 1);
    CAPTURE(errors[0].ToString());
    CHECK(errors[0].api_version == "policy/v1");
    CHECK(errors[0].object == "shop/web");
    CHECK(errors[0].field == c.field);
    CHECK(absl::StrContains(errors[0].problem, c.problem));
    CHECK(errors[0].value == c.value);
  }
}

TEST_CASE("validation: a name or generateName is required of every kind",
          "[validation]") {
  // NodePool: no name at all, then only generateName (valid), then a name
  // that is not a DNS-1123 subdomain.
  v1::NodePool np = ValidNodePool(kV1);
  np.mutable_metadata()->clear_name();
  std::vector<FieldError> errors = NodePoolErrors(np);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].field == "metadata.name");
  CHECK(errors[0].problem ==
        "Required value: name or generateName is required (ObjectMeta "
        "validation)");
  np.mutable_metadata()->set_generate_name("default-");
  CHECK(Joined(NodePoolErrors(np)) == "");

  // PodDisruptionBudget: the same rules.
  v1::PodDisruptionBudget pdb = LoadPdb("  minAvailable: 1\n");
  pdb.mutable_metadata()->clear_name();
  errors = PodDisruptionBudgetErrors(pdb);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].field == "metadata.name");
  CHECK(absl::StartsWith(errors[0].problem, "Required value"));
  pdb.mutable_metadata()->set_name("Web_1");
  errors = PodDisruptionBudgetErrors(pdb);
  REQUIRE(errors.size() == 1);
  CHECK(absl::StrContains(errors[0].problem, "RFC 1123 subdomain"));
  CHECK(errors[0].value == "Web_1");
}

TEST_CASE("validation: unchecked kinds are described", "[validation]") {
  CHECK(DescribeUncheckedKind("Provisioner") ==
        "karpenter.sh/v1alpha5 Provisioner (removed in Karpenter v0.33)");
  CHECK(DescribeUncheckedKind("Machine") ==
        "karpenter.sh/v1alpha5 Machine (removed in Karpenter v0.33)");
  CHECK(DescribeUncheckedKind("AWSNodeTemplate") ==
        "karpenter.k8s.aws/v1alpha1 AWSNodeTemplate (removed in Karpenter "
        "v0.33)");
  CHECK(DescribeUncheckedKind("EC2NodeClass") ==
        "EC2NodeClass (provider-specific)");
  CHECK(DescribeUncheckedKind("NodePool (karpenter.sh/v1alpha1)") ==
        "karpenter.sh/v1alpha1 NodePool (apiVersion not supported)");
  CHECK(DescribeUncheckedKind("ConfigMap") == "ConfigMap (unknown kind)");
}

TEST_CASE("validation: a snapshot report sorts by kind then object",
          "[validation]") {
  snapshot::ObjectSet objects;
  REQUIRE(snapshot::LoadYaml(R"(apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: a, namespace: ns}
spec: {minAvailable: -1}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: zeta}
spec:
  template:
    spec:
      nodeClassRef: {group: g, kind: K, name: n}
      requirements: []
  weight: 0
---
apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata: {name: alpha}
spec:
  disruption: {consolidationPolicy: Balanced, consolidateAfter: 1d}
  template:
    spec:
      nodeClassRef: {name: n}
      requirements: []
---
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata: {name: old}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
)",
                             "dump.yaml", objects)
              .ok());
  absl::StatusOr<snapshot::Snapshot> snap =
      snapshot::Snapshot::Build(std::move(objects));
  REQUIRE(snap.ok());
  const SnapshotReport report = ValidateSnapshot(*snap);
  std::vector<std::string> lines;
  for (const FieldError& e : report.errors) {
    lines.push_back(absl::StrCat(e.kind, " ", e.object, " ", e.field));
  }
  CHECK(lines == std::vector<std::string>{
                     "NodePool alpha spec.disruption.consolidationPolicy",
                     "NodePool alpha spec.disruption.consolidateAfter",
                     "NodePool zeta spec.weight",
                     "PodDisruptionBudget ns/a spec.minAvailable",
                 });
  CHECK(report.checked == std::map<std::string, int64_t>{
                              {"NodePool", 2}, {"PodDisruptionBudget", 1}});
  CHECK(report.not_checked ==
        std::map<std::string, int64_t>{
            {"EC2NodeClass (provider-specific)", 1},
            {"karpenter.sh/v1alpha5 Provisioner (removed in Karpenter v0.33)",
             1}});
}

}  // namespace
}  // namespace karpenter::validation
