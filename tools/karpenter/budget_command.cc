// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// `karpenter validate` and `karpenter budgets`: the API-server checks of
// validation.h (NodePools, NodeClaims, PDBs) over cluster dumps, and the
// per-NodePool allowed disruptions of budget/allowed.h with their next
// change and timeline (budget/calendar.h), over cluster dumps.

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "cli.h"
#include "google/protobuf/util/json_util.h"
#include "karpenter/budget/allowed.h"
#include "karpenter/budget/calendar.h"
#include "karpenter/budget/disruption_spec.h"
#include "karpenter/disruption/controls.h"
#include "karpenter/disruption/plan_proto.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/budget.pb.h"
#include "karpenter/validation.h"

namespace karpenter::cli {
namespace {

constexpr char kValidateUsage[] =
    "usage: karpenter validate [-f FILE]...\n"
    "\n"
    "Loads cluster dumps (as 'karpenter inspect' does) and checks them as the\n"
    "API server would (karpenter/validation.h):\n"
    "  - karpenter.sh/v1 and v1beta1 NodePools and NodeClaims against the\n"
    "    CRD schema and CEL rules of their version: enums (consolidation\n"
    "    policy, budget reasons, requirement operators, taint effects),\n"
    "    duration patterns (no 'd': 24h, not 1d), budgets, requirements\n"
    "    (values per operator, minValues, restricted label keys), taints,\n"
    "    limits, weight, fields of the other version;\n"
    "  - what the CRD accepts but Karpenter refuses at run time: budget\n"
    "    schedules the cron parser rejects (fails closed), a taint\n"
    "    key/effect pair given twice, template label keys that are not\n"
    "    qualified names (the NodePool is not ready);\n"
    "  - PodDisruptionBudgets as policy/v1 validation does;\n"
    "  - the SDK's own do-not-disrupt window annotations on Pods and Nodes\n"
    "    (disruption.karpenter-sdk.dev/do-not-disrupt-schedule and\n"
    "    -duration): both or neither, a cron schedule, a positive Go\n"
    "    duration. Only Pods and Nodes carrying one are counted.\n"
    "Prints every error, one a line, sorted by kind and object:\n"
    "  <file>: <document N|items[i]>: <apiVersion> <Kind> <ns/name>:\n"
    "  <field>: <what> (<rule>), got \"<value>\"\n"
    "then one line per kind it did not check, with a count, e.g.\n"
    "  not checked: karpenter.sh/v1alpha5 Provisioner (removed in Karpenter\n"
    "  v0.33), 1 object\n"
    "and, when all is valid, '<N> objects valid (...)'. Without -f,\n"
    "validates the example cluster bundled in the binary.\n"
    "\n"
    "Exit status: 0 when everything checked is valid, 1 when any error was\n"
    "found or nothing could be checked ('nothing to validate'), 2 with a\n"
    "one-line message on bad usage or unreadable input.\n";

constexpr char kBudgetsUsage[] =
    "usage: karpenter budgets [-f FILE]... [--at RFC3339] [--until RFC3339]\n"
    "                         [-o text|json] [--strict]\n"
    "\n"
    "Evaluates every NodePool's disruption budgets at one instant (--at,\n"
    "default now) as Karpenter does: per NodePool the total and disrupting\n"
    "nodes, and per reason (Underutilized, Empty, Drifted) one row with\n"
    "  ALLOWED      what the budgets allow, before subtracting disrupting\n"
    "               nodes ('unlimited' when no active budget limits it)\n"
    "  REMAINING    max(ALLOWED - DISRUPTING, 0): what the disruption\n"
    "               controller may still disrupt\n"
    "  LIMITING     the budget that sets ALLOWED, and WHY\n"
    "  NEXT CHANGE  the first instant after --at at which ALLOWED changes\n"
    "               (RFC 3339 UTC), or 'never': no scheduled budget matters\n"
    "               for the reason, or the NodePool is invalid and fails\n"
    "               closed to 0 for good\n"
    "  THEN         ALLOWED from NEXT CHANGE on\n"
    "\n"
    "--until RFC3339 (after --at) adds a timeline: per NodePool and reason\n"
    "the stretches of [--at, --until) over which ALLOWED and the limiting\n"
    "budget stay constant. Timelines show ALLOWED, as NEXT CHANGE does;\n"
    "REMAINING is ALLOWED minus the nodes disrupting at --at. A NodePool\n"
    "and reason with more than 1000 stretches gets an error line instead\n"
    "of its timeline; the other timelines are still printed.\n"
    "\n"
    "Without -f, the example cluster bundled in the binary. -o json prints\n"
    "a karpenter.v1.BudgetReport (proto/karpenter/v1/budget.proto) in\n"
    "proto3's JSON mapping: nextChange/nextAllowed per reason (absent for\n"
    "'never'), timeline/timelineError with --until.\n"
    "\n"
    "A timestamp an object lacks (a NodeClaim's creationTimestamp or a\n"
    "condition's lastTransitionTime, as in hand-written manifests) is taken\n"
    "as --at, with one 'warning:' line per object on stderr; --strict makes\n"
    "it an error instead.\n"
    "\n"
    "Exit status 2 with a one-line message on bad usage or bad input\n"
    "(including an --until not after --at).\n";

std::string Plural(int64_t n, absl::string_view singular,
                   absl::string_view plural) {
  return absl::StrCat(n, " ", n == 1 ? singular : plural);
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
  ObjectPlaces places;
  std::optional<snapshot::Snapshot> snap =
      LoadSnapshot(files, "validate", err, &places);
  if (!snap) return kExitUsage;
  const validation::SnapshotReport report = validation::ValidateSnapshot(*snap);
  for (const validation::FieldError& e : report.errors) {
    // Where the object is, as the loader names it: "FILE: document 2: ".
    const auto place = places.find(absl::StrCat(e.kind, " ", e.object));
    if (place != places.end()) out << place->second << ": ";
    out << e.ToString() << "\n";
  }
  for (const auto& [kind, count] : report.not_checked) {
    out << "not checked: " << kind << ", " << Plural(count, "object", "objects")
        << "\n";
  }
  if (!report.errors.empty()) return kExitInvalid;
  if (report.checked.empty()) {
    out << "nothing to validate (no NodePool, NodeClaim or "
           "PodDisruptionBudget)\n";
    return kExitInvalid;
  }
  int64_t total = 0;
  std::vector<std::string> parts;
  // NodePools first, as the kinds are introduced to users.
  for (const auto& [kind, plural] :
       std::vector<std::pair<std::string, std::string>>{
           {"NodePool", "NodePools"},
           {"NodeClaim", "NodeClaims"},
           {"PodDisruptionBudget", "PodDisruptionBudgets"},
           {"Node", "Nodes"},
           {"Pod", "Pods"}}) {
    auto it = report.checked.find(kind);
    if (it == report.checked.end()) continue;
    total += it->second;
    parts.push_back(Plural(it->second, kind, plural));
  }
  out << Plural(total, "object", "objects") << " valid ("
      << absl::StrJoin(parts, ", ") << ")\n";
  return kExitOk;
}

namespace {

// The most segments one NodePool and reason may produce with --until; past
// it the timeline is replaced by an error so the output stays readable and
// bounded (a minutely window over a month would print 40000 rows).
constexpr size_t kMaxTimelineSegments = 1000;

struct BudgetsArgs {
  std::vector<std::string> files;
  absl::Time at = CliNow();
  std::optional<absl::Time> until;
  bool json = false;
  bool at_given = false;
  bool strict = false;
};

// Parses one option taking `value`; "" on success, else the problem.
std::string ParseBudgetsOption(const std::string& arg, const std::string& value,
                               BudgetsArgs& parsed) {
  if (arg == "-f" || arg == "--filename") {
    parsed.files.push_back(value);
  } else if (arg == "--at") {
    return ParseTimeFlag(arg, value, parsed.at);
  } else if (arg == "--until") {
    absl::Time until;
    if (std::string problem = ParseTimeFlag(arg, value, until);
        !problem.empty()) {
      return problem;
    }
    parsed.until = until;
  } else {
    return ParseOutputFlag(arg, value, parsed.json);
  }
  return "";
}

// Parses `budgets` options; "" on success, else the problem.
std::string ParseBudgetsArgs(const std::vector<std::string>& args,
                             BudgetsArgs& parsed) {
  std::string until_text;
  std::string at_text;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--strict") {
      parsed.strict = true;
      continue;
    }
    const bool takes_value = arg == "-f" || arg == "--filename" ||
                             arg == "--at" || arg == "--until" || arg == "-o" ||
                             arg == "--output";
    if (!takes_value) {
      if (arg.size() > 1 && arg[0] == '-') {
        return absl::StrCat("unknown option \"", arg, "\"");
      }
      parsed.files.push_back(arg);
      continue;
    }
    if (i + 1 >= args.size()) return absl::StrCat(arg, ": missing value");
    const std::string& value = args[++i];
    if (arg == "--until") until_text = value;
    if (arg == "--at") {
      at_text = value;
      parsed.at_given = true;
    }
    if (std::string problem = ParseBudgetsOption(arg, value, parsed);
        !problem.empty()) {
      return problem;
    }
  }
  // Checked after the loop: --until may come before --at.
  if (parsed.until.has_value() && *parsed.until <= parsed.at) {
    const std::string at_quoted =
        at_text.empty() ? absl::StrCat("now (", FormatCliTime(parsed.at), ")")
                        : absl::StrCat("--at \"", at_text, "\"");
    return absl::StrCat("--until: \"", until_text, "\" is not after ",
                        at_quoted);
  }
  return "";
}

// Sets `rb`'s next change from `at` (absent when never).
void FillNextChange(const budget::DisruptionSpec& spec,
                    budget::DisruptionReason reason, int64_t num_nodes,
                    absl::Time at, v1::ReasonBudget* rb) {
  const absl::Time next = budget::NextChange(spec, reason, num_nodes, at);
  if (next == absl::InfiniteFuture()) return;
  rb->set_next_change(FormatCliTime(next));
  rb->set_next_allowed(
      budget::AllowedDisruptions(spec, reason, num_nodes, next));
}

void AddSegment(absl::Time start, absl::Time end, int64_t allowed,
                std::optional<size_t> limiting_budget, v1::ReasonBudget* rb) {
  v1::BudgetSegment* s = rb->add_timeline();
  s->set_start(FormatCliTime(start));
  s->set_end(FormatCliTime(end));
  s->set_allowed(allowed);
  s->set_unlimited(allowed == budget::kUnlimited);
  if (limiting_budget) {
    s->set_limiting_budget(static_cast<int32_t>(*limiting_budget));
  }
}

// Sets `rb`'s timeline over [at, until), or its timeline_error.
void FillTimeline(const budget::DisruptionSpec& spec,
                  budget::DisruptionReason reason, int64_t num_nodes,
                  absl::Time at, absl::Time until, v1::ReasonBudget* rb) {
  absl::StatusOr<std::vector<budget::TimelineSegment>> segments =
      budget::Timeline(spec, reason, num_nodes, at, until,
                       kMaxTimelineSegments);
  if (!segments.ok()) {
    rb->set_timeline_error(std::string(segments.status().message()));
    return;
  }
  for (size_t i = 0; i < segments->size(); ++i) {
    const budget::TimelineSegment& s = (*segments)[i];
    const absl::Time end =
        i + 1 < segments->size() ? (*segments)[i + 1].start : until;
    AddSegment(s.start, end, s.allowed, s.limiting_budget, rb);
  }
}

// One NodePool's entry. `spec` is its parsed spec, or the parse error (then
// every reason is a constant 0: no next change, one timeline segment).
void FillNodePool(const budget::NodePoolBudget& np,
                  const absl::StatusOr<budget::DisruptionSpec>& spec,
                  const BudgetsArgs& args, v1::NodePoolBudgetReport* r) {
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
    if (!spec.ok()) {
      if (args.until) {
        AddSegment(args.at, *args.until, a.allowed, a.limiting_budget, rb);
      }
      continue;
    }
    FillNextChange(*spec, reason, np.total_nodes, args.at, rb);
    if (args.until) {
      FillTimeline(*spec, reason, np.total_nodes, args.at, *args.until, rb);
    }
  }
}

