// [gui] The real panels drawn in a headless Dear ImGui context (no window, no GL): every tab in
// normal and failure states, for a few frames each. ImGui's own asserts (enabled in Debian's
// libimgui) catch unbalanced Begin/End, and ImGui's text log captures what the widgets wrote,
// so the tests check that the numbers on screen are the view model's.
#ifdef INFERCAP_HAVE_GUI_PANELS

#include <imgui.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>
#include <thread>

#include "app.hpp"
#include "infercap/spec/scenario.hpp"
#include "plot.hpp"
#include "tmp_path.hpp"

using namespace infercap;
using namespace infercap::gui;

namespace {

class Headless {
 public:
  Headless() {
    ctx_ = ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = {1600, 1000};
    io.DeltaTime = 1.0f / 60.0f;
    // Logging to the "clipboard" hands the frame's text to this callback at LogFinish().
    io.ClipboardUserData = &text_;
    io.SetClipboardTextFn = [](void* user, const char* t) { *static_cast<std::string*>(user) = t; };
    unsigned char* px = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&px, &w, &h);  // builds the font atlas, as a backend would
  }
  ~Headless() { ImGui::DestroyContext(ctx_); }
  Headless(const Headless&) = delete;
  Headless& operator=(const Headless&) = delete;

  /// Draws one frame of the whole app; returns the vertices it produced. text() then holds the
  /// text its widgets wrote.
  int frame(App& app) {
    ImGui::NewFrame();
    ImGui::LogToClipboard();
    app_draw(app);
    ImGui::LogFinish();
    ImGui::Render();
    return ImGui::GetDrawData()->TotalVtxCount;
  }
  int frames(App& app, Tab tab, int n = 3) {
    app.request_tab = tab;
    app.tab_requested = true;
    int v = 0;
    for (int i = 0; i < n; ++i) v = frame(app);
    return v;
  }
  const std::string& text() const { return text_; }

 private:
  ImGuiContext* ctx_ = nullptr;
  std::string text_;
};

int64_t catalog_model_window(const App& app) {
  return app.catalog->find_model(app.sel.model)->max_context;
}

App& fresh_app(App& app) {
  app_init(app, INFERCAP_SOURCE_DIR "/data");
  return app;
}

}  // namespace

TEST_CASE("panels: Predict shows the view model's numbers", "[gui]") {
  Headless ui;
  App app;
  fresh_app(app);
  app.work = Workload{16, 512, 128};
  CHECK(ui.frames(app, Tab::predict) > 1000);
  REQUIRE(app.predict.ok);
  CHECK_FALSE(app.inputs_changed);  // computed once, cached
  const std::string& t = ui.text();
  const Prediction& p = app.predict.prediction;
  CHECK_THAT(t, Catch::Contains(app.predict.title));
  CHECK_THAT(t, Catch::Contains(fmt_q(p.ttft_s, Dim::seconds)));
  CHECK_THAT(t, Catch::Contains(fmt_q(p.tpot_s, Dim::seconds)));
  CHECK_THAT(t, Catch::Contains("fits; at most " + std::to_string(p.memory.max_batch)));
  CHECK_THAT(t, Catch::Contains("ffn_up"));  // the operator table
  CHECK_THAT(t, Catch::Contains("weight streaming"));

  // The context sweep instead of the batch sweep: computed with the view, up to the window.
  app.sweep_context = true;
  ui.frames(app, Tab::predict, 2);
  REQUIRE(app.predict.context.points.size() == 64);
  CHECK(app.predict.context.points.back().context_tokens ==
        static_cast<double>(catalog_model_window(app)));
  CHECK_THAT(ui.text(), Catch::Contains("at batch 16"));
  app.sweep_context = false;

  // A model that does not fit says so.
  app.sel.model = "llama-3.1-405b";
  app.inputs_changed = true;
  ui.frames(app, Tab::predict, 2);
  REQUIRE(app.predict.ok);
  CHECK_FALSE(app.predict.prediction.memory.fits);
  CHECK_THAT(ui.text(), Catch::Contains("does not fit"));

  // A selection the model cannot run is an error line, not a crash.
  app.sel.model = "llama-3.1-8b";
  app.sel.dep.tp = 3;
  app.inputs_changed = true;
  ui.frames(app, Tab::predict, 2);
  CHECK_FALSE(app.predict.ok);
  CHECK_THAT(ui.text(), Catch::Contains("No prediction: "));
}

