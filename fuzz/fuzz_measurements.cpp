// libFuzzer target: the measurement CSV reader `validate` uses (streaming CsvReader, header and
// row checks), through a file as the command reads it. Rows it accepts carry finite numbers.
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "measurements.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/infercap-fuzz-" + std::to_string(::getpid()) + ".csv";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  infercap::spec::Diagnostics d;
  for (const auto& r : infercap::cli::read_measurements(path, d)) {
    if (!std::isfinite(r.value) || !(r.value > 0) || !std::isfinite(r.input_len) ||
        !std::isfinite(r.output_len) || r.hw_count < 1 || r.batch < 1)
      std::abort();
  }
  (void)d.format();
  return 0;
}
