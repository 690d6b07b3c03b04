// Frame cost of the GUI's model evaluation (gui/viewmodel): what the Predict and Compare panels
// recompute when an input changes. A 60 Hz frame has 16.7 ms; the Predict view (one PerfModel,
// a prediction with breakdowns, the roofline and a 256-point decode sweep) should stay well
// under 1 ms and a nine-device comparison under a few ms, so dragging a slider never stutters.
#include <benchmark/benchmark.h>

#include <stdexcept>

#include "bench_catalog.hpp"
#include "infercap_gui/view_model.hpp"

namespace {

const infercap::spec::Catalog& gui_catalog() {
  return infercap::bench::project_catalog();
}

void BM_GuiPredictView(benchmark::State& st) {
  infercap::gui::Selection sel;
  sel.model = "llama-3.1-8b";
  sel.hardware = "h100-sxm";
  infercap::gui::Workload w{16, 512, 128};
  const int sweep = static_cast<int>(st.range(0));
  for (auto _ : st) {
    auto v = infercap::gui::evaluate_predict(gui_catalog(), sel, w, sweep);
    if (!v.ok) throw std::runtime_error(v.error);
    benchmark::DoNotOptimize(v.sweep.knee_batch);
  }
}
BENCHMARK(BM_GuiPredictView)->Arg(256)->Arg(1024)->Unit(benchmark::kMicrosecond);

void BM_GuiBatchSweep256(benchmark::State& st) {
  infercap::gui::Selection sel;
  auto perf = infercap::gui::make_perf(gui_catalog(), sel);
  if (!perf) throw std::runtime_error(perf.error().message);
  for (auto _ : st) {
    auto s = infercap::gui::batch_sweep(*perf, 576, 640, 256);
    benchmark::DoNotOptimize(s.knee_batch);
  }
}
BENCHMARK(BM_GuiBatchSweep256)->Unit(benchmark::kMicrosecond);

void BM_GuiCompareNineDevices(benchmark::State& st) {
  infercap::gui::Selection sel;
  sel.model = "llama-3.1-70b";  // needs TP 2+ on 80 GB parts: exercises the auto-TP search
  const std::vector<std::string> hw = {"h100-sxm", "h200",       "a100-sxm-80gb",
                                       "l40s",     "rtx-4090",   "mi300x",
                                       "gaudi3",   "xeon-8592p", "epyc-9654"};
  infercap::gui::Workload w{8, 1024, 256};
  for (auto _ : st) {
    auto rows = infercap::gui::evaluate_compare(gui_catalog(), sel, hw, w, true);
    benchmark::DoNotOptimize(rows.data());
  }
}
BENCHMARK(BM_GuiCompareNineDevices)->Unit(benchmark::kMicrosecond);

}  // namespace
