// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Random watch-event streams for testing a state::ClusterState (or any
// host's own informer cache) against a reference: a small random cluster
// delivered as ADDED events, then a stream of the events a watch can deliver,
// the awkward ones included.
//
// The cluster: NodePools with disruption budgets and consolidation on,
// managed Nodes with their NodeClaims (m5.large / m5.xlarge, on demand, in
// two zones) and CSINodes, pods of a few apps owned by ReplicaSets with a
// PDB per app, some pending, some terminating, a DaemonSet with a pod per
// node, the StorageClass "gp3", PersistentVolumes with their claims and
// VolumeAttachments. Every object carries a decimal metadata.resourceVersion
// drawn from one counter, as an API server's etcd revision.
//
// The stream mixes, by the odds of RandomEventOptions:
//  - changes that matter to a disruption pass: a pod moved to another node,
//    unbound, terminating or relabelled; node labels, taints, cordons and
//    readiness; NodePool budgets and consolidation settings; NodeClaim
//    conditions (Drifted, Initialized) and deletion; PDB allowances;
//    DaemonSet requests; claim bindings; StorageClass binding modes;
//  - new objects, deletions, and re-adds of deleted objects;
//  - replays (the previous event again, same resourceVersion), stale events
//    (an older version of an object, MODIFIED or DELETED), DELETED events
//    for objects that do not exist, events whose resourceVersion is not an
//    integer ("" or "x<n>"), pods of namespace "default" sent with an empty
//    namespace;
//  - rarely, invalid events: an unnamed object, a StorageClass whose
//    volumeBindingMode is "Later".
// It does not say what a cache should do with them: that is the test's
// reference model. Same seed and options, same events.
//
// Thread-safety: a generator is a value with no synchronisation, to be used
// from one thread at a time.

#ifndef KARPENTER_TESTING_RANDOM_EVENTS_H_
#define KARPENTER_TESTING_RANDOM_EVENTS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "karpenter/cloud_provider.h"
#include "karpenter/state/cluster_state.h"

namespace karpenter::testing {

struct RandomEventOptions {
  // The initial cluster. Every count must be >= 0 (node_pools >= 1 when
  // nodes > 0); the generator clamps what is out of range.
  int node_pools = 2;
  int nodes = 6;
  // Application pods per node, pending pods (no node) and terminating pods
  // (deletionTimestamp set) among the bound ones.
  int pods_per_node = 3;
  int pending_pods = 2;
  int terminating_pods = 1;
  // Apps (each with a PDB) and namespaces the pods are spread over.
  int apps = 3;
  int namespaces = 2;
  int daemon_sets = 1;
  int persistent_volumes = 2;
  // When set, the first app's pods spread over zones (maxSkew 1,
  // DoNotSchedule) and the second app's pods require hostname
  // anti-affinity among themselves and against the third app's pods, which
  // carry no term of their own; the third app's pods hold host port 9100,
  // and half of them select the first zone (nodeSelector).
  bool scheduling_constraints = false;
  // Percent odds, per Next() event, of the awkward kinds of event; the rest
  // are changes, additions and deletions.
  int replay_percent = 8;
  int stale_percent = 8;
  int absent_delete_percent = 5;
  int non_numeric_rv_percent = 6;
  int invalid_percent = 3;
};

class RandomEventGenerator {
 public:
  explicit RandomEventGenerator(uint64_t seed, RandomEventOptions options = {});

  // The initial cluster as ADDED events, kinds in ObjectSet order. Call
  // once, before Next(); a second call returns nothing.
  std::vector<state::Event> InitialEvents();

  // The next event of the stream (see the file comment). Its origin is
  // "event <n>", counting from 1 over InitialEvents() and Next() together.
  state::Event Next();

  // The instant the objects' timestamps are relative to: every object is
  // created an hour before it and terminating objects are deleted at it.
  // A pass decided at now() + 1h sees consolidatable nodes.
  absl::Time now() const;

  // A catalogue offering the instance types the nodes run (with on-demand
  // prices) to every NodePool the stream may name.
  InstanceTypeCatalog Catalog() const;

 private:
  struct Tracked {
    state::Object current;
    // Earlier versions, oldest first (for stale events).
    std::vector<state::Object> history;
    bool live = true;
  };

  int Roll(int n);  // Uniform in [0, n); 0 when n <= 0.
  bool Chance(int percent);
  std::string NextRv();
  state::Event Emit(state::EventType type, state::Object object);
  // Tracks `object` (its key from kind, namespace and name) as live.
  void Track(const state::Object& object);
  std::string KeyOf(const state::Object& object) const;
  // Indexes of tracked objects that are live (or not).
  std::vector<size_t> Live(bool live) const;
  // The names of the nodes tracked as live.
  std::vector<std::string> LiveNodes() const;
  // A ReplicaSet pod of app `app` named `name` on `node` ("": pending), in
  // a random namespace with a random CPU request; `running` also sets its
  // start time and (when bound) a Ready condition.
  v1::Pod AppPod(int app, std::string name, const std::string& node,
                 absl::Time created, bool running);
  // A changed version of `object` (fields that matter to a pass).
  void Mutate(state::Object& object);
  state::Object NewObject();

  RandomEventOptions options_;
  std::mt19937_64 rng_;
  uint64_t revision_ = 0;
  uint64_t events_ = 0;
  int created_ = 0;  // Names of objects added by the stream.
  bool initial_done_ = false;
  std::vector<Tracked> tracked_;
  std::map<std::string, size_t> index_;
  std::optional<state::Event> last_;
};

}  // namespace karpenter::testing

#endif  // KARPENTER_TESTING_RANDOM_EVENTS_H_
