// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// `karpenter provision`: the NodeClaims Karpenter's provisioner would launch
// for a cluster dump's pending pods, after the existing nodes took what they
// can, and the pods that schedule nowhere (scheduling/provision.h).

#include <algorithm>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "cli.h"
#include "karpenter/catalog.h"
#include "karpenter/cloud_provider.h"
#include "karpenter/disruption/plan_proto.h"
#include "karpenter/scheduling/provision.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/scheduling.pb.h"

namespace karpenter::cli {
namespace {

constexpr char kProvisionUsage[] =
    "usage: karpenter provision [-f FILE]... [--catalog FILE] [-o text|json]\n"
    "                           [--strict]\n"
    "\n"
    "What Karpenter's provisioner would do with the pending pods of a\n"
    "cluster dump: the pods with no nodeName whose condition PodScheduled is\n"
    "False with reason Unschedulable. Existing nodes take what they can\n"
    "first (kube-scheduler's Filter plugins, as 'karpenter fit' runs them);\n"
    "for the rest it prints the NodeClaims it would launch: each one's\n"
    "NodePool, price, the instance types it may launch as (cheapest first),\n"
    "its requirements (the NodePool's, the pods' and the topology values it\n"
    "was narrowed to, e.g. topology.kubernetes.io/zone In [us-west-2a]) and\n"
    "its pods; then every pod that schedules nowhere, with the reason.\n"
    "Nothing is changed. Feed it what the scheduling reads:\n"
    "  kubectl get nodes,pods,pdb,nodepools,nodeclaims,pv,pvc,storageclasses,"
    "csinodes,daemonsets -A -o yaml > cluster.yaml\n"
    "(any mix of files; without -f the example cluster bundled in the\n"
    "binary).\n"
    "\n"
    "--catalog FILE gives the priced instance types (a document of kind\n"
    "InstanceTypeCatalog, as 'karpenter plan --catalog' reads it), offered\n"
    "to every NodePool. Without it the instance types are the ones the\n"
    "dump's nodes run, per NodePool\n"
    "and in the zones and capacity types those nodes are in, at unknown\n"
    "prices (printed as \"price unknown\"): a NodePool without nodes launches\n"
    "nothing, and a pod no such type can hold is unschedulable.\n"
    "\n"
    "The text lists at most 10 instance types per NodeClaim (\"... and N\n"
    "more\"); -o json prints a karpenter.v1.ProvisionReport\n"
    "(proto/karpenter/v1/scheduling.proto) in proto3's JSON mapping, with\n"
    "every instance type. A timestamp an object lacks (a NodeClaim's\n"
    "creationTimestamp, a condition's lastTransitionTime) is taken as now,\n"
    "with one 'warning:' line per object on stderr; --strict makes it an\n"
    "error instead. Exit status 2 with a one-line message on bad usage\n"
    "or bad input.\n";

// Instance types a NodeClaim's text section lists before "... and N more".
constexpr int kInstanceTypesShown = 10;

struct ProvisionArgs {
  std::vector<std::string> files;
  std::optional<std::string> catalog;
  bool json = false;
  bool strict = false;
};

// "" on success.
std::string ParseProvisionArgs(const std::vector<std::string>& args,
                               ProvisionArgs& parsed) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-o" || arg == "--output") {
      if (i + 1 >= args.size()) return absl::StrCat(arg, ": missing value");
      if (std::string p = ParseOutputFlag(arg, args[++i], parsed.json);
          !p.empty()) {
        return p;
      }
    } else if (arg == "--strict") {
      parsed.strict = true;
    } else if (arg == "--catalog") {
      if (i + 1 >= args.size()) return absl::StrCat(arg, ": missing FILE");
      parsed.catalog = args[++i];
    } else if (std::string p = TakeFileArg(args, i, parsed.files); !p.empty()) {
      return p;
    }
  }
  return "";
}

// Without --catalog, the instance types the NodeClaims may launch as: the
// types the dump's nodes run, per NodePool, at unknown prices
// (disruption::ObservedInstanceTypes).
absl::StatusOr<InstanceTypeCatalog> ProvisionCatalog(
    const snapshot::Snapshot& snap) {
  return disruption::ObservedInstanceTypes(snap);
}

// What the pods were read from, for messages.
std::string Sources(const std::vector<std::string>& files) {
  if (files.empty()) {
    return "the bundled example cluster (examples/clusters/demo.yaml)";
  }
  return absl::StrJoin(files, ", ");
}

// "1 pod", "3 pods".
std::string Count(int n, const std::string& noun) {
  return absl::StrCat(n, " ", noun, n == 1 ? "" : "s");
}

// "key In [a, b]"; "key Exists" for an operator without values.
std::string FormatRequirement(const v1::ProvisionRequirement& r) {
  if (r.values().empty()) return absl::StrCat(r.key(), " ", r.operator_());
  return absl::StrCat(r.key(), " ", r.operator_(), " [",
                      absl::StrJoin(r.values(), ", "), "]");
}

