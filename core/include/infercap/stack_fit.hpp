#pragma once
// Benchmark cases (a measured number with everything needed to predict it) and the fit of a
// stack's few physical parameters to them. Fitting works in log space on log(predicted/measured),
// Levenberg-Marquardt with Eigen, so every row weighs by its relative error; fractions stay in
// (0, 1], overheads >= 0. A handful of parameters per stack and hardware class, never a factor
// per row: what transfers to devices we have no rows for is physics, not memorised rows.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "infercap/calibration_profile.hpp"
#include "infercap/perf.hpp"
#include "infercap/serving.hpp"

namespace infercap {

enum class BenchMetric : unsigned char {
  prefill_tokens_per_s,     ///< llama-bench ppN: N / prefill_s(1, N)
  generation_tokens_per_s,  ///< llama-bench tgN: generate `output` tokens after `prompt`
  ttft_s,                   ///< prefill of `batch` prompts of `prompt` tokens
  // A static batch (`batch` requests of `prompt` + `output` tokens, started together): predict().
  tpot_s,                      ///< mean decode step (TPOT / inter-token latency)
  e2e_latency_s,               ///< TTFT + (output - 1) x TPOT
  static_output_tokens_per_s,  ///< batch x output / end-to-end latency
  // Serving runs through the simulator (ServingMode below); latencies per request.
  serving_ttft_mean_s,
  serving_ttft_p99_s,
  /// Per request: (e2e - TTFT) / (output - 1), then over requests (vLLM's TPOT; genai-perf's
  /// and NIM's "ITL", which averages each request's gaps first; MLPerf's TPOT).
  serving_tpot_mean_s,
  serving_tpot_p99_s,
  serving_e2e_mean_s,
  serving_output_tokens_per_s,
  serving_requests_per_s,
  /// Per token: every gap between consecutive tokens pooled (vLLM benchmark_serving's ITL,
  /// ServingResult::itl). Its P99 catches the steps a prefill chunk lengthened.
  serving_itl_mean_s,
  serving_itl_p50_s,
  serving_itl_p99_s,
  serving_ttft_p50_s,  ///< medians, as SGLang's and vLLM's benchmark scripts print them
  serving_tpot_p50_s,
  serving_e2e_p50_s,
  serving_e2e_p99_s,
  /// MLPerf Server's result: output tokens/s at the largest Poisson rate whose P99 TTFT and P99
  /// TPOT stay within the case's limits (BenchCase::ttft_p99_limit_s, tpot_p99_limit_s), found by
  /// bisection on the simulator.
  serving_max_rate_output_tokens_per_s,
};
std::string_view bench_metric_name(BenchMetric m);
/// True for metrics predicted through the serving simulator.
bool is_serving_metric(BenchMetric m);
/// True for metrics where smaller is better (latencies), false for throughputs.
bool is_latency_metric(BenchMetric m);

/// How a serving benchmark loaded the engine.
enum class ServingMode : unsigned char {
  none,         ///< not a serving row
  concurrency,  ///< closed loop: `batch` clients, each sending its next request on completion
  rate,         ///< open loop at `request_rate_qps` (Poisson arrivals)
  offline,      ///< every request queued at once (maximum throughput: trtllm-bench, MLPerf Offline)
};
std::string_view serving_mode_name(ServingMode m);

/// Engine limits a serving row runs with where the row does not state them: vLLM's defaults
/// (max_num_seqs 256, max_num_batched_tokens 8192, chunked prefill); offline runs hold 2048.
struct ServingCaseDefaults {
  int max_seqs = 256;
  int offline_max_seqs = 2048;
  int max_batched_tokens = 8192;
  int64_t requests = 1500;  ///< simulated requests per concurrency / rate row (after warm-up)
  int64_t warmup = 300;
  /// An offline row is a finite run: this many requests (or the row's own count) queued at
  /// t = 0 and measured over the makespan, as trtllm-bench and MLPerf Offline measure it; the
  /// ramp-up and the drain at the end are part of the result.
  int64_t offline_requests = 1500;
};

struct BenchCase {
  std::string id;
  std::string source;
  ModelSpec model;
  HardwareSpec hardware;
  Deployment deployment;
  BenchMetric metric = BenchMetric::generation_tokens_per_s;
  double prompt_tokens = 0;
  double output_tokens = 0;
  int batch = 1;  ///< static batch; closed-loop clients for ServingMode::concurrency
  double measured = 0;
  ServingMode serving = ServingMode::none;
  double request_rate_qps = 0;  ///< ServingMode::rate, all replicas together
  int replicas = 1;             ///< data-parallel copies (devices / (tp x pp)); load splits evenly
  /// How a rate row's replicas share its arrivals, where the source says: nullopt = each replica
  /// its own Poisson share (one replica simulated); else the fleet behind that dispatcher,
  /// simulated together (SimOptions::replicas).
  std::optional<Dispatch> dispatch;
  /// Engine limit on running sequences as the row states it (TensorRT-LLM max_batch_size, vLLM
  /// max_num_seqs); 0 = ServingCaseDefaults.
  int max_seqs = 0;
  /// Engine limit on tokens per step as the row states it (TensorRT-LLM max_num_tokens, vLLM
  /// max_num_batched_tokens): prompt chunks and decodes share it, so it also caps the sequences
  /// decoding at once; 0 = ServingCaseDefaults::max_batched_tokens.
  int max_batched_tokens = 0;
  /// Requests in the run as the row states it, all replicas together: ServingMode::offline, all
  /// queued at once (0 = ServingCaseDefaults::offline_requests); ServingMode::rate, a finite run
  /// of that many Poisson arrivals, every one measured, over the run's wall time
  /// (SimOptions::finite_run; 0 = a steady-state run); ServingMode::concurrency, a finite run
  /// in which the `batch` clients send that many requests in all, ramp and drain included
  /// (0 = a steady-state closed loop).
  int64_t requests = 0;
  /// The engine's KV admission policy (ServingConfig::reserve_full_sequence): true for
  /// TensorRT-LLM, whose default capacity scheduler is GUARANTEED_NO_EVICT.
  bool reserve_full_sequence = false;
  /// The engine's prompt scheduling: the stack's (StackSpec::prompt_schedule) unless the row
  /// states it (its `chunked_prefill` column).
  PromptSchedule prompt_schedule = PromptSchedule::chunked;
  /// The stack's StackSpec::overlap_scheduling: each step's batch formed one step ahead.
  bool schedule_one_step_ahead = false;
  /// Decode-only steps between the engine's polls for new requests as the row states it
  /// (ServingConfig::request_poll_decode_steps; SGLang --scheduler-recv-interval); 1 = every step.
  int request_poll_decode_steps = 1;
  /// Batch waiting as the row states it (ServingConfig::prompt_wait_steps and
  /// prompt_wait_tokens; TensorRT-LLM batch_wait_timeout_iters, batch_wait_max_tokens_ratio x
  /// max_num_tokens); 0 = none.
  int prompt_wait_steps = 0;
  int prompt_wait_tokens = 0;
  /// A serving row's prompt lengths as equal-weight points (tokens; a dataset's spread, e.g.
  /// the mean of each 1/N share of its sorted lengths), whose mean is `prompt_tokens`; empty =
  /// every prompt `prompt_tokens` long.
  std::vector<double> prompt_len_points;
  /// The same for output lengths, whose mean is `output_tokens`; empty = every output
  /// `output_tokens` long.
  std::vector<double> output_len_points;
  /// P99 limits (seconds; 0 = no limit on that metric). serving_max_rate_output_tokens_per_s
  /// needs one; on any other metric of a rate run they say the row was measured at the highest
  /// rate within them (MLPerf Server), and the model's value is read at its own highest such
  /// rate instead of request_rate_qps.
  double ttft_p99_limit_s = 0;
  double tpot_p99_limit_s = 0;
  /// ServingMode::rate: the run's length in seconds as the row states it (MLPerf Server's
  /// min_duration, 2400 s for Llama 2 70B). The simulated run is as long (rate x duration
  /// requests, at least ServingCaseDefaults'), so a queue that grows for the whole run shows in
  /// its P99s as it did in the benchmark's; 0 = ServingCaseDefaults' count.
  double duration_s = 0;
  /// The calibration profile of the row's hardware (validate --calibration), used wherever the
  /// case is predicted without one given, the fit included; null = the hardware entry alone.
  const CalibrationProfile* profile = nullptr;
  /// The engine's share of each device's memory for weights and KV cache as the row states it
  /// (vLLM gpu_memory_utilization, SGLang mem_fraction_static): the stack's
  /// memory_reserve_fraction becomes 1 - this; 0 = the stack's.
  double memory_fraction = 0;
};

/// The model's value of the case's metric under `stack`.
Result<double> predict_case(const BenchCase& c, const StackSpec& stack,
                            const CalibrationProfile* profile = nullptr);

/// A rate row's simulator options at `total_qps` (all replicas simulated together): as many
/// requests as the row's run holds (ceil(total_qps x BenchCase::duration_s)), at least `opt`'s;
/// `opt` unchanged where the row states no duration. An error past 2^24 requests a run.
Result<SimOptions> rate_run_options(const BenchCase& c, SimOptions opt, double total_qps);

/// Bytes one generated token streams at batch 1 (weights + KV at the mean context), per replica;
/// measured tokens/s x this = the bandwidth a claimed decode speed implies.
double bytes_per_generated_token(const BenchCase& c);

enum class StackParam : unsigned char {
  weight_bandwidth_fraction,
  kv_bandwidth_fraction,
  gemm_compute_fraction,
  quantised_gemm_compute_fraction,
  attention_compute_fraction,
  kernel_overhead_s,
  step_overhead_s,
  issue_cycles_per_weight,
  quantised_issue_cycles_per_weight,
  flops_per_watt,
  amx_gemm_fraction,
  dot_fraction,
  quantised_dot_fraction,
  core_bandwidth_bytes_per_s,
  dot_memory_overlap,
  amx_dot_fraction,
  fp16_gemm_compute_fraction,
};
std::string_view stack_param_name(StackParam p);
/// True for parameters that are fractions in (0, 1]; false for overheads, cycles and rates.
bool stack_param_is_fraction(StackParam p);
/// The StackEfficiency field a parameter names.
double* stack_param_field(StackEfficiency& e, StackParam p);

struct StackFitResult {
  StackSpec stack;                 ///< `start` with the fitted parameters written in
  std::vector<StackParam> params;  ///< what was fitted
  std::vector<double> values;
  std::vector<double> ci95_low;   ///< from the Gauss-Newton covariance in log space
  std::vector<double> ci95_high;  ///< NaN for a parameter the cases do not determine
  std::vector<bool> identified;   ///< false: no case is sensitive to it; kept at its start value
  double rms_log_error_before = 0;
  double rms_log_error_after = 0;
  int iterations = 0;
  int cases = 0;
};

/// Fits `params` of `start.for_class(cls)` to `cases` (all of that class). Needs more cases than
/// parameters; cases the start stack cannot predict are an error naming the case.
Result<StackFitResult> fit_stack(const StackSpec& start, HwClass cls,
                                 const std::vector<BenchCase>& cases,
                                 const std::vector<StackParam>& params);

}  // namespace infercap
