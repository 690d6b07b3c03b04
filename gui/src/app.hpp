#pragma once
// The app's state between frames and the panels that draw it. Each panel is one file
// (panel_*.cpp); they read and write App and call the view model (infercap_gui/), never the
// model's internals. Heavy work (plans) goes through PlanJob's worker thread.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "infercap/answer_bands.hpp"
#include "infercap_gui/file_browser.hpp"
#include "infercap_gui/plan_job.hpp"
#include "infercap_gui/report_job.hpp"
#include "infercap_gui/uncertainty.hpp"
#include "infercap_gui/view_model.hpp"
#include "infercap_gui/whatif.hpp"

namespace infercap::gui {

enum class Tab { predict, compare, plan, catalog };

struct App {
  // Catalog, loaded once at start; shared read-only with the plan worker.
  std::shared_ptr<const spec::Catalog> catalog;
  std::string data_dir;
  std::vector<std::string> diagnostics;
  std::size_t diagnostic_errors = 0;
  /// data/prices/default.yaml, for Compare's price columns; absent if it did not load.
  std::optional<PriceBook> prices;
  /// The one currency money is shown in, on every tab: the header's choice; opening a scenario
  /// takes its price book's, and the Plan tab's currency control sets both.
  Currency currency = Currency::usd;

  /// Validation residuals (data/validation/residuals.csv), for the model's measured error on
  /// Predict's figures and the recommended fleet; empty when the file is absent.
  std::vector<Residual> residuals;

  // Shared by Predict and Compare: the deployment and the request shape.
  Selection sel;
  Workload work;
  bool inputs_changed = true;

  // Predict.
  PredictView predict;
  std::vector<PredictionBand> predict_bands;  ///< the headline's figures within the measured error
  int sweep_max_batch = 256;
  float tpot_target_ms = 25.0f;  ///< reading aid on the sweep: best batch within this TPOT
  bool ops_show_prefill = false;
  bool sweep_context = false;  ///< the sweep chart shows context instead of batch

  // Compare.
  std::vector<bool> compare_pick;  ///< parallel to catalog->hardware()
  bool compare_auto_tp = true;
  bool compare_dirty = true;
  std::vector<CompareRow> compare_rows;
  CompareKey compare_key = CompareKey::tokens_per_s;
  bool compare_descending = true;

  // Plan: the what-if desk. `whatif` holds the open scenario and its edited inputs; a change
  // re-solves on `plan_job`'s worker after the debounce; `plan` is the last finished answer
  // (kept on screen, greyed, while the next one is computed).
  std::vector<ScenarioFile> scenarios;
  int scenario_index = -1;       ///< the open scenario in the list; -1 = none (or not listed)
  std::string plan_custom_path;  ///< typed path; overrides the list when not empty
  WhatIf whatif;
  PlanJob plan_job;
  PlanOutcome plan;           ///< the last finished solve (done or failed)
  PlanOutcome plan_previous;  ///< the one before, for "changed since last solve"
  std::string plan_change;    ///< plan_change() of the two, "" before a second solve
  bool plan_solving = false;  ///< a solve is on the worker
  unsigned plan_version = 0;
  /// Bumped on every open; a solve started under another generation answered a closed file.
  unsigned plan_generation = 0, plan_started_generation = 0;
  FileBrowser files;
  std::string drop_path;    ///< a file dropped on the window; opened by the next frame
  std::string plan_status;  ///< the last save / export message
  /// The recommended fleet's device count across the model's measured error, per part.
  std::vector<PartErrorBand> plan_bands;
  /// Export report: the worker writing it, its last state, and the language picked (0 en, 1 zh).
  ReportJob report_job;
  ReportExport report;
  unsigned report_version = 0;
  int report_lang = 0;
  /// Set by the script's `show sensitivity`: the results pane scrolls to that header once.
  bool scroll_to_sensitivity = false;
  /// Set by Export PNG: the frame loop writes the next rendered frame to this path and puts
  /// the outcome in plan_status.
  std::string png_request;
  std::string device_search;
  std::string catalog_search;                 ///< the Catalog tab's filter (name or alias)
  std::string model_search, hardware_search;  ///< Predict's searchable combos
  int price_device = -1;  ///< the price book entry the device-price control edits
  bool plan_show_rejected = true;
  /// The candidate whose constraints and costs the detail pane shows: pool index, ranked (true)
  /// or rejected, row index; pool -1 = none.
  int plan_pick_pool = -1;
  bool plan_pick_ranked = true;
  int plan_pick_row = 0;

