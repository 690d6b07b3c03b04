// The Plan tab's sensitivity: a tornado chart of the re-solved plans (one bar per input, its
// lowered and raised cases as the TCO change against the base, %) and the report's own table of
// the same cases, drawn from the document model so the window and the report cannot disagree.
#include <fmt/core.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "app.hpp"
#include "plot.hpp"

namespace infercap::gui {

namespace {

constexpr ImU32 kDown = palette::blue;     // the input lowered
constexpr ImU32 kUp = palette::orange;     // the input raised
constexpr ImU32 kMoved = palette::yellow;  // the recommendation changes
constexpr ImU32 kNoAnswer = palette::red;  // the plan is infeasible

std::string money_text(double usd, const PriceBook& b) {
  return fmt_si(to_currency(usd, b.display_currency, b), "", 3) + " " +
         std::string(currency_name(b.display_currency));
}

std::string pct_text(double fraction) {
  return fmt::format("{:+.1f}%", 100 * fraction);
}

std::string cell_text(const report::Column& c, const report::Cell& v) {
  if (v.empty) return "-";
  switch (c.type) {
    case report::ColType::text:
      return v.text;
    case report::ColType::integer:
      return fmt::format("{:.0f}", v.value);
    case report::ColType::money:
      return fmt_si(v.value, "", 3);
    case report::ColType::percent:
      return fmt::format("{:+.{}f}%", 100 * v.value, std::max(0, c.decimals));
    case report::ColType::number:
      return fmt::format("{:.{}f}", v.value, std::max(0, c.decimals));
  }
  return v.text;
}

}  // namespace

void tornado_chart(const char* id, const std::vector<TornadoBar>& bars, const Sensitivity& s,
                   const PriceBook& prices, float width) {
  if (bars.empty()) {
    ImGui::TextDisabled("No sensitivity cases (the plan has no answer to vary).");
    return;
  }
  if (width <= 0) width = ImGui::GetContentRegionAvail().x;
  const float lh = ImGui::GetTextLineHeight();
  const float row_h = 2 * lh + 4;  // two half-rows: lowered above, raised below
  float label_w = 0;
  for (const auto& b : bars) label_w = std::max(label_w, ImGui::CalcTextSize(b.name.c_str()).x);
  label_w += lh;
  // A symmetric axis around the base, wide enough for every feasible case and never under 1%.
  double m = 0.01;
  for (const auto& b : bars) {
    for (const TornadoEnd* e : {&b.down, &b.up})
      if (e->present && e->feasible) m = std::max(m, std::fabs(e->tco_change));
  }
  m *= 1.25;  // room for the value labels at the bar ends
  PlotAxis axis{-m, m, false, "", nullptr};
  const std::vector<double> ticks = tick_values(axis);
  const float plot_w = std::max(80.0f, width - label_w - lh);
  const ImVec2 size{width, row_h * static_cast<float>(bars.size()) + lh + 8};
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton(id, size);
  const bool hovered = ImGui::IsItemHovered();
  if (ImGui::IsItemVisible()) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
    const float x0 = o.x + label_w;
    auto px = [&](double v) { return x0 + static_cast<float>((v + m) / (2 * m)) * plot_w; };
    const float y_axis = o.y + row_h * static_cast<float>(bars.size()) + 2;
    for (double t : ticks) {
      dl->AddLine({px(t), o.y}, {px(t), y_axis}, t == 0 ? palette::grey : palette::grid);
      const std::string txt = t == 0 ? "base" : fmt::format("{:+.0f}%", 100 * t);
      const float tw = ImGui::CalcTextSize(txt.c_str()).x;
      dl->AddText({px(t) - tw / 2, y_axis + 2}, text_col, txt.c_str());
    }
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const TornadoEnd* hit = nullptr;
    const TornadoBar* hit_bar = nullptr;
    for (std::size_t i = 0; i < bars.size(); ++i) {
      const TornadoBar& b = bars[i];
      const float y = o.y + row_h * static_cast<float>(i);
      if (i % 2 == 1)
        dl->AddRectFilled({o.x, y}, {o.x + width, y + row_h}, IM_COL32(255, 255, 255, 10));
      dl->AddText({o.x, y + row_h / 2 - lh / 2}, text_col, b.name.c_str());
      int half = 0;
      for (const TornadoEnd* e : {&b.down, &b.up}) {
        const float y0 = y + 2 + static_cast<float>(half) * (lh + 1);
        const float y1 = y0 + lh - 1;
        const ImU32 col = half == 0 ? kDown : kUp;
        ++half;
        if (!e->present) continue;
        if (hovered && mouse.y >= y0 && mouse.y < y1 + 1 && mouse.x >= o.x) {
          hit = e;
          hit_bar = &b;
        }
        if (!e->feasible) {
          const char* msg = "infeasible";
          const float tw = ImGui::CalcTextSize(msg).x;
          const float xa = half == 1 ? px(0) - tw - 4 : px(0) + 4;
          dl->AddText({xa, y0}, kNoAnswer, msg);
          continue;
        }
        const float xa = px(std::min(0.0, e->tco_change)), xb = px(std::max(0.0, e->tco_change));
        dl->AddRectFilled({xa, y0}, {std::max(xb, xa + 1), y1}, col);
        if (!e->same_choice) dl->AddRect({xa - 1, y0 - 1}, {xb + 1, y1 + 1}, kMoved, 0, 0, 2.0f);
        const std::string v = pct_text(e->tco_change) + (e->same_choice ? "" : " *");
        const float tw = ImGui::CalcTextSize(v.c_str()).x;
        const float xt = e->tco_change >= 0 ? xb + 4 : xa - tw - 4;
        dl->AddText({xt, y0}, text_col, v.c_str());
      }
    }
    if (hit != nullptr) {
      std::string tip = hit_bar->name + ": " + hit->words + "\n";
      if (!hit->feasible) {
        tip += "no feasible plan" + (hit->infeasible.empty() ? "" : ": " + hit->infeasible);
      } else {
        tip += fmt::format("TCO {} ({} against the base)\n", money_text(hit->tco_usd, prices),
                           pct_text(hit->tco_change));
        tip += hit->same_choice ? "same recommendation" : "recommendation becomes " + hit->choice;
      }
      ImGui::SetTooltip("%s", tip.c_str());
    }
  }
  // The axis title under the ticks, wrapped: the base's name can be long.
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
  ImGui::TextWrapped("TCO of the re-solved plan against the base (%s: %s)",
                     s.base_choice.empty() ? "-" : s.base_choice.c_str(),
                     money_text(s.base_tco_usd, prices).c_str());
  ImGui::PopTextWrapPos();
  legend_item(kDown, "input lowered");
  ImGui::SameLine();
  legend_item(kUp, "input raised");
  bool moved = false, none = false;
  for (const auto& b : bars) {
    for (const TornadoEnd* e : {&b.down, &b.up}) {
      moved = moved || (e->present && e->feasible && !e->same_choice);
      none = none || (e->present && !e->feasible);
    }
  }
  if (moved) {
    ImGui::SameLine();
    legend_item(kMoved, "* the recommendation changes (outlined)");
  }
  if (none) {
    ImGui::SameLine();
    legend_item(kNoAnswer, "no feasible plan");
  }
}