TEST_CASE("panels: Compare lists every picked device, failures included", "[gui]") {
  Headless ui;
  App app;
  fresh_app(app);
  std::size_t picked = 0;
  for (bool b : app.compare_pick) picked += b ? 1 : 0;
  REQUIRE(picked > 0);
  CHECK(ui.frames(app, Tab::compare) > 1000);
  CHECK_FALSE(app.compare_dirty);
  REQUIRE(app.compare_rows.size() == picked);
  for (const auto& r : app.compare_rows) CHECK_THAT(ui.text(), Catch::Contains(r.hardware));
  // Sorted by tokens/s, best first, as the table header says.
  for (std::size_t i = 1; i < app.compare_rows.size(); ++i) {
    if (app.compare_rows[i].ok) {
      CHECK(app.compare_rows[i - 1].tokens_per_s >= app.compare_rows[i].tokens_per_s);
    }
  }
  // Nothing picked: a hint instead of an empty table.
  app.compare_pick.assign(app.compare_pick.size(), false);
  app.compare_dirty = true;
  ui.frames(app, Tab::compare, 2);
  CHECK(app.compare_rows.empty());
  CHECK_THAT(ui.text(), Catch::Contains("Pick devices on the left."));
}

TEST_CASE("panels: Plan opens, solves, re-solves an edit and shows what changed", "[gui]") {
  using namespace std::chrono_literals;
  Headless ui;
  App app;
  fresh_app(app);
  ui.frames(app, Tab::plan, 2);
  CHECK_THAT(ui.text(), Catch::Contains("Pick a scenario"));
  CHECK(app.scenario_index == -1);  // nothing is open, nothing highlighted
  const std::string path = INFERCAP_SOURCE_DIR "/data/examples/bert-npu-fixed.yaml";
  REQUIRE(open_scenario(app, path));
  CHECK(app.scenario_index >= 0);
  CHECK(app.scenarios[static_cast<std::size_t>(app.scenario_index)].name == "bert-npu-fixed");
  ui.frames(app, Tab::plan, 1);  // a freshly opened scenario is solved at once
  CHECK(app.plan_solving);
  app.plan_job.wait();
  ui.frames(app, Tab::plan, 3);
  REQUIRE(app.plan.state == JobState::done);
  REQUIRE(app.plan.plan.has_value());
  const Plan pl = *app.plan.plan;
  CHECK_THAT(ui.text(), Catch::Contains(pl.feasible ? "Recommended" : "No feasible fleet"));
  // The inputs are on screen as controls.
  for (const char* label : {"moderation (bert-base)", "peak req/s", "prompt tokens", "E2E P99 (s)",
                            "capex (USD)", "power cap (kW)", "horizon (years)", "spare replicas"})
    CHECK_THAT(ui.text(), Catch::Contains(label));
  if (!pl.pools.empty() && !pl.pools[0].ranked.empty()) {
    CHECK(app.plan_pick_pool == 0);  // the best candidate's details open by default
    CHECK_THAT(ui.text(), Catch::Contains("Candidate details"));
    CHECK_THAT(ui.text(), Catch::Contains(pl.pools[0].ranked[0].hardware));
  }

  // An edit: pending (answer greyed), then re-solved on the worker, then the change line.
  app.whatif.edit(
      "load scale", [&](WhatIfInputs& in) { set_curve_scale(in, app.whatif.original(), 0, 3.0); },
      WhatIf::Clock::now());
  ui.frames(app, Tab::plan, 1);
  CHECK_THAT(ui.text(), Catch::Contains("Inputs changed; re-solving after a short pause"));
  CHECK_FALSE(app.plan_solving);  // the debounce has not elapsed
  std::this_thread::sleep_for(WhatIf::kDebounce + 50ms);
  ui.frames(app, Tab::plan, 1);
  CHECK(app.plan_solving);
  REQUIRE(app.plan.plan.has_value());  // the previous answer is still there while solving
  app.plan_job.wait();
  ui.frames(app, Tab::plan, 2);
  REQUIRE(app.plan.plan.has_value());
  CHECK(app.plan.plan->recommended.devices > pl.recommended.devices);  // three times the load
  CHECK(app.plan_change == plan_change(pl, *app.plan.plan, app.plan.prices));
  CHECK_THAT(ui.text(), Catch::Contains("Changed since last solve: " + app.plan_change));

  // A file that does not load selects nothing, even while the last solve is still running.
  app.whatif.edit(
      "load scale", [&](WhatIfInputs& in) { set_curve_scale(in, app.whatif.original(), 0, 1.0); },
      WhatIf::Clock::now() - 1s);
  ui.frames(app, Tab::plan, 1);  // starts a solve of bert-npu-fixed
  const std::string bad = INFERCAP_SOURCE_DIR "/tests/data/gui/bad-scenario.yaml";
  CHECK_FALSE(open_scenario(app, bad));
  CHECK(app.scenario_index == -1);
  CHECK_FALSE(app.whatif.loaded());
  app.plan_job.wait();
  ui.frames(app, Tab::plan, 2);
  CHECK(app.plan.state == JobState::failed);  // the finished solve answered the closed file
  CHECK_FALSE(app.plan.plan.has_value());
  CHECK(app.plan_pick_pool == -1);
  REQUIRE_FALSE(app.plan.diagnostics.empty());
  CHECK_THAT(app.plan.diagnostics.front(), Catch::Contains(bad + ":"));
  CHECK_THAT(ui.text(), Catch::Contains(app.plan.diagnostics.front()));
  CHECK_THAT(ui.text(), Catch::Contains("No scenario is open"));
  const unsigned v = app.plan_job.version();
  ui.frames(app, Tab::plan, 2);
  CHECK(app.plan_job.version() == v);  // and nothing is solved

  // A file dropped on the window is opened by the next frame, on the Plan tab.
  app.request_tab = Tab::predict;
  app.drop_path = INFERCAP_SOURCE_DIR "/data/examples/bert-npu-fixed.yaml";
  ui.frame(app);
  CHECK(app.drop_path.empty());
  CHECK(app.whatif.loaded());
  CHECK(app.request_tab == Tab::plan);
  CHECK(app.scenarios[static_cast<std::size_t>(app.scenario_index)].name == "bert-npu-fixed");
  app.plan_job.wait();

  // A missing file: the same.
  CHECK_FALSE(open_scenario(app, INFERCAP_SOURCE_DIR "/data/examples/missing.yaml"));
  ui.frames(app, Tab::plan, 2);
  CHECK(app.plan.state == JobState::failed);
  CHECK_THAT(ui.text(), Catch::Contains(app.plan.error));
}

