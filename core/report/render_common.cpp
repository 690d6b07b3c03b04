#include "render_common.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace infercap::report::detail {

namespace {
std::string grouped(double v, int decimals) {
  std::string s = fmt::format("{:.{}f}", std::fabs(v), decimals);
  const size_t dot = s.find('.');
  std::string ip = s.substr(0, dot == std::string::npos ? s.size() : dot);
  const std::string frac = dot == std::string::npos ? "" : s.substr(dot);
  std::string out;
  for (size_t i = 0; i < ip.size(); ++i) {
    if (i > 0 && (ip.size() - i) % 3 == 0) out += ',';
    out += ip[i];
  }
  const bool neg = v < 0 && std::stod(s) != 0;
  return (neg ? "-" : "") + out + frac;
}
}  // namespace

std::string cell_text(const Column& c, const Cell& v) {
  if (v.empty) return "–";
  switch (c.type) {
    case ColType::text:
      return v.text;
    case ColType::integer:
      return grouped(v.value, 0);
    case ColType::money:
      return grouped(v.value, c.decimals);
    case ColType::percent:
      return fmt::format("{:.{}f}%", v.value * 100, c.decimals);
    case ColType::number: {
      // Small values keep three significant figures whatever the column's decimals.
      const double a = std::fabs(v.value);
      if (a > 0 && a < std::pow(10.0, -c.decimals + 1)) return fmt::format("{:.3g}", v.value);
      return grouped(v.value, c.decimals);
    }
  }
  return "";
}

std::string total_text(const Table& t, size_t col) {
  const Column& c = t.columns[col];
  if (!c.sum) return "";
  return cell_text(c, Cell::num(t.total(c.id)));
}

std::string axis_number(double v, Lang lang) {
  const double a = std::fabs(v);
  if (lang == Lang::zh) {
    if (a >= 1e8) return fmt::format("{:g}亿", v / 1e8);
    if (a >= 1e4) return fmt::format("{:g}万", v / 1e4);
    return fmt::format("{:g}", v);
  }
  if (a >= 1e6) return fmt::format("{:g}M", v / 1e6);
  if (a >= 1e3) return fmt::format("{:g}k", v / 1e3);
  return fmt::format("{:g}", v);
}

Rgb palette(size_t i) {
  static const Rgb p[] = {{0.00, 0.45, 0.70}, {0.90, 0.62, 0.00}, {0.00, 0.62, 0.45},
                          {0.80, 0.47, 0.65}, {0.34, 0.71, 0.91}, {0.84, 0.37, 0.00},
                          {0.40, 0.40, 0.40}, {0.94, 0.89, 0.26}};
  return p[i % (sizeof(p) / sizeof(p[0]))];
}

std::vector<std::string> utf8_chars(std::string_view s) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    size_t n = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 1;
    n = std::min(n, s.size() - i);
    out.emplace_back(s.substr(i, n));
    i += n;
  }
  return out;
}

bool is_wide(std::string_view ch) {
  if (ch.size() < 3) return false;
  const auto b0 = static_cast<unsigned char>(ch[0]);
  const auto b1 = static_cast<unsigned char>(ch[1]);
  // U+2E80..U+9FFF (CJK), U+AC00.. (Hangul), U+FF00..U+FFEF (full width), U+3000.. punctuation.
  if (b0 >= 0xE2 && b0 <= 0xE9) return b0 > 0xE2 || b1 >= 0xBA;
  if (b0 == 0xEF) return b1 >= 0xBC && b1 <= 0xBF;
  return b0 >= 0xEA && b0 <= 0xED;
}

namespace {

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void add(double v) {
    if (!std::isfinite(v)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  bool ok() const { return lo <= hi; }
};

// Ticks at 1, 2 or 5 x 10^k covering [lo, hi].
std::vector<double> ticks(Range& r, int target, double min_step = 0) {
  if (!r.ok()) r = {0, 1};
  if (r.hi - r.lo < 1e-12 * std::max(1.0, std::fabs(r.hi))) {
    const double d = r.hi == 0 ? 1 : std::fabs(r.hi) * 0.1;
    r.lo -= d;
    r.hi += d;
  }
  const double raw = (r.hi - r.lo) / std::max(1, target);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  }
  step = std::max(step, min_step);
  r.lo = std::floor(r.lo / step) * step;
  r.hi = std::ceil(r.hi / step) * step;
  std::vector<double> t;
  for (double v = r.lo; v <= r.hi + step * 1e-9; v += step)
    t.push_back(std::fabs(v) < step * 1e-9 ? 0 : v);
  return t;
}

}  // namespace

