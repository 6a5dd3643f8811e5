// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/testing/snapshot_equal.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/message_lite.h"

namespace karpenter::testing {
namespace {

using snapshot::Snapshot;

constexpr int kMaxLines = 20;
// A key no object of either snapshot should hold.
constexpr absl::string_view kAbsent = "\x01snapshot-diff-absent";

std::string Wire(const google::protobuf::MessageLite& m) {
  std::string out;
  google::protobuf::io::StringOutputStream raw(&out);
  google::protobuf::io::CodedOutputStream coded(&raw);
  coded.SetSerializationDeterministic(true);
  m.SerializeToCodedStream(&coded);
  return out;
}

std::string Show(std::optional<uint32_t> v) {
  return v ? absl::StrCat(*v) : std::string("none");
}

std::string Show(absl::Span<const uint32_t> v) {
  return absl::StrCat("[", absl::StrJoin(v, ", "), "]");
}

std::string Quote(absl::string_view s) { return absl::StrCat("\"", s, "\""); }

class Differ {
 public:
  Differ(const Snapshot& a, const Snapshot& b) : a_(a), b_(b) {}

  std::string Run() {
    Objects();
    Pods();
    PerNode();
    Namespaces();
    Lookups();
    Storage();
    if (a_.skipped_kinds() != b_.skipped_kinds()) {
      Add("skipped_kinds(): differ");
    }
    std::string out = absl::StrJoin(lines_, "\n");
    if (more_) absl::StrAppend(&out, "\n... and more");
    return out;
  }

 private:
  void Add(std::string line) {
    if (lines_.size() < kMaxLines) {
      lines_.push_back(std::move(line));
    } else {
      more_ = true;
    }
  }

  template <typename T>
  void Check(absl::string_view what, const T& x, const T& y) {
    if (!(x == y)) Add(absl::StrCat(what, ": ", x, " vs ", y));
  }

  template <typename T>
  void Messages(absl::string_view list, snapshot::ObjectList<T> x,
                snapshot::ObjectList<T> y) {
    if (x.size() != y.size()) {
      Add(absl::StrCat(list, "().size(): ", x.size(), " vs ", y.size()));
    }
    for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
      if (Wire(x[i]) != Wire(y[i])) {
        Add(absl::StrCat(list, "()[", i, "] (", Quote(x[i].metadata().name()),
                         " vs ", Quote(y[i].metadata().name()), "): differ"));
      }
    }
  }

  void Objects() {
    Messages("nodes", a_.nodes(), b_.nodes());
    Messages("pdbs", a_.pdbs(), b_.pdbs());
    Messages("node_pools", a_.node_pools(), b_.node_pools());
    Messages("node_claims", a_.node_claims(), b_.node_claims());
    Messages("volume_attachments", a_.volume_attachments(),
             b_.volume_attachments());
    Messages("persistent_volume_claims", a_.persistent_volume_claims(),
             b_.persistent_volume_claims());
    Messages("persistent_volumes", a_.persistent_volumes(),
             b_.persistent_volumes());
    Messages("storage_classes", a_.storage_classes(), b_.storage_classes());
    Messages("csi_nodes", a_.csi_nodes(), b_.csi_nodes());
    Messages("daemon_sets", a_.daemon_sets(), b_.daemon_sets());
  }

  void Pods() {
    Check("pod_count()", a_.pod_count(), b_.pod_count());
    Check("pod_shape_count()", a_.pod_shape_count(), b_.pod_shape_count());
    // Shapes are compared at the first pod of each shape id of `a`.
    std::vector<bool> shape_seen(a_.pod_shape_count(), false);
    for (snapshot::PodIndex p = 0; p < a_.pod_count() && p < b_.pod_count();
         ++p) {
      const std::string at =
          absl::StrCat("(", p, " ", Quote(a_.PodKey(p)), ")");
      Check(absl::StrCat("PodName", at), Quote(a_.PodName(p)),
            Quote(b_.PodName(p)));
      Check(absl::StrCat("PodKey", at), Quote(a_.PodKey(p)),
            Quote(b_.PodKey(p)));
      Check(absl::StrCat("PodShapeId", at), a_.PodShapeId(p), b_.PodShapeId(p));
      Check(absl::StrCat("PodReadyCondition", at),
            static_cast<int>(a_.PodReadyCondition(p)),
            static_cast<int>(b_.PodReadyCondition(p)));
      Check(absl::StrCat("NamespaceOfPod", at), a_.NamespaceOfPod(p),
            b_.NamespaceOfPod(p));
      Check(absl::StrCat("NodeOfPod", at), Show(a_.NodeOfPod(p)),
            Show(b_.NodeOfPod(p)));
      Check(absl::StrCat("PodIsUnbound", at),
            static_cast<int>(a_.PodIsUnbound(p)),
            static_cast<int>(b_.PodIsUnbound(p)));
      if (Wire(a_.DecodePod(p)) != Wire(b_.DecodePod(p))) {
        Add(absl::StrCat("DecodePod", at, ": differ"));
      }
      const uint32_t id = a_.PodShapeId(p);
      if (id < shape_seen.size() && !shape_seen[id]) {
        shape_seen[id] = true;
        if (Wire(a_.PodShape(p)) != Wire(b_.PodShape(p))) {
          Add(absl::StrCat("PodShape", at, ": differ"));
        }
      }
    }
    Check("UnboundPods()", Show(a_.UnboundPods()), Show(b_.UnboundPods()));
    Check("PodsOnUnknownNodes()", Show(a_.PodsOnUnknownNodes()),
          Show(b_.PodsOnUnknownNodes()));
  }

