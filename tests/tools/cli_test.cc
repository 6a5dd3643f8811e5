// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// The CLI run in-process: exit status, stdout and the one-line stderr
// contract for bad input.

#include "cli.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "cli_test_util.h"

namespace karpenter::cli {
namespace {

using test::Result;
using test::Run;
using test::WriteTemp;

// Bad input must produce exactly one diagnostic line.
void RequireOneErrorLine(const Result& r) {
  CHECK(r.status == kExitUsage);
  CHECK(r.out.empty());
  REQUIRE(!r.err.empty());
  CHECK(absl::StartsWith(r.err, "karpenter: "));
  CHECK(r.err.find('\n') == r.err.size() - 1);
}

TEST_CASE("cli: cron next prints RFC 3339 UTC activations", "[cli][cron]") {
  Result r = Run({"cron", "next", "0 9 * * *", "--from", "2024-01-01T10:00:00Z",
                  "--count", "3"});
  CHECK(r.status == kExitOk);
  CHECK(r.err.empty());
  CHECK(r.out ==
        "2024-01-02T09:00:00Z\n2024-01-03T09:00:00Z\n2024-01-04T09:00:00Z\n");
}

TEST_CASE("cli: cron next follows the zone across a DST gap", "[cli][cron]") {
  // 02:30 does not exist in New York on 2024-03-10: robfig skips that day.
  Result r = Run({"cron", "next", "CRON_TZ=America/New_York 30 2 * * *",
                  "--from", "2024-03-09T12:00:00Z", "--count", "2"});
  CHECK(r.status == kExitOk);
  CHECK(r.out == "2024-03-11T06:30:00Z\n2024-03-12T06:30:00Z\n");
}

TEST_CASE("cli: cron next --from accepts offsets and defaults to one line",
          "[cli][cron]") {
  Result r =
      Run({"cron", "next", "@hourly", "--from", "2024-06-01T10:15:00+02:00"});
  CHECK(r.status == kExitOk);
  CHECK(r.out == "2024-06-01T09:00:00Z\n");
}

TEST_CASE("cli: cron next on a schedule that never fires", "[cli][cron]") {
  Result r = Run({"cron", "next", "0 0 31 2 *", "--from",
                  "2024-01-01T00:00:00Z", "--count", "5"});
  CHECK(r.status == kExitOk);
  CHECK(r.out.empty());
  CHECK(absl::StrContains(r.err, "does not fire again"));
}

TEST_CASE("cli: cron next rejects bad input with one line and exit 2",
          "[cli][cron]") {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"cron", "next", "0 0 * * 7"}, "day-of-week"},
      {{"cron", "next", "* * * *"}, "expected exactly 5 fields"},
      {{"cron", "next"}, "missing SCHEDULE"},
      {{"cron", "next", "@daily", "--count", "0"}, "--count: \"0\""},
      {{"cron", "next", "@daily", "--count", "x"}, "--count: \"x\""},
      {{"cron", "next", "@daily", "--count", "10001"}, "10001"},
      {{"cron", "next", "@daily", "--count"}, "--count: missing value"},
      {{"cron", "next", "@daily", "--from", "yesterday"},
       "--from: \"yesterday\""},
      {{"cron", "next", "@daily", "--bogus"}, "unknown option \"--bogus\""},
      {{"cron", "next", "0", "9", "*", "*", "*"}, "quote the schedule"},
      {{"cron", "later", "@daily"}, "unknown subcommand \"later\""},
      {{"frobnicate"}, "unknown command \"frobnicate\""},
  };
  for (const auto& [args, needle] : cases) {
    INFO(args.back());
    Result r = Run(args);
    RequireOneErrorLine(r);
    CHECK(absl::StrContains(r.err, needle));
  }
}

TEST_CASE("cli: cron next takes a schedule after --", "[cli][cron]") {
  Result r = Run(
      {"cron", "next", "--from", "2024-01-01T00:00:00Z", "--", "-1 * * * *"});
  RequireOneErrorLine(r);  // robfig rejects the negative number, not us
  CHECK(absl::StrContains(r.err, "minute"));
}

