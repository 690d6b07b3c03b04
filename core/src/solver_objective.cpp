// Objectives: the ranking key of each, and the sizing an objective imposes (the capex budget
// buys a number of replicas rather than the design load asking for one).

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "solver_internal.hpp"

namespace infercap::plan_detail {

bool better(const CandidateRow& a, const CandidateRow& b, Objective o) {
  if (o == Objective::max_qps_within_budget) {
    if (a.objective_value != b.objective_value) return a.objective_value > b.objective_value;
  } else if (a.objective_value != b.objective_value) {
    return a.objective_value < b.objective_value;
  }
  return a.e2e_p99_s < b.e2e_p99_s;
}

// Max QPS within the capex budget: the most replicas the budget buys, times one replica's load.
int budget_capacity(const PlanInputs& in, const HardwareSpec& hw, CandidateRow& r) {
  const double budget = in.constraints.capex_budget_usd;
  if (r.max_qps_per_replica <= 0 || budget <= 0) return 0;
  const DevicePricing* dp = in.prices.find(hw.name);
  if (dp == nullptr) return 0;
  const int per_server = std::max(1, hw.devices_per_server / r.tp);
  auto capex = [&](int n) {
    Footprint f;
    f.hardware = hw.name;
    FleetYear y;
    y.devices = static_cast<double>(n) * r.tp;
    y.servers = std::ceil(static_cast<double>(n) / per_server);
    f.years = {y};
    auto c = price_footprint(f, in.prices);
    return c ? c->capex_usd : std::numeric_limits<double>::infinity();
  };
  int lo = 0;
  int hi = 1;
  while (capex(hi) <= budget && hi < (1 << 24)) hi *= 2;
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    (capex(mid) <= budget ? lo : hi) = mid;
  }
  const int working = lo - in.constraints.redundancy;
  r.objective_value = working > 0 ? working * r.max_qps_per_replica : 0;
  if (working <= 0) {
    r.feasible = false;
    add(r, "capex_budget", false, -1,
        fmt::format("the {} budget buys {} replicas; {} are needed with redundancy", money(budget),
                    lo, in.constraints.redundancy + 1),
        fmt::format("add {} to the capex budget",
                    money(capex(in.constraints.redundancy + 1) - budget)));
    finish_feasibility(r);
  }
  return lo;
}

}  // namespace infercap::plan_detail
