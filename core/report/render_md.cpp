// Markdown: GitHub-flavoured, charts as their data tables.
#include <fmt/core.h>

#include "infercap/report/render.hpp"
#include "render_common.hpp"

namespace infercap::report {

namespace {
std::string md_inline(std::string_view s);
}  // namespace

std::string markdown_escape(std::string_view s) {
  std::string o = md_inline(s);
  // At the start of a block, a list or heading marker would change the block's type.
  if (!o.empty() && (o[0] == '-' || o[0] == '+' || o[0] == '=')) o.insert(0, "\\");
  size_t d = 0;
  while (d < o.size() && o[d] >= '0' && o[d] <= '9') ++d;
  if (d > 0 && d < o.size() && (o[d] == '.' || o[d] == ')')) o.insert(d, "\\");
  return o;
}

namespace {

// Escapes what changes inline structure or table cells: emphasis, code, links, pipes, raw HTML
// (an unclosed `<!--` would swallow the rest of the document) and entities.
std::string md_inline(std::string_view s) {
  std::string o;
  o.reserve(s.size() + 8);
  for (size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
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
      case '\n':
      case '\r':
        o += ' ';
        break;
      case '\\':
      case '`':
      case '*':
      case '_':
      case '[':
      case ']':
      case '|':
      case '#':
      case '~':
        o += '\\';
        o += ch;
        break;
      default:
        o += ch;
    }
  }
  return o;
}

void table_md(std::string& o, const Table& t) {
  if (!t.caption.empty()) o += "*" + md_inline(t.caption) + "*\n\n";
  o += "|";
  for (const auto& c : t.columns) o += " " + md_inline(c.header) + " |";
  o += "\n|";
  for (const auto& c : t.columns) o += c.type == ColType::text ? "---|" : "---:|";
  o += "\n";
  for (const auto& r : t.rows) {
    o += "|";
    for (size_t i = 0; i < r.size(); ++i)
      o += " " + md_inline(detail::cell_text(t.columns[i], r[i])) + " |";
    o += "\n";
  }
  if (t.total_row) {
    o += "|";
    for (size_t i = 0; i < t.columns.size(); ++i) {
      const std::string v = i == 0 ? t.total_label : detail::total_text(t, i);
      o += v.empty() ? " |" : " **" + md_inline(v) + "** |";
    }
    o += "\n";
  }
  o += "\n";
}

void chart_md(std::string& o, const Chart& c) {
  o += "*" + md_inline(c.title) + "* (" + md_inline(c.x_label) + " / " + md_inline(c.y_label) +
       ")\n\n";
  if (c.kind == ChartKind::stacked_bar) {
    o += "| |";
    for (const auto& s : c.series) o += " " + md_inline(s.name) + " |";
    o += "\n|---|";
    for (size_t i = 0; i < c.series.size(); ++i) o += "---:|";
    o += "\n";
    for (size_t k = 0; k < c.categories.size(); ++k) {
      o += "| " + md_inline(c.categories[k]) + " |";
      for (const auto& s : c.series)
        o += fmt::format(" {} |", k < s.y.size() ? detail::axis_number(s.y[k], Lang::en) : "");
      o += "\n";
    }
  } else {
    o += "| series | points (x, y) |\n|---|---|\n";
    for (const auto& s : c.series) {
      std::string pts;
      for (size_t i = 0; i < s.y.size() && i < s.x.size(); ++i)
        pts += fmt::format("{}({:.4g}, {:.4g})", i ? " " : "", s.x[i], s.y[i]);
      o += "| " + md_inline(s.name) + " | " + pts + " |\n";
    }
  }
  o += "\n";
}

}  // namespace

std::string render_markdown(const Document& d) {
  std::string o = "# " + md_inline(d.title) + "\n\n" + markdown_escape(d.subtitle) + "\n\n";
  o += "**" + markdown_escape(d.toc_title) + "**\n\n";
  for (size_t i = 0; i < d.sections.size(); ++i)
    o += fmt::format("{}. {}\n", i + 1, md_inline(d.sections[i].title));
  for (size_t i = 0; i < d.sections.size(); ++i) {
    const Section& s = d.sections[i];
    o += fmt::format("\n## {}. {}\n\n", i + 1, md_inline(s.title));
    for (const auto& b : s.blocks) {
      switch (b.kind) {
        case BlockKind::paragraph:
          o += markdown_escape(b.text) + "\n\n";
          break;
        case BlockKind::subheading:
          o += "### " + md_inline(b.text) + "\n\n";
          break;
        case BlockKind::bullets:
          for (const auto& it : b.items) o += "- " + markdown_escape(it) + "\n";
          o += "\n";
          break;
        case BlockKind::numbered:
          for (size_t k = 0; k < b.items.size(); ++k)
            o += fmt::format("{}. {}\n", k + 1, markdown_escape(b.items[k]));
          o += "\n";
          break;
        case BlockKind::code: {
          // A fence longer than any backtick run inside cannot be closed by the content.
          size_t run = 0, longest = 0;
          for (char ch : b.text) {
            run = ch == '`' ? run + 1 : 0;
            longest = std::max(longest, run);
          }
          const std::string fence(std::max<size_t>(3, longest + 1), '`');
          o += fence;
          o += "sh\n";
          o += b.text;
          if (b.text.empty() || b.text.back() != '\n') o += "\n";
          o += fence;
          o += "\n\n";
          break;
        }
        case BlockKind::table:
          table_md(o, b.table);
          break;
        case BlockKind::chart:
          chart_md(o, b.chart);
          break;
      }
    }
  }
  return o;
}

}  // namespace infercap::report
