// Objectives: the ranking key of each, and the sizing an objective imposes. min_tco and
// min_energy size every candidate for the design load and check the caps; the max_qps_*
// objectives size every candidate by what all stated caps buy at once (capex budget, annual
// budget, power cap, rack units) and compare that with the design load.

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "solver_internal.hpp"

namespace infercap {

std::string_view objective_name(Objective o) {
  switch (o) {
    case Objective::min_tco:
      return "min_tco";
    case Objective::max_qps_within_budget:
      return "max_qps_within_budget";
    case Objective::max_qps_within_power:
      return "max_qps_within_power";
    case Objective::max_qps_within_rack:
      return "max_qps_within_rack";
    case Objective::min_energy:
      return "min_energy";
  }
  return "min_tco";
}

bool sizes_by_caps(Objective o) {
  return o == Objective::max_qps_within_budget || o == Objective::max_qps_within_power ||
         o == Objective::max_qps_within_rack;
}

}  // namespace infercap

namespace infercap::plan_detail {

double objective_of(Objective o, const CandidateRow& r) {
  if (sizes_by_caps(o)) return r.carried_qps;
  if (o == Objective::min_energy) return r.encoder ? r.requests_per_joule : r.tokens_per_joule;
  return r.cost.tco_usd;
}

bool better(const CandidateRow& a, const CandidateRow& b, Objective o) {
  if (a.objective_value != b.objective_value) {
    // Load carried and tokens per joule: more is better; TCO: less is better.
    return o == Objective::min_tco ? a.objective_value < b.objective_value
                                   : a.objective_value > b.objective_value;
  }
  if (o != Objective::min_tco && a.cost.tco_usd != b.cost.tco_usd)
    return a.cost.tco_usd < b.cost.tco_usd;
  return a.e2e_p99_s < b.e2e_p99_s;
}

bool is_cap(const std::string& n) {
  return n == "capex_budget" || n == "annual_budget" || n == "power" || n == "rack";
}

namespace {

// The fleet of `n` replicas held every year of the horizon, priced. Its IT power uses a busy
// fraction scaled from the design-sized row (the same average load over n replicas instead of
// r.replicas): an estimate for the annual-budget test only; the chosen size is re-evaluated
// exactly and stepped down if the estimate was optimistic.
struct FixedFleet {
  double capex_usd = 0;
  double annual_usd = 0;
  double provisioned_w = 0;
  int rack_units = 0;
  bool priced = false;
};

FixedFleet fixed_fleet(const PlanInputs& in, const HardwareSpec& hw, const CandidateRow& r, int n) {
  const Constraints& k = in.constraints;
  const int horizon = std::max(1, k.horizon_years);
  const DevicePricing* dp = in.prices.find(hw.name);
  const double host_w = dp != nullptr ? dp->server_host_w : 0.0;
  const int ru = dp != nullptr ? dp->rack_units_per_server : kDefaultRackUnits;
  const int per_server = std::max(1, hw.devices_per_server / r.tp);
  const double util =
      std::min(1.0, r.utilisation_average * std::max(1, r.replicas) / std::max(1, n));
  FleetYear y;
  y.devices = static_cast<double>(n) * r.tp;
  y.servers = std::ceil(static_cast<double>(n) / per_server);
  y.rack_units = y.servers * ru;
  y.it_power_w = y.devices * device_power_w(hw, util) + y.servers * host_w;
  y.provisioned_w = y.devices * hw.tdp_w + y.servers * host_w;
  y.device_busy_hours = y.devices * kHoursPerYear;
  FixedFleet out;
  out.provisioned_w = y.provisioned_w;
  out.rack_units = static_cast<int>(y.rack_units);
  Footprint f;
  f.hardware = hw.name;
  f.years.assign(static_cast<size_t>(horizon), y);
  f.model_changes = k.model_changes_per_year * horizon;
  auto c = price_footprint(f, in.prices);
  if (c) {
    out.priced = true;
    out.capex_usd = c->capex_usd;
    out.annual_usd = c->tco_usd / horizon;
  }
  return out;
}

// The first stated cap `f` breaks, or "" when it fits them all.
std::string broken_cap(const Constraints& k, const FixedFleet& f) {
  const bool money = k.capex_budget_usd > 0 || k.annual_budget_usd > 0;
  if (money && !f.priced) return "priced";
  if (k.capex_budget_usd > 0 && f.capex_usd > k.capex_budget_usd) return "capex_budget";
  if (k.annual_budget_usd > 0 && f.annual_usd > k.annual_budget_usd) return "annual_budget";
  if (k.power_cap_w > 0 && f.provisioned_w > k.power_cap_w) return "power";
  if (k.rack_units > 0 && f.rack_units > k.rack_units) return "rack";
  return "";
}

// The cap in a buyer's words: "the $1.20M capex budget", "the 40.0 kW power cap".
std::string cap_words(const PlanInputs& in, const std::string& cap) {
  const Constraints& k = in.constraints;
  if (cap == "capex_budget")
    return fmt::format("the {} capex budget", money(k.capex_budget_usd, in.prices));
  if (cap == "annual_budget")
    return fmt::format("the {} annual budget", money(k.annual_budget_usd, in.prices));
  if (cap == "power") return fmt::format("the {:.1f} kW power cap", k.power_cap_w / 1e3);
  if (cap == "rack") return fmt::format("the {} rack units", k.rack_units);
  return "the caps";
}

}  // namespace

CapFit cap_replicas(const PlanInputs& in, const HardwareSpec& hw, const CandidateRow& r) {
  CapFit out;
  if (r.max_qps_per_replica <= 0) return out;
  // CPUs are bought a whole server at a time (as in sizing); other devices one replica at a time.
  const int unit = hw.hw_class == HwClass::cpu ? std::max(1, hw.devices_per_server / r.tp) : 1;
  auto broken = [&](int m) { return broken_cap(in.constraints, fixed_fleet(in, hw, r, m * unit)); };
  // Largest m with broken(m) == "": every cap grows with the fleet, so the test is monotone.
  constexpr int kLimit = 1 << 20;
  int lo = 0;
  int hi = 1;
  while (hi < kLimit && broken(hi).empty()) hi *= 2;
  if (hi >= kLimit && broken(hi).empty()) {
    out.replicas = hi * unit;
    return out;
  }
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    (broken(mid).empty() ? lo : hi) = mid;
  }
  out.replicas = lo * unit;
  out.binding = broken(lo + 1);
  return out;
}

