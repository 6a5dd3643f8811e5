// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// `karpenter plan` and `karpenter explain`: one disruption pass
// (disruption/controller.h) over cluster dumps, printed as commands and a
// verdict per node, and everything that decides one node
// (disruption/explain.h); with --watch, the same over a kubectl watch
// stream kept in a state::ClusterState, reprinted as the answer changes
// (watch.h).

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "cli.h"
#include "karpenter/budget/allowed.h"
#include "karpenter/catalog.h"
#include "karpenter/disruption/controller.h"
#include "karpenter/disruption/explain.h"
#include "karpenter/disruption/plan_proto.h"
#include "karpenter/node_overlay.h"
#include "karpenter/snapshot/audit.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/state/cluster_state.h"
#include "karpenter/state/watch_stream.h"
#include "karpenter/v1/plan.pb.h"
#include "karpenter/well_known.h"
#include "watch.h"

namespace karpenter::cli {
namespace {

constexpr char kPlanUsage[] =
    "usage: karpenter plan [-f FILE]... [--at RFC3339] [-o text|json]\n"
    "                      [--catalog FILE] [--no-consolidation]\n"
    "                      [--strict] [--complete] [--feature-gates GATES]\n"
    "       karpenter plan --watch [-f FILE|-] [--every DURATION]\n"
    "                      [options as above]\n"
    "\n"
    "Runs one disruption pass, as Karpenter's disruption controller would at\n"
    "--at (default now), over cluster dumps (any mix of files, YAML or JSON;\n"
    "without -f the example cluster bundled in the binary) as printed by\n"
    "  kubectl get "
    "nodes,pods,pdb,nodepools,nodeclaims,pv,pvc,storageclasses,csinodes,"
    "daemonsets,volumeattachments -A -o yaml\n"
    "Nothing is changed: it prints the commands the pass would start and,\n"
    "for every node, its verdict with a stable reason code and an\n"
    "explanation.\n"
    "\n"
    "The instance types are those the dump's nodes run, with unknown prices,\n"
    "so nothing is consolidated: a node without an offering price is not a\n"
    "consolidation candidate (InstanceTypeUnknown), as in Karpenter.\n"
    "--catalog FILE gives the cloud's priced instance types instead: one\n"
    "document of kind InstanceTypeCatalog (apiVersion\n"
    "sim.karpenter-sdk.dev/v1; proto/karpenter/v1/catalog.proto, e.g.\n"
    "examples/catalogs/aws-us-west-2.yaml), offered to every NodePool, each\n"
    "type's capacity less its overhead; consolidation then runs as it would\n"
    "in a host passing that catalogue. A node whose type or offering the\n"
    "catalogue lacks is InstanceTypeUnknown to consolidation and, once older\n"
    "than 1h, drifted (InstanceTypeNotFound).\n"
    "--feature-gates NodeOverlay=true applies the karpenter.sh/v1alpha1\n"
    "NodeOverlays of the dump and of the --catalog file to the instance\n"
    "types (prices and extended-resource capacity, by weight, as Karpenter's\n"
    "NodeOverlay feature gate does); an overlay Karpenter would reject is\n"
    "named on stderr. SpotToSpotConsolidation=true allows replacing spot\n"
    "nodes with cheaper spot nodes. Both gates are off by default.\n"
    "No cloud is asked whether instances drifted: drift is the NodeClaims'\n"
    "Drifted conditions plus what the pass itself finds (NodePool hash and\n"
    "requirements drift).\n"
    "\n"
    "-o json prints a karpenter.v1.Plan (proto/karpenter/v1/plan.proto) in\n"
    "proto3's JSON mapping. --no-consolidation skips both consolidation\n"
    "methods.\n"
    "\n"
    "Dump checks (stderr, before the plan): a timestamp a decision needs\n"
    "that an object lacks (a NodeClaim's creationTimestamp, a condition's\n"
    "lastTransitionTime, ...; hand-written manifests) is taken as --at, one\n"
    "'warning:' line per object; --strict makes that an error. A dump that\n"
    "looks partial (NodeClaims without NodePools, managed Nodes without\n"
    "NodeClaims, pods bound to nodes not in it) gets one 'warning:' line\n"
    "each with the kubectl command that adds what is missing. A NodeClaim\n"
    "whose NodePool is not in the dump is left alone (NodePoolNotFound)\n"
    "unless --complete says the dump is the whole cluster: then, as in\n"
    "Karpenter, its NodePool was deleted and it is deleted\n"
    "(NodePoolDeleted).\n"
    "\n"
    "--watch (-w) reads one stream instead, standard input by default (-f -)\n"
    "or a file, of the JSON values\n"
    "  kubectl get nodes,pods,nodepools,nodeclaims,pdb -A --watch \\\n"
    "      --output-watch-events -o json\n"
    "prints (events, bare objects or lists), keeps the cluster they describe\n"
    "and, each time the stream pauses (nothing more to read at once), plans\n"
    "at --at or else the time of that pass. The plan is printed when it\n"
    "differs from the last one printed other than in the instants that follow\n"
    "the pass time (the pass time, VALIDATE AT, Next pass), after a line\n"
    "'--- TIME: N events applied, plan changed'; with -o json, one JSON\n"
    "document per plan and no separators. At the end of the stream, the last\n"
    "plan if it changed, exit 0. A regular file is read to its end first,\n"
    "then planned once. Without --at, a stream that stays quiet is planned\n"
    "again every --every (default 10s, how often Karpenter's disruption\n"
    "controller runs; 0: never), since decisions change with time alone\n"
    "(consolidateAfter, expireAfter, budget schedules): a plan changed that\n"
    "way follows '--- TIME: 0 events applied, plan changed'.\n"
    "An event the cluster rejects is a 'warning:' line\n"
    "and is skipped; a value that does not decode ends the watch (exit 2).\n"
    "The dump checks run on the cluster at each pass, each warning printed\n"
    "once; --strict ends the watch (exit 2) at the first object lacking a\n"
    "timestamp. --catalog is read once, before the stream.\n"
    "\n"
    "Exit status 2 with a one-line message on bad usage or input.\n";

constexpr char kExplainUsage[] =
    "usage: karpenter explain NODE [-f FILE]... [--at RFC3339]\n"
    "                         [--horizon DURATION] [--catalog FILE]\n"
    "                         [--no-consolidation] [--strict] [--complete]\n"
    "       karpenter explain NODE --watch [-f FILE|-] [--every DURATION]\n"
    "                         [options as above]\n"
    "\n"
    "Explains why the disruption controller would or would not act on NODE\n"
    "(a Node name, or a NodeClaim without a Node) at --at (default now),\n"
    "over cluster dumps as 'karpenter plan' reads them: its verdict, drift,\n"
    "emptiness and the time left until consolidateAfter, expiry, its\n"
    "NodePool's budgets with the limiting one and when they next change,\n"
    "every do-not-disrupt pod and blocking PodDisruptionBudget with its\n"
    "numbers, and the earliest instant within --horizon (default 720h) at\n"
    "which a pass would disrupt it if nothing else in the cluster changed\n"
    "than what the passes before it commanded (deleted, replaced).\n"
    "--catalog FILE prices the instance types as 'karpenter plan --catalog'\n"
    "does; without it consolidation never acts (InstanceTypeUnknown).\n"
    "The dump is checked as 'karpenter plan' checks it (missing timestamps\n"
    "taken as --at, partial dumps), with the same --strict and --complete.\n"
    "\n"
    "--watch (-w) reads a kubectl watch stream as 'karpenter plan --watch'\n"
    "does and prints the explanation each time it changes (times relative to\n"
    "the pass aside), after a line '--- TIME: N events applied, explanation\n"
    "changed', also when only time changed it (--every, as for plan).\n"
    "While NODE is not in the cluster, one line says so; if it is\n"
    "not there at the end of the stream, exit status 2.\n"
    "\n"
    "Exit status 2 with a one-line message on bad usage, bad input or an\n"
    "unknown NODE.\n";

struct PassArgs {
  std::vector<std::string> files;
  std::vector<std::string> positional;
  absl::Time at = CliNow();
  bool at_given = false;
  bool json = false;
  bool no_consolidation = false;
  bool strict = false;
  bool complete = false;
  bool watch = false;
  std::optional<std::string> catalog;
  // --feature-gates: Karpenter's NodeOverlay and SpotToSpotConsolidation.
  bool node_overlay = false;
  bool spot_to_spot = false;
  absl::Duration horizon = absl::Hours(24 * 30);
  // --watch without --at: how long a quiet stream waits before the next
  // pass (0: never).
  absl::Duration every = absl::Seconds(10);
};

// Karpenter's --feature-gates syntax, "NodeOverlay=true,SpotToSpot...":
// the gates that change a pass. "" on success, else the error.
std::string ParseFeatureGates(const std::string& value, PassArgs& parsed) {
  for (absl::string_view gate : absl::StrSplit(value, ',')) {
    std::pair<absl::string_view, absl::string_view> kv =
        absl::StrSplit(gate, absl::MaxSplits('=', 1));
    bool on = false;
    if (kv.second == "true") {
      on = true;
    } else if (kv.second != "false") {
      return absl::StrCat("--feature-gates: \"", gate,
                          "\": expected <gate>=true or <gate>=false");
    }
    if (kv.first == "NodeOverlay") {
      parsed.node_overlay = on;
    } else if (kv.first == "SpotToSpotConsolidation") {
      parsed.spot_to_spot = on;
    } else {
      return absl::StrCat("--feature-gates: unknown gate \"", kv.first,
                          "\" (known: NodeOverlay, SpotToSpotConsolidation)");
    }
  }
  return "";
}

// Parses the options of `plan` and `explain`; "" on success.
std::string ParsePassArgs(const std::vector<std::string>& args, bool explain,
                          PassArgs& parsed) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--no-consolidation") {
      parsed.no_consolidation = true;
      continue;
    }
    if (arg == "--strict") {
      parsed.strict = true;
      continue;
    }
    if (arg == "--complete") {
      parsed.complete = true;
      continue;
    }
    if (arg == "--watch" || arg == "-w") {
      parsed.watch = true;
      continue;
    }
    const bool takes_value = arg == "-f" || arg == "--filename" ||
                             arg == "--at" || arg == "--catalog" ||
                             arg == "--every" || arg == "--feature-gates" ||
                             (!explain && (arg == "-o" || arg == "--output")) ||
                             (explain && arg == "--horizon");
    if (!takes_value) {
      if (arg.size() > 1 && arg[0] == '-') {
        return absl::StrCat("unknown option \"", arg, "\"");
      }
      (explain ? parsed.positional : parsed.files).push_back(arg);
      continue;
    }
    if (i + 1 >= args.size()) return absl::StrCat(arg, ": missing value");
    const std::string& value = args[++i];
    if (arg == "--at") {
      if (std::string p = ParseTimeFlag(arg, value, parsed.at); !p.empty()) {
        return p;
      }
      parsed.at_given = true;
    } else if (arg == "--horizon") {
      if (std::string p = ParseDurationFlag(arg, value, "72h", parsed.horizon);
          !p.empty()) {
        return p;
      }
    } else if (arg == "--every") {
      if (std::string p = ParseDurationFlag(arg, value, "10s", parsed.every);
          !p.empty()) {
        return p;
      }
    } else if (arg == "--catalog") {
      parsed.catalog = value;
    } else if (arg == "--feature-gates") {
      if (std::string p = ParseFeatureGates(value, parsed); !p.empty()) {
        return p;
      }
    } else if (arg == "-o" || arg == "--output") {
      if (std::string p = ParseOutputFlag(arg, value, parsed.json);
          !p.empty()) {
        return p;
      }
    } else {
      parsed.files.push_back(value);
    }
  }
  return "";
}

