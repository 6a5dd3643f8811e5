// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/testing/simulation.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "karpenter/budget/allowed.h"
#include "karpenter/catalog.h"
#include "karpenter/conditions.h"
#include "karpenter/disruption/orchestrator.h"
#include "karpenter/disruption/scheduler.h"
#include "karpenter/duration.h"
#include "karpenter/scheduling/provision.h"
#include "karpenter/testing/fake_clock.h"
#include "karpenter/testing/forwarding_cluster_view.h"
#include "karpenter/testing/recorders.h"
#include "karpenter/time_util.h"
#include "karpenter/well_known.h"

namespace karpenter::testing {
namespace {

constexpr absl::Duration kReclaimDelay = absl::Minutes(2);

std::string StatusText(const absl::Status& s) {
  return absl::StrCat(absl::StatusCodeToString(s.code()), ": ", s.message());
}

bool Tainted(const v1::Node& node) {
  for (const v1::Taint& t : node.spec().taints()) {
    if (t.key() == well_known::kDisruptedTaintKey) return true;
  }
  return false;
}

std::string LabelOf(const v1::ObjectMeta& m, absl::string_view key) {
  auto it = m.labels().find(std::string(key));
  return it == m.labels().end() ? "" : it->second;
}

// Records what the cores do that a snapshot cannot show: taints placed
// (which command started), pods force-deleted.
class ObservedView final : public ForwardingClusterView {
 public:
  explicit ObservedView(FakeCluster& inner)
      : ForwardingClusterView(inner), inner_(inner) {}

  absl::StatusOr<snapshot::Snapshot> Read() override {
    if (stale_reads > 0 && stale.has_value()) {
      --stale_reads;
      return snapshot::Snapshot::Build(*stale);
    }
    return inner_.Read();
  }
  absl::Status TaintNode(absl::string_view node,
                         const v1::Taint& taint) override {
    absl::Status s = inner_.TaintNode(node, taint);
    if (s.ok() && taint.key() == well_known::kDisruptedTaintKey) {
      tainted.emplace_back(node);
    }
    return s;
  }
  absl::Status DeletePod(const PodRef& pod, absl::Duration grace) override {
    absl::Status s = inner_.DeletePod(pod, grace);
    if (s.ok()) force_deleted.push_back(pod);
    return s;
  }

  std::vector<std::string> tainted;
  std::vector<PodRef> force_deleted;
  // A StaleReads change: the next `stale_reads` reads serve `stale`.
  std::optional<snapshot::ObjectSet> stale;
  int stale_reads = 0;

 private:
  FakeCluster& inner_;
};

// Records every eviction answer.
class ObservedEvictions final : public EvictionClient {
 public:
  explicit ObservedEvictions(FakeCluster& inner) : inner_(inner) {}
  EvictionResponse Evict(const PodRef& pod) override {
    EvictionResponse r = inner_.Evict(pod);
    answers.emplace_back(pod, r);
    return r;
  }
  std::vector<std::pair<PodRef, EvictionResponse>> answers;

 private:
  FakeCluster& inner_;
};

// Records failed cloud calls (NotFound is an answer, not a failure),
// reporting a repeated failure once until the same call succeeds.
class ObservedCloud final : public CloudProvider {
 public:
  explicit ObservedCloud(FakeCloudProvider& inner) : inner_(inner) {}

  absl::StatusOr<Instance> Create(const v1::NodeClaim& node_claim) override {
    auto r = inner_.Create(node_claim);
    Note("Create", node_claim.metadata().name(), r.status());
    return r;
  }
  absl::Status Delete(absl::string_view provider_id) override {
    absl::Status s = inner_.Delete(provider_id);
    Note("Delete", provider_id, s);
    return s;
  }
  absl::StatusOr<Instance> Get(absl::string_view provider_id) override {
    auto r = inner_.Get(provider_id);
    Note("Get", provider_id, r.status());
    return r;
  }
  absl::StatusOr<std::vector<Instance>> List() override {
    auto r = inner_.List();
    Note("List", "", r.status());
    return r;
  }
  absl::StatusOr<std::optional<std::string>> IsDrifted(
      const v1::NodeClaim& node_claim) override {
    auto r = inner_.IsDrifted(node_claim);
    Note("IsDrifted", node_claim.metadata().name(), r.status());
    return r;
  }
  absl::StatusOr<std::vector<InstanceType>> GetInstanceTypes(
      const v1::NodePool& node_pool) override {
    auto r = inner_.GetInstanceTypes(node_pool);
    Note("GetInstanceTypes", node_pool.metadata().name(), r.status());
    return r;
  }
  std::vector<RepairPolicy> RepairPolicies() override {
    return inner_.RepairPolicies();
  }

  struct Failure {
    std::string method, target;
    absl::Status status;
  };
  std::vector<Failure> failures;

 private:
  void Note(absl::string_view method, absl::string_view target,
            const absl::Status& s) {
    const std::string key = absl::StrCat(method, " ", target);
    if (s.ok() || absl::IsNotFound(s)) {
      active_.erase(key);
      return;
    }
    const std::string text = StatusText(s);
    auto [it, inserted] = active_.emplace(key, text);
    if (!inserted && it->second == text) return;
    it->second = text;
    failures.push_back({std::string(method), std::string(target), s});
  }

  FakeCloudProvider& inner_;
  std::map<std::string, std::string> active_;
};

// What an observation reads of a Node and of a NodeClaim. `object` is the
// object it was read from (held by the World's last snapshot until the
// next observation, so an object at the same address is the same object),
// and `seen` the observation that last found it; neither is compared.
struct NodeObs {
  std::string pool;
  std::string provider_id;
  bool tainted = false;
  bool deleting = false;
  const v1::Node* object = nullptr;
  int64_t seen = 0;

  bool SameAs(const NodeObs& o) const {
    return std::tie(pool, provider_id, tainted, deleting) ==
           std::tie(o.pool, o.provider_id, o.tainted, o.deleting);
  }
};

struct ClaimObs {
  std::string pool;
  std::string node_name;
  std::string provider_id;
  std::string reason;  // DisruptionReason condition's reason, if any.
  bool deleting = false;
  bool initialized = false;
  bool instance_terminating = false;
  const v1::NodeClaim* object = nullptr;
  int64_t seen = 0;

