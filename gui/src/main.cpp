// infercap-gui: window, frame loop and --screenshot. Everything drawn lives in the panels.
//
//   infercap-gui [--data DIR] [--tab predict|compare|plan|catalog] [--model M] [--hardware H]
//                [--stack S] [--weights/--kv/--tp/... as infercap predict] [--batch B]
//                [--prompt P] [--output O] [--sweep batch|context] [--scenario NAME] [--size WxH]
//                [--screenshot out.png [--frames N]]
//
// With --screenshot the window is hidden, a few frames are rendered (after any --scenario plan
// finished), the last one is read back and written as PNG, and the program exits. Under a
// headless machine run it inside `xvfb-run`.
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>
#define GLFW_INCLUDE_NONE
#include <GL/gl.h>
#include <GLFW/glfw3.h>
#include <stb_image_write.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "app.hpp"
#include "infercap/shell/shell.hpp"

namespace {

void glfw_error(int code, const char* what) {
  std::fprintf(stderr, "infercap-gui: GLFW error %d: %s\n", code, what);
}

// Reads the back buffer (what the last frame drew) and writes it top row first.
bool save_png(const std::string& path, int w, int h) {
  // RGB, no alpha: the frame is opaque, and a quarter fewer bytes keeps the PNG small.
  std::vector<unsigned char> px(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 3);
  glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, px.data());
  // OpenGL's rows start at the bottom; PNG's at the top.
  stbi_flip_vertically_on_write(1);
  stbi_write_png_compression_level = 9;
  return stbi_write_png(path.c_str(), w, h, 3, px.data(), w * 3) != 0;
}