disruption::Controller MakeController(const PassArgs& args) {
  disruption::ControllerOptions options;
  options.disable_consolidation = args.no_consolidation;
  options.consolidation.spot_to_spot = args.spot_to_spot;
  // A dump may lack its NodePools: without --complete, a NodeClaim whose
  // NodePool is not in it is not taken as orphaned.
  options.methods.node_pools_complete = args.complete;
  options.methods.missing_node_pool_hint = kCompleteHint;
  return disruption::Controller(options);
}

// The checks `plan` and `explain` run on the dump (cli.h DumpChecks).
DumpChecks PassChecks(const PassArgs& args) {
  DumpChecks checks;
  checks.at = args.at;
  checks.at_label = args.at_given ? "--at" : "now";
  checks.strict = args.strict;
  checks.coverage = true;
  return checks;
}

// The pass's catalogue: --catalog's types for every NodePool, else the
// types the dump's nodes run at unknown prices. Nullopt (after one line on
// `err`) when the catalogue file is bad.
// With --feature-gates NodeOverlay=true: the NodeOverlays of the dump and
// of the --catalog file applied to `catalog` (karpenter/node_overlay.h), one
// warning line on `err` per overlay Karpenter would not apply. False (after
// one line on `err`) when the catalogue file's overlays do not load.
bool ApplyOverlays(const snapshot::Snapshot& snap, const PassArgs& args,
                   const std::string& command, InstanceTypeCatalog& catalog,
                   std::ostream& err) {
  if (!args.node_overlay) return true;
  std::vector<v1::NodeOverlay> overlays = snap.node_overlays();
  if (args.catalog.has_value()) {
    absl::StatusOr<std::vector<v1::NodeOverlay>> more =
        LoadNodeOverlays(*args.catalog);
    if (!more.ok()) {
      PrintError(
          err, absl::StrCat(command, ": --catalog: ", more.status().message()));
      return false;
    }
    for (v1::NodeOverlay& o : *more) overlays.push_back(std::move(o));
  }
  const std::vector<v1::NodePool> pools(snap.node_pools().begin(),
                                        snap.node_pools().end());
  NodeOverlayResult r =
      ApplyNodeOverlays(catalog, pools, overlays, {.enabled = true});
  for (const NodeOverlayStatus& s : r.statuses) {
    if (s.reason == "Applied") continue;
    err << command << ": warning: NodeOverlay \"" << s.name
        << "\" not applied: " << s.reason << ": " << s.message << "\n";
  }
  catalog = std::move(r.catalog);
  return true;
}

