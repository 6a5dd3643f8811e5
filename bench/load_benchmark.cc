// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// Loading a `kubectl get nodes,pods,pdb,nodepools,nodeclaims -A -o json`
// dump at 1k/5k/10k nodes (see snapshot_benchmark.cc for the ratios). The
// dump is the synthetic cluster printed by protobuf's MessageToJsonString and
// then fattened with what real kubectl output carries but our protos do not
// declare (managedFields, containerStatuses, env, volumeMounts, node images,
// nodeInfo, ...), so that most bytes are ones the loader must skip, as in a
// real dump (about 2.5 KB a pod). Building it is outside the timed loop.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "bench_cluster.h"
#include "google/protobuf/util/json_util.h"
#include "karpenter/snapshot/load.h"
#include "karpenter/testing/synthetic_cluster.h"

namespace karpenter {
namespace {

constexpr absl::string_view kTime = "2024-01-01T00:00:00Z";

// Inserts `text` right after the first occurrence of `anchor` (if any).
void InsertAfter(std::string& json, absl::string_view anchor,
                 absl::string_view text) {
  const size_t at = json.find(anchor.data(), 0, anchor.size());
  if (at != std::string::npos)
    json.insert(at + anchor.size(), text.data(), text.size());
}

void ReplaceFirst(std::string& json, absl::string_view from,
                  absl::string_view to) {
  const size_t at = json.find(from.data(), 0, from.size());
  if (at != std::string::npos)
    json.replace(at, from.size(), to.data(), to.size());
}

std::string ToJson(const google::protobuf::Message& m) {
  std::string out;
  if (!google::protobuf::util::MessageToJsonString(m, &out).ok()) std::abort();
  return out;
}

// metadata.managedFields as the API server records them: field sets keyed
// by "f:<name>" and "k:{...}" (escaped JSON inside keys).
std::string ManagedFields(absl::string_view manager, int entries) {
  std::string out = "\"managedFields\":[";
  for (int i = 0; i < entries; ++i) {
    absl::StrAppend(
        &out, i == 0 ? "" : ",", "{\"apiVersion\":\"v1\",",
        "\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:metadata\":{",
        "\"f:labels\":{\".\":{},\"f:app\":{}}},\"f:spec\":{",
        "\"f:containers\":{\"k:{\\\"name\\\":\\\"main\\\"}\":{",
        "\".\":{},\"f:image\":{}}}}},\"manager\":\"", manager,
        "\",\"operation\":\"Update\",",
        i == 1 ? "\"subresource\":\"status\"," : "", "\"time\":\"", kTime,
        "\"}");
  }
  absl::StrAppend(&out, "],");
  return out;
}

std::string PodJson(const v1::Pod& pod, int i) {
  std::string json = ToJson(pod);
  // kubectl prints int64 as a number; MessageToJsonString as a string.
  ReplaceFirst(json, "\"terminationGracePeriodSeconds\":\"30\"",
               "\"terminationGracePeriodSeconds\":30");
  InsertAfter(json, "\"metadata\":{",
              absl::StrCat("\"generateName\":\"app-5d8f7c-\","
                           "\"resourceVersion\":\"",
                           1000000 + i, "\",",
                           ManagedFields("kube-controller-manager", 2)));
  InsertAfter(
      json, "\"containers\":[{\"name\":\"main\",",
      absl::StrCat(
          "\"image\":\"registry.example.com/team/app:v1.2.", i % 100,
          "\",\"imagePullPolicy\":\"IfNotPresent\",\"env\":[",
          "{\"name\":\"LOG_LEVEL\",\"value\":\"info\"}", "],",
          "\"terminationMessagePath\":\"/dev/termination-log\",",
          "\"terminationMessagePolicy\":\"File\",\"volumeMounts\":[",
          "{\"mountPath\":\"/var/run/secrets/kubernetes.io/serviceaccount\",",
          "\"name\":\"kube-api-access-x7k2p\",\"readOnly\":true}],"));
  InsertAfter(
      json, "\"spec\":{",
      absl::StrCat(
          "\"dnsPolicy\":\"ClusterFirst\",\"enableServiceLinks\":true,",
          "\"preemptionPolicy\":\"PreemptLowerPriority\",\"priority\":0,",
          "\"restartPolicy\":\"Always\",",
          "\"schedulerName\":\"default-scheduler\",\"securityContext\":{},",
          "\"serviceAccountName\":\"default\",\"tolerations\":[",
          "{\"effect\":\"NoExecute\",\"key\":",
          "\"node.kubernetes.io/not-ready\",\"operator\":\"Exists\",",
          "\"tolerationSeconds\":300},{\"effect\":\"NoExecute\",\"key\":",
          "\"node.kubernetes.io/unreachable\",\"operator\":\"Exists\",",
          "\"tolerationSeconds\":300}],\"volumes\":[{\"name\":",
          "\"kube-api-access-x7k2p\",\"projected\":{\"defaultMode\":420,",
          "\"sources\":[{\"serviceAccountToken\":{\"expirationSeconds\":",
          "3607,\"path\":\"token\"}}]}}],"));
  InsertAfter(
      json, "\"conditions\":[",
      absl::StrCat("{\"lastProbeTime\":null,\"lastTransitionTime\":\"", kTime,
                   "\",\"status\":\"True\",\"type\":\"Initialized\"},",
                   "{\"lastProbeTime\":null,\"lastTransitionTime\":\"", kTime,
                   "\",\"status\":\"True\",\"type\":\"PodScheduled\"},"));
  InsertAfter(
      json, "\"status\":{",
      absl::StrCat("\"containerStatuses\":[{\"containerID\":\"containerd://",
                   absl::StrFormat("%064x", i),
                   "\",\"image\":\"registry.example.com/team/app:v1.2.3\",",
                   "\"imageID\":\"registry.example.com/team/app@sha256:",
                   absl::StrFormat("%064x", i * 7), "\",\"lastState\":{},",
                   "\"name\":\"main\",\"ready\":true,\"restartCount\":0,",
                   "\"started\":true,\"state\":{\"running\":{\"startedAt\":\"",
                   kTime, "\"}}}],\"hostIP\":\"10.0.", i % 250, ".", i % 200,
                   "\",\"podIP\":\"10.1.", i % 250, ".", i % 199,
                   "\",\"podIPs\":[{\"ip\":\"10.1.", i % 250, ".", i % 199,
                   "\"}],\"qosClass\":\"Burstable\","));
  return json;
}

std::string NodeJson(const v1::Node& node, int i) {
  std::string json = ToJson(node);
  InsertAfter(json, "\"metadata\":{",
              absl::StrCat("\"annotations\":{\"karpenter.sh/nodepool-hash\":",
                           "\"4012513481623584108\",\"node.alpha.kubernetes."
                           "io/ttl\":\"0\"},\"resourceVersion\":\"",
                           2000000 + i, "\",", ManagedFields("kubelet", 2)));
  std::string images = "\"images\":[";
  for (int k = 0; k < 30; ++k) {
    absl::StrAppend(&images, k == 0 ? "" : ",", "{\"names\":[",
                    "\"registry.example.com/team/image-", k,
                    "@sha256:", absl::StrFormat("%064x", k * 131 + 7), "\",",
                    "\"registry.example.com/team/image-", k, ":v", k % 7,
                    "\"],\"sizeBytes\":", 10000000 + k * 7919, "}");
  }
  absl::StrAppend(&images, "],");
  InsertAfter(
      json, "\"status\":{",
      absl::StrCat(
          "\"addresses\":[{\"address\":\"10.0.", i % 250, ".", i % 200,
          "\",\"type\":\"InternalIP\"},{\"address\":\"ip-10-0-", i % 250,
          ".ec2.internal\",\"type\":\"Hostname\"}],",
          "\"capacity\":{\"cpu\":\"4\",\"ephemeral-storage\":\"20959212Ki\",",
          "\"memory\":\"16Gi\",\"pods\":\"58\"},",
          "\"daemonEndpoints\":{\"kubeletEndpoint\":{\"Port\":10250}},", images,
          "\"nodeInfo\":{\"architecture\":\"amd64\",\"bootID\":\"",
          absl::StrFormat("%032x", i), "\",\"containerRuntimeVersion\":",
          "\"containerd://1.7.11\",\"kernelVersion\":\"6.1.66\",",
          "\"kubeProxyVersion\":\"v1.29.0\",\"kubeletVersion\":\"v1.29.0\",",
          "\"machineID\":\"", absl::StrFormat("%032x", i * 3),
          "\",\"operatingSystem\":\"linux\",\"osImage\":\"Amazon Linux 2023\",",
          "\"systemUUID\":\"", absl::StrFormat("%032x", i * 5), "\"},"));
  InsertAfter(
      json, "\"conditions\":[",
      absl::StrCat("{\"lastHeartbeatTime\":\"", kTime,
                   "\",\"lastTransitionTime\":\"", kTime,
                   "\",\"message\":\"kubelet has sufficient memory\",",
                   "\"reason\":\"KubeletHasSufficientMemory\",",
                   "\"status\":\"False\",\"type\":\"MemoryPressure\"},"));
  InsertAfter(json, "\"spec\":{",
              absl::StrCat("\"podCIDR\":\"10.2.", i % 250, ".0/24\","));
  return json;
}

template <typename T>
std::string WithManagedFields(const T& m) {
  std::string json = ToJson(m);
  InsertAfter(json, "\"metadata\":{", ManagedFields("kubectl", 1));
  return json;
}

struct Dump {
  std::string json;
  double pod_bytes = 0;   // mean size of a pod item
  double node_bytes = 0;  // mean size of a node item
};

// The whole dump as one `kind: List`, items in kubectl's order.
Dump MakeDump(int nodes) {
  const snapshot::ObjectSet objects = bench::SyntheticObjects(nodes);
  std::string dump = "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[\n";
  bool first = true;
  auto add = [&](const std::string& item) {
    absl::StrAppend(&dump, first ? "" : ",\n", item);
    first = false;
  };
  Dump out;
  for (size_t i = 0; i < objects.nodes.size(); ++i) {
    add(NodeJson(objects.nodes[i], static_cast<int>(i)));
  }
  out.node_bytes = static_cast<double>(dump.size()) / objects.nodes.size();
  const size_t before_pods = dump.size();
  for (size_t i = 0; i < objects.pods.size(); ++i) {
    add(PodJson(objects.pods[i], static_cast<int>(i)));
  }
  out.pod_bytes =
      static_cast<double>(dump.size() - before_pods) / objects.pods.size();
  for (const auto& pdb : objects.pdbs) add(WithManagedFields(pdb));
  for (const auto& pool : objects.node_pools) add(WithManagedFields(pool));
  for (const auto& claim : objects.node_claims) add(WithManagedFields(claim));
  absl::StrAppend(&dump, "\n],\"metadata\":{\"resourceVersion\":\"\"}}\n");
  out.json = std::move(dump);
  return out;
}

// Google Benchmark may call a benchmark function more than once; keep the
// last dump rather than rebuilding it (one size at a time bounds memory).
const Dump& CachedDump(int nodes) {
  static int cached_nodes = -1;
  static Dump cached;
  if (cached_nodes != nodes) {
    cached = Dump();
    cached = MakeDump(nodes);
    cached_nodes = nodes;
  }
  return cached;
}

int64_t ObjectCount(const snapshot::ObjectSet& o) {
  return static_cast<int64_t>(o.nodes.size() + o.pods.size() + o.pdbs.size() +
                              o.node_pools.size() + o.node_claims.size());
}

void BM_LoadJson(benchmark::State& state) {
  const Dump& input = CachedDump(static_cast<int>(state.range(0)));
  const std::string& dump = input.json;
  std::unique_ptr<snapshot::ObjectSet> out;
  int64_t objects = 0;
  for (auto _ : state) {
    state.PauseTiming();
    out.reset();  // freeing the previous result is not the loader's cost
    out = std::make_unique<snapshot::ObjectSet>();
    state.ResumeTiming();
    const absl::Status status = snapshot::LoadJson(dump, "dump.json", *out);
    if (!status.ok()) state.SkipWithError(status.ToString().c_str());
    objects = ObjectCount(*out);
    benchmark::DoNotOptimize(*out);
  }
  state.SetBytesProcessed(state.iterations() *
                          static_cast<int64_t>(dump.size()));
  state.SetItemsProcessed(state.iterations() * objects);
  state.counters["MB"] = static_cast<double>(dump.size()) / 1e6;
  state.counters["pod_B"] = input.pod_bytes;
  state.counters["node_B"] = input.node_bytes;
}
BENCHMARK(BM_LoadJson)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace karpenter