TEST_CASE("cli: every command answers --help on stdout", "[cli]") {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--help"},
                                             {"help"},
                                             {"cron", "--help"},
                                             {"cron", "next", "--help"},
                                             {"inspect", "--help"},
                                             {"inspect", "-h"},
                                             {"plan", "--help"},
                                             {"explain", "--help"},
                                             {"fit", "--help"},
                                             {"provision", "--help"},
                                             {"simulate", "--help"}}) {
    Result r = Run(args);
    CHECK(r.status == kExitOk);
    CHECK(absl::StartsWith(r.out, "usage: karpenter"));
    CHECK(r.err.empty());
  }
  Result bare = Run({});
  CHECK(bare.status == kExitUsage);
  CHECK(absl::StartsWith(bare.err, "usage: karpenter"));
}

TEST_CASE("cli: help names every kind to add to kubectl get", "[cli]") {
  // The resources whose kinds the loaders read (snapshot/load.h), as one
  // copyable command line.
  const std::string command =
      "  kubectl get nodes,pods,pdb,nodepools,nodeclaims,pv,pvc,"
      "storageclasses,csinodes,daemonsets,volumeattachments -A -o yaml\n";
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--help"},
                                             {"inspect", "--help"},
                                             {"plan", "--help"},
                                             {"simulate", "--help"}}) {
    INFO(absl::StrJoin(args, " "));
    Result r = Run(args);
    CHECK(r.status == kExitOk);
    CHECK(absl::StrContains(r.out, command));
  }
}

TEST_CASE("cli: inspect summarises the embedded example cluster",
          "[cli][inspect]") {
  Result r = Run({"inspect"});
  REQUIRE(r.status == kExitOk);
  CHECK(r.err.empty());
  const std::vector<std::string> lines = absl::StrSplit(r.out, '\n');
  REQUIRE(lines.size() > 10);
  CHECK(lines[0] ==
        "Snapshot: 3 NodePools, 8 Nodes, 8 NodeClaims, 30 Pods, 3 "
        "PodDisruptionBudgets, 0 DaemonSets");
  CHECK(lines[1] ==
        "Storage: 0 PersistentVolumeClaims, 0 PersistentVolumes, 0 "
        "StorageClasses (default: none), 0 CSINodes, 0 VolumeAttachments");
  CHECK(absl::StrContains(r.out,
                          "Pods not on a node: 1 unbound, 0 on nodes "
                          "missing from the snapshot"));
  // A NodePool row: name, node count, policy, budgets as written.
  CHECK(absl::StrContains(r.out, "default   4      WhenEmptyOrUnderutilized"));
  CHECK(absl::StrContains(r.out, "10%; 0 at \"@daily\" for 10m [Drifted]"));
  // Same input, same bytes.
  CHECK(Run({"inspect"}).out == r.out);
}

TEST_CASE("cli: inspect reads several files and counts skipped kinds",
          "[cli][inspect]") {
  const std::string pods =
      WriteTemp("pods.json",
                R"({"apiVersion":"v1","kind":"List","items":[
        {"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","namespace":"d"},
         "spec":{"nodeName":"n1"}},
        {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"x"}}]})");
  const std::string nodes =
      WriteTemp("nodes.yaml",
                "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n"
                "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: n2\n");
  Result r = Run({"inspect", "-f", pods, nodes});
  REQUIRE(r.status == kExitOk);
  CHECK(absl::StartsWith(r.out,
                         "Snapshot: 0 NodePools, 2 Nodes, 0 NodeClaims, 1 "
                         "Pods, 0 PodDisruptionBudgets, 0 DaemonSets\n"
                         "Storage: 0 PersistentVolumeClaims, 0 "
                         "PersistentVolumes, 0 StorageClasses (default: "
                         "none), 0 CSINodes, 0 VolumeAttachments\n"
                         "Skipped: Deployment 1\n"));
  CHECK(absl::StrContains(r.out, "n1    -         -              -     -    "));
}

