// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
#include "karpenter/scheduling/daemon_overhead.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "karpenter/drain/classify.h"
#include "karpenter/scheduling/resources.h"
#include "karpenter/well_known.h"

namespace karpenter::scheduling {
namespace {

constexpr absl::string_view kTermsPath =
    "spec.template.spec.affinity.nodeAffinity."
    "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms";

absl::Status Prefixed(absl::string_view name, const absl::Status& s,
                      absl::string_view path = "") {
  return absl::InvalidArgumentError(
      absl::StrCat("daemonsets/", name, ": ", path, s.message()));
}

}  // namespace

absl::StatusOr<DaemonOverhead> DaemonOverhead::Build(
    absl::Span<const v1::DaemonSet> daemon_sets) {
  return BuildFrom(daemon_sets);
}

absl::StatusOr<DaemonOverhead> DaemonOverhead::Build(
    snapshot::ObjectList<v1::DaemonSet> daemon_sets) {
  return BuildFrom(daemon_sets);
}

template <typename List>
absl::StatusOr<DaemonOverhead> DaemonOverhead::BuildFrom(
    const List& daemon_sets) {
  DaemonOverhead out;
  out.allow_.allow_undefined.assign(WellKnownLabels().begin(),
                                    WellKnownLabels().end());
  PodRequestsCalculator calculator;
  PodRequestList list;
  // Per resource, the total over every DaemonSet so far: bounds any sum For
  // can return.
  std::map<std::string, int64_t> total;
  for (const v1::DaemonSet& ds : daemon_sets) {
    const std::string name =
        absl::StrCat(ds.metadata().namespace_(), "/", ds.metadata().name());
    const v1::PodTemplateSpec& tmpl = ds.spec().template_();
    const v1::PodSpec& spec = tmpl.spec();
    if (spec.containers().empty()) continue;

    Daemon d;
    d.name = name;
    v1::Pod pod;
    *pod.mutable_metadata() = tmpl.metadata();
    *pod.mutable_spec() = spec;
    if (absl::Status s = calculator.Compute(pod, list); !s.ok()) {
      // PodRequests' paths start at the pod's "spec.".
      return Prefixed(name, s, "spec.template.");
    }
    for (const auto& [resource, milli] : list) {
      d.requests.emplace_back(std::string(resource), milli);
      int64_t& sum = total[d.requests.back().first];
      if (milli > std::numeric_limits<int64_t>::max() - sum) {
        return absl::InvalidArgumentError(
            absl::StrCat("daemonsets/", name, ": the ", resource,
                         " requests of the DaemonSets overflow int64"));
      }
      sum += milli;
    }
    std::sort(d.requests.begin(), d.requests.end());
    d.tolerations.assign(spec.tolerations().begin(), spec.tolerations().end());

    // NewStrictPodRequirements: the nodeSelector plus the first usable
    // required term; the later terms are what removeRequiredNodeAffinityTerm
    // falls back to.
    const Requirements selector =
        Requirements::FromLabels(spec.node_selector());
    const v1::NodeAffinity& na = spec.affinity().node_affinity();
    const auto& terms = na.required_during_scheduling_ignored_during_execution()
                            .node_selector_terms();
    if (terms.empty()) {
      d.alternatives.push_back(selector);
    }
    for (int i = 0; i < terms.size(); ++i) {
      absl::StatusOr<Requirements> reqs = Requirements::FromProto(
          terms[i].match_expressions(),
          absl::StrCat(kTermsPath, "[", i, "].matchExpressions"));
      if (!reqs.ok()) return Prefixed(name, reqs.status());
      // matchFields only (a new node's name is not known) or empty (selects
      // no node): this term cannot be met.
      if (terms[i].match_expressions().empty()) continue;
      Requirements strict = selector;
      for (const auto& [key, r] : reqs->map()) strict.Add(r);
      d.alternatives.push_back(std::move(strict));
    }
    out.daemons_.push_back(std::move(d));
  }
  std::stable_sort(
      out.daemons_.begin(), out.daemons_.end(),
      [](const Daemon& a, const Daemon& b) { return a.name < b.name; });
  return out;
}

bool DaemonOverhead::Runs(const Daemon& daemon, const Requirements& node,
                          absl::Span<const v1::Taint> taints) const {
  for (const v1::Taint& taint : taints) {
    if (taint.effect() != well_known::kTaintEffectNoSchedule &&
        taint.effect() != well_known::kTaintEffectNoExecute) {
      continue;  // Karpenter's PreferNoSchedule toleration.
    }
    const bool tolerated =
        std::any_of(daemon.tolerations.begin(), daemon.tolerations.end(),
                    [&](const v1::Toleration& t) {
                      return drain::ToleratesTaint(t, taint);
                    });
    if (!tolerated) return false;
  }
  return std::any_of(daemon.alternatives.begin(), daemon.alternatives.end(),
                     [&](const Requirements& strict) {
                       return node.Compatible(strict, allow_);
                     });
}

std::vector<std::pair<std::string, int64_t>> DaemonOverhead::For(
    const Requirements& node, absl::Span<const v1::Taint> taints) const {
  std::map<std::string, int64_t> sum;
  for (const Daemon& d : daemons_) {
    if (!Runs(d, node, taints)) continue;
    for (const auto& [resource, milli] : d.requests) sum[resource] += milli;
  }
  return {sum.begin(), sum.end()};
}

std::vector<std::string> DaemonOverhead::Counted(
    const Requirements& node, absl::Span<const v1::Taint> taints) const {
  std::vector<std::string> out;
  for (const Daemon& d : daemons_) {
    if (Runs(d, node, taints)) out.push_back(d.name);
  }
  return out;
}

}  // namespace karpenter::scheduling
