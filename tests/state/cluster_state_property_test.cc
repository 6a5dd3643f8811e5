// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// ClusterState against a reference model, over random event streams
// (testing::RandomEventGenerator): after every event the outcome, the
// generation and the size are the model's; at checkpoints the exported
// objects are the model's, object for object, and the plan decided from
// Publish()'s facts is, byte for byte, the plan decided from a Snapshot
// built from scratch over the model's objects; a publication taken earlier
// still decides its earlier plan after more events.
//
// The model is written from the rules of cluster_state.h's file comment,
// as plainly as possible: one list of objects in the order of their (last)
// addition, searched linearly, and a map of tombstones.

#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "google/protobuf/util/message_differencer.h"
#include "karpenter/disruption/controller.h"
#include "karpenter/disruption/plan_proto.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/state/cluster_state.h"
#include "karpenter/testing/random_events.h"
#include "karpenter/testing/snapshot_equal.h"

namespace karpenter::state {
namespace {

using ::google::protobuf::util::MessageDifferencer;

// --- The reference model. ----------------------------------------------------

bool Namespaced(const Object& object) {
  return std::holds_alternative<v1::Pod>(object) ||
         std::holds_alternative<v1::PodDisruptionBudget>(object) ||
         std::holds_alternative<v1::PersistentVolumeClaim>(object) ||
         std::holds_alternative<v1::DaemonSet>(object);
}

v1::ObjectMeta& Meta(Object& object) {
  return *std::visit(
      [](auto& o) -> v1::ObjectMeta* { return o.mutable_metadata(); }, object);
}

std::optional<uint64_t> NumericRv(const std::string& rv) {
  uint64_t v = 0;
  if (rv.empty() || !absl::SimpleAtoi(rv, &v)) return std::nullopt;
  return v;
}

// Appends `object` to its list of `set`.
void AddTo(snapshot::ObjectSet& set, const Object& object) {
  std::visit(
      [&set](const auto& o) {
        using T = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<T, v1::Node>) {
          set.nodes.push_back(o);
        } else if constexpr (std::is_same_v<T, v1::Pod>) {
          set.pods.push_back(o);
        } else if constexpr (std::is_same_v<T, v1::PodDisruptionBudget>) {
          set.pdbs.push_back(o);
        } else if constexpr (std::is_same_v<T, v1::NodePool>) {
          set.node_pools.push_back(o);
        } else if constexpr (std::is_same_v<T, v1::NodeClaim>) {
          set.node_claims.push_back(o);
        } else if constexpr (std::is_same_v<T, v1::VolumeAttachment>) {
          set.volume_attachments.push_back(o);
        } else if constexpr (std::is_same_v<T, v1::PersistentVolumeClaim>) {
          set.persistent_volume_claims.push_back(o);
        } else if constexpr (std::is_same_v<T, v1::PersistentVolume>) {
          set.persistent_volumes.push_back(o);
        } else if constexpr (std::is_same_v<T, v1::StorageClass>) {
          set.storage_classes.push_back(o);
        } else if constexpr (std::is_same_v<T, v1::CSINode>) {
          set.csi_nodes.push_back(o);
        } else {
          static_assert(std::is_same_v<T, v1::DaemonSet>);
          set.daemon_sets.push_back(o);
        }
      },
      object);
}

// What the model expects of one Apply: an outcome, or an error.
struct Expected {
  std::optional<Applied> applied = std::nullopt;
};

class Model {
 public:
  Expected Apply(const Event& event) {
    Object object = event.object;
    v1::ObjectMeta& meta = Meta(object);
    if (Namespaced(object) && meta.namespace_().empty()) {
      meta.set_namespace_("default");
    }
    if (meta.name().empty()) return {};
    if (event.type != EventType::kDeleted) {
      if (const auto* sc = std::get_if<v1::StorageClass>(&object);
          sc != nullptr && sc->has_volume_binding_mode() &&
          sc->volume_binding_mode() != "Immediate" &&
          sc->volume_binding_mode() != "WaitForFirstConsumer") {
        return {};
      }
    }
    const std::string key =
        absl::StrCat(object.index(), "/", meta.namespace_(), "/", meta.name());
    const std::optional<uint64_t> rv = NumericRv(meta.resource_version());
    size_t at = entries_.size();
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (entries_[i].key == key) at = i;
    }
    const bool held = at < entries_.size();
    const std::optional<uint64_t> held_rv =
        held ? entries_[at].rv : std::nullopt;
    const bool older = rv && held_rv && *rv < *held_rv;
    if (event.type == EventType::kDeleted) {
      if (!held) return {Applied::kIgnored};
      // Only an older DELETED is stale: one with the stored object's own
      // resourceVersion (an informer's relist finding the object gone)
      // deletes it; "equal changes nothing" is for ADDED and MODIFIED.
      if (older) return {Applied::kStale};
      // The tombstone remembers the newest resourceVersion known.
      std::optional<uint64_t> last = held_rv;
      if (rv && (!last || *rv > *last)) last = rv;
      if (last) tombstones_[key] = *last;
      entries_.erase(entries_.begin() + static_cast<ptrdiff_t>(at));
      ++generation_;
      return {Applied::kDeleted};
    }
    if (held) {
      if (older) return {Applied::kStale};
      if (rv && held_rv && *rv == *held_rv) return {Applied::kUnchanged};
      entries_[at].object = std::move(object);
      entries_[at].rv = rv;
      ++generation_;
      return {Applied::kStored};
    }
    if (const auto tomb = tombstones_.find(key); tomb != tombstones_.end()) {
      if (rv && *rv <= tomb->second) return {Applied::kStale};
      tombstones_.erase(tomb);
    }
    entries_.push_back({.key = key, .object = std::move(object), .rv = rv});
    ++generation_;
    return {Applied::kStored};
  }

