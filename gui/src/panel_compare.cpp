// Compare: the same model, formats and workload on several devices side by side: a sortable
// table and bar charts of decode tokens/s and tokens/s per watt of TDP.
#include <imgui.h>

#include <string>

#include "app.hpp"
#include "plot.hpp"

namespace infercap::gui {

namespace {

void draw_device_picker(App& app) {
  const auto& hws = app.catalog->hardware();
  section("Devices");
  bool changed = false;
  auto pick_class = [&](HwClass c, bool on) {
    for (std::size_t i = 0; i < hws.size(); ++i) {
      if (hws[i].hw_class == c) app.compare_pick[i] = on;
    }
    changed = true;
  };
  for (int c = 0; c < kHwClassCount; ++c) {
    const std::string label = "+" + std::string(hw_class_name(static_cast<HwClass>(c)));
    if (c) ImGui::SameLine();
    if (ImGui::SmallButton(label.c_str())) pick_class(static_cast<HwClass>(c), true);
  }
  ImGui::SameLine();
  if (ImGui::SmallButton("none")) {
    app.compare_pick.assign(hws.size(), false);
    changed = true;
  }
  ImGui::BeginChild("picker", {0, 0}, false);
  for (int c = 0; c < kHwClassCount; ++c) {
    ImGui::TextDisabled("%s", std::string(hw_class_name(static_cast<HwClass>(c))).c_str());
    for (std::size_t i = 0; i < hws.size(); ++i) {
      if (static_cast<int>(hws[i].hw_class) != c) continue;
      bool on = app.compare_pick[i];
      if (ImGui::Checkbox(hws[i].name.c_str(), &on)) {
        app.compare_pick[i] = on;
        changed = true;
      }
    }
  }
  ImGui::EndChild();
  if (changed) app.compare_dirty = true;
}

}  // namespace

void draw_compare_panel(App& app) {
  ImGui::BeginChild("cmp_inputs", {ImGui::GetFontSize() * 23, 0}, true);
  draw_inputs(app, true);
  draw_device_picker(app);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("cmp_results", {0, 0}, false);

  if (app.compare_dirty) {
    std::vector<std::string> names;
    const auto& hws = app.catalog->hardware();
    for (std::size_t i = 0; i < hws.size(); ++i) {
      if (app.compare_pick[i]) names.push_back(hws[i].name);
    }
    app.compare_rows = evaluate_compare(*app.catalog, app.sel, names, app.work, app.compare_auto_tp,
                                        app.prices ? &*app.prices : nullptr);
    sort_compare(app.compare_rows, app.compare_key, app.compare_descending);
    app.compare_dirty = false;
  }
  auto& rows = app.compare_rows;
  const ModelSpec* model = app.catalog->find_model(app.sel.model);
  const bool encoder = model != nullptr && model->arch == ModelArch::encoder;
  const std::string cur(currency_name(app.currency));
  ImGui::Text("%s, batch %d, prompt %.0f, output %.0f tokens, %s", app.sel.model.c_str(),
              app.work.batch, app.work.prompt_tokens, app.work.output_tokens,
              app.compare_auto_tp ? "smallest TP that fits"
                                  : ("TP " + std::to_string(app.sel.dep.tp)).c_str());
  if (!rows.empty()) {
    ImGui::SameLine();
    if (ImGui::SmallButton("copy as CSV")) ImGui::SetClipboardText(compare_csv(rows).c_str());
  }
  if (rows.empty()) {
    ImGui::TextDisabled("Pick devices on the left.");
    ImGui::EndChild();
    return;
  }

  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_Sortable | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_ScrollX | ImGuiTableFlags_SizingFixedFit;
  const float table_h =
      std::min(ImGui::GetContentRegionAvail().y * 0.5f,
               ImGui::GetTextLineHeightWithSpacing() * static_cast<float>(rows.size() + 2));
  if (ImGui::BeginTable("cmp", 13, flags, {0, table_h})) {
    ImGui::TableSetupScrollFreeze(1, 1);
    const ImGuiTableColumnFlags none = ImGuiTableColumnFlags_NoSort;
    ImGui::TableSetupColumn("hardware", 0, 0, static_cast<ImGuiID>(CompareKey::hardware));
    ImGui::TableSetupColumn("class", none);
    ImGui::TableSetupColumn("stack", none);
    ImGui::TableSetupColumn("TP", none);
    ImGui::TableSetupColumn("memory / capacity", none);
    ImGui::TableSetupColumn("max batch", 0, 0, static_cast<ImGuiID>(CompareKey::max_batch));
    ImGui::TableSetupColumn("TTFT", 0, 0, static_cast<ImGuiID>(CompareKey::ttft));
    ImGui::TableSetupColumn("TPOT", 0, 0, static_cast<ImGuiID>(CompareKey::tpot));
    ImGui::TableSetupColumn(
        "tokens/s", ImGuiTableColumnFlags_DefaultSort | ImGuiTableColumnFlags_PreferSortDescending,
        0, static_cast<ImGuiID>(CompareKey::tokens_per_s));
    ImGui::TableSetupColumn("TDP", none);
    ImGui::TableSetupColumn("tokens/s per W", ImGuiTableColumnFlags_PreferSortDescending, 0,
                            static_cast<ImGuiID>(CompareKey::tokens_per_s_per_w));
    ImGui::TableSetupColumn("device price", none);
    ImGui::TableSetupColumn(("tokens/s per k " + cur).c_str(),
                            ImGuiTableColumnFlags_PreferSortDescending, 0,
                            static_cast<ImGuiID>(CompareKey::tokens_per_s_per_kusd));
    ImGui::TableHeadersRow();
    if (ImGuiTableSortSpecs* ss = ImGui::TableGetSortSpecs(); ss != nullptr && ss->SpecsDirty) {
      if (ss->SpecsCount > 0) {
        app.compare_key = static_cast<CompareKey>(ss->Specs[0].ColumnUserID);
        app.compare_descending = ss->Specs[0].SortDirection == ImGuiSortDirection_Descending;
        sort_compare(rows, app.compare_key, app.compare_descending);
      }
      ss->SpecsDirty = false;
    }
    for (const auto& r : rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.hardware.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(std::string(hw_class_name(r.hw_class)).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.stack.c_str());
      if (!r.ok) {
        // The reason would be clipped to one cell: a marker here, the full text below the table.
        ImGui::TableNextColumn();
        ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "-");
        ImGui::TableNextColumn();
        ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "cannot run (below)");
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.error.c_str());
        continue;
      }
      ImGui::TableNextColumn();
      ImGui::Text("%d", r.tp);
      ImGui::TableNextColumn();
      const std::string mem = fmt_mem(r.memory_bytes) + " / " + fmt_mem(r.capacity_bytes);
      if (r.fits) {
        ImGui::TextUnformatted(mem.c_str());
      } else {
        ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s  does not fit", mem.c_str());
      }
      ImGui::TableNextColumn();
      ImGui::Text("%d", r.max_batch);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(fmt_q(r.ttft_s, Dim::seconds).c_str());
      // An encoder has no decode: its TPOT and decode rates do not exist.
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(encoder ? kNotAvailable : fmt_q(r.tpot_s, Dim::seconds).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(encoder ? kNotAvailable : fmt_ratio(r.tokens_per_s).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(fmt_q(r.power_w, Dim::watts).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(encoder ? kNotAvailable : fmt_ratio(r.tokens_per_s_per_w).c_str());
      ImGui::TableNextColumn();
      if (r.devices_price_usd > 0 && app.prices) {
        ImGui::Text(
            "%s%s %s", r.price_estimate ? "~" : "",
            fmt_si(to_currency(r.devices_price_usd, app.currency, *app.prices), "", 3).c_str(),
            std::string(currency_name(app.currency)).c_str());
      } else {
        ImGui::TextDisabled("n/a (no price)");
      }
      ImGui::TableNextColumn();
      // tokens/s per 1000 of the display currency.
      const double per_k = app.prices && app.currency == Currency::cny
                               ? r.tokens_per_s_per_kusd / app.prices->cny_per_usd
                               : r.tokens_per_s_per_kusd;
      ImGui::TextUnformatted(encoder ? kNotAvailable : fmt_ratio(per_k).c_str());
    }
    ImGui::EndTable();
  }

  // Why a device cannot run the selection, one wrapped line each, across the whole width.
  for (const auto& r : rows) {
    if (r.ok) continue;
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s: %s", r.hardware.c_str(), r.error.c_str());
    ImGui::PopTextWrapPos();
  }
  // Bar charts of the rows that ran and fit, in table order.
  std::vector<std::string> labels;
  std::vector<double> tps, tpw, tpk;
  for (const auto& r : rows) {
    if (!r.ok || !r.fits) continue;
    labels.push_back(r.hardware + (r.tp > 1 ? " x" + std::to_string(r.tp) : ""));
    tps.push_back(r.tokens_per_s);
    tpw.push_back(r.tokens_per_s_per_w);
    tpk.push_back(r.tokens_per_s_per_kusd);
  }
  ImGui::Spacing();
  if (encoder) {
    ImGui::TextDisabled("%s is an encoder: no decode throughput to chart (TTFT in the table).",
                        app.sel.model.c_str());
    labels.clear();
  }
  const double k_rate = app.prices && app.currency == Currency::cny ? app.prices->cny_per_usd : 1;
  for (double& v : tpk) v /= k_rate;
  const float w = (ImGui::GetContentRegionAvail().x - 2 * ImGui::GetStyle().ItemSpacing.x) / 3;
  ImGui::BeginGroup();
  ImGui::Text("decode tokens/s (batch %d)", app.work.batch);
  hbar_chart(
      "##tps", labels, tps, palette::blue, [](double v) { return fmt_si(v, "", 3); }, w);
  ImGui::EndGroup();
  ImGui::SameLine();
  ImGui::BeginGroup();
  ImGui::Text("tokens/s per W of TDP");
  hbar_chart(
      "##tpw", labels, tpw, palette::green, [](double v) { return fmt_ratio(v); }, w);
  ImGui::EndGroup();
  ImGui::SameLine();
  ImGui::BeginGroup();
  ImGui::Text("tokens/s per 1000 %s of devices", cur.c_str());
  hbar_chart(
      "##tpk", labels, tpk, palette::orange,
      [](double v) { return v > 0 ? fmt_si(v, "", 3) : std::string("n/a (no price)"); }, w);
  ImGui::EndGroup();
  if (labels.size() < rows.size()) {
    ImGui::TextDisabled(
        "Devices that cannot run the selection or do not fit are left out of the charts.");
  }
  if (app.prices) {
    ImGui::TextDisabled(
        "Prices: price book '%s' (devices only, no servers; ~ marks estimates). "
        "TCO with servers, energy and hosting: the Plan tab.",
        app.prices->name.c_str());
  }
  ImGui::EndChild();
}

}  // namespace infercap::gui
