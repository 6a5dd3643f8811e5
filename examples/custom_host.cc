// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// A custom autoscaler embedding the SDK: it implements the three host
// interfaces (ClusterView, EvictionClient, CloudProvider) over its own
// state and runs Karpenter's disruption and termination loop on them.
//
// The host's "own state" is deliberately plain: the cluster objects in an
// ObjectSet (a real host keeps informer caches) and the cloud's instances
// in a map (a real host calls its cloud's API). Every mutation states the
// result it establishes, as the interfaces' contracts require, so the loop
// is safe to re-run after a crash.
//
// The loop: disruption::Runner decides (here: the empty node of the demo
// cluster goes, after Karpenter's 15 s re-validation) and deletes the
// NodeClaim; termination::Executor then taints, drains through evictions,
// terminates the instance and removes the finalizers. The host calls both
// whenever something changed and at `next_wake` at the latest; with a
// FakeClock this program runs in milliseconds (a daemon would use
// karpenter::RealClock() and sleep).
//
// Usage: custom_host [CLUSTER.yaml]

#include <algorithm>
#include <iostream>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "karpenter/budget/pdb.h"
#include "karpenter/cloud_provider.h"
#include "karpenter/cluster_view.h"
#include "karpenter/disruption/plan_proto.h"
#include "karpenter/disruption/runner.h"
#include "karpenter/event_recorder.h"
#include "karpenter/metrics.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/termination/executor.h"
#include "karpenter/testing/fake_clock.h"