  // Which tab the next frame selects (command line, screenshots); consumed once.
  Tab request_tab = Tab::predict;
  bool tab_requested = true;
};

/// Loads the catalog and the scenario list; picks defaults present in the catalog.
void app_init(App& app, const std::string& data_dir);

/// Draws one frame of the whole UI into the current ImGui frame, filling the main viewport.
void app_draw(App& app);

/// A titled separator between groups of widgets.
void section(const char* title);
/// The color a binding roof is drawn in, everywhere.
unsigned bound_color(Bound b);

// The panels (one file each).
void draw_inputs(App& app, bool compare_mode);  ///< left column of Predict and Compare
void draw_predict_panel(App& app);
void draw_compare_panel(App& app);
void draw_plan_panel(App& app);
/// The what-if inputs of the open scenario (left column of Plan).
void draw_whatif_inputs(App& app);
/// The ImGui file dialog; returns the chosen path the frame it is confirmed, else "".
std::string draw_file_dialog(FileBrowser& fb);
/// Draws the dialog when shown and acts on the chosen path by its purpose (open or save a
/// scenario, export the plan as CSV, the view as PNG).
void handle_file_dialog(App& app);

// Plan charts (plan_charts.cpp).
/// One bar of the TCO chart: a candidate or a fleet and its cost split.
struct TcoBar {
  std::string label;
  CostBreakdown cost;
};
/// Stacked horizontal bars (capital, energy, hosting, maintenance, operations, porting) with a
/// money axis, a legend of the parts present and a hover read-out; returns the bar clicked.
int tco_chart(const char* id, const std::vector<TcoBar>& bars, const PriceBook& b, float width,
              int selected);
/// The hourly load (final year) against the recommended fleet's capacity per pool (base plus
/// buffer for burst plans), and year by year the design load against the installed capacity
/// with the purchases marked.
void load_chart(const char* id, const PlanOutcome& o, float width);
/// The serving-level batch knee of a recommended part: throughput and P99 against max batch.
void knee_chart(const char* id, const CandidateRow& part, const KneeResult& k, float width);
/// The sensitivity as a tornado chart: one bar per input, its lowered and raised cases as the
/// TCO change of the re-solved plan (%), a mark where the recommendation changes, "infeasible"
/// where the plan has no answer; legend and hover read-outs. `prices` formats the money.
void tornado_chart(const char* id, const std::vector<TornadoBar>& bars, const Sensitivity& s,
                   const PriceBook& prices, float width);
/// A section of the report's document model (paragraphs, bullets, tables) drawn as widgets:
/// the sensitivity table the report prints, shown as it is.
void draw_report_section(const report::Section& s);
/// Starts writing the current plan as a report to `path` in `lang` on the report worker;
/// false (with app.report saying why) when there is no plan or an export runs.
bool start_report_export(App& app, const std::string& path, report::Lang lang);

/// A scripted session (--script): commands run between frames through the same calls the
/// widgets make: `tab NAME`, `open NAME|PATH`, `model NAME`, `hardware NAME`, `batch N`,
/// `search TEXT` (the Catalog tab's filter), `set KEY VALUE` (load_scale, peak_qps, ttft_ms,
/// tpot_ms, e2e_s, capex, power_kw, growth, redundancy, electricity, currency USD|CNY, vendor V
/// (toggles), precisions P...), `undo`, `redo`, `wait` (until the re-solve and its sensitivity
/// are on screen), `frames N`, `screenshot PATH`, `export-csv PATH`, `export-report PATH [en|zh]`
/// (waits until written; a failed export fails the script), `show sensitivity` (scrolls the
/// Plan results to it), `save PATH`, `quit`. '#' starts a comment.
class ScriptRunner {
 public:
  bool load(const std::string& path, std::string& why);
  /// Runs commands until one needs frames; returns a PNG path the caller saves from this
  /// frame's rendering ("" for none). Sets `done` at the end or on an error (`error`).
  std::string step(App& app);
  bool done = false;
  std::string error;

 private:
  struct Cmd {
    int line;
    std::vector<std::string> words;
  };
  std::vector<Cmd> cmds_;
  std::string file_;
  std::size_t next_ = 0;
  int wait_frames_ = 0;
  bool waiting_ = false;
  bool waiting_report_ = false;
};

/// Opens a scenario on the desk. A file that does not load selects nothing (the list loses its
/// highlight, the previous answer is cleared) and its diagnostics are shown instead.
bool open_scenario(App& app, const std::string& path);
/// Per frame, whatever the tab: collects a finished solve and starts the next one once the
/// inputs have been still for the debounce (never while one runs; edits made meanwhile are
/// solved next).
void plan_tick(App& app);
void draw_catalog_panel(App& app);

}  // namespace infercap::gui