TEST_CASE("cli: inspect counts volumes, classes, CSINodes and DaemonSets",
          "[cli][inspect]") {
  const std::string storage = WriteTemp("storage.json", R"({"kind":"List",
    "items":[
      {"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"}},
      {"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"pv-1"},
       "spec":{"claimRef":{"namespace":"db","name":"data"}}},
      {"apiVersion":"v1","kind":"PersistentVolumeClaim",
       "metadata":{"name":"data","namespace":"db"},
       "spec":{"volumeName":"pv-1"}},
      {"apiVersion":"storage.k8s.io/v1","kind":"StorageClass",
       "metadata":{"name":"gp2","creationTimestamp":"2023-01-01T00:00:00Z",
         "annotations":{"storageclass.kubernetes.io/is-default-class":"true"}},
       "provisioner":"kubernetes.io/aws-ebs"},
      {"apiVersion":"storage.k8s.io/v1","kind":"StorageClass",
       "metadata":{"name":"gp3","creationTimestamp":"2024-01-01T00:00:00Z",
         "annotations":{"storageclass.kubernetes.io/is-default-class":"true"}},
       "provisioner":"ebs.csi.aws.com",
       "volumeBindingMode":"WaitForFirstConsumer"},
      {"apiVersion":"storage.k8s.io/v1","kind":"CSINode",
       "metadata":{"name":"n1"},
       "spec":{"drivers":[{"name":"ebs.csi.aws.com","nodeID":"i-1",
                           "allocatable":{"count":25}}]}},
      {"apiVersion":"storage.k8s.io/v1","kind":"VolumeAttachment",
       "metadata":{"name":"csi-1"},"spec":{"nodeName":"n1"}}]})");
  const std::string daemon_sets = WriteTemp(
      "ds.yaml",
      "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: aws-node\n"
      "  namespace: kube-system\n---\napiVersion: apps/v1\nkind: DaemonSet\n"
      "metadata:\n  name: kube-proxy\n  namespace: kube-system\n");
  Result r = Run({"inspect", "-f", storage, daemon_sets});
  REQUIRE(r.status == kExitOk);
  CHECK(r.err.empty());
  CHECK(absl::StartsWith(r.out,
                         "Snapshot: 0 NodePools, 1 Nodes, 0 NodeClaims, 0 "
                         "Pods, 0 PodDisruptionBudgets, 2 DaemonSets\n"
                         "Storage: 1 PersistentVolumeClaims, 1 "
                         "PersistentVolumes, 2 StorageClasses (default: gp3), "
                         "1 CSINodes, 1 VolumeAttachments\n\n"));

  // An invalid class is one line naming the file, object, field and value.
  const std::string bad =
      WriteTemp("bad-class.yaml",
                "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n"
                "  name: fast\nprovisioner: ebs.csi.aws.com\n"
                "volumeBindingMode: Sometimes\n");
  Result rejected = Run({"inspect", "-f", bad});
  RequireOneErrorLine(rejected);
  CHECK(absl::StrContains(rejected.err,
                          "bad-class.yaml: document 1: StorageClass fast: "
                          "volumeBindingMode: expected \"Immediate\" or "
                          "\"WaitForFirstConsumer\", got \"Sometimes\""));
}

TEST_CASE("cli: inspect rejects malformed files with exit 2, never a crash",
          "[cli][inspect]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"truncated.json", R"({"kind":"Pod","metadata":{"name":"a")"},
      {"wrongtype.json", R"({"kind":"Pod","metadata":{"name":5}})"},
      {"badtime.yaml",
       "kind: Node\nmetadata:\n  name: n\n  creationTimestamp: yesterday\n"},
      {"nokind.yaml", "metadata:\n  name: n\n"},
      {"syntax.yaml", "kind: Node\nmetadata: [\n"},
      {"binary.bin", std::string("\x00\xff\xfe{[", 5)},
  };
  for (const auto& [name, text] : cases) {
    INFO(name);
    Result r = Run({"inspect", "-f", WriteTemp(name, text)});
    RequireOneErrorLine(r);
    CHECK(absl::StrContains(r.err, name));
  }
  Result missing = Run({"inspect", "-f", "/nonexistent/cluster.json"});
  RequireOneErrorLine(missing);
  CHECK(absl::StrContains(missing.err, "/nonexistent/cluster.json"));
  RequireOneErrorLine(Run({"inspect", "-f"}));
  RequireOneErrorLine(Run({"inspect", "--frobnicate"}));
}

TEST_CASE("cli: inspect rejects duplicate objects across files",
          "[cli][inspect]") {
  const std::string node = WriteTemp(
      "dup.yaml", "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n");
  Result r = Run({"inspect", node, node});
  RequireOneErrorLine(r);
  CHECK(absl::StrContains(r.err, "n1"));
}

}  // namespace
}  // namespace karpenter::cli