// The first kInstanceTypesShown types, then "... and N more".
std::string FormatInstanceTypes(const v1::ProvisionNodeClaim& claim) {
  const int n = claim.instance_types_size();
  if (n == 0) return "none";
  if (n <= kInstanceTypesShown) {
    return absl::StrJoin(claim.instance_types(), ", ");
  }
  std::vector<std::string> shown(
      claim.instance_types().begin(),
      claim.instance_types().begin() + kInstanceTypesShown);
  return absl::StrCat(absl::StrJoin(shown, ", "), ", ... and ",
                      n - kInstanceTypesShown, " more");
}

std::string FormatPrice(double price) {
  if (price <= 0) return "price unknown";
  return absl::StrCat("price ", price, "/h");
}

void PrintProvisionText(const v1::ProvisionReport& report,
                        const std::string& sources, std::ostream& out) {
  int on_existing = 0;
  for (const v1::ProvisionExisting& node : report.existing()) {
    on_existing += node.pods_size();
  }
  int on_claims = 0;
  for (const v1::ProvisionNodeClaim& claim : report.node_claims()) {
    on_claims += claim.pods_size();
  }
  const int pending = on_existing + on_claims + report.unschedulable_size();
  if (pending == 0) {
    out << "No pending pods in " << sources
        << " (none is unbound with condition PodScheduled False, reason "
           "Unschedulable): nothing to provision.\n";
    return;
  }
  out << Count(pending, "pending pod") << ": " << on_existing
      << " on existing nodes, " << on_claims << " on "
      << Count(report.node_claims_size(), "new NodeClaim") << ", "
      << report.unschedulable_size() << " unschedulable\n";
  for (const v1::ProvisionExisting& node : report.existing()) {
    out << "\nExisting node " << node.node() << ": "
        << Count(node.pods_size(), "pod") << "\n";
    for (const std::string& pod : node.pods()) out << "  " << pod << "\n";
  }
  for (int i = 0; i < report.node_claims_size(); ++i) {
    const v1::ProvisionNodeClaim& claim = report.node_claims(i);
    out << "\nNodeClaim " << i + 1 << ": NodePool " << claim.node_pool() << ", "
        << Count(claim.pods_size(), "pod") << ", " << FormatPrice(claim.price())
        << "\n";
    out << "  instance types (" << claim.instance_types_size()
        << ", cheapest first): " << FormatInstanceTypes(claim) << "\n";
    if (!claim.annotations().empty()) {
      // A proto map iterates in no fixed order: sort for stable output.
      std::vector<std::string> annotations;
      for (const auto& [key, value] : claim.annotations()) {
        annotations.push_back(absl::StrCat(key, ": \"", value, "\""));
      }
      std::sort(annotations.begin(), annotations.end());
      out << "  annotations: " << absl::StrJoin(annotations, ", ") << "\n";
    }
    out << "  requirements:\n";
    for (const v1::ProvisionRequirement& r : claim.requirements()) {
      out << "    " << FormatRequirement(r) << "\n";
    }
    out << "  pods:\n";
    for (const std::string& pod : claim.pods()) out << "    " << pod << "\n";
  }
  if (report.unschedulable().empty()) return;
  out << "\nUnschedulable: " << Count(report.unschedulable_size(), "pod")
      << "\n";
  std::vector<std::vector<std::string>> rows = {{"POD", "REASON"}};
  for (const v1::ProvisionUnschedulable& pod : report.unschedulable()) {
    rows.push_back({pod.pod(), pod.reason()});
  }
  PrintTable(rows, out);
}

}  // namespace

int RunProvisionCommand(const std::vector<std::string>& args, std::ostream& out,
                        std::ostream& err) {
  if (WantsHelp(args)) {
    out << kProvisionUsage;
    return kExitOk;
  }
  ProvisionArgs parsed;
  if (std::string p = ParseProvisionArgs(args, parsed); !p.empty()) {
    PrintError(err, "provision: " + p);
    return kExitUsage;
  }
  const absl::Time now = CliNow();
  DumpChecks checks;
  checks.at = now;
  checks.strict = parsed.strict;
  std::optional<snapshot::Snapshot> snap =
      LoadSnapshot(parsed.files, "provision", checks, err);
  if (!snap) return kExitUsage;
  absl::StatusOr<InstanceTypeCatalog> catalog = ProvisionCatalog(*snap);
  if (parsed.catalog.has_value()) {
    std::optional<std::vector<InstanceType>> types =
        LoadCatalogFlag(*parsed.catalog, "provision", err);
    if (!types.has_value()) return kExitUsage;
    catalog = CatalogForEveryNodePool(*snap, *types);
  }
  if (!catalog.ok()) {
    PrintError(err, absl::StrCat("provision: ", catalog.status().message()));
    return kExitUsage;
  }
  scheduling::ProvisionOptions options;
  options.now = now;
  absl::StatusOr<v1::ProvisionReport> report =
      scheduling::Provision(*snap, *catalog, options);
  if (!report.ok()) {
    PrintError(err, absl::StrCat("provision: ", report.status().message()));
    return kExitUsage;
  }
  if (parsed.json) return PrintJson(*report, "provision", out, err);
  PrintProvisionText(*report, Sources(parsed.files), out);
  return kExitOk;
}

}  // namespace karpenter::cli
