// Catalog: the loader's diagnostics (file:line:col) and what loaded, with each entry's file.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <string>

#include "app.hpp"

namespace infercap::gui {

void draw_catalog_panel(App& app) {
  const auto& cat = *app.catalog;
  if (app.diagnostics.empty()) {
    ImGui::TextColored(ImVec4(0.4f, 0.85f, 0.5f, 1), "Catalog loaded from %s without diagnostics.",
                       app.data_dir.c_str());
  } else {
    ImGui::TextColored(ImVec4(1, 0.55f, 0.4f, 1),
                       "%zu diagnostics (%zu errors) loading %s; entries with errors were skipped:",
                       app.diagnostics.size(), app.diagnostic_errors, app.data_dir.c_str());
    const float lines = static_cast<float>(std::min<std::size_t>(app.diagnostics.size(), 8));
    ImGui::BeginChild("diags", {0, lines * ImGui::GetTextLineHeightWithSpacing() + 16}, true);
    for (const auto& d : app.diagnostics) ImGui::TextWrapped("%s", d.c_str());
    ImGui::EndChild();
  }
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX |
                                ImGuiTableFlags_SizingFixedFit;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 16);
  ImGui::InputTextWithHint("##catsearch", "search name or alias (e.g. 昇腾, H100)",
                           &app.catalog_search);
  ImGui::SameLine();
  ImGui::TextDisabled("Click a row to use it in Predict.");
  if (ImGui::BeginTable("hw", 9, flags, {0, ImGui::GetContentRegionAvail().y * 0.55f})) {
    ImGui::TableSetupScrollFreeze(1, 1);
    for (const char* c : {"hardware", "class", "vendor", "memory", "bandwidth", "16-bit dense",
                          "TDP", "aliases", "file"})
      ImGui::TableSetupColumn(c);
    ImGui::TableHeadersRow();
    for (std::size_t i = 0; i < cat.hardware().size(); ++i) {
      const auto& h = cat.hardware()[i];
      if (!matches_search(app.catalog_search, h.name, h.aliases)) continue;
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      if (ImGui::Selectable(h.name.c_str(), h.name == app.sel.hardware,
                            ImGuiSelectableFlags_SpanAllColumns)) {
        app.sel.hardware = h.name;
        app.inputs_changed = true;
        app.compare_dirty = true;
      }
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(std::string(hw_class_name(h.hw_class)).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(h.vendor.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(fmt_mem(h.memory_bytes).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(fmt_q(h.memory_bandwidth_bytes_per_s, Dim::bytes_per_s).c_str());
      ImGui::TableNextColumn();
      const double bf = at(h.dense_flops_per_s, ComputeType::bf16);
      const double fp = at(h.dense_flops_per_s, ComputeType::fp16);
      ImGui::TextUnformatted(bf > 0   ? fmt_si(bf, "FLOP/s", 3).c_str()
                             : fp > 0 ? (fmt_si(fp, "FLOP/s", 3) + " (fp16)").c_str()
                                      : kNotAvailable);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(h.tdp_w > 0 ? fmt_q(h.tdp_w, Dim::watts).c_str() : kNotAvailable);
      ImGui::TableNextColumn();
      // Aliases as the catalog spells them (Chinese names of domestic parts included).
      std::string aliases;
      for (const auto& a : h.aliases) aliases += (aliases.empty() ? "" : ", ") + a;
      ImGui::TextUnformatted(aliases.c_str());
      ImGui::TableNextColumn();
      ImGui::TextDisabled("%s", cat.hardware_files()[i].c_str());
    }
    ImGui::EndTable();
  }
  std::string names;
  for (const auto& s : cat.stacks()) names += (names.empty() ? "" : ", ") + s.name;
  ImGui::TextWrapped("%zu stacks: %s", cat.stacks().size(), names.c_str());
  if (ImGui::BeginTable("models", 9, flags, {0, ImGui::GetContentRegionAvail().y})) {
    ImGui::TableSetupScrollFreeze(1, 1);
    for (const char* c : {"model", "family", "parameters", "active", "layers", "hidden",
                          "heads / KV heads", "KV per token (bf16)", "context"})
      ImGui::TableSetupColumn(c);
    ImGui::TableHeadersRow();
    for (const auto& m : cat.models()) {
      if (!matches_search(app.catalog_search, m.name, m.aliases)) continue;
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      if (ImGui::Selectable(m.name.c_str(), m.name == app.sel.model,
                            ImGuiSelectableFlags_SpanAllColumns)) {
        app.sel.model = m.name;
        app.inputs_changed = true;
        app.compare_dirty = true;
      }
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(m.family.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(fmt_si(total_params(m), "", 3).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(m.moe.enabled() ? fmt_si(active_params(m), "", 3).c_str() : "");
      ImGui::TableNextColumn();
      ImGui::Text("%d", m.layers);
      ImGui::TableNextColumn();
      ImGui::Text("%d", m.hidden);
      ImGui::TableNextColumn();
      ImGui::Text("%d / %d", m.heads, m.kv_heads);
      ImGui::TableNextColumn();
      // Elements per token per layer x layers x 2 bytes; an encoder keeps no KV cache.
      ImGui::TextUnformatted(
          m.arch == ModelArch::encoder
              ? kNotAvailable
              : fmt_mem(kv_elements_per_token_per_layer(m) * m.layers * 2.0).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(m.max_context));
    }
    ImGui::EndTable();
  }
}

}  // namespace infercap::gui
