// XLSX through libxlsxwriter: a sheet per section, numbers as numbers (units in the headers),
// formula columns and total rows as live formulas with their computed values cached, and the
// charts as native Excel charts over data written beside them.
#include <xlsxwriter.h>

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <memory>

#include "infercap/report/render.hpp"
#include "render_common.hpp"

namespace infercap::report {

namespace {

std::string col_letter(int c) {
  std::string s;
  for (++c; c > 0; c = (c - 1) / 26) s.insert(s.begin(), static_cast<char>('A' + (c - 1) % 26));
  return s;
}

// Excel sheet names: at most 31 characters, none of []:*?/\, unique.
std::string sheet_name(const std::string& title, int index, std::vector<std::string>& used) {
  std::string n = fmt::format("{} ", index);
  for (const auto& ch : detail::utf8_chars(title)) {
    if (ch.size() == 1 && std::string("[]:*?/\\'").find(ch[0]) != std::string::npos) continue;
    if (detail::utf8_chars(n).size() >= 31) break;
    n += ch;
  }
  while (std::find(used.begin(), used.end(), n) != used.end()) n += "_";
  used.push_back(n);
  return n;
}

std::string num_format(const Column& c) {
  switch (c.type) {
    case ColType::integer:
      return "#,##0";
    case ColType::money:
      return c.decimals > 0 ? "#,##0." + std::string(static_cast<size_t>(c.decimals), '0')
                            : "#,##0";
    case ColType::percent:
      return c.decimals > 0 ? "0." + std::string(static_cast<size_t>(c.decimals), '0') + "%" : "0%";
    case ColType::number:
      return c.decimals > 0 ? "0." + std::string(static_cast<size_t>(c.decimals), '0') : "0";
    case ColType::text:
      return "@";
  }
  return "General";
}

// "{devices}*{unit_price}" on sheet row r (0-based) -> "=D5*E5".
std::string excel_formula(const Table& t, const std::string& f, int row) {
  std::string out = "=";
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] == '{') {
      const size_t end = f.find('}', i);
      const int c = t.column(f.substr(i + 1, end - i - 1));
      out += col_letter(c) + std::to_string(row + 1);
      i = end;
    } else {
      out += f[i];
    }
  }
  return out;
}

class Writer {
 public:
  explicit Writer(lxw_workbook* wb) : wb_(wb) {
    bold_ = workbook_add_format(wb);
    format_set_bold(bold_);
    title_ = workbook_add_format(wb);
    format_set_bold(title_);
    format_set_font_size(title_, 14);
    head_ = workbook_add_format(wb);
    format_set_bold(head_);
    format_set_text_wrap(head_);
    format_set_bg_color(head_, 0xEEF3F8);
    format_set_border(head_, LXW_BORDER_THIN);
    format_set_align(head_, LXW_ALIGN_VERTICAL_TOP);
    italic_ = workbook_add_format(wb);
    format_set_italic(italic_);
    mono_ = workbook_add_format(wb);
    format_set_font_name(mono_, "Courier New");
    text_ = workbook_add_format(wb);
    format_set_border(text_, LXW_BORDER_THIN);
  }

  lxw_format* number_format(const Column& c, bool total) {
    const std::string key = num_format(c) + (total ? "|t" : "");
    auto it = formats_.find(key);
    if (it != formats_.end()) return it->second;
    lxw_format* f = workbook_add_format(wb_);
    format_set_num_format(f, num_format(c).c_str());
    format_set_border(f, LXW_BORDER_THIN);
    if (total) format_set_bold(f);
    formats_[key] = f;
    return f;
  }

