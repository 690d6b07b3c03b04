#include "plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace infercap::gui {

namespace {

// Margins in units of the font's line height, so plots keep their proportions at any UI scale.
float line_h() {
  return ImGui::GetTextLineHeight();
}
// Line widths and marker sizes are given for a 15 px font; they grow with the UI scale.
float ui_scale() {
  return std::max(1.0f, ImGui::GetFontSize() / 15.0f);
}

std::string default_format(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// 1-2-5 steps covering [lo, hi] with about `want` ticks.
std::vector<double> linear_ticks(double lo, double hi, int want) {
  std::vector<double> t;
  const double span = hi - lo;
  if (!(span > 0)) return t;
  const double raw = span / want;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (raw <= m * mag) {
      step = m * mag;
      break;
    }
  }
  for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) {
    t.push_back(std::fabs(v) < step * 1e-9 ? 0 : v);
  }
  return t;
}

}  // namespace

std::vector<double> tick_values(const PlotAxis& a) {
  std::vector<double> t;
  if (!(a.max > a.min)) return t;
  if (a.log) {
    if (!(a.min > 0)) return linear_ticks(a.min, a.max, 5);
    const double lo = std::floor(std::log10(a.min));
    const double hi = std::ceil(std::log10(a.max));
    // Decades; with 2 and 5 when the span is short; every 2nd / 3rd ... decade when it is long;
    // and 1..9 within a decade when even 2 and 5 give fewer than three ticks.
    const double step = std::max(1.0, std::ceil((hi - lo) / 8));
    auto collect = [&](std::initializer_list<double> mantissas) {
      t.clear();
      for (double e = lo; e <= hi; e += step) {
        const double d = std::pow(10.0, e);
        for (double m : mantissas) {
          const double v = d * m;
          if (v >= a.min * (1 - 1e-9) && v <= a.max * (1 + 1e-9)) t.push_back(v);
        }
      }
    };
    collect({1.0});
    if (t.size() < 3 && hi - lo <= 3) collect({1.0, 2.0, 5.0});
    if (t.size() < 3 && hi - lo <= 2) collect({1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0});
    // A range inside one step of that ladder (e.g. 31..38): plain linear ticks.
    if (t.size() < 3) t = linear_ticks(a.min, a.max, 4);
    return t;
  }
  return linear_ticks(a.min, a.max, 5);
}

float Plot::to_px(const PlotAxis& a, double v, float lo, float hi) const {
  double f = 0;
  if (a.log) {
    v = std::max(v, a.min * 1e-6);
    f = (std::log10(v) - std::log10(a.min)) / (std::log10(a.max) - std::log10(a.min));
  } else {
    f = (v - a.min) / (a.max - a.min);
  }
  return lo + static_cast<float>(f) * (hi - lo);
}

ImVec2 Plot::map(double x, double y, bool right) const {
  const PlotAxis& ya = right && has_y2_ ? y2_ : y_;
  return {to_px(x_, x, p0_.x, p1_.x), to_px(ya, y, p1_.y, p0_.y)};
}

double Plot::unmap_x(float px) const {
  const double f = static_cast<double>((px - p0_.x) / (p1_.x - p0_.x));
  if (x_.log) {
    return std::pow(10.0, std::log10(x_.min) + f * (std::log10(x_.max) - std::log10(x_.min)));
  }
  return x_.min + f * (x_.max - x_.min);
}

void Plot::ticks(const PlotAxis& a, bool vertical, bool right_side) {
  const auto& fmt = a.format ? a.format : default_format;
  const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
  for (double v : tick_values(a)) {
    const std::string s = fmt(v);
    const ImVec2 ts = ImGui::CalcTextSize(s.c_str());
    if (vertical) {
      const float py = to_px(a, v, p1_.y, p0_.y);
      if (!right_side) dl_->AddLine({p0_.x, py}, {p1_.x, py}, palette::grid);
      const float px = right_side ? p1_.x + 4 : p0_.x - ts.x - 4;
      dl_->AddText({px, py - ts.y / 2}, text_col, s.c_str());
    } else {
      const float px = to_px(a, v, p0_.x, p1_.x);
      dl_->AddLine({px, p0_.y}, {px, p1_.y}, palette::grid);
      dl_->AddText({px - ts.x / 2, p1_.y + 3}, text_col, s.c_str());
    }
  }
}

