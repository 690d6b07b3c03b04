#pragma once
// Measurement files in the schema of shared/benchmarks/README.md:
// id,source,hardware,hw_count,mem_bw_gbs,model,params_b,precision,input_len,output_len,batch,
// metric,value,unit,stack,notes, and optional columns beyond it (kMeasurementColumns below;
// docs/schema/measurements.columns.md is written from that table).
// Rows become BenchCases through the catalog; a row that cannot be mapped is kept with its
// reason, never dropped silently.
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "infercap/spec/catalog.hpp"
#include "infercap/spec/diagnostics.hpp"
#include "infercap/spec/reader.hpp"
#include "infercap/stack_fit.hpp"

namespace infercap::cli {

// --- the column table -----------------------------------------------------------------------
// for_each_measurement checks every file against this table (which columns the header needs,
// the bounds of each number), and `infercap schema` writes docs/schema/measurements.columns.md
// from it, so the documented columns cannot drift from the ones read: the reader names a column
// only through a type whose constructor looks the name up here when the reader is compiled.

/// Ceilings on a row's counts: far above any benchmark run, and within an int.
inline constexpr int kMaxHwCount = 4096;            // devices in one measured run
inline constexpr int kMaxBatch = 1'000'000;         // concurrent sequences
inline constexpr double kMaxRunDurationS = 86'400;  // a day: a rate row's simulated run
inline constexpr double kMaxTokens = 1e9;           // prompt or output length

/// What a cell holds.
enum class CellValue {
  text,    ///< any text
  number,  ///< a finite number within the bounds
  count,   ///< a whole number within the bounds; an empty cell is 1
  whole,   ///< a whole number within the bounds; an empty cell is 0 (not stated)
};

/// When a column is needed.
enum class ColumnNeed {
  header,    ///< the header must name it; its cells may be empty
  cell,      ///< the header must name it and every row fill it
  optional,  ///< beyond the shared schema: read when the header names it
};

struct MeasurementColumn {
  std::string_view name;
  ColumnNeed need;
  CellValue value;
  spec::Range bounds;  ///< number, count and whole cells
  std::string_view meaning;
};

inline constexpr double kUnbounded = std::numeric_limits<double>::infinity();

inline constexpr MeasurementColumn kMeasurementColumns[] = {
    {"id", ColumnNeed::header, CellValue::text, {}, "the row's name in reports and messages"},
    {"source",
     ColumnNeed::header,
     CellValue::text,
     {},
     "where the figure was published or measured"},
    {"hardware", ColumnNeed::header, CellValue::text, {}, "the device: a catalog name or alias"},
    {"hw_count",
     ColumnNeed::header,
     CellValue::count,
     {1, kMaxHwCount, true, true},
     "accelerators (or CPU sockets) the figure covers"},
    {"mem_bw_gbs",
     ColumnNeed::header,
     CellValue::number,
     {0, kUnbounded, true, true},
     "the run's memory bandwidth in GB/s where the source states it (replaces the catalog's)"},
    {"model", ColumnNeed::header, CellValue::text, {}, "the model: a catalog name or alias"},
    {"params_b",
     ColumnNeed::header,
     CellValue::number,
     {0, kUnbounded, true, true},
     "billions of parameters, as the source states them"},
    {"precision",
     ColumnNeed::header,
     CellValue::text,
     {},
     "the weight format (llama.cpp names: Q4_K_M, Q8_0, F16, ...; or bf16, fp8, int8)"},
    {"input_len",
     ColumnNeed::header,
     CellValue::number,
     {0, kMaxTokens, true, true},
     "prompt tokens (ppN: N)"},
    {"output_len",
     ColumnNeed::header,
     CellValue::number,
     {0, kMaxTokens, true, true},
     "generated tokens (tgN: N)"},
    {"batch",
     ColumnNeed::header,
     CellValue::count,
     {1, kMaxBatch, true, true},
     "concurrent sequences"},
    {"metric",
     ColumnNeed::header,
     CellValue::text,
     {},
     "what was measured: prefill_throughput_ppN, decode_throughput_tgN, ttft, "
     "decode_tokens_per_s, system_power, or a static-batch or serving form (docs/validation.md)"},
    {"value",
     ColumnNeed::cell,
     CellValue::number,
     {0, kUnbounded, false, true},
     "the measured figure"},
    {"unit", ColumnNeed::header, CellValue::text, {}, "the unit of value (tokens/s, s, ms, us, W)"},
    {"stack",
     ColumnNeed::header,
     CellValue::text,
     {},
     "the serving stack as free text (llama.cpp CUDA, vLLM, ...), matched to a catalog stack"},
    {"notes", ColumnNeed::header, CellValue::text, {}, "free text"},
    {"threads",
     ColumnNeed::optional,
     CellValue::whole,
     {0, kMaxHwCount * 1024.0, true, true},
     "a CPU run's threads per socket (0 or empty: all physical cores)"},
    {"tp",
     ColumnNeed::optional,
     CellValue::whole,
     {0, kMaxHwCount, true, true},
     "tensor-parallel degree; hw_count / tp replicas (0 or empty: the stack's default split)"},
    {"amx",
     ColumnNeed::optional,
     CellValue::whole,
     {0, 1, true, true},
     "0: the engine ran without AMX tiles on a CPU that has them; 1 or empty: as the CPU has "
     "them"},
    {"moe_routing",
     ColumnNeed::optional,
     CellValue::text,
     {},
     "a MoE row's routing: same_experts where every token of a step went to the same experts (an "
     "engine built with TensorRT-LLM's random weights, whose hidden states collapse onto one "
     "direction); uniform or empty: tokens spread over the experts"},
    {"serving_mode",
     ColumnNeed::optional,
     CellValue::text,
     {},
     "a serving row's load: concurrency, rate or offline (empty: not a serving row)"},
    {"request_rate",
     ColumnNeed::optional,
     CellValue::number,
     {0, kUnbounded, true, true},
     "a rate row's offered load in requests per second"},
    {"kv_precision",
     ColumnNeed::optional,
     CellValue::text,
     {},
     "the KV cache's format where the source states it (FP8, BF16, ...; empty: 16-bit)"},
    {"max_batch",
     ColumnNeed::optional,
     CellValue::whole,
     {0, kMaxBatch, true, true},
     "the engine's limit on sequences running at once (vLLM max_num_seqs, TensorRT-LLM "
     "max_batch_size); 0 or empty: the engine defaults"},
    {"kv_admission",
     ColumnNeed::optional,
     CellValue::text,
     {},
     "the engine's KV admission where the source states it: prompt (a request is admitted on its "
     "prompt's blocks; TensorRT-LLM MAX_UTILIZATION, vLLM) or full_sequence (its whole sequence "
     "reserved; TensorRT-LLM GUARANTEED_NO_EVICT); empty: the stack's kv_admission"},
    {"chunked_prefill",
     ColumnNeed::optional,
     CellValue::text,
     {},
     "the engine's prompt scheduling where the source states it: true (prompts split into "
     "chunks beside the decodes) or false (each prompt whole in one step behind the decodes: "
     "TensorRT-LLM without chunked context); empty: the stack's chunked_prefill"},
    {"prefill_cuda_graphs",
     ColumnNeed::optional,
     CellValue::text,
     {},
     "true where the row's engine replays its prompt steps as piecewise CUDA graphs (SGLang "
     "--enable-piecewise-cuda-graph, TensorRT-LLM enable_piecewise_cuda_graph), so only the "
     "eager attention pieces are launched from the host; false or empty: prompt steps run "
     "eagerly (the stack's prefill_launch_overhead_s floor)"},
    {"dispatch",
     ColumnNeed::optional,
     CellValue::text,
     {},
     "how a rate row's replicas share its arrivals where the source says: least_loaded (each to "
     "the replica with the fewest requests in it) or shared_queue (one queue each replica takes "
     "from as it starts a step); empty: each replica its own Poisson share"},
    {"max_num_tokens",
     ColumnNeed::optional,
     CellValue::whole,
     {0, kMaxBatch, true, true},
     "the engine's limit on tokens in one step, prompt chunks and decodes together (TensorRT-LLM "
     "max_num_tokens, vLLM max_num_batched_tokens); it also caps the sequences decoding at once; 0 "
     "or empty: the engine defaults (8192)"},
    {"beams",
     ColumnNeed::optional,
     CellValue::whole,
     {0, 64, true, true},
     "beam width of the run (MLPerf GPT-J: 4); 0, 1 or empty: greedy"},
    {"requests",
     ColumnNeed::optional,
     CellValue::whole,
     {0, kMaxBatch, true, true},
     "requests in the run: an offline row's dataset size, all queued at once; a rate row's "
     "client count, a finite run with every request measured over the run's wall time "
     "(benchmark_serving, sglang.bench_serving); 0 or empty: the engine defaults (a rate row: "
     "a steady-state run)"},
    {"pp",
     ColumnNeed::optional,
     CellValue::whole,
     {0, kMaxHwCount, true, true},
     "pipeline-parallel stages per replica of a GPU serving row (TensorRT-LLM "
     "pipeline_parallelism); above 1 the row is kept but not predicted; 0, 1 or empty: none"},
    {"ttft_p99_limit_s",
     ColumnNeed::optional,
     CellValue::number,
     {0, kUnbounded, true, true},
     "a max_rate_output_tokens_per_s row's P99 TTFT limit in seconds (MLPerf Llama 2 70B "
     "Server: 2); 0 or empty: none"},
    {"tpot_p99_limit_s",
     ColumnNeed::optional,
     CellValue::number,
     {0, kUnbounded, true, true},
     "a max_rate_output_tokens_per_s row's P99 TPOT limit in seconds (MLPerf Llama 2 70B "
     "Server: 0.2); 0 or empty: none"},
    {"duration_s",
     ColumnNeed::optional,
     CellValue::number,
     {0, kMaxRunDurationS, true, true},
     "a rate row's run length in seconds (MLPerf Server's min_duration, in the run's "
     "mlperf_log_summary.txt): the simulated run is as long, so its P99s see the queue a run of "
     "that length sees; 0 or empty: the simulator's default run (10 x max_batch requests)"},
    {"request_poll_steps",
     ColumnNeed::optional,
     CellValue::whole,
     {1, 1000000, true, true},
     "decode steps between a busy engine's polls for new requests, as the row's server states "
     "it (SGLang --scheduler-recv-interval, or --num-continuous-decode-steps); after a step with "
     "prompt tokens, and when idle, it takes them in at once; empty: every step"},
    {"prompt_wait_steps",
     ColumnNeed::optional,
     CellValue::whole,
     {0, 1000000, true, true},
     "batch waiting as the row's server states it (TensorRT-LLM batch_wait_timeout_iters): "
     "while sequences decode, waiting prompts are held out of the steps until they have waited "
     "this many, or until prompt_wait_tokens is reached; 0 or empty: none"},
    {"prompt_wait_tokens",
     ColumnNeed::optional,
     CellValue::whole,
     {0, 100000000, true, true},
     "the token level that ends a batch wait early: the waiting prompts' tokens plus the "
     "step's decodes (TensorRT-LLM batch_wait_max_tokens_ratio x max_num_tokens); 0 or empty: "
     "only prompt_wait_steps ends it"},
    {"memory_fraction",
     ColumnNeed::optional,
     CellValue::number,
     {0, 1, true, true},
     "share of each device's memory the engine takes for weights and KV cache, as its "
     "configuration states or its defaults give for the row's setting (vLLM "
     "gpu_memory_utilization, SGLang mem_fraction_static); 0 or empty: the stack's "
     "memory_reserve_fraction"},
    {"input_len_points",
     ColumnNeed::optional,
     CellValue::text,
     {},
     "a serving row's prompt lengths as equal-weight points, ';'-separated (each the mean length "
     "of an equal share of the dataset's samples, sorted): the spread the simulator samples "
     "prompts from; input_len must be their mean (within half a token); empty: every prompt "
     "input_len long"},
    {"output_len_points",
     ColumnNeed::optional,
     CellValue::text,
     {},
     "a serving row's output lengths as equal-weight points, ';'-separated, as input_len_points "
     "for prompts: the spread the simulator samples outputs from; output_len must be their mean "
     "(within half a token); empty: every output output_len long"},
};

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
  /// Optional `moe_routing` column: how the run's router spread tokens over the experts.
  MoeRouting moe_routing = MoeRouting::uniform;
  /// Optional serving columns: `tp` (tensor-parallel degree; hw_count / tp replicas),
  /// `serving_mode` (concurrency, rate, offline; empty = not a serving row), `request_rate` (qps).
  int tp = 0;
  std::string serving_mode;
  double request_rate = 0;
  /// Optional `kv_precision` column: the KV cache's format where the source states it (FP8,
  /// BF16, ...); empty = the stack's default for the weight format (16-bit).
  std::string kv_precision;
  /// Optional `max_batch` column: the engine's limit on sequences running at once (vLLM
  /// max_num_seqs, TensorRT-LLM max_batch_size) where the source states it; 0 = the defaults of
  /// ServingCaseDefaults.
  int max_batch = 0;
  /// Optional `kv_admission` column: the engine's KV admission as the source states it, `prompt`
  /// or `full_sequence` (StackSpec::kv_admission's spellings); nullopt = the stack's.
  std::optional<KvAdmission> kv_admission;
  /// Optional `chunked_prefill` column: `true` or `false` as the source states the engine ran
  /// (StackSpec::chunked_prefill); nullopt = the stack's.
  std::optional<bool> chunked_prefill;
  /// Optional `prefill_cuda_graphs` column: the engine replays its prompt steps as piecewise
  /// CUDA graphs (Deployment::prefill_cuda_graphs); false = eager.
  bool prefill_cuda_graphs = false;
  /// Optional `dispatch` column: how the row's replicas shared its arrivals, `least_loaded` or
  /// `shared_queue` (Dispatch's spellings); nullopt = each replica its own Poisson share.
  std::optional<Dispatch> dispatch;
  /// Optional `max_num_tokens` column: the engine's limit on tokens per step (TensorRT-LLM
  /// max_num_tokens, vLLM max_num_batched_tokens), prompt chunks and decodes together; 0 = the
  /// defaults of ServingCaseDefaults.
  int max_num_tokens = 0;
  /// Optional `beams` column: beam width of the run (MLPerf GPT-J uses 4); 0 or 1 = greedy.
  int beams = 0;
  /// Optional `requests` column: requests in the run (an offline row's dataset size: all queued
  /// at once, measured over the makespan); 0 = ServingCaseDefaults.
  int requests = 0;
  /// Optional `pp` column: pipeline-parallel stages per replica of a GPU serving row; above 1
  /// the row is kept but not predicted (the simulator runs one replica's steps one at a time).
  int pp = 0;
  /// Optional `ttft_p99_limit_s`, `tpot_p99_limit_s` columns: the P99 limits a
  /// `max_rate_output_tokens_per_s` row's rate keeps (seconds; 0 = none).
  double ttft_p99_limit_s = 0;
  double tpot_p99_limit_s = 0;
  /// Optional `duration_s` column: a rate row's run length in seconds (MLPerf Server's
  /// min_duration); 0 = the simulator's default number of requests.
  double duration_s = 0;
  /// Optional `memory_fraction` column: the engine's share of each device's memory for weights
  /// and KV cache (0 = the stack's memory_reserve_fraction).
  double memory_fraction = 0;
  /// Optional `request_poll_steps` column: decode steps between a busy engine's polls for new
  /// requests (0 = every step).
  int request_poll_steps = 0;
  /// Optional `prompt_wait_steps` and `prompt_wait_tokens` columns: batch waiting (0 = none).
  int prompt_wait_steps = 0;
  int prompt_wait_tokens = 0;
  /// Optional `input_len_points` column: the dataset's prompt lengths as equal-weight points
  /// (tokens, each in [1, kMaxTokens]), whose mean is `input_len`; empty = every prompt
  /// `input_len` long.
  std::vector<double> input_len_points;
  /// Optional `output_len_points` column: the same for output lengths, whose mean is
  /// `output_len`; empty = every output `output_len` long.
  std::vector<double> output_len_points;
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

/// The engine settings a serving row runs with: the stack's KV admission (`kv_admission`:
/// full_sequence = TensorRT-LLM's GUARANTEED_NO_EVICT), prompt schedule and one-step-ahead
/// batching (`overlap_scheduling`), each replaced by the row's own where it states one (its
/// `kv_admission` and `chunked_prefill` columns). `stack` null (not in the catalog): the
/// defaults, prompt admission, chunked prompts, batches formed at their step.
void apply_engine_settings(const StackSpec* stack, const MeasurementRow& row, BenchCase& c);

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
