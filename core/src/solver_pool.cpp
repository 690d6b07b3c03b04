// One pool: enumerate the search space, evaluate and size every candidate, apply the
// objective, rank, re-check the finalists with the simulator, and keep the Pareto front.

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "solver_internal.hpp"

namespace infercap::plan_detail {

struct Enumerated {
  const HardwareSpec* hw;
  const StackSpec* stack;
  const PrecisionChoice* prec;
  int tp;
  int max_seqs;
};

PoolResult solve_pool(const PlanInputs& in, const Pool& pool, const ModelSpec& model,
                      int* evaluated, int* verified, EvalMemo* memo) {
  PoolResult pr;
  pr.pool = pool;
  std::vector<CandidateRow> rows;
  std::vector<Enumerated> keys;
  // Each precision with each KV-cache format of the search (or its own); held here so the
  // enumerated keys can point at them.
  std::vector<PrecisionChoice> precisions;
  for (const auto& pc : in.space.precisions) {
    if (in.space.kv_precisions.empty()) {
      precisions.push_back(pc);
      continue;
    }
    for (const auto& kv : in.space.kv_precisions)
      if (auto x = with_kv_precision(pc, kv)) precisions.push_back(*x);
  }
  for (const auto& hw : in.space.hardware) {
    if (!class_allowed(pool.allowed_classes, hw.hw_class)) continue;
    for (const auto& st : in.space.stacks) {
      // A stack that does not run on this class or vendor is not a candidate (as TP beyond a
      // server).
      if (!stack_runs_on(st, hw) || !class_tries_stack(in.space, hw.hw_class, st)) continue;
      for (const auto& pc : precisions) {
        for (int tp : in.space.tp) {
          // A replica lives in one server: larger TP is not a candidate, not a rejection.
          if (tp > hw.devices_per_server) continue;
          for (int ms : in.space.max_seqs) {
            keys.push_back({&hw, &st, &pc, tp, ms});
            rows.push_back(evaluate(in, pool, model, hw, st, pc, tp, ms, {}, nullptr, memo));
            ++*evaluated;
          }
        }
      }
    }
  }
  // How each row is sized: the design load (plus simulator spares), or what the caps buy.
  std::vector<SizeRequest> sizing(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    auto& r = rows[i];
    if (sizes_by_caps(in.objective)) {
      const Enumerated& k = keys[i];
      r = size_by_caps(in, pool, model, *k.hw, *k.stack, *k.prec, k.tp, k.max_seqs, r, &sizing[i],
                       memo);
    }
    r.objective_value = objective_of(in.objective, r);
  }
  // Rank, then verify the finalists with the simulator; a finalist sized for the design load that
  // the simulator fails gets more replicas (below) and is re-ranked.
  auto rank = [&] {
    std::vector<size_t> order;
    for (size_t i = 0; i < rows.size(); ++i)
      if (rows[i].feasible) order.push_back(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return better(rows[a], rows[b], in.objective); });
    return order;
  };
  std::vector<size_t> order = rank();
  const size_t n_verify = std::min(order.size(), static_cast<size_t>(std::max(0, in.verify_top)));
  for (size_t j = 0; j < n_verify; ++j) {
    const size_t i = order[j];
    const Enumerated& k = keys[i];
    // The analytic path may be optimistic: add a quarter of the fleet (at least one replica)
    // per failed simulator check, up to six times (about 3.8x the fleet).
    if (sizes_by_caps(in.objective)) {
      // The caps fix the fleet: the simulator checks it at the load it carries, adding nothing.
      ServingResult sim;
      evaluate(in, pool, model, *k.hw, *k.stack, *k.prec, k.tp, k.max_seqs, sizing[i], &sim, memo);
      CandidateRow& r = rows[i];
      r.verified = sim.requests_measured > 0;
      r.sim_meets_sla = sim.meets_sla;
      r.sim_ttft_p99_s = sim.all.ttft.p99_s;
      r.sim_tpot_p99_s = sim.all.tpot.p99_s;
      r.sim_e2e_p99_s = sim.all.e2e.p99_s;
      if (r.verified) ++*verified;  // only rows the simulator measured count as verified
      continue;
    }
    SizeRequest req = sizing[i];
    for (int attempt = 0; attempt <= 6; ++attempt) {
      ServingResult sim;
      CandidateRow r =
          evaluate(in, pool, model, *k.hw, *k.stack, *k.prec, k.tp, k.max_seqs, req, &sim, memo);
      if (!r.feasible) {
        rows[i] = r;
        break;
      }
      r.objective_value = objective_of(in.objective, r);
      r.verified = sim.requests_measured > 0;
      r.sim_meets_sla = sim.meets_sla;
      r.sim_ttft_p99_s = sim.all.ttft.p99_s;
      r.sim_tpot_p99_s = sim.all.tpot.p99_s;
      r.sim_e2e_p99_s = sim.all.e2e.p99_s;
      rows[i] = r;
      if (r.verified && sim.meets_sla && req.extra_replicas > 0) {
        // The simulator, not the analytic model, set this fleet's size.
        // Its slack is the simulator's: 1 - the largest P99 / limit ratio of the SLA.
        const double slack =
            std::isfinite(sim.all.binding_ratio) ? std::max(0.0, 1 - sim.all.binding_ratio) : 0.0;
        add(rows[i], "simulated_sla", true, slack,
            fmt::format("the simulator needed {} replicas more than the analytic {} to meet the "
                        "SLA (P99 TTFT {}, TPOT {})",
                        req.extra_replicas, r.replicas - req.extra_replicas,
                        seconds(sim.all.ttft.p99_s), seconds(sim.all.tpot.p99_s)));
        rows[i].sized_by = "simulated_sla";
        finish_feasibility(rows[i]);
      }
      if (!r.verified || sim.meets_sla) break;
      if (attempt == 6) {
        add(rows[i], "simulated_sla", false, -1,
            fmt::format("the simulator misses the SLA even with {} extra replicas (P99 TTFT {}, "
                        "TPOT {}{})",
                        req.extra_replicas, seconds(sim.all.ttft.p99_s),
                        seconds(sim.all.tpot.p99_s), sim.note.empty() ? "" : "; " + sim.note));
        finish_feasibility(rows[i]);
        break;
      }
      req.extra_replicas += std::max(1, r.replicas / 4);
    }
    if (rows[i].verified) ++*verified;  // only rows the simulator measured count as verified
  }
  order = rank();
  for (size_t j = 0; j < order.size(); ++j) {
    rows[order[j]].rank = static_cast<int>(j) + 1;
    pr.ranked.push_back(rows[order[j]]);
  }
  for (auto& r : rows)
    if (!r.feasible) pr.rejected.push_back(r);
  // Partial answers (max_qps_*): every constraint holds but the design load; most load first.
  for (const auto& r : pr.rejected) {
    bool short_only = r.carried_qps > 0;
    for (const auto& c : r.constraints)
      short_only = short_only && (c.ok || c.name == "design_load");
    if (short_only) pr.partial.push_back(r);
  }
  std::stable_sort(
      pr.partial.begin(), pr.partial.end(),
      [&](const CandidateRow& a, const CandidateRow& b) { return better(a, b, in.objective); });
  // Pareto front on (TCO, P99 end-to-end latency at the design load).
  for (const auto& a : pr.ranked) {
    bool dominated = false;
    for (const auto& b : pr.ranked) {
      if (b.cost.tco_usd <= a.cost.tco_usd && b.e2e_p99_s <= a.e2e_p99_s &&
          (b.cost.tco_usd < a.cost.tco_usd || b.e2e_p99_s < a.e2e_p99_s)) {
        dominated = true;
        break;
      }
    }
    if (!dominated) pr.pareto.push_back(a);
  }
  std::sort(pr.pareto.begin(), pr.pareto.end(), [](const CandidateRow& a, const CandidateRow& b) {
    return a.cost.tco_usd < b.cost.tco_usd;
  });
  return pr;
}

}  // namespace infercap::plan_detail
