#pragma once
// Measurements taken elsewhere (a vendor profiler on an Ascend, Cambricon or Gaudi card, a small
// script, a published figure) read into calibration rows, so the same fit (fit.hpp) turns them
// into a calibration profile. Format: docs/calibration.md, "Accelerators and imports".
//
// One row per measured point: kernel kind (read, copy, triad, gemv, gemm, launch), weight dtype
// and shape for matmuls, bytes for streams, and the measured value as a time per call (s, ms, us)
// or as a rate (B/s .. TB/s, FLOP/s .. TFLOP/s, TOPS) which is turned back into a time through
// the declared bytes or FLOPs. Every row carries its own source text.
#include <string>
#include <string_view>
#include <vector>

#include "infercap/calibration/fit.hpp"
#include "infercap/calibration/harness.hpp"
#include "infercap/calibration_profile.hpp"
#include "infercap/result.hpp"

namespace infercap::calibration {

struct ImportedMeasurements {
  std::string hardware;  ///< catalog name or alias of the device, if the file states one
  std::string backend = "import";
  double cache_bytes = 0;  ///< the device's last-level cache (0: unknown, the fit's default)
  Provenance provenance;
  std::vector<Measurement> rows;
  std::vector<std::string> sources;  ///< row-by-row source text, in row order
};

/// Bytes and FLOPs one decode/prefill matmul call moves and does: weights n x k of `weights`,
/// activations m x k and outputs m x n in bf16 (2 bytes), 2 m n k operations.
double matmul_bytes(DType weights, int64_t m, int64_t n, int64_t k);
double matmul_flops(int64_t m, int64_t n, int64_t k);

/// CSV with the header `kind,dtype,m,n,k,bytes,value,unit,source` (extra columns `compute`,
/// `samples`, `spread`, `note` are optional; `samples` is a ';'-separated list of per-call
/// times in seconds). `# key: value` lines before the header set hardware, cache_bytes, machine,
/// host, date, command, commit, notes. `name` labels diagnostics. Errors name the line and the
/// column.
Result<ImportedMeasurements> parse_measurement_csv(std::string_view text, const std::string& name);

/// YAML: `kind: calibration-measurements`, `schema_version: 1`, `hardware`, `cache_bytes`,
/// `provenance: {machine, date, command, notes}`, `measurements: [ {kind, dtype, m, n, k, bytes,
/// value, unit, source, ...} ]`.
Result<ImportedMeasurements> parse_measurement_yaml(std::string_view text, const std::string& name);

/// Reads a file, choosing the format by extension (.csv; .yaml/.yml).
Result<ImportedMeasurements> read_measurement_file(const std::string& path);

/// For a profile of one device fitted at a single "thread" count (an accelerator: CUDA, OpenCL,
/// imports): makes the bandwidth asymptote the measured rate. fit_profile reads one thread count
/// as 98% of a saturating CPU curve and writes an asymptote 1.9% higher; the model uses a
/// device's asymptote directly. Adds a note.
void as_device_bandwidth(FitReport& rep);

/// Several imports of one device as one: e.g. this project's kernels' rows and a vendor
/// library's. A profile states what the best kernel reaches, and the fit already keeps the best
/// GEMV and GEMM per type; for memory streams, where files disagree, the read rows (and likewise
/// the copy rows) of the file with the highest mean rate are kept and the others dropped, with a
/// note in `notes`. Rows and sources are concatenated; provenance fields that differ are joined
/// with " + ". `names` label the parts (file names) in errors and notes. Parts naming different
/// hardware are an error.
Result<ImportedMeasurements> merge_measurements(const std::vector<ImportedMeasurements>& parts,
                                                const std::vector<std::string>& names,
                                                std::vector<std::string>* notes);

/// Fits a profile from imported rows. Imported devices are accelerators with one "thread"; any
/// working set above the device cache counts as memory streaming (the CPU fit asks for 4x LLC
/// because CPU caches hold part of a stream; a GPU/NPU L2 does not on a single pass). When the
/// file has copy rows and no read rows, the bandwidth comes from the copies (bytes read + written
/// per call), and a note says so.
Result<FitReport> fit_imported(const ImportedMeasurements& m);

}  // namespace infercap::calibration
