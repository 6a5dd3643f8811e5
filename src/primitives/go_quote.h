// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Internal helpers shared by the primitive parsers (not installed).

#ifndef KARPENTER_SRC_PRIMITIVES_GO_QUOTE_H_
#define KARPENTER_SRC_PRIMITIVES_GO_QUOTE_H_

#include <string>

#include "absl/strings/string_view.h"

namespace karpenter::primitives_internal {

// Quotes `s` the way Go's time package does in its error messages: wraps it
// in double quotes, backslash-escapes '"' and '\\', and writes every byte
// below 0x20 or above 0x7f as \xNN. The result is always printable ASCII, so
// messages stay readable whatever bytes the input held.
std::string GoQuote(absl::string_view s);

// Returns "<field>: <message>" or just `message` when `field` is empty.
std::string WithField(absl::string_view field, absl::string_view message);

}  // namespace karpenter::primitives_internal

#endif  // KARPENTER_SRC_PRIMITIVES_GO_QUOTE_H_
