// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// EvictionClient: the host interface through which the SDK asks the cluster
// to evict a pod (the `pods/eviction` subresource, policy/v1 Eviction).
//
// The SDK never talks to an API server itself. A host implements this
// interface over its Kubernetes client; `testing::FakeCluster` implements it
// in memory with real PDB arithmetic. The drain (karpenter/drain/) feeds the
// responses to its eviction queue, which handles them as Karpenter's
// terminator does (pkg/controllers/node/termination/terminator/eviction.go,
// docs/semantics.md §5):
//   200 -> evicted, done;              404 -> pod gone, done;
//   409 -> UID precondition failed (a different pod now has the name), done;
//   429 -> a PDB would be violated: back off, `FailedDraining` event;
//   500 with the multiple-PDB message -> back off, `FailedDraining` event;
//   anything else -> back off.
//
// Thread-safety: implementations must be safe to call from several threads
// at once; the SDK's drivers call Evict from one thread per node, but a host
// may run several drains concurrently.

#ifndef KARPENTER_EVICTION_CLIENT_H_
#define KARPENTER_EVICTION_CLIENT_H_

#include <string>

#include "absl/strings/string_view.h"

namespace karpenter {

// The pod an eviction is for. `uid` is sent as the DeleteOptions
// precondition, so a recreated pod with the same name is never evicted by a
// request meant for its predecessor (409).
struct PodRef {
  std::string namespace_name;
  std::string name;
  std::string uid;

  friend bool operator==(const PodRef&, const PodRef&) = default;
};

// The outcome classes the eviction queue distinguishes.
enum class EvictionResult {
  kEvicted,        // 200/201: the eviction was accepted.
  kNotFound,       // 404: the pod no longer exists.
  kConflict,       // 409: the UID precondition failed.
  kBlockedByPdb,   // 429: evicting would violate a PodDisruptionBudget.
  kMisconfigured,  // 500: the pod is selected by more than one PDB.
  kOtherError,     // Anything else (timeouts, 5xx, 403, ...).
};

// The stable name of a result, e.g. "BlockedByPdb".
absl::string_view EvictionResultName(EvictionResult result);

// What the API server answered.
struct EvictionResponse {
  EvictionResult result = EvictionResult::kOtherError;
  // The HTTP status code if there was one, else 0 (e.g. a transport error).
  int http_status = 0;
  // The Status message from the server or the transport error, verbatim.
  std::string message;
};

// The exact message Kubernetes' eviction REST handler returns (HTTP 500)
// for a pod selected by more than one PDB.
inline constexpr absl::string_view kMultiplePdbMessage =
    "This pod has more than one PodDisruptionBudget, which the eviction "
    "subresource does not support.";

// Maps an HTTP status and message to a result: 200/201 evicted, 404 not
// found, 409 conflict, 429 blocked by a PDB, 500 whose message is exactly
// kMultiplePdbMessage misconfigured; everything else (other 500s included)
// kOtherError. Hosts whose clients report status codes can use it to
// implement `EvictionClient::Evict`.
EvictionResult ClassifyEvictionStatus(int http_status,
                                      absl::string_view message);

// Host interface: no data, virtual destructor, contract per method.
class EvictionClient {
 public:
  virtual ~EvictionClient() = default;

  // Requests eviction of `pod` (policy/v1 Eviction, DeleteOptions with the
  // UID precondition `pod.uid`). Must not retry internally: the caller owns
  // backoff. Must not block for longer than the host's request timeout.
  // Never fails in the absl::Status sense: every outcome, transport errors
  // included, is a response (transport errors as kOtherError with
  // http_status 0).
  virtual EvictionResponse Evict(const PodRef& pod) = 0;
};

}  // namespace karpenter

#endif  // KARPENTER_EVICTION_CLIENT_H_
