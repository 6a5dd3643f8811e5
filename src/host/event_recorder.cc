// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/event_recorder.h"

#include "absl/strings/str_cat.h"

namespace karpenter {

absl::string_view EventTypeName(EventType type) {
  return type == EventType::kWarning ? "Warning" : "Normal";
}

std::string EventString(const Event& event) {
  const std::string object =
      event.namespace_name.empty()
          ? absl::StrCat(event.kind, "/", event.name)
          : absl::StrCat(event.kind, "/", event.namespace_name, "/",
                         event.name);
  return absl::StrCat(EventTypeName(event.type), " ", event.reason, " ", object,
                      ": ", event.message);
}

}  // namespace karpenter
