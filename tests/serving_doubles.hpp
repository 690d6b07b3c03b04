#pragma once
// Step-model test doubles with closed-form step times, and the request classes and run options
// the serving tests build, shared by the serving and solver tests.
#include <string>
#include <utility>

#include "infercap/serving.hpp"

namespace infercap::testing {

// Every step takes `s` seconds, whatever it holds.
struct ConstStep final : StepModel {
  double s = 0.01;
  double kv = 1e9;
  double prefill_s(int, double, double) const override { return s; }
  double decode_step_s(int, double) const override { return s; }
  double mixed_step_s(double, double, int, double) const override { return s; }
  double kv_capacity_tokens() const override { return kv; }
};

// step = a + k * (tokens in the step): a weight stream plus per-token work.
struct AffineStep final : StepModel {
  double a = 0.01, k = 0.0005, kv = 1e9;
  double prefill_s(int b, double p, double) const override { return a + k * b * p; }
  double decode_step_s(int b, double) const override { return a + k * b; }
  double mixed_step_s(double p, double, int d, double) const override { return a + k * (p + d); }
  double kv_capacity_tokens() const override { return kv; }
};

// One class at 1 req/s whose every request has `prompt` prompt and `output` output tokens.
inline RequestClass fixed_class(double prompt, double output) {
  RequestClass c;
  c.name = "c";
  c.rate.mean_qps = 1;
  c.prompt_tokens = *fixed_length(prompt);
  c.output_tokens = *fixed_length(output);
  return c;
}

// One sequence at a time: the queue is a single-server queue.
inline ServingConfig single_server() {
  ServingConfig cfg;
  cfg.max_seqs = 1;
  cfg.max_batched_tokens = 2048;
  return cfg;
}

// One class at `qps` (Poisson unless the caller sets its arrival kind) with these lengths.
inline RequestClass make_class(double qps, LengthDist prompt, LengthDist output) {
  RequestClass c;
  c.name = std::string("chat");
  c.rate.mean_qps = qps;
  c.prompt_tokens = std::move(prompt);
  c.output_tokens = std::move(output);
  return c;
}

// A config with batches formed when their step starts and the same formed one step ahead.
struct NowAndAhead {
  ServingConfig now, ahead;
};
inline NowAndAhead now_and_ahead() {
  NowAndAhead c;
  c.ahead.schedule_one_step_ahead = true;
  return c;
}

inline SimOptions run_of(int64_t requests, int64_t warmup) {
  SimOptions opt;
  opt.requests = requests;
  opt.warmup_requests = warmup;
  return opt;
}

}  // namespace infercap::testing
