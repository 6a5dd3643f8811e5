// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Where the disruption methods put their verdicts. The public Compute*
// functions (methods.h) collect every verdict; the Controller keeps one per
// node and tells the methods which verdicts could not change it, so that a
// pass does not format ten thousand messages it would throw away.
#ifndef KARPENTER_SRC_DISRUPTION_VERDICT_SINK_H_
#define KARPENTER_SRC_DISRUPTION_VERDICT_SINK_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "karpenter/disruption/candidates.h"
#include "karpenter/disruption/methods.h"
#include "karpenter/disruption/types.h"

namespace karpenter::disruption::internal {

// How much a verdict says about a node; a pass keeps the most telling one
// (ties: the first, i.e. the earliest method). A method that does not apply
// to the node (not drifted, consolidation disabled) says less than one that
// wanted the node and was stopped (budget, backoff, pods, simulation): a
// drifted node held by its budget must not read "ConsolidationDisabled"
// because emptiness, which runs first, does not apply to it. NotSelected
// (3) gives way to a concrete reason (4) from a later method: a lone
// candidate reads single-node consolidation's reason, not multi-node's
// "needs at least 2 candidates". Node-level exclusions (5) are final; a
// command (6) beats everything.
int VerdictRank(absl::string_view code);

// The name a verdict is filed under: the Node's, else the NodeClaim's.
inline const std::string& DisplayName(const Candidate& c) {
  return c.has_node ? c.node_name : c.node_claim_name;
}

NodeVerdict MakeVerdict(const Candidate& c, Method method,
                        absl::string_view code, std::string message);

class VerdictSink {
 public:
  virtual ~VerdictSink() = default;
  // False when a verdict `code` about `c` would be discarded, so that its
  // message need not be built.
  virtual bool Wants(const Candidate& c, absl::string_view code) const = 0;
  virtual void Put(const Candidate& c, Method method, absl::string_view code,
                   std::string message) = 0;
  // A verdict built elsewhere (a pod block of the candidate pool).
  virtual void PutBuilt(NodeVerdict v) = 0;
};

// Puts the verdict if the sink wants it; `message` is called only then.
template <typename MessageFn>
void Emit(VerdictSink& sink, const Candidate& c, Method method,
          absl::string_view code, MessageFn message) {
  if (sink.Wants(c, code)) sink.Put(c, method, code, message());
}

// Keeps every verdict, as the public methods return them.
class CollectingSink final : public VerdictSink {
 public:
  bool Wants(const Candidate&, absl::string_view) const override {
    return true;
  }
  void Put(const Candidate& c, Method method, absl::string_view code,
           std::string message) override {
    verdicts_.push_back(MakeVerdict(c, method, code, std::move(message)));
  }
  void PutBuilt(NodeVerdict v) override { verdicts_.push_back(std::move(v)); }
  // The verdicts, stably sorted by node name.
  std::vector<NodeVerdict> Take() &&;

 private:
  std::vector<NodeVerdict> verdicts_;
};

// The methods of methods.h writing to a sink; they return the commands.
std::vector<Command> RunNodePoolDeleted(const CandidatePool& pool,
                                        const MethodOptions& options,
                                        VerdictSink& sink);
// The verdict message of a NodeClaim whose NodePool `node_pool` is not in a
// snapshot that may be partial (MethodOptions::node_pools_complete false).
std::string MissingNodePoolMessage(absl::string_view node_pool,
                                   const MethodOptions& options);
// `controls` (Plan::controls): NodePools with soft-expiration take their
// expired nodes from the expiration budget; null (or a NodePool missing
// from it) is Karpenter's forceful expiration.
std::vector<Command> RunExpiration(
    const CandidatePool& pool, VerdictSink& sink,
    const std::vector<NodePoolControlState>* controls = nullptr);
// `eligible`, when given, receives the number of candidates the method's
// own filter kept (karpenter_voluntary_disruption_eligible_nodes).
std::vector<Command> RunEmptiness(const CandidatePool& pool,
                                  BudgetLedger& ledger, absl::Time now,
                                  const MethodOptions& options,
                                  VerdictSink& sink,
                                  size_t* eligible = nullptr);
std::vector<Command> RunStaticDrift(const CandidatePool& pool,
                                    BudgetLedger& ledger, VerdictSink& sink,
                                    size_t* eligible_count = nullptr);
std::vector<Command> RunDrift(const CandidatePool& pool, BudgetLedger& ledger,
                              const SchedulingSimulator& simulator,
                              const MethodOptions& options, VerdictSink& sink,
                              size_t* eligible = nullptr);

}  // namespace karpenter::disruption::internal

#endif  // KARPENTER_SRC_DISRUPTION_VERDICT_SINK_H_
