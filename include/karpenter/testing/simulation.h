// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Simulation: a scenario (karpenter/testing/scenario.h) run under a fake
// clock. It wires the SDK's cores to the fakes the way a host wires them to
// a real cluster, and steps them together:
//   - disruption::Runner (Karpenter's disruption controller and
//     orchestration queue, pkg/controllers/disruption),
//   - termination::Executor (the node termination controller and NodeClaim
//     finalizer, pkg/controllers/node/termination,
//     pkg/controllers/nodeclaim/lifecycle),
//   - FakeNodeLifecycle (the kubelet and NodeClaim registration),
//   - a provisioner (Karpenter's, pkg/controllers/provisioning: pods left
//     Unschedulable get NodeClaims; SimulationOptions::provisioning),
// over FakeCluster (API server, kube-scheduler, PDBs, ReplicaSets,
// DaemonSets) and FakeCloudProvider.
// What a scenario's changes do is described on ScenarioChange in
// proto/karpenter/v1/scenario.proto; a spot interruption is modelled as
// Karpenter's interruption controller handles it (pkg/controllers/
// interruption: the NodeClaim is deleted at the notice) with the instance
// reclaimed by the cloud 2 minutes later if still there.
//
// Stepping is event-driven: one round at clock.Now() applies the scenario
// changes due, runs Runner::RunOnce, Executor::RunOnce (again at once while
// it reports mutations, at most kMaxExecutorRepeats times, as a host's
// watches would re-trigger it), FakeNodeLifecycle::Reconcile, then
// observes. The clock then jumps to the earliest of: the cores' next_wake,
// the fakes' NextEventTime, the next scenario change, a pending reclaim and
// the end, but at least `min_step` and at most `max_step` later; when nothing
// at all is pending it moves by `poll_interval` (bounded by the end). The
// result does not depend on wall time: the same scenario and options give
// the same timeline, byte for byte.
//
// Thread-safety: not thread-safe; one thread drives a Simulation.

#ifndef KARPENTER_TESTING_SIMULATION_H_
#define KARPENTER_TESTING_SIMULATION_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "karpenter/disruption/runner.h"
#include "karpenter/termination/executor.h"
#include "karpenter/testing/fake_cloud_provider.h"
#include "karpenter/testing/fake_cluster.h"
#include "karpenter/testing/fake_node_lifecycle.h"
#include "karpenter/testing/scenario.h"

namespace karpenter::testing {

// Executor passes run back to back in one round while they mutate.
inline constexpr int kMaxExecutorRepeats = 8;

struct SimulationOptions {
  // Default: rollout kBudget (Karpenter's behaviour: only the budgets pace
  // disruption), Karpenter's budget count (count_replacement_pairs_once
  // false), Karpenter's drift pacing (one_drift_command_per_pass: each
  // drift simulation sees the pods of the nodes earlier commands drain),
  // and controller.poll_interval set from `poll_interval` below.
  disruption::RunnerOptions runner = DefaultRunnerOptions();
  termination::ExecutorOptions executor;
  // The fakes' options. Defaults: kube-scheduler placement and the call logs
  // off (FakeClusterOptions), the scenario's image as default_image_id and the
  // call log off (FakeCloudProviderOptions).
  FakeClusterOptions cluster = DefaultClusterOptions();
  FakeCloudProviderOptions cloud = DefaultCloudOptions();
  FakeNodeLifecycleOptions lifecycle;
  // The disruption controller's idle poll (ControllerOptions::poll_interval
  // is overwritten with it): how often a pass runs when nothing acted.
  // Karpenter polls every 10 s; a minute loses nothing a scenario can tell
  // and makes idle hours cheap. Must be positive.
  absl::Duration poll_interval = absl::Minutes(1);
  // The clock moves at least this much per step: the cores are called as a
  // slower host would call them (a 1 s requeue is served up to min_step
  // late; nothing is skipped). 5 s keeps the bundled 3 h rollout at ~1,200
  // steps (1 s: ~5,400 steps, 4x the wall time, same outcome). >= 1 s.
  absl::Duration min_step = absl::Seconds(5);
  // The clock never jumps further than this in one step. >= min_step.
  absl::Duration max_step = absl::Minutes(5);
  // A scenario change naming a node, NodeClaim or instance that is gone
  // (NotFound) is an error by default: a scenario must mean what it says.
  // On, it is skipped with a ScenarioChangeSkipped event instead, for
  // generated scenarios whose changes cannot know what will be left.
  bool skip_inapplicable_changes = false;
  // Karpenter's provisioner: pods kube-scheduler leaves Unschedulable are
  // batched (1 s idle, 10 s at most) and get NodeClaims launched for them
  // (disruption::Scheduler::Provision over the cloud's instance types:
  // NodePools by weight, limits, topology), which FakeNodeLifecycle turns
  // into nodes. Off, pending pods wait for capacity to come back.
  bool provisioning = true;