  void section(const Section& s, const std::string& name, Lang lang) {
    ws_ = workbook_add_worksheet(wb_, name.c_str());
    sheet_ = name;
    row_ = 0;
    worksheet_set_column(ws_, 0, 0, 34, nullptr);
    worksheet_set_column(ws_, 1, 30, 15, nullptr);
    worksheet_write_string(ws_, row_, 0, s.title.c_str(), title_);
    row_ += 2;
    for (const auto& b : s.blocks) {
      switch (b.kind) {
        case BlockKind::paragraph:
          line(b.text, nullptr);
          break;
        case BlockKind::subheading:
          ++row_;
          line(b.text, bold_);
          break;
        case BlockKind::bullets:
          for (const auto& it : b.items) line("• " + it, nullptr);
          break;
        case BlockKind::numbered:
          for (size_t i = 0; i < b.items.size(); ++i)
            line(fmt::format("{}. {}", i + 1, b.items[i]), nullptr);
          break;
        case BlockKind::code: {
          size_t p = 0;
          while (p < b.text.size()) {
            const size_t e = std::min(b.text.find('\n', p), b.text.size());
            line(b.text.substr(p, e - p), mono_);
            p = e + 1;
          }
          break;
        }
        case BlockKind::table:
          table(b.table);
          break;
        case BlockKind::chart:
          chart(b.chart, lang);
          break;
      }
    }
  }

 private:
  void line(const std::string& s, lxw_format* f) {
    worksheet_write_string(ws_, row_++, 0, s.c_str(), f);
  }

  void table(const Table& t) {
    if (!t.caption.empty()) line(t.caption, italic_);
    for (size_t c = 0; c < t.columns.size(); ++c) {
      worksheet_write_string(ws_, row_, static_cast<lxw_col_t>(c), t.columns[c].header.c_str(),
                             head_);
    }
    worksheet_set_row(ws_, row_, 45, nullptr);
    ++row_;
    const lxw_row_t first = row_;
    for (const auto& r : t.rows) {
      for (size_t c = 0; c < r.size(); ++c) {
        const Column& col = t.columns[c];
        const auto cc = static_cast<lxw_col_t>(c);
        if (!col.formula.empty()) {
          const std::string f = excel_formula(t, col.formula, static_cast<int>(row_));
          worksheet_write_formula_num(ws_, row_, cc, f.c_str(), number_format(col, false),
                                      r[c].empty ? 0 : r[c].value);
        } else if (r[c].empty) {
          worksheet_write_blank(ws_, row_, cc, text_);
        } else if (col.type == ColType::text) {
          worksheet_write_string(ws_, row_, cc, r[c].text.c_str(), text_);
        } else {
          worksheet_write_number(ws_, row_, cc, r[c].value, number_format(col, false));
        }
      }
      ++row_;
    }
    if (t.total_row) {
      worksheet_write_string(ws_, row_, 0, t.total_label.c_str(), bold_);
      for (size_t c = 1; c < t.columns.size(); ++c) {
        if (!t.columns[c].sum) continue;
        const std::string l = col_letter(static_cast<int>(c));
        const std::string f =
            t.rows.empty() ? "=0" : fmt::format("=SUM({0}{1}:{0}{2})", l, first + 1, row_);
        worksheet_write_formula_num(ws_, row_, static_cast<lxw_col_t>(c), f.c_str(),
                                    number_format(t.columns[c], true), t.total(t.columns[c].id));
      }
      ++row_;
    }
    ++row_;
  }

  std::string ref(lxw_row_t r0, lxw_row_t r1, int col) const {
    const std::string l = col_letter(col);
    return fmt::format("='{}'!${}${}:${}${}", sheet_, l, r0 + 1, l, r1 + 1);
  }

