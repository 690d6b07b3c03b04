// Speed target of the report issue: a report for every example in data/examples/ builds in under
// 2 s: load the catalog and the scenario, solve, build the document (sensitivity re-solves and
// the batch knee included) and render it in each of the four formats. One benchmark per example
// and format; `--benchmark_filter=Report/chat-service` runs one. ReportDocument/<example> times
// the document build alone.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_examples.hpp"
#include "infercap/report/build.hpp"
#include "infercap/report/render.hpp"
#include "infercap/spec/catalog.hpp"
#include "infercap/spec/scenario.hpp"

using namespace infercap;

namespace {

void BM_Report(benchmark::State& state, const std::string& example, const std::string& ext) {
  const std::string out = "/tmp/infercap-bench-report" + ext;
  for (auto _ : state) {
    spec::Diagnostics diags;
    auto ex = bench::load_example(example, diags);
    if (!ex) {
      state.SkipWithError(diags.format().c_str());
      return;
    }
    auto plan = solve(ex->inputs);
    report::ReportOptions o;
    o.description = ex->description;
    o.accuracy = {0.072, 0.145, "docs/validation.md"};
    const report::Document d = report::build_document(ex->inputs, *plan, o);
    auto w = report::render_to_path(d, out);
    if (!w) state.SkipWithError(w.error().message.c_str());
  }
  std::remove(out.c_str());
}

// The document alone (sensitivity re-solves and the batch knee): what the report adds to the
// plan, so a regression can be told from one in the solve or a renderer.
void BM_ReportDocument(benchmark::State& state, const std::string& example) {
  spec::Diagnostics diags;
  auto ex = bench::load_example(example, diags);
  if (!ex) {
    state.SkipWithError(diags.format().c_str());
    return;
  }
  auto plan = solve(ex->inputs);
  if (!plan) {
    state.SkipWithError(plan.error().message.c_str());
    return;
  }
  report::ReportOptions o;
  o.description = ex->description;
  o.accuracy = {0.072, 0.145, "docs/validation.md"};
  for (auto _ : state) {
    report::Document d = report::build_document(ex->inputs, *plan, o);
    benchmark::DoNotOptimize(d);
  }
}

// Registered from the examples folder, so a new example is benchmarked without an edit here.
const bool kRegistered = [] {
  for (const auto& n : bench::example_names()) {
    benchmark::RegisterBenchmark(("ReportDocument/" + n).c_str(), BM_ReportDocument, n)
        ->Unit(benchmark::kMillisecond)
        ->Iterations(1);
    for (const char* ext : {".md", ".html", ".pdf", ".xlsx"}) {
      benchmark::RegisterBenchmark(("Report/" + n + "/" + (ext + 1)).c_str(), BM_Report, n,
                                   std::string(ext))
          ->Unit(benchmark::kMillisecond)
          ->Iterations(1);
    }
  }
  return true;
}();

}  // namespace
