// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/snapshot/audit.h"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "karpenter/time_util.h"
#include "karpenter/well_known.h"

namespace karpenter::snapshot {
namespace {

// Collects the fields filled on one object.
class Filler {
 public:
  explicit Filler(absl::Time now) : now_(TimeToProto(now)) {}

  // Sets the timestamp to now unless `present`. Callers read the presence
  // in a statement of its own: mutable_*() creates the field, and the
  // order in which call arguments are evaluated is unspecified.
  void Fill(bool present, google::protobuf::Timestamp* field,
            std::string name) {
    if (present) return;
    *field = now_;
    fields_.push_back(std::move(name));
  }

  // Metadata timestamps: creation (when `creation`) and deletion.
  void Meta(v1::ObjectMeta& meta, bool creation) {
    if (creation) {
      const bool present = meta.has_creation_timestamp();
      Fill(present, meta.mutable_creation_timestamp(),
           "metadata.creationTimestamp");
    }
    if (meta.has_deletion_grace_period_seconds()) {
      const bool present = meta.has_deletion_timestamp();
      Fill(present, meta.mutable_deletion_timestamp(),
           "metadata.deletionTimestamp");
    }
  }

  std::vector<std::string> Take() { return std::move(fields_); }

 private:
  google::protobuf::Timestamp now_;
  std::vector<std::string> fields_;
};

std::string Quoted(const std::vector<std::string>& names, size_t max) {
  std::vector<std::string> shown;
  for (size_t i = 0; i < names.size() && i < max; ++i) {
    shown.push_back(absl::StrCat("\"", names[i], "\""));
  }
  std::string out = absl::StrJoin(shown, ", ");
  if (names.size() > max) {
    absl::StrAppend(&out, " and ", names.size() - max, " more");
  }
  return out;
}

std::string Plural(size_t n, absl::string_view noun) {
  return absl::StrCat(n, " ", noun, n == 1 ? "" : "s");
}

class Auditor {
 public:
  Auditor(absl::Time now, const AuditOptions& options)
      : now_(now), options_(options) {}

  void Report(absl::string_view kind, std::string object,
              std::vector<std::string> fields) {
    if (fields.empty()) return;
    DumpWarning w;
    w.kind = DumpWarningKind::kMissingTimestamp;
    w.source = options_.source;
    w.object_kind = std::string(kind);
    w.object = std::move(object);
    w.fields = std::move(fields);
    w.message = absl::StrCat(
        options_.source.empty() ? "" : absl::StrCat(options_.source, ": "),
        w.object_kind, " \"", w.object, "\": ", absl::StrJoin(w.fields, ", "),
        w.fields.size() == 1 ? " is" : " are", " missing; taken as ",
        FormatRfc3339(TruncateToSecond(now_)), " (", options_.now_label, ")");
    warnings_.push_back(std::move(w));
  }

  std::vector<DumpWarning> Take() { return std::move(warnings_); }

