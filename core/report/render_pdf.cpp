// PDF through cairo: A4 pages laid out twice (the first pass finds where each section starts,
// so the table of contents and the "page n of N" footers are right), fonts embedded by cairo as
// subsets. Noto Sans CJK covers Latin and Chinese, so both languages use one face.
#include <cairo-pdf.h>
#include <cairo.h>
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "infercap/report/render.hpp"
#include "render_common.hpp"

namespace infercap::report {

namespace {

using detail::Anchor;
using detail::Rgb;

constexpr double kPageW = 595.28, kPageH = 841.89;
constexpr double kLeft = 48, kRight = 48, kTop = 54, kBottom = 60;
constexpr double kWidth = kPageW - kLeft - kRight;
constexpr const char* kSans = "Noto Sans CJK SC";
constexpr const char* kMono = "Noto Sans Mono CJK SC";

void set_font(cairo_t* cr, double size, bool bold = false, bool mono = false) {
  cairo_select_font_face(cr, mono ? kMono : kSans, CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
}

double width_of(cairo_t* cr, const std::string& s) {
  cairo_text_extents_t e;
  cairo_text_extents(cr, s.c_str(), &e);
  return e.x_advance;
}

// Greedy line breaking: Latin words stay whole (unless wider than a line), CJK characters break
// anywhere.
std::vector<std::string> wrap(cairo_t* cr, const std::string& text, double w) {
  std::vector<std::string> tokens;
  std::string cur;
  for (const auto& ch : detail::utf8_chars(text)) {
    if (ch == "\n") {
      if (!cur.empty()) tokens.push_back(cur);
      tokens.emplace_back("\n");
      cur.clear();
    } else if (detail::is_wide(ch)) {
      if (!cur.empty()) tokens.push_back(cur);
      tokens.push_back(ch);
      cur.clear();
    } else {
      cur += ch;
      if (ch == " " || ch == "/" || ch == "-" || ch == ",") {
        tokens.push_back(cur);
        cur.clear();
      }
    }
  }
  if (!cur.empty()) tokens.push_back(cur);
  std::vector<std::string> lines;
  std::string line;
  for (const auto& t : tokens) {
    if (t == "\n") {
      lines.push_back(line);
      line.clear();
      continue;
    }
    if (width_of(cr, line + t) <= w || line.empty()) {
      line += t;
      // A token wider than the line: cut it by characters.
      while (width_of(cr, line) > w && detail::utf8_chars(line).size() > 1) {
        auto cs = detail::utf8_chars(line);
        std::string head;
        size_t i = 0;
        while (i < cs.size() && width_of(cr, head + cs[i]) <= w) head += cs[i++];
        if (head.empty()) head = cs[i++];
        lines.push_back(head);
        line.clear();
        for (; i < cs.size(); ++i) line += cs[i];
      }
    } else {
      while (!line.empty() && line.back() == ' ') line.pop_back();
      lines.push_back(line);
      line = t.front() == ' ' ? "" : t;
      if (width_of(cr, line) > w) {
        auto cs = detail::utf8_chars(line);
        line.clear();
        for (const auto& c : cs) {
          if (width_of(cr, line + c) > w && !line.empty()) {
            lines.push_back(line);
            line.clear();
          }
          line += c;
        }
      }
    }
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

class CairoCanvas final : public detail::Canvas {
 public:
  explicit CairoCanvas(cairo_t* cr) : cr_(cr) {}
  void line(double x1, double y1, double x2, double y2, Rgb c, double w, bool dashed) override {
    cairo_set_source_rgb(cr_, c.r, c.g, c.b);
    cairo_set_line_width(cr_, w);
    const double d[] = {3, 3};
    cairo_set_dash(cr_, d, dashed ? 2 : 0, 0);
    cairo_move_to(cr_, x1, y1);
    cairo_line_to(cr_, x2, y2);
    cairo_stroke(cr_);
    cairo_set_dash(cr_, d, 0, 0);
  }
  void polyline(const std::vector<std::pair<double, double>>& p, Rgb c, double w) override {
    if (p.empty()) return;
    cairo_set_source_rgb(cr_, c.r, c.g, c.b);
    cairo_set_line_width(cr_, w);
    cairo_move_to(cr_, p[0].first, p[0].second);
    for (size_t i = 1; i < p.size(); ++i) cairo_line_to(cr_, p[i].first, p[i].second);
    cairo_stroke(cr_);
  }
  void rect(double x, double y, double w, double h, Rgb f) override {
    cairo_set_source_rgb(cr_, f.r, f.g, f.b);
    cairo_rectangle(cr_, x, y, w, h);
    cairo_fill(cr_);
  }
  void circle(double x, double y, double r, Rgb f) override {
    cairo_set_source_rgb(cr_, f.r, f.g, f.b);
    cairo_new_sub_path(cr_);
    cairo_arc(cr_, x, y, r, 0, 2 * M_PI);
    cairo_fill(cr_);
  }
  void text(double x, double y, std::string_view s, double size, Rgb c, Anchor a, bool bold,
            double rotate) override {
    set_font(cr_, size, bold);
    const std::string str(s);
    const double w = width_of(cr_, str);
    const double dx = a == Anchor::start ? 0 : a == Anchor::middle ? -w / 2 : -w;
    cairo_save(cr_);
    cairo_translate(cr_, x, y);
    if (rotate != 0) cairo_rotate(cr_, rotate * M_PI / 180);
    cairo_set_source_rgb(cr_, c.r, c.g, c.b);
    cairo_move_to(cr_, dx, 0);
    cairo_show_text(cr_, str.c_str());
    cairo_restore(cr_);
  }
  double text_width(std::string_view s, double size) override {
    set_font(cr_, size);
    return width_of(cr_, std::string(s));
  }

 private:
  cairo_t* cr_;
};

// One pass over the document. With draw == false nothing is shown (the context is a scratch
// surface) but pages are counted the same way.
class Layout {
 public:
  Layout(cairo_t* cr, cairo_surface_t* pdf, const Document& d, bool draw, std::vector<int> starts,
         int total)
      : cr_(cr), pdf_(pdf), d_(d), draw_(draw), starts_(std::move(starts)), total_(total) {}

  std::vector<int> section_pages;
  int pages = 0;

  void run() {
    title_page();
    for (size_t i = 0; i < d_.sections.size(); ++i) {
      new_page();
      section_pages.push_back(pages);
      if (draw_ && pdf_ != nullptr) {
        const std::string t = fmt::format("{}. {}", i + 1, d_.sections[i].title);
        cairo_pdf_surface_add_outline(pdf_, CAIRO_PDF_OUTLINE_ROOT, t.c_str(),
                                      fmt::format("page={}", pages).c_str(),
                                      CAIRO_PDF_OUTLINE_FLAG_OPEN);
      }
      section(d_.sections[i], i + 1);
    }
    finish_page();
  }

 private:
  void ink(double g) { cairo_set_source_rgb(cr_, g, g, g); }

  void show(double x, double y, const std::string& s) {
    if (!draw_) return;
    cairo_move_to(cr_, x, y);
    cairo_show_text(cr_, s.c_str());
  }

  void finish_page() {
    if (pages == 0) return;
    if (draw_) {
      set_font(cr_, 7.5);
      ink(0.45);
      show(kLeft, kPageH - 30, d_.footer);
      const std::string p = fmt::format(fmt::runtime(d_.page_label), pages, total_);
      show(kPageW - kRight - width_of(cr_, p), kPageH - 30, p);
      cairo_set_line_width(cr_, 0.4);
      cairo_move_to(cr_, kLeft, kPageH - 40);
      cairo_line_to(cr_, kPageW - kRight, kPageH - 40);
      cairo_stroke(cr_);
      cairo_show_page(cr_);
    }
  }

  void new_page() {
    finish_page();
    ++pages;
    y_ = kTop;
  }

  void need(double h) {
    if (y_ + h > kPageH - kBottom) new_page();
  }

  void title_page() {
    new_page();
    set_font(cr_, 22, true);
    ink(0.1);
    y_ = kTop + 40;
    for (const auto& l : wrap(cr_, d_.title, kWidth)) {
      show(kLeft, y_, l);
      y_ += 28;
    }
    set_font(cr_, 12);
    ink(0.35);
    show(kLeft, y_ + 4, d_.subtitle);
    y_ += 50;
    set_font(cr_, 15, true);
    ink(0.1);
    show(kLeft, y_, d_.toc_title);
    y_ += 26;
    set_font(cr_, 11);
    for (size_t i = 0; i < d_.sections.size(); ++i) {
      const std::string t = fmt::format("{}. {}", i + 1, d_.sections[i].title);
      const std::string p = i < starts_.size() ? std::to_string(starts_[i]) : "";
      show(kLeft, y_, t);
      show(kPageW - kRight - width_of(cr_, p), y_, p);
      if (draw_) {
        // Dot leader between the title and its page number.
        ink(0.6);
        const double x0 = kLeft + width_of(cr_, t) + 6, x1 = kPageW - kRight - width_of(cr_, p) - 6;
        for (double x = x0; x < x1; x += 5) show(x, y_, ".");
        ink(0.1);
      }
      y_ += 20;
    }
  }

  void paragraph(const std::string& text, double size, bool bold, double indent = 0,
                 const std::string& marker = "") {
    set_font(cr_, size, bold);
    const double lh = size * 1.45;
    const auto lines = wrap(cr_, text, kWidth - indent);
    for (size_t i = 0; i < lines.size(); ++i) {
      need(lh);
      set_font(cr_, size, bold);
      ink(0.12);
      if (i == 0 && !marker.empty()) show(kLeft + indent - 14, y_ + size, marker);
      show(kLeft + indent, y_ + size, lines[i]);
      y_ += lh;
    }
    y_ += size * 0.5;
  }

  void section(const Section& s, size_t n) {
    set_font(cr_, 16, true);
    ink(0.0);
    cairo_set_source_rgb(cr_, 0.0, 0.35, 0.6);
    show(kLeft, y_ + 16, fmt::format("{}. {}", n, s.title));
    y_ += 24;
    if (draw_) {
      cairo_set_line_width(cr_, 1.2);
      cairo_move_to(cr_, kLeft, y_);
      cairo_line_to(cr_, kPageW - kRight, y_);
      cairo_stroke(cr_);
    }
    y_ += 10;
    for (const auto& b : s.blocks) {
      switch (b.kind) {
        case BlockKind::paragraph:
          paragraph(b.text, 9.5, false);
          break;
        case BlockKind::subheading:
          need(120);  // never a heading alone at the foot of a page
          y_ += 4;
          paragraph(b.text, 11.5, true);
          break;
        case BlockKind::bullets:
          for (const auto& it : b.items) paragraph(it, 9.5, false, 16, "•");
          break;
        case BlockKind::numbered:
          for (size_t i = 0; i < b.items.size(); ++i)
            paragraph(b.items[i], 9.5, false, 16, fmt::format("{}.", i + 1));
          break;
        case BlockKind::code:
          code(b.text);
          break;
        case BlockKind::table:
          table(b.table);
          break;
        case BlockKind::chart:
          chart(b.chart);
          break;
      }
    }
  }

  void code(const std::string& text) {
    const double size = 7, lh = 9.2;
    set_font(cr_, size, false, true);
    const auto lines = wrap(cr_, text, kWidth - 12);
    size_t i = 0;
    while (i < lines.size()) {
      need(lh * 2);
      // As many lines as fit on this page, on one grey box.
      size_t n = 0;
      while (i + n < lines.size() && y_ + 6 + static_cast<double>(n + 1) * lh <= kPageH - kBottom)
        ++n;
      if (draw_) {
        cairo_set_source_rgb(cr_, 0.95, 0.95, 0.95);
        cairo_rectangle(cr_, kLeft, y_, kWidth, static_cast<double>(n) * lh + 6);
        cairo_fill(cr_);
      }
      set_font(cr_, size, false, true);
      ink(0.1);
      for (size_t k = 0; k < n; ++k)
        show(kLeft + 6, y_ + 3 + static_cast<double>(k + 1) * lh - 2, lines[i + k]);
      y_ += static_cast<double>(n) * lh + 10;
      i += n;
    }
  }

  // The widest a column would like at `size` pt (capped at 170 pt) over its header and cells.
  std::vector<double> natural_widths(const Table& t, double size) {
    std::vector<double> nat(t.columns.size(), 0);
    for (size_t c = 0; c < t.columns.size(); ++c) {
      set_font(cr_, size, true);
      // As table() measures a header: about half its length (two lines), its widest word at least.
      const std::string& h = t.columns[c].header;
      double piece = 0;
      std::string tok;
      for (const auto& ch : detail::utf8_chars(h + " ")) {
        if (ch == " " || detail::is_wide(ch)) {
          piece = std::max(piece, width_of(cr_, tok + (detail::is_wide(ch) ? ch : "")));
          tok.clear();
        } else {
          tok += ch;
        }
      }
      const double full = width_of(cr_, h);
      nat[c] = std::min(full, std::max(piece, 0.55 * full));
      set_font(cr_, size);
      for (const auto& r : t.rows)
        nat[c] = std::max(nat[c], width_of(cr_, detail::cell_text(t.columns[c], r[c])));
      nat[c] = std::min(170.0, nat[c]) + 6;
    }
    return nat;
  }

  // A table too wide for the page at kMinSplitSize pt is printed in parts, each with the table's
  // key columns (the candidate's rank and name) in front, so every number keeps a legible size
  // and its row's name; the parts share out the other columns evenly by width.
  static constexpr double kMinSplitSize = 7;
  bool split_table(const Table& t) {
    const size_t nc = t.columns.size();
    const size_t keys = std::min(nc, static_cast<size_t>(std::max(0, t.key_columns)));
    if (nc < 8 || keys == 0 || keys >= nc - 1) return false;
    const std::vector<double> nat = natural_widths(t, kMinSplitSize);
    double key_w = 0, rest_w = 0, total_w = 0;
    for (size_t c = 0; c < nc; ++c) {
      (c < keys ? key_w : rest_w) += nat[c];
      total_w += nat[c];
    }
    if (total_w <= kWidth) return false;
    const double budget = kWidth - key_w;
    if (budget < kWidth / 3) return false;  // the keys alone fill the page: shrink instead
    const int parts = static_cast<int>(std::ceil(rest_w / budget));
    const double target = rest_w / parts;
    std::vector<std::vector<size_t>> groups(1);
    double used = 0;
    for (size_t c = keys; c < nc; ++c) {
      // A column goes to the next part when it would overflow this one, or when more than half
      // of it would lie past this part's even share.
      const bool full = used + nat[c] > budget ||
                        (used + nat[c] / 2 > target && static_cast<int>(groups.size()) < parts);
      if (full && !groups.back().empty()) {
        groups.emplace_back();
        used = 0;
      }
      groups.back().push_back(c);
      used += nat[c];
    }
    for (size_t g = 0; g < groups.size(); ++g) {
      Table part;
      part.id = t.id;
      part.caption = t.caption.empty() ? t.caption
                                       : fmt::format("{} ({}/{})", t.caption, g + 1, groups.size());
      part.total_row = t.total_row;
      part.total_label = t.total_label;
      std::vector<size_t> cols;
      for (size_t c = 0; c < keys; ++c) cols.push_back(c);
      cols.insert(cols.end(), groups[g].begin(), groups[g].end());
      for (size_t c : cols) part.columns.push_back(t.columns[c]);
      for (const auto& r : t.rows) {
        std::vector<Cell> row;
        for (size_t c : cols) row.push_back(r[c]);
        part.rows.push_back(std::move(row));
      }
      table(part, false);
    }
    return true;
  }

  void table(const Table& t, bool may_split = true) {
    if (may_split && split_table(t)) return;
    const size_t nc = t.columns.size();
    std::vector<std::vector<std::string>> cells;
    for (const auto& r : t.rows) {
      std::vector<std::string> row;
      for (size_t c = 0; c < nc; ++c) row.push_back(detail::cell_text(t.columns[c], r[c]));
      cells.push_back(std::move(row));
    }
    if (t.total_row) {
      std::vector<std::string> row;
      for (size_t c = 0; c < nc; ++c)
        row.push_back(c == 0 ? t.total_label : detail::total_text(t, c));
      cells.push_back(std::move(row));
    }
    // Font size and column widths: natural widths if they fit, else shrink the font (down to
    // 5.5 pt) and share the rest in proportion to what each column would like.
    double size = 8;
    std::vector<double> w(nc);
    const double pad = 3;
    for (;; size -= 0.5) {
      set_font(cr_, size);
      std::vector<double> mn(nc, 0), nat(nc, 0);
      for (size_t c = 0; c < nc; ++c) {
        auto measure = [&](const std::string& s, bool bold, bool header) {
          set_font(cr_, size, bold);
          // The widest unbreakable piece (a word, or one CJK character).
          double piece = 0;
          std::string tok;
          for (const auto& ch : detail::utf8_chars(s + " ")) {
            if (ch == " " || detail::is_wide(ch)) {
              piece = std::max(piece, width_of(cr_, tok + (detail::is_wide(ch) ? ch : "")));
              tok.clear();
            } else {
              tok += ch;
            }
          }
          mn[c] = std::max(mn[c], std::min(60.0, piece) + 2 * pad);
          // A header is happy on two lines: its natural width is about half its length.
          const double full = width_of(cr_, s);
          const double want = header ? std::min(full, std::max(piece, 0.55 * full)) : full;
          nat[c] = std::max(nat[c], std::min(170.0, want) + 2 * pad);
        };
        measure(t.columns[c].header, true, true);
        for (size_t r = 0; r < cells.size(); ++r)
          measure(cells[r][c], t.total_row && r + 1 == cells.size(), false);
      }
      double smin = 0, snat = 0;
      for (size_t c = 0; c < nc; ++c) {
        smin += mn[c];
        snat += nat[c];
      }
      if (snat <= kWidth) {
        w = nat;
        break;
      }
      // Natural widths that would fit at 7 pt (widths scale with the size, padding aside):
      // shrink to them rather than wrap cells at a larger size.
      const double pads = 2 * pad * static_cast<double>(nc);
      const bool fits_smaller = size > 7 && (snat - pads) * 7 / size + pads <= kWidth;
      if ((smin <= kWidth && !fits_smaller) || size <= 5.5) {
        const double extra = std::max(0.0, kWidth - smin);
        for (size_t c = 0; c < nc; ++c) {
          w[c] = snat > smin ? mn[c] + extra * (nat[c] - mn[c]) / (snat - smin)
                             : kWidth / static_cast<double>(nc);
        }
        if (smin > kWidth)
          for (auto& x : w) x *= kWidth / smin;
        break;
      }
    }
    const double lh = size * 1.3;
    auto row_lines = [&](const std::vector<std::string>& r, bool bold) {
      std::vector<std::vector<std::string>> out;
      set_font(cr_, size, bold);
      for (size_t c = 0; c < nc; ++c) out.push_back(wrap(cr_, r[c], w[c] - 2 * pad));
      return out;
    };
    std::vector<std::string> header;
    for (const auto& c : t.columns) header.push_back(c.header);
    const auto hl = row_lines(header, true);
    size_t hn = 1;
    for (const auto& l : hl) hn = std::max(hn, l.size());
    const double hh = static_cast<double>(hn) * lh + 2 * pad;
    auto draw_row = [&](const std::vector<std::vector<std::string>>& lines, double h, bool bold,
                        bool head, bool numeric_right) {
      double x = kLeft;
      if (draw_) {
        cairo_set_source_rgb(cr_, head ? 0.93 : 1, head ? 0.95 : 1, head ? 0.97 : 1);
        double tw = 0;
        for (double x2 : w) tw += x2;
        cairo_rectangle(cr_, kLeft, y_, tw, h);
        cairo_fill(cr_);
      }
      (void)numeric_right;
      for (size_t c = 0; c < nc; ++c) {
        if (draw_) {
          cairo_set_line_width(cr_, 0.4);
          cairo_set_source_rgb(cr_, 0.75, 0.75, 0.75);
          cairo_rectangle(cr_, x, y_, w[c], h);
          cairo_stroke(cr_);
        }
        set_font(cr_, size, bold);
        ink(0.1);
        const bool right = !head && t.columns[c].type != ColType::text;
        for (size_t k = 0; k < lines[c].size(); ++k) {
          const double tw = width_of(cr_, lines[c][k]);
          show(right ? x + w[c] - pad - tw : x + pad,
               y_ + pad + static_cast<double>(k + 1) * lh - size * 0.3, lines[c][k]);
        }
        x += w[c];
      }
      y_ += h;
    };
    // The caption, the header and the first row go together: none alone at the foot of a page.
    double first = lh + 2 * pad;
    if (!cells.empty()) {
      size_t n = 1;
      for (const auto& l : row_lines(cells.front(), false)) n = std::max(n, l.size());
      first = std::min(kPageH - kTop - kBottom - hh - 40, static_cast<double>(n) * lh + 2 * pad);
    }
    if (!t.caption.empty()) {
      need(hh + first + 24);
      set_font(cr_, 8.5);
      ink(0.3);
      for (const auto& l : wrap(cr_, t.caption, kWidth)) {
        show(kLeft, y_ + 8.5, l);
        y_ += 12;
      }
      y_ += 2;
    }
    need(hh + first);
    draw_row(hl, hh, true, true, false);
    for (size_t r = 0; r < cells.size(); ++r) {
      const bool total = t.total_row && r + 1 == cells.size();
      const auto rl = row_lines(cells[r], total);
      size_t n = 1;
      for (const auto& l : rl) n = std::max(n, l.size());
      const double h = static_cast<double>(n) * lh + 2 * pad;
      if (y_ + h > kPageH - kBottom) {
        new_page();
        draw_row(hl, hh, true, true, false);  // the header again on the new page
      }
      draw_row(rl, h, total, false, true);
    }
    y_ += 12;
  }

  void chart(const Chart& ch) {
    const double h = 250;
    need(h + 10);
    if (draw_) {
      cairo_save(cr_);
      cairo_translate(cr_, kLeft, y_);
      CairoCanvas cv(cr_);
      detail::draw_chart(cv, ch, kWidth, h, d_.lang);
      cairo_restore(cr_);
    }
    y_ += h + 14;
  }

  cairo_t* cr_;
  cairo_surface_t* pdf_;
  const Document& d_;
  bool draw_;
  std::vector<int> starts_;
  int total_;
  double y_ = kTop;
};

}  // namespace

Result<int> write_pdf(const Document& d, const std::string& path) {
  // Pass 1 on a scratch surface: where sections start and how many pages there are.
  cairo_surface_t* scratch = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t* sc = cairo_create(scratch);
  Layout probe(sc, nullptr, d, false, {}, 0);
  probe.run();
  cairo_destroy(sc);
  cairo_surface_destroy(scratch);

  cairo_surface_t* pdf = cairo_pdf_surface_create(path.c_str(), kPageW, kPageH);
  if (cairo_surface_status(pdf) != CAIRO_STATUS_SUCCESS) {
    const std::string why = cairo_status_to_string(cairo_surface_status(pdf));
    cairo_surface_destroy(pdf);
    return Error{why};
  }
  cairo_pdf_surface_set_metadata(pdf, CAIRO_PDF_METADATA_TITLE, d.title.c_str());
  cairo_pdf_surface_set_metadata(pdf, CAIRO_PDF_METADATA_CREATOR, "infercap report");
  cairo_t* cr = cairo_create(pdf);
  Layout real(cr, pdf, d, true, probe.section_pages, probe.pages);
  real.run();
  cairo_destroy(cr);
  cairo_surface_finish(pdf);
  const cairo_status_t st = cairo_surface_status(pdf);
  cairo_surface_destroy(pdf);
  if (st != CAIRO_STATUS_SUCCESS) return Error{cairo_status_to_string(st)};
  return real.pages;
}

}  // namespace infercap::report