  static disruption::RunnerOptions DefaultRunnerOptions();
  static FakeClusterOptions DefaultClusterOptions();
  static FakeCloudProviderOptions DefaultCloudOptions();
};

// One thing that happened. `kind` is one of (stable names):
//   ScenarioChange     a scripted change was applied (message says which);
//   ScenarioChangeSkipped  one was not, its target being gone (only with
//                      skip_inapplicable_changes; message: why);
//   CommandStarted     the disruption controller started a command
//                      (message: method, candidates, replacements; node: the
//                      first candidate);
//   CommandRejected    a command failed its 15 s re-validation;
//   RunnerError        the Runner reported an error applying its plan;
//   NodeClaimCreated   a NodeClaim appeared (a replacement, or one the
//                      provisioner launched);
//   Provisioned        the provisioner launched a NodeClaim (node: its
//                      name; message: the pods, NodePool, instance types);
//   ProvisioningFailed pending pods no NodePool can hold, or a launch that
//                      failed (message: why);
//   NodeLaunched, NodeRegistered, NodeInitialized  FakeNodeLifecycle steps;
//   NodeDisrupting     a Node got the karpenter.sh/disrupted taint;
//   NodeUndisrupted    the taint was removed (a rollback or cleanup);
//   NodeClaimDeleting  a NodeClaim got its deletionTimestamp;
//   NodeDeleting       a Node got its deletionTimestamp;
//   Evicted, EvictionBlocked (429), EvictionError (any other failure)
//                      an eviction answer (node: the pod's node; message:
//                      the pod and the answer);
//   PodForceDeleted    a pod was deleted past its drain deadline;
//   InstanceTerminating  a NodeClaim got InstanceTerminating=True;
//   InstanceTerminated   an instance is gone from the cloud;
//   InstanceReclaimed    a spot instance was reclaimed by the cloud;
//   NodeDeleted, NodeClaimDeleted  the object is gone;
//   CloudError         a cloud call failed other than NotFound (message:
//                      method, target, status); repeats of the same failure
//                      are reported once until that call succeeds.
// Within one step events are in the order above per source, each source's
// by node name: deterministic.
struct SimulationEvent {
  absl::Time at;
  std::string node;
  std::string kind;
  std::string message;

  friend bool operator==(const SimulationEvent&,
                         const SimulationEvent&) = default;
};

// Nodes by state at an instant, counted per NodeClaim (a Node without a
// NodeClaim counts as its own claim):
//   launching   NodeClaim not deleting and not Initialized=True (no Node
//               yet, or not initialised);
//   ready       initialised, not tainted karpenter.sh/disrupted, neither
//               the Node nor the NodeClaim deleting;
//   disrupting  tainted karpenter.sh/disrupted, neither deleting (marked
//               by a command, waiting for its replacements);
//   draining    the Node or NodeClaim deleting, not InstanceTerminating;
//   terminating NodeClaim InstanceTerminating=True (the instance is
//               shutting down; pods are gone) until the NodeClaim is gone.
struct NodeStateSample {
  absl::Time at;
  int64_t launching = 0;
  int64_t ready = 0;
  int64_t disrupting = 0;
  int64_t draining = 0;
  int64_t terminating = 0;

