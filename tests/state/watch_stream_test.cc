// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// WatchStreamDecoder: what `kubectl get --watch -o json` (with and without
// --output-watch-events) and `kubectl get -o json` print, fed in any
// chunking, becomes ClusterState events; bookmarks are skipped, ERROR
// events, bad values and cut streams are errors naming the value and line.

#include "karpenter/state/watch_stream.h"

#include <catch2/catch.hpp>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "karpenter/state/cluster_state.h"

namespace karpenter::state {
namespace {

// `kubectl get pods --watch --output-watch-events -o json`: one pod added,
// modified (its CPU request written as a number, as a client may send it)
// and deleted. managedFields as the API server returns them.
constexpr absl::string_view kPodEvents = R"({
    "type": "ADDED",
    "object": {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "creationTimestamp": "2026-11-27T01:00:00Z",
            "labels": {
                "app": "web"
            },
            "managedFields": [
                {
                    "apiVersion": "v1",
                    "fieldsType": "FieldsV1",
                    "fieldsV1": {
                        "f:metadata": {
                            "f:labels": {
                                ".": {},
                                "f:app": {}
                            }
                        },
                        "f:spec": {
                            "f:containers": {
                                "k:{\"name\":\"web\"}": {
                                    ".": {},
                                    "f:image": {},
                                    "f:name": {}
                                }
                            }
                        }
                    },
                    "manager": "kubectl-create",
                    "operation": "Update",
                    "time": "2026-11-27T01:00:00Z"
                }
            ],
            "name": "web-1",
            "namespace": "default",
            "resourceVersion": "1200",
            "uid": "6f1c2a8e-0d3b-4c1e-9a52-1b0e5f2c7d11"
        },
        "spec": {
            "containers": [
                {
                    "image": "nginx:1.27",
                    "name": "web",
                    "resources": {
                        "requests": {
                            "cpu": "250m",
                            "memory": "64Mi"
                        }
                    }
                }
            ],
            "nodeName": "ip-10-0-1-1.ec2.internal"
        },
        "status": {
            "phase": "Running"
        }
    }
}
{
    "type": "MODIFIED",
    "object": {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "managedFields": [
                {
                    "apiVersion": "v1",
                    "fieldsType": "FieldsV1",
                    "fieldsV1": {
                        "f:status": {
                            "f:phase": {}
                        }
                    },
                    "manager": "kubelet",
                    "operation": "Update",
                    "subresource": "status",
                    "time": "2026-11-27T01:00:05Z"
                }
            ],
            "name": "web-1",
            "namespace": "default",
            "resourceVersion": "1205"
        },
        "spec": {
            "containers": [
                {
                    "name": "web",
                    "resources": {
                        "requests": {
                            "cpu": 0.5,
                            "memory": 67108864
                        }
                    }
                }
            ],
            "nodeName": "ip-10-0-1-1.ec2.internal"
        }
    }
}
{
    "type": "DELETED",
    "object": {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "web-1",
            "namespace": "default",
            "resourceVersion": "1290"
        }
    }
}
)";

// The pod of an event.
const v1::Pod& PodOf(const Event& event) {
  REQUIRE(std::holds_alternative<v1::Pod>(event.object));
  return std::get<v1::Pod>(event.object);
}

// "<TYPE> <Kind> <namespace>/<name> @<origin>" per event, to compare runs.
std::vector<std::string> Summary(const std::vector<Event>& events) {
  std::vector<std::string> lines;
  for (const Event& e : events) {
    std::string ns, name, rv;
    std::visit(
        [&](const auto& object) {
          ns = object.metadata().namespace_();
          name = object.metadata().name();
          rv = object.metadata().resource_version();
        },
        e.object);
    lines.push_back(absl::StrCat(EventTypeName(e.type), " ", KindOf(e.object),
                                 " ", ns, "/", name, " rv=", rv, " @",
                                 e.origin));
  }
  return lines;
}