std::optional<disruption::PassInputs> MakeInputs(const snapshot::Snapshot& snap,
                                                 const PassArgs& args,
                                                 const std::string& command,
                                                 std::ostream& err) {
  disruption::PassInputs inputs;
  if (!args.catalog.has_value()) {
    inputs.catalog = disruption::ObservedInstanceTypes(snap);
  } else {
    std::optional<std::vector<InstanceType>> types =
        LoadCatalogFlag(*args.catalog, command, err);
    if (!types.has_value()) return std::nullopt;
    inputs.catalog = CatalogForEveryNodePool(snap, *types);
  }
  if (!ApplyOverlays(snap, args, command, inputs.catalog, err)) {
    return std::nullopt;
  }
  return inputs;
}

std::string Utc(absl::Time t) {
  if (t == absl::InfiniteFuture()) return "never";
  return FormatCliTime(t);
}

// "in 3h25m" / "3h25m ago" relative to `now`, rounded to the second.
std::string Relative(absl::Time t, absl::Time now) {
  const absl::Duration d = absl::Trunc(t - now, absl::Seconds(1));
  if (d == absl::ZeroDuration()) return "now";
  return d > absl::ZeroDuration()
             ? absl::StrCat("in ", absl::FormatDuration(d))
             : absl::StrCat(absl::FormatDuration(-d), " ago");
}