  snapshot::ObjectSet Objects() const {
    snapshot::ObjectSet set;
    for (const Entry& e : entries_) AddTo(set, e.object);
    return set;
  }

  uint64_t generation() const { return generation_; }
  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    std::string key;
    Object object;
    std::optional<uint64_t> rv;
  };
  std::vector<Entry> entries_;
  std::map<std::string, uint64_t> tombstones_;
  uint64_t generation_ = 0;
};

// --- Comparisons. ------------------------------------------------------------

template <typename T>
void CheckSameList(const std::vector<T>& got, const std::vector<T>& want,
                   const char* list) {
  INFO(list);
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("index " << i << ": got " << got[i].ShortDebugString() << "\nwant "
                  << want[i].ShortDebugString());
    CHECK(MessageDifferencer::Equals(got[i], want[i]));
  }
}

void CheckSameObjects(const snapshot::ObjectSet& got,
                      const snapshot::ObjectSet& want) {
  CheckSameList(got.nodes, want.nodes, "nodes");
  CheckSameList(got.pods, want.pods, "pods");
  CheckSameList(got.pdbs, want.pdbs, "pdbs");
  CheckSameList(got.node_pools, want.node_pools, "node_pools");
  CheckSameList(got.node_claims, want.node_claims, "node_claims");
  CheckSameList(got.volume_attachments, want.volume_attachments,
                "volume_attachments");
  CheckSameList(got.persistent_volume_claims, want.persistent_volume_claims,
                "persistent_volume_claims");
  CheckSameList(got.persistent_volumes, want.persistent_volumes,
                "persistent_volumes");
  CheckSameList(got.storage_classes, want.storage_classes, "storage_classes");
  CheckSameList(got.csi_nodes, want.csi_nodes, "csi_nodes");
  CheckSameList(got.daemon_sets, want.daemon_sets, "daemon_sets");
  CHECK(got.skipped_kinds == want.skipped_kinds);
}

// The plan as text, or the error.
std::string PlanText(const absl::StatusOr<disruption::Plan>& plan) {
  if (!plan.ok()) return absl::StrCat("error: ", plan.status().ToString());
  return disruption::PlanToProto(*plan).DebugString();
}

struct Pass {
  disruption::Controller controller;
  disruption::PassInputs inputs;
  absl::Time now = absl::UnixEpoch();
};

std::string PlanFromScratch(const Pass& pass, snapshot::ObjectSet objects) {
  absl::StatusOr<snapshot::Snapshot> built =
      snapshot::Snapshot::Build(std::move(objects));
  if (!built.ok()) return absl::StrCat("error: ", built.status().ToString());
  return PlanText(pass.controller.Decide(*built, pass.inputs, pass.now));
}

std::string PlanFromPublished(const Pass& pass, const Published& published) {
  return PlanText(
      pass.controller.Decide(*published.facts, pass.inputs, pass.now));
}

// --- The property.
// -------------------------------------------------------------

