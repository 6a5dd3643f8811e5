// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/drain/drainer.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "karpenter/budget/pdb.h"
#include "karpenter/drain/classify.h"
#include "karpenter/time_util.h"

namespace karpenter::drain {
namespace {

// "Strictly after" for instants: Karpenter force-deletes when now > T - grace
// and a pod is stuck when now - deletionTimestamp > 1 min.
constexpr absl::Duration kTick = absl::Nanoseconds(1);

PodRef RefOf(const v1::Pod& pod) {
  return PodRef{pod.metadata().namespace_(), pod.metadata().name(),
                pod.metadata().uid()};
}

// Maps a DeletePod status to the queue's result classes.
EvictionResult DeleteResult(const absl::Status& status) {
  if (status.ok()) return EvictionResult::kEvicted;
  if (absl::IsNotFound(status)) return EvictionResult::kNotFound;
  if (absl::IsFailedPrecondition(status)) return EvictionResult::kConflict;
  return EvictionResult::kOtherError;
}

// The reason a planned pod is not acted on, or "" if it is.
std::string HoldText(const PodDecision& d, std::optional<Tier> tier) {
  switch (d.reason) {
    case HoldReason::kNone:
      return "";
    case HoldReason::kNotDrained:
      return absl::StrCat("NotDrained: ",
                          PodReasonName(d.pod_class.not_waiting_reason));
    case HoldReason::kTerminating:
      return "Terminating: waiting for the pod to go";
    case HoldReason::kDoNotDisrupt: {
      std::string text = absl::StrCat(
          "DoNotDisrupt: ", d.pod_class.do_not_disrupt.source,
          d.until ? absl::StrCat(" until ", FormatRfc3339(*d.until))
                  : std::string(" with no end"));
      if (d.force_delete_at) {
        absl::StrAppend(&text, "; force-deleted after ",
                        FormatRfc3339(*d.force_delete_at));
      }
      return text;
    }
    case HoldReason::kEarlierTier:
      return absl::StrCat("EarlierTier: waits for tier ",
                          tier ? TierName(*tier) : "none");
  }
  return "Unknown";
}

// The instants after `now` at which time alone changes a pod's plan.
void AddWakes(const PodDecision& d, const v1::Pod& pod, absl::Time now,
              absl::Time& wake) {
  auto consider = [&](absl::Time t) {
    if (t > now) wake = std::min(wake, t);
  };
  if (!d.pod_class.waiting || d.action == PodAction::kForceDelete) return;
  if (d.force_delete_at) consider(*d.force_delete_at + kTick);
  if (d.pod_class.do_not_disrupt.active() && d.until) consider(*d.until);
  if (d.pod_class.terminating) {
    consider(TimeFromProto(pod.metadata().deletion_timestamp()) +
             kStuckTerminatingAfter + kTick);
  }
}

}  // namespace

struct Drainer::StepContext {
  absl::Time now;
  snapshot::Snapshot snap;
  // The pods of `snap` read whole this step (set by Begin).
  std::optional<snapshot::DecodedPods> pods;
  budget::PdbIndex pdbs;
  // Disruptions each PDB still allows this step (precheck_pdbs).
  std::vector<int64_t> allowed;
  // T of each planned node that has one.
  std::map<std::string, absl::Time, std::less<>> deadlines;
  // The pass of each report (same order; nullopt when planning failed).
  std::vector<std::optional<DrainPass>> passes;
  StepReport report;
  // The pods of the registered nodes by "namespace/name" (filled by the
  // first FindPod): the queue's pods are found here without the snapshot's
  // index of every pod.
  std::optional<absl::flat_hash_map<std::string, snapshot::PodIndex>>
      drained_pods;
};

std::optional<snapshot::PodIndex> Drainer::FindPod(StepContext& ctx,
                                                   const PodRef& ref) const {
  if (!ctx.drained_pods.has_value()) {
    ctx.drained_pods.emplace();
    for (const auto& [node, unused] : nodes_) {
      const std::optional<snapshot::NodeIndex> n = ctx.snap.FindNode(node);
      if (!n) continue;
      for (const snapshot::PodIndex p : ctx.snap.PodsOnNode(*n)) {
        ctx.drained_pods->emplace(ctx.snap.PodKey(p), p);
      }
    }
  }
  // Pod keys are unique in a snapshot, so a pod found here is the one
  // Snapshot::FindPod would return; anything else is asked of it.
  const auto it =
      ctx.drained_pods->find(absl::StrCat(ref.namespace_name, "/", ref.name));
  if (it != ctx.drained_pods->end()) return it->second;
  return ctx.snap.FindPod(ref.namespace_name, ref.name);
}

void DrainCounts::Add(const DrainCounts& o) {
  evict_calls += o.evict_calls;
  force_deletes += o.force_deletes;
  local_pdb_blocks += o.local_pdb_blocks;
  skipped_gone += o.skipped_gone;
  skipped_inactive += o.skipped_inactive;
  skipped_not_evictable += o.skipped_not_evictable;
  for (size_t i = 0; i < evict_results.size(); ++i) {
    evict_results[i] += o.evict_results[i];
    force_delete_results[i] += o.force_delete_results[i];
  }
  for (const auto& [code, n] : o.evict_http_status)
    evict_http_status[code] += n;
}

bool StepReport::all_done() const {
  return std::all_of(nodes.begin(), nodes.end(),
                     [](const NodeReport& n) { return n.done; });
}

absl::StatusOr<std::unique_ptr<Drainer>> Drainer::Create(
    ClusterView& view, EvictionClient& client, const Clock& clock,
    DrainerOptions options) {
  KARPENTER_ASSIGN_OR_RETURN(EvictionQueue queue,
                             EvictionQueue::Create(options.queue));
  return std::unique_ptr<Drainer>(
      new Drainer(view, client, clock, std::move(options), std::move(queue)));
}

Drainer::Drainer(ClusterView& view, EvictionClient& client, const Clock& clock,
                 DrainerOptions options, EvictionQueue queue)
    : view_(view),
      client_(client),
      clock_(clock),
      options_(std::move(options)),
      queue_(std::move(queue)) {}

Drainer::~Drainer() = default;

absl::Status Drainer::Drain(absl::string_view node,
                            std::optional<absl::Time> external_deadline) {
  if (node.empty())
    return absl::InvalidArgumentError("node: must not be empty");
  if (external_deadline && (*external_deadline == absl::InfiniteFuture() ||
                            *external_deadline == absl::InfinitePast())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "external_deadline for node \"", node, "\": must be finite, got \"",
        FormatRfc3339(*external_deadline), "\""));
  }
  auto [it, inserted] =
      nodes_.try_emplace(std::string(node), external_deadline);
  if (!inserted && external_deadline) {
    it->second = it->second ? std::min(*it->second, *external_deadline)
                            : *external_deadline;
  }
  return absl::OkStatus();
}

