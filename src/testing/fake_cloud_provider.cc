// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/testing/fake_cloud_provider.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/status_macros.h"
#include "karpenter/time_util.h"
#include "karpenter/well_known.h"
#include "testing/mutex_lock.h"

namespace karpenter::testing {
namespace internal {
namespace {

constexpr size_t kCloudMethodCount = 6;

struct CloudRecord {
  Instance instance;
  // Distinguishes this instance from an earlier one with the same ID, so a
  // transition scheduled for the earlier one does not touch it.
  uint64_t serial = 0;
  bool termination_protection = false;
  std::optional<std::string> drift;
};

enum class TransitionKind { kRun, kGone };

struct CloudTransition {
  TransitionKind kind = TransitionKind::kRun;
  std::string provider_id;
  uint64_t serial = 0;
};

struct CloudFault {
  absl::Status status;
  FaultTiming timing = FaultTiming::kInsteadOfCall;
};

std::string StatusText(const absl::Status& s) {
  if (s.ok()) return "OK";
  return absl::StrCat(absl::StatusCodeToString(s.code()), ": ", s.message());
}

absl::Status NotFound(absl::string_view provider_id) {
  return absl::NotFoundError(
      absl::StrCat("instance \"", provider_id, "\" not found"));
}

absl::Status CheckProviderId(absl::string_view field,
                             absl::string_view provider_id) {
  if (!provider_id.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(field, ": \"\": must not be empty"));
}

// The first value of the NodeClaim's `In` requirement on `key`, else
// `fallback`.
absl::StatusOr<std::string> FromRequirements(const v1::NodeClaim& claim,
                                             absl::string_view key,
                                             const std::string& fallback) {
  const auto& reqs = claim.spec().requirements();
  for (int i = 0; i < reqs.size(); ++i) {
    if (reqs[i].key() != key || reqs[i].operator_() != "In") continue;
    if (reqs[i].values().empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "spec.requirements[", i, "].values: operator \"In\" on \"", key,
          "\" needs at least one value"));
    }
    return reqs[i].values(0);
  }
  return fallback;
}

std::vector<InstanceType> DefaultCatalogue(const std::string& zone) {
  auto type = [&](const char* name, const char* cpu, const char* memory,
                  const char* pods, double on_demand, double spot) {
    InstanceType t;
    t.name = name;
    t.capacity = {{"cpu", cpu}, {"memory", memory}, {"pods", pods}};
    t.offerings = {
        {zone, std::string(well_known::kCapacityTypeOnDemand), on_demand, true},
        {zone, std::string(well_known::kCapacityTypeSpot), spot, true}};
    return t;
  };
  // Prices shaped like us-east-1's: spot well under on-demand.
  return {type("m5.large", "2", "8Gi", "29", 0.096, 0.035),
          type("m5.xlarge", "4", "16Gi", "58", 0.192, 0.07)};
}

}  // namespace

// All of the fake's data; FakeCloudProvider holds it under its mutex.
class FakeCloudState {
 public:
  explicit FakeCloudState(FakeCloudProviderOptions options)
      : options_(std::move(options)),
        catalogue_(DefaultCatalogue(options_.default_zone)) {}

  void Advance(absl::Time now);
  std::optional<absl::Time> NextEventTime() const;

  absl::StatusOr<Instance> Create(const v1::NodeClaim& claim, absl::Time now);
  absl::Status Delete(absl::string_view id, absl::Time now);
  absl::StatusOr<Instance> Get(absl::string_view id) const;
  std::vector<Instance> List() const;
  std::vector<std::string> ProviderIds() const;
  absl::StatusOr<std::optional<std::string>> IsDrifted(
      const v1::NodeClaim& claim) const;
  std::vector<InstanceType> InstanceTypes() const { return catalogue_; }

