// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// `karpenter simulate`: runs a scenario (a cluster dump plus timed changes,
// testing/scenario.h) through disruption, termination and eviction against
// the testing fakes under a fake clock (testing/simulation.h), and prints
// the timeline and a summary; `--svg` charts the nodes by state.

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "cli.h"
#include "karpenter/catalog.h"
#include "karpenter/disruption/plan_proto.h"
#include "karpenter/testing/scenario.h"
#include "karpenter/testing/simulation.h"
#include "karpenter/time_util.h"
#include "karpenter/v1/simulation.pb.h"
#include "svg_chart.h"

namespace karpenter::cli {
namespace {

constexpr char kSimulateUsage[] =
    "usage: karpenter simulate [SCENARIO | -f DUMP] [--catalog FILE]\n"
    "                          [--change FILE]... [--at TIME]\n"
    "                          [--until DURATION] [-o text|json]\n"
    "                          [--svg FILE] [--min-step DURATION]\n"
    "                          [--no-progress]\n"
    "\n"
    "Runs a scenario through Karpenter's disruption controller, graceful\n"
    "node termination and PDB-aware eviction, against in-memory fakes of the\n"
    "cluster, the cloud and the kubelet, under a simulated clock: hours of\n"
    "cluster time in seconds. Prints a timeline (time, node, event) and a\n"
    "summary: nodes replaced, evictions and 429s, the longest drain, the\n"
    "peak of disrupting nodes per NodePool against its budget, and the\n"
    "checks that no budget or PDB was exceeded, no instance leaked, no pod\n"
    "is bound where kube-scheduler's filters forbid and no node is over its\n"
    "allocatable; the pods left pending are listed. Pods are bound as\n"
    "kube-scheduler binds them (filters, then its default scores).\n"
    "\n"
    "SCENARIO is a YAML or JSON file: a cluster dump, as printed by\n"
    "  kubectl get "
    "nodes,pods,pdb,nodepools,nodeclaims,pv,pvc,storageclasses,csinodes,"
    "daemonsets,volumeattachments -A -o yaml\n"
    "plus one document of kind Scenario (apiVersion\n"
    "sim.karpenter-sdk.dev/v1; proto/karpenter/v1/scenario.proto): start,\n"
    "until, the cloud's instance types, generated nodes and workloads, and\n"
    "timed changes (replace a NodePool, delete a node, spot interruption,\n"
    "drift a NodePool, cloud and eviction faults, termination protection).\n"
    "Without SCENARIO, the bundled one (examples/scenarios/rollout.yaml):\n"
    "3 NodePools, 30 nodes, 600 pods, PDBs, a business-hours budget, a\n"
    "do-not-disrupt batch job, an image change drifting one pool, a spot\n"
    "interruption and an instance with termination protection.\n"
    "\n"
    "What-if on a real cluster: a dump without a Scenario document runs\n"
    "with the defaults (from the dump's latest timestamp, for 2h, the\n"
    "catalogue's offerings as the cloud), and --change applies edits at\n"
    "the start:\n"
    "  kubectl get nodes,pods,pdb,nodepools,nodeclaims -A -o yaml > dump.yaml\n"
    "  karpenter simulate -f dump.yaml --catalog catalog.yaml \\\n"
    "      --change nodepool.yaml\n"
    "\n"
    "--until DURATION   run this long after the start (default: the\n"
    "                   scenario's until)\n"
    "-o json            print a karpenter.v1.SimulationReport\n"
    "                   (proto/karpenter/v1/simulation.proto)\n"
    "--svg FILE         write a chart of nodes by state over time\n"
    "--min-step D       run the controllers at most every D of simulated\n"
    "                   time (default 10s; Karpenter requeues drains every\n"
    "                   1-5 s, so smaller is closer and slower)\n"
    "-f, --filename F   the scenario or dump (the same as SCENARIO)\n"
    "--catalog FILE     the cloud's instance types from an "
    "InstanceTypeCatalog\n"
    "                   document (as 'karpenter plan --catalog' reads it)\n"
    "                   instead of the scenario's spec.instanceTypes;\n"
    "                   required for a dump without a Scenario\n"
    "--change FILE      changes applied at the start, in order (repeat for\n"
    "                   more files): NodePool documents (replacing the\n"
    "                   NodePool of that name: an edit, or a new pool) and\n"
    "                   Scenario documents with only spec.changes (any\n"
    "                   timed change: driftNodePool for a new image, a spot\n"
    "                   interruption, ...), added to the scenario's\n"
    "--at TIME          start at TIME (RFC 3339) instead of the scenario's\n"
    "                   spec.start or the dump's latest timestamp\n"
    "--no-progress      no progress bar (shown on a terminal otherwise)\n"
    "\n"
    "Exit status: 0 when the run ended with no budget or PDB exceeded, no\n"
    "instance leaked, no pod misplaced and no node overcommitted, 1 when\n"
    "one was, 2 with a one-line message on bad usage or a bad scenario.\n";

struct SimulateArgs {
  std::optional<std::string> scenario;
  std::optional<absl::Duration> until;
  bool json = false;
  std::optional<std::string> svg;
  std::optional<std::string> catalog;
  std::vector<std::string> changes;
  std::optional<absl::Time> at;
  bool progress = true;
  // The cores run at most this often in simulated time. Karpenter requeues
  // a draining node every 1-5 s; 10 s keeps the bundled 90-minute rollout
  // around 5 s of wall time and changes no decision, only when it is seen.
  absl::Duration min_step = absl::Seconds(10);
};

std::string ParseSimulateOption(const std::string& arg,
                                const std::string& value,
                                SimulateArgs& parsed) {
  if (arg == "--until") {
    absl::Duration d;
    if (!absl::ParseDuration(value, &d) || d <= absl::ZeroDuration() ||
        d == absl::InfiniteDuration()) {
      return absl::StrCat("--until: \"", value,
                          "\" is not a positive duration (e.g. 3h)");
    }
    parsed.until = d;
  } else if (arg == "--min-step") {
    absl::Duration d;
    if (!absl::ParseDuration(value, &d) || d <= absl::ZeroDuration() ||
        d > absl::Hours(1)) {
      return absl::StrCat("--min-step: \"", value,
                          "\" is not a duration in (0, 1h] (e.g. 5s)");
    }
    parsed.min_step = d;
  } else if (arg == "--svg") {
    parsed.svg = value;
  } else if (arg == "--catalog") {
    parsed.catalog = value;
  } else if (arg == "--change") {
    parsed.changes.push_back(value);
  } else if (arg == "--at") {
    absl::Time at;
    if (std::string p = ParseTimeFlag(arg, value, at); !p.empty()) return p;
    parsed.at = at;
  } else if (arg == "-f" || arg == "--filename") {
    if (parsed.scenario.has_value()) {
      return absl::StrCat("one SCENARIO expected, got \"", *parsed.scenario,
                          "\" and \"", value, "\"");
    }
    parsed.scenario = value;
  } else {
    return ParseOutputFlag(arg, value, parsed.json);
  }
  return "";
}

std::string ParseSimulateArgs(const std::vector<std::string>& args,
                              SimulateArgs& parsed) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--no-progress") {
      parsed.progress = false;
      continue;
    }
    if (arg == "--until" || arg == "--svg" || arg == "-o" ||
        arg == "--output" || arg == "--min-step" || arg == "--catalog" ||
        arg == "--change" || arg == "--at" || arg == "-f" ||
        arg == "--filename") {
      if (i + 1 >= args.size()) return absl::StrCat(arg, ": missing value");
      if (std::string p = ParseSimulateOption(arg, args[++i], parsed);
          !p.empty()) {
        return p;
      }
      continue;
    }
    if (arg.size() > 1 && arg[0] == '-') {
      return absl::StrCat("unknown option \"", arg, "\"");
    }
    if (parsed.scenario.has_value()) {
      return absl::StrCat("one SCENARIO expected, got \"", *parsed.scenario,
                          "\" and \"", arg, "\"");
    }
    parsed.scenario = arg;
  }
  return "";
}