  bool SameAs(const ClaimObs& o) const {
    return std::tie(pool, node_name, provider_id, reason, deleting, initialized,
                    instance_terminating) ==
           std::tie(o.pool, o.node_name, o.provider_id, o.reason, o.deleting,
                    o.initialized, o.instance_terminating);
  }
};

NodeObs ObserveNode(const v1::Node& n, int64_t seen) {
  NodeObs o;
  o.pool = LabelOf(n.metadata(), well_known::kNodePoolLabelKey);
  o.provider_id = n.spec().provider_id();
  o.tainted = Tainted(n);
  o.deleting = n.metadata().has_deletion_timestamp();
  o.object = &n;
  o.seen = seen;
  return o;
}

ClaimObs ObserveClaim(const v1::NodeClaim& c, int64_t seen) {
  ClaimObs o;
  o.pool = LabelOf(c.metadata(), well_known::kNodePoolLabelKey);
  o.node_name = c.status().node_name();
  o.provider_id = c.status().provider_id();
  if (const v1::Condition* r = FindCondition(
          c.status().conditions(), well_known::kConditionTypeDisruptionReason);
      IsConditionTrue(r)) {
    o.reason = r->reason();
  }
  o.deleting = c.metadata().has_deletion_timestamp();
  o.initialized = IsConditionTrue(c.status().conditions(),
                                  well_known::kConditionTypeInitialized);
  o.instance_terminating = IsConditionTrue(
      c.status().conditions(), well_known::kConditionTypeInstanceTerminating);
  o.object = &c;
  o.seen = seen;
  return o;
}

// An observation's reading of the objects of one kind against the last
// one's (`known`, by name): the objects new or changed since (by object
// identity), in name order, with their last reading (null when new), and
// the names gone, in name order. `known` is updated to the new readings;
// the gone stay in it for the caller to erase.
template <typename Obs>
struct Changes {
  std::vector<std::pair<std::string, std::optional<Obs>>> changed;
  std::vector<std::string> gone;
  bool any = false;  // Some reading differs (or is new, or gone).
};

template <typename Obs, typename T, typename Read>
Changes<Obs> Reobserve(snapshot::ObjectList<T> objects,
                       std::map<std::string, Obs>& known, int64_t seen,
                       Read read) {
  Changes<Obs> out;
  for (const T& object : objects) {
    const std::string& name = object.metadata().name();
    auto it = known.find(name);
    if (it != known.end() && it->second.object == &object) {
      it->second.seen = seen;
      continue;
    }
    Obs now = read(object, seen);
    if (it == known.end()) {
      out.any = true;
      out.changed.emplace_back(name, std::nullopt);
      known.emplace(name, std::move(now));
      continue;
    }
    if (!it->second.SameAs(now)) out.any = true;
    out.changed.emplace_back(name, std::move(it->second));
    it->second = std::move(now);
  }
  std::sort(out.changed.begin(), out.changed.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [name, o] : known) {
    if (o.seen != seen) out.gone.push_back(name);
  }
  if (!out.gone.empty()) out.any = true;
  return out;
}

struct PendingChange {
  absl::Time at;
  int index = 0;
};

struct Reclaim {
  absl::Time at;
  std::string provider_id;
  std::string node;
};

std::optional<budget::DisruptionReason> BudgetReasonNamed(
    absl::string_view reason) {
  for (budget::DisruptionReason r : budget::kAllDisruptionReasons) {
    if (budget::DisruptionReasonName(r) == reason) return r;
  }
  return std::nullopt;
}

// What `m` allows NodePool `pool` for the budget reason named `why`
// (Drifted for a name that is none).
int64_t AllowedForReason(const budget::BudgetMapping& m,
                         const std::string& pool, const std::string& why) {
  const budget::NodePoolBudget* found = m.Find(pool);
  if (found == nullptr) return 0;
  const budget::DisruptionReason reason =
      BudgetReasonNamed(why).value_or(budget::DisruptionReason::kDrifted);
  return found->by_reason[static_cast<size_t>(reason)].allowed;
}

absl::Status CheckOptions(const SimulationOptions& o) {
  if (o.poll_interval <= absl::ZeroDuration() ||
      o.poll_interval == absl::InfiniteDuration()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "poll_interval: must be positive and finite, got \"%s\"",
        FormatGoDuration(o.poll_interval)));
  }
  if (o.min_step < absl::Seconds(1) || o.min_step == absl::InfiniteDuration()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("min_step: must be at least 1s and finite, got \"%s\"",
                        FormatGoDuration(o.min_step)));
  }
  if (o.max_step < o.min_step || o.max_step == absl::InfiniteDuration()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "max_step: must be at least min_step and finite, got \"%s\"",
        FormatGoDuration(o.max_step)));
  }
  return absl::OkStatus();
}

std::vector<InstanceType> Catalogue(const v1::ScenarioSpec& spec) {
  std::vector<InstanceType> out;
  for (const v1::InstanceTypeSpec& t : spec.instance_types()) {
    out.push_back(InstanceTypeFromSpec(t));
  }
  return out;
}

}  // namespace

disruption::RunnerOptions SimulationOptions::DefaultRunnerOptions() {
  disruption::RunnerOptions o;
  o.orchestrator.rollout = disruption::Rollout::kBudget;
  // Karpenter's drift pacing: one command per pass, each simulated with the
  // pods of the nodes earlier commands are draining.
  o.controller.methods.one_drift_command_per_pass = true;
  return o;
}

FakeClusterOptions SimulationOptions::DefaultClusterOptions() {
  FakeClusterOptions o;
  o.placement = FakeClusterOptions::Placement::kKubeScheduler;
  o.record_call_log = false;
  return o;
}

FakeCloudProviderOptions SimulationOptions::DefaultCloudOptions() {
  FakeCloudProviderOptions o;
  o.record_call_log = false;
  return o;
}

class Simulation::World {
 public:
  World(LoadedScenario scenario, SimulationOptions options)
      : scenario_(std::move(scenario.scenario)),
        options_(std::move(options)),
        clock_(ScenarioStart(scenario_)),
        start_(clock_.Now()) {}

  absl::Status Build(snapshot::ObjectSet cluster);
  absl::Status Run(absl::Time end,
                   const std::function<void(absl::Time, absl::Time)>& progress);
  SimulationSummary Summary() const;

  const v1::Scenario scenario_;
  SimulationOptions options_;
  FakeClock clock_;
  const absl::Time start_;
  std::unique_ptr<FakeCluster> cluster_;
  std::unique_ptr<FakeCloudProvider> cloud_;
  std::unique_ptr<ObservedView> view_;
  std::unique_ptr<ObservedEvictions> evictions_;
  std::unique_ptr<ObservedCloud> observed_cloud_;
  std::unique_ptr<FakeNodeLifecycle> lifecycle_;
  RecordingEventRecorder events_;
  InMemoryMetrics metrics_;
  std::unique_ptr<termination::Executor> executor_;
  std::unique_ptr<disruption::Runner> runner_;

  std::vector<SimulationEvent> timeline_;
  std::vector<NodeStateSample> samples_;
  SimulationSummary summary_;

 private:
  absl::Status Step(absl::Time now);
  absl::Status ApplyChanges(absl::Time now, bool& applied);
  absl::Status ApplyChange(const v1::ScenarioChange& c, absl::Time now);
  absl::Status FinishJob(const v1::FinishJob& job, absl::Time now);
  void ApplyReclaims(absl::Time now);
  absl::Status RunDisruption(absl::Time now);
  absl::Status CreateControllers();
  absl::Status RunTermination(absl::Time now);
  absl::Status RunLifecycle(absl::Time now);
  // Karpenter's provisioner (pkg/controllers/provisioning): batches the
  // pods kube-scheduler left Unschedulable (1 s idle, 10 s at most), then
  // launches the NodeClaims its scheduler asks for (Scheduler::Provision)
  // and nominates the pods to them until their nodes are Ready.
  absl::Status RunProvisioner(absl::Time now);
  absl::Status Observe(absl::Time now);
  void ObserveCalls(absl::Time now);
  void ObserveNodes(const snapshot::Snapshot& s, absl::Time now);
  void ObserveBudgets(const snapshot::Snapshot& s, absl::Time now);
  void CheckBudgetsPerReason(absl::Time now,
                             const budget::BudgetMapping& before,
                             const std::set<std::string>& disrupting_nodes,
                             const std::map<std::string, std::string>& marked);
  void Sample(absl::Time now);
  absl::Time NextTime(absl::Time now, absl::Time end) const;
  std::optional<std::string> ProviderIdOfNode(absl::string_view node) const;
  // The first claim (by name) whose status.nodeName is `node`, else the
  // claim named `node`, else nullopt.
  std::optional<std::string> ClaimOfNode(absl::string_view node) const;
  // status.nodeName -> the first claim (by name) naming it, as of claims_.
  absl::flat_hash_map<std::string, std::string> claim_of_node_;
  // The last ProvisioningFailed text, while the provisioner keeps failing
  // for the same reason.
  std::string last_provisioning_failure_;
  void Emit(absl::Time at, absl::string_view node, absl::string_view kind,
            std::string message) {
    timeline_.push_back(
        {at, std::string(node), std::string(kind), std::move(message)});
  }

