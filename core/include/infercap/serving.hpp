#pragma once
// The serving model of one replica: a discrete-event simulator of continuous batching
// (vLLM-like), an analytic queueing fast path for screening, the max QPS within an SLA, and seed
// 004's batch-size knee. Pure: no I/O, deterministic for a seed. docs/serving.md states every
// formula and the scheduler's rules.
//
// Everything is driven through `StepModel`, the time of one engine step. `PerfStepModel` adapts
// the roofline `PerfModel`; tests use closed-form step models so queueing closed forms apply.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "infercap/prompt_schedule.hpp"
#include "infercap/result.hpp"
#include "infercap/workload.hpp"

namespace infercap {

class PerfModel;

// ---------------------------------------------------------------------------------------------
// Step times.

/// Time of one engine step of one replica, in seconds. Implementations must be pure and cheap.
class StepModel {
 public:
  virtual ~StepModel() = default;
  /// `batch` prompts of `prompt` new tokens each, on top of `past` cached tokens.
  virtual double prefill_s(int batch, double prompt, double past) const = 0;
  /// `batch` sequences each generating one token over `context` cached tokens.
  virtual double decode_step_s(int batch, double context) const = 0;
  /// A fused continuous-batching step: `prefill_tokens` prompt tokens attending to about
  /// `prefill_context` tokens each, plus `decode_batch` decodes at mean context `decode_context`.
  virtual double mixed_step_s(double prefill_tokens, double prefill_context, int decode_batch,
                              double decode_context) const = 0;
  /// KV-cache capacity of the replica in tokens (all sequences together), after weights,
  /// activations and reserves.
  virtual double kv_capacity_tokens() const = 0;
};

/// Adapts a PerfModel. The KV capacity is (capacity - weights - activations(max_batched_tokens)
/// - reserve) / kv_bytes_per_token, per device (every device holds its shard of every sequence).
/// The PerfModel must outlive the adapter.
class PerfStepModel final : public StepModel {
 public:
  explicit PerfStepModel(const PerfModel& perf, double max_batched_tokens = 8192);
  double prefill_s(int batch, double prompt, double past) const override;
  double decode_step_s(int batch, double context) const override;
  double mixed_step_s(double prefill_tokens, double prefill_context, int decode_batch,
                      double decode_context) const override;
  double kv_capacity_tokens() const override { return kv_tokens_; }