// The error message of decoding `text` in one chunk ("" if none).
std::string DecodeError(absl::string_view text) {
  absl::StatusOr<std::vector<Event>> events = DecodeWatchStream(text, "w.json");
  if (events.ok()) return "";
  CHECK(events.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(events.status().message());
}

TEST_CASE("Watch events as kubectl --output-watch-events prints them",
          "[watch-stream]") {
  absl::StatusOr<std::vector<Event>> events =
      DecodeWatchStream(kPodEvents, "stdin");
  REQUIRE(events.ok());
  REQUIRE(events->size() == 3);
  const std::vector<Event>& e = *events;
  CHECK(e[0].type == EventType::kAdded);
  CHECK(e[1].type == EventType::kModified);
  CHECK(e[2].type == EventType::kDeleted);
  CHECK(e[0].origin == "stdin: value 1");
  CHECK(e[1].origin == "stdin: value 2");
  CHECK(e[2].origin == "stdin: value 3");
  const v1::Pod& added = PodOf(e[0]);
  CHECK(added.metadata().name() == "web-1");
  CHECK(added.metadata().namespace_() == "default");
  CHECK(added.metadata().resource_version() == "1200");
  CHECK(added.metadata().labels().at("app") == "web");
  CHECK(added.spec().node_name() == "ip-10-0-1-1.ec2.internal");
  REQUIRE(added.spec().containers_size() == 1);
  CHECK(added.spec().containers(0).resources().requests().at("cpu") == "250m");
  // Quantities written as numbers keep the text they were written with.
  const v1::Pod& modified = PodOf(e[1]);
  CHECK(modified.metadata().resource_version() == "1205");
  REQUIRE(modified.spec().containers_size() == 1);
  CHECK(modified.spec().containers(0).resources().requests().at("cpu") ==
        "0.5");
  CHECK(modified.spec().containers(0).resources().requests().at("memory") ==
        "67108864");
  CHECK(PodOf(e[2]).metadata().resource_version() == "1290");
  CHECK(PodOf(e[2]).spec().containers_size() == 0);
}

TEST_CASE("Objects as kubectl get --watch -o json prints them are ADDED",
          "[watch-stream]") {
  // Without --output-watch-events kubectl prints each new version of an
  // object as it is: later versions of the same object are ADDED again.
  constexpr absl::string_view kStream = R"({
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {
        "labels": {
            "karpenter.sh/nodepool": "default",
            "node.kubernetes.io/instance-type": "m5.large"
        },
        "managedFields": [
            {
                "apiVersion": "v1",
                "fieldsType": "FieldsV1",
                "fieldsV1": {
                    "f:status": {
                        "f:capacity": {
                            "f:cpu": {}
                        }
                    }
                },
                "manager": "kubelet",
                "operation": "Update",
                "subresource": "status",
                "time": "2026-11-27T01:00:00Z"
            }
        ],
        "name": "ip-10-0-1-1.ec2.internal",
        "resourceVersion": "900"
    },
    "spec": {
        "providerID": "aws:///us-east-1a/i-0abc"
    },
    "status": {
        "allocatable": {
            "cpu": "1930m",
            "pods": "29"
        },
        "capacity": {
            "cpu": 2,
            "pods": "29"
        }
    }
}
{
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {
        "name": "ip-10-0-1-1.ec2.internal",
        "resourceVersion": "950"
    },
    "spec": {
        "providerID": "aws:///us-east-1a/i-0abc",
        "unschedulable": true
    }
}
)";
  absl::StatusOr<std::vector<Event>> events =
      DecodeWatchStream(kStream, "nodes.json");
  REQUIRE(events.ok());
  CHECK(Summary(*events) ==
        std::vector<std::string>{
            "ADDED Node /ip-10-0-1-1.ec2.internal rv=900 @nodes.json: value 1",
            "ADDED Node /ip-10-0-1-1.ec2.internal rv=950 @nodes.json: value "
            "2"});
  REQUIRE(std::holds_alternative<v1::Node>((*events)[0].object));
  const v1::Node& first = std::get<v1::Node>((*events)[0].object);
  CHECK(first.status().capacity().at("cpu") == "2");
  CHECK(first.status().allocatable().at("cpu") == "1930m");
  CHECK_FALSE(first.spec().unschedulable());
  CHECK(std::get<v1::Node>((*events)[1].object).spec().unschedulable());
}

