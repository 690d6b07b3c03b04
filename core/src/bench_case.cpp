// A benchmark case's metric under a stack: llama-bench forms, static-batch latencies and
// throughputs, and serving runs through the continuous-batching simulator.
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "infercap/predict.hpp"
#include "infercap/serving.hpp"
#include "infercap/stack_fit.hpp"

namespace infercap {

std::string_view bench_metric_name(BenchMetric m) {
  static constexpr std::array<std::string_view, 21> kNames{"prefill_tokens_per_s",
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
                                                           "serving_e2e_p99_s",
                                                           "serving_max_rate_output_tokens_per_s"};
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

// The requests of a rate run at `total_qps` (all replicas simulated together) as long as the
// row's (BenchCase::duration_s), at least `opt`'s. Near the knee a queue grows for minutes
// before it shows: a run of 10 x max_batch requests (7-8 minutes at MLPerf's Llama 2 70B rates)
// read the one-B200 Server run at 46.6 requests/s as stable while its output was still 9% under
// the arrivals' (11.5k against 12.7k tokens/s); the benchmark's 40 minutes settle it.
Result<SimOptions> rate_run_options(const BenchCase& c, SimOptions opt, double total_qps) {
  if (!(c.duration_s > 0)) return opt;
  constexpr double kMaxRequests = double(int64_t{1} << 24);
  const double n = std::ceil(total_qps * c.duration_s);
  if (n > kMaxRequests) {
    return Error{
        fmt::format("case {}: {:.0f} s at {:.4g} requests/s is {:.3g} requests: at most 2^24 a run",
                    c.id, c.duration_s, total_qps, n)};
  }
  opt.requests = std::max(opt.requests, static_cast<int64_t>(n));
  return opt;
}

namespace {

// MLPerf Server: the submitter raises the scheduled Poisson rate until a P99 limit would break
// and reports completed tokens/s there. Same here on one replica: from 1 qps, double (or halve)
// until the limits flip, then bisect 8 times (the bracket to 1/256 of itself, finer than the
// run-to-run noise of a simulated P99); the answer is the output tokens/s at the last rate that
// kept both limits, on a stable run.
// The run at that rate is returned whole: a latency row measured there (MLPerf Server's TTFT
// and TPOT) is read from it. Near saturation a latency at a fixed rate is ill-conditioned: with
// holding time S = a + k N per replica, N = lambda a / (1 - lambda k), so a relative error e in
// the per-token cost k moves N and every latency by about e / (1 - rho) (8x at rho = 0.87, the
// MLPerf v4.1 H100 Server run); the submitter's rate is where a P99 limit binds, and so is the
// model's.
// `fleet` > 1: opt simulates that many replicas behind their dispatcher, so each run's load is
// fleet x the per-replica rate searched and its throughputs are the fleet's.
Result<ServingResult> max_rate_run(const BenchCase& c, const StepModel& step,
                                   const ServingConfig& cfg, RequestClass rc, const SimOptions& opt,
                                   int fleet) {
  if (c.serving != ServingMode::rate) {
    return Error{fmt::format("case {}: a maximum-rate row is a Poisson (rate) run", c.id)};
  }
  if (!(c.ttft_p99_limit_s > 0) && !(c.tpot_p99_limit_s > 0)) {
    return Error{fmt::format("case {}: a maximum-rate row needs a TTFT or TPOT P99 limit", c.id)};
  }
  // The step table once, over the longest context the runs will see (as simulate() sizes it).
  auto p = quantile(rc.prompt_tokens, 99.99);
  auto o = quantile(rc.output_tokens, 99.99);
  if (!p || !o) return Error{fmt::format("case {}: lengths: no quantile", c.id)};
  double max_ctx = *p + *o + 1;
  if (cfg.max_context_tokens > 0)
    max_ctx = std::min(max_ctx, static_cast<double>(cfg.max_context_tokens));
  auto table = StepTable::build(step, cfg, max_ctx);
  if (!table) return Error{fmt::format("case {}: {}", c.id, table.error().message)};
  ServingResult best;
  auto within = [&](double qps) -> Result<bool> {
    rc.rate.mean_qps = qps * fleet;
    auto run = rate_run_options(c, opt, rc.rate.mean_qps);
    if (!run) return run.error();
    auto r = simulate(*table, cfg, {rc}, *run);
    if (!r) return Error{fmt::format("case {}: {}", c.id, r.error().message)};
    const bool ok = r->stable &&
                    (!(c.ttft_p99_limit_s > 0) || r->all.ttft.p99_s <= c.ttft_p99_limit_s) &&
                    (!(c.tpot_p99_limit_s > 0) || r->all.tpot.p99_s <= c.tpot_p99_limit_s);
    if (ok) best = std::move(*r);
    return ok;
  };
  double lo = 0, hi = 0, qps = 1;
  for (int i = 0; i < 40 && (lo == 0 || hi == 0); ++i) {
    auto ok = within(qps);
    if (!ok) return ok.error();
    if (*ok) {
      lo = qps;
      if (hi == 0) qps *= 2;
    } else {
      hi = qps;
      if (lo == 0) qps /= 2;
    }
  }
  if (lo == 0) {
    return Error{
        fmt::format("case {}: no rate down to {:.2g} qps keeps the P99 limits", c.id, qps)};
  }
  if (hi == 0) return Error{fmt::format("case {}: the limits hold past {:.3g} qps", c.id, lo)};
  // Every run within the limits moves `lo` to its rate and records its result, so `best` is
  // always the run at `lo`.
  for (int i = 0; i < 8; ++i) {
    const double mid = (lo + hi) / 2;
    auto ok = within(mid);
    if (!ok) return ok.error();
    (*ok ? lo : hi) = mid;
  }
  return best;
}

// One replica simulated at its share of the row's load; throughputs scale with the replicas.
// Over pipeline stages an engine that keeps a micro-batch per stage in flight (`stages` > 1) is
// `stages` interleaved engines: while one micro-batch is in stage 2, the next is in stage 1, so
// each micro-batch gets a token every pass through all stages (the PerfModel's step over pp
// devices, run one stage after another) and all stages work at once. Each has the engine's
// max_seqs (TensorRT-LLM: maxNumSequences = maxBatchSize x pp) and 1/stages of the KV cache
// (vLLM V0: num_gpu_blocks // pp per scheduler), and is simulated as a replica of its own.
Result<double> predict_serving(const BenchCase& c, const PerfModel& perf,
                               const ServingCaseDefaults& d, int stages) {
  if (c.serving == ServingMode::none) {
    return Error{fmt::format("case {}: a serving metric needs a serving mode", c.id)};
  }
  stages = std::max(1, stages);
  const int replicas = std::max(1, c.replicas) * stages;  // engines the load splits over
  // Replicas behind the row's dispatcher are simulated together at the whole load (a Poisson
  // rate row of replicas, not pipeline stages); otherwise one replica at its share stands for all.
  const int fleet =
      c.dispatch && c.serving == ServingMode::rate && stages == 1 && replicas > 1 ? replicas : 1;
  // A rate row with P99 limits was measured at the highest rate within them (MLPerf Server):
  // it is read at the model's highest such rate, not at the submitter's.
  const bool at_max_rate = c.serving == ServingMode::rate &&
                           (c.metric == BenchMetric::serving_max_rate_output_tokens_per_s ||
                            c.ttft_p99_limit_s > 0 || c.tpot_p99_limit_s > 0);
  ServingConfig cfg;
  cfg.max_seqs = c.max_seqs > 0                      ? c.max_seqs
                 : c.serving == ServingMode::offline ? d.offline_max_seqs
                                                     : d.max_seqs;
  cfg.max_batched_tokens = std::max(d.max_batched_tokens, cfg.max_seqs);
  if (c.max_batched_tokens > 0) {
    // The row's engine budget: a step holds at most this many tokens, decodes included, so no
    // more sequences than that decode at once (TensorRT-LLM schedules within max_num_tokens).
    cfg.max_batched_tokens = c.max_batched_tokens;
    cfg.max_seqs = std::min(cfg.max_seqs, c.max_batched_tokens);
  }
  cfg.reserve_full_sequence = c.reserve_full_sequence;
  cfg.schedule_one_step_ahead = c.schedule_one_step_ahead;
  cfg.request_poll_decode_steps = c.request_poll_decode_steps;  // >= 1, or simulate says so
  cfg.prompt_wait_steps = c.prompt_wait_steps;
  cfg.prompt_wait_tokens = c.prompt_wait_tokens;
  cfg.prompt_schedule = c.prompt_schedule;
  if (c.prompt_schedule == PromptSchedule::whole_with_decodes) {
    // A prompt runs whole in one step: an engine without chunking is built with a token budget
    // that holds its longest prompt (trtllm-bench sizes max_num_tokens from its dataset), so the
    // row's lengths are never clipped to the budget.
    double longest = c.prompt_tokens;
    for (double x : c.prompt_len_points) longest = std::max(longest, x);
    cfg.max_batched_tokens =
        std::max<int>(cfg.max_batched_tokens, static_cast<int>(std::ceil(longest)));
  }
  PerfStepModel step(perf, cfg.max_batched_tokens);
  if (stages > 1) cfg.kv_capacity_tokens = step.kv_capacity_tokens() / stages;
  RequestClass rc;
  rc.name = c.id;
  rc.model = c.model.name;
  // A dataset's spread where the row gives it (equal-weight points), else one length.
  auto lengths = [](const std::vector<double>& points, double mean) {
    return points.empty() ? fixed_length(std::max(1.0, mean))
                          : histogram_length(points, std::vector<double>(points.size(), 1.0));
  };
  auto p = lengths(c.prompt_len_points, c.prompt_tokens);
  auto o = lengths(c.output_len_points, c.output_tokens);
  if (!p || !o) return Error{fmt::format("case {}: lengths: expected positive tokens", c.id)};
  rc.prompt_tokens = *p;
  rc.output_tokens = *o;
  SimOptions opt;
  // An open-loop run reaches its steady state only once the batch has filled: with up to
  // max_seqs sequences in flight, a warm-up shorter than that measures the ramp, and the
  // stability test (the number in the system may grow by 5% of the window's arrivals) then
  // fails a load the engine carries. The MLPerf Server rows run ~845 of 1024 slots; 300 warm-up
  // requests of a 1500-request run had put the model's "highest stable rate" near 290 in flight.
  opt.requests = std::max<int64_t>(d.requests, int64_t{10} * cfg.max_seqs);
  opt.warmup_requests = std::max<int64_t>(d.warmup, int64_t{2} * cfg.max_seqs);
  switch (c.serving) {
    case ServingMode::concurrency:
      opt.closed_loop_clients = std::max(1, c.batch / replicas);
      // A benchmark client at fixed concurrency (genai-perf, benchmark_serving): its next
      // request comes back over HTTP after the engine has started its next step.
      opt.closed_loop_round_trip = true;
      rc.rate.mean_qps = 1;
      if (c.requests > 0) {
        // benchmark_serving --max-concurrency N --num-prompts R: every request counted, the
        // result over the run's wall time, from the clients' first requests to the last answer.
        const int64_t per = std::max<int64_t>(1, c.requests / replicas);
        if (per > (int64_t{1} << 24)) {
          return Error{fmt::format("case {}: {} requests a run: at most 2^24", c.id, per)};
        }
        opt.requests = per;
        opt.warmup_requests = 0;
        opt.finite_run = true;
      }
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
      if (fleet > 1) {
        opt.replicas = fleet;
        opt.dispatch = *c.dispatch;
        opt.requests *= fleet;
        opt.warmup_requests *= fleet;
      }
      if (at_max_rate) break;  // searched
      if (!(c.request_rate_qps > 0)) {
        return Error{fmt::format("case {}: a fixed-rate row needs request_rate > 0", c.id)};
      }
      rc.rate.mean_qps = c.request_rate_qps / replicas * fleet;
      if (c.requests > 0) {
        // A benchmark client's run of N requests (benchmark_serving, sglang.bench_serving):
        // every one counted, the result over the run's wall time, overloaded or not.
        const int64_t per = std::max<int64_t>(1, fleet > 1 ? c.requests : c.requests / replicas);
        if (per > (int64_t{1} << 24)) {
          return Error{fmt::format("case {}: {} requests a run: at most 2^24", c.id, per)};
        }
        opt.requests = per;
        opt.warmup_requests = 0;
        opt.finite_run = true;
        break;
      }
      if (auto run = rate_run_options(c, opt, rc.rate.mean_qps)) {
        opt = *run;
      } else {
        return run.error();
      }
      break;
    case ServingMode::none:
      break;
  }
  auto r =
      at_max_rate ? max_rate_run(c, step, cfg, rc, opt, fleet) : simulate(step, cfg, {rc}, opt);
  if (!r) {
    return at_max_rate ? r.error() : Error{fmt::format("case {}: {}", c.id, r.error().message)};
  }
  // A fleet's run reports the fleet's throughput; one replica's stands for `replicas`.
  const double scale = fleet > 1 ? 1.0 : replicas;
  if (c.metric == BenchMetric::serving_max_rate_output_tokens_per_s)
    return r->output_tokens_per_s * scale;
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
      return r->output_tokens_per_s * scale;
    case BenchMetric::serving_requests_per_s:
      return r->throughput_rps * scale;
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
  if (c.memory_fraction > 0 && stack.memory_reserve_fraction != 1 - c.memory_fraction) {
    // The row's engine kept this share of memory for weights and KV (a copy: fits call this in
    // loops, and only such rows pay for it).
    StackSpec own = stack;
    own.memory_reserve_fraction = 1 - c.memory_fraction;
    return predict_case(c, own, profile);
  }
  auto perf = PerfModel::create(c.model, c.hardware, stack, c.deployment,
                                profile != nullptr ? profile : c.profile);
  if (!perf) return perf.error();
  if (is_serving_metric(c.metric)) {
    const int stages = std::max(1, c.deployment.pp);
    if (stages > 1 && !stack.pipeline_microbatches) {
      return Error{fmt::format(
          "case {}: {} pipeline stages on stack '{}', which does not keep a micro-batch per stage "
          "in flight (pipeline_microbatches): the serving run is not modelled",
          c.id, stages, stack.name)};
    }
    return predict_serving(c, *perf, ServingCaseDefaults{}, stages);
  }
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
