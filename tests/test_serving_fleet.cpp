// Replicas behind one dispatcher (SimOptions::replicas, Dispatch) against queueing closed forms
// and exact light-load schedules. Step models are the closed-form doubles of serving_doubles.hpp.
#include <catch2/catch.hpp>
#include <cmath>

#include "infercap/serving.hpp"
#include "serving_doubles.hpp"

using namespace infercap;
using namespace infercap::testing;

namespace {

SimOptions fleet(int replicas, Dispatch d, int64_t requests) {
  SimOptions opt;
  opt.replicas = replicas;
  opt.dispatch = d;
  opt.requests = requests;
  opt.warmup_requests = 5000;
  return opt;
}

}  // namespace

TEST_CASE("a shared queue ahead of two single-sequence replicas is M/M/2 (Erlang C)", "[model]") {
  // 1-token prompt, exponential output of mean 20 tokens, every step 1 ms: service ~ Exp(mean
  // 20 ms), mu = 50/s per replica. Poisson at 80/s over c = 2 replicas: a = lambda / mu = 1.6,
  // rho = a / c = 0.8. Erlang C: P(wait) = (a^2 / 2) / (1 - rho) / (1 + a + (a^2 / 2) / (1 - rho))
  // = 6.4 / 9 = 0.7111; mean wait Wq = P(wait) / (c mu - lambda) = 0.7111 / 20 = 35.6 ms.
  // Least-loaded dispatch queues behind a replica that may finish later than the other: more
  // (for two replicas only a little: 7.6% in a run of this test).
  // Each replica at its own Poisson half is two M/M/1 at rho 0.8: Wq = rho / (mu - lambda / 2)
  // = 80 ms. Shared queue <= least-loaded <= independent halves.
  ConstStep m;
  m.s = 1e-3;
  const double lambda = 80, mu = 50, a = lambda / mu, rho = a / 2;
  const double c_wait = (a * a / 2 / (1 - rho)) / (1 + a + a * a / 2 / (1 - rho));
  const double wq_mm2 = c_wait / (2 * mu - lambda);
  const double wq_mm1 = rho / (mu - lambda / 2);
  REQUIRE(wq_mm2 == Approx(0.035556).epsilon(1e-4));
  const auto cls = make_class(lambda, *fixed_length(1), *exponential_length(20));

  auto shared = simulate(m, single_server(), {cls}, fleet(2, Dispatch::shared_queue, 400000));
  REQUIRE(shared);
  // As in the M/M/1 test: whole-token lengths and 4e5 correlated waits, a few percent.
  CHECK(shared->all.queue_wait.mean_s == Approx(wq_mm2).epsilon(0.06));
  CHECK(shared->throughput_rps == Approx(lambda).epsilon(0.02));
  CHECK(shared->offered_qps == Approx(lambda).epsilon(0.02));
  CHECK(shared->utilisation == Approx(rho).epsilon(0.03));
  CHECK(shared->requests_measured == 400000);
  CHECK(shared->stable);
  // Requests wait in the shared queue, not in the engines (each takes one at a time): at
  // rho = 0.8 it grows well past the one request an engine holds.
  CHECK(shared->queue_max > 5);

  auto least = simulate(m, single_server(), {cls}, fleet(2, Dispatch::least_loaded, 400000));
  REQUIRE(least);
  CHECK(least->stable);
  CHECK(least->throughput_rps == Approx(lambda).epsilon(0.02));
  CHECK(least->all.queue_wait.mean_s > shared->all.queue_wait.mean_s);

  SimOptions halves;
  halves.requests = 400000;
  halves.warmup_requests = 5000;
  auto half = simulate(m, single_server(),
                       {make_class(lambda / 2, *fixed_length(1), *exponential_length(20))}, halves);
  REQUIRE(half);
  CHECK(half->all.queue_wait.mean_s == Approx(wq_mm1).epsilon(0.06));
  CHECK(least->all.queue_wait.mean_s < 0.9 * half->all.queue_wait.mean_s);
}

