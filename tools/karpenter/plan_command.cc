// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// `karpenter plan` and `karpenter explain`: one disruption pass
// (disruption/controller.h) over cluster dumps, printed as commands and a
// verdict per node, and everything that decides one node
// (disruption/explain.h).

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "cli.h"
#include "karpenter/budget/allowed.h"
#include "karpenter/catalog.h"
#include "karpenter/disruption/controller.h"
#include "karpenter/disruption/explain.h"
#include "karpenter/disruption/plan_proto.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/plan.pb.h"
#include "karpenter/well_known.h"

namespace karpenter::cli {
namespace {

constexpr char kPlanUsage[] =
    "usage: karpenter plan [-f FILE]... [--at RFC3339] [-o text|json]\n"
    "                      [--catalog FILE] [--no-consolidation]\n"
    "                      [--strict] [--complete]\n"
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
    "Exit status 2 with a one-line message on bad usage or input.\n";

constexpr char kExplainUsage[] =
    "usage: karpenter explain NODE [-f FILE]... [--at RFC3339]\n"
    "                         [--horizon DURATION] [--catalog FILE]\n"
    "                         [--no-consolidation] [--strict] [--complete]\n"
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
    "Exit status 2 with a one-line message on bad usage, bad input or an\n"
    "unknown NODE.\n";

struct PassArgs {
  std::vector<std::string> files;
  std::vector<std::string> positional;
  absl::Time at = absl::Now();
  bool at_given = false;
  bool json = false;
  bool no_consolidation = false;
  bool strict = false;
  bool complete = false;
  std::optional<std::string> catalog;
  absl::Duration horizon = absl::Hours(24 * 30);
};

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
    const bool takes_value = arg == "-f" || arg == "--filename" ||
                             arg == "--at" || arg == "--catalog" ||
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
      if (!absl::ParseDuration(value, &parsed.horizon) ||
          parsed.horizon < absl::ZeroDuration() ||
          parsed.horizon == absl::InfiniteDuration()) {
        return absl::StrCat("--horizon: \"", value,
                            "\" is not a finite duration >= 0 (e.g. 72h)");
      }
    } else if (arg == "--catalog") {
      parsed.catalog = value;
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
std::optional<disruption::PassInputs> MakeInputs(const snapshot::Snapshot& snap,
                                                 const PassArgs& args,
                                                 const std::string& command,
                                                 std::ostream& err) {
  disruption::PassInputs inputs;
  if (!args.catalog.has_value()) {
    inputs.catalog = disruption::ObservedInstanceTypes(snap);
    return inputs;
  }
  std::optional<std::vector<InstanceType>> types =
      LoadCatalogFlag(*args.catalog, command, err);
  if (!types.has_value()) return std::nullopt;
  inputs.catalog = CatalogForEveryNodePool(snap, *types);
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
  out << "\nNext pass: " << OrDash(plan.next_pass()) << "\n";
}

}  // namespace

int RunPlanCommand(const std::vector<std::string>& args, std::ostream& out,
                   std::ostream& err) {
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

namespace {

void PrintTiming(const disruption::NodeExplanation& e, std::ostream& out) {
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
    out << ", consolidateAfter elapses " << Utc(*e.consolidatable_at) << " ("
        << Relative(*e.consolidatable_at, e.now) << ")";
  } else {
    out << ", not initialised";
  }
  out << "\n  expiry:        "
      << (e.expires_at.has_value()
              ? absl::StrCat(Utc(*e.expires_at), " (",
                             Relative(*e.expires_at, e.now), ")")
              : "never")
      << "\n";
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
  for (const disruption::DoNotDisruptPod& p : e.do_not_disrupt) {
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
                      absl::Duration horizon, std::ostream& out) {
  out << (e.has_node ? "Node " : "NodeClaim ") << e.node;
  if (!e.node_claim.empty() && e.node_claim != e.node) {
    out << " (NodeClaim " << e.node_claim << ")";
  }
  if (!e.node_pool.empty()) out << ", NodePool " << e.node_pool;
  out << ", at " << Utc(e.now) << "\n";
  out << "  verdict:       " << e.verdict.code;
  if (e.verdict.method.has_value()) {
    out << " (" << disruption::MethodName(*e.verdict.method) << ")";
  }
  out << ": " << e.verdict.message << "\n";
  if (e.command.has_value()) {
    out << "  command:       " << e.command->explanation << "\n";
  }
  if (e.node_claim.empty()) return;  // Not managed: nothing else applies.
  PrintTiming(e, out);
  PrintBudgets(e, out);
  PrintBlockers(e, out);
  out << "  disrupted:     ";
  if (e.disrupted_at.has_value()) {
    out << (*e.disrupted_at == e.now
                ? "by this pass"
                : absl::StrCat("at ", Utc(*e.disrupted_at), " (",
                               Relative(*e.disrupted_at, e.now), ")"))
        << ", by "
        << (e.disrupted_by.has_value()
                ? std::string(disruption::MethodName(*e.disrupted_by))
                : std::string("?"))
        << "\n";
  } else {
    out << "not within " << absl::FormatDuration(horizon)
        << " if nothing else changes (" << e.tried.size()
        << " instants tried)\n";
  }
}

}  // namespace

int RunExplainCommand(const std::vector<std::string>& args, std::ostream& out,
                      std::ostream& err) {
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
  PrintExplanation(*e, parsed.horizon, out);
  return kExitOk;
}

}  // namespace karpenter::cli