absl::StatusOr<std::string> ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return absl::NotFoundError(absl::StrCat("cannot open \"", path, "\""));
  std::ostringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

// Reads the scenario file (or the bundled one) and builds the simulation.
absl::StatusOr<std::unique_ptr<testing::Simulation>> Prepare(
    const SimulateArgs& args, std::string& name) {
  std::string text = kBundledScenarioYaml;
  std::string source = "examples/scenarios/rollout.yaml";
  if (args.scenario.has_value()) {
    absl::StatusOr<std::string> read = ReadText(*args.scenario);
    if (!read.ok()) return read.status();
    text = *std::move(read);
    source = *args.scenario;
  }
  absl::StatusOr<testing::LoadedScenario> loaded =
      testing::LoadScenarioOrDump(text, source);
  if (!loaded.ok()) return loaded.status();
  v1::ScenarioSpec& spec = *loaded->scenario.mutable_spec();
  if (!loaded->has_scenario_document) {
    if (!args.catalog.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat(
          source,
          ": no Scenario document; a cluster dump needs the cloud's instance "
          "types: --catalog FILE (e.g. examples/catalogs/aws-us-west-2.yaml)"));
    }
    const std::optional<absl::Time> dumped = testing::DumpTime(loaded->cluster);
    if (!dumped.has_value() && !args.at.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat(source,
                       ": no Scenario document and no timestamp in the "
                       "dump to start from: give --at TIME"));
    }
    *spec.mutable_start() = TimeToProto(args.at.value_or(*dumped));
  }
  if (args.at.has_value()) *spec.mutable_start() = TimeToProto(*args.at);
  for (const std::string& path : args.changes) {
    absl::StatusOr<std::string> read = ReadText(path);
    absl::StatusOr<std::vector<v1::ScenarioChange>> changes =
        read.ok()
            ? testing::LoadChanges(*read, path)
            : absl::StatusOr<std::vector<v1::ScenarioChange>>(read.status());
    if (!changes.ok()) {
      return absl::Status(
          changes.status().code(),
          absl::StrCat("--change: ", changes.status().message()));
    }
    for (v1::ScenarioChange& c : *changes) {
      *spec.add_changes() = std::move(c);
    }
  }
  if (args.catalog.has_value()) {
    // The catalogue replaces the scenario's cloud: its node groups must
    // name types of the catalogue (ValidateScenario checks).
    absl::StatusOr<std::string> read = ReadText(*args.catalog);
    absl::StatusOr<v1::InstanceTypeCatalog> catalog =
        read.ok() ? ParseInstanceTypeCatalogDocument(*read, *args.catalog)
                  : absl::StatusOr<v1::InstanceTypeCatalog>(read.status());
    if (!catalog.ok()) {
      return absl::Status(
          catalog.status().code(),
          absl::StrCat("--catalog: ", catalog.status().message()));
    }
    *spec.mutable_instance_types() = catalog->instance_types();
  }
  if (absl::Status s = testing::ValidateScenario(loaded->scenario); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": ", s.message()));
  }
  name = loaded->scenario.metadata().name();
  testing::SimulationOptions options;
  options.min_step = args.min_step;
  options.max_step = std::max(options.max_step, args.min_step);
  return testing::Simulation::Create(*std::move(loaded), options);
}

