#include "output.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

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

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

}  // namespace

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
      return t.to_json().dump(2) + "\n";
    case Format::csv: {
      for (size_t i = 0; i < t.columns.size(); ++i) {
        out += (i ? "," : "") + csv_escape(t.columns[i].name);
      }
      out += "\n";
      for (const auto& r : t.rows) {
        for (size_t i = 0; i < r.size(); ++i) out += (i ? "," : "") + csv_escape(cell_plain(r[i]));
        out += "\n";
      }
      return out;
    }
    case Format::md: {
      if (!t.title.empty()) out += "### " + t.title + "\n\n";
      out += "|";
      for (const auto& c : t.columns) out += " " + c.name + " |";
      out += "\n|";
      for (size_t i = 0; i < t.columns.size(); ++i) out += "---|";
      out += "\n";
      for (const auto& r : t.rows) {
        out += "|";
        for (size_t i = 0; i < r.size(); ++i)
          out += " " + render_cell_human(r[i], t.columns[i].dim) + " |";
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