  std::vector<PendingChange> changes_;  // by time, then index
  size_t next_change_ = 0;
  std::vector<Reclaim> reclaims_;
  // Commands waiting for their 15 s validation, as planned.
  std::vector<disruption::Command> waiting_;
  absl::Time runner_wake_ = absl::InfinitePast();
  absl::Time executor_wake_ = absl::InfinitePast();
  std::optional<absl::Time> lifecycle_wake_;
  // Bumped whenever an observation finds a Node or NodeClaim changed (or a
  // scenario change applied); a core that saw the current version and
  // whose own wake has not come has nothing new to react to.
  int64_t version_ = 0;
  int64_t runner_seen_ = -1;
  int64_t executor_seen_ = -1;
  int64_t lifecycle_seen_ = -1;
  // The fakes' next transition as of the end of the last round.
  absl::Time cluster_event_ = absl::InfiniteFuture();
  absl::Time cloud_event_ = absl::InfiniteFuture();
  // The last observation.
  std::optional<snapshot::Snapshot> last_;
  // The last observation's snapshot once Step has read a newer last_: the
  // objects nodes_ and claims_ name stay alive.
  std::optional<snapshot::Snapshot> observed_;
  std::map<std::string, NodeObs> nodes_;
  std::map<std::string, ClaimObs> claims_;
  int64_t observations_ = 0;            // ObserveNodes calls.
  std::vector<std::string> instances_;  // Provider IDs, sorted.
  std::map<std::string, std::string> node_of_provider_id_;
  std::map<std::string, absl::Time> disrupting_since_;
  // Budgets before the step's decisions, and the nodes marked in it.
  std::optional<budget::BudgetMapping> budgets_before_;
  // The nodes ObserveBudgets counted as disrupting after the last step.
  std::set<std::string> disrupting_nodes_;
  std::map<std::string, NodePoolPeak> peaks_;
  // The provisioner's batch: when it opened and when a pod last joined it,
  // the pods in it, and the pods nominated to launched NodeClaims (pod key
  // -> NodeClaim name).
  std::optional<absl::Time> batch_start_;
  absl::Time batch_last_;
  std::set<std::string> batch_pods_;
  std::map<std::string, std::string> nominated_;
  absl::Time provisioner_wake_ = absl::InfiniteFuture();
  int64_t provisioned_ = 0;
};

absl::Status Simulation::World::Build(snapshot::ObjectSet cluster) {
  KARPENTER_RETURN_IF_ERROR(CheckOptions(options_));
  const v1::ScenarioSpec& spec = scenario_.spec();
  options_.runner.controller.poll_interval = options_.poll_interval;
  options_.cloud.default_image_id =
      spec.image().empty() ? std::string(kDefaultImage) : spec.image();
  KARPENTER_ASSIGN_OR_RETURN(
      cluster_, FakeCluster::Create(cluster, clock_, options_.cluster));
  KARPENTER_ASSIGN_OR_RETURN(cloud_,
                             FakeCloudProvider::Create(clock_, options_.cloud));
  if (!spec.instance_types().empty()) cloud_->SetInstanceTypes(Catalogue(spec));
  for (const v1::NodeClaim& c : cluster.node_claims) {
    if (c.status().provider_id().empty()) continue;
    Instance inst;
    inst.provider_id = c.status().provider_id();
    inst.created = TimeFromProto(c.metadata().creation_timestamp());
    const v1::ObjectMeta& m = c.metadata();
    inst.instance_type = LabelOf(m, well_known::kLabelInstanceTypeStable);
    inst.zone = LabelOf(m, well_known::kLabelTopologyZone);
    inst.capacity_type = LabelOf(m, well_known::kCapacityTypeLabelKey);
    inst.image_id = c.status().image_id().empty()
                        ? options_.cloud.default_image_id
                        : c.status().image_id();
    inst.tags[std::string(well_known::kNodeClaimTagKey)] = m.name();
    if (std::string pool = LabelOf(m, well_known::kNodePoolLabelKey);
        !pool.empty()) {
      inst.tags[std::string(well_known::kNodePoolLabelKey)] = pool;
    }
    KARPENTER_RETURN_IF_ERROR(cloud_->AddInstance(std::move(inst)));
  }
  view_ = std::make_unique<ObservedView>(*cluster_);
  evictions_ = std::make_unique<ObservedEvictions>(*cluster_);
  observed_cloud_ = std::make_unique<ObservedCloud>(*cloud_);
  KARPENTER_ASSIGN_OR_RETURN(
      lifecycle_, FakeNodeLifecycle::Create(*cluster_, *cloud_, clock_,
                                            options_.lifecycle));
  KARPENTER_RETURN_IF_ERROR(CreateControllers());
  KARPENTER_RETURN_IF_ERROR(Observe(clock_.Now()));
  for (int i = 0; i < spec.termination_protection_size(); ++i) {
    const std::string& node = spec.termination_protection(i);
    std::optional<std::string> pid = ProviderIdOfNode(node);
    if (!pid.has_value()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "spec.terminationProtection[%d]: no instance for node \"%s\"", i,
          node));
    }
    KARPENTER_RETURN_IF_ERROR(cloud_->SetTerminationProtection(*pid, true));
  }
  for (int i = 0; i < spec.changes_size(); ++i) {
    changes_.push_back({start_ + *ParseGoDuration(spec.changes(i).at()), i});
  }
  std::stable_sort(changes_.begin(), changes_.end(),
                   [](const PendingChange& a, const PendingChange& b) {
                     return a.at < b.at;
                   });
  summary_.start = start_;
  return absl::OkStatus();
}

// Also a restart: the new cores start with nothing in memory and run at
// once, as a restarted host's controllers do.
absl::Status Simulation::World::CreateControllers() {
  KARPENTER_ASSIGN_OR_RETURN(
      executor_, termination::Executor::Create(
                     *view_, *evictions_, *observed_cloud_, events_, metrics_,
                     clock_, options_.executor));
  KARPENTER_ASSIGN_OR_RETURN(
      runner_, disruption::Runner::Create(*view_, *observed_cloud_, events_,
                                          metrics_, clock_, options_.runner));
  waiting_.clear();
  runner_wake_ = absl::InfinitePast();
  executor_wake_ = absl::InfinitePast();
  runner_seen_ = -1;
  executor_seen_ = -1;
  return absl::OkStatus();
}

std::optional<std::string> Simulation::World::ProviderIdOfNode(
    absl::string_view node) const {
  auto it = nodes_.find(std::string(node));
  if (it != nodes_.end() && !it->second.provider_id.empty()) {
    return it->second.provider_id;
  }
  if (std::optional<std::string> claim = ClaimOfNode(node)) {
    const std::string& pid = claims_.at(*claim).provider_id;
    if (!pid.empty()) return pid;
  }
  return std::nullopt;
}

std::optional<std::string> Simulation::World::ClaimOfNode(
    absl::string_view node) const {
  if (auto it = claim_of_node_.find(node); it != claim_of_node_.end()) {
    return it->second;
  }
  if (claims_.count(std::string(node))) return std::string(node);
  return std::nullopt;
}