  friend bool operator==(const NodeStateSample&,
                         const NodeStateSample&) = default;
};

// The most nodes of a NodePool disrupting at once, where "disrupting" is
// Karpenter's budget count: tainted karpenter.sh/disrupted or deleting,
// until InstanceTerminating (disrupting + draining above, per pool).
struct NodePoolPeak {
  std::string node_pool;
  int64_t peak_disrupting = 0;
  // At the peak: what the NodePool's budgets allowed for the reasons of the
  // disrupting nodes (the most over their DisruptionReason conditions, since
  // each reason's commands may fill the pool up to that reason's allowance;
  // Drifted when none has one), budget::kUnlimited for no limit.
  int64_t allowed_at_peak = 0;
  absl::Time at;
  // The most zones (topology.kubernetes.io/zone) with a disrupting node of
  // the NodePool at one step, and the most zones its nodes spanned at one
  // step (the SDK control max-disrupting-zones limits the first).
  int64_t peak_zones = 0;
  int64_t zones = 0;
};

struct SimulationSummary {
  absl::Time start;
  absl::Time end;
  int64_t steps = 0;
  // NodeClaims deleted by a command that had replacements, by one without
  // (deletions, including forceful ones), and NodeClaims initialised
  // (replacements and those the provisioner launched).
  int64_t nodes_replaced = 0;
  int64_t nodes_deleted = 0;
  int64_t nodes_launched = 0;
  // Eviction answers: 200, 429, and every other failure.
  int64_t evictions = 0;
  int64_t evictions_429 = 0;
  int64_t evictions_failed = 0;
  int64_t force_deletions = 0;
  // The longest time from a Node turning disrupting (tainted) or deleting,
  // whichever came first, to the Node object being gone.
  absl::Duration longest_drain;
  std::string longest_drain_node;
  // By NodePool name; pools that never had a node disrupting are listed
  // with 0.
  std::vector<NodePoolPeak> budget_peaks;
  // Steps x NodePools x reasons where the nodes disrupting before the step
  // (and still disrupting) plus those the step's commands marked for the
  // reason exceed what the pool's budgets allowed for that reason before
  // the step. Budgets are per reason, so nodes marked for another reason in
  // the same step are left out (the later method counts them, the earlier
  // does not), and so are nodes that turned disrupting in the step without
  // a command (a kubectl delete the pass may not have seen). Must be 0.
  int64_t budget_exceeded = 0;
  // FakeCluster::PdbViolations() at the end. Must be 0.
  int64_t pdb_violations = 0;
  // Cloud instances at the end whose provider ID no NodeClaim holds,
  // sorted.
  std::vector<std::string> leaked_instances;
  // Nodes (or NodeClaims without a Node) still deleting at the end, sorted.
  std::vector<std::string> unfinished;
  // FakeCluster::CheckPlacement() at the end: pods bound where their node
  // selector, required node affinity or host ports forbid, and nodes whose
  // pods request more than their allocatable (must be empty), and the pods
  // left pending.
  std::vector<std::string> misplaced_pods;
  std::vector<std::string> overcommitted_nodes;
  std::vector<std::string> pending_pods;
};

class Simulation {
 public:
  // Validates the scenario (ValidateScenario), expands `generate`
  // (ExpandGenerated) and builds the world: FakeCluster over the cluster,
  // FakeCloudProvider with the catalogue (the fake's default when empty),
  // the image, one Running instance per NodeClaim with a providerID (type,
  // zone and capacity type from its labels, image from status.imageID or
  // the scenario's, created at its creationTimestamp) and termination
  // protection; then FakeNodeLifecycle, Executor and Runner. The clock
  // starts at spec.start. Errors: InvalidArgument from ValidateScenario,
  // ExpandGenerated and the fakes (naming the field), for a
  // spec.terminationProtection node without an instance, or for bad
  // options (named, quoted).
  static absl::StatusOr<std::unique_ptr<Simulation>> Create(
      LoadedScenario scenario, SimulationOptions options = {});

  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // Runs from now() until `end` (the scenario's until when nullopt),
  // stepping as the file comment says; `progress(now, end)` is called after
  // each step if set. Running again continues from where it stopped.
  // Errors: InvalidArgument if `end` is before now(); a core's error,
  // prefixed with which ("disruption runner: ", "termination executor: ",
  // "node lifecycle: ", "scenario change spec.changes[3]: ", "observe: ").
  // A scenario change that cannot apply (e.g. `delete_node` of a node that
  // no longer exists) is an error too: a scenario must mean what it says
  // (SimulationOptions::skip_inapplicable_changes skips it instead).
  absl::Status Run(
      std::optional<absl::Time> end = std::nullopt,
      std::function<void(absl::Time now, absl::Time end)> progress = nullptr);

  // Every event so far, in time order.
  const std::vector<SimulationEvent>& timeline() const;
  // One sample at the start and one per step where a count changed.
  const std::vector<NodeStateSample>& samples() const;
  SimulationSummary Summary() const;
  absl::Time now() const;

  // For tests.
  FakeCluster& cluster();
  FakeCloudProvider& cloud();

 private:
  class World;
  explicit Simulation(std::unique_ptr<World> world);
  std::unique_ptr<World> world_;
};

// Renders an event on one line: `2024-01-01T00:10:00Z NodeDisrupting
// general-03: Drifted` (node and message omitted when empty).
std::string EventLine(const SimulationEvent& event);

}  // namespace karpenter::testing

#endif  // KARPENTER_TESTING_SIMULATION_H_
