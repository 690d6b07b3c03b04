#pragma once
// The answer to "how fast will model M run on deployment D at batch B?": TTFT, TPOT, throughput,
// memory, and the per-operator breakdowns, from one PerfModel.
#include "infercap/perf.hpp"

namespace infercap {

struct Prediction {
  int batch = 1;
  double prompt_tokens = 0;
  double output_tokens = 0;
  double ttft_s = 0;  ///< prefill of all `batch` prompts together (they arrive at once)
  double tpot_s = 0;  ///< mean decode step over contexts prompt+1 .. prompt+output-1
  double e2e_s = 0;   ///< ttft + (output - 1) * tpot
  double prefill_tokens_per_s = 0;       ///< batch * prompt / ttft
  double decode_tokens_per_s = 0;        ///< per sequence: 1 / tpot
  double total_decode_tokens_per_s = 0;  ///< batch / tpot
  MemoryReport memory;                   ///< at batch sequences of prompt + output tokens
  StepBreakdown prefill;
  StepBreakdown decode;  ///< at the mean decode context
};

Prediction predict(const PerfModel& perf, int batch, double prompt, double output);

/// Mean generation speed (tokens/s per sequence) producing `n` tokens one step at a time starting
/// from `start_context` cached tokens: n / sum_{i=0}^{n-1} decode_step_s(batch, start_context+i).
/// llama-bench's tgN is generation_tokens_per_s(perf, 1, 0, N).
double generation_tokens_per_s(const PerfModel& perf, int batch, double start_context, double n);

}  // namespace infercap
