// Catalog: the loader's diagnostics (file:line:col) and what loaded, with each entry's file.
#include <imgui.h>

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
    ImGui::BeginChild("diags", {0, 160}, true);
    for (const auto& d : app.diagnostics) ImGui::TextWrapped("%s", d.c_str());
    ImGui::EndChild();
  }
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
  if (ImGui::BeginTable("hw", 8, flags, {0, ImGui::GetContentRegionAvail().y * 0.6f})) {
    ImGui::TableSetupScrollFreeze(0, 1);
    for (const char* c :
         {"hardware", "class", "vendor", "memory", "bandwidth", "bf16 dense", "TDP", "file"})
      ImGui::TableSetupColumn(c);
    ImGui::TableHeadersRow();
    for (std::size_t i = 0; i < cat.hardware().size(); ++i) {
      const auto& h = cat.hardware()[i];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(h.name.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(std::string(hw_class_name(h.hw_class)).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(h.vendor.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(fmt_q(h.memory_bytes, Dim::bytes).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(fmt_q(h.memory_bandwidth_bytes_per_s, Dim::bytes_per_s).c_str());
      ImGui::TableNextColumn();
      const double bf = at(h.dense_flops_per_s, ComputeType::bf16);
      ImGui::TextUnformatted(bf > 0 ? fmt_si(bf, "FLOP/s", 3).c_str() : "-");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(fmt_q(h.tdp_w, Dim::watts).c_str());
      ImGui::TableNextColumn();
      ImGui::TextDisabled("%s", cat.hardware_files()[i].c_str());
    }
    ImGui::EndTable();
  }
  ImGui::Text("%zu models, %zu stacks:", cat.models().size(), cat.stacks().size());
  std::string names;
  for (const auto& s : cat.stacks()) names += (names.empty() ? "" : ", ") + s.name;
  ImGui::TextWrapped("stacks: %s", names.c_str());
  names.clear();
  for (const auto& m : cat.models()) names += (names.empty() ? "" : ", ") + m.name;
  ImGui::TextWrapped("models: %s", names.c_str());
}

}  // namespace infercap::gui
