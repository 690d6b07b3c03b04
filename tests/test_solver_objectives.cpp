// Objectives under every cap at once, partial answers, min_energy, and money in the display
// currency. Fleet figures are derived by hand from the fixture's prices (solver_fixture.hpp):
//   capex(n devices)      = n x $10k + ceil(n / 4) x $20k
//   nameplate(n devices)  = n x 300 W + ceil(n / 4) x 400 W
//   rack units            = ceil(n / 4) x 2
// One replica's capacity q comes from the solver itself (its bisection is tested in
// test_serving_solver.cpp); the loads below are stated as multiples of q.
#include <fmt/core.h>
#include <catch2/catch.hpp>
#include <cmath>

#include "solver_fixture.hpp"

using namespace infercap;
using namespace solver_fixture;

namespace {

// One replica's capacity within the fixture's SLA (1 s TTFT P99).
double one_replica_qps() {
  const CandidateRow r = eval(inputs(10, 5));
  REQUIRE(r.max_qps_per_replica > 0);
  return r.max_qps_per_replica;
}

PlanInputs at_load(double peak_qps, double mean_qps) {
  PlanInputs in = inputs(peak_qps, mean_qps);
  return in;
}

const Constraint* constraint(const CandidateRow& r, const std::string& name) {
  return find(r, name);
}

}  // namespace

TEST_CASE("max QPS within a power cap buys what the cap allows and no more", "[unit][solver]") {
  const double q = one_replica_qps();
  // 2 kW: 4 devices + 1 server = 1200 + 400 = 1600 W fit; 5 devices + 2 servers = 2300 W do not.
  PlanInputs in = at_load(2 * q, q);
  in.objective = Objective::max_qps_within_power;
  in.constraints.power_cap_w = 2000;
  auto plan = solve(in);
  REQUIRE(plan.ok());
  REQUIRE(plan->feasible);
  const CandidateRow& r = plan->recommended.parts.front();
  CHECK(r.replicas == 4);  // not the 2 the design load needs: the objective is the most load
  CHECK(r.provisioned_w == Approx(1600));
  CHECK(r.carried_qps == Approx(4 * q));
  CHECK(r.objective_value == Approx(4 * q));
  const Constraint* d = constraint(r, "design_load");
  REQUIRE(d != nullptr);
  CHECK(d->ok);
  CHECK(d->margin == Approx((4 * q - 2 * q) / (2 * q)));  // carries twice the design load
  CHECK(d->message.find("the 2.0 kW power cap buys 4 x testgpu") != std::string::npos);
  // Rack objective: 4 U hold 2 servers = 8 devices.
  in.objective = Objective::max_qps_within_rack;
  in.constraints.power_cap_w = 0;
  in.constraints.rack_units = 4;
  auto rack = solve(in);
  REQUIRE(rack.ok());
  REQUIRE(rack->feasible);
  CHECK(rack->recommended.parts.front().replicas == 8);
  CHECK(rack->recommended.parts.front().rack_units == 4);
}