 private:
  const PerfModel* perf_;
  double kv_tokens_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Engine configuration (vLLM's scheduler knobs).

struct ServingConfig {
  int max_seqs = 256;             ///< sequences running at once (vLLM max_num_seqs)
  int max_batched_tokens = 8192;  ///< tokens per engine step (vLLM max_num_batched_tokens)
  PromptSchedule prompt_schedule = PromptSchedule::chunked;
  /// The spec key `chunked_prefill`: true = PromptSchedule::chunked.
  bool chunked() const { return prompt_schedule == PromptSchedule::chunked; }
  /// KV admission policy. false (vLLM): a request is admitted when its prompt's blocks fit and
  /// takes a block whenever its next token starts one; when none is free the newest running
  /// request is preempted and recomputed. true (TensorRT-LLM's GUARANTEED_NO_EVICT capacity
  /// scheduler): it is admitted only when the blocks of its whole sequence, prompt + output, are
  /// free, holds them until it finishes, and is never preempted; fewer run at once, none are
  /// recomputed. Read by the simulator; the analytic path does not distinguish the two.
  bool reserve_full_sequence = false;
  /// The engine forms each step's batch when the step before it starts, overlapping its CPU
  /// scheduling with that step's GPU work (SGLang v0.4's zero-overhead batch scheduler,
  /// TensorRT-LLM's overlap scheduler): a request that arrives while a step runs joins, at the
  /// earliest, the step after the next. An idle engine takes an arrival at once. Open-loop and
  /// dispatched arrivals only: a closed-loop client's next request is not delayed further.
  bool schedule_one_step_ahead = false;
  /// A busy engine takes in new requests only every this many decode-only steps; after a step
  /// that ran prompt tokens, and when idle, at once (SGLang's --scheduler-recv-interval: its
  /// SchedulerRecvSkipper counts 1 a decode step and 1000 for any other, and receives when the
  /// count reaches the interval; --num-continuous-decode-steps N runs N decode steps between
  /// scheduling passes). Arrivals and closed-loop clients' next requests wait for that poll.
  /// 1 = every step (every other engine's default). Read by the simulator; the analytic path
  /// does not model it (no catalog stack polls less often than every step).
  int request_poll_decode_steps = 1;
  /// Batch waiting (TensorRT-LLM's batch_wait_timeout_iters and batch_wait_max_tokens_ratio):
  /// while sequences decode, waiting prompts are held out of the step until they have waited
  /// this many steps, or until they and the step's decodes make prompt_wait_tokens tokens; the
  /// count restarts when they are let in. An engine with nothing decoding takes them at once.
  /// 0 = no waiting. Read by the simulator; the analytic path does not model it.
  int prompt_wait_steps = 0;
  /// The token level that ends a batch wait early (batch_wait_max_tokens_ratio x
  /// max_num_tokens); 0 = only the step count ends it.
  int prompt_wait_tokens = 0;
  int kv_block_tokens = 16;  ///< paged KV block size
  /// KV capacity override in tokens; 0 = the step model's kv_capacity_tokens().
  double kv_capacity_tokens = 0;
  /// Longest sequence (prompt + output) the engine accepts; sampled lengths are clipped to it.
  /// 0 = limited only by the KV capacity.
  int64_t max_context_tokens = 0;
};

/// Errors for max_seqs < 1, max_batched_tokens < max(1, max_seqs), kv_block_tokens < 1,
/// negative capacities.
std::vector<std::string> validate(const ServingConfig& c);

// ---------------------------------------------------------------------------------------------
// Results (the same fields from the simulator and the analytic path).

struct LatencySummary {
  double mean_s = 0;
  double p50_s = 0;
  double p90_s = 0;
  double p99_s = 0;
};

struct ClassLatency {
  std::string name;
  LatencySummary ttft;
  LatencySummary tpot;
  LatencySummary e2e;
  LatencySummary queue_wait;  ///< arrival to first scheduled (admitted) step
  /// Each metric at the class's own SLA percentile (0 where the SLA sets no bound).
  double ttft_at_sla_s = 0;
  double tpot_at_sla_s = 0;
  double e2e_at_sla_s = 0;
  bool meets_sla = false;
  /// The SLA metric with the largest value / limit ratio ("ttft", "tpot", "e2e"; "" if none set),
  /// and that ratio (> 1 = violated). An unstable system reports +inf.
  std::string binding_metric;
  double binding_ratio = 0;
  double throughput_rps = 0;
};

struct ServingResult {
  std::vector<ClassLatency> classes;  ///< in the order of the request classes given
  ClassLatency all;                   ///< every request together (SLA fields: worst class)
  double offered_qps = 0;
  double throughput_rps = 0;  ///< completed requests / s
  double output_tokens_per_s = 0;
  double input_tokens_per_s = 0;
  double utilisation = 0;        ///< fraction of time the engine is stepping
  double mean_batch = 0;         ///< mean running sequences per step
  double kv_occupancy_mean = 0;  ///< fraction of KV capacity used (time-weighted)
  double kv_occupancy_max = 0;
  /// Per-token inter-token latency: every gap between two consecutive tokens of a request
  /// (vLLM benchmark_serving's ITL), pooled over all tokens rather than averaged per request as
  /// `tpot` is. A step of duration dt gives each of its d decoders one token dt after the last,
  /// so the distribution is the step durations weighted by their decode counts; a fused prefill
  /// chunk lengthens every gap of its step, which is why ITL P99 exceeds TPOT P99. Simulator
  /// only (log-spaced histogram, 0.2% bins, each bin reported at its mean); analytic: zeros.
  LatencySummary itl;
  int64_t preemptions = 0;  ///< recompute preemptions (KV blocks ran out)
  double queue_mean = 0;    ///< waiting requests, time-averaged
  double queue_max = 0;  ///< simulator: longest queue at a step start (a fleet: of its engines' and
                         ///< its shared queue)
  bool stable = false;   ///< queue not growing (see docs/serving.md)
  bool meets_sla = false;         ///< stable and every class meets its SLA
  std::string note;               ///< why unstable / what limited the batch, in words
  int64_t requests_measured = 0;  ///< simulator: requests after warm-up; analytic: 0
  double simulated_s = 0;         ///< simulator: measured window length
};

// ---------------------------------------------------------------------------------------------
// The simulator.

/// How a fleet of identical replicas shares its arrivals (SimOptions::replicas > 1).
enum class Dispatch : unsigned char {
  /// Each arrival goes to the replica with the fewest requests given to it and not finished
  /// (queued or running), the first on ties: NVIDIA's MLPerf LLM harness between its TP/PP
  /// groups (inference_results_v4.1 harness_llm/main_llm.cc, traffic_distribution_policy 2,
  /// llm_server.cc getLeastBusyIdx) and its v5.1 llmlib in the Server scenario (config.py
  /// traffic_distribution_policy "load_balancing", factory.py); least-request routers.
  least_loaded,
  /// One queue: a replica starting a step takes what has arrived, up to its free sequence slots
  /// (NVIDIA's v4.1 harness within one process: llm_core.cc getInferenceRequest, called by each
  /// engine's batch manager with the number of requests it can take).
  shared_queue,
};
/// Dispatch as measurement rows spell it (the `dispatch` column).
inline constexpr std::string_view kDispatchLeastLoadedName = "least_loaded";
inline constexpr std::string_view kDispatchSharedQueueName = "shared_queue";
inline std::optional<Dispatch> dispatch_from_name(std::string_view s) {
  if (s == kDispatchLeastLoadedName) return Dispatch::least_loaded;
  if (s == kDispatchSharedQueueName) return Dispatch::shared_queue;
  return std::nullopt;
}

struct SimOptions {
  uint64_t seed = 1;
  int64_t requests = 20000;        ///< measured requests (after warm-up)
  int64_t warmup_requests = 2000;  ///< discarded from the statistics
  /// Total offered load; classes keep their design_qps shares. 0 = each class at design_qps.
  double total_qps = 0;
  /// > 0: closed loop with this many clients and zero think time (a benchmark at fixed
  /// concurrency); arrival rates are then ignored except as class mix weights.
  int closed_loop_clients = 0;
  /// Closed loop only. false: a client's next request joins the very step that starts when its
  /// previous request's last token comes out (a zero round trip). true: it reaches the queue
  /// only after that step has been scheduled, as with a real benchmark client (genai-perf /
  /// perf_analyzer keep N requests outstanding, sending the next on completion): the response,
  /// the client and the new request's HTTP and tokenisation take milliseconds, while an
  /// in-flight batching engine starts its next step at once. An idle engine waits for it, so a
  /// lone client or a batch that finishes together loses nothing. docs/serving.md.
  bool closed_loop_round_trip = false;
  /// Stop early (unstable) when this many requests are waiting. 0 = 50 * max_seqs + 10000.
  int64_t max_waiting = 0;
  /// > 1: that many identical replicas behind one dispatcher (`dispatch`), simulated together at
  /// the total load (open loop only); requests and warmup_requests count the whole fleet's, and
  /// the result is the fleet's (throughputs of all replicas, latencies of all requests). 1: one
  /// replica; a fleet that splits its load evenly at random is one replica at its share.
  int replicas = 1;
  Dispatch dispatch = Dispatch::least_loaded;
  /// A finite run, as a benchmark client of N requests reports one (vLLM's benchmark_serving,
  /// sglang.bench_serving): every request is measured (warmup_requests must be 0) and the window
  /// is the whole run, from t = 0 to the last completion, so throughput is the run's tokens over
  /// its wall time and an overloaded run's growing queue shows in its latencies instead of
  /// stopping it (max_waiting is then at least `requests`). Open loop: `requests` Poisson (or
  /// the class's) arrivals. Closed loop: the clients start together at t = 0 and each sends its
  /// next request on completion until `requests` have been sent, so the run includes the ramp
  /// and the drain of its last requests (benchmark_serving's --max-concurrency with
  /// --request-rate inf). false: a steady-state window from the first measured arrival to the
  /// last arrival.
  bool finite_run = false;
};

/// Step times tabulated once over (prefill tokens, decode batch, context) so a simulated step is
/// a trilinear lookup. Exact at grid points and for step models affine in tokens and batch and
/// bilinear in (batch, context); within a few percent across a roofline kink. docs/serving.md
/// lists the grid. Build it with the largest max_seqs / max_batched_tokens it will serve.
class StepTable {
 public:
  /// `max_context` is the longest context the simulation will see (prompt + output).
  static Result<StepTable> build(const StepModel& m, const ServingConfig& cfg, double max_context);
  /// Mixed step: p prefill tokens and d decodes, with c the token-weighted mean context.
  double step_s(double prefill_tokens, int decode_batch, double context) const;
  double kv_capacity_tokens() const { return kv_tokens_; }
  /// Grid cells are evaluated on first use (a simulation touches a small part of the grid; the
  /// build checks a coarse subgrid), so the step model must outlive the table, and one table must
  /// not be used from two threads at once.

 private:
  double cell(size_t ip, size_t id, size_t ic) const;
  const StepModel* model_ = nullptr;
  std::vector<double> p_grid_, c_grid_;
  std::vector<int> d_grid_;
  std::vector<int> d_index_;       ///< decode batch -> lower grid index
  mutable std::vector<double> t_;  ///< [p][d][c]; negative = not evaluated yet
  double kv_tokens_ = 0;
};

/// Simulates one replica under `classes` (rates from design_qps, or scaled to opt.total_qps).
/// Errors on invalid inputs and on a KV cache of fewer than two blocks. Sampled lengths are
/// clipped so a request always fits: prompt + output <= max_context_tokens (if set), the cache
/// above its 1% admission watermark, and, without chunked prefill, max_batched_tokens.
Result<ServingResult> simulate(const StepModel& m, const ServingConfig& cfg,
                               const std::vector<RequestClass>& classes, const SimOptions& opt);
/// Same, with a table already built (bisection and knee sweeps reuse it).
Result<ServingResult> simulate(const StepTable& table, const ServingConfig& cfg,
                               const std::vector<RequestClass>& classes, const SimOptions& opt);

// ---------------------------------------------------------------------------------------------
// The analytic fast path (< 50 us per evaluation).

/// Queueing approximation (docs/serving.md): the number in the replica as a birth-death chain
/// whose completion rate at n running is n / S(n) (S from the step model, over the effective
/// slot count: max_seqs or the KV cache),
/// Allen-Cunneen M/G/c waiting time with the Kraemer/Langenbach-Belz correction
/// (Pollaczek-Khinchine for Poisson arrivals at c = 1), percentiles from shifted-exponential
/// tails (mean + h(p) sd, never falling when a mean or spread rises, so never rising on faster
/// hardware at the same load); stable iff all slots can run and lambda * S(c) / c < 1. Does not
/// model preemptions. Analytic meanings: queue_max = lambda * P99 wait, kv_occupancy_max at
/// mean + 3 sd of the occupancy, requests_measured = 0.
/// `total_qps` as in SimOptions.
Result<ServingResult> analyze(const StepModel& m, const ServingConfig& cfg,
                              const std::vector<RequestClass>& classes, double total_qps = 0);

struct MaxQps {
  double qps = 0;              ///< largest total QPS meeting every SLA (0: not even at ~0 load)
  std::string binding_metric;  ///< what fails just above it ("ttft", "tpot", "e2e", "stability")
  std::string binding_class;
  ServingResult at_max;  ///< the analytic result at `qps`
  /// The binding SLA ratio at vanishing load (value / limit): > 1 means the SLA is below the
  /// physical floor of this replica (then qps = 0), and says by how much.
  double floor_ratio = 0;
};

/// Bisection on the analytic model over total QPS (class shares from design_qps), to a relative
/// tolerance `rel_tol`. An SLA below the physical floor (violated at vanishing load) gives
/// qps = 0 with the binding metric, not an error.
Result<MaxQps> max_qps_within_sla(const StepModel& m, const ServingConfig& cfg,
                                  const std::vector<RequestClass>& classes, double rel_tol = 1e-3);

// ---------------------------------------------------------------------------------------------
// Seed 004's batch-size knee.

struct KneePoint {
  int max_seqs = 0;
  double throughput_rps = 0;
  double output_tokens_per_s = 0;
  double p99_e2e_s = 0;
  double p99_tpot_s = 0;
  double p99_ttft_s = 0;
};

/// Which P99 latency the knee weighs against throughput.
enum class KneeLatency : unsigned char { e2e, tpot, ttft };

struct KneeOptions {
  std::vector<int> batch_caps = {1, 2, 4, 8, 16, 32, 64, 128, 256};
  KneeLatency latency = KneeLatency::e2e;  ///< L below: P99 end-to-end (default), TPOT or TTFT
  /// A doubling b -> 2b is "worth it" while ln(X(2b)/X(b)) >= threshold * ln(L(2b)/L(b)), with X
  /// the output-token throughput and L the chosen P99 latency. threshold = 1 is Kleinrock's
  /// power X/L at its maximum.
  double threshold = 1.0;
  uint64_t seed = 1;
  int64_t requests = 4000;  ///< measured requests per point
};

struct KneeResult {
  std::vector<KneePoint> points;
  int knee_index = 0;  ///< into points
  int knee_batch = 0;  ///< points[knee_index].max_seqs
  /// Index of the first cap where the latency growth since the first cap, L/L_0, exceeds the
  /// throughput gain X/X_0 (the two curves, as multiples of batch 1, cross), or -1.
  int crossing_index = -1;
};

/// Runs the simulator in closed loop at concurrency = cap for each cap (seed 004 measures the
/// same way: a benchmark client holding `cap` requests in flight).
Result<KneeResult> batch_knee(const StepModel& m, const ServingConfig& cfg, const RequestClass& cls,
                              const KneeOptions& opt = {});

}  // namespace infercap
