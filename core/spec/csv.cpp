#include "infercap/spec/csv.hpp"

#include "infercap/spec/text_file.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>

namespace infercap::spec {

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(cur);
      cur.clear();
    } else if (c != '\r') {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

std::optional<double> parse_csv_number(std::string_view cell) {
  while (!cell.empty() && (cell.front() == ' ' || cell.front() == '\t')) cell.remove_prefix(1);
  while (!cell.empty() && (cell.back() == ' ' || cell.back() == '\t')) cell.remove_suffix(1);
  if (cell.empty()) return std::nullopt;
  if (cell.front() == '+') cell.remove_prefix(1);
  double v = 0;
  const char* b = cell.data();
  const char* e = b + cell.size();
  auto [p, ec] = std::from_chars(b, e, v);
  // from_chars reads "nan" and "inf": a measurement is never either.
  if (ec != std::errc() || p != e || !std::isfinite(v)) return std::nullopt;
  return v;
}

CsvReader::CsvReader(std::string path, Diagnostics& diags)
    : path_(std::move(path)), diags_(&diags) {
  // A FIFO or a device is read like a file: memory stays one line (kMaxCsvLineBytes at most).
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0) {
    const int err = errno;
    diags.error(path_, 0, 0, "", fmt::format("cannot read the file ({})", std::strerror(err)));
    return;
  }
  if (S_ISDIR(st.st_mode)) {
    diags.error(path_, 0, 0, "", "expected a CSV file, found a directory");
    return;
  }
  file_ = std::fopen(path_.c_str(), "rb");
  if (file_ == nullptr) {
    const int err = errno;
    diags.error(path_, 0, 0, "", fmt::format("cannot read the file ({})", std::strerror(err)));
  }
}

CsvReader::~CsvReader() {
  if (file_ != nullptr) std::fclose(file_);
}

bool CsvReader::read_line(std::string& out) {
  out.clear();
  for (;;) {
    if (pos_ >= buf_.size()) {
      if (eof_) return !out.empty();
      buf_.resize(65536);
      const std::size_t n = std::fread(buf_.data(), 1, buf_.size(), file_);
      buf_.resize(n);
      pos_ = 0;
      if (n == 0) {
        eof_ = true;
        if (std::ferror(file_) != 0) {
          diags_->error(path_, line_ + 1, 0, "", "cannot read the file (read error)");
          return false;
        }
        return !out.empty();
      }
    }
    const std::size_t nl = buf_.find('\n', pos_);
    const std::size_t end = nl == std::string::npos ? buf_.size() : nl;
    out.append(buf_, pos_, end - pos_);
    pos_ = nl == std::string::npos ? buf_.size() : nl + 1;
    if (out.size() > kMaxCsvLineBytes) {
      diags_->error(
          path_, line_ + 1, 1, "",
          fmt::format("expected a line of at most {} bytes, found a longer one", kMaxCsvLineBytes));
      eof_ = true;
      buf_.clear();
      return false;
    }
    if (nl != std::string::npos) return true;
  }
}

bool CsvReader::next(std::vector<std::string>& cells) {
  if (file_ == nullptr) return false;
  std::string line;
  while (read_line(line)) {
    ++line_;
    if (first_) {
      first_ = false;
      if (line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);  // UTF-8 byte-order mark
    }
    if (line.empty() || line == "\r") continue;
    if (const std::size_t bad = invalid_utf8_at(line); bad != std::string::npos) {
      // Placed at its cell, numbered as every other CSV diagnostic numbers columns.
      int cell = 1;
      bool quoted = false;
      for (std::size_t i = 0; i < bad; ++i) {
        if (line[i] == '"') quoted = !quoted;
        if (line[i] == ',' && !quoted) ++cell;
      }
      diags_->error(
          path_, line_, cell, "",
          fmt::format("expected UTF-8 text, found the byte 0x{:02X} (byte {} of the line)",
                      static_cast<unsigned char>(line[bad]), bad + 1),
          "save the file as UTF-8");
      continue;
    }
    cells = split_csv_line(line);
    return true;
  }
  return false;
}

std::map<std::string, std::size_t> csv_header(const CsvReader& r,
                                              const std::vector<std::string>& cells,
                                              Diagnostics& diags) {
  std::map<std::string, std::size_t> col;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    auto [it, fresh] = col.emplace(cells[i], i);
    if (!fresh) {
      diags.error(r.path(), r.line(), static_cast<int>(i) + 1, cells[i],
                  fmt::format("expected each column once, found '{}' again (first at column {})",
                              cells[i], it->second + 1));
    }
  }
  return col;
}

}  // namespace infercap::spec
