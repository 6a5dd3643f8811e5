// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Expected values follow kube-scheduler's noderesources/fit.go fitsRequest
// and Filter: messages, codes and order.

#include "karpenter/scheduling/node_resources.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace karpenter::scheduling {
namespace {

using Row = std::vector<int64_t>;
constexpr FilterCode kUnsched = FilterCode::kUnschedulable;
constexpr FilterCode kUnresolvable = FilterCode::kUnschedulableAndUnresolvable;

// Failures as "<message>/<U|UU>", space-separated.
std::string Show(const std::vector<FilterFailure>& failures) {
  std::string out;
  for (const FilterFailure& f : failures) {
    CHECK(f.plugin == kNodeResourcesFit);
    absl::StrAppend(&out, out.empty() ? "" : ", ", f.message,
                    f.code == kUnsched ? "/U" : "/UU");
  }
  return out;
}

ResourceDims Dims(std::vector<std::string> names) {
  absl::StatusOr<ResourceDims> dims = ResourceDims::Create(std::move(names));
  INFO(dims.status().ToString());
  REQUIRE(dims.ok());
  return *std::move(dims);
}

TEST_CASE("NodeResourcesFit: messages, codes and order", "[scheduling]") {
  // Dimensions in an order unlike fit.go's, to see the report order.
  const ResourceDims dims =
      Dims({"example.com/gpu", "memory", "pods", "cpu", "ephemeral-storage",
            "aaa.io/fpga", "hugepages-2Mi"});
  //                   gpu   mem   pods  cpu   eph   fpga  huge
  const Row alloc = {2000, 8000, 3000, 4000, 9000, 1000, 4000};
  struct Case {
    std::string name;
    Row pod;
    Row requested;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"fits with room",
       {1000, 1000, 1000, 1000, 0, 0, 0},
       {0, 0, 0, 0, 0, 0, 0},
       ""},
      {"a request equal to what is free fits",
       {1000, 3000, 1000, 1500, 9000, 1000, 4000},
       {1000, 5000, 2000, 2500, 0, 0, 0},
       ""},
      {"one unit over is insufficient",
       {0, 0, 1000, 1501, 0, 0, 0},
       {0, 0, 0, 2500, 0, 0, 0},
       "Insufficient cpu/U"},
      {"more than the node has is unresolvable",
       {0, 8001, 1000, 0, 0, 0, 0},
       {0, 0, 0, 0, 0, 0, 0},
       "Insufficient memory/UU"},
      {"no pod slot left",
       {0, 0, 1000, 0, 0, 0, 0},
       {0, 0, 3000, 0, 0, 0, 0},
       "Too many pods/U"},
      {"pods is checked even when the row says 0",
       {0, 0, 0, 0, 0, 0, 0},
       {0, 0, 3000, 0, 0, 0, 0},
       "Too many pods/U"},
      {"zero requests are never checked, even on an over-committed node",
       {0, 0, 1000, 0, 0, 0, 0},
       {5000, 9000, 0, 9000, 9999, 2000, 5000},
       ""},
      {"every failure, in fit.go's order",
       {3000, 100, 1000, 100, 100, 100, 100},
       {0, 8000, 3000, 4000, 9000, 1000, 4000},
       "Too many pods/U, Insufficient cpu/U, Insufficient memory/U, "
       "Insufficient ephemeral-storage/U, Insufficient aaa.io/fpga/U, "
       "Insufficient example.com/gpu/UU, Insufficient hugepages-2Mi/U"},
      {"codes are per resource",
       {0, 9000, 1000, 100, 0, 0, 0},
       {0, 0, 0, 3950, 0, 0, 0},
       "Insufficient cpu/U, Insufficient memory/UU"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const absl::StatusOr<std::vector<FilterFailure>> got =
        NodeResourcesFit(dims, c.pod, alloc, c.requested);
    REQUIRE(got.ok());
    CHECK(Show(*got) == c.want);
    // The same verdict from the free row.
    Row free(alloc.size());
    for (size_t i = 0; i < free.size(); ++i) {
      free[i] = alloc[i] - c.requested[i];
    }
    const absl::StatusOr<std::vector<FilterFailure>> from_free =
        NodeResourcesFitFree(dims, c.pod, alloc, free);
    REQUIRE(from_free.ok());
    CHECK(Show(*from_free) == c.want);
  }
}

TEST_CASE("NodeResourcesFit: a resource the node lacks", "[scheduling]") {
  const ResourceDims dims = Dims({"cpu", "pods", "example.com/gpu"});
  const auto got = NodeResourcesFit(dims, Row{100, 1000, 1000},
                                    Row{4000, 110000, 0}, Row{0, 0, 0});
  REQUIRE(got.ok());
  REQUIRE(got->size() == 1);
  CHECK((*got)[0] == FilterFailure{kNodeResourcesFit, kUnresolvable,
                                   "Insufficient example.com/gpu"});
}

TEST_CASE("NodeResourcesFit: rows without a pods dimension", "[scheduling]") {
  const ResourceDims dims = Dims({"memory", "cpu"});
  CHECK_FALSE(dims.pods_index().has_value());
  const auto got = NodeResourcesFit(dims, Row{0, 0}, Row{0, 0}, Row{100, 100});
  REQUIRE(got.ok());
  CHECK(got->empty());
}

TEST_CASE("NodeResourcesFit: extreme values do not overflow", "[scheduling]") {
  const ResourceDims dims = Dims({"cpu"});
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  // allocatable - requested would overflow int64: still fits.
  auto got = NodeResourcesFit(dims, Row{kMax}, Row{kMax}, Row{kMin});
  REQUIRE(got.ok());
  CHECK(got->empty());
  got = NodeResourcesFit(dims, Row{kMax}, Row{kMax}, Row{1});
  REQUIRE(got.ok());
  CHECK(Show(*got) == "Insufficient cpu/U");
}

TEST_CASE("NodeResourcesFit: bad input", "[scheduling]") {
  CHECK(ResourceDims::Create({"cpu", ""}).status() ==
        absl::InvalidArgumentError("dims[1]: empty resource name"));
  CHECK(ResourceDims::Create({"cpu", "pods", "cpu"}).status() ==
        absl::InvalidArgumentError("dims[2]: duplicate resource name \"cpu\""));

  const ResourceDims dims = Dims({"cpu", "pods"});
  CHECK(dims.size() == 2);
  CHECK(dims.Find("pods") == std::optional<size_t>(1));
  CHECK_FALSE(dims.Find("memory").has_value());
  CHECK(dims.message(0) == "Insufficient cpu");
  CHECK(dims.message(1) == "Too many pods");
  CHECK(NodeResourcesFit(dims, Row{1}, Row{1, 1}, Row{1, 1}).status() ==
        absl::InvalidArgumentError("pod: 1 values for 2 resource dimensions"));
  CHECK(NodeResourcesFit(dims, Row{1, 1}, Row{1, 1, 1}, Row{1, 1}).status() ==
        absl::InvalidArgumentError(
            "allocatable: 3 values for 2 resource dimensions"));
  CHECK(NodeResourcesFit(dims, Row{1, 1}, Row{1, 1}, Row{}).status() ==
        absl::InvalidArgumentError(
            "requested: 0 values for 2 resource dimensions"));
  CHECK(NodeResourcesFitFree(dims, Row{1, 1}, Row{1, 1}, Row{1}).status() ==
        absl::InvalidArgumentError("free: 1 values for 2 resource dimensions"));
}

}  // namespace
}  // namespace karpenter::scheduling
