// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "cli.h"

#include <algorithm>

namespace karpenter::cli {
namespace {

constexpr char kUsage[] =
    "usage: karpenter <command> [options]\n"
    "\n"
    "Karpenter node-deprovisioning logic, from the karpenter C++ SDK.\n"
    "\n"
    "commands:\n"
    "  cron next SCHEDULE [--from RFC3339] [--count N]\n"
    "                 print the next activations of a robfig/cron schedule\n"
    "  inspect [-f FILE]...\n"
    "                 summarise a cluster dump (kubectl get ... -o "
    "json|yaml);\n"
    "                 without -f, the bundled example cluster\n"
    "  validate [-f FILE]...\n"
    "                 check NodePool disruption specs and PDBs; exit 1 "
    "listing\n"
    "                 every error\n"
    "  budgets [-f FILE]... [--at RFC3339] [-o text|json]\n"
    "                 allowed disruptions per NodePool and reason\n"
    "\n"
    "Run 'karpenter <command> --help' for a command's options.\n";

}  // namespace

void PrintError(std::ostream& err, const std::string& message) {
  std::string line = message;
  std::replace(line.begin(), line.end(), '\n', ' ');
  err << "karpenter: " << line << "\n";
}

int RunCli(const std::vector<std::string>& args, std::ostream& out,
           std::ostream& err) {
  if (args.empty()) {
    err << kUsage;
    return kExitUsage;
  }
  const std::string& command = args[0];
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "--help" || command == "-h" || command == "help") {
    out << kUsage;
    return kExitOk;
  }
  if (command == "cron") return RunCronCommand(rest, out, err);
  if (command == "inspect") return RunInspectCommand(rest, out, err);
  if (command == "validate") return RunValidateCommand(rest, out, err);
  if (command == "budgets") return RunBudgetsCommand(rest, out, err);
  PrintError(err, "unknown command \"" + command +
                      "\" (run 'karpenter --help' for the list)");
  return kExitUsage;
}

}  // namespace karpenter::cli
