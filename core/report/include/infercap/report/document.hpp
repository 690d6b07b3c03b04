#pragma once
// The report as a document model: sections of paragraphs, lists, tables and charts, every fixed
// string already translated and every number still a number. One model, four renderers
// (render.hpp): Markdown, HTML, PDF and XLSX read the same blocks, so the formats cannot disagree.
//
// Tables carry enough structure for a spreadsheet to stay live: a column may be a formula over
// other columns of its row (`formula`, e.g. "{devices}*{unit_price}"), and a table may end in a
// total row summing chosen columns. Renderers without formulas print the values, which the
// builder computes with the same arithmetic.
#include <string>
#include <vector>

namespace infercap::report {

enum class Lang : unsigned char { en, zh };

/// How a column's numbers are shown. Money is already in the document's display currency.
enum class ColType : unsigned char { text, number, integer, money, percent };

struct Column {
  std::string id;      ///< machine name, unique in its table; formulas refer to it as {id}
  std::string header;  ///< translated, with the unit: "TCO (CNY)", "TTFT P99 (s)"
  ColType type = ColType::text;
  int decimals = 2;     ///< number and percent columns
  std::string formula;  ///< empty, or an expression over {id} of this row's cells, + - * / ( )
  bool sum = false;     ///< summed in the table's total row
};

struct Cell {
  bool empty = true;
  std::string text;  ///< text columns (and numbers' text if a renderer prefers it)
  double value = 0;  ///< numeric columns
  static Cell str(std::string s) { return Cell{false, std::move(s), 0}; }
  static Cell num(double v) { return Cell{false, {}, v}; }
  static Cell none() { return Cell{}; }
};

struct Table {
  std::string id;  ///< unique in the document ("bom", "tco", "ranked-chat")
  std::string caption;
  std::vector<Column> columns;
  std::vector<std::vector<Cell>> rows;
  bool total_row = false;
  std::string total_label;  ///< shown in the first column of the total row
  /// The leading columns that name a row (rank, candidate): a renderer that must print a wide
  /// table in parts repeats them in front of each part.
  int key_columns = 1;
  /// Appends a row; the builder checks rows.size() == columns.size().
  void add(std::vector<Cell> r) { rows.push_back(std::move(r)); }
  /// The sum of column `id` over the rows (0 for an unknown id).
  double total(const std::string& id) const;
  int column(const std::string& id) const;  ///< index, or -1
};

enum class ChartKind : unsigned char {
  scatter,      ///< points (x, y); a highlighted series is drawn on top and joined
  line,         ///< series over shared x values
  stacked_bar,  ///< categories on x, one series per stack layer
};

struct Series {
  std::string name;
  std::vector<double> x;            ///< scatter and line
  std::vector<double> y;            ///< one value per x (or per category)
  std::vector<std::string> labels;  ///< optional point labels (scatter)
  bool highlight = false;           ///< drawn stronger and joined (the Pareto front)
};

struct Chart {
  std::string id;
  std::string title;
  std::string x_label;  ///< translated, with the unit
  std::string y_label;
  ChartKind kind = ChartKind::scatter;
  std::vector<std::string> categories;  ///< stacked_bar
  std::vector<Series> series;
};

enum class BlockKind : unsigned char {
  paragraph,
  bullets,
  numbered,
  table,
  chart,
  code,
  subheading
};

struct Block {
  BlockKind kind = BlockKind::paragraph;
  std::string text;                ///< paragraph, code, subheading
  std::vector<std::string> items;  ///< bullets, numbered
  Table table;
  Chart chart;
};

struct Section {
  std::string id;  ///< "summary", "requirement", ... stable across languages
  std::string title;
  std::vector<Block> blocks;
};

struct Document {
  Lang lang = Lang::en;
  std::string title;
  std::string subtitle;
  std::string currency;    ///< "USD" or "CNY": every money column is in it
  std::string toc_title;   ///< "Contents" / "目录"
  std::string page_label;  ///< "Page" / "第 {} 页" style label used by the PDF footer
  std::string footer;      ///< one line for every PDF page
  std::vector<Section> sections;
};

/// Fills every formula column of `t` from the other cells of its row (the same arithmetic a
/// spreadsheet does), so text renderers show what the XLSX recomputes. Unknown ids and malformed
/// expressions leave the cell empty.
void evaluate_formulas(Table& t);

/// A plain-text dump of the whole model (every block, every cell with full precision), for
/// golden tests: stable, diff-friendly, format-independent.
std::string dump(const Document& d);

}  // namespace infercap::report
