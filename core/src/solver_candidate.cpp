// One candidate deployment: does it run, fit in memory and meet the SLA, and what does its fleet
// cost against the budget and site caps. Sizing itself is solver_sizing.cpp.

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "solver_internal.hpp"

namespace infercap::plan_detail {

Result<Engine> make_engine(const PlanInputs& in, const ModelSpec& model, const HardwareSpec& hw,
                           const StackSpec& stack, const PrecisionChoice& prec, int tp,
                           int max_seqs, double longest) {
  Deployment dep;
  dep.precision = prec.precision;
  dep.tp = tp;
  auto perf = PerfModel::create(model, hw, stack, dep);
  if (!perf) return perf.error();
  Engine e;
  e.perf = std::make_unique<PerfModel>(std::move(*perf));
  e.cfg = in.serving;
  e.cfg.max_seqs = max_seqs;
  // The engine admits requests as the stack's scheduler does (kv_admission).
  e.cfg.reserve_full_sequence =
      e.cfg.reserve_full_sequence || stack.kv_admission == KvAdmission::full_sequence;
  // ... and forms its batches one step ahead where it does (overlap_scheduling).
  e.cfg.schedule_one_step_ahead = e.cfg.schedule_one_step_ahead || stack.overlap_scheduling;
  if (e.cfg.max_context_tokens == 0) e.cfg.max_context_tokens = static_cast<int64_t>(longest);
  e.step = std::make_unique<PerfStepModel>(*e.perf, static_cast<double>(e.cfg.max_batched_tokens));
  return e;
}

void budget_constraints(const PlanInputs& in, const HardwareSpec& hw, CandidateRow& r) {
  const Constraints& k = in.constraints;
  const int horizon = std::max(1, k.horizon_years);
  if (!r.priced) {
    if (r.years.empty()) return;  // not sized (fleet_size says why), so nothing to price
    add(r, "priced", false, -1,
        fmt::format("price book '{}' has no price for '{}'", in.prices.name, hw.name),
        fmt::format("add '{}' under prices.devices", hw.name));
    return;
  }
  // Each pair of figures is printed with the digits it takes to tell them apart.
  if (k.capex_budget_usd > 0) {
    const double over = r.cost.capex_usd - k.capex_budget_usd;
    const auto [have, cap] = money_apart(r.cost.capex_usd, k.capex_budget_usd, in.prices);
    add(r, "capex_budget", over <= 0, -over / k.capex_budget_usd,
        over <= 0 ? fmt::format("capex {} within the {} budget", have, cap)
                  : fmt::format("capex {} exceeds the {} budget by {}", have, cap,
                                money_apart(over, 0, in.prices).first),
        over <= 0
            ? ""
            : fmt::format("add {} to the capex budget", money_apart(over, 0, in.prices).first));
    quantify(r, "capex", r.cost.capex_usd, k.capex_budget_usd);
  }
  if (k.annual_budget_usd > 0) {
    const double annual = r.cost.tco_usd / horizon;
    const double over = annual - k.annual_budget_usd;
    const auto [have, cap] = money_apart(annual, k.annual_budget_usd, in.prices);
    add(r, "annual_budget", over <= 0, -over / k.annual_budget_usd,
        over <= 0 ? fmt::format("{} a year within the {} annual budget", have, cap)
                  : fmt::format("{} a year exceeds the {} annual budget by {}", have, cap,
                                money_apart(over, 0, in.prices).first),
        over <= 0
            ? ""
            : fmt::format("add {} a year to the budget", money_apart(over, 0, in.prices).first));
    quantify(r, "TCO per year", annual, k.annual_budget_usd);
  }
}

void site_constraints(const PlanInputs& in, CandidateRow& r) {
  const Constraints& k = in.constraints;
  if (k.power_cap_w > 0) {
    const double over = r.provisioned_w - k.power_cap_w;
    const auto [have, cap] = apart(r.provisioned_w / 1e3, k.power_cap_w / 1e3, 2);
    add(r, "power", over <= 0, -over / k.power_cap_w,
        fmt::format("nameplate IT power {} kW {} the {} kW site cap", have,
                    over <= 0 ? "is within" : "exceeds", cap),
        over <= 0 ? "" : fmt::format("raise the power cap to {} kW", have));
    quantify(r, "nameplate IT power", r.provisioned_w, k.power_cap_w);
  }
  if (k.rack_units > 0) {
    const int over = r.rack_units - k.rack_units;
    add(r, "rack", over <= 0, -static_cast<double>(over) / k.rack_units,
        fmt::format("{} rack units {} the {} available", r.rack_units,
                    over <= 0 ? "fit in" : "exceed", k.rack_units),
        over <= 0 ? "" : fmt::format("free {} more rack units", over));
    quantify(r, "rack units", r.rack_units, k.rack_units);
  }
}

CandidateRow evaluate(const PlanInputs& in, const Pool& pool, const ModelSpec& model,
                      const HardwareSpec& hw, const StackSpec& stack, const PrecisionChoice& prec,
                      int tp, int max_seqs, const SizeRequest& req, ServingResult* sim_out,
                      EvalMemo* memo) {
  CandidateRow r;
  r.pool = pool.name;
  r.model = model.name;
  r.hardware = hw.name;
  r.hw_class = hw.hw_class;
  r.vendor = hw.vendor;
  r.encoder = model.arch == ModelArch::encoder;
  r.precision = prec.name;
  r.kv_precision = prec.kv_name.empty() ? std::string(dtype_name(prec.precision.kv)) : prec.kv_name;
  r.stack = stack.name;
  r.tp = tp;
  r.max_seqs = max_seqs;

  if (tp > hw.devices_per_server) {
    add(r, "runs", false, -1,
        fmt::format("TP {} needs {} devices in one server; a '{}' server holds {}", tp, tp, hw.name,
                    hw.devices_per_server),
        fmt::format("use TP <= {}", hw.devices_per_server));
    finish_feasibility(r);
    return r;
  }
  const double longest = pool_longest_tokens(pool);
  const auto eng = engine_for(memo, in, model, hw, stack, prec, tp, max_seqs, longest);
  if (!*eng) {
    add(r, "runs", false, -1, eng->error().message, "choose another precision, stack or TP");
    finish_feasibility(r);
    return r;
  }
  const Engine& e = **eng;
  const CandidateId id = candidate_id(model, hw, stack, prec, tp, max_seqs);
  // Memory: weights plus the KV cache of one longest sequence must fit on every device.
  const MemoryReport one = e.perf->memory(1, longest, e.cfg.max_batched_tokens);
  r.weights_bytes_per_device = one.weights_bytes;
  r.memory_bytes_per_device = one.total_bytes;
  {
    const double margin =
        one.capacity_bytes > 0 ? (one.capacity_bytes - one.total_bytes) / one.capacity_bytes : -1;
    if (!one.fits) {
      const auto [need, have] = gib_apart(one.total_bytes, one.capacity_bytes);
      add(r, "memory", false, std::min(margin, -1e-9),
          fmt::format("weights {} + KV cache {} for one {:.0f}-token sequence (+ {} activations "
                      "and reserve) need {} per device; '{}' has {}",
                      gib(one.weights_bytes), gib(one.kv_bytes), longest,
                      gib(one.activation_bytes + one.reserve_bytes), need, hw.name, have),
          fmt::format("a device with at least {}, a smaller precision, or more TP", need));
      quantify(r, "memory per device", one.total_bytes, one.capacity_bytes);
      finish_feasibility(r);
      return r;
    }
    add(r, "memory", true, margin,
        fmt::format(
            "weights {} + KV for one {:.0f}-token sequence fit in {} ({} sequences at most)",
            gib(one.weights_bytes), longest, gib(one.capacity_bytes),
            e.perf->max_batch(longest, e.cfg.max_batched_tokens)));
  }
  auto mq = max_qps_for(memo, id, *e.step, e.cfg, pool.classes, kQpsRelTol);
  if (!mq) {
    add(r, "serving", false, -1, mq.error().message);
    finish_feasibility(r);
    return r;
  }
  if (mq->qps <= 0) {
    // The SLA is below this candidate's physical floor: report the floor itself.
    auto floor = analyze_for(memo, id, *e.step, e.cfg, pool.classes,
                             std::max(1e-9, pool_design_qps(pool) * 1e-6));
    std::string msg = fmt::format("cannot meet the SLA at any load ({})", mq->binding_metric);
    std::string fix;
    double margin = -1;
    std::string quantity;
    double value = 0;
    double limit = 0;
    if (floor) {
      for (size_t i = 0; i < floor->classes.size() && i < pool.classes.size(); ++i) {
        const auto& cl = floor->classes[i];
        const SlaTarget* t = sla_target(pool.classes[i].sla, cl.binding_metric);
        if (t == nullptr || !t->set() || cl.binding_ratio <= 1) continue;
        const double v = at_sla(cl, cl.binding_metric);
        if (!std::isfinite(v)) {
          // The analytic replica is unstable even at vanishing load: there is no floor to
          // quote, and an infinite one printed as a figure would mean nothing to a buyer.
          msg = fmt::format(
              "{} P{:g} has no finite value even at vanishing load ({}): one "
              "replica cannot keep up with this class's requests",
              metric_label(cl.binding_metric), t->percentile, pool.classes[i].name);
          fix = "a faster device, more TP, or shorter requests";
          break;
        }
        const auto [floor_s, limit_s] = seconds_apart(v, t->limit_s);
        msg = fmt::format("{} P{:g} {} exceeds the {} SLA even at vanishing load ({})",
                          metric_label(cl.binding_metric), t->percentile, floor_s, limit_s,
                          pool.classes[i].name);
        fix = fmt::format("relax {} P{:g} to {}", metric_label(cl.binding_metric), t->percentile,
                          seconds_apart(v * 1.05, v).first);
        margin = 1 - cl.binding_ratio;
        quantity = fmt::format("{} P{:g}", metric_label(cl.binding_metric), t->percentile);
        value = v;
        limit = t->limit_s;
        break;
      }
    }
    add(r, "sla", false, margin, msg, fix);
    quantify(r, quantity, value, limit);
    r.limited_by = mq->binding_metric;
    finish_feasibility(r);
    return r;
  }
  r.max_qps_per_replica = mq->qps;
  r.limited_by = mq->binding_metric;
  // Where the KV cache holds fewer sequences than the engine's batch cap, ask what one replica
  // would carry with room for them all: if clearly more, memory (not latency) sets the count.
  bool memory_binds = false;
  if (e.perf->max_batch(pool_mean_context(pool), e.cfg.max_batched_tokens) < max_seqs) {
    ServingConfig roomy = e.cfg;
    roomy.kv_capacity_tokens = 1e12;
    auto mq2 = max_qps_for(memo, id, *e.step, roomy, pool.classes, kQpsRelTol);
    memory_binds = mq2 && mq2->qps > mq->qps * (1 + 2 * kQpsRelTol);
  }
  size_and_price(in, pool, hw, *e.step, e.cfg, r, req, id, memo);
  if (memory_binds && r.sized_by == "sla") r.sized_by = "memory";
  {
    // SLA slack at the load the working replicas serve (the design load, or what a fixed fleet
    // can take of it).
    const int working = std::max(1, r.replicas - in.constraints.redundancy);
    const double served = std::min(r.design_qps, r.carried_qps);
    const double per = served / working;
    add(r, "sla", true, 1 - per / r.max_qps_per_replica,
        fmt::format("one replica carries {:.3g} req/s within the SLA ({} binds above it); {} "
                    "replicas carry {:.3g} req/s at {:.3g} each",
                    r.max_qps_per_replica, metric_label(r.limited_by), working, served, per));
    quantify(r, "load per working replica", per, r.max_qps_per_replica);
  }
  {
    // Memory at the concurrency the plan runs at: the sequences in flight at the design load
    // (Little's law) hold their context next to the weights and one step's activations. The
    // engine admits no more than its batch cap and what the KV cache holds; the rest wait in
    // the queue, holding nothing, and the capacity above already counts that wait.
    const int fit = e.perf->max_batch(r.context_tokens, e.cfg.max_batched_tokens);
    // An unstable replica has no finite queue: count it at the ceiling before the int cast.
    const double in_flight =
        std::isfinite(r.sequences_in_flight) ? std::min(r.sequences_in_flight, 1e9) : 1e9;
    const int little = std::max(1, static_cast<int>(std::ceil(in_flight - 1e-9)));
    const int held = std::max(1, std::min({little, fit, max_seqs}));
    const MemoryReport mc = e.perf->memory(held, r.context_tokens, e.cfg.max_batched_tokens);
    for (auto& c : r.constraints) {
      if (c.name != "memory") continue;
      const auto [need, have] = gib_apart(mc.total_bytes, mc.capacity_bytes);
      c.ok = mc.fits;
      c.margin =
          mc.capacity_bytes > 0 ? (mc.capacity_bytes - mc.total_bytes) / mc.capacity_bytes : -1;
      c.message = fmt::format(
          "weights {} + KV cache {} for the {} sequences in flight per replica at the design load "
          "({:.0f} tokens each{}) + {} activations and reserve: {} of {} per device",
          gib(mc.weights_bytes), gib(mc.kv_bytes), held, r.context_tokens,
          little > held ? fmt::format("; {} by Little's law, the KV cache holds {}, the rest wait",
                                      little, std::min(fit, max_seqs))
                        : "",
          gib(mc.activation_bytes + mc.reserve_bytes), need, have);
      c.fix = mc.fits ? "" : "a smaller KV-cache precision, more TP or a device with more memory";
      c.quantity = "memory per device at the design load";
      c.value = mc.total_bytes;
      c.limit = mc.capacity_bytes;
    }
  }
  budget_constraints(in, hw, r);
  site_constraints(in, r);
  finish_feasibility(r);
  if (sim_out != nullptr && r.feasible) {
    SimOptions so;
    so.seed = in.seed;
    so.requests = in.verify_requests;
    so.warmup_requests = std::max<int64_t>(100, in.verify_requests / 10);
    const int working = std::max(1, r.replicas - in.constraints.redundancy);
    so.total_qps = std::min(r.design_qps, r.carried_qps) / working;
    auto sim = simulate(*e.step, e.cfg, pool.classes, so);
    if (sim) {
      *sim_out = *sim;
    } else {
      // Not verified (requests_measured stays 0), and the reason is kept, never swallowed.
      sim_out->note = "the simulator refused the check: " + sim.error().message;
    }
  }
  return r;
}

}  // namespace infercap::plan_detail