// `kubectl get nodes,pods,pdb,nodepools,nodeclaims,volumeattachments,pvc,pv,
// storageclasses,csinodes,daemonsets,configmaps -A -o json`, cut to what
// each kind needs, every kind once and a ConfigMap the snapshot skips.
constexpr absl::string_view kAllKinds = R"({
    "apiVersion": "v1",
    "items": [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "managedFields": [
                    {
                        "apiVersion": "v1",
                        "fieldsType": "FieldsV1",
                        "fieldsV1": {
                            "f:spec": {
                                "f:providerID": {}
                            }
                        },
                        "manager": "aws-cloud-controller-manager",
                        "operation": "Update",
                        "time": "2026-11-27T00:00:00Z"
                    }
                ],
                "name": "node-a",
                "resourceVersion": "10"
            }
        },
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": "web-1",
                "namespace": "shop",
                "resourceVersion": "11"
            }
        },
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": "kube-root-ca.crt",
                "namespace": "shop",
                "resourceVersion": "12"
            },
            "data": {
                "ca.crt": "-----BEGIN CERTIFICATE-----\n{not json}\n"
            }
        },
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {
                "name": "web",
                "namespace": "shop",
                "resourceVersion": "13"
            },
            "spec": {
                "maxUnavailable": 1
            }
        },
        {
            "apiVersion": "karpenter.sh/v1",
            "kind": "NodePool",
            "metadata": {
                "name": "default",
                "resourceVersion": "14"
            },
            "spec": {
                "limits": {
                    "cpu": 1000
                }
            }
        },
        {
            "apiVersion": "karpenter.sh/v1",
            "kind": "NodeClaim",
            "metadata": {
                "name": "default-x7k2p",
                "resourceVersion": "15"
            }
        },
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "VolumeAttachment",
            "metadata": {
                "name": "csi-0123",
                "resourceVersion": "16"
            }
        },
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {
                "name": "data",
                "namespace": "shop",
                "resourceVersion": "17"
            }
        },
        {
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": {
                "name": "pv-data",
                "resourceVersion": "18"
            }
        },
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "StorageClass",
            "metadata": {
                "name": "gp3",
                "resourceVersion": "19"
            },
            "provisioner": "ebs.csi.aws.com",
            "volumeBindingMode": "WaitForFirstConsumer"
        },
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "CSINode",
            "metadata": {
                "name": "node-a",
                "resourceVersion": "20"
            },
            "spec": {
                "drivers": [
                    {
                        "name": "ebs.csi.aws.com",
                        "nodeID": "i-0abc"
                    }
                ]
            }
        },
        {
            "apiVersion": "apps/v1",
            "kind": "DaemonSet",
            "metadata": {
                "name": "aws-node",
                "namespace": "kube-system",
                "resourceVersion": "21"
            }
        }
    ],
    "kind": "List",
    "metadata": {
        "resourceVersion": ""
    }
}
)";

TEST_CASE("A List gives an ADDED event per item, every kind, in list order",
          "[watch-stream]") {
  WatchStreamDecoder decoder("dump.json");
  std::vector<Event> events;
  REQUIRE(decoder.Feed(kAllKinds, events).ok());
  REQUIRE(decoder.Finish().ok());
  CHECK(Summary(events) ==
        std::vector<std::string>{
            "ADDED Node /node-a rv=10 @dump.json: value 1: items[0]",
            "ADDED Pod shop/web-1 rv=11 @dump.json: value 1: items[1]",
            "ADDED PodDisruptionBudget shop/web rv=13 @dump.json: value 1: "
            "items[3]",
            "ADDED NodePool /default rv=14 @dump.json: value 1: items[4]",
            "ADDED NodeClaim /default-x7k2p rv=15 @dump.json: value 1: "
            "items[5]",
            "ADDED VolumeAttachment /csi-0123 rv=16 @dump.json: value 1: "
            "items[6]",
            "ADDED PersistentVolumeClaim shop/data rv=17 @dump.json: value "
            "1: items[7]",
            "ADDED PersistentVolume /pv-data rv=18 @dump.json: value 1: "
            "items[8]",
            "ADDED StorageClass /gp3 rv=19 @dump.json: value 1: items[9]",
            "ADDED CSINode /node-a rv=20 @dump.json: value 1: items[10]",
            "ADDED DaemonSet kube-system/aws-node rv=21 @dump.json: value 1: "
            "items[11]"});
  CHECK(decoder.skipped_kinds() ==
        std::map<std::string, int64_t>{{"ConfigMap", 1}});
  REQUIRE(events.size() == 11);
  const auto& pool = std::get<v1::NodePool>(events[3].object);
  CHECK(pool.spec().limits().at("cpu") == "1000");
  const auto& pdb = std::get<v1::PodDisruptionBudget>(events[2].object);
  CHECK(pdb.spec().max_unavailable().number_value() == 1);
}

