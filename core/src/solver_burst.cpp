// Burst strategy: a base pool sized for the mean load and a buffer (CPU by default) for what
// the base cannot carry at the peak, compared with all on the base hardware at the peak.

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

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

void solve_burst(const PlanInputs& in, Plan& plan, int* evaluated, int* verified) {
  // Base: the mean load on the base classes. Buffer: what the base cannot carry at the peak.
  const Pool& all = in.pools.front();
  const ModelSpec* model = find_model(in, all.model);
  const double design = pool_design_qps(all);
  const double average = pool_average_qps(all);
  Pool base = with_rate(all, average, average, all.name + " base", in.burst_base_classes);
  PoolResult base_r = solve_pool(in, base, *model, evaluated, verified);
  Pool peak_all = with_rate(all, design, average, all.name + " all at peak", in.burst_base_classes);
  PoolResult alt_r = solve_pool(in, peak_all, *model, evaluated, verified);
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
  std::vector<CandidateRow> parts = {b};
  if (excess > 0) {
    Pool buffer = with_rate(all, excess, 1e-9, all.name + " burst buffer", in.burst_buffer_classes);
    PoolResult buf_r = solve_pool(in, buffer, *model, evaluated, verified);
    plan.pools.push_back(buf_r);
    if (buf_r.ranked.empty()) {
      explain_infeasible(buf_r, plan);
      if (alt) plan.alternatives.push_back(*alt);
      return;
    }
    parts.push_back(buf_r.ranked.front());
  }
  FleetChoice burst = make_choice("base + burst buffer", parts, in);
  burst.note = fmt::format(
      "base carries {:.3g} req/s (mean load {:.3g}); buffer covers {:.3g} req/s "
      "more at the {:.3g} req/s peak",
      base_capacity, average, excess, design);
  if (alt && alt->cost.tco_usd < burst.cost.tco_usd) {
    alt->note =
        fmt::format("saves {} against a base pool plus a burst buffer",
                    money_apart(burst.cost.tco_usd - alt->cost.tco_usd, 0, in.prices).first);
    plan.recommended = *alt;
    plan.alternatives.push_back(burst);
  } else {
    if (alt) {
      const auto [saved, peak] =
          money_apart(alt->cost.tco_usd - burst.cost.tco_usd, alt->cost.tco_usd, in.prices);
      burst.note += fmt::format(
          "; saves {} against sizing the base hardware for the peak ({} TCO for {} x {})", saved,
          peak, alt->devices, alt->parts.empty() ? std::string() : alt->parts.front().hardware);
    }
    plan.recommended = burst;
    if (alt) plan.alternatives.push_back(*alt);
  }
  plan.pools.push_back(alt_r);
}

}  // namespace infercap::plan_detail
