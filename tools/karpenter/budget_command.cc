// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// `karpenter validate` and `karpenter budgets`: the NodePool disruption spec
// and PDB checks of budget/disruption_spec.h and budget/pdb.h, and the
// per-NodePool allowed disruptions of budget/allowed.h, over cluster dumps.

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "cli.h"
#include "google/protobuf/util/json_util.h"
#include "karpenter/budget/allowed.h"
#include "karpenter/budget/disruption_spec.h"
#include "karpenter/budget/pdb.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/budget.pb.h"

namespace karpenter::cli {
namespace {

constexpr char kValidateUsage[] =
    "usage: karpenter validate [-f FILE]...\n"
    "\n"
    "Loads cluster dumps (as 'karpenter inspect' does) and checks every\n"
    "NodePool's spec.disruption against the NodePool CRD (patterns, enums,\n"
    "list sizes, schedule/duration pairing) plus what Karpenter would fail\n"
    "closed on at run time (schedules the cron parser rejects), and every\n"
    "PodDisruptionBudget. Prints every error, one a line, prefixed with its\n"
    "object. Without -f, validates the example cluster bundled in the binary.\n"
    "\n"
    "Exit status: 0 when everything is valid, 1 when any error was found,\n"
    "2 with a one-line message on bad usage or unreadable input.\n";

constexpr char kBudgetsUsage[] =
    "usage: karpenter budgets [-f FILE]... [--at RFC3339] [-o text|json]\n"
    "\n"
    "Evaluates every NodePool's disruption budgets at one instant (--at,\n"
    "default now) as Karpenter does: per NodePool the total and disrupting\n"
    "nodes, and per reason (Underutilized, Empty, Drifted) the allowed\n"
    "disruptions, the remaining ones (allowed minus disrupting nodes), the\n"
    "limiting budget and why. Without -f, the example cluster bundled in the\n"
    "binary. -o json prints a karpenter.v1.BudgetReport\n"
    "(proto/karpenter/v1/budget.proto) in proto3's JSON mapping.\n"
    "\n"
    "Exit status 2 with a one-line message on bad usage or bad input.\n";

// Spec errors plus the runtime errors Karpenter fails closed on, which the
// CRD accepts (so DisruptionSpecErrors leaves them out) but a validator
// must flag.
std::vector<std::string> NodePoolErrors(const v1::NodePool& np) {
  absl::StatusOr<budget::DisruptionSpec> spec = budget::ParseDisruptionSpec(np);
  if (!spec.ok()) return budget::DisruptionSpecErrors(np);
  std::vector<std::string> errors;
  for (size_t i = 0; i < spec->budgets.size(); ++i) {
    const budget::Budget& b = spec->budgets[i];
    const std::string path = absl::StrCat("spec.disruption.budgets[", i, "]");
    if (!b.nodes.ok()) {
      errors.push_back(
          absl::StrCat(path, ".nodes: ", b.nodes.status().message()));
    }
    if (b.schedule.has_value() && !b.cron.ok()) {
      errors.push_back(
          absl::StrCat(path, ".schedule: ", b.cron.status().message()));
    }
  }
  return errors;
}

}  // namespace

int RunValidateCommand(const std::vector<std::string>& args, std::ostream& out,
                       std::ostream& err) {
  if (WantsHelp(args)) {
    out << kValidateUsage;
    return kExitOk;
  }
  std::vector<std::string> files;
  for (size_t i = 0; i < args.size(); ++i) {
    if (std::string problem = TakeFileArg(args, i, files); !problem.empty()) {
      PrintError(err, "validate: " + problem);
      return kExitUsage;
    }
  }
  std::optional<snapshot::Snapshot> snap = LoadSnapshot(files, "validate", err);
  if (!snap) return kExitUsage;
  size_t error_count = 0;
  for (const v1::NodePool& np : snap->node_pools()) {
    for (const std::string& e : NodePoolErrors(np)) {
      out << "NodePool " << np.metadata().name() << ": " << e << "\n";
      ++error_count;
    }
  }
  // PdbIndex errors already name their object (`policy/v1
  // PodDisruptionBudget ns/name: spec.minAvailable: ...`).
  for (const absl::Status& e : budget::PdbIndex::Build(*snap).errors()) {
    out << e.message() << "\n";
    ++error_count;
  }
  if (error_count > 0) return kExitInvalid;
  out << snap->node_pools().size() + snap->pdbs().size() << " objects valid ("
      << snap->node_pools().size() << " NodePools, " << snap->pdbs().size()
      << " PodDisruptionBudgets)\n";
  return kExitOk;
}

namespace {

struct BudgetsArgs {
  std::vector<std::string> files;
  absl::Time at = absl::Now();
  bool json = false;
};

// Parses `budgets` options; "" on success, else the problem.
std::string ParseBudgetsArgs(const std::vector<std::string>& args,
                             BudgetsArgs& parsed) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const bool takes_value = arg == "-f" || arg == "--filename" ||
                             arg == "--at" || arg == "-o" || arg == "--output";
    if (!takes_value) {
      if (arg.size() > 1 && arg[0] == '-') {
        return absl::StrCat("unknown option \"", arg, "\"");
      }
      parsed.files.push_back(arg);
      continue;
    }
    if (i + 1 >= args.size()) return absl::StrCat(arg, ": missing value");
    const std::string& value = args[++i];
    if (arg == "-f" || arg == "--filename") {
      parsed.files.push_back(value);
    } else if (arg == "--at") {
      std::string why;
      if (!absl::ParseTime(absl::RFC3339_full, value, &parsed.at, &why)) {
        return absl::StrCat("--at: \"", value, "\" is not an RFC 3339 time (",
                            why, ")");
      }
    } else if (value == "json" || value == "text") {
      parsed.json = value == "json";
    } else {
      return absl::StrCat(arg, ": \"", value, "\" is not text or json");
    }
  }
  return "";
}

