// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "snapshot/compact_pod.h"

#include <algorithm>
#include <string>
#include <utility>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "karpenter/conditions.h"
#include "karpenter/scheduling/resources.h"
#include "karpenter/well_known.h"

namespace karpenter::snapshot::internal {
namespace {

constexpr absl::string_view kDefaultNamespace = "default";
// The table is swept no more often than this many entries.
constexpr size_t kMinSweep = 64;

// The shape of `v1::Pod()`: shared by every default-constructed
// CompactPod. Never destroyed (no static destructor).
const std::shared_ptr<const CompactShape>& EmptyShape() {
  static const auto* const shape = [] {
    auto s = std::make_shared<CompactShape>();
    s->pod.mutable_metadata()->set_namespace_(std::string(kDefaultNamespace));
    ShapeKey(s->pod, s->key);
    return new std::shared_ptr<const CompactShape>(std::move(s));
  }();
  return *shape;
}

}  // namespace

PodReady ReadyOfStatus(const v1::PodStatus& status) {
  const v1::Condition* ready =
      FindCondition(status.conditions(), well_known::kConditionTypeReady);
  if (ready == nullptr) return PodReady::kAbsent;
  if (ready->status() == well_known::kConditionTrue) return PodReady::kTrue;
  if (ready->status() == well_known::kConditionFalse) return PodReady::kFalse;
  return PodReady::kOther;
}

v1::Pod SplitInstanceFields(v1::Pod& pod) {
  // release/set_allocated hand the strings and submessages over without
  // copying or allocating: this runs once per pod of every snapshot.
  v1::Pod rest;
  v1::ObjectMeta& meta = *pod.mutable_metadata();
  v1::ObjectMeta& rest_meta = *rest.mutable_metadata();
  rest_meta.set_allocated_name(meta.release_name());
  rest_meta.set_allocated_uid(meta.release_uid());
  rest_meta.set_allocated_resource_version(meta.release_resource_version());
  if (meta.has_creation_timestamp()) {
    rest_meta.set_allocated_creation_timestamp(
        meta.release_creation_timestamp());
  }
  if (pod.has_spec() && !pod.spec().node_name().empty()) {
    rest.mutable_spec()->set_allocated_node_name(
        pod.mutable_spec()->release_node_name());
  }
  if (pod.has_status()) {
    rest.set_allocated_status(pod.release_status());
    v1::PodStatus& rest_status = *rest.mutable_status();
    if (!rest_status.phase().empty()) {
      pod.mutable_status()->set_allocated_phase(rest_status.release_phase());
    }
    // What a pod's requests read after an in-place resize stays in the
    // shape (scheduling/resources.h), so requests computed per shape are
    // each pod's.
    if (!rest_status.container_statuses().empty()) {
      pod.mutable_status()->mutable_container_statuses()->Swap(
          rest_status.mutable_container_statuses());
    }
    if (!rest_status.init_container_statuses().empty()) {
      pod.mutable_status()->mutable_init_container_statuses()->Swap(
          rest_status.mutable_init_container_statuses());
    }
    if (scheduling::IsPodResizeInfeasible(rest_status)) {
      pod.mutable_status()->mutable_conditions()->Swap(
          rest_status.mutable_conditions());
    }
  }
  return rest;
}

void ShapeKey(const v1::Pod& shape, std::string& out) {
  out.clear();
  google::protobuf::io::StringOutputStream raw(&out);
  google::protobuf::io::CodedOutputStream coded(&raw);
  coded.SetSerializationDeterministic(true);
  shape.SerializeToCodedStream(&coded);
}

CompactPod::CompactPod() : shape_(EmptyShape()) {}

v1::Pod CompactPod::Decode() const {
  v1::Pod pod = shape_->pod;
  google::protobuf::io::CodedInputStream in(
      reinterpret_cast<const uint8_t*>(bytes_.data()),
      static_cast<int>(rest_size_));
  // The bytes were serialized by PodCompactor::Compact from a valid
  // message, so parsing cannot fail.
  const bool parsed = pod.MergeFromCodedStream(&in);
  (void)parsed;
  return pod;
}

CompactPod PodCompactor::Compact(v1::Pod pod) {
  CompactPod out;
  v1::ObjectMeta& meta = *pod.mutable_metadata();
  if (meta.namespace_().empty()) {
    meta.set_namespace_(std::string(kDefaultNamespace));
  }
  out.ready_ = ReadyOfStatus(pod.status());
  const v1::Pod rest = SplitInstanceFields(pod);
  const std::string& name = rest.metadata().name();
  const std::string& node = rest.spec().node_name();
  const size_t rest_size = rest.ByteSizeLong();
  out.bytes_.resize(rest_size + name.size() + node.size());
  char* const data = out.bytes_.data();
  rest.SerializeWithCachedSizesToArray(reinterpret_cast<uint8_t*>(data));
  std::copy(name.begin(), name.end(), data + rest_size);
  std::copy(node.begin(), node.end(), data + rest_size + name.size());
  out.rest_size_ = static_cast<uint32_t>(rest_size);
  out.name_size_ = static_cast<uint32_t>(name.size());

  ShapeKey(pod, scratch_);
  Entry& slot = shapes_[scratch_];
  if (std::shared_ptr<const CompactShape> shared = slot.shape.lock()) {
    out.shape_ = std::move(shared);
    return out;
  }
  // A new entry, or one whose shape is gone (its id is free with it).
  if (slot.id == CompactShape::kNoId) {
    if (free_ids_.empty()) {
      slot.id = next_id_++;
    } else {
      slot.id = free_ids_.back();
      free_ids_.pop_back();
    }
  }
  auto shape = std::make_shared<CompactShape>();
  shape->pod = std::move(pod);
  shape->key = scratch_;
  shape->id = slot.id;
  slot.shape = shape;
  out.shape_ = std::move(shape);
  if (shapes_.size() >= sweep_at_) {
    ReleaseUnusedShapes();
    sweep_at_ = std::max(kMinSweep, 2 * shapes_.size());
  }
  return out;
}

size_t PodCompactor::live_shape_count() const {
  size_t live = 0;
  for (const auto& [key, entry] : shapes_) {
    if (!entry.shape.expired()) ++live;
  }
  return live;
}

void PodCompactor::ReleaseUnusedShapes() {
  absl::erase_if(shapes_, [this](const auto& entry) {
    if (!entry.second.shape.expired()) return false;
    free_ids_.push_back(entry.second.id);
    return true;
  });
}

}  // namespace karpenter::snapshot::internal
