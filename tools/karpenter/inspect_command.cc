// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// `karpenter inspect [-f FILE]...`: loads cluster dumps into a Snapshot and
// prints what it holds: the count of every kind, NodePools, nodes with their
// pods, PDBs.

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli.h"
#include "karpenter/conditions.h"
#include "karpenter/selector.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/well_known.h"

namespace karpenter::cli {
namespace {

constexpr char kInspectUsage[] =
    "usage: karpenter inspect [-f FILE]...\n"
    "\n"
    "Loads one or more cluster dumps, as printed by\n"
    "  kubectl get "
    "nodes,pods,pdb,nodepools,nodeclaims,pv,pvc,storageclasses,csinodes,"
    "daemonsets,volumeattachments -A -o yaml\n"
    "(or -o json; single objects, kind: List, typed lists, multi-document\n"
    "YAML), builds a snapshot and prints a summary: how many objects of each\n"
    "kind it holds and the default StorageClass, NodePools, nodes with their\n"
    "pod counts, pods not on a node, PodDisruptionBudgets. Other kinds are\n"
    "counted and skipped. Without -f, inspects the example cluster bundled in\n"
    "the binary (examples/clusters/demo.yaml).\n"
    "\n"
    "Exit status 2 with a one-line message on bad input.\n";

std::string OrDash(absl::string_view s) {
  return s.empty() ? "-" : std::string(s);
}

std::string LabelOrDash(const v1::ObjectMeta& meta, absl::string_view key) {
  auto it = meta.labels().find(std::string(key));
  return it == meta.labels().end() ? "-" : OrDash(it->second);
}

std::string DescribeBudget(const v1::Budget& b) {
  std::string s = b.nodes();
  if (b.has_schedule()) {
    absl::StrAppend(&s, " at \"", b.schedule(), "\" for ",
                    b.has_duration() ? b.duration() : "?");
  }
  if (b.reasons_size() > 0) {
    absl::StrAppend(&s, " [", absl::StrJoin(b.reasons(), ","), "]");
  } else if (b.reasons_explicitly_empty()) {
    absl::StrAppend(&s, " [no reason]");
  }
  return s;
}

std::string DescribeBudgets(const v1::Disruption& d) {
  if (d.budgets_size() == 0) {
    return d.budgets_explicitly_empty() ? "none (unlimited)" : "10% (default)";
  }
  std::vector<std::string> parts;
  for (const v1::Budget& b : d.budgets()) parts.push_back(DescribeBudget(b));
  return absl::StrJoin(parts, "; ");
}

std::string ExpireAfter(const v1::NodePool& np) {
  const v1::NodeClaimSpec& spec = np.spec().template_().spec();
  if (spec.has_expire_after()) return spec.expire_after();
  // v1beta1 kept it under spec.disruption.
  if (np.spec().disruption().has_expire_after()) {
    return np.spec().disruption().expire_after();
  }
  return "-";
}

void PrintNodePools(const snapshot::Snapshot& snap, std::ostream& out) {
  std::vector<int> nodes_per_pool(snap.node_pools().size(), 0);
  for (const v1::Node& node : snap.nodes()) {
    auto it = node.metadata().labels().find(
        std::string(well_known::kNodePoolLabelKey));
    if (it == node.metadata().labels().end()) continue;
    if (auto pool = snap.FindNodePool(it->second)) ++nodes_per_pool[*pool];
  }
  std::vector<std::vector<std::string>> table = {
      {"NODEPOOL", "NODES", "CONSOLIDATION", "CONSOLIDATE-AFTER",
       "EXPIRE-AFTER", "BUDGETS"}};
  for (size_t i = 0; i < snap.node_pools().size(); ++i) {
    const v1::NodePool& np = snap.node_pools()[i];
    const v1::Disruption& d = np.spec().disruption();
    table.push_back({np.metadata().name(), absl::StrCat(nodes_per_pool[i]),
                     OrDash(d.consolidation_policy()),
                     d.has_consolidate_after() ? d.consolidate_after() : "-",
                     ExpireAfter(np), DescribeBudgets(d)});
  }
  PrintTable(table, out);
}

std::string ReadyStatus(const v1::Node& node) {
  return OrDash(ConditionStatus(node.status().conditions(),
                                well_known::kConditionTypeReady));
}

void PrintNodes(const snapshot::Snapshot& snap, std::ostream& out) {
  std::vector<std::vector<std::string>> table = {
      {"NODE", "NODEPOOL", "INSTANCE-TYPE", "ZONE", "CAPACITY", "READY", "PODS",
       "NODECLAIM", "DELETING"}};
  for (size_t i = 0; i < snap.nodes().size(); ++i) {
    const v1::Node& node = snap.nodes()[i];
    const v1::ObjectMeta& meta = node.metadata();
    auto claim = snap.FindNodeClaimByNodeName(meta.name());
    if (!claim)
      claim = snap.FindNodeClaimByProviderId(node.spec().provider_id());
    table.push_back(
        {meta.name(), LabelOrDash(meta, well_known::kNodePoolLabelKey),
         LabelOrDash(meta, well_known::kLabelInstanceTypeStable),
         LabelOrDash(meta, well_known::kLabelTopologyZone),
         LabelOrDash(meta, well_known::kCapacityTypeLabelKey),
         ReadyStatus(node),
         absl::StrCat(
             snap.PodsOnNode(static_cast<snapshot::NodeIndex>(i)).size()),
         claim ? snap.node_claims()[*claim].metadata().name() : "-",
         meta.has_deletion_timestamp() ? "yes" : "no"});
  }
  PrintTable(table, out);
}

std::string IntOrStringText(const google::protobuf::Value& v) {
  if (v.has_number_value()) return absl::StrCat(v.number_value());
  if (v.has_string_value()) return v.string_value();
  return "-";
}

void PrintPdbs(const snapshot::Snapshot& snap, std::ostream& out) {
  std::vector<std::vector<std::string>> table = {
      {"NAMESPACE", "PDB", "MIN-AVAILABLE", "MAX-UNAVAILABLE", "ALLOWED",
       "SELECTOR"}};
  for (const v1::PodDisruptionBudget& pdb : snap.pdbs()) {
    const v1::PodDisruptionBudgetSpec& spec = pdb.spec();
    absl::StatusOr<LabelSelector> selector = LabelSelector::FromProto(
        spec.has_selector() ? &spec.selector() : nullptr, "spec.selector");
    table.push_back(
        {pdb.metadata().namespace_(), pdb.metadata().name(),
         IntOrStringText(spec.min_available()),
         IntOrStringText(spec.max_unavailable()),
         absl::StrCat(pdb.status().disruptions_allowed()),
         selector.ok()
             ? selector->ToString()
             : absl::StrCat("invalid: ", selector.status().message())});
  }
  PrintTable(table, out);
}

std::string DefaultStorageClass(const snapshot::Snapshot& snap) {
  const auto d = snap.DefaultStorageClass();
  return d ? snap.storage_classes()[*d].metadata().name() : "none";
}

void PrintSummary(const snapshot::Snapshot& snap, std::ostream& out) {
  out << "Snapshot: " << snap.node_pools().size() << " NodePools, "
      << snap.nodes().size() << " Nodes, " << snap.node_claims().size()
      << " NodeClaims, " << snap.pod_count() << " Pods, " << snap.pdbs().size()
      << " PodDisruptionBudgets, " << snap.daemon_sets().size()
      << " DaemonSets\n";
  out << "Storage: " << snap.persistent_volume_claims().size()
      << " PersistentVolumeClaims, " << snap.persistent_volumes().size()
      << " PersistentVolumes, " << snap.storage_classes().size()
      << " StorageClasses (default: " << DefaultStorageClass(snap) << "), "
      << snap.csi_nodes().size() << " CSINodes, "
      << snap.volume_attachments().size() << " VolumeAttachments\n";
  if (!snap.skipped_kinds().empty()) {
    out << "Skipped: "
        << absl::StrJoin(snap.skipped_kinds(), ", ", absl::PairFormatter(" "))
        << "\n";
  }
  out << "\n";
  PrintNodePools(snap, out);
  out << "\n";
  PrintNodes(snap, out);
  out << "\nPods not on a node: " << snap.UnboundPods().size() << " unbound, "
      << snap.PodsOnUnknownNodes().size()
      << " on nodes missing from the snapshot\n\n";
  PrintPdbs(snap, out);
}

}  // namespace

int RunInspectCommand(const std::vector<std::string>& args, std::ostream& out,
                      std::ostream& err) {
  if (WantsHelp(args)) {
    out << kInspectUsage;
    return kExitOk;
  }
  std::vector<std::string> files;
  for (size_t i = 0; i < args.size(); ++i) {
    if (std::string problem = TakeFileArg(args, i, files); !problem.empty()) {
      PrintError(err, "inspect: " + problem);
      return kExitUsage;
    }
  }
  std::optional<snapshot::Snapshot> snap = LoadSnapshot(files, "inspect", err);
  if (!snap) return kExitUsage;
  PrintSummary(*snap, out);
  return kExitOk;
}

}  // namespace karpenter::cli
