// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "harness.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "karpenter/budget/pdb.h"
#include "karpenter/conditions.h"
#include "karpenter/duration.h"
#include "karpenter/scheduling/provision.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/testing/scenario.h"
#include "karpenter/time_util.h"
#include "random_scenario.h"

namespace karpenter::sim {
namespace {

using testing::Simulation;
using testing::SimulationEvent;

constexpr absl::string_view kDoNotDisrupt = "karpenter.sh/do-not-disrupt";

absl::Time TimeOf(const google::protobuf::Timestamp& ts) {
  return absl::FromUnixSeconds(ts.seconds()) + absl::Nanoseconds(ts.nanos());
}

std::string Instant(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
}

// What the checker remembers of a pod between steps.
struct PodFacts {
  std::string node;
  bool do_not_disrupt = false;
  bool terminating = false;
  absl::Duration grace = absl::Seconds(30);
};

// A deleting Node (or a deleting NodeClaim without a Node).
struct Deleting {
  absl::Time since;
  absl::Time last_blocked;
  bool reported = false;
};

// The checks of the file comment of harness.h, fed after every step.
class Checker {
 public:
  Checker(Simulation& sim, SeedResult& result) : sim_(sim), result_(result) {}

  void AfterStep(absl::Time now);
  void AtEnd(absl::Time now);

 private:
  void Fail(absl::Time at, absl::string_view invariant, std::string detail) {
    result_.violations.push_back(
        {at, std::string(invariant), std::move(detail)});
  }
  void ScanEvents(absl::Time now, const snapshot::Snapshot& s);
  void CheckFinalizers(absl::Time now, const snapshot::Snapshot& s,
                       const std::set<std::string>& instances);
  void CheckPdbViolations(absl::Time now);
  void CheckEvicted(absl::Time now, const std::string& pod,
                    const snapshot::Snapshot& s);
  void CheckForceDeleted(absl::Time now, const std::string& pod,
                         const snapshot::Snapshot& s);
  void CheckBound(absl::Time now, const snapshot::Snapshot& s);
  void CheckPlacement(absl::Time now);
  void CheckPending(absl::Time now);
  // The drain deadline of `node`: its (or its NodeClaim's) deletion plus the
  // NodeClaim's terminationGracePeriod; nullopt without one.
  std::optional<absl::Time> DeadlineOf(const snapshot::Snapshot& s,
                                       const std::string& node) const;
  std::map<std::string, PodFacts> PodsOf(const snapshot::Snapshot& s) const;
  // The pod as of the last step, else as of now.
  const PodFacts* FindPod(const std::string& pod) const;
  // Whether the step's events include evictions or pod deletions.
  bool PodEventsPending() const;