void draw_chart(Canvas& cv, const Chart& ch, double w, double h, Lang lang) {
  const Rgb ink{0.15, 0.15, 0.15}, grid{0.85, 0.85, 0.85};
  const double fs = 9;
  const double legend_rows = std::ceil(static_cast<double>(ch.series.size()) / 2.0);
  const double left = 58, right = 12, top = 22, bottom = 36 + legend_rows * (fs + 5);
  const double pw = w - left - right, ph = h - top - bottom;
  cv.text(w / 2, 13, ch.title, fs + 1.5, ink, Anchor::middle, true);
  Range xr, yr;
  const bool bars = ch.kind == ChartKind::stacked_bar;
  if (bars) {
    yr.add(0);
    for (size_t i = 0; i < ch.categories.size(); ++i) {
      double s = 0;
      for (const auto& se : ch.series) s += i < se.y.size() ? std::max(0.0, se.y[i]) : 0;
      yr.add(s);
    }
  } else {
    for (const auto& se : ch.series) {
      for (double v : se.x) xr.add(v);
      for (double v : se.y) yr.add(v);
    }
    if (ch.kind == ChartKind::line) yr.add(0);
  }
  const auto yt = ticks(yr, 5);
  std::vector<double> xt;
  // Whole-number x data (years, batch sizes) gets whole-number ticks.
  bool whole = true;
  for (const auto& se : ch.series)
    for (double v : se.x) whole = whole && std::fabs(v - std::round(v)) < 1e-9;
  if (!bars) xt = ticks(xr, 6, whole ? 1.0 : 0.0);
  auto X = [&](double v) { return left + (v - xr.lo) / (xr.hi - xr.lo) * pw; };
  auto Y = [&](double v) { return top + ph - (v - yr.lo) / (yr.hi - yr.lo) * ph; };
  for (double v : yt) {
    cv.line(left, Y(v), left + pw, Y(v), grid, 0.5, false);
    cv.text(left - 4, Y(v) + 3, axis_number(v, lang), fs - 1, ink, Anchor::end);
  }
  for (double v : xt) {
    cv.line(X(v), top, X(v), top + ph, grid, 0.5, false);
    cv.text(X(v), top + ph + 11, axis_number(v, lang), fs - 1, ink, Anchor::middle);
  }
  cv.line(left, top + ph, left + pw, top + ph, ink, 0.8, false);
  cv.line(left, top, left, top + ph, ink, 0.8, false);
  cv.text(left + pw / 2, top + ph + 24, ch.x_label, fs, ink, Anchor::middle);
  cv.text(12, top + ph / 2, ch.y_label, fs, ink, Anchor::middle, false, -90);

  if (bars) {
    const size_t n = std::max<size_t>(1, ch.categories.size());
    const double slot = pw / static_cast<double>(n);
    const double bw = std::min(60.0, slot * 0.6);
    for (size_t i = 0; i < ch.categories.size(); ++i) {
      const double cx = left + slot * (static_cast<double>(i) + 0.5);
      double base = 0;
      for (size_t s = 0; s < ch.series.size(); ++s) {
        const double v = i < ch.series[s].y.size() ? std::max(0.0, ch.series[s].y[i]) : 0;
        if (v > 0) cv.rect(cx - bw / 2, Y(base + v), bw, Y(base) - Y(base + v), palette(s));
        base += v;
      }
      // Category labels: shortened with an ellipsis to fit the slot.
      std::string lab = ch.categories[i];
      auto cs = utf8_chars(lab);
      while (cs.size() > 4 && cv.text_width(lab, fs - 2) > slot - 2) {
        cs.pop_back();
        lab.clear();
        for (const auto& c : cs) lab += c;
        lab += "…";
      }
      cv.text(cx, top + ph + 11, lab, fs - 2, ink, Anchor::middle);
    }
  } else {
    for (size_t s = 0; s < ch.series.size(); ++s) {
      const Series& se = ch.series[s];
      const Rgb col = palette(s);
      std::vector<std::pair<double, double>> pts;
      for (size_t i = 0; i < se.y.size() && i < se.x.size(); ++i) {
        if (std::isfinite(se.x[i]) && std::isfinite(se.y[i]))
          pts.emplace_back(X(se.x[i]), Y(se.y[i]));
      }
      if (ch.kind == ChartKind::line || se.highlight) {
        if (pts.size() > 1) cv.polyline(pts, col, se.highlight ? 1.8 : 1.2);
      }
      for (const auto& [px, py] : pts) cv.circle(px, py, se.highlight ? 3.0 : 2.0, col);
      if (ch.kind == ChartKind::scatter) {
        for (size_t i = 0; i < se.labels.size() && i < pts.size(); ++i)
          cv.text(pts[i].first + 4, pts[i].second - 4, se.labels[i], fs - 2.5, col, Anchor::start);
      }
    }
  }
  // Legend, two entries a row.
  const double ly0 = top + ph + 36;
  for (size_t s = 0; s < ch.series.size(); ++s) {
    const double lx = left + (s % 2 == 0 ? 0 : pw / 2);
    const double ly = ly0 + std::floor(static_cast<double>(s) / 2) * (fs + 5);
    cv.rect(lx, ly - fs + 2, 10, 7, palette(s));
    cv.text(lx + 14, ly, ch.series[s].name, fs - 1, ink, Anchor::start);
  }
}

}  // namespace infercap::report::detail
