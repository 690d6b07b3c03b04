// Property tests over random valid inputs (issue 13). Two levels:
// - the roofline: 100,000 random (model, device, stack, batch, prompt, output) from the catalog:
//   every figure finite, and more memory bandwidth never slower (TTFT, TPOT);
// - the planner: random valid scenarios (load, lengths, SLA) on one candidate: every output
//   finite, more load never fewer devices, a looser SLA never costs more, and every infeasible
//   candidate names a failed binding constraint. 150 scenarios by default (a few seconds);
//   INFERCAP_PROPERTY_PLANS=N runs N.
// The random stream is seeded (std::mt19937_64, fixed seeds) so a failure reproduces.
#include <fmt/core.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>

#include "infercap/predict.hpp"
#include "infercap/solver.hpp"
#include "infercap/spec/catalog.hpp"
#include "infercap/spec/scenario.hpp"

using namespace infercap;

namespace {

const std::string kData = std::string(INFERCAP_SOURCE_DIR) + "/data";

const spec::Catalog& catalog() {
  static const spec::Catalog cat = [] {
    spec::Diagnostics d;
    auto c = spec::Catalog::load(kData, d);
    REQUIRE_FALSE(d.has_errors());
    return c;
  }();
  return cat;
}

bool finite(const Prediction& p) {
  return std::isfinite(p.ttft_s) && std::isfinite(p.tpot_s) && std::isfinite(p.e2e_s) &&
         std::isfinite(p.prefill_tokens_per_s) && std::isfinite(p.decode_tokens_per_s) &&
         std::isfinite(p.total_decode_tokens_per_s);
}

}  // namespace

TEST_CASE("roofline over 100k random inputs: finite, and more bandwidth is never slower",
          "[model]") {
  const auto& cat = catalog();
  const auto& models = cat.models();
  const auto& hws = cat.hardware();
  REQUIRE_FALSE(models.empty());
  REQUIRE_FALSE(hws.empty());
  std::mt19937_64 rng(13);
  std::uniform_int_distribution<size_t> pick_model(0, models.size() - 1);
  std::uniform_int_distribution<size_t> pick_hw(0, hws.size() - 1);
  std::uniform_int_distribution<int> batch(1, 256);
  std::uniform_real_distribution<double> log_len(0.0, std::log(32768.0));
  std::uniform_real_distribution<double> more(1.01, 4.0);
  int checked = 0;
  int draws = 0;
  // Perf models are cached per (model, device): building one is the expensive part.
  while (checked < 100000 && draws < 400000) {
    ++draws;
    const ModelSpec& m = models[pick_model(rng)];
    HardwareSpec hw = hws[pick_hw(rng)];
    const StackSpec* stack = cat.find_stack(hw.hw_class == HwClass::cpu ? "llama.cpp" : "ideal");
    if (stack == nullptr) continue;
    Deployment dep;
    dep.precision = {DType::bf16, DType::bf16, DType::bf16};
    if (!(at(hw.dense_flops_per_s, ComputeType::bf16) > 0)) {
      dep.precision = {DType::fp16, DType::fp16, DType::fp16};
      if (!(at(hw.dense_flops_per_s, ComputeType::fp16) > 0)) continue;
    }
    auto base = PerfModel::create(m, hw, *stack, dep);
    if (!base) continue;
    HardwareSpec faster = hw;
    faster.memory_bandwidth_bytes_per_s *= more(rng);
    auto fast = PerfModel::create(m, faster, *stack, dep);
    REQUIRE(fast);
    for (int k = 0; k < 20 && checked < 100000; ++k, ++checked) {
      const int b = batch(rng);
      const double prompt = std::floor(std::exp(log_len(rng)));
      const double output = std::max(1.0, std::floor(std::exp(log_len(rng)) / 8));
      const Prediction p = predict(*base, b, prompt, output);
      const Prediction q = predict(*fast, b, prompt, output);
      INFO(m.name << " on " << hw.name << " b=" << b << " p=" << prompt << " o=" << output);
      REQUIRE(finite(p));
      REQUIRE(finite(q));
      // 1e-12 relative: the same sum of operator times, each no larger.
      REQUIRE(q.tpot_s <= p.tpot_s * (1 + 1e-12));
      REQUIRE(q.ttft_s <= p.ttft_s * (1 + 1e-12));
    }
  }
  CHECK(checked == 100000);
}

