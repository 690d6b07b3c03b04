// Answers stated honestly: what binds an infeasible question across all candidates, what set a
// feasible candidate's replica count, figures printed with the digits that tell them apart,
// utilisation as load over capacity with power following it, and what staged growth saves.
// The world is solver_fixture.hpp's; hand-derived figures are stated beside each check.
#include <fmt/core.h>
#include <catch2/catch.hpp>
#include <cmath>

#include "solver_fixture.hpp"

using namespace infercap;
using namespace solver_fixture;

namespace {

// The text between `before` and `after` in `s` (empty if either is missing).
std::string between(const std::string& s, const std::string& before, const std::string& after) {
  const auto a = s.find(before);
  if (a == std::string::npos) return {};
  const auto b = s.find(after, a + before.size());
  if (b == std::string::npos) return {};
  return s.substr(a + before.size(), b - a - before.size());
}

HardwareSpec slow_gpu() {
  // Half the test GPU's bandwidth and compute: every latency floor is higher.
  HardwareSpec h = test_gpu();
  h.name = "slowgpu";
  at(h.dense_flops_per_s, ComputeType::bf16) = 50e12;
  at(h.dense_flops_per_s, ComputeType::fp16) = 50e12;
  h.memory_bandwidth_bytes_per_s = 0.5e12;
  return h;
}

void price_like_test_gpu(PlanInputs& in, const std::string& name) {
  DevicePricing d = in.prices.devices[0];
  d.hardware = name;
  in.prices.devices.push_back(d);
}

}  // namespace

TEST_CASE("an SLA below every device's floor names the fastest device and its floor",
          "[unit][solver]") {
  PlanInputs in = inputs(10, 5);
  in.space.hardware.push_back(slow_gpu());
  price_like_test_gpu(in, "slowgpu");
  in.pools[0].classes[0].sla.ttft.limit_s = 1e-6;  // 1 us: below any prefill of 200 tokens
  auto plan = solve(in);
  REQUIRE(plan.ok());
  CHECK_FALSE(plan->feasible);
  // The fastest is the test GPU (twice the bandwidth and compute); its floor is its own
  // constraint's value.
  const CandidateRow* fast = nullptr;
  for (const auto& r : plan->pools[0].rejected)
    if (r.hardware == "testgpu") fast = &r;
  REQUIRE(fast != nullptr);
  const Constraint* sla = find(*fast, "sla");
  REQUIRE(sla != nullptr);
  CHECK(sla->quantity == "TTFT P99");
  CHECK(sla->limit == Approx(1e-6));
  REQUIRE(sla->value > 1e-6);
  const std::string& h = plan->infeasible_reason;
  INFO(h);
  CHECK(h.find("TTFT P99 <= 0.00100 ms is below the floor of every candidate: the fastest is "
               "testgpu (bf16 TP1, ideal)") != std::string::npos);
  CHECK(h.find(fmt::format("at {:.3g} ms even at vanishing load", sla->value * 1e3)) !=
        std::string::npos);
  CHECK(h.find("relax TTFT P99 to") != std::string::npos);
}

TEST_CASE("the nearest infeasible candidate is chosen on the constraint that binds them all",
          "[unit][solver]") {
  // testgpu runs, fits and meets the SLA but its fleet is twice the capex budget (misses by
  // 100%); smallgpu misses memory by only 1%. The question is bound by money (the furthest any
  // candidate gets), so the headline names the budget, not the 1% memory miss.
  PlanInputs in = inputs(100, 50);
  const CandidateRow free = eval(in);
  REQUIRE(free.feasible);
  in.constraints.capex_budget_usd = free.cost.capex_usd * 0.5;
  Deployment dep;
  dep.precision = precision_preset("bf16")->precision;
  auto perf = PerfModel::create(in.models[0], in.space.hardware[0], ideal_stack(), dep);
  REQUIRE(perf.ok());
  const MemoryReport m = perf->memory(1, 250, in.serving.max_batched_tokens);
  HardwareSpec small = test_gpu();
  small.name = "smallgpu";
  small.memory_bytes =
      in.space.hardware[0].memory_bytes - (m.capacity_bytes - m.total_bytes) - 0.01 * m.total_bytes;
  in.space.hardware.push_back(small);
  price_like_test_gpu(in, "smallgpu");
  auto plan = solve(in);
  REQUIRE(plan.ok());
  CHECK_FALSE(plan->feasible);
  const std::string& h = plan->infeasible_reason;
  INFO(h);
  CHECK(h.find("1 of 2 stop at 'capex_budget'") != std::string::npos);
  CHECK(h.find("the nearest of them, testgpu (bf16 TP1)") != std::string::npos);
  CHECK(h.find("(misses by 100%)") != std::string::npos);  // margin (budget - 2 budget) / budget
  bool memory_rejected = false;
  for (const auto& r : plan->pools[0].rejected)
    memory_rejected =
        memory_rejected || (r.hardware == "smallgpu" && r.binding_constraint()->name == "memory");
  CHECK(memory_rejected);
}

