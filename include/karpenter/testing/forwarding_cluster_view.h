// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// ForwardingClusterView: a ClusterView that passes every call on to another
// ClusterView unchanged. A test host derives from it and overrides only the
// calls it changes: reads served from a lagging cache, reads that lack an
// object the cache saw deleted first, writes it records. No Karpenter rule
// is ported here; the contract of each call is ClusterView's
// (karpenter/cluster_view.h).
//
// Thread-safety: as the inner view's; the forwarder holds no state.

#ifndef KARPENTER_TESTING_FORWARDING_CLUSTER_VIEW_H_
#define KARPENTER_TESTING_FORWARDING_CLUSTER_VIEW_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "karpenter/cluster_view.h"
#include "karpenter/eviction_client.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/core.pb.h"
#include "karpenter/v1/karpenter.pb.h"

namespace karpenter::testing {

class ForwardingClusterView : public ClusterView {
 public:
  // `inner` must outlive the forwarder.
  explicit ForwardingClusterView(ClusterView& inner) : inner_(inner) {}

  absl::StatusOr<snapshot::Snapshot> Read() override { return inner_.Read(); }
  absl::Status AddFinalizer(ObjectKind kind, absl::string_view name,
                            absl::string_view finalizer) override {
    return inner_.AddFinalizer(kind, name, finalizer);
  }
  absl::Status RemoveFinalizer(ObjectKind kind, absl::string_view name,
                               absl::string_view finalizer) override {
    return inner_.RemoveFinalizer(kind, name, finalizer);
  }
  absl::Status TaintNode(absl::string_view node,
                         const v1::Taint& taint) override {
    return inner_.TaintNode(node, taint);
  }
  absl::Status SetLabel(ObjectKind kind, absl::string_view name,
                        absl::string_view key,
                        absl::string_view value) override {
    return inner_.SetLabel(kind, name, key, value);
  }
  absl::Status SetAnnotation(ObjectKind kind, absl::string_view name,
                             absl::string_view key,
                             absl::string_view value) override {
    return inner_.SetAnnotation(kind, name, key, value);
  }
  absl::Status SetNodeClaimCondition(absl::string_view node_claim,
                                     const v1::Condition& condition) override {
    return inner_.SetNodeClaimCondition(node_claim, condition);
  }
  absl::Status DeleteNode(absl::string_view node) override {
    return inner_.DeleteNode(node);
  }
  absl::Status DeleteNodeClaim(absl::string_view node_claim) override {
    return inner_.DeleteNodeClaim(node_claim);
  }
  absl::Status DeletePod(const PodRef& pod, absl::Duration grace) override {
    return inner_.DeletePod(pod, grace);
  }
  absl::Status CreateNodeClaim(const v1::NodeClaim& node_claim) override {
    return inner_.CreateNodeClaim(node_claim);
  }
  absl::Status RemoveTaint(absl::string_view node, absl::string_view key,
                           absl::string_view effect) override {
    return inner_.RemoveTaint(node, key, effect);
  }
  absl::Status RemoveNodeClaimCondition(absl::string_view node_claim,
                                        absl::string_view type) override {
    return inner_.RemoveNodeClaimCondition(node_claim, type);
  }

 private:
  ClusterView& inner_;
};

}  // namespace karpenter::testing

#endif  // KARPENTER_TESTING_FORWARDING_CLUSTER_VIEW_H_
