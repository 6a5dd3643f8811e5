// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// `karpenter fit NAMESPACE/POD`: would one pod of a cluster dump fit on each
// of its nodes now, and if not, why, in kube-scheduler's words
// (scheduling/fit.h).

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "cli.h"
#include "karpenter/scheduling/fit.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/scheduling.pb.h"

namespace karpenter::cli {
namespace {

constexpr char kFitUsage[] =
    "usage: karpenter fit NAMESPACE/POD [-f FILE]... [-o text|json]\n"
    "                     [--strict]\n"
    "\n"
    "Would pod NAMESPACE/POD fit on each node of a cluster dump now, and if\n"
    "not, why, in kube-scheduler's words. Feed it everything the scheduling\n"
    "predicates read:\n"
    "  kubectl get nodes,pods,pdb,nodepools,nodeclaims,pv,pvc,storageclasses,"
    "csinodes,daemonsets -A -o yaml > cluster.yaml\n"
    "(any mix of files; without -f the example cluster bundled in the\n"
    "binary). A pod bound to a node is considered as if it were unbound, so\n"
    "its own node fits if it could be scheduled there again.\n"
    "\n"
    "It runs the Filter plugins of kube-scheduler's default profile\n"
    "(NodeUnschedulable, TaintToleration, NodeAffinity, NodePorts,\n"
    "NodeResourcesFit, NodeVolumeLimits, VolumeBinding, VolumeZone,\n"
    "PodTopologySpread, InterPodAffinity) on every node and reports every\n"
    "failing one, not only the first; NodeReadiness marks nodes that are not\n"
    "Ready or are being deleted. The first line is kube-scheduler's summary\n"
    "(\"0/5 nodes are available: 2 Insufficient cpu, ...\"), which counts "
    "each\n"
    "node's first failing plugin only; then a row per node and failing\n"
    "plugin, nodes by name.\n"
    "\n"
    "-o json prints a karpenter.v1.FitReport\n"
    "(proto/karpenter/v1/scheduling.proto) in proto3's JSON mapping.\n"
    "A timestamp an object lacks (a NodeClaim's creationTimestamp, a\n"
    "condition's lastTransitionTime) is taken as now, with one 'warning:'\n"
    "line per object on stderr; --strict makes it an error instead.\n"
    "Exit status 2 with a one-line message on bad usage, bad input or an\n"
    "unknown pod.\n";

struct FitArgs {
  std::vector<std::string> files;
  std::vector<std::string> positional;
  bool json = false;
  bool strict = false;
};

// "" on success.
std::string ParseFitArgs(const std::vector<std::string>& args,
                         FitArgs& parsed) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-o" || arg == "--output") {
      if (i + 1 >= args.size()) return absl::StrCat(arg, ": missing value");
      if (std::string p = ParseOutputFlag(arg, args[++i], parsed.json);
          !p.empty()) {
        return p;
      }
    } else if (arg == "-f" || arg == "--filename") {
      if (i + 1 >= args.size()) return absl::StrCat(arg, ": missing FILE");
      parsed.files.push_back(args[++i]);
    } else if (arg == "--strict") {
      parsed.strict = true;
    } else if (arg.size() > 1 && arg[0] == '-') {
      return absl::StrCat("unknown option \"", arg, "\"");
    } else {
      parsed.positional.push_back(arg);
    }
  }
  if (parsed.positional.empty()) return "missing NAMESPACE/POD";
  if (parsed.positional.size() > 1) {
    return absl::StrCat("one NAMESPACE/POD expected, got ",
                        parsed.positional.size());
  }
  const std::vector<absl::string_view> parts =
      absl::StrSplit(parsed.positional[0], '/');
  if (parts.size() != 2 || parts[0].empty() || parts[1].empty()) {
    return absl::StrCat("\"", parsed.positional[0],
                        "\" is not NAMESPACE/POD (e.g. default/web-0)");
  }
  return "";
}

// What the pod was read from, for messages.
std::string Sources(const std::vector<std::string>& files) {
  if (files.empty()) {
    return "the bundled example cluster (examples/clusters/demo.yaml)";
  }
  return absl::StrJoin(files, ", ");
}

// "on NODE (considered as if unbound)" or "(unbound)".
std::string Binding(const snapshot::Snapshot& snap, snapshot::PodIndex p) {
  if (snap.PodIsUnbound(p)) return "(unbound)";
  const std::optional<snapshot::NodeIndex> n = snap.NodeOfPod(p);
  if (n.has_value()) {
    return absl::StrCat("on ", snap.nodes()[*n].metadata().name(),
                        " (considered as if unbound)");
  }
  return absl::StrCat("on ", snap.DecodePod(p).spec().node_name(),
                      " (not in the dump; considered as if unbound)");
}

void PrintFitText(const v1::FitReport& report, const std::string& binding,
                  std::ostream& out) {
  out << "Pod " << report.pod() << " " << binding << ": " << report.summary()
      << "\n\n";
  std::vector<std::vector<std::string>> rows = {
      {"NODE", "FITS", "PLUGIN", "REASON"}};
  for (const v1::FitNode& node : report.nodes()) {
    if (node.fits() || node.reasons().empty()) {
      rows.push_back({node.name(), node.fits() ? "yes" : "no", "-", "-"});
      continue;
    }
    // One row per failing plugin; a plugin with several reasons (Insufficient
    // cpu and memory) lists them as kube-scheduler does, joined by ", ".
    for (int i = 0; i < node.reasons_size();) {
      const std::string& plugin = node.reasons(i).plugin();
      std::vector<std::string> messages;
      for (; i < node.reasons_size() && node.reasons(i).plugin() == plugin;
           ++i) {
        messages.push_back(node.reasons(i).message());
      }
      rows.push_back(
          {node.name(), "no", plugin, absl::StrJoin(messages, ", ")});
    }
  }
  PrintTable(rows, out);
}

}  // namespace

int RunFitCommand(const std::vector<std::string>& args, std::ostream& out,
                  std::ostream& err) {
  if (WantsHelp(args)) {
    out << kFitUsage;
    return kExitOk;
  }
  FitArgs parsed;
  if (std::string p = ParseFitArgs(args, parsed); !p.empty()) {
    PrintError(err, "fit: " + p);
    return kExitUsage;
  }
  const std::vector<std::string> key =
      absl::StrSplit(parsed.positional[0], '/');
  DumpChecks checks;
  checks.at = CliNow();
  checks.strict = parsed.strict;
  std::optional<snapshot::Snapshot> snap =
      LoadSnapshot(parsed.files, "fit", checks, err);
  if (!snap) return kExitUsage;
  const std::optional<snapshot::PodIndex> pod = snap->FindPod(key[0], key[1]);
  if (!pod.has_value()) {
    PrintError(err, absl::StrCat("fit: pod \"", parsed.positional[0],
                                 "\" not found in ", Sources(parsed.files)));
    return kExitUsage;
  }
  absl::StatusOr<v1::FitReport> report =
      scheduling::FitPod(*snap, key[0], key[1]);
  if (!report.ok()) {
    PrintError(err, absl::StrCat("fit: ", report.status().message()));
    return kExitUsage;
  }
  if (parsed.json) return PrintJson(*report, "fit", out, err);
  PrintFitText(*report, Binding(*snap, *pod), out);
  return kExitOk;
}

}  // namespace karpenter::cli