std::string OrDash(const std::string& s) { return s.empty() ? "-" : s; }

void PrintCommands(const v1::Plan& plan, std::ostream& out) {
  if (plan.commands().empty()) {
    out << "No commands.\n";
    return;
  }
  std::vector<std::vector<std::string>> rows = {
      {"#", "METHOD", "DECISION", "NODES", "REPLACEMENTS", "VALIDATE AT"}};
  for (int i = 0; i < plan.commands_size(); ++i) {
    const v1::PlanCommand& c = plan.commands(i);
    std::vector<std::string> nodes, replacements;
    for (const auto& cand : c.candidates()) {
      nodes.push_back(cand.node().empty() ? cand.node_claim() : cand.node());
    }
    for (const auto& r : c.replacements()) {
      replacements.push_back(
          absl::StrCat(r.node_pool(), "/", r.instance_types(0)));
    }
    rows.push_back({absl::StrCat(i + 1), c.method(), c.decision(),
                    absl::StrJoin(nodes, ","),
                    OrDash(absl::StrJoin(replacements, ",")),
                    OrDash(c.validate_at())});
  }
  PrintTable(rows, out);
  for (int i = 0; i < plan.commands_size(); ++i) {
    out << "  " << i + 1 << ": " << plan.commands(i).explanation() << "\n";
  }
}

void PrintPlanText(const v1::Plan& plan, absl::Time at, std::ostream& out) {
  out << "Disruption pass at " << Utc(at) << ": " << plan.commands_size()
      << (plan.commands_size() == 1 ? " command" : " commands");
  if (!plan.acted().empty()) out << " (" << plan.acted() << " acted)";
  out << "\n\n";
  PrintCommands(plan, out);
  out << "\n";
  std::vector<std::vector<std::string>> rows = {
      {"NODE", "NODEPOOL", "VERDICT", "METHOD", "WHY"}};
  for (const v1::PlanVerdict& v : plan.verdicts()) {
    rows.push_back({v.node(), OrDash(v.node_pool()), v.code(),
                    OrDash(v.method()), v.message()});
  }
  PrintTable(rows, out);
  for (const v1::PlanDriftUpdate& u : plan.drift_updates()) {
    out << "\nDrifted condition: " << u.node_claim() << " " << u.change();
    if (!u.reason().empty()) out << " (" << u.reason() << ")";
  }
  if (plan.drift_updates_size() > 0) out << "\n";
  for (const std::string& e : plan.drift_errors()) {
    out << "Drift error: " << e << "\n";
  }
  if (plan.cleanup_size() > 0) {
    out << "Leftover " << well_known::kDisruptedTaintKey
        << " taints to remove: " << absl::StrJoin(plan.cleanup(), ", ") << "\n";
  }
  PrintControlsTable({plan.controls().begin(), plan.controls().end()}, out);
  out << "\nNext pass: " << OrDash(plan.next_pass()) << "\n";
}

}  // namespace

