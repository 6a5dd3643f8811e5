// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Differential fuzzer for snapshot's FastJsonDecoder: on every input that is
// valid JSON, each message type the loader decodes must come out of the
// fast decoder exactly as the loader's fallback makes it (QuoteNumbersAsText,
// then protobuf's JsonStringToMessage ignoring unknown fields), or the fast
// decoder must decline. Aborts on a mismatch.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "absl/strings/string_view.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "karpenter/v1/core.pb.h"
#include "karpenter/v1/karpenter.pb.h"
#include "karpenter/v1/storage.pb.h"
#include "snapshot/json_decode.h"
#include "snapshot/json_scan.h"

namespace {

namespace pb = ::google::protobuf;

void Check(const pb::Message& prototype, absl::string_view json) {
  std::unique_ptr<pb::Message> fast(prototype.New());
  karpenter::snapshot::internal::FastJsonDecoder decoder;
  if (!decoder.Decode(json, *fast)) return;
  std::unique_ptr<pb::Message> slow(prototype.New());
  pb::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  // Quantities written as numbers, and null quantity entries, reach
  // protobuf rewritten, as the loader (ObjectSink) hands them over.
  std::string rewritten;
  const absl::string_view input =
      karpenter::snapshot::internal::QuoteNumbersAsText(
          json, prototype.GetDescriptor(), rewritten)
          ? rewritten
          : json;
  const auto status = pb::util::JsonStringToMessage(
      pb::StringPiece(input.data(), input.size()), slow.get(), options);
  if (!status.ok() || !pb::util::MessageDifferencer::Equals(*slow, *fast)) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view json(reinterpret_cast<const char*>(data), size);
  if (!karpenter::snapshot::internal::ValidateJson(json).ok()) return 0;
  Check(karpenter::v1::Pod::default_instance(), json);
  Check(karpenter::v1::Node::default_instance(), json);
  Check(karpenter::v1::PodDisruptionBudget::default_instance(), json);
  Check(karpenter::v1::NodePool::default_instance(), json);
  Check(karpenter::v1::NodeClaim::default_instance(), json);
  Check(karpenter::v1::PersistentVolumeClaim::default_instance(), json);
  Check(karpenter::v1::DaemonSet::default_instance(), json);
  Check(karpenter::v1::VolumeAttachment::default_instance(), json);
  Check(karpenter::v1::PersistentVolume::default_instance(), json);
  Check(karpenter::v1::StorageClass::default_instance(), json);
  Check(karpenter::v1::CSINode::default_instance(), json);
  return 0;
}
