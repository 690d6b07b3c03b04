#pragma once
// Which of a serving stack's physical parameters a set of static-batch rows can determine.
// llama-bench rows have a fixed recipe (cmd_validate's params_for); rows of serving stacks
// (vLLM's benchmark_latency, TensorRT-LLM's gptSessionBenchmark, gpt-fast) mix batch sizes,
// contexts, models and tensor parallelism, so the parameters are chosen from what the rows
// respond to instead: a parameter is fitted when the rows' predictions move with it and that
// movement is not already explained by parameters chosen before it.
#include <vector>

#include "infercap/stack_fit.hpp"

namespace infercap {

/// The parameters a serving stack's rows are fitted on, in the order tried. Fractions of the
/// hardware's achievable rates and per-kernel / per-step overheads; no CPU kernel-family or
/// issue-rate parameters (llama.cpp's own).
std::vector<StackParam> serving_stack_candidates();

struct ParamSensitivity {
  StackParam param;
  /// RMS over the cases of d ln(predicted) / d ln(parameter), at the start values.
  double rms_sensitivity = 0;
  /// Share of this parameter's sensitivity column not in the span of the parameters chosen
  /// before it (1 = independent of them, 0 = a combination of them).
  double independence = 0;
  bool chosen = false;
};

struct ParamChoice {
  std::vector<StackParam> params;        ///< chosen, most influential first
  std::vector<ParamSensitivity> review;  ///< every candidate with its figures (for reports)
};

/// Chooses from `candidates` (default serving_stack_candidates()) the parameters of
/// `start.for_class(cls)` that `cases` determine. Candidates are ranked by RMS sensitivity,
/// largest first; one is chosen when its RMS sensitivity is at least `min_sensitivity` and its
/// independence at least `min_independence`; at most cases - 1 are chosen (a fit needs more
/// rows than parameters). A parameter at zero in the start stack is a mechanism the stack does
/// not have and is never chosen. Cases the stack cannot predict are an error naming the case.
Result<ParamChoice> choose_fit_params(const StackSpec& start, HwClass cls,
                                      const std::vector<BenchCase>& cases,
                                      std::vector<StackParam> candidates = {},
                                      double min_sensitivity = 0.05,
                                      double min_independence = 0.15);

/// choose_fit_params, then forward selection on the fit itself: each candidate left out (not
/// at zero in the start stack, independent of the chosen ones by `min_independence` at the fitted
/// point) is tried in addition, and the one that lowers the Bayesian information criterion
/// n ln(RSS / n) + k ln n the most, by more than 2, is kept; repeated while one qualifies and
/// fewer than cases - 1 are chosen. This takes an overhead the start value made look small (a
/// 0.5 ms step cost that the rows say is 3 ms) when the rows call for it.
Result<ParamChoice> select_fit_params(const StackSpec& start, HwClass cls,
                                      const std::vector<BenchCase>& cases,
                                      double min_sensitivity = 0.05,
                                      double min_independence = 0.15);

/// True for the metrics of a static batch (TTFT, TPOT / ITL, end-to-end latency, output
/// throughput of the batch): rows that select their fit parameters with choose_fit_params.
bool is_static_batch_metric(BenchMetric m);

}  // namespace infercap