absl::Status Simulation::World::ApplyChange(const v1::ScenarioChange& c,
                                            absl::Time now) {
  switch (c.change_case()) {
    case v1::ScenarioChange::kNodePool: {
      Emit(now, "", "ScenarioChange",
           absl::StrCat("NodePool ", c.node_pool().metadata().name(),
                        " replaced"));
      // The hash controller stamps the new template's hash at once.
      v1::NodePool pool = c.node_pool();
      KARPENTER_RETURN_IF_ERROR(StampNodePoolHash(pool));
      return cluster_->ApplyNodePool(pool);
    }
    case v1::ScenarioChange::kDeleteNode:
      Emit(now, c.delete_node(), "ScenarioChange", "kubectl delete node");
      return cluster_->DeleteNode(c.delete_node());
    case v1::ScenarioChange::kSpotInterruption: {
      const std::string& node = c.spot_interruption().node();
      std::optional<std::string> claim = ClaimOfNode(node);
      std::optional<std::string> pid = ProviderIdOfNode(node);
      if (!claim || !pid) {
        return absl::NotFoundError(absl::StrFormat(
            "spot interruption: no NodeClaim for node \"%s\"", node));
      }
      Emit(now, node, "ScenarioChange",
           "spot interruption notice; NodeClaim deleted, instance reclaimed "
           "in 2m");
      reclaims_.push_back({now + kReclaimDelay, *pid, node});
      return cluster_->DeleteNodeClaim(*claim);
    }
    case v1::ScenarioChange::kDriftNodePool: {
      const std::string& pool = c.drift_node_pool().node_pool();
      const std::string reason = c.drift_node_pool().reason().empty()
                                     ? std::string(kDefaultDriftReason)
                                     : c.drift_node_pool().reason();
      int n = 0;
      for (const auto& [name, claim] : claims_) {
        if (claim.pool != pool || claim.provider_id.empty() ||
            !cloud_->Exists(claim.provider_id)) {
          continue;
        }
        KARPENTER_RETURN_IF_ERROR(
            cloud_->SetDrifted(claim.provider_id, reason));
        ++n;
      }
      Emit(now, "", "ScenarioChange",
           absl::StrFormat("NodePool %s drifted (%s): %d instances", pool,
                           reason, n));
      return absl::OkStatus();
    }
    case v1::ScenarioChange::kCloudFault: {
      const v1::CloudFault& f = c.cloud_fault();
      Emit(now, "", "ScenarioChange",
           absl::StrFormat("cloud fault: next %d %s calls fail with %s %s",
                           f.times(), f.method(), f.code(), f.message()));
      return cloud_->FailNext(
          *ParseCloudMethodName(f.method()),
          absl::Status(*ParseStatusCodeName(f.code()), f.message()), f.times());
    }
    case v1::ScenarioChange::kEvictionFault: {
      const v1::EvictionFault& f = c.eviction_fault();
      EvictionResponse r;
      r.http_status = f.http_status();
      r.message =
          f.http_status() == 429
              ? "Cannot evict pod as it would violate the pod's "
                "disruption budget."
              : absl::StrCat("injected fault (HTTP ", f.http_status(), ")");
      r.result = ClassifyEvictionStatus(r.http_status, r.message);
      Emit(now, "", "ScenarioChange",
           absl::StrFormat("eviction fault: next %d evictions answer %d",
                           f.times(), f.http_status()));
      return cluster_->InjectEvictionFailures(f.times(), r);
    }
    case v1::ScenarioChange::kTerminationProtection: {
      const auto& t = c.termination_protection();
      std::optional<std::string> pid = ProviderIdOfNode(t.node());
      if (!pid) {
        return absl::NotFoundError(
            absl::StrFormat("no instance for node \"%s\"", t.node()));
      }
      Emit(now, t.node(), "ScenarioChange",
           absl::StrCat("termination protection ", t.enabled() ? "on" : "off"));
      return cloud_->SetTerminationProtection(*pid, t.enabled());
    }
    case v1::ScenarioChange::kFinishJob:
      return FinishJob(c.finish_job(), now);
    case v1::ScenarioChange::kNodeReadiness: {
      const auto& r = c.node_readiness();
      Emit(now, r.node(), "ScenarioChange",
           r.ready() ? "node Ready" : "node NotReady");
      return cluster_->SetNodeReady(r.node(), r.ready());
    }
    case v1::ScenarioChange::kRestartControllers:
      Emit(now, "", "ScenarioChange",
           "controllers restarted: in-memory state dropped");
      return CreateControllers();
    case v1::ScenarioChange::kStaleReads:
      Emit(now, "", "ScenarioChange",
           absl::StrFormat("stale reads: the next %d controller reads see "
                           "the cluster as of now",
                           c.stale_reads().reads()));
      view_->stale = cluster_->ExportObjects();
      view_->stale_reads = c.stale_reads().reads();
      return absl::OkStatus();
    case v1::ScenarioChange::CHANGE_NOT_SET:
      break;
  }
  return absl::OkStatus();
}

absl::Status Simulation::World::FinishJob(const v1::FinishJob& job,
                                          absl::Time now) {
  const std::string ns =
      job.namespace_().empty() ? "default" : job.namespace_();
  KARPENTER_ASSIGN_OR_RETURN(snapshot::Snapshot s, cluster_->Read());
  std::vector<PodRef> pods;
  for (snapshot::PodIndex p = 0; p < s.pod_count(); ++p) {
    const v1::Pod& shape = s.PodShape(p);
    auto app = shape.metadata().labels().find("app");
    if (shape.metadata().namespace_() != ns ||
        app == shape.metadata().labels().end() || app->second != job.name() ||
        shape.metadata().has_deletion_timestamp()) {
      continue;
    }
    const v1::Pod pod = s.DecodePod(p);
    pods.push_back({ns, pod.metadata().name(), pod.metadata().uid()});
  }
  Emit(now, "", "ScenarioChange",
       absl::StrFormat("job %s/%s finished: %d pods", ns, job.name(),
                       pods.size()));
  for (const PodRef& pod : pods) {
    KARPENTER_RETURN_IF_ERROR(cluster_->SucceedPod(pod));
  }
  return absl::OkStatus();
}

absl::Status Simulation::World::ApplyChanges(absl::Time now, bool& applied) {
  while (next_change_ < changes_.size() && changes_[next_change_].at <= now) {
    const int i = changes_[next_change_++].index;
    applied = true;
    absl::Status s = ApplyChange(scenario_.spec().changes(i), now);
    if (absl::IsNotFound(s) && options_.skip_inapplicable_changes) {
      Emit(now, "", "ScenarioChangeSkipped",
           absl::StrCat("spec.changes[", i, "]: ", s.message()));
      continue;
    }
    if (!s.ok()) {
      return absl::Status(
          s.code(),
          absl::StrCat("scenario change spec.changes[", i, "]: ", s.message()));
    }
  }
  return absl::OkStatus();
}

void Simulation::World::ApplyReclaims(absl::Time now) {
  std::vector<Reclaim> later;
  for (Reclaim& r : reclaims_) {
    if (r.at > now) {
      later.push_back(std::move(r));
      continue;
    }
    if (cloud_->Exists(r.provider_id) && cloud_->Vanish(r.provider_id).ok()) {
      Emit(now, r.node, "InstanceReclaimed", r.provider_id);
    }
  }
  reclaims_ = std::move(later);
}

