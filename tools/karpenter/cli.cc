// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "cli.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "google/protobuf/util/json_util.h"
#include "karpenter/budget/allowed.h"
#include "karpenter/catalog.h"
#include "karpenter/snapshot/audit.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/time_util.h"

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
    "  budgets [-f FILE]... [--at RFC3339] [--until RFC3339] [-o text|json]\n"
    "                 allowed disruptions per NodePool and reason, when they\n"
    "                 next change, and with --until their timeline\n"
    "  plan [-f FILE]... [--at RFC3339] [--catalog FILE] [-o text|json]\n"
    "                 dry-run one disruption pass: the commands it would\n"
    "                 start and a verdict with reasons for every node\n"
    "  explain NODE [-f FILE]... [--at RFC3339] [--catalog FILE]\n"
    "                 everything that decides NODE, and when a pass would\n"
    "                 disrupt it if nothing else changed\n"
    "  plan --watch [-f -], explain NODE --watch [-f -]\n"
    "                 the same over a live cluster: read 'kubectl get ...\n"
    "                 --watch --output-watch-events -o json' and reprint\n"
    "                 the answer whenever it changes\n"
    "  fit NAMESPACE/POD [-f FILE]... [-o text|json]\n"
    "                 would the pod fit on each node now, and if not, which\n"
    "                 kube-scheduler plugins reject it and why\n"
    "  provision [-f FILE]... [--catalog FILE] [-o text|json]\n"
    "                 the NodeClaims Karpenter would launch for the pending\n"
    "                 pods the existing nodes cannot take, and the pods that\n"
    "                 schedule nowhere, with why\n"
    "  simulate [SCENARIO] [--until DURATION] [-o text|json] [--svg FILE]\n"
    "                 run disruption, termination and eviction against fakes\n"
    "                 under a simulated clock: a timeline and a summary;\n"
    "                 without SCENARIO, the bundled rollout scenario\n"
    "\n"
    "The commands that read a cluster take the dumps of\n"
    "  kubectl get "
    "nodes,pods,pdb,nodepools,nodeclaims,pv,pvc,storageclasses,csinodes,"
    "daemonsets,volumeattachments -A -o yaml\n"
    "(or -o json), any number of files with -f. plan, explain, budgets,\n"
    "fit and provision take a timestamp an object lacks as the pass time,\n"
    "with a warning (--strict: an error); see 'karpenter plan --help'.\n"
    "\n"
    "Run 'karpenter <command> --help' for a command's options.\n";

}  // namespace

void PrintError(std::ostream& err, const std::string& message) {
  std::string line = message;
  std::replace(line.begin(), line.end(), '\n', ' ');
  err << "karpenter: " << line << "\n";
}

bool WantsHelp(const std::vector<std::string>& args) {
  for (const std::string& arg : args) {
    if (arg == "--") return false;
    if (arg == "--help" || arg == "-h") return true;
  }
  return false;
}

void PrintTable(const std::vector<std::vector<std::string>>& rows,
                std::ostream& out) {
  if (rows.empty()) return;
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) {
      width[c] = std::max(width[c], row[c].size());
    }
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line.append(width[c] - row[c].size() + 2, ' ');
    }
    out << line << "\n";
  }
}

std::string TakeFileArg(const std::vector<std::string>& args, size_t& i,
                        std::vector<std::string>& files) {
  const std::string& arg = args[i];
  if (arg == "-f" || arg == "--filename") {
    if (i + 1 >= args.size()) return absl::StrCat(arg, ": missing FILE");
    files.push_back(args[++i]);
  } else if (arg.size() > 1 && arg[0] == '-') {
    return absl::StrCat("unknown option \"", arg, "\"");
  } else {
    files.push_back(arg);
  }
  return "";
}

absl::Time CliNow() { return TruncateToSecond(absl::Now()); }

std::string FormatCliTime(absl::Time t) {
  return FormatRfc3339(TruncateToSecond(t));
}

std::string ParseTimeFlag(const std::string& flag, const std::string& value,
                          absl::Time& t) {
  std::string why;
  if (absl::ParseTime(absl::RFC3339_full, value, &t, &why)) return "";
  return absl::StrCat(flag, ": \"", value, "\" is not an RFC 3339 time (", why,
                      ")");
}

std::string ParseDurationFlag(const std::string& flag, const std::string& value,
                              absl::string_view example, absl::Duration& d) {
  absl::Duration parsed;
  if (absl::ParseDuration(value, &parsed) && parsed >= absl::ZeroDuration() &&
      parsed != absl::InfiniteDuration()) {
    d = parsed;
    return "";
  }
  return absl::StrCat(flag, ": \"", value,
                      "\" is not a finite duration >= 0 (e.g. ", example, ")");
}