namespace {

using karpenter::ObjectKind;
namespace v1 = karpenter::v1;

absl::Status NotFound(absl::string_view what, absl::string_view name) {
  return absl::NotFoundError(absl::StrCat(what, " \"", name, "\" not found"));
}

google::protobuf::Timestamp Stamp(absl::Time t) {
  google::protobuf::Timestamp ts;
  ts.set_seconds(absl::ToUnixSeconds(t));
  return ts;
}

// The cluster as the host keeps it, behind ClusterView and EvictionClient.
// Single-threaded here; a threaded host would guard it with a mutex.
class Inventory final : public karpenter::ClusterView,
                        public karpenter::EvictionClient {
 public:
  Inventory(karpenter::snapshot::ObjectSet objects,
            const karpenter::Clock& clock)
      : objects_(std::move(objects)), clock_(clock) {}

  absl::StatusOr<karpenter::snapshot::Snapshot> Read() override {
    karpenter::snapshot::ObjectSet copy = objects_;
    return karpenter::snapshot::Snapshot::Build(std::move(copy));
  }

  absl::Status AddFinalizer(ObjectKind kind, absl::string_view name,
                            absl::string_view finalizer) override {
    v1::ObjectMeta* meta = Meta(kind, name);
    if (meta == nullptr) return NotFound(ObjectKindName(kind), name);
    if (!HasFinalizer(*meta, finalizer)) {
      meta->add_finalizers(std::string(finalizer));
    }
    return absl::OkStatus();
  }

  absl::Status RemoveFinalizer(ObjectKind kind, absl::string_view name,
                               absl::string_view finalizer) override {
    v1::ObjectMeta* meta = Meta(kind, name);
    if (meta == nullptr) return NotFound(ObjectKindName(kind), name);
    auto* list = meta->mutable_finalizers();
    list->erase(std::remove(list->begin(), list->end(), finalizer),
                list->end());
    CollectGarbage();
    return absl::OkStatus();
  }

  absl::Status TaintNode(absl::string_view node,
                         const v1::Taint& taint) override {
    v1::Node* n = FindNode(node);
    if (n == nullptr) return NotFound("Node", node);
    absl::Status s = RemoveTaint(node, taint.key(), taint.effect());
    *n->mutable_spec()->add_taints() = taint;
    return s;
  }

  absl::Status RemoveTaint(absl::string_view node, absl::string_view key,
                           absl::string_view effect) override {
    v1::Node* n = FindNode(node);
    if (n == nullptr) return NotFound("Node", node);
    auto* taints = n->mutable_spec()->mutable_taints();
    taints->erase(std::remove_if(taints->begin(), taints->end(),
                                 [&](const v1::Taint& t) {
                                   return t.key() == key &&
                                          t.effect() == effect;
                                 }),
                  taints->end());
    return absl::OkStatus();
  }

  absl::Status SetLabel(ObjectKind kind, absl::string_view name,
                        absl::string_view key,
                        absl::string_view value) override {
    v1::ObjectMeta* meta = Meta(kind, name);
    if (meta == nullptr) return NotFound(ObjectKindName(kind), name);
    (*meta->mutable_labels())[std::string(key)] = std::string(value);
    return absl::OkStatus();
  }

  absl::Status SetAnnotation(ObjectKind kind, absl::string_view name,
                             absl::string_view key,
                             absl::string_view value) override {
    v1::ObjectMeta* meta = Meta(kind, name);
    if (meta == nullptr) return NotFound(ObjectKindName(kind), name);
    (*meta->mutable_annotations())[std::string(key)] = std::string(value);
    return absl::OkStatus();
  }

  absl::Status SetNodeClaimCondition(absl::string_view node_claim,
                                     const v1::Condition& condition) override {
    v1::NodeClaim* claim = FindNodeClaim(node_claim);
    if (claim == nullptr) return NotFound("NodeClaim", node_claim);
    v1::Condition wanted = condition;
    if (!wanted.has_last_transition_time()) {
      *wanted.mutable_last_transition_time() = Stamp(clock_.Now());
    }
    for (v1::Condition& c : *claim->mutable_status()->mutable_conditions()) {
      if (c.type() != condition.type()) continue;
      // Same status: no transition, keep its time.
      if (c.status() == wanted.status()) {
        *wanted.mutable_last_transition_time() = c.last_transition_time();
      }
      c = wanted;
      return absl::OkStatus();
    }
    *claim->mutable_status()->add_conditions() = wanted;
    return absl::OkStatus();
  }

  absl::Status RemoveNodeClaimCondition(absl::string_view node_claim,
                                        absl::string_view type) override {
    v1::NodeClaim* claim = FindNodeClaim(node_claim);
    if (claim == nullptr) return NotFound("NodeClaim", node_claim);
    auto* conditions = claim->mutable_status()->mutable_conditions();
    conditions->erase(std::remove_if(conditions->begin(), conditions->end(),
                                     [&](const v1::Condition& c) {
                                       return c.type() == type;
                                     }),
                      conditions->end());
    return absl::OkStatus();
  }

  absl::Status DeleteNode(absl::string_view node) override {
    return MarkDeleted(ObjectKind::kNode, node);
  }

  absl::Status DeleteNodeClaim(absl::string_view node_claim) override {
    return MarkDeleted(ObjectKind::kNodeClaim, node_claim);
  }

  // The host's pods stop at once: no kubelet grace period is modelled.
  absl::Status DeletePod(const karpenter::PodRef& pod,
                         absl::Duration /*grace*/) override {
    return ErasePod(pod) ? absl::OkStatus() : NotFound("Pod", pod.name);
  }

  absl::Status CreateNodeClaim(const v1::NodeClaim& node_claim) override {
    if (FindNodeClaim(node_claim.metadata().name()) != nullptr) {
      return absl::AlreadyExistsError(node_claim.metadata().name());
    }
    objects_.node_claims.push_back(node_claim);
    return absl::OkStatus();
  }

  // Honours PodDisruptionBudgets as the API server would: 429 when the
  // pod's PDB allows no disruption now.
  karpenter::EvictionResponse Evict(const karpenter::PodRef& pod) override {
    absl::StatusOr<karpenter::snapshot::Snapshot> snap = Read();
    if (!snap.ok()) return {karpenter::EvictionResult::kOtherError, 0, ""};
    std::optional<karpenter::snapshot::PodIndex> p =
        snap->FindPod(pod.namespace_name, pod.name);
    if (!p.has_value()) return {karpenter::EvictionResult::kNotFound, 404, ""};
    const karpenter::budget::PdbIndex pdbs =
        karpenter::budget::PdbIndex::Build(*snap);
    if (pdbs.CanEvict(*snap, *p, /*evictable=*/true).blocked()) {
      return {karpenter::EvictionResult::kBlockedByPdb, 429,
              "Cannot evict pod as it would violate the pod's disruption "
              "budget."};
    }
    ErasePod(pod);
    return {karpenter::EvictionResult::kEvicted, 200, ""};
  }

  size_t node_count() const { return objects_.nodes.size(); }

 private:
  v1::Node* FindNode(absl::string_view name) {
    for (v1::Node& n : objects_.nodes) {
      if (n.metadata().name() == name) return &n;
    }
    return nullptr;
  }
  v1::NodeClaim* FindNodeClaim(absl::string_view name) {
    for (v1::NodeClaim& c : objects_.node_claims) {
      if (c.metadata().name() == name) return &c;
    }
    return nullptr;
  }
  v1::ObjectMeta* Meta(ObjectKind kind, absl::string_view name) {
    if (kind == ObjectKind::kNode) {
      v1::Node* n = FindNode(name);
      return n == nullptr ? nullptr : n->mutable_metadata();
    }
    v1::NodeClaim* c = FindNodeClaim(name);
    return c == nullptr ? nullptr : c->mutable_metadata();
  }
  static bool HasFinalizer(const v1::ObjectMeta& meta, absl::string_view f) {
    return std::find(meta.finalizers().begin(), meta.finalizers().end(), f) !=
           meta.finalizers().end();
  }

  // Kubernetes' deletion: finalizers hold the object with a timestamp.
  absl::Status MarkDeleted(ObjectKind kind, absl::string_view name) {
    v1::ObjectMeta* meta = Meta(kind, name);
    if (meta == nullptr) return NotFound(ObjectKindName(kind), name);
    if (!meta->has_deletion_timestamp()) {
      *meta->mutable_deletion_timestamp() = Stamp(clock_.Now());
    }
    CollectGarbage();
    return absl::OkStatus();
  }

  // Objects being deleted whose finalizers are all gone disappear; so do
  // the pods of a Node that disappeared.
  void CollectGarbage() {
    auto gone = [](const v1::ObjectMeta& m) {
      return m.has_deletion_timestamp() && m.finalizers().empty();
    };
    std::erase_if(objects_.node_claims,
                  [&](const v1::NodeClaim& c) { return gone(c.metadata()); });
    std::erase_if(objects_.nodes,
                  [&](const v1::Node& n) { return gone(n.metadata()); });
    std::erase_if(objects_.pods, [&](const v1::Pod& p) {
      return !p.spec().node_name().empty() &&
             FindNode(p.spec().node_name()) == nullptr;
    });
  }

  bool ErasePod(const karpenter::PodRef& pod) {
    return std::erase_if(objects_.pods, [&](const v1::Pod& p) {
             return p.metadata().namespace_() == pod.namespace_name &&
                    p.metadata().name() == pod.name;
           }) > 0;
  }

  karpenter::snapshot::ObjectSet objects_;
  const karpenter::Clock& clock_;
};

// The host's cloud: instances by provider ID. Termination is immediate.
class Cloud final : public karpenter::CloudProvider {
 public:
  // One instance per NodeClaim of the dump. The instance types and their
  // offerings are those the nodes run: a real cloud lists its catalogue
  // with prices.
  explicit Cloud(const karpenter::snapshot::ObjectSet& objects) {
    karpenter::snapshot::ObjectSet copy = objects;
    if (auto snap = karpenter::snapshot::Snapshot::Build(std::move(copy));
        snap.ok()) {
      catalog_ = karpenter::disruption::ObservedInstanceTypes(*snap);
    }
    for (const v1::NodeClaim& c : objects.node_claims) {
      karpenter::Instance instance;
      instance.provider_id = c.status().provider_id();
      instance.image_id = c.status().image_id();
      instances_[instance.provider_id] = instance;
    }
  }