absl::Status Simulation::World::RunDisruption(absl::Time now) {
  const std::set<std::string, std::less<>> before =
      runner_->orchestrator().InFlightProviderIds();
  view_->tainted.clear();
  absl::StatusOr<disruption::RunReport> r = runner_->RunOnce();
  if (!r.ok()) {
    return absl::Status(r.status().code(), absl::StrCat("disruption runner: ",
                                                        r.status().message()));
  }
  runner_wake_ = r->next_wake;
  const std::set<std::string> tainted(view_->tainted.begin(),
                                      view_->tainted.end());
  std::vector<disruption::Command> candidates;
  std::vector<disruption::Command> still_waiting;
  for (disruption::Command& c : waiting_) {
    (c.validate_at.value_or(now) <= now ? candidates : still_waiting)
        .push_back(std::move(c));
  }
  waiting_ = std::move(still_waiting);
  for (const disruption::Command& c : r->plan.commands) {
    if (c.validate_at.has_value()) {
      waiting_.push_back(c);
    } else {
      candidates.push_back(c);
    }
  }
  for (const disruption::Command& c : candidates) {
    if (c.candidates.empty()) continue;
    const disruption::Candidate& first = c.candidates.front();
    const bool started =
        tainted.count(first.node_name) > 0 ||
        (!before.contains(first.provider_id) &&
         runner_->orchestrator().InFlightProviderIds().contains(
             first.provider_id));
    if (!started) continue;
    std::vector<std::string> names;
    for (const disruption::Candidate& cand : c.candidates) {
      names.push_back(cand.node_name.empty() ? cand.node_claim_name
                                             : cand.node_name);
    }
    Emit(now, names.front(), "CommandStarted",
         absl::StrFormat("%s: %d candidate(s) [%s], %d replacement(s); %s",
                         disruption::MethodName(c.method), c.candidates.size(),
                         absl::StrJoin(names, " "), c.replacements.size(),
                         c.explanation));
    (c.replacements.empty() ? summary_.nodes_deleted
                            : summary_.nodes_replaced) +=
        static_cast<int64_t>(c.candidates.size());
  }
  for (const std::string& why : r->rejected) {
    Emit(now, "", "CommandRejected", why);
  }
  for (const std::string& e : r->errors) Emit(now, "", "RunnerError", e);
  return absl::OkStatus();
}

absl::Status Simulation::World::RunTermination(absl::Time now) {
  for (int i = 0; i < kMaxExecutorRepeats; ++i) {
    absl::StatusOr<termination::PassReport> p = executor_->RunOnce();
    if (!p.ok()) {
      return absl::Status(
          p.status().code(),
          absl::StrCat("termination executor: ", p.status().message()));
    }
    executor_wake_ = p->next_wake;
    if (p->mutations == 0) break;
  }
  (void)now;
  return absl::OkStatus();
}

absl::Status Simulation::World::RunLifecycle(absl::Time now) {
  absl::StatusOr<LifecycleReport> l = lifecycle_->Reconcile();
  if (!l.ok()) {
    // A scripted cloud fault may strike the lifecycle's Get; the next round
    // retries, as the real controller would.
    Emit(now, "", "CloudError",
         absl::StrCat("node lifecycle: ", StatusText(l.status())));
    lifecycle_wake_ = now + absl::Seconds(1);
    return absl::OkStatus();
  }
  lifecycle_wake_ = l->next_wake;
  for (const std::string& n : l->launched) Emit(now, n, "NodeLaunched", "");
  for (const std::string& n : l->registered) Emit(now, n, "NodeRegistered", "");
  for (const std::string& n : l->initialized) {
    Emit(now, n, "NodeInitialized", "");
    ++summary_.nodes_launched;
  }
  return absl::OkStatus();
}

absl::Status Simulation::World::RunProvisioner(absl::Time now) {
  provisioner_wake_ = absl::InfiniteFuture();
  if (!cluster_->HasUnschedulablePods()) {
    batch_start_.reset();
    batch_pods_.clear();
    nominated_.clear();
    return absl::OkStatus();
  }
  KARPENTER_ASSIGN_OR_RETURN(snapshot::Snapshot s, cluster_->Read());
  // A nomination lasts while its NodeClaim exists and has no Ready node.
  std::set<std::string> in_flight;
  for (const v1::NodeClaim& c : s.node_claims()) {
    if (c.metadata().has_deletion_timestamp()) continue;
    const std::string& node = c.status().node_name();
    bool ready = false;
    if (!node.empty()) {
      for (const v1::Node& n : s.nodes()) {
        if (n.metadata().name() == node) {
          ready = IsConditionTrue(n.status().conditions(),
                                  well_known::kConditionTypeReady);
        }
      }
    }
    if (!ready) in_flight.insert(c.metadata().name());
  }
  std::vector<snapshot::PodIndex> pods;
  std::set<std::string> keys;
  for (snapshot::PodIndex p = 0; p < s.pod_count(); ++p) {
    if (!s.PodIsUnbound(p)) continue;
    if (!scheduling::IsProvisionable(s.DecodePod(p))) continue;
    const std::string key = s.PodKey(p);
    const auto nominated = nominated_.find(key);
    if (nominated != nominated_.end() &&
        in_flight.contains(nominated->second)) {
      continue;
    }
    pods.push_back(p);
    keys.insert(key);
  }
  if (pods.empty()) {
    batch_start_.reset();
    batch_pods_.clear();
    return absl::OkStatus();
  }
  // Batching (provisioner.go, batcher.go): 1 s idle, 10 s at most.
  if (!batch_start_) batch_start_ = now;
  for (const std::string& key : keys) {
    if (batch_pods_.insert(key).second) batch_last_ = now;
  }
  const absl::Time idle_end = batch_last_ + absl::Seconds(1);
  const absl::Time max_end = *batch_start_ + absl::Seconds(10);
  if (now < idle_end && now < max_end) {
    provisioner_wake_ = std::min(idle_end, max_end);
    return absl::OkStatus();
  }
  batch_start_.reset();
  batch_pods_.clear();

  InstanceTypeCatalog catalog;
  for (const v1::NodePool& pool : s.node_pools()) {
    absl::StatusOr<std::vector<InstanceType>> types =
        observed_cloud_->GetInstanceTypes(pool);
    if (types.ok()) catalog[pool.metadata().name()] = *std::move(types);
  }
  disruption::SimulatorOptions sim;
  sim.now = now;
  sim.include_pending_pods = true;
  absl::StatusOr<disruption::Scheduler> scheduler =
      disruption::Scheduler::Build(s, catalog, sim);
  if (!scheduler.ok()) {
    Emit(now, "", "ProvisioningFailed", StatusText(scheduler.status()));
    return absl::OkStatus();
  }
  const disruption::Scheduler::Provisioned out = scheduler->Provision(pods);
  for (size_t i = 0; i < out.node_claims.size(); ++i) {
    const disruption::Replacement& r = out.node_claims[i];
    v1::NodeClaim claim = r.node_claim;
    const std::string name =
        absl::StrFormat("%s-p%04d", r.node_pool, ++provisioned_);
    claim.mutable_metadata()->set_name(name);
    (*claim.mutable_metadata()
          ->mutable_labels())[std::string(well_known::kNodePoolLabelKey)] =
        r.node_pool;
    claim.mutable_metadata()->add_finalizers(
        std::string(well_known::kTerminationFinalizer));
    absl::StatusOr<Instance> instance = observed_cloud_->Create(claim);
    if (!instance.ok()) {
      Emit(now, name, "ProvisioningFailed",
           absl::StrCat("launch for ", out.claim_pods[i].size(),
                        " pod(s): ", StatusText(instance.status())));
      continue;
    }
    claim.mutable_status()->set_provider_id(instance->provider_id);
    claim.mutable_status()->set_image_id(instance->image_id);
    if (absl::Status created = cluster_->CreateNodeClaim(claim);
        !created.ok()) {
      observed_cloud_->Delete(instance->provider_id).IgnoreError();
      Emit(now, name, "ProvisioningFailed",
           absl::StrCat("create NodeClaim: ", StatusText(created)));
      continue;
    }
    for (snapshot::PodIndex p : out.claim_pods[i]) {
      nominated_[s.PodKey(p)] = name;
    }
    std::vector<std::string> types(
        r.instance_types.begin(),
        r.instance_types.begin() +
            std::min<size_t>(r.instance_types.size(), 3));
    Emit(now, name, "Provisioned",
         absl::StrFormat("%d pending pod(s) -> NodePool %s, %s%s",
                         out.claim_pods[i].size(), r.node_pool,
                         absl::StrJoin(types, ", "),
                         r.instance_types.size() > 3 ? ", ..." : ""));
  }
  if (!out.unschedulable.empty()) {
    // Said once while it stays the same (the batch is retried every
    // minute), as Karpenter's event recorder deduplicates its events.
    std::string why = absl::StrCat(out.unschedulable.size(),
                                   " pending pod(s) fit no NodePool; ",
                                   s.PodKey(out.unschedulable.front().first),
                                   ": ", out.unschedulable.front().second);
    if (why != last_provisioning_failure_) {
      Emit(now, "", "ProvisioningFailed", why);
      last_provisioning_failure_ = std::move(why);
    }
  } else {
    last_provisioning_failure_.clear();
  }
  return absl::OkStatus();
}

