// A benchmark case's metric under a stack: llama-bench forms, static-batch latencies and
// throughputs, and serving runs through the continuous-batching simulator.
#include <fmt/core.h>

#include <array>
#include <cmath>

#include "infercap/predict.hpp"
#include "infercap/serving.hpp"
#include "infercap/stack_fit.hpp"

namespace infercap {

std::string_view bench_metric_name(BenchMetric m) {
  static constexpr std::array<std::string_view, 20> kNames{"prefill_tokens_per_s",
                                                           "generation_tokens_per_s",
                                                           "ttft_s",
                                                           "tpot_s",
                                                           "e2e_latency_s",
                                                           "static_output_tokens_per_s",
                                                           "serving_ttft_mean_s",
                                                           "serving_ttft_p99_s",
                                                           "serving_tpot_mean_s",
                                                           "serving_tpot_p99_s",
                                                           "serving_e2e_mean_s",
                                                           "serving_output_tokens_per_s",
                                                           "serving_requests_per_s",
                                                           "serving_itl_mean_s",
                                                           "serving_itl_p50_s",
                                                           "serving_itl_p99_s",
                                                           "serving_ttft_p50_s",
                                                           "serving_tpot_p50_s",
                                                           "serving_e2e_p50_s",
                                                           "serving_e2e_p99_s"};
  return kNames[static_cast<int>(m)];
}

bool is_serving_metric(BenchMetric m) {
  return static_cast<int>(m) >= static_cast<int>(BenchMetric::serving_ttft_mean_s);
}

bool is_latency_metric(BenchMetric m) {
  switch (m) {
    case BenchMetric::ttft_s:
    case BenchMetric::tpot_s:
    case BenchMetric::e2e_latency_s:
    case BenchMetric::serving_ttft_mean_s:
    case BenchMetric::serving_ttft_p99_s:
    case BenchMetric::serving_tpot_mean_s:
    case BenchMetric::serving_tpot_p99_s:
    case BenchMetric::serving_e2e_mean_s:
    case BenchMetric::serving_itl_mean_s:
    case BenchMetric::serving_itl_p50_s:
    case BenchMetric::serving_itl_p99_s:
    case BenchMetric::serving_ttft_p50_s:
    case BenchMetric::serving_tpot_p50_s:
    case BenchMetric::serving_e2e_p50_s:
    case BenchMetric::serving_e2e_p99_s:
      return true;
    default:
      return false;
  }
}

std::string_view serving_mode_name(ServingMode m) {
  static constexpr std::array<std::string_view, 4> kNames{"none", "concurrency", "rate", "offline"};
  return kNames[static_cast<int>(m)];
}

namespace {

// One replica simulated at its share of the row's load; throughputs scale with the replicas.
Result<double> predict_serving(const BenchCase& c, const PerfModel& perf,
                               const ServingCaseDefaults& d) {
  if (c.serving == ServingMode::none) {
    return Error{fmt::format("case {}: a serving metric needs a serving mode", c.id)};
  }
  const int replicas = std::max(1, c.replicas);
  ServingConfig cfg;
  cfg.max_seqs = c.max_seqs > 0                      ? c.max_seqs
                 : c.serving == ServingMode::offline ? d.offline_max_seqs
                                                     : d.max_seqs;
  cfg.max_batched_tokens = std::max(d.max_batched_tokens, cfg.max_seqs);
  cfg.reserve_full_sequence = c.reserve_full_sequence;
  PerfStepModel step(perf, cfg.max_batched_tokens);
  RequestClass rc;
  rc.name = c.id;
  rc.model = c.model.name;
  auto p = fixed_length(std::max(1.0, c.prompt_tokens));
  auto o = fixed_length(std::max(1.0, c.output_tokens));
  if (!p || !o) return Error{fmt::format("case {}: lengths: expected positive tokens", c.id)};
  rc.prompt_tokens = *p;
  rc.output_tokens = *o;
  SimOptions opt;
  opt.requests = d.requests;
  opt.warmup_requests = d.warmup;
  switch (c.serving) {
    case ServingMode::concurrency:
      opt.closed_loop_clients = std::max(1, c.batch / replicas);
      rc.rate.mean_qps = 1;
      break;
    case ServingMode::offline: {
      // A finite run: N requests (this replica's share) queued at t = 0, nothing discarded, the
      // result over the makespan (the simulator's open-ended window).
      const int64_t n = c.requests > 0 ? c.requests : d.offline_requests;
      const int64_t per_replica = std::max<int64_t>(1, n / replicas);
      if (per_replica > (int64_t{1} << 24)) {
        return Error{fmt::format("case {}: {} requests per replica: at most 2^24", c.id, n)};
      }
      opt.requests = per_replica;
      opt.warmup_requests = 0;
      opt.closed_loop_clients = static_cast<int>(per_replica);
      opt.max_waiting = per_replica + 1;  // a long queue is the setting, not an overload
      rc.rate.mean_qps = 1;
      break;
    }
    case ServingMode::rate:
      if (!(c.request_rate_qps > 0)) {
        return Error{fmt::format("case {}: a fixed-rate row needs request_rate > 0", c.id)};
      }
      rc.rate.mean_qps = c.request_rate_qps / replicas;
      break;
    case ServingMode::none:
      break;
  }
  auto r = simulate(step, cfg, {rc}, opt);
  if (!r) return Error{fmt::format("case {}: {}", c.id, r.error().message)};
  const ClassLatency& a = r->all;
  switch (c.metric) {
    case BenchMetric::serving_ttft_mean_s:
      return a.ttft.mean_s;
    case BenchMetric::serving_ttft_p99_s:
      return a.ttft.p99_s;
    case BenchMetric::serving_tpot_mean_s:
      return a.tpot.mean_s;
    case BenchMetric::serving_tpot_p99_s:
      return a.tpot.p99_s;
    case BenchMetric::serving_e2e_mean_s:
      return a.e2e.mean_s;
    case BenchMetric::serving_output_tokens_per_s:
      return r->output_tokens_per_s * replicas;
    case BenchMetric::serving_requests_per_s:
      return r->throughput_rps * replicas;
    case BenchMetric::serving_itl_mean_s:
      return r->itl.mean_s;
    case BenchMetric::serving_itl_p50_s:
      return r->itl.p50_s;
    case BenchMetric::serving_itl_p99_s:
      return r->itl.p99_s;
    case BenchMetric::serving_ttft_p50_s:
      return a.ttft.p50_s;
    case BenchMetric::serving_tpot_p50_s:
      return a.tpot.p50_s;
    case BenchMetric::serving_e2e_p50_s:
      return a.e2e.p50_s;
    case BenchMetric::serving_e2e_p99_s:
      return a.e2e.p99_s;
    default:
      return Error{"not a serving metric"};
  }
}

}  // namespace

Result<double> predict_case(const BenchCase& c, const StackSpec& stack,
                            const CalibrationProfile* profile) {
  auto perf = PerfModel::create(c.model, c.hardware, stack, c.deployment,
                                profile != nullptr ? profile : c.profile);
  if (!perf) return perf.error();
  if (is_serving_metric(c.metric)) return predict_serving(c, *perf, ServingCaseDefaults{});
  switch (c.metric) {
    case BenchMetric::prefill_tokens_per_s: {
      const double t = perf->prefill_s(c.batch, c.prompt_tokens, 0);
      return c.batch * c.prompt_tokens / t;
    }
    case BenchMetric::generation_tokens_per_s:
      return generation_tokens_per_s(*perf, c.batch, c.prompt_tokens, c.output_tokens);
    case BenchMetric::ttft_s:
      return perf->prefill_s(c.batch, c.prompt_tokens, 0);
    case BenchMetric::tpot_s:
    case BenchMetric::e2e_latency_s:
    case BenchMetric::static_output_tokens_per_s: {
      if (!(c.output_tokens >= 1)) {
        return Error{fmt::format("case {}: a static-batch row needs output_len >= 1", c.id)};
      }
      const Prediction p = predict(*perf, c.batch, std::max(1.0, c.prompt_tokens), c.output_tokens);
      if (c.metric == BenchMetric::tpot_s) return p.tpot_s;
      if (c.metric == BenchMetric::e2e_latency_s) return p.e2e_s;
      return c.batch * c.output_tokens / p.e2e_s;
    }
    default:
      break;
  }
  return Error{"unknown metric"};
}

double bytes_per_generated_token(const BenchCase& c) {
  const double wb = bytes_per_element(c.deployment.precision.weights);
  const double weights =
      (total_params(c.model) - static_cast<double>(c.model.vocab) * c.model.hidden) * wb;
  const double mean_context = c.prompt_tokens + c.output_tokens / 2.0;
  const double kv = kv_elements_per_token_per_layer(c.model) * c.model.layers *
                    bytes_per_element(c.deployment.precision.kv) * mean_context;
  return weights + kv;
}

}  // namespace infercap