// DejaVu Sans for Latin text, with a CJK face merged into the same font so Chinese device names
// and aliases (寒武纪, 昆仑芯) render in every widget. The CJK glyphs baked are the common
// simplified set plus every character the catalog uses, so the atlas stays a few MB.
void load_fonts(ImGuiIO& io, const infercap::gui::App& app, float scale) {
  const float size = std::round(15.0f * scale);
  bool latin = false;
  for (const char* f :
       {"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/TTF/DejaVuSans.ttf"}) {
    if (std::filesystem::exists(f)) {
      io.Fonts->AddFontFromFileTTF(f, size);
      latin = true;
      break;
    }
  }
  if (!latin) {
    ImFontConfig c;
    c.SizePixels = std::round(13.0f * scale);
    io.Fonts->AddFontDefault(&c);  // ImGui's built-in ProggyClean
  }
  static ImVector<ImWchar> ranges;  // must outlive the atlas build
  ImFontGlyphRangesBuilder b;
  b.AddRanges(io.Fonts->GetGlyphRangesChineseSimplifiedCommon());
  // Punctuation the report's catalogue writes (its sensitivity table is shown as it is).
  b.AddText("−–—…≤≥±×·→≈‰");
  auto add = [&](const std::string& t) { b.AddText(t.c_str()); };
  for (const auto& h : app.catalog->hardware()) {
    add(h.name);
    for (const auto& a : h.aliases) add(a);
  }
  for (const auto& m : app.catalog->models()) {
    add(m.name);
    for (const auto& a : m.aliases) add(a);
  }
  for (const auto& st : app.catalog->stacks()) {
    add(st.name);
    for (const auto& a : st.aliases) add(a);
  }
  b.BuildRanges(&ranges);
  // Noto Sans CJK's collection holds JP, KR, SC, TC, HK faces; index 2 is Simplified Chinese.
  const std::pair<const char*, int> cjk[] = {
      {"/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 2},
      {"/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc", 0}};
  for (const auto& [f, index] : cjk) {
    if (!std::filesystem::exists(f)) continue;
    ImFontConfig m;
    m.MergeMode = true;
    m.FontNo = index;
    m.OversampleH = 1;  // CJK strokes are dense; oversampling only grows the atlas
    m.PixelSnapH = true;
    // CJK faces draw their ideographs small in the em box next to DejaVu's Latin: a fifth
    // larger matches the cap height; the offset keeps the baseline.
    m.GlyphOffset = {0, std::round(size * 0.08f)};
    io.Fonts->AddFontFromFileTTF(f, std::round(size * 1.2f), &m, ranges.Data);
    break;
  }
}

int run_main(int argc, char** argv) {
  using namespace infercap;
  CLI::App cli{"infercap-gui: what-if desktop app over the infercap model"};
  std::string data, screenshot, tab = "predict", size = "1600x1000", scenario;
  std::string model, hardware;
  int frames = 6, batch = 0;
  double prompt = 0, output = 0;
  cli.add_option("--data", data, "catalog folder (default: INFERCAP_DATA_DIR or built-in)");
  cli.add_option("--screenshot", screenshot, "render offscreen, save this PNG and exit");
  std::string script;
  cli.add_option("--script", script,
                 "run a scripted session (commands in docs/gui.md) in a hidden window, then exit");
  cli.add_option("--frames", frames, "frames rendered before the screenshot")
      ->check(CLI::Range(2, 1000));
  cli.add_option("--tab", tab, "predict | compare | plan | catalog")
      ->check(CLI::IsMember({"predict", "compare", "plan", "catalog"}));
  cli.add_option("--size", size, "window size WxH")->capture_default_str();
  float scale = 0;
  cli.add_option("--scale", scale, "UI scale (default: the monitor's content scale)")
      ->check(CLI::Range(0.5, 4.0));
  cli.add_option("--model,-m", model, "initial model");
  cli.add_option("--hardware,-H", hardware, "initial hardware");
  cli.add_option("--batch,-b", batch, "initial batch")->check(CLI::Range(1, 1 << 20));
  cli.add_option("--prompt,-p", prompt, "initial prompt tokens")->check(CLI::PositiveNumber);
  cli.add_option("--output,-o", output, "initial output tokens")->check(CLI::PositiveNumber);
  cli.add_option("--scenario", scenario,
                 "plan this scenario (name in data/examples or a path) at start");
  std::string stack, sweep = "batch";
  spec::DeploymentFlags dep;
  cli.add_option("--sweep", sweep, "Predict's sweep chart: batch | context")
      ->check(CLI::IsMember({"batch", "context"}));
  cli.add_option("--stack,-s", stack, "initial serving stack (default: per hardware class)");
  shell::add_deployment_flags(cli, dep);  // the same --weights/--tp/... as `infercap predict`
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e) == 0 ? shell::kExitOk : shell::kExitUsage;
  }
  int width = 1600, height = 1000;
  if (std::sscanf(size.c_str(), "%dx%d", &width, &height) != 2 || width < 320 || height < 240) {
    std::fprintf(stderr, "infercap-gui: --size: expected WxH of at least 320x240, found '%s'\n",
                 size.c_str());
    return shell::kExitUsage;
  }

  gui::App app;
  app_init(app, data.empty() ? spec::Catalog::default_data_dir() : data);
  auto unknown = [](const char* what, const std::string& name) {
    std::fprintf(stderr, "infercap-gui: unknown %s '%s'\n", what, name.c_str());
    return shell::kExitSpec;
  };
  if (!model.empty()) {
    const ModelSpec* m = app.catalog->find_model(model);
    if (m == nullptr) return unknown("model", model);
    app.sel.model = m->name;
  }
  if (!hardware.empty()) {
    const HardwareSpec* h = app.catalog->find_hardware(hardware);
    if (h == nullptr) return unknown("hardware", hardware);
    app.sel.hardware = h->name;
  }
  if (!stack.empty()) {
    const StackSpec* st = app.catalog->find_stack(stack);
    if (st == nullptr) return unknown("stack", stack);
    app.sel.stack = st->name;
  }
  {
    spec::Diagnostics diags;
    if (!spec::make_deployment(dep, diags)) return shell::print_diagnostics(diags);
    app.sel.dep = dep;
  }
  if (batch > 0) app.work.batch = batch;
  app.sweep_context = sweep == "context";
  if (prompt > 0) app.work.prompt_tokens = prompt;
  if (output > 0) app.work.output_tokens = output;
  app.request_tab = tab == "compare"   ? gui::Tab::compare
                    : tab == "plan"    ? gui::Tab::plan
                    : tab == "catalog" ? gui::Tab::catalog
                                       : gui::Tab::predict;
  if (!scenario.empty()) {
    std::string path = scenario;
    for (std::size_t i = 0; i < app.scenarios.size(); ++i) {
      if (app.scenarios[i].name == scenario) {
        path = app.scenarios[i].path;
        app.scenario_index = static_cast<int>(i);
      }
    }
    if (!std::filesystem::exists(path)) return unknown("scenario", scenario);
    gui::open_scenario(app, path);  // solved by the first frame; a bad file shows diagnostics
  }

  glfwSetErrorCallback(glfw_error);
  if (!glfwInit()) {
    std::fprintf(stderr,
                 "infercap-gui: no display (is DISPLAY set? try `xvfb-run -a infercap-gui`)\n");
    return shell::kExitIo;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
  gui::ScriptRunner runner;
  if (!script.empty()) {
    std::string err;
    if (!runner.load(script, err)) {
      std::fprintf(stderr, "infercap-gui: --script: %s\n", err.c_str());
      return shell::kExitIo;
    }
  }
  const bool offscreen = !screenshot.empty() || !script.empty();
  if (offscreen) glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
  GLFWwindow* window = glfwCreateWindow(width, height, "infercap", nullptr, nullptr);
  if (window == nullptr) {
    std::fprintf(stderr, "infercap-gui: could not create an OpenGL 3.0 window\n");
    glfwTerminate();
    return shell::kExitIo;
  }
  glfwMakeContextCurrent(window);
  // The loop sleeps in glfwWaitEvents; a finished solve wakes it (thread-safe in GLFW).
  app.plan_job.set_on_done([] { glfwPostEmptyEvent(); });
  app.report_job.set_on_done([] { glfwPostEmptyEvent(); });
  glfwSetWindowUserPointer(window, &app);
  glfwSetDropCallback(window, [](GLFWwindow* w, int n, const char** paths) {
    if (n > 0) static_cast<gui::App*>(glfwGetWindowUserPointer(w))->drop_path = paths[0];
  });
  glfwSwapInterval(offscreen ? 0 : 1);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // the layout is fixed; don't litter the working folder
  if (scale <= 0) {
    // High-DPI monitors report a content scale above 1: fonts and spacing follow it.
    float sx = 1, sy = 1;
    glfwGetWindowContentScale(window, &sx, &sy);
    scale = std::clamp(std::max(sx, sy), 1.0f, 4.0f);
  }
  load_fonts(io, app, scale);
  ImGui::StyleColorsDark();
  ImGuiStyle& style = ImGui::GetStyle();
  style.FrameRounding = 3;
  style.ChildRounding = 3;
  style.CellPadding = {6, 2};
  style.ScaleAllSizes(scale);
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 130");

  int rc = shell::kExitOk;
  int frame = 0;
  double lively_until = 0;  ///< keep rendering at full rate until then (recent input)
  while (!glfwWindowShouldClose(window)) {
    // Sleep until something happens: a desktop what-if tool should not spin a core while the
    // user reads the charts. Input wakes the loop, so does a finished solve, sensitivity or
    // report export (on_done above); only a pending re-solve (its debounce) or a running one
    // (its elapsed-time line) set a timeout.
    const bool lively = glfwGetTime() < lively_until;
    if (!offscreen && !lively) {
      if (app.plan_job.running()) {
        glfwWaitEventsTimeout(0.25);
      } else if (app.whatif.pending() && !app.plan_job.busy()) {
        // (While the worker computes the last answer's sensitivity an edit waits for it: its
        // publish wakes the loop, so no timeout spins here.)
        const double s =
            std::chrono::duration<double>(app.whatif.until_due(gui::WhatIf::Clock::now())).count();
        glfwWaitEventsTimeout(std::max(s, 0.001));
      } else {
        glfwWaitEvents();
      }
    } else {
      glfwPollEvents();
    }
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    std::string shot;
    if (!script.empty()) shot = runner.step(app);
    gui::app_draw(app);
    {
      // Input this frame (or a drag in progress): render at full rate for a moment so hover
      // states, tooltips and opened popups settle without waiting for the next event.
      const bool input = io.MouseDelta.x != 0 || io.MouseDelta.y != 0 || io.MouseWheel != 0 ||
                         ImGui::IsAnyMouseDown() || ImGui::IsAnyItemActive() ||
                         io.InputQueueCharacters.Size > 0;
      if (input) lively_until = glfwGetTime() + 0.5;
    }
    ImGui::Render();
    int fw = 0, fh = 0;
    glfwGetFramebufferSize(window, &fw, &fh);
    glViewport(0, 0, fw, fh);
    glClearColor(0.08f, 0.08f, 0.1f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    // Export PNG (a file dialog's choice) and the script's screenshots: this frame as drawn.
    for (const std::string* png : {&app.png_request, &shot}) {
      if (png->empty()) continue;
      const bool ok = save_png(*png, fw, fh);
      app.plan_status = ok ? "saved " + *png : "could not write " + *png;
      if (!script.empty()) {
        std::printf("infercap-gui: %s (%dx%d)\n", app.plan_status.c_str(), fw, fh);
        if (!ok) rc = shell::kExitIo;
      }
    }
    app.png_request.clear();
    if (!script.empty() && runner.done) {
      if (!runner.error.empty()) {
        std::fprintf(stderr, "infercap-gui: --script: %s\n", runner.error.c_str());
        rc = shell::kExitUsage;
      }
      break;
    }
    if (!screenshot.empty()) {
      // A plan started from the command line is waited for, so the picture shows its result.
      if (app.plan_job.busy()) {
        app.plan_job.wait();  // the plan and its sensitivity
      } else if (app.whatif.pending()) {
        // the debounce of a scenario just opened: the next frames start its solve
      } else if (++frame >= frames) {
        if (!save_png(screenshot, fw, fh)) {
          std::fprintf(stderr, "infercap-gui: could not write %s\n", screenshot.c_str());
          rc = shell::kExitIo;
        } else {
          std::printf("infercap-gui: wrote %s (%dx%d)\n", screenshot.c_str(), fw, fh);
        }
        break;
      }
    }
    glfwSwapBuffers(window);
  }

  app.plan_job.wait();  // its on_done must not reach GLFW after glfwTerminate
  app.report_job.wait();
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  return infercap::shell::run_guarded("infercap-gui", run_main, argc, argv);
}