namespace {

// One scenario on a fixed candidate (L4, int8, TP 1, batch 16), with the load, lengths and SLA
// drawn from the stream.
std::string scenario(double qps, double p50, double out, double ttft_s, double tpot_s) {
  return fmt::format(R"(schema_version: 1
kind: scenario
name: property
workload:
  classes:
    - name: c
      model: qwen2.5-7b
      rate: {{mean_qps: {}}}
      prompt_tokens: {{kind: lognormal, p50: {}, p90: {}}}
      output_tokens: {}
      sla: {{ttft_p99_s: {}, tpot_p90_s: {}}}
candidates:
  hardware: [l4]
  precisions: [int8]
  tp: [1]
  max_batch: [16]
constraints:
  redundancy: 1
verify:
  top: 0
)",
                     qps, p50, p50 * 2.5, out, ttft_s, tpot_s);
}

std::optional<Plan> plan_for(const std::string& text) {
  spec::Diagnostics d;
  spec::Document doc = spec::parse_text(text, "p.yaml", d);
  REQUIRE(doc.ok);
  auto sc = spec::parse_scenario(doc, kData, d);
  REQUIRE(sc);
  auto in = spec::to_plan_inputs(*sc, catalog(), d);
  INFO(d.format());
  REQUIRE(in);
  auto p = solve(*in);
  REQUIRE(p);
  return *p;
}

void check_outputs(const Plan& p) {
  for (const auto& pool : p.pools) {
    for (const auto& r : pool.ranked) {
      REQUIRE(r.feasible);
      REQUIRE(std::isfinite(r.cost.tco_usd));
      REQUIRE(std::isfinite(r.power_w));
      REQUIRE(std::isfinite(r.ttft_p99_s));
      REQUIRE(std::isfinite(r.tpot_p99_s));
      REQUIRE(r.devices > 0);
    }
    for (const auto& r : pool.rejected) {
      // Every infeasible answer names its binding constraint, and it is a failed one.
      REQUIRE(r.binding >= 0);
      REQUIRE(static_cast<size_t>(r.binding) < r.constraints.size());
      const auto& c = r.constraints[static_cast<size_t>(r.binding)];
      REQUIRE_FALSE(c.ok);
      REQUIRE_FALSE(c.message.empty());
    }
  }
  if (p.feasible) REQUIRE(std::isfinite(p.recommended.cost.tco_usd));
  if (!p.feasible) REQUIRE_FALSE(p.infeasible_reason.empty());
}

const CandidateRow* best(const Plan& p) {
  if (p.pools.empty() || p.pools[0].ranked.empty()) return nullptr;
  return &p.pools[0].ranked[0];
}

}  // namespace

TEST_CASE("planner over random valid scenarios: finite, monotone in load and SLA", "[solver]") {
  int n = 150;
  if (const char* e = std::getenv("INFERCAP_PROPERTY_PLANS")) n = std::max(1, std::atoi(e));
  std::mt19937_64 rng(2026);
  std::uniform_real_distribution<double> log_qps(std::log(0.01), std::log(200.0));
  std::uniform_real_distribution<double> p50(50, 3000);
  std::uniform_real_distribution<double> out(1, 800);
  std::uniform_real_distribution<double> ttft(0.05, 5);
  std::uniform_real_distribution<double> tpot(0.01, 0.3);
  std::uniform_real_distribution<double> factor(1.1, 3);
  for (int i = 0; i < n; ++i) {
    const double q = std::exp(log_qps(rng)), p = std::floor(p50(rng)), o = std::floor(out(rng));
    const double t1 = ttft(rng), t2 = tpot(rng), f = factor(rng);
    INFO("qps " << q << " p50 " << p << " out " << o << " ttft " << t1 << " tpot " << t2
                << " factor " << f);
    const Plan base = *plan_for(scenario(q, p, o, t1, t2));
    check_outputs(base);
    const Plan heavier = *plan_for(scenario(q * f, p, o, t1, t2));
    check_outputs(heavier);
    const Plan looser = *plan_for(scenario(q, p, o, t1 * f, t2 * f));
    check_outputs(looser);
    const CandidateRow* b = best(base);
    const CandidateRow* h = best(heavier);
    const CandidateRow* l = best(looser);
    // More load never needs fewer devices (when both are answered).
    if (b != nullptr && h != nullptr) REQUIRE(h->devices >= b->devices);
    // More load cannot turn an infeasible answer feasible.
    if (b == nullptr) REQUIRE(h == nullptr);
    // A looser SLA never costs more, and never loses feasibility.
    if (b != nullptr) {
      REQUIRE(l != nullptr);
      REQUIRE(l->cost.tco_usd <= b->cost.tco_usd * (1 + 1e-9));
    }
  }
}
