// The solver on a synthetic device and model: sizing, power, constraints and explanations are
// checked against formulas stated here, using the solver's own per-replica capacity as input.
#include <fmt/core.h>
#include <catch2/catch.hpp>
#include <cmath>

#include "infercap/perf.hpp"
#include "infercap/solver.hpp"
#include "infercap/units.hpp"
#include "solver_fixture.hpp"

using namespace infercap;

using namespace solver_fixture;

TEST_CASE("precision presets name their formats", "[unit][solver]") {
  auto w8a8 = precision_preset("int8");
  REQUIRE(w8a8.ok());
  CHECK(w8a8->precision.weights == DType::int8);
  CHECK(w8a8->precision.activations == DType::int8);
  auto w4 = precision_preset("int4");
  REQUIRE(w4.ok());
  CHECK(w4->precision.weights == DType::int4);
  CHECK(w4->precision.activations == DType::bf16);
  auto bad = precision_preset("int3");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("bf16") != std::string::npos);  // lists the known ones
}

TEST_CASE("tiers split every rate by their share", "[unit][solver]") {
  RequestClass c = chat(10, 4);
  c.rate.hourly_qps.assign(24, 2.0);
  auto pools = tiered_pools({c}, {{"small", "a", 0.8}, {"large", "b", 0.2}});
  REQUIRE(pools.ok());
  REQUIRE(pools->size() == 2);
  CHECK((*pools)[0].model == "a");
  CHECK((*pools)[0].classes[0].model == "a");
  CHECK((*pools)[0].classes[0].rate.peak_qps == Approx(8));
  CHECK((*pools)[1].classes[0].rate.mean_qps == Approx(0.8));
  CHECK((*pools)[1].classes[0].rate.hourly_qps[5] == Approx(0.4));
  CHECK_FALSE(tiered_pools({c}, {{"a", "a", 0.5}, {"b", "b", 0.4}}).ok());  // sums to 0.9
  CHECK_FALSE(tiered_pools({c}, {{"a", "a", 1.2}, {"b", "b", -0.2}}).ok());
}

TEST_CASE("a candidate is sized, powered and priced by the stated formulas", "[unit][solver]") {
  PlanInputs in = inputs(20000, 8000);
  in.constraints.redundancy = 1;
  const CandidateRow r = eval(in);
  REQUIRE(r.feasible);
  REQUIRE(r.max_qps_per_replica > 0);
  // replicas = ceil(design / max_qps) + redundancy
  const int working = static_cast<int>(std::ceil(20000.0 / r.max_qps_per_replica - 1e-9));
  CHECK(r.replicas == working + 1);
  CHECK(r.devices == r.replicas);  // TP 1
  // 4 devices per server, one replica per device.
  CHECK(r.servers == (r.replicas + 3) / 4);
  CHECK(r.rack_units == 2 * r.servers);
  // Power at the average load: devices * (idle + u * (tdp - idle)) + servers * host.
  const double expect_w = r.devices * (50 + r.utilisation_average * (300 - 50)) + r.servers * 400.0;
  CHECK(r.power_w == Approx(expect_w));
  CHECK(r.provisioned_w == Approx(r.devices * 300.0 + r.servers * 400.0));
  CHECK(r.utilisation_average < r.utilisation);  // the mean load is below the design load
  // Capex: devices * $10k + servers * $20k; the two-year horizon consumes 2/3 of it.
  CHECK(r.cost.capex_usd == Approx(r.devices * 10000.0 + r.servers * 20000.0));
  CHECK(r.cost.capital_usd == Approx(r.cost.capex_usd * 2.0 / 3.0));
  // Energy: IT power * PUE * 8760 h per year, two years.
  CHECK(r.cost.energy_kwh == Approx(2 * expect_w * 1.5 * 8.76));
  // Tokens per joule: mean rate * 50 output tokens / IT watts.
  CHECK(r.tokens_per_joule == Approx(8000.0 * 50 / expect_w));
  // The SLA margin says how far below one replica's capacity each working replica runs.
  const Constraint* sla = find(r, "sla");
  REQUIRE(sla != nullptr);
  CHECK(sla->ok);
  CHECK(sla->margin == Approx(1 - (20000.0 / working) / r.max_qps_per_replica));
  CHECK(working > 1);
}

TEST_CASE("load growth buys more replicas in later years", "[unit][solver]") {
  PlanInputs in = inputs(5000, 2500);
  in.constraints.horizon_years = 3;
  in.constraints.load_growth_per_year = 1.0;  // doubles each year
  const CandidateRow r = eval(in);
  REQUIRE(r.feasible);
  REQUIRE(r.years.size() == 3);
  for (int y = 0; y < 3; ++y) {
    const double design = 5000 * std::pow(2.0, y);
    CHECK(r.years[y].devices == std::ceil(design / r.max_qps_per_replica - 1e-9));
  }
  CHECK(r.design_qps == Approx(20000));
  CHECK(r.years[2].devices > r.years[0].devices);
  // Purchases follow the growth: the first at year 0, later ones when the count rises.
  REQUIRE(!r.cost.purchases.empty());
  CHECK(r.cost.purchases.front().year == 0);
  double bought = 0;
  for (const auto& p : r.cost.purchases) bought += p.devices;
  CHECK(bought == r.years.back().devices);
}

