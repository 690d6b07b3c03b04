// The deployment and workload inputs shared by Predict and Compare: model, hardware, stack,
// formats, parallelism, CPU knobs and the request shape. Any change marks the views dirty.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <array>
#include <string>

#include "app.hpp"
#include "infercap/spec/scenario.hpp"

namespace infercap::gui {

namespace {

constexpr std::array<DType, kDTypeCount> kDTypes = {
    DType::fp32, DType::bf16, DType::fp16, DType::fp8,    DType::int8, DType::int4,
    DType::nf4,  DType::q8_0, DType::q4_0, DType::q4_k_m, DType::nvfp4};

// A combo over dtype names with a first "empty" entry (`none_label`) meaning the default.
bool dtype_combo(const char* label, std::string& value, const char* none_label,
                 bool activations_only = false) {
  bool changed = false;
  const std::string preview = value.empty() ? none_label : value;
  if (ImGui::BeginCombo(label, preview.c_str())) {
    if (ImGui::Selectable(none_label, value.empty())) {
      value.clear();
      changed = true;
    }
    for (DType t : kDTypes) {
      if (activations_only && (is_block_quantised(t) || t == DType::int8)) continue;
      const std::string name(dtype_name(t));
      if (ImGui::Selectable(name.c_str(), value == name)) {
        value = name;
        changed = true;
      }
    }
    ImGui::EndCombo();
  }
  return changed;
}

std::string hardware_label(const HardwareSpec& h) {
  return h.name + "  (" + std::string(hw_class_name(h.hw_class)) + ", " + fmt_mem(h.memory_bytes) +
         ", " + fmt_q(h.memory_bandwidth_bytes_per_s, Dim::bytes_per_s) + ")";
}

bool log_slider(const char* label, double& v, int lo, int hi) {
  int iv = static_cast<int>(v);
  const bool c = ImGui::SliderInt(label, &iv, lo, hi, "%d", ImGuiSliderFlags_Logarithmic);
  if (c) v = std::clamp(iv, lo, hi);
  return c;
}

}  // namespace

void draw_inputs(App& app, bool compare_mode) {
  const auto& cat = *app.catalog;
  Selection& s = app.sel;
  bool changed = false;
  ImGui::PushItemWidth(-ImGui::GetFontSize() * 6.5f);  // room for the labels at any scale

  section("Deployment");
  // Both combos filter by name and alias as you type (the search box has the focus on open).
  auto search_box = [&](std::string& q) {
    if (ImGui::IsWindowAppearing()) {
      q.clear();
      ImGui::SetKeyboardFocusHere();
    }
    ImGui::SetNextItemWidth(-1);
    ImGui::InputTextWithHint("##search", "search name or alias", &q);
  };
  if (ImGui::BeginCombo("model", s.model.c_str(), ImGuiComboFlags_HeightLarge)) {
    search_box(app.model_search);
    for (const auto& m : cat.models()) {
      if (!matches_search(app.model_search, m.name, m.aliases)) continue;
      const std::string label = m.name + "  (" + fmt_si(total_params(m), "", 3) + " parameters)";
      if (ImGui::Selectable(label.c_str(), m.name == s.model)) {
        s.model = m.name;
        changed = true;
      }
    }
    ImGui::EndCombo();
  }
  const HardwareSpec* hw = cat.find_hardware(s.hardware);
  if (!compare_mode) {
    if (ImGui::BeginCombo("hardware", s.hardware.c_str(), ImGuiComboFlags_HeightLarge)) {
      search_box(app.hardware_search);
      for (int c = 0; c < kHwClassCount; ++c) {
        ImGui::TextDisabled("%s", std::string(hw_class_name(static_cast<HwClass>(c))).c_str());
        for (const auto& h : cat.hardware()) {
          if (static_cast<int>(h.hw_class) != c) continue;
          if (!matches_search(app.hardware_search, h.name, h.aliases)) continue;
          if (ImGui::Selectable(hardware_label(h).c_str(), h.name == s.hardware)) {
            s.hardware = h.name;
            changed = true;
          }
        }
      }
      ImGui::EndCombo();
    }
  }
  const std::string default_stack = hw != nullptr && !compare_mode
                                        ? "default (" + spec::default_stack_for(hw->hw_class) + ")"
                                        : std::string("default per class");
  if (ImGui::BeginCombo("stack", s.stack.empty() ? default_stack.c_str() : s.stack.c_str())) {
    if (ImGui::Selectable(default_stack.c_str(), s.stack.empty())) {
      s.stack.clear();
      changed = true;
    }
    for (const auto& st : cat.stacks()) {
      const bool runs = compare_mode || hw == nullptr || stack_runs_on(st, *hw);
      const std::string label = runs ? st.name : st.name + "  (not on this hardware)";
      if (ImGui::Selectable(label.c_str(), st.name == s.stack)) {
        s.stack = st.name;
        changed = true;
      }
    }
    ImGui::EndCombo();
  }
  if (!compare_mode && hw != nullptr) {
    // Predict's default is the CLI predict's (the stack with public evidence); the planner
    // tries another per class. Say which, so a Predict figure is not taken for a plan's.
    const std::string used = s.stack.empty() ? spec::default_stack_for(hw->hw_class) : s.stack;
    const std::string planned = spec::plan_stack_for(hw->hw_class);
    if (used != planned) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      ImGui::TextWrapped("using %s; the Plan tab tries %s on %s by default", used.c_str(),
                         planned.c_str(), std::string(hw_class_name(hw->hw_class)).c_str());
      ImGui::PopStyleColor();
    }
  }
  changed |= dtype_combo("weights", s.dep.weights, "native 16-bit");
  changed |= dtype_combo("activations", s.dep.activations, "native 16-bit", true);
  changed |= dtype_combo("KV cache", s.dep.kv, "= activations");
  {
    const std::string preview = s.dep.compute.empty() ? "derived" : s.dep.compute;
    if (ImGui::BeginCombo("compute", preview.c_str())) {
      if (ImGui::Selectable("derived", s.dep.compute.empty())) {
        s.dep.compute.clear();
        changed = true;
      }
      for (int i = 0; i < kComputeTypeCount; ++i) {
        const std::string name(compute_type_name(static_cast<ComputeType>(i)));
        if (ImGui::Selectable(name.c_str(), s.dep.compute == name)) {
          s.dep.compute = name;
          changed = true;
        }
      }
      ImGui::EndCombo();
    }
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip("the compute roof GEMMs run on; derived from the formats unless forced");
    }
  }
  if (compare_mode) {
    changed |= ImGui::Checkbox("smallest TP that fits (1-8)", &app.compare_auto_tp);
  }
  if (!compare_mode || !app.compare_auto_tp) {
    changed |= ImGui::SliderInt("TP", &s.dep.tp, 1, 8);
  }
  changed |= ImGui::SliderInt("PP", &s.dep.pp, 1, 8);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("pipeline stages: layers split across devices");

  if (!compare_mode && hw != nullptr && hw->hw_class == HwClass::cpu) {
    section("CPU");
    const int cores = hw->cpu ? hw->cpu->cores : 128;
    changed |= ImGui::SliderInt("threads", &s.dep.threads, 0, cores,
                                s.dep.threads == 0 ? "all cores" : "%d");
    changed |= ImGui::Checkbox("SMT (2 threads/core)", &s.dep.smt);
    const char* numa[] = {"pinned", "interleave", "single_node"};
    int ni = 0;
    for (int i = 0; i < 3; ++i) {
      if (s.dep.numa == numa[i]) ni = i;
    }
    if (ImGui::Combo("NUMA", &ni, numa, 3)) {
      s.dep.numa = numa[ni];
      changed = true;
    }
    changed |= ImGui::Checkbox("virtual machine", &s.dep.virtualized);
  }

  section("Workload");
  const ModelSpec* m = cat.find_model(s.model);
  const int max_ctx = m != nullptr && m->max_context > 0
                          ? static_cast<int>(std::min<int64_t>(m->max_context, 1 << 20))
                          : 131072;
  changed |=
      ImGui::SliderInt("batch", &app.work.batch, 1, 1024, "%d", ImGuiSliderFlags_Logarithmic);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("concurrent sequences (Ctrl+click to type)");
  changed |= log_slider("prompt", app.work.prompt_tokens, 1, max_ctx);
  changed |= log_slider("output", app.work.output_tokens, 1, max_ctx);
  if (app.work.prompt_tokens + app.work.output_tokens > max_ctx) {
    ImGui::TextColored(ImVec4(1, 0.7f, 0.3f, 1),
                       "prompt + output exceed the model's %d-token window", max_ctx);
  }
  ImGui::PopItemWidth();
  if (changed) {
    app.inputs_changed = true;
    app.compare_dirty = true;
  }
}

}  // namespace infercap::gui
