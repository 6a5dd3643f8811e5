// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The status-condition lookup of karpenter/conditions.h.

#include "karpenter/conditions.h"

#include <catch2/catch.hpp>
#include <string>

#include "karpenter/v1/core.pb.h"
#include "karpenter/v1/karpenter.pb.h"
#include "karpenter/well_known.h"

namespace karpenter {
namespace {

void Add(ConditionList& list, absl::string_view type, absl::string_view status,
         absl::string_view reason = "") {
  v1::Condition* c = list.Add();
  c->set_type(std::string(type));
  c->set_status(std::string(status));
  c->set_reason(std::string(reason));
}

TEST_CASE("conditions: lookup answers with the first condition of the type",
          "[conditions]") {
  v1::Node node;
  ConditionList& list = *node.mutable_status()->mutable_conditions();
  Add(list, "MemoryPressure", "False");
  Add(list, well_known::kConditionTypeReady, "True", "first");
  Add(list, well_known::kConditionTypeReady, "False", "second");

  const v1::Condition* ready = FindCondition(node.status().conditions(),
                                             well_known::kConditionTypeReady);
  REQUIRE(ready != nullptr);
  CHECK(ready->reason() == "first");
  CHECK(ConditionStatus(list, well_known::kConditionTypeReady) == "True");
  CHECK(IsConditionTrue(list, well_known::kConditionTypeReady));
  CHECK(IsConditionTrue(ready));
  CHECK(ConditionStatus(list, "MemoryPressure") == "False");
  CHECK_FALSE(IsConditionTrue(list, "MemoryPressure"));
}

TEST_CASE("conditions: an absent type is nullptr, \"\" and not True",
          "[conditions]") {
  v1::NodeClaim claim;
  const ConditionList& list = claim.status().conditions();
  CHECK(FindCondition(list, well_known::kConditionTypeDrifted) == nullptr);
  CHECK(ConditionStatus(list, well_known::kConditionTypeDrifted).empty());
  CHECK_FALSE(IsConditionTrue(list, well_known::kConditionTypeDrifted));
  CHECK_FALSE(IsConditionTrue(nullptr));
}

TEST_CASE("conditions: only the exact status True is true", "[conditions]") {
  for (const char* status : {"Unknown", "False", "true", "TRUE", ""}) {
    ConditionList list;
    Add(list, well_known::kConditionTypeInitialized, status);
    CAPTURE(status);
    CHECK_FALSE(IsConditionTrue(list, well_known::kConditionTypeInitialized));
    CHECK(ConditionStatus(list, well_known::kConditionTypeInitialized) ==
          status);
  }
}

}  // namespace
}  // namespace karpenter
