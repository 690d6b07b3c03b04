#pragma once
// `infercap calibrate --from-benchmarks FILE`: serving-stack results (llama.cpp llama-bench JSON
// or CSV, vLLM benchmark_serving / benchmark_latency JSON) turned into measurement rows of the
// shared/benchmarks schema, mapped to BenchCases through the catalog, and fitted with
// infercap::fit_stack. And `infercap calibrate --import FILE`: NPU / vendor-profiler measurements
// (calibration/import/) fitted into a calibration profile.
#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "infercap/result.hpp"
#include "infercap/spec/catalog.hpp"
#include "infercap/stack_fit.hpp"
#include "measurements.hpp"

namespace infercap::cli {

/// What the file does not say: flags of `--from-benchmarks`.
struct BenchImportOptions {
  std::string hardware;   ///< catalog name/alias; else from gpu_info / cpu_info (llama-bench)
  std::string model;      ///< catalog name/alias; else from model_filename / model_id
  std::string precision;  ///< weight format; else from model_type (llama-bench), bf16 (vLLM)
  std::string stack;      ///< stack the rows ran on; else llama.cpp[-metal] / vllm
  int devices = 0;        ///< accelerators; else counted from gpu_info (llama-bench), 1 (vLLM)
  double input_len = 0, output_len = 0;  ///< benchmark_latency only
  int batch = 0;                         ///< benchmark_latency only
};

struct BenchImport {
  std::string format;  ///< "llama-bench-json", "llama-bench-csv", "vllm-serving", "vllm-latency"
  std::vector<MeasurementRow> rows;
  std::vector<std::string> notes;  ///< rows skipped and why, assumptions made
  bool tensor_parallel = false;    ///< vLLM: devices are tensor-parallel (llama.cpp: layer split)
};

Result<BenchImport> parse_llama_bench_json(std::string_view text, const std::string& file,
                                           const BenchImportOptions& opt,
                                           const spec::Catalog& catalog);
Result<BenchImport> parse_llama_bench_csv(std::string_view text, const std::string& file,
                                          const BenchImportOptions& opt,
                                          const spec::Catalog& catalog);
Result<BenchImport> parse_vllm_json(std::string_view text, const std::string& file,
                                    const BenchImportOptions& opt, const spec::Catalog& catalog);
/// Reads `path` and picks the parser from its content (JSON array or object, CSV header).
Result<BenchImport> import_benchmark_file(const std::string& path, const BenchImportOptions& opt,
                                          const spec::Catalog& catalog);

/// Rows as BenchCases (map_measurements), with vLLM's devices made tensor-parallel. Rows that
/// cannot be mapped are returned in `unmapped` with the reason.
std::vector<MappedRow> map_imported(const BenchImport& imp, const spec::Catalog& catalog);

/// The stack parameters a single benchmark file can determine: weight bandwidth from decode
/// rows, the (quantised) GEMM fraction from prefill rows, the step overhead once decode rows
/// are plentiful; trimmed so there are always more cases than parameters. Empty when there are
/// too few rows for even one.
std::vector<StackParam> import_fit_params(const std::vector<BenchCase>& cases);

/// Drops the parameters that no case's prediction responds to at `start` (a 1% step moves no
/// prediction by 1e-5): the power cap or the issue-rate limit binds instead, and fitting them
/// would leave a singular problem. Each dropped parameter gets a line in `dropped`.
std::vector<StackParam> sensitive_params(const std::vector<StackParam>& params,
                                         const StackSpec& start, HwClass cls,
                                         const std::vector<BenchCase>& cases,
                                         std::vector<std::string>* dropped);

/// Registers the flags on `calibrate`; the returned arguments say whether an import was asked.
struct ImportArgs {
  std::vector<std::string> from_benchmarks;
  std::vector<std::string> import_files;  ///< several: one device's rows from several tools
  std::string stack;
  BenchImportOptions opt;
  bool force = false;  ///< calibrate's --force: replace a symbolic link or read-only output
  bool active() const { return !from_benchmarks.empty() || !import_files.empty(); }
};
std::shared_ptr<ImportArgs> add_import_options(CLI::App* calibrate);

/// Runs an import: `output` is the stack YAML (--from-benchmarks) or profile YAML (--import);
/// `hardware` is calibrate's --hardware; `data` the catalog folder.
int run_import(const ImportArgs& a, const std::string& output, const std::string& hardware,
               const std::string& data);

}  // namespace infercap::cli