TEST_CASE("A typed list as the API server returns it: items take its kind",
          "[watch-stream]") {
  constexpr absl::string_view kPodList = R"({
    "apiVersion": "v1",
    "items": [
        {
            "metadata": {
                "name": "a",
                "namespace": "default",
                "resourceVersion": "5"
            }
        },
        {
            "metadata": {
                "name": "b",
                "namespace": "default",
                "resourceVersion": "6"
            }
        }
    ],
    "kind": "PodList",
    "metadata": {
        "resourceVersion": "7"
    }
}
{
    "apiVersion": "v1",
    "items": [],
    "kind": "NodeList",
    "metadata": {
        "resourceVersion": "7"
    }
}
{
    "type": "ADDED",
    "object": {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "c",
            "namespace": "default",
            "resourceVersion": "8"
        }
    }
}
)";
  absl::StatusOr<std::vector<Event>> events =
      DecodeWatchStream(kPodList, "pods.json");
  REQUIRE(events.ok());
  CHECK(Summary(*events) ==
        std::vector<std::string>{
            "ADDED Pod default/a rv=5 @pods.json: value 1: items[0]",
            "ADDED Pod default/b rv=6 @pods.json: value 1: items[1]",
            "ADDED Pod default/c rv=8 @pods.json: value 3"});
}

TEST_CASE("BOOKMARK events are skipped but counted as values",
          "[watch-stream]") {
  constexpr absl::string_view kStream = R"({
    "type": "BOOKMARK",
    "object": {
        "kind": "Pod",
        "apiVersion": "v1",
        "metadata": {
            "resourceVersion": "12746",
            "annotations": {
                "k8s.io/initial-events-end": "true"
            }
        }
    }
}
{
    "type": "ADDED",
    "object": {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "web-2",
            "namespace": "default",
            "resourceVersion": "12750"
        }
    }
}
)";
  absl::StatusOr<std::vector<Event>> events = DecodeWatchStream(kStream, "w");
  REQUIRE(events.ok());
  // A bookmark's object has no name: decoded as a Pod it would be an event
  // for an unnamed pod.
  CHECK(
      Summary(*events) ==
      std::vector<std::string>{"ADDED Pod default/web-2 rv=12750 @w: value 2"});
  // A typed WatchEvent (metav1's kind) is an event too.
  events = DecodeWatchStream(
      R"({"kind": "WatchEvent", "apiVersion": "meta.k8s.io/v1",
  "type": "DELETED", "object": {"kind": "Node", "metadata": {"name": "a"}}})",
      "w");
  REQUIRE(events.ok());
  CHECK(Summary(*events) ==
        std::vector<std::string>{"DELETED Node /a rv= @w: value 1"});
  // So is one whose kind is null (absent, as the loaders read it).
  events = DecodeWatchStream(
      R"({"kind": null, "type": "ADDED", "object": {"kind": "Node",
  "metadata": {"name": "b"}}})",
      "w");
  REQUIRE(events.ok());
  CHECK(Summary(*events) ==
        std::vector<std::string>{"ADDED Node /b rv= @w: value 1"});
}