  absl::Status AddInstance(Instance instance, absl::Time now);
  absl::Status SetProtection(absl::string_view id, bool enabled);
  absl::Status Vanish(absl::string_view id);
  absl::Status SetDrifted(absl::string_view id,
                          std::optional<std::string> reason);
  void SetInstanceTypes(std::vector<InstanceType> types);
  void SetImage(std::string image_id) { image_id_ = std::move(image_id); }
  std::vector<RepairPolicy> repair_policies = AwsRepairPolicies();
  bool Exists(absl::string_view id) const { return instances_.contains(id); }

  std::optional<CloudFault> TakeFault(CloudMethod method);
  void Log(absl::Time at, absl::string_view line);

  std::array<std::deque<CloudFault>, kCloudMethodCount> faults;
  std::array<int64_t, kCloudMethodCount> calls{};
  std::vector<std::string> log;

 private:
  CloudRecord* Find(absl::string_view id);
  const CloudRecord* Find(absl::string_view id) const;
  std::string NextProviderId(absl::string_view zone);
  absl::Status CheckCapacity(const Instance& instance) const;
  std::string ZoneFor(const Instance& instance) const;
  void Insert(Instance instance, absl::Time run_at, absl::Time now);
  void Remove(absl::string_view id);
  void Schedule(absl::Time at, TransitionKind kind, const CloudRecord& r);
  void Apply(absl::Time at, const CloudTransition& t);

  const FakeCloudProviderOptions options_;
  std::vector<InstanceType> catalogue_;  // Sorted by name.
  // The image new instances launch with; others report kImageDrift.
  std::string image_id_ = options_.default_image_id;
  std::map<std::string, CloudRecord, std::less<>> instances_;
  // NodeClaim name -> provider ID of its live instance.
  std::map<std::string, std::string, std::less<>> by_claim_;
  // By (instant, sequence): time order, then scheduling order.
  std::map<std::pair<absl::Time, uint64_t>, CloudTransition> transitions_;
  uint64_t next_transition_ = 0;
  uint64_t next_serial_ = 0;
  uint64_t next_instance_ = 0;
};

// --- Time. -----------------------------------------------------------------

void FakeCloudState::Schedule(absl::Time at, TransitionKind kind,
                              const CloudRecord& r) {
  if (at == absl::InfiniteFuture()) return;  // An infinite latency: never.
  transitions_.emplace(std::make_pair(at, next_transition_++),
                       CloudTransition{kind, r.instance.provider_id, r.serial});
}

void FakeCloudState::Advance(absl::Time now) {
  while (!transitions_.empty() && transitions_.begin()->first.first <= now) {
    auto node = transitions_.extract(transitions_.begin());
    Apply(node.key().first, node.mapped());
  }
}

void FakeCloudState::Apply(absl::Time at, const CloudTransition& t) {
  CloudRecord* r = Find(t.provider_id);
  if (r == nullptr || r->serial != t.serial) return;  // Gone or replaced.
  switch (t.kind) {
    case TransitionKind::kRun:
      // Stale if a Delete came first.
      if (r->instance.state != InstanceState::kPending) return;
      r->instance.state = InstanceState::kRunning;
      Log(at, absl::StrCat("running ", t.provider_id));
      return;
    case TransitionKind::kGone:
      Log(at, absl::StrCat("terminated ", t.provider_id));
      Remove(t.provider_id);
      return;
  }
}

std::optional<absl::Time> FakeCloudState::NextEventTime() const {
  if (transitions_.empty()) return std::nullopt;
  return transitions_.begin()->first.first;
}

// --- Instances. ------------------------------------------------------------

CloudRecord* FakeCloudState::Find(absl::string_view id) {
  auto it = instances_.find(id);
  return it == instances_.end() ? nullptr : &it->second;
}

const CloudRecord* FakeCloudState::Find(absl::string_view id) const {
  auto it = instances_.find(id);
  return it == instances_.end() ? nullptr : &it->second;
}

std::string FakeCloudState::NextProviderId(absl::string_view zone) {
  std::string id;
  do {  // Skip IDs a seeded instance already took.
    id = absl::StrFormat("fake:///%s/i-%016x", zone, ++next_instance_);
  } while (instances_.contains(id));
  return id;
}