TEST_CASE("a feasible candidate is bound by what set its replica count", "[unit][solver]") {
  PlanInputs in = inputs(100, 50);
  const CandidateRow free = eval(in);
  REQUIRE(free.feasible);
  // A rack cap of exactly the fleet's height has zero slack; it did not set the count.
  in.constraints.rack_units = free.rack_units;
  const CandidateRow r = eval(in);
  REQUIRE(r.feasible);
  CHECK(find(r, "rack")->margin == Approx(0));
  CHECK(r.sized_by == "sla");
  REQUIRE(r.binding_constraint() != nullptr);
  CHECK(r.binding_constraint()->name == "sla");
}

TEST_CASE("misses are printed with the digits that tell the figures apart", "[unit][solver]") {
  PlanInputs in = inputs(100, 50);
  const CandidateRow free = eval(in);
  REQUIRE(free.feasible);
  // One replica carries the 100 req/s (q is thousands of req/s): 1 device + 1 server = $30k.
  REQUIRE(free.cost.capex_usd == Approx(30000));
  in.constraints.capex_budget_usd = 29900;
  const CandidateRow r = eval(in);
  const Constraint* c = find(r, "capex_budget");
  REQUIRE(c != nullptr);
  // "$30k exceeds the $30k budget" is what one decimal fewer would say.
  CHECK(c->message == "capex $30.0k exceeds the $29.9k budget by $100");
  // An SLA 0.01% below the floor: the two latencies must read differently.
  PlanInputs tight = inputs(10, 5);
  tight.pools[0].classes[0].sla.ttft.limit_s = 1e-6;
  const CandidateRow at_floor = eval(tight);
  const Constraint* floor = find(at_floor, "sla");
  REQUIRE(floor != nullptr);
  tight.pools[0].classes[0].sla.ttft.limit_s = floor->value * (1 - 1e-4);
  const CandidateRow just_below = eval(tight);
  const Constraint* near = find(just_below, "sla");
  REQUIRE(near != nullptr);
  REQUIRE_FALSE(near->ok);
  const std::string shown = between(near->message, "TTFT P99 ", " exceeds the ");
  const std::string limit = between(near->message, " exceeds the ", " SLA");
  INFO(near->message);
  CHECK_FALSE(shown.empty());
  CHECK(shown != limit);
}

TEST_CASE("utilisation is load over capacity and power follows the load curve", "[unit][solver]") {
  PlanInputs in = inputs(20000, 8000);
  in.constraints.redundancy = 1;
  const CandidateRow r = eval(in);
  REQUIRE(r.feasible);
  const double q = r.max_qps_per_replica;
  const int working = r.replicas - 1;
  CHECK(r.utilisation == Approx(20000 / (working * q)));
  CHECK(r.utilisation_average == Approx(8000 / (r.replicas * q)));
  CHECK(r.carried_qps == Approx(working * q));
  // A daily curve: 12 hours at 2q, 12 idle. Design = the busiest hour (2q), average = q. Power
  // is linear in load, so the day's energy is the mean load's power for 24 hours.
  PlanInputs day = inputs(1, 1);
  day.pools[0].classes[0].rate = ArrivalRate{};
  for (int h = 0; h < 24; ++h)
    day.pools[0].classes[0].rate.hourly_qps.push_back(h < 12 ? 2 * q : 0);
  const CandidateRow d = eval(day);
  REQUIRE(d.feasible);
  CHECK(d.replicas == 2);  // ceil(2q / q)
  CHECK(d.utilisation_average == Approx(q / (2 * q)));
  // 2 devices at 50 + 0.5 x 250 W + 1 server's 400 W = 750 W; x 1.5 PUE x 8760 h, 2 years.
  CHECK(d.power_w == Approx(750));
  CHECK(d.cost.energy_kwh == Approx(2 * 750 * 1.5 * 8.76));
}