// A one-line bar on the terminal, redrawn in place.
void DrawProgress(std::ostream& err, absl::Time start, absl::Time now,
                  absl::Time end) {
  const double f =
      end > start ? std::min(1.0, absl::FDivDuration(now - start, end - start))
                  : 1.0;
  const int filled = static_cast<int>(f * 30);
  err << "\r[" << std::string(filled, '#') << std::string(30 - filled, ' ')
      << "] " << static_cast<int>(f * 100) << "%  "
      << absl::FormatTime("%H:%M:%S", now, absl::UTCTimeZone()) << std::flush;
}

void PrintTimeline(const std::vector<testing::SimulationEvent>& events,
                   std::ostream& out) {
  std::vector<std::vector<std::string>> rows = {
      {"TIME", "NODE", "EVENT", "DETAILS"}};
  for (const testing::SimulationEvent& e : events) {
    rows.push_back({absl::FormatTime("%H:%M:%S", e.at, absl::UTCTimeZone()),
                    e.node.empty() ? "-" : e.node, e.kind, e.message});
  }
  PrintTable(rows, out);
}

// "0", or the count and the first five entries.
std::string Listed(const std::vector<std::string>& items) {
  if (items.empty()) return "0";
  constexpr size_t kShown = 5;
  std::vector<std::string> shown(
      items.begin(), items.begin() + std::min(items.size(), kShown));
  return absl::StrCat(items.size(), " (", absl::StrJoin(shown, ", "),
                      items.size() > kShown ? ", ..." : "", ")");
}

std::string Peaks(const testing::SimulationSummary& s) {
  std::vector<std::string> parts;
  for (const testing::NodePoolPeak& p : s.budget_peaks) {
    parts.push_back(absl::StrCat(p.node_pool, " ", p.peak_disrupting,
                                 " (allowed ", p.allowed_at_peak, ")"));
  }
  return parts.empty() ? "-" : absl::StrJoin(parts, ", ");
}

