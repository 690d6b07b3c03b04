#pragma once
// Shared by the renderers: cell text and the one chart layout, drawn through a small canvas
// interface that SVG (HTML) and cairo (PDF) implement, so both formats draw the same chart.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "infercap/report/document.hpp"

namespace infercap::report::detail {

/// A cell as text: thousands separators for money and integers, the column's decimals,
/// percent as "12%". Empty cells are "–".
std::string cell_text(const Column& c, const Cell& v);
/// The total-row text of a summed column.
std::string total_text(const Table& t, size_t col);
/// Compact axis numbers: "1.2M", "300k" (en), "120万" (zh).
std::string axis_number(double v, Lang lang);

struct Rgb {
  double r, g, b;
};
/// The series palette (colour-blind safe, prints in grey distinguishably).
Rgb palette(size_t i);

enum class Anchor : unsigned char { start, middle, end };

class Canvas {
 public:
  virtual ~Canvas() = default;
  virtual void line(double x1, double y1, double x2, double y2, Rgb c, double width,
                    bool dashed) = 0;
  virtual void polyline(const std::vector<std::pair<double, double>>& pts, Rgb c, double width) = 0;
  virtual void rect(double x, double y, double w, double h, Rgb fill) = 0;
  virtual void circle(double x, double y, double r, Rgb fill) = 0;
  /// Text with its baseline at y; `rotate` -90 for a vertical axis label.
  virtual void text(double x, double y, std::string_view s, double size, Rgb c, Anchor a,
                    bool bold = false, double rotate = 0) = 0;
  virtual double text_width(std::string_view s, double size) = 0;
};

/// Draws `chart` into the box (0, 0, w, h) of `cv`: axes with ticks, series, a legend below.
void draw_chart(Canvas& cv, const Chart& chart, double w, double h, Lang lang);

/// UTF-8 code points of `s` (for width estimates and line breaking).
std::vector<std::string> utf8_chars(std::string_view s);
bool is_wide(std::string_view ch);  ///< CJK and full-width punctuation

}  // namespace infercap::report::detail
