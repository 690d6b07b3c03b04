// Routing tiers: a workload split by share across models, and the comparison fleet that serves
// every request on the baseline model, solved the same way.

#include <fmt/core.h>

#include <cmath>

#include "solver_internal.hpp"

namespace infercap {

RequestClass scale_rate(RequestClass c, double factor) {
  c.rate.mean_qps *= factor;
  c.rate.peak_qps *= factor;
  for (auto& h : c.rate.hourly_qps) h *= factor;
  return c;
}

Result<std::vector<Pool>> tiered_pools(const std::vector<RequestClass>& classes,
                                       const std::vector<TierSpec>& tiers) {
  double sum = 0;
  for (const auto& t : tiers) {
    if (!(t.share > 0))
      return Error{fmt::format("tiers[{}].share: must be > 0, got {}", t.name, t.share)};
    sum += t.share;
  }
  if (tiers.empty() || std::fabs(sum - 1) > 1e-6)
    return Error{fmt::format("tiers: shares must sum to 1, got {}", sum)};
  std::vector<Pool> pools;
  for (const auto& t : tiers) {
    Pool p;
    p.name = t.name;
    p.model = t.model;
    for (const auto& c : classes) {
      RequestClass s = scale_rate(c, t.share);
      s.model = t.model;
      p.classes.push_back(std::move(s));
    }
    pools.push_back(std::move(p));
  }
  return pools;
}

namespace plan_detail {

void solve_tiered_baseline(const PlanInputs& in, Plan& plan, int* evaluated, int* verified,
                           EvalMemo* memo) {
  std::vector<PoolResult> base;
  for (const auto& p : in.baseline_pools)
    base.push_back(solve_pool(in, p, *find_model(in, p.model), evaluated, verified, memo));
  if (auto b = best_fleet(in, base, "baseline: every request on " + in.baseline_pools[0].model)) {
    if (plan.recommended.feasible) {
      b->note = fmt::format("{} devices vs {} with routing tiers; TCO {} vs {}", b->devices,
                            plan.recommended.devices, money(b->cost.tco_usd, in.prices),
                            money(plan.recommended.cost.tco_usd, in.prices));
    }
    plan.alternatives.push_back(*b);
  }
  for (auto& b : base) plan.pools.push_back(std::move(b));
}

}  // namespace plan_detail
}  // namespace infercap
