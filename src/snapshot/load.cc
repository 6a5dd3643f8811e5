// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Entry points shared by both formats: ObjectSet::Append, LoadText's format
// sniffing and LoadFile. The readers are in load_json.cc and load_yaml.cc.

#include "karpenter/snapshot/load.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iterator>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "snapshot/object_sink.h"

namespace karpenter::snapshot {
namespace {

template <typename T>
void MoveAppend(std::vector<T>& from, std::vector<T>& to) {
  if (to.empty()) {
    to = std::move(from);
  } else {
    to.reserve(to.size() + from.size());
    std::move(from.begin(), from.end(), std::back_inserter(to));
  }
  from.clear();
}

// Pads `to` (origins of `to_count` objects) and `from` (of `from_count`)
// with unknown origins, shifts `from`'s source indices by `source_offset`
// and moves them to the end of `to`. Two empty vectors stay empty.
void AppendOrigins(std::vector<ObjectOrigin>& to, size_t to_count,
                   std::vector<ObjectOrigin>& from, size_t from_count,
                   uint32_t source_offset) {
  if (to.empty() && from.empty()) return;
  to.resize(to_count);
  from.resize(from_count);
  for (ObjectOrigin& o : from) {
    if (o.source != ObjectOrigin::kNoSource) o.source += source_offset;
  }
  MoveAppend(from, to);
}

absl::Status FileError(int error, const std::string& path,
                       absl::string_view action) {
  return absl::ErrnoToStatus(
      error, absl::StrCat("cannot ", action, " \"", path, "\""));
}

}  // namespace

namespace internal {

absl::Status ReadFile(const std::string& path, std::string& contents) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return FileError(errno, path, "open");
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int error = errno;
    ::close(fd);
    return FileError(error, path, "stat");
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat("cannot read \"", path, "\": is a directory"));
  }
  if (S_ISREG(st.st_mode)) contents.reserve(static_cast<size_t>(st.st_size));
  char buffer[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      ::close(fd);
      return FileError(error, path, "read");
    }
    contents.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return absl::OkStatus();
}

}  // namespace internal

void ObjectSet::Append(ObjectSet&& other) {
  const auto offset = static_cast<uint32_t>(sources.size());
  ObjectOrigins& o = other.origins;
  AppendOrigins(origins.nodes, nodes.size(), o.nodes, other.nodes.size(),
                offset);
  AppendOrigins(origins.pods, pods.size(), o.pods, other.pods.size(), offset);
  AppendOrigins(origins.pdbs, pdbs.size(), o.pdbs, other.pdbs.size(), offset);
  AppendOrigins(origins.node_pools, node_pools.size(), o.node_pools,
                other.node_pools.size(), offset);
  AppendOrigins(origins.node_claims, node_claims.size(), o.node_claims,
                other.node_claims.size(), offset);
  AppendOrigins(origins.volume_attachments, volume_attachments.size(),
                o.volume_attachments, other.volume_attachments.size(), offset);
  AppendOrigins(origins.persistent_volume_claims,
                persistent_volume_claims.size(), o.persistent_volume_claims,
                other.persistent_volume_claims.size(), offset);
  AppendOrigins(origins.persistent_volumes, persistent_volumes.size(),
                o.persistent_volumes, other.persistent_volumes.size(), offset);
  AppendOrigins(origins.storage_classes, storage_classes.size(),
                o.storage_classes, other.storage_classes.size(), offset);
  AppendOrigins(origins.csi_nodes, csi_nodes.size(), o.csi_nodes,
                other.csi_nodes.size(), offset);
  AppendOrigins(origins.daemon_sets, daemon_sets.size(), o.daemon_sets,
                other.daemon_sets.size(), offset);
  AppendOrigins(origins.node_overlays, node_overlays.size(), o.node_overlays,
                other.node_overlays.size(), offset);
  MoveAppend(other.sources, sources);
  MoveAppend(other.nodes, nodes);
  MoveAppend(other.pods, pods);
  MoveAppend(other.pdbs, pdbs);
  MoveAppend(other.node_pools, node_pools);
  MoveAppend(other.node_claims, node_claims);
  MoveAppend(other.volume_attachments, volume_attachments);
  MoveAppend(other.persistent_volume_claims, persistent_volume_claims);
  MoveAppend(other.persistent_volumes, persistent_volumes);
  MoveAppend(other.storage_classes, storage_classes);
  MoveAppend(other.csi_nodes, csi_nodes);
  MoveAppend(other.daemon_sets, daemon_sets);
  MoveAppend(other.node_overlays, node_overlays);
  for (const auto& [kind, count] : other.skipped_kinds) {
    skipped_kinds[kind] += count;
  }
  other.skipped_kinds.clear();
}

std::string ObjectSet::DescribeOrigin(const std::vector<ObjectOrigin>& origins,
                                      size_t index) const {
  if (index >= origins.size()) return "";
  const ObjectOrigin& o = origins[index];
  if (o.source >= sources.size()) return "";
  std::string out = sources[o.source];
  if (o.document > 0) absl::StrAppend(&out, ": document ", o.document);
  if (!o.item.empty()) absl::StrAppend(&out, ": ", o.item);
  return out;
}

absl::Status LoadText(absl::string_view text, absl::string_view source,
                      ObjectSet& out) {
  absl::string_view rest = text;
  if (absl::StartsWith(rest, "\xEF\xBB\xBF")) rest.remove_prefix(3);
  const size_t first = rest.find_first_not_of(" \t\r\n");
  if (first != absl::string_view::npos &&
      (rest[first] == '{' || rest[first] == '[')) {
    return LoadJson(rest, source, out);
  }
  return LoadYaml(rest, source, out);
}

absl::Status LoadDocumentsOfKind(
    absl::string_view text, absl::string_view source, absl::string_view kind,
    const google::protobuf::Message& prototype,
    std::vector<std::unique_ptr<google::protobuf::Message>>& out) {
  absl::string_view rest = text;
  if (absl::StartsWith(rest, "\xEF\xBB\xBF")) rest.remove_prefix(3);
  const size_t first = rest.find_first_not_of(" \t\r\n");
  if (first != absl::string_view::npos &&
      (rest[first] == '{' || rest[first] == '[')) {
    return internal::JsonDocumentsOfKind(rest, source, kind, prototype, out);
  }
  return internal::YamlDocumentsOfKind(rest, source, kind, prototype, out);
}

absl::Status LoadFile(const std::string& path, ObjectSet& out) {
  std::string contents;
  if (absl::Status s = internal::ReadFile(path, contents); !s.ok()) return s;
  return LoadText(contents, path, out);
}

}  // namespace karpenter::snapshot