  void PerNode() {
    for (snapshot::NodeIndex n = 0;
         n < a_.nodes().size() && n < b_.nodes().size(); ++n) {
      const std::string at = absl::StrCat(
          "(", n, " ", Quote(a_.nodes()[n].metadata().name()), ")");
      Check(absl::StrCat("PodsOnNode", at), Show(a_.PodsOnNode(n)),
            Show(b_.PodsOnNode(n)));
      Check(absl::StrCat("VolumeAttachmentsOnNode", at),
            Show(a_.VolumeAttachmentsOnNode(n)),
            Show(b_.VolumeAttachmentsOnNode(n)));
    }
  }

  void Namespaces() {
    Check("namespace_count()", a_.namespace_count(), b_.namespace_count());
    std::vector<std::string> names;
    for (const Snapshot* s : {&a_, &b_}) {
      for (snapshot::NamespaceId i = 0; i < s->namespace_count(); ++i) {
        names.emplace_back(s->NamespaceName(i));
      }
    }
    for (snapshot::NamespaceId i = 0;
         i < a_.namespace_count() && i < b_.namespace_count(); ++i) {
      Check(absl::StrCat("NamespaceName(", i, ")"), Quote(a_.NamespaceName(i)),
            Quote(b_.NamespaceName(i)));
      Check(absl::StrCat("PdbsInNamespace(", i, ")"),
            Show(a_.PdbsInNamespace(i)), Show(b_.PdbsInNamespace(i)));
    }
    names.emplace_back(kAbsent);
    for (const std::string& ns : names) {
      Check(absl::StrCat("FindNamespace(", Quote(ns), ")"),
            Show(a_.FindNamespace(ns)), Show(b_.FindNamespace(ns)));
      Check(absl::StrCat("PdbsInNamespace(", Quote(ns), ")"),
            Show(a_.PdbsInNamespace(ns)), Show(b_.PdbsInNamespace(ns)));
    }
  }

  // Runs `find` on both snapshots for each of `keys` and kAbsent.
  template <typename Find>
  void Lookup(absl::string_view what, std::vector<std::string> keys,
              Find find) {
    keys.emplace_back(kAbsent);
    absl::flat_hash_set<std::string> done;
    for (const std::string& key : keys) {
      if (!done.insert(key).second) continue;
      Check(absl::StrCat(what, "(", Quote(key), ")"), Show(find(a_, key)),
            Show(find(b_, key)));
    }
  }

  // Runs `find(s, ns, name)` on both for every (namespace, name) of `list`.
  template <typename List, typename Find>
  void NamespacedLookup(absl::string_view what, List list, Find find) {
    std::vector<std::pair<std::string, std::string>> keys;
    for (const Snapshot* s : {&a_, &b_}) {
      for (const auto& o : list(*s)) {
        keys.emplace_back(o.metadata().namespace_(), o.metadata().name());
      }
    }
    keys.emplace_back(std::string(kAbsent), std::string(kAbsent));
    for (const auto& [ns, name] : keys) {
      Check(absl::StrCat(what, "(", Quote(ns), ", ", Quote(name), ")"),
            Show(find(a_, ns, name)), Show(find(b_, ns, name)));
    }
  }

  template <typename List>
  std::vector<std::string> Names(List list) {
    std::vector<std::string> names;
    for (const Snapshot* s : {&a_, &b_}) {
      for (const auto& o : list(*s)) names.push_back(o.metadata().name());
    }
    return names;
  }