void FakeCloudState::Insert(Instance instance, absl::Time run_at,
                            absl::Time now) {
  CloudRecord r;
  r.serial = ++next_serial_;
  const std::string id = instance.provider_id;
  auto tag = instance.tags.find(std::string(well_known::kNodeClaimTagKey));
  if (tag != instance.tags.end() && !by_claim_.contains(tag->second)) {
    by_claim_.emplace(tag->second, id);
  }
  r.instance = std::move(instance);
  if (r.instance.state == InstanceState::kPending) {
    Schedule(run_at, TransitionKind::kRun, r);
  } else if (r.instance.state == InstanceState::kTerminating) {
    Schedule(now + options_.termination_latency, TransitionKind::kGone, r);
  }
  instances_.emplace(id, std::move(r));
}

void FakeCloudState::Remove(absl::string_view id) {
  auto it = instances_.find(id);
  auto tag =
      it->second.instance.tags.find(std::string(well_known::kNodeClaimTagKey));
  if (tag != it->second.instance.tags.end()) {
    auto claim = by_claim_.find(tag->second);
    if (claim != by_claim_.end() && claim->second == id) by_claim_.erase(claim);
  }
  instances_.erase(it);
}

absl::Status FakeCloudState::CheckCapacity(const Instance& instance) const {
  auto type = std::find_if(
      catalogue_.begin(), catalogue_.end(),
      [&](const InstanceType& t) { return t.name == instance.instance_type; });
  if (type == catalogue_.end()) return absl::OkStatus();  // Not modelled.
  for (const Offering& o : type->offerings) {
    if (o.zone == instance.zone && o.capacity_type == instance.capacity_type &&
        o.available) {
      return absl::OkStatus();
    }
  }
  return absl::ResourceExhaustedError(
      absl::StrCat("InsufficientCapacityError: no available offering of \"",
                   instance.instance_type, "\" in zone \"", instance.zone,
                   "\" with capacity type \"", instance.capacity_type, "\""));
}

// A NodeClaim that does not name its zone launches, as a cloud's fleet API
// would, in the first zone (catalogue order) with an available offering of
// its instance type and capacity type; default_zone when none is modelled.
std::string FakeCloudState::ZoneFor(const Instance& instance) const {
  auto type = std::find_if(
      catalogue_.begin(), catalogue_.end(),
      [&](const InstanceType& t) { return t.name == instance.instance_type; });
  if (type != catalogue_.end()) {
    for (const Offering& o : type->offerings) {
      if (o.capacity_type == instance.capacity_type && o.available) {
        return o.zone;
      }
    }
  }
  return options_.default_zone;
}

absl::StatusOr<Instance> FakeCloudState::Create(const v1::NodeClaim& claim,
                                                absl::Time now) {
  const std::string& name = claim.metadata().name();
  if (name.empty()) {
    return absl::InvalidArgumentError(
        "metadata.name: \"\": a NodeClaim needs a name to launch for");
  }
  if (auto it = by_claim_.find(name); it != by_claim_.end()) {
    return instances_.at(it->second).instance;  // Idempotent.
  }
  Instance inst;
  KARPENTER_ASSIGN_OR_RETURN(
      inst.zone, FromRequirements(claim, well_known::kLabelTopologyZone, ""));
  KARPENTER_ASSIGN_OR_RETURN(
      inst.instance_type,
      FromRequirements(claim, well_known::kLabelInstanceTypeStable,
                       options_.default_instance_type));
  KARPENTER_ASSIGN_OR_RETURN(
      inst.capacity_type,
      FromRequirements(claim, well_known::kCapacityTypeLabelKey,
                       options_.default_capacity_type));
  if (inst.zone.empty()) inst.zone = ZoneFor(inst);
  KARPENTER_RETURN_IF_ERROR(CheckCapacity(inst));
  inst.provider_id = NextProviderId(inst.zone);
  inst.created = now;
  inst.state = InstanceState::kPending;
  inst.image_id = image_id_;
  inst.tags[std::string(well_known::kNodeClaimTagKey)] = name;
  const auto& labels = claim.metadata().labels();
  if (auto pool = labels.find(std::string(well_known::kNodePoolLabelKey));
      pool != labels.end()) {
    inst.tags[std::string(well_known::kNodePoolLabelKey)] = pool->second;
  }
  Insert(inst, now + options_.launch_latency, now);
  return inst;
}