struct RunOptions {
  testing::RandomEventOptions cluster = {};
  int events = 150;
  int checkpoints = 3;
  // Apply only the stream's Pod events (the others are drawn and dropped),
  // so that successive publications share every other kind and hand their
  // node facts on (SnapshotFacts::Build's `previous`).
  bool pods_only = false;
  // When > 0, publish after every `publish_every`-th event between
  // checkpoints without deciding: the checkpoints' facts then follow
  // publications whose lazily built parts were never built.
  int publish_every = 0;
};

// What the runs saw, so the test can tell it exercised what it claims.
struct Coverage {
  std::map<Applied, int> outcomes = {};
  int errors = 0;
  int plans = 0;
  int plans_with_commands = 0;
  // Plan.acted of the plans, by method name.
  std::map<std::string, int> acted = {};
  // Publications whose NodePool budgets were handed on by the previous one.
  int handed_on = 0;
};

void RunSeed(uint64_t seed, const RunOptions& options, Coverage& coverage) {
  INFO("seed " << seed);
  testing::RandomEventGenerator generator(seed, options.cluster);
  ClusterState state;
  Model model;
  Pass pass;
  pass.inputs.catalog = generator.Catalog();
  pass.now = generator.now() + absl::Hours(1);

  const auto apply = [&](const Event& event) {
    INFO(event.origin << ": type " << static_cast<int>(event.type) << ", kind "
                      << event.object.index() << ", "
                      << std::visit(
                             [](const auto& o) {
                               return o.metadata().ShortDebugString();
                             },
                             event.object));
    const uint64_t generation = state.generation();
    const size_t size = state.size();
    const Expected want = model.Apply(event);
    const absl::StatusOr<Applied> got = state.Apply(event);
    if (!want.applied.has_value()) {
      ++coverage.errors;
      REQUIRE_FALSE(got.ok());
      CHECK(got.status().code() == absl::StatusCode::kInvalidArgument);
      CHECK(state.generation() == generation);
      CHECK(state.size() == size);
      return;
    }
    INFO(got.status().ToString());
    REQUIRE(got.ok());
    CHECK(*got == *want.applied);
    ++coverage.outcomes[*got];
    CHECK(state.generation() == model.generation());
    CHECK(state.size() == model.size());
  };

  std::shared_ptr<const Published> last;
  const auto check = [&]() -> std::string {
    CHECK(state.generation() == model.generation());
    CheckSameObjects(state.Export(), model.Objects());
    absl::StatusOr<std::shared_ptr<const Published>> published =
        state.Publish();
    REQUIRE(published.ok());
    if (last != nullptr && last != *published &&
        &last->facts->budgets() == &(*published)->facts->budgets()) {
      ++coverage.handed_on;
    }
    last = *published;
    CHECK((*published)->generation == state.generation());
    // Nothing applied since: the same publication.
    CHECK(state.Publish()->get() == published->get());
    // The snapshot, accessor by accessor (pods on their nodes: the node
    // hints the state keeps across snapshots), is the one built from
    // scratch.
    absl::StatusOr<snapshot::Snapshot> scratch =
        snapshot::Snapshot::Build(model.Objects());
    REQUIRE(scratch.ok());
    CHECK(testing::SnapshotDiff((*published)->snapshot, *scratch).empty());
    const std::string from_state = PlanFromPublished(pass, **published);
    const std::string from_model = PlanFromScratch(pass, model.Objects());
    CHECK(from_state == from_model);
    ++coverage.plans;
    if (from_state.find("commands {") != std::string::npos) {
      ++coverage.plans_with_commands;
    }
    if (const size_t at = from_state.find("acted: \"");
        at != std::string::npos) {
      const size_t from = at + 8;
      ++coverage
            .acted[from_state.substr(from, from_state.find('"', from) - from)];
    }
    return from_state;
  };

  // The initial cluster: as events, or (odd seeds) as one ApplyAll, an
  // informer's initial LIST.
  if (seed % 2 == 0) {
    for (const Event& event : generator.InitialEvents()) apply(event);
  } else {
    snapshot::ObjectSet listed;
    for (const Event& event : generator.InitialEvents()) {
      AddTo(listed, event.object);
      REQUIRE(model.Apply(event).applied == Applied::kStored);
    }
    REQUIRE(state.ApplyAll(std::move(listed)).ok());
    CHECK(state.size() == model.size());
  }
  check();

  std::shared_ptr<const Published> held;
  std::string held_plan;
  const int every = options.events / options.checkpoints + 1;
  for (int i = 1; i <= options.events; ++i) {
    Event event = generator.Next();
    while (options.pods_only &&
           !std::holds_alternative<v1::Pod>(event.object)) {
      event = generator.Next();
    }
    apply(event);
    if (options.publish_every > 0 && i % options.publish_every == 0 &&
        i % every != 0) {
      REQUIRE(state.Publish().ok());
    }
    if (i % every == 0) {
      const std::string plan = check();
      if (held == nullptr) {
        held = *state.Publish();
        held_plan = plan;
      }
    }
  }
  check();
  // (c) The publication taken at the first checkpoint decides what it
  // decided then.
  REQUIRE(held != nullptr);
  CHECK(PlanFromPublished(pass, *held) == held_plan);
}

