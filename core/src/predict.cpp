#include "infercap/predict.hpp"

#include <algorithm>
#include <cmath>

namespace infercap {

namespace {

// Sum of decode steps over contexts c0 .. c0+n-1. Step time is piecewise affine in context, so
// for long runs we sample 64 evenly spaced contexts (trapezoid on cell midpoints) instead of
// n calls; below 256 steps the sum is exact.
double decode_sum(const PerfModel& perf, int batch, double c0, double n) {
  if (n <= 0) return 0;
  if (n <= 256) {
    double s = 0;
    for (int i = 0; i < static_cast<int>(n); ++i) s += perf.decode_step_s(batch, c0 + i);
    return s;
  }
  constexpr int kCells = 64;
  const double w = n / kCells;
  double s = 0;
  for (int i = 0; i < kCells; ++i) s += perf.decode_step_s(batch, c0 + (i + 0.5) * w - 0.5) * w;
  return s;
}

}  // namespace

double generation_tokens_per_s(const PerfModel& perf, int batch, double start_context, double n) {
  const double t = decode_sum(perf, batch, start_context, n);
  return t > 0 ? n / t : 0;
}

Prediction predict(const PerfModel& perf, int batch, double prompt, double output) {
  Prediction p;
  p.batch = batch;
  p.prompt_tokens = prompt;
  p.output_tokens = output;
  p.ttft_s = perf.prefill_s(batch, prompt, 0);
  const double steps = std::max(0.0, output - 1.0);
  if (steps > 0) {
    p.tpot_s = decode_sum(perf, batch, prompt + 1, steps) / steps;
  } else {
    p.tpot_s = perf.decode_step_s(batch, prompt + 1);
  }
  p.e2e_s = p.ttft_s + steps * p.tpot_s;
  p.prefill_tokens_per_s = p.ttft_s > 0 ? batch * prompt / p.ttft_s : 0;
  p.decode_tokens_per_s = p.tpot_s > 0 ? 1.0 / p.tpot_s : 0;
  p.total_decode_tokens_per_s = p.tpot_s > 0 ? batch / p.tpot_s : 0;
  // Engines chunk long prefills (vLLM's max_num_batched_tokens defaults to 8192), so activations
  // are sized for at most that many tokens in flight.
  p.memory = perf.memory(batch, prompt + output, std::min(batch * prompt, 8192.0));
  p.prefill = perf.prefill_breakdown(batch, prompt, 0);
  p.decode = perf.decode_breakdown(batch, prompt + output / 2.0);
  return p;
}

}  // namespace infercap