void draw_report_section(const report::Section& s) {
  int n = 0;
  for (const auto& b : s.blocks) {
    ImGui::PushID(n++);
    switch (b.kind) {
      case report::BlockKind::paragraph:
        ImGui::TextWrapped("%s", b.text.c_str());
        break;
      case report::BlockKind::subheading:
        ImGui::Spacing();
        ImGui::TextDisabled("%s", b.text.c_str());
        break;
      case report::BlockKind::bullets:
      case report::BlockKind::numbered:
        ImGui::PushTextWrapPos(0);
        for (const auto& it : b.items) ImGui::BulletText("%s", it.c_str());
        ImGui::PopTextWrapPos();
        break;
      case report::BlockKind::code:
        ImGui::TextUnformatted(b.text.c_str());
        break;
      case report::BlockKind::chart:
        break;  // the window draws its own charts
      case report::BlockKind::table: {
        const report::Table& t = b.table;
        if (!t.caption.empty()) ImGui::TextWrapped("%s", t.caption.c_str());
        const int cols = static_cast<int>(t.columns.size());
        if (cols == 0) break;
        const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                      ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollX;
        const float h =
            ImGui::GetTextLineHeightWithSpacing() * (static_cast<float>(t.rows.size()) + 2.5f);
        if (ImGui::BeginTable(t.id.c_str(), cols, flags, {0, h})) {
          for (const auto& c : t.columns) ImGui::TableSetupColumn(c.header.c_str());
          ImGui::TableHeadersRow();
          for (const auto& row : t.rows) {
            ImGui::TableNextRow();
            for (int c = 0; c < cols; ++c) {
              ImGui::TableNextColumn();
              if (static_cast<std::size_t>(c) >= row.size()) continue;
              ImGui::TextUnformatted(cell_text(t.columns[static_cast<std::size_t>(c)],
                                               row[static_cast<std::size_t>(c)])
                                         .c_str());
            }
          }
          ImGui::EndTable();
        }
        break;
      }
    }
    ImGui::PopID();
  }
}

}  // namespace infercap::gui
