// The evaluation memo (infercap/eval_memo.hpp): a solve that shares a memo with related solves
// returns the same plan, to the last bit, as the same solve on its own; the memo is actually
// used (hits); inputs it must not reuse (a different SLA, another workload shape) are not
// reused; and concurrent solves may share it.
#include <fmt/core.h>

#include <catch2/catch.hpp>
#include <future>
#include <string>
#include <vector>

#include "catalog_fixture.hpp"
#include "infercap/eval_memo.hpp"
#include "infercap/sensitivity.hpp"
#include "infercap/solver.hpp"
#include "infercap/spec/scenario.hpp"

using namespace infercap;

namespace {

const std::string kData = INFERCAP_SOURCE_DIR "/data";

PlanInputs example(const std::string& name) {
  spec::Diagnostics d;
  auto sc = spec::load_scenario(kData + "/examples/" + name + ".yaml", kData, d);
  REQUIRE(sc);
  auto in = spec::to_plan_inputs(*sc, test::project_catalog().catalog, d);
  REQUIRE(in);
  return *in;
}

// Every number of a row in hexadecimal floating point ({:a}: the exact bits), with its words.
void put_row(std::string& s, const CandidateRow& r) {
  s += fmt::format("{} {} {} {} {} TP{} b{} rank{} {} {}\n", r.pool, r.hardware, r.precision,
                   r.kv_precision, r.stack, r.tp, r.max_seqs, r.rank, r.feasible, r.sized_by);
  s += fmt::format("  qps {:a} {} design {:a} carried {:a} rep {} dev {} srv {} ru {}\n",
                   r.max_qps_per_replica, r.limited_by, r.design_qps, r.carried_qps, r.replicas,
                   r.devices, r.servers, r.rack_units);
  s += fmt::format("  lat {:a} {:a} {:a} {:a} {:a} util {:a} {:a} busy {:a} kv {:a} seq {:a}\n",
                   r.ttft_p50_s, r.ttft_p99_s, r.tpot_p50_s, r.tpot_p99_s, r.e2e_p99_s,
                   r.utilisation, r.utilisation_average, r.engine_busy, r.kv_occupancy,
                   r.sequences_in_flight);
  s +=
      fmt::format("  mem {:a} {:a} pw {:a} {:a} {:a} tpj {:a} rpj {:a} ots {:a}\n",
                  r.weights_bytes_per_device, r.memory_bytes_per_device, r.power_w, r.peak_power_w,
                  r.provisioned_w, r.tokens_per_joule, r.requests_per_joule, r.output_tokens_per_s);
  s += fmt::format("  tco {:a} capex {:a} energy {:a} {:a} obj {:a} sim {} {} {:a} {:a} {:a}\n",
                   r.cost.tco_usd, r.cost.capex_usd, r.cost.energy_usd, r.cost.energy_kwh,
                   r.objective_value, r.verified, r.sim_meets_sla, r.sim_ttft_p99_s,
                   r.sim_tpot_p99_s, r.sim_e2e_p99_s);
  for (const auto& c : r.constraints)
    s += fmt::format("  [{} {} {:a} {:a} {:a}] {} | {}\n", c.name, c.ok, c.margin, c.value, c.limit,
                     c.message, c.fix);
}

// The plan as text that differs whenever any of its numbers differs in any bit.
std::string fingerprint(const Plan& p) {
  std::string s = fmt::format("{} feasible {} evaluated {} verified {}\n{}\n", p.name, p.feasible,
                              p.candidates_evaluated, p.candidates_verified, p.infeasible_reason);
  for (const auto& x : p.suggestions) s += "suggest " + x + "\n";
  for (const auto& pr : p.pools) {
    s += "pool " + pr.pool.name + "\n";
    for (const auto& r : pr.ranked) put_row(s, r);
    for (const auto& r : pr.rejected) put_row(s, r);
    for (const auto& r : pr.pareto) s += "pareto " + candidate_key(r) + "\n";
  }
  auto fleet = [&](const FleetChoice& f) {
    s += fmt::format("fleet {} {} {:a} {} {} {:a} {}\n", f.label, fleet_key(f), f.cost.tco_usd,
                     f.devices, f.servers, f.power_w, f.note);
    for (const auto& r : f.parts) put_row(s, r);
  };
  fleet(p.recommended);
  for (const auto& f : p.alternatives) fleet(f);
  return s;
}

std::string solve_fresh(const PlanInputs& in) {
  auto p = solve(in);
  REQUIRE(p);
  return fingerprint(*p);
}

std::string solve_with(const PlanInputs& in, EvalMemo& memo) {
  auto p = solve(in, memo);
  REQUIRE(p);
  return fingerprint(*p);
}

PlanInputs scaled_load(PlanInputs in, double f) {
  for (auto& p : in.pools)
    for (auto& c : p.classes) c = scale_rate(c, f);
  return in;
}

}  // namespace

