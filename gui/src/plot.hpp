#pragma once
// A small plot widget drawn on ImDrawList: linear or log axes, grid and tick labels, polylines,
// markers, reference lines and a second y axis on the right. Coordinates passed in are data
// values; the widget maps them to pixels. No state survives a frame.
#include <imgui.h>

#include <functional>
#include <string>
#include <vector>

namespace infercap::gui {

struct PlotAxis {
  double min = 0;
  double max = 1;
  bool log = false;
  std::string label;
  std::function<std::string(double)> format;  ///< tick label; default "%g"
};

/// The tick values an axis draws: on log axes decades, with 2 and 5 (then 1..9) added while
/// fewer than three fall inside, and linear 1-2-5 steps for a range inside one decade step; on
/// linear axes 1-2-5 steps. At least three ticks for any range with max > min, at most ~12.
std::vector<double> tick_values(const PlotAxis& a);

enum class Marker { circle, square, diamond };

class Plot {
 public:
  /// Reserves `size` (negative x = fill the available width) and draws frame, grid and ticks.
  /// Returns false when the plot is clipped away; then skip the drawing calls (they are no-ops).
  bool begin(const char* id, ImVec2 size, PlotAxis x, PlotAxis y, const PlotAxis* y2 = nullptr);
  void end();

  /// Data (x, y) to screen; `right` maps y on the secondary axis.
  ImVec2 map(double x, double y, bool right = false) const;
  /// Screen x to data x (for hover read-outs).
  double unmap_x(float px) const;

  void line(const std::vector<double>& xs, const std::vector<double>& ys, ImU32 col,
            float thickness = 2.0f, bool right = false);
  void segment(double x0, double y0, double x1, double y1, ImU32 col, float thickness = 1.5f,
               bool dashed = false, bool right = false);
  void vline(double x, ImU32 col, const char* label = nullptr, bool dashed = true,
             int label_row = 0);
  void shade_x(double x0, double x1, ImU32 col);
  void marker(double x, double y, ImU32 col, Marker m = Marker::circle, float radius = 4.0f,
              bool right = false);
  void text(double x, double y, const char* s, ImU32 col, bool right = false);

  bool hovered() const { return hovered_; }
  ImVec2 mouse() const { return ImGui::GetIO().MousePos; }
  ImVec2 plot_min() const { return p0_; }
  ImVec2 plot_max() const { return p1_; }
  ImDrawList* draw_list() const { return dl_; }

 private:
  float to_px(const PlotAxis& a, double v, float lo, float hi) const;
  void ticks(const PlotAxis& a, bool vertical, bool right_side);

  ImDrawList* dl_ = nullptr;
  PlotAxis x_, y_, y2_;
  bool has_y2_ = false;
  bool visible_ = false;
  bool hovered_ = false;
  ImVec2 p0_, p1_;  ///< plot area, inside the axis margins
};

/// Horizontal bars with labels, one per value, scaled to the largest; `highlight` < 0 for none.
void hbar_chart(const char* id, const std::vector<std::string>& labels,
                const std::vector<double>& values, ImU32 col,
                const std::function<std::string(double)>& format, float width, int highlight = -1);

/// One stacked bar (e.g. memory use) against a capacity mark; segments over capacity show red.
struct BarSegment {
  std::string label;
  double value;
  ImU32 col;
};
void stacked_bar(const char* id, const std::vector<BarSegment>& segments, double capacity,
                 const std::function<std::string(double)>& format, ImVec2 size);

/// A legend chip: colored square and text on the current line.
void legend_item(ImU32 col, const char* text);

// A readable palette for dark backgrounds.
namespace palette {
inline constexpr ImU32 blue = IM_COL32(90, 160, 255, 255);
inline constexpr ImU32 orange = IM_COL32(255, 160, 60, 255);
inline constexpr ImU32 green = IM_COL32(100, 210, 120, 255);
inline constexpr ImU32 red = IM_COL32(240, 90, 90, 255);
inline constexpr ImU32 purple = IM_COL32(190, 130, 250, 255);
inline constexpr ImU32 yellow = IM_COL32(240, 220, 90, 255);
inline constexpr ImU32 grey = IM_COL32(150, 150, 150, 255);
inline constexpr ImU32 faint = IM_COL32(150, 150, 150, 110);
inline constexpr ImU32 grid = IM_COL32(255, 255, 255, 28);
}  // namespace palette

}  // namespace infercap::gui
