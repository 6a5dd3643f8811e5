// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "random_scenario.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"

namespace karpenter::sim {

uint64_t Rng::Next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

int Rng::Uniform(int lo, int hi) {
  const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
  return lo + static_cast<int>(Next() % span);
}

bool Rng::Chance(int percent) { return Uniform(1, 100) <= percent; }

namespace {

// By value: callers pass temporary lists.
template <typename T>
T Pick(Rng& rng, const std::vector<T>& items) {
  return items[static_cast<size_t>(rng.Uniform(0, items.size() - 1))];
}

struct InstanceTypeModel {
  std::string name;
  int cpu;
  std::string memory;
  int pods;
  double on_demand_price;
};

const std::vector<InstanceTypeModel>& Catalogue() {
  static const auto* const kTypes = new std::vector<InstanceTypeModel>{
      {"m5.large", 2, "8Gi", 20, 0.096},
      {"m5.xlarge", 4, "16Gi", 40, 0.192},
      {"m5.2xlarge", 8, "32Gi", 60, 0.384},
  };
  return *kTypes;
}

struct BudgetModel {
  std::string nodes;
  std::vector<std::string> reasons;
  std::optional<std::pair<std::string, std::string>> schedule;  // cron, dur
};

struct PoolModel {
  std::string name;
  std::string capacity_type;
  std::vector<std::string> instance_types;
  std::string expire_after;
  std::optional<std::string> termination_grace_period;
  std::string consolidation_policy;
  std::string consolidate_after;
  std::vector<BudgetModel> budgets;
  int template_version = 1;
  // Generated nodes.
  int nodes = 0;
  std::string node_type;
};

BudgetModel RandomBudget(Rng& rng) {
  BudgetModel b;
  // Small numbers weigh most: a budget of 1 or 2 with several candidates
  // is where the in-flight count decides whether a command may start.
  b.nodes = Pick<std::string>(rng, {"0", "1", "1", "1", "2", "2", "3", "10%",
                                    "20%", "34%", "50%", "100%"});
  if (rng.Chance(30)) {
    b.schedule = Pick<std::pair<std::string, std::string>>(
        rng, {{"0 * * * *", "20m"},
              {"*/30 * * * *", "10m"},
              {"0 9 * * mon-fri", "8h"},
              {"0 0 * * *", "1h"},
              {"15,45 * * * *", "5m"}});
  }
  if (rng.Chance(25)) {
    for (const char* r : {"Drifted", "Underutilized", "Empty"}) {
      if (rng.Chance(50)) b.reasons.push_back(r);
    }
  }
  return b;
}

PoolModel RandomPool(Rng& rng, int index) {
  PoolModel p;
  p.name = absl::StrCat("pool", index);
  p.capacity_type = rng.Chance(70) ? "on-demand" : "spot";
  const InstanceTypeModel type = Pick(rng, Catalogue());
  p.node_type = type.name;
  if (rng.Chance(60)) {
    for (const InstanceTypeModel& t : Catalogue()) {
      p.instance_types.push_back(t.name);
    }
  } else {
    p.instance_types.push_back(type.name);
  }
  p.expire_after =
      rng.Chance(75) ? "Never" : absl::StrCat(rng.Uniform(20, 180), "m");
  if (rng.Chance(45)) {
    p.termination_grace_period = absl::StrCat(rng.Uniform(2, 20), "m");
  }
  p.consolidation_policy =
      rng.Chance(50) ? "WhenEmpty" : "WhenEmptyOrUnderutilized";
  p.consolidate_after =
      Pick<std::string>(rng, {"0s", "30s", "1m", "5m", "10m", "Never"});
  const int budgets = rng.Uniform(1, 3);
  for (int i = 0; i < budgets; ++i) p.budgets.push_back(RandomBudget(rng));
  p.nodes = rng.Uniform(2, 6);
  return p;
}

// The NodePool's metadata and spec, each line prefixed with `indent`.
std::string PoolBody(const PoolModel& p, const std::string& indent) {
  std::string out;
  auto line = [&](const std::string& text) {
    absl::StrAppend(&out, indent, text, "\n");
  };
  line(absl::StrCat("metadata: {name: ", p.name, "}"));
  line("spec:");
  line("  template:");
  line(absl::StrCat("    metadata: {labels: {sim/template: v",
                    p.template_version, "}}"));
  line("    spec:");
  line(
      "      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, "
      "name: default}");
  line(absl::StrCat("      expireAfter: ", p.expire_after));
  if (p.termination_grace_period) {
    line(absl::StrCat("      terminationGracePeriod: ",
                      *p.termination_grace_period));
  }
  line("      requirements:");
  line(absl::StrCat(
      "        - {key: karpenter.sh/capacity-type, operator: In, values: [",
      p.capacity_type, "]}"));
  line(absl::StrCat(
      "        - {key: node.kubernetes.io/instance-type, operator: In, "
      "values: [",
      absl::StrJoin(p.instance_types, ", "), "]}"));
  line("  disruption:");
  line(absl::StrCat("    consolidationPolicy: ", p.consolidation_policy));
  line(absl::StrCat("    consolidateAfter: ", p.consolidate_after));
  line("    budgets:");
  for (const BudgetModel& b : p.budgets) {
    std::string budget = absl::StrCat("      - {nodes: \"", b.nodes, "\"");
    if (!b.reasons.empty()) {
      absl::StrAppend(&budget, ", reasons: [", absl::StrJoin(b.reasons, ", "),
                      "]");
    }
    if (b.schedule) {
      absl::StrAppend(&budget, ", schedule: \"", b.schedule->first,
                      "\", duration: ", b.schedule->second);
    }
    line(absl::StrCat(budget, "}"));
  }
  return out;
}

struct WorkloadModel {
  std::string name;
  std::string pool;  // empty: a daemon set on every node
  int replicas = 0;
  bool job = false;
};

// `free_cpu` is the cpu (milli) each of the pool's nodes has left; the
// workload takes what its replicas need (spread evenly, as the scenario's
// round-robin places them) and its replicas are cut to what fits, so that
// the cluster starts as kube-scheduler could have left it.
std::string RandomWorkload(Rng& rng, const PoolModel& pool, int index,
                           int& free_cpu, WorkloadModel& model) {
  model.name = absl::StrCat(pool.name, "-w", index);
  model.pool = pool.name;
  model.replicas = rng.Uniform(1, 2 * pool.nodes);
  model.job = rng.Chance(10);
  const std::string cpu =
      Pick<std::string>(rng, {"100m", "200m", "250m", "500m"});
  int cpu_milli = std::stoi(cpu);
  if (index == 0 && rng.Chance(40)) {
    // A heavy workload, one replica per node taking most of it: a
    // disrupted node's pods then fit nowhere else, so drift and
    // consolidation wait for replacements, and commands overlap.
    model.replicas = pool.nodes;
    cpu_milli = std::max(10, free_cpu * rng.Uniform(55, 80) / 100);
  }
  if (free_cpu < cpu_milli) cpu_milli = 10;  // Nearly full: a small one.
  model.replicas = std::min(model.replicas, free_cpu / cpu_milli * pool.nodes);
  free_cpu -= cpu_milli * ((model.replicas + pool.nodes - 1) / pool.nodes);
  std::string out = absl::StrFormat(
      "      - {name: %s, nodePool: %s, replicas: %d, cpu: %dm, memory: %s, "
      "terminationGracePeriod: %s",
      model.name, pool.name, model.replicas, cpu_milli,
      Pick<std::string>(rng, {"128Mi", "256Mi", "512Mi", "1Gi"}),
      Pick<std::string>(rng, {"0s", "10s", "30s", "60s", "90s"}));
  if (model.job) absl::StrAppend(&out, ", job: true");
  if (rng.Chance(25)) absl::StrAppend(&out, ", doNotDisrupt: true");
  if (!model.job && rng.Chance(50)) {
    if (rng.Chance(50)) {
      absl::StrAppend(&out, ", pdb: {minAvailable: \"",
                      Pick<std::string>(rng, {"1", "50%", "80%", "100%"}),
                      "\"}");
    } else {
      absl::StrAppend(&out, ", pdb: {maxUnavailable: \"",
                      Pick<std::string>(rng, {"1", "2", "25%", "0"}), "\"}");
    }
  }
  return absl::StrCat(out, "}\n");
}

std::string NodeName(const PoolModel& p, int i) {
  return absl::StrFormat("%s-%02d", p.name, i);
}

struct Change {
  int at_seconds = 0;
  std::string body;  // the change's key and value, already indented
};

std::string RandomNode(Rng& rng, const std::vector<PoolModel>& pools) {
  const PoolModel& p = Pick(rng, pools);
  return NodeName(p, rng.Uniform(0, p.nodes - 1));
}

void AddRandomChange(Rng& rng, std::vector<PoolModel>& pools, int window,
                     std::vector<Change>& out) {
  const int at = rng.Uniform(60, window);
  const int kind = rng.Uniform(0, 99);
  auto add = [&](int when, std::string body) {
    out.push_back({when, std::move(body)});
  };
  if (kind < 22) {
    add(at,
        absl::StrCat("driftNodePool: {nodePool: ", Pick(rng, pools).name, "}"));
  } else if (kind < 30) {
    PoolModel& p = pools[rng.Uniform(0, pools.size() - 1)];
    PoolModel edited = p;
    edited.template_version = p.template_version + 1;
    if (rng.Chance(50)) edited.budgets = {RandomBudget(rng)};
    p.template_version = edited.template_version;
    add(at, absl::StrCat("nodePool:\n", PoolBody(edited, "        ")));
  } else if (kind < 38) {
    add(at, absl::StrCat("deleteNode: ", RandomNode(rng, pools)));
  } else if (kind < 45) {
    add(at,
        absl::StrCat("spotInterruption: {node: ", RandomNode(rng, pools), "}"));
  } else if (kind < 55) {
    const auto [method, code, message] =
        Pick<std::tuple<std::string, std::string, std::string>>(
            rng, {{"Create", "ResourceExhausted", "insufficient capacity"},
                  {"Create", "Unavailable", "service unavailable"},
                  {"Delete", "Unavailable", "throttled"},
                  {"Get", "Unavailable", "timeout"},
                  {"IsDrifted", "Internal", "image lookup failed"}});
    add(at, absl::StrFormat("cloudFault: {method: %s, code: %s, message: "
                            "\"%s\", times: %d}",
                            method, code, message, rng.Uniform(1, 4)));
  } else if (kind < 66) {
    add(at,
        absl::StrFormat("evictionFault: {httpStatus: %d, times: %d}",
                        Pick<int>(rng, {429, 500, 503, 0}), rng.Uniform(1, 8)));
  } else if (kind < 72) {
    const std::string node = RandomNode(rng, pools);
    add(at, absl::StrCat("terminationProtection: {node: ", node,
                         ", enabled: true}"));
    add(std::min(window, at + rng.Uniform(60, 1200)),
        absl::StrCat("terminationProtection: {node: ", node,
                     ", enabled: false}"));
  } else if (kind < 79) {
    const std::string node = RandomNode(rng, pools);
    add(at, absl::StrCat("nodeReadiness: {node: ", node, ", ready: false}"));
    if (rng.Chance(50)) {
      add(std::min(window, at + rng.Uniform(60, 900)),
          absl::StrCat("nodeReadiness: {node: ", node, ", ready: true}"));
    }
  } else if (kind < 90) {
    add(at, "restartControllers: {}");
  } else {
    add(at, absl::StrFormat("staleReads: {reads: %d}", rng.Uniform(1, 3)));
  }
}

// After the last change: time for every unblocked termination to finish
// (harness.h kTerminationBound is 8 minutes), with room to spare.
constexpr int kQuietTail = 30 * 60;

std::string FormatSeconds(int seconds) {
  return absl::StrFormat("%dm%ds", seconds / 60, seconds % 60);
}

}  // namespace

std::string RandomScenarioYaml(uint64_t seed) {
  Rng rng(seed);
  std::vector<PoolModel> pools;
  const int pool_count = rng.Uniform(1, 3);
  for (int i = 0; i < pool_count; ++i) pools.push_back(RandomPool(rng, i));

  std::string yaml = absl::StrCat("# karpenter_sim seed ", seed, "\n");
  for (const PoolModel& p : pools) {
    absl::StrAppend(&yaml, "apiVersion: karpenter.sh/v1\nkind: NodePool\n",
                    PoolBody(p, ""), "---\n");
  }
  const absl::Time start = absl::FromCivil(absl::CivilMinute(2024, 3, 4, 0, 0),
                                           absl::UTCTimeZone()) +
                           absl::Minutes(rng.Uniform(0, 7 * 24 * 60 - 1));
  const int window = rng.Uniform(20, 40) * 60;
  absl::StrAppend(
      &yaml,
      "apiVersion: sim.karpenter-sdk.dev/v1\nkind: Scenario\n"
      "metadata: {name: seed-",
      seed, "}\nspec:\n  start: \"",
      absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", start, absl::UTCTimeZone()),
      "\"\n  until: ", FormatSeconds(window + kQuietTail),
      "\n  image: image-1\n", "  instanceTypes:\n");
  for (const InstanceTypeModel& t : Catalogue()) {
    absl::StrAppend(
        &yaml,
        absl::StrFormat(
            "    - name: %s\n      capacity: {cpu: \"%d\", memory: %s, "
            "pods: \"%d\"}\n      offerings:\n"
            "        - {zone: test-zone-a, capacityType: on-demand, price: "
            "%.3f}\n        - {zone: test-zone-a, capacityType: spot, "
            "price: %.3f}\n",
            t.name, t.cpu, t.memory, t.pods, t.on_demand_price,
            t.on_demand_price * 0.35));
  }
  absl::StrAppend(&yaml, "  generate:\n    nodes:\n");
  for (const PoolModel& p : pools) {
    absl::StrAppend(
        &yaml, absl::StrFormat("      - {nodePool: %s, count: %d, "
                               "instanceType: %s, capacityType: %s, "
                               "age: %dm}\n",
                               p.name, p.nodes, p.node_type, p.capacity_type,
                               rng.Uniform(10, 3000)));
  }
  absl::StrAppend(&yaml, "    workloads:\n");
  std::vector<WorkloadModel> workloads;
  if (rng.Chance(50)) {
    absl::StrAppend(&yaml,
                    "      - {name: agent, namespace: kube-system, daemonSet: "
                    "true, cpu: 50m, memory: 64Mi}\n");
  }
  for (const PoolModel& p : pools) {
    const int count = rng.Uniform(1, 3);
    int free_cpu = 0;  // Per node, less the daemon set's 50m.
    for (const InstanceTypeModel& t : Catalogue()) {
      if (t.name == p.node_type) free_cpu = t.cpu * 1000 - 50;
    }
    for (int i = 0; i < count; ++i) {
      WorkloadModel w;
      absl::StrAppend(&yaml, RandomWorkload(rng, p, i, free_cpu, w));
      workloads.push_back(w);
    }
  }
  std::vector<Change> changes;
  const int change_count = rng.Uniform(2, 9);
  for (int i = 0; i < change_count; ++i) {
    AddRandomChange(rng, pools, window, changes);
  }
  for (const WorkloadModel& w : workloads) {
    if (w.job && rng.Chance(70)) {
      changes.push_back({rng.Uniform(60, window),
                         absl::StrCat("finishJob: {name: ", w.name, "}")});
    }
  }
  absl::StrAppend(&yaml, "  changes:\n");
  for (const Change& c : changes) {
    absl::StrAppend(&yaml, "    - at: ", FormatSeconds(c.at_seconds),
                    "\n      ", c.body, "\n");
  }
  return yaml;
}

}  // namespace karpenter::sim
