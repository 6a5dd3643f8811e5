// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/testing/random_events.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "karpenter/testing/builders.h"

namespace karpenter::testing {
namespace {

using state::Event;
using state::EventType;
using state::Object;

constexpr absl::string_view kZones[] = {"us-west-2a", "us-west-2b"};

struct NodeShape {
  absl::string_view type;
  absl::string_view cpu;
  absl::string_view memory;
  double price;
};
constexpr NodeShape kShapes[] = {{"m5.large", "2", "8Gi", 0.096},
                                 {"m5.xlarge", "4", "16Gi", 0.192}};
constexpr absl::string_view kCpus[] = {"100m", "250m", "500m", "900m"};
constexpr absl::string_view kBudgets[] = {"0", "1", "50%", "100%"};

v1::ObjectMeta& MetaOf(Object& object) {
  return *std::visit(
      [](auto& o) -> v1::ObjectMeta* { return o.mutable_metadata(); }, object);
}

void SetTime(google::protobuf::Timestamp* ts, absl::Time t) {
  ts->set_seconds(absl::ToUnixSeconds(t));
  ts->set_nanos(0);
}

std::string PoolName(int i) { return absl::StrCat("pool-", i); }
std::string AppName(int i) { return absl::StrCat("app-", i); }
std::string NamespaceName(int i) {
  return i == 0 ? "default" : absl::StrCat("team-", i);
}

}  // namespace

RandomEventGenerator::RandomEventGenerator(uint64_t seed,
                                           RandomEventOptions options)
    : options_(options), rng_(seed) {
  options_.node_pools = std::max(options_.node_pools, 1);
  options_.nodes = std::max(options_.nodes, 0);
  options_.pods_per_node = std::max(options_.pods_per_node, 0);
  options_.pending_pods = std::max(options_.pending_pods, 0);
  options_.terminating_pods = std::max(options_.terminating_pods, 0);
  options_.apps = std::max(options_.apps, 1);
  options_.namespaces = std::max(options_.namespaces, 1);
  options_.daemon_sets = std::max(options_.daemon_sets, 0);
  options_.persistent_volumes = std::max(options_.persistent_volumes, 0);
}

absl::Time RandomEventGenerator::now() const { return kTestEpoch; }

InstanceTypeCatalog RandomEventGenerator::Catalog() const {
  std::vector<InstanceType> types;
  for (const NodeShape& shape : kShapes) {
    types.push_back(MakeInstanceType({
        .name = std::string(shape.type),
        .cpu = std::string(shape.cpu),
        .memory = std::string(shape.memory),
        .pods = "29",
        .zones = {std::string(kZones[0]), std::string(kZones[1])},
        .on_demand_price = shape.price,
    }));
  }
  std::vector<std::string> pools;
  for (int i = 0; i < options_.node_pools; ++i) pools.push_back(PoolName(i));
  return MakeCatalog(pools, types);
}

int RandomEventGenerator::Roll(int n) {
  if (n <= 0) return 0;
  return static_cast<int>(rng_() % static_cast<uint64_t>(n));
}

bool RandomEventGenerator::Chance(int percent) { return Roll(100) < percent; }

std::string RandomEventGenerator::NextRv() { return absl::StrCat(++revision_); }

std::string RandomEventGenerator::KeyOf(const Object& object) const {
  const v1::ObjectMeta& meta = std::visit(
      [](const auto& o) -> const v1::ObjectMeta& { return o.metadata(); },
      object);
  return absl::StrCat(object.index(), "/", meta.namespace_(), "/", meta.name());
}

void RandomEventGenerator::Track(const Object& object) {
  const std::string key = KeyOf(object);
  const auto it = index_.find(key);
  if (it == index_.end()) {
    index_.emplace(key, tracked_.size());
    tracked_.push_back({.current = object, .history = {}, .live = true});
    return;
  }
  Tracked& t = tracked_[it->second];
  t.history.push_back(std::move(t.current));
  t.current = object;
  t.live = true;
}

std::vector<size_t> RandomEventGenerator::Live(bool live) const {
  std::vector<size_t> out;
  for (size_t i = 0; i < tracked_.size(); ++i) {
    if (tracked_[i].live == live) out.push_back(i);
  }
  return out;
}

std::vector<std::string> RandomEventGenerator::LiveNodes() const {
  std::vector<std::string> out;
  for (const Tracked& t : tracked_) {
    if (t.live && std::holds_alternative<v1::Node>(t.current)) {
      out.push_back(std::get<v1::Node>(t.current).metadata().name());
    }
  }
  return out;
}

Event RandomEventGenerator::Emit(EventType type, Object object) {
  Event event{.type = type,
              .object = std::move(object),
              .origin = absl::StrCat("event ", ++events_)};
  last_ = event;
  return event;
}

std::vector<Event> RandomEventGenerator::InitialEvents() {
  std::vector<Event> out;
  if (initial_done_) return out;
  initial_done_ = true;
  const absl::Time created = now() - absl::Hours(1);
  snapshot::ObjectSet set;

  std::vector<std::string> node_names;
  std::vector<std::string> node_zones;
  for (int i = 0; i < options_.nodes; ++i) {
    const NodeShape& shape = kShapes[Roll(2)];
    const std::string name = absl::StrCat("node-", i);
    const std::string zone(kZones[Roll(2)]);
    const std::string pool = PoolName(Roll(options_.node_pools));
    ManagedNode managed =
        MakeManagedNode({.name = name,
                         .nodepool = pool,
                         .instance_type = std::string(shape.type),
                         .zone = zone,
                         .capacity_type = "on-demand",
                         .created = created,
                         .cpu = std::string(shape.cpu),
                         .memory = std::string(shape.memory),
                         .pods = "29"},
                        {.nodepool = pool,
                         .instance_type = std::string(shape.type),
                         .zone = zone,
                         .capacity_type = "on-demand",
                         .created = created,
                         .conditions = LifecycleConditions(created)});
    set.nodes.push_back(std::move(managed.node));
    set.node_claims.push_back(std::move(managed.node_claim));
    set.csi_nodes.push_back(MakeCSINode({.name = name}));
    node_names.push_back(name);
    node_zones.push_back(zone);
  }

  // Pods: bound ones round the nodes, the first `terminating_pods` of them
  // terminating, then the pending ones.
  int pod = 0;
  const auto app_pod = [&](const std::string& node) {
    const int app = Roll(options_.apps);
    return AppPod(app, absl::StrCat(AppName(app), "-", pod++), node, created,
                  /*running=*/true);
  };
  for (int n = 0; n < options_.nodes; ++n) {
    for (int k = 0; k < options_.pods_per_node; ++k) {
      v1::Pod p = app_pod(node_names[n]);
      if (pod <= options_.terminating_pods) {
        SetTime(p.mutable_metadata()->mutable_deletion_timestamp(), now());
      }
      set.pods.push_back(std::move(p));
    }
  }
  for (int k = 0; k < options_.pending_pods; ++k) {
    set.pods.push_back(app_pod(""));
  }
  for (int d = 0; d < options_.daemon_sets; ++d) {
    const std::string ds = absl::StrCat("agent-", d);
    set.daemon_sets.push_back(MakeDaemonSet({.name = ds, .cpu = "50m"}));
    for (const std::string& node : node_names) {
      set.pods.push_back(MakePod({.name = absl::StrCat(ds, "-", node),
                                  .ns = "kube-system",
                                  .app = ds,
                                  .node = node,
                                  .owner = "DaemonSet",
                                  .owner_name = ds,
                                  .created = created,
                                  .cpu = "50m"}));
    }
  }
  // A PDB per app and namespace.
  for (int ns = 0; ns < options_.namespaces; ++ns) {
    for (int app = 0; app < options_.apps; ++app) {
      set.pdbs.push_back(MakePdb({.name = absl::StrCat("pdb-", AppName(app)),
                                  .ns = NamespaceName(ns),
                                  .selector = Labels{{"app", AppName(app)}},
                                  .min_available = "1",
                                  .disruptions_allowed = Roll(3),
                                  .expected_pods = 2}));
    }
  }
  for (int i = 0; i < options_.node_pools; ++i) {
    set.node_pools.push_back(
        MakeNodePool({.name = PoolName(i),
                      .consolidation_policy = "WhenEmptyOrUnderutilized",
                      .consolidate_after = "0s",
                      .budgets = {{.nodes = std::string(kBudgets[Roll(4)])}}}));
  }
  set.storage_classes.push_back(MakeStorageClass({.is_default = true}));
  // Volumes: a bound claim and volume each, pinned to the zone of a node,
  // mounted by a pod there and attached to it.
  for (int v = 0; v < options_.persistent_volumes && options_.nodes > 0; ++v) {
    const int n = Roll(options_.nodes);
    const std::string claim = absl::StrCat("data-", v);
    const std::string pv = absl::StrCat("pv-", v);
    set.persistent_volumes.push_back(MakePersistentVolume(
        {.name = pv,
         .claim = claim,
         .node_affinity = {MakeRequirement("topology.kubernetes.io/zone", "In",
                                           {node_zones[n]})}}));
    set.persistent_volume_claims.push_back(MakePersistentVolumeClaim(
        {.name = claim, .volume_name = pv, .storage_class = "gp3"}));
    set.pods.push_back(MakePod({.name = absl::StrCat("db-", v),
                                .app = "db",
                                .node = node_names[n],
                                .owner = "StatefulSet",
                                .owner_name = "db",
                                .created = created,
                                .cpu = "100m",
                                .pvcs = {claim}}));
    set.volume_attachments.push_back(
        MakeVolumeAttachment({.name = absl::StrCat("va-", v),
                              .node = node_names[n],
                              .persistent_volume = pv}));
  }

  const auto emit_all = [&](auto& list) {
    for (auto& object : list) {
      object.mutable_metadata()->set_resource_version(NextRv());
      if (!object.metadata().has_creation_timestamp()) {
        SetTime(object.mutable_metadata()->mutable_creation_timestamp(),
                created);
      }
      Object o = std::move(object);
      Track(o);
      out.push_back(Emit(EventType::kAdded, std::move(o)));
    }
  };
  emit_all(set.nodes);
  emit_all(set.pods);
  emit_all(set.pdbs);
  emit_all(set.node_pools);
  emit_all(set.node_claims);
  emit_all(set.volume_attachments);
  emit_all(set.persistent_volume_claims);
  emit_all(set.persistent_volumes);
  emit_all(set.storage_classes);
  emit_all(set.csi_nodes);
  emit_all(set.daemon_sets);
  return out;
}

void RandomEventGenerator::Mutate(Object& object) {
  const std::vector<std::string> nodes = LiveNodes();
  const auto pick_node = [&]() -> std::string {
    return nodes.empty() ? "" : nodes[Roll(static_cast<int>(nodes.size()))];
  };
  std::visit(
      [&](auto& o) {
        using T = std::decay_t<decltype(o)>;
        v1::ObjectMeta& meta = *o.mutable_metadata();
        if constexpr (std::is_same_v<T, v1::Pod>) {
          switch (Roll(6)) {
            case 0:  // Moved to another node.
              o.mutable_spec()->set_node_name(pick_node());
              o.mutable_status()->set_phase("Running");
              break;
            case 1:  // Unbound: pending again.
              o.mutable_spec()->clear_node_name();
              o.mutable_status()->set_phase("Pending");
              break;
            case 2:  // Terminating, or no longer.
              if (meta.has_deletion_timestamp()) {
                meta.clear_deletion_timestamp();
              } else {
                SetTime(meta.mutable_deletion_timestamp(), now());
              }
              break;
            case 3:  // Another app: another PDB.
              (*meta.mutable_labels())["app"] = AppName(Roll(options_.apps));
              break;
            case 4:
              o.mutable_status()->set_phase(Roll(2) == 0 ? "Succeeded"
                                                         : "Running");
              break;
            default:
              if (o.spec().containers_size() > 0) {
                (*o.mutable_spec()
                      ->mutable_containers(0)
                      ->mutable_resources()
                      ->mutable_requests())["cpu"] =
                    std::string(kCpus[Roll(4)]);
              }
              break;
          }
        } else if constexpr (std::is_same_v<T, v1::Node>) {
          switch (Roll(5)) {
            case 0:
              if (meta.labels().count("example.com/team") > 0) {
                meta.mutable_labels()->erase("example.com/team");
              } else {
                (*meta.mutable_labels())["example.com/team"] = "a";
              }
              break;
            case 1:
              *o.mutable_spec()->add_taints() =
                  Roll(2) == 0
                      ? DisruptedTaint()
                      : MakeTaint("example.com/dedicated", "x", "NoSchedule");
              break;
            case 2:
              o.mutable_spec()->clear_taints();
              break;
            case 3:
              o.mutable_spec()->set_unschedulable(!o.spec().unschedulable());
              break;
            default:
              SetCondition(
                  o.mutable_status()->mutable_conditions(),
                  {.type = "Ready", .status = Roll(2) == 0 ? "False" : "True"});
              break;
          }
        } else if constexpr (std::is_same_v<T, v1::NodePool>) {
          v1::Disruption& d = *o.mutable_spec()->mutable_disruption();
          switch (Roll(3)) {
            case 0:
              d.clear_budgets();
              *d.add_budgets() =
                  MakeBudget({.nodes = std::string(kBudgets[Roll(4)])});
              break;
            case 1:
              d.set_consolidation_policy(
                  Roll(2) == 0 ? "WhenEmpty" : "WhenEmptyOrUnderutilized");
              break;
            default:
              d.set_consolidate_after(Roll(2) == 0 ? "0s" : "30m");
              break;
          }
        } else if constexpr (std::is_same_v<T, v1::NodeClaim>) {
          switch (Roll(3)) {
            case 0:
              SetCondition(o.mutable_status()->mutable_conditions(),
                           {.type = "Drifted",
                            .status = Roll(2) == 0 ? "True" : "False",
                            .reason = "NodePoolDrifted",
                            .since = now() - absl::Minutes(10)});
              break;
            case 1:
              SetCondition(o.mutable_status()->mutable_conditions(),
                           {.type = "Initialized",
                            .status = Roll(2) == 0 ? "False" : "True",
                            .since = now() - absl::Hours(1)});
              break;
            default:
              SetTime(meta.mutable_deletion_timestamp(), now());
              break;
          }
        } else if constexpr (std::is_same_v<T, v1::PodDisruptionBudget>) {
          o.mutable_status()->set_disruptions_allowed(Roll(3));
        } else if constexpr (std::is_same_v<T, v1::DaemonSet>) {
          v1::PodSpec& spec =
              *o.mutable_spec()->mutable_template_()->mutable_spec();
          if (spec.containers_size() > 0) {
            (*spec.mutable_containers(0)
                  ->mutable_resources()
                  ->mutable_requests())["cpu"] = std::string(kCpus[Roll(4)]);
          }
        } else if constexpr (std::is_same_v<T, v1::PersistentVolumeClaim>) {
          if (o.spec().volume_name().empty()) {
            o.mutable_spec()->set_volume_name(absl::StrCat(
                "pv-", Roll(std::max(options_.persistent_volumes, 1))));
          } else {
            o.mutable_spec()->clear_volume_name();
          }
        } else if constexpr (std::is_same_v<T, v1::StorageClass>) {
          o.set_volume_binding_mode(Roll(2) == 0 ? "Immediate"
                                                 : "WaitForFirstConsumer");
        } else if constexpr (std::is_same_v<T, v1::VolumeAttachment>) {
          o.mutable_status()->set_attached(!o.status().attached());
        } else {
          (*meta.mutable_annotations())["example.com/touched"] =
              absl::StrCat(Roll(1000));
        }
      },
      object);
}

Object RandomEventGenerator::NewObject() {
  const absl::Time created = now() - absl::Hours(1);
  const int id = created_++;
  switch (Roll(4)) {
    case 0: {  // A node joins (its NodeClaim comes as another event later).
      const NodeShape& shape = kShapes[Roll(2)];
      return MakeNode({.name = absl::StrCat("new-node-", id),
                       .nodepool = PoolName(Roll(options_.node_pools)),
                       .instance_type = std::string(shape.type),
                       .zone = std::string(kZones[Roll(2)]),
                       .capacity_type = "on-demand",
                       .created = created,
                       .cpu = std::string(shape.cpu),
                       .memory = std::string(shape.memory),
                       .pods = "29"});
    }
    case 1:
      return MakeNodeClaim(
          {.name = absl::StrCat("new-node-", Roll(id + 1), "-claim"),
           .node_name = absl::StrCat("new-node-", Roll(id + 1)),
           .nodepool = PoolName(Roll(options_.node_pools)),
           .created = created,
           .conditions = LifecycleConditions(created)});
    default: {
      const int app = Roll(options_.apps);
      const std::vector<std::string> nodes = LiveNodes();
      const std::string node =
          nodes.empty() || Roll(4) == 0
              ? ""
              : nodes[Roll(static_cast<int>(nodes.size()))];
      return AppPod(app, absl::StrCat(AppName(app), "-new-", id), node, created,
                    /*running=*/false);
    }
  }
}

v1::Pod RandomEventGenerator::AppPod(int app, std::string name,
                                     const std::string& node,
                                     absl::Time created, bool running) {
  // The namespace is rolled before the CPU request: seeds keep their
  // streams.
  const std::string ns = NamespaceName(Roll(options_.namespaces));
  const std::string cpu(kCpus[Roll(4)]);
  PodOptions o{.name = std::move(name),
               .ns = ns,
               .app = AppName(app),
               .node = node,
               .phase = node.empty() ? "Pending" : "Running",
               .owner = "ReplicaSet",
               .owner_name = AppName(app),
               .created = created,
               .cpu = cpu,
               .memory = "256Mi"};
  if (running) {
    o.started = created;
    o.ready = node.empty() ? "" : "True";
  }
  v1::Pod pod = MakePod(o);
  if (options_.scheduling_constraints && app == 0) {
    v1::TopologySpreadConstraint& c =
        *pod.mutable_spec()->add_topology_spread_constraints();
    c.set_max_skew(1);
    c.set_topology_key("topology.kubernetes.io/zone");
    c.set_when_unsatisfiable("DoNotSchedule");
    (*c.mutable_label_selector()->mutable_match_labels())["app"] = AppName(app);
  }
  if (options_.scheduling_constraints && app == 1) {
    v1::PodAffinityTerm& t =
        *pod.mutable_spec()
             ->mutable_affinity()
             ->mutable_pod_anti_affinity()
             ->add_required_during_scheduling_ignored_during_execution();
    t.set_topology_key("kubernetes.io/hostname");
    (*t.mutable_label_selector()->mutable_match_labels())["app"] = AppName(app);
    // A term selecting pods that carry none: only the pods already placed
    // keep app2's pods away (kube-scheduler's existing anti-affinity).
    v1::PodAffinityTerm& other =
        *pod.mutable_spec()
             ->mutable_affinity()
             ->mutable_pod_anti_affinity()
             ->add_required_during_scheduling_ignored_during_execution();
    other.set_topology_key("kubernetes.io/hostname");
    (*other.mutable_label_selector()->mutable_match_labels())["app"] =
        AppName(2);
  }
  if (options_.scheduling_constraints && app == 2) {
    // The third app's pods hold a host port, and half of them are held to
    // one zone: two profiles.
    if (pod.spec().containers_size() > 0) {
      v1::ContainerPort& port =
          *pod.mutable_spec()->mutable_containers(0)->add_ports();
      port.set_container_port(9100);
      port.set_host_port(9100);
    }
    if (Roll(2) == 0) {
      (*pod.mutable_spec()
            ->mutable_node_selector())["topology.kubernetes.io/zone"] =
          std::string(kZones[0]);
    }
  }
  return pod;
}

Event RandomEventGenerator::Next() {
  // The awkward events first, each by its odds (when it can be made).
  int roll = Roll(100);
  const auto take = [&roll](int percent) {
    if (roll < percent) return true;
    roll -= percent;
    return false;
  };
  if (take(options_.replay_percent) && last_.has_value()) {
    Event replay = *last_;
    replay.origin = absl::StrCat("event ", ++events_);
    return replay;
  }
  if (take(options_.stale_percent)) {
    std::vector<size_t> with_history;
    for (size_t i = 0; i < tracked_.size(); ++i) {
      if (!tracked_[i].history.empty()) with_history.push_back(i);
    }
    if (!with_history.empty()) {
      const Tracked& t =
          tracked_[with_history[Roll(static_cast<int>(with_history.size()))]];
      Object old = t.history[Roll(static_cast<int>(t.history.size()))];
      return Emit(Roll(4) == 0 ? EventType::kDeleted : EventType::kModified,
                  std::move(old));
    }
  }
  if (take(options_.absent_delete_percent)) {
    const std::vector<size_t> dead = Live(false);
    Object object;
    if (!dead.empty() && Roll(2) == 0) {
      object = tracked_[dead[Roll(static_cast<int>(dead.size()))]].current;
      if (Roll(2) == 0) MetaOf(object).set_resource_version(NextRv());
    } else {
      object =
          MakePod({.name = absl::StrCat("ghost-", Roll(1000)), .node = ""});
      MetaOf(object).set_resource_version(NextRv());
    }
    return Emit(EventType::kDeleted, std::move(object));
  }
  if (take(options_.invalid_percent)) {
    Object object;
    if (Roll(2) == 0) {
      object = MakePod({.name = "", .node = ""});
    } else {
      v1::StorageClass sc =
          MakeStorageClass({.name = Roll(2) == 0 ? "gp3" : "fast",
                            .volume_binding_mode = "Later"});
      object = std::move(sc);
    }
    MetaOf(object).set_resource_version(NextRv());
    return Emit(Roll(2) == 0 ? EventType::kAdded : EventType::kModified,
                std::move(object));
  }
  const bool non_numeric = take(options_.non_numeric_rv_percent);

  // The ordinary events: changes, additions, deletions, re-adds.
  const std::vector<size_t> live = Live(true);
  const std::vector<size_t> dead = Live(false);
  const int kind = Roll(100);
  Event event;
  if (kind < 10 || live.empty()) {
    Object object = NewObject();
    MetaOf(object).set_resource_version(NextRv());
    event = Emit(Roll(2) == 0 ? EventType::kAdded : EventType::kModified,
                 std::move(object));
  } else if (kind < 20) {
    Tracked& t = tracked_[live[Roll(static_cast<int>(live.size()))]];
    Object object = t.current;
    MetaOf(object).set_resource_version(NextRv());
    event = Emit(EventType::kDeleted, std::move(object));
  } else if (kind < 26 && !dead.empty()) {
    Object object = tracked_[dead[Roll(static_cast<int>(dead.size()))]].current;
    MetaOf(object).set_resource_version(NextRv());
    event = Emit(EventType::kAdded, std::move(object));
  } else {
    Object object = tracked_[live[Roll(static_cast<int>(live.size()))]].current;
    Mutate(object);
    MetaOf(object).set_resource_version(NextRv());
    event = Emit(EventType::kModified, std::move(object));
  }
  if (non_numeric) {
    MetaOf(event.object)
        .set_resource_version(Roll(2) == 0 ? "" : absl::StrCat("x", revision_));
    last_ = event;
  }
  // What the API server now holds.
  Track(event.object);
  if (event.type == EventType::kDeleted) {
    tracked_[index_.at(KeyOf(event.object))].live = false;
  }
  // A pod of "default" is sometimes sent without its namespace.
  if (auto* pod = std::get_if<v1::Pod>(&event.object);
      pod != nullptr && pod->metadata().namespace_() == "default" &&
      Roll(5) == 0) {
    pod->mutable_metadata()->clear_namespace_();
    last_ = event;
  }
  return event;
}

}  // namespace karpenter::testing
