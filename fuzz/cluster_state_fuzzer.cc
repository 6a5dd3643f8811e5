// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Fuzzes state::ClusterState: the bytes are a program of events over a
// small pool of objects (every kind, three names of which one is empty,
// namespaces "", "default" and "x"), each event choosing its type, object,
// resourceVersion (a small integer, empty, or not an integer) and a few
// fields that matter: a pod's node and terminating state, a node's labels
// and taints, a StorageClass's volumeBindingMode (sometimes "Later", which
// is invalid), a PersistentVolume's claimRef (sometimes without a name,
// invalid), a CSINode's drivers (sometimes twice the same, invalid).
//
// Invariants, checked after every event (and abort() when broken):
//  - Apply never crashes, and fails only with InvalidArgument;
//  - a failed Apply leaves generation(), size() and Export() unchanged;
//  - size() is the number of objects Export() returns;
//  - generation() changes exactly when Apply says kStored or kDeleted;
//  - every few events (as the bytes ask), TakeSnapshot() succeeds and
//    equals Snapshot::Build(Export()) in its nodes, pod count, pod keys and
//    PodsOnNode of every node; at one such check in two it is preceded by
//    TakeSnapshotWithoutPods(), which must equal (testing::SnapshotDiff)
//    Snapshot::Build(Export()) without pods and PDBs; at one in four and at
//    the end, Publish() succeeds, places the pods as that snapshot does,
//    and returns the same publication when called again.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/state/cluster_state.h"
#include "karpenter/testing/builders.h"
#include "karpenter/testing/snapshot_equal.h"