v1::BudgetReport MakeReport(const budget::BudgetMapping& mapping,
                            absl::Time at) {
  v1::BudgetReport report;
  report.set_at(
      absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", at, absl::UTCTimeZone()));
  for (const budget::NodePoolBudget& np : mapping.node_pools) {
    v1::NodePoolBudgetReport* r = report.add_node_pools();
    r->set_name(np.node_pool);
    r->set_total_nodes(np.total_nodes);
    r->set_disrupting_nodes(np.disrupting_nodes);
    for (const std::string& e : np.spec_errors) r->add_spec_errors(e);
    for (budget::DisruptionReason reason : budget::kAllDisruptionReasons) {
      const size_t i = static_cast<size_t>(reason);
      const budget::Allowance& a = np.by_reason[i];
      v1::ReasonBudget* rb = r->add_reasons();
      rb->set_reason(std::string(budget::DisruptionReasonName(reason)));
      rb->set_allowed(a.allowed);
      rb->set_unlimited(a.allowed == budget::kUnlimited);
      rb->set_remaining(np.remaining[i]);
      if (a.limiting_budget) {
        rb->set_limiting_budget(static_cast<int32_t>(*a.limiting_budget));
      }
      rb->set_why(a.why);
    }
  }
  return report;
}

std::string CountText(int64_t n) {
  return n == budget::kUnlimited ? "unlimited" : absl::StrCat(n);
}

void PrintBudgetsText(const v1::BudgetReport& report, std::ostream& out) {
  out << "Budgets at " << report.at() << "\n\n";
  std::vector<std::vector<std::string>> rows = {
      {"NODEPOOL", "NODES", "DISRUPTING", "REASON", "ALLOWED", "REMAINING",
       "LIMITING", "WHY"}};
  for (const v1::NodePoolBudgetReport& np : report.node_pools()) {
    for (const v1::ReasonBudget& rb : np.reasons()) {
      rows.push_back({np.name(), absl::StrCat(np.total_nodes()),
                      absl::StrCat(np.disrupting_nodes()), rb.reason(),
                      CountText(rb.allowed()), CountText(rb.remaining()),
                      rb.has_limiting_budget()
                          ? absl::StrCat("budgets[", rb.limiting_budget(), "]")
                          : "-",
                      rb.why()});
    }
  }
  PrintTable(rows, out);
  for (const v1::NodePoolBudgetReport& np : report.node_pools()) {
    for (const std::string& e : np.spec_errors()) {
      out << "NodePool " << np.name() << ": " << e << "\n";
    }
  }
}

}  // namespace

int RunBudgetsCommand(const std::vector<std::string>& args, std::ostream& out,
                      std::ostream& err) {
  if (WantsHelp(args)) {
    out << kBudgetsUsage;
    return kExitOk;
  }
  BudgetsArgs parsed;
  if (std::string problem = ParseBudgetsArgs(args, parsed); !problem.empty()) {
    PrintError(err, "budgets: " + problem);
    return kExitUsage;
  }
  std::optional<snapshot::Snapshot> snap =
      LoadSnapshot(parsed.files, "budgets", err);
  if (!snap) return kExitUsage;
  const v1::BudgetReport report =
      MakeReport(budget::BuildBudgetMapping(*snap, parsed.at), parsed.at);
  if (!parsed.json) {
    PrintBudgetsText(report, out);
    return kExitOk;
  }
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.always_print_primitive_fields = true;
  std::string json;
  if (auto s =
          google::protobuf::util::MessageToJsonString(report, &json, options);
      !s.ok()) {
    PrintError(err, "budgets: " + s.ToString());
    return kExitInternal;
  }
  out << json;
  return kExitOk;
}

}  // namespace karpenter::cli
