// max_qps_within_sla and the batch-size knee, against closed forms.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "infercap/serving.hpp"
#include "serving_doubles.hpp"

using namespace infercap;
using namespace infercap::testing;

namespace {

RequestClass mm1_class(double e2e_limit_s) {
  // 1-token prompt, exponential output of mean 20 tokens, 1 ms steps: M/M/1 with mu = 50/s.
  RequestClass c;
  c.name = std::string("mm1");
  c.rate.mean_qps = 1;
  c.prompt_tokens = *fixed_length(1);
  c.output_tokens = *exponential_length(20);
  c.sla.e2e = {e2e_limit_s, 99};
  return c;
}

}  // namespace

TEST_CASE("max QPS within a P99 sojourn SLA on M/M/1", "[solver]") {
  // Sojourn ~ Exp(mu - lambda): P99 = ln(100) / (mu - lambda) <= T  =>  lambda_max = mu -
  // ln(100)/T.
  ConstStep m;
  m.s = 1e-3;
  const double mu = 50, T = 0.2;
  auto r = max_qps_within_sla(m, single_server(), {mm1_class(T)}, 1e-5);
  REQUIRE(r);
  CHECK(r->qps == Approx(mu - std::log(100.0) / T).epsilon(1e-4));
  CHECK(r->binding_metric == "e2e");
  CHECK(r->binding_class == "mm1");
  CHECK(r->at_max.meets_sla);
  CHECK(r->at_max.all.e2e_at_sla_s <= T);
  // At vanishing load the P99 is ln(100) / mu = 92 ms: the floor ratio is 0.46 of the limit.
  CHECK(r->floor_ratio == Approx(std::log(100.0) / mu / T).epsilon(1e-4));
}

TEST_CASE("an SLA below the physical floor gives zero QPS and by how much", "[solver]") {
  // Floor: P99 service = ln(100) / mu = 92.1 ms > 50 ms limit: ratio 1.842.
  ConstStep m;
  m.s = 1e-3;
  auto r = max_qps_within_sla(m, single_server(), {mm1_class(0.05)});
  REQUIRE(r);
  CHECK(r->qps == 0);
  CHECK(r->binding_metric == "e2e");
  CHECK(r->floor_ratio == Approx(std::log(100.0) / 50 / 0.05).epsilon(1e-4));

  // TPOT below the step time: can never be met.
  auto c = mm1_class(10);
  c.sla.tpot = {0.5e-3, 90};
  auto t = max_qps_within_sla(m, single_server(), {c});
  REQUIRE(t);
  CHECK(t->qps == 0);
  CHECK(t->binding_metric == "tpot");
  CHECK(t->floor_ratio == Approx(2).epsilon(1e-9));
}

TEST_CASE("max QPS without latency bounds is the stability limit", "[solver]") {
  // M/D/1 with 10 ms service and no SLA: stable for lambda < 100/s.
  ConstStep m;
  m.s = 0.01;
  RequestClass c;
  c.name = std::string("d");
  c.rate.mean_qps = 1;
  c.prompt_tokens = *fixed_length(1);
  c.output_tokens = *fixed_length(1);
  auto r = max_qps_within_sla(m, single_server(), {c}, 1e-6);
  REQUIRE(r);
  CHECK(r->qps == Approx(100).epsilon(1e-5));
  CHECK(r->binding_metric == "stability");
  CHECK_FALSE(max_qps_within_sla(m, single_server(), {c}, 0));
}

TEST_CASE("two classes share the replica in their design proportions", "[solver]") {
  // Both classes are the M/M/1 class; rates 1 : 3. The bound is on the total, as for one class.
  ConstStep m;
  m.s = 1e-3;
  auto a = mm1_class(0.2), b = mm1_class(0.2);
  a.name = std::string("a");
  b.name = std::string("b");
  b.rate.mean_qps = 3;
  auto r = max_qps_within_sla(m, single_server(), {a, b}, 1e-5);
  REQUIRE(r);
  CHECK(r->qps == Approx(50 - std::log(100.0) / 0.2).epsilon(1e-4));
  REQUIRE(r->at_max.classes.size() == 2);
  CHECK(r->at_max.classes[1].throughput_rps == Approx(3 * r->at_max.classes[0].throughput_rps));
}

TEST_CASE("batch knee on an affine step time", "[solver]") {
  // Closed loop at concurrency b with 1-token prompts and L outputs runs in lock step, every step
  // holding b tokens: latency L (a + k b), throughput b / (L (a + k b)). Doubling b is worth it
  // (relative throughput gain >= relative latency growth) iff 2 (a + kb)^2 >= (a + 2kb)^2, i.e.
  // b <= a / (k sqrt 2). a = 10 ms, k = 0.5 ms: b <= 14.1, so 8 -> 16 is the last doubling taken.
  // The curves as multiples of batch 1 cross when (a + kb)^2 > b (a + k)^2: not before b = 400.
  AffineStep m;
  RequestClass c;
  c.name = std::string("k");
  c.rate.mean_qps = 1;
  c.prompt_tokens = *fixed_length(1);
  c.output_tokens = *fixed_length(8);
  KneeOptions opt;
  opt.requests = 600;
  auto r = batch_knee(m, ServingConfig{}, c, opt);
  REQUIRE(r);
  REQUIRE(r->points.size() == 9);
  CHECK(r->knee_batch == 16);
  CHECK(r->knee_index == 4);
  CHECK(r->crossing_index == -1);
  for (const auto& p : r->points) {
    const double lat = 8 * (m.a + m.k * p.max_seqs);
    CHECK(p.p99_e2e_s == Approx(lat).epsilon(1e-9));
    CHECK(p.throughput_rps == Approx(p.max_seqs / lat).epsilon(1e-9));
  }

  // Against P99 TPOT (= a + k b here, L times smaller than the E2E) the ratios, so the knee and
  // the crossing, are the same.
  KneeOptions tp = opt;
  tp.latency = KneeLatency::tpot;
  auto t = batch_knee(m, ServingConfig{}, c, tp);
  REQUIRE(t);
  CHECK(t->knee_batch == 16);
  CHECK(t->points[3].p99_tpot_s == Approx(m.a + m.k * 8).epsilon(1e-9));
  // Against P99 TTFT the first token comes from the 1-token prefill step, also a + k b.
  CHECK(t->points[3].p99_ttft_s == Approx(m.a + m.k * 8).epsilon(1e-9));

  // a = k = 1 ms: b <= 0.71, no doubling pays; curves cross at b = 2 ((1 + 2)^2 = 9 > 2 * 4).
  m.a = 1e-3;
  m.k = 1e-3;
  auto s = batch_knee(m, ServingConfig{}, c, opt);
  REQUIRE(s);
  CHECK(s->knee_batch == 1);
  CHECK(s->crossing_index == 1);

  KneeOptions bad = opt;
  bad.batch_caps = {4, 2};
  CHECK_FALSE(batch_knee(m, ServingConfig{}, c, bad));
  bad.batch_caps = {};
  CHECK_FALSE(batch_knee(m, ServingConfig{}, c, bad));
  bad = opt;
  bad.threshold = 0;
  CHECK_FALSE(batch_knee(m, ServingConfig{}, c, bad));
}