TEST_CASE("An ERROR event (410 Gone: the watch expired) is an error",
          "[watch-stream]") {
  const std::string stream = absl::StrCat(kPodEvents, R"json({
    "type": "ERROR",
    "object": {
        "apiVersion": "v1",
        "code": 410,
        "kind": "Status",
        "message": "too old resource version: 1200 (1500)",
        "metadata": {},
        "reason": "Expired",
        "status": "Failure"
}
}
{
    "type": "ADDED",
    "object": {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "after",
            "namespace": "default"
        }
    }
}
)json");
  WatchStreamDecoder decoder("stdin");
  std::vector<Event> events;
  const absl::Status status = decoder.Feed(stream, events);
  CHECK(status.code() == absl::StatusCode::kInvalidArgument);
  CHECK(status.message() ==
        "stdin: value 4 (line 115): ERROR event: \"too old resource version: "
        "1200 (1500)\" (reason \"Expired\", code 410)");
  // The events before the bad value stay; nothing after it is read.
  CHECK(events.size() == 3);
  CHECK_FALSE(decoder.AtBoundary());
  // The decoder stays failed.
  CHECK(decoder.Feed("{\"kind\": \"Node\", \"metadata\": {\"name\": \"n\"}}",
                     events) == status);
  CHECK(events.size() == 3);
  CHECK(decoder.Finish() == status);

  // A Status with only a code, and an ERROR without an object.
  CHECK(DecodeError(R"({"type": "ERROR", "object": {"kind": "Status",
  "code": 500}})") ==
        "w.json: value 1 (line 1): ERROR event: (no message) "
        "(code 500)");
  CHECK(DecodeError(R"({"type": "ERROR"})") ==
        "w.json: value 1 (line 1): ERROR event: object: expected a Status, "
        "got nothing");
}

TEST_CASE("Any chunking gives the same events", "[watch-stream]") {
  // A BOM, strings holding braces, brackets, escaped quotes and a trailing
  // escaped backslash, values on one line and blank lines between them.
  const std::string stream = absl::StrCat(
      "\xEF\xBB\xBF",
      R"({"type": "ADDED", "object": {"kind": "Pod", "metadata": {"name": "p}{1", "namespace": "n\"s", "resourceVersion": "1", "labels": {"x": "}]\\", "y": "[{\"\\\"}"}}}}


{
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {
        "name": "c"
    },
    "data": {
        "k": "{{{[[["
    }
}
{"type": "BOOKMARK", "object": {"kind": "Pod", "metadata": {"resourceVersion": "2"}}}{"type": "DELETED", "object": {"kind": "Node", "metadata": {"name": "n]", "resourceVersion": "3"}}}
)");
  absl::StatusOr<std::vector<Event>> whole = DecodeWatchStream(stream, "s");
  REQUIRE(whole.ok());
  const std::vector<std::string> expected = Summary(*whole);
  REQUIRE(expected ==
          std::vector<std::string>{"ADDED Pod n\"s/p}{1 rv=1 @s: value 1",
                                   "DELETED Node /n] rv=3 @s: value 4"});
  const v1::Pod& pod = PodOf((*whole)[0]);
  CHECK(pod.metadata().labels().at("x") == "}]\\");
  CHECK(pod.metadata().labels().at("y") == "[{\"\\\"}");

  SECTION("split in two at every byte") {
    for (size_t split = 0; split <= stream.size(); ++split) {
      INFO("split at " << split);
      WatchStreamDecoder decoder("s");
      std::vector<Event> events;
      REQUIRE(decoder.Feed(absl::string_view(stream).substr(0, split), events)
                  .ok());
      REQUIRE(
          decoder.Feed(absl::string_view(stream).substr(split), events).ok());
      REQUIRE(decoder.Finish().ok());
      CHECK(Summary(events) == expected);
      CHECK(decoder.skipped_kinds() ==
            std::map<std::string, int64_t>{{"ConfigMap", 1}});
    }
  }
  SECTION("byte by byte, at a boundary exactly between values") {
    WatchStreamDecoder decoder("s");
    std::vector<Event> events;
    size_t boundaries = 0;
    for (size_t i = 0; i < stream.size(); ++i) {
      REQUIRE(
          decoder.Feed(absl::string_view(stream).substr(i, 1), events).ok());
      // A prefix is at a boundary exactly when it is a whole stream by
      // itself, and then it gives the events fed so far.
      const std::string prefix = stream.substr(0, i + 1);
      absl::StatusOr<std::vector<Event>> alone = DecodeWatchStream(prefix, "s");
      INFO("after " << i + 1 << " bytes");
      CHECK(decoder.AtBoundary() == alone.ok());
      if (alone.ok()) {
        CHECK(Summary(*alone) == Summary(events));
        ++boundaries;
      }
    }
    REQUIRE(decoder.Finish().ok());
    CHECK(Summary(events) == expected);
    // After the BOM, each value and each whitespace byte between values.
    CHECK(boundaries == 10);
  }
}