TEST_CASE("evaluation memo: related solves sharing one return the plans they return alone",
          "[solver]") {
  const PlanInputs in = example("support-bot");
  EvalMemo memo;
  // The plan as given (simulator re-checks included), then the variations sensitivity solves.
  CHECK(solve_with(in, memo) == solve_fresh(in));
  const EvalMemo::Stats first = memo.stats();
  CHECK(first.misses > 0);
  // Within one solve the simulator re-checks re-evaluate the finalists: those are hits.
  CHECK(first.hits > 0);

  PlanInputs analytic = in;
  analytic.verify_top = 0;
  CHECK(solve_with(analytic, memo) == solve_fresh(analytic));
  const EvalMemo::Stats second = memo.stats();
  // The same candidates and the same workload: nothing new to compute.
  CHECK(second.misses == first.misses);
  CHECK(second.hits > first.hits);

  for (double f : {0.5, 1.5, 1.145}) {
    INFO("load x" << f);
    const PlanInputs x = scaled_load(analytic, f);
    CHECK(solve_with(x, memo) == solve_fresh(x));
  }
  PlanInputs longer = analytic;
  longer.constraints.horizon_years += 1;
  CHECK(solve_with(longer, memo) == solve_fresh(longer));
  PlanInputs dearer = analytic;
  dearer.prices.electricity_usd_per_kwh *= 1.5;
  CHECK(solve_with(dearer, memo) == solve_fresh(dearer));

  // A halved SLA changes every answer: the memo must not hand back the old ones.
  PlanInputs tight = analytic;
  for (auto& p : tight.pools)
    for (auto& c : p.classes)
      for (SlaTarget* t : {&c.sla.ttft, &c.sla.tpot, &c.sla.e2e})
        if (t->set()) t->limit_s *= 0.5;
  const std::string tight_fresh = solve_fresh(tight);
  CHECK(tight_fresh != solve_fresh(analytic));
  CHECK(solve_with(tight, memo) == tight_fresh);
  // A longer prompt is another workload shape.
  PlanInputs longer_prompts = analytic;
  for (auto& p : longer_prompts.pools)
    for (auto& c : p.classes) c.prompt_tokens.mu += 0.5;
  CHECK(solve_with(longer_prompts, memo) == solve_fresh(longer_prompts));
}

TEST_CASE("evaluation memo: two request classes scaled together keep their exact answers",
          "[solver]") {
  // Two classes with different shapes and rates: the analytic model reads their shares of the
  // load, which a scale factor may move in the last bit, so reuse must follow those bits.
  PlanInputs in = example("support-bot");
  in.verify_top = 2;
  RequestClass second = in.pools.front().classes.front();
  second.name = "batch";
  second.rate.mean_qps = 0.7;
  second.rate.peak_qps = 1.3;
  second.prompt_tokens.mu -= 1.0;
  second.sla.ttft.limit_s = 2.0;
  in.pools.front().classes.push_back(second);
  EvalMemo memo;
  CHECK(solve_with(in, memo) == solve_fresh(in));
  for (double f : {0.5, 1.5, 1.145, 3.0, 0.1}) {
    INFO("load x" << f);
    const PlanInputs x = scaled_load(in, f);
    CHECK(solve_with(x, memo) == solve_fresh(x));
  }
}

TEST_CASE("evaluation memo: every fleet strategy's plan is unchanged by a shared memo",
          "[solver]") {
  for (const char* name : {"staged-growth", "promo-burst", "tiered-routing", "power-capped-room"}) {
    INFO(name);
    const PlanInputs in = example(name);
    EvalMemo memo;
    CHECK(solve_with(in, memo) == solve_fresh(in));
    const PlanInputs x = scaled_load(in, 1.5);
    CHECK(solve_with(x, memo) == solve_fresh(x));
  }
}

TEST_CASE("evaluation memo: concurrent solves may share one", "[solver]") {
  PlanInputs in = example("support-bot");
  in.verify_top = 0;
  std::vector<PlanInputs> variants;
  for (double f : {0.5, 1.0, 1.5, 2.0}) variants.push_back(scaled_load(in, f));
  std::vector<std::string> alone;
  for (const auto& v : variants) alone.push_back(solve_fresh(v));
  EvalMemo memo;
  std::vector<std::future<std::string>> jobs;
  for (int round = 0; round < 2; ++round)
    for (const auto& v : variants)
      jobs.push_back(std::async(std::launch::async, [&memo, &v] {
        auto p = solve(v, memo);
        return p ? fingerprint(*p) : std::string("error");
      }));
  for (size_t i = 0; i < jobs.size(); ++i) CHECK(jobs[i].get() == alone[i % variants.size()]);
  CHECK(memo.stats().hits > 0);
}

TEST_CASE("evaluation memo: sensitivity's cases are those of each change solved alone",
          "[solver]") {
  // sensitivity() shares one memo across its re-solves; each case must read as if its inputs
  // had been solved on their own (analytic ranking, as the cases are solved).
  const PlanInputs in = example("support-bot");
  auto plan = solve(in);
  REQUIRE(plan);
  SensitivityOptions o;
  o.model_error_fraction = 0.145;
  const Sensitivity s = sensitivity(in, *plan, o);
  PlanInputs base = in;
  base.verify_top = 0;
  for (const auto& c : s.cases) {
    PlanInputs x = base;
    if (c.param == SensitivityParam::load || c.param == SensitivityParam::model_error) {
      x = scaled_load(base, c.factor);
    } else if (c.param == SensitivityParam::horizon) {
      x.constraints.horizon_years += static_cast<int>(c.factor);
    } else {
      continue;  // prices are re-priced (tested in test_report.cpp); SLA cases prune hardware
    }
    INFO(sensitivity_param_name(c.param) << " x" << c.factor);
    auto alone = solve(x);
    REQUIRE(alone);
    REQUIRE(c.feasible == alone->feasible);
    if (!c.feasible) continue;
    CHECK(c.choice == fleet_key(alone->recommended));
    CHECK(c.tco_usd == alone->recommended.cost.tco_usd);  // exactly: the same arithmetic
  }
}