TEST_CASE("panels: Catalog lists devices and models and shows diagnostics", "[gui]") {
  Headless ui;
  App app;
  fresh_app(app);
  ui.frames(app, Tab::catalog, 2);
  CHECK_THAT(ui.text(), Catch::Contains("h100-sxm"));
  CHECK_THAT(ui.text(), Catch::Contains("llama-3.1-8b"));
  // A folder without a catalog: the loader's diagnostic is shown, the app still draws.
  App empty;
  app_init(empty, INFERCAP_SOURCE_DIR "/no-such-data-dir");
  REQUIRE_FALSE(empty.diagnostics.empty());
  for (Tab t : {Tab::predict, Tab::compare, Tab::plan, Tab::catalog}) ui.frames(empty, t, 2);
  CHECK_THAT(ui.text(), Catch::Contains(empty.diagnostics.front()));
  CHECK_FALSE(empty.predict.ok);
}

TEST_CASE("panels: plot axes get at least three readable ticks at any range", "[gui]") {
  struct Case {
    double lo, hi;
    bool log;
  };
  // A decade span, a narrow log range inside one decade (31-38: no 1-2-5 tick fits), a range
  // across 12 decades, money ranges, a tiny linear one.
  for (const Case c :
       {Case{1, 10, true}, Case{31, 38, true}, Case{1e-3, 1e9, true}, Case{9e4, 1.3e6, true},
        Case{0, 76.6e3, false}, Case{1e-3, 1.2e-3, false}, Case{0.5, 24.5, false}}) {
    INFO(c.lo << " .. " << c.hi << (c.log ? " log" : " linear"));
    const auto t = tick_values(PlotAxis{c.lo, c.hi, c.log, "", nullptr});
    CHECK(t.size() >= 3);
    CHECK(t.size() <= 13);
    for (double v : t) {
      CHECK(v >= c.lo * (1 - 1e-9));
      CHECK(v <= c.hi * (1 + 1e-9));
    }
    CHECK(std::is_sorted(t.begin(), t.end()));
  }
  // Decades only when there are enough of them.
  CHECK(tick_values(PlotAxis{1, 1e4, true, "", nullptr}) ==
        std::vector<double>{1, 10, 100, 1000, 1e4});
}

