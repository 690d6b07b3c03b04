#pragma once
// One result-row schema, several printers (as llama-bench does): a command builds ResultTables
// and hands them to `print`. Units live in column names (`ttft_s`, `memory_bytes`); the table and
// Markdown printers render values readably, JSON and CSV keep SI numbers.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "infercap/units.hpp"

namespace infercap::cli {

enum class Format { table, json, csv, md };
std::optional<Format> parse_format(std::string_view s);
inline constexpr const char* kFormatHelp = "table|json|csv|md";

using Cell = std::variant<std::monostate, double, long long, bool, std::string>;

struct Column {
  std::string name;              ///< machine name with the unit in it, e.g. "ttft_s"
  Dim dim = Dim::dimensionless;  ///< how the table printer renders numbers
};

struct ResultTable {
  std::string title;
  std::vector<Column> columns;
  std::vector<std::vector<Cell>> rows;

  /// Adds a row; cells must match `columns` in order and count.
  void add(std::vector<Cell> row) { rows.push_back(std::move(row)); }
  nlohmann::json to_json() const;  ///< array of objects keyed by column name
};

/// Renders one table in `f`. JSON is an array of row objects; callers that need a richer JSON
/// document compose `to_json()` results instead.
std::string render(const ResultTable& t, Format f);
std::string render_cell_human(const Cell& c, Dim d);

/// User text escaped for a Markdown table cell or heading: '|', '<', '>' and '&' become
/// "\|", "&lt;", "&gt;", "&amp;" (so an unclosed "<!--" cannot hide the rest of a report) and
/// line breaks become spaces.
std::string md_escape(std::string_view s);

/// Indented JSON; bytes that are not UTF-8 become U+FFFD instead of an exception.
std::string json_text(const nlohmann::json& j);

}  // namespace infercap::cli
