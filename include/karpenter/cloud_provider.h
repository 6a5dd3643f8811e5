// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// CloudProvider: the host interface through which the SDK reaches the cloud
// that runs the nodes' instances.
//
// The SDK never talks to a cloud API itself. A host implements this
// interface over its cloud SDK; `testing::FakeCloudProvider`
// (karpenter/testing/fake_cloud_provider.h) implements it in memory. The
// methods are those of Karpenter's `cloudprovider.CloudProvider`
// (pkg/cloudprovider/types.go) that deprovisioning needs: Create (for
// replacements), Delete and Get (termination: "terminating a node will not
// leak the instance", docs/semantics.md §4.1, §4.2, utils/termination
// `EnsureTerminated`), List (instance garbage collection, §4.6, §4.7),
// IsDrifted (cloud-provider drift, §3.5), GetInstanceTypes
// (consolidation, §2.7) and RepairPolicies (node repair, §2.10; the only
// method with a default).
//
// Instances are named by their provider ID (`aws:///us-west-2a/i-0abc...`),
// the value Nodes carry in `spec.providerID` and NodeClaims in
// `status.providerID`.
//
// Error codes, common to every method (the per-method comments add their
// own):
//   - NotFound: the instance does not exist (never existed, or terminated
//     and gone). Karpenter's `NodeClaimNotFoundError`. For Delete this is
//     success: the instance is already terminated.
//   - FailedPrecondition: the cloud refuses the operation in the instance's
//     current state, e.g. termination protection is on (EC2
//     `OperationNotPermitted`). The SDK retries with backoff and reports it;
//     the operator must act.
//   - InvalidArgument: the request is malformed (an empty or unparsable
//     provider ID); retrying cannot succeed.
//   - ResourceExhausted (API throttling, insufficient capacity for Create),
//     Unavailable, DeadlineExceeded, Internal: transient; retry with backoff.
//   - PermissionDenied, Unauthenticated: the host's credentials do not allow
//     the call.
// Implementations must not retry internally (the caller owns backoff) and
// must not block longer than the host's request timeout.
//
// Thread-safety: implementations must be safe to call from several threads
// at once.

#ifndef KARPENTER_CLOUD_PROVIDER_H_
#define KARPENTER_CLOUD_PROVIDER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "karpenter/v1/karpenter.pb.h"

namespace karpenter {

// The lifecycle state of a cloud instance, as far as deprovisioning cares.
enum class InstanceState {
  kPending,      // Launched, not yet running.
  kRunning,      // Running.
  kTerminating,  // Termination requested (shutting-down); not yet gone.
};

// "Pending", "Running" or "Terminating".
absl::string_view InstanceStateName(InstanceState state);

// One cloud instance. Karpenter's CloudProvider returns these as partial
// NodeClaims; the SDK keeps the fields the deprovisioning logic reads.
struct Instance {
  // `status.providerID` of the NodeClaim that owns it. Never empty.
  std::string provider_id;
  // Launch time: the 30 s grace of instance garbage collection counts from
  // here (docs/semantics.md §4.7).
  absl::Time created = absl::UnixEpoch();
  InstanceState state = InstanceState::kRunning;
  std::string instance_type;
  std::string zone;
  // "spot", "on-demand" or "reserved" (label karpenter.sh/capacity-type).
  std::string capacity_type;
  // The image the instance runs (`status.imageID`).
  std::string image_id;
  // Cloud tags; Karpenter tags instances with `karpenter.sh/nodeclaim` and
  // `karpenter.sh/nodepool`. Ordered, so printing is deterministic.
  std::map<std::string, std::string> tags;
};

// One place an instance type can be bought.
struct Offering {
  std::string zone;
  std::string capacity_type;
  // Price per hour, in the provider's currency.
  double price = 0;
  bool available = true;
  // For capacity type "reserved": the capacity reservation it draws on and
  // how many more instances it can take now (Karpenter's ReservationID()
  // and ReservationCapacity). A simulation reserves one per new NodeClaim
  // that could launch into it and offers it to no NodeClaim once none is
  // left.
  std::string reservation_id = "";
  int32_t reservation_capacity = 0;

  friend bool operator==(const Offering&, const Offering&) = default;
};

// An instance type the provider can launch, for consolidation's price and
// fit comparisons.
struct InstanceType {
  std::string name;
  // Resource name -> quantity string ("cpu" -> "4", "memory" -> "16Gi",
  // "pods" -> "110"), as in Node `status.capacity`. Ordered.
  std::map<std::string, std::string> capacity;
  std::vector<Offering> offerings;
  // Labels every node of this type carries (Karpenter's instance type
  // requirements), e.g. "kubernetes.io/arch" -> "arm64",
  // "kubernetes.io/os" -> "linux". The consolidation simulation matches
  // NodePool and pod requirements against them; a key absent here is
  // unknown and does not restrict the type. node.kubernetes.io/instance-type
  // (the name) and the offerings' zone and capacity type need not be listed.
  std::map<std::string, std::string> labels = {};