TEST_CASE("AtBoundary says whether a value is unfinished", "[watch-stream]") {
  WatchStreamDecoder decoder("s");
  std::vector<Event> events;
  CHECK(decoder.AtBoundary());
  REQUIRE(decoder.Feed("\n  ", events).ok());
  CHECK(decoder.AtBoundary());
  REQUIRE(
      decoder.Feed("{\"kind\": \"Node\", \"metadata\": {\"name\": \"a}", events)
          .ok());
  CHECK_FALSE(decoder.AtBoundary());  // Inside a string holding '}'.
  REQUIRE(decoder.Feed("\"}", events).ok());
  CHECK_FALSE(decoder.AtBoundary());  // One brace still open.
  CHECK(events.empty());
  REQUIRE(decoder.Feed("}", events).ok());
  CHECK(decoder.AtBoundary());
  REQUIRE(events.size() == 1);
  CHECK(std::get<v1::Node>(events[0].object).metadata().name() == "a}");
  REQUIRE(decoder.Feed("\n{", events).ok());
  CHECK_FALSE(decoder.AtBoundary());
  // A lone first byte of a BOM is not a boundary either.
  WatchStreamDecoder bom("s");
  REQUIRE(bom.Feed("\xEF", events).ok());
  CHECK_FALSE(bom.AtBoundary());
  REQUIRE(bom.Feed("\xBB\xBF", events).ok());
  CHECK(bom.AtBoundary());
}

TEST_CASE("Finish on a cut stream names the unfinished value",
          "[watch-stream]") {
  const absl::string_view whole = kPodEvents;
  // Cut inside the second event's managedFields string.
  const size_t cut = whole.find("kubelet") + 3;
  WatchStreamDecoder decoder("stdin");
  std::vector<Event> events;
  REQUIRE(decoder.Feed(whole.substr(0, cut), events).ok());
  CHECK(events.size() == 1);
  const absl::Status status = decoder.Finish();
  CHECK(status.message() ==
        "stdin: value 2 (line 62): the stream ends inside the value (in a "
        "string, 5 unclosed brackets)");
  CHECK(decoder.Feed("x", events) == status);

  // Whitespace after the last value is fine; so is an empty stream.
  CHECK(DecodeWatchStream(" \n\t\r\n", "s").ok());
  CHECK(DecodeWatchStream("", "s")->empty());
  CHECK(DecodeError("{\"kind\": \"Node\"}\n{\"kind\":") ==
        "w.json: value 2 (line 2): the stream ends inside the value (1 "
        "unclosed bracket)");
}

TEST_CASE("A UTF-8 BOM is read at the very start only", "[watch-stream]") {
  absl::StatusOr<std::vector<Event>> events = DecodeWatchStream(
      "\xEF\xBB\xBF{\"kind\": \"Node\", \"metadata\": {\"name\": \"a\"}}", "s");
  REQUIRE(events.ok());
  CHECK(Summary(*events) ==
        std::vector<std::string>{"ADDED Node /a rv= @s: value 1"});
  CHECK(DecodeError("{\"kind\": \"Node\"}\n\xEF\xBB\xBF{\"kind\": \"Node\"}") ==
        "w.json: value 2 (line 2): expected an object, got '\\xef'");
  CHECK(DecodeError("\xEF\xBB{}") ==
        "w.json: invalid JSON at line 1, column 1: a cut UTF-8 byte order "
        "mark");
  // Columns count from after the BOM.
  CHECK(DecodeError("\xEF\xBB\xBF  {\"kind\" 1}") ==
        "w.json: value 1 (line 1): kind: invalid JSON at line 1, column 11: "
        "expected ':' after key");
  CHECK(DecodeError("\xEF") ==
        "w.json: invalid JSON at line 1, column 1: a cut UTF-8 byte order "
        "mark");
}