void Simulation::World::ObserveCalls(absl::Time now) {
  // An evicted pod stays bound while it terminates.
  auto node_of = [&](const PodRef& pod) { return cluster_->NodeOfPod(pod); };
  for (const auto& [pod, r] : evictions_->answers) {
    const std::string key = absl::StrCat(pod.namespace_name, "/", pod.name);
    if (r.result == EvictionResult::kEvicted) {
      ++summary_.evictions;
      Emit(now, node_of(pod), "Evicted", key);
    } else if (r.result == EvictionResult::kBlockedByPdb) {
      ++summary_.evictions_429;
      Emit(now, node_of(pod), "EvictionBlocked", absl::StrCat(key, ": 429"));
    } else if (r.result != EvictionResult::kNotFound) {
      ++summary_.evictions_failed;
      Emit(now, node_of(pod), "EvictionError",
           absl::StrFormat("%s: %s (HTTP %d) %s", key,
                           EvictionResultName(r.result), r.http_status,
                           r.message));
    }
  }
  evictions_->answers.clear();
  for (const PodRef& pod : view_->force_deleted) {
    ++summary_.force_deletions;
    Emit(now, node_of(pod), "PodForceDeleted",
         absl::StrCat(pod.namespace_name, "/", pod.name));
  }
  view_->force_deleted.clear();
  for (const ObservedCloud::Failure& f : observed_cloud_->failures) {
    auto it = node_of_provider_id_.find(f.target);
    Emit(now, it == node_of_provider_id_.end() ? "" : it->second, "CloudError",
         absl::StrCat(f.method, " ", f.target, ": ", StatusText(f.status)));
  }
  observed_cloud_->failures.clear();
}

void Simulation::World::ObserveNodes(const snapshot::Snapshot& s,
                                     absl::Time now) {
  // Only the objects that are not the very ones the last observation read
  // are read again (last_ or observed_ still holds those, so no other
  // object can be at their addresses).
  const int64_t seen = ++observations_;
  auto claims = Reobserve(s.node_claims(), claims_, seen, ObserveClaim);
  // Claims: created, deleting, instance terminating (name order).
  for (const auto& [name, prev] : claims.changed) {
    const ClaimObs& c = claims_.at(name);
    if (!prev.has_value() && !last_.has_value()) continue;
    if (!prev.has_value()) {
      Emit(now, name, "NodeClaimCreated", c.pool);
    }
    const bool was_deleting = prev.has_value() && prev->deleting;
    if (c.deleting && !was_deleting) Emit(now, name, "NodeClaimDeleting", "");
    const bool was_term = prev.has_value() && prev->instance_terminating;
    if (c.instance_terminating && !was_term) {
      Emit(now, c.node_name.empty() ? name : c.node_name, "InstanceTerminating",
           c.provider_id);
    }
  }
  for (const std::string& name : claims.gone) claims_.erase(name);
  auto nodes = Reobserve(s.nodes(), nodes_, seen, ObserveNode);
  for (const auto& [name, prev] : nodes.changed) {
    const NodeObs& n = nodes_.at(name);
    const bool was_tainted = prev.has_value() && prev->tainted;
    const bool was_deleting = prev.has_value() && prev->deleting;
    if (n.tainted && !was_tainted) {
      std::optional<std::string> claim;
      for (const auto& [cn, c] : claims_) {
        if (c.node_name == name) claim = c.reason;
      }
      Emit(now, name, "NodeDisrupting", claim.value_or(""));
    }
    if (!n.tainted && was_tainted && !n.deleting) {
      Emit(now, name, "NodeUndisrupted", "");
    }
    if (n.deleting && !was_deleting) Emit(now, name, "NodeDeleting", "");
    // An unchanged node's entry is as its last observation left it.
    if ((n.tainted || n.deleting) && !disrupting_since_.count(name)) {
      disrupting_since_[name] = now;
    }
    if (!n.tainted && !n.deleting) disrupting_since_.erase(name);
    if (!n.provider_id.empty()) node_of_provider_id_[n.provider_id] = name;
  }
  for (const std::string& name : nodes.gone) {
    nodes_.erase(name);
    Emit(now, name, "NodeDeleted", "");
    if (auto it = disrupting_since_.find(name); it != disrupting_since_.end()) {
      const absl::Duration d = now - it->second;
      if (d > summary_.longest_drain) {
        summary_.longest_drain = d;
        summary_.longest_drain_node = name;
      }
      disrupting_since_.erase(it);
    }
  }
  for (const std::string& name : claims.gone) {
    Emit(now, name, "NodeClaimDeleted", "");
  }
  if (nodes.any || claims.any) ++version_;
  if (!claims.changed.empty() || !claims.gone.empty()) {
    claim_of_node_.clear();
    for (const auto& [name, c] : claims_)
      claim_of_node_.try_emplace(c.node_name, name);
  }

  std::vector<std::string> instances = cloud_->ProviderIds();
  // Both sorted: the provider IDs gone since the last observation.
  std::vector<std::string> gone;
  std::set_difference(instances_.begin(), instances_.end(), instances.begin(),
                      instances.end(), std::back_inserter(gone));
  for (const std::string& pid : gone) {
    auto it = node_of_provider_id_.find(pid);
    Emit(now, it == node_of_provider_id_.end() ? "" : it->second,
         "InstanceTerminated", pid);
  }
  instances_ = std::move(instances);
}