void CheckCoverage(const Coverage& coverage) {
  // The streams must have exercised every outcome, errors, and plans that
  // act: otherwise the equalities above prove little.
  for (Applied a : {Applied::kStored, Applied::kDeleted, Applied::kUnchanged,
                    Applied::kStale, Applied::kIgnored}) {
    INFO("outcome " << static_cast<int>(a));
    CHECK(coverage.outcomes.count(a) > 0);
  }
  CHECK(coverage.errors > 0);
  CHECK(coverage.plans_with_commands > 0);
  // Consolidation, which simulates the pods on the other nodes, acted.
  for (const auto& [method, plans] : coverage.acted) {
    UNSCOPED_INFO(method << ": " << plans << " plans");
  }
  CHECK(coverage.acted.count("SingleNodeConsolidation") +
            coverage.acted.count("MultiNodeConsolidation") >
        0);
  CHECK(coverage.plans_with_commands < coverage.plans);
}

TEST_CASE(
    "cluster state property: random event streams match the reference "
    "model and its plans",
    "[cluster-state-property]") {
  Coverage coverage;
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    RunSeed(seed, {}, coverage);
  }
  // With publications nobody decided on between the checkpoints.
  RunOptions unread;
  unread.publish_every = 3;
  for (uint64_t seed = 101; seed <= 130; ++seed) {
    RunSeed(seed, unread, coverage);
  }
  CheckCoverage(coverage);
}

TEST_CASE(
    "cluster state property: longer streams over larger clusters match the "
    "reference model",
    "[cluster-state-property][slow]") {
  Coverage coverage;
  RunOptions options;
  options.cluster.node_pools = 4;
  options.cluster.nodes = 20;
  options.cluster.pods_per_node = 6;
  options.cluster.pending_pods = 5;
  options.cluster.terminating_pods = 4;
  options.cluster.apps = 6;
  options.cluster.namespaces = 3;
  options.cluster.persistent_volumes = 5;
  options.events = 600;
  options.checkpoints = 6;
  for (uint64_t seed = 1000; seed < 1120; ++seed) {
    RunSeed(seed, options, coverage);
  }
  CheckCoverage(coverage);
}

TEST_CASE(
    "cluster state property: publications after pod events alone hand their "
    "node facts on and match the plans from scratch",
    "[cluster-state-property]") {
  Coverage coverage;
  RunOptions options;
  options.events = 60;
  options.checkpoints = 10;
  options.pods_only = true;
  for (uint64_t seed = 2000; seed < 2060; ++seed) {
    RunSeed(seed, options, coverage);
  }
  // Without DaemonSets, a new node's overhead is summed from the DaemonSet
  // pods, which pod events change: the pool table is not handed on as is.
  options.cluster.daemon_sets = 0;
  for (uint64_t seed = 2100; seed < 2120; ++seed) {
    RunSeed(seed, options, coverage);
  }
  // Pods with topology spread and anti-affinity: their compiled
  // constraints are handed on with their shapes.
  options.cluster.daemon_sets = 1;
  options.cluster.scheduling_constraints = true;
  for (uint64_t seed = 2200; seed < 2230; ++seed) {
    RunSeed(seed, options, coverage);
  }
  // Publications nobody decided on in between: the checkpoints' facts
  // take the node facts those never built from the last that did.
  options.cluster.scheduling_constraints = false;
  options.publish_every = 2;
  for (uint64_t seed = 2300; seed < 2330; ++seed) {
    RunSeed(seed, options, coverage);
  }
  // Most checkpoints follow pod events only: their facts reused the node
  // facts of the previous publication.
  CHECK(coverage.handed_on > 110 * 5);
  CHECK(coverage.plans_with_commands > 0);
  CHECK(coverage.acted.count("SingleNodeConsolidation") +
            coverage.acted.count("MultiNodeConsolidation") >
        0);
}

}  // namespace
}  // namespace karpenter::state
