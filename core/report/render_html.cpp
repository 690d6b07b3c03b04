// HTML: one self-contained file, inline CSS and SVG, printable; every string escaped.
#include <fmt/core.h>

#include <cmath>

#include "infercap/report/render.hpp"
#include "render_common.hpp"

namespace infercap::report {

std::string html_escape(std::string_view s) {
  std::string o;
  o.reserve(s.size() + 16);
  for (char ch : s) {
    switch (ch) {
      case '&':
        o += "&amp;";
        break;
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '"':
        o += "&quot;";
        break;
      case '\'':
        o += "&#39;";
        break;
      default:
        o += ch;
    }
  }
  return o;
}

namespace {

using detail::Anchor;
using detail::Rgb;

std::string rgb(Rgb c) {
  return fmt::format("#{:02x}{:02x}{:02x}", static_cast<int>(c.r * 255),
                     static_cast<int>(c.g * 255), static_cast<int>(c.b * 255));
}

class SvgCanvas final : public detail::Canvas {
 public:
  std::string out;
  void line(double x1, double y1, double x2, double y2, Rgb c, double w, bool dashed) override {
    out += fmt::format(
        R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}" stroke-width="{}"{}/>)",
        x1, y1, x2, y2, rgb(c), w, dashed ? R"( stroke-dasharray="3,3")" : "");
  }
  void polyline(const std::vector<std::pair<double, double>>& p, Rgb c, double w) override {
    std::string pts;
    for (const auto& [x, y] : p) pts += fmt::format("{:.1f},{:.1f} ", x, y);
    out += fmt::format(R"(<polyline points="{}" fill="none" stroke="{}" stroke-width="{}"/>)", pts,
                       rgb(c), w);
  }
  void rect(double x, double y, double w, double h, Rgb f) override {
    out += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}"/>)",
                       x, y, w, h, rgb(f));
  }
  void circle(double x, double y, double r, Rgb f) override {
    out += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="{}" fill="{}"/>)", x, y, r, rgb(f));
  }
  void text(double x, double y, std::string_view s, double size, Rgb c, Anchor a, bool bold,
            double rotate) override {
    const char* anchor = a == Anchor::start ? "start" : a == Anchor::middle ? "middle" : "end";
    out += fmt::format(
        R"(<text x="{:.1f}" y="{:.1f}" font-size="{}" fill="{}" text-anchor="{}"{}{}>{}</text>)", x,
        y, size, rgb(c), anchor, bold ? R"( font-weight="bold")" : "",
        rotate != 0 ? fmt::format(R"x( transform="rotate({} {:.1f} {:.1f})")x", rotate, x, y) : "",
        html_escape(s));
  }
  double text_width(std::string_view s, double size) override {
    double w = 0;
    for (const auto& ch : detail::utf8_chars(s)) w += detail::is_wide(ch) ? size : size * 0.55;
    return w;
  }
};