  Simulation& sim_;
  SeedResult& result_;
  size_t seen_events_ = 0;
  size_t seen_pdb_violations_ = 0;
  absl::Time last_fault_ = absl::InfinitePast();
  std::set<std::string> protected_nodes_;
  // Provider IDs of the Nodes and NodeClaims of the last step.
  std::map<std::string, std::string> nodes_, claims_;
  // Pods as of the last step that read them, and as of now.
  std::map<std::string, PodFacts> pods_, current_pods_;
  bool any_deleting_ = false;
  std::map<std::string, absl::Time> deadlines_;
  std::map<std::string, Deleting> deleting_;
};

std::map<std::string, PodFacts> Checker::PodsOf(
    const snapshot::Snapshot& s) const {
  std::map<std::string, PodFacts> pods;
  for (snapshot::PodIndex p = 0; p < s.pod_count(); ++p) {
    const v1::Pod& shape = s.PodShape(p);
    PodFacts f;
    if (std::optional<snapshot::NodeIndex> n = s.NodeOfPod(p)) {
      f.node = s.nodes()[*n].metadata().name();
    }
    f.do_not_disrupt =
        shape.metadata().annotations().contains(std::string(kDoNotDisrupt));
    f.terminating = shape.metadata().has_deletion_timestamp();
    if (shape.spec().has_termination_grace_period_seconds()) {
      f.grace = absl::Seconds(shape.spec().termination_grace_period_seconds());
    }
    pods.emplace(s.PodKey(p), std::move(f));
  }
  return pods;
}

std::optional<absl::Time> Checker::DeadlineOf(const snapshot::Snapshot& s,
                                              const std::string& node) const {
  auto known = deadlines_.find(node);
  if (known != deadlines_.end()) return known->second;
  std::optional<absl::Time> start;
  if (std::optional<snapshot::NodeIndex> n = s.FindNode(node)) {
    const v1::ObjectMeta& m = s.nodes()[*n].metadata();
    if (m.has_deletion_timestamp()) start = TimeOf(m.deletion_timestamp());
  }
  for (const v1::NodeClaim& c : s.node_claims()) {
    if (c.status().node_name() != node) continue;
    if (c.metadata().has_deletion_timestamp()) {
      const absl::Time t = TimeOf(c.metadata().deletion_timestamp());
      start = start ? std::min(*start, t) : t;
    }
    if (!start || !c.spec().has_termination_grace_period()) return std::nullopt;
    absl::StatusOr<absl::Duration> tgp =
        ParseGoDuration(c.spec().termination_grace_period());
    if (!tgp.ok()) return std::nullopt;
    return *start + *tgp;
  }
  return std::nullopt;
}

const PodFacts* Checker::FindPod(const std::string& pod) const {
  auto it = pods_.find(pod);
  if (it != pods_.end()) return &it->second;
  it = current_pods_.find(pod);
  return it == current_pods_.end() ? nullptr : &it->second;
}

void Checker::CheckEvicted(absl::Time now, const std::string& pod,
                           const snapshot::Snapshot& s) {
  const PodFacts* f = FindPod(pod);
  if (f == nullptr || !f->do_not_disrupt) return;
  std::optional<absl::Time> deadline = DeadlineOf(s, f->node);
  if (deadline.has_value() && now >= *deadline) return;
  Fail(now, "do-not-disrupt",
       absl::StrCat("pod ", pod, " on ", f->node, " evicted; deadline ",
                    deadline ? Instant(*deadline) : std::string("none")));
}

void Checker::CheckForceDeleted(absl::Time now, const std::string& pod,
                                const snapshot::Snapshot& s) {
  const PodFacts* f = FindPod(pod);
  if (f == nullptr) return;
  std::optional<absl::Time> deadline = DeadlineOf(s, f->node);
  if (deadline.has_value() && now >= *deadline - f->grace) return;
  Fail(now, "pdb",
       absl::StrCat("pod ", pod, " on ", f->node,
                    " deleted without eviction before its deadline (",
                    deadline ? Instant(*deadline) : std::string("none"), ")"));
}

void Checker::ScanEvents(absl::Time now, const snapshot::Snapshot& s) {
  const std::vector<SimulationEvent>& events = sim_.timeline();
  for (; seen_events_ < events.size(); ++seen_events_) {
    const SimulationEvent& e = events[seen_events_];
    if (e.kind == "BudgetExceeded") {
      Fail(now, "budget", e.message);
    } else if (e.kind == "Evicted") {
      CheckEvicted(now, e.message, s);
    } else if (e.kind == "PodForceDeleted") {
      CheckForceDeleted(now, e.message, s);
    } else if (e.kind == "ScenarioChange") {
      if (absl::StartsWith(e.message, "termination protection on")) {
        protected_nodes_.insert(e.node);
      } else if (absl::StartsWith(e.message, "termination protection off")) {
        protected_nodes_.erase(e.node);
      } else if (absl::StartsWith(e.message, "cloud fault") ||
                 absl::StartsWith(e.message, "eviction fault") ||
                 absl::StartsWith(e.message, "stale reads") ||
                 absl::StartsWith(e.message, "controllers restarted")) {
        last_fault_ = now;
      }
    }
  }
}

void Checker::CheckFinalizers(absl::Time now, const snapshot::Snapshot& s,
                              const std::set<std::string>& instances) {
  std::map<std::string, std::string> nodes, claims;
  for (const v1::Node& n : s.nodes()) {
    nodes[n.metadata().name()] = n.spec().provider_id();
  }
  for (const v1::NodeClaim& c : s.node_claims()) {
    claims[c.metadata().name()] = c.status().provider_id();
  }
  auto check = [&](const std::map<std::string, std::string>& before,
                   const std::map<std::string, std::string>& after,
                   absl::string_view kind) {
    for (const auto& [name, pid] : before) {
      if (after.contains(name) || pid.empty() || !instances.contains(pid)) {
        continue;
      }
      Fail(now, "finalizer",
           absl::StrCat(kind, " ", name, " is gone but its instance ", pid,
                        " still exists"));
    }
  };
  check(nodes_, nodes, "Node");
  check(claims_, claims, "NodeClaim");
  nodes_ = std::move(nodes);
  claims_ = std::move(claims);
}

void Checker::CheckPdbViolations(absl::Time now) {
  const std::vector<testing::PdbViolation> v = sim_.cluster().PdbViolations();
  for (; seen_pdb_violations_ < v.size(); ++seen_pdb_violations_) {
    const testing::PdbViolation& p = v[seen_pdb_violations_];
    Fail(now, "pdb",
         absl::StrFormat("eviction of %s took PDB %s to %d healthy of %d "
                         "desired",
                         p.pod, p.pdb, p.current_healthy, p.desired_healthy));
  }
}

void Checker::CheckBound(absl::Time now, const snapshot::Snapshot& s) {
  const budget::PdbIndex pdbs = budget::PdbIndex::Build(s);
  // Nodes with a pod that blocks before the deadline.
  std::set<std::string> pod_blocked;
  for (snapshot::PodIndex p = 0; p < s.pod_count(); ++p) {
    std::optional<snapshot::NodeIndex> n = s.NodeOfPod(p);
    const v1::Pod& shape = s.PodShape(p);
    if (!n.has_value() || shape.metadata().has_deletion_timestamp()) continue;
    bool blocks =
        shape.metadata().annotations().contains(std::string(kDoNotDisrupt));
    for (snapshot::PdbIndex b : pdbs.PdbsOfPod(p)) {
      if (pdbs.pdbs()[b].disruptions_allowed <= 0) blocks = true;
    }
    if (blocks) pod_blocked.insert(s.nodes()[*n].metadata().name());
  }
  std::set<std::string> present;
  auto track = [&](const std::string& name, absl::Time since, bool blocked) {
    present.insert(name);
    auto [it, inserted] = deleting_.emplace(name, Deleting{since, since});
    if (blocked || now < last_fault_ + kTerminationBound) {
      it->second.last_blocked = now;
    }
    const absl::Time due =
        std::max(it->second.since, it->second.last_blocked) + kTerminationBound;
    if (now > due && !it->second.reported) {
      it->second.reported = true;
      Fail(now, "bound",
           absl::StrCat(name, " deleting since ", Instant(it->second.since),
                        ", unblocked since ", Instant(it->second.last_blocked),
                        ", still there after ",
                        absl::FormatDuration(kTerminationBound)));
    }
  };
  std::set<std::string> claimed_nodes;
  for (const v1::NodeClaim& c : s.node_claims()) {
    if (!c.status().node_name().empty() &&
        s.FindNode(c.status().node_name()).has_value()) {
      claimed_nodes.insert(c.status().node_name());
      continue;
    }
    if (c.metadata().has_deletion_timestamp()) {
      track(c.metadata().name(), TimeOf(c.metadata().deletion_timestamp()),
            false);
    }
  }
  for (const v1::Node& node : s.nodes()) {
    const std::string& name = node.metadata().name();
    std::optional<absl::Time> since;
    if (node.metadata().has_deletion_timestamp()) {
      since = TimeOf(node.metadata().deletion_timestamp());
    }
    for (const v1::NodeClaim& c : s.node_claims()) {
      if (c.status().node_name() == name &&
          c.metadata().has_deletion_timestamp()) {
        const absl::Time t = TimeOf(c.metadata().deletion_timestamp());
        since = since ? std::min(*since, t) : t;
      }
    }
    if (!since.has_value()) continue;
    if (std::optional<absl::Time> d = DeadlineOf(s, name))
      deadlines_[name] = *d;
    std::optional<absl::Time> deadline = DeadlineOf(s, name);
    const bool before_deadline = !deadline.has_value() || now < *deadline;
    const bool blocked = protected_nodes_.contains(name) ||
                         (before_deadline && pod_blocked.contains(name));
    track(name, *since, blocked);
  }
  for (auto it = deleting_.begin(); it != deleting_.end();) {
    it = present.contains(it->first) ? std::next(it) : deleting_.erase(it);
  }
}

bool Checker::PodEventsPending() const {
  const std::vector<SimulationEvent>& events = sim_.timeline();
  for (size_t i = seen_events_; i < events.size(); ++i) {
    if (events[i].kind == "Evicted" || events[i].kind == "PodForceDeleted") {
      return true;
    }
  }
  return false;
}

bool AnyDeleting(const snapshot::Snapshot& s) {
  for (const v1::Node& n : s.nodes()) {
    if (n.metadata().has_deletion_timestamp()) return true;
  }
  for (const v1::NodeClaim& c : s.node_claims()) {
    if (c.metadata().has_deletion_timestamp()) return true;
  }
  return false;
}

// Pods matter only around terminations (evictions and deletions happen on
// deleting nodes; blockers are counted for them): other steps read the
// cluster without pods, which costs a fraction.
void Checker::AfterStep(absl::Time now) {
  absl::StatusOr<snapshot::Snapshot> s = sim_.cluster().ReadWithoutPods();
  const bool pods =
      any_deleting_ || PodEventsPending() || (s.ok() && AnyDeleting(*s));
  if (pods) s = sim_.cluster().Read();
  if (!s.ok()) {
    Fail(now, "error", absl::StrCat("read: ", s.status().ToString()));
    return;
  }
  std::set<std::string> instances;
  for (const Instance& i : sim_.cloud().Instances()) {
    instances.insert(i.provider_id);
  }
  current_pods_ = pods ? PodsOf(*s) : std::map<std::string, PodFacts>();
  ScanEvents(now, *s);
  CheckFinalizers(now, *s, instances);
  CheckPdbViolations(now);
  CheckBound(now, *s);
  CheckPlacement(now);
  any_deleting_ = AnyDeleting(*s);
  pods_ = std::move(current_pods_);
  current_pods_.clear();
}

void Checker::CheckPlacement(absl::Time now) {
  const testing::PlacementCheck check = sim_.cluster().CheckPlacement();
  for (const std::string& pod : check.misplaced_pods) {
    Fail(now, "placement", absl::StrCat("pod ", pod));
  }
  for (const std::string& node : check.overcommitted_nodes) {
    Fail(now, "placement", absl::StrCat("node ", node));
  }
}

void Checker::AtEnd(absl::Time now) {
  for (const std::string& pid : sim_.Summary().leaked_instances) {
    Fail(now, "leak", absl::StrCat("instance ", pid, " has no NodeClaim"));
  }
  CheckPending(now);
}

void Checker::CheckPending(absl::Time now) {
  // Faults may keep a launch failing; give the provisioner the bound after
  // the last one.
  if (now < last_fault_ + kTerminationBound) return;
  absl::StatusOr<snapshot::Snapshot> s = sim_.cluster().Read();
  if (!s.ok()) return;
  InstanceTypeCatalog catalog;
  for (const v1::NodePool& pool : s->node_pools()) {
    absl::StatusOr<std::vector<InstanceType>> types =
        sim_.cloud().GetInstanceTypes(pool);
    if (types.ok()) catalog[pool.metadata().name()] = *std::move(types);
  }
  absl::StatusOr<v1::ProvisionReport> report =
      scheduling::Provision(*s, catalog, {.now = now});
  if (!report.ok()) return;
  std::set<std::string> placeable;
  for (const v1::ProvisionExisting& e : report->existing()) {
    placeable.insert(e.pods().begin(), e.pods().end());
  }
  for (const v1::ProvisionNodeClaim& c : report->node_claims()) {
    placeable.insert(c.pods().begin(), c.pods().end());
  }
  for (snapshot::PodIndex p = 0; p < s->pod_count(); ++p) {
    if (!s->PodIsUnbound(p) || !placeable.contains(s->PodKey(p))) continue;
    const v1::Pod pod = s->DecodePod(p);
    const v1::Condition* c =
        FindCondition(pod.status().conditions(), "PodScheduled");
    if (c == nullptr || !c->has_last_transition_time()) continue;
    const absl::Time since = TimeFromProto(c->last_transition_time());
    if (now - since < kTerminationBound) continue;
    Fail(now, "pending",
         absl::StrCat("pod ", s->PodKey(p), " pending since ",
                      FormatRfc3339(since), " though a node could hold it"));
  }
}

uint64_t Fnv1a(uint64_t h, absl::string_view text) {
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h ^ 0xff;
}

// One run of the seed; the trace is always kept (the caller may drop it).
SeedResult RunOnce(uint64_t seed, PlantedBug planted) {
  SeedResult result;
  result.seed = seed;
  const std::string yaml = RandomScenarioYaml(seed);
  absl::StatusOr<testing::LoadedScenario> loaded =
      testing::LoadScenario(yaml, absl::StrCat("seed-", seed));
  absl::StatusOr<std::unique_ptr<Simulation>> sim =
      loaded.ok()
          ? Simulation::Create(*std::move(loaded),
                               HarnessSimulationOptions(seed, planted))
          : absl::StatusOr<std::unique_ptr<Simulation>>(loaded.status());
  if (!sim.ok()) {
    result.violations.push_back(
        {absl::InfinitePast(), "error",
         absl::StrCat("create: ", sim.status().ToString())});
    return result;
  }
  Checker checker(**sim, result);
  const absl::Status run =
      (*sim)->Run(std::nullopt,
                  [&](absl::Time now, absl::Time) { checker.AfterStep(now); });
  if (!run.ok()) {
    result.violations.push_back(
        {(*sim)->now(), "error", absl::StrCat("run: ", run.ToString())});
  } else {
    checker.AtEnd((*sim)->now());
  }
  result.summary = (*sim)->Summary();
  result.steps = result.summary.steps;
  result.trace_hash = 0xcbf29ce484222325ULL;
  for (const SimulationEvent& e : (*sim)->timeline()) {
    result.trace.push_back(testing::EventLine(e));
    result.trace_hash = Fnv1a(result.trace_hash, result.trace.back());
  }
  result.events = static_cast<int64_t>(result.trace.size());
  return result;
}

}  // namespace

std::string PlantedBugName(PlantedBug bug) {
  switch (bug) {
    case PlantedBug::kNone:
      return "";
    case PlantedBug::kFinalizerBeforeInstanceGone:
      return "finalizer-before-instance-gone";
    case PlantedBug::kSkipInFlightBudgetCount:
      return "skip-in-flight-budget-count";
    case PlantedBug::kEvictDoNotDisrupt:
      return "evict-do-not-disrupt";
  }
  return "";
}

bool ParsePlantedBug(const std::string& name, PlantedBug& bug) {
  for (PlantedBug b :
       {PlantedBug::kNone, PlantedBug::kFinalizerBeforeInstanceGone,
        PlantedBug::kSkipInFlightBudgetCount, PlantedBug::kEvictDoNotDisrupt}) {
    if (PlantedBugName(b) == name) {
      bug = b;
      return true;
    }
  }
  return false;
}

testing::SimulationOptions HarnessSimulationOptions(uint64_t seed,
                                                    PlantedBug planted) {
  testing::SimulationOptions o;
  // The fakes' latencies vary too, from their own stream: a fixed 10 s
  // instance termination would always end within one step, hiding what
  // happens while an instance shuts down.
  Rng timing(seed ^ 0x7f4a7c159e3779b9ULL);
  o.cloud.launch_latency = absl::Seconds(timing.Uniform(10, 90));
  o.cloud.termination_latency = absl::Seconds(timing.Uniform(5, 120));
  o.cluster.recreate_delay = absl::Seconds(timing.Uniform(1, 10));
  o.cluster.ready_delay = absl::Seconds(timing.Uniform(2, 30));
  o.min_step = absl::Seconds(10);
  o.skip_inapplicable_changes = true;
  o.executor.decide.for_test.finalizer_before_instance_gone =
      planted == PlantedBug::kFinalizerBeforeInstanceGone;
  o.runner.controller.for_test.skip_in_flight_budget_count =
      planted == PlantedBug::kSkipInFlightBudgetCount;
  o.executor.drainer.for_test.evict_do_not_disrupt =
      planted == PlantedBug::kEvictDoNotDisrupt;
  return o;
}

SeedResult RunSeed(uint64_t seed, const HarnessOptions& options) {
  SeedResult result = RunOnce(seed, options.planted);
  if (options.check_determinism) {
    const SeedResult again = RunOnce(seed, options.planted);
    if (again.trace != result.trace) {
      size_t i = 0;
      while (i < result.trace.size() && i < again.trace.size() &&
             result.trace[i] == again.trace[i]) {
        ++i;
      }
      auto at = [](const std::vector<std::string>& t, size_t i) {
        return i < t.size() ? t[i] : std::string("(end)");
      };
      result.violations.push_back(
          {absl::InfinitePast(), "determinism",
           absl::StrFormat("event %d differs: \"%s\" then \"%s\"", i,
                           at(result.trace, i), at(again.trace, i))});
    }
  }
  if (!options.keep_trace) result.trace.clear();
  return result;
}

std::string ReproCommand(uint64_t seed, PlantedBug planted) {
  std::string cmd = absl::StrCat("build/tests/karpenter_sim --seed ", seed);
  if (planted != PlantedBug::kNone) {
    absl::StrAppend(&cmd, " --plant ", PlantedBugName(planted));
  }
  return absl::StrCat(cmd, " --trace");
}

std::string FormatViolations(const SeedResult& result) {
  std::string out;
  for (const Violation& v : result.violations) {
    absl::StrAppend(
        &out, "seed ", result.seed, ": ",
        v.at == absl::InfinitePast() ? std::string("-") : Instant(v.at), " ",
        v.invariant, ": ", v.detail, "\n");
  }
  return out;
}

}  // namespace karpenter::sim
