// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// FakeCloudProvider: an in-memory `CloudProvider` for tests and simulations
// of node termination, instance garbage collection and drift. It plays the
// part Karpenter's `pkg/cloudprovider/fake/cloudprovider.go` plays for its
// controllers, with an instance lifecycle shaped like EC2's: an instance is
// Pending for `launch_latency`, then Running; a Delete makes it Terminating
// ("shutting-down") and it is gone `termination_latency` later, after which
// every call about it answers NotFound. That last step is what the
// termination controller polls for (utils/termination `EnsureTerminated`,
// docs/semantics.md §4.2): Delete until the provider says NotFound.
//
// What it models:
//   - Create: the instance type, zone and capacity type come from the
//     NodeClaim's requirements (`node.kubernetes.io/instance-type`,
//     `topology.kubernetes.io/zone`, `karpenter.sh/capacity-type`, first
//     value of an `In` requirement), else from the options' defaults. The
//     provider ID is `fake:///<zone>/i-<16 hex digits>` from a counter, the
//     tags are `karpenter.sh/nodeclaim` and (if the NodeClaim is labelled)
//     `karpenter.sh/nodepool`. Create is idempotent per NodeClaim name while
//     the instance exists (terminating included), as the contract asks.
//   - Termination protection (EC2 `disableApiTermination`): Delete answers
//     FailedPrecondition with EC2's error code `OperationNotPermitted` and
//     changes nothing until it is turned off.
//   - Out-of-band termination (Vanish), leaked instances (AddInstance),
//     cloud-provider drift (SetDrifted, or SetImage for image drift) and the
//     instance-type catalogue (SetInstanceTypes) are scripted by the test.
//   - Node repair: RepairPolicies() returns AWS's published policies
//     (AwsRepairPolicies()), an example of a provider overriding the SDK's
//     default; SetRepairPolicies replaces them.
//
// Time: every call first applies, in time order, the transitions (Pending
// -> Running, Terminating -> gone) whose instant is <= clock.Now(); each
// takes effect at its own instant, so results do not depend on how often the
// fake is called. NextEventTime() lets a test step a FakeClock from one
// transition to the next.
//
// Faults and observation: FailNext() scripts errors per method, with
// FaultTiming (shared with FakeCluster) choosing whether the call takes
// effect; CallCount() and CallLog() (one line per call and per transition)
// observe.
//
// Contract checks: tests/testing/fake_cloud_provider_test.cc has
// `CheckCloudProviderContract(CloudProvider&, ...)`, which exercises the
// contract of karpenter/cloud_provider.h through the interface only. A host
// can copy it into its own tests and run it against its implementation (in
// a sandbox account) to check that the SDK will meet the answers it expects.
//
// Thread-safety: every method may be called from any thread; one mutex
// serialises them, so each call is atomic with respect to the others. Do not
// call the fake from inside the Clock it was given.

#ifndef KARPENTER_TESTING_FAKE_CLOUD_PROVIDER_H_
#define KARPENTER_TESTING_FAKE_CLOUD_PROVIDER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "karpenter/clock.h"
#include "karpenter/cloud_provider.h"
#include "karpenter/testing/fake_cluster.h"
#include "karpenter/v1/karpenter.pb.h"
#include "karpenter/well_known.h"

