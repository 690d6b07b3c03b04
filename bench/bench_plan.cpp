// Speed targets of the plan issues: `infercap plan` over the whole catalog (every hardware x 4
// precisions x TP 1-8, simulator verification of the top 10) under 1 s, every example in
// data/examples/ under 1 s end to end, one analytic candidate evaluation under 50 us.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_examples.hpp"
#include "infercap/solver.hpp"
#include "infercap/spec/catalog.hpp"
#include "infercap/spec/scenario.hpp"

using namespace infercap;

namespace {

using bench::kData;

PlanInputs load(const std::string& example) {
  spec::Diagnostics diags;
  static const spec::Catalog cat = spec::Catalog::load(kData, diags);
  auto sc = spec::load_scenario(kData + "/examples/" + example, kData, diags);
  if (!sc) throw std::runtime_error(diags.format());
  auto in = spec::to_plan_inputs(*sc, cat, diags);
  if (!in) throw std::runtime_error(diags.format());
  return *in;
}

// The solve alone: whole catalog, 4 precisions, TP 1/2/4/8, top 10 re-simulated.
void BM_PlanWholeCatalog(benchmark::State& state) {
  const PlanInputs in = load("chat-service.yaml");
  int evaluated = 0;
  for (auto _ : state) {
    auto plan = solve(in);
    benchmark::DoNotOptimize(plan);
    evaluated = plan->candidates_evaluated;
  }
  state.counters["candidates"] = evaluated;
  state.counters["hardware"] = static_cast<double>(in.space.hardware.size());
}
BENCHMARK(BM_PlanWholeCatalog)->Unit(benchmark::kMillisecond);

// What the command does end to end: load the catalog and the scenario, resolve, solve.
void BM_PlanWholeCatalogWithLoading(benchmark::State& state) {
  for (auto _ : state) {
    spec::Diagnostics diags;
    const spec::Catalog cat = spec::Catalog::load(kData, diags);
    auto sc = spec::load_scenario(kData + "/examples/chat-service.yaml", kData, diags);
    auto in = spec::to_plan_inputs(*sc, cat, diags);
    auto plan = solve(*in);
    benchmark::DoNotOptimize(plan);
  }
}
BENCHMARK(BM_PlanWholeCatalogWithLoading)->Unit(benchmark::kMillisecond);

// One analytic candidate: PerfModel construction, max-QPS bisection, sizing, power, pricing.
void BM_EvaluateCandidate(benchmark::State& state) {
  PlanInputs in = load("chat-service.yaml");
  const HardwareSpec* hw = nullptr;
  for (const auto& h : in.space.hardware)
    if (h.name == "h100-sxm") hw = &h;
  const StackSpec* st = nullptr;
  for (const auto& s : in.space.stacks)
    if (s.name == "vllm") st = &s;
  if (hw == nullptr || st == nullptr) {
    state.SkipWithError("h100-sxm or vllm missing from the catalog");
    return;
  }
  const PrecisionChoice prec = *precision_preset("fp8");
  for (auto _ : state) {
    CandidateRow r = evaluate_candidate(in, in.pools[0], in.models[0], *hw, *st, prec, 1, 64);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_EvaluateCandidate)->Unit(benchmark::kMicrosecond);

// Every example scenario, end to end as the command runs it (catalog and scenario loading,
// resolution, solve with simulator verification): each must plan in under 1 s, long-context,
// cap-sized and burst ones included. Registered from data/examples/ (as bench_report.cpp), so a
// new example is benchmarked without an edit here: `--benchmark_filter=PlanExample/long-context`.
void BM_PlanExample(benchmark::State& state, const std::string& example) {
  for (auto _ : state) {
    spec::Diagnostics diags;
    auto ex = bench::load_example(example, diags);
    if (!ex) {
      state.SkipWithError(diags.format().c_str());
      return;
    }
    auto plan = solve(ex->inputs);
    benchmark::DoNotOptimize(plan);
  }
}

const bool kExamplesRegistered = [] {
  for (const auto& n : bench::example_names()) {
    benchmark::RegisterBenchmark(("PlanExample/" + n).c_str(), BM_PlanExample, n)
        ->Unit(benchmark::kMillisecond);
  }
  return true;
}();

void BM_PriceFleet(benchmark::State& state) {
  const PlanInputs in = load("chat-service.yaml");
  Footprint f;
  f.hardware = "h100-sxm";
  f.years.resize(5);
  for (size_t y = 0; y < f.years.size(); ++y) {
    f.years[y].devices = 8.0 * static_cast<double>(y + 1);
    f.years[y].servers = static_cast<double>(y + 1);
    f.years[y].it_power_w = 6000.0 * static_cast<double>(y + 1);
  }
  for (auto _ : state) {
    auto c = price_footprint(f, in.prices);
    benchmark::DoNotOptimize(c);
  }
}
BENCHMARK(BM_PriceFleet)->Unit(benchmark::kMicrosecond);

}  // namespace