bool Plot::begin(const char* id, ImVec2 size, PlotAxis x, PlotAxis y, const PlotAxis* y2) {
  x_ = std::move(x);
  y_ = std::move(y);
  has_y2_ = y2 != nullptr;
  if (has_y2_) y2_ = *y2;
  if (size.x <= 0) size.x = ImGui::GetContentRegionAvail().x;
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton(id, size);
  hovered_ = ImGui::IsItemHovered();
  visible_ = ImGui::IsItemVisible();
  if (!visible_) return false;
  dl_ = ImGui::GetWindowDrawList();
  // Margins wide enough for the longest tick label on each side.
  auto label_width = [](const PlotAxis& a) {
    float w = 0;
    const auto& fmt = a.format ? a.format : default_format;
    for (double v : tick_values(a)) w = std::max(w, ImGui::CalcTextSize(fmt(v).c_str()).x);
    return w + 10.0f;
  };
  const float left = std::max(4 * line_h(), label_width(y_));
  const float right = has_y2_ ? std::max(4 * line_h(), label_width(y2_)) : line_h();
  p0_ = {o.x + left, o.y + line_h() * 0.5f};
  p1_ = {o.x + size.x - right, o.y + size.y - (2 * line_h() + 8)};
  dl_->AddRectFilled(p0_, p1_, IM_COL32(20, 22, 28, 255));
  ticks(x_, false, false);
  ticks(y_, true, false);
  if (has_y2_) ticks(y2_, true, true);
  dl_->AddRect(p0_, p1_, palette::grey);
  const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
  const ImVec2 xs = ImGui::CalcTextSize(x_.label.c_str());
  dl_->AddText({(p0_.x + p1_.x - xs.x) / 2, p1_.y + line_h() + 5}, text_col, x_.label.c_str());
  // Vertical axis titles sit above the plot corners: ImDrawList has no rotated text.
  dl_->AddText({p0_.x + 4, p0_.y + 2}, text_col, y_.label.c_str());
  if (has_y2_) {
    const ImVec2 ys = ImGui::CalcTextSize(y2_.label.c_str());
    dl_->AddText({p1_.x - ys.x - 4, p0_.y + 2}, text_col, y2_.label.c_str());
  }
  dl_->PushClipRect(p0_, p1_, true);
  return true;
}

void Plot::end() {
  if (visible_) dl_->PopClipRect();
  visible_ = false;
}

void Plot::line(const std::vector<double>& xs, const std::vector<double>& ys, ImU32 col,
                float thickness, bool right) {
  if (!visible_) return;
  std::vector<ImVec2> pts;
  pts.reserve(xs.size());
  for (std::size_t i = 0; i < xs.size() && i < ys.size(); ++i)
    pts.push_back(map(xs[i], ys[i], right));
  if (pts.size() >= 2) {
    dl_->AddPolyline(pts.data(), static_cast<int>(pts.size()), col, ImDrawFlags_None,
                     thickness * ui_scale());
  }
}

void Plot::segment(double x0, double y0, double x1, double y1, ImU32 col, float thickness,
                   bool dashed, bool right) {
  if (!visible_) return;
  const ImVec2 a = map(x0, y0, right), b = map(x1, y1, right);
  thickness *= ui_scale();
  if (!dashed) {
    dl_->AddLine(a, b, col, thickness);
    return;
  }
  const float len = std::hypot(b.x - a.x, b.y - a.y);
  const int n = std::max(1, static_cast<int>(len / 6.0f));
  for (int i = 0; i < n; i += 2) {
    const float t0 = static_cast<float>(i) / static_cast<float>(n);
    const float t1 = static_cast<float>(std::min(i + 1, n)) / static_cast<float>(n);
    dl_->AddLine({a.x + (b.x - a.x) * t0, a.y + (b.y - a.y) * t0},
                 {a.x + (b.x - a.x) * t1, a.y + (b.y - a.y) * t1}, col, thickness);
  }
}

void Plot::vline(double x, ImU32 col, const char* label, bool dashed, int label_row) {
  if (!visible_) return;
  const float px = map(x, y_.min).x;
  if (dashed) {
    for (float y = p0_.y; y < p1_.y; y += 8)
      dl_->AddLine({px, y}, {px, std::min(y + 4, p1_.y)}, col, 1.5f);
  } else {
    dl_->AddLine({px, p0_.y}, {px, p1_.y}, col, 1.5f);
  }
  if (label != nullptr) {
    // Labels go right of the line, or left of it near the right edge; rows keep them apart.
    const ImVec2 ts = ImGui::CalcTextSize(label);
    const float lx = px + 3 + ts.x > p1_.x ? px - ts.x - 3 : px + 3;
    dl_->AddText({lx, p0_.y + line_h() * 1.4f + static_cast<float>(label_row) * (ts.y + 2)}, col,
                 label);
  }
}

void Plot::shade_x(double x0, double x1, ImU32 col) {
  if (!visible_) return;
  dl_->AddRectFilled({map(x0, y_.min).x, p0_.y}, {map(x1, y_.min).x, p1_.y}, col);
}

