#pragma once
// One CSV line to cells (RFC 4180 quoting: "a, b" is one cell, "" inside quotes is a quote; a
// trailing \r is dropped). Measurement files, llama-bench CSV and NPU imports all use it.
#include <string>
#include <vector>

namespace infercap::spec {

std::vector<std::string> split_csv_line(const std::string& line);

}  // namespace infercap::spec