const char* kCss = R"(
body{font-family:"Noto Sans","Noto Sans CJK SC","WenQuanYi Zen Hei",Helvetica,Arial,sans-serif;color:#222;max-width:1100px;margin:2em auto;padding:0 1em;line-height:1.45;font-size:14px}
h1{font-size:1.7em;margin-bottom:.1em}h2{border-bottom:2px solid #0072b2;padding-bottom:.2em;margin-top:2em}
h3{margin-top:1.4em}.subtitle{color:#555;margin-top:0}
table{border-collapse:collapse;margin:.4em 0 1.2em;font-size:12px;width:auto}
caption{caption-side:top;text-align:left;font-style:italic;color:#444;padding:.2em 0}
th,td{border:1px solid #ccc;padding:3px 6px;vertical-align:top}th{background:#eef3f8;text-align:left}
td.n{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}tr.total td{font-weight:bold;background:#f6f6f6}
pre{background:#f4f4f4;border:1px solid #ddd;padding:.6em;overflow-x:auto;font-size:12px;white-space:pre-wrap}
figure{margin:.6em 0 1.4em}svg{max-width:100%;height:auto;font-family:inherit}
nav ol{columns:2}.foot{color:#777;font-size:12px;margin-top:3em;border-top:1px solid #ddd;padding-top:.5em}
@page{size:A4;margin:16mm 14mm}
@media print{body{max-width:none;margin:0;font-size:11px}h2{break-before:page}table,figure,pre{break-inside:avoid}thead{display:table-header-group}a{color:inherit;text-decoration:none}}
)";

void table_html(std::string& o, const Table& t) {
  o += "<table id=\"t-" + html_escape(t.id) + "\">";
  if (!t.caption.empty()) o += "<caption>" + html_escape(t.caption) + "</caption>";
  o += "<thead><tr>";
  for (const auto& c : t.columns) o += "<th>" + html_escape(c.header) + "</th>";
  o += "</tr></thead><tbody>";
  for (const auto& r : t.rows) {
    o += "<tr>";
    for (size_t i = 0; i < r.size(); ++i) {
      const bool num = t.columns[i].type != ColType::text;
      o += (num ? "<td class=\"n\">" : "<td>") +
           html_escape(detail::cell_text(t.columns[i], r[i])) + "</td>";
    }
    o += "</tr>";
  }
  if (t.total_row) {
    o += "<tr class=\"total\">";
    for (size_t i = 0; i < t.columns.size(); ++i) {
      o += (i == 0 ? "<td>" + html_escape(t.total_label)
                   : "<td class=\"n\">" + html_escape(detail::total_text(t, i))) +
           "</td>";
    }
    o += "</tr>";
  }
  o += "</tbody></table>\n";
}

}  // namespace

std::string render_html(const Document& d) {
  const double w = 720, h = 330;
  std::string o = "<!DOCTYPE html>\n<html lang=\"";
  o += d.lang == Lang::zh ? "zh-CN" : "en";
  o += "\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">";
  o += "<title>" + html_escape(d.title) + "</title><style>" + kCss + "</style></head><body>\n";
  o += "<h1>" + html_escape(d.title) + "</h1><p class=\"subtitle\">" + html_escape(d.subtitle) +
       "</p>\n";
  o += "<nav><h2 style=\"break-before:auto\">" + html_escape(d.toc_title) + "</h2><ol>";
  for (const auto& s : d.sections)
    o += "<li><a href=\"#s-" + html_escape(s.id) + "\">" + html_escape(s.title) + "</a></li>";
  o += "</ol></nav>\n";
  for (size_t i = 0; i < d.sections.size(); ++i) {
    const Section& s = d.sections[i];
    o += fmt::format("<section id=\"s-{}\"><h2>{}. {}</h2>\n", html_escape(s.id), i + 1,
                     html_escape(s.title));
    for (const auto& b : s.blocks) {
      switch (b.kind) {
        case BlockKind::paragraph:
          o += "<p>" + html_escape(b.text) + "</p>\n";
          break;
        case BlockKind::subheading:
          o += "<h3>" + html_escape(b.text) + "</h3>\n";
          break;
        case BlockKind::bullets:
        case BlockKind::numbered: {
          const char* tag = b.kind == BlockKind::bullets ? "ul" : "ol";
          o += fmt::format("<{}>", tag);
          for (const auto& it : b.items) o += "<li>" + html_escape(it) + "</li>";
          o += fmt::format("</{}>\n", tag);
          break;
        }
        case BlockKind::code:
          o += "<pre><code>" + html_escape(b.text) + "</code></pre>\n";
          break;
        case BlockKind::table:
          table_html(o, b.table);
          break;
        case BlockKind::chart: {
          SvgCanvas cv;
          detail::draw_chart(cv, b.chart, w, h, d.lang);
          o += fmt::format(
              R"(<figure><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {}" width="{}" height="{}" role="img" aria-label="{}">)",
              w, h, w, h, html_escape(b.chart.title));
          o += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>" + cv.out +
               "</svg></figure>\n";
          break;
        }
      }
    }
    o += "</section>\n";
  }
  o += "<p class=\"foot\">" + html_escape(d.footer) + "</p>\n</body></html>\n";
  return o;
}

}  // namespace infercap::report
