// The Plan tab's decision charts, on ImDrawList through plot.hpp: the TCO breakdown per
// candidate, the load against the fleet's capacity (hourly, per year with the purchases), and the
// serving-level batch knee. Money in the scenario's display currency.
#include <fmt/core.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "app.hpp"
#include "plot.hpp"

namespace infercap::gui {

namespace {

struct CostPart {
  const char* label;
  ImU32 col;
  double CostBreakdown::*field;
};
const CostPart kCostParts[] = {
    {"capital", palette::blue, &CostBreakdown::capital_usd},
    {"energy", palette::orange, &CostBreakdown::energy_usd},
    {"hosting", palette::purple, &CostBreakdown::hosting_usd},
    {"maintenance", palette::green, &CostBreakdown::maintenance_usd},
    {"operations", palette::yellow, &CostBreakdown::ops_usd},
    {"porting", palette::red, &CostBreakdown::porting_usd},
};

std::string money_short(double shown, const PriceBook& b) {
  return fmt_si(shown, "", 3) + " " + std::string(currency_name(b.display_currency));
}

// The summed hourly load of some request classes (a class without a curve is flat at its
// average), in requests/s, hour 0..23.
std::vector<double> hourly_load(const std::vector<RequestClass>& classes) {
  std::vector<double> h(24, 0.0);
  for (const auto& c : classes) {
    for (int i = 0; i < 24; ++i) {
      h[static_cast<std::size_t>(i)] += c.rate.hourly_qps.size() == 24
                                            ? c.rate.hourly_qps[static_cast<std::size_t>(i)]
                                            : average_qps(c.rate);
    }
  }
  return h;
}

// Requests/s the part's replicas carry within the SLA, spares left out.
double serving_capacity(const CandidateRow& r, int redundancy, double devices) {
  const double per_replica_devices = r.replicas > 0 ? double(r.devices) / r.replicas : 1.0;
  const double replicas = devices / std::max(per_replica_devices, 1.0) - redundancy;
  return std::max(0.0, replicas) * r.max_qps_per_replica;
}

}  // namespace

int tco_chart(const char* id, const std::vector<TcoBar>& bars, const PriceBook& b, float width,
              int selected) {
  if (bars.empty()) return -1;
  if (width <= 0) width = ImGui::GetContentRegionAvail().x;
  const float lh = ImGui::GetTextLineHeight();
  const float row_h = lh + 6;
  float label_w = 0;
  for (const auto& r : bars) label_w = std::max(label_w, ImGui::CalcTextSize(r.label.c_str()).x);
  label_w += 10;
  double vmax = 0;
  double present[6] = {};
  for (const auto& r : bars) {
    vmax = std::max(vmax, to_currency(r.cost.tco_usd, b.display_currency, b));
    for (int k = 0; k < 6; ++k) present[k] += r.cost.*kCostParts[k].field;
  }
  if (!(vmax > 0)) return -1;
  PlotAxis axis{0, vmax * 1.05, false, "", nullptr};
  const std::vector<double> ticks = tick_values(axis);
  const float value_w = ImGui::CalcTextSize("000 k USD").x + 10;
  const float bar_w = std::max(40.0f, width - label_w - value_w);
  const ImVec2 size{width, row_h * static_cast<float>(bars.size()) + lh * 2 + 8};
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton(id, size);
  const bool hovered = ImGui::IsItemHovered();
  const bool clicked = ImGui::IsItemClicked();
  int hit = -1;
  if (ImGui::IsItemVisible()) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
    const float x0 = o.x + label_w;
    auto px = [&](double v) { return x0 + static_cast<float>(v / axis.max) * bar_w; };
    const float y_axis = o.y + row_h * static_cast<float>(bars.size()) + 2;
    for (double t : ticks) {
      dl->AddLine({px(t), o.y}, {px(t), y_axis}, palette::grid);
      const std::string s = fmt_si(t, "", 3);
      const float tw = ImGui::CalcTextSize(s.c_str()).x;
      dl->AddText({px(t) - tw / 2, y_axis + 2}, text_col, s.c_str());
    }
    const std::string axis_title = "TCO over the horizon (" +
                                   std::string(currency_name(b.display_currency)) +
                                   "), by what it is spent on";
    dl->AddText({x0, y_axis + lh + 4}, text_col, axis_title.c_str());
    const ImVec2 m = ImGui::GetIO().MousePos;
    for (std::size_t i = 0; i < bars.size(); ++i) {
      const float y = o.y + row_h * static_cast<float>(i);
      if (static_cast<int>(i) == selected)
        dl->AddRectFilled({o.x, y}, {o.x + width, y + row_h}, IM_COL32(255, 255, 255, 22));
      dl->AddText({o.x, y + 3}, text_col, bars[i].label.c_str());
      double acc = 0;
      for (const auto& part : kCostParts) {
        const double v = to_currency(bars[i].cost.*part.field, b.display_currency, b);
        if (v <= 0) continue;
        dl->AddRectFilled({px(acc), y + 3}, {px(acc + v), y + row_h - 3}, part.col);
        acc += v;
      }
      const std::string total = money_short(acc, b);
      dl->AddText({px(acc) + 4, y + 3}, text_col, total.c_str());
      if (hovered && m.y >= y && m.y < y + row_h) hit = static_cast<int>(i);
    }
    if (hit >= 0) {
      const auto& c = bars[static_cast<std::size_t>(hit)].cost;
      std::string tip = bars[static_cast<std::size_t>(hit)].label + "\n";
      for (const auto& part : kCostParts) {
        const double v = c.*part.field;
        tip += fmt::format("{:<12} {}  ({:.0f}%)\n", part.label,
                           money_short(to_currency(v, b.display_currency, b), b),
                           c.tco_usd > 0 ? 100 * v / c.tco_usd : 0.0);
      }
      tip += "TCO          " + money_short(to_currency(c.tco_usd, b.display_currency, b), b);
      ImGui::SetTooltip("%s", tip.c_str());
    }
  }
  bool first = true;
  for (int k = 0; k < 6; ++k) {
    if (present[k] <= 0) continue;  // legend of what is present only
    if (!first) ImGui::SameLine();
    first = false;
    legend_item(kCostParts[k].col, kCostParts[k].label);
  }
  return clicked ? hit : -1;
}

