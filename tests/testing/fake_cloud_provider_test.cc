// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/testing/fake_cloud_provider.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "karpenter/testing/fake_clock.h"

namespace karpenter::testing {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1704067200);  // 2024-01-01Z

// --- The CloudProvider contract, through the interface only. ---------------
//
// A host can copy CheckCloudProviderContract (and ContractSubject) into its
// own tests and run it against its CloudProvider, with `advance` sleeping
// (or moving its fake clock) and `unknown_id` an ID of its provider's shape
// that names no instance.

struct ContractSubject {
  CloudProvider& cloud;
  // Lets `d` pass for the provider.
  std::function<void(absl::Duration)> advance;
  // A well-formed provider ID of no instance.
  std::string unknown_id;
  // The NodeClaim to launch for; its name must have no instance yet.
  std::string claim_name = "contract-claim";
  // Polling step and bound while waiting for a terminated instance to go.
  absl::Duration poll = absl::Seconds(5);
  absl::Duration termination_timeout = absl::Minutes(10);
};

v1::NodeClaim Claim(const std::string& name,
                    const std::string& provider_id = "") {
  v1::NodeClaim c;
  c.mutable_metadata()->set_name(name);
  c.mutable_status()->set_provider_id(provider_id);
  return c;
}

// Whether `id` appears in List(), and with which state.
std::optional<InstanceState> Listed(CloudProvider& cloud,
                                    const std::string& id) {
  absl::StatusOr<std::vector<Instance>> all = cloud.List();
  REQUIRE(all.ok());
  std::optional<InstanceState> state;
  for (size_t i = 0; i < all->size(); ++i) {
    if (i > 0) CHECK((*all)[i - 1].provider_id < (*all)[i].provider_id);
    if ((*all)[i].provider_id == id) state = (*all)[i].state;
  }
  return state;
}