std::vector<std::string> Drainer::nodes() const {
  std::vector<std::string> out;
  for (const auto& [name, unused] : nodes_) out.push_back(name);
  return out;
}

const DrainCounts& Drainer::totals() const { return totals_; }
const EvictionQueue& Drainer::queue() const { return queue_; }

absl::StatusOr<StepReport> Drainer::Step() {
  StepContext ctx;
  KARPENTER_RETURN_IF_ERROR(Begin(ctx));
  for (const auto& [node, external] : nodes_) {
    ctx.report.nodes.push_back(PlanNode(ctx, node, external));
  }
  while (std::optional<EvictionWork> work = queue_.Pop(ctx.now)) {
    KARPENTER_RETURN_IF_ERROR(Execute(ctx, *work));
  }
  Finish(ctx);
  return std::move(ctx.report);
}

absl::Status Drainer::Begin(StepContext& ctx) {
  ctx.now = clock_.Now();
  ctx.report.now = ctx.now;
  absl::StatusOr<snapshot::Snapshot> snap = view_.Read();
  if (!snap.ok()) {
    return absl::Status(
        snap.status().code(),
        absl::StrCat("read cluster: ", snap.status().message()));
  }
  ctx.snap = *std::move(snap);
  ctx.pods.emplace(ctx.snap);
  ctx.pdbs = budget::PdbIndex::Build(ctx.snap);
  for (const budget::PdbInfo& info : ctx.pdbs.pdbs()) {
    ctx.allowed.push_back(info.disruptions_allowed);
  }
  return absl::OkStatus();
}