void load_chart(const char* id, const PlanOutcome& o, float width) {
  if (!o.plan || o.plan->recommended.parts.empty()) return;
  const Plan& pl = *o.plan;
  const Constraints& k = o.constraints;
  const int years = std::max(1, k.horizon_years);
  const double g = k.load_growth_per_year;
  const double growth_final = std::pow(1 + g, years - 1);
  const ImU32 cap_col[] = {palette::green, palette::orange, palette::purple, palette::yellow};
  const ImU32 bar_col[] = {IM_COL32(100, 210, 120, 150), IM_COL32(255, 160, 60, 150),
                           IM_COL32(190, 130, 250, 150), IM_COL32(240, 220, 90, 150)};
  // Parts that carry one load together form a group: a pool's parts (a staged fleet adds
  // hardware to the same pool), or every part of a burst plan (base for the mean, buffer for the
  // rest of the peak). Their capacities stack.
  struct Group {
    std::string title;
    std::vector<const CandidateRow*> parts;
    std::vector<double> load;  // req/s per hour, final year
    double design_final = 0;
  };
  std::vector<Group> groups;
  if (o.strategy == FleetStrategy::burst) {
    Group gr;
    gr.title = "base plus burst buffer";
    for (const auto& p : pl.recommended.parts) {
      gr.parts.push_back(&p);
      gr.design_final += p.design_qps;
    }
    gr.load = hourly_load(o.classes);
    groups.push_back(std::move(gr));
  } else {
    for (const auto& p : pl.recommended.parts) {
      Group* gr = nullptr;
      for (auto& x : groups)
        if (x.parts.front()->pool == p.pool) gr = &x;
      if (gr == nullptr) {
        groups.push_back({});
        gr = &groups.back();
        gr->title = "pool " + p.pool;
        for (const auto& pool : pl.pools)
          if (pool.pool.name == p.pool) gr->load = hourly_load(pool.pool.classes);
        if (gr->load.empty()) gr->load = hourly_load(o.classes);
      }
      gr->parts.push_back(&p);
      gr->design_final = std::max(gr->design_final, p.design_qps);
    }
  }
  const PlotAxis hours{0, 23, false, "hour of the day",
                       [](double v) { return fmt::format("{:02.0f}:00", v); }};
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    Group& gr = groups[gi];
    for (double& v : gr.load) v *= growth_final;
    std::vector<std::pair<std::string, double>> levels;  // cumulative capacity
    double acc = 0;
    for (const CandidateRow* p : gr.parts) {
      acc += serving_capacity(*p, k.redundancy, p->devices);
      levels.emplace_back(std::to_string(p->replicas) + " x " + p->hardware, acc);
    }
    double ymax = std::max(acc, gr.design_final);
    for (double v : gr.load) ymax = std::max(ymax, v);
    if (!(ymax > 0)) continue;
    ImGui::Text("Load against capacity in year %d: %s", years, gr.title.c_str());
    Plot p;
    const PlotAxis ya{0, ymax * 1.15, false, "requests/s",
                      [](double v) { return fmt_si(v, "", 3); }};
    const std::string pid = std::string(id) + std::to_string(gi);
    if (p.begin(pid.c_str(), {width, ImGui::GetTextLineHeight() * 12}, hours, ya)) {
      std::vector<double> xs(24);
      for (int i = 0; i < 24; ++i) xs[static_cast<std::size_t>(i)] = i;
      for (std::size_t j = 0; j < levels.size(); ++j)
        p.segment(0, levels[j].second, 23, levels[j].second, cap_col[j % 4], 2.0f, j > 0);
      // The load capacity is sized for (the peak, or the busiest hour), growth included: a
      // class without an hourly curve is flat at its average, so the peak must be drawn apart.
      p.segment(0, gr.design_final, 23, gr.design_final, palette::blue, 1.5f, true);
      p.line(xs, gr.load, palette::blue, 2.0f);
      for (int i = 0; i < 24; ++i) {
        const double v = gr.load[static_cast<std::size_t>(i)];
        if (v > acc * (1 + 1e-9)) p.marker(i, v, palette::red, Marker::circle, 4);
      }
      if (p.hovered()) {
        const int h = std::clamp(static_cast<int>(std::lround(p.unmap_x(p.mouse().x))), 0, 23);
        p.vline(h, palette::faint);
        const double v = gr.load[static_cast<std::size_t>(h)];
        std::string tip = fmt::format("{:02d}:00  load {} req/s", h, fmt_si(v, "", 3));
        for (const auto& c : levels)
          tip += fmt::format("\nup to {}: {} req/s", c.first, fmt_si(c.second, "", 3));
        tip += fmt::format("\nheadroom {:.0f}%", acc > 0 ? 100 * (1 - v / acc) : 0.0);
        ImGui::SetTooltip("%s", tip.c_str());
      }
      p.end();
    }
    legend_item(palette::blue, "hourly load (dashed: the design load)");
    for (std::size_t j = 0; j < levels.size(); ++j) {
      ImGui::SameLine();
      const std::string l = (j == 0 ? "capacity of " : "+ ") + levels[j].first;
      legend_item(cap_col[j % 4], l.c_str());
    }
    ImGui::TextDisabled(
        "growth included; capacity is what the replicas carry within the SLA, "
        "spares (N+%d) excluded",
        k.redundancy);

    // Year by year: the design load against the installed capacity, purchases marked.
    const int n = static_cast<int>(gr.parts.front()->years.size());
    if (n < 2) continue;
    std::vector<double> xs, load;
    std::vector<std::vector<double>> cap(gr.parts.size());
    double ytop = 0;
    for (int y = 0; y < n; ++y) {
      xs.push_back(y + 1);
      load.push_back(gr.design_final / std::pow(1 + g, n - 1 - y));
      double sum = 0;
      for (std::size_t j = 0; j < gr.parts.size(); ++j) {
        const auto& yrs = gr.parts[j]->years;
        const double dev =
            y < static_cast<int>(yrs.size()) ? yrs[static_cast<std::size_t>(y)].devices : 0;
        cap[j].push_back(serving_capacity(*gr.parts[j], k.redundancy, dev));
        sum += cap[j].back();
      }
      ytop = std::max({ytop, load.back(), sum});
    }
    ImGui::Text("Year by year: design load against installed capacity (%s)", gr.title.c_str());
    const PlotAxis xa{0.5, n + 0.5, false, "year", [](double v) {
                        return v == std::floor(v) ? fmt::format("{:.0f}", v) : std::string();
                      }};
    const PlotAxis yb{0, ytop * 1.3, false, "requests/s",
                      [](double v) { return fmt_si(v, "", 3); }};
    Plot q;
    const std::string qid = std::string(id) + "_years" + std::to_string(gi);
    if (q.begin(qid.c_str(), {width, ImGui::GetTextLineHeight() * 11}, xa, yb)) {
      ImDrawList* dl = q.draw_list();
      for (int y = 0; y < n; ++y) {
        const double x = xs[static_cast<std::size_t>(y)];
        double base = 0;
        std::string bought;
        for (std::size_t j = 0; j < gr.parts.size(); ++j) {
          const double c = cap[j][static_cast<std::size_t>(y)];
          if (c > 0)
            dl->AddRectFilled(q.map(x - 0.3, base + c), q.map(x + 0.3, base), bar_col[j % 4]);
          base += c;
          const auto& yrs = gr.parts[j]->years;
          const double before = y > 0 ? yrs[static_cast<std::size_t>(y - 1)].devices : 0;
          const double now =
              y < static_cast<int>(yrs.size()) ? yrs[static_cast<std::size_t>(y)].devices : 0;
          if (now - before > 0.5) {
            bought += fmt::format("{}+{:.0f} {}", bought.empty() ? "" : ", ", now - before,
                                  gr.parts[j]->hardware);
          }
        }
        if (!bought.empty()) {
          q.marker(x, base, palette::yellow, Marker::diamond, 4);
          const ImVec2 at = q.map(x - 0.3, base);
          dl->AddText({at.x, at.y - ImGui::GetTextLineHeight() - 4}, palette::yellow,
                      bought.c_str());
        }
      }
      q.line(xs, load, palette::blue, 2.0f);
      for (std::size_t y = 0; y < xs.size(); ++y) q.marker(xs[y], load[y], palette::blue);
      if (q.hovered()) {
        const int y = std::clamp(static_cast<int>(std::lround(q.unmap_x(q.mouse().x))), 1, n) - 1;
        std::string tip = fmt::format("year {}: design load {} req/s", y + 1,
                                      fmt_si(load[static_cast<std::size_t>(y)], "", 3));
        for (std::size_t j = 0; j < gr.parts.size(); ++j) {
          const auto& yrs = gr.parts[j]->years;
          tip += fmt::format(
              "\n{}: {:.0f} devices, {} req/s", gr.parts[j]->hardware,
              y < static_cast<int>(yrs.size()) ? yrs[static_cast<std::size_t>(y)].devices : 0.0,
              fmt_si(cap[j][static_cast<std::size_t>(y)], "", 3));
        }
        ImGui::SetTooltip("%s", tip.c_str());
      }
      q.end();
    }
    legend_item(palette::blue, "design load");
    for (std::size_t j = 0; j < gr.parts.size(); ++j) {
      ImGui::SameLine();
      legend_item(bar_col[j % 4], (gr.parts[j]->hardware + " installed").c_str());
    }
    ImGui::SameLine();
    legend_item(palette::yellow, "purchase");
  }
}