  absl::StatusOr<karpenter::Instance> Create(
      const v1::NodeClaim& node_claim) override {
    return absl::ResourceExhaustedError(absl::StrCat(
        "this example launches nothing (", node_claim.metadata().name(), ")"));
  }
  absl::Status Delete(absl::string_view provider_id) override {
    if (instances_.erase(std::string(provider_id)) == 0) {
      return NotFound("instance", provider_id);
    }
    std::cout << "  cloud: terminated " << provider_id << "\n";
    return absl::OkStatus();
  }
  absl::StatusOr<karpenter::Instance> Get(
      absl::string_view provider_id) override {
    auto it = instances_.find(std::string(provider_id));
    if (it == instances_.end()) return NotFound("instance", provider_id);
    return it->second;
  }
  absl::StatusOr<std::vector<karpenter::Instance>> List() override {
    std::vector<karpenter::Instance> all;
    for (const auto& [id, instance] : instances_) all.push_back(instance);
    return all;
  }
  absl::StatusOr<std::optional<std::string>> IsDrifted(
      const v1::NodeClaim&) override {
    return std::nullopt;
  }
  absl::StatusOr<std::vector<karpenter::InstanceType>> GetInstanceTypes(
      const v1::NodePool& node_pool) override {
    auto it = catalog_.find(node_pool.metadata().name());
    if (it == catalog_.end()) return NotFound("NodePool", "");
    return it->second;
  }
  // RepairPolicies() is not overridden: the SDK's default (Ready False or
  // Unknown for 15 min) applies. A cloud with health signals of its own
  // publishes them there, as AWS does (testing::AwsRepairPolicies()).

