// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// NodeOverlay (karpenter.sh/v1alpha1): cluster objects that change the
// price and the extended-resource capacity of the instance types a
// NodePool is offered, before consolidation compares prices and the
// scheduling simulation checks fits.
//
// Ports kubernetes-sigs/karpenter v1.14.1 pkg/apis/v1alpha1
// (nodeoverlay.go `OrderByWeight`, nodeoverlay_validation.go
// `RuntimeValidate`, the CRD's CEL rules), pkg/controllers/nodeoverlay
// (controller.go `validateAndUpdateInstanceTypeOverrides`,
// `getOverlaidOfferings`; store.go) and pkg/cloudprovider/types.go
// (`AdjustedPrice`, `ApplyCapacityOverlay`) (docs/semantics.md §2.16):
//
//   1. Overlays are taken by weight, highest first (no weight is 0); equal
//      weights in reverse name order (the name later in the alphabet
//      first). An overlay that fails validation
//      (validation::ValidateNodeOverlay, karpenter/validation.h) is skipped
//      (status RuntimeValidation).
//   2. An overlay selects, per NodePool, the instance types whose
//      requirements (instance type, its labels, its offerings' zones and
//      capacity types), with `karpenter.sh/nodepool In [pool]` and the
//      NodePool's template labels, are compatible with the overlay's
//      requirements (undefined well-known labels allowed), and of those
//      the offerings whose zone and capacity type its requirements admit.
//   3. Price: the first overlay, by the order above, to select an offering
//      sets its price: `price` replaces it; `priceAdjustment` "+0.5" or
//      "-0.5" adds, "+10%" or "-10%" scales, floored at 0, always from the
//      provider's price. Overlays do not stack.
//   4. Capacity: per instance type, a resource set by an earlier overlay is
//      kept; resources no earlier overlay set are added; the result
//      replaces or adds those keys of the type's capacity.
//   5. An overlay that would set a price or a capacity resource that an
//      overlay of the same weight set just before it (Karpenter compares
//      with the last, lowest-weight, overlay to touch the offering or the
//      type) conflicts and is not applied anywhere, as Karpenter rejects it
//      whole (status Conflict).
//   6. Only with `NodeOverlayOptions::enabled`, Karpenter's NodeOverlay
//      feature gate (off by default).
//
// Thread-safety: pure functions over their arguments.
#ifndef KARPENTER_NODE_OVERLAY_H_
#define KARPENTER_NODE_OVERLAY_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "karpenter/cloud_provider.h"
#include "karpenter/v1/karpenter.pb.h"

namespace karpenter {

inline constexpr absl::string_view kNodeOverlayApiVersion =
    "karpenter.sh/v1alpha1";
inline constexpr absl::string_view kNodeOverlayKind = "NodeOverlay";

struct NodeOverlayOptions {
  // Karpenter's NodeOverlay feature gate: off, overlays change nothing.
  bool enabled = false;
};

// What became of one overlay (Karpenter's ValidationSucceeded condition).
struct NodeOverlayStatus {
  std::string name = "";
  // "Applied" (condition True), "RuntimeValidation" (False: invalid, see
  // `message`), "Conflict" (False: "conflict with another overlay"), or
  // "Disabled" (the feature gate is off; Karpenter does not reconcile).
  std::string reason = "";
  std::string message = "";
  // Offerings whose price it set and instance types whose capacity it
  // changed, over every NodePool (0 when not applied).
  int64_t priced_offerings = 0;
  int64_t resized_instance_types = 0;
};

struct NodeOverlayResult {
  // The catalogue with the overlays applied (unchanged when disabled).
  InstanceTypeCatalog catalog;
  // One per overlay, in the order they were evaluated (weight order).
  std::vector<NodeOverlayStatus> statuses;
};

// `price` with the overlay's price change `change` (its `price` or
// `priceAdjustment`, "" for neither) applied, as Karpenter's
// AdjustedPrice. Errors: InvalidArgument quoting `change` when it does not
// parse.
absl::StatusOr<double> AdjustedPrice(double price, absl::string_view change);

// Applies `overlays` to `catalog` (NodePool name -> the instance types the
// cloud offers it) as described above, each NodePool's template labels read
// from `node_pools` (a NodePool of the catalogue missing there is matched
// without template labels). Never fails: an overlay Karpenter would reject
// gets its reason in `statuses`.
NodeOverlayResult ApplyNodeOverlays(const InstanceTypeCatalog& catalog,
                                    absl::Span<const v1::NodePool> node_pools,
                                    absl::Span<const v1::NodeOverlay> overlays,
                                    const NodeOverlayOptions& options);

// The NodeOverlay documents of `text` (YAML or JSON, as a dump: top-level
// documents, lists, `kind: List`), in input order; other kinds are ignored.
// `source` names the input in messages. Errors: InvalidArgument from the
// loaders (snapshot/load.h), naming the document, field and line.
absl::StatusOr<std::vector<v1::NodeOverlay>> ParseNodeOverlays(
    absl::string_view text, absl::string_view source);

// Reads the file at `path` and calls ParseNodeOverlays. Errors: those of
// ParseNodeOverlays; NotFound or another errno-derived code naming `path`
// when the file cannot be read.
absl::StatusOr<std::vector<v1::NodeOverlay>> LoadNodeOverlays(
    const std::string& path);

}  // namespace karpenter

#endif  // KARPENTER_NODE_OVERLAY_H_