namespace karpenter::testing {

// The drift reason IsDrifted reports for an instance whose image is not the
// current one (AWS's name for it).
inline constexpr absl::string_view kImageDrift = "AMIDrift";

// The node-repair policies the AWS provider publishes
// (aws/karpenter-provider-aws v1.14.1, pkg/cloudprovider/cloudprovider.go
// `RepairPolicies`), in its order: Ready False 30m, Ready Unknown 30m,
// AcceleratedHardwareReady False 10m, StorageReady False 30m,
// NetworkingReady False 30m, KernelReady False 30m, ContainerRuntimeReady
// False 30m. All but Ready are written by the EKS node monitoring agent.
std::vector<RepairPolicy> AwsRepairPolicies();

struct FakeCloudProviderOptions {
  // From Create to the instance being Running. Must be >= 0;
  // absl::InfiniteDuration() means never (an instance stuck launching).
  absl::Duration launch_latency = absl::Seconds(30);
  // From the first accepted Delete to the instance being gone. Must be >= 0;
  // absl::InfiniteDuration() means never (stuck shutting-down).
  absl::Duration termination_latency = absl::Seconds(10);
  // Used when the NodeClaim has no `In` requirement on the matching label
  // (for the zone: only when the catalogue has no available offering of the
  // instance type and capacity type, whose first zone is used otherwise).
  // None may be empty.
  std::string default_zone = "test-zone-a";
  std::string default_instance_type = "m5.large";
  std::string default_capacity_type =
      std::string(well_known::kCapacityTypeOnDemand);
  // The image every created instance runs. May be empty.
  std::string default_image_id = "fake-image-1";
  // When false, CallLog() stays empty (for large simulations).
  bool record_call_log = true;
};

// The CloudProvider methods, for FailNext() and CallCount().
enum class CloudMethod {
  kCreate,
  kDelete,
  kGet,
  kList,
  kIsDrifted,
  kGetInstanceTypes,
};

// The method's name as CallLog() prints it, e.g. "Delete".
absl::string_view CloudMethodName(CloudMethod method);

namespace internal {
class FakeCloudState;
}  // namespace internal

class FakeCloudProvider final : public CloudProvider {
 public:
  // Returns an empty cloud whose instance-type catalogue holds m5.large and
  // m5.xlarge with on-demand and spot offerings in `default_zone`. `clock`
  // must outlive the fake. Errors: InvalidArgument naming the option and its
  // value for a negative latency or an empty default.
  static absl::StatusOr<std::unique_ptr<FakeCloudProvider>> Create(
      Clock& clock, FakeCloudProviderOptions options = {});

  ~FakeCloudProvider() override;
  FakeCloudProvider(const FakeCloudProvider&) = delete;
  FakeCloudProvider& operator=(const FakeCloudProvider&) = delete;

  // --- CloudProvider (karpenter/cloud_provider.h); contracts there. -------

  // Launches a Pending instance created now, as the file comment says.
  // Errors: InvalidArgument if the NodeClaim has no name or an `In`
  // requirement on one of the three labels has no values;
  // ResourceExhausted if the catalogue lists the instance type but none of
  // its offerings in that zone and capacity type is available.
  absl::StatusOr<Instance> Create(const v1::NodeClaim& node_claim) override;

  // Pending or Running -> Terminating; Terminating: OK, no change.
  // Errors: InvalidArgument for an empty ID; NotFound
  // (`instance "<id>" not found`) if unknown or gone; FailedPrecondition
  // (`OperationNotPermitted: ...termination protection...`) if protected.
  absl::Status Delete(absl::string_view provider_id) override;

  // Errors: InvalidArgument for an empty ID; NotFound if unknown or gone.
  absl::StatusOr<Instance> Get(absl::string_view provider_id) override;

  // Every instance not gone, terminating included, ordered by provider ID.
  absl::StatusOr<std::vector<Instance>> List() override;

  // The reason given to SetDrifted for the NodeClaim's `status.providerID`,
  // or nullopt. Errors: InvalidArgument if `status.providerID` is empty;
  // NotFound if the instance is unknown or gone.
  absl::StatusOr<std::optional<std::string>> IsDrifted(
      const v1::NodeClaim& node_claim) override;

  // The catalogue (SetInstanceTypes), ordered by name, whatever the
  // NodePool. Errors: none except scripted ones.
  absl::StatusOr<std::vector<InstanceType>> GetInstanceTypes(
      const v1::NodePool& node_pool) override;

  // AwsRepairPolicies() until SetRepairPolicies. Neither counted nor logged
  // (it is not a cloud call; see CloudMethod).
  std::vector<RepairPolicy> RepairPolicies() override;

  // --- Test controls. Each applies due transitions first. ----------------