int PrintJson(const google::protobuf::Message& message,
              const std::string& command, std::ostream& out,
              std::ostream& err) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.always_print_primitive_fields = true;
  std::string json;
  if (auto s =
          google::protobuf::util::MessageToJsonString(message, &json, options);
      !s.ok()) {
    PrintError(err, absl::StrCat(command, ": ", s.ToString()));
    return kExitInternal;
  }
  out << json;
  return kExitOk;
}

namespace {

// Loads `files` (the bundled demo cluster when empty) into `objects`,
// auditing each file's objects with `checks` when not null; appends the
// timestamp warnings to `warnings`.
absl::Status LoadAudited(const std::vector<std::string>& files,
                         const DumpChecks* checks, snapshot::ObjectSet& objects,
                         std::vector<snapshot::DumpWarning>& warnings) {
  const auto load_one = [&](const std::string& source,
                            bool demo) -> absl::Status {
    snapshot::ObjectSet one;
    absl::Status s = demo ? snapshot::LoadYaml(kDemoClusterYaml, source, one)
                          : snapshot::LoadFile(source, one);
    if (!s.ok()) return s;
    if (checks != nullptr) {
      snapshot::AuditOptions options;
      options.source = source;
      options.now_label = checks->at_label;
      // No command that audits runs termination, the only reader of a
      // Node's creationTimestamp.
      options.node_creation = false;
      absl::StatusOr<std::vector<snapshot::DumpWarning>> found =
          snapshot::AuditDump(one, checks->at, options);
      if (!found.ok()) return found.status();
      for (snapshot::DumpWarning& w : *found) warnings.push_back(std::move(w));
    }
    objects.Append(std::move(one));
    return absl::OkStatus();
  };
  if (files.empty()) return load_one("examples/clusters/demo.yaml", true);
  for (const std::string& file : files) {
    if (absl::Status s = load_one(file, false); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// Fills `places` from the origins the loaders recorded in `objects`.
void CollectPlaces(const snapshot::ObjectSet& objects, ObjectPlaces& places) {
  const auto add = [&](absl::string_view kind, const v1::ObjectMeta& meta,
                       const std::vector<snapshot::ObjectOrigin>& origins,
                       size_t i) {
    std::string where = objects.DescribeOrigin(origins, i);
    if (where.empty()) return;
    const std::string name =
        meta.namespace_().empty()
            ? meta.name()
            : absl::StrCat(meta.namespace_(), "/", meta.name());
    places.emplace(absl::StrCat(kind, " ", name), std::move(where));
  };
  for (size_t i = 0; i < objects.node_pools.size(); ++i) {
    add("NodePool", objects.node_pools[i].metadata(),
        objects.origins.node_pools, i);
  }
  for (size_t i = 0; i < objects.node_claims.size(); ++i) {
    add("NodeClaim", objects.node_claims[i].metadata(),
        objects.origins.node_claims, i);
  }
  for (size_t i = 0; i < objects.pdbs.size(); ++i) {
    add("PodDisruptionBudget", objects.pdbs[i].metadata(), objects.origins.pdbs,
        i);
  }
}

std::optional<snapshot::Snapshot> LoadChecked(
    const std::vector<std::string>& files, const std::string& command,
    const DumpChecks* checks, std::ostream& err,
    ObjectPlaces* places = nullptr) {
  snapshot::ObjectSet objects;
  std::vector<snapshot::DumpWarning> warnings;
  if (absl::Status loaded = LoadAudited(files, checks, objects, warnings);
      !loaded.ok()) {
    PrintError(err, absl::StrCat(command, ": ", loaded.message()));
    return std::nullopt;
  }
  if (checks != nullptr && checks->strict && !warnings.empty()) {
    // The first object, without "taken as": --strict takes nothing.
    const snapshot::DumpWarning& w = warnings[0];
    const size_t more = warnings.size() - 1;
    PrintError(err, absl::StrCat(
                        command, ": --strict: ",
                        w.source.empty() ? "" : w.source + ": ", w.object_kind,
                        " \"", w.object, "\": ", absl::StrJoin(w.fields, ", "),
                        w.fields.size() == 1 ? " is" : " are", " missing",
                        more == 0 ? ""
                                  : absl::StrCat(" (and ", more,
                                                 more == 1 ? " more object"
                                                           : " more objects",
                                                 " with missing timestamps)")));
    return std::nullopt;
  }
  for (const snapshot::DumpWarning& w : warnings) {
    err << "warning: " << w.message << "\n";
  }
  if (checks != nullptr && checks->coverage) {
    for (const snapshot::DumpWarning& w : snapshot::AuditCoverage(objects)) {
      err << (w.kind == snapshot::DumpWarningKind::kInformational ? "note: "
                                                                  : "warning: ")
          << w.message << "\n";
    }
  }
  if (places != nullptr) CollectPlaces(objects, *places);
  absl::StatusOr<snapshot::Snapshot> snap =
      snapshot::Snapshot::Build(std::move(objects));
  if (!snap.ok()) {
    PrintError(err, absl::StrCat(command, ": ", snap.status().message()));
    return std::nullopt;
  }
  return *std::move(snap);
}

}  // namespace

std::optional<snapshot::Snapshot> LoadSnapshot(
    const std::vector<std::string>& files, const std::string& command,
    std::ostream& err) {
  return LoadChecked(files, command, nullptr, err);
}

std::optional<snapshot::Snapshot> LoadSnapshot(
    const std::vector<std::string>& files, const std::string& command,
    std::ostream& err, ObjectPlaces* places) {
  return LoadChecked(files, command, nullptr, err, places);
}

std::optional<snapshot::Snapshot> LoadSnapshot(
    const std::vector<std::string>& files, const std::string& command,
    const DumpChecks& checks, std::ostream& err) {
  return LoadChecked(files, command, &checks, err);
}

std::string ParseOutputFlag(const std::string& flag, const std::string& value,
                            bool& json) {
  if (value != "json" && value != "text") {
    return absl::StrCat(flag, ": \"", value, "\" is not text or json");
  }
  json = value == "json";
  return "";
}

std::optional<std::vector<InstanceType>> LoadCatalogFlag(
    const std::string& path, const std::string& command, std::ostream& err) {
  absl::StatusOr<std::vector<InstanceType>> types =
      LoadInstanceTypeCatalog(path);
  if (!types.ok()) {
    PrintError(
        err, absl::StrCat(command, ": --catalog: ", types.status().message()));
    return std::nullopt;
  }
  return *std::move(types);
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
  if (command == "plan") return RunPlanCommand(rest, out, err);
  if (command == "explain") return RunExplainCommand(rest, out, err);
  if (command == "fit") return RunFitCommand(rest, out, err);
  if (command == "provision") return RunProvisionCommand(rest, out, err);
  if (command == "simulate") return RunSimulateCommand(rest, out, err);
  PrintError(err, "unknown command \"" + command +
                      "\" (run 'karpenter --help' for the list)");
  return kExitUsage;
}

void PrintControlsTable(const std::vector<v1::NodePoolControlsReport>& controls,
                        std::ostream& out) {
  if (controls.empty()) return;
  const auto count = [](int64_t n) {
    return n == budget::kUnlimited ? std::string("unlimited") : absl::StrCat(n);
  };
  std::vector<std::vector<std::string>> rows = {
      {"NODEPOOL", "CONTROL", "SETTING", "NOW"}};
  for (const v1::NodePoolControlsReport& c : controls) {
    if (!c.error().empty()) {
      rows.push_back(
          {c.node_pool(), "invalid", "-",
           absl::StrCat("fails closed: ",
                        absl::StrReplaceAll(c.error(), {{"\n", "; "}}))});
      continue;
    }
    if (c.max_disrupting_zones() > 0) {
      rows.push_back(
          {c.node_pool(), "max-disrupting-zones",
           absl::StrCat(c.max_disrupting_zones()),
           c.disrupting_zones().empty()
               ? std::string("no zone disrupting")
               : absl::StrCat("disrupting: ",
                              absl::StrJoin(c.disrupting_zones(), ", "))});
    }
    if (!c.soft_expiration().empty()) {
      rows.push_back(
          {c.node_pool(), "soft-expiration", c.soft_expiration(),
           absl::StrCat("Expired allowed ", count(c.expiration_allowed()),
                        ", remaining ",
                        c.expiration_allowed() == budget::kUnlimited
                            ? std::string("unlimited")
                            : count(c.expiration_remaining()),
                        ": ", c.expiration_why())});
    }
    if (!c.min_savings().empty()) {
      rows.push_back(
          {c.node_pool(), "consolidation-min-savings", c.min_savings(), "-"});
    }
    if (c.max_replacements() > 1) {
      rows.push_back({c.node_pool(), "consolidation-max-replacements",
                      absl::StrCat(c.max_replacements()), "-"});
    }
  }
  out << "\nSDK disruption controls (disruption.karpenter-sdk.dev)\n\n";
  PrintTable(rows, out);
}

}  // namespace karpenter::cli
