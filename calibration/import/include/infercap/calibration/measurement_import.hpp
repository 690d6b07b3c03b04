#pragma once
// Measurements taken elsewhere (a vendor profiler on an Ascend, Cambricon or Gaudi card, a small
// script, a published figure) read into calibration rows, so the same fit (fit.hpp) turns them
// into a calibration profile. Format: docs/calibration.md, "Accelerators and imports".
//
// One row per measured point: kernel kind (read, copy, triad, gemv, gemm, launch), weight dtype
// and shape for matmuls, bytes for streams, and the measured value as a time per call (s, ms, us)
// or as a rate (B/s .. TB/s, FLOP/s .. TFLOP/s, TOPS) which is turned back into a time through
// the declared bytes or FLOPs. Every row carries its own source text.
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "infercap/calibration/fit.hpp"
#include "infercap/calibration/harness.hpp"
#include "infercap/calibration_profile.hpp"
#include "infercap/result.hpp"
#include "infercap/spec/reader.hpp"

namespace infercap::calibration {

// --- the format's tables -------------------------------------------------------------------
// The reader checks every file against these tables (which columns a header needs, which it may
// have, the spellings of kind and unit, the bounds of each number), and `infercap schema` writes
// the format's JSON Schema (docs/schema/calibration-measurements.schema.json, the YAML form) and
// its CSV column table (docs/schema/calibration-measurements.columns.md) from the same tables,
// so the documentation cannot drift from what is read.

/// What a column's (or header key's) value is.
enum class ImportValue {
  text,     ///< any text
  kind,     ///< one of kImportKinds (any letter case)
  number,   ///< a plain number (no unit), within the column's bounds
  whole,    ///< a whole number, within the column's bounds
  unit,     ///< one of kImportUnits (any letter case)
  samples,  ///< per-call times in seconds, each > 0: ';'-separated in CSV, a list in YAML
};

/// When a row must give a column.
enum class ImportNeed {
  always,          ///< every row (the CSV header must name it)
  unless_samples,  ///< every row that gives no samples (the CSV header must name it)
  optional,        ///< never; some kinds of row use it
};

inline constexpr double kImportInf = std::numeric_limits<double>::infinity();

/// One column of a CSV row, or one key of a YAML `measurements:` row.
struct ImportColumn {
  std::string_view name;
  ImportNeed need;
  ImportValue value;
  spec::Range bounds;  ///< number and whole values
  std::string_view meaning;
};

inline constexpr ImportColumn kImportColumns[] = {
    {"kind",
     ImportNeed::always,
     ImportValue::kind,
     {},
     "what was measured: a memory stream (read, copy, triad), a matmul (gemv, gemm) or a call "
     "overhead (launch)"},
    {"dtype",
     ImportNeed::optional,
     ImportValue::text,
     {},
     "gemv and gemm rows (needed there): the weight format (bf16, fp8, int8, int4, q4_0, ...)"},
    {"compute",
     ImportNeed::optional,
     ImportValue::text,
     {},
     "gemv and gemm rows: the compute type, when not the weight format's native one (int4 and "
     "block formats default to int8)"},
    {"m",
     ImportNeed::optional,
     ImportValue::whole,
     {1, 2147483648.0, true, true},
     "gemv and gemm rows (needed there): rows of the activations; a gemv is decode-shaped, "
     "m <= 64"},
    {"n",
     ImportNeed::optional,
     ImportValue::whole,
     {1, 2147483648.0, true, true},
     "gemv and gemm rows (needed there): output features"},
    {"k",
     ImportNeed::optional,
     ImportValue::whole,
     {1, 2147483648.0, true, true},
     "gemv and gemm rows (needed there): input features"},
    {"bytes",
     ImportNeed::optional,
     ImportValue::number,
     {0, kImportInf, false, true},
     "stream rows (needed there): bytes moved per call; gemv and gemm rows: replaces the count "
     "derived from the shape (weights n x k, bf16 activations and outputs)"},
    {"value",
     ImportNeed::unless_samples,
     ImportValue::number,
     {0, kImportInf, false, true},
     "the measured value: a time per call, or a rate that the row's bytes or FLOPs turn into "
     "one; may be empty when samples are given"},
    {"unit", ImportNeed::unless_samples, ImportValue::unit, {}, "the unit of value"},
    {"source",
     ImportNeed::always,
     ImportValue::text,
     {},
     "where the row comes from (a profiler run, a paper, a page)"},
    {"samples",
     ImportNeed::optional,
     ImportValue::samples,
     {0, kImportInf, false, true},
     "per-call times in seconds; their median is the value when value is empty"},
    {"spread",
     ImportNeed::optional,
     ImportValue::number,
     {0, kImportInf, true, true},
     "(p90 - p10) / median as a fraction; derived from samples when absent"},
    {"note", ImportNeed::optional, ImportValue::text, {}, "free text kept with the row"},
};

/// A file-level key: a `# key: value` line before a CSV header, or a top-level key of the YAML
/// form; the `provenance` ones may also stand under its `provenance:` mapping.
struct ImportHeaderKey {
  std::string_view name;
  bool provenance;
  ImportValue value;
  spec::Range bounds;
  std::string_view meaning;
};

inline constexpr ImportHeaderKey kImportHeaderKeys[] = {
    {"hardware",
     false,
     ImportValue::text,
     {},
     "the device's catalog name or alias (calibrate --hardware replaces it)"},
    {"cache_bytes",
     false,
     ImportValue::number,
     {0, kImportInf, true, true},
     "the device's last-level cache in bytes (0 or absent: the fit's default)"},
    {"machine", true, ImportValue::text, {}, "the machine measured"},
    {"date", true, ImportValue::text, {}, "when it was measured"},
    {"command", true, ImportValue::text, {}, "the command that measured it"},
    {"commit", true, ImportValue::text, {}, "the commit of the measuring tool"},
    {"host", true, ImportValue::text, {}, "the host it ran on"},
    {"notes", true, ImportValue::text, {}, "free text for the profile's provenance"},
};

/// A spelling of the kind column; `alias` ones are accepted but not offered in messages.
struct ImportKindSpelling {
  std::string_view name;
  KernelKind kind;
  bool alias;
};

inline constexpr ImportKindSpelling kImportKinds[] = {
    {"read", KernelKind::stream_read, false},
    {"stream_read", KernelKind::stream_read, true},
    {"copy", KernelKind::stream_copy, false},
    {"stream_copy", KernelKind::stream_copy, true},
    {"triad", KernelKind::stream_triad, false},
    {"stream_triad", KernelKind::stream_triad, true},
    {"gemv", KernelKind::gemv, false},
    {"gemm", KernelKind::gemm, false},
    {"launch", KernelKind::call_overhead, false},
    {"call_overhead", KernelKind::call_overhead, true},
};

/// What a unit turns a value into: a time (seconds per call), or a rate over bytes or FLOPs.
enum class ImportUnitKind { time, bytes_rate, flops_rate };

struct ImportUnit {
  std::string_view name;  ///< as messages spell it; matched in any letter case
  ImportUnitKind kind;
  double scale;  ///< to seconds, bytes/s or FLOP/s
};

inline constexpr ImportUnit kImportUnits[] = {
    {"s", ImportUnitKind::time, 1},
    {"ms", ImportUnitKind::time, 1e-3},
    {"us", ImportUnitKind::time, 1e-6},
    {"ns", ImportUnitKind::time, 1e-9},
    {"B/s", ImportUnitKind::bytes_rate, 1},
    {"MB/s", ImportUnitKind::bytes_rate, 1e6},
    {"GB/s", ImportUnitKind::bytes_rate, 1e9},
    {"TB/s", ImportUnitKind::bytes_rate, 1e12},
    {"FLOP/s", ImportUnitKind::flops_rate, 1},
    {"GFLOP/s", ImportUnitKind::flops_rate, 1e9},
    {"TFLOP/s", ImportUnitKind::flops_rate, 1e12},
    {"TOPS", ImportUnitKind::flops_rate, 1e12},
};

/// The kind spellings offered ("read, copy, triad, gemv, gemm or launch") and the units
/// ("s, ms, ..., TFLOP/s or TOPS"), as the reader's messages and the docs list them.
std::string import_kind_list();
std::string import_unit_list();

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