// Disrupting as budgets count it, per pool: tainted or deleting, until
// InstanceTerminating.
void Simulation::World::ObserveBudgets(const snapshot::Snapshot& s,
                                       absl::Time now) {
  std::map<std::string, int64_t> disrupting;
  std::map<std::string, std::set<std::string>> reasons;
  std::set<std::string> disrupting_nodes;
  // Zones of the NodePools' nodes, and of their disrupting nodes.
  std::map<std::string, std::set<std::string>> zones;
  std::map<std::string, std::set<std::string>> disrupting_zones;
  const auto zone_of = [&](const std::string& name) {
    std::optional<snapshot::NodeIndex> i = s.FindNode(name);
    if (!i.has_value()) return std::string();
    const auto& labels = s.nodes()[*i].metadata().labels();
    auto it = labels.find(std::string(well_known::kLabelTopologyZone));
    return it == labels.end() ? std::string() : it->second;
  };
  for (const auto& [name, n] : nodes_) zones[n.pool].insert(zone_of(name));
  for (const auto& [name, n] : nodes_) {
    std::optional<std::string> claim_name = ClaimOfNode(name);
    const ClaimObs* claim = claim_name ? &claims_.at(*claim_name) : nullptr;
    if (claim != nullptr && claim->instance_terminating) continue;
    const bool deleting = n.deleting || (claim != nullptr && claim->deleting);
    if (!n.tainted && !deleting) continue;
    ++disrupting[n.pool];
    disrupting_nodes.insert(name);
    disrupting_zones[n.pool].insert(zone_of(name));
    if (claim != nullptr && !claim->reason.empty()) {
      reasons[n.pool].insert(claim->reason);
    }
  }
  std::optional<budget::BudgetMapping> after;
  // The nodes the step's commands marked, with their budget reasons.
  std::map<std::string, std::string> marked;
  for (const std::string& node : view_->tainted) {
    std::optional<std::string> claim = ClaimOfNode(node);
    const std::string reason = claim ? claims_.at(*claim).reason : "";
    if (nodes_.count(node) && BudgetReasonNamed(reason).has_value()) {
      marked[node] = reason;
    }
  }
  view_->tainted.clear();
  if (budgets_before_.has_value()) {
    CheckBudgetsPerReason(now, *budgets_before_, disrupting_nodes, marked);
  }
  disrupting_nodes_ = std::move(disrupting_nodes);
  for (const v1::NodePool& p : s.node_pools()) {
    NodePoolPeak& peak = peaks_[p.metadata().name()];
    peak.node_pool = p.metadata().name();
    peak.zones = std::max<int64_t>(
        peak.zones, static_cast<int64_t>(zones[peak.node_pool].size()));
    peak.peak_zones = std::max<int64_t>(
        peak.peak_zones,
        static_cast<int64_t>(disrupting_zones[peak.node_pool].size()));
    const int64_t d = disrupting[peak.node_pool];
    if (d <= peak.peak_disrupting) continue;
    if (!after.has_value()) after = budget::BuildBudgetMapping(s, now);
    peak.peak_disrupting = d;
    // Each reason's commands keep the pool within that reason's allowance,
    // so a peak of mixed reasons may reach the largest of them.
    const std::set<std::string>& why = reasons[peak.node_pool];
    peak.allowed_at_peak = AllowedForReason(*after, peak.node_pool, "");
    if (!why.empty()) peak.allowed_at_peak = 0;
    for (const std::string& r : why) {
      peak.allowed_at_peak = std::max(
          peak.allowed_at_peak, AllowedForReason(*after, peak.node_pool, r));
    }
    peak.at = now;
  }
}

// Budgets are per reason (Karpenter's GetAllowedDisruptionsByReason): a
// reason's commands may bring the pool's disrupting nodes, of any reason,
// up to that reason's allowance, and a later method of the same pass counts
// the earlier one's nodes (a small Empty budget does not limit drift). So
// each reason is checked with the nodes that were disrupting before the
// step and still are, plus those the step marked for that reason. Nodes
// that turned disrupting in the step without a command (kubectl delete node,
// which Karpenter counts only once the NodeClaim is deleting) are left out:
// the pass may have read the cluster before them.
void Simulation::World::CheckBudgetsPerReason(
    absl::Time now, const budget::BudgetMapping& before,
    const std::set<std::string>& disrupting_nodes,
    const std::map<std::string, std::string>& marked) {
  // (pool, reason) -> nodes counted against that reason's allowance.
  std::map<std::pair<std::string, std::string>, int64_t> counted;
  for (const auto& [node, reason] : marked) {
    const std::string& pool = nodes_.at(node).pool;
    auto [it, inserted] = counted.try_emplace({pool, reason}, 0);
    if (!inserted) continue;
    for (const std::string& d : disrupting_nodes) {
      if (nodes_.at(d).pool != pool) continue;
      const auto m = marked.find(d);
      const bool before = disrupting_nodes_.count(d) > 0;
      if (before || (m != marked.end() && m->second == reason)) ++it->second;
    }
  }
  for (const auto& [key, count] : counted) {
    const auto& [pool, reason] = key;
    const int64_t limit = AllowedForReason(before, pool, reason);
    if (count <= limit) continue;
    ++summary_.budget_exceeded;
    Emit(now, "", "BudgetExceeded",
         absl::StrFormat("NodePool %s: %d disrupting (%s), %d allowed", pool,
                         count, reason, limit));
  }
}

void Simulation::World::Sample(absl::Time now) {
  NodeStateSample sample;
  sample.at = now;
  std::set<std::string> counted_nodes;
  for (const auto& [name, c] : claims_) {
    const NodeObs* node = nullptr;
    if (!c.node_name.empty()) {
      auto it = nodes_.find(c.node_name);
      if (it != nodes_.end()) {
        node = &it->second;
        counted_nodes.insert(c.node_name);
      }
    }
    const bool deleting = c.deleting || (node != nullptr && node->deleting);
    if (c.instance_terminating) {
      ++sample.terminating;
    } else if (deleting) {
      ++sample.draining;
    } else if (!c.initialized) {
      ++sample.launching;
    } else if (node != nullptr && node->tainted) {
      ++sample.disrupting;
    } else {
      ++sample.ready;
    }
  }
  for (const auto& [name, n] : nodes_) {
    if (counted_nodes.count(name)) continue;
    if (n.deleting) {
      ++sample.draining;
    } else if (n.tainted) {
      ++sample.disrupting;
    } else {
      ++sample.ready;
    }
  }
  if (!samples_.empty()) {
    NodeStateSample prev = samples_.back();
    prev.at = now;
    if (prev == sample) return;
  }
  samples_.push_back(sample);
}

absl::Status Simulation::World::Observe(absl::Time now) {
  absl::StatusOr<snapshot::Snapshot> s = cluster_->ReadWithoutPods();
  if (!s.ok()) {
    return absl::Status(s.status().code(),
                        absl::StrCat("observe: ", s.status().message()));
  }
  ObserveCalls(now);
  ObserveNodes(*s, now);
  ObserveBudgets(*s, now);
  Sample(now);
  observed_.reset();
  last_ = *std::move(s);
  return absl::OkStatus();
}