v1::BudgetReport MakeReport(const snapshot::Snapshot& snap,
                            const BudgetsArgs& args) {
  const budget::BudgetMapping mapping =
      budget::BuildBudgetMapping(snap, args.at);
  v1::BudgetReport report;
  report.set_at(FormatCliTime(args.at));
  if (args.until) report.set_until(FormatCliTime(*args.until));
  // The mapping lists the NodePools in snapshot order, so position i is
  // snap.node_pools()[i].
  for (size_t i = 0; i < mapping.node_pools.size(); ++i) {
    FillNodePool(mapping.node_pools[i],
                 budget::ParseDisruptionSpec(snap.node_pools()[i]), args,
                 report.add_node_pools());
  }
  // The SDK controls, with no command in flight.
  for (const disruption::NodePoolControlState& state :
       disruption::EvaluateControls(snap, mapping, budget::BudgetOptions(), {},
                                    args.at)) {
    for (v1::NodePoolBudgetReport& np : *report.mutable_node_pools()) {
      if (np.name() != state.node_pool) continue;
      *np.mutable_controls() = disruption::ControlStateToProto(state);
      np.mutable_controls()->clear_node_pool();  // The entry names it.
    }
  }
  return report;
}

std::string CountText(int64_t n) {
  return n == budget::kUnlimited ? "unlimited" : absl::StrCat(n);
}