 private:
  karpenter::InstanceTypeCatalog catalog_;
  std::map<std::string, karpenter::Instance> instances_;
};

// Events go to the host's log; metrics to nowhere.
class LogRecorder final : public karpenter::EventRecorder {
 public:
  void Record(const karpenter::Event& event) override {
    std::cout << "  event: " << karpenter::EventString(event) << "\n";
  }
};
class NoMetrics final : public karpenter::Metrics {
 public:
  void Add(absl::string_view, const karpenter::MetricLabels&, double) override {
  }
  void Set(absl::string_view, const karpenter::MetricLabels&, double) override {
  }
  void Observe(absl::string_view, const karpenter::MetricLabels&,
               double) override {}
};

int Fail(const absl::Status& status) {
  std::cerr << "custom_host: " << status << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string file =
      argc > 1 ? argv[1] : KARPENTER_EXAMPLES_DIR "/clusters/demo.yaml";
  karpenter::snapshot::ObjectSet objects;
  if (absl::Status s = karpenter::snapshot::LoadFile(file, objects); !s.ok()) {
    return Fail(s);
  }
  karpenter::testing::FakeClock clock(
      absl::FromUnixSeconds(1741176000));  // 2025-03-05 12:00Z
  Cloud cloud(objects);
  Inventory cluster(std::move(objects), clock);
  LogRecorder recorder;
  NoMetrics metrics;

  auto runner = karpenter::disruption::Runner::Create(cluster, cloud, recorder,
                                                      metrics, clock);
  if (!runner.ok()) return Fail(runner.status());
  auto executor = karpenter::termination::Executor::Create(
      cluster, cluster, cloud, recorder, metrics, clock);
  if (!executor.ok()) return Fail(executor.status());

  const size_t nodes_before = cluster.node_count();
  const absl::Time stop = clock.Now() + absl::Minutes(5);
  while (clock.Now() < stop) {
    auto disruption = (*runner)->RunOnce();
    if (!disruption.ok()) return Fail(disruption.status());
    for (const auto& command : disruption->plan.commands) {
      std::cout << absl::FormatTime("%H:%M:%S ", clock.Now(),
                                    absl::UTCTimeZone())
                << command.explanation << "\n";
    }
    auto termination = (*executor)->RunOnce();
    if (!termination.ok()) return Fail(termination.status());
    for (const auto& reconciled : termination->reconciled) {
      for (const std::string& action : reconciled.applied) {
        std::cout << absl::FormatTime("%H:%M:%S ", clock.Now(),
                                      absl::UTCTimeZone())
                  << karpenter::ObjectKindName(reconciled.object) << " "
                  << reconciled.name << ": " << action << "\n";
      }
    }
    // Run again at once after changes, else sleep until the next wake.
    absl::Time next = std::min(disruption->next_wake, termination->next_wake);
    if (termination->mutations > 0 || next <= clock.Now()) {
      next = clock.Now() + absl::Seconds(1);
    }
    if (absl::Status s = clock.SetTime(std::min(next, stop)); !s.ok()) {
      return Fail(s);
    }
  }
  std::cout << "nodes: " << nodes_before << " -> " << cluster.node_count()
            << "\n";
  return cluster.node_count() < nodes_before ? 0 : 1;
}