  friend bool operator==(const InstanceType&, const InstanceType&) = default;
};

// NodePool name -> the instance types `CloudProvider::GetInstanceTypes`
// returned for it, gathered by the host before a pass (cores never call the
// cloud). A NodePool absent from the catalogue, or with no types, has no
// instance types: Karpenter then treats its nodes as "NodePool not found".
// Consolidation and drift (InstanceTypeNotFound) read it.
using InstanceTypeCatalog =
    std::map<std::string, std::vector<InstanceType>, std::less<>>;

// One node-repair policy (Karpenter's `cloudprovider.RepairPolicy`,
// pkg/cloudprovider/types.go): a Node whose condition `condition_type` has
// had status `condition_status` for `toleration` (counted from the
// condition's lastTransitionTime) is unhealthy and its NodeClaim is deleted
// (docs/semantics.md §2.10). termination::LivenessOptions::Validate checks
// the fields: a non-empty type, a status of "True", "False" or "Unknown",
// a toleration >= 0.
struct RepairPolicy {
  // A Node condition type, e.g. "Ready" or "AcceleratedHardwareReady".
  std::string condition_type;
  // The status that counts as unhealthy: "True", "False" or "Unknown".
  std::string condition_status;
  // How long the condition may hold that status before the repair.
  absl::Duration toleration = absl::ZeroDuration();

  friend bool operator==(const RepairPolicy&, const RepairPolicy&) = default;
};

// The SDK's default policies, which CloudProvider::RepairPolicies returns
// unless overridden: Ready=False for 15 min and Ready=Unknown for 15 min.
// They are the SDK's node repair before providers could publish policies
// (a Node Ready not True for 15 min is repaired), kept so that a host that
// does not override RepairPolicies repairs as before. Karpenter's core
// instead runs no repair unless the provider publishes policies (and its
// NodeRepair gate, off by default, is on); a host that wants that returns
// {} or sets LivenessOptions::node_repair_enabled = false
// (docs/semantics.md §10.6).
std::vector<RepairPolicy> DefaultRepairPolicies();

// Host interface: no data, virtual destructor, contract per method.
class CloudProvider {
 public:
  virtual ~CloudProvider() = default;

  // Launches an instance for `node_claim` (its requirements and resources)
  // and returns it; the caller records `provider_id` in the NodeClaim's
  // status. Creating for a NodeClaim name that already has an instance
  // returns that instance (idempotent, so a lost reply does not leak a
  // second instance).
  // Errors: InvalidArgument if the NodeClaim has no name; ResourceExhausted
  // when no offering has capacity (Karpenter's InsufficientCapacityError).
  virtual absl::StatusOr<Instance> Create(const v1::NodeClaim& node_claim) = 0;

  // Requests termination of the instance. OK means the request was
  // accepted: the instance may still exist, in state kTerminating, until
  // the cloud finishes (poll Get). Deleting a terminating instance is OK and
  // changes nothing.
  // Errors: NotFound (already gone: done); FailedPrecondition (termination
  // protection; nothing changed).
  virtual absl::Status Delete(absl::string_view provider_id) = 0;

  // Returns the instance. Errors: NotFound once it is gone.
  virtual absl::StatusOr<Instance> Get(absl::string_view provider_id) = 0;

  // Returns every instance this provider launched for the cluster
  // (terminating ones included, marked so), ordered by provider ID.
  virtual absl::StatusOr<std::vector<Instance>> List() = 0;

  // Returns the provider's drift reason for `node_claim` (e.g.
  // "AMIDrift"), or nullopt if the instance matches its NodeClass.
  // Errors: NotFound if the instance is gone.
  virtual absl::StatusOr<std::optional<std::string>> IsDrifted(
      const v1::NodeClaim& node_claim) = 0;

  // Returns the instance types `node_pool` may launch, ordered by name.
  // Errors: NotFound if the NodePool's NodeClass does not exist.
  virtual absl::StatusOr<std::vector<InstanceType>> GetInstanceTypes(
      const v1::NodePool& node_pool) = 0;

  // Returns the conditions under which a Node is unhealthy and is repaired
  // (its NodeClaim deleted), as Karpenter's `CloudProvider.RepairPolicies`.
  // The host copies them into termination::LivenessOptions::repair_policies
  // before evaluating liveness; an empty list turns node repair off. Must
  // not fail and should return the same list every time; it is not called
  // per Node.
  // Default: DefaultRepairPolicies() (Ready False or Unknown for 15 min),
  // the SDK's behaviour before this method existed. A provider overrides it
  // with its own list, as AWS publishes seven (see
  // testing::AwsRepairPolicies()).
  virtual std::vector<RepairPolicy> RepairPolicies() {
    return DefaultRepairPolicies();
  }
};

}  // namespace karpenter

#endif  // KARPENTER_CLOUD_PROVIDER_H_