absl::Status FakeCloudState::Delete(absl::string_view id, absl::Time now) {
  KARPENTER_RETURN_IF_ERROR(CheckProviderId("provider_id", id));
  CloudRecord* r = Find(id);
  if (r == nullptr) return NotFound(id);
  if (r->instance.state == InstanceState::kTerminating) return absl::OkStatus();
  if (r->termination_protection) {
    return absl::FailedPreconditionError(absl::StrCat(
        "OperationNotPermitted: instance \"", id,
        "\" may not be terminated: termination protection is enabled "
        "(disableApiTermination); turn it off and try again"));
  }
  r->instance.state = InstanceState::kTerminating;
  Schedule(now + options_.termination_latency, TransitionKind::kGone, *r);
  return absl::OkStatus();
}

absl::StatusOr<Instance> FakeCloudState::Get(absl::string_view id) const {
  KARPENTER_RETURN_IF_ERROR(CheckProviderId("provider_id", id));
  const CloudRecord* r = Find(id);
  if (r == nullptr) return NotFound(id);
  return r->instance;
}

std::vector<Instance> FakeCloudState::List() const {
  std::vector<Instance> out;
  out.reserve(instances_.size());
  for (const auto& [id, r] : instances_) out.push_back(r.instance);
  return out;
}

std::vector<std::string> FakeCloudState::ProviderIds() const {
  std::vector<std::string> out;
  out.reserve(instances_.size());
  for (const auto& [id, r] : instances_) out.push_back(id);
  return out;
}

absl::StatusOr<std::optional<std::string>> FakeCloudState::IsDrifted(
    const v1::NodeClaim& claim) const {
  const std::string& id = claim.status().provider_id();
  KARPENTER_RETURN_IF_ERROR(CheckProviderId("status.providerID", id));
  const CloudRecord* r = Find(id);
  if (r == nullptr) return NotFound(id);
  if (r->drift.has_value()) return r->drift;
  // What AWS calls AMI drift: the NodeClass now resolves another image.
  if (!r->instance.image_id.empty() && r->instance.image_id != image_id_) {
    return std::optional<std::string>(std::string(kImageDrift));
  }
  return std::optional<std::string>();
}

// --- Test controls. --------------------------------------------------------

absl::Status FakeCloudState::AddInstance(Instance instance, absl::Time now) {
  KARPENTER_RETURN_IF_ERROR(
      CheckProviderId("provider_id", instance.provider_id));
  if (instances_.contains(instance.provider_id)) {
    return absl::AlreadyExistsError(
        absl::StrCat("instance \"", instance.provider_id, "\" already exists"));
  }
  const absl::Time run_at =
      std::max(instance.created + options_.launch_latency, now);
  Insert(std::move(instance), run_at, now);
  return absl::OkStatus();
}

absl::Status FakeCloudState::SetProtection(absl::string_view id, bool enabled) {
  CloudRecord* r = Find(id);
  if (r == nullptr) return NotFound(id);
  r->termination_protection = enabled;
  return absl::OkStatus();
}

absl::Status FakeCloudState::Vanish(absl::string_view id) {
  if (Find(id) == nullptr) return NotFound(id);
  Remove(id);
  return absl::OkStatus();
}

absl::Status FakeCloudState::SetDrifted(absl::string_view id,
                                        std::optional<std::string> reason) {
  CloudRecord* r = Find(id);
  if (r == nullptr) return NotFound(id);
  r->drift = std::move(reason);
  return absl::OkStatus();
}

void FakeCloudState::SetInstanceTypes(std::vector<InstanceType> types) {
  std::stable_sort(types.begin(), types.end(),
                   [](const InstanceType& a, const InstanceType& b) {
                     return a.name < b.name;
                   });
  catalogue_ = std::move(types);
}

