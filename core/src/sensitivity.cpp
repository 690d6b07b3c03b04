#include "infercap/sensitivity.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <future>
#include <limits>
#include <optional>

namespace infercap {

std::string_view sensitivity_param_name(SensitivityParam p) {
  switch (p) {
    case SensitivityParam::load:
      return "load";
    case SensitivityParam::electricity:
      return "electricity";
    case SensitivityParam::device_prices:
      return "device_prices";
    case SensitivityParam::sla:
      return "sla";
    case SensitivityParam::horizon:
      return "horizon";
    case SensitivityParam::model_error:
      return "model_error";
  }
  return "?";
}

std::string candidate_key(const CandidateRow& r) {
  return fmt::format("{} {} {} TP{}", r.hardware, r.precision, r.stack, r.tp);
}

std::string fleet_key(const FleetChoice& f) {
  // Sorted, so the same parts found in another order are the same choice.
  std::vector<std::string> parts;
  for (const auto& p : f.parts) parts.push_back(p.pool + ": " + candidate_key(p));
  std::sort(parts.begin(), parts.end());
  std::string k;
  for (const auto& p : parts) k += (k.empty() ? "" : "; ") + p;
  return k;
}

const CandidateRow* runner_up(const Plan& /*base*/, const PoolResult& pool) {
  if (pool.ranked.size() < 2) return nullptr;
  const CandidateRow& lead = pool.ranked.front();
  for (size_t i = 1; i < pool.ranked.size(); ++i)
    if (pool.ranked[i].hardware != lead.hardware) return &pool.ranked[i];
  return &pool.ranked[1];
}

namespace {

void scale_pools(std::vector<Pool>& pools, double f) {
  for (auto& p : pools)
    for (auto& c : p.classes) c = scale_rate(c, f);
}

void scale_sla(std::vector<Pool>& pools, double f) {
  for (auto& p : pools) {
    for (auto& c : p.classes) {
      for (SlaTarget* t : {&c.sla.ttft, &c.sla.tpot, &c.sla.e2e})
        if (t->set()) t->limit_s *= f;
    }
  }
}

void scale_device_prices(PriceBook& b, double f, const std::string& only = "") {
  for (auto& d : b.devices) {
    if (!only.empty() && d.hardware != only) continue;
    for (auto& t : d.tiers) t.unit_price_usd *= f;
  }
}

SensitivityCase run_case(const PlanInputs& in, SensitivityParam param, double factor,
                         EvalMemo& memo) {
  SensitivityCase c;
  c.param = param;
  c.factor = factor;
  auto plan = solve(in, memo);
  if (!plan) {
    c.infeasible_reason = plan.error().message;
    return c;
  }
  c.feasible = plan->feasible;
  if (!plan->feasible) {
    c.infeasible_reason = plan->infeasible_reason;
    return c;
  }
  c.choice = fleet_key(plan->recommended);
  c.tco_usd = plan->recommended.cost.tco_usd;
  return c;
}

// Prices alone cannot change what is feasible or how a fleet is sized when one pool is planned
// on its own with no budget: the re-solve would only re-price the same footprints. Then each
// feasible row of `base` (the analytic solve of the unchanged inputs, so the same candidates and
// sizes a re-solve finds) is re-priced (price_footprint, the solver's own rule) and the cheapest
// wins. nullopt when that does not hold, or when re-pricing the base does not reproduce the
// solver's TCOs (then the caller solves).
std::optional<SensitivityCase> reprice_case(const PlanInputs& x, const PlanInputs& base_in,
                                            const Plan& base, SensitivityParam param,
                                            double factor) {
  const Constraints& k = base_in.constraints;
  if (base_in.strategy != FleetStrategy::single || base_in.objective != Objective::min_tco ||
      base_in.pools.size() != 1 || base.pools.size() != 1 || k.capex_budget_usd > 0 ||
      k.annual_budget_usd > 0)
    return std::nullopt;
  const PoolResult& pr = base.pools.front();
  std::vector<const CandidateRow*> rows;
  for (const auto& r : pr.ranked) rows.push_back(&r);
  const double changes = k.model_changes_per_year * std::max(1, k.horizon_years);
  auto price = [&](const CandidateRow& r, const PriceBook& book) -> std::optional<double> {
    Footprint f;
    f.hardware = r.hardware;
    f.role = r.pool;
    f.years = r.years;
    f.model_changes = changes;
    auto c = price_footprint(f, book);
    if (!c) return std::nullopt;
    return c->tco_usd;
  };
  SensitivityCase c;
  c.param = param;
  c.factor = factor;
  const CandidateRow* best = nullptr;
  for (const CandidateRow* r : rows) {
    const auto same = price(*r, base_in.prices);
    if (!same || std::fabs(*same - r->cost.tco_usd) > 1e-9 * std::max(1.0, r->cost.tco_usd))
      return std::nullopt;
    const auto t = price(*r, x.prices);
    if (t && (best == nullptr || *t < c.tco_usd)) {
      best = r;
      c.tco_usd = *t;
    }
  }
  if (best == nullptr) return std::nullopt;
  c.feasible = true;
  c.choice = best->pool + ": " + candidate_key(*best);
  return c;
}

template <class T>
const T* by_name(const std::vector<T>& v, const std::string& name) {
  for (const auto& x : v)
    if (x.name == name) return &x;
  return nullptr;
}

// One candidate re-evaluated under modified inputs; +inf TCO when it no longer qualifies.
struct Evaluator {
  const PlanInputs* in;
  const Pool* pool;
  const CandidateRow* row;
  EvalMemo* memo;
  double tco(const PlanInputs& x, const Pool& p) const {
    const ModelSpec* m = by_name(x.models, p.model);
    const HardwareSpec* h = by_name(x.space.hardware, row->hardware);
    const StackSpec* s = by_name(x.space.stacks, row->stack);
    const PrecisionChoice* pc = by_name(x.space.precisions, row->precision);
    if (m == nullptr || h == nullptr || s == nullptr || pc == nullptr)
      return std::numeric_limits<double>::infinity();
    CandidateRow r = evaluate_candidate(x, p, *m, *h, *s, *pc, row->tp, row->max_seqs, memo);
    return r.feasible && r.priced ? r.cost.tco_usd : std::numeric_limits<double>::infinity();
  }
};

// The x in [lo, hi] nearest `from` where d(x) changes sign from its sign at `from`: a geometric
// scan of `steps` points each way, then bisection to 0.1%. nullopt when the sign never changes.
std::optional<double> crossing(const std::function<double(double)>& d, double from, double lo,
                               double hi, int steps) {
  const double d0 = d(from);
  if (!std::isfinite(d0) || d0 == 0) return std::nullopt;
  auto flips = [&](double v) { return std::isfinite(v) && (v > 0) != (d0 > 0) && v != 0; };
  std::optional<double> best;
  for (double end : {hi, lo}) {
    const double ratio = std::pow(end / from, 1.0 / steps);
    double prev = from;
    for (int i = 1; i <= steps; ++i) {
      const double x = from * std::pow(ratio, i);
      if (flips(d(x))) {
        double a = prev, b = x;  // d(a) has d0's sign, d(b) the other
        while (std::fabs(b - a) > 1e-3 * std::fabs(a)) {
          const double m = std::sqrt(a * b);
          (flips(d(m)) ? b : a) = m;
        }
        if (!best || std::fabs(std::log(b / from)) < std::fabs(std::log(*best / from))) best = b;
        break;
      }
      prev = x;
    }
  }
  return best;
}

void break_evens(const PlanInputs& in, const Plan& base, Sensitivity& s, EvalMemo& memo) {
  if (base.objective != Objective::min_tco || base.pools.empty()) return;
  const PoolResult& pr = base.pools.front();
  const CandidateRow* ru = runner_up(base, pr);
  if (pr.ranked.empty() || ru == nullptr) return;
  const CandidateRow& lead = pr.ranked.front();
  const Pool* pool = nullptr;
  for (const auto& p : in.pools)
    if (p.name == pr.pool.name) pool = &p;
  if (pool == nullptr) return;
  const Evaluator ea{&in, pool, &lead, &memo};
  const Evaluator eb{&in, pool, ru, &memo};
  auto make = [&](SensitivityParam p) {
    BreakEven b;
    b.param = p;
    b.pool = pr.pool.name;
    b.leader = candidate_key(lead);
    b.runner_up = candidate_key(*ru);
    b.leader_tco_usd = lead.cost.tco_usd;
    b.runner_up_tco_usd = ru->cost.tco_usd;
    return b;
  };

  // Load: both candidates re-sized at the pool's load x f; TCO steps with whole replicas.
  {
    BreakEven b = make(SensitivityParam::load);
    double design = 0;
    for (const auto& c : pool->classes) design += design_qps(c.rate);
    auto diff = [&](double f) {
      Pool p = *pool;
      for (auto& c : p.classes) c = scale_rate(c, f);
      return eb.tco(in, p) - ea.tco(in, p);
    };
    if (auto at = crossing(diff, 1.0, 0.1, 10.0, 12)) {
      b.found = true;
      b.at = *at;
      b.value = design * *at;
      b.runner_up_wins_beyond = *at > 1.0;
    }
    s.break_evens.push_back(b);
  }
  // Electricity: TCO is affine in the price (energy = facility kWh x price), so the crossing is
  // where the two lines meet.
  {
    BreakEven b = make(SensitivityParam::electricity);
    const double ka = lead.cost.energy_kwh, kb = ru->cost.energy_kwh;
    const double fa = lead.cost.tco_usd - lead.cost.energy_usd;
    const double fb = ru->cost.tco_usd - ru->cost.energy_usd;
    if (std::fabs(kb - ka) > 1e-9) {
      const double p = (fa - fb) / (kb - ka);
      if (p > 0 && std::isfinite(p)) {
        b.found = true;
        b.at = p;
        b.value = p;
        b.runner_up_wins_beyond = kb < ka;
      }
    }
    s.break_evens.push_back(b);
  }
  // The runner-up's device price alone: the discount at which it matches the leader.
  {
    BreakEven b = make(SensitivityParam::device_prices);
    // One copy of the inputs; each step re-prices it from the unchanged book.
    PlanInputs x = in;
    auto diff = [&](double f) {
      x.prices = in.prices;
      scale_device_prices(x.prices, f, ru->hardware);
      return eb.tco(x, *pool) - ea.tco(x, *pool);
    };
    if (auto at = crossing(diff, 1.0, 0.01, 3.0, 8)) {
      b.found = true;
      b.at = *at;
      b.value = *at;
      b.runner_up_wins_beyond = *at < 1.0;
    }
    s.break_evens.push_back(b);
  }
}

}  // namespace

Sensitivity sensitivity(const PlanInputs& in0, const Plan& base, const SensitivityOptions& opt) {
  // One memo for every re-solve below: they are copies of one set of inputs that move one input
  // at a time, so most candidates ask the memo what another solve already computed
  // (eval_memo.hpp); the answers are bit-identical to solving each afresh.
  EvalMemo memo;
  Sensitivity s;
  s.plan_choice = base.feasible ? fleet_key(base.recommended) : "";
  PlanInputs in = in0;
  in.verify_top = opt.verify_top;
  // Hardware on which every candidate failed to run or to fit in memory stays out of every
  // re-solve: those constraints depend on the model, precision and longest sequence, none of
  // which a case changes. Hardware that also failed only on the SLA's physical floor (no load
  // meets it) stays out of every case but a looser SLA: load, prices and horizon do not move a
  // floor. The re-solves would reject both again; leaving them out only saves time.
  const auto pruned = [&](bool sla_floor_fixed) {
    PlanInputs x = in;
    std::vector<std::string> keep;
    auto note = [&](const CandidateRow& r) {
      if (std::find(keep.begin(), keep.end(), r.hardware) == keep.end()) keep.push_back(r.hardware);
    };
    for (const auto& p : base.pools) {
      for (const auto& r : p.ranked) note(r);
      for (const auto& r : p.rejected) {
        const Constraint* b = r.binding_constraint();
        const bool fixed = b != nullptr && (b->name == "runs" || b->name == "memory" ||
                                            (sla_floor_fixed && b->name == "sla" && !b->ok));
        if (!fixed) note(r);
      }
    }
    std::erase_if(x.space.hardware, [&](const HardwareSpec& h) {
      return std::find(keep.begin(), keep.end(), h.name) == keep.end();
    });
    return x;
  };
  const PlanInputs loose = pruned(false);
  in = pruned(true);
  struct Change {
    SensitivityParam param;
    double factor;
    PlanInputs inputs;
  };
  std::vector<Change> changes;
  auto add = [&](SensitivityParam p, double f, const std::function<void(PlanInputs&)>& change) {
    Change c{p, f, in};
    change(c.inputs);
    changes.push_back(std::move(c));
  };
  for (double f : {1 - opt.load_swing, 1 + opt.load_swing}) {
    add(SensitivityParam::load, f, [f](PlanInputs& x) {
      scale_pools(x.pools, f);
      scale_pools(x.baseline_pools, f);
    });
  }
  for (double f : {1 - opt.electricity_swing, 1 + opt.electricity_swing}) {
    add(SensitivityParam::electricity, f,
        [f](PlanInputs& x) { x.prices.electricity_usd_per_kwh *= f; });
  }
  for (double f : {1 - opt.device_price_swing, 1 + opt.device_price_swing}) {
    add(SensitivityParam::device_prices, f,
        [f](PlanInputs& x) { scale_device_prices(x.prices, f); });
  }
  if (opt.sla_half_double) {
    for (double f : {0.5, 2.0}) {
      add(SensitivityParam::sla, f, [f, &loose](PlanInputs& x) {
        if (f > 1) x = loose;  // a looser SLA can bring a floor within reach
        scale_sla(x.pools, f);
        scale_sla(x.baseline_pools, f);
      });
    }
  }
  for (int d : {-opt.horizon_delta_years, opt.horizon_delta_years}) {
    if (d == 0 || in.constraints.horizon_years + d < 1) continue;
    add(SensitivityParam::horizon, d, [d](PlanInputs& x) { x.constraints.horizon_years += d; });
  }
  if (opt.model_error_fraction > 0) {
    const double f = 1 + opt.model_error_fraction;
    add(SensitivityParam::model_error, f, [f](PlanInputs& x) {
      scale_pools(x.pools, f);
      scale_pools(x.baseline_pools, f);
    });
  }
  // The base the cases compare with is the unchanged (pruned) inputs solved the same way; it
  // fills the memo with every candidate's answers for the unchanged workload. The SLA cases ask
  // new questions, so they start at once and run alongside it; the load, model-error and horizon
  // cases start after it and find most answers in the memo (started together, they would all
  // miss at once). Price cases are then re-priced from the base where that is exact. Results are
  // collected in the order above, so the output does not depend on scheduling.
  std::vector<std::optional<std::future<SensitivityCase>>> jobs(changes.size());
  auto launch = [&](bool sla) {
    for (size_t i = 0; i < changes.size(); ++i) {
      const Change& c = changes[i];
      if (c.param == SensitivityParam::electricity || c.param == SensitivityParam::device_prices ||
          (c.param == SensitivityParam::sla) != sla)
        continue;
      jobs[i] = std::async(std::launch::async,
                           [&c, &memo] { return run_case(c.inputs, c.param, c.factor, memo); });
    }
  };
  launch(true);
  const auto analytic = solve(in, memo);
  launch(false);
  if (analytic && analytic->feasible) {
    s.base_feasible = true;
    s.base_choice = fleet_key(analytic->recommended);
    s.base_tco_usd = analytic->recommended.cost.tco_usd;
  }
  for (size_t i = 0; i < changes.size(); ++i) {
    if (jobs[i]) continue;
    const Change& c = changes[i];
    std::optional<SensitivityCase> r;
    if (analytic && analytic->feasible)
      r = reprice_case(c.inputs, in, *analytic, c.param, c.factor);
    if (!r) r = run_case(c.inputs, c.param, c.factor, memo);
    std::promise<SensitivityCase> done;
    done.set_value(std::move(*r));
    jobs[i] = done.get_future();
  }
  if (base.feasible) break_evens(in, base, s, memo);
  for (auto& j : jobs) {
    SensitivityCase c = j->get();
    if (c.feasible) {
      c.tco_change = s.base_tco_usd > 0 ? c.tco_usd / s.base_tco_usd - 1 : 0;
      c.same_choice = c.choice == s.base_choice;
    }
    s.cases.push_back(std::move(c));
  }
  return s;
}

}  // namespace infercap