absl::Status Simulation::World::Step(absl::Time now) {
  bool applied = false;
  ApplyReclaims(now);
  KARPENTER_RETURN_IF_ERROR(ApplyChanges(now, applied));
  if (applied || !last_.has_value()) {
    absl::StatusOr<snapshot::Snapshot> s = cluster_->ReadWithoutPods();
    if (!s.ok()) return s.status();
    // ObserveNodes tells the objects it read by their addresses: they stay
    // alive until the next observation.
    if (last_.has_value() && !observed_.has_value()) {
      observed_ = std::move(last_);
    }
    last_ = *std::move(s);
  }
  if (applied) ++version_;
  budgets_before_ = budget::BuildBudgetMapping(*last_, now);
  // Each core runs when its own wake has come, or when the cluster changed
  // since it last ran (as a host's watches would trigger it); the fakes'
  // transitions count as changes for the executor and the lifecycle.
  const bool fakes_moved = cluster_event_ <= now || cloud_event_ <= now;
  if (runner_wake_ <= now || runner_seen_ != version_) {
    runner_seen_ = version_;
    KARPENTER_RETURN_IF_ERROR(RunDisruption(now));
  }
  if (executor_wake_ <= now || executor_seen_ != version_ || fakes_moved ||
      !view_->tainted.empty()) {
    executor_seen_ = version_;
    KARPENTER_RETURN_IF_ERROR(RunTermination(now));
  }
  if (options_.provisioning) {
    KARPENTER_RETURN_IF_ERROR(RunProvisioner(now));
  }
  if ((lifecycle_wake_.has_value() && *lifecycle_wake_ <= now) ||
      lifecycle_seen_ != version_ || cloud_event_ <= now) {
    lifecycle_seen_ = version_;
    KARPENTER_RETURN_IF_ERROR(RunLifecycle(now));
  }
  KARPENTER_RETURN_IF_ERROR(Observe(now));
  cluster_event_ = cluster_->NextEventTime().value_or(absl::InfiniteFuture());
  cloud_event_ = cloud_->NextEventTime().value_or(absl::InfiniteFuture());
  ++summary_.steps;
  return absl::OkStatus();
}

absl::Time Simulation::World::NextTime(absl::Time now, absl::Time end) const {
  absl::Time next = std::min(
      {runner_wake_, executor_wake_, end, cluster_event_, cloud_event_});
  if (lifecycle_wake_) next = std::min(next, *lifecycle_wake_);
  next = std::min(next, provisioner_wake_);
  if (next_change_ < changes_.size()) {
    next = std::min(next, changes_[next_change_].at);
  }
  for (const Reclaim& r : reclaims_) next = std::min(next, r.at);
  next = std::max(next, now + options_.min_step);
  next = std::min(next, now + options_.max_step);
  return std::min(next, end);
}

absl::Status Simulation::World::Run(
    absl::Time end,
    const std::function<void(absl::Time, absl::Time)>& progress) {
  if (end < clock_.Now()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("end: \"%s\" is before now (\"%s\")",
                        FormatRfc3339(end), FormatRfc3339(clock_.Now())));
  }
  while (true) {
    const absl::Time now = clock_.Now();
    KARPENTER_RETURN_IF_ERROR(Step(now));
    if (progress) progress(now, end);
    if (now >= end) break;
    KARPENTER_RETURN_IF_ERROR(clock_.SetTime(NextTime(now, end)));
  }
  summary_.end = clock_.Now();
  return absl::OkStatus();
}

SimulationSummary Simulation::World::Summary() const {
  SimulationSummary s = summary_;
  if (s.end < s.start) s.end = s.start;
  for (const auto& [name, peak] : peaks_) s.budget_peaks.push_back(peak);
  s.pdb_violations = static_cast<int64_t>(cluster_->PdbViolations().size());
  std::set<std::string> claimed;
  for (const auto& [name, c] : claims_) {
    if (!c.provider_id.empty()) claimed.insert(c.provider_id);
  }
  for (const std::string& pid : instances_) {
    if (!claimed.count(pid)) s.leaked_instances.push_back(pid);
  }
  for (const auto& [name, c] : claims_) {
    if (c.deleting)
      s.unfinished.push_back(c.node_name.empty() ? name : c.node_name);
  }
  for (const auto& [name, n] : nodes_) {
    if (n.deleting && !ClaimOfNode(name).has_value())
      s.unfinished.push_back(name);
  }
  std::sort(s.unfinished.begin(), s.unfinished.end());
  s.unfinished.erase(std::unique(s.unfinished.begin(), s.unfinished.end()),
                     s.unfinished.end());
  PlacementCheck placement = cluster_->CheckPlacement();
  s.misplaced_pods = std::move(placement.misplaced_pods);
  s.overcommitted_nodes = std::move(placement.overcommitted_nodes);
  s.pending_pods = std::move(placement.pending_pods);
  return s;
}

Simulation::Simulation(std::unique_ptr<World> world)
    : world_(std::move(world)) {}
Simulation::~Simulation() = default;

absl::StatusOr<std::unique_ptr<Simulation>> Simulation::Create(
    LoadedScenario scenario, SimulationOptions options) {
  KARPENTER_RETURN_IF_ERROR(ValidateScenario(scenario.scenario));
  snapshot::ObjectSet cluster = std::move(scenario.cluster);
  for (v1::NodePool& pool : cluster.node_pools) {
    // The dump's hash (Karpenter's, or any other) is replaced by the SDK's,
    // and so is that of every NodeClaim of the pool that carried the same
    // hash and version: in sync in the cluster, they stay in sync here (a
    // claim with another hash stays drifted).
    const auto& before = pool.metadata().annotations();
    const auto hash =
        before.find(std::string(well_known::kNodePoolHashAnnotationKey));
    const auto version =
        before.find(std::string(well_known::kNodePoolHashVersionAnnotationKey));
    const std::optional<std::string> old_hash =
        hash != before.end() ? std::optional<std::string>(hash->second)
                             : std::nullopt;
    const std::string old_version =
        version != before.end() ? version->second : "";
    KARPENTER_RETURN_IF_ERROR(StampNodePoolHash(pool));
    if (!old_hash.has_value()) continue;
    const auto& after = pool.metadata().annotations();
    for (v1::NodeClaim& claim : cluster.node_claims) {
      auto& a = *claim.mutable_metadata()->mutable_annotations();
      const auto& labels = claim.metadata().labels();
      const auto owner =
          labels.find(std::string(well_known::kNodePoolLabelKey));
      const auto h =
          a.find(std::string(well_known::kNodePoolHashAnnotationKey));
      const auto v =
          a.find(std::string(well_known::kNodePoolHashVersionAnnotationKey));
      if (owner == labels.end() || owner->second != pool.metadata().name() ||
          h == a.end() || h->second != *old_hash ||
          (v != a.end() ? v->second : "") != old_version) {
        continue;
      }
      for (const absl::string_view key :
           {well_known::kNodePoolHashAnnotationKey,
            well_known::kNodePoolHashVersionAnnotationKey}) {
        a[std::string(key)] = after.at(std::string(key));
      }
    }
  }
  KARPENTER_RETURN_IF_ERROR(ExpandGenerated(scenario.scenario, cluster));
  auto world = std::make_unique<World>(std::move(scenario), std::move(options));
  KARPENTER_RETURN_IF_ERROR(world->Build(std::move(cluster)));
  return std::unique_ptr<Simulation>(new Simulation(std::move(world)));
}

absl::Status Simulation::Run(
    std::optional<absl::Time> end,
    std::function<void(absl::Time now, absl::Time end)> progress) {
  return world_->Run(end.value_or(ScenarioEnd(world_->scenario_)), progress);
}

const std::vector<SimulationEvent>& Simulation::timeline() const {
  return world_->timeline_;
}
const std::vector<NodeStateSample>& Simulation::samples() const {
  return world_->samples_;
}
SimulationSummary Simulation::Summary() const { return world_->Summary(); }
absl::Time Simulation::now() const { return world_->clock_.Now(); }
FakeCluster& Simulation::cluster() { return *world_->cluster_; }
FakeCloudProvider& Simulation::cloud() { return *world_->cloud_; }

std::string EventLine(const SimulationEvent& e) {
  std::string out =
      absl::StrCat(FormatRfc3339(TruncateToSecond(e.at)), " ", e.kind);
  if (!e.node.empty()) absl::StrAppend(&out, " ", e.node);
  if (!e.message.empty()) absl::StrAppend(&out, ": ", e.message);
  return out;
}

}  // namespace karpenter::testing