namespace {

// `stable` (the comparison text of --watch) leaves out what changes with
// the pass time alone: the times relative to it and the instants tried.
void PrintTiming(const disruption::NodeExplanation& e, bool stable,
                 std::ostream& out) {
  const auto relative = [&](absl::Time t) {
    return stable ? std::string() : absl::StrCat(" (", Relative(t, e.now), ")");
  };
  out << "  drift:         "
      << (e.drifted_since.has_value()
              ? absl::StrCat("drifted (", e.drift_reason, ") since ",
                             Utc(*e.drifted_since))
              : "not drifted")
      << "\n";
  out << "  pods:          " << e.pods << " on the node, "
      << e.reschedulable_pods << " to reschedule" << (e.empty ? " (empty)" : "")
      << "\n";
  out << "  consolidation: " << e.consolidation_policy;
  if (e.consolidation_disabled) {
    out << ", consolidateAfter Never";
  } else if (e.consolidatable_at.has_value()) {
    out << ", consolidateAfter elapses " << Utc(*e.consolidatable_at)
        << relative(*e.consolidatable_at);
  } else {
    out << ", not initialised";
  }
  out << "\n  expiry:        "
      << (e.expires_at.has_value()
              ? absl::StrCat(Utc(*e.expires_at), relative(*e.expires_at))
              : "never");
  if (e.expiration_ceiling.has_value()) {
    out << "; soft-expiration: goes regardless at "
        << Utc(*e.expiration_ceiling) << relative(*e.expiration_ceiling);
  }
  out << "\n";
}

// The SDK controls of the node's NodePool (disruption/controls.h).
void PrintNodeControls(const disruption::NodeExplanation& e,
                       std::ostream& out) {
  if (!e.controls.has_value()) return;
  const disruption::NodePoolControlState& s = *e.controls;
  if (!s.error.empty()) {
    out << "  controls:      invalid, the NodePool fails closed: "
        << absl::StrReplaceAll(s.error, {{"\n", "; "}}) << "\n";
    return;
  }
  std::vector<std::string> parts;
  if (s.controls.max_disrupting_zones.has_value()) {
    parts.push_back(absl::StrCat(
        "max-disrupting-zones ", *s.controls.max_disrupting_zones, " (",
        s.disrupting_zones.empty()
            ? std::string("no zone disrupting")
            : absl::StrCat("disrupting: ",
                           absl::StrJoin(s.disrupting_zones, ", ")),
        ")"));
  }
  if (s.controls.soft_expiration.has_value()) {
    parts.push_back(absl::StrCat(
        "soft-expiration ",
        disruption::FormatSoftExpiration(*s.controls.soft_expiration), " (",
        s.expiration.why, ")"));
  }
  if (s.controls.min_savings.has_value()) {
    parts.push_back(
        absl::StrCat("consolidation-min-savings ",
                     disruption::FormatMinSavings(*s.controls.min_savings)));
  }
  if (s.controls.max_replacements > 1) {
    parts.push_back(absl::StrCat("consolidation-max-replacements ",
                                 s.controls.max_replacements));
  }
  out << "  controls:      " << absl::StrJoin(parts, "; ") << "\n";
}

// "unlimited" for Karpenter's no-limit value (math.MaxInt32), else the
// number.
std::string CountText(int64_t n) {
  return n == budget::kUnlimited ? "unlimited" : absl::StrCat(n);
}

// What remains of `allowed`: "unlimited" when no budget limits it (the
// remaining count is then MaxInt32 less the disrupting nodes).
std::string RemainingText(int64_t allowed, int64_t remaining) {
  return allowed == budget::kUnlimited ? "unlimited" : CountText(remaining);
}

void PrintBudgets(const disruption::NodeExplanation& e, std::ostream& out) {
  if (e.budgets.empty()) return;
  out << "  budgets of NodePool " << e.node_pool << ":\n";
  for (const disruption::ReasonBudgetExplanation& b : e.budgets) {
    out << "    " << budget::DisruptionReasonName(b.reason) << ": allowed "
        << CountText(b.allowed) << ", remaining "
        << RemainingText(b.allowed, b.remaining) << "; " << b.why;
    if (b.next_change != absl::InfiniteFuture()) {
      out << "; changes at " << Utc(b.next_change) << " to "
          << CountText(b.next_allowed);
    }
    out << "\n";
  }
}

void PrintBlockers(const disruption::NodeExplanation& e, std::ostream& out) {
  if (!e.node_window.empty()) {
    out << "  do-not-disrupt window (node): " << e.node_window << "; releases "
        << (e.node_window_until.has_value()
                ? absl::StrCat("the node at ", Utc(*e.node_window_until))
                : std::string("the node at no known instant"))
        << "\n";
  }
  for (const disruption::DoNotDisruptPod& p : e.do_not_disrupt) {
    if (absl::StartsWith(p.annotation,
                         well_known::kDoNotDisruptScheduleAnnotationKey)) {
      out << "  do-not-disrupt window: " << p.pod << " (" << p.annotation
          << "); releases the node "
          << (p.until.has_value() ? absl::StrCat("at ", Utc(*p.until))
                                  : std::string("at no known instant"))
          << "\n";
      continue;
    }
    out << "  do-not-disrupt: " << p.pod << " (" << p.annotation << ") "
        << (p.until.has_value() ? absl::StrCat("until ", Utc(*p.until))
                                : std::string("indefinitely"))
        << "\n";
  }
  for (const disruption::BlockingPdb& b : e.blocking_pdbs) {
    out << "  blocking PDB:  " << b.pdb << ": ";
    if (!b.error.empty()) {
      out << b.error;
    } else {
      out << "disruptionsAllowed " << b.disruptions_allowed << " (healthy "
          << b.current_healthy << ", desired " << b.desired_healthy
          << ", expected " << b.expected_pods << ")";
    }
    out << "; pods " << absl::StrJoin(b.pods, ", ") << "\n";
  }
}

void PrintExplanation(const disruption::NodeExplanation& e,
                      absl::Duration horizon, bool stable, std::ostream& out) {
  out << (e.has_node ? "Node " : "NodeClaim ") << e.node;
  if (!e.node_claim.empty() && e.node_claim != e.node) {
    out << " (NodeClaim " << e.node_claim << ")";
  }
  if (!e.node_pool.empty()) out << ", NodePool " << e.node_pool;
  if (!stable) out << ", at " << Utc(e.now);
  out << "\n";
  out << "  verdict:       " << e.verdict.code;
  if (e.verdict.method.has_value()) {
    out << " (" << disruption::MethodName(*e.verdict.method) << ")";
  }
  out << ": " << e.verdict.message << "\n";
  if (e.command.has_value()) {
    out << "  command:       " << e.command->explanation << "\n";
  }
  if (e.node_claim.empty()) return;  // Not managed: nothing else applies.
  PrintTiming(e, stable, out);
  PrintBudgets(e, out);
  PrintNodeControls(e, out);
  PrintBlockers(e, out);
  out << "  disrupted:     ";
  if (e.disrupted_at.has_value()) {
    out << (*e.disrupted_at == e.now
                ? "by this pass"
                : absl::StrCat(
                      "at ", Utc(*e.disrupted_at),
                      stable
                          ? std::string()
                          : absl::StrCat(" (", Relative(*e.disrupted_at, e.now),
                                         ")")))
        << ", by "
        << (e.disrupted_by.has_value()
                ? std::string(disruption::MethodName(*e.disrupted_by))
                : std::string("?"))
        << "\n";
  } else {
    out << "not within " << absl::FormatDuration(horizon)
        << " if nothing else changes";
    if (!stable) out << " (" << e.tried.size() << " instants tried)";
    out << "\n";
  }
}

// --watch (watch.h): what a pass prints, and the text two passes are
// compared by (the output less what changes with the pass time alone).
struct Rendered {
  std::string text;
  std::string key;
};

// One pass over `snap` at `at`; an error ends the watch (exit 2).
using PassFn = std::function<absl::StatusOr<Rendered>(
    const snapshot::Snapshot& snap, const disruption::PassInputs& inputs,
    absl::Time at)>;

// The plan as `plan` prints it; its key is the plan without what follows
// from the pass time alone (the pass time, the commands' validation time,
// the next pass, the candidates' disruption costs), so that a watch without
// --at reprints a plan only when a decision changed.
absl::StatusOr<Rendered> RenderPlan(const v1::Plan& message, absl::Time at,
                                    bool json) {
  Rendered r;
  if (json) {
    std::ostringstream text, err;
    if (PrintJson(message, "plan", text, err) != kExitOk) {
      return absl::InternalError(err.str());
    }
    r.text = text.str();
    if (r.text.empty() || r.text.back() != '\n') r.text += '\n';
  } else {
    std::ostringstream text;
    PrintPlanText(message, at, text);
    r.text = text.str();
  }
  v1::Plan key = message;
  key.clear_now();
  key.clear_next_pass();
  for (v1::PlanCommand& c : *key.mutable_commands()) {
    c.clear_validate_at();
    // Falls as the node ages (expireAfter): an order, not a decision.
    for (v1::PlanCandidate& candidate : *c.mutable_candidates()) {
      candidate.clear_disruption_cost();
    }
  }
  r.key = key.SerializeAsString();
  return r;
}

// Opens the stream of `--watch -f FILE` and closes it when done.
class WatchInput {
 public:
  WatchInput() = default;
  WatchInput(const WatchInput&) = delete;
  WatchInput& operator=(const WatchInput&) = delete;
  ~WatchInput() {
    if (fd_ >= 0) ::close(fd_);
  }

