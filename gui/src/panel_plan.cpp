// Plan: a scenario YAML solved on a worker thread (the same pipeline as `infercap plan`), then
// the recommended fleet, each pool's ranked candidates and the rejected ones with their reasons.
#include <fmt/core.h>
#include <imgui.h>
#include <imgui_stdlib.h>

#include <filesystem>
#include <string>

#include "app.hpp"
#include "plot.hpp"

namespace infercap::gui {

namespace {

std::string money(double usd, const PriceBook& b) {
  const double v = to_currency(usd, b.display_currency, b);
  return fmt_si(v, "", 3) + " " + std::string(currency_name(b.display_currency));
}

void fleet_summary(const FleetChoice& f, const PriceBook& b,
                   const std::vector<PartErrorBand>* bands = nullptr) {
  // Wrapped, so a scaled or narrow window never clips the answer at the right edge.
  ImGui::PushTextWrapPos(0);
  ImGui::Text("%s: %d devices in %d server(s), %s at the planned load; capex %s, TCO %s",
              f.label.c_str(), f.devices, f.servers, fmt_q(f.power_w, Dim::watts).c_str(),
              money(f.cost.capex_usd, b).c_str(), money(f.cost.tco_usd, b).c_str());
  for (const auto& p : f.parts) {
    // The fleet across the model's measured error (p10-p90 of the validation residuals), on
    // the part's own line so the layout keeps its height: "= 8 devices; ...; 7-10 within ...".
    std::string band;
    const PartErrorBand* e = nullptr;
    const std::size_t i = static_cast<std::size_t>(&p - f.parts.data());
    if (bands != nullptr && i < bands->size()) e = &(*bands)[i];
    if (e != nullptr && e->available) {
      band = "; " +
             (e->low == e->high ? std::to_string(e->low) : fmt::format("{}-{}", e->low, e->high)) +
             " within the model's measured error";
    } else if (e != nullptr) {
      band = "; no validation rows for this stack/class";
    }
    ImGui::Bullet();
    ImGui::Text("%s: %d x %s (%s, %s, TP %d) = %d devices; TTFT P99 %s, TPOT P99 %s%s",
                p.pool.c_str(), p.replicas, p.hardware.c_str(), p.precision.c_str(),
                p.stack.c_str(), p.tp, p.devices, fmt_q(p.ttft_p99_s, Dim::seconds).c_str(),
                fmt_q(p.tpot_p99_s, Dim::seconds).c_str(), band.c_str());
    if (e != nullptr && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", describe(*e).c_str());
  }
  if (!f.note.empty()) ImGui::TextDisabled("%s", f.note.c_str());
  ImGui::PopTextWrapPos();
}

// Returns the index of the row clicked this frame, or -1.
int ranked_table(const char* id, const std::vector<CandidateRow>& rows, const PriceBook& b,
                 bool rejected, int selected) {
  int clicked = -1;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollX |
                                ImGuiTableFlags_ScrollY;
  const int cols = rejected ? 7 : 13;
  const float h =
      std::min(260.0f, ImGui::GetTextLineHeightWithSpacing() * static_cast<float>(rows.size() + 2));
  if (!ImGui::BeginTable(id, cols, flags, {0, h})) return clicked;
  ImGui::TableSetupScrollFreeze(1, 1);
  if (rejected) {
    for (const char* c : {"hardware", "precision", "stack", "TP", "max batch", "binding", "reason"})
      ImGui::TableSetupColumn(c);
  } else {
    for (const char* c : {"rank", "hardware", "precision", "stack", "TP", "replicas", "devices",
                          "max QPS/replica", "TTFT P99", "TPOT P99", "power", "TCO", "verified"})
      ImGui::TableSetupColumn(c);
  }
  ImGui::TableHeadersRow();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const CandidateRow& r = rows[i];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    // The first cell spans the row as a selectable, so a click anywhere picks the candidate.
    const std::string key =
        (rejected ? r.hardware : std::to_string(r.rank)) + "##row" + std::to_string(i);
    if (ImGui::Selectable(key.c_str(), static_cast<int>(i) == selected,
                          ImGuiSelectableFlags_SpanAllColumns)) {
      clicked = static_cast<int>(i);
    }
    if (!rejected) {
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.hardware.c_str());
    }
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.precision.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.stack.c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%d", r.tp);
    if (rejected) {
      ImGui::TableNextColumn();
      ImGui::Text("%d", r.max_seqs);
      const Constraint* c = r.binding_constraint();
      ImGui::TableNextColumn();
      ImGui::TextColored(ImVec4(1, 0.55f, 0.4f, 1), "%s", c != nullptr ? c->name.c_str() : "-");
      ImGui::TableNextColumn();
      if (c != nullptr) {
        ImGui::TextUnformatted((c->message + (c->fix.empty() ? "" : "; " + c->fix)).c_str());
      }
      continue;
    }
    ImGui::TableNextColumn();
    ImGui::Text("%d", r.replicas);
    ImGui::TableNextColumn();
    ImGui::Text("%d", r.devices);
    ImGui::TableNextColumn();
    ImGui::Text("%s (%s)", fmt_si(r.max_qps_per_replica, "", 3).c_str(), r.limited_by.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(fmt_q(r.ttft_p99_s, Dim::seconds).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(fmt_q(r.tpot_p99_s, Dim::seconds).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(fmt_q(r.power_w, Dim::watts).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.priced ? money(r.cost.tco_usd, b).c_str() : "-");
    ImGui::TableNextColumn();
    if (r.verified) {
      ImGui::TextColored(r.sim_meets_sla ? ImVec4(0.4f, 0.85f, 0.5f, 1) : ImVec4(1, 0.4f, 0.4f, 1),
                         "%s", r.sim_meets_sla ? "sim: meets SLA" : "sim: misses SLA");
    } else {
      ImGui::TextDisabled("-");
    }
  }
  ImGui::EndTable();
  return clicked;
}

// Everything the solver checked for one candidate, and what it costs.
void candidate_details(const CandidateRow& r, const PriceBook& b) {
  ImGui::Text("%s on %s, %s, %s, TP %d, max batch %d", r.model.c_str(), r.hardware.c_str(),
              r.precision.c_str(), r.stack.c_str(), r.tp, r.max_seqs);
  if (r.replicas > 0) {
    ImGui::TextDisabled(
        "%d replicas, %d devices, %d servers, %d U; design load %s req/s; "
        "utilisation %.0f%%, KV occupancy %.0f%%; %s at the planned load, "
        "%s output tokens/J",
        r.replicas, r.devices, r.servers, r.rack_units, fmt_si(r.design_qps, "", 3).c_str(),
        100 * r.utilisation, 100 * r.kv_occupancy, fmt_q(r.power_w, Dim::watts).c_str(),
        fmt_si(r.tokens_per_joule, "", 3).c_str());
  }
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollX;
  const float h =
      ImGui::GetTextLineHeightWithSpacing() * (static_cast<float>(r.constraints.size()) + 2.5f);
  if (ImGui::BeginTable("constraints", 4, flags, {0, h})) {
    for (const char* c : {"constraint", "margin", "what it says", "what would fix it"})
      ImGui::TableSetupColumn(c);
    ImGui::TableHeadersRow();
    for (const auto& c : r.constraints) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextColored(c.ok ? ImVec4(0.4f, 0.85f, 0.5f, 1) : ImVec4(1, 0.4f, 0.4f, 1), "%s %s",
                         c.ok ? "ok" : "FAIL", c.name.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%+.0f%%", 100 * c.margin);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(c.message.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(c.fix.c_str());
    }
    ImGui::EndTable();
  }
  if (r.priced && r.replicas > 0) {
    const std::string label = r.hardware + " x" + std::to_string(r.devices);
    tco_chart("detail_tco", {{label, r.cost}}, b,
              std::min(760.0f, ImGui::GetContentRegionAvail().x), -1);
    ImGui::TextDisabled(
        "%s per million output tokens; capex %s%s", money(r.cost.per_million_tokens_usd, b).c_str(),
        money(r.cost.capex_usd, b).c_str(), r.cost.estimate ? "; some prices are estimates" : "");
  }
}

// Feasible candidates of one pool on (TCO, P99 end-to-end latency), the solver's Pareto front
// joined by a line: the trade-off the ranked table flattens into one order.
// Returns the ranked row clicked, or -1. The recommended candidate is ringed.
int pareto_chart(const char* id, const PoolResult& pool, const PriceBook& b, float width,
                 const CandidateRow* recommended) {
  if (pool.ranked.size() < 2) return -1;  // one point is no trade-off
  double x0 = 1e300, x1 = 0, y0 = 1e300, y1 = 0;
  for (const auto& r : pool.ranked) {
    const double x = to_currency(r.cost.tco_usd, b.display_currency, b);
    if (x <= 0 || r.e2e_p99_s <= 0) continue;
    x0 = std::min(x0, x);
    x1 = std::max(x1, x);
    y0 = std::min(y0, r.e2e_p99_s);
    y1 = std::max(y1, r.e2e_p99_s);
  }
  if (x1 <= 0) return -1;
  const std::string cur(currency_name(b.display_currency));
  PlotAxis xa{x0 / 1.3, x1 * 1.3, true, "TCO over the horizon (" + cur + ")",
              [](double v) { return fmt_si(v, "", 2); }};
  PlotAxis ya{y0 / 1.3, y1 * 1.3, true, "P99 end-to-end latency",
              [](double v) { return fmt_q(v, Dim::seconds, 2); }};
  ImGui::Text("Cost against latency: %zu feasible candidates, Pareto front joined",
              pool.ranked.size());
  Plot p;
  if (!p.begin(id, {width, ImGui::GetTextLineHeight() * 15}, xa, ya)) return -1;
  const bool clicked = ImGui::IsItemClicked();
  const ImU32 class_col[] = {palette::purple, palette::blue, palette::green, palette::orange};
  const CandidateRow* hover = nullptr;
  float best = 64.0f;
  for (const auto& r : pool.ranked) {
    const double x = to_currency(r.cost.tco_usd, b.display_currency, b);
    p.marker(x, r.e2e_p99_s, class_col[static_cast<int>(r.hw_class) % 4], Marker::circle, 3.5f);
    if (p.hovered()) {
      const ImVec2 s = p.map(x, r.e2e_p99_s), m = p.mouse();
      const float d = (s.x - m.x) * (s.x - m.x) + (s.y - m.y) * (s.y - m.y);
      if (d < best) {
        best = d;
        hover = &r;
      }
    }
  }
  std::vector<double> px, py;
  for (const auto& r : pool.pareto) {
    px.push_back(to_currency(r.cost.tco_usd, b.display_currency, b));
    py.push_back(r.e2e_p99_s);
  }
  p.line(px, py, palette::yellow, 1.5f);
  for (std::size_t i = 0; i < px.size(); ++i)
    p.marker(px[i], py[i], palette::yellow, Marker::diamond, 4.5f);
  if (recommended != nullptr) {
    const ImVec2 c = p.map(to_currency(recommended->cost.tco_usd, b.display_currency, b),
                           recommended->e2e_p99_s);
    p.draw_list()->AddCircle(c, 9, IM_COL32(255, 255, 255, 255), 0, 2.0f);
    p.draw_list()->AddText({c.x + 11, c.y - 8}, IM_COL32(255, 255, 255, 255), "recommended");
  }
  p.end();
  if (hover != nullptr) {
    ImGui::SetTooltip(
        "#%d %s, %s, %s, TP %d\n%d devices; TCO %s; P99 E2E %s\n(click for its "
        "constraints)",
        hover->rank, hover->hardware.c_str(), hover->precision.c_str(), hover->stack.c_str(),
        hover->tp, hover->devices, money(hover->cost.tco_usd, b).c_str(),
        fmt_q(hover->e2e_p99_s, Dim::seconds).c_str());
  }
  const int picked =
      clicked && hover != nullptr ? static_cast<int>(hover - pool.ranked.data()) : -1;
  bool first = true;
  for (int c = 0; c < kHwClassCount; ++c) {
    bool present = false;
    for (const auto& r : pool.ranked) present = present || static_cast<int>(r.hw_class) == c;
    if (!present) continue;  // a legend of what is drawn
    if (!first) ImGui::SameLine();
    first = false;
    legend_item(class_col[c], std::string(hw_class_name(static_cast<HwClass>(c))).c_str());
  }
  ImGui::SameLine();
  legend_item(palette::yellow, "Pareto front");
  if (recommended != nullptr) {
    ImGui::SameLine();
    legend_item(IM_COL32(255, 255, 255, 255), "recommended (ringed)");
  }
  return picked;
}

}  // namespace

void draw_plan_panel(App& app) {
  ImGui::BeginChild("plan_inputs", {ImGui::GetFontSize() * 25, 0}, true);
  draw_whatif_inputs(app);
  ImGui::EndChild();
  ImGui::SameLine();

  ImGui::BeginChild("plan_results", {0, 0}, false);
  const PlanOutcome& o = app.plan;
  // While a re-solve is pending or running, the last answer stays, greyed, under this line.
  const bool stale = app.plan_job.running() || app.whatif.pending();
  if (app.plan_job.running()) {
    ImGui::TextColored(ImVec4(0.95f, 0.85f, 0.4f, 1), "Re-solving %s ... %.1f s%s",
                       app.whatif.loaded() ? app.whatif.inputs().sc.name.c_str() : "",
                       app.plan_job.snapshot().elapsed_s,
                       o.state == JobState::done ? "; the answer below is the previous one" : "");
  } else if (app.whatif.pending()) {
    ImGui::TextColored(ImVec4(0.95f, 0.85f, 0.4f, 1),
                       "Inputs changed; re-solving after a short pause...");
  } else if (!app.plan_change.empty()) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(ImVec4(0.55f, 0.8f, 1, 1), "Changed since last solve: %s",
                       app.plan_change.c_str());
    ImGui::PopTextWrapPos();
  }
  if (stale) ImGui::PushStyleVar(ImGuiStyleVar_Alpha, 0.45f);
  switch (o.state) {
    case JobState::idle:
      if (!app.plan_job.running() && !app.whatif.pending())
        ImGui::TextDisabled("Pick a scenario (or open or drop a YAML file); it is solved at once.");
      break;
    case JobState::running:
      break;
    case JobState::failed:
      ImGui::PushTextWrapPos(0);
      ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s: %s", o.scenario_name.c_str(),
                         o.error.c_str());
      ImGui::PopTextWrapPos();
      break;
    case JobState::done:
      break;
  }
  if (o.state == JobState::done && o.plan) {
    const Plan& pl = *o.plan;
    // Export: the plan as a procurement report (the format by the file's extension), its
    // candidates as CSV, the current view as PNG.
    ImGui::BeginDisabled(stale || app.report_job.running());
    if (ImGui::SmallButton("Export report...")) {
      app.files.show(FileBrowser::Mode::save, std::filesystem::current_path().string(),
                     o.scenario_name + "-report.html", "plan as report",
                     {".html", ".pdf", ".xlsx", ".md"});
    }
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
      ImGui::SetTooltip(
          "The procurement report of this plan, as `infercap report` writes it for the scenario "
          "saved from here:\n.html, .pdf, .xlsx or .md by the file name's extension; Chinese "
          "reports show money in CNY.%s",
          stale ? "\n(wait for the re-solve)" : "");
    }
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 3.5f);
    const char* langs[] = {"en", "zh"};
    ImGui::Combo("##report_lang", &app.report_lang, langs, 2);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("report language: English or Chinese");
    ImGui::SameLine();
    if (ImGui::SmallButton("Export CSV...")) {
      app.files.show(FileBrowser::Mode::save, std::filesystem::current_path().string(),
                     o.scenario_name + "-plan.csv", "plan as CSV", {".csv"});
    }
    ImGui::SameLine();
    if (ImGui::SmallButton("Export PNG...")) {
      app.files.show(FileBrowser::Mode::save, std::filesystem::current_path().string(),
                     o.scenario_name + "-plan.png", "view as PNG", {".png"});
    }
    ImGui::SameLine();
    ImGui::Text("%s", o.scenario_name.c_str());
    const std::string solved =
        fmt::format("solved in {:.2f} s; candidates: {} evaluated, {} verified by simulation",
                    o.elapsed_s, pl.candidates_evaluated, pl.candidates_verified);
    ImGui::SameLine();
    // Beside the buttons when it fits in two lines there, else on a line of its own (at scale 2
    // the export buttons leave a sliver that wrapped it a word a line).
    if (ImGui::GetContentRegionAvail().x * 2 < ImGui::CalcTextSize(solved.c_str()).x)
      ImGui::NewLine();
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", solved.c_str());
    ImGui::PopTextWrapPos();
    if (app.report.state != JobState::idle) {
      // The export's outcome in the window: the path, and the reason when it failed.
      const ImVec4 col = app.report.state == JobState::failed    ? ImVec4(1, 0.4f, 0.4f, 1)
                         : app.report.state == JobState::running ? ImVec4(0.95f, 0.85f, 0.4f, 1)
                                                                 : ImVec4(0.4f, 0.85f, 0.5f, 1);
      ImGui::PushStyleColor(ImGuiCol_Text, col);
      ImGui::TextWrapped("%s", app.report.message.c_str());
      ImGui::PopStyleColor();
    }
    if (!o.description.empty()) ImGui::TextWrapped("%s", o.description.c_str());
    ImGui::Separator();
    if (pl.feasible) {
      ImGui::TextColored(ImVec4(0.4f, 0.85f, 0.5f, 1), "Recommended");
      fleet_summary(pl.recommended, o.prices, &app.plan_bands);
    } else {
      ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "No feasible fleet");
      ImGui::TextWrapped("%s", pl.infeasible_reason.c_str());
      for (const auto& s : pl.suggestions) ImGui::BulletText("%s", s.c_str());
    }
    for (const auto& alt : pl.alternatives) {
      ImGui::Spacing();
      fleet_summary(alt, o.prices);
    }
    const float chart_w =
        std::min(900.0f * ImGui::GetFontSize() / 15.0f, ImGui::GetContentRegionAvail().x);
    if (pl.feasible &&
        ImGui::CollapsingHeader("Load against capacity", ImGuiTreeNodeFlags_DefaultOpen)) {
      load_chart("load", o, chart_w);
    }
    if (!o.knees.empty() && ImGui::CollapsingHeader("Batch knee (serving level)")) {
      for (std::size_t i = 0; i < o.knees.size() && i < pl.recommended.parts.size(); ++i) {
        if (o.knees[i]) {
          knee_chart(("knee" + std::to_string(i)).c_str(), pl.recommended.parts[i], *o.knees[i],
                     chart_w);
        }
      }
    }
    ImGui::Checkbox("show rejected candidates", &app.plan_show_rejected);
    for (const auto& pool : pl.pools) {
      ImGui::Spacing();
      const std::string head = "pool " + pool.pool.name + " (" + pool.pool.model +
                               "): " + std::to_string(pool.ranked.size()) + " feasible, " +
                               std::to_string(pool.rejected.size()) + " rejected";
      const int pi = static_cast<int>(&pool - pl.pools.data());
      const bool here = app.plan_pick_pool == pi;
      if (ImGui::CollapsingHeader(head.c_str(), ImGuiTreeNodeFlags_DefaultOpen)) {
        int c = ranked_table(("ranked_" + pool.pool.name).c_str(), pool.ranked, o.prices, false,
                             here && app.plan_pick_ranked ? app.plan_pick_row : -1);
        if (c >= 0) {
          app.plan_pick_pool = pi;
          app.plan_pick_ranked = true;
          app.plan_pick_row = c;
        }
        // TCO split of the fleet part and the ten best candidates; click a bar to open it.
        std::vector<TcoBar> bars;
        const CandidateRow* rec = nullptr;
        // The ranked row the recommended part was chosen as (a staged or burst part is sized
        // differently from the row, so it is found by its configuration).
        for (const auto& part : pl.recommended.parts) {
          if (part.pool != pool.pool.name) continue;
          for (const auto& r : pool.ranked) {
            if (rec == nullptr && r.hardware == part.hardware && r.precision == part.precision &&
                r.stack == part.stack && r.tp == part.tp && r.max_seqs == part.max_seqs)
              rec = &r;
          }
        }
        for (std::size_t i = 0; i < pool.ranked.size() && i < 10; ++i) {
          const auto& r = pool.ranked[i];
          bars.push_back(
              {fmt::format("#{} {} {} TP{} x{}", r.rank, r.hardware, r.precision, r.tp, r.devices),
               r.cost});
        }
        const int sel =
            here && app.plan_pick_ranked && app.plan_pick_row < 10 ? app.plan_pick_row : -1;
        c = tco_chart(
            ("tco_" + pool.pool.name).c_str(), bars, o.prices,
            std::min(900.0f * ImGui::GetFontSize() / 15.0f, ImGui::GetContentRegionAvail().x), sel);
        if (c >= 0) {
          app.plan_pick_pool = pi;
          app.plan_pick_ranked = true;
          app.plan_pick_row = c;
        }
        c = pareto_chart(
            ("pareto_" + pool.pool.name).c_str(), pool, o.prices,
            std::min(760.0f * ImGui::GetFontSize() / 15.0f, ImGui::GetContentRegionAvail().x), rec);
        if (c >= 0) {
          app.plan_pick_pool = pi;
          app.plan_pick_ranked = true;
          app.plan_pick_row = c;
        }
        if (app.plan_show_rejected && !pool.rejected.empty()) {
          ImGui::TextDisabled("rejected, with the binding constraint");
          c = ranked_table(("rejected_" + pool.pool.name).c_str(), pool.rejected, o.prices, true,
                           here && !app.plan_pick_ranked ? app.plan_pick_row : -1);
          if (c >= 0) {
            app.plan_pick_pool = pi;
            app.plan_pick_ranked = false;
            app.plan_pick_row = c;
          }
        }
      }
    }
    // Details of the picked candidate (click a row).
    if (app.plan_pick_pool >= 0 && app.plan_pick_pool < static_cast<int>(pl.pools.size())) {
      const PoolResult& pr = pl.pools[static_cast<std::size_t>(app.plan_pick_pool)];
      const auto& rows = app.plan_pick_ranked ? pr.ranked : pr.rejected;
      if (app.plan_pick_row >= 0 && app.plan_pick_row < static_cast<int>(rows.size())) {
        ImGui::Spacing();
        section("Candidate details");
        candidate_details(rows[static_cast<std::size_t>(app.plan_pick_row)], o.prices);
      }
    } else {
      ImGui::TextDisabled("Click a candidate for its constraints and costs.");
    }
    // Sensitivity last: the answer and its candidates first, then how it moves.
    ImGui::Spacing();
    if (app.scroll_to_sensitivity) ImGui::SetNextItemOpen(true);
    const bool sens_open = ImGui::CollapsingHeader(
        "Sensitivity: how the choice moves with its inputs", ImGuiTreeNodeFlags_DefaultOpen);
    if (app.scroll_to_sensitivity) {
      ImGui::SetScrollHereY(0.0f);
      app.scroll_to_sensitivity = false;
    }
    if (sens_open) {
      if (o.sensitivity_state == JobState::running) {
        ImGui::TextColored(ImVec4(0.95f, 0.85f, 0.4f, 1),
                           "Re-solving the plan under each change (load, prices, SLA, horizon, "
                           "model error) ...");
      } else if (o.sensitivity && o.sensitivity_table) {
        const auto bars = tornado(*o.sensitivity, &*o.sensitivity_table);
        tornado_chart("tornado", bars, *o.sensitivity, o.prices, chart_w);
        ImGui::TextDisabled("%zu re-solves in %.1f s; the table is the report's",
                            o.sensitivity->cases.size() + 1, o.sensitivity_s);
        draw_report_section(*o.sensitivity_table);
      } else if (o.sensitivity_state == JobState::failed) {
        ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "No sensitivity: %s",
                           o.error.empty() ? "the plan has no answer to vary" : o.error.c_str());
      }
    }
  }
  if (!o.diagnostics.empty()) {
    ImGui::Spacing();
    section("Diagnostics");
    for (const auto& d : o.diagnostics) ImGui::TextWrapped("%s", d.c_str());
  }
  if (stale) {
    ImGui::PopStyleVar();
    // Charts draw with their own colours, which the style's alpha does not reach: a veil over
    // the whole answer says it is the previous one.
    const ImVec2 p0 = ImGui::GetWindowPos(), sz = ImGui::GetWindowSize();
    ImGui::GetWindowDrawList()->AddRectFilled(
        {p0.x, p0.y + ImGui::GetTextLineHeightWithSpacing() * 1.5f}, {p0.x + sz.x, p0.y + sz.y},
        IM_COL32(13, 13, 16, 130));
  }
  ImGui::EndChild();
}

}  // namespace infercap::gui
