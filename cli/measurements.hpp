#pragma once
// Measurement files in the schema of shared/benchmarks/README.md:
// id,source,hardware,hw_count,mem_bw_gbs,model,params_b,precision,input_len,output_len,batch,
// metric,value,unit,stack,notes[,threads]
// Rows become BenchCases through the catalog; a row that cannot be mapped is kept with its
// reason, never dropped silently.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "infercap/spec/catalog.hpp"
#include "infercap/spec/diagnostics.hpp"
#include "infercap/stack_fit.hpp"

namespace infercap::cli {

struct MeasurementRow {
  std::string file;
  int line = 0;
  std::string id, source, hardware, model, precision, metric, unit, stack, notes;
  int hw_count = 1;
  double mem_bw_gbs = 0;
  double params_b = 0;
  double input_len = 0, output_len = 0;
  int batch = 1;
  double value = 0;
  /// Optional `threads` column (not in the shared schema): threads per socket of a CPU run;
  /// 0 = not stated, all physical cores.
  int threads = 0;
  /// Optional `amx` column: 0 = the engine ran without AMX tiles on a CPU that has them (a
  /// llama.cpp build with GGML_AMX_*=OFF); 1 or empty = as the CPU has them.
  bool amx = true;
  /// Optional serving columns: `tp` (tensor-parallel degree; hw_count / tp replicas),
  /// `serving_mode` (concurrency, rate, offline; empty = not a serving row), `request_rate` (qps).
  int tp = 0;
  std::string serving_mode;
  double request_rate = 0;
  /// Optional `kv_precision` column: the KV cache's format where the run states it (FP8 KV of a
  /// TensorRT-LLM engine built with kv_cache_quant_algo FP8); empty = the stack's default.
  std::string kv_precision;
};

/// Reads a CSV file one row at a time and hands each well-formed row to `each`; malformed lines
/// become diagnostics (file:line, column, expected vs found) and are not handed on. Memory stays
/// one row, whatever the file's size (`validate` reduces rows as they come).
void for_each_measurement(const std::string& path, spec::Diagnostics& diags,
                          const std::function<void(MeasurementRow&&)>& each);
/// for_each_measurement into a vector (small files: imports, tests).
std::vector<MeasurementRow> read_measurements(const std::string& path, spec::Diagnostics& diags);

struct MappedRow {
  MeasurementRow row;
  std::optional<BenchCase> bench;  ///< empty when unmapped
  std::string stack_name;          ///< the stack the row ran on, as resolved
  std::string reason;              ///< why it could not be mapped
};

/// Resolves hardware, model, precision, metric and stack of each row. `extra_hardware` (entries
/// outside the catalog, such as the one `calibrate` writes for an unknown machine) is matched by
/// name or alias when the catalog does not know the row's hardware.
MappedRow map_measurement(const MeasurementRow& row, const spec::Catalog& catalog,
                          const std::vector<HardwareSpec>& extra_hardware = {});
/// map_measurement of each row.
std::vector<MappedRow> map_measurements(const std::vector<MeasurementRow>& rows,
                                        const spec::Catalog& catalog,
                                        const std::vector<HardwareSpec>& extra_hardware = {});

/// The catalog stack a free-text stack column names (llama.cpp CUDA/Metal, vLLM, ...), or the
/// per-class default with the assumption stated in `why`.
std::string stack_for_row(const MeasurementRow& r, const spec::Catalog& catalog, HwClass cls,
                          std::string* why);

}  // namespace infercap::cli
