// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "karpenter/testing/recorders.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "testing/mutex_lock.h"

namespace karpenter::testing {
namespace {

// A label value escaped as the Prometheus text format requires.
std::string EscapeLabelValue(absl::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

// `name{k="v",...}`, or `name` without labels.
std::string SeriesName(absl::string_view name, const MetricLabels& labels) {
  if (labels.empty()) return std::string(name);
  return absl::StrCat(name, "{",
                      absl::StrJoin(labels, ",",
                                    [](std::string* out, const auto& kv) {
                                      absl::StrAppend(
                                          out, kv.first, "=\"",
                                          EscapeLabelValue(kv.second), "\"");
                                    }),
                      "}");
}

// Prometheus' spellings of the non-finite values; absl's shortest form
// otherwise (1, 0.5, 1e+06).
std::string FormatValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return absl::StrCat(v);
}

}  // namespace

// --- RecordingEventRecorder. -----------------------------------------------

void RecordingEventRecorder::Record(const Event& event) {
  internal::MutexLock lock(&mu_);
  events_.push_back(event);
}

std::vector<Event> RecordingEventRecorder::events() const {
  internal::MutexLock lock(&mu_);
  return events_;
}

int64_t RecordingEventRecorder::Count(absl::string_view reason) const {
  internal::MutexLock lock(&mu_);
  return std::count_if(events_.begin(), events_.end(),
                       [&](const Event& e) { return e.reason == reason; });
}

std::vector<std::string> RecordingEventRecorder::Lines() const {
  internal::MutexLock lock(&mu_);
  std::vector<std::string> out;
  out.reserve(events_.size());
  for (const Event& e : events_) out.push_back(EventString(e));
  return out;
}

void RecordingEventRecorder::Clear() {
  internal::MutexLock lock(&mu_);
  events_.clear();
}

// --- InMemoryMetrics. ------------------------------------------------------

InMemoryMetrics::Series& InMemoryMetrics::SeriesFor(absl::string_view name,
                                                    const MetricLabels& labels,
                                                    Kind kind) {
  auto it = families_.find(name);
  if (it == families_.end()) {
    it = families_.emplace(std::string(name), Family{kind, {}}).first;
  } else if (it->second.kind != kind) {
    static constexpr absl::string_view kVerbs[] = {"Add", "Set", "Observe"};
    violations_.push_back(absl::StrCat(
        SeriesName(name, labels), ": ", kVerbs[static_cast<int>(kind)],
        " on a metric first used with ",
        kVerbs[static_cast<int>(it->second.kind)]));
  }
  return it->second.series[labels];
}

void InMemoryMetrics::Add(absl::string_view name, const MetricLabels& labels,
                          double delta) {
  internal::MutexLock lock(&mu_);
  if (!(delta >= 0)) {  // Also catches NaN.
    violations_.push_back(absl::StrCat(SeriesName(name, labels),
                                       ": Add with delta \"",
                                       FormatValue(delta), "\": must be >= 0"));
  }
  SeriesFor(name, labels, Kind::kCounter).value += delta;
}

void InMemoryMetrics::Set(absl::string_view name, const MetricLabels& labels,
                          double value) {
  internal::MutexLock lock(&mu_);
  SeriesFor(name, labels, Kind::kGauge).value = value;
}

void InMemoryMetrics::Observe(absl::string_view name,
                              const MetricLabels& labels, double value) {
  internal::MutexLock lock(&mu_);
  SeriesFor(name, labels, Kind::kObserved).observations.push_back(value);
}

double InMemoryMetrics::Value(absl::string_view name,
                              const MetricLabels& labels) const {
  internal::MutexLock lock(&mu_);
  auto family = families_.find(name);
  if (family == families_.end()) return 0;
  auto series = family->second.series.find(labels);
  return series == family->second.series.end() ? 0 : series->second.value;
}

std::vector<double> InMemoryMetrics::Observations(
    absl::string_view name, const MetricLabels& labels) const {
  internal::MutexLock lock(&mu_);
  auto family = families_.find(name);
  if (family == families_.end()) return {};
  auto series = family->second.series.find(labels);
  if (series == family->second.series.end()) return {};
  return series->second.observations;
}

double InMemoryMetrics::Total(absl::string_view name) const {
  internal::MutexLock lock(&mu_);
  auto family = families_.find(name);
  if (family == families_.end()) return 0;
  double total = 0;
  for (const auto& [labels, series] : family->second.series) {
    total += series.value;
  }
  return total;
}

std::vector<std::string> InMemoryMetrics::Dump() const {
  internal::MutexLock lock(&mu_);
  std::vector<std::string> out;
  for (const auto& [name, family] : families_) {
    for (const auto& [labels, series] : family.series) {
      if (family.kind != Kind::kObserved) {
        out.push_back(absl::StrCat(SeriesName(name, labels), " ",
                                   FormatValue(series.value)));
        continue;
      }
      double sum = 0;
      for (double v : series.observations) sum += v;
      out.push_back(
          absl::StrCat(SeriesName(absl::StrCat(name, "_count"), labels), " ",
                       series.observations.size()));
      out.push_back(absl::StrCat(SeriesName(absl::StrCat(name, "_sum"), labels),
                                 " ", FormatValue(sum)));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

int64_t InMemoryMetrics::contract_violations() const {
  internal::MutexLock lock(&mu_);
  return static_cast<int64_t>(violations_.size());
}

std::vector<std::string> InMemoryMetrics::ContractViolationMessages() const {
  internal::MutexLock lock(&mu_);
  return violations_;
}

void InMemoryMetrics::Clear() {
  internal::MutexLock lock(&mu_);
  families_.clear();
  violations_.clear();
}

}  // namespace karpenter::testing
