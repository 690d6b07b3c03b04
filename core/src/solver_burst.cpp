// Burst strategy: a base pool sized for the mean load and a burst pool for what the base cannot
// carry at the peak. The burst pool is an owned buffer (CPUs by default; with burst hours stated
// also spare base hardware) or cloud capacity rented on demand for the burst hours only; the
// cheapest is compared with all on the base hardware sized for the peak.

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "solver_internal.hpp"

namespace infercap::plan_detail {

Pool with_rate(const Pool& p, double total_design_qps, double total_average_qps, std::string name,
               std::vector<HwClass> allowed) {
  Pool q = p;
  q.name = std::move(name);
  q.allowed_classes = std::move(allowed);
  const double d = pool_design_qps(p);
  const double a = pool_average_qps(p);
  for (auto& c : q.classes) {
    const double dc = design_qps(c.rate);
    const double ac = average_qps(c.rate);
    c.rate = ArrivalRate{};
    c.rate.peak_qps = d > 0 ? total_design_qps * dc / d : 0;
    c.rate.mean_qps = a > 0 ? total_average_qps * ac / a : 0;
  }
  return q;
}

void solve_burst(const PlanInputs& in, Plan& plan, int* evaluated, int* verified, EvalMemo* memo) {
  // Base: the mean load on the base classes. Buffer: what the base cannot carry at the peak.
  const Pool& all = in.pools.front();
  const ModelSpec* model = find_model(in, all.model);
  const double design = pool_design_qps(all);
  const double average = pool_average_qps(all);
  Pool base = with_rate(all, average, average, all.name + " base", in.burst_base_classes);
  PoolResult base_r = solve_pool(in, base, *model, evaluated, verified, memo);
  Pool peak_all = with_rate(all, design, average, all.name + " all at peak", in.burst_base_classes);
  PoolResult alt_r = solve_pool(in, peak_all, *model, evaluated, verified, memo);
  std::optional<FleetChoice> alt = best_fleet(in, {alt_r}, "all on the base hardware at peak");
  plan.pools.push_back(base_r);
  if (base_r.ranked.empty()) {
    explain_infeasible(base_r, plan);
    if (alt) plan.alternatives.push_back(*alt);
    return;
  }
  const CandidateRow& b = base_r.ranked.front();
  const double base_capacity =
      std::max(0, b.replicas - in.constraints.redundancy) * b.max_qps_per_replica;
  // The buffer carries the excess only at the peak: its average load is ~0 (idle power).
  const double growth_end = std::pow(1.0 + in.constraints.load_growth_per_year,
                                     std::max(1, in.constraints.horizon_years) - 1);
  const double excess = std::max(0.0, design - base_capacity / growth_end);
  // The buffer works only in the burst hours when they are stated (energy follows them), and
  // idles otherwise.
  const double burst_share =
      in.burst_hours_per_year > 0 ? std::min(1.0, in.burst_hours_per_year / kHoursPerYear) : 0;
  const double buffer_average = std::max(1e-9, excess * burst_share);
  std::vector<FleetChoice> options;
  std::string label_note = fmt::format(
      "base carries {} req/s (mean load {}); the burst pool covers {} req/s more at the {} req/s "
      "peak",
      rate(base_capacity), rate(average), rate(excess), rate(design));
  if (excess <= 0) {
    options.push_back(make_choice("base only (it carries the peak)", {b}, in));
  } else {
    // Owned buffers: the stated buffer classes (CPUs by default), and with burst hours stated
    // also the base classes (spare GPUs), each priced as hardware with what the book owns.
    std::vector<std::pair<std::string, std::vector<HwClass>>> buffers = {
        {"base + burst buffer", in.burst_buffer_classes}};
    if (in.burst_hours_per_year > 0 && in.burst_buffer_classes != in.burst_base_classes)
      buffers.push_back({"base + burst buffer on the base hardware", in.burst_base_classes});
    std::optional<FleetChoice> best_cloud;
    double best_cloud_usd = 0;
    for (const auto& [label, classes] : buffers) {
      Pool buffer = with_rate(all, excess, buffer_average, all.name + " burst buffer", classes);
      PoolResult buf_r = solve_pool(in, buffer, *model, evaluated, verified, memo);
      plan.pools.push_back(buf_r);
      if (buf_r.ranked.empty()) {
        explain_infeasible(buf_r, plan);
        continue;
      }
      options.push_back(make_choice(label, {b, buf_r.ranked.front()}, in));
      // Cloud on demand: the cheapest ranked buffer with a cloud price, rented for the burst
      // hours only, every year of the horizon.
      if (in.burst_hours_per_year <= 0) continue;
      const CandidateRow* cloud = nullptr;
      double cloud_usd = 0;
      const double years = std::max(1, in.constraints.horizon_years);
      for (const auto& r : buf_r.ranked) {
        const DevicePricing* dp = in.prices.find(r.hardware);
        if (dp == nullptr || dp->cloud_usd_per_device_hour <= 0) continue;
        const double usd =
            r.devices * dp->cloud_usd_per_device_hour * in.burst_hours_per_year * years;
        if (cloud == nullptr || usd < cloud_usd) {
          cloud = &r;
          cloud_usd = usd;
        }
      }
      if (cloud == nullptr || (best_cloud && cloud_usd >= best_cloud_usd)) continue;
      best_cloud_usd = cloud_usd;
      FleetChoice c = make_choice("base + cloud on demand for the burst hours", {b}, in);
      CandidateRow rented = *cloud;
      rented.pool = all.name + " cloud burst";
      rented.cost = CostBreakdown{};
      rented.cost.cloud_usd = rented.cost.tco_usd = cloud_usd;
      rented.cost.opex_per_year_usd = cloud_usd / years;
      rented.cost.cloud_available = true;
      rented.power_w = 0;  // the provider's power, in its price
      rented.years.clear();
      c.parts.push_back(rented);
      c.cost.tco_usd += cloud_usd;
      c.cost.opex_per_year_usd += cloud_usd / years;
      c.devices += rented.devices;
      // An hourly price needs its cents.
      const double hourly = to_currency(in.prices.find(rented.hardware)->cloud_usd_per_device_hour,
                                        in.prices.display_currency, in.prices);
      const bool cny = in.prices.display_currency == Currency::cny;
      c.note = fmt::format(
          "{} x {} rented {} h a year at {}{:.2f}{} per device-hour: {} over {} years",
          rented.devices, rented.hardware, sig_fixed(in.burst_hours_per_year, 3), cny ? "" : "$",
          hourly, cny ? " CNY" : "", money(cloud_usd, in.prices), years);
      best_cloud = c;
    }
    if (best_cloud) options.push_back(*best_cloud);
  }
  if (options.empty()) {
    // No buffer meets every constraint (a CPU's prompt rate below the TTFT SLA, say): the plan
    // is still answered when the base hardware sized for the peak is, and says why no buffer.
    if (alt && alt->feasible && !plan.infeasible_reason.empty()) {
      alt->note = (alt->note.empty() ? "" : alt->note + "; ") +
                  "no burst buffer meets every constraint: " + plan.infeasible_reason;
      plan.infeasible_reason.clear();
      plan.recommended = *alt;
    } else if (alt) {
      plan.alternatives.push_back(*alt);
    }
    plan.pools.push_back(alt_r);
    return;
  }
  std::sort(options.begin(), options.end(), [](const FleetChoice& x, const FleetChoice& y) {
    return x.cost.tco_usd < y.cost.tco_usd;
  });
  FleetChoice burst = options.front();
  burst.note = label_note + (burst.note.empty() ? "" : "; " + burst.note);
  if (alt && alt->cost.tco_usd < burst.cost.tco_usd) {
    alt->note = fmt::format("saves {} against the cheapest burst pool ({})",
                            money_apart(burst.cost.tco_usd - alt->cost.tco_usd, 0, in.prices).first,
                            burst.label);
    plan.recommended = *alt;
    for (const auto& o : options) plan.alternatives.push_back(o);
  } else {
    if (alt) {
      const auto [saved, peak] =
          money_apart(alt->cost.tco_usd - burst.cost.tco_usd, alt->cost.tco_usd, in.prices);
      burst.note += fmt::format(
          "; saves {} against sizing the base hardware for the peak ({} TCO for {} x {})", saved,
          peak, alt->devices, alt->parts.empty() ? std::string() : alt->parts.front().hardware);
    }
    plan.recommended = burst;
    for (size_t i = 1; i < options.size(); ++i) plan.alternatives.push_back(options[i]);
    if (alt) plan.alternatives.push_back(*alt);
  }
  plan.pools.push_back(alt_r);
}

}  // namespace infercap::plan_detail