TEST_CASE("at light load least-loaded dispatch runs every request alone", "[model]") {
  // step = 10 ms + 0.5 ms a token: a 100-token prompt is one 60 ms step (its first token), each
  // of the other 9 tokens a 10.5 ms decode step: alone, TTFT = 60 ms and TPOT = 10.5 ms exactly.
  // At 0.5 req/s a request lives 60 + 9 x 10.5 = 154.5 ms, 0.077 in flight on average (M/G/inf:
  // Poisson): one in thirteen arrives while another runs, one in 6.5e5 while four do. So on four
  // replicas (least-loaded, or a shared queue that an idle replica takes from at once) every
  // request finds one idle and keeps it to itself: TTFT, TPOT and end-to-end are the lone
  // request's, to the last one measured. One replica at the same rate batches the overlaps: a
  // decode sharing its step with a 100-token prompt takes 60.5 ms, (8 x 10.5 + 60.5) / 9 = 16.1
  // ms a token for that request, more than 1.3 x 10.5 ms, and over 1% of requests see it.
  AffineStep m;
  m.a = 0.010;
  m.k = 0.0005;
  ServingConfig cfg;
  cfg.max_seqs = 64;
  cfg.max_batched_tokens = 2048;
  const auto cls = make_class(0.5, *fixed_length(100), *fixed_length(10));
  for (const Dispatch d : {Dispatch::least_loaded, Dispatch::shared_queue}) {
    auto r = simulate(m, cfg, {cls}, fleet(4, d, 20000));
    REQUIRE(r);
    CHECK(r->all.ttft.p99_s == Approx(0.060).epsilon(1e-9));
    CHECK(r->all.ttft.mean_s == Approx(0.060).epsilon(1e-9));
    CHECK(r->all.tpot.p99_s == Approx(0.0105).epsilon(1e-9));
    CHECK(r->all.e2e.p99_s == Approx(0.1545).epsilon(1e-9));
  }
  SimOptions one;
  one.requests = 20000;
  one.warmup_requests = 5000;
  auto alone = simulate(m, cfg, {cls}, one);
  REQUIRE(alone);
  CHECK(alone->all.tpot.p99_s > 1.3 * 0.0105);
}

TEST_CASE("a fleet of replicas: bad settings are errors as values", "[model]") {
  ConstStep m;
  const auto cls = make_class(10, *fixed_length(1), *fixed_length(1));
  SimOptions opt = fleet(0, Dispatch::least_loaded, 100);
  auto zero = simulate(m, single_server(), {cls}, opt);
  REQUIRE_FALSE(zero);
  CHECK_THAT(zero.error().message, Catch::Contains("replicas must be >= 1, got 0"));
  opt = fleet(2, Dispatch::least_loaded, 100);
  opt.closed_loop_clients = 4;
  auto closed = simulate(m, single_server(), {cls}, opt);
  REQUIRE_FALSE(closed);
  CHECK_THAT(closed.error().message, Catch::Contains("open loop only"));
}

TEST_CASE("an overloaded fleet is unstable, not an error", "[model]") {
  // Two single-sequence replicas of 10 ms a request carry 200 req/s; 300 req/s overflow. With a
  // shared queue it grows until the waiting cap; least-loaded dispatch hands a replica more
  // requests than its room, or the replicas' queues hit their cap.
  ConstStep m;
  const auto cls = make_class(300, *fixed_length(1), *fixed_length(1));
  for (const Dispatch d : {Dispatch::least_loaded, Dispatch::shared_queue}) {
    auto r = simulate(m, single_server(), {cls}, fleet(2, d, 50000));
    REQUIRE(r);
    CHECK_FALSE(r->stable);
    CHECK_THAT(r->note, Catch::Contains("unstable"));
  }
}

TEST_CASE("a fleet's finite run: every request counted, over the whole run", "[model]") {
  // Two single-sequence replicas (one-step requests of 10 ms each, 200 requests/s together)
  // behind a shared queue, fed 1000 requests at 1000/s: five times what they clear. After the
  // first arrival a_0 both stay busy, so the 1000 requests take about 1000 x 10 ms / 2 = 5 s and
  // the run's throughput is N / (its wall time from t = 0), about 200 requests/s, all N
  // measured; the overloaded queue (up to ~800) neither stops the run nor errs.
  ConstStep m;
  const auto cls = make_class(1000, *fixed_length(1), *fixed_length(1));
  SimOptions opt = fleet(2, Dispatch::shared_queue, 1000);
  opt.warmup_requests = 0;
  opt.finite_run = true;
  auto r = simulate(m, single_server(), {cls}, opt);
  REQUIRE(r);
  CHECK(r->requests_measured == 1000);
  CHECK(r->simulated_s == Approx(1000 * m.s / 2).margin(0.02));
  CHECK(r->throughput_rps * r->simulated_s == Approx(1000).epsilon(1e-9));
  CHECK(r->note.find("more than") == std::string::npos);
  // The last request waited for nearly every other: close to the whole run.
  CHECK(r->all.e2e.p99_s > 0.8 * (r->simulated_s - 1.0));
}
