// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Node and NodeClaim builders and small recording doubles of CloudProvider,
// EventRecorder and Metrics shared by the termination tests.

#ifndef KARPENTER_TESTS_TERMINATION_JANITOR_TEST_UTIL_H_
#define KARPENTER_TESTS_TERMINATION_JANITOR_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "karpenter/cloud_provider.h"
#include "karpenter/event_recorder.h"
#include "karpenter/metrics.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/v1/core.pb.h"
#include "karpenter/v1/karpenter.pb.h"

namespace karpenter::termination::janitor_test {

// 2026-01-01T00:00:00Z, the reference instant of the tests.
inline const absl::Time kT0 = absl::FromUnixSeconds(1767225600);

inline void SetTime(absl::Time t, google::protobuf::Timestamp* ts) {
  ts->set_seconds(absl::ToUnixSeconds(t));
  ts->set_nanos(
      static_cast<int32_t>((t - absl::FromUnixSeconds(absl::ToUnixSeconds(t))) /
                           absl::Nanoseconds(1)));
}

inline void AddCondition(google::protobuf::RepeatedPtrField<v1::Condition>* cs,
                         const std::string& type, const std::string& status,
                         absl::Time since) {
  v1::Condition* c = cs->Add();
  c->set_type(type);
  c->set_status(status);
  SetTime(since, c->mutable_last_transition_time());
}

struct NodeOpts {
  std::string name = "n1";
  std::string provider_id;  // "" -> "aws:///<name>".
  std::string pool = "default";
  // "True", "False", "Unknown", or "" for no Ready condition.
  std::string ready = "True";
  absl::Time ready_since = kT0 - absl::Hours(1);
  absl::Time created = kT0 - absl::Hours(2);
  std::optional<absl::Time> deleted;
  std::vector<std::string> finalizers;
};

inline v1::Node MakeNode(const NodeOpts& o) {
  v1::Node node;
  v1::ObjectMeta* m = node.mutable_metadata();
  m->set_name(o.name);
  SetTime(o.created, m->mutable_creation_timestamp());
  if (!o.pool.empty()) (*m->mutable_labels())["karpenter.sh/nodepool"] = o.pool;
  if (o.deleted) SetTime(*o.deleted, m->mutable_deletion_timestamp());
  for (const std::string& f : o.finalizers) m->add_finalizers(f);
  node.mutable_spec()->set_provider_id(
      o.provider_id.empty() ? "aws:///" + o.name : o.provider_id);
  if (!o.ready.empty()) {
    AddCondition(node.mutable_status()->mutable_conditions(), "Ready", o.ready,
                 o.ready_since);
  }
  return node;
}

struct ClaimOpts {
  std::string name = "nc1";
  std::string node;         // status.nodeName.
  std::string provider_id;  // "" -> "aws:///<node>" when node is set.
  std::string pool = "default";
  std::string capacity_type = "on-demand";
  absl::Time created = kT0 - absl::Hours(2);
  // Condition status ("" = absent) and lastTransitionTime.
  std::string launched = "True";
  absl::Time launched_since = kT0 - absl::Hours(2);
  std::string registered = "True";
  absl::Time registered_since = kT0 - absl::Hours(2);
  std::optional<absl::Time> deleted;
  std::vector<std::string> finalizers;
};

inline v1::NodeClaim MakeClaim(const ClaimOpts& o) {
  v1::NodeClaim claim;
  v1::ObjectMeta* m = claim.mutable_metadata();
  m->set_name(o.name);
  SetTime(o.created, m->mutable_creation_timestamp());
  if (!o.pool.empty()) (*m->mutable_labels())["karpenter.sh/nodepool"] = o.pool;
  (*m->mutable_labels())["karpenter.sh/capacity-type"] = o.capacity_type;
  if (o.deleted) SetTime(*o.deleted, m->mutable_deletion_timestamp());
  for (const std::string& f : o.finalizers) m->add_finalizers(f);
  v1::NodeClaimStatus* s = claim.mutable_status();
  s->set_node_name(o.node);
  s->set_image_id("ami-1");
  if (!o.provider_id.empty()) {
    s->set_provider_id(o.provider_id);
  } else if (!o.node.empty()) {
    s->set_provider_id("aws:///" + o.node);
  }
  if (!o.launched.empty()) {
    AddCondition(s->mutable_conditions(), "Launched", o.launched,
                 o.launched_since);
  }
  if (!o.registered.empty()) {
    AddCondition(s->mutable_conditions(), "Registered", o.registered,
                 o.registered_since);
  }
  return claim;
}

inline snapshot::ObjectSet Objects(std::vector<v1::Node> nodes,
                                   std::vector<v1::NodeClaim> claims) {
  snapshot::ObjectSet objects;
  objects.nodes = std::move(nodes);
  objects.node_claims = std::move(claims);
  return objects;
}

inline snapshot::Snapshot Build(std::vector<v1::Node> nodes,
                                std::vector<v1::NodeClaim> claims) {
  absl::StatusOr<snapshot::Snapshot> s =
      snapshot::Snapshot::Build(Objects(std::move(nodes), std::move(claims)));
  INFO(s.status().ToString());
  REQUIRE(s.ok());
  return *std::move(s);
}

class RecordingEvents final : public EventRecorder {
 public:
  void Record(const Event& event) override { events.push_back(event); }
  std::vector<std::string> Lines() const {
    std::vector<std::string> out;
    for (const Event& e : events) {
      out.push_back(absl::StrCat(e.reason, " ", e.kind, "/", e.name));
    }
    return out;
  }
  std::vector<Event> events;
};

class RecordingMetrics final : public Metrics {
 public:
  void Add(absl::string_view name, const MetricLabels& labels,
           double delta) override {
    values[Key(name, labels)] += delta;
  }
  void Set(absl::string_view name, const MetricLabels& labels,
           double value) override {
    values[Key(name, labels)] = value;
  }
  void Observe(absl::string_view name, const MetricLabels& labels,
               double value) override {
    values[Key(name, labels)] += value;
  }
  // `name{k=v,...}` with labels in order.
  static std::string Key(absl::string_view name, const MetricLabels& labels) {
    std::string key = absl::StrCat(name, "{");
    bool first = true;
    for (const auto& [k, v] : labels) {
      absl::StrAppend(&key, first ? "" : ",", k, "=", v);
      first = false;
    }
    return key + "}";
  }
  std::map<std::string, double> values;
};

// Instances in a map; Delete marks them terminating; scripted errors.
class TestCloud final : public CloudProvider {
 public:
  absl::StatusOr<Instance> Create(const v1::NodeClaim&) override {
    return absl::UnimplementedError("Create");
  }
  absl::Status Delete(absl::string_view provider_id) override {
    deletes.emplace_back(provider_id);
    if (!fail_next.empty()) {
      absl::Status s = fail_next.front();
      fail_next.pop_front();
      return s;
    }
    auto it = instances.find(std::string(provider_id));
    if (it == instances.end()) return absl::NotFoundError("no instance");
    it->second.state = InstanceState::kTerminating;
    return absl::OkStatus();
  }
  absl::StatusOr<Instance> Get(absl::string_view provider_id) override {
    auto it = instances.find(std::string(provider_id));
    if (it == instances.end()) return absl::NotFoundError("no instance");
    return it->second;
  }
  absl::StatusOr<std::vector<Instance>> List() override {
    std::vector<Instance> out;
    for (const auto& [id, i] : instances) out.push_back(i);
    return out;
  }
  absl::StatusOr<std::optional<std::string>> IsDrifted(
      const v1::NodeClaim&) override {
    return std::optional<std::string>();
  }
  absl::StatusOr<std::vector<InstanceType>> GetInstanceTypes(
      const v1::NodePool&) override {
    return std::vector<InstanceType>();
  }

  std::map<std::string, Instance> instances;
  std::vector<std::string> deletes;
  std::deque<absl::Status> fail_next;
};

inline Instance MakeInstance(const std::string& provider_id, absl::Time created,
                             InstanceState state = InstanceState::kRunning) {
  Instance i;
  i.provider_id = provider_id;
  i.created = created;
  i.state = state;
  return i;
}

}  // namespace karpenter::termination::janitor_test

#endif  // KARPENTER_TESTS_TERMINATION_JANITOR_TEST_UTIL_H_