namespace infercap {

using plan_detail::evaluate;
using plan_detail::find_model;
using plan_detail::make_engine;
using plan_detail::pool_longest_tokens;

CandidateRow evaluate_candidate(const PlanInputs& in, const Pool& pool, const ModelSpec& model,
                                const HardwareSpec& hw, const StackSpec& stack,
                                const PrecisionChoice& prec, int tp, int max_seqs, EvalMemo* memo) {
  CandidateRow r = evaluate(in, pool, model, hw, stack, prec, tp, max_seqs, {}, nullptr, memo);
  r.objective_value = r.cost.tco_usd;
  return r;
}

Result<KneeResult> candidate_knee(const PlanInputs& in, const CandidateRow& row,
                                  const KneeOptions& opt) {
  const HardwareSpec* hw = nullptr;
  for (const auto& h : in.space.hardware)
    if (h.name == row.hardware) hw = &h;
  const StackSpec* st = nullptr;
  for (const auto& x : in.space.stacks)
    if (x.name == row.stack) st = &x;
  const Pool* pool = nullptr;
  for (const auto& p : in.pools)
    if (p.name == row.pool) pool = &p;
  for (const auto& p : in.baseline_pools)
    if (p.name == row.pool) pool = &p;
  auto prec = precision_preset(row.precision);
  if (prec && !row.kv_precision.empty()) prec = with_kv_precision(*prec, row.kv_precision);
  const ModelSpec* model = find_model(in, row.model);
  if (hw == nullptr || st == nullptr || pool == nullptr || !prec || model == nullptr ||
      pool->classes.empty()) {
    return Error{fmt::format("candidate {} {} {} is not part of these inputs", row.hardware,
                             row.stack, row.precision)};
  }
  auto eng =
      make_engine(in, *model, *hw, *st, *prec, row.tp, row.max_seqs, pool_longest_tokens(*pool));
  if (!eng) return eng.error();
  return batch_knee(*eng->step, eng->cfg, pool->classes.front(), opt);
}
}  // namespace infercap