// "apps 1 of 3": per NodePool whose nodes spanned several zones, the most
// zones disrupting at once; "" when none did.
std::string ZonePeaks(const testing::SimulationSummary& s) {
  std::vector<std::string> parts;
  for (const testing::NodePoolPeak& p : s.budget_peaks) {
    if (p.zones < 2) continue;
    parts.push_back(
        absl::StrCat(p.node_pool, " ", p.peak_zones, " of ", p.zones));
  }
  return absl::StrJoin(parts, ", ");
}

void PrintSummary(const std::string& name, const testing::SimulationSummary& s,
                  std::ostream& out) {
  std::vector<std::vector<std::string>> rows = {
      {"scenario", name},
      {"simulated",
       absl::StrCat(FormatCliTime(s.start), " .. ", FormatCliTime(s.end), " (",
                    s.steps, " steps)")},
      {"nodes replaced", absl::StrCat(s.nodes_replaced)},
      {"nodes deleted", absl::StrCat(s.nodes_deleted)},
      {"nodes launched", absl::StrCat(s.nodes_launched)},
      {"evictions", absl::StrCat(s.evictions, " (429: ", s.evictions_429,
                                 ", failed: ", s.evictions_failed, ")")},
      {"force deletions", absl::StrCat(s.force_deletions)},
      {"longest drain",
       s.longest_drain_node.empty()
           ? "-"
           : absl::StrCat(absl::FormatDuration(s.longest_drain), " (",
                          s.longest_drain_node, ")")},
      {"budget peaks", Peaks(s)},
      {"budget exceeded", absl::StrCat(s.budget_exceeded)},
      {"PDB violations", absl::StrCat(s.pdb_violations)},
      {"leaked instances",
       s.leaked_instances.empty()
           ? "0"
           : absl::StrCat(s.leaked_instances.size(), " (",
                          absl::StrJoin(s.leaked_instances, ", "), ")")},
      {"unfinished",
       s.unfinished.empty() ? "none" : absl::StrJoin(s.unfinished, ", ")},
      {"misplaced pods", Listed(s.misplaced_pods)},
      {"overcommitted", Listed(s.overcommitted_nodes)},
      {"pending pods", Listed(s.pending_pods)},
  };
  if (std::string zones = ZonePeaks(s); !zones.empty()) {
    // After "budget peaks".
    rows.insert(rows.begin() + 9, {"zones at once", zones});
  }
  out << "\nSummary\n";
  for (auto& row : rows) row[0] = "  " + row[0];
  PrintTable(rows, out);
}

v1::SimulationReport ToReport(const std::string& name,
                              const testing::Simulation& sim) {
  v1::SimulationReport report;
  report.set_scenario(name);
  for (const testing::SimulationEvent& e : sim.timeline()) {
    v1::SimulationEvent& pe = *report.add_timeline();
    pe.set_at(disruption::FormatPlanTime(e.at));
    pe.set_node(e.node);
    pe.set_kind(e.kind);
    pe.set_message(e.message);
  }
  for (const testing::NodeStateSample& s : sim.samples()) {
    v1::NodeStateSample& ps = *report.add_samples();
    ps.set_at(disruption::FormatPlanTime(s.at));
    ps.set_launching(s.launching);
    ps.set_ready(s.ready);
    ps.set_disrupting(s.disrupting);
    ps.set_draining(s.draining);
    ps.set_terminating(s.terminating);
  }
  const testing::SimulationSummary s = sim.Summary();
  v1::SimulationSummary& ps = *report.mutable_summary();
  ps.set_start(disruption::FormatPlanTime(s.start));
  ps.set_end(disruption::FormatPlanTime(s.end));
  ps.set_steps(s.steps);
  ps.set_nodes_replaced(s.nodes_replaced);
  ps.set_nodes_deleted(s.nodes_deleted);
  ps.set_nodes_launched(s.nodes_launched);
  ps.set_evictions(s.evictions);
  ps.set_evictions_429(s.evictions_429);
  ps.set_evictions_failed(s.evictions_failed);
  ps.set_force_deletions(s.force_deletions);
  ps.set_longest_drain(absl::FormatDuration(s.longest_drain));
  ps.set_longest_drain_node(s.longest_drain_node);
  for (const testing::NodePoolPeak& p : s.budget_peaks) {
    v1::NodePoolPeak& pp = *ps.add_budget_peaks();
    pp.set_node_pool(p.node_pool);
    pp.set_peak_disrupting(p.peak_disrupting);
    pp.set_allowed_at_peak(p.allowed_at_peak);
    pp.set_at(disruption::FormatPlanTime(p.at));
    pp.set_peak_zones(p.peak_zones);
    pp.set_zones(p.zones);
  }
  ps.set_budget_exceeded(s.budget_exceeded);
  ps.set_pdb_violations(s.pdb_violations);
  for (const std::string& l : s.leaked_instances) ps.add_leaked_instances(l);
  for (const std::string& u : s.unfinished) ps.add_unfinished(u);
  for (const std::string& m : s.misplaced_pods) ps.add_misplaced_pods(m);
  for (const std::string& o : s.overcommitted_nodes) {
    ps.add_overcommitted_nodes(o);
  }
  for (const std::string& p : s.pending_pods) ps.add_pending_pods(p);
  return report;
}