// Explains the pods left, unregisters the nodes found done and settles
// `next_wake` and the totals.
void Drainer::Finish(StepContext& ctx) {
  for (size_t i = 0; i < ctx.report.nodes.size(); ++i) {
    NodeReport& report = ctx.report.nodes[i];
    if (ctx.passes[i]) Annotate(ctx, *ctx.passes[i], report);
    if (report.done) nodes_.erase(report.node);
  }
  const absl::Time ready = queue_.NextReadyTime();
  if (ready > ctx.now) {
    ctx.report.next_wake = std::min(ctx.report.next_wake, ready);
  }
  totals_.Add(ctx.report.counts);
}

NodeReport Drainer::PlanNode(StepContext& ctx, const std::string& node,
                             std::optional<absl::Time> external) {
  NodeReport report;
  report.node = node;
  ctx.passes.emplace_back();
  const std::optional<snapshot::NodeIndex> n = ctx.snap.FindNode(node);
  if (!n) {
    report.done = report.gone = true;
    return report;
  }
  absl::StatusOr<std::optional<Deadline>> deadline =
      NodeDeadline(ctx.snap, *n, external);
  if (!deadline.ok()) {
    report.error = absl::Status(
        deadline.status().code(),
        absl::StrCat("node \"", node, "\": ", deadline.status().message()));
    return report;
  }
  report.deadline = *deadline;
  std::optional<absl::Time> t;
  if (*deadline) t = (*deadline)->at;
  if (t) ctx.deadlines[node] = *t;
  absl::StatusOr<DrainPass> pass = PlanDrainPass(*ctx.pods, *n, t, ctx.now);
  const absl::Status status = pass.ok() ? Enqueue(ctx, *pass) : pass.status();
  if (!status.ok()) {
    report.error = absl::Status(
        status.code(), absl::StrCat("node \"", node, "\": ", status.message()));
    return report;
  }
  report.done = pass->done;
  report.waiting = pass->waiting;
  report.message = pass->Message();
  report.tier = pass->tier;
  ctx.passes.back() = *std::move(pass);
  return report;
}

absl::Status Drainer::Enqueue(StepContext& ctx, const DrainPass& pass) {
  for (const PodDecision& d : pass.pods) {
    const v1::Pod& pod = ctx.pods->Get(d.pod);
    AddWakes(d, pod, ctx.now, ctx.report.next_wake);
    absl::Time force_at;
    if (d.action == PodAction::kForceDelete) {
      force_at = ctx.now;
    } else if (d.action == PodAction::kEnqueue &&
               (d.reason == HoldReason::kNone ||
                (options_.for_test.evict_do_not_disrupt &&
                 d.reason == HoldReason::kDoNotDisrupt))) {
      force_at = d.force_delete_at ? *d.force_delete_at + kTick
                                   : absl::InfiniteFuture();
    } else {
      continue;
    }
    std::vector<std::string> keys;
    for (snapshot::PdbIndex b : ctx.pdbs.PdbsOfPod(d.pod)) {
      keys.push_back(ctx.pdbs.pdbs()[b].name);
    }
    KARPENTER_RETURN_IF_ERROR(queue_.Add(RefOf(pod), keys, force_at));
  }
  return absl::OkStatus();
}

absl::Status Drainer::Execute(StepContext& ctx, const EvictionWork& work) {
  // Copied: the queue's view of the pod is only valid until Complete.
  const PodRef pod = work.pod;
  std::optional<EvictionResult> result = Skip(ctx, work.kind, pod);
  if (!result) result = Run(ctx, work.kind, pod);
  absl::StatusOr<EvictionCompletion> done =
      queue_.Complete(work, *result, ctx.now);
  if (!done.ok()) {
    return absl::InternalError(absl::StrCat(
        "completing pod \"", pod.namespace_name, "/", pod.name, "\" with ",
        EvictionResultName(*result), ": ", done.status().message()));
  }
  if (done->event) {
    const std::optional<snapshot::PodIndex> p = FindPod(ctx, pod);
    const std::optional<snapshot::NodeIndex> n =
        p ? ctx.snap.NodeOfPod(*p) : std::nullopt;
    ctx.report.events.push_back(
        DrainerEvent{n ? ctx.snap.nodes()[*n].metadata().name() : std::string(),
                     *std::move(done->event)});
  }
  return absl::OkStatus();
}

