// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Simulation scenarios: a cluster dump (ordinary Kubernetes objects, read by
// snapshot::LoadText) plus one `apiVersion: sim.karpenter-sdk.dev/v1`,
// `kind: Scenario` document (proto/karpenter/v1/scenario.proto) in the same
// multi-document YAML or JSON file. The Scenario says what cloud the
// cluster runs in (instance-type catalogue, image, termination
// protection), which synthetic nodes and workloads to add so that a short
// file can describe a large cluster (`generate`), and what happens when
// (`changes`: NodePool edits, node deletions, spot interruptions, drift,
// cloud and eviction faults). karpenter::testing::Simulation
// (karpenter/testing/simulation.h) runs it.
//
// Generated objects are shaped as Karpenter leaves them (pkg/controllers/
// nodeclaim/lifecycle: launch.go, registration.go, initialization.go): a
// Node and a NodeClaim of the same name per node, with labels
// karpenter.sh/nodepool, karpenter.sh/initialized, karpenter.sh/registered,
// node.kubernetes.io/instance-type, topology.kubernetes.io/zone,
// karpenter.sh/capacity-type and kubernetes.io/hostname, the finalizer
// karpenter.sh/termination, providerID `fake:///<zone>/i-<name>`,
// capacity = the instance type's capacity and allocatable = capacity minus
// its `overhead` (karpenter/catalog.h), Node Ready=True,
// NodeClaim Launched/Registered/Initialized=True and its spec copied from
// the NodePool's template. Pods are Running and Ready, started an hour
// before `start` (a job with a `duration`: at `start`, with annotation
// FakeCluster::kRunForAnnotationKey), owned by a ReplicaSet (controller:
// true) unless they belong to a daemon set, a job or a StatefulSet (pods
// <name>-<i>; with `volumeSize`, PersistentVolumeClaim data-<pod> bound to
// a PersistentVolume pinned to the zone of the pod's node, StorageClass
// sim-zonal), and carry the workload's topology spread constraints and
// affinity.
//
// Thread-safety: the functions are pure and reentrant.

#ifndef KARPENTER_TESTING_SCENARIO_H_
#define KARPENTER_TESTING_SCENARIO_H_

#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/testing/fake_cloud_provider.h"
#include "karpenter/v1/scenario.pb.h"

