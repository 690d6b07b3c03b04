#pragma once
// The keys `infercap calibrate --from-benchmarks` reads from other tools' results: llama.cpp's
// llama-bench (-o json: an array of objects with these keys; -o csv: a header of them) and
// vLLM's benchmark_serving / benchmark_latency JSON. The readers (calibrate_import.cpp) name a
// key only through LlamaBenchKey / VllmKey (spec/table_key.hpp), whose constructors look the name
// up in these tables when the reader is compiled, so a key read but not listed does not compile;
// `infercap schema` writes docs/schema/llama-bench.schema.json and vllm-benchmark.schema.json
// from the same tables (import_schemas.hpp). Both tools write many more keys; the readers ignore
// the others.
#include <string_view>

#include "infercap/spec/table_key.hpp"

namespace infercap::cli {

/// How a reader takes a key's value.
enum class BenchValue {
  number,  ///< a JSON number (a numeric string, as llama-bench's CSV writes, or a boolean too)
  text,    ///< a JSON string (another value is taken as its JSON text)
  flag,    ///< a boolean (or 0 / 1), true when the build used that backend
};

struct BenchKey {
  std::string_view name;
  bool required;  ///< a llama-bench CSV header must name it (the schema asks every result for it)
  BenchValue value;
  std::string_view meaning;
};

inline constexpr BenchKey kLlamaBenchKeys[] = {
    {"build_commit", false, BenchValue::text, "the llama.cpp build, kept in each row's source"},
    {"cpu_info", false, BenchValue::text,
     "the CPU: matched to the catalog when no layer is offloaded and --hardware is not given"},
    {"gpu_info", false, BenchValue::text,
     "the GPUs, comma-separated: the first is matched to the catalog and their count is the "
     "device count (when n_gpu_layers > 0 and --hardware / --devices are not given)"},
    {"n_gpu_layers", false, BenchValue::number, "layers offloaded to the GPUs (0: a CPU run)"},
    {"backends", false, BenchValue::text, "the backends (CUDA, Metal, ...), named in the stack"},
    {"cuda", false, BenchValue::flag, "older builds, without backends: the build used CUDA"},
    {"metal", false, BenchValue::flag, "older builds, without backends: the build used Metal"},
    {"vulkan", false, BenchValue::flag, "older builds, without backends: the build used Vulkan"},
    {"sycl", false, BenchValue::flag, "older builds, without backends: the build used SYCL"},
    {"kompute", false, BenchValue::flag, "older builds, without backends: the build used Kompute"},
    {"opencl", false, BenchValue::flag, "older builds, without backends: the build used OpenCL"},
    {"model_filename", false, BenchValue::text,
     "the model file, matched to the catalog with its quantisation suffix cut (else --model)"},
    {"model_type", true, BenchValue::text,
     "e.g. 'llama 8B Q4_K - Medium': the weight format is read from its end (else --precision)"},
    {"model_n_params", false, BenchValue::number, "the model's parameters"},
    {"n_prompt", true, BenchValue::number, "prompt tokens: a ppN result when n_gen is 0"},
    {"n_gen", true, BenchValue::number,
     "generated tokens: a tgN result when n_prompt is 0 (a result with both is skipped)"},
    {"avg_ts", true, BenchValue::number, "the mean rate in tokens/s, > 0"},
    {"stddev_ts", false, BenchValue::number, "its standard deviation, kept in the row's notes"},
    {"n_threads", false, BenchValue::text, "kept in the row's notes"},
    {"type_k", false, BenchValue::text, "kept in the row's notes"},
    {"flash_attn", false, BenchValue::text, "kept in the row's notes"},
};

inline constexpr BenchKey kVllmKeys[] = {
    {"model_id", false, BenchValue::text, "the model, matched to the catalog (else --model)"},
    {"date", false, BenchValue::text, "benchmark_serving: kept in the rows' source"},
    {"request_throughput", false, BenchValue::number,
     "marks a benchmark_serving result (requests/s; its value is not used)"},
    {"mean_ttft_ms", false, BenchValue::number,
     "marks a benchmark_serving result (its value is not used)"},
    {"completed", false, BenchValue::number,
     "benchmark_serving: requests completed, > 0 (needed there)"},
    {"total_input_tokens", false, BenchValue::number,
     "benchmark_serving: the mean prompt is total_input_tokens / completed"},
    {"total_output_tokens", false, BenchValue::number,
     "benchmark_serving: the mean output is total_output_tokens / completed"},
    {"max_concurrency", false, BenchValue::number,
     "benchmark_serving: clients; 1 gives a TTFT row, >= 1 a decode row of that batch"},
    {"median_ttft_ms", false, BenchValue::number,
     "benchmark_serving at max_concurrency 1: the TTFT row's value"},
    {"median_tpot_ms", false, BenchValue::number,
     "benchmark_serving: one decode step of max_concurrency sequences"},
    {"mean_tpot_ms", false, BenchValue::number, "used when median_tpot_ms is absent"},
    {"avg_latency", false, BenchValue::number,
     "marks a benchmark_latency result: seconds per batch (with --input-len, --output-len 1 "
     "and --batch-size, which the file does not record)"},
};

/// A key of each table, by name, checked when the reader is compiled (table_key.hpp).
using LlamaBenchKey = spec::TableKey<kLlamaBenchKeys>;
using VllmKey = spec::TableKey<kVllmKeys>;

}  // namespace infercap::cli