TEST_CASE("panels: Plan charts for a staged fleet, and the knee the CLI's --explain computes",
          "[gui]") {
  Headless ui;
  App app;
  fresh_app(app);
  const std::string path = INFERCAP_SOURCE_DIR "/data/examples/staged-growth.yaml";
  REQUIRE(open_scenario(app, path));
  ui.frames(app, Tab::plan, 1);
  app.plan_job.wait();
  ui.frames(app, Tab::plan, 2);
  REQUIRE(app.plan.plan.has_value());
  REQUIRE(app.plan.plan->feasible);
  const std::string& t = ui.text();
  CHECK_THAT(t, Catch::Contains("Load against capacity in year 4: pool qwen2.5-7b"));
  CHECK_THAT(t, Catch::Contains("Year by year: design load against installed capacity"));
  CHECK_THAT(t, Catch::Contains("capital"));
  CHECK_THAT(t, Catch::Contains("recommended (ringed)"));
  // The knee of each recommended part, as `plan --explain` computes it (1000 requests a point).
  spec::Diagnostics diags;
  auto sc = spec::load_scenario(path, app.data_dir, diags);
  REQUIRE(sc);
  auto in = spec::to_plan_inputs(*sc, *app.catalog, diags);
  REQUIRE(in);
  const auto& parts = app.plan.plan->recommended.parts;
  REQUIRE(app.plan.knees.size() == parts.size());
  for (std::size_t i = 0; i < parts.size(); ++i) {
    KneeOptions ko;
    ko.requests = 1000;
    auto k = candidate_knee(*in, parts[i], ko);
    REQUIRE(k);
    REQUIRE(app.plan.knees[i].has_value());
    CHECK(app.plan.knees[i]->knee_batch == k->knee_batch);
    CHECK(app.plan.knees[i]->points.size() == k->points.size());
  }
}

TEST_CASE("panels: encoders show no decode figures, misfits say so, one currency", "[gui]") {
  Headless ui;
  App app;
  fresh_app(app);
  REQUIRE(app.catalog->find_model("bert-base") != nullptr);
  REQUIRE(app.catalog->find_model("bert-base")->arch == ModelArch::encoder);
  app.sel.model = "bert-base";
  app.work = Workload{8, 128, 1};
  app.inputs_changed = true;
  ui.frames(app, Tab::predict, 2);
  REQUIRE(app.predict.ok);
  CHECK_THAT(ui.text(), Catch::Contains("is an encoder: one forward pass per request"));
  // TPOT, decode tokens/s and per-sequence tokens/s read n/a: three at least.
  std::size_t na = 0;
  for (auto at = ui.text().find("n/a"); at != std::string::npos; at = ui.text().find("n/a", at + 1))
    ++na;
  CHECK(na >= 3);
  app.compare_dirty = true;
  ui.frames(app, Tab::compare, 2);
  CHECK_THAT(ui.text(), Catch::Contains("is an encoder: no decode throughput to chart"));

  // A model that does not fit: the headline says so before any figure.
  app.sel.model = "llama-3.1-405b";
  app.work = Workload{1, 512, 128};
  app.inputs_changed = true;
  ui.frames(app, Tab::predict, 2);
  REQUIRE_FALSE(app.predict.prediction.memory.fits);
  CHECK_THAT(ui.text(), Catch::Contains("DOES NOT FIT: "));
  CHECK_THAT(ui.text(), Catch::Contains(" GiB needed per device"));

  // CNY chosen once: Compare's prices and ratios follow.
  app.sel.model = "llama-3.1-8b";
  app.inputs_changed = true;
  app.compare_dirty = true;
  app.currency = Currency::cny;
  ui.frames(app, Tab::compare, 2);
  CHECK_THAT(ui.text(), Catch::Contains("tokens/s per 1000 CNY of devices"));
  CHECK_THAT(ui.text(), Catch::Contains(" CNY"));
  CHECK_THAT(ui.text(), !Catch::Contains(" USD |"));
}