TEST_CASE("Kinds a snapshot does not hold are skipped and counted",
          "[watch-stream]") {
  // A Secret has a top-level `type`, but a `kind` too: an object, not an
  // event.
  constexpr absl::string_view kStream = R"({
    "apiVersion": "v1",
    "kind": "Secret",
    "metadata": {
        "name": "token",
        "namespace": "default"
    },
    "type": "Opaque"
}
{
    "type": "MODIFIED",
    "object": {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": "c",
            "namespace": "default"
        }
    }
}
{
    "type": "DELETED",
    "object": {
        "apiVersion": "v2",
        "kind": "Pod",
        "metadata": {
            "name": "future",
            "namespace": "default"
        }
    }
}
{
    "type": "ADDED",
    "object": {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": "d",
            "namespace": "default"
        }
    }
}
)";
  std::map<std::string, int64_t> skipped = {{"Lease", 2}};
  absl::StatusOr<std::vector<Event>> events =
      DecodeWatchStream(kStream, "s", &skipped);
  REQUIRE(events.ok());
  CHECK(events->empty());
  // Added to what the map held.
  CHECK(skipped ==
        std::map<std::string, int64_t>{
            {"ConfigMap", 2}, {"Lease", 2}, {"Pod (v2)", 1}, {"Secret", 1}});
}

TEST_CASE("Bad values are errors naming the value, its line and the field",
          "[watch-stream]") {
  // LoadJson's message (object and field) after the value.
  CHECK(DecodeError(R"({"kind": "Node", "metadata": {"name": "a"}}
{
    "type": "MODIFIED",
    "object": {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "web-1",
            "namespace": "default"
        },
        "spec": {
            "terminationGracePeriodSeconds": "abc"
        }
    }
})") == "w.json: value 2 (line 2): MODIFIED event: Pod default/web-1: "
        "spec.terminationGracePeriodSeconds: expected an integer, got \"abc\"");
  CHECK(DecodeError(R"({
    "apiVersion": "v1",
    "items": [
        {
            "apiVersion": "karpenter.sh/v1",
            "kind": "NodePool",
            "metadata": {
                "name": "default"
            },
            "spec": {
                "limits": {
                    "cpu": true
                }
            }
        }
    ],
    "kind": "List"
})") == "w.json: value 1 (line 1): items[0] (NodePool default): "
        "spec.limits[\"cpu\"]: expected a string, got a boolean true");
  // Syntax errors: the position is the stream's, not the value's.
  CHECK(DecodeError("{\"kind\": \"Node\"}\n\n  {\"kind\": \"Node\",\n"
                    "  \"metadata\": {\"name\": \"a\",}}") ==
        "w.json: value 2 (line 3): metadata: invalid JSON at line 4, column "
        "28: expected a string key");
  CHECK(DecodeError("  {\"kind\": \"Node\" \"x\"}") ==
        "w.json: value 1 (line 1): kind: invalid JSON at line 1, column 19: "
        "expected ',' or '}'");
  // A mismatched bracket ends the value at once.
  CHECK(DecodeError("{\"items\": [}\n{\"kind\": \"Node\"}") ==
        "w.json: value 1 (line 1): items[0]: invalid JSON at line 1, column "
        "12: unexpected character '}'");
  // Top-level values that are not objects.
  CHECK(DecodeError("[\n    {\"kind\": \"Node\"}\n]") ==
        "w.json: value 1 (line 1): expected an object, got an array");
  CHECK(DecodeError("{\"kind\": \"Node\", \"metadata\": {\"name\": \"a\"}},\n"
                    "{\"kind\": \"Node\"}") ==
        "w.json: value 2 (line 1): expected an object, got ','");
  CHECK(DecodeError("\n\"ADDED\"") ==
        "w.json: value 1 (line 2): expected an object, got a string");
  CHECK(DecodeError("42") ==
        "w.json: value 1 (line 1): expected an object, got a number");
  // Watch events that are not.
  CHECK(DecodeError(R"({"type": "UPDATED", "object": {"kind": "Pod"}})") ==
        "w.json: value 1 (line 1): type: expected \"ADDED\", \"MODIFIED\", "
        "\"DELETED\", \"BOOKMARK\" or \"ERROR\", got \"UPDATED\"");
  CHECK(DecodeError(R"({"type": 1, "object": {"kind": "Pod"}})") ==
        "w.json: value 1 (line 1): type: expected a string, got a number");
  CHECK(DecodeError(R"({"object": {"kind": "Pod"}})") ==
        "w.json: value 1 (line 1): watch event has no type");
  CHECK(DecodeError(R"({"type": "ADDED"})") ==
        "w.json: value 1 (line 1): ADDED event has no object");
  CHECK(DecodeError(R"({"type": "DELETED", "object": null})") ==
        "w.json: value 1 (line 1): DELETED event: object: expected an "
        "object, got null");
  CHECK(DecodeError(R"({"type": "ADDED", "object": {"kind": "PodList",
  "items": []}})") ==
        "w.json: value 1 (line 1): ADDED event: object: "
        "expected a single object, got a PodList");
  CHECK(DecodeError(R"({"type": "ADDED", "object": {"metadata": {}}})") ==
        "w.json: value 1 (line 1): ADDED event: object has no kind");
  // Neither an event nor an object: LoadJson names it.
  CHECK(DecodeError(R"({"metadata": {"name": "x"}})") ==
        "w.json: value 1 (line 1): object x: object has no kind");
}

