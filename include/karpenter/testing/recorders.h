// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// In-memory doubles of the two write-only host interfaces, for tests and
// simulations: `RecordingEventRecorder` (karpenter/event_recorder.h) keeps
// every event in order, and `InMemoryMetrics` (karpenter/metrics.h) keeps
// counters, gauges and observations per metric name and label set, printing
// them in Prometheus' text exposition format. They stand in for the event
// recorder and the Prometheus registry that Karpenter's controllers write to
// (pkg/events/recorder.go, pkg/metrics/metrics.go), so a test can assert
// which events and metrics a pass produced without a cluster.
//
// InMemoryMetrics also checks the SDK's side of the Metrics contract: a
// negative (or NaN) counter delta, or one metric name used with two verbs
// (Add and Set, say: a counter and a gauge at once), is recorded as asked
// and counted in contract_violations(), which tests assert is 0.
//
// Thread-safety: every method of both classes may be called from any
// thread; each class serialises its methods with one mutex.

#ifndef KARPENTER_TESTING_RECORDERS_H_
#define KARPENTER_TESTING_RECORDERS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "karpenter/event_recorder.h"
#include "karpenter/metrics.h"

namespace karpenter::testing {

class RecordingEventRecorder final : public EventRecorder {
 public:
  RecordingEventRecorder() = default;
  RecordingEventRecorder(const RecordingEventRecorder&) = delete;
  RecordingEventRecorder& operator=(const RecordingEventRecorder&) = delete;

  // Appends `event`. Never drops or deduplicates: a test sees every call.
  void Record(const Event& event) override;

  // A copy of every event recorded since construction or Clear(), in order.
  std::vector<Event> events() const;

  // How many recorded events have reason `reason`.
  int64_t Count(absl::string_view reason) const;

  // EventString() of each event, in order.
  std::vector<std::string> Lines() const;

  // Forgets every event.
  void Clear();

 private:
  mutable absl::Mutex mu_;
  std::vector<Event> events_ ABSL_GUARDED_BY(mu_);
};

class InMemoryMetrics final : public Metrics {
 public:
  InMemoryMetrics() = default;
  InMemoryMetrics(const InMemoryMetrics&) = delete;
  InMemoryMetrics& operator=(const InMemoryMetrics&) = delete;

  // Metrics (karpenter/metrics.h). Add with a negative or NaN delta is
  // applied anyway and counted as a contract violation, as is using one
  // name with more than one of the three verbs.
  void Add(absl::string_view name, const MetricLabels& labels,
           double delta) override;
  void Set(absl::string_view name, const MetricLabels& labels,
           double value) override;
  void Observe(absl::string_view name, const MetricLabels& labels,
               double value) override;

  // The counter or gauge `name` with exactly `labels`; 0 if never added to
  // or set.
  double Value(absl::string_view name, const MetricLabels& labels = {}) const;

  // The observations of `name` with exactly `labels`, in order; empty if
  // none.
  std::vector<double> Observations(absl::string_view name,
                                   const MetricLabels& labels = {}) const;

  // The sum of counter (or gauge) `name` over every label set; 0 if none.
  double Total(absl::string_view name) const;

  // Every series in Prometheus text format, one line each, sorted:
  //   karpenter_nodes_terminated_total{nodepool="default",zone="a"} 1
  // Observed metrics print `<name>_count{...} N` and `<name>_sum{...} S`.
  // Label values are escaped as Prometheus does (\\, \", \n).
  std::vector<std::string> Dump() const;

  // How many calls broke the Metrics contract (see the file comment), and
  // a description of each, in order.
  int64_t contract_violations() const;
  std::vector<std::string> ContractViolationMessages() const;

  // Forgets every series and violation.
  void Clear();

 private:
  enum class Kind { kCounter, kGauge, kObserved };
  struct Series {
    double value = 0;
    std::vector<double> observations;
  };
  struct Family {
    Kind kind = Kind::kCounter;
    std::map<MetricLabels, Series> series;
  };

  // The series `name`/`labels`, created if new; records a violation if the
  // name was first used as another kind.
  Series& SeriesFor(absl::string_view name, const MetricLabels& labels,
                    Kind kind) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  std::map<std::string, Family, std::less<>> families_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> violations_ ABSL_GUARDED_BY(mu_);
};

}  // namespace karpenter::testing

#endif  // KARPENTER_TESTING_RECORDERS_H_