  // "" on success, else the problem.
  std::string Open(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) {
      return absl::StrCat("-f: cannot open \"", path,
                          "\": ", std::strerror(errno));
    }
    reader_.emplace(fd_, path);
    return "";
  }
  StreamReader& reader() { return *reader_; }

 private:
  int fd_ = -1;
  std::optional<FdStreamReader> reader_;
};

// The loop of `plan --watch` and `explain --watch`: decodes the stream
// (standard input for "-", `in` standing for it) into events, applies them
// to a ClusterState and, at every pause of the stream with no value half
// read, runs `pass` over the state; prints its text when its key differs
// from the last one printed, after a separator line ("--- TIME: N events
// applied, <what> changed") except for JSON, which stays a stream of
// documents. At the end of the stream, one last pass. Dump checks as the
// commands make them on files, over the state at each pass, each warning
// printed once.
int RunWatch(const PassArgs& args, const std::string& command,
             const std::string& what, const PassFn& pass, StreamReader& in,
             std::ostream& out, std::ostream& err) {
  const auto fail = [&](absl::string_view message) {
    PrintError(err, absl::StrCat(command, ": ", message));
    return kExitUsage;
  };
  if (args.files.size() > 1) {
    return fail(absl::StrCat("--watch reads one stream, got ",
                             args.files.size(), " files (-f)"));
  }
  const std::string path = args.files.empty() ? "-" : args.files[0];
  WatchInput file;
  if (path != "-") {
    if (std::string p = file.Open(path); !p.empty()) return fail(p);
  }
  StreamReader& reader = path == "-" ? in : file.reader();
  const std::string source = path == "-" ? "stdin" : path;

  // The catalogue is read once, before the stream.
  std::optional<std::vector<InstanceType>> types;
  if (args.catalog.has_value()) {
    types = LoadCatalogFlag(*args.catalog, command, err);
    if (!types.has_value()) return kExitUsage;
  }

  state::ClusterState cluster;
  state::WatchStreamDecoder decoder(source);
  std::set<std::string> warned;
  std::optional<std::string> last_key;
  std::optional<uint64_t> last_generation;
  int64_t events = 0;  // Applied since the last text printed.
  // When a stream that stays quiet is planned again (--every, not --at):
  // decisions change with time alone (consolidateAfter, expireAfter,
  // budget schedules), as Karpenter's controller re-decides every 10s.
  std::optional<absl::Time> next_timed;
  // The generation of the cluster last checked and found to lack nothing.
  std::optional<uint64_t> clean_generation;

  // Returns kExitOk to go on, else the exit status.
  const auto run_pass = [&]() -> int {
    // With --at, the answer changes only with the state.
    if (args.at_given && last_generation == cluster.generation()) {
      return kExitOk;
    }
    last_generation = cluster.generation();
    const absl::Time at = args.at_given ? args.at : reader.Now();
    if (!args.at_given && args.every > absl::ZeroDuration()) {
      next_timed = at + args.every;
    }
    // The checks read the objects only (nothing missing stays nothing
    // missing whatever the time): a cluster found complete and unchanged
    // since, as at a timed pass, is not exported and checked again.
    const bool checked = clean_generation == cluster.generation();
    snapshot::ObjectSet objects =
        checked ? snapshot::ObjectSet() : cluster.Export();
    snapshot::AuditOptions audit;
    audit.source = source;
    audit.now_label = args.at_given ? "--at" : "now";
    audit.node_creation = false;  // No termination here either.
    absl::StatusOr<std::vector<snapshot::DumpWarning>> missing =
        checked ? std::vector<snapshot::DumpWarning>()
                : snapshot::AuditDump(objects, at, audit);
    if (!missing.ok()) return fail(missing.status().message());
    if (args.strict && !missing->empty()) {
      const snapshot::DumpWarning& w = (*missing)[0];
      return fail(absl::StrCat("--strict: ", source, ": ", w.object_kind, " \"",
                               w.object, "\": ", absl::StrJoin(w.fields, ", "),
                               w.fields.size() == 1 ? " is" : " are",
                               " missing"));
    }
    for (const snapshot::DumpWarning& w : *missing) {
      // Once per object and fields, whatever time it is taken as.
      const std::string once = absl::StrCat(w.object_kind, " ", w.object, ": ",
                                            absl::StrJoin(w.fields, ", "));
      if (warned.insert(once).second) err << "warning: " << w.message << "\n";
    }
    if (missing->empty()) clean_generation = cluster.generation();
    for (const snapshot::DumpWarning& w :
         checked ? std::vector<snapshot::DumpWarning>()
                 : snapshot::AuditCoverage(objects)) {
      if (!warned.insert(w.message).second) continue;
      err << (w.kind == snapshot::DumpWarningKind::kInformational ? "note: "
                                                                  : "warning: ")
          << w.message << "\n";
    }
    // Nothing filled in (a live cluster's objects carry their timestamps):
    // the state's own snapshot, assembled from its compacted pods, is the
    // same snapshot at a fraction of Build's cost.
    absl::StatusOr<snapshot::Snapshot> snap =
        missing->empty() ? cluster.TakeSnapshot()
                         : snapshot::Snapshot::Build(std::move(objects));
    if (!snap.ok()) return fail(snap.status().message());
    disruption::PassInputs inputs;
    inputs.catalog = types.has_value()
                         ? CatalogForEveryNodePool(*snap, *types)
                         : disruption::ObservedInstanceTypes(*snap);
    if (!ApplyOverlays(*snap, args, command, inputs.catalog, err)) {
      return kExitUsage;
    }
    absl::StatusOr<Rendered> r = pass(*snap, inputs, at);
    if (!r.ok()) return fail(r.status().message());
    if (last_key == r->key) return kExitOk;
    if (last_key.has_value() && !args.json) {
      out << "--- " << FormatCliTime(at) << ": " << events
          << (events == 1 ? " event" : " events") << " applied, " << what
          << " changed\n";
    }
    out << r->text;
    out.flush();
    last_key = std::move(r->key);
    events = 0;
    return kExitOk;
  };

  std::string chunk;
  for (;;) {
    // Between values, wait for input only until the next timed pass.
    while (next_timed.has_value() && decoder.AtBoundary() &&
           !reader.WaitReady(
               std::max(absl::ZeroDuration(), *next_timed - reader.Now()))) {
      if (const int status = run_pass(); status != kExitOk) return status;
    }
    if (absl::Status s = reader.Read(chunk); !s.ok()) {
      return fail(s.message());
    }
    if (chunk.empty()) {  // The end of the stream.
      if (absl::Status s = decoder.Finish(); !s.ok()) return fail(s.message());
      // The last pass is always made (unless nothing changed since the
      // last with --at), and prints when the answer changed or nothing was
      // printed yet.
      return run_pass();
    }
    std::vector<state::Event> decoded;
    const absl::Status fed = decoder.Feed(chunk, decoded);
    for (state::Event& event : decoded) {
      absl::StatusOr<state::Applied> applied = cluster.Apply(std::move(event));
      if (!applied.ok()) {
        err << "warning: " << applied.status().message()
            << " (event ignored)\n";
        continue;
      }
      ++events;
    }
    // The events before a bad value are applied, but the stream cannot be
    // trusted past it: no plan from it.
    if (!fed.ok()) return fail(fed.message());
    if (decoder.AtBoundary() && !reader.Ready()) {
      if (const int status = run_pass(); status != kExitOk) return status;
    }
  }
}

}  // namespace