TEST_CASE("a cap below the design load is a partial answer with the design load's price",
          "[unit][solver]") {
  const double q = one_replica_qps();
  PlanInputs in = at_load(10 * q, 5 * q);
  in.objective = Objective::max_qps_within_power;
  in.constraints.power_cap_w = 2000;  // buys 4 devices (above)
  auto plan = solve(in);
  REQUIRE(plan.ok());
  CHECK_FALSE(plan->feasible);  // exit 5: nothing meets the design load
  REQUIRE(plan->recommended.partial);
  const CandidateRow& r = plan->recommended.parts.front();
  CHECK(r.replicas == 4);
  CHECK(r.carried_qps == Approx(4 * q));
  REQUIRE(plan->pools[0].partial.size() == 1);
  // The design load needs ceil(10q / q) = 10 devices in 3 servers: capex 10 x 10k + 3 x 20k =
  // $160k, nameplate 10 x 300 + 3 x 400 = 4.2 kW, 6 rack units.
  const std::string& h = plan->infeasible_reason;
  // Rates above 100 req/s are shown as whole numbers (apart() keeps the integer digits).
  REQUIRE(q > 100);
  CHECK(h.find(fmt::format("the 2.0 kW power cap buys {:.0f} of the {:.0f} req/s you need, on 4 x "
                           "testgpu (bf16 TP1)",
                           4 * q, 10 * q)) != std::string::npos);
  CHECK(h.find(fmt::format("; {:.0f} req/s needs 10 x testgpu", 10 * q)) != std::string::npos);
  CHECK(h.find("needs 10 x testgpu: capex $160k, 4.2 kW nameplate, 6 rack units") !=
        std::string::npos);
  const Constraint* d = constraint(r, "design_load");
  REQUIRE(d != nullptr);
  CHECK_FALSE(d->ok);
  CHECK(d->margin == Approx((4 * q - 10 * q) / (10 * q)));
  CHECK(d->fix == "raise the power cap to 4.2 kW");
  // Latency and energy are those of the load the fleet takes: each working replica at q.
  CHECK(r.utilisation > 0);
  CHECK(r.years.back().requests == Approx(4 * q * 8760 * 3600).epsilon(1e-9));
}

TEST_CASE("max QPS within a budget is sized within every cap at once", "[unit][solver]") {
  const double q = one_replica_qps();
  PlanInputs in = at_load(2 * q, q);
  in.objective = Objective::max_qps_within_budget;
  // $95k buys 5 devices (5 x 10k + 2 x 20k = $90k); the 2 kW power cap only 4 (1600 W). Before,
  // the budget sized the fleet and the power cap then rejected it.
  in.constraints.capex_budget_usd = 95000;
  in.constraints.power_cap_w = 2000;
  auto plan = solve(in);
  REQUIRE(plan.ok());
  REQUIRE(plan->feasible);
  const CandidateRow& r = plan->recommended.parts.front();
  CHECK(r.replicas == 4);
  CHECK(r.cost.capex_usd == Approx(60000));  // 4 x 10k + 1 x 20k
  const Constraint* d = constraint(r, "design_load");
  REQUIRE(d != nullptr);
  CHECK(d->message.find("the 2.0 kW power cap buys") != std::string::npos);  // the binding cap
  for (const auto& c : r.constraints) CHECK(c.ok);
}

TEST_CASE("max QPS within an annual budget counts energy, upkeep and operations",
          "[unit][solver]") {
  const double q = one_replica_qps();
  PlanInputs in = at_load(2 * q, q);
  // Idle = TDP makes each device draw 300 W at any load, so the energy is exact by hand.
  in.space.hardware[0].idle_w = 300;
  in.objective = Objective::max_qps_within_budget;
  // Over the 2-year horizon (depreciation 3 years, 10% upkeep a year, $1000 per server-year,
  // IT W x 1.5 PUE x 8760 h x $0.10/kWh):
  //   4 devices, 1 server (capex 60k): capital 60k x 2/3 = 40000, upkeep 2 x 6000 = 12000,
  //     ops 2000, energy 2 x (1600 W x 1.5 x 8760 h = 21024 kWh) x 0.1 = 4204.8
  //     -> TCO 58204.8, 29102.4 a year
  //   5 devices, 2 servers (capex 90k): capital 60000, upkeep 18000, ops 4000,
  //     energy 2 x (2300 W x 1.5 x 8760 h = 30222 kWh) x 0.1 = 6044.4 -> 88044.4, 44022.2 a year
  //   6 devices, 2 servers (capex 100k): 66666.7 + 20000 + 4000 + 6832.8 -> 48749.7 a year
  in.constraints.annual_budget_usd = 30000;
  auto plan = solve(in);
  REQUIRE(plan.ok());
  REQUIRE(plan->feasible);
  const CandidateRow& r = plan->recommended.parts.front();
  CHECK(r.replicas == 4);
  CHECK(r.cost.tco_usd == Approx(58204.8));
  CHECK(r.cost.tco_usd / 2 <= 30000);
  in.constraints.annual_budget_usd = 44022.2 + 1;  // now 5 fit, not 6
  auto more = solve(in);
  REQUIRE(more.ok());
  CHECK(more->recommended.parts.front().replicas == 5);
  CHECK(more->recommended.parts.front().cost.tco_usd == Approx(88044.4));
}