// What remains of `allowed`: "unlimited" when no budget limits it (the
// remaining count is then MaxInt32 less the disrupting nodes).
std::string RemainingText(int64_t allowed, int64_t remaining) {
  return allowed == budget::kUnlimited ? "unlimited" : CountText(remaining);
}

std::string LimitingText(bool has, int32_t index) {
  return has ? absl::StrCat("budgets[", index, "]") : "-";
}

void PrintSummary(const v1::BudgetReport& report, std::ostream& out) {
  std::vector<std::vector<std::string>> rows = {
      {"NODEPOOL", "NODES", "DISRUPTING", "REASON", "ALLOWED", "REMAINING",
       "LIMITING", "NEXT CHANGE", "THEN", "WHY"}};
  for (const v1::NodePoolBudgetReport& np : report.node_pools()) {
    for (const v1::ReasonBudget& rb : np.reasons()) {
      const bool changes = rb.has_next_change();
      rows.push_back(
          {np.name(), absl::StrCat(np.total_nodes()),
           absl::StrCat(np.disrupting_nodes()), rb.reason(),
           CountText(rb.allowed()), RemainingText(rb.allowed(), rb.remaining()),
           LimitingText(rb.has_limiting_budget(), rb.limiting_budget()),
           changes ? rb.next_change() : "never",
           changes ? CountText(rb.next_allowed()) : "-", rb.why()});
    }
  }
  PrintTable(rows, out);
}

