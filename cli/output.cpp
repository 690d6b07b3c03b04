#include "output.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <string_view>

namespace infercap::cli {

std::optional<Format> parse_format(std::string_view s) {
  if (s == "table") return Format::table;
  if (s == "json") return Format::json;
  if (s == "csv") return Format::csv;
  if (s == "md" || s == "markdown") return Format::md;
  return std::nullopt;
}

namespace {

nlohmann::json cell_json(const Cell& c) {
  return std::visit(
      [](const auto& v) -> nlohmann::json {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return nullptr;
        } else if constexpr (std::is_same_v<T, double>) {
          return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
        } else {
          return v;
        }
      },
      c);
}

std::string cell_plain(const Cell& c) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return "";
        } else if constexpr (std::is_same_v<T, double>) {
          return fmt::format("{:.6g}", v);
        } else if constexpr (std::is_same_v<T, bool>) {
          return v ? "true" : "false";
        } else if constexpr (std::is_same_v<T, long long>) {
          return std::to_string(v);
        } else {
          return v;
        }
      },
      c);
}

// A spreadsheet runs a cell that starts with = + - @ (or a tab or carriage return before one) as
// a formula: text from a spec ("=HYPERLINK(...)" as a class name) is written with a leading
// apostrophe, which spreadsheets show as text. Numbers are not text and stay as they are.
std::string csv_text(const Cell& c) {
  std::string s = cell_plain(c);
  if (std::holds_alternative<std::string>(c) && !s.empty() &&
      std::string_view("=+-@\t\r").find(s.front()) != std::string_view::npos)
    s.insert(s.begin(), '\'');
  return s;
}

// Markdown (and the HTML a Markdown viewer passes through): a '|' would split a table cell, a
// '<' can open a tag or an unclosed comment that hides the rest of the document, a newline would
// end the table row; '&' is escaped so that text such as "&lt;" stays literal.
std::string md_escape_impl(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    switch (ch) {
      case '|':
        out += "\\|";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '\n':
      case '\r':
        out += ' ';
        break;
      default:
        out += ch;
    }
  }
  return out;
}

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

}  // namespace

std::string md_escape(std::string_view s) {
  return md_escape_impl(s);
}

std::string json_text(const nlohmann::json& j) {
  // Bytes that are not UTF-8 (from a command-line argument, say: files are checked when read)
  // become U+FFFD instead of an exception from the printer.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string render_cell_human(const Cell& c, Dim d) {
  if (const double* v = std::get_if<double>(&c)) {
    if (!std::isfinite(*v)) return "-";
    if (d == Dim::dimensionless) return fmt::format("{:.4g}", *v);
    return format_quantity(*v, d);
  }
  if (std::holds_alternative<std::monostate>(c)) return "-";
  return cell_plain(c);
}

nlohmann::json ResultTable::to_json() const {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& r : rows) {
    nlohmann::json o = nlohmann::json::object();
    for (size_t i = 0; i < columns.size() && i < r.size(); ++i)
      o[columns[i].name] = cell_json(r[i]);
    arr.push_back(std::move(o));
  }
  return arr;
}

std::string render(const ResultTable& t, Format f) {
  std::string out;
  switch (f) {
    case Format::json:
      return json_text(t.to_json()) + "\n";
    case Format::csv: {
      for (size_t i = 0; i < t.columns.size(); ++i) {
        out += (i ? "," : "") + csv_escape(t.columns[i].name);
      }
      out += "\n";
      for (const auto& r : t.rows) {
        for (size_t i = 0; i < r.size(); ++i) out += (i ? "," : "") + csv_escape(csv_text(r[i]));
        out += "\n";
      }
      return out;
    }
    case Format::md: {
      if (!t.title.empty()) out += "### " + md_escape(t.title) + "\n\n";
      out += "|";
      for (const auto& c : t.columns) out += " " + md_escape(c.name) + " |";
      out += "\n|";
      for (size_t i = 0; i < t.columns.size(); ++i) out += "---|";
      out += "\n";
      for (const auto& r : t.rows) {
        out += "|";
        for (size_t i = 0; i < r.size(); ++i)
          out += " " + md_escape(render_cell_human(r[i], t.columns[i].dim)) + " |";
        out += "\n";
      }
      return out;
    }
    case Format::table: {
      std::vector<std::vector<std::string>> cells;
      std::vector<size_t> width(t.columns.size(), 0);
      for (size_t i = 0; i < t.columns.size(); ++i) width[i] = t.columns[i].name.size();
      for (const auto& r : t.rows) {
        std::vector<std::string> line;
        for (size_t i = 0; i < r.size(); ++i) {
          line.push_back(render_cell_human(r[i], t.columns[i].dim));
          width[i] = std::max(width[i], line.back().size());
        }
        cells.push_back(std::move(line));
      }
      if (!t.title.empty()) out += t.title + "\n";
      for (size_t i = 0; i < t.columns.size(); ++i) {
        out += fmt::format("{:<{}}", t.columns[i].name, width[i] + 2);
      }
      out += "\n";
      for (const auto& line : cells) {
        for (size_t i = 0; i < line.size(); ++i)
          out += fmt::format("{:<{}}", line[i], width[i] + 2);
        out += "\n";
      }
      return out;
    }
  }
  return out;
}

}  // namespace infercap::cli
