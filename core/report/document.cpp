#include "infercap/report/document.hpp"

#include <fmt/core.h>

#include <cctype>
#include <cmath>
#include <optional>

namespace infercap::report {

int Table::column(const std::string& col) const {
  for (size_t i = 0; i < columns.size(); ++i)
    if (columns[i].id == col) return static_cast<int>(i);
  return -1;
}

double Table::total(const std::string& col) const {
  const int c = column(col);
  if (c < 0) return 0;
  double s = 0;
  for (const auto& r : rows)
    if (!r[static_cast<size_t>(c)].empty) s += r[static_cast<size_t>(c)].value;
  return s;
}

namespace {

// Recursive descent over + - * / ( ), numbers and {column ids}.
class Expr {
 public:
  Expr(std::string_view s, const Table& t, const std::vector<Cell>& row)
      : s_(s), t_(t), row_(row) {}
  std::optional<double> parse() {
    auto v = sum();
    skip();
    if (!v || i_ != s_.size()) return std::nullopt;
    return v;
  }

 private:
  void skip() {
    while (i_ < s_.size() && s_[i_] == ' ') ++i_;
  }
  std::optional<double> sum() {
    auto v = product();
    while (v) {
      skip();
      if (i_ >= s_.size() || (s_[i_] != '+' && s_[i_] != '-')) break;
      const char op = s_[i_++];
      auto r = product();
      if (!r) return std::nullopt;
      v = op == '+' ? *v + *r : *v - *r;
    }
    return v;
  }
  std::optional<double> product() {
    auto v = atom();
    while (v) {
      skip();
      if (i_ >= s_.size() || (s_[i_] != '*' && s_[i_] != '/')) break;
      const char op = s_[i_++];
      auto r = atom();
      if (!r) return std::nullopt;
      v = op == '*' ? *v * *r : *v / *r;
    }
    return v;
  }
  std::optional<double> atom() {
    skip();
    if (i_ >= s_.size()) return std::nullopt;
    if (s_[i_] == '(') {
      ++i_;
      auto v = sum();
      skip();
      if (!v || i_ >= s_.size() || s_[i_] != ')') return std::nullopt;
      ++i_;
      return v;
    }
    if (s_[i_] == '{') {
      const size_t end = s_.find('}', i_);
      if (end == std::string_view::npos) return std::nullopt;
      const int c = t_.column(std::string(s_.substr(i_ + 1, end - i_ - 1)));
      i_ = end + 1;
      if (c < 0) return std::nullopt;
      const Cell& cell = row_[static_cast<size_t>(c)];
      return cell.empty ? 0.0 : cell.value;
    }
    size_t j = i_;
    while (j < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[j])) || s_[j] == '.')) ++j;
    if (j == i_) return std::nullopt;
    const double v = std::stod(std::string(s_.substr(i_, j - i_)));
    i_ = j;
    return v;
  }
  std::string_view s_;
  size_t i_ = 0;
  const Table& t_;
  const std::vector<Cell>& row_;
};

}  // namespace

void evaluate_formulas(Table& t) {
  // Formulas may use earlier formula columns, so evaluate left to right.
  for (auto& row : t.rows) {
    for (size_t c = 0; c < t.columns.size(); ++c) {
      if (t.columns[c].formula.empty()) continue;
      auto v = Expr(t.columns[c].formula, t, row).parse();
      row[c] = v && std::isfinite(*v) ? Cell::num(*v) : Cell::none();
    }
  }
}

namespace {

const char* kind_name(BlockKind k) {
  switch (k) {
    case BlockKind::paragraph:
      return "paragraph";
    case BlockKind::bullets:
      return "bullets";
    case BlockKind::numbered:
      return "numbered";
    case BlockKind::table:
      return "table";
    case BlockKind::chart:
      return "chart";
    case BlockKind::code:
      return "code";
    case BlockKind::subheading:
      return "subheading";
  }
  return "?";
}

std::string num(double v) {
  return fmt::format("{:.6g}", v);
}

}  // namespace

std::string dump(const Document& d) {
  std::string o = fmt::format("document lang={} currency={}\ntitle: {}\nsubtitle: {}\n",
                              d.lang == Lang::zh ? "zh" : "en", d.currency, d.title, d.subtitle);
  for (const auto& s : d.sections) {
    o += fmt::format("\n== section {}: {}\n", s.id, s.title);
    for (const auto& b : s.blocks) {
      o += fmt::format("-- {}", kind_name(b.kind));
      if (b.kind == BlockKind::paragraph || b.kind == BlockKind::code ||
          b.kind == BlockKind::subheading) {
        o += ": " + b.text + "\n";
      } else if (b.kind == BlockKind::bullets || b.kind == BlockKind::numbered) {
        o += "\n";
        for (const auto& i : b.items) o += "  * " + i + "\n";
      } else if (b.kind == BlockKind::table) {
        const Table& t = b.table;
        o += fmt::format(" {} ({} rows): {}\n", t.id, t.rows.size(), t.caption);
        o += "  |";
        for (const auto& c : t.columns) {
          o += " " + c.id + (c.formula.empty() ? "" : "=" + c.formula) + (c.sum ? "[sum]" : "") +
               " |";
        }
        o += "\n";
        for (const auto& r : t.rows) {
          o += "  |";
          for (size_t i = 0; i < r.size(); ++i) {
            const Cell& c = r[i];
            o += " " +
                 (c.empty                              ? std::string("-")
                  : t.columns[i].type == ColType::text ? c.text
                                                       : num(c.value)) +
                 " |";
          }
          o += "\n";
        }
        if (t.total_row) {
          o += "  | " + t.total_label;
          for (const auto& c : t.columns)
            if (c.sum) o += fmt::format(" {}={}", c.id, num(t.total(c.id)));
          o += "\n";
        }
      } else if (b.kind == BlockKind::chart) {
        const Chart& c = b.chart;
        o += fmt::format(" {}: {} [x: {}; y: {}]\n", c.id, c.title, c.x_label, c.y_label);
        if (!c.categories.empty()) {
          o += "  categories:";
          for (const auto& k : c.categories) o += " " + k + ";";
          o += "\n";
        }
        for (const auto& s2 : c.series) {
          o += "  series " + s2.name + (s2.highlight ? " (highlight)" : "") + ":";
          for (size_t i = 0; i < s2.y.size(); ++i) {
            o += " ";
            if (i < s2.x.size()) o += num(s2.x[i]) + ",";
            o += num(s2.y[i]);
          }
          o += "\n";
        }
      }
    }
  }
  return o;
}

}  // namespace infercap::report