void CheckCloudProviderContract(const ContractSubject& s) {
  CloudProvider& cloud = s.cloud;
  // Malformed requests.
  CHECK(cloud.Create(Claim("")).status().code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK(cloud.Get("").status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(cloud.Delete("").code() == absl::StatusCode::kInvalidArgument);
  // Unknown instances.
  CHECK(cloud.Get(s.unknown_id).status().code() == absl::StatusCode::kNotFound);
  CHECK(cloud.Delete(s.unknown_id).code() == absl::StatusCode::kNotFound);
  CHECK(cloud.IsDrifted(Claim(s.claim_name, s.unknown_id)).status().code() ==
        absl::StatusCode::kNotFound);

  // Create is idempotent per NodeClaim; Get and List agree.
  absl::StatusOr<Instance> created = cloud.Create(Claim(s.claim_name));
  REQUIRE(created.ok());
  const std::string id = created->provider_id;
  REQUIRE_FALSE(id.empty());
  absl::StatusOr<Instance> again = cloud.Create(Claim(s.claim_name));
  REQUIRE(again.ok());
  CHECK(again->provider_id == id);
  absl::StatusOr<Instance> got = cloud.Get(id);
  REQUIRE(got.ok());
  CHECK(got->provider_id == id);
  CHECK(got->state != InstanceState::kTerminating);
  CHECK(Listed(cloud, id) == got->state);
  CHECK(cloud.IsDrifted(Claim(s.claim_name, id)).ok());

  // Instance types come ordered by name.
  v1::NodePool pool;
  pool.mutable_metadata()->set_name("default");
  absl::StatusOr<std::vector<InstanceType>> types =
      cloud.GetInstanceTypes(pool);
  REQUIRE(types.ok());
  for (size_t i = 1; i < types->size(); ++i) {
    CHECK((*types)[i - 1].name < (*types)[i].name);
  }

  // Delete is accepted; while terminating, Delete is OK again and Get and
  // List say Terminating; then the instance goes and everything says so.
  REQUIRE(cloud.Delete(id).ok());
  absl::Duration waited;
  for (;;) {
    absl::StatusOr<Instance> now = cloud.Get(id);
    if (!now.ok()) {
      REQUIRE(now.status().code() == absl::StatusCode::kNotFound);
      break;
    }
    CHECK(now->state == InstanceState::kTerminating);
    const absl::Status repeat = cloud.Delete(id);
    CHECK((repeat.ok() || absl::IsNotFound(repeat)));
    const std::optional<InstanceState> listed = Listed(cloud, id);
    CHECK((!listed || *listed == InstanceState::kTerminating));
    REQUIRE(waited < s.termination_timeout);
    s.advance(s.poll);
    waited += s.poll;
  }
  CHECK(cloud.Delete(id).code() == absl::StatusCode::kNotFound);
  CHECK(cloud.Get(id).status().code() == absl::StatusCode::kNotFound);
  CHECK(cloud.IsDrifted(Claim(s.claim_name, id)).status().code() ==
        absl::StatusCode::kNotFound);
  CHECK_FALSE(Listed(cloud, id).has_value());
}

// --- The fake. -------------------------------------------------------------

struct Env {
  explicit Env(FakeCloudProviderOptions options = {}) : clock(kT0) {
    auto made = FakeCloudProvider::Create(clock, std::move(options));
    REQUIRE(made.ok());
    cloud = std::move(*made);
  }
  void Advance(absl::Duration d) { REQUIRE(clock.Advance(d).ok()); }
  // Launches for `name` and returns the provider ID.
  std::string Launch(const std::string& name) {
    absl::StatusOr<Instance> i = cloud->Create(Claim(name));
    REQUIRE(i.ok());
    return i->provider_id;
  }
  InstanceState StateOf(const std::string& id) {
    absl::StatusOr<Instance> i = cloud->Get(id);
    REQUIRE(i.ok());
    return i->state;
  }

  FakeClock clock;
  std::unique_ptr<FakeCloudProvider> cloud;
};

v1::NodeSelectorRequirement In(const std::string& key,
                               std::vector<std::string> values) {
  v1::NodeSelectorRequirement r;
  r.set_key(key);
  r.set_operator_("In");
  for (std::string& v : values) r.add_values(std::move(v));
  return r;
}

TEST_CASE("fake cloud: satisfies the CloudProvider contract", "[fakecloud]") {
  struct Row {
    absl::Duration launch;
    absl::Duration termination;
  };
  const Row row = GENERATE(Row{absl::Seconds(30), absl::Seconds(10)},
                           Row{absl::ZeroDuration(), absl::ZeroDuration()},
                           Row{absl::Seconds(1), absl::Minutes(3)});
  CAPTURE(absl::FormatDuration(row.launch),
          absl::FormatDuration(row.termination));
  FakeCloudProviderOptions options;
  options.launch_latency = row.launch;
  options.termination_latency = row.termination;
  Env env(options);
  CheckCloudProviderContract(
      {.cloud = *env.cloud,
       .advance = [&](absl::Duration d) { env.Advance(d); },
       .unknown_id = "fake:///test-zone-a/i-00000000000fffff",
       .claim_name = "contract-claim",
       .poll = absl::Seconds(5),
       .termination_timeout = absl::Minutes(10)});
}

TEST_CASE("fake cloud: Create takes placement from requirements and tags it",
          "[fakecloud]") {
  Env env;
  SECTION("defaults") {
    absl::StatusOr<Instance> i = env.cloud->Create(Claim("nc-1"));
    REQUIRE(i.ok());
    CHECK(i->provider_id == "fake:///test-zone-a/i-0000000000000001");
    CHECK(i->zone == "test-zone-a");
    CHECK(i->instance_type == "m5.large");
    CHECK(i->capacity_type == "on-demand");
    CHECK(i->image_id == "fake-image-1");
    CHECK(i->created == kT0);
    CHECK(i->state == InstanceState::kPending);
    CHECK(i->tags == std::map<std::string, std::string>{
                         {"karpenter.sh/nodeclaim", "nc-1"}});
  }
  SECTION("requirements, first In value, labels") {
    v1::NodeClaim c = Claim("nc-2");
    (*c.mutable_metadata()->mutable_labels())["karpenter.sh/nodepool"] = "gpu";
    v1::NodeSelectorRequirement not_in =
        In("topology.kubernetes.io/zone", {"z9"});
    not_in.set_operator_("NotIn");
    *c.mutable_spec()->add_requirements() = not_in;
    *c.mutable_spec()->add_requirements() =
        In("topology.kubernetes.io/zone", {"test-zone-a", "z2"});
    *c.mutable_spec()->add_requirements() =
        In("node.kubernetes.io/instance-type", {"m5.xlarge"});
    *c.mutable_spec()->add_requirements() =
        In("karpenter.sh/capacity-type", {"spot", "on-demand"});
    absl::StatusOr<Instance> i = env.cloud->Create(c);
    REQUIRE(i.ok());
    CHECK(i->zone == "test-zone-a");
    CHECK(i->instance_type == "m5.xlarge");
    CHECK(i->capacity_type == "spot");
    CHECK(i->tags.at("karpenter.sh/nodepool") == "gpu");
    CHECK(i->tags.at("karpenter.sh/nodeclaim") == "nc-2");
  }
  SECTION("an In requirement without values is malformed") {
    v1::NodeClaim c = Claim("nc-3");
    *c.mutable_spec()->add_requirements() =
        In("karpenter.sh/capacity-type", {});
    absl::Status s = env.cloud->Create(c).status();
    CHECK(s.code() == absl::StatusCode::kInvalidArgument);
    CHECK(absl::StrContains(s.message(), "spec.requirements[0].values"));
    CHECK(env.cloud->Instances().empty());
  }
  SECTION("no available offering: insufficient capacity") {
    InstanceType t;
    t.name = "m5.large";
    t.offerings = {{"test-zone-a", "on-demand", 0.1, false},
                   {"test-zone-a", "spot", 0.04, true}};
    env.cloud->SetInstanceTypes({t});
    absl::Status s = env.cloud->Create(Claim("nc-4")).status();
    CHECK(s.code() == absl::StatusCode::kResourceExhausted);
    CHECK(absl::StrContains(s.message(), "InsufficientCapacityError"));
    v1::NodeClaim spot = Claim("nc-5");
    *spot.mutable_spec()->add_requirements() =
        In("karpenter.sh/capacity-type", {"spot"});
    CHECK(env.cloud->Create(spot).ok());
  }
}

TEST_CASE("fake cloud: Create is idempotent per NodeClaim while it exists",
          "[fakecloud]") {
  Env env;
  const std::string id = env.Launch("nc-1");
  CHECK(env.Launch("nc-1") == id);
  CHECK(env.Launch("nc-2") == "fake:///test-zone-a/i-0000000000000002");
  REQUIRE(env.cloud->Delete(id).ok());
  CHECK(env.Launch("nc-1") == id);  // Terminating still exists.
  env.Advance(absl::Seconds(10));
  CHECK(env.Launch("nc-1") == "fake:///test-zone-a/i-0000000000000003");
  CHECK(env.cloud->Instances().size() == 2);
}

TEST_CASE("fake cloud: Pending becomes Running after launch_latency",
          "[fakecloud]") {
  Env env;
  const std::string id = env.Launch("nc-1");
  env.Advance(absl::Seconds(30) - absl::Nanoseconds(1));
  CHECK(env.StateOf(id) == InstanceState::kPending);
  env.Advance(absl::Nanoseconds(1));
  CHECK(env.StateOf(id) == InstanceState::kRunning);
}

TEST_CASE("fake cloud: Delete is idempotent until gone, then NotFound",
          "[fakecloud]") {
  Env env;
  const std::string id = env.Launch("nc-1");
  env.Advance(absl::Seconds(30));
  REQUIRE(env.cloud->Delete(id).ok());
  CHECK(env.StateOf(id) == InstanceState::kTerminating);
  env.Advance(absl::Seconds(9));
  // A second Delete does not restart the termination clock.
  CHECK(env.cloud->Delete(id).ok());
  CHECK(env.StateOf(id) == InstanceState::kTerminating);
  CHECK(env.cloud->NextEventTime() == kT0 + absl::Seconds(40));
  CHECK(env.cloud->CallLog().back() == absl::StrCat("2024-01-01T00:00:39Z Get ",
                                                    id, " -> OK ", id,
                                                    " Terminating"));
  env.Advance(absl::Seconds(1));
  const absl::Status s = env.cloud->Delete(id);
  CHECK(s.code() == absl::StatusCode::kNotFound);
  CHECK(std::string(s.message()) ==
        absl::StrCat("instance \"", id, "\" not found"));
  CHECK_FALSE(env.cloud->Exists(id));
  // The repeated Delete scheduled nothing of its own.
  CHECK_FALSE(env.cloud->NextEventTime().has_value());
}

TEST_CASE("fake cloud: Delete of a Pending instance never runs it",
          "[fakecloud]") {
  Env env;
  const std::string id = env.Launch("nc-1");
  REQUIRE(env.cloud->Delete(id).ok());
  env.Advance(absl::Seconds(5));
  CHECK(env.StateOf(id) == InstanceState::kTerminating);
  env.Advance(absl::Minutes(1));
  CHECK_FALSE(env.cloud->Exists(id));
  for (const std::string& line : env.cloud->CallLog()) {
    CHECK_FALSE(absl::StrContains(line, "running"));
  }
}

TEST_CASE("fake cloud: termination protection refuses Delete until off",
          "[fakecloud]") {
  Env env;
  const std::string id = env.Launch("nc-1");
  env.Advance(absl::Seconds(30));
  REQUIRE(env.cloud->SetTerminationProtection(id, true).ok());
  const absl::Status refused = env.cloud->Delete(id);
  CHECK(refused.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(absl::StrContains(refused.message(), "OperationNotPermitted"));
  CHECK(absl::StrContains(refused.message(), "termination protection"));
  CHECK(absl::StrContains(refused.message(), id));
  CHECK(env.StateOf(id) == InstanceState::kRunning);
  CHECK_FALSE(env.cloud->NextEventTime().has_value());
  REQUIRE(env.cloud->SetTerminationProtection(id, false).ok());
  CHECK(env.cloud->Delete(id).ok());
  CHECK(env.StateOf(id) == InstanceState::kTerminating);
  CHECK(env.cloud->SetTerminationProtection("fake:///x/i-1", true).code() ==
        absl::StatusCode::kNotFound);
}

TEST_CASE("fake cloud: FailNext fails N calls, then the call succeeds",
          "[fakecloud]") {
  Env env;
  const std::string id = env.Launch("nc-1");
  REQUIRE(env.cloud
              ->FailNext(CloudMethod::kDelete,
                         absl::UnavailableError("throttled"), 2)
              .ok());
  CHECK(env.cloud->Delete(id).code() == absl::StatusCode::kUnavailable);
  CHECK(env.cloud->Delete(id).code() == absl::StatusCode::kUnavailable);
  CHECK(env.StateOf(id) == InstanceState::kPending);  // No effect.
  CHECK(env.cloud->Delete(id).ok());
  CHECK(env.StateOf(id) == InstanceState::kTerminating);
  CHECK(env.cloud->CallCount(CloudMethod::kDelete) == 3);
  CHECK(env.cloud->CallCount(CloudMethod::kGet) == 2);
  CHECK(env.cloud->CallCount(CloudMethod::kList) == 0);

  SECTION("faults are per method") {
    REQUIRE(
        env.cloud
            ->FailNext(CloudMethod::kList, absl::DeadlineExceededError("slow"))
            .ok());
    CHECK(env.cloud->Get(id).ok());
    CHECK(env.cloud->List().status().code() ==
          absl::StatusCode::kDeadlineExceeded);
    CHECK(env.cloud->List().ok());
  }
  SECTION("bad scripts") {
    CHECK(env.cloud->FailNext(CloudMethod::kGet, absl::OkStatus()).code() ==
          absl::StatusCode::kInvalidArgument);
    const absl::Status s =
        env.cloud->FailNext(CloudMethod::kGet, absl::InternalError("x"), 0);
    CHECK(s.code() == absl::StatusCode::kInvalidArgument);
    CHECK(absl::StrContains(s.message(), "times: \"0\""));
  }
}

TEST_CASE("fake cloud: a kAfterCall fault applies the call and loses its reply",
          "[fakecloud]") {
  Env env;
  SECTION("Delete") {
    const std::string id = env.Launch("nc-1");
    REQUIRE(env.cloud
                ->FailNext(CloudMethod::kDelete,
                           absl::DeadlineExceededError("timeout"), 1,
                           FaultTiming::kAfterCall)
                .ok());
    CHECK(env.cloud->Delete(id).code() == absl::StatusCode::kDeadlineExceeded);
    CHECK(env.StateOf(id) == InstanceState::kTerminating);
    CHECK(env.cloud->Delete(id).ok());  // The retry is idempotent.
  }
  SECTION("Create") {
    REQUIRE(env.cloud
                ->FailNext(CloudMethod::kCreate,
                           absl::UnavailableError("reset"), 1,
                           FaultTiming::kAfterCall)
                .ok());
    CHECK(env.cloud->Create(Claim("nc-1")).status().code() ==
          absl::StatusCode::kUnavailable);
    REQUIRE(env.cloud->Instances().size() == 1);
    // The retry finds the instance the lost reply launched: no leak.
    CHECK(env.Launch("nc-1") == env.cloud->Instances()[0].provider_id);
    CHECK(env.cloud->Instances().size() == 1);
  }
}

TEST_CASE("fake cloud: Vanish removes an instance at once", "[fakecloud]") {
  Env env;
  const std::string id = env.Launch("nc-1");
  const std::string other = env.Launch("nc-2");
  REQUIRE(env.cloud->Vanish(id).ok());
  CHECK(env.cloud->Get(id).status().code() == absl::StatusCode::kNotFound);
  CHECK(env.cloud->Delete(id).code() == absl::StatusCode::kNotFound);
  absl::StatusOr<std::vector<Instance>> all = env.cloud->List();
  REQUIRE(all.ok());
  REQUIRE(all->size() == 1);
  CHECK((*all)[0].provider_id == other);
  CHECK(env.cloud->Vanish(id).code() == absl::StatusCode::kNotFound);
  // Its pending transition is stale and must not resurrect anything.
  env.Advance(absl::Minutes(1));
  CHECK_FALSE(env.cloud->Exists(id));
  // Vanished, the NodeClaim can launch again.
  CHECK(env.Launch("nc-1") != id);
}

TEST_CASE("fake cloud: AddInstance seeds leaked and terminating instances",
          "[fakecloud]") {
  Env env;
  Instance leaked;
  leaked.provider_id = "fake:///test-zone-a/i-0000000000000001";
  leaked.created = kT0 - absl::Minutes(5);
  leaked.state = InstanceState::kPending;
  leaked.tags = {{"karpenter.sh/nodeclaim", "gone-claim"}};
  REQUIRE(env.cloud->AddInstance(leaked).ok());
  CHECK(env.cloud->AddInstance(leaked).code() ==
        absl::StatusCode::kAlreadyExists);
  Instance unnamed;
  CHECK(env.cloud->AddInstance(unnamed).code() ==
        absl::StatusCode::kInvalidArgument);
  // Launched long ago: Running at once.
  CHECK(env.StateOf(leaked.provider_id) == InstanceState::kRunning);
  // The counter skips the seeded ID; Create finds the tagged instance.
  CHECK(env.Launch("nc-1") == "fake:///test-zone-a/i-0000000000000002");
  CHECK(env.Launch("gone-claim") == leaked.provider_id);

  Instance stuck = leaked;
  stuck.provider_id = "fake:///test-zone-b/i-00000000000000aa";
  stuck.state = InstanceState::kTerminating;
  stuck.tags.clear();
  REQUIRE(env.cloud->AddInstance(stuck).ok());
  CHECK(env.cloud->NextEventTime() == kT0 + absl::Seconds(10));
  env.Advance(absl::Seconds(10));
  CHECK_FALSE(env.cloud->Exists(stuck.provider_id));
}

TEST_CASE("fake cloud: IsDrifted reports SetDrifted", "[fakecloud]") {
  Env env;
  const std::string id = env.Launch("nc-1");
  absl::StatusOr<std::optional<std::string>> d =
      env.cloud->IsDrifted(Claim("nc-1", id));
  REQUIRE(d.ok());
  CHECK_FALSE(d->has_value());
  REQUIRE(env.cloud->SetDrifted(id, "AMIDrift").ok());
  d = env.cloud->IsDrifted(Claim("nc-1", id));
  REQUIRE(d.ok());
  CHECK(*d == std::optional<std::string>("AMIDrift"));
  REQUIRE(env.cloud->SetDrifted(id, std::nullopt).ok());
  d = env.cloud->IsDrifted(Claim("nc-1", id));
  REQUIRE(d.ok());
  CHECK_FALSE(d->has_value());
  CHECK(env.cloud->IsDrifted(Claim("nc-1", "fake:///z/i-9")).status().code() ==
        absl::StatusCode::kNotFound);
  CHECK(env.cloud->IsDrifted(Claim("nc-1")).status().code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK(env.cloud->SetDrifted("fake:///z/i-9", "x").code() ==
        absl::StatusCode::kNotFound);
}

TEST_CASE("fake cloud: SetImage drifts instances on the old image only",
          "[fakecloud]") {
  Env env;
  const std::string old_id = env.Launch("nc-old");
  env.cloud->SetImage("image-2");
  const std::string new_id = env.Launch("nc-new");
  absl::StatusOr<Instance> fresh = env.cloud->Get(new_id);
  REQUIRE(fresh.ok());
  CHECK(fresh->image_id == "image-2");
  absl::StatusOr<std::optional<std::string>> d =
      env.cloud->IsDrifted(Claim("nc-old", old_id));
  REQUIRE(d.ok());
  CHECK(*d == std::optional<std::string>(std::string(kImageDrift)));
  d = env.cloud->IsDrifted(Claim("nc-new", new_id));
  REQUIRE(d.ok());
  CHECK_FALSE(d->has_value());
  // An explicit reason wins over image drift.
  REQUIRE(env.cloud->SetDrifted(old_id, "SubnetDrift").ok());
  d = env.cloud->IsDrifted(Claim("nc-old", old_id));
  REQUIRE(d.ok());
  CHECK(*d == std::optional<std::string>("SubnetDrift"));
  // Back to the old image: only the new instance is drifted.
  REQUIRE(env.cloud->SetDrifted(old_id, std::nullopt).ok());
  env.cloud->SetImage("fake-image-1");
  d = env.cloud->IsDrifted(Claim("nc-old", old_id));
  REQUIRE(d.ok());
  CHECK_FALSE(d->has_value());
  d = env.cloud->IsDrifted(Claim("nc-new", new_id));
  REQUIRE(d.ok());
  CHECK(d->has_value());
}

TEST_CASE("fake cloud: GetInstanceTypes returns the catalogue by name",
          "[fakecloud]") {
  Env env;
  v1::NodePool pool;
  absl::StatusOr<std::vector<InstanceType>> types =
      env.cloud->GetInstanceTypes(pool);
  REQUIRE(types.ok());
  REQUIRE(types->size() == 2);
  CHECK((*types)[0].name == "m5.large");
  CHECK((*types)[1].name == "m5.xlarge");
  for (const InstanceType& t : *types) {
    REQUIRE(t.offerings.size() == 2);
    CHECK(t.offerings[0].zone == "test-zone-a");
    CHECK(t.offerings[0].capacity_type == "on-demand");
    CHECK(t.offerings[1].capacity_type == "spot");
    CHECK(t.offerings[1].price < t.offerings[0].price);
  }
  InstanceType c, a, b;
  c.name = "c";
  a.name = "a";
  b.name = "b";
  env.cloud->SetInstanceTypes({c, a, b});
  types = env.cloud->GetInstanceTypes(pool);
  REQUIRE(types.ok());
  REQUIRE(types->size() == 3);
  CHECK((*types)[0].name == "a");
  CHECK((*types)[2].name == "c");
}

TEST_CASE("fake cloud: NextEventTime steps a FakeClock through transitions",
          "[fakecloud]") {
  Env env;
  CHECK_FALSE(env.cloud->NextEventTime().has_value());
  const std::string a = env.Launch("a");
  env.Advance(absl::Seconds(5));
  const std::string b = env.Launch("b");
  REQUIRE(env.cloud->Delete(b).ok());
  std::vector<absl::Duration> seen;
  for (std::optional<absl::Time> next = env.cloud->NextEventTime();
       next.has_value(); next = env.cloud->NextEventTime()) {
    REQUIRE(env.clock.SetTime(*next).ok());
    env.cloud->Settle();
    seen.push_back(*next - kT0);
  }
  // b's launch at 35 s is a stale no-op: it was deleted while Pending.
  CHECK(seen == std::vector<absl::Duration>{
                    absl::Seconds(15), absl::Seconds(30), absl::Seconds(35)});
  CHECK(env.StateOf(a) == InstanceState::kRunning);
  CHECK_FALSE(env.cloud->Exists(b));
}

TEST_CASE("fake cloud: an infinite latency never fires", "[fakecloud]") {
  FakeCloudProviderOptions options;
  options.termination_latency = absl::InfiniteDuration();
  Env env(options);
  const std::string id = env.Launch("nc-1");
  REQUIRE(env.cloud->Delete(id).ok());
  CHECK(env.cloud->NextEventTime() == kT0 + absl::Seconds(30));
  env.Advance(absl::Hours(24 * 365));
  CHECK(env.StateOf(id) == InstanceState::kTerminating);
  CHECK_FALSE(env.cloud->NextEventTime().has_value());
}

std::vector<std::string> Script() {
  FakeCloudProviderOptions options;
  options.default_zone = "z";
  Env env(options);
  const std::string id = env.Launch("nc-1");
  env.Advance(absl::Seconds(5));
  REQUIRE(env.cloud->Delete(id).ok());
  REQUIRE(env.cloud->SetTerminationProtection(env.Launch("nc-2"), true).ok());
  env.Advance(absl::Seconds(20));
  CHECK(env.cloud->Delete(id).code() == absl::StatusCode::kNotFound);
  CHECK(env.cloud->Delete("fake:///z/i-0000000000000002").code() ==
        absl::StatusCode::kFailedPrecondition);
  CHECK(env.cloud->List().ok());
  return env.cloud->CallLog();
}

TEST_CASE("fake cloud: CallLog is deterministic", "[fakecloud]") {
  const std::vector<std::string> log = Script();
  CHECK(Script() == log);
  const std::vector<std::string> want = {
      "2024-01-01T00:00:00Z Create nc-1 -> OK fake:///z/i-0000000000000001 "
      "Pending",
      "2024-01-01T00:00:05Z Delete fake:///z/i-0000000000000001 -> OK",
      "2024-01-01T00:00:05Z Create nc-2 -> OK fake:///z/i-0000000000000002 "
      "Pending",
      "2024-01-01T00:00:05Z SetTerminationProtection "
      "fake:///z/i-0000000000000002 on -> OK",
      "2024-01-01T00:00:15Z terminated fake:///z/i-0000000000000001",
      "2024-01-01T00:00:25Z Delete fake:///z/i-0000000000000001 -> NOT_FOUND: "
      "instance \"fake:///z/i-0000000000000001\" not found",
      "2024-01-01T00:00:25Z Delete fake:///z/i-0000000000000002 -> "
      "FAILED_PRECONDITION: OperationNotPermitted: instance "
      "\"fake:///z/i-0000000000000002\" may not be terminated: termination "
      "protection is enabled (disableApiTermination); turn it off and try "
      "again",
      "2024-01-01T00:00:25Z List -> OK 1 instances",
  };
  // nc-2 becomes Running at 00:00:35, after the script ends.
  CHECK(log == want);

  FakeCloudProviderOptions quiet;
  quiet.record_call_log = false;
  Env env(quiet);
  env.Launch("nc-1");
  CHECK(env.cloud->CallLog().empty());
}

TEST_CASE("fake cloud: invalid options are refused by name", "[fakecloud]") {
  FakeClock clock(kT0);
  struct Row {
    std::function<void(FakeCloudProviderOptions&)> edit;
    std::string field;
    std::string value;
  };
  const std::vector<Row> rows = {
      {[](auto& o) { o.launch_latency = absl::Seconds(-1); }, "launch_latency",
       "\"-1s\""},
      {[](auto& o) { o.termination_latency = absl::Milliseconds(-5); },
       "termination_latency", "\"-5ms\""},
      {[](auto& o) { o.default_zone = ""; }, "default_zone", "\"\""},
      {[](auto& o) { o.default_instance_type = ""; }, "default_instance_type",
       "\"\""},
      {[](auto& o) { o.default_capacity_type = ""; }, "default_capacity_type",
       "\"\""},
  };
  for (const Row& row : rows) {
    CAPTURE(row.field);
    FakeCloudProviderOptions options;
    row.edit(options);
    auto made = FakeCloudProvider::Create(clock, options);
    REQUIRE_FALSE(made.ok());
    CHECK(made.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(absl::StrContains(made.status().message(),
                            absl::StrCat(row.field, ": ", row.value)));
  }
}

TEST_CASE("fake cloud: concurrent Creates get distinct instances",
          "[fakecloud][threads]") {
  Env env;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&env, t] {
      for (int i = 0; i < 50; ++i) {
        // Half the names collide across threads: idempotence under races.
        (void)env.cloud->Create(Claim(absl::StrCat("nc-", i, "-", t % 2)));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  std::set<std::string> ids;
  for (const Instance& i : env.cloud->Instances()) ids.insert(i.provider_id);
  CHECK(ids.size() == 100);
  CHECK(env.cloud->CallCount(CloudMethod::kCreate) == 200);
}

TEST_CASE("fake cloud: CloudMethodName names every method", "[fakecloud]") {
  CHECK(CloudMethodName(CloudMethod::kCreate) == "Create");
  CHECK(CloudMethodName(CloudMethod::kIsDrifted) == "IsDrifted");
  CHECK(CloudMethodName(CloudMethod::kGetInstanceTypes) == "GetInstanceTypes");
}

}  // namespace
}  // namespace karpenter::testing
