// App start-up and the frame's top-level layout: one full-window host with a tab per panel.
#include <imgui.h>

#include <filesystem>

#include "app.hpp"
#include "infercap/spec/prices.hpp"
#include "infercap/spec/residuals.hpp"

namespace infercap::gui {

void section(const char* title) {
  ImGui::Spacing();
  ImGui::TextDisabled("%s", title);
  ImGui::Separator();
}

unsigned bound_color(Bound b) {
  switch (b) {
    case Bound::compute:
      return IM_COL32(255, 160, 60, 255);
    case Bound::memory:
      return IM_COL32(90, 160, 255, 255);
    case Bound::issue:
      return IM_COL32(190, 130, 250, 255);
    case Bound::overhead:
      return IM_COL32(170, 170, 170, 255);
    case Bound::communication:
      return IM_COL32(100, 210, 120, 255);
  }
  return IM_COL32(255, 255, 255, 255);
}

void app_init(App& app, const std::string& data_dir) {
  spec::Diagnostics diags;
  app.data_dir = data_dir;
  app.catalog = std::make_shared<const spec::Catalog>(spec::Catalog::load(data_dir, diags));
  const auto price_file = std::filesystem::path(data_dir) / "prices" / "default.yaml";
  if (std::filesystem::exists(price_file)) {
    auto book = spec::load_prices(price_file.string(), diags);
    if (book) app.prices = std::move(book).value();
  }
  // The model's measured error (`infercap validate --residuals-out`); a missing file is no
  // error, the panels then say there are no validation rows.
  app.residuals = spec::read_residuals(spec::default_residuals_path(data_dir), diags);
  spec::tag_vendors(app.residuals, *app.catalog);
  app.diagnostics = diags.lines();
  app.diagnostic_errors = diags.error_count();
  const auto& cat = *app.catalog;
  // Keep the defaults when the catalog has them; otherwise take its first entries.
  if (cat.find_model(app.sel.model) == nullptr && !cat.models().empty()) {
    app.sel.model = cat.models().front().name;
  }
  if (cat.find_hardware(app.sel.hardware) == nullptr && !cat.hardware().empty()) {
    app.sel.hardware = cat.hardware().front().name;
  }
  // Compare starts with a spread of GPUs and CPUs present in the catalog.
  app.compare_pick.assign(cat.hardware().size(), false);
  for (const char* name : {"h100-sxm", "h200", "a100-sxm-80gb", "l40s", "rtx-4090", "mi300x",
                           "gaudi3", "xeon-8592p", "epyc-9654"}) {
    for (std::size_t i = 0; i < cat.hardware().size(); ++i) {
      if (cat.hardware()[i].name == name) app.compare_pick[i] = true;
    }
  }
  const auto examples = std::filesystem::path(data_dir) / "examples";
  app.scenarios = list_scenarios(examples.string());
}

void app_draw(App& app) {
  plan_tick(app);  // solves finish and start whatever tab is shown
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  const ImGuiWindowFlags host = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                ImGuiWindowFlags_NoSavedSettings |
                                ImGuiWindowFlags_NoBringToFrontOnFocus;
  ImGui::Begin("infercap", nullptr, host);
  ImGui::TextUnformatted("infercap");
  ImGui::SameLine();
  {
    // The catalog line gives way to the buttons on the right: the folder goes first.
    const float room = ImGui::GetContentRegionAvail().x - ImGui::GetFontSize() * 15;
    std::string info = "what-if: which inference hardware, how many   |   catalog: " +
                       std::to_string(app.catalog->models().size()) + " models, " +
                       std::to_string(app.catalog->hardware().size()) + " devices, " +
                       std::to_string(app.catalog->stacks().size()) + " stacks";
    if (ImGui::CalcTextSize((info + " from " + app.data_dir).c_str()).x < room) {
      info += " from " + app.data_dir;
    } else if (ImGui::CalcTextSize(info.c_str()).x >= room) {
      info = info.substr(info.find("catalog:"));
    }
    ImGui::TextDisabled("%s", info.c_str());
  }
  {
    // One display currency for every tab (the Plan tab's price book follows it).
    ImGui::SameLine(ImGui::GetWindowContentRegionMax().x - ImGui::GetFontSize() * 14);
    if (ImGui::SmallButton("Save view as PNG...")) {
      app.files.show(FileBrowser::Mode::save, std::filesystem::current_path().string(),
                     "infercap-view.png", "view as PNG", {".png"});
    }
    ImGui::SameLine();
    int c = app.currency == Currency::cny ? 1 : 0;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5);
    const char* names[] = {"USD", "CNY"};
    if (ImGui::Combo("currency", &c, names, 2)) {
      app.currency = c == 1 ? Currency::cny : Currency::usd;
      if (app.whatif.loaded() && app.whatif.inputs().sc.prices.display_currency != app.currency) {
        const Currency cur = app.currency;
        app.whatif.edit("currency", [&](WhatIfInputs& in) { in.sc.prices.display_currency = cur; });
      }
    }
  }
  if (app.prices) app.prices->display_currency = app.currency;
  if (ImGui::BeginTabBar("tabs")) {
    auto tab = [&](const char* label, Tab t) {
      ImGuiTabItemFlags f = 0;
      if (app.tab_requested && app.request_tab == t) f |= ImGuiTabItemFlags_SetSelected;
      return ImGui::BeginTabItem(label, nullptr, f);
    };
    if (tab("Predict", Tab::predict)) {
      draw_predict_panel(app);
      ImGui::EndTabItem();
    }
    if (tab("Compare", Tab::compare)) {
      draw_compare_panel(app);
      ImGui::EndTabItem();
    }
    if (tab("Plan", Tab::plan)) {
      draw_plan_panel(app);
      ImGui::EndTabItem();
    }
    const std::string cat_label =
        app.diagnostics.empty()
            ? std::string("Catalog###catalog")
            : "Catalog (" + std::to_string(app.diagnostics.size()) + " diagnostics)###catalog";
    if (tab(cat_label.c_str(), Tab::catalog)) {
      draw_catalog_panel(app);
      ImGui::EndTabItem();
    }
    app.tab_requested = false;
    ImGui::EndTabBar();
  }
  handle_file_dialog(app);
  ImGui::End();
}

}  // namespace infercap::gui