 private:
  absl::Time now_;
  const AuditOptions& options_;
  std::vector<DumpWarning> warnings_;
};

}  // namespace

absl::StatusOr<std::vector<DumpWarning>> AuditDump(
    ObjectSet& objects, absl::Time now, const AuditOptions& options) {
  if (now == absl::InfiniteFuture() || now == absl::InfinitePast()) {
    return absl::InvalidArgumentError(
        absl::StrCat("AuditDump: the pass time must be finite, got \"",
                     FormatRfc3339(now), "\""));
  }
  Auditor auditor(now, options);
  for (v1::Node& node : objects.nodes) {
    Filler f(now);
    f.Meta(*node.mutable_metadata(), options.node_creation);
    auditor.Report("Node", node.metadata().name(), f.Take());
  }
  for (v1::NodeClaim& claim : objects.node_claims) {
    Filler f(now);
    f.Meta(*claim.mutable_metadata(), /*creation=*/true);
    const int conditions = claim.status().conditions_size();
    for (int i = 0; i < conditions; ++i) {
      v1::Condition& c = *claim.mutable_status()->mutable_conditions(i);
      const bool present = c.has_last_transition_time();
      f.Fill(
          present, c.mutable_last_transition_time(),
          absl::StrCat("status.conditions[", c.type().empty() ? "?" : c.type(),
                       "].lastTransitionTime"));
    }
    auditor.Report("NodeClaim", claim.metadata().name(), f.Take());
  }
  for (v1::Pod& pod : objects.pods) {
    Filler f(now);
    f.Meta(*pod.mutable_metadata(), /*creation=*/false);
    const std::string& ns = pod.metadata().namespace_();
    auditor.Report(
        "Pod",
        absl::StrCat(ns.empty() ? "default" : ns, "/", pod.metadata().name()),
        f.Take());
  }
  return auditor.Take();
}

std::vector<DumpWarning> AuditCoverage(const ObjectSet& objects) {
  std::vector<DumpWarning> out;
  const auto add = [&](DumpWarningKind kind, std::string message,
                       std::string kubectl) {
    DumpWarning w;
    w.kind = kind;
    w.kubectl = kubectl;
    w.message = kubectl.empty()
                    ? std::move(message)
                    : absl::StrCat(message, "; add them with: ", kubectl);
    out.push_back(std::move(w));
  };
  const std::string pool_key(well_known::kNodePoolLabelKey);
  const auto pool_of = [&](const v1::ObjectMeta& meta) -> std::string {
    auto it = meta.labels().find(pool_key);
    return it == meta.labels().end() ? "" : it->second;
  };

  if (!objects.node_claims.empty() && objects.node_pools.empty()) {
    // The NodePools the claims name (label karpenter.sh/nodepool), so the
    // user knows which ones to add.
    std::set<std::string> named;
    for (const v1::NodeClaim& claim : objects.node_claims) {
      const std::string pool = pool_of(claim.metadata());
      if (!pool.empty()) named.insert(absl::StrCat("\"", pool, "\""));
    }
    std::string of;
    if (!named.empty()) {
      of = absl::StrCat(" (of NodePool", named.size() == 1 ? " " : "s ",
                        absl::StrJoin(named, ", "), ")");
    }
    add(DumpWarningKind::kPartialDump,
        absl::StrCat("the dump has ",
                     Plural(objects.node_claims.size(), "NodeClaim"), of,
                     " but no NodePools, so every NodeClaim's NodePool looks "
                     "deleted"),
        "kubectl get nodepools -o yaml");
  }
  size_t managed_nodes = 0;
  std::set<std::string> node_names;
  std::set<std::string> referenced_pools;
  for (const v1::Node& node : objects.nodes) {
    node_names.insert(node.metadata().name());
    const std::string pool = pool_of(node.metadata());
    if (!pool.empty()) {
      ++managed_nodes;
      referenced_pools.insert(pool);
    }
  }
  for (const v1::NodeClaim& claim : objects.node_claims) {
    const std::string pool = pool_of(claim.metadata());
    if (!pool.empty()) referenced_pools.insert(pool);
  }
  if (managed_nodes > 0 && objects.node_claims.empty()) {
    add(DumpWarningKind::kPartialDump,
        absl::StrCat("the dump has ", Plural(managed_nodes, "Node"),
                     " labelled ", pool_key,
                     " but no NodeClaims, so no node is managed by Karpenter"),
        "kubectl get nodeclaims -o yaml");
  }
  std::map<std::string, size_t> missing_nodes;  // Node -> pods bound to it.
  size_t stray_pods = 0;
  for (const v1::Pod& pod : objects.pods) {
    const std::string& node = pod.spec().node_name();
    if (node.empty() || node_names.count(node) > 0) continue;
    ++missing_nodes[node];
    ++stray_pods;
  }
  if (!missing_nodes.empty()) {
    std::vector<std::string> names;
    for (const auto& [name, pods] : missing_nodes) names.push_back(name);
    add(DumpWarningKind::kPartialDump,
        absl::StrCat(Plural(stray_pods, "pod"), " bound to ",
                     Plural(names.size(), "node"), " not in the dump (",
                     Quoted(names, 3), ")"),
        "kubectl get nodes -o yaml");
  }
  std::vector<std::string> unused;
  for (const v1::NodePool& pool : objects.node_pools) {
    if (referenced_pools.count(pool.metadata().name()) == 0) {
      unused.push_back(pool.metadata().name());
    }
  }
  if (!unused.empty()) {
    add(DumpWarningKind::kInformational,
        absl::StrCat(unused.size() == 1 ? "NodePool " : "NodePools ",
                     Quoted(unused, 5), unused.size() == 1 ? " has" : " have",
                     " no Node or NodeClaim in the dump"),
        "");
  }
  return out;
}

}  // namespace karpenter::snapshot
