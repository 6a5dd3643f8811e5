// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.
//
// A stacked step chart of counts over time, as a standalone SVG document:
// `karpenter simulate --svg` draws the nodes by state with it. No library:
// the output is plain SVG 1.1 that browsers, rsvg-convert and Inkscape
// render.
//
// Thread-safety: a pure function.
#ifndef KARPENTER_TOOLS_KARPENTER_SVG_CHART_H_
#define KARPENTER_TOOLS_KARPENTER_SVG_CHART_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/time/time.h"

namespace karpenter::cli {

// The counts of every series from `at` until the next sample (or the
// chart's end).
struct ChartSample {
  absl::Time at;
  std::vector<int64_t> counts;  // One per series, each >= 0.
};

struct ChartSeries {
  std::string name;   // Legend text.
  std::string color;  // Any SVG colour, e.g. "#4c78a8".
};

// Renders `samples` (ascending `at`, each with one count per series) over
// [start, end) as stacked steps, series in order from the bottom, with a
// time axis labelled in UTC and a count axis. Samples before `start` are
// clipped to it; an empty `samples` gives an empty plot. Text is escaped.
// Preconditions (checked, giving an SVG that says so instead of a chart):
// start < end, and every sample has series.size() counts.
std::string RenderStackedSteps(const std::string& title,
                               const std::vector<ChartSeries>& series,
                               const std::vector<ChartSample>& samples,
                               absl::Time start, absl::Time end);

}  // namespace karpenter::cli

#endif  // KARPENTER_TOOLS_KARPENTER_SVG_CHART_H_
