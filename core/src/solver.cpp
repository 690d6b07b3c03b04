// solve(): validates the inputs and dispatches by fleet strategy; the precision presets and the
// inputs' validation. Each question the solver answers lives in its own solver_*.cpp
// (solver_internal.hpp lists them).
#include "infercap/solver.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include "solver_internal.hpp"

namespace infercap {

using namespace plan_detail;

namespace {

std::string objective_label(Objective o) {
  switch (o) {
    case Objective::min_tco:
      return "lowest TCO meeting every constraint";
    case Objective::max_qps_within_budget:
      return "most load within the budget";
    case Objective::max_qps_within_power:
      return "most load within the power cap";
    case Objective::max_qps_within_rack:
      return "most load within the rack space";
    case Objective::min_energy:
      return "most output tokens per joule meeting every constraint";
  }
  return "recommended";
}

}  // namespace

namespace {

// The precision presets, in the order they are listed; precision_preset() and
// precision_preset_names() both read this one table.
const std::vector<PrecisionChoice>& precision_presets() {
  auto p = [](const char* n, DType w, DType a, DType kv) {
    PrecisionChoice c;
    c.name = n;
    c.precision = Precision{w, a, kv};
    return c;
  };
  static const std::vector<PrecisionChoice> presets = {
      p("fp32", DType::fp32, DType::fp32, DType::fp32),
      p("bf16", DType::bf16, DType::bf16, DType::bf16),
      p("fp16", DType::fp16, DType::fp16, DType::fp16),
      p("fp8", DType::fp8, DType::fp8, DType::bf16),
      p("nvfp4", DType::nvfp4, DType::nvfp4, DType::bf16),
      p("int8", DType::int8, DType::int8, DType::bf16),
      p("w8a16", DType::int8, DType::bf16, DType::bf16),
      p("int4", DType::int4, DType::bf16, DType::bf16),
      p("q8_0", DType::q8_0, DType::bf16, DType::fp16),
      p("q4_0", DType::q4_0, DType::bf16, DType::fp16),
      p("q4_k_m", DType::q4_k_m, DType::bf16, DType::fp16),
  };
  return presets;
}

}  // namespace

Result<PrecisionChoice> precision_preset(std::string_view name) {
  for (const auto& pc : precision_presets())
    if (pc.name == name) return pc;
  return Error{fmt::format("unknown precision '{}'; expected one of {}", name,
                           fmt::join(precision_preset_names(), ", "))};
}

std::vector<std::string> precision_preset_names() {
  std::vector<std::string> names;
  for (const auto& pc : precision_presets()) names.push_back(pc.name);
  return names;
}

Result<DType> kv_precision_preset(std::string_view name) {
  for (const auto& n : kv_precision_preset_names())
    if (n == name) return *parse_dtype(n);
  return Error{fmt::format("unknown KV-cache precision '{}'; expected one of {}", name,
                           fmt::join(kv_precision_preset_names(), ", "))};
}

std::vector<std::string> kv_precision_preset_names() {
  return {"bf16", "fp16", "fp8", "int8", "q8_0", "q4_0"};
}

Result<PrecisionChoice> with_kv_precision(PrecisionChoice base, std::string_view kv_name) {
  auto kv = kv_precision_preset(kv_name);
  if (!kv) return kv.error();
  base.precision.kv = *kv;
  base.kv_name = std::string(kv_name);
  return base;
}

std::vector<std::string> validate(const PlanInputs& in) {
  std::vector<std::string> e;
  if (in.pools.empty()) e.push_back("workload: no request classes");
  for (const auto& p : in.pools) {
    if (p.classes.empty()) e.push_back(fmt::format("pool '{}': no request classes", p.name));
    for (const auto& c : p.classes)
      for (auto& m : validate(c)) e.push_back(std::move(m));
    if (find_model(in, p.model) == nullptr)
      e.push_back(fmt::format("pool '{}': model '{}' is not loaded", p.name, p.model));
  }
  for (const auto& p : in.baseline_pools) {
    if (find_model(in, p.model) == nullptr)
      e.push_back(fmt::format("baseline: model '{}' is not loaded", p.model));
  }
  if (in.space.hardware.empty()) e.push_back("candidates.hardware: no hardware to choose from");
  if (in.space.stacks.empty()) e.push_back("candidates.stacks: no stack");
  if (in.space.precisions.empty()) e.push_back("candidates.precisions: no precision");
  for (const auto& k : in.space.kv_precisions) {
    if (auto kv = kv_precision_preset(k); !kv) {
      e.push_back("candidates.kv_precisions: " + kv.error().message);
    }
  }
  if (in.space.tp.empty()) e.push_back("candidates.tp: no tensor-parallel degree");
  for (int t : in.space.tp)
    if (t < 1) e.push_back(fmt::format("candidates.tp: must be >= 1, got {}", t));
  if (in.space.max_seqs.empty()) e.push_back("candidates.max_batch: no batch cap");
  for (int b : in.space.max_seqs)
    if (b < 1) e.push_back(fmt::format("candidates.max_batch: must be >= 1, got {}", b));
  const Constraints& k = in.constraints;
  if (k.horizon_years < 1)
    e.push_back(fmt::format("constraints.horizon_years: must be >= 1, got {}", k.horizon_years));
  if (!(k.load_growth_per_year > -1)) {
    e.push_back(fmt::format("constraints.load_growth_per_year: must be > -1, got {}",
                            k.load_growth_per_year));
  }
  if (k.redundancy < 0)
    e.push_back(fmt::format("constraints.redundancy: must be >= 0, got {}", k.redundancy));
  if (k.capex_budget_usd < 0 || k.annual_budget_usd < 0 || k.power_cap_w < 0 || k.rack_units < 0 ||
      k.model_changes_per_year < 0)
    e.push_back("constraints: budgets, caps and model changes must be >= 0");
  if (in.objective == Objective::max_qps_within_budget && k.capex_budget_usd <= 0 &&
      k.annual_budget_usd <= 0) {
    e.push_back(
        "objective max_qps_within_budget needs constraints.capex_budget_usd or "
        "annual_budget_usd");
  }
  if (in.objective == Objective::max_qps_within_power && k.power_cap_w <= 0)
    e.push_back("objective max_qps_within_power needs constraints.power_cap_w");
  if (in.objective == Objective::max_qps_within_rack && k.rack_units <= 0)
    e.push_back("objective max_qps_within_rack needs constraints.rack_units");
  if (sizes_by_caps(in.objective) &&
      (in.pools.size() != 1 || in.strategy != FleetStrategy::single)) {
    e.push_back(fmt::format(
        "objective {}: the caps size one pool (one model, fleet strategy single); plan each "
        "model against its share of the caps",
        objective_name(in.objective)));
  }
  for (auto& m : validate(in.serving)) e.push_back("serving: " + m);
  for (auto& m : validate(in.prices)) e.push_back("prices: " + m);
  if ((in.strategy == FleetStrategy::burst || in.strategy == FleetStrategy::staged) &&
      in.pools.size() != 1)
    e.push_back("fleet: burst and staged strategies take one model (one pool)");
  return e;
}

Result<Plan> solve(const PlanInputs& in) {
  EvalMemo memo;
  return solve(in, memo);
}

Result<Plan> solve(const PlanInputs& in, EvalMemo& memo_ref) {
  EvalMemo* memo = &memo_ref;
  const auto errs = validate(in);
  if (!errs.empty()) {
    std::string m;
    for (const auto& e : errs) m += (m.empty() ? "" : "; ") + e;
    return Error{m};
  }
  Plan plan;
  plan.name = in.name;
  plan.objective = in.objective;
  plan.strategy = in.strategy;
  int evaluated = 0;
  int verified = 0;
  if (in.strategy == FleetStrategy::burst) {
    solve_burst(in, plan, &evaluated, &verified, memo);
  } else if (in.strategy == FleetStrategy::staged) {
    solve_staged(in, plan, &evaluated, &verified, memo);
  } else {
    for (const auto& p : in.pools) {
      plan.pools.push_back(
          solve_pool(in, p, *find_model(in, p.model), &evaluated, &verified, memo));
    }
    // A max_qps_* question nothing fully answers still has an answer: what the caps buy.
    const PoolResult& first = plan.pools.front();
    if (sizes_by_caps(in.objective) && first.ranked.empty() && !first.partial.empty()) {
      const CandidateRow& best = first.partial.front();
      plan.recommended =
          make_choice("most load within the caps (short of the design load)", {best}, in);
      plan.recommended.feasible = false;
      plan.recommended.partial = true;
      for (const auto& c : best.constraints) {
        if (c.name == "design_load")
          plan.infeasible_reason = fmt::format("pool '{}': {}", first.pool.name, c.message);
      }
    }
    for (const auto& pr : plan.pools)
      if (pr.ranked.empty()) explain_infeasible(pr, plan);
    std::string label = objective_label(in.objective);
    const ModelSpec* m0 = find_model(in, in.pools.front().model);
    if (in.objective == Objective::min_energy && m0 != nullptr && m0->arch == ModelArch::encoder)
      label = "most requests per joule meeting every constraint";
    if (auto best = best_fleet(in, plan.pools, label)) plan.recommended = *best;
    if (in.strategy == FleetStrategy::tiered && !in.baseline_pools.empty())
      solve_tiered_baseline(in, plan, &evaluated, &verified, memo);
  }
  if (!plan.recommended.parts.empty()) fleet_constraints(in, plan.recommended);
  plan.feasible = plan.recommended.feasible;
  if (!plan.feasible && plan.infeasible_reason.empty()) {
    if (!plan.recommended.note.empty()) {
      plan.infeasible_reason = "the fleet as a whole: " + plan.recommended.note;
    } else {
      for (const auto& pr : plan.pools)
        if (pr.ranked.empty()) explain_infeasible(pr, plan);
    }
  }
  // The catalog's holes are stated, not silent: hardware without a price cannot be ranked.
  for (const auto& h : in.space.hardware)
    if (in.prices.find(h.name) == nullptr) plan.unpriced.push_back(h.name);
  if (!plan.unpriced.empty()) {
    plan.unpriced_note = fmt::format(
        "left out for want of a price in price book '{}': {}; add each under prices.devices (in "
        "the scenario or the price book) with unit_price_usd, server_price_usd, server_host_w and "
        "a source",
        in.prices.name, fmt::join(plan.unpriced, ", "));
  }
  // So are devices that no stack of the search runs on (TensorRT-LLM asked of an MI300X).
  for (const auto& h : in.space.hardware) {
    std::optional<std::string> why;
    bool runs = false;
    for (const auto& st : in.space.stacks) {
      if (!class_tries_stack(in.space, h.hw_class, st)) continue;
      auto m = stack_mismatch(st, h);
      if (!m) {
        runs = true;
        break;
      }
      if (!why) why = std::move(m);
    }
    if (!runs) plan.no_stack.push_back(why ? *why : fmt::format("no stack for '{}'", h.name));
  }
  if (!plan.no_stack.empty()) {
    plan.no_stack_note = fmt::format("left out because no stack of the search runs on them: {}",
                                     fmt::join(plan.no_stack, "; "));
  }
  plan.candidates_evaluated = evaluated;
  plan.candidates_verified = verified;
  return plan;
}

}  // namespace infercap
