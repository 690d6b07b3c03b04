// Fleets across pools: the chosen fleet and its totals, fleet-wide caps, and the words for a
// pool no candidate satisfies.

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "solver_internal.hpp"

namespace infercap::plan_detail {

FleetChoice make_choice(std::string label, std::vector<CandidateRow> parts, const PlanInputs& in) {
  FleetChoice f;
  f.label = std::move(label);
  f.parts = std::move(parts);
  f.feasible = !f.parts.empty();
  std::vector<Footprint> fps;
  for (const auto& p : f.parts) {
    f.feasible = f.feasible && p.feasible;
    f.devices += p.devices;
    f.servers += p.servers;
    f.power_w += p.power_w;
    Footprint fp;
    fp.hardware = p.hardware;
    fp.role = p.pool;
    fp.years = p.years;
    fp.model_changes =
        in.constraints.model_changes_per_year * std::max(1, in.constraints.horizon_years);
    fps.push_back(fp);
  }
  // Priced together: porting is shared by family and volume tiers see the whole fleet.
  auto c = price_fleet(fps, in.prices);
  if (c) f.cost = *c;
  // NaN compares false with every total: such a fleet must never win a comparison.
  if (!std::isfinite(f.cost.tco_usd)) {
    f.feasible = false;
    f.note = "the fleet's total cost of ownership is not a finite amount";
  }
  return f;
}

// Fleet-level constraints on a multi-part choice (budgets, power, racks apply to the sum).
void fleet_constraints(const PlanInputs& in, FleetChoice& f) {
  const Constraints& k = in.constraints;
  std::vector<std::string> bad;
  // Every objective is held to every cap (the max_qps_* ones size within them already).
  if (k.capex_budget_usd > 0 && f.cost.capex_usd > k.capex_budget_usd) {
    bad.push_back(fmt::format("capex {} exceeds the {} budget by {}",
                              money(f.cost.capex_usd, in.prices),
                              money(k.capex_budget_usd, in.prices),
                              money(f.cost.capex_usd - k.capex_budget_usd, in.prices)));
  }
  const double annual = f.cost.tco_usd / std::max(1, k.horizon_years);
  if (k.annual_budget_usd > 0 && annual > k.annual_budget_usd) {
    bad.push_back(fmt::format("{} a year exceeds the {} annual budget by {}",
                              money(annual, in.prices), money(k.annual_budget_usd, in.prices),
                              money(annual - k.annual_budget_usd, in.prices)));
  }
  double prov = 0;
  int ru = 0;
  for (const auto& p : f.parts) {
    prov += p.provisioned_w;
    ru += p.rack_units;
  }
  if (k.power_cap_w > 0 && prov > k.power_cap_w) {
    bad.push_back(fmt::format("nameplate power {:.1f} kW exceeds the {:.1f} kW cap", prov / 1e3,
                              k.power_cap_w / 1e3));
  }
  if (k.rack_units > 0 && ru > k.rack_units)
    bad.push_back(fmt::format("{} rack units exceed the {} available", ru, k.rack_units));
  if (!bad.empty()) {
    f.feasible = false;
    for (const auto& b : bad) f.note += (f.note.empty() ? "" : "; ") + b;
  }
}

// The best choice over pools: each pool's best, or (no mixing) the best common hardware.
std::optional<FleetChoice> best_fleet(const PlanInputs& in, const std::vector<PoolResult>& pools,
                                      const std::string& label) {
  if (pools.empty()) return std::nullopt;
  for (const auto& p : pools)
    if (p.ranked.empty()) return std::nullopt;
  if (in.space.allow_mixed || pools.size() == 1) {
    std::vector<CandidateRow> parts;
    parts.reserve(pools.size());
    for (const auto& p : pools) parts.push_back(p.ranked.front());
    return make_choice(label, parts, in);
  }
  std::optional<FleetChoice> best;
  for (const auto& hw : in.space.hardware) {
    std::vector<CandidateRow> parts;
    for (const auto& p : pools) {
      for (const auto& r : p.ranked) {
        if (r.hardware == hw.name) {
          parts.push_back(r);
          break;
        }
      }
    }
    if (parts.size() != pools.size()) continue;
    FleetChoice f = make_choice(label, parts, in);
    if (!best || f.cost.tco_usd < best->cost.tco_usd) best = f;
  }
  return best;
}

// Suggestions for an infeasible pool: the closest rejected candidates' fixes by constraint.
void explain_infeasible(const PoolResult& pr, Plan& plan) {
  // Among rejected rows, the one that misses by the least, per constraint kind.
  std::map<std::string, const CandidateRow*> nearest;
  for (const auto& r : pr.rejected) {
    const Constraint* b = r.binding_constraint();
    if (b == nullptr) continue;
    // A candidate failing only on money or site limits is nearer to feasible than one that
    // does not run or fit; keep the least-missing per kind.
    auto it = nearest.find(b->name);
    if (it == nearest.end() || b->margin > it->second->binding_constraint()->margin)
      nearest[b->name] = &r;
  }
  // Constraint kinds in the order a candidate meets them, furthest first: a candidate stopped
  // by a cap has already run, fit, met the SLA and been priced. The kind that stops the
  // furthest-reaching candidates is what really binds the question; the nearest candidate is
  // chosen among those, like with like.
  static const std::vector<std::string> order = {
      "design_load",   "capex_budget", "annual_budget", "power",   "rack", "priced",
      "simulated_sla", "sla",          "memory",        "serving", "runs"};
  const CandidateRow* first = nullptr;
  std::string binding_kind;
  std::vector<std::string> fixes;
  for (const auto& kind : order) {
    auto it = nearest.find(kind);
    if (it == nearest.end()) continue;
    const CandidateRow& r = *it->second;
    const Constraint& c = *r.binding_constraint();
    if (first == nullptr) {
      first = &r;
      binding_kind = kind;
    }
    if (!c.fix.empty() && kind != "runs")
      fixes.push_back(fmt::format("{} ({} {} TP{})", c.fix, r.hardware, r.precision, r.tp));
    plan.suggestions.push_back(fmt::format("{} ({} {} TP{}, {}): {}{}", pr.pool.name, r.hardware,
                                           r.precision, r.tp, r.stack, c.message,
                                           c.fix.empty() ? "" : "; " + c.fix));
  }
  if (first != nullptr && plan.infeasible_reason.empty()) {
    const Constraint& c = *first->binding_constraint();
    int stopped = 0;
    for (const auto& r : pr.rejected) {
      const Constraint* b = r.binding_constraint();
      stopped += b != nullptr && b->name == binding_kind ? 1 : 0;
    }
    const int total = static_cast<int>(pr.rejected.size());
    if (binding_kind == "sla" && !c.quantity.empty() && c.value > 0) {
      // An SLA below the physical floor: no amount of hardware meets it. Name the fastest.
      const auto [limit, floor] = seconds_apart(c.limit, c.value);
      plan.infeasible_reason = fmt::format(
          "pool '{}': {} <= {} is below the floor of every {}: the fastest is {} ({} TP{}, {}) "
          "at {} even at vanishing load; {}",
          pr.pool.name, c.quantity, limit,
          stopped == total ? std::string("candidate")
                           : fmt::format("candidate that runs and fits ({} of {})", stopped, total),
          first->hardware, first->precision, first->tp, first->stack, floor, c.fix);
    } else {
      std::string all;
      for (size_t i = 0; i < fixes.size() && i < 3; ++i) all += (i == 0 ? "" : ", or ") + fixes[i];
      plan.infeasible_reason = fmt::format(
          "pool '{}': no candidate meets every constraint; {} of {} stop at '{}', the furthest "
          "any gets; the nearest of them, {} ({} TP{}), {} (misses by {}%){}",
          pr.pool.name, stopped, total, binding_kind, first->hardware, first->precision, first->tp,
          c.message, -c.margin * 100, all.empty() ? "" : ". To make it feasible: " + all);
    }
  }
  if (plan.infeasible_reason.empty()) {
    plan.infeasible_reason =
        fmt::format("pool '{}': no candidate in the search space", pr.pool.name);
  }
}

}  // namespace infercap::plan_detail