namespace karpenter::testing {

inline constexpr absl::string_view kScenarioApiVersion =
    "sim.karpenter-sdk.dev/v1";
inline constexpr absl::string_view kScenarioKind = "Scenario";

// Defaults applied where the Scenario leaves a field empty.
inline constexpr absl::string_view kDefaultUntil = "2h";
inline constexpr absl::string_view kDefaultImage = "image-1";
inline constexpr absl::string_view kDefaultNodeAge = "24h";
inline constexpr absl::string_view kDefaultGracePeriod = "30s";
inline constexpr absl::string_view kDefaultDriftReason = "ImageDrift";

// Upper bounds ValidateScenario enforces, so a hostile scenario cannot make
// ExpandGenerated or the fakes allocate without limit.
inline constexpr int kMaxGeneratedNodes = 10000;  // Per node group.
inline constexpr int kMaxReplicas = 100000;       // Per workload.
inline constexpr int kMaxFaultTimes = 10000;      // Per fault change.

struct LoadedScenario {
  // The dump's objects, without the generated ones (see ExpandGenerated).
  snapshot::ObjectSet cluster;
  v1::Scenario scenario;
  // False when the text held no Scenario document (LoadScenarioOrDump):
  // `scenario` is then the default one, without a start.
  bool has_scenario_document = true;
};

// Reads `text` (YAML or JSON, as snapshot::LoadText sniffs it): the cluster
// documents with snapshot::LoadText (which skips the Scenario document as
// an unknown kind; it is not counted in `cluster.skipped_kinds`), and the
// one Scenario document with snapshot::LoadDocumentsOfKind. Does not
// validate the Scenario (ValidateScenario) or expand it. `source` names the
// input in messages. Errors: InvalidArgument `<source>: no Scenario
// document` or `<source>: 2 Scenario documents`, an apiVersion other than
// kScenarioApiVersion (quoted), and the loaders' errors (syntax, field
// types; they name the source, document, field and line).
absl::StatusOr<LoadedScenario> LoadScenario(absl::string_view text,
                                            absl::string_view source);

// As LoadScenario, but text without a Scenario document is a plain cluster
// dump: `scenario` is then a Scenario of name kDumpScenarioName with every
// field at its default but spec.image, the status.imageID most of the
// dump's NodeClaims run (the smallest on a tie; claims running another are
// AMI-drifted), and no spec.start (the caller sets it, e.g. to DumpTime);
// `has_scenario_document` is false. Errors: those of
// LoadScenario but "no Scenario document".
absl::StatusOr<LoadedScenario> LoadScenarioOrDump(absl::string_view text,
                                                  absl::string_view source);
inline constexpr absl::string_view kDumpScenarioName = "what-if";

// The latest time the dump shows: the maximum over the creation timestamps
// of its Nodes, NodeClaims, Pods and NodePools and the transition and
// heartbeat times of their conditions (a kubelet posts Ready's heartbeat
// every few minutes, so for a live cluster this is within minutes of the
// dump). nullopt when the dump has no timestamp at all.
std::optional<absl::Time> DumpTime(const snapshot::ObjectSet& cluster);

// Reads a change file for a what-if run: YAML or JSON whose documents are
// NodePools (each becomes a change at "0s" replacing the NodePool of its
// name: a NodePool edit, or a new NodePool) and Scenario documents (their
// spec.changes, in order; every other field of their spec must be unset).
// The changes come in document order. Errors: InvalidArgument naming
// `source` for any other kind (`<source>: a change file holds NodePools and
// Scenario changes; got 3 Pod`), a Scenario with another spec field set
// (`<source>: Scenario document: only spec.changes is read from a change
// file; spec.generate is set`), a wrong Scenario apiVersion, an empty file,
// and the loaders' errors.
absl::StatusOr<std::vector<v1::ScenarioChange>> LoadChanges(
    absl::string_view text, absl::string_view source);

// Checks everything the Simulation would otherwise trip over, returning the
// first problem as InvalidArgument naming the field path and the quoted
// value, e.g. `spec.changes[2].at: invalid duration "10 minutes"`:
//   - spec.start set; spec.until a positive duration;
//   - instance types: karpenter::ValidateInstanceTypeSpecs (non-empty
//     unique names, at least one offering, zone and capacity type
//     non-empty, price >= 0 and finite, quantities valid, overhead at most
//     the capacity);
//   - generate.nodes: node_pool non-empty, count in [0,
//     kMaxGeneratedNodes], instance_type in the catalogue, age a duration
//     >= 0, zone/capacity type offered by the type (when given), name
//     prefixes unique across groups;
//   - generate.workloads: unique namespace/name, replicas in [0,
//     kMaxReplicas], cpu/memory valid quantities, grace period a duration
//     >= 0, a pdb with exactly one of minAvailable/maxUnavailable (integer
//     or percentage), a node_pool set unless daemon_set, at most one of
//     daemon_set and job;
//   - changes: `at` a duration >= 0 (an `at` after `until` is accepted and
//     never applied: a scenario may be run to a later end with
//     Simulation::Run), exactly one change set, every name non-empty, a
//     cloud fault's method and code known (code not "OK"), times in [1,
//     kMaxFaultTimes], an eviction fault's http_status 0, 429 or 500..599,
//     stale reads in [1, kMaxFaultTimes].
// Whether the named nodes and pools exist is checked against the cluster
// by ExpandGenerated / Simulation::Create, not here.
absl::Status ValidateScenario(const v1::Scenario& scenario);

// Adds the objects of `scenario.spec.generate` to `cluster`: the node
// groups first (Nodes and NodeClaims), then the workloads (Pods and PDBs),
// in declaration order. Each workload's pods go round-robin over the Nodes
// of its NodePool (the dump's and the generated ones, by name), a daemon
// set's one per such Node (every Node if node_pool is empty). Expects a
// scenario ValidateScenario accepted. Errors: InvalidArgument naming the
// field for a node group whose NodePool is not in `cluster`, a workload
// whose NodePool has no Nodes, or a generated name that already exists;
// `cluster` is unchanged on error.
absl::Status ExpandGenerated(const v1::Scenario& scenario,
                             snapshot::ObjectSet& cluster);

// Plays Karpenter's NodePool hash controller: sets the NodePool's
// karpenter.sh/nodepool-hash to drift::NodePoolTemplateHash and
// karpenter.sh/nodepool-hash-version to drift::kNodePoolHashVersion, so that
// a later template change drifts the NodeClaims launched before it
// (ExpandGenerated copies the pool's hash onto the claims it generates).
// Simulation::Create stamps every NodePool, and every NodePool change.
// Errors: InvalidArgument naming the NodePool and the field whose duration
// does not parse.
absl::Status StampNodePoolHash(v1::NodePool& pool);

// "ResourceExhausted" -> absl::StatusCode::kResourceExhausted: the CamelCase
// name of every code but OK; nullopt otherwise (case-sensitive).
std::optional<absl::StatusCode> ParseStatusCodeName(absl::string_view name);

// "Create" -> CloudMethod::kCreate, as CloudMethodName spells them.
std::optional<CloudMethod> ParseCloudMethodName(absl::string_view name);

// The scenario's start and until (start + spec.until, default kDefaultUntil).
// Expects a validated scenario; an invalid until reads as the default.
absl::Time ScenarioStart(const v1::Scenario& scenario);
absl::Time ScenarioEnd(const v1::Scenario& scenario);

}  // namespace karpenter::testing

#endif  // KARPENTER_TESTING_SCENARIO_H_
