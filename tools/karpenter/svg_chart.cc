// Copyright 2026 The karpenter C++ SDK Authors. Licensed under Apache-2.0.

#include "svg_chart.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace karpenter::cli {
namespace {

constexpr double kWidth = 900, kHeight = 420;
constexpr double kLeft = 60, kRight = 170, kTop = 40, kBottom = 50;
constexpr double kPlotW = kWidth - kLeft - kRight;
constexpr double kPlotH = kHeight - kTop - kBottom;

std::string Escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string Header(const std::string& title) {
  return absl::StrFormat(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" "
      "viewBox=\"0 0 %g %g\" font-family=\"sans-serif\" font-size=\"12\" "
      "shape-rendering=\"crispEdges\">\n"
      "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
      "<text x=\"%g\" y=\"24\" font-size=\"15\">%s</text>\n",
      kWidth, kHeight, kWidth, kHeight, kLeft, Escape(title));
}

// The smallest of 1, 2, 5, 10, 20, 50, ... giving at most `target` ticks
// over [0, max].
int64_t TickStep(int64_t max, int target) {
  for (int64_t decade = 1;; decade *= 10) {
    for (int64_t m : {1, 2, 5}) {
      if (max / (m * decade) <= target) return m * decade;
    }
  }
}

std::string Axes(int64_t max_count, absl::Time start, absl::Time end) {
  std::string svg;
  const double bottom = kTop + kPlotH;
  absl::StrAppendFormat(&svg,
                        "<g stroke=\"#333\" fill=\"none\">"
                        "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\"/>"
                        "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\"/></g>\n",
                        kLeft, kTop, kLeft, bottom, kLeft, bottom,
                        kLeft + kPlotW, bottom);
  const int64_t step = TickStep(std::max<int64_t>(max_count, 1), 8);
  for (int64_t v = 0; v <= max_count; v += step) {
    const double y = bottom - kPlotH * v / std::max<int64_t>(max_count, 1);
    absl::StrAppendFormat(&svg,
                          "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" "
                          "stroke=\"#ddd\"/><text x=\"%g\" y=\"%g\" "
                          "text-anchor=\"end\">%d</text>\n",
                          kLeft, y, kLeft + kPlotW, y, kLeft - 6, y + 4, v);
  }
  const absl::Duration span = end - start;
  for (int i = 0; i <= 6; ++i) {
    const absl::Time t = start + span * i / 6;
    const double x = kLeft + kPlotW * i / 6;
    absl::StrAppendFormat(
        &svg, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">%s</text>\n", x,
        bottom + 18, absl::FormatTime("%H:%M", t, absl::UTCTimeZone()));
  }
  absl::StrAppendFormat(
      &svg,
      "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">time (UTC, from %s)"
      "</text>\n",
      kLeft + kPlotW / 2, bottom + 38,
      absl::FormatTime("%Y-%m-%d %H:%M", start, absl::UTCTimeZone()));
  return svg;
}

std::string Legend(const std::vector<ChartSeries>& series) {
  std::string svg;
  for (size_t i = 0; i < series.size(); ++i) {
    const double y = kTop + 10 + 22 * (series.size() - 1 - i);
    absl::StrAppendFormat(
        &svg,
        "<rect x=\"%g\" y=\"%g\" width=\"14\" height=\"14\" fill=\"%s\"/>"
        "<text x=\"%g\" y=\"%g\">%s</text>\n",
        kLeft + kPlotW + 16, y, Escape(series[i].color), kLeft + kPlotW + 36,
        y + 12, Escape(series[i].name));
  }
  return svg;
}

}  // namespace

std::string RenderStackedSteps(const std::string& title,
                               const std::vector<ChartSeries>& series,
                               const std::vector<ChartSample>& samples,
                               absl::Time start, absl::Time end) {
  std::string svg = Header(title);
  const bool bad_sample = std::any_of(
      samples.begin(), samples.end(),
      [&](const ChartSample& s) { return s.counts.size() != series.size(); });
  if (!(start < end) || bad_sample) {
    absl::StrAppend(&svg, "<text x=\"60\" y=\"80\">no chart: ",
                    bad_sample ? "a sample has the wrong number of series"
                               : "the time range is empty",
                    "</text>\n</svg>\n");
    return svg;
  }
  int64_t max_count = 0;
  for (const ChartSample& s : samples) {
    int64_t total = 0;
    for (int64_t c : s.counts) total += std::max<int64_t>(c, 0);
    max_count = std::max(max_count, total);
  }
  const double span_s = absl::ToDoubleSeconds(end - start);
  auto x_of = [&](absl::Time t) {
    const double f = absl::ToDoubleSeconds(std::clamp(t, start, end) - start);
    return kLeft + kPlotW * f / span_s;
  };
  const double bottom = kTop + kPlotH;
  const double unit = kPlotH / std::max<int64_t>(max_count, 1);
  svg += Axes(max_count, start, end);
  // One rectangle per sample and series: its stretch until the next sample.
  for (size_t i = 0; i < samples.size(); ++i) {
    const absl::Time until = i + 1 < samples.size() ? samples[i + 1].at : end;
    if (until <= start || samples[i].at >= end) continue;
    const double x0 = x_of(samples[i].at), x1 = x_of(until);
    double base = 0;
    for (size_t k = 0; k < series.size(); ++k) {
      const int64_t c = std::max<int64_t>(samples[i].counts[k], 0);
      if (c == 0) continue;
      absl::StrAppendFormat(
          &svg,
          "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
          "fill=\"%s\"/>\n",
          x0, bottom - (base + c) * unit, std::max(x1 - x0, 0.5), c * unit,
          Escape(series[k].color));
      base += c;
    }
  }
  svg += Legend(series);
  svg += "</svg>\n";
  return svg;
}

}  // namespace karpenter::cli