TEST_CASE("staged growth states what it saves against buying the final fleet on day one",
          "[unit][solver]") {
  PlanInputs in = inputs(1, 1);
  const double q = eval(in).max_qps_per_replica;
  // The load doubles each year from 1.5q: 2, 3 (ceil 3q/q), 6 replicas in years 1-3.
  in.pools[0].classes[0].rate.peak_qps = 1.5 * q;
  in.pools[0].classes[0].rate.mean_qps = 1.5 * q;
  in.constraints.horizon_years = 3;
  in.constraints.load_growth_per_year = 1.0;
  in.strategy = FleetStrategy::staged;
  auto plan = solve(in);
  REQUIRE(plan.ok());
  REQUIRE(plan->feasible);
  const std::string& note = plan->recommended.label == "staged growth"
                                ? plan->recommended.note
                                : plan->alternatives.front().note;
  INFO(note);
  CHECK(note.find("year 1: buy 2 x testgpu") != std::string::npos);
  CHECK(note.find("year 2: buy 1 x testgpu") != std::string::npos);
  CHECK(note.find("year 3: buy 3 x testgpu") != std::string::npos);
  // Day one would buy all 6 devices (2 servers: $100k) in year 1; staged spends the same capex
  // later, so its straight-line capital within the horizon is smaller.
  CHECK(note.find("saves $") != std::string::npos);
  CHECK(note.find("against buying the final year's fleet on day one") != std::string::npos);
}

TEST_CASE("hardware without a price is named in the plan, not dropped in silence",
          "[unit][solver]") {
  PlanInputs in = inputs(100, 50);
  HardwareSpec unpriced = test_gpu();
  unpriced.name = "quoteless";
  in.space.hardware.push_back(unpriced);
  auto plan = solve(in);
  REQUIRE(plan.ok());
  CHECK(plan->feasible);  // the priced test GPU still answers
  CHECK(plan->unpriced == std::vector<std::string>{"quoteless"});
  CHECK(plan->unpriced_note.find("left out for want of a price in price book 'test': quoteless; "
                                 "add each under prices.devices") != std::string::npos);
  bool rejected = false;
  for (const auto& r : plan->pools[0].rejected)
    rejected = rejected || (r.hardware == "quoteless" && r.binding_constraint()->name == "priced");
  CHECK(rejected);
  in.space.hardware.pop_back();
  auto all_priced = solve(in);
  REQUIRE(all_priced.ok());
  CHECK(all_priced->unpriced.empty());
  CHECK(all_priced->unpriced_note.empty());
}

TEST_CASE("hardware no stack of the search runs on is named in the plan, not dropped in silence",
          "[unit][solver]") {
  // The search's one stack names acme's devices only: a priced device of another vendor is never
  // a candidate, and the plan says why in the mismatch's own words. A stack for every vendor (or
  // a second stack that runs there) clears the note.
  PlanInputs in = inputs(100, 50);
  in.space.stacks[0].vendors = {"acme"};
  HardwareSpec other = test_gpu();
  other.name = "elsewhere";
  other.vendor = "zenith";
  in.space.hardware.push_back(other);
  in.prices.devices.push_back(in.prices.devices.front());
  in.prices.devices.back().hardware = "elsewhere";
  auto plan = solve(in);
  REQUIRE(plan.ok());
  CHECK(plan->feasible);  // acme's test GPU still answers
  CHECK(plan->unpriced.empty());
  CHECK(plan->no_stack ==
        std::vector<std::string>{"stack 'ideal' runs on acme hardware; 'elsewhere' is zenith"});
  CHECK(plan->no_stack_note ==
        "left out because no stack of the search runs on them: stack 'ideal' runs on acme "
        "hardware; 'elsewhere' is zenith");
  for (const auto& r : plan->pools[0].ranked) CHECK(r.hardware != "elsewhere");
  StackSpec anywhere = ideal_stack();
  anywhere.name = "anywhere";
  in.space.stacks.push_back(anywhere);
  auto both = solve(in);
  REQUIRE(both.ok());
  CHECK(both->no_stack.empty());
  CHECK(both->no_stack_note.empty());
}