void Plot::marker(double x, double y, ImU32 col, Marker m, float r, bool right) {
  if (!visible_) return;
  const ImVec2 c = map(x, y, right);
  r *= ui_scale();
  switch (m) {
    case Marker::circle:
      dl_->AddCircleFilled(c, r, col);
      break;
    case Marker::square:
      dl_->AddRectFilled({c.x - r, c.y - r}, {c.x + r, c.y + r}, col);
      break;
    case Marker::diamond:
      dl_->AddQuadFilled({c.x, c.y - r - 1}, {c.x + r + 1, c.y}, {c.x, c.y + r + 1},
                         {c.x - r - 1, c.y}, col);
      break;
  }
}

void Plot::text(double x, double y, const char* s, ImU32 col, bool right) {
  if (!visible_) return;
  dl_->AddText(map(x, y, right), col, s);
}

void hbar_chart(const char* id, const std::vector<std::string>& labels,
                const std::vector<double>& values, ImU32 col,
                const std::function<std::string(double)>& format, float width, int highlight) {
  const float row_h = ImGui::GetTextLineHeight() + 4;
  float label_w = ImGui::GetFontSize() * 4;
  for (const auto& l : labels) label_w = std::max(label_w, ImGui::CalcTextSize(l.c_str()).x + 10);
  const float value_w = ImGui::GetFontSize() * 6.5f;
  if (width <= 0) width = ImGui::GetContentRegionAvail().x;
  const ImVec2 size{width, row_h * static_cast<float>(labels.size()) + 4};
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton(id, {size.x, std::max(size.y, 1.0f)});
  if (!ImGui::IsItemVisible()) return;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  double vmax = 0;
  for (double v : values) vmax = std::max(vmax, v);
  const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
  const float bar_w = std::max(10.0f, width - label_w - value_w);
  for (std::size_t i = 0; i < labels.size() && i < values.size(); ++i) {
    const float y = o.y + 2 + row_h * static_cast<float>(i);
    dl->AddText({o.x, y}, text_col, labels[i].c_str());
    const float w = vmax > 0 ? static_cast<float>(values[i] / vmax) * bar_w : 0;
    const bool hi = static_cast<int>(i) == highlight;
    if (w > 0.5f) {
      dl->AddRectFilled({o.x + label_w, y + 1}, {o.x + label_w + w, y + row_h - 3},
                        hi ? palette::yellow : col, 2.0f);
    }
    const std::string v = format(values[i]);
    dl->AddText({o.x + label_w + w + 4, y}, text_col, v.c_str());
  }
}

void stacked_bar(const char* id, const std::vector<BarSegment>& segments, double capacity,
                 const std::function<std::string(double)>& format, ImVec2 size) {
  if (size.x <= 0) size.x = ImGui::GetContentRegionAvail().x;
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton(id, size);
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  double total = 0;
  for (const auto& s : segments) total += s.value;
  const double scale_max = std::max(total, capacity) * 1.02;
  if (scale_max <= 0) return;
  auto px = [&](double v) { return o.x + static_cast<float>(v / scale_max) * size.x; };
  dl->AddRectFilled(o, {o.x + size.x, o.y + size.y}, IM_COL32(20, 22, 28, 255));
  double acc = 0;
  const std::string* hover_label = nullptr;
  double hover_value = 0;
  for (const auto& s : segments) {
    const float x0 = px(acc), x1 = px(acc + s.value);
    dl->AddRectFilled({x0, o.y}, {x1, o.y + size.y}, s.col);
    if (hovered && ImGui::GetIO().MousePos.x >= x0 && ImGui::GetIO().MousePos.x < x1) {
      hover_label = &s.label;
      hover_value = s.value;
    }
    acc += s.value;
  }
  if (capacity > 0 && total > capacity) {
    dl->AddRectFilled({px(capacity), o.y + size.y * 0.7f}, {px(total), o.y + size.y}, palette::red);
  }
  if (capacity > 0) {
    const float cx = px(capacity);
    dl->AddLine({cx, o.y - 3}, {cx, o.y + size.y + 3}, IM_COL32(255, 255, 255, 230), 2.0f);
  }
  dl->AddRect(o, {o.x + size.x, o.y + size.y}, palette::grey);
  if (hover_label != nullptr) {
    ImGui::SetTooltip("%s: %s (%.1f%% of capacity)", hover_label->c_str(),
                      format(hover_value).c_str(),
                      capacity > 0 ? 100.0 * hover_value / capacity : 0.0);
  }
}

void legend_item(ImU32 col, const char* text) {
  const float h = ImGui::GetTextLineHeight();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImGui::GetWindowDrawList()->AddRectFilled({p.x, p.y + h * 0.2f}, {p.x + h * 0.6f, p.y + h * 0.8f},
                                            col);
  ImGui::Dummy({h * 0.7f, h});
  ImGui::SameLine();
  ImGui::TextUnformatted(text);
}

}  // namespace infercap::gui