TEST_CASE("Nesting deeper than the loaders read is refused at once",
          "[watch-stream]") {
  WatchStreamDecoder decoder("s");
  std::vector<Event> events;
  const std::string deep = "{\"a\":" + std::string(200, '[');
  const absl::Status status = decoder.Feed(deep, events);
  CHECK(status.code() == absl::StatusCode::kInvalidArgument);
  CHECK(status.message().find("s: value 1 (line 1): ") == 0);
  CHECK(status.message().find("deeper than 100") != absl::string_view::npos);
}

TEST_CASE("A value larger than 256 MiB is refused", "[watch-stream]") {
  constexpr size_t kMax = size_t{256} << 20;
  // One buffer serves both cases (the test holds 256 MiB, no more).
  const std::string open = "{\"kind\": \"ConfigMap\", \"x\": \"";
  const std::string close = "\"}";
  std::string value = open;
  value.resize(kMax - close.size(), 'y');
  value += close;
  REQUIRE(value.size() == kMax);

  // A value of exactly 256 MiB is read, in one chunk or cut in two.
  std::vector<Event> events;
  WatchStreamDecoder exact("big.json");
  REQUIRE(exact.Feed(value, events).ok());
  CHECK(exact.skipped_kinds() ==
        std::map<std::string, int64_t>{{"ConfigMap", 1}});
  CHECK(exact.AtBoundary());

  // One byte more is refused, whether the value's end is in the chunk or
  // still to come: the decoder does not buffer it to find out.
  value.insert(open.size(), "z");
  WatchStreamDecoder whole("big.json");
  REQUIRE(whole.Feed("{\n\"kind\": \"ConfigMap\"}\n", events).ok());
  absl::Status status = whole.Feed(value, events);
  CHECK(status.message() ==
        "big.json: value 2 (line 3): the value is larger than 256 MiB");
  CHECK(whole.skipped_kinds() ==
        std::map<std::string, int64_t>{{"ConfigMap", 1}});

  // Cut before its end: refused as soon as more than 256 MiB is fed.
  value.insert(open.size(), "z");
  WatchStreamDecoder cut("big.json");
  REQUIRE(cut.Feed(absl::string_view(value).substr(0, 10), events).ok());
  status = cut.Feed(absl::string_view(value).substr(10, kMax - 9), events);
  CHECK(status.message() ==
        "big.json: value 1 (line 1): the value is larger than 256 MiB");
  CHECK(cut.Feed("\"}", events) == status);
  CHECK(cut.skipped_kinds().empty());
  CHECK(events.empty());
}

TEST_CASE("EventTypeName and KindOf", "[watch-stream]") {
  CHECK(EventTypeName(EventType::kAdded) == "ADDED");
  CHECK(EventTypeName(EventType::kModified) == "MODIFIED");
  CHECK(EventTypeName(EventType::kDeleted) == "DELETED");
  CHECK(KindOf(Object(v1::Node())) == "Node");
  CHECK(KindOf(Object(v1::PodDisruptionBudget())) == "PodDisruptionBudget");
  CHECK(KindOf(Object(v1::CSINode())) == "CSINode");
  CHECK(KindOf(Object(v1::DaemonSet())) == "DaemonSet");
}

}  // namespace
}  // namespace karpenter::state