  void Lookups() {
    const std::vector<std::string> nodes =
        Names([](const Snapshot& s) { return s.nodes(); });
    Lookup("FindNode", nodes, [](const Snapshot& s, absl::string_view k) {
      return s.FindNode(k);
    });
    Lookup("FindNodePool",
           Names([](const Snapshot& s) { return s.node_pools(); }),
           [](const Snapshot& s, absl::string_view k) {
             return s.FindNodePool(k);
           });
    Lookup("FindNodeClaim",
           Names([](const Snapshot& s) { return s.node_claims(); }),
           [](const Snapshot& s, absl::string_view k) {
             return s.FindNodeClaim(k);
           });
    std::vector<std::string> claim_nodes = nodes;
    std::vector<std::string> provider_ids;
    for (const Snapshot* s : {&a_, &b_}) {
      for (const v1::NodeClaim& c : s->node_claims()) {
        claim_nodes.push_back(c.status().node_name());
        provider_ids.push_back(c.status().provider_id());
      }
    }
    Lookup("FindNodeClaimByNodeName", claim_nodes,
           [](const Snapshot& s, absl::string_view k) {
             return s.FindNodeClaimByNodeName(k);
           });
    Lookup("FindNodeClaimByProviderId", provider_ids,
           [](const Snapshot& s, absl::string_view k) {
             return s.FindNodeClaimByProviderId(k);
           });
    Lookup("FindVolumeAttachment",
           Names([](const Snapshot& s) { return s.volume_attachments(); }),
           [](const Snapshot& s, absl::string_view k) {
             return s.FindVolumeAttachment(k);
           });
    Lookup("FindPersistentVolume",
           Names([](const Snapshot& s) { return s.persistent_volumes(); }),
           [](const Snapshot& s, absl::string_view k) {
             return s.FindPersistentVolume(k);
           });
    Lookup("FindStorageClass",
           Names([](const Snapshot& s) { return s.storage_classes(); }),
           [](const Snapshot& s, absl::string_view k) {
             return s.FindStorageClass(k);
           });
    std::vector<std::string> csi = nodes;
    for (const std::string& n :
         Names([](const Snapshot& s) { return s.csi_nodes(); })) {
      csi.push_back(n);
    }
    Lookup("FindCSINode", csi, [](const Snapshot& s, absl::string_view k) {
      return s.FindCSINode(k);
    });
    NamespacedLookup(
        "FindPdb", [](const Snapshot& s) { return s.pdbs(); },
        [](const Snapshot& s, absl::string_view ns, absl::string_view name) {
          return s.FindPdb(ns, name);
        });
    NamespacedLookup(
        "FindPersistentVolumeClaim",
        [](const Snapshot& s) { return s.persistent_volume_claims(); },
        [](const Snapshot& s, absl::string_view ns, absl::string_view name) {
          return s.FindPersistentVolumeClaim(ns, name);
        });
    NamespacedLookup(
        "FindDaemonSet", [](const Snapshot& s) { return s.daemon_sets(); },
        [](const Snapshot& s, absl::string_view ns, absl::string_view name) {
          return s.FindDaemonSet(ns, name);
        });
    // Pods: by the namespace and name each snapshot reports.
    std::vector<std::pair<std::string, std::string>> pods;
    for (const Snapshot* s : {&a_, &b_}) {
      for (snapshot::PodIndex p = 0; p < s->pod_count(); ++p) {
        pods.emplace_back(s->NamespaceName(s->NamespaceOfPod(p)),
                          s->PodName(p));
      }
    }
    pods.emplace_back(std::string(kAbsent), std::string(kAbsent));
    for (const auto& [ns, name] : pods) {
      Check(absl::StrCat("FindPod(", Quote(ns), ", ", Quote(name), ")"),
            Show(a_.FindPod(ns, name)), Show(b_.FindPod(ns, name)));
    }
  }

  void Storage() {
    Check("DefaultStorageClass()", Show(a_.DefaultStorageClass()),
          Show(b_.DefaultStorageClass()));
    for (snapshot::PersistentVolumeClaimIndex c = 0;
         c < a_.persistent_volume_claims().size() &&
         c < b_.persistent_volume_claims().size();
         ++c) {
      Check(absl::StrCat("StorageClassOfClaim(", c, ")"),
            Show(a_.StorageClassOfClaim(c)), Show(b_.StorageClassOfClaim(c)));
    }
  }

  const Snapshot& a_;
  const Snapshot& b_;
  std::vector<std::string> lines_;
  bool more_ = false;
};

}  // namespace

std::string SnapshotDiff(const snapshot::Snapshot& a,
                         const snapshot::Snapshot& b) {
  return Differ(a, b).Run();
}

}  // namespace karpenter::testing