std::string Chart(const std::string& name, const testing::Simulation& sim) {
  const std::vector<ChartSeries> series = {{"ready", "#54a24b"},
                                           {"launching", "#9ecae9"},
                                           {"disrupting", "#f2cf5b"},
                                           {"draining", "#f58518"},
                                           {"terminating", "#e45756"}};
  std::vector<ChartSample> samples;
  for (const testing::NodeStateSample& s : sim.samples()) {
    samples.push_back(ChartSample{
        s.at, {s.ready, s.launching, s.disrupting, s.draining, s.terminating}});
  }
  const testing::SimulationSummary summary = sim.Summary();
  return RenderStackedSteps(absl::StrCat("Nodes by state: ", name), series,
                            samples, summary.start, summary.end);
}

bool Clean(const testing::SimulationSummary& s) {
  return s.budget_exceeded == 0 && s.pdb_violations == 0 &&
         s.leaked_instances.empty() && s.misplaced_pods.empty() &&
         s.overcommitted_nodes.empty();
}

}  // namespace

int RunSimulateCommand(const std::vector<std::string>& args, std::ostream& out,
                       std::ostream& err) {
  if (WantsHelp(args)) {
    out << kSimulateUsage;
    return kExitOk;
  }
  SimulateArgs parsed;
  if (std::string p = ParseSimulateArgs(args, parsed); !p.empty()) {
    PrintError(err, "simulate: " + p);
    return kExitUsage;
  }
  std::string name;
  absl::StatusOr<std::unique_ptr<testing::Simulation>> sim =
      Prepare(parsed, name);
  if (!sim.ok()) {
    PrintError(err, absl::StrCat("simulate: ", sim.status().message()));
    return kExitUsage;
  }
  const absl::Time start = (*sim)->now();
  std::optional<absl::Time> end;
  if (parsed.until.has_value()) end = start + *parsed.until;
  // Only a terminal gets the bar: redirected output stays clean.
  const bool bar = parsed.progress && &err == &std::cerr && isatty(2) != 0;
  std::function<void(absl::Time, absl::Time)> progress;
  if (bar) {
    progress = [&err, start](absl::Time now, absl::Time until) {
      DrawProgress(err, start, now, until);
    };
  }
  const absl::Status run = (*sim)->Run(end, progress);
  if (bar) err << "\r" << std::string(60, ' ') << "\r" << std::flush;
  if (!run.ok()) {
    PrintError(err, absl::StrCat("simulate: ", run.message()));
    return kExitInternal;
  }
  if (parsed.svg.has_value()) {
    std::ofstream svg(*parsed.svg, std::ios::binary | std::ios::trunc);
    svg << Chart(name, **sim);
    if (!svg.flush()) {
      PrintError(err, absl::StrCat("simulate: --svg: cannot write \"",
                                   *parsed.svg, "\""));
      return kExitUsage;
    }
  }
  const testing::SimulationSummary summary = (*sim)->Summary();
  if (parsed.json) {
    if (int rc = PrintJson(ToReport(name, **sim), "simulate", out, err);
        rc != kExitOk) {
      return rc;
    }
  } else {
    PrintTimeline((*sim)->timeline(), out);
    PrintSummary(name, summary, out);
  }
  return Clean(summary) ? kExitOk : kExitInvalid;
}

}  // namespace karpenter::cli