std::optional<CloudFault> FakeCloudState::TakeFault(CloudMethod method) {
  auto& queue = faults[static_cast<size_t>(method)];
  if (queue.empty()) return std::nullopt;
  CloudFault f = std::move(queue.front());
  queue.pop_front();
  return f;
}

void FakeCloudState::Log(absl::Time at, absl::string_view line) {
  if (options_.record_call_log) {
    log.push_back(absl::StrCat(FormatRfc3339(at), " ", line));
  }
}

}  // namespace internal

// --- FakeCloudProvider. ----------------------------------------------------

namespace {

using internal::FakeCloudState;

absl::Status CheckOptions(const FakeCloudProviderOptions& o) {
  for (const auto& [field, d] :
       {std::pair{"launch_latency", o.launch_latency},
        std::pair{"termination_latency", o.termination_latency}}) {
    if (d < absl::ZeroDuration()) {
      return absl::InvalidArgumentError(
          absl::StrCat("FakeCloudProviderOptions.", field, ": \"",
                       absl::FormatDuration(d), "\": must be >= 0"));
    }
  }
  for (const auto& [field, s] :
       {std::pair{"default_zone", &o.default_zone},
        std::pair{"default_instance_type", &o.default_instance_type},
        std::pair{"default_capacity_type", &o.default_capacity_type}}) {
    if (s->empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "FakeCloudProviderOptions.", field, ": \"\": must not be empty"));
    }
  }
  return absl::OkStatus();
}

// The answer part of a CallLog line.
std::string Describe(const absl::Status& s) { return internal::StatusText(s); }

std::string Describe(const absl::StatusOr<Instance>& r) {
  if (!r.ok()) return Describe(r.status());
  return absl::StrCat("OK ", r->provider_id, " ", InstanceStateName(r->state));
}

std::string Describe(const absl::StatusOr<std::vector<Instance>>& r) {
  if (!r.ok()) return Describe(r.status());
  return absl::StrCat("OK ", r->size(), " instances");
}

std::string Describe(const absl::StatusOr<std::optional<std::string>>& r) {
  if (!r.ok()) return Describe(r.status());
  return r->has_value() ? absl::StrCat("OK drifted ", **r) : "OK not drifted";
}

std::string Describe(const absl::StatusOr<std::vector<InstanceType>>& r) {
  if (!r.ok()) return Describe(r.status());
  return absl::StrCat("OK ", r->size(), " types");
}

}  // namespace

std::vector<RepairPolicy> AwsRepairPolicies() {
  const auto policy = [](absl::string_view type, absl::string_view status,
                         absl::Duration toleration) {
    return RepairPolicy{std::string(type), std::string(status), toleration};
  };
  const absl::string_view kFalse = well_known::kConditionFalse;
  return {
      policy(well_known::kConditionTypeReady, kFalse, absl::Minutes(30)),
      policy(well_known::kConditionTypeReady, well_known::kConditionUnknown,
             absl::Minutes(30)),
      policy(well_known::kConditionTypeAcceleratedHardwareReady, kFalse,
             absl::Minutes(10)),
      policy(well_known::kConditionTypeStorageReady, kFalse, absl::Minutes(30)),
      policy(well_known::kConditionTypeNetworkingReady, kFalse,
             absl::Minutes(30)),
      policy(well_known::kConditionTypeKernelReady, kFalse, absl::Minutes(30)),
      policy(well_known::kConditionTypeContainerRuntimeReady, kFalse,
             absl::Minutes(30)),
  };
}

absl::string_view CloudMethodName(CloudMethod method) {
  static constexpr std::array<absl::string_view, internal::kCloudMethodCount>
      kNames = {"Create", "Delete",    "Get",
                "List",   "IsDrifted", "GetInstanceTypes"};
  return kNames[static_cast<size_t>(method)];
}

