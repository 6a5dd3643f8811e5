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

#include <ostream>
#include <string>
#include <vector>

namespace karpenter::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;
inline constexpr int kExitUsage = 2;

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

// Writes `message` as one line: "karpenter: <message>", newlines folded to
// spaces, so scripts can rely on a single diagnostic line.
void PrintError(std::ostream& err, const std::string& message);

// The example cluster bundled into the binary (examples/clusters/demo.yaml),
// used by `karpenter inspect` when no file is given.
extern const char kDemoClusterYaml[];

}  // namespace karpenter::cli

#endif  // KARPENTER_TOOLS_KARPENTER_CLI_H_
