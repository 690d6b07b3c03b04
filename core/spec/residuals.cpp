#include "infercap/spec/residuals.hpp"

#include <fmt/core.h>

#include <charconv>
#include <filesystem>
#include <fstream>

#include "infercap/spec/csv.hpp"

namespace infercap::spec {

std::vector<Residual> read_residuals(const std::string& path, Diagnostics& diags) {
  std::vector<Residual> out;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return out;
  std::ifstream in(path);
  std::string line;
  int lineno = 0;
  bool header = true;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    if (header) {
      header = false;
      if (line.rfind("id,stack,class,quantity,hardware,log_time_ratio", 0) != 0) {
        diags.error(path, lineno, 1, "",
                    "expected the header id,stack,class,quantity,hardware,log_time_ratio");
        return {};
      }
      continue;
    }
    const auto cells = split_csv_line(line);
    if (cells.size() < 6) {
      diags.error(path, lineno, 1, "", fmt::format("expected 6 cells, found {}", cells.size()));
      continue;
    }
    Residual r;
    r.id = cells[0];
    r.stack = cells[1];
    bool ok = false;
    for (int i = 0; i < kHwClassCount; ++i) {
      if (hw_class_name(static_cast<HwClass>(i)) == cells[2]) {
        r.hw_class = static_cast<HwClass>(i);
        ok = true;
      }
    }
    bool q_ok = false;
    for (int i = 0; i < kErrorQuantityCount; ++i) {
      if (error_quantity_name(static_cast<ErrorQuantity>(i)) == cells[3]) {
        r.quantity = static_cast<ErrorQuantity>(i);
        q_ok = true;
      }
    }
    r.hardware = cells[4];
    // An optional seventh cell: held_out (the stack refitted without the row's device) or
    // in_sample (files written before the column have six cells: in_sample).
    if (cells.size() > 6 && cells[6] != "in_sample") {
      if (cells[6] != "held_out") {
        diags.error(path, lineno, 1, "basis",
                    fmt::format("expected held_out or in_sample, found '{}'", cells[6]));
        continue;
      }
      r.held_out = true;
    }
    const std::string& v = cells[5];
    auto [p, e] = std::from_chars(v.data(), v.data() + v.size(), r.log_time_ratio);
    if (cells[3] == "serving") {
      // Before serving throughputs and latencies were apart one kind held both; read as either,
      // such a row would put latency error into the replica band or hide it.
      diags.error(path, lineno, 1, "quantity",
                  "'serving' is the pooled kind of an older residuals file: expected "
                  "serving_throughput or serving_latency (write the file again with infercap "
                  "validate --residuals-out)");
      continue;
    }
    if (!ok || !q_ok || e != std::errc() || p != v.data() + v.size()) {
      diags.error(path, lineno, 1, "",
                  fmt::format("expected class cpu|gpu|npu|fpga, quantity prefill|decode|"
                              "serving_throughput|serving_latency and a number, found '{}', "
                              "'{}', '{}'",
                              cells[2], cells[3], v));
      continue;
    }
    out.push_back(std::move(r));
  }
  return out;
}

void tag_vendors(std::vector<Residual>& residuals, const Catalog& catalog) {
  for (auto& r : residuals) {
    const HardwareSpec* hw = catalog.find_hardware(r.hardware);
    r.vendor = hw != nullptr ? hw->vendor : std::string();
  }
}

std::string default_residuals_path(const std::string& data_dir) {
  return (std::filesystem::path(data_dir) / "validation" / "residuals.csv").string();
}

}  // namespace infercap::spec