CandidateRow size_by_caps(const PlanInputs& in, const Pool& pool, const ModelSpec& model,
                          const HardwareSpec& hw, const StackSpec& stack,
                          const PrecisionChoice& prec, int tp, int max_seqs,
                          const CandidateRow& design_row, SizeRequest* req_out, EvalMemo* memo) {
  // A candidate that does not run, fit or meet the SLA at any load is rejected as it is.
  if (design_row.max_qps_per_replica <= 0) return design_row;
  for (const auto& c : design_row.constraints)
    if (!c.ok && !is_cap(c.name)) return design_row;
  const Constraints& k = in.constraints;
  const int unit = hw.hw_class == HwClass::cpu ? std::max(1, hw.devices_per_server / tp) : 1;
  const CapFit fit = cap_replicas(in, hw, design_row);
  if (fit.replicas - k.redundancy <= 0) {
    // Not one working replica fits: the design-sized row already fails the cap that binds.
    CandidateRow r = design_row;
    r.carried_qps = 0;
    add(r, "design_load", false, -1,
        fmt::format("{} buys no working replica of {} ({} with redundancy {} needed)",
                    cap_words(in, fit.binding), hw.name, k.redundancy + unit, k.redundancy));
    finish_feasibility(r);
    r.objective_value = 0;
    return r;
  }
  SizeRequest req;
  req.fixed_replicas = fit.replicas;
  CandidateRow r = evaluate(in, pool, model, hw, stack, prec, tp, max_seqs, req, nullptr, memo);
  // The estimate of energy (annual budget) may be optimistic: step down until every cap holds.
  auto cap_fails = [](const CandidateRow& x) {
    for (const auto& c : x.constraints)
      if (!c.ok && is_cap(c.name)) return true;
    return false;
  };
  for (int i = 0; i < 16 && cap_fails(r) && req.fixed_replicas - unit > k.redundancy; ++i) {
    req.fixed_replicas -= unit;
    r = evaluate(in, pool, model, hw, stack, prec, tp, max_seqs, req, nullptr, memo);
  }
  if (req_out != nullptr) *req_out = req;
  const double need = r.design_qps;
  const double carried = r.carried_qps;
  const std::string caps = cap_words(in, fit.binding);
  if (carried + 1e-9 * need >= need) {
    add(r, "design_load", true, need > 0 ? (carried - need) / need : 1,
        fmt::format("{} buys {} x {} ({} TP{}), carrying {} req/s within the SLA; the "
                    "design load is {} req/s",
                    caps, r.devices, hw.name, prec.name, tp, rate(carried), rate(need)));
  } else {
    // What the design load would need on this candidate, from the design-sized row.
    const auto shown = apart(carried, need);
    const Constraint* dc = design_row.binding_constraint();
    add(r, "design_load", false, need > 0 ? (carried - need) / need : -1,
        fmt::format("{} buys {} of the {} req/s you need, on {} x {} ({} TP{}); "
                    "{} req/s needs {} x {}: capex {}, {:.1f} kW nameplate, {} rack units",
                    caps, shown.first, shown.second, r.devices, hw.name, prec.name, tp,
                    shown.second, design_row.devices, hw.name,
                    money(design_row.cost.capex_usd, in.prices), design_row.provisioned_w / 1e3,
                    design_row.rack_units),
        dc != nullptr && !dc->ok ? dc->fix : std::string());
  }
  // The cap that stopped one more replica set the count ("design_load" when none bound).
  r.sized_by = fit.binding.empty() || fit.binding == "priced" ? "design_load" : fit.binding;
  finish_feasibility(r);
  r.objective_value = carried;
  return r;
}

}  // namespace infercap::plan_detail
