// Speed of the serving model (issue 3's targets):
//   - simulator: >= 1 million simulated requests per second of wall time on one core;
//   - analytic path: one candidate evaluation < 50 us;
// on Llama-3.1-8B (bf16) served on one H100-SXM through the roofline PerfModel, vLLM-like
// settings (256 sequences, 8192 batched tokens, chunked prefill), chat traffic: Poisson arrivals,
// prompts lognormal mean 512 tokens (sigma 0.6), outputs lognormal mean 256 (sigma 0.6).
// Run: build-dev/bench/infercap_bench --benchmark_filter='Serving'
// Results are reported in docs/serving.md.
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "bench_catalog.hpp"
#include "infercap/perf.hpp"
#include "infercap/serving.hpp"

namespace {

using namespace infercap;

StackSpec vllm_like() {
  StackSpec s = ideal_stack();
  s.name = std::string("vllm-like");
  s.datasheet_peaks = false;
  auto& e = s.for_class(HwClass::gpu);
  e.weight_bandwidth_fraction = 0.8;
  e.kv_bandwidth_fraction = 0.6;
  e.gemm_compute_fraction = 0.6;
  e.attention_compute_fraction = 0.4;
  e.step_overhead_s = 1e-3;
  s.memory_reserve_fraction = 0.1;
  return s;
}

struct Fixture {
  ModelSpec model = *bench::project_catalog().find_model("llama-3.1-8b");
  HardwareSpec hw = *bench::project_catalog().find_hardware("h100-sxm");
  StackSpec stack = vllm_like();
  std::unique_ptr<PerfModel> perf;
  std::unique_ptr<PerfStepModel> step;
  ServingConfig cfg;
  std::vector<RequestClass> classes;
  std::unique_ptr<StepTable> table;
  Fixture() {
    Deployment dep;
    dep.precision = Precision{};
    auto p = PerfModel::create(model, hw, stack, dep);
    if (!p) return;
    perf = std::make_unique<PerfModel>(std::move(*p));
    step = std::make_unique<PerfStepModel>(*perf, cfg.max_batched_tokens);
    RequestClass c;
    c.name = std::string("chat");
    c.rate.mean_qps = 10;
    c.prompt_tokens = *lognormal_length_mean_sigma(512, 0.6);
    c.output_tokens = *lognormal_length_mean_sigma(256, 0.6);
    c.sla.ttft = {0.5, 99};
    c.sla.tpot = {0.05, 99};
    classes.push_back(c);
    auto t = StepTable::build(*step, cfg, 16384);
    if (t) table = std::make_unique<StepTable>(std::move(*t));
  }
};

const Fixture& fixture() {
  static const Fixture f;
  return f;
}

// Load as a fraction of the analytic saturation QPS (range(0) percent).
double load_qps(const Fixture& f, double fraction) {
  auto m = max_qps_within_sla(*f.step, f.cfg, f.classes);
  return m ? m->at_max.throughput_rps * fraction : 1.0;
}

// range(0) requests at range(1) percent of one replica's capacity on each of range(2) replicas;
// above one replica, behind a least-loaded dispatcher (SimOptions::replicas), whose cost shows
// against one replica's requests per second of wall time (it scans the engines once per arrival
// and per step).
void BM_ServingSimulate(benchmark::State& state) {
  const Fixture& f = fixture();
  if (!f.table) {
    state.SkipWithError("PerfModel or step table failed");
    return;
  }
  // Unbounded SLA: the max QPS is the stability limit, so the load is a fraction of capacity.
  std::vector<RequestClass> classes = f.classes;
  classes[0].sla = Sla{};
  auto cap = max_qps_within_sla(*f.step, f.cfg, classes);
  const auto replicas = static_cast<int>(state.range(2));
  SimOptions opt;
  opt.replicas = replicas;
  opt.dispatch = Dispatch::least_loaded;
  opt.requests = state.range(0);
  opt.warmup_requests = int64_t{1000} * replicas;
  opt.total_qps = replicas * (cap ? cap->qps : 1.0) * static_cast<double>(state.range(1)) / 100.0;
  double steps_batch = 0;
  for (auto _ : state) {
    auto r = simulate(*f.table, f.cfg, classes, opt);
    benchmark::DoNotOptimize(r);
    if (r) steps_batch = r->mean_batch;
  }
  state.SetItemsProcessed(state.iterations() * (opt.requests + opt.warmup_requests));
  state.counters["qps"] = opt.total_qps;
  state.counters["mean_batch"] = steps_batch;
}
BENCHMARK(BM_ServingSimulate)
    ->Args({200000, 30, 1})
    ->Args({200000, 70, 1})
    ->Args({200000, 90, 1})
    ->Args({200000, 70, 8})
    ->Unit(benchmark::kMillisecond);

void BM_ServingAnalyze(benchmark::State& state) {
  const Fixture& f = fixture();
  if (!f.step) {
    state.SkipWithError("PerfModel failed");
    return;
  }
  const double qps = load_qps(f, static_cast<double>(state.range(0)) / 100.0);
  for (auto _ : state) {
    auto r = analyze(*f.step, f.cfg, f.classes, qps);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_ServingAnalyze)->Arg(30)->Arg(90)->Unit(benchmark::kMicrosecond);

void BM_ServingMaxQps(benchmark::State& state) {
  const Fixture& f = fixture();
  if (!f.step) {
    state.SkipWithError("PerfModel failed");
    return;
  }
  for (auto _ : state) {
    auto r = max_qps_within_sla(*f.step, f.cfg, f.classes);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_ServingMaxQps)->Unit(benchmark::kMicrosecond);

void BM_ServingStepTable(benchmark::State& state) {
  const Fixture& f = fixture();
  if (!f.step) {
    state.SkipWithError("PerfModel failed");
    return;
  }
  for (auto _ : state) {
    auto t = StepTable::build(*f.step, f.cfg, 16384);
    benchmark::DoNotOptimize(t);
  }
}
BENCHMARK(BM_ServingStepTable)->Unit(benchmark::kMillisecond);

void BM_ServingKnee(benchmark::State& state) {
  const Fixture& f = fixture();
  if (!f.step) {
    state.SkipWithError("PerfModel failed");
    return;
  }
  KneeOptions opt;
  opt.requests = 2000;
  int knee = 0;
  for (auto _ : state) {
    auto r = batch_knee(*f.step, f.cfg, f.classes[0], opt);
    if (r) knee = r->knee_batch;
  }
  state.counters["knee_batch"] = knee;
}
BENCHMARK(BM_ServingKnee)->Unit(benchmark::kMillisecond);

}  // namespace