namespace {

using karpenter::snapshot::ObjectSet;
using karpenter::snapshot::Snapshot;
using karpenter::state::Applied;
using karpenter::state::ClusterState;
using karpenter::state::Event;
using karpenter::state::EventType;
using karpenter::state::Object;
namespace v1 = karpenter::v1;
namespace kt = karpenter::testing;

constexpr size_t kMaxEvents = 128;

// Reads the input a byte at a time; zeros once it is used up.
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool done() const { return pos_ >= size_; }
  uint8_t Next() { return pos_ < size_ ? data_[pos_++] : 0; }
  // A value in [0, n).
  int Pick(int n) { return Next() % n; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

std::string Name(Bytes& in) {
  // "" is rare: one choice in eight.
  static const char* const kNames[] = {"a", "b", "c", "a", "b", "c", "a", ""};
  return kNames[in.Pick(8)];
}

std::string Namespace(Bytes& in) {
  static const char* const kNamespaces[] = {"", "default", "x"};
  return kNamespaces[in.Pick(3)];
}

std::string ResourceVersion(Bytes& in) {
  const int v = in.Pick(20);
  if (v == 16) return "";
  if (v == 17) return "z";
  if (v == 18) return "-1";
  if (v == 19) return "18446744073709551616";  // 2^64: not a uint64.
  return absl::StrCat(v);
}

Object MakeObject(Bytes& in) {
  const std::string name = Name(in);
  switch (in.Pick(11)) {
    case 0: {
      kt::NodeOptions o{.name = name};
      if (in.Pick(2) == 0) o.labels = {{"team", in.Pick(2) == 0 ? "a" : "b"}};
      if (in.Pick(3) == 0) o.taints = {kt::DisruptedTaint()};
      o.cpu = "2";
      o.pods = "10";
      return kt::MakeNode(o);
    }
    case 1: {
      static const char* const kNodes[] = {"", "a", "b", "zz"};
      kt::PodOptions o{.name = name, .ns = Namespace(in)};
      o.node = kNodes[in.Pick(4)];
      o.phase = o.node.empty() ? "Pending" : "Running";
      if (in.Pick(4) == 0) o.deleted = kt::kTestEpoch;
      o.cpu = "100m";
      return kt::MakePod(o);
    }
    case 2:
      return kt::MakePdb(
          {.name = name, .ns = Namespace(in), .min_available = "1"});
    case 3:
      return kt::MakeNodePool(
          {.name = name, .budgets = {{.nodes = in.Pick(2) == 0 ? "0" : "1"}}});
    case 4:
      return kt::MakeNodeClaim({.name = name, .node_name = Name(in)});
    case 5:
      return kt::MakeVolumeAttachment({.name = name, .node = Name(in)});
    case 6:
      return kt::MakePersistentVolumeClaim(
          {.name = name, .ns = Namespace(in), .volume_name = Name(in)});
    case 7: {
      v1::PersistentVolume pv =
          kt::MakePersistentVolume({.name = name, .claim = "data"});
      // A claimRef without a name is invalid.
      if (in.Pick(4) == 0) pv.mutable_spec()->mutable_claim_ref()->clear_name();
      return pv;
    }
    case 8: {
      static const char* const kModes[] = {nullptr, "Immediate",
                                           "WaitForFirstConsumer", "Later"};
      const char* mode = kModes[in.Pick(4)];
      kt::StorageClassOptions o{.name = name};
      o.volume_binding_mode =
          mode == nullptr ? std::nullopt : std::optional<std::string>(mode);
      return kt::MakeStorageClass(o);
    }
    case 9: {
      v1::CSINode node = kt::MakeCSINode({.name = name});
      // The same driver twice is invalid.
      if (in.Pick(4) == 0) {
        *node.mutable_spec()->add_drivers() = node.spec().drivers(0);
      }
      return node;
    }
    default:
      return kt::MakeDaemonSet({.name = name, .ns = Namespace(in)});
  }
}

// Every object of `set`, serialised deterministically (map entries
// sorted), in order: equal bytes, equal sets.
std::string Text(const ObjectSet& set) {
  std::string out;
  const auto add = [&out](const auto& list) {
    for (const auto& o : list) {
      std::string bytes;
      {
        google::protobuf::io::StringOutputStream stream(&bytes);
        google::protobuf::io::CodedOutputStream coded(&stream);
        coded.SetSerializationDeterministic(true);
        o.SerializeToCodedStream(&coded);
      }
      absl::StrAppend(&out, bytes.size(), ":", bytes);
    }
    out += "|";
  };
  add(set.nodes);
  add(set.pods);
  add(set.pdbs);
  add(set.node_pools);
  add(set.node_claims);
  add(set.volume_attachments);
  add(set.persistent_volume_claims);
  add(set.persistent_volumes);
  add(set.storage_classes);
  add(set.csi_nodes);
  add(set.daemon_sets);
  return out;
}

size_t Count(const ObjectSet& o) {
  return o.nodes.size() + o.pods.size() + o.pdbs.size() + o.node_pools.size() +
         o.node_claims.size() + o.volume_attachments.size() +
         o.persistent_volume_claims.size() + o.persistent_volumes.size() +
         o.storage_classes.size() + o.csi_nodes.size() + o.daemon_sets.size();
}

void Require(bool condition) {
  if (!condition) std::abort();
}

// The pods of each node by key, and the unbound ones.
std::vector<std::string> Placement(const Snapshot& s) {
  std::vector<std::string> out;
  for (uint32_t n = 0; n < s.nodes().size(); ++n) {
    std::string line = s.nodes()[n].metadata().name() + ":";
    for (const uint32_t p : s.PodsOnNode(n)) {
      absl::StrAppend(&line, " ", s.PodKey(p));
    }
    out.push_back(std::move(line));
  }
  std::string unbound = "unbound:";
  for (const uint32_t p : s.UnboundPods()) {
    absl::StrAppend(&unbound, " ", s.PodKey(p));
  }
  out.push_back(std::move(unbound));
  return out;
}

void CheckSnapshots(ClusterState& state, bool bare, bool publish) {
  const ObjectSet exported = state.Export();
  if (bare) {
    // Taken first, so that the full snapshot below may share its parts.
    ObjectSet objects = exported;
    objects.pods.clear();
    objects.pdbs.clear();
    absl::StatusOr<Snapshot> without = state.TakeSnapshotWithoutPods();
    absl::StatusOr<Snapshot> without_built = Snapshot::Build(objects);
    Require(without.ok() && without_built.ok());
    Require(kt::SnapshotDiff(*without, *without_built).empty());
  }
  absl::StatusOr<Snapshot> taken = state.TakeSnapshot();
  absl::StatusOr<Snapshot> built = Snapshot::Build(exported);
  Require(taken.ok() && built.ok());
  Require(taken->pod_count() == built->pod_count());
  Require(taken->pod_count() == exported.pods.size());
  Require(Placement(*taken) == Placement(*built));
  for (uint32_t p = 0; p < taken->pod_count(); ++p) {
    Require(taken->PodKey(p) == built->PodKey(p));
  }

  if (!publish) return;
  absl::StatusOr<std::shared_ptr<const karpenter::state::Published>> first =
      state.Publish();
  Require(first.ok() && *first != nullptr);
  Require((*first)->generation == state.generation());
  Require(Placement((*first)->snapshot) == Placement(*built));
  Require(&(*first)->facts->snapshot() == &(*first)->snapshot);
  absl::StatusOr<std::shared_ptr<const karpenter::state::Published>> again =
      state.Publish();
  Require(again.ok() && again->get() == first->get());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes in(data, size);
  ClusterState state;
  for (size_t i = 0; i < kMaxEvents && !in.done(); ++i) {
    const uint8_t op = in.Next();
    if (op % 16 == 15) {
      // One check in two takes a snapshot without pods first; publishing
      // builds the facts too: one check in four.
      CheckSnapshots(state, op % 32 == 31, op % 64 == 63);
      continue;
    }
    static constexpr EventType kTypes[] = {
        EventType::kAdded, EventType::kModified, EventType::kDeleted};
    Event event{.type = kTypes[op % 3],
                .object = MakeObject(in),
                .origin = absl::StrCat("event ", i)};
    std::visit(
        [&in](auto& o) {
          o.mutable_metadata()->set_resource_version(ResourceVersion(in));
        },
        event.object);

    const uint64_t generation = state.generation();
    const size_t held = state.size();
    const std::string before = Text(state.Export());
    const absl::StatusOr<Applied> applied = state.Apply(std::move(event));
    const ObjectSet after = state.Export();
    if (!applied.ok()) {
      Require(applied.status().code() == absl::StatusCode::kInvalidArgument);
      Require(!applied.status().message().empty());
      Require(state.generation() == generation);
      Require(state.size() == held);
      Require(Text(after) == before);
    } else {
      const bool changed =
          *applied == Applied::kStored || *applied == Applied::kDeleted;
      Require(state.generation() == generation + (changed ? 1 : 0));
      if (!changed) Require(Text(after) == before);
      if (*applied == Applied::kDeleted) Require(state.size() == held - 1);
    }
    Require(state.size() == Count(after));
  }
  CheckSnapshots(state, true, true);
  return 0;
}
