// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/drain/eviction_queue.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "karpenter/eviction_client.h"

namespace karpenter::drain {
namespace {

using K = std::vector<std::string>;

const absl::Time t0 = absl::FromUnixSeconds(1'700'000'000);
const absl::Duration ms = absl::Milliseconds(1);

PodRef Pod(const std::string& name, const std::string& uid = "") {
  return PodRef{"ns", name, uid.empty() ? "uid-" + name : uid};
}

EvictionQueue MakeQueue(const EvictionQueueOptions& options = {}) {
  absl::StatusOr<EvictionQueue> q = EvictionQueue::Create(options);
  REQUIRE(q.ok());
  return std::move(*q);
}

// The name of the pod Pop hands out at `now`, "-" if none; "!" marks a
// force-delete.
std::string PopName(EvictionQueue& q, absl::Time now) {
  std::optional<EvictionWork> w = q.Pop(now);
  if (!w.has_value()) return "-";
  const std::string name(w->pod.name);
  return w->kind == EvictionWorkKind::kForceDelete ? "!" + name : name;
}

void AddOk(EvictionQueue& q, const PodRef& pod, const K& keys,
           absl::Time deadline = absl::InfiniteFuture()) {
  REQUIRE(q.Add(pod, keys, deadline).ok());
}

EvictionCompletion CompleteOk(EvictionQueue& q, const std::string& name,
                              EvictionResult result, absl::Time now) {
  absl::StatusOr<EvictionCompletion> c = q.Complete("uid-" + name, result, now);
  REQUIRE(c.ok());
  return *c;
}

EvictionItemState StateOf(const EvictionQueue& q, const std::string& name,
                          absl::Time now) {
  absl::StatusOr<EvictionItemStatus> s = q.Inspect("uid-" + name, now);
  REQUIRE(s.ok());
  return s->state;
}

TEST_CASE("eviction queue: each eviction response is done or backs off",
          "[eviction-queue]") {
  struct Row {
    EvictionResult result;
    bool done;
    std::string event;  // "" = no event
  };
  const Row rows[] = {
      {EvictionResult::kEvicted, true, ""},
      {EvictionResult::kNotFound, true, ""},
      {EvictionResult::kConflict, true, ""},
      {EvictionResult::kBlockedByPdb, false,
       "Failed to drain node, evicting pod violates a PDB (Pod=ns/a)"},
      {EvictionResult::kMisconfigured, false,
       "Failed to drain node, eviction does not support multiple PDBs "
       "(Pod=ns/a)"},
      {EvictionResult::kOtherError, false, ""},
  };
  for (const Row& row : rows) {
    INFO(EvictionResultName(row.result));
    EvictionQueue q = MakeQueue();
    AddOk(q, Pod("a"), {"ns/web"});
    AddOk(q, Pod("b"), {"ns/web"});
    REQUIRE(PopName(q, t0) == "a");
    CHECK(PopName(q, t0) == "-");  // b waits for the key
    const EvictionCompletion c = CompleteOk(q, "a", row.result, t0);
    CHECK(c.done == row.done);
    CHECK(c.event.has_value() == !row.event.empty());
    if (c.event.has_value()) {
      CHECK(c.event->reason == "FailedDraining");
      CHECK(c.event->message == row.event);
    }
    CHECK(q.size() == (row.done ? 1u : 2u));
    CHECK(q.in_flight() == 0);
    CHECK(q.counters().eviction_results[static_cast<size_t>(row.result)] == 1);
    if (!row.done) {
      CHECK(c.failures == 1);
      CHECK(c.backoff == absl::Milliseconds(100));
      CHECK(c.retry_at == t0 + absl::Milliseconds(100));
      CHECK(StateOf(q, "a", t0) == EvictionItemState::kBackingOff);
    } else {
      CHECK(q.Inspect("uid-a", t0).status().code() ==
            absl::StatusCode::kNotFound);
    }
    // The key slot is released either way: b goes next.
    CHECK(PopName(q, t0) == "b");
  }
}

TEST_CASE("eviction queue: backoff doubles from 100ms and caps at 10s",
          "[eviction-queue]") {
  EvictionQueue q = MakeQueue();
  AddOk(q, Pod("a"), {"ns/web"});
  const int64_t want_ms[] = {100,  200,  400,   800,   1600,
                             3200, 6400, 10000, 10000, 10000};
  absl::Time now = t0;
  int failures = 0;
  for (int64_t w : want_ms) {
    INFO("failure " << failures + 1);
    REQUIRE(PopName(q, now) == "a");
    const EvictionCompletion c =
        CompleteOk(q, "a", EvictionResult::kBlockedByPdb, now);
    CHECK(c.failures == ++failures);
    CHECK(c.backoff == absl::Milliseconds(w));
    CHECK(q.NextReadyTime() == now + absl::Milliseconds(w));
    CHECK(PopName(q, now + absl::Milliseconds(w) - absl::Nanoseconds(1)) ==
          "-");
    now += absl::Milliseconds(w);
  }
  REQUIRE(PopName(q, now) == "a");
}

TEST_CASE("eviction queue: success forgets the failure count",
          "[eviction-queue]") {
  EvictionQueue q = MakeQueue();
  AddOk(q, Pod("a"), {});
  absl::Time now = t0;
  for (int i = 0; i < 3; ++i) {
    REQUIRE(PopName(q, now) == "a");
    now = CompleteOk(q, "a", EvictionResult::kOtherError, now).retry_at;
  }
  REQUIRE(PopName(q, now) == "a");
  std::optional<EvictionWork> w;
  CHECK(CompleteOk(q, "a", EvictionResult::kEvicted, now).done);
  // The same pod (say, the host re-adds it after a stale read) starts over.
  AddOk(q, Pod("a"), {});
  w = q.Pop(now);
  REQUIRE(w.has_value());
  CHECK(w->failures == 0);
  CHECK(CompleteOk(q, "a", EvictionResult::kOtherError, now).backoff ==
        absl::Milliseconds(100));
}

TEST_CASE("eviction queue: token bucket gives the burst then paces at qps",
          "[eviction-queue]") {
  EvictionQueueOptions o;
  o.qps = 100;  // one token every 10ms
  o.burst = 3;
  EvictionQueue q = MakeQueue(o);
  for (int i = 0; i < 10; ++i) AddOk(q, Pod(absl::StrCat("p", i)), {});
  CHECK(PopName(q, t0) == "p0");
  CHECK(PopName(q, t0) == "p1");
  CHECK(PopName(q, t0) == "p2");
  CHECK(PopName(q, t0) == "-");
  CHECK(StateOf(q, "p3", t0) == EvictionItemState::kWaitingForToken);
  CHECK(q.Inspect("uid-p3", t0)->until == t0 + 10 * ms);
  CHECK(q.NextReadyTime() == t0 + 10 * ms);
  CHECK(PopName(q, t0 + 10 * ms - absl::Nanoseconds(1)) == "-");
  CHECK(PopName(q, t0 + 10 * ms) == "p3");
  CHECK(PopName(q, t0 + 10 * ms) == "-");
  CHECK(q.NextReadyTime() == t0 + 20 * ms);
  CHECK(PopName(q, t0 + 25 * ms) == "p4");
  // Refill is continuous: the half token accrued between 20ms and 25ms is
  // kept, so the next whole token is there at 30ms, not 35ms.
  CHECK(q.NextReadyTime() == t0 + 30 * ms);
  CHECK(PopName(q, t0 + 30 * ms) == "p5");
  // A long idle refills to the burst, not beyond.
  const absl::Time later = t0 + absl::Seconds(10);
  CHECK(PopName(q, later) == "p6");
  CHECK(PopName(q, later) == "p7");
  CHECK(PopName(q, later) == "p8");
  CHECK(PopName(q, later) == "-");
  CHECK(q.NextReadyTime() == later + 10 * ms);
}

TEST_CASE("eviction queue: default bucket is 1000 burst at 100 qps",
          "[eviction-queue]") {
  EvictionQueue q = MakeQueue();
  CHECK(q.options().qps == 100);
  CHECK(q.options().burst == 1000);
  for (int i = 0; i < 1001; ++i) AddOk(q, Pod(absl::StrCat("p", i)), {});
  for (int i = 0; i < 1000; ++i) REQUIRE(q.Pop(t0).has_value());
  CHECK(PopName(q, t0) == "-");
  CHECK(q.NextReadyTime() == t0 + 10 * ms);
}

TEST_CASE(
    "eviction queue: Add de-duplicates by UID, keeping the earliest "
    "deadline",
    "[eviction-queue]") {
  EvictionQueue q = MakeQueue();
  AddOk(q, Pod("a"), {"ns/web"}, t0 + absl::Seconds(60));
  AddOk(q, Pod("a"), {"ns/web"}, t0 + absl::Seconds(120));  // no loosening
  AddOk(q, Pod("a"), {"ns/web"});                           // no clearing
  CHECK(q.Inspect("uid-a", t0)->deadline == t0 + absl::Seconds(60));
  AddOk(q, Pod("a"), {"ns/web"}, t0 + absl::Seconds(30));  // tightening
  CHECK(q.Inspect("uid-a", t0)->deadline == t0 + absl::Seconds(30));
  CHECK(q.size() == 1);
  CHECK(q.counters().added == 1);
  CHECK(q.counters().deduplicated == 3);

  // Keep the key busy so the pod can only leave as a force-delete.
  EvictionQueue busy = MakeQueue();
  AddOk(busy, Pod("blocker"), {"ns/web"});
  REQUIRE(PopName(busy, t0) == "blocker");
  AddOk(busy, Pod("a"), {"ns/web"}, t0 + absl::Seconds(60));
  AddOk(busy, Pod("a"), {"ns/web"}, t0 + absl::Seconds(30));
  CHECK(busy.NextReadyTime() == t0 + absl::Seconds(30));
  CHECK(PopName(busy, t0 + absl::Seconds(30) - absl::Nanoseconds(1)) == "-");
  std::optional<EvictionWork> w = busy.Pop(t0 + absl::Seconds(30));
  REQUIRE(w.has_value());
  CHECK(w->kind == EvictionWorkKind::kForceDelete);
  CHECK(w->deadline == t0 + absl::Seconds(30));
  // An in-flight pod's deadline can still only tighten.
  AddOk(busy, Pod("a"), {"ns/web"}, t0 + absl::Seconds(90));
  CHECK(busy.Inspect("uid-a", t0)->deadline == t0 + absl::Seconds(30));
}

TEST_CASE("eviction queue: a same-name pod with another UID is distinct",
          "[eviction-queue]") {
  EvictionQueue q = MakeQueue();
  AddOk(q, Pod("a", "uid-1"), {});
  AddOk(q, Pod("a", "uid-2"), {});
  CHECK(q.size() == 2);
  std::optional<EvictionWork> w1 = q.Pop(t0);
  std::optional<EvictionWork> w2 = q.Pop(t0);
  REQUIRE(w1.has_value());
  REQUIRE(w2.has_value());
  CHECK(w1->pod.uid == "uid-1");
  CHECK(w2->pod.uid == "uid-2");
  // Completing the first does not touch the second.
  REQUIRE(q.Complete("uid-1", EvictionResult::kEvicted, t0).ok());
  CHECK(q.size() == 1);
  CHECK(q.Inspect("uid-2", t0)->state == EvictionItemState::kInFlight);
  // One UID cannot name two pods.
  const absl::Status s = q.Add(PodRef{"ns", "b", "uid-2"}, {});
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  CHECK(s.message() ==
        "pod.uid \"uid-2\": already queued as \"ns/a\", not \"ns/b\"");
}

TEST_CASE("eviction queue: one eviction in flight per PDB key",
          "[eviction-queue]") {
  EvictionQueue q = MakeQueue();
  AddOk(q, Pod("a"), {"ns/web"});
  AddOk(q, Pod("b"), {"ns/web"});
  AddOk(q, Pod("c"), {"ns/db"});
  CHECK(PopName(q, t0) == "a");
  CHECK(PopName(q, t0) == "c");  // another key is not held up
  CHECK(PopName(q, t0) == "-");
  CHECK(q.NextReadyTime() == absl::InfiniteFuture());
  absl::StatusOr<EvictionItemStatus> s = q.Inspect("uid-b", t0);
  REQUIRE(s.ok());
  CHECK(s->state == EvictionItemState::kWaitingForKey);
  CHECK(s->pdb_keys == K{"ns/web"});
  CHECK(s->message ==
        "\"ns/b\": waiting for PDB \"ns/web\": 1 eviction(s) in flight "
        "(max 1)");
  CompleteOk(q, "a", EvictionResult::kEvicted, t0 + ms);
  CHECK(q.NextReadyTime() <= t0 + ms);
  CHECK(PopName(q, t0 + ms) == "b");
}

TEST_CASE("eviction queue: max_in_flight_per_key 2 lets two through",
          "[eviction-queue]") {
  EvictionQueueOptions o;
  o.max_in_flight_per_key = 2;
  EvictionQueue q = MakeQueue(o);
  for (const char* n : {"a", "b", "c"}) AddOk(q, Pod(n), {"ns/web"});
  CHECK(PopName(q, t0) == "a");
  CHECK(PopName(q, t0) == "b");
  CHECK(PopName(q, t0) == "-");
  CHECK(StateOf(q, "c", t0) == EvictionItemState::kWaitingForKey);
  CompleteOk(q, "b", EvictionResult::kBlockedByPdb, t0);
  CHECK(PopName(q, t0) == "c");
}

TEST_CASE("eviction queue: pods without a PDB are not serialised",
          "[eviction-queue]") {
  EvictionQueue q = MakeQueue();
  for (const char* n : {"a", "b", "c"}) AddOk(q, Pod(n), {});
  CHECK(PopName(q, t0) == "a");
  CHECK(PopName(q, t0) == "b");
  CHECK(PopName(q, t0) == "c");
  CHECK(q.in_flight() == 3);
}

TEST_CASE(
    "eviction queue: a pod under several PDBs is held as "
    "misconfigured",
    "[eviction-queue]") {
  EvictionQueue q = MakeQueue();
  AddOk(q, Pod("a"), {"ns/z", "ns/b", "ns/z"});
  CHECK(PopName(q, t0) == "-");
  CHECK(q.NextReadyTime() == absl::InfiniteFuture());
  absl::StatusOr<EvictionItemStatus> s = q.Inspect("uid-a", t0);
  REQUIRE(s.ok());
  CHECK(s->state == EvictionItemState::kHeldMisconfigured);
  CHECK(s->until == absl::InfiniteFuture());
  CHECK(s->pdb_keys == K{"ns/b", "ns/z"});
  CHECK(absl::StrContains(s->message, "several PDBs (ns/b, ns/z)"));

  SECTION("a deadline force-deletes it") {
    AddOk(q, Pod("a"), {"ns/b", "ns/z"}, t0 + absl::Seconds(5));
    CHECK(q.Inspect("uid-a", t0)->until == t0 + absl::Seconds(5));
    CHECK(q.NextReadyTime() == t0 + absl::Seconds(5));
    CHECK(PopName(q, t0 + absl::Seconds(5)) == "!a");
  }
  SECTION("re-adding it under one PDB releases it") {
    AddOk(q, Pod("a"), {"ns/b"});
    CHECK(PopName(q, t0) == "a");
  }
  SECTION("a pod under two distinct keys spelled twice is not held") {
    AddOk(q, Pod("d"), {"ns/b", "ns/b"});
    CHECK(PopName(q, t0) == "d");
  }
}

TEST_CASE("eviction queue: per-pod mode hands out every pod of a PDB",
          "[eviction-queue]") {
  EvictionQueueOptions o;
  o.mode = EvictionQueueMode::kPerPod;
  EvictionQueue q = MakeQueue(o);
  AddOk(q, Pod("a"), {"ns/web"});
  AddOk(q, Pod("b"), {"ns/web"});
  AddOk(q, Pod("m"), {"ns/web", "ns/db"});
  CHECK(PopName(q, t0) == "a");
  CHECK(PopName(q, t0) == "b");
  // Karpenter tries the misconfigured pod; the API server says 500.
  CHECK(PopName(q, t0) == "m");
  const EvictionCompletion c =
      CompleteOk(q, "m", EvictionResult::kMisconfigured, t0);
  REQUIRE(c.event.has_value());
  CHECK(c.event->message ==
        "Failed to drain node, eviction does not support multiple PDBs "
        "(Pod=ns/m)");
  CHECK(c.retry_at == t0 + absl::Milliseconds(100));
  CHECK(q.Inspect("uid-m", t0)->pdb_keys == K{"ns/db", "ns/web"});
}

TEST_CASE("eviction queue: force-deletes bypass keys and go first",
          "[eviction-queue]") {
  EvictionQueue q = MakeQueue();
  AddOk(q, Pod("a"), {"ns/web"});
  AddOk(q, Pod("b"), {"ns/web"}, t0 + absl::Seconds(5));
  AddOk(q, Pod("c"), {"ns/db"});
  REQUIRE(PopName(q, t0) == "a");
  CHECK(StateOf(q, "b", t0) == EvictionItemState::kWaitingForKey);
  const absl::Time due = t0 + absl::Seconds(5);
  // c was ready first, but b's deadline passed: b goes first, key or not.
  CHECK(StateOf(q, "b", due) == EvictionItemState::kReady);
  CHECK(q.Inspect("uid-b", due)->kind == EvictionWorkKind::kForceDelete);
  CHECK(PopName(q, due) == "!b");
  CHECK(PopName(q, due) == "c");
  // A failed force-delete backs off (no hot loop) and raises no event.
  EvictionCompletion fc = CompleteOk(q, "b", EvictionResult::kOtherError, due);
  CHECK_FALSE(fc.done);
  CHECK_FALSE(fc.event.has_value());
  CHECK(fc.retry_at == due + absl::Milliseconds(100));
  CHECK(PopName(q, due) == "-");
  CHECK(q.NextReadyTime() == due + absl::Milliseconds(100));
  CHECK(PopName(q, due + absl::Milliseconds(100)) == "!b");
  CHECK(CompleteOk(q, "b", EvictionResult::kNotFound, due).done);
  CHECK(q.counters().popped_force_deletes == 2);
  CHECK(q.counters().force_delete_results[static_cast<size_t>(
            EvictionResult::kOtherError)] == 1);
  // The force-delete held no key slot: a is still the only one on ns/web.
  AddOk(q, Pod("d"), {"ns/web"});
  CHECK(PopName(q, due) == "-");
  CompleteOk(q, "a", EvictionResult::kEvicted, due);
  CHECK(PopName(q, due) == "d");
}

TEST_CASE("eviction queue: NextReadyTime is exact", "[eviction-queue]") {
  EvictionQueue q = MakeQueue();
  CHECK(q.NextReadyTime() == absl::InfiniteFuture());
  AddOk(q, Pod("a"), {"ns/web"});
  CHECK(q.NextReadyTime() == absl::InfinitePast());  // ready whenever
  REQUIRE(PopName(q, t0) == "a");
  CHECK(q.NextReadyTime() == absl::InfiniteFuture());  // all in flight
  CompleteOk(q, "a", EvictionResult::kOtherError, t0);
  const absl::Time ready = t0 + absl::Milliseconds(100);
  CHECK(q.NextReadyTime() == ready);
  CHECK(StateOf(q, "a", ready - absl::Nanoseconds(1)) ==
        EvictionItemState::kBackingOff);
  CHECK(PopName(q, ready - absl::Nanoseconds(1)) == "-");
  CHECK(PopName(q, ready) == "a");

  // A backing-off pod with a later deadline: the backoff decides.
  EvictionQueue r = MakeQueue();
  AddOk(r, Pod("a"), {}, t0 + absl::Seconds(1));
  REQUIRE(PopName(r, t0) == "a");
  CompleteOk(r, "a", EvictionResult::kOtherError, t0);
  CHECK(r.NextReadyTime() == t0 + absl::Milliseconds(100));
  // A deadline inside the backoff does not shorten it.
  EvictionQueue s = MakeQueue();
  AddOk(s, Pod("a"), {}, t0 + absl::Milliseconds(50));
  REQUIRE(PopName(s, t0) == "a");
  CompleteOk(s, "a", EvictionResult::kOtherError, t0);
  CHECK(s.NextReadyTime() == t0 + absl::Milliseconds(100));
  CHECK(PopName(s, t0 + absl::Milliseconds(99)) == "-");
  CHECK(PopName(s, t0 + absl::Milliseconds(100)) == "!a");
}

TEST_CASE("eviction queue: options are validated", "[eviction-queue]") {
  struct Row {
    std::string name;
    EvictionQueueOptions options;
    std::string message;
  };
  std::vector<Row> rows;
  auto row = [&](std::string name, auto mutate, std::string message) {
    EvictionQueueOptions o;
    mutate(o);
    rows.push_back({std::move(name), o, std::move(message)});
  };
  row(
      "qps 0", [](auto& o) { o.qps = 0; },
      "qps: must be > 0 and at most 1e9, got 0");
  row(
      "qps -1", [](auto& o) { o.qps = -1; },
      "qps: must be > 0 and at most 1e9, got -1");
  row(
      "qps NaN", [](auto& o) { o.qps = std::nan(""); },
      "qps: must be > 0 and at most 1e9, got nan");
  row(
      "qps 1e10", [](auto& o) { o.qps = 1e10; },
      "qps: must be > 0 and at most 1e9, got 1e+10");
  row(
      "burst 0", [](auto& o) { o.burst = 0; },
      "burst: must be at least 1, got 0");
  row(
      "base 0", [](auto& o) { o.backoff_base = absl::ZeroDuration(); },
      "backoff_base: must be positive and finite, got \"0\"");
  row(
      "base -1s", [](auto& o) { o.backoff_base = absl::Seconds(-1); },
      "backoff_base: must be positive and finite, got \"-1s\"");
  row(
      "cap < base", [](auto& o) { o.backoff_cap = absl::Milliseconds(50); },
      "backoff_cap: must be finite and at least backoff_base (\"100ms\"), "
      "got \"50ms\"");
  row(
      "cap inf", [](auto& o) { o.backoff_cap = absl::InfiniteDuration(); },
      "backoff_cap: must be finite and at least backoff_base (\"100ms\"), "
      "got \"inf\"");
  row(
      "in flight 0", [](auto& o) { o.max_in_flight_per_key = 0; },
      "max_in_flight_per_key: must be at least 1, got 0");
  row(
      "mode 7", [](auto& o) { o.mode = static_cast<EvictionQueueMode>(7); },
      "mode: unknown value 7");
  for (const Row& r : rows) {
    INFO(r.name);
    absl::StatusOr<EvictionQueue> q = EvictionQueue::Create(r.options);
    REQUIRE_FALSE(q.ok());
    CHECK(q.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(std::string(q.status().message()) == r.message);
  }
  EvictionQueueOptions edge;
  edge.qps = 1e9;
  edge.burst = 1;
  edge.backoff_cap = edge.backoff_base;
  CHECK(EvictionQueue::Create(edge).ok());
}

TEST_CASE("eviction queue: bad Add, Complete and Remove calls",
          "[eviction-queue]") {
  EvictionQueue q = MakeQueue();
  absl::Status s = q.Add(PodRef{"ns", "a", ""}, {});
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  CHECK(s.message() == "pod.uid: must not be empty (pod \"ns/a\")");
  s = q.Add(PodRef{"ns", "", "u"}, {});
  CHECK(s.message() == "pod.name: must not be empty (uid \"u\")");
  s = q.Add(Pod("a"), {"ns/web", ""});
  CHECK(s.message() == "pdb_keys[1]: must not be empty");
  CHECK(q.size() == 0);

  CHECK(q.Complete("nope", EvictionResult::kEvicted, t0).status().code() ==
        absl::StatusCode::kNotFound);
  AddOk(q, Pod("a"), {"ns/web"});
  AddOk(q, Pod("b"), {"ns/web"});
  absl::StatusOr<EvictionCompletion> c =
      q.Complete("uid-a", EvictionResult::kEvicted, t0);
  CHECK(c.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(c.status().message() == "uid \"uid-a\" (pod \"ns/a\"): not in flight");
  REQUIRE(PopName(q, t0) == "a");
  // Removing an in-flight pod frees its key; its late result is NotFound.
  REQUIRE(q.Remove("uid-a").ok());
  CHECK(q.Complete("uid-a", EvictionResult::kEvicted, t0).status().code() ==
        absl::StatusCode::kNotFound);
  CHECK(PopName(q, t0) == "b");
  CHECK(q.Remove("uid-a").code() == absl::StatusCode::kNotFound);
  CHECK(q.counters().removed == 1);
  // Removing a waiting pod.
  AddOk(q, Pod("c"), {});
  REQUIRE(q.Remove("uid-c").ok());
  CHECK(PopName(q, t0) == "-");
  CHECK(q.size() == 1);
}

TEST_CASE("eviction queue: Complete by work item skips the UID lookup",
          "[eviction-queue]") {
  EvictionQueue q = MakeQueue();
  AddOk(q, Pod("a"), {"k"});
  std::optional<EvictionWork> w = q.Pop(t0);
  REQUIRE(w.has_value());
  absl::StatusOr<EvictionCompletion> c =
      q.Complete(*w, EvictionResult::kOtherError, t0);
  REQUIRE(c.ok());
  CHECK_FALSE(c->done);
  // The hand-out is over: the same work item is now a precondition error.
  CHECK(q.Complete(*w, EvictionResult::kEvicted, t0).status().code() ==
        absl::StatusCode::kFailedPrecondition);
  std::optional<EvictionWork> again = q.Pop(t0 + absl::Seconds(1));
  REQUIRE(again.has_value());
  CHECK(again->ticket != w->ticket);
  CHECK(q.Complete(*again, EvictionResult::kEvicted, t0).value().done);
  CHECK(q.Complete(*again, EvictionResult::kEvicted, t0).status().code() ==
        absl::StatusCode::kNotFound);
  // A forged ticket falls back to the UID.
  const PodRef zz = Pod("zz");
  EvictionWork forged{zz, EvictionWorkKind::kEvict, absl::InfiniteFuture(), 0,
                      ~uint64_t{0}};
  CHECK(q.Complete(forged, EvictionResult::kEvicted, t0).status().code() ==
        absl::StatusCode::kNotFound);
}

TEST_CASE("eviction queue: order is insertion order, then backoff end",
          "[eviction-queue]") {
  EvictionQueue q = MakeQueue();
  AddOk(q, Pod("a"), {"k1"});
  AddOk(q, Pod("b"), {"k2"});
  AddOk(q, Pod("c"), {});
  AddOk(q, Pod("d"), {"k1"});
  AddOk(q, Pod("e"), {"k2"});
  CHECK(PopName(q, t0) == "a");
  CHECK(PopName(q, t0) == "b");
  CHECK(PopName(q, t0) == "c");
  CHECK(PopName(q, t0) == "-");
  CompleteOk(q, "b", EvictionResult::kBlockedByPdb, t0);         // b: +100ms
  CompleteOk(q, "a", EvictionResult::kOtherError, t0 + 5 * ms);  // a: +105ms
  // d and e were never tried: they go before their keys' backed-off pods.
  CHECK(PopName(q, t0 + 5 * ms) == "d");
  CHECK(PopName(q, t0 + 5 * ms) == "e");
  CompleteOk(q, "d", EvictionResult::kEvicted, t0 + 5 * ms);
  CompleteOk(q, "e", EvictionResult::kEvicted, t0 + 5 * ms);
  CHECK(q.NextReadyTime() == t0 + 100 * ms);
  CHECK(PopName(q, t0 + absl::Seconds(1)) == "b");  // earlier backoff end
  CHECK(PopName(q, t0 + absl::Seconds(1)) == "a");
}

TEST_CASE("eviction queue: Inspect explains each state", "[eviction-queue]") {
  EvictionQueueOptions o;
  o.burst = 1;
  EvictionQueue q = MakeQueue(o);
  AddOk(q, Pod("a"), {"k"});
  AddOk(q, Pod("b"), {"k"});
  AddOk(q, Pod("c"), {});
  CHECK(StateOf(q, "a", t0) == EvictionItemState::kReady);
  CHECK(q.Inspect("uid-a", t0)->message == "\"ns/a\": ready for eviction");
  REQUIRE(PopName(q, t0) == "a");
  CHECK(StateOf(q, "a", t0) == EvictionItemState::kInFlight);
  CHECK(StateOf(q, "b", t0) == EvictionItemState::kWaitingForKey);
  CHECK(StateOf(q, "c", t0) == EvictionItemState::kWaitingForToken);
  CompleteOk(q, "a", EvictionResult::kBlockedByPdb, t0);
  absl::StatusOr<EvictionItemStatus> s = q.Inspect("uid-a", t0);
  CHECK(s->state == EvictionItemState::kBackingOff);
  CHECK(s->until == t0 + 100 * ms);
  CHECK(s->failures == 1);
  CHECK(EvictionItemStateName(s->state) == "BackingOff");
  CHECK(q.Inspect("zzz", t0).status().code() == absl::StatusCode::kNotFound);
}

TEST_CASE("eviction queue: popped pod views stay valid while the queue grows",
          "[eviction-queue]") {
  EvictionQueue q = MakeQueue();
  const PodRef first{"team-a", "a-pod-name-long-enough-to-leave-sso",
                     "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"};
  AddOk(q, first, {"k"});
  std::optional<EvictionWork> w = q.Pop(t0);
  REQUIRE(w.has_value());
  // Thousands of later pods (more slots than one storage chunk), some with
  // strings too long to store inline.
  for (int i = 0; i < 10000; ++i) {
    const std::string name = i % 7 == 0
                                 ? std::string(200, 'x') + std::to_string(i)
                                 : "p" + std::to_string(i);
    AddOk(q, Pod(name), {"k"});
  }
  EvictionQueue moved = std::move(q);
  const PodRef copy = w->pod;
  CHECK(copy == first);
  CHECK(w->pod == PodRefView(first));
  CHECK(moved.Complete(*w, EvictionResult::kEvicted, t0).value().done);
  // Long strings round-trip too.
  REQUIRE(moved.Remove("uid-p1").ok());
  std::optional<EvictionWork> next = moved.Pop(t0);
  REQUIRE(next.has_value());
  CHECK(next->pod.name == std::string(200, 'x') + "0");
  CHECK(next->pod.uid == "uid-" + std::string(200, 'x') + "0");
  CHECK(next->pod.namespace_name == "ns");
}

// A brute-force model of the queue's contract: every Pop scans all pods.
class Model {
 public:
  Model(int max_in_flight, absl::Duration interval, int64_t burst)
      : max_(max_in_flight), interval_(interval), burst_(burst) {}

  void Add(const std::string& uid, int key, absl::Time deadline) {
    for (P& p : pods_) {
      if (p.uid == uid) {
        p.deadline = std::min(p.deadline, deadline);
        return;
      }
    }
    pods_.push_back({uid, key, deadline, absl::InfinitePast(), seq_++});
  }
  std::string Pop(absl::Time now) {
    if (now < NextToken()) return "-";
    P* best = nullptr;
    auto better = [](absl::Time t, const P& p, absl::Time bt, const P* b) {
      return b == nullptr || t < bt || (t == bt && p.seq < b->seq);
    };
    absl::Time bt;
    for (P& p : pods_) {  // force-deletes first
      const absl::Time t = std::max(p.deadline, p.ready);
      if (!p.in_flight && t <= now && better(t, p, bt, best)) {
        best = &p;
        bt = t;
      }
    }
    bool force = best != nullptr;
    if (!force) {
      for (P& p : pods_) {
        if (!p.in_flight && p.ready <= now && Open(p.key) &&
            better(p.ready, p, bt, best)) {
          best = &p;
          bt = p.ready;
        }
      }
    }
    if (best == nullptr) return "-";
    best->in_flight = true;
    best->holds = force ? -1 : best->key;
    tat_ = std::max(tat_, now) + interval_;
    return (force ? "!" : "") + best->uid;
  }
  absl::Time NextReady() const {
    absl::Time t = absl::InfiniteFuture();
    for (const P& p : pods_) {
      if (p.in_flight) continue;
      if (p.deadline != absl::InfiniteFuture()) {
        t = std::min(t, std::max(p.deadline, p.ready));
      }
      if (Open(p.key)) t = std::min(t, p.ready);
    }
    return t == absl::InfiniteFuture() ? t : std::max(t, NextToken());
  }
  // Returns false if `uid` is not in flight.
  bool Complete(const std::string& uid, bool done, absl::Duration backoff,
                absl::Time now) {
    for (size_t i = 0; i < pods_.size(); ++i) {
      P& p = pods_[i];
      if (p.uid != uid || !p.in_flight) continue;
      p.in_flight = false;
      if (done) {
        pods_.erase(pods_.begin() + static_cast<ptrdiff_t>(i));
      } else {
        p.ready = now + backoff;
      }
      return true;
    }
    return false;
  }
  void Remove(const std::string& uid) {
    std::erase_if(pods_, [&](const P& p) { return p.uid == uid; });
  }

 private:
  struct P {
    std::string uid;
    int key;  // -1: none
    absl::Time deadline;
    absl::Time ready;
    uint64_t seq;
    bool in_flight = false;
    int holds = -1;
  };
  bool Open(int key) const {
    if (key < 0) return true;
    int n = 0;
    for (const P& p : pods_) n += p.in_flight && p.holds == key ? 1 : 0;
    return n < max_;
  }
  absl::Time NextToken() const { return tat_ - interval_ * (burst_ - 1); }

  int max_;
  absl::Duration interval_;
  int64_t burst_;
  absl::Time tat_ = absl::InfinitePast();
  std::vector<P> pods_;
  uint64_t seq_ = 0;
};

TEST_CASE("eviction queue: random operations match a brute-force model",
          "[eviction-queue]") {
  EvictionQueueOptions o;
  o.max_in_flight_per_key = 2;
  o.qps = 1000;
  o.burst = 5;
  o.backoff_cap = absl::Milliseconds(400);
  EvictionQueue q = MakeQueue(o);
  Model m(2, absl::Seconds(1) / o.qps, o.burst);
  uint64_t rng = 12345;
  auto next = [&](uint64_t n) {
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (rng >> 33) % n;
  };
  std::vector<EvictionWork> flying;
  absl::Time now = t0;
  std::vector<int> failures(64, 0);
  for (int step = 0; step < 20000; ++step) {
    INFO("step " << step);
    const uint64_t op = next(10);
    if (op < 3) {
      const int id = static_cast<int>(next(64));
      const int key = id % 8 == 0 ? -1 : id % 5;  // 5 keys and some unkeyed
      const absl::Time deadline = next(4) == 0
                                      ? now + absl::Milliseconds(next(500))
                                      : absl::InfiniteFuture();
      const std::string uid = absl::StrCat("u", id);
      const K keys = key < 0 ? K{} : K{absl::StrCat("k", key)};
      REQUIRE(q.Add(PodRef{"ns", uid, uid}, keys, deadline).ok());
      m.Add(uid, key, deadline);
    } else if (op < 6) {
      const std::string want = m.Pop(now);
      std::optional<EvictionWork> w = q.Pop(now);
      const std::string got =
          !w.has_value()
              ? "-"
              : (w->kind == EvictionWorkKind::kForceDelete ? "!" : "") +
                    std::string(w->pod.uid);
      REQUIRE(got == want);
      if (w.has_value()) flying.push_back(*w);
    } else if (op < 8 && !flying.empty()) {
      const size_t i = next(flying.size());
      const EvictionWork work = flying[i];
      const std::string uid(work.pod.uid);
      flying.erase(flying.begin() + static_cast<ptrdiff_t>(i));
      const bool done = next(3) == 0;
      const EvictionResult result =
          done ? EvictionResult::kEvicted : EvictionResult::kOtherError;
      absl::StatusOr<EvictionCompletion> c =
          next(2) == 0 ? q.Complete(uid, result, now)
                       : q.Complete(work, result, now);
      REQUIRE(c.ok());
      REQUIRE(m.Complete(uid, done, c->backoff, now));
      REQUIRE(c->done == done);
    } else if (op == 8) {
      const std::string uid = absl::StrCat("u", next(64));
      const bool found = q.Remove(uid).ok();
      m.Remove(uid);
      if (found) {
        std::erase_if(flying,
                      [&](const EvictionWork& w) { return w.pod.uid == uid; });
      }
    } else {
      now += absl::Milliseconds(next(30));
    }
    REQUIRE(q.NextReadyTime() == m.NextReady());
  }
  CHECK(q.counters().popped_evictions > 1000);
  CHECK(q.counters().popped_force_deletes > 100);
}

}  // namespace
}  // namespace karpenter::drain
