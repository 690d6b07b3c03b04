// Staged growth: year by year, cover the shortfall with whichever hardware class is cheaper
// over the horizon (greedy), keeping what was bought; compared with one kind from the start.

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "solver_internal.hpp"

namespace infercap::plan_detail {

// Staged growth: year by year, cover the shortfall with whichever pool best is cheaper over the
// horizon (greedy), keeping what was bought.
void solve_staged(const PlanInputs& in, Plan& plan, int* evaluated, int* verified, EvalMemo* memo) {
  const Pool& all = in.pools.front();
  const ModelSpec* model = find_model(in, all.model);
  PoolResult pr = solve_pool(in, all, *model, evaluated, verified, memo);
  plan.pools.push_back(pr);
  if (pr.ranked.empty()) {
    explain_infeasible(pr, plan);
    return;
  }
  // One option per hardware class: its best-ranked candidate.
  std::vector<CandidateRow> options;
  for (const auto& r : pr.ranked) {
    bool have = false;
    for (const auto& o : options) have = have || o.hw_class == r.hw_class;
    if (!have) options.push_back(r);
  }
  const int horizon = std::max(1, in.constraints.horizon_years);
  const double design0 = pool_design_qps(all);
  const double average0 = pool_average_qps(all);
  const double out_tokens = pool_mean_output(all);
  std::vector<int> replicas(options.size(), 0);
  std::vector<std::vector<int>> history(options.size(), std::vector<int>(horizon, 0));
  auto build = [&](const std::vector<std::vector<int>>& hist) {
    std::vector<CandidateRow> parts;
    for (size_t o = 0; o < options.size(); ++o) {
      int last = hist[o][horizon - 1];
      if (last == 0) continue;
      CandidateRow r = options[o];
      const HardwareSpec* hw = nullptr;
      for (const auto& h : in.space.hardware)
        if (h.name == r.hardware) hw = &h;
      const DevicePricing* dp = in.prices.find(r.hardware);
      const double host_w = dp != nullptr ? dp->server_host_w : 0.0;
      const int ru = dp != nullptr ? dp->rack_units_per_server : kDefaultRackUnits;
      const int per_server = std::max(1, hw->devices_per_server / r.tp);
      r.years.clear();
      double total_cap = 0;
      for (size_t p = 0; p < options.size(); ++p)
        total_cap += hist[p][horizon - 1] * options[p].max_qps_per_replica;
      for (int y = 0; y < horizon; ++y) {
        const double growth = std::pow(1.0 + in.constraints.load_growth_per_year, y);
        double cap_y = 0;
        for (size_t p = 0; p < options.size(); ++p)
          cap_y += hist[p][y] * options[p].max_qps_per_replica;
        const double share = cap_y > 0 ? hist[o][y] * r.max_qps_per_replica / cap_y : 0;
        FleetYear fy;
        fy.devices = static_cast<double>(hist[o][y]) * r.tp;
        fy.servers = std::ceil(static_cast<double>(hist[o][y]) / per_server);
        fy.rack_units = fy.servers * ru;
        // Load is shared in proportion to capacity; utilisation ~ load / capacity.
        const double avg = average0 * growth * share;
        const double util =
            hist[o][y] > 0 ? std::min(1.0, avg / (hist[o][y] * r.max_qps_per_replica)) : 0;
        fy.it_power_w = fy.devices * device_power_w(*hw, util) + fy.servers * host_w;
        fy.provisioned_w = fy.devices * hw->tdp_w + fy.servers * host_w;
        fy.device_busy_hours = fy.devices * kHoursPerYear;
        fy.requests = avg * kSecondsPerYear;
        fy.output_tokens = fy.requests * out_tokens;
        r.years.push_back(fy);
      }
      (void)total_cap;
      r.replicas = last;
      r.devices = last * r.tp;
      r.servers = static_cast<int>(r.years.back().servers);
      r.rack_units = static_cast<int>(r.years.back().rack_units);
      r.power_w = r.years.back().it_power_w;
      r.provisioned_w = r.years.back().provisioned_w;
      Footprint f;
      f.hardware = r.hardware;
      f.years = r.years;
      f.model_changes = in.constraints.model_changes_per_year * horizon;
      auto c = price_footprint(f, in.prices);
      if (c) r.cost = *c;
      parts.push_back(r);
    }
    return make_choice("staged growth", parts, in);
  };
  for (int y = 0; y < horizon; ++y) {
    const double need = design0 * std::pow(1.0 + in.constraints.load_growth_per_year, y);
    double cap = 0;
    for (size_t o = 0; o < options.size(); ++o) {
      history[o][y] = y > 0 ? history[o][y - 1] : 0;
      cap += history[o][y] * options[o].max_qps_per_replica;
    }
    if (cap >= need - 1e-9) continue;
    std::optional<std::vector<std::vector<int>>> best_h;
    double best_cost = std::numeric_limits<double>::infinity();
    for (size_t o = 0; o < options.size(); ++o) {
      auto h = history;
      const int add_n =
          static_cast<int>(std::ceil((need - cap) / options[o].max_qps_per_replica - 1e-9));
      for (int z = y; z < horizon; ++z) h[o][z] = history[o][y] + add_n;
      // Later years keep the current years' counts for the comparison.
      const double cost = build(h).cost.tco_usd;
      if (cost < best_cost) {
        best_cost = cost;
        best_h = h;
      }
    }
    history = *best_h;
    for (size_t o = 0; o < options.size(); ++o)
      for (int z = y + 1; z < horizon; ++z) history[o][z] = history[o][y];
  }
  // Redundancy on the last-bought option.
  if (in.constraints.redundancy > 0) {
    for (size_t o = options.size(); o-- > 0;) {
      if (history[o][horizon - 1] > 0) {
        for (int z = 0; z < horizon; ++z)
          if (history[o][z] > 0) history[o][z] += in.constraints.redundancy;
        break;
      }
    }
  }
  plan.recommended = build(history);
  std::string story;
  for (const auto& p : plan.recommended.cost.purchases) {
    story += fmt::format("{}year {}: buy {:.0f} x {}", story.empty() ? "" : "; ", p.year + 1,
                         p.devices, p.hardware);
  }
  // Against buying the final year's fleet on day one (the same hardware, bought at once).
  auto day_one = history;
  for (auto& h : day_one)
    for (int z = 0; z < horizon; ++z) h[z] = h[horizon - 1];
  const FleetChoice upfront = build(day_one);
  if (upfront.cost.tco_usd > plan.recommended.cost.tco_usd) {
    const auto [saved, total] = money_apart(upfront.cost.tco_usd - plan.recommended.cost.tco_usd,
                                            upfront.cost.tco_usd, in.prices);
    story += fmt::format("; saves {} against buying the final year's fleet on day one ({} TCO)",
                         saved, total);
  } else {
    story += "; buying the final year's fleet on day one would cost the same";
  }
  plan.recommended.note = story;
  if (auto single = best_fleet(in, {pr}, "one hardware kind from the start")) {
    plan.alternatives.push_back(*single);
    if (single->cost.tco_usd < plan.recommended.cost.tco_usd) {
      plan.alternatives.back().note = fmt::format(
          "saves {} against staged growth",
          money_apart(plan.recommended.cost.tco_usd - single->cost.tco_usd, 0, in.prices).first);
      std::swap(plan.recommended, plan.alternatives.back());
    }
  }
}

}  // namespace infercap::plan_detail