TEST_CASE("a model that does not fit is rejected with the memory arithmetic", "[unit][solver]") {
  PlanInputs in = inputs(10, 5);
  in.space.hardware = {test_gpu(0.05 * kGiB)};
  const CandidateRow r = eval(in);
  CHECK_FALSE(r.feasible);
  const Constraint* b = r.binding_constraint();
  REQUIRE(b != nullptr);
  CHECK(b->name == "memory");
  CHECK(b->margin < 0);
  // The message states the need and the capacity the PerfModel computes.
  Deployment dep;
  dep.precision = precision_preset("bf16")->precision;
  auto perf = PerfModel::create(in.models[0], in.space.hardware[0], ideal_stack(), dep);
  REQUIRE(perf.ok());
  const MemoryReport m = perf->memory(1, 250, in.serving.max_batched_tokens);
  CHECK_FALSE(m.fits);
  CHECK(b->message.find(fmt::format("{:.1f} GiB", m.total_bytes / kGiB)) != std::string::npos);
  CHECK(b->message.find("0.1 GiB") != std::string::npos);  // the device's 0.05 GiB, rounded
  CHECK(b->margin == Approx((m.capacity_bytes - m.total_bytes) / m.capacity_bytes));
}

TEST_CASE("an SLA below the physical floor names the floor and the relaxation", "[unit][solver]") {
  PlanInputs in = inputs(10, 5);
  in.pools[0].classes[0].sla.ttft.limit_s = 1e-7;  // 100 ns: below any prefill
  const CandidateRow r = eval(in);
  CHECK_FALSE(r.feasible);
  CHECK(r.max_qps_per_replica == 0);
  const Constraint* b = r.binding_constraint();
  REQUIRE(b != nullptr);
  CHECK(b->name == "sla");
  CHECK(b->message.find("TTFT P99") != std::string::npos);
  CHECK(b->message.find("vanishing load") != std::string::npos);
  CHECK(b->fix.find("relax TTFT P99 to") != std::string::npos);
  CHECK(b->margin < -1);  // misses by orders of magnitude
}

TEST_CASE("a capex budget below the fleet's price rejects it and says by how much",
          "[unit][solver]") {
  PlanInputs in = inputs(100, 50);
  const CandidateRow free = eval(in);
  REQUIRE(free.feasible);
  in.constraints.capex_budget_usd = free.cost.capex_usd * 0.5;
  const CandidateRow r = eval(in);
  CHECK_FALSE(r.feasible);
  const Constraint* b = r.binding_constraint();
  REQUIRE(b != nullptr);
  CHECK(b->name == "capex_budget");
  CHECK(b->margin == Approx(-1.0));  // (budget - capex) / budget with capex = 2 * budget
  auto plan = solve(in);
  REQUIRE(plan.ok());
  CHECK_FALSE(plan->feasible);
  CHECK(plan->infeasible_reason.find("capex_budget") != std::string::npos);
  CHECK(plan->infeasible_reason.find("add $") != std::string::npos);
}

TEST_CASE("power and rack caps are checked on nameplate power and height", "[unit][solver]") {
  PlanInputs in = inputs(100, 50);
  const CandidateRow free = eval(in);
  REQUIRE(free.feasible);
  in.constraints.power_cap_w = free.provisioned_w - 1;
  in.constraints.rack_units = free.rack_units;
  const CandidateRow r = eval(in);
  CHECK_FALSE(r.feasible);
  CHECK(r.binding_constraint()->name == "power");
  CHECK(find(r, "rack")->ok);
}

TEST_CASE("max QPS within a budget buys as many replicas as the budget allows", "[unit][solver]") {
  PlanInputs in = inputs(100, 50);
  in.objective = Objective::max_qps_within_budget;
  in.constraints.capex_budget_usd = 95000;  // 4 devices (40k) + 1 server (20k) = 60k; 5+2 = 90k
  auto plan = solve(in);
  REQUIRE(plan.ok());
  REQUIRE(plan->feasible);
  const CandidateRow& r = plan->pools[0].ranked.front();
  // 7 devices: 70k + 2 servers 40k = 110k > 95k; 6 devices: 60k + 40k = 100k > 95k;
  // 5 devices: 50k + 40k = 90k <= 95k.
  CHECK(r.objective_value == Approx(5 * r.max_qps_per_replica));
  // The row is sized as the budget buys it.
  CHECK(r.replicas == 5);
  CHECK(r.cost.capex_usd == Approx(90000));
}

