// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// `karpenter cron next SCHEDULE [--from RFC3339] [--count N]`: prints the
// next N activations of a schedule, one RFC 3339 UTC time a line.

#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "cli.h"
#include "karpenter/cron.h"

namespace karpenter::cli {
namespace {

constexpr char kCronUsage[] =
    "usage: karpenter cron next SCHEDULE [--from RFC3339] [--count N]\n"
    "\n"
    "Prints the next N (default 1, at most 10000) activations of SCHEDULE\n"
    "strictly after --from (default: now), one RFC 3339 UTC time a line.\n"
    "SCHEDULE follows robfig/cron v3 ParseStandard, as Karpenter's budget\n"
    "schedules do: 5 fields or @yearly/@monthly/@weekly/@daily/@hourly, with\n"
    "an optional 'CRON_TZ=Zone ' or 'TZ=Zone ' prefix (default zone: UTC).\n"
    "A schedule that never fires again prints nothing more and a note on\n"
    "stderr. Put '--' before a schedule that starts with '-'.\n";

constexpr int kMaxCount = 10000;

struct CronNextArgs {
  std::string schedule;
  absl::Time from = absl::InfinitePast();
  int count = 1;
};

// Parses the arguments after "next"; returns an error message or "".
std::string ParseCronNextArgs(const std::vector<std::string>& args,
                              CronNextArgs& parsed) {
  bool have_schedule = false;
  bool options_done = false;  // after "--", a schedule may start with '-'
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--" && !options_done) {
      options_done = true;
    } else if (!options_done && (arg == "--from" || arg == "--count")) {
      if (i + 1 >= args.size()) return absl::StrCat(arg, ": missing value");
      const std::string& value = args[++i];
      if (arg == "--from") {
        std::string why;
        if (!absl::ParseTime(absl::RFC3339_full, value, &parsed.from, &why)) {
          return absl::StrCat("--from: \"", value,
                              "\" is not an RFC 3339 time (", why, ")");
        }
      } else if (!absl::SimpleAtoi(value, &parsed.count) || parsed.count < 1 ||
                 parsed.count > kMaxCount) {
        return absl::StrCat("--count: \"", value,
                            "\" is not an integer from 1 to ", kMaxCount);
      }
    } else if (!options_done && arg.size() > 1 && arg[0] == '-') {
      return absl::StrCat("unknown option \"", arg, "\"");
    } else if (!have_schedule) {
      parsed.schedule = arg;
      have_schedule = true;
    } else {
      return absl::StrCat("unexpected argument \"", arg,
                          "\" (quote the schedule: it is one argument)");
    }
  }
  if (!have_schedule) return "missing SCHEDULE";
  return "";
}

int RunCronNext(const std::vector<std::string>& args, std::ostream& out,
                std::ostream& err) {
  CronNextArgs parsed;
  if (std::string problem = ParseCronNextArgs(args, parsed); !problem.empty()) {
    PrintError(err, "cron next: " + problem);
    return kExitUsage;
  }
  absl::StatusOr<CronSchedule> schedule = CronSchedule::Parse(parsed.schedule);
  if (!schedule.ok()) {
    PrintError(err, "cron next: " + std::string(schedule.status().message()));
    return kExitUsage;
  }
  absl::Time t = parsed.from == absl::InfinitePast() ? CliNow() : parsed.from;
  for (int i = 0; i < parsed.count; ++i) {
    t = schedule->Next(t);
    if (t == absl::InfiniteFuture()) {
      err << "karpenter: cron next: \"" << parsed.schedule
          << "\" does not fire again within the 5-year search horizon\n";
      break;
    }
    out << FormatCliTime(t) << "\n";
  }
  return kExitOk;
}

}  // namespace

int RunCronCommand(const std::vector<std::string>& args, std::ostream& out,
                   std::ostream& err) {
  if (args.empty()) {
    err << kCronUsage;
    return kExitUsage;
  }
  if (args[0] == "--help" || args[0] == "-h") {
    out << kCronUsage;
    return kExitOk;
  }
  if (args[0] != "next") {
    PrintError(err, "cron: unknown subcommand \"" + args[0] +
                        "\" (only 'next'; see 'karpenter cron --help')");
    return kExitUsage;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (WantsHelp(rest)) {
    out << kCronUsage;
    return kExitOk;
  }
  return RunCronNext(rest, out, err);
}

}  // namespace karpenter::cli
