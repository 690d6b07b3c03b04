// The ImGui file dialog: a modal listing folders and scenario YAML files, with a name field.
// Drawn by the app itself, so it works the same on every desktop and under Xvfb.
#include <imgui.h>
#include <imgui_stdlib.h>

#include "app.hpp"

namespace infercap::gui {

std::string draw_file_dialog(FileBrowser& fb) {
  const std::string title =
      (fb.mode == FileBrowser::Mode::open ? "Open " : "Save ") + fb.purpose + "###files";
  if (fb.visible && !ImGui::IsPopupOpen("###files")) ImGui::OpenPopup("###files");
  std::string chosen;
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowSize({vp->WorkSize.x * 0.6f, vp->WorkSize.y * 0.7f}, ImGuiCond_Appearing);
  ImGui::SetNextWindowPos(
      {vp->WorkPos.x + vp->WorkSize.x * 0.5f, vp->WorkPos.y + vp->WorkSize.y * 0.5f},
      ImGuiCond_Appearing, {0.5f, 0.5f});
  if (!ImGui::BeginPopupModal(title.c_str(), &fb.visible)) return chosen;
  ImGui::TextUnformatted(fb.folder.c_str());
  const float footer = ImGui::GetFrameHeightWithSpacing() * 2 + ImGui::GetStyle().ItemSpacing.y;
  ImGui::BeginChild("entries", {0, -footer}, true);
  if (ImGui::Selectable("[..]")) fb.enter("..");
  std::string enter;
  for (const auto& e : fb.entries) {
    const std::string label = e.folder ? "[" + e.name + "]" : e.name;
    if (ImGui::Selectable(label.c_str(), !e.folder && e.name == fb.name,
                          ImGuiSelectableFlags_AllowDoubleClick)) {
      if (e.folder) {
        enter = e.name;
      } else {
        fb.name = e.name;
        if (ImGui::IsMouseDoubleClicked(0)) chosen = fb.chosen();
      }
    }
  }
  ImGui::EndChild();
  if (!enter.empty()) fb.enter(enter);
  ImGui::SetNextItemWidth(-1);
  if (ImGui::InputTextWithHint("##name", "file name (or a full path)", &fb.name,
                               ImGuiInputTextFlags_EnterReturnsTrue)) {
    chosen = fb.chosen();
  }
  ImGui::BeginDisabled(fb.name.empty());
  if (ImGui::Button(fb.mode == FileBrowser::Mode::open ? "Open" : "Save")) chosen = fb.chosen();
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (ImGui::Button("Cancel")) fb.visible = false;
  if (!fb.error.empty()) {
    ImGui::SameLine();
    ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", fb.error.c_str());
  }
  if (!chosen.empty()) fb.visible = false;
  if (!fb.visible) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
  return chosen;
}

}  // namespace infercap::gui
