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

#ifdef INFERCAP_HAVE_GUI_PANELS
// A whole frame of the Plan tab as the window draws it: ImGui's layout of every panel, the
// ImDrawList charts, and the OpenGL3 backend rendering the draw lists, glFinish included, on
// the chat-service plan (576 candidates: 158 ranked, 418 rejected, every table row submitted).
// Needs a display: run under `xvfb-run -a` for Mesa's software OpenGL (llvmpipe), the slowest
// renderer the app meets. Target: under 16 ms (a 60 Hz frame).
#include <GL/gl.h>
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <cstring>

#include "app.hpp"

namespace {

void BM_GuiPlanFrame(benchmark::State& st) {
  using namespace infercap;
  const int w = static_cast<int>(st.range(0)), h = static_cast<int>(st.range(1));
  // One hidden window for every run (GLFW does not always initialise again after terminating
  // under Xvfb); each run sizes it.
  static GLFWwindow* win = [] {
    if (!glfwInit()) return static_cast<GLFWwindow*>(nullptr);
    glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
    return glfwCreateWindow(1920, 1080, "bench", nullptr, nullptr);
  }();
  if (win == nullptr) {
    st.SkipWithError("no display or no OpenGL 3.0 context: run under xvfb-run -a");
    return;
  }
  glfwSetWindowSize(win, w, h);
  glfwMakeContextCurrent(win);
  glfwSwapInterval(0);
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  ImGui::GetIO().Fonts->AddFontFromFileTTF("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 15);
  ImGui_ImplGlfw_InitForOpenGL(win, false);
  ImGui_ImplOpenGL3_Init("#version 130");
  {
    gui::App app;
    gui::app_init(app, INFERCAP_SOURCE_DIR "/data");
    gui::open_scenario(app, INFERCAP_SOURCE_DIR "/data/examples/chat-service.yaml");
    app.whatif.mark_solving();  // solved here, synchronously, not on the worker
    app.plan = gui::solve_loaded(*app.catalog, app.whatif.inputs().sc);
    gui::add_sensitivity(app.plan);  // the tornado chart and the table are in the frame too
    app.plan_pick_pool = 0;
    std::size_t candidates = 0;
    for (const auto& p : app.plan.plan->pools) candidates += p.ranked.size() + p.rejected.size();
    app.request_tab = gui::Tab::plan;
    app.tab_requested = true;
    const char* glr = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    st.SetLabel(std::string(glr != nullptr ? glr : "?") + ", " + std::to_string(candidates) +
                " candidates");
    const bool layout_only = st.range(2) == 1;  // ImGui's work without the GL rendering
    auto frame = [&] {
      glfwPollEvents();
      ImGui_ImplOpenGL3_NewFrame();
      ImGui_ImplGlfw_NewFrame();
      ImGui::NewFrame();
      gui::app_draw(app);
      ImGui::Render();
      if (layout_only) return;
      glViewport(0, 0, w, h);
      glClear(GL_COLOR_BUFFER_BIT);
      ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
      glFinish();  // the software rasteriser's work is inside the measurement
    };
    for (int i = 0; i < 3; ++i) frame();  // font atlas upload, first layout
    for (auto _ : st) frame();
    st.counters["vertices"] = ImGui::GetDrawData()->TotalVtxCount;
  }
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
}
BENCHMARK(BM_GuiPlanFrame)
    ->Args({1280, 720, 0})
    ->Args({1920, 1080, 0})
    ->Args({1280, 720, 1})
    ->Unit(benchmark::kMillisecond);

}  // namespace
#endif