TEST_CASE("min_energy ranks by tokens per joule; min_tco by money", "[unit][solver]") {
  PlanInputs in = inputs(300, 100);
  // The eco twin has the same peaks and memory at 200 W TDP (30 W idle) and costs $15k.
  HardwareSpec eco = test_gpu();
  eco.name = "ecogpu";
  eco.tdp_w = 200;
  eco.idle_w = 30;
  in.space.hardware.push_back(eco);
  DevicePricing ep = in.prices.devices[0];
  ep.hardware = "ecogpu";
  ep.tiers = {{1, 15000}};
  in.prices.devices.push_back(ep);
  auto cheap = solve(in);
  REQUIRE(cheap.ok());
  REQUIRE(cheap->feasible);
  CHECK(cheap->recommended.parts.front().hardware == "testgpu");
  in.objective = Objective::min_energy;
  auto green = solve(in);
  REQUIRE(green.ok());
  REQUIRE(green->feasible);
  const auto& ranked = green->pools[0].ranked;
  REQUIRE(ranked.size() == 2);
  CHECK(ranked[0].hardware == "ecogpu");
  // Same replicas and busy fraction, less power: tokens/J = 100 req/s x 50 tokens / IT W.
  CHECK(ranked[0].replicas == ranked[1].replicas);
  CHECK(ranked[0].objective_value == Approx(100.0 * 50 / ranked[0].power_w));
  CHECK(ranked[0].objective_value > ranked[1].objective_value);
}

TEST_CASE("objectives name the cap they need and plan one pool", "[unit][solver]") {
  PlanInputs in = inputs(10, 5);
  in.objective = Objective::max_qps_within_power;
  auto errs = validate(in);
  REQUIRE(errs.size() == 1);
  CHECK(errs[0] == "objective max_qps_within_power needs constraints.power_cap_w");
  in.objective = Objective::max_qps_within_rack;
  CHECK(validate(in).at(0) == "objective max_qps_within_rack needs constraints.rack_units");
  in.objective = Objective::max_qps_within_budget;
  in.constraints.annual_budget_usd = 1e5;  // an annual budget alone is enough
  CHECK(validate(in).empty());
  in.pools.push_back(in.pools[0]);
  in.pools[1].name = "second";
  errs = validate(in);
  REQUIRE(errs.size() == 1);
  CHECK(errs[0].find("the caps size one pool") != std::string::npos);
  CHECK(objective_name(Objective::min_energy) == "min_energy");
}

TEST_CASE("budget messages speak the display currency", "[unit][solver]") {
  PlanInputs in = inputs(100, 50);
  const CandidateRow free = eval(in);
  REQUIRE(free.feasible);
  in.prices.display_currency = Currency::cny;
  in.prices.cny_per_usd = 7;
  in.constraints.capex_budget_usd = free.cost.capex_usd * 0.5;
  const CandidateRow r = eval(in);
  const Constraint* c = constraint(r, "capex_budget");
  REQUIRE(c != nullptr);
  // capex x 7 CNY/USD, in thousands: the fleet, half of it as the budget, and the other half over.
  const double k = free.cost.capex_usd * 7 / 1e3;
  REQUIRE(k < 1000);  // below a million CNY the message counts thousands
  CHECK(c->message == fmt::format("capex {:.0f}k CNY exceeds the {:.0f}k CNY budget by {:.0f}k CNY",
                                  k, k / 2, k / 2));
  CHECK(c->fix == fmt::format("add {:.0f}k CNY to the capex budget", k / 2));
  CHECK(c->message.find('$') == std::string::npos);
}