int RunPlanCommand(const std::vector<std::string>& args, StreamReader& in,
                   std::ostream& out, std::ostream& err) {
  if (WantsHelp(args)) {
    out << kPlanUsage;
    return kExitOk;
  }
  PassArgs parsed;
  if (std::string p = ParsePassArgs(args, /*explain=*/false, parsed);
      !p.empty()) {
    PrintError(err, "plan: " + p);
    return kExitUsage;
  }
  if (parsed.watch) {
    const PassFn pass = [&](const snapshot::Snapshot& snap,
                            const disruption::PassInputs& inputs,
                            absl::Time at) -> absl::StatusOr<Rendered> {
      absl::StatusOr<disruption::Plan> plan =
          MakeController(parsed).Decide(snap, inputs, at);
      if (!plan.ok()) return plan.status();
      return RenderPlan(disruption::PlanToProto(*plan), at, parsed.json);
    };
    return RunWatch(parsed, "plan", "plan", pass, in, out, err);
  }
  std::optional<snapshot::Snapshot> snap =
      LoadSnapshot(parsed.files, "plan", PassChecks(parsed), err);
  if (!snap) return kExitUsage;
  std::optional<disruption::PassInputs> inputs =
      MakeInputs(*snap, parsed, "plan", err);
  if (!inputs) return kExitUsage;
  absl::StatusOr<disruption::Plan> plan =
      MakeController(parsed).Decide(*snap, *inputs, parsed.at);
  if (!plan.ok()) {
    PrintError(err, absl::StrCat("plan: ", plan.status().message()));
    return kExitUsage;
  }
  const v1::Plan message = disruption::PlanToProto(*plan);
  if (parsed.json) return PrintJson(message, "plan", out, err);
  PrintPlanText(message, parsed.at, out);
  return kExitOk;
}