TEST_CASE("panels: Plan shows the sensitivity, the fleet's error band and exports a report",
          "[gui]") {
  Headless ui;
  App app;
  fresh_app(app);
  REQUIRE(open_scenario(app, INFERCAP_SOURCE_DIR "/data/examples/chat-service.yaml"));
  app.whatif.edit("trim", [](WhatIfInputs& in) {
    in.sc.candidates.all_hardware = false;
    in.sc.candidates.hardware = {"h100-sxm", "l40s"};
    in.sc.candidates.precisions = {"fp8"};
    in.sc.verify_top = 1;
    in.sc.verify_requests = 300;
  });
  ui.frames(app, Tab::plan, 1);
  std::this_thread::sleep_for(WhatIf::kDebounce + std::chrono::milliseconds(50));
  ui.frames(app, Tab::plan, 1);      // the debounce elapsed: the solve starts
  app.plan_job.wait();               // the plan, then its sensitivity
  app.scroll_to_sensitivity = true;  // the script's `show sensitivity`: below the candidates
  ui.frames(app, Tab::plan, 3);
  REQUIRE(app.plan.state == JobState::done);
  REQUIRE(app.plan.sensitivity_state == JobState::done);
  CHECK_THAT(ui.text(), Catch::Contains("Sensitivity: how the choice moves with its inputs"));
  // The report's table: its caption and every case's words are on screen.
  const report::Table& t = app.plan.sensitivity_table->blocks[1].table;
  CHECK_THAT(ui.text(), Catch::Contains(t.caption));
  for (const auto& row : t.rows) CHECK_THAT(ui.text(), Catch::Contains(row[0].text));
  // The recommended fleet across the model's measured error: vllm on GPUs has decode rows in
  // data/validation/residuals.csv.
  REQUIRE_FALSE(app.plan_bands.empty());
  const PartErrorBand& e = app.plan_bands[0];
  if (e.available) {
    CHECK_THAT(ui.text(), Catch::Contains("within the model's measured error"));
  } else {
    CHECK_THAT(ui.text(), Catch::Contains("no validation rows for this stack/class"));
  }

  // Export report: on the worker; the window says where it went, or why not.
  const std::string out = infercap::testing::tmp_path("infercap-panel-report.md");
  std::remove(out.c_str());
  REQUIRE(start_report_export(app, out, report::Lang::en));
  app.report_job.wait();
  ui.frames(app, Tab::plan, 2);
  CHECK(app.report.state == JobState::done);
  CHECK_THAT(ui.text(), Catch::Contains("wrote " + out));
  std::remove(out.c_str());
  const std::string bad = "/nonexistent-infercap/report.pdf";
  REQUIRE(start_report_export(app, bad, report::Lang::zh));
  app.report_job.wait();
  ui.frames(app, Tab::plan, 2);
  CHECK(app.report.state == JobState::failed);
  CHECK_THAT(ui.text(), Catch::Contains("report not written: cannot write " + bad));
}

TEST_CASE("panels: Predict shows its figures within the measured error or says there are none",
          "[gui]") {
  Headless ui;
  App app;
  fresh_app(app);
  app.sel.hardware = "rtx-4090";
  app.sel.stack = "llama.cpp";  // llama.cpp on GPUs: prefill and decode rows
  app.inputs_changed = true;
  ui.frames(app, Tab::predict, 2);
  REQUIRE(app.predict.ok);
  REQUIRE_FALSE(app.predict_bands.empty());
  CHECK(app.predict_bands[0].band.available);
  CHECK_THAT(ui.text(), Catch::Contains("within the model's measured error: TTFT "));
  app.sel.hardware = "gaudi3";  // an NPU: no validation rows for its stack
  app.sel.stack.clear();
  app.inputs_changed = true;
  ui.frames(app, Tab::predict, 2);
  if (app.predict.ok) {
    for (const auto& b : app.predict_bands) CHECK_FALSE(b.band.available);
    CHECK_THAT(ui.text(), Catch::Contains("no validation rows for this stack/class"));
  }
}

#endif