TEST_CASE("solve ranks by TCO and keeps the Pareto front non-dominated", "[unit][solver]") {
  PlanInputs in = inputs(300, 100);
  in.space.tp = {1, 2, 4};
  in.space.max_seqs = {8, 64};
  in.verify_top = 2;
  in.verify_requests = 1000;
  auto plan = solve(in);
  REQUIRE(plan.ok());
  REQUIRE(plan->feasible);
  const auto& ranked = plan->pools[0].ranked;
  REQUIRE(ranked.size() >= 2);
  for (size_t i = 1; i < ranked.size(); ++i)
    CHECK(ranked[i - 1].cost.tco_usd <= ranked[i].cost.tco_usd);
  CHECK(ranked[0].rank == 1);
  CHECK(plan->recommended.parts.front().hardware == "testgpu");
  CHECK(plan->candidates_verified == 2);
  for (const auto& a : plan->pools[0].pareto)
    for (const auto& b : plan->pools[0].pareto)
      CHECK_FALSE((b.cost.tco_usd < a.cost.tco_usd && b.e2e_p99_s < a.e2e_p99_s));
  CHECK(plan->pools[0].pareto.front().cost.tco_usd == ranked.front().cost.tco_usd);
}

TEST_CASE("plan inputs are validated field by field", "[unit][solver]") {
  PlanInputs in = inputs(10, 5);
  in.constraints.horizon_years = 0;
  in.constraints.redundancy = -1;
  in.space.tp = {0};
  const auto errs = validate(in);
  REQUIRE(errs.size() == 3);
  CHECK(errs[0].find("candidates.tp") != std::string::npos);
  CHECK(errs[1].find("horizon_years") != std::string::npos);
  CHECK(errs[2].find("redundancy") != std::string::npos);
  CHECK_FALSE(solve(in).ok());
  PlanInputs bad_model = inputs(10, 5);
  bad_model.pools[0].model = "nope";
  CHECK_FALSE(solve(bad_model).ok());
}

TEST_CASE("an NPU that saves hardware wins a fixed model and loses to monthly re-ports",
          "[unit][solver]") {
  // Seed 004: the NPU's price advantage against the engineering of each port. The NPU here is the
  // test GPU's twin at half the unit price; porting costs 2 engineer-weeks at first and 2 per
  // model change, at $4000 a week.
  PlanInputs in = inputs(20000, 8000);
  HardwareSpec npu = test_gpu();
  npu.name = "testnpu";
  npu.hw_class = HwClass::npu;
  in.space.hardware.push_back(npu);
  DevicePricing np = in.prices.devices[0];
  np.hardware = "testnpu";
  np.tiers = {{1, 5000}};
  np.porting_family = "npu-sdk";
  in.prices.devices.push_back(np);
  in.prices.porting.push_back({"npu-sdk", 2, 2, true});
  in.prices.engineer_week_usd = 4000;
  auto fixed = solve(in);
  REQUIRE(fixed.ok());
  REQUIRE(fixed->pools[0].ranked.size() == 2);
  const CandidateRow* n = nullptr;
  const CandidateRow* g = nullptr;
  for (const auto& r : fixed->pools[0].ranked) (r.hw_class == HwClass::npu ? n : g) = &r;
  REQUIRE(n != nullptr);
  REQUIRE(g != nullptr);
  CHECK(n->devices == g->devices);  // twins: same capacity, same fleet
  // Hardware saving over the 2-year horizon: devices x $5000 x (2/3 capital + 2 x 10% upkeep).
  const double saving = n->devices * 5000.0 * (2.0 / 3.0 + 0.2);
  CHECK(g->cost.tco_usd - (n->cost.tco_usd - n->cost.porting_usd) == Approx(saving));
  CHECK(n->cost.porting_usd == Approx(2 * 4000.0));
  REQUIRE(saving > 8000);
  CHECK(fixed->recommended.parts[0].hardware == "testnpu");
  in.constraints.model_changes_per_year = 12;  // 24 changes over 2 years: 2 + 48 weeks
  auto monthly = solve(in);
  REQUIRE(monthly.ok());
  REQUIRE(saving < (2 + 48) * 4000.0);
  CHECK(monthly->recommended.parts[0].hardware == "testgpu");
}

TEST_CASE("the batch knee of a candidate comes from its own engine", "[unit][solver]") {
  PlanInputs in = inputs(2000, 800);
  const CandidateRow r = eval(in);
  REQUIRE(r.feasible);
  KneeOptions ko;
  ko.batch_caps = {1, 2, 4, 8, 16};
  ko.requests = 300;
  auto knee = candidate_knee(in, r, ko);
  REQUIRE(knee.ok());
  REQUIRE(knee->points.size() == 5);
  CHECK(knee->knee_batch == knee->points[static_cast<size_t>(knee->knee_index)].max_seqs);
  // A memory-bound decode: batching 8 sequences moves more tokens than one at a time.
  CHECK(knee->points[3].output_tokens_per_s > knee->points[0].output_tokens_per_s);
  CandidateRow other = r;
  other.hardware = "nope";
  CHECK_FALSE(candidate_knee(in, other, ko).ok());
}
