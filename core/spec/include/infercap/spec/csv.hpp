#pragma once
// CSV for measurement files, llama-bench CSV and NPU imports: one line to cells (RFC 4180
// quoting: "a, b" is one cell, "" inside quotes is a quote; a trailing \r is dropped), and a
// streaming file reader that every CSV reader of the project shares, so that each of them refuses
// the same hostile inputs the same way: a directory, a line longer than kMaxCsvLineBytes (so
// /dev/zero or a FIFO fed without newlines stops), a duplicated header column, an empty or
// header-only file. A UTF-8 byte-order mark at the start of the file is accepted and skipped
// (spreadsheets write one).
#include <cstddef>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "infercap/spec/diagnostics.hpp"

namespace infercap::spec {

std::vector<std::string> split_csv_line(const std::string& line);

/// A line longer than this is refused (no real measurement row is near it; it bounds memory).
inline constexpr std::size_t kMaxCsvLineBytes = std::size_t{1} << 20;

/// A plain finite number ("12.5", "-3", "1e3"); nullopt for "", "nan", "inf", "12 GB", ...
std::optional<double> parse_csv_number(std::string_view cell);

/// Reads a CSV file one row at a time (memory stays one line, whatever the file's size).
class CsvReader {
 public:
  /// Opens `path`; a missing file or a directory is a diagnostic (file, expected vs found) and
  /// `ok()` is false. A FIFO or device is read as a stream, one bounded line at a time.
  CsvReader(std::string path, Diagnostics& diags);
  CsvReader(const CsvReader&) = delete;
  CsvReader& operator=(const CsvReader&) = delete;
  ~CsvReader();

  bool ok() const { return file_ != nullptr; }
  const std::string& path() const { return path_; }
  /// 1-based line of the row last returned by next().
  int line() const { return line_; }

  /// The next non-blank line's cells; false at the end of the file or after a read error or an
  /// over-long line (both reported). Diagnostics about a cell give its column as a spreadsheet
  /// numbers it: the cell's index + 1.
  bool next(std::vector<std::string>& cells);

 private:
  bool read_line(std::string& out);

  std::string path_;
  Diagnostics* diags_;
  std::FILE* file_ = nullptr;
  int line_ = 0;
  bool first_ = true;
  std::string buf_;
  std::size_t pos_ = 0;
  bool eof_ = false;
};

/// The header row as column name -> index. A column given twice is a diagnostic at the second
/// one (file:line:col, the column's name, where the first was); the first is kept.
std::map<std::string, std::size_t> csv_header(const CsvReader& r,
                                              const std::vector<std::string>& cells,
                                              Diagnostics& diags);

}  // namespace infercap::spec