void PrintTimeline(const v1::BudgetReport& report, std::ostream& out) {
  out << "\nTimeline from " << report.at() << " until " << report.until()
      << " (ALLOWED before subtracting disrupting nodes)\n\n";
  std::vector<std::vector<std::string>> rows = {
      {"NODEPOOL", "REASON", "FROM", "UNTIL", "ALLOWED", "LIMITING"}};
  for (const v1::NodePoolBudgetReport& np : report.node_pools()) {
    for (const v1::ReasonBudget& rb : np.reasons()) {
      if (!rb.timeline_error().empty()) {
        rows.push_back({np.name(), rb.reason(), "-", "-", "error", "-"});
      }
      for (const v1::BudgetSegment& s : rb.timeline()) {
        rows.push_back(
            {np.name(), rb.reason(), s.start(), s.end(), CountText(s.allowed()),
             LimitingText(s.has_limiting_budget(), s.limiting_budget())});
      }
    }
  }
  PrintTable(rows, out);
}

// The SDK controls of the NodePools that have any.
void PrintControls(const v1::BudgetReport& report, std::ostream& out) {
  std::vector<v1::NodePoolControlsReport> controls;
  for (const v1::NodePoolBudgetReport& np : report.node_pools()) {
    if (!np.has_controls()) continue;
    controls.push_back(np.controls());
    controls.back().set_node_pool(np.name());
  }
  PrintControlsTable(controls, out);
}

void PrintBudgetsText(const v1::BudgetReport& report, std::ostream& out) {
  out << "Budgets at " << report.at() << "\n\n";
  PrintSummary(report, out);
  PrintControls(report, out);
  if (!report.until().empty()) PrintTimeline(report, out);
  for (const v1::NodePoolBudgetReport& np : report.node_pools()) {
    for (const std::string& e : np.spec_errors()) {
      out << "NodePool " << np.name() << ": " << e << "\n";
    }
    for (const v1::ReasonBudget& rb : np.reasons()) {
      if (rb.timeline_error().empty()) continue;
      out << "NodePool " << np.name() << ": " << rb.reason()
          << " timeline: " << rb.timeline_error() << "\n";
    }
  }
}

}  // namespace

namespace {

// Missing timestamps are taken as --at (cli.h DumpChecks).
DumpChecks BudgetsChecks(const BudgetsArgs& parsed) {
  DumpChecks checks;
  checks.at = parsed.at;
  checks.at_label = parsed.at_given ? "--at" : "now";
  checks.strict = parsed.strict;
  return checks;
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
      LoadSnapshot(parsed.files, "budgets", BudgetsChecks(parsed), err);
  if (!snap) return kExitUsage;
  const v1::BudgetReport report = MakeReport(*snap, parsed);
  if (!parsed.json) {
    PrintBudgetsText(report, out);
    return kExitOk;
  }
  return PrintJson(report, "budgets", out, err);
}

}  // namespace karpenter::cli
