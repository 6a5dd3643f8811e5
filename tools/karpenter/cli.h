// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The `karpenter` command-line tool, as an in-process entry point so tests
// can run it without spawning a process.
//
// Exit status: 0 on success, 2 on bad usage or bad input (with one line on
// the error stream), 1 on an internal failure. Nothing here throws.
//
// Thread-safety: RunCli may run concurrently with itself; it shares no state.

#ifndef KARPENTER_TOOLS_KARPENTER_CLI_H_
#define KARPENTER_TOOLS_KARPENTER_CLI_H_

#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "google/protobuf/message.h"
#include "karpenter/cloud_provider.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/budget.pb.h"

namespace karpenter::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;
inline constexpr int kExitUsage = 2;
// `karpenter validate` found invalid objects (shares 1 with kExitInternal, as
// `kubectl` and linters use 1 for "the input has problems").
inline constexpr int kExitInvalid = 1;

// Runs the CLI with `args` (argv without the program name), writing normal
// output to `out` and diagnostics to `err`. Returns the exit status.
int RunCli(const std::vector<std::string>& args, std::ostream& out,
           std::ostream& err);

// `karpenter cron ...`; `args` starts after "cron".
int RunCronCommand(const std::vector<std::string>& args, std::ostream& out,
                   std::ostream& err);

// `karpenter inspect ...`; `args` starts after "inspect".
int RunInspectCommand(const std::vector<std::string>& args, std::ostream& out,
                      std::ostream& err);

// `karpenter validate ...`; `args` starts after "validate". Returns
// kExitInvalid when the input holds invalid objects.
int RunValidateCommand(const std::vector<std::string>& args, std::ostream& out,
                       std::ostream& err);

// `karpenter budgets ...`; `args` starts after "budgets".
int RunBudgetsCommand(const std::vector<std::string>& args, std::ostream& out,
                      std::ostream& err);

// `karpenter plan ...`; `args` starts after "plan".
int RunPlanCommand(const std::vector<std::string>& args, std::ostream& out,
                   std::ostream& err);

// `karpenter explain ...`; `args` starts after "explain".
int RunExplainCommand(const std::vector<std::string>& args, std::ostream& out,
                      std::ostream& err);

// `karpenter fit ...`; `args` starts after "fit".
int RunFitCommand(const std::vector<std::string>& args, std::ostream& out,
                  std::ostream& err);

// `karpenter provision ...`; `args` starts after "provision".
int RunProvisionCommand(const std::vector<std::string>& args, std::ostream& out,
                        std::ostream& err);

// `karpenter simulate ...`; `args` starts after "simulate". Returns
// kExitInvalid when the run exceeded a budget or PDB or leaked an instance.
int RunSimulateCommand(const std::vector<std::string>& args, std::ostream& out,
                       std::ostream& err);

// Writes `message` as one line: "karpenter: <message>", newlines folded to
// spaces, so scripts can rely on a single diagnostic line.
void PrintError(std::ostream& err, const std::string& message);

// Helpers shared by the commands.

// True if `args` asks for help (-h/--help) before any "--".
bool WantsHelp(const std::vector<std::string>& args);

// Prints `rows` (the first is the header) as left-aligned columns separated
// by two spaces, like kubectl's tables. Rows must have the header's width.
void PrintTable(const std::vector<std::vector<std::string>>& rows,
                std::ostream& out);

// The SDK disruption controls (disruption/controls.h) as `budgets` and
// `plan` print them: a blank line, a title, and a table NODEPOOL, CONTROL,
// SETTING, NOW with a row per control that is on (an invalid NodePool gets
// one row "invalid"). Prints nothing when `controls` is empty.
void PrintControlsTable(const std::vector<v1::NodePoolControlsReport>& controls,
                        std::ostream& out);

// Takes `-f FILE`/`--filename FILE` or a bare FILE from args[i] into
// `files`, advancing `i` past a consumed value. Returns "" when handled, else
// the problem ("-f: missing FILE"). Callers try their own options first.
std::string TakeFileArg(const std::vector<std::string>& args, size_t& i,
                        std::vector<std::string>& files);

// The value of `-o`/`--output` (`flag` as given): sets `json` for "json",
// clears it for "text". Returns "" when valid, else the problem
// (`-o: "yaml" is not text or json`).
std::string ParseOutputFlag(const std::string& flag, const std::string& value,
                            bool& json);

