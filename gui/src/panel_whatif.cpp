// Plan, left column: the open scenario's inputs as controls (the what-if desk). Every control
// reads the desk's current inputs and, when the user changes it, records one named edit through
// WhatIf::edit; the re-solve happens in plan_tick after the debounce, on the worker thread.
#include <fmt/core.h>
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "app.hpp"
#include "infercap/spec/atomic_write.hpp"
#include "infercap_gui/plan_export.hpp"

namespace infercap::gui {

namespace {

const char* kClassLabel[] = {"CPU", "GPU", "NPU", "FPGA"};

// Check boxes in a grid: call before each item; `n` counts the items so far.
void grid_next(int& n, int per_row, float col_w) {
  if (n % per_row != 0)
    ImGui::SameLine(ImGui::GetCursorStartPos().x + col_w * static_cast<float>(n % per_row));
  ++n;
}

// A labelled double input, label on the left so the column aligns at any width.
bool input_number(const char* label, double* v, const char* fmt, const char* tip = nullptr) {
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(label);
  ImGui::SameLine(ImGui::GetFontSize() * 11);
  ImGui::SetNextItemWidth(-1);
  const std::string id = std::string("##") + label;
  const bool changed = ImGui::InputDouble(id.c_str(), v, 0, 0, fmt);
  if (tip != nullptr && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
  return changed && std::isfinite(*v);
}

bool input_int(const char* label, int* v, int lo, int hi) {
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(label);
  ImGui::SameLine(ImGui::GetFontSize() * 11);
  ImGui::SetNextItemWidth(-1);
  const std::string id = std::string("##") + label;
  const bool changed = ImGui::SliderInt(id.c_str(), v, lo, hi, "%d", ImGuiSliderFlags_AlwaysClamp);
  return changed;
}

void workload_controls(App& app) {
  WhatIf& w = app.whatif;
  const auto& classes = w.inputs().sc.classes;
  for (std::size_t i = 0; i < classes.size(); ++i) {
    const RequestClass& c = classes[i];
    ImGui::PushID(static_cast<int>(i));
    const std::string head = c.name + " (" + c.model + ")";
    if (ImGui::TreeNodeEx(head.c_str(), ImGuiTreeNodeFlags_DefaultOpen)) {
      float scale =
          static_cast<float>(i < w.inputs().curve_scale.size() ? w.inputs().curve_scale[i] : 1.0);
      ImGui::AlignTextToFramePadding();
      ImGui::TextUnformatted("load x");
      ImGui::SameLine(ImGui::GetFontSize() * 11);
      ImGui::SetNextItemWidth(-1);
      if (ImGui::SliderFloat("##scale", &scale, 0.1f, 10.0f, "%.2fx",
                             ImGuiSliderFlags_Logarithmic)) {
        w.edit("load scale",
               [&](WhatIfInputs& in) { set_curve_scale(in, w.original(), i, scale); });
      }
      if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip(
            "scales the mean rate and the hourly curve as loaded (Ctrl+click to type)");
      }
      double peak = c.rate.peak_qps;
      if (input_number("peak req/s", &peak, "%.4g",
                       "0: the busiest hour of the curve, or the mean"))
        w.edit("peak rate", [&](WhatIfInputs& in) { set_peak_qps(in, i, peak); });
      ImGui::TextDisabled("design load %s req/s, average %s req/s",
                          fmt_si(design_qps(c.rate), "", 3).c_str(),
                          fmt_si(average_qps(c.rate), "", 3).c_str());
      double prompt = mean(c.prompt_tokens), output = mean(c.output_tokens);
      if (input_number("prompt tokens", &prompt, "%.0f",
                       "mean; the distribution keeps its shape")) {
        w.edit("prompt length",
               [&](WhatIfInputs& in) { set_mean_tokens(in.sc.classes[i].prompt_tokens, prompt); });
      }
      if (input_number("output tokens", &output, "%.0f",
                       "mean; the distribution keeps its shape")) {
        w.edit("output length",
               [&](WhatIfInputs& in) { set_mean_tokens(in.sc.classes[i].output_tokens, output); });
      }
      auto sla = [&](const char* metric, const SlaTarget& t, SlaMetric m, double unit,
                     const char* unit_name) {
        double v = t.limit_s / unit;
        const std::string label =
            fmt::format("{} P{:g} ({})", metric, t.set() ? t.percentile : 99.0, unit_name);
        if (input_number(label.c_str(), &v, "%.4g", "0: no bound on this metric"))
          w.edit(metric, [&](WhatIfInputs& in) { set_sla(in, i, m, v * unit); });
      };
      sla("TTFT", c.sla.ttft, SlaMetric::ttft, 1e-3, "ms");
      sla("TPOT", c.sla.tpot, SlaMetric::tpot, 1e-3, "ms");
      sla("E2E", c.sla.e2e, SlaMetric::e2e, 1, "s");
      ImGui::TreePop();
    }
    ImGui::PopID();
  }
}

void constraint_controls(App& app) {
  WhatIf& w = app.whatif;
  const Constraints& k = w.inputs().sc.constraints;
  const PriceBook& b = w.inputs().sc.prices;
  const std::string cur(currency_name(b.display_currency));
  double capex = to_display(k.capex_budget_usd, b);
  if (input_number(("capex (" + cur + ")").c_str(), &capex, "%.0f", "0: no limit") && capex >= 0) {
    w.edit("capex budget",
           [&](WhatIfInputs& in) { in.sc.constraints.capex_budget_usd = from_display(capex, b); });
  }
  double annual = to_display(k.annual_budget_usd, b);
  if (input_number(("per year (" + cur + ")").c_str(), &annual, "%.0f",
                   "annual budget: capital share + opex per year; 0: no limit") &&
      annual >= 0) {
    w.edit("annual budget", [&](WhatIfInputs& in) {
      in.sc.constraints.annual_budget_usd = from_display(annual, b);
    });
  }
  double kw = k.power_cap_w / 1e3;
  if (input_number("power cap (kW)", &kw, "%.4g",
                   "site IT power at the design load; 0: no limit") &&
      kw >= 0)
    w.edit("power cap", [&](WhatIfInputs& in) { in.sc.constraints.power_cap_w = kw * 1e3; });
  int ru = k.rack_units;
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("rack units");
  ImGui::SameLine(ImGui::GetFontSize() * 11);
  ImGui::SetNextItemWidth(-1);
  if (ImGui::InputInt("##ru", &ru) && ru >= 0)
    w.edit("rack units", [&](WhatIfInputs& in) { in.sc.constraints.rack_units = ru; });
  int horizon = k.horizon_years;
  if (input_int("horizon (years)", &horizon, 1, 10))
    w.edit("horizon", [&](WhatIfInputs& in) { in.sc.constraints.horizon_years = horizon; });
  float growth = static_cast<float>(100 * k.load_growth_per_year);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("growth / year");
  ImGui::SameLine(ImGui::GetFontSize() * 11);
  ImGui::SetNextItemWidth(-1);
  if (ImGui::SliderFloat("##growth", &growth, -50, 200, "%+.0f%%")) {
    w.edit("growth",
           [&](WhatIfInputs& in) { in.sc.constraints.load_growth_per_year = growth / 100.0; });
  }
  int red = k.redundancy;
  if (input_int("spare replicas", &red, 0, 8))
    w.edit("redundancy", [&](WhatIfInputs& in) { in.sc.constraints.redundancy = red; });
}

void price_controls(App& app) {
  WhatIf& w = app.whatif;
  const PriceBook& b = w.inputs().sc.prices;
  int c = b.display_currency == Currency::cny ? 1 : 0;
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("currency");
  ImGui::SameLine(ImGui::GetFontSize() * 11);
  if (ImGui::RadioButton("USD", &c, 0) || (ImGui::SameLine(), ImGui::RadioButton("CNY", &c, 1))) {
    w.edit("currency", [&](WhatIfInputs& in) {
      in.sc.prices.display_currency = c == 1 ? Currency::cny : Currency::usd;
    });
    app.currency = c == 1 ? Currency::cny : Currency::usd;
  }
  const std::string cur(currency_name(b.display_currency));
  double kwh = to_display(b.electricity_usd_per_kwh, b);
  if (input_number(("power (" + cur + "/kWh)").c_str(), &kwh, "%.4g") && kwh >= 0) {
    w.edit("electricity",
           [&](WhatIfInputs& in) { in.sc.prices.electricity_usd_per_kwh = from_display(kwh, b); });
  }
  float pue = static_cast<float>(b.pue);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("PUE");
  ImGui::SameLine(ImGui::GetFontSize() * 11);
  ImGui::SetNextItemWidth(-1);
  if (ImGui::SliderFloat("##pue", &pue, 1.0f, 2.5f, "%.2f"))
    w.edit("PUE", [&](WhatIfInputs& in) { in.sc.prices.pue = pue; });
  // One device's price: a searchable combo over the price book's entries.
  if (b.devices.empty()) return;
  if (app.price_device < 0 || app.price_device >= static_cast<int>(b.devices.size()))
    app.price_device = 0;
  const DevicePricing& d = b.devices[static_cast<std::size_t>(app.price_device)];
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("device");
  ImGui::SameLine(ImGui::GetFontSize() * 11);
  ImGui::SetNextItemWidth(-1);
  if (ImGui::BeginCombo("##pricedev", d.hardware.c_str())) {
    ImGui::SetNextItemWidth(-1);
    if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
    ImGui::InputTextWithHint("##find", "search name or alias", &app.device_search);
    for (std::size_t i = 0; i < b.devices.size(); ++i) {
      const HardwareSpec* hw = app.catalog->find_hardware(b.devices[i].hardware);
      if (!matches_search(app.device_search, b.devices[i].hardware,
                          hw != nullptr ? hw->aliases : std::vector<std::string>{}))
        continue;
      if (ImGui::Selectable(b.devices[i].hardware.c_str(), static_cast<int>(i) == app.price_device))
        app.price_device = static_cast<int>(i);
    }
    ImGui::EndCombo();
  }
  if (!d.tiers.empty()) {
    double price = to_display(d.tiers.front().unit_price_usd, b);
    const std::string hw = d.hardware;
    if (input_number(("unit price (" + cur + ")").c_str(), &price, "%.0f",
                     "one unit; volume tiers scale with it") &&
        price >= 0) {
      w.edit("device price",
             [&](WhatIfInputs& in) { set_device_price(in, hw, from_display(price, b)); });
    }
  }
}

void candidate_controls(App& app) {
  WhatIf& w = app.whatif;
  const spec::CandidateSelection& s = w.inputs().sc.candidates;
  const spec::Catalog& cat = *app.catalog;
  ImGui::TextDisabled("classes (none ticked: any)");
  for (int c = 0; c < kHwClassCount; ++c) {
    const HwClass hc = static_cast<HwClass>(c);
    bool on = std::find(s.classes.begin(), s.classes.end(), hc) != s.classes.end();
    if (c) ImGui::SameLine();
    if (ImGui::Checkbox(kClassLabel[c], &on))
      w.edit("class filter", [&](WhatIfInputs& in) { toggle(in.sc.candidates.classes, hc); });
  }
  ImGui::TextDisabled("vendors (none ticked: any)");
  std::set<std::string> vendors;
  for (const auto& h : cat.hardware()) vendors.insert(h.vendor);
  int n = 0;
  for (const auto& v : vendors) {
    bool on = std::find(s.vendors.begin(), s.vendors.end(), v) != s.vendors.end();
    grid_next(n, 3, ImGui::GetFontSize() * 7.5f);
    if (ImGui::Checkbox(v.c_str(), &on))
      w.edit("vendor filter", [&](WhatIfInputs& in) { toggle(in.sc.candidates.vendors, v); });
  }
  ImGui::TextDisabled("precisions");
  n = 0;
  for (const auto& p : precision_preset_names()) {
    bool on = std::find(s.precisions.begin(), s.precisions.end(), p) != s.precisions.end();
    grid_next(n, 4, ImGui::GetFontSize() * 5.5f);
    if (ImGui::Checkbox(p.c_str(), &on)) {
      w.edit("precisions", [&](WhatIfInputs& in) {
        auto& list = in.sc.candidates.precisions;
        toggle(list, p);
        if (list.empty()) list.push_back(p);  // at least one precision: untick by ticking another
      });
    }
  }
  ImGui::TextDisabled("stacks (none ticked: the default per class)");
  n = 0;
  for (const auto& st : cat.stacks()) {
    bool on = std::find(s.stacks.begin(), s.stacks.end(), st.name) != s.stacks.end();
    grid_next(n, 2, ImGui::GetFontSize() * 11);
    if (ImGui::Checkbox(st.name.c_str(), &on))
      w.edit("stacks", [&](WhatIfInputs& in) { toggle(in.sc.candidates.stacks, st.name); });
  }
  ImGui::TextDisabled("devices: %s", s.all_hardware
                                         ? "the whole catalog"
                                         : (std::to_string(s.hardware.size()) + " listed").c_str());
  ImGui::SetNextItemWidth(-1);
  ImGui::InputTextWithHint("##devsearch", "search devices by name or alias", &app.device_search);
  ImGui::BeginChild("devices", {0, ImGui::GetTextLineHeightWithSpacing() * 7}, true);
  for (const auto& h : cat.hardware()) {
    if (!matches_search(app.device_search, h.name, h.aliases)) continue;
    bool on = s.all_hardware ||
              std::find(s.hardware.begin(), s.hardware.end(), h.name) != s.hardware.end();
    const std::string label = h.name + "  (" + h.vendor + ")";
    if (ImGui::Checkbox(label.c_str(), &on))
      w.edit("devices", [&](WhatIfInputs& in) { toggle_hardware(in, cat, h.name); });
  }
  ImGui::EndChild();
}

void objective_control(App& app) {
  WhatIf& w = app.whatif;
  // In Objective's order (solver.hpp); each max_qps objective names the cap it sizes to.
  const Objective all[] = {Objective::min_tco, Objective::max_qps_within_budget,
                           Objective::max_qps_within_power, Objective::max_qps_within_rack,
                           Objective::min_energy};
  const char* names[] = {"lowest TCO meeting the SLA", "most load within the budget",
                         "most load within the power cap", "most load within the rack space",
                         "most tokens per joule meeting the SLA"};
  int o = 0;
  for (int i = 0; i < 5; ++i)
    if (all[i] == w.inputs().sc.objective) o = i;
  ImGui::SetNextItemWidth(-1);
  if (ImGui::Combo("##objective", &o, names, 5)) {
    const Objective chosen = all[o];
    w.edit("objective", [&](WhatIfInputs& in) { in.sc.objective = chosen; });
  }
  const Constraints& k = w.inputs().sc.constraints;
  const ImVec4 warn(1, 0.6f, 0.3f, 1);
  if (all[o] == Objective::max_qps_within_budget && k.capex_budget_usd <= 0 &&
      k.annual_budget_usd <= 0)
    ImGui::TextColored(warn, "needs a capex or annual budget above");
  if (all[o] == Objective::max_qps_within_power && k.power_cap_w <= 0)
    ImGui::TextColored(warn, "needs a power cap above");
  if (all[o] == Objective::max_qps_within_rack && k.rack_units <= 0)
    ImGui::TextColored(warn, "needs rack units above");
}

}  // namespace

bool open_scenario(App& app, const std::string& path) {
  const bool ok = app.whatif.open(path, app.data_dir);
  app.scenario_index = -1;
  for (std::size_t i = 0; ok && i < app.scenarios.size(); ++i) {
    std::error_code ec;
    if (std::filesystem::equivalent(app.scenarios[i].path, path, ec))
      app.scenario_index = static_cast<int>(i);
  }
  // The previous scenario's answer goes: it answered another question.
  app.plan = PlanOutcome{};
  app.plan_previous = PlanOutcome{};
  app.plan_change.clear();
  app.plan_pick_pool = -1;
  app.plan_status.clear();
  app.report = ReportExport{};  // the last export's line belonged to the previous answer
  ++app.plan_generation;
  if (ok) app.currency = app.whatif.inputs().sc.prices.display_currency;
  if (!ok) {
    app.plan.state = JobState::failed;
    app.plan.scenario_path = path;
    app.plan.scenario_name = std::filesystem::path(path).filename().string();
    app.plan.error = app.whatif.error();
    app.plan.diagnostics = app.whatif.diagnostics();
  }
  return ok;
}

void plan_tick(App& app) {
  // The open scenario's book decides the one display currency (undo included).
  if (app.whatif.loaded()) app.currency = app.whatif.inputs().sc.prices.display_currency;
  if (!app.drop_path.empty()) {
    open_scenario(app, app.drop_path);
    app.drop_path.clear();
    app.request_tab = Tab::plan;
    app.tab_requested = true;
  }
  if (app.report_job.version() != app.report_version) {
    app.report_version = app.report_job.version();
    app.report = app.report_job.snapshot();
    // The results pane shows the export's outcome; a failure is repeated beside the inputs.
    if (app.report.state == JobState::failed) app.plan_status = app.report.message;
  }
  if (app.plan_job.version() != app.plan_version) {
    app.plan_version = app.plan_job.version();
    PlanOutcome o = app.plan_job.snapshot();
    const bool same_solve = o.state == JobState::done && app.plan.state == JobState::done &&
                            o.solve_id == app.plan.solve_id &&
                            app.plan_started_generation == app.plan_generation;
    if (same_solve) {
      // The second publish of the answer on screen: its sensitivity.
      app.plan.sensitivity_state = o.sensitivity_state;
      app.plan.sensitivity = std::move(o.sensitivity);
      app.plan.sensitivity_table = std::move(o.sensitivity_table);
      app.plan.sensitivity_s = o.sensitivity_s;
      if (!o.error.empty()) app.plan.error = o.error;
    } else if (o.state == JobState::done || o.state == JobState::failed) {
      app.plan_solving = false;
      // A result for a scenario closed meanwhile is dropped; the open one is solved next.
      if (app.plan_started_generation == app.plan_generation) {
        if (app.plan.plan && o.plan) {
          app.plan_change = plan_change(*app.plan.plan, *o.plan, o.prices);
        } else {
          app.plan_change.clear();
        }
        app.plan_previous = std::move(app.plan);
        app.plan = std::move(o);
        app.plan_bands = app.plan.plan ? fleet_error_band(app.plan.plan->recommended, app.residuals)
                                       : std::vector<PartErrorBand>{};
        const bool has_best = app.plan.plan && !app.plan.plan->pools.empty() &&
                              !app.plan.plan->pools[0].ranked.empty();
        // Keep the user's pick across re-solves when it still exists.
        if (app.plan_pick_pool < 0 || !app.plan.plan ||
            app.plan_pick_pool >= static_cast<int>(app.plan.plan->pools.size())) {
          app.plan_pick_pool = has_best ? 0 : -1;
          app.plan_pick_ranked = true;
          app.plan_pick_row = 0;
        }
      }
    }
  }
  // Not while the worker still computes the sensitivity of the last answer: the edit is solved
  // as soon as it is done (a publish wakes the loop).
  if (!app.plan_job.busy() && app.whatif.solve_due(WhatIf::Clock::now())) {
    if (app.plan_job.start(app.catalog, app.whatif.inputs().sc)) {
      app.whatif.mark_solving();
      app.plan_solving = true;
      app.plan_started_generation = app.plan_generation;
    }
  }
}

bool start_report_export(App& app, const std::string& path, report::Lang lang) {
  const report::ExportRequest r = report_request(app.plan, path, lang, app.whatif.source_label());
  const bool ok = app.report_job.start(app.plan, r);
  if (!ok && !app.report_job.running()) {
    // Refused at once (no plan): the reason is in the job's snapshot.
    app.report = app.report_job.snapshot();
    app.report_version = app.report_job.version();
    app.plan_status = app.report.message;
  }
  return ok;
}

void handle_file_dialog(App& app) {
  WhatIf& w = app.whatif;
  const std::string chosen = draw_file_dialog(app.files);
  if (!chosen.empty()) {
    if (app.files.mode == FileBrowser::Mode::open) {
      open_scenario(app, chosen);
    } else if (app.files.purpose == "plan as CSV") {
      const std::string csv = plan_csv(app.plan);
      auto r = spec::write_file_atomically(chosen, csv);
      app.plan_status = r ? "exported " + chosen : "not exported: " + r.error().message;
    } else if (app.files.purpose == "view as PNG") {
      app.png_request = chosen;  // the frame loop writes the next frame
    } else if (app.files.purpose == "plan as report") {
      start_report_export(app, chosen, app.report_lang == 1 ? report::Lang::zh : report::Lang::en);
    } else {
      std::string err;
      app.plan_status = w.save(chosen, err) ? "saved " + chosen : "not saved: " + err;
    }
  }
}

void draw_whatif_inputs(App& app) {
  WhatIf& w = app.whatif;
  if (ImGui::Button("Open...")) {
    const std::string start = w.path().empty()
                                  ? (std::filesystem::path(app.data_dir) / "examples").string()
                                  : std::filesystem::path(w.path()).parent_path().string();
    app.files.show(FileBrowser::Mode::open, start, "", "scenario");
  }
  ImGui::SameLine();
  ImGui::BeginDisabled(!w.loaded());
  if (ImGui::Button("Save as...")) {
    const std::filesystem::path p = w.path();
    app.files.show(FileBrowser::Mode::save, p.parent_path().string(),
                   p.stem().string() + "-edited.yaml", "scenario as");
  }
  ImGui::SameLine();
  ImGui::BeginDisabled(!w.can_undo());
  if (ImGui::Button("Undo")) w.undo();
  if (w.can_undo() && ImGui::IsItemHovered()) ImGui::SetTooltip("undo %s", w.undo_label().c_str());
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(!w.can_redo());
  if (ImGui::Button("Redo")) w.redo();
  if (w.can_redo() && ImGui::IsItemHovered()) ImGui::SetTooltip("redo %s", w.redo_label().c_str());
  ImGui::EndDisabled();
  ImGui::EndDisabled();
  // Ctrl+Z / Ctrl+Shift+Z (or Ctrl+Y) when no text field has the keyboard.
  const ImGuiIO& io = ImGui::GetIO();
  if (w.loaded() && io.KeyCtrl && !io.WantTextInput) {
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Z)) && !io.KeyShift) w.undo();
    if ((ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Z)) && io.KeyShift) ||
        ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Y)))
      w.redo();
  }
  if (!app.plan_status.empty()) ImGui::TextWrapped("%s", app.plan_status.c_str());

  section("Scenarios (or drop a YAML file on the window)");
  ImGui::BeginChild("scenario_list", {0, ImGui::GetTextLineHeightWithSpacing() * 5.5f}, false);
  for (std::size_t i = 0; i < app.scenarios.size(); ++i) {
    if (ImGui::Selectable(app.scenarios[i].name.c_str(),
                          app.scenario_index == static_cast<int>(i))) {
      open_scenario(app, app.scenarios[i].path);
    }
  }
  ImGui::EndChild();
  ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 4);
  ImGui::InputTextWithHint("##path", "path/to/scenario.yaml", &app.plan_custom_path);
  ImGui::SameLine();
  ImGui::BeginDisabled(app.plan_custom_path.empty());
  if (ImGui::Button("Open##path", {-1, 0})) open_scenario(app, app.plan_custom_path);
  ImGui::EndDisabled();

  if (!w.loaded()) {
    ImGui::Spacing();
    ImGui::TextDisabled(w.path().empty() ? "Pick a scenario: its inputs appear here."
                                         : "No scenario is open (the file did not load).");
    return;
  }
  ImGui::Spacing();
  ImGui::TextWrapped("%s", w.path().c_str());
  ImGui::BeginDisabled(app.plan_job.busy());
  if (ImGui::Button(app.plan_job.running() ? "Solving..."
                    : app.plan_job.busy()  ? "Computing sensitivity..."
                                           : "Solve now",
                    {-1, 0})) {
    if (app.plan_job.start(app.catalog, w.inputs().sc)) {
      w.mark_solving();
      app.plan_solving = true;
      app.plan_started_generation = app.plan_generation;
    }
  }
  ImGui::EndDisabled();
  ImGui::TextDisabled("Changes re-solve on their own after a short pause.");
  if (ImGui::CollapsingHeader("Workload", ImGuiTreeNodeFlags_DefaultOpen)) workload_controls(app);
  if (ImGui::CollapsingHeader("Constraints", ImGuiTreeNodeFlags_DefaultOpen))
    constraint_controls(app);
  if (ImGui::CollapsingHeader("Prices")) price_controls(app);
  if (ImGui::CollapsingHeader("Candidates")) candidate_controls(app);
  if (ImGui::CollapsingHeader("Objective", ImGuiTreeNodeFlags_DefaultOpen)) objective_control(app);
}

}  // namespace infercap::gui