// Settles `work` without a call when the snapshot already answers it, or
// when precheck_pdbs refuses it; nullopt when the call must be made.
std::optional<EvictionResult> Drainer::Skip(StepContext& ctx,
                                            EvictionWorkKind kind,
                                            const PodRef& ref) {
  DrainCounts& c = ctx.report.counts;
  const std::optional<snapshot::PodIndex> p = FindPod(ctx, ref);
  if (!p || ctx.pods->Get(*p).metadata().uid() != ref.uid) {
    ++c.skipped_gone;
    return EvictionResult::kNotFound;
  }
  if (kind == EvictionWorkKind::kForceDelete) return std::nullopt;
  const v1::Pod& pod = ctx.pods->Get(*p);
  const PodClass cls = Classify(pod, ctx.now);
  if (cls.terminal || cls.terminating) {
    ++c.skipped_inactive;
    return EvictionResult::kNotFound;
  }
  const bool planted =
      options_.for_test.evict_do_not_disrupt && cls.do_not_disrupt.active();
  if (!cls.evictable && !planted) {
    ++c.skipped_not_evictable;
    return EvictionResult::kNotFound;
  }
  if (!options_.precheck_pdbs || !budget::PodIsHealthy(pod))
    return std::nullopt;
  const auto pdbs = ctx.pdbs.PdbsOfPod(*p);
  if (pdbs.size() > 1) {
    ++c.local_pdb_blocks;
    return EvictionResult::kMisconfigured;
  }
  if (pdbs.size() == 1 && ctx.allowed[pdbs[0]] <= 0) {
    ++c.local_pdb_blocks;
    return EvictionResult::kBlockedByPdb;
  }
  return std::nullopt;
}

// Makes the request for `work` and returns its result.
EvictionResult Drainer::Run(StepContext& ctx, EvictionWorkKind kind,
                            const PodRef& ref) {
  DrainCounts& c = ctx.report.counts;
  const std::optional<snapshot::PodIndex> p = FindPod(ctx, ref);
  if (kind == EvictionWorkKind::kForceDelete) {
    ++c.force_deletes;
    EvictionResult result = EvictionResult::kNotFound;
    const std::optional<snapshot::NodeIndex> n =
        p ? ctx.snap.NodeOfPod(*p) : std::nullopt;
    const auto t =
        n ? ctx.deadlines.find(ctx.snap.nodes()[*n].metadata().name())
          : ctx.deadlines.end();
    if (t != ctx.deadlines.end()) {
      const int64_t grace = ForceDeleteGraceSeconds(t->second, ctx.now);
      result = DeleteResult(view_.DeletePod(ref, absl::Seconds(grace)));
    }
    ++c.force_delete_results[static_cast<size_t>(result)];
    return result;
  }
  ++c.evict_calls;
  const EvictionResponse response = client_.Evict(ref);
  ++c.evict_results[static_cast<size_t>(response.result)];
  ++c.evict_http_status[response.http_status];
  if (response.result == EvictionResult::kEvicted) {
    for (snapshot::PdbIndex b : ctx.pdbs.PdbsOfPod(*p)) --ctx.allowed[b];
  }
  return response.result;
}

void Drainer::Annotate(StepContext& ctx, const DrainPass& pass,
                       NodeReport& report) const {
  for (const PodDecision& d : pass.pods) {
    const v1::Pod& pod = ctx.pods->Get(d.pod);
    std::string reason = HoldText(d, pass.tier);
    if (reason.empty()) {
      absl::StatusOr<EvictionItemStatus> status =
          queue_.Inspect(pod.metadata().uid(), ctx.now);
      if (!status.ok()) continue;  // Completed this step.
      reason = status->message;
    }
    report.notes.push_back(PodNote{RefOf(pod), std::move(reason)});
  }
}

}  // namespace karpenter::drain
