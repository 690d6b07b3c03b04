// Speed targets of the core model (issue 2): one decode-step or prefill prediction < 2 us; a
// full per-operator breakdown < 20 us; validate over 200 rows < 0.5 s.
#include <benchmark/benchmark.h>

#include <stdexcept>

#include "bench_catalog.hpp"
#include "infercap/perf.hpp"
#include "infercap/spec/catalog.hpp"
#include "infercap/stack_fit.hpp"
#include "measurements.hpp"

namespace {

const infercap::spec::Catalog& catalog() {
  return infercap::bench::project_catalog();
}

infercap::PerfModel model_on(const char* model, const char* hw, const char* stack) {
  const auto& c = catalog();
  infercap::Deployment dep;
  auto p = infercap::PerfModel::create(*c.find_model(model), *c.find_hardware(hw),
                                       *c.find_stack(stack), dep);
  if (!p) throw std::runtime_error(p.error().message);
  return std::move(p).value();
}

void BM_DecodeStep(benchmark::State& st) {
  const auto p = model_on("llama-3.1-8b", "h200", "vllm");
  int b = 1;
  for (auto _ : st) {
    benchmark::DoNotOptimize(p.decode_step_s(b, 1024.0 + b));
    b = (b & 63) + 1;
  }
}
BENCHMARK(BM_DecodeStep);

void BM_DecodeStepMoE(benchmark::State& st) {
  const auto p = model_on("deepseek-v3", "h200", "vllm");
  int b = 1;
  for (auto _ : st) {
    benchmark::DoNotOptimize(p.decode_step_s(b, 4096.0));
    b = (b & 63) + 1;
  }
}
BENCHMARK(BM_DecodeStepMoE);

void BM_Prefill(benchmark::State& st) {
  const auto p = model_on("llama-3.1-8b", "h200", "vllm");
  double n = 128;
  for (auto _ : st) {
    benchmark::DoNotOptimize(p.prefill_s(1, n, 0));
    n = n > 8000 ? 128 : n + 1;
  }
}
BENCHMARK(BM_Prefill);

void BM_DecodeBreakdown(benchmark::State& st) {
  const auto p = model_on("llama-3.1-8b", "h200", "vllm");
  for (auto _ : st) benchmark::DoNotOptimize(p.decode_breakdown(8, 2048).time_s);
}
BENCHMARK(BM_DecodeBreakdown);

// The validate pipeline minus printing: read both public files, map, predict every row.
void BM_Validate(benchmark::State& st) {
  const auto& c = catalog();
  for (auto _ : st) {
    infercap::spec::Diagnostics d;
    auto rows = infercap::cli::read_measurements(
        INFERCAP_SOURCE_DIR "/../shared/benchmarks/llamacpp-gpu-benchmarks.csv", d);
    auto more = infercap::cli::read_measurements(
        INFERCAP_SOURCE_DIR "/../shared/benchmarks/seed-claims.csv", d);
    rows.insert(rows.end(), more.begin(), more.end());
    double sum = 0;
    for (const auto& m : infercap::cli::map_measurements(rows, c)) {
      if (!m.bench) continue;
      auto p = infercap::predict_case(*m.bench, *c.find_stack(m.stack_name));
      if (p) sum += *p;
    }
    benchmark::DoNotOptimize(sum);
    st.counters["rows"] = static_cast<double>(rows.size());
  }
}
BENCHMARK(BM_Validate)->Unit(benchmark::kMillisecond);

}  // namespace