// Loads `files` (the bundled demo cluster when empty) into a snapshot. On
// failure prints one line prefixed with `command` to `err` and returns
// nullopt.
std::optional<snapshot::Snapshot> LoadSnapshot(
    const std::vector<std::string>& files, const std::string& command,
    std::ostream& err);

// Where the NodePools, NodeClaims and PodDisruptionBudgets of a dump came
// from, for messages about them: key "<Kind> <name>" (namespaced objects
// "<Kind> <namespace>/<name>"), value the loader's description of the place
// ("cluster.yaml: document 2", "dump.json: items[3]"). An object given
// twice is an error of Snapshot::Build, so each key has one place.
using ObjectPlaces = std::map<std::string, std::string>;

// As above, also filling `places` (when not null).
std::optional<snapshot::Snapshot> LoadSnapshot(
    const std::vector<std::string>& files, const std::string& command,
    std::ostream& err, ObjectPlaces* places);

// What LoadSnapshot checks in a dump before building the snapshot
// (karpenter/snapshot/audit.h).
struct DumpChecks {
  // The pass time: timestamps a decision needs and an object lacks (a
  // NodeClaim's creation and condition transitions, a deletion; a Node's
  // creation is read by no command and left alone) are taken as this
  // instant, never the Unix epoch, with one warning line per object on the
  // error stream ("warning: FILE: NodeClaim "x": metadata.creationTimestamp
  // is missing; taken as ... (--at)").
  absl::Time at = absl::UnixEpoch();
  // Where `at` came from, shown in the warnings: "--at" or "now".
  std::string at_label = "now";
  // --strict: a missing timestamp is an error (one line, nullopt) instead.
  bool strict = false;
  // Also say what the dump probably lacks (AuditCoverage): one line each,
  // "warning: ..." with the kubectl command that adds it, or "note: ...".
  bool coverage = false;
};

// As above, auditing each file's objects with `checks` first.
std::optional<snapshot::Snapshot> LoadSnapshot(
    const std::vector<std::string>& files, const std::string& command,
    const DumpChecks& checks, std::ostream& err);

// The MethodOptions::missing_node_pool_hint of the commands that plan:
// how to say that the dump is the whole cluster (--complete).
inline constexpr char kCompleteHint[] =
    "pass --complete if the dump is the whole cluster";

// Loads the instance-type catalogue of a `--catalog FILE` flag
// (karpenter/catalog.h: one `kind: InstanceTypeCatalog` document, each
// type's capacity reduced by its overhead). On failure prints one line
// prefixed with `command` to `err` (the file, field and value) and returns
// nullopt. Callers turn it into a pass's catalogue with
// CatalogForEveryNodePool.
std::optional<std::vector<InstanceType>> LoadCatalogFlag(
    const std::string& path, const std::string& command, std::ostream& err);

// The time a command takes as now when --at (or --from) is not given: the
// system clock truncated to the second, as the commands print instants, so
// that the instants a pass derives from it (VALIDATE AT, Next pass) print
// as they are.
absl::Time CliNow();

// `t` as the commands print instants: RFC 3339 in UTC with second precision
// ("2025-03-05T12:00:00Z"), a fraction dropped as Go's time.RFC3339 drops
// it; "infinite-future" and "infinite-past" for the infinite times.
std::string FormatCliTime(absl::Time t);

// Parses the RFC 3339 `value` of `flag` into `t`. Returns "" on success,
// else the problem naming the flag and the quoted value.
std::string ParseTimeFlag(const std::string& flag, const std::string& value,
                          absl::Time& t);

// Parses the Go duration `value` of `flag` ("90s", "72h") into `d`, which
// must be finite and >= 0. Returns "" on success, else the problem naming
// the flag and the quoted value, with `example` as a valid one.
std::string ParseDurationFlag(const std::string& flag, const std::string& value,
                              absl::string_view example, absl::Duration& d);

// Prints `message` in proto3's JSON mapping (indented, every field) to
// `out`. On failure prints one line prefixed with `command` to `err` and
// returns kExitInternal; else kExitOk.
int PrintJson(const google::protobuf::Message& message,
              const std::string& command, std::ostream& out, std::ostream& err);

// The example cluster bundled into the binary (examples/clusters/demo.yaml),
// used by `karpenter inspect`, `validate` and `budgets` when no file is
// given.
extern const char kDemoClusterYaml[];

// The scenario bundled into the binary (examples/scenarios/rollout.yaml),
// run by `karpenter simulate` when no SCENARIO is given.
extern const char kBundledScenarioYaml[];

}  // namespace karpenter::cli

#endif  // KARPENTER_TOOLS_KARPENTER_CLI_H_
