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

struct Box {
  double x0, y0, x1, y1;
  double overlap(const Box& o) const {
    const double w = std::min(x1, o.x1) - std::max(x0, o.x0);
    const double h = std::min(y1, o.y1) - std::max(y0, o.y0);
    return w > 0 && h > 0 ? w * h : 0;
  }
  double outside(const Box& area) const {  // area of this box beyond `area`
    const double all = (x1 - x0) * (y1 - y0);
    return all - overlap(area);
  }
};

struct Placed {
  Box box;
  double baseline;
  bool leader;  ///< drawn away from its point: a thin line joins them
  double anchor_x, anchor_y;
};

// Where a point label goes: the first spot around the point (right, left, above, below, then
// stepped further up and down with a leader line) that overlaps neither another label nor a
// point and stays in the plot; failing that, the spot that overlaps least.
Placed place_label(Canvas& cv, double px, double py, const std::string& text, double size,
                   const Box& area, const std::vector<Box>& taken) {
  const double w = cv.text_width(text, size);
  const double asc = size * 0.8, desc = size * 0.25, gap = 4;
  std::vector<Placed> spots;
  auto at = [&](double x0, double baseline, bool leader) {
    const Box b{x0, baseline - asc, x0 + w, baseline + desc};
    const double ax = x0 >= px ? x0 - 1 : x0 + w + 1;
    spots.push_back({b, baseline, leader, ax, baseline - asc / 2});
  };
  at(px + gap, py - gap, false);              // right, above
  at(px + gap, py + gap + asc, false);        // right, below
  at(px - gap - w, py - gap, false);          // left, above
  at(px - gap - w, py + gap + asc, false);    // left, below
  at(px - w / 2, py - gap - desc, false);     // above
  at(px - w / 2, py + gap + asc + 1, false);  // below
  for (int k = 1; k <= 6; ++k) {
    const double dy = k * (asc + desc + 2);
    at(px + 2 * gap, py - gap - dy, true);
    at(px + 2 * gap, py + gap + asc + dy, true);
    at(px - 2 * gap - w, py - gap - dy, true);
    at(px - 2 * gap - w, py + gap + asc + dy, true);
  }
  const Placed* best = nullptr;
  double best_cost = 0;
  for (const auto& s : spots) {
    double cost = s.box.outside(area) * 4;
    for (const auto& t : taken) cost += s.box.overlap(t);
    if (cost <= 0) return s;
    if (best == nullptr || cost < best_cost) {
      best = &s;
      best_cost = cost;
    }
  }
  return *best;
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
    // Points first (every series), then the labels placed around them without collisions.
    std::vector<Box> taken;
    struct Wanted {
      double x, y;
      std::string text;
      Rgb col;
    };
    std::vector<Wanted> labels;
    for (size_t s = 0; s < ch.series.size(); ++s) {
      const Series& se = ch.series[s];
      const Rgb col = palette(s);
      std::vector<std::pair<double, double>> pts;
      // A label belongs to its point even where an earlier point was not finite.
      for (size_t i = 0; i < se.y.size() && i < se.x.size(); ++i) {
        if (!(std::isfinite(se.x[i]) && std::isfinite(se.y[i]))) continue;
        pts.emplace_back(X(se.x[i]), Y(se.y[i]));
        if (ch.kind == ChartKind::scatter && i < se.labels.size() && !se.labels[i].empty())
          labels.push_back({pts.back().first, pts.back().second, se.labels[i], col});
      }
      if (ch.kind == ChartKind::line || se.highlight) {
        if (pts.size() > 1) cv.polyline(pts, col, se.highlight ? 1.8 : 1.2);
      }
      const double r = se.highlight ? 3.0 : 2.0;
      for (const auto& [px, py] : pts) {
        cv.circle(px, py, r, col);
        taken.push_back({px - r - 1, py - r - 1, px + r + 1, py + r + 1});
      }
    }
    const Box area{left + 1, top + 1, left + pw - 1, top + ph - 1};
    for (const auto& l : labels) {
      const Placed p = place_label(cv, l.x, l.y, l.text, fs - 2.5, area, taken);
      if (p.leader) cv.line(l.x, l.y, p.anchor_x, p.anchor_y, l.col, 0.4, false);
      cv.text(p.box.x0, p.baseline, l.text, fs - 2.5, l.col, Anchor::start);
      taken.push_back(p.box);
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