  // Adds `instance` as if launched outside the SDK (e.g. a leaked instance
  // whose NodeClaim is gone). A Pending one becomes Running at
  // `created + launch_latency` (or now, if that is past); a Terminating one
  // is gone `termination_latency` from now. If it carries a
  // `karpenter.sh/nodeclaim` tag naming a NodeClaim with no instance, Create
  // for that NodeClaim returns it. Errors: InvalidArgument if `provider_id`
  // is empty; AlreadyExists if an instance has that ID.
  absl::Status AddInstance(Instance instance);

  // Turns termination protection on or off. Errors: NotFound if unknown.
  absl::Status SetTerminationProtection(absl::string_view provider_id,
                                        bool enabled);

  // Removes the instance at once, as if terminated out of band (a spot
  // interruption, a console click). Errors: NotFound if unknown.
  absl::Status Vanish(absl::string_view provider_id);

  // Sets (or with nullopt clears) the drift reason IsDrifted reports.
  // Errors: NotFound if unknown.
  absl::Status SetDrifted(absl::string_view provider_id,
                          std::optional<std::string> reason);

  // Changes the image the NodeClass resolves to (initially
  // `default_image_id`), as a new AMI release would: instances launched from
  // now on run `image_id`, and IsDrifted reports kImageDrift for every
  // instance running another image (unless SetDrifted gave it a reason).
  void SetImage(absl::string_view image_id);

  // Replaces the catalogue GetInstanceTypes returns (it sorts by name).
  void SetInstanceTypes(std::vector<InstanceType> types);

  // Replaces the list RepairPolicies returns ({} turns repair off).
  void SetRepairPolicies(std::vector<RepairPolicy> policies);

  // The next `times` calls of `method` return `status` (queued per method).
  // kInsteadOfCall: the call has no effect; kAfterCall: it takes effect and
  // `status` replaces its answer. Errors: InvalidArgument if `status` is OK
  // or `times` < 1.
  absl::Status FailNext(CloudMethod method, absl::Status status, int times = 1,
                        FaultTiming timing = FaultTiming::kInsteadOfCall);

  // --- Observation. ---------------------------------------------------------

  // A copy of every instance not gone, ordered by provider ID.
  std::vector<Instance> Instances();
  // Their provider IDs alone, in the same order (for an observer that
  // only tracks which exist).
  std::vector<std::string> ProviderIds();

  // Whether the instance exists (is not gone).
  bool Exists(absl::string_view provider_id);

  // Applies every transition due at clock.Now(). Every other call does so
  // first too; Settle() is for a test that only moved the clock.
  void Settle();

  // The instant of the earliest pending transition, or nullopt if none. It
  // may turn out to be a no-op (an instance deleted while Pending).
  std::optional<absl::Time> NextEventTime() const;

  // Calls of `method` so far, failed and injected ones included.
  int64_t CallCount(CloudMethod method) const;

  // One line per call and per applied transition, in order, e.g.
  //   2024-01-01T00:00:00Z Create nc-1 -> OK fake:///z/i-0000000000000001
  //   Pending 2024-01-01T00:00:05Z Delete fake:///z/i-0000000000000001 -> OK
  //   2024-01-01T00:00:15Z terminated fake:///z/i-0000000000000001
  // Deterministic for a deterministic sequence of calls.
  std::vector<std::string> CallLog() const;

 private:
  FakeCloudProvider(Clock& clock,
                    std::unique_ptr<internal::FakeCloudState> state);

  // Applies due transitions, counts the call, consults the fault script,
  // runs `op` and logs the answer.
  template <typename Result, typename Op>
  Result Call(CloudMethod method, absl::string_view args, Op op);
  // The same for a test control: due transitions, `op`, a log line.
  template <typename Op>
  absl::Status Control(absl::string_view what, Op op);

  Clock& clock_;
  mutable absl::Mutex mu_;
  std::unique_ptr<internal::FakeCloudState> state_ ABSL_GUARDED_BY(mu_);
};

}  // namespace karpenter::testing

#endif  // KARPENTER_TESTING_FAKE_CLOUD_PROVIDER_H_