absl::StatusOr<std::unique_ptr<FakeCloudProvider>> FakeCloudProvider::Create(
    Clock& clock, FakeCloudProviderOptions options) {
  KARPENTER_RETURN_IF_ERROR(CheckOptions(options));
  return std::unique_ptr<FakeCloudProvider>(new FakeCloudProvider(
      clock, std::make_unique<FakeCloudState>(std::move(options))));
}

FakeCloudProvider::FakeCloudProvider(Clock& clock,
                                     std::unique_ptr<FakeCloudState> state)
    : clock_(clock), state_(std::move(state)) {}

FakeCloudProvider::~FakeCloudProvider() = default;

template <typename Result, typename Op>
Result FakeCloudProvider::Call(CloudMethod method, absl::string_view args,
                               Op op) {
  internal::MutexLock lock(&mu_);
  const absl::Time now = clock_.Now();
  state_->Advance(now);
  ++state_->calls[static_cast<size_t>(method)];
  const std::optional<internal::CloudFault> fault = state_->TakeFault(method);
  Result result = fault && fault->timing == FaultTiming::kInsteadOfCall
                      ? Result(fault->status)
                      : Result(op(*state_, now));
  if (fault) result = Result(fault->status);
  state_->Log(
      now, absl::StrCat(CloudMethodName(method), args.empty() ? "" : " ", args,
                        " -> ", Describe(result), fault ? " (injected)" : ""));
  return result;
}

template <typename Op>
absl::Status FakeCloudProvider::Control(absl::string_view what, Op op) {
  internal::MutexLock lock(&mu_);
  const absl::Time now = clock_.Now();
  state_->Advance(now);
  absl::Status status = op(*state_, now);
  state_->Log(now, absl::StrCat(what, " -> ", internal::StatusText(status)));
  return status;
}

absl::StatusOr<Instance> FakeCloudProvider::Create(
    const v1::NodeClaim& node_claim) {
  return Call<absl::StatusOr<Instance>>(CloudMethod::kCreate,
                                        node_claim.metadata().name(),
                                        [&](FakeCloudState& s, absl::Time now) {
                                          return s.Create(node_claim, now);
                                        });
}

absl::Status FakeCloudProvider::Delete(absl::string_view provider_id) {
  return Call<absl::Status>(CloudMethod::kDelete, provider_id,
                            [&](FakeCloudState& s, absl::Time now) {
                              return s.Delete(provider_id, now);
                            });
}

absl::StatusOr<Instance> FakeCloudProvider::Get(absl::string_view provider_id) {
  return Call<absl::StatusOr<Instance>>(
      CloudMethod::kGet, provider_id,
      [&](FakeCloudState& s, absl::Time) { return s.Get(provider_id); });
}

absl::StatusOr<std::vector<Instance>> FakeCloudProvider::List() {
  return Call<absl::StatusOr<std::vector<Instance>>>(
      CloudMethod::kList, "",
      [&](FakeCloudState& s, absl::Time) { return s.List(); });
}

absl::StatusOr<std::optional<std::string>> FakeCloudProvider::IsDrifted(
    const v1::NodeClaim& node_claim) {
  return Call<absl::StatusOr<std::optional<std::string>>>(
      CloudMethod::kIsDrifted,
      absl::StrCat(node_claim.metadata().name(), " ",
                   node_claim.status().provider_id()),
      [&](FakeCloudState& s, absl::Time) { return s.IsDrifted(node_claim); });
}

absl::StatusOr<std::vector<InstanceType>> FakeCloudProvider::GetInstanceTypes(
    const v1::NodePool& node_pool) {
  return Call<absl::StatusOr<std::vector<InstanceType>>>(
      CloudMethod::kGetInstanceTypes, node_pool.metadata().name(),
      [&](FakeCloudState& s, absl::Time) { return s.InstanceTypes(); });
}

std::vector<RepairPolicy> FakeCloudProvider::RepairPolicies() {
  internal::MutexLock lock(&mu_);
  return state_->repair_policies;
}

absl::Status FakeCloudProvider::AddInstance(Instance instance) {
  const std::string what = absl::StrCat("AddInstance ", instance.provider_id,
                                        " ", InstanceStateName(instance.state));
  return Control(what, [&](FakeCloudState& s, absl::Time now) {
    return s.AddInstance(std::move(instance), now);
  });
}