void knee_chart(const char* id, const CandidateRow& part, const KneeResult& k, float width) {
  if (k.points.size() < 2) return;
  double x0 = 1e300, x1 = 0, t1 = 0, l0 = 1e300, l1 = 0;
  for (const auto& pt : k.points) {
    x0 = std::min(x0, double(pt.max_seqs));
    x1 = std::max(x1, double(pt.max_seqs));
    t1 = std::max(t1, pt.output_tokens_per_s);
    if (pt.p99_e2e_s > 0) {
      l0 = std::min(l0, pt.p99_e2e_s);
      l1 = std::max(l1, pt.p99_e2e_s);
    }
  }
  if (!(t1 > 0) || !(l1 > 0)) return;
  ImGui::Text("Batch knee: %s %s %s TP %d (%s), closed loop at each batch cap",
              part.hardware.c_str(), part.precision.c_str(), part.stack.c_str(), part.tp,
              part.pool.c_str());
  const PlotAxis xa{x0, x1, true, "max batch (sequences in flight)",
                    [](double v) { return fmt::format("{:.0f}", v); }};
  const PlotAxis ya{0, t1 * 1.15, false, "output tokens/s",
                    [](double v) { return fmt_si(v, "", 3); }};
  const PlotAxis y2{l0 / 1.5, l1 * 1.5, true, "P99 end-to-end",
                    [](double v) { return fmt_q(v, Dim::seconds, 2); }};
  Plot p;
  if (p.begin(id, {width, ImGui::GetTextLineHeight() * 13}, xa, ya, &y2)) {
    std::vector<double> xs, tp, lat;
    for (const auto& pt : k.points) {
      xs.push_back(pt.max_seqs);
      tp.push_back(pt.output_tokens_per_s);
      lat.push_back(pt.p99_e2e_s);
    }
    p.line(xs, tp, palette::blue, 2.0f);
    p.line(xs, lat, palette::orange, 2.0f, true);
    for (std::size_t i = 0; i < xs.size(); ++i) {
      p.marker(xs[i], tp[i], palette::blue);
      p.marker(xs[i], lat[i], palette::orange, Marker::square, 3.5f, true);
    }
    const std::string knee = fmt::format("knee: batch {}", k.knee_batch);
    p.vline(k.knee_batch, palette::green, knee.c_str(), true, 0);
    if (k.crossing_index >= 0 && k.crossing_index < static_cast<int>(xs.size())) {
      const std::string cross =
          fmt::format("latency outgrows throughput: {}",
                      k.points[static_cast<std::size_t>(k.crossing_index)].max_seqs);
      p.vline(xs[static_cast<std::size_t>(k.crossing_index)], palette::red, cross.c_str(), true, 1);
    }
    if (p.hovered()) {
      const double mx = p.unmap_x(p.mouse().x);
      std::size_t best = 0;
      for (std::size_t i = 1; i < xs.size(); ++i)
        if (std::fabs(std::log(xs[i] / mx)) < std::fabs(std::log(xs[best] / mx))) best = i;
      const auto& pt = k.points[best];
      ImGui::SetTooltip(
          "batch %d: %s output tokens/s, %s req/s\nP99 E2E %s, TTFT %s, TPOT %s", pt.max_seqs,
          fmt_si(pt.output_tokens_per_s, "", 3).c_str(), fmt_si(pt.throughput_rps, "", 3).c_str(),
          fmt_q(pt.p99_e2e_s, Dim::seconds).c_str(), fmt_q(pt.p99_ttft_s, Dim::seconds).c_str(),
          fmt_q(pt.p99_tpot_s, Dim::seconds).c_str());
    }
    p.end();
  }
  legend_item(palette::blue, "output tokens/s (left)");
  ImGui::SameLine();
  legend_item(palette::orange, "P99 end-to-end (right)");
  ImGui::SameLine();
  legend_item(palette::green, "knee");
}

}  // namespace infercap::gui