  void chart(const Chart& ch, Lang /*lang*/) {
    // The chart's data first, as a small table the chart refers to.
    line(ch.title, italic_);
    const lxw_row_t head = row_;
    const bool bars = ch.kind == ChartKind::stacked_bar;
    lxw_chart* c = workbook_add_chart(wb_, bars ? LXW_CHART_COLUMN_STACKED
                                           : ch.kind == ChartKind::line
                                               ? LXW_CHART_SCATTER_STRAIGHT_WITH_MARKERS
                                               : LXW_CHART_SCATTER);
    size_t rows = 0;
    if (bars) {
      worksheet_write_string(ws_, head, 0, ch.x_label.c_str(), head_);
      for (size_t k = 0; k < ch.categories.size(); ++k) {
        worksheet_write_string(ws_, head + 1 + static_cast<lxw_row_t>(k), 0,
                               ch.categories[k].c_str(), nullptr);
      }
      for (size_t s = 0; s < ch.series.size(); ++s) {
        const auto col = static_cast<lxw_col_t>(s + 1);
        worksheet_write_string(ws_, head, col, ch.series[s].name.c_str(), head_);
        for (size_t k = 0; k < ch.series[s].y.size(); ++k) {
          worksheet_write_number(ws_, head + 1 + static_cast<lxw_row_t>(k), col, ch.series[s].y[k],
                                 nullptr);
        }
      }
      rows = ch.categories.size();
      for (size_t s = 0; s < ch.series.size() && rows > 0; ++s) {
        const lxw_row_t last = head + static_cast<lxw_row_t>(rows);
        lxw_chart_series* se =
            chart_add_series(c, ref(head + 1, last, 0).c_str(),
                             ref(head + 1, last, static_cast<int>(s + 1)).c_str());
        chart_series_set_name(se, ch.series[s].name.c_str());
      }
    } else {
      for (size_t s = 0; s < ch.series.size(); ++s) {
        const auto cx = static_cast<lxw_col_t>(2 * s), cy = static_cast<lxw_col_t>(2 * s + 1);
        worksheet_write_string(ws_, head, cx, (ch.series[s].name + ": " + ch.x_label).c_str(),
                               head_);
        worksheet_write_string(ws_, head, cy, (ch.series[s].name + ": " + ch.y_label).c_str(),
                               head_);
        const Series& se = ch.series[s];
        const size_t n = std::min(se.x.size(), se.y.size());
        for (size_t i = 0; i < n; ++i) {
          worksheet_write_number(ws_, head + 1 + static_cast<lxw_row_t>(i), cx, se.x[i], nullptr);
          worksheet_write_number(ws_, head + 1 + static_cast<lxw_row_t>(i), cy, se.y[i], nullptr);
        }
        rows = std::max(rows, n);
        if (n == 0) continue;
        const lxw_row_t last = head + static_cast<lxw_row_t>(n);
        lxw_chart_series* cs =
            chart_add_series(c, ref(head + 1, last, static_cast<int>(cx)).c_str(),
                             ref(head + 1, last, static_cast<int>(cy)).c_str());
        chart_series_set_name(cs, se.name.c_str());
      }
    }
    worksheet_set_row(ws_, head, 45, nullptr);
    row_ = head + static_cast<lxw_row_t>(rows) + 2;
    chart_title_set_name(c, ch.title.c_str());
    chart_axis_set_name(c->x_axis, ch.x_label.c_str());
    chart_axis_set_name(c->y_axis, ch.y_label.c_str());
    lxw_chart_options opt{};
    opt.x_scale = 1.6;
    opt.y_scale = 1.4;
    worksheet_insert_chart_opt(ws_, row_, 0, c, &opt);
    row_ += 24;
  }

  lxw_workbook* wb_;
  lxw_worksheet* ws_ = nullptr;
  std::string sheet_;
  lxw_row_t row_ = 0;
  lxw_format *bold_, *title_, *head_, *italic_, *mono_, *text_;
  std::map<std::string, lxw_format*> formats_;
};

}  // namespace

Result<int> write_xlsx(const Document& d, const std::string& path) {
  lxw_workbook* wb = workbook_new(path.c_str());
  if (wb == nullptr) return Error{"cannot create the workbook"};
  Writer w(wb);
  std::vector<std::string> used;
  int sheets = 0;
  for (const auto& s : d.sections) {
    w.section(s, sheet_name(s.title, sheets + 1, used), d.lang);
    ++sheets;
  }
  const lxw_error e = workbook_close(wb);
  if (e != LXW_NO_ERROR) return Error{lxw_strerror(e)};
  return sheets;
}

}  // namespace infercap::report