int RunPlanCommand(const std::vector<std::string>& args, std::ostream& out,
                   std::ostream& err) {
  FdStreamReader in(STDIN_FILENO, "stdin");
  return RunPlanCommand(args, in, out, err);
}

int RunExplainCommand(const std::vector<std::string>& args, StreamReader& in,
                      std::ostream& out, std::ostream& err) {
  if (WantsHelp(args)) {
    out << kExplainUsage;
    return kExitOk;
  }
  PassArgs parsed;
  if (std::string p = ParsePassArgs(args, /*explain=*/true, parsed);
      !p.empty()) {
    PrintError(err, "explain: " + p);
    return kExitUsage;
  }
  if (parsed.positional.size() != 1) {
    PrintError(err, parsed.positional.empty()
                        ? "explain: missing NODE"
                        : absl::StrCat("explain: one NODE expected, got ",
                                       parsed.positional.size()));
    return kExitUsage;
  }
  if (parsed.watch) {
    const std::string& node = parsed.positional[0];
    bool missing = false;
    const PassFn pass = [&](const snapshot::Snapshot& snap,
                            const disruption::PassInputs& inputs,
                            absl::Time at) -> absl::StatusOr<Rendered> {
      disruption::ExplainOptions options;
      options.horizon = parsed.horizon;
      absl::StatusOr<disruption::NodeExplanation> e = disruption::ExplainNode(
          MakeController(parsed), snap, inputs, node, at, options);
      missing = absl::IsNotFound(e.status());
      if (missing) {
        // Not (or no longer) in the cluster: said, and the watch goes on.
        std::string line = absl::StrCat("Node ", node, ": not in the cluster (",
                                        e.status().message(), ")\n");
        return Rendered{line, line};
      }
      if (!e.ok()) return e.status();
      std::ostringstream text, key;
      PrintExplanation(*e, parsed.horizon, /*stable=*/false, text);
      PrintExplanation(*e, parsed.horizon, /*stable=*/true, key);
      return Rendered{text.str(), key.str()};
    };
    const int status =
        RunWatch(parsed, "explain", "explanation", pass, in, out, err);
    if (status == kExitOk && missing) {
      // As without --watch: an unknown NODE at the end is an error.
      PrintError(err, absl::StrCat("explain: node \"", node,
                                   "\" not found at the end of the stream"));
      return kExitUsage;
    }
    return status;
  }
  std::optional<snapshot::Snapshot> snap =
      LoadSnapshot(parsed.files, "explain", PassChecks(parsed), err);
  if (!snap) return kExitUsage;
  std::optional<disruption::PassInputs> inputs =
      MakeInputs(*snap, parsed, "explain", err);
  if (!inputs) return kExitUsage;
  disruption::ExplainOptions options;
  options.horizon = parsed.horizon;
  absl::StatusOr<disruption::NodeExplanation> e =
      disruption::ExplainNode(MakeController(parsed), *snap, *inputs,
                              parsed.positional[0], parsed.at, options);
  if (!e.ok()) {
    PrintError(err, absl::StrCat("explain: ", e.status().message()));
    return kExitUsage;
  }
  PrintExplanation(*e, parsed.horizon, /*stable=*/false, out);
  return kExitOk;
}

int RunExplainCommand(const std::vector<std::string>& args, std::ostream& out,
                      std::ostream& err) {
  FdStreamReader in(STDIN_FILENO, "stdin");
  return RunExplainCommand(args, in, out, err);
}

}  // namespace karpenter::cli