absl::Status FakeCloudProvider::SetTerminationProtection(
    absl::string_view provider_id, bool enabled) {
  return Control(absl::StrCat("SetTerminationProtection ", provider_id, " ",
                              enabled ? "on" : "off"),
                 [&](FakeCloudState& s, absl::Time) {
                   return s.SetProtection(provider_id, enabled);
                 });
}

absl::Status FakeCloudProvider::Vanish(absl::string_view provider_id) {
  return Control(
      absl::StrCat("Vanish ", provider_id),
      [&](FakeCloudState& s, absl::Time) { return s.Vanish(provider_id); });
}

absl::Status FakeCloudProvider::SetDrifted(absl::string_view provider_id,
                                           std::optional<std::string> reason) {
  return Control(absl::StrCat("SetDrifted ", provider_id, " ",
                              reason.has_value() ? *reason : "<none>"),
                 [&](FakeCloudState& s, absl::Time) {
                   return s.SetDrifted(provider_id, std::move(reason));
                 });
}

void FakeCloudProvider::SetImage(absl::string_view image_id) {
  Control(absl::StrCat("SetImage ", image_id), [&](FakeCloudState& s,
                                                   absl::Time) {
    s.SetImage(std::string(image_id));
    return absl::OkStatus();
  }).IgnoreError();
}

void FakeCloudProvider::SetInstanceTypes(std::vector<InstanceType> types) {
  const std::string what =
      absl::StrCat("SetInstanceTypes ", types.size(), " types");
  Control(what, [&](FakeCloudState& s, absl::Time) {
    s.SetInstanceTypes(std::move(types));
    return absl::OkStatus();
  }).IgnoreError();
}

void FakeCloudProvider::SetRepairPolicies(std::vector<RepairPolicy> policies) {
  const std::string what =
      absl::StrCat("SetRepairPolicies ", policies.size(), " policies");
  Control(what, [&](FakeCloudState& s, absl::Time) {
    s.repair_policies = std::move(policies);
    return absl::OkStatus();
  }).IgnoreError();
}

absl::Status FakeCloudProvider::FailNext(CloudMethod method,
                                         absl::Status status, int times,
                                         FaultTiming timing) {
  if (status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("FailNext(", CloudMethodName(method),
                     "): status: \"OK\": a fault must be an error"));
  }
  if (times < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("FailNext(", CloudMethodName(method), "): times: \"",
                     times, "\": must be >= 1"));
  }
  internal::MutexLock lock(&mu_);
  for (int i = 0; i < times; ++i) {
    state_->faults[static_cast<size_t>(method)].push_back({status, timing});
  }
  return absl::OkStatus();
}

std::vector<Instance> FakeCloudProvider::Instances() {
  internal::MutexLock lock(&mu_);
  state_->Advance(clock_.Now());
  return state_->List();
}

std::vector<std::string> FakeCloudProvider::ProviderIds() {
  internal::MutexLock lock(&mu_);
  state_->Advance(clock_.Now());
  return state_->ProviderIds();
}

bool FakeCloudProvider::Exists(absl::string_view provider_id) {
  internal::MutexLock lock(&mu_);
  state_->Advance(clock_.Now());
  return state_->Exists(provider_id);
}

void FakeCloudProvider::Settle() {
  internal::MutexLock lock(&mu_);
  state_->Advance(clock_.Now());
}

std::optional<absl::Time> FakeCloudProvider::NextEventTime() const {
  internal::MutexLock lock(&mu_);
  return state_->NextEventTime();
}

int64_t FakeCloudProvider::CallCount(CloudMethod method) const {
  internal::MutexLock lock(&mu_);
  return state_->calls[static_cast<size_t>(method)];
}

std::vector<std::string> FakeCloudProvider::CallLog() const {
  internal::MutexLock lock(&mu_);
  return state_->log;
}

}  // namespace karpenter::testing
