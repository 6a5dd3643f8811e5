// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Umbrella header: every public header of the karpenter C++ SDK, for hosts
// that prefer one include. Each header documents its own Karpenter rule and
// thread-safety; see those for contracts. Test doubles (karpenter/testing/)
// are separate: link karpenter::testing and include them directly.

#ifndef KARPENTER_KARPENTER_H_
#define KARPENTER_KARPENTER_H_

#include "karpenter/budget/allowed.h"
#include "karpenter/budget/calendar.h"
#include "karpenter/budget/disruption_spec.h"
#include "karpenter/budget/extensions.h"
#include "karpenter/budget/node_budget.h"
#include "karpenter/budget/pdb.h"
#include "karpenter/clock.h"
#include "karpenter/cloud_provider.h"
#include "karpenter/cluster_view.h"
#include "karpenter/conditions.h"
#include "karpenter/cron.h"
#include "karpenter/disruption/candidates.h"
#include "karpenter/disruption/consolidation.h"
#include "karpenter/disruption/controller.h"
#include "karpenter/disruption/cost.h"
#include "karpenter/disruption/methods.h"
#include "karpenter/disruption/orchestrator.h"
#include "karpenter/disruption/runner.h"
#include "karpenter/disruption/scheduler.h"
#include "karpenter/disruption/types.h"
#include "karpenter/drain/classify.h"
#include "karpenter/drain/deadline.h"
#include "karpenter/drain/drainer.h"
#include "karpenter/drain/eviction_queue.h"
#include "karpenter/drain/tiers.h"
#include "karpenter/drift/requirements_drift.h"
#include "karpenter/drift/static_drift.h"
#include "karpenter/drift/verdict.h"
#include "karpenter/duration.h"
#include "karpenter/event_recorder.h"
#include "karpenter/eviction_client.h"
#include "karpenter/intstr.h"
#include "karpenter/metrics.h"
#include "karpenter/quantity.h"
#include "karpenter/requirements.h"
#include "karpenter/scheduling/node_selector.h"
#include "karpenter/scheduling/volumes.h"
#include "karpenter/selector.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/snapshot/snapshot.h"
#include "karpenter/taints.h"
#include "karpenter/termination/decide.h"
#include "karpenter/termination/executor.h"
#include "karpenter/termination/garbage_collection.h"
#include "karpenter/termination/janitor.h"
#include "karpenter/termination/liveness.h"
#include "karpenter/termination/validate.h"
#include "karpenter/termination/volumes.h"
#include "karpenter/time_util.h"
#include "karpenter/validation.h"
#include "karpenter/well_known.h"

#endif  // KARPENTER_KARPENTER_H_
