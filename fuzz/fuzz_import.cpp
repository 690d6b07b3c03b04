// libFuzzer target: the importers: NPU/profiler measurements (CSV and YAML) and llama-bench
// (JSON, CSV) and vLLM (JSON) results. The first byte picks the format. An accepted measurement
// has a finite positive time per call.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "calibrate_import.hpp"
#include "infercap/calibration/measurement_import.hpp"
#include "infercap/spec/catalog.hpp"

namespace {
const infercap::spec::Catalog& catalog() {
  static const infercap::spec::Catalog cat = [] {
    infercap::spec::Diagnostics d;
    return infercap::spec::Catalog::load(INFERCAP_SOURCE_DIR "/data", d);
  }();
  return cat;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  namespace cal = infercap::calibration;
  namespace cli = infercap::cli;
  auto check = [](const infercap::Result<cal::ImportedMeasurements>& r) {
    if (!r) return;
    for (const auto& m : r->rows)
      if (!std::isfinite(m.median_s) || !(m.median_s > 0)) std::abort();
  };
  cli::BenchImportOptions opt;
  opt.hardware = "h100-sxm";
  switch (data[0] % 5) {
    case 0:
      check(cal::parse_measurement_csv(text, "fuzz.csv"));
      break;
    case 1:
      check(cal::parse_measurement_yaml(text, "fuzz.yaml"));
      break;
    case 2:
      (void)cli::parse_llama_bench_json(text, "fuzz.json", opt, catalog());
      break;
    case 3:
      (void)cli::parse_llama_bench_csv(text, "fuzz.csv", opt, catalog());
      break;
    default:
      (void)cli::parse_vllm_json(text, "fuzz.json", opt, catalog());
      break;
  }
  return 0;
}
